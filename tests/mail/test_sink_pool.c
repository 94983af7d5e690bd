/* Unit tests of the sink pool (src/mail/sink_pool.c) with sinks that
 * record what they are given: several sessions at once, a recipient's mails
 * in order and never two at once, results and on_sent, queued mails taken
 * back. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>

#include "mail/sink_pool.h"
#include "base/util.h"

#define MAILS 120

/* shared by the fake sinks of one test */
struct record {
	pthread_mutex_t lock;
	int order[MAILS];        /* tags in the order they were sent */
	size_t n;
	int active[4];           /* per recipient: sends going on now */
	int most_active_per_rcpt;
	int active_all, most_active_all;
	int noted[MAILS];        /* on_sent seen */
	int fail_tag;            /* this tag fails (TEMPFAIL) */
};

static struct record rec;

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

static enum transport_status fake_send(void *state, const char *from, const char *const *rcpts,
				       size_t n_rcpts, const char *data, size_t len, char **errstr)
{
	(void)state;
	(void)from;
	assert_int_equal(n_rcpts, 1);
	int who = rcpts[0][1] - '0'; /* "p0".."p3" */
	int tag = 0; /* the data is the tag's digits, not NUL-terminated */
	assert_true(len > 0 && len < 8);
	for (size_t i = 0; i < len; i++)
		tag = tag * 10 + (data[i] - '0');
	pthread_mutex_lock(&rec.lock);
	rec.active[who]++;
	rec.active_all++;
	if (rec.active[who] > rec.most_active_per_rcpt)
		rec.most_active_per_rcpt = rec.active[who];
	if (rec.active_all > rec.most_active_all)
		rec.most_active_all = rec.active_all;
	pthread_mutex_unlock(&rec.lock);
	sleep_ms(2);
	pthread_mutex_lock(&rec.lock);
	rec.order[rec.n++] = tag;
	rec.active[who]--;
	rec.active_all--;
	pthread_mutex_unlock(&rec.lock);
	if (tag == rec.fail_tag)
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "lost the session");
	return TRANSPORT_OK;
}

static void fake_free(void *state)
{
	(void)state;
}

static const struct mail_sink_ops fake_ops = {"fake", fake_send, fake_free};

static void note_sent(void *ctx, int64_t tag)
{
	(void)ctx;
	pthread_mutex_lock(&rec.lock);
	rec.noted[tag]++;
	pthread_mutex_unlock(&rec.lock);
}

static struct mail_sink_pool *pool_of(size_t n)
{
	struct mail_sink *sinks[8];
	for (size_t i = 0; i < n; i++)
		sinks[i] = mail_sink_new(&fake_ops, NULL);
	return mail_sink_pool_new(sinks, n, note_sent, NULL);
}

static void submit(struct mail_sink_pool *p, int tag)
{
	char rcpt[3] = {'p', (char)('0' + tag % 4), 0};
	const char *rcpts[] = {rcpt};
	char data[16];
	snprintf(data, sizeof data, "%d", tag);
	mail_sink_pool_submit(p, tag, rcpt, "campaign@example.org", rcpts, 1, data, strlen(data));
}

static void test_parallel_in_order(void **state)
{
	(void)state;
	memset(&rec, 0, sizeof rec);
	pthread_mutex_init(&rec.lock, NULL);
	rec.fail_tag = 37;
	struct mail_sink_pool *p = pool_of(3);
	assert_non_null(p);
	assert_int_equal(mail_sink_pool_sessions(p), 3);
	for (int i = 0; i < MAILS; i++)
		submit(p, i);
	int results[MAILS] = {0};
	size_t got = 0;
	while (mail_sink_pool_busy(p)) {
		struct mail_sink_result *r = NULL;
		size_t n = 0;
		mail_sink_pool_collect(p, 1000, &r, &n);
		for (size_t i = 0; i < n; i++) {
			assert_true(r[i].tried);
			results[r[i].tag]++;
			/* on_sent came first, and only for what went out */
			assert_int_equal(rec.noted[r[i].tag], r[i].status == TRANSPORT_OK);
			if (r[i].tag == 37) {
				assert_int_equal(r[i].status, TRANSPORT_TEMPFAIL);
				assert_non_null(strstr(r[i].error, "lost the session"));
			} else {
				assert_int_equal(r[i].status, TRANSPORT_OK);
				assert_null(r[i].error);
			}
		}
		got += n;
		mail_sink_pool_results_free(r, n);
	}
	assert_int_equal(got, MAILS);
	for (int i = 0; i < MAILS; i++)
		assert_int_equal(results[i], 1);
	assert_int_equal(rec.n, MAILS);
	/* several sessions at once, never two mails of one recipient */
	assert_true(rec.most_active_all >= 2);
	assert_true(rec.most_active_all <= 3);
	assert_int_equal(rec.most_active_per_rcpt, 1);
	/* each recipient's mails in the order they were submitted */
	int last[4] = {-1, -1, -1, -1};
	for (size_t i = 0; i < rec.n; i++) {
		int t = rec.order[i];
		assert_true(t > last[t % 4]);
		last[t % 4] = t;
	}
	mail_sink_pool_free(p);
	pthread_mutex_destroy(&rec.lock);
}

/* Taken back before they started: untried, nothing sent. */
static void test_drop_queued(void **state)
{
	(void)state;
	memset(&rec, 0, sizeof rec);
	pthread_mutex_init(&rec.lock, NULL);
	rec.fail_tag = -1;
	struct mail_sink_pool *p = pool_of(1);
	for (int i = 0; i < 40; i++)
		submit(p, i);
	mail_sink_pool_drop_queued(p);
	size_t tried = 0, untried = 0;
	while (mail_sink_pool_busy(p)) {
		struct mail_sink_result *r = NULL;
		size_t n = 0;
		mail_sink_pool_collect(p, 1000, &r, &n);
		for (size_t i = 0; i < n; i++) {
			if (r[i].tried)
				tried++;
			else
				untried++;
		}
		mail_sink_pool_results_free(r, n);
	}
	assert_int_equal(tried + untried, 40);
	assert_true(untried >= 38); /* at most the one being sent, and one more */
	assert_int_equal(rec.n, tried);
	/* with nothing busy, collect returns at once */
	struct mail_sink_result *r = NULL;
	size_t n = 1;
	mail_sink_pool_collect(p, 5000, &r, &n);
	assert_int_equal(n, 0);
	mail_sink_pool_results_free(r, n);
	/* freed with mails queued: they are dropped, the threads stop */
	for (int i = 0; i < 10; i++)
		submit(p, i);
	mail_sink_pool_free(p);
	pthread_mutex_destroy(&rec.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parallel_in_order),
		cmocka_unit_test(test_drop_queued),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
