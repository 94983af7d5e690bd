/* Unit tests for recruitment, generals, changing the army, profound peace
 * (3.1) and prestige for provinces (3.2). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"

/* Burgundy holds A and B (its homes), C, and France's home F; Venice, its
 * tributary, holds P and Q; France holds G. */
enum { A, B, C, F, P, Q, G };

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	fx_province(c, "A", 0, true);
	fx_province(c, "B", 0, true);
	fx_province(c, "C", 0, false);
	fx_province(c, "F", 2, true);
	fx_province(c, "P", 1, true);
	fx_province(c, "Q", 1, false);
	fx_province(c, "G", 2, false);
	c->provinces[F].owner = 0; /* captured from France */
	fx_route(c, A, B, false);
	w->bur = fx_player(c, "burgundy", A);
	w->ven = fx_player(c, "venice", P);
	w->fra = fx_player(c, "france", G);
	c->players[w->ven].overlord = w->bur;
	c->phase = PHASE_RECRUITMENT;
	/* Burgundy has lost 3 Kn and 12 Sp: field 384 AP, reserve 96 AP. */
	struct player *b = &c->players[w->bur];
	b->field.count[T_KN] = 7;
	b->field.count[T_SP] = 18;
	b->reserve.count[T_KN] = 3;
	b->reserve.count[T_SP] = 12;
	return fx_world_start(state, w);
}

static void test_allowance(void **state)
{
	struct fx_world *w = *state;
	assert_int_equal(rules_recruit_allowance(w->c, w->bur), HALF_AP(40));
	assert_int_equal(rules_recruit_allowance(w->c, w->ven), HALF_AP(20));
}

/* Sp is below its list minimum (18 of 20): those two come first. */
static void test_minimums_first(void **state)
{
	struct fx_world *w = *state;
	struct rules_reason why;
	int kn_and_one_sp[T_COUNT] = {0, 0, 1, 0, 1, 0, 0};
	assert_int_equal(rules_recruit(w->c, w->bur, kn_and_one_sp, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the army is below the list minimum of 20 \"Sp(O)\": that comes before any other troops");
	int one_sp[T_COUNT] = {0, 0, 0, 0, 1, 0, 0};
	assert_int_equal(rules_recruit_check(w->c, w->bur, one_sp, &why), RULES_OK);
	/* 2 Sp (10 AP) and 2 Kn (24 AP): 34 AP of 40. */
	int ok[T_COUNT] = {0, 0, 2, 0, 2, 0, 0};
	assert_int_equal(rules_recruit(w->c, w->bur, ok, &w->log, &why), RULES_OK);
	struct player *b = &w->c->players[w->bur];
	assert_int_equal(b->field.count[T_SP], 20);
	assert_int_equal(b->field.count[T_KN], 9);
	assert_int_equal(b->reserve.count[T_KN], 1);
	assert_int_equal(fx_int(event_log_last(&w->log, "recruit"), "half_ap"), HALF_AP(34));
}

static void test_allowance_is_a_maximum(void **state)
{
	struct fx_world *w = *state;
	struct rules_reason why;
	/* 2 Sp + 3 Kn = 46 AP: too much. */
	int much[T_COUNT] = {0, 0, 3, 0, 2, 0, 0};
	assert_int_equal(rules_recruit_check(w->c, w->bur, much, &why), RULES_REFUSED);
	assert_string_equal(why.text, "recruits worth 46 AP asked for; 4 provinces allow at most 40 AP");
	int more_than_reserve[T_COUNT] = {0, 0, 4, 0, 0, 0, 0};
	assert_int_equal(rules_recruit_check(w->c, w->bur, more_than_reserve, &why), RULES_REFUSED);
	/* The ceiling: after profound peace, 440 AP. */
	w->c->players[w->bur].cap_half_ap = HALF_AP(390);
	int two_sp[T_COUNT] = {0, 0, 0, 0, 2, 0, 0};
	assert_int_equal(rules_recruit_check(w->c, w->bur, two_sp, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the field army would be 394 AP, above its ceiling of 390 AP");
	w->c->phase = PHASE_CAMPAIGN;
	assert_int_equal(rules_recruit_check(w->c, w->bur, two_sp, &why), RULES_REFUSED);
	assert_string_equal(why.text, "troops are recruited in the recruitment phase");
}

/* In the campaign phase a general costs troops of equal value. */
static void test_retrieve_general(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct player *b = &c->players[w->bur];
	struct rules_reason why;
	b->field.count[T_SUB] = 1;
	b->reserve.count[T_SUB] = 1;
	assert_int_equal(rules_retrieve_general(c, w->bur, T_SUB, NULL, &w->log, &why),
			 RULES_REFUSED);
	assert_string_equal(why.text, "in the recruitment phase generals are recruited like other troops");
	c->phase = PHASE_CAMPAIGN;
	int before = player_field_half_ap(b);
	int pay[T_COUNT] = {0, 0, 0, 0, 6, 0, 0}; /* 30 AP for a 28 AP general */
	assert_int_equal(rules_retrieve_general(c, w->bur, T_SUB, pay, &w->log, &why), RULES_OK);
	assert_int_equal(b->field.count[T_SUB], 2);
	assert_int_equal(player_field_half_ap(b), before - HALF_AP(30) + HALF_AP(28));
	assert_int_equal(rules_retrieve_general(c, w->bur, T_KN, NULL, &w->log, &why),
			 RULES_REFUSED);
	assert_string_equal(why.text, "that is not a general of burgundy's list");
}

static void test_change_army(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct player *b = &c->players[w->bur];
	struct rules_reason why;
	int all_generals[T_COUNT] = {1, 2, 0, 0, 0, 0, 0};
	assert_int_equal(rules_dismiss(c, w->bur, all_generals, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "you must always have at least one general");
	int two_kn[T_COUNT] = {0, 0, 2, 0, 0, 0, 0};
	assert_int_equal(rules_dismiss(c, w->bur, two_kn, &w->log, &why), RULES_OK);
	assert_int_equal(b->reserve.count[T_KN], 5);
	/* The reserve (5 Kn 60 AP + 12 Sp 60 AP = 120 AP) becomes 5 Kn, 10 Sp
	 * and 2 LH: 60 + 50 + 10 = 120 AP. */
	int changed[T_COUNT] = {0, 0, 5, 2, 10, 0, 0};
	assert_int_equal(rules_change_reserve(c, w->bur, changed, &w->log, &why), RULES_OK);
	assert_int_equal(b->reserve.count[T_LH], 2);
	int dearer[T_COUNT] = {0, 0, 5, 3, 10, 0, 0};
	assert_int_equal(rules_change_reserve(c, w->bur, dearer, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the new reserve is worth 125 AP, more than the 120 AP it replaces");
	int below_min[T_COUNT] = {0, 0, 5, 2, 0, 0, 0};
	assert_int_equal(rules_change_reserve(c, w->bur, below_min, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the army would have 18 \"Sp(O)\", below the list minimum of 20");
	int above_max[T_COUNT] = {0, 0, 5, 3, 10, 0, 0}; /* LH: 10 + 3 > 12 */
	b->reserve.count[T_SP] = 20;
	assert_int_equal(rules_change_reserve(c, w->bur, above_max, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the army would have 13 \"LH(O)\", above the list maximum of 12");
}

static void test_profound_peace_cap(void **state)
{
	(void)state;
	assert_int_equal(rules_profound_peace_cap(HALF_AP(480), 2), HALF_AP(480));
	assert_int_equal(rules_profound_peace_cap(HALF_AP(480), 3), HALF_AP(440));
	assert_int_equal(rules_profound_peace_cap(HALF_AP(480), 5), HALF_AP(440));
	assert_int_equal(rules_profound_peace_cap(HALF_AP(480), 6), HALF_AP(400));
	assert_int_equal(rules_profound_peace_cap(HALF_AP(420), 3), HALF_AP(420));
}

/* Six quiet years in a row: the ceiling falls after the 3rd (not the 2nd)
 * and again after the 6th (not the 5th); the troops above it go to the
 * reserve. A battle brings it back. */
static void test_profound_peace_years(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct player *v = &c->players[w->ven];
	static const int caps[] = {480, 480, 440, 440, 440, 400};
	for (int year = 1; year <= 6; year++) {
		v->fought_this_year = false;
		rules_profound_peace(c, w->ven, NULL, &w->log);
		assert_int_equal(v->quiet_years, year);
		assert_int_equal(v->cap_half_ap, HALF_AP(caps[year - 1]));
		assert_int_equal(player_field_half_ap(v), HALF_AP(caps[year - 1]));
	}
	assert_int_equal(player_reserve_half_ap(v), HALF_AP(80));
	v->fought_this_year = true;
	rules_profound_peace(c, w->ven, NULL, &w->log);
	assert_int_equal(v->quiet_years, 0);
	assert_int_equal(v->cap_half_ap, HALF_AP(480));
}

/* Burgundy: homes A and B (6 each), C and France's home F (4 each), its
 * tributary Venice's P and Q (2 each): 12 + 8 + 4 = 24. */
static void test_province_prestige(void **state)
{
	struct fx_world *w = *state;
	assert_int_equal(rules_province_prestige(w->c, w->bur), 24);
	assert_int_equal(rules_province_prestige(w->c, w->ven), 10);
	assert_int_equal(rules_province_prestige(w->c, w->fra), 4);
}

/* Audit, 3.1 "Recruitment": 4 provinces: 40 AP. Sp is 2 under its minimum
 * (18 of 20): 2 Sp and 2 Kn (34 AP) are allowed; 1 Sp and 2 Kn, or 3 Kn,
 * are not (the shortfall first); 8 Sp (40 AP) are; 2 Sp and 3 Kn (46 AP)
 * exceed the allowance. Under a ceiling of 400 AP (six quiet years) the
 * 384 AP army may take 3 Sp (399) but not 4 (404). */
static void test_audit_recruitment_cases(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct player *b = &c->players[w->bur];
	assert_int_equal(player_field_half_ap(b), HALF_AP(384));
	int take[T_COUNT] = {0};
	fx_set(take, (const int[]){0, 0, 2, 0, 2, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_OK);
	fx_set(take, (const int[]){0, 0, 2, 0, 1, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_REFUSED);
	fx_set(take, (const int[]){0, 0, 3, 0, 0, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_REFUSED);
	fx_set(take, (const int[]){0, 0, 0, 0, 8, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_OK);
	fx_set(take, (const int[]){0, 0, 3, 0, 2, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_REFUSED);
	/* which limit refuses first, and what the minimums need (the
	 * recruitment mail's reasons) */
	struct rules_reason why;
	assert_int_equal(rules_recruit_limit(c, w->bur, take, &why), RECRUIT_LIMIT_ALLOWANCE);
	fx_set(take, (const int[]){0, 0, 3, 0, 0, 0, 0});
	assert_int_equal(rules_recruit_limit(c, w->bur, take, &why), RECRUIT_LIMIT_LIST_MIN);
	assert_non_null(strstr(why.text, "below the list minimum of 20"));
	fx_set(take, (const int[]){0, 0, 0, 0, 2, 0, 0});
	assert_int_equal(rules_recruit_limit(c, w->bur, take, NULL), RECRUIT_LIMIT_NONE);
	int fill[T_COUNT] = {0};
	assert_int_equal(rules_recruit_minimums(c, w->bur, fill), 1);
	assert_int_equal(fill[4], 2);
	assert_int_equal(fill[2], 0);
	b->cap_half_ap = rules_profound_peace_cap(b->original_half_ap, 6);
	fx_set(take, (const int[]){0, 0, 0, 0, 3, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_OK);
	fx_set(take, (const int[]){0, 0, 0, 0, 4, 0, 0});
	assert_int_equal(rules_recruit_check(c, w->bur, take, NULL), RULES_REFUSED);
	assert_int_equal(rules_recruit(c, w->bur, (const int[]){0, 0, 0, 0, 3, 0, 0}, &w->log,
				       NULL), RULES_OK);
	assert_int_equal(player_field_half_ap(b), HALF_AP(399));
}

/* Audit, 3.2 "Prestige for provinces": only direct tributaries count. With
 * France made Venice's tributary, Burgundy still has 24 (its own 6 + 6 + 4 +
 * 4 and Venice's 2 + 2, not France's G); Venice 6 + 4 + 2 (G) = 12. */
static void test_audit_prestige_direct_tributaries_only(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[w->fra].overlord = w->ven;
	assert_int_equal(rules_province_prestige(c, w->bur), 24);
	assert_int_equal(rules_province_prestige(c, w->ven), 12);
	assert_int_equal(rules_province_prestige(c, w->fra), 4);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_allowance), T(test_minimums_first), T(test_allowance_is_a_maximum),
		T(test_retrieve_general), T(test_change_army), T(test_profound_peace_cap),
		T(test_profound_peace_years), T(test_province_prestige),
		T(test_audit_recruitment_cases), T(test_audit_prestige_direct_tributaries_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
