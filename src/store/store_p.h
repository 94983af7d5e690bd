/* Private to src/store: the store handle, and what the table families'
 * files share: the schema's checks (store_schema.c), and errors, statements
 * and transactions (store_sql.c). Nothing outside src/store includes it. */
#ifndef CAMPAIGN_STORE_P_H
#define CAMPAIGN_STORE_P_H

#include "store/store.h"

#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_VERIFIED_CACHE 64
/* Prepared statements kept for the next use of the same SQL text. */
#define STORE_STMT_CACHE 128

struct store_cached_stmt {
	sqlite3_stmt *st;
	unsigned hash;
	bool busy; /* handed out and not yet given back with store_finish */
};

struct store {
	sqlite3 *db;
	char *path;
	int version;
	bool readonly;
	bool in_transaction;   /* store_begin or store_begin_read was called */
	bool read_transaction; /* store_begin_read: no writes */
	unsigned long long opslimit;
	size_t memlimit;
	/* Passwords verified by this process: a keyed hash of (stored hash,
	 * password) for each success, so the same player's next mail does not
	 * pay for Argon2 again (about 0.1 s each). Memory only; a changed
	 * password has a new stored hash and so never matches an old entry. */
	unsigned char verified_key[crypto_generichash_KEYBYTES];
	unsigned char verified[STORE_VERIFIED_CACHE][crypto_generichash_BYTES];
	size_t verified_next;
	bool verified_ready;
	int busy_timeout_ms;
	/* a secret was overwritten: at the next commit, empty the WAL file too,
	 * where the old page would otherwise stay */
	bool scrub_due;
	/* Every statement the store runs is prepared once and kept (SQLite's
	 * parser and planner cost more than most of our statements' work). */
	struct store_cached_stmt stmts[STORE_STMT_CACHE];
	size_t stmt_count;
	/* The campaign as last loaded or saved (store_cache.c), with the
	 * PRAGMA data_version it was read under; NULL when unknown. */
	struct campaign *campaign;
	int64_t campaign_version;
};

/* store.c */

/* Creates path as an empty file only its owner can read and write,
 * whatever the umask: SQLite would create it 0644 minus the umask, and its
 * -wal and -shm files take the database's mode. An existing file is left
 * alone, unless `exclusive`, when it (or any symbolic link, even a dangling
 * one) is STORE_EXISTS. */
int store_create_private(const struct store *s, const char *path, bool exclusive,
			 char **errstr);

/* store_cache.c: the campaign kept in memory. store_campaign_hooks makes
 * SQLite forget it on any write to a campaign table and any rollback. */
void store_campaign_hooks(struct store *s);
void store_campaign_forget(struct store *s);
/* PRAGMA data_version: changes when another connection commits. */
int store_campaign_version(struct store *s, int64_t *version, char **errstr);
/* A copy of the kept campaign if it was read under version, else NULL. */
struct campaign *store_campaign_cached(struct store *s, int64_t version);
/* Keeps a copy of c, read (or written) under version. */
void store_campaign_keep(struct store *s, const struct campaign *c, int64_t version);

/* store_schema.c */

/* Refuses SQLite files that belong to someone else, and schemas from the
 * future; *version gets the file's schema version. */
int store_check_identity(struct store *s, int64_t *version, char **errstr);
/* Brings the schema up to version target, one transaction per step. */
int store_migrate(struct store *s, int target, char **errstr);

/* store_password.c: whether password is the one hashed in `hash` (an
 * Argon2 string of crypto_pwhash_str), verified ones cached. */
bool store_password_matches(struct store *s, const char *hash, const char *password);

/* store_sql.c: errors. Each returns status (STORE_ERROR...) and, when
 * errstr is not NULL, sets *errstr to a message naming the file. */

int store_fail(const struct store *s, char **errstr, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A failure SQLite reported; rc is its result code. */
int store_db_fail(const struct store *s, char **errstr, int rc);
/* "corrupt database: what" */
int store_corrupt(const struct store *s, char **errstr, const char *what);

/* store_join.c: the joining mark of players added during play, read into
 * their status (PLAYER_JOINING; store_save_state writes it); nothing on a
 * file whose schema has no such column. */
int store_join_load(struct store *s, struct campaign *c, char **errstr);

/* store_sql.c: statements. Parameters are bound from a format: 'i' int,
 * 'I' int64_t, 'd' double, 't' text (NULL binds NULL), 'b' blob
 * (const void *, size_t), 'B' bool, 'r' a reference (int; NO_INDEX binds
 * NULL); fmt NULL binds nothing. */

/* Prepares sql (or takes the statement prepared for the same text before)
 * and binds its parameters; the caller steps and gives it back with
 * store_finish. */
int store_prepare(struct store *s, char **errstr, sqlite3_stmt **st, const char *sql,
		  const char *fmt, ...);
/* Gives a statement of store_prepare back: reset and kept for the next use,
 * or finalized if it is not one of the kept ones. NULL is ignored. */
void store_finish(struct store *s, sqlite3_stmt *st);
/* Finalizes every kept statement (before the database is closed). */
void store_stmt_cache_clear(struct store *s);
/* Steps a statement expected to return rows: STORE_OK with *row set. */
int store_step_row(struct store *s, char **errstr, sqlite3_stmt *st, bool *row);
/* Steps a statement that returns no rows, and resets it for the next bindings. */
int store_step_done(struct store *s, char **errstr, sqlite3_stmt *st);
/* Runs one statement that returns no rows; *changes (if not NULL) gets the
 * number of rows it changed. */
int store_run(struct store *s, char **errstr, int *changes, const char *sql, const char *fmt,
	      ...);
int store_runv(struct store *s, char **errstr, int *changes, const char *sql, const char *fmt,
	       va_list ap);
/* One integer from a query; *found (if not NULL) says whether there was a row. */
int store_query_int64(struct store *s, char **errstr, int64_t *out, bool *found,
		      const char *sql, const char *fmt, ...);
/* Runs sql, a SELECT of one integer column without parameters, and calls
 * each(arg, i) for every row; a value outside [0, limit) is a corrupt file
 * ("corrupt database: what"). */
int store_each_index(struct store *s, char **errstr, const char *sql, size_t limit,
		     const char *what, void (*each)(void *arg, size_t i), void *arg);
/* Runs SQL text without parameters (several statements allowed). */
int store_exec(struct store *s, const char *sql, char **errstr);
/* A text column, copied (NULL for NULL). */
char *store_column_text(sqlite3_stmt *st, int col);

/* store_sql.c: transactions. Every write runs between store_write_begin and
 * store_write_end (a transaction, or a savepoint inside store_begin); reads
 * of several statements between store_read_begin and store_read_end. */

int store_write_begin(struct store *s, char **errstr);
/* Commits (or releases the savepoint) when status is STORE_OK, else rolls
 * back; returns the final status. */
int store_write_end(struct store *s, int status, char **errstr);
int store_read_begin(struct store *s, char **errstr);
void store_read_end(struct store *s);

#endif
