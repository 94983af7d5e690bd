/* Unit tests for invasions and sieges (2.2). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"

/* A (burgundy) - B (france) - C (france); A - N (neutral); A - I (inviolate). */
enum { A, B, C, N, I };

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	fx_province(c, "A", 0, true);
	fx_province(c, "B", 1, true);
	fx_province(c, "C", 1, false);
	fx_province(c, "N", NO_INDEX, false);
	fx_province(c, "I", NO_INDEX, false);
	c->provinces[I].inviolate = true;
	fx_route(c, A, B, false);
	fx_route(c, B, C, false);
	fx_route(c, A, N, false);
	fx_route(c, A, I, false);
	w->bur = fx_player(c, "burgundy", A);
	w->fra = fx_player(c, "france", C);
	return fx_world_start(state, w);
}

static void test_needed_score(void **state)
{
	struct fx_world *w = *state;
	/* The French army is in C, not in B. */
	assert_int_equal(rules_siege_needed_score(w->c, B, 0), 5);
	assert_int_equal(rules_siege_needed_score(w->c, B, 1), 4);
	w->c->players[w->fra].location = B;
	assert_int_equal(rules_siege_needed_score(w->c, B, 0), 6);
	/* A siege in its fourth year, the army inside: 6 - 3 = 3. */
	assert_int_equal(rules_siege_needed_score(w->c, B, 3), 3);
	/* Literally it falls to 1 (a sure capture); the floor is a setting. */
	assert_int_equal(rules_siege_needed_score(w->c, B, 7), 1);
	w->c->settings.siege_floor = 2;
	assert_int_equal(rules_siege_needed_score(w->c, B, 7), 2);
	/* A neutral city counts as one with a field army inside. */
	assert_int_equal(rules_siege_needed_score(w->c, N, 0), 6);
}

static void test_may_attack(void **state)
{
	struct fx_world *w = *state;
	struct rules_reason why;
	assert_int_equal(rules_may_attack(w->c, w->bur, A, &why), RULES_REFUSED);
	assert_string_equal(why.text, "A is already yours");
	assert_int_equal(rules_may_attack(w->c, w->bur, I, &why), RULES_REFUSED);
	assert_string_equal(why.text, "I is an inviolate neutral and cannot be attacked");
	assert_int_equal(rules_may_attack(w->c, w->bur, N, &why), RULES_OK);
	w->c->players[w->fra].overlord = w->bur;
	assert_int_equal(rules_may_attack(w->c, w->bur, B, &why), RULES_REFUSED);
	assert_string_equal(why.text, "burgundy and france are overlord and tributary: neither can attack the other");
	assert_int_equal(rules_may_attack(w->c, w->fra, A, &why), RULES_REFUSED);
}

static void test_invade(void **state)
{
	struct fx_world *w = *state;
	dice_fixed_init(&w->dice, NULL, 0);
	const int path[] = {B};
	struct invasion_order o = {.player = w->bur, .target = B, .path = path, .stages = 1};
	bool arrived = false;
	assert_int_equal(rules_invade(w->c, &o, &w->dice.base, &w->log, NULL, &arrived, NULL),
			 RULES_OK);
	assert_true(arrived);
	assert_int_equal(w->c->players[w->bur].movement_option, OPTION_INVADE);
	assert_int_equal(w->c->players[w->bur].location, B);
	assert_string_equal(fx_str(event_log_last(&w->log, "invasion"), "owner"), "france");
	struct rules_reason why;
	assert_int_equal(rules_invade_check(w->c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "burgundy has already taken a movement option this year");
}

/* Army not inside: needs 5, rolls 4, fails (40 AP lost, allies nothing);
 * the next year needs 4 and rolls 4: captured. */
static void test_siege_fails_then_captures(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[w->bur].location = B;
	static const int rolls[] = {4, 4};
	dice_fixed_init(&w->dice, rolls, 2);
	bool captured = true;
	struct rules_reason why;
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   &why), RULES_OK);
	assert_false(captured);
	assert_int_equal(fx_int(event_log_last(&w->log, "siege_round"), "needed"), 5);
	assert_int_equal(player_field_half_ap(&c->players[w->bur]), HALF_AP(440));
	assert_int_equal(c->sieges[rules_find_siege(c, B, w->bur)].rounds_failed, 1);
	assert_true(c->players[w->bur].fought_this_year);
	assert_true(c->players[w->fra].fought_this_year);
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   &why), RULES_REFUSED);
	assert_string_equal(why.text, "the siege of B has had its round this year");
	c->year++;
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   &why), RULES_OK);
	assert_true(captured);
	assert_int_equal(fx_int(event_log_last(&w->log, "siege_round"), "needed"), 4);
	assert_int_equal(c->provinces[B].owner, w->bur);
	assert_int_equal(c->siege_count, 0);
	assert_int_equal(c->players[w->fra].status, PLAYER_ACTIVE);
}

/* The fourth year of a siege with the French army inside: needs 6 - 3 = 3;
 * a 3 takes the city and the whole army is lost to the reserve; the C-in-C
 * comes back in C, France's nearest remaining province. */
static void test_siege_fourth_year_army_inside(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[w->bur].location = B;
	c->players[w->fra].location = B;
	grow_array((void **)&c->sieges, &c->siege_cap, 1, sizeof *c->sieges);
	c->sieges[0] = (struct siege){.province = B, .besieger = w->bur, .rounds_failed = 3,
				      .last_round_year = c->year - 1};
	c->siege_count = 1;
	static const int rolls[] = {3};
	dice_fixed_init(&w->dice, rolls, 1);
	bool captured = false;
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   NULL), RULES_OK);
	assert_true(captured);
	json_t *round = event_log_last(&w->log, "siege_round");
	assert_int_equal(fx_int(round, "needed"), 3);
	assert_true(json_is_true(json_object_get(round, "army_inside")));
	struct player *f = &c->players[w->fra];
	assert_int_equal(troops_elements(&f->list, &f->field), 1);
	assert_int_equal(f->field.count[T_CINC], 1);
	assert_int_equal(player_reserve_half_ap(f), HALF_AP(450));
	assert_int_equal(f->location, C);
	assert_int_equal(event_log_count(&w->log, "army_lost"), 1);
	assert_int_equal(fx_int(event_log_last(&w->log, "army_lost"), "lost_half_ap"), HALF_AP(480));
}

static void test_capture_knocks_out(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->provinces[C].owner = w->bur;
	c->players[w->fra].location = B;
	c->players[w->bur].location = B;
	static const int rolls[] = {6};
	dice_fixed_init(&w->dice, rolls, 1);
	bool captured = false;
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   NULL), RULES_OK);
	assert_true(captured);
	assert_int_equal(c->players[w->fra].status, PLAYER_OUT);
	assert_int_equal(event_log_count(&w->log, "player_out"), 1);
}

static void test_defend(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	dice_fixed_init(&w->dice, NULL, 0);
	struct rules_reason why;
	struct defence_order d = {.player = w->fra, .province = B, .choice = DEFEND_BATTLE};
	assert_int_equal(rules_defend(c, &d, &w->dice.base, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "no field army is invading B");
	c->players[w->bur].location = B;
	assert_int_equal(rules_defend(c, &d, &w->dice.base, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "to give battle the field army of france must be in B");
	const int up[] = {B};
	d.path = up;
	d.stages = 1;
	assert_int_equal(rules_defend(c, &d, &w->dice.base, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[w->fra].location, B);
	assert_string_equal(fx_str(event_log_last(&w->log, "defence"), "choice"), "battle");
	/* Siege: retreat away to another French province (C), not to A. */
	const int away_bad[] = {A};
	struct defence_order s = {.player = w->fra, .province = B, .choice = DEFEND_SIEGE,
				  .path = away_bad, .stages = 1};
	bool passage[2] = {true, true};
	s.passage = passage;
	assert_int_equal(rules_defend(c, &s, &w->dice.base, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "a field army retreating before a siege must go to another of france's provinces");
	const int away[] = {C};
	s.path = away;
	assert_int_equal(rules_defend(c, &s, &w->dice.base, &w->log, &why), RULES_OK);
	assert_int_equal(c->players[w->fra].location, C);
}

static void test_sally_and_lifting(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	c->players[w->fra].location = B;
	assert_int_equal(rules_siege_sally(c, w->fra, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "B is not besieged");
	c->players[w->bur].location = B;
	static const int rolls[] = {1};
	dice_fixed_init(&w->dice, rolls, 1);
	rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, NULL, NULL);
	assert_int_equal(c->siege_count, 1);
	assert_int_equal(rules_siege_sally(c, w->fra, &w->log, &why), RULES_OK);
	/* Besieged: it may not slip away without a battle. */
	const int out[] = {C};
	struct move_order leave = {.player = w->fra, .contingent = NO_INDEX,
				   .kind = MOVE_FRIENDLY, .path = out, .stages = 1};
	assert_int_equal(rules_move_check(c, &leave, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the field army of france is besieged in B: it can sally out to give battle, not leave");
	/* The besieger moves away: the siege is lifted, the count starts again. */
	const int back[] = {A};
	struct move_order mo = {.player = w->bur, .contingent = NO_INDEX, .kind = MOVE_FRIENDLY,
				.path = back, .stages = 1};
	assert_int_equal(rules_move(c, &mo, &w->dice.base, &w->log, NULL, NULL), RULES_OK);
	assert_int_equal(c->siege_count, 0);
	assert_int_equal(event_log_count(&w->log, "siege_lifted"), 1);
}

/* Audit, 2.2 "Siege", without the defender's army inside (France stays in
 * C): the rounds need 5, 4, 3, 2. Rolls 4, 3, 2 fail, each costing
 * Burgundy's field army 40 AP (480 -> 360) and nothing to Milan's contingent
 * with it; the fourth year a 2 takes B. */
static void test_audit_four_rounds_no_army(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int mil = fx_player(c, "milan", A);
	grow_array((void **)&c->contingents, &c->contingent_cap, 1, sizeof *c->contingents);
	struct contingent *ct = &c->contingents[0];
	memset(ct, 0, sizeof *ct);
	ct->owner = mil;
	ct->with_player = w->bur;
	ct->sent_year = c->year;
	troops_alloc(&ct->troops, T_COUNT);
	fx_set(ct->troops.count, (const int[]){0, 1, 0, 0, 6, 0, 0});
	c->contingent_count = 1;
	c->players[mil].field.count[T_SUB] = 1;
	c->players[mil].field.count[T_SP] = 24;
	c->players[w->bur].location = B;
	static const int rolls[] = {4, 3, 2, 2};
	static const int needed[] = {5, 4, 3, 2};
	dice_fixed_init(&w->dice, rolls, 4);
	bool captured = false;
	for (int round = 0; round < 4; round++) {
		assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log,
						   &captured, NULL), RULES_OK);
		assert_int_equal(fx_int(event_log_last(&w->log, "siege_round"), "needed"),
				 needed[round]);
		assert_int_equal(captured, round == 3);
		c->year++;
	}
	assert_int_equal(player_field_half_ap(&c->players[w->bur]), HALF_AP(360));
	assert_int_equal(troops_half_ap(&c->players[mil].list, &c->contingents[0].troops),
			 HALF_AP(58));
	assert_int_equal(c->provinces[B].owner, w->bur);
	assert_int_equal(c->players[w->fra].location, C);
}

/* Audit, 2.2 "Siege" with the defender's army inside: 6, 5, 4, 3; with
 * siege_floor 4 the fourth round needs 4, not 3. Moving away and coming
 * back starts the count again. */
static void test_audit_army_inside_floor_and_restart(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->players[w->fra].location = B;
	c->players[w->bur].location = B;
	assert_int_equal(rules_siege_needed_score(c, B, 0), 6);
	assert_int_equal(rules_siege_needed_score(c, B, 1), 5);
	assert_int_equal(rules_siege_needed_score(c, B, 2), 4);
	assert_int_equal(rules_siege_needed_score(c, B, 3), 3);
	c->settings.siege_floor = 4;
	assert_int_equal(rules_siege_needed_score(c, B, 3), 4);
	c->settings.siege_floor = 1;
	static const int rolls[] = {5, 5};
	dice_fixed_init(&w->dice, rolls, 2);
	bool captured = true;
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   NULL), RULES_OK);
	assert_false(captured);
	/* Burgundy goes home and back: the siege was lifted. */
	const int home[] = {A}, back[] = {B};
	struct move_order mo = {.player = w->bur, .contingent = NO_INDEX, .kind = MOVE_FRIENDLY,
				.path = home, .stages = 1};
	assert_int_equal(rules_move(c, &mo, &w->dice.base, &w->log, NULL, NULL), RULES_OK);
	assert_int_equal(rules_find_siege(c, B, w->bur), -1);
	mo.kind = MOVE_INVADE;
	mo.path = back;
	assert_int_equal(rules_move(c, &mo, &w->dice.base, &w->log, NULL, NULL), RULES_OK);
	c->year++;
	assert_int_equal(rules_siege_round(c, w->bur, B, NULL, &w->dice.base, &w->log, &captured,
					   NULL), RULES_OK);
	assert_int_equal(fx_int(event_log_last(&w->log, "siege_round"), "needed"), 6);
	assert_false(captured);
}

/* 2.3 "The only circumstance in which two allied field armies can be at
 * the same location is if one is standing siege and the other is
 * attempting to relieve it, in which case the besieged army provides only
 * a contingent for the battle." France is besieged in B by Burgundy;
 * England, France's ally, invades B: a relief, not an attack on France. */
static void test_relief(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int eng = fx_player(c, "england", C);
	c->players[w->bur].location = B;
	c->players[w->fra].location = B;
	grow_array((void **)&c->sieges, &c->siege_cap, 1, sizeof *c->sieges);
	c->sieges[c->siege_count++] = (struct siege){.province = B, .besieger = w->bur};
	/* not allies: an invasion of France like any other */
	assert_int_equal(rules_relief_besieger(c, eng, B), NO_INDEX);
	assert_int_equal(rules_alliance_make(c, eng, w->fra, &w->log, NULL), RULES_OK);
	assert_int_equal(rules_relief_besieger(c, eng, B), w->bur);
	assert_int_equal(rules_relief_besieger(c, w->bur, B), NO_INDEX);
	/* England's move to B: the relief keeps the alliance */
	const int path[] = {B};
	struct invasion_order o = {.player = eng, .target = B, .path = path, .stages = 1};
	bool arrived = false;
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_invade(c, &o, &w->dice.base, &w->log, NULL, &arrived, NULL),
			 RULES_OK);
	assert_true(arrived);
	assert_true(rules_allied(c, eng, w->fra));
	assert_int_equal(event_log_count(&w->log, "alliance_ended"), 0);
	assert_string_equal(fx_str(event_log_last(&w->log, "relief"), "besieger"), "burgundy");
	assert_int_equal(c->players[eng].movement_option, OPTION_INVADE);
	/* a pick of 148 AP breaks 2.3: the default instead, the cheapest
	 * spare general (28) and list order up to 80 AP: 4 Kn (48), 2 Ps (4) */
	int pick[T_COUNT] = {0, 1, 10, 0, 0, 0, 0};
	int k = NO_INDEX;
	assert_int_equal(rules_relief_contingent(c, w->fra, eng, pick, &w->log, &k, NULL),
			 RULES_OK);
	const struct contingent *ct = &c->contingents[k];
	assert_int_equal(ct->with_player, eng);
	assert_int_equal(ct->troops.count[T_SUB], 1);
	assert_int_equal(ct->troops.count[T_KN], 4);
	assert_int_equal(ct->troops.count[T_PS], 2);
	assert_int_equal(ct->troops.count[T_CINC], 0);
	assert_int_equal(fx_int(event_log_last(&w->log, "relief_contingent"), "half_ap"),
			 HALF_AP(80));
	assert_false(json_is_true(json_object_get(event_log_last(&w->log, "relief_contingent"),
						  "chosen")));
	assert_int_equal(c->players[w->fra].field.count[T_KN], 6);
	/* it is in the city: arrived without a roll (no dice are given) */
	assert_true(rules_contingent_arrival(c, k, &w->dice.base, &w->log));
	/* after the battle it goes back into the city */
	rules_relief_rejoin(c, w->fra, eng, &w->log);
	assert_int_equal(c->contingent_count, 0);
	assert_int_equal(c->players[w->fra].field.count[T_KN], 10);
	assert_int_equal(c->players[w->fra].field.count[T_SUB], 2);
	/* a chosen pick within the rules is obeyed */
	int mine[T_COUNT] = {0, 1, 2, 0, 0, 0, 0};
	assert_int_equal(rules_relief_contingent(c, w->fra, eng, mine, &w->log, &k, NULL),
			 RULES_OK);
	assert_int_equal(c->contingents[k].troops.count[T_KN], 2);
	assert_true(json_is_true(json_object_get(event_log_last(&w->log, "relief_contingent"),
						 "chosen")));
	rules_relief_rejoin(c, w->fra, eng, &w->log);
	/* an army with its C-in-C alone gives none */
	c->players[w->fra].field.count[T_SUB] = 0;
	struct rules_reason why;
	assert_int_equal(rules_relief_contingent(c, w->fra, eng, NULL, &w->log, &k, &why),
			 RULES_REFUSED);
	assert_string_equal(why.text, "the field army of france has no general to spare for a contingent (the C-in-C stays)");
	/* an overlord relieves his tributary's city, which he may not attack */
	rules_alliance_end(c, eng, w->fra, eng, "declared", &w->log, NULL);
	c->players[w->fra].overlord = eng;
	c->players[eng].movement_option = OPTION_NONE;
	c->players[eng].location = C;
	assert_int_equal(rules_may_attack(c, eng, B, NULL), RULES_REFUSED);
	assert_int_equal(rules_invade_check(c, &o, NULL), RULES_OK);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_needed_score), T(test_may_attack), T(test_invade),
		T(test_siege_fails_then_captures), T(test_siege_fourth_year_army_inside),
		T(test_capture_knocks_out), T(test_defend), T(test_sally_and_lifting),
		T(test_audit_four_rounds_no_army), T(test_audit_army_inside_floor_and_restart),
		T(test_relief),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
