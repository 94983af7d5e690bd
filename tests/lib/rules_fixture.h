/* Small campaigns built in code for the rules tests (and the order
 * language, diary and map tests: fx_province, fx_route, fx_type build any
 * map and army list). Every player made by fx_player gets the same army
 * list (costs in whole AP):
 *   0 "C-in-C" Kn general 30   1 "Sub-general" Cv general 28
 *   2 "Kn(O)" 12   3 "LH(O)" 5   4 "Sp(O)" 5   5 "Ps(O)" 2   6 "Ax(O)" 3.5
 * and the same 480 AP field army: 1, 2, 10, 10, 30, 16, 12 elements. */
#ifndef RULES_FIXTURE_H
#define RULES_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "dbm/rules.h"
#include "base/util.h"

enum { T_CINC, T_SUB, T_KN, T_LH, T_SP, T_PS, T_AX, T_COUNT };

static const int fx_army[T_COUNT] = {1, 2, 10, 10, 30, 16, 12};

static inline struct campaign *fx_campaign(void)
{
	struct campaign *c = campaign_new();
	c->name = xstrdup("test");
	c->start_year = c->year = 1450;
	c->phase = PHASE_CAMPAIGN;
	return c;
}

static inline int fx_province(struct campaign *c, const char *name, int owner, bool home)
{
	struct province *p = campaign_add_province(c);
	p->name = xstrdup(name);
	p->owner = owner;
	p->home_of = home ? owner : NO_INDEX;
	return (int)c->province_count - 1;
}

static inline void fx_route(struct campaign *c, int a, int b, bool sea)
{
	struct route *r = campaign_add_route(c);
	r->a = a;
	r->b = b;
	r->sea = sea;
}

static inline void fx_type(struct player *p, const char *label, const char *code,
			   int cost_half_ap, bool general, int min, int max)
{
	struct element_type *t = army_list_add(&p->list);
	t->label = xstrdup(label);
	snprintf(t->code, sizeof t->code, "%s", code);
	t->grade = 'O';
	t->regular = true;
	t->cost_half_ap = cost_half_ap;
	t->general = general;
	t->list_min = min;
	t->list_max = max;
}

/* A player with the standard list and field army, at `location`. */
static inline int fx_player(struct campaign *c, const char *key, int location)
{
	struct player *p = campaign_add_player(c);
	p->key = xstrdup(key);
	p->nation = xstrdup(key);
	fx_type(p, "C-in-C", "Kn", HALF_AP(30), true, 1, 1);
	fx_type(p, "Sub-general", "Cv", HALF_AP(28), true, 0, 3);
	fx_type(p, "Kn(O)", "Kn", HALF_AP(12), false, 4, 12);
	fx_type(p, "LH(O)", "LH", HALF_AP(5), false, 0, 12);
	fx_type(p, "Sp(O)", "Sp", HALF_AP(5), false, 20, 36);
	fx_type(p, "Ps(O)", "Ps", HALF_AP(2), false, 0, 20);
	fx_type(p, "Ax(O)", "Ax", 7, false, 0, 16);
	player_alloc_troops(p);
	memcpy(p->field.count, fx_army, sizeof fx_army);
	p->location = location;
	return (int)c->player_count - 1;
}

static inline void fx_set(int *counts, const int *values)
{
	memcpy(counts, values, T_COUNT * sizeof *counts);
}

/* Sum of the "lost_half_ap" of every loss event. */
static inline int fx_total_lost(const struct event_log *log)
{
	int sum = 0;
	for (size_t i = 0; i < log->count; i++)
		if (strcmp(json_string_value(json_object_get(log->events[i], "kind")), "loss") == 0)
			sum += (int)json_integer_value(json_object_get(log->events[i], "lost_half_ap"));
	return sum;
}

/* A rules test's world: the campaign, its event log, the fixed dice the
 * test sets, and the players it names (indices into c->players; a test
 * sets those it adds). */
struct fx_world {
	struct campaign *c;
	struct event_log log;
	struct dice_fixed dice;
	int bur, fra, mil, ven;
};

/* A new world around an empty fx_campaign() and an empty event log. */
static inline struct fx_world *fx_world_new(void)
{
	struct fx_world *w = xcalloc(1, sizeof *w);
	w->c = fx_campaign();
	event_log_init(&w->log);
	return w;
}

/* The end of a cmocka setup: stamps the log with the year and phase the
 * setup left the campaign in and hands the world to the test. */
static inline int fx_world_start(void **state, struct fx_world *w)
{
	event_log_set_time(&w->log, w->c->year, w->c->phase);
	*state = w;
	return 0;
}

/* The cmocka teardown of every rules test: frees the log, the campaign and
 * the world. */
static inline int fx_world_teardown(void **state)
{
	struct fx_world *w = *state;
	event_log_free(&w->log);
	campaign_free(w->c);
	free(w);
	return 0;
}

static inline int fx_int(const json_t *ev, const char *field)
{
	return (int)json_integer_value(json_object_get(ev, field));
}

static inline const char *fx_str(const json_t *ev, const char *field)
{
	return json_string_value(json_object_get(ev, field));
}

#endif
