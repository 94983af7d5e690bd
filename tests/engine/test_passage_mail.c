/* Passage and contingents told as they happen (issue 13; rules 2.1
 * "Hostile provinces", 2.3 contingents): the reply to a permission says
 * what it caused, a player whose pending move's way changes is told at
 * once, and an ally whose contingent cannot reach a battle is not asked
 * (the battle's report says so). Each test asserts the text of the mails
 * the players receive, sent through the Maildir transport from the
 * outbox, on a real SQLite file with the clock given to each call. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/campaign_fixture.h"
#include "lib/engine_fixture.h"
#include "lib/maildir_fixture.h"
#include "engine/engine.h"
#include "store/store.h"
#include "base/util.h"

#define NOW 1800000000LL /* Fri 15 Jan 2027 08:00 UTC, 09:00 in Paris */
#define HOUR 3600LL
#define ORGANISER_PW "ORGA-0002-SECRET"
/* With two players it gives the sequence burgundy, france. */
#define SEED "500102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define BURGUNDY "philippe@example.org"
#define FRANCE "charles@example.org"
#define SAVOY "louis@example.org"

static const char *const players[][3] = {
	{"burgundy", "BRG0-1XYZ-7KQM-2XRT", BURGUNDY},
	{"france", "FRA0-1XYZ-7KQM-2XRT", FRANCE},
	{"savoy", "SAV0-1XYZ-7KQM-2XRT", SAVOY},
};

static struct province *add_province(struct campaign *c, const char *name, int linked_to)
{
	struct province *pr = campaign_add_province(c);
	pr->name = xstrdup(name);
	pr->terrain = xstrdup("hills");
	pr->climate = xstrdup("temperate");
	pr->x = 100 + 20 * (double)c->province_count;
	pr->y = 460;
	pr->line = 10 + (int)c->province_count;
	pr->owner = NO_INDEX;
	struct route *rt = campaign_add_route(c);
	rt->a = linked_to;
	rt->b = (int)c->province_count - 1;
	rt->line = 20 + (int)c->route_count;
	return pr;
}

/* The fixture (Dijon 0 Burgundy's, Paris 1 France's, Flanders 2, Calais 3,
 * Jersey 4; Dijon-Paris, Paris-Flanders, Flanders-Calais, Paris-Calais),
 * with Savoy 5 (neutral) next to Dijon and Piedmont 6 (neutral) next to
 * Savoy. France's field army stands in `france_at`. With `savoy`, a third
 * player: Savoy, Burgundy's tributary, holding Savoy and Piedmont, its
 * field army in Piedmont (3 stages from Paris); with `free_savoy` bound to
 * nobody and holding Flanders too. */
static int open_engine(void **state, int france_at, bool savoy, bool free_savoy)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct campaign *c = fixture_campaign();
	add_province(c, "Savoy", 0);
	add_province(c, "Piedmont", 5);
	c->players[1].location = france_at;
	if (savoy) {
		struct player *s = campaign_add_player(c);
		s->key = xstrdup("savoy");
		s->nation = xstrdup("Savoy");
		s->name = xstrdup("Louis");
		s->email = xstrdup(SAVOY);
		s->line = 90;
		static const struct {
			const char *label, *code;
			int half_ap, count;
			bool general;
		} types[] = {{"Cv(O) general", "Cv", HALF_AP(25), 2, true},
			     {"Kn(O)", "Kn", HALF_AP(12), 20, false},
			     {"Sp(O)", "Sp", HALF_AP(5), 44, false}};
		for (size_t i = 0; i < 3; i++) {
			struct element_type *t = army_list_add(&s->list);
			t->label = xstrdup(types[i].label);
			strcpy(t->code, types[i].code);
			t->grade = 'O';
			t->regular = true;
			t->cost_half_ap = types[i].half_ap;
			t->list_min = types[i].general ? 1 : 0;
			t->list_max = types[i].count + 10;
			t->general = types[i].general;
			t->line = 100 + (int)i;
		}
		player_alloc_troops(s);
		for (size_t i = 0; i < 3; i++)
			s->field.count[i] = types[i].count;
		c->provinces[5].home_of = c->provinces[5].owner = 2;
		c->provinces[6].home_of = c->provinces[6].owner = 2;
		s->location = 6;
		s->overlord = free_savoy ? NO_INDEX : 0;
		if (free_savoy)
			c->provinces[2].owner = 2;
	}
	const char *pw[] = {players[0][0], players[0][1], players[1][0], players[1][1],
			    players[2][0], players[2][1], STORE_ORGANISER, ORGANISER_PW, NULL};
	if (!savoy)
		pw[4] = STORE_ORGANISER, pw[5] = ORGANISER_PW, pw[6] = NULL;
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "passage", c, pw, &cfg);
	*state = f;
	return 0;
}

/* France's field army away from Paris, in Flanders. */
static int setup_away(void **state)
{
	return open_engine(state, 2, false, false);
}

/* France's field army at home in Paris. */
static int setup_home(void **state)
{
	return open_engine(state, 1, false, false);
}

static int setup_savoy(void **state)
{
	return open_engine(state, 1, true, false);
}

/* Savoy bound to nobody, holding Flanders too. */
static int setup_savoy_flanders(void **state)
{
	return open_engine(state, 1, true, true);
}

static int teardown(void **state)
{
	maildir_clear();
	return test_engine_teardown(state);
}

/* Sends what the outbox holds at `now` into the players' Maildir and
 * reads what arrived (inbox). */
static void flush(struct test_engine *f, int64_t now)
{
	maildir_flush(f, now);
}

/* How many mails `to` received whose Subject contains `subject`
 * (maildir_parts). */
static size_t mails(struct test_engine *f, const char *to, const char *subject, char **text)
{
	(void)f;
	return maildir_parts(to, subject, text);
}

static void assert_has(const char *text, const char *needle)
{
	if (!text || !strstr(text, needle))
		fail_msg("\"%s\" not in:\n%s", needle, text ? text : "(no mail)");
}

static void assert_has_not(const char *text, const char *needle)
{
	if (text && strstr(text, needle))
		fail_msg("\"%s\" unexpectedly in:\n%s", needle, text);
}

/* A player's mail, processed at `now`: the text of the reply. */
static char *orders(struct test_engine *f, const char *player, const char *text, int64_t now)
{
	size_t k = 0;
	while (strcmp(players[k][0], player) != 0)
		k++;
	char *body = xasprintf("PLAYER %s %s\n%s", player, players[k][1], text);
	char msgid[32];
	snprintf(msgid, sizeof msgid, "m%u@example.org", ++f->uid);
	char *raw = test_mail(&(struct test_mail){.from = players[k][2], .msgid = msgid,
						  .body = body});
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	char *reply = xstrdup(out.reply ? out.reply : "");
	engine_outcome_free(&out);
	free(raw);
	free(body);
	flush(f, now);
	return reply;
}

static void start(struct test_engine *f, int64_t now)
{
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, now, SEED, &report, &err), 0);
	free(report);
	flush(f, now);
}

static struct campaign *campaign(struct test_engine *f)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, NULL), STORE_OK);
	return c;
}

/* ------------------------------------------------ 2.1: what an answer caused */

/* Burgundy's INVADE Calais passes through Paris, France's, where no field
 * army stands: France is asked and denies. The reply says the answer
 * settled the move, and France and Burgundy are told, in the turn
 * report's words, that Burgundy forced its way at a die x 40 AP. */
static void test_denied_passage_is_forced(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - 2 * HOUR));
	free(orders(f, "france", "NO MOVE\nALLOW SUPPLY burgundy\n", NOW - 2 * HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "Burgundy asks your permission", NULL), 1);
	/* his turn's mail does not say his move is being carried out */
	assert_int_equal(mails(f, BURGUNDY, "Your turn", &text), 1);
	assert_has(text, "Your movement order is already in: it is carried out once the "
			 "permissions it needs are answered (see \"Your move waits for "
			 "permission\").");
	assert_has_not(text, "it is being carried out now");
	free(text);
	/* the mover is told who is asked and what a refusal would mean */
	assert_int_equal(mails(f, BURGUNDY, "Your move waits for permission", &text), 1);
	assert_has(text, "Your move (INVADE Calais VIA Paris) waits for permission.\n"
			 "France is asked, with until ");
	assert_has(text, "\n  Paris (France's): without its permission your army forces its "
			 "way: a die \u00d7 40 AP\n");
	free(text);
	char *reply = orders(f, "france", "DENY PASSAGE burgundy\n", NOW + HOUR);
	assert_has(reply, "Your answer to Burgundy's request was the last one its move waited "
			  "for: the move was carried out at once, and what came of it follows "
			  "(\"What came of the permission for Burgundy\").");
	free(reply);
	assert_int_equal(mails(f, FRANCE, "What came of the permission for Burgundy", &text), 1);
	assert_has(text, "The permissions for the move of Burgundy (INVADE Calais VIA Paris) "
			 "are settled.\n");
	assert_has(text, "Passage was denied where no field army stands: Burgundy forced its "
			 "way, losing a die \u00d7 40 AP for each province it forced (rules 2.1).");
	assert_has(text, "  France answers (permission): passage denied");
	assert_has(text, "  Burgundy forces its way through Paris: ");
	assert_has(text, "  Burgundy moves from Dijon to Calais (2 stages).");
	assert_has_not(text, "The move went on");
	/* the move and its supply; the siege that follows is the turn's */
	assert_has(text, "The answers and the move, in the words of the turn report:\n");
	assert_has_not(text, "Siege of Calais");
	free(text);
	/* the mover is told the same at once, not only at his turn's end */
	assert_int_equal(mails(f, BURGUNDY, "What came of the permission for Burgundy", &text), 1);
	assert_has(text, "The permissions for your move (INVADE Calais VIA Paris) are settled.\n");
	assert_has(text, "  Burgundy forces its way through Paris: ");
	free(text);
	/* the same words in the turn report */
	assert_int_equal(mails(f, FRANCE, "The turn of Burgundy", &text), 1);
	assert_has(text, "  Burgundy forces its way through Paris: ");
	free(text);
}

/* France's field army stands in Paris: denied passage bars the way, the
 * move is not carried out, and both are told why. */
static void test_denied_passage_past_an_army(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - 2 * HOUR));
	free(orders(f, "france", "NO MOVE\nALLOW SUPPLY burgundy\n", NOW - 2 * HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "Your move waits for permission", &text), 1);
	assert_has(text, "\n  Paris: France's field army is there; without its permission your "
			 "move cannot pass and is not carried out (no way can be forced past a "
			 "field army)\n");
	free(text);
	free(orders(f, "france", "DENY PASSAGE burgundy\n", NOW + HOUR));
	assert_int_equal(mails(f, FRANCE, "What came of the permission for Burgundy", &text), 1);
	assert_has(text, "The move was not carried out as ordered: the reason is below (no way "
			 "can be forced past a field army that did not permit it, rules 2.1).");
	assert_has(text, "  Burgundy: \"INVADE Calais VIA Paris\" could not be carried out: ");
	assert_has_not(text, "forces its way");
	free(text);
	assert_int_equal(mails(f, BURGUNDY, "What came of the permission for Burgundy", &text), 1);
	assert_has(text, "could not be carried out: ");
	free(text);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[0].location, 0);
	campaign_free(c);
}

/* Allowed: the move goes on, and the reply says so. */
static void test_allowed_passage_goes_on(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - 2 * HOUR));
	free(orders(f, "france", "NO MOVE\nALLOW SUPPLY burgundy\n", NOW - 2 * HOUR));
	start(f, NOW);
	free(orders(f, "france", "ALLOW PASSAGE burgundy\n", NOW + HOUR));
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "What came of the permission for Burgundy", &text), 1);
	assert_has(text, "The move went on with the permissions given.");
	assert_has(text, "  France answers (permission): passage allowed");
	assert_has(text, "  Burgundy moves from Dijon to Calais (2 stages).");
	assert_has_not(text, "forces its way");
	free(text);
}

/* Two players are asked (France for Paris, Savoy for Flanders): the
 * first answer's reply says the move still waits, the last one's that it
 * settled it; each is told what came of it once. */
static void test_first_answer_waits(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Calais VIA Paris, Flanders\n", NOW - 2 * HOUR));
	free(orders(f, "france", "NO MOVE\nALLOW SUPPLY burgundy\n", NOW - 2 * HOUR));
	free(orders(f, "savoy", "NO MOVE\nALLOW SUPPLY burgundy\n", NOW - 2 * HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "Your move waits for permission", &text), 1);
	assert_has(text, "France and Savoy are asked, with until ");
	free(text);
	char *reply = orders(f, "france", "ALLOW PASSAGE burgundy\n", NOW + HOUR);
	assert_has(reply, "Your answer to Burgundy's request is in. Its move waits for the "
			  "answers still awaited (below) before it is carried out; everyone asked "
			  "is told what came of it.");
	free(reply);
	assert_int_equal(mails(f, FRANCE, "What came of the permission for Burgundy", NULL), 0);
	reply = orders(f, "savoy", "ALLOW PASSAGE burgundy\n", NOW + 2 * HOUR);
	assert_has(reply, "was the last one its move waited for");
	free(reply);
	assert_int_equal(mails(f, FRANCE, "What came of the permission for Burgundy", &text), 1);
	assert_has(text, "The move went on with the permissions given.");
	assert_has(text, "  Burgundy moves from Dijon to Calais (3 stages).");
	free(text);
	assert_int_equal(mails(f, SAVOY, "What came of the permission for Burgundy", NULL), 1);
	assert_int_equal(mails(f, BURGUNDY, "What came of the permission for Burgundy", NULL), 1);
}

/* ------------------------------------------------ 2.1: a way that changed */

/* France's INVADE Savoy waits for its turn; its way passes through Dijon,
 * where Burgundy's field army stands: its permission is needed. In
 * Burgundy's turn that army leaves: France is told at once that the way
 * now needs Burgundy's permission or a forced passage, and why. */
static void test_mover_told_when_the_army_leaves(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "france", "INVADE Savoy\n", NOW - 2 * HOUR);
	assert_has(reply, "passes through Dijon: Burgundy's field army is there, passage needs "
			  "its permission");
	free(reply);
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\nALLOW PASSAGE france\n",
		    NOW - 2 * HOUR));
	free(orders(f, "france", "ALLOW PASSAGE burgundy\nALLOW SUPPLY burgundy\n",
		    NOW - 2 * HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "The way of your INVADE Savoy has changed", &text), 1);
	assert_has(text, "Your movement order (INVADE Savoy) waits for your turn.\n");
	assert_has(text, "  Burgundy moves from Dijon to Calais (2 stages).");
	assert_has(text, "It needed:\n  passes through Dijon: Burgundy's field army is there, "
			 "passage needs its permission\nIt needs now:\n  passes through Dijon "
			 "(Burgundy's): needs permission or forced passage: a die \u00d7 40 AP\n");
	/* only what changed: the route, the same, is not repeated */
	assert_has_not(text, "route chosen");
	free(text);
	/* news, it does not lead the mail: it goes with the turn report it
	 * follows, in the mail that France's own turn (under way, waiting for
	 * Burgundy's permission) leads */
	bool merged = false;
	for (size_t i = 0; i < n_inbox; i++) {
		if (strcmp(inbox[i].to, FRANCE) != 0)
			continue;
		assert_null(strstr(inbox[i].subject, "has changed"));
		merged |= (strstr(inbox[i].subject, "The turn of Burgundy") ||
			   strstr(inbox[i].subject, "1450 \u00b7 Your turn")) &&
			  maildir_merged_into(inbox[i].text, "The turn of Burgundy") &&
			  maildir_merged_into(inbox[i].text, "1450 \u00b7 The way of your INVADE Savoy");
	}
	assert_true(merged);
	/* nobody else had a move waiting whose way changed */
	assert_int_equal(mails(f, BURGUNDY, "has changed", NULL), 0);
}

/* ------------------------------------------------ 2.3: a contingent out of reach */

/* Burgundy invades Paris and France gives battle. Savoy, Burgundy's
 * tributary, stands in Piedmont, 3 stages from Paris: a contingent
 * cannot forced march, so it could not reach. Savoy is not asked, and
 * the battle's mail says why. */
static void test_ally_out_of_reach_not_asked(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Paris\n", NOW - 2 * HOUR));
	free(orders(f, "france", "NO MOVE\nIF INVADED ANY BATTLE\n", NOW - 2 * HOUR));
	free(orders(f, "savoy", "NO MOVE\n", NOW - 2 * HOUR));
	start(f, NOW);
	assert_int_equal(mails(f, SAVOY, "calls on you for a contingent", NULL), 0);
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "Battle at Paris", &text), 1);
	assert_has(text, "  Savoy is not asked for a contingent for Burgundy: from Piedmont it "
			 "cannot reach the battle at Paris (contingents cannot forced march: a "
			 "move of 3 stages exceeds their limit of 2; rules 2.3).");
	free(text);
	assert_int_equal(mails(f, SAVOY, "Battle at Paris", &text), 1);
	assert_has(text, "  Savoy is not asked for a contingent for Burgundy");
	free(text);
}

int main(void)
{
#define T(f, s) cmocka_unit_test_setup_teardown(f, s, teardown)
	const struct CMUnitTest tests[] = {
		T(test_denied_passage_is_forced, setup_away),
		T(test_denied_passage_past_an_army, setup_home),
		T(test_allowed_passage_goes_on, setup_home),
		T(test_first_answer_waits, setup_savoy_flanders),
		T(test_mover_told_when_the_army_leaves, setup_home),
		T(test_ally_out_of_reach_not_asked, setup_savoy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
