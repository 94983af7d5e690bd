/* The campaign file parser and its checks (syntax: doc/campaign.5).
 *
 * One pass reads the lines into the model, remembering the names that refer
 * to things defined elsewhere in the file (a province's home player, a
 * player's start province, the routes, organiser-plays); a second pass
 * resolves those names and checks the campaign as a whole. Parsing never
 * stops at an error: the organiser sees every problem in one run, sorted by
 * line. Where one error would only cause others (an element line that could
 * not be read makes the army total meaningless), the follow-on checks are
 * skipped rather than reported twice. */
#include "config.h"

#include "model/campaign_file.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOME_PROVINCES 4 /* rules 1.2: four home provinces each */
#define MIN_PLAYERS 3    /* the rules are "for 3 or more players" */
#define COMFORTABLE_PLAYERS 8
#define MAX_REMINDERS 3  /* settings.reminder_hours holds 3 and a 0 */
#define MAX_DURATION_HOURS (366 * 24)

enum section_kind { SEC_NONE, SEC_CAMPAIGN, SEC_PROVINCE, SEC_PLAYER, SEC_ROUTES, SEC_SKIP };

static const char *const section_names[] = {"campaign", "province", "player", "routes"};
static const enum section_kind section_kinds[] = {SEC_CAMPAIGN, SEC_PROVINCE, SEC_PLAYER,
						  SEC_ROUTES};
#define SECTION_COUNT (sizeof section_names / sizeof *section_names)

enum campaign_key {
	CK_NAME, CK_START_YEAR, CK_TIMEZONE, CK_ORGANISER, CK_ORGANISER_PLAYS, CK_BACKGROUND,
	CK_SIEGE_FLOOR, CK_SUPPLY_ACROSS_SEA, CK_TURN_DEADLINE, CK_DECISION_DEADLINE,
	CK_BATTLE_DEADLINE, CK_RECRUITMENT_DEADLINE, CK_REMINDERS, CK_GRACE, CK_COUNT
};
static const char *const campaign_keys[CK_COUNT] = {
	"name", "start-year", "timezone", "organiser", "organiser-plays", "background",
	"siege-floor", "supply-across-sea", "turn-deadline", "decision-deadline",
	"battle-deadline", "recruitment-deadline", "reminders", "grace",
};

enum province_key { PK_TERRAIN, PK_CLIMATE, PK_POSITION, PK_HOME, PK_NEUTRAL, PK_INVIOLATE,
		    PK_COUNT };
static const char *const province_keys[PK_COUNT] = {
	"terrain", "climate", "position", "home", "neutral", "inviolate",
};

enum player_key { YK_NATION, YK_NAME, YK_EMAIL, YK_START, YK_ELEMENT, YK_COUNT };
static const char *const player_keys[YK_COUNT] = {
	"nation", "name", "email", "start", "element",
};

#define MAX_KEYS CK_COUNT

/* DBM's climates (rules 1.2: "DBM gives the climate for each province"). */
static const char *const climates[] = {"Cold", "Warm", "Dry", "Tropical"};

/* What a province section said about who holds it, kept until every
 * player is known. Parallel to campaign.provinces. */
struct province_info {
	char *home; /* the player named by "home", or NULL */
	int home_line;
	bool neutral;
	bool inviolate;
	int inviolate_line;
	bool has_position;
	bool duplicate; /* a second section for a name already defined */
};

/* Parallel to campaign.players. */
struct player_info {
	char *start;
	int start_line;
	int email_line;
	int nation_line;
	int *field; /* starting field army, parallel to the army list */
	size_t field_cap;
	bool army_unreadable; /* an element line had errors: skip the totals */
	bool homes_uncertain; /* a misspelt "home" probably meant this player */
	bool duplicate;
};

struct pending_route {
	char *a, *b; /* b is NULL when the line could not be split */
	bool sea;
	int line;
};

struct parser {
	const char *file;
	struct diag_list diags; /* sorted by line before handing over */
	struct campaign *c;

	struct province_info *pinfo;
	size_t pinfo_cap;
	struct player_info *yinfo;
	size_t yinfo_cap;
	struct pending_route *routes;
	size_t route_count, route_cap;
	char *organiser_plays;
	int organiser_plays_line;

	int campaign_line;        /* first [campaign] header, 0 if none */
	int campaign_keys_line[MAX_KEYS];
	bool campaign_keys_guessed[MAX_KEYS];
	bool outside_reported;    /* text before the first section: said once */

	enum section_kind sec;
	int sec_line;
	int sec_index;            /* current province or player */
	int keys_line[MAX_KEYS];  /* current province/player section */
	/* A misspelt key already reported with "did you mean" for this key:
	 * do not also report the key as missing. */
	bool keys_guessed[MAX_KEYS];
};

/* ---------------------------------------------------------------- messages */

static void report(struct parser *ps, enum diag_level level, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void report(struct parser *ps, enum diag_level level, int line, const char *fmt, va_list ap)
{
	struct strbuf sb = {0};
	strbuf_vprintf(&sb, fmt, ap);
	char *msg = strbuf_take(&sb);
	diag_add(&ps->diags, level, ps->file, line, "%s", msg);
	free(msg);
}

static void error(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(ps, DIAG_ERROR, line, fmt, ap);
	va_end(ap);
}

static void warning(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warning(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(ps, DIAG_WARNING, line, fmt, ap);
	va_end(ap);
}

/* " (did you mean "X"?)" or "" — valid until the next call. */
static const char *did_you_mean(const char *const *names, int suggestion)
{
	static _Thread_local char buf[256];
	if (suggestion < 0 || !names[suggestion])
		return "";
	snprintf(buf, sizeof buf, " (did you mean \"%s\"?)", names[suggestion]);
	return buf;
}

/* Exact (case- and accent-folded) lookup. On a miss, *suggestion is the
 * candidate worth offering (a unique prefix or a close spelling) or -1: a
 * campaign file is written once and read for months, so abbreviations that
 * orders accept are not accepted silently here. */
static int lookup_exact(const char *query, const char *const *names, size_t n, int *suggestion)
{
	int sugg = -1;
	int i = name_lookup(query, names, n, &sugg);
	if (i >= 0 && name_equal(names[i], query)) {
		*suggestion = -1;
		return i;
	}
	*suggestion = i >= 0 ? i : sugg;
	return -1;
}

/* ------------------------------------------------------------ value parsers */

/* Drops one pair of surrounding double quotes. */
static char *unquote(char *s)
{
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		memmove(s, s + 1, n - 2);
		s[n - 2] = '\0';
		str_trim(s);
	}
	return s;
}

/* A whole non-negative or negative decimal integer within [min, max]. */
static bool parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool is_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* "72h", "3d", "1d 12h", "2 days". Writes the hours, or an explanation of
 * what is wrong into why (a static string) and returns false. */
static bool parse_duration(const char *s, int *hours, const char **why)
{
	long total = 0;
	int parts = 0;
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (*s == '-') {
			*why = "a duration cannot be negative";
			return false;
		}
		if (!isdigit((unsigned char)*s)) {
			*why = "expected a number of hours or days, e.g. \"72h\" or \"3d\"";
			return false;
		}
		long n = 0;
		while (isdigit((unsigned char)*s)) {
			n = n * 10 + (*s - '0');
			if (n > MAX_DURATION_HOURS) {
				*why = "is longer than a year";
				return false;
			}
			s++;
		}
		while (isspace((unsigned char)*s))
			s++;
		char unit[16];
		size_t u = 0;
		while (isalpha((unsigned char)*s) && u < sizeof unit - 1)
			unit[u++] = (char)tolower((unsigned char)*s++);
		unit[u] = '\0';
		if (u == 0) {
			*why = "needs a unit: \"h\" for hours or \"d\" for days, e.g. \"72h\"";
			return false;
		}
		if (!strcmp(unit, "h") || !strcmp(unit, "hour") || !strcmp(unit, "hours"))
			total += n;
		else if (!strcmp(unit, "d") || !strcmp(unit, "day") || !strcmp(unit, "days"))
			total += n * 24;
		else {
			*why = "has an unknown unit: use \"h\" for hours or \"d\" for days";
			return false;
		}
		if (total > MAX_DURATION_HOURS) {
			*why = "is longer than a year";
			return false;
		}
		parts++;
	}
	if (!parts) {
		*why = "is empty";
		return false;
	}
	*hours = (int)total;
	return true;
}

/* A plain finite number (map coordinates). */
static bool parse_coordinate(const char *s, double *out)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || fabs(v) > 1e6)
		return false;
	*out = v;
	return true;
}

/* Why `s` is not an address we can mail, or NULL if it is one. Deliberately
 * plain (name@domain.tld): what organisers type, not all of RFC 5322. */
static const char *email_problem(const char *s)
{
	const char *at = strchr(s, '@');
	if (!*s)
		return "is empty";
	if (strlen(s) > 254)
		return "is too long";
	if (!at)
		return "has no '@'";
	if (strchr(at + 1, '@'))
		return "has more than one '@'";
	if (at == s)
		return "has nothing before the '@'";
	for (const char *p = s; p < at; p++) {
		unsigned char ch = (unsigned char)*p;
		if (ch <= ' ' || ch >= 0x7f || strchr("<>()[]\\,;:\"", ch))
			return "has a character that cannot appear in an address";
	}
	const char *dom = at + 1;
	if (!*dom)
		return "has nothing after the '@'";
	if (!strchr(dom, '.'))
		return "has a domain without a dot";
	size_t label = 0;
	for (const char *p = dom;; p++) {
		if (*p == '.' || *p == '\0') {
			if (label == 0 || p[-1] == '-')
				return "has a malformed domain";
			if (*p == '\0')
				break;
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-')
			return "has a character that cannot appear in a domain";
		if (label == 0 && *p == '-')
			return "has a malformed domain";
		label++;
	}
	return NULL;
}

static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char b = s[i];
		size_t len;
		unsigned cp;
		if (b < 0x80) {
			i++;
			continue;
		} else if (b >= 0xC2 && b <= 0xDF) {
			len = 2;
			cp = b & 0x1F;
		} else if (b >= 0xE0 && b <= 0xEF) {
			len = 3;
			cp = b & 0x0F;
		} else if (b >= 0xF0 && b <= 0xF4) {
			len = 4;
			cp = b & 0x07;
		} else {
			return false;
		}
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

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

static void parser_free(struct parser *ps)
{
	for (size_t i = 0; i < ps->c->province_count; i++)
		free(ps->pinfo[i].home);
	for (size_t i = 0; i < ps->c->player_count; i++) {
		free(ps->yinfo[i].start);
		free(ps->yinfo[i].field);
	}
	free(ps->pinfo);
	free(ps->yinfo);
	for (size_t i = 0; i < ps->route_count; i++) {
		free(ps->routes[i].a);
		free(ps->routes[i].b);
	}
	free(ps->routes);
	free(ps->organiser_plays);
}

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
static void finish_section(struct parser *ps)
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
			error(ps, ps->sec_line, "province \"%s\" has no terrain (add e.g. "
			      "\"terrain = Wood\": the terrain piece used in its battles)", p->name);
		if (!ps->keys_line[PK_CLIMATE] && !guessed[PK_CLIMATE])
			error(ps, ps->sec_line, "province \"%s\" has no climate (add "
			      "\"climate = Cold\", Warm, Dry or Tropical)", p->name);
		if (!ps->keys_line[PK_POSITION] && !guessed[PK_POSITION])
			error(ps, ps->sec_line, "province \"%s\" has no position on the map (add "
			      "e.g. \"position = 420, 210\")", p->name);
		if (!ps->keys_line[PK_HOME] && !pi->neutral && !pi->inviolate &&
		    !guessed[PK_HOME] && !guessed[PK_NEUTRAL] && !guessed[PK_INVIOLATE])
			error(ps, ps->sec_line, "province \"%s\" is neither a home province nor "
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
			if (!ps->keys_line[k] && !guessed[k])
				error(ps, ps->sec_line, "player \"%s\" has no %s (%s)", y->key,
				      k == YK_ELEMENT ? "army list" : player_keys[k], hint[k]);
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
	finish_section(ps);
	memset(ps->keys_line, 0, sizeof ps->keys_line);
	memset(ps->keys_guessed, 0, sizeof ps->keys_guessed);
	ps->sec_line = line;
	ps->sec = SEC_SKIP;

	size_t n = strlen(text);
	if (text[n - 1] != ']') {
		error(ps, line, "section header has no closing ']' (write e.g. "
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
	name = unquote(str_trim(name));

	int sugg;
	int k = lookup_exact(inner, section_names, SECTION_COUNT, &sugg);
	if (k < 0) {
		error(ps, line, "unknown section \"[%s]\"%s; sections are [campaign], "
		      "[province NAME], [player KEY] and [routes]", inner,
		      did_you_mean(section_names, sugg));
		return;
	}
	enum section_kind kind = section_kinds[k];
	struct campaign *c = ps->c;

	if (kind == SEC_CAMPAIGN || kind == SEC_ROUTES) {
		if (*name) {
			error(ps, line, "[%s] takes no name (found \"%s\")", section_names[k], name);
			return;
		}
		if (kind == SEC_CAMPAIGN) {
			if (ps->campaign_line)
				error(ps, line, "second [campaign] section (the first is on line "
				      "%d); its keys are read as part of the first", ps->campaign_line);
			else
				ps->campaign_line = line;
		}
		ps->sec = kind;
		return;
	}

	if (!*name) {
		error(ps, line, "[%s] needs a name, e.g. \"%s\"", section_names[k],
		      kind == SEC_PROVINCE ? "[province Flanders]" : "[player burgundy]");
		return;
	}
	if (kind == SEC_PROVINCE) {
		const char *problem = province_name_problem(name);
		if (problem) {
			error(ps, line, "province name \"%s\" %s", name, problem);
			return;
		}
		int first = campaign_find_province(c, name);
		struct province *p = campaign_add_province(c);
		p->name = xstrdup(name);
		p->line = line;
		ps->sec_index = (int)(c->province_count - 1);
		struct province_info *pi = pinfo_at(ps, (size_t)ps->sec_index);
		if (first >= 0) {
			error(ps, line, "province \"%s\" is defined twice (first on line %d)", name,
			      c->provinces[first].line);
			pi->duplicate = true;
		}
	} else {
		if (!valid_player_key(name)) {
			error(ps, line, "player key \"%s\" must be one word without spaces or "
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
			error(ps, line, "player \"%s\" is defined twice (first on line %d)", name,
			      c->players[first].line);
			yi->duplicate = true;
		}
	}
	ps->sec = kind;
}

/* -------------------------------------------------------- [campaign] keys */

static void set_duration(struct parser *ps, int line, const char *key, const char *value,
			 int *out, bool zero_ok)
{
	int hours;
	const char *why = NULL;
	if (!parse_duration(value, &hours, &why)) {
		error(ps, line, "%s \"%s\" %s", key, value, why);
		return;
	}
	if (hours == 0 && !zero_ok) {
		error(ps, line, "%s must be longer than 0h", key);
		return;
	}
	*out = hours;
}

static int compare_hours_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x < y) - (x > y);
}

static void campaign_key(struct parser *ps, int key, char *value, int line)
{
	struct campaign *c = ps->c;
	struct campaign_settings *s = &c->settings;
	long n;
	switch (key) {
	case CK_NAME:
		free(c->name);
		c->name = xstrdup(value);
		break;
	case CK_START_YEAR: {
		/* "1450", "1450 AD", "216 BC": BC years are stored as negative. */
		char *unit = value;
		while (*unit && !isspace((unsigned char)*unit))
			unit++;
		bool bc = false;
		if (*unit) {
			*unit++ = '\0';
			str_trim(unit);
			if (!strcasecmp(unit, "BC") || !strcasecmp(unit, "BCE"))
				bc = true;
			else if (strcasecmp(unit, "AD") && strcasecmp(unit, "CE")) {
				error(ps, line, "start-year \"%s %s\": write the year as a number, "
				      "optionally followed by AD or BC (e.g. 1450 or 216 BC)", value,
				      unit);
				break;
			}
		}
		if (!is_all_digits(value) || !parse_int(value, 1, 9999, &n)) {
			error(ps, line, "start-year \"%s\" is not a year (write e.g. 1450, or 216 BC)",
			      value);
			break;
		}
		c->start_year = bc ? -(int)n : (int)n;
		break;
	}
	case CK_TIMEZONE:
		for (const char *p = value; *p; p++)
			if (isspace((unsigned char)*p)) {
				error(ps, line, "timezone \"%s\" has a space; use a name from the "
				      "time zone database, e.g. Europe/Paris", value);
				return;
			}
		free(c->timezone);
		c->timezone = xstrdup(value);
		break;
	case CK_ORGANISER: {
		/* "Name <address>" */
		char *lt = strchr(value, '<');
		char *gt = lt ? strchr(lt, '>') : NULL;
		if (!lt) {
			if (strchr(value, '@'))
				error(ps, line, "organiser needs a name as well as an address: write "
				      "\"organiser = Your Name <%s>\"", value);
			else
				error(ps, line, "organiser needs a name and an address: write "
				      "\"organiser = Your Name <you@example.org>\"");
			break;
		}
		if (!gt || str_trim(gt + 1)[0]) {
			error(ps, line, "organiser: write the address in angle brackets after "
			      "the name, e.g. \"Your Name <you@example.org>\"");
			break;
		}
		*lt = '\0';
		*gt = '\0';
		char *who = unquote(str_trim(value));
		char *addr = str_trim(lt + 1);
		const char *problem = email_problem(addr);
		if (!*who) {
			error(ps, line, "organiser needs a name before <%s>", addr);
			break;
		}
		if (problem) {
			error(ps, line, "organiser's address \"%s\" %s (expected name@domain, "
			      "e.g. you@example.org)", addr, problem);
			break;
		}
		free(c->organiser_name);
		free(c->organiser_email);
		c->organiser_name = xstrdup(who);
		c->organiser_email = xstrdup(addr);
		break;
	}
	case CK_ORGANISER_PLAYS:
		free(ps->organiser_plays);
		ps->organiser_plays = xstrdup(value);
		ps->organiser_plays_line = line;
		break;
	case CK_BACKGROUND:
		free(c->background);
		c->background = xstrdup(value);
		break;
	case CK_SIEGE_FLOOR:
		if (!parse_int(value, LONG_MIN, LONG_MAX, &n) || n < 1 || n > 6)
			error(ps, line, "siege-floor \"%s\" must be a whole number from 1 to 6 "
			      "(the lowest score a siege can need)", value);
		else
			s->siege_floor = (int)n;
		break;
	case CK_SUPPLY_ACROSS_SEA:
		if (!parse_bool(value, &s->supply_across_sea))
			error(ps, line, "supply-across-sea \"%s\" must be yes or no", value);
		break;
	case CK_TURN_DEADLINE:
		set_duration(ps, line, "turn-deadline", value, &s->turn_deadline_hours, false);
		break;
	case CK_DECISION_DEADLINE:
		set_duration(ps, line, "decision-deadline", value, &s->decision_deadline_hours,
			     false);
		break;
	case CK_BATTLE_DEADLINE:
		set_duration(ps, line, "battle-deadline", value, &s->battle_deadline_hours, false);
		break;
	case CK_RECRUITMENT_DEADLINE:
		set_duration(ps, line, "recruitment-deadline", value,
			     &s->recruitment_deadline_hours, false);
		break;
	case CK_REMINDERS: {
		int hours[MAX_REMINDERS] = {0};
		int count = 0;
		bool ok = true;
		if (strcasecmp(value, "none") != 0) {
			char *save = NULL;
			for (char *tok = strtok_r(value, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				tok = str_trim(tok);
				if (count == MAX_REMINDERS) {
					error(ps, line, "reminders: at most %d reminders before a "
					      "deadline", MAX_REMINDERS);
					ok = false;
					break;
				}
				const char *why = NULL;
				if (!parse_duration(tok, &hours[count], &why)) {
					error(ps, line, "reminders: \"%s\" %s", tok, why);
					ok = false;
				} else if (hours[count] == 0) {
					error(ps, line, "reminders: a reminder 0h before the deadline "
					      "comes too late to help");
					ok = false;
				}
				count++;
			}
		}
		if (!ok)
			break;
		qsort(hours, (size_t)count, sizeof *hours, compare_hours_desc);
		memset(s->reminder_hours, 0, sizeof s->reminder_hours);
		memcpy(s->reminder_hours, hours, (size_t)count * sizeof *hours);
		break;
	}
	case CK_GRACE:
		set_duration(ps, line, "grace", value, &s->grace_hours, true);
		break;
	}
}

/* ------------------------------------------------------- [province] keys */

static void province_key(struct parser *ps, int key, char *value, int line)
{
	struct province *p = &ps->c->provinces[ps->sec_index];
	struct province_info *pi = &ps->pinfo[ps->sec_index];
	int sugg;
	bool flag;
	switch (key) {
	case PK_TERRAIN:
		free(p->terrain);
		p->terrain = xstrdup(value);
		break;
	case PK_CLIMATE: {
		int k = lookup_exact(value, climates, 4, &sugg);
		if (k < 0) {
			error(ps, line, "unknown climate \"%s\"%s; DBM's climates are Cold, Warm, "
			      "Dry and Tropical", value, did_you_mean(climates, sugg));
			break;
		}
		free(p->climate);
		p->climate = xstrdup(climates[k]);
		break;
	}
	case PK_POSITION: {
		char *sep = strchr(value, ',');
		char *xs = value, *ys = NULL;
		if (sep) {
			*sep = '\0';
			ys = sep + 1;
		} else {
			ys = value;
			while (*ys && !isspace((unsigned char)*ys))
				ys++;
			if (*ys)
				*ys++ = '\0';
		}
		xs = str_trim(xs);
		ys = str_trim(ys);
		if (!*ys) {
			error(ps, line, "position needs two numbers, x and y, e.g. "
			      "\"position = 420, 210\"");
			break;
		}
		if (!parse_coordinate(xs, &p->x) || !parse_coordinate(ys, &p->y))
			error(ps, line, "position \"%s, %s\" is not two numbers (write e.g. "
			      "\"position = 420, 210\")", xs, ys);
		else
			pi->has_position = true;
		break;
	}
	case PK_HOME:
		if (!strcasecmp(value, "neutral") || !strcasecmp(value, "none")) {
			error(ps, line, "write \"neutral = yes\" for a neutral province, not "
			      "\"home = %s\"", value);
			break;
		}
		free(pi->home);
		pi->home = xstrdup(value);
		pi->home_line = line;
		break;
	case PK_NEUTRAL:
	case PK_INVIOLATE:
		if (!parse_bool(value, &flag)) {
			error(ps, line, "%s \"%s\" must be yes or no", province_keys[key], value);
			break;
		}
		if (key == PK_NEUTRAL) {
			pi->neutral = flag;
		} else {
			pi->inviolate = flag;
			pi->inviolate_line = line;
		}
		break;
	}
}

/* ---------------------------------------------------------- element lines */

/* DBM troop names organisers may write instead of the code. */
static const struct {
	const char *word;
	const char *code;
} troop_words[] = {
	{"knights", "Kn"}, {"knight", "Kn"}, {"cavalry", "Cv"}, {"cav", "Cv"},
	{"light horse", "LH"}, {"elephants", "El"}, {"elephant", "El"}, {"camels", "Cm"},
	{"pikes", "Pk"}, {"pike", "Pk"}, {"spears", "Sp"}, {"spear", "Sp"}, {"blades", "Bd"},
	{"blade", "Bd"}, {"warband", "Wb"}, {"auxilia", "Ax"}, {"aux", "Ax"}, {"bows", "Bw"},
	{"bow", "Bw"}, {"psiloi", "Ps"}, {"horde", "Hd"}, {"artillery", "Art"},
	{"war wagons", "WWg"}, {"wagons", "WWg"}, {"baggage", "Bge"}, {"galleys", "Gal"},
	{"ships", "Shp"}, {"boats", "Bts"}, {"expendables", "Exp"},
};

static void explain_troop_type(struct parser *ps, int line, const char *label, const char *code)
{
	static const char *const dba_chariots[] = {"HCh", "LCh", "SCh"};
	for (size_t i = 0; i < 3; i++)
		if (!strcasecmp(code, dba_chariots[i])) {
			error(ps, line, "element \"%s\": %s is a DBA troop type; in DBM chariots are "
			      "Kn, Cv or LH", label, code);
			return;
		}
	for (size_t i = 0; i < sizeof troop_words / sizeof *troop_words; i++)
		if (name_equal(code, troop_words[i].word)) {
			error(ps, line, "element \"%s\": unknown DBM troop type \"%s\" (did you mean "
			      "\"%s\"?)", label, code, troop_words[i].code);
			return;
		}
	size_t ntypes = 0;
	while (dbm_type_codes[ntypes])
		ntypes++;
	int sugg = -1;
	lookup_exact(code, (const char *const *)dbm_type_codes, ntypes, &sugg);
	error(ps, line, "element \"%s\": unknown DBM troop type \"%s\"%s", label, code,
	      did_you_mean(dbm_type_codes, sugg));
}

/* "Kn(S) Reg", "Reg Kn(S)", "Irr Bd (O)". Fills t; false after reporting. */
static bool parse_troop_type(struct parser *ps, int line, const char *label, char *text,
			     struct element_type *t)
{
	char *open = strchr(text, '(');
	char *close = open ? strchr(open, ')') : NULL;
	if (!open || !close) {
		error(ps, line, "element \"%s\": type \"%s\" needs the grade in brackets and the "
		      "drill, e.g. \"Kn(S) Reg\" or \"Bw(O) Irr\"", label, text);
		return false;
	}
	*open = '\0';
	*close = '\0';
	char *grade = str_trim(open + 1);
	/* The words outside the brackets: the type code and Reg or Irr. */
	char *words[3] = {NULL, NULL, NULL};
	size_t nwords = 0;
	char *parts[2] = {text, close + 1};
	for (size_t i = 0; i < 2; i++) {
		char *save = NULL;
		for (char *w = strtok_r(parts[i], " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			if (nwords < 3)
				words[nwords++] = w;
			else
				nwords++;
	}
	char *code = NULL, *drill = NULL;
	for (size_t i = 0; i < nwords && i < 3; i++) {
		if (!strcasecmp(words[i], "Reg") || !strcasecmp(words[i], "Irr") ||
		    !strcasecmp(words[i], "Regular") || !strcasecmp(words[i], "Irregular")) {
			if (drill) {
				error(ps, line, "element \"%s\": give the drill once (Reg or Irr)",
				      label);
				return false;
			}
			drill = words[i];
		} else if (!code) {
			code = words[i];
		} else {
			error(ps, line, "element \"%s\": \"%s\" is neither a troop type nor Reg/Irr; "
			      "drill is Reg or Irr", label, words[i]);
			return false;
		}
	}
	if (nwords > 2) {
		error(ps, line, "element \"%s\": the type is a code, a grade in brackets and Reg "
		      "or Irr, e.g. \"Kn(S) Reg\"", label);
		return false;
	}
	if (!code) {
		error(ps, line, "element \"%s\": no troop type before \"(%s)\"", label, grade);
		return false;
	}
	bool ok = true;
	const char *canon = dbm_type_canonical(code);
	if (!canon) {
		explain_troop_type(ps, line, label, code);
		ok = false;
	}
	if (strlen(grade) != 1 || !strchr("SOIFXsoifx", grade[0])) {
		error(ps, line, "element \"%s\": bad grade \"%s\"; DBM grades are S, O, I, F and X",
		      label, grade);
		ok = false;
	}
	if (!drill) {
		error(ps, line, "element \"%s\": say whether it is Reg or Irr, e.g. \"%s(%s) Irr\"",
		      label, canon ? canon : code, grade);
		ok = false;
	}
	if (!ok)
		return false;
	snprintf(t->code, sizeof t->code, "%s", canon);
	t->grade = (char)toupper((unsigned char)grade[0]);
	t->regular = toupper((unsigned char)drill[0]) == 'R';
	return true;
}

/* "3.5", "22 AP". */
static bool parse_cost(struct parser *ps, int line, const char *label, char *text, int *half_ap)
{
	size_t n = strlen(text);
	if (n > 2 && !strcasecmp(text + n - 2, "AP")) {
		text[n - 2] = '\0';
		str_trim(text);
	}
	if (text[0] == '-') {
		error(ps, line, "element \"%s\": cost %s cannot be negative", label, text);
		return false;
	}
	if (half_ap_parse(text, half_ap))
		return true;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (*text && !*end && !errno && isfinite(v))
		error(ps, line, "element \"%s\": cost %s is not a multiple of 0.5 AP", label, text);
	else
		error(ps, line, "element \"%s\": cost \"%s\" is not a number of army points "
		      "(write e.g. 12 or 3.5)", label, text);
	return false;
}

/* "6-18": the list's minimum and maximum in elements. */
static bool parse_list_range(struct parser *ps, int line, const char *label, char *text,
			     int *min, int *max)
{
	const char *usage = "write the list minimum and maximum in elements as min-max, "
			    "e.g. \"0-8\"";
	if (text[0] == '-') {
		error(ps, line, "element \"%s\": list limits cannot be negative (%s)", label, usage);
		return false;
	}
	char *dash = strchr(text, '-');
	if (!dash) {
		error(ps, line, "element \"%s\": \"%s\" is not a list range: %s", label, text, usage);
		return false;
	}
	*dash = '\0';
	char *lo = str_trim(text), *hi = str_trim(dash + 1);
	long a, b;
	if (hi[0] == '-') {
		error(ps, line, "element \"%s\": list limits cannot be negative (%s)", label, usage);
		return false;
	}
	if (!is_all_digits(lo) || !is_all_digits(hi) || !parse_int(lo, 0, 9999, &a) ||
	    !parse_int(hi, 0, 9999, &b)) {
		error(ps, line, "element \"%s\": \"%s-%s\" is not a list range: %s", label, lo, hi,
		      usage);
		return false;
	}
	if (a > b) {
		error(ps, line, "element \"%s\": list minimum %ld is above the maximum %ld", label,
		      a, b);
		return false;
	}
	*min = (int)a;
	*max = (int)b;
	return true;
}

static void player_element(struct parser *ps, char *value, int line)
{
	struct player *y = &ps->c->players[ps->sec_index];
	struct player_info *yi = &ps->yinfo[ps->sec_index];
	char *fields[16];
	size_t nf = 0;
	char *p = value;
	for (;;) {
		char *bar = strchr(p, '|');
		if (bar)
			*bar = '\0';
		if (nf < sizeof fields / sizeof *fields)
			fields[nf] = str_trim(p);
		nf++;
		if (!bar)
			break;
		p = bar + 1;
	}
	if (nf < 4 || !fields[0][0]) {
		error(ps, line, "element needs at least: label | type | cost | min-max, e.g. "
		      "\"element = Archers | Bw(O) Irr | 4 | 8-24 | field 16\"");
		yi->army_unreadable = true;
		return;
	}
	if (nf > sizeof fields / sizeof *fields) {
		error(ps, line, "element has too many fields");
		yi->army_unreadable = true;
		return;
	}
	const char *label = fields[0];
	bool ok = true;
	int prev = army_list_find(&y->list, label);
	if (prev >= 0) {
		error(ps, line, "element \"%s\" is listed twice for player \"%s\" (first on line %d)",
		      label, y->key, y->list.types[prev].line);
		ok = false;
	}
	struct element_type t = {0};
	t.line = line;
	ok = parse_troop_type(ps, line, label, fields[1], &t) && ok;
	ok = parse_cost(ps, line, label, fields[2], &t.cost_half_ap) && ok;
	ok = parse_list_range(ps, line, label, fields[3], &t.list_min, &t.list_max) && ok;

	static const char *const extras[] = {"field", "general"};
	long field = 0;
	bool field_seen = false;
	for (size_t i = 4; i < nf; i++) {
		char *f = fields[i];
		char *arg = f;
		while (*arg && !isspace((unsigned char)*arg))
			arg++;
		if (*arg)
			*arg++ = '\0';
		arg = str_trim(arg);
		int sugg;
		int k = lookup_exact(f, extras, 2, &sugg);
		if (k < 0 && is_all_digits(f)) {
			error(ps, line, "element \"%s\": write \"field %s\" for the number of elements "
			      "in the starting field army", label, f);
			ok = false;
			continue;
		}
		if (k < 0) {
			error(ps, line, "element \"%s\": unknown field \"%s\"%s; after min-max come "
			      "\"field N\" and \"general\"", label, f, did_you_mean(extras, sugg));
			ok = false;
			continue;
		}
		if (k == 1) {
			if (*arg) {
				error(ps, line, "element \"%s\": \"general\" takes no value", label);
				ok = false;
			}
			t.general = true;
			continue;
		}
		if (field_seen) {
			error(ps, line, "element \"%s\": \"field\" is given twice", label);
			ok = false;
			continue;
		}
		field_seen = true;
		if (arg[0] == '-') {
			error(ps, line, "element \"%s\": field %s cannot be negative", label, arg);
			ok = false;
		} else if (!is_all_digits(arg) || !parse_int(arg, 0, 9999, &field)) {
			error(ps, line, "element \"%s\": field \"%s\" is not a whole number of elements",
			      label, arg);
			ok = false;
		}
	}
	if (!ok) {
		yi->army_unreadable = true;
		return;
	}
	if (t.list_max == 0)
		warning(ps, line, "element \"%s\" has a list maximum of 0: it can never be fielded",
			label);
	struct element_type *nt = army_list_add(&y->list);
	*nt = t;
	nt->label = xstrdup(label);
	grow_array((void **)&yi->field, &yi->field_cap, y->list.count, sizeof *yi->field);
	yi->field[y->list.count - 1] = (int)field;
}

/* --------------------------------------------------------- [player] keys */

static void player_key(struct parser *ps, int key, char *value, int line)
{
	struct player *y = &ps->c->players[ps->sec_index];
	struct player_info *yi = &ps->yinfo[ps->sec_index];
	const char *problem;
	switch (key) {
	case YK_NATION:
		free(y->nation);
		y->nation = xstrdup(value);
		yi->nation_line = line;
		break;
	case YK_NAME:
		free(y->name);
		y->name = xstrdup(value);
		break;
	case YK_EMAIL:
		if (value[0] == '<' && value[strlen(value) - 1] == '>') {
			value[strlen(value) - 1] = '\0';
			value = str_trim(value + 1);
		}
		problem = email_problem(value);
		if (problem) {
			error(ps, line, "email \"%s\" %s (expected name@domain, e.g. "
			      "jean@example.org)", value, problem);
			break;
		}
		free(y->email);
		y->email = xstrdup(value);
		yi->email_line = line;
		break;
	case YK_START:
		free(yi->start);
		yi->start = xstrdup(value);
		yi->start_line = line;
		break;
	case YK_ELEMENT:
		player_element(ps, value, line);
		break;
	}
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
		error(ps, line, "[routes] holds one route a line, \"Flanders - Brabant\" (land) "
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
			error(ps, line, "route chain too long: split it over several lines");
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
			error(ps, line, "route has an empty province name (write \"Flanders - "
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
		return campaign_keys;
	case SEC_PROVINCE:
		*n = PK_COUNT;
		return province_keys;
	case SEC_PLAYER:
		*n = YK_COUNT;
		return player_keys;
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
			error(ps, line, "expected \"key = value\" (did you mean \"%s = yes\"?)", text);
		else
			error(ps, line, "expected \"key = value\" in %s, found \"%s\"",
			      section_title(ps, title, sizeof title), text);
		return;
	}
	*eq = '\0';
	char *key = str_trim(text);
	char *value = unquote(str_trim(eq + 1));
	if (!*key) {
		error(ps, line, "line starts with '=': the key is missing");
		return;
	}
	size_t nkeys;
	const char *const *keys = section_key_table(ps->sec, &nkeys);
	int sugg;
	int k = lookup_exact(key, keys, nkeys, &sugg);
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
			error(ps, line, "key \"%s\" belongs in a %s section, not in %s", key,
			      elsewhere, section_title(ps, title, sizeof title));
		else
			error(ps, line, "unknown key \"%s\" in %s%s", key,
			      section_title(ps, title, sizeof title), did_you_mean(keys, sugg));
		return;
	}
	int *seen = ps->sec == SEC_CAMPAIGN ? ps->campaign_keys_line : ps->keys_line;
	bool repeatable = ps->sec == SEC_PLAYER && k == YK_ELEMENT;
	if (seen[k] && !repeatable) {
		error(ps, line, "\"%s\" is given twice in %s (first on line %d)", keys[k],
		      section_title(ps, title, sizeof title), seen[k]);
		return;
	}
	seen[k] = line;
	if (!*value) {
		error(ps, line, "\"%s\" has no value", keys[k]);
		return;
	}
	if (ps->sec == SEC_CAMPAIGN)
		campaign_key(ps, k, value, line);
	else if (ps->sec == SEC_PROVINCE)
		province_key(ps, k, value, line);
	else
		player_key(ps, k, value, line);
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

static void parse_line(struct parser *ps, char *text, int line)
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
			error(ps, line, "text before the first section: start the file with "
			      "[campaign]");
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

/* ------------------------------------------------------- whole-file checks */

static void check_campaign(struct parser *ps)
{
	struct campaign *c = ps->c;
	if (!c->timezone)
		c->timezone = xstrdup("UTC");
	if (!ps->campaign_line) {
		error(ps, 0, "no [campaign] section: the file needs one with at least name, "
		      "start-year and organiser");
		return;
	}
	int *seen = ps->campaign_keys_line;
	for (int k = 0; k < CK_COUNT; k++)
		if (ps->campaign_keys_guessed[k] && !seen[k])
			seen[k] = -1;
	if (!seen[CK_NAME])
		error(ps, ps->campaign_line, "[campaign] has no name (add e.g. \"name = The "
		      "Burgundian Wars\")");
	if (!seen[CK_START_YEAR])
		error(ps, ps->campaign_line, "[campaign] has no start-year (add e.g. "
		      "\"start-year = 1450\")");
	if (!seen[CK_ORGANISER])
		error(ps, ps->campaign_line, "[campaign] has no organiser (add \"organiser = "
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
			error(ps, pi->home_line, "province \"%s\" cannot be both neutral and a home "
			      "province of \"%s\"", p->name, pi->home);
		if (pi->inviolate)
			error(ps, pi->inviolate_line, "province \"%s\" is inviolate, so it must be "
			      "neutral: remove \"home = %s\" or \"inviolate = yes\"", p->name,
			      pi->home);
		int sugg;
		int y = lookup_exact(pi->home, keys, c->player_count, &sugg);
		if (y < 0) {
			/* Players also answer to their nation's name. */
			y = campaign_find_player(c, pi->home);
			if (y >= 0 && ps->yinfo[y].duplicate)
				y = -1;
		}
		if (y < 0) {
			error(ps, pi->home_line, "province \"%s\": home of unknown player \"%s\"%s",
			      p->name, pi->home, did_you_mean(keys, sugg));
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
			error(ps, t->line, "player \"%s\": element \"%s\": the field army has %d, above "
			      "the list maximum of %d (%d too many)", y->key, t->label, n,
			      t->list_max, n - t->list_max);
		else if (n < t->list_min)
			error(ps, t->line, "player \"%s\": element \"%s\": the field army has %d, below "
			      "the list minimum of %d (%d short)", y->key, t->label, n, t->list_min,
			      t->list_min - n);
		total += n * t->cost_half_ap;
		if (t->general)
			generals += n;
	}
	if (total != FIELD_ARMY_HALF_AP) {
		int diff = total - FIELD_ARMY_HALF_AP;
		error(ps, y->line, "player \"%s\": the field army costs %s AP; it must be exactly "
		      "480 AP (%s AP %s)", y->key, half_ap_format(total, buf),
		      half_ap_format(diff < 0 ? -diff : diff, buf2), diff < 0 ? "short" : "over");
	}
	if (generals == 0)
		error(ps, y->line, "player \"%s\": the field army has no general (mark the "
		      "general's element line with \"| general\" and give it \"| field 1\")",
		      y->key);
	else if (generals > MAX_GENERALS)
		error(ps, y->line, "player \"%s\": the field army has %d generals; DBM allows at "
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
				error(ps, y->line, "player \"%s\" has no home provinces; each player "
				      "needs exactly four (add \"home = %s\" to four provinces)", y->key,
				      y->key);
			else
				error(ps, y->line, "player \"%s\" has %d home province%s (%s); each player "
				      "needs exactly four", y->key, homes, homes == 1 ? "" : "s", sb.data);
			strbuf_free(&sb);
		}
		if (yi->start) {
			int sugg;
			int p = lookup_exact(yi->start, pnames, c->province_count, &sugg);
			if (p >= 0 && ps->pinfo[p].home && c->provinces[p].home_of == NO_INDEX) {
				/* Its "home" did not resolve: that error says it all. */
			} else if (p < 0) {
				error(ps, yi->start_line, "start in unknown province \"%s\"%s", yi->start,
				      did_you_mean(pnames, sugg));
			} else if (c->provinces[p].home_of != (int)i) {
				struct strbuf sb = {0};
				list_homes(c, (int)i, &sb);
				const struct province *pr = &c->provinces[p];
				if (pr->home_of >= 0)
					error(ps, yi->start_line, "start province \"%s\" is a home province "
					      "of \"%s\", not of \"%s\"; the army starts in one of its "
					      "own: %s", pr->name, c->players[pr->home_of].key, y->key,
					      sb.len ? sb.data : "(none yet)");
				else
					error(ps, yi->start_line, "start province \"%s\" is not a home "
					      "province of \"%s\"; the army starts in one of its own: %s",
					      pr->name, y->key, sb.len ? sb.data : "(none yet)");
				strbuf_free(&sb);
			} else {
				y->location = p;
			}
		}
		check_player_army(ps, (int)i);
		for (size_t j = 0; j < i; j++) {
			const struct player *o = &c->players[j];
			if (ps->yinfo[j].duplicate)
				continue;
			if (y->email && o->email && strcasecmp(y->email, o->email) == 0)
				error(ps, yi->email_line, "email \"%s\" is already used by player \"%s\" "
				      "(line %d); each player needs an address of their own", y->email,
				      o->key, ps->yinfo[j].email_line);
			if (y->nation && o->nation && name_equal(y->nation, o->nation))
				error(ps, yi->nation_line, "nation \"%s\" is already played by \"%s\" "
				      "(line %d)", y->nation, o->key, ps->yinfo[j].nation_line);
			/* Orders name players by key or nation: neither may be ambiguous. */
			if (y->nation && name_equal(y->nation, o->key))
				error(ps, yi->nation_line, "nation \"%s\" is also the key of player \"%s\": "
				      "orders could not tell them apart", y->nation, o->key);
			if (o->nation && name_equal(o->nation, y->key))
				error(ps, y->line, "player key \"%s\" is also the nation of player \"%s\": "
				      "orders could not tell them apart", y->key, o->key);
		}
	}

	size_t players = 0;
	for (size_t i = 0; i < c->player_count; i++)
		if (!ps->yinfo[i].duplicate)
			players++;
	if (players < MIN_PLAYERS)
		error(ps, c->player_count ? c->players[c->player_count - 1].line : 0,
		      "%zu player%s; the rules need at least %d (add [player KEY] sections)",
		      players, players == 1 ? "" : "s", MIN_PLAYERS);
	else if (players > COMFORTABLE_PLAYERS)
		warning(ps, c->players[c->player_count - 1].line, "%zu players; the rules are "
			"written for 3 to about %d, and every extra player slows each year down",
			players, COMFORTABLE_PLAYERS);

	if (ps->organiser_plays) {
		const char **keys = player_key_names(ps);
		int sugg;
		int y = lookup_exact(ps->organiser_plays, keys, c->player_count, &sugg);
		if (y < 0)
			error(ps, ps->organiser_plays_line, "organiser-plays names unknown player "
			      "\"%s\"%s", ps->organiser_plays, did_you_mean(keys, sugg));
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
				int a = lookup_exact(str_trim(left), pnames, c->province_count, &sa);
				int b = lookup_exact(dash + 1, pnames, c->province_count, &sb);
				free(left);
				if (a >= 0 && b >= 0) {
					error(ps, r->line, "a route needs spaces around the '-': did you "
					      "mean \"%s - %s\"?", pnames[a], pnames[b]);
					break;
				}
			}
			if (!dash)
				error(ps, r->line, "\"%s\" is not a route: write two provinces joined "
				      "by \" - \" (land) or \" ~ \" (sea), e.g. \"Flanders - Brabant\"",
				      r->a);
			all_known = false;
			continue;
		}
		int a = lookup_exact(r->a, pnames, c->province_count, &sa);
		int b = lookup_exact(r->b, pnames, c->province_count, &sb);
		if (a < 0)
			error(ps, r->line, "route to unknown province \"%s\"%s", r->a,
			      did_you_mean(pnames, sa));
		if (b < 0)
			error(ps, r->line, "route to unknown province \"%s\"%s", r->b,
			      did_you_mean(pnames, sb));
		if (a < 0 || b < 0) {
			all_known = false;
			continue;
		}
		if (a == b) {
			error(ps, r->line, "route from \"%s\" to itself", c->provinces[a].name);
			continue;
		}
		int prev = campaign_route_between(c, a, b);
		if (prev >= 0) {
			const struct route *o = &c->routes[prev];
			if (o->sea == r->sea)
				error(ps, r->line, "route %s %s %s is given twice (first on line %d)",
				      c->provinces[a].name, r->sea ? "~" : "-", c->provinces[b].name,
				      o->line);
			else
				error(ps, r->line, "\"%s\" and \"%s\" are already joined by a %s route "
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
			error(ps, line, "province %s cannot be reached from the rest of the map: add "
			      "a route to it in [routes]", sb.data);
		else
			error(ps, line, "provinces %s are cut off from the rest of the map: add a "
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
		error(ps, 0, "no provinces: the map needs [province NAME] sections");
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
				warning(ps, a->line, "province \"%s\" is drawn at the same position "
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

/* ------------------------------------------------------------- diagnostics */

struct numbered_diag {
	struct diag d;
	size_t seq;
};

static int compare_diag(const void *a, const void *b)
{
	const struct numbered_diag *x = a, *y = b;
	if (x->d.line != y->d.line)
		return x->d.line < y->d.line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Moves the collected diagnostics, sorted by line, to the caller's list. */
static void hand_over_diags(struct parser *ps, struct diag_list *out)
{
	size_t n = ps->diags.count;
	struct numbered_diag *nd = xcalloc(n ? n : 1, sizeof *nd);
	for (size_t i = 0; i < n; i++) {
		nd[i].d = ps->diags.items[i];
		nd[i].seq = i;
	}
	qsort(nd, n, sizeof *nd, compare_diag);
	grow_array((void **)&out->items, &out->cap, out->count + n, sizeof *out->items);
	for (size_t i = 0; i < n; i++) {
		out->items[out->count++] = nd[i].d;
		if (nd[i].d.level == DIAG_ERROR)
			out->errors++;
	}
	free(nd);
	free(ps->diags.items);
	memset(&ps->diags, 0, sizeof ps->diags);
}

/* ------------------------------------------------------------------- entry */

struct campaign *campaign_file_parse(const char *text, size_t len, const char *filename,
				     struct diag_list *diags)
{
	struct parser ps = {0};
	ps.file = filename;
	ps.c = campaign_new();

	size_t pos = 0;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		pos = 3; /* a UTF-8 byte order mark, as some Windows editors write */
	int line = 0;
	while (pos < len) {
		line++;
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t n = end - pos;
		if (memchr(text + pos, '\0', n)) {
			error(&ps, line, "line contains a NUL byte: is this a text file?");
		} else if (!utf8_valid((const unsigned char *)text + pos, n)) {
			error(&ps, line, "line is not valid UTF-8: save the file as UTF-8");
		} else {
			char *copy = xstrndup(text + pos, n);
			parse_line(&ps, copy, line);
			free(copy);
		}
		pos = end + 1;
	}
	finish_section(&ps);

	check_campaign(&ps);
	const char **keys = player_key_names(&ps);
	const char **pnames = province_names(&ps);
	resolve_homes(&ps, keys);
	bool routes_known = resolve_routes(&ps, pnames);
	check_map(&ps, routes_known);
	check_players(&ps, pnames);
	free(keys);
	free(pnames);

	bool failed = ps.diags.errors > 0;
	if (!failed)
		set_up_start(&ps);
	hand_over_diags(&ps, diags);
	parser_free(&ps);
	if (failed) {
		campaign_free(ps.c);
		return NULL;
	}
	return ps.c;
}
