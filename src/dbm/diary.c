#include "config.h"

#include "dbm/diary.h"
#include "dbm/year.h"
#include "model/campaign_json.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string from text that may not be valid UTF-8 (names come from
 * files and mail): bytes jansson refuses become '?'. */
static json_t *text_json(const char *s)
{
	if (!s)
		return json_string("");
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_string("");
}

static int player_by_key(const struct campaign *c, const char *key)
{
	if (!key)
		return NO_INDEX;
	for (size_t i = 0; i < c->player_count; i++)
		if (c->players[i].key && strcmp(c->players[i].key, key) == 0)
			return (int)i;
	return campaign_find_player(c, key);
}

json_t *diary_player_ref(const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count)
		return json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:i}", "key", "neutral", "nation",
				 "the neutrals", "name", "", "neutral", 1, "organiser", 0, "colour",
				 player_colour(-1), "index", -1);
	const struct player *p = &c->players[player];
	return json_pack("{s:o, s:o, s:o, s:b, s:b, s:s, s:i}", "key", text_json(p->key), "nation",
			 text_json(p->nation ? p->nation : p->key), "name", text_json(p->name),
			 "neutral", 0, "organiser", c->organiser_player == player, "colour",
			 player_colour(player), "index", player);
}

static json_t *player_ref_by_key(const struct campaign *c, const char *key)
{
	int i = player_by_key(c, key);
	if (i == NO_INDEX && key && strcmp(key, "neutral") != 0) {
		/* A key the campaign no longer knows: show it as it was logged. */
		return json_pack("{s:o, s:o, s:s, s:b, s:b, s:s, s:i}", "key", text_json(key),
				 "nation", text_json(key), "name", "", "neutral", 0, "organiser", 0,
				 "colour", player_colour(-1), "index", -1);
	}
	return diary_player_ref(c, i);
}

/* ---- the variant of an event's phrasing ---- */

static unsigned variant_hash(const char *s, size_t n, unsigned phrasings)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	h ^= h >> 15;
	return phrasings ? h % phrasings : 0;
}

unsigned diary_variant(int year, int seq, const char *kind, unsigned phrasings)
{
	/* FNV-1a over "year|seq|kind": reproducible, and neighbouring events
	 * of one kind do not all read the same. */
	char buf[128];
	int n = snprintf(buf, sizeof buf, "%d|%d|%s", year, seq, kind ? kind : "");
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	return variant_hash(buf, (size_t)n, phrasings);
}

unsigned diary_event_variant(int year, const json_t *ev, const char *kind, unsigned phrasings)
{
	/* FNV-1a over "year|kind|" and the event's fields (sorted, compact),
	 * without "seq" should a copy carry it */
	json_t *copy = json_is_object(ev) ? json_copy((json_t *)ev) : json_object();
	json_object_del(copy, "seq");
	char *body = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(copy);
	char *all = xasprintf("%d|%s|%s", year, kind ? kind : "", body ? body : "");
	free(body);
	unsigned v = variant_hash(all, strlen(all), phrasings);
	free(all);
	return v;
}

/* ---- the fields of each kind of event that name players ---- */

struct kind_players {
	const char *kind;
	const char *fields[4];
};

static const struct kind_players player_fields[] = {
	{"capture", {"from", "to", NULL}},
	{"contingent_sent", {"player", "to", NULL}},
	{"contingent_joined", {"player", "with", NULL}},
	{"contingent_arrival", {"player", "with", NULL}},
	{"contingent_recalled", {"player", "from", NULL}},
	{"invasion", {"player", "owner", NULL}},
	{"defence", {"player", "invader", NULL}},
	{"siege_round", {"player", "defender", NULL}},
	{"sally", {"player", "besieger", NULL}},
	{"relief", {"player", "owner", "besieger", NULL}},
	{"alliance", {"player", "ally", NULL}},
	{"alliance_ended", {"player", "ally", "by", NULL}},
	{"battle", {"winner", "loser", NULL}},
	{"tributary", {"tributary", "overlord", NULL}},
	{"tributary_renounced", {"tributary", "overlord", NULL}},
	{"tributary_freed", {"tributary", "overlord", NULL}},
	{"tributary_order", {"overlord", "tributary", "to", NULL}},
	{"turn", {"player", NULL}},
	{"battle_disputed", {"attacker", "defender", NULL}},
	{"battle_decided", {"winner", "loser", NULL}},
	{NULL, {"player", NULL}},
};

static const char *const *fields_naming_players(const char *kind)
{
	size_t i = 0;
	while (player_fields[i].kind && strcmp(player_fields[i].kind, kind) != 0)
		i++;
	return player_fields[i].fields;
}

/* Kinds the diary narrates, and how many phrasings the templates have for
 * each (the variant is chosen among them). Events of other kinds are
 * folded into these (loss, prestige...) or left to the appendix. */
struct narrated_kind {
	const char *kind;
	unsigned phrasings;
};

static const struct narrated_kind narrated[] = {
	{"move", 3}, {"retreat", 3}, {"storm", 3}, {"forced_march", 3},
	{"forced_passage", 3}, {"supply", 3}, {"invasion", 3}, {"defence", 3},
	{"siege_round", 3}, {"siege_lifted", 3}, {"sally", 3}, {"battle", 3},
	{"capture", 3}, {"army_lost", 3}, {"general_retrieved", 3},
	{"contingent_sent", 3}, {"contingent_joined", 3}, {"contingent_arrival", 3},
	{"contingent_recalled", 3}, {"contingent_rejoined", 3}, {"recruit", 3},
	{"dismiss", 3}, {"reserve_changed", 3}, {"profound_peace", 3}, {"tributary", 3},
	{"tributary_renounced", 3}, {"tributary_order", 3}, {"tributary_freed", 3},
	{"player_out", 3}, {"player_replaced", 3}, {"player_left", 3}, {"player_joined", 3}, {"end_roll", 3},
	{"relief", 3}, {"alliance", 3}, {"alliance_ended", 3},
	{"end_vote", 3}, {"end_vote_needed", 3}, {"campaign_end", 3}, {"loss", 3},
	{"stand_in", 3},
	{"battle_disputed", 3}, {"battle_decided", 3},
	{NULL, 0},
};

#define DIARY_MAX_PHRASINGS 3

static unsigned phrasings_of(const char *kind)
{
	for (size_t i = 0; narrated[i].kind; i++)
		if (strcmp(narrated[i].kind, kind) == 0)
			return narrated[i].phrasings;
	return 0;
}

/* "lost_half_ap": 80 -> "lost_ap": 40; "half_ap": [a, b] -> "ap": [a/2, b/2]. */
static void add_whole_ap(json_t *out, const char *key, json_t *value)
{
	size_t n = strlen(key);
	static const char suffix[] = "half_ap";
	if (n < sizeof suffix - 1 || strcmp(key + n - (sizeof suffix - 1), suffix) != 0)
		return;
	char *name = xasprintf("%.*sap", (int)(n - (sizeof suffix - 1)), key);
	if (json_is_integer(value)) {
		json_object_set_new(out, name, half_ap_to_json((int)json_integer_value(value)));
	} else if (json_is_array(value)) {
		json_t *a = json_array();
		size_t i;
		json_t *v;
		json_array_foreach(value, i, v)
			json_array_append_new(a, half_ap_to_json((int)json_integer_value(v)));
		json_object_set_new(out, name, a);
	}
	free(name);
}

static bool is_player_field(const char *const *fields, const char *key)
{
	for (size_t i = 0; fields[i]; i++)
		if (strcmp(fields[i], key) == 0)
			return true;
	return false;
}

/* "how": "conceded" -> "how_conceded": true, for the few fields whose value
 * templates choose a phrasing by (Mustache cannot compare). */
static void add_value_flag(json_t *out, const char *key, const json_t *value)
{
	static const char *const keyed[] = {"choice", "how", "as", "cause", "move_kind", NULL};
	const char *v = json_string_value(value);
	if (!v || strlen(v) > 32)
		return;
	for (size_t i = 0; keyed[i]; i++)
		if (strcmp(key, keyed[i]) == 0) {
			char *flag = xasprintf("%s_%s", key, v);
			for (char *p = flag; *p; p++)
				if (!(('a' <= *p && *p <= 'z') || ('0' <= *p && *p <= '9')))
					*p = '_';
			json_object_set_new(out, flag, json_true());
			free(flag);
		}
}

/* The narrated copy of an event: players as references, whole AP, the
 * kind as a flag ("is_battle": true), the variant flags (from the event as
 * stored), the bias. */
static json_t *narrate(const struct campaign *c, const json_t *ev, const char *kind, int year,
		       int seq, const json_t *stored)
{
	json_t *out = json_object();
	const char *const *fields = fields_naming_players(kind);
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)ev, key, value) {
		if (is_player_field(fields, key) && json_is_string(value)) {
			json_object_set_new(out, key,
					    player_ref_by_key(c, json_string_value(value)));
			continue;
		}
		if (strcmp(key, "elements") == 0 && json_is_object(value)) {
			json_object_set_new(out, "elements",
					    diary_elements_list(c, json_string_value(json_object_get(
									   ev, "player")), value));
			continue;
		}
		json_object_set(out, key, value);
		add_whole_ap(out, key, value);
		add_value_flag(out, key, value);
		if (strcmp(key, "distance") == 0 && json_is_integer(value))
			json_object_set_new(out, "distance_s",
					    json_string(plural_s(json_integer_value(value))));
	}
	json_object_set_new(out, "seq", json_integer(seq));
	char *flag = xasprintf("is_%s", kind);
	json_object_set_new(out, flag, json_true());
	free(flag);
	unsigned v = diary_event_variant(year, stored, kind, phrasings_of(kind));
	json_object_set_new(out, "variant", json_integer(v));
	for (unsigned i = 0; i < DIARY_MAX_PHRASINGS; i++) {
		char name[8];
		snprintf(name, sizeof name, "v%u", i);
		json_object_set_new(out, name, json_boolean(i == v));
	}
	/* The organiser plays too, and the diary is expected to be biased
	 * (rulebook 1.1): "ours" when the organiser's nation is the actor. */
	json_t *actor = json_object_get(out, fields[0]);
	json_object_set_new(out, "ours", json_boolean(json_is_true(json_object_get(actor, "organiser"))));
	if (strcmp(kind, "battle") == 0) {
		json_t *ap = json_object_get(ev, "half_ap");
		json_object_set_new(out, "winner_ap",
				    half_ap_to_json((int)json_integer_value(json_array_get(ap, 0))));
		json_object_set_new(out, "loser_ap",
				    half_ap_to_json((int)json_integer_value(json_array_get(ap, 1))));
		json_object_set_new(out, "prestige", json_array());
		json_object_set_new(out, "generals_killed", json_array());
		json_object_set_new(out, "theirs",
				    json_boolean(json_is_true(json_object_get(
					    json_object_get(out, "loser"), "organiser"))));
	}
	if (strcmp(kind, "capture") == 0)
		json_object_set_new(out, "theirs",
				    json_boolean(json_is_true(json_object_get(
					    json_object_get(out, "from"), "organiser"))));
	return out;
}

static const char *ev_str(const json_t *ev, const char *key)
{
	return json_string_value(json_object_get(ev, key));
}

static void mark_last(json_t *list);

/* The year's losses (diary_losses) as template data: players as
 * references, whole AP, element lists, flags for the templates. */
static json_t *losses_data(const struct campaign *c, const json_t *events, int year)
{
	json_t *list = diary_losses(events, year);
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		char *key = xstrdup(json_string_value(json_object_get(e, "player")) ?
				    json_string_value(json_object_get(e, "player")) : "");
		json_object_set_new(e, "player", player_ref_by_key(c, key));
		add_whole_ap(e, "half_ap", json_object_get(e, "half_ap"));
		size_t k;
		json_t *it;
		json_array_foreach(json_object_get(e, "items"), k, it) {
			add_whole_ap(it, "half_ap", json_object_get(it, "half_ap"));
			json_t *els = diary_elements_list(c, key, json_object_get(it, "elements"));
			json_object_set_new(it, "has_elements", json_boolean(json_array_size(els) > 0));
			json_object_set_new(it, "elements", els);
			if (!json_is_true(json_object_get(it, "battle")))
				continue;
			json_int_t back = 0;
			const char *label;
			json_t *v;
			json_object_foreach(json_object_get(it, "returned"), label, v)
				back += json_integer_value(v);
			json_object_set_new(it, "returned",
					    diary_elements_list(c, key, json_object_get(it, "returned")));
			json_object_set_new(it, "returned_count", json_integer(back));
			json_object_set_new(it, "has_routers",
					    json_boolean(json_integer_value(json_object_get(it, "routers")) > 0));
			json_object_set_new(it, "has_returned", json_boolean(back > 0));
			json_object_set_new(it, "routers_s", json_string(plural_s(json_integer_value(
								     json_object_get(it, "routers")))));
		}
		mark_last(json_object_get(e, "items"));
		free(key);
	}
	mark_last(list);
	return list;
}

/* ---- building the year ---- */

struct year_builder {
	const struct campaign *c;
	int year;
	json_t *doc;
	json_t *prelude;      /* campaign-phase events before the first turn */
	json_t *turns;        /* [{player, place, events}] */
	json_t *current_turn; /* borrowed from turns, or NULL */
	json_t *recruitment;
	json_t *ending;
	json_t *rolls;
	json_t *last_narrated; /* borrowed: where a loss or prestige is folded */
	json_t *last_battle;   /* borrowed */
	json_t *announced;     /* province -> its battle_announced event */
	json_t *journey;       /* force -> [losses told by their cause, half AP] */
	json_t *battle_prestige; /* player key -> points this year */
	json_t *province_prestige; /* player key -> {points, total} this year */
	bool in_recruitment;
};

static json_t *turn_for(struct year_builder *b, const char *key)
{
	size_t i;
	json_t *t;
	json_array_foreach(b->turns, i, t) {
		const char *k = json_string_value(json_object_get(json_object_get(t, "player"), "key"));
		if (k && key && strcmp(k, key) == 0)
			return t;
	}
	return NULL;
}

/* The list the next narrated event goes to. */
static json_t *current_list(struct year_builder *b, const char *kind)
{
	if (strcmp(kind, "end_roll") == 0 || strcmp(kind, "end_vote") == 0 ||
	    strcmp(kind, "end_vote_needed") == 0 || strcmp(kind, "campaign_end") == 0)
		return b->ending;
	if (b->in_recruitment)
		return b->recruitment;
	if (b->current_turn)
		return json_object_get(b->current_turn, "events");
	return b->prelude;
}

/* Whether an event starts a player's campaign-phase turn when the log has no
 * "turn" events: the player's own option (a move or an invasion) or the
 * round of a siege they are conducting. */
static bool starts_turn(const char *kind, const char *move_kind)
{
	if (strcmp(kind, "turn") == 0 || strcmp(kind, "invasion") == 0 ||
	    strcmp(kind, "relief") == 0 || strcmp(kind, "sally") == 0 ||
	    strcmp(kind, "siege_round") == 0)
		return true;
	return strcmp(kind, "move") == 0 && move_kind &&
	       (strcmp(move_kind, "move") == 0 || strcmp(move_kind, "invade") == 0);
}

/* What a "move" event was: an event's "move_kind" if it has one, else what
 * the player's previous event says (an invasion, a defence, a retreat, a
 * contingent sent or recalled), else the Move option. `context` maps a
 * player key to the kind of that player's latest such event. */
static const char *move_kind_of(const json_t *ev, const json_t *context)
{
	const char *mk = json_string_value(json_object_get(ev, "move_kind"));
	if (mk)
		return mk;
	const char *key = json_string_value(json_object_get(ev, "player"));
	const char *before = key ? json_string_value(json_object_get(context, key)) : NULL;
	bool contingent = json_is_true(json_object_get(ev, "contingent"));
	if (contingent)
		return before && strcmp(before, "contingent_recalled") == 0 ? "return"
									  : "contingent";
	if (!before)
		return "move";
	if (strcmp(before, "invasion") == 0 || strcmp(before, "relief") == 0)
		return "invade";
	if (strcmp(before, "defence") == 0)
		return "defend";
	if (strcmp(before, "retreat") == 0)
		return "retreat";
	return "move";
}

static void note_context(json_t *context, const json_t *ev, const char *kind)
{
	static const char *const noted[] = {"invasion", "relief", "defence", "retreat",
					     "contingent_recalled", "contingent_sent", NULL};
	const char *key = json_string_value(json_object_get(ev, "player"));
	if (!key)
		return;
	if (strcmp(kind, "move") == 0) {
		json_object_del(context, key);
		return;
	}
	for (size_t i = 0; noted[i]; i++)
		if (strcmp(kind, noted[i]) == 0)
			json_object_set_new(context, key, json_string(kind));
}

static void add_to_sum(json_t *sums, const char *key, int points)
{
	if (!key)
		return;
	json_t *v = json_object_get(sums, key);
	json_object_set_new(sums, key, json_integer(json_integer_value(v) + points));
}

/* A force's key for b->journey: the player, or his contingent. */
static char *force_key(const json_t *ev)
{
	const char *key = json_string_value(json_object_get(ev, "player"));
	return xasprintf("%s%s", key ? key : "",
			 json_is_true(json_object_get(ev, "contingent")) ? " contingent" : "");
}

/* Whether the loss of the move `ev` was told once already, by the one
 * storm, passage or march that caused it ("It cost 150 AP"): then the
 * move does not say it again "in all". Forgets the journey. */
static bool journey_cost_told(struct year_builder *b, const json_t *ev)
{
	char *key = force_key(ev);
	const json_t *told = json_object_get(b->journey, key);
	bool once = json_integer_value(json_array_get(told, 0)) == 1 &&
		    json_equal(json_array_get(told, 1), json_object_get(ev, "lost_half_ap"));
	json_object_del(b->journey, key);
	free(key);
	return once;
}

/* Folds an event into the one narrated before it; true if it was folded. */
static bool fold(struct year_builder *b, const json_t *ev, const char *kind)
{
	const struct campaign *c = b->c;
	if (strcmp(kind, "prestige") == 0) {
		int points = (int)json_integer_value(json_object_get(ev, "points"));
		const char *key = json_string_value(json_object_get(ev, "player"));
		add_to_sum(b->battle_prestige, key, points);
		if (b->last_battle) {
			json_t *p = json_pack("{s:o, s:i, s:o}", "player", player_ref_by_key(c, key),
					      "points", points, "as",
					      json_incref(json_object_get(ev, "as")));
			json_array_append_new(json_object_get(b->last_battle, "prestige"), p);
		}
		return true;
	}
	if (strcmp(kind, "general_killed") == 0) {
		if (b->last_battle) {
			int n = 0;
			const char *label;
			json_t *v;
			json_object_foreach(json_object_get(ev, "generals"), label, v)
				n += (int)json_integer_value(v);
			json_array_append_new(json_object_get(b->last_battle, "generals_killed"),
					      json_pack("{s:o, s:i, s:s}", "player",
							player_ref_by_key(c, json_string_value(json_object_get(ev, "player"))),
							"count", n, "count_s", plural_s(n)));
		}
		return true;
	}
	/* The move of a retreat is already told by the retreat itself. */
	if (strcmp(kind, "move") == 0 && b->last_narrated &&
	    json_is_true(json_object_get(b->last_narrated, "is_retreat"))) {
		const char *mk = json_string_value(json_object_get(ev, "move_kind"));
		const char *key = json_string_value(json_object_get(ev, "player"));
		const char *prev = json_string_value(
			json_object_get(json_object_get(b->last_narrated, "player"), "key"));
		if (mk && strcmp(mk, "retreat") == 0 && key && prev && strcmp(key, prev) == 0) {
			int lost = (int)json_integer_value(json_object_get(ev, "lost_half_ap"));
			json_object_set_new(b->last_narrated, "lost_ap", half_ap_to_json(lost));
			json_object_set_new(b->last_narrated, "stages_moved",
					    json_incref(json_object_get(ev, "stages_moved")));
			return true;
		}
	}
	if (strcmp(kind, "loss") == 0 && b->last_narrated) {
		const char *key = json_string_value(json_object_get(ev, "player"));
		const char *prev = json_string_value(
			json_object_get(json_object_get(b->last_narrated, "player"), "key"));
		if (key && prev && strcmp(key, prev) == 0 &&
		    !json_object_get(b->last_narrated, "lost_elements")) {
			int lost = (int)json_integer_value(json_object_get(ev, "lost_half_ap"));
			json_object_set_new(b->last_narrated, "loss_ap", half_ap_to_json(lost));
			json_object_set_new(b->last_narrated, "lost_elements",
					    diary_elements_list(c, key, json_object_get(ev, "elements")));
			json_object_set_new(b->last_narrated, "paid_in_full",
					    json_incref(json_object_get(ev, "paid_in_full")));
			/* the AP its cause said were due, and no one else's */
			const json_t *due = json_object_get(ev, "due_half_ap");
			json_object_set_new(
				b->last_narrated, "loss_as_due",
				json_boolean(json_equal(due, json_object_get(b->last_narrated,
									    "due_half_ap")) &&
					     lost == (int)json_integer_value(due) &&
					     !json_object_get(ev, "with")));
			/* what could not be paid: the force had no more to lose */
			if (!json_is_true(json_object_get(ev, "paid_in_full"))) {
				json_object_set_new(b->last_narrated, "loss_short", json_true());
				json_object_set_new(b->last_narrated, "loss_due_ap",
						    half_ap_to_json((int)json_integer_value(
							    json_object_get(ev, "due_half_ap"))));
			}
			if (json_is_true(json_object_get(b->last_narrated, "is_storm")) ||
			    json_is_true(json_object_get(b->last_narrated, "is_forced_passage")) ||
			    json_is_true(json_object_get(b->last_narrated, "is_forced_march"))) {
				char *fk = force_key(ev);
				const json_t *told = json_object_get(b->journey, fk);
				json_object_set_new(b->journey, fk, json_pack("[I, I]",
					json_integer_value(json_array_get(told, 0)) + 1,
					json_integer_value(json_array_get(told, 1)) + lost));
				free(fk);
			}
			const char *with = json_string_value(json_object_get(ev, "with"));
			if (with)
				json_object_set_new(b->last_narrated, "loss_with",
						    player_ref_by_key(c, with));
			return true;
		}
	}
	if (strcmp(kind, "province_prestige") == 0) {
		const char *key = json_string_value(json_object_get(ev, "player"));
		if (key)
			json_object_set_new(
				b->province_prestige, key,
				json_pack("{s:O, s:O}", "points", json_object_get(ev, "points"),
					  "total", json_object_get(ev, "total")));
		return true;
	}
	return false;
}

static void insert_comments(const json_t *comments, int after, json_t *list)
{
	size_t i;
	json_t *cm;
	json_array_foreach((json_t *)comments, i, cm) {
		json_t *a = json_object_get(cm, "after_event");
		int at = json_is_integer(a) ? (int)json_integer_value(a) : 0;
		const char *text = json_string_value(json_object_get(cm, "text"));
		if (at != after || !text || json_object_get(cm, "told"))
			continue;
		json_array_append_new(list, json_pack("{s:b, s:o, s:i}", "is_comment", 1, "text",
						      text_json(text), "seq", after));
	}
}

static void mark_last(json_t *list)
{
	size_t n = json_array_size(list);
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(list, i);
		if (json_is_object(o)) {
			json_object_set_new(o, "first", json_boolean(i == 0));
			json_object_set_new(o, "last", json_boolean(i + 1 == n));
		}
	}
}

static int cmp_standing(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	json_int_t ka = json_integer_value(json_object_get(a, "sort")),
		   kb = json_integer_value(json_object_get(b, "sort"));
	if (ka != kb)
		return ka > kb ? -1 : 1;
	const char *na = json_string_value(json_object_get(json_object_get(a, "player"), "nation"));
	const char *nb = json_string_value(json_object_get(json_object_get(b, "player"), "nation"));
	return strcmp(na ? na : "", nb ? nb : "");
}

/* Sorts standings by "sort" (descending, then nation) and numbers their
 * ranks; equal scores share a rank. */
static json_t *ranked(json_t **rows, size_t n)
{
	qsort(rows, n, sizeof *rows, cmp_standing);
	json_t *list = json_array();
	json_int_t prev = 0;
	int rank = 0;
	for (size_t i = 0; i < n; i++) {
		json_int_t k = json_integer_value(json_object_get(rows[i], "sort"));
		if (i == 0 || k != prev)
			rank = (int)i + 1;
		prev = k;
		json_object_set_new(rows[i], "rank", json_integer(rank));
		json_object_set_new(rows[i], "leader", json_boolean(rank == 1));
		json_object_del(rows[i], "sort");
		json_array_append_new(list, rows[i]);
	}
	mark_last(list);
	return list;
}

static json_t *province_standings(const struct campaign *c)
{
	json_t **rows = xcalloc(c->player_count + 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < c->player_count; i++) {
		if (c->players[i].status == PLAYER_LEFT)
			continue;
		int held = 0, home = 0;
		for (size_t p = 0; p < c->province_count; p++)
			if (c->provinces[p].owner == (int)i) {
				held++;
				if (c->provinces[p].home_of == (int)i)
					home++;
			}
		rows[n++] = json_pack("{s:o, s:i, s:i, s:i, s:b}", "player",
				      diary_player_ref(c, (int)i), "held", held, "home_held", home,
				      "sort", held * 100 + home, "out",
				      c->players[i].status == PLAYER_OUT);
	}
	json_t *list = ranked(rows, n);
	free(rows);
	return list;
}

static json_t *prestige_standings(const struct campaign *c, const json_t *battle_gain,
				  const json_t *province_gain)
{
	json_t **rows = xcalloc(c->player_count + 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		if (p->status == PLAYER_LEFT)
			continue;
		int total = p->battle_prestige + p->province_prestige;
		const char *key = p->key ? p->key : "";
		int gained_battle = (int)json_integer_value(json_object_get(battle_gain, key));
		int gained_province = (int)json_integer_value(
			json_object_get(json_object_get(province_gain, key), "points"));
		rows[n++] = json_pack("{s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "player",
				      diary_player_ref(c, (int)i), "battle", p->battle_prestige,
				      "province", p->province_prestige, "total", total,
				      "gained_battle", gained_battle, "gained_province",
				      gained_province, "sort", total, "out",
				      p->status == PLAYER_OUT);
	}
	json_t *list = ranked(rows, n);
	free(rows);
	return list;
}

json_t *diary_year_json(const struct campaign *c, const json_t *events, int year,
			const json_t *comments, const json_t *dice)
{
	struct year_builder b = {
		.c = c,
		.year = year,
		.doc = json_object(),
		.prelude = json_array(),
		.turns = json_array(),
		.recruitment = json_array(),
		.ending = json_array(),
		.rolls = json_array(),
		.battle_prestige = json_object(),
		.province_prestige = json_object(),
		.announced = json_object(),
		.journey = json_object(),
	};
	json_t *next_sequence = json_array();
	int next_year = 0;
	json_t *sequence = json_array(), *battles = json_array(), *sieges = json_array(),
	       *captures = json_array(), *foreword = json_array(), *afterword = json_array();
	json_t *winners = NULL;
	bool ended = false;
	size_t count = json_is_array(events) ? json_array_size(events) : 0;

	json_t *context = json_object();
	json_t *all_comments = json_is_array(comments) ? diary_comments_with_decisions(comments, events)
						       : NULL;
	comments = all_comments;
	if (json_is_array(comments))
		insert_comments(comments, 0, foreword);
	for (size_t i = 0; i < count; i++) {
		const json_t *ev = json_array_get(events, i);
		json_t *ev_copy = NULL;
		int seq = (int)i + 1;
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		if (!json_is_object(ev) || !kind)
			goto comments;
		const char *phase = json_string_value(json_object_get(ev, "phase"));
		if (phase && strcmp(phase, "recruitment") == 0)
			b.in_recruitment = true;

		if (strcmp(kind, "roll") == 0) {
			/* the label is what the roll is checked with (doc/dice.md);
			 * the words are what it decided */
			const char *label = json_string_value(json_object_get(ev, "purpose"));
			char *words = year_roll_words(c, label);
			json_t *roll = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:s}", "counter",
						 json_object_get(ev, "counter"), "purpose",
						 json_object_get(ev, "purpose"), "value",
						 json_object_get(ev, "value"), "phase",
						 json_object_get(ev, "phase"), "rule",
						 json_object_get(ev, "rule"), "purpose_text", words);
			if (label && strcmp(words, label) != 0)
				json_object_set_new(roll, "label_differs", json_true());
			free(words);
			json_array_append_new(b.rolls, roll);
			goto comments;
		}
		/* next_sequence (1.4): the next year's order, determined as
		 * this year ends */
		bool next = strcmp(kind, "next_sequence") == 0;
		if (next || strcmp(kind, "sequence_of_play") == 0) {
			json_t *into = next ? next_sequence : sequence;
			json_array_clear(into);
			if (next)
				next_year = (int)json_integer_value(json_object_get(ev, "year_of_play"));
			else
				json_array_clear(b.turns);
			b.current_turn = next ? b.current_turn : NULL;
			size_t k;
			json_t *key;
			json_array_foreach(json_object_get(ev, "order"), k, key) {
				json_t *ref = player_ref_by_key(c, json_string_value(key));
				json_object_set_new(ref, "place", json_integer((json_int_t)k + 1));
				json_array_append_new(into, ref);
				if (!next)
					json_array_append_new(b.turns,
							      json_pack("{s:O, s:I, s:[]}", "player", ref,
									"place", (json_int_t)k + 1, "events"));
			}
			goto comments;
		}
		const char *move_kind = NULL;
		if (strcmp(kind, "move") == 0) {
			move_kind = move_kind_of(ev, context);
			ev_copy = json_copy((json_t *)ev);
			json_object_set_new(ev_copy, "move_kind", json_string(move_kind));
			ev = ev_copy;
		}
		note_context(context, ev, kind);
		if (!b.in_recruitment && starts_turn(kind, move_kind)) {
			const char *key = json_string_value(json_object_get(ev, "player"));
			json_t *t = turn_for(&b, key);
			/* Turns only go forward: a player acting again later in
			 * someone else's turn (a siege defender's sally) stays
			 * in that turn. */
			if (t && t != b.current_turn) {
				bool later = !b.current_turn ||
					     json_integer_value(json_object_get(t, "place")) >
						     json_integer_value(json_object_get(b.current_turn, "place"));
				if (later || strcmp(kind, "turn") == 0)
					b.current_turn = t;
			}
			if (strcmp(kind, "turn") == 0)
				goto comments;
		}
		bool cost_told = strcmp(kind, "move") == 0 && journey_cost_told(&b, ev);
		if (fold(&b, ev, kind))
			goto comments;
		if (strcmp(kind, "battle_announced") == 0) {
			const char *province = ev_str(ev, "province");
			if (province)
				json_object_set(b.announced, province, (json_t *)ev);
			goto comments;
		}
		if (strcmp(kind, "battle_disputed") == 0) {
			/* the sides come from the battle's announcement */
			const json_t *an = json_object_get(b.announced, ev_str(ev, "province") ?
								       ev_str(ev, "province") : "");
			ev_copy = json_copy((json_t *)ev);
			json_object_set(ev_copy, "attacker", json_object_get(an, "attacker"));
			json_object_set(ev_copy, "defender", json_object_get(an, "defender"));
			ev = ev_copy;
		}
		if (strcmp(kind, "battle") == 0 && diary_decided_by_organiser(events, i)) {
			/* the decision before what it decided, and the notes
			 * the organiser gave with it */
			json_t *d = json_pack("{s:s, s:O?, s:O?, s:O?}", "kind", "battle_decided",
					      "province", json_object_get(ev, "province"), "winner",
					      json_object_get(ev, "winner"), "loser",
					      json_object_get(ev, "loser"));
			json_t *dn = narrate(c, d, "battle_decided", year, seq, d);
			json_t *into = current_list(&b, kind);
			json_array_append_new(into, dn);
			size_t ci;
			json_t *cm;
			json_array_foreach(all_comments, ci, cm) {
				const char *of = ev_str(cm, "decision_of"), *text = ev_str(cm, "text");
				const char *p = ev_str(ev, "province");
				if (of && text && p && strcmp(of, p) == 0 &&
				    !json_object_get(cm, "told"))
					json_array_append_new(into, json_pack("{s:b, s:o, s:i}",
									      "is_comment", 1, "text",
									      text_json(text), "seq",
									      seq));
				if (of && p && strcmp(of, p) == 0)
					json_object_set_new(cm, "told", json_true());
			}
			json_decref(d);
		}
		if (!phrasings_of(kind))
			goto comments;
		if (strcmp(kind, "supply") == 0 && json_is_true(json_object_get(ev, "in_supply")))
			goto comments;

		json_t *n = narrate(c, ev, kind, year, seq, json_array_get(events, i));
		json_array_append_new(current_list(&b, kind), n);
		b.last_narrated = n;
		if (cost_told)
			json_object_del(n, "lost_ap");
		if (strcmp(kind, "battle") == 0) {
			b.last_battle = n;
			json_array_append(battles, n);
		} else if (strcmp(kind, "siege_round") == 0) {
			json_array_append(sieges, n);
		} else if (strcmp(kind, "capture") == 0) {
			json_array_append(captures, n);
		} else if (strcmp(kind, "campaign_end") == 0) {
			ended = true;
			json_decref(winners);
			winners = json_array();
			size_t k;
			json_t *key;
			json_array_foreach(json_object_get(ev, "winners"), k, key)
				json_array_append_new(winners,
						      player_ref_by_key(c, json_string_value(key)));
			mark_last(winners);
			json_object_set(n, "winners", winners);
		}
comments:
		if (json_is_array(comments))
			insert_comments(comments, seq, current_list(&b, kind ? kind : ""));
		json_decref(ev_copy);
	}
	json_decref(context);
	json_decref(b.announced);
	json_decref(b.journey);
	/* Comments placed after the last event (or later) close the diary. */
	size_t k;
	json_t *cm;
	json_array_foreach((json_t *)comments, k, cm) {
		json_t *a = json_object_get(cm, "after_event");
		const char *text = json_string_value(json_object_get(cm, "text"));
		if (text && json_is_integer(a) && json_integer_value(a) > (json_int_t)count &&
		    !json_object_get(cm, "told"))
			json_array_append_new(afterword, json_pack("{s:b, s:o}", "is_comment", 1,
								   "text", text_json(text)));
	}

	json_array_foreach(battles, k, cm) {
		json_t *pr = json_object_get(cm, "prestige");
		mark_last(pr);
		/* the award all to the winner is said by the award */
		json_object_set_new(cm, "prestige_shared",
				    json_boolean(json_array_size(pr) > 1 ||
						 !json_equal(json_object_get(json_array_get(pr, 0), "points"),
							     json_object_get(cm, "award"))));
	}
	json_t *turns = b.turns;
	json_array_foreach(turns, k, cm) {
		json_t *evs = json_object_get(cm, "events");
		mark_last(evs);
		json_object_set_new(cm, "quiet", json_boolean(json_array_size(evs) == 0));
		unsigned v = diary_variant(year, -(int)k - 1, "quiet_turn", DIARY_MAX_PHRASINGS);
		for (unsigned i = 0; i < DIARY_MAX_PHRASINGS; i++) {
			char name[8];
			snprintf(name, sizeof name, "v%u", i);
			json_object_set_new(cm, name, json_boolean(i == v));
		}
		json_object_set_new(cm, "year", json_integer(year));
	}
	mark_last(b.turns);
	mark_last(sequence);
	mark_last(b.prelude);
	mark_last(b.recruitment);
	mark_last(b.ending);

	json_t *doc = b.doc;
	json_object_set_new(doc, "campaign", text_json(c->name));
	json_object_set_new(doc, "organiser", text_json(c->organiser_name));
	json_object_set_new(doc, "organiser_nation",
			    c->organiser_player >= 0 ? diary_player_ref(c, c->organiser_player)
						     : json_null());
	json_object_set_new(doc, "year", json_integer(year));
	json_object_set_new(doc, "first_year", json_boolean(year == c->start_year));
	json_object_set_new(doc, "has_events", json_boolean(count > 0));
	json_object_set_new(doc, "sequence", sequence);
	json_object_set_new(doc, "next_sequence", next_sequence);
	json_object_set_new(doc, "next_year", next_year ? json_integer(next_year) : json_null());
	json_object_set_new(doc, "prelude", b.prelude);
	json_object_set_new(doc, "turns", b.turns);
	json_object_set_new(doc, "recruitment", b.recruitment);
	json_object_set_new(doc, "ending", b.ending);
	json_object_set_new(doc, "battles", battles);
	json_object_set_new(doc, "sieges", sieges);
	json_object_set_new(doc, "captures", captures);
	json_object_set_new(doc, "foreword", foreword);
	json_object_set_new(doc, "afterword", afterword);
	json_object_set_new(doc, "rolls", b.rolls);
	/* Templates test these rather than {{#list.0}}, which would push the
	 * first item onto the context stack for the whole section. */
	static const char *const lists[] = {"sequence", "next_sequence", "prelude", "turns",
					    "recruitment",
					    "ending", "foreword", "afterword", "rolls",
					    "battles", "sieges", "captures", NULL};
	for (size_t i = 0; lists[i]; i++) {
		char *flag = xasprintf("has_%s", lists[i]);
		json_object_set_new(doc, flag,
				    json_boolean(json_array_size(json_object_get(doc, lists[i])) > 0));
		free(flag);
	}
	json_object_set_new(doc, "ended", json_boolean(ended));
	json_object_set_new(doc, "winners", winners ? winners : json_array());

	json_t *d = json_object();
	const char *commitment = json_string_value(json_object_get(dice, "commitment"));
	const char *seed = json_string_value(json_object_get(dice, "seed"));
	if (commitment)
		json_object_set_new(d, "commitment", text_json(commitment));
	if (seed)
		json_object_set_new(d, "seed", text_json(seed));
	json_object_set_new(d, "revealed", json_boolean(seed != NULL));
	json_object_set_new(d, "rolls", json_integer((json_int_t)json_array_size(b.rolls)));
	json_object_set_new(doc, "dice", d);

	json_t *losses = losses_data(c, events, year);
	json_object_set_new(doc, "has_losses", json_boolean(json_array_size(losses) > 0));
	json_object_set_new(doc, "losses", losses);
	json_object_set_new(doc, "provinces", province_standings(c));
	json_object_set_new(doc, "prestige",
			    prestige_standings(c, b.battle_prestige, b.province_prestige));
	json_decref(b.battle_prestige);
	json_decref(b.province_prestige);
	json_decref(all_comments);
	return doc;
}
