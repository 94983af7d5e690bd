/* The year by mail as players live it (issue 11, items 5 to 9): orders sent
 * early keep their intent, an order that can no longer be carried out is
 * mailed at once, an order for a turn that is over is answered as such,
 * reminders make sense, corrections after an undo are marked and unchanged
 * mails are not sent twice, a standing order states its worst cost. Each
 * test asserts the text of the mails the players receive (the outbox, as
 * the transport would send it), on a real SQLite file with the clock given
 * to each call. */
#include "config.h"

#include <ctype.h>
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
#include "store/store.h"
#include "base/util.h"

#define NOW 1800000000LL /* Fri 15 Jan 2027 08:00 UTC, 09:00 in Paris */
#define HOUR 3600LL
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
/* With two players it gives the sequence burgundy, france. */
#define SEED "500102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void add_province(struct campaign *c, const char *name, int linked_to, int owner)
{
	struct province *p = campaign_add_province(c);
	p->name = xstrdup(name);
	p->terrain = xstrdup("arable");
	p->climate = xstrdup("temperate");
	p->x = 100 + 20 * (double)c->province_count;
	p->y = 300;
	p->line = (int)c->province_count + 10;
	p->owner = owner;
	struct route *r = campaign_add_route(c);
	r->a = linked_to;
	r->b = (int)c->province_count - 1;
	r->line = (int)c->route_count + 20;
}

/* The fixture (Dijon 0, Paris 1, Flanders 2, Calais 3, Jersey 4) with France
 * holding Calais, and a road on from Calais: Picardy 5, Artois 6, Hainaut 7,
 * Namur 8 (France holds the last two when `far`). */
static int burgundy_at = 0; /* where Burgundy's field army stands at the start */
static bool bows_in_reserve; /* Burgundy's Bw(O) all in the reserve, none in the field */

static int setup_map(void **state, bool far, const int *reminders)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct campaign *c = fixture_campaign();
	c->provinces[3].owner = 1;
	c->players[0].location = burgundy_at;
	burgundy_at = 0;
	if (bows_in_reserve) {
		c->players[0].reserve.count[2] += c->players[0].field.count[2];
		c->players[0].field.count[2] = 0;
		bows_in_reserve = false;
	}
	add_province(c, "Picardy", 3, NO_INDEX);
	add_province(c, "Artois", 5, NO_INDEX);
	add_province(c, "Hainaut", 6, far ? 1 : NO_INDEX);
	add_province(c, "Namur", 7, far ? 1 : NO_INDEX);
	if (reminders) {
		memset(c->settings.reminder_hours, 0, sizeof c->settings.reminder_hours);
		for (int i = 0; reminders[i]; i++)
			c->settings.reminder_hours[i] = reminders[i];
	}
	static const char *const pw[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					 STORE_ORGANISER, ORGANISER_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "yearmail", c, pw, &cfg);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_map(state, false, NULL);
}

static int setup_far(void **state)
{
	return setup_map(state, true, NULL);
}

/* The far map with Burgundy's field army in Artois, 3 stages from Paris. */
static int setup_apart(void **state)
{
	burgundy_at = 6;
	return setup_map(state, true, NULL);
}

/* Burgundy's bowmen are all in the reserve: none fight its battles. */
static int setup_no_bows(void **state)
{
	bows_in_reserve = true;
	return setup_map(state, false, NULL);
}

static int setup_reminders(void **state)
{
	static const int hours[] = {96, 24, 0};
	return setup_map(state, false, hours);
}

/* ---------------------------------------------------------------- mail */

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

/* Whether `text` holds, merged after its first part, the mail whose
 * Subject ends in `subject` ("1450 · The turn of France" or "The turn of
 * France"): a rule, then that subject as a line. */
static bool merged_into(const char *text, const char *subject)
{
	return maildir_merged_into(text, subject);
}

/* How many mails `to` received that hold the mail `subject`: under that
 * Subject, or merged into another one sent at the same moment. */
static size_t mails(struct test_engine *f, const char *to, const char *subject, char **text)
{
	(void)f;
	size_t hits = 0;
	if (text)
		*text = NULL;
	for (size_t i = 0; i < n_inbox; i++) {
		if (strcmp(inbox[i].to, to) != 0 ||
		    (!strstr(inbox[i].subject, subject) && !merged_into(inbox[i].text, subject)))
			continue;
		hits++;
		if (text) {
			free(*text);
			*text = xstrdup(inbox[i].text);
		}
	}
	return hits;
}

/* How many mails `to` received marked "Corrected:" that hold the mail
 * `subject` (under that subject, or merged into another one). */
static size_t corrected_mails(const char *to, const char *subject, char **text)
{
	size_t hits = 0;
	if (text)
		*text = NULL;
	for (size_t i = 0; i < n_inbox; i++) {
		const char *c = strstr(inbox[i].subject, "\u00b7 Corrected: ");
		if (strcmp(inbox[i].to, to) != 0 || !c ||
		    (!strstr(c, subject) && !merged_into(inbox[i].text, subject)))
			continue;
		hits++;
		if (text) {
			free(*text);
			*text = xstrdup(inbox[i].text);
		}
	}
	return hits;
}

/* The Subjects of the mails `to` received, one a line. */
static char *subjects(struct test_engine *f, const char *to)
{
	(void)f;
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < n_inbox; i++)
		if (strcmp(inbox[i].to, to) == 0)
			strbuf_printf(&sb, "%s\n", inbox[i].subject);
	return strbuf_take(&sb);
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

static size_t count_of(const char *text, const char *needle);

/* A player's mail, processed at `now`: the text of the reply. */
static char *orders(struct test_engine *f, const char *player, const char *text, int64_t now)
{
	bool burgundy = strcmp(player, "burgundy") == 0;
	char *body = xasprintf("PLAYER %s %s\n%s", player, burgundy ? BURGUNDY_PW : FRANCE_PW,
			       text);
	char msgid[32];
	snprintf(msgid, sizeof msgid, "m%u@example.org", ++f->uid);
	char *raw = test_mail(&(struct test_mail){
		.from = burgundy ? "philippe@example.org" : "charles@example.org",
		.msgid = msgid, .body = body});
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	char *reply = xstrdup(out.reply ? out.reply : "");
	engine_outcome_free(&out);
	free(raw);
	free(body);
	flush(f, now);
	return reply;
}

static void act(struct test_engine *f, enum engine_action a, const char *arg, int64_t seconds,
		int64_t now)
{
	struct engine_action_request req = {.action = a, .arg = arg, .seconds = seconds,
					    .relative = true};
	char *report = NULL, *err = NULL;
	int rc = engine_action(f->engine, &req, now, &report, &err);
	if (rc != 0)
		fail_msg("engine_action: %s %s", report ? report : "", err ? err : "");
	free(report);
	flush(f, now);
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

static json_t *year_state(struct test_engine *f)
{
	char *text = NULL;
	assert_int_equal(store_year_state_get(f->store, &text, NULL), STORE_OK);
	json_t *doc = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(doc);
	return doc;
}

static int64_t state_int(struct test_engine *f, const char *key)
{
	json_t *st = year_state(f);
	int64_t v = json_integer_value(json_object_get(st, key));
	json_decref(st);
	return v;
}

static struct campaign *campaign(struct test_engine *f)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, NULL), STORE_OK);
	return c;
}

static char *stored_orders(struct test_engine *f, const char *player, int phase)
{
	char *text = NULL;
	assert_int_equal(store_orders_get(f->store, player, 1450, phase, &text, NULL), STORE_OK);
	return text ? text : xstrdup("");
}

#define BURGUNDY "philippe@example.org"
#define FRANCE "charles@example.org"

/* Burgundy invades Calais (through Paris, by France's leave); France's army
 * comes from Paris to fight there, and France wins: Burgundy's turn is over
 * at NOW + 2 h and France's opens. */
static void battle_at_calais(struct test_engine *f, const char *france_move)
{
	char *body = xasprintf("%s\nIF INVADED ANY BATTLE\nALLOW PASSAGE burgundy\n"
			       "DENY SUPPLY burgundy\n", france_move);
	free(orders(f, "france", body, NOW - 2 * HOUR));
	free(body);
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - HOUR));
	start(f, NOW);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].location, 3); /* France marched to Calais */
	campaign_free(c);
	act(f, ENGINE_ACT_BATTLE_RESULT, "BATTLE AT Calais\nWINNER france\n", 0, NOW + 2 * HOUR);
}

/* ---------------------------------------------------------------- item 5 */

/* A route the player did not write is chosen when the move is carried out,
 * from where the army stands then: France's INVADE Picardy, sent from
 * Paris (by Calais), is carried out from Calais where France's army went
 * to defend. */
static void test_early_order_keeps_its_destination(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "france", "INVADE Picardy\n", NOW - 3 * HOUR);
	assert_has(reply, "route chosen for you (the shortest from where your army stands now): "
			  "Paris, Calais, Picardy; it is chosen again from where your army stands "
			  "when the move is carried out");
	free(reply);
	/* before the start, orders are kept for the setup phase */
	char *stored = stored_orders(f, "france", PHASE_SETUP);
	assert_string_equal(stored, "INVADE Picardy\n"); /* the intent, no route */
	free(stored);
	battle_at_calais(f, "INVADE Picardy");
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].location, 5); /* Calais -> Picardy, one stage */
	campaign_free(c);
	char *text = NULL;
	/* the turn was opened and played at once: its report tells it, once
	 * (no "Your turn" beside it saying the report is in the mail) */
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Your turn", NULL), 0);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The turn of France", &text), 1);
	assert_has(text, "  France orders: INVADE Picardy\n");
	assert_has(text, "  France moves from Calais to Picardy (1 stage).\n");
	assert_has_not(text, "cannot be carried out");
	free(text);
	/* nothing was refused: no such mail */
	assert_int_equal(mails(f, FRANCE, "was not carried out", NULL), 0);
	assert_int_equal(mails(f, FRANCE, "cannot be carried out", NULL), 0);
}

/* A route the player wrote (VIA Calais) cannot be marched from Calais: at
 * the opening of his turn France is told why, his order is dropped, and
 * the deadline counts from that mail; a new order is carried out. */
static void test_early_order_that_cannot_be_carried_out(void **state)
{
	struct test_engine *f = *state;
	battle_at_calais(f, "INVADE Picardy VIA Calais");
	json_t *st = year_state(f);
	assert_string_equal(json_string_value(json_object_get(st, "step")), "turn");
	assert_int_equal(json_integer_value(json_object_get(st, "turn")), 1);
	assert_int_equal(json_integer_value(json_object_get(st, "deadline")),
			 NOW + 2 * HOUR + 72 * HOUR);
	json_decref(st);
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Your turn", &text), 1);
	assert_has(text, "Your movement order sent in advance,\n  INVADE Picardy VIA Calais\n"
			 "cannot be carried out now: the route passes Calais twice.\n"
			 "It was dropped: send a new movement option. The deadline below counts "
			 "from this mail.");
	/* 10:00 UTC + 72 h, in the campaign's time zone */
	assert_has(text, "Send your movement option before Mon 18 Jan 2027 11:00 CET");
	assert_has_not(text, "already in");
	free(text);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].location, 3); /* still in Calais */
	campaign_free(c);
	char *stored = stored_orders(f, "france", PHASE_CAMPAIGN);
	assert_has_not(stored, "INVADE Picardy");
	assert_has(stored, "IF INVADED ANY BATTLE");
	free(stored);
	/* the new order is carried out at once */
	free(orders(f, "france", "INVADE Picardy\n", NOW + 3 * HOUR));
	c = campaign(f);
	assert_int_equal(c->players[1].location, 5);
	assert_int_equal(c->phase, PHASE_RECRUITMENT);
	campaign_free(c);
}

/* An order the year refuses when it comes to act on it is mailed to its
 * player at once (never only an event): RECALL CONTINGENTS with none out. */
static void test_refused_order_is_mailed(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Your order was not carried out", NULL), 0);
	free(orders(f, "france", "RECALL CONTINGENTS\n", NOW + HOUR));
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Your order was not carried out", &text), 1);
	assert_has(text, "Your order\n  RECALL CONTINGENTS\nwas not carried out: you have no "
			 "contingent out.");
	free(text);
	assert_int_equal(mails(f, BURGUNDY, "your order was not carried out", NULL), 0);
}

/* ---------------------------------------------------------------- item 6 */

/* Burgundy's INVADE, carried out, leaves his current orders; a movement
 * order he sends after his turn is answered as one for a turn that is
 * over; standing orders are what stands for the next time. */
static void test_order_for_a_turn_that_is_over(void **state)
{
	struct test_engine *f = *state;
	battle_at_calais(f, "");
	char *reply = orders(f, "burgundy", "IN STORM HALT\nINVADE Flanders\n", NOW + 3 * HOUR);
	assert_has(reply, "INVADE Flanders\n        ERROR: your turn of 1450 is over (your "
			  "movement option was carried out): a movement order now is for a turn "
			  "that is over, so it is not used and not kept");
	/* what stands for the next time: the standing order, not the INVADE
	 * carried out */
	const char *current = strstr(reply, "Your current orders");
	assert_non_null(current);
	assert_has(current, "  IN STORM HALT\n");
	assert_has_not(current, "\n  INVADE");
	free(reply);
	struct campaign *c = campaign(f);
	assert_int_not_equal(c->players[0].location, 2); /* not in Flanders */
	campaign_free(c);
}

/* Club finding 1: Burgundy's INVADE, sent during his turn, is carried out by
 * the same mail: the reply does not list it under his current orders, and
 * what he sent still shows under his mail's lines. */
static void test_order_carried_out_by_its_own_mail(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\nALLOW PASSAGE burgundy\nDENY SUPPLY burgundy\n",
		    NOW - HOUR));
	start(f, NOW);
	char *reply = orders(f, "burgundy", "IN STORM HALT\nINVADE Flanders VIA Paris\n",
			     NOW + HOUR);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[0].location, 2); /* carried out: in Flanders */
	campaign_free(c);
	/* club finding 2: the line says it was carried out and where to read
	 * what came of it, not the plan's cost foreseen */
	assert_has(reply, "  3: INVADE Flanders VIA Paris\n        -> carried out with your mail: "
			  "what came of it (the way, storms, forced passage, supply, what it "
			  "cost) is told below, in \"The turn of Burgundy\"\n");
	assert_has_not(reply, "normal move");
	char *turn = NULL;
	assert_int_equal(mails(f, BURGUNDY, "The turn of Burgundy", &turn), 1);
	free(turn);
	const char *current = strstr(reply, "Your current orders");
	assert_non_null(current);
	assert_has(current, "  IN STORM HALT\n");
	assert_has_not(current, "\n  INVADE");
	free(reply);
}

/* The last acknowledgement `to` received, as it arrived. */
static char *last_ack(struct test_engine *f, const char *to)
{
	char *text = NULL;
	assert_true(mails(f, to, "Re: orders", &text) > 0);
	return text;
}

/* Club finding 9: a mail whose battle report was refused does not say it
 * was understood: the report's lines count as lines in error. */
static void test_refused_report_is_an_error(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Paris\n", NOW - HOUR));
	free(orders(f, "france", "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR));
	start(f, NOW);
	free(orders(f, "burgundy",
		    "IN STORM HALT\nBATTLE AT Paris\nWINNER france\nDESTROYED burgundy 40 Kn(S)\n",
		    NOW + HOUR));
	char *text = last_ack(f, BURGUNDY);
	assert_has(text, "Your battle result was not used");
	assert_has_not(text, "Every line of your mail was understood");
	assert_has_not(text, "Errors: 0");
	assert_has(text, "3 lines of your mail could not be accepted: see below.");
	assert_has(text, "the report is not recorded: send the whole report again");
	assert_int_equal(maildir_count(text, "send the whole report again"), 1);
	assert_has(text, "The rest of your mail was taken as shown below.");
	assert_has(text, "  3: BATTLE AT Paris\n        ERROR: not used: the battle result was "
			 "refused");
	assert_has(text, "Errors: 3");
	free(text);
}

/* Club finding 3: France's report, agreeing with Burgundy's, settles the
 * battle at Calais and sends France's army back to Paris: the reply's cost
 * notes count from Paris, where the army stands after the mail. */
static void test_costs_after_the_mail(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\nIF INVADED ANY BATTLE\nALLOW PASSAGE burgundy\n"
		    "DENY SUPPLY burgundy\n", NOW - 2 * HOUR));
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - HOUR));
	start(f, NOW);
	free(orders(f, "burgundy", "BATTLE AT Calais\nWINNER burgundy\n", NOW + HOUR));
	char *reply = orders(f, "france", "BATTLE AT Calais\nWINNER burgundy\n"
			     "IF INVADED Calais BATTLE\n", NOW + 2 * HOUR);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].location, 1); /* back in Paris */
	campaign_free(c);
	assert_has(reply, "Your battle result was recorded");
	assert_has(reply, "-> at most 1 stage from Paris (where your army stands now)");
	assert_has_not(reply, "from Calais (where your army stands now)");
	assert_has_not(reply, "your army is in Calais");
	free(reply);
}

/* Club finding 3: a report refused for one line in error counts that one
 * line, in the ack and in the year's note alike; the other lines of the
 * report are shown as not used, not as lines in error. */
static void test_report_with_one_line_in_error(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Paris\n", NOW - HOUR));
	free(orders(f, "france", "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR));
	start(f, NOW);
	free(orders(f, "burgundy",
		    "IN STORM HALT\nBATTLE AT Paris\nWINNER france\nDESTROYED burgundy 4 Kn(S)\n"
		    "FLED burgundy 2 Mounted archers\n", NOW + HOUR));
	char *text = last_ack(f, BURGUNDY);
	assert_has(text, "line 6 of your mail is in error, and a report is taken whole or not "
			 "at all: send the whole report again, corrected.");
	assert_has(text, "1 line of your mail could not be accepted: see below.");
	assert_has(text, "  3: BATTLE AT Paris\n        NOT USED: the battle report was refused "
			 "for line 6, in error\n");
	assert_has(text, "The rest of your mail was taken as shown below.");
	assert_has(text, "  5: DESTROYED burgundy 4 Kn(S)\n        NOT USED:");
	assert_has(text, "  6: FLED burgundy 2 Mounted archers\n        ERROR: ");
	assert_has(text, "Errors: 1\n");
	assert_has_not(text, "lines of your mail could not be accepted");
	free(text);
}

/* Club finding (late 2): a battle report's did-you-mean and the list of
 * elements it names are the elements at that battle: Burgundy's Bw(O),
 * all in its reserve, are never offered to France's report on Paris. */
static void test_report_names_the_elements_at_the_battle(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Paris\n", NOW - HOUR));
	free(orders(f, "france", "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR));
	start(f, NOW);
	free(orders(f, "france",
		    "BATTLE AT Paris\nWINNER france\nFLED burgundy 2 Bw(I)\n"
		    "DESTROYED burgundy 3 Bowmen\n", NOW + HOUR));
	char *text = last_ack(f, FRANCE);
	assert_has(text, "  4: FLED burgundy 2 Bw(I)\n        ERROR: unknown element \"Bw(I)\" "
			 "(did you mean \"Ps(I)\"?)\n");
	assert_has(text, "  5: DESTROYED burgundy 3 Bowmen\n        ERROR: Burgundy's army has no "
			 "element \"Bowmen\"; its elements at the battle at Paris: Kn(S) general, "
			 "Kn(S) and Ps(I)\n");
	assert_has_not(text, "Bw(O)");
	free(text);
}

/* Club finding 4: France, asked for passage and supply, answers only the
 * passage: the turn report says what France decided, and the supply it did
 * not answer as the default, not as its answer. */
static void test_permission_answer_as_given(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "burgundy", "INVADE Flanders VIA Paris\n", NOW - HOUR));
	free(orders(f, "france", "NO MOVE\nIF INVADED ANY BATTLE\n", NOW - HOUR));
	start(f, NOW);
	free(orders(f, "france", "ALLOW PASSAGE burgundy\n", NOW + HOUR));
	tick(f, NOW + 25 * HOUR); /* the supply is not answered by the deadline */
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "The turn of Burgundy", &text), 1);
	assert_has(text, "France answers (permission): passage allowed, supply not answered, "
			 "denied by default.\n");
	assert_has_not(text, "supply denied");
	free(text);
}

/* Club finding 5: a recruitment order the rules refuse in the campaign
 * phase says that the recruitment phase is over, not only the rule. */
static void test_recruitment_order_out_of_its_phase(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	free(orders(f, "burgundy", "RECRUIT 40 Kn(S)\n", NOW + HOUR));
	char *text = last_ack(f, BURGUNDY);
	assert_has(text, "RECRUIT 40 Kn(S)\n        ERROR: the recruitment phase is over: the "
			 "next one is at the end of 1450; a recruitment order now is kept for "
			 "it, but as your army stands now this one cannot be carried out (");
	free(text);
}

/* Club finding 7: a player whose reserve is empty is not offered "up to
 * 40 AP from your reserve (0 AP)": the recruitment mail says nothing can
 * be recruited. */
static void test_recruitment_with_an_empty_reserve(void **state)
{
	struct test_engine *f = *state;
	battle_at_calais(f, "NO MOVE");
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Recruitment", &text), 1);
	assert_has(text, "The campaign phase is over. Your reserve is empty: nothing can be "
			 "recruited. You may still dismiss troops:\n  DISMISS <n> <element>\n");
	/* and said once: no "Your reserve:" list saying it again */
	assert_has_not(text, "Your reserve:");
	assert_has_not(text, "(empty");
	const char *empty = strstr(text, "empty");
	assert_non_null(empty);
	assert_null(strstr(empty + 1, "empty"));
	assert_has_not(text, "You may recruit up to");
	assert_has_not(text, "(0 AP)");
	free(text);
}

/* Club finding 6: NO MOVE sent in the recruitment phase is answered with
 * what it means there, and that it is not next year's movement order; the
 * mail that ends the recruitment lists what stands in the new year. */
static void test_no_move_in_the_recruitment(void **state)
{
	struct test_engine *f = *state;
	battle_at_calais(f, "NO MOVE");
	free(orders(f, "burgundy", "NO MOVE\n", NOW + 3 * HOUR));
	char *text = last_ack(f, BURGUNDY);
	assert_has(text, "Test Marches, 1450, recruitment phase\n");
	assert_has(text, "NO MOVE in the recruitment phase means that you recruit nothing. It "
			 "is not kept as your movement order for 1451: with none sent by your "
			 "turn's deadline, your turn of 1451 is NO MOVE by default.");
	assert_has(text, "  2: NO MOVE\n");
	assert_has(text, "change them.\n  (none: if your turn comes, the default applies)\n");
	free(text);
}

/* Club finding 1 (the losses): the battle mail, sent before the turn
 * report, says what the mover's turn has cost so far. */
static void test_battle_mail_tells_the_turn_so_far(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\nIF INVADED ANY BATTLE\nALLOW PASSAGE burgundy\n"
		    "DENY SUPPLY burgundy\n", NOW - 2 * HOUR));
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - HOUR));
	start(f, NOW);
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 Battle at Calais", &text), 1);
	assert_has(text, "Burgundy (440 AP) attacks France (480 AP) in Calais: ");
	assert_has(text, "This turn so far (the figures above and below count it):\n"
			 "  Burgundy orders: INVADE Calais VIA Paris\n");
	assert_has(text, "  Burgundy loses 40 AP (out of supply).\n");
	free(text);
}

/* ---------------------------------------------------------------- item 7 */

/* Reminders at 96 h and 24 h, a turn of 72 h: no reminder with the mail
 * that opens the turn, never the 96 h one; the 24 h one says how long is
 * left, in the campaign's time zone; a deadline moved re-arms it. */
static void test_reminders(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	int64_t deadline = state_int(f, "deadline");
	assert_int_equal(deadline, NOW + 72 * HOUR);
	assert_int_equal(mails(f, BURGUNDY, "Reminder", NULL), 0);
	tick(f, NOW + 60);
	tick(f, NOW + HOUR);
	assert_int_equal(mails(f, BURGUNDY, "Reminder", NULL), 0);
	tick(f, deadline - 24 * HOUR - 60);
	assert_int_equal(mails(f, BURGUNDY, "Reminder", NULL), 0);
	tick(f, deadline - 24 * HOUR);
	char *text = NULL;
	assert_int_equal(mails(f, BURGUNDY, "Reminder", &text), 1);
	assert_has(text, "1 day left: the deadline is Mon 18 Jan 2027 09:00 CET.");
	assert_has(text, "If nothing comes, your army does not move this year (NO MOVE).");
	free(text);
	tick(f, deadline - 23 * HOUR);
	assert_int_equal(mails(f, BURGUNDY, "Reminder", NULL), 1);
	/* the organiser gives 48 h more: the 24 h reminder is due again */
	act(f, ENGINE_ACT_DEADLINE, NULL, 48 * HOUR, deadline - 22 * HOUR);
	int64_t moved = state_int(f, "deadline");
	assert_int_equal(moved, deadline + 48 * HOUR);
	tick(f, moved - 24 * HOUR - 60);
	assert_int_equal(mails(f, BURGUNDY, "Reminder", NULL), 1);
	tick(f, moved - 24 * HOUR + 30 * 60);
	assert_int_equal(mails(f, BURGUNDY, "Reminder", &text), 2);
	assert_has(text, "23 hours 30 minutes left: the deadline is Wed 20 Jan 2027 09:00 CET.");
	free(text);
	/* France, not awaited, got none */
	assert_int_equal(mails(f, FRANCE, "Reminder", NULL), 0);
}

/* ---------------------------------------------------------------- item 8 */

/* An undo played again with the same orders sends nothing twice; played
 * again with another order, the mails that changed say "Corrected:" in
 * their Subject and first lines, with what changed. A battle result
 * corrected likewise. */
static void test_undo_and_corrections(void **state)
{
	struct test_engine *f = *state;
	battle_at_calais(f, "NO MOVE");
	/* France's NO MOVE was in: its turn too is over, the recruitment began */
	struct campaign *c = campaign(f);
	assert_int_equal(c->phase, PHASE_RECRUITMENT);
	campaign_free(c);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The turn of France", NULL), 1);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Recruitment", NULL), 1);
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 The turn of Burgundy", NULL), 1);

	/* undo France's turn and play it again as it was: nothing is resent */
	act(f, ENGINE_ACT_UNDO, NULL, 0, NOW + 3 * HOUR);
	act(f, ENGINE_ACT_RESUME, NULL, 0, NOW + 4 * HOUR);
	c = campaign(f);
	assert_int_equal(c->phase, PHASE_RECRUITMENT);
	campaign_free(c);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The turn of France", NULL), 1);
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 The turn of France", NULL), 1);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Corrected: The turn", NULL), 0);
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 Corrected: The turn", NULL), 0);
	/* only the recruitment's deadline moved (it counts from the step played
	 * again two hours later): that mail says so, first thing */
	char *text = NULL;
	/* two recruitment mails: the first, and the corrected one (the word
	 * Corrected: now comes after the tag and year, before "Recruitment") */
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Recruitment", NULL), 1);
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 Corrected: Recruitment", &text), 1);
	assert_has(text, "Corrected: this mail replaces the one sent on Fri 15 Jan 2027 11:00 CET "
			 "under the same subject: the organiser undid France's turn and it "
			 "was played again.\nWhat changed:\n"
			 "  was: If you recruit nothing, send NO MOVE (in the recruitment phase it "
			 "means that you recruit nothing), so that the phase need not wait for the "
			 "deadline. Your orders apply at Mon 18 Jan "
			 "2027 11:00 CET, or as soon as every player has sent theirs. The reply to your "
			 "orders counts every line against the allowance (a general from the reserve "
			 "too) and refuses at once what cannot be paid for; what it accepts is carried "
			 "out.\n"
			 "  now: If you recruit nothing, send NO MOVE (in the recruitment phase it "
			 "means that you recruit nothing), so that the phase need not wait for the "
			 "deadline. Your orders apply at Mon 18 Jan "
			 "2027 13:00 CET, or as soon as every player has sent theirs.");
	assert_true(strncmp(text, "Corrected: ", 11) == 0); /* the first line */
	free(text);
	/* the organiser's own actions are told */
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The organiser: a step taken back", NULL), 1);

	/* undo again; France now invades Picardy instead: the turn report and
	 * the recruitment mail are sent again, marked */
	act(f, ENGINE_ACT_UNDO, NULL, 0, NOW + 5 * HOUR);
	free(orders(f, "france", "INVADE Picardy\n", NOW + 5 * HOUR));
	act(f, ENGINE_ACT_RESUME, NULL, 0, NOW + 6 * HOUR);
	c = campaign(f);
	assert_int_equal(c->players[1].location, 5);
	campaign_free(c);
	/* (merged with the recruitment mail, sent at the same moment) */
	assert_int_equal(corrected_mails(BURGUNDY, "The turn of France", &text), 1);
	assert_has(text, "Corrected: \"The turn of France\" below replaces the one sent on Fri 15 "
			 "Jan 2027 11:00 CET: the organiser undid France's turn and it "
			 "was played again.\nWhat changed:\n");
	assert_has(text, "  now: ");
	assert_has(text, "Picardy");
	free(text);
	assert_int_equal(corrected_mails(FRANCE, "The turn of France", NULL), 1);
	/* with the corrected one just above, two turn reports in all (each
	 * merged with the mail sent at the same moment) */
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The turn of France", NULL), 2);
	/* Burgundy's turn was not played again: its report is not resent */
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 The turn of Burgundy", NULL), 1);
	char *all = subjects(f, BURGUNDY);
	assert_has_not(all, "1450 \u00b7 Corrected: The turn of Burgundy");
	free(all);

	/* the battle result corrected: Burgundy won. The mails made again that
	 * differ say so; the rest are not sent twice */
	act(f, ENGINE_ACT_BATTLE_RESULT, "BATTLE AT Calais\nWINNER burgundy\n", 0, NOW + 7 * HOUR);
	assert_int_equal(corrected_mails(BURGUNDY, "The turn of Burgundy", &text), 1);
	/* (merged after France's request, new, sent at the same moment) */
	assert_has(text, "Corrected: \"The turn of Burgundy\" below replaces the one sent on Fri "
			 "15 Jan 2027 11:00 CET: the organiser corrected the result of the battle "
			 "at Calais.\nWhat changed:\n");
	assert_has(text, "  was: ");
	free(text);
	/* a mail corrected twice compares texts, not the first correction's
	 * own preface: its lines are never listed as changed */
	size_t twice = 0;
	for (size_t i = 0; i < n_inbox; i++) {
		assert_null(strstr(inbox[i].text, "was: Corrected:"));
		assert_null(strstr(inbox[i].text, "was: What changed:"));
		assert_null(strstr(inbox[i].text, "was: was:"));
		assert_null(strstr(inbox[i].text, "was: now:"));
		twice += strstr(inbox[i].text, "Corrected: ") != NULL &&
			 strstr(inbox[i].subject, "Corrected: Recruitment") != NULL;
	}
	assert_true(twice >= 2); /* Recruitment was corrected more than once */
}

/* Issue 13: the reply to a player's mail and the year's mails that mail
 * caused for him leave as one mail: the acknowledgement first (a reply to
 * his mail), the year's mails after it under their subjects. An undo then
 * finds those parts: played again the same, they are not sent twice. */
static void test_ack_leads_the_year_mail(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\nALLOW PASSAGE burgundy\nDENY SUPPLY burgundy\n",
		    NOW - HOUR));
	start(f, NOW);
	size_t before = n_inbox;
	char *reply = orders(f, "burgundy", "NO MOVE\n", NOW + HOUR);
	size_t to_burgundy = 0, at = 0;
	for (size_t i = before; i < n_inbox; i++)
		if (strcmp(inbox[i].to, BURGUNDY) == 0) {
			to_burgundy++;
			at = i;
		}
	assert_int_equal(to_burgundy, 1); /* one mail at that moment */
	assert_has(inbox[at].subject, "Re: orders");
	const char *text = inbox[at].text;
	const char *rule = strstr(text, MERGED_RULE "\nThe turn of Burgundy\n");
	assert_non_null(rule);
	/* the acknowledgement leads, the report follows under its heading */
	const char *ack = strstr(text, "Your current orders");
	assert_non_null(ack);
	assert_true(ack < rule);
	assert_has(rule, "The turn of Burgundy\n\n");
	assert_true(strncmp(text, MERGED_RULE, strlen(MERGED_RULE)) != 0);
	/* what the engine returns as the reply is that whole mail */
	assert_has(reply, "The turn of Burgundy");
	free(reply);
	/* France, who sent nothing, gets the report with his turn */
	char *fr = NULL;
	assert_true(mails(f, FRANCE, "1450 \u00b7 The turn of Burgundy", &fr) >= 1);
	assert_has_not(fr, "Your current orders");
	free(fr);
	/* the reply is threaded to the player's mail */
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_matching(f->store, 0, INT64_MAX, "<ack.", &items, &n, NULL),
			 STORE_OK);
	bool threaded = false;
	for (size_t i = 0; i < n; i++)
		if (strstr(items[i].recipients, BURGUNDY) &&
		    strstr(items[i].raw, "In-Reply-To: <m2@example.org>"))
			threaded = true;
	store_outbox_items_free(items, n);
	assert_true(threaded);

	/* undone and played again the same: the parts of that mail are found
	 * in it and, unchanged, not sent twice (nor marked corrected) */
	assert_has(ack, MERGED_RULE "\nRecruitment\n");
	act(f, ENGINE_ACT_UNDO, NULL, 0, NOW + 2 * HOUR);
	act(f, ENGINE_ACT_RESUME, NULL, 0, NOW + 3 * HOUR);
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 The turn of Burgundy", NULL), 1);
	assert_int_equal(mails(f, BURGUNDY, "1450 \u00b7 Recruitment", NULL), 1);
	assert_int_equal(corrected_mails(BURGUNDY, "Recruitment", NULL), 0);
	assert_int_equal(corrected_mails(BURGUNDY, "The turn of Burgundy", NULL), 0);
}

/* France loses at Calais, its army's province; its only other province,
 * Paris, is the one Burgundy entered from. The army still leaves the lost
 * province (to Paris, the only friendly one): the turn report says where it
 * went and the standings show it there, not left in Calais with the enemy. */
static void test_retreat_with_only_the_forbidden_province(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\nIF INVADED ANY BATTLE\nALLOW PASSAGE burgundy\n"
		    "DENY SUPPLY burgundy\n", NOW - 2 * HOUR));
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - HOUR));
	start(f, NOW);
	act(f, ENGINE_ACT_BATTLE_RESULT, "BATTLE AT Calais\nWINNER burgundy\n", 0, NOW + 2 * HOUR);
	struct campaign *c = campaign(f);
	assert_int_equal(c->provinces[3].owner, 0); /* Calais passed to Burgundy */
	assert_int_equal(c->players[0].location, 3);
	assert_int_equal(c->players[1].location, 1); /* France's army in Paris */
	campaign_free(c);
	char *text = NULL;
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The turn of Burgundy", &text), 1);
	/* the retreat and the march that carried it out are one line; the
	 * battle says who decided it and the prestige it gave, before its
	 * consequences (issue 13: each thing once) */
	assert_has(text, "  France retreats from Calais to Paris (1 stage).\n");
	assert_has_not(text, "France moves from Calais");
	assert_has(text, "  Burgundy wins the battle at Calais against France (demoralised), as "
			 "the organiser decided: Burgundy gains ");
	assert_true(strstr(text, "  Burgundy wins the battle at Calais") <
		    strstr(text, "  France retreats from Calais"));
	assert_has_not(text, "was decided by");
	assert_has_not(text, "; award ");
	assert_has_not(text, "\n  Burgundy gains ");
	assert_has(text, "  France: field army of ");
	assert_has_not(text, "(s)");
	assert_has_not(text, " in Calais, 1 province");
	free(text);
	/* the dice that drew the sequence of play are not shown in any mail:
	 * their labels are internal and the order has its own mail */
	size_t sequence_mails = 0;
	for (size_t i = 0; i < n_inbox; i++) {
		assert_null(strstr(inbox[i].text, "sequence of play step"));
		sequence_mails += strstr(inbox[i].subject, "The sequence of play") != NULL ||
				  merged_into(inbox[i].text, "The sequence of play");
	}
	assert_true(sequence_mails > 0);
}

/* Issue 13: what a run opened and closed is not asked for. France's NO
 * MOVE is in before the start, so when Burgundy's comes, France's turn is
 * opened and played in the same run; the recruitment phase that follows,
 * with nothing to wait for (empty reserves), ends in that run too, and
 * 1451 begins with France's turn. Each mail of that moment is led by what
 * is still open, and the parts for the turn and the recruitment that are
 * over say so instead of asking. */
static void test_steps_over_in_the_same_run(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\n", NOW - HOUR));
	start(f, NOW);
	size_t before = n_inbox;
	free(orders(f, "burgundy", "NO MOVE\n", NOW + HOUR));
	const struct received *fr = NULL, *bu = NULL;
	size_t to_france = 0, to_burgundy = 0;
	for (size_t i = before; i < n_inbox; i++) {
		/* Burgundy's acknowledgement carries the year's parts for him */
		if (strcmp(inbox[i].to, FRANCE) == 0) {
			fr = &inbox[i];
			to_france++;
		} else if (strcmp(inbox[i].to, BURGUNDY) == 0) {
			bu = &inbox[i];
			to_burgundy++;
		}
	}
	assert_int_equal(to_france, 1);
	assert_int_equal(to_burgundy, 1);

	/* France: led by the turn that is open, 1451's, which alone asks */
	assert_string_equal(fr->subject, "[TestMarches] 1451 \u00b7 Your turn");
	const char *rule = strstr(fr->text, MERGED_RULE "\n");
	assert_non_null(rule);
	const char *ask = strstr(fr->text, "Send your movement option before ");
	assert_true(ask && ask < rule);
	assert_null(strstr(ask + 1, "Send your movement option"));
	/* France's turn of 1450, opened and played in this run, is told once:
	 * by its report, not again as a turn that says its report is here */
	assert_false(merged_into(fr->text, "Your turn (1450)"));
	assert_has_not(fr->text, "your turn, France\n\nIt is your turn (2nd of 2");
	assert_has_not(fr->text, "The turn report is in this mail.");
	assert_has_not(fr->text, "will follow");
	assert_true(merged_into(fr->text, "The turn of France (1450)"));
	assert_has(strstr(fr->text, "\nThe turn of France (1450)\n"), "  France orders: NO MOVE\n");
	/* the recruitment that is over: news, nothing asked */
	const char *rec = strstr(fr->text, "\nRecruitment (1450)\n");
	assert_non_null(rec);
	assert_has(rec, "The campaign phase is over, and so is the recruitment phase: no order "
			"was awaited any more, and the orders in were carried out at once.");
	assert_has_not(fr->text, "If you recruit nothing, send NO MOVE");
	assert_has_not(fr->text, "DISMISS <n> <element>");
	assert_has_not(fr->text, "RECRUIT <n>");
	/* 1451's turn is open: the "Your turn" that leads says so, once; the
	 * sequence gives her place without saying it again */
	assert_has(fr->text, "You play 1st of 2 in 1451.\n");
	assert_has_not(fr->text, "Your turn begins now.");
	assert_has(fr->text, "It is your turn (1st of 2 in the sequence of play).\n");
	assert_int_equal(count_of(fr->text, "It is your turn"), 1);

	/* Burgundy: nothing open for him, so no part asks and none that is
	 * over leads: the acknowledgement of his mail does, the diary and
	 * the recruitment follow under their headings */
	assert_non_null(strstr(bu->subject, "[TestMarches] 1450 \u00b7 Re: "));
	assert_true(merged_into(bu->text, "The year's diary"));
	assert_true(merged_into(bu->text, "Recruitment"));
	assert_has(bu->text, "The campaign phase is over, and so is the recruitment phase");
	assert_has_not(bu->text, "If you recruit nothing, send NO MOVE");
	assert_has_not(bu->text, "DISMISS <n> <element>");
	assert_has_not(bu->text, "Send your movement option");
	assert_has_not(bu->text, "Your turn begins now.");
	/* the diary's dice read as what they decided: the one draw among two
	 * fills the second place (1450: Burgundy, France; 1451: France,
	 * Burgundy) */
	assert_has(bu->text, "  #1 (campaign) the sequence of play, place 2 of 2 (drawn among "
			     "2), try 1, die 1: ");
	assert_has(bu->text, "  #2 (recruitment) the sequence of play of 1451, place 2 of 2 "
			     "(drawn among 2), try 1, die 1: ");
}

/* How many times `needle` is in `text`. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle))
		n++;
	return n;
}

/* The last mail `to` received after inbox[from]; NULL: none. */
static const struct received *last_to(const char *to, size_t from)
{
	const struct received *r = NULL;
	for (size_t i = from; i < n_inbox; i++)
		if (strcmp(inbox[i].to, to) == 0)
			r = &inbox[i];
	return r;
}

/* Club findings 11, 13 and 24 (issue 13): a mail made of several parts
 * says each thing once, what the reader must act on leads, no part says
 * that another one will follow when it is in the same mail, places read
 * "1st of 2" everywhere and an empty year so far is not announced. At the
 * start Burgundy, who plays first, is told his turn and the sequence of
 * play in one mail; when his NO MOVE is carried out, France is told
 * Burgundy's turn and her own in one mail. */
static void test_merged_mail_says_each_thing_once(void **state)
{
	struct test_engine *f = *state;
	size_t before = n_inbox;
	start(f, NOW);
	const struct received *bu = last_to(BURGUNDY, before);
	assert_non_null(bu);
	assert_int_equal(count_of(bu->text, MERGED_RULE "\n"), 2); /* 3 parts */
	assert_string_equal(bu->subject, "[TestMarches] 1450 \u00b7 Your turn");
	assert_true(merged_into(bu->text, "The sequence of play"));
	assert_true(strstr(bu->text, "Send your movement option before ") <
		    strstr(bu->text, MERGED_RULE));
	assert_int_equal(count_of(bu->text, "Where everyone stands"), 1);
	assert_int_equal(count_of(bu->text, "  France: field army of "), 1);
	assert_has_not(bu->text, "What has happened this year so far:");
	assert_has(bu->text, "It is your turn (1st of 2 in the sequence of play).\n");
	/* his turn said once, by the part that leads (club finding: three
	 * times, with the organiser's note and the sequence of play) */
	assert_has(bu->text, "You play 1st of 2 in 1450.\n");
	assert_has_not(bu->text, "Your turn begins now.");
	assert_int_equal(count_of(bu->text, "It is your turn"), 1);
	/* the organiser's note says the start once, as a sentence */
	assert_true(merged_into(bu->text, "The organiser: the campaign starts"));
	/* in the order things happened: the start, then the sequence it drew */
	assert_true(strstr(bu->text, MERGED_RULE "\nThe organiser: the campaign starts\n") <
		    strstr(bu->text, MERGED_RULE "\nThe sequence of play\n"));
	assert_int_equal(count_of(bu->text, "The campaign has started.\n"), 1);
	assert_has_not(bu->text, "The campaign starts.");
	assert_has_not(bu->text, "\nThe campaign has started\n");

	/* France's password sent again, twice: her own mail, no news of the
	 * year for anyone (club finding 15) */
	act(f, ENGINE_ACT_INVITE, "france", 0, NOW + HOUR / 2);
	act(f, ENGINE_ACT_INVITE, "france", 0, NOW + HOUR / 2);
	before = n_inbox;
	free(orders(f, "burgundy", "NO MOVE\n", NOW + HOUR));
	const struct received *fr = last_to(FRANCE, before);
	assert_non_null(fr);
	assert_string_equal(fr->subject, "[TestMarches] 1450 \u00b7 Your turn");
	const char *rule = strstr(fr->text, MERGED_RULE "\n");
	const char *ask = strstr(fr->text, "Send your movement option before ");
	assert_true(ask && rule && ask < rule);
	assert_true(merged_into(fr->text, "The turn of Burgundy"));
	assert_has(fr->text, "It is your turn (2nd of 2 in the sequence of play).\n");
	/* Burgundy's turn is told by its report, not again in the year so
	 * far, which tells only what came before it */
	assert_int_equal(count_of(fr->text, "  Burgundy orders: NO MOVE\n"), 1);
	assert_int_equal(count_of(fr->text, "  Burgundy does not move this year.\n"), 1);
	assert_true(strstr(fr->text, "  Burgundy orders: NO MOVE\n") > rule);
	assert_has(fr->text, "What happened this year before the turns told in this mail:\n"
			     "  The organiser started the campaign.\n");
	assert_has_not(fr->text, "What has happened this year so far:");
	assert_has_not(fr->text, "invitations");
	assert_has_not(fr->text, "  The organiser sent");
	/* the standings once, as they stand now */
	assert_int_equal(count_of(fr->text, "Where everyone stands"), 1);
	assert_int_equal(count_of(fr->text, "  France: field army of "), 1);
	assert_has_not(fr->text, "will follow");
}

/* Issue 13, item 4: the year so far of a turn leaves the latest turn to
 * its report below it, so the standings that turn produced are shown
 * after the report, not above it under the year so far; an organiser's
 * note of several lines stays indented inside the account. */
static void test_standings_after_the_turns_that_made_them(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	act(f, ENGINE_ACT_COMMENT, "Umpire's notes:\nno rain in Flanders\nthe bridges hold\n", 0,
	    NOW + HOUR / 2);
	size_t before = n_inbox;
	free(orders(f, "burgundy", "NO MOVE\n", NOW + HOUR));
	const struct received *fr = last_to(FRANCE, before);
	assert_non_null(fr);
	assert_true(merged_into(fr->text, "The turn of Burgundy"));
	assert_has(fr->text, "What happened this year before the turns told in this mail:\n"
			     "  The organiser started the campaign.\n"
			     "  The organiser's note: Umpire's notes:\n"
			     "    no rain in Flanders\n"
			     "    the bridges hold\n\n");
	assert_int_equal(count_of(fr->text, "Where everyone stands"), 1);
	const char *report = strstr(fr->text, "  Burgundy does not move this year.\n");
	const char *stands = strstr(fr->text, "Where everyone stands now:\n");
	assert_non_null(report);
	assert_non_null(stands);
	assert_true(report < stands);
	assert_has(stands, "  France: field army of ");
	assert_has_not(fr->text, "\nWhere everyone stands:\n");
}

/* The year's last step undone and played again: the diary made again finds
 * the one sent before, like every year mail; it is not sent a second time
 * unmarked (the same text is not sent; a changed one says Corrected:). */
static void test_undo_and_the_diary(void **state)
{
	struct test_engine *f = *state;
	battle_at_calais(f, "NO MOVE");
	free(orders(f, "burgundy", "NO MOVE\n", NOW + 3 * HOUR));
	free(orders(f, "france", "NO MOVE\n", NOW + 3 * HOUR));
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The year's diary", NULL), 1);
	act(f, ENGINE_ACT_UNDO, NULL, 0, NOW + 4 * HOUR);
	act(f, ENGINE_ACT_RESUME, NULL, 0, NOW + 5 * HOUR);
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1451);
	campaign_free(c);
	const char *const to[] = {FRANCE, BURGUNDY};
	for (size_t k = 0; k < 2; k++) {
		/* the diary leads its mail or is merged into the one sent at
		 * the same moment; a corrected one says "Corrected:" after the
		 * year */
		size_t all = mails(f, to[k], "1450 \u00b7 The year's diary", NULL);
		char *text = NULL;
		size_t corrected = corrected_mails(to[k], "The year's diary", &text);
		assert_int_equal(all - corrected, 1);
		if (corrected) {
			assert_has(text, " replaces the one sent on Fri 15 Jan 2027 12:00 CET");
			assert_has(text, ": the organiser undid the recruitment and it was played "
					 "again.\n");
		}
		free(text);
	}
}

/* Issue 13 (club findings #14, #16, #19). A battle whose two reports differ:
 * the year's diary tells the dispute, the organiser's decision and the note
 * given with it, in that order, under the battle's turn and before the
 * battle; it says what each army lost and which routers came back. The year
 * undone after its end: the note tells the player whose "Your turn" of the
 * next year was sent that it no longer holds. */
static void test_dispute_losses_and_void_turn(void **state)
{
	struct test_engine *f = *state;
	free(orders(f, "france", "NO MOVE\nIF INVADED ANY BATTLE\nALLOW PASSAGE burgundy\n"
				 "DENY SUPPLY burgundy\n", NOW - 2 * HOUR));
	free(orders(f, "burgundy", "INVADE Calais VIA Paris\n", NOW - HOUR));
	start(f, NOW);
	free(orders(f, "burgundy", "BATTLE AT Calais\nWINNER burgundy\n", NOW + HOUR));
	free(orders(f, "france", "BATTLE AT Calais\nWINNER france\n", NOW + HOUR));
	act(f, ENGINE_ACT_BATTLE_RESULT,
	    "BATTLE AT Calais\nWINNER france\nDESTROYED burgundy 4 Bw(O)\nFLED burgundy 2 Kn(S)\n",
	    0, NOW + 2 * HOUR);
	act(f, ENGINE_ACT_COMMENT, "Decided on the umpire's notes.", 0, NOW + 2 * HOUR);
	free(orders(f, "burgundy", "NO MOVE\n", NOW + 3 * HOUR));
	free(orders(f, "france", "NO MOVE\n", NOW + 3 * HOUR));
	char *diary = NULL;
	assert_int_equal(mails(f, FRANCE, "1450 \u00b7 The year's diary", &diary), 1);
	/* (in one of their phrasings) */
	const char *dispute = strstr(diary, "(the two reports differ in: winner)");
	const char *decision = strstr(diary, "The organiser decided the result of the battle at "
					     "Calais: the day went to France.");
	if (!decision)
		decision = strstr(diary, "The organiser ruled on the battle at Calais: victory to "
					 "France.");
	if (!decision)
		decision = strstr(diary, "The organiser settled the battle at Calais in favour of "
					 "France.");
	const char *note = strstr(diary, "[The organiser: Decided on the umpire's notes.]");
	const char *second = strstr(diary, "\n2. France");
	assert_non_null(dispute);
	assert_non_null(decision);
	assert_non_null(note);
	assert_non_null(second);
	assert_true(dispute < decision && decision < note && note < second);
	/* the battle itself comes after the decision and its note */
	const char *battle = strstr(note, "Calais");
	assert_non_null(battle);
	assert_true(battle < second);
	/* the losses: 4 Bw(O) destroyed and 2 Kn(S) fled are 6 routers, one
	 * in six comes back to the loser: 1 Bw(O); 3 Bw(O) and 2 Kn(S), 39
	 * AP, go to the reserve */
	assert_has(diary, "What the armies lost in 1450");
	assert_has(diary, "\n  Burgundy: 279 AP in all\n"); /* supply, forced passage too */
	assert_has(diary, "\n    39 AP (the battle at Calais): 2 Kn(S), 3 Bw(O). Of 6 elements "
			  "routed, 1 came back to the army: 1 element of Bw(O).\n");
	/* France lost nothing: not named in that section */
	char *losses = xstrdup(strstr(diary, "What the armies lost in 1450"));
	char *end = strstr(losses, "\n\n");
	assert_non_null(end);
	*end = '\0';
	assert_has_not(losses, "France");
	free(losses);

	/* Burgundy plays first in 1451 and was sent "Your turn" */
	assert_has(diary, "The order of play for 1451, rolled as 1450 ended (with the dice of "
			  "1450), is in \"The sequence of play\" below.\n");
	free(diary);
	const char *first = BURGUNDY, *other = FRANCE;
	act(f, ENGINE_ACT_UNDO, NULL, 0, NOW + 4 * HOUR);
	char *text = NULL;
	assert_int_equal(mails(f, first, "1450 \u00b7 The organiser: a step taken back", &text), 1);
	assert_has(text, "What you were sent about the steps taken back no longer holds:\n");
	/* (the reply to Burgundy's last recruitment mail carried it) */
	assert_has(text, "  \"1450 \u00b7 Re: orders\" (with \"Your turn (1451)\", \"The year's "
			 "diary\", \"The sequence of play (1451)\"), sent Fri 15 Jan 2027 12:00 CET");
	assert_has(text, ": the turn it gave you is void, and it is not your turn until a new "
			 "\"Your turn\" mail says so\n");
	assert_has(text, "marked \"Corrected:\" (a new \"Your turn\" among them)");
	free(text);
	assert_int_equal(mails(f, other, "1450 \u00b7 The organiser: a step taken back", &text), 1);
	assert_has(text, "  \"1450 \u00b7 The year's diary\"");
	assert_has_not(text, "Your turn");
	assert_has_not(text, "the turn it gave you is void");
	assert_has_not(text, "(a new \"Your turn\" among them)");
	free(text);
}

/* ---------------------------------------------------------------- item 9 */

/* IF INVADED ANY BATTLE, from Paris, where France holds Hainaut four stages
 * away and Namur five: the acknowledgement states the worst cost. */
static void test_standing_order_cost(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "france", "IF INVADED ANY BATTLE\n", NOW);
	assert_has(reply, "-> worst cost: a forced march of 4 stages from Paris (where your army "
			  "stands now) to Hainaut, \xe2\x88\x92" "80 AP (2 extra stages at 40 AP)");
	assert_has(reply, "-> more than 4 stages from Paris (where your army stands now): Namur; "
			  "invaded there, your army cannot come: the city stands a siege");
	assert_has(reply, "-> counted from where your army stands now: the cost changes if it moves");
	free(reply);
	/* one province near: no forced march */
	reply = orders(f, "france", "IF INVADED Calais BATTLE\n", NOW + 60);
	assert_has(reply, "-> at most 1 stage from Paris (where your army stands now): no forced "
			  "march");
	free(reply);
}

/* Club finding 1: a CONTINGENT FOR whose contingent cannot reach the army
 * it is for (Burgundy's in Artois, 3 stages from France's in Paris, and a
 * contingent moves at most 2) is not acknowledged as fine: the ack says it
 * cannot reach, why (the rules' own check, as when it is sent), and what
 * happens instead, under its line of the mail, once (issue 13: the orders
 * that stand are a plain list). */
static void test_contingent_that_cannot_reach(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "france", "CONTINGENT FOR burgundy WITH 1 Cv(O) general, "
			     "2 Kn(F)\n", NOW);
	static const char why[] =
		"-> cannot reach the field army of Burgundy in Artois from Paris, where your army "
		"stands now: contingents cannot forced march: a move of 3 stages exceeds their "
		"limit of 2 (rules 2.3)\n";
	static const char instead[] =
		"-> so if Burgundy calls on you while the armies stand so, no contingent of yours "
		"goes: Burgundy fights without it (the order stays for a later call)\n";
	const char *first = strstr(reply, why);
	assert_non_null(first);
	assert_null(strstr(first + 1, why)); /* said once */
	const char *current = strstr(reply, "Your current orders");
	assert_non_null(current);
	assert_true(first < current); /* under the line of the mail */
	assert_has(reply, instead);
	assert_has(current, "  CONTINGENT FOR burgundy WITH 1 Cv(O) general, 2 Kn(F)\n");
	assert_has_not(current, "->");
	assert_has(reply, "-> contingent of 43 AP (at most 80) with 1 general\n");
	free(reply);
}

/* The same order where Burgundy's army is one stage away: no such warning. */
static void test_contingent_that_can_reach(void **state)
{
	struct test_engine *f = *state;
	char *reply = orders(f, "france", "CONTINGENT FOR burgundy WITH 1 Cv(O) general, "
			     "2 Kn(F)\n", NOW);
	assert_has(reply, "-> contingent of 43 AP (at most 80) with 1 general\n");
	assert_has_not(reply, "cannot reach");
	assert_has_not(reply, "no contingent of yours goes");
	free(reply);
}

int main(void)
{
#define T(f, s) cmocka_unit_test_setup_teardown(f, s, teardown)
	const struct CMUnitTest tests[] = {
		T(test_early_order_keeps_its_destination, setup),
		T(test_steps_over_in_the_same_run, setup),
		T(test_early_order_that_cannot_be_carried_out, setup),
		T(test_refused_order_is_mailed, setup),
		T(test_order_for_a_turn_that_is_over, setup),
		T(test_order_carried_out_by_its_own_mail, setup),
		T(test_refused_report_is_an_error, setup),
		T(test_report_with_one_line_in_error, setup),
		T(test_costs_after_the_mail, setup),
		T(test_report_names_the_elements_at_the_battle, setup_no_bows),
		T(test_permission_answer_as_given, setup),
		T(test_recruitment_order_out_of_its_phase, setup),
		T(test_recruitment_with_an_empty_reserve, setup),
		T(test_no_move_in_the_recruitment, setup),
		T(test_battle_mail_tells_the_turn_so_far, setup),
		T(test_reminders, setup_reminders),
		T(test_undo_and_corrections, setup),
		T(test_standing_order_cost, setup_far),
		T(test_retreat_with_only_the_forbidden_province, setup),
		T(test_undo_and_the_diary, setup),
		T(test_merged_mail_says_each_thing_once, setup),
		T(test_standings_after_the_turns_that_made_them, setup),
		T(test_dispute_losses_and_void_turn, setup),
		T(test_ack_leads_the_year_mail, setup),
		T(test_contingent_that_cannot_reach, setup_apart),
		T(test_contingent_that_can_reach, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
