/* No mark on the map covers a province's name: the army badges, the towers
 * of sieges under way and over, and the crossed swords of battles are
 * measured where librsvg really draws them (the ink of each "mark-N" and of
 * each name "label-N", with the fonts of this machine), on the example
 * campaign at its busiest and on a crowded map where most marks cannot stay
 * in their usual place. Also: a besieged province's name clears the
 * besieger's ring, and a mark sent far off gets a line to its province.
 * MAP_LAYOUT_SHOW=DIR keeps both maps there (example.svg, crowded.svg) for
 * a person to look at. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <librsvg/rsvg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign_fixture.h"
#include "lib/rules_fixture.h"
#include "text/map_svg.h"

struct ink {
	double x0, y0, x1, y1;
};

static bool ink_overlap(const struct ink *a, const struct ink *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

struct drawn {
	struct ink *labels, *marks;
	size_t label_count, mark_count;
};

/* The ink of element `id` as librsvg draws it; false if there is none. */
static bool ink_of(RsvgHandle *h, const RsvgRectangle *viewport, const char *id, struct ink *out)
{
	if (!rsvg_handle_has_sub(h, id))
		return false;
	RsvgRectangle ink, logical;
	GError *err = NULL;
	if (!rsvg_handle_get_geometry_for_layer(h, id, viewport, &ink, &logical, &err)) {
		fail_msg("%s: %s", id, err ? err->message : "no geometry");
		return false;
	}
	*out = (struct ink){ink.x, ink.y, ink.x + ink.width, ink.y + ink.height};
	return ink.width > 0 && ink.height > 0;
}

static void measure(const char *svg, size_t provinces, struct drawn *d)
{
	GError *err = NULL;
	RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, strlen(svg), &err);
	assert_non_null(h);
	gdouble w = 0, ht = 0;
	assert_true(rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &ht));
	RsvgRectangle viewport = {0, 0, w, ht};
	d->labels = calloc(provinces, sizeof *d->labels);
	d->label_count = provinces;
	char id[32];
	for (size_t i = 0; i < provinces; i++) {
		snprintf(id, sizeof id, "#label-%zu", i);
		assert_true(ink_of(h, &viewport, id, &d->labels[i]));
	}
	d->marks = NULL;
	d->mark_count = 0;
	for (;;) {
		struct ink m;
		snprintf(id, sizeof id, "#mark-%zu", d->mark_count);
		if (!ink_of(h, &viewport, id, &m))
			break;
		d->marks = realloc(d->marks, (d->mark_count + 1) * sizeof *d->marks);
		d->marks[d->mark_count++] = m;
	}
	g_object_unref(h);
}

/* Every pair of a mark and a name that overlap, printed; their count. */
static size_t covered_labels(const struct drawn *d)
{
	size_t n = 0;
	for (size_t m = 0; m < d->mark_count; m++)
		for (size_t l = 0; l < d->label_count; l++)
			if (ink_overlap(&d->marks[m], &d->labels[l])) {
				print_message("mark-%zu (%.1f,%.1f)-(%.1f,%.1f) covers label-%zu (%.1f,%.1f)-(%.1f,%.1f)\n",
					      m, d->marks[m].x0, d->marks[m].y0, d->marks[m].x1,
					      d->marks[m].y1, l, d->labels[l].x0, d->labels[l].y0,
					      d->labels[l].x1, d->labels[l].y1);
				n++;
			}
	return n;
}

static size_t overlapping_marks(const struct drawn *d)
{
	size_t n = 0;
	for (size_t a = 0; a < d->mark_count; a++)
		for (size_t b = a + 1; b < d->mark_count; b++)
			n += ink_overlap(&d->marks[a], &d->marks[b]);
	return n;
}

static void drawn_free(struct drawn *d)
{
	free(d->labels);
	free(d->marks);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void show(const char *svg, const char *name)
{
	const char *dir = getenv("MAP_LAYOUT_SHOW");
	if (!dir || !*dir)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(svg, f);
	fclose(f);
}

static void add_siege(struct campaign *c, int province, int besieger)
{
	c->sieges = realloc(c->sieges, (c->siege_count + 1) * sizeof *c->sieges);
	c->sieges[c->siege_count++] = (struct siege){province, besieger, 1, c->year};
	c->siege_cap = c->siege_count;
}

/* The checker sees what it is there to see. */
static void test_checker(void **state)
{
	(void)state;
	struct ink a = {0, 0, 10, 10}, b = {9, 9, 20, 20}, c = {10, 0, 20, 10};
	assert_true(ink_overlap(&a, &b));
	assert_false(ink_overlap(&a, &c)); /* touching is not covering */
	struct drawn d = {&a, &b, 1, 1};
	assert_int_equal(covered_labels(&d), 1);
}

/* Europe 1450 at its busiest: Liège, Lorraine and Poitou besieged, battles
 * at Poitou, Champagne and Normandy, a siege over at Île-de-France, every
 * field army in the middle of the map. Before the marks were placed, the
 * tower of Lorraine's siege sat on "Liège" and Burgundy's badge at
 * Champagne on it too. */
static void test_example(void **state)
{
	(void)state;
	struct campaign *c = test_campaign_load("contrib/examples/europe1450.campaign");
	free(c->background);
	c->background = NULL;
	static const char *const at[] = {"Champagne", "Kent", "Lorraine", "Franconia"};
	for (size_t i = 0; i < c->player_count && i < 4; i++)
		c->players[i].location = campaign_find_province(c, at[i]);
	add_siege(c, campaign_find_province(c, "Liège"), 2);
	add_siege(c, campaign_find_province(c, "Lorraine"), 2);
	add_siege(c, campaign_find_province(c, "Poitou"), 0);
	json_t *marks = json_pack("[{s:s, s:s, s:i}, {s:s, s:s, s:i}, {s:s, s:s, s:i},"
				  " {s:s, s:s, s:i}, {s:s, s:s, s:i}]",
				  "province", "Poitou", "kind", "battle", "year", 1450,
				  "province", "Champagne", "kind", "battle", "year", 1450,
				  "province", "Normandy", "kind", "battle", "year", 1450,
				  "province", "Île-de-France", "kind", "siege", "year", 1450,
				  "province", "Liège", "kind", "battle", "year", 1450);
	struct map_svg_options mo;
	map_svg_options_default(&mo);
	mo.marks = marks;
	char *svg = map_svg(c, &mo);
	show(svg, "example.svg");
	struct drawn d;
	measure(svg, c->province_count, &d);
	/* 4 badges, 3 towers under way, 4 swords, 1 tower of a siege over */
	assert_int_equal(d.mark_count, 12);
	assert_int_equal(covered_labels(&d), 0);
	assert_int_equal(overlapping_marks(&d), 0);
	/* here there is room: every mark stays beside its province */
	assert_int_equal(count(svg, "class=\"leader\""), 0);
	/* the names are where they were drawn: under their provinces */
	int lorraine = campaign_find_province(c, "Lorraine");
	const struct ink *l = &d.labels[lorraine];
	double min_x = strtod(strstr(svg, "viewBox=\"") + 9, NULL);
	double mid = (l->x0 + l->x1) / 2 + min_x;
	assert_true(mid > c->provinces[lorraine].x - 3 && mid < c->provinces[lorraine].x + 3);
	drawn_free(&d);
	free(svg);
	json_decref(marks);
	campaign_free(c);
}

/* A crowded map: 36 provinces with long names 80 units apart, every one
 * besieged or fought over or both, armies stacked four to a province. */
static void test_crowded(void **state)
{
	(void)state;
	struct campaign *c = fx_campaign();
	json_t *marks = json_array();
	char name[64];
	for (int i = 0; i < 36; i++) {
		snprintf(name, sizeof name, "Marquisate of Wide Names %d", i);
		int p = fx_province(c, name, i % 3 == 0 ? NO_INDEX : i % 4, i % 5 == 0);
		c->provinces[p].x = 100 + 80 * (i % 6);
		c->provinces[p].y = 100 + 80 * (i / 6);
		if (i % 6)
			fx_route(c, p - 1, p, i % 2 == 0);
		if (i % 2 == 0 || i % 3 == 0)
			json_array_append_new(marks, json_pack("{s:s, s:s, s:i}", "province", name,
							       "kind", "battle", "year", 1450));
		if (i % 3 == 1)
			json_array_append_new(marks, json_pack("{s:s, s:s, s:i}", "province", name,
							       "kind", "siege", "year", 1450));
	}
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof name, "player%d", i);
		fx_player(c, name, (i % 3) * 7 + 7);
	}
	for (int i = 0; i < 36; i += 2)
		add_siege(c, i, i % 4);
	struct map_svg_options mo;
	map_svg_options_default(&mo);
	mo.marks = marks;
	char *svg = map_svg(c, &mo);
	show(svg, "crowded.svg");
	struct drawn d;
	measure(svg, c->province_count, &d);
	/* 12 badges, 18 towers under way, 24 swords, 6 towers of sieges over
	 * (the siege marks at besieged provinces are the towers under way) */
	assert_int_equal(d.mark_count, 12 + 18 + 24 + 6);
	assert_int_equal(covered_labels(&d), 0);
	/* some had to go farther off, with a line to their province */
	assert_true(count(svg, "class=\"leader\"") > 0);
	/* and everything is inside the map */
	double w = strtod(strstr(svg, " width=\"") + 8, NULL);
	double h = strtod(strstr(svg, " height=\"") + 9, NULL);
	for (size_t i = 0; i < d.mark_count; i++)
		assert_true(d.marks[i].x0 >= 0 && d.marks[i].y0 >= 0 && d.marks[i].x1 <= w &&
			    d.marks[i].y1 <= h);
	drawn_free(&d);
	free(svg);
	json_decref(marks);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_crowded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
