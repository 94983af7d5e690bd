/* The engine: applies one step to the stored campaign inside one SQLite
 * transaction. For now, an inbound mail: dedupe, classify (loops, bounces,
 * lists), authenticate, parse and check the orders, store them, and queue
 * the reply in the outbox — all committed together or not at all. And the
 * outbox: deliver what is due through a sink, with retries and backoff. */
#ifndef CAMPAIGN_ENGINE_H
#define CAMPAIGN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail_read.h"
#include "store.h"
#include "templates.h"
#include "transport.h"

struct engine_config {
	const char *campaign_address; /* the address players write to */
	const char *from_name;        /* NULL: the campaign's name */
	const char *mailbox;          /* the source mailbox's name, e.g. "INBOX" */
	struct mail_read_limits limits;
	int rate_limit_per_hour;      /* replies to one address in an hour */
};

enum engine_verdict {
	ENGINE_ACCEPTED,  /* authenticated; orders stored (even with errors in lines) */
	ENGINE_REJECTED,  /* a player's mail that changed nothing: wrong password,
			     no PLAYER line, unreadable, too large */
	ENGINE_IGNORED,   /* not for us to answer: bounce, auto-reply, list, loop,
			     unknown sender */
	ENGINE_DUPLICATE, /* already processed (same UID or Message-ID) */
};

const char *engine_verdict_name(enum engine_verdict v);

/* What happened to one mail, for logs and campaignctl check-mail. */
struct engine_outcome {
	enum engine_verdict verdict;
	char *sender;       /* From address, may be NULL */
	char *player;       /* the player key it authenticated as, or NULL */
	bool organiser;
	bool authenticated;
	char *summary;      /* one line: why */
	size_t order_errors;
	char *reply_to;     /* address the reply goes to, NULL if no reply */
	char *reply;        /* the reply's text as rendered, NULL if no reply */
	char *orders_understood; /* the lines as understood, for check-mail */
};
void engine_outcome_free(struct engine_outcome *o);

struct engine;

/* The engine borrows store and templates (they must outlive it). */
struct engine *engine_new(struct store *store, struct templates *templates,
			  const struct engine_config *cfg);
void engine_free(struct engine *e);

/* One inbound mail (uidvalidity/uid 0 when the source has none). In one
 * transaction: records it, applies it, queues the reply, advances the
 * mailbox's last UID (when uid is not 0) and notes that the message must be
 * moved. With dry_run, everything is rolled back and only *out tells what
 * would have happened. Returns 0, or -1 with *errstr when the database
 * failed: nothing was recorded and the mail must be fetched again later. */
int engine_process_mail(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *raw,
			size_t len, int64_t now, bool dry_run, struct engine_outcome *out,
			char **errstr);

/* The mailbox's stored position: UIDVALIDITY (0 if none yet) and last UID. */
int engine_mailbox_position(struct engine *e, uint32_t *uidvalidity, uint32_t *last_uid,
			    char **errstr);
/* Starts over under a new UIDVALIDITY (messages are then matched by
 * Message-ID). */
int engine_mailbox_reset(struct engine *e, uint32_t uidvalidity, char **errstr);
/* UIDs committed but not yet moved out of the inbox, oldest first; *uids is
 * malloc'd. */
int engine_pending_moves(struct engine *e, uint32_t **uids, size_t *count, char **errstr);
/* Records that uid was moved. */
int engine_move_done(struct engine *e, uint32_t uid, char **errstr);

/* Delivers the outbox mail that is due through sink: sent mail is marked
 * sent; a temporary failure is retried later (1 min, 2, 4 ... at most 1 h);
 * a permanent one is marked failed and reported to the organiser by mail.
 * *sent and *failed count this round. Returns 0, or -1 on a database error. */
int engine_flush_outbox(struct engine *e, struct mail_sink *sink, int64_t now, size_t *sent,
			size_t *failed, char **errstr);

/* Seconds until the next queued mail is due (0 if one is due now), or -1 if
 * the outbox is empty. */
int64_t engine_outbox_next_due(struct engine *e, int64_t now);

#endif
