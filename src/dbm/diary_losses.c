/* The year's losses, nation by nation: what each army lost to the reserve
 * (storms, forced passages and marches, supply, sieges, battles) and, for
 * a battle, how many routed elements came back (rules 2.2.1). Read from
 * the event log; diary.c turns it into the diary's "losses". */
#include "config.h"

#include "dbm/diary.h"
#include "base/util.h"

#include <string.h>

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The entry of player `key` in `list`, added at the end when new. */
static json_t *entry_for(json_t *list, const char *key)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
		if (strcmp(jstr(e, "player"), key) == 0)
			return e;
	e = json_pack("{s:s, s:i, s:[]}", "player", key, "half_ap", 0, "items");
	json_array_append_new(list, e);
	return e;
}

static void add_item(json_t *list, const char *key, json_t *item)
{
	json_t *e = entry_for(list, key);
	json_int_t half = json_integer_value(json_object_get(item, "half_ap"));
	json_object_set_new(e, "half_ap",
			    json_integer(json_integer_value(json_object_get(e, "half_ap")) + half));
	json_array_append_new(json_object_get(e, "items"), item);
}

json_t *diary_losses(const json_t *events, int year)
{
	json_t *list = json_array();
	const char *battle_at = NULL; /* the province of the battle being told */
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)events, i, ev) {
		const char *kind = jstr(ev, "kind"), *key = jstr(ev, "player");
		json_t *y = json_object_get(ev, "year");
		if (!kind || (json_is_integer(y) && json_integer_value(y) != year))
			continue;
		if (strcmp(kind, "battle") == 0) {
			battle_at = jstr(ev, "province");
			continue;
		}
		if (!key)
			continue;
		bool contingent = json_is_true(json_object_get(ev, "contingent"));
		if (strcmp(kind, "loss") == 0) {
			json_int_t half = json_integer_value(json_object_get(ev, "lost_half_ap"));
			if (half <= 0)
				continue;
			json_t *els = json_object_get(ev, "elements");
			add_item(list, key,
				 json_pack("{s:s, s:I, s:o, s:b, s:b}", "cause",
					   jstr(ev, "cause") ? jstr(ev, "cause") : "losses", "half_ap",
					   half, "elements",
					   json_is_object(els) ? json_incref(els) : json_object(),
					   "contingent", contingent, "battle", 0));
		} else if (strcmp(kind, "routers") == 0 && battle_at) {
			json_int_t half = json_integer_value(json_object_get(ev, "to_reserve_half_ap"));
			json_int_t routers = json_integer_value(json_object_get(ev, "routers"));
			if (half <= 0 && routers <= 0)
				continue;
			json_t *lost = json_object_get(ev, "lost"), *back = json_object_get(ev, "returned");
			add_item(list, key,
				 json_pack("{s:s, s:I, s:o, s:b, s:b, s:I, s:o}", "province", battle_at,
					   "half_ap", half, "elements",
					   json_is_object(lost) ? json_incref(lost) : json_object(),
					   "contingent", contingent, "battle", 1, "routers", routers,
					   "returned",
					   json_is_object(back) ? json_incref(back) : json_object()));
		} else if (strcmp(kind, "prestige") != 0 && strcmp(kind, "general_killed") != 0 &&
			   strcmp(kind, "roll") != 0) {
			battle_at = NULL; /* the battle's own events are over */
		}
	}
	return list;
}
