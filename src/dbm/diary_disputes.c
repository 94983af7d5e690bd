/* A disputed battle in the diary: which comments the organiser made with a
 * battle's decision, and whether a battle was decided by the organiser
 * (the log records the decision after the battle's consequences). */
#include "config.h"

#include "dbm/diary.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const char *ev_str(const json_t *ev, const char *key)
{
	return json_string_value(json_object_get(ev, key));
}

/* The province whose battle the organiser's event `ev` decided, or NULL: "decided the result of the battle at X:\n...". */
static char *decided_province(const json_t *ev)
{
	const char *kind = ev_str(ev, "kind"), *action = ev_str(ev, "action"),
		   *detail = ev_str(ev, "detail");
	static const char lead[] = "decided the result of the battle at ";
	if (!kind || strcmp(kind, "organiser") != 0 || !action ||
	    strcmp(action, "battle-result") != 0 || !detail ||
	    strncmp(detail, lead, sizeof lead - 1) != 0)
		return NULL;
	const char *p = detail + sizeof lead - 1;
	size_t n = strcspn(p, ":\n");
	return n ? xstrndup(p, n) : NULL;
}

/* A copy of `comments` where each comment the organiser made with a
 * battle's decision (placed after the decision's own event, or after
 * comments made with it) says "decision_of": the province. They are told
 * under that battle, after the decision, not where the year stood when
 * the organiser wrote them (often the next player's turn). */
json_t *diary_comments_with_decisions(const json_t *comments, const json_t *events)
{
	json_t *out = json_array();
	size_t i;
	json_t *cm;
	size_t count = json_array_size(events);
	json_array_foreach((json_t *)comments, i, cm) {
		json_t *copy = json_copy(cm);
		json_array_append_new(out, copy);
		json_int_t at = json_integer_value(json_object_get(cm, "after_event"));
		/* back over the comments made just before it in the same breath */
		while (at >= 1 && (size_t)at <= count) {
			const json_t *ev = json_array_get(events, (size_t)at - 1);
			char *province = decided_province(ev);
			if (province) {
				json_object_set_new(copy, "decision_of", json_string(province));
				free(province);
				break;
			}
			const char *kind = ev_str(ev, "kind"), *action = ev_str(ev, "action");
			if (!kind || strcmp(kind, "organiser") != 0 || !action ||
			    strcmp(action, "comment") != 0)
				break;
			at--;
		}
	}
	return out;
}

/* Whether the battle at events[i] was decided by the organiser: its
 * "battle_result" (logged after the battle's consequences) says so. */
bool diary_decided_by_organiser(const json_t *events, size_t i)
{
	const char *province = ev_str(json_array_get(events, i), "province");
	size_t n = json_array_size(events);
	for (size_t k = i + 1; province && k < n; k++) {
		const json_t *ev = json_array_get(events, k);
		const char *kind = ev_str(ev, "kind");
		if (!kind)
			continue;
		if (strcmp(kind, "battle") == 0 || strcmp(kind, "turn") == 0)
			return false;
		if (strcmp(kind, "battle_result") == 0) {
			const char *p = ev_str(ev, "province"), *how = ev_str(ev, "decided");
			return p && strcmp(p, province) == 0 && how && strcmp(how, "organiser") == 0;
		}
	}
	return false;
}
