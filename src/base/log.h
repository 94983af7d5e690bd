/* Logging for the daemon and the tool: one line per event, to stderr (the
 * journal under systemd) or syslog. Never pass a password to these. */
#ifndef CAMPAIGN_LOG_H
#define CAMPAIGN_LOG_H

#include <stdbool.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARNING, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* ident: program name; level: the most verbose level shown; use_syslog:
 * send to syslog(3) instead of stderr. Lines to stderr start with the local
 * time (2026-03-01T09:00:00+0100) unless JOURNAL_STREAM is set, as systemd
 * sets it for a service whose stderr is the journal (which stamps lines
 * itself); that is read here. Until log_init is called, lines are
 * not stamped (the command-line tool). Callable again (SIGHUP). */
void log_init(const char *ident, enum log_level level, bool use_syslog);
/* Parses "error", "warning", "info", "debug"; false if unknown. */
bool log_level_parse(const char *name, enum log_level *level);
/* A short context (e.g. the campaign name) put in front of every line. */
void log_set_context(const char *context);

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
