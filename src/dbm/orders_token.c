/* The order language's words: a line cut into tokens, the tables of names
 * (provinces, players, army-list elements) matched forgivingly, and the
 * small readers every order parser uses. */
#include "config.h"

#include "dbm/orders_p.h"
#include "base/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME_SPAN_SLACK 2    /* words beyond the longest known name tried as a prefix */

/* ---------------------------------------------------------------- tokens */

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

void orders_toks_clear(struct parser *p)
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
void orders_tokenize(struct parser *p, const char *line)
{
	size_t i = 0, sp;
	orders_toks_clear(p);
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
char *orders_utf8_clean(const char *s, size_t n)
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

void orders_table_add(struct name_table *t, const char *name, int index)
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

void orders_table_free(struct name_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->folded[i]);
	free(t->names);
	free(t->folded);
	free(t->index);
	memset(t, 0, sizeof *t);
}

int orders_table_exact(const struct name_table *t, const char *folded)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->folded[i], folded) == 0)
			return t->index[i];
	return -1;
}

/* Exact match, else the one thing of which `folded` is a prefix (at least 2
 * letters). *ambiguous is set when several things share the prefix. */
int orders_table_prefix(const struct name_table *t, const char *folded, bool *ambiguous)
{
	size_t len = strlen(folded);
	int found = -1;
	*ambiguous = false;
	int exact = orders_table_exact(t, folded);
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
			orders_table_add(&p->labels[player], l->types[i].label, (int)i);
		p->labels_built[player] = true;
	}
	return &p->labels[player];
}

/* ------------------------------------------------------ parser helpers */

void orders_fail(struct parser *p, const char *fmt, ...)
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

bool orders_failed(const struct parser *p)
{
	return p->o->status == ORDER_ERROR;
}

/* The line with tokens [from, to) replaced by `with`: our guess. */
void orders_guess(struct parser *p, size_t from, size_t to, const char *with)
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

bool orders_at_end(const struct parser *p)
{
	return p->pos >= p->end;
}

bool orders_is_word_at(const struct parser *p, size_t i, const char *word)
{
	return i < p->end && !p->toks[i].quoted && !p->toks[i].comma &&
	       strcasecmp(p->toks[i].s, word) == 0;
}

bool orders_accept(struct parser *p, const char *word)
{
	if (!orders_is_word_at(p, p->pos, word))
		return false;
	p->pos++;
	return true;
}

bool orders_accept_comma(struct parser *p)
{
	if (p->pos < p->end && p->toks[p->pos].comma) {
		p->pos++;
		return true;
	}
	return false;
}

/* A short quotation of the tokens [from, to) of the line for messages. */
char *orders_span_text(const struct parser *p, size_t from, size_t to)
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

void orders_expect_end(struct parser *p, const char *after)
{
	if (orders_failed(p) || orders_at_end(p))
		return;
	char *rest = orders_span_text(p, p->pos, p->end);
	orders_fail(p, "unexpected \"%s\" after %s", rest, after);
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

bool orders_read_int(struct parser *p, const char *what, int min, int max, int *value)
{
	if (orders_failed(p))
		return false;
	if (orders_at_end(p)) {
		orders_fail(p, "missing %s (a number)", what);
		return false;
	}
	if (!tok_int(&p->toks[p->pos], value)) {
		char *t = orders_span_text(p, p->pos, p->pos + 1);
		orders_fail(p, "\"%s\" is not a number (%s expected)", t, what);
		free(t);
		return false;
	}
	if (*value < min || *value > max) {
		orders_fail(p, "%s must be between %d and %d, not %d", what, min, max, *value);
		return false;
	}
	p->pos++;
	return true;
}

bool orders_is_number_at(const struct parser *p, size_t i)
{
	int dummy;
	return i < p->end && !p->toks[i].quoted && !p->toks[i].comma && tok_int(&p->toks[i], &dummy);
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

char *orders_join_folded(const struct parser *p, size_t from, size_t to)
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

/* The folded text after the first `words` words of `folded` ("" if none). */
static const char *after_words(const char *folded, int words)
{
	for (; words > 0 && folded; words--) {
		folded = strchr(folded, ' ');
		if (folded)
			folded++;
	}
	return folded ? folded : "";
}

/* The player wrote the words [start, k) of a name and went on, before the
 * next stop at `stop`, with words close to the rest of a longer name of `t`
 * ("Swiss Confedration", "Ile de Frnce", "Holy Roman Empre"): that name's
 * entry in t, with *end the token after the misspelt words; else -1. */
static int longer_name_misspelt(const struct parser *p, const struct name_table *t, size_t start,
				size_t k, size_t stop, size_t *end)
{
	char *head = orders_join_folded(p, start, k);
	size_t head_len = strlen(head);
	int head_words = count_words(head);
	int best = -1;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; i < t->n; i++) {
		const char *f = t->folded[i];
		int words = count_words(f);
		if (words <= head_words || strncmp(f, head, head_len) != 0)
			continue;
		/* the typed head may end inside a word ("Holy Rom Empre") */
		const char *rest = after_words(f, head_words);
		if (!*rest || strlen(rest) > 200)
			continue;
		size_t k2 = k;
		char *typed = NULL;
		while (k2 < stop) {
			free(typed);
			typed = orders_join_folded(p, k, ++k2);
			if (count_words(typed) >= words - head_words)
				break;
		}
		if (!typed || count_words(typed) != words - head_words) {
			free(typed);
			continue;
		}
		size_t limit = strlen(rest) / 3 + 1;
		size_t d = edit_distance(typed, rest, limit);
		free(typed);
		if (d > 0 && d <= limit && d < best_d) {
			best_d = d;
			best = (int)i;
			*end = k2;
		}
	}
	free(head);
	return best;
}

/* A did-you-mean for a misspelt multi-word name: names the whole name. */
static int fail_misspelt(struct parser *p, const struct name_table *t, const char *what,
			 size_t start, size_t end, int entry)
{
	char *typed = orders_span_text(p, start, end);
	orders_fail(p, "unknown %s \"%s\" (did you mean \"%s\"?)", what, typed, t->names[entry]);
	orders_guess(p, start, end, t->names[entry]);
	free(typed);
	return -1;
}

/* Reads a name of table `t` at the current token. First the longest run of
 * words that is exactly a known name (so names may contain any word), then
 * the words up to the next comma or stop word, matched forgivingly (case,
 * accents, unique prefix). On failure: an error with a "did you mean" and
 * a guess; returns -1. */
static int match_name(struct parser *p, const struct name_table *t, const char *what,
		      const char *const *stops, bool stop_at_number)
{
	if (orders_failed(p))
		return -1;
	size_t start = p->pos, limit = start;
	while (limit < p->end && !p->toks[limit].comma)
		limit++;
	if (limit == start) {
		orders_fail(p, "missing %s", what);
		return -1;
	}
	size_t stop = start;
	while (stop < limit && !is_stop(p, stop, stops, stop_at_number))
		stop++;
	size_t longest = start + (size_t)t->max_words, end = 0;
	for (size_t k = longest < limit ? longest : limit; k > start; k--) {
		char *f = orders_join_folded(p, start, k);
		int idx = orders_table_exact(t, f);
		free(f);
		if (idx >= 0) {
			/* "Swiss" is a name too, but "Swiss Confedration" meant
			 * the longer one */
			int entry = k < stop ? longer_name_misspelt(p, t, start, k, stop, &end) : -1;
			if (entry >= 0)
				return fail_misspelt(p, t, what, start, end, entry);
			p->pos = k;
			return idx;
		}
	}
	if (stop == start) {
		char *w = orders_span_text(p, start, start + 1);
		orders_fail(p, "missing %s before \"%s\"", what, w);
		free(w);
		return -1;
	}
	size_t tries = start + (size_t)t->max_words + NAME_SPAN_SLACK;
	bool ambiguous = false;
	for (size_t k = tries < stop ? tries : stop; k > start; k--) {
		char *f = orders_join_folded(p, start, k);
		bool amb;
		int idx = orders_table_prefix(t, f, &amb);
		free(f);
		if (idx >= 0) {
			int entry = k < stop ? longer_name_misspelt(p, t, start, k, stop, &end) : -1;
			if (entry >= 0)
				return fail_misspelt(p, t, what, start, end, entry);
			p->pos = k;
			return idx;
		}
		if (k == stop && amb)
			ambiguous = true;
	}
	char *typed = orders_span_text(p, start, stop);
	char *query = orders_join_folded(p, start, stop);
	int sugg = -1;
	if (strlen(query) < 200)
		name_lookup(query, t->names, t->n, &sugg);
	if (ambiguous)
		orders_fail(p, "\"%s\" is ambiguous: several %ss start so; write more of the name", typed,
		     what);
	else if (sugg >= 0) {
		orders_fail(p, "unknown %s \"%s\" (did you mean \"%s\"?)", what, typed, t->names[sugg]);
		orders_guess(p, start, stop, t->names[sugg]);
	} else
		orders_fail(p, "unknown %s \"%s\"", what, typed);
	free(typed);
	free(query);
	return -1;
}

int orders_match_province(struct parser *p, const char *const *stops)
{
	return match_name(p, &p->provinces, "province", stops, false);
}

int orders_match_player(struct parser *p, const char *const *stops, bool stop_at_number)
{
	return match_name(p, &p->players, "player", stops, stop_at_number);
}

/* Words that end a label in any order (a count, a keyword). */
static const char *const label_stops_all[] = {"GENERAL", "VIA", "WITH", "FOR", NULL};

/* "A, B and C": the names of an army list. Caller frees. */
static char *label_list(const struct name_table *t)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < t->n; i++)
		strbuf_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == t->n ? " and " : ", ",
			      t->names[i]);
	return strbuf_take(&sb);
}

/* Whether every word of `words` (folded) is a whole word of `name`
 * (folded), in any order. */
static bool has_words(const char *name, const char *words)
{
	for (const char *w = words; *w;) {
		while (*w == ' ')
			w++;
		size_t len = strcspn(w, " ");
		if (!len)
			break;
		bool found = false;
		for (const char *at = name; *at && !found; at++)
			found = (at == name || at[-1] == ' ') && strncmp(at, w, len) == 0 &&
				(at[len] == ' ' || at[len] == '\0');
		if (!found)
			return false;
		w += len;
	}
	return true;
}

/* The slot in `t` of the name standing for `idx` (the first such). */
static size_t label_slot(const struct name_table *t, int idx)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->index[i] == idx)
			return i;
	return 0;
}

/* " at the battle at Normandy" for a battle report's line, else "". */
static char *at_the_battle(const struct parser *p)
{
	if (p->o->battle < 0 || p->o->province < 0 ||
	    (size_t)p->o->province >= p->c->province_count)
		return xstrdup("");
	return xasprintf(" at the battle at %s", p->c->provinces[p->o->province].name);
}

/* Whether `player` had elements of `type` at the battle at `province`: in
 * its field army standing there, or in a contingent with a field army
 * standing there. */
static bool type_at_battle(const struct campaign *c, int player, int province, size_t type)
{
	const struct player *pl = &c->players[player];
	if (pl->location == province && pl->field.count && pl->field.count[type] > 0)
		return true;
	for (size_t k = 0; k < c->contingent_count; k++) {
		const struct contingent *ct = &c->contingents[k];
		if (ct->owner == player && !ct->returning && ct->with_player >= 0 &&
		    (size_t)ct->with_player < c->player_count &&
		    c->players[ct->with_player].location == province && ct->troops.count &&
		    ct->troops.count[type] > 0)
			return true;
	}
	return false;
}

/* For a battle report's line: the elements `player` had at that battle
 * (filled into `out`, true), so a did-you-mean and the list of elements
 * never name what stayed in the reserve. False (and `out` empty) for other
 * lines, or when the player had nothing there. */
static bool battle_labels(const struct parser *p, int player, struct name_table *out)
{
	memset(out, 0, sizeof *out);
	int province = p->o->battle >= 0 ? p->o->province : -1;
	if (province < 0 || player < 0 || (size_t)player >= p->c->player_count)
		return false;
	const struct army_list *l = &p->c->players[player].list;
	for (size_t i = 0; i < l->count; i++)
		if (type_at_battle(p->c, player, province, i))
			orders_table_add(out, l->types[i].label, (int)i);
	return out->n > 0;
}

/* An element label matched nothing: a did-you-mean on the first words of
 * the names too ("Gendarms" for "Gendarmes d'ordonnance"), else the
 * elements the army has (at the battle for a battle report's line: `t`
 * then holds those). Replaces match_name's error. */
static void label_unknown(struct parser *p, const struct name_table *t, int player,
			  size_t start)
{
	if (!p->o->error || strstr(p->o->error, "did you mean") ||
	    strncmp(p->o->error, "unknown element", 15) != 0)
		return;
	size_t stop = start;
	while (stop < p->end && !is_stop(p, stop, label_stops_all, true))
		stop++;
	if (stop == start && start < p->end)
		stop = start + 1;
	int best = -1;
	size_t best_d = SIZE_MAX, best_end = stop;
	for (size_t k = stop; k > start; k--) {
		char *typed = orders_join_folded(p, start, k);
		int words = count_words(typed);
		for (size_t i = 0; i < t->n && strlen(typed) < 200; i++) {
			const char *f = t->folded[i];
			const char *rest = after_words(f, words);
			size_t len = *rest ? (size_t)(rest - f - 1) : strlen(f);
			char *head = xstrndup(f, len);
			size_t limit = len / 3 + 1;
			size_t d = edit_distance(typed, head, limit);
			free(head);
			if (d <= limit && d < best_d) {
				best_d = d;
				best = (int)i;
				best_end = k;
			}
		}
		free(typed);
		if (best >= 0)
			break;
	}
	if (best < 0 && stop > start) {
		/* "pikes" for "Picard and Flemish pikes": the words typed are
		 * words of one label only */
		char *typed = orders_join_folded(p, start, stop);
		int found = -1;
		for (size_t i = 0; i < t->n && found != -2 && strlen(typed) < 200; i++)
			if (has_words(t->folded[i], typed))
				found = found == -1 ? (int)i : -2;
		free(typed);
		if (found >= 0) {
			best = found;
			best_end = stop;
		}
	}
	char *typed = orders_span_text(p, start, best >= 0 ? best_end : stop);
	free(p->o->error);
	if (best >= 0) {
		p->o->error = xasprintf("unknown element \"%s\" (did you mean \"%s\"?)", typed,
					t->names[best]);
		orders_guess(p, start, best_end, t->names[best]);
	} else {
		char *has = label_list(t);
		char *where = at_the_battle(p);
		p->o->error = xasprintf("%s's army has no element \"%s\"; its elements%s: %s",
					orders_player_nation(p->c, player), typed, where, has);
		free(where);
		free(has);
	}
	free(typed);
}

int orders_match_label(struct parser *p, int player, const char *const *stops)
{
	const struct name_table *t = player_labels(p, player);
	if (!t) {
		if (!orders_failed(p))
			orders_fail(p, "element names need to know whose army list: put your PLAYER line "
				"in the mail");
		return -1;
	}
	bool failed_before = orders_failed(p);
	size_t start = p->pos;
	enum order_status status = p->o->status;
	int idx = match_name(p, t, "element", stops, false);
	if (failed_before)
		return idx;
	/* a battle report suggests and lists the elements at the battle
	 * only; an exact name of another one is matched and left to the
	 * report's check ("it had 0 at the battle") */
	struct name_table at;
	bool battle = battle_labels(p, player, &at);
	const struct name_table *hint = battle ? &at : t;
	if (idx < 0 && battle && p->o->error && strncmp(p->o->error, "unknown element", 15) == 0) {
		/* the did-you-mean again, among the elements at the battle */
		free(p->o->error);
		free(p->o->guess);
		p->o->error = p->o->guess = NULL;
		p->o->status = status;
		p->pos = start;
		idx = match_name(p, &at, "element", stops, false);
	}
	if (idx < 0) {
		label_unknown(p, hint, player, start);
		orders_table_free(&at);
		return -1;
	}
	/* "Mounted archers" where the list has only "Mounted men-at-arms":
	 * the words after a name matched by its first ones are no element
	 * of this army (nor the start of the next one) */
	if (!orders_at_end(p) && !is_stop(p, p->pos, stops, true) &&
	    !is_stop(p, p->pos, label_stops_all, false)) {
		char *f = orders_join_folded(p, p->pos, p->pos + 1);
		bool amb;
		bool next_label = orders_table_prefix(t, f, &amb) >= 0 || amb;
		free(f);
		if (!next_label) {
			size_t end = p->pos;
			while (end < p->end && !is_stop(p, end, stops, true) &&
			       !is_stop(p, end, label_stops_all, false))
				end++;
			char *typed = orders_span_text(p, start, end);
			if (battle && orders_table_exact(&at, t->folded[label_slot(t, idx)]) < 0) {
				/* the element matched by the first words was not at
				 * the battle: the list of those that were */
				char *has = label_list(&at);
				char *where = at_the_battle(p);
				orders_fail(p, "%s's army has no element \"%s\"; its elements%s: %s",
					    orders_player_nation(p->c, player), typed, where, has);
				free(where);
				free(has);
			} else {
				char *has = label_list(hint);
				char *where = at_the_battle(p);
				orders_fail(p, "%s's army has no element \"%s\" (did you mean \"%s\"?); "
					       "its elements%s: %s",
					    orders_player_nation(p->c, player), typed, t->names[idx],
					    where, has);
				orders_guess(p, start, end, t->names[idx]);
				free(where);
				free(has);
			}
			free(typed);
			orders_table_free(&at);
			return -1;
		}
	}
	orders_table_free(&at);
	return idx;
}

void orders_push_item(struct order *o, int count, int type)
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
void orders_read_province_list(struct parser *p, const char *const *stops)
{
	do {
		int prov = orders_match_province(p, stops);
		if (prov < 0)
			return;
		push_via(p->o, prov);
		orders_accept_comma(p);
	} while (!orders_at_end(p) && !is_stop(p, p->pos, stops, false));
}

/* "<n> <label>" or "GENERAL <label>" items, commas optional. */
void orders_read_items(struct parser *p, int player, const char *const *stops)
{
	static const char *const label_stops[] = {"GENERAL", "VIA", "WITH", NULL};
	do {
		int count = 1, type;
		bool general = orders_accept(p, "GENERAL");
		if (!general && !orders_read_int(p, "number of elements", 1, 999, &count))
			return;
		size_t at = p->pos;
		type = orders_match_label(p, player, label_stops);
		if (type < 0)
			return;
		if (general && !p->c->players[player].list.types[type].general) {
			char *t = orders_span_text(p, at, p->pos);
			orders_fail(p, "\"%s\" is not a general in your army list", t);
			free(t);
			return;
		}
		orders_push_item(p->o, count, type);
		orders_accept_comma(p);
	} while (!orders_at_end(p) && !is_stop(p, p->pos, stops, false));
}

int orders_require_player(struct parser *p)
{
	if (p->player < 0 && !orders_failed(p))
		orders_fail(p, "this order needs your PLAYER line (PLAYER <name> <password>)");
	return p->player;
}

/* ------------------------------------------------- names for messages */

const char *orders_player_key(const struct campaign *c, int player)
{
	if (player == ORDERS_ANY)
		return "ALL";
	if (player < 0 || (size_t)player >= c->player_count)
		return "?";
	return c->players[player].key;
}

const char *orders_player_nation(const struct campaign *c, int player)
{
	if (player == ORDERS_ANY)
		return "everyone";
	if (player < 0 || (size_t)player >= c->player_count)
		return "?";
	const struct player *p = &c->players[player];
	return p->nation ? p->nation : p->key;
}

const char *orders_province_name(const struct campaign *c, int prov)
{
	if (prov == ORDERS_ANY)
		return "ANY";
	if (prov < 0 || (size_t)prov >= c->province_count)
		return "?";
	return c->provinces[prov].name;
}
