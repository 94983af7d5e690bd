#include "config.h"

#include "model/model.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* DBM troop types (notes: DBM 3.x). Chariots are Kn/Cv/LH with an
 * adjustment in DBM, so the DBA chariot codes are not accepted. */
static const struct {
	const char *code;
	enum troop_class cls;
} dbm_types[] = {
	{"Kn", TROOP_MOUNTED}, {"Cv", TROOP_MOUNTED}, {"LH", TROOP_MOUNTED},
	{"El", TROOP_MOUNTED}, {"Cm", TROOP_MOUNTED}, {"Exp", TROOP_MOUNTED},
	{"Pk", TROOP_FOOT},    {"Sp", TROOP_FOOT},    {"Bd", TROOP_FOOT},
	{"Wb", TROOP_FOOT},    {"Ax", TROOP_FOOT},    {"Bw", TROOP_FOOT},
	{"Ps", TROOP_FOOT},    {"Hd", TROOP_FOOT},    {"WWg", TROOP_FOOT},
	{"Art", TROOP_FOOT},   {"Bge", TROOP_FOOT},   {"Gal", TROOP_NAVAL},
	{"Shp", TROOP_NAVAL},  {"Bts", TROOP_NAVAL},
};

const char *const dbm_type_codes[] = {
	"Kn", "Cv", "LH", "El", "Cm", "Exp", "Pk", "Sp", "Bd", "Wb",
	"Ax", "Bw", "Ps", "Hd", "WWg", "Art", "Bge", "Gal", "Shp", "Bts", NULL,
};

const char *dbm_type_canonical(const char *code)
{
	for (size_t i = 0; i < sizeof dbm_types / sizeof *dbm_types; i++)
		if (strcasecmp(dbm_types[i].code, code) == 0)
			return dbm_types[i].code;
	return NULL;
}

enum troop_class dbm_type_class(const char *code)
{
	for (size_t i = 0; i < sizeof dbm_types / sizeof *dbm_types; i++)
		if (strcmp(dbm_types[i].code, code) == 0)
			return dbm_types[i].cls;
	return TROOP_UNKNOWN;
}

const char *campaign_phase_name(int phase)
{
	switch (phase) {
	case PHASE_SETUP: return "setup";
	case PHASE_CAMPAIGN: return "campaign";
	case PHASE_RECRUITMENT: return "recruitment";
	case PHASE_ENDED: return "ended";
	}
	return "unknown";
}

char *campaign_default_tag(const char *name)
{
	char out[CAMPAIGN_TAG_MAX + 1];
	size_t n = 0;
	const char *p = name ? name : "";
	while (*p && n < CAMPAIGN_TAG_MAX) {
		size_t len = strcspn(p, " \t");
		size_t digits = 0;
		while (digits < len && p[digits] >= '0' && p[digits] <= '9')
			digits++;
		const char *w = p;
		size_t wl = len;
		if (digits == 4 && len == 4) { /* a year: its last two digits */
			w += 2;
			wl = 2;
		}
		for (size_t i = 0; i < wl && n < CAMPAIGN_TAG_MAX; i++) {
			char ch = w[i];
			if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9'))
				out[n++] = ch;
		}
		p += len;
		p += strspn(p, " \t");
	}
	out[n] = '\0';
	return xstrdup(n ? out : "Campaign");
}

const char *campaign_tag_problem(const char *tag)
{
	size_t n = strlen(tag);
	if (n == 0)
		return "is empty";
	if (n > CAMPAIGN_TAG_MAX)
		return "is longer than 16 characters";
	for (const char *p = tag; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return "may hold only letters, digits, '-', '_' and '.'";
	return NULL;
}

void campaign_settings_default(struct campaign_settings *s)
{
	memset(s, 0, sizeof *s);
	s->siege_floor = 1;
	s->supply_across_sea = true;
	s->turn_deadline_hours = 72;
	s->decision_deadline_hours = 24;
	s->battle_deadline_hours = 336;
	s->recruitment_deadline_hours = 72;
	s->reminder_hours[0] = 24;
	s->reminder_hours[1] = 2;
	s->grace_hours = 12;
	s->inviolate_passable = true;
	s->defence_recalls_contingents = true;
}

struct campaign *campaign_new(void)
{
	struct campaign *c = xcalloc(1, sizeof *c);
	c->organiser_player = NO_INDEX;
	campaign_settings_default(&c->settings);
	return c;
}

void troops_alloc(struct troops *t, size_t n)
{
	free(t->count);
	t->count = xcalloc(n ? n : 1, sizeof *t->count);
}

void troops_free(struct troops *t)
{
	free(t->count);
	t->count = NULL;
}

void campaign_free(struct campaign *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->province_count; i++) {
		free(c->provinces[i].name);
		free(c->provinces[i].terrain);
		free(c->provinces[i].climate);
	}
	for (size_t i = 0; i < c->player_count; i++) {
		struct player *p = &c->players[i];
		free(p->key);
		free(p->nation);
		free(p->name);
		free(p->email);
		for (size_t j = 0; j < p->list.count; j++)
			free(p->list.types[j].label);
		free(p->list.types);
		troops_free(&p->field);
		troops_free(&p->reserve);
		free(p->loss_first);
	}
	for (size_t i = 0; i < c->contingent_count; i++)
		troops_free(&c->contingents[i].troops);
	free(c->provinces);
	free(c->routes);
	free(c->players);
	free(c->contingents);
	free(c->sieges);
	free(c->alliances);
	free(c->name);
	free(c->timezone);
	free(c->tag);
	free(c->organiser_name);
	free(c->organiser_email);
	free(c->background);
	free(c);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void *dup_array(const void *a, size_t n, size_t size)
{
	if (!a || n == 0)
		return NULL;
	void *b = xcalloc(n, size);
	memcpy(b, a, n * size);
	return b;
}

static void troops_copy(struct troops *to, const struct troops *from, size_t n)
{
	to->count = from->count ? dup_array(from->count, n ? n : 1, sizeof *from->count) : NULL;
}

struct campaign *campaign_copy(const struct campaign *c)
{
	struct campaign *d = xcalloc(1, sizeof *d);
	*d = *c;
	d->name = dup_or_null(c->name);
	d->timezone = dup_or_null(c->timezone);
	d->organiser_name = dup_or_null(c->organiser_name);
	d->organiser_email = dup_or_null(c->organiser_email);
	d->background = dup_or_null(c->background);
	d->tag = dup_or_null(c->tag);
	d->provinces = dup_array(c->provinces, c->province_count, sizeof *c->provinces);
	d->province_cap = c->province_count;
	for (size_t i = 0; i < c->province_count; i++) {
		d->provinces[i].name = dup_or_null(c->provinces[i].name);
		d->provinces[i].terrain = dup_or_null(c->provinces[i].terrain);
		d->provinces[i].climate = dup_or_null(c->provinces[i].climate);
	}
	d->routes = dup_array(c->routes, c->route_count, sizeof *c->routes);
	d->route_cap = c->route_count;
	d->players = dup_array(c->players, c->player_count, sizeof *c->players);
	d->player_cap = c->player_count;
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		struct player *q = &d->players[i];
		q->key = dup_or_null(p->key);
		q->nation = dup_or_null(p->nation);
		q->name = dup_or_null(p->name);
		q->email = dup_or_null(p->email);
		q->list.types = dup_array(p->list.types, p->list.count, sizeof *p->list.types);
		q->list.cap = p->list.count;
		for (size_t j = 0; j < p->list.count; j++)
			q->list.types[j].label = dup_or_null(p->list.types[j].label);
		troops_copy(&q->field, &p->field, p->list.count);
		troops_copy(&q->reserve, &p->reserve, p->list.count);
		q->loss_first = dup_array(p->loss_first, p->loss_first_count, sizeof *p->loss_first);
		if (!q->loss_first)
			q->loss_first_count = 0;
	}
	d->contingents = dup_array(c->contingents, c->contingent_count, sizeof *c->contingents);
	d->contingent_cap = c->contingent_count;
	for (size_t i = 0; i < c->contingent_count; i++) {
		int owner = c->contingents[i].owner;
		size_t n = owner >= 0 && (size_t)owner < c->player_count
				   ? c->players[owner].list.count
				   : 0;
		troops_copy(&d->contingents[i].troops, &c->contingents[i].troops, n);
	}
	d->sieges = dup_array(c->sieges, c->siege_count, sizeof *c->sieges);
	d->siege_cap = c->siege_count;
	d->alliances = dup_array(c->alliances, c->alliance_count, sizeof *c->alliances);
	d->alliance_cap = c->alliance_count;
	return d;
}

struct province *campaign_add_province(struct campaign *c)
{
	grow_array((void **)&c->provinces, &c->province_cap, c->province_count + 1,
		   sizeof *c->provinces);
	struct province *p = &c->provinces[c->province_count++];
	memset(p, 0, sizeof *p);
	p->home_of = NO_INDEX;
	p->owner = NO_INDEX;
	return p;
}

struct route *campaign_add_route(struct campaign *c)
{
	grow_array((void **)&c->routes, &c->route_cap, c->route_count + 1, sizeof *c->routes);
	struct route *r = &c->routes[c->route_count++];
	memset(r, 0, sizeof *r);
	r->a = r->b = NO_INDEX;
	return r;
}

struct player *campaign_add_player(struct campaign *c)
{
	grow_array((void **)&c->players, &c->player_cap, c->player_count + 1, sizeof *c->players);
	struct player *p = &c->players[c->player_count++];
	memset(p, 0, sizeof *p);
	p->location = NO_INDEX;
	p->overlord = NO_INDEX;
	p->status = PLAYER_ACTIVE;
	p->original_half_ap = FIELD_ARMY_HALF_AP;
	p->cap_half_ap = FIELD_ARMY_HALF_AP;
	return p;
}

struct element_type *army_list_add(struct army_list *l)
{
	grow_array((void **)&l->types, &l->cap, l->count + 1, sizeof *l->types);
	struct element_type *t = &l->types[l->count++];
	memset(t, 0, sizeof *t);
	return t;
}

void player_alloc_troops(struct player *p)
{
	troops_alloc(&p->field, p->list.count);
	troops_alloc(&p->reserve, p->list.count);
}

int campaign_find_province(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->province_count; i++)
		if (name_equal(c->provinces[i].name, name))
			return (int)i;
	return -1;
}

int campaign_find_player(const struct campaign *c, const char *key_or_nation)
{
	for (size_t i = 0; i < c->player_count; i++)
		if (name_equal(c->players[i].key, key_or_nation))
			return (int)i;
	for (size_t i = 0; i < c->player_count; i++)
		if (c->players[i].nation && name_equal(c->players[i].nation, key_or_nation))
			return (int)i;
	return -1;
}

int army_list_find(const struct army_list *l, const char *label)
{
	for (size_t i = 0; i < l->count; i++)
		if (name_equal(l->types[i].label, label))
			return (int)i;
	return -1;
}

int troops_half_ap(const struct army_list *l, const struct troops *t)
{
	int sum = 0;
	for (size_t i = 0; i < l->count; i++)
		sum += t->count[i] * l->types[i].cost_half_ap;
	return sum;
}

int troops_generals(const struct army_list *l, const struct troops *t)
{
	int n = 0;
	for (size_t i = 0; i < l->count; i++)
		if (l->types[i].general)
			n += t->count[i];
	return n;
}

int troops_elements(const struct army_list *l, const struct troops *t)
{
	int n = 0;
	for (size_t i = 0; i < l->count; i++)
		n += t->count[i];
	return n;
}

int troops_mounted_half_ap(const struct army_list *l, const struct troops *t)
{
	int sum = 0;
	for (size_t i = 0; i < l->count; i++)
		if (dbm_type_class(l->types[i].code) == TROOP_MOUNTED)
			sum += t->count[i] * l->types[i].cost_half_ap;
	return sum;
}

int player_field_half_ap(const struct player *p)
{
	return troops_half_ap(&p->list, &p->field);
}

int player_reserve_half_ap(const struct player *p)
{
	return troops_half_ap(&p->list, &p->reserve);
}

int player_province_count(const struct campaign *c, int player)
{
	int n = 0;
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].owner == player)
			n++;
	return n;
}

int campaign_route_between(const struct campaign *c, int a, int b)
{
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if ((r->a == a && r->b == b) || (r->a == b && r->b == a))
			return (int)i;
	}
	return -1;
}

size_t campaign_neighbours(const struct campaign *c, int p, int *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		int other = r->a == p ? r->b : r->b == p ? r->a : NO_INDEX;
		if (other == NO_INDEX || other == p)
			continue;
		if (n < max)
			out[n] = other;
		n++;
	}
	return n;
}

int campaign_distance(const struct campaign *c, int from, int to)
{
	if (from < 0 || to < 0 || (size_t)from >= c->province_count ||
	    (size_t)to >= c->province_count)
		return -1;
	int *dist = xmalloc(c->province_count * sizeof *dist);
	int *queue = xmalloc(c->province_count * sizeof *queue);
	for (size_t i = 0; i < c->province_count; i++)
		dist[i] = -1;
	size_t head = 0, tail = 0;
	dist[from] = 0;
	queue[tail++] = from;
	while (head < tail && dist[to] < 0) {
		int p = queue[head++];
		for (size_t i = 0; i < c->route_count; i++) {
			const struct route *r = &c->routes[i];
			int other = r->a == p ? r->b : r->b == p ? r->a : NO_INDEX;
			if (other >= 0 && dist[other] < 0) {
				dist[other] = dist[p] + 1;
				queue[tail++] = other;
			}
		}
	}
	int d = dist[to];
	free(dist);
	free(queue);
	return d;
}

bool campaign_connected(const struct campaign *c)
{
	for (size_t i = 1; i < c->province_count; i++)
		if (campaign_distance(c, 0, (int)i) < 0)
			return false;
	return true;
}

/* The players' colours: ten that stay apart on a map; the palette repeats. */
static const char *const palette[] = {
	"#c0392b", /* red */
	"#1f5fbf", /* blue */
	"#e1b100", /* yellow */
	"#27ae60", /* green */
	"#8e44ad", /* purple */
	"#e67e22", /* orange */
	"#16a085", /* teal */
	"#d63384", /* pink */
	"#795548", /* brown */
	"#2c3e50", /* slate */
};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

const char *player_colour(int player)
{
	if (player < 0)
		return PLAYER_COLOUR_NOBODY;
	return palette[(size_t)player % PALETTE_SIZE];
}
