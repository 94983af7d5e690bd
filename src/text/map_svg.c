#include "config.h"

#include "text/map_svg.h"
#include "text/map_layout_p.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distinct on a parchment background and from each other; no grey (the
 * neutrals) and no pale blue (the sea routes). */

#define NEUTRAL_COLOUR PLAYER_COLOUR_NOBODY
#define SEA_COLOUR "#3b7dd8"
#define LAND_COLOUR "#6b5a3e"
#define PROVINCE_RADIUS 14.0
#define MARGIN 70.0
#define TITLE_BAND 34.0     /* above the map: the title */
#define TITLE_SIZE 20.0
#define LEGEND_SIZE 13.0
#define LEGEND_ROW 20.0
#define BATTLE_COLOUR "#a01010"
#define LABEL_SIZE 13.0
#define LABEL_BELOW (PROVINCE_RADIUS + 17) /* a name's baseline below its province */
#define SIEGE_RING (PROVINCE_RADIUS + 10)  /* the besieger's ring round a province */

void map_svg_options_default(struct map_svg_options *o)
{
	o->show_armies = true;
	o->show_sieges = true;
	o->title = NULL;
	o->marks = NULL;
}

/* The width of `s` in Georgia (or the serif that stands in for it) at
 * `size`, generously: the average letter is about half the size, capitals
 * and wide letters more; reckoned at 0.62 em a character so that a legend
 * box drawn this wide holds its text in any usual serif. */
static double text_width(const char *s, double size)
{
	size_t chars = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		if ((*p & 0xc0) != 0x80)
			chars++;
	return (double)chars * size * 0.62;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n;
	unsigned min;
	unsigned cp;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, min = 0x80, cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, min = 0x800, cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, min = 0x10000, cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
	    cp == 0xffff)
		return 0;
	return n;
}

void map_svg_escape(struct strbuf *sb, const char *s)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		switch (*p) {
		case '&': strbuf_puts(sb, "&amp;"); p++; continue;
		case '<': strbuf_puts(sb, "&lt;"); p++; continue;
		case '>': strbuf_puts(sb, "&gt;"); p++; continue;
		case '"': strbuf_puts(sb, "&quot;"); p++; continue;
		case '\'': strbuf_puts(sb, "&#39;"); p++; continue;
		default: break;
		}
		if (*p < 0x20 && *p != '\t' && *p != '\n') {
			strbuf_putc(sb, '?');
			p++;
			continue;
		}
		size_t n = utf8_sequence(p);
		if (n == 0) {
			strbuf_putc(sb, '?');
			p++;
			continue;
		}
		strbuf_append(sb, (const char *)p, n);
		p += n;
	}
}

struct bounds {
	double min_x, min_y, max_x, max_y;
};

static struct bounds map_bounds(const struct campaign *c)
{
	struct bounds b = {0, 0, 400, 300};
	for (size_t i = 0; i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		if (!isfinite(p->x) || !isfinite(p->y))
			continue;
		if (i == 0 || p->x < b.min_x)
			b.min_x = p->x;
		if (i == 0 || p->y < b.min_y)
			b.min_y = p->y;
		if (i == 0 || p->x > b.max_x)
			b.max_x = p->x;
		if (i == 0 || p->y > b.max_y)
			b.max_y = p->y;
	}
	/* Positions are usually pixels of the background image: keep the
	 * origin in view so the image lines up with them. */
	if (b.min_x > 0 && c->background)
		b.min_x = MARGIN;
	if (b.min_y > 0 && c->background)
		b.min_y = MARGIN;
	b.min_x -= MARGIN;
	b.min_y -= MARGIN + TITLE_BAND;
	b.max_x += MARGIN + 60; /* room for army badges on the right */
	b.max_y += MARGIN;
	return b;
}

static double coord(double v)
{
	return isfinite(v) ? v : 0.0;
}

static void routes_svg(struct strbuf *sb, const struct campaign *c)
{
	strbuf_puts(sb, "<g id=\"routes\">\n");
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if (r->a < 0 || r->b < 0 || (size_t)r->a >= c->province_count ||
		    (size_t)r->b >= c->province_count)
			continue;
		const struct province *a = &c->provinces[r->a], *b = &c->provinces[r->b];
		strbuf_printf(sb, "<line class=\"route %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ",
			      r->sea ? "sea" : "land", coord(a->x), coord(a->y), coord(b->x),
			      coord(b->y));
		if (r->sea)
			strbuf_puts(sb, "stroke=\"" SEA_COLOUR "\" stroke-width=\"2.5\" stroke-dasharray=\"9 6\"");
		else
			strbuf_puts(sb, "stroke=\"" LAND_COLOUR "\" stroke-width=\"3\"");
		strbuf_puts(sb, "><title>");
		map_svg_escape(sb, a->name);
		strbuf_puts(sb, r->sea ? " \xe2\x80\x93 " : " \xe2\x80\x94 ");
		map_svg_escape(sb, b->name);
		strbuf_puts(sb, r->sea ? " (by sea)" : "");
		strbuf_puts(sb, "</title></line>\n");
	}
	strbuf_puts(sb, "</g>\n");
}

static const char *player_nation(const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count)
		return "neutral";
	const struct player *p = &c->players[player];
	return p->nation ? p->nation : p->key ? p->key : "?";
}

static void province_svg(struct strbuf *sb, const struct campaign *c, size_t i, double label_dy)
{
	const struct province *p = &c->provinces[i];
	double x = coord(p->x), y = coord(p->y);
	bool owned = p->owner >= 0 && (size_t)p->owner < c->player_count;
	const char *cls = owned ? "owned" : p->inviolate ? "neutral inviolate" : "neutral";
	strbuf_printf(sb, "<g class=\"province %s%s\" id=\"province-%zu\">\n", cls,
		      p->home_of >= 0 ? " home" : "", i);
	strbuf_puts(sb, "<title>");
	map_svg_escape(sb, p->name);
	strbuf_puts(sb, ": ");
	if (owned) {
		map_svg_escape(sb, player_nation(c, p->owner));
	} else {
		strbuf_puts(sb, p->inviolate ? "inviolate neutral" : "neutral");
	}
	if (p->home_of >= 0 && (size_t)p->home_of < c->player_count) {
		strbuf_puts(sb, " (home of ");
		map_svg_escape(sb, player_nation(c, p->home_of));
		strbuf_puts(sb, ")");
	}
	if (p->terrain && *p->terrain) {
		strbuf_puts(sb, "; ");
		map_svg_escape(sb, p->terrain);
	}
	strbuf_puts(sb, "</title>\n");
	if (p->home_of >= 0 && (size_t)p->home_of < c->player_count)
		strbuf_printf(sb, "<circle class=\"home-ring\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
			      x, y, PROVINCE_RADIUS + 5, player_colour(p->home_of));
	if (owned)
		strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"#222222\" stroke-width=\"1.5\"/>\n",
			      x, y, PROVINCE_RADIUS, player_colour(p->owner));
	else if (p->inviolate)
		strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"url(#inviolate)\" stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
			      x, y, PROVINCE_RADIUS);
	else
		strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"" NEUTRAL_COLOUR "\" stroke=\"#555555\" stroke-width=\"1.5\"/>\n",
			      x, y, PROVINCE_RADIUS);
	/* The label twice: a pale halo under the dark text keeps it legible on
	 * any background (paint-order is not SVG 1.1). */
	for (int halo = 1; halo >= 0; halo--) {
		if (!halo)
			strbuf_printf(sb, "<text id=\"label-%zu\"", i);
		else
			strbuf_puts(sb, "<text");
		strbuf_printf(sb, " x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-family=\"Georgia, serif\" font-size=\"13\"%s>",
			      x, y + label_dy,
			      halo ? " fill=\"#fffaf0\" stroke=\"#fffaf0\" stroke-width=\"4\" stroke-linejoin=\"round\""
				   : " fill=\"#1a1a1a\"");
		map_svg_escape(sb, p->name);
		strbuf_puts(sb, "</text>\n");
	}
	strbuf_puts(sb, "</g>\n");
}

/* Crossed swords: a battle this year. `id` is the mark's (or ""), on the
 * ring round the swords (which holds them). */
static void swords_svg(struct strbuf *sb, double cx, double cy, const char *id)
{
	strbuf_printf(sb, "<circle%s cx=\"%.1f\" cy=\"%.1f\" r=\"11\" fill=\"#fffaf0\" stroke=\"" BATTLE_COLOUR "\" stroke-width=\"1.5\"/>"
			  "<path d=\"M%.1f %.1fl12 12M%.1f %.1fl-12 12M%.1f %.1fl4 -4M%.1f %.1fl-4 -4\" stroke=\"" BATTLE_COLOUR "\" stroke-width=\"2.5\" stroke-linecap=\"round\" fill=\"none\"/>",
		      id, cx, cy, cx - 6, cy - 6, cx + 6, cy - 6, cx + 2, cy + 6, cx - 2, cy + 6);
}

/* A small tower: a city besieged. `id` as for swords_svg. */
static void tower_svg(struct strbuf *sb, double x, double y, const char *fill, const char *id)
{
	strbuf_printf(sb, "<path%s d=\"M%.1f %.1fh10v-10h-2v3h-2v-3h-2v3h-2v-3h-2z\" fill=\"%s\"/>", id,
		      x, y, fill);
}

static bool besieged_now(const struct campaign *c, int province)
{
	for (size_t i = 0; i < c->siege_count; i++)
		if (c->sieges[i].province == province)
			return true;
	return false;
}

/* Where everything goes: each province's disc (with its rings) and name,
 * then the marks placed round them as they are drawn, so that no mark
 * covers a name (map_layout). */
struct plan {
	struct map_layout layout;
	size_t *disc;     /* each province's disc: its box number */
	double *radius;   /* its radius, with the rings round it */
	double *label_dy; /* its name's baseline, below its centre */
	size_t marks;     /* marks placed so far (their ids) */
};

static void plan_build(struct plan *pl, const struct campaign *c, const struct map_svg_options *o)
{
	size_t n = c->province_count ? c->province_count : 1;
	map_layout_init(&pl->layout);
	pl->disc = xcalloc(n, sizeof *pl->disc);
	pl->radius = xcalloc(n, sizeof *pl->radius);
	pl->label_dy = xcalloc(n, sizeof *pl->label_dy);
	pl->marks = 0;
	for (size_t i = 0; i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		double x = coord(p->x), y = coord(p->y);
		bool home = p->home_of >= 0 && (size_t)p->home_of < c->player_count;
		bool besieged = o->show_sieges && besieged_now(c, (int)i);
		/* the outer edge of the outermost ring, its stroke included;
		 * a besieged province's name goes below the besieger's ring */
		double r = besieged ? SIEGE_RING + 2 : home ? PROVINCE_RADIUS + 6.25 : PROVINCE_RADIUS + 1;
		pl->radius[i] = r;
		pl->label_dy[i] = besieged ? SIEGE_RING + 16 : LABEL_BELOW;
		pl->disc[i] = map_layout_add(&pl->layout, MAP_BOX_DISC,
					     (struct map_box){x - r, y - r, x + r, y + r});
		/* the name, its halo included: from above the accents of its
		 * capitals to below its descenders */
		double half = text_width(p->name, LABEL_SIZE) / 2 + 2, base = y + pl->label_dy[i];
		map_layout_add(&pl->layout, MAP_BOX_LABEL,
			       (struct map_box){x - half, base - LABEL_SIZE - 2, x + half, base + 6});
	}
}

static void plan_free(struct plan *pl)
{
	map_layout_free(&pl->layout);
	free(pl->disc);
	free(pl->radius);
	free(pl->label_dy);
}

/* Places a w x h mark for province pi, at (px, py) if that is free; a
 * line leads to it from its province when it had to go farther off.
 * Returns the box, and in `id` the attribute naming the mark ("mark-N")
 * for the shape that holds the rest of it. */
static struct map_box mark_place(struct strbuf *sb, struct plan *pl, const struct campaign *c,
				 int pi, double w, double h, double px, double py,
				 enum map_side side, char id[32])
{
	const struct province *p = &c->provinces[pi];
	double x = coord(p->x), y = coord(p->y), r = pl->radius[pi];
	bool far = false;
	struct map_box b = map_layout_place(&pl->layout, pl->disc[pi], x, y, r, w, h, px, py, side,
					    &far);
	if (far) {
		double mx = (b.x0 + b.x1) / 2, my = (b.y0 + b.y1) / 2;
		double dx = mx - x, dy = my - y, d = sqrt(dx * dx + dy * dy);
		/* to the edge of the mark's box nearest the province */
		double ex = x < b.x0 ? b.x0 : x > b.x1 ? b.x1 : x;
		double ey = y < b.y0 ? b.y0 : y > b.y1 ? b.y1 : y;
		if (d > 0)
			strbuf_printf(sb, "<line class=\"leader\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555555\" stroke-width=\"1\"/>",
				      x + dx / d * r, y + dy / d * r, ex, ey);
	}
	snprintf(id, 32, " id=\"mark-%zu\"", pl->marks++);
	return b;
}

static void sieges_svg(struct strbuf *sb, const struct campaign *c, struct plan *pl)
{
	strbuf_puts(sb, "<g id=\"sieges\">\n");
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *s = &c->sieges[i];
		if (s->province < 0 || (size_t)s->province >= c->province_count)
			continue;
		const struct province *p = &c->provinces[s->province];
		double x = coord(p->x), y = coord(p->y);
		strbuf_printf(sb, "<g class=\"siege\"><title>Siege of ");
		map_svg_escape(sb, p->name);
		strbuf_puts(sb, " by ");
		map_svg_escape(sb, player_nation(c, s->besieger));
		strbuf_printf(sb, " (%d failed round%s)</title>", s->rounds_failed,
			      s->rounds_failed == 1 ? "" : "s");
		strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"4\" stroke-dasharray=\"3 3\"/>",
			      x, y, SIEGE_RING, player_colour(s->besieger));
		/* A small black tower above the province: the city holding out. */
		char id[32];
		struct map_box b = mark_place(sb, pl, c, s->province, 10, 10, x - 5,
					      y - PROVINCE_RADIUS - 22, MAP_NORTH, id);
		tower_svg(sb, b.x0, b.y1, "#111111", id);
		strbuf_puts(sb, "</g>\n");
	}
	strbuf_puts(sb, "</g>\n");
}

static void armies_svg(struct strbuf *sb, const struct campaign *c, struct plan *plan)
{
	strbuf_puts(sb, "<g id=\"armies\">\n");
	int *stacked = xcalloc(c->province_count ? c->province_count : 1, sizeof *stacked);
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *pl = &c->players[i];
		if (pl->status != PLAYER_ACTIVE || pl->location < 0 ||
		    (size_t)pl->location >= c->province_count || !pl->field.count)
			continue;
		const struct province *p = &c->provinces[pl->location];
		int slot = stacked[pl->location]++;
		double x = coord(p->x) + PROVINCE_RADIUS + 6, y = coord(p->y) - 22 + slot * 20;
		char ap[16];
		half_ap_format(player_field_half_ap(pl), ap);
		double width = 14 + 7.5 * (double)strlen(ap);
		strbuf_puts(sb, "<g class=\"army\"><title>");
		map_svg_escape(sb, player_nation(c, (int)i));
		strbuf_printf(sb, "'s field army: %s AP</title>", ap);
		/* the badge's box, its edge's stroke included */
		char id[32];
		struct map_box b = mark_place(sb, plan, c, pl->location, width + 1, 18, x - 0.5,
					      y - 0.5, MAP_EAST, id);
		x = b.x0 + 0.5;
		y = b.y0 + 0.5;
		strbuf_printf(sb, "<rect%s x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"17\" rx=\"4\" fill=\"%s\" stroke=\"#111111\" stroke-width=\"1\"/>",
			      id, x, y, width, player_colour((int)i));
		strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" font-weight=\"bold\" fill=\"#ffffff\">%s</text></g>\n",
			      x + 7, y + 13, ap);
	}
	free(stacked);
	strbuf_puts(sb, "</g>\n");
}

/* The province a mark names, or -1. */
static int mark_province(const struct campaign *c, const json_t *mark)
{
	const char *name = json_string_value(json_object_get(mark, "province"));
	if (!name)
		return -1;
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].name && strcmp(c->provinces[i].name, name) == 0)
			return (int)i;
	return -1;
}

static bool mark_is(const json_t *mark, const char *kind)
{
	const char *k = json_string_value(json_object_get(mark, "kind"));
	return k && strcmp(k, kind) == 0;
}

static void marks_svg(struct strbuf *sb, const struct campaign *c, const json_t *marks,
		      struct plan *pl)
{
	strbuf_puts(sb, "<g id=\"marks\">\n");
	size_t i;
	json_t *m;
	json_array_foreach((json_t *)marks, i, m) {
		int pi = mark_province(c, m);
		bool battle = mark_is(m, "battle");
		if (pi < 0 || (!battle && !mark_is(m, "siege")))
			continue;
		/* the siege under way is drawn by sieges_svg already */
		if (!battle && besieged_now(c, pi))
			continue;
		const struct province *p = &c->provinces[pi];
		double x = coord(p->x), y = coord(p->y);
		strbuf_printf(sb, "<g class=\"mark %s\"><title>", battle ? "battle" : "siege");
		const char *title = json_string_value(json_object_get(m, "title"));
		map_svg_escape(sb, title ? title : p->name);
		strbuf_puts(sb, "</title>");
		/* the swords' ring (radius 11) with its edge; the tower */
		char id[32];
		if (battle) {
			struct map_box b = mark_place(sb, pl, c, pi, 24, 24, x - PROVINCE_RADIUS - 20,
						      y - PROVINCE_RADIUS - 18, MAP_NORTH_WEST, id);
			swords_svg(sb, b.x0 + 12, b.y0 + 12, id);
		} else {
			struct map_box b = mark_place(sb, pl, c, pi, 10, 10, x - 5,
						      y - PROVINCE_RADIUS - 22, MAP_NORTH, id);
			tower_svg(sb, b.x0, b.y1, "#6b6b6b", id);
		}
		strbuf_puts(sb, "</g>\n");
	}
	strbuf_puts(sb, "</g>\n");
}

/* The legend's lines, so that its box can be sized before it is drawn. */
enum legend_symbol {
	SYM_PLAYER,
	SYM_NEUTRAL,
	SYM_INVIOLATE,
	SYM_HOME,
	SYM_SEA,
	SYM_BATTLE,
	SYM_SIEGE
};

struct legend_row {
	enum legend_symbol symbol;
	int player;
	char *text;
};

struct legend {
	struct legend_row *rows;
	size_t count, cap;
	double width, height;
};

static void legend_add(struct legend *l, enum legend_symbol symbol, int player, char *text)
{
	grow_array((void **)&l->rows, &l->cap, l->count + 1, sizeof *l->rows);
	l->rows[l->count++] = (struct legend_row){symbol, player, text};
	double w = 40 + text_width(text, LEGEND_SIZE);
	if (w > l->width)
		l->width = w;
}

static void legend_build(struct legend *l, const struct campaign *c, const json_t *marks)
{
	memset(l, 0, sizeof *l);
	l->width = 180;
	for (size_t i = 0; i < c->player_count; i++) {
		const char *state = c->players[i].status == PLAYER_OUT    ? " (out)"
				    : c->players[i].status == PLAYER_LEFT ? " (left)"
				    : c->players[i].status == PLAYER_JOINING ? " (joining)"
									  : "";
		legend_add(l, SYM_PLAYER, (int)i,
			   xasprintf("%s%s", player_nation(c, (int)i), state));
	}
	legend_add(l, SYM_NEUTRAL, -1, xstrdup("neutral"));
	legend_add(l, SYM_INVIOLATE, -1, xstrdup("inviolate neutral"));
	legend_add(l, SYM_HOME, -1, xstrdup("ringed: home province"));
	for (size_t i = 0; i < c->route_count; i++)
		if (c->routes[i].sea) {
			legend_add(l, SYM_SEA, -1, xstrdup("sea route"));
			break;
		}
	bool battles = false, sieges = c->siege_count > 0;
	json_int_t year = 0;
	size_t i;
	json_t *m;
	json_array_foreach((json_t *)marks, i, m) {
		if (mark_province(c, m) < 0)
			continue;
		if (mark_is(m, "battle") && !battles)
			year = json_integer_value(json_object_get(m, "year"));
		battles = battles || mark_is(m, "battle");
		sieges = sieges || mark_is(m, "siege");
	}
	if (battles && year)
		legend_add(l, SYM_BATTLE, -1, xasprintf("battle in %lld", (long long)year));
	else if (battles)
		legend_add(l, SYM_BATTLE, -1, xstrdup("battle this year"));
	if (sieges)
		legend_add(l, SYM_SIEGE, -1, xstrdup("siege (dashed ring: the besieger)"));
	l->height = 10 + LEGEND_ROW * (double)l->count;
}

static void legend_free(struct legend *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->rows[i].text);
	free(l->rows);
}

static void legend_svg(struct strbuf *sb, const struct legend *l, const struct bounds *b)
{
	double x = b->min_x + 10, y = b->max_y + 10;
	strbuf_printf(sb, "<g id=\"legend\" font-family=\"Georgia, serif\" font-size=\"%.0f\">\n"
			  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fffaf0\" stroke=\"#6b5a3e\" opacity=\"0.9\"/>\n",
		      LEGEND_SIZE, x, y, l->width, l->height);
	for (size_t i = 0; i < l->count; i++) {
		const struct legend_row *r = &l->rows[i];
		double cx = x + 15, ly = y + 15 + LEGEND_ROW * (double)i;
		switch (r->symbol) {
		case SYM_PLAYER:
			strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"%s\" stroke=\"#222222\"/>",
				      cx, ly, player_colour(r->player));
			break;
		case SYM_NEUTRAL:
			strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"" NEUTRAL_COLOUR "\" stroke=\"#555555\"/>",
				      cx, ly);
			break;
		case SYM_INVIOLATE:
			strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"url(#inviolate)\" stroke=\"#555555\" stroke-dasharray=\"3 2\"/>",
				      cx, ly);
			break;
		case SYM_HOME:
			strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"" NEUTRAL_COLOUR "\" stroke=\"#555555\"/>"
					  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#222222\" stroke-width=\"2\"/>",
				      cx, ly, cx, ly);
			break;
		case SYM_SEA:
			strbuf_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" SEA_COLOUR "\" stroke-width=\"2.5\" stroke-dasharray=\"9 6\"/>",
				      cx - 11, ly, cx + 11, ly);
			break;
		case SYM_BATTLE:
			swords_svg(sb, cx, ly, "");
			break;
		case SYM_SIEGE:
			strbuf_printf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#222222\" stroke-width=\"2\" stroke-dasharray=\"3 3\"/>",
				      cx, ly);
			tower_svg(sb, cx - 5, ly + 4, "#111111", "");
			break;
		}
		strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\">", x + 30, ly + 4);
		map_svg_escape(sb, r->text);
		strbuf_puts(sb, "</text>\n");
	}
	strbuf_puts(sb, "</g>\n");
}

char *map_svg(const struct campaign *c, const struct map_svg_options *o)
{
	struct map_svg_options defaults;
	if (!o) {
		map_svg_options_default(&defaults);
		o = &defaults;
	}
	/* The map itself first: where its marks go decides its bounds. */
	struct plan plan;
	plan_build(&plan, c, o);
	struct strbuf body = {0};
	routes_svg(&body, c);
	strbuf_puts(&body, "<g id=\"provinces\">\n");
	for (size_t i = 0; i < c->province_count; i++)
		province_svg(&body, c, i, plan.label_dy[i]);
	strbuf_puts(&body, "</g>\n");
	if (o->show_sieges)
		sieges_svg(&body, c, &plan);
	if (o->marks)
		marks_svg(&body, c, o->marks, &plan);
	if (o->show_armies)
		armies_svg(&body, c, &plan);
	struct bounds b = map_bounds(c);
	if (plan.layout.any) {
		const struct map_box *e = &plan.layout.extent;
		if (e->x0 - 10 < b.min_x)
			b.min_x = e->x0 - 10;
		if (e->y0 - 10 - TITLE_BAND < b.min_y)
			b.min_y = e->y0 - 10 - TITLE_BAND;
		if (e->x1 + 10 > b.max_x)
			b.max_x = e->x1 + 10;
		if (e->y1 + 10 > b.max_y)
			b.max_y = e->y1 + 10;
	}
	plan_free(&plan);
	struct legend legend;
	legend_build(&legend, c, o->marks);
	char *title = o->title ? xstrdup(o->title)
			       : xasprintf("%s, year %d", c->name ? c->name : "Campaign", c->year);
	/* The title and the legend are never cut off: the map widens for them. */
	double need = 20 + text_width(title, TITLE_SIZE);
	if (legend.width + 20 > need)
		need = legend.width + 20;
	if (b.max_x - b.min_x < need)
		b.max_x = b.min_x + need;
	double width = b.max_x - b.min_x, height = b.max_y - b.min_y + legend.height + 20;
	struct strbuf sb = {0};
	strbuf_printf(&sb,
		      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" "
		      "width=\"%.0f\" height=\"%.0f\" viewBox=\"%.1f %.1f %.1f %.1f\">\n",
		      width, height, b.min_x, b.min_y, width, height);
	strbuf_puts(&sb, "<title>");
	map_svg_escape(&sb, title);
	strbuf_puts(&sb, "</title>\n<defs>\n"
			 "<pattern id=\"inviolate\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
			 "<rect width=\"6\" height=\"6\" fill=\"#e6e6e6\"/>"
			 "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8a8a8a\" stroke-width=\"3\"/></pattern>\n"
			 "</defs>\n");
	strbuf_printf(&sb, "<rect id=\"parchment\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f4ecd8\"/>\n",
		      b.min_x, b.min_y, width, height);
	if (c->background && *c->background) {
		strbuf_printf(&sb, "<image id=\"background\" x=\"0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" preserveAspectRatio=\"xMinYMin meet\" xlink:href=\"",
			      b.max_x, b.max_y);
		map_svg_escape(&sb, c->background);
		strbuf_puts(&sb, "\"/>\n");
	}
	strbuf_printf(&sb, "<text id=\"map-title\" x=\"%.1f\" y=\"%.1f\" font-family=\"Georgia, serif\" font-size=\"%.0f\" fill=\"#5a1a1a\">",
		      b.min_x + 10, b.min_y + 26, TITLE_SIZE);
	map_svg_escape(&sb, title);
	strbuf_puts(&sb, "</text>\n");
	strbuf_append(&sb, body.data ? body.data : "", body.len);
	strbuf_free(&body);
	legend_svg(&sb, &legend, &b);
	strbuf_puts(&sb, "</svg>\n");
	legend_free(&legend);
	free(title);
	return strbuf_take(&sb);
}

#define CHART_TITLE_SIZE 16.0
#define CHART_LEGEND_ROW 22.0
#define CHART_TIE_GAP 4.0 /* between lines of the same value */

/* Players with the same total in a year would draw one line over
 * another: each is moved a few units up or down (the first player of the
 * tie highest), so that every line shows, the tie centred on its value. */
static double tied_offset(const json_t *players, size_t player, size_t year)
{
	json_int_t mine = json_integer_value(
		json_array_get(json_object_get(json_array_get(players, player), "totals"), year));
	size_t before = 0, tied = 0, i;
	json_t *pl;
	json_array_foreach((json_t *)players, i, pl) {
		json_int_t v = json_integer_value(json_array_get(json_object_get(pl, "totals"), year));
		if (v != mine)
			continue;
		tied++;
		before += i < player;
	}
	return ((double)before - (double)(tied - 1) / 2) * CHART_TIE_GAP;
}

char *map_svg_prestige_chart(const json_t *history, const char *title)
{
	const json_t *years = json_object_get(history, "years");
	const json_t *players = json_object_get(history, "players");
	size_t ny = json_array_size(years);
	long long top = 10;
	size_t i, k;
	json_t *pl, *v;
	json_array_foreach((json_t *)players, i, pl)
		json_array_foreach(json_object_get(pl, "totals"), k, v)
			if (json_integer_value(v) > top && json_integer_value(v) < 1000000000000LL)
				top = (long long)json_integer_value(v);
	/* Round ticks: a step of 1, 2 or 5 times a power of ten giving at most
	 * eight intervals, and the axis topped at a whole number of steps. */
	long long tick = 1;
	for (long long pow10 = 1; tick * 8 < top; pow10 *= 10) {
		if (pow10 > 100000000000LL)
			break;
		tick = pow10;
		if (tick * 8 >= top)
			break;
		tick = 2 * pow10;
		if (tick * 8 >= top)
			break;
		tick = 5 * pow10;
	}
	top = (top + tick - 1) / tick * tick;
	int ticks = (int)(top / tick);
	/* The legend is as wide as its longest line. */
	double legend_w = 120;
	json_array_foreach((json_t *)players, i, pl) {
		const json_t *totals = json_object_get(pl, "totals");
		char *line = xasprintf(
			"%s (%lld)",
			json_string_value(json_object_get(json_object_get(pl, "player"), "nation")),
			(long long)json_integer_value(json_array_get(totals, json_array_size(totals) - 1)));
		double w = text_width(line, 13);
		if (w > legend_w)
			legend_w = w;
		free(line);
	}
	const double left = 60, upper = 40, lower = 50, plot_w = 560, plot_h = 300;
	const double right = 40 + 20 + legend_w;
	double width = left + plot_w + right, height = upper + plot_h + lower;
	/* The title above the plot and the legend beside it stay inside. */
	const char *heading = title ? title : "Prestige";
	if (width < 20 + text_width(heading, CHART_TITLE_SIZE))
		width = 20 + text_width(heading, CHART_TITLE_SIZE);
	double legend_end = upper + 10 + CHART_LEGEND_ROW * (double)json_array_size(players);
	if (height < legend_end + 10)
		height = legend_end + 10;
	double step = ny > 1 ? plot_w / (double)(ny - 1) : 0;
	/* A year's label every so many years, so that they do not run into
	 * one another on a long campaign. */
	size_t every = 1;
	while (step * (double)every < 44 && every < ny)
		every++;
	struct strbuf sb = {0};
	strbuf_printf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"Georgia, serif\" font-size=\"13\">\n<title>",
		      width, height, width, height);
	map_svg_escape(&sb, heading);
	strbuf_printf(&sb, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fffaf0\"/>\n",
		      width, height);
	strbuf_printf(&sb, "<text id=\"chart-title\" x=\"10\" y=\"22\" font-size=\"%.0f\" fill=\"#5a1a1a\">",
		      CHART_TITLE_SIZE);
	map_svg_escape(&sb, heading);
	strbuf_puts(&sb, "</text>\n");
	/* Axes and a grid line at every tick. */
	for (int g = 0; g <= ticks; g++) {
		double y = upper + plot_h - plot_h * g / (double)ticks;
		strbuf_printf(&sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>"
				   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%lld</text>\n",
			      left, y, left + plot_w, y, g == 0 ? "#333333" : "#e0d8c0", left - 8, y + 4,
			      tick * g);
	}
	json_array_foreach((json_t *)years, k, v) {
		if (k % every && k + 1 != ny)
			continue;
		if (k + 1 == ny && k % every && (double)(k % every) * step < 44)
			continue; /* the last year too close to the one labelled before */
		double x = left + step * (double)k;
		strbuf_printf(&sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>\n",
			      x, upper + plot_h + 20, (long long)json_integer_value(v));
	}
	json_array_foreach((json_t *)players, i, pl) {
		const json_t *ref = json_object_get(pl, "player");
		const char *colour = json_string_value(json_object_get(ref, "colour"));
		if (!colour || colour[0] != '#' || strlen(colour) != 7)
			colour = NEUTRAL_COLOUR;
		const char *nation = json_string_value(json_object_get(ref, "nation"));
		strbuf_puts(&sb, "<g class=\"player\"><title>");
		map_svg_escape(&sb, nation);
		strbuf_puts(&sb, "</title>");
		const json_t *totals = json_object_get(pl, "totals");
		if (ny > 1) {
			strbuf_printf(&sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"3\" points=\"", colour);
			json_array_foreach((json_t *)totals, k, v)
				strbuf_printf(&sb, "%s%.1f,%.1f", k ? " " : "", left + step * (double)k,
					      upper + plot_h - plot_h * (double)json_integer_value(v) / top +
						      tied_offset(players, i, k));
			strbuf_puts(&sb, "\"/>");
		}
		json_array_foreach((json_t *)totals, k, v)
			strbuf_printf(&sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>",
				      left + (ny > 1 ? step * (double)k : plot_w / 2),
				      upper + plot_h - plot_h * (double)json_integer_value(v) / top +
					      tied_offset(players, i, k),
				      colour);
		double ly = upper + 10 + CHART_LEGEND_ROW * (double)i;
		strbuf_printf(&sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
			      left + plot_w + 20, ly - 11, colour, left + plot_w + 40, ly);
		map_svg_escape(&sb, nation);
		strbuf_printf(&sb, " (%lld)</text></g>\n",
			      (long long)json_integer_value(json_array_get(totals, json_array_size(totals) - 1)));
	}
	strbuf_puts(&sb, "</svg>\n");
	return strbuf_take(&sb);
}
