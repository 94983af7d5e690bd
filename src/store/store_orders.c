/* Accepted orders, and small daemon state (kv). */
#include "config.h"

#include "store/store_p.h"

#include <sqlite3.h>

/* ---------------------------------------------------------------- orders */

int store_orders_set(struct store *s, const char *player_key, int year, int phase,
		     const char *text, int64_t now, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status =
			store_run(s, errstr, &changes,
				  "INSERT INTO orders (player, year, phase, text, updated_at)"
				  " SELECT id, ?1, ?2, ?3, ?4 FROM players WHERE key = ?5"
				  " ON CONFLICT (player, year, phase) DO UPDATE"
				  " SET text = excluded.text, updated_at = excluded.updated_at",
				  "ittIt", year, campaign_phase_name(phase), text, now, player_key);
	if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", player_key);
	return store_write_end(s, status, errstr);
}

int store_orders_get(struct store *s, const char *player_key, int year, int phase,
		     char **text, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*text = NULL;
	int status = store_prepare(s, errstr, &st,
				   "SELECT o.text FROM orders o JOIN players p ON p.id = o.player"
				   " WHERE p.key = ? AND o.year = ? AND o.phase = ?",
				   "tit", player_key, year, campaign_phase_name(phase));
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*text = store_column_text(st, 0);
	store_finish(s, st);
	return status;
}

/* ---------------------------------------------------------------- kv */

int store_kv_get(struct store *s, const char *key, char **value, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*value = NULL;
	int status = store_prepare(s, errstr, &st, "SELECT value FROM kv WHERE key = ?", "t", key);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*value = store_column_text(st, 0);
	store_finish(s, st);
	return status;
}

int store_kv_set(struct store *s, const char *key, const char *value, char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status =
			value ? store_run(s, errstr, NULL,
					  "INSERT INTO kv (key, value) VALUES (?, ?)"
					  " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
					  "tt", key, value)
			      : store_run(s, errstr, NULL, "DELETE FROM kv WHERE key = ?", "t",
					  key);
	return store_write_end(s, status, errstr);
}
