/* Unit tests for the national army list derived for the campaign (1.3),
 * worked by hand. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dbm/rules.h"
#include "model/campaign_file.h"
#include "base/util.h"
#include "lib/files.h"

#include <stdlib.h>

/* Parses a list file's text; fails the test on any parse error. */
static struct campaign *lists(const char *text)
{
	struct diag_list dl = {0};
	struct campaign *c = campaign_file_parse_lists(text, strlen(text), "t.list", &dl);
	if (!c)
		diag_print(&dl, stderr);
	assert_non_null(c);
	diag_free(&dl);
	return c;
}

static const struct element_type *line(const struct campaign *c, const char *label)
{
	int i = army_list_find(&c->players[0].list, label);
	assert_true(i >= 0);
	return &c->players[0].list.types[i];
}

/* Generals 3 x 22 = 66 AP; troops 10 x 12 + 20 x 4 + 2 x 8 + 3 x 2 = 222 AP;
 * 288 AP in all, under 480. Troop lines x (480 - 66)/222 = 414/222 (1.8649):
 *   Knights  max 10 -> 18.65 -> 19, min 4 -> 7.46 -> 7
 *   Archers  max 20 -> 37.30 -> 38, min 6 -> 11.19 -> 11
 *   Guns     max 2  -> 3.73  -> 4,  min 1 -> 1.86 -> 1
 *   Psiloi   max 3  -> 5.59  -> 6,  min 0 stays 0
 * Derived: 66 + 228 + 152 + 32 + 12 = 490 AP, between 480 and 600. */
static const char small_list[] =
	"[player burgundy]\n"
	"nation = Burgundy\n"
	"element = Duke    | Kn(S) Irr  | 22 | 1-1  | general\n"
	"element = Captains| Kn(S) Irr  | 22 | 0-2  | general\n"
	"element = Knights | Kn(S) Irr  | 12 | 4-10\n"
	"element = Archers | Bw(O) Irr  | 4  | 6-20\n"
	"element = Guns    | Art(O) Reg | 8  | 1-2\n"
	"element = Psiloi  | Ps(O) Irr  | 2  | 0-3\n";

static void test_increased_proportionally(void **state)
{
	(void)state;
	struct campaign *c = lists(small_list);
	struct diag_list dl = {0};
	struct list_derivation d;
	assert_int_equal(rules_derive_army_list(&c->players[0].list, "t.list", 1, &d, &dl), 0);
	assert_true(d.increased);
	assert_int_equal(d.before_half_ap, HALF_AP(288));
	assert_int_equal(d.general_half_ap, HALF_AP(66));
	assert_int_equal(d.factor_num, HALF_AP(414));
	assert_int_equal(d.factor_den, HALF_AP(222));
	assert_int_equal(line(c, "Knights")->list_max, 19);
	assert_int_equal(line(c, "Knights")->list_min, 7);
	assert_int_equal(line(c, "Archers")->list_max, 38);
	assert_int_equal(line(c, "Archers")->list_min, 11);
	assert_int_equal(line(c, "Guns")->list_max, 4);
	assert_int_equal(line(c, "Guns")->list_min, 1);
	assert_int_equal(line(c, "Psiloi")->list_max, 6);
	assert_int_equal(line(c, "Psiloi")->list_min, 0);
	/* Generals as DBM gives them: never multiplied. */
	assert_int_equal(line(c, "Duke")->list_max, 1);
	assert_int_equal(line(c, "Captains")->list_max, 2);
	assert_int_equal(d.max_generals, 3);
	assert_int_equal(d.after_half_ap, HALF_AP(490));
	diag_free(&dl);
	campaign_free(c);
}

/* A factor barely above one: 22 + 2 + 455 = 479 AP, troops 457 AP x
 * 458/457. Every maximum goes up a whole element (1 -> 1.002 -> 2,
 * 91 -> 91.2 -> 92), every minimum stays (1 -> 1.002 -> 1). */
static void test_rounding(void **state)
{
	(void)state;
	struct campaign *c = lists("[player p]\n"
				   "element = General | Cv(O) Reg | 22  | 1-1 | general\n"
				   "element = Ps      | Ps(O) Irr | 2   | 1-1\n"
				   "element = Bd      | Bd(O) Irr | 5   | 1-91\n");
	struct diag_list dl = {0};
	struct list_derivation d;
	assert_int_equal(rules_derive_army_list(&c->players[0].list, "t.list", 1, &d, &dl), 0);
	assert_true(d.increased);
	assert_int_equal(line(c, "Ps")->list_min, 1);
	assert_int_equal(line(c, "Ps")->list_max, 2);
	assert_int_equal(line(c, "Bd")->list_min, 1);
	assert_int_equal(line(c, "Bd")->list_max, 92);
	diag_free(&dl);
	campaign_free(c);
}

static void test_full_list_kept(void **state)
{
	(void)state;
	struct campaign *c = lists("[player p]\n"
				   "element = General | Cv(O) Reg | 22 | 1-1 | general\n"
				   "element = Bw      | Bw(O) Irr | 4  | 10-120\n");
	struct diag_list dl = {0};
	struct list_derivation d;
	assert_int_equal(rules_derive_army_list(&c->players[0].list, "t.list", 1, &d, &dl), 0);
	assert_false(d.increased);
	assert_int_equal(d.after_half_ap, HALF_AP(502));
	assert_int_equal(line(c, "Bw")->list_min, 10);
	assert_int_equal(line(c, "Bw")->list_max, 120);
	diag_free(&dl);
	campaign_free(c);
}

static void test_problems(void **state)
{
	(void)state;
	/* Five generals allowed (line 3), and rounding up two 100 AP lines
	 * (22 + 200 AP, x 458/200 -> 3 each) makes 622 AP, over 600. */
	struct campaign *c = lists("[player p]\n"
				   "element = General | Cv(O) Reg | 22  | 1-1 | general\n"
				   "element = Subs    | Cv(O) Reg | 22  | 0-4 | general\n"
				   "element = Big     | El(O) Irr | 100 | 1-1\n"
				   "element = Bigger  | El(O) Irr | 100 | 0-1\n");
	struct diag_list dl = {0};
	struct list_derivation d;
	/* With the sub-generals: 110 + 200 = 310 AP; x 370/200 -> 2 each: 510 AP. */
	assert_int_equal(rules_derive_army_list(&c->players[0].list, "t.list", 1, &d, &dl), 1);
	const struct diag *g = diag_find(&dl, "allow 5 generals");
	assert_non_null(g);
	assert_int_equal(g->line, 3);
	assert_int_equal(d.after_half_ap, HALF_AP(510));
	diag_free(&dl);
	campaign_free(c);

	c = lists("[player p]\n"
		  "element = General | Cv(O) Reg | 22  | 1-1 | general\n"
		  "element = Big     | El(O) Irr | 100 | 1-1\n"
		  "element = Bigger  | El(O) Irr | 100 | 0-1\n");
	memset(&dl, 0, sizeof dl);
	assert_int_equal(rules_derive_army_list(&c->players[0].list, "t.list", 1, &d, &dl), 1);
	assert_int_equal(d.after_half_ap, HALF_AP(622));
	assert_non_null(diag_find(&dl, "totals 622 AP, above the 600 AP"));
	diag_free(&dl);
	campaign_free(c);

	c = lists("[player p]\n"
		  "element = Bw | Bw(O) Irr | 4 | 121-200\n");
	memset(&dl, 0, sizeof dl);
	assert_int_equal(rules_derive_army_list(&c->players[0].list, "t.list", 7, &d, &dl), 2);
	assert_non_null(diag_find(&dl, "no general"));
	const struct diag *m = diag_find(&dl, "minimums cost 484 AP");
	assert_non_null(m);
	assert_int_equal(m->line, 7);
	diag_free(&dl);
	campaign_free(c);
}

static void test_list_file_syntax(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	/* A whole campaign file: the other sections are skipped unread. */
	const char text[] = "[campaign]\nname = x\n[routes]\nA - B\n"
			    "[player p]\nelement = Bw | Bw(O) | 4 | 1-2\n";
	assert_null(campaign_file_parse_lists(text, strlen(text), "t.list", &dl));
	assert_int_equal(dl.errors, 1);
	const struct diag *r = diag_find(&dl, "Reg or Irr");
	assert_non_null(r);
	assert_int_equal(r->line, 6);
	/* Only the element lines are required. */
	assert_null(diag_find(&dl, "has no email"));
	diag_free(&dl);
}

/* minimal.campaign with gamma's start line and field counts removed (or,
 * with keep_start, only the field counts). */
static struct campaign *open_gamma(bool keep_start, struct diag_list *dl)
{
	char *text = test_source_text("tests/data/campaign/minimal.campaign", NULL);
	char *g = strstr(text, "[player gamma]");
	assert_non_null(g);
	struct strbuf sb = {0};
	strbuf_append(&sb, text, (size_t)(g - text));
	for (char *line = g, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!keep_start && strncmp(line, "start", 5) == 0)
			continue;
		char *f = strstr(line, "| field ");
		if (f) {
			char *end = f + 8;
			while (*end >= '0' && *end <= '9')
				end++;
			memmove(f, end, strlen(end) + 1);
		}
		strbuf_printf(&sb, "%s\n", line);
	}
	free(text);
	struct campaign *c = campaign_file_parse(sb.data, sb.len, "open.campaign", dl);
	strbuf_free(&sb);
	return c;
}

static void test_setup_by_mail_rules(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	/* a start without a field army is an error, as before */
	assert_null(open_gamma(true, &dl));
	assert_non_null(diag_find(&dl, "player \"gamma\": the field army costs 0 AP"));
	diag_free(&dl);
	memset(&dl, 0, sizeof dl);
	struct campaign *c = open_gamma(false, &dl);
	if (!c)
		diag_print(&dl, stderr);
	assert_non_null(c);
	diag_free(&dl);
	const int g = 2;
	const struct player *p = &c->players[g];
	assert_true(p->setup_by_mail);
	assert_false(c->players[0].setup_by_mail);
	assert_int_equal(p->location, NO_INDEX);
	/* General 22, Sub-general 22, Knights 12, Archers 4, Auxilia 3.5,
	 * Levy 0.5, Skirmishers 2 */
	assert_int_equal(rules_setup_cinc_line(&p->list), 0);
	int army[7] = {1, 1, 18, 52, 2, 2, 2}; /* 480 AP */
	struct rules_reason why;
	assert_int_equal(rules_setup_army_check(p, army, &why), RULES_OK);
	char *lines[8];
	assert_int_equal(rules_setup_missing(c, g, army, 11, lines, 8), 0);

	int over[7] = {1, 1, 18, 53, 2, 2, 2}; /* 484 AP */
	assert_int_equal(rules_setup_army_check(p, over, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the army costs 484 AP, 4 AP over the 480 AP of a field army");
	int above[7] = {1, 1, 2, 0, 5, 0, 1};
	assert_int_equal(rules_setup_army_check(p, above, &why), RULES_REFUSED);
	assert_string_equal(why.text, "5 Auxilia is above the list maximum of 4");
	int generals[7] = {1, 4, 2, 0, 0, 0, 1};
	assert_int_equal(rules_setup_army_check(p, generals, &why), RULES_REFUSED);
	assert_string_equal(why.text, "5 generals: DBM allows at most 4");

	/* 1 General, 2 Knights, 1 Skirmishers = 48 AP: 432 AP to spend, and
	 * no start yet. */
	int small[7] = {1, 0, 2, 0, 0, 0, 1};
	size_t n = rules_setup_missing(c, g, small, NO_INDEX, lines, 8);
	assert_int_equal(n, 2);
	assert_string_equal(lines[0], "432 AP still to spend (a field army costs 480 AP)");
	assert_string_equal(lines[1], "where your army starts: START IN one of Kent, Sussex, "
				      "Surrey, Essex");
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	int no_cinc[7] = {0, 1, 1, 0, 0, 0, 0};
	n = rules_setup_missing(c, g, no_cinc, 11, lines, 8);
	assert_true(n >= 3);
	assert_string_equal(lines[0], "your C-in-C: 1 General");
	assert_string_equal(lines[1], "1 more Knights (the list minimum is 2)");
	assert_string_equal(lines[2], "1 more Skirmishers (the list minimum is 1)");
	for (size_t i = 0; i < n && i < 8; i++)
		free(lines[i]);
	n = rules_setup_missing(c, g, NULL, NO_INDEX, lines, 1); /* more than max: counted */
	assert_int_equal(n, 2);
	free(lines[0]);

	/* the default: minimums (22 + 24 + 2 = 48 AP), then Knights to 24
	 * (+264 = 312), Archers while it fits (+168: 42), nothing left */
	int def[7], start;
	rules_setup_default(c, g, def, &start);
	assert_int_equal(def[0], 1);
	assert_int_equal(def[1], 0);
	assert_int_equal(def[2], 24);
	assert_int_equal(def[3], 42);
	assert_int_equal(def[4], 0);
	assert_int_equal(def[5], 0);
	assert_int_equal(def[6], 1);
	assert_string_equal(c->provinces[start].name, "Kent");
	assert_int_equal(rules_setup_army_check(p, def, &why), RULES_OK);
	assert_int_equal(rules_setup_missing(c, g, def, start, lines, 8), 0);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_increased_proportionally),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_full_list_kept),
		cmocka_unit_test(test_problems),
		cmocka_unit_test(test_list_file_syntax),
		cmocka_unit_test(test_setup_by_mail_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
