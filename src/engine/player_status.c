/* A player's STATUS by mail (player_status.h). */
#include "config.h"

#include "engine/player_status.h"
#include "engine/awaited.h"
#include "engine/engine_year_p.h"
#include "engine/engine_p.h"
#include "base/timefmt.h"
#include "dbm/orders.h"
#include "dbm/year.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const char *nation(const struct campaign *c, int p)
{
	if (p < 0 || (size_t)p >= c->player_count)
		return "nobody";
	return c->players[p].nation ? c->players[p].nation : c->players[p].key;
}

static const char *province_name(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->province_count ? c->provinces[p].name : "nowhere";
}

/* Troops by label: count, label, AP each and together; and their total. */
static json_t *troops_json(const struct army_list *l, const struct troops *t)
{
	char a[16], b[16];
	json_t *elements = json_array();
	for (size_t i = 0; i < l->count; i++) {
		if (!t->count || !t->count[i])
			continue;
		const struct element_type *et = &l->types[i];
		json_array_append_new(elements, json_pack("{s:i, s:s, s:s, s:s, s:b}", "count",
			t->count[i], "label", et->label, "ap_each", half_ap_format(et->cost_half_ap, a),
			"ap", half_ap_format(et->cost_half_ap * t->count[i], b), "general",
			et->general));
	}
	int generals = troops_generals(l, t);
	char *gen = xasprintf("%d general%s", generals, generals == 1 ? "" : "s");
	json_t *d = json_pack("{s:s, s:i, s:s, s:o}", "ap",
			      half_ap_format(troops_half_ap(l, t), a), "generals", generals,
			      "generals_text", gen, "elements", elements);
	free(gen);
	if (!json_array_size(elements))
		json_object_set_new(d, "empty", json_true());
	return d;
}

json_t *engine_player_status(struct engine *e, int player, int64_t now, char **errstr)
{
	struct yctx y;
	if (yctx_open(&y, e, now, true, errstr) != 0) {
		yctx_free(&y);
		return NULL;
	}
	const struct campaign *c = y.c;
	const struct player *pl = &c->players[player];
	char a[16];
	json_t *d = json_object();

	json_t *army = troops_json(&pl->list, &pl->field);
	json_object_set_new(army, "location", json_string(province_name(c, pl->location)));
	json_object_set_new(d, "army", army);
	json_object_set_new(d, "reserve", troops_json(&pl->list, &pl->reserve));
	json_object_set_new(d, "ceiling_ap", json_string(half_ap_format(pl->cap_half_ap, a)));
	json_object_set_new(d, "prestige",
			    json_integer(pl->battle_prestige + pl->province_prestige));
	json_t *provinces = json_array();
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].owner == player)
			json_array_append_new(provinces, json_pack("{s:s, s:b}", "name",
				c->provinces[i].name, "home", c->provinces[i].home_of == player));
	json_object_set_new(d, "provinces", provinces);
	struct strbuf held = {0};
	strbuf_puts(&held, "");
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].owner == player)
			strbuf_printf(&held, "%s%s%s", held.len ? ", " : "", c->provinces[i].name,
				      c->provinces[i].home_of == player ? "*" : "");
	json_object_set_new(d, "provinces_text", json_string(held.len ? held.data : "none"));
	strbuf_free(&held);
	if (pl->overlord != NO_INDEX)
		json_object_set_new(d, "overlord", json_string(nation(c, pl->overlord)));
	/* his stand-in goes on acting until the date (a STATUS does not end it) */
	struct store_stand_in si = {0};
	bool found = false;
	if (!y.err && store_stand_in_get(e->store, pl->key, &si, &found, &y.err) == STORE_OK &&
	    found && engine_stand_in_lasts(&si, now)) {
		char until[64];
		char *who = engine_stand_in_who(&si);
		json_object_set_new(d, "stand_in", json_pack("{s:s, s:s}", "who", who, "until",
			timefmt_local(si.until_at, c->timezone, until, sizeof until)));
		free(who);
	}
	store_stand_in_free(&si);

	json_t *out = json_array(), *in = json_array();
	for (size_t k = 0; k < c->contingent_count; k++) {
		const struct contingent *g = &c->contingents[k];
		if (g->owner == player) {
			json_t *j = troops_json(&pl->list, &g->troops);
			json_object_set_new(j, "with", json_string(nation(c, g->with_player)));
			json_object_set_new(j, "where", json_string(province_name(
				c, g->with_player >= 0 ? c->players[g->with_player].location
						       : NO_INDEX)));
			if (g->returning)
				json_object_set_new(j, "returning", json_true());
			json_array_append_new(out, j);
		} else if (g->with_player == player && g->owner >= 0 &&
			   (size_t)g->owner < c->player_count) {
			json_t *j = troops_json(&c->players[g->owner].list, &g->troops);
			json_object_set_new(j, "from", json_string(nation(c, g->owner)));
			json_array_append_new(in, j);
		}
	}
	json_object_set_new(d, "contingents_out", out);
	json_object_set_new(d, "contingents_in", in);

	/* as the year's mails give it (one helper for both) */
	json_t *positions = year_positions_json(c);
	json_object_set_new(d, "positions", positions);

	json_t *aw = engine_awaited_json(&y.st, c, &y.io);
	json_t *asks = json_array();
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(aw, "requests"), i, v) {
		const char *by = json_string_value(json_object_get(v, "player"));
		const char *to = json_string_value(json_object_get(v, "waits_for"));
		if ((by && strcmp(by, pl->key) == 0) || (to && strcmp(to, pl->key) == 0))
			json_array_append(asks, json_object_get(v, "what"));
	}
	json_object_set_new(d, "has_requests", json_boolean(json_array_size(asks) > 0));
	json_object_set_new(d, "your_requests", asks);
	json_decref(aw);
	if (y.err) {
		*errstr = y.err;
		y.err = NULL;
		json_decref(d);
		d = NULL;
	}
	yctx_free(&y);
	return d;
}
