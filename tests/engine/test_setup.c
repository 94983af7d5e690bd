/* Setting up by mail (rules 1.3), end to end: a campaign file that leaves
 * two players' armies open, campaignctl open-setup's mails, answers with
 * mistakes (too many AP, a minimum missed, no C-in-C, a foreign province),
 * a complete setup, the organiser's status, a start refused and forced.
 * And a forgotten password replaced by mail (FORGOT PASSWORD).
 * Every mail goes out through the Maildir transport and is read back as
 * the player receives it. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fileio.h"
#include "base/util.h"
#include "engine/engine.h"
#include "lib/campaign_fixture.h"
#include "lib/engine_fixture.h"
#include "lib/maildir_fixture.h"
#include "mail/mail_text.h"
#include "lib/files.h"
#include "mail/transport.h"
#include "store/store.h"

#define NOW 1800000000LL
#define BETA_PW "BETA-1XYZ-7KQM-2XRT"
#define GAMMA_PW "GAMM-1XYZ-7KQM-2XRT"
#define GAMMA "Gil Gamma <gil@example.org>"
#define BETA "Bob Beta <bob@example.net>"

struct world {
	struct test_engine t;
	char *maildir;
	uint32_t uid;
};

/* minimal.campaign with beta's and gamma's field armies and starts left
 * open: their "start" lines and "| field N" dropped. */
static struct campaign *open_campaign(void)
{
	char *text = test_source_text("tests/data/campaign/minimal.campaign", NULL);
	struct strbuf sb = {0};
	bool open = false;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "[player ", 8) == 0)
			open = strcmp(line, "[player alpha]") != 0;
		if (open && strncmp(line, "start", 5) == 0)
			continue;
		char *field = open ? strstr(line, "| field ") : NULL;
		if (field) {
			char *end = field + 8;
			while (*end >= '0' && *end <= '9')
				end++;
			memmove(field, end, strlen(end) + 1);
		}
		strbuf_printf(&sb, "%s\n", line);
	}
	free(text);
	struct campaign *c = test_campaign_parse(sb.data, sb.len, "open.campaign");
	strbuf_free(&sb);
	return c;
}

static int setup(void **state)
{
	struct world *w = xcalloc(1, sizeof *w);
	struct campaign *c = open_campaign();
	assert_false(c->players[0].setup_by_mail);
	assert_true(c->players[1].setup_by_mail);
	assert_true(c->players[2].setup_by_mail);
	assert_int_equal(c->players[2].location, NO_INDEX);
	assert_int_equal(player_field_half_ap(&c->players[2]), 0);
	static const char *const pw[] = {"beta", BETA_PW, "gamma", GAMMA_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(&w->t, "setup", c, pw, &cfg);
	w->maildir = xasprintf("%s/Maildir", w->t.dir);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	test_engine_close(&w->t);
	free(w->maildir);
	free(w);
	return 0;
}

/* Every mail delivered to `addr` since the last call (maildir_received),
 * the outbox sent as it stands 30 days on. */
static char *received(struct world *w, const char *addr)
{
	return maildir_received(&w->t, w->maildir, NOW + 30 * 86400LL, addr);
}

static size_t count_of(const char *text, const char *needle)
{
	return maildir_count(text, needle);
}

#define assert_has(text, needle)                                                          \
	do {                                                                               \
		if (!strstr((text), (needle)))                                             \
			fail_msg("\"%s\" not in:\n%s", (needle), (text));                  \
	} while (0)

static enum engine_verdict send_at(struct world *w, const char *from, const char *body,
				   int64_t now, char **reply)
{
	return test_engine_send(&w->t, ++w->uid, from, body, now, reply);
}

static enum engine_verdict send(struct world *w, const char *from, const char *body)
{
	return send_at(w, from, body, NOW, NULL);
}

static char *status_text(struct world *w)
{
	char *text = NULL, *err = NULL;
	assert_int_equal(engine_year_status(w->t.engine, NOW, &text, &err), 0);
	return text;
}

static void test_setup_by_mail(void **state)
{
	struct world *w = *state;
	char *report = NULL, *err = NULL, *mail;

	/* open-setup: each open player gets his list and home provinces */
	struct engine_action_request req = {.action = ENGINE_ACT_OPEN_SETUP};
	int rc = engine_action(w->t.engine, &req, NOW, &report, &err);
	if (rc != 0)
		fail_msg("open-setup: %s", report ? report : err);
	assert_has(report, "mailed gamma <gil@example.org>");
	assert_null(strstr(report, "alpha"));
	free(report);
	mail = received(w, "ann@example.org");
	assert_string_equal(mail, ""); /* alpha's army is in the file */
	free(mail);
	mail = received(w, "gil@example.org");
	assert_int_equal(count_of(mail, "Subject: [TestCampaign] 1450 \u00b7 Choose your field army"), 1);
	assert_has(mail, "Knights: Kn(S) Irr, 12 AP each, 2 to 24");
	assert_has(mail, "General: Kn(S) Reg, 22 AP each, 1 to 1 (general)");
	assert_has(mail, "Levy: Hd(I) Irr, 0.5 AP each, 0 to 10");
	assert_has(mail, "Your home provinces: Kent Sussex Surrey Essex");
	assert_has(mail, "ARMY 1 General, <n> <element>");
	assert_has(mail, "START IN <one of your home provinces>");
	assert_null(strstr(mail, GAMMA_PW));
	free(mail);
	mail = received(w, "bob@example.net");
	assert_has(mail, "Your home provinces: Normandy Picardy Maine Anjou");
	free(mail);

	/* too many AP: refused, nothing kept */
	assert_int_equal(send(w, GAMMA, "PLAYER gamma " GAMMA_PW "\r\n"
				 "ARMY 1 General, 1 Sub-general, 24 Knights, 60 Archers\r\n"),
			 ENGINE_ACCEPTED);
	mail = received(w, "gil@example.org");
	assert_has(mail, "ERROR: the army costs 572 AP, 92 AP over the 480 AP of a field army");
	assert_has(mail, "(no ARMY line yet)");
	assert_has(mail, "your field army: an ARMY line");
	free(mail);

	/* no C-in-C, a minimum missed, a foreign province; labels forgiving */
	assert_int_equal(send(w, GAMMA, "PLAYER gamma " GAMMA_PW "\r\n"
				 "army 2 sub-general, 20 knights, 49 ARCHERS\r\n"
				 "START IN Flanders\r\n"),
			 ENGINE_ACCEPTED);
	mail = received(w, "gil@example.org");
	assert_has(mail, "ARMY 2 Sub-general, 20 Knights, 49 Archers");
	assert_has(mail, "ERROR: Flanders is not one of your home provinces; your army starts "
			 "in one of them: Kent, Sussex, Surrey, Essex");
	assert_has(mail, "  20 Knights (240 AP)");
	assert_has(mail, "Total: 480 AP of 480");
	assert_has(mail, "Still missing:");
	assert_has(mail, "- your C-in-C: 1 General");
	assert_has(mail, "- 1 more Skirmishers (the list minimum is 1)");
	assert_has(mail, "(no START IN line yet)");
	assert_null(strstr(mail, "still to spend"));
	free(mail);

	/* the status shows who is ready */
	char *st = status_text(w);
	assert_has(st, "gamma: NOT READY; missing: your C-in-C: 1 General; 1 more Skirmishers");
	assert_has(st, "beta: NOT READY");
	assert_null(strstr(st, "alpha:"));
	free(st);

	/* fixed: a complete army, started in a home province */
	assert_int_equal(send(w, GAMMA, "PLAYER gamma " GAMMA_PW "\r\n"
				 "ARMY 1 General, 1 Sub-general, 18 Knights, 52 Archers, "
				 "2 Auxilia, 2 Levy, 2 Skirm\r\n"
				 "START IN essex\r\n"),
			 ENGINE_ACCEPTED);
	mail = received(w, "gil@example.org");
	assert_has(mail, "Every line of your mail was understood.");
	assert_has(mail, "Total: 480 AP of 480");
	assert_has(mail, "Starts in Essex");
	assert_has(mail, "You are ready");
	free(mail);
	st = status_text(w);
	assert_has(st, "gamma: ready (480 AP, starts in Essex)");
	free(st);

	/* beta chooses only his start: the start is refused while he is not ready */
	assert_int_equal(send(w, BETA, "PLAYER beta " BETA_PW "\r\nSTART IN Anjou\r\n"),
			 ENGINE_ACCEPTED);
	free(received(w, "bob@example.net"));
	assert_int_equal(engine_start_setup(w->t.engine, NOW, NULL, false, &report, &err), 1);
	assert_has(report, "not every player is ready");
	assert_has(report, "beta");
	assert_null(strstr(report, "gamma"));
	free(report);
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(w->t.store, &c, NULL), STORE_OK);
	assert_int_equal(c->phase, PHASE_SETUP);
	assert_true(c->players[2].setup_by_mail);
	campaign_free(c);

	/* forced: gamma's army as sent, beta the default, and told */
	assert_int_equal(engine_start_setup(w->t.engine, NOW, NULL, true, &report, &err), 0);
	assert_has(report, "gamma: army of 480 AP placed in Essex");
	assert_has(report, "beta was not ready: given the default army");
	free(report);
	assert_int_equal(store_load_campaign(w->t.store, &c, NULL), STORE_OK);
	const struct player *g = &c->players[2], *b = &c->players[1];
	assert_false(g->setup_by_mail);
	assert_string_equal(c->provinces[g->location].name, "Essex");
	assert_int_equal(player_field_half_ap(g), HALF_AP(480));
	assert_int_equal(g->field.count[army_list_find(&g->list, "Archers")], 52);
	assert_int_equal(g->original_half_ap, HALF_AP(480));
	/* the default: minimums (1 General, 2 Knights, 1 Skirmishers = 48 AP),
	 * then Knights up to 24 (+264) and Archers while it fits (+168 = 42) */
	assert_string_equal(c->provinces[b->location].name, "Anjou");
	assert_int_equal(b->field.count[army_list_find(&b->list, "General")], 1);
	assert_int_equal(b->field.count[army_list_find(&b->list, "Knights")], 24);
	assert_int_equal(b->field.count[army_list_find(&b->list, "Archers")], 42);
	assert_int_equal(b->field.count[army_list_find(&b->list, "Skirmishers")], 1);
	assert_int_equal(player_field_half_ap(b), HALF_AP(480));
	campaign_free(c);
	mail = received(w, "bob@example.net");
	assert_has(mail, "Subject: [TestCampaign] 1450 \u00b7 The campaign started without your setup");
	assert_has(mail, "  42 Archers");
	assert_has(mail, "Your army starts in Anjou.");
	assert_null(strstr(mail, "(the first of your home"));
	free(mail);
	mail = received(w, "gil@example.org");
	assert_null(strstr(mail, "without your setup"));
	/* under its Subject, or merged into the mail sent at the same moment */
	assert_true(strstr(mail, "Subject: [TestCampaign] 1450 \u00b7 The sequence of play") ||
		    strstr(mail, "----------\nThe sequence of play\n"));
	assert_has(mail, "The sequence of play for 1450, rolled before play starts:");
	free(mail);

	/* after the start ARMY is refused */
	assert_int_equal(send(w, GAMMA, "PLAYER gamma " GAMMA_PW "\r\nARMY 1 General\r\n"),
			 ENGINE_ACCEPTED);
	mail = received(w, "gil@example.org");
	assert_has(mail, "ERROR: the campaign has started");
	free(mail);
}

/* A player whose army is in the file cannot choose it by mail. */
static void test_setup_refused_for_a_set_army(void **state)
{
	struct world *w = *state;
	static const char *const pw[] = {"alpha", "ALPH-1XYZ-7KQM-2XRT", NULL};
	char *err = NULL;
	assert_int_equal(store_set_password(w->t.store, pw[0], pw[1], &err), STORE_OK);
	assert_int_equal(send(w, "Ann <ann@example.org>",
			      "PLAYER alpha ALPH-1XYZ-7KQM-2XRT\r\nSTART IN Brabant\r\n"),
			 ENGINE_ACCEPTED);
	char *mail = received(w, "ann@example.org");
	assert_has(mail, "ERROR: your field army and where it starts were set by the organiser");
	assert_null(strstr(mail, "Your field army for the start"));
	free(mail);
}

#define ALPHA_PW "ALPH-1XYZ-7KQM-2XRT"
#define ANN "Ann Alpha <ann@example.org>"

/* The new password in a "your new password" mail (allocated). */
static char *password_in(const char *mail)
{
	const char *at = strstr(mail, "Here it is:");
	assert_non_null(at);
	at += strlen("Here it is:");
	while (*at == '\n' || *at == '\r' || *at == ' ')
		at++;
	size_t n = strcspn(at, "\r\n");
	assert_int_equal(n, 19);
	return xstrndup(at, n);
}

static void test_forgotten_password(void **state)
{
	struct world *w = *state;
	char *err = NULL, *reply = NULL;
	assert_int_equal(store_set_password(w->t.store, "alpha", ALPHA_PW, &err), STORE_OK);

	/* from another address: nothing happens, nobody is mailed */
	assert_int_equal(send(w, "Mallory <mallory@example.com>", "FORGOT PASSWORD\r\n"),
			 ENGINE_IGNORED);
	char *mail = received(w, "mallory@example.com");
	assert_string_equal(mail, "");
	free(mail);
	mail = received(w, "ann@example.org");
	assert_string_equal(mail, "");
	free(mail);

	/* from the registered address: a new password, to it alone */
	assert_int_equal(send_at(w, ANN, "Hello,\r\nFORGOT PASSWORD\r\n", NOW, &reply),
			 ENGINE_ACCEPTED);
	assert_null(strstr(reply, "Here it is"));
	free(reply);
	mail = received(w, "ann@example.org");
	assert_int_equal(count_of(mail, "Subject: [TestCampaign] 1450 \u00b7 Your new password"), 1);
	assert_has(mail, "Your old password keeps working until you use this new one");
	assert_null(strstr(mail, ALPHA_PW));
	char *fresh = password_in(mail);
	assert_string_not_equal(fresh, ALPHA_PW);
	free(mail);

	/* the old one still works */
	assert_int_equal(send(w, ANN, "PLAYER alpha " ALPHA_PW "\r\nIN STORM HALT\r\n"),
			 ENGINE_ACCEPTED);
	free(received(w, "ann@example.org"));

	/* asked again the same day: no new password, told when */
	assert_int_equal(send_at(w, ANN, "FORGOT PASSWORD\r\n", NOW + 3600, NULL),
			 ENGINE_REJECTED);
	mail = received(w, "ann@example.org");
	assert_has(mail, "Subject: [TestCampaign] 1450 \u00b7 No new password yet");
	assert_has(mail, "one was already sent at");
	assert_null(strstr(mail, fresh));
	free(mail);

	/* the new one used: from then on the old one is refused */
	char *body = xasprintf("PLAYER alpha %s\r\nIN STORM RETURN\r\n", fresh);
	assert_int_equal(send(w, ANN, body), ENGINE_ACCEPTED);
	free(body);
	mail = received(w, "ann@example.org");
	assert_has(mail, "IN STORM RETURN");
	assert_null(strstr(mail, fresh));
	free(mail);
	assert_int_equal(send(w, ANN, "PLAYER alpha " ALPHA_PW "\r\nIN STORM HALT\r\n"),
			 ENGINE_REJECTED);
	mail = received(w, "ann@example.org");
	assert_has(mail, "wrong password");
	free(mail);

	/* with the PLAYER line it is not needed */
	body = xasprintf("PLAYER alpha %s\r\nFORGOT PASSWORD\r\n", fresh);
	assert_int_equal(send_at(w, ANN, body, NOW + 25 * 3600, NULL), ENGINE_ACCEPTED);
	free(body);
	mail = received(w, "ann@example.org");
	assert_has(mail, "ERROR: your password was right: to change it write PASSWORD <new>");
	free(mail);

	/* a day later another may be asked for */
	assert_int_equal(send_at(w, ANN, "FORGOT PASSWORD\r\n", NOW + 25 * 3600, NULL),
			 ENGINE_ACCEPTED);
	mail = received(w, "ann@example.org");
	char *third = password_in(mail);
	assert_string_not_equal(third, fresh);
	free(third);
	free(mail);
	free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_setup_by_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_refused_for_a_set_army, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forgotten_password, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
