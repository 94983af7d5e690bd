/* Private to the engine (engine.c, engine_year*.c, outbox.c): the engine's insides
 * and the one way mail is queued, so the year's mail goes out exactly like
 * the acknowledgements. Not a contract for anyone else. */
#ifndef CAMPAIGN_ENGINE_P_H
#define CAMPAIGN_ENGINE_P_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/engine.h"
#include "mail/mail_compose.h"
#include "dbm/orders.h"
#include "base/util.h"

struct engine {
	struct store *store;
	struct templates *templates;
	char *campaign_address;
	char *from_name;
	char *mailbox;
	char *domain;
	struct mail_read_limits limits;
	int rate_limit_per_hour;
	int quarantine_after; /* failures of one mail before it is set aside */
	int keep_mail_days;   /* sent mail kept this long */
	char *publish_dir;   /* NULL: no web diary */
	bool publish_due;    /* a committed step ended a turn or a year */
	/* The plaintext passwords of the mail being processed (its PLAYER or
	 * ORGANISER lines, PASSWORD orders, forwarded ones too): no mail
	 * queued while it is processed may contain one (engine_queue_mail). */
	char **secrets;
	size_t secret_count;
	/* While an ORGANISER mail is carried out: its actions' announcements,
	 * sent to each player as one mail at its end (else NULL). */
	json_t *announce_batch;
	/* set while a mail is queued that a player's stand-in must not get a
	 * copy of (stand_in.c: he has it already, or it is about him) */
	bool no_stand_in_copy;
	/* While a mail is processed: the year's mails it causes, held so
	 * that each person gets one mail at that moment (engine_fold.c) */
	struct engine_fold *fold;
};

/* At most max bytes of s (never cutting a UTF-8 character), with "..."
 * when cut: what a reply may quote of what it answers. Caller frees. */
char *engine_excerpt(const char *s, size_t max);

/* mailbox.c: the mail uid was processed (inside its transaction): the last
 * UID moves on and the mail waits for its move. Returns 0 or -1. */
int engine_mailbox_advance(struct engine *e, uint32_t uidvalidity, uint32_t uid, char **errstr);
/* The Message-ID as the inbound log keeps it: "<id>", or for an id longer
 * than any real one "<hash@long-id.invalid>" (unique, bounded). */
char *engine_stored_message_id(const char *id);
#define ENGINE_EXCERPT_SUBJECT 100
#define ENGINE_EXCERPT_LINE 200
#define ENGINE_ACK_MAX_LINES 200
/* orders_ack_json with at most ENGINE_ACK_MAX_LINES lines, each sender's
 * text at most ENGINE_EXCERPT_LINE bytes; the others only counted in
 * "lines_not_shown" {count, count_s ("" or "s"), understood, in_error, ignored}. */
json_t *engine_ack_json(const struct order_set *set, const struct order_set *current,
			const struct campaign *c, int player);
/* The notes "This replaces your earlier recruitment: ... is no longer
 * ordered" (key recruitment_replaced) and "This replaces your earlier
 * movement order: ..." (movement_replaced) when the mail's recruitment lines
 * or movement order replace earlier ones (`pending`) and drop some of them
 * (engine_ack.c). */
void engine_ack_replaced(json_t *ack, const struct order_set *pending,
			 const struct order_set *set, const struct order_set *merged,
			 const struct campaign *c, int player);
/* The movement orders taken out of `merged` (a turn carried them out: kept
 * in the store, no current order); *text made again from what is left. */
void engine_drop_movement(struct order_set *merged, const struct campaign *c, char **text);
/* In the acknowledgement `ack` of `set` (its notes counted as things stand
 * after the mail), the lines of the movement orders (movement) or of the
 * recruitment (recruitment) the mail carried out are taken from `before`
 * (the same made before the mail): their costs as they were paid. The
 * other lines keep their notes as things stand now. */
void engine_ack_lines_as_paid(json_t *ack, const json_t *before, const struct order_set *set,
			      bool movement, bool recruitment);
/* In the acknowledgement `ack` of `set`, the lines of the movement orders
 * the mail's own turn carried out point to what came of them (the year's
 * mail on the turn) instead of the cost foreseen. */
void engine_ack_moves_done(json_t *ack, const struct order_set *set);
/* In the acknowledgement `ack` of `set`, the lines `unused` marks (a
 * battle report refused for another line in error; NULL: none) are shown
 * as not used, not as lines in error. */
void engine_ack_not_used(json_t *ack, const struct order_set *set, const bool *unused);
/* A battle report refused (engine_ack.c): its lines, still ORDER_OK, are
 * no lines understood. Refused for the mail's lines in error (for_errors),
 * each of the report's lines names those lines and is only not used: the
 * flags of engine_ack_not_used are returned (free them); else each becomes
 * a line in error (set->errors counts it), the reason in the year's note,
 * and NULL is returned. */
bool *engine_ack_refused_report(struct order_set *set, bool for_errors);
/* "battle_lines" (the mail holds result lines) and "battle_rest_taken"
 * (the report was refused and the mail has other lines taken) in `ack`. */
void engine_ack_battle(json_t *ack, const struct order_set *set, bool refused);
/* A mail that only asks (STATUS, MAP, HELP; no order, no line in error):
 * "only_asks" and "asked" (what was asked and where it is: "the status of
 * England (below) and the current map (attached)") set in `ack`, true;
 * false for any other mail. */
bool engine_ack_asked(json_t *ack, const struct order_set *set, const struct campaign *c,
		      int player);
/* NO MOVE in the recruitment phase (recruit nothing) is not kept as a
 * movement order: it leaves the current orders a reply shows. */
void engine_drop_no_move(struct order_set *merged);

/* engine_secret.c: a password as typed in the form a generated one is
 * stored in (16 Crockford base32 symbols in groups of four, whatever the
 * case, dashes, spaces, O for 0, I or L for 1), or NULL if it cannot be
 * one; a Subject with the passwords of `set` (may be NULL) and every word
 * shaped like a generated password masked. Callers free. */
char *engine_password_form(const char *typed);
char *engine_masked_subject(const char *subject, const struct order_set *set);
/* Whether a Subject (its orders as parsed: `subject`) is everyday words
 * ("help please": bare HELP, STATUS, MAP, PREVIEW, no secret) above a body
 * with orders (`body`): a phrase, not orders left unapplied. */
bool engine_subject_is_phrase(const struct order_set *subject, const struct order_set *body);

/* An undo to a snapshot taken before a player joined (engine_join.c): the
 * players added since are put into the snapshot's JSON as they stand now
 * (with their home provinces), so that undo does not take back a joining.
 * Returns 0, or -1 with *errstr. */
int engine_join_graft(struct engine *e, json_t *snapshot, char **errstr);

/* FORGOT PASSWORD, from a player's registered address (engine_forgot.c):
 * unless one was sent in the last ENGINE_FORGOT_HOURS, a new password is
 * made, kept beside the old one (store_set_pending_password: the old one
 * works until the new one is used) and mailed to the registered address
 * only, as a secret; else the player is told when he may ask again.
 * `data` holds the reply's base fields (borrowed); `token` names the
 * reply. Fills out's verdict, summary and reply. Returns 0, or -1. */
#define ENGINE_FORGOT_HOURS 24
int engine_forgot_password(struct engine *e, const struct campaign *c, int player,
			   json_t *data, const struct mail_info *info, const char *token,
			   int64_t now, struct engine_outcome *out, char **errstr);

struct reply {
	const char *to_addr;
	const char *to_name;
	const char *subject;
	const char *template_name;
	json_t *data;
	const struct mail_info *in_reply_to; /* NULL for mail that answers none */
	const char *token;                   /* unique: the Message-ID is made of it */
	enum mail_auto_submitted auto_submitted;
	const struct mail_attachment *attachments; /* may be NULL */
	size_t n_attachments;
	/* NULL, or a template rendered with `data` (plus "text_body": the text
	 * part as rendered, and "text_lines": it line by line) as the mail's
	 * HTML alternative; a failure to render it leaves the text alone. */
	const char *html_template;
	/* it carries a password: its body is dropped from the outbox once it
	 * was delivered (store_outbox_set_secret) */
	bool secret;
	/* the year the subject names; 0: the campaign's current year */
	int year;
};

/* The one subject scheme (campaign(5), tag): "[Tag] 1495 · what". A
 * `what` that already holds "[Tag]" (a reply to one of our mails, "Re:
 * [Tag] 1495 · Your turn") is kept as it is. Caller frees. */
char *engine_subject(const struct campaign *c, int year, const char *what);

/* Renders and queues one mail; *body_out (if not NULL) gets the rendered
 * text. The subject is r->subject in the campaign's scheme (engine_subject).
 * A string "correction_preface" in the data is put before the
 * rendered text (a mail sent again as a correction says so first).
 * Returns 0, or -1 with *errstr on a database, template or compose error.
 * Inside the caller's transaction.
 * The invariant that no secret is echoed is enforced here: a mail whose
 * subject, text or HTML contains one of e->secrets is a bug. It is logged
 * as an error and the secret is masked before the mail is queued; with the
 * environment variable CAMPAIGND_SECRET_LEAK_ABORT set (the test suite sets
 * it for every test) the process aborts instead, so a test that makes the
 * engine echo a password fails loudly. */
int engine_queue_mail(struct engine *e, const struct reply *r, const struct campaign *c,
		      int64_t now, char **body_out, char **errstr);
/* Whether what is sent to `addr` now is copied to a stand-in (the
 * address of a player whose stand-in stands in). Returns 0, or -1. */
int engine_stand_in_copies(struct engine *e, const struct campaign *c, const char *addr,
			   int64_t now, bool *copied, char **errstr);

/* The line that heads each mail merged after the first into one (a rule,
 * then that mail's subject): the year's mails (engine_year_mail.c), the
 * reply with the year's mails its mail caused (engine_fold.c). */
#define MERGED_RULE "------------------------------------------------------------------------"

/* ---- engine_told.c: what one part of a joined mail already tells ---- */

/* An organiser's note (its data, "next" from engine_awaiting_json) in a
 * mail whose "Your turn" says whose turn it is: its "What happens next"
 * leaves that out, and when the turn asks (`told` "asks", not "under_way")
 * what is asked and the deadline too; nothing left, none at all. */
void engine_next_told(json_t *note, const char *told);
/* The note on a movement order the reply's own mail carried out: what came
 * of it is told below under `heading`, or (NULL) in the year's mail on his
 * turn. Caller frees. */
char *engine_move_done_text(const char *heading);
/* The heading of the part of a mail (the data it was made with, its
 * "turns_told") that tells what came of the move of `player`, or NULL. */
const char *engine_turn_told(const json_t *part, const char *player);
/* The reply's lines of movement orders its mail carried out ("move_done")
 * say what came of them is below, under `heading`. */
void engine_moves_told_below(json_t *ack, const char *heading);

/* ---- engine_fold.c: one mail a person at one moment ---- */

/* From engine_fold_begin to engine_fold_end (one mail processed), the
 * year's mails are held, not queued: engine_fold_hold takes a copy of one
 * (true; false when not folding, or for a secret or a reply, which go as
 * they are), `rank` choosing the lead among one person's. */
void engine_fold_begin(struct engine *e, int64_t now);
bool engine_fold_hold(struct engine *e, const struct reply *r, int rank);
/* A part's "Corrected:" preface as it reads under another mail's text:
 * "Corrected: \"HEADING\" below replaces the one sent on ..." (engine_fold.c). */
struct strbuf;
void engine_part_preface(struct strbuf *pre, const char *p, const char *heading);
/* The lines that differ between `was` (a mail as sent) and `now` (made
 * again), added to sb: each replaced line as a pair ("  was: ..." then
 * "  now: ..."), in the order of `now`, then the lines that are gone; lines
 * of `also` (orders the player was told of since) are not news. At most a
 * dozen, then "... and N more lines". Returns how many lines differ
 * (engine_changes.c). */
size_t engine_changed_lines(struct strbuf *sb, const char *was, const char *now,
			    const char *also);
/* The text part of a mail we composed (quoted-printable, format=flowed),
 * decoded as the reader reads it; NULL if it has none. New string
 * (engine_changes.c). */
char *engine_sent_text(const char *raw);
/* A part's heading under another mail: "Subject", or "Subject (YEAR)" when
 * its year is not the lead's. Caller frees. */
char *engine_part_heading(const char *subject, int year, int lead_year);
/* Queues the reply r (engine_queue_mail) with the mails held for its
 * recipient after its text, each under its subject, their places in the
 * year added to its Message-ID; a secret one goes alone. In a group of
 * mails it is held instead (below). */
int engine_fold_reply(struct engine *e, const struct reply *r, const struct campaign *c,
		      int64_t now, char **body_out, char **errstr);
/* The organiser's answer to his ORGANISER mail (r, a secret): as
 * engine_fold_reply, it leads the year's mails held for his address (what
 * his orders caused, his own as a player), so that he gets one mail,
 * which is then no secret (no password is in any of it) and never copied
 * to a stand-in; alone it goes as it is. When his address gets a
 * stand-in's copies (he plays a nation whose stand-in stands in), it goes
 * alone, and the stand-in keeps his copy of the rest. */
int engine_fold_organiser_reply(struct engine *e, const struct reply *r,
				const struct campaign *c, int64_t now, char **body_out,
				char **errstr);
/* Queues the mails still held, one for each person (the held mail that
 * ranks first leads). Returns 0, or -1 with *errstr. */
int engine_fold_flush(struct engine *e, char **errstr);
/* Drops what is held and stops holding. */
void engine_fold_end(struct engine *e);
/* Held for a group of mails (engine_batch_begin to its commit): what each
 * mail causes (engine_fold_hold) and the reply to it (engine_fold_reply,
 * which then gives *body_out the reply's own text) are held between
 * engine_fold_mail_begin (true when `grouped` and the group holds them)
 * and engine_fold_mail_end, which drops them unless `kept` (its savepoint
 * released; all is dropped when the whole group was rolled back);
 * engine_fold_flush queues all of them before the commit, one mail a
 * person: each reply with the year's mails that follow it. */
void engine_fold_batch_begin(struct engine *e);
bool engine_fold_mail_begin(struct engine *e, bool grouped, int64_t now);
void engine_fold_mail_end(struct engine *e, bool kept);

/* The secrets of the mail being processed (outbox.c): engine_secret_add
 * keeps a copy of one (shorter than ORDERS_PASSWORD_MIN: ignored, it is
 * no one's password); engine_secrets_mask replaces each in *s by a mask and
 * says whether there was one; engine_secrets_clear wipes and forgets them. */
void engine_secret_add(struct engine *e, const char *secret);
bool engine_secrets_mask(struct engine *e, char **s);
void engine_secrets_clear(struct engine *e);

/* ---- guard.c: limits that cannot be turned against a player ---- */

/* Rejections go to a registered address whatever the sender claimed to be.
 * Each origin (the From address and the Message-ID's domain) may cause
 * GUARD_REJECTIONS_PER_ORIGIN an hour and all origins together
 * GUARD_REJECTIONS_PER_ADDRESS an hour; when those are used up, a mail whose
 * From is the registered address itself is still answered once a day. So a
 * forger pesters a player little and cannot use up the player's own
 * answers (unless they copy both the address and the mail provider). */
#define GUARD_REJECTIONS_PER_ORIGIN 3
#define GUARD_REJECTIONS_PER_ADDRESS 6

/* One more reply to addr this hour within the per-address budget (counted). */
bool guard_reply_allowed(struct engine *e, const char *addr, int64_t now, char **errstr);
/* Counts one rejection to to_addr for the mail described by info, if the
 * limits allow it (*allowed). Returns 0, or -1 with *errstr on a database
 * error. Inside the mail's transaction. */
int guard_reject_allowed(struct engine *e, const char *to_addr, const struct mail_info *info,
			 int64_t now, bool *allowed, char **errstr);

/* Wrong passwords, counted per player (or STORE_ORGANISER) and per class:
 * `own` is mail whose From is the registered address, the rest is another
 * class, so a guesser writing from elsewhere never slows the player down.
 * GUARD_FREE_ATTEMPTS wrong passwords in a row are free; each further one
 * makes the class wait GUARD_FIRST_DELAY, doubled each time, at most
 * GUARD_MAX_DELAY, before a password of that class is checked again (a mail
 * meanwhile is refused unread, with a reply saying until when). At the
 * GUARD_FREE_ATTEMPTS-th the organiser is mailed, once per run; a right
 * password ends the run. */
#define GUARD_FREE_ATTEMPTS 5
#define GUARD_FIRST_DELAY 60
#define GUARD_MAX_DELAY 86400

/* *until is when the class may try again, or 0 if it may now. */
int guard_password_wait(struct engine *e, const char *who, bool own, int64_t now,
			int64_t *until, char **errstr);
/* Records a wrong password from sender (the From address, may be NULL). */
int guard_password_wrong(struct engine *e, const struct campaign *c, const char *who, bool own,
			 const char *sender, int64_t now, char **errstr);
/* Records a right password: the run of wrong ones is over. */
int guard_password_right(struct engine *e, const char *who, bool own, char **errstr);

/* After a player's orders were stored (inside the mail's transaction):
 * battle result lines go to the battle waiting for them, and the year moves
 * on with the new orders. *note (allocated, or NULL) is a sentence for the
 * acknowledgement (e.g. why a report was refused); *refused tells whether
 * the mail's battle result lines were not used, *for_errors whether that
 * was for the mail's lines in error (a battle was waiting for them).
 * Returns 0, or -1 with *errstr on a database error. */
int engine_year_after_orders(struct engine *e, int player, const struct order_set *set,
			     int64_t now, char **note, bool *refused, bool *for_errors,
			     char **errstr);
/* Before a player's orders are merged: movement orders for a turn of his
 * that is over are marked in error saying so (year_orders_too_late);
 * *turn_over tells whether it is (his movement order, carried out, is no
 * current order any more). Returns 0, or -1 with *errstr on a database
 * error. */
int engine_year_orders_too_late(struct engine *e, const struct campaign *c, int player,
				struct order_set *set, bool *turn_over, char **errstr);

/* engine_whats_next inside the caller's transaction (engine_year_org.c);
 * player is an index or -1. */
int engine_whats_next_in(struct engine *e, int player, int64_t now, json_t **out,
			 char **errstr);

/* The organiser orders of an authenticated ORGANISER mail (inside its
 * transaction): each is carried out in turn; *report (allocated) says what
 * was done or refused, for the answer to the organiser. Returns 0, or -1
 * with *errstr on a database error. */
int engine_year_organiser_mail(struct engine *e, const struct order_set *set, int64_t now,
			       char **report, char **errstr);

/* ---- stand_in.c: a player's stand-in (rulebook 1.1) ---- */

/* Whether the stand-in lasts at now: not ended, the date not reached. */
bool engine_stand_in_lasts(const struct store_stand_in *si, int64_t now);
/* "Name <address>" or the address. Caller frees. */
char *engine_stand_in_who(const struct store_stand_in *si);
/* In a player's mail (acting NULL) or his stand-in's (acting: the stand-in):
 * the player's own orders end a stand-in that lasts (the stand-in is told);
 * STAND-IN lines name one (the invitation with his password mailed to him
 * alone) or end one; lines refused (a bad address or date, a stand-in
 * naming another, a stand-in's PASSWORD) are marked in error with why.
 * *note (allocated or NULL) says what was done, for the acknowledgement.
 * Inside the mail's transaction. Returns 0, or -1 with *errstr. */
int engine_stand_in_mail(struct engine *e, const struct campaign *c, int player,
			 const struct store_stand_in *acting, struct order_set *set, int64_t now,
			 char **note, char **errstr);
/* The acknowledgement of the stand-in's orders: "stand_in_acting",
 * "stand_in_who", "stand_in_until" set in data. */
void engine_stand_in_ack_data(json_t *data, const struct store_stand_in *si,
			      const struct campaign *c);
/* That acknowledgement (ack, sent to the stand-in) sent to the player too,
 * with "to_player" set. Returns 0, or -1 with *errstr. */
int engine_stand_in_ack_player(struct engine *e, const struct campaign *c, int player,
			       const struct reply *ack, int64_t now, char **errstr);
/* Why a stand-in whose stand-in has ended cannot give orders: a sentence
 * for the rejection. Caller frees. */
char *engine_stand_in_ended_reason(const struct store_stand_in *si, const struct campaign *c);
/* A STAND-IN line of the organiser's mail (the player in o->target):
 * named or ended as by campaignctl stand-in; *report says what was done or
 * why not. Inside the mail's transaction. Returns 0, or -1 with *errstr. */
int engine_stand_in_organiser_line(struct engine *e, const struct order *o, int64_t now,
				   char **report, char **errstr);
/* The nation of player is handed to a new player (replaced) or left:
 * his stand-in, if one lasts, ends and is told (the player is not). What
 * was done in *report (NULL if none lasted). Returns 0, or -1 with *errstr. */
int engine_stand_in_end_nation_changes(struct engine *e, const struct campaign *c, int player,
				       bool replaced, int64_t now, char **report, char **errstr);
/* The stand-in's orders in the diary ("stand_in" event), once a year for
 * each stand-in, when the mail holds orders. Returns 0, or -1. */
int engine_stand_in_diary(struct engine *e, const struct campaign *c, int player,
			  const struct store_stand_in *acting, const struct order_set *set,
			  int64_t now, char **errstr);

#endif
