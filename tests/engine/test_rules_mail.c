/* Clauses of the rulebook reached by mail (issue 14), as players live
 * them: the sequence of play known in time (rules 1.2, 1.4) and the
 * contingents tributaries must provide on their overlord's order (3.2).
 * Each test asserts the text of the mails the players receive, sent
 * through the Maildir transport from the outbox, on a real SQLite file
 * with the clock given to each call. */
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
#include "mail/mail_read.h"
#include "mail/mail_text.h"
#include "engine/engine.h"
#include "mail/transport.h"
#include "model/dice.h"
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

/* The fixture's two players; with `savoy`, a third: Savoy, a province
 * next to Dijon, its army there (1 "Cv(O) general" at 25, 2 "Cv(O)" ...),
 * Burgundy's tributary. */
static int open_engine(void **state, bool savoy, bool tributary)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct campaign *c = fixture_campaign();
	if (savoy) {
		struct province *pr = campaign_add_province(c);
		pr->name = xstrdup("Savoy");
		pr->terrain = xstrdup("hills");
		pr->climate = xstrdup("temperate");
		pr->x = 340;
		pr->y = 460;
		pr->line = 16;
		struct route *rt = campaign_add_route(c);
		rt->a = 0;
		rt->b = 5;
		rt->line = 26;
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
		s->location = 5;
		s->overlord = tributary ? 0 : NO_INDEX;
	}
	const char *pw[] = {players[0][0], players[0][1], players[1][0], players[1][1],
			    players[2][0], players[2][1], STORE_ORGANISER, ORGANISER_PW, NULL};
	if (!savoy)
		pw[4] = NULL;
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "rulesmail", c, pw, &cfg);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return open_engine(state, false, false);
}

static int setup_savoy(void **state)
{
	return open_engine(state, true, true);
}

/* Savoy a player of its own, bound to nobody. */
static int setup_free_savoy(void **state)
{
	return open_engine(state, true, false);
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

static void tick(struct test_engine *f, int64_t now)
{
	char *err = NULL;
	assert_int_equal(engine_tick(f->engine, now, 0, NULL, &err), 0);
	flush(f, now);
}

static struct campaign *campaign(struct test_engine *f)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, NULL), STORE_OK);
	return c;
}

/* The place a sequence-of-play mail lists `nation` at ("  2. France"), 0 if
 * it does not. */
static int listed_place(const char *text, const char *nation)
{
	for (int place = 1; place <= 9; place++) {
		char line[64];
		snprintf(line, sizeof line, "\n  %d. %s\n", place, nation);
		if (strstr(text, line))
			return place;
	}
	return 0;
}

/* Rules 1.2 and 1.4: the first year's sequence is rolled when play starts,
 * the next year's when the recruitment phase ends, with the dice of the
 * year that ends (committed to before, revealed in its diary); each player
 * is told his place; the next year's dice are committed to before any of
 * them is rolled. */
static void test_sequence_known_in_time(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 The sequence of play", &text), 1);
	assert_has(text, "The sequence of play for 1450, rolled before play starts:\n");
	assert_int_equal(listed_place(text, "Burgundy"), 1);
	/* his turn begins: the "Your turn" his mail leads with says it, the
	 * sequence (this part) not again */
	assert_has(text, "\nYou play 1st of 2 in 1450.\n");
	assert_null(strstr(text, "Your turn begins now."));
	free(text);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The sequence of play", &text), 1);
	assert_int_equal(listed_place(text, "France"), 2);
	assert_has(text, "\nYou play 2nd of 2 in 1450.\n\n");
	free(text);
	/* the organiser has the list, no place of his own */
	assert_int_equal(mails(f, "organiser@example.org", "1450 \u00b7 The sequence of play",
			       &text), 1);
	assert_int_equal(listed_place(text, "France"), 2);
	assert_has_not(text, "You play");
	free(text);

	free(orders(f, "burgundy", "NO MOVE\n", NOW + HOUR));
	free(orders(f, "france", "NO MOVE\n", NOW + 2 * HOUR));
	struct campaign *c = campaign(f);
	bool recruiting = c->year == 1450;
	campaign_free(c);
	if (recruiting) {
		free(orders(f, "burgundy", "NO MOVE\n", NOW + 3 * HOUR));
		free(orders(f, "france", "NO MOVE\n", NOW + 3 * HOUR));
	}
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	campaign_free(c);

	/* the 1450 diary, then each player's place in 1451, in that order */
	const char *const to[] = {BURGUNDY, FRANCE};
	const char *const nation[] = {"Burgundy", "France"};
	int places[2] = {0, 0};
	char *diary = NULL, *sequence_text = NULL; /* Burgundy's */
	for (size_t k = 0; k < 2; k++) {
		/* each the last of its kind, merged or not: where it is (the
		 * mail, then the place in it) and its text */
		size_t diary_at[2] = {n_inbox, 0}, sequence_at[2] = {n_inbox, 0}, offset;
		char *diary_k = NULL, *part = NULL;
		text = NULL;
		for (size_t i = 0; i < n_inbox; i++) {
			if (strcmp(inbox[i].to, to[k]))
				continue;
			for (size_t nth = 0;
			     maildir_part_of(i, "1450 \u00b7 The year's diary", nth, &part, &offset); nth++) {
				diary_at[0] = i;
				diary_at[1] = offset;
				free(diary_k);
				diary_k = part;
			}
			for (size_t nth = 0;
			     maildir_part_of(i, "1451 \u00b7 The sequence of play", nth, &part, &offset); nth++) {
				sequence_at[0] = i;
				sequence_at[1] = offset;
				free(text);
				text = part;
			}
		}
		assert_true(diary_at[0] < sequence_at[0] ||
			    (diary_at[0] == sequence_at[0] && diary_at[1] < sequence_at[1]));
		assert_true(sequence_at[0] < n_inbox);
		/* one logical line per paragraph (a client flows it) */
		assert_has(text, "The sequence of play for 1451, rolled at the end of 1450 with "
				 "the dice of 1450 (their seed is in the diary of 1450):\n");
		places[k] = listed_place(text, nation[k]);
		char line[64];
		snprintf(line, sizeof line, "\nYou play %d%s of 2 in 1451.\n", places[k],
			 places[k] == 1 ? "st" : "nd");
		assert_has(text, line);
		if (!sequence_text)
			sequence_text = text;
		else
			free(text);
		text = NULL;
		if (!diary)
			diary = diary_k;
		else
			free(diary_k);
	}
	assert_true(places[0] + places[1] == 3);

	/* the 1450 diary tells the order of 1451 and the rolls that drew it,
	 * and reveals the seed they can be checked with */
	char line[256];
	snprintf(line, sizeof line, "\n  1. %s\n", nation[places[0] == 1 ? 0 : 1]);
	/* (listed once: the sequence of play follows it in the same mail) */
	assert_has(diary, "The order of play for 1451, rolled as 1450 ended (with the dice of "
			  "1450), is in \"The sequence of play\" below.\n");
	assert_has_not(diary, "(with the dice of 1450):\n");
	assert_has(sequence_text, line);
	struct store_dice_year y1450, y1451;
	assert_int_equal(store_dice_year_get(f->store, 1450, &y1450, NULL), STORE_OK);
	assert_true(y1450.revealed);
	assert_has(diary, y1450.seed_hex);
	/* two players: one die, odd puts France first (doc/dice.md) */
	json_t *events = NULL;
	assert_int_equal(store_events(f->store, 1450, &events, NULL), STORE_OK);
	size_t i;
	json_t *ev;
	int die = 0;
	json_int_t counter = 0;
	json_array_foreach(events, i, ev) {
		const char *purpose = json_string_value(json_object_get(ev, "purpose"));
		if (purpose && !strcmp(purpose, "sequence of play for 1451 step 1 of 2 try 1 die 1")) {
			die = (int)json_integer_value(json_object_get(ev, "value"));
			counter = json_integer_value(json_object_get(ev, "counter"));
			assert_string_equal(json_string_value(json_object_get(ev, "phase")),
					    "recruitment");
		}
	}
	json_decref(events);
	assert_true(die >= 1 && die <= 6);
	unsigned char seed[32];
	assert_true(dice_seed_from_hex(y1450.seed_hex, seed));
	assert_true(dice_verify(seed, 1450, "recruitment",
				"sequence of play for 1451 step 1 of 2 try 1 die 1",
				(unsigned long)counter, die));
	assert_int_equal(places[1], die % 2 ? 1 : 2);
	/* in words, with the label it is checked by: the one draw among two
	 * decides who plays second */
	snprintf(line, sizeof line, "#%d (recruitment) the sequence of play of 1451, place 2 of 2 "
		 "(drawn among 2), try 1, die 1: %d (label \"sequence of play for 1451 step 1 "
		 "of 2 try 1 die 1\")\n", (int)counter, die);
	assert_has(diary, line);
	free(diary);
	free(sequence_text);

	/* the dice of 1451: committed to in the mail, none rolled yet */
	assert_int_equal(store_dice_year_get(f->store, 1451, &y1451, NULL), STORE_OK);
	assert_false(y1451.revealed);
	assert_int_equal(y1451.counter, 0);
	assert_int_equal(mails(f, FRANCE, "1451 \u00b7 The sequence of play", &text), 1);
	assert_has(text, y1451.commitment);
	assert_has(text, "committed to by this SHA-256 before any of them is rolled:\n");
	free(text);
}

/* ------------------------------------------ 3.2: tributaries on order */

/* Burgundy orders its tributary Savoy to provide a contingent; Savoy is
 * told at once, then asked when France invades Dijon and Burgundy gives
 * battle there; its ANSWER ALLIES NO does not hold and the troops Burgundy
 * named go at the deadline. Each side is told what happens. */
static void test_tributary_contingent_on_order(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "burgundy", "CONTINGENT FROM savoy WITH 1 Cv(O) general, 4 Kn(O)\n"
				"IF INVADED Dijon BATTLE\nNO MOVE\n", NOW - 3 * HOUR);
	assert_has(reply, "\n  CONTINGENT FROM savoy WITH 1 Cv(O) general, 4 Kn(O)\n");
	assert_has(reply, "Savoy is told now: it must send a contingent to Burgundy before each "
			  "battle Burgundy fights, as long as this order stands; it cannot refuse "
			  "(rules 3.2)");
	free(reply);
	char *text = NULL;
	assert_int_equal(mails(f, SAVOY, "Burgundy orders you to provide a contingent", &text), 1);
	assert_has(text, "Burgundy orders you to provide an allied contingent (rules 3.2: \"Your "
			 "tributaries must provide an allied contingent if you order them to\").\n"
			 "You cannot refuse.\n");
	assert_has(text, "if you do not answer, these troops go: 1 Cv(O) general, 4 Kn(O).");
	free(text);
	/* a call on a player who is not one's tributary is refused */
	reply = orders(f, "france", "CONTINGENT FROM burgundy\n", NOW - 3 * HOUR);
	assert_has(reply, "Burgundy is not your tributary: CONTINGENT FROM calls on a tributary "
			  "of yours (rules 3.2)");
	free(reply);
	free(orders(f, "france", "INVADE Dijon\n", NOW - 2 * HOUR));
	free(orders(f, "savoy", "ANSWER ALLIES NO\nNO MOVE\n", NOW - 2 * HOUR));
	start(f, NOW);
	/* France's turn comes in its place; the others' orders are in */
	struct campaign *c = campaign(f);
	bool asked = c->players[1].location == 0;
	campaign_free(c);
	assert_true(asked);
	assert_int_equal(mails(f, SAVOY, "Burgundy calls on you for a contingent", &text), 1);
	assert_has(text, "Burgundy is to fight France at Dijon.\nBurgundy ordered you to provide "
			 "a contingent for it: you cannot refuse (rules 3.2).");
	assert_has(text, "Without an answer (or with ANSWER ALLIES NO) these troops go:\n"
			 "  1 Cv(O) general, 4 Kn(O)\n");
	free(text);
	/* the deadline passes: the named troops go, Savoy is told its NO did
	 * not hold */
	tick(f, NOW + 30 * 24 * HOUR);
	c = campaign(f);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(c->contingents[0].owner, 2);
	assert_int_equal(c->contingents[0].with_player, 0);
	assert_int_equal(c->contingents[0].troops.count[0], 1);
	assert_int_equal(c->contingents[0].troops.count[1], 4);
	assert_int_equal(c->players[2].field.count[1], 16);
	campaign_free(c);
	assert_int_equal(mails(f, SAVOY, "Your order was not carried out", &text), 1);
	assert_has(text, "ANSWER ALLIES NO");
	assert_has(text, "you were ordered to provide a contingent (rules 3.2: a tributary cannot "
			 "refuse)");
	free(text);
	/* the battle mail shows the contingent that came on order */
	assert_int_equal(mails(f, BURGUNDY, "Battle at Dijon", &text), 1);
	assert_has(text, "Savoy sends a contingent of 73 AP to Burgundy.");
	assert_has(text, "  Savoy (savoy), contingent with Burgundy, 73 AP:\n"
			 "    1 Cv(O) general, 4 Kn(O)\n");
	free(text);
}

/* Burgundy withdraws its order with NO CONTINGENT FROM: Savoy is told at
 * once, the order leaves Burgundy's current orders, and when France
 * invades Dijon Savoy's ANSWER ALLIES NO holds again: nobody is called and
 * no contingent goes. */
static void test_tributary_order_withdrawn(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "CONTINGENT FROM savoy WITH 1 Cv(O) general, 4 Kn(O)\n"
			"IF INVADED Dijon BATTLE\nNO MOVE\n", NOW - 3 * HOUR));
	char *reply = orders(f, "burgundy", "NO CONTINGENT FROM savoy\n", NOW - 3 * HOUR);
	assert_has(reply, "your standing CONTINGENT FROM savoy is withdrawn (a substitute FOR "
			  "your overlord too): Savoy is told now and is no longer called for your "
			  "battles; a call already made for a battle under way stands");
	assert_has_not(reply, "\n  CONTINGENT FROM savoy");
	assert_has(reply, "\n  IF INVADED Dijon BATTLE\n");
	free(reply);
	char *text = NULL;
	assert_int_equal(mails(f, SAVOY, "Burgundy no longer orders you to provide a contingent",
			       &text), 1);
	assert_has(text, "Burgundy has withdrawn its order to provide a contingent "
			 "(NO CONTINGENT FROM): you are no longer called for its battles");
	free(text);
	/* one who is not one's tributary: refused, nobody told */
	reply = orders(f, "france", "NO CONTINGENT FROM burgundy\n", NOW - 3 * HOUR);
	assert_has(reply, "Burgundy is not your tributary: NO CONTINGENT FROM withdraws an order "
			  "to a tributary of yours");
	assert_int_equal(mails(f, BURGUNDY, "France no longer orders you", NULL), 0);
	free(reply);
	free(orders(f, "france", "INVADE Dijon\n", NOW - 2 * HOUR));
	free(orders(f, "savoy", "ANSWER ALLIES NO\nNO MOVE\n", NOW - 2 * HOUR));
	start(f, NOW);
	tick(f, NOW + 30 * 24 * HOUR);
	assert_int_equal(mails(f, SAVOY, "Burgundy calls on you for a contingent", NULL), 0);
	struct campaign *c = campaign(f);
	assert_int_equal(c->contingent_count, 0);
	assert_int_equal(c->players[2].field.count[1], 20);
	campaign_free(c);
	assert_int_equal(mails(f, BURGUNDY, "Battle at Dijon", &text), 1);
	assert_has_not(text, "Savoy sends a contingent");
	free(text);
}

/* ------------------------------------------ 2.2: allies before committing */

/* France asks Savoy (bound to nobody) before invading Dijon: Savoy is
 * mailed at once with the deadline, promises troops, France is mailed the
 * answer, goes on with INVADE, and the promised contingent is sent to the
 * battle; Savoy is told France went on. */
static void test_allies_solicited_then_invade(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "france", "ASK ALLIES savoy FOR INVADE Dijon\n", NOW - 3 * HOUR);
	assert_has(reply, "\n  ASK ALLIES savoy FOR INVADE Dijon\n");
	assert_has(reply, "the players named are mailed at once and have the decision deadline "
			  "to answer CONTINGENT FOR france WITH ...");
	assert_has(reply, "without an answer the attack is called off");
	free(reply);
	free(orders(f, "burgundy", "IF INVADED Dijon BATTLE\nNO MOVE\n", NOW - 3 * HOUR));
	free(orders(f, "savoy", "NO MOVE\n", NOW - 3 * HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, SAVOY, "France asks you for a contingent", &text), 1);
	assert_has(text, "France is thinking of invading Dijon and, before committing its army, "
			 "asks you for a contingent");
	assert_has(text, "  CONTINGENT FOR france WITH <n> <element>, ...\n"
			 "      the troops you promise\n");
	assert_null(strstr(text, "<n element>"));
	assert_has(text, "Without an answer you send nothing.");
	free(text);
	/* nothing is decided yet: Burgundy has not been invaded */
	assert_int_equal(mails(f, BURGUNDY, "Battle at Dijon", NULL), 0);
	free(orders(f, "savoy", "CONTINGENT FOR france WITH 1 Cv(O) general, 4 Kn(O)\n",
		    NOW + HOUR));
	assert_int_equal(mails(f, FRANCE, "The answers to your call for allies", &text), 1);
	assert_has(text, "  Savoy promises a contingent: 1 Cv(O) general, 4 Kn(O)\n");
	assert_has(text, "  INVADE Dijon\n      to go on: the promised contingents are sent to its battle\n");
	assert_has(text, "  CALL OFF\n");
	assert_has(text, "Without an answer the attack is called off");
	free(text);
	reply = orders(f, "france", "INVADE Dijon\n", NOW + 2 * HOUR);
	assert_has_not(reply, "too late");
	free(reply);
	assert_int_equal(mails(f, SAVOY, "France goes on", &text), 1);
	assert_has(text, "France goes on: INVADE Dijon");
	free(text);
	struct campaign *c = campaign(f);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(c->contingents[0].owner, 2);
	assert_int_equal(c->contingents[0].with_player, 1);
	assert_int_equal(c->players[2].movement_option, OPTION_ALLY);
	campaign_free(c);
	assert_int_equal(mails(f, FRANCE, "Battle at Dijon", &text), 1);
	assert_has(text, "Savoy sends a contingent of 73 AP to France.");
	free(text);
}

/* France asks, Savoy stays silent: at the deadline France is told nobody
 * promised anything; its CALL OFF uses no movement option: its turn goes
 * on with a new deadline, and its NO MOVE then ends the turn. Savoy is
 * told the attack was called off. */
static void test_allies_solicited_then_call_off(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "ASK ALLIES savoy FOR INVADE Dijon\n", NOW - 3 * HOUR));
	free(orders(f, "burgundy", "IF INVADED Dijon BATTLE\nNO MOVE\n", NOW - 3 * HOUR));
	free(orders(f, "savoy", "NO MOVE\n", NOW - 3 * HOUR));
	start(f, NOW);
	assert_int_equal(mails(f, SAVOY, "France asks you for a contingent", NULL), 1);
	tick(f, NOW + 30 * 24 * HOUR);
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "The answers to your call for allies", &text), 1);
	assert_has(text, "  Savoy did not answer: no contingent\n");
	assert_has(text, "Nobody promised a contingent.");
	free(text);
	free(orders(f, "france", "CALL OFF\n", NOW + 30 * 24 * HOUR + HOUR));
	assert_int_equal(mails(f, FRANCE, "Your attack on Dijon is called off", &text), 1);
	assert_has(text, "you had not committed your army, so calling off uses no movement "
			 "option (rules 2.2)");
	assert_has(text, "Your turn goes on: send your movement option");
	free(text);
	assert_int_equal(mails(f, SAVOY, "France calls off its attack", &text), 1);
	assert_has(text, "France has called off its attack on Dijon.");
	free(text);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].movement_option, OPTION_NONE);
	assert_int_equal(c->contingent_count, 0);
	campaign_free(c);
	assert_int_equal(mails(f, FRANCE, "The turn of France", NULL), 0);
	/* the option is still his: his NO MOVE ends the turn */
	free(orders(f, "france", "NO MOVE\n", NOW + 30 * 24 * HOUR + 2 * HOUR));
	assert_int_equal(mails(f, FRANCE, "The turn of France", NULL), 1);
	assert_int_equal(mails(f, BURGUNDY, "Battle at Dijon", NULL), 0);
}

/* Club finding 1: the call on an ally names the tie (Savoy is Burgundy's
 * tributary: Burgundy is its overlord), not "overlord or tributary". */
static void test_call_names_the_tie(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "IF INVADED Dijon BATTLE\nNO MOVE\n", NOW - 3 * HOUR));
	free(orders(f, "france", "INVADE Dijon\n", NOW - 2 * HOUR));
	free(orders(f, "savoy", "NO MOVE\n", NOW - 2 * HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, SAVOY, "Burgundy calls on you for a contingent", &text), 1);
	assert_has(text, "Burgundy, your overlord, is to fight France at Dijon and calls on you");
	assert_has_not(text, "overlord or tributary");
	free(text);
}

int main(void)
{
#define T(f, s) cmocka_unit_test_setup_teardown(f, s, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sequence_known_in_time, setup),
		T(test_tributary_contingent_on_order, setup_savoy),
		T(test_tributary_order_withdrawn, setup_savoy),
		T(test_allies_solicited_then_invade, setup_free_savoy),
		T(test_allies_solicited_then_call_off, setup_free_savoy),
		T(test_call_names_the_tie, setup_savoy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
