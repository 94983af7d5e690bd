/* Routes of moves and contingents: the path across the map, its stages,
 * forced march, sea stages and the provinces that need permission. */
#include "config.h"

#include "dbm/orders_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------------- routes */

bool orders_province_friendly(const struct campaign *c, int player, int prov)
{
	return rules_friendly_to(c, player, prov);
}

/* Shortest route by breadth-first search in route order, so the choice is
 * the same every time for the same map. Returns the route length or 0. */
static size_t shortest_route(const struct campaign *c, int from, int to, int **route)
{
	size_t n = c->province_count;
	int *parent = xmalloc(n * sizeof *parent);
	int *queue = xmalloc(n * sizeof *queue);
	size_t head = 0, tail = 0, len = 0;
	for (size_t i = 0; i < n; i++)
		parent[i] = -2;
	parent[from] = -1;
	queue[tail++] = from;
	while (head < tail && parent[to] == -2) {
		int at = queue[head++];
		for (size_t i = 0; i < c->route_count; i++) {
			const struct route *r = &c->routes[i];
			int other = r->a == at ? r->b : r->b == at ? r->a : NO_INDEX;
			if (other >= 0 && (size_t)other < n && parent[other] == -2) {
				parent[other] = at;
				queue[tail++] = other;
			}
		}
	}
	if (parent[to] != -2) {
		for (int at = to; at >= 0; at = parent[at])
			len++;
		*route = xmalloc(len * sizeof **route);
		size_t i = len;
		for (int at = to; at >= 0; at = parent[at])
			(*route)[--i] = at;
	}
	free(parent);
	free(queue);
	return len;
}

static void route_reset(struct order *o)
{
	free(o->route);
	free(o->hostile);
	o->route = NULL;
	o->hostile = NULL;
	o->route_len = o->hostile_count = 0;
	o->stages = o->extra_stages = o->forced_march_half_ap = o->sea_stages = 0;
	o->route_chosen = false;
}

/* Works out the route of a move from `start` to o->province through o->via
 * and what it costs. Returns an error message (caller frees) or NULL. */
char *orders_route_plan(const struct campaign *c, int player, int start, struct order *o)
{
	route_reset(o);
	int dest = o->province;
	if (start < 0 || (size_t)start >= c->province_count)
		return xstrdup("your field army has no location");
	if (o->via_count == 0 && start != dest) {
		o->route_len = shortest_route(c, start, dest, &o->route);
		if (o->route_len == 0)
			return xasprintf("no route from %s to %s", c->provinces[start].name,
					 c->provinces[dest].name);
		o->route_chosen = o->route_len > 2;
	} else {
		o->route_len = o->via_count + 2;
		o->route = xmalloc(o->route_len * sizeof *o->route);
		o->route[0] = start;
		if (o->via_count)
			memcpy(o->route + 1, o->via, o->via_count * sizeof *o->via);
		o->route[o->route_len - 1] = dest;
		if (start == dest && o->via_count == 0)
			o->route_len = 1;
	}
	for (size_t i = 0; i + 1 < o->route_len; i++) {
		int a = o->route[i], b = o->route[i + 1];
		for (size_t j = 0; j < i + 1; j++)
			if (o->route[j] == b)
				return xasprintf("the route passes %s twice", c->provinces[b].name);
		int r = campaign_route_between(c, a, b);
		if (r < 0)
			return xasprintf("no route from %s to %s: the route must follow the map's "
					 "routes", c->provinces[a].name, c->provinces[b].name);
		if (c->routes[r].sea)
			o->sea_stages++;
		if (i + 2 < o->route_len && !orders_province_friendly(c, player, b)) {
			o->hostile = xrealloc(o->hostile, (o->hostile_count + 1) * sizeof *o->hostile);
			o->hostile[o->hostile_count++] = b;
		}
	}
	o->stages = (int)o->route_len - 1;
	o->extra_stages = o->stages > ORDERS_NORMAL_STAGES ? o->stages - ORDERS_NORMAL_STAGES : 0;
	o->forced_march_half_ap = o->extra_stages * ORDERS_FORCED_MARCH_HALF_AP;
	return NULL;
}

int orders_move_start(const struct campaign *c, int player)
{
	return player >= 0 ? c->players[player].location : NO_INDEX;
}

int orders_route_dest_of(const struct campaign *c, const struct order *o)
{
	if (o->kind == ORDER_SEND_CONTINGENT)
		return o->target >= 0 ? c->players[o->target].location : NO_INDEX;
	return o->province;
}

void orders_plan_route(struct parser *p)
{
	struct order *o = p->o;
	if (orders_failed(p) || p->player < 0)
		return;
	int saved = o->province;
	o->province = orders_route_dest_of(p->c, o);
	if (o->province < 0) {
		o->province = saved;
		orders_fail(p, "%s's field army has no location", orders_player_nation(p->c, o->target));
		return;
	}
	char *err = orders_route_plan(p->c, p->player, orders_move_start(p->c, p->player), o);
	o->province = saved;
	if (err) {
		orders_fail(p, "%s", err);
		free(err);
	}
}
