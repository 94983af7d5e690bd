/* The limits that protect players (engine/guard.c) on the real engine path,
 * and passwords that never come back in a reply: a real SQLite file, mail
 * through engine_process_mail, replies rendered with the shipped templates. */
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
#include "engine/engine.h"
#include "lib/engine_fixture.h"
#include "lib/files.h"
#include "lib/store_fixture.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/util.h"

#define NOW 1796000000LL
#define ADDRESS "campaign@example.org"
#define PLAYER_ADDR "philippe@example.org"
#define ORGANISER_ADDR "organiser@example.org"
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"

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
	test_scratch_dir(f->dir, "guard");
	f->db = xasprintf("%s/campaign.db", f->dir);
	char *err = NULL;
	f->store = test_store_with(f->db, fixture_campaign());
	assert_int_equal(store_set_password(f->store, "burgundy", BURGUNDY_PW, &err), STORE_OK);
	f->tpl = test_templates();
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX",
				    .limits = {.max_bytes = 20000, .max_depth = 10}};
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
	test_scratch_remove(f->dir);
	free(f->db);
	free(f);
	return 0;
}

/* Processes a mail from `from` with that Message-ID, subject and body at
 * time `now`; the outcome is freed unless out is given. */
static enum engine_verdict send_at(struct fixture *f, int64_t now, const char *from,
				   const char *msgid, const char *subject, const char *body,
				   struct engine_outcome *keep)
{
	char *raw = xasprintf("From: %s\r\nTo: " ADDRESS "\r\nSubject: %s\r\n"
			      "Message-ID: <%s>\r\nDate: Mon, 30 Nov 2026 10:00:00 +0000\r\n"
			      "Content-Type: text/plain; charset=utf-8\r\n\r\n%s",
			      from, subject, msgid, body);
	struct engine_outcome out;
	char *err = NULL;
	if (engine_process_mail(f->engine, 7, ++f->uid, raw, strlen(raw), now, false, &out, &err))
		fail_msg("engine_process_mail: %s", err);
	free(raw);
	enum engine_verdict v = out.verdict;
	if (keep)
		*keep = out;
	else
		engine_outcome_free(&out);
	return v;
}

/* Queued mail to `to` (all of it if NULL); with `needle`, only mail that
 * holds it. */
static size_t queued_to(struct fixture *f, const char *to, const char *needle)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0, count = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 10000000, 1000, &items, &n, NULL),
			 STORE_OK);
	for (size_t i = 0; i < n; i++) {
		char *text = test_searchable(items[i].raw, items[i].raw_len);
		if ((!to || strcmp(items[i].recipients, to) == 0) && (!needle || strstr(text, needle)))
			count++;
		free(text);
	}
	store_outbox_items_free(items, n);
	return count;
}

static bool any_queued_holds(struct fixture *f, const char *needle)
{
	return queued_to(f, NULL, needle) > 0;
}

/* A forger sending wrong passwords in the player's name pesters the player
 * only a little, and cannot use up the answers the player's own mail gets. */
static void test_forger_cannot_use_up_the_players_answers(void **state)
{
	struct fixture *f = *state;
	char id[64], from[64];
	/* one origin: three answers an hour */
	for (int i = 0; i < 8; i++) {
		snprintf(id, sizeof id, "f%d@evil.example", i);
		assert_int_equal(send_at(f, NOW, "Mallory <mallory@evil.example>", id, "orders",
					 "PLAYER burgundy not-the-password\nINVADE Flanders\n", NULL),
				 ENGINE_REJECTED);
	}
	assert_int_equal(queued_to(f, PLAYER_ADDR, NULL), 3);
	/* many origins: six in all an hour */
	for (int i = 0; i < 8; i++) {
		snprintf(id, sizeof id, "g%d@evil%d.example", i, i);
		snprintf(from, sizeof from, "m%d@evil%d.example", i, i);
		send_at(f, NOW, from, id, "orders", "PLAYER burgundy not-the-password\n", NULL);
	}
	assert_int_equal(queued_to(f, PLAYER_ADDR, NULL), 6);
	/* even the player's own address forged, from another provider: nothing more */
	send_at(f, NOW, PLAYER_ADDR, "h1@evil.example", "orders", "STATUS\n", NULL);
	assert_int_equal(queued_to(f, PLAYER_ADDR, NULL), 7); /* the day's own answer */
	send_at(f, NOW, PLAYER_ADDR, "h2@evil.example", "orders", "STATUS\n", NULL);
	assert_int_equal(queued_to(f, PLAYER_ADDR, NULL), 7);
	/* the daily answer stays used up when old counters are cleared
	 * (the daemon prunes them every cycle) */
	size_t pruned = 0;
	assert_int_equal(engine_prune(f->engine, NOW + 60, &pruned, NULL), 0);
	send_at(f, NOW + 60, PLAYER_ADDR, "h3@evil.example", "orders", "STATUS\n", NULL);
	assert_int_equal(queued_to(f, PLAYER_ADDR, NULL), 7);
	/* an hour later the player's own mistake is answered at once */
	struct engine_outcome out;
	assert_int_equal(send_at(f, NOW + 3600, "Philippe <" PLAYER_ADDR ">", "p1@example.org",
				 "orders", "INVADE Flanders\n", &out),
			 ENGINE_REJECTED);
	assert_string_equal(out.reply_to, PLAYER_ADDR);
	engine_outcome_free(&out);
	assert_int_equal(queued_to(f, PLAYER_ADDR, NULL), 8);
	/* the player's right password was never blocked by any of this */
	assert_int_equal(send_at(f, NOW + 3600, PLAYER_ADDR, "p2@example.org", "orders",
				 "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n", NULL),
			 ENGINE_ACCEPTED);
}

static int64_t guard_until(struct fixture *f, const char *cls)
{
	char *key = xasprintf("pwfail:burgundy:%s", cls), *v = NULL;
	assert_int_equal(store_kv_get(f->store, key, &v, NULL), STORE_OK);
	long long until = 0, since = 0;
	int failures = 0, told = 0;
	if (v)
		assert_int_equal(sscanf(v, "%d %lld %lld %d", &failures, &since, &until, &told), 4);
	free(v);
	free(key);
	return until;
}

/* Guessing by mail: five wrong passwords are free, then each class of
 * sender waits, longer each time, and even a right guess is not read
 * meanwhile; the player's own address is not locked out; the organiser
 * hears of it once. */
static void test_password_guessing_is_slowed_and_reported(void **state)
{
	struct fixture *f = *state;
	char id[64], guess[64];
	for (int i = 0; i < 5; i++) {
		snprintf(id, sizeof id, "g%d@evil.example", i);
		snprintf(guess, sizeof guess, "PLAYER burgundy guess-%d\nINVADE Flanders\n", i);
		assert_int_equal(send_at(f, NOW, "mallory@evil.example", id, "x", guess, NULL),
				 ENGINE_REJECTED);
		assert_int_equal(queued_to(f, ORGANISER_ADDR, NULL), i == 4 ? 1 : 0);
	}
	assert_int_equal(queued_to(f, ORGANISER_ADDR, "mallory@evil.example"), 1);
	assert_int_equal(guard_until(f, "other"), NOW + 60);

	/* the right password, guessed now, is not even read */
	struct engine_outcome out;
	assert_int_equal(send_at(f, NOW + 30, "mallory@evil.example", "g5@evil.example", "x",
				 "PLAYER burgundy " BURGUNDY_PW "\nINVADE Flanders\n", &out),
			 ENGINE_REJECTED);
	assert_false(out.authenticated);
	assert_non_null(strstr(out.summary, "too many wrong passwords"));
	engine_outcome_free(&out);
	char *orders = NULL;
	assert_int_equal(store_orders_get(f->store, "burgundy", 1450, PHASE_SETUP, &orders, NULL),
			 STORE_OK);
	assert_null(orders);

	/* the player, from the registered address, is not locked out */
	assert_int_equal(send_at(f, NOW + 30, PLAYER_ADDR, "own1@example.org", "x",
				 "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n", &out),
			 ENGINE_ACCEPTED);
	assert_true(out.authenticated);
	engine_outcome_free(&out);

	/* each further wrong one doubles the wait; the organiser is not told again */
	assert_int_equal(send_at(f, NOW + 61, "mallory@evil.example", "g6@evil.example", "x",
				 "PLAYER burgundy guess-6\n", NULL), ENGINE_REJECTED);
	assert_int_equal(guard_until(f, "other"), NOW + 61 + 120);
	assert_int_equal(send_at(f, NOW + 200, "mallory@evil.example", "g7@evil.example", "x",
				 "PLAYER burgundy guess-7\n", NULL), ENGINE_REJECTED);
	assert_int_equal(guard_until(f, "other"), NOW + 200 + 240);
	assert_int_equal(queued_to(f, ORGANISER_ADDR, NULL), 1);
	/* a right password after the wait ends the run */
	assert_int_equal(send_at(f, NOW + 500, "mallory@evil.example", "g8@evil.example", "x",
				 "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n", NULL), ENGINE_ACCEPTED);
	assert_int_equal(guard_until(f, "other"), 0);
}

/* Both classes of sender reach their fifth wrong password in the same
 * second (a guesser and the player's own address, or a backlog read at
 * one moment): the organiser hears of each run, and neither mail fails on
 * the other's report (they once shared a Message-ID, and every mail after
 * them waited behind the failing one). */
static void test_both_classes_reported_in_the_same_second(void **state)
{
	struct fixture *f = *state;
	char id[64], guess[64];
	for (int i = 0; i < 5; i++) {
		snprintf(guess, sizeof guess, "PLAYER burgundy guess-%d\nNO MOVE\n", i);
		snprintf(id, sizeof id, "o%d@example.org", i);
		assert_int_equal(send_at(f, NOW, PLAYER_ADDR, id, "x", guess, NULL),
				 ENGINE_REJECTED);
		snprintf(id, sizeof id, "g%d@evil.example", i);
		assert_int_equal(send_at(f, NOW, "mallory@evil.example", id, "x", guess, NULL),
				 ENGINE_REJECTED);
	}
	assert_int_equal(guard_until(f, "own"), NOW + 60);
	assert_int_equal(guard_until(f, "other"), NOW + 60);
	assert_int_equal(queued_to(f, ORGANISER_ADDR, NULL), 2);
	assert_int_equal(queued_to(f, ORGANISER_ADDR, "mallory@evil.example"), 1);
	assert_int_equal(queued_to(f, ORGANISER_ADDR, PLAYER_ADDR), 1);
}

/* A password in the Subject, the PLAYER line's or a new one, never comes
 * back: neither in the reply's Subject nor where the reply quotes it. */
static void test_no_reply_echoes_a_password(void **state)
{
	struct fixture *f = *state;
	struct engine_outcome out;
	assert_int_equal(send_at(f, NOW, PLAYER_ADDR, "s1@example.org",
				 "PLAYER burgundy " BURGUNDY_PW " / new: Brand-New-Secret-42",
				 "PLAYER burgundy " BURGUNDY_PW "\nPASSWORD Brand-New-Secret-42\n", &out),
			 ENGINE_ACCEPTED);
	assert_null(strstr(out.reply, BURGUNDY_PW));
	assert_null(strstr(out.reply, "Brand-New-Secret-42"));
	engine_outcome_free(&out);
	/* a Subject that holds a PLAYER line is not repeated at all */
	assert_int_equal(queued_to(f, PLAYER_ADDR, "Re: PLAYER"), 0);
	/* a wrong password in the Subject, and a generated one typed loosely */
	assert_int_equal(send_at(f, NOW, "mallory@evil.example", "s2@evil.example",
				 "try Brg0 1xyz 7kqm 2xrt or (brg01xyz7kqm2xrt) or hunter2-hunter2",
				 "PLAYER burgundy hunter2-hunter2\n", &out), ENGINE_REJECTED);
	assert_null(strstr(out.reply, "hunter2-hunter2"));
	assert_null(strstr(out.reply, "brg01xyz7kqm2xrt"));
	engine_outcome_free(&out);
	assert_false(any_queued_holds(f, BURGUNDY_PW));
	assert_false(any_queued_holds(f, "Brand-New-Secret-42"));
	assert_false(any_queued_holds(f, "hunter2-hunter2"));
	assert_false(any_queued_holds(f, "brg01xyz7kqm2xrt"));
	assert_false(any_queued_holds(f, "Re: try"));
	/* a Subject kept: a word shaped like a generated password is masked */
	assert_int_equal(send_at(f, NOW, PLAYER_ADDR, "s4@example.org",
				 "about (QW7E-RT2Y-XP9A-SD4F) and more",
				 "PLAYER burgundy Brand-New-Secret-42\nNO MOVE\n", NULL),
			 ENGINE_ACCEPTED);
	assert_int_equal(queued_to(f, PLAYER_ADDR, "\u00b7 Re: about (********) and more\r\n"), 1);
	assert_false(any_queued_holds(f, "QW7E-RT2Y-XP9A-SD4F"));
	/* the new password works, the old one no longer */
	assert_int_equal(send_at(f, NOW, PLAYER_ADDR, "s3@example.org", "x",
				 "PLAYER burgundy Brand-New-Secret-42\nNO MOVE\n", NULL),
			 ENGINE_ACCEPTED);
}

/* A password a player chooses must be long enough; the reply says why. */
static void test_short_chosen_password_is_refused_with_the_reason(void **state)
{
	struct fixture *f = *state;
	struct engine_outcome out;
	assert_int_equal(send_at(f, NOW, PLAYER_ADDR, "c1@example.org", "new password",
				 "PLAYER burgundy " BURGUNDY_PW "\nPASSWORD tulip-1434\n", &out),
			 ENGINE_ACCEPTED);
	assert_non_null(strstr(out.reply, "at least 12 characters (this one has 10)"));
	assert_non_null(strstr(out.reply, "could be guessed"));
	assert_null(strstr(out.reply, "tulip-1434"));
	engine_outcome_free(&out);
	/* the old password still holds */
	assert_int_equal(send_at(f, NOW, PLAYER_ADDR, "c2@example.org", "x",
				 "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n", NULL),
			 ENGINE_ACCEPTED);
	assert_int_equal(send_at(f, NOW, PLAYER_ADDR, "c3@example.org", "x",
				 "PLAYER burgundy tulip-1434\nNO MOVE\n", NULL),
			 ENGINE_REJECTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forger_cannot_use_up_the_players_answers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_password_guessing_is_slowed_and_reported, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_both_classes_reported_in_the_same_second, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_reply_echoes_a_password, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_chosen_password_is_refused_with_the_reason,
						setup, teardown),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
