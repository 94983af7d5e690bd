/* The event log. */
#include "config.h"

#include "store/store_p.h"

#include <sqlite3.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- events */

int store_append_event(struct store *s, const json_t *event, int *seq, char **errstr)
{
	return store_append_event_at(s, event, 0, seq, errstr);
}

int store_append_event_at(struct store *s, const json_t *event, int64_t recorded_at, int *seq,
			  char **errstr)
{
	const json_t *kind = json_object_get(event, "kind");
	const json_t *year = json_object_get(event, "year");
	const json_t *phase = json_object_get(event, "phase");
	if (!json_is_object(event) || !json_is_string(kind) || !json_is_integer(year) ||
	    json_integer_value(year) < INT32_MIN + 1 || json_integer_value(year) > INT32_MAX ||
	    (phase && !json_is_string(phase) && !json_is_null(phase)))
		return store_fail(
			s, errstr, STORE_ERROR,
			"an event needs a \"kind\" string, a \"year\" integer and no other"
			" \"phase\" than a string");
	char *data = json_dumps(event, JSON_COMPACT);
	if (!data)
		return store_fail(s, errstr, STORE_ERROR, "event cannot be written as JSON");
	int status = store_write_begin(s, errstr);
	int64_t next = 0;
	if (status == STORE_OK)
		status = store_query_int64(
			s, errstr, &next, NULL,
			"SELECT coalesce(max(seq), 0) + 1 FROM events WHERE year = ?", "I",
			(int64_t)json_integer_value(year));
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "INSERT INTO events (year, phase, seq, kind, data, recorded_at)"
				   " VALUES (?, ?, ?, ?, ?, nullif(?, 0))",
				   "ItIttI", (int64_t)json_integer_value(year),
				   json_is_string(phase) ? json_string_value(phase) : NULL, next,
				   json_string_value(kind), data, recorded_at > 0 ? recorded_at : 0);
	free(data);
	status = store_write_end(s, status, errstr);
	if (status == STORE_OK && seq)
		*seq = (int)next;
	return status;
}

int store_events(struct store *s, int year, json_t **events, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*events = NULL;
	int status = year == STORE_ALL_YEARS
			     ? store_prepare(s, errstr, &st,
					     "SELECT data FROM events ORDER BY year, seq", NULL)
			     : store_prepare(s, errstr, &st,
					     "SELECT data FROM events WHERE year = ? ORDER BY seq",
					     "i", year);
	json_t *arr = json_array();
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		const char *data = (const char *)sqlite3_column_text(st, 0);
		json_t *ev = data ? json_loads(data, 0, NULL) : NULL;
		if (!ev)
			status = store_corrupt(s, errstr, "an event is not JSON");
		else
			json_array_append_new(arr, ev);
	}
	store_finish(s, st);
	if (status != STORE_OK) {
		json_decref(arr);
		return status;
	}
	*events = arr;
	return STORE_OK;
}

int store_year_times(struct store *s, int year, int64_t *first, int64_t *last, char **errstr)
{
	*first = *last = 0;
	int status = store_query_int64(
		s, errstr, first, NULL,
		"SELECT coalesce(min(t), 0) FROM (SELECT recorded_at AS t FROM events"
		" WHERE year = ?1 AND recorded_at > 0 UNION ALL SELECT created_at FROM comments"
		" WHERE year = ?1 AND created_at > 0)",
		"i", year);
	if (status == STORE_OK)
		status = store_query_int64(
			s, errstr, last, NULL,
			"SELECT coalesce(max(t), 0) FROM (SELECT recorded_at AS t FROM events"
			" WHERE year = ?1 AND recorded_at > 0 UNION ALL SELECT created_at FROM comments"
			" WHERE year = ?1 AND created_at > 0)",
			"i", year);
	return status;
}
