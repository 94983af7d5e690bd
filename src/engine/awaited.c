/* What the campaign waits for: the open step, who is awaited and for what,
 * the deadline, and the requests that wait without one. */
#include "config.h"

#include "engine/awaited.h"
#include "dbm/orders.h"
#include "dbm/rules.h"
#include "base/timefmt.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static const char *nation_of_key(const struct campaign *c, const char *key)
{
	int p = key ? campaign_find_player(c, key) : NO_INDEX;
	if (p < 0)
		return key ? key : "nobody";
	return c->players[p].nation ? c->players[p].nation : c->players[p].key;
}

static bool in_array(const json_t *arr, const char *key)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), key) == 0)
			return true;
	return false;
}

/* What the open step wants from `key`, as a phrase for him. */
static char *wanted_from(const struct year_state *st, const struct campaign *c, const char *key)
{
	const json_t *pd = st->pending;
	const char *kind = str_of(pd, "kind");
	switch (st->step) {
	case YEAR_TURN:
		return xstrdup("the movement option of the turn: INVADE, MOVE, SEND CONTINGENT "
			       "or NO MOVE");
	case YEAR_DECISION:
		if (strcmp(kind, "defence") == 0)
			return xasprintf("the answer to the invasion of %s by %s: IF INVADED %s "
					 "BATTLE, SIEGE or RETREAT TO a province",
					 str_of(pd, "province"),
					 nation_of_key(c, str_of(pd, "attacker")),
					 str_of(pd, "province"));
		if (strcmp(kind, "solicit") == 0) {
			const char *mover = str_of(pd, "mover");
			return xasprintf("the answer to the call of %s before it invades %s: "
					 "CONTINGENT FOR %s WITH ..., or ANSWER ALLIES NO",
					 nation_of_key(c, mover), str_of(pd, "province"), mover);
		}
		if (strcmp(kind, "commit") == 0)
			return xasprintf("your choice, your allies' answers in: INVADE %s to go on, "
					 "or CALL OFF", str_of(pd, "province"));
		if (strcmp(kind, "allies") == 0) {
			const char *side = str_of(json_object_get(pd, "for"), key);
			return xasprintf("the answer to the call of %s before the battle at %s: "
					 "CONTINGENT FOR %s WITH ..., or ANSWER ALLIES NO",
					 nation_of_key(c, side), str_of(pd, "province"),
					 nation_of_key(c, side));
		} else {
			const char *mover = nation_of_key(c, str_of(pd, "mover"));
			bool pass = in_array(json_object_get(pd, "passage"), key);
			bool supply = in_array(json_object_get(pd, "supply"), key);
			return xasprintf("the permission for the move of %s: %s%s%s", mover,
					 pass ? "ALLOW PASSAGE or DENY PASSAGE" : "",
					 pass && supply ? ", and " : "",
					 supply || !pass ? "ALLOW SUPPLY or DENY SUPPLY" : "");
		}
	case YEAR_BATTLE:
		return xasprintf("the report of the battle at %s: BATTLE AT %s, then WINNER, "
				 "CONCEDED BY or WITHDRAWAL BY and the losses",
				 str_of(pd, "province"), str_of(pd, "province"));
	case YEAR_RECRUITMENT:
		return xstrdup("the recruitment orders: RECRUIT, DISMISS, RETRIEVE GENERAL, or "
			       "NO MOVE to recruit nothing");
	case YEAR_VOTE:
		return xstrdup("the vote: VOTE CONTINUE or VOTE END");
	default:
		return xstrdup("nothing");
	}
}

static bool has_order(const struct order_set *set, enum order_kind kind, int target)
{
	for (size_t k = 0; k < set->count; k++)
		if (set->orders[k].kind == kind && set->orders[k].status == ORDER_OK &&
		    set->orders[k].target == target)
			return true;
	return false;
}

/* Alliances proposed and not yet made (ALLY WITH from one side, or from
 * both until the next step between turns): the other's ALLY WITH, no
 * deadline. */
static void alliance_requests(const struct campaign *c, const struct order_set *sets,
			      json_t *out)
{
	size_t n = c->player_count;
	for (size_t p = 0; p < n; p++) {
		for (size_t i = 0; i < sets[p].count; i++) {
			const struct order *o = &sets[p].orders[i];
			int t = o->target;
			if (o->kind != ORDER_ALLY_WITH || o->status != ORDER_OK || t < 0 ||
			    (size_t)t >= n || t == (int)p ||
			    c->players[t].status != PLAYER_ACTIVE ||
			    rules_alliance_index(c, (int)p, t) >= 0)
				continue;
			bool accepted = has_order(&sets[t], ORDER_ALLY_WITH, (int)p);
			if (accepted && t < (int)p)
				continue; /* listed once, from the first of the two */
			const char *who = nation_of_key(c, c->players[p].key);
			const char *other = nation_of_key(c, c->players[t].key);
			char *what = accepted
				? xasprintf("%s and %s have both declared ALLY WITH: the alliance is "
					    "made at the next step between turns", who, other)
				: xasprintf("%s proposed an alliance to %s, who has not answered "
					    "(ALLY WITH %s); no deadline", who, other,
					    c->players[p].key);
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b}",
				"kind", "alliance", "player", c->players[p].key, "nation", who,
				"waits_for", c->players[t].key, "waits_for_nation", other, "what",
				what, "accepted", accepted));
			free(what);
		}
	}
}

/* Tributaries asked for and not yet made: they wait for the overlord's
 * ACCEPT TRIBUTARY, without a deadline; and alliances proposed. */
static json_t *requests(const struct campaign *c, const struct year_io *io)
{
	json_t *out = json_array();
	if (!io || !io->orders_load)
		return out;
	size_t n = c->player_count;
	struct order_set *sets = xcalloc(n ? n : 1, sizeof *sets);
	for (size_t p = 0; p < n; p++) {
		orders_set_init(&sets[p]);
		if (c->players[p].status != PLAYER_ACTIVE)
			continue;
		char *text = io->orders_load(io->ctx, (int)p, c->year, c->phase);
		if (text)
			orders_parse(text, c, (int)p, &sets[p]);
		free(text);
	}
	for (size_t p = 0; p < n; p++) {
		for (size_t i = 0; i < sets[p].count; i++) {
			const struct order *o = &sets[p].orders[i];
			if (o->kind != ORDER_TRIBUTARY_OF || o->status != ORDER_OK || o->target < 0 ||
			    (size_t)o->target >= n)
				continue;
			bool accepted = has_order(&sets[o->target], ORDER_ACCEPT_TRIBUTARY, (int)p);
			const char *who = nation_of_key(c, c->players[p].key);
			const char *lord = nation_of_key(c, c->players[o->target].key);
			char *what = accepted
				? xasprintf("%s asked to become the tributary of %s, who accepted: "
					    "it is made at the next step between turns", who, lord)
				: xasprintf("%s asked to become the tributary of %s, who has not "
					    "answered (ACCEPT TRIBUTARY %s); no deadline", who, lord,
					    c->players[p].key);
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b}",
				"kind", "tributary", "player", c->players[p].key, "nation", who, "waits_for",
				c->players[o->target].key, "waits_for_nation", lord, "what", what,
				"accepted", accepted));
			free(what);
		}
	}
	alliance_requests(c, sets, out);
	for (size_t p = 0; p < n; p++)
		orders_set_free(&sets[p]);
	free(sets);
	return out;
}

json_t *engine_awaited_json(const struct year_state *st, const struct campaign *c,
			    const struct year_io *io)
{
	json_t *d = json_pack("{s:i, s:s}", "year", c->year, "phase",
			      campaign_phase_name(c->phase));
	if (st->step == YEAR_IDLE) {
		json_object_set_new(d, "started", json_false());
		return d;
	}
	char name[256];
	year_step_name(st, c, name, sizeof name);
	char *what = year_step_describe(st, c);
	json_object_set_new(d, "started", json_true());
	json_object_set_new(d, "step", json_string(name));
	json_object_set_new(d, "what", json_string(what));
	free(what);
	json_object_set_new(d, "paused", json_boolean(st->paused));
	if (st->paused) {
		json_object_set_new(d, "paused_left", json_integer(st->paused_left));
		json_object_set_new(d, "organiser",
				    json_string("the campaign is paused: nothing goes on until "
						"the organiser resumes it"));
	} else if (st->deadline) {
		char when[96];
		json_object_set_new(d, "deadline_epoch", json_integer(st->deadline));
		json_object_set_new(d, "deadline", json_string(timefmt_local(
			st->deadline, c->timezone, when, sizeof when)));
	}
	if (st->step == YEAR_BATTLE && json_is_true(json_object_get(st->pending, "disputed")))
		json_object_set_new(d, "organiser",
				    json_string(st->paused ? "the campaign is paused; then the "
							     "result of the disputed battle"
							   : "the result of the battle (the reports "
							     "differ or are missing): campaignctl "
							     "battle-result, or a mail with ORGANISER "
							     "<password> and the BATTLE AT lines"));
	else if (!st->paused && !st->deadline && st->step != YEAR_ENDED)
		json_object_set_new(d, "organiser",
				    json_string("the step has no deadline: the organiser "
						"processes it"));
	json_t *keys = io ? year_awaited(st, c, io) : json_array();
	json_t *who = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(keys, i, v) {
		const char *key = json_string_value(v);
		char *want = wanted_from(st, c, key);
		json_array_append_new(who, json_pack("{s:s, s:s, s:s}", "player", key, "nation",
						     nation_of_key(c, key), "for", want));
		free(want);
	}
	json_decref(keys);
	json_object_set_new(d, "awaited", who);
	json_object_set_new(d, "requests", requests(c, io));
	return d;
}

char *engine_awaited_for(const json_t *aw, const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count)
		return NULL;
	const char *as_player = NULL;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(aw, "awaited"), i, v)
		if (strcmp(str_of(v, "player"), c->players[player].key) == 0)
			as_player = str_of(v, "for");
	/* the organiser who also plays a nation is awaited in both roles */
	const char *as_organiser = c->organiser_player == player && !json_is_true(json_object_get(
							aw, "paused"))
					   ? json_string_value(json_object_get(aw, "organiser"))
					   : NULL;
	if (as_player && as_organiser)
		return xasprintf("%s; and as the organiser, %s", as_player, as_organiser);
	if (as_organiser)
		return xasprintf("as the organiser, %s", as_organiser);
	return as_player ? xstrdup(as_player) : NULL;
}

char *engine_awaited_text(const json_t *aw)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	int year = (int)json_integer_value(json_object_get(aw, "year"));
	if (!json_is_true(json_object_get(aw, "started"))) {
		strbuf_printf(&sb, "Year %d: not started yet (campaignctl start begins it).\n",
			      year);
		return strbuf_take(&sb);
	}
	bool paused = json_is_true(json_object_get(aw, "paused"));
	strbuf_printf(&sb, "Year %d, %s phase. Step: %s%s.\nWaiting for %s.\n", year,
		      str_of(aw, "phase"), str_of(aw, "step"), paused ? " (PAUSED)" : "",
		      str_of(aw, "what"));
	if (paused) {
		int64_t left = json_integer_value(json_object_get(aw, "paused_left"));
		strbuf_printf(&sb, "Paused with %" PRId64 " h %02" PRId64 " min left on the clock.\n",
			      left / 3600, left % 3600 / 60);
	} else if (json_object_get(aw, "deadline")) {
		strbuf_printf(&sb, "Deadline: %s.\n", str_of(aw, "deadline"));
	}
	const json_t *who = json_object_get(aw, "awaited");
	size_t i;
	json_t *v;
	if (json_array_size(who)) {
		strbuf_puts(&sb, "Still to answer:");
		json_array_foreach(who, i, v)
			strbuf_printf(&sb, " %s", str_of(v, "player"));
		strbuf_puts(&sb, "\n");
		json_array_foreach(who, i, v)
			strbuf_printf(&sb, "  %s (%s): %s\n", str_of(v, "nation"), str_of(v, "player"),
				      str_of(v, "for"));
	} else if (strcmp(str_of(aw, "step"), "ended") != 0) {
		strbuf_puts(&sb, "No player is awaited.\n");
	}
	if (json_object_get(aw, "organiser"))
		strbuf_printf(&sb, "The organiser: %s.\n", str_of(aw, "organiser"));
	const json_t *req = json_object_get(aw, "requests");
	if (json_array_size(req)) {
		strbuf_puts(&sb, "Open requests:\n");
		json_array_foreach(req, i, v)
			strbuf_printf(&sb, "  %s.\n", str_of(v, "what"));
	}
	return strbuf_take(&sb);
}
