/* Rules 2.2: "Before deciding to commit your army, you may solicit allies
 * to assist you", and calling off "uses no movement option". A mover's
 * ASK ALLIES <players> FOR INVADE <province> opens a decision (kind
 * "solicit"): the players named are mailed at once and answer with
 * CONTINGENT FOR the mover (the troops they promise) or ANSWER ALLIES NO.
 * When all have answered or the deadline passed, the mover is mailed the
 * answers (kind "commit") and sends INVADE (or any movement order: his
 * option) or CALL OFF; silence calls off. Calling off reopens his turn
 * with a fresh deadline and the option still open. The promised
 * contingents are the standing CONTINGENT FOR orders, sent when the
 * mover's battle comes (year_call_allies). */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

bool year_solicit_kind(const json_t *pending)
{
	const char *kind = jstr(pending, "kind");
	return kind && (strcmp(kind, "solicit") == 0 || strcmp(kind, "commit") == 0);
}

/* The asked player's answer to the mover, as a phrase for the mover's mail;
 * *answer gets 1 (troops promised), 0 (refused) or -1 (silent). */
static char *answer_of(struct year_run *r, int asked, int mover, int *answer)
{
	struct campaign *c = r->c;
	struct order_set set;
	year_load_orders(r, asked, &set);
	const struct order *o;
	*answer = active(c, asked) ? year_ally_answer(&set, mover, &o) : -1;
	char *text;
	if (*answer == 1) {
		char *line = orders_format_one(o, c, asked);
		const char *with = line ? strstr(line, " WITH ") : NULL;
		text = xasprintf("%s promises a contingent: %s", pnation(c, asked),
				 with ? with + 6 : "troops");
		free(line);
	} else if (*answer == 0) {
		text = xasprintf("%s refuses (ANSWER ALLIES NO)", pnation(c, asked));
	} else {
		text = xasprintf("%s did not answer: no contingent", pnation(c, asked));
	}
	orders_set_free(&set);
	return text;
}

void year_solicit_begin(struct year_run *r, int mover, const struct order *o)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	json_t *asked = json_array();
	for (size_t i = 0; i < o->via_count; i++)
		if (active(c, o->via[i]) && o->via[i] != mover)
			json_array_append_new(asked, json_string(pkey(c, o->via[i])));
	const char *province = prov_name(c, o->province);
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:o}", "kind", "solicit", "mover",
				pkey(c, mover), "province", province, "asked", asked);
	st->step = YEAR_DECISION;
	year_set_deadline_hours(r, c->settings.decision_deadline_hours);
	event_emit(r->log, "allies_solicited", RULE_INVASION, "{s:s, s:s, s:i}",
		   "player", pkey(c, mover), "province", province, "asked",
		   (int)json_array_size(asked));
	size_t i;
	json_t *v;
	json_array_foreach(asked, i, v) {
		int a = find_player(c, json_string_value(v));
		event_emit(r->log, "decision_asked", RULE_INVASION,
			   "{s:s, s:s, s:s, s:s}", "asked", pkey(c, a), "question", "solicit",
			   "mover", pkey(c, mover), "province", province);
		json_t *d = year_deadline_data(r);
		json_object_update_new(d, json_pack("{s:b, s:s, s:s, s:s}", "is_solicit", 1,
						    "ally", pkey(c, mover), "ally_nation",
						    pnation(c, mover), "province", province));
		year_mail(r, "decision", a, false, d, "%s asks you for a contingent",
			  pnation(c, mover));
	}
}

bool year_solicit_answered_by(struct year_run *r, int asked)
{
	const json_t *pd = r->st->pending;
	int mover = find_player(r->c, jstr(pd, "mover"));
	struct order_set set;
	year_load_orders(r, asked, &set);
	bool ok;
	if (strcmp(jstr(pd, "kind"), "commit") == 0) {
		const struct order *o = year_find_movement(&set);
		ok = o && o->kind != ORDER_ASK_ALLIES;
	} else {
		const struct order *o;
		ok = year_ally_answer(&set, mover, &o) >= 0;
	}
	orders_set_free(&set);
	return ok;
}

/* The answers are in (or the deadline passed): the mover is told them and
 * asked to go on or call off. */
static void answers_in(struct year_run *r, const json_t *pd)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	int mover = find_player(c, jstr(pd, "mover"));
	const char *province = jstr(pd, "province");
	json_t *lines = json_array();
	int promised = 0;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(pd, "asked"), i, v) {
		int a = find_player(c, json_string_value(v)), answer;
		char *text = answer_of(r, a, mover, &answer);
		promised += answer == 1;
		event_emit(r->log, "decision", RULE_INVASION, "{s:s, s:s, s:s, s:b}",
			   "asked", pkey(c, a), "question", "solicit", "answer",
			   answer == 1 ? "contingent" : "none", "by_default", answer < 0);
		json_array_append_new(lines, json_string(text));
		free(text);
	}
	json_t *next = json_pack("{s:s, s:s, s:s, s:[s]}", "kind", "commit", "mover",
				 pkey(c, mover), "province", province, "asked", pkey(c, mover));
	json_decref(st->pending);
	st->pending = next;
	year_set_deadline_hours(r, c->settings.decision_deadline_hours);
	event_emit(r->log, "decision_asked", RULE_INVASION, "{s:s, s:s, s:s, s:s}",
		   "asked", pkey(c, mover), "question", "commit", "mover", pkey(c, mover),
		   "province", province);
	json_t *d = year_deadline_data(r);
	json_object_update_new(d, json_pack("{s:b, s:s, s:o, s:b}", "is_commit", 1, "province",
					    province, "answers", lines, "none_promised",
					    promised == 0));
	year_mail(r, "decision", mover, false, d, "The answers to your call for allies");
}

/* The mover's movement orders dropped (his ASK ALLIES, his CALL OFF). */
static void drop_movement(struct year_run *r, int p)
{
	struct order_set set;
	year_load_orders(r, p, &set);
	size_t w = 0;
	for (size_t i = 0; i < set.count; i++) {
		if (year_is_movement(set.orders[i].kind))
			order_free(&set.orders[i]);
		else
			set.orders[w++] = set.orders[i];
	}
	set.count = w;
	set.player = p;
	char *text = orders_format_pending(&set, r->c);
	r->io->orders_save(r->io->ctx, p, r->c->year, r->c->phase, text);
	free(text);
	orders_set_free(&set);
}

/* The mover went on or called off: the turn is his again. Going on, his
 * movement order is carried out by the turn step at once; calling off (or
 * silence), the turn reopens with a fresh deadline. The players asked are
 * told which. */
static void committed(struct year_run *r, const json_t *pd)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	int mover = find_player(c, jstr(pd, "mover"));
	const char *province = jstr(pd, "province");
	struct order_set set;
	year_load_orders(r, mover, &set);
	const struct order *o = year_find_movement(&set);
	bool go_on = o && o->kind != ORDER_ASK_ALLIES && o->kind != ORDER_CALL_OFF;
	bool silent = o == NULL || o->kind == ORDER_ASK_ALLIES;
	char *line = go_on ? orders_format_one(o, c, mover) : NULL;
	orders_set_free(&set);
	event_emit(r->log, "decision", RULE_INVASION, "{s:s, s:s, s:s, s:b}", "asked",
		   pkey(c, mover), "question", "commit", "answer", go_on ? line : "CALL OFF",
		   "by_default", silent);
	json_decref(st->pending);
	st->pending = NULL;
	st->step = YEAR_TURN;
	if (!go_on) {
		drop_movement(r, mover);
		year_set_deadline_hours(r, c->settings.turn_deadline_hours);
		event_emit(r->log, "attack_called_off", RULE_INVASION,
			   "{s:s, s:s, s:I}", "player", pkey(c, mover), "province", province,
			   "deadline", (json_int_t)st->deadline);
		json_t *d = year_deadline_data(r);
		json_object_update_new(d, json_pack("{s:b, s:b, s:s}", "is_called_off", 1, "is_news",
						    1, "province", province));
		year_mail(r, "decision", mover, false, d, "Your attack on %s is called off",
			  province);
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(pd, "solicited"), i, v) {
		int a = find_player(c, json_string_value(v));
		if (!active(c, a))
			continue;
		json_t *d = json_pack("{s:b, s:b, s:s, s:s, s:s, s:b, s:s}", "is_solicit_outcome", 1,
				      "is_news", 1,
				      "ally", pkey(c, mover), "ally_nation", pnation(c, mover),
				      "province", province, "went_on", go_on, "order",
				      line ? line : "");
		year_mail(r, "decision", a, false, d, "%s %s", pnation(c, mover),
			  go_on ? "goes on" : "calls off its attack");
	}
	free(line);
}

void year_solicit_resolve(struct year_run *r, const json_t *pd)
{
	if (strcmp(jstr(pd, "kind"), "solicit") == 0) {
		json_t *asked = json_deep_copy(json_object_get(pd, "asked"));
		answers_in(r, pd);
		json_object_set_new(r->st->pending, "solicited", asked);
	} else {
		committed(r, pd);
	}
}
