/* Unit tests for battles (2.2.1, 2.2.2, 2.3 During battle). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"

static void test_command_table(void **state)
{
	(void)state;
	static const int cinc[] = {0, 200, 134, 100, 80, 68, 60, 50, 46};
	static const int sub[] = {0, 0, 66, 50, 40, 33, 28, 25, 22};
	for (int n = 1; n <= 8; n++) {
		assert_int_equal(rules_command_prestige(n, true), cinc[n]);
		assert_int_equal(rules_command_prestige(n, false), sub[n]);
	}
	/* Reading #11 beyond 7: sub = floor(200/(n+1)), C-in-C the rest. */
	assert_int_equal(rules_command_prestige(9, false), 20);
	assert_int_equal(rules_command_prestige(9, true), 40);
	assert_int_equal(rules_command_prestige(0, true), 0);
}

/* The rulebook's example: Persians (320 AP, 3 commands, 1 demoralised) beat
 * Byzantines (480 AP, 4 commands, the C-in-C's and 1 more demoralised):
 * 150 - 80 = 70, × 480 / 320 = 105. */
static void test_rulebook_example(void **state)
{
	(void)state;
	int persians = rules_army_prestige(3, false, 1);
	int byzantines = rules_army_prestige(4, true, 1);
	assert_int_equal(persians, 150);
	assert_int_equal(byzantines, 80);
	assert_int_equal(rules_battle_prestige(persians, byzantines, 320, 480), 105);
	/* Never less than 40, also when the loser's value is higher. */
	assert_int_equal(rules_battle_prestige(80, 150, 480, 320), 40);
	/* Rounded half up: 100 × 5 / 8 = 62.5 -> 63. */
	assert_int_equal(rules_battle_prestige(200, 100, 8, 5), 63);
	assert_int_equal(rules_battle_prestige(50, 0, 100, 10), 40);
}

static void test_ally_share_and_routers(void **state)
{
	(void)state;
	/* 4 commands: the C-in-C counts twice, 5 shares: 105 / 5 = 21. */
	assert_int_equal(rules_ally_prestige_share(105, 4), 21);
	assert_int_equal(rules_ally_prestige_share(89, 4), 18); /* 17.8 */
	assert_int_equal(rules_routers_returning(7, true), 2);
	assert_int_equal(rules_routers_returning(5, false), 0);
	assert_int_equal(rules_routers_returning(6, false), 1);
	assert_int_equal(rules_routers_returning(2, true), 0);
	/* 2 of 7 routers return over types holding 4, 2, 1: 8/7, 4/7, 2/7 ->
	 * floors 1, 0, 0, the last one to the largest remainder (4/7). */
	int routers[] = {4, 2, 1}, out[3];
	rules_share_routers(routers, 3, 2, out);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 0);
}

/* A (burgundy), B (france, fought over), C and D (france) next to B,
 * M (milan). */
enum { A, B, C, D, M, E };

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	fx_province(c, "A", 0, true);
	fx_province(c, "B", 1, true);
	fx_province(c, "C", 1, false);
	fx_province(c, "D", 1, false);
	fx_province(c, "M", 2, true);
	fx_province(c, "E", 1, false);
	fx_route(c, A, B, false);
	fx_route(c, B, C, false);
	fx_route(c, B, D, false);
	fx_route(c, A, M, false);
	fx_route(c, D, E, false);
	w->bur = fx_player(c, "burgundy", B);
	w->fra = fx_player(c, "france", B);
	w->mil = fx_player(c, "milan", M);
	/* Milan's contingent with Burgundy: a sub-general and 6 Sp (58 AP). */
	grow_array((void **)&c->contingents, &c->contingent_cap, 1, sizeof *c->contingents);
	struct contingent *ct = &c->contingents[0];
	memset(ct, 0, sizeof *ct);
	ct->owner = w->mil;
	ct->with_player = w->bur;
	ct->sent_year = c->year - 1;
	troops_alloc(&ct->troops, T_COUNT);
	fx_set(ct->troops.count, (const int[]){0, 1, 0, 0, 6, 0, 0});
	c->contingent_count = 1;
	struct player *m = &c->players[w->mil];
	m->field.count[T_SUB] = 1;
	m->field.count[T_SP] = 24;
	return fx_world_start(state, w);
}

/* Burgundy (3 commands) with Milan's contingent (1) beats France (3
 * commands, 2 sub-generals' demoralised) in France's home B.
 * Values: 4 commands, 80 + 3 × 40 = 200 against 100; AP 538 against 480:
 * 100 × 480 / 538 = 89.2 -> 89; Milan's share 89 / 5 = 17.8 -> 18.
 * Routers on the winning side: Burgundy 1 Kn + 4 Sp destroyed, 2 Ps fled;
 * Milan 2 Sp destroyed: 9, of which 3 return: shares 1/3, 4/3, 2/3, 2/3 ->
 * floors 0, 1, 0, 0 and the two largest remainders (Ps, Milan's Sp).
 * France: a sub-general killed, 5 Sp destroyed, 2 LH fled: 7 routers (the
 * dead general is not one), 1 returns: a Sp. */
static void test_battle_consequences(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int bur_destroyed[T_COUNT] = {0, 0, 1, 0, 4, 0, 0};
	int bur_fled[T_COUNT] = {0, 0, 0, 0, 0, 2, 0};
	int mil_destroyed[T_COUNT] = {0, 0, 0, 0, 2, 0, 0};
	int fra_destroyed[T_COUNT] = {0, 1, 0, 0, 5, 0, 0};
	int fra_fled[T_COUNT] = {0, 0, 0, 2, 0, 0, 0};
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3,
		 .destroyed = bur_destroyed, .fled = bur_fled},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1,
		 .destroyed = mil_destroyed},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3,
		 .others_demoralised = 2, .destroyed = fra_destroyed, .fled = fra_fled},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_DEMORALISED, .parties = parties,
		.party_count = 3, .enemy_came_from = A, .retreat_choice = NO_INDEX,
	};
	dice_fixed_init(&w->dice, NULL, 0);
	struct rules_reason why;
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, &why), RULES_OK);
	json_t *battle = event_log_last(&w->log, "battle");
	assert_int_equal(fx_int(battle, "award"), 89);
	assert_int_equal(c->players[w->bur].battle_prestige, 71);
	assert_int_equal(c->players[w->mil].battle_prestige, 18);
	assert_int_equal(c->players[w->fra].battle_prestige, 0);
	struct player *b = &c->players[w->bur], *f = &c->players[w->fra];
	assert_int_equal(b->field.count[T_KN], 9);
	assert_int_equal(b->field.count[T_SP], 27);
	assert_int_equal(b->field.count[T_PS], 15);
	assert_int_equal(b->reserve.count[T_KN], 1);
	assert_int_equal(b->reserve.count[T_SP], 3);
	assert_int_equal(b->reserve.count[T_PS], 1);
	assert_int_equal(c->contingents[0].troops.count[T_SP], 5);
	assert_int_equal(c->players[w->mil].reserve.count[T_SP], 1);
	assert_int_equal(f->field.count[T_SUB], 1);
	assert_int_equal(f->reserve.count[T_SUB], 1);
	assert_int_equal(f->field.count[T_SP], 26);
	assert_int_equal(f->reserve.count[T_SP], 4);
	assert_int_equal(f->reserve.count[T_LH], 2);
	assert_int_equal(event_log_count(&w->log, "general_killed"), 1);
	/* B changes hands; France retreats to C (C and D are equally near:
	 * the lowest index by default). */
	assert_int_equal(c->provinces[B].owner, w->bur);
	assert_int_equal(f->location, C);
	assert_true(f->fought_this_year && b->fought_this_year &&
		    c->players[w->mil].fought_this_year);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
}

static void test_retreat_choice_and_forbidden(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int stages;
	assert_int_equal(rules_retreat_destination(c, w->fra, B, A, NULL, NO_INDEX, &stages), C);
	assert_int_equal(stages, 1);
	assert_int_equal(rules_retreat_destination(c, w->fra, B, A, NULL, D, &stages), D);
	/* Never where the enemy came from, even if it is nearest. */
	assert_int_equal(rules_retreat_destination(c, w->fra, B, C, NULL, NO_INDEX, &stages), D);
	/* A choice that is not among the nearest is not taken. */
	assert_int_equal(rules_retreat_destination(c, w->fra, B, A, NULL, E, &stages), C);
	assert_int_equal(rules_retreat_destination(c, w->bur, B, A, NULL, NO_INDEX, &stages),
			 NO_INDEX);
	bool allies[3] = {false, false, true};
	assert_int_equal(rules_retreat_destination(c, w->bur, B, A, allies, NO_INDEX, &stages), M);
	assert_int_equal(stages, 2);
}

/* France loses; C and D are Burgundy's: the nearest French province is E,
 * two stages through D: the army forces its way (a 1: 40 AP). */
static void test_retreat_forcing_its_way(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	c->provinces[C].owner = w->bur;
	c->provinces[D].owner = w->bur;
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_CONCEDED, .parties = parties,
		.party_count = 2, .enemy_came_from = A, .retreat_choice = NO_INDEX,
	};
	static const int rolls[] = {1};
	dice_fixed_init(&w->dice, rolls, 1);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	/* Equal values (3 commands each, none demoralised): the minimum 40. */
	assert_int_equal(c->players[w->bur].battle_prestige, 40);
	assert_int_equal(c->players[w->fra].location, E);
	assert_int_equal(event_log_count(&w->log, "forced_passage"), 1);
	assert_int_equal(player_field_half_ap(&c->players[w->fra]), HALF_AP(440));
}

/* France's only general, its C-in-C, is killed: he goes to the reserve and
 * at once a general is retrieved (the C-in-C's element, first in the list)
 * for troops of equal value (30 AP) sent to the reserve. */
static void test_general_retrieved_after_battle(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct player *f = &c->players[w->fra];
	fx_set(f->field.count, (const int[]){1, 0, 10, 0, 30, 0, 0});
	int fra_destroyed[T_COUNT] = {1, 0, 0, 0, 0, 0, 0};
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 1,
		 .c_in_c_demoralised = true, .destroyed = fra_destroyed},
	};
	struct battle_result r = {
		.province = A, .winner_side = 0, .how = BATTLE_DEMORALISED, .parties = parties,
		.party_count = 2, .enemy_came_from = NO_INDEX, .retreat_choice = NO_INDEX,
	};
	dice_fixed_init(&w->dice, NULL, 0);
	c->players[w->bur].location = A;
	f->location = A;
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(f->field.count[T_CINC], 1);
	json_t *ev = event_log_last(&w->log, "general_retrieved");
	assert_non_null(ev);
	assert_int_equal(fx_int(ev, "paid_half_ap"), HALF_AP(30));
	/* 300 AP, less the dead C-in-C (30) and the 30 AP paid, plus him: 270. */
	assert_int_equal(player_field_half_ap(f), HALF_AP(270));
	/* A (Burgundy's) was not France's: no capture; France goes home to B. */
	assert_int_equal(c->provinces[A].owner, w->bur);
	assert_int_equal(f->location, B);
}

static void test_bad_reports(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct rules_reason why;
	int too_many[T_COUNT] = {0, 0, 11, 0, 0, 0, 0};
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3,
		 .destroyed = too_many},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .parties = parties, .party_count = 2,
		.enemy_came_from = A, .retreat_choice = NO_INDEX,
	};
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_REFUSED);
	assert_string_equal(why.text, "party 1: 11 destroyed, 0 fled and 0 withdrawn \"Kn(O)\" but burgundy had 10");
	parties[0].destroyed = NULL;
	parties[1].side = 0;
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_REFUSED);
	assert_string_equal(why.text, "side 0 has two field armies: allies send contingents");
	parties[1].side = 1;
	/* The loser's one returning router (of 6 fled Sp) may not be two. */
	int fled[T_COUNT] = {0, 0, 0, 0, 6, 0, 0};
	int pick[T_COUNT] = {0, 0, 0, 0, 2, 0, 0};
	parties[1].fled = fled;
	parties[1].returned_pick = pick;
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_REFUSED);
	pick[T_SP] = 1;
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_OK);
	/* An ally's agreed share must lie between the normal share and twice it:
	 * equal values give the minimum 40, 5 shares of 8: from 8 to 16. */
	struct battle_party with_ally[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1, .agreed_share = 100},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3},
	};
	r.parties = with_ally;
	r.party_count = 3;
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the share agreed with milan must be between 8 and 16 prestige");
	with_ally[1].agreed_share = 12;
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_OK);
	assert_int_equal(c->players[w->bur].battle_prestige, 0);
}

/* An ally negotiated 12 instead of its normal 8 of a 40 award: the main
 * protagonist would get correspondingly less (28), but "the winner always
 * gets at least 40 prestige from a battle": Burgundy keeps 40 (doc/rules.md,
 * the floor of 40 and allies). */
static void test_agreed_share_applied(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1, .agreed_share = 12},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_WITHDRAWAL, .parties = parties,
		.party_count = 3, .enemy_came_from = A, .retreat_choice = D,
	};
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(c->players[w->bur].battle_prestige, 40);
	assert_int_equal(c->players[w->mil].battle_prestige, 12);
	assert_int_equal(c->players[w->fra].location, D);
	assert_string_equal(fx_str(event_log_last(&w->log, "battle"), "how"), "withdrawal");
}

static void test_defender(void **state)
{
	struct fx_world *w = *state;
	assert_int_equal(rules_battle_defender(w->c, B, w->bur, w->fra, w->bur), w->fra);
	assert_int_equal(rules_battle_defender(w->c, M, w->bur, w->fra, w->bur), w->bur);
}

/* Audit, 2.2.2: beyond 7 commands the table goes on so that the commands
 * share 200 and the C-in-C's is worth at least twice another's. */
static void test_audit_command_table_beyond_7(void **state)
{
	(void)state;
	assert_int_equal(rules_command_prestige(10, false), 18);
	assert_int_equal(rules_command_prestige(10, true), 38);
	for (int n = 1; n <= 40; n++) {
		int cinc = rules_command_prestige(n, true), sub = rules_command_prestige(n, false);
		assert_int_equal(cinc + (n - 1) * sub, 200);
		assert_true(cinc >= 2 * sub);
		assert_int_equal(rules_army_prestige(n, false, 0), 200);
	}
	/* 2 commands, the sub-general's demoralised, against 2 fresh ones:
	 * 134 - 200 < 0: the floor of 40; equal armies of 480: 134 - 66 = 68. */
	assert_int_equal(rules_battle_prestige(134, 200, 480, 480), 40);
	assert_int_equal(rules_battle_prestige(134, 66, 480, 480), 68);
	/* A big army beating a small one: 150 - 80 = 70, × 320 / 480 = 46.7 -> 47;
	 * 100 - 80 = 20 × 320 / 480 = 13.3: the floor of 40. */
	assert_int_equal(rules_battle_prestige(150, 80, 480, 320), 47);
	assert_int_equal(rules_battle_prestige(100, 80, 480, 320), 40);
}

/* Audit, 2.2.2 "The loser can never gain prestige": France (3 commands, 2
 * demoralised: 100) beats Burgundy with Milan's contingent (4 commands, none
 * demoralised: 200). 100 - 200 is negative: France gets the floor of 40, the
 * losers nothing. */
static void test_audit_loser_never_gains(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3,
		 .others_demoralised = 2},
	};
	struct battle_result r = {
		.province = B, .winner_side = 1, .how = BATTLE_CONCEDED, .parties = parties,
		.party_count = 3, .enemy_came_from = NO_INDEX, .retreat_choice = NO_INDEX,
	};
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(fx_int(event_log_last(&w->log, "battle"), "award"), 40);
	assert_int_equal(c->players[w->fra].battle_prestige, 40);
	assert_int_equal(c->players[w->bur].battle_prestige, 0);
	assert_int_equal(c->players[w->mil].battle_prestige, 0);
	assert_int_equal(c->provinces[B].owner, w->fra);
	assert_int_equal(c->players[w->bur].location, A);
}

/* Audit, 2.3 "During battle": 4 commands on Burgundy's side (3 + Milan's
 * contingent), the C-in-C's counted twice: 5 shares. Equal values: the
 * award is the floor of 40, Milan's normal share 8; the share may be
 * negotiated up to twice that, 16, never 17. Burgundy, the winner, keeps
 * the floor of 40 (not 24). */
static void test_audit_share_up_to_double(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1, .agreed_share = 17},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_DEMORALISED, .parties = parties,
		.party_count = 3, .enemy_came_from = A, .retreat_choice = NO_INDEX,
	};
	struct rules_reason why;
	assert_int_equal(rules_battle_check(c, &r, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the share agreed with milan must be between 8 and 16 prestige");
	parties[1].agreed_share = 16;
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(c->players[w->bur].battle_prestige, 40);
	assert_int_equal(c->players[w->mil].battle_prestige, 16);
}

/* 2.2.2 with 2.3, above the floor: Burgundy (3 commands, none demoralised)
 * with Milan's contingent beats France (3 commands, 2 demoralised: 100) of
 * equal size: 200 - 100 = 100; 5 shares of 20. Milan's negotiated 30 is
 * taken from Burgundy, who keeps 70; negotiated 40 would leave Burgundy 60. */
static void test_floor_only_for_the_winner(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1, .agreed_share = 30},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3,
		 .others_demoralised = 2},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_DEMORALISED, .parties = parties,
		.party_count = 3, .enemy_came_from = A, .retreat_choice = NO_INDEX,
		.side_half_ap = {HALF_AP(480), HALF_AP(480)},
	};
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(fx_int(event_log_last(&w->log, "battle"), "award"), 100);
	assert_int_equal(c->players[w->bur].battle_prestige, 70);
	assert_int_equal(c->players[w->mil].battle_prestige, 30);
}

/* Audit, 2.2.1 "Losses": the winning side has 6 routers, Burgundy's 5 Sp and
 * Milan's 1 Sp: a third, 2, return. Evenly: 5/3 and 1/3; by default 2 and 0.
 * The players may round Burgundy's 1.67 down and Milan's 0.33 up (1 and 1),
 * but not change the total of 2. */
static void test_audit_routers_fraction_to_ally(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int bur_destroyed[T_COUNT] = {0, 0, 0, 0, 5, 0, 0};
	int mil_destroyed[T_COUNT] = {0, 0, 0, 0, 1, 0, 0};
	int bur_pick[T_COUNT] = {0, 0, 0, 0, 1, 0, 0};
	int mil_pick[T_COUNT] = {0, 0, 0, 0, 1, 0, 0};
	int mil_too_many[T_COUNT] = {0, 0, 0, 0, 2, 0, 0};
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3,
		 .destroyed = bur_destroyed},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1,
		 .destroyed = mil_destroyed},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 3},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_DEMORALISED, .parties = parties,
		.party_count = 3, .enemy_came_from = A, .retreat_choice = NO_INDEX,
	};
	assert_int_equal(rules_battle_check(c, &r, NULL), RULES_OK);
	parties[0].returned_pick = bur_pick;
	parties[1].returned_pick = mil_too_many;
	assert_int_equal(rules_battle_check(c, &r, NULL), RULES_REFUSED);
	parties[1].returned_pick = mil_pick;
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(c->players[w->bur].field.count[T_SP], 26);
	assert_int_equal(c->players[w->bur].reserve.count[T_SP], 4);
	assert_int_equal(c->contingents[0].troops.count[T_SP], 6);
	assert_int_equal(c->players[w->mil].reserve.count[T_SP], 0);
}

/* Audit, 2.2.1 "Losses": an allied contingent whose general is killed is
 * left with no general: it cannot stand alone and goes home (its owner's
 * field army keeps its own general). The loser France, 1 command, its
 * C-in-C killed: it retrieves one at once. */
static void test_audit_contingent_general_killed(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	int mil_destroyed[T_COUNT] = {0, 1, 0, 0, 0, 0, 0};
	int fra_destroyed[T_COUNT] = {1, 0, 0, 0, 0, 0, 0};
	struct player *f = &c->players[w->fra];
	fx_set(f->field.count, (const int[]){1, 0, 10, 10, 30, 16, 12});
	struct battle_party parties[] = {
		{.player = w->bur, .side = 0, .contingent = NO_INDEX, .commands = 3},
		{.player = w->mil, .side = 0, .contingent = 0, .commands = 1,
		 .destroyed = mil_destroyed},
		{.player = w->fra, .side = 1, .contingent = NO_INDEX, .commands = 1,
		 .c_in_c_demoralised = true, .destroyed = fra_destroyed},
	};
	struct battle_result r = {
		.province = B, .winner_side = 0, .how = BATTLE_DEMORALISED, .parties = parties,
		.party_count = 3, .enemy_came_from = A, .retreat_choice = NO_INDEX,
	};
	dice_fixed_init(&w->dice, NULL, 0);
	assert_int_equal(rules_apply_battle_result(c, &r, &w->dice.base, &w->log, NULL), RULES_OK);
	assert_int_equal(c->contingent_count, 0);
	assert_int_equal(c->players[w->mil].field.count[T_SP], 30);
	assert_int_equal(c->players[w->mil].field.count[T_SUB], 1);
	assert_int_equal(c->players[w->mil].reserve.count[T_SUB], 1);
	assert_int_equal(f->field.count[T_CINC], 1);
	assert_int_equal(f->reserve.count[T_CINC], 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_table),
		cmocka_unit_test(test_rulebook_example),
		cmocka_unit_test(test_ally_share_and_routers),
		T(test_battle_consequences),
		T(test_retreat_choice_and_forbidden),
		T(test_retreat_forcing_its_way),
		T(test_general_retrieved_after_battle),
		T(test_bad_reports),
		T(test_agreed_share_applied),
		T(test_floor_only_for_the_winner),
		T(test_defender),
		cmocka_unit_test(test_audit_command_table_beyond_7),
		T(test_audit_loser_never_gains),
		T(test_audit_share_up_to_double),
		T(test_audit_routers_fraction_to_ally),
		T(test_audit_contingent_general_killed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
