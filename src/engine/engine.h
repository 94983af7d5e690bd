/* The engine: applies one step to the stored campaign inside one SQLite
 * transaction. For now, an inbound mail: dedupe, classify (loops, bounces,
 * lists), authenticate, parse and check the orders, store them, and queue
 * the reply in the outbox — all committed together or not at all. And the
 * outbox: deliver what is due through a sink, with retries and backoff. */
#ifndef CAMPAIGN_ENGINE_H
#define CAMPAIGN_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail/mail_read.h"
#include "store/store.h"
#include "text/templates.h"
#include "mail/transport.h"

struct engine_config {
	const char *campaign_address; /* the address players write to */
	const char *from_name;        /* NULL: the campaign's name */
	const char *mailbox;          /* the source mailbox's name, e.g. "INBOX" */
	struct mail_read_limits limits;
	int rate_limit_per_hour;      /* replies to one address in an hour */
	int quarantine_after;         /* 0: ENGINE_DEFAULT_QUARANTINE_AFTER */
	int keep_mail_days;           /* 0: ENGINE_DEFAULT_KEEP_MAIL_DAYS */
	const char *publish_dir;      /* NULL: no web diary; else it is written
				       * there after every turn and year end */
};

enum engine_verdict {
	ENGINE_ACCEPTED,  /* authenticated; orders stored (even with errors in lines) */
	ENGINE_REJECTED,  /* a player's mail that changed nothing: wrong password,
			     no PLAYER line, unreadable, too large */
	ENGINE_IGNORED,   /* not for us to answer: bounce, auto-reply, list, loop,
			     unknown sender */
	ENGINE_DUPLICATE, /* already processed (same UID or Message-ID) */
};

const char *engine_verdict_name(enum engine_verdict v);

/* What happened to one mail, for logs and campaignctl check-mail. */
struct engine_outcome {
	enum engine_verdict verdict;
	char *sender;       /* From address, may be NULL */
	char *message_id;   /* Message-ID without <>, may be NULL */
	char *player;       /* the player key it authenticated as, or NULL */
	bool organiser;
	bool authenticated;
	char *summary;      /* one line: why */
	size_t order_errors;
	char *reply_to;     /* address the reply goes to, NULL if no reply */
	char *reply;        /* the reply's text as rendered, NULL if no reply */
	char *orders_understood; /* the lines as understood, for check-mail */
};
void engine_outcome_free(struct engine_outcome *o);

struct engine;

/* The engine borrows store and templates (they must outlive it). */
struct engine *engine_new(struct store *store, struct templates *templates,
			  const struct engine_config *cfg);
void engine_free(struct engine *e);

/* One inbound mail (uidvalidity/uid 0 when the source has none). In one
 * transaction: records it, applies it, queues the reply, advances the
 * mailbox's last UID (when uid is not 0) and notes that the message must be
 * moved. With dry_run, everything is rolled back and only *out tells what
 * would have happened. Returns 0, or -1 with *errstr when the database
 * failed: nothing was recorded, *out is left empty (nothing to free), and
 * the mail must be fetched again later. */
int engine_process_mail(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *raw,
			size_t len, int64_t now, bool dry_run, struct engine_outcome *out,
			char **errstr);

/* A mail that engine_process_mail could not process (it returned -1 with
 * `error`) is retried; when the same mail has failed the same way (the same
 * error text) quarantine_after times in a row, it is set aside, so that the
 * mails behind it go on: in one transaction an inbound row of status
 * "quarantined" (with the error), the mailbox's last UID advanced, the move
 * to the quarantine folder noted as pending, and one mail to the organiser
 * (template "mail-quarantined"). The count is kept in the database, so it
 * survives restarts and --once runs. Nothing is set aside when that
 * transaction or the organiser's mail cannot be made (a database or a
 * template that fails for every mail is not this mail's fault): the mail is
 * then retried like before. uid 0 (no mailbox) is never set aside.
 * Returns 1 when the mail was set aside, 0 when it is to be retried, -1
 * with *errstr on a database error (retry). */
#define ENGINE_DEFAULT_QUARANTINE_AFTER 3
int engine_mail_failed(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *raw,
		       size_t len, const char *error, int64_t now, char **errstr);
/* UIDs set aside but not yet moved to the quarantine folder; *uids is
 * malloc'd. */
int engine_pending_quarantine(struct engine *e, uint32_t **uids, size_t *count, char **errstr);
/* Records that uid was moved to the quarantine folder. */
int engine_quarantine_done(struct engine *e, uint32_t uid, char **errstr);

/* Bounded growth, called once an hour by the daemon: sent and failed
 * outbox mail (the raw mails kept for debugging) is deleted keep_mail_days
 * after it was sent, and the rate counters ("rate:...:<hour>") two days
 * after their hour. *deleted (may be NULL) counts the rows. Returns 0, or -1
 * with *errstr. */
#define ENGINE_DEFAULT_KEEP_MAIL_DAYS 30
int engine_prune(struct engine *e, int64_t now, size_t *deleted, char **errstr);

/* The mailbox's stored position: UIDVALIDITY (0 if none yet) and last UID. */
int engine_mailbox_position(struct engine *e, uint32_t *uidvalidity, uint32_t *last_uid,
			    char **errstr);
/* Starts over under a new UIDVALIDITY (messages are then matched by
 * Message-ID). */
int engine_mailbox_reset(struct engine *e, uint32_t uidvalidity, char **errstr);
/* UIDs of uidvalidity committed but not yet moved out of the inbox,
 * increasing; *uids is malloc'd (a row per UID in the store). */
int engine_pending_moves(struct engine *e, uint32_t uidvalidity, uint32_t **uids, size_t *count,
			 char **errstr);
/* Records that these UIDs were moved (one transaction). */
int engine_move_done(struct engine *e, uint32_t uidvalidity, const uint32_t *uids, size_t count,
		     char **errstr);

/* Group commit: between engine_batch_begin and engine_batch_commit, each
 * engine_process_mail runs in a savepoint of one transaction (a failing
 * mail is undone alone), so a batch of mails costs one commit. Nothing a
 * mail did is durable before engine_batch_commit returns 0: move mail and
 * send replies only after it. engine_batch_open is false when no group is
 * open, or when a database failure (a full disk) rolled the whole group
 * back: then nothing of it was recorded and its mail must be fetched again.
 * engine_batch_commit without an open group does nothing. */
int engine_batch_begin(struct engine *e, char **errstr);
bool engine_batch_open(const struct engine *e);
int engine_batch_commit(struct engine *e, char **errstr);
void engine_batch_rollback(struct engine *e);

/* Delivers the outbox mail that is due through sink: sent mail is marked
 * sent; a temporary failure is retried later (1 min, 2, 4 ... at most 1 h);
 * a permanent one is marked failed and reported to the organiser by mail.
 * A sink that cannot be used at all (TRANSPORT_BLOCKED: TLS trouble, a
 * refused login) stops the round: the mail keeps its place, the sink is
 * recorded as blocked (engine_sink_state) and tried again with the same
 * backoff, for as long as it takes; the organiser is mailed once per
 * episode. The first mail that goes through ends the episode.
 * Every due mail is sent, not only a first batch; each is marked sent as
 * soon as the server took it, without waiting for the disk (see
 * store_set_synced). *sent and *failed count this round. Returns 0, or -1
 * on a database error. */
int engine_flush_outbox(struct engine *e, struct mail_sink *sink, int64_t now, size_t *sent,
			size_t *failed, char **errstr);

/* The outbox sent through a few sinks at once (the daemon's SMTP sessions,
 * each kept open from one mail to the next), while the caller reads and
 * applies the next mails. engine_sender_new takes the n sinks (freed on
 * failure). engine_sender_pump records what the sessions did since the last
 * call (the results of a call in one transaction; failures, retries and a
 * blocked server as engine_flush_outbox) and hands them the mail that is due
 * (a window of a few dozen per session); with drain it waits until every
 * due mail was tried. A player's mails leave in the order they were queued,
 * one at a time. Each id the server took is appended at once to a journal
 * beside the database (DATABASE-sent): after a kill, those are marked sent
 * before anything is sent again, so a kill sends again at most the mails
 * the server took in the moment before it (at most one per session).
 * Call pump and free outside a transaction. engine_sender_free lets the
 * mails being sent finish and records them. */
struct engine_sender;
struct engine_sender *engine_sender_new(struct engine *e, struct mail_sink **sinks, size_t n,
					char **errstr);
int engine_sender_pump(struct engine_sender *s, int64_t now, bool drain, size_t *sent,
		       size_t *failed, char **errstr);
/* Mails handed to the sessions whose outcome is not recorded yet. */
size_t engine_sender_busy(const struct engine_sender *s);
void engine_sender_free(struct engine_sender *s, int64_t now);

/* Seconds until the next queued mail is due (0 if one is due now), or -1 if
 * the outbox is empty. */
int64_t engine_outbox_next_due(struct engine *e, int64_t now);

/* Whether the outgoing server is blocked (see engine_flush_outbox): since
 * when, the last error, how many tries and when the next one is. */
struct engine_sink_state {
	bool blocked;
	int64_t since;
	int64_t retry_at;
	int tries;
	char *error; /* NULL when not blocked */
};
int engine_sink_state(struct engine *e, struct engine_sink_state *st, char **errstr);
void engine_sink_state_free(struct engine_sink_state *st);

/* ---- the campaign year by mail (engine_year*.c) ----
 * Turns, decisions, battles, recruitment and the year's end, driven by the
 * pure state machine in year.h: each call loads the campaign and the year's
 * state, lets the machine act at `now`, stores its events, queues its mail
 * (rendered from templates) and saves, all in one transaction. Times are
 * always passed in; nothing here reads a clock or sleeps. */

/* Starts the campaign: year c->year's campaign phase, the sequence of play
 * announced. `seed_hex` (64 hex digits, or NULL) is a master seed the year
 * seeds are derived from (HMAC-SHA256(master, "year|N"), for tests and
 * replays); without it each year's seed is random. Returns 0, 1 if refused
 * (*report says why: already started, a bad seed), -1 on a database error.
 * *report (allocated) tells what happened. */
int engine_start(struct engine *e, int64_t now, const char *seed_hex, char **report,
		 char **errstr);
/* The same, for a campaign whose players set up by mail (campaign(5)):
 * refused while one of them is not ready, unless `force`, which gives him
 * the default army and start and tells him by mail. engine_start is this
 * without force. */
int engine_start_setup(struct engine *e, int64_t now, const char *seed_hex, bool force,
		       char **report, char **errstr);

/* A new password (campaignctl init, invitations, forgotten passwords): 16
 * symbols of Crockford's base32 alphabet, which has no I, L, O or U so that
 * nothing is misread when it is copied from paper or a phone (80 bits), in
 * groups of four: 19 characters and the NUL. */
#define ENGINE_PASSWORD_SIZE 20
void engine_generate_password(char out[ENGINE_PASSWORD_SIZE]);

/* What engine_tick noticed about the clock. */
struct engine_tick_info {
	bool clock_backwards; /* now is before the previous run: no deadline fired */
	bool downtime;        /* more than max_gap since the previous run */
	bool grace_granted;   /* a deadline passed during it: moved by the grace */
	int64_t gap;          /* seconds since the previous run (negative: backwards) */
};

/* Each daemon cycle: reminders, deadlines and steps that are due at `now`.
 * The time of each run is kept; a gap of more than `max_gap` seconds (0:
 * none is too long) is our own downtime: a deadline that fell in it is not
 * fired but moved to now + grace_hours, and the players are told. A clock
 * that went backwards fires nothing this time. Both are logged as events
 * of kind "clock". Returns 0, or -1 with *errstr on a database error. */
int engine_tick(struct engine *e, int64_t now, int64_t max_gap, struct engine_tick_info *info,
		char **errstr);

enum engine_action {
	ENGINE_ACT_DEADLINE,       /* seconds, relative */
	ENGINE_ACT_PAUSE,
	ENGINE_ACT_RESUME,
	ENGINE_ACT_PROCESS,        /* arg: the step's name */
	ENGINE_ACT_PREVIEW,        /* what processing the step now would do */
	ENGINE_ACT_COMMENT,        /* arg: the text */
	ENGINE_ACT_UNDO,           /* back to before the last step (and pause) */
	ENGINE_ACT_BATTLE_RESULT,  /* arg: the result lines (BATTLE AT ...) */
	ENGINE_ACT_REPLACE_PLAYER, /* arg: key; name, email: the new person */
	ENGINE_ACT_REMOVE_PLAYER,  /* arg: key */
	ENGINE_ACT_INVITE,         /* new passwords, rules and reference to everyone;
				      arg: a player's key, that player only */
	ENGINE_ACT_OPEN_SETUP,     /* the players who set up by mail get their army
				      list, home provinces and how to answer */
};

struct engine_action_request {
	enum engine_action action;
	int64_t seconds;   /* DEADLINE: how much (may be negative) */
	bool relative;     /* DEADLINE: from the current deadline, else from now */
	const char *arg;
	const char *name;  /* REPLACE_PLAYER */
	const char *email; /* REPLACE_PLAYER */
	bool json;         /* PREVIEW: the report as JSON {"step", "events", "mails"}
			      instead of prose */
};

/* An organiser action (campaignctl; the mail orders use the same code).
 * Every action done is logged (an event of kind "organiser") and announced
 * to the players (template "organiser-action"). PREVIEW changes nothing: it
 * runs on a copy with throwaway dice, and its report tells what would
 * happen in the words of the turn reports (template "preview"). Returns 0 (done), 1 (refused: *report
 * says why) or -1 (database error, *errstr). *report (allocated) says what
 * was done; for REPLACE_PLAYER it holds the new password. */
int engine_action(struct engine *e, const struct engine_action_request *req, int64_t now,
		  char **report, char **errstr);

/* campaignctl add-player: a new player (rules 1.2). */
struct engine_new_player {
	const char *key;      /* one word, as players type it in orders */
	const char *nation;   /* NULL: the key */
	const char *name;     /* may be NULL */
	const char *email;
	const char *provinces; /* his home provinces, "Name, Name, ..." */
	const struct army_list *list; /* his national list, derived for the campaign */
};
/* Adds the player: refused (1, *report says why, nothing changed) unless
 * the key, nation and address are new and every province is neutral (and
 * not set aside for another new player). During play he is joining: his
 * provinces are set aside for him, he sets up by mail (ARMY, START IN) and
 * enters the sequence of play when the next year begins; before the start
 * they are his at once. He is mailed his invitation (a new password) and
 * his army list; everyone is told (organiser-action "add-player"), the
 * event log holds "player_joined". Returns 0, 1 or -1 (*errstr). */
int engine_add_player(struct engine *e, const struct engine_new_player *np, int64_t now,
		      char **report, char **errstr);

/* The web diary (publish.h) is rewritten into cfg->publish_dir after a
 * committed step that ended a turn or a year (engine_tick, a player's or
 * the organiser's mail, engine_action). A failure to write it is logged as
 * a warning and never fails the step: the diary is written again after the
 * next turn. Called by those functions themselves; returns 0 (written, or
 * nothing due), -1 with *errstr when writing failed. */
int engine_publish_if_due(struct engine *e, char **errstr);

/* A few lines on the year: the step, its deadline (in the campaign's time
 * zone), who it waits for and for what, and the requests waiting without
 * a deadline. */
int engine_year_status(struct engine *e, int64_t now, char **text, char **errstr);
/* The same as JSON (*doc, a new reference): "started", "year", "phase",
 * "step", "what", "paused", "deadline_epoch", "deadline", "awaited"
 * [{"player", "nation", "for"}], "organiser", "requests" [{"kind",
 * "player", "waits_for", "what", ...}] (tributaries asked, alliances proposed). Returns 0, or -1 with *errstr. */
int engine_year_status_json(struct engine *e, int64_t now, json_t **doc, char **errstr);

/* What happens next, for the player `player_key` (NULL: no one in
 * particular): whose turn it is, the sequence of play and the player's place
 * in it, the deadline in the campaign's time zone, who is awaited and for
 * what, as data and as ready sentences (the fields are listed at
 * engine_awaiting_json in engine_year_p.h). *out is a new reference. Runs
 * in its own read transaction; writes nothing. Returns 0, or -1 with
 * *errstr. */
int engine_whats_next(struct engine *e, const char *player_key, int64_t now, json_t **out,
		      char **errstr);

/* Stand-ins named by the organiser (campaignctl stand-in): the player's
 * stand-in until the end of `date` (the forms of STAND-IN, in the
 * campaign's time zone), with the same checks and mails as a player's
 * STAND-IN line, and the player told. *report says what was done. Returns
 * 0; 1 with *errstr for a refusal (nothing done: a bad date or address,
 * no such player); -1 with *errstr on a database error. */
int engine_stand_in_name(struct engine *e, const char *player, const char *address,
			 const char *name, const char *date, int64_t now, char **report,
			 char **errstr);
/* Ends the player's stand-in (both told). Returns 0, 1 (none lasts, or no
 * such player: *errstr) or -1. */
int engine_stand_in_end_by_organiser(struct engine *e, const char *player, int64_t now,
				     char **report, char **errstr);
/* Ends the stand-ins whose date has passed, telling each stand-in and his
 * player (engine_tick calls it). Own transaction. Returns 0, or -1. */
int engine_stand_in_expire(struct engine *e, int64_t now, char **errstr);

#endif
