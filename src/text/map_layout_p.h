/* Where the map's marks go (army badges, siege towers, crossed swords):
 * each next to its province, but never over a province's name, and, where
 * the map leaves room, over no province or other mark either. Boxes are in
 * map units; labels and provinces are registered first, then each mark is
 * placed in turn and avoided by the next. Pure geometry, no I/O. Private
 * to src/text. */
#ifndef CAMPAIGN_MAP_LAYOUT_P_H
#define CAMPAIGN_MAP_LAYOUT_P_H

#include <stdbool.h>
#include <stddef.h>

struct map_box {
	double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 */
};

enum map_box_kind {
	MAP_BOX_LABEL, /* a province's name: never covered */
	MAP_BOX_DISC,  /* a province and its rings: avoided where there is room */
	MAP_BOX_MARK,  /* a mark placed earlier: avoided where there is room */
};

struct map_layout {
	struct map_box *boxes;
	enum map_box_kind *kinds;
	size_t count, cap;
	struct map_box extent; /* everything registered or placed */
	bool any;
};

/* The directions a mark is tried in around its province, the first that
 * suits it first (a badge to the right, a tower above, swords up left). */
enum map_side { MAP_EAST, MAP_NORTH, MAP_NORTH_WEST };

void map_layout_init(struct map_layout *l);
void map_layout_free(struct map_layout *l);
/* Registers a box; returns its number (for map_layout_place's `own`). */
size_t map_layout_add(struct map_layout *l, enum map_box_kind kind, struct map_box b);

/* Places a `w` x `h` mark beside the province at (cx, cy), whose disc
 * (with its rings) has radius `r` and was registered as box number `own`
 * (which the mark may touch; SIZE_MAX for none): at (px, py) (the box's top left corner)
 * when that covers nothing, else at the nearest free place around the
 * disc, trying the sides in an order starting at `side`, farther out step
 * by step. Never over a label if any place within reach avoids them all.
 * The box is registered as a mark and returned; *far is set when it
 * ended away from the province (the map then draws a line to it). */
struct map_box map_layout_place(struct map_layout *l, size_t own, double cx, double cy, double r,
				double w, double h, double px, double py, enum map_side side,
				bool *far);

bool map_box_overlap(const struct map_box *a, const struct map_box *b);

#endif
