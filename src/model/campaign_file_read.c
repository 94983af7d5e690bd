/* Reading the campaign file line by line: section headers, key = value
 * lines (handed to campaign_file_keys.c), route lines. Names that refer to
 * things defined later are kept for the checks (campaign_file_check.c). */
#include "config.h"

#include "model/campaign_file_p.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const section_names[] = {"campaign", "province", "player", "routes"};
static const enum section_kind section_kinds[] = {SEC_CAMPAIGN, SEC_PROVINCE, SEC_PLAYER,
						  SEC_ROUTES};
#define SECTION_COUNT (sizeof section_names / sizeof *section_names)

/* --------------------------------------------------------- parser storage */

static struct province_info *pinfo_at(struct parser *ps, size_t i)
{
	grow_array((void **)&ps->pinfo, &ps->pinfo_cap, i + 1, sizeof *ps->pinfo);
	return &ps->pinfo[i];
}

static struct player_info *yinfo_at(struct parser *ps, size_t i)
{
	grow_array((void **)&ps->yinfo, &ps->yinfo_cap, i + 1, sizeof *ps->yinfo);
	return &ps->yinfo[i];
}

/* ---------------------------------------------------------------- sections */

static const char *section_title(struct parser *ps, char *buf, size_t n)
{
	switch (ps->sec) {
	case SEC_CAMPAIGN:
		return "[campaign]";
	case SEC_PROVINCE:
		snprintf(buf, n, "[province %s]", ps->c->provinces[ps->sec_index].name);
		return buf;
	case SEC_PLAYER:
		snprintf(buf, n, "[player %s]", ps->c->players[ps->sec_index].key);
		return buf;
	case SEC_ROUTES:
		return "[routes]";
	default:
		return "this section";
	}
}

/* Called when a section ends: complain about required keys it lacked. */
void cf_finish_section(struct parser *ps)
{
	bool *guessed = ps->keys_guessed;
	if (ps->sec == SEC_PROVINCE && ps->pinfo[ps->sec_index].duplicate)
		; /* its own "defined twice" error is enough */
	else if (ps->sec == SEC_PLAYER && ps->yinfo[ps->sec_index].duplicate)
		;
	else if (ps->sec == SEC_PROVINCE) {
		struct province *p = &ps->c->provinces[ps->sec_index];
		struct province_info *pi = &ps->pinfo[ps->sec_index];
		if (!ps->keys_line[PK_TERRAIN] && !guessed[PK_TERRAIN])
			cf_error(ps, ps->sec_line, "province \"%s\" has no terrain (add e.g. "
			         "\"terrain = Wood\": the terrain piece used in its battles)", p->name);
		if (!ps->keys_line[PK_CLIMATE] && !guessed[PK_CLIMATE])
			cf_error(ps, ps->sec_line, "province \"%s\" has no climate (add "
			         "\"climate = Cold\", Warm, Dry or Tropical)", p->name);
		if (!ps->keys_line[PK_POSITION] && !guessed[PK_POSITION])
			cf_error(ps, ps->sec_line, "province \"%s\" has no position on the map (add "
			         "e.g. \"position = 420, 210\")", p->name);
		if (!ps->keys_line[PK_HOME] && !pi->neutral && !pi->inviolate &&
		    !guessed[PK_HOME] && !guessed[PK_NEUTRAL] && !guessed[PK_INVIOLATE])
			cf_error(ps, ps->sec_line, "province \"%s\" is neither a home province nor "
			         "neutral (add \"home = <player>\" or \"neutral = yes\")", p->name);
	} else if (ps->sec == SEC_PLAYER) {
		struct player *y = &ps->c->players[ps->sec_index];
		static const char *const hint[YK_COUNT] = {
			"the nation's display name, e.g. \"nation = Burgundy\"",
			"the player's own name",
			"the address orders come from and reports go to",
			"the home province where the field army starts",
			"the army list, one \"element = ...\" line per kind of element",
		};
		for (int k = 0; k < YK_COUNT; k++)
			if (!ps->keys_line[k] && !guessed[k] && (!ps->lists_only || k == YK_ELEMENT) &&
			    !(k == YK_START && !ps->yinfo[ps->sec_index].any_field))
				/* neither start nor field army: the player sets up by mail */
				cf_error(ps, ps->sec_line, "player \"%s\" has no %s (%s)", y->key,
				         k == YK_ELEMENT ? "army list" : cf_player_keys[k], hint[k]);
	}
	ps->sec = SEC_NONE;
}

static bool valid_player_key(const char *key)
{
	for (const unsigned char *s = (const unsigned char *)key; *s; s++)
		if (isspace(*s) || strchr("[]|=#~,\"<>@", *s))
			return false;
	return *key != '\0';
}

/* A province name that route lines can still split. */
static const char *province_name_problem(const char *name)
{
	if (!*name)
		return "is empty";
	if (strchr(name, '~'))
		return "contains '~', which separates provinces in sea routes";
	if (strchr(name, '|') || strchr(name, '[') || strchr(name, ']') || strchr(name, '='))
		return "contains one of | [ ] =";
	for (const char *s = name; *s; s++)
		if (*s == '-' && s > name && isspace((unsigned char)s[-1]) &&
		    isspace((unsigned char)s[1]))
			return "contains \" - \", which separates provinces in routes";
	return NULL;
}

static void start_section(struct parser *ps, char *text, int line)
{
	cf_finish_section(ps);
	memset(ps->keys_line, 0, sizeof ps->keys_line);
	memset(ps->keys_guessed, 0, sizeof ps->keys_guessed);
	ps->sec_line = line;
	ps->sec = SEC_SKIP;

	size_t n = strlen(text);
	if (text[n - 1] != ']') {
		cf_error(ps, line, "section header has no closing ']' (write e.g. "
		         "\"[province Flanders]\")");
		return;
	}
	text[n - 1] = '\0';
	char *inner = str_trim(text + 1);
	char *name = inner;
	while (*name && !isspace((unsigned char)*name))
		name++;
	if (*name)
		*name++ = '\0';
	name = cf_unquote(str_trim(name));

	int sugg;
	int k = cf_lookup_exact(inner, section_names, SECTION_COUNT, &sugg);
	if (k < 0) {
		cf_error(ps, line, "unknown section \"[%s]\"%s; sections are [campaign], "
		         "[province NAME], [player KEY] and [routes]", inner,
		         cf_did_you_mean(section_names, sugg));
		return;
	}
	enum section_kind kind = section_kinds[k];
	struct campaign *c = ps->c;
	if (ps->lists_only && kind != SEC_PLAYER)
		return; /* a whole campaign file: its army lists are read, the rest skipped */

	if (kind == SEC_CAMPAIGN || kind == SEC_ROUTES) {
		if (*name) {
			cf_error(ps, line, "[%s] takes no name (found \"%s\")", section_names[k], name);
			return;
		}
		if (kind == SEC_CAMPAIGN) {
			if (ps->campaign_line)
				cf_error(ps, line, "second [campaign] section (the first is on line "
				         "%d); its keys are read as part of the first", ps->campaign_line);
			else
				ps->campaign_line = line;
		}
		ps->sec = kind;
		return;
	}

	if (!*name) {
		cf_error(ps, line, "[%s] needs a name, e.g. \"%s\"", section_names[k],
		         kind == SEC_PROVINCE ? "[province Flanders]" : "[player burgundy]");
		return;
	}
	if (kind == SEC_PROVINCE) {
		const char *problem = province_name_problem(name);
		if (problem) {
			cf_error(ps, line, "province name \"%s\" %s", name, problem);
			return;
		}
		int first = campaign_find_province(c, name);
		struct province *p = campaign_add_province(c);
		p->name = xstrdup(name);
		p->line = line;
		ps->sec_index = (int)(c->province_count - 1);
		struct province_info *pi = pinfo_at(ps, (size_t)ps->sec_index);
		if (first >= 0) {
			cf_error(ps, line, "province \"%s\" is defined twice (first on line %d)", name,
			         c->provinces[first].line);
			pi->duplicate = true;
		}
	} else {
		if (!valid_player_key(name)) {
			cf_error(ps, line, "player key \"%s\" must be one word without spaces or "
			         "punctuation: players type it in their orders (e.g. \"[player "
			         "burgundy]\")", name);
			return;
		}
		int first = -1;
		for (size_t i = 0; i < c->player_count; i++)
			if (name_equal(c->players[i].key, name)) {
				first = (int)i;
				break;
			}
		struct player *y = campaign_add_player(c);
		y->key = xstrdup(name);
		y->line = line;
		ps->sec_index = (int)(c->player_count - 1);
		struct player_info *yi = yinfo_at(ps, (size_t)ps->sec_index);
		if (first >= 0) {
			cf_error(ps, line, "player \"%s\" is defined twice (first on line %d)", name,
			         c->players[first].line);
			yi->duplicate = true;
		}
	}
	ps->sec = kind;
}

/* ------------------------------------------------------------ route lines */

static void add_pending_route(struct parser *ps, const char *a, const char *b, bool sea, int line)
{
	grow_array((void **)&ps->routes, &ps->route_cap, ps->route_count + 1, sizeof *ps->routes);
	struct pending_route *r = &ps->routes[ps->route_count++];
	r->a = xstrdup(a);
	r->b = b ? xstrdup(b) : NULL;
	r->sea = sea;
	r->line = line;
}

/* "A - B" (land), "A ~ B" (sea), or a chain "A - B ~ C". A '-' separates
 * only with space on both sides, since names such as Franche-Comté have
 * hyphens of their own. */
static void route_line(struct parser *ps, char *text, int line)
{
	if (strchr(text, '=')) {
		cf_error(ps, line, "[routes] holds one route a line, \"Flanders - Brabant\" (land) "
		         "or \"Flanders ~ Kent\" (sea), not \"key = value\"");
		return;
	}
	char *names[64];
	bool sea[64];
	size_t n = 0;
	char *start = text;
	for (char *s = text;; s++) {
		bool is_sep = *s == '~' ||
			      (*s == '-' && (s == text || isspace((unsigned char)s[-1])) &&
			       (s[1] == '\0' || isspace((unsigned char)s[1])));
		if (!is_sep && *s)
			continue;
		if (n == sizeof names / sizeof *names) {
			cf_error(ps, line, "route chain too long: split it over several lines");
			return;
		}
		bool end = *s == '\0';
		if (!end)
			sea[n] = *s == '~';
		*s = '\0';
		names[n++] = str_trim(start);
		if (end)
			break;
		start = s + 1;
	}
	if (n == 1) {
		/* Resolved later, when all provinces are known, to say more. */
		add_pending_route(ps, names[0], NULL, false, line);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!names[i][0]) {
			cf_error(ps, line, "route has an empty province name (write \"Flanders - "
			         "Brabant\")");
			return;
		}
	for (size_t i = 0; i + 1 < n; i++)
		add_pending_route(ps, names[i], names[i + 1], sea[i], line);
}

/* ------------------------------------------------------------ key = value */

static const char *const *section_key_table(enum section_kind sec, size_t *n)
{
	switch (sec) {
	case SEC_CAMPAIGN:
		*n = CK_COUNT;
		return cf_campaign_keys;
	case SEC_PROVINCE:
		*n = PK_COUNT;
		return cf_province_keys;
	case SEC_PLAYER:
		*n = YK_COUNT;
		return cf_player_keys;
	default:
		*n = 0;
		return NULL;
	}
}

/* Which section a key belongs to, for "belongs in [province]" hints. */
static const char *home_section_of(const char *key, enum section_kind except)
{
	static const enum section_kind kinds[] = {SEC_CAMPAIGN, SEC_PROVINCE, SEC_PLAYER};
	static const char *const titles[] = {"[campaign]", "[province NAME]", "[player KEY]"};
	for (size_t i = 0; i < 3; i++) {
		if (kinds[i] == except)
			continue;
		size_t n;
		const char *const *keys = section_key_table(kinds[i], &n);
		for (size_t k = 0; k < n; k++)
			if (name_equal(keys[k], key))
				return titles[i];
	}
	return NULL;
}

static void key_value_line(struct parser *ps, char *text, int line)
{
	char title[300];
	char *eq = strchr(text, '=');
	if (!eq) {
		if (ps->sec == SEC_PROVINCE &&
		    (!strcasecmp(text, "neutral") || !strcasecmp(text, "inviolate")))
			cf_error(ps, line, "expected \"key = value\" (did you mean \"%s = yes\"?)", text);
		else
			cf_error(ps, line, "expected \"key = value\" in %s, found \"%s\"",
			         section_title(ps, title, sizeof title), text);
		return;
	}
	*eq = '\0';
	char *key = str_trim(text);
	char *value = cf_unquote(str_trim(eq + 1));
	if (!*key) {
		cf_error(ps, line, "line starts with '=': the key is missing");
		return;
	}
	size_t nkeys;
	const char *const *keys = section_key_table(ps->sec, &nkeys);
	int sugg;
	int k = cf_lookup_exact(key, keys, nkeys, &sugg);
	/* British spelling in the file, American accepted. */
	if (k < 0 && ps->sec == SEC_CAMPAIGN && name_equal(key, "organizer"))
		k = CK_ORGANISER;
	else if (k < 0 && ps->sec == SEC_CAMPAIGN && name_equal(key, "organizer-plays"))
		k = CK_ORGANISER_PLAYS;
	if (k < 0) {
		bool *guessed = ps->sec == SEC_CAMPAIGN ? ps->campaign_keys_guessed
							: ps->keys_guessed;
		if (sugg >= 0)
			guessed[sugg] = true;
		const char *elsewhere = home_section_of(key, ps->sec);
		if (elsewhere)
			cf_error(ps, line, "key \"%s\" belongs in a %s section, not in %s", key,
			         elsewhere, section_title(ps, title, sizeof title));
		else
			cf_error(ps, line, "unknown key \"%s\" in %s%s", key,
			         section_title(ps, title, sizeof title), cf_did_you_mean(keys, sugg));
		return;
	}
	int *seen = ps->sec == SEC_CAMPAIGN ? ps->campaign_keys_line : ps->keys_line;
	bool repeatable = ps->sec == SEC_PLAYER && k == YK_ELEMENT;
	if (seen[k] && !repeatable) {
		cf_error(ps, line, "\"%s\" is given twice in %s (first on line %d)", keys[k],
		         section_title(ps, title, sizeof title), seen[k]);
		return;
	}
	seen[k] = line;
	if (!*value) {
		cf_error(ps, line, "\"%s\" has no value", keys[k]);
		return;
	}
	if (ps->sec == SEC_CAMPAIGN)
		cf_campaign_key(ps, k, value, line);
	else if (ps->sec == SEC_PROVINCE)
		cf_province_key(ps, k, value, line);
	else
		cf_player_key(ps, k, value, line);
}

/* A '#' at the start of a line or after a space starts a comment. */
static void strip_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '#' && (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
}

void cf_parse_line(struct parser *ps, char *text, int line)
{
	strip_comment(text);
	str_trim(text);
	if (!*text)
		return;
	if (text[0] == '[') {
		start_section(ps, text, line);
		return;
	}
	switch (ps->sec) {
	case SEC_NONE:
		if (!ps->outside_reported)
			cf_error(ps, line, "text before the first section: start the file with "
			         "%s", ps->lists_only ? "[player KEY]" : "[campaign]");
		ps->outside_reported = true;
		break;
	case SEC_SKIP:
		break;
	case SEC_ROUTES:
		route_line(ps, text, line);
		break;
	default:
		key_value_line(ps, text, line);
		break;
	}
}
