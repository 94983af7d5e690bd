/* The list minimums a recruitment leaves unfilled (rules 3.1), for the
 * acknowledgement: what the army would have when the recruitment as it
 * stands is carried out, and what happens then. */
#include "config.h"

#include "dbm/orders_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* No army holds more elements of one kind than this; a larger count is no
 * order the check accepted. */
#define ORDERS_MINIMUMS_MAX_COUNT 10000

/* a + b kept within +-1,000,000 (a set of many lines sums no further) */
static int add_capped(int a, int b)
{
	long long v = (long long)a + b;
	return v > 1000000 ? 1000000 : v < -1000000 ? -1000000 : (int)v;
}

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

json_t *orders_minimums_json(const struct order_set *mail_orders, const struct order_set *current,
			     const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count || !current ||
	    !touches_recruitment(mail_orders, c))
		return NULL;
	const struct player *pl = &c->players[player];
	const struct army_list *l = &pl->list;
	if (!l->count || !pl->field.count || !pl->reserve.count)
		return NULL;
	int *army = rules_army_counts(c, player);
	int *reserve = xcalloc(l->count, sizeof *reserve);
	int *take = xcalloc(l->count, sizeof *take);
	memcpy(reserve, pl->reserve.count, l->count * sizeof *reserve);
	/* as the recruitment phase applies it: DISMISS, EXCHANGE, RECRUIT */
	for (size_t i = 0; i < current->count; i++) {
		const struct order *o = &current->orders[i];
		/* counts as validated (within the army and the reserve); a set
		 * never validated is not trusted with sums that overflow */
		if (o->status != ORDER_OK || o->type < 0 || (size_t)o->type >= l->count ||
		    o->count < 0 || o->count > ORDERS_MINIMUMS_MAX_COUNT ||
		    (o->kind == ORDER_EXCHANGE && o->item_count > 0 &&
		     (o->items[0].count < 0 || o->items[0].count > ORDERS_MINIMUMS_MAX_COUNT)))
			continue;
		if (o->kind == ORDER_DISMISS) {
			army[o->type] = add_capped(army[o->type], -o->count);
			reserve[o->type] = add_capped(reserve[o->type], o->count);
		} else if (o->kind == ORDER_EXCHANGE && o->item_count > 0 && o->items[0].type >= 0 &&
			   (size_t)o->items[0].type < l->count) {
			reserve[o->type] = add_capped(reserve[o->type], -o->count);
			reserve[o->items[0].type] =
				add_capped(reserve[o->items[0].type], o->items[0].count);
		} else if (o->kind == ORDER_RECRUIT) {
			take[o->type] = add_capped(take[o->type], o->count);
		} else if (o->kind == ORDER_RETRIEVE_GENERAL && c->phase == PHASE_RECRUITMENT) {
			take[o->type] = add_capped(take[o->type], 1);
		}
	}
	long long spent_ll = 0;
	for (size_t i = 0; i < l->count; i++)
		spent_ll += (long long)take[i] * l->types[i].cost_half_ap;
	int spent = spent_ll > 1000000000 ? 1000000000 : (int)spent_ll;
	int allowance = rules_recruit_allowance(c, player);
	int left = allowance > spent ? allowance - spent : 0;
	json_t *lines = json_array();
	bool binding = false;
	char a[16], b[16];
	for (size_t i = 0; i < l->count; i++) {
		const struct element_type *t = &l->types[i];
		int after = army[i] + take[i];
		if (after >= t->list_min)
			continue;
		int missing = t->list_min - after;
		int spare = reserve[i] - take[i];
		if (spare < 0)
			spare = 0;
		int fill = missing < spare ? missing : spare;
		int cost = fill * t->cost_half_ap;
		struct strbuf sb = {0};
		strbuf_printf(&sb, "%s: your army would have %d, %d short of its list minimum of %d",
			      t->label, after, missing, t->list_min);
		if (fill == 0)
			strbuf_printf(&sb, "; your reserve holds none to fill it, so it holds up no "
					   "other recruits");
		else if (cost <= left)
			strbuf_printf(&sb, "; %d more from your reserve would cost %s AP, and %s AP of "
					   "your allowance is left: you may add them now",
				      fill, half_ap_format(cost, a), half_ap_format(left, b));
		else if (t->cost_half_ap > 0 && left / t->cost_half_ap > 0)
			strbuf_printf(&sb, "; %d more from your reserve would cost %s AP, but only %s "
					   "AP of your allowance is left: %d more at most now, the "
					   "rest at the next recruitment",
				      fill, half_ap_format(cost, a), half_ap_format(left, b),
				      left / t->cost_half_ap);
		else
			strbuf_printf(&sb, "; %d more from your reserve would cost %s AP, but only %s "
					   "AP of your allowance is left: they come at the next "
					   "recruitment",
				      fill, half_ap_format(cost, a), half_ap_format(left, b));
		binding |= fill > 0;
		json_array_append_new(lines,
				      json_pack("{s:s, s:i, s:i, s:i, s:i, s:s}", "label", t->label,
						"list_min", t->list_min, "in_army", after, "short",
						missing, "from_reserve", fill, "text", sb.data));
		strbuf_free(&sb);
	}
	free(army);
	free(reserve);
	free(take);
	if (!json_array_size(lines)) {
		json_decref(lines);
		return NULL;
	}
	/* what happens: the recruitment is carried out as it stands; the
	 * rule orders what comes first, it adds nothing (doc/rules.md) */
	const char *what =
		binding ? "Your recruitment is carried out as it stands when the recruitment phase "
			  "ends: nothing is added to fill a list minimum for you, and the army "
			  "stays short. Until it is filled, no other troops can be recruited (rules "
			  "3.1): the minimum comes first, at this recruitment and at every one after. "
			  "To add missing troops now, send your whole recruitment again with them "
			  "(it replaces the earlier one as a whole)."
			: "Your recruitment is carried out as it stands when the recruitment phase "
			  "ends: the army stays short, but with none of these in your reserve the "
			  "minimum holds up no other recruits.";
	return json_pack("{s:o, s:s, s:b, s:b}", "lines", lines, "what", what, "binding", binding,
			 "as_army_stands", c->phase != PHASE_RECRUITMENT);
}
