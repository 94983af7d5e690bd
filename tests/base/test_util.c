/* Unit tests for the shared helpers and the model's queries. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/diag.h"
#include "model/model.h"
#include "base/util.h"

static void test_name_fold(void **state)
{
	(void)state;
	char *f = name_fold("  Genève__Old-Town ");
	assert_string_equal(f, "geneve old town");
	free(f);
	f = name_fold("ÎLE\xc2\xa0" "de France");
	assert_string_equal(f, "ile de france");
	free(f);
	assert_true(name_equal("Köln", "koln"));
	assert_false(name_equal("Koln", "Kolin"));
	/* decomposed accents as macOS and iOS send them: I + U+0302 */
	f = name_fold("I\xcc\x82le-de-France Lie\xcc\x80ge");
	assert_string_equal(f, "ile de france liege");
	free(f);
	/* a typographic apostrophe is the typed one */
	assert_true(name_equal("Gendarmes d\xe2\x80\x99ordonnance", "gendarmes d'ordonnance"));
	assert_false(name_equal("Gendarmes d\xe2\x80\x99ordonnance", "gendarmes dordonnance"));
}

static void test_name_lookup(void **state)
{
	(void)state;
	const char *names[] = {"Flanders", "France", "Burgundy", "Brabant"};
	int sugg;
	assert_int_equal(name_lookup("flanders", names, 4, &sugg), 0);
	assert_int_equal(name_lookup("Bur", names, 4, &sugg), 2);
	/* "Br" is a prefix of Brabant only; "F" is ambiguous and too short. */
	assert_int_equal(name_lookup("Bra", names, 4, &sugg), 3);
	assert_int_equal(name_lookup("F", names, 4, &sugg), -1);
	assert_int_equal(name_lookup("Flandres", names, 4, &sugg), -1);
	assert_int_equal(sugg, 0);
	assert_int_equal(name_lookup("Zanzibar", names, 4, &sugg), -1);
	assert_int_equal(sugg, -1);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("kitten", "sitting", 10), 3);
	assert_int_equal(edit_distance("", "abc", 10), 3);
	assert_int_equal(edit_distance("abc", "abc", 0), 0);
	assert_int_equal(edit_distance("abcdef", "zzzzzz", 2), 3);
}

/* Columns on a terminal: characters, not bytes. */
static void test_utf8_columns(void **state)
{
	(void)state;
	assert_int_equal(utf8_columns("\xc3\x8ele-de-France"), 13); /* Île-de-France */
	assert_int_equal(utf8_columns("Savoy"), 5);
	assert_int_equal(utf8_columns(""), 0);
	assert_int_equal(utf8_columns(NULL), 0);
}

static void test_str_parse_bool(void **state)
{
	(void)state;
	bool b = false;
	assert_true(str_parse_bool("Yes", &b) && b);
	assert_true(str_parse_bool("on", &b) && b);
	assert_true(str_parse_bool("OFF", &b) && !b);
	assert_true(str_parse_bool("0", &b) && !b);
	b = true;
	assert_false(str_parse_bool("maybe", &b));
	assert_false(str_parse_bool("", &b));
	assert_true(b); /* left alone */
}

static void test_half_ap(void **state)
{
	(void)state;
	int h;
	char buf[16];
	assert_true(half_ap_parse("3.5", &h));
	assert_int_equal(h, 7);
	assert_true(half_ap_parse("480", &h));
	assert_int_equal(h, 960);
	assert_true(half_ap_parse("0.5", &h));
	assert_int_equal(h, 1);
	assert_false(half_ap_parse("3.25", &h));
	assert_false(half_ap_parse("-2", &h));
	assert_false(half_ap_parse("", &h));
	assert_false(half_ap_parse("12x", &h));
	assert_string_equal(half_ap_format(7, buf), "3.5");
	assert_string_equal(half_ap_format(960, buf), "480");
	assert_string_equal(half_ap_format(-7, buf), "-3.5");
}

static void test_strbuf_and_diag(void **state)
{
	(void)state;
	struct strbuf sb = {0};
	strbuf_printf(&sb, "%s:%d", "x", 4);
	strbuf_putc(&sb, '!');
	char *s = strbuf_take(&sb);
	assert_string_equal(s, "x:4!");
	free(s);
	struct diag_list dl = {0};
	diag_add(&dl, DIAG_ERROR, "c.campaign", 12, "unknown province \"%s\"", "X");
	diag_add(&dl, DIAG_WARNING, "c.campaign", 13, "odd");
	assert_int_equal(dl.errors, 1);
	assert_non_null(diag_find(&dl, "unknown province"));
	assert_int_equal(diag_find(&dl, "odd")->line, 13);
	diag_free(&dl);
}

static void test_model_queries(void **state)
{
	(void)state;
	struct campaign *c = campaign_new();
	for (int i = 0; i < 4; i++) {
		struct province *p = campaign_add_province(c);
		p->name = xasprintf("P%d", i);
	}
	struct route *r = campaign_add_route(c);
	r->a = 0, r->b = 1;
	r = campaign_add_route(c);
	r->a = 1, r->b = 2, r->sea = true;
	assert_false(campaign_connected(c));
	assert_int_equal(campaign_distance(c, 0, 2), 2);
	assert_int_equal(campaign_distance(c, 0, 3), -1);
	r = campaign_add_route(c);
	r->a = 3, r->b = 2;
	assert_true(campaign_connected(c));
	assert_int_equal(campaign_route_between(c, 2, 1), 1);
	int nb[4];
	assert_int_equal(campaign_neighbours(c, 2, nb, 4), 2);

	struct player *p = campaign_add_player(c);
	p->key = xstrdup("burgundy");
	p->nation = xstrdup("Burgundy");
	struct element_type *t = army_list_add(&p->list);
	t->label = xstrdup("Kn(S) general");
	strcpy(t->code, "Kn");
	t->cost_half_ap = HALF_AP(35);
	t->general = true;
	t = army_list_add(&p->list);
	t->label = xstrdup("Ax(O)");
	strcpy(t->code, "Ax");
	t->cost_half_ap = 7;
	player_alloc_troops(p);
	p->field.count[0] = 2;
	p->field.count[1] = 3;
	assert_int_equal(player_field_half_ap(p), 2 * 70 + 21);
	assert_int_equal(troops_generals(&p->list, &p->field), 2);
	assert_int_equal(troops_mounted_half_ap(&p->list, &p->field), 140);
	assert_int_equal(campaign_find_player(c, "BURGUNDY"), 0);
	assert_int_equal(army_list_find(&p->list, "ax(o)"), 1);
	assert_int_equal(dbm_type_class("WWg"), TROOP_FOOT);
	assert_int_equal(dbm_type_class("HCh"), TROOP_UNKNOWN);
	assert_string_equal(dbm_type_canonical("lh"), "LH");
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_fold),
		cmocka_unit_test(test_name_lookup),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_utf8_columns),
		cmocka_unit_test(test_str_parse_bool),
		cmocka_unit_test(test_half_ap),
		cmocka_unit_test(test_strbuf_and_diag),
		cmocka_unit_test(test_model_queries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
