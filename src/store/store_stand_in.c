/* Stand-ins: the person a player names to give his orders while he is
 * away (rulebook 1.1). The latest one per player; the password hashed like
 * the players'. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <sodium.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The schema step that made the table (store_schema.c). */
#define STAND_IN_SCHEMA 9

void store_stand_in_free(struct store_stand_in *si)
{
	free(si->player);
	free(si->address);
	free(si->name);
	free(si->named_by);
	free(si->end_reason);
	memset(si, 0, sizeof *si);
}

int store_stand_in_set(struct store *s, const struct store_stand_in *si, const char *password,
		       char **errstr)
{
	if (store_schema_version(s) < STAND_IN_SCHEMA)
		return store_fail(s, errstr, STORE_ERROR, "the schema keeps no stand-ins");
	char hash[crypto_pwhash_STRBYTES];
	if (crypto_pwhash_str(hash, password, strlen(password), s->opslimit, s->memlimit) != 0)
		return store_fail(s, errstr, STORE_ERROR, "not enough memory to hash a password");
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "INSERT OR REPLACE INTO stand_ins (player, address, name,"
				   " password_hash, named_by, started_at, until_at, ended_at,"
				   " end_reason) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
				   "tttttII", si->player, si->address, si->name, hash,
				   si->named_by ? si->named_by : "player", si->started_at,
				   si->until_at);
	sodium_memzero(hash, sizeof hash);
	return store_write_end(s, status, errstr);
}

int store_stand_in_get(struct store *s, const char *player, struct store_stand_in *si,
		       bool *found, char **errstr)
{
	memset(si, 0, sizeof *si);
	*found = false;
	if (store_schema_version(s) < STAND_IN_SCHEMA)
		return STORE_OK;
	sqlite3_stmt *st = NULL;
	int status = store_prepare(s, errstr, &st,
				   "SELECT player, address, name, named_by, started_at, until_at,"
				   " ended_at, end_reason FROM stand_ins WHERE player = ?",
				   "t", player);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, found);
	if (status == STORE_OK && *found) {
		si->player = store_column_text(st, 0);
		si->address = store_column_text(st, 1);
		si->name = store_column_text(st, 2);
		si->named_by = store_column_text(st, 3);
		si->started_at = sqlite3_column_int64(st, 4);
		si->until_at = sqlite3_column_int64(st, 5);
		si->ended_at = sqlite3_column_int64(st, 6);
		si->end_reason = store_column_text(st, 7);
		if (!si->player || !si->address)
			status = store_corrupt(s, errstr, "a stand-in without player or address");
	}
	store_finish(s, st);
	if (status != STORE_OK)
		store_stand_in_free(si);
	return status;
}

int store_stand_in_end(struct store *s, const char *player, int64_t at, const char *reason,
		       char **errstr)
{
	if (store_schema_version(s) < STAND_IN_SCHEMA)
		return store_fail(s, errstr, STORE_NOTFOUND, "no stand-in for \"%s\"", player);
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes,
				   "UPDATE stand_ins SET ended_at = ?, end_reason = ?"
				   " WHERE player = ? AND ended_at IS NULL",
				   "Itt", at, reason, player);
	if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no stand-in for \"%s\"", player);
	return store_write_end(s, status, errstr);
}

bool store_stand_in_check_password(struct store *s, const char *player, const char *password,
				   char **errstr)
{
	if (!password || store_schema_version(s) < STAND_IN_SCHEMA)
		return false;
	sqlite3_stmt *st = NULL;
	bool row = false, ok = false;
	int status = store_prepare(s, errstr, &st,
				   "SELECT password_hash FROM stand_ins WHERE player = ?", "t",
				   player);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row && sqlite3_column_type(st, 0) != SQLITE_NULL)
		ok = store_password_matches(s, (const char *)sqlite3_column_text(st, 0),
					    password);
	store_finish(s, st);
	return ok;
}

int store_stand_ins_due(struct store *s, int64_t now, char ***players, char **errstr)
{
	*players = xcalloc(1, sizeof **players);
	if (store_schema_version(s) < STAND_IN_SCHEMA)
		return STORE_OK;
	sqlite3_stmt *st = NULL;
	size_t n = 0;
	bool row = false;
	int status = store_prepare(s, errstr, &st,
				   "SELECT player FROM stand_ins WHERE ended_at IS NULL"
				   " AND until_at <= ? ORDER BY player",
				   "I", now);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		*players = xrealloc(*players, (n + 2) * sizeof **players);
		(*players)[n++] = store_column_text(st, 0);
		(*players)[n] = NULL;
	}
	store_finish(s, st);
	return status;
}
