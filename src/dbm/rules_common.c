#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum rules_status rules_refuse(struct rules_reason *why, const char *fmt, ...)
{
	if (why) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why->text, sizeof why->text, fmt, ap);
		va_end(ap);
	}
	return RULES_REFUSED;
}

bool rules_valid_player(const struct campaign *c, int player)
{
	return player >= 0 && (size_t)player < c->player_count;
}

bool rules_active_player(const struct campaign *c, int player)
{
	return rules_valid_player(c, player) && c->players[player].status == PLAYER_ACTIVE;
}

bool rules_valid_province(const struct campaign *c, int province)
{
	return province >= 0 && (size_t)province < c->province_count;
}

bool rules_valid_contingent(const struct campaign *c, int contingent)
{
	return contingent >= 0 && (size_t)contingent < c->contingent_count;
}

const char *rules_player_key(const struct campaign *c, int player)
{
	if (!rules_valid_player(c, player))
		return "neutral";
	const struct player *p = &c->players[player];
	return p->key ? p->key : p->nation ? p->nation : "?";
}

const char *rules_player_nation(const struct campaign *c, int player)
{
	if (!rules_valid_player(c, player))
		return "neutral";
	const struct player *p = &c->players[player];
	return p->nation ? p->nation : p->key ? p->key : "?";
}

const char *rules_province_name(const struct campaign *c, int province)
{
	if (!rules_valid_province(c, province))
		return "nowhere";
	return c->provinces[province].name ? c->provinces[province].name : "?";
}

const struct troops *rules_force_troops_const(const struct campaign *c, int player,
					      int contingent)
{
	if (!rules_valid_player(c, player))
		return NULL;
	if (contingent == NO_INDEX)
		return c->players[player].field.count ? &c->players[player].field : NULL;
	if (!rules_valid_contingent(c, contingent) || c->contingents[contingent].owner != player)
		return NULL;
	return c->contingents[contingent].troops.count ? &c->contingents[contingent].troops : NULL;
}

struct troops *rules_force_troops(struct campaign *c, int player, int contingent)
{
	return (struct troops *)rules_force_troops_const(c, player, contingent);
}

int rules_counts_half_ap(const struct army_list *l, const int *counts)
{
	int sum = 0;
	for (size_t i = 0; i < l->count; i++)
		sum += counts[i] * l->types[i].cost_half_ap;
	return sum;
}

int rules_counts_generals(const struct army_list *l, const int *counts)
{
	int n = 0;
	for (size_t i = 0; i < l->count; i++)
		if (l->types[i].general)
			n += counts[i];
	return n;
}

json_t *rules_counts_json(const struct army_list *l, const int *counts)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->count; i++)
		if (counts && counts[i])
			json_object_set_new(o, l->types[i].label ? l->types[i].label : "?",
					    json_integer(counts[i]));
	return o;
}

int rules_field_army_at(const struct campaign *c, int province, int except)
{
	for (size_t i = 0; i < c->player_count; i++)
		if ((int)i != except && c->players[i].status == PLAYER_ACTIVE &&
		    c->players[i].location == province)
			return (int)i;
	return NO_INDEX;
}

bool rules_friendly_province(const struct campaign *c, int player, int province,
			     const bool *allies)
{
	if (!rules_valid_province(c, province))
		return false;
	int owner = c->provinces[province].owner;
	if (owner == NO_INDEX)
		return false;
	return owner == player || (allies && rules_valid_player(c, owner) && allies[owner]);
}

void rules_remove_contingent(struct campaign *c, int contingent)
{
	if (!rules_valid_contingent(c, contingent))
		return;
	troops_free(&c->contingents[contingent].troops);
	memmove(&c->contingents[contingent], &c->contingents[contingent + 1],
		(c->contingent_count - (size_t)contingent - 1) * sizeof *c->contingents);
	c->contingent_count--;
}

void rules_lift_sieges_by(struct campaign *c, int player, int keep, struct event_log *log)
{
	for (size_t i = 0; i < c->siege_count;) {
		struct siege *s = &c->sieges[i];
		if (s->besieger == player && s->province != keep) {
			event_emit(log, "siege_lifted", RULE_SIEGE, "{s:s, s:s, s:i}", "player",
				   rules_player_key(c, player), "province",
				   rules_province_name(c, s->province), "rounds_failed",
				   s->rounds_failed);
			memmove(s, s + 1, (c->siege_count - i - 1) * sizeof *s);
			c->siege_count--;
		} else {
			i++;
		}
	}
}

void rules_adjacency_build(const struct campaign *c, struct rules_adjacency *adj)
{
	size_t n = c->province_count;
	adj->start = xcalloc(n + 2, sizeof *adj->start);
	adj->to = xmalloc((2 * c->route_count + 1) * sizeof *adj->to);
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if (rules_valid_province(c, r->a) && rules_valid_province(c, r->b) && r->a != r->b) {
			adj->start[r->a + 2]++;
			adj->start[r->b + 2]++;
		}
	}
	for (size_t p = 2; p < n + 2; p++)
		adj->start[p] += adj->start[p - 1];
	/* start[p + 1] is now where p's neighbours begin; fill and advance. */
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if (rules_valid_province(c, r->a) && rules_valid_province(c, r->b) && r->a != r->b) {
			adj->to[adj->start[r->a + 1]++] = r->b;
			adj->to[adj->start[r->b + 1]++] = r->a;
		}
	}
}

void rules_adjacency_free(struct rules_adjacency *adj)
{
	free(adj->start);
	free(adj->to);
	adj->start = adj->to = NULL;
}
