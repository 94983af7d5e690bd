/* The keys of each section of the campaign file ([campaign], [province],
 * [player] with its element lines), and the values they take. */
#include "config.h"

#include "model/campaign_file_p.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_REMINDERS 3  /* settings.reminder_hours holds 3 and a 0 */
#define MAX_DURATION_HOURS (366 * 24)

const char *const cf_campaign_keys[CK_COUNT] = {
	"name", "start-year", "timezone", "organiser", "organiser-plays", "background",
	"siege-floor", "supply-across-sea", "turn-deadline", "decision-deadline",
	"battle-deadline", "recruitment-deadline", "reminders", "grace", "tag",
};

const char *const cf_province_keys[PK_COUNT] = {
	"terrain", "climate", "position", "home", "neutral", "inviolate",
};

const char *const cf_player_keys[YK_COUNT] = {
	"nation", "name", "email", "start", "element",
};

/* DBM's climates (rules 1.2: "DBM gives the climate for each province"). */
static const char *const climates[] = {"Cold", "Warm", "Dry", "Tropical"};

/* ------------------------------------------------------------ value parsers */

/* Drops one pair of surrounding double quotes. */
char *cf_unquote(char *s)
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

/* -------------------------------------------------------- [campaign] keys */

static void set_duration(struct parser *ps, int line, const char *key, const char *value,
			 int *out, bool zero_ok)
{
	int hours;
	const char *why = NULL;
	if (!parse_duration(value, &hours, &why)) {
		cf_error(ps, line, "%s \"%s\" %s", key, value, why);
		return;
	}
	if (hours == 0 && !zero_ok) {
		cf_error(ps, line, "%s must be longer than 0h", key);
		return;
	}
	*out = hours;
}

static int compare_hours_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x < y) - (x > y);
}

void cf_campaign_key(struct parser *ps, int key, char *value, int line)
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
				cf_error(ps, line, "start-year \"%s %s\": write the year as a number, "
				         "optionally followed by AD or BC (e.g. 1450 or 216 BC)", value,
				         unit);
				break;
			}
		}
		if (!is_all_digits(value) || !parse_int(value, 1, 9999, &n)) {
			cf_error(ps, line, "start-year \"%s\" is not a year (write e.g. 1450, or 216 BC)",
			         value);
			break;
		}
		c->start_year = bc ? -(int)n : (int)n;
		break;
	}
	case CK_TIMEZONE:
		for (const char *p = value; *p; p++)
			if (isspace((unsigned char)*p)) {
				cf_error(ps, line, "timezone \"%s\" has a space; use a name from the "
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
				cf_error(ps, line, "organiser needs a name as well as an address: write "
				         "\"organiser = Your Name <%s>\"", value);
			else
				cf_error(ps, line, "organiser needs a name and an address: write "
				         "\"organiser = Your Name <you@example.org>\"");
			break;
		}
		if (!gt || str_trim(gt + 1)[0]) {
			cf_error(ps, line, "organiser: write the address in angle brackets after "
			         "the name, e.g. \"Your Name <you@example.org>\"");
			break;
		}
		*lt = '\0';
		*gt = '\0';
		char *who = cf_unquote(str_trim(value));
		char *addr = str_trim(lt + 1);
		const char *problem = address_problem(addr);
		if (!*who) {
			cf_error(ps, line, "organiser needs a name before <%s>", addr);
			break;
		}
		if (problem) {
			cf_error(ps, line, "organiser's address \"%s\" %s (expected name@domain, "
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
			cf_error(ps, line, "siege-floor \"%s\" must be a whole number from 1 to 6 "
			         "(the lowest score a siege can need)", value);
		else
			s->siege_floor = (int)n;
		break;
	case CK_SUPPLY_ACROSS_SEA:
		if (!str_parse_bool(value, &s->supply_across_sea))
			cf_error(ps, line, "supply-across-sea \"%s\" must be yes or no", value);
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
					cf_error(ps, line, "reminders: at most %d reminders before a "
					         "deadline", MAX_REMINDERS);
					ok = false;
					break;
				}
				const char *why = NULL;
				if (!parse_duration(tok, &hours[count], &why)) {
					cf_error(ps, line, "reminders: \"%s\" %s", tok, why);
					ok = false;
				} else if (hours[count] == 0) {
					cf_error(ps, line, "reminders: a reminder 0h before the deadline "
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
	case CK_TAG: {
		const char *problem = campaign_tag_problem(value);
		if (problem) {
			cf_error(ps, line, "tag \"%s\" %s (it starts every mail's subject, in "
			         "brackets: e.g. tag = Italia94)", value, problem);
			break;
		}
		free(c->tag);
		c->tag = xstrdup(value);
		break;
	}
	}
}

/* ------------------------------------------------------- [province] keys */

void cf_province_key(struct parser *ps, int key, char *value, int line)
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
		int k = cf_lookup_exact(value, climates, 4, &sugg);
		if (k < 0) {
			cf_error(ps, line, "unknown climate \"%s\"%s; DBM's climates are Cold, Warm, "
			         "Dry and Tropical", value, cf_did_you_mean(climates, sugg));
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
			cf_error(ps, line, "position needs two numbers, x and y, e.g. "
			         "\"position = 420, 210\"");
			break;
		}
		if (!parse_coordinate(xs, &p->x) || !parse_coordinate(ys, &p->y))
			cf_error(ps, line, "position \"%s, %s\" is not two numbers (write e.g. "
			         "\"position = 420, 210\")", xs, ys);
		else
			pi->has_position = true;
		break;
	}
	case PK_HOME:
		if (!strcasecmp(value, "neutral") || !strcasecmp(value, "none")) {
			cf_error(ps, line, "write \"neutral = yes\" for a neutral province, not "
			         "\"home = %s\"", value);
			break;
		}
		free(pi->home);
		pi->home = xstrdup(value);
		pi->home_line = line;
		break;
	case PK_NEUTRAL:
	case PK_INVIOLATE:
		if (!str_parse_bool(value, &flag)) {
			cf_error(ps, line, "%s \"%s\" must be yes or no", cf_province_keys[key], value);
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
			cf_error(ps, line, "element \"%s\": %s is a DBA troop type; in DBM chariots are "
			         "Kn, Cv or LH", label, code);
			return;
		}
	for (size_t i = 0; i < sizeof troop_words / sizeof *troop_words; i++)
		if (name_equal(code, troop_words[i].word)) {
			cf_error(ps, line, "element \"%s\": unknown DBM troop type \"%s\" (did you mean "
			         "\"%s\"?)", label, code, troop_words[i].code);
			return;
		}
	size_t ntypes = 0;
	while (dbm_type_codes[ntypes])
		ntypes++;
	int sugg = -1;
	cf_lookup_exact(code, (const char *const *)dbm_type_codes, ntypes, &sugg);
	cf_error(ps, line, "element \"%s\": unknown DBM troop type \"%s\"%s", label, code,
	         cf_did_you_mean(dbm_type_codes, sugg));
}

/* "Kn(S) Reg", "Reg Kn(S)", "Irr Bd (O)". Fills t; false after reporting. */
static bool parse_troop_type(struct parser *ps, int line, const char *label, char *text,
			     struct element_type *t)
{
	char *open = strchr(text, '(');
	char *close = open ? strchr(open, ')') : NULL;
	if (!open || !close) {
		cf_error(ps, line, "element \"%s\": type \"%s\" needs the grade in brackets and the "
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
				cf_error(ps, line, "element \"%s\": give the drill once (Reg or Irr)",
				         label);
				return false;
			}
			drill = words[i];
		} else if (!code) {
			code = words[i];
		} else {
			cf_error(ps, line, "element \"%s\": \"%s\" is neither a troop type nor Reg/Irr; "
			         "drill is Reg or Irr", label, words[i]);
			return false;
		}
	}
	if (nwords > 2) {
		cf_error(ps, line, "element \"%s\": the type is a code, a grade in brackets and Reg "
		         "or Irr, e.g. \"Kn(S) Reg\"", label);
		return false;
	}
	if (!code) {
		cf_error(ps, line, "element \"%s\": no troop type before \"(%s)\"", label, grade);
		return false;
	}
	bool ok = true;
	const char *canon = dbm_type_canonical(code);
	if (!canon) {
		explain_troop_type(ps, line, label, code);
		ok = false;
	}
	if (strlen(grade) != 1 || !strchr("SOIFXsoifx", grade[0])) {
		cf_error(ps, line, "element \"%s\": bad grade \"%s\"; DBM grades are S, O, I, F and X",
		         label, grade);
		ok = false;
	}
	if (!drill) {
		cf_error(ps, line, "element \"%s\": say whether it is Reg or Irr, e.g. \"%s(%s) Irr\"",
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
		cf_error(ps, line, "element \"%s\": cost %s cannot be negative", label, text);
		return false;
	}
	if (half_ap_parse(text, half_ap))
		return true;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (*text && !*end && !errno && isfinite(v))
		cf_error(ps, line, "element \"%s\": cost %s is not a multiple of 0.5 AP", label, text);
	else
		cf_error(ps, line, "element \"%s\": cost \"%s\" is not a number of army points "
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
		cf_error(ps, line, "element \"%s\": list limits cannot be negative (%s)", label, usage);
		return false;
	}
	char *dash = strchr(text, '-');
	if (!dash) {
		cf_error(ps, line, "element \"%s\": \"%s\" is not a list range: %s", label, text, usage);
		return false;
	}
	*dash = '\0';
	char *lo = str_trim(text), *hi = str_trim(dash + 1);
	long a, b;
	if (hi[0] == '-') {
		cf_error(ps, line, "element \"%s\": list limits cannot be negative (%s)", label, usage);
		return false;
	}
	if (!is_all_digits(lo) || !is_all_digits(hi) || !parse_int(lo, 0, 9999, &a) ||
	    !parse_int(hi, 0, 9999, &b)) {
		cf_error(ps, line, "element \"%s\": \"%s-%s\" is not a list range: %s", label, lo, hi,
		         usage);
		return false;
	}
	if (a > b) {
		cf_error(ps, line, "element \"%s\": list minimum %ld is above the maximum %ld", label,
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
		cf_error(ps, line, "element needs at least: label | type | cost | min-max, e.g. "
		         "\"element = Archers | Bw(O) Irr | 4 | 8-24 | field 16\"");
		yi->army_unreadable = true;
		return;
	}
	if (nf > sizeof fields / sizeof *fields) {
		cf_error(ps, line, "element has too many fields");
		yi->army_unreadable = true;
		return;
	}
	const char *label = fields[0];
	bool ok = true;
	int prev = army_list_find(&y->list, label);
	if (prev >= 0) {
		cf_error(ps, line, "element \"%s\" is listed twice for player \"%s\" (first on line %d)",
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
		int k = cf_lookup_exact(f, extras, 2, &sugg);
		if (k < 0 && is_all_digits(f)) {
			cf_error(ps, line, "element \"%s\": write \"field %s\" for the number of elements "
			         "in the starting field army", label, f);
			ok = false;
			continue;
		}
		if (k < 0) {
			cf_error(ps, line, "element \"%s\": unknown field \"%s\"%s; after min-max come "
			         "\"field N\" and \"general\"", label, f, cf_did_you_mean(extras, sugg));
			ok = false;
			continue;
		}
		if (k == 1) {
			if (*arg) {
				cf_error(ps, line, "element \"%s\": \"general\" takes no value", label);
				ok = false;
			}
			t.general = true;
			continue;
		}
		if (field_seen) {
			cf_error(ps, line, "element \"%s\": \"field\" is given twice", label);
			ok = false;
			continue;
		}
		field_seen = true;
		yi->any_field = true;
		if (arg[0] == '-') {
			cf_error(ps, line, "element \"%s\": field %s cannot be negative", label, arg);
			ok = false;
		} else if (!is_all_digits(arg) || !parse_int(arg, 0, 9999, &field)) {
			cf_error(ps, line, "element \"%s\": field \"%s\" is not a whole number of elements",
			         label, arg);
			ok = false;
		}
	}
	if (!ok) {
		yi->army_unreadable = true;
		return;
	}
	if (t.list_max == 0)
		cf_warning(ps, line, "element \"%s\" has a list maximum of 0: it can never be fielded",
			   label);
	struct element_type *nt = army_list_add(&y->list);
	*nt = t;
	nt->label = xstrdup(label);
	grow_array((void **)&yi->field, &yi->field_cap, y->list.count, sizeof *yi->field);
	yi->field[y->list.count - 1] = (int)field;
}

/* --------------------------------------------------------- [player] keys */

void cf_player_key(struct parser *ps, int key, char *value, int line)
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
		problem = address_problem(value);
		if (problem) {
			cf_error(ps, line, "email \"%s\" %s (expected name@domain, e.g. "
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
