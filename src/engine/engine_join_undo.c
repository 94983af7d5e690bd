/* An undo to a snapshot taken before a player joined (campaignctl
 * add-player, engine_join.c): the players added since are put into the
 * snapshot as they stand now, so that an undo never takes back a joining
 * (the store keeps his rows, his password and his setup orders). */
#include "config.h"

#include "engine/engine_p.h"
#include "model/campaign_json.h"

#include <string.h>

int engine_join_graft(struct engine *e, json_t *snapshot, char **errstr)
{
	json_t *players = json_object_get(snapshot, "players");
	if (!json_is_array(players))
		return 0;
	struct campaign *now = NULL;
	if (store_load_campaign(e->store, &now, errstr) != STORE_OK)
		return -1;
	size_t had = json_array_size(players);
	if (now->player_count <= had) {
		campaign_free(now);
		return 0;
	}
	json_t *cur = campaign_to_json(now);
	json_t *cur_players = json_object_get(cur, "players");
	json_t *cur_provinces = json_object_get(cur, "provinces");
	json_t *provinces = json_object_get(snapshot, "provinces");
	for (size_t i = had; i < json_array_size(cur_players); i++) {
		json_array_append(players, json_array_get(cur_players, i));
		const char *key = now->players[i].key;
		for (size_t k = 0; k < json_array_size(cur_provinces) &&
				   k < json_array_size(provinces); k++) {
			json_t *from = json_array_get(cur_provinces, k);
			const char *home = json_string_value(json_object_get(from, "home_of"));
			if (home && strcmp(home, key) == 0)
				json_object_set(json_array_get(provinces, k), "home_of",
						json_object_get(from, "home_of"));
		}
	}
	json_decref(cur);
	campaign_free(now);
	return 0;
}
