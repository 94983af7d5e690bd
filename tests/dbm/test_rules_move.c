/* Unit tests for movement (2.1): stages and forced marching, sea storms,
 * hostile provinces, supply, the Move option. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"
#include "dbm/orders.h"

/* The map (burgundy = 0, france = 1, N neutral):
 *   A-B-C-D-E-F-Z   land chain (Z french)
 *   A~P~Q, P~Y      sea (Y french)
 *   A-H-G, H-X      land (H, X french)
 *   A-N-K           land (N neutral)
 *   C~W-V           sea then land (W french) */
enum { A, B, C, D, E, F, P, Q, H, G, N, K, Z, W, V, X, Y };

static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	static const struct {
		const char *name;
		int owner;
	} provs[] = {
		{"A", 0}, {"B", 0}, {"C", 0}, {"D", 0}, {"E", 0}, {"F", 0}, {"P", 0}, {"Q", 0},
		{"H", 1}, {"G", 0}, {"N", NO_INDEX}, {"K", 0}, {"Z", 1}, {"W", 1}, {"V", 0},
		{"X", 1}, {"Y", 1},
	};
	for (size_t i = 0; i < sizeof provs / sizeof *provs; i++)
		fx_province(c, provs[i].name, provs[i].owner, i == A || i == H);
	fx_route(c, A, B, false);
	fx_route(c, B, C, false);
	fx_route(c, C, D, false);
	fx_route(c, D, E, false);
	fx_route(c, E, F, false);
	fx_route(c, F, Z, false);
	fx_route(c, A, P, true);
	fx_route(c, P, Q, true);
	fx_route(c, P, Y, true);
	fx_route(c, A, H, false);
	fx_route(c, H, G, false);
	fx_route(c, H, X, false);
	fx_route(c, A, N, false);
	fx_route(c, N, K, false);
	fx_route(c, C, W, true);
	fx_route(c, W, V, false);
	w->bur = fx_player(c, "burgundy", A);
	w->fra = fx_player(c, "france", Z);
	return fx_world_start(state, w);
}

static struct move_order order(const struct fx_world *w, const int *path, size_t stages)
{
	struct move_order o = {
		.player = w->bur, .contingent = NO_INDEX, .kind = MOVE_FRIENDLY, .path = path,
		.stages = stages, .on_storm = STORM_CONTINUE,
	};
	return o;
}

static void test_forced_march_cost_table(void **state)
{
	(void)state;
	assert_int_equal(rules_forced_march_cost(0), 0);
	assert_int_equal(rules_forced_march_cost(2), 0);
	assert_int_equal(rules_forced_march_cost(3), HALF_AP(40));
	assert_int_equal(rules_forced_march_cost(4), HALF_AP(80));
}

static void test_two_stages_free(void **state)
{
	struct fx_world *w = *state;
	dice_fixed_init(&w->dice, NULL, 0);
	const int path[] = {B, C};
	struct move_order o = order(w, path, 2);
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_int_equal(w->c->players[w->bur].location, C);
	assert_int_equal(out.lost_half_ap, 0);
	assert_int_equal(player_field_half_ap(&w->c->players[w->bur]), HALF_AP(480));
	assert_string_equal(fx_str(event_log_last(&w->log, "move"), "to"), "C");
}

static void test_four_stages_cost_80(void **state)
{
	struct fx_world *w = *state;
	dice_fixed_init(&w->dice, NULL, 0);
	const int path[] = {B, C, D, E};
	struct move_order o = order(w, path, 4);
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_int_equal(out.lost_half_ap, HALF_AP(80));
	assert_int_equal(w->c->players[w->bur].location, E);
	assert_int_equal(player_field_half_ap(&w->c->players[w->bur]), HALF_AP(400));
	assert_int_equal(event_log_count(&w->log, "forced_march"), 2);
	assert_int_equal(fx_int(event_log_find(&w->log, "forced_march", 0), "stage"), 3);
}

static void test_fifth_stage_refused(void **state)
{
	struct fx_world *w = *state;
	dice_fixed_init(&w->dice, NULL, 0);
	const int path[] = {B, C, D, E, F};
	struct move_order o = order(w, path, 5);
	struct rules_reason why;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, NULL, &why), RULES_REFUSED);
	assert_string_equal(why.text, "a move of 5 stages exceeds the maximum of 4");
	assert_int_equal(w->c->players[w->bur].location, A);
	assert_int_equal(w->log.count, 0);
	const int gap[] = {C};
	o = order(w, gap, 1);
	assert_int_equal(rules_move_check(w->c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "there is no route from A to C");
}

/* A→P→Q by sea: the first stage rolls 4, the second 1 (a storm), the second
 * die 2: 50 AP lost, the first 25 AP mounted. Default: five LH pay the
 * mounted 25 AP exactly, then five Sp the other 25. */
static void test_storm_on_second_sea_stage(void **state)
{
	struct fx_world *w = *state;
	static const int rolls[] = {4, 1, 2};
	dice_fixed_init(&w->dice, rolls, 3);
	const int path[] = {P, Q};
	struct move_order o = order(w, path, 2);
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	assert_true(out.storm);
	assert_int_equal(out.lost_half_ap, HALF_AP(50));
	assert_int_equal(w->c->players[w->bur].location, Q);
	struct player *p = &w->c->players[w->bur];
	assert_int_equal(p->reserve.count[T_LH], 5);
	assert_int_equal(p->reserve.count[T_SP], 5);
	json_t *storm = event_log_last(&w->log, "storm");
	assert_int_equal(fx_int(storm, "stage"), 2);
	assert_int_equal(fx_int(storm, "due_half_ap"), HALF_AP(50));
	assert_int_equal(fx_int(event_log_last(&w->log, "loss"), "mounted_half_ap"), HALF_AP(25));
	/* The stage-2 storm roll is the second roll of the move. */
	assert_string_equal(fx_str(event_log_find(&w->log, "roll", 1), "purpose"),
			    "sea storm burgundy stage 2");
}

static void test_storm_halt_and_return(void **state)
{
	struct fx_world *w = *state;
	static const int rolls[] = {4, 1, 1, 1, 1};
	dice_fixed_init(&w->dice, rolls, 5);
	const int path[] = {P, Q};
	struct move_order o = order(w, path, 2);
	o.on_storm = STORM_HALT;
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_true(out.halted);
	assert_int_equal(out.stages_moved, 1);
	assert_int_equal(w->c->players[w->bur].location, P);
	/* From P, back to Q: a storm on stage 1 and return to P, no more dice. */
	const int again[] = {Q};
	o = order(w, again, 1);
	o.on_storm = STORM_RETURN;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_true(out.returned);
	assert_int_equal(w->c->players[w->bur].location, P);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	assert_int_equal(fx_total_lost(&w->log), HALF_AP(25) + HALF_AP(25));
}

/* Fewer than 25 AP of mounted troops (2 LH = 10 AP, the only general is the
 * C-in-C, who stays): all the mounted go first, then 3 Sp make 25 AP. */
static void test_storm_fewer_than_25_mounted(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	fx_set(p->field.count, (const int[]){1, 0, 0, 2, 30, 0, 0});
	static const int rolls[] = {1, 1};
	dice_fixed_init(&w->dice, rolls, 2);
	bool storm;
	int lost = rules_sea_storm(w->c, w->bur, NO_INDEX, 1, NULL, &w->dice.base, &w->log, &storm);
	assert_true(storm);
	assert_int_equal(lost, HALF_AP(25));
	assert_int_equal(p->field.count[T_LH], 0);
	assert_int_equal(p->field.count[T_SP], 27);
	assert_int_equal(p->field.count[T_CINC], 1);
}

static void test_hostile_passage(void **state)
{
	struct fx_world *w = *state;
	const int path[] = {H, G};
	struct move_order o = order(w, path, 2);
	struct rules_reason why;
	assert_int_equal(rules_move_check(w->c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "passing through H needs the permission of france, or an order to force the way (a die x 40 AP)");
	/* Permission: free passage, no dice. */
	bool passage[2] = {false, true};
	o.passage = passage;
	dice_fixed_init(&w->dice, NULL, 0);
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_false(out.forced_passage);
	assert_int_equal(w->c->players[w->bur].location, G);
	/* Forced, back the other way: a 3 costs 120 AP. */
	const int back[] = {H, A};
	o = order(w, back, 2);
	o.force_passage = true;
	static const int three[] = {3};
	dice_fixed_init(&w->dice, three, 1);
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_true(out.forced_passage);
	assert_int_equal(out.lost_half_ap, HALF_AP(120));
	assert_int_equal(player_field_half_ap(&w->c->players[w->bur]), HALF_AP(360));
}

static void test_field_army_bars_the_way(void **state)
{
	struct fx_world *w = *state;
	w->c->players[w->fra].location = H;
	const int path[] = {H, G};
	struct move_order o = order(w, path, 2);
	o.force_passage = true;
	struct rules_reason why;
	assert_int_equal(rules_move_check(w->c, &o, &why), RULES_REFUSED);
	assert_string_equal(why.text, "the field army of france in H bars the way");
	assert_int_equal(rules_passage(w->c, w->bur, H, NULL), PASSAGE_BARRED);
	bool passage[2] = {false, true};
	assert_int_equal(rules_passage(w->c, w->bur, H, passage), PASSAGE_FREE);
}

static void test_neutral_forced(void **state)
{
	struct fx_world *w = *state;
	assert_int_equal(rules_passage(w->c, w->bur, N, NULL), PASSAGE_FORCE);
	w->c->provinces[N].inviolate = true;
	assert_int_equal(rules_passage(w->c, w->bur, N, NULL), PASSAGE_FORCE);
	w->c->settings.inviolate_passable = false;
	assert_int_equal(rules_passage(w->c, w->bur, N, NULL), PASSAGE_BARRED);
	w->c->settings.inviolate_passable = true;
	static const int two[] = {2};
	dice_fixed_init(&w->dice, two, 1);
	const int path[] = {N, K};
	struct move_order o = order(w, path, 2);
	o.force_passage = true;
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_int_equal(out.lost_half_ap, HALF_AP(80));
}

/* Reading #4: within a stage, storm, then forced passage, then forced march.
 * A-B-C~W-V: stage 3 is by sea into french W. */
static void test_order_of_losses(void **state)
{
	struct fx_world *w = *state;
	static const int rolls[] = {6, 1};
	dice_fixed_init(&w->dice, rolls, 2);
	const int path[] = {B, C, W, V};
	struct move_order o = order(w, path, 4);
	o.force_passage = true;
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	/* 40 (passage) + 40 + 40 (two forced-march stages) */
	assert_int_equal(out.lost_half_ap, HALF_AP(120));
	const char *expected[] = {"roll", "roll", "forced_passage", "loss", "forced_march", "loss",
				  "forced_march", "loss", "move"};
	assert_int_equal(w->log.count, sizeof expected / sizeof *expected);
	for (size_t i = 0; i < w->log.count; i++)
		assert_string_equal(fx_str(w->log.events[i], "kind"), expected[i]);
	assert_string_equal(fx_str(w->log.events[0], "purpose"), "sea storm burgundy stage 3");
	assert_string_equal(fx_str(w->log.events[1], "purpose"), "forced passage burgundy W");
}

static void test_supply(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	p->location = H; /* french, next to A */
	assert_true(rules_in_supply(w->c, w->bur, NULL));
	p->location = X; /* next to H only */
	assert_false(rules_in_supply(w->c, w->bur, NULL));
	bool supply[2] = {false, true};
	assert_true(rules_in_supply(w->c, w->bur, supply));
	p->location = Y; /* one sea route from P */
	assert_true(rules_in_supply(w->c, w->bur, NULL));
	w->c->settings.supply_across_sea = false;
	assert_false(rules_in_supply(w->c, w->bur, NULL));
	/* Out of supply: a 2 costs 80 AP; after a forced passage nothing. */
	static const int two[] = {2};
	dice_fixed_init(&w->dice, two, 1);
	assert_int_equal(rules_supply_check(w->c, w->bur, NULL, true, NULL, &w->dice.base, &w->log),
			 0);
	assert_true(json_is_true(json_object_get(event_log_last(&w->log, "supply"), "loss_waived")));
	assert_int_equal(rules_supply_check(w->c, w->bur, NULL, false, NULL, &w->dice.base,
					    &w->log), HALF_AP(80));
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	/* Besieged in its own city: in supply. */
	p->location = A;
	assert_true(rules_in_supply(w->c, w->bur, NULL));
}

static void test_move_option(void **state)
{
	struct fx_world *w = *state;
	dice_fixed_init(&w->dice, NULL, 0);
	const int to_h[] = {H};
	struct move_order o = order(w, to_h, 1);
	struct rules_reason why;
	assert_int_equal(rules_field_move(w->c, &o, &w->dice.base, &w->log, NULL, &why),
			 RULES_REFUSED);
	assert_string_equal(why.text, "H is not a friendly province: a move goes to a province of yours or of an ally (declared, overlord or tributary)");
	assert_int_equal(w->c->players[w->bur].movement_option, OPTION_NONE);
	const int to_b[] = {B};
	o = order(w, to_b, 1);
	assert_int_equal(rules_field_move(w->c, &o, &w->dice.base, &w->log, NULL, &why), RULES_OK);
	assert_int_equal(w->c->players[w->bur].movement_option, OPTION_MOVE);
	const int to_c[] = {C};
	o = order(w, to_c, 1);
	assert_int_equal(rules_field_move(w->c, &o, &w->dice.base, &w->log, NULL, &why),
			 RULES_REFUSED);
	assert_string_equal(why.text, "burgundy has already taken a movement option this year");
}

/* "MOVE H" checked by the order language (orders_validate) and by the
 * rules (rules_move_check): the verdicts, which must be the same. */
static void both_verdicts(struct fx_world *w, bool *order_ok, bool *rules_ok)
{
	struct order_set set;
	orders_parse("MOVE H", w->c, w->bur, &set);
	orders_validate(&set, w->c, w->bur);
	*order_ok = set.count == 1 && set.orders[0].status == ORDER_OK;
	orders_set_free(&set);
	const int to_h[] = {H};
	struct move_order o = order(w, to_h, 1);
	*rules_ok = rules_move_check(w->c, &o, NULL) == RULES_OK;
}

/* 1.4 Move "a friendly province, ie one controlled by you or an ally": one
 * definition (rules_allied) for the order check and the rules, for every
 * kind of ally and for none; a permission alone makes no ally. */
static void test_move_to_an_ally_both_agree(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	bool order_ok, rules_ok;
	/* a stranger's province: refused by both */
	both_verdicts(w, &order_ok, &rules_ok);
	assert_false(order_ok);
	assert_false(rules_ok);
	/* a passage permission is not an alliance */
	bool passage[2] = {false, true};
	const int to_h[] = {H};
	struct move_order o = order(w, to_h, 1);
	o.passage = passage;
	assert_int_equal(rules_move_check(c, &o, NULL), RULES_REFUSED);
	/* declared allies: accepted by both */
	assert_int_equal(rules_alliance_make(c, w->bur, w->fra, &w->log, NULL), RULES_OK);
	assert_true(rules_allied(c, w->fra, w->bur));
	assert_true(rules_friendly_to(c, w->bur, H));
	both_verdicts(w, &order_ok, &rules_ok);
	assert_true(order_ok);
	assert_true(rules_ok);
	/* an ally's field army there: refused by both (2.3) */
	c->players[w->fra].location = H;
	both_verdicts(w, &order_ok, &rules_ok);
	assert_false(order_ok);
	assert_false(rules_ok);
	c->players[w->fra].location = Z;
	/* ended: refused by both again */
	assert_int_equal(rules_alliance_end(c, w->bur, w->fra, w->fra, "declared", &w->log, NULL),
			 RULES_OK);
	assert_string_equal(fx_str(event_log_last(&w->log, "alliance_ended"), "by"), "france");
	both_verdicts(w, &order_ok, &rules_ok);
	assert_false(order_ok);
	assert_false(rules_ok);
	/* overlord, then tributary: allies for both */
	c->players[w->bur].overlord = w->fra;
	both_verdicts(w, &order_ok, &rules_ok);
	assert_true(order_ok);
	assert_true(rules_ok);
	c->players[w->bur].overlord = NO_INDEX;
	c->players[w->fra].overlord = w->bur;
	both_verdicts(w, &order_ok, &rules_ok);
	assert_true(order_ok);
	assert_true(rules_ok);
	c->players[w->fra].overlord = NO_INDEX;
	/* an ally who has left the campaign is no ally */
	assert_int_equal(rules_alliance_make(c, w->bur, w->fra, &w->log, NULL), RULES_OK);
	c->players[w->fra].status = PLAYER_LEFT;
	assert_false(rules_allied(c, w->bur, w->fra));
	both_verdicts(w, &order_ok, &rules_ok);
	assert_false(order_ok);
	assert_false(rules_ok);
}

/* 2.1 Hostile provinces: an ally's province is not hostile, so passing
 * through it needs no permission and no forcing; its field army does not
 * bar the way. */
static void test_passage_through_an_ally(void **state)
{
	struct fx_world *w = *state;
	struct campaign *c = w->c;
	assert_int_equal(rules_passage(c, w->bur, H, NULL), PASSAGE_FORCE);
	struct rules_reason why;
	assert_int_equal(rules_alliance_make(c, w->fra, w->bur, &w->log, &why), RULES_OK);
	assert_string_equal(fx_str(event_log_last(&w->log, "alliance"), "player"), "burgundy");
	assert_string_equal(fx_str(event_log_last(&w->log, "alliance"), "ally"), "france");
	assert_int_equal(rules_alliance_make(c, w->bur, w->fra, &w->log, &why), RULES_REFUSED);
	assert_string_equal(why.text, "burgundy and france are allies already");
	assert_int_equal(rules_passage(c, w->bur, H, NULL), PASSAGE_FREE);
	c->players[w->fra].location = H;
	assert_int_equal(rules_passage(c, w->bur, H, NULL), PASSAGE_FREE);
	const int path[] = {H, G};
	struct move_order o = order(w, path, 2);
	dice_fixed_init(&w->dice, NULL, 0);
	struct move_outcome out;
	assert_int_equal(rules_move(c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_false(out.forced_passage);
	assert_int_equal(c->players[w->bur].location, G);
}

static void test_shortest_path(void **state)
{
	struct fx_world *w = *state;
	int path[8];
	assert_int_equal(rules_shortest_path(w->c, w->bur, A, K, path, 8), 2);
	assert_int_equal(path[0], N);
	assert_int_equal(path[1], K);
	assert_int_equal(rules_shortest_path(w->c, w->bur, A, A, path, 8), 0);
	assert_int_equal(rules_shortest_path(w->c, w->bur, A, 99, path, 8), -1);
}

/* Audit, by hand from 2.1 "Forced marching": three stages cost 40 AP (one
 * stage over the normal two), paid once, on the third stage. */
static void test_audit_three_stages_cost_40(void **state)
{
	struct fx_world *w = *state;
	dice_fixed_init(&w->dice, NULL, 0);
	const int path[] = {B, C, D};
	struct move_order o = order(w, path, 3);
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_int_equal(out.lost_half_ap, HALF_AP(40));
	assert_int_equal(player_field_half_ap(&w->c->players[w->bur]), HALF_AP(440));
	assert_int_equal(event_log_count(&w->log, "forced_march"), 1);
	assert_int_equal(fx_int(event_log_last(&w->log, "forced_march"), "stage"), 3);
	/* Contingents cannot forced march at all. */
	o.kind = MOVE_CONTINGENT;
	assert_int_equal(rules_move_check(w->c, &o, NULL), RULES_REFUSED);
}

/* One storm (first die 1) with `pips` on the second die against a field
 * army of a lone C-in-C (the last general: never lost), `lh` LH(O), `kn`
 * Kn(O) and 30 Sp(O). Returns the half AP lost; *mounted the mounted part. */
static int audit_storm(struct fx_world *w, int lh, int kn, int pips, int *mounted)
{
	struct player *p = &w->c->players[w->bur];
	fx_set(p->field.count, (const int[]){1, 0, kn, lh, 30, 0, 0});
	const int rolls[] = {1, pips};
	dice_fixed_init(&w->dice, rolls, 2);
	bool storm;
	int lost = rules_sea_storm(w->c, w->bur, NO_INDEX, 1, NULL, &w->dice.base, &w->log, &storm);
	assert_true(storm);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	assert_int_equal(p->field.count[T_CINC], 1);
	*mounted = fx_int(event_log_last(&w->log, "loss"), "mounted_half_ap");
	return lost;
}

/* Audit, 2.1 "Sea movement": 25 AP a pip; "the first 25 army points must be
 * of mounted troops, if any are present". Worked by hand:
 *  - no mounted troops (but the last general), 2 pips: 50 AP, all foot;
 *  - 10 AP of mounted (2 LH), 2 pips: the 2 LH, then 40 AP of foot: 50 AP;
 *  - 25 AP of mounted (5 LH), 1 pip: exactly the 5 LH;
 *  - 60 AP of mounted (5 Kn at 12), 1 pip: 2 Kn are 24 < 25, so 3 Kn, 36 AP
 *    (rounded against the player);
 *  - 60 AP of mounted, 2 pips: 3 Kn (36) for the mounted 25, then 14 more:
 *    3 Sp (15): 51 AP, the least that satisfies both. */
static void test_audit_storm_mounted_share(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	int mounted;
	assert_int_equal(audit_storm(w, 0, 0, 2, &mounted), HALF_AP(50));
	assert_int_equal(mounted, 0);
	assert_int_equal(p->field.count[T_SP], 20);

	assert_int_equal(audit_storm(w, 2, 0, 2, &mounted), HALF_AP(50));
	assert_int_equal(mounted, HALF_AP(10));
	assert_int_equal(p->field.count[T_LH], 0);
	assert_int_equal(p->field.count[T_SP], 22);

	assert_int_equal(audit_storm(w, 5, 0, 1, &mounted), HALF_AP(25));
	assert_int_equal(mounted, HALF_AP(25));
	assert_int_equal(p->field.count[T_LH], 0);
	assert_int_equal(p->field.count[T_SP], 30);

	assert_int_equal(audit_storm(w, 0, 5, 1, &mounted), HALF_AP(36));
	assert_int_equal(mounted, HALF_AP(36));
	assert_int_equal(p->field.count[T_KN], 2);
	assert_int_equal(p->field.count[T_SP], 30);

	assert_int_equal(audit_storm(w, 0, 5, 2, &mounted), HALF_AP(51));
	assert_true(mounted >= HALF_AP(25));
	assert_int_equal(p->field.count[T_KN], 2);
	assert_int_equal(p->field.count[T_SP], 27);
}

/* Audit, 2.1 "Supply": next to a city of a player who permits it; and a
 * force that forced its way and ends out of supply takes one set of losses
 * only. Burgundy forces its way through French H (a 3: 120 AP) to X, French,
 * next to H only: out of supply, but no second roll. */
static void test_audit_forced_passage_then_out_of_supply(void **state)
{
	struct fx_world *w = *state;
	struct player *p = &w->c->players[w->bur];
	static const int three[] = {3};
	dice_fixed_init(&w->dice, three, 1);
	const int path[] = {H, X};
	struct move_order o = order(w, path, 2);
	o.kind = MOVE_INVADE;
	o.force_passage = true;
	struct move_outcome out;
	assert_int_equal(rules_move(w->c, &o, &w->dice.base, &w->log, &out, NULL), RULES_OK);
	assert_true(out.forced_passage);
	assert_int_equal(out.lost_half_ap, HALF_AP(120));
	assert_int_equal(p->location, X);
	assert_false(rules_in_supply(w->c, w->bur, NULL));
	assert_int_equal(rules_supply_check(w->c, w->bur, NULL, out.forced_passage, NULL,
					    &w->dice.base, &w->log), 0);
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	assert_int_equal(player_field_half_ap(p), HALF_AP(360));
	/* France permitting supply: H, next to X, is a permitting player's city. */
	bool supply[2] = {false, true};
	assert_true(rules_in_supply(w->c, w->bur, supply));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_forced_march_cost_table), T(test_two_stages_free), T(test_four_stages_cost_80),
		T(test_fifth_stage_refused), T(test_storm_on_second_sea_stage),
		T(test_storm_halt_and_return), T(test_storm_fewer_than_25_mounted),
		T(test_hostile_passage), T(test_field_army_bars_the_way), T(test_neutral_forced),
		T(test_order_of_losses), T(test_supply), T(test_move_option), T(test_move_to_an_ally_both_agree),
		T(test_passage_through_an_ally), T(test_shortest_path),
		T(test_audit_three_stages_cost_40), T(test_audit_storm_mounted_share),
		T(test_audit_forced_passage_then_out_of_supply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
