/* Passage told as it happens (rules 2.1 "Hostile provinces"): what the
 * answers to a request for permission caused, to those asked and to the
 * mover; and a player whose movement order waits for his turn, told when
 * a turn changed what its way needs (an army gone from a province on it,
 * or come there, a province changed hands). */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static bool is_kind(const json_t *ev, const char *kind)
{
	const char *k = jstr(ev, "kind");
	return k && strcmp(k, kind) == 0;
}

static bool by_player(const json_t *ev, const struct campaign *c, int p)
{
	const char *who = jstr(ev, "player");
	return who && strcmp(who, pkey(c, p)) == 0;
}

/* The answers, the move and its supply: the events from `mark` to the
 * mover's supply check. */
void year_permission_outcome(struct year_run *r, const json_t *pd, size_t mark)
{
	struct campaign *c = r->c;
	int mover = find_player(c, jstr(pd, "mover"));
	if (mover < 0)
		return;
	json_t *events = json_array();
	bool forced = false, refused = false;
	for (size_t i = mark; i < r->log->count; i++) {
		json_t *ev = r->log->events[i];
		json_array_append(events, ev);
		if (!by_player(ev, c, mover))
			continue;
		forced |= is_kind(ev, "forced_passage") &&
			  !json_is_true(json_object_get(ev, "contingent"));
		refused |= is_kind(ev, "order_refused");
		/* the move ends with its supply: what follows (a defence, a
		 * battle) has mails of its own */
		if (is_kind(ev, "supply"))
			break;
	}
	json_t *told = json_array();
	json_array_extend(told, json_object_get(pd, "asked"));
	json_array_append_new(told, json_string(pkey(c, mover)));
	size_t i;
	json_t *v;
	json_array_foreach(told, i, v) {
		int q = find_player(c, json_string_value(v));
		if (q < 0 || !active(c, q))
			continue;
		json_t *d = json_pack("{s:b, s:b, s:b, s:s, s:s, s:b, s:b, s:b, s:o}", "is_news", 1,
				      "is_permission_outcome", 1, "you_move", q == mover,
				      "mover_nation", pnation(c, mover), "order", jstr(pd, "order"),
				      "forced", forced, "refused", refused, "went_on",
				      !forced && !refused, "events", year_events_for_mail(c, events));
		year_mail(r, "decision", q, false, d, "What came of the permission for %s",
			  pnation(c, mover));
	}
	json_decref(told);
	json_decref(events);
}

static bool listed(const json_t *list, const char *key);

/* The field army (other than the mover's) in `province`, or NO_INDEX. */
static int army_in(const struct campaign *c, int province, int mover)
{
	for (size_t p = 0; p < c->player_count; p++)
		if ((int)p != mover && active(c, (int)p) && c->players[p].location == province)
			return (int)p;
	return NO_INDEX;
}

void year_tell_mover_asked(struct year_run *r, int mover, const struct order *o,
			   const json_t *supply, const json_t *asked)
{
	struct campaign *c = r->c;
	size_t np = c->player_count;
	bool *given = xcalloc(np + 1, sizeof *given);
	bool *fed = xcalloc(np + 1, sizeof *fed);
	year_permissions_given(r, mover, given, fed);
	json_t *lines = json_array();
	for (size_t i = 0; i < o->hostile_count; i++) {
		int h = o->hostile[i];
		if (rules_passage(c, mover, h, given) == PASSAGE_FREE)
			continue; /* a standing order permits it */
		int army = army_in(c, h, mover), owner = c->provinces[h].owner;
		char *line = army >= 0
			? xasprintf("%s: %s's field army is there; without its permission your move "
				    "cannot pass and is not carried out (no way can be forced past a "
				    "field army)", prov_name(c, h), pnation(c, army))
			: owner >= 0
			? xasprintf("%s (%s's): without its permission your army forces its way: a "
				    "die \xc3\x97 40 AP", prov_name(c, h), pnation(c, owner))
			: xasprintf("%s (neutral): your army forces its way: a die \xc3\x97 40 AP",
				    prov_name(c, h));
		json_array_append_new(lines, json_string(line));
		free(line);
	}
	size_t i;
	json_t *v;
	json_array_foreach(supply, i, v) {
		if (!listed(asked, json_string_value(v)))
			continue;
		char *line = xasprintf("supply at %s: %s is asked; without its cities (or others') "
				       "your army ends out of supply: a die \xc3\x97 40 AP (not if "
				       "forced passage already cost you)",
				       prov_name(c, o->province),
				       pnation(c, find_player(c, json_string_value(v))));
		json_array_append_new(lines, json_string(line));
		free(line);
	}
	struct strbuf sb = {0};
	json_array_foreach(asked, i, v) {
		size_t n = json_array_size(asked);
		strbuf_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			      pnation(c, find_player(c, json_string_value(v))));
	}
	char *who = strbuf_take(&sb);
	char *text = orders_format_one(o, c, mover);
	json_t *d = year_deadline_data(r);
	json_object_update_new(d, json_pack("{s:b, s:b, s:s, s:s, s:b, s:o}", "is_news", 1,
					    "is_permission_asked", 1, "order", text ? text : "",
					    "asked_nations", who, "one_asked",
					    json_array_size(asked) == 1, "lines", lines));
	year_mail(r, "decision", mover, false, d, "Your move waits for permission");
	free(text);
	free(who);
	free(given);
	free(fed);
}

/* Does `key` stand in the JSON array `list`? */
static bool listed(const json_t *list, const char *key)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v)
		if (key && json_is_string(v) && strcmp(json_string_value(v), key) == 0)
			return true;
	return false;
}

char *year_permission_answer_note(const struct campaign *c, const json_t *before,
				  const struct year_state *st, int player,
				  const struct order_set *set)
{
	const char *kind = jstr(before, "kind");
	int mover = find_player(c, jstr(before, "mover"));
	if (!kind || strcmp(kind, "permission") != 0 || mover < 0 ||
	    !listed(json_object_get(before, "asked"), pkey(c, player)))
		return NULL;
	bool answered = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		answered |= o->status == ORDER_OK &&
			    (o->target == mover || o->target == ORDERS_ANY) &&
			    (o->kind == ORDER_ALLOW_PASSAGE || o->kind == ORDER_DENY_PASSAGE ||
			     o->kind == ORDER_ALLOW_SUPPLY || o->kind == ORDER_DENY_SUPPLY);
	}
	if (!answered)
		return NULL;
	const char *now = st->step == YEAR_DECISION ? jstr(st->pending, "kind") : NULL;
	const char *still = now && strcmp(now, "permission") == 0 ? jstr(st->pending, "mover")
								    : NULL;
	if (still && strcmp(still, pkey(c, mover)) == 0)
		return xasprintf("Your answer to %s's request is in. Its move waits for the "
				 "answers still awaited (below) before it is carried out; "
				 "everyone asked is told what came of it.", pnation(c, mover));
	return xasprintf("Your answer to %s's request was the last one its move waited for: "
			 "the move was carried out at once, and what came of it follows "
			 "(\"What came of the permission for %s\").",
			 pnation(c, mover), pnation(c, mover));
}

/* ------------------------------------------------ a way that changed */

/* What a player's pending INVADE, MOVE or SEND CONTINGENT needs on its
 * way, as the acknowledgement says it (the route chosen, each province
 * passed and whose permission it needs), one note a line; NULL when he
 * has no such order. *order gets its text (allocated). */
static char *way_notes(struct year_run *r, int p, char **order)
{
	struct campaign *c = r->c;
	struct order_set set;
	year_load_orders(r, p, &set);
	const struct order *o = year_find_movement(&set);
	char *out = NULL;
	*order = NULL;
	if (o && (o->kind == ORDER_INVADE || o->kind == ORDER_MOVE ||
		  o->kind == ORDER_SEND_CONTINGENT) && o->route) {
		json_t *notes = json_array();
		orders_cost_notes(o, c, p, notes);
		struct strbuf sb = {0};
		size_t i;
		json_t *v;
		json_array_foreach(notes, i, v) {
			const char *n = json_string_value(v);
			if (n && (strncmp(n, "route chosen", 12) == 0 ||
				  strncmp(n, "passes through", 14) == 0))
				strbuf_printf(&sb, "%s\n", n);
		}
		json_decref(notes);
		out = strbuf_take(&sb);
		*order = orders_format_one(o, c, p);
	}
	orders_set_free(&set);
	return out;
}

/* The lines of `a` (one note a line) that `b` does not have. */
static json_t *lines_not_in(const char *a, const char *b)
{
	json_t *out = json_array();
	for (const char *at = a; at && *at;) {
		const char *nl = strchr(at, '\n');
		size_t n = nl ? (size_t)(nl - at) : strlen(at);
		bool found = false;
		for (const char *bt = b; bt && *bt && !found;) {
			const char *bnl = strchr(bt, '\n');
			size_t bn = bnl ? (size_t)(bnl - bt) : strlen(bt);
			found = bn == n && memcmp(at, bt, n) == 0;
			bt = bnl ? bnl + 1 : bt + bn;
		}
		if (!found && n) {
			char *line = xstrndup(at, n);
			json_array_append_new(out, json_string(line));
			free(line);
		}
		at = nl ? nl + 1 : at + n;
	}
	return out;
}

/* The provinces of `order`'s way in `notes`: is `province` named? */
static bool named(const char *notes, const char *province)
{
	return notes && province && *province && strstr(notes, province);
}

void year_tell_way_changes(struct year_run *r, int mover)
{
	struct campaign *c = r->c;
	size_t np = c->player_count, nprov = c->province_count;
	int *was_at = xmalloc((np + 1) * sizeof *was_at);
	int *was_owner = xmalloc((nprov + 1) * sizeof *was_owner);
	for (size_t p = 0; p < np; p++)
		was_at[p] = c->players[p].location;
	for (size_t i = 0; i < nprov; i++)
		was_owner[i] = c->provinces[i].owner;
	/* where each field army stood and who held each province when the
	 * turn began: the first move or capture of the turn says it */
	bool changed = false;
	bool *seen = xcalloc(np + nprov + 1, sizeof *seen);
	size_t i;
	json_t *ev;
	json_array_foreach(r->st->turn_events, i, ev) {
		if (is_kind(ev, "move") && !json_is_true(json_object_get(ev, "contingent"))) {
			int p = find_player(c, jstr(ev, "player"));
			int from = find_province(c, jstr(ev, "from"));
			if (p >= 0 && from >= 0 && !seen[p]) {
				seen[p] = true;
				was_at[p] = from;
				changed = true;
			}
		} else if (is_kind(ev, "capture")) {
			int prov = find_province(c, jstr(ev, "province"));
			if (prov >= 0 && !seen[np + (size_t)prov]) {
				seen[np + (size_t)prov] = true;
				was_owner[prov] = find_player(c, jstr(ev, "from"));
				changed = true;
			}
		}
	}
	free(seen);
	for (size_t p = 0; changed && p < np; p++) {
		if ((int)p == mover || !active(c, (int)p))
			continue;
		char *order_now, *order_was;
		char *now = way_notes(r, (int)p, &order_now);
		if (!now) {
			free(order_now);
			continue;
		}
		/* the same order read as things stood when the turn began */
		int *at = xmalloc((np + 1) * sizeof *at);
		int *owner = xmalloc((nprov + 1) * sizeof *owner);
		for (size_t q = 0; q < np; q++) {
			at[q] = c->players[q].location;
			c->players[q].location = was_at[q];
		}
		for (size_t k = 0; k < nprov; k++) {
			owner[k] = c->provinces[k].owner;
			c->provinces[k].owner = was_owner[k];
		}
		char *was = way_notes(r, (int)p, &order_was);
		for (size_t q = 0; q < np; q++)
			c->players[q].location = at[q];
		for (size_t k = 0; k < nprov; k++)
			c->provinces[k].owner = owner[k];
		free(at);
		free(owner);
		if (was && strcmp(was, now) != 0) {
			/* the turn's moves and captures that touch either way */
			json_t *why = json_array();
			json_array_foreach(r->st->turn_events, i, ev) {
				bool move = is_kind(ev, "move") &&
					    !json_is_true(json_object_get(ev, "contingent"));
				const char *a = jstr(ev, move ? "from" : "province");
				const char *b = move ? jstr(ev, "to") : NULL;
				if ((move || is_kind(ev, "capture")) &&
				    (named(was, a) || named(now, a) || named(was, b) || named(now, b)))
					json_array_append(why, ev);
			}
			json_t *d = json_pack("{s:b, s:b, s:s, s:o, s:o, s:o}", "is_news", 1,
					      "is_way_changed", 1, "order", order_now, "was",
					      lines_not_in(was, now), "now", lines_not_in(now, was),
					      "events", year_events_for_mail(c, why));
			json_decref(why);
			year_mail(r, "decision", (int)p, false, d, "The way of your %s has changed",
				  order_now);
		}
		free(was);
		free(now);
		free(order_was);
		free(order_now);
	}
	free(was_at);
	free(was_owner);
}
