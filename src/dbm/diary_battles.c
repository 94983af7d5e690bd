/* The year's battles as a table, its corrections, and the places the map
 * marks for it: read from the event log, for the web diary and the maps. */
#include "config.h"

#include "dbm/diary.h"
#include "model/campaign_json.h"
#include "base/util.h"

#include <string.h>

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool of_year(const json_t *ev, int year)
{
	return json_integer_value(json_object_get(ev, "year")) == year;
}

static const char *nation_of(const struct campaign *c, const char *key)
{
	int p = key ? campaign_find_player(c, key) : NO_INDEX;
	if (p < 0)
		return key ? key : "?";
	return c->players[p].nation ? c->players[p].nation : c->players[p].key;
}

static json_t *ref_of(const struct campaign *c, const char *key)
{
	return diary_player_ref(c, key ? campaign_find_player(c, key) : NO_INDEX);
}

static json_int_t half_ap_at(const json_t *ev, const char *key, size_t i)
{
	return json_integer_value(json_array_get(json_object_get(ev, key), i));
}

/* A correction of the battle at `province` recorded after event `from`. */
static bool corrected_later(const json_t *events, size_t from, int year, const char *province)
{
	size_t n = json_array_size(events);
	for (size_t i = from + 1; i < n; i++) {
		const json_t *ev = json_array_get(events, i);
		const char *kind = jstr(ev, "kind"), *action = jstr(ev, "action"),
			   *detail = jstr(ev, "detail");
		if (!of_year(ev, year) || !kind || strcmp(kind, "organiser") != 0 || !action ||
		    strcmp(action, "battle-result") != 0 || !detail)
			continue;
		char *prefix = xasprintf("corrected the result of the battle at %s:", province);
		bool match = strncmp(detail, prefix, strlen(prefix)) == 0;
		free(prefix);
		if (match)
			return true;
	}
	return false;
}

json_t *diary_battles(const struct campaign *c, const json_t *events, int year)
{
	json_t *list = json_array();
	json_t *battle = NULL;
	int lost[2] = {0, 0}, killed[2] = {0, 0};
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)events, i, ev) {
		const char *kind = jstr(ev, "kind");
		if (!kind || !of_year(ev, year))
			continue;
		if (strcmp(kind, "battle") == 0) {
			const char *province = jstr(ev, "province");
			if (!province || !jstr(ev, "winner") || !jstr(ev, "loser")) {
				battle = NULL;
				continue;
			}
			battle = json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:I, s:b}", "province",
					   province, "winner", ref_of(c, jstr(ev, "winner")), "loser",
					   ref_of(c, jstr(ev, "loser")), "winner_ap",
					   half_ap_to_json((int)half_ap_at(ev, "half_ap", 0)), "loser_ap",
					   half_ap_to_json((int)half_ap_at(ev, "half_ap", 1)), "how",
					   jstr(ev, "how") ? jstr(ev, "how") : "demoralised", "award",
					   json_integer_value(json_object_get(ev, "award")), "corrected",
					   corrected_later(events, i, year, province));
			json_array_append_new(list, battle);
			lost[0] = lost[1] = killed[0] = killed[1] = 0;
			continue;
		}
		if (!battle)
			continue;
		if (strcmp(kind, "routers") == 0) {
			/* one per force on the table, the winner's side first or not */
			int side = json_is_true(json_object_get(ev, "winner")) ? 0 : 1;
			lost[side] += (int)json_integer_value(json_object_get(ev, "to_reserve_half_ap"));
			const char *label;
			json_t *v;
			json_object_foreach(json_object_get(ev, "killed"), label, v)
				killed[side] += (int)json_integer_value(v);
			json_object_set_new(battle, "winner_lost_ap", half_ap_to_json(lost[0]));
			json_object_set_new(battle, "loser_lost_ap", half_ap_to_json(lost[1]));
			json_object_set_new(battle, "winner_generals_killed", json_integer(killed[0]));
			json_object_set_new(battle, "loser_generals_killed", json_integer(killed[1]));
		} else if (strcmp(kind, "prestige") != 0 && strcmp(kind, "general_killed") != 0) {
			battle = NULL; /* the battle's own events are over */
		}
	}
	return list;
}

json_t *diary_corrections(const struct campaign *c, const json_t *events, int year)
{
	(void)c;
	json_t *list = json_array();
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)events, i, ev) {
		const char *kind = jstr(ev, "kind"), *action = jstr(ev, "action"),
			   *detail = jstr(ev, "detail");
		if (!kind || strcmp(kind, "organiser") != 0 || !of_year(ev, year) || !action ||
		    !detail)
			continue;
		char *text = NULL;
		if (strcmp(action, "battle-result") == 0 && strncmp(detail, "corrected ", 10) == 0) {
			/* "corrected the result of the battle at X:\nlines" */
			size_t head = strcspn(detail, ":\n");
			text = xasprintf("The organiser %.*s.", (int)head, detail);
		} else if (strcmp(action, "undo") == 0) {
			size_t head = strcspn(detail, "(;");
			while (head && detail[head - 1] == ' ')
				head--;
			text = xasprintf("The organiser took back a step: %.*s.", (int)head, detail);
		}
		if (text) {
			json_array_append_new(list, json_pack("{s:s, s:i}", "text", text, "seq",
							      (int)json_integer_value(json_object_get(ev, "seq"))));
			free(text);
		}
	}
	return list;
}

json_t *diary_map_marks(const struct campaign *c, const json_t *events, int year)
{
	json_t *marks = json_array();
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)events, i, ev) {
		const char *kind = jstr(ev, "kind"), *province = jstr(ev, "province");
		if (!kind || !province || !of_year(ev, year))
			continue;
		char *title = NULL;
		const char *mark = NULL;
		if (strcmp(kind, "battle") == 0) {
			mark = "battle";
			title = xasprintf("Battle at %s, %d: %s beat %s", province, year,
					  nation_of(c, jstr(ev, "winner")),
					  nation_of(c, jstr(ev, "loser")));
		} else if (strcmp(kind, "siege_round") == 0) {
			mark = "siege";
			title = xasprintf("Siege of %s by %s, %d", province,
					  nation_of(c, jstr(ev, "player")), year);
		}
		if (!mark)
			continue;
		/* one mark of a kind per province: the last one tells */
		size_t k;
		json_t *m;
		json_array_foreach(marks, k, m)
			if (strcmp(jstr(m, "kind"), mark) == 0 && strcmp(jstr(m, "province"), province) == 0)
				break;
		json_t *entry = json_pack("{s:s, s:s, s:s, s:i}", "province", province, "kind", mark,
					  "title", title, "year", year);
		if (k < json_array_size(marks))
			json_array_set_new(marks, k, entry);
		else
			json_array_append_new(marks, entry);
		free(title);
	}
	return marks;
}
