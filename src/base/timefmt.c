/* Times in the campaign's time zone (see timefmt.h). */
#include "config.h"

#include "base/timefmt.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool timefmt_zone_ok(const char *zone)
{
	if (!zone || !*zone || strlen(zone) > 128 || strstr(zone, "..") || zone[0] == '/')
		return false;
	if (strcmp(zone, "UTC") == 0)
		return true;
	for (const char *p = zone; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/_+-", *p)))
			return false;
	const char *dir = getenv("TZDIR");
	char *path = xasprintf("%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", zone);
	bool ok = access(path, R_OK) == 0;
	free(path);
	return ok;
}

static const char *format_utc(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%a %-d %b %Y %H:%M UTC", &tm))
		snprintf(buf, size, "%" PRId64, t);
	return buf;
}

const char *timefmt_local(int64_t t, const char *zone, char *buf, size_t size)
{
	if (!timefmt_zone_ok(zone) || strcmp(zone, "UTC") == 0)
		return format_utc(t, buf, size);
	const char *old = getenv("TZ");
	char *saved = old ? xstrdup(old) : NULL;
	setenv("TZ", zone, 1);
	tzset();
	time_t tt = (time_t)t;
	struct tm tm;
	bool ok = localtime_r(&tt, &tm) && strftime(buf, size, "%a %-d %b %Y %H:%M %Z", &tm);
	if (saved) {
		setenv("TZ", saved, 1);
		free(saved);
	} else {
		unsetenv("TZ");
	}
	tzset();
	return ok ? buf : format_utc(t, buf, size);
}

int64_t timefmt_day_start(int y, int m, int d, const char *zone)
{
	struct tm tm = {0};
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	if (!timefmt_zone_ok(zone) || strcmp(zone, "UTC") == 0)
		return (int64_t)timegm(&tm);
	const char *old = getenv("TZ");
	char *saved = old ? xstrdup(old) : NULL;
	setenv("TZ", zone, 1);
	tzset();
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (saved) {
		setenv("TZ", saved, 1);
		free(saved);
	} else {
		unsetenv("TZ");
	}
	tzset();
	return (int64_t)t;
}
