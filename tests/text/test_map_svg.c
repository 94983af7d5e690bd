/* The SVG map and the prestige chart: well-formed XML (checked by a small
 * parser here), names escaped, owners' colours, home rings, neutrals,
 * inviolate hatching, land and sea routes, army badges, siege markers. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbm/diary.h"
#include "text/map_svg.h"
#include "lib/rules_fixture.h"

/* A small XML well-formedness check: matching tags, quoted attributes, no
 * raw '<' or stray '&' in text or attributes, one root. Enough for what
 * map_svg writes (no comments, CDATA or doctype). Returns NULL when the
 * document is well-formed, else a static message. */
static const char *xml_check(const char *doc)
{
	static char msg[160];
	const char *stack[256];
	size_t stack_len[256];
	size_t depth = 0, roots = 0;
	const char *p = doc;
	if (strncmp(p, "<?xml ", 6) == 0) {
		p = strstr(p, "?>");
		if (!p)
			return "unterminated XML declaration";
		p += 2;
	}
	while (*p) {
		if (*p == '&') {
			const char *end = strchr(p, ';');
			if (!end || end - p > 8 ||
			    !(strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 ||
			      strncmp(p, "&gt;", 4) == 0 || strncmp(p, "&quot;", 6) == 0 ||
			      strncmp(p, "&#39;", 5) == 0))
				return "stray & in text";
			p = end + 1;
			continue;
		}
		if (*p != '<') {
			if (depth == 0 && !strchr(" \t\r\n", *p))
				return "text outside the root element";
			p++;
			continue;
		}
		bool closing = p[1] == '/';
		const char *name = p + (closing ? 2 : 1);
		size_t len = strcspn(name, " \t\n/>");
		if (len == 0)
			return "empty tag name";
		const char *q = name + len;
		if (closing) {
			if (depth == 0 || stack_len[depth - 1] != len ||
			    strncmp(stack[depth - 1], name, len) != 0) {
				snprintf(msg, sizeof msg, "mismatched </%.*s>", (int)len, name);
				return msg;
			}
			depth--;
			q = strchr(q, '>');
			if (!q)
				return "unterminated closing tag";
			p = q + 1;
			continue;
		}
		/* attributes */
		for (;;) {
			while (*q == ' ' || *q == '\n' || *q == '\t')
				q++;
			if (*q == '/' && q[1] == '>') {
				q += 2;
				break;
			}
			if (*q == '>') {
				q++;
				if (depth == 0)
					roots++;
				if (depth == 256)
					return "too deep";
				stack[depth] = name;
				stack_len[depth++] = len;
				break;
			}
			size_t an = strcspn(q, "=> \n");
			if (an == 0 || q[an] != '=' || q[an + 1] != '"')
				return "attribute without a quoted value";
			q += an + 2;
			for (; *q && *q != '"'; q++) {
				if (*q == '<')
					return "< in an attribute";
				if (*q == '&' && !(strncmp(q, "&amp;", 5) == 0 || strncmp(q, "&lt;", 4) == 0 ||
						   strncmp(q, "&gt;", 4) == 0 || strncmp(q, "&quot;", 6) == 0 ||
						   strncmp(q, "&#39;", 5) == 0))
					return "stray & in an attribute";
			}
			if (!*q)
				return "unterminated attribute";
			q++;
		}
		p = q;
	}
	if (depth != 0)
		return "unclosed element";
	if (roots != 1)
		return "not exactly one root element";
	return NULL;
}

static void assert_well_formed(const char *doc)
{
	const char *why = xml_check(doc);
	if (why)
		fail_msg("not well-formed: %s", why);
}

/* The checker itself must catch what it is there to catch. */
static void test_checker(void **state)
{
	(void)state;
	assert_null(xml_check("<svg a=\"1\"><g><t>x &amp; y</t></g></svg>"));
	assert_non_null(xml_check("<svg><g></svg>"));
	assert_non_null(xml_check("<svg>a & b</svg>"));
	assert_non_null(xml_check("<svg a=\"<\"/>"));
	assert_non_null(xml_check("<svg/><svg/>"));
	assert_non_null(xml_check("<svg a=1/>"));
}

/* Provinces 0 "Dijon & <Beaune>" (burgundy, home), 1 "Paris" (france,
 * home), 2 "Calais" (neutral), 3 "Jersey \"Isle\"" (inviolate), 4 "Kent's"
 * (france, not home). Routes: land 0-1, 1-2; sea 2-4, 3-4. */
static struct campaign *map_campaign(void)
{
	struct campaign *c = fx_campaign();
	free(c->name);
	c->name = xstrdup("Lilies & <Saltire>");
	fx_province(c, "Dijon & <Beaune>", 0, true);
	fx_province(c, "Paris", 1, true);
	fx_province(c, "Calais", NO_INDEX, false);
	fx_province(c, "Jersey \"Isle\"", NO_INDEX, false);
	fx_province(c, "Kent's", 1, false);
	c->provinces[3].inviolate = true;
	static const double xy[5][2] = {{100, 200}, {220, 120}, {300, 40}, {420, 260}, {380, 90}};
	for (size_t i = 0; i < 5; i++) {
		c->provinces[i].x = xy[i][0];
		c->provinces[i].y = xy[i][1];
	}
	fx_route(c, 0, 1, false);
	fx_route(c, 1, 2, false);
	fx_route(c, 2, 4, true);
	fx_route(c, 3, 4, true);
	fx_player(c, "burgundy", 0);
	fx_player(c, "france", 1);
	free(c->players[0].nation);
	c->players[0].nation = xstrdup("Burgundy <script>alert(1)</script>");
	c->players[1].field.count[T_PS] -= 1; /* 478 AP */
	c->players[1].field.count[T_AX] -= 1; /* 474.5 AP */
	struct siege *s = xcalloc(1, sizeof *s);
	s->province = 2;
	s->besieger = 1;
	s->rounds_failed = 1;
	c->sieges = s;
	c->siege_count = c->siege_cap = 1;
	return c;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_map(void **state)
{
	(void)state;
	struct campaign *c = map_campaign();
	char *svg = map_svg(c, NULL);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, "version=\"1.1\""));
	/* Everything escaped; nothing raw. */
	assert_non_null(strstr(svg, "<title>Lilies &amp; &lt;Saltire&gt;, year 1450</title>"));
	assert_non_null(strstr(svg, ">Dijon &amp; &lt;Beaune&gt;</text>"));
	assert_non_null(strstr(svg, ">Jersey &quot;Isle&quot;</text>"));
	assert_non_null(strstr(svg, ">Kent&#39;s</text>"));
	assert_null(strstr(svg, "<script"));
	assert_non_null(strstr(svg, "Burgundy &lt;script&gt;alert(1)&lt;/script&gt;"));
	/* Owners' colours: palette 0 for Burgundy's Dijon, 1 for France's
	 * Paris and Kent's; the neutral grey for Calais; the hatching for
	 * Jersey. */
	const char *red = player_colour(0), *blue = player_colour(1);
	assert_string_not_equal(red, blue);
	assert_string_equal(player_colour(10), red); /* the palette repeats */
	char want[160];
	snprintf(want, sizeof want, "<circle cx=\"100.0\" cy=\"200.0\" r=\"14.0\" fill=\"%s\"", red);
	assert_non_null(strstr(svg, want));
	snprintf(want, sizeof want, "<circle cx=\"380.0\" cy=\"90.0\" r=\"14.0\" fill=\"%s\"", blue);
	assert_non_null(strstr(svg, want));
	snprintf(want, sizeof want, "<circle cx=\"300.0\" cy=\"40.0\" r=\"14.0\" fill=\"%s\"",
		 player_colour(-1));
	assert_non_null(strstr(svg, want));
	assert_non_null(strstr(svg, "<circle cx=\"420.0\" cy=\"260.0\" r=\"14.0\" fill=\"url(#inviolate)\""));
	assert_non_null(strstr(svg, "<pattern id=\"inviolate\""));
	/* Home rings: Dijon (red) and Paris (blue); Kent's is France's but not
	 * home. */
	assert_int_equal(count(svg, "class=\"home-ring\""), 2);
	snprintf(want, sizeof want, "class=\"home-ring\" cx=\"220.0\" cy=\"120.0\" r=\"19.0\" fill=\"none\" stroke=\"%s\"", blue);
	assert_non_null(strstr(svg, want));
	/* Routes: two land (solid), two sea (dashed blue), and the legend's
	 * sea route dashed the same. */
	assert_int_equal(count(svg, "class=\"route land\""), 2);
	assert_int_equal(count(svg, "class=\"route sea\""), 2);
	assert_int_equal(count(svg, "stroke-dasharray=\"9 6\""), 3);
	/* Armies: Burgundy 480 AP at Dijon, France 474.5 at Paris. */
	assert_int_equal(count(svg, "class=\"army\""), 2);
	assert_non_null(strstr(svg, ">480</text>"));
	assert_non_null(strstr(svg, ">474.5</text>"));
	/* One siege, drawn in the besieger's colour around Calais. */
	assert_int_equal(count(svg, "class=\"siege\""), 1);
	assert_non_null(strstr(svg, "Siege of Calais by france (1 failed round)"));
	snprintf(want, sizeof want, "cx=\"300.0\" cy=\"40.0\" r=\"24.0\" fill=\"none\" stroke=\"%s\"", blue);
	assert_non_null(strstr(svg, want));
	/* Calais's name goes below the besieger's ring (its edge at 40 + 26),
	 * Paris's where names usually go */
	assert_non_null(strstr(svg, "<text id=\"label-2\" x=\"300.0\" y=\"80.0\""));
	assert_non_null(strstr(svg, "<text id=\"label-1\" x=\"220.0\" y=\"151.0\""));
	/* The legend explains the dashed blue sea routes. */
	const char *sea = strstr(svg, ">sea route</text>");
	assert_non_null(sea);
	const char *row = strstr(strstr(svg, "<g id=\"legend\""), "stroke-dasharray=\"9 6\"");
	assert_non_null(row);
	assert_true(row < sea);
	/* No background image unless the campaign names one. */
	assert_null(strstr(svg, "<image"));
	free(svg);

	/* Options off; a background, escaped, with the origin in view. */
	c->background = xstrdup("maps/europe & co.png");
	struct map_svg_options o;
	map_svg_options_default(&o);
	o.show_armies = false;
	o.show_sieges = false;
	o.title = "The end of 1450 <draft>";
	svg = map_svg(c, &o);
	assert_well_formed(svg);
	assert_int_equal(count(svg, "class=\"army\""), 0);
	assert_int_equal(count(svg, "class=\"siege\""), 0);
	assert_non_null(strstr(svg, "xlink:href=\"maps/europe &amp; co.png\""));
	assert_non_null(strstr(svg, "<title>The end of 1450 &lt;draft&gt;</title>"));
	/* the origin in view, under the title's band */
	assert_non_null(strstr(svg, "viewBox=\"0.0 -34.0 "));
	assert_non_null(strstr(svg, "<text id=\"map-title\" x=\"10.0\" y=\"-8.0\""));
	assert_non_null(strstr(svg, ">The end of 1450 &lt;draft&gt;</text>"));
	free(svg);

	/* The year's battles and sieges: marks for known provinces only (the
	 * siege of Calais under way is drawn once), a legend line for each kind. */
	json_t *marks = json_pack("[{s:s, s:s, s:s, s:i}, {s:s, s:s, s:s}, {s:s, s:s}, {s:s, s:s},"
				  " {s:s, s:s}]",
				  "province", "Paris", "kind", "battle", "title", "Battle at <Paris>",
				  "year", 1450, "province", "Kent's", "kind", "siege", "title",
				  "Siege of Kent's", "province", "Atlantis", "kind", "battle",
				  "province", "Paris", "kind", "picnic", "province", "Calais", "kind",
				  "siege");
	map_svg_options_default(&o);
	o.marks = marks;
	svg = map_svg(c, &o);
	assert_well_formed(svg);
	assert_int_equal(count(svg, "class=\"mark battle\""), 1);
	assert_int_equal(count(svg, "class=\"mark siege\""), 1);
	assert_non_null(strstr(svg, "<g class=\"mark siege\"><title>Siege of Kent&#39;s</title>"));
	assert_int_equal(count(svg, "class=\"siege\""), 1);
	assert_non_null(strstr(svg, "<title>Battle at &lt;Paris&gt;</title>"));
	assert_non_null(strstr(svg, ">battle in 1450</text>"));
	assert_non_null(strstr(svg, ">siege (dashed ring: the besieger)</text>"));
	free(svg);
	json_decref(marks);
	campaign_free(c);
}

static void test_empty_and_bad_text(void **state)
{
	(void)state;
	struct campaign *c = campaign_new();
	char *svg = map_svg(c, NULL);
	assert_well_formed(svg);
	assert_null(strstr(svg, "sea route")); /* no sea routes, no legend row */
	free(svg);
	/* Invalid UTF-8 and control characters cannot be in XML at all. */
	struct province *p = campaign_add_province(c);
	p->name = xstrdup("Bad\x01name\xff\xc3(");
	p->owner = 5; /* no such player: drawn as neutral */
	svg = map_svg(c, NULL);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, ">Bad?name?" "?(</text>"));
	free(svg);
	campaign_free(c);
}

static void test_chart(void **state)
{
	(void)state;
	struct campaign *c = map_campaign();
	json_error_t err;
	json_t *events = json_loads(
		"[{\"kind\":\"prestige\",\"year\":1450,\"player\":\"france\",\"points\":40},"
		" {\"kind\":\"province_prestige\",\"year\":1450,\"player\":\"burgundy\",\"points\":10},"
		" {\"kind\":\"province_prestige\",\"year\":1452,\"player\":\"burgundy\",\"points\":10}]",
		0, &err);
	json_t *h = diary_prestige_history(c, events);
	/* 1450..1452; Burgundy 10, 10, 20; France 40 throughout. */
	assert_int_equal(json_array_size(json_object_get(h, "years")), 3);
	char *svg = map_svg_prestige_chart(h, "Prestige & <glory>");
	assert_well_formed(svg);
	assert_non_null(strstr(svg, "<title>Prestige &amp; &lt;glory&gt;</title>"));
	/* the title shows above the chart, not only as its tooltip */
	assert_non_null(strstr(svg, "<text id=\"chart-title\" x=\"10\" y=\"22\" font-size=\"16\" fill=\"#5a1a1a\">Prestige &amp; &lt;glory&gt;</text>"));
	assert_int_equal(count(svg, "<polyline"), 2);
	/* The axis tops at 40: Burgundy's 20 in 1452 is halfway up (y = 40 +
	 * 300 - 150) at the right end (x = 60 + 560). */
	assert_non_null(strstr(svg, "620.0,190.0\"/>"));
	assert_non_null(strstr(svg, "Burgundy &lt;script&gt;alert(1)&lt;/script&gt; (20)"));
	assert_non_null(strstr(svg, ">france (40)</text>"));
	/* round ticks: every 5 up to 40 */
	assert_int_equal(count(svg, "class=\"tick\""), 9);
	assert_non_null(strstr(svg, "text-anchor=\"end\">35</text>"));
	free(svg);
	json_decref(h);
	json_decref(events);

	/* 137 at most: ticks every 20 up to 140; a long name widens the chart
	 * so that its legend line fits. */
	free(c->players[1].nation);
	c->players[1].nation = xstrdup("The Most Christian Kingdom of France and Navarre");
	events = json_loads(
		"[{\"kind\":\"prestige\",\"year\":1450,\"player\":\"france\",\"points\":137}]",
		0, &err);
	h = diary_prestige_history(c, events);
	svg = map_svg_prestige_chart(h, "Prestige");
	assert_well_formed(svg);
	static const char *const want[] = {"0", "20", "40", "60", "80", "100", "120", "140"};
	const char *p = svg;
	for (size_t i = 0; i < 8; i++) {
		p = strstr(p, "class=\"tick\"");
		assert_non_null(p);
		p = strchr(p, '>') + 1;
		assert_int_equal(strncmp(p, want[i], strlen(want[i])), 0);
		assert_int_equal(p[strlen(want[i])], '<');
	}
	assert_null(strstr(p, "class=\"tick\""));
	/* the legend's text starts at 60 + 560 + 40 and its 55 letters need
	 * about 13 * 0.62 each: the chart is at least that wide */
	double width = strtod(strstr(svg, "width=\"") + 7, NULL);
	assert_true(width >= 660 + 55 * 13 * 0.55);
	assert_non_null(strstr(svg, ">The Most Christian Kingdom of France and Navarre (137)</text>"));
	free(svg);
	json_decref(h);
	json_decref(events);
	campaign_free(c);
}

/* The points of the polyline after `after`, as written. */
static char *points_after(const char *svg, const char *after)
{
	const char *p = strstr(strstr(svg, after), "points=\"");
	assert_non_null(p);
	p += 8;
	return xstrndup(p, strcspn(p, "\""));
}

/* Players with the same prestige: their lines drawn apart, 4 units, the
 * tie centred on its value; a player alone keeps his exact value. Many
 * players: the legend stays inside the chart. Many years: the labels of
 * the years do not run together. */
static void test_chart_ties(void **state)
{
	(void)state;
	json_t *h = json_pack("{s:[i,i,i], s:[{s:{s:s,s:s}, s:[i,i,i]}, {s:{s:s,s:s}, s:[i,i,i]},"
			      " {s:{s:s,s:s}, s:[i,i,i]}]}",
			      "years", 1450, 1451, 1452,
			      "players",
			      "player", "nation", "A", "colour", "#aa0000", "totals", 20, 40, 40,
			      "player", "nation", "B", "colour", "#00aa00", "totals", 20, 40, 30,
			      "player", "nation", "C", "colour", "#0000aa", "totals", 20, 10, 40);
	char *svg = map_svg_prestige_chart(h, NULL);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, ">Prestige</text>"));
	/* the axis tops at 40: 20 is y 190, 40 is y 40, 30 is 115, 10 is 265;
	 * in 1450 three tied (-4, 0, +4), in 1451 A and B (-2, +2), in 1452 A
	 * and C */
	char *a = points_after(svg, "<title>A</title>");
	char *b = points_after(svg, "<title>B</title>");
	char *c = points_after(svg, "<title>C</title>");
	assert_string_equal(a, "60.0,186.0 340.0,38.0 620.0,38.0");
	assert_string_equal(b, "60.0,190.0 340.0,42.0 620.0,115.0");
	assert_string_equal(c, "60.0,194.0 340.0,265.0 620.0,42.0");
	free(a);
	free(b);
	free(c);
	free(svg);
	json_decref(h);

	/* 24 players over 40 years */
	json_t *years = json_array(), *players = json_array();
	for (int y = 0; y < 40; y++)
		json_array_append_new(years, json_integer(1450 + y));
	for (int p = 0; p < 24; p++) {
		json_t *totals = json_array();
		for (int y = 0; y < 40; y++)
			json_array_append_new(totals, json_integer(y * (p % 5)));
		json_array_append_new(players, json_pack("{s:{s:s,s:s}, s:o}", "player", "nation",
							 "Somewhere", "colour", "#123456",
							 "totals", totals));
	}
	h = json_pack("{s:o, s:o}", "years", years, "players", players);
	svg = map_svg_prestige_chart(h, "Prestige");
	assert_well_formed(svg);
	double height = strtod(strstr(svg, "height=\"") + 8, NULL);
	/* the last legend line, at 40 + 10 + 22 * 23 (39 years of 3) */
	assert_non_null(strstr(svg, "y=\"556.0\">Somewhere (117)</text>"));
	assert_true(height >= 556 + 5);
	/* 560 units for 39 intervals: a label every fourth year (57 units
	 * apart), the last year too close to 1486 to be labelled */
	assert_non_null(strstr(svg, ">1450</text>"));
	assert_non_null(strstr(svg, ">1454</text>"));
	assert_non_null(strstr(svg, ">1486</text>"));
	assert_null(strstr(svg, ">1451</text>"));
	assert_null(strstr(svg, ">1489</text>"));
	free(svg);
	json_decref(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_empty_and_bad_text),
		cmocka_unit_test(test_chart),
		cmocka_unit_test(test_chart_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
