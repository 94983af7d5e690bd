/* Unit tests for the campaign file: the syntax, every class of error (its
 * text and the line it points at), the example campaign, and loading. Most
 * tests take tests/data/campaign/minimal.campaign, change one line, and
 * check what the parser says about it. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/campaign_file.h"
#include "base/diag.h"
#include "base/fileio.h"
#include "lib/files.h"
#include "model/model.h"
#include "base/util.h"

static char *base; /* the minimal campaign's text */

/* Replaces the first occurrence of `old` (which must be there) by `new`. */
static char *edit(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	if (!at)
		fail_msg("test bug: \"%s\" is not in the text", old);
	struct strbuf sb = {0};
	strbuf_append(&sb, text, (size_t)(at - text));
	strbuf_puts(&sb, new);
	strbuf_puts(&sb, at + strlen(old));
	return strbuf_take(&sb);
}

/* Replaces the first occurrence of `old` after the first `anchor`. */
static char *edit_after(const char *text, const char *anchor, const char *old, const char *new)
{
	const char *a = strstr(text, anchor);
	if (!a)
		fail_msg("test bug: \"%s\" is not in the text", anchor);
	char *tail = edit(a, old, new);
	struct strbuf sb = {0};
	strbuf_append(&sb, text, (size_t)(a - text));
	strbuf_puts(&sb, tail);
	free(tail);
	return strbuf_take(&sb);
}

/* Line (1-based) of the first line containing `needle` at or after the first
 * line containing `anchor` (NULL: from the top). */
static int line_of(const char *text, const char *anchor, const char *needle)
{
	const char *from = text;
	if (anchor) {
		from = strstr(text, anchor);
		if (!from)
			fail_msg("test bug: \"%s\" is not in the text", anchor);
		while (from > text && from[-1] != '\n')
			from--;
	}
	const char *hit = strstr(from, needle);
	if (!hit)
		fail_msg("test bug: \"%s\" is not in the text", needle);
	int line = 1;
	for (const char *p = text; p < hit; p++)
		if (*p == '\n')
			line++;
	return line;
}

static struct campaign *parse(const char *text, struct diag_list *dl)
{
	return campaign_file_parse(text, strlen(text), "test.campaign", dl);
}

static void dump(const struct diag_list *dl)
{
	diag_print(dl, stderr);
}

/* Asserts an error containing `message` on `line`. */
static void expect_error(const struct diag_list *dl, const char *message, int line)
{
	const struct diag *d = diag_find(dl, message);
	if (!d) {
		dump(dl);
		fail_msg("no diagnostic contains \"%s\"", message);
	}
	if (d->line != line || d->level != DIAG_ERROR) {
		dump(dl);
		fail_msg("\"%s\": line %d (level %d), expected an error on line %d", message,
			 d->line, (int)d->level, line);
	}
	assert_string_equal(d->file, "test.campaign");
}

/* Parses `text`, which must fail with `message` on `line`. */
static void check_fails(const char *text, const char *message, int line)
{
	struct diag_list dl = {0};
	struct campaign *c = parse(text, &dl);
	assert_null(c);
	assert_true(dl.errors > 0);
	expect_error(&dl, message, line);
	diag_free(&dl);
}

/* One-line change to the minimal campaign, expected error on the line of
 * `at` (searched from `anchor`) in the changed text. */
static void check_edit(const char *old, const char *new, const char *message,
		       const char *anchor, const char *at)
{
	char *text = edit(base, old, new);
	check_fails(text, message, line_of(text, anchor, at));
	free(text);
}

/* As check_edit, with the message built from a format (line numbers of the
 * unchanged file go into messages such as "first on line N"). */
static void check_editf(const char *old, const char *new, const char *anchor, const char *at,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void check_editf(const char *old, const char *new, const char *anchor, const char *at,
			const char *fmt, ...)
{
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	check_edit(old, new, sb.data, anchor, at);
	strbuf_free(&sb);
}

static int setup(void **state)
{
	(void)state;
	char *path = test_source_path("tests/data/campaign/minimal.campaign");
	base = file_read_all(path, 0, NULL);
	free(path);
	return base ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(base);
	return 0;
}

/* ------------------------------------------------------------ valid files */

static void test_minimal_campaign(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct campaign *c = parse(base, &dl);
	if (!c)
		dump(&dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);

	assert_string_equal(c->name, "Test Campaign"); /* quotes dropped */
	assert_int_equal(c->start_year, 1450);
	assert_int_equal(c->year, 1450);
	assert_int_equal(c->phase, PHASE_SETUP);
	assert_string_equal(c->timezone, "Europe/Brussels");
	assert_string_equal(c->organiser_name, "Org Aniser");
	assert_string_equal(c->organiser_email, "org@example.org");
	assert_int_equal(c->organiser_player, 1);

	const struct campaign_settings *s = &c->settings;
	assert_int_equal(s->turn_deadline_hours, 60);        /* 2d 12h */
	assert_int_equal(s->decision_deadline_hours, 36);
	assert_int_equal(s->battle_deadline_hours, 240);
	assert_int_equal(s->recruitment_deadline_hours, 96);
	assert_int_equal(s->reminder_hours[0], 24);          /* sorted, latest first */
	assert_int_equal(s->reminder_hours[1], 6);
	assert_int_equal(s->reminder_hours[2], 2);
	assert_int_equal(s->reminder_hours[3], 0);
	assert_int_equal(s->grace_hours, 0);
	assert_int_equal(s->siege_floor, 2);
	assert_false(s->supply_across_sea);

	assert_int_equal(c->province_count, 14);
	assert_int_equal(c->route_count, 17);
	int sea = 0;
	for (size_t i = 0; i < c->route_count; i++)
		sea += c->routes[i].sea;
	assert_int_equal(sea, 3);
	assert_true(campaign_connected(c));

	int flanders = campaign_find_province(c, "flanders");
	int geneve = campaign_find_province(c, "Geneve");
	int outremer = campaign_find_province(c, "Outremer");
	int anjou = campaign_find_province(c, "Anjou");
	assert_int_equal(flanders, 0);
	assert_string_equal(c->provinces[geneve].name, "Genève");
	assert_int_equal(c->provinces[flanders].home_of, 0);
	assert_int_equal(c->provinces[flanders].owner, 0);
	assert_int_equal(c->provinces[anjou].owner, 1); /* "home = Beta" */
	assert_int_equal(c->provinces[geneve].owner, NO_INDEX);
	assert_int_equal(c->provinces[geneve].home_of, NO_INDEX);
	assert_false(c->provinces[geneve].inviolate);
	assert_true(c->provinces[outremer].inviolate);
	assert_int_equal(c->provinces[outremer].owner, NO_INDEX);
	assert_string_equal(c->provinces[1].climate, "Cold"); /* "cold" in the file */
	assert_string_equal(c->provinces[1].terrain, "Plough");
	assert_true(c->provinces[0].x == 400.0 && c->provinces[0].y == 300.0);
	/* The Genève - Outremer route was written "Geneve ~ Outremer". */
	int r = campaign_route_between(c, geneve, outremer);
	assert_true(r >= 0 && c->routes[r].sea);
	assert_int_equal(c->routes[r].line, line_of(base, NULL, "Anjou - Geneve"));

	assert_int_equal(c->player_count, 3);
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *y = &c->players[i];
		assert_int_equal(player_field_half_ap(y), HALF_AP(480));
		assert_int_equal(player_reserve_half_ap(y), 0);
		assert_int_equal(y->original_half_ap, HALF_AP(480));
		assert_int_equal(y->cap_half_ap, HALF_AP(480));
		assert_int_equal(troops_generals(&y->list, &y->field), 2);
		assert_int_equal(player_province_count(c, (int)i), 4);
		assert_int_equal(c->provinces[y->location].home_of, (int)i);
		for (size_t j = 0; j < y->list.count; j++)
			assert_int_equal(y->reserve.count[j], 0);
	}
	assert_int_equal(c->players[0].location, flanders);
	assert_int_equal(c->players[1].location, anjou);
	assert_string_equal(c->players[2].key, "gamma");
	assert_string_equal(c->players[2].nation, "Gammaland");
	assert_string_equal(c->players[2].email, "gil@example.org");

	const struct player *g = &c->players[2];
	assert_int_equal(g->list.count, 7);
	const struct element_type *gen = &g->list.types[0];
	assert_string_equal(gen->label, "General");
	assert_string_equal(gen->code, "Kn");
	assert_int_equal(gen->grade, 'S');
	assert_true(gen->regular); /* "Reg Kn(S)": drill first */
	assert_true(gen->general);
	assert_int_equal(gen->cost_half_ap, 44); /* "22 AP" */
	assert_int_equal(gen->list_min, 1);
	assert_int_equal(gen->list_max, 1);
	assert_int_equal(gen->line, line_of(base, "[player gamma]", "element = General"));
	assert_false(g->list.types[1].regular); /* "Kn (S) Irr" */
	int aux = army_list_find(&g->list, "Auxilia");
	assert_int_equal(g->list.types[aux].cost_half_ap, 7); /* 3.5 AP */
	assert_int_equal(g->field.count[aux], 2);
	int levy = army_list_find(&g->list, "levy");
	assert_int_equal(g->list.types[levy].cost_half_ap, 1);
	assert_int_equal(g->list.types[levy].grade, 'I');
	assert_int_equal(g->list.types[levy].list_max, 10);
	assert_int_equal(g->field.count[army_list_find(&g->list, "Archers")], 52);
	campaign_free(c);
	diag_free(&dl);
}

/* Windows line ends and a byte order mark are what some editors save. */
static void test_crlf_and_bom(void **state)
{
	(void)state;
	struct strbuf sb = {0};
	strbuf_puts(&sb, "\xEF\xBB\xBF");
	for (const char *p = base; *p; p++) {
		if (*p == '\n')
			strbuf_putc(&sb, '\r');
		strbuf_putc(&sb, *p);
	}
	struct diag_list dl = {0};
	struct campaign *c = campaign_file_parse(sb.data, sb.len, "crlf.campaign", &dl);
	if (!c)
		dump(&dl);
	assert_non_null(c);
	assert_string_equal(c->provinces[campaign_find_province(c, "Geneve")].name, "Genève");
	assert_string_equal(c->timezone, "Europe/Brussels");
	campaign_free(c);
	diag_free(&dl);
	strbuf_free(&sb);
}

/* A campaign with `players` players, four home provinces each, all
 * provinces on one chain of land routes. */
static char *generated_campaign(int players)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "[campaign]\nname = Generated\nstart-year = 216 BC\n"
		    "organizer = O Rganiser <o@example.org>\n");
	for (int i = 0; i < players; i++)
		for (int j = 0; j < 4; j++)
			strbuf_printf(&sb, "[province P%d-%d]\nterrain = Wood\nclimate = Cold\n"
				      "position = %d, %d\nhome = p%d\n", i, j, i * 10, j * 10, i);
	strbuf_puts(&sb, "[routes]\n");
	for (int i = 0; i < players * 4 - 1; i++)
		strbuf_printf(&sb, "P%d-%d - P%d-%d\n", i / 4, i % 4, (i + 1) / 4, (i + 1) % 4);
	for (int i = 0; i < players; i++)
		strbuf_printf(&sb, "[player p%d]\nnation = Nation %d\nname = Player %d\n"
			      "email = p%d@example.org\nstart = P%d-2\n"
			      "element = General | Kn(S) Irr | 22 | 1-1 | field 1 | general\n"
			      "element = Knights | Kn(S) Irr | 12 | 0-40 | field 38\n"
			      "element = Skirmishers | Ps(O) Irr | 2 | 0-8 | field 1\n",
			      i, i, i, i, i);
	return strbuf_take(&sb);
}

static void test_player_count(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	char *text = generated_campaign(3);
	struct campaign *c = parse(text, &dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	assert_int_equal(c->start_year, -216);
	assert_string_equal(c->organiser_name, "O Rganiser"); /* "organizer" accepted */
	assert_string_equal(c->timezone, "UTC");              /* the default */
	assert_int_equal(c->players[2].location, campaign_find_province(c, "P2-2"));
	campaign_free(c);
	free(text);

	/* Nine players: allowed, with a warning on the last player. */
	text = generated_campaign(9);
	c = parse(text, &dl);
	assert_non_null(c);
	assert_int_equal(dl.errors, 0);
	assert_int_equal(dl.count, 1);
	assert_int_equal(dl.items[0].level, DIAG_WARNING);
	assert_non_null(strstr(dl.items[0].message, "9 players; the rules are written for 3 to "
					     "about 8"));
	assert_int_equal(dl.items[0].line, line_of(text, NULL, "[player p8]"));
	campaign_free(c);
	free(text);
	diag_free(&dl);

	/* Two players: an error (the rules need three). */
	text = generated_campaign(2);
	check_fails(text, "2 players; the rules need at least 3", line_of(text, NULL, "[player p1]"));
	free(text);
}

/* ------------------------------------------------------------ syntax errors */

static void test_unknown_keys_and_sections(void **state)
{
	(void)state;
	check_edit("terrain = Waterway", "terain = Waterway",
		   "unknown key \"terain\" in [province Flanders] (did you mean \"terrain\"?)",
		   NULL, "terain");
	check_edit("[province Outremer]", "[provence Outremer]",
		   "unknown section \"[provence]\" (did you mean \"province\"?)", NULL, "[provence");
	check_edit("[routes]", "[roads]", "unknown section \"[roads]\"", NULL, "[roads]");
	check_edit("start = Flanders", "start = Flanders\nclimate = Cold",
		   "key \"climate\" belongs in a [province NAME] section, not in [player alpha]",
		   "[player alpha]", "climate");
	check_edit("grace = 0h", "grace = 0h\ngracee = 1h",
		   "unknown key \"gracee\" in [campaign] (did you mean \"grace\"?)", NULL, "gracee");
	check_edit("[campaign]", "stray words\n[campaign]",
		   "text before the first section: start the file with [campaign]", NULL, "stray");
	check_edit("[province Maine]", "[province Maine",
		   "section header has no closing ']'", NULL, "[province Maine");
	check_edit("[province Maine]", "[province]", "[province] needs a name", NULL,
		   "[province]");
	check_edit("[routes]", "[routes north]", "[routes] takes no name (found \"north\")", NULL,
		   "[routes north]");
	check_edit("neutral = yes", "neutral",
		   "expected \"key = value\" (did you mean \"neutral = yes\"?)", "[province Gen",
		   "neutral");
	check_editf("terrain = Lake", "terrain = Lake\nterrain = Marsh", "[province Gen",
		    "terrain = Marsh",
		    "\"terrain\" is given twice in [province Genève] (first on line %d)",
		    line_of(base, NULL, "terrain = Lake"));
	check_edit("name = Ann Alpha", "name =", "\"name\" has no value", NULL, "name =\n");
	check_edit("Kent ~ Flanders", "Kent = Flanders", "[routes] holds one route a line",
		   NULL, "Kent = Flanders");
	check_edit("[player gamma]", "[player gamma ray]",
		   "player key \"gamma ray\" must be one word", NULL, "[player gamma ray]");
	check_edit("[province Maine]", "[province Maine ~ Perche]",
		   "province name \"Maine ~ Perche\" contains '~'", NULL, "[province Maine");
}

/* A misspelt required key is reported once, as a misspelling, not again as
 * a missing key. */
static void test_misspelt_key_reported_once(void **state)
{
	(void)state;
	char *text = edit(base, "terrain = Waterway", "terain = Waterway");
	struct diag_list dl = {0};
	assert_null(parse(text, &dl));
	assert_int_equal(dl.errors, 1);
	assert_null(diag_find(&dl, "has no terrain"));
	diag_free(&dl);
	free(text);

	text = edit(base, "organiser = Org", "organisor = Org");
	assert_null(parse(text, &dl));
	assert_int_equal(dl.errors, 1);
	expect_error(&dl, "unknown key \"organisor\" in [campaign] (did you mean \"organiser\"?)",
		     line_of(text, NULL, "organisor"));
	diag_free(&dl);
	free(text);
}

static void test_bad_lines(void **state)
{
	(void)state;
	static const char nul[] = "[campaign]\nname = A\0B\n";
	struct diag_list dl = {0};
	assert_null(campaign_file_parse(nul, sizeof nul - 1, "test.campaign", &dl));
	expect_error(&dl, "line contains a NUL byte", 2);
	diag_free(&dl);

	char *text = edit(base, "name = Ann Alpha", "name = Ann \xE9 Alpha");
	check_fails(text, "line is not valid UTF-8: save the file as UTF-8",
		    line_of(text, NULL, "name = Ann"));
	free(text);

	/* Empty and comment-only files say what is missing. */
	check_fails("", "no [campaign] section", 0);
	check_fails("# nothing yet\n", "no provinces", 0);
}

/* ---------------------------------------------------------- [campaign] */

static void test_campaign_values(void **state)
{
	(void)state;
	check_edit("Start_Year = 1450", "start-year = 14x0",
		   "start-year \"14x0\" is not a year (write e.g. 1450, or 216 BC)", NULL,
		   "14x0");
	check_edit("Start_Year = 1450", "start-year = 1450 AC",
		   "write the year as a number, optionally followed by AD or BC", NULL, "1450 AC");
	check_edit("turn-deadline = 2d 12h", "turn-deadline = 72",
		   "turn-deadline \"72\" needs a unit: \"h\" for hours or \"d\" for days", NULL,
		   "turn-deadline");
	check_edit("turn-deadline = 2d 12h", "turn-deadline = 3w",
		   "turn-deadline \"3w\" has an unknown unit", NULL, "turn-deadline");
	check_edit("battle-deadline = 10d", "battle-deadline = -2d",
		   "battle-deadline \"-2d\" a duration cannot be negative", NULL, "battle-deadline");
	check_edit("decision-deadline = 36h", "decision-deadline = 0h",
		   "decision-deadline must be longer than 0h", NULL, "decision-deadline");
	check_edit("battle-deadline = 10d", "battle-deadline = 400d",
		   "battle-deadline \"400d\" is longer than a year", NULL, "battle-deadline");
	check_edit("reminders = 2h, 24h, 6h", "reminders = 2h, 24h, 6h, 1h",
		   "reminders: at most 3 reminders", NULL, "reminders");
	check_edit("reminders = 2h, 24h, 6h", "reminders = 2h, soon",
		   "reminders: \"soon\" expected a number of hours or days", NULL, "reminders");
	check_edit("siege-floor = 2", "siege-floor = 9",
		   "siege-floor \"9\" must be a whole number from 1 to 6", NULL, "siege-floor");
	check_edit("supply-across-sea = no", "supply-across-sea = maybe",
		   "supply-across-sea \"maybe\" must be yes or no", NULL, "supply-across-sea");
	check_edit("timezone = Europe/Brussels", "timezone = Central European",
		   "timezone \"Central European\" has a space", NULL, "timezone");
	check_edit("organiser = Org Aniser <org@example.org>", "organiser = org@example.org",
		   "organiser needs a name as well as an address: write \"organiser = Your Name "
		   "<org@example.org>\"", NULL, "organiser =");
	check_edit("organiser = Org Aniser <org@example.org>", "organiser = Org <org@example>",
		   "organiser's address \"org@example\" has a domain without a dot", NULL,
		   "organiser =");
	check_edit("organiser-plays = beta", "organiser-plays = betta",
		   "organiser-plays names unknown player \"betta\" (did you mean \"beta\"?)", NULL,
		   "organiser-plays");
}

/* The subject tag (campaign(5)): its default from the name, a key that sets
 * it, and what it may hold. */
static void test_campaign_tag(void **state)
{
	(void)state;
	char *tag = campaign_default_tag("Italia 1494");
	assert_string_equal(tag, "Italia94");
	free(tag);
	tag = campaign_default_tag("Guerre d'Italie, 1494");
	assert_string_equal(tag, "GuerredItalie94");
	free(tag);
	tag = campaign_default_tag("  ");
	assert_string_equal(tag, "Campaign");
	free(tag);
	struct diag_list dl = {0};
	struct campaign *c = parse(base, &dl);
	assert_non_null(c);
	char *expected = campaign_default_tag(c->name);
	assert_string_equal(c->tag, expected);
	free(expected);
	campaign_free(c);
	diag_free(&dl);
	char *text = edit(base, "[campaign]\n", "[campaign]\ntag = Club-7\n");
	c = parse(text, &dl);
	assert_non_null(c);
	assert_string_equal(c->tag, "Club-7");
	campaign_free(c);
	diag_free(&dl);
	free(text);
	check_edit("[campaign]\n", "[campaign]\ntag = [Club]\n",
		   "tag \"[Club]\" may hold only letters, digits, '-', '_' and '.'", NULL, "tag =");
	check_edit("[campaign]\n", "[campaign]\ntag = ABCDEFGHIJKLMNOPQ\n",
		   "tag \"ABCDEFGHIJKLMNOPQ\" is longer than 16 characters", NULL, "tag =");
}

static void test_missing_required_keys(void **state)
{
	(void)state;
	check_edit("name = \"Test Campaign\"\n", "", "[campaign] has no name", NULL, "[campaign]");
	check_edit("Start_Year = 1450", "# no year", "[campaign] has no start-year", NULL,
		   "[campaign]");
	check_edit("organiser = Org Aniser <org@example.org>", "", "[campaign] has no organiser",
		   NULL, "[campaign]");
	check_edit("position = 400, 300", "",
		   "province \"Flanders\" has no position on the map", NULL, "[province Flanders]");
	check_edit("terrain = Plough", "", "province \"Brabant\" has no terrain", NULL,
		   "[province Brabant]");
	check_edit("climate = Cold", "", "province \"Flanders\" has no climate", NULL,
		   "[province Flanders]");
	check_edit("email = ann@example.org", "", "player \"alpha\" has no email", NULL,
		   "[player alpha]");
	check_edit("nation = Betaland", "", "player \"beta\" has no nation", NULL,
		   "[player beta]");
	check_edit("start = Essex", "", "player \"gamma\" has no start", NULL, "[player gamma]");

	char *text = xstrdup(base);
	for (int i = 0; i < 5; i++) {
		char *next = edit_after(text, "[player beta]", "\nelement = ", "\n# element = ");
		free(text);
		text = next;
	}
	check_fails(text, "player \"beta\" has no army list", line_of(text, NULL, "[player beta]"));
	free(text);

	check_fails("[province A]\nterrain = Wood\n",
		    "no [campaign] section: the file needs one with at least name, start-year and "
		    "organiser", 0);
}

/* ------------------------------------------------------------------ map */

static void test_province_errors(void **state)
{
	(void)state;
	check_edit("climate = Warm", "climate = Wram",
		   "unknown climate \"Wram\" (did you mean \"Warm\"?); DBM's climates are Cold, "
		   "Warm, Dry and Tropical", NULL, "Wram");
	check_edit("position = 400, 300", "position = 400, north",
		   "position \"400, north\" is not two numbers", NULL, "400, north");
	check_edit("position = 400, 300", "position = 400",
		   "position needs two numbers, x and y", NULL, "position = 400");
	check_edit("home = Beta", "home = betta",
		   "province \"Anjou\": home of unknown player \"betta\" (did you mean \"beta\"?)",
		   NULL, "betta");
	check_editf("[province Genève]", "[province flanders]", NULL, "[province flanders]",
		    "province \"flanders\" is defined twice (first on line %d)",
		    line_of(base, NULL, "[province Flanders]"));
	check_edit("inviolate = yes", "inviolate = yes\nhome = gamma",
		   "province \"Outremer\" is inviolate, so it must be neutral: remove \"home = "
		   "gamma\" or \"inviolate = yes\"", NULL, "inviolate = yes");
	check_edit("neutral = yes", "neutral = yes\nhome = beta",
		   "province \"Genève\" cannot be both neutral and a home province of \"beta\"",
		   "[province Gen", "home = beta");
	check_edit("neutral = yes", "",
		   "province \"Genève\" is neither a home province nor neutral (add \"home = "
		   "<player>\" or \"neutral = yes\")", NULL, "[province Genève]");
	check_edit("neutral = yes", "neutral = perhaps", "neutral \"perhaps\" must be yes or no",
		   NULL, "perhaps");
	check_edit("home = alpha", "home = neutral",
		   "write \"neutral = yes\" for a neutral province, not \"home = neutral\"", NULL,
		   "home = neutral");
}

static void test_route_errors(void **state)
{
	(void)state;
	check_edit("Kent ~ Flanders", "Kent ~ Flandres",
		   "route to unknown province \"Flandres\" (did you mean \"Flanders\"?)", NULL,
		   "Flandres");
	check_edit("Picardy - Hainaut", "Picardy - Picardy", "route from \"Picardy\" to itself",
		   NULL, "Picardy - Picardy");
	check_editf("Sussex ~ Normandy", "Sussex ~ Normandy\nNormandy ~ sussex", NULL,
		    "Normandy ~ sussex", "route Normandy ~ Sussex is given twice (first on line %d)",
		    line_of(base, NULL, "Sussex ~ Normandy"));
	check_editf("Kent ~ Flanders", "Kent ~ Flanders\nFlanders - Kent", NULL, "Flanders - Kent",
		    "\"Flanders\" and \"Kent\" are already joined by a sea route (line %d)",
		    line_of(base, NULL, "Kent ~ Flanders"));
	check_edit("Picardy - Hainaut", "Picardy-Hainaut",
		   "a route needs spaces around the '-': did you mean \"Picardy - Hainaut\"?", NULL,
		   "Picardy-Hainaut");
	check_edit("Picardy - Hainaut", "Picardy and Hainaut",
		   "\"Picardy and Hainaut\" is not a route", NULL, "Picardy and");
	check_edit("Picardy - Hainaut", "Picardy - ", "route has an empty province name", NULL,
		   "Picardy - \n");

	/* One province cut off, then two together. */
	check_edit("Anjou - Geneve ~ Outremer", "Anjou - Geneve",
		   "province \"Outremer\" cannot be reached from the rest of the map", NULL,
		   "[province Outremer]");
	check_edit("Anjou - Geneve ~ Outremer", "Geneve ~ Outremer",
		   "provinces \"Genève\", \"Outremer\" are cut off from the rest of the map", NULL,
		   "[province Genève]");
}

/* ------------------------------------------------------------ players */

static void test_player_errors(void **state)
{
	(void)state;
	check_editf("[player gamma]", "[player alpha]", NULL, "[player alpha]\nnation = Gamma",
		    "player \"alpha\" is defined twice (first on line %d)",
		    line_of(base, NULL, "[player alpha]"));
	check_editf("email = gil@example.org", "email = ANN@example.org", NULL, "ANN@",
		    "email \"ANN@example.org\" is already used by player \"alpha\" (line %d)",
		    line_of(base, NULL, "ann@example.org"));
	check_edit("email = ann@example.org", "email = ann.example.org",
		   "email \"ann.example.org\" has no '@' (expected name@domain", NULL,
		   "ann.example.org");
	check_edit("email = ann@example.org", "email = ann@localhost",
		   "email \"ann@localhost\" has a domain without a dot", NULL, "ann@localhost");
	check_edit("email = ann@example.org", "email = ann smith@example.org",
		   "has a character that cannot appear in an address", NULL, "ann smith");
	check_editf("nation = Gammaland", "nation = betaland", NULL, "nation = betaland",
		    "nation \"betaland\" is already played by \"beta\" (line %d)",
		    line_of(base, NULL, "nation = Betaland"));
	check_edit("start = Essex", "start = Esex",
		   "start in unknown province \"Esex\" (did you mean \"Essex\"?)", NULL, "Esex");
	check_edit("start = Essex", "start = Flanders",
		   "start province \"Flanders\" is a home province of \"alpha\", not of \"gamma\"; "
		   "the army starts in one of its own: Kent, Sussex, Surrey, Essex", NULL,
		   "start = Flanders\nelement = General     | Reg");
	check_edit("start = Essex", "start = Genève",
		   "start province \"Genève\" is not a home province of \"gamma\"", NULL,
		   "start = Genève");
}

static void test_home_province_count(void **state)
{
	(void)state;
	char *text = edit(base, "home = gamma", "home = alpha"); /* Kent */
	struct diag_list dl = {0};
	assert_null(parse(text, &dl));
	expect_error(&dl, "player \"alpha\" has 5 home provinces (Flanders, Brabant, Artois, "
		     "Hainaut, Kent); each player needs exactly four", line_of(text, NULL,
									  "[player alpha]"));
	expect_error(&dl, "player \"gamma\" has 3 home provinces (Sussex, Surrey, Essex)",
		     line_of(text, NULL, "[player gamma]"));
	/* gamma's start, Essex, is still a home province: no other error. */
	assert_int_equal(dl.errors, 2);
	diag_free(&dl);
	free(text);

	/* A misspelt home is one error, not also a wrong count for "beta". */
	text = edit(base, "home = Beta", "home = betta");
	assert_null(parse(text, &dl));
	assert_int_equal(dl.errors, 1);
	diag_free(&dl);
	free(text);
}

/* --------------------------------------------------------- army lists */

#define ALPHA_ARCHERS "element = Archers     | Bw(O) Irr | 4  | 0-60 | field 54"
#define ALPHA_KNIGHTS "element = Knights     | Kn(S) Irr | 12 | 2-24 | field 18"
#define ALPHA_SKIRM "element = Skirmishers | Ps(O) Irr | 2  | 1-8  | field 2"
#define ALPHA_GENERAL "element = General     | Kn(S) Irr | 22 | 1-1  | field 1 | general"
#define ALPHA_SUBGEN "element = Sub-general | Kn(S) Irr | 22 | 0-6  | field 1 | general"

static void test_army_totals(void **state)
{
	(void)state;
	check_edit(ALPHA_ARCHERS, "element = Archers | Bw(O) Irr | 4 | 0-60 | field 52",
		   "player \"alpha\": the field army costs 472 AP; it must be exactly 480 AP (8 AP "
		   "short)", NULL, "[player alpha]");
	check_edit(ALPHA_ARCHERS, "element = Archers | Bw(O) Irr | 4.5 | 0-60 | field 54",
		   "player \"alpha\": the field army costs 507 AP; it must be exactly 480 AP (27 AP "
		   "over)", NULL, "[player alpha]");
	check_edit(ALPHA_KNIGHTS, "element = Knights | Kn(S) Irr | 12 | 2-16 | field 18",
		   "player \"alpha\": element \"Knights\": the field army has 18, above the list "
		   "maximum of 16 (2 too many)", NULL, "element = Knights | Kn(S) Irr | 12 | 2-16");
	check_edit(ALPHA_SKIRM, "element = Skirmishers | Ps(O) Irr | 2 | 5-8 | field 2",
		   "player \"alpha\": element \"Skirmishers\": the field army has 2, below the list "
		   "minimum of 5 (3 short)", NULL, "element = Skirmishers | Ps(O) Irr | 2 | 5-8");
	check_edit(ALPHA_SUBGEN, "element = Sub-general | Kn(S) Irr | 22 | 0-6 | field 4 | general",
		   "player \"alpha\": the field army has 5 generals; DBM allows at most 4", NULL,
		   "[player alpha]");

	char *a = edit(base, ALPHA_GENERAL, "element = General | Kn(S) Irr | 22 | 1-1 | field 1");
	char *b = edit(a, ALPHA_SUBGEN, "element = Sub-general | Kn(S) Irr | 22 | 0-6 | field 1");
	check_fails(b, "player \"alpha\": the field army has no general",
		    line_of(b, NULL, "[player alpha]"));
	free(a);
	free(b);

	/* An unreadable element makes the total meaningless: not reported. */
	char *text = edit(base, ALPHA_ARCHERS, "element = Archers | Bw(O) Irr | four | 0-60 | field 54");
	struct diag_list dl = {0};
	assert_null(parse(text, &dl));
	assert_int_equal(dl.errors, 1);
	expect_error(&dl, "element \"Archers\": cost \"four\" is not a number of army points",
		     line_of(text, NULL, "| four |"));
	diag_free(&dl);
	free(text);
}

static void test_element_errors(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		const char *message;
	} cases[] = {
		{"element = Archers | Bow(O) Irr | 4 | 0-60 | field 54",
		 "element \"Archers\": unknown DBM troop type \"Bow\" (did you mean \"Bw\"?)"},
		{"element = Archers | LHh(O) Irr | 4 | 0-60 | field 54",
		 "element \"Archers\": unknown DBM troop type \"LHh\" (did you mean \"LH\"?)"},
		{"element = Archers | HCh(O) Irr | 4 | 0-60 | field 54",
		 "element \"Archers\": HCh is a DBA troop type; in DBM chariots are Kn, Cv or LH"},
		{"element = Archers | Bw(Q) Irr | 4 | 0-60 | field 54",
		 "element \"Archers\": bad grade \"Q\"; DBM grades are S, O, I, F and X"},
		{"element = Archers | Bw(O) | 4 | 0-60 | field 54",
		 "element \"Archers\": say whether it is Reg or Irr, e.g. \"Bw(O) Irr\""},
		{"element = Archers | Bw(O) Ir | 4 | 0-60 | field 54",
		 "element \"Archers\": \"Ir\" is neither a troop type nor Reg/Irr"},
		{"element = Archers | Bw Irr | 4 | 0-60 | field 54",
		 "element \"Archers\": type \"Bw Irr\" needs the grade in brackets"},
		{"element = Archers | Bw(O) Irr | -4 | 0-60 | field 54",
		 "element \"Archers\": cost -4 cannot be negative"},
		{"element = Archers | Bw(O) Irr | 4.25 | 0-60 | field 54",
		 "element \"Archers\": cost 4.25 is not a multiple of 0.5 AP"},
		{"element = Archers | Bw(O) Irr | 4 | 60-0 | field 54",
		 "element \"Archers\": list minimum 60 is above the maximum 0"},
		{"element = Archers | Bw(O) Irr | 4 | 60 | field 54",
		 "element \"Archers\": \"60\" is not a list range: write the list minimum and "
		 "maximum in elements as min-max"},
		{"element = Archers | Bw(O) Irr | 4 | -1-60 | field 54",
		 "element \"Archers\": list limits cannot be negative"},
		{"element = Archers | Bw(O) Irr | 4 | a-b | field 54",
		 "element \"Archers\": \"a-b\" is not a list range"},
		{"element = Archers | Bw(O) Irr | 4 | 0-60 | field -3",
		 "element \"Archers\": field -3 cannot be negative"},
		{"element = Archers | Bw(O) Irr | 4 | 0-60 | field many",
		 "element \"Archers\": field \"many\" is not a whole number of elements"},
		{"element = Archers | Bw(O) Irr | 4 | 0-60 | 54",
		 "element \"Archers\": write \"field 54\" for the number of elements"},
		{"element = Archers | Bw(O) Irr | 4 | 0-60 | feild 54",
		 "element \"Archers\": unknown field \"feild\" (did you mean \"field\"?)"},
		{"element = Archers | Bw(O) Irr | 4 | 0-60 | field 54 | field 2",
		 "element \"Archers\": \"field\" is given twice"},
		{"element = Archers | Bw(O) Irr | 4",
		 "element needs at least: label | type | cost | min-max"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text = edit(base, ALPHA_ARCHERS, cases[i].line);
		check_fails(text, cases[i].message, line_of(text, NULL, cases[i].line));
		free(text);
	}
	check_editf(ALPHA_ARCHERS, "element = knights | Bw(O) Irr | 4 | 0-60 | field 54", NULL,
		    "element = knights", "element \"knights\" is listed twice for player "
		    "\"alpha\" (first on line %d)", line_of(base, NULL, ALPHA_KNIGHTS));
	/* Codes are matched without regard to case; the model gets DBM's spelling. */
	char *text = edit(base, ALPHA_ARCHERS, "element = Archers | bW(o) irr | 4 | 0-60 | field 54");
	struct diag_list dl = {0};
	struct campaign *c = parse(text, &dl);
	assert_non_null(c);
	assert_string_equal(c->players[0].list.types[3].code, "Bw");
	assert_int_equal(c->players[0].list.types[3].grade, 'O');
	campaign_free(c);
	diag_free(&dl);
	free(text);
}

/* Warnings are shown but do not stop the campaign. */
static void test_warnings(void **state)
{
	(void)state;
	char *a = edit(base, "position = 450, 300", "position = 400, 300"); /* Brabant on Flanders */
	char *text = edit(a, ALPHA_SKIRM, ALPHA_SKIRM "\nelement = Elephants | El(O) Irr | 16 | 0-0");
	struct diag_list dl = {0};
	struct campaign *c = parse(text, &dl);
	if (!c)
		dump(&dl);
	assert_non_null(c);
	assert_int_equal(dl.errors, 0);
	assert_int_equal(dl.count, 2);
	const struct diag *d = diag_find(&dl, "province \"Brabant\" is drawn at the same position "
					 "as \"Flanders\"");
	assert_non_null(d);
	assert_int_equal(d->level, DIAG_WARNING);
	assert_int_equal(d->line, line_of(text, NULL, "[province Brabant]"));
	d = diag_find(&dl, "element \"Elephants\" has a list maximum of 0: it can never be fielded");
	assert_non_null(d);
	assert_int_equal(d->level, DIAG_WARNING);
	assert_int_equal(d->line, line_of(text, NULL, "Elephants"));
	assert_int_equal(c->players[0].list.count, 6);
	campaign_free(c);
	diag_free(&dl);
	free(a);
	free(text);
}

/* ---------------------------------------------------- all errors at once */

static void test_all_errors_in_one_run(void **state)
{
	(void)state;
	char *t1 = edit(base, "terrain = Waterway", "terain = Waterway");
	char *t2 = edit(t1, "Kent ~ Flanders", "Kent ~ Flandres");
	char *t3 = edit(t2, "start = Essex", "start = Esex");
	char *t4 = edit(t3, ALPHA_ARCHERS, "element = Archers | Bw(O) Irr | 4 | 0-60 | field 52");
	char *text = edit(t4, "email = bob@example.net", "email = bob.example.net");
	struct diag_list dl = {0};
	assert_null(parse(text, &dl));
	if (dl.count != 5)
		dump(&dl);
	assert_int_equal(dl.errors, 5);
	assert_int_equal(dl.count, 5);
	expect_error(&dl, "unknown key \"terain\"", line_of(text, NULL, "terain"));
	expect_error(&dl, "route to unknown province \"Flandres\"", line_of(text, NULL, "Flandres"));
	expect_error(&dl, "start in unknown province \"Esex\"", line_of(text, NULL, "Esex"));
	expect_error(&dl, "field army costs 472 AP", line_of(text, NULL, "[player alpha]"));
	expect_error(&dl, "email \"bob.example.net\" has no '@'",
		     line_of(text, NULL, "bob.example.net"));
	/* Reported in file order. */
	for (size_t i = 1; i < dl.count; i++)
		assert_true(dl.items[i - 1].line < dl.items[i].line);
	diag_free(&dl);
	free(t1);
	free(t2);
	free(t3);
	free(t4);
	free(text);
}

/* Any prefix of a valid file, and any byte changed, gives diagnostics or a
 * campaign, never a crash (the sanitizer and valgrind runs check the rest). */
static void test_never_crashes(void **state)
{
	(void)state;
	size_t len = strlen(base);
	for (size_t n = 0; n < len; n += 5) {
		struct diag_list dl = {0};
		struct campaign *c = campaign_file_parse(base, n, "prefix.campaign", &dl);
		assert_true(c != NULL || dl.errors > 0);
		campaign_free(c);
		diag_free(&dl);
	}
	char *copy = xstrdup(base);
	static const char noise[] = "[]=|#~-,(\n\0\xC3\xFF";
	uint32_t seed = 12345;
	for (int i = 0; i < 400; i++) {
		memcpy(copy, base, len);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t pos = (seed >> 8) % len;
			copy[pos] = noise[(seed >> 3) % (sizeof noise - 1)];
		}
		struct diag_list dl = {0};
		struct campaign *c = campaign_file_parse(copy, len, "noise.campaign", &dl);
		assert_true(c != NULL || dl.errors > 0);
		campaign_free(c);
		diag_free(&dl);
	}
	free(copy);
}

/* ------------------------------------------------------ files on disk */

static void test_load_unreadable(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	assert_null(campaign_file_load("no/such/dir/x.campaign", &dl));
	assert_int_equal(dl.errors, 1);
	assert_string_equal(dl.items[0].file, "no/such/dir/x.campaign");
	assert_int_equal(dl.items[0].line, 0);
	assert_string_equal(dl.items[0].message, "cannot read: No such file or directory");
	diag_free(&dl);

	char *dir = test_source_path("tests");
	assert_null(campaign_file_load(dir, &dl));
	assert_non_null(diag_find(&dl, "cannot read: Is a directory"));
	diag_free(&dl);
	free(dir);
}

static void test_example_campaign(void **state)
{
	(void)state;
	char *path = test_source_path("contrib/examples/europe1450.campaign");
	struct diag_list dl = {0};
	struct campaign *c = campaign_file_load(path, &dl);
	if (dl.count)
		dump(&dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0); /* no errors and no warnings */

	assert_int_equal(c->start_year, 1450);
	assert_string_equal(c->timezone, "Europe/Paris");
	assert_int_equal(c->province_count, 29);
	assert_int_equal(c->route_count, 48);
	assert_int_equal(c->player_count, 4);
	assert_true(campaign_connected(c));
	int sea = 0;
	for (size_t i = 0; i < c->route_count; i++)
		sea += c->routes[i].sea;
	assert_int_equal(sea, 4);
	int neutral = 0, inviolate = 0;
	for (size_t i = 0; i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		neutral += p->owner == NO_INDEX;
		inviolate += p->inviolate;
		assert_true(p->x >= 0 && p->x <= 1000 && p->y >= 0 && p->y <= 700);
		assert_non_null(p->terrain);
		assert_non_null(p->climate);
	}
	assert_int_equal(neutral, 13);
	assert_int_equal(inviolate, 2);
	assert_true(c->provinces[campaign_find_province(c, "Scotland")].inviolate);
	assert_true(c->provinces[campaign_find_province(c, "Hungary")].inviolate);

	static const char *const keys[] = {"france", "england", "burgundy", "empire"};
	static const char *const starts[] = {"Île-de-France", "London", "Flanders", "Franconia"};
	for (size_t i = 0; i < 4; i++) {
		int y = campaign_find_player(c, keys[i]);
		assert_int_equal(y, (int)i);
		const struct player *p = &c->players[y];
		assert_int_equal(player_province_count(c, y), 4);
		assert_int_equal(player_field_half_ap(p), HALF_AP(480));
		int generals = troops_generals(&p->list, &p->field);
		assert_true(generals >= 2 && generals <= 4);
		assert_int_equal(p->location, campaign_find_province(c, starts[i]));
		assert_int_equal(c->provinces[p->location].owner, y);
		assert_non_null(strstr(p->email, "@example."));
	}
	assert_int_equal(c->organiser_player, campaign_find_player(c, "france"));
	assert_int_equal(campaign_find_player(c, "Holy Roman Empire"), 3);
	/* Two neighbours across the Channel, and Paris two stages from Brussels. */
	int kent = campaign_find_province(c, "Kent"), flanders = campaign_find_province(c, "Flanders");
	assert_true(c->routes[campaign_route_between(c, kent, flanders)].sea);
	assert_int_equal(campaign_distance(c, campaign_find_province(c, "Ile de France"),
					   campaign_find_province(c, "Brabant")), 2);
	campaign_free(c);
	diag_free(&dl);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_campaign),
		cmocka_unit_test(test_crlf_and_bom),
		cmocka_unit_test(test_player_count),
		cmocka_unit_test(test_unknown_keys_and_sections),
		cmocka_unit_test(test_misspelt_key_reported_once),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_campaign_values),
		cmocka_unit_test(test_campaign_tag),
		cmocka_unit_test(test_missing_required_keys),
		cmocka_unit_test(test_province_errors),
		cmocka_unit_test(test_route_errors),
		cmocka_unit_test(test_player_errors),
		cmocka_unit_test(test_home_province_count),
		cmocka_unit_test(test_army_totals),
		cmocka_unit_test(test_element_errors),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_all_errors_in_one_run),
		cmocka_unit_test(test_never_crashes),
		cmocka_unit_test(test_load_unreadable),
		cmocka_unit_test(test_example_campaign),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
