/* Hostile and awkward input on the real engine path: the Europe 1450
 * example campaign in a real SQLite file, mail through engine_process_mail,
 * replies rendered with the shipped templates. (Forged senders, wrong
 * passwords, replays and oversized mail are in test_engine.c.) */
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
#include <sqlite3.h>

#include "model/campaign_file.h"
#include "model/campaign_json.h"
#include "engine/engine.h"
#include "lib/campaign_fixture.h"
#include "lib/engine_fixture.h"
#include "lib/files.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/util.h"

#define NOW 1796000000LL
#define ADDRESS TEST_ADDRESS
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
/* Liège is renamed to this: quotes for the order language and SQL. */
#define KEEP "Robert's \"Keep\"; DROP TABLE x;--"
#define KEEP_QUOTED "\"Robert's \"\"Keep\"\"; DROP TABLE x;--\""

/* The example campaign file with every "Liège" replaced by `name`. */
static struct campaign *example_campaign(const char *name)
{
	const char *rel = "contrib/examples/europe1450.campaign";
	char *text = test_source_text(rel, NULL);
	struct strbuf renamed = {0};
	const char *p = text;
	for (const char *hit; (hit = strstr(p, "Liège")); p = hit + strlen("Liège")) {
		strbuf_append(&renamed, p, (size_t)(hit - p));
		strbuf_puts(&renamed, name);
	}
	strbuf_puts(&renamed, p);
	char *path = test_source_path(rel);
	struct campaign *c = test_campaign_parse(renamed.data, renamed.len, path);
	free(path);
	strbuf_free(&renamed);
	free(text);
	return c;
}

static int setup(void **state)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	static const char *const passwords[] = {"burgundy", BURGUNDY_PW, NULL};
	/* the daemon's own limits */
	struct engine_config cfg = {.campaign_address = ADDRESS, .mailbox = "INBOX",
				    .limits = {.max_bytes = 1024 * 1024, .max_depth = 20}};
	test_engine_open(f, "abuse", example_campaign(KEEP), passwords, &cfg);
	*state = f;
	return 0;
}

static char *order_mail(const char *msgid, const char *body)
{
	return test_mail(&(struct test_mail){.from = "Pieter <pieter@example.org>",
					     .msgid = msgid, .date = TEST_DATE, .body = body});
}

static enum engine_verdict process(struct test_engine *f, uint32_t uid, const char *raw,
				   struct engine_outcome *out)
{
	return test_engine_process(f, 1, uid, raw, NOW, out);
}

static char *stored_orders(struct test_engine *f)
{
	char *text = NULL;
	assert_int_equal(store_orders_get(f->store, "burgundy", 1450, PHASE_SETUP, &text, NULL),
			 STORE_OK);
	return text;
}

/* A multipart nested 60 deep (the daemon allows 20): refused, and the
 * player is told why. */
static void test_deeply_nested_mime_is_refused_with_a_reply(void **state)
{
	struct test_engine *f = *state;
	struct strbuf m = {0};
	strbuf_puts(&m, "From: Pieter <pieter@example.org>\r\nTo: " ADDRESS "\r\n"
			"Subject: nested\r\nMessage-ID: <deep@example.org>\r\nMIME-Version: 1.0\r\n");
	for (int i = 0; i < 60; i++)
		strbuf_printf(&m, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n",
			      i, i);
	strbuf_puts(&m, "Content-Type: text/plain\r\n\r\nPLAYER burgundy " BURGUNDY_PW
			"\r\nINVADE Flanders\r\n");
	for (int i = 59; i >= 0; i--)
		strbuf_printf(&m, "--b%d--\r\n", i);
	struct engine_outcome out;
	assert_int_equal(process(f, 1, m.data, &out), ENGINE_REJECTED);
	assert_string_equal(out.reply_to, "pieter@example.org");
	assert_non_null(strstr(out.summary, "nested too deeply"));
	assert_non_null(strstr(out.reply, "your mail could not be read: nested too deeply"));
	assert_non_null(strstr(out.reply, "plain text"));
	engine_outcome_free(&out);
	assert_null(stored_orders(f));
	strbuf_free(&m);
}

/* Whatever a player writes comes back as text: no HTML is interpreted (the
 * mail is plain text) and no Mustache tag in it is expanded. */
static void test_player_text_is_echoed_literally(void **state)
{
	struct test_engine *f = *state;
	static const char *const lines[] = {
		"{{password}}",
		"{{#x}}boom{{/x}}",
		"{{{campaign}}} {{> ack}} {{=<% %>=}}",
		"<script>alert('x')</script> <b>bold</b> &amp; &lt;",
	};
	struct strbuf body = {0};
	/* between two orders, so each is read as a (wrong) order line */
	strbuf_puts(&body, "PLAYER burgundy " BURGUNDY_PW "\r\n");
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
		strbuf_printf(&body, "%s\r\n", lines[i]);
	strbuf_puts(&body, "IF INVADED Flanders SIEGE\r\n");
	char *m = order_mail("literal@example.org", body.data);
	struct engine_outcome out;
	assert_int_equal(process(f, 1, m, &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 4);
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		char *echo = xasprintf("  %zu: %s\n", i + 2, lines[i]);
		if (!strstr(out.reply, echo))
			fail_msg("not echoed literally: %s\nreply:\n%s", lines[i], out.reply);
		free(echo);
	}
	/* and the good line still counted */
	assert_non_null(strstr(out.reply, "  IF INVADED Flanders SIEGE\n"));
	assert_null(strstr(out.reply, BURGUNDY_PW));
	engine_outcome_free(&out);
	free(m);
	strbuf_free(&body);
}

/* A province named with quotes and SQL: it loads, is stored and exported
 * unchanged, and orders name it (quoted with doubled quotes, or shortened);
 * the stored pending orders parse again on the next mail. */
static void test_names_with_quotes_and_sql(void **state)
{
	struct test_engine *f = *state;
	char *err = NULL;
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, &err), STORE_OK);
	int keep = -1;
	for (size_t i = 0; i < c->province_count; i++)
		if (strcmp(c->provinces[i].name, KEEP) == 0)
			keep = (int)i;
	assert_true(keep >= 0);
	assert_int_equal(c->province_count, 29); /* nothing dropped */
	json_t *doc = campaign_to_json(c);
	char *dump = json_dumps(doc, 0);
	assert_non_null(strstr(dump, "\"Robert's \\\"Keep\\\"; DROP TABLE x;--\""));
	free(dump);
	struct campaign *back = campaign_from_json(doc, &err);
	assert_non_null(back);
	assert_string_equal(back->provinces[keep].name, KEEP);
	campaign_free(back);
	json_decref(doc);
	campaign_free(c);

	struct engine_outcome out;
	char *m1 = order_mail("keep1@example.org", "PLAYER burgundy " BURGUNDY_PW
				"\r\nINVADE " KEEP_QUOTED " VIA Brabant\r\n");
	assert_int_equal(process(f, 1, m1, &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 0);
	char *text = stored_orders(f);
	assert_string_equal(text, "INVADE " KEEP_QUOTED " VIA Brabant\n");
	free(text);
	engine_outcome_free(&out);

	/* the next mail re-reads the pending orders: the invasion stays */
	char *m2 = order_mail("keep2@example.org",
			      "PLAYER burgundy " BURGUNDY_PW "\r\nIN STORM HALT\r\n");
	assert_int_equal(process(f, 2, m2, &out), ENGINE_ACCEPTED);
	text = stored_orders(f);
	assert_non_null(strstr(text, "INVADE " KEEP_QUOTED " VIA Brabant\n"));
	assert_non_null(strstr(text, "IN STORM HALT\n"));
	free(text);
	engine_outcome_free(&out);

	/* a shortened name as a player would type it */
	char *m3 = order_mail("keep3@example.org",
			      "PLAYER burgundy " BURGUNDY_PW "\r\nINVADE Robert's VIA Brabant\r\n");
	assert_int_equal(process(f, 3, m3, &out), ENGINE_ACCEPTED);
	assert_int_equal(out.order_errors, 0);
	engine_outcome_free(&out);

	/* and the database still has all its tables */
	assert_int_equal(store_load_campaign(f->store, &c, &err), STORE_OK);
	assert_int_equal(c->province_count, 29);
	campaign_free(c);
	free(m1);
	free(m2);
	free(m3);
}

/* When the database cannot be written (full disk, locked), the mail is not
 * recorded and the daemon fetches it again later; what engine_process_mail
 * built for *out must not be left for a caller that only sees -1 (campaignd
 * frees nothing then: a leak per retried mail, found by the outage test
 * under LeakSanitizer). */
static void test_failed_mail_leaves_nothing_to_free(void **state)
{
	struct test_engine *f = *state;
	sqlite3 *other = NULL;
	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	store_set_busy_timeout(f->store, 10);
	char *m = order_mail("locked@example.org",
			     "PLAYER burgundy " BURGUNDY_PW "\r\nIN STORM HALT\r\n");
	struct engine_outcome out;
	char *err = NULL;
	assert_int_equal(engine_process_mail(f->engine, 1, 1, m, strlen(m), NOW, false, &out, &err),
			 -1);
	assert_non_null(err);
	free(err);
	assert_null(out.sender);
	assert_null(out.summary);
	assert_null(out.reply);
	assert_null(out.reply_to);
	assert_null(out.orders_understood);
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	free(m);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, test_engine_teardown)
	const struct CMUnitTest tests[] = {
		T(test_deeply_nested_mime_is_refused_with_a_reply),
		T(test_player_text_is_echoed_literally),
		T(test_names_with_quotes_and_sql),
		T(test_failed_mail_leaves_nothing_to_free),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
