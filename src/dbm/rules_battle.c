/* 2.2.1 and 2.2.2: the consequences of a battle fought with DBM, and the
 * prestige of the winner (shared with allies, 2.3 During battle). */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const int cinc_table[] = {0, 200, 134, 100, 80, 68, 60, 50};
static const int sub_table[] = {0, 0, 66, 50, 40, 33, 28, 25};

int rules_command_prestige(int commands, bool c_in_c)
{
	if (commands < 1)
		return 0;
	if (commands <= 7)
		return c_in_c ? cinc_table[commands] : sub_table[commands];
	int sub = 200 / (commands + 1);
	return c_in_c ? 200 - (commands - 1) * sub : sub;
}

int rules_army_prestige(int commands, bool c_in_c_demoralised, int others_demoralised)
{
	if (commands < 1)
		return 0;
	int others = commands - 1 - others_demoralised;
	if (others < 0)
		others = 0;
	return (c_in_c_demoralised ? 0 : rules_command_prestige(commands, true)) +
	       others * rules_command_prestige(commands, false);
}

int rules_battle_prestige(int winner_value, int loser_value, int winner_ap, int loser_ap)
{
	long long diff = (long long)winner_value - loser_value;
	if (diff <= 0 || winner_ap <= 0 || loser_ap <= 0)
		return RULES_MIN_BATTLE_PRESTIGE;
	long long num = diff * loser_ap;
	long long award = (2 * num + winner_ap) / (2LL * winner_ap);
	return award < RULES_MIN_BATTLE_PRESTIGE ? RULES_MIN_BATTLE_PRESTIGE : (int)award;
}

int rules_ally_prestige_share(int award, int commands)
{
	if (award <= 0 || commands < 1)
		return 0;
	return (2 * award + commands + 1) / (2 * (commands + 1));
}

int rules_routers_returning(int routers, bool winner)
{
	if (routers <= 0)
		return 0;
	return winner ? routers / 3 : routers / 6;
}

void rules_share_routers(const int *routers, size_t cells, int total, int *out)
{
	long long sum = 0;
	for (size_t i = 0; i < cells; i++)
		sum += routers[i];
	if (sum == 0 || total <= 0) {
		memset(out, 0, cells * sizeof *out);
		return;
	}
	long long *rem = xmalloc((cells ? cells : 1) * sizeof *rem);
	int given = 0;
	for (size_t i = 0; i < cells; i++) {
		out[i] = (int)((long long)routers[i] * total / sum);
		rem[i] = (long long)routers[i] * total % sum;
		given += out[i];
	}
	while (given < total) {
		size_t best = 0;
		bool found = false;
		for (size_t i = 0; i < cells; i++)
			if (rem[i] >= 0 && routers[i] > out[i] && (!found || rem[i] > rem[best])) {
				best = i;
				found = true;
			}
		if (!found)
			break;
		out[best]++;
		rem[best] = -1;
		given++;
	}
	free(rem);
}

int rules_battle_defender(const struct campaign *c, int province, int player_a, int player_b,
			  int arrived_first)
{
	if (rules_valid_province(c, province)) {
		int owner = c->provinces[province].owner;
		if (owner == player_a || owner == player_b)
			return owner;
	}
	return arrived_first;
}

/* Everything worked out from a battle report before anything changes. */
struct battle_calc {
	int main[2];          /* party index of each side's field army */
	int commands[2];
	int value[2];
	int half_ap[2];
	int award;
	int *share;           /* per party: prestige it receives */
	int **routers;        /* per party, per type */
	int **returned;       /* per party, per type */
	int *router_total;    /* per party */
	int side_routers[2];
	int side_returned[2];
};

static int loss_of(const int *counts, size_t i)
{
	return counts ? counts[i] : 0;
}

static void calc_free(struct battle_calc *k, size_t parties)
{
	for (size_t i = 0; i < parties; i++) {
		if (k->routers)
			free(k->routers[i]);
		if (k->returned)
			free(k->returned[i]);
	}
	free(k->routers);
	free(k->returned);
	free(k->router_total);
	free(k->share);
}

static enum rules_status check_party(const struct campaign *c, const struct battle_party *bp,
				     size_t n, struct rules_reason *why)
{
	if (!rules_active_player(c, bp->player))
		return rules_refuse(why, "party %zu: there is no active player number %d", n + 1,
				    bp->player);
	if (bp->side != 0 && bp->side != 1)
		return rules_refuse(why, "party %zu: the side must be 0 or 1", n + 1);
	const struct troops *t = rules_force_troops_const(c, bp->player, bp->contingent);
	if (!t)
		return rules_refuse(why, "party %zu: %s has no such contingent", n + 1,
				    rules_player_nation(c, bp->player));
	if (bp->contingent != NO_INDEX && (bp->commands != 1 || bp->c_in_c_demoralised))
		return rules_refuse(why, "party %zu: a contingent is one command under an ally-general",
				    n + 1);
	if (bp->commands < 1 || bp->others_demoralised < 0 ||
	    bp->others_demoralised > bp->commands - (bp->contingent == NO_INDEX ? 1 : 0))
		return rules_refuse(why, "party %zu: %d commands with %d demoralised besides the C-in-C's",
				    n + 1, bp->commands, bp->others_demoralised);
	const struct army_list *l = &c->players[bp->player].list;
	for (size_t i = 0; i < l->count; i++) {
		int de = loss_of(bp->destroyed, i), fl = loss_of(bp->fled, i);
		int wd = loss_of(bp->withdrawn, i);
		if (de < 0 || fl < 0 || wd < 0 || de + fl + wd > t->count[i])
			return rules_refuse(why,
					    "party %zu: %d destroyed, %d fled and %d withdrawn \"%s\" but %s had %d",
					    n + 1, de, fl, wd, l->types[i].label,
					    rules_player_nation(c, bp->player), t->count[i]);
	}
	return RULES_OK;
}

static enum rules_status battle_compute(const struct campaign *c, const struct battle_result *r,
					struct battle_calc *k, struct rules_reason *why)
{
	memset(k, 0, sizeof *k);
	k->main[0] = k->main[1] = -1;
	if (!rules_valid_province(c, r->province))
		return rules_refuse(why, "the battle is in an unknown province");
	if (r->winner_side != 0 && r->winner_side != 1)
		return rules_refuse(why, "the winning side must be 0 or 1");
	if (!r->parties || r->party_count < 2)
		return rules_refuse(why, "a battle needs a field army on each side");
	for (size_t n = 0; n < r->party_count; n++) {
		const struct battle_party *bp = &r->parties[n];
		if (check_party(c, bp, n, why) != RULES_OK)
			return RULES_REFUSED;
		if (bp->contingent == NO_INDEX) {
			if (k->main[bp->side] >= 0)
				return rules_refuse(why,
						    "side %d has two field armies: allies send contingents",
						    bp->side);
			k->main[bp->side] = (int)n;
		}
		k->commands[bp->side] += bp->commands;
	}
	if (k->main[0] < 0 || k->main[1] < 0)
		return rules_refuse(why, "each side needs one field army (its main protagonist)");
	int mp[2] = {r->parties[k->main[0]].player, r->parties[k->main[1]].player};
	if (mp[0] == mp[1])
		return rules_refuse(why, "a player cannot fight itself");
	for (int s = 0; s < 2; s++) {
		int others_dem = 0;
		for (size_t n = 0; n < r->party_count; n++)
			if (r->parties[n].side == s)
				others_dem += r->parties[n].others_demoralised;
		k->value[s] = rules_army_prestige(k->commands[s],
						  r->parties[k->main[s]].c_in_c_demoralised,
						  others_dem);
		k->half_ap[s] = r->side_half_ap[s];
		if (k->half_ap[s] <= 0) {
			k->half_ap[s] = 0;
			for (size_t n = 0; n < r->party_count; n++) {
				const struct battle_party *bp = &r->parties[n];
				if (bp->side == s)
					k->half_ap[s] += troops_half_ap(
						&c->players[bp->player].list,
						rules_force_troops_const(c, bp->player, bp->contingent));
			}
		}
	}
	int w = r->winner_side, lo = 1 - w;
	k->award = rules_battle_prestige(k->value[w], k->value[lo], k->half_ap[w], k->half_ap[lo]);

	size_t np = r->party_count;
	k->share = xcalloc(np, sizeof *k->share);
	k->routers = xcalloc(np, sizeof *k->routers);
	k->returned = xcalloc(np, sizeof *k->returned);
	k->router_total = xcalloc(np, sizeof *k->router_total);

	/* Prestige shares of allied commands on the winning side. */
	int normal = rules_ally_prestige_share(k->award, k->commands[w]);
	int allies_total = 0;
	for (size_t n = 0; n < np; n++) {
		const struct battle_party *bp = &r->parties[n];
		if (bp->side != w || bp->contingent == NO_INDEX || bp->player == mp[w])
			continue;
		int share = normal * bp->commands;
		if (bp->agreed_share) {
			if (bp->agreed_share < share || bp->agreed_share > 2 * share)
				return rules_refuse(why,
						    "the share agreed with %s must be between %d and %d prestige",
						    rules_player_nation(c, bp->player), share, 2 * share);
			share = bp->agreed_share;
		}
		k->share[n] = share;
		allies_total += share;
	}
	if (allies_total > k->award)
		return rules_refuse(why, "the allies' shares (%d) exceed the award (%d)",
				    allies_total, k->award);
	/* 2.2.2 "The winner always gets at least 40 prestige from a battle":
	 * the winning main protagonist himself (doc/rules.md, the floor of 40
	 * and allies). */
	k->share[k->main[w]] = k->award - allies_total;
	if (k->share[k->main[w]] < RULES_MIN_BATTLE_PRESTIGE)
		k->share[k->main[w]] = RULES_MIN_BATTLE_PRESTIGE;

	/* Routers: destroyed (but killed generals) and fled elements. */
	for (size_t n = 0; n < np; n++) {
		const struct battle_party *bp = &r->parties[n];
		const struct army_list *l = &c->players[bp->player].list;
		k->routers[n] = xcalloc(l->count ? l->count : 1, sizeof **k->routers);
		k->returned[n] = xcalloc(l->count ? l->count : 1, sizeof **k->returned);
		for (size_t i = 0; i < l->count; i++) {
			k->routers[n][i] = (l->types[i].general ? 0 : loss_of(bp->destroyed, i)) +
					   loss_of(bp->fled, i);
			k->router_total[n] += k->routers[n][i];
		}
		k->side_routers[bp->side] += k->router_total[n];
	}
	for (int s = 0; s < 2; s++) {
		int total = rules_routers_returning(k->side_routers[s], s == w);
		k->side_returned[s] = total;
		/* Flatten the side's cells: parties in order, types in list order. */
		size_t cells = 0, with_pick = 0, with_routers = 0;
		for (size_t n = 0; n < np; n++)
			if (r->parties[n].side == s) {
				cells += c->players[r->parties[n].player].list.count;
				if (k->router_total[n] > 0) {
					with_routers++;
					if (r->parties[n].returned_pick)
						with_pick++;
				}
			}
		if (with_pick && with_pick != with_routers)
			return rules_refuse(why,
					    "side %d: give the routers returning for every force with routers, or for none",
					    s);
		int *flat = xcalloc(cells ? cells : 1, sizeof *flat);
		int *out = xcalloc(cells ? cells : 1, sizeof *out);
		size_t at = 0;
		for (size_t n = 0; n < np; n++)
			if (r->parties[n].side == s) {
				size_t cnt = c->players[r->parties[n].player].list.count;
				memcpy(flat + at, k->routers[n], cnt * sizeof *flat);
				at += cnt;
			}
		rules_share_routers(flat, cells, total, out);
		long long sum = 0;
		for (size_t i = 0; i < cells; i++)
			sum += flat[i];
		enum rules_status st = RULES_OK;
		at = 0;
		int picked = 0;
		for (size_t n = 0; n < np && st == RULES_OK; n++) {
			const struct battle_party *bp = &r->parties[n];
			if (bp->side != s)
				continue;
			const struct army_list *l = &c->players[bp->player].list;
			for (size_t i = 0; i < l->count; i++, at++) {
				int v = out[at];
				if (with_pick && k->router_total[n] > 0) {
					v = bp->returned_pick[i];
					long long exact = (long long)flat[at] * total;
					int lo_q = (int)(exact / sum);
					int hi_q = lo_q + (exact % sum ? 1 : 0);
					if (v < lo_q || v > hi_q || v > flat[at]) {
						st = rules_refuse(why,
								  "%s: %d \"%s\" returning is not the share rounded up or down (%d or %d)",
								  rules_player_nation(c, bp->player), v,
								  l->types[i].label, lo_q, hi_q);
						break;
					}
				}
				k->returned[n][i] = v;
				picked += v;
			}
		}
		free(flat);
		free(out);
		if (st != RULES_OK)
			return st;
		if (with_pick && picked != total)
			return rules_refuse(why,
					    "side %d: %d routers returning were given but %d must return",
					    s, picked, total);
	}
	return RULES_OK;
}

enum rules_status rules_battle_check(const struct campaign *c, const struct battle_result *r,
				     struct rules_reason *why)
{
	struct battle_calc k;
	enum rules_status st = battle_compute(c, r, &k, why);
	calc_free(&k, r->parties ? r->party_count : 0);
	return st;
}

static void retreat(struct campaign *c, const struct battle_result *r, int loser,
		    const bool *allies, struct dice *d, struct event_log *log)
{
	int from = c->players[loser].location;
	int stages = -1;
	int dest = rules_retreat_destination(c, loser, from, r->enemy_came_from, allies,
					     r->retreat_choice, &stages);
	/* No friendly province but the one the enemy entered from: the army
	 * still leaves the lost field, toward the nearest friendly province
	 * (reading #3), that one. */
	if (dest == NO_INDEX && r->enemy_came_from != NO_INDEX)
		dest = rules_retreat_destination(c, loser, from, NO_INDEX, allies,
						 r->retreat_choice, &stages);
	if (dest == NO_INDEX) {
		event_emit(log, "retreat", RULE_BATTLE_CONSEQUENCES, "{s:s, s:s, s:n}", "player",
			   rules_player_key(c, loser), "from", rules_province_name(c, from), "to");
		return;
	}
	int *path = xmalloc((size_t)(stages > 0 ? stages : 1) * sizeof *path);
	rules_shortest_path(c, loser, from, dest, path, (size_t)stages);
	/* Beyond four stages: go four and stop (reading #3). */
	size_t go = (size_t)stages > RULES_MAX_STAGES ? RULES_MAX_STAGES : (size_t)stages;
	event_emit(log, "retreat", RULE_BATTLE_CONSEQUENCES, "{s:s, s:s, s:s, s:i, s:i}", "player",
		   rules_player_key(c, loser), "from", rules_province_name(c, from), "to",
		   rules_province_name(c, dest), "distance", stages, "stages", (int)go);
	struct move_order mo = {
		.player = loser, .contingent = NO_INDEX, .kind = MOVE_RETREAT, .path = path,
		.stages = go, .on_storm = r->retreat_on_storm, .force_passage = true,
		.passage = allies,
	};
	rules_move(c, &mo, d, log, NULL, NULL);
	free(path);
}

enum rules_status rules_apply_battle_result(struct campaign *c, const struct battle_result *r,
					    struct dice *d, struct event_log *log,
					    struct rules_reason *why)
{
	struct battle_calc k;
	if (battle_compute(c, r, &k, why) != RULES_OK) {
		calc_free(&k, r->parties ? r->party_count : 0);
		return RULES_REFUSED;
	}
	int w = r->winner_side, lo = 1 - w;
	int winner = r->parties[k.main[w]].player, loser = r->parties[k.main[lo]].player;
	static const char *const how_names[] = {"demoralised", "conceded", "withdrawal"};
	const char *how = (unsigned)r->how < 3 ? how_names[r->how] : "demoralised";
	event_emit(log, "battle", RULE_BATTLE_PRESTIGE,
		   "{s:s, s:s, s:s, s:s, s:[i,i], s:[i,i], s:[i,i], s:i}", "province",
		   rules_province_name(c, r->province), "winner", rules_player_key(c, winner),
		   "loser", rules_player_key(c, loser), "how", how, "commands", k.commands[w],
		   k.commands[lo], "prestige_values", k.value[w], k.value[lo], "half_ap",
		   k.half_ap[w], k.half_ap[lo], "award", k.award);

	bool *allies = xcalloc(c->player_count ? c->player_count : 1, sizeof *allies);
	for (size_t n = 0; n < r->party_count; n++) {
		const struct battle_party *bp = &r->parties[n];
		struct player *p = &c->players[bp->player];
		const struct army_list *l = &p->list;
		struct troops *t = rules_force_troops(c, bp->player, bp->contingent);
		int *killed = xcalloc(l->count ? l->count : 1, sizeof *killed);
		int *lost = xcalloc(l->count ? l->count : 1, sizeof *lost);
		int to_reserve = 0;
		for (size_t i = 0; i < l->count; i++) {
			int gone = loss_of(bp->destroyed, i) + loss_of(bp->fled, i);
			if (l->types[i].general)
				killed[i] = loss_of(bp->destroyed, i);
			int back = k.returned[n][i];
			t->count[i] += back - gone;
			p->reserve.count[i] += gone - back;
			lost[i] = gone - back;
			to_reserve += (gone - back) * l->types[i].cost_half_ap;
		}
		p->fought_this_year = true;
		if (bp->side == lo)
			allies[bp->player] = true;
		if (rules_counts_generals(l, killed) > 0)
			event_emit(log, "general_killed", RULE_BATTLE_LOSSES, "{s:s, s:b, s:o}",
				   "player", rules_player_key(c, bp->player), "contingent",
				   bp->contingent != NO_INDEX, "generals",
				   rules_counts_json(l, killed));
		event_emit(log, "routers", RULE_BATTLE_LOSSES,
			   "{s:s, s:b, s:b, s:i, s:i, s:o, s:o, s:o, s:i, s:o}", "player",
			   rules_player_key(c, bp->player), "contingent", bp->contingent != NO_INDEX,
			   "winner", bp->side == w, "routers", k.router_total[n], "side_returning",
			   k.side_returned[bp->side], "returned", rules_counts_json(l, k.returned[n]),
			   "withdrawn", rules_counts_json(l, bp->withdrawn), "killed",
			   rules_counts_json(l, killed), "to_reserve_half_ap", to_reserve, "lost",
			   rules_counts_json(l, lost));
		free(killed);
		free(lost);
		if (bp->side == w && k.share[n] > 0) {
			p->battle_prestige += k.share[n];
			event_emit(log, "prestige", bp->contingent == NO_INDEX
							    ? RULE_BATTLE_PRESTIGE
							    : RULE_CONTINGENT_PRESTIGE,
				   "{s:s, s:i, s:i, s:s}", "player", rules_player_key(c, bp->player),
				   "points", k.share[n], "award", k.award, "as",
				   bp->contingent == NO_INDEX ? "winner" : "ally");
		}
	}
	calc_free(&k, r->party_count);

	/* A field army left without a general retrieves one at once; a
	 * contingent without one goes home. */
	for (int s = 0; s < 2; s++) {
		int pl = s == w ? winner : loser;
		struct player *p = &c->players[pl];
		if (troops_generals(&p->list, &p->field) == 0)
			for (size_t i = 0; i < p->list.count; i++)
				if (p->list.types[i].general && p->reserve.count[i] > 0) {
					rules_retrieve_general(c, pl, (int)i, NULL, log, NULL);
					break;
				}
	}
	for (size_t i = c->contingent_count; i-- > 0;) {
		struct contingent *ct = &c->contingents[i];
		if (troops_generals(&c->players[ct->owner].list, &ct->troops) == 0)
			rules_contingent_rejoin(c, (int)i, log);
	}

	/* The loser lifts its siege of the province; an owner who lost loses it. */
	int si = rules_find_siege(c, r->province, loser);
	if (si >= 0) {
		memmove(&c->sieges[si], &c->sieges[si + 1],
			(c->siege_count - (size_t)si - 1) * sizeof *c->sieges);
		c->siege_count--;
		event_emit(log, "siege_lifted", RULE_BATTLE_CONSEQUENCES, "{s:s, s:s}", "player",
			   rules_player_key(c, loser), "province",
			   rules_province_name(c, r->province));
	}
	if (c->provinces[r->province].owner == loser)
		rules_capture_province(c, r->province, winner, RULE_BATTLE_CONSEQUENCES, log);
	if (c->players[loser].status == PLAYER_ACTIVE)
		retreat(c, r, loser, allies, d, log);
	free(allies);
	return RULES_OK;
}
