/* What the year's files share: names and small queries, the mail requests
 * of a run, the players' pending orders read back. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- small helpers */

void year_say(char *why, size_t size, const char *fmt, ...)
{
	if (!why || !size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

const char *year_format_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, size, "%" PRId64, t);
	return buf;
}

const char *year_format_duration(int64_t seconds, char *buf, size_t size)
{
	int64_t minutes = seconds > 0 ? (seconds + 59) / 60 : 0;
	int64_t days = minutes / (24 * 60), hours = minutes / 60 % 24, mins = minutes % 60;
	if (days && hours)
		snprintf(buf, size, "%" PRId64 " day%s %" PRId64 " hour%s", days,
			 days == 1 ? "" : "s", hours, hours == 1 ? "" : "s");
	else if (days)
		snprintf(buf, size, "%" PRId64 " day%s", days, days == 1 ? "" : "s");
	else if (hours && mins)
		snprintf(buf, size, "%" PRId64 " hour%s %" PRId64 " minute%s", hours,
			 hours == 1 ? "" : "s", mins, mins == 1 ? "" : "s");
	else if (hours)
		snprintf(buf, size, "%" PRId64 " hour%s", hours, hours == 1 ? "" : "s");
	else
		snprintf(buf, size, "%" PRId64 " minute%s", mins, mins == 1 ? "" : "s");
	return buf;
}

/* ---------------------------------------------------------------- runs, mails */

void year_run_init(struct year_run *r, struct campaign *c, struct year_state *st,
		   struct dice *d, struct event_log *log, int64_t now, const struct year_io *io)
{
	memset(r, 0, sizeof *r);
	r->c = c;
	r->st = st;
	r->dice = d;
	r->log = log;
	r->now = now;
	r->io = io;
	r->mails = json_array();
	r->turn_mark = log->count;
	r->told_mark = log->count;
}

void year_run_free(struct year_run *r)
{
	json_decref(r->mails);
	r->mails = NULL;
}

void year_mail(struct year_run *r, const char *tpl, int to, bool organiser_copy,
	       json_t *data, const char *subject_fmt, ...)
{
	va_list ap;
	va_start(ap, subject_fmt);
	struct strbuf sb = {0};
	strbuf_vprintf(&sb, subject_fmt, ap);
	va_end(ap);
	/* "step": where in the year the mail is made, so that a mail made
	 * again after an undo finds the one it replaces */
	json_t *req = json_pack("{s:s, s:s, s:b, s:i}", "template", tpl, "subject", sb.data,
				"organiser", organiser_copy, "step", r->st->resolutions);
	strbuf_free(&sb);
	if (to == NO_INDEX)
		json_object_set_new(req, "to", json_string("all"));
	else
		json_object_set_new(req, "to", json_pack("[s]", pkey(r->c, to)));
	/* "nth": how many requests like it this run made before */
	int nth = 0;
	size_t i;
	json_t *v;
	json_array_foreach(r->mails, i, v)
		nth += json_equal(json_object_get(v, "template"), json_object_get(req, "template")) &&
		       json_equal(json_object_get(v, "subject"), json_object_get(req, "subject")) &&
		       json_equal(json_object_get(v, "to"), json_object_get(req, "to")) &&
		       json_equal(json_object_get(v, "step"), json_object_get(req, "step"));
	json_object_set_new(req, "nth", json_integer(nth));
	json_object_set_new(req, "data", data ? data : json_object());
	json_array_append_new(r->mails, req);
}

void year_mail_organiser(struct year_run *r, const char *tpl, json_t *data,
			 const char *subject)
{
	json_t *req = json_pack("{s:s, s:s, s:[], s:b, s:o, s:i}", "template", tpl, "subject",
				subject, "to", "organiser", 1, "data", data ? data : json_object(),
				"step", r->st->resolutions);
	json_array_append_new(r->mails, req);
}

/* Appends the log's events not yet in turn_events. */
void year_sync_turn_events(struct year_run *r)
{
	for (size_t i = r->turn_mark; i < r->log->count; i++)
		json_array_append(r->st->turn_events, r->log->events[i]);
	r->turn_mark = r->log->count;
}

static void decorate_field(const struct campaign *c, json_t *ev, const char *k, json_t *v)
{
	static const char *const player_fields[] = {
		"player", "winner", "loser", "owner", "defender", "invader", "besieger", "to",
		"with", "attacker", "mover", "tributary", "overlord", "asked", "ally", "by", NULL};
	size_t kl = strlen(k);
	if (json_is_string(v) && strcmp(k, "decided") == 0) {
		const char *how = json_string_value(v);
		json_object_set_new(ev, "decided_text",
				    json_string(strcmp(how, "organiser") == 0 ? "the organiser" : how));
	} else if (json_is_string(v)) {
		for (size_t i = 0; player_fields[i]; i++) {
			if (strcmp(k, player_fields[i]) != 0)
				continue;
			int p = find_player(c, json_string_value(v));
			if (p >= 0) {
				char *name = xasprintf("%s_nation", k);
				json_object_set_new(ev, name, json_string(pnation(c, p)));
				free(name);
			}
		}
	} else if (json_is_integer(v) && strcmp(k, "stages_moved") == 0) {
		json_object_set_new(ev, "stages_moved_s",
				    json_string(plural_s(json_integer_value(v))));
	} else if (json_is_integer(v) && kl >= 7 && strcmp(k + kl - 7, "half_ap") == 0) {
		char buf[24], *name = xasprintf("%.*sap", (int)(kl - 7), k);
		json_object_set_new(ev, name,
				    json_string(half_ap_format((int)json_integer_value(v), buf)));
		free(name);
	}
}

/* An organiser's action (the event's "action") as the turn's report says
 * it. */
static const char *organiser_words(const char *action)
{
	static const char *const words[][2] = {
		{"start", "The organiser started the campaign"},
		{"deadline", "The organiser set a new deadline"},
		{"pause", "The organiser paused the campaign"},
		{"resume", "The organiser resumed the campaign"},
		{"process", "The organiser processed a step early"},
		{"comment", "The organiser's note"},
		{"undo", "The organiser undid a step"},
		{"battle-result", "The organiser recorded the battle result"},
		{"replace-player", "The organiser replaced a player"},
		{"remove-player", "The organiser removed a player"},
		{"invite", "The organiser sent new invitations"},
	};
	for (size_t i = 0; action && i < sizeof words / sizeof words[0]; i++)
		if (strcmp(action, words[i][0]) == 0)
			return words[i][1];
	return "The organiser acted";
}

json_t *year_events_for_mail(const struct campaign *c, const json_t *events)
{
	json_t *out = json_array();
	size_t i;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		if (!json_is_object(ev))
			continue;
		const char *kind = jstr(ev, "kind");
		/* the dice that drew the sequence of play: the order they decided
		 * has its own mail, and their purposes are internal labels */
		const char *purpose = jstr(ev, "purpose");
		if (kind && strcmp(kind, "roll") == 0 && purpose &&
		    strncmp(purpose, "sequence of play ", 17) == 0)
			continue;
		/* invitations and setup lists sent again are no news of the
		 * year: each player's own mail is (and one player's new
		 * password is not told to the others) */
		const char *act = jstr(ev, "action");
		if (kind && strcmp(kind, "organiser") == 0 && act &&
		    (strcmp(act, "invite") == 0 || strcmp(act, "open-setup") == 0))
			continue;
		json_t *copy = json_deep_copy(ev);
		if (kind) {
			char *flag = xasprintf("k_%s", kind);
			json_object_set_new(copy, flag, json_true());
			free(flag);
		}
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)ev, k, v)
			decorate_field(c, copy, k, v);
		if (purpose) {
			char *words = year_roll_words(c, purpose);
			json_object_set_new(copy, "purpose_text", json_string(words));
			free(words);
		}
		if (kind && strcmp(kind, "organiser") == 0) {
			/* "The organiser decided the result ...", "The organiser
			 * undid a step: France's turn was undone ..." */
			const char *action = jstr(ev, "action"), *detail = jstr(ev, "detail");
			if (action && strcmp(action, "start") == 0)
				detail = NULL; /* "the campaign has started" */
			char *sentence =
				detail && *detail && action && strcmp(action, "battle-result") == 0
					? xasprintf("The organiser %s", detail)
				: detail && *detail
					? xasprintf("%s: %s", organiser_words(action), detail)
					: xasprintf("%s.", organiser_words(action));
			json_object_set_new(copy, "organiser_sentence", json_string(sentence));
			free(sentence);
		}
		json_array_append_new(out, copy);
	}
	return year_events_say_once(out);
}

/* The width of a mail's line (format=flowed wraps longer ones). */
#define POSITION_WIDTH 72

static size_t columns(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

char *year_position_wrap(const char *text)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t indent = 2; /* the list's */
	while (*text) {
		size_t len = strlen(text);
		if (indent + columns(text, len) <= POSITION_WIDTH) {
			strbuf_puts(&sb, text);
			break;
		}
		/* after the last ", " that keeps the line inside the width */
		size_t cut = 0;
		for (size_t k = 0; k + 1 < len && indent + columns(text, k + 1) <= POSITION_WIDTH;
		     k++)
			if (text[k] == ',' && text[k + 1] == ' ')
				cut = k + 1;
		if (!cut) { /* no comma in reach: as it is */
			strbuf_puts(&sb, text);
			break;
		}
		strbuf_printf(&sb, "%.*s\n    ", (int)cut, text);
		indent = 4;
		text += cut + 1;
	}
	return strbuf_take(&sb);
}

json_t *year_positions_json(const struct campaign *c)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		char ap[24];
		int held = player_province_count(c, (int)i);
		char *held_text = xasprintf("%d province%s", held, plural_s(held));
		half_ap_format(player_field_half_ap(p), ap);
		int score = rules_player_score(c, (int)i);
		char *line = p->status == PLAYER_ACTIVE
				     ? xasprintf("%s: field army of %s AP in %s, %s, %d prestige",
						 pnation(c, (int)i), ap, prov_name(c, p->location),
						 held_text, score)
				     : xasprintf("%s: %s the campaign, %d prestige", pnation(c, (int)i),
						 p->status == PLAYER_OUT ? "out of"
						 : p->status == PLAYER_JOINING ? "joining"
									       : "left",
						 score);
		char *wrapped = year_position_wrap(line);
		json_array_append_new(
			arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:i, s:b, s:s}", "player",
				       p->key, "nation", pnation(c, (int)i), "status",
				       p->status == PLAYER_ACTIVE ? "active"
				       : p->status == PLAYER_OUT ? "out"
				       : p->status == PLAYER_JOINING ? "joining" : "left",
				       "location", prov_name(c, p->location), "field_ap", ap,
				       "provinces", held, "provinces_text", held_text, "prestige",
				       score, "active", p->status == PLAYER_ACTIVE, "line", wrapped));
		free(wrapped);
		free(line);
		free(held_text);
	}
	return arr;
}

json_t *year_deadline_data(const struct year_run *r)
{
	char buf[64];
	json_t *d = json_object();
	if (r->st->deadline) {
		json_object_set_new(d, "deadline", json_string(year_format_time(r->st->deadline, buf,
										sizeof buf)));
		json_object_set_new(d, "deadline_epoch", json_integer(r->st->deadline));
	}
	return d;
}

void year_rearm_reminders(struct year_run *r)
{
	struct year_state *st = r->st;
	const struct campaign_settings *s = &r->c->settings;
	st->reminders_sent = 0;
	/* a reminder whose time has already come under this deadline (the step
	 * is shorter than its offset) is never sent: not with the mail that
	 * opens the step, not late */
	for (int i = 0; i < 4 && s->reminder_hours[i] > 0; i++)
		if (!st->deadline || r->now >= st->deadline - (int64_t)s->reminder_hours[i] * HOUR)
			st->reminders_sent |= 1u << i;
}

void year_set_deadline_hours(struct year_run *r, int hours)
{
	r->st->deadline = r->now + (int64_t)(hours > 0 ? hours : 1) * HOUR;
	year_rearm_reminders(r);
}

/* ---------------------------------------------------------------- orders */

void year_load_orders_at(struct year_run *r, int player, int year, int phase,
			 struct order_set *set)
{
	char *text = r->io->orders_load(r->io->ctx, player, year, phase);
	if (text)
		orders_parse(text, r->c, player, set);
	else
		orders_set_init(set);
	free(text);
}

void year_load_orders(struct year_run *r, int player, struct order_set *set)
{
	year_load_orders_at(r, player, r->c->year, r->c->phase, set);
}

bool year_is_movement(enum order_kind k)
{
	return k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT ||
	       k == ORDER_NO_MOVE || k == ORDER_SALLY || k == ORDER_ASK_ALLIES ||
	       k == ORDER_CALL_OFF;
}

bool year_is_recruitment(enum order_kind k)
{
	return k == ORDER_RECRUIT || k == ORDER_DISMISS || k == ORDER_RETRIEVE_GENERAL ||
	       k == ORDER_EXCHANGE;
}

const struct order *year_find_kind(const struct order_set *set, enum order_kind k)
{
	for (size_t i = set->count; i-- > 0;)
		if (set->orders[i].kind == k && set->orders[i].status == ORDER_OK)
			return &set->orders[i];
	return NULL;
}

const struct order *year_find_movement(const struct order_set *set)
{
	for (size_t i = set->count; i-- > 0;)
		if (year_is_movement(set->orders[i].kind) && set->orders[i].status == ORDER_OK)
			return &set->orders[i];
	return NULL;
}

/* ALLOW/DENY PASSAGE or SUPPLY of `set` about `mover`: 1 allow, 0 deny, -1
 * no standing order. A named order comes before ALL. */
int year_permission_of(const struct order_set *set, int mover, bool supply)
{
	enum order_kind allow = supply ? ORDER_ALLOW_SUPPLY : ORDER_ALLOW_PASSAGE;
	enum order_kind deny = supply ? ORDER_DENY_SUPPLY : ORDER_DENY_PASSAGE;
	int any = -1;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || (o->kind != allow && o->kind != deny))
			continue;
		int v = o->kind == allow;
		if (o->target == mover)
			return v;
		if (o->target == ORDERS_ANY)
			any = v;
	}
	return any;
}

static enum storm_choice storm_of(const struct order_set *set)
{
	const struct order *o = year_find_kind(set, ORDER_IN_STORM);
	if (o && o->choice == CHOICE_HALT)
		return STORM_HALT;
	if (o && o->choice == CHOICE_RETURN)
		return STORM_RETURN;
	return STORM_CONTINUE;
}

enum storm_choice year_player_storm(struct year_run *r, int player)
{
	struct order_set set;
	year_load_orders(r, player, &set);
	enum storm_choice s = storm_of(&set);
	orders_set_free(&set);
	return s;
}

/* IF INVADED for the province (a named one before ANY): the order or NULL. */
const struct order *year_if_invaded(const struct order_set *set, int province)
{
	const struct order *any = NULL;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_IF_INVADED)
			continue;
		if (o->province == province)
			return o;
		if (o->province == ORDERS_ANY)
			any = o;
	}
	return any;
}

/* The ally's standing answer for `side`: 1 a contingent (CONTINGENT FOR
 * side), 0 none (ANSWER ALLIES NO, or YES without troops named), -1 no
 * standing order. */
int year_ally_answer(const struct order_set *set, int side, const struct order **contingent)
{
	const struct order *no = NULL, *yes = NULL;
	*contingent = NULL;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (o->kind == ORDER_CONTINGENT_FOR && o->target == side)
			*contingent = o;
		if (o->kind == ORDER_ANSWER_ALLIES && o->choice == CHOICE_NO)
			no = o;
		else if (o->kind == ORDER_ANSWER_ALLIES)
			yes = o;
	}
	if (no && (!yes || no > yes))
		return 0;
	if (*contingent)
		return 1;
	return yes ? 0 : -1;
}

/* The player's VOTE: CHOICE_CONTINUE, CHOICE_END or CHOICE_NONE. */
enum order_choice year_vote_of(struct year_run *r, int p)
{
	struct order_set set;
	year_load_orders(r, p, &set);
	const struct order *o = year_find_kind(&set, ORDER_VOTE);
	enum order_choice v = o ? o->choice : CHOICE_NONE;
	orders_set_free(&set);
	return v;
}

void year_refused(struct year_run *r, int player, const char *order, const char *reason)
{
	year_refused_instead(r, player, order, reason, NULL);
}

void year_refused_instead(struct year_run *r, int player, const char *order, const char *reason,
			  const char *instead)
{
	event_emit(r->log, "order_refused", RULE_GAME_YEAR, "{s:s, s:s, s:s}", "player",
		   pkey(r->c, player), "order", order ? order : "", "reason", reason);
	/* never only an event: the player is mailed at once */
	if (player < 0 || (size_t)player >= r->c->player_count)
		return;
	json_t *d = json_pack("{s:s, s:s}", "order", order && *order ? order : "your order",
			      "reason", reason ? reason : "");
	if (instead && *instead)
		json_object_set_new(d, "instead", json_string(instead));
	year_mail(r, "order-refused", player, false, d, "Your order was not carried out");
}

bool year_phase_may_begin(struct year_run *r, int year, int phase)
{
	if (!r->io->phase_may_begin || r->io->phase_may_begin(r->io->ctx, year, phase))
		return true;
	r->st->paused = true;
	r->st->deadline = 0;
	return false;
}
