/* Setting up by mail (rules 1.3): the army and start a player's ARMY and
 * START IN orders choose, and what the acknowledgement shows of them. */
#include "config.h"

#include "dbm/orders_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>

#define SETUP_MISSING_MAX 32

void orders_setup_of(const struct order_set *set, const struct campaign *c, int player,
		     int *counts, bool *has_army, int *start)
{
	const struct army_list *l = &c->players[player].list;
	for (size_t i = 0; i < l->count; i++)
		counts[i] = 0;
	*has_army = false;
	*start = NO_INDEX;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (o->kind == ORDER_START_IN) {
			*start = o->province;
		} else if (o->kind == ORDER_ARMY) {
			/* the last ARMY line counts, as a whole */
			for (size_t k = 0; k < l->count; k++)
				counts[k] = 0;
			*has_army = true;
			for (size_t k = 0; k < o->item_count; k++)
				if (o->items[k].type >= 0 && (size_t)o->items[k].type < l->count &&
				    counts[o->items[k].type] < 100000)
					counts[o->items[k].type] += o->items[k].count;
		}
	}
}

json_t *orders_setup_json(const struct order_set *current, const struct campaign *c, int player)
{
	char buf[16];
	if (player < 0 || (size_t)player >= c->player_count || !c->players[player].setup_by_mail ||
	    (c->phase != PHASE_SETUP && c->players[player].status != PLAYER_JOINING))
		return NULL;
	const struct player *p = &c->players[player];
	int *counts = xcalloc(p->list.count + 1, sizeof *counts);
	bool has_army;
	int start;
	orders_setup_of(current, c, player, counts, &has_army, &start);
	json_t *army = json_array();
	int total = 0, generals = 0;
	for (size_t i = 0; i < p->list.count; i++) {
		const struct element_type *t = &p->list.types[i];
		total += counts[i] * t->cost_half_ap;
		generals += t->general ? counts[i] : 0;
		if (counts[i] == 0)
			continue;
		json_array_append_new(army, json_pack("{s:i, s:s, s:s, s:b}", "count", counts[i],
						      "label", t->label, "ap",
						      half_ap_format(counts[i] * t->cost_half_ap, buf),
						      "general", t->general));
	}
	char *lines[SETUP_MISSING_MAX];
	size_t n = rules_setup_missing(c, player, has_army ? counts : NULL, start, lines,
				       SETUP_MISSING_MAX);
	json_t *missing = json_array();
	for (size_t i = 0; i < n && i < SETUP_MISSING_MAX; i++) {
		json_array_append_new(missing, json_string(lines[i]));
		free(lines[i]);
	}
	json_t *homes = json_array();
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].home_of == player)
			json_array_append_new(homes, json_string(c->provinces[i].name));
	json_t *j = json_pack("{s:b, s:o, s:s, s:i, s:o, s:o, s:b, s:o}", "has_army", has_army,
			      "army", army, "total_ap", half_ap_format(total, buf), "generals",
			      generals, "start",
			      start >= 0 ? json_string(c->provinces[start].name) : json_null(),
			      "missing", missing, "ready", n == 0, "home_provinces", homes);
	if (p->status == PLAYER_JOINING) /* added during play: enters next year */
		json_object_set_new(j, "enters_year", json_integer(c->year + 1));
	free(counts);
	return j;
}
