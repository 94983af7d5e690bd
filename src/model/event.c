#include "config.h"

#include "model/event.h"
#include "model/model.h"
#include "base/util.h"

#include <stdarg.h>
#include <string.h>

void event_log_init(struct event_log *log)
{
	memset(log, 0, sizeof *log);
	log->phase = PHASE_SETUP;
}

void event_log_free(struct event_log *log)
{
	for (size_t i = 0; i < log->count; i++)
		json_decref(log->events[i]);
	free(log->events);
	log->events = NULL;
	log->count = log->cap = 0;
}

void event_log_set_time(struct event_log *log, int year, int phase)
{
	log->year = year;
	log->phase = phase;
}

json_t *event_emit(struct event_log *log, const char *kind, const char *rule, const char *fmt,
		   ...)
{
	json_t *ev = NULL;
	if (fmt) {
		json_error_t err;
		va_list ap;
		va_start(ap, fmt);
		ev = json_vpack_ex(&err, 0, fmt, ap);
		va_end(ap);
		if (!ev) {
			ev = json_object();
			json_object_set_new(ev, "pack_error", json_string(err.text));
		} else if (!json_is_object(ev)) {
			json_decref(ev);
			ev = json_object();
			json_object_set_new(ev, "pack_error",
					    json_string("event fields are not an object"));
		}
	} else {
		ev = json_object();
	}
	json_object_set_new(ev, "kind", json_string(kind ? kind : "unknown"));
	json_object_set_new(ev, "rule", json_string(rule ? rule : ""));
	json_object_set_new(ev, "year", json_integer(log->year));
	json_object_set_new(ev, "phase", json_string(campaign_phase_name(log->phase)));
	grow_array((void **)&log->events, &log->cap, log->count + 1, sizeof *log->events);
	log->events[log->count++] = ev;
	return ev;
}

static bool kind_is(const json_t *ev, const char *kind)
{
	if (!kind)
		return true;
	const char *k = json_string_value(json_object_get(ev, "kind"));
	return k && strcmp(k, kind) == 0;
}

size_t event_log_count(const struct event_log *log, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; i < log->count; i++)
		if (kind_is(log->events[i], kind))
			n++;
	return n;
}

json_t *event_log_find(const struct event_log *log, const char *kind, size_t nth)
{
	for (size_t i = 0; i < log->count; i++)
		if (kind_is(log->events[i], kind) && nth-- == 0)
			return log->events[i];
	return NULL;
}

json_t *event_log_last(const struct event_log *log, const char *kind)
{
	for (size_t i = log->count; i-- > 0;)
		if (kind_is(log->events[i], kind))
			return log->events[i];
	return NULL;
}

char *event_log_dump(const struct event_log *log)
{
	struct strbuf sb = {0};
	strbuf_putc(&sb, '[');
	for (size_t i = 0; i < log->count; i++) {
		char *s = json_dumps(log->events[i], JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_puts(&sb, i ? ",\n" : "\n");
		strbuf_puts(&sb, s ? s : "null");
		free(s);
	}
	strbuf_puts(&sb, "\n]\n");
	return strbuf_take(&sb);
}
