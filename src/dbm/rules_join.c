/* 1.2 A new player: neutral provinces "used as the initial territory of a
 * new player, where upon they cease to be neutral" (campaignctl
 * add-player), and his entry into play when the next year begins. Our
 * reading is in doc/rules.md, "A new player joins". */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <string.h>

/* A province a new player may be given: neutral, and not already set
 * aside for another new player who has not entered yet. */
static bool free_neutral(const struct campaign *c, size_t i)
{
	const struct province *p = &c->provinces[i];
	if (p->owner != NO_INDEX)
		return false;
	return !(p->home_of >= 0 && (size_t)p->home_of < c->player_count &&
		 (c->players[p->home_of].status == PLAYER_JOINING ||
		  (c->phase == PHASE_SETUP && c->players[p->home_of].status == PLAYER_ACTIVE)));
}

static void free_list(const struct campaign *c, struct strbuf *sb)
{
	for (size_t i = 0; i < c->province_count; i++)
		if (free_neutral(c, i))
			strbuf_printf(sb, "%s%s", sb->len ? ", " : "", c->provinces[i].name);
	if (!sb->len)
		strbuf_puts(sb, "none");
}

enum rules_status rules_join_check(const struct campaign *c, const int *provinces, size_t n,
				   struct rules_reason *why)
{
	if (c->phase == PHASE_ENDED)
		return rules_refuse(why, "the campaign is over");
	if (n < 1 || n > 4)
		return rules_refuse(why, "a new player is given one to four home provinces "
				    "(rules 1.2: four), not %zu", n);
	struct strbuf bad = {0}, free_ones = {0};
	for (size_t i = 0; i < n; i++) {
		int p = provinces[i];
		if (!rules_valid_province(c, p)) {
			strbuf_free(&bad);
			return rules_refuse(why, "no province number %d", p);
		}
		for (size_t j = 0; j < i; j++)
			if (provinces[j] == p) {
				strbuf_free(&bad);
				return rules_refuse(why, "%s is named twice", c->provinces[p].name);
			}
		if (free_neutral(c, (size_t)p))
			continue;
		const struct province *pr = &c->provinces[p];
		if (pr->owner != NO_INDEX)
			strbuf_printf(&bad, "%s%s (%s's)", bad.len ? ", " : "", pr->name,
				      rules_player_nation(c, pr->owner));
		else
			strbuf_printf(&bad, "%s%s (set aside for %s)", bad.len ? ", " : "",
				      pr->name, rules_player_nation(c, pr->home_of));
	}
	enum rules_status rc = RULES_OK;
	if (bad.len) {
		free_list(c, &free_ones);
		rc = rules_refuse(why, "only neutral provinces can be a new player's home "
				  "provinces; not neutral: %s; neutral: %s", bad.data,
				  free_ones.data);
	}
	strbuf_free(&bad);
	strbuf_free(&free_ones);
	return rc;
}

void rules_player_joins(struct campaign *c, int player, const int *provinces, size_t n,
			struct event_log *log)
{
	struct player *p = &c->players[player];
	bool before_play = c->phase == PHASE_SETUP;
	json_t *names = json_array();
	for (size_t i = 0; i < n; i++) {
		c->provinces[provinces[i]].home_of = player;
		if (before_play) /* his from the start, as the campaign file's */
			c->provinces[provinces[i]].owner = player;
		json_array_append_new(names, json_string(c->provinces[provinces[i]].name));
	}
	p->status = before_play ? PLAYER_ACTIVE : PLAYER_JOINING;
	p->setup_by_mail = true;
	p->location = NO_INDEX;
	event_emit(log, "player_joined", RULE_NEW_PLAYER, "{s:s, s:o, s:i}", "player", p->key,
		   "provinces", names, "enters_year", before_play ? c->year : c->year + 1);
}

int rules_player_enters(struct campaign *c, int player, const int *counts, int start,
			struct event_log *log)
{
	struct player *p = &c->players[player];
	json_t *taken = json_array();
	int first = NO_INDEX;
	for (size_t i = 0; i < c->province_count; i++) {
		struct province *pr = &c->provinces[i];
		if (pr->home_of != player || pr->owner != NO_INDEX)
			continue;
		pr->owner = player;
		if (first == NO_INDEX)
			first = (int)i;
		json_array_append_new(taken, json_string(pr->name));
	}
	if (start < 0 || (size_t)start >= c->province_count || c->provinces[start].owner != player)
		start = first;
	p->setup_by_mail = false;
	if (first == NO_INDEX) {
		/* every province set aside for him was taken meanwhile: no
		 * territory, no army (3.2: out of the game) */
		p->status = PLAYER_OUT;
		event_emit(log, "player_out", RULE_NEW_PLAYER, "{s:s, s:b}", "player", p->key,
			   "before_entering", 1);
		json_decref(taken);
		return NO_INDEX;
	}
	int total = 0;
	for (size_t i = 0; i < p->list.count; i++) {
		p->field.count[i] = counts[i];
		p->reserve.count[i] = 0;
		total += counts[i] * p->list.types[i].cost_half_ap;
	}
	p->location = start;
	p->original_half_ap = p->cap_half_ap = total;
	p->status = PLAYER_ACTIVE;
	p->movement_option = OPTION_NONE;
	p->fought_this_year = false;
	event_emit(log, "player_entered", RULE_NEW_PLAYER, "{s:s, s:o, s:s, s:i}", "player",
		   p->key, "provinces", taken, "start", c->provinces[start].name, "half_ap",
		   total);
	return start;
}
