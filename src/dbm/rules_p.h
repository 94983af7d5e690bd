/* Private helpers shared by the rules_*.c files. Not a contract for anyone
 * outside the rules. */
#ifndef CAMPAIGN_RULES_P_H
#define CAMPAIGN_RULES_P_H

#include <jansson.h>

#include "dbm/rules.h"

/* Writes the reason into why (if not NULL) and returns RULES_REFUSED. */
enum rules_status rules_refuse(struct rules_reason *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

bool rules_valid_player(const struct campaign *c, int player);
bool rules_active_player(const struct campaign *c, int player);
bool rules_valid_province(const struct campaign *c, int province);
bool rules_valid_contingent(const struct campaign *c, int contingent);
/* Names for events and reasons: the player's key, the province's name;
 * "neutral" / "nowhere" for NO_INDEX. */
const char *rules_player_key(const struct campaign *c, int player);
/* The player's nation as players read it (refusals, notes). */
const char *rules_player_nation(const struct campaign *c, int player);
const char *rules_province_name(const struct campaign *c, int province);

/* The troops of a force: the field army, or a contingent. NULL if invalid
 * (a contingent must belong to `player`). */
struct troops *rules_force_troops(struct campaign *c, int player, int contingent);
const struct troops *rules_force_troops_const(const struct campaign *c, int player,
					      int contingent);

/* Value of element counts in the player's list. */
int rules_counts_half_ap(const struct army_list *l, const int *counts);
int rules_counts_generals(const struct army_list *l, const int *counts);
/* {"label": count, ...} for the non-zero counts. New reference. */
json_t *rules_counts_json(const struct army_list *l, const int *counts);

/* The active player (other than `except`) whose field army stands in the
 * province, or NO_INDEX. */
int rules_field_army_at(const struct campaign *c, int province, int except);
/* Province owned by the player, or by a player marked in allies. */
bool rules_friendly_province(const struct campaign *c, int player, int province,
			     const bool *allies);
/* Removes c->contingents[i] (shifting the later ones down). */
void rules_remove_contingent(struct campaign *c, int contingent);
/* Lifts every siege conducted by `player` except the one of `keep`. */
void rules_lift_sieges_by(struct campaign *c, int player, int keep, struct event_log *log);

/* Neighbours of every province at once (compressed rows): the neighbours of
 * p are to[start[p]] .. to[start[p + 1] - 1]. For breadth-first searches
 * over the whole map. */
struct rules_adjacency {
	int *start; /* province_count + 1 entries */
	int *to;
};
void rules_adjacency_build(const struct campaign *c, struct rules_adjacency *adj);
void rules_adjacency_free(struct rules_adjacency *adj);

#endif
