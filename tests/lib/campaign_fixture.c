#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/campaign_fixture.h"
#include "lib/files.h"
#include "model/campaign_file.h"
#include "base/diag.h"
#include "base/util.h"

static void add_province(struct campaign *c, const char *name, const char *terrain, double x,
			 double y)
{
	struct province *p = campaign_add_province(c);
	p->name = xstrdup(name);
	p->terrain = xstrdup(terrain);
	p->climate = xstrdup("temperate");
	p->x = x;
	p->y = y;
	p->line = (int)c->province_count + 10;
}

static void add_route(struct campaign *c, int a, int b, bool sea)
{
	struct route *r = campaign_add_route(c);
	r->a = a;
	r->b = b;
	r->sea = sea;
	r->line = (int)c->route_count + 20;
}

static void add_type(struct player *p, const char *label, const char *code, char grade,
		     int cost_half_ap, bool general, int count)
{
	struct element_type *t = army_list_add(&p->list);
	t->label = xstrdup(label);
	strcpy(t->code, code);
	t->grade = grade;
	t->regular = code[0] != 'P';
	t->cost_half_ap = cost_half_ap;
	t->list_min = general ? 1 : 0;
	t->list_max = count + 10;
	t->general = general;
	t->line = (int)p->list.count + 40;
}

static void set_field(struct player *p, const int *counts)
{
	player_alloc_troops(p);
	for (size_t i = 0; i < p->list.count; i++)
		p->field.count[i] = counts[i];
}

struct campaign *fixture_campaign(void)
{
	struct campaign *c = campaign_new();
	c->name = xstrdup("Test Marches");
	c->start_year = 1450;
	c->year = 1450;
	c->phase = PHASE_SETUP;
	c->timezone = xstrdup("Europe/Paris");
	c->organiser_name = xstrdup("Olivier de la Marche");
	c->organiser_email = xstrdup("organiser@example.org");

	add_province(c, "Dijon", "hills", 300.5, 410);
	add_province(c, "Paris", "arable", 200, 250.25);
	add_province(c, "Flanders", "marsh", 250, 100);
	add_province(c, "Calais", "coast", 150, 90);
	add_province(c, "Jersey", "island", 40, 200);
	c->provinces[4].inviolate = true;
	add_route(c, 0, 1, false);
	add_route(c, 1, 2, false);
	add_route(c, 2, 3, false);
	add_route(c, 1, 3, false);
	add_route(c, 3, 4, true);

	struct player *b = campaign_add_player(c);
	b->key = xstrdup("burgundy");
	b->nation = xstrdup("Burgundy");
	b->name = xstrdup("Philippe");
	b->email = xstrdup("philippe@example.org");
	b->line = 30;
	add_type(b, "Kn(S) general", "Kn", 'S', HALF_AP(30), true, 2);
	add_type(b, "Kn(S)", "Kn", 'S', HALF_AP(12), false, 20);
	add_type(b, "Bw(O)", "Bw", 'O', HALF_AP(5), false, 30);
	add_type(b, "Ps(I)", "Ps", 'I', 3, false, 20);
	set_field(b, (const int[]){2, 20, 30, 20});

	struct player *f = campaign_add_player(c);
	f->key = xstrdup("france");
	f->nation = xstrdup("France");
	f->name = xstrdup("Charles");
	f->email = xstrdup("charles@example.org");
	f->line = 60;
	add_type(f, "Cv(O) general", "Cv", 'O', HALF_AP(25), true, 2);
	add_type(f, "Kn(F)", "Kn", 'F', HALF_AP(9), false, 20);
	add_type(f, "Sp(I)", "Sp", 'I', 7, false, 40);
	add_type(f, "Bw(I)", "Bw", 'I', 7, false, 30);
	add_type(f, "Art(I)", "Art", 'I', HALF_AP(5), false, 1);
	set_field(f, (const int[]){2, 20, 40, 30, 1});

	c->provinces[0].home_of = c->provinces[0].owner = 0;
	c->provinces[1].home_of = c->provinces[1].owner = 1;
	b->location = 0;
	f->location = 1;
	c->organiser_player = NO_INDEX;
	return c;
}

void fixture_play_a_year(struct campaign *c)
{
	struct player *b = &c->players[0], *f = &c->players[1];
	c->year = 1451;
	c->phase = PHASE_CAMPAIGN;
	c->provinces[2].owner = 0;
	b->location = 2;
	b->field.count[1] -= 5;
	b->reserve.count[1] += 5;
	b->battle_prestige = 2;
	b->province_prestige = 3;
	b->movement_option = OPTION_INVADE;
	b->fought_this_year = true;

	f->field.count[1] -= 2;
	grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
		   sizeof *c->contingents);
	struct contingent *k = &c->contingents[c->contingent_count++];
	k->owner = 1;
	k->with_player = 0;
	troops_alloc(&k->troops, f->list.count);
	k->troops.count[1] = 2;
	k->sent_year = 1451;
	k->returning = false;
	f->overlord = 0;
	f->cap_half_ap = HALF_AP(470);
	f->quiet_years = 1;

	grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1, sizeof *c->sieges);
	struct siege *s = &c->sieges[c->siege_count++];
	s->province = 3;
	s->besieger = 0;
	s->rounds_failed = 1;
	s->last_round_year = 1451;
}

struct campaign *test_campaign_parse(const char *text, size_t len, const char *name)
{
	struct diag_list diags = {0};
	struct campaign *c = campaign_file_parse(text, len, name, &diags);
	if (!c)
		diag_print(&diags, stderr);
	assert_non_null(c);
	diag_free(&diags);
	return c;
}

struct campaign *test_campaign_load(const char *rel)
{
	size_t len;
	char *text = test_source_text(rel, &len);
	char *path = test_source_path(rel);
	struct campaign *c = test_campaign_parse(text, len, path);
	free(path);
	free(text);
	return c;
}
