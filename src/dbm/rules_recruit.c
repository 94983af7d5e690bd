/* 3.1 Recruitment, generals, changing the army, profound peace; 3.2
 * prestige for provinces. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int rules_recruit_allowance(const struct campaign *c, int player)
{
	if (!rules_valid_player(c, player))
		return 0;
	return player_province_count(c, player) * RULES_RECRUIT_PER_PROVINCE_HALF_AP;
}

/* Elements of each type out with the player's contingents, added to `out`. */
static void add_contingent_counts(const struct campaign *c, int player, int *out)
{
	const struct army_list *l = &c->players[player].list;
	for (size_t k = 0; k < c->contingent_count; k++)
		if (c->contingents[k].owner == player)
			for (size_t i = 0; i < l->count; i++)
				out[i] += c->contingents[k].troops.count[i];
}

int rules_army_half_ap(const struct campaign *c, int player)
{
	if (!rules_valid_player(c, player))
		return 0;
	int sum = player_field_half_ap(&c->players[player]);
	for (size_t k = 0; k < c->contingent_count; k++)
		if (c->contingents[k].owner == player)
			sum += troops_half_ap(&c->players[player].list, &c->contingents[k].troops);
	return sum;
}

/* Field army plus contingents, per type (caller frees). */
static int *army_counts(const struct campaign *c, int player)
{
	const struct player *p = &c->players[player];
	int *n = xcalloc(p->list.count ? p->list.count : 1, sizeof *n);
	for (size_t i = 0; i < p->list.count; i++)
		n[i] = p->field.count[i];
	add_contingent_counts(c, player, n);
	return n;
}

int *rules_army_counts(const struct campaign *c, int player)
{
	return army_counts(c, player);
}

int rules_recruit_minimums(const struct campaign *c, int player, int *fill)
{
	if (!rules_valid_player(c, player))
		return 0;
	const struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	int *have = army_counts(c, player);
	int short_types = 0;
	for (size_t i = 0; i < l->count; i++) {
		int deficit = l->types[i].list_min - have[i];
		if (deficit > p->reserve.count[i])
			deficit = p->reserve.count[i];
		if (deficit < 0)
			deficit = 0;
		if (fill)
			fill[i] = deficit;
		short_types += deficit > 0;
	}
	free(have);
	return short_types;
}

enum rules_recruit_limit rules_recruit_limit(const struct campaign *c, int player,
					     const int *take, struct rules_reason *why)
{
	if (!rules_active_player(c, player)) {
		rules_refuse(why, "there is no active player number %d", player);
		return RECRUIT_LIMIT_OTHER;
	}
	if (c->phase != PHASE_RECRUITMENT) {
		rules_refuse(why, "troops are recruited in the recruitment phase");
		return RECRUIT_LIMIT_OTHER;
	}
	if (!take) {
		rules_refuse(why, "nothing to recruit");
		return RECRUIT_LIMIT_OTHER;
	}
	const struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	char a[16], b[16];
	for (size_t i = 0; i < l->count; i++)
		if (take[i] < 0 || take[i] > p->reserve.count[i]) {
			rules_refuse(why, "%d \"%s\" asked for but the reserve holds %d", take[i],
				     l->types[i].label, p->reserve.count[i]);
			return RECRUIT_LIMIT_RESERVE;
		}
	int value = rules_counts_half_ap(l, take);
	int allowance = rules_recruit_allowance(c, player);
	if (value > allowance) {
		rules_refuse(why, "recruits worth %s AP asked for; %d provinces allow at most %s AP",
			     half_ap_format(value, a), player_province_count(c, player),
			     half_ap_format(allowance, b));
		return RECRUIT_LIMIT_ALLOWANCE;
	}
	int army = rules_army_half_ap(c, player);
	if (army + value > p->cap_half_ap) {
		rules_refuse(why, "the field army would be %s AP, above its ceiling of %s AP",
			     half_ap_format(army + value, a), half_ap_format(p->cap_half_ap, b));
		return RECRUIT_LIMIT_CEILING;
	}
	int *have = army_counts(c, player);
	enum rules_recruit_limit limit = RECRUIT_LIMIT_NONE;
	bool beyond_deficits = false, deficits_filled = true;
	for (size_t i = 0; i < l->count && limit == RECRUIT_LIMIT_NONE; i++) {
		const struct element_type *t = &l->types[i];
		if (t->list_max > 0 && have[i] + take[i] > t->list_max) {
			rules_refuse(why, "the army would have %d \"%s\", above the list maximum of %d",
				     have[i] + take[i], t->label, t->list_max);
			limit = RECRUIT_LIMIT_LIST_MAX;
		}
		int deficit = t->list_min - have[i];
		if (deficit > p->reserve.count[i])
			deficit = p->reserve.count[i];
		if (deficit < 0)
			deficit = 0;
		if (take[i] > deficit)
			beyond_deficits = true;
		if (take[i] < deficit)
			deficits_filled = false;
	}
	if (limit == RECRUIT_LIMIT_NONE && beyond_deficits && !deficits_filled) {
		for (size_t i = 0; i < l->count; i++) {
			int deficit = l->types[i].list_min - have[i];
			if (deficit > 0 && take[i] < deficit && p->reserve.count[i] > take[i]) {
				rules_refuse(why,
					     "the army is below the list minimum of %d \"%s\": that comes before any other troops",
					     l->types[i].list_min, l->types[i].label);
				limit = RECRUIT_LIMIT_LIST_MIN;
				break;
			}
		}
	}
	free(have);
	return limit;
}

enum rules_status rules_recruit_check(const struct campaign *c, int player, const int *take,
				      struct rules_reason *why)
{
	return rules_recruit_limit(c, player, take, why) == RECRUIT_LIMIT_NONE ? RULES_OK
										 : RULES_REFUSED;
}

enum rules_status rules_recruit(struct campaign *c, int player, const int *take,
				struct event_log *log, struct rules_reason *why)
{
	if (rules_recruit_check(c, player, take, why) != RULES_OK)
		return RULES_REFUSED;
	struct player *p = &c->players[player];
	for (size_t i = 0; i < p->list.count; i++) {
		p->reserve.count[i] -= take[i];
		p->field.count[i] += take[i];
	}
	event_emit(log, "recruit", RULE_RECRUITMENT, "{s:s, s:i, s:i, s:o}", "player",
		   rules_player_key(c, player), "half_ap", rules_counts_half_ap(&p->list, take),
		   "allowance_half_ap", rules_recruit_allowance(c, player), "elements",
		   rules_counts_json(&p->list, take));
	return RULES_OK;
}

enum rules_status rules_retrieve_general(struct campaign *c, int player, int type,
					 const int *pay, struct event_log *log,
					 struct rules_reason *why)
{
	if (!rules_active_player(c, player))
		return rules_refuse(why, "there is no active player number %d", player);
	struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	if (type < 0 || (size_t)type >= l->count || !l->types[type].general)
		return rules_refuse(why, "that is not a general of %s's list",
				    rules_player_nation(c, player));
	if (p->reserve.count[type] < 1)
		return rules_refuse(why, "no \"%s\" in the reserve", l->types[type].label);
	if (c->phase == PHASE_RECRUITMENT)
		return rules_refuse(why, "in the recruitment phase generals are recruited like other troops");
	int *have = army_counts(c, player);
	int in_army = have[type];
	free(have);
	if (l->types[type].list_max > 0 && in_army + 1 > l->types[type].list_max)
		return rules_refuse(why, "the army already has %d \"%s\", the list maximum",
				    in_army, l->types[type].label);
	int cost = l->types[type].cost_half_ap;
	int paid = 0;
	if (troops_elements(l, &p->field) > 0)
		paid = rules_generic_loss(c, player, NO_INDEX, cost, 0, pay, RULE_GENERALS,
					  "general retrieved", log);
	p->reserve.count[type]--;
	p->field.count[type]++;
	event_emit(log, "general_retrieved", RULE_GENERALS, "{s:s, s:s, s:i, s:s}", "player",
		   rules_player_key(c, player), "general", l->types[type].label, "paid_half_ap",
		   paid, "province", rules_province_name(c, p->location));
	return RULES_OK;
}

enum rules_status rules_dismiss(struct campaign *c, int player, const int *troops,
				struct event_log *log, struct rules_reason *why)
{
	if (!rules_active_player(c, player))
		return rules_refuse(why, "there is no active player number %d", player);
	if (c->phase != PHASE_RECRUITMENT)
		return rules_refuse(why, "troops are sent to the reserve to be changed in the recruitment phase");
	if (!troops)
		return rules_refuse(why, "nothing to send to the reserve");
	struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	int generals = troops_generals(l, &p->field);
	for (size_t i = 0; i < l->count; i++) {
		if (troops[i] < 0 || troops[i] > p->field.count[i])
			return rules_refuse(why, "%d \"%s\" to the reserve but the field army has %d",
					    troops[i], l->types[i].label, p->field.count[i]);
		if (l->types[i].general)
			generals -= troops[i];
	}
	if (generals < 1)
		return rules_refuse(why, "you must always have at least one general");
	for (size_t i = 0; i < l->count; i++) {
		p->field.count[i] -= troops[i];
		p->reserve.count[i] += troops[i];
	}
	event_emit(log, "dismiss", RULE_CHANGING_ARMY, "{s:s, s:i, s:o}", "player",
		   rules_player_key(c, player), "half_ap", rules_counts_half_ap(l, troops),
		   "elements", rules_counts_json(l, troops));
	return RULES_OK;
}

enum rules_status rules_change_reserve(struct campaign *c, int player, const int *new_reserve,
				       struct event_log *log, struct rules_reason *why)
{
	if (!rules_active_player(c, player))
		return rules_refuse(why, "there is no active player number %d", player);
	if (c->phase != PHASE_RECRUITMENT)
		return rules_refuse(why, "the army is changed in the recruitment phase");
	if (!new_reserve)
		return rules_refuse(why, "no new reserve given");
	struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	char a[16], b[16];
	for (size_t i = 0; i < l->count; i++)
		if (new_reserve[i] < 0)
			return rules_refuse(why, "a negative number of \"%s\"", l->types[i].label);
	int before = troops_half_ap(l, &p->reserve);
	int after = rules_counts_half_ap(l, new_reserve);
	if (after > before)
		return rules_refuse(why, "the new reserve is worth %s AP, more than the %s AP it replaces",
				    half_ap_format(after, a), half_ap_format(before, b));
	int *have = army_counts(c, player);
	enum rules_status st = RULES_OK;
	for (size_t i = 0; i < l->count && st == RULES_OK; i++) {
		int total = have[i] + new_reserve[i];
		const struct element_type *t = &l->types[i];
		if (total < t->list_min)
			st = rules_refuse(why, "the army would have %d \"%s\", below the list minimum of %d",
					  total, t->label, t->list_min);
		else if (t->list_max > 0 && total > t->list_max)
			st = rules_refuse(why, "the army would have %d \"%s\", above the list maximum of %d",
					  total, t->label, t->list_max);
	}
	free(have);
	if (st != RULES_OK)
		return st;
	json_t *old = rules_counts_json(l, p->reserve.count);
	memcpy(p->reserve.count, new_reserve, l->count * sizeof *new_reserve);
	event_emit(log, "reserve_changed", RULE_CHANGING_ARMY, "{s:s, s:o, s:o, s:i, s:i}", "player",
		   rules_player_key(c, player), "before", old, "after",
		   rules_counts_json(l, p->reserve.count), "before_half_ap", before,
		   "after_half_ap", after);
	return RULES_OK;
}

int rules_profound_peace_cap(int original_half_ap, int quiet_years)
{
	int cap = original_half_ap;
	if (quiet_years >= 6 && cap > RULES_PEACE_CAP_6_HALF_AP)
		cap = RULES_PEACE_CAP_6_HALF_AP;
	else if (quiet_years >= 3 && cap > RULES_PEACE_CAP_3_HALF_AP)
		cap = RULES_PEACE_CAP_3_HALF_AP;
	return cap;
}

void rules_profound_peace(struct campaign *c, int player, const int *pick,
			  struct event_log *log)
{
	if (!rules_active_player(c, player))
		return;
	struct player *p = &c->players[player];
	p->quiet_years = p->fought_this_year ? 0 : p->quiet_years + 1;
	int old_cap = p->cap_half_ap;
	p->cap_half_ap = rules_profound_peace_cap(p->original_half_ap, p->quiet_years);
	int army = rules_army_half_ap(c, player);
	int excess = army > p->cap_half_ap ? army - p->cap_half_ap : 0;
	if (p->cap_half_ap != old_cap || excess > 0)
		event_emit(log, "profound_peace", RULE_PROFOUND_PEACE, "{s:s, s:i, s:i, s:i}",
			   "player", rules_player_key(c, player), "quiet_years", p->quiet_years,
			   "cap_half_ap", p->cap_half_ap, "excess_half_ap", excess);
	if (excess > 0)
		rules_generic_loss(c, player, NO_INDEX, excess, 0, pick, RULE_PROFOUND_PEACE,
				   "profound peace", log);
}

int rules_province_prestige(const struct campaign *c, int player)
{
	if (!rules_active_player(c, player))
		return 0;
	int points = 0;
	for (size_t i = 0; i < c->province_count; i++) {
		int owner = c->provinces[i].owner;
		if (owner == player)
			points += c->provinces[i].home_of == player ? 6 : 4;
		else if (rules_active_player(c, owner) && c->players[owner].overlord == player)
			points += 2;
	}
	return points;
}
