/* The diary's history: the campaign's state at the end of an earlier
 * year rewound from the event log (undo, the web diary's year pages), and
 * prestige over the years (the web diary's chart). */
#include "config.h"

#include "dbm/diary.h"
#include "model/campaign_json.h"
#include "base/util.h"

#include <string.h>

static int rewind_player(const struct campaign *c, const char *key)
{
	return key ? campaign_find_player(c, key) : NO_INDEX;
}

/* ---- the state at the end of an earlier year ---- */

static int province_by_name(const struct campaign *c, const char *name)
{
	if (!name)
		return NO_INDEX;
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].name && strcmp(c->provinces[i].name, name) == 0)
			return (int)i;
	return NO_INDEX;
}

static int event_year(const json_t *ev)
{
	return (int)json_integer_value(json_object_get(ev, "year"));
}

static const char *event_str(const json_t *ev, const char *field)
{
	return json_string_value(json_object_get(ev, field));
}

static void undo_event(struct campaign *c, const json_t *ev)
{
	const char *kind = event_str(ev, "kind");
	int player = rewind_player(c, event_str(ev, "player"));
	struct player *p = player >= 0 ? &c->players[player] : NULL;
	int points = (int)json_integer_value(json_object_get(ev, "points"));
	if (!kind)
		return;
	if (strcmp(kind, "capture") == 0) {
		int prov = province_by_name(c, event_str(ev, "province"));
		if (prov >= 0)
			c->provinces[prov].owner = rewind_player(c, event_str(ev, "from"));
	} else if (strcmp(kind, "move") == 0 && p && !json_is_true(json_object_get(ev, "contingent"))) {
		int from = province_by_name(c, event_str(ev, "from"));
		if (from >= 0)
			p->location = from;
	} else if (strcmp(kind, "prestige") == 0 && p) {
		p->battle_prestige -= points;
	} else if (strcmp(kind, "province_prestige") == 0 && p) {
		p->province_prestige -= points;
	} else if ((strcmp(kind, "player_out") == 0 || strcmp(kind, "player_left") == 0) && p) {
		p->status = PLAYER_ACTIVE;
		size_t i;
		json_t *name;
		json_array_foreach(json_object_get(ev, "provinces_neutral"), i, name) {
			int prov = province_by_name(c, json_string_value(name));
			if (prov >= 0)
				c->provinces[prov].owner = player;
		}
	} else if (strcmp(kind, "player_entered") == 0 && p) {
		p->status = PLAYER_JOINING;
		p->location = NO_INDEX;
		size_t i;
		json_t *name;
		json_array_foreach(json_object_get(ev, "provinces"), i, name) {
			int prov = province_by_name(c, json_string_value(name));
			if (prov >= 0)
				c->provinces[prov].owner = NO_INDEX;
		}
	} else if (strcmp(kind, "tributary") == 0 && json_is_true(json_object_get(ev, "accepted"))) {
		int trib = rewind_player(c, event_str(ev, "tributary"));
		if (trib >= 0)
			c->players[trib].overlord = NO_INDEX;
	}
}

/* The sieges under way at the end of `year`, from its siege rounds. */
static void sieges_of_year(struct campaign *c, const json_t *events, int year)
{
	c->siege_count = 0;
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)events, i, ev) {
		if (event_year(ev) != year)
			continue;
		const char *kind = event_str(ev, "kind");
		int prov = province_by_name(c, event_str(ev, "province"));
		if (!kind || prov < 0)
			continue;
		bool ends = strcmp(kind, "capture") == 0 || strcmp(kind, "siege_lifted") == 0 ||
			    (strcmp(kind, "siege_round") == 0 &&
			     json_is_true(json_object_get(ev, "captured")));
		for (size_t s = c->siege_count; ends && s-- > 0;)
			if (c->sieges[s].province == prov) {
				memmove(&c->sieges[s], &c->sieges[s + 1],
					(c->siege_count - s - 1) * sizeof c->sieges[0]);
				c->siege_count--;
			}
		if (strcmp(kind, "siege_round") != 0 || ends)
			continue;
		int besieger = rewind_player(c, event_str(ev, "player"));
		struct siege *s = NULL;
		for (size_t k = 0; k < c->siege_count; k++)
			if (c->sieges[k].province == prov && c->sieges[k].besieger == besieger)
				s = &c->sieges[k];
		if (!s) {
			grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1,
				   sizeof *c->sieges);
			s = &c->sieges[c->siege_count++];
		}
		s->province = prov;
		s->besieger = besieger;
		s->rounds_failed = (int)json_integer_value(json_object_get(ev, "rounds_failed")) + 1;
		s->last_round_year = year;
	}
}

bool diary_rewind(struct campaign *c, const json_t *events, int year)
{
	size_t n = json_is_array(events) ? json_array_size(events) : 0;
	bool later = false;
	for (size_t i = n; i-- > 0;) {
		const json_t *ev = json_array_get(events, i);
		if (event_year(ev) <= year)
			continue;
		later = true;
		undo_event(c, ev);
	}
	if (!later)
		return false;
	for (size_t i = 0; i < c->contingent_count; i++)
		troops_free(&c->contingents[i].troops);
	c->contingent_count = 0;
	sieges_of_year(c, events, year);
	c->year = year;
	c->phase = PHASE_RECRUITMENT;
	return true;
}

/* ---- prestige over the years ---- */

json_t *diary_prestige_history(const struct campaign *c, const json_t *events)
{
	int first = c->start_year, last = c->start_year;
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)events, i, ev) {
		int y = event_year(ev);
		if (y > last)
			last = y;
		if (y < first && y > 0)
			first = y;
	}
	if (last - first > 1000) /* a corrupt year: keep the chart sane */
		first = last - 1000;
	size_t years = (size_t)(last - first + 1);
	int *totals = xcalloc(c->player_count * years + 1, sizeof *totals);
	int *running = xcalloc(c->player_count + 1, sizeof *running);
	size_t at = 0;
	for (int y = first; y <= last; y++) {
		json_array_foreach((json_t *)events, i, ev) {
			if (event_year(ev) != y)
				continue;
			const char *kind = event_str(ev, "kind");
			int player = rewind_player(c, event_str(ev, "player"));
			if (!kind || player < 0)
				continue;
			int points = (int)json_integer_value(json_object_get(ev, "points"));
			if (strcmp(kind, "prestige") == 0 || strcmp(kind, "province_prestige") == 0)
				running[player] += points;
			else if (strcmp(kind, "player_left") == 0)
				running[player] = 0;
		}
		for (size_t p = 0; p < c->player_count; p++)
			totals[p * years + at] = running[p];
		at++;
	}
	json_t *doc = json_object();
	json_t *ylist = json_array();
	for (int y = first; y <= last; y++)
		json_array_append_new(ylist, json_integer(y));
	json_object_set_new(doc, "years", ylist);
	json_t *players = json_array();
	for (size_t p = 0; p < c->player_count; p++) {
		json_t *t = json_array();
		for (size_t k = 0; k < years; k++)
			json_array_append_new(t, json_integer(totals[p * years + k]));
		json_array_append_new(players, json_pack("{s:o, s:o}", "player",
							 diary_player_ref(c, (int)p), "totals", t));
	}
	json_object_set_new(doc, "players", players);
	free(totals);
	free(running);
	return doc;
}
