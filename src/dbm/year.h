/* The campaign year run by mail: a state machine over the rules. Pure: no
 * SQL, no clock, no mail. Given the campaign, the year's persisted state,
 * the players' pending orders (read through callbacks), the dice and the
 * time `now`, it decides what happens next: which rules to call, which
 * decisions to ask, which mails to send (as requests the caller renders and
 * queues) and when the next deadline falls. doc/rules.md, "Running the year
 * by mail", states every default and timing rule.
 *
 * The steps of a year, each with one deadline:
 *   TURN         the movement option of sequence[turn] (orders sent in
 *                advance count; at the deadline: standing orders, else NO MOVE)
 *   DECISION     a move waits for other players: passage and supply
 *                permissions before it, or the defender's answer after it
 *   BATTLE       the two sides' result reports (or the organiser's decision)
 *   RECRUITMENT  every player at once
 *   VOTE         the continue vote when the campaign-end roll made 2
 *   ENDED        the campaign is over
 * A step is "resolved" when what it waits for is in or its deadline passed;
 * before each resolution the caller's checkpoint callback runs, so that the
 * state before it can be kept (undo) and everything before it is stored. */
#ifndef CAMPAIGN_YEAR_H
#define CAMPAIGN_YEAR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "dbm/orders.h"

enum year_step {
	YEAR_IDLE,        /* the campaign has not been started */
	YEAR_TURN,
	YEAR_DECISION,
	YEAR_BATTLE,
	YEAR_RECRUITMENT,
	YEAR_VOTE,
	YEAR_ENDED,
};

/* The persisted state of the year (year_state_to_json / _from_json). */
struct year_state {
	enum year_step step;
	int *sequence;          /* players in the order of play (indices) */
	size_t sequence_len;
	size_t turn;            /* index in sequence of the current turn */
	int sequence_year;      /* the year `sequence` was rolled for when it was
				 * rolled ahead (at the end of the year before,
				 * rules 1.4); 0 when it is the current year's */
	int64_t deadline;       /* when the step's deadline falls; 0 = none (the
				 * step waits for the organiser) */
	unsigned reminders_sent; /* bit i: settings.reminder_hours[i] was sent */
	bool paused;            /* the organiser stopped the clock */
	int64_t paused_left;    /* seconds that were left when paused */
	int resolutions;        /* steps resolved so far, for names and tokens */
	json_t *pending;        /* DECISION and BATTLE: what is being resolved and
				 * what is awaited (doc/rules.md); else NULL */
	json_t *turn_events;    /* the events of the current turn (array) */
};

void year_state_init(struct year_state *st);
void year_state_free(struct year_state *st);
/* The state as JSON (players by key). New reference. */
json_t *year_state_to_json(const struct year_state *st, const struct campaign *c);
/* Reads a state written by year_state_to_json into `st` (initialised here).
 * Returns 0, or -1 with *errstr (allocated) naming what is wrong. */
int year_state_from_json(struct year_state *st, const json_t *doc, const struct campaign *c,
			 char **errstr);

/* What the caller gives the state machine: all borrowed, all called inside
 * the caller's transaction. */
struct year_io {
	void *ctx;
	/* The stored pending orders of a player for (year, phase), as text, or
	 * NULL if none. The caller of year.c frees the result. */
	char *(*orders_load)(void *ctx, int player, int year, int phase);
	/* Replaces them (carrying standing orders over to a new phase). */
	void (*orders_save)(void *ctx, int player, int year, int phase, const char *text);
	/* Every event of `year` stored so far plus those not yet stored
	 * (new reference, an array). */
	json_t *(*year_events)(void *ctx, int year);
	/* Called before each resolution with the step's name. */
	void (*checkpoint)(void *ctx, const char *step);
	/* A new year begins: the caller sets the dice up for it and returns the
	 * commitment to its seed (hex, borrowed until the next call). */
	const char *(*new_year_dice)(void *ctx, int year);
	/* The year is over: its seed may be revealed. */
	void (*reveal_dice)(void *ctx, int year);
	/* Optional (NULL in the daemon). A fixed sequence of play for `year`
	 * (campaignctl simulate's "sequence ="): fills `order` (room for every
	 * player) and returns its length; 0: the sequence is rolled. Called
	 * where the sequence would be rolled: for the first year when play
	 * starts, for the next at the end of the year before, once its
	 * campaign phase may begin (phase_may_begin). */
	size_t (*fixed_sequence)(void *ctx, int year, int *order);
	/* Optional (NULL in the daemon: always). May the phase (year, phase)
	 * begin now? A script that ends (campaignctl simulate) says no after
	 * its last phase: the machine then stops before that phase begins,
	 * paused for good. */
	bool (*phase_may_begin)(void *ctx, int year, int phase);
};

/* One run of the machine. */
struct year_run {
	struct campaign *c;
	struct year_state *st;
	struct dice *dice;
	struct event_log *log;  /* new events are appended */
	int64_t now;
	const struct year_io *io;
	/* Out: mail requests, each {"template", "subject", "to": [player keys]
	 * or "all" (every active player), "organiser": bool (a copy to the
	 * organiser), "step": the resolutions so far and "nth": how many like
	 * requests this run made before (where in the year the mail is made,
	 * for corrections after an undo), "data": {...}, optionally "year": the year the subject
	 * names when it is not the campaign's current one}. The caller adds the recipient's own
	 * fields (nation, player, player_name) and the campaign's. A request
	 * with template "diary" carries "diary_year" for the caller to fill. */
	json_t *mails;
	size_t turn_mark;       /* private: log events already in turn_events */
	size_t told_mark;       /* private: log events already told (relations) */
};

/* Sets up a run (mails = a new empty array, turn_mark = log->count). */
void year_run_init(struct year_run *r, struct campaign *c, struct year_state *st,
		   struct dice *d, struct event_log *log, int64_t now, const struct year_io *io);
/* Drops the mail requests. */
void year_run_free(struct year_run *r);

/* The organiser starts the campaign: year c->year's campaign phase begins
 * (orders sent before the start are carried over), the sequence of play is
 * rolled and announced (each player his place, the organiser the list; a
 * later year's is rolled at the end of the year before and announced when
 * the year begins, right after the diary), and the first turn starts (or is resolved at once if
 * its orders are in). Returns 0, or -1 with a reason if already started. */
int year_start(struct year_run *r, char *why, size_t why_size);

/* Does what is due at r->now: reminders, and every step whose awaited orders
 * are in or whose deadline passed, until the machine waits. Nothing while
 * paused. */
void year_advance(struct year_run *r);

/* A player's mail with `set` (parsed and validated) was stored: what acts
 * on receipt does. TRIBUTARY OF tells the overlord asked (template
 * "relations"); LEAVE CAMPAIGN REPLACEMENT asks the organiser (the order
 * is then dropped: the organiser runs replace-player). The rest acts at
 * the next step boundary (year_advance): ACCEPT TRIBUTARY with the
 * matching request, LEAVE CAMPAIGN without replacement, RECALL
 * CONTINGENTS; RENOUNCE at the end of the recruitment phase. Returns a
 * sentence for the acknowledgement saying when each takes effect
 * (allocated), or NULL when the mail holds none of them; the relations
 * settled at that boundary are year_relations_settled's. */
char *year_orders_received(struct year_run *r, int player, const struct order_set *set);
/* After year_orders_received and the step it led to (year_advance): what
 * became of the mail's ALLY WITH that the other side had declared too, END
 * ALLIANCE and ACCEPT TRIBUTARY. Done in this run: said to be done, "as
 * told below" (the relations mail everyone gets goes with the reply); not
 * yet: when it takes effect. A sentence (allocated), or NULL when the mail
 * holds none of them. */
char *year_relations_settled(struct year_run *r, int player, const struct order_set *set);

/* True when the player's turn of this year's campaign phase is over or
 * under way (his movement order was taken up): his movement order is no
 * longer a current order. */
bool year_turn_is_over(const struct year_state *st, const struct campaign *c, int player);
/* A mail's movement orders from a player whose turn of this year's
 * campaign phase is over (or under way: his move is being carried out)
 * come for a turn that is over: each is marked ORDER_ERROR saying so (not
 * used, not kept). So are INVADE and MOVE from a player who took the Ally
 * option this year (a contingent sent on call). A recruitment order in
 * error in the campaign phase says the recruitment phase is over. Returns
 * how many movement orders were marked. */
size_t year_orders_too_late(const struct year_state *st, const struct campaign *c, int player,
			    struct order_set *set);

/* A battle report by `player`, or the organiser's decision when `organiser`:
 * the battle lines of `set` (parsed against r->c). Two agreeing reports, or
 * the organiser's, apply the result; two that differ make a dispute the
 * organiser settles. Returns 0 (recorded), or -1 with a reason (no battle
 * waiting there, not a side of it, a result the rules refuse). */
int year_battle_report(struct year_run *r, int player, bool organiser,
		       const struct order_set *set, char *why, size_t why_size);
/* True if the set holds battle result lines. */
bool year_set_has_battle_lines(const struct order_set *set);
/* The result of `set` for the battle waiting for its result as it would be
 * recorded: spelt out (the winner, each force's elements destroyed, fled and
 * demoralised with their AP, generals killed), then the lines as they are
 * recorded and compared (one fact a line, sorted, the winner named); NULL if
 * no battle waits or the set has no line for it. */
char *year_battle_report_text(const struct year_run *r, const struct order_set *set);
/* year_passage.c: the reply to a player's ALLOW/DENY PASSAGE or SUPPLY
 * (in `set`) that answers the permission the year waited for (`before`:
 * the pending decision when his mail came, a copy): what it causes, once
 * the year went on with it (`st`): the move still waits for other
 * answers, or what came of it follows. NULL when the mail answers no such
 * question. Caller frees. */
char *year_permission_answer_note(const struct campaign *c, const json_t *before,
				  const struct year_state *st, int player,
				  const struct order_set *set);

/* The name of the current step ("turn-burgundy", "decision-england",
 * "battle-flanders", "recruitment", "vote", "start", "ended") into buf. */
const char *year_step_name(const struct year_state *st, const struct campaign *c, char *buf,
			   size_t size);
/* A step name as year_step_name writes it, in words for mails: "England's
 * turn", "France's answer", "the battle at Normandy", "the recruitment". */
const char *year_step_words(const struct campaign *c, const char *name, char *buf, size_t size);
/* True if `name` (as typed: case, accents and dashes do not matter) names the
 * current step. */
bool year_step_is(const struct year_state *st, const struct campaign *c, const char *name);
/* Every player's position, for the mails (the year's and STATUS): keys
 * "player", "nation", "status", "active", "location", "field_ap",
 * "provinces", "provinces_text", "prestige", and "line": the whole of it
 * as the list "Where everyone stands" prints it after two spaces, cut by
 * year_position_wrap. New reference. */
json_t *year_positions_json(const struct campaign *c);
/* A line of such a list (after two spaces) that would pass 72 columns,
 * cut after its last comma within them, the rest on the next line
 * indented by four ("..., 4 provinces,\n    150 prestige"): a reader's
 * client would otherwise wrap it at the margin. Caller frees. */
char *year_position_wrap(const char *text);
/* A sentence saying what the current step waits for. Caller frees. */
char *year_step_describe(const struct year_state *st, const struct campaign *c);
/* The same for one reader, who reads "you" and "your" where the sentence
 * names him (reader: a player's index, or NO_INDEX for nobody's view). */
char *year_step_describe_for(const struct year_state *st, const struct campaign *c, int reader);
/* The players the current step still waits for: keys into a new array. */
json_t *year_awaited(const struct year_state *st, const struct campaign *c,
		     const struct year_io *io);

/* After an undo that took the year back before its recruitment was over:
 * the recruitment lines a player sent after it had closed (the reply said
 * they were kept for the next recruitment; they were stored for the next
 * year's campaign phase) count for this year's again. They are moved into
 * the orders of the phase the year is in, replacing the recruitment sent
 * for it as a whole; in an open recruitment phase they are counted again
 * against the campaign as it stands (rules 3.1), and the player is mailed
 * at once what now counts and what cannot (template "late-recruitment").
 * Each move is a "recruitment_back" event. */
void year_late_recruitment_back(struct year_run *r);

/* Organiser controls. Each returns 0, or -1 with a reason. */
/* Moves the deadline: by `seconds` (relative) or to now + seconds. */
int year_set_deadline(struct year_run *r, int64_t seconds, bool relative, char *why,
		      size_t why_size);
int year_pause(struct year_run *r, char *why, size_t why_size);
int year_resume(struct year_run *r, char *why, size_t why_size);
/* The normal length of the current step (seconds): the deadline it gets
 * when it opens (0 for none, before the start or after the end). */
int64_t year_step_length(const struct year_state *st, const struct campaign *c);
/* Resolves the current step now, as if its deadline had passed, if `name`
 * names it; then advances. A battle without a report cannot be processed
 * (it needs a result). */
int year_process(struct year_run *r, const char *name, char *why, size_t why_size);
/* Our own downtime: the deadline passed while we were not running. Moves it
 * to now + grace and tells the players (template "grace"). */
void year_grant_grace(struct year_run *r, int64_t last_run, const char *reason);

/* Deadline (epoch seconds) as "2026-11-30 10:00 UTC" into buf. */
const char *year_format_time(int64_t t, char *buf, size_t size);
/* A time left as "2 days 3 hours", "5 hours 20 minutes" or "40 minutes"
 * (rounded up to the minute) into buf. */
const char *year_format_duration(int64_t seconds, char *buf, size_t size);
/* Events decorated for templates: "k_<kind>": true, "<field>_nation" for
 * player keys, and "<name>_ap" (AP as text) for "<name>_half_ap" fields
 * ("ap" for "half_ap"); the sequence of play's dice are left out. New
 * reference. */
json_t *year_events_for_mail(const struct campaign *c, const json_t *events);
/* dice_words.c: a die's label (the `purpose` it was rolled with, the
 * HMAC's message) in words, nations by name: "siege burgundy Liège" is
 * "the siege of Liège by Burgundy". Caller frees. */
char *year_roll_words(const struct campaign *c, const char *purpose);

#endif
