/* Issue 13: the mails of one run of the daemon (a group applied in one
 * transaction, engine_batch_*) tell each person what he must know in one
 * mail: the reply to his own mail leads, the year's mails other mails of
 * the group caused for him follow it. A mail of the group that fails is
 * rolled back with every part it caused. The mails are read as players
 * receive them (the outbox sent into a Maildir), on a real SQLite file. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "lib/campaign_fixture.h"
#include "lib/engine_fixture.h"
#include "lib/maildir_fixture.h"
#include "engine/engine.h"
#include "store/store.h"
#include "base/util.h"

#define NOW 1800000000LL
#define HOUR 3600LL
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
#define SEED "500102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define BURGUNDY "philippe@example.org"
#define FRANCE "charles@example.org"
#define ORGANISER "organiser@example.org"

static int setup(void **state)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	static const char *const pw[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					 STORE_ORGANISER, ORGANISER_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "batchjoin", fixture_campaign(), pw, &cfg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	maildir_clear();
	return test_engine_teardown(state);
}

static char *raw_mail(struct test_engine *f, const char *from, const char *body)
{
	char msgid[32];
	snprintf(msgid, sizeof msgid, "j%u@example.org", ++f->uid);
	return test_mail(&(struct test_mail){.from = from, .msgid = msgid, .body = body});
}

/* One mail, alone (a run of its own), delivered. */
static void send_alone(struct test_engine *f, const char *from, const char *body, int64_t now)
{
	char *raw = raw_mail(f, from, body);
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(raw);
	maildir_flush(f, now);
}

/* Burgundy invades Paris, France fights: the battle is open at NOW. */
static void battle_at_paris(struct test_engine *f)
{
	send_alone(f, BURGUNDY, "PLAYER burgundy " BURGUNDY_PW "\nINVADE Paris\n", NOW - HOUR);
	send_alone(f, FRANCE, "PLAYER france " FRANCE_PW "\nIF INVADED ANY BATTLE\nNO MOVE\n",
		   NOW - HOUR);
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, SEED, &report, &err), 0);
	free(report);
	maildir_flush(f, NOW);
}

/* The mails `to` received from inbox[from] on. */
static size_t received(const char *to, size_t from, size_t *last)
{
	size_t n = 0;
	for (size_t i = from; i < n_inbox; i++)
		if (strcmp(inbox[i].to, to) == 0) {
			n++;
			*last = i;
		}
	return n;
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

/* Burgundy's battle report and the organiser's, which decides the battle
 * and opens France's turn, in one run: Burgundy gets one mail, the reply
 * to his report (threaded to it) with the turn of France after it; France
 * gets his turn once; the organiser gets one mail too, the answer to his
 * own mail leading what it caused for him, not the players' news of what
 * he did, which the answer says (issue 13, item 3). */
static void test_reply_joins_what_later_mails_caused(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	size_t before = n_inbox;
	char *err = NULL;
	assert_int_equal(engine_batch_begin(f->engine, &err), 0);
	const char *from[] = {BURGUNDY, ORGANISER};
	const char *body[] = {"PLAYER burgundy " BURGUNDY_PW "\nBATTLE AT Paris\nWINNER france\n",
			      "ORGANISER " ORGANISER_PW "\nBATTLE AT Paris\nWINNER france\n"};
	char *ack = NULL;
	for (size_t i = 0; i < 2; i++) {
		char *raw = raw_mail(f, from[i], body[i]);
		struct engine_outcome out;
		assert_int_equal(engine_process_mail(f->engine, 1, f->uid, raw, strlen(raw),
						     NOW + HOUR, false, &out, &err),
				 0);
		assert_int_equal(out.verdict, ENGINE_ACCEPTED);
		if (i == 0) /* the reply's own text, as the engine returns it */
			ack = xstrdup(out.reply ? out.reply : "");
		engine_outcome_free(&out);
		free(raw);
	}
	assert_has(ack, "Your battle result was recorded");
	free(ack);
	assert_int_equal(engine_batch_commit(f->engine, &err), 0);
	maildir_flush(f, NOW + HOUR);

	size_t at = 0;
	assert_int_equal(received(BURGUNDY, before, &at), 1);
	const char *text = inbox[at].text;
	assert_has(inbox[at].subject, "Re: orders");
	const char *own = strstr(text, "Your battle result was recorded");
	const char *turn = strstr(text, MERGED_RULE "\nThe turn of France");
	assert_non_null(own);
	assert_non_null(turn);
	assert_true(own < turn); /* his own mail's reply leads */
	assert_true(maildir_merged_into(text, "The turn of France"));
	/* threaded to his report (the first mail of the run) */
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_matching(f->store, 0, INT64_MAX, "<ack.", &items, &n, NULL),
			 STORE_OK);
	bool threaded = false;
	for (size_t i = 0; i < n; i++)
		if (strstr(items[i].recipients, BURGUNDY) &&
		    strstr(items[i].raw, "In-Reply-To: <j3@example.org>"))
			threaded = true;
	store_outbox_items_free(items, n);
	assert_true(threaded);

	/* France: his turn, once, not joined to anyone's reply */
	assert_int_equal(received(FRANCE, before, &at), 1);
	assert_has(inbox[at].subject, "Your turn");
	assert_has_not(inbox[at].text, "Your battle result was recorded");
	/* the organiser: one mail, the answer to his mail (threaded to it)
	 * and then, under it, what it caused for him */
	assert_int_equal(received(ORGANISER, before, &at), 1);
	text = inbox[at].text;
	assert_has(inbox[at].subject, "Re: orders");
	const char *answer = strstr(text, "You decided the result of the battle at Paris:\n");
	const char *below = strstr(text, "Below: the campaign's other mail to you at this moment");
	turn = strstr(text, MERGED_RULE "\nThe turn of France");
	if (!answer || !below || !turn) {
		fprintf(stderr, "%s\n", text);
		fail_msg("the organiser's mail above");
	}
	assert_true(answer < below && below < turn);
	assert_has(below, "France wins the battle at Paris");
	assert_int_equal(maildir_count(text, "What happens next\n"), 1);
	assert_has_not(text, MERGED_RULE "\nThe organiser: ");
	assert_has_not(text, ORGANISER_PW);
	assert_int_equal(store_outbox_matching(f->store, 0, INT64_MAX, "<org.", &items, &n, NULL),
			 STORE_OK);
	threaded = false;
	for (size_t i = 0; i < n; i++)
		threaded |= strstr(items[i].raw, "In-Reply-To: <j4@example.org>") != NULL;
	store_outbox_items_free(items, n);
	assert_true(threaded);
}

/* A run of three: Burgundy's report, France's report (which would settle
 * the battle and open France's turn) failing in the database, and the
 * organiser's note. The failed mail is rolled back with all it caused:
 * no turn of France in anyone's mail, no reply to France; Burgundy's
 * reply carries the note; France gets the note alone. */
static void test_failed_mail_leaves_no_part(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	size_t before = n_inbox;
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	char *trigger = xasprintf("CREATE TRIGGER fail_j BEFORE INSERT ON inbound"
				  " WHEN NEW.message_id = '<j%u@example.org>'"
				  " BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END",
				  f->uid + 2);
	assert_int_equal(sqlite3_exec(db, trigger, NULL, NULL, NULL), SQLITE_OK);
	free(trigger);
	sqlite3_close(db);
	char *err = NULL;
	assert_int_equal(engine_batch_begin(f->engine, &err), 0);
	const char *from[] = {BURGUNDY, FRANCE, ORGANISER};
	const char *body[] = {"PLAYER burgundy " BURGUNDY_PW "\nBATTLE AT Paris\nWINNER france\n",
			      "PLAYER france " FRANCE_PW "\nBATTLE AT Paris\nWINNER france\n",
			      "ORGANISER " ORGANISER_PW "\nCOMMENT A hard winter.\n"};
	for (size_t i = 0; i < 3; i++) {
		char *raw = raw_mail(f, from[i], body[i]);
		struct engine_outcome out;
		int rc = engine_process_mail(f->engine, 1, f->uid, raw, strlen(raw), NOW + HOUR,
					     false, &out, &err);
		if (i == 1) {
			assert_int_equal(rc, -1);
			assert_has(err, "disk full");
			free(err);
			err = NULL;
		} else {
			assert_int_equal(rc, 0);
			engine_outcome_free(&out);
		}
		assert_true(engine_batch_open(f->engine));
		free(raw);
	}
	assert_int_equal(engine_batch_commit(f->engine, &err), 0);
	maildir_flush(f, NOW + HOUR);

	/* the battle is still open: France's report was not applied */
	char *state_text = NULL;
	assert_int_equal(store_year_state_get(f->store, &state_text, NULL), STORE_OK);
	assert_has(state_text, "\"battle\"");
	free(state_text);
	for (size_t i = before; i < n_inbox; i++) {
		assert_has_not(inbox[i].subject, "The turn of France");
		assert_has_not(inbox[i].subject, "Your turn");
		assert_has_not(inbox[i].text, "The turn of France");
	}
	size_t at = 0;
	assert_int_equal(received(BURGUNDY, before, &at), 1);
	assert_has(inbox[at].subject, "Re: orders");
	assert_has(inbox[at].text, "Your battle result was recorded");
	assert_true(maildir_merged_into(inbox[at].text, "The organiser: a note"));
	assert_has(inbox[at].text, "A hard winter.");
	assert_int_equal(received(FRANCE, before, &at), 1);
	assert_has(inbox[at].subject, "The organiser: a note");
	assert_has_not(inbox[at].text, "Your battle result");
}

/* A run of three: Burgundy's report, the organiser's decision (France's
 * turn opens), and the organiser's corrected result, which takes the step
 * back (the mails held so far are queued so that the correction can find
 * them) and then fails in the database. Its rollback takes those queued
 * mails out of the outbox again: they are held again and leave with the
 * run, Burgundy's reply with the turn of France, once, uncorrected. */
static void test_failed_correction_keeps_earlier_mails(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	size_t before = n_inbox;
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	char *trigger = xasprintf("CREATE TRIGGER fail_j BEFORE INSERT ON inbound"
				  " WHEN NEW.message_id = '<j%u@example.org>'"
				  " BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END",
				  f->uid + 3);
	assert_int_equal(sqlite3_exec(db, trigger, NULL, NULL, NULL), SQLITE_OK);
	free(trigger);
	sqlite3_close(db);
	char *err = NULL;
	assert_int_equal(engine_batch_begin(f->engine, &err), 0);
	const char *from[] = {BURGUNDY, ORGANISER, ORGANISER};
	const char *body[] = {"PLAYER burgundy " BURGUNDY_PW "\nBATTLE AT Paris\nWINNER france\n",
			      "ORGANISER " ORGANISER_PW "\nBATTLE AT Paris\nWINNER france\n",
			      "ORGANISER " ORGANISER_PW "\nBATTLE AT Paris\nWINNER burgundy\n"};
	for (size_t i = 0; i < 3; i++) {
		char *raw = raw_mail(f, from[i], body[i]);
		struct engine_outcome out;
		int rc = engine_process_mail(f->engine, 1, f->uid, raw, strlen(raw), NOW + HOUR,
					     false, &out, &err);
		if (i == 2) {
			assert_int_equal(rc, -1);
			assert_has(err, "disk full");
			free(err);
			err = NULL;
		} else {
			assert_int_equal(rc, 0);
			engine_outcome_free(&out);
		}
		free(raw);
	}
	assert_int_equal(engine_batch_commit(f->engine, &err), 0);
	maildir_flush(f, NOW + HOUR);
	size_t at = 0;
	assert_int_equal(received(BURGUNDY, before, &at), 1);
	assert_has(inbox[at].subject, "Re: orders");
	assert_has_not(inbox[at].subject, "Corrected");
	assert_has(inbox[at].text, "Your battle result was recorded");
	assert_true(maildir_merged_into(inbox[at].text, "The turn of France"));
	assert_has_not(inbox[at].text, "Corrected");
	assert_int_equal(received(FRANCE, before, &at), 1);
	assert_has(inbox[at].subject, "Your turn");
}

/* A run rolled back whole (its commit never made) sends nothing. */
static void test_rolled_back_run_sends_nothing(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	size_t before = n_inbox;
	char *err = NULL;
	assert_int_equal(engine_batch_begin(f->engine, &err), 0);
	char *raw = raw_mail(f, ORGANISER, "ORGANISER " ORGANISER_PW "\nCOMMENT A note.\n");
	struct engine_outcome out;
	assert_int_equal(engine_process_mail(f->engine, 1, f->uid, raw, strlen(raw), NOW + HOUR,
					     false, &out, &err),
			 0);
	engine_outcome_free(&out);
	free(raw);
	engine_batch_rollback(f->engine);
	assert_int_equal(engine_batch_commit(f->engine, &err), 0);
	maildir_flush(f, NOW + HOUR);
	assert_int_equal(n_inbox, before);
}

/* The line of `text` that begins with `start`, as a new string (NULL when
 * none does). */
static char *line_starting(const char *text, const char *start)
{
	for (const char *at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
		if (strncmp(at, start, strlen(start)) == 0)
			return xstrndup(at, strcspn(at, "\n"));
	return NULL;
}

/* Each outcome in the answer to an ORGANISER mail is a sentence, under the
 * line it answers (issue 13, item 4); the answer says all there is to
 * say, so the organiser gets no copy of the players' news of it beside it
 * (item 3). Each player gets the news once. */
static void test_organiser_answer_says_it_once(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	size_t before = n_inbox, at = 0;
	send_alone(f, ORGANISER,
		   "ORGANISER " ORGANISER_PW "\nEXTEND 12\nCOMMENT A hard winter.\n"
		   "PROCESS recruitment\nEXTEND 9999\n",
		   NOW + HOUR);
	assert_int_equal(received(ORGANISER, before, &at), 1);
	const char *text = inbox[at].text;
	assert_has(inbox[at].subject, "Re: orders");
	static const char *const said[][2] = {
		{"> EXTEND 12\n", "The deadline is now "},
		{"> COMMENT A hard winter.\n",
		 "The note is in the year's diary, and every player is sent it."},
		{"> PROCESS recruitment\n", "Refused: \"recruitment\" is not the current step "},
		{"> EXTEND 9999\n", "Error (line 5): "},
	};
	const char *last = text;
	for (size_t i = 0; i < sizeof said / sizeof said[0]; i++) {
		const char *q = strstr(text, said[i][0]);
		if (!q)
			fail_msg("\"%s\" not in:\n%s", said[i][0], text);
		assert_true(q > last);
		last = q;
		char *line = line_starting(q + strlen(said[i][0]), said[i][1]);
		if (!line)
			fail_msg("no \"%s\" under \"%s\" in:\n%s", said[i][1], said[i][0], text);
		/* a sentence: its capital above, its full stop here */
		assert_int_equal(line[strlen(line) - 1], '.');
		free(line);
	}
	/* what happens next once, at the end; nothing under it */
	const char *next = strstr(text, "What happens next\n");
	assert_non_null(next);
	assert_true(last < next);
	assert_int_equal(maildir_count(text, "What happens next"), 1);
	assert_has_not(text, MERGED_RULE);
	assert_has_not(text, "Below: ");
	assert_has_not(text, ORGANISER_PW);
	/* the players get their news, once each, not the answer */
	const char *players[] = {BURGUNDY, FRANCE};
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(received(players[i], before, &at), 1);
		assert_has(inbox[at].subject, "The organiser: a new deadline, a note");
		assert_has(inbox[at].text, "A hard winter.");
		assert_has_not(inbox[at].text, "> COMMENT");
	}
}

static int setup_organiser_plays_france(void **state)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	static const char *const pw[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					 STORE_ORGANISER, ORGANISER_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	struct campaign *c = fixture_campaign();
	free(c->organiser_email);
	c->organiser_email = xstrdup(FRANCE);
	test_engine_open(f, "batchjoin", c, pw, &cfg);
	*state = f;
	return 0;
}

/* The organiser plays France, whose stand-in stands in: the stand-in gets
 * a copy of what France is told, never the organiser's answer, so the
 * answer goes alone and the news in a mail of its own, copied to him. */
static void test_organiser_answer_never_to_a_stand_in(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_stand_in_name(f->engine, "france", "hans@example.de", "Hans",
					      "2027-03-31", NOW, &report, &err),
			 0);
	free(report);
	maildir_flush(f, NOW);
	size_t before = n_inbox, at = 0;
	send_alone(f, FRANCE, "ORGANISER " ORGANISER_PW "\nCOMMENT A hard winter.\n", NOW + HOUR);
	assert_int_equal(received(FRANCE, before, &at), 2);
	for (size_t i = before; i < n_inbox; i++) {
		if (strcmp(inbox[i].to, FRANCE) != 0)
			continue;
		if (strstr(inbox[i].subject, "Re: orders")) {
			assert_has(inbox[i].text, "> COMMENT A hard winter.\nThe note is in the "
						  "year's diary, and every player is sent it.");
			assert_has_not(inbox[i].text, MERGED_RULE);
			assert_has_not(inbox[i].text, "Below: ");
		} else {
			assert_has(inbox[i].subject, "The organiser: a note");
		}
	}
	assert_int_equal(received("hans@example.de", before, &at), 1);
	assert_has(inbox[at].subject, "France's mail: ");
	assert_has(inbox[at].text, "A hard winter.");
	assert_has_not(inbox[at].text, "> COMMENT");
	assert_has_not(inbox[at].text, "your organiser orders");
}

/* PREVIEW lists the mails as they will leave (issue 13, item 7; the
 * club's mail 64 listed one line per request, 7 of them, and 4 were
 * sent): the turn played at its deadline sends exactly the mails the
 * preview named, each to whom it said, led by the part it said, with the
 * parts it said under it. */
static void test_preview_lists_mails_as_sent(void **state)
{
	struct test_engine *f = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, SEED, &report, &err), 0);
	free(report);
	maildir_flush(f, NOW);
	size_t before = n_inbox, at = 0;
	send_alone(f, ORGANISER, "ORGANISER " ORGANISER_PW "\nPREVIEW\n", NOW + HOUR);
	assert_int_equal(received(ORGANISER, before, &at), 1);
	const char *list = strstr(inbox[at].text, "The mails it would send, one to each person:\n");
	assert_non_null(list);
	const char *end = strstr(list, "\n\n");
	char *preview = xstrndup(list, end ? (size_t)(end - list) : strlen(list));
	/* the turn played at its deadline */
	char *st = NULL;
	assert_int_equal(store_year_state_get(f->store, &st, NULL), STORE_OK);
	json_t *doc = json_loads(st, 0, NULL);
	free(st);
	int64_t deadline = json_integer_value(json_object_get(doc, "deadline"));
	json_decref(doc);
	struct engine_tick_info info;
	assert_int_equal(engine_tick(f->engine, deadline + 1, 0, &info, &err), 0);
	before = n_inbox;
	maildir_flush(f, deadline + 1);
	size_t sent = n_inbox - before, joined = 0, named = 0;
	assert_true(sent >= 3);
	for (size_t i = before; i < n_inbox; i++) {
		const char *dot = strstr(inbox[i].subject, "\u00b7 ");
		assert_non_null(dot);
		struct strbuf want = {0};
		strbuf_printf(&want, "  \"%s\"", dot + strlen("\u00b7 "));
		struct merged_part p;
		size_t k = 0, n = 0;
		for (const char *from = inbox[i].text; merged_part_next(from, &p); from = p.rule)
			n++;
		/* its parts: "with "A", "B" and "C" under it," */
		for (const char *from = inbox[i].text; merged_part_next(from, &p); from = p.rule, k++)
			strbuf_printf(&want, "%s\"%.*s\"",
				      k == 0 ? " with " : k + 1 == n ? " and " : ", ",
				      (int)p.head_len, p.head);
		strbuf_printf(&want, "%s to ", k ? " under it," : "");
		joined += k > 0;
		const char *who = strcmp(inbox[i].to, BURGUNDY) == 0 ? "Burgundy"
				  : strcmp(inbox[i].to, FRANCE) == 0 ? "France"
								       : "the organiser";
		char *line = line_starting(preview, want.data);
		if (!line || !strstr(line + strlen(want.data), who))
			fail_msg("no line \"%s... %s\" in:\n%s", want.data, who, preview);
		free(line);
		strbuf_free(&want);
	}
	/* nobody named who gets no mail, nor a mail twice */
	const char *names[] = {"Burgundy", "France", "the organiser"};
	for (const char *l = strchr(preview, '\n'); l; l = strchr(l + 1, '\n')) {
		char *line = xstrndup(l + 1, strcspn(l + 1, "\n"));
		const char *to = NULL; /* the recipients: after the line's last " to " */
		for (const char *t = line; (t = strstr(t, " to ")); t++)
			to = t;
		for (size_t i = 0; to && i < 3; i++)
			named += maildir_count(to, names[i]);
		free(line);
	}
	assert_int_equal(named, sent);
	assert_true(joined >= 1); /* the next mover's turn and the report, as one */
	free(preview);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reply_joins_what_later_mails_caused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_mail_leaves_no_part, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_correction_keeps_earlier_mails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rolled_back_run_sends_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_organiser_answer_says_it_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_organiser_answer_never_to_a_stand_in,
						setup_organiser_plays_france, teardown),
		cmocka_unit_test_setup_teardown(test_preview_lists_mails_as_sent, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
