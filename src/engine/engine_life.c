/* The engine's life: made from its configuration and freed, and a group
 * of mails applied in one transaction (engine_batch_*: committed before
 * anything is sent or moved). */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

const char *engine_verdict_name(enum engine_verdict v)
{
	switch (v) {
	case ENGINE_ACCEPTED: return "accepted";
	case ENGINE_REJECTED: return "rejected";
	case ENGINE_IGNORED: return "ignored";
	case ENGINE_DUPLICATE: return "duplicate";
	}
	return "unknown";
}

void engine_outcome_free(struct engine_outcome *o)
{
	free(o->sender);
	free(o->message_id);
	free(o->player);
	free(o->summary);
	free(o->reply_to);
	free(o->reply);
	free(o->orders_understood);
	memset(o, 0, sizeof *o);
}

struct engine *engine_new(struct store *store, struct templates *templates,
			  const struct engine_config *cfg)
{
	struct engine *e = xcalloc(1, sizeof *e);
	e->store = store;
	e->templates = templates;
	e->campaign_address = xstrdup(cfg->campaign_address);
	e->from_name = cfg->from_name ? xstrdup(cfg->from_name) : NULL;
	e->mailbox = xstrdup(cfg->mailbox ? cfg->mailbox : "INBOX");
	const char *at = strrchr(e->campaign_address, '@');
	e->domain = xstrdup(at ? at + 1 : "localhost");
	e->limits = cfg->limits;
	if (!e->limits.max_bytes)
		e->limits.max_bytes = 1024 * 1024;
	if (!e->limits.max_depth)
		e->limits.max_depth = 20;
	e->rate_limit_per_hour = cfg->rate_limit_per_hour > 0 ? cfg->rate_limit_per_hour : 30;
	e->quarantine_after = cfg->quarantine_after > 0 ? cfg->quarantine_after
							: ENGINE_DEFAULT_QUARANTINE_AFTER;
	e->keep_mail_days = cfg->keep_mail_days > 0 ? cfg->keep_mail_days
						    : ENGINE_DEFAULT_KEEP_MAIL_DAYS;
	e->publish_dir = cfg->publish_dir && *cfg->publish_dir ? xstrdup(cfg->publish_dir) : NULL;
	return e;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	engine_secrets_clear(e);
	engine_fold_end(e);
	json_decref(e->announce_batch);
	free(e->campaign_address);
	free(e->from_name);
	free(e->mailbox);
	free(e->domain);
	free(e->publish_dir);
	free(e);
}

/* ---- a group of mails in one transaction ---- */

int engine_batch_begin(struct engine *e, char **errstr)
{
	if (store_begin(e->store, errstr) != STORE_OK)
		return -1;
	/* what the group's mails cause is held to its end (engine_fold.c) */
	engine_fold_batch_begin(e);
	return 0;
}

bool engine_batch_open(const struct engine *e)
{
	return store_in_transaction(e->store);
}

int engine_batch_commit(struct engine *e, char **errstr)
{
	if (!store_in_transaction(e->store)) {
		engine_fold_end(e);
		return 0;
	}
	/* the mails the group holds are queued in it: sent once it is
	 * committed, never if it is not */
	int held = engine_fold_flush(e, errstr);
	engine_fold_end(e);
	engine_secrets_clear(e);
	if (held != 0) {
		store_rollback(e->store);
		e->publish_due = false;
		return -1;
	}
	if (store_commit(e->store, errstr) != STORE_OK) {
		e->publish_due = false;
		return -1;
	}
	char *perr = NULL;
	engine_publish_if_due(e, &perr);
	free(perr);
	return 0;
}

void engine_batch_rollback(struct engine *e)
{
	engine_fold_end(e);
	store_rollback(e->store);
	e->publish_due = false;
}
