/* The engine's record of the mailbox: how far it has read (UIDVALIDITY and
 * the last UID), which mails wait to be moved to the processed or the
 * quarantine folder, the mails that keep failing and are set aside, and
 * the pruning of what the database need not keep. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "mail/mail_compose.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the mailbox position, kept in the store's key-value table ---- */

static char *kv_key(const struct engine *e, const char *what)
{
	return xasprintf("mailbox:%s:%s", e->mailbox, what);
}

static int kv_get_u32(struct engine *e, const char *what, uint32_t *value, char **errstr)
{
	char *key = kv_key(e, what), *v = NULL;
	int rc = store_kv_get(e->store, key, &v, errstr);
	free(key);
	*value = v ? (uint32_t)strtoul(v, NULL, 10) : 0;
	free(v);
	return rc;
}

static int kv_set_u32(struct engine *e, const char *what, uint32_t value, char **errstr)
{
	char *key = kv_key(e, what), buf[16];
	snprintf(buf, sizeof buf, "%u", value);
	int rc = store_kv_set(e->store, key, buf, errstr);
	free(key);
	return rc;
}

int engine_mailbox_position(struct engine *e, uint32_t *uidvalidity, uint32_t *last_uid,
			    char **errstr)
{
	if (kv_get_u32(e, "uidvalidity", uidvalidity, errstr) != STORE_OK)
		return -1;
	return kv_get_u32(e, "last_uid", last_uid, errstr) == STORE_OK ? 0 : -1;
}

static int with_transaction(struct engine *e, int (*fn)(struct engine *, void *, char **),
			    void *arg, char **errstr)
{
	if (store_begin(e->store, errstr) != STORE_OK)
		return -1;
	if (fn(e, arg, errstr) != 0) {
		store_rollback(e->store);
		return -1;
	}
	return store_commit(e->store, errstr) == STORE_OK ? 0 : -1;
}

static int reset_fn(struct engine *e, void *arg, char **errstr)
{
	uint32_t uidvalidity = *(uint32_t *)arg;
	int rc = store_pending_moves_clear(e->store, e->mailbox, errstr);
	char *key = kv_key(e, "pending_quarantine");
	if (rc == STORE_OK)
		rc = store_kv_set(e->store, key, NULL, errstr);
	free(key);
	if (rc != STORE_OK || kv_set_u32(e, "uidvalidity", uidvalidity, errstr) != STORE_OK ||
	    kv_set_u32(e, "last_uid", 0, errstr) != STORE_OK)
		return -1;
	return 0;
}

int engine_mailbox_reset(struct engine *e, uint32_t uidvalidity, char **errstr)
{
	return with_transaction(e, reset_fn, &uidvalidity, errstr);
}

static void parse_uid_list(const char *s, uint32_t **uids, size_t *count)
{
	size_t cap = 0;
	*uids = NULL;
	*count = 0;
	while (s && *s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s)
			break;
		grow_array((void **)uids, &cap, *count + 1, sizeof **uids);
		(*uids)[(*count)++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
	}
}

static char *format_uid_list(const uint32_t *uids, size_t count)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < count; i++)
		strbuf_printf(&sb, "%s%u", i ? "," : "", uids[i]);
	return count ? strbuf_take(&sb) : NULL;
}

static int pending_list(struct engine *e, const char *what, uint32_t **uids, size_t *count,
			char **errstr)
{
	char *key = kv_key(e, what), *v = NULL;
	int rc = store_kv_get(e->store, key, &v, errstr);
	free(key);
	parse_uid_list(v, uids, count);
	free(v);
	return rc == STORE_OK ? 0 : -1;
}

int engine_pending_moves(struct engine *e, uint32_t uidvalidity, uint32_t **uids, size_t *count,
			 char **errstr)
{
	return store_pending_moves(e->store, e->mailbox, uidvalidity, uids, count, errstr) ==
			       STORE_OK
		       ? 0
		       : -1;
}

int engine_move_done(struct engine *e, uint32_t uidvalidity, const uint32_t *uids, size_t count,
		     char **errstr)
{
	return store_pending_moves_done(e->store, e->mailbox, uidvalidity, uids, count, errstr) ==
			       STORE_OK
		       ? 0
		       : -1;
}

int engine_pending_quarantine(struct engine *e, uint32_t **uids, size_t *count, char **errstr)
{
	return pending_list(e, "pending_quarantine", uids, count, errstr);
}

/* Adds (add = true) or removes uid in the pending quarantine list (rare:
 * the processed mail's moves are rows of their own). Inside a transaction
 * already or alone. */
static int update_pending(struct engine *e, const char *what, uint32_t uid, bool add,
			  char **errstr)
{
	uint32_t *uids;
	size_t count;
	if (pending_list(e, what, &uids, &count, errstr) != 0)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (uids[i] != uid)
			uids[n++] = uids[i];
	if (add) {
		uids = xrealloc(uids, (n + 1) * sizeof *uids);
		uids[n++] = uid;
	}
	char *list = format_uid_list(uids, n);
	char *key = kv_key(e, what);
	int rc = store_kv_set(e->store, key, list, errstr);
	free(key);
	free(list);
	free(uids);
	return rc == STORE_OK ? 0 : -1;
}

static int quarantine_done_fn(struct engine *e, void *arg, char **errstr)
{
	return update_pending(e, "pending_quarantine", *(uint32_t *)arg, false, errstr);
}

int engine_quarantine_done(struct engine *e, uint32_t uid, char **errstr)
{
	return with_transaction(e, quarantine_done_fn, &uid, errstr);
}


/* The mail uid was processed (inside its transaction): the last UID moves
 * on and the mail waits for its move to the processed folder. */
int engine_mailbox_advance(struct engine *e, uint32_t uidvalidity, uint32_t uid, char **errstr)
{
	uint32_t last = 0;
	if (kv_get_u32(e, "last_uid", &last, errstr) != STORE_OK)
		return -1;
	if (uid > last && kv_set_u32(e, "last_uid", uid, errstr) != STORE_OK)
		return -1;
	if (kv_set_u32(e, "uidvalidity", uidvalidity, errstr) != STORE_OK)
		return -1;
	return store_pending_move_add(e->store, e->mailbox, uidvalidity, uid, errstr) == STORE_OK
		       ? 0
		       : -1;
}

/* The Message-ID as the inbound log keeps it: "<id>", or for an id longer
 * than any real one, "<hash@long-id.invalid>" (still unique, but bounded). */
char *engine_stored_message_id(const char *id)
{
	if (strlen(id) <= MAIL_COMPOSE_MAX_ID_LEN)
		return xasprintf("<%s>", id);
	unsigned char hash[16];
	char hex[sizeof hash * 2 + 1];
	crypto_generichash(hash, sizeof hash, (const unsigned char *)id, strlen(id), NULL, 0);
	sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
	return xasprintf("<%s@long-id.invalid>", hex);
}

/* ---- mail that cannot be processed ---- */

/* The failure record "<uidvalidity> <uid> <count> <error>" of the mail that
 * failed last. */
static int failure_get(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *error,
		       int *count, char **errstr)
{
	char *key = kv_key(e, "failure"), *v = NULL;
	int rc = store_kv_get(e->store, key, &v, errstr);
	free(key);
	*count = 0;
	unsigned long uv = 0, u = 0;
	int n = 0, used = 0;
	if (v && sscanf(v, "%lu %lu %d %n", &uv, &u, &n, &used) == 3 && used > 0 &&
	    uv == uidvalidity && u == uid && strcmp(v + used, error) == 0)
		*count = n;
	free(v);
	return rc == STORE_OK ? 0 : -1;
}

static int failure_set(struct engine *e, uint32_t uidvalidity, uint32_t uid, int count,
		       const char *error, char **errstr)
{
	char *key = kv_key(e, "failure");
	char *v = error ? xasprintf("%u %u %d %s", uidvalidity, uid, count, error) : NULL;
	int rc = store_kv_set(e->store, key, v, errstr);
	free(key);
	free(v);
	return rc == STORE_OK ? 0 : -1;
}

/* The transaction that sets a mail aside. */
static int quarantine(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *raw,
		      size_t len, const char *error, int attempts, int64_t now, char **errstr)
{
	struct mail_info info;
	struct campaign *c = NULL;
	json_t *data = NULL;
	char *msgid = NULL, *summary = NULL, *token = NULL;
	int rc = -1;
	mail_read(raw, len, &e->limits, &info);
	if (info.message_id)
		msgid = engine_stored_message_id(info.message_id);
	char *sender = info.from_addr ? engine_excerpt(info.from_addr, 254) : NULL;
	summary = xasprintf("quarantined after %d failures: %s", attempts, error);
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		goto done;
	struct store_inbound row = {
		.mailbox = e->mailbox,
		.uidvalidity = uidvalidity,
		.uid = uid,
		.message_id = msgid,
		.sender = sender,
		.received_at = now,
		.status = "quarantined",
		.summary = summary,
	};
	bool dup = false;
	if (store_inbound_record(e->store, &row, &dup, errstr) != STORE_OK)
		goto done;
	uint32_t last = 0;
	if (kv_get_u32(e, "last_uid", &last, errstr) != STORE_OK ||
	    (uid > last && kv_set_u32(e, "last_uid", uid, errstr) != STORE_OK) ||
	    kv_set_u32(e, "uidvalidity", uidvalidity, errstr) != STORE_OK ||
	    update_pending(e, "pending_quarantine", uid, true, errstr) != 0 ||
	    failure_set(e, 0, 0, 0, NULL, errstr) != 0)
		goto done;
	if (c->organiser_email) {
		/* Only excerpts of what the mail says: it is hostile or broken. */
		char *from = engine_excerpt(info.from_addr ? info.from_addr : "(none)", 100);
		char *id = engine_excerpt(msgid ? msgid : "(none)", 100);
		char *subject = engine_excerpt(info.subject ? info.subject : "", 100);
		char *err = engine_excerpt(error, 300);
		char *uid_text = xasprintf("%u", uid);
		data = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "campaign",
				 c->name ? c->name : "", "sender", from, "message_id", id, "subject",
				 subject, "error", err, "attempts", attempts, "uid", uid_text);
		free(from);
		free(id);
		free(subject);
		free(err);
		free(uid_text);
		token = xasprintf("quarantine.%u.%u", uidvalidity, uid);
		struct reply r = {c->organiser_email, c->organiser_name,
				  "A mail was set aside unprocessed", "mail-quarantined", data, NULL,
				  token, MAIL_AUTO_GENERATED, NULL, 0, NULL, false, 0};
		if (engine_queue_mail(e, &r, c, now, NULL, errstr) != 0)
			goto done;
	}
	rc = 0;
done:
	json_decref(data);
	campaign_free(c);
	mail_info_free(&info);
	free(msgid);
	free(sender);
	free(summary);
	free(token);
	return rc;
}

int engine_mail_failed(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *raw,
		       size_t len, const char *error, int64_t now, char **errstr)
{
	int count = 0;
	if (!error)
		error = "failed";
	if (uid == 0)
		return 0;
	if (failure_get(e, uidvalidity, uid, error, &count, errstr) != 0)
		return -1;
	count++;
	if (count < e->quarantine_after)
		return failure_set(e, uidvalidity, uid, count, error, errstr) == 0 ? 0 : -1;
	if (store_begin(e->store, errstr) != STORE_OK)
		return -1;
	if (quarantine(e, uidvalidity, uid, raw, len, error, count, now, errstr) != 0) {
		store_rollback(e->store);
		/* counted all the same; retried like any failing mail */
		char *ignored = NULL;
		failure_set(e, uidvalidity, uid, count, error, &ignored);
		free(ignored);
		return -1;
	}
	return store_commit(e->store, errstr) == STORE_OK ? 1 : -1;
}

/* ---- bounded growth ---- */

/* Rate counters are kept this many hours after their hour. */
#define RATE_COUNTER_HOURS 48

int engine_prune(struct engine *e, int64_t now, size_t *deleted, char **errstr)
{
	int64_t mail_before = now - (int64_t)e->keep_mail_days * 86400;
	return store_prune(e->store, mail_before, "rate:", now / 3600 - RATE_COUNTER_HOURS,
			   deleted, errstr) == STORE_OK ? 0 : -1;
}
