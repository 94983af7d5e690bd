#include "config.h"

#include "dbm/orders.h"
#include "base/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#define MASK "********"
#define MINUS "\xe2\x88\x92" /* U+2212, as the rulebook prints losses */
#define NAME_SPAN_SLACK 2    /* words beyond the longest known name tried as a prefix */

/* ---------------------------------------------------------------- tokens */

struct tok {
	char *s;       /* the word, quotes removed */
	char *folded;  /* name_fold(s) */
	size_t off;    /* byte offset of the token (with its quote) in the line */
	size_t len;    /* byte length in the line */
	bool quoted;
	bool comma;    /* ',' or ';' */
};

struct name_table {
	const char **names; /* display names, borrowed from the model */
	char **folded;
	int *index;         /* what each name stands for (player keys and nations share one) */
	size_t n;
	int max_words;
};

struct parser {
	const struct campaign *c;
	struct order_set *set;
	int player;
	struct name_table provinces, players;
	struct name_table *labels; /* per player, built on first use */
	bool *labels_built;
	int battle;                /* index in set of the current BATTLE AT, or -1 */
	bool seen_order;           /* a line that starts with a keyword was seen */

	const char *line;          /* the current line, secrets masked */
	struct tok *toks;
	size_t ntok, tok_cap;
	size_t pos;                /* next token to read */
	size_t end;                /* tokens from `end` on are not read (PLAYER's password) */
	struct order *o;
};

static bool is_space_at(const char *s, size_t *len)
{
	unsigned char ch = (unsigned char)s[0];
	if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f') {
		*len = 1;
		return true;
	}
	if (ch == 0xC2 && (unsigned char)s[1] == 0xA0) { /* no-break space */
		*len = 2;
		return true;
	}
	return false;
}

static void toks_clear(struct parser *p)
{
	for (size_t i = 0; i < p->ntok; i++) {
		free(p->toks[i].s);
		free(p->toks[i].folded);
	}
	p->ntok = 0;
	p->pos = 0;
	p->end = 0;
}

static void tok_push(struct parser *p, const char *line, size_t off, size_t len, size_t body_off,
		     size_t body_len, bool quoted, bool comma)
{
	grow_array((void **)&p->toks, &p->tok_cap, p->ntok + 1, sizeof *p->toks);
	struct tok *t = &p->toks[p->ntok++];
	t->s = xstrndup(line + body_off, body_len);
	t->folded = name_fold(t->s);
	t->off = off;
	t->len = len;
	t->quoted = quoted;
	t->comma = comma;
}

/* Length of the double quote mark at s, 0 if none. Phones and word
 * processors replace '"' by typographic quotes as the player types:
 * U+201C, U+201D and U+201E quote a name just as well. */
static size_t quote_mark_len(const char *s)
{
	if (s[0] == '"')
		return 1;
	if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80 &&
	    (unsigned char)s[2] >= 0x9C && (unsigned char)s[2] <= 0x9E)
		return 3;
	return 0;
}

/* Splits a line into words, commas and "quoted names". A '#' that starts a
 * word starts a comment. */
static void tokenize(struct parser *p, const char *line)
{
	size_t i = 0, sp;
	toks_clear(p);
	while (line[i]) {
		if (is_space_at(line + i, &sp)) {
			i += sp;
			continue;
		}
		if (line[i] == '#')
			break;
		if (line[i] == ',' || line[i] == ';') {
			tok_push(p, line, i, 1, i, 1, false, true);
			i++;
			continue;
		}
		size_t open_len = quote_mark_len(line + i);
		if (open_len) {
			/* a doubled quote inside stands for one: "Robert's ""Keep""" */
			size_t j = i + open_len;
			bool doubled = false;
			while (line[j] && (!quote_mark_len(line + j) ||
					   (line[j] == '"' && line[j + 1] == '"'))) {
				doubled |= line[j] == '"';
				j += line[j] == '"' ? 2 : 1;
			}
			size_t close_len = quote_mark_len(line + j);
			size_t len = j - i + close_len;
			tok_push(p, line, i, len, i + open_len, j - i - open_len, true, false);
			if (doubled) {
				struct tok *t = &p->toks[p->ntok - 1];
				char *w = t->s;
				for (const char *r = t->s; *r; r++) {
					*w++ = *r;
					if (r[0] == '"' && r[1] == '"')
						r++;
				}
				*w = '\0';
				free(t->folded);
				t->folded = name_fold(t->s);
			}
			i += len;
			continue;
		}
		size_t j = i;
		while (line[j] && line[j] != ',' && line[j] != ';' && !is_space_at(line + j, &sp))
			j++;
		tok_push(p, line, i, j - i, i, j - i, false, false);
		i = j;
	}
	p->end = p->ntok;
}

/* Replaces bytes that are not valid UTF-8, and control characters, by '?'
 * so every text can go into JSON and a mail. */
static char *utf8_clean(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i = 0, o = 0;
	while (i < n) {
		unsigned char ch = (unsigned char)s[i];
		size_t len = 0;
		if (ch < 0x80)
			len = 1;
		else if (ch >= 0xC2 && ch <= 0xDF)
			len = 2;
		else if (ch >= 0xE0 && ch <= 0xEF)
			len = 3;
		else if (ch >= 0xF0 && ch <= 0xF4)
			len = 4;
		bool ok = len > 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++)
			ok = ((unsigned char)s[i + k] & 0xC0) == 0x80;
		if (ok && len == 3) { /* no overlong forms, no surrogates */
			unsigned char c1 = (unsigned char)s[i + 1];
			ok = !(ch == 0xE0 && c1 < 0xA0) && !(ch == 0xED && c1 >= 0xA0);
		} else if (ok && len == 4) {
			unsigned char c1 = (unsigned char)s[i + 1];
			ok = !(ch == 0xF0 && c1 < 0x90) && !(ch == 0xF4 && c1 >= 0x90);
		}
		if (!ok) {
			out[o++] = '?';
			i++;
		} else if (len == 1 && ch < 0x20 && ch != '\t') {
			out[o++] = '?';
			i++;
		} else {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		}
	}
	out[o] = '\0';
	return out;
}

/* ---------------------------------------------------------- name tables */

static int count_words(const char *folded)
{
	int n = *folded ? 1 : 0;
	for (; *folded; folded++)
		if (*folded == ' ')
			n++;
	return n;
}

static void table_add(struct name_table *t, const char *name, int index)
{
	if (!name)
		return;
	t->names = xrealloc(t->names, (t->n + 1) * sizeof *t->names);
	t->folded = xrealloc(t->folded, (t->n + 1) * sizeof *t->folded);
	t->index = xrealloc(t->index, (t->n + 1) * sizeof *t->index);
	t->names[t->n] = name;
	t->folded[t->n] = name_fold(name);
	t->index[t->n] = index;
	int w = count_words(t->folded[t->n]);
	if (w > t->max_words)
		t->max_words = w;
	t->n++;
}

static void table_free(struct name_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->folded[i]);
	free(t->names);
	free(t->folded);
	free(t->index);
	memset(t, 0, sizeof *t);
}

static int table_exact(const struct name_table *t, const char *folded)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->folded[i], folded) == 0)
			return t->index[i];
	return -1;
}

/* Exact match, else the one thing of which `folded` is a prefix (at least 2
 * letters). *ambiguous is set when several things share the prefix. */
static int table_prefix(const struct name_table *t, const char *folded, bool *ambiguous)
{
	size_t len = strlen(folded);
	int found = -1;
	*ambiguous = false;
	int exact = table_exact(t, folded);
	if (exact >= 0)
		return exact;
	if (len < 2)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (strncmp(t->folded[i], folded, len) != 0)
			continue;
		if (found >= 0 && found != t->index[i]) {
			*ambiguous = true;
			return -1;
		}
		found = t->index[i];
	}
	return found;
}

static const struct name_table *player_labels(struct parser *p, int player)
{
	if (player < 0 || (size_t)player >= p->c->player_count)
		return NULL;
	if (!p->labels_built[player]) {
		const struct army_list *l = &p->c->players[player].list;
		for (size_t i = 0; i < l->count; i++)
			table_add(&p->labels[player], l->types[i].label, (int)i);
		p->labels_built[player] = true;
	}
	return &p->labels[player];
}

/* ------------------------------------------------------ parser helpers */

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct parser *p, const char *fmt, ...)
{
	if (p->o->status == ORDER_ERROR)
		return; /* the first error of a line is the one worth reading */
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	p->o->status = ORDER_ERROR;
	p->o->error = strbuf_take(&sb);
}

static bool failed(const struct parser *p)
{
	return p->o->status == ORDER_ERROR;
}

/* The line with tokens [from, to) replaced by `with`: our guess. */
static void set_guess(struct parser *p, size_t from, size_t to, const char *with)
{
	if (p->o->guess || from >= p->ntok || to <= from)
		return;
	size_t total = strlen(p->line);
	size_t a = p->toks[from].off;
	size_t b = p->toks[to - 1].off + p->toks[to - 1].len;
	if (b > total || a > b)
		return;
	bool quote = strchr(with, ',') || strchr(with, '#');
	p->o->guess = xasprintf("%.*s%s%s%s%s", (int)a, p->line, quote ? "\"" : "", with,
				quote ? "\"" : "", p->line + b);
}

static bool at_end(const struct parser *p)
{
	return p->pos >= p->end;
}

static bool is_word_at(const struct parser *p, size_t i, const char *word)
{
	return i < p->end && !p->toks[i].quoted && !p->toks[i].comma &&
	       strcasecmp(p->toks[i].s, word) == 0;
}

static bool accept(struct parser *p, const char *word)
{
	if (!is_word_at(p, p->pos, word))
		return false;
	p->pos++;
	return true;
}

static bool accept_comma(struct parser *p)
{
	if (p->pos < p->end && p->toks[p->pos].comma) {
		p->pos++;
		return true;
	}
	return false;
}

/* A short quotation of the tokens [from, to) of the line for messages. */
static char *span_text(const struct parser *p, size_t from, size_t to)
{
	if (from >= p->ntok || to <= from)
		return xstrdup("");
	size_t total = strlen(p->line);
	size_t a = p->toks[from].off;
	size_t b = p->toks[to - 1].off + p->toks[to - 1].len;
	if (b > total)
		b = total;
	if (a > b)
		a = b;
	if (b - a > 60)
		b = a + 60;
	while (b > a && ((unsigned char)p->line[b] & 0xC0) == 0x80)
		b--; /* do not cut a UTF-8 sequence */
	return xstrndup(p->line + a, b - a);
}

static void expect_end(struct parser *p, const char *after)
{
	if (failed(p) || at_end(p))
		return;
	char *rest = span_text(p, p->pos, p->end);
	fail(p, "unexpected \"%s\" after %s", rest, after);
	free(rest);
}

static bool tok_int(const struct tok *t, int *value)
{
	if (t->quoted || t->comma || !t->s[0] || strlen(t->s) > 6)
		return false;
	int v = 0;
	for (const char *s = t->s; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		v = v * 10 + (*s - '0');
	}
	*value = v;
	return true;
}

static bool read_int(struct parser *p, const char *what, int min, int max, int *value)
{
	if (failed(p))
		return false;
	if (at_end(p)) {
		fail(p, "missing %s (a number)", what);
		return false;
	}
	if (!tok_int(&p->toks[p->pos], value)) {
		char *t = span_text(p, p->pos, p->pos + 1);
		fail(p, "\"%s\" is not a number (%s expected)", t, what);
		free(t);
		return false;
	}
	if (*value < min || *value > max) {
		fail(p, "%s must be between %d and %d, not %d", what, min, max, *value);
		return false;
	}
	p->pos++;
	return true;
}

/* Words that end a name in the middle of a line. Quoted names never end. */
static bool is_stop(const struct parser *p, size_t i, const char *const *stops, bool stop_at_number)
{
	const struct tok *t = &p->toks[i];
	int dummy;
	if (t->comma)
		return true;
	if (t->quoted)
		return false;
	if (stop_at_number && tok_int(t, &dummy))
		return true;
	for (; stops && *stops; stops++)
		if (strcasecmp(t->s, *stops) == 0)
			return true;
	return false;
}

static char *join_folded(const struct parser *p, size_t from, size_t to)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = from; i < to; i++) {
		if (i > from)
			strbuf_putc(&sb, ' ');
		strbuf_puts(&sb, p->toks[i].folded);
	}
	return strbuf_take(&sb);
}

/* Reads a name of table `t` at the current token. First the longest run of
 * words that is exactly a known name (so names may contain any word), then
 * the words up to the next comma or stop word, matched forgivingly (case,
 * accents, unique prefix). On failure: an error with a "did you mean" and
 * a guess; returns -1. */
static int match_name(struct parser *p, const struct name_table *t, const char *what,
		      const char *const *stops, bool stop_at_number)
{
	if (failed(p))
		return -1;
	size_t start = p->pos, limit = start;
	while (limit < p->end && !p->toks[limit].comma)
		limit++;
	if (limit == start) {
		fail(p, "missing %s", what);
		return -1;
	}
	size_t longest = start + (size_t)t->max_words;
	for (size_t k = longest < limit ? longest : limit; k > start; k--) {
		char *f = join_folded(p, start, k);
		int idx = table_exact(t, f);
		free(f);
		if (idx >= 0) {
			p->pos = k;
			return idx;
		}
	}
	size_t stop = start;
	while (stop < limit && !is_stop(p, stop, stops, stop_at_number))
		stop++;
	if (stop == start) {
		char *w = span_text(p, start, start + 1);
		fail(p, "missing %s before \"%s\"", what, w);
		free(w);
		return -1;
	}
	size_t tries = start + (size_t)t->max_words + NAME_SPAN_SLACK;
	bool ambiguous = false;
	for (size_t k = tries < stop ? tries : stop; k > start; k--) {
		char *f = join_folded(p, start, k);
		bool amb;
		int idx = table_prefix(t, f, &amb);
		free(f);
		if (idx >= 0) {
			p->pos = k;
			return idx;
		}
		if (k == stop && amb)
			ambiguous = true;
	}
	char *typed = span_text(p, start, stop);
	char *query = join_folded(p, start, stop);
	int sugg = -1;
	if (strlen(query) < 200)
		name_lookup(query, t->names, t->n, &sugg);
	if (ambiguous)
		fail(p, "\"%s\" is ambiguous: several %ss start so; write more of the name", typed,
		     what);
	else if (sugg >= 0) {
		fail(p, "unknown %s \"%s\" (did you mean \"%s\"?)", what, typed, t->names[sugg]);
		set_guess(p, start, stop, t->names[sugg]);
	} else
		fail(p, "unknown %s \"%s\"", what, typed);
	free(typed);
	free(query);
	return -1;
}

static int match_province(struct parser *p, const char *const *stops)
{
	return match_name(p, &p->provinces, "province", stops, false);
}

static int match_player(struct parser *p, const char *const *stops, bool stop_at_number)
{
	return match_name(p, &p->players, "player", stops, stop_at_number);
}

static int match_label(struct parser *p, int player, const char *const *stops)
{
	const struct name_table *t = player_labels(p, player);
	if (!t) {
		if (!failed(p))
			fail(p, "element names need to know whose army list: put your PLAYER line "
				"in the mail");
		return -1;
	}
	return match_name(p, t, "element", stops, false);
}

static void push_item(struct order *o, int count, int type)
{
	o->items = xrealloc(o->items, (o->item_count + 1) * sizeof *o->items);
	o->items[o->item_count].count = count;
	o->items[o->item_count].type = type;
	o->item_count++;
}

static void push_via(struct order *o, int province)
{
	o->via = xrealloc(o->via, (o->via_count + 1) * sizeof *o->via);
	o->via[o->via_count++] = province;
}

/* A list of provinces, commas optional, up to a stop word or the end. */
static void read_province_list(struct parser *p, const char *const *stops)
{
	do {
		int prov = match_province(p, stops);
		if (prov < 0)
			return;
		push_via(p->o, prov);
		accept_comma(p);
	} while (!at_end(p) && !is_stop(p, p->pos, stops, false));
}

/* "<n> <label>" or "GENERAL <label>" items, commas optional. */
static void read_items(struct parser *p, int player, const char *const *stops)
{
	static const char *const label_stops[] = {"GENERAL", "VIA", "WITH", NULL};
	do {
		int count = 1, type;
		bool general = accept(p, "GENERAL");
		if (!general && !read_int(p, "number of elements", 1, 999, &count))
			return;
		size_t at = p->pos;
		type = match_label(p, player, label_stops);
		if (type < 0)
			return;
		if (general && !p->c->players[player].list.types[type].general) {
			char *t = span_text(p, at, p->pos);
			fail(p, "\"%s\" is not a general in your army list", t);
			free(t);
			return;
		}
		push_item(p->o, count, type);
		accept_comma(p);
	} while (!at_end(p) && !is_stop(p, p->pos, stops, false));
}

static int require_player(struct parser *p)
{
	if (p->player < 0 && !failed(p))
		fail(p, "this order needs your PLAYER line (PLAYER <name> <password>)");
	return p->player;
}

/* --------------------------------------------------------------- routes */

static bool province_friendly(const struct campaign *c, int player, int prov)
{
	if (player < 0 || prov < 0 || (size_t)prov >= c->province_count)
		return false;
	int owner = c->provinces[prov].owner;
	if (owner == NO_INDEX)
		return false;
	if (owner == player)
		return true;
	return c->players[player].overlord == owner || c->players[owner].overlord == player;
}

/* Shortest route by breadth-first search in route order, so the choice is
 * the same every time for the same map. Returns the route length or 0. */
static size_t shortest_route(const struct campaign *c, int from, int to, int **route)
{
	size_t n = c->province_count;
	int *parent = xmalloc(n * sizeof *parent);
	int *queue = xmalloc(n * sizeof *queue);
	size_t head = 0, tail = 0, len = 0;
	for (size_t i = 0; i < n; i++)
		parent[i] = -2;
	parent[from] = -1;
	queue[tail++] = from;
	while (head < tail && parent[to] == -2) {
		int at = queue[head++];
		for (size_t i = 0; i < c->route_count; i++) {
			const struct route *r = &c->routes[i];
			int other = r->a == at ? r->b : r->b == at ? r->a : NO_INDEX;
			if (other >= 0 && (size_t)other < n && parent[other] == -2) {
				parent[other] = at;
				queue[tail++] = other;
			}
		}
	}
	if (parent[to] != -2) {
		for (int at = to; at >= 0; at = parent[at])
			len++;
		*route = xmalloc(len * sizeof **route);
		size_t i = len;
		for (int at = to; at >= 0; at = parent[at])
			(*route)[--i] = at;
	}
	free(parent);
	free(queue);
	return len;
}

static void route_reset(struct order *o)
{
	free(o->route);
	free(o->hostile);
	o->route = NULL;
	o->hostile = NULL;
	o->route_len = o->hostile_count = 0;
	o->stages = o->extra_stages = o->forced_march_half_ap = o->sea_stages = 0;
	o->route_chosen = false;
}

/* Works out the route of a move from `start` to o->province through o->via
 * and what it costs. Returns an error message (caller frees) or NULL. */
static char *route_plan(const struct campaign *c, int player, int start, struct order *o)
{
	route_reset(o);
	int dest = o->province;
	if (start < 0 || (size_t)start >= c->province_count)
		return xstrdup("your field army has no location");
	if (o->via_count == 0 && start != dest) {
		o->route_len = shortest_route(c, start, dest, &o->route);
		if (o->route_len == 0)
			return xasprintf("no route from %s to %s", c->provinces[start].name,
					 c->provinces[dest].name);
		o->route_chosen = o->route_len > 2;
	} else {
		o->route_len = o->via_count + 2;
		o->route = xmalloc(o->route_len * sizeof *o->route);
		o->route[0] = start;
		if (o->via_count)
			memcpy(o->route + 1, o->via, o->via_count * sizeof *o->via);
		o->route[o->route_len - 1] = dest;
		if (start == dest && o->via_count == 0)
			o->route_len = 1;
	}
	for (size_t i = 0; i + 1 < o->route_len; i++) {
		int a = o->route[i], b = o->route[i + 1];
		for (size_t j = 0; j < i + 1; j++)
			if (o->route[j] == b)
				return xasprintf("the route passes %s twice", c->provinces[b].name);
		int r = campaign_route_between(c, a, b);
		if (r < 0)
			return xasprintf("no route from %s to %s: the route must follow the map's "
					 "routes", c->provinces[a].name, c->provinces[b].name);
		if (c->routes[r].sea)
			o->sea_stages++;
		if (i + 2 < o->route_len && !province_friendly(c, player, b)) {
			o->hostile = xrealloc(o->hostile, (o->hostile_count + 1) * sizeof *o->hostile);
			o->hostile[o->hostile_count++] = b;
		}
	}
	o->stages = (int)o->route_len - 1;
	o->extra_stages = o->stages > ORDERS_NORMAL_STAGES ? o->stages - ORDERS_NORMAL_STAGES : 0;
	o->forced_march_half_ap = o->extra_stages * ORDERS_FORCED_MARCH_HALF_AP;
	return NULL;
}

static int move_start(const struct campaign *c, int player)
{
	return player >= 0 ? c->players[player].location : NO_INDEX;
}

static int route_dest_of(const struct campaign *c, const struct order *o)
{
	if (o->kind == ORDER_SEND_CONTINGENT)
		return o->target >= 0 ? c->players[o->target].location : NO_INDEX;
	return o->province;
}

static void plan_order_route(struct parser *p)
{
	struct order *o = p->o;
	if (failed(p) || p->player < 0)
		return;
	int saved = o->province;
	o->province = route_dest_of(p->c, o);
	if (o->province < 0) {
		o->province = saved;
		fail(p, "%s's field army has no location", p->c->players[o->target].key);
		return;
	}
	char *err = route_plan(p->c, p->player, move_start(p->c, p->player), o);
	o->province = saved;
	if (err) {
		fail(p, "%s", err);
		free(err);
	}
}

/* ---------------------------------------------------- order parsers */

static void parse_player(struct parser *p)
{
	if (p->end - p->pos < 2) {
		fail(p, "write PLAYER <your name> <password>");
		return;
	}
	p->end--; /* the last word is the password */
	int who = match_player(p, NULL, false);
	expect_end(p, "the player name");
	p->end++;
	if (failed(p))
		return;
	if (p->set->player >= 0 && who != p->set->player) {
		fail(p, "this mail is already from %s", p->c->players[p->set->player].key);
		return;
	}
	p->o->target = who;
	if (!p->set->password)
		p->set->password = xstrdup(p->toks[p->end - 1].s);
	p->set->player = who;
}

static void parse_organiser(struct parser *p)
{
	if (p->end - p->pos != 1) {
		fail(p, "write ORGANISER <password>");
		return;
	}
	p->set->organiser = true;
	free(p->set->password);
	p->set->password = xstrdup(p->toks[p->pos].s);
	p->pos++;
}

static void parse_password(struct parser *p)
{
	if (p->end - p->pos != 1) {
		fail(p, "write PASSWORD <new password> (one word, at least %d characters)",
		     ORDERS_PASSWORD_MIN);
		return;
	}
	const char *pw = p->toks[p->pos].s;
	size_t len = strlen(pw);
	if (len < ORDERS_PASSWORD_MIN || len > ORDERS_PASSWORD_MAX) {
		fail(p, "a password has %d to %d characters", ORDERS_PASSWORD_MIN,
		     ORDERS_PASSWORD_MAX);
		return;
	}
	p->o->secret = xstrdup(pw);
	p->pos++;
}

static void parse_nothing(struct parser *p)
{
	expect_end(p, order_kind_keyword(p->o->kind));
}

static void parse_leave(struct parser *p)
{
	if (accept(p, "REPLACEMENT")) {
		if (at_end(p)) {
			fail(p, "REPLACEMENT needs the new player's mail address");
			return;
		}
		const char *addr = p->toks[p->pos].s;
		const char *at = strchr(addr, '@');
		if (!at || at == addr || !at[1] || strlen(addr) > 254 || strchr(at + 1, '@')) {
			fail(p, "\"%s\" is not a mail address", addr);
			return;
		}
		p->o->arg = xstrdup(addr);
		p->pos++;
	}
	if (accept(p, "CONFIRM"))
		p->o->confirmed = true;
	expect_end(p, "LEAVE CAMPAIGN");
}

static void parse_move(struct parser *p)
{
	static const char *const stops[] = {"VIA", NULL};
	p->o->province = match_province(p, stops);
	if (accept(p, "VIA")) {
		static const char *const none[] = {NULL};
		read_province_list(p, none);
		if (!failed(p) && p->o->via_count == 0)
			fail(p, "VIA needs the provinces on the way");
	}
	expect_end(p, "the route");
	require_player(p);
	plan_order_route(p);
}

static void parse_send(struct parser *p)
{
	static const char *const stops[] = {"VIA", "WITH", "GENERAL", NULL};
	accept(p, "TO");
	int player = require_player(p);
	p->o->target = match_player(p, stops, false);
	while (!failed(p) && !at_end(p)) {
		if (accept(p, "VIA")) {
			static const char *const via_stops[] = {"WITH", "GENERAL", NULL};
			read_province_list(p, via_stops);
		} else if (accept(p, "WITH") || is_word_at(p, p->pos, "GENERAL")) {
			static const char *const item_stops[] = {"VIA", NULL};
			read_items(p, player, item_stops);
		} else {
			expect_end(p, "the contingent");
		}
	}
	if (!failed(p) && p->o->item_count == 0)
		fail(p, "say what the contingent is: WITH <n> <element>, ... (and a general)");
	plan_order_route(p);
}

static void parse_contingent_for(struct parser *p)
{
	static const char *const stops[] = {"WITH", "GENERAL", NULL};
	int player = require_player(p);
	p->o->target = match_player(p, stops, false);
	if (!accept(p, "WITH") && !is_word_at(p, p->pos, "GENERAL") && !failed(p)) {
		fail(p, "write CONTINGENT FOR <player> WITH <n> <element>, ...");
		return;
	}
	read_items(p, player, NULL);
	expect_end(p, "the contingent");
}

static void parse_if_invaded(struct parser *p)
{
	static const char *const stops[] = {"BATTLE", "SIEGE", "RETREAT", "THEN", NULL};
	if (accept(p, "ANY"))
		p->o->province = ORDERS_ANY;
	else
		p->o->province = match_province(p, stops);
	accept(p, "THEN");
	if (failed(p))
		return;
	if (accept(p, "BATTLE")) {
		p->o->choice = CHOICE_BATTLE;
	} else if (accept(p, "SIEGE")) {
		p->o->choice = CHOICE_SIEGE;
	} else if (accept(p, "RETREAT")) {
		p->o->choice = CHOICE_RETREAT;
		accept(p, "TO");
		p->o->retreat_to = match_province(p, NULL);
	} else {
		fail(p, "write IF INVADED <province or ANY> BATTLE, SIEGE or RETREAT TO <province>");
		return;
	}
	expect_end(p, "the choice");
}

static void parse_in_storm(struct parser *p)
{
	if (accept(p, "CONTINUE"))
		p->o->choice = CHOICE_CONTINUE;
	else if (accept(p, "HALT"))
		p->o->choice = CHOICE_HALT;
	else if (accept(p, "RETURN"))
		p->o->choice = CHOICE_RETURN;
	else {
		fail(p, "write IN STORM CONTINUE, HALT or RETURN");
		return;
	}
	expect_end(p, "the choice");
}

/* ALLOW/DENY PASSAGE/SUPPLY <player or ALL>; DENY without a name: ALL. */
static void parse_permission(struct parser *p)
{
	bool deny = p->o->kind == ORDER_DENY_PASSAGE || p->o->kind == ORDER_DENY_SUPPLY;
	accept(p, "TO");
	if (accept(p, "ALL") || (deny && at_end(p)))
		p->o->target = ORDERS_ANY;
	else
		p->o->target = match_player(p, NULL, false);
	expect_end(p, "the player");
}

static void parse_answer_allies(struct parser *p)
{
	if (accept(p, "YES"))
		p->o->choice = CHOICE_YES;
	else if (accept(p, "NO"))
		p->o->choice = CHOICE_NO;
	else {
		fail(p, "write ANSWER ALLIES YES or ANSWER ALLIES NO");
		return;
	}
	expect_end(p, "the answer");
}

static void parse_losses_first(struct parser *p)
{
	int player = require_player(p);
	do {
		int type = match_label(p, player, NULL);
		if (type < 0)
			return;
		push_item(p->o, 0, type);
		accept_comma(p);
	} while (!at_end(p));
}

static void parse_retreat_prefer(struct parser *p)
{
	read_province_list(p, NULL);
}

/* RECRUIT / DISMISS <n> <element> */
static void parse_count_label(struct parser *p)
{
	int player = require_player(p);
	read_int(p, "number of elements", 1, 999, &p->o->count);
	p->o->type = match_label(p, player, NULL);
	expect_end(p, "the element");
}

static void parse_retrieve_general(struct parser *p)
{
	int player = require_player(p);
	size_t at = p->pos;
	p->o->type = match_label(p, player, NULL);
	expect_end(p, "the general");
	if (!failed(p) && !p->c->players[player].list.types[p->o->type].general) {
		char *t = span_text(p, at, p->pos);
		fail(p, "\"%s\" is not a general", t);
		free(t);
	}
}

static void parse_target_player(struct parser *p)
{
	p->o->target = match_player(p, NULL, false);
	expect_end(p, "the player");
}

static void parse_vote(struct parser *p)
{
	if (accept(p, "CONTINUE"))
		p->o->choice = CHOICE_CONTINUE;
	else if (accept(p, "END"))
		p->o->choice = CHOICE_END;
	else {
		fail(p, "write VOTE CONTINUE or VOTE END");
		return;
	}
	expect_end(p, "the vote");
}

static void parse_battle_at(struct parser *p)
{
	p->o->province = match_province(p, NULL);
	expect_end(p, "the province");
	if (!failed(p))
		p->battle = (int)(p->o - p->set->orders);
}

static bool in_battle(struct parser *p)
{
	if (p->battle < 0) {
		fail(p, "battle results start with BATTLE AT <province>");
		return false;
	}
	p->o->battle = p->battle;
	p->o->province = p->set->orders[p->battle].province;
	return true;
}

static void parse_battle_side(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = match_player(p, NULL, false);
	expect_end(p, "the player");
}

static void parse_battle_demoralised(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = match_player(p, NULL, false);
	if (failed(p))
		return;
	do {
		int type = match_label(p, p->o->target, NULL);
		if (type < 0)
			return;
		push_item(p->o, 1, type);
		accept_comma(p);
	} while (!at_end(p));
}

static void parse_battle_losses(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = match_player(p, NULL, true);
	read_int(p, "number of elements", 1, 999, &p->o->count);
	p->o->type = match_label(p, p->o->target, NULL);
	expect_end(p, "the element");
}

static void parse_battle_general_killed(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = match_player(p, NULL, false);
	size_t at = p->pos;
	p->o->type = match_label(p, p->o->target, NULL);
	expect_end(p, "the general");
	if (!failed(p) && !p->c->players[p->o->target].list.types[p->o->type].general) {
		char *t = span_text(p, at, p->pos);
		fail(p, "\"%s\" is not a general", t);
		free(t);
	}
}

static void parse_extend(struct parser *p)
{
	read_int(p, "number of hours", 1, 720, &p->o->count);
	accept(p, "HOURS");
	expect_end(p, "the hours");
}

static void parse_process(struct parser *p)
{
	if (p->end - p->pos != 1 || p->toks[p->pos].comma) {
		fail(p, "write PROCESS <step name>, one word (e.g. PROCESS campaign)");
		return;
	}
	char *f = name_fold(p->toks[p->pos].s);
	p->o->arg = f;
	p->pos++;
}

static void parse_comment(struct parser *p)
{
	if (at_end(p)) {
		fail(p, "COMMENT needs the text of the comment");
		return;
	}
	p->o->arg = xstrdup(p->line + p->toks[p->pos].off);
	str_trim(p->o->arg);
	p->pos = p->end;
}

/* ------------------------------------------------------ keyword table */

enum keyword_flags {
	KW_SECRET = 1,  /* the last word is a secret: masked in every echo */
};

struct keyword {
	const char *phrase;
	enum order_kind kind;
	void (*parse)(struct parser *p);
	unsigned flags;
};

static const struct keyword keywords[] = {
	{"PLAYER", ORDER_PLAYER, parse_player, KW_SECRET},
	{"ORGANISER", ORDER_ORGANISER, parse_organiser, KW_SECRET},
	{"ORGANIZER", ORDER_ORGANISER, parse_organiser, KW_SECRET},
	{"PASSWORD", ORDER_PASSWORD, parse_password, KW_SECRET},
	{"STATUS", ORDER_STATUS, parse_nothing, 0},
	{"MAP", ORDER_MAP, parse_nothing, 0},
	{"HELP", ORDER_HELP, parse_nothing, 0},
	{"CLEAR", ORDER_CLEAR, parse_nothing, 0},
	{"CONFIRM", ORDER_CONFIRM, parse_nothing, 0},
	{"END", ORDER_END, parse_nothing, 0},
	{"INVADE", ORDER_INVADE, parse_move, 0},
	{"MOVE", ORDER_MOVE, parse_move, 0},
	{"SEND CONTINGENT", ORDER_SEND_CONTINGENT, parse_send, 0},
	{"SEND CONTINGENTS", ORDER_SEND_CONTINGENT, parse_send, 0},
	{"NO MOVE", ORDER_NO_MOVE, parse_nothing, 0},
	{"RECALL CONTINGENTS", ORDER_RECALL_CONTINGENTS, parse_nothing, 0},
	{"RECALL CONTINGENT", ORDER_RECALL_CONTINGENTS, parse_nothing, 0},
	{"IF INVADED", ORDER_IF_INVADED, parse_if_invaded, 0},
	{"IN STORM", ORDER_IN_STORM, parse_in_storm, 0},
	{"ALLOW PASSAGE", ORDER_ALLOW_PASSAGE, parse_permission, 0},
	{"DENY PASSAGE", ORDER_DENY_PASSAGE, parse_permission, 0},
	{"ALLOW SUPPLY", ORDER_ALLOW_SUPPLY, parse_permission, 0},
	{"DENY SUPPLY", ORDER_DENY_SUPPLY, parse_permission, 0},
	{"ANSWER ALLIES", ORDER_ANSWER_ALLIES, parse_answer_allies, 0},
	{"CONTINGENT FOR", ORDER_CONTINGENT_FOR, parse_contingent_for, 0},
	{"LOSSES FIRST", ORDER_LOSSES_FIRST, parse_losses_first, 0},
	{"RETREAT PREFER", ORDER_RETREAT_PREFER, parse_retreat_prefer, 0},
	{"RECRUIT", ORDER_RECRUIT, parse_count_label, 0},
	{"DISMISS", ORDER_DISMISS, parse_count_label, 0},
	{"RETRIEVE GENERAL", ORDER_RETRIEVE_GENERAL, parse_retrieve_general, 0},
	{"TRIBUTARY OF", ORDER_TRIBUTARY_OF, parse_target_player, 0},
	{"ACCEPT TRIBUTARY", ORDER_ACCEPT_TRIBUTARY, parse_target_player, 0},
	{"RENOUNCE", ORDER_RENOUNCE, parse_target_player, 0},
	{"VOTE", ORDER_VOTE, parse_vote, 0},
	{"LEAVE CAMPAIGN", ORDER_LEAVE, parse_leave, 0},
	{"BATTLE AT", ORDER_BATTLE_AT, parse_battle_at, 0},
	{"WINNER", ORDER_BATTLE_WINNER, parse_battle_side, 0},
	{"CONCEDED BY", ORDER_BATTLE_CONCEDED, parse_battle_side, 0},
	{"WITHDRAWAL BY", ORDER_BATTLE_WITHDRAWAL, parse_battle_side, 0},
	{"DEMORALISED", ORDER_BATTLE_DEMORALISED, parse_battle_demoralised, 0},
	{"DEMORALIZED", ORDER_BATTLE_DEMORALISED, parse_battle_demoralised, 0},
	{"DESTROYED", ORDER_BATTLE_DESTROYED, parse_battle_losses, 0},
	{"FLED", ORDER_BATTLE_FLED, parse_battle_losses, 0},
	{"WITHDRAWN", ORDER_BATTLE_WITHDRAWN, parse_battle_losses, 0},
	{"GENERAL KILLED", ORDER_BATTLE_GENERAL_KILLED, parse_battle_general_killed, 0},
	{"EXTEND", ORDER_ORG_EXTEND, parse_extend, 0},
	{"PAUSE", ORDER_ORG_PAUSE, parse_nothing, 0},
	{"RESUME", ORDER_ORG_RESUME, parse_nothing, 0},
	{"PROCESS", ORDER_ORG_PROCESS, parse_process, 0},
	{"PREVIEW", ORDER_ORG_PREVIEW, parse_nothing, 0},
	{"COMMENT", ORDER_ORG_COMMENT, parse_comment, 0},
};
#define KEYWORD_COUNT (sizeof keywords / sizeof *keywords)

const char *order_kind_keyword(enum order_kind kind)
{
	for (size_t i = 0; i < KEYWORD_COUNT; i++)
		if (keywords[i].kind == kind)
			return keywords[i].phrase;
	return "";
}

/* Number of tokens the phrase takes at the start of the line, or 0. */
static size_t phrase_match(const struct parser *p, const char *phrase)
{
	size_t i = 0;
	const char *w = phrase;
	while (*w) {
		const char *sp = strchr(w, ' ');
		size_t len = sp ? (size_t)(sp - w) : strlen(w);
		if (i >= p->ntok || p->toks[i].quoted || p->toks[i].comma ||
		    strlen(p->toks[i].s) != len || strncasecmp(p->toks[i].s, w, len) != 0)
			return 0;
		i++;
		w += len;
		while (*w == ' ')
			w++;
	}
	return i;
}

static const struct keyword *keyword_find(const struct parser *p, size_t *words)
{
	const struct keyword *best = NULL;
	*words = 0;
	for (size_t i = 0; i < KEYWORD_COUNT; i++) {
		size_t n = phrase_match(p, keywords[i].phrase);
		if (n > *words) {
			*words = n;
			best = &keywords[i];
		}
	}
	return best;
}

/* The keyword phrase the first word nearly spells, or NULL. Short words
 * must be nearer, so "Hello" is a greeting and not HELP. */
static const char *keyword_near_miss(const struct parser *p)
{
	if (p->ntok == 0 || p->toks[0].quoted || p->toks[0].comma)
		return NULL;
	char *w = p->toks[0].folded;
	size_t len = strlen(w);
	if (len < 4 || len > 20)
		return NULL;
	size_t limit = len >= 6 ? 2 : 1;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < KEYWORD_COUNT; i++) {
		char first[24];
		size_t n = 0;
		for (const char *k = keywords[i].phrase; *k && *k != ' ' && n + 1 < sizeof first; k++)
			first[n++] = (char)tolower((unsigned char)*k);
		first[n] = '\0';
		size_t d = edit_distance(w, first, limit);
		if (d < best_d) {
			best_d = d;
			best = keywords[i].phrase;
		}
	}
	return best;
}

/* --------------------------------------------------------------- sets */

void orders_set_init(struct order_set *set)
{
	memset(set, 0, sizeof *set);
	set->player = -1;
}

static void order_init(struct order *o)
{
	memset(o, 0, sizeof *o);
	o->province = o->target = o->retreat_to = o->type = o->battle = -1;
}

struct order *orders_set_add(struct order_set *set)
{
	grow_array((void **)&set->orders, &set->cap, set->count + 1, sizeof *set->orders);
	struct order *o = &set->orders[set->count++];
	order_init(o);
	return o;
}

static void free_secret(char *s)
{
	if (!s)
		return;
	sodium_memzero(s, strlen(s));
	free(s);
}

void order_free(struct order *o)
{
	free(o->text);
	free(o->understood);
	free(o->error);
	free(o->guess);
	free(o->items);
	free(o->via);
	free(o->arg);
	free_secret(o->secret);
	free(o->route);
	free(o->hostile);
	order_init(o);
}

void orders_set_free(struct order_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		order_free(&set->orders[i]);
	free(set->orders);
	free_secret(set->password);
	orders_set_init(set);
}

static void *dup_array(const void *src, size_t n, size_t size)
{
	if (!src || n == 0)
		return NULL;
	void *p = xmalloc(n * size);
	memcpy(p, src, n * size);
	return p;
}

static char *dup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void order_copy(struct order *dst, const struct order *src)
{
	*dst = *src;
	dst->text = dup_opt(src->text);
	dst->understood = dup_opt(src->understood);
	dst->error = dup_opt(src->error);
	dst->guess = dup_opt(src->guess);
	dst->items = dup_array(src->items, src->item_count, sizeof *src->items);
	dst->via = dup_array(src->via, src->via_count, sizeof *src->via);
	dst->arg = dup_opt(src->arg);
	dst->secret = dup_opt(src->secret);
	dst->route = dup_array(src->route, src->route_len, sizeof *src->route);
	dst->hostile = dup_array(src->hostile, src->hostile_count, sizeof *src->hostile);
}

/* Replaces every occurrence of `secret` in *s by the mask. */
static void mask_in(char **s, const char *secret)
{
	if (!*s || !secret || strlen(secret) < 4 || !strstr(*s, secret))
		return;
	struct strbuf sb = {0};
	const char *at = *s, *hit;
	size_t len = strlen(secret);
	strbuf_puts(&sb, "");
	while ((hit = strstr(at, secret))) {
		strbuf_append(&sb, at, (size_t)(hit - at));
		strbuf_puts(&sb, MASK);
		at = hit + len;
	}
	strbuf_puts(&sb, at);
	sodium_memzero(*s, strlen(*s));
	free(*s);
	*s = strbuf_take(&sb);
}

static void mask_everywhere(struct order_set *set, const char *secret)
{
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		mask_in(&o->text, secret);
		mask_in(&o->understood, secret);
		mask_in(&o->error, secret);
		mask_in(&o->guess, secret);
		mask_in(&o->arg, secret);
	}
}

/* -------------------------------------------------------------- parse */

/* Finds who sent the mail before reading the orders, so element names can
 * be resolved on lines above the PLAYER line too. */
static void find_sender(struct parser *p, const char *text)
{
	const char *s = text;
	while (*s && p->player < 0) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (len <= ORDERS_LINE_MAX) {
			char *line = utf8_clean(s, len);
			tokenize(p, line);
			if (p->ntok >= 3 && phrase_match(p, "PLAYER")) {
				int idx;
				char *f = join_folded(p, 1, p->ntok - 1);
				idx = table_exact(&p->players, f);
				if (idx < 0) {
					bool amb;
					idx = table_prefix(&p->players, f, &amb);
				}
				free(f);
				if (idx >= 0)
					p->player = idx;
			}
			toks_clear(p);
			free(line);
		}
		s = nl ? nl + 1 : s + len;
	}
}

static void parse_line(struct parser *p, char *line, int lineno)
{
	tokenize(p, line);
	if (p->ntok == 0)
		return; /* blank or comment */
	size_t words;
	const struct keyword *kw = keyword_find(p, &words);
	struct order *o = orders_set_add(p->set);
	p->o = o;
	o->line = lineno;
	if (kw && (kw->flags & KW_SECRET) && p->ntok > words) {
		/* mask the last word, the secret, in everything echoed */
		struct tok *t = &p->toks[p->ntok - 1];
		char *masked = xasprintf("%.*s%s%s", (int)t->off, line, MASK, line + t->off + t->len);
		o->text = masked;
	} else {
		o->text = xstrdup(line);
	}
	p->line = o->text;
	if (!kw) {
		const char *near = keyword_near_miss(p);
		char *first = span_text(p, 0, 1);
		o->kind = ORDER_NONE;
		if (near) {
			o->status = ORDER_ERROR;
			o->error = xasprintf("\"%s\" is not an order (did you mean %s?)", first, near);
			set_guess(p, 0, 1, near);
		} else if (!p->seen_order) {
			o->status = ORDER_IGNORED;
		} else {
			o->status = ORDER_ERROR;
			o->error = xasprintf("\"%s\" is not an order (HELP lists them)", first);
		}
		free(first);
		return;
	}
	p->seen_order = true;
	o->kind = kw->kind;
	o->status = ORDER_OK;
	p->pos = words;
	kw->parse(p);
	if (o->status == ORDER_OK && o->kind == ORDER_PLAYER)
		p->player = p->set->player;
}

/* True if the line may continue the order on the line before it: it is
 * not blank, not a comment and does not start with a keyword (nor nearly
 * spell one). */
static bool is_continuation(struct parser *p, const char *line)
{
	tokenize(p, line);
	size_t words;
	bool cont = p->ntok > 0 && !keyword_find(p, &words) && !keyword_near_miss(p);
	toks_clear(p);
	return cont;
}

/* Drop the order parse_line just added, to parse its line again. */
static void pop_order(struct parser *p)
{
	order_free(&p->set->orders[--p->set->count]);
	p->o = NULL;
}

/* Clients that wrap long lines (Outlook's plain text at 76 columns, any
 * client sending without format=flowed) cut an order in two: "SEND
 * CONTINGENT ... WITH 4" then "Archers, ...". When an order line is in
 * error or ends with a comma, and the next line starts with no keyword, the
 * two are read as one line; if that reads without error it is the order,
 * else both lines are read alone as before. Lines carrying a secret are
 * never joined.
 * Returns the number of extra lines consumed (0 or 1). */
static int parse_line_wrapped(struct parser *p, char *line, int lineno, const char *next,
			      size_t next_len)
{
	bool seen = p->seen_order;
	parse_line(p, line, lineno);
	struct order *o = p->set->count ? &p->set->orders[p->set->count - 1] : NULL;
	size_t line_len = strlen(line);
	bool cut_list = line_len > 0 && line[line_len - 1] == ',';
	if (!o || o->line != lineno || o->kind == ORDER_NONE ||
	    (o->status != ORDER_ERROR && !cut_list) ||
	    o->kind == ORDER_PLAYER || o->kind == ORDER_ORGANISER || o->kind == ORDER_PASSWORD ||
	    !next || next_len == 0 || line_len + 1 + next_len > ORDERS_LINE_MAX)
		return 0;
	char *cont = utf8_clean(next, next_len);
	str_trim(cont);
	int used = 0;
	if (is_continuation(p, cont)) {
		char *joined = xasprintf("%s %s", line, cont);
		pop_order(p);
		p->seen_order = seen;
		parse_line(p, joined, lineno);
		if (p->set->orders[p->set->count - 1].status == ORDER_OK) {
			used = 1;
		} else {
			pop_order(p);
			p->seen_order = seen;
			parse_line(p, line, lineno);
		}
		free(joined);
	}
	free(cont);
	return used;
}

static void names_build(struct parser *p)
{
	const struct campaign *c = p->c;
	for (size_t i = 0; i < c->province_count; i++)
		table_add(&p->provinces, c->provinces[i].name, (int)i);
	for (size_t i = 0; i < c->player_count; i++) {
		table_add(&p->players, c->players[i].key, (int)i);
		if (c->players[i].nation && !name_equal(c->players[i].nation, c->players[i].key))
			table_add(&p->players, c->players[i].nation, (int)i);
	}
	p->labels = xcalloc(c->player_count + 1, sizeof *p->labels);
	p->labels_built = xcalloc(c->player_count + 1, sizeof *p->labels_built);
}

static void names_free(struct parser *p)
{
	table_free(&p->provinces);
	table_free(&p->players);
	for (size_t i = 0; i < p->c->player_count; i++)
		table_free(&p->labels[i]);
	free(p->labels);
	free(p->labels_built);
}

size_t orders_parse(const char *text, const struct campaign *c, int player, struct order_set *out)
{
	struct parser p = {0};
	orders_set_init(out);
	p.c = c;
	p.set = out;
	p.battle = -1;
	if (player >= 0 && (size_t)player >= c->player_count)
		player = -1;
	p.player = player;
	out->player = player;
	names_build(&p);
	if (p.player < 0)
		find_sender(&p, text ? text : "");
	const char *s = text ? text : "";
	int lineno = 0;
	bool stop = false;
	while (*s && !stop) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		lineno++;
		if (len > ORDERS_LINE_MAX) {
			struct order *o = orders_set_add(out);
			char *head = utf8_clean(s, 60);
			o->line = lineno;
			o->status = ORDER_ERROR;
			o->text = xasprintf("%s...", head);
			o->error = xasprintf("line too long (%zu bytes; at most %d)", len,
					     ORDERS_LINE_MAX);
			free(head);
		} else {
			char *line = utf8_clean(s, len);
			str_trim(line);
			const char *next = nl ? nl + 1 : NULL;
			size_t next_len = next ? strcspn(next, "\n") : 0;
			int extra = parse_line_wrapped(&p, line, lineno, next, next_len);
			free(line);
			if (out->count && out->orders[out->count - 1].kind == ORDER_END &&
			    out->orders[out->count - 1].line == lineno)
				stop = true;
			if (extra) {
				lineno++;
				s = next + next_len;
				nl = *s == '\n' ? s : NULL;
				len = 0;
			}
		}
		s = nl ? nl + 1 : s + len;
	}
	toks_clear(&p);
	free(p.toks);
	names_free(&p);

	/* A closing greeting ("Regards, John") after the last order is no more
	 * an error than the greeting before the first: lines at the end that are
	 * no order and no near miss of one are ignored, and shown as such. */
	for (size_t i = out->count; i-- > 0;) {
		struct order *o = &out->orders[i];
		if (o->kind != ORDER_NONE || o->status != ORDER_ERROR || o->guess ||
		    o->line == 0 || !o->error || !strstr(o->error, "is not an order (HELP"))
			break;
		o->status = ORDER_IGNORED;
		free(o->error);
		o->error = NULL;
	}

	bool confirm = false;
	for (size_t i = 0; i < out->count; i++) {
		struct order *o = &out->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (o->kind == ORDER_CONFIRM)
			confirm = true;
		out->cleared |= o->kind == ORDER_CLEAR;
		out->wants_status |= o->kind == ORDER_STATUS;
		out->wants_map |= o->kind == ORDER_MAP;
		out->wants_help |= o->kind == ORDER_HELP;
	}
	for (size_t i = 0; i < out->count; i++) {
		struct order *o = &out->orders[i];
		if (o->kind == ORDER_LEAVE && confirm)
			o->confirmed = true;
		if (o->status == ORDER_OK)
			o->understood = orders_format_one(o, c, out->player);
	}
	mask_everywhere(out, out->password);
	for (size_t i = 0; i < out->count; i++)
		if (out->orders[i].secret)
			mask_everywhere(out, out->orders[i].secret);
	out->errors = 0;
	for (size_t i = 0; i < out->count; i++)
		out->errors += out->orders[i].status == ORDER_ERROR;
	return out->errors;
}

/* ----------------------------------------------------------- validate */

static void reject(struct order *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void reject(struct order *o, const char *fmt, ...)
{
	if (o->status == ORDER_ERROR)
		return;
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	o->status = ORDER_ERROR;
	o->error = strbuf_take(&sb);
}

static bool kind_is_movement(enum order_kind k)
{
	return k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT ||
	       k == ORDER_NO_MOVE;
}

static bool kind_is_recruitment(enum order_kind k)
{
	return k == ORDER_RECRUIT || k == ORDER_DISMISS || k == ORDER_RETRIEVE_GENERAL;
}

static bool kind_is_battle(enum order_kind k)
{
	return k >= ORDER_BATTLE_AT && k <= ORDER_BATTLE_GENERAL_KILLED;
}

static bool kind_is_organiser(enum order_kind k)
{
	return k >= ORDER_ORG_EXTEND && k <= ORDER_ORG_COMMENT;
}

bool order_kind_is_kept(enum order_kind k)
{
	return k >= ORDER_INVADE && k <= ORDER_LEAVE;
}

static bool kind_needs_player(enum order_kind k)
{
	return order_kind_is_kept(k) || k == ORDER_PASSWORD;
}

int orders_cinc_type(const struct player *p)
{
	for (size_t i = 0; i < p->list.count; i++)
		if (p->list.types[i].general && p->field.count && p->field.count[i] > 0)
			return (int)i;
	return -1;
}

static const char *player_key(const struct campaign *c, int player)
{
	if (player == ORDERS_ANY)
		return "ALL";
	if (player < 0 || (size_t)player >= c->player_count)
		return "?";
	return c->players[player].key;
}

static const char *province_name(const struct campaign *c, int prov)
{
	if (prov == ORDERS_ANY)
		return "ANY";
	if (prov < 0 || (size_t)prov >= c->province_count)
		return "?";
	return c->provinces[prov].name;
}

static bool is_overlord_or_tributary(const struct campaign *c, int player, int other)
{
	return c->players[player].overlord == other || c->players[other].overlord == player;
}

static void validate_route(struct order *o, const struct campaign *c, int player, int max_stages,
			   const char *who)
{
	if (!o->route && o->status == ORDER_OK) {
		int saved = o->province;
		o->province = route_dest_of(c, o);
		char *err = o->province >= 0 ? route_plan(c, player, move_start(c, player), o)
					     : xstrdup("the ally's field army has no location");
		o->province = saved;
		if (err) {
			reject(o, "%s", err);
			free(err);
			return;
		}
	}
	if (o->stages > max_stages) {
		if (max_stages == ORDERS_MAX_STAGES)
			reject(o, "%d stages: the maximum move, forced march included, is %d",
			       o->stages, ORDERS_MAX_STAGES);
		else
			reject(o, "%d stages: %s cannot forced march beyond %d stages", o->stages,
			       who, max_stages);
	}
}

static void validate_contingent(struct order *o, const struct campaign *c, int player,
				int *committed)
{
	const struct player *pl = &c->players[player];
	size_t n = pl->list.count;
	int half_ap = 0, generals = 0;
	int cinc = orders_cinc_type(pl);
	char buf[16];
	if (o->target == player) {
		reject(o, "a contingent goes to another player, not to yourself");
		return;
	}
	if (o->target >= 0 && c->players[o->target].status != PLAYER_ACTIVE) {
		reject(o, "%s is no longer in the campaign", player_key(c, o->target));
		return;
	}
	int *wanted = xcalloc(n + 1, sizeof *wanted);
	for (size_t i = 0; i < o->item_count; i++) {
		const struct element_type *t = &pl->list.types[o->items[i].type];
		half_ap += o->items[i].count * t->cost_half_ap;
		if (t->general)
			generals += o->items[i].count;
		wanted[o->items[i].type] += o->items[i].count;
	}
	for (size_t i = 0; i < n && o->status == ORDER_OK; i++) {
		int available = pl->field.count ? pl->field.count[i] : 0;
		if ((int)i == cinc)
			available--; /* the C-in-C stays with the field army */
		if (committed)
			available -= committed[i]; /* sent by an earlier line of the mail */
		if (wanted[i] <= available)
			continue;
		if ((int)i == cinc && wanted[i] == available + 1)
			reject(o, "your C-in-C (%s) must stay with the field army",
			       pl->list.types[i].label);
		else
			reject(o, "only %d %s in your field army to send", available < 0 ? 0 : available,
			       pl->list.types[i].label);
	}
	if (o->status == ORDER_OK && half_ap > ORDERS_CONTINGENT_MAX_HALF_AP)
		reject(o, "a contingent is at most 80 AP; this one is %s AP",
		       half_ap_format(half_ap, buf));
	else if (o->status == ORDER_OK && generals == 0)
		reject(o, "a contingent must include a general (as its ally-general)");
	if (o->status == ORDER_OK && committed)
		for (size_t i = 0; i < n; i++)
			committed[i] += wanted[i];
	free(wanted);
}

static void validate_recruitment(struct order_set *set, const struct campaign *c, int player)
{
	const struct player *pl = &c->players[player];
	size_t n = pl->list.count;
	int *recruit = xcalloc(n + 1, sizeof *recruit);
	int *dismiss = xcalloc(n + 1, sizeof *dismiss);
	int *retrieve = xcalloc(n + 1, sizeof *retrieve);
	int allowance = ORDERS_RECRUIT_HALF_AP_PER_PROVINCE * player_province_count(c, player);
	int spent = 0, field_half_ap = player_field_half_ap(pl);
	char b1[16], b2[16];
	if (!pl->field.count || !pl->reserve.count)
		goto done;

	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !kind_is_recruitment(o->kind) || o->type < 0)
			continue;
		const struct element_type *t = &pl->list.types[o->type];
		int field = pl->field.count[o->type], reserve = pl->reserve.count[o->type];
		if (o->kind == ORDER_RECRUIT) {
			if (recruit[o->type] + retrieve[o->type] + o->count > reserve) {
				reject(o, "only %d %s in your reserve", reserve - recruit[o->type] -
				       retrieve[o->type], t->label);
				continue;
			}
			if (field + recruit[o->type] + o->count - dismiss[o->type] > t->list_max) {
				reject(o, "your army list allows at most %d %s (you have %d)",
				       t->list_max, t->label, field);
				continue;
			}
			int cost = o->count * t->cost_half_ap;
			if (spent + cost > allowance) {
				reject(o, "recruitment allowance exceeded: %s AP asked, %s AP allowed "
				       "(10 AP for each of your %d provinces)",
				       half_ap_format(spent + cost, b1), half_ap_format(allowance, b2),
				       player_province_count(c, player));
				continue;
			}
			if (field_half_ap + spent + cost > pl->cap_half_ap) {
				reject(o, "your field army may not exceed %s AP",
				       half_ap_format(pl->cap_half_ap, b1));
				continue;
			}
			spent += cost;
			recruit[o->type] += o->count;
		} else if (o->kind == ORDER_DISMISS) {
			if (dismiss[o->type] + o->count > field) {
				reject(o, "only %d %s in your field army", field - dismiss[o->type],
				       t->label);
				continue;
			}
			int generals = troops_generals(&pl->list, &pl->field);
			for (size_t j = 0; j < n; j++)
				if (pl->list.types[j].general)
					generals -= dismiss[j];
			if (t->general && generals - o->count < 1) {
				reject(o, "you must keep at least one general");
				continue;
			}
			dismiss[o->type] += o->count;
		} else {
			if (recruit[o->type] + retrieve[o->type] + 1 > reserve) {
				reject(o, "no %s in your reserve", t->label);
				continue;
			}
			retrieve[o->type]++;
		}
	}
	/* rules 3.1: list minimums are filled before any other troops */
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_RECRUIT)
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct element_type *t = &pl->list.types[j];
			int have = pl->field.count[j] + recruit[j] - dismiss[j];
			int can = pl->reserve.count[j] - recruit[j];
			if ((int)j == o->type || have >= t->list_min || can <= 0)
				continue;
			reject(o, "fill your list minimum of %s first (%d short)", t->label,
			       t->list_min - have);
			break;
		}
	}
done:
	free(recruit);
	free(dismiss);
	free(retrieve);
}

static void validate_one(struct order *o, const struct campaign *c, int player, int *committed)
{
	const struct player *pl = &c->players[player];
	int loc = pl->location;
	switch (o->kind) {
	case ORDER_INVADE: {
		const struct province *d = &c->provinces[o->province];
		if (d->owner == player)
			reject(o, "%s is your own province: use MOVE", d->name);
		else if (d->owner == NO_INDEX && d->inviolate)
			reject(o, "%s is an inviolate neutral: it cannot be attacked", d->name);
		else if (d->owner >= 0 && is_overlord_or_tributary(c, player, d->owner))
			reject(o, "%s belongs to %s: you cannot attack your %s", d->name,
			       player_key(c, d->owner),
			       pl->overlord == d->owner ? "overlord" : "tributary");
		validate_route(o, c, player, ORDERS_MAX_STAGES, "");
		break;
	}
	case ORDER_MOVE:
		if (o->province == loc)
			reject(o, "your field army is already in %s (write NO MOVE to stay)",
			       province_name(c, loc));
		else if (!province_friendly(c, player, o->province))
			reject(o, "%s is not friendly (yours, your overlord's or a tributary's): "
			       "use INVADE", province_name(c, o->province));
		validate_route(o, c, player, ORDERS_MAX_STAGES, "");
		break;
	case ORDER_SEND_CONTINGENT:
		validate_contingent(o, c, player, committed);
		if (o->target >= 0 && o->status == ORDER_OK)
			validate_route(o, c, player, ORDERS_NORMAL_STAGES, "contingents");
		break;
	case ORDER_CONTINGENT_FOR:
		validate_contingent(o, c, player, NULL);
		break;
	case ORDER_IF_INVADED:
		if (o->province >= 0 && c->provinces[o->province].owner != player)
			reject(o, "%s is not your province", province_name(c, o->province));
		else if (o->choice == CHOICE_RETREAT && !province_friendly(c, player, o->retreat_to))
			reject(o, "you can only retreat to a friendly province, not %s",
			       province_name(c, o->retreat_to));
		else if (o->choice == CHOICE_RETREAT && o->retreat_to == o->province)
			reject(o, "retreat to another province than the one invaded");
		break;
	case ORDER_RETREAT_PREFER:
		for (size_t i = 0; i < o->via_count; i++)
			if (!province_friendly(c, player, o->via[i])) {
				reject(o, "%s is not friendly: you can only retreat to a friendly "
				       "province", province_name(c, o->via[i]));
				break;
			}
		break;
	case ORDER_ALLOW_PASSAGE:
	case ORDER_DENY_PASSAGE:
	case ORDER_ALLOW_SUPPLY:
	case ORDER_DENY_SUPPLY:
		if (o->target == player)
			reject(o, "you always have your own permission");
		break;
	case ORDER_TRIBUTARY_OF:
		if (o->target == player)
			reject(o, "you cannot be your own tributary");
		else if (pl->overlord >= 0)
			reject(o, "you are already the tributary of %s: a tributary cannot have two "
			       "overlords", player_key(c, pl->overlord));
		else if (c->players[o->target].overlord == player)
			reject(o, "%s is your tributary", player_key(c, o->target));
		break;
	case ORDER_ACCEPT_TRIBUTARY:
		if (o->target == player)
			reject(o, "you cannot be your own tributary");
		else if (c->players[o->target].overlord == player)
			reject(o, "%s is already your tributary", player_key(c, o->target));
		else if (c->players[o->target].overlord >= 0)
			reject(o, "%s already has an overlord (%s)", player_key(c, o->target),
			       player_key(c, c->players[o->target].overlord));
		else if (pl->overlord == o->target)
			reject(o, "%s is your overlord", player_key(c, o->target));
		break;
	case ORDER_RENOUNCE:
		if (o->target == player || !is_overlord_or_tributary(c, player, o->target))
			reject(o, "%s is neither your overlord nor your tributary",
			       player_key(c, o->target));
		break;
	case ORDER_LEAVE:
		if (!o->confirmed)
			reject(o, "LEAVE CAMPAIGN needs a CONFIRM line in the same mail");
		break;
	default:
		break;
	}
}

/* Only one movement option a year (rules 1.4): the first valid one in the
 * mail counts; several SEND CONTINGENT lines are one option. */
static void validate_single_movement(struct order_set *set)
{
	const struct order *first = NULL;
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !kind_is_movement(o->kind))
			continue;
		if (!first) {
			first = o;
			continue;
		}
		if (first->kind == ORDER_SEND_CONTINGENT && o->kind == ORDER_SEND_CONTINGENT)
			continue;
		reject(o, "only one movement option a year: line %d (%s) counts, this line is "
		       "ignored", first->line, order_kind_keyword(first->kind));
	}
}

size_t orders_validate(struct order_set *set, const struct campaign *c, int player)
{
	if (player >= 0 && (size_t)player >= c->player_count)
		player = -1;
	int *committed = NULL;
	if (player >= 0)
		committed = xcalloc(c->players[player].list.count + 1, sizeof *committed);
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (kind_is_organiser(o->kind) && !set->organiser) {
			reject(o, "organiser orders need an ORGANISER line with the organiser's "
			       "password");
			continue;
		}
		if (o->kind == ORDER_PASSWORD && set->organiser)
			continue;
		if (kind_is_battle(o->kind) && player < 0 && !set->organiser) {
			reject(o, "battle results need your PLAYER line (or the organiser's)");
			continue;
		}
		if (kind_needs_player(o->kind) && player < 0) {
			reject(o, "this order needs your PLAYER line (PLAYER <name> <password>)");
			continue;
		}
		if (player < 0)
			continue;
		if (kind_is_movement(o->kind) && c->players[player].status != PLAYER_ACTIVE) {
			reject(o, "you are no longer in the campaign");
			continue;
		}
		validate_one(o, c, player, committed);
	}
	if (player >= 0)
		validate_recruitment(set, c, player);
	validate_single_movement(set);
	free(committed);
	set->errors = 0;
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		set->errors += o->status == ORDER_ERROR;
		if (o->status == ORDER_ERROR && o->understood) {
			free(o->understood);
			o->understood = NULL;
		}
	}
	if (set->password)
		mask_everywhere(set, set->password);
	return set->errors;
}

/* --------------------------------------------------------------- merge */

const char *orders_resubmission_rule(void)
{
	return "Each mail changes only what it names: a new movement order (INVADE, MOVE, "
	       "SEND CONTINGENT, NO MOVE) replaces your earlier one; RECRUIT, DISMISS and "
	       "RETRIEVE GENERAL lines replace your earlier recruitment as a whole (lines for the "
	       "same troops in one mail add up); every other order replaces the earlier one of "
	       "the same kind for the same province or player; a line with an error changes "
	       "nothing; CLEAR drops all your pending orders before the rest of the mail applies.";
}

/* Standing orders replace the pending one with the same key. */
static bool same_slot(const struct order *a, const struct order *b)
{
	enum order_kind ka = a->kind, kb = b->kind;
	bool passage_a = ka == ORDER_ALLOW_PASSAGE || ka == ORDER_DENY_PASSAGE;
	bool passage_b = kb == ORDER_ALLOW_PASSAGE || kb == ORDER_DENY_PASSAGE;
	bool supply_a = ka == ORDER_ALLOW_SUPPLY || ka == ORDER_DENY_SUPPLY;
	bool supply_b = kb == ORDER_ALLOW_SUPPLY || kb == ORDER_DENY_SUPPLY;
	if ((passage_a && passage_b) || (supply_a && supply_b))
		return b->target == ORDERS_ANY || a->target == b->target;
	if (ka != kb)
		return false;
	switch (ka) {
	case ORDER_IF_INVADED:
		return a->province == b->province;
	case ORDER_CONTINGENT_FOR:
	case ORDER_ACCEPT_TRIBUTARY:
	case ORDER_RENOUNCE:
		return a->target == b->target;
	default:
		return true;
	}
}

static void remove_where(struct order_set *set, bool (*pred)(const struct order *, const void *),
			 const void *arg)
{
	size_t w = 0;
	for (size_t i = 0; i < set->count; i++) {
		if (pred(&set->orders[i], arg))
			order_free(&set->orders[i]);
		else
			set->orders[w++] = set->orders[i];
	}
	set->count = w;
}

static bool pred_movement(const struct order *o, const void *arg)
{
	(void)arg;
	return kind_is_movement(o->kind);
}

static bool pred_recruitment(const struct order *o, const void *arg)
{
	(void)arg;
	return kind_is_recruitment(o->kind);
}

static bool pred_same_slot(const struct order *o, const void *arg)
{
	return same_slot(o, arg);
}

/* Where an order goes in the current orders: by kind, ALLOW and DENY of
 * the same permission together. */
static int kind_rank(enum order_kind k)
{
	if (k == ORDER_DENY_PASSAGE)
		return ORDER_ALLOW_PASSAGE;
	if (k == ORDER_DENY_SUPPLY)
		return ORDER_ALLOW_SUPPLY;
	return (int)k;
}

static void append_copy(struct order_set *set, const struct order *src)
{
	struct order *o = orders_set_add(set);
	order_copy(o, src);
	free(o->error);
	free(o->guess);
	o->error = o->guess = NULL;
}

void orders_merge(const struct order_set *pending, const struct order_set *incoming,
		  struct order_set *result)
{
	orders_set_init(result);
	result->player = incoming->player >= 0 ? incoming->player : pending->player;
	if (!incoming->cleared)
		for (size_t i = 0; i < pending->count; i++)
			if (pending->orders[i].status == ORDER_OK &&
			    order_kind_is_kept(pending->orders[i].kind))
				append_copy(result, &pending->orders[i]);
	const struct order *movement = NULL;
	bool recruitment = false;
	for (size_t i = 0; i < incoming->count; i++) {
		const struct order *o = &incoming->orders[i];
		if (o->status != ORDER_OK || !order_kind_is_kept(o->kind))
			continue;
		if (kind_is_movement(o->kind)) {
			if (movement && !(movement->kind == ORDER_SEND_CONTINGENT &&
					  o->kind == ORDER_SEND_CONTINGENT))
				continue; /* a second option: validation refused it */
			if (!movement)
				remove_where(result, pred_movement, NULL);
			movement = o;
			append_copy(result, o);
		} else if (kind_is_recruitment(o->kind)) {
			if (!recruitment)
				remove_where(result, pred_recruitment, NULL);
			recruitment = true;
			bool added = false;
			for (size_t j = 0; j < result->count && o->kind != ORDER_RETRIEVE_GENERAL; j++) {
				struct order *r = &result->orders[j];
				if (r->kind == o->kind && r->type == o->type) {
					r->count += o->count;
					free(r->understood);
					r->understood = NULL;
					added = true;
					break;
				}
			}
			if (!added)
				append_copy(result, o);
		} else {
			remove_where(result, pred_same_slot, o);
			append_copy(result, o);
		}
	}
	for (size_t i = 0; i < result->count; i++) {
		struct order *o = &result->orders[i];
		free(o->text);
		o->text = NULL;
		o->line = 0;
	}
	/* a stable sort, so the current orders read in the same order every time */
	for (size_t i = 1; i < result->count; i++) {
		struct order tmp = result->orders[i];
		size_t j = i;
		for (; j > 0 && kind_rank(result->orders[j - 1].kind) > kind_rank(tmp.kind); j--)
			result->orders[j] = result->orders[j - 1];
		result->orders[j] = tmp;
	}
}

/* --------------------------------------------------------------- format */

/* Writes a name so that tokenize reads it back as one name: in double
 * quotes (inner quotes doubled) when it holds a separator or a quote. */
static void put_name(struct strbuf *sb, const char *name)
{
	if (!strchr(name, ',') && !strchr(name, ';') && !strchr(name, '#') && !strchr(name, '"')) {
		strbuf_puts(sb, name);
		return;
	}
	strbuf_putc(sb, '"');
	for (const char *r = name; *r; r++) {
		if (*r == '"')
			strbuf_putc(sb, '"');
		strbuf_putc(sb, *r);
	}
	strbuf_putc(sb, '"');
}

static const char *label_of(const struct campaign *c, int player, int type)
{
	if (player < 0 || (size_t)player >= c->player_count || type < 0 ||
	    (size_t)type >= c->players[player].list.count)
		return "?";
	return c->players[player].list.types[type].label;
}

static void put_items(struct strbuf *sb, const struct order *o, const struct campaign *c,
		      int player, bool counts)
{
	for (size_t i = 0; i < o->item_count; i++) {
		if (i)
			strbuf_puts(sb, ", ");
		if (counts)
			strbuf_printf(sb, "%d ", o->items[i].count);
		put_name(sb, label_of(c, player, o->items[i].type));
	}
}

static void put_provinces(struct strbuf *sb, const struct campaign *c, const int *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_puts(sb, ", ");
		put_name(sb, province_name(c, p[i]));
	}
}

static const char *choice_word(enum order_choice ch)
{
	switch (ch) {
	case CHOICE_BATTLE: return "BATTLE";
	case CHOICE_SIEGE: return "SIEGE";
	case CHOICE_RETREAT: return "RETREAT TO";
	case CHOICE_CONTINUE: return "CONTINUE";
	case CHOICE_HALT: return "HALT";
	case CHOICE_RETURN: return "RETURN";
	case CHOICE_YES: return "YES";
	case CHOICE_NO: return "NO";
	case CHOICE_END: return "END";
	case CHOICE_NONE: break;
	}
	return "";
}

/* The intermediate provinces of a planned route, or the VIA list. */
static void put_via(struct strbuf *sb, const struct order *o, const struct campaign *c)
{
	if (o->route_len > 2) {
		strbuf_puts(sb, " VIA ");
		put_provinces(sb, c, o->route + 1, o->route_len - 2);
	} else if (!o->route && o->via_count) {
		strbuf_puts(sb, " VIA ");
		put_provinces(sb, c, o->via, o->via_count);
	}
}

char *orders_format_one(const struct order *o, const struct campaign *c, int player)
{
	struct strbuf sb = {0};
	if (o->kind == ORDER_NONE || o->kind >= ORDER_KIND_COUNT)
		return NULL;
	strbuf_puts(&sb, order_kind_keyword(o->kind));
	switch (o->kind) {
	case ORDER_PLAYER:
		strbuf_printf(&sb, " %s %s", player_key(c, o->target), MASK);
		break;
	case ORDER_ORGANISER:
	case ORDER_PASSWORD:
		strbuf_puts(&sb, " " MASK);
		break;
	case ORDER_INVADE:
	case ORDER_MOVE:
		strbuf_putc(&sb, ' ');
		put_name(&sb, province_name(c, o->province));
		put_via(&sb, o, c);
		break;
	case ORDER_SEND_CONTINGENT:
		strbuf_printf(&sb, " TO %s", player_key(c, o->target));
		put_via(&sb, o, c);
		strbuf_puts(&sb, " WITH ");
		put_items(&sb, o, c, player, true);
		break;
	case ORDER_CONTINGENT_FOR:
		strbuf_printf(&sb, " %s WITH ", player_key(c, o->target));
		put_items(&sb, o, c, player, true);
		break;
	case ORDER_IF_INVADED:
		strbuf_putc(&sb, ' ');
		put_name(&sb, province_name(c, o->province));
		strbuf_printf(&sb, " %s", choice_word(o->choice));
		if (o->choice == CHOICE_RETREAT) {
			strbuf_putc(&sb, ' ');
			put_name(&sb, province_name(c, o->retreat_to));
		}
		break;
	case ORDER_IN_STORM:
	case ORDER_ANSWER_ALLIES:
	case ORDER_VOTE:
		strbuf_printf(&sb, " %s", choice_word(o->choice));
		break;
	case ORDER_ALLOW_PASSAGE:
	case ORDER_DENY_PASSAGE:
	case ORDER_ALLOW_SUPPLY:
	case ORDER_DENY_SUPPLY:
	case ORDER_TRIBUTARY_OF:
	case ORDER_ACCEPT_TRIBUTARY:
	case ORDER_RENOUNCE:
		strbuf_printf(&sb, " %s", player_key(c, o->target));
		break;
	case ORDER_LOSSES_FIRST:
		strbuf_putc(&sb, ' ');
		put_items(&sb, o, c, player, false);
		break;
	case ORDER_RETREAT_PREFER:
		strbuf_putc(&sb, ' ');
		put_provinces(&sb, c, o->via, o->via_count);
		break;
	case ORDER_RECRUIT:
	case ORDER_DISMISS:
		strbuf_printf(&sb, " %d ", o->count);
		put_name(&sb, label_of(c, player, o->type));
		break;
	case ORDER_RETRIEVE_GENERAL:
		strbuf_putc(&sb, ' ');
		put_name(&sb, label_of(c, player, o->type));
		break;
	case ORDER_LEAVE:
		if (o->arg)
			strbuf_printf(&sb, " REPLACEMENT %s", o->arg);
		if (o->confirmed)
			strbuf_puts(&sb, " CONFIRM");
		break;
	case ORDER_BATTLE_AT:
		strbuf_putc(&sb, ' ');
		put_name(&sb, province_name(c, o->province));
		break;
	case ORDER_BATTLE_WINNER:
	case ORDER_BATTLE_CONCEDED:
	case ORDER_BATTLE_WITHDRAWAL:
		strbuf_printf(&sb, " %s", player_key(c, o->target));
		break;
	case ORDER_BATTLE_DEMORALISED:
		strbuf_printf(&sb, " %s ", player_key(c, o->target));
		put_items(&sb, o, c, o->target, false);
		break;
	case ORDER_BATTLE_DESTROYED:
	case ORDER_BATTLE_FLED:
	case ORDER_BATTLE_WITHDRAWN:
		strbuf_printf(&sb, " %s %d ", player_key(c, o->target), o->count);
		put_name(&sb, label_of(c, o->target, o->type));
		break;
	case ORDER_BATTLE_GENERAL_KILLED:
		strbuf_printf(&sb, " %s ", player_key(c, o->target));
		put_name(&sb, label_of(c, o->target, o->type));
		break;
	case ORDER_ORG_EXTEND:
		strbuf_printf(&sb, " %d", o->count);
		break;
	case ORDER_ORG_PROCESS:
	case ORDER_ORG_COMMENT:
		strbuf_printf(&sb, " %s", o->arg ? o->arg : "");
		break;
	default:
		break;
	}
	return strbuf_take(&sb);
}

char *orders_format_pending(const struct order_set *set, const struct campaign *c)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !order_kind_is_kept(o->kind))
			continue;
		char *line = orders_format_one(o, c, set->player);
		if (line) {
			strbuf_puts(&sb, line);
			strbuf_putc(&sb, '\n');
		}
		free(line);
	}
	return strbuf_take(&sb);
}

/* ------------------------------------------------------- cost notes */

static void note(json_t *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(json_t *notes, const char *fmt, ...)
{
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	char *s = strbuf_take(&sb);
	json_array_append_new(notes, json_string(s));
	free(s);
}

static bool in_supply_at(const struct campaign *c, int player, int prov)
{
	if (province_friendly(c, player, prov))
		return true;
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		int other = r->a == prov ? r->b : r->b == prov ? r->a : NO_INDEX;
		if (other < 0 || (r->sea && !c->settings.supply_across_sea))
			continue;
		if (province_friendly(c, player, other))
			return true;
	}
	return false;
}

static int field_army_at(const struct campaign *c, int player, int prov)
{
	for (size_t i = 0; i < c->player_count; i++)
		if ((int)i != player && c->players[i].location == prov &&
		    c->players[i].status == PLAYER_ACTIVE)
			return (int)i;
	return -1;
}

static void move_notes(const struct order *o, const struct campaign *c, int player, json_t *notes)
{
	char buf[16];
	if (!o->route)
		return;
	if (o->route_chosen) {
		struct strbuf sb = {0};
		put_provinces(&sb, c, o->route, o->route_len);
		char *r = strbuf_take(&sb);
		note(notes, "route chosen for you (shortest): %s; write VIA to choose another", r);
		free(r);
	}
	if (o->stages == 0 && o->kind == ORDER_SEND_CONTINGENT)
		note(notes, "no movement: %s's field army is in the same province",
		     player_key(c, o->target));
	else if (o->stages == 0)
		note(notes, "stays in %s", province_name(c, o->province));
	else if (o->extra_stages == 0)
		note(notes, "%d stage%s: normal move, no cost", o->stages, o->stages > 1 ? "s" : "");
	else
		note(notes, "forced march: %d extra stage%s, " MINUS "%s AP", o->extra_stages,
		     o->extra_stages > 1 ? "s" : "", half_ap_format(o->forced_march_half_ap, buf));
	if (o->sea_stages == 1)
		note(notes, "sea stage: dice for storm (1 in 6: lose 25 AP per pip of a second die, "
		     "the first 25 AP mounted)");
	else if (o->sea_stages > 1)
		note(notes, "%d sea stages: each dices for a storm (1 in 6: lose 25 AP per pip of a "
		     "second die, the first 25 AP mounted)", o->sea_stages);
	for (size_t i = 0; i < o->hostile_count; i++) {
		int prov = o->hostile[i], owner = c->provinces[prov].owner;
		int army = field_army_at(c, player, prov);
		if (army >= 0)
			note(notes, "passes through %s: %s's field army is there, passage needs its "
			     "permission", province_name(c, prov), player_key(c, army));
		else if (owner >= 0)
			note(notes, "passes through %s (%s's): needs permission or forced passage: a "
			     "die " "\xc3\x97" " 40 AP", province_name(c, prov), player_key(c, owner));
		else
			note(notes, "passes through %s (neutral): forced passage: a die " "\xc3\x97"
			     " 40 AP", province_name(c, prov));
	}
	if (o->kind != ORDER_SEND_CONTINGENT) {
		int dest = o->province;
		if (!in_supply_at(c, player, dest))
			note(notes, "out of supply in %s at the end of the move: a die " "\xc3\x97"
			     " 40 AP (not if forced passage already cost you)", province_name(c, dest));
		int army = field_army_at(c, player, dest);
		if (o->kind == ORDER_INVADE && army >= 0)
			note(notes, "%s's field army is in %s: battle or siege, as %s decides",
			     player_key(c, army), province_name(c, dest), player_key(c, army));
		if (o->kind == ORDER_INVADE || o->kind == ORDER_MOVE)
			note(notes, "your contingents with other armies are recalled");
	}
}

void orders_cost_notes(const struct order *o, const struct campaign *c, int player,
		       json_t *notes)
{
	char b1[16], b2[16];
	if (o->status != ORDER_OK || player < 0 || (size_t)player >= c->player_count)
		return;
	const struct player *pl = &c->players[player];
	switch (o->kind) {
	case ORDER_INVADE:
	case ORDER_MOVE:
		move_notes(o, c, player, notes);
		break;
	case ORDER_SEND_CONTINGENT:
	case ORDER_CONTINGENT_FOR: {
		int half_ap = 0, generals = 0;
		for (size_t i = 0; i < o->item_count; i++) {
			const struct element_type *t = &pl->list.types[o->items[i].type];
			half_ap += o->items[i].count * t->cost_half_ap;
			generals += t->general ? o->items[i].count : 0;
		}
		note(notes, "contingent of %s AP (at most 80) with %d general%s", half_ap_format(half_ap, b1),
		     generals, generals == 1 ? "" : "s");
		if (o->kind == ORDER_SEND_CONTINGENT) {
			move_notes(o, c, player, notes);
			note(notes, "arrives this year on 1-4 on a die (5-6: too late for the battle)");
		}
		break;
	}
	case ORDER_RECRUIT: {
		const struct element_type *t = &pl->list.types[o->type];
		note(notes, "%s AP of your allowance of %s AP (10 AP for each of your %d provinces)",
		     half_ap_format(o->count * t->cost_half_ap, b1),
		     half_ap_format(ORDERS_RECRUIT_HALF_AP_PER_PROVINCE *
				    player_province_count(c, player), b2),
		     player_province_count(c, player));
		if (c->phase != PHASE_RECRUITMENT)
			note(notes, "applies in the recruitment phase");
		break;
	}
	case ORDER_DISMISS: {
		const struct element_type *t = &pl->list.types[o->type];
		note(notes, "to the reserve: " MINUS "%s AP from your field army",
		     half_ap_format(o->count * t->cost_half_ap, b1));
		break;
	}
	case ORDER_RETRIEVE_GENERAL: {
		const struct element_type *t = &pl->list.types[o->type];
		if (c->phase == PHASE_CAMPAIGN)
			note(notes, "in the campaign phase: troops worth %s AP go to the reserve in "
			     "exchange", half_ap_format(t->cost_half_ap, b1));
		break;
	}
	case ORDER_RENOUNCE:
		if (c->phase != PHASE_RECRUITMENT)
			note(notes, "takes effect in the recruitment phase");
		break;
	case ORDER_LEAVE:
		note(notes, o->arg ? "your provinces go to your replacement"
				   : "without a replacement your provinces become neutral and you "
				     "lose your prestige");
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- ack */

static const char *status_word(enum order_status s)
{
	return s == ORDER_OK ? "ok" : s == ORDER_IGNORED ? "ignored" : "error";
}

static json_t *order_json(const struct order *o, const struct campaign *c, int player,
			  bool with_line)
{
	json_t *j = json_object();
	json_t *notes = json_array();
	if (with_line) {
		json_object_set_new(j, "line", json_integer(o->line));
		json_object_set_new(j, "text", json_string(o->text ? o->text : ""));
	}
	json_object_set_new(j, "status", json_string(status_word(o->status)));
	json_object_set_new(j, "ok", json_boolean(o->status == ORDER_OK));
	json_object_set_new(j, "ignored", json_boolean(o->status == ORDER_IGNORED));
	json_object_set_new(j, "is_error", json_boolean(o->status == ORDER_ERROR));
	if (o->kind != ORDER_NONE)
		json_object_set_new(j, "keyword", json_string(order_kind_keyword(o->kind)));
	char *understood = o->understood ? xstrdup(o->understood)
		: o->status == ORDER_OK ? orders_format_one(o, c, player) : NULL;
	if (understood)
		json_object_set_new(j, "understood", json_string(understood));
	free(understood);
	if (o->error)
		json_object_set_new(j, "error", json_string(o->error));
	if (o->guess)
		json_object_set_new(j, "guess", json_string(o->guess));
	orders_cost_notes(o, c, player, notes);
	json_object_set_new(j, "has_costs", json_boolean(json_array_size(notes) > 0));
	json_object_set_new(j, "costs", notes);
	return j;
}

json_t *orders_ack_json(const struct order_set *mail_orders, const struct order_set *current,
			const struct campaign *c, int player)
{
	json_t *ack = json_object();
	json_t *lines = json_array();
	json_t *orders = json_array();
	if (player >= 0 && (size_t)player < c->player_count) {
		json_object_set_new(ack, "player", json_string(c->players[player].key));
		json_object_set_new(ack, "nation", json_string(c->players[player].nation ?
							       c->players[player].nation :
							       c->players[player].key));
	}
	json_object_set_new(ack, "organiser", json_boolean(mail_orders->organiser));
	if (c->name)
		json_object_set_new(ack, "campaign", json_string(c->name));
	json_object_set_new(ack, "year", json_integer(c->year));
	json_object_set_new(ack, "phase", json_string(campaign_phase_name(c->phase)));
	for (size_t i = 0; i < mail_orders->count; i++)
		json_array_append_new(lines, order_json(&mail_orders->orders[i], c, player, true));
	size_t kept = 0;
	for (size_t i = 0; current && i < current->count; i++) {
		const struct order *o = &current->orders[i];
		if (o->status != ORDER_OK || !order_kind_is_kept(o->kind))
			continue;
		json_array_append_new(orders, order_json(o, c, player, false));
		kept++;
	}
	char *text = current ? orders_format_pending(current, c) : xstrdup("");
	json_object_set_new(ack, "lines", lines);
	json_object_set_new(ack, "current_orders", orders);
	json_object_set_new(ack, "current_orders_text", json_string(text));
	json_object_set_new(ack, "no_current_orders", json_boolean(kept == 0));
	json_object_set_new(ack, "error_count", json_integer((json_int_t)mail_orders->errors));
	json_object_set_new(ack, "has_errors", json_boolean(mail_orders->errors > 0));
	json_object_set_new(ack, "cleared", json_boolean(mail_orders->cleared));
	json_object_set_new(ack, "resubmission", json_string(orders_resubmission_rule()));
	json_object_set_new(ack, "wants_status", json_boolean(mail_orders->wants_status));
	json_object_set_new(ack, "wants_map", json_boolean(mail_orders->wants_map));
	json_object_set_new(ack, "wants_help", json_boolean(mail_orders->wants_help));
	bool password_changed = false;
	for (size_t i = 0; i < mail_orders->count; i++)
		password_changed |= mail_orders->orders[i].kind == ORDER_PASSWORD &&
				    mail_orders->orders[i].status == ORDER_OK;
	json_object_set_new(ack, "password_changed", json_boolean(password_changed));
	free(text);
	return ack;
}
