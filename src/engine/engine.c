#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/maps_p.h"
#include "engine/player_status.h"
#include "model/campaign_json.h"
#include "base/log.h"
#include "mail/mail_compose.h"
#include "dbm/orders.h"
#include "base/timefmt.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- secrets of the mail being processed ---- */

/* Every secret a parsed mail holds: the typed password (and the form a
 * generated one is stored in) and new PASSWORDs (engine_secret_add). */
static void secrets_note(struct engine *e, const struct order_set *set)
{
	engine_secret_add(e, set->password);
	char *canonical = set->password ? engine_password_form(set->password) : NULL;
	engine_secret_add(e, canonical);
	if (canonical)
		sodium_memzero(canonical, strlen(canonical));
	free(canonical);
	for (size_t i = 0; i < set->count; i++)
		engine_secret_add(e, set->orders[i].secret);
}

/* ---- replies ---- */

/* A token for the reply's Message-ID: stable for the same mail, unique
 * across mails (it hashes the mail, its UID and the time of processing). */
static char *reply_token(const char *prefix, const char *raw, size_t len, uint32_t uid,
			 int64_t now)
{
	unsigned char hash[16];
	crypto_generichash_state st;
	crypto_generichash_init(&st, NULL, 0, sizeof hash);
	crypto_generichash_update(&st, (const unsigned char *)raw, len);
	crypto_generichash_update(&st, (const unsigned char *)&uid, sizeof uid);
	crypto_generichash_update(&st, (const unsigned char *)&now, sizeof now);
	crypto_generichash_final(&st, hash, sizeof hash);
	char hex[sizeof hash * 2 + 1];
	sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
	return xasprintf("%s.%s", prefix, hex);
}


/* The reply's Subject: "Re: " and at most an excerpt of the mail's Subject,
 * when that may be repeated (see struct process), else the fallback. */
static char *reply_subject(const char *subject, const char *fallback)
{
	if (!subject || !*subject)
		return xstrdup(fallback);
	char *quoted = engine_excerpt(subject, ENGINE_EXCERPT_SUBJECT);
	if (str_starts_with_ci(quoted, "re:"))
		return quoted;
	char *re = xasprintf("Re: %s", quoted);
	free(quoted);
	return re;
}

/* ---- classifying and authenticating ---- */

static int player_by_address(const struct campaign *c, const char *addr)
{
	if (!addr)
		return -1;
	for (size_t i = 0; i < c->player_count; i++)
		if (c->players[i].email && strcasecmp(c->players[i].email, addr) == 0)
			return (int)i;
	return -1;
}

static const char *loop_reason(const struct engine *e, const struct mail_info *info)
{
	if (info->from_addr && strcasecmp(info->from_addr, e->campaign_address) == 0)
		return "our own mail";
	if (info->x_loop && strcasestr(info->x_loop, e->campaign_address))
		return "mail loop (X-Loop is ours)";
	if (info->is_report)
		return "a bounce or delivery report";
	if (info->auto_submitted)
		return "an automatic reply (Auto-Submitted)";
	if (info->is_bulk_or_list)
		return "list or bulk mail";
	if (info->received_count > 40)
		return "mail loop (too many Received headers)";
	if (!info->from_addr || !*info->from_addr)
		return "no sender address";
	return NULL;
}

/* who: a player's key, STORE_ORGANISER, or "stand-in:KEY" for the
 * password of KEY's stand-in (stand_in.c). */
static bool password_is(struct engine *e, const char *who, const char *typed, char **errstr)
{
	if (strncmp(who, "stand-in:", 9) == 0)
		return store_stand_in_check_password(e->store, who + 9, typed, errstr);
	return store_check_password(e->store, who, typed, errstr);
}

static bool password_ok(struct engine *e, const char *who, const char *typed, char **errstr)
{
	if (!typed)
		return false;
	if (password_is(e, who, typed, errstr))
		return true;
	char *canonical = engine_password_form(typed);
	bool ok = canonical && strcmp(canonical, typed) != 0 && !*errstr &&
		  password_is(e, who, canonical, errstr);
	if (canonical)
		sodium_memzero(canonical, strlen(canonical));
	free(canonical);
	return ok;
}

struct process {
	struct engine *e;
	const struct mail_info *info;
	const char *raw;
	size_t len;
	uint32_t uid;
	int64_t now;
	struct campaign *c;
	struct engine_outcome *out;
	/* The Subject is not read for orders. One that holds orders (a PLAYER
	 * line above all) is never repeated: subject is then NULL and
	 * subject_held_orders is set, so the reply can say so. */
	char *subject;
	bool subject_held_orders;
	bool forwarded; /* the orders came from a forwarded message */
	/* the mail is the player's stand-in's (his address, his password) */
	const struct store_stand_in *stand_in;
};

/* Whether the Subject held orders, and whether it may be repeated (then
 * p->subject is a copy, words shaped like a generated password masked).
 * A Subject of everyday words above a body with orders (`body`) is a
 * phrase, not orders left unapplied. */
static void subject_check(struct process *p, const struct order_set *body)
{
	const char *subject = p->info->subject;
	free(p->subject);
	p->subject = engine_masked_subject(subject, NULL);
	if (!subject || !*subject)
		return;
	struct order_set set;
	orders_parse(subject, p->c, -1, &set);
	bool orders = set.password != NULL || set.organiser;
	for (size_t i = 0; i < set.count; i++)
		if (set.orders[i].kind != ORDER_NONE || set.orders[i].secret)
			orders = true;
	if (engine_subject_is_phrase(&set, body))
		orders = false;
	secrets_note(p->e, &set);
	orders_set_free(&set);
	char *copy = xstrdup(subject);
	bool secret = engine_secrets_mask(p->e, &copy);
	free(copy);
	if (orders || secret) {
		free(p->subject);
		p->subject = NULL;
		p->subject_held_orders = orders;
	}
}

static json_t *base_data(const struct process *p, int player)
{
	json_t *d = json_object();
	json_object_set_new(d, "campaign", json_string(p->c->name ? p->c->name : ""));
	json_object_set_new(d, "campaign_address", json_string(p->e->campaign_address));
	json_object_set_new(d, "year", json_integer(p->c->year));
	json_object_set_new(d, "phase", json_string(campaign_phase_name(p->c->phase)));
	json_object_set_new(d, "organiser_name",
			    json_string(p->c->organiser_name ? p->c->organiser_name : ""));
	if (player >= 0) {
		const struct player *pl = &p->c->players[player];
		json_object_set_new(d, "player", json_string(pl->key));
		json_object_set_new(d, "nation", json_string(pl->nation ? pl->nation : pl->key));
		json_object_set_new(d, "player_name", json_string(pl->name ? pl->name : ""));
	}
	if (p->subject) {
		char *quoted = engine_excerpt(p->subject, ENGINE_EXCERPT_SUBJECT);
		json_object_set_new(d, "subject", json_string(quoted));
		free(quoted);
	}
	if (p->subject_held_orders)
		json_object_set_new(d, "subject_held_orders", json_true());
	return d;
}

/* Queues a rejection to `to` (a registered address) if the limits allow
 * (guard_reject_allowed). */
static int reject(struct process *p, int player, const char *to_addr, const char *to_name,
		  const char *reason_code, const char *reason, json_t *extra, char **errstr)
{
	struct engine_outcome *out = p->out;
	out->verdict = ENGINE_REJECTED;
	free(out->summary);
	out->summary = xstrdup(reason);
	bool allowed = false;
	if (to_addr && guard_reject_allowed(p->e, to_addr, p->info, p->now, &allowed, errstr) != 0) {
		json_decref(extra);
		return -1;
	}
	if (!allowed) {
		json_decref(extra);
		return 0;
	}
	json_t *data = base_data(p, player);
	json_object_set_new(data, "reason", json_string(reason));
	json_object_set_new(data, reason_code, json_true());
	if (extra)
		json_object_update(data, extra);
	json_decref(extra);
	char *token = reply_token("reject", p->raw, p->len, p->uid, p->now);
	char *subject = reply_subject(p->subject, "Your mail to the campaign");
	struct reply r = {to_addr, to_name, subject, "rejected", data, p->info, token,
			  MAIL_AUTO_REPLIED, NULL, 0, NULL, false, 0};
	int rc = engine_queue_mail(p->e, &r, p->c, p->now, &out->reply, errstr);
	free(token);
	free(subject);
	json_decref(data);
	if (rc == 0)
		out->reply_to = xstrdup(to_addr);
	return rc;
}

static char *render_optional(struct engine *e, const char *name, const json_t *data)
{
	char *err = NULL;
	char *text = templates_render(e->templates, name, data, &err);
	free(err);
	return text;
}

static int accept_orders(struct process *p, struct order_set *set, int player, char **errstr)
{
	struct engine *e = p->e;
	struct campaign *c = p->c;
	struct engine_outcome *out = p->out;
	const struct player *pl = &c->players[player];
	int rc = -1;
	char *pending_text = NULL, *merged_text = NULL, *token = NULL, *subject = NULL;
	char *stand_in_note = NULL;
	struct order_set pending, merged;
	orders_set_init(&pending);
	orders_set_init(&merged);
	json_t *data = NULL;
	bool *unused = NULL; /* the lines of a refused report not used */
	struct engine_maps maps = {0};
	struct campaign *after = NULL;
	struct order_set standing;
	orders_set_init(&standing);

	orders_validate(set, c, player);
	bool turn_over = false;
	if (engine_year_orders_too_late(e, c, player, set, &turn_over, errstr) != 0)
		goto done;
	if (engine_stand_in_mail(e, c, player, p->stand_in, set, p->now, &stand_in_note, errstr) !=
	    0)
		goto done;
	if (p->stand_in &&
	    engine_stand_in_diary(e, c, player, p->stand_in, set, p->now, errstr) != 0)
		goto done;
	/* a player joining during play sets up until the next year begins */
	int phase = pl->status == PLAYER_JOINING ? PHASE_SETUP : c->phase;
	if (store_orders_get(e->store, pl->key, c->year, phase, &pending_text, errstr) != STORE_OK)
		goto done;
	if (pending_text)
		orders_parse(pending_text, c, player, &pending);
	orders_merge(&pending, set, &merged);
	merged_text = orders_format_pending(&merged, c);
	if (store_orders_set(e->store, pl->key, c->year, phase, merged_text, p->now, errstr) !=
	    STORE_OK)
		goto done;
	if (turn_over)
		engine_drop_movement(&merged, c, &merged_text);
	bool password_changed = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->kind == ORDER_PASSWORD && o->status == ORDER_OK && o->secret) {
			if (store_set_password(e->store, pl->key, o->secret, errstr) != STORE_OK)
				goto done;
			password_changed = true;
		}
	}

	char *year_note = NULL;
	bool refused = false, for_errors = false;
	if (engine_year_after_orders(e, player, set, p->now, &year_note, &refused, &for_errors,
				     errstr) != 0)
		goto done;
	/* a battle report refused is no line understood: each of its lines
	 * is one in error (the reason is in the year's note); refused for
	 * lines in error, the others are only not used (one count: the lines
	 * in error, as the note says) */
	if (refused)
		unused = engine_ack_refused_report(set, for_errors);
	/* the reply speaks of things as this mail left them: the army where
	 * it stands now, no movement order its own turn carried out */
	if (store_load_campaign(e->store, &after, errstr) != STORE_OK) {
		free(year_note);
		goto done;
	}
	bool over_now = false;
	struct order_set none;
	orders_set_init(&none);
	if (engine_year_orders_too_late(e, after, player, &none, &over_now, errstr) != 0) {
		free(year_note);
		goto done;
	}
	/* his turn carried out by this mail, or the year gone on past it */
	bool carried = !turn_over && c->phase == PHASE_CAMPAIGN &&
		       (over_now || after->phase != c->phase || after->year != c->year);
	if (carried)
		engine_drop_movement(&merged, c, &merged_text);

	out->verdict = ENGINE_ACCEPTED;
	out->order_errors = set->errors;
	out->summary = xasprintf("orders from %s accepted, %zu line%s in error", pl->key,
				 set->errors, set->errors == 1 ? "" : "s");
	out->orders_understood = xstrdup(merged_text);

	/* the year gone on to another phase: what stands now is what was
	 * carried into it */
	bool moved_on = after->phase != c->phase || after->year != c->year;
	if (moved_on) {
		char *t = NULL;
		if (store_orders_get(e->store, pl->key, after->year, after->phase, &t, errstr) !=
		    STORE_OK) {
			free(year_note);
			goto done;
		}
		if (t)
			orders_parse(t, after, player, &standing);
		free(t);
	}
	if (c->phase == PHASE_RECRUITMENT && !moved_on)
		engine_drop_no_move(&merged);
	data = engine_ack_json(set, moved_on ? &standing : &merged, after, player);
	if (moved_on) { /* the phase the mail was taken in */
		json_object_set_new(data, "year", json_integer(c->year));
		json_object_set_new(data, "phase", json_string(campaign_phase_name(c->phase)));
	}
	/* the recruitment this mail completed: its lines as they were paid,
	 * said to be applied, not to come */
	bool recruited = c->phase == PHASE_RECRUITMENT && moved_on;
	if (carried || recruited) {
		/* the lines his turn carried out: costs as they were paid */
		json_t *before = engine_ack_json(set, &merged, c, player);
		engine_ack_lines_as_paid(data, before, set, carried, recruited);
		json_decref(before);
	}
	if (carried)
		engine_ack_moves_done(data, set);
	engine_ack_not_used(data, set, unused);
	engine_ack_replaced(data, &pending, set, &merged, c, player);
	json_t *lines = json_object_get(data, "lines");
	for (size_t i = 0; recruited && i < set->count && i < json_array_size(lines); i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK ||
		    (o->kind != ORDER_RECRUIT && o->kind != ORDER_RETRIEVE_GENERAL &&
		     o->kind != ORDER_DISMISS))
			continue;
		json_t *line = json_array_get(lines, i);
		json_t *notes = json_object_get(line, "costs");
		json_object_set_new(line, "has_costs", json_true());
		char *n = xasprintf("carried out: with your mail the recruitment phase of %d "
				    "was complete and applied (the year's mail says what came of "
				    "it)", c->year);
		if (json_is_array(notes))
			json_array_append_new(notes, json_string(n));
		free(n);
	}
	json_t *base = base_data(p, player);
	json_object_update_missing(data, base);
	json_decref(base);
	json_object_set_new(data, "password_changed", json_boolean(password_changed));
	if (p->forwarded)
		json_object_set_new(data, "forwarded", json_true());
	if (p->info->from_addr && pl->email && strcasecmp(p->info->from_addr, pl->email) != 0 &&
	    !p->stand_in)
		json_object_set_new(data, "sender_address", json_string(p->info->from_addr));
	if (stand_in_note)
		json_object_set_new(data, "stand_in_note", json_string(stand_in_note));
	if (p->stand_in)
		engine_stand_in_ack_data(data, p->stand_in, c);
	for (size_t i = 0; c->phase == PHASE_RECRUITMENT && i < set->count; i++) {
		if (set->orders[i].kind != ORDER_NO_MOVE || set->orders[i].status != ORDER_OK)
			continue;
		char *n = xasprintf("NO MOVE in the recruitment phase means that you recruit "
				    "nothing. It is not kept as your movement order for %d: with "
				    "none sent by your turn's deadline, your turn of %d is NO MOVE "
				    "by default.", c->year + 1, c->year + 1);
		char *both = year_note ? xasprintf("%s %s", year_note, n) : xstrdup(n);
		free(n);
		free(year_note);
		year_note = both;
		break;
	}
	if (year_note)
		json_object_set_new(data, "year_note", json_string(year_note));
	free(year_note);
	/* a battle report is taken whole or not at all */
	engine_ack_battle(data, set, refused);
	bool only_asks = engine_ack_asked(data, set, c, player);
	/* what happens next; the rules of resubmission in full on the
	 * player's first acknowledgement of the year, a pointer after */
	json_t *next = NULL;
	if (engine_whats_next_in(e, player, p->now, &next, errstr) != 0)
		goto done;
	json_object_set_new(data, "next", next);
	char *seen_key = xasprintf("ack-rules-shown:%s:%d", pl->key, c->year);
	char *seen = NULL;
	int kv = store_kv_get(e->store, seen_key, &seen, errstr);
	if (kv == STORE_OK && !seen)
		kv = store_kv_set(e->store, seen_key, "1", errstr);
	bool first_of_year = !seen;
	free(seen);
	free(seen_key);
	if (kv != STORE_OK)
		goto done;
	if (first_of_year)
		json_object_set_new(data, "resubmission_in_full", json_true());
	json_object_set_new(data, "error_lines",
			    json_string(set->errors == 1 ? "1 line" : ""));
	if (set->errors != 1) {
		char *t = xasprintf("%zu lines", set->errors);
		json_object_set_new(data, "error_lines", json_string(t));
		free(t);
	}
	if (set->wants_help) {
		char *help = render_optional(e, "help", data);
		if (help)
			json_object_set_new(data, "help_text", json_string(help));
		free(help);
	}
	if (set->wants_status) {
		/* as things stand after this mail (the year may have moved on) */
		json_t *own = engine_player_status(e, player, p->now, errstr);
		if (!own)
			goto done;
		json_t *sd = json_deep_copy(data);
		json_object_update(sd, own);
		json_decref(own);
		char *status = render_optional(e, "status", sd);
		json_decref(sd);
		if (status)
			json_object_set_new(data, "status_text", json_string(status));
		free(status);
	}
	if (set->wants_map) {
		struct campaign *now_c = NULL;
		if (store_load_campaign(e->store, &now_c, errstr) != STORE_OK)
			goto done;
		engine_maps_build(e->store, now_c, now_c->year, NULL, &maps);
		campaign_free(now_c);
		char *names = engine_maps_names(&maps);
		json_object_set_new(data, "map_attached", json_string(names));
		free(names);
	}
	const char *ack_to = p->stand_in ? p->stand_in->address : pl->email;
	const char *ack_name = p->stand_in ? p->stand_in->name : pl->name;
	if (!guard_reply_allowed(e, ack_to, p->now, errstr)) {
		if (*errstr)
			goto done;
		free(out->summary);
		out->summary = xasprintf("orders from %s accepted; no reply (rate limit)", pl->key);
		rc = 0;
		goto done;
	}
	token = reply_token("ack", p->raw, p->len, p->uid, p->now);
	subject = reply_subject(p->subject, only_asks ? "Your request" : "Your orders");
	struct reply r = {ack_to, ack_name, subject, "ack", data, p->info, token,
			  MAIL_AUTO_REPLIED, maps.att, maps.count, NULL, false, 0};
	/* the year's mails this mail caused for him follow in the reply */
	if (engine_fold_reply(e, &r, c, p->now, &out->reply, errstr) != 0)
		goto done;
	out->reply_to = xstrdup(ack_to);
	/* the player sees every order given in his name */
	if (p->stand_in && engine_stand_in_ack_player(e, c, player, &r, p->now, errstr) != 0)
		goto done;
	rc = 0;
done:
	free(unused);
	free(stand_in_note);
	engine_maps_free(&maps);
	campaign_free(after);
	json_decref(data);
	free(token);
	free(subject);
	free(pending_text);
	free(merged_text);
	orders_set_free(&pending);
	orders_set_free(&merged);
	orders_set_free(&standing);
	return rc;
}

/* An authenticated organiser mail: its orders are carried out and the organiser
 * gets what was done (or refused) back, the news of it under it (engine_fold.c). */
static int organiser_orders(struct process *p, struct order_set *set, char **errstr)
{
	struct engine *e = p->e;
	struct campaign *c = p->c;
	struct engine_outcome *out = p->out;
	char *report = NULL;
	if (engine_year_organiser_mail(e, set, p->now, &report, errstr) != 0)
		return -1;
	out->summary = xstrdup("organiser orders carried out");
	json_t *data = base_data(p, -1);
	json_object_set_new(data, "report", json_string(report));
	free(report);
	/* a mail that only asks for a preview is answered as that */
	bool preview = false, other = false;
	for (size_t i = 0; i < set->count; i++) {
		enum order_kind k = set->orders[i].kind;
		preview |= k == ORDER_ORG_PREVIEW && set->orders[i].status == ORDER_OK;
		other |= set->orders[i].status != ORDER_IGNORED && k != ORDER_ORG_PREVIEW &&
			 k != ORDER_ORGANISER && k != ORDER_PLAYER && k != ORDER_END;
	}
	json_object_set_new(data, "only_preview", json_boolean(preview && !other));
	/* what happens next, once after all the lines */
	json_t *next = NULL;
	if (engine_whats_next_in(e, -1, p->now, &next, errstr) != 0) {
		json_decref(data);
		return -1;
	}
	json_object_set_new(data, "next", next);
	int rc = 0;
	if (c->organiser_email) {
		char *token = reply_token("org", p->raw, p->len, p->uid, p->now);
		char *subject = reply_subject(p->subject, preview && !other ? "Your preview"
									     : "Your organiser orders");
		struct reply r = {c->organiser_email, c->organiser_name, subject, "organiser-reply",
				  data, p->info, token, MAIL_AUTO_REPLIED, NULL, 0, NULL, true, 0};
		rc = engine_fold_organiser_reply(e, &r, c, p->now, &out->reply, errstr);
		if (rc == 0)
			out->reply_to = xstrdup(c->organiser_email);
		free(token);
		free(subject);
	}
	json_decref(data);
	return rc;
}

/* A human size: "3.2 MB", "850 kB". */
static char *size_text(size_t bytes)
{
	if (bytes >= 1024 * 1024)
		return xasprintf("%.1f MB", (double)bytes / (1024.0 * 1024.0));
	return xasprintf("%zu kB", (bytes + 1023) / 1024);
}

/* Unreadable mail from a known address: a rejection that says why. */
static int reject_unreadable(struct process *p, int by_addr, const struct player *known,
			     char **errstr)
{
	struct engine *e = p->e;
	const struct mail_info *info = p->info;
	struct campaign *c = p->c;
	json_t *extra = NULL;
	char *reason;
	const char *code = "unreadable";
	if (strcmp(info->refusal, "message too large") == 0) {
		char *size = size_text(p->len), *limit = size_text(e->limits.max_bytes);
		reason = xasprintf("your mail is %s, and the campaign reads mails of up to %s",
				   size, limit);
		extra = json_object();
		json_object_set_new(extra, "size", json_string(size));
		json_object_set_new(extra, "limit", json_string(limit));
		code = "too_large";
		free(size);
		free(limit);
	} else {
		reason = xasprintf("your mail could not be read: %s", info->refusal);
	}
	int rc = reject(p, by_addr, known ? known->email : c->organiser_email,
			known ? known->name : c->organiser_name, code, reason, extra, errstr);
	free(reason);
	return rc;
}

enum password_check { PASSWORD_RIGHT, PASSWORD_WRONG, PASSWORD_WAIT };

/* Checks who's password (a player key or STORE_ORGANISER, registered at
 * `registered`) through the guessing guard: while the mail's class waits
 * after a run of wrong passwords the password is not even looked at
 * (*until says until when). Returns 0, or -1 with *errstr. */
static int check_password(struct process *p, const char *who, const char *registered,
			  const char *typed, enum password_check *result, int64_t *until,
			  char **errstr)
{
	const char *from = p->info->from_addr;
	bool own = registered && from && strcasecmp(registered, from) == 0;
	if (guard_password_wait(p->e, who, own, p->now, until, errstr) != 0)
		return -1;
	if (*until) {
		*result = PASSWORD_WAIT;
		return 0;
	}
	bool ok = password_ok(p->e, who, typed, errstr);
	if (*errstr)
		return -1;
	*result = ok ? PASSWORD_RIGHT : PASSWORD_WRONG;
	return ok ? guard_password_right(p->e, who, own, errstr)
		  : guard_password_wrong(p->e, p->c, who, own, from, p->now, errstr);
}

/* The refusal of a mail that came while its class waits. */
static int reject_waiting(struct process *p, int player, const char *to_addr, const char *to_name,
			  const char *whose, int64_t until, char **errstr)
{
	char when[64];
	timefmt_local(until, p->c->timezone, when, sizeof when);
	char *reason = xasprintf("too many wrong passwords for %s came in a row, so for a while "
				 "no password is checked: this mail was not read; send it again "
				 "after %s", whose, when);
	json_t *extra = json_pack("{ss}", "wait_until", when);
	int rc = reject(p, player, to_addr, to_name, "password_wait", reason, extra, errstr);
	free(reason);
	return rc;
}

static bool wants_new_password(const struct order_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->orders[i].kind == ORDER_FORGOT_PASSWORD &&
		    set->orders[i].status == ORDER_OK)
			return true;
	return false;
}

/* FORGOT PASSWORD from the player's registered address (engine_forgot.c);
 * the usual reply budget applies. */
static int forgot_password(struct process *p, int player, char **errstr)
{
	const struct player *pl = &p->c->players[player];
	free(p->out->player);
	p->out->player = xstrdup(pl->key);
	if (!guard_reply_allowed(p->e, pl->email, p->now, errstr)) {
		if (*errstr)
			return -1;
		p->out->verdict = ENGINE_REJECTED;
		p->out->summary = xasprintf("FORGOT PASSWORD from %s; no reply (rate limit)", pl->key);
		return 0;
	}
	json_t *data = base_data(p, player);
	char *token = reply_token("forgot", p->raw, p->len, p->uid, p->now);
	int rc = engine_forgot_password(p->e, p->c, player, data, p->info, token, p->now, p->out,
					errstr);
	free(token);
	json_decref(data);
	return rc;
}

/* The own text held no PLAYER or ORGANISER line: the first forwarded or
 * earlier message in the mail whose PLAYER (or ORGANISER) line has the
 * right password gives the orders. Returns 1 and fills *set if one does, 0
 * if none, -1 on a store error. */
static int forwarded_orders(struct process *p, struct order_set *set, char **errstr)
{
	for (size_t i = 0; i < p->info->earlier_count; i++) {
		struct order_set fwd;
		orders_parse(p->info->earlier[i], p->c, -1, &fwd);
		secrets_note(p->e, &fwd);
		bool ok = false;
		if (fwd.organiser)
			ok = password_ok(p->e, STORE_ORGANISER, fwd.password, errstr);
		else if (fwd.player >= 0)
			ok = password_ok(p->e, p->c->players[fwd.player].key, fwd.password, errstr);
		if (*errstr) {
			orders_set_free(&fwd);
			return -1;
		}
		if (ok) {
			orders_set_free(set);
			*set = fwd;
			return 1;
		}
		orders_set_free(&fwd);
	}
	return 0;
}

/* A PLAYER line in a mail from the address of that player's stand-in (the
 * latest one named, lasting or not): the stand-in's own password is
 * checked, under a guessing guard of its own ("stand-in:KEY"); every
 * answer goes to the stand-in's address. Returns 1 when the mail was his,
 * 0 when it is not from his address, -1 on a database error. */
static int stand_in_sender(struct process *p, struct order_set *set, char **errstr)
{
	const struct player *pl = &p->c->players[set->player];
	const char *from = p->info->from_addr;
	struct store_stand_in si;
	bool found = false;
	if (p->forwarded || !from)
		return 0;
	if (store_stand_in_get(p->e->store, pl->key, &si, &found, errstr) != STORE_OK)
		return -1;
	if (!found || strcasecmp(si.address, from) != 0) {
		store_stand_in_free(&si);
		return 0;
	}
	free(p->out->player);
	p->out->player = xstrdup(pl->key);
	char *who = xasprintf("stand-in:%s", pl->key), *whose = NULL;
	enum password_check pw = PASSWORD_WRONG;
	int64_t until = 0;
	int rc = check_password(p, who, si.address, set->password, &pw, &until, errstr);
	if (rc == 0 && pw == PASSWORD_WAIT) {
		whose = xasprintf("the stand-in for %s", pl->nation ? pl->nation : pl->key);
		rc = reject_waiting(p, set->player, si.address, si.name, whose, until, errstr);
	} else if (rc == 0 && pw == PASSWORD_WRONG) {
		rc = reject(p, set->player, si.address, si.name, "wrong_password",
			    "wrong password: nothing was changed", NULL, errstr);
	} else if (rc == 0 && engine_stand_in_lasts(&si, p->now)) {
		p->out->authenticated = true;
		p->stand_in = &si;
		rc = accept_orders(p, set, set->player, errstr);
		p->stand_in = NULL;
	} else if (rc == 0) {
		whose = engine_stand_in_ended_reason(&si, p->c);
		rc = reject(p, set->player, si.address, si.name, "stand_in_ended", whose, NULL,
			    errstr);
	}
	free(whose);
	free(who);
	store_stand_in_free(&si);
	return rc == 0 ? 1 : -1;
}

static int apply_mail(struct process *p, char **errstr)
{
	struct engine *e = p->e;
	const struct mail_info *info = p->info;
	struct engine_outcome *out = p->out;
	struct campaign *c = p->c;

	const char *loop = loop_reason(e, info);
	if (loop) {
		out->verdict = ENGINE_IGNORED;
		out->summary = xstrdup(loop);
		return 0;
	}
	if (info->auto_reply) {
		out->verdict = ENGINE_IGNORED;
		out->summary = xasprintf("an automatic reply (%s)", info->auto_reply);
		return 0;
	}
	int by_addr = player_by_address(c, info->from_addr);
	bool organiser_addr = c->organiser_email && info->from_addr &&
			      strcasecmp(c->organiser_email, info->from_addr) == 0;
	const struct player *known = by_addr >= 0 ? &c->players[by_addr] : NULL;

	struct order_set set;
	orders_parse(info->refusal ? "" : info->text, c, -1, &set);
	secrets_note(e, &set);
	int rc = 0;
	if (set.player < 0 && !set.organiser) {
		rc = forwarded_orders(p, &set, errstr);
		if (rc < 0) {
			orders_set_free(&set);
			return -1;
		}
		p->forwarded = rc == 1;
		rc = 0;
	}

	if (set.player < 0 && !set.organiser && info->maybe_auto_reply) {
		/* an out-of-office reply without Auto-Submitted: no answer */
		orders_set_free(&set);
		out->verdict = ENGINE_IGNORED;
		out->summary = xasprintf("an automatic reply (%s) without a PLAYER line",
					 info->maybe_auto_reply);
		return 0;
	}
	if (info->refusal && !p->forwarded) {
		orders_set_free(&set);
		if (!known && !organiser_addr) {
			out->verdict = ENGINE_IGNORED;
			out->summary = xasprintf("unknown sender, unreadable mail (%s)", info->refusal);
			return 0;
		}
		return reject_unreadable(p, by_addr, known, errstr);
	}

	/* after the orders, so that every password of the mail is known */
	subject_check(p, &set);
	enum password_check pw = PASSWORD_WRONG;
	int64_t until = 0;
	if (set.organiser) {
		if (check_password(p, STORE_ORGANISER, c->organiser_email, set.password, &pw, &until,
				   errstr) != 0) {
			rc = -1;
		} else if (pw == PASSWORD_WAIT) {
			rc = reject_waiting(p, -1, c->organiser_email, c->organiser_name,
					    "the organiser", until, errstr);
		} else if (pw == PASSWORD_WRONG) {
			rc = reject(p, -1, c->organiser_email, c->organiser_name, "wrong_password",
				    "wrong organiser password: nothing was changed", NULL, errstr);
		} else {
			out->verdict = ENGINE_ACCEPTED;
			out->organiser = out->authenticated = true;
			rc = organiser_orders(p, &set, errstr);
		}
	} else if (set.player < 0) {
		if (!known) {
			out->verdict = ENGINE_IGNORED;
			out->summary = xstrdup("unknown sender and no valid PLAYER line");
		} else if (wants_new_password(&set)) {
			rc = forgot_password(p, by_addr, errstr);
		} else {
			json_t *extra = json_object();
			json_object_set_new(extra, "lines", engine_ack_json(&set, &set, c, by_addr));
			if (info->stop_line > 0) {
				json_object_set_new(extra, "stop_line", json_integer(info->stop_line));
				json_object_set_new(extra, "stop_why", json_string(info->stop_why));
			}
			if (info->earlier_count > 0)
				json_object_set_new(extra, "had_forwarded", json_true());
			char *reason =
				info->stop_line > 0
					? xasprintf("no PLAYER line with your nation and password "
						    "above line %d, where reading stopped: nothing "
						    "was changed",
						    info->stop_line)
					: xstrdup("no PLAYER line with your nation and password: "
						  "nothing was changed");
			rc = reject(p, by_addr, known->email, known->name, "no_player_line", reason,
				    extra, errstr);
			free(reason);
		}
	} else if ((rc = stand_in_sender(p, &set, errstr)) != 0) {
		rc = rc > 0 ? 0 : -1;
	} else {
		const struct player *pl = &c->players[set.player];
		free(out->player);
		out->player = xstrdup(pl->key);
		int checked = 0;
		if (p->forwarded)
			pw = PASSWORD_RIGHT; /* forwarded_orders checked it */
		else
			checked = check_password(p, pl->key, pl->email, set.password, &pw, &until,
						 errstr);
		if (checked != 0) {
			rc = -1;
		} else if (pw == PASSWORD_WAIT) {
			rc = reject_waiting(p, set.player, pl->email, pl->name,
					    pl->nation ? pl->nation : pl->key, until, errstr);
		} else if (pw == PASSWORD_WRONG) {
			/* the reply goes to the registered address, never to the sender */
			rc = reject(p, set.player, pl->email, pl->name, "wrong_password",
				    "wrong password: nothing was changed", NULL, errstr);
		} else {
			out->authenticated = true;
			rc = accept_orders(p, &set, set.player, errstr);
		}
	}
	orders_set_free(&set);
	return rc;
}

int engine_process_mail(struct engine *e, uint32_t uidvalidity, uint32_t uid, const char *raw,
			size_t len, int64_t now, bool dry_run, struct engine_outcome *out,
			char **errstr)
{
	struct mail_info info;
	struct campaign *c = NULL;
	char *msgid = NULL;
	int rc = -1;
	memset(out, 0, sizeof *out);
	mail_read(raw, len, &e->limits, &info);
	/* for logs and check-mail: excerpts, whatever the mail holds */
	out->sender = info.from_addr ? engine_excerpt(info.from_addr, 254) : NULL;
	out->message_id = info.message_id ? engine_excerpt(info.message_id, 250) : NULL;
	if (info.message_id)
		msgid = engine_stored_message_id(info.message_id);
	char *sender = info.from_addr ? engine_excerpt(info.from_addr, 254) : NULL;

	/* Inside a group (engine_batch_begin): a savepoint of its own, so
	 * that this mail fails alone; else a transaction of its own. */
	bool grouped = store_in_transaction(e->store), held = false;
	bool publish_was_due = e->publish_due;
	if ((grouped ? store_savepoint(e->store, errstr) : store_begin(e->store, errstr)) !=
	    STORE_OK)
		goto out_free;
	held = engine_fold_mail_begin(e, grouped, now); /* to the group's end */
	bool seen = false;
	if (store_inbound_seen(e->store, e->mailbox, uidvalidity, uid, msgid, &seen, errstr) !=
	    STORE_OK)
		goto fail;
	if (seen) {
		out->verdict = ENGINE_DUPLICATE;
		out->summary = xstrdup("already processed (same UID or Message-ID)");
	} else {
		if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
			goto fail;
		struct process p = {e, &info, raw, len, uid, now, c, out, NULL, false, false, NULL};
		/* the year's mails it causes: one a person (engine_fold.c) */
		if (!held)
			engine_fold_begin(e, now);
		int applied = apply_mail(&p, errstr);
		free(p.subject);
		if (applied == 0 && !held)
			applied = engine_fold_flush(e, errstr);
		if (!held)
			engine_fold_end(e);
		if (applied != 0)
			goto fail;
		struct store_inbound row = {
			.mailbox = e->mailbox,
			.uidvalidity = uidvalidity,
			.uid = uid,
			.message_id = msgid,
			.sender = sender,
			.received_at = now,
			.status = engine_verdict_name(out->verdict),
			.summary = out->summary,
		};
		bool dup = false;
		if (store_inbound_record(e->store, &row, &dup, errstr) != STORE_OK)
			goto fail;
	}
	if (uid && engine_mailbox_advance(e, uidvalidity, uid, errstr) != 0)
		goto fail;
	if (dry_run) {
		if (grouped)
			store_rollback_savepoint(e->store);
		else
			store_rollback(e->store);
		e->publish_due = publish_was_due;
		rc = 0;
	} else if (grouped) {
		rc = store_release(e->store, errstr) == STORE_OK ? 0 : -1;
		if (rc != 0)
			e->publish_due = publish_was_due;
	} else {
		rc = store_commit(e->store, errstr) == STORE_OK ? 0 : -1;
	}
	goto out_free;
fail:
	if (grouped)
		store_rollback_savepoint(e->store);
	else
		store_rollback(e->store);
	e->publish_due = grouped && store_in_transaction(e->store) ? publish_was_due : false;
out_free:
	engine_fold_mail_end(e, rc == 0 && !dry_run);
	if (rc != 0)
		engine_outcome_free(out); /* nothing happened: nothing to report */
	campaign_free(c);
	free(msgid);
	free(sender);
	mail_info_free(&info);
	engine_secrets_clear(e);
	if (rc == 0 && !grouped) {
		char *perr = NULL;
		engine_publish_if_due(e, &perr);
		free(perr);
	}
	return rc;
}
