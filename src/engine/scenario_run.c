/* Scenarios: the script played through the year's state machine
 * (dbm/year.h), the one the daemon runs: each player section is that
 * player's mail for the phase, each battle section the organiser's result
 * (doc/scenario.md, "How a year is played"). */
#include "config.h"

#include "engine/scenario.h"
#include "engine/scenario_p.h"

#include "dbm/rules.h"
#include "dbm/year.h"
#include "model/campaign_json.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOUR 3600
#define STEP_GUARD 100000 /* steps in one run: far beyond any real script */

/* ------------------------------------------------------------- dice */

/* Fixed values that never abort: a roll with no value left is remembered
 * (with the length of the log before it), the year's machine is paused so
 * that it stops after the step that rolled, and the run stops. Or the
 * verifiable roller. */
struct scenario_dice {
	struct dice base;
	const int *values;
	size_t count, next;
	bool seeded;
	struct dice_hmac hmac;
	const struct event_log *log;
	struct year_state *st;
	bool ran_out;
	size_t ran_out_events;
	char *ran_out_purpose;
	int ran_out_year, ran_out_phase; /* the time of that roll */
};

static int scenario_dice_roll(struct dice *base, const char *purpose)
{
	struct scenario_dice *d = (struct scenario_dice *)base;
	if (d->seeded) {
		d->hmac.base.year = base->year;
		d->hmac.base.phase = base->phase;
		d->hmac.base.counter = base->counter;
		int v = d->hmac.base.roll(&d->hmac.base, purpose);
		base->counter = d->hmac.base.counter;
		return v;
	}
	base->counter++;
	if (d->next < d->count)
		return d->values[d->next++];
	if (!d->ran_out) {
		d->ran_out = true;
		d->ran_out_events = d->log->count;
		d->ran_out_purpose = xstrdup(purpose);
		d->ran_out_year = base->year;
		d->ran_out_phase = base->phase;
		d->st->paused = true;
	}
	/* Not a 6: the sequence of play throws high numbers away and rolls
	 * again, so a 6 could loop for ever. */
	return 1;
}

/* ---------------------------------------------------------------- run */

/* The players' pending orders, as the daemon stores them. */
struct pending {
	int player, year, phase;
	char *text;
};

struct run {
	const struct scenario *s;
	struct campaign *c;
	const struct scenario_options *opt;
	struct event_log *log;
	struct diag_list *diags;
	struct scenario_dice dice;
	struct year_state st;
	struct year_io io;
	struct year_run yr;
	int64_t now;
	struct pending *pending;
	size_t n_pending, cap_pending;
	size_t next_phase;                 /* the next scenario phase to begin */
	const struct scenario_phase *phase; /* the current one */
	bool *battle_used;                 /* per section of the current phase */
	bool *released;                    /* per player: its turn's orders are in */
	size_t checked;                    /* log events checked for refusals */
	char commitment[DICE_COMMITMENT_HEX];
	/* The campaign and the log length before the step being resolved:
	 * dice running out in a step undo all of it. */
	json_t *snapshot;
	size_t snapshot_events;
	char snapshot_step[128];
	enum scenario_status status;
	bool stop;
};

static void fail(struct run *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct run *r, int line, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = {0};
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	scenario_error_at(r->diags, r->s->filename, line, "%s", sb.data ? sb.data : "");
	strbuf_free(&sb);
	r->status = SCENARIO_FAILED;
	r->stop = true;
}

/* A refused order (of `player`, or the organiser's result when NO_INDEX):
 * reported; the run stops unless keep_going. */
static void refused(struct run *r, int line, int player, const char *what, const char *reason)
{
	if (player >= 0)
		scenario_error_at(r->diags, r->s->filename, line, "%s: %s refused: %s",
				  key_of(r->c, player), what, reason);
	else
		scenario_error_at(r->diags, r->s->filename, line, "%s refused: %s", what, reason);
	if (r->status == SCENARIO_OK)
		r->status = SCENARIO_REFUSED;
	if (!r->opt->keep_going)
		r->stop = true;
}

/* The campaign and the log as they are now: what a step that runs out of
 * dice goes back to. */
static void take_snapshot(struct run *r, const char *step)
{
	if (r->dice.ran_out)
		return;
	json_decref(r->snapshot);
	r->snapshot = campaign_to_json(r->c);
	r->snapshot_events = r->log->count;
	snprintf(r->snapshot_step, sizeof r->snapshot_step, "%s", step ? step : "");
}

/* The campaign as it was at the snapshot (its contents replaced in place:
 * the caller owns the struct). */
static void restore_snapshot(struct run *r)
{
	if (!r->snapshot)
		return;
	char *err = NULL;
	struct campaign *back = campaign_from_json(r->snapshot, &err);
	if (!back) {
		/* cannot happen with a document campaign_to_json wrote */
		free(err);
		return;
	}
	struct campaign tmp = *r->c;
	*r->c = *back;
	*back = tmp;
	campaign_free(back);
	while (r->log->count > r->snapshot_events)
		json_decref(r->log->events[--r->log->count]);
}

/* After every step that may roll: false (and the run stops) if the fixed
 * dice ran out. Nothing of the step that needed the missing value is
 * applied: the campaign and the log are as they were before it. */
static bool dice_ok(struct run *r)
{
	struct scenario_dice *d = &r->dice;
	if (!d->ran_out)
		return true;
	if (r->stop && r->status == SCENARIO_FAILED)
		return false;
	/* the time of the roll (the next year's sequence is rolled at the
	 * end of the year before, when the campaign already names the next) */
	int year = d->ran_out_year, phase = d->ran_out_phase;
	while (r->log->count > d->ran_out_events)
		json_decref(r->log->events[--r->log->count]);
	restore_snapshot(r);
	if (r->checked > r->log->count)
		r->checked = r->log->count;
	fail(r, r->s->dice_line,
	     "the dice ran out: the roll for \"%s\" in %d (%s phase) needs a value beyond the %zu "
	     "given; nothing of the step %s is applied",
	     d->ran_out_purpose, year, campaign_phase_name(phase), d->count, r->snapshot_step);
	return false;
}

static struct pending *pending_at(struct run *r, int player, int year, int phase)
{
	for (size_t i = 0; i < r->n_pending; i++)
		if (r->pending[i].player == player && r->pending[i].year == year &&
		    r->pending[i].phase == phase)
			return &r->pending[i];
	return NULL;
}

static void pending_set(struct run *r, int player, int year, int phase, const char *text)
{
	struct pending *p = pending_at(r, player, year, phase);
	if (!p) {
		grow_array((void **)&r->pending, &r->cap_pending, r->n_pending + 1,
			   sizeof *r->pending);
		p = &r->pending[r->n_pending++];
		*p = (struct pending){player, year, phase, NULL};
	}
	free(p->text);
	p->text = xstrdup(text ? text : "");
}

static const struct scenario_section *player_section(const struct scenario_phase *ph, int player)
{
	for (size_t k = 0; ph && k < ph->section_count; k++)
		if (ph->sections[k].kind == SCENARIO_PLAYER && ph->sections[k].player == player)
			return &ph->sections[k];
	return NULL;
}

/* The orders a player's turn acts on: the movement option, LEAVE CAMPAIGN,
 * RECALL CONTINGENTS. They reach the year when the player's turn comes, so
 * that their routes are planned from where the armies stand then. */
static bool turn_kind(enum order_kind k)
{
	return scenario_is_route_kind(k) || k == ORDER_NO_MOVE || k == ORDER_SALLY ||
	       k == ORDER_LEAVE ||
	       k == ORDER_RECALL_CONTINGENTS;
}

/* An order the order checker refused on receipt (as the daemon's
 * acknowledgement would say), reported at its line; with keep_going an
 * order_refused event of rule "scenario" records it. */
static void refused_on_receipt(struct run *r, const struct scenario_section *sec,
			       const struct order *o)
{
	const char *what = o->text ? o->text : order_kind_keyword(o->kind);
	const char *reason = o->error ? o->error : "not understood";
	refused(r, sec->line + o->line, sec->player, what, reason);
	if (r->opt->keep_going)
		event_emit(r->log, "order_refused", "scenario", "{s:s, s:i, s:s, s:s}", "player",
			   key_of(r->c, sec->player), "line", sec->line + o->line, "order", what,
			   "reason", reason);
}

/* The turn's orders of a player's section, as his mail: parsed now (routes
 * from where the armies stand), checked as the daemon checks a mail (one
 * in error is refused on receipt, with its line), merged into his pending
 * orders of the current phase. */
static void deliver_turn(struct run *r, const struct scenario_section *sec)
{
	struct campaign *c = r->c;
	int player = sec->player;
	struct order_set now, set, pending, merged;
	orders_parse(sec->body, c, player, &now);
	orders_validate(&now, c, player);
	orders_set_init(&set);
	set.player = player;
	for (size_t i = 0; i < now.count; i++) {
		struct order *o = &now.orders[i];
		if (!turn_kind(o->kind))
			continue;
		if (o->status == ORDER_ERROR && !r->stop)
			refused_on_receipt(r, sec, o);
		if (o->status == ORDER_OK)
			order_copy(orders_set_add(&set), o);
	}
	orders_set_init(&pending);
	struct pending *p = pending_at(r, player, c->year, c->phase);
	if (p)
		orders_parse(p->text, c, player, &pending);
	orders_merge(&pending, &set, &merged);
	merged.player = player;
	char *text = orders_format_pending(&merged, c);
	pending_set(r, player, c->year, c->phase, text);
	free(text);
	char *note = year_orders_received(&r->yr, player, &set);
	free(note);
	orders_set_free(&now);
	orders_set_free(&set);
	orders_set_free(&pending);
	orders_set_free(&merged);
}

/* ------------------------------------------------------ the year's callbacks */

static char *cb_orders_load(void *ctx, int player, int year, int phase)
{
	struct pending *p = pending_at(ctx, player, year, phase);
	return p ? xstrdup(p->text) : NULL;
}

static void cb_orders_save(void *ctx, int player, int year, int phase, const char *text)
{
	pending_set(ctx, player, year, phase, text);
}

static json_t *cb_year_events(void *ctx, int year)
{
	(void)ctx;
	(void)year;
	return json_array(); /* for the mails, which a scenario does not send */
}

static void cb_checkpoint(void *ctx, const char *step)
{
	take_snapshot(ctx, step);
}

/* Each year's rolls are numbered from 1, as in play. */
static const char *cb_new_year_dice(void *ctx, int year)
{
	struct run *r = ctx;
	(void)year;
	r->dice.base.counter = 0;
	if (r->dice.seeded)
		dice_commitment(r->opt->use_seed ? r->opt->seed : r->s->seed, r->commitment);
	else
		r->commitment[0] = '\0';
	return r->commitment;
}

static void cb_reveal_dice(void *ctx, int year)
{
	(void)ctx;
	(void)year;
}

static size_t cb_fixed_sequence(void *ctx, int year, int *order)
{
	struct run *r = ctx;
	struct campaign *c = r->c;
	const struct scenario_phase *ph = r->phase;
	if (!ph || ph->year != year || !ph->sequence)
		return 0;
	size_t n = 0;
	for (size_t k = 0; k < ph->sequence_count; k++)
		if (active(c, ph->sequence[k]))
			order[n++] = ph->sequence[k];
	for (size_t p = 0; p < c->player_count; p++) {
		bool listed = false;
		for (size_t k = 0; k < n; k++)
			listed |= order[k] == (int)p;
		if (active(c, (int)p) && !listed)
			fail(r, ph->sequence_line, "the sequence of %d leaves out %s", ph->year,
			     key_of(c, (int)p));
	}
	return n;
}

/* A scenario phase begins: its battles are unused, no turn is released,
 * and every player's orders but his turn's are in (standing orders count
 * from the start of the phase, as orders sent in advance do in play). */
static void begin_phase(struct run *r, const struct scenario_phase *ph)
{
	const struct scenario_phase *prev = r->phase;
	for (size_t k = 0; r->phase && k < r->phase->section_count && !r->stop; k++)
		if (r->phase->sections[k].kind == SCENARIO_BATTLE && !r->battle_used[k])
			fail(r, r->phase->sections[k].line, "no battle was fought at %s in %d",
			     province_of(r->c, r->phase->sections[k].province), r->phase->year);
	r->phase = ph;
	free(r->battle_used);
	r->battle_used = xcalloc(ph->section_count + 1, sizeof *r->battle_used);
	memset(r->released, 0, (r->c->player_count + 1) * sizeof *r->released);
	for (size_t k = 0; k < ph->section_count; k++) {
		const struct scenario_section *sec = &ph->sections[k];
		if (sec->kind != SCENARIO_PLAYER || sec->player < 0)
			continue;
		/* The section's mail but its turn's orders arrives now: parsed
		 * and checked as the daemon checks a mail (against the campaign
		 * as it stands when the phase begins), stored where the year
		 * reads it, and what acts on receipt does. */
		struct order_set now, set;
		orders_parse(sec->body, r->c, sec->player, &now);
		orders_validate(&now, r->c, sec->player);
		/* a refusal is of the phase the mail is for */
		int log_year = r->log->year, log_phase = r->log->phase;
		r->log->year = ph->year;
		r->log->phase = ph->phase;
		/* CLEAR: the standing orders of the phase before are not carried */
		if (now.cleared && prev)
			pending_set(r, sec->player, prev->year, prev->phase, "");
		orders_set_init(&set);
		set.player = sec->player;
		for (size_t i = 0; i < now.count; i++) {
			const struct order *o = &now.orders[i];
			if (turn_kind(o->kind) || scenario_is_inert_kind(o->kind))
				continue;
			if (o->status == ORDER_ERROR && !r->stop)
				refused_on_receipt(r, sec, o);
			if (o->status == ORDER_OK)
				order_copy(orders_set_add(&set), o);
		}
		char *text = orders_format_pending(&set, r->c);
		pending_set(r, sec->player, ph->year, ph->phase, text);
		free(text);
		r->log->year = log_year;
		r->log->phase = log_phase;
		char *note = year_orders_received(&r->yr, sec->player, &set);
		free(note);
		orders_set_free(&now);
		orders_set_free(&set);
	}
}

static bool cb_phase_may_begin(void *ctx, int year, int phase)
{
	struct run *r = ctx;
	if (r->stop || r->next_phase >= r->s->phase_count)
		return false;
	const struct scenario_phase *ph = &r->s->phases[r->next_phase];
	if (ph->year != year || ph->phase != phase)
		return false;
	r->next_phase++;
	begin_phase(r, ph);
	return true;
}

/* ------------------------------------------------------------ the driver */

/* The line of the order a refusal names: the player's order of that kind
 * in the current phase's section, else the section's header. */
static int refusal_line(const struct run *r, int player, const char *order)
{
	const struct scenario_section *sec = player_section(r->phase, player);
	if (!sec)
		return r->phase ? r->phase->line : 0;
	for (size_t i = 0; order && i < sec->orders.count; i++) {
		const struct order *o = &sec->orders.orders[i];
		const char *kw = order_kind_keyword(o->kind);
		if (kw && strncasecmp(order, kw, strlen(kw)) == 0)
			return o->line;
	}
	return sec->line;
}

/* The refusals the year logged since the last look. */
static void check_refusals(struct run *r)
{
	for (; r->checked < r->log->count && !r->stop; r->checked++) {
		const json_t *ev = r->log->events[r->checked];
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		const char *rule = json_string_value(json_object_get(ev, "rule"));
		if (!kind || strcmp(kind, "order_refused") != 0 || (rule && !strcmp(rule, "scenario")))
			continue; /* the runner's own record of a refusal on receipt */
		int player = campaign_find_player(r->c, json_string_value(json_object_get(ev, "player")));
		const char *order = json_string_value(json_object_get(ev, "order"));
		const char *reason = json_string_value(json_object_get(ev, "reason"));
		refused(r, refusal_line(r, player, order), player, order ? order : "an order",
			reason ? reason : "");
	}
}

/* The battle the year waits for: the next unused [battle] section for its
 * province, given as the organiser's result. */
static void report_battle(struct run *r)
{
	struct campaign *c = r->c;
	const char *name = json_string_value(json_object_get(r->st.pending, "province"));
	int province = name ? campaign_find_province(c, name) : NO_INDEX;
	const struct scenario_phase *ph = r->phase;
	const struct scenario_section *sec = NULL;
	for (size_t k = 0; ph && k < ph->section_count && !sec; k++)
		if (ph->sections[k].kind == SCENARIO_BATTLE && ph->sections[k].province == province &&
		    !r->battle_used[k]) {
			sec = &ph->sections[k];
			r->battle_used[k] = true;
		}
	if (!sec) {
		const char *a = json_string_value(json_object_get(r->st.pending, "attacker"));
		const char *d = json_string_value(json_object_get(r->st.pending, "defender"));
		int attacker = a ? campaign_find_player(c, a) : NO_INDEX;
		fail(r, refusal_line(r, attacker, "INVADE"),
		     "%s and %s give battle at %s: the scenario needs a [battle %s] section in [year %d campaign]",
		     a ? a : "?", d ? d : "?", province_of(c, province), province_of(c, province),
		     c->year);
		return;
	}
	char *text = xasprintf("BATTLE AT %s\n%s", province_of(c, province), sec->body);
	struct order_set set;
	orders_parse(text, c, -1, &set);
	free(text);
	char why[RULES_REASON_MAX + 128];
	if (year_battle_report(&r->yr, NO_INDEX, true, &set, why, sizeof why) != 0) {
		char *what = xasprintf("the battle report for %s", province_of(c, province));
		refused(r, sec->line, NO_INDEX, what, why);
		free(what);
	}
	orders_set_free(&set);
}

/* Moves the clock to the step's deadline: what is awaited was not sent,
 * and the year's defaults apply, as they do in play. */
static void deadline_passes(struct run *r)
{
	if (r->st.deadline > r->now)
		r->now = r->st.deadline;
	r->yr.now = r->now;
}

/* One move of the driver: what the year waits for is given. */
static void drive(struct run *r)
{
	struct year_state *st = &r->st;
	switch (st->step) {
	case YEAR_TURN: {
		int p = st->turn < st->sequence_len ? st->sequence[st->turn] : NO_INDEX;
		const struct scenario_section *sec = player_section(r->phase, p);
		if (p >= 0 && !r->released[p]) {
			r->released[p] = true;
			if (sec)
				deliver_turn(r, sec);
		} else {
			deadline_passes(r);
		}
		break;
	}
	case YEAR_BATTLE:
		if (json_is_true(json_object_get(st->pending, "disputed")) ||
		    json_object_size(json_object_get(st->pending, "reports")) == 0)
			report_battle(r);
		else
			deadline_passes(r);
		break;
	default:
		deadline_passes(r);
		break;
	}
	if (!r->stop)
		year_advance(&r->yr);
}

enum scenario_status scenario_run(const struct scenario *s, struct campaign *c,
				  const struct scenario_options *opt, struct event_log *log,
				  struct diag_list *diags)
{
	static const struct scenario_options defaults;
	struct run *r = xcalloc(1, sizeof *r);
	*r = (struct run){
		.s = s, .c = c, .opt = opt ? opt : &defaults, .log = log, .diags = diags,
		.status = SCENARIO_OK, .now = 1,
	};
	if (s->start_line && scenario_start_apply(s, c, diags) > 0)
		fail(r, s->start_line, "the starting position cannot be set");
	r->dice.base.roll = scenario_dice_roll;
	r->dice.log = log;
	r->dice.values = s->dice;
	r->dice.count = s->dice_count;
	r->dice.st = &r->st;
	if (r->opt->use_seed || s->has_seed) {
		r->dice.seeded = true;
		dice_hmac_init(&r->dice.hmac, r->opt->use_seed ? r->opt->seed : s->seed, c->year,
			       PHASE_CAMPAIGN, 0);
	}
	r->released = xcalloc(c->player_count + 1, sizeof *r->released);
	year_state_init(&r->st);
	r->io = (struct year_io){r, cb_orders_load, cb_orders_save, cb_year_events, cb_checkpoint,
				 cb_new_year_dice, cb_reveal_dice, cb_fixed_sequence,
				 cb_phase_may_begin};
	year_run_init(&r->yr, c, &r->st, &r->dice.base, log, r->now, &r->io);
	r->checked = log->count;
	take_snapshot(r, "start");
	char why[256];
	if (!r->stop && s->phase_count && s->phases[0].phase == PHASE_CAMPAIGN) {
		r->next_phase = 1;
		begin_phase(r, &s->phases[0]);
		if (year_start(&r->yr, why, sizeof why) != 0)
			fail(r, s->phases[0].line, "%s", why);
	}
	for (int guard = 0; guard < STEP_GUARD && !r->stop; guard++) {
		if (!dice_ok(r))
			break;
		check_refusals(r);
		if (r->stop || r->st.paused || r->st.step == YEAR_ENDED || r->st.step == YEAR_IDLE)
			break;
		drive(r);
	}
	if (!r->stop && r->st.step == YEAR_ENDED && r->next_phase < s->phase_count)
		diag_add(diags, DIAG_WARNING, s->filename, s->phases[r->next_phase].line,
			 "the campaign ended in %d: the rest of the scenario is not played", c->year);
	for (size_t k = 0; r->phase && k < r->phase->section_count && !r->stop; k++)
		if (r->phase->sections[k].kind == SCENARIO_BATTLE && !r->battle_used[k])
			fail(r, r->phase->sections[k].line, "no battle was fought at %s in %d",
			     province_of(c, r->phase->sections[k].province), r->phase->year);
	enum scenario_status status = r->status;
	json_decref(r->snapshot);
	year_run_free(&r->yr);
	year_state_free(&r->st);
	for (size_t i = 0; i < r->n_pending; i++)
		free(r->pending[i].text);
	free(r->pending);
	free(r->battle_used);
	free(r->released);
	free(r->dice.ran_out_purpose);
	if (r->dice.seeded)
		dice_hmac_clear(&r->dice.hmac);
	free(r);
	return status;
}
