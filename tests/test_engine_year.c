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

#include "campaign_fixture.h"
#include "dice.h"
#include "engine.h"
#include "store.h"
#include "templates.h"
#include "util.h"
#include "year.h"

#define NOW 1800000000LL
#define HOUR 3600LL
#define ADDRESS "campaign@example.org"
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
#define SEED "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

struct fixture {
	char dir[64];
	char *db;
	struct store *store;
	struct templates *tpl;
	struct engine *engine;
	uint32_t uid;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/campaignd-year-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->db = xasprintf("%s/campaign.db", f->dir);
	char *err = NULL;
	assert_int_equal(store_open(f->db, STORE_CREATE, &f->store, &err), STORE_OK);
	store_set_pwhash_limits(f->store, crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN);
	struct campaign *c = fixture_campaign();
	assert_int_equal(store_init_campaign(f->store, c, false, &err), STORE_OK);
	campaign_free(c);
	assert_int_equal(store_set_password(f->store, "burgundy", BURGUNDY_PW, &err), STORE_OK);
	assert_int_equal(store_set_password(f->store, "france", FRANCE_PW, &err), STORE_OK);
	assert_int_equal(store_set_password(f->store, STORE_ORGANISER, ORGANISER_PW, &err), STORE_OK);
	const char *src = getenv("top_srcdir");
	char *tdir = xasprintf("%s/templates", src ? src : "..");
	setenv("CAMPAIGND_TEMPLATES", tdir, 1);
	free(tdir);
	f->tpl = templates_new(NULL);
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX"};
	f->engine = engine_new(f->store, f->tpl, &cfg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	engine_free(f->engine);
	templates_free(f->tpl);
	store_close(f->store);
	char *cmd = xasprintf("rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->db);
	free(f);
	return 0;
}

/* A mail from `from` with `body`, processed at `now`. Returns the reply. */
static char *deliver(struct fixture *f, const char *from, const char *body, int64_t now)
{
	f->uid++;
	char *raw = xasprintf("From: %s\r\nTo: " ADDRESS "\r\nSubject: orders\r\n"
			      "Message-ID: <m%u@example.org>\r\n"
			      "Content-Type: text/plain; charset=utf-8\r\n\r\n%s",
			      from, f->uid, body);
	struct engine_outcome out;
	char *err = NULL;
	if (engine_process_mail(f->engine, 1, f->uid, raw, strlen(raw), now, false, &out, &err))
		fail_msg("engine_process_mail: %s", err);
	assert_int_equal(out.verdict, ENGINE_ACCEPTED);
	char *reply = out.reply ? xstrdup(out.reply) : NULL;
	engine_outcome_free(&out);
	free(raw);
	return reply;
}

static void orders(struct fixture *f, const char *player, const char *pw, const char *text,
		   int64_t now)
{
	char *from = xasprintf("%s@example.org", strcmp(player, "burgundy") == 0 ? "philippe"
									      : "charles");
	char *body = xasprintf("PLAYER %s %s\n%s", player, pw, text);
	free(deliver(f, from, body, now));
	free(body);
	free(from);
}

/* Queued mails whose Subject contains `subject` (all if NULL). */
static size_t outbox_with(struct fixture *f, const char *subject)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0, hits = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000 * HOUR, 1000, &items, &n, NULL),
			 STORE_OK);
	for (size_t i = 0; i < n; i++) {
		char *line = xasprintf("Subject: %s", subject ? subject : "");
		if (strstr(items[i].raw, line))
			hits++;
		free(line);
	}
	store_outbox_items_free(items, n);
	return hits;
}

static json_t *year_state(struct fixture *f)
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

static struct campaign *campaign(struct fixture *f)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, NULL), STORE_OK);
	return c;
}

static int action(struct fixture *f, enum engine_action a, const char *arg, int64_t now)
{
	struct engine_action_request req = {.action = a, .arg = arg};
	char *report = NULL, *err = NULL;
	int rc = engine_action(f->engine, &req, now, &report, &err);
	if (rc < 0)
		fail_msg("engine_action: %s", err);
	free(report);
	return rc;
}

static void start(struct fixture *f)
{
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, SEED, &report, &err), 0);
	free(report);
}

static void test_start(void **state)
{
	struct fixture *f = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, "not hex", &report, &err), 1);
	assert_non_null(strstr(report, "64 hexadecimal"));
	free(report);
	start(f);
	/* both players and the organiser (who plays nobody) are told */
	assert_int_equal(outbox_with(f, "1450: the sequence of play"), 3);
	assert_int_equal(outbox_with(f, "1450: your turn"), 1);
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
	struct fixture *f = *state;
	orders(f, "burgundy", BURGUNDY_PW, "INVADE Paris\n", NOW - HOUR);
	orders(f, "france", FRANCE_PW, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR);
	start(f);
	json_t *st = year_state(f);
	assert_string_equal(step_of(st), "battle");
	json_decref(st);
	assert_int_equal(outbox_with(f, "1450: battle at Paris"), 3);

	char *body = xasprintf("PLAYER burgundy " BURGUNDY_PW "\n%s", result);
	char *reply = deliver(f, "philippe@example.org", body, NOW + HOUR);
	assert_non_null(strstr(reply, "Your battle result was recorded."));
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
	assert_int_equal(outbox_with(f, "1450: recruitment"), 2);

	/* Burgundy's reserve holds 2 Kn(S) at 12 AP; one province allows 10 AP:
	 * nothing to recruit, which NO MOVE says; the year ends */
	orders(f, "burgundy", BURGUNDY_PW, "NO MOVE\n", NOW + 3 * HOUR);
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->phase, PHASE_CAMPAIGN);
	campaign_free(c);
	assert_int_equal(outbox_with(f, "The diary of 1450"), 3);
	assert_int_equal(outbox_with(f, "1451: the sequence of play"), 3);

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
	struct fixture *f = *state;
	start(f);
	json_t *st = year_state(f);
	int64_t deadline = json_integer_value(json_object_get(st, "deadline"));
	json_decref(st);
	char *reply = deliver(f, "organiser@example.org",
			      "ORGANISER " ORGANISER_PW "\nEXTEND 12\nCOMMENT A hard winter.\n"
			      "PROCESS recruitment\n",
			      NOW + HOUR);
	assert_non_null(strstr(reply, "the deadline is now"));
	assert_non_null(strstr(reply, "is not the current step"));
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
	/* every player hears of each action */
	assert_int_equal(outbox_with(f, "1450: the organiser: deadline"), 3);
	assert_int_equal(outbox_with(f, "1450: the organiser: comment"), 3);
}

/* Pause, undo (back to before the last step, paused), and a battle result
 * corrected after it was applied. */
static void test_pause_undo_and_correction(void **state)
{
	struct fixture *f = *state;
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
	struct fixture *f = *state;
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
	assert_int_equal(outbox_with(f, "1450: the deadline is moved (our downtime)"), 3);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_year_by_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_organiser_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pause_undo_and_correction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock, setup, teardown),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
