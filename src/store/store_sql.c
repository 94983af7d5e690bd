/* What every table family's file uses: errors, statements and
 * transactions. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

/* ---------------------------------------------------------------- errors */

int store_fail(const struct store *s, char **errstr, int status, const char *fmt, ...)
{
	if (errstr) {
		struct strbuf sb = {0};
		va_list ap;
		strbuf_printf(&sb, "%s: ", s->path);
		va_start(ap, fmt);
		strbuf_vprintf(&sb, fmt, ap);
		va_end(ap);
		*errstr = strbuf_take(&sb);
	}
	return status;
}

/* A failure SQLite reported; rc is its result code. */
int store_db_fail(const struct store *s, char **errstr, int rc)
{
	int primary = rc & 0xff;
	int status = STORE_ERROR;
	if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
		status = STORE_BUSY;
	else if (primary == SQLITE_NOTADB)
		status = STORE_VERSION;
	else if (primary == SQLITE_FULL)
		status = STORE_FULL;
	/* a full disk met while growing the WAL or its index is an I/O error */
	else if (primary == SQLITE_IOERR && s->db &&
		 (sqlite3_system_errno(s->db) == ENOSPC || sqlite3_system_errno(s->db) == EDQUOT))
		status = STORE_FULL;
	const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	/* "database is locked" alone does not say what to do about it. */
	if (status == STORE_BUSY)
		return store_fail(s, errstr, status,
				  "%s (another campaignd or campaignctl kept it busy;"
				  " try again)",
				  msg);
	return store_fail(s, errstr, status, "%s", msg);
}

/* A row that makes no sense: a corrupt database. */
int store_corrupt(const struct store *s, char **errstr, const char *what)
{
	return store_fail(s, errstr, STORE_ERROR, "corrupt database: %s", what);
}

int store_status_exit_code(int status)
{
	switch (status) {
	case STORE_OK: return EX_OK;
	case STORE_NOTFOUND: return EX_NOINPUT;
	case STORE_EXISTS: return EX_CANTCREAT;
	case STORE_BUSY: return EX_TEMPFAIL;
	case STORE_FULL: return EX_TEMPFAIL;
	case STORE_VERSION: return EX_DATAERR;
	case STORE_MISMATCH: return EX_DATAERR;
	}
	return EX_IOERR;
}

/* ---------------------------------------------------------------- statements */

/* Binds parameters 1..n from a format: 'i' int, 'I' int64_t, 'd' double,
 * 't' text (NULL binds NULL), 'b' blob (const void *, size_t), 'B' bool,
 * 'r' a reference (int; NO_INDEX binds NULL). */
static int bind_values(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	int rc = SQLITE_OK;
	for (int i = 1; fmt && *fmt && rc == SQLITE_OK; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int(st, i, va_arg(ap, int));
			break;
		case 'B':
			rc = sqlite3_bind_int(st, i, va_arg(ap, int) ? 1 : 0);
			break;
		case 'I':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'r': {
			int idx = va_arg(ap, int);
			rc = idx == NO_INDEX ? sqlite3_bind_null(st, i) : sqlite3_bind_int(st, i, idx);
			break;
		}
		case 'd':
			rc = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		case 't': {
			const char *t = va_arg(ap, const char *);
			rc = t ? sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i);
			break;
		}
		case 'b': {
			const void *p = va_arg(ap, const void *);
			size_t n = va_arg(ap, size_t);
			rc = sqlite3_bind_blob64(st, i, p, n, SQLITE_TRANSIENT);
			break;
		}
		default:
			rc = SQLITE_MISUSE;
		}
	}
	return rc;
}

static unsigned sql_hash(const char *sql)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)sql; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/* A statement for sql: the kept one when it is free, else a new one, kept
 * if there is room. A statement in use (a query running while another of
 * the same text starts) gets a fresh one, finalized by store_finish. */
static int stmt_get(struct store *s, const char *sql, sqlite3_stmt **st)
{
	unsigned h = sql_hash(sql);
	bool taken = false;
	for (size_t i = 0; i < s->stmt_count; i++) {
		struct store_cached_stmt *c = &s->stmts[i];
		if (c->hash != h || strcmp(sqlite3_sql(c->st), sql) != 0)
			continue;
		if (c->busy) {
			taken = true;
			break;
		}
		c->busy = true;
		*st = c->st;
		return SQLITE_OK;
	}
	bool keep = !taken && s->stmt_count < STORE_STMT_CACHE;
	int rc = sqlite3_prepare_v3(s->db, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, st, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return rc;
	}
	/* only whole single statements are kept: their text is the key */
	if (keep && *st && strcmp(sqlite3_sql(*st), sql) == 0)
		s->stmts[s->stmt_count++] = (struct store_cached_stmt){*st, h, true};
	return SQLITE_OK;
}

void store_finish(struct store *s, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < s->stmt_count; i++) {
		if (s->stmts[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			s->stmts[i].busy = false;
			return;
		}
	}
	sqlite3_finalize(st);
}

void store_stmt_cache_clear(struct store *s)
{
	for (size_t i = 0; i < s->stmt_count; i++)
		sqlite3_finalize(s->stmts[i].st);
	s->stmt_count = 0;
}

/* Prepares sql (or takes the statement kept for it) and binds its
 * parameters; the caller steps and calls store_finish. */
int store_prepare(struct store *s, char **errstr, sqlite3_stmt **st, const char *sql,
		  const char *fmt, ...)
{
	int rc = stmt_get(s, sql, st);
	if (rc != SQLITE_OK) {
		*st = NULL;
		return store_db_fail(s, errstr, rc);
	}
	va_list ap;
	va_start(ap, fmt);
	rc = bind_values(*st, fmt, ap);
	va_end(ap);
	if (rc != SQLITE_OK) {
		int status = store_db_fail(s, errstr, rc);
		store_finish(s, *st);
		*st = NULL;
		return status;
	}
	return STORE_OK;
}

/* Steps a statement expected to return rows: STORE_OK with *row set. */
int store_step_row(struct store *s, char **errstr, sqlite3_stmt *st, bool *row)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*row = true;
		return STORE_OK;
	}
	*row = false;
	return rc == SQLITE_DONE ? STORE_OK : store_db_fail(s, errstr, rc);
}

/* Steps a prepared statement that returns no rows, and resets it for the
 * next row's bindings. */
int store_step_done(struct store *s, char **errstr, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : store_db_fail(s, errstr, rc);
}

/* Runs one statement that returns no rows. *changes (if not NULL) gets the
 * number of rows it changed. */
int store_run(struct store *s, char **errstr, int *changes, const char *sql, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int status = store_runv(s, errstr, changes, sql, fmt, ap);
	va_end(ap);
	return status;
}

int store_runv(struct store *s, char **errstr, int *changes, const char *sql, const char *fmt,
	       va_list ap)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, sql, &st);
	if (rc != SQLITE_OK)
		return store_db_fail(s, errstr, rc);
	rc = bind_values(st, fmt, ap);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE || rc == SQLITE_ROW)
			rc = SQLITE_OK;
	}
	int status = rc == SQLITE_OK ? STORE_OK : store_db_fail(s, errstr, rc);
	if (changes)
		*changes = sqlite3_changes(s->db);
	store_finish(s, st);
	return status;
}

/* One integer from a query; *found says whether there was a row. */
int store_query_int64(struct store *s, char **errstr, int64_t *out, bool *found, const char *sql,
		      const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, sql, &st);
	if (rc != SQLITE_OK)
		return store_db_fail(s, errstr, rc);
	va_list ap;
	va_start(ap, fmt);
	rc = bind_values(st, fmt, ap);
	va_end(ap);
	int status = STORE_OK;
	bool row = false;
	if (rc != SQLITE_OK)
		status = store_db_fail(s, errstr, rc);
	else
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*out = sqlite3_column_int64(st, 0);
	if (found)
		*found = row;
	store_finish(s, st);
	return status;
}

int store_each_index(struct store *s, char **errstr, const char *sql, size_t limit,
		     const char *what, void (*each)(void *arg, size_t i), void *arg)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = store_prepare(s, errstr, &st, sql, NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		int64_t i = sqlite3_column_int64(st, 0);
		if (i < 0 || (uint64_t)i >= limit)
			status = store_corrupt(s, errstr, what);
		else
			each(arg, (size_t)i);
	}
	store_finish(s, st);
	return status;
}

int store_exec(struct store *s, const char *sql, char **errstr)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? STORE_OK : store_db_fail(s, errstr, rc);
}

char *store_column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? xstrdup((const char *)t) : NULL;
}

/* ---------------------------------------------------------------- transactions */

/* Every write runs between write_begin and write_end: on its own it is a
 * transaction; inside store_begin it is a savepoint, so that a failed write
 * leaves the caller's other writes alone. BEGIN IMMEDIATE takes the write
 * lock at once (waiting up to the busy timeout) instead of failing later. */
int store_write_begin(struct store *s, char **errstr)
{
	if (s->readonly)
		return store_fail(s, errstr, STORE_ERROR, "opened read-only");
	if (s->read_transaction)
		return store_fail(s, errstr, STORE_ERROR, "write inside a read transaction");
	return store_exec(s, s->in_transaction ? "SAVEPOINT store_write" : "BEGIN IMMEDIATE",
			  errstr);
}

/* After a secret was overwritten (secure_delete zeroes it in the database
 * pages), the WAL file still holds the old page until it is checkpointed and
 * truncated. Best effort, with a short wait: a reader that holds the WAL
 * open only delays it to the next commit. */
static void scrub_wal(struct store *s)
{
	if (!s->scrub_due || !sqlite3_get_autocommit(s->db))
		return;
	int log_frames = -1, done_frames = -1;
	sqlite3_busy_timeout(s->db, 200);
	int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log_frames,
					   &done_frames);
	sqlite3_busy_timeout(s->db, s->busy_timeout_ms);
	if (rc == SQLITE_OK && log_frames == 0)
		s->scrub_due = false;
}

int store_write_end(struct store *s, int status, char **errstr)
{
	if (s->in_transaction) {
		if (status == STORE_OK)
			status = store_exec(s, "RELEASE store_write", errstr);
		if (status != STORE_OK) {
			/* a savepoint undone (no rollback hook for it): the
			 * campaign kept in memory may hold what it undid */
			campaign_free(s->campaign);
			s->campaign = NULL;
			sqlite3_exec(s->db, "ROLLBACK TO store_write; RELEASE store_write", NULL,
				     NULL, NULL);
		}
		return status;
	}
	if (status == STORE_OK)
		status = store_exec(s, "COMMIT", errstr);
	if (status != STORE_OK && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	if (status == STORE_OK)
		scrub_wal(s);
	return status;
}

/* Reads made of several statements see one snapshot. */
int store_read_begin(struct store *s, char **errstr)
{
	return s->in_transaction ? STORE_OK : store_exec(s, "BEGIN", errstr);
}

void store_read_end(struct store *s)
{
	if (!s->in_transaction && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}

int store_begin(struct store *s, char **errstr)
{
	if (s->in_transaction)
		return store_fail(s, errstr, STORE_ERROR, "a transaction is already open");
	if (s->readonly)
		return store_fail(s, errstr, STORE_ERROR, "opened read-only");
	int status = store_exec(s, "BEGIN IMMEDIATE", errstr);
	if (status == STORE_OK)
		s->in_transaction = true;
	return status;
}

int store_begin_read(struct store *s, char **errstr)
{
	if (s->in_transaction)
		return store_fail(s, errstr, STORE_ERROR, "a transaction is already open");
	int status = store_exec(s, "BEGIN", errstr);
	if (status == STORE_OK) {
		s->in_transaction = true;
		s->read_transaction = true;
	}
	return status;
}

int store_commit(struct store *s, char **errstr)
{
	if (!s->in_transaction)
		return store_fail(s, errstr, STORE_ERROR, "commit without a transaction");
	s->in_transaction = false;
	s->read_transaction = false;
	int status = store_exec(s, "COMMIT", errstr);
	if (status != STORE_OK && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	if (status == STORE_OK)
		scrub_wal(s);
	return status;
}

void store_rollback(struct store *s)
{
	if (!s)
		return;
	s->in_transaction = false;
	s->read_transaction = false;
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* One savepoint level at a time: a mail of a group. A failure SQLite
 * treats as fatal to the transaction (a full disk, an I/O error) may have
 * rolled back the whole transaction: store_in_transaction then says so. */
int store_savepoint(struct store *s, char **errstr)
{
	if (!s->in_transaction || s->read_transaction)
		return store_fail(s, errstr, STORE_ERROR, "savepoint outside a write transaction");
	return store_exec(s, "SAVEPOINT store_mail", errstr);
}

int store_release(struct store *s, char **errstr)
{
	int status = store_exec(s, "RELEASE store_mail", errstr);
	if (status != STORE_OK)
		store_rollback_savepoint(s);
	return status;
}

void store_rollback_savepoint(struct store *s)
{
	if (!s)
		return;
	if (sqlite3_get_autocommit(s->db)) {
		s->in_transaction = false;
		s->read_transaction = false;
		return;
	}
	/* a savepoint undone (no rollback hook for it): the campaign kept in
	 * memory may hold what it undid */
	campaign_free(s->campaign);
	s->campaign = NULL;
	sqlite3_exec(s->db, "ROLLBACK TO store_mail; RELEASE store_mail", NULL, NULL, NULL);
	if (sqlite3_get_autocommit(s->db)) {
		s->in_transaction = false;
		s->read_transaction = false;
	}
}

bool store_in_transaction(const struct store *s)
{
	return s->in_transaction;
}
