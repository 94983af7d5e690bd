/* The engine's side of the campaign year: loads the campaign and the year's
 * state, lets the pure state machine (year.c) act, and stores what it did:
 * events, mail, the campaign state, the year state, the dice position and a
 * snapshot before each step — all inside the caller's transaction. */
#include "config.h"

#include "model/campaign_json.h"
#include "dbm/diary.h"
#include "engine/engine.h"
#include "engine/engine_p.h"
#include "base/log.h"
#include "text/map_svg.h"
#include "engine/publish.h"
#include "dbm/rules.h"
#include "text/templates.h"
#include "base/timefmt.h"
#include "dbm/year.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KV_MASTER_SEED "dice-master-seed"
#define KV_LAST_RUN "daemon-last-run"
#define KV_MAIL_SEQ "year-mail-seq"
#define WHY_MAX 512

struct overlay {
	int player, year, phase;
	char *text;
};

/* One use of the state machine. */
struct yctx {
	struct engine *e;
	struct campaign *c;
	struct year_state st;
	struct dice_hmac dice;
	struct store_dice_year dy; /* the row of the dice in use */
	bool have_dice;
	struct event_log log;
	size_t stored;             /* log events already in the store */
	struct year_io io;
	struct year_run run;
	size_t mails_done;         /* mail requests already queued */
	int64_t now;
	char *err;                 /* the first failure met in a callback */
	bool dry;                  /* a preview: writes nothing */
	unsigned long mail_seq;
	char tag[17];              /* names the campaign in Message-IDs */
	struct overlay *overlay;   /* dry: orders carried over, in memory */
	size_t n_overlay, cap_overlay;
	struct strbuf preview;     /* dry: the mail it would send */
};

static void set_err(struct yctx *y, char *err)
{
	if (!y->err)
		y->err = err ? err : xstrdup("failed");
	else
		free(err);
}

/* ---------------------------------------------------------------- callbacks */

static char *cb_orders_load(void *ctx, int player, int year, int phase)
{
	struct yctx *y = ctx;
	for (size_t i = y->n_overlay; i-- > 0;) {
		struct overlay *o = &y->overlay[i];
		if (o->player == player && o->year == year && o->phase == phase)
			return xstrdup(o->text);
	}
	char *text = NULL, *err = NULL;
	if (store_orders_get(y->e->store, y->c->players[player].key, year, phase, &text, &err) !=
	    STORE_OK)
		set_err(y, err);
	return text;
}

static void cb_orders_save(void *ctx, int player, int year, int phase, const char *text)
{
	struct yctx *y = ctx;
	if (y->dry) {
		grow_array((void **)&y->overlay, &y->cap_overlay, y->n_overlay + 1,
			   sizeof *y->overlay);
		y->overlay[y->n_overlay++] = (struct overlay){player, year, phase, xstrdup(text)};
		return;
	}
	char *err = NULL;
	if (store_orders_set(y->e->store, y->c->players[player].key, year, phase, text, y->now,
			     &err) != STORE_OK)
		set_err(y, err);
}

static int flush(struct yctx *y);

static json_t *cb_year_events(void *ctx, int year)
{
	struct yctx *y = ctx;
	json_t *events = NULL;
	char *err = NULL;
	if (!y->dry)
		flush(y);
	if (store_events(y->e->store, year, &events, &err) != STORE_OK) {
		set_err(y, err);
		events = json_array();
	}
	if (y->dry)
		for (size_t i = 0; i < y->log.count; i++)
			if (json_integer_value(json_object_get(y->log.events[i], "year")) == year)
				json_array_append(events, y->log.events[i]);
	return events;
}

static char *dumps(json_t *doc)
{
	char *s = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return s ? s : xstrdup("null");
}

static void cb_checkpoint(void *ctx, const char *step)
{
	struct yctx *y = ctx;
	if (y->dry)
		return;
	flush(y);
	struct store_snapshot snap = {
		.step = (char *)step,
		.taken_at = y->now,
		.campaign = dumps(campaign_to_json(y->c)),
		.year_state = dumps(year_state_to_json(&y->st, y->c)),
		.dice_year = y->have_dice ? y->dy.year : y->c->year,
		.dice_counter = y->have_dice ? y->dice.base.counter : 0,
	};
	char *err = NULL;
	if (store_snapshot_add(y->e->store, &snap, NULL, &err) != STORE_OK)
		set_err(y, err);
	free(snap.campaign);
	free(snap.year_state);
}

/* The seed of a year: derived from the master seed when the organiser gave
 * one (tests, replays), else random. */
static void year_seed(struct yctx *y, int year, unsigned char seed[DICE_SEED_BYTES])
{
	char *master_hex = NULL;
	unsigned char master[DICE_SEED_BYTES];
	if (!y->dry && store_kv_get(y->e->store, KV_MASTER_SEED, &master_hex, NULL) == STORE_OK &&
	    master_hex && dice_seed_from_hex(master_hex, master)) {
		char *msg = xasprintf("year|%d", year);
		crypto_auth_hmacsha256_state st;
		crypto_auth_hmacsha256_init(&st, master, sizeof master);
		crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, strlen(msg));
		crypto_auth_hmacsha256_final(&st, seed);
		free(msg);
		sodium_memzero(master, sizeof master);
	} else {
		randombytes_buf(seed, DICE_SEED_BYTES);
	}
	free(master_hex);
}

static const char *cb_new_year_dice(void *ctx, int year)
{
	struct yctx *y = ctx;
	unsigned char seed[DICE_SEED_BYTES];
	struct store_dice_year row;
	memset(&row, 0, sizeof row);
	char *err = NULL;
	int rc = y->dry ? STORE_NOTFOUND : store_dice_year_get(y->e->store, year, &row, &err);
	free(err);
	err = NULL;
	/* a year begun again after an undo keeps its seed: no fishing for dice */
	if (rc == STORE_OK && !row.revealed && dice_seed_from_hex(row.seed_hex, seed)) {
	} else {
		year_seed(y, year, seed);
		sodium_bin2hex(row.seed_hex, sizeof row.seed_hex, seed, sizeof seed);
	}
	row.year = year;
	row.counter = 0;
	row.revealed = false;
	dice_commitment(seed, row.commitment);
	dice_hmac_clear(&y->dice);
	dice_hmac_init(&y->dice, seed, year, PHASE_CAMPAIGN, 0);
	sodium_memzero(seed, sizeof seed);
	y->dy = row;
	y->have_dice = true;
	if (!y->dry && store_dice_year_put(y->e->store, &row, &err) != STORE_OK)
		set_err(y, err);
	return y->dy.commitment;
}

static void cb_reveal_dice(void *ctx, int year)
{
	struct yctx *y = ctx;
	if (y->dry)
		return;
	struct store_dice_year row;
	char *err = NULL;
	if (store_dice_year_get(y->e->store, year, &row, &err) != STORE_OK) {
		set_err(y, err);
		return;
	}
	if (y->have_dice && y->dy.year == year) {
		row.counter = y->dice.base.counter;
		y->dy.revealed = true;
	}
	row.revealed = true;
	if (store_dice_year_put(y->e->store, &row, &err) != STORE_OK)
		set_err(y, err);
	event_emit(&y->log, "dice_revealed", RULE_GAME_YEAR, "{s:i, s:s, s:s, s:I}", "dice_year",
		   year, "seed", row.seed_hex, "commitment", row.commitment, "rolls",
		   (json_int_t)row.counter);
}

/* ---------------------------------------------------------------- mail */

static json_t *base_data(struct yctx *y, int player)
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
};

static int queue_one(struct yctx *y, const char *tpl, const char *subject, json_t *data,
		     int player, const char *addr, const char *name, const struct mail_extras *x)
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
	json_t *base = base_data(y, player);
	json_object_update_missing(d, base);
	json_decref(base);
	char *token = xasprintf("year.%s.%lu.%d", y->tag, ++y->mail_seq, y->c->year);
	struct reply r = {addr, name, subject, tpl, d, NULL, token, MAIL_AUTO_GENERATED,
			  x ? x->attachments : NULL, x ? x->n_attachments : 0,
			  x ? x->html_template : NULL};
	char *err = NULL;
	int rc = engine_queue_mail(y->e, &r, y->c->name, y->now, NULL, &err);
	if (rc != 0)
		set_err(y, err);
	free(token);
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
	/* the map as it stands goes with the turn's mail and the diary */
	struct mail_extras x = {0};
	struct mail_attachment map_att;
	char *map = NULL;
	if (tpl && (strcmp(tpl, "your-turn") == 0 || strcmp(tpl, "turn-report") == 0 ||
		    strcmp(tpl, "diary") == 0)) {
		map = map_svg(c, NULL);
		map_att = (struct mail_attachment){"map.svg", "image/svg+xml",
						   (const unsigned char *)map, strlen(map)};
		x.attachments = &map_att;
		x.n_attachments = 1;
	}
	if (tpl && strcmp(tpl, "diary") == 0)
		x.html_template = "diary-html";
	bool organiser_reached = false;
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (!rcpt[p] || !pl->email || !*pl->email)
			continue;
		if (c->organiser_email && strcasecmp(c->organiser_email, pl->email) == 0)
			organiser_reached = true;
		if (queue_one(y, tpl, subject, data, (int)p, pl->email, pl->name, &x) != 0)
			break;
	}
	if (org && !organiser_reached && c->organiser_email && *c->organiser_email)
		queue_one(y, tpl, subject, data, NO_INDEX, c->organiser_email, c->organiser_name,
			  &x);
	free(map);
	json_decref(diary);
	free(rcpt);
}

/* Stores the new events and queues the new mail requests. */
static int flush(struct yctx *y)
{
	if (y->dry) {
		for (; y->mails_done < json_array_size(y->run.mails); y->mails_done++)
			queue_request(y, json_array_get(y->run.mails, y->mails_done));
		return y->err ? -1 : 0;
	}
	for (; y->stored < y->log.count && !y->err; y->stored++) {
		char *err = NULL;
		if (store_append_event(y->e->store, y->log.events[y->stored], NULL, &err) != STORE_OK)
			set_err(y, err);
	}
	for (; y->mails_done < json_array_size(y->run.mails) && !y->err; y->mails_done++)
		queue_request(y, json_array_get(y->run.mails, y->mails_done));
	return y->err ? -1 : 0;
}

/* ---------------------------------------------------------------- open, save, close */

static void yctx_free(struct yctx *y)
{
	year_run_free(&y->run);
	year_state_free(&y->st);
	event_log_free(&y->log);
	dice_hmac_clear(&y->dice);
	campaign_free(y->c);
	for (size_t i = 0; i < y->n_overlay; i++)
		free(y->overlay[i].text);
	free(y->overlay);
	strbuf_free(&y->preview);
	free(y->err);
	memset(y, 0, sizeof *y);
}

/* Inside a transaction: the campaign, the year state and the dice. */
static int yctx_open(struct yctx *y, struct engine *e, int64_t now, bool dry, char **errstr)
{
	memset(y, 0, sizeof *y);
	y->e = e;
	y->now = now;
	y->dry = dry;
	if (store_load_campaign(e->store, &y->c, errstr) != STORE_OK)
		return -1;
	char *text = NULL;
	if (store_year_state_get(e->store, &text, errstr) != STORE_OK)
		return -1;
	if (text) {
		json_error_t jerr;
		json_t *doc = json_loads(text, 0, &jerr);
		free(text);
		if (!doc || year_state_from_json(&y->st, doc, y->c, errstr) != 0) {
			if (!doc)
				*errstr = xasprintf("%s: the year state is not JSON: %s",
						    store_path(e->store), jerr.text);
			json_decref(doc);
			return -1;
		}
		json_decref(doc);
	} else {
		year_state_init(&y->st);
	}
	unsigned char seed[DICE_SEED_BYTES];
	memset(seed, 0, sizeof seed);
	if (store_dice_year_get(e->store, y->c->year, &y->dy, NULL) == STORE_OK &&
	    dice_seed_from_hex(y->dy.seed_hex, seed))
		y->have_dice = true;
	/* a preview must not show the real dice before they are rolled */
	if (dry)
		randombytes_buf(seed, sizeof seed);
	dice_hmac_init(&y->dice, seed, y->c->year, y->c->phase, y->have_dice ? y->dy.counter : 0);
	sodium_memzero(seed, sizeof seed);
	event_log_init(&y->log);
	event_log_set_time(&y->log, y->c->year, y->c->phase);
	char *seq = NULL;
	if (store_kv_get(e->store, KV_MAIL_SEQ, &seq, errstr) != STORE_OK)
		return -1;
	y->mail_seq = seq ? strtoul(seq, NULL, 10) : 0;
	free(seq);
	/* two campaigns sharing a mail domain never make the same Message-ID */
	unsigned char hash[8];
	char *who = xasprintf("%s|%s", e->campaign_address, y->c->name ? y->c->name : "");
	crypto_generichash(hash, sizeof hash, (const unsigned char *)who, strlen(who), NULL, 0);
	free(who);
	sodium_bin2hex(y->tag, sizeof y->tag, hash, sizeof hash);
	y->io = (struct year_io){y, cb_orders_load, cb_orders_save, cb_year_events, cb_checkpoint,
				 cb_new_year_dice, cb_reveal_dice};
	year_run_init(&y->run, y->c, &y->st, &y->dice.base, &y->log, now, &y->io);
	return 0;
}

/* Stores everything: events, mail, the campaign, the year, the dice. */
static int yctx_save(struct yctx *y, char **errstr)
{
	if (flush(y) != 0 || y->dry) {
		if (y->err) {
			*errstr = y->err;
			y->err = NULL;
			return -1;
		}
		return 0;
	}
	struct store *s = y->e->store;
	for (size_t i = 0; i < json_array_size(y->run.mails); i++) {
		const char *tpl = json_string_value(
			json_object_get(json_array_get(y->run.mails, i), "template"));
		if (tpl && (strcmp(tpl, "turn-report") == 0 || strcmp(tpl, "diary") == 0))
			y->e->publish_due = true;
	}
	char *state = dumps(year_state_to_json(&y->st, y->c));
	char buf[32];
	snprintf(buf, sizeof buf, "%lu", y->mail_seq);
	int rc = -1;
	if (store_save_state(s, y->c, errstr) == STORE_OK &&
	    store_year_state_set(s, state, y->now, errstr) == STORE_OK &&
	    store_kv_set(s, KV_MAIL_SEQ, buf, errstr) == STORE_OK) {
		rc = 0;
		if (y->have_dice) {
			y->dy.counter = y->dice.base.counter;
			if (store_dice_year_put(s, &y->dy, errstr) != STORE_OK)
				rc = -1;
		}
	}
	free(state);
	return rc;
}

/* Runs fn in a write transaction. fn returns 0 (commit), 1 (refused: roll
 * back, *report says why) or -1 (error). */
static int in_transaction(struct engine *e, int (*fn)(struct engine *, void *, char **, char **),
			  void *arg, char **report, char **errstr)
{
	if (store_begin(e->store, errstr) != STORE_OK)
		return -1;
	int rc = fn(e, arg, report, errstr);
	if (rc != 0) {
		store_rollback(e->store);
		e->publish_due = false;
		return rc;
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

int engine_publish_if_due(struct engine *e, char **errstr)
{
	if (!e->publish_due)
		return 0;
	e->publish_due = false;
	if (!e->publish_dir)
		return 0;
	char *err = NULL;
	if (publish_site(e->store, e->publish_dir, e->templates, &err) != 0) {
		log_warn("the web diary was not written into %s: %s (it is written again after "
			 "the next turn)", e->publish_dir, err ? err : "failed");
		if (errstr)
			*errstr = err;
		else
			free(err);
		return -1;
	}
	log_info("the web diary was written into %s", e->publish_dir);
	return 0;
}

/* Logs and announces an organiser action. */
static void announce(struct yctx *y, const char *action, const char *detail)
{
	event_emit(&y->log, "organiser", RULE_GAME_YEAR, "{s:s, s:s}", "action", action, "detail",
		   detail ? detail : "");
	char step[256];
	year_step_name(&y->st, y->c, step, sizeof step);
	json_t *d = json_pack("{s:s, s:s, s:s}", "action", action, "detail", detail ? detail : "",
			      "step", step);
	char *subject = xasprintf("%d: the organiser: %s", y->c->year, action);
	json_t *req = json_pack("{s:s, s:s, s:s, s:b, s:o}", "template", "organiser-action",
				"subject", subject, "to", "all", "organiser", 1, "data", d);
	free(subject);
	json_array_append_new(y->run.mails, req);
}

static char *status_text(struct yctx *y)
{
	struct strbuf sb = {0};
	char name[256], when[64];
	year_step_name(&y->st, y->c, name, sizeof name);
	char *what = year_step_describe(&y->st, y->c);
	strbuf_printf(&sb, "Year %d, %s phase. Step: %s%s.\nWaiting for %s.\n", y->c->year,
		      campaign_phase_name(y->c->phase), name, y->st.paused ? " (PAUSED)" : "",
		      what);
	free(what);
	if (y->st.paused)
		strbuf_printf(&sb, "Paused with %" PRId64 " h %02" PRId64 " min left on the clock.\n",
			      y->st.paused_left / 3600, y->st.paused_left % 3600 / 60);
	else if (y->st.deadline)
		strbuf_printf(&sb, "Deadline: %s.\n",
			      timefmt_local(y->st.deadline, y->c->timezone, when, sizeof when));
	json_t *aw = year_awaited(&y->st, y->c, &y->io);
	if (json_array_size(aw)) {
		strbuf_puts(&sb, "Still to answer:");
		size_t i;
		json_t *v;
		json_array_foreach(aw, i, v)
			strbuf_printf(&sb, " %s", json_string_value(v));
		strbuf_puts(&sb, "\n");
	}
	json_decref(aw);
	return strbuf_take(&sb);
}

/* ---------------------------------------------------------------- start, tick */

struct start_arg {
	int64_t now;
	const char *seed_hex;
};

static int start_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct start_arg *a = arg;
	struct yctx y;
	int rc = -1;
	char why[WHY_MAX];
	if (yctx_open(&y, e, a->now, false, errstr) != 0)
		goto done;
	if (a->seed_hex &&
	    store_kv_set(e->store, KV_MASTER_SEED, a->seed_hex, errstr) != STORE_OK)
		goto done;
	if (year_start(&y.run, why, sizeof why) != 0) {
		*report = xstrdup(why);
		rc = 1;
		goto done;
	}
	announce(&y, "start", "the campaign has started");
	if (yctx_save(&y, errstr) != 0)
		goto done;
	*report = status_text(&y);
	rc = 0;
done:
	yctx_free(&y);
	return rc;
}

int engine_start(struct engine *e, int64_t now, const char *seed_hex, char **report,
		 char **errstr)
{
	unsigned char seed[DICE_SEED_BYTES];
	*report = NULL;
	if (seed_hex && !dice_seed_from_hex(seed_hex, seed)) {
		*report = xstrdup("the seed must be 64 hexadecimal digits (32 bytes)");
		return 1;
	}
	struct start_arg a = {now, seed_hex};
	return in_transaction(e, start_fn, &a, report, errstr);
}

struct tick_arg {
	int64_t now, max_gap;
	struct engine_tick_info *info;
};

static int tick_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct tick_arg *a = arg;
	struct yctx y;
	(void)report;
	int rc = -1;
	char *last_text = NULL, buf[32];
	if (yctx_open(&y, e, a->now, false, errstr) != 0)
		goto done;
	if (store_kv_get(e->store, KV_LAST_RUN, &last_text, errstr) != STORE_OK)
		goto done;
	int64_t last = last_text ? strtoll(last_text, NULL, 10) : 0;
	bool running = y.st.step != YEAR_IDLE && y.st.step != YEAR_ENDED;
	if (last_text)
		a->info->gap = a->now - last;
	snprintf(buf, sizeof buf, "%" PRId64, a->now);
	if (store_kv_set(e->store, KV_LAST_RUN, buf, errstr) != STORE_OK)
		goto done;
	if (!running) {
		rc = 0; /* nothing runs before the start or after the end */
		goto done;
	}
	if (last_text && a->now < last) {
		a->info->clock_backwards = true;
		event_emit(&y.log, "clock", RULE_GAME_YEAR, "{s:s, s:I, s:I}", "what", "backwards",
			   "from", (json_int_t)last, "to", (json_int_t)a->now);
	} else {
		if (last_text && a->max_gap > 0 && a->now - last > a->max_gap) {
			a->info->downtime = true;
			event_emit(&y.log, "clock", RULE_GAME_YEAR, "{s:s, s:I, s:I}", "what", "gap",
				   "from", (json_int_t)last, "to", (json_int_t)a->now);
			if (!y.st.paused && y.st.deadline && y.st.deadline <= a->now) {
				year_grant_grace(&y.run, last, "the daemon was not running when "
								"the deadline passed");
				a->info->grace_granted = true;
			}
		}
		year_advance(&y.run);
	}
	if (yctx_save(&y, errstr) != 0)
		goto done;
	rc = 0;
done:
	free(last_text);
	yctx_free(&y);
	return rc;
}

int engine_tick(struct engine *e, int64_t now, int64_t max_gap, struct engine_tick_info *info,
		char **errstr)
{
	struct engine_tick_info ignored;
	if (!info)
		info = &ignored;
	memset(info, 0, sizeof *info);
	struct tick_arg a = {now, max_gap, info};
	char *report = NULL;
	int rc = in_transaction(e, tick_fn, &a, &report, errstr);
	free(report);
	return rc;
}

/* ---------------------------------------------------------------- organiser actions */

/* A password like campaignctl init's: 16 Crockford base32 symbols. */
static void generate_password(char out[20])
{
	static const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
	size_t n = 0;
	for (int i = 0; i < 16; i++) {
		if (i && i % 4 == 0)
			out[n++] = '-';
		out[n++] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	}
	out[n] = '\0';
}

/* Restores the snapshot: campaign, year state, dice; drops what came after. */
static int rewind_to(struct engine *e, const struct store_snapshot *snap, size_t *dropped,
		     char **errstr)
{
	json_error_t jerr;
	json_t *doc = json_loads(snap->campaign, 0, &jerr);
	struct campaign *c = doc ? campaign_from_json(doc, errstr) : NULL;
	json_decref(doc);
	if (!c) {
		if (!doc)
			*errstr = xasprintf("the snapshot is not JSON: %s", jerr.text);
		return -1;
	}
	int rc = -1;
	struct store_dice_year row;
	if (store_save_state(e->store, c, errstr) != STORE_OK ||
	    store_year_state_set(e->store, snap->year_state ? snap->year_state : "{}", snap->taken_at,
				 errstr) != STORE_OK)
		goto done;
	if (store_dice_year_get(e->store, snap->dice_year, &row, NULL) == STORE_OK) {
		row.counter = snap->dice_counter;
		if (store_dice_year_put(e->store, &row, errstr) != STORE_OK)
			goto done;
	}
	if (store_snapshot_rewind(e->store, snap, dropped, errstr) != STORE_OK)
		goto done;
	rc = 0;
done:
	campaign_free(c);
	return rc;
}

static char *battle_lines_text(const struct order_set *set, const struct campaign *c)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind < ORDER_BATTLE_AT ||
		    o->kind > ORDER_BATTLE_GENERAL_KILLED)
			continue;
		char *line = orders_format_one(o, c, -1);
		if (line)
			strbuf_printf(&sb, "%s\n", line);
		free(line);
	}
	return strbuf_take(&sb);
}

static int invite(struct yctx *y, struct strbuf *out)
{
	struct campaign *c = y->c;
	char *map = map_svg(c, NULL);
	struct mail_attachment att = {"map.svg", "image/svg+xml", (const unsigned char *)map,
				      strlen(map)};
	int rc = 0;
	for (size_t p = 0; p < c->player_count && rc == 0; p++) {
		const struct player *pl = &c->players[p];
		if (pl->status != PLAYER_ACTIVE || !pl->email || !*pl->email)
			continue;
		char password[20], *err = NULL;
		generate_password(password);
		if (store_set_password(y->e->store, pl->key, password, &err) != STORE_OK) {
			set_err(y, err);
			rc = -1;
			break;
		}
		json_t *d = base_data(y, (int)p);
		json_object_set_new(d, "password", json_string(password));
		char *help = templates_render(y->e->templates, "help", d, &err);
		free(err);
		err = NULL;
		json_object_set_new(d, "help_text", json_string(help ? help : ""));
		free(help);
		json_object_set_new(d, "organiser_email",
				    json_string(c->organiser_email ? c->organiser_email : ""));
		char *token = xasprintf("year.%s.%lu.%d", y->tag, ++y->mail_seq, c->year);
		char *subject = xasprintf("%s: your invitation and password",
					  c->name ? c->name : "The campaign");
		struct reply r = {pl->email, pl->name, subject, "invite", d, NULL, token,
				  MAIL_AUTO_GENERATED, &att, 1, NULL};
		if (engine_queue_mail(y->e, &r, c->name, y->now, NULL, &err) != 0) {
			set_err(y, err);
			rc = -1;
		}
		sodium_memzero(password, sizeof password);
		json_object_del(d, "password");
		json_decref(d);
		free(token);
		free(subject);
		strbuf_printf(out, "invited %s <%s>\n", pl->key, pl->email);
	}
	free(map);
	return rc;
}

static void preview_report(struct yctx *y, struct strbuf *out)
{
	flush(y);
	strbuf_puts(out, "PREVIEW (nothing was changed; the dice are throwaway ones, not the "
			 "campaign's)\n");
	for (size_t i = 0; i < y->log.count; i++) {
		const json_t *ev = y->log.events[i];
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		json_t *copy = json_deep_copy(ev);
		json_object_del(copy, "kind");
		json_object_del(copy, "year");
		json_object_del(copy, "phase");
		json_object_del(copy, "rule");
		char *text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_printf(out, "event %s %s\n", kind ? kind : "?", text ? text : "");
		free(text);
		json_decref(copy);
	}
	strbuf_puts(out, y->preview.data ? y->preview.data : "");
}

struct action_arg {
	const struct engine_action_request *req;
	int64_t now;
};

static int action_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	const struct engine_action_request *req = ((struct action_arg *)arg)->req;
	int64_t now = ((struct action_arg *)arg)->now;
	struct yctx y;
	struct strbuf out = {0};
	char why[WHY_MAX] = "";
	char *detail = NULL;
	int rc = -1;
	struct store_snapshot snap = {0};
	struct order_set set;
	orders_set_init(&set);
	memset(&y, 0, sizeof y);

	/* undo and corrections first go back to a snapshot */
	if (req->action == ENGINE_ACT_UNDO) {
		int st = store_snapshot_latest(e->store, NULL, &snap, errstr);
		if (st == STORE_NOTFOUND) {
			free(*errstr);
			*errstr = NULL;
			*report = xstrdup("there is no step to undo");
			rc = 1;
			goto done;
		}
		size_t dropped = 0;
		if (st != STORE_OK || rewind_to(e, &snap, &dropped, errstr) != 0)
			goto done;
		detail = xasprintf("the step %s was undone (%zu unsent mail%s dropped); the "
				   "campaign is paused until the organiser resumes it",
				   snap.step, dropped, dropped == 1 ? "" : "s");
	}
	if (yctx_open(&y, e, now, req->action == ENGINE_ACT_PREVIEW, errstr) != 0)
		goto done;
	struct campaign *c = y.c;
	bool idle = y.st.step == YEAR_IDLE;
	switch (req->action) {
	case ENGINE_ACT_DEADLINE: {
		if (year_set_deadline(&y.run, req->seconds, req->relative, why, sizeof why) != 0)
			break;
		char when[64];
		detail = y.st.paused
				 ? xasprintf("%" PRId64 " h left on the clock when the campaign resumes",
					     y.st.paused_left / 3600)
				 : xasprintf("the deadline is now %s",
					     timefmt_local(y.st.deadline, c->timezone, when,
							   sizeof when));
		announce(&y, "deadline", detail);
		break;
	}
	case ENGINE_ACT_PAUSE:
		if (year_pause(&y.run, why, sizeof why) == 0)
			announce(&y, "pause", "the campaign's clock is stopped: no deadline passes "
					      "until it resumes (orders are still read)");
		break;
	case ENGINE_ACT_RESUME: {
		char when[64];
		if (year_resume(&y.run, why, sizeof why) != 0)
			break;
		detail = y.st.deadline ? xasprintf("the clock runs again; the deadline is %s",
						   timefmt_local(y.st.deadline, c->timezone, when,
								 sizeof when))
				       : xstrdup("the clock runs again");
		announce(&y, "resume", detail);
		break;
	}
	case ENGINE_ACT_PROCESS: {
		char name[256];
		year_step_name(&y.st, c, name, sizeof name);
		if (year_process(&y.run, req->arg, why, sizeof why) == 0) {
			detail = xasprintf("the step %s was processed before its deadline", name);
			announce(&y, "process", detail);
		}
		break;
	}
	case ENGINE_ACT_PREVIEW: {
		char name[256];
		year_step_name(&y.st, c, name, sizeof name);
		y.st.paused = false;
		if (idle) {
			year_start(&y.run, why, sizeof why);
		} else if (year_process(&y.run, name, why, sizeof why) != 0) {
			break;
		}
		preview_report(&y, &out);
		why[0] = '\0';
		break;
	}
	case ENGINE_ACT_COMMENT: {
		int count = 0;
		if (!req->arg || !*req->arg) {
			snprintf(why, sizeof why, "a comment needs a text");
			break;
		}
		if (store_event_count(e->store, c->year, &count, errstr) != STORE_OK ||
		    flush(&y) != 0)
			goto done;
		count += (int)(y.log.count - y.stored);
		if (store_comment_add(e->store, c->year, count, req->arg, now, errstr) != STORE_OK)
			goto done;
		announce(&y, "comment", req->arg);
		break;
	}
	case ENGINE_ACT_UNDO:
		year_pause(&y.run, why, sizeof why);
		why[0] = '\0';
		announce(&y, "undo", detail);
		break;
	case ENGINE_ACT_BATTLE_RESULT: {
		if (!req->arg) {
			snprintf(why, sizeof why, "the result lines are missing");
			break;
		}
		orders_parse(req->arg, c, -1, &set);
		if (set.errors || !year_set_has_battle_lines(&set)) {
			snprintf(why, sizeof why, "%s",
				 set.errors ? "the result has lines in error" : "no BATTLE AT lines");
			for (size_t i = 0; i < set.count; i++)
				if (set.orders[i].status == ORDER_ERROR)
					strbuf_printf(&out, "line %d: %s: %s\n", set.orders[i].line,
						      set.orders[i].text ? set.orders[i].text : "",
						      set.orders[i].error ? set.orders[i].error : "");
			break;
		}
		int province = NO_INDEX;
		for (size_t i = 0; i < set.count; i++)
			if (set.orders[i].kind == ORDER_BATTLE_AT)
				province = set.orders[i].province;
		const char *pending_prov =
			json_string_value(json_object_get(y.st.pending, "province"));
		bool current = y.st.step == YEAR_BATTLE && pending_prov &&
			       campaign_find_province(c, pending_prov) == province;
		if (!current) {
			/* a correction: back to before the battle's consequences */
			char *step = xasprintf("battle-%s", c->provinces[province].name);
			store_snapshot_free(&snap);
			int st = store_snapshot_latest(e->store, step, &snap, errstr);
			free(step);
			if (st == STORE_NOTFOUND) {
				free(*errstr);
				*errstr = NULL;
				snprintf(why, sizeof why, "no battle at %s to decide or correct",
					 c->provinces[province].name);
				break;
			}
			size_t dropped = 0;
			if (st != STORE_OK || rewind_to(e, &snap, &dropped, errstr) != 0)
				goto done;
			yctx_free(&y);
			orders_set_free(&set);
			if (yctx_open(&y, e, now, false, errstr) != 0)
				goto done;
			c = y.c;
			orders_parse(req->arg, c, -1, &set);
		}
		char *lines = battle_lines_text(&set, c);
		if (year_battle_report(&y.run, NO_INDEX, true, &set, why, sizeof why) == 0) {
			detail = xasprintf("%s the result of the battle at %s:\n%s",
					   current ? "decided" : "corrected",
					   c->provinces[province].name, lines);
			announce(&y, "battle-result", detail);
		}
		free(lines);
		break;
	}
	case ENGINE_ACT_REPLACE_PLAYER:
	case ENGINE_ACT_REMOVE_PLAYER: {
		int p = req->arg ? campaign_find_player(c, req->arg) : NO_INDEX;
		bool replace = req->action == ENGINE_ACT_REPLACE_PLAYER;
		struct rules_reason rwhy;
		if (p < 0) {
			snprintf(why, sizeof why, "no player \"%s\"", req->arg ? req->arg : "");
			break;
		}
		if (replace && (!req->email || !strchr(req->email, '@'))) {
			snprintf(why, sizeof why, "the replacement needs a mail address");
			break;
		}
		/* a step of its own, so that undo takes back exactly this */
		char *step = xasprintf("%s-%s", replace ? "replace-player" : "remove-player",
				       c->players[p].key);
		cb_checkpoint(&y, step);
		free(step);
		if (rules_player_leaves(c, p, replace, &y.log, &rwhy) != RULES_OK) {
			snprintf(why, sizeof why, "%s", rwhy.text);
			break;
		}
		if (replace) {
			char password[20];
			generate_password(password);
			if (store_player_set_contact(e->store, c->players[p].key, req->name,
						     req->email, errstr) != STORE_OK ||
			    store_set_password(e->store, c->players[p].key, password, errstr) !=
				    STORE_OK)
				goto done;
			free(c->players[p].name);
			free(c->players[p].email);
			c->players[p].name = req->name ? xstrdup(req->name) : NULL;
			c->players[p].email = xstrdup(req->email);
			strbuf_printf(&out, "%s is now played by %s <%s>; new password: %s\n",
				      c->players[p].key, req->name ? req->name : "", req->email,
				      password);
			sodium_memzero(password, sizeof password);
			detail = xasprintf("%s is now played by %s", c->players[p].nation
				? c->players[p].nation : c->players[p].key,
				req->name ? req->name : req->email);
		} else {
			detail = xasprintf("%s has left the campaign: its provinces are neutral",
					   c->players[p].nation ? c->players[p].nation
								: c->players[p].key);
		}
		announce(&y, replace ? "replace-player" : "remove-player", detail);
		year_advance(&y.run);
		break;
	}
	case ENGINE_ACT_INVITE:
		if (invite(&y, &out) != 0)
			goto done;
		announce(&y, "invite", "every player was sent a new password, the rules summary "
				       "and the orders reference");
		break;
	}
	if (why[0]) {
		strbuf_printf(&out, "refused: %s\n", why);
		*report = strbuf_take(&out);
		rc = 1;
		goto done;
	}
	if (yctx_save(&y, errstr) != 0)
		goto done;
	if (req->action != ENGINE_ACT_PREVIEW) {
		if (detail)
			strbuf_printf(&out, "%s\n", detail);
		char *st = status_text(&y);
		strbuf_puts(&out, st);
		free(st);
	}
	*report = strbuf_take(&out);
	rc = 0;
done:
	free(detail);
	strbuf_free(&out);
	orders_set_free(&set);
	store_snapshot_free(&snap);
	yctx_free(&y);
	return rc;
}

int engine_action(struct engine *e, const struct engine_action_request *req, int64_t now,
		  char **report, char **errstr)
{
	struct action_arg a = {req, now};
	*report = NULL;
	return in_transaction(e, action_fn, &a, report, errstr);
}

static int status_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct yctx y;
	int rc = -1;
	if (yctx_open(&y, e, *(int64_t *)arg, true, errstr) == 0) {
		*report = status_text(&y);
		rc = 0;
	}
	yctx_free(&y);
	return rc == 0 ? 1 : -1; /* never commit: nothing to write */
}

int engine_year_status(struct engine *e, int64_t now, char **text, char **errstr)
{
	*text = NULL;
	int rc = in_transaction(e, status_fn, &now, text, errstr);
	return rc == 1 ? 0 : -1;
}

/* ---------------------------------------------------------------- from mail */

int engine_year_after_orders(struct engine *e, int player, const struct order_set *set,
			     int64_t now, char **note, char **errstr)
{
	struct yctx y;
	int rc = -1;
	char why[WHY_MAX];
	*note = NULL;
	if (yctx_open(&y, e, now, false, errstr) != 0)
		goto done;
	bool battle = year_set_has_battle_lines(set);
	char *relations = NULL;
	if (y.st.step != YEAR_ENDED)
		relations = year_orders_received(&y.run, player, set);
	if (y.st.step == YEAR_IDLE || y.st.step == YEAR_ENDED) {
		if (battle)
			*note = xstrdup("No battle is waiting for its result: the result lines were "
					"not used.");
	} else if (battle) {
		if (year_battle_report(&y.run, player, false, set, why, sizeof why) != 0)
			*note = xasprintf("Your battle result was not used: %s.", why);
		else
			*note = xstrdup("Your battle result was recorded.");
	}
	if (relations) {
		char *both = *note ? xasprintf("%s %s", *note, relations) : xstrdup(relations);
		free(*note);
		free(relations);
		*note = both;
	}
	if (y.st.step != YEAR_IDLE && y.st.step != YEAR_ENDED)
		year_advance(&y.run);
	if (yctx_save(&y, errstr) != 0)
		goto done;
	rc = 0;
done:
	yctx_free(&y);
	return rc;
}

int engine_year_organiser_mail(struct engine *e, const struct order_set *set, int64_t now,
			       char **report, char **errstr)
{
	struct strbuf out = {0};
	strbuf_puts(&out, "");
	*report = NULL;
	bool battle_done = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		struct engine_action_request req = {0};
		char *text = NULL;
		if (o->status == ORDER_ERROR) {
			strbuf_printf(&out, "line %d: %s\n  ERROR: %s\n", o->line,
				      o->text ? o->text : "", o->error ? o->error : "");
			continue;
		}
		switch (o->kind) {
		case ORDER_ORG_EXTEND:
			req.action = ENGINE_ACT_DEADLINE;
			req.seconds = (int64_t)o->count * 3600;
			req.relative = true;
			break;
		case ORDER_ORG_PAUSE: req.action = ENGINE_ACT_PAUSE; break;
		case ORDER_ORG_RESUME: req.action = ENGINE_ACT_RESUME; break;
		case ORDER_ORG_PROCESS:
			req.action = ENGINE_ACT_PROCESS;
			req.arg = o->arg;
			break;
		case ORDER_ORG_PREVIEW: req.action = ENGINE_ACT_PREVIEW; break;
		case ORDER_ORG_COMMENT:
			req.action = ENGINE_ACT_COMMENT;
			req.arg = o->arg;
			break;
		case ORDER_BATTLE_AT:
			if (battle_done)
				continue;
			battle_done = true;
			req.action = ENGINE_ACT_BATTLE_RESULT;
			break;
		default:
			continue;
		}
		struct campaign *c = NULL;
		if (req.action == ENGINE_ACT_BATTLE_RESULT) {
			if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
				goto fail;
			text = battle_lines_text(set, c);
			campaign_free(c);
			req.arg = text;
		}
		char *line = o->understood ? o->understood : o->text;
		char *r = NULL;
		struct action_arg a = {&req, now};
		int rc = action_fn(e, &a, &r, errstr);
		free(text);
		if (rc < 0) {
			free(r);
			goto fail;
		}
		strbuf_printf(&out, "> %s\n%s\n", line ? line : "", r ? r : "");
		free(r);
	}
	*report = strbuf_take(&out);
	return 0;
fail:
	strbuf_free(&out);
	return -1;
}
