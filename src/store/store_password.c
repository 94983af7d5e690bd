/* Passwords: Argon2 hashes of the players' and the organiser's. */
#include "config.h"

#include "store/store_p.h"

#include <sodium.h>
#include <sqlite3.h>
#include <string.h>

/* ---------------------------------------------------------------- passwords */

#define PENDING_SCHEMA 6 /* players.pending_password_hash */

static bool is_organiser(const char *who)
{
	return strcmp(who, STORE_ORGANISER) == 0;
}

int store_set_password(struct store *s, const char *who, const char *password, char **errstr)
{
	char hash[crypto_pwhash_STRBYTES];
	if (crypto_pwhash_str(hash, password, strlen(password), s->opslimit, s->memlimit) != 0)
		return store_fail(s, errstr, STORE_ERROR, "not enough memory to hash a password");
	int status = store_write_begin(s, errstr);
	int changes = 0;
	if (status == STORE_OK)
		status = is_organiser(who)
				 ? store_run(s, errstr, &changes,
					     "UPDATE campaign SET organiser_password_hash = ? "
					     "WHERE id = 1",
					     "t", hash)
				 : store_schema_version(s) >= PENDING_SCHEMA
				 ? store_run(s, errstr, &changes,
					     "UPDATE players SET password_hash = ?,"
					     " pending_password_hash = NULL WHERE key = ?",
					     "tt", hash, who)
				 : store_run(s, errstr, &changes,
					     "UPDATE players SET password_hash = ? WHERE key = ?",
					     "tt", hash, who);
	if (status == STORE_OK && changes == 0 && is_organiser(who))
		status = store_fail(s, errstr, STORE_NOTFOUND, "holds no campaign");
	else if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", who);
	sodium_memzero(hash, sizeof hash);
	return store_write_end(s, status, errstr);
}

int store_set_pending_password(struct store *s, const char *player_key, const char *password,
			       char **errstr)
{
	if (store_schema_version(s) < PENDING_SCHEMA)
		return store_fail(s, errstr, STORE_ERROR, "the schema keeps no pending password");
	char hash[crypto_pwhash_STRBYTES];
	if (crypto_pwhash_str(hash, password, strlen(password), s->opslimit, s->memlimit) != 0)
		return store_fail(s, errstr, STORE_ERROR, "not enough memory to hash a password");
	int status = store_write_begin(s, errstr);
	int changes = 0;
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes,
				   "UPDATE players SET pending_password_hash = ? WHERE key = ?", "tt",
				   hash, player_key);
	if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", player_key);
	sodium_memzero(hash, sizeof hash);
	return store_write_end(s, status, errstr);
}

static void verified_tag(struct store *s, const char *hash, const char *password,
			 unsigned char tag[crypto_generichash_BYTES])
{
	if (!s->verified_ready) {
		randombytes_buf(s->verified_key, sizeof s->verified_key);
		s->verified_ready = true;
	}
	crypto_generichash_state st;
	crypto_generichash_init(&st, s->verified_key, sizeof s->verified_key,
				crypto_generichash_BYTES);
	crypto_generichash_update(&st, (const unsigned char *)hash, strlen(hash) + 1);
	crypto_generichash_update(&st, (const unsigned char *)password, strlen(password));
	crypto_generichash_final(&st, tag, crypto_generichash_BYTES);
}

static bool password_verified(struct store *s, const char *hash, const char *password)
{
	unsigned char tag[crypto_generichash_BYTES];
	verified_tag(s, hash, password, tag);
	for (size_t i = 0; i < STORE_VERIFIED_CACHE; i++)
		if (sodium_memcmp(tag, s->verified[i], sizeof tag) == 0)
			return true;
	if (crypto_pwhash_str_verify(hash, password, strlen(password)) != 0)
		return false;
	memcpy(s->verified[s->verified_next], tag, sizeof tag);
	s->verified_next = (s->verified_next + 1) % STORE_VERIFIED_CACHE;
	return true;
}

/* The pending password (FORGOT PASSWORD) used for the first time: it
 * becomes the password, and the old one stops working. */
static bool pending_password_used(struct store *s, const char *who, const char *password,
				  char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false, ok = false;
	int status = store_prepare(s, errstr, &st,
				   "SELECT pending_password_hash FROM players WHERE key = ?", "t", who);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const char *hash = (const char *)sqlite3_column_text(st, 0);
		ok = hash && password_verified(s, hash, password);
	}
	store_finish(s, st);
	if (!ok)
		return false;
	status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "UPDATE players SET password_hash = pending_password_hash,"
				   " pending_password_hash = NULL WHERE key = ?",
				   "t", who);
	return store_write_end(s, status, errstr) == STORE_OK;
}

bool store_check_password(struct store *s, const char *who, const char *password,
			  char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false, ok = false;
	int status =
		is_organiser(who)
			? store_prepare(s, errstr, &st,
					"SELECT organiser_password_hash FROM campaign WHERE id = 1",
					NULL)
			: store_prepare(s, errstr, &st,
					"SELECT password_hash FROM players WHERE key = ?", "t",
					who);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const char *hash = (const char *)sqlite3_column_text(st, 0);
		ok = hash && password_verified(s, hash, password);
	}
	store_finish(s, st);
	if (!ok && status == STORE_OK && !is_organiser(who) &&
	    store_schema_version(s) >= PENDING_SCHEMA)
		ok = pending_password_used(s, who, password, errstr);
	return ok;
}

bool store_password_matches(struct store *s, const char *hash, const char *password)
{
	return hash && password && password_verified(s, hash, password);
}
