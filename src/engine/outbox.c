/* The outbox: every mail the engine sends is rendered and queued here, in
 * the caller's transaction (engine_queue_mail), and sent later with retries
 * (engine_flush_outbox), so a reply leaves exactly once and only after its
 * cause was committed. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "base/log.h"
#include "dbm/orders.h"
#include "mail/mail_compose.h"
#include "base/timefmt.h"
#include "base/util.h"
#include "mail/sink_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the secrets of the mail being processed ---- */

void engine_secret_add(struct engine *e, const char *secret)
{
	if (!secret || strlen(secret) < ORDERS_PASSWORD_MIN)
		return; /* shorter is no one's password: nothing to leak */
	for (size_t i = 0; i < e->secret_count; i++)
		if (strcmp(e->secrets[i], secret) == 0)
			return;
	e->secrets = xrealloc(e->secrets, (e->secret_count + 1) * sizeof *e->secrets);
	e->secrets[e->secret_count++] = xstrdup(secret);
}

void engine_secrets_clear(struct engine *e)
{
	for (size_t i = 0; i < e->secret_count; i++) {
		sodium_memzero(e->secrets[i], strlen(e->secrets[i]));
		free(e->secrets[i]);
	}
	free(e->secrets);
	e->secrets = NULL;
	e->secret_count = 0;
}

bool engine_secrets_mask(struct engine *e, char **s)
{
	bool found = false;
	for (size_t i = 0; *s && i < e->secret_count; i++) {
		const char *secret = e->secrets[i];
		if (!strstr(*s, secret))
			continue;
		found = true;
		struct strbuf sb = {0};
		const char *at = *s, *hit;
		strbuf_puts(&sb, "");
		while ((hit = strstr(at, secret))) {
			strbuf_append(&sb, at, (size_t)(hit - at));
			strbuf_puts(&sb, "********");
			at = hit + strlen(secret);
		}
		strbuf_puts(&sb, at);
		sodium_memzero(*s, strlen(*s));
		free(*s);
		*s = strbuf_take(&sb);
	}
	return found;
}

/* The invariant: no mail queued while a mail is processed repeats its
 * password (see engine_queue_mail in engine_p.h). */
static void secrets_enforce(struct engine *e, const char *template_name, char **subject,
			    char **body, char **html)
{
	bool leak = engine_secrets_mask(e, subject);
	leak |= engine_secrets_mask(e, body);
	leak |= engine_secrets_mask(e, html);
	if (!leak)
		return;
	log_error("BUG: the mail from template %s repeated the password of the mail it "
		  "answers; the password was masked before the mail was queued",
		  template_name);
	if (getenv("CAMPAIGND_SECRET_LEAK_ABORT")) {
		fprintf(stderr, "BUG: outgoing mail (template %s) contains the plaintext password "
				"of the mail it answers\n", template_name);
		abort();
	}
}

/* ---- excerpts of what a reply answers ---- */

char *engine_excerpt(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return xstrdup(s);
	while (n > 0 && max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--; /* back to the start of a character */
	return xasprintf("%.*s...", (int)max, s);
}

/* ---- queueing ---- */

/* How many characters of a Subject are reply or forward marks ("Re: ",
 * "AW: Fwd: ", ...), as mail clients of several languages write them. */
static size_t reply_marks(const char *subject)
{
	static const char *const marks[] = {"re:", "aw:", "sv:", "vs:", "antw:", "fw:", "fwd:",
					    "tr:", "wg:", "r:", "rif:"};
	size_t at = 0;
	for (;;) {
		size_t from = at;
		while (subject[at] == ' ')
			at++;
		bool found = false;
		for (size_t i = 0; i < sizeof marks / sizeof marks[0] && !found; i++)
			if (strncasecmp(subject + at, marks[i], strlen(marks[i])) == 0) {
				at += strlen(marks[i]);
				found = true;
			}
		if (!found)
			return from;
		while (subject[at] == ' ')
			at++;
	}
}

char *engine_subject(const struct campaign *c, int year, const char *what)
{
	char *tag = c->tag ? xstrdup(c->tag) : campaign_default_tag(c->name);
	char *bracketed = xasprintf("[%s]", tag);
	char *s;
	const char *at = what ? strcasestr(what, bracketed) : NULL;
	size_t marks = at ? reply_marks(what) : 0;
	if (at && at != what && marks == (size_t)(at - what)) {
		/* a reply to one of ours, "Re: [Tag] 1450 · Your turn": the
		 * tag stays first, for filters, the mark goes after the year
		 * ("[Tag] 1450 · Re: Your turn") */
		const char *rest = at + strlen(bracketed);
		const char *dot = strstr(rest, " \u00b7 ");
		int mlen = (int)marks;
		while (mlen > 0 && what[mlen - 1] == ' ')
			mlen--;
		if (dot)
			s = xasprintf("%s%.*s \u00b7 %.*s %s", bracketed, (int)(dot - rest), rest,
				      mlen, what, dot + strlen(" \u00b7 "));
		else
			s = xasprintf("%s %.*s%s", bracketed, mlen, what, rest);
	} else if (at)
		s = xstrdup(what);
	else
		s = xasprintf("%s %d \u00b7 %s", bracketed, year ? year : c->year,
			      what && *what ? what : "Campaign mail");
	free(bracketed);
	free(tag);
	return s;
}

/* The player at `addr` whose stand-in gets a copy of what is sent there
 * now (*si filled, to be freed), else *pl NULL. Returns 0, or -1. */
static int stand_in_at(struct engine *e, const struct campaign *c, const char *addr, int64_t now,
		       const struct player **pl, struct store_stand_in *si, char **errstr)
{
	*pl = NULL;
	for (size_t i = 0; addr && i < c->player_count && !*pl; i++)
		if (c->players[i].email && strcasecmp(c->players[i].email, addr) == 0)
			*pl = &c->players[i];
	if (!*pl)
		return 0;
	bool found = false;
	if (store_stand_in_get(e->store, (*pl)->key, si, &found, errstr) != STORE_OK) {
		*pl = NULL;
		return -1;
	}
	if (!found || si->ended_at != 0 || now >= si->until_at ||
	    strcasecmp(si->address, addr) == 0) {
		store_stand_in_free(si);
		*pl = NULL;
	}
	return 0;
}

int engine_stand_in_copies(struct engine *e, const struct campaign *c, const char *addr,
			   int64_t now, bool *copied, char **errstr)
{
	const struct player *pl = NULL;
	struct store_stand_in si;
	*copied = false;
	if (stand_in_at(e, c, addr, now, &pl, &si, errstr) != 0)
		return -1;
	if (pl) {
		*copied = true;
		store_stand_in_free(&si);
	}
	return 0;
}

/* A copy of a mail to a player for his stand-in while one lasts (rulebook
 * 1.1, stand_in.c): the same mail, prefaced with whose it is. Never a
 * mail that carries a password (the caller checks r->secret). */
static int stand_in_copy(struct engine *e, const struct reply *r, const struct campaign *c,
			 int64_t now, char **errstr)
{
	if (e->no_stand_in_copy || !r->to_addr)
		return 0;
	const struct player *pl = NULL;
	struct store_stand_in si;
	if (stand_in_at(e, c, r->to_addr, now, &pl, &si, errstr) != 0)
		return -1;
	if (!pl)
		return 0;
	const char *nation = pl->nation ? pl->nation : pl->key;
	char until[64];
	timefmt_local(si.until_at, c->timezone, until, sizeof until);
	json_t *data = json_deep_copy(r->data);
	const char *earlier = json_string_value(json_object_get(data, "correction_preface"));
	char *preface = xasprintf("[A copy for you as %s's stand-in (until %s) of a mail sent "
				  "to %s.]\n%s",
				  nation, until, pl->name ? pl->name : nation,
				  earlier ? earlier : "");
	json_object_set_new(data, "correction_preface", json_string(preface));
	free(preface);
	char *subject = xasprintf("%s's mail: %s", nation, r->subject ? r->subject : "");
	char *token = xasprintf("%s.stand-in", r->token);
	struct reply copy = *r;
	copy.to_addr = si.address;
	copy.to_name = si.name;
	copy.subject = subject;
	copy.data = data;
	copy.in_reply_to = NULL;
	copy.token = token;
	e->no_stand_in_copy = true;
	int rc = engine_queue_mail(e, &copy, c, now, NULL, errstr);
	e->no_stand_in_copy = false;
	free(token);
	free(subject);
	json_decref(data);
	store_stand_in_free(&si);
	return rc;
}

int engine_queue_mail(struct engine *e, const struct reply *r, const struct campaign *c,
		      int64_t now, char **body_out, char **errstr)
{
	const char *campaign_name = c->name ? c->name : "";
	/* several mails merged into one (the year's, engine_year_mail.c): the
	 * text is made already */
	const char *made = json_string_value(json_object_get(r->data, "merged_text"));
	char *body = made ? xstrdup(made)
			  : templates_render(e->templates, r->template_name, r->data, errstr);
	if (!body)
		return -1;
	const char *preface = json_string_value(json_object_get(r->data, "correction_preface"));
	if (preface) {
		char *both = xasprintf("%s\n%s", preface, body);
		free(body);
		body = both;
	}
	char *subject = engine_subject(c, r->year, r->subject);
	struct mail_address to = {r->to_name, r->to_addr};
	char *msgid = NULL, *refs = NULL, *html = NULL;
	if (r->html_template) {
		json_t *hd = json_deep_copy(r->data);
		json_t *lines = json_array();
		for (const char *at = body; *at;) {
			const char *nl = strchr(at, '\n');
			size_t n = nl ? (size_t)(nl - at) : strlen(at);
			json_array_append_new(lines, json_stringn(at, n));
			at += n + (nl ? 1 : 0);
		}
		json_object_set_new(hd, "text_body", json_string(body));
		json_object_set_new(hd, "text_lines", lines);
		char *herr = NULL;
		html = templates_render(e->templates, r->html_template, hd, &herr);
		free(herr);
		json_decref(hd);
	}
	secrets_enforce(e, r->template_name, &subject, &body, &html);
	if (r->in_reply_to) {
		/* ids the sender's client mangled are dropped, never fatal */
		msgid = mail_compose_reply_id(r->in_reply_to->message_id);
		refs = mail_compose_reply_references(r->in_reply_to->references, msgid);
	}
	struct mail_compose m = {
		.from = {e->from_name ? e->from_name : campaign_name, e->campaign_address},
		.to = &to,
		.n_to = 1,
		.subject = subject,
		.text_body = body,
		.message_id_token = r->token,
		.domain = e->domain,
		.in_reply_to = msgid,
		.references = refs,
		.auto_submitted = r->auto_submitted,
		.x_loop = e->campaign_address,
		.date = now,
		.attachments = r->attachments,
		.n_attachments = r->n_attachments,
		.html_body = html,
	};
	size_t len = 0;
	char *raw = mail_compose(&m, &len, errstr);
	free(msgid);
	free(refs);
	free(html);
	free(subject);
	if (!raw) {
		free(body);
		return -1;
	}
	char *id = mail_compose_message_id(r->token, e->domain);
	int64_t row = 0;
	int rc = store_outbox_add(e->store, id, r->to_addr, raw, len, now, &row, errstr);
	free(id);
	if (rc == STORE_OK && r->secret)
		rc = store_outbox_set_secret(e->store, row, errstr);
	if (r->secret)
		sodium_memzero(raw, len);
	if (rc != STORE_OK) {
		free(raw);
		free(body);
		return -1;
	}
	free(raw);
	if (!r->secret && stand_in_copy(e, r, c, now, errstr) != 0) {
		free(body);
		return -1;
	}
	if (body_out)
		*body_out = body;
	else
		free(body);
	return 0;
}

/* ---- the outbox ---- */

static int64_t retry_delay(int attempts)
{
	int64_t d = 60;
	for (int i = 1; i < attempts && d < 3600; i++)
		d *= 2;
	return d < 3600 ? d : 3600;
}

static void split_recipients(char *list, const char **rcpts, size_t max, size_t *n)
{
	*n = 0;
	for (char *tok = strtok(list, ", "); tok && *n < max; tok = strtok(NULL, ", "))
		rcpts[(*n)++] = tok;
}

static int report_failure(struct engine *e, const struct store_outbox_item *it, int64_t now,
			  char **errstr)
{
	struct campaign *c = NULL;
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		return -1;
	int rc = 0;
	if (c->organiser_email && !strcasestr(it->recipients, c->organiser_email)) {
		json_t *data = json_object();
		json_object_set_new(data, "campaign", json_string(c->name ? c->name : ""));
		json_object_set_new(data, "recipients", json_string(it->recipients));
		json_object_set_new(data, "message_id", json_string(it->message_id));
		json_object_set_new(data, "error", json_string(it->last_error ? it->last_error : ""));
		char *token = xasprintf("failed.%lld", (long long)it->id);
		struct reply r = {c->organiser_email, c->organiser_name,
				  "Undeliverable campaign mail", "delivery-failed", data, NULL,
				  token, MAIL_AUTO_GENERATED, NULL, 0, NULL, false, 0};
		char *err = NULL;
		rc = engine_queue_mail(e, &r, c, now, NULL, &err);
		if (rc != 0 && errstr)
			*errstr = err;
		else
			free(err);
		free(token);
		json_decref(data);
	}
	campaign_free(c);
	return rc;
}

/* ---- a sink that cannot be used at all (TRANSPORT_BLOCKED) ---- */

#define SINK_BLOCKED_KEY "outbox:blocked"

void engine_sink_state_free(struct engine_sink_state *st)
{
	free(st->error);
	memset(st, 0, sizeof *st);
}

int engine_sink_state(struct engine *e, struct engine_sink_state *st, char **errstr)
{
	char *v = NULL;
	memset(st, 0, sizeof *st);
	if (store_kv_get(e->store, SINK_BLOCKED_KEY, &v, errstr) != STORE_OK)
		return -1;
	json_t *doc = v ? json_loads(v, 0, NULL) : NULL;
	free(v);
	if (doc) {
		st->blocked = true;
		st->since = json_integer_value(json_object_get(doc, "since"));
		st->retry_at = json_integer_value(json_object_get(doc, "retry_at"));
		st->tries = (int)json_integer_value(json_object_get(doc, "tries"));
		const char *err = json_string_value(json_object_get(doc, "error"));
		st->error = xstrdup(err ? err : "");
		json_decref(doc);
	}
	return 0;
}

static int sink_state_save(struct engine *e, const struct engine_sink_state *st, char **errstr)
{
	if (!st->blocked)
		return store_kv_set(e->store, SINK_BLOCKED_KEY, NULL, errstr) == STORE_OK ? 0 : -1;
	json_t *doc = json_pack("{sI sI si ss}", "since", (json_int_t)st->since, "retry_at",
				(json_int_t)st->retry_at, "tries", st->tries, "error",
				st->error ? st->error : "");
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	int rc = store_kv_set(e->store, SINK_BLOCKED_KEY, text, errstr) == STORE_OK ? 0 : -1;
	free(text);
	return rc;
}

/* Told once per episode: the mail waits in the same queue, so it arrives
 * when the trouble is over at the latest (the log and campaignctl status
 * say it at once). */
static int report_blocked(struct engine *e, const struct engine_sink_state *st, int64_t now,
			  char **errstr)
{
	struct campaign *c = NULL;
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		return -1;
	int rc = 0;
	if (c->organiser_email) {
		char since[64];
		json_t *data = json_object();
		json_object_set_new(data, "campaign", json_string(c->name ? c->name : ""));
		json_object_set_new(data, "error", json_string(st->error ? st->error : ""));
		json_object_set_new(data, "since",
				    json_string(timefmt_local(st->since, c->timezone, since,
							      sizeof since)));
		char *token = xasprintf("blocked.%lld", (long long)st->since);
		struct reply r = {c->organiser_email, c->organiser_name,
				  "Campaign mail cannot be sent", "delivery-blocked", data, NULL,
				  token, MAIL_AUTO_GENERATED, NULL, 0, NULL, false, 0};
		rc = engine_queue_mail(e, &r, c, now, NULL, errstr);
		free(token);
		json_decref(data);
	}
	campaign_free(c);
	return rc;
}

/* Records one more failed try of a blocked sink and when to try again
 * (1 min, 2, 4 ... at most 1 h); the first one is reported. */
static int sink_blocked(struct engine *e, struct engine_sink_state *st, const char *error,
			int64_t now, char **errstr)
{
	bool first = !st->blocked;
	st->blocked = true;
	if (first)
		st->since = now;
	st->tries++;
	st->retry_at = now + retry_delay(st->tries);
	free(st->error);
	st->error = xstrdup(error ? error : "the server cannot be used");
	if (sink_state_save(e, st, errstr) != 0)
		return -1;
	return first ? report_blocked(e, st, now, errstr) : 0;
}

/* Mail asked for at a time, and at most this many times in one flush. */
#define OUTBOX_BATCH 100
#define OUTBOX_ROUNDS 1000

static int send_batch(struct engine *e, struct mail_sink *sink, struct engine_sink_state *bl,
		      struct store_outbox_item *items, size_t count, int64_t now, size_t *sent,
		      size_t *failed, bool *stop_all, char **errstr);

int engine_flush_outbox(struct engine *e, struct mail_sink *sink, int64_t now, size_t *sent,
			size_t *failed, char **errstr)
{
	struct store_outbox_item *items = NULL;
	size_t count = 0;
	*sent = *failed = 0;
	struct engine_sink_state block;
	if (engine_sink_state(e, &block, errstr) != 0)
		return -1;
	if (block.blocked && now < block.retry_at) {
		engine_sink_state_free(&block);
		return 0;
	}
	/* A reply is marked sent the moment the server took it, so that a
	 * crash sends at most that one again; without waiting for the disk
	 * each time (a power cut may lose some marks: those replies go out
	 * twice). The next commit that waits makes them durable. */
	bool unsynced = !store_in_transaction(e->store) &&
			store_set_synced(e->store, false, NULL) == STORE_OK;
	int rc = 0;
	bool stop = false;
	/* every due mail, a hundred at a time, not only the first hundred */
	for (int round = 0; rc == 0 && !stop && round < OUTBOX_ROUNDS; round++) {
		store_outbox_items_free(items, count);
		items = NULL;
		count = 0;
		if (store_outbox_due(e->store, now, OUTBOX_BATCH, &items, &count, errstr) !=
		    STORE_OK) {
			rc = -1;
			break;
		}
		rc = send_batch(e, sink, &block, items, count, now, sent, failed, &stop, errstr);
		if (count < OUTBOX_BATCH)
			break;
	}
	if (unsynced)
		store_set_synced(e->store, true, NULL);
	store_outbox_items_free(items, count);
	engine_sink_state_free(&block);
	return rc;
}

/* Records what became of one attempt, in the caller's transaction:
 * sent; the server blocked (recorded once per try of a blocked sink:
 * *stop); failed for good (reported to the organiser); or to be retried. */
static int record_outcome(struct engine *e, struct engine_sink_state *block,
			  struct store_outbox_item *it, enum transport_status st, const char *err,
			  int64_t now, size_t *sent, size_t *failed, bool *stop, char **errstr)
{
	int s;
	if (st == TRANSPORT_OK) {
		s = store_outbox_mark_sent(e->store, it->id, now, errstr);
		if (s == STORE_OK && block->blocked) {
			engine_sink_state_free(block);
			s = sink_state_save(e, block, errstr) == 0 ? STORE_OK : STORE_ERROR;
		}
		(*sent)++;
	} else if (st == TRANSPORT_BLOCKED) {
		/* nothing wrong with this mail: it keeps its place and its
		 * attempts; the whole queue waits for the server */
		s = STORE_OK;
		if (!(block->blocked && now < block->retry_at))
			s = sink_blocked(e, block, err, now, errstr) == 0 ? STORE_OK : STORE_ERROR;
		(*failed)++;
		*stop = true;
	} else if (st == TRANSPORT_PERMFAIL) {
		s = store_outbox_mark_failed(e->store, it->id, err ? err : "refused", errstr);
		free(it->last_error);
		it->last_error = xstrdup(err ? err : "refused");
		if (s == STORE_OK)
			s = report_failure(e, it, now, errstr) == 0 ? STORE_OK : STORE_ERROR;
		(*failed)++;
	} else {
		s = store_outbox_reschedule(e->store, it->id, now + retry_delay(it->attempts + 1),
					    err ? err : "temporary failure", errstr);
		(*failed)++;
	}
	return s;
}

/* Sends items in order; *stop when the server is blocked. Returns 0, or -1
 * on a database error. */
static int send_batch(struct engine *e, struct mail_sink *sink, struct engine_sink_state *bl,
		      struct store_outbox_item *items, size_t count, int64_t now, size_t *sent,
		      size_t *failed, bool *stop_all, char **errstr)
{
	struct engine_sink_state block = *bl;
	int rc = 0;
	for (size_t i = 0; i < count && rc == 0; i++) {
		struct store_outbox_item *it = &items[i];
		char *list = xstrdup(it->recipients);
		const char *rcpts[32];
		size_t n;
		split_recipients(list, rcpts, 32, &n);
		char *err = NULL;
		enum transport_status st =
			mail_sink_send(sink, e->campaign_address, rcpts, n, it->raw, it->raw_len, &err);
		free(list);
		if (store_begin(e->store, errstr) != STORE_OK) {
			free(err);
			rc = -1;
			break;
		}
		bool stop = false;
		int s = record_outcome(e, &block, it, st, err, now, sent, failed, &stop, errstr);
		free(err);
		if (s != STORE_OK) {
			store_rollback(e->store);
			rc = -1;
		} else if (store_commit(e->store, errstr) != STORE_OK) {
			rc = -1;
		}
		if (stop) {
			*stop_all = true;
			break;
		}
	}
	*bl = block;
	return rc;
}

int64_t engine_outbox_next_due(struct engine *e, int64_t now)
{
	struct store_outbox_item *items = NULL;
	size_t count = 0;
	int64_t next = -1;
	if (store_outbox_due(e->store, now + 366LL * 86400, 1, &items, &count, NULL) == STORE_OK &&
	    count == 1)
		next = items[0].next_attempt_at > now ? items[0].next_attempt_at - now : 0;
	store_outbox_items_free(items, count);
	struct engine_sink_state block;
	if (next >= 0 && engine_sink_state(e, &block, NULL) == 0) {
		if (block.blocked && block.retry_at - now > next)
			next = block.retry_at - now;
		engine_sink_state_free(&block);
	}
	return next;
}

/* ---- the outbox sent through a few sessions in parallel ---- */

/* Mails handed to the sessions at a time, per session: enough to keep them
 * busy while the caller reads the next group of mails. */
#define SENDER_WINDOW_PER_SESSION 32

struct engine_sender {
	struct engine *e;
	struct mail_sink_pool *pool;
	/* the mails handed to the pool, by id, until their result is recorded */
	struct store_outbox_item *flight;
	size_t n_flight, cap_flight;
	/* The ids the server took, appended by the sending threads at once:
	 * a killed daemon left them queued in the database, and they are
	 * marked sent before anything is sent again. */
	int journal;
	char *journal_path;
};

static void journal_note(void *ctx, int64_t id)
{
	struct engine_sender *s = ctx;
	if (s->journal < 0)
		return;
	/* one write of 8 bytes to a file opened for appending: whole, and
	 * kept by the kernel when the process is killed */
	ssize_t ignored = write(s->journal, &id, sizeof id);
	(void)ignored;
}

struct engine_sender *engine_sender_new(struct engine *e, struct mail_sink **sinks, size_t n,
					char **errstr)
{
	struct engine_sender *s = xcalloc(1, sizeof *s);
	s->e = e;
	s->journal_path = xasprintf("%s-sent", store_path(e->store));
	s->journal = open(s->journal_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (s->journal < 0) {
		if (errstr)
			*errstr = xasprintf("%s: %s", s->journal_path, strerror(errno));
		for (size_t i = 0; i < n; i++)
			mail_sink_free(sinks[i]);
		free(s->journal_path);
		free(s);
		return NULL;
	}
	s->pool = mail_sink_pool_new(sinks, n, journal_note, s);
	if (!s->pool) {
		if (errstr)
			*errstr = xstrdup("cannot start the threads that send mail");
		close(s->journal);
		free(s->journal_path);
		free(s);
		return NULL;
	}
	return s;
}

/* With nothing in flight: the ids in the journal are marked sent (those a
 * killed daemon had not marked yet; the others were), then it is emptied. */
static int journal_apply(struct engine_sender *s, int64_t now, size_t *sent, char **errstr)
{
	struct stat sb;
	if (fstat(s->journal, &sb) != 0 || sb.st_size < (off_t)sizeof(int64_t))
		return 0;
	size_t n = (size_t)sb.st_size / sizeof(int64_t);
	int64_t *ids = xmalloc(n * sizeof *ids);
	ssize_t got = pread(s->journal, ids, n * sizeof *ids, 0);
	n = got > 0 ? (size_t)got / sizeof *ids : 0;
	int rc = 0;
	if (n && store_begin(s->e->store, errstr) != STORE_OK)
		rc = -1;
	size_t marked = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *err = NULL;
		int st = store_outbox_mark_sent(s->e->store, ids[i], now, &err);
		if (st == STORE_OK)
			marked++;
		else if (st != STORE_NOTFOUND) { /* NOTFOUND: marked before */
			if (errstr)
				*errstr = err;
			err = NULL;
			rc = -1;
		}
		free(err);
	}
	if (n && rc == 0)
		rc = store_commit(s->e->store, errstr) == STORE_OK ? 0 : -1;
	else if (n)
		store_rollback(s->e->store);
	free(ids);
	if (rc == 0) {
		if (ftruncate(s->journal, 0) != 0)
			log_warn("%s: %s", s->journal_path, strerror(errno));
		if (marked)
			log_info("outbox: %zu mail%s sent before a stop marked sent", marked,
				 marked == 1 ? "" : "s");
		*sent += marked;
	}
	return rc;
}

static struct store_outbox_item *flight_take(struct engine_sender *s, int64_t id,
					     struct store_outbox_item *out)
{
	for (size_t i = 0; i < s->n_flight; i++)
		if (s->flight[i].id == id) {
			*out = s->flight[i];
			s->flight[i] = s->flight[--s->n_flight];
			return out;
		}
	return NULL;
}

static void item_fields_free(struct store_outbox_item *it)
{
	free(it->message_id);
	free(it->recipients);
	free(it->raw);
	free(it->last_error);
}

static bool flight_has(const struct engine_sender *s, int64_t id)
{
	for (size_t i = 0; i < s->n_flight; i++)
		if (s->flight[i].id == id)
			return true;
	return false;
}

/* Records the results the sessions have (waiting up to wait_ms for one),
 * all in one transaction. */
static int collect(struct engine_sender *s, struct engine_sink_state *block, unsigned wait_ms,
		   int64_t now, size_t *sent, size_t *failed, char **errstr)
{
	struct mail_sink_result *res = NULL;
	size_t n = 0;
	mail_sink_pool_collect(s->pool, wait_ms, &res, &n);
	if (!n) {
		mail_sink_pool_results_free(res, n);
		return 0;
	}
	int rc = 0;
	bool open = false;
	bool stop = false;
	for (size_t i = 0; i < n; i++) {
		struct store_outbox_item it;
		if (!flight_take(s, res[i].tag, &it))
			continue;
		if (res[i].tried && rc == 0) {
			if (!open && store_begin(s->e->store, errstr) != STORE_OK)
				rc = -1;
			open = rc == 0;
			if (rc == 0 && record_outcome(s->e, block, &it, res[i].status, res[i].error,
						      now, sent, failed, &stop, errstr) != STORE_OK)
				rc = -1;
		}
		item_fields_free(&it);
	}
	if (open && rc == 0)
		rc = store_commit(s->e->store, errstr) == STORE_OK ? 0 : -1;
	else if (open)
		store_rollback(s->e->store);
	if (stop)
		mail_sink_pool_drop_queued(s->pool);
	mail_sink_pool_results_free(res, n);
	return rc;
}

/* Hands due mail to the sessions, up to the window; *handed counts it. */
static int hand_over(struct engine_sender *s, int64_t now, size_t *handed, char **errstr)
{
	struct engine *e = s->e;
	size_t window = SENDER_WINDOW_PER_SESSION * mail_sink_pool_sessions(s->pool);
	if (s->n_flight >= window)
		return 0;
	struct store_outbox_item *items = NULL;
	size_t count = 0;
	if (store_outbox_due(e->store, now, window + s->n_flight, &items, &count, errstr) !=
	    STORE_OK)
		return -1;
	for (size_t i = 0; i < count && s->n_flight < window; i++) {
		struct store_outbox_item *it = &items[i];
		if (flight_has(s, it->id))
			continue;
		char *list = xstrdup(it->recipients);
		const char *rcpts[32];
		size_t n;
		split_recipients(list, rcpts, 32, &n);
		mail_sink_pool_submit(s->pool, it->id, it->recipients, e->campaign_address, rcpts, n,
				      it->raw, it->raw_len);
		free(list);
		if (s->n_flight == s->cap_flight) {
			s->cap_flight = s->cap_flight ? s->cap_flight * 2 : 64;
			s->flight = xrealloc(s->flight, s->cap_flight * sizeof *s->flight);
		}
		/* kept without its bytes, for the outcome */
		if (it->raw)
			sodium_memzero(it->raw, it->raw_len);
		free(it->raw);
		it->raw = NULL;
		it->raw_len = 0;
		s->flight[s->n_flight++] = *it;
		memset(it, 0, sizeof *it);
		(*handed)++;
	}
	store_outbox_items_free(items, count);
	return 0;
}

int engine_sender_pump(struct engine_sender *s, int64_t now, bool drain, size_t *sent,
		       size_t *failed, char **errstr)
{
	struct engine *e = s->e;
	*sent = *failed = 0;
	struct engine_sink_state block;
	if (engine_sink_state(e, &block, errstr) != 0)
		return -1;
	bool unsynced = !store_in_transaction(e->store) &&
			store_set_synced(e->store, false, NULL) == STORE_OK;
	int rc = 0;
	if (!s->n_flight)
		rc = journal_apply(s, now, sent, errstr);
	for (int round = 0; rc == 0 && round < OUTBOX_ROUNDS; round++) {
		rc = collect(s, &block, drain && s->n_flight ? 1000 : 0, now, sent, failed, errstr);
		size_t handed = 0;
		if (rc == 0 && !(block.blocked && now < block.retry_at))
			rc = hand_over(s, now, &handed, errstr);
		if (!drain || (!s->n_flight && !handed))
			break;
	}
	if (rc == 0 && drain && !s->n_flight)
		rc = journal_apply(s, now, sent, errstr);
	if (unsynced)
		store_set_synced(e->store, true, NULL);
	engine_sink_state_free(&block);
	return rc;
}

size_t engine_sender_busy(const struct engine_sender *s)
{
	return s ? s->n_flight : 0;
}

void engine_sender_free(struct engine_sender *s, int64_t now)
{
	if (!s)
		return;
	/* what was handed over is sent and recorded; the rest waits */
	mail_sink_pool_drop_queued(s->pool);
	struct engine_sink_state block;
	if (engine_sink_state(s->e, &block, NULL) == 0) {
		size_t sent = 0, failed = 0;
		char *err = NULL;
		while (s->n_flight && collect(s, &block, 1000, now, &sent, &failed, &err) == 0)
			;
		if (err)
			log_error("outbox: %s", err);
		free(err);
		engine_sink_state_free(&block);
	}
	mail_sink_pool_free(s->pool);
	for (size_t i = 0; i < s->n_flight; i++)
		item_fields_free(&s->flight[i]);
	free(s->flight);
	close(s->journal);
	free(s->journal_path);
	free(s);
}
