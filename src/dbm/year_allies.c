/* The allies called before a battle (rules 2.2, 2.3, 3.2): who is on
 * call for each side, standing contingents sent at once, the others asked
 * with a deadline, tributaries on their overlord's order; and the
 * permissions of passage and supply the players give a mover. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Allies on call (rules 2.2, 2.3): a side's allies (rules_allied: declared
 * allies, its direct tributaries and its overlord), when they are not
 * allied to the other side too. A declared ally is called only while the
 * Ally option is still open to him (he has not moved or invaded this
 * year); a tributary's contingent is its overlord's order. Other players
 * are called only when they agreed in advance (may_volunteer). */
static bool ally_of(const struct campaign *c, int ally, int side, int enemy)
{
	if (!active(c, ally) || ally == side || ally == enemy)
		return false;
	/* besieged where the battle is: in it already (2.3 relief) or shut in */
	if (c->players[ally].location == c->players[side].location)
		return false;
	if (!rules_allied(c, ally, side) || rules_allied(c, ally, enemy))
		return false;
	if (rules_tributary_related(c, ally, side))
		return true;
	int option = c->players[ally].movement_option;
	return option == OPTION_NONE || option == OPTION_ALLY;
}

/* May `ally`, bound to neither side, be called for `side` against `enemy`
 * as a player who agreed in advance (rules 1.4 Ally: any player may help)?
 * Only if he has not moved or invaded this year: the Ally option excludes
 * the others (one who already sent a contingent may send more). Whether
 * he agreed is his standing CONTINGENT FOR (ally_answer); he is never
 * asked. */
static bool may_volunteer(const struct campaign *c, int ally, int side, int enemy)
{
	if (!active(c, ally) || ally == side || ally == enemy)
		return false;
	if (c->players[ally].location == c->players[side].location)
		return false;
	if (rules_allied(c, ally, side) || rules_allied(c, ally, enemy))
		return false;
	int option = c->players[ally].movement_option;
	return option == OPTION_NONE || option == OPTION_ALLY;
}

/* The ally sends the contingent of its CONTINGENT FOR order to `side`'s
 * field army: as its overlord's order when `side` is its overlord, or as
 * `orderer`'s (rules 3.2, an ordered or substitute contingent) when that
 * is not NO_INDEX. Returns false (the ally told why) when it cannot. */
static bool send_on_call(struct year_run *r, int ally, int side, const struct order *o,
			 int orderer)
{
	struct campaign *c = r->c;
	const struct player *pl = &c->players[ally];
	int *troops = xcalloc(pl->list.count + 1, sizeof *troops);
	for (size_t i = 0; i < o->item_count; i++)
		if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count)
			troops[o->items[i].type] += o->items[i].count;
	size_t np = c->player_count;
	bool *passage = xcalloc(np + 1, sizeof *passage);
	bool *supply = xcalloc(np + 1, sizeof *supply);
	year_permissions_given(r, ally, passage, supply);
	struct contingent_order co = {.owner = ally, .to_player = side, .troops = troops,
				      .on_storm = year_player_storm(r, ally), .force_passage = true,
				      .passage = passage};
	struct rules_reason why;
	int index = NO_INDEX;
	if (orderer == NO_INDEX && c->players[ally].overlord == side)
		orderer = side;
	enum rules_status st =
		orderer != NO_INDEX
			? rules_tributary_order_contingent(c, orderer, &co, r->dice, r->log, &index,
							   &why)
			: rules_contingent_send(c, &co, r->dice, r->log, &index, &why);
	if (st != RULES_OK) {
		char *text = orders_format_one(o, c, ally);
		year_refused(r, ally, text, why.text);
		free(text);
	}
	free(troops);
	free(passage);
	free(supply);
	return st == RULES_OK;
}

/* Rules 3.2: the contingent `call->sender` was ordered to send to `side`
 * and chose none (silence, or an ANSWER ALLIES NO that does not hold
 * against the order): the default goes, and the sender is told; if even
 * that cannot go, `side` is told too. */
static void send_ordered_default(struct year_run *r, const struct tributary_call *call, int side,
				 bool refused)
{
	struct campaign *c = r->c;
	struct order o;
	bool made = year_tributary_default(r, call, side, &o);
	if (made && refused)
		year_refused_instead(r, call->sender, "ANSWER ALLIES NO",
				     "you were ordered to provide a contingent (rules 3.2: a "
				     "tributary cannot refuse)",
				     "the contingent you were told of goes");
	bool sent = made && send_on_call(r, call->sender, side, &o, call->orderer);
	if (!sent) {
		char *line = xasprintf("CONTINGENT FROM %s", pkey(c, call->sender));
		year_refused(r, side, line,
			     made ? "the contingent could not be sent (its owner was told why)"
				  : "its field army has a single general: no contingent can be made");
		if (!made)
			year_refused(r, call->sender, "the ordered contingent",
				     "your field army has a single general: no contingent can be "
				     "made");
		free(line);
	}
	order_free(&o);
}

/* Rules 2.3: "normal movement rules apply to contingents", and they
 * cannot forced march. An ally whose contingent cannot reach `side`'s
 * army at `province` (too far, a field army barring the way) could send
 * nothing: he is not asked, and the battle's report says why (event
 * ally_out_of_reach). Returns true when it can reach. */
static bool within_reach(struct year_run *r, int ally, int side, int province)
{
	struct campaign *c = r->c;
	size_t np = c->player_count;
	bool *passage = xcalloc(np + 1, sizeof *passage);
	bool *supply = xcalloc(np + 1, sizeof *supply);
	year_permissions_given(r, ally, passage, supply);
	struct rules_reason why;
	bool ok = rules_contingent_reach(c, ally, side, passage, &why) == RULES_OK;
	if (!ok)
		event_emit(r->log, "ally_out_of_reach", RULE_CONTINGENT_MOVEMENT,
			   "{s:s, s:s, s:s, s:s, s:s}", "player", pkey(c, ally), "with",
			   pkey(c, side), "province", prov_name(c, province), "from",
			   prov_name(c, c->players[ally].location), "reason", why.text);
	free(passage);
	free(supply);
	return ok;
}

/* Rules 3.2 before a battle: the sender `call` names, ordered to send
 * `side` a contingent, sends its chosen one (CONTINGENT FOR side), or is
 * asked (added to `asked`/`sides`/`ordered`) with a deadline and the
 * default. */
static void ordered_ally(struct year_run *r, const struct tributary_call *call_in, int side,
			 int province, json_t *asked, json_t *sides, json_t *ordered)
{
	struct campaign *c = r->c;
	struct tributary_call call = *call_in;
	struct order_set set;
	year_load_orders(r, call.sender, &set);
	const struct order *o;
	if (year_ally_answer(&set, side, &o) == 1)
		send_on_call(r, call.sender, side, o, call.orderer);
	else if (!json_object_get(sides, pkey(c, call.sender)) &&
		 within_reach(r, call.sender, side, province)) {
		json_array_append_new(asked, json_string(pkey(c, call.sender)));
		json_object_set_new(sides, pkey(c, call.sender), json_string(pkey(c, side)));
		json_object_set_new(ordered, pkey(c, call.sender), json_string(pkey(c, call.orderer)));
	}
	orders_set_free(&set);
}

/* A player who agreed in advance to help `side` (o: his standing
 * CONTINGENT FOR side, or NULL) sends that contingent, unless he agreed to
 * help `enemy` too: he cannot take both sides, so he sends nothing and is
 * told so once (when `tell`). */
static void volunteer(struct year_run *r, int ally, int side, int enemy, bool tell,
		      const struct order_set *set, const struct order *o)
{
	if (!o)
		return;
	const struct order *other;
	if (year_ally_answer(set, enemy, &other) == 1) {
		if (tell) {
			char *text = orders_format_one(o, r->c, ally);
			char *why = xasprintf("%s has a standing CONTINGENT FOR both sides of the "
					      "battle between %s and %s: no contingent is sent",
					      pkey(r->c, ally), pkey(r->c, side), pkey(r->c, enemy));
			year_refused(r, ally, text, why);
			free(why);
			free(text);
		}
		return;
	}
	send_on_call(r, ally, side, o, NO_INDEX);
}

/* Before a battle: each side's allies answer by standing order at once;
 * the others are asked (a decision with its deadline; silence: no
 * contingent). Players who agreed in advance send their standing
 * contingent and are never asked. The battle starts when all have
 * answered. */
void year_call_allies(struct year_run *r, int attacker, int defender, int province,
			int came_from)
{
	struct campaign *c = r->c;
	json_t *asked = json_array(), *sides = json_object(), *ordered = json_object();
	int side_of[2] = {attacker, defender};
	for (int k = 0; k < 2; k++) {
		int side = side_of[k], enemy = side_of[1 - k];
		for (size_t a = 0; a < c->player_count; a++) {
			bool tributary = ally_of(c, (int)a, side, enemy);
			struct tributary_call call;
			if (tributary && year_tributary_called(r, (int)a, side, &call)) {
				ordered_ally(r, &call, side, province, asked, sides, ordered);
				continue;
			}
			if (!tributary && !may_volunteer(c, (int)a, side, enemy))
				continue;
			struct order_set set;
			year_load_orders(r, (int)a, &set);
			const struct order *o;
			int answer = year_ally_answer(&set, side, &o);
			if (!tributary) {
				volunteer(r, (int)a, side, enemy, k == 0, &set, answer == 1 ? o : NULL);
				orders_set_free(&set);
				continue;
			}
			if (answer == 1)
				send_on_call(r, (int)a, side, o, NO_INDEX);
			orders_set_free(&set);
			if (answer >= 0 || json_object_get(sides, pkey(c, (int)a)) ||
			    !within_reach(r, (int)a, side, province))
				continue;
			json_array_append_new(asked, json_string(pkey(c, (int)a)));
			json_object_set_new(sides, pkey(c, (int)a), json_string(pkey(c, side)));
		}
	}
	if (!json_array_size(asked)) {
		json_decref(asked);
		json_decref(sides);
		json_decref(ordered);
		year_start_battle(r, attacker, defender, province, came_from);
		return;
	}
	struct year_state *st = r->st;
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "kind", "allies",
				"attacker", pkey(c, attacker), "defender", pkey(c, defender),
				"province", prov_name(c, province), "came_from",
				prov_name(c, came_from), "asked", asked, "for", sides);
	if (json_object_size(ordered))
		json_object_set(st->pending, "ordered", ordered);
	json_decref(ordered);
	st->step = YEAR_DECISION;
	year_set_deadline_hours(r, c->settings.decision_deadline_hours);
	size_t i;
	json_t *v;
	json_array_foreach(asked, i, v) {
		int a = find_player(c, json_string_value(v));
		int side = find_player(c, jstr(json_object_get(st->pending, "for"),
					      json_string_value(v)));
		int enemy = side == attacker ? defender : attacker;
		event_emit(r->log, "decision_asked", RULE_CONTINGENT_MOVEMENT,
			   "{s:s, s:s, s:s, s:s}", "asked", pkey(c, a), "question", "allies",
			   "mover", pkey(c, side), "province", prov_name(c, province));
		json_t *d = year_deadline_data(r);
		const char *orderer = jstr(json_object_get(st->pending, "ordered"), pkey(c, a));
		json_object_update_new(d, json_pack("{s:b, s:s, s:s, s:s, s:s}", orderer ?
						"is_ordered" : "is_allies", 1,
						"ally", pkey(c, side), "ally_nation",
						pnation(c, side), "enemy_nation", pnation(c, enemy),
						"province", prov_name(c, province)));
		/* the tie that makes `a` an ally of `side` (ally_of: rules_allied) */
		json_object_set_new(d, "relation",
				    json_string(c->players[a].overlord == side ? "your overlord"
						: c->players[side].overlord == a ? "your tributary"
						: "your declared ally"));
		if (orderer) {
			struct tributary_call call = {a, find_player(c, orderer)};
			char *troops = year_tributary_default_text(r, &call, side);
			json_object_set_new(d, "default_troops", json_string(troops));
			json_object_set_new(d, "orderer_nation", json_string(pnation(c, call.orderer)));
			json_object_set_new(d, "substitute", json_boolean(call.orderer != side));
			free(troops);
		}
		year_mail(r, "decision", a, false, d, "%s calls on you for a contingent",
			  pnation(c, side));
	}
}


/* The allies asked before a battle have answered, or their deadline
 * passed (the decision `pd`): each one's contingent sent (silence from a
 * tributary on order: the default troops), then the battle. */
void year_allies_answered(struct year_run *r, const json_t *pd)
{
	struct campaign *c = r->c;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(pd, "asked"), i, v) {
		int a = find_player(c, json_string_value(v));
		int side = find_player(c, jstr(json_object_get(pd, "for"),
					      json_string_value(v)));
		struct order_set set;
		year_load_orders(r, a, &set);
		const struct order *o;
		int answer = active(c, a) ? year_ally_answer(&set, side, &o) : 0;
		const char *orderer = jstr(json_object_get(pd, "ordered"), pkey(c, a));
		event_emit(r->log, "decision", RULE_CONTINGENT_MOVEMENT,
			   "{s:s, s:s, s:s, s:b}", "asked", pkey(c, a), "question", "allies",
			   "answer", answer == 1 ? "contingent" : orderer ? "ordered default" : "none",
			   "by_default", answer < 0);
		if (answer == 1) {
			send_on_call(r, a, side, o, orderer ? find_player(c, orderer) : NO_INDEX);
		} else if (orderer && active(c, a)) {
			struct tributary_call call = {a, find_player(c, orderer)};
			send_ordered_default(r, &call, side, answer == 0);
		}
		orders_set_free(&set);
	}
	int attacker = find_player(c, jstr(pd, "attacker"));
	int defender = find_player(c, jstr(pd, "defender"));
	year_start_battle(r, attacker, defender, find_province(c, jstr(pd, "province")),
			  find_province(c, jstr(pd, "came_from")));
}

/* Passage and supply per player for the mover: what each one's standing
 * orders say; silence is no, but from an ally (rules_allied) it is yes. */
void year_permissions_given(struct year_run *r, int mover, bool *passage, bool *supply)
{
	for (size_t p = 0; p < r->c->player_count; p++) {
		struct order_set set;
		year_load_orders(r, (int)p, &set);
		bool ally = rules_allied(r->c, (int)p, mover);
		int pass = year_permission_of(&set, mover, false);
		int sup = year_permission_of(&set, mover, true);
		passage[p] = pass == 1 || (pass < 0 && ally);
		supply[p] = sup == 1 || (sup < 0 && ally);
		orders_set_free(&set);
	}
}
