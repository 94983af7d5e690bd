/* Private to the engine's year files (engine_year*.c): the context of one
 * use of the year's state machine, opened and saved inside a transaction.
 * Calls go engine.c -> engine_year_org.c, engine_year_clock.c ->
 * engine_year.c -> engine_year_mail.c -> outbox.c. Not a contract for
 * anyone else. */
#ifndef CAMPAIGN_ENGINE_YEAR_P_H
#define CAMPAIGN_ENGINE_YEAR_P_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "dbm/year.h"
#include "engine/engine_p.h"
#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "store/store.h"

#define KV_MASTER_SEED "dice-master-seed"
#define KV_LAST_RUN "daemon-last-run"
#define KV_MAIL_SEQ "year-mail-seq"
/* The mails an undo or a correction may send again: {"after", "upto": the
 * outbox ids they lie between, "since": where the latest rewind's own
 * mails begin ("after" may be wider, kept from an earlier undo), "why",
 * "used": ids already answered} */
#define KV_CORRECTION "year-correction"
#define WHY_MAX 512

struct held;        /* engine_year_mail.c */
struct engine_maps; /* maps_p.h */

struct overlay {
	int player, year, phase;
	char *text;
};

/* One use of the state machine. */
struct yctx {
	struct engine *e;
	struct campaign *c;
	struct year_state st;
	struct dice_hmac dice;
	struct store_dice_year dy; /* the row of the dice in use */
	bool have_dice;
	struct event_log log;
	size_t stored;             /* log events already in the store */
	struct year_io io;
	struct year_run run;
	size_t mails_done;         /* mail requests already queued */
	int64_t now;
	char *err;                 /* the first failure met in a callback */
	bool dry;                  /* a preview: writes nothing */
	unsigned long mail_seq;
	char tag[17];              /* names the campaign in Message-IDs */
	struct overlay *overlay;   /* dry: orders carried over, in memory */
	size_t n_overlay, cap_overlay;
	json_t *correction;        /* KV_CORRECTION once read (json null: none) */
	struct held *held;         /* the mails made, not yet queued (yctx_mail_out) */
	size_t n_held, cap_held;
	struct engine_maps **maps; /* the maps they carry */
	size_t n_maps, cap_maps;
};

/* Keeps the first failure met (allocated `err`, or NULL for "failed"). */
static inline void set_err(struct yctx *y, char *err)
{
	if (!y->err)
		y->err = err ? err : xstrdup("failed");
	else
		free(err);
}

/* engine_year.c: the context. */
/* Inside a transaction: the campaign, the year state and the dice. A
 * preview (`dry`) writes nothing and throws its own dice. */
int yctx_open(struct yctx *y, struct engine *e, int64_t now, bool dry, char **errstr);
/* Stores everything: events, mail, the campaign, the year, the dice. */
int yctx_save(struct yctx *y, char **errstr);
void yctx_free(struct yctx *y);
/* The year's checkpoint: a snapshot of the state before the step `step`. */
void yctx_checkpoint(void *ctx, const char *step);
/* Logs and announces an organiser action to every player. */
void yctx_announce(struct yctx *y, const char *action, const char *detail);
/* The year's step, deadline and who is awaited, for the organiser. */
char *yctx_status_text(struct yctx *y);
/* Runs fn in a write transaction. fn returns 0 (commit), 1 (refused: roll
 * back, *report says why) or -1 (error). */
int engine_year_transaction(struct engine *e,
			    int (*fn)(struct engine *, void *, char **, char **), void *arg,
			    char **report, char **errstr);

/* engine_year_preview.c: what a PREVIEW says. */
/* Before the step is processed: each active nation's sentence for when
 * none of the step's events names it; NULL when the step has none. */
json_t *engine_preview_before(struct yctx *y);
/* After it was processed (dry): what happened, in the words of the turn
 * reports, the nations left out (`before`), and the mails as they would
 * leave (a subject of another year than `year`, the step's, says its
 * year); or all of it as JSON. Appended to `out`. */
void engine_preview_report(struct yctx *y, const char *step, int year, bool as_json,
			   const json_t *before, struct strbuf *out);

/* engine_join.c: the invitation (campaignctl invite, add-player). */
/* Sets a new password for `player` and queues his invitation, a secret
 * mail with the password, the campaign in brief and `maps`. Returns 0, or
 * -1 (y->err). */
int yctx_invite(struct yctx *y, int player, const struct engine_maps *maps);

/* engine_awaiting.c: what happens next (pure: reads `st` and, through io,
 * the pending orders). For `player` (-1: no one in particular), template
 * data: "step", "year"; "not_started" or "ended"; "sequence" [{position,
 * player, nation, current, done, you}], "turn_nation"; "awaited" (keys),
 * "awaited_nations" ("France and Savoy"); "paused"; "deadline" (in the
 * campaign's time zone), "deadline_epoch"; for a player "you_awaited",
 * "awaited_for" ("your movement orders (...)"), "your_position"; and ready
 * sentences "now_text", "deadline_text", "you_text", "place_text". New
 * reference. Public form: engine_whats_next (engine.h). */
json_t *engine_awaiting_json(const struct campaign *c, const struct year_state *st,
			     const struct year_io *io, int player);
/* The ending of an ordinal: "st" (1st), "nd", "rd", "th" (11th). */
const char *ordinal_suffix(size_t n);

/* engine_year_mail.c: the mail out. */
/* The fields every mail of the campaign has, for `player` (NO_INDEX: the
 * organiser). New reference. */
json_t *yctx_base_data(struct yctx *y, int player);
/* engine_year_correct.c: while an undo's corrections are open, pairs a
 * mail made again (its `slot`, to `addr`) with the one sent before: sets
 * `skip` when the player's text is the same, else `preface` to what
 * changed (was / now) and why. 0, or -1 on a store error. */
int yctx_correction_of(struct yctx *y, const char *slot, const char *addr, const char *tpl,
		       json_t *data, const char *body_check, const char *section, bool *skip,
		       char **preface);
/* Stores the new events and renders the new mail requests for each
 * recipient (held in y until yctx_mail_out). Returns 0, or -1 once a
 * failure was met (y->err). */
int yctx_flush(struct yctx *y);
/* Queues the mails held: what one person is told by one use of the year
 * (one step, one organiser action) leaves as one mail, led by what he must
 * act on ("Your turn"), the others after it under their own subjects. */
int yctx_mail_out(struct yctx *y);
/* The mails held as yctx_mail_out would send them (for a preview): one a
 * person, [{"address", "subject", "template", "parts" [{"subject",
 * "template"}]}], the lead's subject with its year when that is not
 * `year`, each part's heading as the mail has it (with its year when that
 * is not the lead's). New reference. */
json_t *yctx_mails_held_json(struct yctx *y, int year);
/* The machine is about to resolve the step `step` names (a checkpoint):
 * the mails held that asked for it (the mover's "Your turn", the
 * recruitment, the vote, a decision, a battle report, reminders) no longer
 * ask; yctx_mail_out neither leads with them nor lets them ask. A change
 * between steps (another name) closes nothing. */
void yctx_asks_over(struct yctx *y, const char *step);
/* Drops the mails held (a refused action; yctx_free does it too). */
void yctx_held_free(struct yctx *y);
/* After an undo or a correction went back to a snapshot taken when the
 * outbox went up to `after`: the year's mails sent since may be sent again.
 * Each one made again is compared with the one it replaces: the same text
 * is not sent twice, a changed one says "Corrected:" in its Subject and
 * first lines, with `why` and what changed. Returns 0, or -1 with *errstr. */
int engine_correction_open(struct engine *e, int64_t after, const char *why, char **errstr);
/* In the data of an organiser's note that takes steps back (an undo, a
 * battle result corrected), the mails `addr` received about those steps:
 * "void_mails" [{subject (without the tag), parts [{name, last}] (the
 * headings of the mails merged into it), has_parts, sent, your_turn}],
 * "has_void_mails" and "void_your_turn" (engine_void.c). */
void engine_void_note(struct engine *e, const struct campaign *c, json_t *data,
		      const char *addr);

#endif
