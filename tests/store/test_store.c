/* Tests of the SQLite store (src/store) on real database files in a scratch
 * directory. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sodium.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/campaign_file.h"
#include "lib/campaign_fixture.h"
#include "lib/files.h"
#include "lib/store_fixture.h"
#include "model/campaign_json.h"
#include "base/diag.h"
#include "base/fileio.h"
#include "store/store.h"
#include "base/util.h"

struct scratch {
	char dir[64];
	char *db; /* dir/campaign.db */
};

static int scratch_setup(void **state)
{
	struct scratch *sc = xcalloc(1, sizeof *sc);
	test_scratch_dir(sc->dir, "store");
	sc->db = xasprintf("%s/campaign.db", sc->dir);
	*state = sc;
	return 0;
}

static int scratch_teardown(void **state)
{
	struct scratch *sc = *state;
	test_scratch_remove(sc->dir);
	free(sc->db);
	free(sc);
	return 0;
}

/* The message is passed by address: it is read only after the call under
 * test has run (argument evaluation order is unspecified). */
static void ok(int status, char **errp)
{
	char *err = *errp;
	*errp = NULL;
	if (status != STORE_OK)
		fail_msg("store error %d: %s", status, err ? err : "(no message)");
	free(err);
}

static void assert_error(int status, int expected, char **errp, const char *needle)
{
	char *err = *errp;
	*errp = NULL;
	if (status != expected)
		fail_msg("status %d, expected %d (%s)", status, expected, err ? err : "");
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err, needle);
	free(err);
}

static void assert_same_json(const struct campaign *a, const struct campaign *b)
{
	json_t *ja = campaign_to_json(a), *jb = campaign_to_json(b);
	if (!json_equal(ja, jb)) {
		char *sa = json_dumps(ja, JSON_INDENT(1)), *sb = json_dumps(jb, JSON_INDENT(1));
		fprintf(stderr, "expected:\n%s\ngot:\n%s\n", sa, sb);
		free(sa);
		free(sb);
		fail();
	}
	json_decref(ja);
	json_decref(jb);
}

static struct campaign *load(struct store *s)
{
	struct campaign *c = NULL;
	char *err = NULL;
	ok(store_load_campaign(s, &c, &err), &err);
	return c;
}

static void test_init_load(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	c->settings.defence_recalls_contingents = false;
	ok(store_init_campaign(s, c, false, &err), &err);
	store_close(s);

	s = test_store_open(sc->db);
	struct campaign *back = load(s);
	assert_same_json(c, back);
	/* Beyond the JSON picture: the campaign-file lines came back too. */
	assert_int_equal(back->provinces[2].line, c->provinces[2].line);
	assert_int_equal(back->routes[4].line, c->routes[4].line);
	assert_int_equal(back->players[1].line, 60);
	assert_int_equal(back->players[1].list.types[3].line, c->players[1].list.types[3].line);
	assert_int_equal(back->players[0].list.types[3].cost_half_ap, 3);
	assert_true(back->provinces[0].x == 300.5);
	assert_false(back->settings.defence_recalls_contingents);
	assert_true(back->settings.inviolate_passable);
	store_close(s);
	campaign_free(back);
	campaign_free(c);
}

static void test_save_state(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);

	struct campaign *play = load(s);
	fixture_play_a_year(play);
	fixture_play_a_year(c);
	ok(store_save_state(s, play, &err), &err);
	store_close(s);

	s = test_store_open(sc->db);
	struct campaign *back = load(s);
	assert_same_json(c, back);
	assert_int_equal(back->provinces[2].owner, 0);
	assert_int_equal(back->players[0].location, 2);
	assert_int_equal(player_field_half_ap(&back->players[0]), HALF_AP(420));
	assert_int_equal(player_reserve_half_ap(&back->players[0]), HALF_AP(60));
	assert_int_equal(back->players[0].battle_prestige, 2);
	assert_int_equal(back->contingent_count, 1);
	assert_int_equal(back->contingents[0].troops.count[1], 2);
	assert_int_equal(back->siege_count, 1);
	assert_int_equal(back->sieges[0].province, 3);
	assert_int_equal(back->sieges[0].last_round_year, 1451);
	assert_int_equal(back->players[0].movement_option, OPTION_INVADE);
	assert_true(back->players[0].fought_this_year);
	assert_int_equal(back->year, 1451);
	assert_int_equal(back->phase, PHASE_CAMPAIGN);

	/* The contingent goes home, the siege is lifted, France leaves. */
	troops_free(&back->contingents[0].troops);
	back->contingent_count = 0;
	back->siege_count = 0;
	back->players[1].status = PLAYER_LEFT;
	back->players[1].overlord = NO_INDEX;
	back->provinces[1].owner = NO_INDEX;
	back->players[0].movement_option = OPTION_NONE;
	back->players[0].fought_this_year = false;
	ok(store_save_state(s, back, &err), &err);
	struct campaign *again = load(s);
	assert_same_json(back, again);
	assert_int_equal(again->contingent_count, 0);
	assert_int_equal(again->siege_count, 0);
	assert_int_equal(again->players[1].status, PLAYER_LEFT);
	assert_int_equal(again->provinces[1].owner, NO_INDEX);
	assert_int_equal(again->players[0].movement_option, OPTION_NONE);
	assert_false(again->players[0].fought_this_year);

	store_close(s);
	campaign_free(again);
	campaign_free(back);
	campaign_free(play);
	campaign_free(c);
}

static void test_save_state_refuses_another_campaign(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);

	struct campaign *other = fixture_campaign();
	free(other->provinces[3].name);
	other->provinces[3].name = xstrdup("Boulogne");
	other->year = 1460;
	assert_error(store_save_state(s, other, &err), STORE_MISMATCH, &err, "other provinces");

	struct campaign *fewer = fixture_campaign();
	fewer->players[1].list.count--; /* a shorter army list */
	fewer->year = 1460;
	assert_error(store_save_state(s, fewer, &err), STORE_MISMATCH, &err, "army lists");
	fewer->players[1].list.count++;

	struct campaign *back = load(s);
	assert_int_equal(back->year, 1450); /* nothing was written */
	store_close(s);
	campaign_free(back);
	campaign_free(fewer);
	campaign_free(other);
	campaign_free(c);
}

static void test_init_refuses_overwrite(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);
	json_t *storm = json_pack("{s:s, s:i}", "kind", "storm", "year", 1450);
	ok(store_append_event(s, storm, NULL, &err), &err);
	json_decref(storm);
	ok(store_outbox_add(s, "<q@x>", "a@example.org", "queued", 6, 10, NULL, &err), &err);
	int64_t sent_id = 0;
	ok(store_outbox_add(s, "<s@x>", "a@example.org", "sent", 4, 10, &sent_id, &err), &err);
	ok(store_outbox_mark_sent(s, sent_id, 11, &err), &err);
	struct store_inbound in = {.mailbox = "INBOX", .uidvalidity = 1, .uid = 5,
				   .message_id = "<in@x>", .received_at = 9, .status = "accepted"};
	bool dup = false;
	ok(store_inbound_record(s, &in, &dup, &err), &err);

	struct campaign *second = fixture_campaign();
	free(second->name);
	second->name = xstrdup("Second Campaign");
	assert_error(store_init_campaign(s, second, false, &err), STORE_EXISTS, &err,
		     "campaign.db: already holds the campaign \"Test Marches\"");
	struct campaign *back = load(s);
	assert_string_equal(back->name, "Test Marches");
	campaign_free(back);

	ok(store_init_campaign(s, second, true, &err), &err);
	back = load(s);
	assert_string_equal(back->name, "Second Campaign");
	campaign_free(back);

	/* The old campaign's events and unsent mail are gone; what was sent and
	 * received stays, so old mail is never processed or sent again. */
	json_t *events = NULL;
	ok(store_events(s, STORE_ALL_YEARS, &events, &err), &err);
	assert_int_equal(json_array_size(events), 0);
	json_decref(events);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	ok(store_outbox_due(s, 1000, 10, &items, &n, &err), &err);
	assert_int_equal(n, 0);
	store_outbox_items_free(items, n);
	ok(store_outbox_get(s, sent_id, &items, &err), &err);
	assert_int_equal(items->status, STORE_OUTBOX_SENT);
	store_outbox_items_free(items, 1);
	ok(store_inbound_seen(s, "INBOX", 1, 5, NULL, &dup, &err), &err);
	assert_true(dup);

	store_close(s);
	campaign_free(second);
	campaign_free(c);
}

static bool file_contains(const char *path, const char *needle)
{
	size_t len;
	char *data = file_read_all(path, 0, &len);
	if (!data)
		return false;
	size_t nl = strlen(needle);
	bool found = false;
	for (size_t i = 0; !found && i + nl <= len; i++)
		found = memcmp(data + i, needle, nl) == 0;
	free(data);
	return found;
}

/* FORGOT PASSWORD: the new one beside the old until it is used. */
static void test_pending_password(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);
	ok(store_set_password(s, "burgundy", "OLD0-PASS-WORD-0001", &err), &err);
	ok(store_set_pending_password(s, "burgundy", "NEW0-PASS-WORD-0002", &err), &err);
	assert_error(store_set_pending_password(s, "england", "X", &err), STORE_NOTFOUND, &err,
		     "no player \"england\"");
	assert_true(store_check_password(s, "burgundy", "OLD0-PASS-WORD-0001", &err));
	assert_false(store_check_password(s, "france", "NEW0-PASS-WORD-0002", &err));
	assert_true(store_check_password(s, "burgundy", "NEW0-PASS-WORD-0002", &err));
	assert_null(err);
	/* used once: it is the password, the old one is gone */
	assert_false(store_check_password(s, "burgundy", "OLD0-PASS-WORD-0001", &err));
	assert_true(store_check_password(s, "burgundy", "NEW0-PASS-WORD-0002", &err));
	/* a password set otherwise drops a pending one */
	ok(store_set_pending_password(s, "burgundy", "NEW0-PASS-WORD-0003", &err), &err);
	ok(store_set_password(s, "burgundy", "SET0-PASS-WORD-0004", &err), &err);
	assert_false(store_check_password(s, "burgundy", "NEW0-PASS-WORD-0003", &err));
	assert_true(store_check_password(s, "burgundy", "SET0-PASS-WORD-0004", &err));
	assert_null(err);
	store_close(s);
	campaign_free(c);
}

static void test_passwords(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	const char *pw = "7KQM-2XRT-P9WD-4HJN";
	ok(store_init_campaign(s, c, false, &err), &err);
	assert_false(store_check_password(s, "burgundy", pw, &err)); /* none set yet */
	assert_null(err);

	ok(store_set_password(s, "burgundy", pw, &err), &err);
	ok(store_set_password(s, STORE_ORGANISER, "QQQQ-ORGANISER-PW", &err), &err);
	assert_true(store_check_password(s, "burgundy", pw, &err));
	assert_true(store_check_password(s, "Burgundy", pw, &err));
	assert_false(store_check_password(s, "burgundy", "7KQM-2XRT-P9WD-4HJM", &err));
	assert_false(store_check_password(s, "france", pw, &err));
	assert_false(store_check_password(s, "england", pw, &err));
	assert_null(err);
	assert_true(store_check_password(s, STORE_ORGANISER, "QQQQ-ORGANISER-PW", &err));
	assert_false(store_check_password(s, STORE_ORGANISER, pw, &err));
	assert_error(store_set_password(s, "england", pw, &err), STORE_NOTFOUND, &err,
		     "no player \"england\"");
	/* A password verified once is remembered for speed, but a new password
	 * makes the old one fail at once, also for another process's change. */
	assert_true(store_check_password(s, "burgundy", pw, &err));
	struct store *other = test_store_open(sc->db);
	ok(store_set_password(other, "burgundy", "NEW0-PASS-WORD-0001", &err), &err);
	store_close(other);
	assert_false(store_check_password(s, "burgundy", pw, &err));
	assert_true(store_check_password(s, "burgundy", "NEW0-PASS-WORD-0001", &err));
	ok(store_set_password(s, "burgundy", pw, &err), &err);
	store_close(s);

	/* Only hashes reached the disk. */
	char *wal = xasprintf("%s-wal", sc->db);
	assert_true(file_contains(sc->db, "$argon2id$"));
	assert_false(file_contains(sc->db, pw));
	assert_false(file_contains(sc->db, "QQQQ-ORGANISER-PW"));
	assert_false(file_contains(wal, pw));
	free(wal);
	campaign_free(c);
}

static void test_inbound_dedupe(void **state)
{
	struct scratch *sc = *state;
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	bool dup = true, seen = true;
	struct store_inbound in = {.mailbox = "INBOX", .uidvalidity = 7, .uid = 42,
				   .message_id = "<a@example.org>", .sender = "p@example.org",
				   .received_at = 1000, .status = "accepted",
				   .summary = "orders, 3 lines"};
	ok(store_inbound_seen(s, "INBOX", 7, 42, "<a@example.org>", &seen, &err), &err);
	assert_false(seen);
	ok(store_inbound_record(s, &in, &dup, &err), &err);
	assert_false(dup);

	/* Same UID, another Message-ID: the same message fetched again. */
	in.message_id = "<b@example.org>";
	ok(store_inbound_record(s, &in, &dup, &err), &err);
	assert_true(dup);
	/* Another UID (the mailbox was recreated), the same Message-ID. */
	in.uidvalidity = 8;
	in.uid = 1;
	in.message_id = "<a@example.org>";
	ok(store_inbound_record(s, &in, &dup, &err), &err);
	assert_true(dup);
	/* The same UID in another mailbox is another message. */
	in.mailbox = "Orders";
	in.uidvalidity = 7;
	in.uid = 42;
	in.message_id = "<c@example.org>";
	ok(store_inbound_record(s, &in, &dup, &err), &err);
	assert_false(dup);
	/* Without UID or Message-ID nothing identifies a message: both kept. */
	struct store_inbound bare = {.mailbox = "maildir", .received_at = 5, .status = "ignored"};
	ok(store_inbound_record(s, &bare, &dup, &err), &err);
	assert_false(dup);
	ok(store_inbound_record(s, &bare, &dup, &err), &err);
	assert_false(dup);

	ok(store_inbound_seen(s, "INBOX", 7, 42, NULL, &seen, &err), &err);
	assert_true(seen);
	ok(store_inbound_seen(s, "INBOX", 7, 43, NULL, &seen, &err), &err);
	assert_false(seen);
	ok(store_inbound_seen(s, "INBOX", 99, 99, "<c@example.org>", &seen, &err), &err);
	assert_true(seen);
	ok(store_inbound_seen(s, "maildir", 0, 0, NULL, &seen, &err), &err);
	assert_false(seen);
	store_close(s);
}

static void test_outbox(void **state)
{
	struct scratch *sc = *state;
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	const char raw1[] = "Subject: one\r\n\r\nbody\r\n";
	const char raw2[] = "Subject: two\r\n\r\n\xc3\xa9t\xc3\xa9\r\n";
	int64_t id1 = 0, id2 = 0;
	ok(store_outbox_add(s, "<1@campaign>", "a@example.org", raw1, strlen(raw1), 100, &id1,
			    &err),
	   &err);
	ok(store_outbox_add(s, "<2@campaign>", "a@example.org, b@example.org", raw2, strlen(raw2),
			    101, &id2, &err),
	   &err);
	assert_true(id1 > 0 && id2 > id1);
	assert_error(store_outbox_add(s, "<1@campaign>", "a@example.org", raw1, strlen(raw1), 102,
				      NULL, &err),
		     STORE_EXISTS, &err, "<1@campaign> is already in the outbox");

	struct store_outbox_item *items = NULL;
	size_t n = 9;
	ok(store_outbox_due(s, 99, 10, &items, &n, &err), &err);
	assert_int_equal(n, 0);
	store_outbox_items_free(items, n);
	ok(store_outbox_due(s, 200, 10, &items, &n, &err), &err);
	assert_int_equal(n, 2);
	assert_int_equal(items[0].id, id1);
	assert_string_equal(items[0].message_id, "<1@campaign>");
	assert_int_equal(items[0].raw_len, strlen(raw1));
	assert_memory_equal(items[0].raw, raw1, strlen(raw1));
	assert_string_equal(items[1].raw, raw2);
	assert_string_equal(items[1].recipients, "a@example.org, b@example.org");
	assert_int_equal(items[1].status, STORE_OUTBOX_QUEUED);
	assert_int_equal(items[1].attempts, 0);
	assert_int_equal(items[1].created_at, 101);
	store_outbox_items_free(items, n);
	ok(store_outbox_due(s, 200, 1, &items, &n, &err), &err);
	assert_int_equal(n, 1); /* the limit */
	store_outbox_items_free(items, n);

	/* The first fails for now and is retried at 500. */
	ok(store_outbox_reschedule(s, id1, 500, "421 try later", &err), &err);
	ok(store_outbox_due(s, 200, 10, &items, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_int_equal(items[0].id, id2);
	store_outbox_items_free(items, n);
	ok(store_outbox_mark_sent(s, id2, 201, &err), &err);
	assert_error(store_outbox_mark_sent(s, id2, 202, &err), STORE_NOTFOUND, &err,
		     "no queued outbox message");

	ok(store_outbox_due(s, 500, 10, &items, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_int_equal(items[0].id, id1);
	assert_int_equal(items[0].attempts, 1);
	assert_int_equal(items[0].next_attempt_at, 500);
	assert_string_equal(items[0].last_error, "421 try later");
	store_outbox_items_free(items, n);
	ok(store_outbox_mark_failed(s, id1, "550 no such user", &err), &err);
	ok(store_outbox_due(s, 100000, 10, &items, &n, &err), &err);
	assert_int_equal(n, 0);
	store_outbox_items_free(items, n);

	ok(store_outbox_get(s, id1, &items, &err), &err);
	assert_int_equal(items->status, STORE_OUTBOX_FAILED);
	assert_int_equal(items->attempts, 2);
	assert_string_equal(items->last_error, "550 no such user");
	store_outbox_items_free(items, 1);
	ok(store_outbox_get(s, id2, &items, &err), &err);
	assert_int_equal(items->status, STORE_OUTBOX_SENT);
	assert_int_equal(items->attempts, 1);
	assert_null(items->last_error);
	store_outbox_items_free(items, 1);
	assert_error(store_outbox_get(s, 999, &items, &err), STORE_NOTFOUND, &err,
		     "no outbox message 999");
	store_close(s);
}

static void test_events(void **state)
{
	struct scratch *sc = *state;
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	int seq = 0;
	json_t *storm = json_pack("{s:s, s:s, s:i, s:s, s:s, s:i}", "kind", "storm", "rule",
				  "2.1", "year", 1451, "phase", "campaign", "route",
				  "Calais-Jersey", "roll", 1);
	ok(store_append_event(s, storm, &seq, &err), &err);
	assert_int_equal(seq, 1);
	json_t *later = json_pack("{s:s, s:i}", "kind", "capture", "year", 1452);
	ok(store_append_event(s, later, &seq, &err), &err);
	assert_int_equal(seq, 1);
	json_t *loss = json_pack("{s:s, s:i, s:s, s:f}", "kind", "loss", "year", 1451, "phase",
				 "campaign", "ap", 3.5);
	ok(store_append_event(s, loss, &seq, &err), &err);
	assert_int_equal(seq, 2);
	json_t *bad = json_pack("{s:i}", "year", 1451);
	assert_error(store_append_event(s, bad, NULL, &err), STORE_ERROR, &err, "\"kind\"");

	json_t *events = NULL;
	ok(store_events(s, 1451, &events, &err), &err);
	assert_int_equal(json_array_size(events), 2);
	assert_true(json_equal(json_array_get(events, 0), storm));
	assert_true(json_equal(json_array_get(events, 1), loss));
	json_decref(events);
	ok(store_events(s, STORE_ALL_YEARS, &events, &err), &err);
	assert_int_equal(json_array_size(events), 3);
	assert_true(json_equal(json_array_get(events, 2), later));
	json_decref(events);
	ok(store_events(s, 1999, &events, &err), &err);
	assert_int_equal(json_array_size(events), 0);
	json_decref(events);

	/* When a year was written: its events' times and its comments'; the
	 * events above have none. */
	int64_t first = -1, last = -1;
	ok(store_year_times(s, 1451, &first, &last, &err), &err);
	assert_true(first == 0 && last == 0);
	ok(store_append_event_at(s, storm, 1800000000, &seq, &err), &err);
	assert_int_equal(seq, 3);
	ok(store_append_event_at(s, loss, 1800000500, &seq, &err), &err);
	ok(store_append_event_at(s, later, 1700000000, &seq, &err), &err);
	ok(store_year_times(s, 1451, &first, &last, &err), &err);
	assert_true(first == 1800000000 && last == 1800000500);
	ok(store_comment_add(s, 1451, 4, "A late word", 1800009000, &err), &err);
	ok(store_year_times(s, 1451, &first, &last, &err), &err);
	assert_true(first == 1800000000 && last == 1800009000);
	ok(store_year_times(s, 1452, &first, &last, &err), &err);
	assert_true(first == 1700000000 && last == 1700000000);
	ok(store_events(s, 1451, &events, &err), &err);
	assert_int_equal(json_array_size(events), 4); /* the time is not in the event */
	assert_true(json_equal(json_array_get(events, 2), storm));
	json_decref(events);

	json_decref(storm);
	json_decref(later);
	json_decref(loss);
	json_decref(bad);
	store_close(s);
}

static void test_orders_and_kv(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL, *text = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);
	ok(store_orders_set(s, "burgundy", 1451, PHASE_CAMPAIGN, "MOVE Paris", 10, &err), &err);
	ok(store_orders_set(s, "burgundy", 1451, PHASE_CAMPAIGN, "MOVE Flanders", 11, &err), &err);
	ok(store_orders_set(s, "burgundy", 1451, PHASE_RECRUITMENT, "RECRUIT 2 Kn(S)", 12, &err),
	   &err);
	ok(store_orders_get(s, "burgundy", 1451, PHASE_CAMPAIGN, &text, &err), &err);
	assert_string_equal(text, "MOVE Flanders");
	free(text);
	ok(store_orders_get(s, "burgundy", 1451, PHASE_RECRUITMENT, &text, &err), &err);
	assert_string_equal(text, "RECRUIT 2 Kn(S)");
	free(text);
	ok(store_orders_get(s, "france", 1451, PHASE_CAMPAIGN, &text, &err), &err);
	assert_null(text);
	assert_error(store_orders_set(s, "england", 1451, PHASE_CAMPAIGN, "x", 1, &err),
		     STORE_NOTFOUND, &err, "no player \"england\"");

	ok(store_kv_get(s, "imap.INBOX.last_uid", &text, &err), &err);
	assert_null(text);
	ok(store_kv_set(s, "imap.INBOX.last_uid", "41", &err), &err);
	ok(store_kv_set(s, "imap.INBOX.last_uid", "42", &err), &err);
	ok(store_kv_get(s, "imap.INBOX.last_uid", &text, &err), &err);
	assert_string_equal(text, "42");
	free(text);
	ok(store_kv_set(s, "imap.INBOX.last_uid", NULL, &err), &err);
	ok(store_kv_get(s, "imap.INBOX.last_uid", &text, &err), &err);
	assert_null(text);
	store_close(s);
	campaign_free(c);
}

/* An inbound mail's effects, its inbound row and its reply commit together
 * or not at all. */
static void test_transactions(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL, *text = NULL;
	bool dup = false;
	ok(store_init_campaign(s, c, false, &err), &err);
	struct store_inbound in = {.mailbox = "INBOX", .uidvalidity = 1, .uid = 1,
				   .message_id = "<m1@x>", .received_at = 1, .status = "accepted"};

	ok(store_begin(s, &err), &err);
	assert_true(store_in_transaction(s));
	assert_error(store_begin(s, &err), STORE_ERROR, &err, "already open");
	ok(store_inbound_record(s, &in, &dup, &err), &err);
	ok(store_orders_set(s, "france", 1450, PHASE_SETUP, "HOLD", 1, &err), &err);
	ok(store_outbox_add(s, "<ack1@x>", "charles@example.org", "ack", 3, 1, NULL, &err), &err);
	ok(store_kv_set(s, "imap.INBOX.last_uid", "1", &err), &err);
	store_rollback(s);
	assert_false(store_in_transaction(s));
	ok(store_inbound_seen(s, "INBOX", 1, 1, "<m1@x>", &dup, &err), &err);
	assert_false(dup);
	ok(store_orders_get(s, "france", 1450, PHASE_SETUP, &text, &err), &err);
	assert_null(text);
	ok(store_kv_get(s, "imap.INBOX.last_uid", &text, &err), &err);
	assert_null(text);

	ok(store_begin(s, &err), &err);
	ok(store_inbound_record(s, &in, &dup, &err), &err);
	ok(store_outbox_add(s, "<ack1@x>", "charles@example.org", "ack", 3, 1, NULL, &err), &err);
	/* A failed write undoes only itself. */
	assert_error(store_outbox_add(s, "<ack1@x>", "x@example.org", "again", 5, 1, NULL, &err),
		     STORE_EXISTS, &err, "already in the outbox");
	ok(store_orders_set(s, "france", 1450, PHASE_SETUP, "HOLD", 1, &err), &err);
	ok(store_commit(s, &err), &err);
	ok(store_inbound_seen(s, "INBOX", 1, 1, NULL, &dup, &err), &err);
	assert_true(dup);
	ok(store_orders_get(s, "france", 1450, PHASE_SETUP, &text, &err), &err);
	assert_string_equal(text, "HOLD");
	free(text);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	ok(store_outbox_due(s, 10, 10, &items, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_string_equal(items[0].recipients, "charles@example.org");
	store_outbox_items_free(items, n);
	store_close(s);
	campaign_free(c);
}

/* Two processes on one file: a writer waits for the other, readers never do. */
/* The campaign kept in memory is never staler than the file: a change
 * another process commits, a save, a rolled-back save and a rolled-back
 * savepoint are all seen by the next load. */
static void test_campaign_kept_in_memory(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *daemon = test_store_open(sc->db), *ctl = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(daemon, c, false, &err), &err);
	struct campaign *a = load(daemon), *b = load(daemon);
	assert_same_json(a, b); /* the second load is a copy, not the same one */
	assert_ptr_not_equal(a, b);
	assert_ptr_not_equal(a->provinces, b->provinces);
	campaign_free(b);

	/* another process changes the owner of a province */
	struct campaign *other = load(ctl);
	other->provinces[0].owner = other->provinces[0].owner == 1 ? 0 : 1;
	int owner = other->provinces[0].owner;
	ok(store_save_state(ctl, other, &err), &err);
	b = load(daemon);
	assert_int_equal(b->provinces[0].owner, owner);
	campaign_free(b);

	/* a save of ours, then one rolled back */
	a->provinces[0].owner = owner;
	a->players[0].battle_prestige += 5;
	ok(store_save_state(daemon, a, &err), &err);
	b = load(daemon);
	assert_int_equal(b->players[0].battle_prestige, a->players[0].battle_prestige);
	campaign_free(b);
	ok(store_begin(daemon, &err), &err);
	a->players[0].battle_prestige += 7;
	ok(store_save_state(daemon, a, &err), &err);
	b = load(daemon); /* inside the transaction: its own write */
	assert_int_equal(b->players[0].battle_prestige, a->players[0].battle_prestige);
	campaign_free(b);
	store_rollback(daemon);
	b = load(daemon);
	assert_int_equal(b->players[0].battle_prestige, a->players[0].battle_prestige - 7);
	campaign_free(b);

	/* a savepoint rolled back alone (a mail of a group) */
	ok(store_begin(daemon, &err), &err);
	ok(store_savepoint(daemon, &err), &err);
	ok(store_save_state(daemon, a, &err), &err);
	b = load(daemon);
	assert_int_equal(b->players[0].battle_prestige, a->players[0].battle_prestige);
	campaign_free(b);
	store_rollback_savepoint(daemon);
	b = load(daemon);
	assert_int_equal(b->players[0].battle_prestige, a->players[0].battle_prestige - 7);
	campaign_free(b);
	ok(store_commit(daemon, &err), &err);

	/* and what the other process sees */
	campaign_free(other);
	other = load(ctl);
	assert_int_equal(other->players[0].battle_prestige, a->players[0].battle_prestige - 7);
	assert_int_equal(other->provinces[0].owner, owner);
	campaign_free(other);
	campaign_free(a);
	campaign_free(c);
	store_close(ctl);
	store_close(daemon);
}

static void test_concurrent_access(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *daemon = test_store_open(sc->db), *ctl = test_store_open(sc->db);
	char *err = NULL, *text = NULL;
	ok(store_init_campaign(daemon, c, false, &err), &err);
	store_set_busy_timeout(ctl, 50);

	ok(store_begin(daemon, &err), &err);
	ok(store_kv_set(daemon, "k", "daemon", &err), &err);
	struct campaign *seen = load(ctl); /* WAL: reading goes on */
	assert_string_equal(seen->name, "Test Marches");
	campaign_free(seen);
	assert_error(store_kv_set(ctl, "k", "ctl", &err), STORE_BUSY, &err,
		     "campaign.db: database is locked");
	ok(store_kv_get(ctl, "k", &text, &err), &err);
	assert_null(text); /* not committed yet */
	ok(store_commit(daemon, &err), &err);
	ok(store_kv_set(ctl, "k", "ctl", &err), &err);
	ok(store_kv_get(daemon, "k", &text, &err), &err);
	assert_string_equal(text, "ctl");
	free(text);

	store_close(ctl);
	store_close(daemon);
	campaign_free(c);
}

static void test_readonly(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);
	store_close(s);
	ok(store_open(sc->db, STORE_READONLY, &s, &err), &err);
	struct campaign *back = load(s);
	assert_same_json(c, back);
	assert_error(store_kv_set(s, "k", "v", &err), STORE_ERROR, &err, "opened read-only");
	assert_error(store_begin(s, &err), STORE_ERROR, &err, "opened read-only");
	store_close(s);
	campaign_free(back);
	campaign_free(c);
}

static void test_migration_from_v1(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = NULL;
	char *err = NULL, *text = NULL;

	/* A database made by a campaignd that knew only schema 1. */
	ok(store_open_at_version(sc->db, STORE_CREATE, 1, &s, &err), &err);
	assert_int_equal(store_schema_version(s), 1);
	ok(store_init_campaign(s, c, false, &err), &err);
	assert_error(store_kv_set(s, "k", "v", &err), STORE_ERROR, &err, "no such table: kv");
	store_close(s);

	/* A read-only open cannot upgrade it and says so. */
	char *older = xasprintf("schema version 1 is older than %d", STORE_SCHEMA_VERSION);
	assert_error(store_open(sc->db, STORE_READONLY, &s, &err), STORE_VERSION, &err, older);
	free(older);

	s = test_store_open(sc->db);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	struct campaign *back = load(s);
	assert_same_json(c, back);
	ok(store_kv_set(s, "k", "v", &err), &err);
	ok(store_kv_get(s, "k", &text, &err), &err);
	assert_string_equal(text, "v");
	free(text);
	ok(store_outbox_add(s, "<m@x>", "a@example.org", "m", 1, 1, NULL, &err), &err);
	store_close(s);

	/* Opening again migrates nothing and loses nothing. */
	s = test_store_open(sc->db);
	ok(store_kv_get(s, "k", &text, &err), &err);
	assert_string_equal(text, "v");
	free(text);
	store_close(s);
	campaign_free(back);
	campaign_free(c);
}

/* Schema 6: who sets up by mail, kept from an upgraded schema 4 on. */
static void test_migration_setup_by_mail(void **state)
{
	struct scratch *sc = *state;
	struct campaign *c = fixture_campaign();
	struct store *s = NULL;
	char *err = NULL;
	ok(store_open_at_version(sc->db, STORE_CREATE, 4, &s, &err), &err);
	ok(store_init_campaign(s, c, false, &err), &err);
	store_close(s);

	s = test_store_open(sc->db);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	struct campaign *back = load(s);
	assert_false(back->players[1].setup_by_mail);
	back->players[1].setup_by_mail = true;
	ok(store_save_state(s, back, &err), &err);
	campaign_free(back);
	back = load(s);
	assert_false(back->players[0].setup_by_mail);
	assert_true(back->players[1].setup_by_mail);
	/* and cleared again when the campaign starts */
	back->players[1].setup_by_mail = false;
	ok(store_save_state(s, back, &err), &err);
	campaign_free(back);
	back = load(s);
	assert_false(back->players[1].setup_by_mail);
	campaign_free(back);
	store_close(s);

	/* a new campaign keeps the flag from the start */
	c->players[0].setup_by_mail = true;
	s = test_store_open(sc->db);
	ok(store_init_campaign(s, c, true, &err), &err);
	back = load(s);
	assert_true(back->players[0].setup_by_mail);
	assert_false(back->players[1].setup_by_mail);
	campaign_free(back);
	store_close(s);
	campaign_free(c);
}

/* Schema 5: the pending moves, a comma list in kv until then, become a
 * row per UID under the mailbox's UIDVALIDITY. */
static void test_migration_pending_moves_v4(void **state)
{
	struct scratch *sc = *state;
	struct store *s = NULL;
	char *err = NULL, *text = NULL;
	ok(store_open_at_version(sc->db, STORE_CREATE, 4, &s, &err), &err);
	ok(store_kv_set(s, "mailbox:INBOX:uidvalidity", "7", &err), &err);
	ok(store_kv_set(s, "mailbox:INBOX:pending_moves", "5,9,12", &err), &err);
	ok(store_kv_set(s, "mailbox:Orders, 2026:uidvalidity", "3", &err), &err);
	ok(store_kv_set(s, "mailbox:Orders, 2026:pending_moves", "4", &err), &err);
	store_close(s);

	s = test_store_open(sc->db);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	uint32_t *uids = NULL;
	size_t n = 0;
	ok(store_pending_moves(s, "INBOX", 7, &uids, &n, &err), &err);
	assert_int_equal(n, 3);
	assert_int_equal(uids[0], 5);
	assert_int_equal(uids[1], 9);
	assert_int_equal(uids[2], 12);
	free(uids);
	ok(store_pending_moves(s, "Orders, 2026", 3, &uids, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_int_equal(uids[0], 4);
	free(uids);
	ok(store_kv_get(s, "mailbox:INBOX:pending_moves", &text, &err), &err);
	assert_null(text);
	ok(store_kv_get(s, "mailbox:INBOX:uidvalidity", &text, &err), &err);
	assert_string_equal(text, "7");
	free(text);

	/* moved: forgotten in one go; another mailbox keeps its own */
	ok(store_pending_move_add(s, "INBOX", 7, 13, &err), &err);
	ok(store_pending_moves_done(s, "INBOX", 7, (uint32_t[]){5, 9, 13}, 3, &err), &err);
	ok(store_pending_moves(s, "INBOX", 7, &uids, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_int_equal(uids[0], 12);
	free(uids);
	ok(store_pending_moves_clear(s, "INBOX", &err), &err);
	ok(store_pending_moves(s, "INBOX", 7, &uids, &n, &err), &err);
	assert_int_equal(n, 0);
	free(uids);
	ok(store_pending_moves(s, "Orders, 2026", 3, &uids, &n, &err), &err);
	assert_int_equal(n, 1);
	free(uids);
	store_close(s);
}

static void set_user_version(const char *path, int version, const char *extra_sql)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *sql = xasprintf("PRAGMA user_version = %d; %s", version, extra_sql ? extra_sql : "");
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
	sqlite3_close(db);
}

static void test_refuses_unknown_files(void **state)
{
	struct scratch *sc = *state;
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	store_close(s);

	/* Written by a newer campaignd. */
	set_user_version(sc->db, 99, NULL);
	char *newer = xasprintf("campaign.db: database schema version 99 is newer than this "
				"campaignd knows (%d)", STORE_SCHEMA_VERSION);
	assert_error(store_open(sc->db, 0, &s, &err), STORE_VERSION, &err, newer);
	free(newer);
	assert_null(s);

	/* Some other program's database. */
	char *other = xasprintf("%s/other.db", sc->dir);
	set_user_version(other, 0, "CREATE TABLE notes (t TEXT);");
	assert_error(store_open(other, STORE_CREATE, &s, &err), STORE_VERSION, &err,
		     "other.db: not a campaignd database");
	free(other);

	/* Not a database at all. */
	char *text = xasprintf("%s/notes.txt", sc->dir);
	FILE *f = fopen(text, "w");
	assert_non_null(f);
	for (int i = 0; i < 100; i++)
		fputs("this is not a database, only some text\n", f);
	fclose(f);
	assert_error(store_open(text, 0, &s, &err), STORE_VERSION, &err,
		     "notes.txt: file is not a database");
	free(text);

	char *missing = xasprintf("%s/missing.db", sc->dir);
	assert_error(store_open(missing, 0, &s, &err), STORE_NOTFOUND, &err,
		     "missing.db: No such file or directory");
	free(missing);

	s = NULL;
	struct campaign *c = NULL;
	char *fresh = xasprintf("%s/fresh.db", sc->dir);
	ok(store_open(fresh, STORE_CREATE, &s, &err), &err);
	assert_error(store_load_campaign(s, &c, &err), STORE_NOTFOUND, &err,
		     "fresh.db: holds no campaign");
	assert_null(c);
	store_close(s);
	free(fresh);
}

/* The example campaign shipped with campaignd, through the parser, the
 * store and back. */
static void test_example_campaign(void **state)
{
	struct scratch *sc = *state;
	char *path = test_source_path("contrib/examples/europe1450.campaign");
	if (access(path, R_OK) != 0) {
		free(path);
		skip();
	}
	struct diag_list diags = {0};
	struct campaign *c = campaign_file_load(path, &diags);
	if (!c) {
		diag_print(&diags, stderr);
		fail_msg("%s does not load", path);
	}
	struct store *s = test_store_open(sc->db);
	char *err = NULL;
	ok(store_init_campaign(s, c, false, &err), &err);
	store_close(s);
	s = test_store_open(sc->db);
	struct campaign *back = load(s);
	assert_same_json(c, back);
	assert_true(back->player_count >= 3);
	assert_int_equal(back->province_count, c->province_count);
	store_close(s);
	campaign_free(back);
	campaign_free(c);
	diag_free(&diags);
	free(path);
}

static mode_t file_mode(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* A mail that carries a password loses its body once delivered (or failed
 * for good): neither the database file, its WAL nor a backup holds it. The
 * files are private whatever the umask. */
static void test_outbox_secret_and_modes(void **state)
{
	struct scratch *sc = *state;
	mode_t old_umask = umask(0);
	struct store *s = test_store_open(sc->db);
	char *err = NULL, *wal = xasprintf("%s-wal", sc->db);
	const char *pw1 = "7QKM-ZD3V-XW9A-PR2T", *pw2 = "H4CB-N8EJ-5SYF-G6WD";
	struct strbuf body = {0};
	/* long enough to reach an overflow page */
	strbuf_printf(&body, "Subject: your password\r\nMessage-ID: <p1@x>\r\n\r\n"
		      "Your password: %s\r\n", pw1);
	for (int i = 0; i < 400; i++)
		strbuf_puts(&body, "The rules in brief, line after line.\r\n");
	int64_t id1 = 0, id2 = 0, id3 = 0;
	ok(store_begin(s, &err), &err);
	ok(store_outbox_add(s, "<p1@x>", "a@example.org", body.data, body.len, 10, &id1, &err),
	   &err);
	ok(store_outbox_set_secret(s, id1, &err), &err);
	char *raw2 = xasprintf("Subject: x\r\n\r\nYour password: %s\r\n", pw2);
	ok(store_outbox_add(s, "<p2@x>", "b@example.org", raw2, strlen(raw2), 10, &id2, &err),
	   &err);
	ok(store_outbox_set_secret(s, id2, &err), &err);
	const char *plain = "Subject: n\r\n\r\nno secret\r\n";
	ok(store_outbox_add(s, "<n@x>", "c@example.org", plain, strlen(plain), 10, &id3, &err),
	   &err);
	ok(store_commit(s, &err), &err);
	assert_int_equal(file_mode(sc->db), 0600);
	assert_true(file_contains(wal, pw1) || file_contains(sc->db, pw1));

	ok(store_outbox_mark_sent(s, id1, 20, &err), &err);
	ok(store_outbox_mark_failed(s, id2, "550 no such user", &err), &err);
	ok(store_outbox_mark_sent(s, id3, 20, &err), &err);
	struct store_outbox_item *it = NULL;
	ok(store_outbox_get(s, id1, &it, &err), &err);
	assert_non_null(strstr(it->raw, "Subject: your password\r\n"));
	assert_non_null(strstr(it->raw, STORE_OUTBOX_SECRET_NOTE));
	assert_null(strstr(it->raw, pw1));
	store_outbox_items_free(it, 1);
	ok(store_outbox_get(s, id3, &it, &err), &err);
	assert_non_null(strstr(it->raw, "no secret"));
	store_outbox_items_free(it, 1);

	char *copy = xasprintf("%s/copy.db", sc->dir);
	ok(store_backup(s, copy, &err), &err);
	assert_int_equal(file_mode(copy), 0600);
	assert_false(file_contains(sc->db, pw1));
	assert_false(file_contains(sc->db, pw2));
	assert_false(file_contains(wal, pw1));
	assert_false(file_contains(wal, pw2));
	assert_false(file_contains(copy, pw1));
	assert_false(file_contains(copy, pw2));
	if (access(wal, F_OK) == 0)
		assert_int_equal(file_mode(wal), 0600);
	/* a backup never replaces a file, nor follows a link */
	char *link = xasprintf("%s/dangling.db", sc->dir), *target = xasprintf("%s/nowhere", sc->dir);
	assert_int_equal(symlink(target, link), 0);
	assert_error(store_backup(s, link, &err), STORE_EXISTS, &err, "exists already");
	assert_int_equal(access(target, F_OK), -1);
	assert_error(store_backup(s, copy, &err), STORE_EXISTS, &err, "exists already");
	store_close(s);
	umask(old_umask);
	unlink(link);
	free(link);
	free(target);
	free(copy);
	free(raw2);
	free(wal);
	strbuf_free(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, scratch_setup, scratch_teardown)
		T(test_init_load),
		T(test_save_state),
		T(test_save_state_refuses_another_campaign),
		T(test_init_refuses_overwrite),
		T(test_passwords),
		T(test_inbound_dedupe),
		T(test_outbox),
		T(test_events),
		T(test_orders_and_kv),
		T(test_transactions),
		T(test_concurrent_access),
		T(test_campaign_kept_in_memory),
		T(test_readonly),
		T(test_migration_from_v1),
		T(test_migration_setup_by_mail),
		T(test_pending_password),
		T(test_migration_pending_moves_v4),
		T(test_refuses_unknown_files),
		T(test_example_campaign),
		T(test_outbox_secret_and_modes),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
