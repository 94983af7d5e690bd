/* Times shown to players in the campaign's time zone (an IANA name such as
 * "Europe/Paris", from the campaign file). Edge layer: it reads the
 * system's zone database through the C library. */
#ifndef CAMPAIGN_TIMEFMT_H
#define CAMPAIGN_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True if `zone` is a usable IANA zone name: letters, digits and "/_+-",
 * no "..", and present in the zone database (TZDIR, else
 * /usr/share/zoneinfo). "UTC" is always usable. */
bool timefmt_zone_ok(const char *zone);

/* `t` (epoch seconds) as "Fri 4 Dec 2026 18:00 CET" in `zone` into buf;
 * a NULL, empty or unusable zone gives UTC ("... 17:00 UTC"). The process's
 * TZ is set only for the call and restored before it returns (not
 * thread-safe: the daemon is single-threaded). Returns buf. */
const char *timefmt_local(int64_t t, const char *zone, char *buf, size_t size);

/* The first second of day d of month m (1-12) of year y in `zone` (a
 * NULL, empty or unusable zone: UTC), as epoch seconds. d may run past the
 * month's end (32 January is 1 February), so the end of a day is the start
 * of day d + 1. Same TZ handling as timefmt_local. */
int64_t timefmt_day_start(int y, int m, int d, const char *zone);

#endif
