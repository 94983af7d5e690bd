/* A few sinks sending in parallel threads. See sink_pool.h. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail/sink_pool.h"
#include "base/util.h"

struct job {
	int64_t tag;
	char *key;
	char *from;
	char **rcpts;
	size_t n_rcpts;
	char *data;
	size_t len;
	struct job *next;
};

struct worker {
	struct mail_sink_pool *pool;
	struct mail_sink *sink;
	pthread_t thread;
	bool started;
	const char *key; /* the key of the mail being sent, NULL when idle or none */
};

struct mail_sink_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;  /* a job was queued, a key became free, or stop */
	pthread_cond_t done;  /* a result is ready */
	struct job *head, *tail;
	struct mail_sink_result *results;
	size_t n_results, cap_results;
	size_t busy;          /* submitted, not yet collected */
	bool stop;
	void (*on_sent)(void *ctx, int64_t tag);
	void *ctx;
	struct worker *workers;
	size_t n_workers;
};

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->key);
	free(j->from);
	for (size_t i = 0; i < j->n_rcpts; i++)
		free(j->rcpts[i]);
	free(j->rcpts);
	/* it may carry a password (a FORGOT PASSWORD answer) */
	if (j->data)
		explicit_bzero(j->data, j->len);
	free(j->data);
	free(j);
}

static void result_add(struct mail_sink_pool *p, int64_t tag, enum transport_status st,
		       bool tried, char *error)
{
	if (p->n_results == p->cap_results) {
		p->cap_results = p->cap_results ? p->cap_results * 2 : 16;
		p->results = xrealloc(p->results, p->cap_results * sizeof *p->results);
	}
	p->results[p->n_results++] = (struct mail_sink_result){tag, st, tried, error};
	pthread_cond_broadcast(&p->done);
}

static bool key_in_progress(const struct mail_sink_pool *p, const char *key)
{
	for (size_t i = 0; key && i < p->n_workers; i++)
		if (p->workers[i].key && strcmp(p->workers[i].key, key) == 0)
			return true;
	return false;
}

/* The first queued job whose key no other thread is sending: taken off the
 * queue. Called with the lock held. */
static struct job *take_job(struct mail_sink_pool *p)
{
	for (struct job **at = &p->head, *prev = NULL; *at; prev = *at, at = &(*at)->next) {
		struct job *j = *at;
		if (key_in_progress(p, j->key))
			continue;
		*at = j->next;
		if (p->tail == j)
			p->tail = prev;
		j->next = NULL;
		return j;
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct mail_sink_pool *p = w->pool;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct job *j = NULL;
		while (!p->stop && !(j = take_job(p)))
			pthread_cond_wait(&p->work, &p->lock);
		if (!j)
			break;
		w->key = j->key;
		pthread_mutex_unlock(&p->lock);
		char *err = NULL;
		enum transport_status st =
			mail_sink_send(w->sink, j->from, (const char *const *)j->rcpts, j->n_rcpts,
				       j->data, j->len, &err);
		if (st == TRANSPORT_OK && p->on_sent)
			p->on_sent(p->ctx, j->tag);
		pthread_mutex_lock(&p->lock);
		w->key = NULL;
		result_add(p, j->tag, st, true, st == TRANSPORT_OK ? NULL : err);
		if (st == TRANSPORT_OK)
			free(err);
		job_free(j);
		/* the jobs of this key may go now */
		pthread_cond_broadcast(&p->work);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct mail_sink_pool *mail_sink_pool_new(struct mail_sink **sinks, size_t n,
					  void (*on_sent)(void *ctx, int64_t tag), void *ctx)
{
	struct mail_sink_pool *p = xcalloc(1, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->on_sent = on_sent;
	p->ctx = ctx;
	p->workers = xcalloc(n ? n : 1, sizeof *p->workers);
	p->n_workers = n;
	for (size_t i = 0; i < n; i++) {
		p->workers[i].pool = p;
		p->workers[i].sink = sinks[i];
	}
	/* the threads start with every signal blocked */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool ok = n > 0;
	for (size_t i = 0; ok && i < n; i++) {
		ok = pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]) == 0;
		p->workers[i].started = ok;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ok) {
		mail_sink_pool_free(p);
		return NULL;
	}
	return p;
}

size_t mail_sink_pool_sessions(const struct mail_sink_pool *pool)
{
	return pool->n_workers;
}

void mail_sink_pool_submit(struct mail_sink_pool *p, int64_t tag, const char *key,
			   const char *envelope_from, const char *const *recipients,
			   size_t n_recipients, const char *data, size_t len)
{
	struct job *j = xcalloc(1, sizeof *j);
	j->tag = tag;
	j->key = key ? xstrdup(key) : NULL;
	j->from = xstrdup(envelope_from ? envelope_from : "");
	j->rcpts = xcalloc(n_recipients ? n_recipients : 1, sizeof *j->rcpts);
	for (size_t i = 0; i < n_recipients; i++)
		j->rcpts[i] = xstrdup(recipients[i]);
	j->n_rcpts = n_recipients;
	j->data = xmalloc(len ? len : 1);
	memcpy(j->data, data, len);
	j->len = len;
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	p->busy++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
}

size_t mail_sink_pool_busy(struct mail_sink_pool *p)
{
	pthread_mutex_lock(&p->lock);
	size_t n = p->busy;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void mail_sink_pool_collect(struct mail_sink_pool *p, unsigned wait_ms,
			    struct mail_sink_result **results, size_t *count)
{
	pthread_mutex_lock(&p->lock);
	if (!p->n_results && p->busy && wait_ms) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += wait_ms / 1000;
		until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!p->n_results &&
		       pthread_cond_timedwait(&p->done, &p->lock, &until) == 0)
			;
	}
	*results = p->results;
	*count = p->n_results;
	p->busy -= p->n_results;
	p->results = NULL;
	p->n_results = p->cap_results = 0;
	pthread_mutex_unlock(&p->lock);
}

void mail_sink_pool_results_free(struct mail_sink_result *results, size_t count)
{
	for (size_t i = 0; results && i < count; i++)
		free(results[i].error);
	free(results);
}

void mail_sink_pool_drop_queued(struct mail_sink_pool *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->head) {
		struct job *j = p->head;
		p->head = j->next;
		result_add(p, j->tag, TRANSPORT_TEMPFAIL, false, NULL);
		job_free(j);
	}
	p->tail = NULL;
	pthread_mutex_unlock(&p->lock);
}

void mail_sink_pool_free(struct mail_sink_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	while (p->head) {
		struct job *j = p->head;
		p->head = j->next;
		job_free(j);
	}
	p->tail = NULL;
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < p->n_workers; i++) {
		if (p->workers[i].started)
			pthread_join(p->workers[i].thread, NULL);
		mail_sink_free(p->workers[i].sink);
	}
	mail_sink_pool_results_free(p->results, p->n_results);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p->workers);
	free(p);
}
