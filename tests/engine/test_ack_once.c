/* The acknowledgement says exactly what happens with what the player sent,
 * and says it once (issue 13, items 1 and 5): an order's notes under its
 * line, "Your current orders" a plain list; a battle report refused for a
 * line in error says so once, names the line and says "the rest was
 * taken" only when there is a rest; a mail that only asks is answered as
 * a request, the organiser's PREVIEW as a preview; a player whose stand-in
 * acts is told, in the answer and in STATUS, that it goes on, until when
 * and how to take over again. Each test reads the mails as the player's
 * client shows them (the outbox sent into a Maildir, decoded), on a real
 * SQLite file. */
#include "config.h"

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
#include "dbm/orders.h"
#include "store/store.h"
#include "base/util.h"

#define NOW 1800000000LL /* Fri 15 Jan 2027 08:00 UTC, 09:00 in Paris */
#define HOUR 3600LL
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
/* With two players it gives the sequence burgundy, france. */
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
	test_engine_open(f, "ackonce", fixture_campaign(), pw, &cfg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	maildir_clear();
	return test_engine_teardown(state);
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

static void assert_once(const char *text, const char *needle)
{
	size_t n = maildir_count(text, needle);
	if (n != 1)
		fail_msg("\"%s\" %zu times, not once, in:\n%s", needle, n, text);
}

/* The text of the last mail `to` received whose Subject holds `subject`. */
static char *last_mail(const char *to, const char *subject)
{
	for (size_t i = n_inbox; i-- > 0;)
		if (strcmp(inbox[i].to, to) == 0 && strstr(inbox[i].subject, subject))
			return xstrdup(inbox[i].text);
	fail_msg("no mail \"%s\" to %s", subject, to);
	return NULL;
}

/* A mail from `from` with `body` (Subject "orders"), processed at `now`;
 * the answer as the sender's client shows it. */
static char *answer(struct test_engine *f, const char *from, const char *body, int64_t now)
{
	char msgid[32];
	snprintf(msgid, sizeof msgid, "a%u@example.org", ++f->uid);
	char *raw = test_mail(&(struct test_mail){.from = from, .msgid = msgid, .body = body});
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(raw);
	maildir_flush(f, now);
	return last_mail(from, "Re: orders");
}

static char *from_france(struct test_engine *f, const char *lines, int64_t now)
{
	char *body = xasprintf("PLAYER france %s\n%s", FRANCE_PW, lines);
	char *text = answer(f, FRANCE, body, now);
	free(body);
	return text;
}

static char *from_burgundy(struct test_engine *f, const char *lines, int64_t now)
{
	char *body = xasprintf("PLAYER burgundy %s\n%s", BURGUNDY_PW, lines);
	char *text = answer(f, BURGUNDY, body, now);
	free(body);
	return text;
}

static void start(struct test_engine *f, int64_t now)
{
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, now, SEED, &report, &err), 0);
	free(report);
	maildir_flush(f, now);
}

/* The part of `text` from the line `from` to the line `to` (excluded). */
static char *section(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from);
	assert_non_null(a);
	const char *b = strstr(a, to);
	assert_non_null(b);
	return xstrndup(a, (size_t)(b - a));
}

/* Item 1: the notes of an order are said under its line, once; the
 * current orders list the orders alone. */
static void test_notes_said_once(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	char *text = from_france(f, "IF INVADED ANY BATTLE\nIN STORM HALT\n", NOW + HOUR);
	assert_once(text, "-> counted from where your army stands now: the cost changes if "
			  "it moves");
	char *mail = section(text, "Your mail, line by line", "Your current orders");
	assert_has(mail, "  2: IF INVADED ANY BATTLE\n        -> counted from where your army "
			 "stands now");
	free(mail);
	char *current = section(text, "Your current orders", "Each mail changes");
	assert_has(current, "\n  IF INVADED ANY BATTLE\n  IN STORM HALT\n");
	assert_has_not(current, "->");
	free(current);
	free(text);

	/* a later mail: the order from the earlier one stands, listed plain */
	text = from_france(f, "DENY PASSAGE burgundy\n", NOW + 2 * HOUR);
	current = section(text, "Your current orders", "Each mail changes");
	assert_has(current, "  IF INVADED ANY BATTLE\n");
	assert_has(current, "  DENY PASSAGE burgundy\n");
	assert_has_not(current, "->");
	free(current);
	assert_has(text, "Orders received from France.");
	free(text);
}

/* Burgundy invades Paris, France defends: the battle waits for reports. */
static void battle_at_paris(struct test_engine *f)
{
	free(from_burgundy(f, "INVADE Paris\n", NOW - HOUR));
	free(from_france(f, "IF INVADED ANY BATTLE\nNO MOVE\n", NOW - HOUR));
	start(f, NOW);
}

/* Item 2 (club mails 21 and 43): a report refused for a line in error,
 * in a mail with no other order. */
static void test_report_refused_said_once(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	char *text = from_burgundy(f, "BATTLE AT Paris\nWINNER france\n"
				      "DESTROYED burgundy 4 Kn(S)\n"
				      "FLED burgundy 2 Mounted archers\n", NOW + HOUR);
	assert_has(text, "1 line of your mail could not be accepted: see below.\n");
	assert_has(text, "Your battle result was not used: line 5 of your mail is in error, "
			 "and a report is taken whole or not at all: send the whole report "
			 "again, corrected.\n");
	assert_once(text, "send the whole report again");
	assert_once(text, "taken whole or not at all");
	/* the mail had nothing but the report: no "other orders" to speak of */
	assert_has_not(text, "other orders");
	assert_has_not(text, "The rest of your mail");
	/* the report's other lines name the line in error, above or below */
	assert_has(text, "  2: BATTLE AT Paris\n        NOT USED: the battle report was refused "
			 "for line 5, in error\n");
	assert_has(text, "  4: DESTROYED burgundy 4 Kn(S)\n        NOT USED: the battle report "
			 "was refused for line 5, in error\n");
	assert_has(text, "  5: FLED burgundy 2 Mounted archers\n        ERROR: ");
	assert_has_not(text, "see above");
	assert_has(text, "Errors: 1\n");
	free(text);
}

/* Item 2: with an order beside the refused report, the rest is said to be
 * taken, once; two lines in error are both named. */
static void test_report_refused_rest_taken(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	char *text = from_burgundy(f, "IN STORM HALT\nBATTLE AT Paris\nWINNER france\n"
				      "DESTROYED burgundy 4 Kn(Z)\n"
				      "FLED burgundy 2 Mounted archers\n", NOW + HOUR);
	assert_has(text, "2 lines of your mail could not be accepted: see below.\n");
	assert_has(text, "Your battle result was not used: lines 5 and 6 of your mail are in "
			 "error, and a report is taken whole or not at all: send the whole "
			 "report again, corrected.\n");
	assert_once(text, "send the whole report again");
	assert_once(text, "The rest of your mail was taken as shown below.\n");
	assert_has(text, "  3: BATTLE AT Paris\n        NOT USED: the battle report was refused "
			 "for lines 5 and 6, in error\n");
	assert_has(text, "  2: IN STORM HALT\n");
	char *current = section(text, "Your current orders", "Each mail changes");
	assert_has(current, "  IN STORM HALT\n");
	free(current);
	assert_has_not(text, "see above");
	free(text);
}

/* Item 2: a report refused for what it says (not for a line in error)
 * points above to the reason, which is there, and says to send it again
 * once. */
static void test_report_refused_for_its_content(void **state)
{
	struct test_engine *f = *state;
	battle_at_paris(f);
	char *text = from_burgundy(f, "BATTLE AT Paris\nWINNER france\n"
				      "DESTROYED burgundy 40 Kn(S)\n", NOW + HOUR);
	const char *why = strstr(text, "Your battle result was not used: ");
	assert_non_null(why);
	const char *line = strstr(text, "  2: BATTLE AT Paris\n        ERROR: not used: the "
					"battle result was refused (why: see above)\n");
	assert_non_null(line);
	assert_true(why < line);
	assert_once(text, "send the whole report again");
	assert_has_not(text, "The rest of your mail");
	free(text);
}

/* Item 3: a mail that only asks is answered as a request. */
static void test_only_asks(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	char *text = from_france(f, "STATUS\n", NOW + HOUR);
	assert_has(text, ", 1450, campaign phase\nYou asked for the status of France (below).\n");
	assert_has_not(text, "Orders received");
	assert_has(text, "Status of France, 1450");
	free(text);

	text = from_france(f, "STATUS\nMAP\nHELP\n", NOW + 2 * HOUR);
	assert_has(text, "You asked for the status of France (below), the current map "
			 "(attached) and the orders reference (below).\n");
	assert_has_not(text, "Orders received");
	free(text);

	/* an order beside the request: orders received */
	text = from_france(f, "STATUS\nIN STORM HALT\n", NOW + 3 * HOUR);
	assert_has(text, "Orders received from France.\n");
	assert_has_not(text, "You asked for");
	free(text);

	/* a line in error is no request: it is answered as orders sent */
	text = from_france(f, "MAP\nMOVE Atlantis\n", NOW + 4 * HOUR);
	assert_has(text, "Orders received from France.\n");
	assert_has_not(text, "You asked for");
	free(text);

	/* the organiser's PREVIEW alone: a preview, not orders */
	text = answer(f, ORGANISER, "ORGANISER " ORGANISER_PW "\nPREVIEW\n", NOW + 5 * HOUR);
	assert_has(text, ", 1450: the preview you asked for\n");
	assert_has_not(text, "your organiser orders");
	free(text);
	text = answer(f, ORGANISER, "ORGANISER " ORGANISER_PW "\nPREVIEW\nEXTEND 2\n",
		      NOW + 6 * HOUR);
	assert_has(text, ", 1450: your organiser orders\n");
	free(text);
}

/* Item 4: France's stand-in acts; France's STATUS says it goes on, until
 * when and how to take over, in the answer and in the status; France's
 * own order then ends it, and nothing says it goes on. */
static void test_stand_in_goes_on(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	char *text = from_france(f, "STAND-IN Jean Dupont <jean@example.com> UNTIL 2027-01-20\n",
				 NOW + HOUR);
	assert_has(text, "Jean Dupont <jean@example.com> stands in for France");
	assert_has_not(text, "goes on standing in");
	free(text);

	text = from_france(f, "STATUS\n", NOW + 2 * HOUR);
	assert_has(text, "You asked for the status of France (below).\n");
	assert_has(text, "Jean Dupont <jean@example.com> goes on standing in for you until "
			 "Thu 21 Jan 2027 00:00 CET: their orders count as yours. This mail gave "
			 "no order, so it did not end the stand-in; to take over again before "
			 "then, send your orders yourself (any order accepted ends it) or "
			 "STAND-IN END.\n");
	char *status = section(text, "Status of France", "Where everyone stands");
	assert_has(status, "Stand-in: Jean Dupont <jean@example.com> stands in for France until "
			   "Thu 21 Jan 2027 00:00 CET; their orders count as France's. It ends "
			   "then, when the player sends orders in person, or by STAND-IN END.\n");
	free(status);
	free(text);
	/* the stand-in's copy of that answer says the same */
	text = last_mail("jean@example.com", "France's mail");
	assert_has(text, "goes on standing in for you until Thu 21 Jan 2027 00:00 CET");
	assert_has(text, "Stand-in: Jean Dupont <jean@example.com> stands in for France");
	free(text);

	/* the stand-in's own STATUS: a request, to him and to the player */
	text = last_mail("jean@example.com", "You stand in for France");
	const char *at = strstr(text, "  PLAYER france ");
	assert_non_null(at);
	char *pw = xstrndup(at + 16, strcspn(at + 16, "\r\n"));
	free(text);
	char *body = xasprintf("PLAYER france %s\nSTATUS\n", pw);
	free(pw);
	text = answer(f, "jean@example.com", body, NOW + 2 * HOUR + 60);
	free(body);
	assert_has(text, "You asked for the status of France (below).\n");
	assert_has(text, "You asked standing in for France (until Thu 21 Jan 2027 00:00 CET); "
			 "the player of France gets this answer too.\n");
	assert_has_not(text, "Orders received");
	assert_has_not(text, "goes on standing in");
	free(text);
	text = last_mail(FRANCE, "Asked for France by the stand-in");
	assert_has(text, "Your stand-in asked for the status of France (below).\n");
	assert_has(text, "Jean Dupont <jean@example.com>, your stand-in (until Thu 21 Jan 2027 "
			 "00:00 CET), sent this mail for you: it only asks, and changes none of "
			 "your orders.\n");
	assert_has_not(text, "These orders were given for you");
	free(text);

	text = from_france(f, "IN STORM HALT\nSTATUS\n", NOW + 3 * HOUR);
	assert_has(text, "You sent orders yourself, so Jean Dupont <jean@example.com> no longer "
			 "stands in for you");
	assert_has_not(text, "goes on standing in");
	assert_has_not(text, "Stand-in: ");
	free(text);

	/* no stand-in at all: nothing said of one */
	text = from_burgundy(f, "STATUS\n", NOW + 4 * HOUR);
	assert_has_not(text, "stand-in");
	assert_has_not(text, "Stand-in");
	free(text);
}

/* The lines in error, named for a sentence: one, two, many (at most five
 * numbers: a mail of any length gives a short sentence). */
static void test_error_lines_in_words(void **state)
{
	(void)state;
	struct order_set set;
	orders_set_init(&set);
	size_t n = 99;
	assert_null(orders_error_lines_text(&set, &n));
	assert_int_equal(n, 0);
	for (int i = 1; i <= 12; i++) {
		struct order *o = orders_set_add(&set);
		o->line = i;
		o->status = i == 3 || i >= 6 ? ORDER_ERROR : ORDER_OK;
	}
	char *t = orders_error_lines_text(&set, &n);
	assert_string_equal(t, "lines 3, 6, 7, 8, 9 and 3 more");
	assert_int_equal(n, 8);
	free(t);
	for (size_t i = 6; i < set.count; i++)
		set.orders[i].status = ORDER_OK;
	t = orders_error_lines_text(&set, &n);
	assert_string_equal(t, "lines 3 and 6");
	free(t);
	set.orders[2].status = ORDER_OK;
	t = orders_error_lines_text(&set, NULL);
	assert_string_equal(t, "line 6");
	free(t);
	orders_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_lines_in_words),
		cmocka_unit_test_setup_teardown(test_notes_said_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_refused_said_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_refused_rest_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_refused_for_its_content, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_only_asks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stand_in_goes_on, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
