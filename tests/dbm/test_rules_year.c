/* Unit tests for the year (1.4), the campaign end, tributaries and leaving
 * the game (3.2). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"

/* Four players in a row of provinces: aragon (0) - burgundy (1) -
 * castile (2) - denmark (3), each at its home; aragon also holds X. */
enum { PA, PB, PC, PD, X };

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	const char *keys[] = {"aragon", "burgundy", "castile", "denmark"};
	for (int i = 0; i < 4; i++)
		fx_province(c, keys[i], i, true);
	fx_province(c, "X", 0, false);
	for (int i = 0; i < 3; i++)
		fx_route(c, i, i + 1, false);
	fx_route(c, PA, X, false);
	for (int i = 0; i < 4; i++)
		fx_player(c, keys[i], i);
	return fx_world_start(state, w);
}

/* Fisher-Yates with three players: place 2 gets one of 3 (a 5: 4 % 3 = 1),
 * place 1 one of 2 (a 2: 1 % 2 = 1): 0 1 2 -> 0 2 1 -> 0 2 1. Denmark is
 * out and takes no turn. */
static void test_sequence_of_play(void **state)
{
	struct fx_world *w = *state;
	w->c->players[3].status = PLAYER_OUT;
	static const int rolls[] = {5, 2};
	dice_fixed_init(&w->dice, rolls, 2);
	int order[4];
	assert_int_equal(rules_sequence_of_play(w->c, &w->dice.base, &w->log, order), 3);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
	json_t *keys = json_object_get(event_log_last(&w->log, "sequence_of_play"), "order");
	assert_string_equal(json_string_value(json_array_get(keys, 1)), "castile");
}

/* 1.4 "... and determines a random sequence of play for the next year":
 * at the end of 1450's recruitment phase, with 1450's dice, for 1451. The
 * same shuffle as the first year's (5 then 2: aragon, castile, burgundy;
 * Denmark is out), its rolls timed in 1450's recruitment and named for
 * 1451, the order logged as "next_sequence" (not "sequence_of_play", which
 * the year that begins logs). */
static void test_next_sequence_of_play(void **state)
{
	struct fx_world *w = *state;
	w->c->players[3].status = PLAYER_OUT;
	rules_set_phase(w->c, &w->dice.base, &w->log, PHASE_RECRUITMENT);
	static const int rolls[] = {5, 2};
	dice_fixed_init(&w->dice, rolls, 2);
	dice_set_time(&w->dice.base, w->c->year, PHASE_RECRUITMENT);
	int order[4];
	assert_int_equal(rules_next_sequence_of_play(w->c, &w->dice.base, &w->log,
						     w->c->year + 1, order), 3);
	static const int expected[] = {0, 2, 1};
	assert_memory_equal(order, expected, sizeof expected);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	const json_t *ev = event_log_last(&w->log, "next_sequence");
	assert_non_null(ev);
	assert_int_equal(json_integer_value(json_object_get(ev, "year_of_play")), w->c->year + 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "year")), w->c->year);
	assert_string_equal(json_string_value(json_object_get(ev, "phase")), "recruitment");
	json_t *keys = json_object_get(ev, "order");
	assert_int_equal(json_array_size(keys), 3);
	assert_string_equal(json_string_value(json_array_get(keys, 1)), "castile");
	assert_null(event_log_last(&w->log, "sequence_of_play"));
	char *purpose = xasprintf("sequence of play for %d step 1 of 3 try 1 die 1",
				  w->c->year + 1);
	const json_t *first_roll = NULL;
	for (size_t i = 0; i < w->log.count && !first_roll; i++)
		if (!strcmp(json_string_value(json_object_get(w->log.events[i], "kind")), "roll"))
			first_roll = w->log.events[i];
	assert_non_null(first_roll);
	assert_string_equal(json_string_value(json_object_get(first_roll, "purpose")), purpose);
	assert_string_equal(json_string_value(json_object_get(first_roll, "phase")), "recruitment");
	free(purpose);
}

/* Seven players: a choice among 7 takes two dice (36 outcomes, 35 used:
 * 6,6 is rolled again); among 5 one die (a 6 is rolled again), among 4 one
 * die (5 and 6 rolled again). Worked by hand:
 *   among 7: 6,6 again; 1,3 -> 2: [0,1,6,3,4,5,2]
 *   among 6: 4 -> 3:             [0,1,6,5,4,3,2]
 *   among 5: 6 again; 1 -> 0:    [4,1,6,5,0,3,2]
 *   among 4: 5 again; 2 -> 1:    [4,5,6,1,0,3,2]
 *   among 3: 3 -> 2:             unchanged
 *   among 2: 1 -> 0:             [5,4,6,1,0,3,2] */
static void test_sequence_rejection(void **state)
{
	struct fx_world *w = *state;
	for (int i = 4; i < 7; i++)
		fx_player(w->c, "extra", PA);
	static const int rolls[] = {6, 6, 1, 3, 4, 6, 1, 5, 2, 3, 1};
	dice_fixed_init(&w->dice, rolls, 11);
	int order[7];
	assert_int_equal(rules_sequence_of_play(w->c, &w->dice.base, &w->log, order), 7);
	static const int expected[] = {5, 4, 6, 1, 0, 3, 2};
	assert_memory_equal(order, expected, sizeof expected);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
}

static void test_year_cycle_and_end(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	static const int rolls[] = {1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	dice_fixed_init(&w->dice, rolls, sizeof rolls / sizeof *rolls);
	int order[4];
	c->players[0].movement_option = OPTION_MOVE;
	rules_year_begin(c, &w->dice.base, &w->log, order); /* 3 rolls */
	assert_int_equal(c->phase, PHASE_CAMPAIGN);
	assert_int_equal(c->players[0].movement_option, OPTION_NONE);
	rules_recruitment_begin(c, &w->dice.base, &w->log);
	assert_int_equal(c->phase, PHASE_RECRUITMENT);
	/* Aragon: its home (6) and X (4). */
	assert_int_equal(c->players[0].province_prestige, 10);
	assert_int_equal(c->players[1].province_prestige, 6);
	/* The first year never ends the campaign: no dice. */
	assert_false(rules_year_end(c, &w->dice.base, &w->log));
	assert_int_equal(c->year, 1451);
	assert_false(json_is_true(json_object_get(event_log_last(&w->log, "end_roll"), "rolled")));
	/* 1451: 1 + 2 = 3 goes on. */
	rules_year_begin(c, &w->dice.base, &w->log, order); /* 3 rolls: 1 1 1 */
	assert_false(rules_year_end(c, &w->dice.base, &w->log)); /* 1, 2 */
	assert_int_equal(c->year, 1452);
	/* 1452: 1 + 1 = 2: the players vote; all continue. */
	rules_year_begin(c, &w->dice.base, &w->log, order);
	assert_true(rules_year_end(c, &w->dice.base, &w->log));
	assert_int_equal(c->year, 1452);
	rules_campaign_end_vote(c, true, &w->log);
	assert_int_equal(c->year, 1453);
	/* 1453: a 2 again, and someone wants to stop: the end. */
	rules_year_begin(c, &w->dice.base, &w->log, order);
	assert_true(rules_year_end(c, &w->dice.base, &w->log));
	c->players[2].battle_prestige = 200;
	rules_campaign_end_vote(c, false, &w->log);
	assert_int_equal(c->phase, PHASE_ENDED);
	json_t *end = event_log_last(&w->log, "campaign_end");
	assert_string_equal(json_string_value(json_array_get(json_object_get(end, "winners"), 0)),
			    "castile");
	assert_int_equal(json_array_size(json_object_get(end, "winners")), 1);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
}

/* rules_year_prepare does the start of the year without rolling the
 * sequence of play: no dice are asked for (the fixed roller has none and
 * would abort), options and battle flags are cleared, returning contingents
 * merge, and from the second year profound peace counts the quiet years. */
static void test_year_prepare_rolls_nothing(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	dice_fixed_init(&w->dice, NULL, 0);
	c->year = 1451;
	c->phase = PHASE_RECRUITMENT;
	c->players[1].movement_option = OPTION_INVADE;
	c->players[1].fought_this_year = true;
	c->players[2].quiet_years = 1;
	rules_year_prepare(c, &w->dice.base, &w->log);
	assert_int_equal(c->phase, PHASE_CAMPAIGN);
	assert_int_equal(c->players[1].movement_option, OPTION_NONE);
	assert_false(c->players[1].fought_this_year);
	/* Castile fought in neither year: two quiet years now. */
	assert_int_equal(c->players[2].quiet_years, 2);
	assert_int_equal(event_log_count(&w->log, "year_begin"), 1);
	assert_int_equal(event_log_count(&w->log, "sequence_of_play"), 0);
	assert_int_equal(event_log_count(&w->log, "roll"), 0);
}

static void test_winners(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[0].battle_prestige = 100;
	c->players[1].province_prestige = 60;
	c->players[1].battle_prestige = 40;
	c->players[2].battle_prestige = 500;
	c->players[2].status = PLAYER_LEFT;
	c->players[3].status = PLAYER_OUT;
	c->players[3].battle_prestige = 99;
	int winners[4];
	assert_int_equal(rules_campaign_winners(c, winners), 2);
	assert_int_equal(winners[0], 0);
	assert_int_equal(winners[1], 1);
	assert_int_equal(rules_player_score(c, 2), 0);
	assert_int_equal(rules_player_score(c, 3), 99);
}

/* A chain: aragon <- burgundy <- castile. */
static void test_tributary_chain(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	assert_int_equal(rules_tributary_request(c, 1, 0, true, &w->log, &why), RULES_OK);
	assert_int_equal(rules_tributary_request(c, 2, 1, true, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[2].overlord, 1);
	assert_int_equal(rules_tributary_request(c, 2, 3, true, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "castile is already the tributary of burgundy and cannot have two overlords");
	assert_int_equal(rules_tributary_request(c, 0, 2, true, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "castile is below aragon in a chain of tributaries");
	/* Declined: nothing changes. */
	assert_int_equal(rules_tributary_request(c, 3, 2, false, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[3].overlord, NO_INDEX);
	/* Direct pairs cannot attack each other; aragon and castile can. */
	assert_true(rules_tributary_related(c, 0, 1));
	assert_true(rules_tributary_related(c, 2, 1));
	assert_false(rules_tributary_related(c, 0, 2));
	assert_int_equal(rules_may_attack(c, 2, PB, &why), RULES_REFUSED);
	assert_int_equal(rules_may_attack(c, 2, PA, &why), RULES_OK);
	/* Province prestige: burgundy 6 + castile's 2; aragon 10 + burgundy's 2. */
	assert_int_equal(rules_province_prestige(c, 1), 8);
	assert_int_equal(rules_province_prestige(c, 0), 12);
	/* Burgundy orders castile's contingent for itself, or as a substitute
	 * for aragon; not for denmark. */
	dice_fixed_init(&w->dice, NULL, 0);
	int troops[T_COUNT] = {0, 1, 2, 0, 0, 0, 0};
	struct contingent_order o = {.owner = 2, .to_player = 3, .troops = troops};
	assert_int_equal(rules_tributary_order_contingent(c, 1, &o, &w->dice.base, &w->log, NULL,
							  &why), RULES_REFUSED);
	assert_string_equal(why.text, "a tributary's contingent supports its overlord or, as a substitute, the overlord's overlord");
	o.to_player = 0;
	assert_int_equal(rules_tributary_order_contingent(c, 0, &o, &w->dice.base, &w->log, NULL,
							  &why), RULES_REFUSED);
	assert_string_equal(why.text, "castile is not the tributary of aragon");
	/* Two stages, through burgundy's home, with its permission. */
	bool passage[4] = {false, true, false, false};
	o.passage = passage;
	int index;
	assert_int_equal(rules_tributary_order_contingent(c, 1, &o, &w->dice.base, &w->log, &index,
							  &why), RULES_OK);
	assert_int_equal(c->contingents[index].with_player, 0);
	assert_int_equal(c->contingents[index].owner, 2);
	/* Renounced only in the recruitment phase. */
	assert_int_equal(rules_tributary_renounce(c, 2, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "a tributary relationship is renounced in the recruitment phase");
	c->phase = PHASE_RECRUITMENT;
	assert_int_equal(rules_tributary_renounce(c, 2, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[2].overlord, NO_INDEX);
}

/* Aragon, overlord of burgundy, loses its last provinces: out, keeps its
 * prestige; burgundy is free again. */
static void test_overlord_knocked_out(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[1].overlord = 0;
	c->players[0].battle_prestige = 77;
	rules_capture_province(c, X, 3, RULE_SIEGE, &w->log);
	assert_int_equal(c->players[0].status, PLAYER_ACTIVE);
	rules_capture_province(c, PA, 3, RULE_SIEGE, &w->log);
	assert_int_equal(c->players[0].status, PLAYER_OUT);
	assert_int_equal(c->players[1].overlord, NO_INDEX);
	assert_int_equal(event_log_count(&w->log, "tributary_freed"), 1);
	assert_int_equal(rules_player_score(c, 0), 77);
	assert_int_equal(rules_province_prestige(c, 0), 0);
}

static void test_player_leaves(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	c->players[1].overlord = 0;
	c->players[0].battle_prestige = 120;
	assert_int_equal(rules_player_leaves(c, 0, true, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[0].status, PLAYER_ACTIVE);
	assert_int_equal(c->provinces[PA].owner, 0);
	assert_int_equal(rules_player_leaves(c, 0, false, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[0].status, PLAYER_LEFT);
	assert_int_equal(c->provinces[PA].owner, NO_INDEX);
	assert_int_equal(c->provinces[X].owner, NO_INDEX);
	assert_int_equal(rules_player_score(c, 0), 0);
	assert_int_equal(c->players[1].overlord, NO_INDEX);
	assert_int_equal(fx_int(event_log_last(&w->log, "player_left"), "prestige_lost"), 120);
	assert_int_equal(rules_player_leaves(c, 0, false, &w->log, &why), RULES_REFUSED);
}

/* Audit, 3.1 "Profound peace", through the year cycle: Burgundy fights no
 * battle or siege in 1450, 1451 and 1452: from 1453 its ceiling is 440 AP.
 * Castile's contingent fights in 1450 (it takes part); Castile is then quiet
 * 1451 to 1456: 440 AP from 1454 and 400 AP from 1457. */
static void test_audit_profound_peace_years(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct player *b = &c->players[1], *ca = &c->players[2];
	for (int year = 1450; year <= 1457; year++) {
		c->year = year;
		rules_year_prepare(c, NULL, &w->log);
		assert_int_equal(b->cap_half_ap, HALF_AP(year >= 1456 ? 400 : year >= 1453 ? 440 : 480));
		assert_int_equal(ca->cap_half_ap, HALF_AP(year >= 1457 ? 400 : year >= 1454 ? 440 : 480));
		if (year == 1450)
			ca->fought_this_year = true;
	}
	assert_int_equal(player_field_half_ap(b), HALF_AP(400));
	assert_int_equal(player_reserve_half_ap(b), HALF_AP(80));
}

/* Audit, 3.2 "Leaving game": knocked out keeps the prestige gained (but gets
 * no more for provinces); leaving without a replacement loses it all. */
static void test_audit_knocked_out_vs_leaving(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[1].battle_prestige = 105;
	c->players[1].province_prestige = 12;
	c->players[2].battle_prestige = 105;
	c->players[2].province_prestige = 12;
	rules_capture_province(c, PB, 0, RULE_SIEGE, &w->log);
	assert_int_equal(c->players[1].status, PLAYER_OUT);
	assert_int_equal(rules_player_score(c, 1), 117);
	assert_int_equal(rules_province_prestige(c, 1), 0);
	assert_int_equal(rules_player_leaves(c, 2, false, &w->log, NULL), RULES_OK);
	assert_int_equal(rules_player_score(c, 2), 0);
	assert_int_equal(c->provinces[PC].owner, NO_INDEX);
	/* Replaced: the nation goes on with its prestige. */
	c->players[3].battle_prestige = 40;
	assert_int_equal(rules_player_leaves(c, 3, true, &w->log, NULL), RULES_OK);
	assert_int_equal(rules_player_score(c, 3), 40);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_sequence_of_play), T(test_next_sequence_of_play), T(test_sequence_rejection),
		T(test_year_cycle_and_end),
		T(test_winners), T(test_tributary_chain), T(test_overlord_knocked_out),
		T(test_player_leaves), T(test_year_prepare_rolls_nothing),
		T(test_audit_profound_peace_years), T(test_audit_knocked_out_vs_leaving),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
