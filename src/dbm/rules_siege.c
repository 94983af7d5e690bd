/* 2.2 Invasions, the defender's choice, sieges; capture of provinces. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

enum rules_status rules_may_attack(const struct campaign *c, int attacker, int province,
				   struct rules_reason *why)
{
	if (!rules_active_player(c, attacker))
		return rules_refuse(why, "there is no active player number %d", attacker);
	if (!rules_valid_province(c, province))
		return rules_refuse(why, "there is no province number %d", province);
	const struct province *pr = &c->provinces[province];
	if (pr->owner == attacker)
		return rules_refuse(why, "%s is already yours", rules_province_name(c, province));
	if (pr->owner == NO_INDEX && pr->inviolate)
		return rules_refuse(why, "%s is an inviolate neutral and cannot be attacked",
				    rules_province_name(c, province));
	if (pr->owner != NO_INDEX && rules_tributary_related(c, attacker, pr->owner))
		return rules_refuse(why,
				    "%s and %s are overlord and tributary: neither can attack the other",
				    rules_player_nation(c, attacker), rules_player_nation(c, pr->owner));
	return RULES_OK;
}

static struct move_order invasion_move(const struct invasion_order *o)
{
	struct move_order mo = {
		.player = o->player, .contingent = NO_INDEX, .kind = MOVE_INVADE,
		.path = o->path, .stages = o->stages, .on_storm = o->on_storm,
		.force_passage = o->force_passage, .passage = o->passage,
		.loss_pick = o->loss_pick,
	};
	return mo;
}

enum rules_status rules_invade_check(const struct campaign *c, const struct invasion_order *o,
				     struct rules_reason *why)
{
	if (rules_relief_besieger(c, o->player, o->target) == NO_INDEX &&
	    rules_may_attack(c, o->player, o->target, why) != RULES_OK)
		return RULES_REFUSED;
	const struct player *p = &c->players[o->player];
	if (p->movement_option != OPTION_NONE)
		return rules_refuse(why, "%s has already taken a movement option this year",
				    rules_player_nation(c, o->player));
	if (o->stages == 0 || !o->path) {
		if (p->location != o->target)
			return rules_refuse(why, "the field army of %s is not in %s: give the way there",
					    rules_player_nation(c, o->player),
					    rules_province_name(c, o->target));
		return RULES_OK;
	}
	if (o->path[o->stages - 1] != o->target)
		return rules_refuse(why, "the way given ends in %s, not in %s",
				    rules_province_name(c, o->path[o->stages - 1]),
				    rules_province_name(c, o->target));
	struct move_order mo = invasion_move(o);
	return rules_move_check(c, &mo, why);
}

enum rules_status rules_invade(struct campaign *c, const struct invasion_order *o,
			       struct dice *d, struct event_log *log, struct move_outcome *out,
			       bool *arrived, struct rules_reason *why)
{
	struct move_outcome local;
	if (!out)
		out = &local;
	memset(out, 0, sizeof *out);
	if (rules_invade_check(c, o, why) != RULES_OK)
		return RULES_REFUSED;
	struct player *p = &c->players[o->player];
	p->movement_option = OPTION_INVADE;
	int owner = c->provinces[o->target].owner;
	int besieger = rules_relief_besieger(c, o->player, o->target);
	/* attacking a declared ally ends the alliance at once (doc/rules.md);
	 * relieving its besieged city is no attack */
	if (besieger == NO_INDEX && owner != NO_INDEX &&
	    rules_alliance_index(c, o->player, owner) >= 0)
		rules_alliance_end(c, o->player, owner, o->player, "invaded", log, NULL);
	if (besieger != NO_INDEX)
		event_emit(log, "relief", RULE_ALLIES, "{s:s, s:s, s:s, s:s}", "player",
			   rules_player_key(c, o->player), "province",
			   rules_province_name(c, o->target), "owner", rules_player_key(c, owner),
			   "besieger", rules_player_key(c, besieger));
	else
		event_emit(log, "invasion", RULE_INVASION, "{s:s, s:s, s:s}", "player",
			   rules_player_key(c, o->player), "province",
			   rules_province_name(c, o->target), "owner", rules_player_key(c, owner));
	rules_contingent_recall_all(c, o->player, d, log);
	out->end_province = p->location;
	if (o->stages > 0 && o->path) {
		struct move_order mo = invasion_move(o);
		rules_move(c, &mo, d, log, out, why);
	}
	if (arrived)
		*arrived = p->location == o->target;
	return RULES_OK;
}

enum rules_status rules_defend(struct campaign *c, const struct defence_order *o,
			       struct dice *d, struct event_log *log, struct rules_reason *why)
{
	if (!rules_active_player(c, o->player))
		return rules_refuse(why, "there is no active player number %d", o->player);
	if (!rules_valid_province(c, o->province) ||
	    c->provinces[o->province].owner != o->player)
		return rules_refuse(why, "%s does not control that province",
				    rules_player_nation(c, o->player));
	int invader = rules_field_army_at(c, o->province, o->player);
	if (invader == NO_INDEX)
		return rules_refuse(why, "no field army is invading %s",
				    rules_province_name(c, o->province));
	const struct player *p = &c->players[o->player];
	int end = p->location;
	struct move_order mo = {
		.player = o->player, .contingent = NO_INDEX, .kind = MOVE_DEFEND,
		.path = o->path, .stages = o->stages, .on_storm = o->on_storm,
		.force_passage = o->force_passage, .passage = o->passage,
		.loss_pick = o->loss_pick,
	};
	bool moving = o->path && o->stages > 0;
	if (moving) {
		if (rules_move_check(c, &mo, why) != RULES_OK)
			return RULES_REFUSED;
		end = o->path[o->stages - 1];
	}
	if (o->choice == DEFEND_BATTLE && end != o->province)
		return rules_refuse(why, "to give battle the field army of %s must be in %s",
				    rules_player_nation(c, o->player),
				    rules_province_name(c, o->province));
	if (o->choice == DEFEND_SIEGE && end != o->province &&
	    (!rules_valid_province(c, end) || c->provinces[end].owner != o->player))
		return rules_refuse(why,
				    "a field army retreating before a siege must go to another of %s's provinces",
				    rules_player_nation(c, o->player));
	event_emit(log, "defence", RULE_DEFENDING, "{s:s, s:s, s:s, s:s}", "player",
		   rules_player_key(c, o->player), "province",
		   rules_province_name(c, o->province), "invader", rules_player_key(c, invader),
		   "choice", o->choice == DEFEND_BATTLE ? "battle" : "siege");
	if (moving) {
		if (c->settings.defence_recalls_contingents)
			rules_contingent_recall_all(c, o->player, d, log);
		rules_move(c, &mo, d, log, NULL, why);
	}
	return RULES_OK;
}

int rules_siege_needed_score(const struct campaign *c, int province, int rounds_failed)
{
	if (!rules_valid_province(c, province))
		return 6;
	int owner = c->provinces[province].owner;
	bool army_inside = owner == NO_INDEX ||
			   (rules_active_player(c, owner) && c->players[owner].location == province);
	int needed = (army_inside ? 6 : 5) - rounds_failed;
	int floor = c->settings.siege_floor < 1 ? 1 : c->settings.siege_floor;
	if (floor > 6)
		floor = 6;
	return needed < floor ? floor : needed;
}

int rules_find_siege(const struct campaign *c, int province, int besieger)
{
	for (size_t i = 0; i < c->siege_count; i++)
		if (c->sieges[i].province == province && c->sieges[i].besieger == besieger)
			return (int)i;
	return -1;
}

static void remove_sieges_of(struct campaign *c, int province)
{
	for (size_t i = 0; i < c->siege_count;) {
		if (c->sieges[i].province == province) {
			memmove(&c->sieges[i], &c->sieges[i + 1],
				(c->siege_count - i - 1) * sizeof *c->sieges);
			c->siege_count--;
		} else {
			i++;
		}
	}
}

void rules_capture_province(struct campaign *c, int province, int new_owner, const char *rule,
			    struct event_log *log)
{
	if (!rules_valid_province(c, province))
		return;
	int old = c->provinces[province].owner;
	c->provinces[province].owner = new_owner;
	remove_sieges_of(c, province);
	event_emit(log, "capture", rule, "{s:s, s:s, s:s}", "province",
		   rules_province_name(c, province), "from", rules_player_key(c, old), "to",
		   rules_player_key(c, new_owner));
	if (rules_active_player(c, old) && player_province_count(c, old) == 0)
		rules_player_knocked_out(c, old, log);
}

/* Nearest province the player holds, lowest index on a tie; NO_INDEX if none. */
static int nearest_own_province(const struct campaign *c, int player, int from)
{
	if (!rules_valid_province(c, from)) {
		for (size_t i = 0; i < c->province_count; i++)
			if (c->provinces[i].owner == player)
				return (int)i;
		return NO_INDEX;
	}
	int stages; /* the province left behind has just been captured */
	return rules_retreat_destination(c, player, from, NO_INDEX, NULL, NO_INDEX, &stages);
}

void rules_field_army_lost(struct campaign *c, int player, const char *rule,
			   struct event_log *log)
{
	if (!rules_valid_player(c, player))
		return;
	struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	int lost = player_field_half_ap(p);
	json_t *elements = rules_counts_json(l, p->field.count);
	for (size_t i = 0; i < l->count; i++) {
		p->reserve.count[i] += p->field.count[i];
		p->field.count[i] = 0;
	}
	int at = p->location;
	event_emit(log, "army_lost", rule, "{s:s, s:s, s:i, s:o}", "player",
		   rules_player_key(c, player), "province", rules_province_name(c, at),
		   "lost_half_ap", lost, "elements", elements);
	rules_lift_sieges_by(c, player, NO_INDEX, log);
	/* Allied contingents with the lost army go home. */
	for (size_t i = c->contingent_count; i-- > 0;)
		if (c->contingents[i].with_player == player && c->contingents[i].owner != player)
			rules_contingent_rejoin(c, (int)i, log);
	if (p->status != PLAYER_ACTIVE) {
		p->location = NO_INDEX;
		return;
	}
	p->location = nearest_own_province(c, player, at);
	for (size_t i = 0; i < l->count; i++) {
		if (l->types[i].general && p->reserve.count[i] > 0) {
			p->reserve.count[i]--;
			p->field.count[i]++;
			event_emit(log, "general_retrieved", RULE_GENERALS,
				   "{s:s, s:s, s:i, s:s}", "player", rules_player_key(c, player),
				   "general", l->types[i].label, "paid_half_ap", 0, "province",
				   rules_province_name(c, p->location));
			break;
		}
	}
}

enum rules_status rules_siege_round(struct campaign *c, int besieger, int province,
				    const int *loss_pick, struct dice *d, struct event_log *log,
				    bool *captured, struct rules_reason *why)
{
	if (captured)
		*captured = false;
	if (rules_may_attack(c, besieger, province, why) != RULES_OK)
		return RULES_REFUSED;
	if (c->players[besieger].location != province)
		return rules_refuse(why, "the field army of %s is not in %s",
				    rules_player_nation(c, besieger), rules_province_name(c, province));
	int si = rules_find_siege(c, province, besieger);
	if (si >= 0 && c->sieges[si].last_round_year == c->year)
		return rules_refuse(why, "the siege of %s has had its round this year",
				    rules_province_name(c, province));
	if (si < 0) {
		grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1,
			   sizeof *c->sieges);
		si = (int)c->siege_count++;
		memset(&c->sieges[si], 0, sizeof c->sieges[si]);
		c->sieges[si].province = province;
		c->sieges[si].besieger = besieger;
	}
	struct siege *s = &c->sieges[si];
	s->last_round_year = c->year;
	int owner = c->provinces[province].owner;
	bool army_inside = rules_active_player(c, owner) && c->players[owner].location == province;
	int needed = rules_siege_needed_score(c, province, s->rounds_failed);
	int rounds_failed = s->rounds_failed;
	c->players[besieger].fought_this_year = true;
	if (rules_active_player(c, owner))
		c->players[owner].fought_this_year = true;
	char *purpose = xasprintf("siege %s %s", rules_player_key(c, besieger),
				  rules_province_name(c, province));
	int roll = dice_roll(d, log, RULE_SIEGE, purpose);
	free(purpose);
	bool success = roll >= needed;
	event_emit(log, "siege_round", RULE_SIEGE, "{s:s, s:s, s:s, s:i, s:i, s:i, s:b, s:b}",
		   "player", rules_player_key(c, besieger), "province",
		   rules_province_name(c, province), "defender", rules_player_key(c, owner),
		   "rounds_failed", rounds_failed, "needed", needed, "roll", roll,
		   "army_inside", army_inside, "captured", success);
	if (success) {
		rules_capture_province(c, province, besieger, RULE_SIEGE, log);
		if (army_inside)
			rules_field_army_lost(c, owner, RULE_SIEGE, log);
		if (captured)
			*captured = true;
	} else {
		s->rounds_failed++;
		rules_generic_loss(c, besieger, NO_INDEX, RULES_SIEGE_FAILED_HALF_AP, 0, loss_pick,
				   RULE_SIEGE, "failed siege", log);
	}
	return RULES_OK;
}

enum rules_status rules_siege_sally(struct campaign *c, int player, struct event_log *log,
				    struct rules_reason *why)
{
	if (!rules_active_player(c, player))
		return rules_refuse(why, "there is no active player number %d", player);
	int at = c->players[player].location;
	if (!rules_valid_province(c, at) || c->provinces[at].owner != player)
		return rules_refuse(why, "the field army of %s is not in one of its own cities",
				    rules_player_nation(c, player));
	int besieger = NO_INDEX;
	for (size_t i = 0; i < c->siege_count; i++)
		if (c->sieges[i].province == at)
			besieger = c->sieges[i].besieger;
	if (besieger == NO_INDEX)
		return rules_refuse(why, "%s is not besieged", rules_province_name(c, at));
	event_emit(log, "sally", RULE_SIEGE, "{s:s, s:s, s:s}", "player",
		   rules_player_key(c, player), "province", rules_province_name(c, at),
		   "besieger", rules_player_key(c, besieger));
	return RULES_OK;
}
