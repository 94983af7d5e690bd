/* Pure text handling for order mails: see mail_text.h for the contract. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail/mail_text.h"
#include "base/util.h"

#define REPLACEMENT_CHAR 0xFFFDu

/* Decode one UTF-8 sequence at s[*i]. On success store the code point, move
 * *i past it and return true; on an ill-formed sequence move *i by one byte
 * and return false. Follows the well-formed table of Unicode 3.9. */
static bool utf8_next(const unsigned char *s, size_t len, size_t *i, uint32_t *cp)
{
	size_t p = *i;
	unsigned char c = s[p];
	uint32_t v;
	size_t need;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c < 0x80) {
		*cp = c;
		*i = p + 1;
		return true;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*i = p + 1;
		return false;
	}
	if (p + need >= len) {
		*i = p + 1;
		return false;
	}
	for (size_t k = 1; k <= need; k++) {
		unsigned char cc = s[p + k];
		unsigned char min = k == 1 ? lo : 0x80;
		unsigned char max = k == 1 ? hi : 0xBF;
		if (cc < min || cc > max) {
			*i = p + 1;
			return false;
		}
		v = (v << 6) | (cc & 0x3F);
	}
	*cp = v;
	*i = p + need + 1;
	return true;
}

static void utf8_put(struct strbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	strbuf_append(sb, b, n);
}

/* An empty strbuf has data == NULL: the callers always want a string. */
static char *take_string(struct strbuf *sb)
{
	if (!sb->data)
		return xstrdup("");
	return strbuf_take(sb);
}

bool mail_text_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	uint32_t cp;

	while (i < len) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if (!utf8_next(u, len, &i, &cp))
			return false;
	}
	return true;
}

char *mail_text_utf8_sanitize(const char *s, size_t len, bool *replaced)
{
	const unsigned char *u = (const unsigned char *)s;
	struct strbuf sb = {0};
	size_t i = 0;
	uint32_t cp;
	bool bad = false;

	while (i < len) {
		size_t start = i;
		if (u[i] == 0) {
			bad = true;
			i++;
			continue;
		}
		if (u[i] < 0x80) {
			/* Copy a whole ASCII run at once: most text is ASCII. */
			while (i < len && u[i] != 0 && u[i] < 0x80)
				i++;
			strbuf_append(&sb, s + start, i - start);
			continue;
		}
		if (utf8_next(u, len, &i, &cp)) {
			strbuf_append(&sb, s + start, i - start);
		} else {
			utf8_put(&sb, REPLACEMENT_CHAR);
			bad = true;
		}
	}
	if (replaced)
		*replaced = bad;
	return take_string(&sb);
}

/* Windows-1252 0x80-0x9F; the five unassigned bytes keep their C1 value,
 * as browsers do. */
static const uint16_t cp1252_high[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

char *mail_text_from_windows1252(const char *s, size_t len)
{
	struct strbuf sb = {0};

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0)
			continue;
		if (c < 0x80)
			strbuf_putc(&sb, (char)c);
		else if (c < 0xA0)
			utf8_put(&sb, cp1252_high[c - 0x80]);
		else
			utf8_put(&sb, c);
	}
	return take_string(&sb);
}

/* ---------------------------------------------------------------- flowed */

char *mail_text_unflow(const char *utf8, bool delsp)
{
	struct strbuf sb = {0};
	const char *p = utf8;
	bool open = false;
	size_t open_depth = 0;

	while (*p) {
		const char *eol = p + strcspn(p, "\r\n");
		const char *next = eol;
		if (*next == '\r')
			next++;
		if (*next == '\n' && next > eol && next[-1] == '\r')
			next++;
		else if (*next == '\n' && next == eol)
			next++;

		const char *content = p;
		size_t depth = 0;
		while (content < eol && *content == '>') {
			content++;
			depth++;
		}
		if (content < eol && *content == ' ')
			content++;
		size_t clen = (size_t)(eol - content);
		bool signature = clen == 3 && memcmp(content, "-- ", 3) == 0;
		bool flowed = !signature && clen > 0 && content[clen - 1] == ' ';

		if (open && depth != open_depth) {
			strbuf_putc(&sb, '\n');
			open = false;
		}
		if (!open) {
			for (size_t k = 0; k < depth; k++)
				strbuf_putc(&sb, '>');
			if (depth)
				strbuf_putc(&sb, ' ');
			open = true;
			open_depth = depth;
		}
		strbuf_append(&sb, content, flowed && delsp ? clen - 1 : clen);
		if (!flowed) {
			strbuf_putc(&sb, '\n');
			open = false;
		}
		p = next;
	}
	if (open)
		strbuf_putc(&sb, '\n');
	return take_string(&sb);
}

/* ------------------------------------------------------------------ HTML */

struct html_writer {
	struct strbuf sb;
	bool at_line_start;
	bool pending_space;
	int pre_depth;
	int quote_depth;
};

static void html_newline(struct html_writer *w)
{
	strbuf_putc(&w->sb, '\n');
	w->at_line_start = true;
	w->pending_space = false;
}

static void html_block(struct html_writer *w)
{
	if (!w->at_line_start)
		html_newline(w);
	w->pending_space = false;
}

/* Everything visible goes through here so quoted lines get their marker. */
static void html_emit(struct html_writer *w, const char *s, size_t n)
{
	if (w->at_line_start) {
		for (int k = 0; k < w->quote_depth; k++)
			strbuf_putc(&w->sb, '>');
		if (w->quote_depth)
			strbuf_putc(&w->sb, ' ');
		w->at_line_start = false;
	} else if (w->pending_space) {
		strbuf_putc(&w->sb, ' ');
	}
	w->pending_space = false;
	strbuf_append(&w->sb, s, n);
}

static void html_emit_cp(struct html_writer *w, uint32_t cp)
{
	struct strbuf tmp = {0};
	utf8_put(&tmp, cp);
	html_emit(w, tmp.data, tmp.len);
	strbuf_free(&tmp);
}

/* Case-insensitive search for an ASCII needle; NULL if absent. */
static const char *find_ci(const char *hay, const char *needle)
{
	for (const char *p = hay; *p; p++)
		if (str_starts_with_ci(p, needle))
			return p;
	return NULL;
}

static const struct {
	const char *name;
	uint32_t cp;
} html_entities[] = {
	{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''},
	{"nbsp", 0xA0}, {"ensp", 0x2002}, {"emsp", 0x2003}, {"thinsp", 0x2009},
	{"zwnj", 0x200C}, {"zwj", 0x200D}, {"shy", 0xAD},
	{"copy", 0xA9}, {"reg", 0xAE}, {"trade", 0x2122}, {"deg", 0xB0},
	{"euro", 0x20AC}, {"pound", 0xA3}, {"cent", 0xA2}, {"yen", 0xA5},
	{"sect", 0xA7}, {"para", 0xB6}, {"middot", 0xB7}, {"bull", 0x2022},
	{"hellip", 0x2026}, {"ndash", 0x2013}, {"mdash", 0x2014},
	{"lsquo", 0x2018}, {"rsquo", 0x2019}, {"sbquo", 0x201A},
	{"ldquo", 0x201C}, {"rdquo", 0x201D}, {"bdquo", 0x201E},
	{"laquo", 0xAB}, {"raquo", 0xBB}, {"times", 0xD7}, {"divide", 0xF7},
	{"plusmn", 0xB1}, {"frac12", 0xBD}, {"frac14", 0xBC}, {"frac34", 0xBE},
	{"iexcl", 0xA1}, {"iquest", 0xBF}, {"ordf", 0xAA}, {"ordm", 0xBA},
	{"Agrave", 0xC0}, {"Aacute", 0xC1}, {"Acirc", 0xC2}, {"Atilde", 0xC3},
	{"Auml", 0xC4}, {"Aring", 0xC5}, {"AElig", 0xC6}, {"Ccedil", 0xC7},
	{"Egrave", 0xC8}, {"Eacute", 0xC9}, {"Ecirc", 0xCA}, {"Euml", 0xCB},
	{"Igrave", 0xCC}, {"Iacute", 0xCD}, {"Icirc", 0xCE}, {"Iuml", 0xCF},
	{"Ntilde", 0xD1}, {"Ograve", 0xD2}, {"Oacute", 0xD3}, {"Ocirc", 0xD4},
	{"Otilde", 0xD5}, {"Ouml", 0xD6}, {"Oslash", 0xD8}, {"Ugrave", 0xD9},
	{"Uacute", 0xDA}, {"Ucirc", 0xDB}, {"Uuml", 0xDC}, {"Yacute", 0xDD},
	{"szlig", 0xDF}, {"agrave", 0xE0}, {"aacute", 0xE1}, {"acirc", 0xE2},
	{"atilde", 0xE3}, {"auml", 0xE4}, {"aring", 0xE5}, {"aelig", 0xE6},
	{"ccedil", 0xE7}, {"egrave", 0xE8}, {"eacute", 0xE9}, {"ecirc", 0xEA},
	{"euml", 0xEB}, {"igrave", 0xEC}, {"iacute", 0xED}, {"icirc", 0xEE},
	{"iuml", 0xEF}, {"ntilde", 0xF1}, {"ograve", 0xF2}, {"oacute", 0xF3},
	{"ocirc", 0xF4}, {"otilde", 0xF5}, {"ouml", 0xF6}, {"oslash", 0xF8},
	{"ugrave", 0xF9}, {"uacute", 0xFA}, {"ucirc", 0xFB}, {"uuml", 0xFC},
	{"yacute", 0xFD}, {"yuml", 0xFF}, {"OElig", 0x152}, {"oelig", 0x153},
	{"Scaron", 0x160}, {"scaron", 0x161}, {"Yuml", 0x178},
};

/* Decode the entity at p (which points at '&'). Returns the number of bytes
 * consumed and sets *cp, or 0 if this is not an entity we know. */
static size_t html_entity(const char *p, uint32_t *cp)
{
	if (p[1] == '#') {
		const char *q = p + 2;
		int base = 10;
		uint32_t v = 0;
		bool any = false, overflow = false;
		if (*q == 'x' || *q == 'X') {
			base = 16;
			q++;
		}
		for (;; q++) {
			int d;
			if (*q >= '0' && *q <= '9')
				d = *q - '0';
			else if (base == 16 && *q >= 'a' && *q <= 'f')
				d = *q - 'a' + 10;
			else if (base == 16 && *q >= 'A' && *q <= 'F')
				d = *q - 'A' + 10;
			else
				break;
			any = true;
			if (v > 0x10FFFF)
				overflow = true;
			else
				v = v * (uint32_t)base + (uint32_t)d;
		}
		if (!any)
			return 0;
		if (*q == ';')
			q++;
		if (overflow || v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
			v = REPLACEMENT_CHAR;
		else if (v >= 0x80 && v <= 0x9F)
			v = cp1252_high[v - 0x80];
		*cp = v;
		return (size_t)(q - p);
	}
	size_t n = 0;
	while (n < 10 && ((p[1 + n] >= 'a' && p[1 + n] <= 'z') ||
			  (p[1 + n] >= 'A' && p[1 + n] <= 'Z') ||
			  (p[1 + n] >= '0' && p[1 + n] <= '9')))
		n++;
	if (n == 0 || p[1 + n] != ';')
		return 0;
	for (size_t k = 0; k < sizeof(html_entities) / sizeof(html_entities[0]); k++) {
		if (strlen(html_entities[k].name) == n &&
		    memcmp(html_entities[k].name, p + 1, n) == 0) {
			*cp = html_entities[k].cp;
			return n + 2;
		}
	}
	return 0;
}

static bool tag_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

static const char *const html_block_tags[] = {
	"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table",
	"ul", "ol", "dl", "dt", "dd", "hr", "address", "center", "section",
	"article", "header", "footer", "form", "fieldset", "body", "html",
	NULL,
};

/* Elements whose content is never text for the reader. */
static const char *const html_skip_tags[] = {
	"head", "style", "script", "title", "xml", "template", NULL,
};

/* Skip the content of a dropped element that opened just before p.
 * Returns where reading resumes. A <head> without its end tag ends at
 * <body>; anything else without its end tag runs to the end. */
static const char *html_skip_element(const char *p, const char *name)
{
	char end_tag[24];
	snprintf(end_tag, sizeof(end_tag), "</%s", name);
	const char *e = find_ci(p, end_tag);
	if (!e && strcmp(name, "head") == 0)
		return find_ci(p, "<body") ? find_ci(p, "<body") : p + strlen(p);
	if (!e)
		return p + strlen(p);
	const char *gt = strchr(e, '>');
	return gt ? gt + 1 : e + strlen(e);
}

/* Act on a tag; p points just after '<'. Returns where reading resumes. */
static const char *html_tag(struct html_writer *w, const char *p)
{
	bool closing = false;
	char name[16];
	size_t n = 0;

	if (*p == '/') {
		closing = true;
		p++;
	}
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       (*p >= '0' && *p <= '9') || *p == ':' || *p == '-') {
		if (n + 1 < sizeof(name))
			name[n++] = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
		p++;
	}
	name[n] = '\0';
	const char *gt = strchr(p, '>');
	const char *after = gt ? gt + 1 : p + strlen(p);

	if (strcmp(name, "br") == 0) {
		if (w->at_line_start && w->quote_depth)
			html_emit(w, "", 0);
		html_newline(w);
	} else if (strcmp(name, "pre") == 0) {
		html_block(w);
		w->pre_depth += closing ? (w->pre_depth > 0 ? -1 : 0) : 1;
	} else if (strcmp(name, "blockquote") == 0) {
		html_block(w);
		w->quote_depth += closing ? (w->quote_depth > 0 ? -1 : 0) : 1;
	} else if (tag_in(name, html_block_tags)) {
		html_block(w);
	} else if (strcmp(name, "td") == 0 || strcmp(name, "th") == 0) {
		if (!w->at_line_start)
			w->pending_space = true;
	} else if (!closing && tag_in(name, html_skip_tags)) {
		bool self_closed = gt && gt > p && gt[-1] == '/';
		if (!self_closed)
			after = html_skip_element(after, name);
	}
	return after;
}

char *mail_text_from_html(const char *utf8)
{
	struct html_writer w = {.at_line_start = true};
	const char *p = utf8;

	while (*p) {
		char c = *p;
		if (c == '<') {
			char n = p[1];
			if (n == '!' && strncmp(p, "<!--", 4) == 0) {
				const char *e = strstr(p + 4, "-->");
				p = e ? e + 3 : p + strlen(p);
			} else if (n == '!' || n == '?') {
				const char *e = strchr(p, '>');
				p = e ? e + 1 : p + strlen(p);
			} else if (n == '/' || (n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z')) {
				p = html_tag(&w, p + 1);
			} else {
				html_emit(&w, "<", 1);
				p++;
			}
			continue;
		}
		if (c == '&') {
			uint32_t cp;
			size_t used = html_entity(p, &cp);
			if (used) {
				html_emit_cp(&w, cp);
				p += used;
			} else {
				html_emit(&w, "&", 1);
				p++;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
			if (w.pre_depth > 0) {
				if (c == '\n')
					html_newline(&w);
				else if (c != '\r')
					html_emit(&w, " ", 1);
			} else if (!w.at_line_start) {
				w.pending_space = true;
			}
			p++;
			continue;
		}
		const char *start = p;
		while (*p && *p != '<' && *p != '&' && *p != ' ' && *p != '\t' &&
		       *p != '\r' && *p != '\n' && *p != '\f')
			p++;
		html_emit(&w, start, (size_t)(p - start));
	}
	if (!w.at_line_start)
		html_newline(&w);
	return take_string(&w.sb);
}

/* --------------------------------------------------------------- cleaning */

static bool is_unicode_space(uint32_t cp)
{
	return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
	       cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

static bool is_invisible(uint32_t cp)
{
	return (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF ||
	       cp == 0xAD || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* First pass: line ends, spaces and invisible characters. */
static char *normalise_characters(const char *utf8)
{
	const unsigned char *u = (const unsigned char *)utf8;
	size_t len = strlen(utf8);
	struct strbuf sb = {0};
	size_t i = 0;

	while (i < len) {
		size_t start = i;
		uint32_t cp;
		if (u[i] == '\r') {
			strbuf_putc(&sb, '\n');
			i += (u[i + 1] == '\n') ? 2 : 1;
			continue;
		}
		if (!utf8_next(u, len, &i, &cp)) {
			utf8_put(&sb, REPLACEMENT_CHAR);
			continue;
		}
		if (cp == '\n' || cp == 0x2028 || cp == 0x2029)
			strbuf_putc(&sb, '\n');
		else if (cp == '\t' || is_unicode_space(cp))
			strbuf_putc(&sb, ' ');
		else if (is_invisible(cp))
			continue;
		else
			strbuf_append(&sb, utf8 + start, i - start);
	}
	return take_string(&sb);
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* "On <date>, <name> wrote:" in the languages our players write. */
static bool attribution_matches(const char *line)
{
	static const struct {
		const char *start, *verb;
	} forms[] = {
		{"On ", "wrote"},   {"Le ", "a \xc3\xa9" "crit"}, {"Am ", "schrieb"},
		{"El ", "escribi"}, {"Il ", "ha scritto"},       {"Op ", "schreef"},
	};
	if (!ends_with(line, ":"))
		return false;
	for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++)
		if (strncmp(line, forms[k].start, strlen(forms[k].start)) == 0 &&
		    strstr(line, forms[k].verb))
			return true;
	return false;
}

static bool is_attribution(const char *line, const char *next)
{
	line = skip_blanks(line);
	if (attribution_matches(line))
		return true;
	/* Clients wrap long attributions; accept one continuation line. */
	if (!next || !*skip_blanks(next) || strlen(line) + strlen(next) > 400)
		return false;
	char *joined = xasprintf("%s %s", line, skip_blanks(next));
	bool match = attribution_matches(joined);
	free(joined);
	return match;
}

static bool contains_ci(const char *hay, const char *needle)
{
	return find_ci(hay, needle) != NULL;
}

static bool is_original_message(const char *line)
{
	static const char *const phrases[] = {
		"original message", "ursprüngliche nachricht", "message d'origine",
		"mensaje original", "messaggio originale", "oorspronkelijk bericht",
		NULL,
	};
	line = skip_blanks(line);
	if (strncmp(line, "---", 3) != 0)
		return false;
	for (size_t k = 0; phrases[k]; k++)
		if (contains_ci(line, phrases[k]))
			return true;
	return false;
}

static bool is_underscore_rule(const char *line)
{
	line = skip_blanks(line);
	size_t n = strspn(line, "_");
	return n >= 20 && *skip_blanks(line + n) == '\0';
}

static bool starts_with_any_ci(const char *s, const char *const *list)
{
	while (*s == '*')
		s++;
	for (; *list; list++)
		if (str_starts_with_ci(s, *list))
			return true;
	return false;
}

static bool is_outlook_header(const char *line, const char *next)
{
	static const char *const from[] = {"From:", "Von:", "De :", "De:", NULL};
	static const char *const follow[] = {
		"Sent:", "Date:", "To:", "Subject:", "Cc:", "Envoy\xc3\xa9 :",
		"Envoy\xc3\xa9:", "Gesendet:", "Datum:", "An:", "\xc3\x80 :",
		"Objet :", "Betreff:", NULL,
	};
	if (!next || !starts_with_any_ci(skip_blanks(line), from))
		return false;
	return starts_with_any_ci(skip_blanks(next), follow);
}

/* Sign-offs that phones and mail programs add: not the player's orders, so
 * they are skipped (reading goes on: a bottom-posted reply has them in the
 * middle). */
static bool is_device_signature(const char *line)
{
	static const char *const forms[] = {
		"Sent from my ", "Sent from Mail for Windows", "Sent from Outlook",
		"Sent from Yahoo Mail", "Sent from Samsung", "Sent from Gmail",
		"Sent from Proton", "Sent with Proton", "Sent from the ", "Sent via ",
		"Get Outlook for ", "Download Outlook for ",
		/* French */
		"Envoy\xc3\xa9 de mon ", "Envoy\xc3\xa9 depuis mon ", "Envoy\xc3\xa9 \xc3\xa0 partir de ",
		"Envoy\xc3\xa9 de Courrier pour Windows", "Envoy\xc3\xa9 depuis Outlook",
		"Obtenir Outlook pour ", "T\xc3\xa9l\xc3\xa9" "charger Outlook pour ",
		/* German */
		"Von meinem ", "Gesendet von meinem ", "Gesendet von Mail f\xc3\xbcr Windows",
		"Gesendet von Outlook", "Gesendet mit ", "Outlook f\xc3\xbcr ",
		/* Spanish */
		"Enviado desde mi ", "Enviado desde Correo para Windows", "Enviado desde Outlook",
		"Enviado desde Yahoo", "Obtener Outlook para ", "Descargar Outlook para ",
		/* Italian */
		"Inviato da ", "Inviato dal mio ", "Scarica Outlook per ", "Ottieni Outlook per ",
		/* Dutch */
		"Verzonden vanaf mijn ", "Verstuurd vanaf mijn ", "Verzonden met ",
		"Verzonden vanuit ", "Outlook voor ", "Download Outlook voor ",
		NULL,
	};
	line = skip_blanks(line);
	if (strlen(line) > 120)
		return false;
	for (size_t k = 0; forms[k]; k++)
		if (str_starts_with_ci(line, forms[k]))
			return true;
	return false;
}

/* The line that opens a forwarded message: Gmail's, Thunderbird's and
 * mutt's dashed lines, Apple Mail's "Begin forwarded message:", localised. */
static bool is_forward_marker(const char *line)
{
	static const char *const dashed[] = {
		"forwarded message", "mensaje reenviado", "message transf",
		"weitergeleitete nachricht", "messaggio inoltrato", "doorgestuurd bericht",
		"mensagem encaminhada", NULL,
	};
	static const char *const begin[] = {
		"Begin forwarded message", "D\xc3\xa9" "but du message r\xc3\xa9" "exp\xc3\xa9" "di\xc3\xa9",
		"Anfang der weitergeleiteten", "Inicio del mensaje reenviado",
		"Inizio messaggio inoltrato", "Begin doorgestuurd bericht", NULL,
	};
	line = skip_blanks(line);
	if (strncmp(line, "---", 3) == 0) {
		for (size_t k = 0; dashed[k]; k++)
			if (contains_ci(line, dashed[k]))
				return true;
		return false;
	}
	return ends_with(line, ":") && starts_with_any_ci(line, begin);
}

/* A line of the header block that opens a forwarded or earlier message. */
static bool is_quoted_header(const char *line)
{
	static const char *const names[] = {
		"From", "Sent", "Date", "To", "Cc", "Bcc", "Subject", "Reply-To",
		"Von", "Gesendet", "Datum", "An", "Betreff", "Kopie",
		"De", "Envoy\xc3\xa9", "\xc3\x80", "Objet",
		"Enviado", "Para", "Asunto", "Fecha", "CC",
		"Da", "Inviato", "A", "Oggetto", "Data",
		"Van", "Verzonden", "Aan", "Onderwerp", NULL,
	};
	line = skip_blanks(line);
	while (*line == '*')
		line++;
	for (size_t k = 0; names[k]; k++) {
		size_t n = strlen(names[k]);
		if (strncasecmp(line, names[k], n) != 0)
			continue;
		const char *after = line + n;
		if (*after == ' ')
			after++;
		if (*after == '*')
			after++;
		if (*after == ':')
			return true;
	}
	return false;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
}

static bool is_quoted(const char *line)
{
	const char *body = skip_blanks(line);
	return *body == '>' || *body == '|';
}

/* Why reading stopped, as the rejection tells the player. */
static const char STOP_SIGNATURE[] = "a signature separator (\"--\") begins there";
static const char STOP_FORWARD[] = "a forwarded message begins there";
static const char STOP_ORIGINAL[] = "an earlier message (\"Original Message\") begins there";
static const char STOP_RULE[] = "a line of underscores (the start of an earlier message) is there";
static const char STOP_HEADERS[] = "the header lines of an earlier message (From:, Sent:...) "
				   "begin there";
static const char STOP_ATTRIBUTION[] = "an earlier message (\"On ... wrote:\") follows there "
				       "without quote marks";

static void reading_add_earlier(struct mail_text_reading *out, char *text)
{
	if (out->earlier_count < MAIL_TEXT_MAX_EARLIER && *text)
		out->earlier[out->earlier_count++] = text;
	else
		free(text);
}

static void read_lines(char **lines, size_t count, struct mail_text_reading *out, int depth);

/* The forwarded or earlier message from line `from` on: its header block is
 * skipped, then it is read like a mail of its own. */
static void read_earlier(char **lines, size_t from, size_t count, struct mail_text_reading *out,
			 int depth)
{
	if (depth >= MAIL_TEXT_MAX_EARLIER || out->earlier_count >= MAIL_TEXT_MAX_EARLIER)
		return;
	size_t j = from;
	while (j < count && !*skip_blanks(lines[j]))
		j++;
	if (j < count && is_quoted_header(lines[j])) {
		size_t k = j;
		while (k < count && k < j + 30 && *skip_blanks(lines[k]))
			k++;
		if (k < count && k < j + 30) {
			j = k;
		} else {
			while (j < count && is_quoted_header(lines[j]))
				j++;
		}
	}
	struct mail_text_reading sub = {0};
	read_lines(lines + j, count - j, &sub, depth + 1);
	reading_add_earlier(out, sub.text);
	for (size_t i = 0; i < sub.earlier_count; i++)
		reading_add_earlier(out, sub.earlier[i]);
}

static void read_lines(char **lines, size_t count, struct mail_text_reading *out, int depth)
{
	struct strbuf sb = {0};
	size_t kept_blank = 0;
	bool any_kept = false, skipped = false;
	const char *why = NULL;
	size_t stop = 0, earlier_from = 0;

	for (size_t i = 0; i < count && !why; i++) {
		char *line = lines[i];
		if (strcmp(line, "-- ") == 0 || strcmp(line, "--") == 0) {
			why = STOP_SIGNATURE;
			stop = i;
			break;
		}
		rtrim(line);
		/* The next non-blank line, for markers that span two lines. */
		const char *next = NULL;
		for (size_t j = i + 1; j < count && j <= i + 2; j++) {
			if (*skip_blanks(lines[j])) {
				next = lines[j];
				break;
			}
		}
		const char *adjacent = i + 1 < count ? lines[i + 1] : NULL;
		if (is_forward_marker(line))
			why = STOP_FORWARD, earlier_from = i + 1;
		else if (is_original_message(line))
			why = STOP_ORIGINAL, earlier_from = i + 1;
		else if (is_underscore_rule(line))
			why = STOP_RULE, earlier_from = i + 1;
		else if (is_outlook_header(line, next))
			why = STOP_HEADERS, earlier_from = i;
		if (why) {
			stop = i;
			break;
		}
		if (is_attribution(line, adjacent)) {
			/* "On ... wrote:" then quoted lines: the player answers in
			 * between or below; read on after the quotes. */
			size_t end = attribution_matches(skip_blanks(line)) ? i + 1 : i + 2;
			size_t j = end;
			while (j < count && !*skip_blanks(lines[j]))
				j++;
			if (j >= count || is_quoted(lines[j])) {
				i = end - 1;
				skipped = true;
				continue;
			}
			why = STOP_ATTRIBUTION;
			stop = i;
			earlier_from = end;
			break;
		}
		if (is_device_signature(line) || is_quoted(line)) {
			skipped = true;
			continue;
		}
		if (!*skip_blanks(line)) {
			if (any_kept)
				kept_blank++;
			continue;
		}
		/* the blank lines around skipped ones become one */
		if (skipped && kept_blank > 1)
			kept_blank = 1;
		skipped = false;
		for (; kept_blank > 0; kept_blank--)
			strbuf_putc(&sb, '\n');
		strbuf_puts(&sb, line);
		strbuf_putc(&sb, '\n');
		any_kept = true;
	}
	out->text = take_string(&sb);
	if (why) {
		out->stop_line = (int)stop + 1;
		out->stop_why = why;
		if (why != STOP_SIGNATURE)
			read_earlier(lines, earlier_from, count, out, depth);
	}
}

void mail_text_read(const char *utf8, struct mail_text_reading *out)
{
	memset(out, 0, sizeof *out);
	char *text = normalise_characters(utf8);
	char **lines = NULL;
	size_t count = 0, cap = 0;

	for (char *p = text;;) {
		char *nl = strchr(p, '\n');
		grow_array((void **)&lines, &cap, count + 1, sizeof(*lines));
		lines[count++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	/* A final line end does not start another line. */
	if (count > 0 && lines[count - 1][0] == '\0')
		count--;
	read_lines(lines, count, out, 0);
	free(lines);
	free(text);
}

void mail_text_reading_free(struct mail_text_reading *r)
{
	if (!r)
		return;
	free(r->text);
	for (size_t i = 0; i < r->earlier_count; i++)
		free(r->earlier[i]);
	memset(r, 0, sizeof *r);
}

char *mail_text_clean(const char *utf8)
{
	struct mail_text_reading r;
	mail_text_read(utf8, &r);
	char *text = r.text;
	r.text = NULL;
	mail_text_reading_free(&r);
	return text;
}
