/* The map as PNG: the example campaign's real map rendered by librsvg, read
 * back with cairo and looked at: the PNG signature, the size the SVG gives,
 * the parchment, a province in its owner's colour, the battle mark, the
 * legend's text inside its box even for a long nation name; the prestige
 * chart's tied lines and title as drawn; and what is not
 * SVG refused with a reason. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign_fixture.h"
#include "text/map_png.h"
#include "text/map_svg.h"

struct png_reader {
	const unsigned char *data;
	size_t len, pos;
};

static cairo_status_t read_png(void *closure, unsigned char *out, unsigned int length)
{
	struct png_reader *r = closure;
	if (r->len - r->pos < length)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(out, r->data + r->pos, length);
	r->pos += length;
	return CAIRO_STATUS_SUCCESS;
}

struct image {
	cairo_surface_t *surface;
	int width, height, stride;
	const unsigned char *pixels;
};

static void decode(const unsigned char *png, size_t len, struct image *img)
{
	struct png_reader r = {png, len, 0};
	img->surface = cairo_image_surface_create_from_png_stream(read_png, &r);
	assert_int_equal(cairo_surface_status(img->surface), CAIRO_STATUS_SUCCESS);
	cairo_surface_flush(img->surface);
	img->width = cairo_image_surface_get_width(img->surface);
	img->height = cairo_image_surface_get_height(img->surface);
	img->stride = cairo_image_surface_get_stride(img->surface);
	img->pixels = cairo_image_surface_get_data(img->surface);
}

/* The pixel at (x, y) as 0xRRGGBB (the surface is opaque). */
static unsigned pixel(const struct image *img, int x, int y)
{
	assert_true(x >= 0 && y >= 0 && x < img->width && y < img->height);
	uint32_t v;
	memcpy(&v, img->pixels + (size_t)y * (size_t)img->stride + (size_t)x * 4, 4);
	return v & 0xffffff;
}

static unsigned hex_colour(const char *s)
{
	return (unsigned)strtoul(s + 1, NULL, 16);
}

static bool near(unsigned a, unsigned b)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int d = (int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff);
		if (d < -12 || d > 12)
			return false;
	}
	return true;
}

static double attr_after(const char *doc, const char *anchor, const char *attr)
{
	const char *p = strstr(doc, anchor);
	assert_non_null(p);
	p = strstr(p, attr);
	assert_non_null(p);
	return strtod(p + strlen(attr), NULL);
}

static void test_europe_map(void **state)
{
	(void)state;
	struct campaign *c = test_campaign_load("contrib/examples/europe1450.campaign");
	free(c->background); /* not in the source tree's folder anyway */
	c->background = NULL;
	json_t *marks = json_pack("[{s:s, s:s, s:s, s:i}]", "province", "Normandy", "kind", "battle",
				  "title", "Battle at Normandy", "year", 1450);
	struct map_svg_options mo;
	map_svg_options_default(&mo);
	mo.marks = marks;
	char *svg = map_svg(c, &mo);
	unsigned char *png = NULL;
	size_t len = 0;
	char *err = NULL;
	assert_int_equal(map_png(svg, strlen(svg), 1.0, &png, &len, &err), 0);
	assert_null(err);
	assert_true(len > 1000);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);

	struct image img;
	decode(png, len, &img);
	double w = attr_after(svg, "<svg ", "width=\""), h = attr_after(svg, "<svg ", "height=\"");
	double min_x = attr_after(svg, "<svg ", "viewBox=\"");
	const char *vb = strstr(svg, "viewBox=\"");
	double min_y = strtod(strchr(vb + 9, ' ') + 1, NULL);
	assert_int_equal(img.width, (int)ceil(w));
	assert_int_equal(img.height, (int)ceil(h));

	/* the parchment in the top right corner */
	assert_true(near(pixel(&img, img.width - 3, 3), 0xf4ecd8));
	/* London, England's, in England's colour, a little off its centre */
	int london = campaign_find_province(c, "London");
	assert_true(london >= 0);
	const struct province *p = &c->provinces[london];
	assert_true(p->owner >= 0);
	unsigned want = hex_colour(player_colour(p->owner));
	unsigned got = pixel(&img, (int)(p->x - min_x) + 4, (int)(p->y - min_y) + 4);
	if (!near(got, want))
		fail_msg("London is #%06x, want #%06x", got, want);
	/* the crossed swords over Normandy: their middle is the battle red */
	int normandy = campaign_find_province(c, "Normandy");
	p = &c->provinces[normandy];
	got = pixel(&img, (int)lround(p->x - 14 - 8 - min_x), (int)lround(p->y - 14 - 6 - min_y));
	if (!near(got, 0xa01010))
		fail_msg("the battle mark is #%06x", got);

	cairo_surface_destroy(img.surface);
	free(png);
	free(svg);
	json_decref(marks);
	campaign_free(c);
}

/* The legend's text stays inside its box: no dark pixel right of the box
 * in the legend's rows, with a nation's name far longer than usual. */
static void test_legend_holds_long_names(void **state)
{
	(void)state;
	struct campaign *c = test_campaign_load("contrib/examples/europe1450.campaign");
	free(c->background);
	c->background = NULL;
	free(c->players[0].nation);
	c->players[0].nation = strdup("The Most Serene and Very Widely Extended Realm of WWWWWW");
	char *svg = map_svg(c, NULL);
	unsigned char *png = NULL;
	size_t len = 0;
	char *err = NULL;
	assert_int_equal(map_png(svg, strlen(svg), 1.0, &png, &len, &err), 0);
	struct image img;
	decode(png, len, &img);
	double min_x = attr_after(svg, "<svg ", "viewBox=\"");
	const char *vb = strstr(svg, "viewBox=\"");
	double min_y = strtod(strchr(vb + 9, ' ') + 1, NULL);
	double bx = attr_after(svg, "<g id=\"legend\"", "<rect x=\"") - min_x;
	double by = attr_after(svg, "<g id=\"legend\"", " y=\"") - min_y;
	double bw = attr_after(svg, "<g id=\"legend\"", "width=\"");
	double bh = attr_after(svg, "<g id=\"legend\"", "height=\"");
	assert_true(bx + bw <= img.width);
	int dark_inside = 0;
	for (int y = (int)by + 1; y < (int)(by + bh) - 1 && y < img.height; y++) {
		for (int x = (int)(bx + bw) + 2; x < img.width; x++) {
			unsigned v = pixel(&img, x, y);
			if (((v >> 16) & 0xff) < 100 && ((v >> 8) & 0xff) < 100 && (v & 0xff) < 100)
				fail_msg("dark pixel at (%d, %d) right of the legend box", x, y);
		}
		for (int x = (int)bx + 30; x < (int)(bx + bw); x++) {
			unsigned v = pixel(&img, x, y);
			dark_inside += ((v >> 16) & 0xff) < 100 && ((v >> 8) & 0xff) < 100;
		}
	}
	assert_true(dark_inside > 100); /* the text was drawn, inside */
	cairo_surface_destroy(img.surface);
	free(png);
	free(svg);
	campaign_free(c);
}

/* The prestige chart as rendered: three players with the same prestige
 * every year all show (each colour is in the column halfway along), and its
 * title is drawn above the plot. */
static void test_chart_ties_show(void **state)
{
	(void)state;
	json_t *h = json_pack("{s:[i,i], s:[{s:{s:s,s:s}, s:[i,i]}, {s:{s:s,s:s}, s:[i,i]},"
			      " {s:{s:s,s:s}, s:[i,i]}]}",
			      "years", 1450, 1451, "players",
			      "player", "nation", "Red", "colour", "#cc0000", "totals", 20, 40,
			      "player", "nation", "Green", "colour", "#00aa00", "totals", 20, 40,
			      "player", "nation", "Blue", "colour", "#0000cc", "totals", 20, 40);
	char *svg = map_svg_prestige_chart(h, "Prestige in Italia");
	unsigned char *png = NULL;
	size_t len = 0;
	char *err = NULL;
	assert_int_equal(map_png(svg, strlen(svg), 1.0, &png, &len, &err), 0);
	struct image img;
	decode(png, len, &img);
	static const unsigned colours[] = {0xcc0000, 0x00aa00, 0x0000cc};
	for (size_t i = 0; i < 3; i++) {
		int seen = 0;
		for (int y = 40; y < 340; y++)
			seen += near(pixel(&img, 340, y), colours[i]);
		if (!seen)
			fail_msg("the line of #%06x is hidden", colours[i]);
	}
	int dark = 0; /* the title's letters, above the highest grid line */
	for (int y = 5; y < 30; y++)
		for (int x = 10; x < 150; x++)
			dark += (pixel(&img, x, y) & 0xff) < 120;
	assert_true(dark > 50);
	cairo_surface_destroy(img.surface);
	free(png);
	free(svg);
	json_decref(h);
}

static void test_not_svg(void **state)
{
	(void)state;
	unsigned char *png = (unsigned char *)"x";
	size_t len = 1;
	char *err = NULL;
	assert_int_equal(map_png("hello, world", 12, 1.0, &png, &len, &err), -1);
	assert_null(png);
	assert_int_equal(len, 0);
	assert_non_null(err);
	assert_non_null(strstr(err, "not SVG"));
	free(err);
	err = NULL;
	const char *empty = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
	assert_int_equal(map_png(empty, strlen(empty), 1.0, &png, &len, &err), -1);
	assert_non_null(err);
	free(err);
	/* far too large: capped, not refused */
	const char *huge = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100000\" height=\"50\">"
			   "<rect width=\"100000\" height=\"50\" fill=\"#ff0000\"/></svg>";
	err = NULL;
	assert_int_equal(map_png(huge, strlen(huge), 2.0, &png, &len, &err), 0);
	struct image img;
	decode(png, len, &img);
	assert_int_equal(img.width, MAP_PNG_MAX_SIDE);
	assert_true(near(pixel(&img, 10, 0), 0xff0000));
	cairo_surface_destroy(img.surface);
	free(png);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_europe_map),
		cmocka_unit_test(test_legend_holds_long_names),
		cmocka_unit_test(test_chart_ties_show),
		cmocka_unit_test(test_not_svg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
