/* The campaign year by mail: the state machine (see year.h and doc/rules.md,
 * "Running the year by mail"). */
#include "config.h"

#include "dbm/year.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOUR 3600
#define MAX_PATH 16
#define RUN_GUARD 1000 /* resolutions in one run: far beyond any real year */

/* ---------------------------------------------------------------- small helpers */

static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t size, const char *fmt, ...)
{
	if (!why || !size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

static const char *pkey(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->player_count ? c->players[p].key : "nobody";
}

static const char *pnation(const struct campaign *c, int p)
{
	if (p < 0 || (size_t)p >= c->player_count)
		return "nobody";
	return c->players[p].nation ? c->players[p].nation : c->players[p].key;
}

static const char *prov_name(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->province_count ? c->provinces[p].name : "nowhere";
}

static int find_province(const struct campaign *c, const char *name)
{
	return name ? campaign_find_province(c, name) : NO_INDEX;
}

static int find_player(const struct campaign *c, const char *key)
{
	return key ? campaign_find_player(c, key) : NO_INDEX;
}

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int jint(const json_t *o, const char *k, int dflt)
{
	const json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static bool active(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->player_count && c->players[p].status == PLAYER_ACTIVE;
}

const char *year_format_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, size, "%" PRId64, t);
	return buf;
}

/* ---------------------------------------------------------------- state */

void year_state_init(struct year_state *st)
{
	memset(st, 0, sizeof *st);
	st->turn_events = json_array();
}

void year_state_free(struct year_state *st)
{
	free(st->sequence);
	json_decref(st->pending);
	json_decref(st->turn_events);
	memset(st, 0, sizeof *st);
}

static const char *const step_names[] = {"idle", "turn", "decision", "battle",
					 "recruitment", "vote", "ended"};

json_t *year_state_to_json(const struct year_state *st, const struct campaign *c)
{
	json_t *seq = json_array();
	for (size_t i = 0; i < st->sequence_len; i++)
		json_array_append_new(seq, json_string(pkey(c, st->sequence[i])));
	json_t *doc = json_pack("{s:i, s:s, s:o, s:I, s:I, s:I, s:b, s:I, s:i}", "version", 1,
				"step", step_names[st->step], "sequence", seq, "turn",
				(json_int_t)st->turn, "deadline", (json_int_t)st->deadline,
				"reminders_sent", (json_int_t)st->reminders_sent, "paused",
				st->paused, "paused_left", (json_int_t)st->paused_left,
				"resolutions", st->resolutions);
	json_object_set(doc, "pending", st->pending ? st->pending : json_null());
	json_object_set(doc, "turn_events", st->turn_events ? st->turn_events : json_null());
	return doc;
}

int year_state_from_json(struct year_state *st, const json_t *doc, const struct campaign *c,
			 char **errstr)
{
	year_state_init(st);
	const char *step = jstr(doc, "step");
	int found = -1;
	for (size_t i = 0; step && i < sizeof step_names / sizeof *step_names; i++)
		if (strcmp(step, step_names[i]) == 0)
			found = (int)i;
	if (!json_is_object(doc) || found < 0) {
		*errstr = xstrdup("year state: no valid \"step\"");
		year_state_free(st);
		return -1;
	}
	st->step = (enum year_step)found;
	const json_t *seq = json_object_get(doc, "sequence");
	size_t n = json_array_size(seq);
	st->sequence = xcalloc(n ? n : 1, sizeof *st->sequence);
	for (size_t i = 0; i < n; i++) {
		int p = find_player(c, json_string_value(json_array_get(seq, i)));
		if (p < 0) {
			*errstr = xasprintf("year state: sequence[%zu]: unknown player", i);
			year_state_free(st);
			return -1;
		}
		st->sequence[st->sequence_len++] = p;
	}
	st->turn = (size_t)json_integer_value(json_object_get(doc, "turn"));
	st->deadline = json_integer_value(json_object_get(doc, "deadline"));
	st->reminders_sent = (unsigned)json_integer_value(json_object_get(doc, "reminders_sent"));
	st->paused = json_is_true(json_object_get(doc, "paused"));
	st->paused_left = json_integer_value(json_object_get(doc, "paused_left"));
	st->resolutions = jint(doc, "resolutions", 0);
	json_t *pending = json_object_get(doc, "pending");
	if (json_is_object(pending))
		st->pending = json_deep_copy(pending);
	json_t *events = json_object_get(doc, "turn_events");
	if (json_is_array(events)) {
		json_decref(st->turn_events);
		st->turn_events = json_deep_copy(events);
	}
	return 0;
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

/* Queues a mail request; `to` is a player index, or NO_INDEX for everyone.
 * Steals `data`. */
static void mail(struct year_run *r, const char *tpl, int to, bool organiser_copy,
		 json_t *data, const char *subject_fmt, ...) __attribute__((format(printf, 6, 7)));
static void mail(struct year_run *r, const char *tpl, int to, bool organiser_copy,
		 json_t *data, const char *subject_fmt, ...)
{
	va_list ap;
	va_start(ap, subject_fmt);
	struct strbuf sb = {0};
	strbuf_vprintf(&sb, subject_fmt, ap);
	va_end(ap);
	json_t *req = json_pack("{s:s, s:s, s:b}", "template", tpl, "subject", sb.data,
				"organiser", organiser_copy);
	strbuf_free(&sb);
	if (to == NO_INDEX)
		json_object_set_new(req, "to", json_string("all"));
	else
		json_object_set_new(req, "to", json_pack("[s]", pkey(r->c, to)));
	json_object_set_new(req, "data", data ? data : json_object());
	json_array_append_new(r->mails, req);
}

static void mail_organiser(struct year_run *r, const char *tpl, json_t *data,
			   const char *subject)
{
	json_t *req = json_pack("{s:s, s:s, s:[], s:b, s:o}", "template", tpl, "subject", subject,
				"to", "organiser", 1, "data", data ? data : json_object());
	json_array_append_new(r->mails, req);
}

/* Appends the log's events not yet in turn_events. */
static void sync_turn_events(struct year_run *r)
{
	for (size_t i = r->turn_mark; i < r->log->count; i++)
		json_array_append(r->st->turn_events, r->log->events[i]);
	r->turn_mark = r->log->count;
}

static void decorate_field(const struct campaign *c, json_t *ev, const char *k, json_t *v)
{
	static const char *const player_fields[] = {
		"player", "winner", "loser", "owner", "defender", "invader", "besieger", "to",
		"with", "attacker", "mover", "tributary", "overlord", "asked", NULL};
	size_t kl = strlen(k);
	if (json_is_string(v)) {
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
	} else if (json_is_integer(v) && kl >= 7 && strcmp(k + kl - 7, "half_ap") == 0) {
		char buf[24], *name = xasprintf("%.*sap", (int)(kl - 7), k);
		json_object_set_new(ev, name,
				    json_string(half_ap_format((int)json_integer_value(v), buf)));
		free(name);
	}
}

json_t *year_events_for_mail(const struct campaign *c, const json_t *events)
{
	json_t *out = json_array();
	size_t i;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		if (!json_is_object(ev))
			continue;
		json_t *copy = json_deep_copy(ev);
		const char *kind = jstr(ev, "kind");
		if (kind) {
			char *flag = xasprintf("k_%s", kind);
			json_object_set_new(copy, flag, json_true());
			free(flag);
		}
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)ev, k, v)
			decorate_field(c, copy, k, v);
		json_array_append_new(out, copy);
	}
	return out;
}

static json_t *positions_json(const struct campaign *c)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		char ap[24];
		json_array_append_new(
			arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:b}", "player", p->key,
				       "nation", pnation(c, (int)i), "status",
				       p->status == PLAYER_ACTIVE ? "active"
				       : p->status == PLAYER_OUT ? "out" : "left",
				       "location", prov_name(c, p->location), "field_ap",
				       half_ap_format(player_field_half_ap(p), ap), "provinces",
				       player_province_count(c, (int)i), "prestige",
				       rules_player_score(c, (int)i), "active",
				       p->status == PLAYER_ACTIVE));
	}
	return arr;
}

static json_t *deadline_data(const struct year_run *r)
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

static void set_deadline_hours(struct year_run *r, int hours)
{
	r->st->deadline = r->now + (int64_t)(hours > 0 ? hours : 1) * HOUR;
	r->st->reminders_sent = 0;
}

/* ---------------------------------------------------------------- orders */

static void load_orders_at(struct year_run *r, int player, int year, int phase,
			   struct order_set *set)
{
	char *text = r->io->orders_load(r->io->ctx, player, year, phase);
	if (text)
		orders_parse(text, r->c, player, set);
	else
		orders_set_init(set);
	free(text);
}

static void load_orders(struct year_run *r, int player, struct order_set *set)
{
	load_orders_at(r, player, r->c->year, r->c->phase, set);
}

static bool is_movement(enum order_kind k)
{
	return k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT ||
	       k == ORDER_NO_MOVE;
}

static bool is_recruitment(enum order_kind k)
{
	return k == ORDER_RECRUIT || k == ORDER_DISMISS || k == ORDER_RETRIEVE_GENERAL;
}

static const struct order *find_kind(const struct order_set *set, enum order_kind k)
{
	for (size_t i = set->count; i-- > 0;)
		if (set->orders[i].kind == k && set->orders[i].status == ORDER_OK)
			return &set->orders[i];
	return NULL;
}

static const struct order *find_movement(const struct order_set *set)
{
	for (size_t i = set->count; i-- > 0;)
		if (is_movement(set->orders[i].kind) && set->orders[i].status == ORDER_OK)
			return &set->orders[i];
	return NULL;
}

/* ALLOW/DENY PASSAGE or SUPPLY of `set` about `mover`: 1 allow, 0 deny, -1
 * no standing order. A named order comes before ALL. */
static int permission_of(const struct order_set *set, int mover, bool supply)
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
	const struct order *o = find_kind(set, ORDER_IN_STORM);
	if (o && o->choice == CHOICE_HALT)
		return STORM_HALT;
	if (o && o->choice == CHOICE_RETURN)
		return STORM_RETURN;
	return STORM_CONTINUE;
}

static enum storm_choice player_storm(struct year_run *r, int player)
{
	struct order_set set;
	load_orders(r, player, &set);
	enum storm_choice s = storm_of(&set);
	orders_set_free(&set);
	return s;
}

static int retreat_preference(struct year_run *r, int player)
{
	struct order_set set;
	load_orders(r, player, &set);
	const struct order *o = find_kind(&set, ORDER_RETREAT_PREFER);
	int p = o && o->via_count ? o->via[0] : NO_INDEX;
	orders_set_free(&set);
	return p;
}

/* IF INVADED for the province (a named one before ANY): the order or NULL. */
static const struct order *if_invaded(const struct order_set *set, int province)
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

/* Allies on call (rules 2.2, 2.3): a side's direct tributaries and its
 * overlord, when they are not bound to the other side too (they may not
 * attack it). Other players are called only when they agreed in advance
 * (may_volunteer). */
static bool ally_of(const struct campaign *c, int ally, int side, int enemy)
{
	if (!active(c, ally) || ally == side || ally == enemy)
		return false;
	if (!rules_tributary_related(c, ally, side))
		return false;
	return !rules_tributary_related(c, ally, enemy);
}

/* The ally's standing answer for `side`: 1 a contingent (CONTINGENT FOR
 * side), 0 none (ANSWER ALLIES NO, or YES without troops named), -1 no
 * standing order. */
static int ally_answer(const struct order_set *set, int side, const struct order **contingent)
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

/* May `ally`, bound to neither side, be called for `side` against `enemy`
 * as a player who agreed in advance (rules 1.4 Ally: any player may help)?
 * Only if he has not moved or invaded this year: the Ally option excludes
 * the others (one who already sent a contingent may send more). Whether
 * he agreed is his standing CONTINGENT FOR (ally_answer); he is never
 * asked. */
static bool may_volunteer(const struct campaign *c, int ally, int side, int enemy)
{
	if (!active(c, ally) || ally == side || ally == enemy)
		return false;
	if (rules_tributary_related(c, ally, side) || rules_tributary_related(c, ally, enemy))
		return false;
	int option = c->players[ally].movement_option;
	return option == OPTION_NONE || option == OPTION_ALLY;
}

/* Orders carried into a new phase: the standing orders and those sent in
 * advance; `drop` says which kinds stay behind. */
enum carry { CARRY_ALL, CARRY_TO_RECRUITMENT, CARRY_TO_CAMPAIGN };

static bool carried(enum order_kind k, enum carry how)
{
	if (k == ORDER_RECALL_CONTINGENTS || k == ORDER_LEAVE)
		return how == CARRY_ALL;
	switch (how) {
	case CARRY_ALL:
		return true;
	case CARRY_TO_RECRUITMENT:
		return !is_movement(k);
	case CARRY_TO_CAMPAIGN:
		return !is_recruitment(k) && k != ORDER_NO_MOVE && k != ORDER_VOTE;
	}
	return false;
}

static void carry_orders(struct year_run *r, int from_year, int from_phase, enum carry how)
{
	for (size_t p = 0; p < r->c->player_count; p++) {
		struct order_set old, kept, now, merged;
		load_orders_at(r, (int)p, from_year, from_phase, &old);
		load_orders(r, (int)p, &now);
		orders_set_init(&kept);
		kept.player = (int)p;
		for (size_t i = 0; i < old.count; i++)
			if (old.orders[i].status == ORDER_OK && carried(old.orders[i].kind, how))
				order_copy(orders_set_add(&kept), &old.orders[i]);
		orders_merge(&kept, &now, &merged);
		merged.player = (int)p;
		if (merged.count) {
			char *text = orders_format_pending(&merged, r->c);
			r->io->orders_save(r->io->ctx, (int)p, r->c->year, r->c->phase, text);
			free(text);
		}
		orders_set_free(&old);
		orders_set_free(&kept);
		orders_set_free(&now);
		orders_set_free(&merged);
	}
}

/* ---------------------------------------------------------------- step names */

const char *year_step_name(const struct year_state *st, const struct campaign *c, char *buf,
			   size_t size)
{
	switch (st->step) {
	case YEAR_IDLE:
		snprintf(buf, size, "start");
		break;
	case YEAR_TURN:
		snprintf(buf, size, "turn-%s",
			 st->turn < st->sequence_len ? pkey(c, st->sequence[st->turn]) : "none");
		break;
	case YEAR_DECISION: {
		const json_t *aw = json_object_get(st->pending, "asked");
		snprintf(buf, size, "decision-%s",
			 json_array_size(aw) ? json_string_value(json_array_get(aw, 0)) : "none");
		break;
	}
	case YEAR_BATTLE:
		snprintf(buf, size, "battle-%s", jstr(st->pending, "province")
						 ? jstr(st->pending, "province") : "none");
		break;
	case YEAR_RECRUITMENT:
		snprintf(buf, size, "recruitment");
		break;
	case YEAR_VOTE:
		snprintf(buf, size, "vote");
		break;
	case YEAR_ENDED:
		snprintf(buf, size, "ended");
		break;
	}
	return buf;
}

bool year_step_is(const struct year_state *st, const struct campaign *c, const char *name)
{
	char buf[256];
	year_step_name(st, c, buf, sizeof buf);
	return name && name_equal(buf, name);
}

/* ---------------------------------------------------------------- what is awaited */

static bool recruitment_done(struct year_run *r, int p)
{
	const struct player *pl = &r->c->players[p];
	if (player_reserve_half_ap(pl) == 0)
		return true;
	struct order_set set;
	load_orders(r, p, &set);
	bool done = false;
	for (size_t i = 0; i < set.count && !done; i++)
		done = set.orders[i].status == ORDER_OK &&
		       (is_recruitment(set.orders[i].kind) || set.orders[i].kind == ORDER_NO_MOVE);
	orders_set_free(&set);
	return done;
}

/* The player's VOTE: CHOICE_CONTINUE, CHOICE_END or CHOICE_NONE. */
static enum order_choice vote_of(struct year_run *r, int p)
{
	struct order_set set;
	load_orders(r, p, &set);
	const struct order *o = find_kind(&set, ORDER_VOTE);
	enum order_choice v = o ? o->choice : CHOICE_NONE;
	orders_set_free(&set);
	return v;
}

/* Decision answers: has `asked` answered what the pending decision needs? */
static bool decision_answered(struct year_run *r, int asked)
{
	const json_t *pd = r->st->pending;
	const char *kind = jstr(pd, "kind");
	struct order_set set;
	load_orders(r, asked, &set);
	bool ok = false;
	if (kind && strcmp(kind, "defence") == 0) {
		ok = if_invaded(&set, find_province(r->c, jstr(pd, "province"))) != NULL;
	} else if (kind && strcmp(kind, "allies") == 0) {
		const struct order *o;
		int side = find_player(r->c, jstr(json_object_get(pd, "for"), pkey(r->c, asked)));
		ok = ally_answer(&set, side, &o) >= 0;
	} else {
		int mover = find_player(r->c, jstr(pd, "mover"));
		const char *key = pkey(r->c, asked);
		bool need_pass = false, need_supply = false;
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(pd, "passage"), i, v)
			need_pass |= strcmp(json_string_value(v), key) == 0;
		json_array_foreach(json_object_get(pd, "supply"), i, v)
			need_supply |= strcmp(json_string_value(v), key) == 0;
		ok = (!need_pass || permission_of(&set, mover, false) >= 0) &&
		     (!need_supply || permission_of(&set, mover, true) >= 0);
	}
	orders_set_free(&set);
	return ok;
}

/* The players a step waits for, as indices into out (c->player_count). */
static size_t awaited(struct year_run *r, int *out)
{
	const struct campaign *c = r->c;
	const struct year_state *st = r->st;
	size_t n = 0;
	switch (st->step) {
	case YEAR_TURN:
		if (st->turn < st->sequence_len)
			out[n++] = st->sequence[st->turn];
		break;
	case YEAR_DECISION: {
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(st->pending, "asked"), i, v) {
			int p = find_player(c, json_string_value(v));
			if (p >= 0 && !decision_answered(r, p))
				out[n++] = p;
		}
		break;
	}
	case YEAR_BATTLE: {
		if (json_is_true(json_object_get(st->pending, "disputed")))
			break;
		const json_t *reports = json_object_get(st->pending, "reports");
		const char *sides[] = {jstr(st->pending, "attacker"), jstr(st->pending, "defender")};
		for (int s = 0; s < 2; s++) {
			int p = find_player(c, sides[s]);
			if (p >= 0 && !json_object_get(reports, sides[s]))
				out[n++] = p;
		}
		break;
	}
	case YEAR_RECRUITMENT:
		for (size_t p = 0; p < c->player_count; p++)
			if (active(c, (int)p) && !recruitment_done(r, (int)p))
				out[n++] = (int)p;
		break;
	case YEAR_VOTE:
		for (size_t p = 0; p < c->player_count; p++)
			if (active(c, (int)p) && vote_of(r, (int)p) == CHOICE_NONE)
				out[n++] = (int)p;
		break;
	default:
		break;
	}
	return n;
}

json_t *year_awaited(const struct year_state *st, const struct campaign *c,
		     const struct year_io *io)
{
	struct event_log log;
	event_log_init(&log);
	struct year_run r;
	year_run_init(&r, (struct campaign *)c, (struct year_state *)st, NULL, &log, 0, io);
	int *who = xcalloc(c->player_count + 1, sizeof *who);
	size_t n = awaited(&r, who);
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_string(pkey(c, who[i])));
	free(who);
	year_run_free(&r);
	event_log_free(&log);
	return arr;
}

char *year_step_describe(const struct year_state *st, const struct campaign *c)
{
	const json_t *pd = st->pending;
	switch (st->step) {
	case YEAR_IDLE:
		return xstrdup("the campaign has not been started");
	case YEAR_TURN:
		return xasprintf("the turn of %s: a movement option (INVADE, MOVE, SEND CONTINGENT "
				 "or NO MOVE)",
				 st->turn < st->sequence_len ? pnation(c, st->sequence[st->turn])
							     : "nobody");
	case YEAR_DECISION:
		if (jstr(pd, "kind") && strcmp(jstr(pd, "kind"), "allies") == 0)
			return xasprintf("the allies' answers before the battle at %s (ANSWER ALLIES, "
					 "CONTINGENT FOR)", jstr(pd, "province"));
		if (jstr(pd, "kind") && strcmp(jstr(pd, "kind"), "defence") == 0)
			return xasprintf("%s's answer to the invasion of %s by %s (IF INVADED)",
					 pnation(c, find_player(c, jstr(pd, "defender"))),
					 jstr(pd, "province"),
					 pnation(c, find_player(c, jstr(pd, "attacker"))));
		return xasprintf("permission for the move of %s (ALLOW/DENY PASSAGE or SUPPLY)",
				 pnation(c, find_player(c, jstr(pd, "mover"))));
	case YEAR_BATTLE:
		return xasprintf("the result of the battle at %s (%s)", jstr(pd, "province"),
				 json_is_true(json_object_get(pd, "disputed"))
					 ? "the reports differ or are missing: the organiser decides"
					 : "a report from each side");
	case YEAR_RECRUITMENT:
		return xstrdup("every player's recruitment orders (RECRUIT, DISMISS, RETRIEVE "
			       "GENERAL, or NO MOVE for none)");
	case YEAR_VOTE:
		return xstrdup("every player's VOTE CONTINUE or VOTE END");
	case YEAR_ENDED:
		return xstrdup("nothing: the campaign has ended");
	}
	return xstrdup("");
}

/* ---------------------------------------------------------------- reminders */

static void send_reminders(struct year_run *r)
{
	const struct campaign_settings *s = &r->c->settings;
	struct year_state *st = r->st;
	if (!st->deadline || r->now >= st->deadline)
		return;
	int best = -1;
	for (int i = 0; i < 4 && s->reminder_hours[i] > 0; i++)
		if (r->now >= st->deadline - (int64_t)s->reminder_hours[i] * HOUR &&
		    (best < 0 || s->reminder_hours[i] < s->reminder_hours[best]))
			best = i;
	if (best < 0 || (st->reminders_sent & (1u << best)))
		return;
	for (int i = 0; i < 4 && s->reminder_hours[i] > 0; i++)
		if (s->reminder_hours[i] >= s->reminder_hours[best])
			st->reminders_sent |= 1u << i;
	int *who = xcalloc(r->c->player_count + 1, sizeof *who);
	size_t n = awaited(r, who);
	char *what = year_step_describe(st, r->c);
	for (size_t i = 0; i < n; i++) {
		json_t *d = deadline_data(r);
		json_object_set_new(d, "waiting_for", json_string(what));
		json_object_set_new(d, "hours_left",
				    json_integer((st->deadline - r->now + HOUR - 1) / HOUR));
		mail(r, "reminder", who[i], false, d, "Reminder: %s, %d", r->c->name ? r->c->name : "",
		     r->c->year);
	}
	free(what);
	free(who);
}

/* ---------------------------------------------------------------- turns */

static void enter_turn(struct year_run *r);
static void begin_recruitment(struct year_run *r);
static void finish_year(struct year_run *r, int year);

static void checkpoint(struct year_run *r)
{
	char name[256];
	year_step_name(r->st, r->c, name, sizeof name);
	sync_turn_events(r);
	r->io->checkpoint(r->io->ctx, name);
	r->st->resolutions++;
}

/* The turn is over: report, merge returning contingents, next player. */
static void end_turn(struct year_run *r)
{
	struct year_state *st = r->st;
	int p = st->turn < st->sequence_len ? st->sequence[st->turn] : NO_INDEX;
	rules_contingent_rejoin_returning(r->c, NO_INDEX, r->log);
	sync_turn_events(r);
	json_t *d = json_pack("{s:s, s:s, s:o, s:o}", "mover", pkey(r->c, p), "mover_nation",
			      pnation(r->c, p), "events",
			      year_events_for_mail(r->c, st->turn_events), "positions",
			      positions_json(r->c));
	mail(r, "turn-report", NO_INDEX, true, d, "%d: the turn of %s", r->c->year,
	     pnation(r->c, p));
	json_decref(st->turn_events);
	st->turn_events = json_array();
	json_decref(st->pending);
	st->pending = NULL;
	st->turn++;
	enter_turn(r);
}

static void enter_turn(struct year_run *r)
{
	struct year_state *st = r->st;
	while (st->turn < st->sequence_len && !active(r->c, st->sequence[st->turn]))
		st->turn++;
	if (st->turn >= st->sequence_len) {
		begin_recruitment(r);
		return;
	}
	int p = st->sequence[st->turn];
	st->step = YEAR_TURN;
	json_decref(st->pending);
	st->pending = NULL;
	set_deadline_hours(r, r->c->settings.turn_deadline_hours);
	sync_turn_events(r);
	json_decref(st->turn_events);
	st->turn_events = json_array();
	event_emit(r->log, "turn", RULE_GAME_YEAR, "{s:s, s:i, s:I}", "player", pkey(r->c, p),
		   "place", (int)st->turn + 1, "deadline", (json_int_t)st->deadline);

	struct order_set set;
	load_orders(r, p, &set);
	const struct order *mv = find_movement(&set);
	json_t *d = deadline_data(r);
	json_t *stored = r->io->year_events(r->io->ctx, r->c->year);
	json_object_set_new(d, "events", year_events_for_mail(r->c, stored));
	json_decref(stored);
	json_object_set_new(d, "positions", positions_json(r->c));
	json_object_set_new(d, "turn_number", json_integer((json_int_t)st->turn + 1));
	json_object_set_new(d, "orders_in", json_boolean(mv != NULL));
	char *pending_text = orders_format_pending(&set, r->c);
	json_object_set_new(d, "pending_orders", json_string(pending_text));
	json_object_set_new(d, "has_pending_orders", json_boolean(*pending_text != '\0'));
	free(pending_text);
	orders_set_free(&set);
	mail(r, "your-turn", p, false, d, "%d: your turn, %s", r->c->year, pnation(r->c, p));
}

static void refused(struct year_run *r, int player, const char *order, const char *reason)
{
	event_emit(r->log, "order_refused", RULE_GAME_YEAR, "{s:s, s:s, s:s}", "player",
		   pkey(r->c, player), "order", order ? order : "", "reason", reason);
}

static void start_battle(struct year_run *r, int attacker, int defender, int province,
			 int came_from);

/* A siege round by `besieger` at `province`, announced in the turn report. */
static void siege_round(struct year_run *r, int besieger, int province)
{
	bool captured = false;
	struct rules_reason why;
	if (rules_siege_round(r->c, besieger, province, NULL, r->dice, r->log, &captured, &why) !=
	    RULES_OK)
		refused(r, besieger, "siege", why.text);
}

static void permissions_given(struct year_run *r, int mover, bool *passage, bool *supply);

/* The ally sends the contingent of its CONTINGENT FOR order to `side`'s
 * field army: as its overlord's order when `side` is its overlord. */
static void send_on_call(struct year_run *r, int ally, int side, const struct order *o)
{
	struct campaign *c = r->c;
	const struct player *pl = &c->players[ally];
	int *troops = xcalloc(pl->list.count + 1, sizeof *troops);
	for (size_t i = 0; i < o->item_count; i++)
		if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count)
			troops[o->items[i].type] += o->items[i].count;
	size_t np = c->player_count;
	bool *passage = xcalloc(np + 1, sizeof *passage);
	bool *supply = xcalloc(np + 1, sizeof *supply);
	permissions_given(r, ally, passage, supply);
	struct contingent_order co = {.owner = ally, .to_player = side, .troops = troops,
				      .on_storm = player_storm(r, ally), .force_passage = true,
				      .passage = passage};
	struct rules_reason why;
	int index = NO_INDEX;
	enum rules_status st =
		c->players[ally].overlord == side
			? rules_tributary_order_contingent(c, side, &co, r->dice, r->log, &index,
							   &why)
			: rules_contingent_send(c, &co, r->dice, r->log, &index, &why);
	if (st != RULES_OK) {
		char *text = orders_format_one(o, c, ally);
		refused(r, ally, text, why.text);
		free(text);
	}
	free(troops);
	free(passage);
	free(supply);
}

/* A player who agreed in advance to help `side` (o: his standing
 * CONTINGENT FOR side, or NULL) sends that contingent, unless he agreed to
 * help `enemy` too: he cannot take both sides, so he sends nothing and is
 * told so once (when `tell`). */
static void volunteer(struct year_run *r, int ally, int side, int enemy, bool tell,
		      const struct order_set *set, const struct order *o)
{
	if (!o)
		return;
	const struct order *other;
	if (ally_answer(set, enemy, &other) == 1) {
		if (tell) {
			char *text = orders_format_one(o, r->c, ally);
			char *why = xasprintf("%s has a standing CONTINGENT FOR both sides of the "
					      "battle between %s and %s: no contingent is sent",
					      pkey(r->c, ally), pkey(r->c, side), pkey(r->c, enemy));
			refused(r, ally, text, why);
			free(why);
			free(text);
		}
		return;
	}
	send_on_call(r, ally, side, o);
}

/* Before a battle: each side's allies answer by standing order at once;
 * the others are asked (a decision with its deadline; silence: no
 * contingent). Players who agreed in advance send their standing
 * contingent and are never asked. The battle starts when all have
 * answered. */
static void call_allies(struct year_run *r, int attacker, int defender, int province,
			int came_from)
{
	struct campaign *c = r->c;
	json_t *asked = json_array(), *sides = json_object();
	int side_of[2] = {attacker, defender};
	for (int k = 0; k < 2; k++) {
		int side = side_of[k], enemy = side_of[1 - k];
		for (size_t a = 0; a < c->player_count; a++) {
			bool tributary = ally_of(c, (int)a, side, enemy);
			if (!tributary && !may_volunteer(c, (int)a, side, enemy))
				continue;
			struct order_set set;
			load_orders(r, (int)a, &set);
			const struct order *o;
			int answer = ally_answer(&set, side, &o);
			if (!tributary) {
				volunteer(r, (int)a, side, enemy, k == 0, &set, answer == 1 ? o : NULL);
				orders_set_free(&set);
				continue;
			}
			if (answer == 1)
				send_on_call(r, (int)a, side, o);
			orders_set_free(&set);
			if (answer >= 0 || json_object_get(sides, pkey(c, (int)a)))
				continue;
			json_array_append_new(asked, json_string(pkey(c, (int)a)));
			json_object_set_new(sides, pkey(c, (int)a), json_string(pkey(c, side)));
		}
	}
	if (!json_array_size(asked)) {
		json_decref(asked);
		json_decref(sides);
		start_battle(r, attacker, defender, province, came_from);
		return;
	}
	struct year_state *st = r->st;
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "kind", "allies",
				"attacker", pkey(c, attacker), "defender", pkey(c, defender),
				"province", prov_name(c, province), "came_from",
				prov_name(c, came_from), "asked", asked, "for", sides);
	st->step = YEAR_DECISION;
	set_deadline_hours(r, c->settings.decision_deadline_hours);
	size_t i;
	json_t *v;
	json_array_foreach(asked, i, v) {
		int a = find_player(c, json_string_value(v));
		int side = find_player(c, jstr(json_object_get(st->pending, "for"),
					      json_string_value(v)));
		int enemy = side == attacker ? defender : attacker;
		event_emit(r->log, "decision_asked", RULE_CONTINGENT_MOVEMENT,
			   "{s:s, s:s, s:s, s:s}", "asked", pkey(c, a), "question", "allies",
			   "mover", pkey(c, side), "province", prov_name(c, province));
		json_t *d = deadline_data(r);
		json_object_update_new(d, json_pack("{s:b, s:s, s:s, s:s, s:s}", "is_allies", 1,
						"ally", pkey(c, side), "ally_nation",
						pnation(c, side), "enemy_nation", pnation(c, enemy),
						"province", prov_name(c, province)));
		mail(r, "decision", a, false, d, "%d: %s calls on you for a contingent", c->year,
		     pnation(c, side));
	}
}

/* The defender's answer, carried out; then battle or siege. Returns true if
 * a battle now waits for its result. */
static bool carry_out_defence(struct year_run *r, int attacker, int defender, int province,
			      int came_from, enum order_choice choice, int retreat_to)
{
	struct campaign *c = r->c;
	struct player *dp = &c->players[defender];
	int path[MAX_PATH];
	int stages = 0;
	struct rules_reason why;
	enum storm_choice storm = player_storm(r, defender);
	struct defence_order d = {.player = defender, .province = province,
				  .choice = DEFEND_SIEGE, .on_storm = storm,
				  .force_passage = true};
	if (choice == CHOICE_BATTLE) {
		d.choice = DEFEND_BATTLE;
		if (dp->location != province) {
			stages = rules_shortest_path(c, defender, dp->location, province, path,
						     MAX_PATH);
			d.path = path;
			d.stages = stages > 0 ? (size_t)stages : 0;
		}
	} else if (choice == CHOICE_RETREAT && retreat_to >= 0 && retreat_to != dp->location) {
		stages = rules_shortest_path(c, defender, dp->location, retreat_to, path, MAX_PATH);
		if (stages > 0) {
			d.path = path;
			d.stages = (size_t)stages;
		}
	}
	if (rules_defend(c, &d, r->dice, r->log, &why) != RULES_OK) {
		refused(r, defender, choice == CHOICE_BATTLE ? "IF INVADED BATTLE"
							      : "IF INVADED RETREAT",
			why.text);
		struct defence_order stay = {.player = defender, .province = province,
					     .choice = DEFEND_SIEGE, .on_storm = storm};
		if (rules_defend(c, &stay, r->dice, r->log, &why) != RULES_OK)
			refused(r, defender, "IF INVADED SIEGE", why.text);
	}
	if (d.choice == DEFEND_BATTLE && dp->location == province &&
	    c->players[attacker].location == province) {
		call_allies(r, attacker, defender, province, came_from);
		return true;
	}
	siege_round(r, attacker, province);
	return false;
}

/* The invader stands in the province: neutral cities are besieged at once;
 * a player is asked (or answers by standing order). Returns true if the turn
 * now waits (decision or battle). */
static bool invader_arrived(struct year_run *r, int attacker, int province, int came_from)
{
	struct campaign *c = r->c;
	int owner = c->provinces[province].owner;
	if (owner == NO_INDEX || !active(c, owner)) {
		siege_round(r, attacker, province);
		return false;
	}
	struct order_set set;
	load_orders(r, owner, &set);
	const struct order *o = if_invaded(&set, province);
	if (o) {
		enum order_choice ch = o->choice;
		int to = o->retreat_to;
		orders_set_free(&set);
		return carry_out_defence(r, attacker, owner, province, came_from, ch, to);
	}
	orders_set_free(&set);
	struct year_state *st = r->st;
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[s]}", "kind", "defence", "attacker",
				pkey(c, attacker), "defender", pkey(c, owner), "province",
				prov_name(c, province), "came_from", prov_name(c, came_from),
				"asked", pkey(c, owner));
	st->step = YEAR_DECISION;
	set_deadline_hours(r, c->settings.decision_deadline_hours);
	event_emit(r->log, "decision_asked", RULE_DEFENDING, "{s:s, s:s, s:s, s:s}", "asked",
		   pkey(c, owner), "question", "defence", "attacker", pkey(c, attacker),
		   "province", prov_name(c, province));
	json_t *d = deadline_data(r);
	json_object_set_new(d, "is_defence", json_true());
	json_object_set_new(d, "attacker_nation", json_string(pnation(c, attacker)));
	json_object_set_new(d, "province", json_string(prov_name(c, province)));
	json_object_set_new(d, "army_inside", json_boolean(c->players[owner].location == province));
	json_object_set_new(d, "your_location", json_string(prov_name(c, c->players[owner].location)));
	mail(r, "decision", owner, false, d, "%d: %s is invaded", c->year, prov_name(c, province));
	return true;
}

/* The players a move must ask, by kind: who controls the hostile provinces
 * it passes (or has a field army there) and, for a field army that will end
 * out of its own supply, who controls the cities that could supply it. */
static void permissions_needed(struct year_run *r, int mover, const struct order *o,
			       json_t *passage, json_t *supply)
{
	struct campaign *c = r->c;
	for (size_t i = 0; i < o->hostile_count; i++) {
		int h = o->hostile[i];
		int asked[2] = {c->provinces[h].owner, NO_INDEX};
		for (size_t p = 0; p < c->player_count; p++)
			if ((int)p != mover && active(c, (int)p) && c->players[p].location == h)
				asked[1] = (int)p;
		for (int k = 0; k < 2; k++) {
			int q = asked[k];
			if (q < 0 || q == mover || !active(c, q))
				continue;
			bool dup = false;
			size_t j;
			json_t *v;
			json_array_foreach(passage, j, v)
				dup |= strcmp(json_string_value(v), pkey(c, q)) == 0;
			if (!dup)
				json_array_append_new(passage, json_string(pkey(c, q)));
		}
	}
	if (o->kind == ORDER_SEND_CONTINGENT)
		return;
	int dest = o->province;
	int near[64];
	size_t n = campaign_neighbours(c, dest, near, 63);
	if (n > 63)
		n = 63;
	near[n++] = dest;
	bool own = false;
	for (size_t i = 0; i < n; i++) {
		int route = campaign_route_between(c, dest, near[i]);
		if (near[i] != dest && route >= 0 && c->routes[route].sea &&
		    !c->settings.supply_across_sea)
			continue;
		own |= c->provinces[near[i]].owner == mover;
	}
	if (own)
		return;
	for (size_t i = 0; i < n; i++) {
		int route = campaign_route_between(c, dest, near[i]);
		if (near[i] != dest && route >= 0 && c->routes[route].sea &&
		    !c->settings.supply_across_sea)
			continue;
		int q = c->provinces[near[i]].owner;
		if (q < 0 || q == mover || !active(c, q))
			continue;
		/* the invaded owner is not asked to feed the invader */
		if (o->kind == ORDER_INVADE && q == c->provinces[dest].owner)
			continue;
		bool dup = false;
		size_t j;
		json_t *v;
		json_array_foreach(supply, j, v)
			dup |= strcmp(json_string_value(v), pkey(c, q)) == 0;
		if (!dup)
			json_array_append_new(supply, json_string(pkey(c, q)));
	}
}

/* Passage and supply per player for the mover: what each one's standing
 * orders say (silence = no). */
static void permissions_given(struct year_run *r, int mover, bool *passage, bool *supply)
{
	for (size_t p = 0; p < r->c->player_count; p++) {
		struct order_set set;
		load_orders(r, (int)p, &set);
		passage[p] = permission_of(&set, mover, false) == 1;
		supply[p] = permission_of(&set, mover, true) == 1;
		orders_set_free(&set);
	}
}

static void order_path(const struct order *o, const int **path, size_t *stages)
{
	*stages = o->route_len > 0 ? o->route_len - 1 : 0;
	*path = *stages ? o->route + 1 : NULL;
}

/* Carries out the mover's movement order (with passage and supply as the
 * players gave them). Returns true if the turn waits (defence, battle). */
static bool carry_out_move(struct year_run *r, int mover, const struct order *o)
{
	struct campaign *c = r->c;
	size_t np = c->player_count;
	bool *passage = xcalloc(np + 1, sizeof *passage);
	bool *supply = xcalloc(np + 1, sizeof *supply);
	permissions_given(r, mover, passage, supply);
	enum storm_choice storm = player_storm(r, mover);
	char *text = orders_format_one(o, c, mover);
	const int *path;
	size_t stages;
	order_path(o, &path, &stages);
	struct rules_reason why;
	struct move_outcome out;
	bool waits = false;
	memset(&out, 0, sizeof out);
	event_emit(r->log, "turn_order", RULE_GAME_YEAR, "{s:s, s:s}", "player", pkey(c, mover),
		   "order", text ? text : "NO MOVE");
	/* A contingent sent on call during another player's turn is easily
	 * forgotten: name the option taken rather than the rules' bare refusal. */
	if ((o->kind == ORDER_MOVE || o->kind == ORDER_INVADE) &&
	    c->players[mover].movement_option == OPTION_ALLY) {
		char *reason = xasprintf("%s has already taken the Ally movement option this "
					 "year (a contingent was sent): no INVADE or MOVE until "
					 "next year", pkey(c, mover));
		refused(r, mover, text, reason);
		free(reason);
		free(text);
		free(passage);
		free(supply);
		return false;
	}
	switch (o->kind) {
	case ORDER_MOVE: {
		struct move_order m = {.player = mover, .contingent = NO_INDEX,
				       .kind = MOVE_FRIENDLY, .path = path, .stages = stages,
				       .on_storm = storm, .force_passage = true,
				       .passage = passage};
		if (rules_field_move(c, &m, r->dice, r->log, &out, &why) != RULES_OK)
			refused(r, mover, text, why.text);
		else
			rules_supply_check(c, mover, supply, out.forced_passage, NULL, r->dice,
					   r->log);
		break;
	}
	case ORDER_INVADE: {
		struct invasion_order inv = {.player = mover, .target = o->province, .path = path,
					     .stages = stages, .on_storm = storm,
					     .force_passage = true, .passage = passage};
		bool arrived = false;
		int came_from = stages >= 2 ? path[stages - 2]
			       : o->route_len ? o->route[0] : NO_INDEX;
		if (stages == 0)
			came_from = NO_INDEX;
		if (rules_invade(c, &inv, r->dice, r->log, &out, &arrived, &why) != RULES_OK) {
			refused(r, mover, text, why.text);
			break;
		}
		rules_supply_check(c, mover, supply, out.forced_passage, NULL, r->dice, r->log);
		if (arrived && c->players[mover].location == o->province)
			waits = invader_arrived(r, mover, o->province, came_from);
		break;
	}
	case ORDER_SEND_CONTINGENT: {
		const struct player *pl = &c->players[mover];
		int *troops = xcalloc(pl->list.count + 1, sizeof *troops);
		for (size_t i = 0; i < o->item_count; i++)
			if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count)
				troops[o->items[i].type] += o->items[i].count;
		struct contingent_order co = {.owner = mover, .to_player = o->target,
					      .troops = troops, .path = path, .stages = stages,
					      .on_storm = storm, .force_passage = true,
					      .passage = passage};
		int index = NO_INDEX;
		if (rules_contingent_send(c, &co, r->dice, r->log, &index, &why) != RULES_OK)
			refused(r, mover, text, why.text);
		free(troops);
		break;
	}
	default:
		event_emit(r->log, "no_move", RULE_GAME_YEAR, "{s:s}", "player", pkey(c, mover));
		break;
	}
	free(text);
	free(passage);
	free(supply);
	return waits;
}

/* The turn's movement order is known: ask permissions first if needed. */
static void resolve_turn(struct year_run *r, int mover, const struct order *o)
{
	struct campaign *c = r->c;
	if (o && o->kind != ORDER_NO_MOVE) {
		json_t *passage = json_array(), *supply = json_array();
		permissions_needed(r, mover, o, passage, supply);
		json_t *asked = json_array();
		size_t i;
		json_t *v;
		for (int pass = 0; pass < 2; pass++) {
			json_array_foreach(pass ? supply : passage, i, v) {
				int q = find_player(c, json_string_value(v));
				struct order_set set;
				load_orders(r, q, &set);
				bool known = permission_of(&set, mover, pass == 1) >= 0;
				orders_set_free(&set);
				bool dup = false;
				size_t j;
				json_t *w;
				json_array_foreach(asked, j, w)
					dup |= json_equal(w, v);
				if (!known && !dup)
					json_array_append(asked, v);
			}
		}
		if (json_array_size(asked)) {
			char *text = orders_format_one(o, c, mover);
			struct year_state *st = r->st;
			json_decref(st->pending);
			st->pending = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "kind", "permission",
						"mover", pkey(c, mover), "order", text, "passage",
						passage, "supply", supply, "asked", asked);
			st->step = YEAR_DECISION;
			set_deadline_hours(r, c->settings.decision_deadline_hours);
			json_array_foreach(asked, i, v) {
				int q = find_player(c, json_string_value(v));
				bool need_pass = false, need_supply = false;
				size_t j;
				json_t *w;
				json_array_foreach(passage, j, w)
					need_pass |= json_equal(w, v);
				json_array_foreach(supply, j, w)
					need_supply |= json_equal(w, v);
				event_emit(r->log, "decision_asked", RULE_HOSTILE_PROVINCES,
					   "{s:s, s:s, s:s, s:s}", "asked", pkey(c, q), "question",
					   need_pass && need_supply ? "passage and supply"
					   : need_pass ? "passage" : "supply",
					   "mover", pkey(c, mover), "order", text);
				json_t *d = deadline_data(r);
				json_object_set_new(d, "is_permission", json_true());
				json_object_set_new(d, "mover", json_string(pkey(c, mover)));
				json_object_set_new(d, "mover_nation", json_string(pnation(c, mover)));
				json_object_set_new(d, "order", json_string(text));
				json_object_set_new(d, "ask_passage", json_boolean(need_pass));
				json_object_set_new(d, "ask_supply", json_boolean(need_supply));
				mail(r, "decision", q, false, d, "%d: %s asks your permission", c->year,
				     pnation(c, mover));
			}
			free(text);
			return;
		}
		json_decref(passage);
		json_decref(supply);
		json_decref(asked);
	}
	struct order none = {.kind = ORDER_NO_MOVE, .status = ORDER_OK};
	if (!carry_out_move(r, mover, o ? o : &none))
		end_turn(r);
}

/* The pending decision is answered or its deadline passed. */
static void resolve_decision(struct year_run *r)
{
	struct campaign *c = r->c;
	json_t *pd = json_incref(r->st->pending);
	const char *kind = jstr(pd, "kind");
	bool waits = false;
	if (kind && strcmp(kind, "allies") == 0) {
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(pd, "asked"), i, v) {
			int a = find_player(c, json_string_value(v));
			int side = find_player(c, jstr(json_object_get(pd, "for"),
						      json_string_value(v)));
			struct order_set set;
			load_orders(r, a, &set);
			const struct order *o;
			int answer = active(c, a) ? ally_answer(&set, side, &o) : 0;
			event_emit(r->log, "decision", RULE_CONTINGENT_MOVEMENT,
				   "{s:s, s:s, s:s, s:b}", "asked", pkey(c, a), "question", "allies",
				   "answer", answer == 1 ? "contingent" : "none", "by_default",
				   answer < 0);
			if (answer == 1)
				send_on_call(r, a, side, o);
			orders_set_free(&set);
		}
		int attacker = find_player(c, jstr(pd, "attacker"));
		int defender = find_player(c, jstr(pd, "defender"));
		start_battle(r, attacker, defender, find_province(c, jstr(pd, "province")),
			     find_province(c, jstr(pd, "came_from")));
		waits = true;
	} else if (kind && strcmp(kind, "defence") == 0) {
		int attacker = find_player(c, jstr(pd, "attacker"));
		int defender = find_player(c, jstr(pd, "defender"));
		int province = find_province(c, jstr(pd, "province"));
		int came_from = find_province(c, jstr(pd, "came_from"));
		struct order_set set;
		load_orders(r, defender, &set);
		const struct order *o = if_invaded(&set, province);
		enum order_choice ch = o ? o->choice : CHOICE_SIEGE;
		int to = o ? o->retreat_to : NO_INDEX;
		event_emit(r->log, "decision", RULE_DEFENDING, "{s:s, s:s, s:s, s:b}", "asked",
			   pkey(c, defender), "question", "defence", "answer",
			   ch == CHOICE_BATTLE ? "battle" : ch == CHOICE_RETREAT ? "retreat" : "siege",
			   "by_default", o == NULL);
		orders_set_free(&set);
		waits = carry_out_defence(r, attacker, defender, province, came_from, ch, to);
	} else {
		int mover = find_player(c, jstr(pd, "mover"));
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(pd, "asked"), i, v) {
			int q = find_player(c, json_string_value(v));
			struct order_set set;
			load_orders(r, q, &set);
			int pass = permission_of(&set, mover, false);
			int sup = permission_of(&set, mover, true);
			orders_set_free(&set);
			event_emit(r->log, "decision", RULE_HOSTILE_PROVINCES,
				   "{s:s, s:s, s:s, s:s, s:b}", "asked", pkey(c, q), "question",
				   "permission", "passage", pass == 1 ? "allowed" : "denied", "supply",
				   sup == 1 ? "allowed" : "denied", "by_default", pass < 0 && sup < 0);
		}
		struct order_set set;
		orders_parse(jstr(pd, "order"), c, mover, &set);
		const struct order *o = find_movement(&set);
		struct order none = {.kind = ORDER_NO_MOVE, .status = ORDER_OK};
		if (!o)
			refused(r, mover, jstr(pd, "order"),
				"the order no longer fits the map (the army moved): no move");
		waits = carry_out_move(r, mover, o ? o : &none);
		orders_set_free(&set);
	}
	json_decref(pd);
	if (!waits)
		end_turn(r);
}

static void resolve_turn_now(struct year_run *r)
{
	struct year_state *st = r->st;
	int p = st->sequence[st->turn];
	struct order_set set;
	load_orders(r, p, &set);
	orders_validate(&set, r->c, p);
	const struct order *o = find_movement(&set);
	/* an order that was right when sent may no longer be (a tributary
	 * relation made since, a province lost): say why it is not obeyed */
	for (size_t i = 0; i < set.count && !o; i++)
		if (set.orders[i].status == ORDER_ERROR && is_movement(set.orders[i].kind))
			refused(r, p, set.orders[i].text,
				set.orders[i].error ? set.orders[i].error : "not valid now");
	if (!o)
		event_emit(r->log, "default_applied", RULE_GAME_YEAR, "{s:s, s:s}", "player",
			   pkey(r->c, p), "default", "NO MOVE");
	resolve_turn(r, p, o);
	orders_set_free(&set);
}

/* ---------------------------------------------------------------- battles */

/* The contingents in a battle: arrived ones are listed in pending. */
static void start_battle(struct year_run *r, int attacker, int defender, int province,
			 int came_from)
{
	struct campaign *c = r->c;
	json_t *arrived = json_array();
	int side_ap[2] = {player_field_half_ap(&c->players[attacker]),
			  player_field_half_ap(&c->players[defender])};
	for (size_t k = 0; k < c->contingent_count; k++) {
		struct contingent *ct = &c->contingents[k];
		int side = -1;
		if (!ct->returning && ct->with_player == attacker)
			side = 0;
		else if (!ct->returning && ct->with_player == defender)
			side = 1;
		else if (ct->returning && ct->owner == attacker)
			side = 0;
		else if (ct->returning && ct->owner == defender)
			side = 1;
		if (side < 0 || !rules_contingent_arrival(c, (int)k, r->dice, r->log))
			continue;
		int ap = troops_half_ap(&c->players[ct->owner].list, &ct->troops);
		side_ap[side] += ap;
		char buf[24];
		json_array_append_new(arrived,
				      json_pack("{s:s, s:s, s:s, s:i, s:s, s:b}", "owner",
						pkey(c, ct->owner), "owner_nation",
						pnation(c, ct->owner), "with",
						pkey(c, side ? defender : attacker), "side", side,
						"ap", half_ap_format(ap, buf), "returning",
						ct->returning));
	}
	char a[24], b[24];
	struct year_state *st = r->st;
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:[i,i], s:{}, s:b}", "kind",
				"battle", "province", prov_name(c, province), "attacker",
				pkey(c, attacker), "defender", pkey(c, defender), "came_from",
				prov_name(c, came_from), "contingents", arrived, "half_ap",
				side_ap[0], side_ap[1], "reports", "disputed", 0);
	st->step = YEAR_BATTLE;
	set_deadline_hours(r, c->settings.battle_deadline_hours);
	event_emit(r->log, "battle_announced", RULE_DEFENDING, "{s:s, s:s, s:s, s:[i,i]}",
		   "province", prov_name(c, province), "attacker", pkey(c, attacker), "defender",
		   pkey(c, defender), "half_ap", side_ap[0], side_ap[1]);
	json_t *d = deadline_data(r);
	json_object_update_new(d, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:b, s:s, s:s}",
					"province", prov_name(c, province), "terrain",
					c->provinces[province].terrain ? c->provinces[province].terrain : "",
					"climate",
					c->provinces[province].climate ? c->provinces[province].climate : "",
					"attacker", pkey(c, attacker), "attacker_nation",
					pnation(c, attacker), "defender", pkey(c, defender),
					"defender_nation", pnation(c, defender), "defender_ap",
					half_ap_format(side_ap[1], b), "contingents", arrived,
					"has_contingents", json_array_size(arrived) > 0,
					"attacker_ap", half_ap_format(side_ap[0], a), "report_example",
					""));
	char *example = xasprintf("BATTLE AT %s\nWINNER %s\nDEMORALISED %s <general's element>\n"
				  "DESTROYED %s <n> <element>\nFLED %s <n> <element>",
				  prov_name(c, province), pkey(c, attacker), pkey(c, defender),
				  pkey(c, defender), pkey(c, attacker));
	json_object_set_new(d, "report_example", json_string(example));
	free(example);
	mail(r, "battle", NO_INDEX, true, d, "%d: battle at %s", c->year, prov_name(c, province));
}

bool year_set_has_battle_lines(const struct order_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->orders[i].kind >= ORDER_BATTLE_AT &&
		    set->orders[i].kind <= ORDER_BATTLE_GENERAL_KILLED)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The canonical text of the set's result lines for the battle at
 * `province` (BATTLE AT first, the rest sorted so the order of lines does
 * not matter), or NULL if it holds none. */
static char *report_text(const struct campaign *c, const struct order_set *set, int province)
{
	char **lines = xcalloc(set->count + 1, sizeof *lines);
	size_t n = 0;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind <= ORDER_BATTLE_AT ||
		    o->kind > ORDER_BATTLE_GENERAL_KILLED || o->province != province)
			continue;
		lines[n++] = orders_format_one(o, c, -1);
	}
	qsort(lines, n, sizeof *lines, cmp_str);
	struct strbuf sb = {0};
	if (n) {
		strbuf_printf(&sb, "BATTLE AT %s\n", prov_name(c, province));
		for (size_t i = 0; i < n; i++)
			strbuf_printf(&sb, "%s\n", lines[i] ? lines[i] : "");
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return n ? strbuf_take(&sb) : NULL;
}

/* Counts per element type for one force in the battle. */
struct party_counts {
	int *destroyed, *fled, *withdrawn, *killed;
};

/* Builds and applies the result in `text`. Returns 0, or -1 with why. */
static int apply_battle_text(struct year_run *r, const char *text, char *why, size_t why_size)
{
	struct campaign *c = r->c;
	const json_t *pd = r->st->pending;
	int province = find_province(c, jstr(pd, "province"));
	int side_player[2] = {find_player(c, jstr(pd, "attacker")),
			      find_player(c, jstr(pd, "defender"))};
	struct order_set set;
	orders_parse(text, c, -1, &set);

	/* the forces: the two field armies, then the contingents that arrived */
	size_t cap = 2 + c->contingent_count;
	struct battle_party *parties = xcalloc(cap, sizeof *parties);
	struct party_counts *counts = xcalloc(cap, sizeof *counts);
	size_t n = 0;
	for (int s = 0; s < 2; s++) {
		const struct player *p = &c->players[side_player[s]];
		parties[n] = (struct battle_party){.player = side_player[s], .side = s,
						   .contingent = NO_INDEX,
						   .commands = troops_generals(&p->list, &p->field)};
		if (parties[n].commands < 1)
			parties[n].commands = 1;
		n++;
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(pd, "contingents"), i, v) {
		int owner = find_player(c, jstr(v, "owner"));
		int with = find_player(c, jstr(v, "with"));
		bool returning = json_is_true(json_object_get(v, "returning"));
		for (size_t k = 0; k < c->contingent_count; k++) {
			const struct contingent *ct = &c->contingents[k];
			if (ct->owner != owner || ct->returning != returning ||
			    (!returning && ct->with_player != with))
				continue;
			parties[n++] = (struct battle_party){.player = owner,
							     .side = jint(v, "side", 0),
							     .contingent = (int)k, .commands = 1};
			break;
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t types = c->players[parties[k].player].list.count + 1;
		counts[k].destroyed = xcalloc(types, sizeof(int));
		counts[k].fled = xcalloc(types, sizeof(int));
		counts[k].withdrawn = xcalloc(types, sizeof(int));
		counts[k].killed = xcalloc(types, sizeof(int));
	}
	int rc = -1;
	int winner_side = -1;
	enum battle_end how = BATTLE_DEMORALISED;
	int conceded_by = NO_INDEX, withdrawal_by = NO_INDEX;
	for (size_t k = 0; k < set.count; k++) {
		const struct order *o = &set.orders[k];
		if (o->status != ORDER_OK || o->kind <= ORDER_BATTLE_AT ||
		    o->kind > ORDER_BATTLE_GENERAL_KILLED)
			continue;
		/* a protagonist's lines are its field army's, an ally's its contingent's */
		int party = -1;
		for (size_t q = 0; q < n && party < 0; q++)
			if (parties[q].player == o->target)
				party = (int)q;
		if (party < 0) {
			say(why, why_size, "%s did not fight in the battle at %s",
			    pkey(c, o->target), prov_name(c, province));
			goto done;
		}
		switch (o->kind) {
		case ORDER_BATTLE_WINNER:
			winner_side = parties[party].side;
			break;
		case ORDER_BATTLE_CONCEDED:
			how = BATTLE_CONCEDED;
			conceded_by = parties[party].side;
			break;
		case ORDER_BATTLE_WITHDRAWAL:
			how = BATTLE_WITHDRAWAL;
			withdrawal_by = parties[party].side;
			break;
		case ORDER_BATTLE_DEMORALISED:
			for (size_t it = 0; it < o->item_count; it++) {
				int cinc = orders_cinc_type(&c->players[o->target]);
				if (parties[party].contingent == NO_INDEX && o->items[it].type == cinc)
					parties[party].c_in_c_demoralised = true;
				else
					parties[party].others_demoralised++;
			}
			break;
		case ORDER_BATTLE_DESTROYED:
			counts[party].destroyed[o->type] += o->count;
			break;
		case ORDER_BATTLE_FLED:
			counts[party].fled[o->type] += o->count;
			break;
		case ORDER_BATTLE_WITHDRAWN:
			counts[party].withdrawn[o->type] += o->count;
			break;
		case ORDER_BATTLE_GENERAL_KILLED:
			counts[party].killed[o->type]++;
			break;
		default:
			break;
		}
	}
	if (winner_side < 0 && conceded_by >= 0)
		winner_side = 1 - conceded_by;
	if (winner_side < 0 && withdrawal_by >= 0)
		winner_side = 1 - withdrawal_by;
	if (winner_side < 0) {
		say(why, why_size, "the result names no WINNER");
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		size_t types = c->players[parties[k].player].list.count;
		/* a killed general is a destroyed general's element */
		for (size_t t = 0; t < types; t++)
			if (counts[k].killed[t] > counts[k].destroyed[t])
				counts[k].destroyed[t] = counts[k].killed[t];
		parties[k].destroyed = counts[k].destroyed;
		parties[k].fled = counts[k].fled;
		parties[k].withdrawn = counts[k].withdrawn;
	}
	int loser = side_player[1 - winner_side];
	struct battle_result res = {
		.province = province,
		.winner_side = winner_side,
		.how = how,
		.parties = parties,
		.party_count = n,
		.enemy_came_from = winner_side == 0 ? find_province(c, jstr(pd, "came_from"))
						    : NO_INDEX,
		.retreat_choice = retreat_preference(r, loser),
		.retreat_on_storm = player_storm(r, loser),
	};
	struct rules_reason rwhy;
	if (rules_battle_check(c, &res, &rwhy) != RULES_OK ||
	    rules_apply_battle_result(c, &res, r->dice, r->log, &rwhy) != RULES_OK) {
		say(why, why_size, "%s", rwhy.text);
		goto done;
	}
	rc = 0;
done:
	for (size_t k = 0; k < n; k++) {
		free(counts[k].destroyed);
		free(counts[k].fled);
		free(counts[k].withdrawn);
		free(counts[k].killed);
	}
	free(counts);
	free(parties);
	orders_set_free(&set);
	return rc;
}

static void battle_disputed(struct year_run *r, const char *reason)
{
	struct campaign *c = r->c;
	json_t *pd = r->st->pending;
	json_object_set_new(pd, "disputed", json_true());
	r->st->deadline = 0;
	event_emit(r->log, "battle_disputed", RULE_DEFENDING, "{s:s, s:s}", "province",
		   jstr(pd, "province"), "reason", reason);
	json_t *d = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O}", "province", jstr(pd, "province"),
			      "reason", reason, "attacker_nation",
			      pnation(c, find_player(c, jstr(pd, "attacker"))), "defender_nation",
			      pnation(c, find_player(c, jstr(pd, "defender"))), "step_name", "",
			      "reports", json_object_get(pd, "reports"));
	json_t *list = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(pd, "reports"), k, v)
		json_array_append_new(list, json_pack("{s:s, s:s, s:O}", "player", k, "nation",
						      pnation(c, find_player(c, k)), "text", v));
	json_object_set_new(d, "report_list", list);
	for (int s = 0; s < 2; s++)
		mail(r, "battle-disputed", find_player(c, jstr(pd, s ? "defender" : "attacker")),
		     false, json_deep_copy(d), "%d: the battle at %s needs the organiser", c->year,
		     jstr(pd, "province"));
	mail_organiser(r, "battle-disputed", d, "A battle result needs your decision");
}

/* Applies the result; on success the turn ends. */
static int settle_battle(struct year_run *r, const char *text, const char *how_decided,
			 char *why, size_t why_size)
{
	checkpoint(r);
	if (apply_battle_text(r, text, why, why_size) != 0)
		return -1;
	event_emit(r->log, "battle_result", RULE_BATTLE_CONSEQUENCES, "{s:s, s:s, s:s}",
		   "province", jstr(r->st->pending, "province"), "decided", how_decided, "report",
		   text);
	end_turn(r);
	return 0;
}

int year_battle_report(struct year_run *r, int player, bool organiser,
		       const struct order_set *set, char *why, size_t why_size)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	if (st->step != YEAR_BATTLE) {
		say(why, why_size, "no battle is waiting for its result");
		return -1;
	}
	int province = find_province(c, jstr(st->pending, "province"));
	char *text = report_text(c, set, province);
	if (!text) {
		say(why, why_size, "the result lines are not for the battle at %s, the one "
				   "waiting for its result", prov_name(c, province));
		return -1;
	}
	int rc = -1;
	if (organiser) {
		rc = settle_battle(r, text, "organiser", why, why_size);
		free(text);
		if (rc == 0)
			year_advance(r);
		return rc;
	}
	const char *key = pkey(c, player);
	if (strcmp(key, jstr(st->pending, "attacker")) != 0 &&
	    strcmp(key, jstr(st->pending, "defender")) != 0) {
		say(why, why_size, "only the two sides report the battle at %s",
		    prov_name(c, province));
		free(text);
		return -1;
	}
	if (json_is_true(json_object_get(st->pending, "disputed"))) {
		say(why, why_size, "the reports of the battle at %s differ: the organiser "
				   "decides the result now", prov_name(c, province));
		free(text);
		return -1;
	}
	json_t *reports = json_object_get(st->pending, "reports");
	json_object_set_new(reports, key, json_string(text));
	event_emit(r->log, "battle_report", RULE_DEFENDING, "{s:s, s:s}", "player", key,
		   "province", prov_name(c, province));
	rc = 0;
	if (json_object_size(reports) == 2) {
		const char *a = jstr(reports, jstr(st->pending, "attacker"));
		const char *b = jstr(reports, jstr(st->pending, "defender"));
		if (strcmp(a, b) != 0) {
			battle_disputed(r, "the two reports differ");
		} else {
			char reason[RULES_REASON_MAX + 64];
			if (settle_battle(r, text, "both sides", reason, sizeof reason) != 0)
				battle_disputed(r, reason);
			else
				year_advance(r);
		}
	}
	free(text);
	return rc;
}

/* The battle's deadline passed. */
static void battle_deadline(struct year_run *r)
{
	json_t *reports = json_object_get(r->st->pending, "reports");
	if (json_object_size(reports) == 1) {
		const char *k;
		json_t *v;
		json_object_foreach(reports, k, v) {
			char *text = xstrdup(json_string_value(v));
			char reason[RULES_REASON_MAX + 64];
			if (settle_battle(r, text, "one report at the deadline", reason,
					  sizeof reason) != 0)
				battle_disputed(r, reason);
			free(text);
			return;
		}
	}
	battle_disputed(r, "no report came before the deadline");
}

/* ---------------------------------------------------------------- between steps (rules 2.3, 3.2) */

/* Removes the player's pending orders of `kind` (about `target`, or any
 * target when NO_INDEX) from the current phase. */
static void drop_orders(struct year_run *r, int player, enum order_kind kind, int target)
{
	struct order_set set;
	load_orders(r, player, &set);
	size_t w = 0;
	bool dropped = false;
	for (size_t i = 0; i < set.count; i++) {
		struct order *o = &set.orders[i];
		if (o->kind == kind && (target == NO_INDEX || o->target == target)) {
			order_free(o);
			dropped = true;
		} else {
			set.orders[w++] = *o;
		}
	}
	set.count = w;
	if (dropped) {
		set.player = player;
		char *text = orders_format_pending(&set, r->c);
		r->io->orders_save(r->io->ctx, player, r->c->year, r->c->phase, text);
		free(text);
	}
	orders_set_free(&set);
}

/* A step of its own before a change made between steps, so that undo
 * takes back exactly that change. */
static void checkpoint_named(struct year_run *r, const char *what, int player)
{
	char *name = xasprintf("%s-%s", what, pkey(r->c, player));
	sync_turn_events(r);
	r->io->checkpoint(r->io->ctx, name);
	r->st->resolutions++;
	free(name);
}

/* The LOSSES FIRST standing orders, for the rules' generic losses. */
static void load_loss_preferences(struct year_run *r)
{
	struct campaign *c = r->c;
	for (size_t p = 0; p < c->player_count; p++) {
		struct player *pl = &c->players[p];
		free(pl->loss_first);
		pl->loss_first = NULL;
		pl->loss_first_count = 0;
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		load_orders(r, (int)p, &set);
		const struct order *o = find_kind(&set, ORDER_LOSSES_FIRST);
		if (o && o->item_count) {
			pl->loss_first = xcalloc(o->item_count, sizeof *pl->loss_first);
			for (size_t i = 0; i < o->item_count; i++)
				pl->loss_first[pl->loss_first_count++] = o->items[i].type;
		}
		orders_set_free(&set);
	}
}

/* Has `player` a pending order of `kind` (about `target` if not NO_INDEX)? */
static const struct order *pending_order(const struct order_set *set, enum order_kind kind,
					 int target)
{
	for (size_t i = set->count; i-- > 0;) {
		const struct order *o = &set->orders[i];
		if (o->status == ORDER_OK && o->kind == kind &&
		    (target == NO_INDEX || o->target == target))
			return o;
	}
	return NULL;
}

static bool has_contingents_out(const struct campaign *c, int player)
{
	for (size_t k = 0; k < c->contingent_count; k++)
		if (c->contingents[k].owner == player && !c->contingents[k].returning)
			return true;
	return false;
}

/* At a step boundary (a turn, the recruitment or the vote waiting, never a
 * decision or a battle): LEAVE CAMPAIGN without replacement, RECALL
 * CONTINGENTS, and tributary requests that have been accepted. Returns true
 * if anything was done. */
static bool between_steps(struct year_run *r)
{
	struct campaign *c = r->c;
	bool done = false;
	struct rules_reason why;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		load_orders(r, (int)p, &set);
		const struct order *leave = pending_order(&set, ORDER_LEAVE, NO_INDEX);
		bool leaves = leave && leave->confirmed && !leave->arg;
		bool recall = pending_order(&set, ORDER_RECALL_CONTINGENTS, NO_INDEX) != NULL;
		orders_set_free(&set);
		if (leaves) {
			checkpoint_named(r, "leave", (int)p);
			if (rules_player_leaves(c, (int)p, false, r->log, &why) != RULES_OK)
				refused(r, (int)p, "LEAVE CAMPAIGN", why.text);
			drop_orders(r, (int)p, ORDER_LEAVE, NO_INDEX);
			drop_orders(r, (int)p, ORDER_RECALL_CONTINGENTS, NO_INDEX);
			done = true;
			continue;
		}
		if (recall) {
			if (has_contingents_out(c, (int)p)) {
				checkpoint_named(r, "recall", (int)p);
				rules_contingent_recall_all(c, (int)p, r->dice, r->log);
			} else {
				refused(r, (int)p, "RECALL CONTINGENTS", "you have no contingent out");
			}
			drop_orders(r, (int)p, ORDER_RECALL_CONTINGENTS, NO_INDEX);
			done = true;
		}
	}
	for (size_t t = 0; t < c->player_count; t++) {
		if (!active(c, (int)t))
			continue;
		struct order_set set;
		load_orders(r, (int)t, &set);
		const struct order *ask = pending_order(&set, ORDER_TRIBUTARY_OF, NO_INDEX);
		int overlord = ask ? ask->target : NO_INDEX;
		orders_set_free(&set);
		if (overlord < 0)
			continue;
		if (!active(c, overlord)) {
			refused(r, (int)t, "TRIBUTARY OF", "that player is no longer in the campaign");
			drop_orders(r, (int)t, ORDER_TRIBUTARY_OF, NO_INDEX);
			done = true;
			continue;
		}
		load_orders(r, overlord, &set);
		bool accepted = pending_order(&set, ORDER_ACCEPT_TRIBUTARY, (int)t) != NULL;
		orders_set_free(&set);
		if (!accepted)
			continue;
		checkpoint_named(r, "tributary", (int)t);
		if (rules_tributary_request(c, (int)t, overlord, true, r->log, &why) != RULES_OK) {
			refused(r, (int)t, "TRIBUTARY OF", why.text);
			refused(r, overlord, "ACCEPT TRIBUTARY", why.text);
		}
		drop_orders(r, (int)t, ORDER_TRIBUTARY_OF, NO_INDEX);
		drop_orders(r, overlord, ORDER_ACCEPT_TRIBUTARY, (int)t);
		done = true;
	}
	return done;
}

/* End of the recruitment phase: every RENOUNCE (by either side). */
static void apply_renounces(struct year_run *r)
{
	struct campaign *c = r->c;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		load_orders(r, (int)p, &set);
		int targets[64];
		size_t n = 0;
		for (size_t i = 0; i < set.count && n < 64; i++)
			if (set.orders[i].status == ORDER_OK && set.orders[i].kind == ORDER_RENOUNCE)
				targets[n++] = set.orders[i].target;
		orders_set_free(&set);
		for (size_t i = 0; i < n; i++) {
			int other = targets[i];
			int tributary = NO_INDEX;
			if (other >= 0 && (size_t)other < c->player_count) {
				if (c->players[p].overlord == other)
					tributary = (int)p;
				else if (c->players[other].overlord == (int)p)
					tributary = other;
			}
			struct rules_reason why;
			if (tributary == NO_INDEX)
				refused(r, (int)p, "RENOUNCE",
					"that player is neither your overlord nor your tributary now");
			else if (rules_tributary_renounce(c, tributary, r->log, &why) != RULES_OK)
				refused(r, (int)p, "RENOUNCE", why.text);
		}
		if (n)
			drop_orders(r, (int)p, ORDER_RENOUNCE, NO_INDEX);
	}
}

/* Mails everyone about the relations changed since the last call:
 * tributaries made, renounced or freed, players out or gone. The player
 * concerned is told too, even when no longer active. */
static void tell_relations(struct year_run *r)
{
	struct campaign *c = r->c;
	for (size_t i = r->told_mark; i < r->log->count; i++) {
		const json_t *ev = r->log->events[i];
		const char *kind = jstr(ev, "kind");
		if (!kind)
			continue;
		bool tributary = strcmp(kind, "tributary") == 0 &&
				 json_is_true(json_object_get(ev, "accepted"));
		bool renounced = strcmp(kind, "tributary_renounced") == 0;
		bool freed = strcmp(kind, "tributary_freed") == 0;
		bool out = strcmp(kind, "player_out") == 0;
		bool left = strcmp(kind, "player_left") == 0;
		if (!tributary && !renounced && !freed && !out && !left)
			continue;
		json_t *one = json_array();
		json_array_append(one, (json_t *)ev);
		json_t *decorated = year_events_for_mail(c, one);
		json_decref(one);
		json_t *d = json_deep_copy(json_array_get(decorated, 0));
		json_decref(decorated);
		json_object_set_new(d, "positions", positions_json(c));
		json_object_set_new(d, "show_positions", json_true());
		if (left) {
			struct strbuf list = {0};
			size_t k;
			json_t *v;
			json_array_foreach(json_object_get(ev, "provinces_neutral"), k, v)
				strbuf_printf(&list, "%s%s", k ? ", " : "", json_string_value(v));
			if (list.len)
				json_object_set_new(d, "neutral_list", json_string(list.data));
			strbuf_free(&list);
		}
		int who = find_player(c, jstr(ev, out || left ? "player" : "tributary"));
		int lord = find_player(c, jstr(ev, "overlord"));
		char subject[512];
		int year = jint(ev, "year", c->year);
		if (tributary)
			snprintf(subject, sizeof subject, "%d: %s becomes the tributary of %s", year,
				 pnation(c, who), pnation(c, lord));
		else if (renounced || freed)
			snprintf(subject, sizeof subject, "%d: %s is no longer the tributary of %s",
				 year, pnation(c, who), pnation(c, lord));
		else if (out)
			snprintf(subject, sizeof subject, "%d: %s is out of the campaign", year,
				 pnation(c, who));
		else
			snprintf(subject, sizeof subject, "%d: %s has left the campaign", year,
				 pnation(c, who));
		if ((out || left) && who >= 0) {
			json_t *own = json_deep_copy(d);
			json_object_set_new(own, "is_you", json_true());
			mail(r, "relations", who, false, own, "%s", subject);
		}
		mail(r, "relations", NO_INDEX, true, d, "%s", subject);
	}
	r->told_mark = r->log->count;
}

char *year_orders_received(struct year_run *r, int player, const struct order_set *set)
{
	struct campaign *c = r->c;
	struct strbuf note = {0};
	if (!active(c, player))
		return NULL;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		switch (o->kind) {
		case ORDER_TRIBUTARY_OF: {
			json_t *d = deadline_data(r);
			json_object_update_new(d, json_pack("{s:b, s:s, s:s}", "k_request", 1,
							"tributary", pkey(c, player),
							"tributary_nation", pnation(c, player)));
			mail(r, "relations", o->target, false, d, "%d: %s asks to become your tributary",
			     c->year, pnation(c, player));
			strbuf_printf(&note, "Your request was sent to %s: you become its tributary "
					     "when it answers ACCEPT TRIBUTARY %s (at the next step "
					     "between turns). ",
				      pnation(c, o->target), pkey(c, player));
			break;
		}
		case ORDER_ACCEPT_TRIBUTARY:
			strbuf_printf(&note, "%s becomes your tributary at the next step between turns, "
					     "once it has asked with TRIBUTARY OF %s. ",
				      pnation(c, o->target), pkey(c, player));
			break;
		case ORDER_RENOUNCE:
			strbuf_printf(&note, "RENOUNCE %s takes effect at the end of %s recruitment "
					     "phase (rules 3.2). ",
				      pkey(c, o->target),
				      c->phase == PHASE_RECRUITMENT ? "this" : "this year's");
			break;
		case ORDER_RECALL_CONTINGENTS:
			strbuf_puts(&note, "Your contingents are recalled at the next step between "
					   "turns (not during a battle or a decision). ");
			break;
		case ORDER_LEAVE:
			if (!o->confirmed)
				break;
			if (o->arg) {
				event_emit(r->log, "leave_requested", RULE_LEAVING, "{s:s, s:s}",
					   "player", pkey(c, player), "replacement", o->arg);
				json_t *d = json_pack("{s:b, s:s, s:s, s:s}", "k_leave_request", 1,
						      "leaver", pkey(c, player), "leaver_nation",
						      pnation(c, player), "replacement", o->arg);
				char *subject = xasprintf("%d: %s asks to be replaced", c->year,
							  pnation(c, player));
				mail_organiser(r, "relations", d, subject);
				free(subject);
				drop_orders(r, player, ORDER_LEAVE, NO_INDEX);
				strbuf_printf(&note, "The organiser was asked to hand %s to %s; until "
						     "then you play on. ",
					      pnation(c, player), o->arg);
			} else {
				strbuf_puts(&note, "You leave the campaign at the next step between "
						   "turns: your provinces become neutral and your "
						   "prestige is lost. ");
			}
			break;
		default:
			break;
		}
	}
	tell_relations(r);
	if (!note.len) {
		strbuf_free(&note);
		return NULL;
	}
	char *text = strbuf_take(&note);
	str_trim(text);
	return text;
}

/* ---------------------------------------------------------------- recruitment and the year end */

static void begin_recruitment(struct year_run *r)
{
	struct campaign *c = r->c;
	rules_recruitment_begin(c, r->dice, r->log);
	carry_orders(r, c->year, PHASE_CAMPAIGN, CARRY_TO_RECRUITMENT);
	struct year_state *st = r->st;
	st->step = YEAR_RECRUITMENT;
	json_decref(st->pending);
	st->pending = NULL;
	set_deadline_hours(r, c->settings.recruitment_deadline_hours);
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		char a[24], b[24];
		json_t *d = deadline_data(r);
		json_object_update_new(d, json_pack("{s:s, s:s, s:i, s:o}", "allowance_ap",
						half_ap_format(rules_recruit_allowance(c, (int)p), a),
						"reserve_ap",
						half_ap_format(player_reserve_half_ap(&c->players[p]), b),
						"province_prestige", rules_province_prestige(c, (int)p),
						"positions", positions_json(c)));
		mail(r, "recruitment", (int)p, false, d, "%d: recruitment", c->year);
	}
}

static void apply_recruitment(struct year_run *r, int p)
{
	struct campaign *c = r->c;
	const struct player *pl = &c->players[p];
	struct order_set set;
	load_orders(r, p, &set);
	size_t types = pl->list.count + 1;
	int *dismiss = xcalloc(types, sizeof *dismiss);
	int *take = xcalloc(types, sizeof *take);
	bool any_dismiss = false, any_take = false;
	for (size_t i = 0; i < set.count; i++) {
		const struct order *o = &set.orders[i];
		if (o->status != ORDER_OK || o->type < 0 || (size_t)o->type >= pl->list.count)
			continue;
		if (o->kind == ORDER_DISMISS) {
			dismiss[o->type] += o->count;
			any_dismiss = true;
		} else if (o->kind == ORDER_RECRUIT) {
			take[o->type] += o->count;
			any_take = true;
		} else if (o->kind == ORDER_RETRIEVE_GENERAL) {
			take[o->type] += 1;
			any_take = true;
		}
	}
	struct rules_reason why;
	if (any_dismiss && rules_dismiss(c, p, dismiss, r->log, &why) != RULES_OK)
		refused(r, p, "DISMISS", why.text);
	if (any_take && rules_recruit(c, p, take, r->log, &why) != RULES_OK)
		refused(r, p, "RECRUIT", why.text);
	free(dismiss);
	free(take);
	orders_set_free(&set);
}

static void begin_year(struct year_run *r, int from_year, int from_phase, enum carry how);

/* Recruitment is over: apply it, then the year's end. */
static void resolve_recruitment(struct year_run *r)
{
	struct campaign *c = r->c;
	apply_renounces(r);
	for (size_t p = 0; p < c->player_count; p++)
		if (active(c, (int)p))
			apply_recruitment(r, (int)p);
	int year = c->year;
	bool vote = rules_year_end(c, r->dice, r->log);
	struct year_state *st = r->st;
	sync_turn_events(r);
	if (!vote) {
		finish_year(r, year);
		return;
	}
	st->step = YEAR_VOTE;
	set_deadline_hours(r, c->settings.decision_deadline_hours);
	json_t *d = deadline_data(r);
	json_object_set_new(d, "positions", positions_json(c));
	mail(r, "vote", NO_INDEX, true, d, "%d: the campaign may end: your vote", c->year);
}

static void resolve_vote(struct year_run *r)
{
	struct campaign *c = r->c;
	bool all = true;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		enum order_choice v = vote_of(r, (int)p);
		event_emit(r->log, "vote", RULE_CAMPAIGN_END, "{s:s, s:s, s:b}", "player",
			   pkey(c, (int)p), "vote", v == CHOICE_CONTINUE ? "continue" : "end",
			   "by_default", v == CHOICE_NONE);
		all &= v == CHOICE_CONTINUE;
	}
	int year = c->year;
	rules_campaign_end_vote(c, all, r->log);
	finish_year(r, year);
}

/* The year `year` is over (its recruitment and vote): the diary goes out
 * with the seed revealed, and the next year begins unless the campaign
 * ended. */
static void finish_year(struct year_run *r, int year)
{
	struct campaign *c = r->c;
	r->io->reveal_dice(r->io->ctx, year);
	sync_turn_events(r);
	json_t *d = json_pack("{s:i}", "diary_year", year);
	json_t *req = json_pack("{s:s, s:s, s:s, s:b, s:o, s:i}", "template", "diary", "subject",
				"", "to", "all", "organiser", 1, "data", d, "diary_year", year);
	char *subject = xasprintf("The diary of %d", year);
	json_object_set_new(req, "subject", json_string(subject));
	free(subject);
	json_array_append_new(r->mails, req);
	if (c->phase == PHASE_ENDED) {
		struct year_state *st = r->st;
		st->step = YEAR_ENDED;
		st->deadline = 0;
		json_decref(st->pending);
		st->pending = NULL;
		json_t *e = json_pack("{s:o}", "positions", positions_json(c));
		json_t *last = event_log_last(r->log, "campaign_end");
		if (last)
			json_object_set(e, "end", last);
		json_t *winners = json_array();
		size_t i;
		json_t *w;
		json_array_foreach(json_object_get(last, "winners"), i, w)
			json_array_append_new(winners,
					      json_string(pnation(c, find_player(c, json_string_value(w)))));
		json_object_set_new(e, "winners", winners);
		mail(r, "campaign-end", NO_INDEX, true, e, "The campaign is over");
		return;
	}
	begin_year(r, year, PHASE_RECRUITMENT, CARRY_TO_CAMPAIGN);
}

static void begin_year(struct year_run *r, int from_year, int from_phase, enum carry how)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	const char *commitment = r->io->new_year_dice(r->io->ctx, c->year);
	int *order = xcalloc(c->player_count + 1, sizeof *order);
	size_t n = rules_year_begin(c, r->dice, r->log, order);
	carry_orders(r, from_year, from_phase, how);
	event_emit(r->log, "dice_commitment", RULE_GAME_YEAR, "{s:s}", "commitment",
		   commitment ? commitment : "");
	free(st->sequence);
	st->sequence = order;
	st->sequence_len = n;
	st->turn = 0;
	json_t *seq = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(seq, json_pack("{s:i, s:s, s:s}", "place", (int)i + 1, "player",
						     pkey(c, order[i]), "nation",
						     pnation(c, order[i])));
	char buf[64];
	json_t *d = json_pack("{s:o, s:s, s:i, s:o}", "sequence", seq, "commitment",
			      commitment ? commitment : "", "turn_hours",
			      c->settings.turn_deadline_hours, "positions", positions_json(c));
	json_object_set_new(d, "starts", json_string(year_format_time(r->now, buf, sizeof buf)));
	mail(r, "announce-sequence", NO_INDEX, true, d, "%d: the sequence of play", c->year);
	enter_turn(r);
}

int year_start(struct year_run *r, char *why, size_t why_size)
{
	if (r->st->step != YEAR_IDLE) {
		say(why, why_size, "the campaign has already been started");
		return -1;
	}
	if (r->c->phase == PHASE_ENDED) {
		say(why, why_size, "the campaign has ended");
		return -1;
	}
	int setup_year = r->c->year;
	int setup_phase = r->c->phase;
	begin_year(r, setup_year, setup_phase, CARRY_ALL);
	year_advance(r);
	return 0;
}

/* ---------------------------------------------------------------- the loop */

void year_advance(struct year_run *r)
{
	struct year_state *st = r->st;
	if (st->paused || st->step == YEAR_IDLE || st->step == YEAR_ENDED)
		return;
	send_reminders(r);
	load_loss_preferences(r);
	int *who = xcalloc(r->c->player_count + 1, sizeof *who);
	for (int guard = 0; guard < RUN_GUARD && !st->paused; guard++) {
		bool due = st->deadline && r->now >= st->deadline;
		enum year_step before = st->step;
		size_t turn_before = st->turn;
		int resolved_before = st->resolutions;
		if (st->step == YEAR_TURN || st->step == YEAR_RECRUITMENT || st->step == YEAR_VOTE)
			between_steps(r);
		switch (st->step) {
		case YEAR_TURN: {
			if (!active(r->c, st->sequence[st->turn])) {
				/* left or knocked out since the turn began */
				st->turn++;
				enter_turn(r);
				break;
			}
			struct order_set set;
			load_orders(r, st->sequence[st->turn], &set);
			bool in = find_movement(&set) != NULL;
			orders_set_free(&set);
			if (in || due) {
				checkpoint(r);
				resolve_turn_now(r);
			}
			break;
		}
		case YEAR_DECISION:
			if (awaited(r, who) == 0 || due) {
				checkpoint(r);
				resolve_decision(r);
			}
			break;
		case YEAR_BATTLE:
			if (due && !json_is_true(json_object_get(st->pending, "disputed")))
				battle_deadline(r);
			break;
		case YEAR_RECRUITMENT:
			if (awaited(r, who) == 0 || due) {
				checkpoint(r);
				resolve_recruitment(r);
			}
			break;
		case YEAR_VOTE: {
			bool any_end = false;
			for (size_t p = 0; p < r->c->player_count; p++)
				any_end |= active(r->c, (int)p) && vote_of(r, (int)p) == CHOICE_END;
			if (awaited(r, who) == 0 || due || any_end) {
				checkpoint(r);
				resolve_vote(r);
			}
			break;
		}
		default:
			break;
		}
		if (st->step == before && st->turn == turn_before && st->resolutions == resolved_before)
			break;
		if (st->step == YEAR_ENDED)
			break;
	}
	free(who);
	sync_turn_events(r);
	tell_relations(r);
}

/* ---------------------------------------------------------------- organiser controls */

int year_set_deadline(struct year_run *r, int64_t seconds, bool relative, char *why,
		      size_t why_size)
{
	struct year_state *st = r->st;
	if (st->step == YEAR_IDLE || st->step == YEAR_ENDED) {
		say(why, why_size, "there is no deadline: %s",
		    st->step == YEAR_IDLE ? "the campaign has not been started" : "it has ended");
		return -1;
	}
	if (st->paused) {
		st->paused_left = relative ? st->paused_left + seconds : seconds;
		if (st->paused_left < 0)
			st->paused_left = 0;
		return 0;
	}
	int64_t base = relative ? (st->deadline ? st->deadline : r->now) : r->now;
	st->deadline = base + seconds;
	if (st->deadline < r->now)
		st->deadline = r->now;
	st->reminders_sent = 0;
	/* reminders whose time has passed under the new deadline are not sent late */
	const struct campaign_settings *s = &r->c->settings;
	for (int i = 0; i < 4 && s->reminder_hours[i] > 0; i++)
		if (r->now >= st->deadline - (int64_t)s->reminder_hours[i] * HOUR)
			st->reminders_sent |= 1u << i;
	return 0;
}

int year_pause(struct year_run *r, char *why, size_t why_size)
{
	struct year_state *st = r->st;
	if (st->paused) {
		say(why, why_size, "the campaign is already paused");
		return -1;
	}
	st->paused = true;
	st->paused_left = st->deadline ? st->deadline - r->now : 0;
	if (st->paused_left < 0)
		st->paused_left = 0;
	return 0;
}

int year_resume(struct year_run *r, char *why, size_t why_size)
{
	struct year_state *st = r->st;
	if (!st->paused) {
		say(why, why_size, "the campaign is not paused");
		return -1;
	}
	st->paused = false;
	if (st->deadline)
		st->deadline = r->now + st->paused_left;
	st->paused_left = 0;
	year_advance(r);
	return 0;
}

int year_process(struct year_run *r, const char *name, char *why, size_t why_size)
{
	struct year_state *st = r->st;
	char current[256];
	year_step_name(st, r->c, current, sizeof current);
	if (!year_step_is(st, r->c, name)) {
		say(why, why_size, "\"%s\" is not the current step (the current step is %s)",
		    name ? name : "", current);
		return -1;
	}
	if (st->paused) {
		say(why, why_size, "the campaign is paused: resume it first");
		return -1;
	}
	if (st->step == YEAR_IDLE || st->step == YEAR_ENDED) {
		say(why, why_size, "there is nothing to process (%s)", current);
		return -1;
	}
	if (st->step == YEAR_BATTLE &&
	    (json_object_size(json_object_get(st->pending, "reports")) != 1 ||
	     json_is_true(json_object_get(st->pending, "disputed")))) {
		say(why, why_size, "the battle needs a result: send it as the organiser "
				   "(BATTLE AT ...) or use campaignctl battle-result");
		return -1;
	}
	st->deadline = r->now;
	year_advance(r);
	return 0;
}

void year_grant_grace(struct year_run *r, int64_t last_run, const char *reason)
{
	struct year_state *st = r->st;
	char was[64], now_buf[64];
	int64_t old = st->deadline;
	st->deadline = r->now + (int64_t)(r->c->settings.grace_hours > 0
					   ? r->c->settings.grace_hours : 1) * HOUR;
	event_emit(r->log, "grace", RULE_GAME_YEAR, "{s:I, s:I, s:I, s:s}", "old_deadline",
		   (json_int_t)old, "new_deadline", (json_int_t)st->deadline, "last_run",
		   (json_int_t)last_run, "reason", reason);
	char *what = year_step_describe(st, r->c);
	json_t *d = deadline_data(r);
	json_object_update_new(d, json_pack("{s:s, s:s, s:s, s:i}", "old_deadline",
					year_format_time(old, was, sizeof was), "last_run",
					year_format_time(last_run, now_buf, sizeof now_buf),
					"waiting_for", what, "grace_hours",
					r->c->settings.grace_hours));
	free(what);
	mail(r, "grace", NO_INDEX, true, d, "%d: the deadline is moved (our downtime)", r->c->year);
}
