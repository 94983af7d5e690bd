/* What one part of a mail already tells, left out of or pointed to from
 * the others: a mail joined of several parts says each thing once. For the
 * year's merged mails (engine_year_mail.c) and the reply with the parts
 * its mail caused (engine_fold.c). */
#include "config.h"

#include "engine/engine_p.h"
#include "base/util.h"

#include <string.h>

void engine_next_told(json_t *note, const char *told)
{
	json_t *next = json_object_get(note, "next");
	if (!told || !json_is_object(next))
		return;
	bool asks = strcmp(told, "asks") == 0;
	/* whose turn it is: the "Your turn" says it; what the turn under way
	 * waits for is new */
	json_t *waits = json_object_get(next, "waits_text");
	if (!asks && json_is_string(waits))
		json_object_set(next, "now_text", waits);
	else
		json_object_del(next, "now_text");
	if (asks) {
		/* what is asked of him and until when: the "Your turn" asks it
		 * (the organiser who plays may be awaited as the organiser too) */
		json_object_del(next, "deadline_text");
		if (!json_object_get(next, "organiser_for"))
			json_object_del(next, "you_text");
	}
	if (!json_object_get(next, "now_text") && !json_object_get(next, "you_text") &&
	    !json_object_get(next, "deadline_text"))
		json_object_del(note, "next");
}

char *engine_move_done_text(const char *heading)
{
	static const char what[] = "carried out with your mail: what came of it (the way, "
				   "storms, forced passage, supply, what it cost)";
	if (heading)
		return xasprintf("%s is told below, in \"%s\"", what, heading);
	return xasprintf("%s is in the year's mail on your turn", what);
}

/* The heading of a part among `told` (a mail's "turns_told": [{"player",
 * "heading"}]) that tells what came of the move of `player`, or NULL. */
static const char *told_for(const json_t *told, const char *player)
{
	size_t i;
	json_t *v;
	json_array_foreach(told, i, v)
		if (player && json_is_string(json_object_get(v, "player")) &&
		    strcmp(json_string_value(json_object_get(v, "player")), player) == 0)
			return json_string_value(json_object_get(v, "heading"));
	return NULL;
}

const char *engine_turn_told(const json_t *part, const char *player)
{
	return told_for(json_object_get(part, "turns_told"), player);
}

void engine_moves_told_below(json_t *ack, const char *heading)
{
	json_t *lines = json_object_get(ack, "lines");
	size_t i;
	json_t *line;
	json_array_foreach(lines, i, line) {
		json_t *costs = json_object_get(line, "costs");
		if (!json_is_true(json_object_get(line, "move_done")) || !json_array_size(costs))
			continue;
		char *t = engine_move_done_text(heading);
		json_array_set_new(costs, 0, json_string(t));
		free(t);
	}
}
