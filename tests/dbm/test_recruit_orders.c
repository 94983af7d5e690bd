/* Unit tests of rules_recruit_orders: a recruitment's orders carried out
 * in the order of rules 3.1 (DISMISS, EXCHANGE, RECRUIT), the one function
 * the recruitment phase applies and the acknowledgement's account of the
 * list minimums plays; the two agree. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"
#include "dbm/orders.h"

/* Burgundy holds A, B and C: an allowance of 30 AP. It has lost 3 Kn and
 * 12 Sp: Kn 7 (list 4-12), Sp 18 (list 20-36); the reserve holds 3 Kn and
 * 12 Sp (96 AP). */
static int setup(void **state)
{
	struct fx_world *w = fx_world_new();
	struct campaign *c = w->c;
	int a = fx_province(c, "A", 0, true);
	fx_province(c, "B", 0, true);
	fx_province(c, "C", 0, false);
	w->bur = fx_player(c, "burgundy", a);
	c->phase = PHASE_RECRUITMENT;
	struct player *b = &c->players[w->bur];
	b->field.count[T_KN] = 7;
	b->field.count[T_SP] = 18;
	b->reserve.count[T_KN] = 3;
	b->reserve.count[T_SP] = 12;
	return fx_world_start(state, w);
}

/* The orders of `text`, parsed and, when `check`, validated as a reply
 * validates them (every line must stand). */
static void parse(struct fx_world *w, const char *text, bool check, struct order_set *set)
{
	assert_int_equal(orders_parse(text, w->c, w->bur, set), 0);
	if (check)
		assert_int_equal(orders_validate(set, w->c, w->bur), 0);
}

/* The ack's list_minimums line of `label`, NULL when none. */
static json_t *minimum_of(json_t *ack, const char *label)
{
	json_t *lines = json_object_get(json_object_get(ack, "list_minimums"), "lines");
	size_t i;
	json_t *line;
	json_array_foreach(lines, i, line)
		if (strcmp(json_string_value(json_object_get(line, "label")), label) == 0)
			return line;
	return NULL;
}

static int integer(json_t *o, const char *key)
{
	return (int)json_integer_value(json_object_get(o, key));
}

/* DISMISS first (the two Kn in the reserve before the exchange), then
 * EXCHANGE (one of them for 4 Ps), then RECRUIT: Sp stays 1 short of its
 * minimum. The ack says the army will have what the recruitment phase
 * then gives it. */
static void test_dismiss_exchange_recruit(void **state)
{
	struct fx_world *w = *state;
	struct order_set set;
	/* written in another order than they are carried out */
	parse(w, "RECRUIT 1 Sp(O)\nEXCHANGE 4 Kn(O) FOR 4 Ps(O)\nDISMISS 2 Kn(O)\n", true, &set);
	json_t *ack = orders_ack_json(&set, &set, w->c, w->bur);
	json_t *sp = minimum_of(ack, "Sp(O)");
	assert_non_null(sp);
	assert_null(minimum_of(ack, "Kn(O)"));
	assert_int_equal(integer(sp, "in_army"), 19);
	assert_int_equal(integer(sp, "short"), 1);
	assert_int_equal(integer(sp, "from_reserve"), 1);
	assert_string_equal(json_string_value(json_object_get(sp, "left_ap")), "25");
	assert_true(json_is_true(json_object_get(sp, "may_add_now")));
	assert_false(json_is_true(json_object_get(json_object_get(ack, "list_minimums"),
						  "has_refused")));

	struct rules_recruit_outcome out;
	rules_recruit_orders(w->c, w->bur, &set, &w->log, &out);
	const struct player *b = &w->c->players[w->bur];
	for (int s = 0; s < RECRUIT_STEP_COUNT; s++) {
		assert_true(out.step[s].ordered);
		assert_false(out.step[s].refused);
	}
	/* the same count as the ack said, and the rest followed from it */
	assert_int_equal(b->field.count[T_SP], integer(sp, "in_army"));
	assert_int_equal(b->field.count[T_KN], 5);
	assert_int_equal(b->reserve.count[T_KN], 1); /* 3 + 2 dismissed - 4 exchanged */
	assert_int_equal(b->reserve.count[T_PS], 4);
	assert_int_equal(b->reserve.count[T_SP], 11);
	assert_int_equal(out.recruited_half_ap, HALF_AP(5));
	/* in that order in the log */
	const char *kinds[] = {"dismiss", "reserve_changed", "recruit"};
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(json_string_value(json_object_get(w->log.events[i], "kind")),
				    kinds[i]);
	json_decref(ack);
	orders_set_free(&set);
}

/* The reply refuses an EXCHANGE the rules would refuse at the end of the
 * phase (the new reserve worth more), with their reason; the recruits
 * stand, counted without it, and the ack and the phase agree. */
static void test_exchange_refused_by_the_reply(void **state)
{
	struct fx_world *w = *state;
	struct order_set set;
	assert_int_equal(orders_parse("EXCHANGE 4 Sp(O) FOR 2 Kn(O)\nRECRUIT 1 Sp(O)\n", w->c,
				      w->bur, &set), 0);
	assert_int_equal(orders_validate(&set, w->c, w->bur), 1);
	assert_int_equal(set.orders[0].status, ORDER_ERROR);
	assert_string_equal(set.orders[0].error,
			    "the new reserve is worth 100 AP, more than the 96 AP it replaces (the "
			    "EXCHANGE lines are carried out together, or none of them)");
	assert_int_equal(set.orders[1].status, ORDER_OK);
	json_t *ack = orders_ack_json(&set, &set, w->c, w->bur);
	assert_false(json_is_true(json_object_get(json_object_get(ack, "list_minimums"),
						  "has_refused")));
	json_t *sp = minimum_of(ack, "Sp(O)");
	assert_int_equal(integer(sp, "in_army"), 19);
	struct rules_recruit_outcome out;
	rules_recruit_orders(w->c, w->bur, &set, &w->log, &out);
	assert_false(out.step[RECRUIT_STEP_EXCHANGE].ordered);
	assert_false(out.step[RECRUIT_STEP_RECRUIT].refused);
	assert_int_equal(w->c->players[w->bur].field.count[T_SP], integer(sp, "in_army"));
	assert_int_equal(w->c->players[w->bur].reserve.count[T_KN], 3);
	json_decref(ack);
	orders_set_free(&set);
}

/* The same EXCHANGE in a set the reply never checked (orders stored
 * before the campaign changed): it is not carried out, the recruits are,
 * and the ack counted without it and said why. */
static void test_exchange_refused_is_counted_without(void **state)
{
	struct fx_world *w = *state;
	struct order_set set;
	parse(w, "EXCHANGE 4 Sp(O) FOR 2 Kn(O)\nRECRUIT 1 Sp(O)\n", false, &set);
	json_t *ack = orders_ack_json(&set, &set, w->c, w->bur);
	json_t *mins = json_object_get(ack, "list_minimums");
	assert_true(json_is_true(json_object_get(mins, "has_refused")));
	json_t *refused = json_array_get(json_object_get(mins, "refused"), 0);
	assert_string_equal(json_string_value(json_object_get(refused, "order")), "EXCHANGE");
	assert_string_equal(json_string_value(json_object_get(refused, "reason")),
			    "the new reserve is worth 100 AP, more than the 96 AP it replaces");
	json_t *sp = minimum_of(ack, "Sp(O)");
	assert_int_equal(integer(sp, "in_army"), 19);
	/* 12 - 1 Sp in the reserve, not 12 - 4 - 1: the exchange is not made */
	assert_int_equal(integer(sp, "from_reserve"), 1);

	struct rules_recruit_outcome out;
	rules_recruit_orders(w->c, w->bur, &set, &w->log, &out);
	assert_true(out.step[RECRUIT_STEP_EXCHANGE].refused);
	assert_string_equal(out.step[RECRUIT_STEP_EXCHANGE].why.text,
			    json_string_value(json_object_get(refused, "reason")));
	assert_false(out.step[RECRUIT_STEP_RECRUIT].refused);
	assert_false(out.step[RECRUIT_STEP_DISMISS].ordered);
	const struct player *b = &w->c->players[w->bur];
	assert_int_equal(b->field.count[T_SP], integer(sp, "in_army"));
	assert_int_equal(b->reserve.count[T_SP], 11);
	assert_int_equal(b->reserve.count[T_KN], 3);
	json_decref(ack);
	orders_set_free(&set);
}

/* Recruits the rules refuse as a whole (Kn beyond their minimum while Sp
 * is short; a set the reply never checked): none is carried out, and the
 * ack does not count them either. */
static void test_recruit_refused_adds_nothing(void **state)
{
	struct fx_world *w = *state;
	struct order_set set;
	parse(w, "RECRUIT 1 Kn(O)\nRECRUIT 1 Sp(O)\n", false, &set);
	json_t *ack = orders_ack_json(&set, &set, w->c, w->bur);
	json_t *sp = minimum_of(ack, "Sp(O)");
	assert_int_equal(integer(sp, "in_army"), 18);
	assert_int_equal(integer(sp, "short"), 2);
	/* the whole allowance is left: nothing was taken */
	assert_string_equal(json_string_value(json_object_get(sp, "left_ap")), "30");
	json_t *refused = json_array_get(
		json_object_get(json_object_get(ack, "list_minimums"), "refused"), 0);
	assert_string_equal(json_string_value(json_object_get(refused, "order")), "RECRUIT");
	assert_string_equal(json_string_value(json_object_get(refused, "reason")),
			    "the army is below the list minimum of 20 \"Sp(O)\": that comes "
			    "before any other troops");

	struct rules_recruit_outcome out;
	rules_recruit_orders(w->c, w->bur, &set, &w->log, &out);
	assert_true(out.step[RECRUIT_STEP_RECRUIT].refused);
	assert_int_equal(out.recruited_half_ap, 0);
	assert_int_equal(w->c->players[w->bur].field.count[T_SP], integer(sp, "in_army"));
	assert_int_equal(w->c->players[w->bur].field.count[T_KN], 7);
	json_decref(ack);
	orders_set_free(&set);
}

/* A DISMISS below a list minimum, nothing recruited: the army is short by
 * the dismissed troops, which the reserve then holds to fill it. */
static void test_dismiss_below_minimum(void **state)
{
	struct fx_world *w = *state;
	struct order_set set;
	parse(w, "DISMISS 5 Kn(O)\n", true, &set);
	json_t *ack = orders_ack_json(&set, &set, w->c, w->bur);
	json_t *kn = minimum_of(ack, "Kn(O)");
	assert_non_null(kn);
	assert_int_equal(integer(kn, "in_army"), 2);
	assert_int_equal(integer(kn, "short"), 2);
	assert_int_equal(integer(kn, "from_reserve"), 2);
	struct rules_recruit_outcome out;
	rules_recruit_orders(w->c, w->bur, &set, &w->log, &out);
	assert_false(out.step[RECRUIT_STEP_DISMISS].refused);
	assert_false(out.step[RECRUIT_STEP_RECRUIT].ordered);
	assert_int_equal(w->c->players[w->bur].field.count[T_KN], integer(kn, "in_army"));
	assert_int_equal(w->c->players[w->bur].reserve.count[T_KN], 8);
	json_decref(ack);
	orders_set_free(&set);
}

/* Counts no army holds, in a set never checked (the parser reads at most
 * 999; a stored set is not trusted): refused by the rules, no overflow,
 * nothing changed. */
static void add(struct order_set *set, enum order_kind kind, int count, int type)
{
	struct order *o = orders_set_add(set);
	o->kind = kind;
	o->status = ORDER_OK;
	o->count = count;
	o->type = type;
}

static void test_huge_counts_refused(void **state)
{
	struct fx_world *w = *state;
	struct order_set set;
	orders_set_init(&set);
	set.player = w->bur;
	add(&set, ORDER_DISMISS, 2000000000, T_KN);
	add(&set, ORDER_DISMISS, 2000000000, T_KN);
	add(&set, ORDER_EXCHANGE, 2000000000, T_SP);
	struct order *x = &set.orders[set.count - 1];
	x->items = xcalloc(1, sizeof *x->items);
	x->item_count = 1;
	x->items[0].type = T_PS;
	x->items[0].count = -2000000000;
	add(&set, ORDER_RECRUIT, 2000000000, T_SP);
	add(&set, ORDER_RECRUIT, 2000000000, T_SP);
	add(&set, ORDER_RECRUIT, 5, 99); /* no such line of the list */
	struct rules_recruit_outcome out;
	rules_recruit_orders(w->c, w->bur, &set, &w->log, &out);
	for (int s = 0; s < RECRUIT_STEP_COUNT; s++)
		assert_true(out.step[s].refused);
	assert_int_equal(w->c->players[w->bur].field.count[T_KN], 7);
	assert_int_equal(w->c->players[w->bur].field.count[T_SP], 18);
	assert_int_equal(w->c->players[w->bur].reserve.count[T_SP], 12);
	assert_int_equal(w->log.count, 0);
	orders_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dismiss_exchange_recruit, setup,
						fx_world_teardown),
		cmocka_unit_test_setup_teardown(test_exchange_refused_by_the_reply, setup,
						fx_world_teardown),
		cmocka_unit_test_setup_teardown(test_exchange_refused_is_counted_without, setup,
						fx_world_teardown),
		cmocka_unit_test_setup_teardown(test_recruit_refused_adds_nothing, setup,
						fx_world_teardown),
		cmocka_unit_test_setup_teardown(test_dismiss_below_minimum, setup,
						fx_world_teardown),
		cmocka_unit_test_setup_teardown(test_huge_counts_refused, setup,
						fx_world_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
