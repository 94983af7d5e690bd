/* The campaign database: one SQLite file holding the campaign (definition and
 * state), the event log, and the mail layer's bookkeeping (inbound messages
 * seen, the outbox, accepted orders, small daemon state). All the project's
 * SQL lives in src/store (README there: one file per table family).
 *
 * The daemon and campaignctl use the same file at once: it is opened in WAL
 * mode with a busy timeout, so a writer waits for another instead of failing
 * at once. Every write runs in a transaction. A caller that must group
 * several writes (an inbound mail's effects, its inbound row and its outbox
 * rows) wraps them in store_begin/store_commit; each store function then runs
 * inside that transaction, and a failed one undoes only its own part.
 *
 * Errors: functions return STORE_OK (0) or a negative enum store_status and,
 * when errstr is not NULL, set *errstr to an allocated one-line message that
 * names the database file, e.g. "campaign.db: database is locked". The caller
 * frees it. On success *errstr is left untouched.
 *
 * Times are int64 seconds since the epoch, always passed in: the store reads
 * no clock. Strings passed in are copied; nothing returned is borrowed. */
#ifndef CAMPAIGN_STORE_H
#define CAMPAIGN_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* The schema this build writes. Opening an older database upgrades it (each
 * step in its own transaction); a newer one is refused. */
#define STORE_SCHEMA_VERSION 10

enum store_status {
	STORE_OK = 0,
	STORE_ERROR = -1,      /* SQLite or I/O failure, or a corrupt row */
	STORE_NOTFOUND = -2,   /* no database file (without STORE_CREATE), no such
				  player, no campaign in the database */
	STORE_EXISTS = -3,     /* store_init_campaign: a campaign is already there */
	STORE_BUSY = -4,       /* another process kept the lock past the timeout */
	STORE_VERSION = -5,    /* written by a newer campaignd, not ours, or not
				  a database at all */
	STORE_MISMATCH = -6,   /* store_save_state: not the stored campaign */
	STORE_FULL = -7,       /* the disk (or the file system's quota) is full */
};

/* The sysexits.h code a command-line tool should exit with after `status`. */
int store_status_exit_code(int status);

/* store_open flags */
#define STORE_CREATE 0x1   /* create the file if it does not exist */
#define STORE_READONLY 0x2 /* never write (an old schema is then an error) */

struct store;

/* Opens (creating with STORE_CREATE) the database at path and brings its
 * schema up to STORE_SCHEMA_VERSION. On success *out is the new handle
 * (store_close frees it). Errors: STORE_NOTFOUND (file missing),
 * STORE_VERSION (newer schema, or a SQLite file that is not a campaign
 * database), STORE_BUSY, STORE_ERROR. */
int store_open(const char *path, unsigned flags, struct store **out, char **errstr);

/* As store_open, but upgrades a new or older database only up to
 * schema_version (1..STORE_SCHEMA_VERSION). For tests of the migrations. */
int store_open_at_version(const char *path, unsigned flags, int schema_version,
			  struct store **out, char **errstr);

/* Closes the handle; an open transaction is rolled back. NULL is allowed. */
void store_close(struct store *s);

/* The file name given to store_open (borrowed, valid until store_close). */
const char *store_path(const struct store *s);
/* The schema version of the open database. */
int store_schema_version(const struct store *s);

/* Password hashing strength (libsodium crypto_pwhash limits). The default is
 * the INTERACTIVE pair; tests may lower it to crypto_pwhash_*_MIN. */
void store_set_pwhash_limits(struct store *s, unsigned long long opslimit, size_t memlimit);

/* How long a write waits for another process's lock before STORE_BUSY
 * (default 10 s). */
void store_set_busy_timeout(struct store *s, int milliseconds);

/* Whether each commit waits for the disk (true, the default). Commits made
 * with false (outside a transaction only) survive a crash of the process,
 * and reach the disk with the next waited-for commit or checkpoint; a power
 * cut before that may lose them. For records whose loss costs little: a
 * reply marked sent that is sent again. */
int store_set_synced(struct store *s, bool synced, char **errstr);

/* ---- transactions ---- */

/* Starts a write transaction (waiting up to the busy timeout for the write
 * lock). Transactions do not nest: store_begin inside one is STORE_ERROR. */
int store_begin(struct store *s, char **errstr);
/* Starts a read-only transaction: the reads that follow see one snapshot
 * while other processes go on writing. Ended by store_commit or
 * store_rollback; writing inside it is an error. */
int store_begin_read(struct store *s, char **errstr);
int store_commit(struct store *s, char **errstr);
/* Undoes everything since store_begin. Never fails in a way the caller can
 * act on; a transaction that is not open is ignored. */
void store_rollback(struct store *s);

/* Savepoints inside store_begin, for a group of mails in one transaction:
 * each mail between store_savepoint and store_release (kept) or
 * store_rollback_savepoint (undone alone, the others kept). */
int store_savepoint(struct store *s, char **errstr);
int store_release(struct store *s, char **errstr);
void store_rollback_savepoint(struct store *s);
bool store_in_transaction(const struct store *s);

/* ---- the campaign ---- */

/* Writes a new campaign (definition and state) into the database. If it
 * already holds one: STORE_EXISTS, unless force, which first deletes the old
 * campaign with its events, orders and queued (unsent) outbox mail. The
 * inbound log, sent mail and the key-value state survive, so mail already
 * processed is never processed again. Passwords start unset. */
int store_init_campaign(struct store *s, const struct campaign *c, bool force, char **errstr);

/* True in *exists if the database holds a campaign; its name (allocated, may
 * be NULL) in *name if name is not NULL. */
int store_has_campaign(struct store *s, bool *exists, char **name, char **errstr);

/* Reads the whole campaign back: *out is a new campaign equal to the one
 * saved (campaign_free it). STORE_NOTFOUND if there is none. */
int store_load_campaign(struct store *s, struct campaign **out, char **errstr);

/* Saves the mutable state of c: year, phase, province owners, each player's
 * troops (field and reserve), location, prestige, quiet years, ceilings,
 * overlord, status, movement option and whether they fought this year, and
 * all contingents and sieges. The definition (map,
 * names, army lists) is never changed: if c does not match the stored one
 * (other counts), STORE_MISMATCH and nothing is written. */
int store_save_state(struct store *s, const struct campaign *c, char **errstr);

/* ---- passwords ---- */

/* The name store_set_password and store_check_password use for the organiser
 * (player keys are compared without regard to case). */
#define STORE_ORGANISER "organiser"

/* Stores the libsodium crypto_pwhash_str hash of password for a player
 * (by key) or STORE_ORGANISER; the password itself is never stored.
 * STORE_NOTFOUND for an unknown player. */
int store_set_password(struct store *s, const char *who, const char *password,
		       char **errstr);

/* FORGOT PASSWORD (schema 6): stores the hash of a new password for a
 * player beside his current one. store_check_password accepts either; the
 * first time the new one is used it replaces the old (which then stops
 * working). store_set_password drops a pending one. */
int store_set_pending_password(struct store *s, const char *player_key, const char *password,
			       char **errstr);

/* True if password is who's password. False for a wrong password, an
 * unknown player or an unset password (then *errstr is left NULL), and for a
 * database failure (then *errstr is set, if errstr is not NULL). */
bool store_check_password(struct store *s, const char *who, const char *password,
			  char **errstr);

/* ---- events ---- */

/* Appends an event object ({"kind": "...", "year": 1451, "phase": "campaign",
 * ...}). "kind" (a string) and "year" (an integer) are required, "phase" is
 * optional. Events are numbered 1, 2, ... within their year, in the order
 * appended; *seq (if not NULL) gets the number. STORE_ERROR for an object
 * without kind or year. */
int store_append_event(struct store *s, const json_t *event, int *seq, char **errstr);
/* The same, noting when it was recorded (epoch seconds; 0: not known). */
int store_append_event_at(struct store *s, const json_t *event, int64_t recorded_at, int *seq,
			  char **errstr);
/* When `year` was written: the first and the last time one of its events
 * was recorded or a comment on it made (epoch seconds), 0 and 0 if no time
 * is known (a year recorded before schema 5). The web diary's feed dates
 * its entries with them. */
int store_year_times(struct store *s, int year, int64_t *first, int64_t *last, char **errstr);

/* All events of a year (or of every year if year is STORE_ALL_YEARS), in
 * order: *events is a new JSON array of the objects as appended. */
#define STORE_ALL_YEARS INT32_MIN
int store_events(struct store *s, int year, json_t **events, char **errstr);

/* ---- inbound mail (exactly once) ---- */

/* A processed message. A message is identified by its mailbox, UIDVALIDITY
 * and UID (0, 0 when the source has none) and, separately, by its Message-ID
 * (as in the header, angle brackets included; NULL if it had none): the
 * store refuses a second row with either. */
struct store_inbound {
	const char *mailbox;     /* source mailbox name ("INBOX"); NULL = "" */
	uint32_t uidvalidity;
	uint32_t uid;
	const char *message_id;
	const char *sender;      /* the From address */
	int64_t received_at;
	const char *status;      /* what the engine did: "accepted", "rejected", "ignored"... */
	const char *summary;     /* one line for the organiser; may be NULL */
};

/* *seen = true if a message with the same (mailbox, uidvalidity, uid) - when
 * uid is not 0 - or the same message_id - when not NULL - was recorded. */
int store_inbound_seen(struct store *s, const char *mailbox, uint32_t uidvalidity,
		       uint32_t uid, const char *message_id, bool *seen, char **errstr);

/* Records a processed message. If it was already recorded (same UID or same
 * Message-ID), nothing is written and *duplicate is set to true. */
int store_inbound_record(struct store *s, const struct store_inbound *msg, bool *duplicate,
			 char **errstr);

/* ---- mail processed but not yet moved out of the inbox (schema 5) ---- */

/* Records uid of (mailbox, uidvalidity) as waiting to be moved. */
int store_pending_move_add(struct store *s, const char *mailbox, uint32_t uidvalidity,
			   uint32_t uid, char **errstr);
/* The UIDs waiting to be moved for mailbox and uidvalidity, increasing
 * (*uids allocated, NULL when *count is 0). */
int store_pending_moves(struct store *s, const char *mailbox, uint32_t uidvalidity,
			uint32_t **uids, size_t *count, char **errstr);
/* Forgets the given UIDs (moved) in one transaction. */
int store_pending_moves_done(struct store *s, const char *mailbox, uint32_t uidvalidity,
			     const uint32_t *uids, size_t count, char **errstr);
/* Forgets every pending move of mailbox (the mailbox was recreated). */
int store_pending_moves_clear(struct store *s, const char *mailbox, char **errstr);

/* ---- outbox ---- */

enum store_outbox_status { STORE_OUTBOX_QUEUED, STORE_OUTBOX_SENT, STORE_OUTBOX_FAILED };

struct store_outbox_item {
	int64_t id;
	char *message_id;
	char *recipients;   /* envelope recipients, comma-separated addresses */
	char *raw;          /* the whole RFC 5322 message; raw_len bytes plus a NUL */
	size_t raw_len;
	enum store_outbox_status status;
	int attempts;
	int64_t next_attempt_at;
	char *last_error;   /* NULL if none */
	int64_t created_at;
};

/* Queues a message, due at once (next_attempt_at = now). *id (if not NULL)
 * gets its id. A message_id that is already queued or sent is STORE_EXISTS:
 * the same mail is never queued twice. */
int store_outbox_add(struct store *s, const char *message_id, const char *recipients,
		     const char *raw, size_t raw_len, int64_t now, int64_t *id, char **errstr);

/* Marks a queued message as carrying a secret (a new password): once it is
 * sent or fails for good, its body is replaced by STORE_OUTBOX_SECRET_NOTE
 * (the header stays, for the record) and the old bytes are zeroed in the
 * database and its WAL file. Call it in the transaction that queued it. */
#define STORE_OUTBOX_SECRET_NOTE \
	"[The body of this mail was removed once it was delivered: it held a password.]\r\n"
int store_outbox_set_secret(struct store *s, int64_t id, char **errstr);

/* Queued messages due at `now` (next_attempt_at <= now), oldest due first, at
 * most `limit`: *items is a new array of *count items, freed with
 * store_outbox_items_free. */
int store_outbox_due(struct store *s, int64_t now, size_t limit,
		     struct store_outbox_item **items, size_t *count, char **errstr);
void store_outbox_items_free(struct store_outbox_item *items, size_t count);

/* One message by id (a single item, freed with store_outbox_items_free(it, 1)). */
int store_outbox_get(struct store *s, int64_t id, struct store_outbox_item **item,
		     char **errstr);

/* The messages with an id in (after, upto] whose Message-ID contains
 * `needle`, oldest first (a corrected mail finds the one it replaces):
 * *items is a new array of *count, freed with store_outbox_items_free. */
int store_outbox_matching(struct store *s, int64_t after, int64_t upto, const char *needle,
			  struct store_outbox_item **items, size_t *count, char **errstr);
/* The highest outbox id given so far (0 if none). */
int store_outbox_last_id(struct store *s, int64_t *id, char **errstr);

/* After a delivery attempt: sent; failed for good (with the reason); or to
 * be tried again at next_attempt_at (with the reason). Each counts one
 * attempt. STORE_NOTFOUND for an unknown id. */
int store_outbox_mark_sent(struct store *s, int64_t id, int64_t now, char **errstr);
int store_outbox_mark_failed(struct store *s, int64_t id, const char *error, char **errstr);
int store_outbox_reschedule(struct store *s, int64_t id, int64_t next_attempt_at,
			    const char *error, char **errstr);

/* ---- orders ---- */

/* The orders a player has for a year and phase (by phase name), as accepted:
 * the text replaces any earlier one. STORE_NOTFOUND for an unknown player. */
int store_orders_set(struct store *s, const char *player_key, int year, int phase,
		     const char *text, int64_t now, char **errstr);
/* *text is the stored orders (allocated) or NULL if there are none. */
int store_orders_get(struct store *s, const char *player_key, int year, int phase,
		     char **text, char **errstr);

/* ---- small daemon state ---- */

/* *value is the stored value (allocated) or NULL if the key is absent. */
int store_kv_get(struct store *s, const char *key, char **value, char **errstr);
/* Sets key to value; a NULL value deletes the key. */
int store_kv_set(struct store *s, const char *key, const char *value, char **errstr);

/* Bounded growth: deletes the sent and failed outbox rows sent (or, never
 * sent, queued) before mail_before, except the newest row of all (its id is
 * never given again); and, when counter_prefix is not NULL, the key-value
 * rows "<counter_prefix>...:<n>" whose number n is below counter_below (the
 * rate counters, keyed by the hour). *deleted (may be NULL) counts the rows. */
int store_prune(struct store *s, int64_t mail_before, const char *counter_prefix,
		int64_t counter_below, size_t *deleted, char **errstr);

/* ---- the campaign year by mail (schema 3) ---- */

/* The year's state machine (src/year.h) as its JSON text: one row. *json is
 * the stored text (allocated) or NULL before the campaign was started. */
int store_year_state_get(struct store *s, char **json, char **errstr);
int store_year_state_set(struct store *s, const char *json, int64_t now, char **errstr);

/* A year's dice seed (64 hex digits), its commitment (SHA-256, hex), the
 * number of rolls made with it and whether it was revealed. */
struct store_dice_year {
	int year;
	char seed_hex[2 * 32 + 1];
	char commitment[2 * 32 + 1];
	unsigned long counter;
	bool revealed;
};
/* STORE_NOTFOUND if the year has no seed yet. */
int store_dice_year_get(struct store *s, int year, struct store_dice_year *out, char **errstr);
/* Inserts or replaces the row of d->year. */
int store_dice_year_put(struct store *s, const struct store_dice_year *d, char **errstr);
/* Every year's row, oldest first: *rows is malloc'd (*count rows). */
int store_dice_years(struct store *s, struct store_dice_year **rows, size_t *count,
		     char **errstr);

/* A snapshot taken before a step was resolved: the campaign and the year
 * state as JSON text, the dice position, and how far the event log and the
 * outbox went, so that undo can restore it and drop what came after. */
struct store_snapshot {
	int64_t id;
	char *step;          /* the step's name, e.g. "turn-burgundy" */
	int64_t taken_at;
	char *campaign;      /* campaign_to_json text */
	char *year_state;    /* year state JSON text, or NULL */
	int dice_year;
	unsigned long dice_counter;
	int64_t last_event;  /* highest event row id at the time */
	int64_t last_outbox; /* highest outbox row id at the time */
};
void store_snapshot_free(struct store_snapshot *snap);
/* Records a snapshot (last_event and last_outbox are read here; the
 * caller's values are ignored). *id (if not NULL) gets its id. */
int store_snapshot_add(struct store *s, const struct store_snapshot *snap, int64_t *id,
		       char **errstr);
/* The latest snapshot (step NULL) or the latest one of that step name
 * (compared folded, as name_equal does). STORE_NOTFOUND if there is none. */
int store_snapshot_latest(struct store *s, const char *step, struct store_snapshot *out,
			  char **errstr);
/* Forgets everything after the snapshot: events with a higher row id
 * (but for the "stand_in" ones: who gave a player's orders stays true),
 * queued (unsent) outbox mail with a higher id, and this snapshot and the
 * later ones. The caller restores the campaign and year state itself.
 * *dropped_mail (if not NULL) counts the queued mails dropped. */
int store_snapshot_rewind(struct store *s, const struct store_snapshot *snap,
			  size_t *dropped_mail, char **errstr);

/* The organiser's commentary for the diary: after event number after_event
 * (0 = at the start) of the year. */
int store_comment_add(struct store *s, int year, int after_event, const char *text,
		      int64_t now, char **errstr);
/* *comments is a new JSON array of {"text", "after_event"} of the year. */
int store_comments(struct store *s, int year, json_t **comments, char **errstr);
/* The number of events stored for a year (the last seq, 0 if none). */
int store_event_count(struct store *s, int year, int *count, char **errstr);

/* Changes a player's person (name and address), for a replacement player.
 * STORE_NOTFOUND for an unknown key. */
int store_player_set_contact(struct store *s, const char *key, const char *name,
			     const char *email, char **errstr);
/* A player added during play (campaignctl add-player): c->players[player],
 * the campaign's last, with his army list, empty troops, his home
 * provinces (home_of) and whether he is joining (PLAYER_JOINING) or sets
 * up by mail. The rest is saved by store_save_state as for everyone.
 * STORE_MISMATCH when the stored campaign does not have the players before
 * him. */
int store_add_player(struct store *s, const struct campaign *c, int player, char **errstr);

/* ---- backup ---- */

/* Writes a consistent copy of the whole database to dest_path (a new file:
 * an existing one is refused) while others may go on using it (SQLite's
 * online backup). The copy is a campaign database like the original. */
int store_backup(struct store *s, const char *dest_path, char **errstr);

/* ---- stand-ins (store_stand_in.c) ---- */

/* A player's stand-in (rulebook 1.1): the latest one named for him. It
 * lasts while ended_at is 0 and the time is before until_at. */
struct store_stand_in {
	char *player;     /* the player's key */
	char *address;    /* where the stand-in's mail goes; his orders come from it */
	char *name;       /* NULL if none was given */
	char *named_by;   /* "player" or "organiser" */
	int64_t started_at, until_at;
	int64_t ended_at; /* 0 while it has not been ended */
	char *end_reason; /* NULL while it has not been ended */
};
void store_stand_in_free(struct store_stand_in *si);
/* Names a stand-in for player (replacing any earlier one, ended or not):
 * password is hashed like the players' (never stored in clear). */
int store_stand_in_set(struct store *s, const struct store_stand_in *si, const char *password,
		       char **errstr);
/* The latest stand-in of player: *found false (and *si zeroed) if none. */
int store_stand_in_get(struct store *s, const char *player, struct store_stand_in *si,
		       bool *found, char **errstr);
/* Ends player's stand-in at `at` for `reason` (a sentence); STORE_NOTFOUND
 * if none was named or it has already ended. */
int store_stand_in_end(struct store *s, const char *player, int64_t at, const char *reason,
		       char **errstr);
/* Whether password is the stand-in's of player (ended or not). */
bool store_stand_in_check_password(struct store *s, const char *player, const char *password,
				   char **errstr);
/* The keys of the players whose stand-in has not been ended but whose
 * until_at is at or before now (NULL-terminated array, caller frees each
 * and the array). */
int store_stand_ins_due(struct store *s, int64_t now, char ***players, char **errstr);

#endif
