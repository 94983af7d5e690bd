/* Setting up by mail before play (rules 1.3): the players the campaign file
 * left open choose their field army (ARMY) and start (START IN) by mail;
 * this file mails them their list (campaignctl open-setup), says who is
 * ready, and at the start puts each army in place, or the documented
 * default when the organiser forces the start (campaign(5)). Called with
 * an open struct yctx; calls go engine_year*.c -> engine_setup.c ->
 * engine_year_mail.c, outbox.c. */
#include "config.h"

#include "engine/engine_p.h"
#include "engine/engine_setup_p.h"
#include "engine/engine_year_p.h"
#include "dbm/orders.h"
#include "dbm/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MISSING_MAX 32

/* The player's setup as his pending orders of the setup phase say. */
struct setup_now {
	int *counts;
	bool has_army;
	int start;
	size_t missing;
	char *lines[MISSING_MAX];
};

static void setup_now_free(struct setup_now *s)
{
	for (size_t i = 0; i < s->missing && i < MISSING_MAX; i++)
		free(s->lines[i]);
	free(s->counts);
	memset(s, 0, sizeof *s);
}

static int setup_read(struct yctx *y, int player, struct setup_now *s, struct order_set *set)
{
	const struct player *p = &y->c->players[player];
	char *text = NULL, *err = NULL;
	memset(s, 0, sizeof *s);
	orders_set_init(set);
	if (store_orders_get(y->e->store, p->key, y->c->year, PHASE_SETUP, &text, &err) !=
	    STORE_OK) {
		set_err(y, err);
		return -1;
	}
	if (text) {
		orders_set_free(set);
		orders_parse(text, y->c, player, set);
		orders_validate(set, y->c, player); /* what no longer holds is not used */
	}
	free(text);
	s->counts = xcalloc(p->list.count + 1, sizeof *s->counts);
	orders_setup_of(set, y->c, player, s->counts, &s->has_army, &s->start);
	s->missing = rules_setup_missing(y->c, player, s->has_army ? s->counts : NULL, s->start,
					 s->lines, MISSING_MAX);
	return 0;
}

static bool setting_up(const struct campaign *c, size_t p)
{
	return c->players[p].setup_by_mail && c->players[p].status == PLAYER_ACTIVE;
}

static json_t *list_json(const struct player *p)
{
	char buf[16];
	json_t *a = json_array();
	for (size_t i = 0; i < p->list.count; i++) {
		const struct element_type *t = &p->list.types[i];
		char type[32];
		snprintf(type, sizeof type, "%s(%c) %s", t->code, t->grade,
			 t->regular ? "Reg" : "Irr");
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i, s:i, s:b}", "label",
						   t->label, "type", type, "cost",
						   half_ap_format(t->cost_half_ap, buf), "min",
						   t->list_min, "max", t->list_max, "general",
						   t->general));
	}
	return a;
}

static int queue(struct yctx *y, int player, const char *tpl, const char *subject, json_t *d)
{
	const struct player *p = &y->c->players[player];
	json_t *base = yctx_base_data(y, player);
	json_object_update_missing(d, base);
	json_decref(base);
	char *token = xasprintf("year.%s.%lu.%d", y->tag, ++y->mail_seq, y->c->year);
	struct reply r = {p->email, p->name, subject, tpl, d, NULL, token, MAIL_AUTO_GENERATED,
			  NULL, 0, NULL, false, 0};
	char *err = NULL;
	int rc = engine_queue_mail(y->e, &r, y->c, y->now, NULL, &err);
	if (rc != 0)
		set_err(y, err);
	free(token);
	return rc;
}

int setup_mail(struct yctx *y, int player)
{
	struct campaign *c = y->c;
	struct setup_now s;
	struct order_set set;
	if (setup_read(y, player, &s, &set) != 0) {
		orders_set_free(&set);
		return -1;
	}
	json_t *d = json_object();
	json_object_set_new(d, "army_list", list_json(&c->players[player]));
	json_t *now = orders_setup_json(&set, c, player);
	if (now)
		json_object_set_new(d, "setup", now);
	int cinc = rules_setup_cinc_line(&c->players[player].list);
	if (cinc >= 0)
		json_object_set_new(d, "cinc", json_string(c->players[player].list.types[cinc].label));
	char *subject = xstrdup("Choose your field army");
	int rc = queue(y, player, "setup", subject, d);
	free(subject);
	json_decref(d);
	orders_set_free(&set);
	setup_now_free(&s);
	return rc;
}

int setup_open(struct yctx *y, struct strbuf *out, char *why, size_t why_size)
{
	struct campaign *c = y->c;
	size_t mailed = 0;
	if (c->phase != PHASE_SETUP || y->st.step != YEAR_IDLE) {
		snprintf(why, why_size, "the campaign has started: the armies are in place");
		return 0;
	}
	for (size_t p = 0; p < c->player_count; p++) {
		if (!setting_up(c, p) || !c->players[p].email)
			continue;
		if (setup_mail(y, (int)p) != 0)
			return -1;
		strbuf_printf(out, "mailed %s <%s> the army list and home provinces\n",
			      c->players[p].key, c->players[p].email);
		mailed++;
	}
	if (!mailed)
		snprintf(why, why_size, "no player sets up by mail: the campaign file sets every "
			 "field army and start");
	return 0;
}

void setup_status(struct yctx *y, struct strbuf *out)
{
	struct campaign *c = y->c;
	char buf[16];
	bool before = c->phase == PHASE_SETUP && y->st.step == YEAR_IDLE;
	bool any = false;
	for (size_t p = 0; p < c->player_count; p++) {
		/* before the start: who sets up by mail; during play: who joins */
		if (before ? !setting_up(c, p) : c->players[p].status != PLAYER_JOINING)
			continue;
		if (!any && before)
			strbuf_puts(out, "Setting up by mail (ARMY, START IN):\n");
		else if (!any)
			strbuf_printf(out, "Joining when %d begins, setting up by mail (ARMY, START "
				      "IN):\n", c->year + 1);
		any = true;
		struct setup_now s;
		struct order_set set;
		if (setup_read(y, (int)p, &s, &set) != 0) {
			orders_set_free(&set);
			return;
		}
		int total = s.has_army ? 0 : -1;
		for (size_t i = 0; s.has_army && i < c->players[p].list.count; i++)
			total += s.counts[i] * c->players[p].list.types[i].cost_half_ap;
		if (s.missing == 0) {
			strbuf_printf(out, "  %s: ready (%s AP, starts in %s)\n", c->players[p].key,
				      half_ap_format(total, buf), c->provinces[s.start].name);
		} else {
			strbuf_printf(out, "  %s: NOT READY; missing:", c->players[p].key);
			for (size_t i = 0; i < s.missing && i < MISSING_MAX; i++)
				strbuf_printf(out, "%s %s", i ? ";" : "", s.lines[i]);
			strbuf_puts(out, "\n");
		}
		orders_set_free(&set);
		setup_now_free(&s);
	}
}

/* The ARMY and START IN lines leave the pending orders once applied, so
 * that they are not carried into the year. */
static int drop_setup_orders(struct yctx *y, int player, struct order_set *set)
{
	size_t w = 0;
	for (size_t i = 0; i < set->count; i++) {
		if (set->orders[i].kind == ORDER_ARMY || set->orders[i].kind == ORDER_START_IN)
			order_free(&set->orders[i]);
		else
			set->orders[w++] = set->orders[i];
	}
	set->count = w;
	char *text = orders_format_pending(set, y->c), *err = NULL;
	int rc = 0;
	if (store_orders_set(y->e->store, y->c->players[player].key, y->c->year, PHASE_SETUP, text,
			     y->now, &err) != STORE_OK) {
		set_err(y, err);
		rc = -1;
	}
	free(text);
	return rc;
}

int setup_apply(struct yctx *y, bool force, struct strbuf *out, char *why, size_t why_size)
{
	struct campaign *c = y->c;
	char buf[16];
	struct strbuf waiting = {0};
	/* first who is not ready: nothing changes unless forced */
	for (size_t p = 0; p < c->player_count; p++) {
		if (!setting_up(c, p))
			continue;
		struct setup_now s;
		struct order_set set;
		int rc = setup_read(y, (int)p, &s, &set);
		if (rc == 0 && s.missing)
			strbuf_printf(&waiting, "%s%s", waiting.len ? ", " : "", c->players[p].key);
		orders_set_free(&set);
		setup_now_free(&s);
		if (rc != 0) {
			strbuf_free(&waiting);
			return -1;
		}
	}
	if (waiting.len && !force) {
		snprintf(why, why_size, "not every player is ready (campaignctl status says what is "
			 "missing): %s; start with --force to give them the default army", waiting.data);
		strbuf_free(&waiting);
		return 0;
	}
	strbuf_free(&waiting);
	for (size_t p = 0; p < c->player_count; p++) {
		if (!setting_up(c, p))
			continue;
		struct player *pl = &c->players[p];
		struct setup_now s;
		struct order_set set;
		if (setup_read(y, (int)p, &s, &set) != 0) {
			orders_set_free(&set);
			return -1;
		}
		bool army_done = s.has_army, start_done = s.start != NO_INDEX;
		if (s.missing) {
			/* was the army itself complete? then only the start is given */
			char *l2[MISSING_MAX];
			size_t m = rules_setup_missing(c, (int)p, s.has_army ? s.counts : NULL, 0, l2,
						       MISSING_MAX);
			for (size_t i = 0; i < m && i < MISSING_MAX; i++)
				free(l2[i]);
			army_done = s.has_army && m == 0;
			int def_start;
			int *def = xcalloc(pl->list.count + 1, sizeof *def);
			rules_setup_default(c, (int)p, def, &def_start);
			if (!army_done)
				memcpy(s.counts, def, pl->list.count * sizeof *def);
			if (!start_done)
				s.start = def_start;
			free(def);
		}
		int total = 0;
		for (size_t i = 0; i < pl->list.count; i++) {
			pl->field.count[i] = s.counts[i];
			total += s.counts[i] * pl->list.types[i].cost_half_ap;
		}
		pl->location = s.start;
		pl->original_half_ap = pl->cap_half_ap = total;
		pl->setup_by_mail = false;
		char *detail = xasprintf("%s: %s AP%s, starts in %s%s", pl->key,
					 half_ap_format(total, buf), army_done ? "" : " (the default)",
					 s.start >= 0 ? c->provinces[s.start].name : "-",
					 start_done ? "" : " (the default)");
		event_emit(&y->log, "organiser", RULE_GAME_YEAR, "{s:s, s:s}", "action", "setup",
			   "detail", detail);
		free(detail);
		if (s.missing) {
			json_t *d = json_object();
			json_t *army = json_array();
			for (size_t i = 0; i < pl->list.count; i++)
				if (s.counts[i])
					json_array_append_new(army, json_pack("{s:i, s:s}", "count",
									      s.counts[i], "label",
									      pl->list.types[i].label));
			json_object_set_new(d, "army", army);
			json_object_set_new(d, "total_ap", json_string(half_ap_format(total, buf)));
			json_object_set_new(d, "army_default", json_boolean(!army_done));
			json_object_set_new(d, "start_default", json_boolean(!start_done));
			json_object_set_new(d, "start", json_string(s.start >= 0 ?
							c->provinces[s.start].name : ""));
			char *subject = xstrdup("The campaign started without your setup");
			int rc = queue(y, (int)p, "setup-default", subject, d);
			free(subject);
			json_decref(d);
			if (rc != 0) {
				orders_set_free(&set);
				setup_now_free(&s);
				return -1;
			}
			strbuf_printf(out, "%s was not ready: given the default %s%s%s (told by mail)\n",
				      pl->key, army_done ? "" : "army",
				      !army_done && !start_done ? " and " : "",
				      start_done ? "" : "start");
		} else {
			strbuf_printf(out, "%s: army of %s AP placed in %s\n", pl->key,
				      half_ap_format(total, buf), c->provinces[s.start].name);
		}
		int rc = drop_setup_orders(y, (int)p, &set);
		orders_set_free(&set);
		setup_now_free(&s);
		if (rc != 0)
			return -1;
	}
	return 0;
}
