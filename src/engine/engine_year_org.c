/* The organiser's actions on the year (campaignctl and ORGANISER mail):
 * deadlines, pause, process, preview, comments, undo, battle results,
 * players replaced or removed, invitations; and the status. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "engine/awaited.h"
#include "engine/engine_setup_p.h"
#include "model/campaign_json.h"
#include "engine/maps_p.h"
#include "dbm/rules.h"
#include "text/templates.h"
#include "base/timefmt.h"
#include "dbm/year.h"

#include <ctype.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- organiser actions */

/* Restores the snapshot: campaign, year state, dice; drops what came after. */
static int rewind_to(struct engine *e, const struct store_snapshot *snap, size_t *dropped,
		     const char *why, char **errstr)
{
	json_error_t jerr;
	json_t *doc = json_loads(snap->campaign, 0, &jerr);
	if (doc && engine_join_graft(e, doc, errstr) != 0) {
		json_decref(doc);
		return -1;
	}
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
	/* the mails sent since may be made again: marked as corrections, or
	 * not sent twice when their text is the same */
	if (engine_correction_open(e, snap->last_outbox, why, errstr) != 0)
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

/* only: the one player to invite again, or NO_INDEX for every player */
static int invite(struct yctx *y, int only, struct strbuf *out)
{
	struct campaign *c = y->c;
	struct engine_maps maps;
	engine_maps_build(y->e->store, c, c->year, NULL, &maps);
	int rc = 0;
	for (size_t p = 0; p < c->player_count && rc == 0; p++) {
		const struct player *pl = &c->players[p];
		if (only != NO_INDEX && (int)p != only)
			continue;
		if (pl->status != PLAYER_ACTIVE || !pl->email || !*pl->email)
			continue;
		if (yctx_invite(y, (int)p, &maps) != 0) {
			rc = -1;
			break;
		}
		strbuf_printf(out, "invited %s <%s>\n", pl->key, pl->email);
	}
	engine_maps_free(&maps);
	return rc;
}

struct action_arg {
	const struct engine_action_request *req;
	int64_t now;
	bool quiet; /* one line of an ORGANISER mail: its outcome, no status */
};

/* `text` as a sentence of the answer to an ORGANISER mail: a capital, and
 * a full stop when it is one line ending in a word or a bracket (lines
 * quoted under it, a battle result's, stay as they are). */
static char *sentence(const char *text)
{
	char *s = xstrdup(text);
	str_trim(s);
	size_t n = strlen(s);
	if (n && 'a' <= s[0] && s[0] <= 'z')
		s[0] = (char)(s[0] - 'a' + 'A');
	unsigned char last = n ? (unsigned char)s[n - 1] : '.';
	if (!strchr(s, '\n') && (isalnum(last) || last == ')' || last >= 0x80)) {
		char *t = xasprintf("%s.", s);
		free(s);
		s = t;
	}
	return s;
}

/* What an action without a detail of its own did, for the reply to an
 * ORGANISER mail (which says what happens next once, at its end). */
static const char *action_done(enum engine_action action)
{
	switch (action) {
	case ENGINE_ACT_PAUSE:
		return "the campaign's clock is stopped: no deadline passes until it resumes "
		       "(orders are still read)";
	case ENGINE_ACT_COMMENT:
		return "the note is in the year's diary, and every player is sent it";
	default:
		return "done";
	}
}

static int action_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	const struct engine_action_request *req = ((struct action_arg *)arg)->req;
	int64_t now = ((struct action_arg *)arg)->now;
	bool quiet = ((struct action_arg *)arg)->quiet;
	struct yctx y;
	struct strbuf out = {0};
	char why[WHY_MAX] = "";
	char *detail = NULL;
	char *answer = NULL; /* the answer's words, when not the detail's */
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
		char words[256] = "";
		if (st == STORE_OK) {
			struct campaign *now_c = NULL;
			if (store_load_campaign(e->store, &now_c, NULL) == STORE_OK)
				year_step_words(now_c, snap.step, words, sizeof words);
			else
				snprintf(words, sizeof words, "%s", snap.step);
			campaign_free(now_c);
		}
		char *cause = st == STORE_OK ? xasprintf("the organiser undid %s and it "
							 "was played again", words) : NULL;
		int rw = st != STORE_OK ? -1 : rewind_to(e, &snap, &dropped, cause, errstr);
		free(cause);
		if (rw != 0)
			goto done;
		if (dropped)
			detail = xasprintf("%s was undone, and %zu mail%s about it not yet "
					   "sent %s withdrawn; the campaign is paused until the "
					   "organiser resumes it",
					   words, dropped, dropped == 1 ? "" : "s",
					   dropped == 1 ? "was" : "were");
		else
			detail = xasprintf("%s was undone; the campaign is paused until "
					   "the organiser resumes it",
					   words);
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
		yctx_announce(&y, "deadline", detail);
		break;
	}
	case ENGINE_ACT_PAUSE:
		if (year_pause(&y.run, why, sizeof why) == 0)
			yctx_announce(&y, "pause", "the campaign's clock is stopped: no deadline passes "
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
		yctx_announce(&y, "resume", detail);
		break;
	}
	case ENGINE_ACT_PROCESS: {
		char name[256], words[256];
		year_step_name(&y.st, c, name, sizeof name);
		year_step_words(c, name, words, sizeof words);
		if (year_process(&y.run, req->arg, why, sizeof why) == 0) {
			detail = xasprintf("%s was processed before its deadline", words);
			yctx_announce(&y, "process", detail);
		}
		break;
	}
	case ENGINE_ACT_PREVIEW: {
		char name[256];
		year_step_name(&y.st, c, name, sizeof name);
		y.st.paused = false;
		json_t *before = engine_preview_before(&y);
		int year = c->year; /* the step's, before it is played */
		if (idle) {
			year_start(&y.run, why, sizeof why);
		} else if (year_process(&y.run, name, why, sizeof why) != 0) {
			json_decref(before);
			break;
		}
		engine_preview_report(&y, name, year, req->json, before, &out);
		json_decref(before);
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
		    yctx_flush(&y) != 0)
			goto done;
		count += (int)(y.log.count - y.stored);
		if (store_comment_add(e->store, c->year, count, req->arg, now, errstr) != STORE_OK)
			goto done;
		yctx_announce(&y, "comment", req->arg);
		break;
	}
	case ENGINE_ACT_UNDO:
		year_pause(&y.run, why, sizeof why);
		why[0] = '\0';
		/* recruitment sent after the phase had closed counts for it
		 * again when the undo reopens it (the reply said it was kept
		 * for the next one) */
		year_late_recruitment_back(&y.run);
		/* a step undone after its deadline passed gets a fresh one:
		 * its normal length, counted from the undo on the campaign's
		 * clock (stopped until the organiser resumes) */
		json_t *still = year_awaited(&y.st, c, &y.io);
		bool all_in = (y.st.step == YEAR_RECRUITMENT || y.st.step == YEAR_VOTE) &&
			      json_array_size(still) == 0;
		json_decref(still);
		if (y.st.deadline && y.st.paused_left <= 0 && detail) {
			y.st.paused_left = year_step_length(&y.st, c);
			char len[64];
			year_format_duration(y.st.paused_left, len, sizeof len);
			char *more = xasprintf("%s. Its deadline had already passed, so it has a "
					       "fresh one: %s from the moment the organiser resumes "
					       "the campaign",
					       detail, len);
			free(detail);
			detail = more;
		}
		/* every answer already in: the step does not wait for a deadline */
		if (all_in && detail) {
			char *more = xasprintf("%s. But every player's %s already in, so it is "
					       "played again at once when the organiser resumes the "
					       "campaign, unless someone changes orders before",
					       detail, y.st.step == YEAR_VOTE ? "vote is" : "orders are");
			free(detail);
			detail = more;
		}
		yctx_announce(&y, "undo", detail);
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
					strbuf_printf(&out, "%s %d: %s: %s\n",
						      quiet ? "Line" : "line", set.orders[i].line,
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
			char *cause = xasprintf("the organiser corrected the result of the battle "
						"at %s", c->provinces[province].name);
			int rw = st != STORE_OK ? -1 : rewind_to(e, &snap, &dropped, cause, errstr);
			free(cause);
			if (rw != 0)
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
			answer = xasprintf("You %s the result of the battle at %s:\n%s",
					   current ? "decided" : "corrected",
					   c->provinces[province].name, lines);
			yctx_announce(&y, "battle-result", detail);
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
		yctx_checkpoint(&y, step);
		free(step);
		if (rules_player_leaves(c, p, replace, &y.log, &rwhy) != RULES_OK) {
			snprintf(why, sizeof why, "%s", rwhy.text);
			break;
		}
		/* his stand-in stood in for the player who goes */
		char *ended = NULL;
		if (engine_stand_in_end_nation_changes(e, c, p, replace, now, &ended, errstr) != 0)
			goto done;
		if (ended)
			strbuf_printf(&out, "%s\n", ended);
		free(ended);
		if (replace) {
			char password[20];
			engine_generate_password(password);
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
		yctx_announce(&y, replace ? "replace-player" : "remove-player", detail);
		year_advance(&y.run);
		break;
	}
	case ENGINE_ACT_OPEN_SETUP:
		if (setup_open(&y, &out, why, sizeof why) != 0) {
			*errstr = y.err ? y.err : xstrdup("the setup mails could not be queued");
			y.err = NULL;
			goto done;
		}
		if (!why[0])
			event_emit(&y.log, "organiser", RULE_GAME_YEAR, "{s:s, s:s}", "action",
				   "open-setup", "detail", "the players who set up by mail were "
				   "sent their army lists");
		break;
	case ENGINE_ACT_INVITE: {
		if (!req->arg) {
			if (invite(&y, NO_INDEX, &out) != 0)
				goto done;
			/* recorded, but no mail about it: each player's
			 * invitation is the news */
			event_emit(&y.log, "organiser", RULE_GAME_YEAR, "{s:s, s:s}", "action",
				   "invite", "detail", "every player was sent a new password, the "
				   "rules summary and the orders reference");
			break;
		}
		/* one player's password reset: only that player is mailed; the
		 * others are not told (the event log keeps it) */
		int p = campaign_find_player(c, req->arg);
		if (p < 0) {
			snprintf(why, sizeof why, "no player \"%s\"", req->arg);
			break;
		}
		if (c->players[p].status != PLAYER_ACTIVE || !c->players[p].email ||
		    !*c->players[p].email) {
			snprintf(why, sizeof why, "%s has no mail address to send a password to",
				 c->players[p].key);
			break;
		}
		if (invite(&y, p, &out) != 0)
			goto done;
		event_emit(&y.log, "organiser", RULE_GAME_YEAR, "{s:s, s:s}", "action", "invite",
			   "detail", c->players[p].key);
		break;
	}
	}
	if (why[0] && quiet) {
		char *r = xasprintf("refused: %s", why), *t = sentence(r);
		strbuf_printf(&out, "%s\n", t);
		free(t);
		free(r);
	} else if (why[0]) {
		strbuf_printf(&out, "refused: %s\n", why);
	}
	if (why[0]) {
		*report = strbuf_take(&out);
		rc = 1;
		goto done;
	}
	if (yctx_save(&y, errstr) != 0)
		goto done;
	if (req->action != ENGINE_ACT_PREVIEW) {
		const char *said = quiet && answer ? answer : detail;
		if (!said && quiet && !out.len)
			said = action_done(req->action);
		char *t = said && quiet ? sentence(said) : NULL;
		if (said)
			strbuf_printf(&out, "%s\n", t ? t : said);
		free(t);
		if (!quiet) {
			char *st = yctx_status_text(&y);
			strbuf_puts(&out, st);
			free(st);
		}
	}
	*report = strbuf_take(&out);
	rc = 0;
done:
	/* a failure below the action (a template missing, the store) names
	 * its cause, never only "failed" */
	if (rc != 0 && errstr && !*errstr && y.err) {
		*errstr = y.err;
		y.err = NULL;
	}
	free(detail);
	free(answer);
	strbuf_free(&out);
	orders_set_free(&set);
	store_snapshot_free(&snap);
	yctx_free(&y);
	return rc;
}

int engine_action(struct engine *e, const struct engine_action_request *req, int64_t now,
		  char **report, char **errstr)
{
	struct action_arg a = {req, now, false};
	*report = NULL;
	return engine_year_transaction(e, action_fn, &a, report, errstr);
}

static int status_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct yctx y;
	int rc = -1;
	if (yctx_open(&y, e, *(int64_t *)arg, true, errstr) == 0) {
		*report = yctx_status_text(&y);
		rc = 0;
	}
	yctx_free(&y);
	return rc == 0 ? 1 : -1; /* never commit: nothing to write */
}

int engine_year_status(struct engine *e, int64_t now, char **text, char **errstr)
{
	*text = NULL;
	int rc = engine_year_transaction(e, status_fn, &now, text, errstr);
	return rc == 1 ? 0 : -1;
}

struct status_json_arg {
	int64_t now;
	json_t *doc;
};

static int status_json_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	(void)report;
	struct status_json_arg *a = arg;
	struct yctx y;
	int rc = -1;
	if (yctx_open(&y, e, a->now, true, errstr) == 0) {
		a->doc = engine_awaited_json(&y.st, y.c, &y.io);
		rc = 0;
	}
	yctx_free(&y);
	return rc == 0 ? 1 : -1; /* never commit: nothing to write */
}

int engine_year_status_json(struct engine *e, int64_t now, json_t **doc, char **errstr)
{
	struct status_json_arg a = {now, NULL};
	char *report = NULL;
	int rc = engine_year_transaction(e, status_json_fn, &a, &report, errstr);
	free(report);
	*doc = a.doc;
	return rc == 1 && a.doc ? 0 : -1;
}

int engine_whats_next_in(struct engine *e, int player, int64_t now, json_t **out,
			 char **errstr)
{
	struct yctx y;
	*out = NULL;
	int rc = -1;
	if (yctx_open(&y, e, now, true, errstr) == 0) {
		*out = engine_awaiting_json(y.c, &y.st, &y.io, player);
		rc = 0;
	}
	yctx_free(&y);
	return rc;
}

struct next_arg {
	const char *player;
	int64_t now;
	json_t *out;
};

static int whats_next_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct next_arg *a = arg;
	struct campaign *c = NULL;
	(void)report;
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		return -1;
	int p = a->player ? campaign_find_player(c, a->player) : -1;
	campaign_free(c);
	if (a->player && p < 0) {
		*errstr = xasprintf("no player \"%s\"", a->player);
		return -1;
	}
	return engine_whats_next_in(e, p, a->now, &a->out, errstr) == 0 ? 1 : -1;
}

int engine_whats_next(struct engine *e, const char *player_key, int64_t now, json_t **out,
		      char **errstr)
{
	struct next_arg a = {player_key, now, NULL};
	char *report = NULL;
	int rc = engine_year_transaction(e, whats_next_fn, &a, &report, errstr);
	free(report);
	*out = a.out;
	return rc == 1 ? 0 : -1; /* never commits: nothing to write */
}

/* ---------------------------------------------------------------- from mail */

/* The announcements of an ORGANISER mail's actions, one mail to each
 * player for all of them. The organiser's address gets none: the answer
 * to his mail says what he did (and what happens next), unless a
 * stand-in gets copies there (the answer then goes alone, and the
 * stand-in must hear of it) or a step was taken back (the announcement
 * names the mails that no longer hold). */
static int announce_batch(struct engine *e, int64_t now, char **errstr)
{
	json_t *batch = e->announce_batch;
	e->announce_batch = NULL;
	if (!json_array_size(batch)) {
		json_decref(batch);
		return 0;
	}
	struct yctx y;
	int rc = -1;
	if (yctx_open(&y, e, now, false, errstr) == 0) {
		struct strbuf subject = {0};
		strbuf_puts(&subject, "The organiser: ");
		size_t i;
		json_t *v;
		json_array_foreach(batch, i, v)
			strbuf_printf(&subject, "%s%s", i ? ", " : "",
				      json_string_value(json_object_get(v, "action_text")));
		json_t *d = json_pack("{s:O}", "actions", batch);
		json_t *req = json_pack("{s:s, s:s, s:s, s:b, s:o}", "template", "organiser-action",
					"subject", subject.data, "to", "all", "organiser", 1, "data", d);
		strbuf_free(&subject);
		bool copied = false, back = false;
		json_array_foreach(batch, i, v)
			back |= strncmp(json_string_value(json_object_get(v, "detail")), "corrected ",
					10) == 0;
		const char *org = y.c->organiser_email;
		int st = org ? engine_stand_in_copies(e, y.c, org, now, &copied, errstr) : 0;
		if (org && !copied && !back)
			json_object_set_new(req, "answered_to", json_string(org));
		json_array_append_new(y.run.mails, req);
		rc = st == 0 && yctx_flush(&y) == 0 && yctx_mail_out(&y) == 0 ? 0 : -1;
		if (rc != 0 && y.err) {
			*errstr = y.err;
			y.err = NULL;
		}
	}
	yctx_free(&y);
	json_decref(batch);
	return rc;
}

int engine_year_organiser_mail(struct engine *e, const struct order_set *set, int64_t now,
			       char **report, char **errstr)
{
	struct strbuf out = {0};
	strbuf_puts(&out, "");
	*report = NULL;
	bool battle_done = false;
	json_decref(e->announce_batch);
	e->announce_batch = json_array();
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		struct engine_action_request req = {0};
		char *text = NULL;
		if (o->status == ORDER_ERROR) {
			char *err = sentence(o->error ? o->error : "not understood");
			strbuf_printf(&out, "%s> %s\nError (line %d): %s\n", out.len ? "\n" : "",
				      o->text ? o->text : "", o->line, err);
			free(err);
			continue;
		}
		/* a line that is no order (a greeting, a word the parser could
		 * not place after the last order) is shown as ignored, as a
		 * player's acknowledgement shows it: nothing is dropped unsaid */
		if (o->status == ORDER_IGNORED) {
			if (o->line > 0 && o->text && *o->text)
				strbuf_printf(&out, "%s> %s\nIgnored: not an order (HELP lists them).\n",
					      out.len ? "\n" : "", o->text);
			continue;
		}
		if (o->kind == ORDER_STAND_IN) {
			char *r = NULL;
			if (engine_stand_in_organiser_line(e, o, now, &r, errstr) != 0)
				goto fail;
			char *t = sentence(r ? r : "");
			strbuf_printf(&out, "%s> %s\n%s\n", out.len ? "\n" : "",
				      o->understood ? o->understood : "", t);
			free(t);
			free(r);
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
		struct action_arg a = {&req, now, true};
		int rc = action_fn(e, &a, &r, errstr);
		free(text);
		if (rc < 0) {
			free(r);
			goto fail;
		}
		strbuf_printf(&out, "%s> %s\n%s\n", out.len ? "\n" : "", line ? line : "",
			      r ? str_trim(r) : "");
		free(r);
	}
	if (announce_batch(e, now, errstr) != 0)
		goto fail;
	*report = strbuf_take(&out);
	return 0;
fail:
	json_decref(e->announce_batch);
	e->announce_batch = NULL;
	strbuf_free(&out);
	return -1;
}
