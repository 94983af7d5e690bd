/* Scenarios: a campaign played offline from a script (doc/scenario.md). */
#include "config.h"

#include "engine/scenario.h"

#include "dbm/rules.h"
#include "base/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
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
};

static void error_at(struct diag_list *diags, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void error_at(struct diag_list *diags, const char *file, int line, const char *fmt, ...)
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
			error_at(p->diags, file, line,
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
		error_at(p->diags, file, line, battle ? "write [battle PROVINCE], e.g. [battle Liège]"
						      : "an empty section header");
		return;
	}
	if (!p->phase) {
		error_at(p->diags, file, line,
			 "[%s] must follow a [year N campaign] or [year N recruitment] header", inside);
		return;
	}
	if (battle && p->phase->phase != PHASE_CAMPAIGN) {
		error_at(p->diags, file, line, "battles are fought in the campaign phase: put [%s] "
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
			error_at(p->diags, s->filename, line, "\"%.*s\" is not a die: dice are 1 to 6",
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
		error_at(p->diags, s->filename, line,
			 p->phase ? "expected \"sequence = player, ...\" or a [player] section"
				  : "expected \"key = value\" (campaign, dice or seed) before the first [year] section");
		return;
	}
	*eq = '\0';
	char *key = str_trim(text), *value = str_trim(eq + 1);
	if (p->phase) {
		if (strcasecmp(key, "sequence") != 0) {
			error_at(p->diags, s->filename, line, "unknown key \"%s\" in a [year] section "
				 "(only \"sequence\")", key);
			return;
		}
		if (p->phase->phase != PHASE_CAMPAIGN) {
			error_at(p->diags, s->filename, line,
				 "the sequence of play belongs to the campaign phase");
			return;
		}
		if (p->phase->sequence_names) {
			error_at(p->diags, s->filename, line, "a second sequence for year %d",
				 p->phase->year);
			return;
		}
		p->phase->sequence_count = split_list(value, &p->phase->sequence_names);
		p->phase->sequence_line = line;
		if (p->phase->sequence_count == 0)
			error_at(p->diags, s->filename, line, "the sequence names no player");
		return;
	}
	if (strcasecmp(key, "campaign") == 0) {
		if (p->have_campaign)
			error_at(p->diags, s->filename, line, "a second \"campaign =\" line");
		else if (!*value)
			error_at(p->diags, s->filename, line, "\"campaign =\" needs the campaign file");
		else {
			s->campaign_path = xstrdup(value);
			s->campaign_line = line;
			p->have_campaign = true;
		}
	} else if (strcasecmp(key, "dice") == 0) {
		parse_dice(p, value, line);
	} else if (strcasecmp(key, "seed") == 0) {
		if (p->have_seed_line)
			error_at(p->diags, s->filename, line, "a second \"seed =\" line");
		else if (!dice_seed_from_hex(value, s->seed))
			error_at(p->diags, s->filename, line, "a seed is 64 hexadecimal digits");
		else
			s->has_seed = true;
		p->have_seed_line = true;
	} else {
		error_at(p->diags, s->filename, line,
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
			error_at(diags, s->filename, line, "a NUL byte: not a text file");
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
				error_at(diags, s->filename, line, "a section header ends with ]");
			else {
				*close = '\0';
				parse_header(&p, trimmed + 1, line);
			}
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
		error_at(diags, s->filename, 0, "no \"campaign = FILE\" line names the campaign file");
	if (s->has_seed && s->dice_count)
		error_at(diags, s->filename, s->dice_line,
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
		error_at(diags, file, line, "unknown player \"%s\" (did you mean \"%s\"?)", name,
			 c->players[(size_t)suggestion % n].key);
	else
		error_at(diags, file, line, "unknown player \"%s\"", name);
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
		error_at(diags, file, line, "unknown province \"%s\" (did you mean \"%s\"?)", name,
			 c->provinces[suggestion].name);
	else
		error_at(diags, file, line, "unknown province \"%s\"", name);
	return NO_INDEX;
}

static bool is_route_kind(enum order_kind k)
{
	return k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT;
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
	case ORDER_RECALL_CONTINGENTS:
		return phase == PHASE_CAMPAIGN ? NULL : "belongs in a [year N campaign] section";
	case ORDER_RECRUIT: case ORDER_DISMISS: case ORDER_RENOUNCE:
		return phase == PHASE_RECRUITMENT ? NULL
						   : "belongs in a [year N recruitment] section";
	case ORDER_LOSSES_FIRST:
		*warn = true;
		return "is not applied by the simulation: losses use the default pick of doc/rules.md";
	case ORDER_ANSWER_ALLIES: case ORDER_CONTINGENT_FOR:
		*warn = true;
		return "is not simulated: allies' contingents are sent with SEND CONTINGENT";
	case ORDER_PASSWORD: case ORDER_STATUS: case ORDER_MAP: case ORDER_HELP:
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
		error_at(diags, file, o->line, "not an order: \"%s\"", o->text ? o->text : "");
	else if (o->guess)
		error_at(diags, file, o->line, "%s (perhaps: %s)", o->error ? o->error : "not understood",
			 o->guess);
	else
		error_at(diags, file, o->line, "%s", o->error ? o->error : "not understood");
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
			error_at(diags, s->filename, o->line, "%s belongs in a [battle PROVINCE] section",
				 order_kind_keyword(o->kind));
			continue;
		}
		if (o->status != ORDER_OK) {
			if (!(o->status == ORDER_ERROR && is_route_kind(o->kind)))
				report_order_error(diags, s->filename, o);
			continue;
		}
		bool warn;
		const char *why = kind_placement(o->kind, ph->phase, &warn);
		if (why && warn)
			diag_add(diags, DIAG_WARNING, s->filename, o->line, "%s %s",
				 order_kind_keyword(o->kind), why);
		else if (why)
			error_at(diags, s->filename, o->line, "%s %s", order_kind_keyword(o->kind), why);
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
			error_at(diags, s->filename, o->line,
				 "a [battle] section holds one battle: start a new section for another");
		else if (!is_battle_kind(o->kind))
			error_at(diags, s->filename, o->line,
				 "%s is not a battle result (WINNER, CONCEDED BY, WITHDRAWAL BY, "
				 "DEMORALISED, DESTROYED, FLED, WITHDRAWN, GENERAL KILLED)",
				 order_kind_keyword(o->kind));
		else if (o->kind == ORDER_BATTLE_WINNER || o->kind == ORDER_BATTLE_CONCEDED ||
			 o->kind == ORDER_BATTLE_WITHDRAWAL)
			decided = true;
	}
	if (!decided)
		error_at(diags, s->filename, sec->line,
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
					error_at(diags, s->filename, ph->sequence_line,
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
				error_at(diags, s->filename, sec->line,
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
		int want_year = prev ? (prev->phase == PHASE_CAMPAIGN ? prev->year : prev->year + 1)
				     : c->start_year;
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
				error_at(diags, s->filename, ph->line,
					 "the scenario starts with [year %d campaign], the campaign's first year",
					 c->start_year);
			else
				error_at(diags, s->filename, ph->line,
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
	check_years(s, c, diags);
	for (size_t i = 0; i < s->phase_count; i++)
		resolve_phase(s, &s->phases[i], c, diags);
	return diags->errors - before;
}

/* ------------------------------------------------------------- dice */

/* Fixed values that never abort: a roll with no value left is remembered
 * (with the length of the log before it) and the run stops after the
 * rules call that made it. Or the verifiable roller. */
struct scenario_dice {
	struct dice base;
	const int *values;
	size_t count, next;
	bool seeded;
	struct dice_hmac hmac;
	const struct event_log *log;
	bool ran_out;
	size_t ran_out_events;
	char *ran_out_purpose;
};

static int scenario_dice_roll(struct dice *base, const char *purpose)
{
	struct scenario_dice *d = (struct scenario_dice *)base;
	if (d->seeded) {
		d->hmac.base.year = base->year;
		d->hmac.base.phase = base->phase;
		d->hmac.base.counter = base->counter;
		int v = d->hmac.base.roll(&d->hmac.base, purpose);
		base->counter = d->hmac.base.counter;
		return v;
	}
	base->counter++;
	if (d->next < d->count)
		return d->values[d->next++];
	if (!d->ran_out) {
		d->ran_out = true;
		d->ran_out_events = d->log->count;
		d->ran_out_purpose = xstrdup(purpose);
	}
	/* Not a 6: the sequence of play throws high numbers away and rolls
	 * again, so a 6 could loop for ever. The rules call finishes and the
	 * run stops after it. */
	return 1;
}

/* ---------------------------------------------------------------- run */

/* A player's standing orders: borrowed from the scenario's sections, the
 * latest last (a later order of the same kind replaces an earlier one). */
struct standing {
	const struct order **orders;
	size_t count, cap;
};

struct run {
	const struct scenario *s;
	struct campaign *c;
	const struct scenario_options *opt;
	struct event_log *log;
	struct diag_list *diags;
	struct scenario_dice dice;
	struct standing *standing;      /* per player */
	const struct scenario_phase *phase;
	bool *battle_used;              /* per section of the phase */
	int *entered_from;              /* per player: where its army came from this turn */
	bool *permission;               /* per player: scratch for passage and supply */
	enum scenario_status status;
	bool stop;
};

static const char *key_of(const struct campaign *c, int player)
{
	return player >= 0 && (size_t)player < c->player_count ? c->players[player].key
								: "neutral";
}

static const char *province_of(const struct campaign *c, int province)
{
	return province >= 0 && (size_t)province < c->province_count ? c->provinces[province].name
								     : "nowhere";
}

static bool active(const struct campaign *c, int player)
{
	return player >= 0 && (size_t)player < c->player_count &&
	       c->players[player].status == PLAYER_ACTIVE;
}

/* A refused order: reported; the run stops unless keep_going. Returns
 * true if the run goes on. */
static bool refused(struct run *r, int line, int player, const char *what, const char *reason)
{
	error_at(r->diags, r->s->filename, line, "%s: %s refused: %s", key_of(r->c, player), what,
		 reason);
	if (r->status == SCENARIO_OK)
		r->status = SCENARIO_REFUSED;
	if (!r->opt->keep_going) {
		r->stop = true;
		return false;
	}
	event_emit(r->log, "order_refused", "scenario", "{s:s, s:i, s:s, s:s}", "player",
		   key_of(r->c, player), "line", line, "order", what, "reason", reason);
	return true;
}

static void fail(struct run *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct run *r, int line, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = {0};
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	error_at(r->diags, r->s->filename, line, "%s", sb.data ? sb.data : "");
	strbuf_free(&sb);
	r->status = SCENARIO_FAILED;
	r->stop = true;
}

/* After every rules call that may roll: false (and the run stops) if the
 * fixed dice ran out. */
static bool dice_ok(struct run *r)
{
	struct scenario_dice *d = &r->dice;
	if (!d->ran_out)
		return true;
	if (r->stop && r->status == SCENARIO_FAILED)
		return false;
	while (r->log->count > d->ran_out_events)
		json_decref(r->log->events[--r->log->count]);
	fail(r, r->s->dice_line,
	     "the dice ran out: the roll for \"%s\" in %d (%s phase) needs a value beyond the %zu given",
	     d->ran_out_purpose, r->c->year, campaign_phase_name(r->c->phase), d->count);
	return false;
}

/* -------------------------------------------------- standing orders */

static void standing_add(struct standing *st, const struct order *o)
{
	grow_array((void **)&st->orders, &st->cap, st->count + 1, sizeof *st->orders);
	st->orders[st->count++] = o;
}

/* At the start of a phase: every section's orders join the players'
 * standing orders (CLEAR drops the earlier ones). */
static void standing_merge(struct run *r, const struct scenario_phase *ph)
{
	for (size_t k = 0; k < ph->section_count; k++) {
		const struct scenario_section *sec = &ph->sections[k];
		if (sec->kind != SCENARIO_PLAYER || sec->player < 0)
			continue;
		struct standing *st = &r->standing[sec->player];
		for (size_t i = 0; i < sec->orders.count; i++)
			if (sec->orders.orders[i].status == ORDER_OK &&
			    sec->orders.orders[i].kind == ORDER_CLEAR)
				st->count = 0;
		for (size_t i = 0; i < sec->orders.count; i++) {
			const struct order *o = &sec->orders.orders[i];
			if (o->status == ORDER_OK && order_kind_is_kept(o->kind) &&
			    !is_route_kind(o->kind))
				standing_add(st, o);
		}
	}
}

static const struct order *standing_last(const struct run *r, int player, enum order_kind kind)
{
	const struct standing *st = &r->standing[player];
	for (size_t i = st->count; i-- > 0;)
		if (st->orders[i]->kind == kind)
			return st->orders[i];
	return NULL;
}

static enum storm_choice storm_choice_of(const struct run *r, int player)
{
	const struct order *o = standing_last(r, player, ORDER_IN_STORM);
	if (o && o->choice == CHOICE_HALT)
		return STORM_HALT;
	if (o && o->choice == CHOICE_RETURN)
		return STORM_RETURN;
	return STORM_CONTINUE;
}

/* Does `giver` permit `player` (passage or supply)? A named order beats an
 * earlier ALL; a later ALL replaces the named ones; silence denies. */
static bool permits(const struct run *r, int giver, int player, enum order_kind allow,
		    enum order_kind deny)
{
	const struct standing *st = &r->standing[giver];
	long named = -1, all = -1;
	bool named_allows = false, all_allows = false;
	for (size_t i = 0; i < st->count; i++) {
		const struct order *o = st->orders[i];
		if (o->kind != allow && o->kind != deny)
			continue;
		if (o->target == player) {
			named = (long)i;
			named_allows = o->kind == allow;
		} else if (o->target == ORDERS_ANY) {
			all = (long)i;
			all_allows = o->kind == allow;
		}
	}
	if (named >= 0 && named > all)
		return named_allows;
	return all >= 0 && all_allows;
}

static const bool *permissions(struct run *r, int player, enum order_kind allow,
			       enum order_kind deny)
{
	for (size_t q = 0; q < r->c->player_count; q++)
		r->permission[q] = (int)q != player && permits(r, (int)q, player, allow, deny);
	return r->permission;
}

/* ------------------------------------------------------------ turns */

static bool supply_check(struct run *r, int player, bool forced_passage)
{
	if (!active(r->c, player) || r->c->players[player].location < 0)
		return true;
	const bool *supply = permissions(r, player, ORDER_ALLOW_SUPPLY, ORDER_DENY_SUPPLY);
	rules_supply_check(r->c, player, supply, forced_passage, NULL, &r->dice.base, r->log);
	return dice_ok(r);
}

static void siege_round(struct run *r, int besieger, int province, int line)
{
	struct rules_reason why;
	bool captured;
	if (rules_siege_round(r->c, besieger, province, NULL, &r->dice.base, r->log, &captured,
			      &why) != RULES_OK) {
		char *what = xasprintf("siege of %s", province_of(r->c, province));
		refused(r, line, besieger, what, why.text);
		free(what);
		return;
	}
	dice_ok(r);
}

/* The party of a player in a battle: its field army if it fights, else its
 * first contingent there; -1 if it has no force in the battle. */
static int party_of(const struct battle_party *parties, size_t n, int player)
{
	int found = -1;
	for (size_t i = 0; i < n; i++)
		if (parties[i].player == player) {
			if (parties[i].contingent == NO_INDEX)
				return (int)i;
			if (found < 0)
				found = (int)i;
		}
	return found;
}

struct party_counts {
	int *destroyed, *fled, *withdrawn, *killed;
};

/* The retreat choice: the first RETREAT PREFER province that is among the
 * nearest friendly ones. */
static int retreat_choice_of(struct run *r, int loser, int forbidden, const bool *allies)
{
	const struct order *o = standing_last(r, loser, ORDER_RETREAT_PREFER);
	int from = r->c->players[loser].location;
	for (size_t i = 0; o && i < o->via_count; i++) {
		int stages;
		if (rules_retreat_destination(r->c, loser, from, forbidden, allies, o->via[i],
					      &stages) == o->via[i])
			return o->via[i];
	}
	return NO_INDEX;
}

static void battle(struct run *r, int invader, int defender, int province, int line)
{
	struct campaign *c = r->c;
	const struct scenario_phase *ph = r->phase;
	const struct scenario_section *sec = NULL;
	for (size_t k = 0; k < ph->section_count && !sec; k++)
		if (ph->sections[k].kind == SCENARIO_BATTLE && ph->sections[k].province == province &&
		    !r->battle_used[k]) {
			sec = &ph->sections[k];
			r->battle_used[k] = true;
		}
	if (!sec) {
		fail(r, line, "%s and %s give battle at %s: the scenario needs a [battle %s] section in [year %d campaign]",
		     key_of(c, invader), key_of(c, defender), province_of(c, province),
		     province_of(c, province), ph->year);
		return;
	}
	size_t cap = 2 + c->contingent_count;
	struct battle_party *parties = xcalloc(cap, sizeof *parties);
	struct party_counts *counts = xcalloc(cap, sizeof *counts);
	size_t n = 0;
	int mains[2] = {invader, defender};
	for (int side = 0; side < 2; side++) {
		const struct player *p = &c->players[mains[side]];
		int commands = troops_generals(&p->list, &p->field);
		parties[n].player = mains[side];
		parties[n].side = side;
		parties[n].contingent = NO_INDEX;
		parties[n].commands = commands < 1 ? 1 : commands > MAX_GENERALS ? MAX_GENERALS
										 : commands;
		n++;
	}
	for (size_t i = 0; i < c->contingent_count && !r->stop; i++) {
		int with = c->contingents[i].with_player;
		if (with != invader && with != defender)
			continue;
		bool arrived = rules_contingent_arrival(c, (int)i, &r->dice.base, r->log);
		if (!dice_ok(r) || !arrived)
			continue;
		parties[n].player = c->contingents[i].owner;
		parties[n].side = with == invader ? 0 : 1;
		parties[n].contingent = (int)i;
		parties[n].commands = 1;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		size_t types = c->players[parties[i].player].list.count + 1;
		counts[i].destroyed = xcalloc(types, sizeof(int));
		counts[i].fled = xcalloc(types, sizeof(int));
		counts[i].withdrawn = xcalloc(types, sizeof(int));
		counts[i].killed = xcalloc(types, sizeof(int));
	}
	int winner_side = -1;
	enum battle_end how = BATTLE_DEMORALISED;
	bool *cinc_named = xcalloc(n ? n : 1, sizeof *cinc_named);
	for (size_t k = 0; k < sec->orders.count && !r->stop; k++) {
		const struct order *o = &sec->orders.orders[k];
		if (o->status != ORDER_OK || o->kind == ORDER_BATTLE_AT)
			continue;
		int pi = party_of(parties, n, o->target);
		if (pi < 0) {
			fail(r, o->line, "%s has no force in the battle at %s", key_of(c, o->target),
			     province_of(c, province));
			break;
		}
		struct battle_party *bp = &parties[pi];
		struct party_counts *pc = &counts[pi];
		switch (o->kind) {
		case ORDER_BATTLE_WINNER:
			winner_side = bp->side;
			break;
		case ORDER_BATTLE_CONCEDED:
		case ORDER_BATTLE_WITHDRAWAL:
			winner_side = 1 - bp->side;
			how = o->kind == ORDER_BATTLE_CONCEDED ? BATTLE_CONCEDED : BATTLE_WITHDRAWAL;
			break;
		case ORDER_BATTLE_DESTROYED:
			pc->destroyed[o->type] += o->count;
			break;
		case ORDER_BATTLE_FLED:
			pc->fled[o->type] += o->count;
			break;
		case ORDER_BATTLE_WITHDRAWN:
			pc->withdrawn[o->type] += o->count;
			break;
		case ORDER_BATTLE_GENERAL_KILLED:
			pc->killed[o->type]++;
			break;
		case ORDER_BATTLE_DEMORALISED: {
			int cinc = orders_cinc_type(&c->players[bp->player]);
			for (size_t j = 0; j < o->item_count; j++) {
				if (bp->contingent == NO_INDEX && o->items[j].type == cinc &&
				    !cinc_named[pi]) {
					cinc_named[pi] = true;
					bp->c_in_c_demoralised = true;
				} else {
					bp->others_demoralised++;
				}
			}
			break;
		}
		default:
			break;
		}
	}
	struct rules_reason why;
	if (!r->stop) {
		for (size_t i = 0; i < n; i++) {
			const struct army_list *l = &c->players[parties[i].player].list;
			for (size_t t = 0; t < l->count; t++)
				if (counts[i].killed[t] > counts[i].destroyed[t])
					counts[i].destroyed[t] = counts[i].killed[t];
			parties[i].destroyed = counts[i].destroyed;
			parties[i].fled = counts[i].fled;
			parties[i].withdrawn = counts[i].withdrawn;
		}
		int loser = mains[1 - winner_side];
		bool *allies = xcalloc(c->player_count, sizeof *allies);
		for (size_t i = 0; i < n; i++)
			if (parties[i].side != winner_side)
				allies[parties[i].player] = true;
		struct battle_result br = {
			.province = province, .winner_side = winner_side, .how = how,
			.parties = parties, .party_count = n,
			.enemy_came_from = r->entered_from[mains[winner_side]],
			.retreat_on_storm = storm_choice_of(r, loser),
		};
		br.retreat_choice = retreat_choice_of(r, loser, br.enemy_came_from, allies);
		free(allies);
		if (rules_apply_battle_result(c, &br, &r->dice.base, r->log, &why) != RULES_OK) {
			char *what = xasprintf("the battle report for %s", province_of(c, province));
			refused(r, sec->line, loser, what, why.text);
			free(what);
		} else {
			dice_ok(r);
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(counts[i].destroyed);
		free(counts[i].fled);
		free(counts[i].withdrawn);
		free(counts[i].killed);
	}
	free(cinc_named);
	free(counts);
	free(parties);
}

/* The defender's standing choice for an invaded province: IF INVADED for
 * that province, else for ANY; NULL if none. */
static const struct order *if_invaded(const struct run *r, int defender, int province)
{
	const struct standing *st = &r->standing[defender];
	const struct order *any = NULL;
	for (size_t i = st->count; i-- > 0;) {
		const struct order *o = st->orders[i];
		if (o->kind != ORDER_IF_INVADED)
			continue;
		if (o->province == province)
			return o;
		if (o->province == ORDERS_ANY && !any)
			any = o;
	}
	return any;
}

/* The province a force came from to reach the end of `path`. */
static int came_from(int start, const int *path, size_t stages)
{
	if (stages == 0)
		return NO_INDEX;
	return stages >= 2 ? path[stages - 2] : start;
}

static void defence(struct run *r, int invader, int defender, int province, int line)
{
	struct campaign *c = r->c;
	const struct order *o = if_invaded(r, defender, province);
	int at = c->players[defender].location;
	struct defence_order d = {
		.player = defender, .province = province, .choice = DEFEND_SIEGE,
		.on_storm = storm_choice_of(r, defender), .force_passage = true,
		.passage = permissions(r, defender, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	int goal = NO_INDEX;
	if (o && o->choice == CHOICE_BATTLE) {
		d.choice = DEFEND_BATTLE;
		goal = province;
	} else if (o && o->choice == CHOICE_RETREAT) {
		goal = o->retreat_to;
	}
	int *path = xcalloc(c->province_count + 1, sizeof *path);
	if (goal >= 0 && at >= 0 && at != goal) {
		int stages = rules_shortest_path(c, defender, at, goal, path, c->province_count);
		if (stages > 0) {
			d.path = path;
			d.stages = (size_t)stages;
		}
	}
	struct rules_reason why;
	bool battle_given = false;
	if (rules_defend(c, &d, &r->dice.base, r->log, &why) != RULES_OK) {
		char *what = xasprintf("the defence of %s (%s)", province_of(c, province),
				       o ? "IF INVADED" : "standing siege");
		bool go_on = refused(r, o ? o->line : line, defender, what, why.text);
		free(what);
		if (!go_on) {
			free(path);
			return;
		}
	} else {
		if (!dice_ok(r)) {
			free(path);
			return;
		}
		if (d.stages && c->players[defender].location == province)
			r->entered_from[defender] = came_from(at, d.path, d.stages);
		battle_given = d.choice == DEFEND_BATTLE;
	}
	free(path);
	if (battle_given && active(c, defender) && c->players[defender].location == province &&
	    c->players[invader].location == province)
		battle(r, invader, defender, province, line);
	else if (active(c, invader) && c->players[invader].location == province)
		siege_round(r, invader, province, line);
}

static void invasion(struct run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	size_t stages = o->route_len > 1 ? o->route_len - 1 : 0;
	int start = c->players[player].location;
	struct invasion_order io = {
		.player = player, .target = o->province,
		.path = stages ? o->route + 1 : NULL, .stages = stages,
		.on_storm = storm_choice_of(r, player), .force_passage = true,
		.passage = permissions(r, player, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	struct move_outcome out;
	struct rules_reason why;
	bool arrived = false;
	if (rules_invade(c, &io, &r->dice.base, r->log, &out, &arrived, &why) != RULES_OK) {
		char *what = xasprintf("INVADE %s", province_of(c, o->province));
		refused(r, o->line, player, what, why.text);
		free(what);
		return;
	}
	if (!dice_ok(r))
		return;
	r->entered_from[player] = came_from(start, io.path, stages);
	if (!supply_check(r, player, out.forced_passage))
		return;
	if (!arrived || !active(c, player) || c->players[player].location != o->province)
		return;
	int owner = c->provinces[o->province].owner;
	if (active(c, owner) && owner != player)
		defence(r, player, owner, o->province, o->line);
	else
		siege_round(r, player, o->province, o->line);
}

static void field_move(struct run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	struct move_order mo = {
		.player = player, .contingent = NO_INDEX, .kind = MOVE_FRIENDLY,
		.path = o->route_len > 1 ? o->route + 1 : NULL,
		.stages = o->route_len > 1 ? o->route_len - 1 : 0,
		.on_storm = storm_choice_of(r, player), .force_passage = true,
		.passage = permissions(r, player, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	struct move_outcome out;
	struct rules_reason why;
	if (rules_field_move(c, &mo, &r->dice.base, r->log, &out, &why) != RULES_OK) {
		char *what = xasprintf("MOVE %s", province_of(c, o->province));
		refused(r, o->line, player, what, why.text);
		free(what);
		return;
	}
	if (dice_ok(r))
		supply_check(r, player, out.forced_passage);
}

static void send_contingent(struct run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	const struct army_list *l = &c->players[player].list;
	int *troops = xcalloc(l->count + 1, sizeof *troops);
	for (size_t i = 0; i < o->item_count; i++)
		if (o->items[i].type >= 0 && (size_t)o->items[i].type < l->count)
			troops[o->items[i].type] += o->items[i].count;
	struct contingent_order co = {
		.owner = player, .to_player = o->target, .troops = troops,
		.path = o->route_len > 1 ? o->route + 1 : NULL,
		.stages = o->route_len > 1 ? o->route_len - 1 : 0,
		.on_storm = storm_choice_of(r, player), .force_passage = true,
		.passage = permissions(r, player, ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE),
	};
	struct rules_reason why;
	int index;
	if (rules_contingent_send(c, &co, &r->dice.base, r->log, &index, &why) != RULES_OK) {
		char *what = xasprintf("SEND CONTINGENT TO %s", key_of(c, o->target));
		refused(r, o->line, player, what, why.text);
		free(what);
	} else {
		dice_ok(r);
	}
	free(troops);
}

static const struct scenario_section *player_section(const struct scenario_phase *ph, int player)
{
	for (size_t k = 0; k < ph->section_count; k++)
		if (ph->sections[k].kind == SCENARIO_PLAYER && ph->sections[k].player == player)
			return &ph->sections[k];
	return NULL;
}

static bool leave(struct run *r, int player, const struct order *o)
{
	if (o->kind != ORDER_LEAVE || !o->confirmed)
		return false;
	struct rules_reason why;
	if (rules_player_leaves(r->c, player, o->arg != NULL, r->log, &why) != RULES_OK)
		refused(r, o->line, player, "LEAVE CAMPAIGN", why.text);
	return !active(r->c, player);
}

static void turn(struct run *r, int player)
{
	struct campaign *c = r->c;
	const struct scenario_section *sec = player_section(r->phase, player);
	r->entered_from[player] = NO_INDEX;
	if (!sec)
		return;
	/* Routes are planned from where the armies stand now. */
	struct order_set now;
	orders_parse(sec->body, c, player, &now);
	for (size_t i = 0; i < now.count; i++)
		now.orders[i].line += sec->line;
	for (size_t i = 0; i < now.count && !r->stop; i++) {
		struct order *o = &now.orders[i];
		if (o->status == ORDER_ERROR && is_route_kind(o->kind))
			refused(r, o->line, player, order_kind_keyword(o->kind),
				o->error ? o->error : "not understood");
	}
	struct rules_reason why;
	for (size_t i = 0; i < now.count && !r->stop; i++) {
		const struct order *o = &now.orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (leave(r, player, o)) {
			orders_set_free(&now);
			return;
		}
		if (o->kind == ORDER_RETRIEVE_GENERAL) {
			if (rules_retrieve_general(c, player, o->type, NULL, r->log, &why) != RULES_OK)
				refused(r, o->line, player, "RETRIEVE GENERAL", why.text);
		} else if (o->kind == ORDER_RECALL_CONTINGENTS) {
			for (size_t k = 0; k < c->contingent_count && !r->stop; k++)
				if (c->contingents[k].owner == player && !c->contingents[k].returning) {
					rules_contingent_recall(c, (int)k, &r->dice.base, r->log, NULL);
					dice_ok(r);
				}
		}
	}
	for (size_t i = 0; i < now.count && !r->stop && active(c, player); i++) {
		const struct order *o = &now.orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (o->kind == ORDER_INVADE)
			invasion(r, player, o);
		else if (o->kind == ORDER_MOVE)
			field_move(r, player, o);
		else if (o->kind == ORDER_SEND_CONTINGENT)
			send_contingent(r, player, o);
	}
	orders_set_free(&now);
}

/* TRIBUTARY OF requests, accepted if the overlord's standing orders
 * accept that player. */
static void tributary_requests(struct run *r, const struct scenario_phase *ph)
{
	for (size_t k = 0; k < ph->section_count && !r->stop; k++) {
		const struct scenario_section *sec = &ph->sections[k];
		if (sec->kind != SCENARIO_PLAYER || sec->player < 0 || !active(r->c, sec->player))
			continue;
		for (size_t i = 0; i < sec->orders.count && !r->stop; i++) {
			const struct order *o = &sec->orders.orders[i];
			if (o->status != ORDER_OK || o->kind != ORDER_TRIBUTARY_OF)
				continue;
			bool accepted = false;
			const struct standing *st = &r->standing[o->target];
			for (size_t j = 0; j < st->count; j++)
				if (st->orders[j]->kind == ORDER_ACCEPT_TRIBUTARY &&
				    st->orders[j]->target == sec->player)
					accepted = true;
			struct rules_reason why;
			if (rules_tributary_request(r->c, sec->player, o->target, accepted, r->log,
						    &why) != RULES_OK)
				refused(r, o->line, sec->player, "TRIBUTARY OF", why.text);
		}
	}
}

static void campaign_phase(struct run *r, const struct scenario_phase *ph)
{
	struct campaign *c = r->c;
	r->dice.base.counter = 0; /* each year's rolls are numbered from 1, as in play */
	int *order = xcalloc(c->player_count + 1, sizeof *order);
	size_t n = 0;
	if (ph->sequence) {
		rules_year_prepare(c, &r->dice.base, r->log);
		json_t *keys = json_array();
		for (size_t k = 0; k < ph->sequence_count; k++)
			if (active(c, ph->sequence[k])) {
				order[n++] = ph->sequence[k];
				json_array_append_new(keys, json_string(key_of(c, ph->sequence[k])));
			}
		event_emit(r->log, "sequence_of_play", RULE_GAME_YEAR, "{s:o, s:b}", "order", keys,
			   "fixed", 1);
		for (size_t p = 0; p < c->player_count; p++) {
			bool listed = false;
			for (size_t k = 0; k < n; k++)
				listed |= order[k] == (int)p;
			if (active(c, (int)p) && !listed)
				fail(r, ph->sequence_line, "the sequence of %d leaves out %s", ph->year,
				     key_of(c, (int)p));
		}
	} else {
		n = rules_year_begin(c, &r->dice.base, r->log, order);
		dice_ok(r);
	}
	standing_merge(r, ph);
	tributary_requests(r, ph);
	for (size_t k = 0; k < n && !r->stop; k++) {
		if (!active(c, order[k]))
			continue;
		turn(r, order[k]);
		if (!r->stop)
			rules_contingent_rejoin_returning(c, NO_INDEX, r->log);
	}
	free(order);
	for (size_t k = 0; k < ph->section_count && !r->stop; k++)
		if (ph->sections[k].kind == SCENARIO_BATTLE && !r->battle_used[k])
			fail(r, ph->sections[k].line, "no battle was fought at %s in %d",
			     province_of(c, ph->sections[k].province), ph->year);
}

static void add_counts(const struct order *o, enum order_kind kind, int *counts)
{
	if (o->kind == kind && o->type >= 0)
		counts[o->type] += kind == ORDER_RETRIEVE_GENERAL ? 1 : o->count;
}

static void recruitment_phase(struct run *r, const struct scenario_phase *ph)
{
	struct campaign *c = r->c;
	rules_recruitment_begin(c, &r->dice.base, r->log);
	standing_merge(r, ph);
	tributary_requests(r, ph);
	struct rules_reason why;
	for (size_t p = 0; p < c->player_count && !r->stop; p++) {
		const struct scenario_section *sec = player_section(ph, (int)p);
		if (!sec || !active(c, (int)p))
			continue;
		const struct army_list *l = &c->players[p].list;
		int *dismiss = xcalloc(l->count + 1, sizeof *dismiss);
		int *take = xcalloc(l->count + 1, sizeof *take);
		int dismiss_line = 0, recruit_line = 0;
		bool left = false;
		for (size_t i = 0; i < sec->orders.count && !r->stop && !left; i++) {
			const struct order *o = &sec->orders.orders[i];
			if (o->status != ORDER_OK)
				continue;
			left = leave(r, (int)p, o);
			if (o->kind == ORDER_RENOUNCE) {
				int tributary = c->players[p].overlord == o->target ? (int)p : o->target;
				if (tributary >= 0 && c->players[tributary].overlord != (int)p &&
				    tributary != (int)p)
					tributary = (int)p;
				if (rules_tributary_renounce(c, tributary, r->log, &why) != RULES_OK)
					refused(r, o->line, (int)p, "RENOUNCE", why.text);
			}
			add_counts(o, ORDER_DISMISS, dismiss);
			add_counts(o, ORDER_RECRUIT, take);
			add_counts(o, ORDER_RETRIEVE_GENERAL, take);
			if (o->kind == ORDER_DISMISS && !dismiss_line)
				dismiss_line = o->line;
			if ((o->kind == ORDER_RECRUIT || o->kind == ORDER_RETRIEVE_GENERAL) &&
			    !recruit_line)
				recruit_line = o->line;
		}
		if (!r->stop && !left && dismiss_line &&
		    rules_dismiss(c, (int)p, dismiss, r->log, &why) != RULES_OK)
			refused(r, dismiss_line, (int)p, "DISMISS", why.text);
		if (!r->stop && !left && recruit_line &&
		    rules_recruit(c, (int)p, take, r->log, &why) != RULES_OK)
			refused(r, recruit_line, (int)p, "RECRUIT", why.text);
		free(dismiss);
		free(take);
	}
	if (r->stop)
		return;
	if (rules_year_end(c, &r->dice.base, r->log)) {
		if (!dice_ok(r))
			return;
		bool all_continue = true;
		for (size_t p = 0; p < c->player_count; p++) {
			if (!active(c, (int)p))
				continue;
			const struct order *v = standing_last(r, (int)p, ORDER_VOTE);
			all_continue &= v && v->choice == CHOICE_CONTINUE;
		}
		rules_campaign_end_vote(c, all_continue, r->log);
	} else {
		dice_ok(r);
	}
}

enum scenario_status scenario_run(const struct scenario *s, struct campaign *c,
				  const struct scenario_options *opt, struct event_log *log,
				  struct diag_list *diags)
{
	static const struct scenario_options defaults;
	struct run r = {
		.s = s, .c = c, .opt = opt ? opt : &defaults, .log = log, .diags = diags,
		.status = SCENARIO_OK,
	};
	r.dice.base.roll = scenario_dice_roll;
	r.dice.log = log;
	r.dice.values = s->dice;
	r.dice.count = s->dice_count;
	if (r.opt->use_seed || s->has_seed) {
		r.dice.seeded = true;
		dice_hmac_init(&r.dice.hmac, r.opt->use_seed ? r.opt->seed : s->seed, c->year,
			       PHASE_CAMPAIGN, 0);
	}
	size_t np = c->player_count + 1;
	r.standing = xcalloc(np, sizeof *r.standing);
	r.entered_from = xcalloc(np, sizeof *r.entered_from);
	r.permission = xcalloc(np, sizeof *r.permission);
	for (size_t i = 0; i < s->phase_count && !r.stop; i++) {
		const struct scenario_phase *ph = &s->phases[i];
		if (c->phase == PHASE_ENDED) {
			diag_add(diags, DIAG_WARNING, s->filename, ph->line,
				 "the campaign ended in %d: the rest of the scenario is not played",
				 c->year);
			break;
		}
		if (c->year != ph->year) {
			fail(&r, ph->line, "the campaign is in %d, not %d", c->year, ph->year);
			break;
		}
		r.phase = ph;
		r.battle_used = xcalloc(ph->section_count + 1, sizeof *r.battle_used);
		if (ph->phase == PHASE_CAMPAIGN)
			campaign_phase(&r, ph);
		else
			recruitment_phase(&r, ph);
		free(r.battle_used);
		r.battle_used = NULL;
	}
	for (size_t i = 0; i < c->player_count; i++)
		free(r.standing[i].orders);
	free(r.standing);
	free(r.entered_from);
	free(r.permission);
	free(r.dice.ran_out_purpose);
	if (r.dice.seeded)
		dice_hmac_clear(&r.dice.hmac);
	return r.status;
}

/* ------------------------------------------------------------ summary */

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (const char *p = s; *p; p++)
		if (isspace((unsigned char)*p) || strchr("=\",:[]{}", *p))
			return true;
	return false;
}

static void put_text(struct strbuf *sb, const char *s)
{
	if (!needs_quotes(s)) {
		strbuf_puts(sb, s);
		return;
	}
	strbuf_putc(sb, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_putc(sb, '\\');
		strbuf_putc(sb, *p);
	}
	strbuf_putc(sb, '"');
}

static void put_value(struct strbuf *sb, const json_t *v, bool half_ap)
{
	char buf[16];
	switch (json_typeof(v)) {
	case JSON_STRING:
		put_text(sb, json_string_value(v));
		break;
	case JSON_INTEGER: {
		json_int_t n = json_integer_value(v);
		if (half_ap && n >= INT_MIN && n <= INT_MAX)
			strbuf_puts(sb, half_ap_format((int)n, buf));
		else
			strbuf_printf(sb, "%" JSON_INTEGER_FORMAT, n);
		break;
	}
	case JSON_REAL:
		strbuf_printf(sb, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		strbuf_puts(sb, "yes");
		break;
	case JSON_FALSE:
		strbuf_puts(sb, "no");
		break;
	case JSON_NULL:
		strbuf_puts(sb, "-");
		break;
	case JSON_ARRAY: {
		size_t i;
		const json_t *e;
		strbuf_putc(sb, '[');
		json_array_foreach(v, i, e) {
			if (i)
				strbuf_putc(sb, ',');
			put_value(sb, e, half_ap);
		}
		strbuf_putc(sb, ']');
		break;
	}
	case JSON_OBJECT: {
		const char *k;
		const json_t *e;
		bool first = true;
		strbuf_putc(sb, '{');
		json_object_foreach((json_t *)v, k, e) {
			if (!first)
				strbuf_putc(sb, ',');
			first = false;
			put_text(sb, k);
			strbuf_putc(sb, ':');
			put_value(sb, e, half_ap);
		}
		strbuf_putc(sb, '}');
		break;
	}
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

char *scenario_event_line(const json_t *event)
{
	struct strbuf sb = {0};
	const char *kind = json_string_value(json_object_get(event, "kind"));
	const char *rule = json_string_value(json_object_get(event, "rule"));
	const char *phase = json_string_value(json_object_get(event, "phase"));
	strbuf_printf(&sb, "%" JSON_INTEGER_FORMAT " %-11s %-19s",
		      json_integer_value(json_object_get(event, "year")), phase ? phase : "?",
		      kind ? kind : "?");
	if (rule && *rule)
		strbuf_printf(&sb, " [%s]", rule);
	if (kind && strcmp(kind, "roll") == 0) {
		/* Rolls read best as "purpose: value (roll n)". */
		const char *purpose = json_string_value(json_object_get(event, "purpose"));
		strbuf_printf(&sb, " %s: %" JSON_INTEGER_FORMAT " (roll %" JSON_INTEGER_FORMAT ")",
			      purpose ? purpose : "?",
			      json_integer_value(json_object_get(event, "value")),
			      json_integer_value(json_object_get(event, "counter")));
		return strbuf_take(&sb);
	}
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)event, k, v) {
		if (!strcmp(k, "kind") || !strcmp(k, "rule") || !strcmp(k, "year") ||
		    !strcmp(k, "phase") || json_is_false(v))
			continue;
		strbuf_putc(&sb, ' ');
		if (json_is_true(v)) {
			strbuf_puts(&sb, k);
			continue;
		}
		bool half = ends_with(k, "half_ap");
		if (half)
			strbuf_printf(&sb, "%.*sap=", (int)(strlen(k) - strlen("half_ap")), k);
		else
			strbuf_printf(&sb, "%s=", k);
		put_value(&sb, v, half);
	}
	return strbuf_take(&sb);
}

/* Width on screen of a UTF-8 string: its code points. */
static size_t text_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void put_padded(struct strbuf *sb, const char *s, size_t width)
{
	strbuf_puts(sb, s);
	for (size_t w = text_width(s); w < width; w++)
		strbuf_putc(sb, ' ');
}

char *scenario_standings(const struct campaign *c)
{
	struct strbuf sb = {0};
	char a[16], b[16];
	size_t n = c->player_count;
	int *order = xcalloc(n + 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = (int)i;
	/* By score, then in the campaign file's order (a stable insertion sort). */
	for (size_t i = 1; i < n; i++) {
		int v = order[i];
		size_t j = i;
		for (; j > 0 && rules_player_score(c, order[j - 1]) < rules_player_score(c, v); j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
	strbuf_printf(&sb, "Standings in %d, %s phase:\n", c->year, campaign_phase_name(c->phase));
	size_t wkey = 6, wloc = 8;
	for (size_t i = 0; i < n; i++) {
		size_t w = text_width(c->players[i].key);
		wkey = w > wkey ? w : wkey;
		w = text_width(province_of(c, c->players[i].location));
		wloc = w > wloc ? w : wloc;
	}
	strbuf_puts(&sb, "  ");
	put_padded(&sb, "player", wkey + 2);
	put_padded(&sb, "status", 8);
	put_padded(&sb, "location", wloc + 2);
	strbuf_puts(&sb, "field AP  reserve AP  provinces  battle  province  total\n");
	for (size_t k = 0; k < n; k++) {
		const struct player *p = &c->players[order[k]];
		static const char *const status[] = {"active", "out", "left"};
		strbuf_puts(&sb, "  ");
		put_padded(&sb, p->key, wkey + 2);
		put_padded(&sb, (unsigned)p->status < 3 ? status[p->status] : "?", 8);
		put_padded(&sb, province_of(c, p->location), wloc + 2);
		strbuf_printf(&sb, "%8s  %10s  %9d  %6d  %8d  %5d\n",
			      half_ap_format(player_field_half_ap(p), a),
			      half_ap_format(player_reserve_half_ap(p), b),
			      player_province_count(c, order[k]), p->battle_prestige,
			      p->province_prestige, rules_player_score(c, order[k]));
	}
	free(order);
	strbuf_puts(&sb, "Provinces:\n");
	for (long owner = 0; owner <= (long)n; owner++) {
		int who = owner == (long)n ? NO_INDEX : (int)owner;
		bool any = false;
		for (size_t i = 0; i < c->province_count; i++) {
			if (c->provinces[i].owner != who)
				continue;
			strbuf_puts(&sb, any ? ", " : "  ");
			if (!any)
				strbuf_printf(&sb, "%s: ", key_of(c, who));
			strbuf_puts(&sb, c->provinces[i].name);
			any = true;
		}
		if (any)
			strbuf_putc(&sb, '\n');
	}
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *ct = &c->contingents[i];
		strbuf_printf(&sb, "Contingent: %s with %s, %s AP%s\n", key_of(c, ct->owner),
			      key_of(c, ct->with_player),
			      half_ap_format(troops_half_ap(&c->players[ct->owner].list, &ct->troops),
					     a),
			      ct->returning ? ", returning" : "");
	}
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *s = &c->sieges[i];
		strbuf_printf(&sb, "Siege: %s by %s, %d failed round%s\n",
			      province_of(c, s->province), key_of(c, s->besieger), s->rounds_failed,
			      s->rounds_failed == 1 ? "" : "s");
	}
	return strbuf_take(&sb);
}
