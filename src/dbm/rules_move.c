/* 2.1 Movement: normal and forced marching, sea storms, hostile provinces,
 * supply. The Move option itself (1.4) is in rules_field.c. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int rules_forced_march_cost(int stages)
{
	return stages > RULES_NORMAL_STAGES
		       ? (stages - RULES_NORMAL_STAGES) * RULES_FORCED_MARCH_HALF_AP
		       : 0;
}

int rules_sea_storm(struct campaign *c, int player, int contingent, int stage,
		    const int *pick, struct dice *d, struct event_log *log, bool *storm)
{
	*storm = false;
	char *purpose = xasprintf("sea storm %s%s stage %d", rules_player_key(c, player),
				  contingent == NO_INDEX ? "" : " contingent", stage);
	int lost = 0;
	if (dice_roll(d, log, RULE_SEA_MOVEMENT, purpose) == 1) {
		*storm = true;
		char *size_purpose = xasprintf("shipwreck %s%s stage %d",
					       rules_player_key(c, player),
					       contingent == NO_INDEX ? "" : " contingent", stage);
		int pips = dice_roll(d, log, RULE_SEA_MOVEMENT, size_purpose);
		free(size_purpose);
		event_emit(log, "storm", RULE_SEA_MOVEMENT, "{s:s, s:b, s:i, s:i}", "player",
			   rules_player_key(c, player), "contingent", contingent != NO_INDEX,
			   "stage", stage, "due_half_ap", pips * RULES_STORM_PIP_HALF_AP);
		lost = rules_generic_loss(c, player, contingent, pips * RULES_STORM_PIP_HALF_AP,
					  RULES_STORM_MOUNTED_HALF_AP, pick, RULE_SEA_MOVEMENT,
					  "sea storm", log);
	}
	free(purpose);
	return lost;
}

int rules_force_passage(struct campaign *c, int player, int contingent, int province,
			const int *pick, struct dice *d, struct event_log *log)
{
	char *purpose = xasprintf("forced passage %s%s %s", rules_player_key(c, player),
				  contingent == NO_INDEX ? "" : " contingent",
				  rules_province_name(c, province));
	int pips = dice_roll(d, log, RULE_HOSTILE_PROVINCES, purpose);
	free(purpose);
	event_emit(log, "forced_passage", RULE_HOSTILE_PROVINCES, "{s:s, s:b, s:s, s:i}", "player",
		   rules_player_key(c, player), "contingent", contingent != NO_INDEX, "province",
		   rules_province_name(c, province), "due_half_ap",
		   pips * RULES_PASSAGE_PIP_HALF_AP);
	return rules_generic_loss(c, player, contingent, pips * RULES_PASSAGE_PIP_HALF_AP, 0, pick,
				  RULE_HOSTILE_PROVINCES, "forced passage", log);
}

static bool permits(const struct campaign *c, const bool *passage, int player)
{
	return passage && rules_valid_player(c, player) && passage[player];
}

enum passage rules_passage(const struct campaign *c, int player, int province,
			   const bool *passage)
{
	if (!rules_valid_province(c, province))
		return PASSAGE_BARRED;
	const struct province *pr = &c->provinces[province];
	int army = rules_field_army_at(c, province, player);
	if (army != NO_INDEX && !permits(c, passage, army) && !rules_allied(c, player, army))
		return PASSAGE_BARRED;
	/* a friendly province (own or an ally's) is not hostile: no permission */
	if (rules_friendly_to(c, player, province))
		return PASSAGE_FREE;
	if (pr->owner != NO_INDEX && permits(c, passage, pr->owner))
		return PASSAGE_FREE;
	if (pr->owner == NO_INDEX && pr->inviolate && !c->settings.inviolate_passable)
		return PASSAGE_BARRED;
	/* Only an unoccupied hostile province can be forced. */
	return army == NO_INDEX || pr->owner == NO_INDEX ? PASSAGE_FORCE : PASSAGE_BARRED;
}

static int force_start(const struct campaign *c, int player, int contingent)
{
	if (contingent == NO_INDEX)
		return c->players[player].location;
	int with = c->contingents[contingent].with_player;
	return rules_valid_player(c, with) ? c->players[with].location : NO_INDEX;
}

static const char *kind_name(enum move_kind k)
{
	switch (k) {
	case MOVE_FRIENDLY: return "move";
	case MOVE_INVADE: return "invade";
	case MOVE_DEFEND: return "defend";
	case MOVE_RETREAT: return "retreat";
	case MOVE_CONTINGENT: return "contingent";
	case MOVE_RETURN: return "return";
	}
	return "move";
}

enum rules_status rules_move_check(const struct campaign *c, const struct move_order *o,
				   struct rules_reason *why)
{
	if (!rules_active_player(c, o->player))
		return rules_refuse(why, "there is no active player number %d", o->player);
	if (o->contingent != NO_INDEX &&
	    (!rules_valid_contingent(c, o->contingent) ||
	     c->contingents[o->contingent].owner != o->player))
		return rules_refuse(why, "%s has no such contingent", rules_player_nation(c, o->player));
	int start = force_start(c, o->player, o->contingent);
	if (!rules_valid_province(c, start))
		return rules_refuse(why, "%s's force is not on the map", rules_player_nation(c, o->player));
	if (!o->path || o->stages == 0)
		return rules_refuse(why, "a move needs at least one stage");
	bool contingent = o->contingent != NO_INDEX || o->kind == MOVE_CONTINGENT;
	if (!contingent && o->kind != MOVE_RETREAT && c->provinces[start].owner == o->player)
		for (size_t i = 0; i < c->siege_count; i++)
			if (c->sieges[i].province == start && c->sieges[i].besieger != o->player)
				return rules_refuse(why,
						    "the field army of %s is besieged in %s: it can sally out to give battle, not leave",
						    rules_player_nation(c, o->player),
						    rules_province_name(c, start));
	if (o->kind != MOVE_RETURN) {
		if (contingent && o->stages > RULES_NORMAL_STAGES)
			return rules_refuse(why,
					    "contingents cannot forced march: a move of %zu stages exceeds their limit of %d",
					    o->stages, RULES_NORMAL_STAGES);
		if (o->stages > RULES_MAX_STAGES)
			return rules_refuse(why, "a move of %zu stages exceeds the maximum of %d",
					    o->stages, RULES_MAX_STAGES);
	}
	int prev = start;
	for (size_t s = 0; s < o->stages; s++) {
		int next = o->path[s];
		if (!rules_valid_province(c, next))
			return rules_refuse(why, "stage %zu goes to an unknown province", s + 1);
		if (campaign_route_between(c, prev, next) < 0)
			return rules_refuse(why, "there is no route from %s to %s",
					    rules_province_name(c, prev), rules_province_name(c, next));
		bool last = s + 1 == o->stages;
		if (!last && o->kind != MOVE_RETURN && o->kind != MOVE_RETREAT) {
			enum passage ps = rules_passage(c, o->player, next, o->passage);
			if (ps == PASSAGE_BARRED) {
				int army = rules_field_army_at(c, next, o->player);
				if (army != NO_INDEX)
					return rules_refuse(why,
							    "the field army of %s in %s bars the way",
							    rules_player_nation(c, army),
							    rules_province_name(c, next));
				return rules_refuse(why, "%s is inviolate and cannot be entered",
						    rules_province_name(c, next));
			}
			if (ps == PASSAGE_FORCE && !o->force_passage)
				return rules_refuse(why,
						    "passing through %s needs the permission of %s, or an order to force the way (a die x 40 AP)",
						    rules_province_name(c, next),
						    rules_player_nation(c, c->provinces[next].owner));
		}
		prev = next;
	}
	int dest = o->path[o->stages - 1];
	if (o->kind == MOVE_FRIENDLY) {
		if (!rules_friendly_to(c, o->player, dest))
			return rules_refuse(why,
					    "%s is not a friendly province: a move goes to a province of yours or of an ally (declared, overlord or tributary)",
					    rules_province_name(c, dest));
		/* 2.3: two allied field armies are never at one place but for a
		 * relief (an invasion), and any other army there is an enemy */
		int army = rules_field_army_at(c, dest, o->player);
		if (army != NO_INDEX)
			return rules_refuse(why, "the field army of %s stands in %s",
					    rules_player_nation(c, army), rules_province_name(c, dest));
	}
	return RULES_OK;
}

enum rules_status rules_move(struct campaign *c, const struct move_order *o, struct dice *d,
			     struct event_log *log, struct move_outcome *out,
			     struct rules_reason *why)
{
	struct move_outcome local;
	if (!out)
		out = &local;
	memset(out, 0, sizeof *out);
	if (rules_move_check(c, o, why) != RULES_OK)
		return RULES_REFUSED;
	int start = force_start(c, o->player, o->contingent);
	int prev = start, end = start;
	bool completed = true;
	json_t *path = json_array();
	for (size_t s = 0; s < o->stages; s++) {
		int next = o->path[s];
		int stage = (int)s + 1;
		const struct route *r = &c->routes[campaign_route_between(c, prev, next)];
		if (r->sea) {
			bool storm;
			out->lost_half_ap += rules_sea_storm(c, o->player, o->contingent, stage,
							     o->loss_pick, d, log, &storm);
			if (storm) {
				out->storm = true;
				if (o->on_storm == STORM_HALT) {
					out->halted = true;
					end = prev;
					completed = false;
					break;
				}
				if (o->on_storm == STORM_RETURN) {
					out->returned = true;
					end = start;
					completed = false;
					break;
				}
			}
		}
		bool last = s + 1 == o->stages;
		if (o->kind != MOVE_RETURN && (!last || o->kind == MOVE_RETREAT) &&
		    rules_passage(c, o->player, next, o->passage) != PASSAGE_FREE &&
		    c->provinces[next].owner != o->player) {
			out->lost_half_ap += rules_force_passage(c, o->player, o->contingent, next,
								 o->loss_pick, d, log);
			out->forced_passage = true;
		}
		if (o->kind != MOVE_RETURN && stage > RULES_NORMAL_STAGES) {
			event_emit(log, "forced_march", RULE_FORCED_MARCH, "{s:s, s:i, s:i}",
				   "player", rules_player_key(c, o->player), "stage", stage,
				   "due_half_ap", RULES_FORCED_MARCH_HALF_AP);
			out->lost_half_ap += rules_generic_loss(c, o->player, o->contingent,
								RULES_FORCED_MARCH_HALF_AP, 0,
								o->loss_pick, RULE_FORCED_MARCH,
								"forced march", log);
		}
		json_array_append_new(path, json_string(rules_province_name(c, next)));
		out->stages_moved = stage;
		prev = next;
	}
	if (completed)
		end = prev;
	out->end_province = end;
	if (o->contingent == NO_INDEX && o->kind != MOVE_CONTINGENT) {
		c->players[o->player].location = end;
		rules_lift_sieges_by(c, o->player, end, log);
	}
	event_emit(log, "move", RULE_NORMAL_MOVEMENT,
		   "{s:s, s:b, s:s, s:s, s:s, s:o, s:i, s:b, s:b, s:b, s:i}", "player",
		   rules_player_key(c, o->player), "contingent",
		   o->contingent != NO_INDEX || o->kind == MOVE_CONTINGENT, "move_kind",
		   kind_name(o->kind), "from", rules_province_name(c, start), "to",
		   rules_province_name(c, end), "path", path, "stages_moved", out->stages_moved,
		   "halted", out->halted, "returned", out->returned, "forced_passage",
		   out->forced_passage, "lost_half_ap", out->lost_half_ap);
	return RULES_OK;
}

static bool supplies(const struct campaign *c, int player, int province, const bool *supply)
{
	int owner = c->provinces[province].owner;
	return owner != NO_INDEX && (owner == player || permits(c, supply, owner));
}

bool rules_in_supply(const struct campaign *c, int player, const bool *supply)
{
	if (!rules_valid_player(c, player))
		return false;
	int at = c->players[player].location;
	if (!rules_valid_province(c, at))
		return false;
	if (supplies(c, player, at, supply))
		return true;
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if (r->sea && !c->settings.supply_across_sea)
			continue;
		int other = r->a == at ? r->b : r->b == at ? r->a : NO_INDEX;
		if (rules_valid_province(c, other) && supplies(c, player, other, supply))
			return true;
	}
	return false;
}

int rules_supply_check(struct campaign *c, int player, const bool *supply,
		       bool forced_passage_this_move, const int *pick, struct dice *d,
		       struct event_log *log)
{
	if (!rules_active_player(c, player))
		return 0;
	bool in = rules_in_supply(c, player, supply);
	event_emit(log, "supply", RULE_SUPPLY, "{s:s, s:s, s:b, s:b}", "player",
		   rules_player_key(c, player), "province",
		   rules_province_name(c, c->players[player].location), "in_supply", in,
		   "loss_waived", !in && forced_passage_this_move);
	if (in || forced_passage_this_move)
		return 0;
	char *purpose = xasprintf("supply %s", rules_player_key(c, player));
	int pips = dice_roll(d, log, RULE_SUPPLY, purpose);
	free(purpose);
	return rules_generic_loss(c, player, NO_INDEX, pips * RULES_SUPPLY_PIP_HALF_AP, 0, pick,
				  RULE_SUPPLY, "out of supply", log);
}

