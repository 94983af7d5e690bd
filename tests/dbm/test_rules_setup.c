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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_increased_proportionally),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_full_list_kept),
		cmocka_unit_test(test_problems),
		cmocka_unit_test(test_list_file_syntax),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
