/* A turn of the year: the mover's movement option, the permissions and the
 * defender's answer it waits for (the allies called before a battle are in
 * year_allies.c). */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PATH 16

/* ---------------------------------------------------------------- the mover's orders */

/* The order with the route it takes: a route chosen for the player is
 * written out (VIA), for the messages and the decision that must name
 * the way; the player's pending orders keep only what he wrote. */
static char *order_with_route(const struct order *o, const struct campaign *c, int player)
{
	struct order copy = *o;
	copy.route_chosen = false;
	return orders_format_one(&copy, c, player);
}

/* Saves the player's pending orders less those of the movement option.
 * Returns true if one was there. */
static bool drop_movement(struct year_run *r, int p)
{
	struct order_set set;
	year_load_orders(r, p, &set);
	size_t w = 0;
	bool dropped = false;
	for (size_t i = 0; i < set.count; i++) {
		if (year_is_movement(set.orders[i].kind)) {
			order_free(&set.orders[i]);
			dropped = true;
		} else {
			set.orders[w++] = set.orders[i];
		}
	}
	set.count = w;
	if (dropped) {
		set.player = p;
		char *text = orders_format_pending(&set, r->c);
		r->io->orders_save(r->io->ctx, p, r->c->year, r->c->phase, text);
		free(text);
	}
	orders_set_free(&set);
	return dropped;
}

/* The mover's movement order checked as things stand now (his army may
 * have moved to defend, a province may have changed hands, a tributary
 * relation been made). One that can no longer be carried out is dropped
 * from his pending orders, the refusal logged; *text and *reason
 * (allocated) say which and why. Returns true if one was dropped. */
static bool drop_stale_movement(struct year_run *r, int p, char **text, char **reason)
{
	struct campaign *c = r->c;
	struct order_set set;
	year_load_orders(r, p, &set);
	orders_validate(&set, c, p);
	const struct order *o = year_find_movement(&set);
	*text = *reason = NULL;
	if (o && (o->kind == ORDER_MOVE || o->kind == ORDER_INVADE) &&
	    c->players[p].movement_option == OPTION_ALLY) {
		*text = orders_format_one(o, c, p);
		*reason = xasprintf("%s has already taken the Ally movement option this year (a "
				    "contingent was sent): no INVADE or MOVE until next year",
				    pnation(c, p));
	}
	if (o && o->kind == ORDER_CALL_OFF) {
		*text = xstrdup("CALL OFF");
		*reason = xstrdup("no call for allies is under way: CALL OFF answers your ASK "
				  "ALLIES once the answers are in");
	}
	for (size_t i = set.count; i-- > 0 && !o;) {
		const struct order *e = &set.orders[i];
		if (e->status == ORDER_ERROR && year_is_movement(e->kind)) {
			*text = xstrdup(e->text ? e->text : order_kind_keyword(e->kind));
			*reason = xstrdup(e->error ? e->error : "it is not valid now");
			break;
		}
	}
	orders_set_free(&set);
	if (!*text)
		return false;
	drop_movement(r, p);
	event_emit(r->log, "order_refused", RULE_GAME_YEAR, "{s:s, s:s, s:s, s:b}", "player",
		   pkey(c, p), "order", *text, "reason", *reason, "turn_open", 1);
	return true;
}

bool year_check_turn_orders(struct year_run *r)
{
	struct year_state *st = r->st;
	if (st->step != YEAR_TURN || st->turn >= st->sequence_len)
		return false;
	int p = st->sequence[st->turn];
	char *text, *reason;
	if (!drop_stale_movement(r, p, &text, &reason))
		return false;
	/* the player is told at once, his turn stays open, and the deadline
	 * counts from this mail (never earlier than it was) */
	int64_t before = st->deadline;
	year_set_deadline_hours(r, r->c->settings.turn_deadline_hours);
	if (before > st->deadline) {
		st->deadline = before;
		year_rearm_reminders(r);
	}
	json_t *d = year_deadline_data(r);
	json_object_update_new(d, json_pack("{s:s, s:s, s:b}", "order", text, "reason", reason,
					"turn_open", 1));
	year_mail(r, "order-refused", p, false, d, "Your order cannot be carried out");
	free(text);
	free(reason);
	return true;
}

/* A permission in the decision event: "allowed", "denied", or, when the
 * player answered the other question but not this one, that it is the
 * default (with no answer at all, the event says "by default" once). */
static const char *permission_said(int answer, bool silent)
{
	if (answer == 1)
		return "allowed";
	return answer == 0 || silent ? "denied" : "not answered, denied by default";
}

static bool waits_for_permission(struct year_run *r, int mover, const struct order *o);

/* ---------------------------------------------------------------- turns */

void year_end_turn(struct year_run *r)
{
	struct year_state *st = r->st;
	int p = st->turn < st->sequence_len ? st->sequence[st->turn] : NO_INDEX;
	rules_contingent_rejoin_returning(r->c, NO_INDEX, r->log);
	year_sync_turn_events(r);
	json_t *d = json_pack("{s:s, s:s, s:o, s:o}", "mover", pkey(r->c, p), "mover_nation",
			      pnation(r->c, p), "events",
			      year_events_for_mail(r->c, st->turn_events), "positions",
			      year_positions_json(r->c));
	year_mail(r, "turn-report", NO_INDEX, true, d, "The turn of %s",
		  pnation(r->c, p));
	year_tell_way_changes(r, p);
	json_decref(st->turn_events);
	st->turn_events = json_array();
	json_decref(st->pending);
	st->pending = NULL;
	st->turn++;
}

bool year_enter_turn(struct year_run *r)
{
	struct year_state *st = r->st;
	while (st->turn < st->sequence_len && !active(r->c, st->sequence[st->turn]))
		st->turn++;
	if (st->turn >= st->sequence_len)
		return false;
	int p = st->sequence[st->turn];
	st->step = YEAR_TURN;
	json_decref(st->pending);
	st->pending = NULL;
	year_set_deadline_hours(r, r->c->settings.turn_deadline_hours);
	year_sync_turn_events(r);
	json_decref(st->turn_events);
	st->turn_events = json_array();
	event_emit(r->log, "turn", RULE_GAME_YEAR, "{s:s, s:i, s:I}", "player", pkey(r->c, p),
		   "place", (int)st->turn + 1, "deadline", (json_int_t)st->deadline);

	/* an order sent in advance that can no longer be carried out is told
	 * in the mail that opens the turn: the deadline counts from it */
	char *stale = NULL, *stale_reason = NULL;
	drop_stale_movement(r, p, &stale, &stale_reason);
	struct order_set set;
	year_load_orders(r, p, &set);
	const struct order *mv = year_find_movement(&set);
	json_t *d = year_deadline_data(r);
	if (stale) {
		json_object_set_new(d, "refused_order", json_string(stale));
		json_object_set_new(d, "refused_reason", json_string(stale_reason));
	}
	free(stale);
	free(stale_reason);
	json_t *stored = r->io->year_events(r->io->ctx, r->c->year);
	json_object_set_new(d, "events", year_events_for_mail(r->c, stored));
	json_decref(stored);
	json_object_set_new(d, "positions", year_positions_json(r->c));
	json_object_set_new(d, "turn_number", json_integer((json_int_t)st->turn + 1));
	json_object_set_new(d, "orders_in", json_boolean(mv != NULL));
	if (waits_for_permission(r, p, mv))
		json_object_set_new(d, "waits_permission", json_true());
	char *pending_text = orders_format_pending(&set, r->c);
	json_object_set_new(d, "pending_orders", json_string(pending_text));
	json_object_set_new(d, "has_pending_orders", json_boolean(*pending_text != '\0'));
	free(pending_text);
	orders_set_free(&set);
	year_mail(r, "your-turn", p, false, d, "Your turn");
	return true;
}

/* A siege round by `besieger` at `province`, announced in the turn report. */
static void siege_round(struct year_run *r, int besieger, int province)
{
	bool captured = false;
	struct rules_reason why;
	if (rules_siege_round(r->c, besieger, province, NULL, r->dice, r->log, &captured, &why) !=
	    RULES_OK)
		year_refused(r, besieger, "siege", why.text);
}

/* The defender's answer, carried out; then battle or siege. Returns true if
 * a battle now waits for its result. */
static bool carry_out_defence(struct year_run *r, int attacker, int defender, int province,
			      int came_from, enum order_choice choice, int retreat_to)
{
	struct campaign *c = r->c;
	struct player *dp = &c->players[defender];
	int path[MAX_PATH];
	int stages = 0;
	struct rules_reason why;
	enum storm_choice storm = year_player_storm(r, defender);
	struct defence_order d = {.player = defender, .province = province,
				  .choice = DEFEND_SIEGE, .on_storm = storm,
				  .force_passage = true};
	if (choice == CHOICE_BATTLE) {
		d.choice = DEFEND_BATTLE;
		if (dp->location != province) {
			stages = rules_shortest_path(c, defender, dp->location, province, path,
						     MAX_PATH);
			d.path = path;
			d.stages = stages > 0 ? (size_t)stages : 0;
		}
	} else if (choice == CHOICE_RETREAT && retreat_to >= 0 && retreat_to != dp->location) {
		stages = rules_shortest_path(c, defender, dp->location, retreat_to, path, MAX_PATH);
		if (stages > 0) {
			d.path = path;
			d.stages = (size_t)stages;
		}
	}
	if (rules_defend(c, &d, r->dice, r->log, &why) != RULES_OK) {
		char *instead = xasprintf("%s stands a siege", prov_name(c, province));
		year_refused_instead(r, defender, choice == CHOICE_BATTLE ? "IF INVADED BATTLE"
								      : "IF INVADED RETREAT",
				     why.text, instead);
		free(instead);
		struct defence_order stay = {.player = defender, .province = province,
					     .choice = DEFEND_SIEGE, .on_storm = storm};
		if (rules_defend(c, &stay, r->dice, r->log, &why) != RULES_OK)
			year_refused(r, defender, "IF INVADED SIEGE", why.text);
	}
	if (d.choice == DEFEND_BATTLE && dp->location == province &&
	    c->players[attacker].location == province) {
		year_call_allies(r, attacker, defender, province, came_from);
		return true;
	}
	siege_round(r, attacker, province);
	return false;
}

/* 2.3 relief: the relieving army stands in its ally's besieged city. If
 * the besieger is still there, the battle is with it (the besieger defends:
 * its army arrived first); the besieged army, inside, gives its contingent
 * (its CONTINGENT FOR the relieving player, else the default) and the
 * other allies are called as for any battle. Returns true: the battle. */
static bool relief_arrived(struct year_run *r, int mover, int besieger, int province,
			   int came_from)
{
	struct campaign *c = r->c;
	if (!active(c, besieger) || c->players[besieger].location != province)
		return false;
	int owner = c->provinces[province].owner;
	if (owner >= 0 && active(c, owner) && c->players[owner].location == province) {
		const struct player *pl = &c->players[owner];
		struct order_set set;
		year_load_orders(r, owner, &set);
		const struct order *o = NULL;
		int *pick = NULL;
		if (year_ally_answer(&set, mover, &o) == 1 && o) {
			pick = xcalloc(pl->list.count + 1, sizeof *pick);
			for (size_t i = 0; i < o->item_count; i++)
				if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count)
					pick[o->items[i].type] += o->items[i].count;
		}
		orders_set_free(&set);
		struct rules_reason why;
		if (rules_relief_contingent(c, owner, mover, pick, r->log, NULL, &why) != RULES_OK) {
			char *what = xasprintf("a contingent for the relief of %s", prov_name(c, province));
			year_refused(r, owner, what, why.text);
			free(what);
		}
		free(pick);
	}
	year_call_allies(r, mover, besieger, province, came_from);
	return true;
}

/* The invader stands in the province: neutral cities are besieged at once;
 * a player is asked (or answers by standing order). Returns true if the turn
 * now waits (decision or battle). */
static bool invader_arrived(struct year_run *r, int attacker, int province, int came_from)
{
	struct campaign *c = r->c;
	int owner = c->provinces[province].owner;
	if (owner == NO_INDEX || !active(c, owner)) {
		siege_round(r, attacker, province);
		return false;
	}
	struct order_set set;
	year_load_orders(r, owner, &set);
	const struct order *o = year_if_invaded(&set, province);
	if (o) {
		enum order_choice ch = o->choice;
		int to = o->retreat_to;
		orders_set_free(&set);
		return carry_out_defence(r, attacker, owner, province, came_from, ch, to);
	}
	orders_set_free(&set);
	struct year_state *st = r->st;
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[s]}", "kind", "defence", "attacker",
				pkey(c, attacker), "defender", pkey(c, owner), "province",
				prov_name(c, province), "came_from", prov_name(c, came_from),
				"asked", pkey(c, owner));
	st->step = YEAR_DECISION;
	year_set_deadline_hours(r, c->settings.decision_deadline_hours);
	event_emit(r->log, "decision_asked", RULE_DEFENDING, "{s:s, s:s, s:s, s:s}", "asked",
		   pkey(c, owner), "question", "defence", "attacker", pkey(c, attacker),
		   "province", prov_name(c, province));
	json_t *d = year_deadline_data(r);
	json_object_set_new(d, "is_defence", json_true());
	json_object_set_new(d, "attacker_nation", json_string(pnation(c, attacker)));
	json_object_set_new(d, "province", json_string(prov_name(c, province)));
	json_object_set_new(d, "army_inside", json_boolean(c->players[owner].location == province));
	json_object_set_new(d, "your_location", json_string(prov_name(c, c->players[owner].location)));
	year_mail(r, "decision", owner, false, d, "%s is invaded", prov_name(c, province));
	return true;
}

/* The players a move must ask, by kind: who controls the hostile provinces
 * it passes (or has a field army there) and, for a field army that will end
 * out of its own supply, who controls the cities that could supply it. */
static void permissions_needed(struct year_run *r, int mover, const struct order *o,
			       json_t *passage, json_t *supply)
{
	struct campaign *c = r->c;
	for (size_t i = 0; i < o->hostile_count; i++) {
		int h = o->hostile[i];
		int asked[2] = {c->provinces[h].owner, NO_INDEX};
		for (size_t p = 0; p < c->player_count; p++)
			if ((int)p != mover && active(c, (int)p) && c->players[p].location == h)
				asked[1] = (int)p;
		for (int k = 0; k < 2; k++) {
			int q = asked[k];
			if (q < 0 || q == mover || !active(c, q))
				continue;
			bool dup = false;
			size_t j;
			json_t *v;
			json_array_foreach(passage, j, v)
				dup |= strcmp(json_string_value(v), pkey(c, q)) == 0;
			if (!dup)
				json_array_append_new(passage, json_string(pkey(c, q)));
		}
	}
	if (o->kind == ORDER_SEND_CONTINGENT)
		return;
	int dest = o->province;
	int near[64];
	size_t n = campaign_neighbours(c, dest, near, 63);
	if (n > 63)
		n = 63;
	near[n++] = dest;
	bool own = false;
	for (size_t i = 0; i < n; i++) {
		int route = campaign_route_between(c, dest, near[i]);
		if (near[i] != dest && route >= 0 && c->routes[route].sea &&
		    !c->settings.supply_across_sea)
			continue;
		int q = c->provinces[near[i]].owner;
		own |= q == mover;
		/* an ally's city supplies unless he said DENY SUPPLY (rules_allied) */
		if (q >= 0 && q != mover && rules_allied(c, q, mover)) {
			struct order_set set;
			year_load_orders(r, q, &set);
			own |= year_permission_of(&set, mover, true) != 0;
			orders_set_free(&set);
		}
	}
	if (own)
		return;
	for (size_t i = 0; i < n; i++) {
		int route = campaign_route_between(c, dest, near[i]);
		if (near[i] != dest && route >= 0 && c->routes[route].sea &&
		    !c->settings.supply_across_sea)
			continue;
		int q = c->provinces[near[i]].owner;
		if (q < 0 || q == mover || !active(c, q))
			continue;
		/* an ally supplies unless he said DENY SUPPLY: not asked */
		if (rules_allied(c, q, mover))
			continue;
		/* the invaded owner is not asked to feed the invader */
		if (o->kind == ORDER_INVADE && q == c->provinces[dest].owner)
			continue;
		bool dup = false;
		size_t j;
		json_t *v;
		json_array_foreach(supply, j, v)
			dup |= strcmp(json_string_value(v), pkey(c, q)) == 0;
		if (!dup)
			json_array_append_new(supply, json_string(pkey(c, q)));
	}
}

/* Of the players a move needs (permissions_needed), those whose standing
 * orders do not answer: they are asked. New reference. */
static json_t *permissions_asked(struct year_run *r, int mover, const json_t *passage,
				 const json_t *supply)
{
	json_t *asked = json_array();
	size_t i;
	json_t *v;
	for (int pass = 0; pass < 2; pass++) {
		json_array_foreach(pass ? supply : passage, i, v) {
			int q = find_player(r->c, json_string_value(v));
			struct order_set set;
			year_load_orders(r, q, &set);
			bool known = year_permission_of(&set, mover, pass == 1) >= 0;
			orders_set_free(&set);
			bool dup = false;
			size_t j;
			json_t *w;
			json_array_foreach(asked, j, w)
				dup |= json_equal(w, v);
			if (!known && !dup)
				json_array_append(asked, v);
		}
	}
	return asked;
}

/* Will the movement order `o` wait for permissions when carried out now? */
static bool waits_for_permission(struct year_run *r, int mover, const struct order *o)
{
	if (!o || o->kind == ORDER_NO_MOVE || o->kind == ORDER_SALLY ||
	    o->kind == ORDER_ASK_ALLIES || o->kind == ORDER_CALL_OFF)
		return false;
	json_t *passage = json_array(), *supply = json_array();
	permissions_needed(r, mover, o, passage, supply);
	json_t *asked = permissions_asked(r, mover, passage, supply);
	bool waits = json_array_size(asked) > 0;
	json_decref(asked);
	json_decref(passage);
	json_decref(supply);
	return waits;
}

static void order_path(const struct order *o, const int **path, size_t *stages)
{
	*stages = o->route_len > 0 ? o->route_len - 1 : 0;
	*path = *stages ? o->route + 1 : NULL;
}

/* Carries out the mover's movement order (with passage and supply as the
 * players gave them). Returns true if the turn waits (defence, battle). */
static bool carry_out_move(struct year_run *r, int mover, const struct order *o)
{
	struct campaign *c = r->c;
	size_t np = c->player_count;
	bool *passage = xcalloc(np + 1, sizeof *passage);
	bool *supply = xcalloc(np + 1, sizeof *supply);
	year_permissions_given(r, mover, passage, supply);
	enum storm_choice storm = year_player_storm(r, mover);
	char *text = order_with_route(o, c, mover);
	const char *stays = "your army stays where it is (no move this year)";
	const int *path;
	size_t stages;
	order_path(o, &path, &stages);
	struct rules_reason why;
	struct move_outcome out;
	bool waits = false;
	memset(&out, 0, sizeof out);
	/* no order sent: the default (NO MOVE), said as such, not as the
	 * player's own order */
	if (o->kind == ORDER_NO_MOVE && !o->text)
		event_emit(r->log, "turn_order", RULE_GAME_YEAR, "{s:s, s:s, s:b}", "player",
			   pkey(c, mover), "order", "NO MOVE", "by_default", 1);
	else
		event_emit(r->log, "turn_order", RULE_GAME_YEAR, "{s:s, s:s}", "player",
			   pkey(c, mover), "order", text ? text : "NO MOVE");
	/* A contingent sent on call during another player's turn is easily
	 * forgotten: name the option taken rather than the rules' bare refusal. */
	if ((o->kind == ORDER_MOVE || o->kind == ORDER_INVADE) &&
	    c->players[mover].movement_option == OPTION_ALLY) {
		char *reason = xasprintf("%s has already taken the Ally movement option this "
					 "year (a contingent was sent): no INVADE or MOVE until "
					 "next year", pnation(c, mover));
		year_refused_instead(r, mover, text, reason, stays);
		free(reason);
		/* the army stays: its supply at the end of the turn all the same */
		rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
		free(text);
		free(passage);
		free(supply);
		return false;
	}
	switch (o->kind) {
	case ORDER_MOVE: {
		struct move_order m = {.player = mover, .contingent = NO_INDEX,
				       .kind = MOVE_FRIENDLY, .path = path, .stages = stages,
				       .on_storm = storm, .force_passage = true,
				       .passage = passage};
		if (rules_field_move(c, &m, r->dice, r->log, &out, &why) != RULES_OK)
			year_refused_instead(r, mover, text, why.text, stays);
		rules_supply_check(c, mover, supply, out.forced_passage, NULL, r->dice, r->log);
		break;
	}
	case ORDER_INVADE: {
		struct invasion_order inv = {.player = mover, .target = o->province, .path = path,
					     .stages = stages, .on_storm = storm,
					     .force_passage = true, .passage = passage};
		bool arrived = false;
		int besieger = rules_relief_besieger(c, mover, o->province);
		int came_from = stages >= 2 ? path[stages - 2]
			       : o->route_len ? o->route[0] : NO_INDEX;
		if (stages == 0)
			came_from = NO_INDEX;
		if (rules_invade(c, &inv, r->dice, r->log, &out, &arrived, &why) != RULES_OK) {
			year_refused_instead(r, mover, text, why.text, stays);
			rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
			break;
		}
		rules_supply_check(c, mover, supply, out.forced_passage, NULL, r->dice, r->log);
		if (arrived && c->players[mover].location == o->province && besieger != NO_INDEX)
			waits = relief_arrived(r, mover, besieger, o->province, came_from);
		else if (arrived && c->players[mover].location == o->province)
			waits = invader_arrived(r, mover, o->province, came_from);
		break;
	}
	case ORDER_SEND_CONTINGENT: {
		const struct player *pl = &c->players[mover];
		int *troops = xcalloc(pl->list.count + 1, sizeof *troops);
		for (size_t i = 0; i < o->item_count; i++)
			if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count)
				troops[o->items[i].type] += o->items[i].count;
		struct contingent_order co = {.owner = mover, .to_player = o->target,
					      .troops = troops, .path = path, .stages = stages,
					      .on_storm = storm, .force_passage = true,
					      .passage = passage};
		int index = NO_INDEX;
		if (rules_contingent_send(c, &co, r->dice, r->log, &index, &why) != RULES_OK)
			year_refused_instead(r, mover, text, why.text, "no contingent is sent");
		free(troops);
		/* 2.1: the field army's supply at the end of the player's move,
		 * whatever option he took (here Ally: the army stays) */
		rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
		break;
	}
	case ORDER_SALLY: {
		/* 2.2: the besieged army gives battle to its besieger, in its own
		 * turn; it takes the Invade option (it attacks) */
		int at = c->players[mover].location;
		int besieger = NO_INDEX;
		for (size_t i = 0; i < c->siege_count; i++)
			if (c->sieges[i].province == at)
				besieger = c->sieges[i].besieger;
		if (c->players[mover].movement_option != OPTION_NONE &&
		    c->players[mover].movement_option != OPTION_INVADE) {
			year_refused(r, mover, text, "the movement option of this year is taken");
			rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
			break;
		}
		bool sallied = false;
		if (besieger == NO_INDEX || !active(c, besieger) ||
		    c->players[besieger].location != at)
			snprintf(why.text, sizeof why.text, "no field army besieges %s",
				 prov_name(c, at));
		else
			sallied = rules_siege_sally(c, mover, r->log, &why) == RULES_OK;
		if (!sallied) {
			year_refused(r, mover, text, why.text);
			rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
			break;
		}
		c->players[mover].movement_option = OPTION_INVADE;
		rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
		year_call_allies(r, mover, besieger, at, NO_INDEX);
		waits = true;
		break;
	}
	default:
		event_emit(r->log, "no_move", RULE_GAME_YEAR, "{s:s}", "player", pkey(c, mover));
		rules_supply_check(c, mover, supply, false, NULL, r->dice, r->log);
		break;
	}
	free(text);
	free(passage);
	free(supply);
	return waits;
}

/* The turn's movement order is known: ask permissions first if needed.
 * Returns true when the turn is over. */
static bool resolve_turn(struct year_run *r, int mover, const struct order *o)
{
	struct campaign *c = r->c;
	if (o && o->kind == ORDER_ASK_ALLIES) {
		year_solicit_begin(r, mover, o);
		return false;
	}
	if (o && o->kind == ORDER_CALL_OFF)
		o = NULL; /* nothing to call off (told at once when it came): no move */
	if (o && o->kind != ORDER_NO_MOVE && o->kind != ORDER_SALLY) {
		json_t *passage = json_array(), *supply = json_array();
		permissions_needed(r, mover, o, passage, supply);
		json_t *asked = permissions_asked(r, mover, passage, supply);
		size_t i;
		json_t *v;
		if (json_array_size(asked)) {
			char *text = order_with_route(o, c, mover);
			struct year_state *st = r->st;
			json_decref(st->pending);
			st->pending = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "kind", "permission",
						"mover", pkey(c, mover), "order", text, "passage",
						passage, "supply", supply, "asked", asked);
			st->step = YEAR_DECISION;
			year_set_deadline_hours(r, c->settings.decision_deadline_hours);
			json_array_foreach(asked, i, v) {
				int q = find_player(c, json_string_value(v));
				bool need_pass = false, need_supply = false;
				size_t j;
				json_t *w;
				json_array_foreach(passage, j, w)
					need_pass |= json_equal(w, v);
				json_array_foreach(supply, j, w)
					need_supply |= json_equal(w, v);
				event_emit(r->log, "decision_asked", RULE_HOSTILE_PROVINCES,
					   "{s:s, s:s, s:s, s:s}", "asked", pkey(c, q), "question",
					   need_pass && need_supply ? "passage and supply"
					   : need_pass ? "passage" : "supply",
					   "mover", pkey(c, mover), "order", text);
				json_t *d = year_deadline_data(r);
				json_object_set_new(d, "is_permission", json_true());
				json_object_set_new(d, "mover", json_string(pkey(c, mover)));
				json_object_set_new(d, "mover_nation", json_string(pnation(c, mover)));
				json_object_set_new(d, "order", json_string(text));
				json_object_set_new(d, "ask_passage", json_boolean(need_pass));
				json_object_set_new(d, "ask_supply", json_boolean(need_supply));
				year_mail(r, "decision", q, false, d, "%s asks your permission",
					  pnation(c, mover));
			}
			year_tell_mover_asked(r, mover, o, supply, asked);
			free(text);
			return false;
		}
		json_decref(passage);
		json_decref(supply);
		json_decref(asked);
	}
	struct order none = {.kind = ORDER_NO_MOVE, .status = ORDER_OK};
	return !carry_out_move(r, mover, o ? o : &none);
}

bool year_resolve_decision(struct year_run *r)
{
	struct campaign *c = r->c;
	json_t *pd = json_incref(r->st->pending);
	const char *kind = jstr(pd, "kind");
	bool waits = false;
	if (kind && strcmp(kind, "allies") == 0) {
		year_allies_answered(r, pd);
		waits = true;
	} else if (year_solicit_kind(pd)) {
		year_solicit_resolve(r, pd);
		waits = true;
	} else if (kind && strcmp(kind, "defence") == 0) {
		int attacker = find_player(c, jstr(pd, "attacker"));
		int defender = find_player(c, jstr(pd, "defender"));
		int province = find_province(c, jstr(pd, "province"));
		int came_from = find_province(c, jstr(pd, "came_from"));
		struct order_set set;
		year_load_orders(r, defender, &set);
		const struct order *o = year_if_invaded(&set, province);
		enum order_choice ch = o ? o->choice : CHOICE_SIEGE;
		int to = o ? o->retreat_to : NO_INDEX;
		event_emit(r->log, "decision", RULE_DEFENDING, "{s:s, s:s, s:s, s:b}", "asked",
			   pkey(c, defender), "question", "defence", "answer",
			   ch == CHOICE_BATTLE ? "battle" : ch == CHOICE_RETREAT ? "retreat" : "siege",
			   "by_default", o == NULL);
		orders_set_free(&set);
		waits = carry_out_defence(r, attacker, defender, province, came_from, ch, to);
	} else {
		int mover = find_player(c, jstr(pd, "mover"));
		size_t mark = r->log->count;
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(pd, "asked"), i, v) {
			int q = find_player(c, json_string_value(v));
			struct order_set set;
			year_load_orders(r, q, &set);
			int pass = year_permission_of(&set, mover, false);
			int sup = year_permission_of(&set, mover, true);
			orders_set_free(&set);
			/* what he was asked, as he answered it: an answer he did
			 * not give is said to be the default (silence is DENY) */
			bool need_pass = false, need_supply = false;
			size_t j;
			json_t *w;
			json_array_foreach(json_object_get(pd, "passage"), j, w)
				need_pass |= json_equal(w, v);
			json_array_foreach(json_object_get(pd, "supply"), j, w)
				need_supply |= json_equal(w, v);
			bool silent = (!need_pass || pass < 0) && (!need_supply || sup < 0);
			json_t *ev = event_emit(r->log, "decision", RULE_HOSTILE_PROVINCES,
						"{s:s, s:s, s:b}", "asked", pkey(c, q),
						"question", "permission", "by_default", silent);
			if (need_pass)
				json_object_set_new(ev, "passage",
						    json_string(permission_said(pass, silent)));
			if (need_supply)
				json_object_set_new(ev, "supply",
						    json_string(permission_said(sup, silent)));
		}
		struct order_set set;
		orders_parse(jstr(pd, "order"), c, mover, &set);
		const struct order *o = year_find_movement(&set);
		struct order none = {.kind = ORDER_NO_MOVE, .status = ORDER_OK};
		if (!o)
			year_refused_instead(r, mover, jstr(pd, "order"),
					     "the order no longer fits the map (the army moved)",
					     "your army stays where it is (no move this year)");
		waits = carry_out_move(r, mover, o ? o : &none);
		year_permission_outcome(r, pd, mark);
		orders_set_free(&set);
	}
	json_decref(pd);
	return !waits;
}

bool year_resolve_turn_now(struct year_run *r)
{
	struct year_state *st = r->st;
	int p = st->sequence[st->turn];
	struct order_set set;
	year_load_orders(r, p, &set);
	orders_validate(&set, r->c, p);
	const struct order *o = year_find_movement(&set);
	/* an order that was right when sent may no longer be (a tributary
	 * relation made since, a province lost): say why it is not obeyed */
	for (size_t i = 0; i < set.count && !o; i++)
		if (set.orders[i].status == ORDER_ERROR && year_is_movement(set.orders[i].kind))
			year_refused_instead(r, p, set.orders[i].text,
					     set.orders[i].error ? set.orders[i].error
								 : "not valid now",
					     "no move this year");
	if (!o)
		event_emit(r->log, "default_applied", RULE_GAME_YEAR, "{s:s, s:s}", "player",
			   pkey(r->c, p), "default", "NO MOVE");
	bool over = resolve_turn(r, p, o);
	orders_set_free(&set);
	return over;
}
