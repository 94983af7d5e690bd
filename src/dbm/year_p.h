/* Private to the year's files (year.c and year_*.c): the helpers they share
 * and the step handlers the state machine in year.c drives. Not a contract
 * for anyone outside the year; year.h is. The direction of calls is
 * year_control.c -> year.c -> year_turn.c, year_battle.c, year_between.c,
 * year_recruit.c -> year_common.c: a handler never starts the next step
 * itself, it returns and year.c moves on. */
#ifndef CAMPAIGN_YEAR_P_H
#define CAMPAIGN_YEAR_P_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dbm/orders.h"
#include "dbm/year.h"
#include "model/model.h"

#define HOUR 3600

/* ---------------------------------------------------------------- small helpers */

static inline const char *pkey(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->player_count ? c->players[p].key : "nobody";
}

static inline const char *pnation(const struct campaign *c, int p)
{
	if (p < 0 || (size_t)p >= c->player_count)
		return "nobody";
	return c->players[p].nation ? c->players[p].nation : c->players[p].key;
}

static inline const char *prov_name(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->province_count ? c->provinces[p].name : "nowhere";
}

static inline int find_province(const struct campaign *c, const char *name)
{
	return name ? campaign_find_province(c, name) : NO_INDEX;
}

static inline int find_player(const struct campaign *c, const char *key)
{
	return key ? campaign_find_player(c, key) : NO_INDEX;
}

static inline const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static inline int jint(const json_t *o, const char *k, int dflt)
{
	const json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static inline bool active(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->player_count && c->players[p].status == PLAYER_ACTIVE;
}

/* Writes a reason into why (if not NULL). */
void year_say(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- tributaries on call (year_tributary.c) */

/* Rules 3.2: who sends the contingent a tributary owes its overlord, and on
 * whose order (the overlord, or the tributary itself for a substitute). */
struct tributary_call {
	int sender, orderer;
};
/* True when `side` has a standing CONTINGENT FOR `ally`, its direct
 * tributary; *call says who sends: `ally`, or the tributary of `ally` its
 * standing CONTINGENT FROM ... FOR side names. */
bool year_tributary_called(struct year_run *r, int ally, int side, struct tributary_call *call);
/* The contingent sent when the sender chose none (silence, ANSWER ALLIES
 * NO): the troops the order named, else rules_contingent_default; as a
 * CONTINGENT FOR side order in *out (order_free it). False when none can
 * be made. */
bool year_tributary_default(struct year_run *r, const struct tributary_call *call, int side,
			    struct order *out);
/* Those troops in words ("1 Captain, 4 Spearmen"). Caller frees. */
char *year_tributary_default_text(struct year_run *r, const struct tributary_call *call,
				  int side);
/* True while `player` is asked, in the current decision, for a contingent
 * he was ordered to send (he cannot refuse). */
bool year_tributary_ordered(const struct year_state *st, const struct campaign *c, int player);
/* A CONTINGENT FROM order was received from `player`: the tributary it
 * names is mailed what it must do (template "relations"). */
void year_tributary_order_received(struct year_run *r, int player, const struct order *o);
/* ---------------------------------------------------------------- allies solicited (year_solicit.c) */

/* True when the pending decision is a call for allies before committing
 * (kinds "solicit" and "commit"). */
bool year_solicit_kind(const json_t *pending);
/* The mover's ASK ALLIES: the decision "solicit" opens, the players
 * named are mailed. */
void year_solicit_begin(struct year_run *r, int mover, const struct order *o);
/* Has `asked` answered the pending "solicit" (CONTINGENT FOR the mover or
 * ANSWER ALLIES NO) or "commit" (the mover's movement order or CALL OFF)? */
bool year_solicit_answered_by(struct year_run *r, int asked);
/* The decision `pd` is resolved: "solicit" goes on to "commit" (the mover
 * mailed the answers); "commit" gives the turn back to the mover (going
 * on: the turn step carries out his order; calling off: reopened). */
void year_solicit_resolve(struct year_run *r, const json_t *pd);

/* A NO CONTINGENT FROM order was received from `player`: the tributary it
 * names (if still in play) is mailed that it is no longer called. */
void year_tributary_order_withdrawn(struct year_run *r, int player, const struct order *o);

/* ---------------------------------------------------------------- runs, mails (year_common.c) */

/* Queues a mail request; `to` is a player index, or NO_INDEX for everyone.
 * Steals `data`. */
void year_mail(struct year_run *r, const char *tpl, int to, bool organiser_copy, json_t *data,
	       const char *subject_fmt, ...) __attribute__((format(printf, 6, 7)));
void year_mail_organiser(struct year_run *r, const char *tpl, json_t *data, const char *subject);
/* Appends the log's events not yet in turn_events. */
void year_sync_turn_events(struct year_run *r);
/* year_events.c: the decorated events as a report tells them, each thing
 * once (a cause and the loss it caused, a battle and its prestige and
 * decision, a retreat and its march, in one line). Steals `events`; new
 * reference. */
json_t *year_events_say_once(json_t *events);
/* {"deadline", "deadline_epoch"} of the current step. New reference. */
json_t *year_deadline_data(const struct year_run *r);
void year_set_deadline_hours(struct year_run *r, int hours);
/* The deadline changed (or the step opened): every reminder is due again,
 * but those whose time has already come (the step is shorter than their
 * offset), which are never sent. */
void year_rearm_reminders(struct year_run *r);
/* "order_refused": why an order was not carried out; the player is mailed
 * at once (template "order-refused"), with what happens instead when the
 * caller knows it. */
void year_refused(struct year_run *r, int player, const char *order, const char *reason);
void year_refused_instead(struct year_run *r, int player, const char *order, const char *reason,
			  const char *instead);

/* ---------------------------------------------------------------- passage (year_passage.c) */

/* The permissions the decision `pd` asked for are settled and the move
 * carried out (its events logged from `mark` on): each player asked and
 * the mover are told what came of it, in the words of the turn report
 * (decision, is_permission_outcome). */
void year_permission_outcome(struct year_run *r, const json_t *pd, size_t mark);
/* The mover's order `o` waits for the permissions `asked` are asked for
 * (`supply`: who is asked to supply): he is told who is asked, until when,
 * and what each refusal would mean for his move (decision,
 * is_permission_asked). */
void year_tell_mover_asked(struct year_run *r, int mover, const struct order *o,
			   const json_t *supply, const json_t *asked);
/* The turn of `mover` is over: a player whose pending movement order's
 * way needs something else now than when the turn began (a field army
 * gone from a province on it or come there, a province taken, his route
 * chosen again) is told at once, with the moves that changed it
 * (decision, is_way_changed). Before turn_events is cleared. */
void year_tell_way_changes(struct year_run *r, int mover);

/* ---------------------------------------------------------------- orders (year_common.c) */

void year_load_orders_at(struct year_run *r, int player, int year, int phase,
			 struct order_set *set);
/* The player's pending orders of the current year and phase. */
void year_load_orders(struct year_run *r, int player, struct order_set *set);
bool year_is_movement(enum order_kind k);
bool year_is_recruitment(enum order_kind k);
/* The last valid order of `k` (of a movement option) in the set, or NULL. */
const struct order *year_find_kind(const struct order_set *set, enum order_kind k);
const struct order *year_find_movement(const struct order_set *set);
/* ALLOW/DENY PASSAGE or SUPPLY of `set` about `mover`: 1 allow, 0 deny, -1
 * no standing order. */
int year_permission_of(const struct order_set *set, int mover, bool supply);
/* The player's IN STORM. */
enum storm_choice year_player_storm(struct year_run *r, int player);
/* IF INVADED for the province (a named one before ANY): the order or NULL. */
const struct order *year_if_invaded(const struct order_set *set, int province);
/* The ally's standing answer for `side`: 1 a contingent, 0 none, -1 no
 * standing order. */
int year_ally_answer(const struct order_set *set, int side, const struct order **contingent);
/* True unless the caller's phase_may_begin says no; then the machine is
 * paused for good (step names stay as they were). */
bool year_phase_may_begin(struct year_run *r, int year, int phase);
/* The player's VOTE: CHOICE_CONTINUE, CHOICE_END or CHOICE_NONE. */
enum order_choice year_vote_of(struct year_run *r, int p);

/* ---------------------------------------------------------------- turns (year_turn.c) */

/* Starts the turn of sequence[turn] (skipping players no longer active).
 * Returns false when every player has played: the recruitment is next. */
bool year_enter_turn(struct year_run *r);
/* The turn is over: its report, the returning contingents merged, turn++. */
void year_end_turn(struct year_run *r);
/* The mover's movement order checked as things stand now: one that can no
 * longer be carried out is dropped and the player mailed at once with the
 * reason; his turn stays open with a deadline counted from that mail.
 * Returns true if that happened. */
bool year_check_turn_orders(struct year_run *r);

/* ---------------------------------------------------------------- allies (year_allies.c) */

/* Before a battle: each side's allies answer by standing order at once,
 * the others are asked (a decision with its deadline). */
void year_call_allies(struct year_run *r, int attacker, int defender, int province,
		      int came_from);
/* The allies asked have answered or their deadline passed (the pending
 * decision pd): their contingents sent, then the battle starts. */
void year_allies_answered(struct year_run *r, const json_t *pd);
/* Passage and supply per player for the mover (arrays of player_count):
 * each one's standing orders; silence is no, but from an ally yes. */
void year_permissions_given(struct year_run *r, int mover, bool *passage, bool *supply);
/* The mover's orders are in or the deadline passed: carries them out.
 * Returns true when the turn is over (nothing waits: no decision, no
 * battle). */
bool year_resolve_turn_now(struct year_run *r);
/* The pending decision is answered or its deadline passed. Returns true
 * when the turn is over. */
bool year_resolve_decision(struct year_run *r);

/* ---------------------------------------------------------------- battles (year_battle.c) */

/* Announces the battle: the contingents that arrive, the step BATTLE. */
void year_start_battle(struct year_run *r, int attacker, int defender, int province,
		       int came_from);
/* Takes a battle report (see year_battle_report). Returns -1 with why when
 * it is refused; else 0, with *settle (allocated) the result to apply now
 * and *how who decided it, or *settle NULL when it waits (for the other
 * side, or for the organiser when the reports differ). */
int year_battle_take_report(struct year_run *r, int player, bool organiser,
			    const struct order_set *set, char **settle, const char **how,
			    char *why, size_t why_size);
/* Applies the result in `text` and records how it was decided. Returns 0,
 * or -1 with why (the rules refuse it). */
int year_battle_apply(struct year_run *r, const char *text, const char *how_decided, char *why,
		      size_t why_size);
/* The only report in at the deadline (allocated), or NULL. */
char *year_battle_sole_report(struct year_run *r);
/* The organiser must decide: the deadline is lifted, both sides told. */
void year_battle_dispute(struct year_run *r, const char *reason);

/* ---------------------------------------------------------------- battle reports (year_report.c) */

/* The canonical text of the set's result lines for the battle at
 * `province` (pending: the battle's data), or NULL if it holds none: BATTLE
 * AT first, then one line per fact, sorted, so two reports that mean the
 * same have the same text (a lone CONCEDED BY or WITHDRAWAL BY names the
 * winner, lines for the same elements add up, comma lists are split, a
 * killed general is a destroyed element). Caller frees. */
char *year_report_text(const struct campaign *c, const json_t *pending, const struct order_set *set,
		       int province);
/* A canonical text spelt out: the winner and how the battle ended, then for
 * each force its elements destroyed, fled (withdrawn), demoralised by number
 * and label with their AP, and its generals killed. Caller frees. */
char *year_report_summary(const struct campaign *c, const json_t *pending, const char *text);
/* The attacker's and the defender's canonical texts side by side, one row
 * per fact, rows that differ marked with '*'; *differ (if not NULL) gets
 * the names of the rows that differ, comma-separated. Caller frees both. */
char *year_report_side_by_side(const struct campaign *c, const json_t *pending, const char *a,
			       const char *b, char **differ);

/* ------------------------------------------------- between steps (year_between.c) */

/* LEAVE CAMPAIGN, RECALL CONTINGENTS and accepted tributary requests at a
 * step boundary. Returns true if anything was done. */
bool year_between_steps(struct year_run *r);
/* The LOSSES FIRST standing orders, for the rules' generic losses. */
void year_load_loss_preferences(struct year_run *r);
/* End of the recruitment phase: every RENOUNCE. */
void year_apply_renounces(struct year_run *r);
/* Mails everyone about the relations changed since the last call. */
void year_tell_relations(struct year_run *r);

/* ------------------------------------- recruitment and the year end (year_recruit.c) */

/* Orders carried into a new phase: the standing orders and those sent in
 * advance, less the kinds that stay behind. */
enum year_carry { CARRY_ALL, CARRY_TO_RECRUITMENT, CARRY_TO_CAMPAIGN };

void year_begin_recruitment(struct year_run *r);
/* Recruitment is over: applied, then the year's end (the vote, or the
 * diary). Returns true when a new year began: its first turn is next. */
bool year_resolve_recruitment(struct year_run *r);
/* The vote is over: the year's end. Returns true when a new year began. */
bool year_resolve_vote(struct year_run *r);
/* A new year: its dice, the sequence of play rolled and announced, the
 * orders carried over. Its first turn is the caller's to enter. */
void year_begin_year(struct year_run *r, int from_year, int from_phase, enum year_carry how);
/* year_join.c: the players who joined during `from_year` (PLAYER_JOINING)
 * enter play, before the new year's sequence of play is rolled: their
 * setup (ARMY, START IN of from_year's setup phase) or the default, told
 * by mail. */
void year_enter_joiners(struct year_run *r, int from_year);

#endif
