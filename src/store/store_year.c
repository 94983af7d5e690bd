/* The campaign year by mail: the year's state, the dice seeds, snapshots
 * for undo, the organiser's commentary. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the year by mail */

int store_year_state_get(struct store *s, char **json, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*json = NULL;
	int status =
		store_prepare(s, errstr, &st, "SELECT data FROM year_state WHERE id = 1", NULL);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*json = store_column_text(st, 0);
	store_finish(s, st);
	return status;
}

int store_year_state_set(struct store *s, const char *json, int64_t now, char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "INSERT INTO year_state (id, data, updated_at) VALUES (1, ?, ?)"
				   " ON CONFLICT (id) DO UPDATE SET data = excluded.data,"
				   " updated_at = excluded.updated_at",
				   "tI", json, now);
	return store_write_end(s, status, errstr);
}

static void dice_year_read(sqlite3_stmt *st, struct store_dice_year *d)
{
	memset(d, 0, sizeof *d);
	d->year = sqlite3_column_int(st, 0);
	const char *seed = (const char *)sqlite3_column_text(st, 1);
	const char *commit = (const char *)sqlite3_column_text(st, 2);
	snprintf(d->seed_hex, sizeof d->seed_hex, "%s", seed ? seed : "");
	snprintf(d->commitment, sizeof d->commitment, "%s", commit ? commit : "");
	d->counter = (unsigned long)sqlite3_column_int64(st, 3);
	d->revealed = sqlite3_column_int(st, 4) != 0;
}

int store_dice_year_get(struct store *s, int year, struct store_dice_year *out, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status =
		store_prepare(s, errstr, &st,
			      "SELECT year, seed, commitment, counter, revealed FROM dice_years"
			      " WHERE year = ?",
			      "i", year);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		dice_year_read(st, out);
	else if (status == STORE_OK)
		status =
			store_fail(s, errstr, STORE_NOTFOUND, "no dice seed for the year %d", year);
	store_finish(s, st);
	return status;
}

int store_dice_year_put(struct store *s, const struct store_dice_year *d, char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(
			s, errstr, NULL,
			"INSERT INTO dice_years (year, seed, commitment, counter, revealed)"
			" VALUES (?, ?, ?, ?, ?) ON CONFLICT (year) DO UPDATE SET"
			" seed = excluded.seed, commitment = excluded.commitment,"
			" counter = excluded.counter, revealed = excluded.revealed",
			"ittIB", d->year, d->seed_hex, d->commitment, (int64_t)d->counter,
			d->revealed);
	return store_write_end(s, status, errstr);
}

int store_dice_years(struct store *s, struct store_dice_year **rows, size_t *count,
		     char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	size_t cap = 0;
	*rows = NULL;
	*count = 0;
	int status =
		store_prepare(s, errstr, &st,
			      "SELECT year, seed, commitment, counter, revealed FROM dice_years"
			      " ORDER BY year",
			      NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)rows, &cap, *count + 1, sizeof **rows);
		dice_year_read(st, &(*rows)[(*count)++]);
	}
	store_finish(s, st);
	if (status != STORE_OK) {
		free(*rows);
		*rows = NULL;
		*count = 0;
	}
	return status;
}

void store_snapshot_free(struct store_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->step);
	free(snap->campaign);
	free(snap->year_state);
	memset(snap, 0, sizeof *snap);
}

int store_snapshot_add(struct store *s, const struct store_snapshot *snap, int64_t *id,
		       char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(
			s, errstr, NULL,
			"INSERT INTO snapshots (step, taken_at, campaign, year_state, dice_year,"
			" dice_counter, last_event, last_outbox) VALUES (?, ?, ?, ?, ?, ?,"
			" (SELECT coalesce(max(id), 0) FROM events),"
			" (SELECT coalesce(max(id), 0) FROM outbox))",
			"tIttiI", snap->step, snap->taken_at, snap->campaign, snap->year_state,
			snap->dice_year, (int64_t)snap->dice_counter);
	if (status == STORE_OK && id)
		*id = sqlite3_last_insert_rowid(s->db);
	return store_write_end(s, status, errstr);
}

int store_snapshot_latest(struct store *s, const char *step, struct store_snapshot *out,
			  char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	memset(out, 0, sizeof *out);
	int status = store_prepare(
		s, errstr, &st,
		"SELECT id, step, taken_at, campaign, year_state, dice_year,"
		" dice_counter, last_event, last_outbox FROM snapshots ORDER BY id DESC",
		NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		if (step && !(name && name_equal(name, step)))
			continue;
		out->id = sqlite3_column_int64(st, 0);
		out->step = store_column_text(st, 1);
		out->taken_at = sqlite3_column_int64(st, 2);
		out->campaign = store_column_text(st, 3);
		out->year_state = store_column_text(st, 4);
		out->dice_year = sqlite3_column_int(st, 5);
		out->dice_counter = (unsigned long)sqlite3_column_int64(st, 6);
		out->last_event = sqlite3_column_int64(st, 7);
		out->last_outbox = sqlite3_column_int64(st, 8);
		break;
	}
	store_finish(s, st);
	if (status == STORE_OK && !row)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no snapshot%s%s to go back to",
				    step ? " of " : "", step ? step : "");
	return status;
}

int store_snapshot_rewind(struct store *s, const struct store_snapshot *snap,
			  size_t *dropped_mail, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		/* who held the pen (a stand-in's orders, stand_in.c) is a fact
		 * of the mail received, not of the step taken back: kept */
		status = store_run(s, errstr, NULL,
				   "DELETE FROM events WHERE id > ? AND kind <> 'stand_in'", "I",
				   snap->last_event);
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes,
				   "DELETE FROM outbox WHERE id > ? AND status = 'queued'", "I",
				   snap->last_outbox);
	if (status == STORE_OK && dropped_mail)
		*dropped_mail = (size_t)changes;
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL, "DELETE FROM snapshots WHERE id >= ?", "I",
				   snap->id);
	return store_write_end(s, status, errstr);
}

int store_comment_add(struct store *s, int year, int after_event, const char *text,
		      int64_t now, char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "INSERT INTO comments (year, after_event, text, created_at)"
				   " VALUES (?, ?, ?, ?)",
				   "iitI", year, after_event, text, now);
	return store_write_end(s, status, errstr);
}

int store_comments(struct store *s, int year, json_t **comments, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*comments = NULL;
	int status = store_prepare(
		s, errstr, &st, "SELECT text, after_event FROM comments WHERE year = ? ORDER BY id",
		"i", year);
	json_t *arr = json_array();
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row)
		json_array_append_new(arr, json_pack("{s:s, s:i}", "text",
						     (const char *)sqlite3_column_text(st, 0),
						     "after_event", sqlite3_column_int(st, 1)));
	store_finish(s, st);
	if (status != STORE_OK) {
		json_decref(arr);
		return status;
	}
	*comments = arr;
	return STORE_OK;
}

int store_event_count(struct store *s, int year, int *count, char **errstr)
{
	int64_t n = 0;
	int status = store_query_int64(s, errstr, &n, NULL,
				       "SELECT coalesce(max(seq), 0) FROM events WHERE year = ?",
				       "i", year);
	*count = (int)n;
	return status;
}

int store_player_set_contact(struct store *s, const char *key, const char *name,
			     const char *email, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes,
				   "UPDATE players SET name = ?, email = ? WHERE key = ?", "ttt",
				   name, email, key);
	if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", key);
	return store_write_end(s, status, errstr);
}
