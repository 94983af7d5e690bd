/* A new year begins: the players who joined during the last one
 * (campaignctl add-player) enter play before its sequence of play is
 * rolled, with the army and start they chose by mail, or the default
 * (rules_setup_default) and a mail saying so. */
#include "config.h"

#include "dbm/orders.h"
#include "dbm/rules.h"
#include "dbm/year_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define JOIN_MISSING_MAX 32

static void enter_one(struct year_run *r, int player, int from_year)
{
	struct campaign *c = r->c;
	struct player *p = &c->players[player];
	struct order_set set;
	year_load_orders_at(r, player, from_year, PHASE_SETUP, &set);
	orders_validate(&set, c, player); /* what no longer holds is not used */
	int *counts = xcalloc(p->list.count + 1, sizeof *counts);
	bool has_army = false;
	int start = NO_INDEX;
	orders_setup_of(&set, c, player, counts, &has_army, &start);
	orders_set_free(&set);
	char *lines[JOIN_MISSING_MAX];
	size_t army_missing = rules_setup_missing(c, player, has_army ? counts : NULL, 0, lines,
						  JOIN_MISSING_MAX);
	for (size_t i = 0; i < army_missing && i < JOIN_MISSING_MAX; i++)
		free(lines[i]);
	bool army_done = has_army && army_missing == 0;
	bool start_done = start != NO_INDEX && c->provinces[start].home_of == player &&
			  c->provinces[start].owner == NO_INDEX;
	if (!army_done) {
		int def_start;
		rules_setup_default(c, player, counts, &def_start);
	}
	int placed = rules_player_enters(c, player, counts, start_done ? start : NO_INDEX, r->log);
	if (placed == NO_INDEX || (army_done && start_done)) {
		free(counts);
		return;
	}
	char buf[16];
	json_t *d = json_object();
	json_t *army = json_array();
	for (size_t i = 0; i < p->list.count; i++)
		if (counts[i])
			json_array_append_new(army, json_pack("{s:i, s:s}", "count", counts[i],
							      "label", p->list.types[i].label));
	json_object_set_new(d, "army", army);
	json_object_set_new(d, "total_ap", json_string(half_ap_format(p->original_half_ap, buf)));
	json_object_set_new(d, "army_default", json_boolean(!army_done));
	json_object_set_new(d, "start_default", json_boolean(!start_done));
	json_object_set_new(d, "start", json_string(c->provinces[placed].name));
	json_object_set_new(d, "enters_year", json_integer(c->year));
	year_mail(r, "setup-default", player, true, d, "You entered the campaign without your "
		  "setup");
	free(counts);
}

void year_enter_joiners(struct year_run *r, int from_year)
{
	struct campaign *c = r->c;
	for (size_t p = 0; p < c->player_count; p++)
		if (c->players[p].status == PLAYER_JOINING)
			enter_one(r, (int)p, from_year);
}
