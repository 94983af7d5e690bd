/* Unit tests for generic losses (1.3 Losing troops). Costs in the fixture:
 * C-in-C 30, Sub 28, Kn 12, LH 5, Sp 5, Ps 2, Ax 3.5 AP. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lib/rules_fixture.h"
#include "base/util.h"

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	int home = fx_province(w->c, "Home", 0, true);
	w->bur = fx_player(w->c, "burgundy", home);
	*state = w;
	return 0;
}

/* 40 AP from the standard army. Far from the end (more than three times
 * the dearest element, a 12 AP knight, is due) one spearman goes, from the
 * arm holding the most AP (150); the 35 AP left are paid exactly, with the
 * fewest elements: 2 Kn + 2 Ax + 2 Ps = 24 + 7 + 4. */
static void test_default_spreads_then_pays_exactly(void **state)
{
	struct fx_world *w = *state;
	int lost = rules_generic_loss(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, NULL,
				      RULE_SUPPLY, "out of supply", &w->log);
	assert_int_equal(lost, HALF_AP(40));
	struct player *p = &w->c->players[w->bur];
	assert_int_equal(p->field.count[T_SP], 29);
	assert_int_equal(p->field.count[T_KN], 8);
	assert_int_equal(p->field.count[T_AX], 10);
	assert_int_equal(p->field.count[T_PS], 14);
	assert_int_equal(p->reserve.count[T_KN], 2);
	assert_int_equal(player_field_half_ap(p), HALF_AP(440));
	json_t *ev = event_log_last(&w->log, "loss");
	assert_string_equal(fx_str(ev, "chosen_by"), "default");
	assert_true(json_is_true(json_object_get(ev, "paid_in_full")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ev, "elements"),
							    "Sp(O)")), 1);
}

/* Rounded against the player: an army of knights (12 AP) owing 40 AP loses
 * four of them, 48 AP. With the whole army, 7 AP are paid exactly. */
static void test_rounded_against(void **state)
{
	struct fx_world *w = *state;
	int pick[T_COUNT];
	assert_int_equal(rules_default_loss_pick(w->c, w->bur, NO_INDEX, HALF_AP(7), 0, pick),
			 HALF_AP(7));
	fx_set(w->c->players[w->bur].field.count, (const int[]){1, 0, 10, 0, 0, 0, 0});
	assert_int_equal(rules_default_loss_pick(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, pick),
			 HALF_AP(48));
	assert_int_equal(pick[T_KN], 4);
	assert_int_equal(pick[T_CINC], 0);
}

static void test_player_pick(void **state)
{
	struct fx_world *w = *state;
	int pick[T_COUNT] = {0, 0, 4, 0, 0, 0, 0}; /* 48 AP of knights for 40 due */
	struct rules_reason why;
	assert_int_equal(rules_loss_pick_check(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, pick, &why),
			 RULES_OK);
	int lost = rules_generic_loss(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, pick, RULE_SIEGE,
				      "failed siege", &w->log);
	assert_int_equal(lost, HALF_AP(48));
	assert_int_equal(w->c->players[w->bur].field.count[T_KN], 6);
	assert_int_equal(w->c->players[w->bur].reserve.count[T_KN], 4);
	assert_string_equal(fx_str(event_log_last(&w->log, "loss"), "chosen_by"), "player");
}

static void test_bad_picks(void **state)
{
	struct fx_world *w = *state;
	struct rules_reason why;
	int short_pick[T_COUNT] = {0, 0, 0, 0, 2, 0, 0}; /* 10 AP for 40 */
	assert_int_equal(rules_loss_pick_check(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, short_pick,
					       &why), RULES_REFUSED);
	assert_string_equal(why.text, "the pick is worth 10 AP but 40 AP are due");
	int generals[T_COUNT] = {1, 2, 0, 0, 0, 0, 0};
	assert_int_equal(rules_loss_pick_check(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, generals,
					       &why), RULES_REFUSED);
	assert_string_equal(why.text, "at least one general must be kept");
	int too_many[T_COUNT] = {0, 0, 11, 0, 0, 0, 0};
	assert_int_equal(rules_loss_pick_check(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, too_many,
					       &why), RULES_REFUSED);
	int foot[T_COUNT] = {0, 0, 0, 0, 15, 0, 0}; /* 75 AP, but none mounted */
	assert_int_equal(rules_loss_pick_check(w->c, w->bur, NO_INDEX, HALF_AP(75),
					       RULES_STORM_MOUNTED_HALF_AP, foot, &why),
			 RULES_REFUSED);
	assert_string_equal(why.text, "the first 25 AP lost must be mounted troops, the pick has 0 AP");
	/* A refused pick is not obeyed: the default pays and the event says why. */
	int lost = rules_generic_loss(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, short_pick,
				      RULE_SUPPLY, "out of supply", &w->log);
	assert_int_equal(lost, HALF_AP(40));
	assert_int_equal(event_log_count(&w->log, "loss_pick_refused"), 1);
	assert_string_equal(fx_str(event_log_last(&w->log, "loss"), "chosen_by"), "default");
}

/* An army of two generals and 2 Ps (4 AP) owes 40 AP: it cannot pay, so it
 * loses everything but one general; the C-in-C stays. */
static void test_cannot_pay(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	fx_set(p->field.count, (const int[]){1, 1, 0, 0, 0, 2, 0});
	int lost = rules_generic_loss(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, NULL, RULE_SUPPLY,
				      "out of supply", &w->log);
	assert_int_equal(lost, HALF_AP(32));
	assert_int_equal(p->field.count[T_CINC], 1);
	assert_int_equal(troops_elements(&p->list, &p->field), 1);
	assert_int_equal(p->reserve.count[T_SUB], 1);
	assert_int_equal(p->reserve.count[T_PS], 2);
	assert_false(json_is_true(json_object_get(event_log_last(&w->log, "loss"), "paid_in_full")));
	/* A lone general pays nothing more. */
	lost = rules_generic_loss(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, NULL, RULE_SUPPLY,
				  "out of supply", &w->log);
	assert_int_equal(lost, 0);
	assert_int_equal(p->field.count[T_CINC], 1);
}

/* Reading of 1.3 (doc/rules.md, "A force that cannot pay"): a contingent
 * of a sub-general and 2 Ps (32 AP) owes 75 AP to a storm: the 2 Ps go, the
 * general stays; the loss says what was lost (4 AP), that it was not paid
 * in full, and whose army the contingent serves with. */
static void test_contingent_cannot_pay(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int fra = fx_player(c, "france", c->players[w->bur].location);
	grow_array((void **)&c->contingents, &c->contingent_cap, 1, sizeof *c->contingents);
	struct contingent *ct = &c->contingents[0];
	memset(ct, 0, sizeof *ct);
	ct->owner = w->bur;
	ct->with_player = fra;
	troops_alloc(&ct->troops, T_COUNT);
	fx_set(ct->troops.count, (const int[]){0, 1, 0, 0, 0, 2, 0});
	c->contingent_count = 1;
	int reserve_ps = c->players[w->bur].reserve.count[T_PS];
	int lost = rules_generic_loss(c, w->bur, 0, HALF_AP(75), HALF_AP(25), NULL,
				      RULE_SEA_MOVEMENT, "sea storm", &w->log);
	assert_int_equal(lost, HALF_AP(4));
	assert_int_equal(ct->troops.count[T_SUB], 1);
	assert_int_equal(ct->troops.count[T_PS], 0);
	assert_int_equal(c->players[w->bur].reserve.count[T_PS], reserve_ps + 2);
	json_t *ev = event_log_last(&w->log, "loss");
	assert_false(json_is_true(json_object_get(ev, "paid_in_full")));
	assert_true(json_is_true(json_object_get(ev, "contingent")));
	assert_string_equal(json_string_value(json_object_get(ev, "with")), "france");
	assert_int_equal(json_integer_value(json_object_get(ev, "lost_half_ap")), HALF_AP(4));
	/* a field army's loss names no one */
	rules_generic_loss(c, w->bur, NO_INDEX, HALF_AP(5), 0, NULL, RULE_SUPPLY, "out of supply",
			   &w->log);
	assert_null(json_object_get(event_log_last(&w->log, "loss"), "with"));
}

/* Generals go last and the cheapest first: 480 AP due from the full army
 * takes everything but the C-in-C. */
static void test_generals_last(void **state)
{
	struct fx_world *w = *state;
	int pick[T_COUNT];
	int lost = rules_default_loss_pick(w->c, w->bur, NO_INDEX, HALF_AP(440), 0, pick);
	/* 394 AP of troops, then both sub-generals (28 AP each): 450 AP. */
	assert_int_equal(lost, HALF_AP(450));
	assert_int_equal(pick[T_CINC], 0);
	assert_int_equal(pick[T_SUB], 2);
}

/* LOSSES FIRST Ps(O), Ax(O), 40 AP due: all 16 Ps (32 AP), then Ax one by
 * one until covered: 3 Ax (10.5 AP), 42.5 AP in all (rounded against). */
static void test_preference_in_order(void **state)
{
	struct fx_world *w = *state;
	int pick[T_COUNT];
	const int prefer[] = {T_PS, T_AX};
	int lost = rules_loss_pick_from_preference(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, prefer,
						   2, pick);
	assert_int_equal(lost, HALF_AP(42) + 1);
	assert_int_equal(pick[T_PS], 16);
	assert_int_equal(pick[T_AX], 3);
	assert_int_equal(pick[T_CINC] + pick[T_SUB] + pick[T_KN] + pick[T_LH] + pick[T_SP], 0);
}

/* LOSSES FIRST Ps(O) alone, 40 AP due: 16 Ps (32 AP), and the 8 AP left by
 * the default, which pays them with the least waste: no two elements make
 * exactly 8 (12, 5, 5, 3.5 AP), so Sp + Ax = 8.5 (Sp before LH: that arm
 * holds more AP). 40.5 AP. */
static void test_preference_then_default(void **state)
{
	struct fx_world *w = *state;
	int pick[T_COUNT];
	const int prefer[] = {T_PS};
	int lost = rules_loss_pick_from_preference(w->c, w->bur, NO_INDEX, HALF_AP(40), 0, prefer,
						   1, pick);
	assert_int_equal(lost, HALF_AP(40) + 1);
	assert_int_equal(pick[T_PS], 16);
	assert_int_equal(pick[T_SP], 1);
	assert_int_equal(pick[T_AX], 1);
}

/* A sea storm of 50 AP (the first 25 mounted) with LOSSES FIRST Ps(O),
 * LH(O), Kn(O) through rules_generic_loss: the mounted share from the listed
 * mounted lines in order (5 LH = 25 AP), then the list in order: Ps until
 * the 50 AP are covered, 13 Ps (26 AP): 51 AP, chosen by preference. */
static void test_preference_mounted_share(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	p->loss_first = xmalloc(3 * sizeof *p->loss_first);
	p->loss_first[0] = T_PS;
	p->loss_first[1] = T_LH;
	p->loss_first[2] = T_KN;
	p->loss_first_count = 3;
	int lost = rules_generic_loss(w->c, w->bur, NO_INDEX, HALF_AP(50), HALF_AP(25), NULL,
				      RULE_SEA_MOVEMENT, "sea storm", &w->log);
	assert_int_equal(lost, HALF_AP(51));
	assert_int_equal(p->reserve.count[T_LH], 5);
	assert_int_equal(p->reserve.count[T_PS], 13);
	assert_int_equal(p->field.count[T_KN], 10);
	assert_string_equal(fx_str(event_log_last(&w->log, "loss"), "chosen_by"), "preference");
}

/* The last general is never listed away: LOSSES FIRST C-in-C with no
 * sub-general keeps him; the default pays instead. Bad indices are ignored. */
static void test_preference_keeps_a_general(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	p->field.count[T_SUB] = 0;
	int pick[T_COUNT];
	const int prefer[] = {-1, 99, T_CINC};
	int lost = rules_loss_pick_from_preference(w->c, w->bur, NO_INDEX, HALF_AP(12), 0, prefer,
						   3, pick);
	assert_int_equal(pick[T_CINC], 0);
	assert_true(lost >= HALF_AP(12));
	assert_int_equal(rules_loss_pick_check(w->c, w->bur, NO_INDEX, HALF_AP(12), 0, pick, NULL),
			 RULES_OK);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_default_spreads_then_pays_exactly),
		T(test_rounded_against),
		T(test_player_pick),
		T(test_bad_picks),
		T(test_cannot_pay),
		T(test_contingent_cannot_pay),
		T(test_generals_last),
		T(test_preference_in_order),
		T(test_preference_then_default),
		T(test_preference_mounted_share),
		T(test_preference_keeps_a_general),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
