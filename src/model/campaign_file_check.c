/* The campaign file's whole-file checks: once every line is read, the
 * names are resolved (homes, start provinces, routes, organiser-plays) and
 * the campaign is checked as a whole (players, armies, map). */
#include "config.h"

#include "model/campaign_file_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOME_PROVINCES 4 /* rules 1.2: four home provinces each */
#define MIN_PLAYERS 3    /* the rules are "for 3 or more players" */
#define COMFORTABLE_PLAYERS 8

/* --------------------------------------------------------- parser storage */

/* Names of the provinces (or player keys) for lookups; duplicates are left
 * out (NULL) so a lookup finds the first definition. Caller frees the array. */
static const char **province_names(struct parser *ps)
{
	const char **names = xcalloc(ps->c->province_count + 1, sizeof *names);
	for (size_t i = 0; i < ps->c->province_count; i++)
		names[i] = ps->pinfo[i].duplicate ? NULL : ps->c->provinces[i].name;
	return names;
}

static const char **player_key_names(struct parser *ps)
{
	const char **names = xcalloc(ps->c->player_count + 1, sizeof *names);
	for (size_t i = 0; i < ps->c->player_count; i++)
		names[i] = ps->yinfo[i].duplicate ? NULL : ps->c->players[i].key;
	return names;
}

/* ------------------------------------------------------- whole-file checks */

static void check_campaign(struct parser *ps)
{
	struct campaign *c = ps->c;
	if (!c->timezone)
		c->timezone = xstrdup("UTC");
	if (!c->tag)
		c->tag = campaign_default_tag(c->name);
	if (!ps->campaign_line) {
		cf_error(ps, 0, "no [campaign] section: the file needs one with at least name, "
		         "start-year and organiser");
		return;
	}
	int *seen = ps->campaign_keys_line;
	for (int k = 0; k < CK_COUNT; k++)
		if (ps->campaign_keys_guessed[k] && !seen[k])
			seen[k] = -1;
	if (!seen[CK_NAME])
		cf_error(ps, ps->campaign_line, "[campaign] has no name (add e.g. \"name = The "
		         "Burgundian Wars\")");
	if (!seen[CK_START_YEAR])
		cf_error(ps, ps->campaign_line, "[campaign] has no start-year (add e.g. "
		         "\"start-year = 1450\")");
	if (!seen[CK_ORGANISER])
		cf_error(ps, ps->campaign_line, "[campaign] has no organiser (add \"organiser = "
		         "Your Name <you@example.org>\")");
}

/* Resolves each province's "home" to a player. */
static void resolve_homes(struct parser *ps, const char **keys)
{
	struct campaign *c = ps->c;
	for (size_t i = 0; i < c->province_count; i++) {
		struct province *p = &c->provinces[i];
		struct province_info *pi = &ps->pinfo[i];
		if (!pi->home) {
			p->inviolate = pi->inviolate;
			continue;
		}
		if (pi->neutral)
			cf_error(ps, pi->home_line, "province \"%s\" cannot be both neutral and a home "
			         "province of \"%s\"", p->name, pi->home);
		if (pi->inviolate)
			cf_error(ps, pi->inviolate_line, "province \"%s\" is inviolate, so it must be "
			         "neutral: remove \"home = %s\" or \"inviolate = yes\"", p->name,
			         pi->home);
		int sugg;
		int y = cf_lookup_exact(pi->home, keys, c->player_count, &sugg);
		if (y < 0) {
			/* Players also answer to their nation's name. */
			y = campaign_find_player(c, pi->home);
			if (y >= 0 && ps->yinfo[y].duplicate)
				y = -1;
		}
		if (y < 0) {
			cf_error(ps, pi->home_line, "province \"%s\": home of unknown player \"%s\"%s",
			         p->name, pi->home, cf_did_you_mean(keys, sugg));
			if (sugg >= 0)
				ps->yinfo[sugg].homes_uncertain = true;
			continue;
		}
		if (pi->duplicate)
			continue;
		p->home_of = y;
		p->owner = y;
	}
}

static void list_homes(const struct campaign *c, int player, struct strbuf *sb)
{
	bool first = true;
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].home_of == player) {
			strbuf_printf(sb, "%s%s", first ? "" : ", ", c->provinces[i].name);
			first = false;
		}
}

static void check_player_army(struct parser *ps, int index)
{
	struct player *y = &ps->c->players[index];
	struct player_info *yi = &ps->yinfo[index];
	char buf[16], buf2[16];
	if (yi->army_unreadable || y->list.count == 0)
		return;
	int total = 0, generals = 0;
	for (size_t j = 0; j < y->list.count; j++) {
		const struct element_type *t = &y->list.types[j];
		int n = yi->field[j];
		if (n > t->list_max)
			cf_error(ps, t->line, "player \"%s\": element \"%s\": the field army has %d, above "
			         "the list maximum of %d (%d too many)", y->key, t->label, n,
			         t->list_max, n - t->list_max);
		else if (n < t->list_min)
			cf_error(ps, t->line, "player \"%s\": element \"%s\": the field army has %d, below "
			         "the list minimum of %d (%d short)", y->key, t->label, n, t->list_min,
			         t->list_min - n);
		total += n * t->cost_half_ap;
		if (t->general)
			generals += n;
	}
	if (total != FIELD_ARMY_HALF_AP) {
		int diff = total - FIELD_ARMY_HALF_AP;
		cf_error(ps, y->line, "player \"%s\": the field army costs %s AP; it must be exactly "
		         "480 AP (%s AP %s)", y->key, half_ap_format(total, buf),
		         half_ap_format(diff < 0 ? -diff : diff, buf2), diff < 0 ? "short" : "over");
	}
	if (generals == 0)
		cf_error(ps, y->line, "player \"%s\": the field army has no general (mark the "
		         "general's element line with \"| general\" and give it \"| field 1\")",
		         y->key);
	else if (generals > MAX_GENERALS)
		cf_error(ps, y->line, "player \"%s\": the field army has %d generals; DBM allows at "
		         "most %d", y->key, generals, MAX_GENERALS);
}

static void check_players(struct parser *ps, const char **pnames)
{
	struct campaign *c = ps->c;
	for (size_t i = 0; i < c->player_count; i++) {
		struct player *y = &c->players[i];
		struct player_info *yi = &ps->yinfo[i];
		if (yi->duplicate)
			continue;
		int homes = player_province_count(c, (int)i);
		if (homes != HOME_PROVINCES && !yi->homes_uncertain) {
			struct strbuf sb = {0};
			list_homes(c, (int)i, &sb);
			if (homes == 0)
				cf_error(ps, y->line, "player \"%s\" has no home provinces; each player "
				         "needs exactly four (add \"home = %s\" to four provinces)", y->key,
				         y->key);
			else
				cf_error(ps, y->line, "player \"%s\" has %d home province%s (%s); each player "
				         "needs exactly four", y->key, homes, homes == 1 ? "" : "s", sb.data);
			strbuf_free(&sb);
		}
		if (yi->start) {
			int sugg;
			int p = cf_lookup_exact(yi->start, pnames, c->province_count, &sugg);
			if (p >= 0 && ps->pinfo[p].home && c->provinces[p].home_of == NO_INDEX) {
				/* Its "home" did not resolve: that error says it all. */
			} else if (p < 0) {
				cf_error(ps, yi->start_line, "start in unknown province \"%s\"%s", yi->start,
				         cf_did_you_mean(pnames, sugg));
			} else if (c->provinces[p].home_of != (int)i) {
				struct strbuf sb = {0};
				list_homes(c, (int)i, &sb);
				const struct province *pr = &c->provinces[p];
				if (pr->home_of >= 0)
					cf_error(ps, yi->start_line, "start province \"%s\" is a home province "
					         "of \"%s\", not of \"%s\"; the army starts in one of its "
					         "own: %s", pr->name, c->players[pr->home_of].key, y->key,
					         sb.len ? sb.data : "(none yet)");
				else
					cf_error(ps, yi->start_line, "start province \"%s\" is not a home "
					         "province of \"%s\"; the army starts in one of its own: %s",
					         pr->name, y->key, sb.len ? sb.data : "(none yet)");
				strbuf_free(&sb);
			} else {
				y->location = p;
			}
		}
		if (!yi->start && !yi->any_field && !yi->army_unreadable && y->list.count)
			y->setup_by_mail = true; /* chooses army and start by mail (ARMY, START IN) */
		else
			check_player_army(ps, (int)i);
		for (size_t j = 0; j < i; j++) {
			const struct player *o = &c->players[j];
			if (ps->yinfo[j].duplicate)
				continue;
			if (y->email && o->email && strcasecmp(y->email, o->email) == 0)
				cf_error(ps, yi->email_line, "email \"%s\" is already used by player \"%s\" "
				         "(line %d); each player needs an address of their own", y->email,
				         o->key, ps->yinfo[j].email_line);
			if (y->nation && o->nation && name_equal(y->nation, o->nation))
				cf_error(ps, yi->nation_line, "nation \"%s\" is already played by \"%s\" "
				         "(line %d)", y->nation, o->key, ps->yinfo[j].nation_line);
			/* Orders name players by key or nation: neither may be ambiguous. */
			if (y->nation && name_equal(y->nation, o->key))
				cf_error(ps, yi->nation_line, "nation \"%s\" is also the key of player \"%s\": "
				         "orders could not tell them apart", y->nation, o->key);
			if (o->nation && name_equal(o->nation, y->key))
				cf_error(ps, y->line, "player key \"%s\" is also the nation of player \"%s\": "
				         "orders could not tell them apart", y->key, o->key);
		}
	}

	size_t players = 0;
	for (size_t i = 0; i < c->player_count; i++)
		if (!ps->yinfo[i].duplicate)
			players++;
	if (players < MIN_PLAYERS)
		cf_error(ps, c->player_count ? c->players[c->player_count - 1].line : 0,
		         "%zu player%s; the rules need at least %d (add [player KEY] sections)",
		         players, players == 1 ? "" : "s", MIN_PLAYERS);
	else if (players > COMFORTABLE_PLAYERS)
		cf_warning(ps, c->players[c->player_count - 1].line, "%zu players; the rules are "
			   "written for 3 to about %d, and every extra player slows each year down",
			   players, COMFORTABLE_PLAYERS);

	if (ps->organiser_plays) {
		const char **keys = player_key_names(ps);
		int sugg;
		int y = cf_lookup_exact(ps->organiser_plays, keys, c->player_count, &sugg);
		if (y < 0)
			cf_error(ps, ps->organiser_plays_line, "organiser-plays names unknown player "
			         "\"%s\"%s", ps->organiser_plays, cf_did_you_mean(keys, sugg));
		else
			c->organiser_player = y;
		free(keys);
	}
}

/* Resolves the route lines; returns false if some name did not resolve. */
static bool resolve_routes(struct parser *ps, const char **pnames)
{
	struct campaign *c = ps->c;
	bool all_known = true;
	for (size_t i = 0; i < ps->route_count; i++) {
		struct pending_route *r = &ps->routes[i];
		int sa, sb;
		if (!r->b) {
			/* "Flanders-Brabant": two known names joined without spaces? */
			char *dash = strchr(r->a, '-');
			for (; dash; dash = strchr(dash + 1, '-')) {
				char *left = xstrndup(r->a, (size_t)(dash - r->a));
				int a = cf_lookup_exact(str_trim(left), pnames, c->province_count, &sa);
				int b = cf_lookup_exact(dash + 1, pnames, c->province_count, &sb);
				free(left);
				if (a >= 0 && b >= 0) {
					cf_error(ps, r->line, "a route needs spaces around the '-': did you "
					         "mean \"%s - %s\"?", pnames[a], pnames[b]);
					break;
				}
			}
			if (!dash)
				cf_error(ps, r->line, "\"%s\" is not a route: write two provinces joined "
				         "by \" - \" (land) or \" ~ \" (sea), e.g. \"Flanders - Brabant\"",
				         r->a);
			all_known = false;
			continue;
		}
		int a = cf_lookup_exact(r->a, pnames, c->province_count, &sa);
		int b = cf_lookup_exact(r->b, pnames, c->province_count, &sb);
		if (a < 0)
			cf_error(ps, r->line, "route to unknown province \"%s\"%s", r->a,
			         cf_did_you_mean(pnames, sa));
		if (b < 0)
			cf_error(ps, r->line, "route to unknown province \"%s\"%s", r->b,
			         cf_did_you_mean(pnames, sb));
		if (a < 0 || b < 0) {
			all_known = false;
			continue;
		}
		if (a == b) {
			cf_error(ps, r->line, "route from \"%s\" to itself", c->provinces[a].name);
			continue;
		}
		int prev = campaign_route_between(c, a, b);
		if (prev >= 0) {
			const struct route *o = &c->routes[prev];
			if (o->sea == r->sea)
				cf_error(ps, r->line, "route %s %s %s is given twice (first on line %d)",
				         c->provinces[a].name, r->sea ? "~" : "-", c->provinces[b].name,
				         o->line);
			else
				cf_error(ps, r->line, "\"%s\" and \"%s\" are already joined by a %s route "
				         "(line %d); two provinces have at most one route", c->provinces[a].name,
				         c->provinces[b].name, o->sea ? "sea" : "land", o->line);
			continue;
		}
		struct route *nr = campaign_add_route(c);
		nr->a = a;
		nr->b = b;
		nr->sea = r->sea;
		nr->line = r->line;
	}
	return all_known;
}

/* Every province must be reachable: name the ones cut off from the largest
 * connected part of the map. */
static void check_connected(struct parser *ps)
{
	struct campaign *c = ps->c;
	size_t n = c->province_count;
	int *component = xmalloc((n ? n : 1) * sizeof *component);
	size_t *size = xcalloc(n ? n : 1, sizeof *size);
	int components = 0;
	for (size_t i = 0; i < n; i++)
		component[i] = ps->pinfo[i].duplicate ? -2 : -1;
	for (size_t i = 0; i < n; i++) {
		if (component[i] != -1)
			continue;
		int id = components++;
		component[i] = id;
		bool grew = true;
		while (grew) {
			grew = false;
			for (size_t r = 0; r < c->route_count; r++) {
				int a = c->routes[r].a, b = c->routes[r].b;
				if (component[a] == id && component[b] == -1) {
					component[b] = id;
					grew = true;
				} else if (component[b] == id && component[a] == -1) {
					component[a] = id;
					grew = true;
				}
			}
		}
	}
	int main_part = 0;
	for (size_t i = 0; i < n; i++)
		if (component[i] >= 0)
			size[component[i]]++;
	for (int k = 1; k < components; k++)
		if (size[k] > size[main_part])
			main_part = k;
	for (int k = 0; k < components; k++) {
		if (k == main_part)
			continue;
		struct strbuf sb = {0};
		int line = 0;
		for (size_t i = 0; i < n; i++)
			if (component[i] == k) {
				strbuf_printf(&sb, "%s\"%s\"", sb.len ? ", " : "", c->provinces[i].name);
				if (!line)
					line = c->provinces[i].line;
			}
		if (size[k] == 1)
			cf_error(ps, line, "province %s cannot be reached from the rest of the map: add "
			         "a route to it in [routes]", sb.data);
		else
			cf_error(ps, line, "provinces %s are cut off from the rest of the map: add a "
			         "route joining them to it in [routes]", sb.data);
		strbuf_free(&sb);
	}
	free(component);
	free(size);
}

static void check_map(struct parser *ps, bool routes_known)
{
	struct campaign *c = ps->c;
	if (c->province_count == 0) {
		cf_error(ps, 0, "no provinces: the map needs [province NAME] sections");
		return;
	}
	/* Unknown names in routes already explain any gap in the map. */
	if (routes_known)
		check_connected(ps);
	for (size_t i = 0; i < c->province_count; i++) {
		if (ps->pinfo[i].duplicate)
			continue;
		for (size_t j = 0; j < i; j++) {
			if (ps->pinfo[j].duplicate)
				continue;
			const struct province *a = &c->provinces[i], *b = &c->provinces[j];
			if (ps->pinfo[i].has_position && ps->pinfo[j].has_position &&
			    a->x == b->x && a->y == b->y)
				cf_warning(ps, a->line, "province \"%s\" is drawn at the same position "
					   "as \"%s\" (line %d)", a->name, b->name, b->line);
		}
	}
}

/* Fills the starting state once everything checked out. */
static void set_up_start(struct parser *ps)
{
	struct campaign *c = ps->c;
	c->year = c->start_year;
	c->phase = PHASE_SETUP;
	for (size_t i = 0; i < c->player_count; i++) {
		struct player *y = &c->players[i];
		player_alloc_troops(y);
		for (size_t j = 0; j < y->list.count; j++)
			y->field.count[j] = ps->yinfo[i].field[j];
		y->original_half_ap = player_field_half_ap(y);
		y->cap_half_ap = y->original_half_ap;
	}
}

/* ------------------------------------------------------------------- entry */

void cf_check_file(struct parser *ps)
{
	check_campaign(ps);
	const char **keys = player_key_names(ps);
	const char **pnames = province_names(ps);
	resolve_homes(ps, keys);
	bool routes_known = resolve_routes(ps, pnames);
	check_map(ps, routes_known);
	check_players(ps, pnames);
	free(keys);
	free(pnames);
	if (ps->diags.errors == 0)
		set_up_start(ps);
}

void cf_check_lists(struct parser *ps)
{
	if (ps->c->player_count == 0 && ps->diags.errors == 0)
		cf_error(ps, 0, "no army list: the file holds [player KEY] sections, each with its "
		         "\"element = ...\" lines");
	if (ps->diags.errors == 0)
		set_up_start(ps);
}
