#include "config.h"

#include "base/util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void out_of_memory(void)
{
	fputs("campaignd: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_take(&sb);
}

void grow_array(void **items, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	*items = xrealloc(*items, ncap * size);
	memset((char *)*items + *cap * size, 0, (ncap - *cap) * size);
	*cap = ncap;
}

static void strbuf_reserve(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t ncap = sb->cap ? sb->cap : 64;
	while (ncap < sb->len + extra + 1)
		ncap *= 2;
	sb->data = xrealloc(sb->data, ncap);
	sb->cap = ncap;
}

void strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
	strbuf_reserve(sb, n);
	if (n)
		memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
	strbuf_append(sb, s, strlen(s));
}

void strbuf_putc(struct strbuf *sb, char c)
{
	strbuf_append(sb, &c, 1);
}

/* gcc 12 with -fsanitize=undefined at -O1 wrongly reports a "null format
 * string" here (the sanitizer's own null check creates the path). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	strbuf_reserve(sb, (size_t)n);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(sb, fmt, ap);
	va_end(ap);
}

char *strbuf_take(struct strbuf *sb)
{
	char *s = sb->data ? sb->data : xstrdup("");
	sb->data = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
}

/* Folds one Latin-1 code point (U+00C0..U+00FF) to its ASCII base letters. */
static const char *fold_latin1(unsigned cp)
{
	static const char *const table[64] = {
		"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
		"d", "n", "o", "o", "o", "o", "o", "",  "o", "u", "u", "u", "u", "y", "th", "ss",
		"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
		"d", "n", "o", "o", "o", "o", "o", "",  "o", "u", "u", "u", "u", "y", "th", "y",
	};
	if (cp >= 0xC0 && cp <= 0xFF)
		return table[cp - 0xC0];
	return NULL;
}

char *name_fold(const char *utf8)
{
	struct strbuf sb = {0};
	const unsigned char *s = (const unsigned char *)utf8;
	bool pending_space = false;
	strbuf_puts(&sb, "");
	while (*s) {
		unsigned cp = *s;
		size_t len = 1;
		if (cp >= 0xC0 && cp < 0xE0 && (s[1] & 0xC0) == 0x80) {
			cp = ((cp & 0x1F) << 6) | (s[1] & 0x3F);
			len = 2;
		} else if (cp >= 0xE0 && cp < 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
			cp = ((cp & 0x0F) << 12) | ((unsigned)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
			len = 3;
		}
		/* Every dash and hyphen is a '-': word processors and phones
		 * turn "Ile-de-France" into U+2010 to U+2015 or U+2212, and
		 * soft hyphens slip in from copied text. */
		bool dash = (cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212 || cp == 0xAD ||
			    cp == 0xFE63 || cp == 0xFF0D;
		bool space = cp == ' ' || cp == '\t' || cp == '_' || cp == '-' || cp == 0xA0 ||
			     cp == '\r' || cp == '\n' || dash;
		/* Apple Mail and macOS keyboards send accents decomposed ("I" then
		 * U+0302): the combining mark folds away like the precomposed one. */
		bool combining_mark = cp >= 0x300 && cp <= 0x36F;
		/* Phones and word processors turn the apostrophe typographic. */
		if (cp == 0x2018 || cp == 0x2019)
			cp = '\'';
		if (combining_mark) {
			s += len;
			continue;
		}
		if (space) {
			pending_space = sb.len > 0;
		} else {
			if (pending_space)
				strbuf_putc(&sb, ' ');
			pending_space = false;
			const char *f = fold_latin1(cp);
			if (f)
				strbuf_puts(&sb, f);
			else if (cp < 0x80)
				strbuf_putc(&sb, (char)tolower((int)cp));
			else
				strbuf_append(&sb, (const char *)s, len);
		}
		s += len;
	}
	return strbuf_take(&sb);
}

size_t utf8_columns(const char *s)
{
	size_t w = 0;
	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

bool str_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, true;
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, true;
	}
	return false;
}

bool name_equal(const char *a, const char *b)
{
	char *fa = name_fold(a), *fb = name_fold(b);
	bool eq = strcmp(fa, fb) == 0;
	free(fa);
	free(fb);
	return eq;
}

size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b);
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	size_t *row = xmalloc((lb + 1) * sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best = i;
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit) {
			free(row);
			return limit + 1;
		}
	}
	size_t d = row[lb];
	free(row);
	return d > limit ? limit + 1 : d;
}

int name_lookup(const char *query, const char *const *names, size_t n, int *suggestion)
{
	char *q = name_fold(query);
	size_t qlen = strlen(q);
	int exact = -1, prefix = -1, prefixes = 0, best = -1;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		char *f = name_fold(names[i]);
		if (strcmp(f, q) == 0 && exact < 0)
			exact = (int)i;
		else if (qlen > 0 && strncmp(f, q, qlen) == 0) {
			prefix = (int)i;
			prefixes++;
		}
		size_t limit = strlen(f) / 3 + 1;
		size_t d = edit_distance(q, f, limit);
		if (d <= limit && d < best_d) {
			best_d = d;
			best = (int)i;
		}
		free(f);
	}
	free(q);
	if (suggestion)
		*suggestion = -1;
	if (exact >= 0)
		return exact;
	if (prefixes == 1 && qlen >= 2)
		return prefix;
	if (suggestion)
		*suggestion = best;
	return -1;
}

char *str_trim(char *s)
{
	char *start = s;
	while (*start && isspace((unsigned char)*start))
		start++;
	size_t len = strlen(start);
	while (len > 0 && isspace((unsigned char)start[len - 1]))
		len--;
	memmove(s, start, len);
	s[len] = '\0';
	return s;
}

bool str_starts_with_ci(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
			return false;
	return true;
}

const char *plural_s(long long n)
{
	return n == 1 ? "" : "s";
}

const char *half_ap_format(int half_ap, char *buf)
{
	int whole = half_ap / 2, half = half_ap % 2;
	if (half == 0)
		snprintf(buf, 16, "%d", whole);
	else if (half_ap < 0)
		snprintf(buf, 16, "-%d.5", -whole);
	else
		snprintf(buf, 16, "%d.5", whole);
	return buf;
}

bool half_ap_parse(const char *s, int *half_ap)
{
	long whole = 0;
	int digits = 0;
	while (*s >= '0' && *s <= '9') {
		whole = whole * 10 + (*s - '0');
		if (whole > 1000000)
			return false;
		s++;
		digits++;
	}
	if (!digits)
		return false;
	int half = 0;
	if (*s == '.') {
		s++;
		if (*s == '5')
			half = 1;
		else if (*s != '0')
			return false;
		s++;
		while (*s == '0')
			s++;
	}
	if (*s)
		return false;
	*half_ap = (int)whole * 2 + half;
	return true;
}

/* Why `s` is not an address we can mail, or NULL if it is one. Deliberately
 * plain (name@domain.tld): what organisers type, not all of RFC 5322. */
const char *address_problem(const char *s)
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
