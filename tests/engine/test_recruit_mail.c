/* The recruitment by mail tells the player the truth (club findings 6, 7,
 * 9 and 17): the recruitment mail gives each element's actual reason when
 * none may be recruited; an acknowledgement that leaves a list minimum
 * unfilled warns and says what happens; a recruitment sent after the phase
 * closed counts when an undo reopens it, and the player is told; the
 * organiser's PREVIEW covers every nation. Real SQLite file, real mail
 * through the Maildir transport, read as a client shows it. */
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

#define NOW 1800000000LL
#define HOUR 3600LL
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
/* With two players it gives the sequence burgundy, france. */
#define SEED "500102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define BURGUNDY "philippe@example.org"
#define FRANCE "charles@example.org"

/* Burgundy holds four provinces (40 AP of recruits) and is 3 Kn(S) short
 * of its list minimum of 18, with 5 in its reserve (36 AP), 2 Bw(O) and 2
 * Ps(I) there too. France holds Paris and Calais (20 AP) with 2 Kn(F) in
 * its reserve. */
/* reminder: the hours before a deadline of the one reminder (0: as the
 * fixture has it) */
static int setup_with(void **state, int reminder)
{
	struct test_engine *f = xcalloc(1, sizeof *f);
	struct campaign *c = fixture_campaign();
	if (reminder) {
		memset(c->settings.reminder_hours, 0, sizeof c->settings.reminder_hours);
		c->settings.reminder_hours[0] = reminder;
	}
	c->provinces[2].owner = 0; /* Flanders */
	c->provinces[3].owner = 1; /* Calais */
	c->provinces[4].owner = 0; /* Jersey */
	struct province *p = campaign_add_province(c);
	p->name = xstrdup("Picardy");
	p->terrain = xstrdup("arable");
	p->climate = xstrdup("temperate");
	p->owner = 0;
	p->line = 90;
	struct route *r = campaign_add_route(c);
	r->a = 3;
	r->b = (int)c->province_count - 1;
	r->line = 91;
	struct player *b = &c->players[0], *fr = &c->players[1];
	b->list.types[1].list_min = 18;
	b->field.count[1] = 15;
	b->reserve.count[1] = 5;
	b->field.count[2] = 28;
	b->reserve.count[2] = 2;
	b->field.count[3] = 18;
	b->reserve.count[3] = 2;
	fr->field.count[1] = 18;
	fr->reserve.count[1] = 2;
	static const char *const pw[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					 STORE_ORGANISER, ORGANISER_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(f, "recruitmail", c, pw, &cfg);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, 0);
}

/* The same, with one reminder 1 hour before each deadline. */
static int setup_reminder(void **state)
{
	return setup_with(state, 1);
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

/* The text of the last mail `to` received whose Subject holds `subject`,
 * or that holds it merged (NULL if none). */
static char *last_mail(const char *to, const char *subject)
{
	for (size_t i = n_inbox; i-- > 0;)
		if (strcmp(inbox[i].to, to) == 0 && (strstr(inbox[i].subject, subject) ||
						     maildir_merged_into(inbox[i].text, subject)))
			return xstrdup(inbox[i].text);
	return NULL;
}

/* A player's mail, processed at `now`; what the players received is read. */
static void orders(struct test_engine *f, const char *player, const char *text, int64_t now)
{
	bool burgundy = strcmp(player, "burgundy") == 0;
	char *body = xasprintf("PLAYER %s %s\n%s", player, burgundy ? BURGUNDY_PW : FRANCE_PW,
			       text);
	char msgid[32];
	snprintf(msgid, sizeof msgid, "r%u@example.org", ++f->uid);
	char *raw = test_mail(&(struct test_mail){.from = burgundy ? BURGUNDY : FRANCE,
						  .msgid = msgid, .body = body});
	struct engine_outcome out;
	assert_int_equal(test_engine_process(f, 1, f->uid, raw, now, &out), ENGINE_ACCEPTED);
	engine_outcome_free(&out);
	free(raw);
	free(body);
	maildir_flush(f, now);
}

/* The organiser's action at `now`; its report (caller frees). */
static char *act(struct test_engine *f, enum engine_action a, int64_t now)
{
	struct engine_action_request req = {.action = a};
	char *report = NULL, *err = NULL;
	if (engine_action(f->engine, &req, now, &report, &err) != 0)
		fail_msg("engine_action: %s %s", report ? report : "", err ? err : "");
	maildir_flush(f, now);
	return report ? report : xstrdup("");
}

/* Both players send NO MOVE before the start: the campaign phase is
 * played at once and the recruitment phase begins at NOW. */
static void to_the_recruitment(struct test_engine *f)
{
	orders(f, "burgundy", "NO MOVE\n", NOW - 2 * HOUR);
	orders(f, "france", "NO MOVE\n", NOW - HOUR);
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(f->engine, NOW, SEED, &report, &err), 0);
	free(report);
	maildir_flush(f, NOW);
}

static struct campaign *campaign(struct test_engine *f)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(f->store, &c, NULL), STORE_OK);
	return c;
}

static char *stored_orders(struct test_engine *f, const char *player, int year, int phase)
{
	char *text = NULL;
	assert_int_equal(store_orders_get(f->store, player, year, phase, &text, NULL), STORE_OK);
	return text ? text : xstrdup("");
}

/* Club finding 17: "none now (allowance, ceiling, list maximum, or a list
 * minimum to fill first)" and then a recruit of that element accepted.
 * Each element says its own reason, and how many may come once the list
 * minimum is filled; what the reply then accepts agrees. */
static void test_recruitment_mail_gives_the_reason(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	char *text = last_mail(BURGUNDY, "1450 \u00b7 Recruitment");
	assert_has(text, "  Kn(S): 12 AP each, up to 3 (RECRUIT 3 Kn(S)); your army has 15, 3 "
			 "short of its list minimum of 18: these come first\n");
	assert_has(text, "  Bw(O) (5 AP each): none this year: your list minimum of Kn(S) (3 "
			 "short: 36 AP) comes first, and after it only 4 AP of your allowance "
			 "of 40 AP is left; one costs 5 AP\n");
	assert_has(text, "  Ps(I) (1.5 AP each): not before your list minimum of Kn(S) (3 "
			 "short: 36 AP) is filled; with it, up to 2\n");
	assert_has_not(text, "none now (allowance, ceiling");
	free(text);
	/* what the mail offers is what the reply takes */
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\nRECRUIT 2 Ps(I)\n", NOW + HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "Every line of your mail was understood.");
	assert_has_not(text, "list minimum");
	free(text);
}

/* Club finding 6: a recruitment that leaves a list minimum unfilled is
 * acknowledged with the list, the minimum, how many there are and what
 * happens: it is carried out as it stands (the rule orders what comes
 * first, it adds nothing); and so it is. */
static void test_minimum_left_unfilled_is_told(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	/* NO MOVE in the recruitment phase: nothing recruited, still short */
	orders(f, "burgundy", "NO MOVE\n", NOW + HOUR);
	char *text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "  Kn(S): your army would have 15, 3 short of its list minimum of 18; "
			 "3 more from your reserve would cost 36 AP, and 40 AP of your "
			 "allowance is left: you may add them now.\n");
	free(text);
	orders(f, "burgundy", "RECRUIT 1 Kn(S)\n", NOW + 2 * HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "Your army list's minimums\n");
	assert_has(text, "  Kn(S): your army would have 16, 2 short of its list minimum of 18; "
			 "2 more from your reserve would cost 24 AP, and 28 AP of your "
			 "allowance is left: you may add them now.\n");
	assert_has(text, "What happens: Your recruitment is carried out as it stands when the "
			 "recruitment phase ends: nothing is added to fill a list minimum for "
			 "you, and the army stays short.");
	free(text);
	orders(f, "france", "NO MOVE\n", NOW + 4 * HOUR);
	/* carried out as acknowledged: 16, not filled up to 18 */
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->players[0].field.count[1], 16);
	assert_int_equal(c->players[0].reserve.count[1], 4);
	campaign_free(c);
}

/* Club finding 7: a RECRUIT sent after the recruitment closed is kept for
 * the next one; when an undo reopens the closed one, it counts there (it
 * is the next one now), the player is told at once, and it is not kept
 * for the year after as well. */
static void test_late_recruit_counts_after_undo(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "NO MOVE\n", NOW + HOUR);
	orders(f, "france", "NO MOVE\n", NOW + 2 * HOUR);
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1451);
	campaign_free(c);
	orders(f, "france", "RECRUIT 2 Kn(F)\n", NOW + 3 * HOUR);
	char *text = last_mail(FRANCE, "Re: orders");
	assert_has(text, "the recruitment phase of 1450 is over: this order is kept for the next "
			 "one, at the end of 1451");
	free(text);
	free(act(f, ENGINE_ACT_UNDO, NOW + 4 * HOUR));
	text = last_mail(FRANCE, "The organiser: a step taken back");
	assert_non_null(text);
	assert_has(text, "\nYour recruitment sent late counts for 1450\n");
	assert_has(text, "After the recruitment phase of 1450 had closed, you sent:\n  RECRUIT 2 "
			 "Kn(F)\n");
	assert_has(text, "So these lines count for the recruitment of 1450. They replace any "
			 "recruitment you had sent for it, as a whole, and are no longer kept "
			 "for 1451.");
	assert_has(text, "Your recruitment for 1450 as it stands:\n  RECRUIT 2 Kn(F)\n");
	/* France is no longer awaited: its recruitment is in */
	assert_has_not(text, "Awaited from you");
	/* every recruitment is in: resuming plays it at once, and the note
	 * says so rather than only promising a fresh deadline */
	assert_has(text, "But every player's orders are already in, so it is played again at "
			 "once when the organiser resumes the campaign, unless someone changes "
			 "orders before.");
	free(text);
	text = last_mail(BURGUNDY, "The organiser: a step taken back");
	assert_has_not(text, "Your recruitment sent late");
	assert_has(text, "played again at once when the organiser resumes the campaign");
	/* Burgundy's NO MOVE stands, and can still be changed */
	assert_has(text, "Your recruitment orders are in: they stand, and you can change them "
			 "(send them again) until the recruitment is played.");
	assert_has_not(text, "Nothing is awaited from you now");
	free(text);
	char *o = stored_orders(f, "france", 1450, PHASE_RECRUITMENT);
	assert_has(o, "RECRUIT 2 Kn(F)");
	free(o);
	o = stored_orders(f, "france", 1451, PHASE_CAMPAIGN);
	assert_has_not(o, "RECRUIT");
	free(o);
	/* played again: France's 2 Kn(F) come in 1450, once */
	free(act(f, ENGINE_ACT_RESUME, NOW + 5 * HOUR));
	char *err = NULL;
	assert_int_equal(engine_tick(f->engine, NOW + 5 * HOUR, 0, NULL, &err), 0);
	maildir_flush(f, NOW + 5 * HOUR);
	c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->players[1].field.count[1], 20);
	assert_int_equal(c->players[1].reserve.count[1], 0);
	campaign_free(c);
	o = stored_orders(f, "france", 1451, PHASE_CAMPAIGN);
	assert_has_not(o, "RECRUIT");
	free(o);
}

/* Club finding (reminders): the reminder of the recruitment names who is
 * still awaited, not "every player", and tells the player reminded that
 * nothing valid of his is in (his only line had an error). */
static void test_recruitment_reminder_names_who_is_awaited(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "NO MOVE\n", NOW + HOUR);
	orders(f, "france", "RECRUIT 2 Knights of nowhere\n", NOW + 2 * HOUR);
	char *text = last_mail(FRANCE, "Re: orders");
	assert_has(text, "ERROR");
	free(text);
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1450);
	int64_t deadline = NOW + (int64_t)c->settings.recruitment_deadline_hours * HOUR;
	campaign_free(c);
	char *err = NULL;
	assert_int_equal(engine_tick(f->engine, deadline - HOUR, 0, NULL, &err), 0);
	maildir_flush(f, deadline - HOUR);
	text = last_mail(FRANCE, "Reminder");
	/* to France herself: "your", not "of France" */
	assert_has(text, "We are still waiting for your recruitment orders: RECRUIT, "
			 "DISMISS, RETRIEVE GENERAL, or NO MOVE for none.");
	assert_has_not(text, "orders of France");
	assert_has_not(text, "every player");
	assert_has(text, "Nothing valid of yours is in for this step yet (a line with an error "
			 "counts for nothing).");
	assert_has(text, "If nothing comes, you recruit nothing this year.");
	free(text);
	/* Burgundy's recruitment is in: no reminder */
	assert_null(last_mail(BURGUNDY, "Reminder"));
}

/* Club finding 9: the PREVIEW of the recruitment names every nation, and
 * says why one that recruits nothing does. */
static void test_preview_covers_every_nation(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\n", NOW + HOUR);
	char *report = act(f, ENGINE_ACT_PREVIEW, NOW + 2 * HOUR);
	assert_has(report, "Preview of the recruitment: what would happen");
	assert_has(report, "  Burgundy recruits 36 AP");
	assert_has(report, "  France recruits nothing: it has sent no recruitment orders yet (if "
			   "none come by the deadline, the same).\n");
	free(report);
	orders(f, "france", "NO MOVE\n", NOW + 3 * HOUR);
	/* France's NO MOVE ended the phase; in the new year's first turn
	 * the other nation has nothing at this step */
	report = act(f, ENGINE_ACT_PREVIEW, NOW + 4 * HOUR);
	assert_has(report, "Preview of France's turn: what would happen");
	assert_has(report, "  Burgundy: nothing at this step (it is France's turn).\n");
	assert_has_not(report, "  France: nothing");
	free(report);
}

/* Club finding (mail 65): recruitment lines replace the earlier
 * recruitment as a whole; the reply names what is no longer ordered, and
 * says nothing when nothing was dropped. */
static void test_replaced_recruitment_is_named(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\nRECRUIT 2 Ps(I)\n", NOW + HOUR);
	char *text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "Every line of your mail was understood.");
	assert_has_not(text, "replaces your earlier recruitment");
	free(text);
	/* the same again: nothing dropped, nothing to say */
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\nRECRUIT 2 Ps(I)\n", NOW + 2 * HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has_not(text, "replaces your earlier recruitment");
	free(text);
	/* a line in error beside: still named, the Ps(I) are gone */
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\nRECRUIT 9 Bw(O)\n", NOW + 3 * HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "1 line of your mail could not be accepted");
	assert_has(text, "This replaces your earlier recruitment: RECRUIT 2 Ps(I) is no longer "
			 "ordered.\n");
	free(text);
	orders(f, "burgundy", "RECRUIT 1 Kn(S)\n", NOW + 4 * HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "Every line of your mail was understood.\nThis replaces your earlier "
			 "recruitment: RECRUIT 3 Kn(S) is no longer ordered.\n");
	free(text);
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\nRECRUIT 1 Ps(I)\n", NOW + 5 * HOUR);
	orders(f, "burgundy", "RECRUIT 2 Kn(S)\n", NOW + 6 * HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "This replaces your earlier recruitment: RECRUIT 3 Kn(S) and RECRUIT 1 "
			 "Ps(I) are no longer ordered.\n");
	free(text);
	char *o = stored_orders(f, "burgundy", 1450, PHASE_RECRUITMENT);
	assert_has(o, "RECRUIT 2 Kn(S)");
	assert_has_not(o, "Ps(I)");
	free(o);
}

/* Club finding (mail 61): the mail is judged as a whole, so a RECRUIT of
 * the short element after the refused line counts; the reply says the
 * shortfall before the mail's recruits and after them. */
static void test_minimum_shortfall_is_exact(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "RECRUIT 2 Bw(O)\nRECRUIT 1 Kn(S)\n", NOW + HOUR);
	char *text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "ERROR: fill your list minimum of Kn(S) first (3 short before this "
			 "mail's recruits, 2 after)");
	free(text);
	orders(f, "burgundy", "RECRUIT 2 Bw(O)\n", NOW + 2 * HOUR);
	text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "ERROR: fill your list minimum of Kn(S) first (3 short)\n");
	free(text);
}

/* Club mail 64: the PREVIEW of the recruitment that ends the year listed
 * a line for each mail request (the diary, each one's sequence of play,
 * the first turn): seven, where four left. It lists the mails as they
 * leave, one to each person, each led as it will be; played at its
 * deadline, the step sends just those (who moves first comes from the
 * throwaway dice, so the preview may name another player for it). */
static void test_preview_lists_the_year_end_as_sent(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "RECRUIT 3 Kn(S)\n", NOW + HOUR);
	char *report = act(f, ENGINE_ACT_PREVIEW, NOW + 2 * HOUR);
	const char *list = strstr(report, "The mails it would send, one to each person:\n");
	assert_non_null(list);
	static const char turn[] = "  \"Your turn (1451)\" with \"The year's diary (1450)\" and "
				   "\"The sequence of play\" under it, to ";
	static const char diary[] = "  \"The year's diary\" with \"The sequence of play (1451)\" "
				    "under it, to ";
	bool burgundy_first = strstr(list, "to Burgundy\n") != NULL;
	char *mover = xasprintf("\n%s%s\n", turn, burgundy_first ? "Burgundy" : "France");
	char *others = xasprintf("\n%s%s and the organiser\n", diary,
				 burgundy_first ? "France" : "Burgundy");
	assert_has(list, mover);
	assert_has(list, others);
	assert_int_equal(maildir_count(list, "\n"), 3); /* no other mail */
	free(mover);
	free(others);
	free(report);
	/* played at its deadline: three mails, as said */
	struct campaign *c = campaign(f);
	int64_t deadline = NOW + (int64_t)c->settings.recruitment_deadline_hours * HOUR;
	campaign_free(c);
	size_t before = n_inbox;
	char *err = NULL;
	assert_int_equal(engine_tick(f->engine, deadline + 1, 0, NULL, &err), 0);
	maildir_flush(f, deadline + 1);
	assert_int_equal(n_inbox - before, 3);
	for (size_t i = before; i < n_inbox; i++) {
		bool first = strstr(inbox[i].subject, "1451 \u00b7 Your turn") != NULL;
		if (!first)
			assert_has(inbox[i].subject, "1450 \u00b7 The year's diary");
		assert_true(maildir_merged_into(inbox[i].text, first ? "The year's diary (1450)"
								     : "The sequence of play (1451)"));
		if (first)
			assert_true(maildir_merged_into(inbox[i].text, "The sequence of play"));
	}
}

/* `first` comes before `then` in `text` after `from`. */
static void assert_before(const char *text, const char *from, const char *first,
			  const char *then)
{
	const char *at = text ? strstr(text, from) : NULL;
	const char *a = at ? strstr(at, first) : NULL;
	const char *b = at ? strstr(at, then) : NULL;
	if (!a || !b || a > b)
		fail_msg("\"%s\" not before \"%s\" after \"%s\" in:\n%s", first, then, from,
			 text ? text : "(no mail)");
}

/* Issue 13: the reply counts the recruitment by the function the
 * recruitment phase carries it out with (DISMISS, EXCHANGE, RECRUIT): an
 * EXCHANGE the rules would refuse there (it would leave Kn(S) below its
 * list minimum) is refused at once with their reason, the army is counted
 * without it (4 Kn(S) left in the reserve, not 1), and the end of the
 * phase does what the reply said, with nothing more to tell. */
static void test_ack_agrees_with_the_recruitment_carried_out(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "RECRUIT 1 Kn(S)\nEXCHANGE 3 Kn(S) FOR 6 Bw(O)\nDISMISS 1 Bw(O)\n",
	       NOW + HOUR);
	char *text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "1 line of your mail could not be accepted");
	assert_has(text, "  3: EXCHANGE 3 Kn(S) FOR 6 Bw(O)\n        ERROR: the army would have "
			 "17 \"Kn(S)\", below the list minimum of 18 (the EXCHANGE lines are "
			 "carried out together, or none of them)\n");
	assert_has_not(text, "the rules refuse");
	assert_has(text, "Your army list's minimums\n-------------------------\n"
			 "Your recruitment as it stands leaves your army below a list minimum:\n"
			 "  Kn(S): your army would have 16, 2 short of its list minimum of 18; 2 "
			 "more from your reserve would cost 24 AP, and 28 AP of your allowance "
			 "is left: you may add them now.\n"
			 "What happens: Your recruitment is carried out as it stands when the "
			 "recruitment phase ends: nothing is added to fill a list minimum for "
			 "you, and the army stays short.");
	free(text);
	orders(f, "france", "NO MOVE\n", NOW + 2 * HOUR);
	/* carried out as the reply said */
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->players[0].field.count[1], 16);
	assert_int_equal(c->players[0].reserve.count[1], 4);
	assert_int_equal(c->players[0].field.count[2], 27);
	assert_int_equal(c->players[0].reserve.count[2], 3);
	campaign_free(c);
	assert_null(last_mail(BURGUNDY, "Your order was not carried out"));
}

/* The same three steps, all carried out: the shortfall the reply gives is
 * the one the army has after the phase. */
static void test_ack_minimum_after_dismiss_exchange_recruit(void **state)
{
	struct test_engine *f = *state;
	to_the_recruitment(f);
	orders(f, "burgundy", "RECRUIT 1 Kn(S)\nEXCHANGE 1 Kn(S) FOR 2 Bw(O)\nDISMISS 2 Bw(O)\n",
	       NOW + HOUR);
	char *text = last_mail(BURGUNDY, "Re: orders");
	assert_has(text, "Every line of your mail was understood.");
	assert_has_not(text, "the rules refuse");
	/* listed in the order they are carried out */
	assert_before(text, "Your current orders", "  DISMISS 2 Bw(O)\n",
		      "  EXCHANGE 1 Kn(S) FOR 2 Bw(O)\n");
	assert_before(text, "Your current orders", "  EXCHANGE 1 Kn(S) FOR 2 Bw(O)\n",
		      "  RECRUIT 1 Kn(S)\n");
	/* 15 + 1 recruited; 5 - 1 exchanged - 1 recruited left in the reserve */
	assert_has(text, "  Kn(S): your army would have 16, 2 short of its list minimum of 18; 2 "
			 "more from your reserve would cost 24 AP, and 28 AP of your allowance "
			 "is left: you may add them now.\n");
	free(text);
	orders(f, "france", "NO MOVE\n", NOW + 2 * HOUR);
	struct campaign *c = campaign(f);
	assert_int_equal(c->year, 1451);
	assert_int_equal(c->players[0].field.count[1], 16);
	assert_int_equal(c->players[0].reserve.count[1], 3);
	assert_int_equal(c->players[0].field.count[2], 26);
	assert_int_equal(c->players[0].reserve.count[2], 6);
	campaign_free(c);
	assert_null(last_mail(BURGUNDY, "Your order was not carried out"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_recruitment_mail_gives_the_reason),
		T(test_minimum_left_unfilled_is_told),
		T(test_late_recruit_counts_after_undo),
		T(test_preview_covers_every_nation),
		cmocka_unit_test_setup_teardown(test_recruitment_reminder_names_who_is_awaited,
						setup_reminder, teardown),
		T(test_replaced_recruitment_is_named),
		T(test_minimum_shortfall_is_exact),
		T(test_preview_lists_the_year_end_as_sent),
		T(test_ack_agrees_with_the_recruitment_carried_out),
		T(test_ack_minimum_after_dismiss_exchange_recruit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
