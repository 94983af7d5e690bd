/* Scenarios: the script played through the rules, phase by phase
 * (doc/scenario.md, "How a year is played"). */
#include "config.h"

#include "engine/scenario.h"
#include "engine/scenario_p.h"

#include "dbm/rules.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>

/* ------------------------------------------------------------- dice */

/* Fixed values that never abort: a roll with no value left is remembered
 * (with the length of the log before it) and the run stops after the
 * rules call that made it. Or the verifiable roller. */
struct scenario_dice {
	struct dice base;
	const int *values;
	size_t count, next;
	bool seeded;
	struct dice_hmac hmac;
	const struct event_log *log;
	bool ran_out;
	size_t ran_out_events;
	char *ran_out_purpose;
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
	}
	/* Not a 6: the sequence of play throws high numbers away and rolls
	 * again, so a 6 could loop for ever. The rules call finishes and the
	 * run stops after it. */
	return 1;
}

/* ---------------------------------------------------------------- run */

/* A player's standing orders: borrowed from the scenario's sections, the
 * latest last (a later order of the same kind replaces an earlier one). */
struct standing {
	const struct order **orders;
	size_t count, cap;
};

struct run {
	const struct scenario *s;
	struct campaign *c;
	const struct scenario_options *opt;
	struct event_log *log;
	struct diag_list *diags;
	struct scenario_dice dice;
	struct standing *standing;      /* per player */
	const struct scenario_phase *phase;
	bool *battle_used;              /* per section of the phase */
	int *entered_from;              /* per player: where its army came from this turn */
	bool *permission;               /* per player: scratch for passage and supply */
	enum scenario_status status;
	bool stop;
};




/* A refused order: reported; the run stops unless keep_going. Returns
 * true if the run goes on. */
static bool refused(struct run *r, int line, int player, const char *what, const char *reason)
{
	scenario_error_at(r->diags, r->s->filename, line, "%s: %s refused: %s", key_of(r->c, player), what,
		 reason);
	if (r->status == SCENARIO_OK)
		r->status = SCENARIO_REFUSED;
	if (!r->opt->keep_going) {
		r->stop = true;
		return false;
	}
	event_emit(r->log, "order_refused", "scenario", "{s:s, s:i, s:s, s:s}", "player",
		   key_of(r->c, player), "line", line, "order", what, "reason", reason);
	return true;
}

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

/* After every rules call that may roll: false (and the run stops) if the
 * fixed dice ran out. */
static bool dice_ok(struct run *r)
{
	struct scenario_dice *d = &r->dice;
	if (!d->ran_out)
		return true;
	if (r->stop && r->status == SCENARIO_FAILED)
		return false;
	while (r->log->count > d->ran_out_events)
		json_decref(r->log->events[--r->log->count]);
	fail(r, r->s->dice_line,
	     "the dice ran out: the roll for \"%s\" in %d (%s phase) needs a value beyond the %zu given",
	     d->ran_out_purpose, r->c->year, campaign_phase_name(r->c->phase), d->count);
	return false;
}

/* -------------------------------------------------- standing orders */

static void standing_add(struct standing *st, const struct order *o)
{
	grow_array((void **)&st->orders, &st->cap, st->count + 1, sizeof *st->orders);
	st->orders[st->count++] = o;
}

/* At the start of a phase: every section's orders join the players'
 * standing orders (CLEAR drops the earlier ones). */
static void standing_merge(struct run *r, const struct scenario_phase *ph)
{
	for (size_t k = 0; k < ph->section_count; k++) {
		const struct scenario_section *sec = &ph->sections[k];
		if (sec->kind != SCENARIO_PLAYER || sec->player < 0)
			continue;
		struct standing *st = &r->standing[sec->player];
		for (size_t i = 0; i < sec->orders.count; i++)
			if (sec->orders.orders[i].status == ORDER_OK &&
			    sec->orders.orders[i].kind == ORDER_CLEAR)
				st->count = 0;
		for (size_t i = 0; i < sec->orders.count; i++) {
			const struct order *o = &sec->orders.orders[i];
			if (o->status == ORDER_OK && order_kind_is_kept(o->kind) &&
			    !scenario_is_route_kind(o->kind))
				standing_add(st, o);
		}
	}
}

static const struct order *standing_last(const struct run *r, int player, enum order_kind kind)
{
	const struct standing *st = &r->standing[player];
	for (size_t i = st->count; i-- > 0;)
		if (st->orders[i]->kind == kind)
			return st->orders[i];
	return NULL;
}

static enum storm_choice storm_choice_of(const struct run *r, int player)
{
	const struct order *o = standing_last(r, player, ORDER_IN_STORM);
	if (o && o->choice == CHOICE_HALT)
		return STORM_HALT;
	if (o && o->choice == CHOICE_RETURN)
		return STORM_RETURN;
	return STORM_CONTINUE;
}

/* Does `giver` permit `player` (passage or supply)? A named order beats an
 * earlier ALL; a later ALL replaces the named ones; silence denies. */
static bool permits(const struct run *r, int giver, int player, enum order_kind allow,
		    enum order_kind deny)
{
	const struct standing *st = &r->standing[giver];
	long named = -1, all = -1;
	bool named_allows = false, all_allows = false;
	for (size_t i = 0; i < st->count; i++) {
		const struct order *o = st->orders[i];
		if (o->kind != allow && o->kind != deny)
			continue;
		if (o->target == player) {
			named = (long)i;
			named_allows = o->kind == allow;
		} else if (o->target == ORDERS_ANY) {
			all = (long)i;
			all_allows = o->kind == allow;
		}
	}
	if (named >= 0 && named > all)
		return named_allows;
	return all >= 0 && all_allows;
}

static const bool *permissions(struct run *r, int player, enum order_kind allow,
			       enum order_kind deny)
{
	for (size_t q = 0; q < r->c->player_count; q++)
		r->permission[q] = (int)q != player && permits(r, (int)q, player, allow, deny);
	return r->permission;
}

/* ------------------------------------------------------------ turns */

static bool supply_check(struct run *r, int player, bool forced_passage)
{
	if (!active(r->c, player) || r->c->players[player].location < 0)
		return true;
	const bool *supply = permissions(r, player, ORDER_ALLOW_SUPPLY, ORDER_DENY_SUPPLY);
	rules_supply_check(r->c, player, supply, forced_passage, NULL, &r->dice.base, r->log);
	return dice_ok(r);
}

static void siege_round(struct run *r, int besieger, int province, int line)
{
	struct rules_reason why;
	bool captured;
	if (rules_siege_round(r->c, besieger, province, NULL, &r->dice.base, r->log, &captured,
			      &why) != RULES_OK) {
		char *what = xasprintf("siege of %s", province_of(r->c, province));
		refused(r, line, besieger, what, why.text);
		free(what);
		return;
	}
	dice_ok(r);
}

/* The party of a player in a battle: its field army if it fights, else its
 * first contingent there; -1 if it has no force in the battle. */
static int party_of(const struct battle_party *parties, size_t n, int player)
{
	int found = -1;
	for (size_t i = 0; i < n; i++)
		if (parties[i].player == player) {
			if (parties[i].contingent == NO_INDEX)
				return (int)i;
			if (found < 0)
				found = (int)i;
		}
	return found;
}

struct party_counts {
	int *destroyed, *fled, *withdrawn, *killed;
};

/* The retreat choice: the first RETREAT PREFER province that is among the
 * nearest friendly ones. */
static int retreat_choice_of(struct run *r, int loser, int forbidden, const bool *allies)
{
	const struct order *o = standing_last(r, loser, ORDER_RETREAT_PREFER);
	int from = r->c->players[loser].location;
	for (size_t i = 0; o && i < o->via_count; i++) {
		int stages;
		if (rules_retreat_destination(r->c, loser, from, forbidden, allies, o->via[i],
					      &stages) == o->via[i])
			return o->via[i];
	}
	return NO_INDEX;
}

static void battle(struct run *r, int invader, int defender, int province, int line)
{
	struct campaign *c = r->c;
	const struct scenario_phase *ph = r->phase;
	const struct scenario_section *sec = NULL;
	for (size_t k = 0; k < ph->section_count && !sec; k++)
		if (ph->sections[k].kind == SCENARIO_BATTLE && ph->sections[k].province == province &&
		    !r->battle_used[k]) {
			sec = &ph->sections[k];
			r->battle_used[k] = true;
		}
	if (!sec) {
		fail(r, line, "%s and %s give battle at %s: the scenario needs a [battle %s] section in [year %d campaign]",
		     key_of(c, invader), key_of(c, defender), province_of(c, province),
		     province_of(c, province), ph->year);
		return;
	}
	size_t cap = 2 + c->contingent_count;
	struct battle_party *parties = xcalloc(cap, sizeof *parties);
	struct party_counts *counts = xcalloc(cap, sizeof *counts);
	size_t n = 0;
	int mains[2] = {invader, defender};
	for (int side = 0; side < 2; side++) {
		const struct player *p = &c->players[mains[side]];
		int commands = troops_generals(&p->list, &p->field);
		parties[n].player = mains[side];
		parties[n].side = side;
		parties[n].contingent = NO_INDEX;
		parties[n].commands = commands < 1 ? 1 : commands > MAX_GENERALS ? MAX_GENERALS
										 : commands;
		n++;
	}
	for (size_t i = 0; i < c->contingent_count && !r->stop; i++) {
		int with = c->contingents[i].with_player;
		if (with != invader && with != defender)
			continue;
		bool arrived = rules_contingent_arrival(c, (int)i, &r->dice.base, r->log);
		if (!dice_ok(r) || !arrived)
			continue;
		parties[n].player = c->contingents[i].owner;
		parties[n].side = with == invader ? 0 : 1;
		parties[n].contingent = (int)i;
		parties[n].commands = 1;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		size_t types = c->players[parties[i].player].list.count + 1;
		counts[i].destroyed = xcalloc(types, sizeof(int));
		counts[i].fled = xcalloc(types, sizeof(int));
		counts[i].withdrawn = xcalloc(types, sizeof(int));
		counts[i].killed = xcalloc(types, sizeof(int));
	}
	int winner_side = -1;
	enum battle_end how = BATTLE_DEMORALISED;
	bool *cinc_named = xcalloc(n ? n : 1, sizeof *cinc_named);
	for (size_t k = 0; k < sec->orders.count && !r->stop; k++) {
		const struct order *o = &sec->orders.orders[k];
		if (o->status != ORDER_OK || o->kind == ORDER_BATTLE_AT)
			continue;
		int pi = party_of(parties, n, o->target);
		if (pi < 0) {
			fail(r, o->line, "%s has no force in the battle at %s", key_of(c, o->target),
			     province_of(c, province));
			break;
		}
		struct battle_party *bp = &parties[pi];
		struct party_counts *pc = &counts[pi];
		switch (o->kind) {
		case ORDER_BATTLE_WINNER:
			winner_side = bp->side;
			break;
		case ORDER_BATTLE_CONCEDED:
		case ORDER_BATTLE_WITHDRAWAL:
			winner_side = 1 - bp->side;
			how = o->kind == ORDER_BATTLE_CONCEDED ? BATTLE_CONCEDED : BATTLE_WITHDRAWAL;
			break;
		case ORDER_BATTLE_DESTROYED:
			pc->destroyed[o->type] += o->count;
			break;
		case ORDER_BATTLE_FLED:
			pc->fled[o->type] += o->count;
			break;
		case ORDER_BATTLE_WITHDRAWN:
			pc->withdrawn[o->type] += o->count;
			break;
		case ORDER_BATTLE_GENERAL_KILLED:
			pc->killed[o->type]++;
			break;
		case ORDER_BATTLE_DEMORALISED: {
			int cinc = orders_cinc_type(&c->players[bp->player]);
			for (size_t j = 0; j < o->item_count; j++) {
				if (bp->contingent == NO_INDEX && o->items[j].type == cinc &&
				    !cinc_named[pi]) {
					cinc_named[pi] = true;
					bp->c_in_c_demoralised = true;
				} else {
					bp->others_demoralised++;
				}
			}
			break;
		}
		default:
			break;
		}
	}
	struct rules_reason why;
	if (!r->stop) {
		for (size_t i = 0; i < n; i++) {
			const struct army_list *l = &c->players[parties[i].player].list;
			for (size_t t = 0; t < l->count; t++)
				if (counts[i].killed[t] > counts[i].destroyed[t])
					counts[i].destroyed[t] = counts[i].killed[t];
			parties[i].destroyed = counts[i].destroyed;
			parties[i].fled = counts[i].fled;
			parties[i].withdrawn = counts[i].withdrawn;
		}
		int loser = mains[1 - winner_side];
		bool *allies = xcalloc(c->player_count, sizeof *allies);
		for (size_t i = 0; i < n; i++)
			if (parties[i].side != winner_side)
				allies[parties[i].player] = true;
		struct battle_result br = {
			.province = province, .winner_side = winner_side, .how = how,
			.parties = parties, .party_count = n,
			.enemy_came_from = r->entered_from[mains[winner_side]],
			.retreat_on_storm = storm_choice_of(r, loser),
		};
		br.retreat_choice = retreat_choice_of(r, loser, br.enemy_came_from, allies);
		free(allies);
		if (rules_apply_battle_result(c, &br, &r->dice.base, r->log, &why) != RULES_OK) {
			char *what = xasprintf("the battle report for %s", province_of(c, province));
			refused(r, sec->line, loser, what, why.text);
			free(what);
		} else {
			dice_ok(r);
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(counts[i].destroyed);
		free(counts[i].fled);
		free(counts[i].withdrawn);
		free(counts[i].killed);
	}
	free(cinc_named);
	free(counts);
	free(parties);
}

/* The defender's standing choice for an invaded province: IF INVADED for
 * that province, else for ANY; NULL if none. */
static const struct order *if_invaded(const struct run *r, int defender, int province)
{
	const struct standing *st = &r->standing[defender];
	const struct order *any = NULL;
	for (size_t i = st->count; i-- > 0;) {
		const struct order *o = st->orders[i];
		if (o->kind != ORDER_IF_INVADED)
			continue;
		if (o->province == province)
			return o;
		if (o->province == ORDERS_ANY && !any)
			any = o;
	}
	return any;
}

/* The province a force came from to reach the end of `path`. */
static int came_from(int start, const int *path, size_t stages)
{
	if (stages == 0)
		return NO_INDEX;
	return stages >= 2 ? path[stages - 2] : start;
}

static void defence(struct run *r, int invader, int defender, int province, int line)
{
	struct campaign *c = r->c;
	const struct order *o = if_invaded(r, defender, province);
	int at = c->players[defender].location;
	struct defence_order d = {
		.player = defender, .province = province, .choice = DEFEND_SIEGE,
		.on_storm = storm_choice_of(r, defender), .force_passage = true,
		.passage = permissions(r, defender, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	int goal = NO_INDEX;
	if (o && o->choice == CHOICE_BATTLE) {
		d.choice = DEFEND_BATTLE;
		goal = province;
	} else if (o && o->choice == CHOICE_RETREAT) {
		goal = o->retreat_to;
	}
	int *path = xcalloc(c->province_count + 1, sizeof *path);
	if (goal >= 0 && at >= 0 && at != goal) {
		int stages = rules_shortest_path(c, defender, at, goal, path, c->province_count);
		if (stages > 0) {
			d.path = path;
			d.stages = (size_t)stages;
		}
	}
	struct rules_reason why;
	bool battle_given = false;
	if (rules_defend(c, &d, &r->dice.base, r->log, &why) != RULES_OK) {
		char *what = xasprintf("the defence of %s (%s)", province_of(c, province),
				       o ? "IF INVADED" : "standing siege");
		bool go_on = refused(r, o ? o->line : line, defender, what, why.text);
		free(what);
		if (!go_on) {
			free(path);
			return;
		}
	} else {
		if (!dice_ok(r)) {
			free(path);
			return;
		}
		if (d.stages && c->players[defender].location == province)
			r->entered_from[defender] = came_from(at, d.path, d.stages);
		battle_given = d.choice == DEFEND_BATTLE;
	}
	free(path);
	if (battle_given && active(c, defender) && c->players[defender].location == province &&
	    c->players[invader].location == province)
		battle(r, invader, defender, province, line);
	else if (active(c, invader) && c->players[invader].location == province)
		siege_round(r, invader, province, line);
}

static void invasion(struct run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	size_t stages = o->route_len > 1 ? o->route_len - 1 : 0;
	int start = c->players[player].location;
	struct invasion_order io = {
		.player = player, .target = o->province,
		.path = stages ? o->route + 1 : NULL, .stages = stages,
		.on_storm = storm_choice_of(r, player), .force_passage = true,
		.passage = permissions(r, player, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	struct move_outcome out;
	struct rules_reason why;
	bool arrived = false;
	if (rules_invade(c, &io, &r->dice.base, r->log, &out, &arrived, &why) != RULES_OK) {
		char *what = xasprintf("INVADE %s", province_of(c, o->province));
		refused(r, o->line, player, what, why.text);
		free(what);
		return;
	}
	if (!dice_ok(r))
		return;
	r->entered_from[player] = came_from(start, io.path, stages);
	if (!supply_check(r, player, out.forced_passage))
		return;
	if (!arrived || !active(c, player) || c->players[player].location != o->province)
		return;
	int owner = c->provinces[o->province].owner;
	if (active(c, owner) && owner != player)
		defence(r, player, owner, o->province, o->line);
	else
		siege_round(r, player, o->province, o->line);
}

static void field_move(struct run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	struct move_order mo = {
		.player = player, .contingent = NO_INDEX, .kind = MOVE_FRIENDLY,
		.path = o->route_len > 1 ? o->route + 1 : NULL,
		.stages = o->route_len > 1 ? o->route_len - 1 : 0,
		.on_storm = storm_choice_of(r, player), .force_passage = true,
		.passage = permissions(r, player, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	struct move_outcome out;
	struct rules_reason why;
	if (rules_field_move(c, &mo, &r->dice.base, r->log, &out, &why) != RULES_OK) {
		char *what = xasprintf("MOVE %s", province_of(c, o->province));
		refused(r, o->line, player, what, why.text);
		free(what);
		return;
	}
	if (dice_ok(r))
		supply_check(r, player, out.forced_passage);
}

static void send_contingent(struct run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	const struct army_list *l = &c->players[player].list;
	int *troops = xcalloc(l->count + 1, sizeof *troops);
	for (size_t i = 0; i < o->item_count; i++)
		if (o->items[i].type >= 0 && (size_t)o->items[i].type < l->count)
			troops[o->items[i].type] += o->items[i].count;
	struct contingent_order co = {
		.owner = player, .to_player = o->target, .troops = troops,
		.path = o->route_len > 1 ? o->route + 1 : NULL,
		.stages = o->route_len > 1 ? o->route_len - 1 : 0,
		.on_storm = storm_choice_of(r, player), .force_passage = true,
		.passage = permissions(r, player, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	struct rules_reason why;
	int index;
	if (rules_contingent_send(c, &co, &r->dice.base, r->log, &index, &why) != RULES_OK) {
		char *what = xasprintf("SEND CONTINGENT TO %s", key_of(c, o->target));
		refused(r, o->line, player, what, why.text);
		free(what);
	} else {
		dice_ok(r);
	}
	free(troops);
}

static const struct scenario_section *player_section(const struct scenario_phase *ph, int player)
{
	for (size_t k = 0; k < ph->section_count; k++)
		if (ph->sections[k].kind == SCENARIO_PLAYER && ph->sections[k].player == player)
			return &ph->sections[k];
	return NULL;
}

static bool leave(struct run *r, int player, const struct order *o)
{
	if (o->kind != ORDER_LEAVE || !o->confirmed)
		return false;
	struct rules_reason why;
	if (rules_player_leaves(r->c, player, o->arg != NULL, r->log, &why) != RULES_OK)
		refused(r, o->line, player, "LEAVE CAMPAIGN", why.text);
	return !active(r->c, player);
}

static void turn(struct run *r, int player)
{
	struct campaign *c = r->c;
	const struct scenario_section *sec = player_section(r->phase, player);
	r->entered_from[player] = NO_INDEX;
	if (!sec)
		return;
	/* Routes are planned from where the armies stand now. */
	struct order_set now;
	orders_parse(sec->body, c, player, &now);
	for (size_t i = 0; i < now.count; i++)
		now.orders[i].line += sec->line;
	for (size_t i = 0; i < now.count && !r->stop; i++) {
		struct order *o = &now.orders[i];
		if (o->status == ORDER_ERROR && scenario_is_route_kind(o->kind))
			refused(r, o->line, player, order_kind_keyword(o->kind),
				o->error ? o->error : "not understood");
	}
	struct rules_reason why;
	for (size_t i = 0; i < now.count && !r->stop; i++) {
		const struct order *o = &now.orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (leave(r, player, o)) {
			orders_set_free(&now);
			return;
		}
		if (o->kind == ORDER_RETRIEVE_GENERAL) {
			if (rules_retrieve_general(c, player, o->type, NULL, r->log, &why) != RULES_OK)
				refused(r, o->line, player, "RETRIEVE GENERAL", why.text);
		} else if (o->kind == ORDER_RECALL_CONTINGENTS) {
			for (size_t k = 0; k < c->contingent_count && !r->stop; k++)
				if (c->contingents[k].owner == player && !c->contingents[k].returning) {
					rules_contingent_recall(c, (int)k, &r->dice.base, r->log, NULL);
					dice_ok(r);
				}
		}
	}
	for (size_t i = 0; i < now.count && !r->stop && active(c, player); i++) {
		const struct order *o = &now.orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (o->kind == ORDER_INVADE)
			invasion(r, player, o);
		else if (o->kind == ORDER_MOVE)
			field_move(r, player, o);
		else if (o->kind == ORDER_SEND_CONTINGENT)
			send_contingent(r, player, o);
	}
	orders_set_free(&now);
}

/* TRIBUTARY OF requests, accepted if the overlord's standing orders
 * accept that player. */
static void tributary_requests(struct run *r, const struct scenario_phase *ph)
{
	for (size_t k = 0; k < ph->section_count && !r->stop; k++) {
		const struct scenario_section *sec = &ph->sections[k];
		if (sec->kind != SCENARIO_PLAYER || sec->player < 0 || !active(r->c, sec->player))
			continue;
		for (size_t i = 0; i < sec->orders.count && !r->stop; i++) {
			const struct order *o = &sec->orders.orders[i];
			if (o->status != ORDER_OK || o->kind != ORDER_TRIBUTARY_OF)
				continue;
			bool accepted = false;
			const struct standing *st = &r->standing[o->target];
			for (size_t j = 0; j < st->count; j++)
				if (st->orders[j]->kind == ORDER_ACCEPT_TRIBUTARY &&
				    st->orders[j]->target == sec->player)
					accepted = true;
			struct rules_reason why;
			if (rules_tributary_request(r->c, sec->player, o->target, accepted, r->log,
						    &why) != RULES_OK)
				refused(r, o->line, sec->player, "TRIBUTARY OF", why.text);
		}
	}
}

static void campaign_phase(struct run *r, const struct scenario_phase *ph)
{
	struct campaign *c = r->c;
	r->dice.base.counter = 0; /* each year's rolls are numbered from 1, as in play */
	int *order = xcalloc(c->player_count + 1, sizeof *order);
	size_t n = 0;
	if (ph->sequence) {
		rules_year_prepare(c, &r->dice.base, r->log);
		json_t *keys = json_array();
		for (size_t k = 0; k < ph->sequence_count; k++)
			if (active(c, ph->sequence[k])) {
				order[n++] = ph->sequence[k];
				json_array_append_new(keys, json_string(key_of(c, ph->sequence[k])));
			}
		event_emit(r->log, "sequence_of_play", RULE_GAME_YEAR, "{s:o, s:b}", "order", keys,
			   "fixed", 1);
		for (size_t p = 0; p < c->player_count; p++) {
			bool listed = false;
			for (size_t k = 0; k < n; k++)
				listed |= order[k] == (int)p;
			if (active(c, (int)p) && !listed)
				fail(r, ph->sequence_line, "the sequence of %d leaves out %s", ph->year,
				     key_of(c, (int)p));
		}
	} else {
		n = rules_year_begin(c, &r->dice.base, r->log, order);
		dice_ok(r);
	}
	standing_merge(r, ph);
	tributary_requests(r, ph);
	for (size_t k = 0; k < n && !r->stop; k++) {
		if (!active(c, order[k]))
			continue;
		turn(r, order[k]);
		if (!r->stop)
			rules_contingent_rejoin_returning(c, NO_INDEX, r->log);
	}
	free(order);
	for (size_t k = 0; k < ph->section_count && !r->stop; k++)
		if (ph->sections[k].kind == SCENARIO_BATTLE && !r->battle_used[k])
			fail(r, ph->sections[k].line, "no battle was fought at %s in %d",
			     province_of(c, ph->sections[k].province), ph->year);
}

static void add_counts(const struct order *o, enum order_kind kind, int *counts)
{
	if (o->kind == kind && o->type >= 0)
		counts[o->type] += kind == ORDER_RETRIEVE_GENERAL ? 1 : o->count;
}

static void recruitment_phase(struct run *r, const struct scenario_phase *ph)
{
	struct campaign *c = r->c;
	rules_recruitment_begin(c, &r->dice.base, r->log);
	standing_merge(r, ph);
	tributary_requests(r, ph);
	struct rules_reason why;
	for (size_t p = 0; p < c->player_count && !r->stop; p++) {
		const struct scenario_section *sec = player_section(ph, (int)p);
		if (!sec || !active(c, (int)p))
			continue;
		const struct army_list *l = &c->players[p].list;
		int *dismiss = xcalloc(l->count + 1, sizeof *dismiss);
		int *take = xcalloc(l->count + 1, sizeof *take);
		int dismiss_line = 0, recruit_line = 0;
		bool left = false;
		for (size_t i = 0; i < sec->orders.count && !r->stop && !left; i++) {
			const struct order *o = &sec->orders.orders[i];
			if (o->status != ORDER_OK)
				continue;
			left = leave(r, (int)p, o);
			if (o->kind == ORDER_RENOUNCE) {
				int tributary = c->players[p].overlord == o->target ? (int)p : o->target;
				if (tributary >= 0 && c->players[tributary].overlord != (int)p &&
				    tributary != (int)p)
					tributary = (int)p;
				if (rules_tributary_renounce(c, tributary, r->log, &why) != RULES_OK)
					refused(r, o->line, (int)p, "RENOUNCE", why.text);
			}
			add_counts(o, ORDER_DISMISS, dismiss);
			add_counts(o, ORDER_RECRUIT, take);
			add_counts(o, ORDER_RETRIEVE_GENERAL, take);
			if (o->kind == ORDER_DISMISS && !dismiss_line)
				dismiss_line = o->line;
			if ((o->kind == ORDER_RECRUIT || o->kind == ORDER_RETRIEVE_GENERAL) &&
			    !recruit_line)
				recruit_line = o->line;
		}
		if (!r->stop && !left && dismiss_line &&
		    rules_dismiss(c, (int)p, dismiss, r->log, &why) != RULES_OK)
			refused(r, dismiss_line, (int)p, "DISMISS", why.text);
		if (!r->stop && !left && recruit_line &&
		    rules_recruit(c, (int)p, take, r->log, &why) != RULES_OK)
			refused(r, recruit_line, (int)p, "RECRUIT", why.text);
		free(dismiss);
		free(take);
	}
	if (r->stop)
		return;
	if (rules_year_end(c, &r->dice.base, r->log)) {
		if (!dice_ok(r))
			return;
		bool all_continue = true;
		for (size_t p = 0; p < c->player_count; p++) {
			if (!active(c, (int)p))
				continue;
			const struct order *v = standing_last(r, (int)p, ORDER_VOTE);
			all_continue &= v && v->choice == CHOICE_CONTINUE;
		}
		rules_campaign_end_vote(c, all_continue, r->log);
	} else {
		dice_ok(r);
	}
}

enum scenario_status scenario_run(const struct scenario *s, struct campaign *c,
				  const struct scenario_options *opt, struct event_log *log,
				  struct diag_list *diags)
{
	static const struct scenario_options defaults;
	struct run r = {
		.s = s, .c = c, .opt = opt ? opt : &defaults, .log = log, .diags = diags,
		.status = SCENARIO_OK,
	};
	r.dice.base.roll = scenario_dice_roll;
	r.dice.log = log;
	r.dice.values = s->dice;
	r.dice.count = s->dice_count;
	if (r.opt->use_seed || s->has_seed) {
		r.dice.seeded = true;
		dice_hmac_init(&r.dice.hmac, r.opt->use_seed ? r.opt->seed : s->seed, c->year,
			       PHASE_CAMPAIGN, 0);
	}
	size_t np = c->player_count + 1;
	r.standing = xcalloc(np, sizeof *r.standing);
	r.entered_from = xcalloc(np, sizeof *r.entered_from);
	r.permission = xcalloc(np, sizeof *r.permission);
	for (size_t i = 0; i < s->phase_count && !r.stop; i++) {
		const struct scenario_phase *ph = &s->phases[i];
		if (c->phase == PHASE_ENDED) {
			diag_add(diags, DIAG_WARNING, s->filename, ph->line,
				 "the campaign ended in %d: the rest of the scenario is not played",
				 c->year);
			break;
		}
		if (c->year != ph->year) {
			fail(&r, ph->line, "the campaign is in %d, not %d", c->year, ph->year);
			break;
		}
		r.phase = ph;
		r.battle_used = xcalloc(ph->section_count + 1, sizeof *r.battle_used);
		if (ph->phase == PHASE_CAMPAIGN)
			campaign_phase(&r, ph);
		else
			recruitment_phase(&r, ph);
		free(r.battle_used);
		r.battle_used = NULL;
	}
	for (size_t i = 0; i < c->player_count; i++)
		free(r.standing[i].orders);
	free(r.standing);
	free(r.entered_from);
	free(r.permission);
	free(r.dice.ran_out_purpose);
	if (r.dice.seeded)
		dice_hmac_clear(&r.dice.hmac);
	return r.status;
}
