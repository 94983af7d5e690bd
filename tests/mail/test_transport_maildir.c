/* Tests of the local transports: the Maildir source (order, UIDs that
 * survive a restart, moves, UIDVALIDITY) and the directory/Maildir sinks. */
#define _GNU_SOURCE
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/libetpan.h>

#include "lib/files.h"
#include "mail/transport.h"
#include "base/util.h"

struct fixture {
	char dir[64];  /* scratch directory */
	char *maildir; /* dir/Maildir */
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	test_scratch_dir(fx->dir, "maildir");
	fx->maildir = xasprintf("%s/Maildir", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	test_scratch_remove(fx->dir);
	free(fx->maildir);
	free(fx);
	return 0;
}

/* Delivers like an MDA: tmp/ then rename into sub/. */
static void drop(const struct fixture *fx, const char *sub, const char *name, const char *body)
{
	char *tmp = xasprintf("%s/tmp/%s", fx->maildir, name);
	char *final = xasprintf("%s/%s/%s", fx->maildir, sub, name);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	assert_int_equal(rename(tmp, final), 0);
	free(tmp);
	free(final);
}

static bool exists(const char *dir, const char *sub, const char *name)
{
	char *p = xasprintf("%s/%s/%s", dir, sub, name);
	bool r = access(p, F_OK) == 0;
	free(p);
	return r;
}

/* What the engine would do: record each message, remember the last UID. */
struct engine {
	uint32_t uids[16];
	char *bodies[16];
	size_t n;
	uint32_t uidvalidity;
	uint32_t last_uid;
	size_t fail_at; /* 1-based call number that returns TEMPFAIL; 0 never */
};

static enum transport_status record(void *ctx, const struct transport_message *msg, char **errstr)
{
	struct engine *en = ctx;
	if (en->fail_at && en->n + 1 == en->fail_at)
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "database is locked");
	assert_true(en->n < 16);
	assert_true(msg->uid > en->last_uid);
	assert_true(msg->internal_date > 0);
	en->uids[en->n] = msg->uid;
	en->bodies[en->n] = xstrndup(msg->data, msg->len);
	en->n++;
	en->uidvalidity = msg->uidvalidity;
	en->last_uid = msg->uid;
	return TRANSPORT_OK;
}

static void engine_reset(struct engine *en)
{
	for (size_t i = 0; i < en->n; i++)
		free(en->bodies[i]);
	en->n = 0;
	en->fail_at = 0;
}

static struct mail_source *open_source(const struct fixture *fx)
{
	struct maildir_source_config cfg = {.path = fx->maildir, .create = true,
					    .poll_interval_ms = 20};
	struct mail_source *src = transport_maildir_source_new(&cfg);
	char *err = NULL;
	assert_int_equal(mail_source_open(src, &err), TRANSPORT_OK);
	assert_null(err);
	assert_string_equal(mail_source_name(src), "maildir");
	return src;
}

static void test_fetch_order_move_restart(void **state)
{
	struct fixture *fx = *state;
	struct mail_source *src = open_source(fx);
	/* Numeric order of the delivery times, not string order. */
	drop(fx, "new", "1000.M1P1.test", "Subject: b\n\nsecond\n");
	drop(fx, "new", "999.M1P1.test", "Subject: a\n\nfirst\n");
	drop(fx, "cur", "1002.M1P1.test:2,S", "Subject: d\n\nfourth\n");
	/* A real Postfix/Dovecot name: long host name, size fields. */
	drop(fx, "new", "1001.M123456P4242.mail-frontend-07.backbone.example-provider.test,"
		 "S=18,W=19", "Subject: c\n\nthird\n");

	struct engine en = {0};
	uint32_t uv = 0;
	char *err = NULL;
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, &uv, &err), TRANSPORT_OK);
	assert_int_equal(en.n, 4);
	assert_true(uv != 0);
	assert_int_equal(en.uidvalidity, uv);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(en.uids[i], i + 1);
	assert_string_equal(en.bodies[0], "Subject: a\n\nfirst\n");
	assert_string_equal(en.bodies[1], "Subject: b\n\nsecond\n");
	assert_string_equal(en.bodies[2], "Subject: c\n\nthird\n");
	assert_string_equal(en.bodies[3], "Subject: d\n\nfourth\n");

	/* Fetching again above the committed UID gives nothing. */
	engine_reset(&en);
	assert_int_equal(mail_source_fetch_new(src, uv, 4, record, &en, NULL, &err), TRANSPORT_OK);
	assert_int_equal(en.n, 0);

	/* The engine marks 1, 2 and 4, then "crashes" before marking 3. */
	assert_int_equal(mail_source_mark_processed(src, uv, 1, &err), TRANSPORT_OK);
	assert_int_equal(mail_source_mark_processed(src, uv, 2, &err), TRANSPORT_OK);
	assert_int_equal(mail_source_mark_processed(src, uv, 4, &err), TRANSPORT_OK);
	char *processed = xasprintf("%s/.processed", fx->maildir);
	assert_true(exists(processed, "new", "999.M1P1.test"));
	assert_true(exists(processed, "new", "1000.M1P1.test"));
	assert_true(exists(processed, "cur", "1002.M1P1.test:2,S"));
	assert_false(exists(fx->maildir, "new", "999.M1P1.test"));
	assert_true(exists(fx->maildir, "new", "1001.M123456P4242.mail-frontend-07.backbone."
				       "example-provider.test,S=18,W=19"));
	mail_source_free(src);

	/* Restart: the unmarked message keeps UID 3, so it is not fetched
	 * again; a new delivery gets UID 5, never a reused number. */
	src = open_source(fx);
	drop(fx, "new", "1003.M1P1.test", "Subject: e\n\nfifth\n");
	uint32_t uv2 = 0;
	assert_int_equal(mail_source_fetch_new(src, uv, 4, record, &en, &uv2, &err), TRANSPORT_OK);
	assert_int_equal(uv2, uv);
	assert_int_equal(en.n, 1);
	assert_int_equal(en.uids[0], 5);
	assert_string_equal(en.bodies[0], "Subject: e\n\nfifth\n");
	/* Redoing the interrupted move works; repeating a done one is fine. */
	assert_int_equal(mail_source_mark_processed(src, uv, 3, &err), TRANSPORT_OK);
	assert_true(exists(processed, "new", "1001.M123456P4242.mail-frontend-07.backbone."
				   "example-provider.test,S=18,W=19"));
	assert_int_equal(mail_source_mark_processed(src, uv, 1, &err), TRANSPORT_OK);
	assert_null(err);

	/* A stale UIDVALIDITY is reported and nothing is fetched or moved. */
	engine_reset(&en);
	assert_int_equal(mail_source_fetch_new(src, uv + 1, 0, record, &en, &uv2, &err),
			 TRANSPORT_UIDVALIDITY_CHANGED);
	assert_int_equal(en.n, 0);
	assert_int_equal(uv2, uv);
	assert_non_null(err);
	free(err);
	err = NULL;
	assert_int_equal(mail_source_mark_processed(src, uv + 1, 5, &err),
			 TRANSPORT_UIDVALIDITY_CHANGED);
	assert_true(exists(fx->maildir, "new", "1003.M1P1.test"));
	free(err);
	free(processed);
	mail_source_free(src);
}

/* Moves use the last scan's list (a backlog of thousands is moved without
 * a scan per mail); a mail another client renamed since (marked seen, into
 * cur/) is found again; quarantined mail goes to its own folder. */
static void test_move_after_rename_and_quarantine(void **state)
{
	struct fixture *fx = *state;
	struct mail_source *src = open_source(fx);
	drop(fx, "new", "2000.M1P1.test", "Subject: a\n\nfirst\n");
	drop(fx, "new", "2001.M1P1.test", "Subject: b\n\nsecond\n");
	struct engine en = {0};
	uint32_t uv = 0;
	char *err = NULL;
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, &uv, &err), TRANSPORT_OK);
	assert_int_equal(en.n, 2);
	char *from = xasprintf("%s/new/2000.M1P1.test", fx->maildir);
	char *to = xasprintf("%s/cur/2000.M1P1.test:2,S", fx->maildir);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(mail_source_mark_processed(src, uv, 1, &err), TRANSPORT_OK);
	char *processed = xasprintf("%s/.processed", fx->maildir);
	assert_true(exists(processed, "cur", "2000.M1P1.test:2,S"));
	assert_int_equal(mail_source_quarantine(src, uv, 2, &err), TRANSPORT_OK);
	char *quarantine = xasprintf("%s/.quarantine", fx->maildir);
	assert_true(exists(quarantine, "new", "2001.M1P1.test"));
	assert_false(exists(fx->maildir, "new", "2001.M1P1.test"));
	/* again: already moved, not an error */
	assert_int_equal(mail_source_quarantine(src, uv, 2, &err), TRANSPORT_OK);
	engine_reset(&en);
	free(from);
	free(to);
	free(processed);
	free(quarantine);
	mail_source_free(src);
}

static void test_callback_failure_stops(void **state)
{
	struct fixture *fx = *state;
	struct mail_source *src = open_source(fx);
	drop(fx, "new", "1.M1P1.test", "one\n");
	drop(fx, "new", "2.M1P1.test", "two\n");
	drop(fx, "new", "3.M1P1.test", "three\n");
	struct engine en = {.fail_at = 2};
	char *err = NULL;
	uint32_t uv;
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, &uv, &err),
			 TRANSPORT_TEMPFAIL);
	assert_string_equal(err, "database is locked");
	free(err);
	assert_int_equal(en.n, 1);
	/* The next round starts after the last committed UID. */
	engine_reset(&en);
	assert_int_equal(mail_source_fetch_new(src, uv, 1, record, &en, &uv, NULL), TRANSPORT_OK);
	assert_int_equal(en.n, 2);
	assert_int_equal(en.uids[0], 2);
	assert_int_equal(en.uids[1], 3);
	engine_reset(&en);
	mail_source_free(src);
}

static void test_damaged_uidlist(void **state)
{
	struct fixture *fx = *state;
	struct mail_source *src = open_source(fx);
	char *path = xasprintf("%s/campaignd-uidlist", fx->maildir);
	FILE *f = fopen(path, "w");
	fputs("campaignd-uidlist 1\nuidvalidity 77 next 3\n1 a.test\nfive b.test\n", f);
	fclose(f);
	struct engine en = {0};
	char *err = NULL;
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, NULL, &err),
			 TRANSPORT_PERMFAIL);
	char *want = xasprintf("%s:4:", path);
	assert_non_null(strstr(err, want));
	free(want);
	free(err);
	free(path);
	mail_source_free(src);

	/* Not a Maildir and not allowed to create one. */
	struct maildir_source_config cfg = {.path = fx->dir};
	src = transport_maildir_source_new(&cfg);
	err = NULL;
	assert_int_equal(mail_source_open(src, &err), TRANSPORT_PERMFAIL);
	assert_non_null(strstr(err, "not a Maildir"));
	free(err);
	mail_source_free(src);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_wait(void **state)
{
	struct fixture *fx = *state;
	struct mail_source *src = open_source(fx);
	struct engine en = {0};
	bool changed = true;
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, NULL, NULL), TRANSPORT_OK);
	/* Nothing new: the whole timeout passes. */
	int64_t t0 = now_ms();
	assert_int_equal(mail_source_wait(src, 150, -1, &changed, NULL), TRANSPORT_OK);
	assert_false(changed);
	assert_true(now_ms() - t0 >= 140);
	/* A delivery is noticed. */
	drop(fx, "new", "5.M1P1.test", "x\n");
	t0 = now_ms();
	assert_int_equal(mail_source_wait(src, 5000, -1, &changed, NULL), TRANSPORT_OK);
	assert_true(changed);
	assert_true(now_ms() - t0 < 1000);
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, NULL, NULL), TRANSPORT_OK);
	assert_int_equal(en.n, 1);
	/* The wake descriptor ends the wait early without a change. */
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	t0 = now_ms();
	assert_int_equal(mail_source_wait(src, 5000, p[0], &changed, NULL), TRANSPORT_OK);
	assert_false(changed);
	assert_true(now_ms() - t0 < 1000);
	close(p[0]);
	close(p[1]);
	engine_reset(&en);
	mail_source_free(src);
}

static const char outgoing[] =
	"Date: Fri, 01 Mar 2024 13:34:56 +0100\r\n"
	"From: Campaign <campaign@example.test>\r\n"
	"To: <player1@example.test>\r\n"
	"Subject: report\r\n"
	"Message-ID: <turn.3/p1@example.test>\r\n"
	"\r\n"
	"Turn 3 is resolved.\r\n";

static char **list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	char **names = NULL;
	size_t cap = 0;
	*n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		grow_array((void **)&names, &cap, *n + 1, sizeof(*names));
		names[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void test_dir_sink(void **state)
{
	struct fixture *fx = *state;
	char *out = xasprintf("%s/outbox", fx->dir);
	struct mail_sink *sink = transport_dir_sink_new(out, (struct transport_log){0});
	const char *rcpt[] = {"player1@example.test", "player2@example.test"};
	char *err = NULL;
	assert_int_equal(mail_sink_send(sink, "campaign-bounces@example.test", rcpt, 2, outgoing,
					strlen(outgoing), &err),
			 TRANSPORT_OK);
	/* Sent again (a retry after a crash): the same file, not a second one. */
	assert_int_equal(mail_sink_send(sink, "campaign-bounces@example.test", rcpt, 2, outgoing,
					strlen(outgoing), &err),
			 TRANSPORT_OK);
	assert_int_equal(mail_sink_send(sink, "x@example.test", rcpt, 0, outgoing,
					strlen(outgoing), &err),
			 TRANSPORT_PERMFAIL);
	free(err);
	size_t n;
	char **names = list_dir(out, &n);
	assert_int_equal(n, 1); /* no temporary file left over */
	/* 13:34:56 +0100 is 12:34:56 UTC; '/' in the id became '_'. */
	assert_string_equal(names[0], "20240301T123456Z-turn.3_p1@example.test.eml");
	char *path = xasprintf("%s/%s", out, names[0]);
	free_names(names, n);

	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char buf[4096];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	const char *head = "X-Envelope-From: <campaign-bounces@example.test>\r\n"
			   "X-Envelope-To: <player1@example.test>, <player2@example.test>\r\n";
	assert_int_equal(len, strlen(head) + strlen(outgoing));
	assert_memory_equal(buf, head, strlen(head));
	assert_memory_equal(buf + strlen(head), outgoing, strlen(outgoing));
	/* And it parses as a message. */
	size_t idx = 0;
	struct mailimf_message *msg = NULL;
	assert_int_equal(mailimf_message_parse(buf, len, &idx, &msg), MAILIMF_NO_ERROR);
	struct mailimf_single_fields sf;
	mailimf_single_fields_init(&sf, msg->msg_fields);
	assert_string_equal(sf.fld_message_id->mid_value, "turn.3/p1@example.test");
	mailimf_message_free(msg);
	free(path);
	free(out);
	mail_sink_free(sink);
}

static void test_maildir_sink_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct mail_sink *sink = transport_maildir_sink_new(fx->maildir, (struct transport_log){0});
	const char *rcpt[] = {"player1@example.test", "player2@example.test"};
	assert_int_equal(mail_sink_send(sink, "", rcpt, 2, outgoing, strlen(outgoing), NULL),
			 TRANSPORT_OK);
	mail_sink_free(sink);
	char *tmp = xasprintf("%s/tmp", fx->maildir);
	size_t n;
	char **names = list_dir(tmp, &n);
	assert_int_equal(n, 0);
	free_names(names, n);
	free(tmp);

	/* What the sink delivered, the source reads. */
	struct mail_source *src = open_source(fx);
	struct engine en = {0};
	assert_int_equal(mail_source_fetch_new(src, 0, 0, record, &en, NULL, NULL), TRANSPORT_OK);
	assert_int_equal(en.n, 2);
	char *want1 = xasprintf("Return-Path: <>\r\nDelivered-To: player1@example.test\r\n%s",
				outgoing);
	char *want2 = xasprintf("Return-Path: <>\r\nDelivered-To: player2@example.test\r\n%s",
				outgoing);
	assert_string_equal(en.bodies[0], want1);
	assert_string_equal(en.bodies[1], want2);
	free(want1);
	free(want2);
	engine_reset(&en);
	mail_source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fetch_order_move_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_after_rename_and_quarantine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_failure_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_uidlist, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_sink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_maildir_sink_round_trip, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
