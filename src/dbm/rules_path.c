/* Paths across the map: the shortest way for a player's force, and where
 * a beaten or dispossessed army falls back to. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>

int rules_shortest_path(const struct campaign *c, int player, int from, int to, int *path,
			size_t max)
{
	if (!rules_valid_province(c, from) || !rules_valid_province(c, to))
		return -1;
	size_t n = c->province_count;
	struct rules_adjacency adj;
	rules_adjacency_build(c, &adj);
	int *dist = xmalloc(n * sizeof *dist);
	int *cost = xmalloc(n * sizeof *cost);
	int *queue = xmalloc(n * sizeof *queue);
	for (size_t i = 0; i < n; i++)
		dist[i] = cost[i] = -1;
	size_t head = 0, tail = 0;
	dist[to] = 0;
	cost[to] = 0;
	queue[tail++] = to;
	/* Breadth first from the destination; cost = hostile provinces entered
	 * on the best shortest way from a province to the destination. */
	while (head < tail && dist[from] < 0) {
		int v = queue[head++];
		int hostile_v = c->provinces[v].owner != player;
		for (int k = adj.start[v]; k < adj.start[v + 1]; k++) {
			int w = adj.to[k];
			if (dist[w] < 0) {
				dist[w] = dist[v] + 1;
				cost[w] = cost[v] + hostile_v;
				queue[tail++] = w;
			} else if (dist[w] == dist[v] + 1 && cost[v] + hostile_v < cost[w]) {
				cost[w] = cost[v] + hostile_v;
			}
		}
	}
	/* Stopping once `from` is reached is enough: the walk below needs the
	 * costs of provinces nearer the destination than `from`, and those
	 * were final once the layer before them had been searched. */
	int stages = dist[from];
	int at = from;
	for (int s = 0; s < stages; s++) {
		int best = NO_INDEX, best_cost = 0;
		for (int k = adj.start[at]; k < adj.start[at + 1]; k++) {
			int w = adj.to[k];
			if (dist[w] != dist[at] - 1)
				continue;
			int cw = cost[w] + (c->provinces[w].owner != player);
			if (best == NO_INDEX || cw < best_cost || (cw == best_cost && w < best)) {
				best = w;
				best_cost = cw;
			}
		}
		if ((size_t)s < max)
			path[s] = best;
		at = best;
	}
	free(dist);
	free(cost);
	free(queue);
	rules_adjacency_free(&adj);
	return stages;
}

int rules_retreat_destination(const struct campaign *c, int player, int from, int forbidden,
			      const bool *allies, int choice, int *stages)
{
	if (stages)
		*stages = -1;
	if (!rules_valid_province(c, from))
		return NO_INDEX;
	size_t n = c->province_count;
	struct rules_adjacency adj;
	rules_adjacency_build(c, &adj);
	int *dist = xmalloc(n * sizeof *dist);
	int *queue = xmalloc(n * sizeof *queue);
	for (size_t i = 0; i < n; i++)
		dist[i] = -1;
	size_t head = 0, tail = 0;
	dist[from] = 0;
	queue[tail++] = from;
	while (head < tail) {
		int v = queue[head++];
		for (int k = adj.start[v]; k < adj.start[v + 1]; k++) {
			int w = adj.to[k];
			if (dist[w] < 0) {
				dist[w] = dist[v] + 1;
				queue[tail++] = w;
			}
		}
	}
	rules_adjacency_free(&adj);
	int best = NO_INDEX;
	for (size_t i = 0; i < n; i++) {
		int p = (int)i;
		if (p == from || p == forbidden || dist[i] < 0 ||
		    !rules_friendly_province(c, player, p, allies))
			continue;
		if (best == NO_INDEX || dist[i] < dist[best])
			best = p;
	}
	if (best != NO_INDEX && rules_valid_province(c, choice) && choice != from &&
	    choice != forbidden && dist[choice] == dist[best] &&
	    rules_friendly_province(c, player, choice, allies))
		best = choice;
	if (best != NO_INDEX && stages)
		*stages = dist[best];
	free(dist);
	free(queue);
	return best;
}
