/* Scenarios: the starting position of a [start] section (doc/scenario.md,
 * "The starting position"): the year, each army's troops, location and
 * reserve, prestige, owners of provinces, sieges in progress,
 * tributaries and alliances, set on the campaign before the first year is played. */
#include "config.h"

#include "engine/scenario.h"
#include "engine/scenario_p.h"
#include "dbm/rules.h"

#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void start_error(struct diag_list *diags, const struct scenario *s, int line,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void start_error(struct diag_list *diags, const struct scenario *s, int line,
			const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = {0};
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_add(diags, DIAG_ERROR, s->filename, line, "%s", sb.data ? sb.data : "");
	strbuf_free(&sb);
}

static bool parse_count(const char *v, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (end == v || *end || errno || n < lo || n > hi)
		return false;
	*out = (int)n;
	return true;
}

void scenario_start_line(struct scenario *s, char *text, int line, struct diag_list *diags)
{
	str_trim(text);
	if (!*text)
		return;
	char *eq = strchr(text, '=');
	if (!eq) {
		start_error(diags, s, line, "expected \"WHO WHAT = value\" in [start], e.g. "
			    "\"france at = Normandy\" or \"year = 1452\"");
		return;
	}
	*eq = '\0';
	char *key = str_trim(text), *value = str_trim(eq + 1);
	if (strcasecmp(key, "year") == 0) {
		if (s->start_year)
			start_error(diags, s, line, "a second \"year =\" in [start]");
		else if (!parse_count(value, 1, 99999, &s->start_year))
			start_error(diags, s, line, "the year is a number, e.g. \"year = 1452\"");
		return;
	}
	char *sp = key + strlen(key);
	while (sp > key && !isspace((unsigned char)sp[-1]))
		sp--;
	if (sp == key) {
		start_error(diags, s, line, "\"%s =\": name the player or province first, e.g. "
			    "\"france %s = ...\"", key, key);
		return;
	}
	char *what = xstrdup(sp);
	sp[0] = '\0';
	char *who = xstrdup(str_trim(key));
	grow_array((void **)&s->start, &s->start_cap, s->start_count + 1, sizeof *s->start);
	s->start[s->start_count++] = (struct scenario_start_item){line, who, what, xstrdup(value)};
}

/* "2 Knights, 6 Archers" (or "none") into counts of the player's list. */
static bool parse_troops(const struct scenario *s, const struct scenario_start_item *it,
			 const struct player *p, int *counts, struct diag_list *diags)
{
	memset(counts, 0, (p->list.count + 1) * sizeof *counts);
	if (strcasecmp(it->value, "none") == 0 || !*it->value)
		return true;
	char *copy = xstrdup(it->value);
	bool ok = true;
	for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
		str_trim(item);
		char *end;
		errno = 0;
		long n = strtol(item, &end, 10);
		if (end == item || errno || n < 0 || n > 1000 || !isspace((unsigned char)*end)) {
			start_error(diags, s, it->line, "\"%s\": write a number and an army-list line, "
				    "e.g. \"6 Archers\"", item);
			ok = false;
			continue;
		}
		char *label = str_trim(end);
		int t = army_list_find(&p->list, label);
		if (t < 0) {
			start_error(diags, s, it->line, "%s has no army-list line \"%s\"", p->key,
				    label);
			ok = false;
			continue;
		}
		if (counts[t] + n > 1000) {
			start_error(diags, s, it->line, "more than 1000 %s", label);
			ok = false;
			continue;
		}
		counts[t] += (int)n;
	}
	free(copy);
	return ok;
}

static void set_troops(struct troops *t, const int *counts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t->count[i] = counts[i];
}

static int find_player(const struct campaign *c, const char *name)
{
	return campaign_find_player(c, name);
}

/* "france ally = burgundy": a declared alliance (rules_allied); "none"
 * ends the player's alliances. */
static void apply_ally(const struct scenario *s, const struct scenario_start_item *it,
		       struct campaign *c, int pl, struct diag_list *diags)
{
	if (strcasecmp(it->value, "none") == 0) {
		size_t w = 0;
		for (size_t i = 0; i < c->alliance_count; i++)
			if (c->alliances[i].a != pl && c->alliances[i].b != pl)
				c->alliances[w++] = c->alliances[i];
		c->alliance_count = w;
		return;
	}
	int o = find_player(c, it->value);
	if (o < 0) {
		start_error(diags, s, it->line, "unknown player \"%s\"", it->value);
		return;
	}
	if (o == pl) {
		start_error(diags, s, it->line, "%s cannot be its own ally", c->players[pl].key);
		return;
	}
	if (rules_alliance_index(c, pl, o) >= 0)
		return;
	grow_array((void **)&c->alliances, &c->alliance_cap, c->alliance_count + 1,
		   sizeof *c->alliances);
	struct alliance *a = &c->alliances[c->alliance_count++];
	a->a = pl < o ? pl : o;
	a->b = pl < o ? o : pl;
	a->since_year = c->year;
}

/* One item of a player. */
static void apply_player(const struct scenario *s, const struct scenario_start_item *it,
			 struct campaign *c, int pl, struct diag_list *diags)
{
	struct player *p = &c->players[pl];
	if (strcasecmp(it->what, "at") == 0) {
		int pr = campaign_find_province(c, it->value);
		if (pr < 0)
			start_error(diags, s, it->line, "unknown province \"%s\"", it->value);
		else
			p->location = pr;
	} else if (strcasecmp(it->what, "field") == 0 || strcasecmp(it->what, "reserve") == 0) {
		int *counts = xcalloc(p->list.count + 1, sizeof *counts);
		bool field = strcasecmp(it->what, "field") == 0;
		if (parse_troops(s, it, p, counts, diags))
			set_troops(field ? &p->field : &p->reserve, counts, p->list.count);
		free(counts);
	} else if (strcasecmp(it->what, "prestige") == 0) {
		if (!parse_count(it->value, 0, 1000000, &p->battle_prestige))
			start_error(diags, s, it->line, "prestige is a whole number of points");
	} else if (strcasecmp(it->what, "overlord") == 0) {
		int o = strcasecmp(it->value, "none") == 0 ? NO_INDEX : find_player(c, it->value);
		if (o == NO_INDEX && strcasecmp(it->value, "none") != 0)
			start_error(diags, s, it->line, "unknown player \"%s\"", it->value);
		else if (o == pl)
			start_error(diags, s, it->line, "%s cannot be its own overlord", p->key);
		else
			p->overlord = o;
	} else if (strcasecmp(it->what, "ally") == 0) {
		apply_ally(s, it, c, pl, diags);
	} else {
		start_error(diags, s, it->line, "unknown \"%s %s\": a player has at, field, reserve, "
			    "prestige, overlord and ally", it->who, it->what);
	}
}

/* One item of a province. */
static void apply_province(const struct scenario *s, const struct scenario_start_item *it,
			   struct campaign *c, int pr, struct diag_list *diags)
{
	if (strcasecmp(it->what, "owner") == 0) {
		int o = strcasecmp(it->value, "neutral") == 0 ? NO_INDEX : find_player(c, it->value);
		if (o == NO_INDEX && strcasecmp(it->value, "neutral") != 0)
			start_error(diags, s, it->line, "unknown player \"%s\"", it->value);
		else
			c->provinces[pr].owner = o;
		return;
	}
	if (strcasecmp(it->what, "siege") != 0) {
		start_error(diags, s, it->line, "unknown \"%s %s\": a province has owner and siege",
			    it->who, it->what);
		return;
	}
	/* "empire, 2": the besieger and the rounds it has failed so far */
	char *copy = xstrdup(it->value);
	char *comma = strchr(copy, ',');
	int failed = 0;
	if (comma) {
		*comma = '\0';
		if (!parse_count(str_trim(comma + 1), 0, 10, &failed))
			start_error(diags, s, it->line, "write \"%s siege = PLAYER, ROUNDS FAILED\", "
				    "e.g. \"= empire, 2\"", it->who);
	}
	int b = find_player(c, str_trim(copy));
	free(copy);
	if (b < 0) {
		start_error(diags, s, it->line, "unknown player \"%s\"", it->value);
		return;
	}
	grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1, sizeof *c->sieges);
	struct siege *sg = &c->sieges[c->siege_count++];
	memset(sg, 0, sizeof *sg);
	sg->province = pr;
	sg->besieger = b;
	sg->rounds_failed = failed;
	sg->last_round_year = failed ? c->year - 1 : 0;
}

size_t scenario_start_apply(const struct scenario *s, struct campaign *c, struct diag_list *diags)
{
	size_t before = diags->errors;
	if (s->start_year)
		c->year = s->start_year;
	for (size_t i = 0; i < s->start_count; i++) {
		const struct scenario_start_item *it = &s->start[i];
		int pl = find_player(c, it->who);
		int pr = pl < 0 ? campaign_find_province(c, it->who) : NO_INDEX;
		if (pl >= 0)
			apply_player(s, it, c, pl, diags);
		else if (pr >= 0)
			apply_province(s, it, c, pr, diags);
		else
			start_error(diags, s, it->line, "\"%s\" is neither a player nor a province",
				    it->who);
	}
	/* The position must be one play could reach. */
	for (size_t pl = 0; pl < c->player_count; pl++) {
		struct player *p = &c->players[pl];
		int total = player_field_half_ap(p) + player_reserve_half_ap(p);
		char b1[16], b2[16];
		if (total > p->original_half_ap)
			start_error(diags, s, s->start_line, "%s: field and reserve are %s AP, more "
				    "than its army's %s AP (troops never leave the army: losses go to "
				    "the reserve)", p->key, half_ap_format(total, b1),
				    half_ap_format(p->original_half_ap, b2));
		if (troops_generals(&p->list, &p->field) < 1)
			start_error(diags, s, s->start_line, "%s: the field army needs a general",
				    p->key);
		int o = p->overlord;
		for (size_t hops = 0; o >= 0 && hops <= c->player_count; hops++) {
			if (o == (int)pl) {
				start_error(diags, s, s->start_line, "%s: the tributaries make a loop",
					    p->key);
				break;
			}
			o = c->players[o].overlord;
		}
	}
	for (size_t k = 0; k < c->siege_count; k++) {
		const struct siege *sg = &c->sieges[k];
		if (c->players[sg->besieger].location != sg->province)
			start_error(diags, s, s->start_line, "%s besieges %s: its field army must be "
				    "there (\"%s at = %s\")", c->players[sg->besieger].key,
				    c->provinces[sg->province].name, c->players[sg->besieger].key,
				    c->provinces[sg->province].name);
		if (c->provinces[sg->province].owner == sg->besieger)
			start_error(diags, s, s->start_line, "%s cannot besiege its own %s",
				    c->players[sg->besieger].key, c->provinces[sg->province].name);
	}
	return diags->errors - before;
}

void scenario_start_free(struct scenario *s)
{
	for (size_t i = 0; i < s->start_count; i++) {
		free(s->start[i].who);
		free(s->start[i].what);
		free(s->start[i].value);
	}
	free(s->start);
}
