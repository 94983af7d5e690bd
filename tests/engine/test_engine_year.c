/* The campaign year through the engine on a real SQLite file: starting,
 * orders and battle results by mail, organiser orders by mail and by
 * command, undo, corrections, the clock, and the dice revealed at the end. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sodium.h>

#include "lib/campaign_fixture.h"
#include "model/dice.h"
#include "engine/engine.h"
#include "lib/engine_fixture.h"
#include "lib/maildir_fixture.h"
#include "mail/mail_read.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/timefmt.h"
#include "base/util.h"
#include "dbm/rules.h"
#include "dbm/year.h"

#define NOW 1800000000LL
#define HOUR 3600LL
#define ADDRESS TEST_ADDRESS
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define SAVOY_PW "SAV0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
#define SEED "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
/* With three players SEED gives the sequence burgundy, france, savoy; this
 * one savoy, france, burgundy. */
#define SAVOY_FIRST_SEED "500102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

/* A third player for allies: Savoy in Flanders (neutral in the fixture),
 * 1 general at 25 AP and 20 Kn(F) at 9 AP. */
static void add_savoy(struct campaign *c)
{
	struct player *p = campaign_add_player(c);
	p->key = xstrdup("savoy");
	p->nation = xstrdup("Savoy");
	p->name = xstrdup("Amedee");
	p->email = xstrdup("amedee@example.org");
	p->line = 90;
	static const struct {
		const char *label, *code;
		int cost;
		bool general;
		int count;
	} types[] = {{"Cv(O) general", "Cv", HALF_AP(25), true, 2}, {"Kn(F)", "Kn", HALF_AP(9), false, 20}};
	for (size_t i = 0; i < 2; i++) {
		struct element_type *t = army_list_add(&p->list);
		t->label = xstrdup(types[i].label);
		strcpy(t->code, types[i].code);
		t->grade = i ? 'F' : 'O';
		t->regular = true;
		t->cost_half_ap = types[i].cost;
		t->list_min = types[i].general ? 1 : 0;
		t->list_max = types[i].count + 10;
		t->general = types[i].general;
		t->line = 91 + (int)i;
	}
	player_alloc_troops(p);
	p->field.count[0] = 2;
	p->field.count[1] = 20;
	c->provinces[2].home_of = c->provinces[2].owner = (int)c->player_count - 1;
	p->location = 2;
}

static int setup_in(void **state, const char *timezone)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct campaign *c = fixture_campaign();
	bool three = timezone && strcmp(timezone, "three players") == 0;
	if (three) {
		add_savoy(c);
		timezone = NULL;
	}
	if (timezone) {
		free(c->timezone);
		c->timezone = xstrdup(timezone);
	}
	static const char *const two[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					  STORE_ORGANISER, ORGANISER_PW, NULL};
	static const char *const with_savoy[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
						 "savoy", SAVOY_PW, STORE_ORGANISER, ORGANISER_PW,
						 NULL};
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "year", c, three ? with_savoy : two, &cfg);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_in(state, NULL);
}

static int setup_paris(void **state)
{
	return setup_in(state, "Europe/Paris");
}

static int setup_three(void **state)
{
	return setup_in(state, "three players");
}

/* A mail from `from` with `body`, processed at `now`. Returns the reply. */
static char *deliver(struct test_engine *f, const char *from, const char *body, int64_t now)
{
	f->uid++;
	char msgid[32];
	snprintf(msgid, sizeof msgid, "m%u@example.org", f->uid);
	char *raw = test_mail(&(struct test_mail){.from = from, .msgid = msgid, .body = body});
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	char *reply = out.reply ? xstrdup(out.reply) : NULL;
	engine_outcome_free(&out);
	free(raw);
	return reply;
}

static void orders(struct test_engine *f, const char *player, const char *pw, const char *text,
		   int64_t now)
{
	char *from = xasprintf("%s@example.org", strcmp(player, "burgundy") == 0 ? "philippe"
						 : strcmp(player, "savoy") == 0   ? "amedee"
										  : "charles");
	char *body = xasprintf("PLAYER %s %s\n%s", player, pw, text);
	free(deliver(f, from, body, now));
	free(body);
	free(from);
}

/* Whether `text` holds, merged after its first part (engine_year_mail.c),
 * the mail whose Subject ends in `subject`'s last part ("The sequence of
 * play" of "[Tag] 1450 · The sequence of play"): a rule, then that line. */
static bool merged_into(const char *text, const char *subject)
{
	static const char rule[] = "------------------------------------------------------------"
				   "------------\n";
	const char *dot = strstr(subject, "\u00b7 ");
	const char *what = dot ? dot + strlen("\u00b7 ") : subject;
	static const char rule_crlf[] = "----------------------------------------------------------"
					"--------------\r\n"; /* in a raw mail */
	for (const char *at = text ? text : ""; (at = strstr(at, rule)); at++)
		if (strncmp(at + strlen(rule), what, strlen(what)) == 0)
			return true;
	for (const char *at = text ? text : ""; (at = strstr(at, rule_crlf)); at++)
		if (strncmp(at + strlen(rule_crlf), what, strlen(what)) == 0)
			return true;
	return false;
}

/* How many queued mails hold the mail `subject` (NULL: all mails): under
 * that Subject, or merged into another one. */
static size_t outbox_with(struct test_engine *f, const char *subject)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0, hits = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000 * HOUR, 1000, &items, &n, NULL),
			 STORE_OK);
	for (size_t i = 0; i < n; i++) {
		struct mail_info info;
		assert_int_equal(mail_read(items[i].raw, items[i].raw_len, NULL, &info), 0);
		bool hits_subject = !subject || (info.subject && strncmp(info.subject, subject,
									 strlen(subject)) == 0);
		hits += hits_subject;
		mail_info_free(&info);
		char *text = test_searchable(items[i].raw, items[i].raw_len);
		if (subject && !hits_subject && merged_into(text, subject))
			hits++; /* merged into the mail sent to the same person at once */
		free(text);
	}
	store_outbox_items_free(items, n);
	return hits;
}

/* The raw text of the first queued mail whose Subject contains `subject`. */
static char *outbox_raw_with(struct test_engine *f, const char *subject)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	char *found = NULL;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000 * HOUR, 1000, &items, &n, NULL),
			 STORE_OK);
	char *line = xasprintf("Subject: %s", subject);
	for (size_t i = 0; i < n && !found; i++) {
		char *text = test_searchable(items[i].raw, items[i].raw_len);
		if (strstr(text, line))
			found = text;
		else
			free(text);
	}
	free(line);
	store_outbox_items_free(items, n);
	assert_non_null(found);
	return found;
}

static size_t outbox_containing(struct test_engine *f, const char *text);

static json_t *year_state(struct test_engine *f)
{
	char *text = NULL;
	assert_int_equal(store_year_state_get(f->store, &text, NULL), STORE_OK);
	assert_non_null(text);
	json_t *doc = json_loads(text, 0, NULL);
	free(text);
	return doc;
}

static const char *step_of(json_t *doc)
{
	return json_string_value(json_object_get(doc, "step"));
}

static struct campaign *campaign(struct test_engine *f)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, NULL), STORE_OK);
	return c;
}

static int action(struct test_engine *f, enum engine_action a, const char *arg, int64_t now)
{
	struct engine_action_request req = {.action = a, .arg = arg};
	char *report = NULL, *err = NULL;
	int rc = engine_action(f->engine, &req, now, &report, &err);
	if (rc < 0)
		fail_msg("engine_action: %s", err);
	free(report);
	return rc;
}

static void start(struct test_engine *f)
{
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, SEED, &report, &err), 0);
	free(report);
}

static void test_start(void **state)
{
	struct test_engine *f = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, "not hex", &report, &err), 1);
	assert_non_null(strstr(report, "64 hexadecimal"));
	free(report);
	start(f);
	/* both players and the organiser (who plays nobody) are told */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The sequence of play"), 3);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 Your turn"), 1);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "turn");
	json_decref(st);
	/* the year's seed is derived from the master seed and committed to */
	struct store_dice_year row;
	assert_int_equal(store_dice_year_get(f->store, 1450, &row, NULL), STORE_OK);
	unsigned char master[32], seed[32];
	assert_true(dice_seed_from_hex(SEED, master));
	crypto_auth_hmacsha256(seed, (const unsigned char *)"year|1450", 9, master);
	char hex[65], commitment[65];
	sodium_bin2hex(hex, sizeof hex, seed, sizeof seed);
	assert_string_equal(row.seed_hex, hex);
	dice_commitment(seed, commitment);
	assert_string_equal(row.commitment, commitment);
	assert_false(row.revealed);
	assert_int_equal(row.counter, 1); /* the sequence of two players: one die */
	/* a second start is refused */
	assert_int_equal(engine_start(f->engine, NOW, NULL, &report, &err), 1);
	assert_non_null(strstr(report, "already"));
	free(report);
}

static const char *result = "BATTLE AT Paris\nWINNER france\n"
			    "DEMORALISED burgundy Kn(S) general\nDESTROYED burgundy 2 Kn(S)\n";

/* Orders in advance, a battle reported by both sides by mail, the
 * recruitment, the year's end with the dice revealed and checkable. */
static void test_year_by_mail(void **state)
{
	struct test_engine *f = *state;
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	start(f);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	json_decref(st);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 Battle at Paris"), 3);

	/* a report naming more knights than Burgundy has is refused at once */
	char *body = xasprintf("PLAYER burgundy " BURGUNDY_PW "\nBATTLE AT Paris\n"
			       "WINNER france\nDESTROYED burgundy 40 Kn(S)\n");
	char *reply = deliver(f, "philippe@example.org", body, NOW + HOUR / 2);
	assert_non_null(strstr(reply, "Your battle result was not used"));
	assert_non_null(strstr(reply, "the report is not recorded: send the whole report again"));
	free(reply);
	free(body);
	body = xasprintf("PLAYER burgundy " BURGUNDY_PW "\n%s", result);
	reply = deliver(f, "philippe@example.org", body, NOW + HOUR);
	/* the reply spells out the result as it is recorded */
	assert_non_null(strstr(reply, "Your battle result was recorded as:"));
	assert_non_null(strstr(reply, "WINNER france"));
	assert_non_null(strstr(reply, "DESTROYED burgundy 2 Kn(S)"));
	free(reply);
	free(body);
	body = xasprintf("PLAYER france " FRANCE_PW "\n%s", result);
	free(deliver(f, "charles@example.org", body, NOW + 2 * HOUR));
	free(body);

	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].battle_prestige, 134);
	assert_int_equal(c->players[0].location, 0);
	assert_int_equal(c->phase, PHASE_RECRUITMENT); /* France's NO MOVE was in */
	campaign_free(c);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 Recruitment"), 2);

	/* Burgundy's reserve holds 2 Kn(S) at 12 AP; one province allows 10 AP:
	 * nothing to recruit, which NO MOVE says; the year ends */
	/* (a sequence merged into another mail names no year: counted since) */
	size_t sequences = outbox_with(f, "[TestMarches] 1451 \u00b7 The sequence of play");
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + 3 * HOUR);
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->phase, PHASE_CAMPAIGN);
	campaign_free(c);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The year's diary"), 3);
	assert_int_equal(outbox_with(f, "[TestMarches] 1451 \u00b7 The sequence of play") -
				 sequences,
			 3);

	/* every roll of 1450 checks against the revealed seed */
	struct store_dice_year row;
	assert_int_equal(store_dice_year_get(f->store, 1450, &row, NULL), STORE_OK);
	assert_true(row.revealed);
	unsigned char seed[32];
	assert_true(dice_seed_from_hex(row.seed_hex, seed));
	json_t *events = NULL;
	assert_int_equal(store_events(f->store, 1450, &events, NULL), STORE_OK);
	size_t i, rolls = 0;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		if (strcmp(json_string_value(json_object_get(ev, "kind")), "roll") != 0)
			continue;
		rolls++;
		assert_true(dice_verify(seed, 1450,
					json_string_value(json_object_get(ev, "phase")),
					json_string_value(json_object_get(ev, "purpose")),
					(unsigned long)json_integer_value(json_object_get(ev, "counter")),
					(int)json_integer_value(json_object_get(ev, "value"))));
	}
	assert_int_equal(rolls, row.counter);
	json_decref(events);
	struct store_dice_year next;
	assert_int_equal(store_dice_year_get(f->store, 1451, &next, NULL), STORE_OK);
	assert_false(next.revealed);
}

/* The organiser by mail: EXTEND, COMMENT, PROCESS with the wrong name. */
static void test_organiser_mail(void **state)
{
	struct test_engine *f = *state;
	start(f);
	json_t *st = year_state(f);
	int64_t deadline = json_integer_value(json_object_get(st, "deadline"));
	json_decref(st);
	char *reply = deliver(f, "organiser@example.org",
			      "ORGANISER " ORGANISER_PW "\nEXTEND 12\nCOMMENT A hard winter.\n"
			      "PROCESS recruitment\nFROBNICATE the dice\n",
			      NOW + HOUR);
	assert_non_null(strstr(reply, "> EXTEND 12\nThe deadline is now "));
	/* a line that is no order is answered too, not dropped unsaid */
	assert_non_null(strstr(reply, "> FROBNICATE the dice\nIgnored: not an order"));
	assert_non_null(strstr(reply, "is not the current step"));
	/* each line's outcome once, under the line; what happens next once,
	 * at the end, in words (issue 13, #20) */
	const char *extend = strstr(reply, "> EXTEND 12");
	const char *comment = strstr(reply, "> COMMENT A hard winter.");
	const char *process = strstr(reply, "> PROCESS recruitment");
	const char *next = strstr(reply, "What happens next");
	assert_non_null(extend);
	assert_non_null(comment);
	assert_non_null(process);
	assert_non_null(next);
	assert_true(extend < comment && comment < process && process < next);
	assert_non_null(strstr(comment, "\nThe note is in the year's diary, and every player is "
					"sent it.\n"));
	assert_null(strstr(next + 1, "What happens next"));
	assert_non_null(strstr(next, "It is "));
	assert_non_null(strstr(next, "Deadline: "));
	assert_null(strstr(reply, "Step: "));
	assert_null(strstr(reply, "Still to answer"));
	free(reply);
	st = year_state(f);
	assert_int_equal(json_integer_value(json_object_get(st, "deadline")), deadline + 12 * HOUR);
	json_decref(st);
	json_t *comments = NULL;
	assert_int_equal(store_comments(f->store, 1450, &comments, NULL), STORE_OK);
	assert_int_equal(json_array_size(comments), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(comments, 0), "text")),
			    "A hard winter.");
	json_decref(comments);
	/* every player hears of each action, in one mail for the whole
	 * organiser mail; the organiser gets no copy beside his answer,
	 * which says it (issue 13, item 3) */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The organiser: a new deadline, a note"),
			 2);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The organiser: a note"), 0);
	assert_int_equal(outbox_containing(f, "A note.\r\nA hard winter."), 2);
	/* each detail a sentence with its full stop, no blank line inside */
	assert_int_equal(outbox_containing(f, "A new deadline.\r\nThe deadline is now "), 2);
	assert_int_equal(outbox_containing(f, " CET.\r\n\r\nA note.\r\n"), 2);
}

/* Issue 13: an ORGANISER mail whose actions cause the year's mails (the
 * battle decided: the turn goes on) and a note: each player gets one mail
 * for it, what he must act on first, the organiser's announcement after
 * it under its subject. */
static void test_organiser_mail_one_mail_each(void **state)
{
	struct test_engine *f = *state;
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	start(f);
	int64_t mark = 0;
	assert_int_equal(store_outbox_last_id(f->store, &mark, NULL), STORE_OK);
	char *body = xasprintf("ORGANISER " ORGANISER_PW "\n%sCOMMENT A hard fight.\n", result);
	free(deliver(f, "organiser@example.org", body, NOW + HOUR));
	free(body);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_matching(f->store, mark, INT64_MAX, "@", &items, &n, NULL),
			 STORE_OK);
	static const char *const who[] = {"philippe@example.org", "charles@example.org"};
	for (size_t k = 0; k < 2; k++) {
		size_t got = 0;
		char *text = NULL;
		for (size_t i = 0; i < n; i++) {
			if (!strstr(items[i].recipients, who[k]))
				continue;
			got++;
			free(text);
			text = test_searchable(items[i].raw, items[i].raw_len);
		}
		assert_int_equal(got, 1); /* one mail for the organiser's mail */
		/* the announcement under its subject, after what the battle caused */
		const char *note = strstr(text, "\nThe organiser: ");
		assert_non_null(note);
		assert_non_null(strstr(note, "A hard fight."));
		/* the result's lines as they are, no full stop added, no blank
		 * line doubled */
		assert_non_null(strstr(note, "DESTROYED burgundy 2 Kn(S)\r\n\r\nA note.\r\n"));
		assert_true(merged_into(text, "The organiser: "));
		free(text);
	}
	store_outbox_items_free(items, n);
}

/* Pause, undo (back to before the last step, paused), and a battle result
 * corrected after it was applied. */
static void test_pause_undo_and_correction(void **state)
{
	struct test_engine *f = *state;
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	start(f);
	assert_int_equal(action(f, ENGINE_ACT_PAUSE, NULL, NOW + HOUR), 0);
	assert_int_equal(action(f, ENGINE_ACT_PAUSE, NULL, NOW + HOUR), 1);
	assert_int_equal(action(f, ENGINE_ACT_RESUME, NULL, NOW + 2 * HOUR), 0);
	/* the organiser decides the battle */
	assert_int_equal(action(f, ENGINE_ACT_BATTLE_RESULT, result, NOW + 3 * HOUR), 0);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].battle_prestige, 134);
	campaign_free(c);
	/* then corrects it: Burgundy won, France lost 4 Sp(I) */
	const char *corrected = "BATTLE AT Paris\nWINNER burgundy\nDESTROYED france 4 Sp(I)\n";
	assert_int_equal(action(f, ENGINE_ACT_BATTLE_RESULT, corrected, NOW + 4 * HOUR), 0);
	c = campaign(f);
	assert_int_equal(c->players[1].battle_prestige, 0);
	assert_true(c->players[0].battle_prestige >= 40);
	assert_int_equal(c->provinces[1].owner, 0); /* France lost Paris: out */
	campaign_free(c);
	json_t *events = NULL;
	assert_int_equal(store_events(f->store, 1450, &events, NULL), STORE_OK);
	size_t battles = 0, i;
	json_t *ev;
	json_array_foreach(events, i, ev)
		battles += strcmp(json_string_value(json_object_get(ev, "kind")), "battle") == 0;
	assert_int_equal(battles, 1); /* the first result's consequences are gone */
	json_decref(events);
	/* France was knocked out, so the recruitment came at once and the year
	 * ended: undo goes back one step at a time, pausing the campaign */
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	campaign_free(c);
	assert_int_equal(action(f, ENGINE_ACT_UNDO, NULL, NOW + 5 * HOUR), 0);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "recruitment");
	assert_true(json_is_true(json_object_get(st, "paused")));
	json_decref(st);
	c = campaign(f);
	assert_int_equal(c->year, 1450);
	campaign_free(c);
	assert_int_equal(action(f, ENGINE_ACT_UNDO, NULL, NOW + 5 * HOUR), 0);
	st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	assert_true(json_is_true(json_object_get(st, "paused")));
	json_decref(st);
	c = campaign(f);
	assert_int_equal(c->players[0].battle_prestige, 0);
	assert_int_equal(c->provinces[1].owner, 1);
	campaign_free(c);
}

/* The clock: our downtime moves the deadline; a clock going back fires
 * nothing. */
static void test_clock(void **state)
{
	struct test_engine *f = *state;
	start(f);
	struct engine_tick_info info;
	char *err = NULL;
	assert_int_equal(engine_tick(f->engine, NOW + 60, 600, &info, &err), 0);
	assert_false(info.downtime);
	json_t *st = year_state(f);
	int64_t deadline = json_integer_value(json_object_get(st, "deadline"));
	int turn = (int)json_integer_value(json_object_get(st, "turn"));
	json_decref(st);
	/* the daemon was down across the deadline */
	assert_int_equal(engine_tick(f->engine, deadline + HOUR, 600, &info, &err), 0);
	assert_true(info.downtime);
	assert_true(info.grace_granted);
	st = year_state(f);
	assert_int_equal(json_integer_value(json_object_get(st, "deadline")),
			 deadline + HOUR + 12 * HOUR);
	assert_int_equal(json_integer_value(json_object_get(st, "turn")), turn);
	json_decref(st);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The deadline is moved (our downtime)"), 3);
	/* the clock jumps back past nothing: no deadline fires */
	assert_int_equal(engine_tick(f->engine, deadline + 20 * HOUR, 0, &info, &err), 0);
	st = year_state(f);
	assert_int_equal(json_integer_value(json_object_get(st, "turn")), turn + 1);
	json_decref(st);
	assert_int_equal(engine_tick(f->engine, deadline, 0, &info, &err), 0);
	assert_true(info.clock_backwards);
	st = year_state(f);
	assert_int_equal(json_integer_value(json_object_get(st, "turn")), turn + 1);
	json_decref(st);
}

/* Events of `kind` stored for `year`. */
static size_t events_of(struct test_engine *f, int year, const char *kind)
{
	json_t *events = NULL;
	assert_int_equal(store_events(f->store, year, &events, NULL), STORE_OK);
	size_t i, n = 0;
	json_t *ev;
	json_array_foreach(events, i, ev)
		n += strcmp(json_string_value(json_object_get(ev, "kind")), kind) == 0;
	json_decref(events);
	return n;
}

/* The engine with a publish folder writes the web diary after each turn;
 * one it cannot write does not fail the step. */
static void test_publish_after_turn(void **state)
{
	struct test_engine *f = *state;
	engine_free(f->engine);
	char *site = xasprintf("%s/site", f->dir);
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX",
				    .publish_dir = site};
	f->engine = engine_new(f->store, f->tpl, &cfg);
	start(f);
	char *index = xasprintf("%s/index.html", site);
	assert_int_not_equal(access(index, F_OK), 0); /* no turn has ended yet */
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + HOUR);
	orders(f, "france", FRANCE_PW, "NO MOVE\n", NOW + HOUR);
	assert_int_equal(access(index, F_OK), 0);
	free(index);
	/* a folder that cannot be made: the year goes on all the same */
	engine_free(f->engine);
	char *bad = xasprintf("%s/campaign.db/site", f->dir);
	cfg.publish_dir = bad;
	f->engine = engine_new(f->store, f->tpl, &cfg);
	struct campaign *c = campaign(f);
	int year = c->year;
	campaign_free(c);
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + 2 * HOUR);
	orders(f, "france", FRANCE_PW, "NO MOVE\n", NOW + 2 * HOUR);
	c = campaign(f);
	assert_int_equal(c->year, year + 1);
	campaign_free(c);
	free(bad);
	free(site);
}

/* TRIBUTARY OF, ACCEPT TRIBUTARY, an invasion refused between them, and
 * RENOUNCE at the end of the recruitment phase. */
static void test_tributary_by_mail(void **state)
{
	struct test_engine *f = *state;
	start(f);
	char *reply = deliver(f, "charles@example.org",
			      "PLAYER france " FRANCE_PW "\nTRIBUTARY OF burgundy\n", NOW + HOUR);
	assert_non_null(strstr(reply, "Your request was sent to Burgundy"));
	free(reply);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France asks to become your tributary"), 1);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].overlord, NO_INDEX); /* not before the answer */
	campaign_free(c);
	orders(f, "burgundy", BURGUNDY_PW, "ACCEPT TRIBUTARY france\n", NOW + 2 * HOUR);
	c = campaign(f);
	assert_int_equal(c->players[1].overlord, 0);
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "tributary"), 1);
	/* both players and the organiser are told */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France becomes the tributary of Burgundy"), 3);
	/* the requests were used up: pending orders no longer hold them */
	char *text = NULL;
	assert_int_equal(store_orders_get(f->store, "france", 1450, PHASE_CAMPAIGN, &text, NULL),
			 STORE_OK);
	assert_null(text ? strstr(text, "TRIBUTARY") : NULL);
	free(text);
	/* no attack between overlord and tributary */
	reply = deliver(f, "philippe@example.org",
			"PLAYER burgundy " BURGUNDY_PW "\nINVADE Paris\n", NOW + 3 * HOUR);
	assert_non_null(strstr(reply, "tributary"));
	free(reply);
	/* RENOUNCE waits for the end of the recruitment phase */
	reply = deliver(f, "charles@example.org",
			"PLAYER france " FRANCE_PW "\nRENOUNCE burgundy\nNO MOVE\n", NOW + 4 * HOUR);
	assert_non_null(strstr(reply, "takes effect at the end of this year's recruitment"));
	free(reply);
	c = campaign(f);
	assert_int_equal(c->players[1].overlord, 0);
	campaign_free(c);
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + 5 * HOUR);
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->players[1].overlord, NO_INDEX);
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "tributary_renounced"), 1);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France is no longer the tributary of Burgundy"), 3);
	/* Burgundy's province prestige of 1450 counted France's Paris (2) */
	c = campaign(f);
	assert_int_equal(c->players[0].province_prestige, 6 + 2);
	campaign_free(c);
}

/* Allies by mail (rules 1.4 Move, 2.3): Savoy's ALLY WITH is mailed to
 * France, who accepts with its own ALLY WITH; the alliance is made at
 * once (the year waits for a turn: a step between turns) and everyone is
 * told; END ALLIANCE WITH from France ends it, and everyone is told. */
static void test_alliance_by_mail(void **state)
{
	struct test_engine *f = *state;
	start(f);
	char *reply = deliver(f, "amedee@example.org",
			      "PLAYER savoy " SAVOY_PW "\nALLY WITH france\n", NOW + HOUR);
	assert_non_null(strstr(reply, "Your proposal was sent to France: you become allies when "
				      "it answers ALLY WITH savoy"));
	free(reply);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 Savoy proposes an alliance"), 1);
	char *raw = outbox_raw_with(f, "[TestMarches] 1450 \u00b7 Savoy proposes an alliance");
	assert_non_null(strstr(raw, "  ALLY WITH savoy"));
	free(raw);
	struct campaign *c = campaign(f);
	assert_int_equal(c->alliance_count, 0); /* not before the answer */
	campaign_free(c);
	/* the organiser sees the proposal waiting, in text and in JSON */
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_year_status(f->engine, NOW + HOUR, &report, &err), 0);
	assert_non_null(strstr(report, "Open requests:\n  Savoy proposed an alliance to France, "
				       "who has not answered (ALLY WITH savoy); no deadline.\n"));
	free(report);
	json_t *doc = NULL;
	assert_int_equal(engine_year_status_json(f->engine, NOW + HOUR, &doc, &err), 0);
	json_t *req = json_array_get(json_object_get(doc, "requests"), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "requests")), 1);
	assert_string_equal(json_string_value(json_object_get(req, "kind")), "alliance");
	assert_string_equal(json_string_value(json_object_get(req, "player")), "savoy");
	assert_string_equal(json_string_value(json_object_get(req, "waits_for")), "france");
	assert_false(json_is_true(json_object_get(req, "accepted")));
	json_decref(doc);
	reply = deliver(f, "charles@example.org",
			"PLAYER france " FRANCE_PW "\nALLY WITH savoy\n", NOW + 2 * HOUR);
	/* made at once, and told below: the reply says so, not a step to come */
	assert_non_null(strstr(reply, "Savoy had declared ALLY WITH france too: the alliance is "
				      "made, as told below."));
	assert_null(strstr(reply, "at the next step"));
	assert_non_null(strstr(strstr(reply, "as told below"), "France and Savoy are allies\n"));
	free(reply);
	c = campaign(f);
	assert_int_equal(c->alliance_count, 1);
	assert_true(rules_allied(c, 1, 2));
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "alliance"), 1);
	/* the three players and the organiser */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France and Savoy are allies"), 4);
	/* no proposal mail to Savoy for an answer */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France proposes an alliance"), 0);
	/* made: no longer a request */
	assert_int_equal(engine_year_status(f->engine, NOW + 2 * HOUR, &report, &err), 0);
	assert_null(strstr(report, "alliance"));
	free(report);
	/* the declarations were used up */
	char *text = NULL;
	assert_int_equal(store_orders_get(f->store, "savoy", 1450, PHASE_CAMPAIGN, &text, NULL),
			 STORE_OK);
	assert_null(text ? strstr(text, "ALLY WITH") : NULL);
	free(text);
	/* a second ALLY WITH is refused on receipt */
	reply = deliver(f, "amedee@example.org",
			"PLAYER savoy " SAVOY_PW "\nALLY WITH france\n", NOW + 3 * HOUR);
	assert_non_null(strstr(reply, "France is your ally already"));
	free(reply);
	reply = deliver(f, "charles@example.org",
			"PLAYER france " FRANCE_PW "\nEND ALLIANCE WITH savoy\n", NOW + 4 * HOUR);
	assert_non_null(strstr(reply, "Your alliance with Savoy has ended, as told below."));
	assert_null(strstr(reply, "ends at the next step"));
	assert_non_null(strstr(strstr(reply, "as told below"),
			       "The alliance of France and Savoy has ended\n"));
	free(reply);
	c = campaign(f);
	assert_int_equal(c->alliance_count, 0);
	campaign_free(c);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The alliance of France and Savoy has ended"), 4);
	raw = outbox_raw_with(f, "[TestMarches] 1450 \u00b7 The alliance of France and Savoy has ended");
	assert_non_null(strstr(raw, "France declared END ALLIANCE WITH"));
	free(raw);
}

/* LEAVE CAMPAIGN with CONFIRM: at the next step the provinces are neutral
 * and the prestige lost; with REPLACEMENT the organiser is asked instead. */
static void test_leave_by_mail(void **state)
{
	struct test_engine *f = *state;
	start(f);
	char *reply = deliver(f, "philippe@example.org",
			      "PLAYER burgundy " BURGUNDY_PW
			      "\nLEAVE CAMPAIGN REPLACEMENT jean@example.org\nCONFIRM\n",
			      NOW + HOUR);
	assert_non_null(strstr(reply, "The organiser was asked to hand Burgundy to "
				      "jean@example.org"));
	free(reply);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 Burgundy asks to be replaced"), 1);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[0].status, PLAYER_ACTIVE);
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "leave_requested"), 1);

	/* without CONFIRM nothing happens */
	reply = deliver(f, "charles@example.org", "PLAYER france " FRANCE_PW "\nLEAVE CAMPAIGN\n",
			NOW + 2 * HOUR);
	assert_non_null(strstr(reply, "CONFIRM"));
	free(reply);
	c = campaign(f);
	assert_int_equal(c->players[1].status, PLAYER_ACTIVE);
	campaign_free(c);

	reply = deliver(f, "charles@example.org",
			"PLAYER france " FRANCE_PW "\nLEAVE CAMPAIGN\nCONFIRM\n", NOW + 3 * HOUR);
	assert_non_null(strstr(reply, "You leave the campaign at the next step"));
	free(reply);
	c = campaign(f);
	assert_int_equal(c->players[1].status, PLAYER_LEFT);
	assert_int_equal(c->provinces[1].owner, NO_INDEX);
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "player_left"), 1);
	/* Burgundy, the organiser and France itself */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France has left the campaign"), 3);
	/* France is skipped in the sequence: Burgundy's move ends the year's turns */
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + 4 * HOUR);
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	campaign_free(c);
}

/* RECALL CONTINGENTS: a contingent sent in 1450 is recalled in 1451 and
 * rejoins its army at the end of the turn. */
static void test_recall_by_mail(void **state)
{
	struct test_engine *f = *state;
	orders(f, "france", FRANCE_PW, "SEND CONTINGENT TO burgundy WITH 1 Cv(O) general, 2 Kn(F)\n",
	       NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW - HOUR);
	start(f);
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(player_field_half_ap(&c->players[1]), HALF_AP(480 - 25 - 18));
	campaign_free(c);
	char *reply = deliver(f, "charles@example.org",
			      "PLAYER france " FRANCE_PW "\nRECALL CONTINGENTS\n", NOW + HOUR);
	assert_non_null(strstr(reply, "Your contingents are recalled"));
	free(reply);
	assert_int_equal(events_of(f, 1451, "contingent_recalled"), 1);
	c = campaign(f);
	assert_true(c->contingent_count == 0 || c->contingents[0].returning);
	campaign_free(c);
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + 2 * HOUR);
	orders(f, "france", FRANCE_PW, "NO MOVE\n", NOW + 2 * HOUR);
	c = campaign(f);
	assert_int_equal(c->contingent_count, 0);
	assert_int_equal(player_field_half_ap(&c->players[1]), HALF_AP(480));
	campaign_free(c);
	/* a second recall finds nothing out: refused with a reason */
	c = campaign(f);
	int year = c->year;
	campaign_free(c);
	size_t refused_before = events_of(f, year, "order_refused");
	orders(f, "france", FRANCE_PW, "RECALL CONTINGENTS\n", NOW + 3 * HOUR);
	assert_int_equal(events_of(f, year, "order_refused"), refused_before + 1);
}

/* A player who loses his last province is out: everyone is told, and he
 * is told he keeps his prestige; the year goes on without him. */
static void test_knocked_out(void **state)
{
	struct test_engine *f = *state;
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	start(f);
	assert_int_equal(action(f, ENGINE_ACT_BATTLE_RESULT,
				"BATTLE AT Paris\nWINNER burgundy\nDESTROYED france 4 Sp(I)\n",
				NOW + HOUR),
			 0);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[1].status, PLAYER_OUT);
	assert_int_equal(c->year, 1451);
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "player_out"), 1);
	/* Burgundy, the organiser and France itself */
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France is out of the campaign"), 3);
	/* only Burgundy is in the sequence of 1451 */
	json_t *st = year_state(f);
	assert_int_equal(json_array_size(json_object_get(st, "sequence")), 1);
	json_decref(st);
}

/* LOSSES FIRST through the engine. With this seed France moves first (NO
 * MOVE); Burgundy forces its way through neutral Flanders on a 6 (240 AP):
 * the listed lines go first and whole, 20 Ps(I) (30 AP) and 30 Bw(O)
 * (150 AP), and the 60 AP left by default, 5 Kn(S). The forced march
 * (40 AP) and the failed siege round (40 AP) then find nothing listed left:
 * 4 Kn(S) each (48 AP, rounded against). */
static void test_losses_first_by_mail(void **state)
{
	struct test_engine *f = *state;
	orders(f, "france", FRANCE_PW, "ALLOW PASSAGE burgundy\nALLOW SUPPLY burgundy\nNO MOVE\n",
	       NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW,
	       "LOSSES FIRST Ps(I), Bw(O)\nINVADE Calais VIA Paris, Flanders\n", NOW - HOUR);
	start(f);
	json_t *events = NULL;
	assert_int_equal(store_events(f->store, 1450, &events, NULL), STORE_OK);
	size_t i, losses = 0;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		if (strcmp(json_string_value(json_object_get(ev, "kind")), "loss") != 0)
			continue;
		losses++;
		assert_string_equal(json_string_value(json_object_get(ev, "chosen_by")),
				    "preference");
		if (losses == 1) {
			json_t *el = json_object_get(ev, "elements");
			assert_int_equal(json_integer_value(json_object_get(ev, "lost_half_ap")),
					 HALF_AP(240));
			assert_int_equal(json_integer_value(json_object_get(el, "Ps(I)")), 20);
			assert_int_equal(json_integer_value(json_object_get(el, "Bw(O)")), 30);
			assert_int_equal(json_integer_value(json_object_get(el, "Kn(S)")), 5);
		}
	}
	json_decref(events);
	assert_int_equal(losses, 3);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[0].reserve.count[1], 5 + 4 + 4);
	campaign_free(c);
}

/* Queued mails whose text contains `text`. */
static size_t outbox_containing(struct test_engine *f, const char *text)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0, hits = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000 * HOUR, 1000, &items, &n, NULL),
			 STORE_OK);
	for (size_t i = 0; i < n; i++) {
		char *all = test_searchable(items[i].raw, items[i].raw_len);
		hits += strstr(all, text) != NULL;
		free(all);
	}
	store_outbox_items_free(items, n);
	return hits;
}

/* Deadlines in mails are in the campaign's time zone: NOW is Fri 15 Jan
 * 2027 08:00 UTC, the turn's deadline 72 h later is 09:00 in Paris (CET). */
static void test_time_zone(void **state)
{
	struct test_engine *f = *state;
	const char *tz = getenv("TZ");
	char *tz_before = tz ? xstrdup(tz) : NULL;
	start(f);
	/* the your-turn mail (the announcement of the start merged into it),
	 * and the announcement to the two other recipients (what happens
	 * next: the deadline); never in UTC */
	assert_int_equal(outbox_containing(f, "Mon 18 Jan 2027 09:00 CET"), 1 + 2);
	assert_int_equal(outbox_containing(f, "2027 08:00 UTC"), 0);
	char buf[96];
	assert_string_equal(timefmt_local(1790000000, "Europe/Paris", buf, sizeof buf),
			    "Mon 21 Sep 2026 16:13 CEST");
	assert_string_equal(timefmt_local(1790000000, "America/New_York", buf, sizeof buf),
			    "Mon 21 Sep 2026 10:13 EDT");
	/* unknown or hostile names fall back to UTC */
	assert_string_equal(timefmt_local(1790000000, "Europe/Atlantis", buf, sizeof buf),
			    "Mon 21 Sep 2026 14:13 UTC");
	assert_string_equal(timefmt_local(1790000000, "../../etc/passwd", buf, sizeof buf),
			    "Mon 21 Sep 2026 14:13 UTC");
	assert_string_equal(timefmt_local(1790000000, NULL, buf, sizeof buf),
			    "Mon 21 Sep 2026 14:13 UTC");
	/* the process's TZ is as it was */
	if (tz_before)
		assert_string_equal(getenv("TZ"), tz_before);
	else
		assert_null(getenv("TZ"));
	free(tz_before);
}

/* campaignctl invite --player KEY: a new password for that player only, in a
 * mail to him alone; the others keep theirs and get nothing; the password is
 * in no report. */
static void test_invite_one_player(void **state)
{
	struct test_engine *f = *state;
	start(f);
	size_t before = outbox_with(f, NULL);
	struct engine_action_request req = {.action = ENGINE_ACT_INVITE, .arg = "France"};
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_action(f->engine, &req, NOW + HOUR, &report, &err), 0);
	assert_non_null(report);
	assert_non_null(strstr(report, "invited france <charles@example.org>"));
	assert_null(strstr(report, "assword:"));
	free(report);
	assert_int_equal(outbox_with(f, NULL), before + 1);
	assert_int_equal(outbox_containing(f, "\u00b7 Your invitation and password"), 1);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000 * HOUR, 1000, &items, &n, NULL),
			 STORE_OK);
	for (size_t i = 0; i < n; i++) {
		char *all = test_searchable(items[i].raw, items[i].raw_len);
		if (strstr(all, "\u00b7 Your invitation and password")) {
			assert_non_null(strstr(items[i].raw, "charles@example.org"));
			assert_null(strstr(items[i].raw, "philippe@example.org"));
		}
		free(all);
	}
	store_outbox_items_free(items, n);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The organiser: new invitations"), 0);
	assert_false(store_check_password(f->store, "france", FRANCE_PW, NULL));
	assert_true(store_check_password(f->store, "burgundy", BURGUNDY_PW, NULL));

	/* an unknown player is refused; nothing is queued */
	req.arg = "savoy";
	assert_int_equal(engine_action(f->engine, &req, NOW + HOUR, &report, &err), 1);
	assert_non_null(strstr(report, "no player \"savoy\""));
	free(report);
	assert_int_equal(outbox_with(f, NULL), before + 1);

	/* without --player: everyone; each one's invitation is the news,
	 * with no second mail announcing it */
	assert_int_equal(action(f, ENGINE_ACT_INVITE, NULL, NOW + 2 * HOUR), 0);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 The organiser: new invitations"), 0);
	assert_int_equal(outbox_containing(f, "\u00b7 Your invitation and password"), 1 + 2);
	assert_int_equal(outbox_with(f, NULL), before + 1 + 2);
	assert_false(store_check_password(f->store, "burgundy", BURGUNDY_PW, NULL));
}

/* The base64 body of the attachment named `name` in a queued mail,
 * decoded (NUL-terminated; caller frees), or NULL. */
static unsigned char *attachment(const char *raw, const char *name, size_t *len)
{
	char *marker = xasprintf("filename=\"%s\"", name);
	const char *part = strstr(raw, marker);
	free(marker);
	const char *body = part ? strstr(part, "\r\n\r\n") : NULL;
	const char *end = body ? strstr(body + 4, "\r\n--") : NULL;
	if (!end)
		return NULL;
	size_t cap = (size_t)(end - body) + 1;
	unsigned char *out = xcalloc(cap, 1);
	if (sodium_base642bin(out, cap - 1, body + 4, (size_t)(end - body - 4), "\r\n", len, NULL,
			      sodium_base64_VARIANT_ORIGINAL) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The mail carries map.svg and map.png, the PNG (signature, IHDR) as wide
 * as the SVG says. */
static bool maps_attached(const char *raw)
{
	size_t svg_len = 0, png_len = 0;
	unsigned char *svg = attachment(raw, "map.svg", &svg_len);
	unsigned char *png = attachment(raw, "map.png", &png_len);
	bool ok = svg && png && strstr(raw, "Content-Type: image/png") && png_len > 24 &&
		  memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(png + 12, "IHDR", 4) == 0;
	if (ok) {
		unsigned width = (unsigned)png[16] << 24 | (unsigned)png[17] << 16 |
				 (unsigned)png[18] << 8 | png[19];
		const char *w = strstr((const char *)svg, "<svg ");
		w = w ? strstr(w, "width=\"") : NULL;
		ok = w && width == (unsigned)strtoul(w + 7, NULL, 10);
	}
	free(svg);
	free(png);
	return ok;
}

/* The map goes with the turn's mails and the diary, as PNG and SVG; the
 * diary has an HTML part in which every text is escaped. */
static void test_map_and_html_diary(void **state)
{
	struct test_engine *f = *state;
	start(f);
	assert_int_equal(action(f, ENGINE_ACT_COMMENT, "A <b>hard</b> winter & more", NOW), 0);
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + HOUR);
	orders(f, "france", FRANCE_PW, "NO MOVE\n", NOW + HOUR);
	struct store_outbox_item *items = NULL;
	size_t n = 0, turn = 0, report = 0, diary = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000 * HOUR, 1000, &items, &n, NULL),
			 STORE_OK);
	for (size_t i = 0; i < n; i++) {
		char *text = test_searchable(items[i].raw, items[i].raw_len);
		const char *raw = text;
		bool map = maps_attached(raw);
		/* the turn reports and turns merged into another mail sent at
		 * once (of 1450 when that mail is of 1451; a turn played in
		 * the run that opened it follows what is still open, under
		 * its own subject when that mail is of 1450 too) */
		const char *html_at = strstr(raw, "Content-Type: text/html");
		const char *text_end = html_at ? html_at : raw + strlen(raw);
		for (const char *at = raw;
		     (at = strstr(at, "----------\r\nThe turn of ")) && at < text_end; at++) {
			report++;
			assert_true(map);
		}
		for (const char *at = raw;
		     (at = strstr(at, "----------\r\nYour turn (1450)")) && at < text_end; at++) {
			turn++;
			assert_true(map);
		}
		for (const char *at = raw; strstr(raw, "Subject: [TestMarches] 1450 \u00b7 ") &&
					   (at = strstr(at, "----------\r\nYour turn\r\n")) &&
					   at < text_end;
		     at++) {
			turn++;
			assert_true(map);
		}
		if (strstr(raw, "Subject: [TestMarches] 1450 \u00b7 Your turn")) {
			turn++;
			assert_true(map);
		} else if (strstr(raw, "Subject: [TestMarches] 1450 \u00b7 The turn of")) {
			report++;
			assert_true(map);
		}
		/* the diary, under its Subject or merged into a mail that leads
		 * with another part (a turn of 1450 that went on at once) */
		if (strstr(raw, "Subject: [TestMarches] 1450 \u00b7 The year's diary") ||
		    merged_into(raw, "The year's diary")) {
			diary++;
			assert_true(map);
			assert_non_null(strstr(raw, "text/html"));
			/* the organiser's comment, escaped in the HTML part */
			const char *html = strstr(raw, "text/html");
			assert_non_null(strstr(html, "A &lt;b&gt;hard&lt;/b&gt; winter &amp; more"));
			assert_null(strstr(html, "<b>hard"));
			/* it names what the mail carries: both maps (the part is
			 * quoted-printable: its soft line breaks taken out) */
			char *joined = xstrdup(html);
			char *w = joined;
			for (const char *r = joined; *r; r++) {
				if (strncmp(r, "=\r\n", 3) == 0)
					r += 2;
				else
					*w++ = *r;
			}
			*w = '\0';
			assert_non_null(strstr(joined, "attached (map.png, map.svg)"));
			free(joined);
		}
		free(text);
	}
	store_outbox_items_free(items, n);
	/* France's turn, at the start; Burgundy's NO MOVE was in when his
	 * turn came, so it was played at once and its report alone tells it */
	assert_int_equal(turn, 1);
	assert_int_equal(report, 2 * 3);
	assert_int_equal(diary, 3);
}

/* Allies on call: Savoy, France's tributary, answers France's call by its
 * standing CONTINGENT FOR at once (as its overlord's order); the contingent
 * rolls to arrive before the battle. */
static void test_allies_standing_order(void **state)
{
	struct test_engine *f = *state;
	orders(f, "savoy", SAVOY_PW,
	       "TRIBUTARY OF france\nCONTINGENT FOR france WITH 1 Cv(O) general, 2 Kn(F)\n"
	       "NO MOVE\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "ACCEPT TRIBUTARY savoy\nIF INVADED ANY BATTLE\nNO MOVE\n",
	       NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	start(f);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	json_decref(st);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[2].overlord, 1);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(c->contingents[0].owner, 2);
	assert_int_equal(c->contingents[0].with_player, 1);
	assert_int_equal(troops_half_ap(&c->players[2].list, &c->contingents[0].troops),
			 HALF_AP(25 + 18));
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "tributary_order"), 1);
	assert_int_equal(events_of(f, 1450, "contingent_arrival"), 1);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France calls on you"), 0);
}

/* Without a standing order the ally is asked, with the decision deadline;
 * ANSWER ALLIES NO starts the battle without a contingent. */
static void test_allies_asked(void **state)
{
	struct test_engine *f = *state;
	orders(f, "savoy", SAVOY_PW, "TRIBUTARY OF france\nNO MOVE\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "ACCEPT TRIBUTARY savoy\nIF INVADED ANY BATTLE\nNO MOVE\n",
	       NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	start(f);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "decision");
	json_decref(st);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France calls on you for a contingent"), 1);
	/* the call as Savoy reads it: the orders as they are written, "<n>
	 * <element>" (club finding: it showed "<n element>"), each with what
	 * it does below it */
	char *raw = outbox_raw_with(f, "[TestMarches] 1450 \u00b7 France calls on you for a contingent");
	char *call = maildir_text_of(strchr(raw, '\n') + 1);
	free(raw);
	assert_non_null(strstr(call, "  CONTINGENT FOR france WITH <n> <element>, ...\n"
				     "      to send these troops\nor\n  ANSWER ALLIES NO\n"
				     "      to send nothing\n"));
	assert_null(strstr(call, "<n element>"));
	/* the order's line fits (a client's wrap would break the order) */
	const char *order = strstr(call, "  CONTINGENT FOR");
	assert_true(strcspn(order, "\n") <= 72);
	free(call);
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_year_status(f->engine, NOW, &report, &err), 0);
	assert_non_null(strstr(report, "the allies' answers before the battle at Paris"));
	assert_non_null(strstr(report, "Still to answer: savoy"));
	free(report);
	orders(f, "savoy", SAVOY_PW, "ANSWER ALLIES NO\n", NOW + HOUR);
	st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	json_decref(st);
	struct campaign *c = campaign(f);
	assert_int_equal(c->contingent_count, 0);
	campaign_free(c);
}

/* The reason of the first order_refused event of `player` in `year`
 * (allocated), or NULL; *count gets how many there were. */
static char *refusal_of(struct test_engine *f, int year, const char *player, size_t *count)
{
	json_t *events = NULL;
	assert_int_equal(store_events(f->store, year, &events, NULL), STORE_OK);
	char *reason = NULL;
	size_t i;
	json_t *ev;
	*count = 0;
	json_array_foreach(events, i, ev) {
		if (strcmp(json_string_value(json_object_get(ev, "kind")), "order_refused") != 0)
			continue;
		const char *who = json_string_value(json_object_get(ev, "player"));
		if (!who || strcmp(who, player) != 0)
			continue;
		if (!reason)
			reason = xstrdup(json_string_value(json_object_get(ev, "reason")));
		(*count)++;
	}
	json_decref(events);
	return reason;
}

/* The sequence of play of the year that has just started, as "a b c". */
static void assert_sequence(struct test_engine *f, const char *expected)
{
	json_t *st = year_state(f);
	struct strbuf sb = {0};
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(st, "sequence"), i, v)
		strbuf_printf(&sb, "%s%s", i ? " " : "", json_string_value(v));
	char *got = strbuf_take(&sb);
	assert_string_equal(got, expected);
	free(got);
	json_decref(st);
}

/* Allies who agreed in advance: Savoy, bound to nobody, has a standing
 * CONTINGENT FOR france; when Burgundy invades Paris and France gives
 * battle, Savoy's contingent is sent at once (not as a tributary's order,
 * nobody is asked), takes Savoy's option for the year (Ally) and rolls to
 * arrive. */
static void test_allies_volunteer(void **state)
{
	struct test_engine *f = *state;
	orders(f, "savoy", SAVOY_PW, "CONTINGENT FOR france WITH 1 Cv(O) general, 2 Kn(F)\n"
	       "NO MOVE\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	start(f);
	assert_sequence(f, "burgundy france savoy");
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	json_decref(st);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[2].overlord, NO_INDEX);
	assert_int_equal(c->players[2].movement_option, OPTION_ALLY);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(c->contingents[0].owner, 2);
	assert_int_equal(c->contingents[0].with_player, 1);
	/* 25 AP for the general, 2 x 9 AP of knights, out of Savoy's field */
	assert_int_equal(troops_half_ap(&c->players[2].list, &c->contingents[0].troops),
			 HALF_AP(25 + 18));
	assert_int_equal(player_field_half_ap(&c->players[2]),
			 HALF_AP(2 * 25 + 20 * 9) - HALF_AP(25 + 18));
	campaign_free(c);
	assert_int_equal(events_of(f, 1450, "contingent_sent"), 1);
	assert_int_equal(events_of(f, 1450, "tributary_order"), 0);
	assert_int_equal(events_of(f, 1450, "contingent_arrival"), 1);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France calls on you"), 0);
	/* the battle mail lists the contingent that arrived with the armies */
	char *battle = outbox_raw_with(f, "[TestMarches] 1450 \u00b7 Battle at Paris");
	assert_non_null(strstr(battle, "Contingents that arrived:"));
	assert_non_null(strstr(battle, "Savoy (savoy), contingent with France, 43 AP:"));
	assert_non_null(strstr(battle, "    1 Cv(O) general, 2 Kn(F)"));
	assert_non_null(strstr(battle, "France (france), the defender, field army,"));
	free(battle);
}

/* Savoy invaded Calais in his turn, before Burgundy's: he has taken
 * another movement option, so his standing CONTINGENT FOR france is not
 * called (not even tried and refused) when France gives battle. */
static void test_allies_volunteer_after_moving(void **state)
{
	struct test_engine *f = *state;
	orders(f, "savoy", SAVOY_PW, "CONTINGENT FOR france WITH 1 Cv(O) general, 2 Kn(F)\n"
	       "INVADE Calais\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, SAVOY_FIRST_SEED, &report, &err), 0);
	free(report);
	assert_sequence(f, "savoy france burgundy");
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	json_decref(st);
	struct campaign *c = campaign(f);
	assert_int_equal(c->players[2].movement_option, OPTION_INVADE);
	assert_int_equal(c->players[2].location, 3); /* Calais, next to Paris */
	assert_int_equal(c->contingent_count, 0);
	campaign_free(c);
	size_t refusals;
	char *reason = refusal_of(f, 1450, "savoy", &refusals);
	assert_null(reason);
	assert_int_equal(refusals, 0);
	assert_int_equal(events_of(f, 1450, "contingent_sent"), 0);
	assert_int_equal(outbox_with(f, "[TestMarches] 1450 \u00b7 France calls on you"), 0);
}

/* Savoy's contingent sent on call in Burgundy's turn was his movement
 * option: his own INVADE, in his later turn, is refused with that reason. */
static void test_allies_volunteer_then_invade(void **state)
{
	struct test_engine *f = *state;
	orders(f, "savoy", SAVOY_PW, "CONTINGENT FOR france WITH 1 Cv(O) general, 2 Kn(F)\n"
	       "INVADE Calais\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	start(f);
	assert_sequence(f, "burgundy france savoy");
	struct campaign *c = campaign(f);
	assert_int_equal(c->contingent_count, 1);
	assert_int_equal(c->players[2].movement_option, OPTION_ALLY);
	campaign_free(c);
	/* an INVADE sent now is refused in the answer itself */
	char *reply = deliver(f, "amedee@example.org",
			      "PLAYER savoy " SAVOY_PW "\nINVADE Calais\n", NOW + HOUR / 2);
	assert_non_null(strstr(reply, "ERROR: Savoy has already taken the Ally movement option "
				      "this year (a contingent was sent): no INVADE or MOVE until "
				      "next year"));
	free(reply);
	char *body = xasprintf("PLAYER burgundy " BURGUNDY_PW "\n%s", result);
	free(deliver(f, "philippe@example.org", body, NOW + HOUR));
	free(body);
	body = xasprintf("PLAYER france " FRANCE_PW "\n%s", result);
	free(deliver(f, "charles@example.org", body, NOW + 2 * HOUR));
	free(body);
	/* France's NO MOVE, then Savoy's turn: the INVADE sent in advance can
	 * no longer be carried out; Savoy is told in the mail that opens his
	 * turn, which stays open with its deadline counted from that mail */
	c = campaign(f);
	assert_int_equal(c->phase, PHASE_CAMPAIGN);
	campaign_free(c);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "turn");
	assert_int_equal(json_integer_value(json_object_get(st, "turn")), 2);
	int64_t deadline = json_integer_value(json_object_get(st, "deadline"));
	assert_int_equal(deadline, NOW + 2 * HOUR + 72 * HOUR);
	json_decref(st);
	size_t refusals;
	char *reason = refusal_of(f, 1450, "savoy", &refusals);
	assert_int_equal(refusals, 1);
	assert_non_null(reason);
	assert_string_equal(reason, "Savoy has already taken the Ally movement option this year "
				    "(a contingent was sent): no INVADE or MOVE until next year");
	free(reason);
	assert_int_equal(outbox_containing(f, "cannot be carried out now: Savoy has already taken "
					      "the Ally"), 1);
	/* at the deadline: no move, the recruitment */
	char *err = NULL;
	assert_int_equal(engine_tick(f->engine, deadline, 0, NULL, &err), 0);
	c = campaign(f);
	assert_int_equal(c->phase, PHASE_RECRUITMENT);
	assert_int_equal(c->players[2].location, 2); /* still in Flanders */
	assert_int_equal(c->siege_count, 0);
	campaign_free(c);
	free(refusal_of(f, 1450, "savoy", &refusals));
	assert_int_equal(refusals, 1);
	assert_int_equal(events_of(f, 1450, "invasion"), 1); /* Burgundy's only */
}

/* A player who agreed in advance to help both sides of the same battle
 * sends nothing and is told why, once. */
static void test_allies_volunteer_both_sides(void **state)
{
	struct test_engine *f = *state;
	orders(f, "savoy", SAVOY_PW, "CONTINGENT FOR france WITH 1 Cv(O) general, 2 Kn(F)\n"
	       "CONTINGENT FOR burgundy WITH 1 Cv(O) general, 3 Kn(F)\nNO MOVE\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	start(f);
	struct campaign *c = campaign(f);
	assert_int_equal(c->contingent_count, 0);
	assert_int_equal(c->players[2].movement_option, OPTION_NONE);
	campaign_free(c);
	size_t refusals;
	char *reason = refusal_of(f, 1450, "savoy", &refusals);
	assert_int_equal(refusals, 1);
	assert_non_null(reason);
	assert_non_null(strstr(reason, "CONTINGENT FOR both sides"));
	free(reason);
}

int main(void)
{
#define T(f, setup) cmocka_unit_test_setup_teardown(f, setup, test_engine_teardown)
	const struct CMUnitTest tests[] = {
		T(test_start, setup),
		T(test_year_by_mail, setup),
		T(test_organiser_mail, setup),
		T(test_organiser_mail_one_mail_each, setup),
		T(test_pause_undo_and_correction, setup),
		T(test_clock, setup),
		T(test_publish_after_turn, setup),
		T(test_tributary_by_mail, setup),
		T(test_leave_by_mail, setup),
		T(test_recall_by_mail, setup),
		T(test_losses_first_by_mail, setup),
		T(test_knocked_out, setup),
		T(test_time_zone, setup_paris),
		T(test_invite_one_player, setup),
		T(test_map_and_html_diary, setup),
		T(test_allies_standing_order, setup_three),
		T(test_allies_asked, setup_three),
		T(test_alliance_by_mail, setup_three),
		T(test_allies_volunteer, setup_three),
		T(test_allies_volunteer_after_moving, setup_three),
		T(test_allies_volunteer_then_invade, setup_three),
		T(test_allies_volunteer_both_sides, setup_three),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
