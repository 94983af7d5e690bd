/* The list minimums a recruitment leaves unfilled (rules 3.1), for the
 * acknowledgement: what the army will have when the recruitment as it
 * stands is carried out, by the function that carries it out
 * (rules_recruit_orders) played on a copy of the campaign, and the figures
 * the ack template words. */
#include "config.h"

#include "dbm/orders_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* A mail that changes the recruitment, or says there is none (NO MOVE in
 * the recruitment phase). A RETRIEVE GENERAL of the campaign phase is no
 * recruit (orders_validate). */
static bool touches_recruitment(const struct order_set *set, const struct campaign *c)
{
	for (size_t i = 0; i < set->count; i++) {
		enum order_kind k = set->orders[i].kind;
		if (k == ORDER_RETRIEVE_GENERAL ? c->phase == PHASE_RECRUITMENT
		    : k == ORDER_NO_MOVE       ? c->phase == PHASE_RECRUITMENT
					       : orders_kind_is_recruitment(k))
			return true;
	}
	return false;
}

/* The recruitment of `current` carried out on a copy of the campaign, as
 * the end of the recruitment phase carries it out; before that phase, on
 * the army as it stands now, without a RETRIEVE GENERAL of the campaign
 * phase (it comes between turns, not with the recruits). Caller frees. */
static struct campaign *carried_out(const struct order_set *current, const struct campaign *c,
				    int player, struct rules_recruit_outcome *out)
{
	struct campaign *copy = campaign_copy(c);
	struct order_set set;
	orders_set_init(&set);
	set.player = player;
	for (size_t i = 0; i < current->count; i++) {
		const struct order *o = &current->orders[i];
		if (orders_kind_is_recruitment(o->kind) &&
		    (o->kind != ORDER_RETRIEVE_GENERAL || c->phase == PHASE_RECRUITMENT))
			order_copy(orders_set_add(&set), o);
	}
	copy->phase = PHASE_RECRUITMENT;
	struct event_log log;
	event_log_init(&log);
	rules_recruit_orders(copy, player, &set, &log, out);
	event_log_free(&log);
	orders_set_free(&set);
	return copy;
}

/* One element type left below its list minimum: the figures, and which of
 * the four cases it is (none in the reserve to fill it; all of it may be
 * added now; some now, the rest at the next recruitment; none now). */
static json_t *short_line(const struct element_type *t, int after, int spare, int left)
{
	int missing = t->list_min - after;
	int fill = missing < spare ? missing : spare;
	int cost = fill * t->cost_half_ap;
	int most_now = t->cost_half_ap > 0 ? left / t->cost_half_ap : 0;
	char a[16], b[16];
	return json_pack("{s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:b, s:b, s:i, s:b, s:b}", "label",
			 t->label, "list_min", t->list_min, "in_army", after, "short", missing,
			 "from_reserve", fill, "cost_ap", half_ap_format(cost, a), "left_ap",
			 half_ap_format(left, b), "none_in_reserve", fill == 0, "may_add_now",
			 fill > 0 && cost <= left, "most_now", most_now, "some_now",
			 fill > 0 && cost > left && most_now > 0, "next_recruitment",
			 fill > 0 && cost > left && most_now == 0);
}

json_t *orders_minimums_json(const struct order_set *mail_orders, const struct order_set *current,
			     const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count || !current ||
	    !touches_recruitment(mail_orders, c))
		return NULL;
	const struct player *pl = &c->players[player];
	if (!pl->list.count || !pl->field.count || !pl->reserve.count)
		return NULL;
	struct rules_recruit_outcome out;
	struct campaign *copy = carried_out(current, c, player, &out);
	const struct player *then = &copy->players[player];
	const struct army_list *l = &then->list;
	int *army = rules_army_counts(copy, player);
	int allowance = rules_recruit_allowance(copy, player);
	int left = allowance > out.recruited_half_ap ? allowance - out.recruited_half_ap : 0;
	json_t *lines = json_array();
	bool binding = false;
	for (size_t i = 0; i < l->count; i++) {
		if (army[i] >= l->types[i].list_min)
			continue;
		int spare = then->reserve.count[i] > 0 ? then->reserve.count[i] : 0;
		json_t *line = short_line(&l->types[i], army[i], spare, left);
		binding |= json_integer_value(json_object_get(line, "from_reserve")) > 0;
		json_array_append_new(lines, line);
	}
	free(army);
	campaign_free(copy);
	if (!json_array_size(lines)) {
		json_decref(lines);
		return NULL;
	}
	/* a step the rules will refuse (the army above is counted without
	 * it): the ack says so beside the minimums */
	json_t *refused = json_array();
	for (int s = 0; s < RECRUIT_STEP_COUNT; s++)
		if (out.step[s].refused)
			json_array_append_new(refused,
					      json_pack("{s:s, s:s}", "order",
							rules_recruit_step_keyword((enum rules_recruit_step)s),
							"reason", out.step[s].why.text));
	/* what happens (the ack template says it): the recruitment is carried
	 * out as it stands; the rule orders what comes first, it adds nothing
	 * (doc/rules.md) */
	return json_pack("{s:o, s:b, s:o, s:b, s:b}", "lines", lines, "has_refused",
			 json_array_size(refused) > 0, "refused", refused, "binding", binding,
			 "as_army_stands", c->phase != PHASE_RECRUITMENT);
}
