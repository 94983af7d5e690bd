/* Several sinks sending at once, each in a thread of its own: a few SMTP
 * sessions in parallel, each kept open from one mail to the next, while the
 * caller goes on with other work (reading the next mails).
 *
 * The caller submits mails (copied) and later collects what became of them;
 * it never waits unless it asks to. Mails with the same key (the
 * recipients) leave in the order they were submitted, one at a time: a
 * player's second reply is never handed over before his first one.
 *
 * Exactly-once stays the caller's job: a sink's TRANSPORT_OK is passed to
 * on_sent in the sending thread at once (before the result can be
 * collected), so the caller can note it somewhere a killed process keeps
 * (a file it appends to); on_sent must be thread-safe and quick.
 *
 * Threads block every signal: signals reach the caller's thread only. */
#ifndef CAMPAIGN_SINK_POOL_H
#define CAMPAIGN_SINK_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail/transport.h"

struct mail_sink_pool;

struct mail_sink_result {
	int64_t tag;                  /* as submitted */
	enum transport_status status;
	bool tried;                   /* false: dropped by mail_sink_pool_drop_queued */
	char *error;                  /* NULL on TRANSPORT_OK; freed by _results_free */
};

/* Takes ownership of the n sinks (n >= 1), one thread each. on_sent may be
 * NULL. Returns NULL (the sinks freed) if a thread cannot be started. */
struct mail_sink_pool *mail_sink_pool_new(struct mail_sink **sinks, size_t n,
					  void (*on_sent)(void *ctx, int64_t tag), void *ctx);
size_t mail_sink_pool_sessions(const struct mail_sink_pool *pool);

/* Queues one mail (everything is copied; see mail_sink_send for the
 * arguments). key: mails with equal keys are sent in order, never two at
 * once; NULL: no order. */
void mail_sink_pool_submit(struct mail_sink_pool *pool, int64_t tag, const char *key,
			   const char *envelope_from, const char *const *recipients,
			   size_t n_recipients, const char *data, size_t len);

/* Mails submitted whose result was not yet collected. */
size_t mail_sink_pool_busy(struct mail_sink_pool *pool);

/* The results that are ready (*results a new array of *count, in the order
 * they were ready). With none ready and mails still busy it waits up to
 * wait_ms for the first one. */
void mail_sink_pool_collect(struct mail_sink_pool *pool, unsigned wait_ms,
			    struct mail_sink_result **results, size_t *count);
void mail_sink_pool_results_free(struct mail_sink_result *results, size_t count);

/* The mails not yet started are taken back: each comes back from collect
 * with tried = false (the server is blocked: nothing more should be tried). */
void mail_sink_pool_drop_queued(struct mail_sink_pool *pool);

/* Drops what is queued, waits for the mails being sent, stops the threads
 * and frees the sinks. NULL is allowed. */
void mail_sink_pool_free(struct mail_sink_pool *pool);

#endif
