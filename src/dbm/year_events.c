/* The year's events as a report tells them: each thing once. The rules log
 * a cause and its state change as two events (a storm, then the loss it
 * caused; a battle, then the prestige it gave; a retreat, then the march
 * that carried it out); a report says them in one line. The decision of a
 * battle is told with the battle, before its consequences. Works on the
 * events year_events_for_mail decorated; pure. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "base/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool kind_is(const json_t *ev, const char *kind)
{
	const char *k = jstr(ev, "kind");
	return k && strcmp(k, kind) == 0;
}

static bool same_str(const json_t *a, const json_t *b, const char *key)
{
	const char *x = jstr(a, key), *y = jstr(b, key);
	return x && y && strcmp(x, y) == 0;
}

static bool same_force(const json_t *a, const json_t *b)
{
	return same_str(a, b, "player") &&
	       json_is_true(json_object_get(a, "contingent")) ==
		       json_is_true(json_object_get(b, "contingent"));
}

/* The loss a storm, a forced passage or a forced march caused (the next
 * event but a refused pick), folded into it: "A storm at sea strikes
 * England on stage 2: England loses 150 AP." */
static void fold_loss(json_t *evs, size_t i, bool *said)
{
	static const char *const causes[][2] = {
		{"storm", "sea storm"},
		{"forced_passage", "forced passage"},
		{"forced_march", "forced march"},
	};
	json_t *ev = json_array_get(evs, i);
	const char *cause = NULL;
	for (size_t k = 0; k < sizeof causes / sizeof causes[0]; k++)
		if (kind_is(ev, causes[k][0]))
			cause = causes[k][1];
	if (!cause)
		return;
	size_t n = json_array_size(evs), j = i + 1;
	while (j < n && kind_is(json_array_get(evs, j), "loss_pick_refused"))
		j++;
	json_t *loss = json_array_get(evs, j);
	if (j >= n || !kind_is(loss, "loss") || !same_force(ev, loss) ||
	    !jstr(loss, "cause") || strcmp(jstr(loss, "cause"), cause) != 0)
		return;
	json_object_set_new(ev, "has_loss", json_true());
	json_object_set(ev, "loss_ap", json_object_get(loss, "lost_ap"));
	json_object_set_new(ev, "loss_as_due",
			    json_boolean(jint(loss, "lost_half_ap", -1) == jint(ev, "due_half_ap", -2)));
	said[j] = true;
}

/* The prestige a battle gave (logged after it with each side's losses),
 * folded into it: "France gains 69 prestige", "Burgundy gains 50 prestige
 * and Holy Roman Empire 19". */
static void fold_prestige(json_t *evs, size_t i, bool *said)
{
	static const char *const between[] = {"general_killed", "routers", "prestige",
					       "general_retrieved", "contingent_rejoined",
					       "loss_pick_refused", NULL};
	size_t n = json_array_size(evs);
	size_t shares[64], count = 0;
	for (size_t j = i + 1; j < n; j++) {
		json_t *e = json_array_get(evs, j);
		bool inside = false;
		for (size_t k = 0; between[k] && !inside; k++)
			inside = kind_is(e, between[k]);
		if (!inside)
			break;
		if (kind_is(e, "prestige") && jstr(e, "player_nation") &&
		    count < sizeof shares / sizeof shares[0])
			shares[count++] = j;
	}
	if (!count)
		return;
	struct strbuf sb = {0};
	for (size_t k = 0; k < count; k++) {
		json_t *e = json_array_get(evs, shares[k]);
		if (k == 0)
			strbuf_printf(&sb, "%s gains %d prestige", jstr(e, "player_nation"),
				      jint(e, "points", 0));
		else
			strbuf_printf(&sb, "%s%s %d", k + 1 == count ? " and " : ", ",
				      jstr(e, "player_nation"), jint(e, "points", 0));
		said[shares[k]] = true;
	}
	json_object_set_new(json_array_get(evs, i), "prestige_text", json_string(sb.data));
	strbuf_free(&sb);
}

/* Whether `ev` is the organiser's decision (or correction) of the battle
 * at `province`: "decided the result of the battle at X:\n...". */
static bool decides(const json_t *ev, const char *province)
{
	static const char *const leads[] = {"decided the result of the battle at ",
					     "corrected the result of the battle at "};
	const char *action = jstr(ev, "action"), *detail = jstr(ev, "detail");
	if (!kind_is(ev, "organiser") || !action || strcmp(action, "battle-result") != 0 ||
	    !detail || !province)
		return false;
	size_t pl = strlen(province);
	for (size_t k = 0; k < 2; k++) {
		size_t ll = strlen(leads[k]);
		if (strncmp(detail, leads[k], ll) == 0 && strncmp(detail + ll, province, pl) == 0 &&
		    detail[ll + pl] == ':')
			return true;
	}
	return false;
}

static bool is_comment(const json_t *ev)
{
	const char *action = jstr(ev, "action");
	return kind_is(ev, "organiser") && action && strcmp(action, "comment") == 0;
}

/* Who decided the battle at events[i] (its "battle_result", logged after
 * the battle's consequences), told in the battle's line; the organiser's
 * decision, when the list has it, is told before the battle, with the
 * notes he made with it. Sets [*from, *to) to the events to move (none:
 * from == to). */
static void fold_decision(json_t *evs, size_t i, bool *said, size_t *from, size_t *to)
{
	json_t *ev = json_array_get(evs, i);
	const char *province = jstr(ev, "province");
	size_t n = json_array_size(evs);
	*from = *to = n;
	for (size_t j = i + 1; j < n; j++) {
		json_t *e = json_array_get(evs, j);
		if (kind_is(e, "battle") || kind_is(e, "battle_announced"))
			break;
		if (kind_is(e, "battle_result") && same_str(e, ev, "province") && !said[j] &&
		    jstr(e, "decided_text")) {
			json_object_set(ev, "decided_text", json_object_get(e, "decided_text"));
			json_object_set_new(ev, "decided_by_organiser",
					    json_boolean(strcmp(jstr(e, "decided"), "organiser") == 0));
			said[j] = true;
		}
		if (*from == n && !said[j] && decides(e, province)) {
			*from = j;
			for (*to = j; *to < n && (*to == j || is_comment(json_array_get(evs, *to)));
			     ++*to)
				said[*to] = true;
		}
	}
}

/* A retreat and the march that carried it out (logged after the dice and
 * losses on the way): one line. The retreat says it, with the stages,
 * when the army got where it retreated to; else the march, which says
 * where it stopped, is told as the retreat. */
static void fold_retreat(json_t *evs, size_t i, bool *said)
{
	static const char *const on_the_way[] = {"roll", "storm", "loss", "loss_pick_refused",
						  "forced_passage", "forced_march", "siege_lifted",
						  NULL};
	json_t *ev = json_array_get(evs, i);
	if (!jstr(ev, "to"))
		return;
	size_t n = json_array_size(evs);
	for (size_t j = i + 1; j < n; j++) {
		json_t *e = json_array_get(evs, j);
		if (kind_is(e, "move")) {
			const char *mk = jstr(e, "move_kind");
			if (!mk || strcmp(mk, "retreat") != 0 || !same_str(e, ev, "player"))
				return;
			if (same_str(e, ev, "to") && !json_is_true(json_object_get(e, "halted")) &&
			    !json_is_true(json_object_get(e, "returned"))) {
				json_object_set(ev, "stages_moved", json_object_get(e, "stages_moved"));
				json_object_set(ev, "stages_moved_s",
						json_object_get(e, "stages_moved_s"));
				said[j] = true;
			} else {
				said[i] = true;
			}
			return;
		}
		bool inside = false;
		for (size_t k = 0; on_the_way[k] && !inside; k++)
			inside = kind_is(e, on_the_way[k]);
		if (!inside)
			return;
	}
}

/* An organiser's sentence over several lines (a battle result's lines):
 * the lines after the first indented under it (the report's lines are
 * inside an indented account), no blank line among or after them. */
static void indent_sentence(json_t *ev)
{
	const char *s = jstr(ev, "organiser_sentence");
	if (!s || !strchr(s, '\n'))
		return;
	struct strbuf sb = {0};
	for (; *s; s++) {
		if (*s == '\n') {
			const char *rest = s;
			while (*rest == '\n' || *rest == ' ' || *rest == '\t' || *rest == '\r')
				rest++;
			if (!*rest)
				break;
			strbuf_puts(&sb, "\n    ");
			s = rest - 1; /* blank lines and the line's own indent go */
			continue;
		}
		strbuf_putc(&sb, *s);
	}
	json_object_set_new(ev, "organiser_sentence", json_string(sb.data ? sb.data : ""));
	strbuf_free(&sb);
}

json_t *year_events_say_once(json_t *evs)
{
	size_t n = json_array_size(evs);
	bool *said = xcalloc(n + 1, sizeof *said);
	size_t *from = xcalloc(n + 1, sizeof *from), *to = xcalloc(n + 1, sizeof *to);
	for (size_t i = 0; i < n; i++) {
		json_t *ev = json_array_get(evs, i);
		from[i] = to[i] = n;
		if (said[i])
			continue;
		fold_loss(evs, i, said);
		if (kind_is(ev, "battle")) {
			fold_prestige(evs, i, said);
			fold_decision(evs, i, said, &from[i], &to[i]);
		}
		if (kind_is(ev, "retreat"))
			fold_retreat(evs, i, said);
		if (kind_is(ev, "move") && jstr(ev, "move_kind") &&
		    strcmp(jstr(ev, "move_kind"), "retreat") == 0)
			json_object_set_new(ev, "retreating", json_true());
		indent_sentence(ev);
	}
	json_t *out = json_array();
	for (size_t i = 0; i < n; i++) {
		for (size_t j = from[i]; j < to[i]; j++) {
			indent_sentence(json_array_get(evs, j));
			json_array_append(out, json_array_get(evs, j));
		}
		if (!said[i])
			json_array_append(out, json_array_get(evs, i));
	}
	free(said);
	free(from);
	free(to);
	json_decref(evs);
	return out;
}
