#include "config.h"

#include "text/map_layout_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* How far out from its province a mark is looked for, step by step. The
 * first steps keep it beside the province; the last ones only matter on a
 * crowded map, where a line then leads to it. */
static const double gaps[] = {2, 8, 16, 28, 44, 64, 90, 120, 160, 210};
#define NEAR_GAP 16.0  /* farther than this: a line leads to the mark */
#define CLEAR_GAP 28.0 /* within this, a place that covers nothing at all */
#define ROOMY_GAP 64.0 /* within this, one that covers no label nor mark */

/* The compass directions as (x, y) signs, y downwards, in the order each
 * starting side tries them. */
static const int compass[3][8][2] = {
	[MAP_EAST] = {{1, 0}, {1, -1}, {1, 1}, {-1, 0}, {-1, -1}, {-1, 1}, {0, -1}, {0, 1}},
	[MAP_NORTH] = {{0, -1}, {1, -1}, {-1, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {0, 1}},
	[MAP_NORTH_WEST] = {{-1, -1}, {0, -1}, {-1, 0}, {1, -1}, {-1, 1}, {1, 0}, {1, 1}, {0, 1}},
};

void map_layout_init(struct map_layout *l)
{
	memset(l, 0, sizeof *l);
}

void map_layout_free(struct map_layout *l)
{
	free(l->boxes);
	free(l->kinds);
	memset(l, 0, sizeof *l);
}

static void extend(struct map_layout *l, const struct map_box *b)
{
	if (!l->any) {
		l->extent = *b;
		l->any = true;
		return;
	}
	if (b->x0 < l->extent.x0)
		l->extent.x0 = b->x0;
	if (b->y0 < l->extent.y0)
		l->extent.y0 = b->y0;
	if (b->x1 > l->extent.x1)
		l->extent.x1 = b->x1;
	if (b->y1 > l->extent.y1)
		l->extent.y1 = b->y1;
}

size_t map_layout_add(struct map_layout *l, enum map_box_kind kind, struct map_box b)
{
	size_t cap = l->cap;
	grow_array((void **)&l->boxes, &l->cap, l->count + 1, sizeof *l->boxes);
	if (l->cap != cap) {
		enum map_box_kind *k = realloc(l->kinds, l->cap * sizeof *k);
		if (!k)
			abort();
		l->kinds = k;
	}
	l->boxes[l->count] = b;
	l->kinds[l->count] = kind;
	extend(l, &b);
	return l->count++;
}

bool map_box_overlap(const struct map_box *a, const struct map_box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* What a place would cover. */
struct cover {
	size_t labels, marks, discs;
};

static struct cover covered(const struct map_layout *l, const size_t *near, size_t n,
			    const struct map_box *b)
{
	struct cover c = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		if (!map_box_overlap(&l->boxes[near[i]], b))
			continue;
		switch (l->kinds[near[i]]) {
		case MAP_BOX_LABEL: c.labels++; break;
		case MAP_BOX_MARK: c.marks++; break;
		case MAP_BOX_DISC: c.discs++; break;
		}
	}
	return c;
}

static struct map_box beside(double cx, double cy, double r, double w, double h, double gap,
			     const int dir[2])
{
	double x0 = dir[0] > 0 ? cx + r + gap : dir[0] < 0 ? cx - r - gap - w : cx - w / 2;
	double y0 = dir[1] > 0 ? cy + r + gap : dir[1] < 0 ? cy - r - gap - h : cy - h / 2;
	return (struct map_box){x0, y0, x0 + w, y0 + h};
}

struct map_box map_layout_place(struct map_layout *l, size_t own, double cx, double cy, double r,
				double w, double h, double px, double py, enum map_side side,
				bool *far)
{
	/* Only the boxes within reach can be covered: found once, so that a
	 * map of many provinces is not searched whole for every place tried. */
	double reach = r + gaps[sizeof gaps / sizeof *gaps - 1] + w + h;
	struct map_box zone = {cx - reach, cy - reach, cx + reach, cy + reach};
	if (px - 1 < zone.x0)
		zone.x0 = px - 1;
	if (py - 1 < zone.y0)
		zone.y0 = py - 1;
	if (px + w + 1 > zone.x1)
		zone.x1 = px + w + 1;
	if (py + h + 1 > zone.y1)
		zone.y1 = py + h + 1;
	size_t *near = xcalloc(l->count ? l->count : 1, sizeof *near);
	size_t n = 0;
	for (size_t i = 0; i < l->count; i++)
		if (i != own && map_box_overlap(&l->boxes[i], &zone))
			near[n++] = i;

	/* The places in the order they are tried: the one asked for, then
	 * round the disc, one step farther out each time round. */
	enum { TRIED = 1 + 8 * (int)(sizeof gaps / sizeof *gaps) };
	struct map_box place[TRIED];
	double gap_of[TRIED];
	struct cover cov[TRIED];
	place[0] = (struct map_box){px, py, px + w, py + h};
	gap_of[0] = 0;
	size_t tried = 1;
	for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++)
		for (size_t d = 0; d < 8; d++) {
			place[tried] = beside(cx, cy, r, w, h, gaps[g], compass[side][d]);
			gap_of[tried++] = gaps[g];
		}
	for (size_t i = 0; i < (size_t)TRIED; i++)
		cov[i] = covered(l, near, n, &place[i]);
	free(near);

	/* Beside the province and covering nothing; else near and covering
	 * no label nor mark; else covering nothing, however far; else no
	 * label; else the fewest labels. */
	size_t pick = (size_t)TRIED;
	for (int tier = 0; tier < 4 && pick == (size_t)TRIED; tier++)
		for (size_t i = 0; i < (size_t)TRIED && pick == (size_t)TRIED; i++) {
			const struct cover *c = &cov[i];
			bool ok = tier == 0   ? !c->labels && !c->marks && !c->discs && gap_of[i] <= CLEAR_GAP
				  : tier == 1 ? !c->labels && !c->marks && gap_of[i] <= ROOMY_GAP
				  : tier == 2 ? !c->labels && !c->marks && !c->discs
					      : !c->labels;
			if (ok)
				pick = i;
		}
	if (pick == (size_t)TRIED) {
		pick = 0;
		for (size_t i = 1; i < (size_t)TRIED; i++)
			if (cov[i].labels < cov[pick].labels)
				pick = i;
	}
	*far = gap_of[pick] > NEAR_GAP;
	map_layout_add(l, MAP_BOX_MARK, place[pick]);
	return place[pick];
}
