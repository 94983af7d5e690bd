/* The year's mail out: each request of the state machine rendered for each
 * recipient (with the map, the diary) and queued in the outbox. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "mail/mail_compose.h"
#include "mail/mail_text.h"
#include "dbm/diary.h"
#include "engine/maps_p.h"
#include "dbm/year.h"
#include "base/timefmt.h"

#include <ctype.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *jstr_or(const json_t *o, const char *k, const char *dflt)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v && *v ? v : dflt;
}

/* ---------------------------------------------------------------- mail */

json_t *yctx_base_data(struct yctx *y, int player)
{
	const struct campaign *c = y->c;
	json_t *d = json_pack("{s:s, s:s, s:i, s:s, s:s}", "campaign", c->name ? c->name : "",
			      "campaign_address", y->e->campaign_address, "year", c->year, "phase",
			      campaign_phase_name(c->phase), "organiser_name",
			      c->organiser_name ? c->organiser_name : "");
	if (player >= 0) {
		const struct player *p = &c->players[player];
		json_object_set_new(d, "player", json_string(p->key));
		json_object_set_new(d, "nation", json_string(p->nation ? p->nation : p->key));
		json_object_set_new(d, "player_name", json_string(p->name ? p->name : ""));
	} else {
		json_object_set_new(d, "to_organiser", json_true());
		json_object_set_new(d, "nation", json_string("the organiser"));
		json_object_set_new(d, "player_name",
				    json_string(c->organiser_name ? c->organiser_name : ""));
	}
	return d;
}

static json_t *diary_data(struct yctx *y, int year)
{
	json_t *events = NULL, *comments = NULL;
	char *err = NULL;
	if (store_events(y->e->store, year, &events, &err) != STORE_OK) {
		set_err(y, err);
		return json_object();
	}
	if (store_comments(y->e->store, year, &comments, &err) != STORE_OK) {
		set_err(y, err);
		json_decref(events);
		return json_object();
	}
	struct store_dice_year row;
	json_t *dice = NULL;
	if (store_dice_year_get(y->e->store, year, &row, NULL) == STORE_OK)
		dice = json_pack("{s:s, s:s?}", "commitment", row.commitment, "seed",
				 row.revealed ? row.seed_hex : NULL);
	json_t *d = diary_year_json(y->c, events, year, comments, dice);
	json_decref(events);
	json_decref(comments);
	json_decref(dice);
	return d;
}

/* The mail's extras: the current map, and the diary's HTML part. */
struct mail_extras {
	const struct mail_attachment *attachments;
	size_t n_attachments;
	const char *html_template;
	int year; /* the year the subject names; 0: the current one */
};

/* ---------------------------------------------------------------- corrections */

int engine_correction_open(struct engine *e, int64_t after, const char *why, char **errstr)
{
	int64_t upto = 0;
	char *old_text = NULL;
	if (store_outbox_last_id(e->store, &upto, errstr) != STORE_OK ||
	    store_kv_get(e->store, KV_CORRECTION, &old_text, errstr) != STORE_OK)
		return -1;
	json_t *old = old_text ? json_loads(old_text, 0, NULL) : NULL;
	free(old_text);
	/* a window already open is widened: the text a player has of a mail
	 * may be one sent before an earlier undo (it was not sent again when
	 * it came out the same). Each rewind pairs mails anew. */
	json_int_t old_after = json_integer_value(json_object_get(old, "after"));
	if (json_is_object(old) && old_after < after)
		after = old_after;
	json_t *doc = json_pack("{s:I, s:I, s:s, s:[]}", "after", (json_int_t)after, "upto",
				(json_int_t)upto, "why", why ? why : "", "used");
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	json_decref(old);
	int rc = store_kv_set(e->store, KV_CORRECTION, text, errstr) == STORE_OK ? 0 : -1;
	free(text);
	return rc;
}

/* The text part of a mail we composed (quoted-printable), decoded. */
static char *sent_text(const char *raw)
{
	static const char marker[] = "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
	const char *at = strstr(raw, marker);
	if (!at)
		return NULL;
	at += sizeof marker - 1;
	const char *end = strstr(at, "\r\n--=_");
	if (!end)
		end = at + strlen(at);
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	while (at < end) {
		if (at[0] == '=' && at + 2 < end + 1 && at[1] == '\r' && at[2] == '\n') {
			at += 3;
		} else if (at[0] == '=' && at + 2 < end && isxdigit((unsigned char)at[1]) &&
			   isxdigit((unsigned char)at[2])) {
			char hex[3] = {at[1], at[2], 0};
			strbuf_putc(&sb, (char)strtol(hex, NULL, 16));
			at += 3;
		} else if (at[0] == '\r' && at + 1 < end && at[1] == '\n') {
			strbuf_putc(&sb, '\n');
			at += 2;
		} else {
			strbuf_putc(&sb, *at++);
		}
	}
	/* sent format=flowed: the text as the player reads it */
	char *flowed = strbuf_take(&sb);
	char *text = mail_text_unflow(flowed, false);
	free(flowed);
	return text;
}

static bool has_line(const char *text, const char *line, size_t len)
{
	for (const char *at = text; *at;) {
		const char *nl = strchr(at, '\n');
		size_t n = nl ? (size_t)(nl - at) : strlen(at);
		if (n == len && memcmp(at, line, len) == 0)
			return true;
		at += n + (nl ? 1 : 0);
	}
	return false;
}

#define CHANGED_LINES_MAX 12

/* The orders the acknowledgements to `addr` after outbox id `after` showed
 * as standing (their "Your current orders" lines, trimmed), one a line:
 * the player was told of them in the reply to his own mail, so a mail
 * made again does not list them as changed. NULL when there are none. */
static char *acknowledged_orders(struct yctx *y, const char *addr, int64_t after)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	char *err = NULL;
	if (!addr || store_outbox_matching(y->e->store, after, INT64_MAX, "<ack.", &items, &n,
					   &err) != STORE_OK) {
		free(err);
		return NULL;
	}
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		if (!items[i].recipients || !strstr(items[i].recipients, addr))
			continue;
		char *text = sent_text(items[i].raw);
		const char *at = text ? strstr(text, "\nYour current orders\n") : NULL;
		for (at = at ? strchr(at + 1, '\n') : NULL; at && *at;) {
			at++;
			const char *nl = strchr(at, '\n');
			size_t len = nl ? (size_t)(nl - at) : strlen(at);
			if (strncmp(at, "Each mail changes", 17) == 0 || strncmp(at, "Errors:", 7) == 0)
				break;
			size_t lead = 0;
			while (lead < len && at[lead] == ' ')
				lead++;
			/* an order, indented; not its notes ("-> ...") */
			if (lead > 0 && lead < len && lead <= 4 && strncmp(at + lead, "->", 2) != 0)
				strbuf_printf(&sb, "%.*s\n", (int)(len - lead), at + lead);
			at = nl;
		}
		free(text);
	}
	store_outbox_items_free(items, n);
	return sb.data;
}

/* The lines of `a` that `b` does not have (nor `also`, when given), each
 * after `label`. */
static size_t lines_not_in_either(struct strbuf *sb, const char *a, const char *b,
				  const char *also, const char *label);

static size_t lines_not_in(struct strbuf *sb, const char *a, const char *b, const char *label)
{
	return lines_not_in_either(sb, a, b, NULL, label);
}

static size_t lines_not_in_either(struct strbuf *sb, const char *a, const char *b,
				  const char *also, const char *label)
{
	size_t n = 0, more = 0;
	for (const char *at = a; *at;) {
		const char *nl = strchr(at, '\n');
		size_t len = nl ? (size_t)(nl - at) : strlen(at);
		const char *s = at;
		size_t sl = len;
		while (sl && (*s == ' ' || *s == '\t')) {
			s++;
			sl--;
		}
		if (sl && !has_line(b, at, len) && !(also && has_line(also, s, sl))) {
			if (n < CHANGED_LINES_MAX)
				strbuf_printf(sb, "  %s %.*s\n", label, (int)sl, s);
			else
				more++;
			n++;
		}
		at += len + (nl ? 1 : 0);
	}
	if (more)
		strbuf_printf(sb, "  %s ... and %zu more line%s\n", label, more, more == 1 ? "" : "s");
	return n;
}

/* A mail made again after an undo or a correction: the one it replaces is
 * looked for (same recipient, template, subject and place in the year).
 * *skip when its text is the same (not sent twice); else *preface says what
 * changed. Returns 0, or -1 once a failure was met. */
static int correction_of(struct yctx *y, const char *slot, const char *addr, const char *tpl,
			 json_t *data, const char *body_check, bool *skip, char **preface)
{
	*skip = false;
	*preface = NULL;
	char *err = NULL;
	if (!y->correction) {
		char *text = NULL;
		if (store_kv_get(y->e->store, KV_CORRECTION, &text, &err) != STORE_OK) {
			set_err(y, err);
			return -1;
		}
		y->correction = text ? json_loads(text, 0, NULL) : NULL;
		if (!y->correction)
			y->correction = json_null();
		free(text);
	}
	if (!json_is_object(y->correction))
		return 0;
	json_t *used = json_object_get(y->correction, "used");
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	if (store_outbox_matching(y->e->store,
				  json_integer_value(json_object_get(y->correction, "after")),
				  json_integer_value(json_object_get(y->correction, "upto")), slot,
				  &items, &n, &err) != STORE_OK) {
		set_err(y, err);
		return -1;
	}
	/* the latest one: what the player has now */
	const struct store_outbox_item *old = NULL;
	for (size_t i = n; i-- > 0 && !old;) {
		bool taken = false;
		size_t k;
		json_t *v;
		json_array_foreach(used, k, v)
			taken |= json_integer_value(v) == items[i].id;
		if (!taken)
			old = &items[i];
	}
	int rc = 0;
	if (old) {
		json_array_append_new(used, json_integer(old->id));
		char *doc = json_dumps(y->correction, JSON_COMPACT);
		if (store_kv_set(y->e->store, KV_CORRECTION, doc, &err) != STORE_OK) {
			set_err(y, err);
			rc = -1;
		}
		free(doc);
		char *was = sent_text(old->raw);
		char *now = body_check ? NULL : templates_render(y->e->templates, tpl, data, &err);
		free(err);
		const char *text = body_check ? body_check : now;
		if (was) {
			/* a mail that was itself a correction: its text without
			 * its own "Corrected:" preface (which ends at the first
			 * blank line), so that only the text is compared */
			char *blank = strncmp(was, "Corrected: ", 11) == 0 ? strstr(was, "\n\n")
									    : NULL;
			if (blank)
				memmove(was, blank + 2, strlen(blank + 2) + 1);
			str_trim(was);
		}
		/* flowed and read back as the sent one was (trailing blanks) */
		char *text_trim = NULL;
		if (text) {
			char *f = mail_compose_flowed(text);
			text_trim = mail_text_unflow(f, false);
			free(f);
		}
		if (text_trim)
			str_trim(text_trim);
		if (was && text && strcmp(was, text_trim) == 0) {
			*skip = true;
		} else if (text) {
			char when[96];
			struct strbuf sb = {0};
			strbuf_printf(&sb, "Corrected: this mail replaces the one sent on %s under the "
					   "same subject: %s.\n",
				      timefmt_local(old->created_at, y->c->timezone, when, sizeof when),
				      jstr_or(y->correction, "why", "the organiser went back a step"));
			struct strbuf diff = {0};
			strbuf_puts(&diff, "");
			/* orders the player sent since, already acknowledged,
			 * are no change the correction made */
			char *acked = was ? acknowledged_orders(y, addr, old->id) : NULL;
			size_t changed = was ? lines_not_in(&diff, was, text, "was:") : 0;
			changed += was ? lines_not_in_either(&diff, text, was, acked, "now:") : 0;
			free(acked);
			if (changed)
				strbuf_printf(&sb, "What changed:\n%s", diff.data);
			strbuf_free(&diff);
			*preface = strbuf_take(&sb);
		}
		free(was);
		free(now);
		free(text_trim);
	}
	store_outbox_items_free(items, n);
	return rc;
}

static int queue_one(struct yctx *y, const char *tpl, const char *subject, json_t *data,
		     int player, const char *addr, const char *name, const struct mail_extras *x,
		     int step, int nth)
{
	json_t *d = json_deep_copy(data);
	/* deadlines in the campaign's time zone (the pure core writes UTC) */
	json_t *epoch = json_object_get(d, "deadline_epoch");
	if (json_is_integer(epoch)) {
		char when[96];
		json_object_set_new(d, "deadline",
				    json_string(timefmt_local(json_integer_value(epoch),
							      y->c->timezone, when, sizeof when)));
	}
	if (tpl && strcmp(tpl, "organiser-action") == 0 && !json_object_get(d, "next"))
		json_object_set_new(d, "next", engine_awaiting_json(y->c, &y->st, &y->io, player));
	json_t *base = yctx_base_data(y, player);
	json_object_update_missing(d, base);
	json_decref(base);
	/* the mail's place: recipient, template, subject and step of the year,
	 * written into its Message-ID so that a mail made again after an
	 * undo finds the one it replaces */
	char slot[24] = "";
	if (step >= 0) {
		unsigned char hash[8];
		char hex[17];
		char *key = xasprintf("%s|%s|%s|%d|%d|%d", addr, tpl, subject ? subject : "", step,
				      nth, y->c->year);
		crypto_generichash(hash, sizeof hash, (const unsigned char *)key, strlen(key), NULL,
				   0);
		free(key);
		sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
		snprintf(slot, sizeof slot, ".s%s", hex);
	}
	bool skip = false;
	char *preface = NULL, *corrected = NULL;
	if (*slot && correction_of(y, slot, addr, tpl, d, NULL, &skip, &preface) != 0) {
		json_decref(d);
		return -1;
	}
	if (skip) {
		json_decref(d);
		return 0; /* the same text was sent before: not sent twice */
	}
	if (preface) {
		/* after the campaign's tag ("[Name] "), if the subject has one */
		const char *sub = subject ? subject : "";
		const char *tag_end = sub[0] == '[' ? strstr(sub, "] ") : NULL;
		size_t tag = tag_end ? (size_t)(tag_end - sub) + 2 : 0;
		corrected = xasprintf("%.*sCorrected: %s", (int)tag, sub, sub + tag);
		json_object_set_new(d, "correction_preface", json_string(preface));
	}
	char *token = xasprintf("year.%s.%lu.%d%s", y->tag, ++y->mail_seq, y->c->year, slot);
	struct reply r = {addr, name, corrected ? corrected : subject, tpl, d, NULL, token,
			  MAIL_AUTO_GENERATED, x ? x->attachments : NULL, x ? x->n_attachments : 0,
			  x ? x->html_template : NULL, false, x ? x->year : 0};
	char *err = NULL;
	int rc = engine_queue_mail(y->e, &r, y->c, y->now, NULL, &err);
	if (rc != 0)
		set_err(y, err);
	free(token);
	free(preface);
	free(corrected);
	json_decref(d);
	return rc;
}

static void queue_request(struct yctx *y, const json_t *req)
{
	const struct campaign *c = y->c;
	const char *tpl = json_string_value(json_object_get(req, "template"));
	const char *subject = json_string_value(json_object_get(req, "subject"));
	const json_t *to = json_object_get(req, "to");
	bool org = json_is_true(json_object_get(req, "organiser"));
	bool *rcpt = xcalloc(c->player_count + 1, sizeof *rcpt);
	if (json_is_string(to)) {
		for (size_t p = 0; p < c->player_count; p++)
			rcpt[p] = c->players[p].status == PLAYER_ACTIVE;
	} else {
		size_t i;
		json_t *v;
		json_array_foreach(to, i, v) {
			int p = campaign_find_player(c, json_string_value(v));
			if (p >= 0)
				rcpt[p] = true;
		}
	}
	if (y->dry) {
		strbuf_printf(&y->preview, "mail \"%s\" (%s) to", subject ? subject : "", tpl);
		for (size_t p = 0; p < c->player_count; p++)
			if (rcpt[p])
				strbuf_printf(&y->preview, " %s", c->players[p].key);
		strbuf_printf(&y->preview, "%s\n", org ? " and the organiser" : "");
		free(rcpt);
		return;
	}
	json_t *data = json_object_get(req, "data");
	json_t *diary = NULL;
	if (tpl && strcmp(tpl, "diary") == 0) {
		diary = diary_data(y, (int)json_integer_value(json_object_get(req, "diary_year")));
		data = diary;
	}
	/* the map as it stands goes with the turn's mail and the diary, as
	 * PNG (what every client shows) and SVG, marked with the year's
	 * battles and sieges */
	struct mail_extras x = {0};
	struct engine_maps maps = {0};
	if (tpl && (strcmp(tpl, "your-turn") == 0 || strcmp(tpl, "turn-report") == 0 ||
		    strcmp(tpl, "diary") == 0)) {
		int year = diary ? (int)json_integer_value(json_object_get(req, "diary_year"))
				 : c->year;
		/* the diary's year has ended: its map is the map at its end */
		char *title = diary && year != c->year
				      ? xasprintf("%s, end of %d", c->name ? c->name : "Campaign", year)
				      : NULL;
		engine_maps_build(y->e->store, c, year, title, &maps);
		free(title);
		x.attachments = maps.att;
		x.n_attachments = maps.count;
	}
	x.year = (int)json_integer_value(json_object_get(req, "year"));
	if (tpl && strcmp(tpl, "diary") == 0) {
		x.html_template = "diary-html";
		x.year = (int)json_integer_value(json_object_get(req, "diary_year"));
	}
	const json_t *step_v = json_object_get(req, "step");
	int step = json_is_integer(step_v) ? (int)json_integer_value(step_v) : -1;
	int nth = (int)json_integer_value(json_object_get(req, "nth"));
	bool organiser_reached = false;
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (!rcpt[p] || !pl->email || !*pl->email)
			continue;
		if (c->organiser_email && strcasecmp(c->organiser_email, pl->email) == 0)
			organiser_reached = true;
		if (queue_one(y, tpl, subject, data, (int)p, pl->email, pl->name, &x, step, nth) != 0)
			break;
	}
	if (org && !organiser_reached && c->organiser_email && *c->organiser_email)
		queue_one(y, tpl, subject, data, NO_INDEX, c->organiser_email, c->organiser_name,
			  &x, step, nth);
	engine_maps_free(&maps);
	json_decref(diary);
	free(rcpt);
}

/* Stores the new events and queues the new mail requests. */
int yctx_flush(struct yctx *y)
{
	if (y->dry) {
		for (; y->mails_done < json_array_size(y->run.mails); y->mails_done++)
			queue_request(y, json_array_get(y->run.mails, y->mails_done));
		return y->err ? -1 : 0;
	}
	for (; y->stored < y->log.count && !y->err; y->stored++) {
		char *err = NULL;
		if (store_append_event_at(y->e->store, y->log.events[y->stored], y->now, NULL,
					  &err) != STORE_OK)
			set_err(y, err);
	}
	for (; y->mails_done < json_array_size(y->run.mails) && !y->err; y->mails_done++)
		queue_request(y, json_array_get(y->run.mails, y->mails_done));
	return y->err ? -1 : 0;
}
