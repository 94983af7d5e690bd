/* The mail layer's bookkeeping: inbound messages seen, and the outbox. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- inbound */

int store_inbound_seen(struct store *s, const char *mailbox, uint32_t uidvalidity,
		       uint32_t uid, const char *message_id, bool *seen, char **errstr)
{
	int64_t one = 0;
	return store_query_int64(s, errstr, &one, seen,
				 "SELECT 1 FROM inbound WHERE (?1 <> 0 AND mailbox = ?2"
				 " AND uidvalidity = ?3 AND uid = ?1) OR message_id = ?4 LIMIT 1",
				 "ItIt", (int64_t)uid, mailbox ? mailbox : "", (int64_t)uidvalidity,
				 message_id);
}

int store_inbound_record(struct store *s, const struct store_inbound *msg, bool *duplicate,
			 char **errstr)
{
	*duplicate = false;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_inbound_seen(s, msg->mailbox, msg->uidvalidity, msg->uid,
					    msg->message_id, duplicate, errstr);
	if (status == STORE_OK && !*duplicate) {
		sqlite3_stmt *st = NULL;
		status = store_prepare(
			s, errstr, &st,
			"INSERT INTO inbound (mailbox, uidvalidity, uid, message_id, sender,"
			" received_at, status, summary) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			"t", msg->mailbox ? msg->mailbox : "");
		if (status == STORE_OK) {
			/* No UID (a Maildir): NULLs, which never collide. */
			if (msg->uid) {
				sqlite3_bind_int64(st, 2, msg->uidvalidity);
				sqlite3_bind_int64(st, 3, msg->uid);
			}
			sqlite3_bind_text(st, 4, msg->message_id, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5, msg->sender, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 6, msg->received_at);
			sqlite3_bind_text(st, 7, msg->status ? msg->status : "", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 8, msg->summary, -1, SQLITE_STATIC);
			status = store_step_done(s, errstr, st);
		}
		store_finish(s, st);
	}
	return store_write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- pending moves */

int store_pending_move_add(struct store *s, const char *mailbox, uint32_t uidvalidity,
			   uint32_t uid, char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "INSERT OR IGNORE INTO pending_moves (mailbox, uidvalidity, uid)"
				   " VALUES (?, ?, ?)",
				   "tII", mailbox ? mailbox : "", (int64_t)uidvalidity, (int64_t)uid);
	return store_write_end(s, status, errstr);
}

int store_pending_moves(struct store *s, const char *mailbox, uint32_t uidvalidity,
			uint32_t **uids, size_t *count, char **errstr)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	bool row = false;
	*uids = NULL;
	*count = 0;
	int status = store_prepare(s, errstr, &st,
				   "SELECT uid FROM pending_moves WHERE mailbox = ? AND uidvalidity = ?"
				   " ORDER BY uid",
				   "tI", mailbox ? mailbox : "", (int64_t)uidvalidity);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)uids, &cap, *count + 1, sizeof **uids);
		(*uids)[(*count)++] = (uint32_t)sqlite3_column_int64(st, 0);
	}
	store_finish(s, st);
	if (status != STORE_OK) {
		free(*uids);
		*uids = NULL;
		*count = 0;
	}
	return status;
}

int store_pending_moves_done(struct store *s, const char *mailbox, uint32_t uidvalidity,
			     const uint32_t *uids, size_t count, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_prepare(s, errstr, &st,
				       "DELETE FROM pending_moves WHERE mailbox = ?1"
				       " AND uidvalidity = ?2 AND uid = ?3",
				       "tI", mailbox ? mailbox : "", (int64_t)uidvalidity);
	for (size_t i = 0; i < count && status == STORE_OK; i++) {
		sqlite3_bind_int64(st, 3, uids[i]);
		status = store_step_done(s, errstr, st);
	}
	store_finish(s, st);
	return store_write_end(s, status, errstr);
}

int store_pending_moves_clear(struct store *s, const char *mailbox, char **errstr)
{
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL, "DELETE FROM pending_moves WHERE mailbox = ?",
				   "t", mailbox ? mailbox : "");
	return store_write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- outbox */

int store_outbox_add(struct store *s, const char *message_id, const char *recipients,
		     const char *raw, size_t raw_len, int64_t now, int64_t *id, char **errstr)
{
	int status = store_write_begin(s, errstr);
	bool exists = false;
	int64_t dummy = 0;
	if (status == STORE_OK)
		status = store_query_int64(s, errstr, &dummy, &exists,
					   "SELECT id FROM outbox WHERE message_id = ?", "t",
					   message_id);
	if (status == STORE_OK && exists)
		status = store_fail(s, errstr, STORE_EXISTS, "message %s is already in the outbox",
				    message_id);
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL,
				   "INSERT INTO outbox (message_id, recipients, raw, status,"
				   " next_attempt_at, created_at) VALUES (?, ?, ?, 'queued', ?, ?)",
				   "ttbII", message_id, recipients, (const void *)raw, raw_len, now,
				   now);
	int64_t new_id = sqlite3_last_insert_rowid(s->db);
	status = store_write_end(s, status, errstr);
	if (status == STORE_OK && id)
		*id = new_id;
	return status;
}

int store_outbox_set_secret(struct store *s, int64_t id, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes, "UPDATE outbox SET secret = 1 WHERE id = ?",
				   "I", id);
	if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no outbox message %lld",
				    (long long)id);
	return store_write_end(s, status, errstr);
}

/* A secret mail that left the queue keeps its header (for the record) and
 * loses its body; secure_delete zeroes the old bytes. */
static int outbox_drop_secret_body(struct store *s, int64_t id, char **errstr)
{
	int changes = 0;
	int status = store_run(s, errstr, &changes,
			       "UPDATE outbox SET raw = CAST(CASE WHEN instr(raw, X'0D0A0D0A') > 0"
			       " THEN substr(raw, 1, instr(raw, X'0D0A0D0A') + 3) ELSE X'' END"
			       " || ? AS BLOB) WHERE id = ? AND secret = 1",
			       "tI", STORE_OUTBOX_SECRET_NOTE, id);
	if (status == STORE_OK && changes)
		s->scrub_due = true;
	return status;
}

static const char *const outbox_status_names[] = {"queued", "sent", "failed"};

static void outbox_item_read(sqlite3_stmt *st, struct store_outbox_item *it)
{
	it->id = sqlite3_column_int64(st, 0);
	it->message_id = store_column_text(st, 1);
	it->recipients = store_column_text(st, 2);
	it->raw_len = (size_t)sqlite3_column_bytes(st, 3);
	it->raw = xmalloc(it->raw_len + 1);
	if (it->raw_len)
		memcpy(it->raw, sqlite3_column_blob(st, 3), it->raw_len);
	it->raw[it->raw_len] = '\0';
	const char *status = (const char *)sqlite3_column_text(st, 4);
	it->status = STORE_OUTBOX_QUEUED;
	for (int i = 0; status && i < 3; i++)
		if (strcmp(status, outbox_status_names[i]) == 0)
			it->status = (enum store_outbox_status)i;
	it->attempts = sqlite3_column_int(st, 5);
	it->next_attempt_at = sqlite3_column_int64(st, 6);
	it->last_error = store_column_text(st, 7);
	it->created_at = sqlite3_column_int64(st, 8);
}

#define OUTBOX_COLUMNS \
	"id, message_id, recipients, raw, status, attempts, next_attempt_at, last_error, created_at"

int store_outbox_due(struct store *s, int64_t now, size_t limit,
		     struct store_outbox_item **items, size_t *count, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	struct store_outbox_item *list = NULL;
	size_t n = 0, cap = 0;
	int status = store_prepare(s, errstr, &st,
				   "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE status = 'queued'"
				   " AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
				   "II", now, (int64_t)(limit > INT64_MAX ? INT64_MAX : limit));
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)&list, &cap, n + 1, sizeof *list);
		outbox_item_read(st, &list[n++]);
	}
	store_finish(s, st);
	if (status != STORE_OK) {
		store_outbox_items_free(list, n);
		return status;
	}
	*items = list;
	*count = n;
	return STORE_OK;
}

int store_outbox_get(struct store *s, int64_t id, struct store_outbox_item **item,
		     char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	*item = NULL;
	int status = store_prepare(s, errstr, &st,
				   "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE id = ?", "I", id);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && !row)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no outbox message %lld",
				    (long long)id);
	if (status == STORE_OK) {
		*item = xcalloc(1, sizeof **item);
		outbox_item_read(st, *item);
	}
	store_finish(s, st);
	return status;
}

void store_outbox_items_free(struct store_outbox_item *items, size_t count)
{
	for (size_t i = 0; items && i < count; i++) {
		free(items[i].message_id);
		free(items[i].recipients);
		free(items[i].raw);
		free(items[i].last_error);
	}
	free(items);
}

int store_outbox_matching(struct store *s, int64_t after, int64_t upto, const char *needle,
			  struct store_outbox_item **items, size_t *count, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	struct store_outbox_item *list = NULL;
	size_t n = 0, cap = 0;
	*items = NULL;
	*count = 0;
	int status = store_prepare(s, errstr, &st,
				   "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE id > ?1 AND id <= ?2"
				   " AND instr(message_id, ?3) > 0 ORDER BY id",
				   "IIt", after, upto, needle ? needle : "");
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)&list, &cap, n + 1, sizeof *list);
		outbox_item_read(st, &list[n++]);
	}
	store_finish(s, st);
	if (status != STORE_OK) {
		store_outbox_items_free(list, n);
		return status;
	}
	*items = list;
	*count = n;
	return STORE_OK;
}

int store_outbox_last_id(struct store *s, int64_t *id, char **errstr)
{
	return store_query_int64(s, errstr, id, NULL, "SELECT COALESCE(MAX(id), 0) FROM outbox",
				 NULL);
}

/* Ends an update of a queued message: it must still have been queued, so a
 * mail is never marked sent (or retried) twice. */
static int outbox_update_end(struct store *s, int status, int changes, int64_t id,
			     char **errstr)
{
	if (status == STORE_OK && changes == 0)
		status = store_fail(s, errstr, STORE_NOTFOUND, "no queued outbox message %lld",
				    (long long)id);
	return store_write_end(s, status, errstr);
}

int store_outbox_mark_sent(struct store *s, int64_t id, int64_t now, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(
			s, errstr, &changes,
			"UPDATE outbox SET status = 'sent', attempts = attempts + 1,"
			" sent_at = ?, last_error = NULL WHERE id = ? AND status = 'queued'",
			"II", now, id);
	if (status == STORE_OK && changes)
		status = outbox_drop_secret_body(s, id, errstr);
	return outbox_update_end(s, status, changes, id, errstr);
}

int store_outbox_mark_failed(struct store *s, int64_t id, const char *error, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes,
				   "UPDATE outbox SET status = 'failed', attempts = attempts + 1,"
				   " last_error = ? WHERE id = ? AND status = 'queued'",
				   "tI", error, id);
	if (status == STORE_OK && changes)
		status = outbox_drop_secret_body(s, id, errstr);
	return outbox_update_end(s, status, changes, id, errstr);
}

int store_outbox_reschedule(struct store *s, int64_t id, int64_t next_attempt_at,
			    const char *error, char **errstr)
{
	int changes = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, &changes,
				   "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?,"
				   " last_error = ? WHERE id = ? AND status = 'queued'",
				   "ItI", next_attempt_at, error, id);
	return outbox_update_end(s, status, changes, id, errstr);
}

int store_prune(struct store *s, int64_t mail_before, const char *counter_prefix,
		int64_t counter_below, size_t *deleted, char **errstr)
{
	int outbox = 0, counters = 0;
	int status = store_write_begin(s, errstr);
	if (status == STORE_OK)
		status = store_run(s, errstr, &outbox,
				   "DELETE FROM outbox WHERE status IN ('sent', 'failed')"
				   " AND coalesce(sent_at, created_at) < ?"
				   " AND id < (SELECT max(id) FROM outbox)",
				   "I", mail_before);
	if (status == STORE_OK && counter_prefix)
		status = store_run(s, errstr, &counters,
				   "DELETE FROM kv WHERE substr(key, 1, length(?1)) = ?1"
				   " AND rtrim(key, '0123456789') LIKE '%:'"
				   " AND length(rtrim(key, '0123456789')) < length(key)"
				   " AND CAST(substr(key, length(rtrim(key, '0123456789')) + 1)"
				   " AS INTEGER) < ?2",
				   "tI", counter_prefix, counter_below);
	if (deleted)
		*deleted = (size_t)outbox + (size_t)counters;
	return store_write_end(s, status, errstr);
}
