/* The event log: everything that happens in the campaign, as a list of JSON
 * objects. The rules never format prose; turn reports and the diary are
 * rendered from these events through templates.
 *
 * Every event carries at least:
 *   "kind"  what happened ("roll", "loss", "move", "capture", "battle", ...)
 *   "rule"  the rulebook section that caused it, e.g. "2.1 Sea movement"
 *   "year"  the campaign year held in the log when it was emitted
 *   "phase" the phase name held in the log ("campaign", "recruitment", ...)
 * plus fields particular to the kind (doc/rules.md lists them). */
#ifndef CAMPAIGN_EVENT_H
#define CAMPAIGN_EVENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct event_log {
	json_t **events; /* owned references, oldest first */
	size_t count;
	size_t cap;
	int year;        /* stamped on every event */
	int phase;       /* enum campaign_phase, stamped by name */
};

/* A zeroed struct is an empty log too; init sets year 0, phase setup. */
void event_log_init(struct event_log *log);
/* Drops every event (and the references the log holds). */
void event_log_free(struct event_log *log);
/* Sets the year and phase stamped on the events that follow. */
void event_log_set_time(struct event_log *log, int year, int phase);

/* Appends an event. `fmt` and the arguments that follow are a jansson
 * json_pack format for an object of extra fields ("{s:i, s:s}" ...), or NULL
 * for none. The log adds "kind", "rule", "year" and "phase" (they win over
 * extra fields of the same name). If the format does not pack (a bug in the
 * caller, e.g. a NULL string for "s"), the event is still logged, with a
 * "pack_error" field saying why, rather than aborting a campaign year.
 * Returns the event (borrowed: the log owns it). */
json_t *event_emit(struct event_log *log, const char *kind, const char *rule, const char *fmt,
		   ...);

/* Number of events of a kind (all events if kind is NULL). */
size_t event_log_count(const struct event_log *log, const char *kind);
/* The nth (0-based) event of a kind, or NULL. Borrowed. */
json_t *event_log_find(const struct event_log *log, const char *kind, size_t nth);
/* The most recent event of a kind, or NULL. Borrowed. */
json_t *event_log_last(const struct event_log *log, const char *kind);
/* All events as one JSON array text (compact, one event per line). Caller frees. */
char *event_log_dump(const struct event_log *log);

#endif
