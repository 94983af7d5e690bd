/* The schema: the migration steps that build it, and the checks that a
 * file is ours and not from the future before anything is written. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <stdlib.h>

/* PRAGMA application_id of a campaign database ("CAMP"), so that another
 * program's SQLite file is never mistaken for ours (or migrated). */
#define STORE_APPLICATION_ID 0x43414d50

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

	/* 4: outbox mail that carries a password, whose body is dropped once
	 * it was delivered */
	"ALTER TABLE outbox ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;",

	/* 5: processed mail not yet moved out of the inbox, a row per UID
	 * (it was a comma list in kv, rewritten for every mail) */
	"CREATE TABLE pending_moves ("
	"  mailbox TEXT NOT NULL,"
	"  uidvalidity INTEGER NOT NULL,"
	"  uid INTEGER NOT NULL,"
	"  PRIMARY KEY (mailbox, uidvalidity, uid)"
	") WITHOUT ROWID;"
	"WITH RECURSIVE lists(mailbox, rest) AS ("
	"  SELECT substr(key, 9, length(key) - 22), value || ',' FROM kv"
	"  WHERE key LIKE 'mailbox:%:pending_moves' AND value IS NOT NULL),"
	" split(mailbox, uid, rest) AS ("
	"  SELECT mailbox, NULL, rest FROM lists"
	"  UNION ALL SELECT mailbox, CAST(substr(rest, 1, instr(rest, ',') - 1) AS INTEGER),"
	"   substr(rest, instr(rest, ',') + 1) FROM split WHERE rest <> '')"
	"INSERT OR IGNORE INTO pending_moves (mailbox, uidvalidity, uid)"
	" SELECT split.mailbox, COALESCE(CAST(kv.value AS INTEGER), 0), split.uid FROM split"
	" LEFT JOIN kv ON kv.key = 'mailbox:' || split.mailbox || ':uidvalidity'"
	" WHERE split.uid > 0;"
	"DELETE FROM kv WHERE key LIKE 'mailbox:%:pending_moves';",

	/* 6: players who choose their field army and start by mail before
	 * the campaign starts (campaign(5), "Setting up by mail"); a new
	 * password asked for by FORGOT PASSWORD, kept beside the old one
	 * until it is used */
	("ALTER TABLE players ADD COLUMN setup_by_mail INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE players ADD COLUMN pending_password_hash TEXT;"),

	/* 7: when each event was recorded (epoch seconds; NULL before), for
	 * the real times of the web diary's feed */
	"ALTER TABLE events ADD COLUMN recorded_at INTEGER;",

	/* 8: declared mutual alliances between players (rules 1.4 Move, 2.3;
	 * ALLY WITH from both sides), a row per pair, a < b */
	("CREATE TABLE alliances ("
	 "  id INTEGER PRIMARY KEY,"
	 "  a INTEGER NOT NULL,"
	 "  b INTEGER NOT NULL,"
	 "  since_year INTEGER NOT NULL"
	 ");"),

	/* 9: a player's stand-in (rulebook 1.1, campaign-orders(7) STAND-IN):
	 * the latest one per player, kept after it ended so that the stand-in
	 * is told why his password no longer works */
	("CREATE TABLE stand_ins ("
	 "  player TEXT PRIMARY KEY,"
	 "  address TEXT NOT NULL,"
	 "  name TEXT,"
	 "  password_hash TEXT NOT NULL,"
	 "  named_by TEXT NOT NULL,"
	 "  started_at INTEGER NOT NULL,"
	 "  until_at INTEGER NOT NULL,"
	 "  ended_at INTEGER,"
	 "  end_reason TEXT"
	 ");"),

	/* 10: a player added during play (campaignctl add-player) who sets
	 * up by mail and enters the sequence of play next year */
	"ALTER TABLE players ADD COLUMN joining INTEGER NOT NULL DEFAULT 0;",
};

_Static_assert(sizeof migrations / sizeof *migrations == STORE_SCHEMA_VERSION,
	       "one migration step per schema version");

static int pragma_int(struct store *s, const char *sql, int64_t *out, char **errstr)
{
	*out = 0;
	return store_query_int64(s, errstr, out, NULL, sql, NULL);
}

/* Applies the missing migration steps up to target, one transaction each.
 * The version is read again under the write lock: another process may have
 * upgraded the file meanwhile. */
int store_migrate(struct store *s, int target, char **errstr)
{
	for (;;) {
		int status = store_exec(s, "BEGIN IMMEDIATE", errstr);
		int64_t version = 0;
		if (status == STORE_OK)
			status = pragma_int(s, "PRAGMA user_version", &version, errstr);
		if (status == STORE_OK && version > STORE_SCHEMA_VERSION)
			status = store_fail(
				s, errstr, STORE_VERSION,
				"database schema version %lld is newer than this campaignd"
				" knows (%d): upgrade campaignd",
				(long long)version, STORE_SCHEMA_VERSION);
		if (status == STORE_OK && version >= target) {
			s->version = (int)version;
			return store_write_end(s, STORE_OK, errstr);
		}
		if (status == STORE_OK)
			status = store_exec(s, migrations[version], errstr);
		if (status == STORE_OK && version == 0) {
			char *sql = xasprintf("PRAGMA application_id = %d", STORE_APPLICATION_ID);
			status = store_exec(s, sql, errstr);
			free(sql);
		}
		if (status == STORE_OK) {
			char *sql = xasprintf("PRAGMA user_version = %d", (int)version + 1);
			status = store_exec(s, sql, errstr);
			free(sql);
		}
		status = store_write_end(s, status, errstr);
		if (status != STORE_OK)
			return status;
	}
}

/* Refuses SQLite files that belong to someone else, and schemas from the
 * future, before anything is written. */
int store_check_identity(struct store *s, int64_t *version, char **errstr)
{
	int64_t app_id = 0, objects = 0;
	int status = pragma_int(s, "PRAGMA application_id", &app_id, errstr);
	if (status == STORE_OK)
		status = pragma_int(s, "PRAGMA user_version", version, errstr);
	if (status == STORE_OK)
		status = store_query_int64(s, errstr, &objects, NULL,
					   "SELECT count(*) FROM sqlite_master", NULL);
	if (status != STORE_OK)
		return status;
	bool empty = app_id == 0 && *version == 0 && objects == 0;
	if (!empty && app_id != STORE_APPLICATION_ID)
		return store_fail(s, errstr, STORE_VERSION, "not a campaignd database");
	if (*version > STORE_SCHEMA_VERSION)
		return store_fail(
			s, errstr, STORE_VERSION,
			"database schema version %lld is newer than this campaignd knows (%d):"
			" upgrade campaignd",
			(long long)*version, STORE_SCHEMA_VERSION);
	return STORE_OK;
}
