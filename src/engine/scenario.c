/* Scenarios: a campaign played offline from a script (doc/scenario.md).
 * Here: the script parsed, then resolved against the campaign. */
#include "config.h"

#include "engine/scenario.h"
#include "engine/scenario_p.h"

#include "model/campaign_json.h"
#include "base/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ parsing */

struct parser {
	struct scenario *s;
	struct diag_list *diags;
	struct scenario_phase *phase;     /* current [year] section, or NULL */
	struct scenario_section *section; /* current player or battle section */
	struct strbuf body;
	bool have_campaign, have_seed_line;
	bool in_start;                    /* inside [start] */
};

void scenario_error_at(struct diag_list *diags, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = {0};
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_add(diags, DIAG_ERROR, file, line, "%s", sb.data ? sb.data : "");
	strbuf_free(&sb);
}

/* Cuts a comment: a # that starts a word. */
static void cut_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '#' && (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
}

static void finish_section(struct parser *p)
{
	if (p->section) {
		p->section->body = strbuf_take(&p->body);
		p->section = NULL;
	}
	strbuf_free(&p->body);
}

static bool word_is(const char *w, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(w, word, n) == 0;
}

/* [year N campaign|recruitment], [battle PROVINCE] or [player]. */
static void parse_header(struct parser *p, char *inside, int line)
{
	const char *file = p->s->filename;
	str_trim(inside);
	finish_section(p);
	p->in_start = false;
	if (strcasecmp(inside, "start") == 0) {
		if (p->phase || p->s->phase_count)
			scenario_error_at(p->diags, file, line,
					  "[start] comes before the first [year] section");
		else if (p->s->start_line)
			scenario_error_at(p->diags, file, line, "a second [start] section");
		else {
			p->s->start_line = line;
			p->in_start = true;
		}
		return;
	}
	char *sp = inside + strcspn(inside, " \t");
	size_t first = (size_t)(sp - inside);
	if (word_is(inside, first, "year") && *sp) {
		char *end;
		errno = 0;
		long year = strtol(sp, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		int phase = -1;
		if (strcasecmp(end, "campaign") == 0)
			phase = PHASE_CAMPAIGN;
		else if (strcasecmp(end, "recruitment") == 0)
			phase = PHASE_RECRUITMENT;
		if (end == sp || errno || year < 1 || year > 99999 || phase < 0) {
			scenario_error_at(p->diags, file, line,
					  "write [year N campaign] or [year N recruitment], e.g. [year 1450 campaign]");
			p->phase = NULL;
			return;
		}
		struct scenario *s = p->s;
		grow_array((void **)&s->phases, &s->phase_cap, s->phase_count + 1, sizeof *s->phases);
		p->phase = &s->phases[s->phase_count++];
		memset(p->phase, 0, sizeof *p->phase);
		p->phase->year = (int)year;
		p->phase->phase = phase;
		p->phase->line = line;
		return;
	}
	bool battle = word_is(inside, first, "battle");
	const char *name = battle ? sp : inside;
	while (isspace((unsigned char)*name))
		name++;
	if (!*name) {
		scenario_error_at(p->diags, file, line, battle ? "write [battle PROVINCE], e.g. [battle Liège]"
						      : "an empty section header");
		return;
	}
	if (!p->phase) {
		scenario_error_at(p->diags, file, line,
				  "[%s] must follow a [year N campaign] or [year N recruitment] header", inside);
		return;
	}
	if (battle && p->phase->phase != PHASE_CAMPAIGN) {
		scenario_error_at(p->diags, file, line, "battles are fought in the campaign phase: put [%s] "
				  "after [year %d campaign]", inside, p->phase->year);
		return;
	}
	struct scenario_phase *ph = p->phase;
	grow_array((void **)&ph->sections, &ph->section_cap, ph->section_count + 1,
		   sizeof *ph->sections);
	struct scenario_section *sec = &ph->sections[ph->section_count++];
	memset(sec, 0, sizeof *sec);
	sec->kind = battle ? SCENARIO_BATTLE : SCENARIO_PLAYER;
	sec->name = xstrdup(name);
	sec->line = line;
	sec->player = sec->province = NO_INDEX;
	orders_set_init(&sec->orders);
	p->section = sec;
}

/* Splits "a, b c" into words; returns the count (words owned by *out). */
static size_t split_list(const char *v, char ***out)
{
	size_t n = 0, cap = 0;
	char **items = NULL;
	const char *s = v;
	while (*s) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && *e != ',')
			e++;
		char *item = xstrndup(s, (size_t)(e - s));
		str_trim(item);
		grow_array((void **)&items, &cap, n + 1, sizeof *items);
		items[n++] = item;
		s = e;
	}
	*out = items;
	return n;
}

static void parse_dice(struct parser *p, const char *v, int line)
{
	struct scenario *s = p->s;
	if (!s->dice_line)
		s->dice_line = line;
	const char *at = v;
	while (*at) {
		while (*at == ',' || isspace((unsigned char)*at))
			at++;
		if (!*at)
			break;
		const char *e = at;
		while (*e && *e != ',' && !isspace((unsigned char)*e))
			e++;
		if (e - at == 1 && *at >= '1' && *at <= '6') {
			grow_array((void **)&s->dice, &s->dice_cap, s->dice_count + 1, sizeof *s->dice);
			s->dice[s->dice_count++] = *at - '0';
		} else {
			scenario_error_at(p->diags, s->filename, line, "\"%.*s\" is not a die: dice are 1 to 6",
					  (int)(e - at), at);
		}
		at = e;
	}
}

static void parse_key(struct parser *p, char *text, int line)
{
	struct scenario *s = p->s;
	cut_comment(text);
	str_trim(text);
	if (!*text)
		return;
	char *eq = strchr(text, '=');
	if (!eq) {
		scenario_error_at(p->diags, s->filename, line,
				  p->phase ? "expected \"sequence = player, ...\" or a [player] section"
					   : "expected \"key = value\" (campaign, dice or seed) before the first [year] section");
		return;
	}
	*eq = '\0';
	char *key = str_trim(text), *value = str_trim(eq + 1);
	if (p->phase) {
		if (strcasecmp(key, "sequence") != 0) {
			scenario_error_at(p->diags, s->filename, line, "unknown key \"%s\" in a [year] section "
					  "(only \"sequence\")", key);
			return;
		}
		if (p->phase->phase != PHASE_CAMPAIGN) {
			scenario_error_at(p->diags, s->filename, line,
					  "the sequence of play belongs to the campaign phase");
			return;
		}
		if (p->phase->sequence_names) {
			scenario_error_at(p->diags, s->filename, line, "a second sequence for year %d",
					  p->phase->year);
			return;
		}
		p->phase->sequence_count = split_list(value, &p->phase->sequence_names);
		p->phase->sequence_line = line;
		if (p->phase->sequence_count == 0)
			scenario_error_at(p->diags, s->filename, line, "the sequence names no player");
		return;
	}
	if (strcasecmp(key, "campaign") == 0) {
		if (p->have_campaign)
			scenario_error_at(p->diags, s->filename, line, "a second \"campaign =\" line");
		else if (!*value)
			scenario_error_at(p->diags, s->filename, line, "\"campaign =\" needs the campaign file");
		else {
			s->campaign_path = xstrdup(value);
			s->campaign_line = line;
			p->have_campaign = true;
		}
	} else if (strcasecmp(key, "dice") == 0) {
		parse_dice(p, value, line);
	} else if (strcasecmp(key, "seed") == 0) {
		if (p->have_seed_line)
			scenario_error_at(p->diags, s->filename, line, "a second \"seed =\" line");
		else if (!dice_seed_from_hex(value, s->seed))
			scenario_error_at(p->diags, s->filename, line, "a seed is 64 hexadecimal digits");
		else
			s->has_seed = true;
		p->have_seed_line = true;
	} else {
		scenario_error_at(p->diags, s->filename, line,
				  "unknown key \"%s\" (the keys are campaign, dice and seed)", key);
	}
}

struct scenario *scenario_parse(const char *text, size_t len, const char *filename,
				struct diag_list *diags)
{
	struct scenario *s = xcalloc(1, sizeof *s);
	s->filename = xstrdup(filename ? filename : "scenario");
	struct parser p = {.s = s, .diags = diags};
	size_t errors = diags->errors;
	size_t at = 0;
	int line = 0;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		at = 3; /* a byte-order mark from an editor */
	while (at < len) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		line++;
		size_t n = end - at;
		char *raw = xstrndup(text + at, n);
		if (memchr(text + at, '\0', n))
			scenario_error_at(diags, s->filename, line, "a NUL byte: not a text file");
		char *trimmed = xstrdup(raw);
		str_trim(trimmed);
		if (trimmed[0] == '[') {
			char *close = strchr(trimmed, ']');
			char *after = close ? close + 1 : NULL;
			if (after) {
				cut_comment(after);
				str_trim(after);
			}
			if (!close || *after)
				scenario_error_at(diags, s->filename, line, "a section header ends with ]");
			else {
				*close = '\0';
				parse_header(&p, trimmed + 1, line);
			}
		} else if (p.in_start) {
			cut_comment(trimmed);
			scenario_start_line(s, trimmed, line, diags);
		} else if (p.section) {
			/* Kept verbatim: the order parser numbers the lines. */
			size_t keep = strlen(raw);
			if (keep && raw[keep - 1] == '\r')
				keep--;
			strbuf_append(&p.body, raw, keep);
			strbuf_putc(&p.body, '\n');
		} else if (p.phase || !s->phase_count) {
			parse_key(&p, trimmed, line);
		} else {
			/* After a broken [year] header: already reported. */
		}
		free(trimmed);
		free(raw);
		at = end < len ? end + 1 : end;
	}
	finish_section(&p);
	if (!p.have_campaign)
		scenario_error_at(diags, s->filename, 0, "no \"campaign = FILE\" line names the campaign file");
	if (s->has_seed && s->dice_count)
		scenario_error_at(diags, s->filename, s->dice_line,
				  "give either \"dice =\" values or a \"seed =\", not both");
	if (diags->errors > errors) {
		scenario_free(s);
		return NULL;
	}
	return s;
}

static void section_free(struct scenario_section *sec)
{
	free(sec->name);
	free(sec->body);
	orders_set_free(&sec->orders);
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->phase_count; i++) {
		struct scenario_phase *ph = &s->phases[i];
		for (size_t k = 0; k < ph->sequence_count; k++)
			free(ph->sequence_names[k]);
		free(ph->sequence_names);
		free(ph->sequence);
		for (size_t k = 0; k < ph->section_count; k++)
			section_free(&ph->sections[k]);
		free(ph->sections);
	}
	free(s->phases);
	scenario_start_free(s);
	free(s->dice);
	free(s->campaign_path);
	free(s->filename);
	free(s);
}

/* ---------------------------------------------------------- resolving */

static int lookup_player(const struct campaign *c, const char *name, struct diag_list *diags,
			 const char *file, int line)
{
	int i = campaign_find_player(c, name);
	if (i >= 0)
		return i;
	size_t n = c->player_count;
	const char **names = xcalloc(2 * n + 1, sizeof *names);
	for (size_t k = 0; k < n; k++) {
		names[k] = c->players[k].key;
		names[n + k] = c->players[k].nation ? c->players[k].nation : c->players[k].key;
	}
	int suggestion = -1;
	i = name_lookup(name, names, 2 * n, &suggestion);
	free(names);
	if (i >= 0)
		return (int)((size_t)i % n);
	if (suggestion >= 0)
		scenario_error_at(diags, file, line, "unknown player \"%s\" (did you mean \"%s\"?)", name,
				  c->players[(size_t)suggestion % n].key);
	else
		scenario_error_at(diags, file, line, "unknown player \"%s\"", name);
	return NO_INDEX;
}

static int lookup_province(const struct campaign *c, const char *name, struct diag_list *diags,
			   const char *file, int line)
{
	const char **names = xcalloc(c->province_count + 1, sizeof *names);
	for (size_t k = 0; k < c->province_count; k++)
		names[k] = c->provinces[k].name;
	int suggestion = -1;
	int i = name_lookup(name, names, c->province_count, &suggestion);
	free(names);
	if (i >= 0)
		return i;
	if (suggestion >= 0)
		scenario_error_at(diags, file, line, "unknown province \"%s\" (did you mean \"%s\"?)", name,
				  c->provinces[suggestion].name);
	else
		scenario_error_at(diags, file, line, "unknown province \"%s\"", name);
	return NO_INDEX;
}

bool scenario_is_route_kind(enum order_kind k)
{
	return k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT;
}

bool scenario_is_inert_kind(enum order_kind k)
{
	switch (k) {
	case ORDER_PASSWORD: case ORDER_STATUS: case ORDER_MAP: case ORDER_HELP: case ORDER_STAND_IN:
	case ORDER_ORGANISER: case ORDER_ORG_EXTEND: case ORDER_ORG_PAUSE: case ORDER_ORG_RESUME:
	case ORDER_ORG_PROCESS: case ORDER_ORG_PREVIEW: case ORDER_ORG_COMMENT:
		return true;
	default:
		return false;
	}
}

static bool is_battle_kind(enum order_kind k)
{
	return k >= ORDER_BATTLE_AT && k <= ORDER_BATTLE_GENERAL_KILLED;
}

/* Where an order may stand in a player section: 0 allowed, else the
 * message; *warn is set for orders that have no effect in a scenario. */
static const char *kind_placement(enum order_kind k, int phase, bool *warn)
{
	*warn = false;
	switch (k) {
	case ORDER_INVADE: case ORDER_MOVE: case ORDER_SEND_CONTINGENT: case ORDER_NO_MOVE:
	case ORDER_SALLY: case ORDER_ASK_ALLIES: case ORDER_CALL_OFF:
	case ORDER_RECALL_CONTINGENTS:
		return phase == PHASE_CAMPAIGN ? NULL : "belongs in a [year N campaign] section";
	case ORDER_RECRUIT: case ORDER_DISMISS: case ORDER_RENOUNCE: case ORDER_EXCHANGE:
		return phase == PHASE_RECRUITMENT ? NULL
						   : "belongs in a [year N recruitment] section";
	case ORDER_PASSWORD: case ORDER_STATUS: case ORDER_MAP: case ORDER_HELP: case ORDER_STAND_IN:
	case ORDER_ORGANISER: case ORDER_ORG_EXTEND: case ORDER_ORG_PAUSE: case ORDER_ORG_RESUME:
	case ORDER_ORG_PROCESS: case ORDER_ORG_PREVIEW: case ORDER_ORG_COMMENT:
		*warn = true;
		return "has no effect in a scenario";
	default:
		if (is_battle_kind(k))
			return "belongs in a [battle PROVINCE] section";
		return NULL;
	}
}

static void report_order_error(struct diag_list *diags, const char *file, const struct order *o)
{
	if (o->status == ORDER_IGNORED)
		scenario_error_at(diags, file, o->line, "not an order: \"%s\"", o->text ? o->text : "");
	else if (o->guess)
		scenario_error_at(diags, file, o->line, "%s (perhaps: %s)",
				  o->error ? o->error : "not understood", o->guess);
	else
		scenario_error_at(diags, file, o->line, "%s", o->error ? o->error : "not understood");
}

static void resolve_player_section(const struct scenario *s, const struct scenario_phase *ph,
				   struct scenario_section *sec, const struct campaign *c,
				   struct diag_list *diags)
{
	orders_set_free(&sec->orders);
	orders_parse(sec->body, c, sec->player, &sec->orders);
	for (size_t i = 0; i < sec->orders.count; i++) {
		struct order *o = &sec->orders.orders[i];
		o->line += sec->line;
		if (o->status == ORDER_ERROR && is_battle_kind(o->kind)) {
			scenario_error_at(diags, s->filename, o->line, "%s belongs in a [battle PROVINCE] section",
					  order_kind_keyword(o->kind));
			continue;
		}
		if (o->status != ORDER_OK) {
			if (!(o->status == ORDER_ERROR && scenario_is_route_kind(o->kind)))
				report_order_error(diags, s->filename, o);
			continue;
		}
		bool warn;
		const char *why = kind_placement(o->kind, ph->phase, &warn);
		if (why && warn)
			diag_add(diags, DIAG_WARNING, s->filename, o->line, "%s %s",
				 order_kind_keyword(o->kind), why);
		else if (why)
			scenario_error_at(diags, s->filename, o->line, "%s %s", order_kind_keyword(o->kind), why);
	}
}

static void resolve_battle_section(const struct scenario *s, struct scenario_section *sec,
				   const struct campaign *c, struct diag_list *diags)
{
	/* The header names the battle: the report is parsed as if it began
	 * with BATTLE AT, which is line 0 of the section. */
	char *text = xasprintf("BATTLE AT \"%s\"\n%s", c->provinces[sec->province].name,
			       sec->body ? sec->body : "");
	orders_set_free(&sec->orders);
	orders_parse(text, c, NO_INDEX, &sec->orders);
	free(text);
	bool decided = false;
	for (size_t i = 0; i < sec->orders.count; i++) {
		struct order *o = &sec->orders.orders[i];
		bool header = o->line == 1;
		o->line += sec->line - 1;
		if (header)
			continue;
		if (o->status != ORDER_OK && (o->kind == ORDER_NONE || is_battle_kind(o->kind))) {
			report_order_error(diags, s->filename, o);
			continue;
		}
		if (o->kind == ORDER_BATTLE_AT)
			scenario_error_at(diags, s->filename, o->line,
					  "a [battle] section holds one battle: start a new section for another");
		else if (!is_battle_kind(o->kind))
			scenario_error_at(diags, s->filename, o->line,
					  "%s is not a battle result (WINNER, CONCEDED BY, WITHDRAWAL BY, "
					  "DEMORALISED, DESTROYED, FLED, WITHDRAWN, GENERAL KILLED)",
					  order_kind_keyword(o->kind));
		else if (o->kind == ORDER_BATTLE_WINNER || o->kind == ORDER_BATTLE_CONCEDED ||
			 o->kind == ORDER_BATTLE_WITHDRAWAL)
			decided = true;
	}
	if (!decided)
		scenario_error_at(diags, s->filename, sec->line,
				  "the battle at %s needs a WINNER, CONCEDED BY or WITHDRAWAL BY line",
				  c->provinces[sec->province].name);
}

static void resolve_phase(const struct scenario *s, struct scenario_phase *ph,
			  const struct campaign *c, struct diag_list *diags)
{
	if (ph->sequence_names) {
		ph->sequence = xcalloc(ph->sequence_count, sizeof *ph->sequence);
		for (size_t k = 0; k < ph->sequence_count; k++) {
			int pl = lookup_player(c, ph->sequence_names[k], diags, s->filename,
					       ph->sequence_line);
			ph->sequence[k] = pl;
			for (size_t j = 0; j < k && pl >= 0; j++)
				if (ph->sequence[j] == pl)
					scenario_error_at(diags, s->filename, ph->sequence_line,
							  "%s is twice in the sequence", c->players[pl].key);
		}
	}
	for (size_t k = 0; k < ph->section_count; k++) {
		struct scenario_section *sec = &ph->sections[k];
		if (sec->kind == SCENARIO_BATTLE) {
			sec->province = lookup_province(c, sec->name, diags, s->filename, sec->line);
			if (sec->province >= 0)
				resolve_battle_section(s, sec, c, diags);
			continue;
		}
		sec->player = lookup_player(c, sec->name, diags, s->filename, sec->line);
		if (sec->player < 0)
			continue;
		for (size_t j = 0; j < k; j++)
			if (ph->sections[j].kind == SCENARIO_PLAYER &&
			    ph->sections[j].player == sec->player) {
				scenario_error_at(diags, s->filename, sec->line,
						  "a second [%s] section in [year %d %s] (the first is at line %d)",
						  sec->name, ph->year, campaign_phase_name(ph->phase),
						  ph->sections[j].line);
				sec->player = NO_INDEX;
				break;
			}
		if (sec->player >= 0)
			resolve_player_section(s, ph, sec, c, diags);
	}
}

/* The years in turn; an omitted recruitment phase before a later year is
 * added (empty). */
static void check_years(struct scenario *s, const struct campaign *c, struct diag_list *diags)
{
	size_t n = s->phase_count;
	struct scenario_phase *out = xcalloc(2 * n + 1, sizeof *out);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct scenario_phase *ph = &s->phases[i];
		const struct scenario_phase *prev = m ? &out[m - 1] : NULL;
		int first_year = s->start_year ? s->start_year : c->start_year;
		int want_year = prev ? (prev->phase == PHASE_CAMPAIGN ? prev->year : prev->year + 1)
				     : first_year;
		if (prev && prev->phase == PHASE_CAMPAIGN && ph->phase == PHASE_CAMPAIGN &&
		    ph->year == prev->year + 1) {
			struct scenario_phase *gap = &out[m++];
			memset(gap, 0, sizeof *gap);
			gap->year = prev->year;
			gap->phase = PHASE_RECRUITMENT;
			want_year = ph->year;
		}
		int want_phase = prev && prev->phase == PHASE_CAMPAIGN && ph->year == prev->year
					 ? PHASE_RECRUITMENT
					 : PHASE_CAMPAIGN;
		if (ph->year != want_year || ph->phase != want_phase) {
			if (!prev)
				scenario_error_at(diags, s->filename, ph->line,
						  "the scenario starts with [year %d campaign], %s",
						  first_year, s->start_year ? "the year of [start]"
									    : "the campaign's first year");
			else
				scenario_error_at(diags, s->filename, ph->line,
						  "[year %d %s] cannot follow [year %d %s]: each year is played in turn, its campaign phase first",
						  ph->year, campaign_phase_name(ph->phase), prev->year,
						  campaign_phase_name(prev->phase));
		}
		out[m++] = *ph;
	}
	free(s->phases);
	s->phases = out;
	s->phase_count = m;
	s->phase_cap = 2 * n + 1;
}

size_t scenario_resolve(struct scenario *s, const struct campaign *c, struct diag_list *diags)
{
	size_t before = diags->errors;
	if (s->start_year && s->start_year < c->start_year)
		scenario_error_at(diags, s->filename, s->start_line,
				  "[start]: year %d is before the campaign's first year, %d",
				  s->start_year, c->start_year);
	if (s->start_line) {
		/* checked now on a copy; set on the campaign when the run begins */
		json_t *doc = campaign_to_json(c);
		char *err = NULL;
		struct campaign *copy = campaign_from_json(doc, &err);
		json_decref(doc);
		free(err);
		if (copy)
			scenario_start_apply(s, copy, diags);
		campaign_free(copy);
	}
	check_years(s, c, diags);
	for (size_t i = 0; i < s->phase_count; i++)
		resolve_phase(s, &s->phases[i], c, diags);
	return diags->errors - before;
}
