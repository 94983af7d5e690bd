/* The engine's side of the campaign year: loads the campaign and the year's
 * state, lets the pure state machine (dbm/year.h) act, and stores what it did:
 * events, mail, the campaign state, the year state, the dice position and a
 * snapshot before each step — all inside the caller's transaction. Here:
 * that context (open, save, the callbacks the year calls) and a player's
 * mail handed to the year. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "engine/awaited.h"
#include "engine/engine_setup_p.h"
#include "model/campaign_json.h"
#include "base/log.h"
#include "engine/publish.h"
#include "dbm/rules.h"
#include "base/timefmt.h"
#include "dbm/year.h"

#include <ctype.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static json_t *cb_year_events(void *ctx, int year)
{
	struct yctx *y = ctx;
	json_t *events = NULL;
	char *err = NULL;
	if (!y->dry)
		yctx_flush(y);
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

void yctx_checkpoint(void *ctx, const char *step)
{
	struct yctx *y = ctx;
	yctx_flush(y);
	yctx_asks_over(y, step);
	if (y->dry) /* a preview: its mails read as the real ones would */
		return;
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

/* ---------------------------------------------------------------- open, save, close */

void yctx_free(struct yctx *y)
{
	yctx_held_free(y);
	year_run_free(&y->run);
	year_state_free(&y->st);
	event_log_free(&y->log);
	dice_hmac_clear(&y->dice);
	campaign_free(y->c);
	for (size_t i = 0; i < y->n_overlay; i++)
		free(y->overlay[i].text);
	free(y->overlay);
	json_decref(y->correction);
	free(y->err);
	memset(y, 0, sizeof *y);
}

/* Inside a transaction: the campaign, the year state and the dice. */
int yctx_open(struct yctx *y, struct engine *e, int64_t now, bool dry, char **errstr)
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
	y->io = (struct year_io){y, cb_orders_load, cb_orders_save, cb_year_events, yctx_checkpoint,
				 cb_new_year_dice, cb_reveal_dice, NULL, NULL};
	year_run_init(&y->run, y->c, &y->st, &y->dice.base, &y->log, now, &y->io);
	return 0;
}

/* Stores everything: events, mail, the campaign, the year, the dice. */
int yctx_save(struct yctx *y, char **errstr)
{
	if (yctx_flush(y) != 0 || yctx_mail_out(y) != 0 || y->dry) {
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
int engine_year_transaction(struct engine *e,
			    int (*fn)(struct engine *, void *, char **, char **), void *arg,
			    char **report, char **errstr)
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

/* An organiser action in words, for the subject and the mail. */
static const char *action_words(const char *action)
{
	static const char *const words[][2] = {
		{"start", "the campaign starts"},
		{"deadline", "a new deadline"},
		{"pause", "the campaign is paused"},
		{"resume", "the campaign resumes"},
		{"process", "a step processed early"},
		{"comment", "a note"},
		{"undo", "a step taken back"},
		{"battle-result", "a battle result"},
		{"replace-player", "a player replaced"},
		{"remove-player", "a player removed"},
		{"add-player", "a new player joins"},
		{"invite", "new invitations"},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(action, words[i][0]) == 0)
			return words[i][1];
	return action;
}

/* {action, detail, action_text (for the subject), action_line and
 * detail_text (sentences of the mail, with a capital)}. */
static json_t *announce_item(const char *action, const char *detail)
{
	/* the start is said once, as done: "The campaign has started." */
	bool start = strcmp(action, "start") == 0;
	char *a = xstrdup(start ? "the campaign has started" : action_words(action));
	if ('a' <= a[0] && a[0] <= 'z')
		a[0] = (char)(a[0] - 'a' + 'A');
	/* a sentence: a capital, no blank line after it, a full stop (not
	 * after lines quoted, such as a battle result's) */
	struct strbuf d = {0};
	/* the start's detail ("the campaign has started") says it twice */
	strbuf_puts(&d, detail && !start ? detail : "");
	str_trim(d.data);
	d.len = strlen(d.data);
	if ('a' <= d.data[0] && d.data[0] <= 'z')
		d.data[0] = (char)(d.data[0] - 'a' + 'A');
	if (d.len && !strchr(d.data, '\n') && (isalnum((unsigned char)d.data[d.len - 1]) || d.data[d.len - 1] == ')'))
		strbuf_puts(&d, ".");
	json_t *one = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "action", action, "detail",
				detail ? detail : "", "action_text", action_words(action),
				"action_line", a, "detail_text", d.data, "has_detail", d.len > 0);
	free(a);
	strbuf_free(&d);
	return one;
}

/* Logs and announces an organiser action. */
void yctx_announce(struct yctx *y, const char *action, const char *detail)
{
	event_emit(&y->log, "organiser", RULE_GAME_YEAR, "{s:s, s:s}", "action", action, "detail",
		   detail ? detail : "");
	char step[256];
	year_step_name(&y->st, y->c, step, sizeof step);
	json_t *one = announce_item(action, detail);
	if (y->e->announce_batch && !y->dry) { /* announced with the others */
		json_array_append_new(y->e->announce_batch, one);
		return;
	}
	json_t *d = json_pack("{s:s, s:s, s:s, s:[o]}", "action", action, "detail",
			      detail ? detail : "", "step", step, "actions", one);
	char *subject = xasprintf("The organiser: %s",
				  json_string_value(json_object_get(one, "action_text")));
	json_t *req = json_pack("{s:s, s:s, s:s, s:b, s:o}", "template", "organiser-action",
				"subject", subject, "to", "all", "organiser", 1, "data", d);
	free(subject);
	json_array_append_new(y->run.mails, req);
}

char *yctx_status_text(struct yctx *y)
{
	json_t *aw = engine_awaited_json(&y->st, y->c, &y->io);
	char *text = engine_awaited_text(aw);
	json_decref(aw);
	struct strbuf sb = {0};
	strbuf_puts(&sb, text);
	free(text);
	setup_status(y, &sb); /* before the start, or players joining */
	return strbuf_take(&sb);
}

/* ---------------------------------------------------------------- from mail */

int engine_year_orders_too_late(struct engine *e, const struct campaign *c, int player,
				struct order_set *set, bool *turn_over, char **errstr)
{
	char *text = NULL;
	*turn_over = false;
	if (store_year_state_get(e->store, &text, errstr) != STORE_OK)
		return -1;
	if (!text)
		return 0; /* not started: every order is early */
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);
	free(text);
	struct year_state st;
	char *err = NULL;
	if (doc && year_state_from_json(&st, doc, c, &err) == 0) {
		year_orders_too_late(&st, c, player, set);
		*turn_over = year_turn_is_over(&st, c, player);
		year_state_free(&st);
	}
	free(err); /* an unreadable state is reported by the step that reads it */
	json_decref(doc);
	return 0;
}

int engine_year_after_orders(struct engine *e, int player, const struct order_set *set,
			     int64_t now, char **note, bool *refused, bool *for_errors,
			     char **errstr)
{
	struct yctx y;
	int rc = -1;
	char why[WHY_MAX];
	json_t *asked_before = NULL;
	*note = NULL;
	*refused = false;
	*for_errors = false;
	if (yctx_open(&y, e, now, false, errstr) != 0)
		goto done;
	bool battle = year_set_has_battle_lines(set);
	char *relations = NULL;
	if (y.st.step == YEAR_DECISION && y.st.pending)
		asked_before = json_deep_copy(y.st.pending);
	if (y.st.step != YEAR_ENDED)
		relations = year_orders_received(&y.run, player, set);
	if (y.st.step == YEAR_IDLE || y.st.step == YEAR_ENDED) {
		if (battle) {
			*note = xstrdup("No battle is waiting for its result: the result lines were "
					"not used.");
			*refused = true;
		}
	} else if (battle) {
		char *as = year_battle_report_text(&y.run, set);
		if (year_battle_report(&y.run, player, false, set, why, sizeof why) != 0) {
			*note = xasprintf("Your battle result was not used: %s.", why);
			*refused = true;
			/* year_battle_take_report: with a battle waiting, lines in
			 * error refuse the report before anything else */
			*for_errors = set->errors > 0 && y.st.step == YEAR_BATTLE;
		}
		else if (as)
			*note = xasprintf("Your battle result was recorded as:\n\n%s", as);
		else
			*note = xstrdup("Your battle result was recorded.");
		free(as);
	}
	bool received = y.st.step != YEAR_ENDED;
	if (y.st.step != YEAR_IDLE && y.st.step != YEAR_ENDED)
		year_advance(&y.run);
	/* alliances and tributaries as the step it led to left them: made
	 * (the mail that tells everyone goes with the reply), or when */
	char *settled = received ? year_relations_settled(&y.run, player, set) : NULL;
	/* a permission answered: what it causes (rules 2.1) */
	char *passage = asked_before ? year_permission_answer_note(y.c, asked_before, &y.st,
								   player, set)
				     : NULL;
	char *parts[] = {relations, settled, passage};
	for (size_t i = 0; i < 3; i++) {
		if (!parts[i])
			continue;
		char *both = *note ? xasprintf("%s %s", *note, parts[i]) : xstrdup(parts[i]);
		free(*note);
		free(parts[i]);
		*note = both;
	}
	if (yctx_save(&y, errstr) != 0)
		goto done;
	rc = 0;
done:
	json_decref(asked_before);
	yctx_free(&y);
	return rc;
}
