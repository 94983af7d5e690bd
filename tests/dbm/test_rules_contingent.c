/* Unit tests for allied contingents (2.3). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"

/* A-B-C by land (A, B Burgundy's, C Milan's); A~P by sea (Venice);
 * A-D-E-F by land (F Milan's); A-H (France). */
enum { A, B, C, P, D, E, F, H };

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	fx_province(c, "A", 0, true);
	fx_province(c, "B", 0, false);
	fx_province(c, "C", 1, true);
	fx_province(c, "P", 2, true);
	fx_province(c, "D", 0, false);
	fx_province(c, "E", 0, false);
	fx_province(c, "F", 1, false);
	fx_province(c, "H", 3, true);
	fx_route(c, A, B, false);
	fx_route(c, B, C, false);
	fx_route(c, A, P, true);
	fx_route(c, A, D, false);
	fx_route(c, D, E, false);
	fx_route(c, E, F, false);
	fx_route(c, A, H, false);
	w->bur = fx_player(c, "burgundy", A);
	w->mil = fx_player(c, "milan", C);
	w->ven = fx_player(c, "venice", P);
	w->fra = fx_player(c, "france", H);
	return fx_world_start(state, w);
}

static int sub_and_knights[T_COUNT] = {0, 1, 4, 0, 0, 0, 0}; /* 28 + 48 = 76 AP */

static void test_send(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	dice_fixed_init(&w->dice, NULL, 0);
	struct contingent_order o = {.owner = w->bur, .to_player = w->mil, .troops = sub_and_knights};
	int index = -2;
	assert_int_equal(rules_contingent_send(c, &o, &w->dice.base, &w->log, &index, NULL),
			 RULES_OK);
	assert_int_equal(index, 0);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(c->contingents[0].with_player, w->mil);
	assert_int_equal(c->contingents[0].sent_year, c->year);
	assert_int_equal(c->players[w->bur].movement_option, OPTION_ALLY);
	assert_int_equal(player_field_half_ap(&c->players[w->bur]), HALF_AP(404));
	assert_int_equal(rules_army_half_ap(c, w->bur), HALF_AP(480));
	assert_int_equal(fx_int(event_log_last(&w->log, "contingent_sent"), "half_ap"), HALF_AP(76));
	/* The Ally option excludes the others this year. */
	const int path[] = {B};
	struct move_order mo = {.player = w->bur, .contingent = NO_INDEX, .path = path, .stages = 1};
	struct rules_reason why;
	assert_int_equal(rules_field_move(c, &mo, &w->dice.base, &w->log, NULL, &why), RULES_REFUSED);
}

/* 2.2 "A field army that is being besieged can sally out in its own turn
 * to give battle, but not to retreat without battle": Burgundy besieged in
 * A by France cannot slip a contingent past to Milan. */
static void test_besieged_no_contingent(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	c->players[w->fra].location = A;
	grow_array((void **)&c->sieges, &c->siege_cap, 1, sizeof *c->sieges);
	c->sieges[0] = (struct siege){.province = A, .besieger = w->fra};
	c->siege_count = 1;
	struct contingent_order o = {.owner = w->bur, .to_player = w->mil, .troops = sub_and_knights};
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the field army of burgundy is besieged in A: no contingent can "
				      "slip past the besieger (SALLY gives battle)");
	/* the besieger gone, the way is open */
	c->players[w->mil].location = C;
	c->players[w->fra].location = H;
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_OK);
}

static void test_composition(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	int too_big[T_COUNT] = {0, 1, 5, 0, 0, 0, 0}; /* 88 AP */
	struct contingent_order o = {.owner = w->bur, .to_player = w->mil, .troops = too_big};
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "a contingent is at most 80 AP; this one is 88 AP");
	int no_general[T_COUNT] = {0, 0, 5, 0, 0, 0, 0};
	o.troops = no_general;
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "a contingent must include a general");
	fx_set(c->players[w->bur].field.count, (const int[]){1, 0, 10, 10, 30, 16, 12});
	int c_in_c[T_COUNT] = {1, 0, 2, 0, 0, 0, 0};
	o.troops = c_in_c;
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the C-in-C must remain with the field army");
	/* Three stages away: contingents cannot forced march. */
	c->players[w->mil].location = F;
	o.troops = sub_and_knights;
	c->players[w->bur].field.count[T_SUB] = 2;
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "contingents cannot forced march: a move of 3 stages exceeds their limit of 2");
	c->players[w->bur].movement_option = OPTION_INVADE;
	c->players[w->mil].location = C;
	assert_int_equal(rules_contingent_check(c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "burgundy has moved or invaded this year and cannot send contingents");
}

/* Two contingents in one round: different troops, different generals; a
 * third would take the last general. */
static void test_two_contingents(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	static const int rolls[] = {6};
	dice_fixed_init(&w->dice, rolls, 1);
	struct contingent_order to_milan = {.owner = w->bur, .to_player = w->mil,
					    .troops = sub_and_knights};
	int second_troops[T_COUNT] = {0, 1, 0, 0, 6, 0, 0};
	struct contingent_order to_venice = {.owner = w->bur, .to_player = w->ven,
					     .troops = second_troops};
	assert_int_equal(rules_contingent_send(c, &to_milan, &w->dice.base, &w->log, NULL, NULL),
			 RULES_OK);
	assert_int_equal(rules_contingent_send(c, &to_venice, &w->dice.base, &w->log, NULL, NULL),
			 RULES_OK);
	assert_int_equal(c->contingent_count, 2);
	assert_int_equal(c->players[w->bur].field.count[T_SUB], 0);
	int third[T_COUNT] = {1, 0, 1, 0, 0, 0, 0};
	struct contingent_order again = {.owner = w->bur, .to_player = w->fra, .troops = third};
	struct rules_reason why;
	assert_int_equal(rules_contingent_check(c, &again, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the C-in-C must remain with the field army");
}

static void test_arrival(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	static const int rolls[] = {5, 4};
	dice_fixed_init(&w->dice, rolls, 2);
	struct contingent_order o = {.owner = w->bur, .to_player = w->mil, .troops = sub_and_knights};
	int index;
	assert_int_equal(rules_contingent_send(c, &o, &w->dice.base, &w->log, &index, NULL), RULES_OK);
	assert_false(rules_contingent_arrival(c, index, &w->dice.base, &w->log));
	assert_true(rules_contingent_arrival(c, index, &w->dice.base, &w->log));
	/* Sent in an earlier year: already there, no roll. */
	c->year++;
	assert_true(rules_contingent_arrival(c, index, &w->dice.base, &w->log));
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	assert_false(json_is_true(json_object_get(event_log_last(&w->log, "contingent_arrival"),
						  "rolled")));
}

/* To Venice by sea (no storm: 6); recalled, a storm on the way back (1,
 * then 1: 25 AP, all of it mounted). The contingent holds a sub-general
 * (kept: a force keeps one general) and 4 Kn of 12 AP: two make only 24 AP,
 * so three go (36 AP, rounded against the player). Then its arrival roll
 * (3: it arrives) and the merge. */
static void test_recall_with_storm(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	static const int rolls[] = {6, 1, 1, 3};
	dice_fixed_init(&w->dice, rolls, 4);
	struct contingent_order o = {.owner = w->bur, .to_player = w->ven, .troops = sub_and_knights};
	int index;
	assert_int_equal(rules_contingent_send(c, &o, &w->dice.base, &w->log, &index, NULL), RULES_OK);
	struct rules_reason why;
	assert_int_equal(rules_contingent_recall(c, index, &w->dice.base, &w->log, &why), RULES_OK);
	assert_true(c->contingents[index].returning);
	assert_int_equal(c->contingents[index].troops.count[T_KN], 1);
	assert_int_equal(c->contingents[index].troops.count[T_SUB], 1);
	assert_int_equal(c->players[w->bur].reserve.count[T_KN], 3);
	assert_int_equal(rules_contingent_recall(c, index, &w->dice.base, &w->log, &why),
			 RULES_REFUSED);
	/* A returning contingent rolls to arrive at its own army's battle. */
	assert_true(rules_contingent_arrival(c, index, &w->dice.base, &w->log));
	rules_contingent_rejoin_returning(c, w->bur, &w->log);
	assert_int_equal(c->contingent_count, 0);
	assert_int_equal(c->players[w->bur].field.count[T_SUB], 2);
	assert_int_equal(c->players[w->bur].field.count[T_KN], 7);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
}

static void test_storm_sends_it_home(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	static const int rolls[] = {1, 1};
	dice_fixed_init(&w->dice, rolls, 2);
	struct contingent_order o = {.owner = w->bur, .to_player = w->ven, .troops = sub_and_knights,
				     .on_storm = STORM_RETURN};
	int index = 7;
	assert_int_equal(rules_contingent_send(c, &o, &w->dice.base, &w->log, &index, NULL), RULES_OK);
	assert_int_equal(index, NO_INDEX);
	assert_int_equal(c->contingent_count, 0);
	/* Home with what the storm left: 76 - 36 AP of knights. */
	assert_int_equal(player_field_half_ap(&c->players[w->bur]), HALF_AP(444));
}

/* Invading recalls every contingent. */
static void test_invasion_recalls(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	dice_fixed_init(&w->dice, NULL, 0);
	struct contingent_order o = {.owner = w->bur, .to_player = w->mil, .troops = sub_and_knights};
	assert_int_equal(rules_contingent_send(c, &o, &w->dice.base, &w->log, NULL, NULL), RULES_OK);
	c->year++;
	c->players[w->bur].movement_option = OPTION_NONE;
	const int path[] = {H};
	struct invasion_order inv = {.player = w->bur, .target = H, .path = path, .stages = 1};
	assert_int_equal(rules_invade(c, &inv, &w->dice.base, &w->log, NULL, NULL, NULL), RULES_OK);
	assert_true(c->contingents[0].returning);
	assert_int_equal(event_log_count(&w->log, "contingent_recalled"), 1);
}

/* Rules 3.2 "Your tributaries must provide an allied contingent if you
 * order them to": the contingent a tributary that chose none sends (our
 * default): its cheapest general but one (Sub-general 28 AP, the C-in-C
 * stays), then in list order as many as fit within 80 AP: 4 Kn(O) (76 AP;
 * a fifth would make 88), no LH(O) or Sp(O) (81), 2 Ps(O) (80), no Ax(O).
 * A field army with a single general has none to give. The result passes
 * the rules' own check. */
static void test_default_contingent(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int troops[T_COUNT];
	assert_true(rules_contingent_default(c, w->bur, troops));
	static const int expected[T_COUNT] = {0, 1, 4, 0, 0, 2, 0};
	assert_memory_equal(troops, expected, sizeof expected);
	struct contingent_order o = {.owner = w->bur, .to_player = w->mil, .troops = troops};
	assert_int_equal(rules_contingent_check(c, &o, NULL), RULES_OK);
	/* the C-in-C alone: nothing */
	c->players[w->bur].field.count[1] = 0;
	assert_false(rules_contingent_default(c, w->bur, troops));
	/* no Sub-generals but two C-in-C elements: one goes, one stays */
	c->players[w->bur].field.count[0] = 2;
	assert_true(rules_contingent_default(c, w->bur, troops));
	assert_int_equal(troops[0], 1);
}

/* 2.3 "normal movement rules apply to contingents", but "Contingents can
 * not forced march": whether a contingent could reach an army, before
 * its troops are chosen. Burgundy (A) reaches Milan (C) in 2 stages;
 * France (H) would need 3 (H-A-B-C). */
static void test_reach(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	assert_int_equal(rules_contingent_reach(c, w->bur, w->mil, NULL, &why), RULES_OK);
	assert_int_equal(rules_contingent_reach(c, w->fra, w->mil, NULL, &why), RULES_REFUSED);
	assert_string_equal(why.text, "contingents cannot forced march: a move of 3 stages "
				      "exceeds their limit of 2");
	assert_int_equal(rules_contingent_reach(c, w->bur, w->bur, NULL, &why), RULES_REFUSED);
	/* the movement option is not its business: an ally who moved is not
	 * called at all */
	c->players[w->bur].movement_option = OPTION_MOVE;
	assert_int_equal(rules_contingent_reach(c, w->bur, w->mil, NULL, &why), RULES_OK);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_send), T(test_besieged_no_contingent), T(test_composition), T(test_two_contingents), T(test_arrival),
		T(test_recall_with_storm), T(test_storm_sends_it_home), T(test_invasion_recalls),
		T(test_default_contingent), T(test_reach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
