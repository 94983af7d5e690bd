/* 2.3 Allied contingents: composition, movement, arrival, recall. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* The way a contingent takes: the order's path or the shortest one.
 * Returns the number of stages (-1 unreachable); *path is allocated when
 * computed (caller frees *owned). */
static int contingent_way(const struct campaign *c, const struct contingent_order *o,
			  const int **path, int **owned)
{
	*owned = NULL;
	if (o->path && o->stages > 0) {
		*path = o->path;
		return (int)o->stages;
	}
	int from = c->players[o->owner].location, to = c->players[o->to_player].location;
	*owned = xmalloc((c->province_count ? c->province_count : 1) * sizeof **owned);
	*path = *owned;
	return rules_shortest_path(c, o->owner, from, to, *owned, c->province_count);
}

static enum rules_status contingent_way_check(const struct campaign *c,
					      const struct contingent_order *o,
					      struct rules_reason *why);

enum rules_status rules_contingent_check(const struct campaign *c,
					 const struct contingent_order *o,
					 struct rules_reason *why)
{
	if (!rules_active_player(c, o->owner) || !rules_active_player(c, o->to_player))
		return rules_refuse(why, "a contingent goes from one active player to another");
	if (o->owner == o->to_player)
		return rules_refuse(why, "a contingent joins another player's field army");
	const struct player *p = &c->players[o->owner];
	if (p->movement_option != OPTION_NONE && p->movement_option != OPTION_ALLY)
		return rules_refuse(why,
				    "%s has moved or invaded this year and cannot send contingents",
				    rules_player_nation(c, o->owner));
	if (!o->troops)
		return rules_refuse(why, "the contingent has no troops");
	/* 2.2: a besieged army "can sally out ... to give battle, but not to
	 * retreat without battle": no contingent slips past the besieger */
	int at = p->location;
	if (rules_valid_province(c, at) && c->provinces[at].owner == o->owner &&
	    c->players[o->to_player].location != at)
		for (size_t i = 0; i < c->siege_count; i++)
			if (c->sieges[i].province == at && c->sieges[i].besieger != o->owner &&
			    rules_active_player(c, c->sieges[i].besieger) &&
			    c->players[c->sieges[i].besieger].location == at)
				return rules_refuse(why,
						    "the field army of %s is besieged in %s: no contingent can slip past the besieger (SALLY gives battle)",
						    rules_player_key(c, o->owner),
						    rules_province_name(c, at));
	const struct army_list *l = &p->list;
	int generals_left = troops_generals(l, &p->field);
	for (size_t i = 0; i < l->count; i++) {
		if (o->troops[i] < 0 || o->troops[i] > p->field.count[i])
			return rules_refuse(why, "the contingent takes %d \"%s\" but the field army has %d",
					    o->troops[i], l->types[i].label, p->field.count[i]);
		if (l->types[i].general)
			generals_left -= o->troops[i];
	}
	int value = rules_counts_half_ap(l, o->troops);
	char a[16];
	if (value > RULES_CONTINGENT_MAX_HALF_AP)
		return rules_refuse(why, "a contingent is at most 80 AP; this one is %s AP",
				    half_ap_format(value, a));
	if (rules_counts_generals(l, o->troops) < 1)
		return rules_refuse(why, "a contingent must include a general");
	if (generals_left < 1)
		return rules_refuse(why, "the C-in-C must remain with the field army");
	return contingent_way_check(c, o, why);
}

enum rules_status rules_contingent_reach(const struct campaign *c, int owner, int to_player,
					 const bool *passage, struct rules_reason *why)
{
	if (!rules_active_player(c, owner) || !rules_active_player(c, to_player) ||
	    owner == to_player)
		return rules_refuse(why, "a contingent goes from one active player to another");
	struct contingent_order o = {.owner = owner, .to_player = to_player,
				     .on_storm = STORM_CONTINUE, .force_passage = true,
				     .passage = passage};
	return contingent_way_check(c, &o, why);
}

/* The way of a contingent checked: it leads to the army it joins, within
 * the movement rules for contingents. */
static enum rules_status contingent_way_check(const struct campaign *c,
					      const struct contingent_order *o,
					      struct rules_reason *why)
{
	const int *path;
	int *owned;
	int stages = contingent_way(c, o, &path, &owned);
	enum rules_status st = RULES_OK;
	if (stages < 0) {
		st = rules_refuse(why, "there is no way to the field army of %s",
				  rules_player_nation(c, o->to_player));
	} else if (stages == 0) {
		st = rules_refuse(why, "the field army of %s is in the same province: nothing to move",
				  rules_player_nation(c, o->to_player));
	} else if (path[stages - 1] != c->players[o->to_player].location) {
		st = rules_refuse(why, "the way ends in %s but the field army of %s is in %s",
				  rules_province_name(c, path[stages - 1]),
				  rules_player_nation(c, o->to_player),
				  rules_province_name(c, c->players[o->to_player].location));
	} else {
		struct move_order mo = {
			.player = o->owner, .contingent = NO_INDEX, .kind = MOVE_CONTINGENT,
			.path = path, .stages = (size_t)stages, .on_storm = o->on_storm,
			.force_passage = o->force_passage, .passage = o->passage,
		};
		st = rules_move_check(c, &mo, why);
	}
	free(owned);
	return st;
}

bool rules_contingent_default(const struct campaign *c, int owner, int *troops)
{
	const struct player *p = &c->players[owner];
	const struct army_list *l = &p->list;
	memset(troops, 0, l->count * sizeof *troops);
	if (!p->field.count || troops_generals(l, &p->field) < 2)
		return false;
	int general = -1;
	for (size_t i = 0; i < l->count; i++)
		if (l->types[i].general && p->field.count[i] > 0 &&
		    (general < 0 || l->types[i].cost_half_ap < l->types[general].cost_half_ap))
			general = (int)i;
	if (general < 0 || l->types[general].cost_half_ap > RULES_CONTINGENT_MAX_HALF_AP)
		return false;
	troops[general] = 1;
	int value = l->types[general].cost_half_ap;
	for (size_t i = 0; i < l->count; i++) {
		if (l->types[i].general || l->types[i].cost_half_ap <= 0)
			continue;
		while (troops[i] < p->field.count[i] &&
		       value + l->types[i].cost_half_ap <= RULES_CONTINGENT_MAX_HALF_AP) {
			troops[i]++;
			value += l->types[i].cost_half_ap;
		}
	}
	return true;
}

enum rules_status rules_contingent_send(struct campaign *c, const struct contingent_order *o,
					struct dice *d, struct event_log *log, int *index,
					struct rules_reason *why)
{
	if (index)
		*index = NO_INDEX;
	if (rules_contingent_check(c, o, why) != RULES_OK)
		return RULES_REFUSED;
	struct player *p = &c->players[o->owner];
	const struct army_list *l = &p->list;
	p->movement_option = OPTION_ALLY;
	grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
		   sizeof *c->contingents);
	int ci = (int)c->contingent_count++;
	struct contingent *ct = &c->contingents[ci];
	memset(ct, 0, sizeof *ct);
	ct->owner = o->owner;
	ct->with_player = o->owner; /* at its own army until it has moved */
	ct->sent_year = c->year;
	troops_alloc(&ct->troops, l->count);
	for (size_t i = 0; i < l->count; i++) {
		ct->troops.count[i] = o->troops[i];
		p->field.count[i] -= o->troops[i];
	}
	event_emit(log, "contingent_sent", RULE_CONTINGENT_COMPOSITION, "{s:s, s:s, s:i, s:o}",
		   "player", rules_player_key(c, o->owner), "to", rules_player_key(c, o->to_player),
		   "half_ap", troops_half_ap(l, &ct->troops), "elements",
		   rules_counts_json(l, ct->troops.count));
	const int *path;
	int *owned;
	int stages = contingent_way(c, o, &path, &owned);
	struct move_order mo = {
		.player = o->owner, .contingent = ci, .kind = MOVE_CONTINGENT, .path = path,
		.stages = (size_t)stages, .on_storm = o->on_storm,
		.force_passage = o->force_passage, .passage = o->passage,
		.loss_pick = o->loss_pick,
	};
	struct move_outcome out;
	rules_move(c, &mo, d, log, &out, why);
	free(owned);
	if (out.halted || out.returned) {
		/* Not with any field army: it goes home. */
		rules_contingent_rejoin(c, ci, log);
		return RULES_OK;
	}
	c->contingents[ci].with_player = o->to_player;
	event_emit(log, "contingent_joined", RULE_CONTINGENT_MOVEMENT, "{s:s, s:s, s:s}", "player",
		   rules_player_key(c, o->owner), "with", rules_player_key(c, o->to_player),
		   "province", rules_province_name(c, c->players[o->to_player].location));
	if (index)
		*index = ci;
	return RULES_OK;
}

bool rules_contingent_arrival(struct campaign *c, int contingent, struct dice *d,
			      struct event_log *log)
{
	if (!rules_valid_contingent(c, contingent))
		return false;
	struct contingent *ct = &c->contingents[contingent];
	bool rolls = ct->sent_year == c->year || ct->returning;
	int roll = 0;
	if (rolls) {
		char *purpose = xasprintf("arrival %s contingent%s", rules_player_key(c, ct->owner),
					  ct->returning ? " returning" : "");
		roll = dice_roll(d, log, RULE_CONTINGENT_ARRIVAL, purpose);
		free(purpose);
	}
	bool arrived = !rolls || roll <= 4;
	event_emit(log, "contingent_arrival", RULE_CONTINGENT_ARRIVAL, "{s:s, s:s, s:b, s:b, s:b}",
		   "player", rules_player_key(c, ct->owner), "with",
		   rules_player_key(c, ct->returning ? ct->owner : ct->with_player), "rolled", rolls,
		   "returning", ct->returning, "arrived", arrived);
	return arrived;
}

enum rules_status rules_contingent_recall(struct campaign *c, int contingent, struct dice *d,
					  struct event_log *log, struct rules_reason *why)
{
	if (!rules_valid_contingent(c, contingent))
		return rules_refuse(why, "there is no contingent number %d", contingent);
	struct contingent *ct = &c->contingents[contingent];
	if (ct->returning)
		return rules_refuse(why, "that contingent is already on its way back");
	int owner = ct->owner;
	int from = rules_valid_player(c, ct->with_player) ? c->players[ct->with_player].location
							  : NO_INDEX;
	int to = c->players[owner].location;
	event_emit(log, "contingent_recalled", RULE_CONTINGENT_RECALL, "{s:s, s:s}", "player",
		   rules_player_key(c, owner), "from", rules_player_key(c, ct->with_player));
	int *path = xmalloc((c->province_count ? c->province_count : 1) * sizeof *path);
	int stages = rules_shortest_path(c, owner, from, to, path, c->province_count);
	if (stages > 0) {
		struct move_order mo = {
			.player = owner, .contingent = contingent, .kind = MOVE_RETURN,
			.path = path, .stages = (size_t)stages, .on_storm = STORM_CONTINUE,
		};
		rules_move(c, &mo, d, log, NULL, NULL);
	}
	free(path);
	c->contingents[contingent].returning = true;
	c->contingents[contingent].with_player = owner;
	return RULES_OK;
}

void rules_contingent_recall_all(struct campaign *c, int player, struct dice *d,
				 struct event_log *log)
{
	for (size_t i = 0; i < c->contingent_count; i++)
		if (c->contingents[i].owner == player && !c->contingents[i].returning)
			rules_contingent_recall(c, (int)i, d, log, NULL);
}

void rules_contingent_rejoin(struct campaign *c, int contingent, struct event_log *log)
{
	if (!rules_valid_contingent(c, contingent))
		return;
	struct contingent *ct = &c->contingents[contingent];
	struct player *p = &c->players[ct->owner];
	for (size_t i = 0; i < p->list.count; i++)
		p->field.count[i] += ct->troops.count[i];
	event_emit(log, "contingent_rejoined", RULE_CONTINGENT_RECALL, "{s:s, s:i}", "player",
		   rules_player_key(c, ct->owner), "half_ap", troops_half_ap(&p->list, &ct->troops));
	rules_remove_contingent(c, contingent);
}

void rules_contingent_rejoin_returning(struct campaign *c, int player, struct event_log *log)
{
	for (size_t i = c->contingent_count; i-- > 0;)
		if (c->contingents[i].returning &&
		    (player == NO_INDEX || c->contingents[i].owner == player))
			rules_contingent_rejoin(c, (int)i, log);
}
