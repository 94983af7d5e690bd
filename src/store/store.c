#include "config.h"

#include "store/store.h"
#include "base/util.h"

#include <errno.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

/* PRAGMA application_id of a campaign database ("CAMP"), so that another
 * program's SQLite file is never mistaken for ours (or migrated). */
#define STORE_APPLICATION_ID 0x43414d50
/* The daemon and campaignctl share the file: a writer waits this long for
 * another one before giving up with "database is locked". */
#define STORE_BUSY_TIMEOUT_MS 10000

#define STORE_VERIFIED_CACHE 64

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
};

/* ---------------------------------------------------------------- schema */

/* migrations[i] brings a database from schema version i to i + 1. Append
 * new steps; never edit a released one. Foreign keys between the players
 * and the provinces go both ways, so they are checked at commit. */
static const char *const migrations[] = {
	/* 1: the campaign definition and state, and the event log */
	"CREATE TABLE campaign ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  name TEXT,"
	"  start_year INTEGER NOT NULL,"
	"  timezone TEXT,"
	"  organiser_name TEXT,"
	"  organiser_email TEXT,"
	"  organiser_player INTEGER REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  organiser_password_hash TEXT,"
	"  background TEXT,"
	"  year INTEGER NOT NULL,"
	"  phase TEXT NOT NULL"
	");"
	"CREATE TABLE settings ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  siege_floor INTEGER NOT NULL,"
	"  supply_across_sea INTEGER NOT NULL,"
	"  turn_deadline_hours INTEGER NOT NULL,"
	"  decision_deadline_hours INTEGER NOT NULL,"
	"  battle_deadline_hours INTEGER NOT NULL,"
	"  recruitment_deadline_hours INTEGER NOT NULL,"
	"  grace_hours INTEGER NOT NULL,"
	"  inviolate_passable INTEGER NOT NULL,"
	"  defence_recalls_contingents INTEGER NOT NULL"
	");"
	"CREATE TABLE reminders ("
	"  position INTEGER PRIMARY KEY,"
	"  hours INTEGER NOT NULL"
	");"
	"CREATE TABLE players ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE COLLATE NOCASE,"
	"  nation TEXT,"
	"  name TEXT,"
	"  email TEXT,"
	"  password_hash TEXT,"
	"  location INTEGER REFERENCES provinces(id) DEFERRABLE INITIALLY DEFERRED,"
	"  original_half_ap INTEGER NOT NULL,"
	"  cap_half_ap INTEGER NOT NULL,"
	"  battle_prestige INTEGER NOT NULL,"
	"  province_prestige INTEGER NOT NULL,"
	"  quiet_years INTEGER NOT NULL,"
	"  overlord INTEGER REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  status TEXT NOT NULL CHECK (status IN ('active', 'out', 'left')),"
	"  movement_option TEXT NOT NULL"
	"    CHECK (movement_option IN ('none', 'invade', 'ally', 'move')),"
	"  fought_this_year INTEGER NOT NULL,"
	"  line INTEGER NOT NULL"
	");"
	"CREATE TABLE provinces ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  terrain TEXT,"
	"  climate TEXT,"
	"  x REAL NOT NULL,"
	"  y REAL NOT NULL,"
	"  home_of INTEGER REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  inviolate INTEGER NOT NULL,"
	"  owner INTEGER REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  line INTEGER NOT NULL"
	");"
	"CREATE TABLE routes ("
	"  id INTEGER PRIMARY KEY,"
	"  a INTEGER NOT NULL REFERENCES provinces(id) DEFERRABLE INITIALLY DEFERRED,"
	"  b INTEGER NOT NULL REFERENCES provinces(id) DEFERRABLE INITIALLY DEFERRED,"
	"  sea INTEGER NOT NULL,"
	"  line INTEGER NOT NULL"
	");"
	"CREATE TABLE element_types ("
	"  player INTEGER NOT NULL REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  position INTEGER NOT NULL,"
	"  label TEXT NOT NULL,"
	"  code TEXT NOT NULL,"
	"  grade TEXT,"
	"  regular INTEGER NOT NULL,"
	"  cost_half_ap INTEGER NOT NULL,"
	"  list_min INTEGER NOT NULL,"
	"  list_max INTEGER NOT NULL,"
	"  general INTEGER NOT NULL,"
	"  line INTEGER NOT NULL,"
	"  PRIMARY KEY (player, position)"
	");"
	"CREATE TABLE troops ("
	"  player INTEGER NOT NULL,"
	"  position INTEGER NOT NULL,"
	"  field INTEGER NOT NULL CHECK (field >= 0),"
	"  reserve INTEGER NOT NULL CHECK (reserve >= 0),"
	"  PRIMARY KEY (player, position),"
	"  FOREIGN KEY (player, position) REFERENCES element_types(player, position)"
	"    DEFERRABLE INITIALLY DEFERRED"
	");"
	"CREATE TABLE contingents ("
	"  id INTEGER PRIMARY KEY,"
	"  owner INTEGER NOT NULL REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  with_player INTEGER NOT NULL REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  sent_year INTEGER NOT NULL,"
	"  is_returning INTEGER NOT NULL"
	");"
	"CREATE TABLE contingent_troops ("
	"  contingent INTEGER NOT NULL REFERENCES contingents(id) ON DELETE CASCADE"
	"    DEFERRABLE INITIALLY DEFERRED,"
	"  position INTEGER NOT NULL,"
	"  count INTEGER NOT NULL CHECK (count >= 0),"
	"  PRIMARY KEY (contingent, position)"
	");"
	"CREATE TABLE sieges ("
	"  id INTEGER PRIMARY KEY,"
	"  province INTEGER NOT NULL REFERENCES provinces(id) DEFERRABLE INITIALLY DEFERRED,"
	"  besieger INTEGER NOT NULL REFERENCES players(id) DEFERRABLE INITIALLY DEFERRED,"
	"  rounds_failed INTEGER NOT NULL,"
	"  last_round_year INTEGER NOT NULL"
	");"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  year INTEGER NOT NULL,"
	"  phase TEXT,"
	"  seq INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  data TEXT NOT NULL,"
	"  UNIQUE (year, seq)"
	");",

	/* 2: the mail layer: messages processed, the outbox, accepted orders
	 * and small daemon state (last UID per mailbox...) */
	"CREATE TABLE inbound ("
	"  id INTEGER PRIMARY KEY,"
	"  mailbox TEXT NOT NULL,"
	"  uidvalidity INTEGER,"
	"  uid INTEGER,"
	"  message_id TEXT UNIQUE,"
	"  sender TEXT,"
	"  received_at INTEGER NOT NULL,"
	"  status TEXT NOT NULL,"
	"  summary TEXT,"
	"  UNIQUE (mailbox, uidvalidity, uid)"
	");"
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  message_id TEXT NOT NULL UNIQUE,"
	"  recipients TEXT NOT NULL,"
	"  raw BLOB NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt_at INTEGER NOT NULL,"
	"  last_error TEXT,"
	"  created_at INTEGER NOT NULL,"
	"  sent_at INTEGER"
	");"
	"CREATE INDEX outbox_due ON outbox (status, next_attempt_at);"
	"CREATE TABLE orders ("
	"  player INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE"
	"    DEFERRABLE INITIALLY DEFERRED,"
	"  year INTEGER NOT NULL,"
	"  phase TEXT NOT NULL,"
	"  text TEXT NOT NULL,"
	"  updated_at INTEGER NOT NULL,"
	"  PRIMARY KEY (player, year, phase)"
	");"
	"CREATE TABLE kv ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL"
	");",

	/* 3: the campaign year by mail: the year's state machine, the dice
	 * seeds, snapshots for undo, and the organiser's commentary */
	"CREATE TABLE year_state ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  data TEXT NOT NULL,"
	"  updated_at INTEGER NOT NULL"
	");"
	"CREATE TABLE dice_years ("
	"  year INTEGER PRIMARY KEY,"
	"  seed TEXT NOT NULL,"
	"  commitment TEXT NOT NULL,"
	"  counter INTEGER NOT NULL DEFAULT 0,"
	"  revealed INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE TABLE snapshots ("
	"  id INTEGER PRIMARY KEY,"
	"  step TEXT NOT NULL,"
	"  taken_at INTEGER NOT NULL,"
	"  campaign TEXT NOT NULL,"
	"  year_state TEXT,"
	"  dice_year INTEGER NOT NULL,"
	"  dice_counter INTEGER NOT NULL,"
	"  last_event INTEGER NOT NULL,"
	"  last_outbox INTEGER NOT NULL"
	");"
	"CREATE TABLE comments ("
	"  id INTEGER PRIMARY KEY,"
	"  year INTEGER NOT NULL,"
	"  after_event INTEGER NOT NULL,"
	"  text TEXT NOT NULL,"
	"  created_at INTEGER NOT NULL"
	");",
};

_Static_assert(sizeof migrations / sizeof *migrations == STORE_SCHEMA_VERSION,
	       "one migration step per schema version");

/* ---------------------------------------------------------------- errors */

static int fail(const struct store *s, char **errstr, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(const struct store *s, char **errstr, int status, const char *fmt, ...)
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
static int db_fail(const struct store *s, char **errstr, int rc)
{
	int primary = rc & 0xff;
	int status = STORE_ERROR;
	if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
		status = STORE_BUSY;
	else if (primary == SQLITE_NOTADB)
		status = STORE_VERSION;
	const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	/* "database is locked" alone does not say what to do about it. */
	if (status == STORE_BUSY)
		return fail(s, errstr, status, "%s (another campaignd or campaignctl kept it busy;"
			    " try again)", msg);
	return fail(s, errstr, status, "%s", msg);
}

int store_status_exit_code(int status)
{
	switch (status) {
	case STORE_OK: return EX_OK;
	case STORE_NOTFOUND: return EX_NOINPUT;
	case STORE_EXISTS: return EX_CANTCREAT;
	case STORE_BUSY: return EX_TEMPFAIL;
	case STORE_VERSION: return EX_DATAERR;
	case STORE_MISMATCH: return EX_DATAERR;
	}
	return EX_IOERR;
}

/* ---------------------------------------------------------------- statements */

/* Binds parameters 1..n from a format: 'i' int, 'I' int64_t, 'd' double,
 * 't' text (NULL binds NULL), 'b' blob (const void *, size_t), 'B' bool. */
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

/* Prepares sql and binds its parameters; the caller steps and finalizes. */
static int prepare(struct store *s, char **errstr, sqlite3_stmt **st, const char *sql,
		   const char *fmt, ...)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK) {
		*st = NULL;
		return db_fail(s, errstr, rc);
	}
	va_list ap;
	va_start(ap, fmt);
	rc = bind_values(*st, fmt, ap);
	va_end(ap);
	if (rc != SQLITE_OK) {
		int status = db_fail(s, errstr, rc);
		sqlite3_finalize(*st);
		*st = NULL;
		return status;
	}
	return STORE_OK;
}

/* Steps a statement expected to return rows: STORE_OK with *row set. */
static int step_row(struct store *s, char **errstr, sqlite3_stmt *st, bool *row)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*row = true;
		return STORE_OK;
	}
	*row = false;
	return rc == SQLITE_DONE ? STORE_OK : db_fail(s, errstr, rc);
}

/* Runs one statement that returns no rows. *changes (if not NULL) gets the
 * number of rows it changed. */
static int run(struct store *s, char **errstr, int *changes, const char *sql, const char *fmt,
	       ...)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, errstr, rc);
	va_list ap;
	va_start(ap, fmt);
	rc = bind_values(st, fmt, ap);
	va_end(ap);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE || rc == SQLITE_ROW)
			rc = SQLITE_OK;
	}
	int status = rc == SQLITE_OK ? STORE_OK : db_fail(s, errstr, rc);
	if (changes)
		*changes = sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return status;
}

/* One integer from a query; *found says whether there was a row. */
static int query_int64(struct store *s, char **errstr, int64_t *out, bool *found,
		       const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, errstr, rc);
	va_list ap;
	va_start(ap, fmt);
	rc = bind_values(st, fmt, ap);
	va_end(ap);
	int status = STORE_OK;
	bool row = false;
	if (rc != SQLITE_OK)
		status = db_fail(s, errstr, rc);
	else
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*out = sqlite3_column_int64(st, 0);
	if (found)
		*found = row;
	sqlite3_finalize(st);
	return status;
}

static int exec(struct store *s, const char *sql, char **errstr)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? STORE_OK : db_fail(s, errstr, rc);
}

static char *column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? xstrdup((const char *)t) : NULL;
}

/* ---------------------------------------------------------------- transactions */

/* Every write runs between write_begin and write_end: on its own it is a
 * transaction; inside store_begin it is a savepoint, so that a failed write
 * leaves the caller's other writes alone. BEGIN IMMEDIATE takes the write
 * lock at once (waiting up to the busy timeout) instead of failing later. */
static int write_begin(struct store *s, char **errstr)
{
	if (s->readonly)
		return fail(s, errstr, STORE_ERROR, "opened read-only");
	if (s->read_transaction)
		return fail(s, errstr, STORE_ERROR, "write inside a read transaction");
	return exec(s, s->in_transaction ? "SAVEPOINT store_write" : "BEGIN IMMEDIATE", errstr);
}

static int write_end(struct store *s, int status, char **errstr)
{
	if (s->in_transaction) {
		if (status == STORE_OK)
			status = exec(s, "RELEASE store_write", errstr);
		if (status != STORE_OK)
			sqlite3_exec(s->db, "ROLLBACK TO store_write; RELEASE store_write", NULL,
				     NULL, NULL);
		return status;
	}
	if (status == STORE_OK)
		status = exec(s, "COMMIT", errstr);
	if (status != STORE_OK && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return status;
}

/* Reads made of several statements see one snapshot. */
static int read_begin(struct store *s, char **errstr)
{
	return s->in_transaction ? STORE_OK : exec(s, "BEGIN", errstr);
}

static void read_end(struct store *s)
{
	if (!s->in_transaction && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}

int store_begin(struct store *s, char **errstr)
{
	if (s->in_transaction)
		return fail(s, errstr, STORE_ERROR, "a transaction is already open");
	if (s->readonly)
		return fail(s, errstr, STORE_ERROR, "opened read-only");
	int status = exec(s, "BEGIN IMMEDIATE", errstr);
	if (status == STORE_OK)
		s->in_transaction = true;
	return status;
}

int store_begin_read(struct store *s, char **errstr)
{
	if (s->in_transaction)
		return fail(s, errstr, STORE_ERROR, "a transaction is already open");
	int status = exec(s, "BEGIN", errstr);
	if (status == STORE_OK) {
		s->in_transaction = true;
		s->read_transaction = true;
	}
	return status;
}

int store_commit(struct store *s, char **errstr)
{
	if (!s->in_transaction)
		return fail(s, errstr, STORE_ERROR, "commit without a transaction");
	s->in_transaction = false;
	s->read_transaction = false;
	int status = exec(s, "COMMIT", errstr);
	if (status != STORE_OK && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
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

bool store_in_transaction(const struct store *s)
{
	return s->in_transaction;
}

/* ---------------------------------------------------------------- open */

static int pragma_int(struct store *s, const char *sql, int64_t *out, char **errstr)
{
	*out = 0;
	return query_int64(s, errstr, out, NULL, sql, NULL);
}

/* Applies the missing migration steps up to target, one transaction each.
 * The version is read again under the write lock: another process may have
 * upgraded the file meanwhile. */
static int migrate(struct store *s, int target, char **errstr)
{
	for (;;) {
		int status = exec(s, "BEGIN IMMEDIATE", errstr);
		int64_t version = 0;
		if (status == STORE_OK)
			status = pragma_int(s, "PRAGMA user_version", &version, errstr);
		if (status == STORE_OK && version > STORE_SCHEMA_VERSION)
			status = fail(s, errstr, STORE_VERSION,
				      "database schema version %lld is newer than this campaignd"
				      " knows (%d): upgrade campaignd",
				      (long long)version, STORE_SCHEMA_VERSION);
		if (status == STORE_OK && version >= target) {
			s->version = (int)version;
			return write_end(s, STORE_OK, errstr);
		}
		if (status == STORE_OK)
			status = exec(s, migrations[version], errstr);
		if (status == STORE_OK && version == 0) {
			char *sql = xasprintf("PRAGMA application_id = %d", STORE_APPLICATION_ID);
			status = exec(s, sql, errstr);
			free(sql);
		}
		if (status == STORE_OK) {
			char *sql = xasprintf("PRAGMA user_version = %d", (int)version + 1);
			status = exec(s, sql, errstr);
			free(sql);
		}
		status = write_end(s, status, errstr);
		if (status != STORE_OK)
			return status;
	}
}

/* Refuses SQLite files that belong to someone else, and schemas from the
 * future, before anything is written. */
static int check_identity(struct store *s, int64_t *version, char **errstr)
{
	int64_t app_id = 0, objects = 0;
	int status = pragma_int(s, "PRAGMA application_id", &app_id, errstr);
	if (status == STORE_OK)
		status = pragma_int(s, "PRAGMA user_version", version, errstr);
	if (status == STORE_OK)
		status = query_int64(s, errstr, &objects, NULL,
				     "SELECT count(*) FROM sqlite_master", NULL);
	if (status != STORE_OK)
		return status;
	bool empty = app_id == 0 && *version == 0 && objects == 0;
	if (!empty && app_id != STORE_APPLICATION_ID)
		return fail(s, errstr, STORE_VERSION, "not a campaignd database");
	if (*version > STORE_SCHEMA_VERSION)
		return fail(s, errstr, STORE_VERSION,
			    "database schema version %lld is newer than this campaignd knows (%d):"
			    " upgrade campaignd",
			    (long long)*version, STORE_SCHEMA_VERSION);
	return STORE_OK;
}

int store_open_at_version(const char *path, unsigned flags, int schema_version,
			  struct store **out, char **errstr)
{
	struct store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->readonly = flags & STORE_READONLY;
	s->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
	s->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
	*out = NULL;
	int status = STORE_OK;
	struct stat sb;

	if (schema_version < 1 || schema_version > STORE_SCHEMA_VERSION) {
		status = fail(s, errstr, STORE_ERROR, "no schema version %d", schema_version);
		goto done;
	}
	if (sodium_init() < 0) {
		status = fail(s, errstr, STORE_ERROR, "libsodium could not be initialised");
		goto done;
	}
	if (!(flags & STORE_CREATE) || s->readonly) {
		if (stat(path, &sb) != 0) {
			status = fail(s, errstr, errno == ENOENT ? STORE_NOTFOUND : STORE_ERROR,
				      "%s%s", strerror(errno),
				      errno == ENOENT ? " (create it with campaignctl init)" : "");
			goto done;
		}
	}
	int oflags = s->readonly ? SQLITE_OPEN_READONLY
				 : SQLITE_OPEN_READWRITE | (flags & STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
	int rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		status = db_fail(s, errstr, rc);
		goto done;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);

	int64_t version = 0;
	status = check_identity(s, &version, errstr);
	if (status != STORE_OK)
		goto done;
	s->version = (int)version;
	status = exec(s, "PRAGMA foreign_keys = ON", errstr);
	if (status != STORE_OK)
		goto done;
	if (s->readonly) {
		if (version < STORE_SCHEMA_VERSION)
			status = fail(s, errstr, version ? STORE_VERSION : STORE_NOTFOUND,
				      version ? "database schema version %lld is older than %d:"
						" open it once read-write to upgrade it"
					      : "empty database (schema version %lld of %d)",
				      (long long)version, STORE_SCHEMA_VERSION);
		goto done;
	}
	/* WAL lets campaignctl read while the daemon writes. */
	status = exec(s, "PRAGMA journal_mode = WAL", errstr);
	if (status == STORE_OK && version < schema_version)
		status = migrate(s, schema_version, errstr);
done:
	if (status != STORE_OK) {
		store_close(s);
		return status;
	}
	*out = s;
	return STORE_OK;
}

int store_open(const char *path, unsigned flags, struct store **out, char **errstr)
{
	return store_open_at_version(path, flags, STORE_SCHEMA_VERSION, out, errstr);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->db) {
		store_rollback(s);
		sqlite3_close_v2(s->db);
	}
	free(s->path);
	free(s);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

int store_schema_version(const struct store *s)
{
	return s->version;
}

void store_set_pwhash_limits(struct store *s, unsigned long long opslimit, size_t memlimit)
{
	s->opslimit = opslimit;
	s->memlimit = memlimit;
}

void store_set_busy_timeout(struct store *s, int milliseconds)
{
	sqlite3_busy_timeout(s->db, milliseconds);
}

/* ---------------------------------------------------------------- names */

static const char *player_status_name(enum player_status st)
{
	switch (st) {
	case PLAYER_ACTIVE: return "active";
	case PLAYER_OUT: return "out";
	case PLAYER_LEFT: return "left";
	}
	return "active";
}

static bool player_status_parse(const char *name, enum player_status *st)
{
	static const enum player_status all[] = {PLAYER_ACTIVE, PLAYER_OUT, PLAYER_LEFT};
	for (size_t i = 0; name && i < sizeof all / sizeof *all; i++)
		if (strcmp(name, player_status_name(all[i])) == 0) {
			*st = all[i];
			return true;
		}
	return false;
}

static const char *const movement_option_names[] = {"none", "invade", "ally", "move"};

static const char *movement_option_name(int option)
{
	return option >= OPTION_NONE && option <= OPTION_MOVE ? movement_option_names[option]
							      : "none";
}

static bool movement_option_parse(const char *name, int *option)
{
	for (int i = OPTION_NONE; name && i <= OPTION_MOVE; i++)
		if (strcmp(name, movement_option_names[i]) == 0) {
			*option = i;
			return true;
		}
	return false;
}

static bool phase_parse(const char *name, int *phase)
{
	for (int ph = PHASE_SETUP; name && ph <= PHASE_ENDED; ph++)
		if (strcmp(name, campaign_phase_name(ph)) == 0) {
			*phase = ph;
			return true;
		}
	return false;
}

/* ---------------------------------------------------------------- campaign: write */

/* Everything store_init_campaign writes must be in range and named, so the
 * rows make sense and nothing NULL is dereferenced. */
static int check_campaign(const struct store *s, const struct campaign *c, char **errstr)
{
	int np = (int)c->player_count, nv = (int)c->province_count;
#define BAD(...) return fail(s, errstr, STORE_ERROR, "cannot store the campaign: " __VA_ARGS__)
#define PLAYER_OK(i) ((i) == NO_INDEX || ((i) >= 0 && (i) < np))
#define PROVINCE_OK(i) ((i) == NO_INDEX || ((i) >= 0 && (i) < nv))
	if (!PLAYER_OK(c->organiser_player))
		BAD("organiser's nation %d out of range", c->organiser_player);
	for (int i = 0; i < nv; i++) {
		const struct province *p = &c->provinces[i];
		if (!p->name)
			BAD("province %d has no name", i);
		if (!PLAYER_OK(p->owner) || !PLAYER_OK(p->home_of))
			BAD("province %s: player out of range", p->name);
	}
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if (r->a < 0 || r->a >= nv || r->b < 0 || r->b >= nv)
			BAD("route %zu: province out of range", i);
	}
	for (int i = 0; i < np; i++) {
		const struct player *p = &c->players[i];
		if (!p->key)
			BAD("player %d has no key", i);
		if (!PLAYER_OK(p->overlord) || !PROVINCE_OK(p->location))
			BAD("player %s: overlord or location out of range", p->key);
		for (size_t j = 0; j < p->list.count; j++)
			if (!p->list.types[j].label)
				BAD("player %s: army list line %zu has no label", p->key, j);
	}
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *k = &c->contingents[i];
		if (k->owner < 0 || k->owner >= np || k->with_player < 0 || k->with_player >= np)
			BAD("contingent %zu: player out of range", i);
	}
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *g = &c->sieges[i];
		if (g->province < 0 || g->province >= nv || g->besieger < 0 || g->besieger >= np)
			BAD("siege %zu: province or besieger out of range", i);
	}
#undef BAD
#undef PLAYER_OK
#undef PROVINCE_OK
	return STORE_OK;
}

/* A reference column: the index, or NULL for NO_INDEX. */
static int bind_ref(sqlite3_stmt *st, int col, int idx)
{
	return idx == NO_INDEX ? sqlite3_bind_null(st, col) : sqlite3_bind_int64(st, col, idx);
}

static int step_done(struct store *s, char **errstr, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : db_fail(s, errstr, rc);
}

static int count_of(const struct troops *t, size_t i)
{
	return t->count ? t->count[i] : 0;
}

static int insert_contingents_and_sieges(struct store *s, const struct campaign *c,
					 char **errstr)
{
	int status = STORE_OK;
	for (size_t i = 0; status == STORE_OK && i < c->contingent_count; i++) {
		const struct contingent *k = &c->contingents[i];
		status = run(s, errstr, NULL,
			     "INSERT INTO contingents (id, owner, with_player, sent_year, is_returning)"
			     " VALUES (?, ?, ?, ?, ?)",
			     "IiiiB", (int64_t)i, k->owner, k->with_player, k->sent_year,
			     k->returning);
		const struct army_list *l = &c->players[k->owner].list;
		for (size_t j = 0; status == STORE_OK && j < l->count; j++)
			if (count_of(&k->troops, j))
				status = run(s, errstr, NULL,
					     "INSERT INTO contingent_troops (contingent, position,"
					     " count) VALUES (?, ?, ?)",
					     "Iii", (int64_t)i, (int)j, count_of(&k->troops, j));
	}
	for (size_t i = 0; status == STORE_OK && i < c->siege_count; i++) {
		const struct siege *g = &c->sieges[i];
		status = run(s, errstr, NULL,
			     "INSERT INTO sieges (id, province, besieger, rounds_failed,"
			     " last_round_year) VALUES (?, ?, ?, ?, ?)",
			     "Iiiii", (int64_t)i, g->province, g->besieger, g->rounds_failed,
			     g->last_round_year);
	}
	return status;
}

static int insert_players(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int status = prepare(
		s, errstr, &st,
		"INSERT INTO players (id, key, nation, name, email, location, original_half_ap,"
		" cap_half_ap, battle_prestige, province_prestige, quiet_years, overlord, status,"
		" line, movement_option, fought_this_year)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
		NULL);
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_text(st, 2, p->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, p->nation, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, p->email, -1, SQLITE_STATIC);
		bind_ref(st, 6, p->location);
		sqlite3_bind_int(st, 7, p->original_half_ap);
		sqlite3_bind_int(st, 8, p->cap_half_ap);
		sqlite3_bind_int(st, 9, p->battle_prestige);
		sqlite3_bind_int(st, 10, p->province_prestige);
		sqlite3_bind_int(st, 11, p->quiet_years);
		bind_ref(st, 12, p->overlord);
		sqlite3_bind_text(st, 13, player_status_name(p->status), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 14, p->line);
		sqlite3_bind_text(st, 15, movement_option_name(p->movement_option), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(st, 16, p->fought_this_year);
		status = step_done(s, errstr, st);
	}
	sqlite3_finalize(st);

	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		for (size_t j = 0; status == STORE_OK && j < p->list.count; j++) {
			const struct element_type *e = &p->list.types[j];
			char grade[2] = {e->grade, '\0'};
			status = run(s, errstr, NULL,
				     "INSERT INTO element_types (player, position, label, code, grade,"
				     " regular, cost_half_ap, list_min, list_max, general, line)"
				     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				     "IitttBiiiBi", (int64_t)i, (int)j, e->label, e->code,
				     e->grade ? grade : NULL, e->regular, e->cost_half_ap, e->list_min,
				     e->list_max, e->general, e->line);
			if (status == STORE_OK)
				status = run(s, errstr, NULL,
					     "INSERT INTO troops (player, position, field, reserve)"
					     " VALUES (?, ?, ?, ?)",
					     "Iiii", (int64_t)i, (int)j, count_of(&p->field, j),
					     count_of(&p->reserve, j));
		}
	}
	return status;
}

static int insert_map(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int status = prepare(s, errstr, &st,
			     "INSERT INTO provinces (id, name, terrain, climate, x, y, home_of,"
			     " inviolate, owner, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     NULL);
	for (size_t i = 0; status == STORE_OK && i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_text(st, 2, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, p->terrain, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, p->climate, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 5, p->x);
		sqlite3_bind_double(st, 6, p->y);
		bind_ref(st, 7, p->home_of);
		sqlite3_bind_int(st, 8, p->inviolate);
		bind_ref(st, 9, p->owner);
		sqlite3_bind_int(st, 10, p->line);
		status = step_done(s, errstr, st);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; status == STORE_OK && i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		status = run(s, errstr, NULL,
			     "INSERT INTO routes (id, a, b, sea, line) VALUES (?, ?, ?, ?, ?)",
			     "IiiBi", (int64_t)i, r->a, r->b, r->sea, r->line);
	}
	return status;
}

static int insert_campaign(struct store *s, const struct campaign *c, char **errstr)
{
	const struct campaign_settings *set = &c->settings;
	sqlite3_stmt *st = NULL;
	int status = prepare(s, errstr, &st,
			     "INSERT INTO campaign (id, name, start_year, timezone, organiser_name,"
			     " organiser_email, organiser_player, background, year, phase)"
			     " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     "tittt", c->name, c->start_year, c->timezone, c->organiser_name,
			     c->organiser_email);
	if (status == STORE_OK) {
		bind_ref(st, 6, c->organiser_player);
		sqlite3_bind_text(st, 7, c->background, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 8, c->year);
		sqlite3_bind_text(st, 9, campaign_phase_name(c->phase), -1, SQLITE_STATIC);
		status = step_done(s, errstr, st);
	}
	sqlite3_finalize(st);
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO settings (id, siege_floor, supply_across_sea,"
			     " turn_deadline_hours, decision_deadline_hours, battle_deadline_hours,"
			     " recruitment_deadline_hours, grace_hours, inviolate_passable,"
			     " defence_recalls_contingents) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			     "iBiiiiiBB", set->siege_floor, set->supply_across_sea,
			     set->turn_deadline_hours, set->decision_deadline_hours,
			     set->battle_deadline_hours, set->recruitment_deadline_hours,
			     set->grace_hours, set->inviolate_passable,
			     set->defence_recalls_contingents);
	for (int i = 0; status == STORE_OK && i < 4 && set->reminder_hours[i]; i++)
		status = run(s, errstr, NULL, "INSERT INTO reminders (position, hours) VALUES (?, ?)",
			     "ii", i, set->reminder_hours[i]);
	return status;
}

/* The old campaign and what belongs to it; see store_init_campaign. */
static int delete_campaign(struct store *s, char **errstr)
{
	static const char *const tables[] = {
		"year_state", "dice_years", "snapshots", "comments",
		"orders", "events", "sieges", "contingent_troops", "contingents", "troops",
		"element_types", "routes", "provinces", "players", "reminders", "settings",
		"campaign",
	};
	int status = STORE_OK;
	for (size_t i = 0; status == STORE_OK && i < sizeof tables / sizeof *tables; i++) {
		char *sql = xasprintf("DELETE FROM %s", tables[i]);
		status = run(s, errstr, NULL, sql, NULL);
		free(sql);
	}
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "DELETE FROM outbox WHERE status = 'queued'", NULL);
	return status;
}

int store_has_campaign(struct store *s, bool *exists, char **name, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = prepare(s, errstr, &st, "SELECT name FROM campaign WHERE id = 1", NULL);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK) {
		*exists = row;
		if (name)
			*name = row ? column_text(st, 0) : NULL;
	}
	sqlite3_finalize(st);
	return status;
}

int store_init_campaign(struct store *s, const struct campaign *c, bool force, char **errstr)
{
	int status = check_campaign(s, c, errstr);
	if (status != STORE_OK)
		return status;
	status = write_begin(s, errstr);
	if (status != STORE_OK)
		return status;
	bool exists = false;
	char *old_name = NULL;
	status = store_has_campaign(s, &exists, &old_name, errstr);
	if (status == STORE_OK && exists && !force)
		status = fail(s, errstr, STORE_EXISTS, "already holds the campaign \"%s\"",
			      old_name ? old_name : "");
	free(old_name);
	if (status == STORE_OK && exists)
		status = delete_campaign(s, errstr);
	if (status == STORE_OK)
		status = insert_campaign(s, c, errstr);
	if (status == STORE_OK)
		status = insert_map(s, c, errstr);
	if (status == STORE_OK)
		status = insert_players(s, c, errstr);
	if (status == STORE_OK)
		status = insert_contingents_and_sieges(s, c, errstr);
	return write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- campaign: read */

static int corrupt(const struct store *s, char **errstr, const char *what)
{
	return fail(s, errstr, STORE_ERROR, "corrupt database: %s", what);
}

static int load_header(struct store *s, struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = prepare(s, errstr, &st,
			     "SELECT name, start_year, timezone, organiser_name, organiser_email,"
			     " organiser_player, background, year, phase FROM campaign WHERE id = 1",
			     NULL);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && !row)
		status = fail(s, errstr, STORE_NOTFOUND,
			      "holds no campaign (create one with campaignctl init)");
	if (status == STORE_OK) {
		c->name = column_text(st, 0);
		c->start_year = sqlite3_column_int(st, 1);
		c->timezone = column_text(st, 2);
		c->organiser_name = column_text(st, 3);
		c->organiser_email = column_text(st, 4);
		c->organiser_player = sqlite3_column_type(st, 5) == SQLITE_NULL
					      ? NO_INDEX : sqlite3_column_int(st, 5);
		c->background = column_text(st, 6);
		c->year = sqlite3_column_int(st, 7);
		if (!phase_parse((const char *)sqlite3_column_text(st, 8), &c->phase))
			status = corrupt(s, errstr, "unknown campaign phase");
	}
	sqlite3_finalize(st);
	if (status != STORE_OK)
		return status;

	struct campaign_settings *set = &c->settings;
	status = prepare(s, errstr, &st,
			 "SELECT siege_floor, supply_across_sea, turn_deadline_hours,"
			 " decision_deadline_hours, battle_deadline_hours,"
			 " recruitment_deadline_hours, grace_hours, inviolate_passable,"
			 " defence_recalls_contingents FROM settings WHERE id = 1",
			 NULL);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && !row)
		status = corrupt(s, errstr, "no settings");
	if (status == STORE_OK) {
		set->siege_floor = sqlite3_column_int(st, 0);
		set->supply_across_sea = sqlite3_column_int(st, 1);
		set->turn_deadline_hours = sqlite3_column_int(st, 2);
		set->decision_deadline_hours = sqlite3_column_int(st, 3);
		set->battle_deadline_hours = sqlite3_column_int(st, 4);
		set->recruitment_deadline_hours = sqlite3_column_int(st, 5);
		set->grace_hours = sqlite3_column_int(st, 6);
		set->inviolate_passable = sqlite3_column_int(st, 7);
		set->defence_recalls_contingents = sqlite3_column_int(st, 8);
	}
	sqlite3_finalize(st);
	if (status != STORE_OK)
		return status;

	memset(set->reminder_hours, 0, sizeof set->reminder_hours);
	status = prepare(s, errstr, &st, "SELECT hours FROM reminders ORDER BY position", NULL);
	for (int i = 0; status == STORE_OK; i++) {
		status = step_row(s, errstr, st, &row);
		if (status != STORE_OK || !row)
			break;
		if (i >= 4)
			status = corrupt(s, errstr, "more than 4 reminders");
		else
			set->reminder_hours[i] = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return status;
}

/* Reads a nullable reference column into an index, checking its range. */
static bool column_ref(sqlite3_stmt *st, int col, size_t count, int *out)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		*out = NO_INDEX;
		return true;
	}
	int64_t v = sqlite3_column_int64(st, col);
	if (v < 0 || (uint64_t)v >= count)
		return false;
	*out = (int)v;
	return true;
}

static int load_map(struct store *s, struct campaign *c, int64_t players, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = prepare(s, errstr, &st,
			     "SELECT id, name, terrain, climate, x, y, home_of, inviolate, owner, line"
			     " FROM provinces ORDER BY id",
			     NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		struct province *p = campaign_add_province(c);
		if (sqlite3_column_int64(st, 0) != (int64_t)c->province_count - 1)
			status = corrupt(s, errstr, "province ids are not 0, 1, 2...");
		p->name = column_text(st, 1);
		p->terrain = column_text(st, 2);
		p->climate = column_text(st, 3);
		p->x = sqlite3_column_double(st, 4);
		p->y = sqlite3_column_double(st, 5);
		p->inviolate = sqlite3_column_int(st, 7);
		p->line = sqlite3_column_int(st, 9);
		if (!column_ref(st, 6, (size_t)players, &p->home_of) ||
		    !column_ref(st, 8, (size_t)players, &p->owner))
			status = corrupt(s, errstr, "province refers to no player");
	}
	sqlite3_finalize(st);
	if (status != STORE_OK)
		return status;

	status = prepare(s, errstr, &st, "SELECT id, a, b, sea, line FROM routes ORDER BY id", NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		struct route *r = campaign_add_route(c);
		r->sea = sqlite3_column_int(st, 3);
		r->line = sqlite3_column_int(st, 4);
		if (!column_ref(st, 1, c->province_count, &r->a) ||
		    !column_ref(st, 2, c->province_count, &r->b) || r->a < 0 || r->b < 0)
			status = corrupt(s, errstr, "route refers to no province");
	}
	sqlite3_finalize(st);
	return status;
}

static int load_players(struct store *s, struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int64_t count = 0;
	int status = query_int64(s, errstr, &count, NULL, "SELECT count(*) FROM players", NULL);
	if (status == STORE_OK)
		status = prepare(s, errstr, &st,
				 "SELECT id, key, nation, name, email, location, original_half_ap,"
				 " cap_half_ap, battle_prestige, province_prestige, quiet_years,"
				 " overlord, status, line, movement_option, fought_this_year"
				 " FROM players ORDER BY id",
				 NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		struct player *p = campaign_add_player(c);
		if (sqlite3_column_int64(st, 0) != (int64_t)c->player_count - 1)
			status = corrupt(s, errstr, "player ids are not 0, 1, 2...");
		p->key = column_text(st, 1);
		p->nation = column_text(st, 2);
		p->name = column_text(st, 3);
		p->email = column_text(st, 4);
		p->original_half_ap = sqlite3_column_int(st, 6);
		p->cap_half_ap = sqlite3_column_int(st, 7);
		p->battle_prestige = sqlite3_column_int(st, 8);
		p->province_prestige = sqlite3_column_int(st, 9);
		p->quiet_years = sqlite3_column_int(st, 10);
		p->line = sqlite3_column_int(st, 13);
		p->fought_this_year = sqlite3_column_int(st, 15);
		if (!column_ref(st, 5, c->province_count, &p->location) ||
		    !column_ref(st, 11, (size_t)count, &p->overlord))
			status = corrupt(s, errstr, "player refers to no province or player");
		else if (!player_status_parse((const char *)sqlite3_column_text(st, 12),
					      &p->status))
			status = corrupt(s, errstr, "unknown player status");
		else if (!movement_option_parse((const char *)sqlite3_column_text(st, 14),
						&p->movement_option))
			status = corrupt(s, errstr, "unknown movement option");
	}
	sqlite3_finalize(st);
	if (status != STORE_OK)
		return status;

	status = prepare(s, errstr, &st,
			 "SELECT e.player, e.position, e.label, e.code, e.grade, e.regular,"
			 " e.cost_half_ap, e.list_min, e.list_max, e.general, e.line"
			 " FROM element_types e ORDER BY e.player, e.position",
			 NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		int64_t pi = sqlite3_column_int64(st, 0);
		if (pi < 0 || (uint64_t)pi >= c->player_count) {
			status = corrupt(s, errstr, "army list of no player");
			break;
		}
		struct army_list *l = &c->players[pi].list;
		if (sqlite3_column_int64(st, 1) != (int64_t)l->count) {
			status = corrupt(s, errstr, "army list positions are not 0, 1, 2...");
			break;
		}
		struct element_type *e = army_list_add(l);
		e->label = column_text(st, 2);
		const char *code = (const char *)sqlite3_column_text(st, 3);
		const char *grade = (const char *)sqlite3_column_text(st, 4);
		if (!e->label || !code || strlen(code) >= sizeof e->code) {
			status = corrupt(s, errstr, "army list line without label or type");
			break;
		}
		strcpy(e->code, code);
		e->grade = grade ? grade[0] : '\0';
		e->regular = sqlite3_column_int(st, 5);
		e->cost_half_ap = sqlite3_column_int(st, 6);
		e->list_min = sqlite3_column_int(st, 7);
		e->list_max = sqlite3_column_int(st, 8);
		e->general = sqlite3_column_int(st, 9);
		e->line = sqlite3_column_int(st, 10);
	}
	sqlite3_finalize(st);
	if (status != STORE_OK)
		return status;

	for (size_t i = 0; i < c->player_count; i++)
		player_alloc_troops(&c->players[i]);
	status = prepare(s, errstr, &st,
			 "SELECT player, position, field, reserve FROM troops", NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		int64_t pi = sqlite3_column_int64(st, 0), pos = sqlite3_column_int64(st, 1);
		if (pi < 0 || (uint64_t)pi >= c->player_count || pos < 0 ||
		    (uint64_t)pos >= c->players[pi].list.count) {
			status = corrupt(s, errstr, "troops of no army list line");
			break;
		}
		c->players[pi].field.count[pos] = sqlite3_column_int(st, 2);
		c->players[pi].reserve.count[pos] = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	return status;
}

static int load_contingents_and_sieges(struct store *s, struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = prepare(s, errstr, &st,
			     "SELECT id, owner, with_player, sent_year, is_returning FROM contingents"
			     " ORDER BY id",
			     NULL);
	int64_t *ids = NULL;
	size_t ids_cap = 0;
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
			   sizeof *c->contingents);
		grow_array((void **)&ids, &ids_cap, c->contingent_count + 1, sizeof *ids);
		ids[c->contingent_count] = sqlite3_column_int64(st, 0);
		struct contingent *k = &c->contingents[c->contingent_count++];
		memset(k, 0, sizeof *k);
		k->sent_year = sqlite3_column_int(st, 3);
		k->returning = sqlite3_column_int(st, 4);
		if (!column_ref(st, 1, c->player_count, &k->owner) ||
		    !column_ref(st, 2, c->player_count, &k->with_player) || k->owner < 0 ||
		    k->with_player < 0) {
			k->owner = NO_INDEX;
			status = corrupt(s, errstr, "contingent of no player");
		} else {
			troops_alloc(&k->troops, c->players[k->owner].list.count);
		}
	}
	sqlite3_finalize(st);

	for (size_t i = 0; status == STORE_OK && i < c->contingent_count; i++) {
		struct contingent *k = &c->contingents[i];
		size_t n = c->players[k->owner].list.count;
		status = prepare(s, errstr, &st,
				 "SELECT position, count FROM contingent_troops WHERE contingent = ?",
				 "I", ids[i]);
		while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK &&
		       row) {
			int64_t pos = sqlite3_column_int64(st, 0);
			if (pos < 0 || (uint64_t)pos >= n)
				status = corrupt(s, errstr, "contingent troops of no army list line");
			else
				k->troops.count[pos] = sqlite3_column_int(st, 1);
		}
		sqlite3_finalize(st);
	}
	free(ids);
	if (status != STORE_OK)
		return status;

	status = prepare(s, errstr, &st,
			 "SELECT province, besieger, rounds_failed, last_round_year FROM sieges"
			 " ORDER BY id",
			 NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1,
			   sizeof *c->sieges);
		struct siege *g = &c->sieges[c->siege_count++];
		g->rounds_failed = sqlite3_column_int(st, 2);
		g->last_round_year = sqlite3_column_int(st, 3);
		if (!column_ref(st, 0, c->province_count, &g->province) ||
		    !column_ref(st, 1, c->player_count, &g->besieger) || g->province < 0 ||
		    g->besieger < 0)
			status = corrupt(s, errstr, "siege of no province or player");
	}
	sqlite3_finalize(st);
	return status;
}

int store_load_campaign(struct store *s, struct campaign **out, char **errstr)
{
	*out = NULL;
	struct campaign *c = campaign_new();
	int64_t players = 0;
	int status = read_begin(s, errstr);
	if (status == STORE_OK)
		status = load_header(s, c, errstr);
	if (status == STORE_OK)
		status = query_int64(s, errstr, &players, NULL, "SELECT count(*) FROM players", NULL);
	if (status == STORE_OK)
		status = load_map(s, c, players, errstr);
	if (status == STORE_OK)
		status = load_players(s, c, errstr);
	if (status == STORE_OK)
		status = load_contingents_and_sieges(s, c, errstr);
	if (status == STORE_OK && c->organiser_player >= (int)c->player_count)
		status = corrupt(s, errstr, "organiser's nation is no player");
	read_end(s);
	if (status != STORE_OK) {
		campaign_free(c);
		return status;
	}
	*out = c;
	return STORE_OK;
}

/* ---------------------------------------------------------------- campaign: state */

/* The stored definition must be the one c was loaded from. */
static int check_same_campaign(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	size_t n = 0;
	int status = prepare(s, errstr, &st, "SELECT name FROM provinces ORDER BY id", NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (n >= c->province_count || !name || !c->provinces[n].name ||
		    strcmp(name, c->provinces[n].name) != 0)
			status = fail(s, errstr, STORE_MISMATCH,
				      "the campaign to save has other provinces than the stored one");
		n++;
	}
	sqlite3_finalize(st);
	if (status == STORE_OK && n != c->province_count)
		status = fail(s, errstr, STORE_MISMATCH,
			      "the campaign to save has other provinces than the stored one");
	if (status != STORE_OK)
		return status;

	n = 0;
	status = prepare(s, errstr, &st,
			 "SELECT p.key, (SELECT count(*) FROM element_types e WHERE e.player = p.id)"
			 " FROM players p ORDER BY p.id",
			 NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		if (n >= c->player_count || !key || !c->players[n].key ||
		    strcmp(key, c->players[n].key) != 0 ||
		    (size_t)sqlite3_column_int64(st, 1) != c->players[n].list.count)
			status = fail(s, errstr, STORE_MISMATCH,
				      "the campaign to save has other players or army lists than"
				      " the stored one");
		n++;
	}
	sqlite3_finalize(st);
	if (status == STORE_OK && n != c->player_count)
		status = fail(s, errstr, STORE_MISMATCH,
			      "the campaign to save has other players than the stored one");
	return status;
}

static int save_players(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int status = prepare(s, errstr, &st,
			     "UPDATE players SET location = ?1, original_half_ap = ?2,"
			     " cap_half_ap = ?3, battle_prestige = ?4, province_prestige = ?5,"
			     " quiet_years = ?6, overlord = ?7, status = ?8, movement_option = ?10,"
			     " fought_this_year = ?11 WHERE id = ?9",
			     NULL);
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		bind_ref(st, 1, p->location);
		sqlite3_bind_int(st, 2, p->original_half_ap);
		sqlite3_bind_int(st, 3, p->cap_half_ap);
		sqlite3_bind_int(st, 4, p->battle_prestige);
		sqlite3_bind_int(st, 5, p->province_prestige);
		sqlite3_bind_int(st, 6, p->quiet_years);
		bind_ref(st, 7, p->overlord);
		sqlite3_bind_text(st, 8, player_status_name(p->status), -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (int64_t)i);
		sqlite3_bind_text(st, 10, movement_option_name(p->movement_option), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(st, 11, p->fought_this_year);
		status = step_done(s, errstr, st);
	}
	sqlite3_finalize(st);
	if (status == STORE_OK)
		status = prepare(s, errstr, &st,
				 "UPDATE troops SET field = ?1, reserve = ?2"
				 " WHERE player = ?3 AND position = ?4",
				 NULL);
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		for (size_t j = 0; status == STORE_OK && j < p->list.count; j++) {
			sqlite3_bind_int(st, 1, count_of(&p->field, j));
			sqlite3_bind_int(st, 2, count_of(&p->reserve, j));
			sqlite3_bind_int64(st, 3, (int64_t)i);
			sqlite3_bind_int64(st, 4, (int64_t)j);
			status = step_done(s, errstr, st);
		}
	}
	sqlite3_finalize(st);
	return status;
}

int store_save_state(struct store *s, const struct campaign *c, char **errstr)
{
	int status = check_campaign(s, c, errstr);
	if (status != STORE_OK)
		return status;
	status = write_begin(s, errstr);
	if (status != STORE_OK)
		return status;
	status = check_same_campaign(s, c, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "UPDATE campaign SET year = ?, phase = ? WHERE id = 1",
			     "it", c->year, campaign_phase_name(c->phase));
	sqlite3_stmt *st = NULL;
	if (status == STORE_OK)
		status = prepare(s, errstr, &st, "UPDATE provinces SET owner = ?1 WHERE id = ?2",
				 NULL);
	for (size_t i = 0; status == STORE_OK && i < c->province_count; i++) {
		bind_ref(st, 1, c->provinces[i].owner);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		status = step_done(s, errstr, st);
	}
	sqlite3_finalize(st);
	if (status == STORE_OK)
		status = save_players(s, c, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "DELETE FROM contingent_troops", NULL);
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "DELETE FROM contingents", NULL);
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "DELETE FROM sieges", NULL);
	if (status == STORE_OK)
		status = insert_contingents_and_sieges(s, c, errstr);
	return write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- passwords */

static bool is_organiser(const char *who)
{
	return strcmp(who, STORE_ORGANISER) == 0;
}

int store_set_password(struct store *s, const char *who, const char *password, char **errstr)
{
	char hash[crypto_pwhash_STRBYTES];
	if (crypto_pwhash_str(hash, password, strlen(password), s->opslimit, s->memlimit) != 0)
		return fail(s, errstr, STORE_ERROR, "not enough memory to hash a password");
	int status = write_begin(s, errstr);
	int changes = 0;
	if (status == STORE_OK)
		status = is_organiser(who)
				 ? run(s, errstr, &changes,
				       "UPDATE campaign SET organiser_password_hash = ? WHERE id = 1",
				       "t", hash)
				 : run(s, errstr, &changes,
				       "UPDATE players SET password_hash = ? WHERE key = ?", "tt",
				       hash, who);
	if (status == STORE_OK && changes == 0 && is_organiser(who))
		status = fail(s, errstr, STORE_NOTFOUND, "holds no campaign");
	else if (status == STORE_OK && changes == 0)
		status = fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", who);
	sodium_memzero(hash, sizeof hash);
	return write_end(s, status, errstr);
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

bool store_check_password(struct store *s, const char *who, const char *password,
			  char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false, ok = false;
	int status = is_organiser(who)
			     ? prepare(s, errstr, &st,
				       "SELECT organiser_password_hash FROM campaign WHERE id = 1",
				       NULL)
			     : prepare(s, errstr, &st,
				       "SELECT password_hash FROM players WHERE key = ?", "t", who);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && row && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const char *hash = (const char *)sqlite3_column_text(st, 0);
		ok = hash && password_verified(s, hash, password);
	}
	sqlite3_finalize(st);
	return ok;
}

/* ---------------------------------------------------------------- events */

int store_append_event(struct store *s, const json_t *event, int *seq, char **errstr)
{
	const json_t *kind = json_object_get(event, "kind");
	const json_t *year = json_object_get(event, "year");
	const json_t *phase = json_object_get(event, "phase");
	if (!json_is_object(event) || !json_is_string(kind) || !json_is_integer(year) ||
	    json_integer_value(year) < INT32_MIN + 1 || json_integer_value(year) > INT32_MAX ||
	    (phase && !json_is_string(phase) && !json_is_null(phase)))
		return fail(s, errstr, STORE_ERROR,
			    "an event needs a \"kind\" string, a \"year\" integer and no other"
			    " \"phase\" than a string");
	char *data = json_dumps(event, JSON_COMPACT);
	if (!data)
		return fail(s, errstr, STORE_ERROR, "event cannot be written as JSON");
	int status = write_begin(s, errstr);
	int64_t next = 0;
	if (status == STORE_OK)
		status = query_int64(s, errstr, &next, NULL,
				     "SELECT coalesce(max(seq), 0) + 1 FROM events WHERE year = ?",
				     "I", (int64_t)json_integer_value(year));
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO events (year, phase, seq, kind, data)"
			     " VALUES (?, ?, ?, ?, ?)",
			     "ItItt", (int64_t)json_integer_value(year),
			     json_is_string(phase) ? json_string_value(phase) : NULL, next,
			     json_string_value(kind), data);
	free(data);
	status = write_end(s, status, errstr);
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
			     ? prepare(s, errstr, &st,
				       "SELECT data FROM events ORDER BY year, seq", NULL)
			     : prepare(s, errstr, &st,
				       "SELECT data FROM events WHERE year = ? ORDER BY seq", "i",
				       year);
	json_t *arr = json_array();
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		const char *data = (const char *)sqlite3_column_text(st, 0);
		json_t *ev = data ? json_loads(data, 0, NULL) : NULL;
		if (!ev)
			status = corrupt(s, errstr, "an event is not JSON");
		else
			json_array_append_new(arr, ev);
	}
	sqlite3_finalize(st);
	if (status != STORE_OK) {
		json_decref(arr);
		return status;
	}
	*events = arr;
	return STORE_OK;
}

/* ---------------------------------------------------------------- inbound */

int store_inbound_seen(struct store *s, const char *mailbox, uint32_t uidvalidity,
		       uint32_t uid, const char *message_id, bool *seen, char **errstr)
{
	int64_t one = 0;
	return query_int64(s, errstr, &one, seen,
			   "SELECT 1 FROM inbound WHERE (?1 <> 0 AND mailbox = ?2"
			   " AND uidvalidity = ?3 AND uid = ?1) OR message_id = ?4 LIMIT 1",
			   "ItIt", (int64_t)uid, mailbox ? mailbox : "", (int64_t)uidvalidity,
			   message_id);
}

int store_inbound_record(struct store *s, const struct store_inbound *msg, bool *duplicate,
			 char **errstr)
{
	*duplicate = false;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_inbound_seen(s, msg->mailbox, msg->uidvalidity, msg->uid,
					    msg->message_id, duplicate, errstr);
	if (status == STORE_OK && !*duplicate) {
		sqlite3_stmt *st = NULL;
		status = prepare(s, errstr, &st,
				 "INSERT INTO inbound (mailbox, uidvalidity, uid, message_id, sender,"
				 " received_at, status, summary) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
				 "t", msg->mailbox ? msg->mailbox : "");
		if (status == STORE_OK) {
			/* No UID (a Maildir): NULLs, which never collide. */
			if (msg->uid) {
				sqlite3_bind_int64(st, 2, msg->uidvalidity);
				sqlite3_bind_int64(st, 3, msg->uid);
			}
			sqlite3_bind_text(st, 4, msg->message_id, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5, msg->sender, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 6, msg->received_at);
			sqlite3_bind_text(st, 7, msg->status ? msg->status : "", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 8, msg->summary, -1, SQLITE_STATIC);
			status = step_done(s, errstr, st);
		}
		sqlite3_finalize(st);
	}
	return write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- outbox */

int store_outbox_add(struct store *s, const char *message_id, const char *recipients,
		     const char *raw, size_t raw_len, int64_t now, int64_t *id, char **errstr)
{
	int status = write_begin(s, errstr);
	bool exists = false;
	int64_t dummy = 0;
	if (status == STORE_OK)
		status = query_int64(s, errstr, &dummy, &exists,
				     "SELECT id FROM outbox WHERE message_id = ?", "t", message_id);
	if (status == STORE_OK && exists)
		status = fail(s, errstr, STORE_EXISTS, "message %s is already in the outbox",
			      message_id);
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO outbox (message_id, recipients, raw, status,"
			     " next_attempt_at, created_at) VALUES (?, ?, ?, 'queued', ?, ?)",
			     "ttbII", message_id, recipients, (const void *)raw, raw_len, now, now);
	int64_t new_id = sqlite3_last_insert_rowid(s->db);
	status = write_end(s, status, errstr);
	if (status == STORE_OK && id)
		*id = new_id;
	return status;
}

static const char *const outbox_status_names[] = {"queued", "sent", "failed"};

static void outbox_item_read(sqlite3_stmt *st, struct store_outbox_item *it)
{
	it->id = sqlite3_column_int64(st, 0);
	it->message_id = column_text(st, 1);
	it->recipients = column_text(st, 2);
	it->raw_len = (size_t)sqlite3_column_bytes(st, 3);
	it->raw = xmalloc(it->raw_len + 1);
	if (it->raw_len)
		memcpy(it->raw, sqlite3_column_blob(st, 3), it->raw_len);
	it->raw[it->raw_len] = '\0';
	const char *status = (const char *)sqlite3_column_text(st, 4);
	it->status = STORE_OUTBOX_QUEUED;
	for (int i = 0; status && i < 3; i++)
		if (strcmp(status, outbox_status_names[i]) == 0)
			it->status = (enum store_outbox_status)i;
	it->attempts = sqlite3_column_int(st, 5);
	it->next_attempt_at = sqlite3_column_int64(st, 6);
	it->last_error = column_text(st, 7);
	it->created_at = sqlite3_column_int64(st, 8);
}

#define OUTBOX_COLUMNS \
	"id, message_id, recipients, raw, status, attempts, next_attempt_at, last_error, created_at"

int store_outbox_due(struct store *s, int64_t now, size_t limit,
		     struct store_outbox_item **items, size_t *count, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	struct store_outbox_item *list = NULL;
	size_t n = 0, cap = 0;
	int status = prepare(s, errstr, &st,
			     "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE status = 'queued'"
			     " AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
			     "II", now, (int64_t)(limit > INT64_MAX ? INT64_MAX : limit));
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		grow_array((void **)&list, &cap, n + 1, sizeof *list);
		outbox_item_read(st, &list[n++]);
	}
	sqlite3_finalize(st);
	if (status != STORE_OK) {
		store_outbox_items_free(list, n);
		return status;
	}
	*items = list;
	*count = n;
	return STORE_OK;
}

int store_outbox_get(struct store *s, int64_t id, struct store_outbox_item **item,
		     char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*item = NULL;
	int status = prepare(s, errstr, &st, "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE id = ?",
			     "I", id);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && !row)
		status = fail(s, errstr, STORE_NOTFOUND, "no outbox message %lld", (long long)id);
	if (status == STORE_OK) {
		*item = xcalloc(1, sizeof **item);
		outbox_item_read(st, *item);
	}
	sqlite3_finalize(st);
	return status;
}

void store_outbox_items_free(struct store_outbox_item *items, size_t count)
{
	for (size_t i = 0; items && i < count; i++) {
		free(items[i].message_id);
		free(items[i].recipients);
		free(items[i].raw);
		free(items[i].last_error);
	}
	free(items);
}

/* Ends an update of a queued message: it must still have been queued, so a
 * mail is never marked sent (or retried) twice. */
static int outbox_update_end(struct store *s, int status, int changes, int64_t id,
			     char **errstr)
{
	if (status == STORE_OK && changes == 0)
		status = fail(s, errstr, STORE_NOTFOUND, "no queued outbox message %lld",
			      (long long)id);
	return write_end(s, status, errstr);
}

int store_outbox_mark_sent(struct store *s, int64_t id, int64_t now, char **errstr)
{
	int changes = 0;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, &changes,
			     "UPDATE outbox SET status = 'sent', attempts = attempts + 1,"
			     " sent_at = ?, last_error = NULL WHERE id = ? AND status = 'queued'",
			     "II", now, id);
	return outbox_update_end(s, status, changes, id, errstr);
}

int store_outbox_mark_failed(struct store *s, int64_t id, const char *error, char **errstr)
{
	int changes = 0;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, &changes,
			     "UPDATE outbox SET status = 'failed', attempts = attempts + 1,"
			     " last_error = ? WHERE id = ? AND status = 'queued'",
			     "tI", error, id);
	return outbox_update_end(s, status, changes, id, errstr);
}

int store_outbox_reschedule(struct store *s, int64_t id, int64_t next_attempt_at,
			    const char *error, char **errstr)
{
	int changes = 0;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, &changes,
			     "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?,"
			     " last_error = ? WHERE id = ? AND status = 'queued'",
			     "ItI", next_attempt_at, error, id);
	return outbox_update_end(s, status, changes, id, errstr);
}

/* ---------------------------------------------------------------- orders */

int store_orders_set(struct store *s, const char *player_key, int year, int phase,
		     const char *text, int64_t now, char **errstr)
{
	int changes = 0;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, &changes,
			     "INSERT INTO orders (player, year, phase, text, updated_at)"
			     " SELECT id, ?1, ?2, ?3, ?4 FROM players WHERE key = ?5"
			     " ON CONFLICT (player, year, phase) DO UPDATE"
			     " SET text = excluded.text, updated_at = excluded.updated_at",
			     "ittIt", year, campaign_phase_name(phase), text, now, player_key);
	if (status == STORE_OK && changes == 0)
		status = fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", player_key);
	return write_end(s, status, errstr);
}

int store_orders_get(struct store *s, const char *player_key, int year, int phase,
		     char **text, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*text = NULL;
	int status = prepare(s, errstr, &st,
			     "SELECT o.text FROM orders o JOIN players p ON p.id = o.player"
			     " WHERE p.key = ? AND o.year = ? AND o.phase = ?",
			     "tit", player_key, year, campaign_phase_name(phase));
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*text = column_text(st, 0);
	sqlite3_finalize(st);
	return status;
}

/* ---------------------------------------------------------------- kv */

int store_kv_get(struct store *s, const char *key, char **value, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*value = NULL;
	int status = prepare(s, errstr, &st, "SELECT value FROM kv WHERE key = ?", "t", key);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*value = column_text(st, 0);
	sqlite3_finalize(st);
	return status;
}

int store_kv_set(struct store *s, const char *key, const char *value, char **errstr)
{
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = value ? run(s, errstr, NULL,
				     "INSERT INTO kv (key, value) VALUES (?, ?)"
				     " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
				     "tt", key, value)
			       : run(s, errstr, NULL, "DELETE FROM kv WHERE key = ?", "t", key);
	return write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- the year by mail */

int store_year_state_get(struct store *s, char **json, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*json = NULL;
	int status = prepare(s, errstr, &st, "SELECT data FROM year_state WHERE id = 1", NULL);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		*json = column_text(st, 0);
	sqlite3_finalize(st);
	return status;
}

int store_year_state_set(struct store *s, const char *json, int64_t now, char **errstr)
{
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO year_state (id, data, updated_at) VALUES (1, ?, ?)"
			     " ON CONFLICT (id) DO UPDATE SET data = excluded.data,"
			     " updated_at = excluded.updated_at",
			     "tI", json, now);
	return write_end(s, status, errstr);
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
	int status = prepare(s, errstr, &st,
			     "SELECT year, seed, commitment, counter, revealed FROM dice_years"
			     " WHERE year = ?",
			     "i", year);
	if (status == STORE_OK)
		status = step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		dice_year_read(st, out);
	else if (status == STORE_OK)
		status = fail(s, errstr, STORE_NOTFOUND, "no dice seed for the year %d", year);
	sqlite3_finalize(st);
	return status;
}

int store_dice_year_put(struct store *s, const struct store_dice_year *d, char **errstr)
{
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO dice_years (year, seed, commitment, counter, revealed)"
			     " VALUES (?, ?, ?, ?, ?) ON CONFLICT (year) DO UPDATE SET"
			     " seed = excluded.seed, commitment = excluded.commitment,"
			     " counter = excluded.counter, revealed = excluded.revealed",
			     "ittIB", d->year, d->seed_hex, d->commitment, (int64_t)d->counter,
			     d->revealed);
	return write_end(s, status, errstr);
}

int store_dice_years(struct store *s, struct store_dice_year **rows, size_t *count,
		     char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	size_t cap = 0;
	*rows = NULL;
	*count = 0;
	int status = prepare(s, errstr, &st,
			     "SELECT year, seed, commitment, counter, revealed FROM dice_years"
			     " ORDER BY year",
			     NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		grow_array((void **)rows, &cap, *count + 1, sizeof **rows);
		dice_year_read(st, &(*rows)[(*count)++]);
	}
	sqlite3_finalize(st);
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
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO snapshots (step, taken_at, campaign, year_state, dice_year,"
			     " dice_counter, last_event, last_outbox) VALUES (?, ?, ?, ?, ?, ?,"
			     " (SELECT coalesce(max(id), 0) FROM events),"
			     " (SELECT coalesce(max(id), 0) FROM outbox))",
			     "tIttiI", snap->step, snap->taken_at, snap->campaign, snap->year_state,
			     snap->dice_year, (int64_t)snap->dice_counter);
	if (status == STORE_OK && id)
		*id = sqlite3_last_insert_rowid(s->db);
	return write_end(s, status, errstr);
}

int store_snapshot_latest(struct store *s, const char *step, struct store_snapshot *out,
			  char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	memset(out, 0, sizeof *out);
	int status = prepare(s, errstr, &st,
			     "SELECT id, step, taken_at, campaign, year_state, dice_year,"
			     " dice_counter, last_event, last_outbox FROM snapshots ORDER BY id DESC",
			     NULL);
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		if (step && !(name && name_equal(name, step)))
			continue;
		out->id = sqlite3_column_int64(st, 0);
		out->step = column_text(st, 1);
		out->taken_at = sqlite3_column_int64(st, 2);
		out->campaign = column_text(st, 3);
		out->year_state = column_text(st, 4);
		out->dice_year = sqlite3_column_int(st, 5);
		out->dice_counter = (unsigned long)sqlite3_column_int64(st, 6);
		out->last_event = sqlite3_column_int64(st, 7);
		out->last_outbox = sqlite3_column_int64(st, 8);
		break;
	}
	sqlite3_finalize(st);
	if (status == STORE_OK && !row)
		status = fail(s, errstr, STORE_NOTFOUND, "no snapshot%s%s to go back to",
			      step ? " of " : "", step ? step : "");
	return status;
}

int store_snapshot_rewind(struct store *s, const struct store_snapshot *snap,
			  size_t *dropped_mail, char **errstr)
{
	int changes = 0;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "DELETE FROM events WHERE id > ?", "I",
			     snap->last_event);
	if (status == STORE_OK)
		status = run(s, errstr, &changes,
			     "DELETE FROM outbox WHERE id > ? AND status = 'queued'", "I",
			     snap->last_outbox);
	if (status == STORE_OK && dropped_mail)
		*dropped_mail = (size_t)changes;
	if (status == STORE_OK)
		status = run(s, errstr, NULL, "DELETE FROM snapshots WHERE id >= ?", "I", snap->id);
	return write_end(s, status, errstr);
}

int store_comment_add(struct store *s, int year, int after_event, const char *text,
		      int64_t now, char **errstr)
{
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, NULL,
			     "INSERT INTO comments (year, after_event, text, created_at)"
			     " VALUES (?, ?, ?, ?)",
			     "iitI", year, after_event, text, now);
	return write_end(s, status, errstr);
}

int store_comments(struct store *s, int year, json_t **comments, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*comments = NULL;
	int status = prepare(s, errstr, &st,
			     "SELECT text, after_event FROM comments WHERE year = ? ORDER BY id",
			     "i", year);
	json_t *arr = json_array();
	while (status == STORE_OK && (status = step_row(s, errstr, st, &row)) == STORE_OK && row)
		json_array_append_new(arr, json_pack("{s:s, s:i}", "text",
						     (const char *)sqlite3_column_text(st, 0),
						     "after_event", sqlite3_column_int(st, 1)));
	sqlite3_finalize(st);
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
	int status = query_int64(s, errstr, &n, NULL,
				 "SELECT coalesce(max(seq), 0) FROM events WHERE year = ?", "i", year);
	*count = (int)n;
	return status;
}

int store_player_set_contact(struct store *s, const char *key, const char *name,
			     const char *email, char **errstr)
{
	int changes = 0;
	int status = write_begin(s, errstr);
	if (status == STORE_OK)
		status = run(s, errstr, &changes, "UPDATE players SET name = ?, email = ? WHERE key = ?",
			     "ttt", name, email, key);
	if (status == STORE_OK && changes == 0)
		status = fail(s, errstr, STORE_NOTFOUND, "no player \"%s\"", key);
	return write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- backup */

int store_backup(struct store *s, const char *dest_path, char **errstr)
{
	sqlite3 *dest = NULL;
	int rc = sqlite3_open_v2(dest_path, &dest,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE,
				 NULL);
	if (rc != SQLITE_OK) {
		int status = fail(s, errstr, STORE_ERROR, "cannot create the copy %s: %s", dest_path,
				  dest ? sqlite3_errmsg(dest) : sqlite3_errstr(rc));
		sqlite3_close(dest);
		return status;
	}
	/* The online backup copies a consistent snapshot while others write:
	 * a step that meets a writer's lock is simply tried again. */
	sqlite3_backup *b = sqlite3_backup_init(dest, "main", s->db, "main");
	if (!b) {
		int status = fail(s, errstr, STORE_ERROR, "backup to %s: %s", dest_path,
				  sqlite3_errmsg(dest));
		sqlite3_close(dest);
		return status;
	}
	do {
		rc = sqlite3_backup_step(b, 256);
		if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
			sqlite3_sleep(50);
	} while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
	sqlite3_backup_finish(b);
	int status = STORE_OK;
	if (rc != SQLITE_DONE)
		status = fail(s, errstr, STORE_ERROR, "backup to %s: %s", dest_path,
			      sqlite3_errstr(rc));
	sqlite3_close(dest);
	return status;
}
