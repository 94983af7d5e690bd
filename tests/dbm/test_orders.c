/* Unit tests for the order language: parsing, validation, merge of
 * resubmitted orders, canonical text and the acknowledgement data. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/rules_fixture.h"
#include "lib/files.h"
#include "model/campaign_file.h"
#include "model/model.h"
#include "dbm/orders.h"
#include "dbm/rules.h"
#include "base/util.h"

enum { FLANDERS, ARTOIS, ILE_DE_FRANCE, CHAMPAGNE, NORMANDY, KENT, CALAIS, GENEVE };
enum { BURGUNDY, FRANCE, ENGLAND };
/* Burgundy's army list */
enum { KN_S_GEN, CV_GEN, KN_O, BW_O, AX_O, PS_O };

static void set_troops(struct player *p, const int *field, const int *reserve)
{
	player_alloc_troops(p);
	for (size_t i = 0; i < p->list.count; i++) {
		p->field.count[i] = field[i];
		p->reserve.count[i] = reserve[i];
	}
}

static struct player *add_player(struct campaign *c, const char *key, const char *nation,
				 int location)
{
	struct player *p = campaign_add_player(c);
	p->key = xstrdup(key);
	p->nation = xstrdup(nation);
	p->name = xstrdup("someone");
	p->email = xstrdup("someone@example.org");
	p->location = location;
	return p;
}

/* The map:
 *   Flanders - Artois - Calais - Normandy - Ile de France - Champagne - Genève
 *   Artois - Ile de France; Flanders ~ Kent ~ Normandy, Kent ~ Calais (~ sea)
 * Burgundy owns Flanders and Artois (army in Flanders), France owns Ile de
 * France, Champagne and Normandy (army in Champagne), England owns Kent
 * (army there); Calais is neutral, Genève an inviolate neutral. */
static struct campaign *build_campaign(void)
{
	struct campaign *c = campaign_new();
	c->name = xstrdup("Test 1450");
	c->year = 1450;
	c->phase = PHASE_CAMPAIGN;
	fx_province(c, "Flanders", BURGUNDY, true);
	fx_province(c, "Artois", BURGUNDY, true);
	fx_province(c, "Ile de France", FRANCE, true);
	fx_province(c, "Champagne", FRANCE, true);
	fx_province(c, "Normandy", FRANCE, true);
	fx_province(c, "Kent", ENGLAND, true);
	fx_province(c, "Calais", NO_INDEX, true);
	fx_province(c, "Genève", NO_INDEX, true);
	c->provinces[GENEVE].inviolate = true;
	fx_route(c, FLANDERS, ARTOIS, false);
	fx_route(c, ARTOIS, CALAIS, false);
	fx_route(c, ARTOIS, ILE_DE_FRANCE, false);
	fx_route(c, CALAIS, NORMANDY, false);
	fx_route(c, ILE_DE_FRANCE, NORMANDY, false);
	fx_route(c, ILE_DE_FRANCE, CHAMPAGNE, false);
	fx_route(c, CHAMPAGNE, GENEVE, false);
	fx_route(c, FLANDERS, KENT, true);
	fx_route(c, KENT, NORMANDY, true);
	fx_route(c, KENT, CALAIS, true);

	struct player *b = add_player(c, "burgundy", "Duchy of Burgundy", FLANDERS);
	fx_type(b, "Kn(S) general", "Kn", HALF_AP(35), true, 1, 1);
	fx_type(b, "Cv(O) general", "Cv", HALF_AP(28), true, 0, 3);
	fx_type(b, "Kn(O)", "Kn", HALF_AP(12), false, 2, 14);
	fx_type(b, "Bw(O)", "Bw", HALF_AP(5), false, 4, 30);
	fx_type(b, "Ax(O)", "Ax", 7, false, 0, 10);
	fx_type(b, "Ps(O)", "Ps", HALF_AP(2), false, 2, 9);
	set_troops(b, (const int[]){1, 2, 12, 24, 10, 8}, (const int[]){0, 1, 2, 4, 0, 2});

	struct player *f = add_player(c, "france", "France", CHAMPAGNE);
	fx_type(f, "Gendarmes general", "Kn", HALF_AP(32), true, 1, 2);
	fx_type(f, "Gendarmes", "Kn", HALF_AP(12), false, 4, 20);
	fx_type(f, "Francs-archers", "Bw", HALF_AP(4), false, 4, 40);
	set_troops(f, (const int[]){2, 15, 40}, (const int[]){0, 2, 0});

	struct player *e = add_player(c, "england", "Kingdom of England", KENT);
	fx_type(e, "Men-at-arms general", "Kn", HALF_AP(30), true, 1, 3);
	fx_type(e, "Longbowmen", "Bw", HALF_AP(7), false, 10, 50);
	set_troops(e, (const int[]){3, 50}, (const int[]){0, 0});
	return c;
}

static int setup(void **state)
{
	*state = build_campaign();
	return 0;
}

static int teardown(void **state)
{
	campaign_free(*state);
	return 0;
}

/* Parses and validates as burgundy (the PLAYER line names him). */
static size_t parse_as(struct campaign *c, const char *text, struct order_set *set)
{
	orders_parse(text, c, -1, set);
	return orders_validate(set, c, set->player);
}

static const struct order *only(const struct order_set *set, enum order_kind kind)
{
	const struct order *found = NULL;
	for (size_t i = 0; i < set->count; i++)
		if (set->orders[i].kind == kind) {
			assert_null(found);
			found = &set->orders[i];
		}
	assert_non_null(found);
	return found;
}

static void assert_error_contains(const struct order *o, const char *needle)
{
	assert_int_equal(o->status, ORDER_ERROR);
	assert_non_null(o->error);
	if (!strstr(o->error, needle))
		fail_msg("error \"%s\" lacks \"%s\"", o->error, needle);
}

static bool notes_contain(const struct order *o, struct campaign *c, int player,
			  const char *needle)
{
	json_t *notes = json_array();
	orders_cost_notes(o, c, player, notes);
	bool found = false;
	size_t i;
	json_t *v;
	json_array_foreach(notes, i, v)
		if (strstr(json_string_value(v), needle))
			found = true;
	json_decref(notes);
	return found;
}

static void test_every_kind_parses(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	const char *text =
		"Hi Bob,\n"
		"here are my orders.\n"
		"PLAYER burgundy s3cretpass\n"
		"# a comment\n"
		"\n"
		"INVADE Calais VIA Artois\n"
		"IF INVADED Artois RETREAT TO Flanders\n"
		"IF INVADED ANY BATTLE\n"
		"IN STORM HALT\n"
		"ALLOW PASSAGE france\n"
		"DENY PASSAGE england\n"
		"ALLOW SUPPLY Kingdom of England\n"
		"DENY SUPPLY\n"
		"ANSWER ALLIES YES\n"
		"CONTINGENT FOR france WITH 1 Cv(O) general, 4 Bw(O)\n"
		"LOSSES FIRST Ps(O), Ax(O)\n"
		"RETREAT PREFER Artois, Flanders\n"
		"RECALL CONTINGENTS\n"
		"RECRUIT 2 Bw(O)\n"
		"DISMISS 1 Ax(O)\n"
		"RETRIEVE GENERAL Cv(O) general\n"
		"TRIBUTARY OF france\n"
		"ACCEPT TRIBUTARY england\n"
		"VOTE CONTINUE\n"
		"LEAVE CAMPAIGN REPLACEMENT heir@example.org\n"
		"CONFIRM\n"
		"PASSWORD n3wpassword!\n"
		"STATUS\nMAP\nHELP\n"
		"BATTLE AT Champagne\n"
		"WINNER france\n"
		"DEMORALISED burgundy Kn(S) general, Cv(O) general\n"
		"DESTROYED burgundy 3 Kn(O)\n"
		"FLED france 2 Gendarmes\n"
		"WITHDRAWN england 4 Longbowmen\n"
		"RETURNED france 1 Gendarmes\n"
		"RETURNED burgundy 0 Kn(O)\n"
		"SHARE england 17\n"
		"GENERAL KILLED burgundy Cv(O) general\n"
		"END\n"
		"Cheers, Philip\n";
	size_t errors = orders_parse(text, c, -1, &set);
	for (size_t i = 0; i < set.count; i++)
		if (set.orders[i].status == ORDER_ERROR)
			fail_msg("line %d: %s", set.orders[i].line, set.orders[i].error);
	assert_int_equal(errors, 0);
	assert_int_equal(set.player, BURGUNDY);
	assert_string_equal(set.password, "s3cretpass");
	/* the greeting lines are kept as ignored; comment and blank lines vanish;
	 * nothing after END */
	assert_int_equal(set.orders[0].status, ORDER_IGNORED);
	assert_int_equal(set.orders[1].status, ORDER_IGNORED);
	assert_int_equal(set.orders[2].kind, ORDER_PLAYER);
	assert_int_equal(set.orders[3].line, 6);
	assert_int_equal(set.orders[set.count - 1].kind, ORDER_END);

	const struct order *o = only(&set, ORDER_INVADE);
	assert_int_equal(o->province, CALAIS);
	assert_int_equal(o->stages, 2);
	assert_int_equal(o->route_len, 3);
	assert_int_equal(o->route[1], ARTOIS);
	o = &set.orders[4];
	assert_int_equal(o->kind, ORDER_IF_INVADED);
	assert_int_equal(o->province, ARTOIS);
	assert_int_equal(o->choice, CHOICE_RETREAT);
	assert_int_equal(o->retreat_to, FLANDERS);
	assert_int_equal(set.orders[5].province, ORDERS_ANY);
	assert_int_equal(set.orders[5].choice, CHOICE_BATTLE);
	assert_int_equal(only(&set, ORDER_IN_STORM)->choice, CHOICE_HALT);
	assert_int_equal(only(&set, ORDER_ALLOW_PASSAGE)->target, FRANCE);
	assert_int_equal(only(&set, ORDER_DENY_PASSAGE)->target, ENGLAND);
	assert_int_equal(only(&set, ORDER_ALLOW_SUPPLY)->target, ENGLAND);
	assert_int_equal(only(&set, ORDER_DENY_SUPPLY)->target, ORDERS_ANY);
	assert_int_equal(only(&set, ORDER_ANSWER_ALLIES)->choice, CHOICE_YES);
	o = only(&set, ORDER_CONTINGENT_FOR);
	assert_int_equal(o->target, FRANCE);
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[0].type, CV_GEN);
	assert_int_equal(o->items[1].count, 4);
	assert_int_equal(o->items[1].type, BW_O);
	o = only(&set, ORDER_LOSSES_FIRST);
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[0].type, PS_O);
	assert_int_equal(o->items[1].type, AX_O);
	o = only(&set, ORDER_RETREAT_PREFER);
	assert_int_equal(o->via_count, 2);
	assert_int_equal(o->via[1], FLANDERS);
	only(&set, ORDER_RECALL_CONTINGENTS);
	o = only(&set, ORDER_RECRUIT);
	assert_int_equal(o->count, 2);
	assert_int_equal(o->type, BW_O);
	assert_int_equal(only(&set, ORDER_DISMISS)->type, AX_O);
	assert_int_equal(only(&set, ORDER_RETRIEVE_GENERAL)->type, CV_GEN);
	assert_int_equal(only(&set, ORDER_TRIBUTARY_OF)->target, FRANCE);
	assert_int_equal(only(&set, ORDER_ACCEPT_TRIBUTARY)->target, ENGLAND);
	assert_int_equal(only(&set, ORDER_VOTE)->choice, CHOICE_CONTINUE);
	o = only(&set, ORDER_LEAVE);
	assert_string_equal(o->arg, "heir@example.org");
	assert_true(o->confirmed);
	o = only(&set, ORDER_PASSWORD);
	assert_string_equal(o->secret, "n3wpassword!");
	assert_string_equal(o->text, "PASSWORD ********");
	assert_true(set.wants_status && set.wants_map && set.wants_help);
	const struct order *battle = only(&set, ORDER_BATTLE_AT);
	assert_int_equal(battle->province, CHAMPAGNE);
	o = only(&set, ORDER_BATTLE_WINNER);
	assert_int_equal(o->target, FRANCE);
	assert_int_equal(o->province, CHAMPAGNE);
	assert_int_equal(o->battle, (int)(battle - set.orders));
	o = only(&set, ORDER_BATTLE_DEMORALISED);
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[1].type, CV_GEN);
	o = only(&set, ORDER_BATTLE_DESTROYED);
	assert_int_equal(o->target, BURGUNDY);
	assert_int_equal(o->item_count, 1);
	assert_int_equal(o->items[0].count, 3);
	assert_int_equal(o->items[0].type, KN_O);
	o = only(&set, ORDER_BATTLE_FLED);
	assert_int_equal(o->target, FRANCE);
	assert_int_equal(o->items[0].type, 1); /* France's Gendarmes */
	o = only(&set, ORDER_BATTLE_WITHDRAWN);
	assert_int_equal(o->target, ENGLAND);
	assert_int_equal(o->items[0].count, 4);
	assert_int_equal(only(&set, ORDER_BATTLE_GENERAL_KILLED)->items[0].type, CV_GEN);
	/* the players' choices: routers rounded per type (0 allowed), a share */
	size_t returned = 0;
	for (size_t i = 0; i < set.count; i++) {
		o = &set.orders[i];
		if (o->kind != ORDER_BATTLE_RETURNED)
			continue;
		assert_int_equal(o->province, CHAMPAGNE);
		if (returned++ == 0) {
			assert_int_equal(o->target, FRANCE);
			assert_int_equal(o->count, 1);
			assert_int_equal(o->type, 1);
		} else {
			assert_int_equal(o->target, BURGUNDY);
			assert_int_equal(o->count, 0);
			assert_int_equal(o->type, KN_O);
		}
		char *line = orders_format_one(o, c, -1);
		assert_string_equal(line, returned == 1 ? "RETURNED france 1 Gendarmes"
							: "RETURNED burgundy 0 Kn(O)");
		free(line);
	}
	assert_int_equal(returned, 2);
	o = only(&set, ORDER_BATTLE_SHARE);
	assert_int_equal(o->target, ENGLAND);
	assert_int_equal(o->count, 17);
	char *share = orders_format_one(o, c, -1);
	assert_string_equal(share, "SHARE england 17");
	free(share);
	orders_set_free(&set);

	/* a share is a number of points, at least 1; RETURNED needs the element */
	assert_int_equal(orders_parse("BATTLE AT Champagne\nSHARE england 0\n"
				      "RETURNED france 2\n", c, -1, &set), 2);
	orders_set_free(&set);
}

/* SALLY (rules 2.2): the besieged army's movement order in its turn;
 * refused when the army is not besieged in one of its own cities. */
static void test_sally_order(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	int home = c->players[BURGUNDY].location;
	orders_parse("SALLY\n", c, BURGUNDY, &set);
	assert_int_equal(orders_validate(&set, c, BURGUNDY), 1);
	assert_int_equal(only(&set, ORDER_SALLY)->status, ORDER_ERROR);
	assert_non_null(strstr(only(&set, ORDER_SALLY)->error, "not besieged"));
	orders_set_free(&set);
	grow_array((void **)&c->sieges, &c->siege_cap, 1, sizeof *c->sieges);
	c->sieges[0] = (struct siege){.province = home, .besieger = FRANCE};
	c->siege_count = 1;
	orders_parse("SALLY\n", c, BURGUNDY, &set);
	assert_int_equal(orders_validate(&set, c, BURGUNDY), 0);
	char *line = orders_format_one(only(&set, ORDER_SALLY), c, BURGUNDY);
	assert_string_equal(line, "SALLY");
	free(line);
	orders_set_free(&set);
	/* one movement option: SALLY and NO MOVE do not go together */
	orders_parse("SALLY\nNO MOVE\n", c, BURGUNDY, &set);
	assert_int_equal(orders_validate(&set, c, BURGUNDY), 1);
	orders_set_free(&set);
	c->siege_count = 0;
}

/* EXCHANGE (rules 3.1, changing your army): reserve troops for others of
 * the list; formatted back as written. */
static void test_exchange_order(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	orders_parse("EXCHANGE 2 Ax(O) FOR 1 Ps(O)\nEXCHANGE 2 Ax(O)\n", c, BURGUNDY, &set);
	const struct order *o = &set.orders[0];
	assert_int_equal(o->kind, ORDER_EXCHANGE);
	assert_int_equal(o->status, ORDER_OK);
	assert_int_equal(o->count, 2);
	assert_int_equal(o->type, AX_O);
	assert_int_equal(o->item_count, 1);
	assert_int_equal(o->items[0].count, 1);
	assert_int_equal(o->items[0].type, PS_O);
	char *line = orders_format_one(o, c, BURGUNDY);
	assert_string_equal(line, "EXCHANGE 2 Ax(O) FOR 1 Ps(O)");
	free(line);
	assert_int_equal(set.orders[1].status, ORDER_ERROR);
	orders_set_free(&set);
}

static void test_organiser_orders(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	const char *text = "ORGANISER 0rganiserpw\n"
			   "EXTEND 48\nPAUSE\nRESUME\nPROCESS Campaign\nPREVIEW\n"
			   "COMMENT The Duke's knights, splendid as ever, got lost.\n";
	assert_int_equal(parse_as(c, text, &set), 0);
	assert_true(set.organiser);
	assert_int_equal(set.player, -1);
	assert_string_equal(set.password, "0rganiserpw");
	assert_string_equal(set.orders[0].text, "ORGANISER ********");
	assert_int_equal(only(&set, ORDER_ORG_EXTEND)->count, 48);
	only(&set, ORDER_ORG_PAUSE);
	only(&set, ORDER_ORG_RESUME);
	only(&set, ORDER_ORG_PREVIEW);
	assert_string_equal(only(&set, ORDER_ORG_PROCESS)->arg, "campaign");
	assert_string_equal(only(&set, ORDER_ORG_COMMENT)->arg,
			    "The Duke's knights, splendid as ever, got lost.");
	orders_set_free(&set);

	/* the same orders in a player's mail are refused */
	assert_int_equal(parse_as(c, "PLAYER france pw123456\nPAUSE\nEXTEND 1000\n", &set), 2);
	assert_error_contains(only(&set, ORDER_ORG_PAUSE), "ORGANISER");
	assert_error_contains(only(&set, ORDER_ORG_EXTEND), "between 1 and 720");
	orders_set_free(&set);
}

/* The requests STATUS, MAP and HELP: any case, alone in a mail or with
 * orders, each noted once; words after one are an error that changes
 * nothing else. */
static void test_requests(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nstatus\nMap\nhelp\n", &set), 0);
	assert_true(set.wants_status && set.wants_map && set.wants_help);
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nNO MOVE\nMAP\n", &set), 0);
	assert_true(set.wants_map);
	assert_false(set.wants_status || set.wants_help);
	only(&set, ORDER_NO_MOVE);
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nNO MOVE\nSTATUS please\n", &set), 1);
	assert_false(set.wants_status);
	assert_error_contains(only(&set, ORDER_STATUS), "STATUS");
	assert_int_equal(only(&set, ORDER_NO_MOVE)->status, ORDER_OK);
	orders_set_free(&set);
}

/* STAND-IN: the address (with a name before it or not), the date forms,
 * STAND-IN END; addresses a header could be built from and dates that do
 * not exist refused, saying what is accepted. */
static void test_stand_in(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	static const struct {
		const char *line, *canonical;
	} good[] = {
		{"STAND-IN jean@example.com UNTIL 2027-01-18",
		 "STAND-IN jean@example.com UNTIL 2027-01-18"},
		{"stand in <jean@example.com> until 18 January 2027",
		 "STAND-IN jean@example.com UNTIL 2027-01-18"},
		{"STAND-IN Jean Dupont <jean@example.com> UNTIL 18th Jan 2027",
		 "STAND-IN Jean Dupont <jean@example.com> UNTIL 2027-01-18"},
		{"STAND-IN \"Jean Dupont\" <jean@example.com> UNTIL January 18, 2027",
		 "STAND-IN Jean Dupont <jean@example.com> UNTIL 2027-01-18"},
		{"STAND-IN jean@example.com UNTIL 29 February 2028",
		 "STAND-IN jean@example.com UNTIL 2028-02-29"},
		{"STAND-IN END", "STAND-IN END"},
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char *text = xasprintf("PLAYER burgundy pw123456\n%s\n", good[i].line);
		assert_int_equal(parse_as(c, text, &set), 0);
		const struct order *o = only(&set, ORDER_STAND_IN);
		assert_int_equal(o->status, ORDER_OK);
		char *canon = orders_format_one(o, c, 0);
		assert_string_equal(canon, good[i].canonical);
		free(canon);
		orders_set_free(&set);
		free(text);
	}
	static const struct {
		const char *line, *error;
	} bad[] = {
		{"STAND-IN jean@example.com>Bcc:x@example.org UNTIL 2027-01-18",
		 "is not a plain mail address"},
		{"STAND-IN jean@example.com,x@example.org UNTIL 2027-01-18",
		 "the stand-in's name before the address"},
		{"STAND-IN jean UNTIL 2027-01-18", "is not a plain mail address"},
		{"STAND-IN jean@localhost UNTIL 2027-01-18", "is not a plain mail address"},
		{"STAND-IN jean@example.com", "write STAND-IN <mail address> UNTIL <date>"},
		{"STAND-IN jean@example.com UNTIL 2027-02-30", "there is no day 2027-02-30"},
		{"STAND-IN jean@example.com UNTIL 29 February 2027", "there is no day 2027-02-29"},
		{"STAND-IN jean@example.com UNTIL 18/01/2027", "a date with slashes"},
		{"STAND-IN jean@example.com UNTIL next week", "is not a date: write it as"},
		{"STAND-IN Jean (the cousin) <jean@example.com> UNTIL 2027-01-18",
		 "the stand-in's name before the address"},
		{"STAND-IN END now", "unexpected"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *text = xasprintf("PLAYER burgundy pw123456\n%s\n", bad[i].line);
		assert_int_equal(parse_as(c, text, &set), 1);
		assert_error_contains(only(&set, ORDER_STAND_IN), bad[i].error);
		orders_set_free(&set);
		free(text);
	}
	/* it needs the PLAYER line */
	orders_parse("STAND-IN jean@example.com UNTIL 2027-01-18\n", c, -1, &set);
	assert_error_contains(only(&set, ORDER_STAND_IN), "PLAYER");
	orders_set_free(&set);
}

static void test_forgiving_names(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	/* case, accents, hyphens, unique prefixes, nation instead of key */
	assert_int_equal(parse_as(c, "player Duchy of Burgundy pw123456\n"
				     "invade calais via ARTOIS\n"
				     "if invaded artois retreat to flanders\n"
				     "allow passage FRANCE\n"
				     "deny passage kingdom of eng\n"
				     "losses first ps(o), AX(O)\n"
				     "Retreat Prefer Fland\n"
				     "if invaded ANY siege\n",
				     &set), 0);
	assert_int_equal(set.player, BURGUNDY);
	assert_int_equal(only(&set, ORDER_INVADE)->province, CALAIS);
	assert_int_equal(only(&set, ORDER_DENY_PASSAGE)->target, ENGLAND);
	assert_int_equal(only(&set, ORDER_RETREAT_PREFER)->via[0], FLANDERS);
	orders_set_free(&set);

	/* an accented name typed with and without accents; a multi-word name
	 * typed with hyphens, in capitals, as a prefix */
	assert_int_equal(parse_as(c, "PLAYER france pw123456\n"
				     "IF INVADED île-de-france BATTLE\n"
				     "IF INVADED ILE DE FR SIEGE\n"
				     "IF INVADED Champ RETREAT TO Normandy\n",
				     &set), 0);
	assert_int_equal(set.orders[1].province, ILE_DE_FRANCE);
	assert_int_equal(set.orders[2].province, ILE_DE_FRANCE);
	assert_int_equal(set.orders[3].province, CHAMPAGNE);
	assert_int_equal(set.orders[3].retreat_to, NORMANDY);
	orders_set_free(&set);

	orders_parse("PLAYER burgundy pw123456\nINVADE geneve\nINVADE Genève\n", c, -1, &set);
	assert_int_equal(set.orders[1].province, GENEVE);
	assert_int_equal(set.orders[2].province, GENEVE);
	orders_set_free(&set);

	/* as a phone sends them: typographic quotes around a name (U+201C,
	 * U+201D, and U+201E), decomposed accents (e + U+0300) */
	orders_parse("PLAYER burgundy pw123456\n"
		     "INVADE \xe2\x80\x9c" "Calais\xe2\x80\x9d\n"
		     "RETREAT PREFER \xe2\x80\x9e" "Artois\xe2\x80\x9c, Flanders\n"
		     "IF INVADED Artois RETREAT TO \xe2\x80\x9c" "Flanders\"\n"
		     "INVADE Gene\xcc\x80ve\n", c, -1, &set);
	assert_int_equal(set.errors, 0);
	assert_int_equal(set.orders[1].province, CALAIS);
	assert_int_equal(set.orders[2].via_count, 2);
	assert_int_equal(set.orders[2].via[0], ARTOIS);
	assert_int_equal(set.orders[2].via[1], FLANDERS);
	assert_int_equal(set.orders[3].retreat_to, FLANDERS);
	assert_int_equal(set.orders[4].province, GENEVE);
	orders_set_free(&set);
}

/* A client that wraps long lines cuts an order in two: the two lines are
 * read as one when the first is in error alone or ends with a comma, and
 * the second starts with no keyword. */
static void test_wrapped_lines(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	orders_parse("PLAYER burgundy pw123456\n"
		     "SEND CONTINGENT TO england WITH 1 Cv(O) general,\n"
		     "4 Bw(O)\n"
		     "RETREAT PREFER Artois,\n"
		     "Flanders\n", c, -1, &set);
	assert_int_equal(set.errors, 0);
	assert_int_equal(set.count, 3);
	const struct order *o = &set.orders[1];
	assert_int_equal(o->kind, ORDER_SEND_CONTINGENT);
	assert_int_equal(o->line, 2);
	assert_string_equal(o->text, "SEND CONTINGENT TO england WITH 1 Cv(O) general, 4 Bw(O)");
	assert_int_equal(o->item_count, 2);
	assert_int_equal(set.orders[2].line, 4);
	assert_int_equal(set.orders[2].via_count, 2);
	orders_set_free(&set);

	/* a complete line is not joined; nor is a line that starts an order,
	 * nor one whose join is still wrong: each stays an error of its own */
	orders_parse("PLAYER burgundy pw123456\n"
		     "INVADE Calais\n"
		     "Artois\n"
		     "RETREAT PREFER\n"
		     "STATUS\n"
		     "INVADE\n"
		     "Nowhere at all\n"
		     "NO MOVE\n", c, -1, &set);
	assert_int_equal(set.count, 8);
	assert_int_equal(set.orders[1].status, ORDER_OK);
	assert_int_equal(set.orders[2].status, ORDER_ERROR);
	assert_int_equal(set.orders[3].status, ORDER_ERROR);
	assert_int_equal(set.orders[4].kind, ORDER_STATUS);
	assert_int_equal(set.orders[5].status, ORDER_ERROR);
	assert_int_equal(set.orders[6].status, ORDER_ERROR);
	assert_int_equal(set.orders[6].line, 7);
	orders_set_free(&set);

	/* a PLAYER line the client wrapped before the password is joined with
	 * the one word on the next line, then masked like any PLAYER line */
	orders_parse("PLAYER burgundy\npw123456\nSTATUS\n", c, -1, &set);
	assert_string_equal(set.password, "pw123456");
	assert_int_equal(set.player, BURGUNDY);
	assert_int_equal(set.orders[0].status, ORDER_OK);
	assert_string_equal(set.orders[0].text, "PLAYER burgundy ********");
	assert_int_equal(set.orders[1].kind, ORDER_STATUS);
	assert_int_equal(set.orders[1].line, 3);
	orders_set_free(&set);
	orders_parse("PLAYER Duchy of Burgundy\npw123456\n", c, -1, &set);
	assert_string_equal(set.password, "pw123456");
	assert_int_equal(set.player, BURGUNDY);
	orders_set_free(&set);
	/* still wrong once joined: refused, and the word is masked all the same */
	orders_parse("PLAYER\npw123456\n", c, -1, &set);
	assert_null(set.password);
	assert_int_equal(set.count, 1);
	assert_int_equal(set.orders[0].status, ORDER_ERROR);
	assert_string_equal(set.orders[0].text, "PLAYER ********");
	assert_null(strstr(set.orders[0].error, "pw123456"));
	orders_set_free(&set);
	/* the last word of a PLAYER line stays its password otherwise */
	orders_parse("PLAYER burgundy pw123456\nSTATUS\n", c, -1, &set);
	assert_string_equal(set.password, "pw123456");
	assert_int_equal(set.orders[1].kind, ORDER_STATUS);
	orders_set_free(&set);
}

static void test_did_you_mean(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(orders_parse("PLAYER burgundy pw123456\n"
				      "INVADE Flandres\n"
				      "ALLOW PASSAGE frnace\n"
				      "RECRUIT 2 Bw(0)\n"
				      "INVAED Calais\n"
				      "INVADE Atlantis\n",
				      c, -1, &set), 5);
	const struct order *o = &set.orders[1];
	assert_string_equal(o->error, "unknown province \"Flandres\" (did you mean \"Flanders\"?)");
	assert_string_equal(o->guess, "INVADE Flanders");
	o = &set.orders[2];
	assert_string_equal(o->error, "unknown player \"frnace\" (did you mean \"france\"?)");
	assert_string_equal(o->guess, "ALLOW PASSAGE france");
	o = &set.orders[3];
	assert_string_equal(o->guess, "RECRUIT 2 Bw(O)");
	o = &set.orders[4];
	assert_int_equal(o->kind, ORDER_NONE);
	assert_error_contains(o, "did you mean INVADE?");
	assert_string_equal(o->guess, "INVADE Calais");
	assert_string_equal(set.orders[5].error, "unknown province \"Atlantis\"");
	assert_null(set.orders[5].guess);
	orders_set_free(&set);

	/* an ambiguous prefix ("C": Champagne, Calais) is not guessed */
	orders_parse("PLAYER burgundy pw123456\nINVADE Ca\nINVADE C\n", c, -1, &set);
	assert_int_equal(set.orders[1].province, CALAIS); /* "ca": Calais only */
	assert_int_equal(set.orders[2].status, ORDER_ERROR);
	orders_set_free(&set);
}

static void test_lines_before_and_after(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	/* greetings before the first order are ignored; a near-miss keyword is
	 * not; between orders, anything unknown is an error; a closing greeting
	 * after the last order is ignored again */
	orders_parse("Dear organiser,\nHello there\nStatsu\nPLAYER burgundy pw123456\n"
		     "Thanks!\nNO MOVE\nRegards,\nPieter\n", c, -1, &set);
	assert_int_equal(set.orders[0].status, ORDER_IGNORED);
	assert_int_equal(set.orders[1].status, ORDER_IGNORED);
	assert_error_contains(&set.orders[2], "did you mean STATUS?");
	assert_error_contains(&set.orders[4], "\"Thanks!\" is not an order");
	assert_int_equal(set.orders[5].status, ORDER_OK);
	assert_int_equal(set.orders[6].status, ORDER_IGNORED);
	assert_null(set.orders[6].error);
	assert_int_equal(set.orders[7].status, ORDER_IGNORED);
	assert_int_equal(set.errors, 2);
	orders_set_free(&set);
	/* but a misspelt order at the end is still an error */
	orders_parse("PLAYER burgundy pw123456\nNO MOVE\nSTAUTS\n", c, -1, &set);
	assert_int_equal(set.orders[2].status, ORDER_ERROR);
	orders_set_free(&set);

	/* a line that is too long is refused, not cut, and parsing goes on */
	char *big = xmalloc(3000);
	memset(big, 'x', 2999);
	big[2999] = '\0';
	char *text = xasprintf("PLAYER burgundy pw123456\n%s\nNO MOVE\n", big);
	assert_int_equal(parse_as(c, text, &set), 1);
	assert_error_contains(&set.orders[1], "line too long");
	assert_int_equal(set.orders[2].kind, ORDER_NO_MOVE);
	assert_int_equal(set.orders[2].status, ORDER_OK);
	orders_set_free(&set);
	free(text);
	free(big);
}

static void test_multi_word_provinces(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	/* VIA lists with and without commas, a quoted name, a name first in a
	 * RETREAT TO */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "INVADE Champagne VIA Artois Ile de France\n",
				     &set), 0);
	const struct order *o = only(&set, ORDER_INVADE);
	assert_int_equal(o->via_count, 2);
	assert_int_equal(o->via[0], ARTOIS);
	assert_int_equal(o->via[1], ILE_DE_FRANCE);
	assert_int_equal(o->stages, 3);
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "INVADE \"Ile de France\" VIA Artois\n", &set), 0);
	assert_int_equal(only(&set, ORDER_INVADE)->province, ILE_DE_FRANCE);
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER france pw123456\n"
				     "IF INVADED Normandy RETREAT TO Ile de France\n", &set), 0);
	assert_int_equal(set.orders[1].retreat_to, ILE_DE_FRANCE);
	orders_set_free(&set);

	/* nation names of several words before a number */
	assert_int_equal(parse_as(c, "PLAYER england pw123456\nBATTLE AT Kent\n"
				     "DESTROYED Duchy of Burgundy 2 Kn(O)\n", &set), 0);
	o = only(&set, ORDER_BATTLE_DESTROYED);
	assert_int_equal(o->target, BURGUNDY);
	assert_int_equal(o->items[0].count, 2);
	orders_set_free(&set);
}

/* Every result line that names elements takes a comma list, as other
 * orders do; the canonical form writes the list back and reads the same. A
 * loss line without the player says whose elements to name. */
static void test_battle_lines_take_lists(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nBATTLE AT Champagne\n"
				     "DESTROYED burgundy 2 Kn(O), 1 Bw(O)\n"
				     "FLED burgundy 3 Ax(O) 1 Ps(O)\n"
				     "WITHDRAWN burgundy 1 Ps(O),\n"
				     "GENERAL KILLED burgundy Kn(S) general, Cv(O) general\n",
			 &set), 0);
	const struct order *o = only(&set, ORDER_BATTLE_DESTROYED);
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[0].count, 2);
	assert_int_equal(o->items[0].type, KN_O);
	assert_int_equal(o->items[1].count, 1);
	assert_int_equal(o->items[1].type, BW_O);
	o = only(&set, ORDER_BATTLE_FLED); /* the comma may be left out */
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[1].type, PS_O);
	assert_int_equal(only(&set, ORDER_BATTLE_WITHDRAWN)->item_count, 1);
	o = only(&set, ORDER_BATTLE_GENERAL_KILLED);
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[0].type, KN_S_GEN);
	assert_int_equal(o->items[1].type, CV_GEN);
	char *line = orders_format_one(only(&set, ORDER_BATTLE_DESTROYED), c, -1);
	assert_string_equal(line, "DESTROYED burgundy 2 Kn(O), 1 Bw(O)");
	free(line);
	line = orders_format_one(only(&set, ORDER_BATTLE_GENERAL_KILLED), c, -1);
	assert_string_equal(line, "GENERAL KILLED burgundy Kn(S) general, Cv(O) general");
	free(line);
	orders_set_free(&set);

	/* errors name the element and the way to write it */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nBATTLE AT Champagne\n"
				     "DESTROYED 2 Kn(O)\n"
				     "FLED burgundy 2 Kn(O), Bw(O)\n"
				     "GENERAL KILLED burgundy Cv(O) general, Kn(O)\n",
			 &set), 3);
	assert_non_null(strstr(set.orders[2].error, "DESTROYED <player> <n> <element>"));
	assert_non_null(strstr(set.orders[3].error, "is not a number"));
	assert_non_null(strstr(set.orders[4].error, "\"Kn(O)\" is not a general"));
	orders_set_free(&set);
}

/* A misspelt word inside a multi-word name: the did-you-mean names the whole
 * name, in every order that takes a province, player or element; never
 * "unexpected ... after". */
static void test_misspelt_multi_word_names(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	orders_parse("PLAYER burgundy pw123456\n"
		     "INVADE Ile de Frnce\n"
		     "INVADE Champagne VIA Artois, Ile de Frnce\n"
		     "IF INVADED Flanders RETREAT TO Ile de Frnce\n"
		     "ALLOW PASSAGE Kingdom of Englnd\n"
		     "CONTINGENT FOR Duchy of Burgndy\n"
		     "RECRUIT 1 Kn(S) generl\n"
		     "RETREAT PREFER Artois Ile de Frnce\n",
		     c, -1, &set);
	const char *const expect[][2] = {
		{"unknown province \"Ile de Frnce\" (did you mean \"Ile de France\"?)",
		 "INVADE Ile de France"},
		{"unknown province \"Ile de Frnce\" (did you mean \"Ile de France\"?)",
		 "INVADE Champagne VIA Artois, Ile de France"},
		{"unknown province \"Ile de Frnce\" (did you mean \"Ile de France\"?)",
		 "IF INVADED Flanders RETREAT TO Ile de France"},
		{"unknown player \"Kingdom of Englnd\" (did you mean \"Kingdom of England\"?)",
		 "ALLOW PASSAGE Kingdom of England"},
		{"unknown player \"Duchy of Burgndy\" (did you mean \"Duchy of Burgundy\"?)",
		 "CONTINGENT FOR Duchy of Burgundy"},
		{"unknown element \"Kn(S) generl\" (did you mean \"Kn(S) general\"?)",
		 "RECRUIT 1 Kn(S) general"},
		{"unknown province \"Ile de Frnce\" (did you mean \"Ile de France\"?)",
		 "RETREAT PREFER Artois Ile de France"},
	};
	assert_int_equal(set.count, 8);
	for (size_t i = 0; i < 7; i++) {
		const struct order *o = &set.orders[i + 1];
		assert_int_equal(o->status, ORDER_ERROR);
		assert_string_equal(o->error, expect[i][0]);
		assert_string_equal(o->guess, expect[i][1]);
	}
	orders_set_free(&set);

	/* a shorter name that is a name of its own still reads when the next
	 * words are something else */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "RETREAT PREFER Artois Flanders\n", &set), 0);
	orders_set_free(&set);
}

/* Every Unicode dash and hyphen reads as '-' in names. */
static void test_unicode_dashes_in_names(void **state)
{
	struct campaign *c = *state;
	static const char *const dashes[] = {
		"\xe2\x80\x90", "\xe2\x80\x91", "\xe2\x80\x92", "\xe2\x80\x93",
		"\xe2\x80\x94", "\xe2\x80\x95", "\xe2\x88\x92", "\xc2\xad", "-",
	};
	for (size_t i = 0; i < sizeof dashes / sizeof dashes[0]; i++) {
		struct order_set set;
		char *text = xasprintf("PLAYER burgundy pw123456\nINVADE Champagne VIA Artois, "
				       "Ile%sde%sFrance\nALLOW PASSAGE Kingdom%sof England\n",
				       dashes[i], dashes[i], dashes[i]);
		assert_int_equal(parse_as(c, text, &set), 0);
		const struct order *o = only(&set, ORDER_INVADE);
		assert_int_equal(o->via_count, 2);
		assert_int_equal(o->via[1], ILE_DE_FRANCE);
		assert_int_equal(only(&set, ORDER_ALLOW_PASSAGE)->target, ENGLAND);
		orders_set_free(&set);
		free(text);
	}
}

static void test_forced_march_costs(void **state)
{
	struct campaign *c = *state;
	struct order_set set;

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Calais VIA Artois\n",
				  &set), 0);
	const struct order *o = only(&set, ORDER_INVADE);
	assert_int_equal(o->stages, 2);
	assert_int_equal(o->forced_march_half_ap, 0);
	assert_true(notes_contain(o, c, BURGUNDY, "2 stages: normal move, no cost"));
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "INVADE Champagne VIA Artois, Ile de France\n", &set), 0);
	o = only(&set, ORDER_INVADE);
	assert_int_equal(o->stages, 3);
	assert_int_equal(o->extra_stages, 1);
	assert_int_equal(o->forced_march_half_ap, HALF_AP(40));
	assert_int_equal(o->hostile_count, 1);
	assert_int_equal(o->hostile[0], ILE_DE_FRANCE);
	assert_true(notes_contain(o, c, BURGUNDY, "forced march: 1 extra stage, \xe2\x88\x92" "40 AP"));
	assert_true(notes_contain(o, c, BURGUNDY, "passes through Ile de France (France's): "
				  "needs permission or forced passage"));
	assert_true(notes_contain(o, c, BURGUNDY, "France's field army is in Champagne"));
	orders_set_free(&set);

	/* 4 stages, the last by sea, through England's army in... no: through
	 * France's provinces; Kent holds England's army */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "INVADE Kent VIA Artois, Ile de France, Normandy\n", &set), 0);
	o = only(&set, ORDER_INVADE);
	assert_int_equal(o->stages, 4);
	assert_int_equal(o->forced_march_half_ap, HALF_AP(80));
	assert_int_equal(o->sea_stages, 1);
	assert_int_equal(o->hostile_count, 2);
	assert_true(notes_contain(o, c, BURGUNDY, "forced march: 2 extra stages, \xe2\x88\x92" "80 AP"));
	assert_true(notes_contain(o, c, BURGUNDY, "sea stage: dice for storm"));
	orders_set_free(&set);

	/* 5 stages: refused */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "INVADE Champagne VIA Artois, Calais, Normandy, Ile de France\n",
				  &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "5 stages: the maximum move");
	orders_set_free(&set);

	/* two sea stages through England's army */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Normandy VIA Kent\n",
				  &set), 0);
	o = only(&set, ORDER_INVADE);
	assert_int_equal(o->sea_stages, 2);
	assert_true(notes_contain(o, c, BURGUNDY, "2 sea stages: each dices for a storm"));
	assert_true(notes_contain(o, c, BURGUNDY, "Kingdom of England's field army is there"));
	orders_set_free(&set);

	/* no VIA: the shortest route is chosen and said so */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Champagne\n", &set), 0);
	o = only(&set, ORDER_INVADE);
	assert_int_equal(o->stages, 3);
	assert_true(o->route_chosen);
	assert_true(notes_contain(o, c, BURGUNDY, "route chosen for you"));
	orders_set_free(&set);
}

static void test_route_must_follow_routes(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Champagne VIA Calais\n",
				  &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "no route from Flanders to Calais");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "INVADE Calais VIA Artois, Flanders, Artois\n", &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "twice");
	orders_set_free(&set);
}

static void test_destinations(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Artois\n", &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "your own province: use MOVE");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Geneve VIA Artois, "
				     "Ile de France, Champagne\n", &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "inviolate");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nMOVE Calais VIA Artois\n", &set), 1);
	assert_error_contains(only(&set, ORDER_MOVE), "not friendly");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nMOVE Flanders\n", &set), 1);
	assert_error_contains(only(&set, ORDER_MOVE), "already in Flanders");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nMOVE Artois\n", &set), 0);
	assert_true(notes_contain(only(&set, ORDER_MOVE), c, BURGUNDY, "1 stage: normal move"));
	orders_set_free(&set);

	/* overlord and tributary: no attack, friendly for MOVE */
	c->players[FRANCE].overlord = BURGUNDY;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Ile de France\n", &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "cannot attack your tributary");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nMOVE Ile de France\n", &set), 0);
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER france pw123456\nINVADE Artois VIA Ile de France\n",
				  &set), 1);
	assert_error_contains(only(&set, ORDER_INVADE), "cannot attack your overlord");
	orders_set_free(&set);
	c->players[FRANCE].overlord = NO_INDEX;

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "IF INVADED Calais BATTLE\n"
				     "IF INVADED Artois RETREAT TO Calais\n"
				     "RETREAT PREFER Artois, Kent\n", &set), 3);
	assert_error_contains(&set.orders[1], "not your province");
	assert_error_contains(&set.orders[2], "only retreat to a friendly province");
	assert_error_contains(&set.orders[3], "Kent is not friendly");
	orders_set_free(&set);
}

static void test_second_movement_option(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Calais VIA Artois\n"
				     "MOVE Artois\nINVADE Kent\n", &set), 2);
	assert_int_equal(set.orders[1].status, ORDER_OK);
	assert_error_contains(&set.orders[2], "only one movement option a year: line 2 (INVADE) "
			      "counts");
	assert_error_contains(&set.orders[3], "line 2");
	orders_set_free(&set);

	/* the first valid one counts: a refused INVADE does not use up the option */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Artois\nMOVE Artois\n",
				  &set), 1);
	assert_int_equal(set.orders[2].status, ORDER_OK);
	orders_set_free(&set);

	/* several contingents are one option */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general, 2 Bw(O)\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general, 2 Kn(O)\n"
				     "NO MOVE\n", &set), 1);
	assert_int_equal(set.orders[2].status, ORDER_OK);
	assert_error_contains(&set.orders[3], "line 2 (SEND CONTINGENT) counts");
	orders_set_free(&set);
}

static void add_contingent(struct campaign *c, int owner, int with, bool returning)
{
	grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
		   sizeof *c->contingents);
	struct contingent *k = &c->contingents[c->contingent_count++];
	memset(k, 0, sizeof *k);
	k->owner = owner;
	k->with_player = with;
	troops_alloc(&k->troops, c->players[owner].list.count);
	k->returning = returning;
}

/* INVADE and MOVE recall the mover's contingents (rules 2.3): the note
 * names those out, and there is none when no contingent is out (one on
 * its way back is not recalled again). */
static void test_recall_note_names_contingents(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nINVADE Calais VIA Artois\n",
				  &set), 0);
	const struct order *o = only(&set, ORDER_INVADE);
	assert_false(notes_contain(o, c, BURGUNDY, "recalled"));
	add_contingent(c, FRANCE, BURGUNDY, false); /* France's, not Burgundy's */
	add_contingent(c, BURGUNDY, ENGLAND, true); /* already on its way back */
	assert_false(notes_contain(o, c, BURGUNDY, "recalled"));
	add_contingent(c, BURGUNDY, FRANCE, false);
	assert_true(notes_contain(o, c, BURGUNDY, "your contingent with France's army is recalled"));
	c->contingents[1].returning = false;
	assert_true(notes_contain(o, c, BURGUNDY, "your contingents with the armies of Kingdom of "
				  "England and France are recalled"));
	orders_set_free(&set);
}

static void test_contingents(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	/* 28 + 4 x 5 = 48 AP, with a general, by sea to England: fine */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general, 4 Bw(O)\n",
				  &set), 0);
	const struct order *o = only(&set, ORDER_SEND_CONTINGENT);
	assert_int_equal(o->target, ENGLAND);
	assert_int_equal(o->stages, 1);
	assert_int_equal(o->sea_stages, 1);
	assert_true(notes_contain(o, c, BURGUNDY, "contingent of 48 AP (at most 80) with 1 general"));
	orders_set_free(&set);

	/* GENERAL <label> is a shorthand for one general element */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 4 Bw(O) GENERAL Cv(O) general\n",
				  &set), 0);
	o = only(&set, ORDER_SEND_CONTINGENT);
	assert_int_equal(o->item_count, 2);
	assert_int_equal(o->items[1].type, CV_GEN);
	assert_int_equal(o->items[1].count, 1);
	orders_set_free(&set);

	/* 28 + 5 x 12 = 88 AP */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general, 5 Kn(O)\n",
				  &set), 1);
	assert_error_contains(&set.orders[1], "at most 80 AP; this one is 88 AP");
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 6 Bw(O)\n", &set), 1);
	assert_error_contains(&set.orders[1], "must include a general");
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 1 Kn(S) general, 2 Bw(O)\n",
				  &set), 1);
	assert_error_contains(&set.orders[1], "C-in-C (Kn(S) general) must stay");
	orders_set_free(&set);

	/* France's army is 3 stages away: contingents cannot forced march */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO france WITH 1 Cv(O) general\n", &set), 1);
	assert_error_contains(&set.orders[1], "3 stages: contingents cannot forced march");
	orders_set_free(&set);

	/* two contingents may not use more generals than the army has */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general\n"
				     "SEND CONTINGENT TO england WITH 1 Cv(O) general\n", &set), 1);
	assert_int_equal(set.orders[2].status, ORDER_OK);
	assert_error_contains(&set.orders[3], "only 0 Cv(O) general");
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\n"
				     "SEND CONTINGENT TO burgundy WITH 1 Cv(O) general\n"
				     "CONTINGENT FOR france WITH 9 Kn(O)\n", &set), 2);
	assert_error_contains(&set.orders[1], "not to yourself");
	assert_error_contains(&set.orders[2], "at most 80 AP");
	orders_set_free(&set);

	/* the C-in-C choice: the first general line with an element in the field */
	assert_int_equal(orders_cinc_type(&c->players[BURGUNDY]), KN_S_GEN);
	c->players[BURGUNDY].field.count[KN_S_GEN] = 0;
	assert_int_equal(orders_cinc_type(&c->players[BURGUNDY]), CV_GEN);
	c->players[BURGUNDY].field.count[KN_S_GEN] = 1;
}

static void test_recruitment(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	/* two provinces: 20 AP. 4 Bw(O) = 20 AP fits; one Ps more does not */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 4 Bw(O)\nRECRUIT 1 Ps(O)\n",
				  &set), 1);
	assert_int_equal(set.orders[1].status, ORDER_OK);
	assert_error_contains(&set.orders[2], "allowance exceeded: 22 AP asked, 20 AP allowed");
	orders_set_free(&set);

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 2 Kn(O)\n", &set), 1);
	assert_error_contains(&set.orders[1], "24 AP asked, 20 AP allowed");
	orders_set_free(&set);

	/* list maximum: 8 Ps(O) in the field, at most 9 */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 2 Ps(O)\n", &set), 1);
	assert_error_contains(&set.orders[1], "at most 9 Ps(O)");
	orders_set_free(&set);

	/* the reserve: 4 Bw(O), asked 5 */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 3 Bw(O)\nRECRUIT 2 Bw(O)\n",
				  &set), 1);
	assert_error_contains(&set.orders[2], "only 1 Bw(O) in your reserve");
	orders_set_free(&set);

	/* list minimums first: 13 Kn(O) needed, 12 in the field, 2 in reserve */
	c->players[BURGUNDY].list.types[KN_O].list_min = 13;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 2 Bw(O)\n", &set), 1);
	assert_error_contains(&set.orders[1], "fill your list minimum of Kn(O) first (1 short)");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 1 Kn(O)\n"
				     "RECRUIT 1 Bw(O)\n", &set), 0);
	orders_set_free(&set);
	/* the mail is judged as a whole: a recruit of the short kind after
	 * the refused line counts, and the error says both shortfalls */
	c->players[BURGUNDY].list.types[KN_O].list_min = 14;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 1 Bw(O)\n"
				     "RECRUIT 1 Kn(O)\n", &set), 1);
	assert_error_contains(&set.orders[1], "fill your list minimum of Kn(O) first (2 short "
					      "before this mail's recruits, 1 after)");
	orders_set_free(&set);
	c->players[BURGUNDY].list.types[KN_O].list_min = 2;

	/* dismissing and retrieving, in the recruitment phase */
	c->phase = PHASE_RECRUITMENT;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nDISMISS 11 Ax(O)\n"
				     "DISMISS 1 Kn(S) general\nDISMISS 2 Cv(O) general\n"
				     "RETRIEVE GENERAL Kn(S) general\nRETRIEVE GENERAL Kn(O)\n",
				  &set), 4);
	assert_error_contains(&set.orders[1], "only 10 Ax(O) in your field army");
	assert_int_equal(set.orders[2].status, ORDER_OK);
	assert_error_contains(&set.orders[3], "keep at least one general");
	/* DISMISS goes first: the dismissed general would be in the reserve, and
	 * retrieving him is recruiting him, against the allowance */
	assert_error_contains(&set.orders[4], "recruited like other troops: recruitment "
					      "allowance exceeded: 35 AP asked, 20 AP allowed");
	assert_error_contains(&set.orders[5], "is not a general");
	orders_set_free(&set);
	/* in the campaign phase the general comes at once, before the
	 * recruitment phase dismisses anyone: the reserve must hold him now */
	c->phase = PHASE_CAMPAIGN;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nDISMISS 1 Kn(S) general\n"
				     "RETRIEVE GENERAL Kn(S) general\n",
				  &set), 1);
	assert_int_equal(set.orders[1].status, ORDER_OK);
	assert_error_contains(&set.orders[2], "no Kn(S) general in your reserve");
	orders_set_free(&set);
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRETRIEVE GENERAL Kn(S) general\n",
				  &set), 1);
	assert_error_contains(&set.orders[1], "no Kn(S) general in your reserve");
	orders_set_free(&set);
}

/* In the recruitment phase RETRIEVE GENERAL counts against the allowance
 * with the RECRUIT lines, in the order written; the reply's notes count
 * every line, and what the reply accepts is what rules_recruit_check
 * accepts at the end. In the campaign phase it is not a recruit (3.1):
 * paid with troops sent to the reserve, the allowance untouched. */
static void test_recruitment_counted_in_full(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	/* four provinces: 40 AP; a Cv(O) general (in the reserve) costs 28 AP */
	c->provinces[CALAIS].owner = BURGUNDY;
	c->provinces[GENEVE].owner = BURGUNDY;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 1 Bw(O)\n"
				     "RETRIEVE GENERAL Cv(O) general\nRECRUIT 2 Bw(O)\n",
				  &set), 0);
	json_t *ack = orders_ack_json(&set, NULL, c, BURGUNDY);
	const json_t *lines = json_object_get(ack, "lines");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(lines, 2),
									     "costs"), 0)),
			    "comes at the next step between turns: troops worth at least 28 AP "
			    "go to the reserve in exchange at once (your LOSSES FIRST, else as "
			    "for any generic loss); not a recruit, the recruitment allowance is "
			    "untouched");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(lines, 3),
									     "costs"), 0)),
			    "10 AP; 15 AP of your allowance of 40 AP counted so far (10 AP for "
			    "each of your 4 provinces)");
	json_decref(ack);
	orders_set_free(&set);

	c->phase = PHASE_RECRUITMENT;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nRECRUIT 1 Bw(O)\n"
				     "RETRIEVE GENERAL Cv(O) general\nRECRUIT 2 Bw(O)\n",
				  &set), 1);
	assert_int_equal(set.orders[1].status, ORDER_OK);
	assert_int_equal(set.orders[2].status, ORDER_OK);
	assert_error_contains(&set.orders[3], "recruitment allowance exceeded: 43 AP asked, 40 AP "
					      "allowed (10 AP for each of your 4 provinces); this "
					      "line costs 10 AP");
	ack = orders_ack_json(&set, NULL, c, BURGUNDY);
	lines = json_object_get(ack, "lines");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(lines, 1),
									     "costs"), 0)),
			    "5 AP; 5 AP of your allowance of 40 AP counted so far (10 AP for "
			    "each of your 4 provinces)");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(lines, 2),
									     "costs"), 0)),
			    "a general from the reserve is recruited like other troops: 28 AP; "
			    "33 AP of your allowance of 40 AP counted so far (10 AP for each of "
			    "your 4 provinces)");
	/* in the recruitment phase it is not "applied later" */
	assert_null(json_array_get(json_object_get(json_array_get(lines, 2), "costs"), 1));
	json_decref(ack);

	/* what the reply kept passes the rules' check at the end */
	int take[8] = {0};
	for (size_t i = 0; i < set.count; i++)
		if (set.orders[i].status == ORDER_OK && set.orders[i].kind == ORDER_RECRUIT)
			take[set.orders[i].type] += set.orders[i].count;
		else if (set.orders[i].status == ORDER_OK &&
			 set.orders[i].kind == ORDER_RETRIEVE_GENERAL)
			take[set.orders[i].type]++;
	struct rules_reason why;
	assert_int_equal(rules_recruit_check(c, BURGUNDY, take, &why), RULES_OK);
	take[BW_O] += 2; /* the refused line would not have passed */
	assert_int_equal(rules_recruit_check(c, BURGUNDY, take, &why), RULES_REFUSED);
	orders_set_free(&set);
	c->phase = PHASE_CAMPAIGN;
	c->provinces[CALAIS].owner = NO_INDEX;
	c->provinces[GENEVE].owner = NO_INDEX;
}

static void test_diplomacy_and_leaving(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nTRIBUTARY OF burgundy\n"
				     "RENOUNCE england\nLEAVE CAMPAIGN\n", &set), 3);
	assert_error_contains(&set.orders[1], "own tributary");
	assert_error_contains(&set.orders[2], "neither your overlord nor your tributary");
	assert_error_contains(&set.orders[3], "needs a CONFIRM line");
	orders_set_free(&set);

	c->players[BURGUNDY].overlord = FRANCE;
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nTRIBUTARY OF england\n"
				     "RENOUNCE france\nACCEPT TRIBUTARY france\n", &set), 2);
	assert_error_contains(&set.orders[1], "cannot have two overlords");
	assert_int_equal(set.orders[2].status, ORDER_OK);
	assert_error_contains(&set.orders[3], "is your overlord");
	orders_set_free(&set);
	c->players[BURGUNDY].overlord = NO_INDEX;

	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nLEAVE CAMPAIGN CONFIRM\n"
				     "PASSWORD short\n", &set), 1);
	assert_true(only(&set, ORDER_LEAVE)->confirmed);
	assert_error_contains(only(&set, ORDER_PASSWORD),
			      "at least 12 characters (this one has 5): a shorter one could be guessed");
	assert_null(only(&set, ORDER_PASSWORD)->secret);
	orders_set_free(&set);

	/* battle lines need a BATTLE AT first */
	assert_int_equal(parse_as(c, "PLAYER burgundy pw123456\nWINNER france\n", &set), 1);
	assert_error_contains(&set.orders[1], "BATTLE AT");
	orders_set_free(&set);

	/* no PLAYER line: player orders are refused */
	assert_int_equal(parse_as(c, "INVADE Calais\nRECRUIT 1 Bw(O)\nHELP\n", &set), 2);
	assert_error_contains(&set.orders[0], "PLAYER line");
	assert_int_equal(set.orders[2].status, ORDER_OK);
	orders_set_free(&set);

	/* a PLAYER line naming someone else than the known sender */
	orders_parse("PLAYER france pw123456\n", c, BURGUNDY, &set);
	assert_error_contains(&set.orders[0], "already from Duchy of Burgundy");
	orders_set_free(&set);
}

static bool dump_contains(json_t *j, const char *needle)
{
	char *s = json_dumps(j, 0);
	bool found = strstr(s, needle) != NULL;
	free(s);
	return found;
}

static void test_password_never_echoed(void **state)
{
	struct campaign *c = *state;
	struct order_set mail, pending, current;
	const char *text = "PLAYER burgundy Sw0rdf1sh!\n"
			   "my password is Sw0rdf1sh! I think\n"
			   "PASSWORD N3wSecret#42\n"
			   "PASSWORD Tr0ub4dor&3x\n"
			   "INVADE Flandres Sw0rdf1sh!\n"
			   "PLAYER Burgandy Sw0rdf1sh!\n"
			   "IN STORM HALT\n";
	orders_parse(text, c, -1, &mail);
	orders_validate(&mail, c, mail.player);
	orders_set_init(&pending);
	orders_merge(&pending, &mail, &current);
	json_t *ack = orders_ack_json(&mail, &current, c, BURGUNDY);
	assert_false(dump_contains(ack, "Sw0rdf1sh"));
	assert_false(dump_contains(ack, "N3wSecret"));
	assert_false(dump_contains(ack, "Tr0ub4dor"));
	assert_true(dump_contains(ack, "PLAYER burgundy ********"));
	assert_true(dump_contains(ack, "my password is ******** I think"));
	assert_true(json_is_true(json_object_get(ack, "password_changed")));
	/* the secret of a PASSWORD line is kept for the engine only */
	assert_string_equal(mail.orders[3].secret, "Tr0ub4dor&3x");
	char *pending_text = orders_format_pending(&current, c);
	assert_null(strstr(pending_text, "Sw0rdf1sh"));
	assert_null(strstr(pending_text, "Tr0ub4dor"));
	assert_string_equal(pending_text, "IN STORM HALT\n");
	free(pending_text);
	for (size_t i = 0; i < mail.count; i++) {
		const struct order *o = &mail.orders[i];
		const char *texts[] = {o->text, o->understood, o->error, o->guess, o->arg};
		for (size_t k = 0; k < 5; k++)
			if (texts[k])
				assert_null(strstr(texts[k], "Sw0rdf1sh"));
	}
	json_decref(ack);
	orders_set_free(&mail);
	orders_set_free(&pending);
	orders_set_free(&current);
}

static void test_ack_json(void **state)
{
	struct campaign *c = *state;
	struct order_set mail, pending, current;
	orders_parse("Hi,\nPLAYER burgundy pw123456\nINVADE Champagne VIA Artois, Ile de France\n"
		     "INVADE Flandres\nRECRUIT 4 Bw(O)\n", c, -1, &mail);
	orders_validate(&mail, c, BURGUNDY);
	orders_set_init(&pending);
	orders_merge(&pending, &mail, &current);
	json_t *ack = orders_ack_json(&mail, &current, c, BURGUNDY);
	assert_int_equal(json_integer_value(json_object_get(ack, "error_count")), 1);
	assert_true(json_is_true(json_object_get(ack, "has_errors")));
	assert_string_equal(json_string_value(json_object_get(ack, "player")), "burgundy");
	assert_string_equal(json_string_value(json_object_get(ack, "resubmission")),
			    orders_resubmission_rule());
	json_t *lines = json_object_get(ack, "lines");
	assert_int_equal(json_array_size(lines), 5);
	json_t *l0 = json_array_get(lines, 0);
	assert_string_equal(json_string_value(json_object_get(l0, "status")), "ignored");
	json_t *l2 = json_array_get(lines, 2);
	assert_int_equal(json_integer_value(json_object_get(l2, "line")), 3);
	assert_string_equal(json_string_value(json_object_get(l2, "understood")),
			    "INVADE Champagne VIA Artois, Ile de France");
	json_t *costs = json_object_get(l2, "costs");
	assert_string_equal(json_string_value(json_array_get(costs, 0)),
			    "forced march: 1 extra stage, \xe2\x88\x92" "40 AP");
	json_t *l3 = json_array_get(lines, 3);
	assert_true(json_is_true(json_object_get(l3, "is_error")));
	assert_string_equal(json_string_value(json_object_get(l3, "guess")), "INVADE Flanders");
	json_t *cur = json_object_get(ack, "current_orders");
	assert_int_equal(json_array_size(cur), 2);
	assert_string_equal(json_string_value(json_object_get(ack, "current_orders_text")),
			    "INVADE Champagne VIA Artois, Ile de France\nRECRUIT 4 Bw(O)\n");
	json_t *recruit_costs = json_object_get(json_array_get(cur, 1), "costs");
	assert_string_equal(json_string_value(json_array_get(recruit_costs, 0)),
			    "20 AP; 20 AP of your allowance of 20 AP counted so far (10 AP for each "
			    "of your 2 provinces)");
	json_decref(ack);
	orders_set_free(&mail);
	orders_set_free(&pending);
	orders_set_free(&current);
}

/* Parses + validates `text` as burgundy's mail and merges it into *pending. */
static void mail_in(struct campaign *c, struct order_set *pending, const char *text)
{
	struct order_set mail, result;
	orders_parse(text, c, BURGUNDY, &mail);
	orders_validate(&mail, c, BURGUNDY);
	orders_merge(pending, &mail, &result);
	orders_set_free(pending);
	*pending = result;
	orders_set_free(&mail);
}

static void assert_pending(struct campaign *c, const struct order_set *pending, const char *want)
{
	char *text = orders_format_pending(pending, c);
	assert_string_equal(text, want);
	free(text);
}

static void test_merge(void **state)
{
	struct campaign *c = *state;
	struct order_set pending;
	orders_set_init(&pending);
	mail_in(c, &pending, "INVADE Calais VIA Artois\nIN STORM HALT\nRECRUIT 2 Bw(O)\n"
			     "ALLOW PASSAGE france\nIF INVADED Artois BATTLE\n");
	assert_pending(c, &pending, "INVADE Calais VIA Artois\nIF INVADED Artois BATTLE\n"
				    "IN STORM HALT\nALLOW PASSAGE france\nRECRUIT 2 Bw(O)\n");
	/* the movement order is replaced; standing orders one by one; a line in
	 * error changes nothing */
	mail_in(c, &pending, "MOVE Artois\nIN STORM RETURN\nDENY PASSAGE france\n"
			     "IF INVADED Flanders SIEGE\nIF INVADED Artois BATTEL\n");
	assert_pending(c, &pending, "MOVE Artois\nIF INVADED Artois BATTLE\n"
				    "IF INVADED Flanders SIEGE\nIN STORM RETURN\n"
				    "DENY PASSAGE france\nRECRUIT 2 Bw(O)\n");
	/* recruitment is replaced as a whole; same troops in one mail add up;
	 * listed as it is carried out: DISMISS before RECRUIT */
	mail_in(c, &pending, "RECRUIT 1 Ps(O)\nRECRUIT 1 Bw(O)\nDISMISS 1 Ax(O)\nRECRUIT 2 Bw(O)\n");
	assert_pending(c, &pending, "MOVE Artois\nIF INVADED Artois BATTLE\n"
				    "IF INVADED Flanders SIEGE\nIN STORM RETURN\n"
				    "DENY PASSAGE france\nDISMISS 1 Ax(O)\nRECRUIT 1 Ps(O)\n"
				    "RECRUIT 3 Bw(O)\n");
	/* ALL replaces every passage order; requests are not kept */
	mail_in(c, &pending, "ALLOW PASSAGE england\nDENY PASSAGE ALL\nSTATUS\nHELP\n");
	assert_pending(c, &pending, "MOVE Artois\nIF INVADED Artois BATTLE\n"
				    "IF INVADED Flanders SIEGE\nIN STORM RETURN\n"
				    "DENY PASSAGE ALL\nDISMISS 1 Ax(O)\nRECRUIT 1 Ps(O)\n"
				    "RECRUIT 3 Bw(O)\n");
	/* a named player takes precedence over ALL, whatever the order */
	mail_in(c, &pending, "ALLOW PASSAGE france\n");
	assert_pending(c, &pending, "MOVE Artois\nIF INVADED Artois BATTLE\n"
				    "IF INVADED Flanders SIEGE\nIN STORM RETURN\n"
				    "DENY PASSAGE ALL\nALLOW PASSAGE france\n"
				    "DISMISS 1 Ax(O)\nRECRUIT 1 Ps(O)\nRECRUIT 3 Bw(O)\n");
	/* CLEAR drops everything pending; the rest of the mail applies */
	mail_in(c, &pending, "VOTE END\nCLEAR\n");
	assert_pending(c, &pending, "VOTE END\n");
	/* an empty mail changes nothing */
	mail_in(c, &pending, "");
	assert_pending(c, &pending, "VOTE END\n");
	orders_set_free(&pending);
}

/* ASK ALLIES names the players asked and the province; it is the turn's
 * movement order (an INVADE replaces it, two in a mail are refused); one's
 * own province, oneself or a name twice are refused; CALL OFF reads. */
static void test_ask_allies_order(void **state)
{
	struct campaign *c = *state;
	struct order_set set;
	orders_parse("ASK ALLIES france, england FOR INVADE Calais\n", c, BURGUNDY, &set);
	assert_int_equal(orders_validate(&set, c, BURGUNDY), 0);
	const struct order *o = only(&set, ORDER_ASK_ALLIES);
	assert_int_equal(o->province, CALAIS);
	assert_int_equal(o->via_count, 2);
	assert_int_equal(o->via[0], FRANCE);
	assert_int_equal(o->via[1], ENGLAND);
	char *one = orders_format_one(o, c, BURGUNDY);
	assert_string_equal(one, "ASK ALLIES france, england FOR INVADE Calais");
	free(one);
	orders_set_free(&set);
	const char *const bad[][2] = {
		{"ASK ALLIES burgundy FOR INVADE Calais\n", "cannot ask yourself"},
		{"ASK ALLIES france, france FOR INVADE Calais\n", "named twice"},
		{"ASK ALLIES france FOR INVADE Artois\n", "Artois is yours"},
		{"ASK ALLIES france FOR INVADE Genève\n", "inviolate neutral"},
		{"ASK ALLIES france\n", "write ASK ALLIES <player>, ... FOR INVADE <province>"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		orders_parse(bad[i][0], c, BURGUNDY, &set);
		orders_validate(&set, c, BURGUNDY);
		assert_int_equal(set.errors, 1);
		assert_error_contains(&set.orders[0], bad[i][1]);
		orders_set_free(&set);
	}
	orders_parse("ASK ALLIES france FOR INVADE Calais\nINVADE Calais\n", c, BURGUNDY, &set);
	assert_int_equal(orders_validate(&set, c, BURGUNDY), 1);
	assert_error_contains(&set.orders[1], "only one movement option");
	orders_set_free(&set);
	struct order_set pending;
	orders_set_init(&pending);
	mail_in(c, &pending, "ASK ALLIES france FOR INVADE Calais\n");
	assert_pending(c, &pending, "ASK ALLIES france FOR INVADE Calais\n");
	mail_in(c, &pending, "CALL OFF\n");
	assert_pending(c, &pending, "CALL OFF\n");
	mail_in(c, &pending, "INVADE Calais\n");
	assert_pending(c, &pending, "INVADE Calais\n");
	orders_set_free(&pending);
}

/* NO CONTINGENT FROM withdraws the standing CONTINGENT FROM that tributary
 * (a substitute's too), leaves the others, and is not kept itself; one who
 * is not a tributary of the sender is refused. */
static void test_merge_no_contingent_from(void **state)
{
	struct campaign *c = *state;
	c->players[FRANCE].overlord = BURGUNDY;
	c->players[ENGLAND].overlord = BURGUNDY;
	struct order_set pending;
	orders_set_init(&pending);
	mail_in(c, &pending, "CONTINGENT FROM france\nCONTINGENT FROM england\nNO MOVE\n");
	assert_pending(c, &pending, "NO MOVE\nCONTINGENT FROM france\nCONTINGENT FROM england\n");
	mail_in(c, &pending, "NO CONTINGENT FROM france\n");
	assert_pending(c, &pending, "NO MOVE\nCONTINGENT FROM england\n");
	/* lines act in the order of the mail */
	mail_in(c, &pending, "NO CONTINGENT FROM england\nCONTINGENT FROM france\n");
	assert_pending(c, &pending, "NO MOVE\nCONTINGENT FROM france\n");
	mail_in(c, &pending, "CONTINGENT FROM england\nNO CONTINGENT FROM france\n");
	assert_pending(c, &pending, "NO MOVE\nCONTINGENT FROM england\n");
	struct order_set set;
	orders_parse("NO CONTINGENT FROM burgundy\nNO CONTINGENT FROM england\n", c, BURGUNDY, &set);
	assert_int_equal(orders_validate(&set, c, BURGUNDY), 1);
	assert_error_contains(&set.orders[0], "Burgundy is not your tributary");
	assert_int_equal(set.orders[1].status, ORDER_OK);
	char *one = orders_format_one(&set.orders[1], c, BURGUNDY);
	assert_string_equal(one, "NO CONTINGENT FROM england");
	free(one);
	orders_set_free(&set);
	orders_set_free(&pending);
	c->players[FRANCE].overlord = NO_INDEX;
	c->players[ENGLAND].overlord = NO_INDEX;
}

static bool same_ints(const int *a, size_t na, const int *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static void assert_same_order(const struct order *a, const struct order *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->province, b->province);
	assert_int_equal(a->target, b->target);
	assert_int_equal(a->retreat_to, b->retreat_to);
	assert_int_equal(a->choice, b->choice);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->item_count, b->item_count);
	for (size_t i = 0; i < a->item_count; i++) {
		assert_int_equal(a->items[i].count, b->items[i].count);
		assert_int_equal(a->items[i].type, b->items[i].type);
	}
	assert_true(same_ints(a->route, a->route_len, b->route, b->route_len));
	if (a->kind == ORDER_RETREAT_PREFER)
		assert_true(same_ints(a->via, a->via_count, b->via, b->via_count));
	assert_int_equal(a->stages, b->stages);
	assert_int_equal(a->forced_march_half_ap, b->forced_march_half_ap);
	assert_int_equal(a->sea_stages, b->sea_stages);
	assert_true(same_ints(a->hostile, a->hostile_count, b->hostile, b->hostile_count));
	assert_true((a->arg == NULL) == (b->arg == NULL));
	if (a->arg)
		assert_string_equal(a->arg, b->arg);
	assert_int_equal(a->confirmed, b->confirmed);
}

static void test_round_trip(void **state)
{
	struct campaign *c = *state;
	struct order_set pending, again;
	orders_set_init(&pending);
	/* four provinces: 40 AP pay for the Ps(O) and the retrieved general */
	c->provinces[CALAIS].owner = c->provinces[GENEVE].owner = BURGUNDY;
	mail_in(c, &pending,
		"INVADE Champagne\n" /* route chosen for the player: written out with VIA */
		"IF INVADED Artois RETREAT TO Flanders\nIF INVADED ANY SIEGE\n"
		"IN STORM CONTINUE\nDENY PASSAGE ALL\nALLOW PASSAGE france\n"
		"ALLOW SUPPLY Kingdom of England\nDENY SUPPLY france\nANSWER ALLIES NO\n"
		"CONTINGENT FOR england WITH 1 Cv(O) general, 3 Bw(O), 2 Ax(O)\n"
		"LOSSES FIRST Ps(O), Ax(O), Bw(O)\nRETREAT PREFER Artois, Flanders\n"
		"RECALL CONTINGENTS\nRECRUIT 1 Ps(O)\nDISMISS 2 Ax(O)\n"
		"RETRIEVE GENERAL Cv(O) general\nTRIBUTARY OF france\n"
		"ACCEPT TRIBUTARY england\nVOTE CONTINUE\n"
		"LEAVE CAMPAIGN REPLACEMENT heir@example.org\nCONFIRM\n");
	assert_int_equal(pending.count, 20);
	char *text = orders_format_pending(&pending, c);
	assert_int_equal(orders_parse(text, c, BURGUNDY, &again), 0);
	assert_int_equal(orders_validate(&again, c, BURGUNDY), 0);
	assert_int_equal(again.count, pending.count);
	for (size_t i = 0; i < pending.count; i++)
		assert_same_order(&pending.orders[i], &again.orders[i]);
	char *text2 = orders_format_pending(&again, c);
	assert_string_equal(text, text2);
	free(text);
	free(text2);
	orders_set_free(&again);
	orders_set_free(&pending);
	c->provinces[CALAIS].owner = c->provinces[GENEVE].owner = NO_INDEX;

	/* a contingent with a route, and names that need quoting */
	free(c->provinces[ARTOIS].name);
	c->provinces[ARTOIS].name = xstrdup("Artois, County of");
	orders_set_init(&pending);
	mail_in(c, &pending, "SEND CONTINGENT TO england WITH GENERAL Cv(O) general\n"
			     "RETREAT PREFER \"Artois, County of\", Flanders\n");
	text = orders_format_pending(&pending, c);
	assert_string_equal(text, "SEND CONTINGENT TO england WITH 1 Cv(O) general\n"
				  "RETREAT PREFER \"Artois, County of\", Flanders\n");
	orders_parse(text, c, BURGUNDY, &again);
	assert_int_equal(again.count, 2);
	assert_same_order(&pending.orders[0], &again.orders[0]);
	assert_int_equal(again.orders[1].via[0], ARTOIS);
	free(text);
	orders_set_free(&again);
	orders_set_free(&pending);
}

/* A fixed-seed generator: the fuzz loop is the same on every run. */
static uint32_t lcg_next(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static void run_everything(struct campaign *c, const char *text)
{
	struct order_set mail, pending, current;
	orders_parse(text, c, -1, &mail);
	orders_validate(&mail, c, mail.player);
	orders_set_init(&pending);
	orders_merge(&pending, &mail, &current);
	json_t *ack = orders_ack_json(&mail, &current, c, mail.player);
	char *dump = json_dumps(ack, 0);
	assert_non_null(dump);
	free(dump);
	json_decref(ack);
	char *text2 = orders_format_pending(&current, c);
	struct order_set again;
	orders_parse(text2, c, current.player, &again);
	orders_set_free(&again);
	free(text2);
	orders_set_free(&mail);
	orders_set_free(&pending);
	orders_set_free(&current);
}

static void test_garbage(void **state)
{
	struct campaign *c = *state;
	static const char *const words[] = {
		"PLAYER", "burgundy", "pw123456", "INVADE", "MOVE", "VIA", "SEND", "CONTINGENT",
		"TO", "WITH", "GENERAL", "Ile", "de", "France", "Kn(S)", "general", "3", ",", "\"",
		"#", "RECRUIT", "Bw(O)", "IF", "INVADED", "RETREAT", "BATTLE", "AT", "DESTROYED",
		"\xc3\xa8", "\xff", "\xc2\xa0", "ORGANISER", "COMMENT", "LEAVE", "CAMPAIGN", "END",
		"DEMORALISED", "LOSSES", "FIRST", "ANY", "ALL", "999999", "0", "-1", "Kent",
	};
	uint32_t seed = 12345;
	char buf[4096];
	for (int round = 0; round < 300; round++) {
		size_t len = lcg_next(&seed) % (sizeof buf - 1);
		for (size_t i = 0; i < len; i++) {
			uint32_t r = lcg_next(&seed);
			buf[i] = (char)(r % 5 == 0 ? '\n' : r % 7 == 0 ? ' ' : (char)(r >> 8));
			if (buf[i] == '\0')
				buf[i] = 'x';
		}
		buf[len] = '\0';
		run_everything(c, buf);
		/* word salad: real keywords and names in random order */
		struct strbuf sb = {0};
		strbuf_puts(&sb, "PLAYER burgundy pw123456\n");
		for (int w = 0; w < 60; w++) {
			uint32_t r = lcg_next(&seed);
			strbuf_puts(&sb, words[r % (sizeof words / sizeof *words)]);
			strbuf_putc(&sb, r % 9 == 0 ? '\n' : ' ');
		}
		char *salad = strbuf_take(&sb);
		run_everything(c, salad);
		free(salad);
	}
	/* one very long line, and 10,000 lines */
	char *big = xmalloc(200001);
	memset(big, 'a', 200000);
	big[200000] = '\0';
	run_everything(c, big);
	free(big);
	struct strbuf sb = {0};
	strbuf_puts(&sb, "PLAYER burgundy pw123456\n");
	for (int i = 0; i < 10000; i++)
		strbuf_puts(&sb, i % 3 ? "INVADE Champagne VIA Artois, Ile de France\n"
				       : "RECRUIT 1 Bw(O)\n");
	char *many = strbuf_take(&sb);
	struct order_set set;
	orders_parse(many, c, -1, &set);
	assert_int_equal(set.count, 10001);
	orders_validate(&set, c, set.player);
	/* only the first INVADE counts, only the allowance's worth of recruits */
	assert_int_equal(set.errors, 10000 - 1 - 4);
	orders_set_free(&set);
	free(many);
}

/* A word of one element's label only ("pikes" in "Picard and Flemish
 * pikes") gets that label as its did-you-mean; a word of several labels
 * gets the army's elements. */
static void test_label_word_did_you_mean(void **state)
{
	(void)state;
	char *path = test_source_path("contrib/examples/europe1450.campaign");
	struct diag_list dl = {0};
	struct campaign *c = campaign_file_load(path, &dl);
	assert_non_null(c);
	int burgundy = campaign_find_player(c, "burgundy");
	assert_true(burgundy >= 0);
	struct order_set set;
	orders_parse("RECRUIT 2 pikes\n", c, burgundy, &set);
	assert_int_equal(set.count, 1);
	assert_int_equal(set.orders[0].status, ORDER_ERROR);
	assert_string_equal(set.orders[0].error,
			    "unknown element \"pikes\" (did you mean \"Picard and Flemish pikes\"?)");
	assert_string_equal(set.orders[0].guess, "RECRUIT 2 Picard and Flemish pikes");
	orders_set_free(&set);
	campaign_free(c);
	diag_free(&dl);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_kind_parses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stand_in, setup, teardown),
		cmocka_unit_test(test_label_word_did_you_mean),
		cmocka_unit_test_setup_teardown(test_misspelt_multi_word_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unicode_dashes_in_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_organiser_orders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forgiving_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrapped_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_did_you_mean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lines_before_and_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multi_word_provinces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_battle_lines_take_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forced_march_costs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_route_must_follow_routes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destinations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_movement_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contingents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recall_note_names_contingents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recruitment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recruitment_counted_in_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diplomacy_and_leaving, setup, teardown),
		cmocka_unit_test_setup_teardown(test_password_never_echoed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ack_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_no_contingent_from, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ask_allies_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sally_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchange_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
