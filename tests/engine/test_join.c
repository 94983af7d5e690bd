/* A new player joins during play (campaignctl add-player, rules 1.2),
 * end to end: refusals that name what is wrong, the new player invited and
 * sent his army list, everyone told once, his setup by mail with mistakes
 * (too many AP, no C-in-C, a province not his, an order of play before he
 * is in), the organiser's status, the year's sequence of play unchanged,
 * and the next year's with him in it. Every mail goes out through the
 * Maildir transport and is read back as the player receives it; the clock
 * is the test's. */
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
#include "dbm/rules.h"
#include "engine/engine.h"
#include "lib/campaign_fixture.h"
#include "lib/engine_fixture.h"
#include "lib/maildir_fixture.h"
#include "mail/mail_text.h"
#include "lib/files.h"
#include "mail/transport.h"
#include "model/campaign_file.h"
#include "store/store.h"

#define NOW 1800000000LL
#define HOUR 3600LL
#define SEED "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define DAVE "Dave Delta <dave@example.com>"

struct world {
	struct test_engine t;
	char *maildir;
	uint32_t uid;
	int64_t now;
	struct campaign *lists; /* delta's national list */
};

static const char delta_list[] =
	"[player delta]\n"
	"nation = Deltaland\n"
	"element = General     | Kn(S) Irr | 22 | 1-1  | general\n"
	"element = Sub-general | Kn(S) Irr | 22 | 0-3  | general\n"
	"element = Knights     | Kn(S) Irr | 12 | 2-24\n"
	"element = Archers     | Bw(O) Irr | 4  | 0-60\n"
	"element = Skirmishers | Ps(O) Irr | 2  | 1-8\n";

static int setup(void **state)
{
	struct world *w = xcalloc(1, sizeof *w);
	char *text = test_source_text("tests/data/campaign/minimal.campaign", NULL);
	struct campaign *c = test_campaign_parse(text, strlen(text), "minimal.campaign");
	free(text);
	static const char *const pw[] = {"alpha", "ALPH-1XYZ-7KQM-2XRT", "beta",
					 "BETA-1XYZ-7KQM-2XRT", "gamma", "GAMM-1XYZ-7KQM-2XRT",
					 NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(&w->t, "join", c, pw, &cfg);
	w->maildir = xasprintf("%s/Maildir", w->t.dir);
	w->now = NOW;
	struct diag_list diags = {0};
	w->lists = campaign_file_parse_lists(delta_list, strlen(delta_list), "delta.list", &diags);
	assert_non_null(w->lists);
	struct list_derivation d;
	assert_int_equal(rules_derive_army_list(&w->lists->players[0].list, "delta.list", 1, &d,
						&diags), 0);
	diag_free(&diags);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	test_engine_close(&w->t);
	campaign_free(w->lists);
	free(w->maildir);
	free(w);
	return 0;
}

/* Every mail delivered to `addr` since the last call (maildir_received),
 * the outbox sent as it stands 30 days on. */
static char *received(struct world *w, const char *addr)
{
	return maildir_received(&w->t, w->maildir, w->now + 30 * 86400LL, addr);
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

/* One of the mails of a moment: under its own Subject, or merged into the
 * mail the player got at the same moment, under a rule with its subject
 * (and its year, when not the leading part's) as a heading. */
#define assert_part(text, subject, heading)                                               \
	do {                                                                              \
		if (!strstr((text), "Subject: [TestCampaign] " subject) &&                \
		    !strstr((text), "----------\n" heading "\n"))                         \
			fail_msg("neither \"%s\" nor \"%s\" in:\n%s", (subject), (heading), \
				 (text));                                                 \
	} while (0)

static enum engine_verdict send_at(struct world *w, const char *from, const char *body,
				   int64_t now, char **reply)
{
	return test_engine_send(&w->t, ++w->uid, from, body, now, reply);
}

static enum engine_verdict send(struct world *w, const char *from, const char *body)
{
	return send_at(w, from, body, w->now, NULL);
}

static json_t *year_state(struct world *w)
{
	char *text = NULL;
	assert_int_equal(store_year_state_get(w->t.store, &text, NULL), STORE_OK);
	assert_non_null(text);
	json_t *doc = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(doc);
	return doc;
}

/* The sequence of play of the year under way, as "a b c". */
static char *sequence(struct world *w)
{
	json_t *st = year_state(w);
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(st, "sequence"), i, v)
		strbuf_printf(&sb, "%s%s", i ? " " : "", json_string_value(v));
	json_decref(st);
	return strbuf_take(&sb);
}

static struct campaign *campaign(struct world *w)
{
	struct campaign *c = NULL;
	assert_int_equal(store_load_campaign(w->t.store, &c, NULL), STORE_OK);
	return c;
}

static int add(struct world *w, const char *key, const char *email, const char *provinces,
	       char **report)
{
	struct engine_new_player np = {key, w->lists->players[0].nation, "Dave Delta", email, provinces,
				       &w->lists->players[0].list};
	char *err = NULL;
	*report = NULL;
	int rc = engine_add_player(w->t.engine, &np, w->now, report, &err);
	if (rc < 0)
		fail_msg("add-player: %s", err ? err : "?");
	return rc;
}

/* The password in an invitation (allocated). */
static char *password_in(const char *mail)
{
	const char *at = strstr(mail, "so keep this mail):");
	assert_non_null(at);
	at += strlen("so keep this mail):");
	while (*at == '\n' || *at == '\r' || *at == ' ')
		at++;
	size_t n = strcspn(at, " \r\n");
	assert_int_equal(n, 19);
	return xstrndup(at, n);
}

/* Refusals change nothing and say what is wrong. */
static void test_add_player_refused(void **state)
{
	struct world *w = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start_setup(w->t.engine, w->now, SEED, false, &report, &err), 0);
	free(report);
	free(received(w, "org@example.org"));

	assert_int_equal(add(w, "delta", "dave@example.com", "Geneve, Normandy, Kent", &report), 1);
	assert_string_equal(report, "refused: only neutral provinces can be a new player's home "
				    "provinces; not neutral: Normandy (Betaland's), Kent "
				    "(Gammaland's); neutral: Genève, Outremer\n");
	free(report);
	assert_int_equal(add(w, "beta", "dave@example.com", "Geneve", &report), 1);
	assert_string_equal(report, "refused: there is already a player \"beta\" (Betaland)\n");
	free(report);
	assert_int_equal(add(w, "Betaland", "dave@example.com", "Geneve", &report), 1);
	assert_string_equal(report, "refused: there is already a player \"beta\" (Betaland)\n");
	free(report);
	assert_int_equal(add(w, "delta", "Bob@Example.net", "Geneve", &report), 1);
	assert_string_equal(report, "refused: Bob@Example.net is already the address of player "
				    "\"beta\"; each player needs an address of their own\n");
	free(report);
	assert_int_equal(add(w, "delta", "dave", "Geneve", &report), 1);
	assert_string_equal(report, "refused: \"dave\" is not a mail address (--email ADDR)\n");
	free(report);
	assert_int_equal(add(w, "delta", "dave@example.com", "Atlantis", &report), 1);
	assert_string_equal(report, "refused: no province \"Atlantis\" on the map\n");
	free(report);
	assert_int_equal(add(w, "delta", "dave@example.com", "Geneve, Genève", &report), 1);
	assert_string_equal(report, "refused: Genève is named twice\n");
	free(report);
	assert_int_equal(add(w, "two words", "dave@example.com", "Geneve", &report), 1);
	assert_string_equal(report, "refused: the player key \"two words\" must be one word of "
				    "letters, digits, '-' or '_' (players type it in their orders)\n");
	free(report);
	/* a list without a general line */
	struct army_list *l = &w->lists->players[0].list;
	struct army_list saved = *l;
	l->types += 2;
	l->count -= 2;
	struct engine_new_player np = {"delta", NULL, NULL, "dave@example.com", "Geneve", l};
	assert_int_equal(engine_add_player(w->t.engine, &np, w->now, &report, &err), 1);
	*l = saved;
	assert_string_equal(report, "refused: the army list has no general line for the C-in-C\n");
	free(report);

	struct campaign *c = campaign(w);
	assert_int_equal(c->player_count, 3);
	campaign_free(c);
	char *mail = received(w, "org@example.org");
	assert_string_equal(mail, "");
	free(mail);
}

static void test_player_joins_next_year(void **state)
{
	struct world *w = *state;
	char *report = NULL, *err = NULL, *mail;
	assert_int_equal(engine_start_setup(w->t.engine, w->now, SEED, false, &report, &err), 0);
	free(report);
	free(received(w, "ann@example.org"));
	free(received(w, "bob@example.net"));
	free(received(w, "gil@example.org"));
	free(received(w, "org@example.org"));
	char *seq1450 = sequence(w);
	assert_int_equal(strlen(seq1450), strlen("alpha beta gamma"));

	/* an hour into 1450's campaign phase, Deltaland joins */
	w->now += HOUR;
	assert_int_equal(add(w, "delta", "dave@example.com", " Geneve ,outremer", &report), 0);
	assert_string_equal(report, "Deltaland joins the campaign, played by Dave Delta, with "
				    "Genève and Outremer as home provinces (neutral until then); it "
				    "takes its turns from 1451\ninvited delta <dave@example.com> "
				    "(password by mail) and mailed the army list and home provinces\n");
	free(report);

	/* his invitation and his army list; everyone else one mail */
	mail = received(w, "dave@example.com");
	assert_int_equal(count_of(mail, "\n=====\n"), 2);
	assert_int_equal(count_of(mail, "Subject: [TestCampaign] 1450 \u00b7 Your invitation and "
					"password"), 1);
	assert_has(mail, "You join a campaign under way: Deltaland enters play when the year 1451 "
			 "begins");
	assert_int_equal(count_of(mail, "Subject: [TestCampaign] 1450 \u00b7 Choose your field "
					"army"), 1);
	assert_has(mail, "Your home provinces: Genève Outremer");
	assert_has(mail, "Knights: Kn(S) Irr, 12 AP each, 2 to 24");
	assert_has(mail, "You join the campaign: Deltaland enters play when the year 1451");
	char *pw = password_in(mail);
	free(mail);
	static const char *const others[] = {"ann@example.org", "bob@example.net",
					     "gil@example.org", "org@example.org"};
	for (size_t i = 0; i < 4; i++) {
		mail = received(w, others[i]);
		assert_int_equal(count_of(mail, "\n=====\n"), 1);
		assert_has(mail, "Subject: [TestCampaign] 1450 \u00b7 The organiser: a new player "
				 "joins");
		assert_has(mail, "Deltaland joins the campaign, played by Dave Delta");
		assert_null(strstr(mail, pw));
		free(mail);
	}
	struct campaign *c = campaign(w);
	assert_int_equal(c->player_count, 4);
	assert_int_equal(c->players[3].status, PLAYER_JOINING);
	int geneve = campaign_find_province(c, "Genève");
	int outremer = campaign_find_province(c, "Outremer");
	assert_int_equal(c->provinces[geneve].home_of, 3);
	assert_int_equal(c->provinces[geneve].owner, NO_INDEX); /* neutral until he enters */
	campaign_free(c);

	/* this year's sequence of play is unchanged */
	char *now_seq = sequence(w);
	assert_string_equal(now_seq, seq1450);
	free(now_seq);

	/* his setup by mail, with mistakes */
	char *hdr = xasprintf("PLAYER delta %s\r\n", pw);
	char *body = xasprintf("%sARMY 1 General, 1 Sub-general, 24 Knights, 60 Archers\r\n", hdr);
	assert_int_equal(send(w, DAVE, body), ENGINE_ACCEPTED);
	free(body);
	mail = received(w, "dave@example.com");
	assert_has(mail, "ERROR: the army costs 572 AP, 92 AP over the 480 AP of a field army");
	assert_has(mail, "(no ARMY line yet)");
	free(mail);
	body = xasprintf("%sarmy 2 sub-general, 18 knights, 54 archers, 2 skirm\r\n"
			 "START IN Normandy\r\nMOVE Geneve\r\n", hdr);
	assert_int_equal(send(w, DAVE, body), ENGINE_ACCEPTED);
	free(body);
	mail = received(w, "dave@example.com");
	assert_has(mail, "ERROR: Normandy is not one of your home provinces; your army starts in "
			 "one of them: Genève, Outremer");
	assert_has(mail, "ERROR: you enter the campaign when the year 1451 begins: until then only "
			 "your setup (ARMY, START IN) is read");
	assert_has(mail, "- your C-in-C: 1 General");
	assert_has(mail, "(no START IN line yet)");
	free(mail);
	char *st = NULL;
	assert_int_equal(engine_year_status(w->t.engine, w->now, &st, &err), 0);
	assert_has(st, "Joining when 1451 begins, setting up by mail (ARMY, START IN):");
	assert_has(st, "delta: NOT READY; missing: your C-in-C: 1 General");
	free(st);

	body = xasprintf("%sARMY 1 General, 1 Sub-general, 18 Knights, 54 Archers, 2 Skirm\r\n"
			 "START IN outremer\r\n", hdr);
	assert_int_equal(send(w, DAVE, body), ENGINE_ACCEPTED);
	free(body);
	mail = received(w, "dave@example.com");
	assert_has(mail, "Every line of your mail was understood.");
	assert_has(mail, "Total: 480 AP of 480");
	assert_has(mail, "Starts in Outremer");
	assert_has(mail, "You are ready: this army and start count when the year 1451 begins and "
			 "you enter the campaign.");
	free(mail);
	assert_int_equal(engine_year_status(w->t.engine, w->now, &st, &err), 0);
	assert_has(st, "delta: ready (480 AP, starts in Outremer)");
	free(st);

	/* the year runs out by its deadlines (no orders: NO MOVE, nothing
	 * recruited); delta is awaited for nothing in it */
	c = campaign(w);
	for (int guard = 0; c->year == 1450 && guard < 20; guard++) {
		json_t *ys = year_state(w);
		int64_t deadline = json_integer_value(json_object_get(ys, "deadline"));
		json_decref(ys);
		assert_true(deadline > 0);
		now_seq = sequence(w);
		assert_string_equal(now_seq, seq1450);
		free(now_seq);
		w->now = deadline;
		assert_int_equal(engine_tick(w->t.engine, w->now, 0, NULL, &err), 0);
		campaign_free(c);
		c = campaign(w);
	}
	assert_int_equal(c->year, 1451);
	const struct player *d = &c->players[3];
	assert_int_equal(d->status, PLAYER_ACTIVE);
	assert_false(d->setup_by_mail);
	assert_int_equal(d->location, outremer);
	assert_int_equal(player_field_half_ap(d), HALF_AP(480));
	assert_int_equal(d->field.count[army_list_find(&d->list, "Archers")], 54);
	assert_int_equal(c->provinces[geneve].owner, 3);
	assert_int_equal(c->provinces[outremer].owner, 3);
	campaign_free(c);
	char *seq1451 = sequence(w);
	assert_int_equal(strlen(seq1451), strlen("alpha beta gamma delta"));
	assert_non_null(strstr(seq1451, "delta"));
	free(seq1451);
	mail = received(w, "dave@example.com");
	assert_part(mail, "1451 \u00b7 The sequence of play", "The sequence of play (1451)");
	assert_has(mail, "The sequence of play for 1451, rolled at the end of 1450");
	assert_null(strstr(mail, "without your setup"));
	free(mail);
	mail = received(w, "ann@example.org");
	assert_has(mail, "Deltaland joins the campaign with Genève Outremer as its home provinces, "
			 "and takes its turns from 1451.");
	assert_part(mail, "1450 \u00b7 The year's diary", "The year's diary");
	assert_has(mail, "The diary of the year 1450");
	/* the order of play for 1451, rolled as 1450 ended, has him in its
	 * roll: he enters when 1451 begins (rules 1.2, 1.4); the diary points
	 * to the sequence of play in the same mail, which lists it */
	assert_has(mail, "The order of play for 1451, rolled as 1450 ended (with the dice of "
			 "1450), is in \"The sequence of play\" below.");
	const char *order = strstr(mail, "The sequence of play for 1451, rolled at the end of 1450");
	assert_non_null(order);
	const char *delta_at = strstr(order, "Deltaland"), *order_end = strstr(order, "\n\n");
	assert_true(delta_at && (!order_end || delta_at < order_end));
	free(mail);

	/* his orders are now the year's: MOVE is read */
	body = xasprintf("%sMOVE Geneve\r\n", hdr);
	assert_int_equal(send(w, DAVE, body), ENGINE_ACCEPTED);
	free(body);
	mail = received(w, "dave@example.com");
	assert_null(strstr(mail, "you enter the campaign"));
	free(mail);
	free(hdr);
	free(pw);
	free(seq1450);
}

/* An undo to before the joining keeps the new player (his rows, his
 * password and his setup stay in the store). */
static void test_undo_keeps_joiner(void **state)
{
	struct world *w = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start_setup(w->t.engine, w->now, SEED, false, &report, &err), 0);
	free(report);
	/* the first turn runs out: a step to undo, its snapshot without delta */
	json_t *ys = year_state(w);
	w->now = json_integer_value(json_object_get(ys, "deadline"));
	json_decref(ys);
	assert_int_equal(engine_tick(w->t.engine, w->now, 0, NULL, &err), 0);
	assert_int_equal(add(w, "delta", "dave@example.com", "Geneve", &report), 0);
	assert_non_null(strstr(report, "with Genève as home province (neutral until then)"));
	free(report);
	struct engine_action_request req = {.action = ENGINE_ACT_UNDO};
	int rc = engine_action(w->t.engine, &req, w->now, &report, &err);
	if (rc != 0)
		fail_msg("undo: %s", report ? report : err);
	free(report);
	struct campaign *c = campaign(w);
	assert_int_equal(c->player_count, 4);
	assert_int_equal(c->players[3].status, PLAYER_JOINING);
	assert_true(c->players[3].setup_by_mail);
	int geneve = campaign_find_province(c, "Genève");
	assert_int_equal(c->provinces[geneve].home_of, 3);
	assert_int_equal(c->provinces[geneve].owner, NO_INDEX);
	campaign_free(c);
}

/* The year runs out by its deadlines (no orders: NO MOVE, nothing
 * recruited) until `year` begins; its sequence of play stays `seq`. */
static void run_to_year(struct world *w, int year, const char *seq)
{
	char *err = NULL;
	struct campaign *c = campaign(w);
	for (int guard = 0; c->year < year && guard < 20; guard++) {
		json_t *ys = year_state(w);
		int64_t deadline = json_integer_value(json_object_get(ys, "deadline"));
		json_decref(ys);
		assert_true(deadline > 0);
		char *now_seq = sequence(w);
		assert_string_equal(now_seq, seq);
		free(now_seq);
		w->now = deadline;
		assert_int_equal(engine_tick(w->t.engine, w->now, 0, NULL, &err), 0);
		campaign_free(c);
		c = campaign(w);
	}
	assert_int_equal(c->year, year);
	campaign_free(c);
}

/* Not ready when the next year begins: the default army, in his first
 * home province, and a mail saying so. */
static void test_joiner_not_ready_gets_default(void **state)
{
	struct world *w = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start_setup(w->t.engine, w->now, SEED, false, &report, &err), 0);
	free(report);
	char *seq = sequence(w);
	assert_int_equal(add(w, "delta", "dave@example.com", "Outremer, Geneve", &report), 0);
	free(report);
	free(received(w, "dave@example.com"));
	run_to_year(w, 1451, seq);
	free(seq);
	struct campaign *c = campaign(w);
	const struct player *d = &c->players[3];
	assert_int_equal(d->status, PLAYER_ACTIVE);
	assert_string_equal(c->provinces[d->location].name, "Genève"); /* first in the file */
	/* the minimums (1 General, 2 Knights, 1 Skirmishers = 48 AP), then
	 * the troop lines: Knights up to 24 (+264) and Archers while it fits
	 * (+168 = 42) */
	assert_int_equal(d->field.count[army_list_find(&d->list, "Sub-general")], 0);
	assert_int_equal(d->field.count[army_list_find(&d->list, "Knights")], 24);
	assert_int_equal(d->field.count[army_list_find(&d->list, "Archers")], 42);
	assert_int_equal(player_field_half_ap(d), HALF_AP(480));
	campaign_free(c);
	char *mail = received(w, "dave@example.com");
	assert_part(mail, "1451 \u00b7 You entered the campaign without your setup",
		    "You entered the campaign without your setup (1451)");
	assert_has(mail, "the year 1451 began and you entered the campaign");
	assert_has(mail, "  42 Archers");
	assert_has(mail, "Your army starts in Genève (the first of your home");
	assert_part(mail, "1451 \u00b7 The sequence of play", "The sequence of play (1451)");
	assert_has(mail, "The sequence of play for 1451, rolled at the end of 1450");
	free(mail);
}

/* A player still joining may be removed: his provinces are free again. */
static void test_joiner_removed(void **state)
{
	struct world *w = *state;
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start_setup(w->t.engine, w->now, SEED, false, &report, &err), 0);
	free(report);
	assert_int_equal(add(w, "delta", "dave@example.com", "Geneve", &report), 0);
	free(report);
	struct engine_action_request req = {.action = ENGINE_ACT_REMOVE_PLAYER, .arg = "delta"};
	int rc = engine_action(w->t.engine, &req, w->now, &report, &err);
	if (rc != 0)
		fail_msg("remove-player: %s", report ? report : err);
	free(report);
	struct campaign *c = campaign(w);
	assert_int_equal(c->players[3].status, PLAYER_LEFT);
	campaign_free(c);
	/* his nation stays his (the diary names it), his province is free */
	assert_int_equal(add(w, "epsilon", "eve@example.com", "Geneve", &report), 1);
	assert_string_equal(report, "refused: the nation \"Deltaland\" is already played by "
				    "\"delta\"\n");
	free(report);
	struct engine_new_player np = {"epsilon", "Epsilonland", NULL, "eve@example.com", "Geneve",
				       &w->lists->players[0].list};
	assert_int_equal(engine_add_player(w->t.engine, &np, w->now, &report, &err), 0);
	free(report);
	c = campaign(w);
	assert_int_equal(c->provinces[campaign_find_province(c, "Genève")].home_of, 4);
	assert_int_equal(c->players[4].status, PLAYER_JOINING);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_player_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_player_joins_next_year, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_keeps_joiner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_joiner_not_ready_gets_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_joiner_removed, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
