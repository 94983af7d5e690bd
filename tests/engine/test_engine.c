/* The engine on a real SQLite file: one inbound mail at a time, and the
 * outbox through a sink. Templates come from the source tree. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sodium.h>
#include <sqlite3.h>

#include "lib/campaign_fixture.h"
#include "engine/engine.h"
#include "lib/engine_fixture.h"
#include "engine/engine_p.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/util.h"

#define NOW 1796000000LL
#define ADDRESS TEST_ADDRESS
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"

static const char *const passwords[] = {"burgundy", BURGUNDY_PW, STORE_ORGANISER, ORGANISER_PW,
					 NULL};

static int setup(void **state)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX",
				    .limits = {.max_bytes = 20000, .max_depth = 10}};
	test_engine_open(f, "engine", fixture_campaign(), passwords, &cfg);
	*state = f;
	return 0;
}

/* A mail as a client sends it, with extra header lines and a body. */
static char *mail(const char *from, const char *msgid, const char *extra_headers,
		  const char *body)
{
	return test_mail(&(struct test_mail){.from = from, .msgid = msgid, .date = TEST_DATE,
					     .headers = extra_headers, .body = body});
}

static size_t outbox_count(struct test_engine *f)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000000, 100, &items, &n, NULL), STORE_OK);
	store_outbox_items_free(items, n);
	return n;
}

static enum engine_verdict process(struct test_engine *f, uint32_t uid, const char *raw,
				   struct engine_outcome *out)
{
	return test_engine_process(f, 7, uid, raw, NOW, out);
}

static char *stored_orders(struct test_engine *f, const char *player)
{
	char *text = NULL;
	assert_int_equal(store_orders_get(f->store, player, 1450, PHASE_SETUP, &text, NULL), STORE_OK);
	return text;
}

static void test_accepted_orders_are_stored_and_acknowledged(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *m = mail("Philippe <philippe@example.org>", "a1@example.org", "",
		       "Bonjour,\r\nPLAYER burgundy " BURGUNDY_PW "\r\nINVADE Flanders\r\n"
		       "IN STORM HALT\r\n-- \r\nPhilippe\r\n");
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	assert_string_equal(out.reply_to, "philippe@example.org");
	assert_string_equal(out.player, "burgundy");
	assert_int_equal(out.order_errors, 0);
	/* the reply names each order as understood and never the password */
	assert_non_null(strstr(out.reply, "INVADE"));
	assert_non_null(strstr(out.reply, "Flanders"));
	assert_non_null(strstr(out.reply, "Errors: 0"));
	assert_null(strstr(out.reply, BURGUNDY_PW));
	engine_outcome_free(&out);
	assert_int_equal(outbox_count(f), 1);
	char *orders = stored_orders(f, "burgundy");
	assert_non_null(orders);
	assert_non_null(strstr(orders, "Flanders"));
	assert_non_null(strstr(orders, "IN STORM HALT"));
	free(orders);

	/* the mailbox position moved on and the move out of the inbox is pending */
	uint32_t uidvalidity, last, *uids;
	size_t n;
	assert_int_equal(engine_mailbox_position(f->engine, &uidvalidity, &last, NULL), 0);
	assert_int_equal(uidvalidity, 7);
	assert_int_equal(last, 1);
	assert_int_equal(engine_pending_moves(f->engine, 7, &uids, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(uids[0], 1);
	free(uids);
	assert_int_equal(engine_move_done(f->engine, 7, &(uint32_t){1}, 1, NULL), 0);
	assert_int_equal(engine_pending_moves(f->engine, 7, &uids, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(uids);
	free(m);
}

/* Group commit: three mails in one transaction, the second failing in the
 * database (a trigger stands for a full disk on its insert). It is undone
 * alone; the others are kept, with their replies and pending moves, and
 * nothing is visible to another connection before the commit. */
static void test_group_commit_failing_mail_rolls_back_alone(void **state)
{
	struct test_engine *f = *state;
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TRIGGER fail_b2 BEFORE INSERT ON inbound"
				      " WHEN NEW.message_id = '<b2@example.org>'"
				      " BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	char *err = NULL;
	assert_int_equal(engine_batch_begin(f->engine, &err), 0);
	const char *ids[] = {"b1@example.org", "b2@example.org", "b3@example.org"};
	for (uint32_t i = 0; i < 3; i++) {
		char *m = mail("philippe@example.org", ids[i], "",
			       "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
		struct engine_outcome out;
		int rc = engine_process_mail(f->engine, 7, i + 1, m, strlen(m), NOW, false, &out,
					     &err);
		if (i == 1) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, "disk full"));
			free(err);
			err = NULL;
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(out.verdict, ENGINE_ACCEPTED);
			engine_outcome_free(&out);
		}
		assert_true(engine_batch_open(f->engine));
		free(m);
	}
	/* another process sees nothing yet */
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM inbound", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_reset(st);
	assert_int_equal(engine_batch_commit(f->engine, &err), 0);
	assert_false(engine_batch_open(f->engine));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 2);
	sqlite3_finalize(st);
	sqlite3_close(db);

	bool seen = false;
	assert_int_equal(store_inbound_seen(f->store, "INBOX", 7, 2, "<b2@example.org>", &seen, NULL),
			 STORE_OK);
	assert_false(seen);
	assert_int_equal(outbox_count(f), 2);
	uint32_t *uids, uidvalidity, last;
	size_t n;
	assert_int_equal(engine_pending_moves(f->engine, 7, &uids, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(uids[0], 1);
	assert_int_equal(uids[1], 3);
	free(uids);
	assert_int_equal(engine_mailbox_position(f->engine, &uidvalidity, &last, NULL), 0);
	assert_int_equal(last, 3);
	/* pending moves of another UIDVALIDITY are not these */
	assert_int_equal(engine_pending_moves(f->engine, 8, &uids, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(uids);
}

/* A group rolled back whole (the daemon could not commit) leaves nothing. */
static void test_group_rolled_back_leaves_nothing(void **state)
{
	struct test_engine *f = *state;
	char *err = NULL;
	assert_int_equal(engine_batch_begin(f->engine, &err), 0);
	char *m = mail("philippe@example.org", "c1@example.org", "",
		       "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
	struct engine_outcome out;
	assert_int_equal(engine_process_mail(f->engine, 7, 1, m, strlen(m), NOW, false, &out, &err), 0);
	engine_outcome_free(&out);
	engine_batch_rollback(f->engine);
	assert_false(engine_batch_open(f->engine));
	assert_int_equal(outbox_count(f), 0);
	uint32_t *uids, uidvalidity, last;
	size_t n;
	assert_int_equal(engine_pending_moves(f->engine, 7, &uids, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(uids);
	assert_int_equal(engine_mailbox_position(f->engine, &uidvalidity, &last, NULL), 0);
	assert_int_equal(last, 0);
	/* and the same mail is processed afresh afterwards */
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(m);
}

static void test_generated_password_typed_loosely(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	/* lower case, no dashes, O for 0 and l for 1 */
	char *m = mail("philippe@example.org", "p1@example.org", "",
		       "PLAYER burgundy brgOlxyz7kqm2xrt\nNO MOVE\n");
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(m);
	m = mail("philippe@example.org", "p2@example.org", "",
		 "PLAYER burgundy BRG0-1XYZ-7KQM-2XRU\nNO MOVE\n");
	assert_int_equal(process(f, 2, m, &out), ENGINE_REJECTED);
	engine_outcome_free(&out);
	free(m);
}

static void test_second_mail_replaces_movement(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *m1 = mail("philippe@example.org", "b1@example.org", "",
			"PLAYER burgundy " BURGUNDY_PW "\nINVADE Flanders\nIN STORM HALT\n");
	char *m2 = mail("philippe@example.org", "b2@example.org", "",
			"PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
	assert_int_equal(process(f, 1, m1, &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 0);
	engine_outcome_free(&out);
	char *first = stored_orders(f, "burgundy");
	assert_non_null(strstr(first, "INVADE Flanders"));
	free(first);
	assert_int_equal(process(f, 2, m2, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	char *orders = stored_orders(f, "burgundy");
	assert_null(strstr(orders, "Flanders"));
	assert_non_null(strstr(orders, "NO MOVE"));
	assert_non_null(strstr(orders, "IN STORM HALT"));
	free(orders);
	free(m1);
	free(m2);
}

static void test_wrong_password_replies_to_registered_address(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *m = mail("Mallory <mallory@evil.example>", "c1@evil.example", "",
		       "PLAYER burgundy guessed-wrong\nINVADE Flanders\n");
	assert_int_equal(process(f, 1, m, &out), ENGINE_REJECTED);
	assert_false(out.authenticated);
	assert_string_equal(out.reply_to, "philippe@example.org");
	assert_null(strstr(out.reply, "guessed-wrong"));
	engine_outcome_free(&out);
	assert_null(stored_orders(f, "burgundy"));
	assert_int_equal(outbox_count(f), 1);
	free(m);
}

static void test_forged_from_without_password_changes_nothing(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	/* no PLAYER line at all, from an unknown address: silence */
	char *m = mail("someone@elsewhere.example", "d1@elsewhere.example", "", "INVADE Flanders\n");
	assert_int_equal(process(f, 1, m, &out), ENGINE_IGNORED);
	assert_null(out.reply);
	engine_outcome_free(&out);
	free(m);
	/* the player's own address forged, no password: nothing changes; the
	 * real player is told (rate-limited), nobody else */
	m = mail("philippe@example.org", "d2@elsewhere.example", "", "INVADE Flanders\n");
	for (uint32_t uid = 2; uid < 8; uid++) {
		char *again = xasprintf("Message-ID: <d%u@x>\r\n%s", uid, m);
		process(f, uid, again, &out);
		assert_int_equal(out.verdict, ENGINE_REJECTED);
		engine_outcome_free(&out);
		free(again);
	}
	assert_null(stored_orders(f, "burgundy"));
	/* the budget of one origin per hour, and the one answer a day that
	 * mail claiming the registered address always gets */
	assert_int_equal(outbox_count(f), 3 + 1);
	free(m);
}

static void test_loops_and_bounces_are_ignored(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	const char *body = "PLAYER burgundy " BURGUNDY_PW "\nINVADE Flanders\n";
	const char *headers[] = {
		"Auto-Submitted: auto-replied\r\n",
		"Return-Path: <>\r\n",
		"Precedence: bulk\r\n",
		"List-Id: <dbm.lists.example.org>\r\n",
		"X-Loop: " ADDRESS "\r\n",
	};
	for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
		char id[32];
		snprintf(id, sizeof id, "e%zu@example.org", i);
		char *m = mail("philippe@example.org", id, headers[i], body);
		assert_int_equal(process(f, (uint32_t)i + 1, m, &out), ENGINE_IGNORED);
		assert_null(out.reply);
		engine_outcome_free(&out);
		free(m);
	}
	char *own = mail(ADDRESS, "own@example.org", "", body);
	assert_int_equal(process(f, 10, own, &out), ENGINE_IGNORED);
	engine_outcome_free(&out);
	free(own);
	assert_int_equal(outbox_count(f), 0);
	assert_null(stored_orders(f, "burgundy"));
}

static void test_replay_is_not_applied_twice(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *m = mail("philippe@example.org", "r1@example.org", "",
		       "PLAYER burgundy " BURGUNDY_PW "\nINVADE Flanders\n");
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	/* the same Message-ID under another UID, and the same UID again */
	assert_int_equal(process(f, 2, m, &out), ENGINE_DUPLICATE);
	engine_outcome_free(&out);
	assert_int_equal(process(f, 1, m, &out), ENGINE_DUPLICATE);
	engine_outcome_free(&out);
	assert_int_equal(outbox_count(f), 1);
	uint32_t uidvalidity, last;
	assert_int_equal(engine_mailbox_position(f->engine, &uidvalidity, &last, NULL), 0);
	assert_int_equal(last, 2);
	free(m);
}

static void test_oversized_mail_is_refused_with_a_reply(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	struct strbuf big = {0};
	strbuf_puts(&big, "PLAYER burgundy " BURGUNDY_PW "\n");
	while (big.len < 30000)
		strbuf_puts(&big, "INVADE Flanders\n");
	char *m = mail("philippe@example.org", "big@example.org", "", big.data);
	assert_int_equal(process(f, 1, m, &out), ENGINE_REJECTED);
	assert_string_equal(out.reply_to, "philippe@example.org");
	assert_non_null(strstr(out.reply, "too large"));
	engine_outcome_free(&out);
	assert_null(stored_orders(f, "burgundy"));
	strbuf_free(&big);
	free(m);
}

/* ---- mail as real clients write it (tests/data/mail) ---- */

static char *load_mail(const char *name)
{
	const char *srcdir = getenv("top_srcdir");
	char *path = xasprintf("%s/tests/data/mail/%s", srcdir ? srcdir : ".", name);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		fail_msg("cannot open %s", path);
	struct strbuf sb = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		strbuf_append(&sb, buf, n);
	fclose(fp);
	free(path);
	return strbuf_take(&sb);
}

static enum engine_verdict process_file(struct test_engine *f, uint32_t uid, const char *name,
					struct engine_outcome *out)
{
	char *raw = load_mail(name);
	enum engine_verdict v = process(f, uid, raw, out);
	free(raw);
	return v;
}

/* The Subject line of the only mail in the outbox (the reply). */
static char *outbox_subject(struct test_engine *f)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000000, 100, &items, &n, NULL), STORE_OK);
	assert_int_equal(n, 1);
	char *text = test_searchable(items[0].raw, items[0].raw_len);
	const char *at = text + 9; /* the decoded Subject */
	char *subject = xstrndup(at, strcspn(at, "\r\n"));
	assert_null(strstr(text, BURGUNDY_PW));
	free(text);
	store_outbox_items_free(items, n);
	return subject;
}

static void assert_forwarded_accepted(struct test_engine *f, const char *file, const char *sender,
				      const char *orders_expected)
{
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, file, &out), ENGINE_ACCEPTED);
	assert_string_equal(out.sender, sender);
	assert_string_equal(out.player, "burgundy");
	assert_true(out.authenticated);
	assert_int_equal(out.order_errors, 0);
	/* acknowledged to the registered address, naming where the mail came from */
	assert_string_equal(out.reply_to, "philippe@example.org");
	char *line = xasprintf("This mail came from %s, not from your registered address", sender);
	assert_non_null(strstr(out.reply, line));
	free(line);
	assert_non_null(strstr(out.reply, "read from the message forwarded in your mail"));
	engine_outcome_free(&out);
	char *orders = stored_orders(f, "burgundy");
	assert_string_equal(orders, orders_expected);
	free(orders);
}

/* Forwarded inline by Gmail, Apple Mail and Outlook, and as an attached
 * message by Thunderbird, from another address: read on the PLAYER line. */
static void test_forwarded_gmail(void **state)
{
	assert_forwarded_accepted(*state, "gmail-forward-inline.eml", "philippe.perso@gmail.example",
				  "INVADE Flanders\nIN STORM HALT\n");
}

static void test_forwarded_applemail(void **state)
{
	assert_forwarded_accepted(*state, "applemail-forward.eml", "philippe@icloud.example",
				  "INVADE Flanders\n");
}

static void test_forwarded_outlook(void **state)
{
	assert_forwarded_accepted(*state, "outlook-forward.eml", "p.lebon@work.example",
				  "INVADE Flanders\n");
}

static void test_forwarded_as_attachment(void **state)
{
	assert_forwarded_accepted(*state, "thunderbird-forward-attached.eml", "philippe@old.example",
				  "INVADE Flanders\n");
}

/* A forwarded mail without the right password changes nothing. */
static void test_forwarded_wrong_password(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *raw = load_mail("gmail-forward-inline.eml");
	/* the same mail with another password (quoted-printable keeps it as is) */
	char *at = strstr(raw, "BRG0-1XYZ");
	assert_non_null(at);
	memcpy(at, "BRG9-9XYZ", 9);
	assert_int_equal(process(f, 1, raw, &out), ENGINE_IGNORED);
	assert_string_equal(out.summary, "unknown sender and no valid PLAYER line");
	assert_null(out.reply);
	engine_outcome_free(&out);
	assert_null(stored_orders(f, "burgundy"));
	free(raw);
}

/* Bottom-posted and interleaved replies: every unquoted line is read. */
static void test_bottom_posted_reply(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "thunderbird-bottom-post.eml", &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 0);
	assert_null(strstr(out.reply, "This mail came from"));
	engine_outcome_free(&out);
	char *orders = stored_orders(f, "burgundy");
	assert_string_equal(orders, "INVADE Flanders\n");
	free(orders);
}

static void test_interleaved_reply(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "gmail-interleaved.eml", &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 0);
	engine_outcome_free(&out);
	char *orders = stored_orders(f, "burgundy");
	assert_string_equal(orders, "INVADE Flanders\nIN STORM HALT\n");
	free(orders);
}

/* Sign-offs of phones and Windows Mail are no orders and no errors. */
static void test_signoffs_ignored(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "windows-mail-signoffs.eml", &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 0);
	assert_null(strstr(out.reply, "gesendet"));
	assert_null(strstr(out.reply, "Mail for Windows"));
	engine_outcome_free(&out);
	char *orders = stored_orders(f, "burgundy");
	assert_string_equal(orders, "INVADE Flanders\nIN STORM HALT\n");
	free(orders);
}

/* Out-of-office replies without Auto-Submitted get no answer. */
static void test_auto_replies_unanswered(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "exchange-automatic-reply.eml", &out), ENGINE_IGNORED);
	assert_string_equal(out.summary,
			    "an automatic reply (an automatic reply's Subject) without a PLAYER line");
	assert_null(out.reply);
	engine_outcome_free(&out);
	assert_int_equal(process_file(f, 2, "precedence-auto-reply.eml", &out), ENGINE_IGNORED);
	assert_string_equal(out.summary, "an automatic reply (Precedence: auto_reply)");
	assert_null(out.reply);
	engine_outcome_free(&out);
	/* nor one that cannot be read at all (an image only) */
	char *img = xasprintf("From: philippe@example.org\r\nTo: " ADDRESS "\r\n"
			      "Subject: Out of Office: orders\r\nMessage-ID: <oof-img@example.org>\r\n"
			      "Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\n"
			      "iVBORw0KGgo=\r\n");
	assert_int_equal(process(f, 4, img, &out), ENGINE_IGNORED);
	assert_null(out.reply);
	engine_outcome_free(&out);
	free(img);
	assert_int_equal(outbox_count(f), 0);

	/* X-Auto-Response-Suppress alone (Exchange puts it on ordinary mail
	 * too) does not hide orders with a PLAYER line */
	char *m = mail("philippe@example.org", "xars@example.org", "X-Auto-Response-Suppress: All\r\n",
		       "PLAYER burgundy " BURGUNDY_PW "\r\nINVADE Flanders\r\n");
	assert_int_equal(process(f, 3, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(m);
}

/* A Subject with a PLAYER line: not read, not repeated, and the reply says so. */
static void test_subject_with_player_line(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "subject-player-line.eml", &out), ENGINE_REJECTED);
	assert_string_equal(out.reply_to, "philippe@example.org");
	assert_non_null(strstr(out.reply, "The Subject of a mail is not read for orders"));
	assert_null(strstr(out.reply, BURGUNDY_PW));
	assert_null(strstr(out.reply, "PLAYER burgundy BRG0"));
	engine_outcome_free(&out);
	char *subject = outbox_subject(f);
	assert_string_equal(subject, "[TestMarches] 1450 \u00b7 Your mail to the campaign");
	free(subject);
}

/* Club finding 5: a Subject of everyday words ("help please") above a body
 * with orders is a phrase: no warning that orders in it were not applied,
 * and the reply keeps it (Re:). */
static void test_subject_of_everyday_words(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *m = test_mail(&(struct test_mail){.from = "philippe@example.org",
						.msgid = "help-please@example.org",
						.date = TEST_DATE, .subject = "help please",
						.body = "PLAYER burgundy " BURGUNDY_PW "\r\nHELP\r\n"});
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	free(m);
	assert_null(strstr(out.reply, "The Subject of a mail is not read"));
	assert_null(strstr(out.reply, "orders in your Subject"));
	assert_non_null(strstr(out.reply, "RESUBMISSION")); /* the HELP was answered */
	engine_outcome_free(&out);
	char *subject = outbox_subject(f);
	assert_string_equal(subject, "[TestMarches] 1450 \u00b7 Re: help please");
	free(subject);
}

/* The organiser's "preview please" keeps its Subject too. */
static void test_subject_preview_please(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *m = test_mail(&(struct test_mail){.from = "organiser@example.org",
						.msgid = "preview-please@example.org",
						.date = TEST_DATE, .subject = "preview please",
						.body = "ORGANISER " ORGANISER_PW "\r\nPREVIEW\r\n"});
	process(f, 1, m, &out);
	free(m);
	assert_non_null(out.reply);
	assert_null(strstr(out.reply, "orders in your Subject"));
	engine_outcome_free(&out);
	char *subject = outbox_subject(f);
	assert_string_equal(subject, "[TestMarches] 1450 \u00b7 Re: preview please");
	free(subject);
}

/* Reading stopped at Outlook's header block: the rejection says where. */
static void test_rejection_says_where_reading_stopped(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "outlook-reply-no-player.eml", &out), ENGINE_REJECTED);
	assert_string_equal(out.summary, "no PLAYER line with your nation and password above "
					 "line 5, where reading stopped: nothing was changed");
	assert_non_null(strstr(out.reply, "Reading stopped at line 5 of your mail: the header "
					  "lines of an earlier message (From:, Sent:...) begin "
					  "there."));
	engine_outcome_free(&out);
}

/* Too large: the reply gives the size and the limit and names the photo. */
static void test_oversized_photo(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	assert_int_equal(process_file(f, 1, "iphone-photo-oversized.eml", &out), ENGINE_REJECTED);
	assert_string_equal(out.summary,
			    "your mail is 34 kB, and the campaign reads mails of up to 20 kB");
	assert_non_null(strstr(out.reply, "without the photo"));
	assert_null(strstr(out.reply, "plain text"));
	engine_outcome_free(&out);
	assert_null(stored_orders(f, "burgundy"));
}

/* The invariant where mail is queued: a mail that repeats the password of
 * the mail being answered aborts when CAMPAIGND_SECRET_LEAK_ABORT is set (as
 * for every test), and is masked (and logged) otherwise. */
static int queue_leaking_mail(struct test_engine *f)
{
	struct engine *e = f->engine;
	e->secrets = xcalloc(1, sizeof *e->secrets);
	e->secrets[0] = xstrdup(BURGUNDY_PW);
	e->secret_count = 1;
	json_t *data = json_object();
	json_object_set_new(data, "campaign", json_string("Test"));
	json_object_set_new(data, "reason", json_string("a template bug: " BURGUNDY_PW));
	struct reply r = {"philippe@example.org", "Philippe", "Re: PLAYER burgundy " BURGUNDY_PW,
			  "rejected", data, NULL, "leak.1", MAIL_AUTO_REPLIED, NULL, 0, NULL, false, 0};
	char *err = NULL, *body = NULL;
	struct campaign c = {.name = "Test", .year = 1450};
	int rc = engine_queue_mail(e, &r, &c, NOW, &body, &err);
	json_decref(data);
	free(err);
	if (body)
		assert_null(strstr(body, BURGUNDY_PW));
	free(body);
	return rc;
}

static void test_secret_leak_is_caught(void **state)
{
	struct test_engine *f = *state;
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("CAMPAIGND_SECRET_LEAK_ABORT", "1", 1);
		fclose(stderr); /* the BUG line is expected here */
		queue_leaking_mail(f);
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_int_equal(outbox_count(f), 0);

	char *saved = getenv("CAMPAIGND_SECRET_LEAK_ABORT");
	saved = saved ? xstrdup(saved) : NULL;
	unsetenv("CAMPAIGND_SECRET_LEAK_ABORT");
	int rc = queue_leaking_mail(f);
	if (saved)
		setenv("CAMPAIGND_SECRET_LEAK_ABORT", saved, 1);
	free(saved);
	assert_int_equal(rc, 0);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000000, 100, &items, &n, NULL), STORE_OK);
	assert_int_equal(n, 1);
	char *text = test_searchable(items[0].raw, items[0].raw_len);
	assert_null(strstr(text, BURGUNDY_PW));
	assert_non_null(strstr(text, "Subject: [Test] 1450 \u00b7 Re: PLAYER burgundy ********"));
	free(text);
	store_outbox_items_free(items, n);
}

static void test_dry_run_changes_nothing(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	char *err = NULL;
	char *m = mail("philippe@example.org", "dry@example.org", "",
		       "PLAYER burgundy " BURGUNDY_PW "\nINVADE Flanders\n");
	assert_int_equal(engine_process_mail(f->engine, 7, 1, m, strlen(m), NOW, true, &out, &err), 0);
	assert_int_equal(out.verdict, ENGINE_ACCEPTED);
	assert_non_null(out.reply);
	engine_outcome_free(&out);
	assert_int_equal(outbox_count(f), 0);
	assert_null(stored_orders(f, "burgundy"));
	/* and the real run afterwards is not a duplicate */
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(m);
}

/* A sink whose answer the test chooses. */
struct fake_sink {
	enum transport_status answer;
	int calls;
	char last_rcpt[128];
};

static enum transport_status fake_send(void *state, const char *from, const char *const *rcpts,
				       size_t n, const char *data, size_t len, char **errstr)
{
	struct fake_sink *s = state;
	(void)from;
	(void)data;
	(void)len;
	s->calls++;
	snprintf(s->last_rcpt, sizeof s->last_rcpt, "%s", n ? rcpts[0] : "");
	if (s->answer != TRANSPORT_OK && errstr)
		*errstr = xstrdup(s->answer == TRANSPORT_PERMFAIL ? "550 no such user"
				  : s->answer == TRANSPORT_BLOCKED
					  ? "SSL peer certificate or SSH remote key was not OK"
					  : "451 later");
	return s->answer;
}

static void fake_free(void *state)
{
	(void)state;
}

static const struct mail_sink_ops fake_ops = {"fake", fake_send, fake_free};

static void test_outbox_retries_and_reports_failures(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	struct fake_sink fs = {TRANSPORT_TEMPFAIL, 0, ""};
	struct mail_sink *sink = mail_sink_new(&fake_ops, &fs);
	char *m = mail("philippe@example.org", "o1@example.org", "",
		       "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);

	size_t sent, failed;
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW, &sent, &failed, NULL), 0);
	assert_int_equal(sent, 0);
	assert_int_equal(failed, 1);
	/* not due again for a minute */
	assert_int_equal(engine_outbox_next_due(f->engine, NOW), 60);
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW + 30, &sent, &failed, NULL), 0);
	assert_int_equal(fs.calls, 1);
	/* then the server refuses it for good: the organiser is told */
	fs.answer = TRANSPORT_PERMFAIL;
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW + 61, &sent, &failed, NULL), 0);
	assert_int_equal(fs.calls, 2);
	fs.answer = TRANSPORT_OK;
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW + 62, &sent, &failed, NULL), 0);
	assert_int_equal(sent, 1);
	assert_string_equal(fs.last_rcpt, "organiser@example.org");
	assert_int_equal(engine_outbox_next_due(f->engine, NOW + 62), -1);
	mail_sink_free(sink);
	free(m);
}

/* Every due reply goes out in one flush, not only a first hundred, and
 * each is marked sent (a second flush sends nothing). */
static void test_outbox_sends_every_due_reply(void **state)
{
	struct test_engine *f = *state;
	struct fake_sink fs = {TRANSPORT_OK, 0, ""};
	struct mail_sink *sink = mail_sink_new(&fake_ops, &fs);
	engine_free(f->engine); /* one without the default rate limit */
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX",
				    .limits = {.max_bytes = 20000, .max_depth = 10},
				    .rate_limit_per_hour = 100000};
	f->engine = engine_new(f->store, f->tpl, &cfg);
	for (uint32_t i = 1; i <= 250; i++) {
		char id[32];
		snprintf(id, sizeof id, "many%u@example.org", i);
		char *m = mail("philippe@example.org", id, "",
			       "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
		struct engine_outcome out;
		assert_int_equal(process(f, i, m, &out), ENGINE_ACCEPTED);
		engine_outcome_free(&out);
		free(m);
	}
	size_t sent, failed;
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW, &sent, &failed, NULL), 0);
	assert_int_equal(sent, 250);
	assert_int_equal(failed, 0);
	assert_int_equal(fs.calls, 250);
	assert_string_equal(fs.last_rcpt, "philippe@example.org");
	assert_int_equal(engine_outbox_next_due(f->engine, NOW), -1);
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW + 3600, &sent, &failed, NULL), 0);
	assert_int_equal(sent, 0);
	assert_int_equal(fs.calls, 250);
	mail_sink_free(sink);
}

/* Issue 17: a reply quotes only excerpts of what it answers, and ids a
 * client mangled are left out instead of failing the reply. */
static size_t largest_outbox_mail(struct test_engine *f)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0, largest = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000000, 100, &items, &n, NULL), STORE_OK);
	for (size_t i = 0; i < n; i++)
		if (items[i].raw_len > largest)
			largest = items[i].raw_len;
	store_outbox_items_free(items, n);
	return largest;
}

static void test_replies_quote_excerpts_only(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	struct strbuf sb = {0};
	strbuf_puts(&sb, "From: philippe@example.org\r\nSubject: ");
	for (int i = 0; i < 15000; i++)
		strbuf_putc(&sb, 'S');
	strbuf_puts(&sb, "\r\nMessage-ID: <long-subject@example.org>\r\n\r\n"
			 "PLAYER burgundy WRONG\r\nNO MOVE\r\n");
	assert_int_equal(process(f, 1, sb.data, &out), ENGINE_REJECTED);
	assert_true(strlen(out.reply) < 2000);
	engine_outcome_free(&out);
	assert_true(largest_outbox_mail(f) < 4000);
	strbuf_free(&sb);

	/* 2,000 lines: 200 listed, the rest counted */
	strbuf_puts(&sb, "PLAYER burgundy " BURGUNDY_PW "\n");
	for (int i = 0; i < 2000; i++)
		strbuf_puts(&sb, "NO MOVE\n");
	char *m = mail("philippe@example.org", "many-lines@example.org", "", sb.data);
	assert_int_equal(process(f, 2, m, &out), ENGINE_ACCEPTED);
	assert_non_null(strstr(out.reply, "  200: "));
	assert_null(strstr(out.reply, "  201: "));
	assert_non_null(strstr(out.reply, "and 1801 more, not shown: 0 understood,\n"
					  "  1801 in error, 0 ignored"));
	assert_true(strlen(out.reply) < 40000); /* 200 lines, whatever the mail holds */
	engine_outcome_free(&out);
	free(m);
	strbuf_free(&sb);

	/* Message-ID and References as some clients write them */
	m = mail("philippe@example.org", "a<b@x.example",
		 "References: <c@x.example>,<d@x.example> <caf\xc3\xa9@x.example>\r\n",
		 "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
	assert_int_equal(process(f, 3, m, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(m);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	assert_int_equal(store_outbox_due(f->store, NOW + 1000000, 100, &items, &n, NULL), STORE_OK);
	assert_int_equal(n, 3);
	assert_non_null(strstr(items[2].raw, "References: <c@x.example>\r\n <d@x.example>\r\n"));
	assert_null(strstr(items[2].raw, "In-Reply-To"));
	store_outbox_items_free(items, n);
}

/* Issue 17: sent mail is kept keep_mail_days (30 by default), rate
 * counters two days; queued mail and the newest row always stay. */
static void test_prune_old_mail_and_counters(void **state)
{
	struct test_engine *f = *state;
	char *err = NULL;
	int64_t id_old = 0, id_recent = 0, id_queued = 0, id_last = 0;
	int64_t day = 86400;
	assert_int_equal(store_outbox_add(f->store, "<old@x>", "a@x", "old", 3, NOW - 40 * day,
					  &id_old, &err), STORE_OK);
	assert_int_equal(store_outbox_add(f->store, "<queued@x>", "a@x", "q", 1, NOW - 40 * day,
					  &id_queued, &err), STORE_OK);
	assert_int_equal(store_outbox_add(f->store, "<recent@x>", "a@x", "new", 3, NOW - 40 * day,
					  &id_recent, &err), STORE_OK);
	assert_int_equal(store_outbox_add(f->store, "<last@x>", "a@x", "last", 4, NOW - 40 * day,
					  &id_last, &err), STORE_OK);
	assert_int_equal(store_outbox_mark_sent(f->store, id_old, NOW - 31 * day, &err), STORE_OK);
	assert_int_equal(store_outbox_mark_sent(f->store, id_recent, NOW - 29 * day, &err), STORE_OK);
	assert_int_equal(store_outbox_mark_sent(f->store, id_last, NOW - 31 * day, &err), STORE_OK);
	char *old_key = xasprintf("rate:reject:a@x:%lld", (long long)(NOW / 3600 - 49));
	char *new_key = xasprintf("rate:reject:a@x:%lld", (long long)(NOW / 3600 - 47));
	assert_int_equal(store_kv_set(f->store, old_key, "3", &err), STORE_OK);
	assert_int_equal(store_kv_set(f->store, new_key, "3", &err), STORE_OK);
	assert_int_equal(store_kv_set(f->store, "mailbox:INBOX:last_uid", "7", &err), STORE_OK);

	size_t deleted = 0;
	assert_int_equal(engine_prune(f->engine, NOW, &deleted, &err), 0);
	assert_int_equal(deleted, 2); /* <old@x> and the old counter */
	assert_int_equal(engine_prune(f->engine, NOW, &deleted, &err), 0);
	assert_int_equal(deleted, 0);
	char *v = NULL;
	assert_int_equal(store_kv_get(f->store, old_key, &v, &err), STORE_OK);
	assert_null(v);
	assert_int_equal(store_kv_get(f->store, new_key, &v, &err), STORE_OK);
	assert_string_equal(v, "3");
	free(v);
	assert_int_equal(store_kv_get(f->store, "mailbox:INBOX:last_uid", &v, &err), STORE_OK);
	assert_string_equal(v, "7");
	free(v);
	assert_int_equal(outbox_count(f), 1); /* the queued one is still due */
	free(old_key);
	free(new_key);
}

/* Issue 17: a mail that fails the same way quarantine_after (3) times is
 * set aside, once; a different error starts the count again. */
static void test_failing_mail_is_set_aside(void **state)
{
	struct test_engine *f = *state;
	char *err = NULL;
	char *m = mail("philippe@example.org", "broken@example.org", "", "PLAYER burgundy x\n");
	size_t len = strlen(m);
	assert_int_equal(engine_mail_failed(f->engine, 7, 6, m, len, "boom", NOW, &err), 0);
	assert_int_equal(engine_mail_failed(f->engine, 7, 6, m, len, "other", NOW, &err), 0);
	assert_int_equal(engine_mail_failed(f->engine, 7, 6, m, len, "other", NOW, &err), 0);
	assert_int_equal(outbox_count(f), 0);
	assert_int_equal(engine_mail_failed(f->engine, 7, 6, m, len, "other", NOW, &err), 1);
	uint32_t *uids = NULL, uv = 0, last = 0;
	size_t n = 0;
	assert_int_equal(engine_pending_quarantine(f->engine, &uids, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(uids[0], 6);
	free(uids);
	assert_int_equal(engine_mailbox_position(f->engine, &uv, &last, &err), 0);
	assert_int_equal(last, 6);
	assert_int_equal(outbox_count(f), 1); /* the organiser, once */
	/* the same mail again (its Message-ID) is a duplicate, never retried */
	struct engine_outcome out;
	assert_int_equal(process(f, 9, m, &out), ENGINE_DUPLICATE);
	engine_outcome_free(&out);
	assert_int_equal(engine_quarantine_done(f->engine, 6, &err), 0);
	assert_int_equal(engine_pending_quarantine(f->engine, &uids, &n, &err), 0);
	assert_int_equal(n, 0);
	free(uids);
	/* no mailbox (check-mail): never set aside */
	for (int i = 0; i < 5; i++)
		assert_int_equal(engine_mail_failed(f->engine, 0, 0, m, len, "boom", NOW, &err), 0);
	free(m);
}

/* A server that cannot be used (its certificate expired): every mail keeps
 * its place and nothing is given up, the queue waits with a backoff, the
 * organiser is mailed once, and the renewed certificate lets it all go. */
static void test_outbox_waits_for_a_blocked_server(void **state)
{
	struct test_engine *f = *state;
	struct engine_outcome out;
	struct fake_sink fs = {TRANSPORT_BLOCKED, 0, ""};
	struct mail_sink *sink = mail_sink_new(&fake_ops, &fs);
	char *m1 = mail("philippe@example.org", "b1@example.org", "",
			"PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n");
	char *m2 = mail("philippe@example.org", "b2@example.org", "",
			"PLAYER burgundy " BURGUNDY_PW "\nSTATUS\n");
	assert_int_equal(process(f, 1, m1, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	assert_int_equal(process(f, 2, m2, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	assert_int_equal(outbox_count(f), 2);

	size_t sent, failed;
	struct engine_sink_state st;
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW, &sent, &failed, NULL), 0);
	assert_int_equal(fs.calls, 1); /* one try stops the round */
	assert_int_equal(sent, 0);
	assert_int_equal(failed, 1);
	assert_int_equal(engine_sink_state(f->engine, &st, NULL), 0);
	assert_true(st.blocked);
	assert_int_equal(st.since, NOW);
	assert_int_equal(st.retry_at, NOW + 60);
	assert_non_null(strstr(st.error, "certificate"));
	engine_sink_state_free(&st);
	/* the daemon sleeps until the next try, it does not spin */
	assert_int_equal(engine_outbox_next_due(f->engine, NOW + 1), 59);
	assert_int_equal(engine_flush_outbox(f->engine, sink, NOW + 30, &sent, &failed, NULL), 0);
	assert_int_equal(fs.calls, 1);

	/* hours of trouble: the backoff grows to an hour, nothing is given up */
	int64_t t = NOW + 60;
	for (int i = 0; i < 12; i++) {
		assert_int_equal(engine_flush_outbox(f->engine, sink, t, &sent, &failed, NULL), 0);
		assert_int_equal(engine_sink_state(f->engine, &st, NULL), 0);
		t = st.retry_at;
		engine_sink_state_free(&st);
	}
	assert_int_equal(fs.calls, 13);
	assert_int_equal(engine_sink_state(f->engine, &st, NULL), 0);
	assert_int_equal(st.tries, 13);
	assert_int_equal(st.since, NOW);
	assert_true(st.retry_at - t <= 0);
	engine_sink_state_free(&st);
	/* two replies and one mail to the organiser, all queued */
	assert_int_equal(outbox_count(f), 3);

	fs.answer = TRANSPORT_OK;
	assert_int_equal(engine_flush_outbox(f->engine, sink, t, &sent, &failed, NULL), 0);
	assert_int_equal(sent, 3);
	assert_int_equal(failed, 0);
	assert_string_equal(fs.last_rcpt, "organiser@example.org");
	assert_int_equal(outbox_count(f), 0);
	assert_int_equal(engine_sink_state(f->engine, &st, NULL), 0);
	assert_false(st.blocked);
	engine_sink_state_free(&st);
	mail_sink_free(sink);
	free(m1);
	free(m2);
}

/* A reply to one of our mails keeps the campaign's tag first, so mail
 * filters on "[Tag]" at the start of the Subject still catch it. */
static void test_subject_tag_stays_first_in_replies(void **state)
{
	(void)state;
	struct campaign c = {.name = (char *)"Europe 1450", .tag = (char *)"Europe1450",
			     .year = 1450};
	char *s = engine_subject(&c, 1450, "Re: [Europe1450] 1450 \u00b7 Your turn");
	assert_string_equal(s, "[Europe1450] 1450 \u00b7 Re: Your turn");
	free(s);
	s = engine_subject(&c, 1450, "AW: Re:[europe1450] 1450 \u00b7 Recruitment");
	assert_string_equal(s, "[Europe1450] 1450 \u00b7 AW: Re: Recruitment");
	free(s);
	s = engine_subject(&c, 1451, "Re: orders");
	assert_string_equal(s, "[Europe1450] 1451 \u00b7 Re: orders");
	free(s);
	/* the tag inside other words: left where the player wrote it */
	s = engine_subject(&c, 1450, "Orders for [Europe1450] 1450");
	assert_string_equal(s, "Orders for [Europe1450] 1450");
	free(s);
	s = engine_subject(&c, 1450, "[Europe1450] 1450 \u00b7 Your turn");
	assert_string_equal(s, "[Europe1450] 1450 \u00b7 Your turn");
	free(s);
}

/* Issue 13 (club finding #19): a mail made again after an undo lists what
 * changed as pairs, each old line followed by the one that replaced it, in
 * the order of the new text; a line only gone or only new stands alone;
 * orders the player was told of since are no news. */
static void test_changed_lines_paired(void **state)
{
	(void)state;
	const char *was = "Your turn.\n"
			  "Send your movement option before Tue 26 Jan 2027 03:00 CET:\n"
			  "  France: field army of 450 AP in Paris, 4 provinces\n"
			  "  England: field army of 328 AP in Kent, 4 provinces\n"
			  "  Holy Roman Empire: field army of 480 AP in Franconia, 4 provinces,\n"
			  "    24 prestige\n"
			  "A line that went.\n";
	const char *now = "Your turn.\n"
			  "Send your movement option before Tue 26 Jan 2027 06:00 CET:\n"
			  "  France: field army of 480 AP in Paris, 4 provinces\n"
			  "  England: field army of 328 AP in Kent, 4 provinces\n"
			  "  Holy Roman Empire: field army of 480 AP in Franconia, 4 provinces,\n"
			  "    48 prestige\n"
			  "  NO MOVE\n"
			  "Something quite new.\n";
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t n = engine_changed_lines(&sb, was, now, "NO MOVE\n");
	assert_int_equal(n, 8);
	/* the line that introduced what followed it without its colon (club
	 * finding: "was: ... CET:"); a position cut to fit 72 columns reads
	 * whole, with the nation it is about */
	assert_string_equal(sb.data,
			    "  was: Send your movement option before Tue 26 Jan 2027 03:00 CET\n"
			    "  now: Send your movement option before Tue 26 Jan 2027 06:00 CET\n"
			    "  was: France: field army of 450 AP in Paris, 4 provinces\n"
			    "  now: France: field army of 480 AP in Paris, 4 provinces\n"
			    "  was: Holy Roman Empire: field army of 480 AP in Franconia, 4 "
			    "provinces, 24 prestige\n"
			    "  now: Holy Roman Empire: field army of 480 AP in Franconia, 4 "
			    "provinces, 48 prestige\n"
			    "  now: Something quite new.\n"
			    "  was: A line that went.\n");
	strbuf_free(&sb);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_engine_teardown)
	const struct CMUnitTest tests[] = {
		T(test_accepted_orders_are_stored_and_acknowledged),
		T(test_group_commit_failing_mail_rolls_back_alone),
		T(test_group_rolled_back_leaves_nothing),
		T(test_forwarded_gmail),
		T(test_forwarded_applemail),
		T(test_forwarded_outlook),
		T(test_forwarded_as_attachment),
		T(test_forwarded_wrong_password),
		T(test_bottom_posted_reply),
		T(test_interleaved_reply),
		T(test_signoffs_ignored),
		T(test_auto_replies_unanswered),
		T(test_subject_with_player_line),
		cmocka_unit_test(test_subject_tag_stays_first_in_replies),
		cmocka_unit_test(test_changed_lines_paired),
		T(test_subject_of_everyday_words),
		T(test_subject_preview_please),
		T(test_rejection_says_where_reading_stopped),
		T(test_oversized_photo),
		T(test_secret_leak_is_caught),
		T(test_replies_quote_excerpts_only),
		T(test_prune_old_mail_and_counters),
		T(test_failing_mail_is_set_aside),
		T(test_generated_password_typed_loosely),
		T(test_second_mail_replaces_movement),
		T(test_wrong_password_replies_to_registered_address),
		T(test_forged_from_without_password_changes_nothing),
		T(test_loops_and_bounces_are_ignored),
		T(test_replay_is_not_applied_twice),
		T(test_oversized_mail_is_refused_with_a_reply),
		T(test_dry_run_changes_nothing),
		T(test_outbox_retries_and_reports_failures),
		T(test_outbox_sends_every_due_reply),
		T(test_outbox_waits_for_a_blocked_server),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
