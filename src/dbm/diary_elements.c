/* Element counts as the diary says them: "16 Longbowmen", and one
 * element of a list whose labels are plural as "1 element of Longbowmen".
 * Pure. */
#include "config.h"

#include "dbm/diary.h"
#include "base/util.h"

#include <stdlib.h>

json_t *diary_elements_list(const struct campaign *c, const char *key, const json_t *counts)
{
	json_t *list = json_array();
	int p = key ? campaign_find_player(c, key) : NO_INDEX;
	const char *label;
	json_t *v;
	json_object_foreach((json_t *)counts, label, v) {
		if (!json_is_integer(v) || json_integer_value(v) == 0)
			continue;
		json_int_t n = json_integer_value(v);
		int t = p >= 0 ? army_list_find(&c->players[p].list, label) : -1;
		/* the labels are the list's names for a kind of element,
		 * plural ("Longbowmen"); a line of which the list allows one
		 * element is a single element (a named general) */
		char *text = n != 1 ? xasprintf("%lld %s", (long long)n, label)
			     : t >= 0 && c->players[p].list.types[t].list_max == 1
				     ? xstrdup(label)
				     : xasprintf("1 element of %s", label);
		json_array_append_new(list, json_pack("{s:s, s:I, s:s, s:b}", "label", label, "count",
						      n, "text", text, "last", 0));
		free(text);
	}
	size_t n = json_array_size(list);
	if (n > 0)
		json_object_set_new(json_array_get(list, n - 1), "last", json_true());
	return list;
}
