#include "config.h"

#include "base/log.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <time.h>

static enum log_level current_level = LOG_LEVEL_INFO;
static bool to_syslog;
/* Lines get a timestamp once log_init ran (the daemon), unless systemd's
 * journal, which stamps every line itself, is reading stderr: JOURNAL_STREAM
 * names the journal's stream ("device:inode") and stderr is that stream (a
 * program started from a shell of a desktop session inherits the variable
 * with stderr elsewhere). A program that never calls log_init (the
 * command-line tool) prints plain lines. */
static bool stamp_lines;
static char ident_buf[64] = "campaignd";
static char *context;

static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	char end;
	struct stat st;
	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &end) != 2 || fstat(2, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(const char *ident, enum log_level level, bool use_syslog)
{
	snprintf(ident_buf, sizeof ident_buf, "%s", ident);
	current_level = level;
	if (to_syslog && !use_syslog)
		closelog();
	to_syslog = use_syslog;
	stamp_lines = !stderr_is_journal();
	if (use_syslog)
		openlog(ident_buf, LOG_PID, LOG_DAEMON);
}

bool log_level_parse(const char *name, enum log_level *level)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0) {
			*level = (enum log_level)i;
			return true;
		}
	return false;
}

void log_set_context(const char *ctx)
{
	free(context);
	context = ctx ? xstrdup(ctx) : NULL;
}

static void log_v(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void log_v(enum log_level level, const char *fmt, va_list ap)
{
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	static const char *const tag[] = {"error: ", "warning: ", "", "debug: "};
	if (level > current_level)
		return;
	struct strbuf sb = {0};
	if (context)
		strbuf_printf(&sb, "[%s] ", context);
	strbuf_vprintf(&sb, fmt, ap);
	/* one event, one line: a newline inside a message would split it */
	for (size_t i = 0; i < sb.len; i++)
		if (sb.data[i] == '\n' || sb.data[i] == '\r')
			sb.data[i] = ' ';
	if (to_syslog)
		syslog(prio[level], "%s", sb.data);
	else if (!stamp_lines)
		fprintf(stderr, "%s: %s%s\n", ident_buf, tag[level], sb.data);
	else {
		char stamp[40] = "";
		time_t now = time(NULL);
		struct tm tm;
		if (localtime_r(&now, &tm))
			strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S%z ", &tm);
		fprintf(stderr, "%s%s: %s%s\n", stamp, ident_buf, tag[level], sb.data);
	}
	strbuf_free(&sb);
}

#define LOG_FN(name, level)                       \
	void name(const char *fmt, ...)            \
	{                                         \
		va_list ap;                       \
		va_start(ap, fmt);                \
		log_v(level, fmt, ap);            \
		va_end(ap);                       \
	}
LOG_FN(log_error, LOG_LEVEL_ERROR)
LOG_FN(log_warn, LOG_LEVEL_WARNING)
LOG_FN(log_info, LOG_LEVEL_INFO)
LOG_FN(log_debug, LOG_LEVEL_DEBUG)
