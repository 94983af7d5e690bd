/* 2.3 Relief: "The only circumstance in which two allied field armies can
 * be at the same location is if one is standing siege and the other is
 * attempting to relieve it, in which case the besieged army provides only a
 * contingent for the battle." An ally's INVADE of the besieged city is a
 * relief: the battle is with the besieger, the besieged army gives a
 * contingent to the relieving side. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* The default contingent of a besieged army: its cheapest general that is
 * not its last (the later army-list line on a tie), then elements in
 * army-list order while they fit in 80 AP. False if no general can go. */
static bool default_pick(const struct army_list *l, const struct troops *field, int *pick)
{
	int generals = troops_generals(l, field), g = -1;
	if (generals < 2)
		return false;
	for (size_t i = 0; i < l->count; i++)
		if (l->types[i].general && field->count[i] > 0 &&
		    (g < 0 || l->types[i].cost_half_ap <= l->types[g].cost_half_ap))
			g = (int)i;
	pick[g] = 1;
	int value = l->types[g].cost_half_ap;
	for (size_t i = 0; i < l->count; i++) {
		if (l->types[i].general)
			continue;
		while (pick[i] < field->count[i] &&
		       value + l->types[i].cost_half_ap <= RULES_CONTINGENT_MAX_HALF_AP) {
			pick[i]++;
			value += l->types[i].cost_half_ap;
		}
	}
	return true;
}

/* A pick of the besieged player (CONTINGENT FOR the relieving player):
 * within the field army, at most 80 AP, a general, the C-in-C stays. */
static bool pick_fits(const struct army_list *l, const struct troops *field, const int *pick)
{
	int generals_left = troops_generals(l, field);
	for (size_t i = 0; i < l->count; i++) {
		if (pick[i] < 0 || pick[i] > field->count[i])
			return false;
		if (l->types[i].general)
			generals_left -= pick[i];
	}
	return rules_counts_half_ap(l, pick) <= RULES_CONTINGENT_MAX_HALF_AP &&
	       rules_counts_generals(l, pick) >= 1 && generals_left >= 1;
}

enum rules_status rules_relief_contingent(struct campaign *c, int besieged, int relieving,
					  const int *pick, struct event_log *log, int *index,
					  struct rules_reason *why)
{
	if (index)
		*index = NO_INDEX;
	if (!rules_active_player(c, besieged) || !rules_active_player(c, relieving) ||
	    besieged == relieving)
		return rules_refuse(why, "a relief joins two different active players");
	struct player *p = &c->players[besieged];
	int at = p->location;
	if (c->players[relieving].location != at)
		return rules_refuse(why, "the field army of %s is not in %s",
				    rules_player_nation(c, relieving), rules_province_name(c, at));
	const struct army_list *l = &p->list;
	int *counts = xcalloc(l->count + 1, sizeof *counts);
	bool chosen = pick && pick_fits(l, &p->field, pick);
	if (chosen)
		memcpy(counts, pick, l->count * sizeof *counts);
	else if (!default_pick(l, &p->field, counts)) {
		free(counts);
		return rules_refuse(why, "the field army of %s has no general to spare for a "
				    "contingent (the C-in-C stays)", rules_player_nation(c, besieged));
	}
	grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
		   sizeof *c->contingents);
	int ci = (int)c->contingent_count++;
	struct contingent *ct = &c->contingents[ci];
	memset(ct, 0, sizeof *ct);
	ct->owner = besieged;
	ct->with_player = relieving;
	/* in the city already: it has arrived (no arrival roll, 2.3 Arrival) */
	ct->sent_year = c->year - 1;
	troops_alloc(&ct->troops, l->count);
	for (size_t i = 0; i < l->count; i++) {
		ct->troops.count[i] = counts[i];
		p->field.count[i] -= counts[i];
	}
	event_emit(log, "relief_contingent", RULE_ALLIES, "{s:s, s:s, s:s, s:i, s:o, s:b}",
		   "player", rules_player_key(c, besieged), "with",
		   rules_player_key(c, relieving), "province", rules_province_name(c, at),
		   "half_ap", rules_counts_half_ap(l, counts), "elements",
		   rules_counts_json(l, counts), "chosen", chosen);
	free(counts);
	if (index)
		*index = ci;
	return RULES_OK;
}

void rules_relief_rejoin(struct campaign *c, int besieged, int relieving, struct event_log *log)
{
	for (size_t i = c->contingent_count; i-- > 0;)
		if (c->contingents[i].owner == besieged && c->contingents[i].with_player == relieving &&
		    !c->contingents[i].returning)
			rules_contingent_rejoin(c, (int)i, log);
}
