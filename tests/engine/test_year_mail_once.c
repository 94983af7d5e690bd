/* Issue 13: a mail joined of several parts says each thing once, with the
 * subject of what leads it (the club's year by mail, findings on the
 * "Your turn" mail, the organiser's note, the reply that carries the
 * year's news). Each test reads the mails as the players receive them (the
 * outbox sent into a Maildir, quoted-printable and format=flowed undone),
 * on a real SQLite file with the clock given to each call. */
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

static const char *france_nation; /* France's nation name, when the test sets one */
static bool organiser_plays_france; /* the organiser plays France, from his address */

static int setup(void **state)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct campaign *c = fixture_campaign();
	if (france_nation) {
		free(c->players[1].nation);
		c->players[1].nation = xstrdup(france_nation);
	}
	if (organiser_plays_france) {
		c->organiser_player = 1;
		free(c->players[1].email);
		c->players[1].email = xstrdup(ORGANISER);
	}
	static const char *const pw[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					 STORE_ORGANISER, ORGANISER_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "yearonce", c, pw, &cfg);
	*state = f;
	return 0;
}

static int setup_long_names(void **state)
{
	france_nation = "The Most Christian Kingdom of France";
	return setup(state);
}

static int setup_organiser_plays(void **state)
{
	organiser_plays_france = true;
	return setup(state);
}

static int teardown(void **state)
{
	maildir_clear();
	france_nation = NULL;
	organiser_plays_france = false;
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

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *at = text; at && (at = strstr(at, needle)); at += strlen(needle))
		n++;
	return n;
}

/* A mail from `from`, alone, processed at `now` and delivered. */
static void send(struct test_engine *f, const char *from, const char *body, int64_t now)
{
	char msgid[32];
	snprintf(msgid, sizeof msgid, "o%u@example.org", ++f->uid);
	char *raw = test_mail(&(struct test_mail){.from = from, .msgid = msgid, .body = body});
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(raw);
	maildir_flush(f, now);
}

static void start(struct test_engine *f, int64_t now)
{
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, now, SEED, &report, &err), 0);
	free(report);
	maildir_flush(f, now);
}

/* The one mail `to` received from inbox[from] on (fails if not one). */
static const struct received *only_mail(const char *to, size_t from)
{
	const struct received *r = NULL;
	size_t n = 0;
	for (size_t i = from; i < n_inbox; i++)
		if (strcmp(inbox[i].to, to) == 0) {
			r = &inbox[i];
			n++;
		}
	if (n != 1) {
		for (size_t i = from; i < n_inbox; i++)
			if (strcmp(inbox[i].to, to) == 0)
				print_message("%s\n%s\n", inbox[i].subject, inbox[i].text);
		fail_msg("%zu mails to %s, not one", n, to);
	}
	return r;
}

/* The text of the part under `heading` (up to the next part). Caller frees. */
static char *part(const char *text, const char *heading)
{
	struct merged_part p;
	for (const char *at = text; merged_part_next(at, &p); at = p.rule + 1)
		if (p.head_len == strlen(heading) && strncmp(p.head, heading, p.head_len) == 0)
			return xasprintf("%.*s", (int)p.body_len, p.body);
	fail_msg("no part \"%s\" in:\n%s", heading, text);
	return NULL;
}

/* Club finding: the "Your turn" mail at the start said it was his turn
 * three times (the turn, the organiser's note, the sequence of play) and
 * gave the deadline twice. Burgundy, who plays first, is told once: by the
 * "Your turn" that leads; France, whose turn it is not, keeps the note's
 * "What happens next". */
static void test_your_turn_said_once(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	const struct received *bu = only_mail(BURGUNDY, 0);
	assert_string_equal(bu->subject, "[TestMarches] 1450 \u00b7 Your turn");
	assert_true(maildir_merged_into(bu->text, "The organiser: the campaign starts"));
	assert_true(maildir_merged_into(bu->text, "The sequence of play"));
	assert_int_equal(count_of(bu->text, "It is your turn"), 1);
	assert_has(bu->text, "It is your turn (1st of 2 in the sequence of play).\n");
	assert_has_not(bu->text, "Your turn begins now.");
	assert_has_not(bu->text, "What happens next");
	assert_has_not(bu->text, "Awaited from you");
	/* the deadline once, where the movement option is asked */
	const char *ask = strstr(bu->text, "Send your movement option before ");
	assert_non_null(ask);
	ask += strlen("Send your movement option before ");
	char *deadline = xasprintf("%.*s", (int)strcspn(ask, ":\n"), ask);
	assert_true(strlen(deadline) > 10);
	assert_int_equal(count_of(bu->text, deadline), 1);
	/* his place in the list stays with the list */
	assert_has(bu->text, "\nYou play 1st of 2 in 1450.\n");
	char *note = part(bu->text, "The organiser: the campaign starts");
	assert_has(note, "The campaign has started.\n");
	assert_has_not(note, "CET");
	free(note);

	const struct received *fr = only_mail(FRANCE, 0);
	note = part(fr->text, "The organiser: the campaign starts");
	assert_has(note, "What happens next: It is Burgundy's turn in 1450 (1st of 2).\n"
			 "Nothing is awaited from you now; the year waits for Burgundy.\n");
	assert_int_equal(count_of(note, deadline), 1);
	free(note);
	free(deadline);
}

/* Club finding (mail 27): France's turn opens when the organiser settles
 * the battle of Burgundy's turn, and her order, sent in advance, waits for
 * Burgundy's answer to the invasion. Her turn is under way: her mail is
 * led by it and says so in its subject ("Your turn", not "The turn of
 * Burgundy"), the report of Burgundy's turn and the organiser's note
 * follow; the note says what her turn waits for, in her words, and not
 * again whose turn it is. Burgundy, asked to answer, is led by that. */
static void test_turn_under_way_leads(void **state)
{
	struct test_engine *f = *state;
	send(f, BURGUNDY, "PLAYER burgundy " BURGUNDY_PW "\nINVADE Paris\n", NOW - 2 * HOUR);
	send(f, FRANCE, "PLAYER france " FRANCE_PW "\nIF INVADED ANY BATTLE\nINVADE Dijon\n",
	     NOW - HOUR);
	start(f, NOW);
	size_t before = n_inbox;
	send(f, ORGANISER, "ORGANISER " ORGANISER_PW "\nBATTLE AT Paris\nWINNER france\n"
			   "COMMENT Settled on the umpire's notes.\n", NOW + HOUR);
	const struct received *fr = only_mail(FRANCE, before);
	assert_string_equal(fr->subject, "[TestMarches] 1450 \u00b7 Your turn");
	assert_has(fr->text, "Test Marches, 1450: your turn, France\n\n"
			     "It is your turn (2nd of 2 in the sequence of play).\n"
			     "Your movement order is already in: it is being carried out now.");
	assert_true(maildir_merged_into(fr->text, "The turn of Burgundy"));
	/* the turn before hers, then the organiser's note, under the lead */
	const char *rule = strstr(fr->text, MERGED_RULE);
	assert_non_null(rule);
	assert_true(strstr(fr->text, "It is your turn (2nd of 2") < rule);
	if (count_of(fr->text, "It is your turn") != 1) {
		fprintf(stderr, "%s\n", fr->text);
		fail_msg("her turn said more than once");
	}
	assert_int_equal(count_of(fr->text, "your turn, France"), 1);
	char *note = NULL;
	struct merged_part p;
	for (const char *at = fr->text; merged_part_next(at, &p) && !note; at = p.rule + 1)
		if (strncmp(p.head, "The organiser: ", 15) == 0)
			note = xasprintf("%.*s", (int)p.body_len, p.body);
	assert_non_null(note);
	assert_has(note, "What happens next: Your turn waits for Burgundy's answer to the "
			 "invasion of Dijon by you (IF INVADED).\n"
			 "Nothing is awaited from you now; the year waits for Burgundy.\n"
			 "Deadline: ");
	assert_has_not(fr->text, "by France");
	free(note);

	const struct received *bu = only_mail(BURGUNDY, before);
	assert_has(bu->subject, "Dijon is invaded");
	assert_has_not(bu->subject, "The turn of Burgundy");
}

/* Club findings (mails 24, 64): the organiser who plays France was told
 * "Awaited from France" in the reply to his organiser mail; he is "you"
 * there as everywhere. */
static void test_organiser_who_plays_is_you(void **state)
{
	struct test_engine *f = *state;
	/* Burgundy's move passes through Paris, where France's army stands */
	send(f, BURGUNDY, "PLAYER burgundy " BURGUNDY_PW "\nINVADE Calais VIA Paris\n",
	     NOW - HOUR);
	start(f, NOW);
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_year_status(f->engine, NOW, &report, &err), 0);
	assert_has(report, "Still to answer: france");
	free(report);
	size_t before = n_inbox;
	send(f, ORGANISER, "ORGANISER " ORGANISER_PW "\nCOMMENT A wet spring.\n", NOW + HOUR);
	const struct received *reply = NULL;
	for (size_t i = before; i < n_inbox; i++)
		if (strcmp(inbox[i].to, ORGANISER) == 0 && strstr(inbox[i].subject, "Re: "))
			reply = &inbox[i];
	assert_non_null(reply);
	assert_has(reply->text, "What happens next\n-----------------\n"
				"It is Burgundy's turn in 1450 (1st of 2); the year waits for "
				"permission for the move of Burgundy (ALLOW/DENY PASSAGE or "
				"SUPPLY).\nAwaited from you: the permission for the move of "
				"Burgundy: ALLOW PASSAGE or DENY PASSAGE, and ALLOW SUPPLY or "
				"DENY SUPPLY.\n");
	assert_has_not(reply->text, "Awaited from France");
}

/* Club finding (mail 12): Burgundy's ALLY WITH answers France's, and the
 * alliance is made at once (the year waits for a turn): the reply said it
 * "is made at the next step" above the part that says it was made. It says
 * what happened, once, pointing to that part. */
static void test_alliance_made_said_once(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	send(f, FRANCE, "PLAYER france " FRANCE_PW "\nALLY WITH burgundy\n", NOW + HOUR);
	size_t before = n_inbox;
	send(f, BURGUNDY, "PLAYER burgundy " BURGUNDY_PW "\nALLY WITH france\n", NOW + 2 * HOUR);
	const struct received *bu = only_mail(BURGUNDY, before);
	assert_has(bu->subject, "Re: ");
	assert_has(bu->text, "France had declared ALLY WITH burgundy too: the alliance is made, "
			     "as told below.");
	assert_has_not(bu->text, "at the next step");
	const char *said = strstr(bu->text, "as told below");
	const char *told = strstr(bu->text, MERGED_RULE "\nBurgundy and France are allies\n");
	if (!told)
		told = strstr(bu->text, MERGED_RULE "\nFrance and Burgundy are allies\n");
	assert_non_null(told);
	assert_true(said < told);
	assert_has(told, "are now allies");
	/* ended the same way */
	before = n_inbox;
	send(f, FRANCE, "PLAYER france " FRANCE_PW "\nEND ALLIANCE WITH burgundy\n",
	     NOW + 3 * HOUR);
	const struct received *fr = only_mail(FRANCE, before);
	assert_has(fr->text, "Your alliance with Burgundy has ended, as told below.");
	assert_has_not(fr->text, "ends at the next step");
	assert_true(maildir_merged_into(fr->text, "The alliance of "));
}

/* Club finding (mail 16): a movement order carried out by the mail that
 * sent it said what came of it "is in the year's mail on your turn" when
 * that part was in the same mail, below: it says "below", naming it. */
static void test_move_told_below(void **state)
{
	struct test_engine *f = *state;
	send(f, FRANCE, "PLAYER france " FRANCE_PW "\nIF INVADED ANY BATTLE\nNO MOVE\n",
	     NOW - HOUR);
	start(f, NOW);
	size_t before = n_inbox;
	send(f, BURGUNDY, "PLAYER burgundy " BURGUNDY_PW "\nINVADE Paris\n", NOW + HOUR);
	const struct received *bu = only_mail(BURGUNDY, before);
	assert_has(bu->text, "  2: INVADE Paris\n        -> carried out with your mail: what came "
			     "of it (the way, storms, forced passage, supply, what it cost) is told "
			     "below, in \"Battle at Paris\"\n");
	assert_has_not(bu->text, "in the year's mail on your turn");
	assert_true(maildir_merged_into(bu->text, "Battle at Paris"));
	assert_true(strstr(bu->text, "is told below") < strstr(bu->text, MERGED_RULE));
}

/* Club finding: where everyone stands, a line longer than 72 columns, lost
 * its indentation when the reader's client wrapped it ("4 provinces, 0" /
 * "prestige"). It is cut after a comma, the rest indented below it, the
 * same in the year's mails and in STATUS. */
static void test_positions_wrapped(void **state)
{
	struct test_engine *f = *state;
	start(f, NOW);
	const char *line = "  The Most Christian Kingdom of France: field army of 480 AP in Paris,"
			   "\n    1 province, 0 prestige\n";
	const struct received *bu = only_mail(BURGUNDY, 0);
	assert_has(bu->text, "Where everyone stands:\n");
	assert_has(bu->text, line);
	assert_has(bu->text, "  Burgundy: field army of 480 AP in Dijon, 1 province, 0 prestige\n");
	/* no line of the list passes 72 columns */
	const char *list = strstr(bu->text, "Where everyone stands:\n");
	for (const char *at = list; *at && at[0] != '\n';) {
		size_t len = strcspn(at, "\n");
		assert_true(len <= 72);
		at += len + (at[len] ? 1 : 0);
	}
	size_t before = n_inbox;
	send(f, BURGUNDY, "PLAYER burgundy " BURGUNDY_PW "\nSTATUS\n", NOW + HOUR);
	const struct received *st = only_mail(BURGUNDY, before);
	assert_has(st->text, "Where everyone stands\n");
	assert_has(strstr(st->text, "Where everyone stands\n"), line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_your_turn_said_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_turn_under_way_leads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_organiser_who_plays_is_you,
						setup_organiser_plays, teardown),
		cmocka_unit_test_setup_teardown(test_alliance_made_said_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_told_below, setup, teardown),
		cmocka_unit_test_setup_teardown(test_positions_wrapped, setup_long_names, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
