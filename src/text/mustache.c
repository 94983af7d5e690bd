/* Mustache engine. Compilation runs in three passes over a flat token list:
 *
 * 1. lex: split the text into text tokens (each ends at a newline or a tag)
 *    and tag tokens, following delimiter changes, and pair every section,
 *    parent and block with its closing tag;
 * 2. whitespace: decide which tags are "standalone" and drop the whitespace
 *    and line ends they own, strip the intrinsic indentation of blocks passed
 *    to a parent, and record the indentation of partials, parents and blocks;
 * 3. build: turn the surviving tokens into a tree of nodes.
 *
 * Whitespace follows the spec's tests and its non-normative whitespace notes:
 * - a section, inverted section, comment, delimiter change, partial or block
 *   parameter tag alone on its line (but for spaces and tabs) removes the
 *   whole line; a standalone partial indents every line of its expansion by
 *   the whitespace that preceded it;
 * - a parent element whose opening tag has only whitespace before it and
 *   whose closing tag has only whitespace after it is standalone: the
 *   leading whitespace becomes its indentation and the trailing line end goes;
 * - a block passed to a parent (an argument) owns the line end right after
 *   its opening tag, and the whitespace that starts its next line is its
 *   intrinsic indentation, removed from the start of each of its lines;
 * - a block in a template (a parameter) whose opening tag has only whitespace
 *   before it and whose closing tag only whitespace after it indents the
 *   argument that replaces it: by its own intrinsic indentation if the
 *   opening tag ends its line, else by the whitespace before the opening tag.
 *
 * Indentation is applied at render time: a node that starts a template line
 * writes the current indentation first, but only when the output is at the
 * start of a line, so interpolated data with newlines is never indented. */
#include "config.h"

#include "text/mustache.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_INDEX SIZE_MAX

/* ---- compiled form ---- */

enum node_kind {
	NODE_TEXT,
	NODE_VARIABLE,
	NODE_SECTION,
	NODE_INVERTED,
	NODE_PARTIAL,
	NODE_PARENT,
	NODE_BLOCK,
};

struct node;

struct node_list {
	struct node *items;
	size_t count;
	size_t cap;
};

/* A name as written in a tag: "." (no parts) or dotted parts. */
struct name_path {
	char **parts;
	size_t count;
};

struct node {
	enum node_kind kind;
	bool line_start;  /* the node starts a line of the template */
	int line, column; /* of the tag, for errors */
	/* NODE_TEXT */
	const char *text;
	size_t len;
	/* NODE_VARIABLE, NODE_SECTION, NODE_INVERTED, dynamic partials and parents */
	struct name_path path;
	bool escape;  /* NODE_VARIABLE */
	/* NODE_PARTIAL, NODE_PARENT: the partial's name (static names only);
	 * NODE_BLOCK: the block's name */
	char *name;
	bool dynamic;     /* NODE_PARTIAL, NODE_PARENT: name comes from the data */
	bool standalone;  /* NODE_PARTIAL, NODE_PARENT, NODE_BLOCK parameter */
	const char *indent; /* indentation of a standalone node (points into the text) */
	size_t indent_len;
	/* NODE_SECTION, NODE_INVERTED, NODE_BLOCK: content; NODE_PARENT: its
	 * argument blocks (NODE_BLOCK nodes) */
	struct node_list children;
};

struct mustache_template {
	char *text;
	size_t len;
	struct node_list root;
};

/* ---- errors ---- */

static void set_error(struct mustache_error *err, int line, int column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set_error(struct mustache_error *err, int line, int column, const char *fmt, ...)
{
	if (!err)
		return;
	err->line = line;
	err->column = column;
	err->partial[0] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

/* Quotes at most 40 bytes of s for an error message, with control
 * characters escaped so garbage input gives a readable message. */
static const char *quote(const char *s, size_t n, char *buf, size_t bufsize)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 6 < bufsize; i++) {
		unsigned char c = (unsigned char)s[i];
		if (i == 40) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, bufsize - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o] = '\0';
	return buf;
}

/* ---- pass 1: tokens ---- */

enum token_kind { TOKEN_TEXT, TOKEN_TAG };

struct token {
	enum token_kind kind;
	char sigil;        /* tags: 0 (variable) or one of # ^ / ! > < $ = & { */
	size_t start, len; /* text: the bytes; tags: the name, without '*' */
	bool dynamic;      /* '>' '<' '/': the name started with '*' */
	int line, column;
	size_t match;      /* opening tag <-> its closing tag */
	bool argument;     /* '$' directly inside a parent, and its '/' */
	bool dropped;      /* whitespace owned by a standalone tag */
	bool left_clear;   /* only whitespace before the tag on its line */
	bool right_clear;  /* only whitespace after the tag on its line */
	bool alone;        /* the only tag on its line, with only whitespace around */
	bool standalone;   /* see struct node */
	bool owns_line;    /* the tag's whole line was removed */
	size_t indent_start, indent_len;
};

struct token_list {
	struct token *items;
	size_t count;
	size_t cap;
};

struct lexer {
	const char *text;
	size_t len;
	size_t pos;
	int line;
	size_t line_offset; /* offset of the current line's first byte */
	const char *open;
	size_t open_len;
	const char *close;
	size_t close_len;
	struct token_list tokens;
	struct mustache_error *err;
};

static struct token *add_token(struct token_list *tl)
{
	grow_array((void **)&tl->items, &tl->cap, tl->count + 1, sizeof(*tl->items));
	struct token *t = &tl->items[tl->count++];
	memset(t, 0, sizeof(*t));
	t->match = NO_INDEX;
	return t;
}

/* Adds text [start, end) as tokens that each end at a newline, and keeps
 * the line count. */
static void lex_text(struct lexer *lx, size_t start, size_t end)
{
	while (start < end) {
		const char *nl = memchr(lx->text + start, '\n', end - start);
		size_t stop = nl ? (size_t)(nl - lx->text) + 1 : end;
		struct token *t = add_token(&lx->tokens);
		t->kind = TOKEN_TEXT;
		t->start = start;
		t->len = stop - start;
		t->line = lx->line;
		t->column = (int)(start - lx->line_offset) + 1;
		if (nl) {
			lx->line++;
			lx->line_offset = stop;
		}
		start = stop;
	}
}

static void count_lines(struct lexer *lx, size_t start, size_t end)
{
	for (size_t i = start; i < end; i++)
		if (lx->text[i] == '\n') {
			lx->line++;
			lx->line_offset = i + 1;
		}
}

static const char *find(const char *hay, size_t haylen, const char *needle, size_t nlen)
{
	if (nlen == 0)
		return NULL;
	const char *end = hay + haylen;
	while ((size_t)(end - hay) >= nlen) {
		const char *p = memchr(hay, needle[0], (size_t)(end - hay) - nlen + 1);
		if (!p)
			return NULL;
		if (memcmp(p, needle, nlen) == 0)
			return p;
		hay = p + 1;
	}
	return NULL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Names may contain anything but whitespace; they must start with a
 * letter, digit, '_', '.', '-' or a UTF-8 byte, so that a mistyped sigil
 * ("{{%x}}", "{{@x}}") is reported instead of looked up. */
static bool is_name_start(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-' || c >= 0x80;
}

/* Checks a dotted name: "." alone, or non-empty parts separated by dots. */
static bool valid_dotted_name(const char *s, size_t n)
{
	if (n == 1 && s[0] == '.')
		return true;
	bool part_empty = true;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (part_empty)
				return false;
			part_empty = true;
		} else {
			part_empty = false;
		}
	}
	return !part_empty;
}

static int lex_set_delimiters(struct lexer *lx, const char *s, size_t n, int line, int column)
{
	char q[256];
	size_t i = 0;
	while (i < n && is_space(s[i]))
		i++;
	size_t a = i;
	while (i < n && !is_space(s[i]))
		i++;
	size_t a_end = i;
	while (i < n && is_space(s[i]))
		i++;
	size_t b = i;
	while (i < n && !is_space(s[i]))
		i++;
	size_t b_end = i;
	while (i < n && is_space(s[i]))
		i++;
	if (a == a_end || b == b_end || i != n) {
		set_error(lx->err, line, column,
			  "bad delimiter change \"%s\": expected two delimiters separated by a space, as in {{=<%% %%>=}}",
			  quote(s, n, q, sizeof(q)));
		return -1;
	}
	if (memchr(s + a, '=', a_end - a) || memchr(s + b, '=', b_end - b)) {
		set_error(lx->err, line, column, "bad delimiter change \"%s\": a delimiter may not contain '='",
			  quote(s, n, q, sizeof(q)));
		return -1;
	}
	lx->open = s + a;
	lx->open_len = a_end - a;
	lx->close = s + b;
	lx->close_len = b_end - b;
	return 0;
}

/* Reads one tag starting at the opening delimiter at `at`. */
static int lex_tag(struct lexer *lx, size_t at)
{
	char q[256], q2[64];
	int line = lx->line;
	int column = (int)(at - lx->line_offset) + 1;
	size_t p = at + lx->open_len;
	char sigil = p < lx->len ? lx->text[p] : 0;
	const char *closing = lx->close;
	size_t closing_len = lx->close_len;
	char extra = 0; /* '}' or '=' that must come just before the closing delimiter */

	if (sigil && strchr("#^/!><$=&{", sigil)) {
		p++;
		if (sigil == '{' || sigil == '=')
			extra = sigil == '{' ? '}' : '=';
	} else {
		sigil = 0;
	}
	/* Search for the closing delimiter, with the extra character before it. */
	const char *e = NULL;
	size_t from = p;
	for (;;) {
		e = find(lx->text + from, lx->len - from, closing, closing_len);
		if (!e || !extra)
			break;
		size_t off = (size_t)(e - lx->text);
		if (off > p && lx->text[off - 1] == extra)
			break;
		from = off + 1;
	}
	if (!e) {
		if (extra)
			set_error(lx->err, line, column, "unclosed tag: \"%s%c\" has no matching \"%c%s\"",
				  quote(lx->open, lx->open_len, q, sizeof(q)), sigil, extra,
				  quote(closing, closing_len, q2, sizeof(q2)));
		else
			set_error(lx->err, line, column, "unclosed tag: \"%s\" has no matching \"%s\"",
				  quote(lx->open, lx->open_len, q, sizeof(q)),
				  quote(closing, closing_len, q2, sizeof(q2)));
		return -1;
	}
	size_t content_end = (size_t)(e - lx->text) - (extra ? 1 : 0);
	size_t tag_end = (size_t)(e - lx->text) + closing_len;
	const char *content = lx->text + p;
	size_t content_len = content_end - p;
	lx->pos = tag_end;

	if (sigil == '!') {
		count_lines(lx, at, tag_end);
		struct token *t = add_token(&lx->tokens);
		t->kind = TOKEN_TAG;
		t->sigil = '!';
		t->line = line;
		t->column = column;
		return 0;
	}
	if (sigil == '=') {
		/* The new delimiters point into the text, which outlives the lexer. */
		if (lex_set_delimiters(lx, content, content_len, line, column) < 0)
			return -1;
		count_lines(lx, at, tag_end);
		struct token *t = add_token(&lx->tokens);
		t->kind = TOKEN_TAG;
		t->sigil = '=';
		t->line = line;
		t->column = column;
		return 0;
	}
	count_lines(lx, at, tag_end);

	size_t s = 0, n = content_len;
	while (s < n && is_space(content[s]))
		s++;
	while (n > s && is_space(content[n - 1]))
		n--;
	bool dynamic = false;
	if ((sigil == '>' || sigil == '<' || sigil == '/') && s < n && content[s] == '*') {
		dynamic = true;
		s++;
		while (s < n && is_space(content[s]))
			s++;
	}
	if (s == n) {
		set_error(lx->err, line, column, "empty tag \"%s\": a name is missing",
			  quote(lx->text + at, tag_end - at, q, sizeof(q)));
		return -1;
	}
	for (size_t i = s; i < n; i++)
		if (is_space(content[i])) {
			set_error(lx->err, line, column, "tag name \"%s\" contains a space",
				  quote(content + s, n - s, q, sizeof(q)));
			return -1;
		}
	if (sigil == 0 && !is_name_start((unsigned char)content[s])) {
		set_error(lx->err, line, column, "unknown tag type '%s' in \"%s\"",
			  quote(content + s, 1, q2, sizeof(q2)),
			  quote(lx->text + at, tag_end - at, q, sizeof(q)));
		return -1;
	}
	bool dotted = sigil != '>' && sigil != '<' && sigil != '$' && sigil != '/';
	if ((dotted || dynamic) && !valid_dotted_name(content + s, n - s)) {
		set_error(lx->err, line, column, "malformed name \"%s\": empty part between dots",
			  quote(content + s, n - s, q, sizeof(q)));
		return -1;
	}
	struct token *t = add_token(&lx->tokens);
	t->kind = TOKEN_TAG;
	t->sigil = sigil;
	t->start = (size_t)(content - lx->text) + s;
	t->len = n - s;
	t->dynamic = dynamic;
	t->line = line;
	t->column = column;
	return 0;
}

static const char *sigil_word(char sigil)
{
	switch (sigil) {
	case '#': return "section";
	case '^': return "inverted section";
	case '<': return "parent";
	case '$': return "block";
	default: return "tag";
	}
}

/* Pairs opening and closing tags; marks blocks passed to parents. */
static int lex_pair(struct lexer *lx)
{
	char q[256];
	size_t *stack = NULL, depth = 0, cap = 0;
	int rc = -1;
	struct token *tk = lx->tokens.items;
	for (size_t i = 0; i < lx->tokens.count; i++) {
		struct token *t = &tk[i];
		if (t->kind != TOKEN_TAG)
			continue;
		if (t->sigil == '#' || t->sigil == '^' || t->sigil == '<' || t->sigil == '$') {
			if (depth >= MUSTACHE_MAX_NESTING) {
				set_error(lx->err, t->line, t->column,
					  "sections, parents and blocks nested more than %d deep",
					  MUSTACHE_MAX_NESTING);
				goto done;
			}
			if (t->sigil == '$' && depth && tk[stack[depth - 1]].sigil == '<')
				t->argument = true;
			grow_array((void **)&stack, &cap, depth + 1, sizeof(*stack));
			stack[depth++] = i;
		} else if (t->sigil == '/') {
			const char *name = lx->text + t->start;
			if (!depth) {
				set_error(lx->err, t->line, t->column, "\"%s\" closes nothing: no section is open",
					  quote(name, t->len, q, sizeof(q)));
				goto done;
			}
			struct token *o = &tk[stack[depth - 1]];
			if (o->len != t->len || o->dynamic != t->dynamic ||
			    memcmp(lx->text + o->start, name, t->len) != 0) {
				char q2[256];
				set_error(lx->err, t->line, t->column,
					  "closing tag \"%s%s\" does not match the %s \"%s%s\" opened on line %d",
					  t->dynamic ? "*" : "", quote(name, t->len, q, sizeof(q)),
					  sigil_word(o->sigil), o->dynamic ? "*" : "",
					  quote(lx->text + o->start, o->len, q2, sizeof(q2)), o->line);
				goto done;
			}
			o->match = i;
			t->match = stack[depth - 1];
			t->argument = o->argument;
			depth--;
		}
	}
	if (depth) {
		struct token *o = &tk[stack[depth - 1]];
		set_error(lx->err, o->line, o->column, "unclosed %s \"%s%s\": no closing tag before the end",
			  sigil_word(o->sigil), o->dynamic ? "*" : "",
			  quote(lx->text + o->start, o->len, q, sizeof(q)));
		goto done;
	}
	rc = 0;
done:
	free(stack);
	return rc;
}

static int lex(struct lexer *lx)
{
	while (lx->pos < lx->len) {
		const char *o = find(lx->text + lx->pos, lx->len - lx->pos, lx->open, lx->open_len);
		size_t at = o ? (size_t)(o - lx->text) : lx->len;
		lex_text(lx, lx->pos, at);
		lx->pos = at;
		if (!o)
			break;
		if (lex_tag(lx, at) < 0)
			return -1;
	}
	return lex_pair(lx);
}

/* ---- pass 2: whitespace ---- */

static bool token_ends_line(const struct token *t, const char *text)
{
	return t->kind == TOKEN_TEXT && t->len && text[t->start + t->len - 1] == '\n';
}

/* Spaces and tabs only, optionally followed by "\n" or "\r\n". */
static bool blank_text(const struct token *t, const char *text)
{
	const char *s = text + t->start;
	size_t n = t->len;
	if (n && s[n - 1] == '\n') {
		n--;
		if (n && s[n - 1] == '\r')
			n--;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

static size_t leading_blanks(const struct token *t, const char *text)
{
	size_t i = 0;
	while (i < t->len && (text[t->start + i] == ' ' || text[t->start + i] == '\t'))
		i++;
	return i;
}

/* Marks, for each tag, whether only whitespace surrounds it on its line. */
static void mark_clearance(struct token_list *tl, const char *text)
{
	struct token *tk = tl->items;
	size_t begin = 0;
	while (begin < tl->count) {
		size_t end = begin; /* last token of the line */
		while (end + 1 < tl->count && !token_ends_line(&tk[end], text))
			end++;
		size_t tags = 0;
		bool blank = true;
		for (size_t i = begin; i <= end; i++) {
			if (tk[i].kind == TOKEN_TAG)
				tags++;
			else if (!blank_text(&tk[i], text))
				blank = false;
		}
		bool left = true;
		for (size_t i = begin; i <= end; i++) {
			if (tk[i].kind == TOKEN_TAG) {
				tk[i].left_clear = left;
				tk[i].alone = tags == 1 && blank;
				left = false;
			} else if (!blank_text(&tk[i], text)) {
				left = false;
			}
		}
		bool right = true;
		for (size_t i = end + 1; i-- > begin;) {
			if (tk[i].kind == TOKEN_TAG) {
				tk[i].right_clear = right;
				right = false;
			} else if (!blank_text(&tk[i], text)) {
				right = false;
			}
		}
		begin = end + 1;
	}
}

/* The whitespace text token just before tag i on its line, or NO_INDEX. */
static size_t leading_token(const struct token_list *tl, size_t i)
{
	if (i == 0 || tl->items[i - 1].kind != TOKEN_TEXT)
		return NO_INDEX;
	return i - 1;
}

/* Drops the whitespace text after tag i up to and including its line end. */
static void drop_rest_of_line(struct token_list *tl, size_t i, const char *text)
{
	for (size_t j = i + 1; j < tl->count; j++) {
		struct token *t = &tl->items[j];
		if (t->kind != TOKEN_TEXT)
			break;
		t->dropped = true;
		if (token_ends_line(t, text))
			break;
	}
}

/* Drops every text token on the line of tag i (the tag is alone on it). */
static void drop_line(struct token_list *tl, size_t i, const char *text)
{
	tl->items[i].owns_line = true;
	size_t lead = leading_token(tl, i);
	if (lead != NO_INDEX && !token_ends_line(&tl->items[lead], text))
		tl->items[lead].dropped = true;
	drop_rest_of_line(tl, i, text);
}

/* The first token of the line after tag i's line, or NO_INDEX. */
static size_t next_line_token(const struct token_list *tl, size_t i, const char *text)
{
	for (size_t j = i + 1; j < tl->count; j++)
		if (token_ends_line(&tl->items[j], text))
			return j + 1 < tl->count ? j + 1 : NO_INDEX;
	return NO_INDEX;
}

static bool starts_line(const struct token_list *tl, size_t i, const char *text)
{
	return i == 0 || token_ends_line(&tl->items[i - 1], text);
}

/* Removes the intrinsic indentation [ind, ind+n) from the start of each
 * line of the content of the block opened at token `open`. */
static void dedent_block(struct token_list *tl, size_t open, const char *text, const char *ind, size_t n)
{
	for (size_t j = open + 1; j < tl->items[open].match; j++) {
		struct token *t = &tl->items[j];
		if (t->kind != TOKEN_TEXT || !starts_line(tl, j, text))
			continue;
		size_t k = 0;
		while (k < n && k < t->len && text[t->start + k] == ind[k])
			k++;
		t->start += k;
		t->len -= k;
	}
}

static void apply_whitespace(struct token_list *tl, const char *text)
{
	mark_clearance(tl, text);
	for (size_t i = 0; i < tl->count; i++) {
		struct token *t = &tl->items[i];
		if (t->kind != TOKEN_TAG || t->sigil == 0 || t->sigil == '&' || t->sigil == '{')
			continue;
		if (t->sigil == '$' && t->argument) {
			if (!t->right_clear)
				continue;
			drop_rest_of_line(tl, i, text);
			size_t next = next_line_token(tl, i, text);
			if (next != NO_INDEX && next < t->match && tl->items[next].kind == TOKEN_TEXT) {
				const struct token *nt = &tl->items[next];
				dedent_block(tl, i, text, text + nt->start, leading_blanks(nt, text));
			}
		} else if (t->sigil == '/' && t->argument) {
			size_t lead = leading_token(tl, i);
			if (t->left_clear && lead != NO_INDEX && !token_ends_line(&tl->items[lead], text))
				tl->items[lead].dropped = true;
		} else if (t->sigil == '<') {
			struct token *close = &tl->items[t->match];
			if (!t->left_clear || !close->right_clear)
				continue;
			t->standalone = true;
			t->owns_line = true;
			size_t lead = leading_token(tl, i);
			if (lead != NO_INDEX && !token_ends_line(&tl->items[lead], text)) {
				tl->items[lead].dropped = true;
				t->indent_start = tl->items[lead].start;
				t->indent_len = tl->items[lead].len;
			}
			drop_rest_of_line(tl, t->match, text);
		} else if (t->sigil == '/' && tl->items[t->match].sigil == '<') {
			continue; /* handled with its parent */
		} else {
			if (t->sigil == '$' && t->left_clear && tl->items[t->match].right_clear) {
				t->standalone = true;
				size_t src = NO_INDEX;
				if (t->right_clear) {
					size_t next = next_line_token(tl, i, text);
					if (next != NO_INDEX && next < t->match &&
					    tl->items[next].kind == TOKEN_TEXT)
						src = next;
				} else {
					src = leading_token(tl, i);
					if (src != NO_INDEX && token_ends_line(&tl->items[src], text))
						src = NO_INDEX;
				}
				if (src != NO_INDEX) {
					t->indent_start = tl->items[src].start;
					t->indent_len = leading_blanks(&tl->items[src], text);
				}
			}
			if (!t->alone)
				continue;
			if (t->sigil == '>') {
				size_t lead = leading_token(tl, i);
				t->standalone = true;
				if (lead != NO_INDEX && !token_ends_line(&tl->items[lead], text)) {
					t->indent_start = tl->items[lead].start;
					t->indent_len = tl->items[lead].len;
				}
			}
			drop_line(tl, i, text);
		}
	}
}

/* ---- pass 3: tree ---- */

static void free_nodes(struct node_list *nl);

static void free_path(struct name_path *p)
{
	for (size_t i = 0; i < p->count; i++)
		free(p->parts[i]);
	free(p->parts);
}

static void free_node(struct node *n)
{
	free_path(&n->path);
	free(n->name);
	free_nodes(&n->children);
}

static void free_nodes(struct node_list *nl)
{
	for (size_t i = 0; i < nl->count; i++)
		free_node(&nl->items[i]);
	free(nl->items);
	nl->items = NULL;
	nl->count = nl->cap = 0;
}

static void split_path(struct name_path *p, const char *s, size_t n)
{
	p->parts = NULL;
	p->count = 0;
	if (n == 1 && s[0] == '.')
		return;
	size_t cap = 0, start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			grow_array((void **)&p->parts, &cap, p->count + 1, sizeof(*p->parts));
			p->parts[p->count++] = xstrndup(s + start, i - start);
			start = i + 1;
		}
	}
}

static struct node *add_node(struct node_list *nl, enum node_kind kind, const struct token *t)
{
	grow_array((void **)&nl->items, &nl->cap, nl->count + 1, sizeof(*nl->items));
	struct node *n = &nl->items[nl->count++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = t->line;
	n->column = t->column;
	return n;
}

struct builder {
	const struct token_list *tl;
	const char *text;
	bool *line_start; /* per token */
};

static void build_range(struct builder *b, size_t from, size_t to, struct node_list *out);

/* The argument blocks of the parent opened at `open`; anything else inside
 * a parent is ignored, as the spec says. */
static void build_arguments(struct builder *b, size_t open, struct node_list *out)
{
	const struct token *tk = b->tl->items;
	for (size_t j = open + 1; j < tk[open].match; j++) {
		const struct token *t = &tk[j];
		if (t->kind != TOKEN_TAG)
			continue;
		if (t->sigil == '$' && t->argument) {
			struct node *n = add_node(out, NODE_BLOCK, t);
			n->name = xstrndup(b->text + t->start, t->len);
			build_range(b, j + 1, t->match, &n->children);
		}
		if (t->match != NO_INDEX && t->match > j)
			j = t->match;
	}
}

static void build_range(struct builder *b, size_t from, size_t to, struct node_list *out)
{
	const struct token *tk = b->tl->items;
	const char *text = b->text;
	for (size_t i = from; i < to; i++) {
		const struct token *t = &tk[i];
		if (t->dropped)
			continue;
		struct node *n = NULL;
		if (t->kind == TOKEN_TEXT) {
			if (t->len == 0)
				continue;
			n = add_node(out, NODE_TEXT, t);
			n->text = text + t->start;
			n->len = t->len;
			n->line_start = b->line_start[i];
			continue;
		}
		switch (t->sigil) {
		case '!':
		case '=':
		case '/':
			continue;
		case 0:
		case '&':
		case '{':
			n = add_node(out, NODE_VARIABLE, t);
			n->escape = t->sigil == 0;
			split_path(&n->path, text + t->start, t->len);
			break;
		case '#':
		case '^':
			n = add_node(out, t->sigil == '#' ? NODE_SECTION : NODE_INVERTED, t);
			split_path(&n->path, text + t->start, t->len);
			build_range(b, i + 1, t->match, &n->children);
			i = t->match;
			break;
		case '>':
		case '<':
			n = add_node(out, t->sigil == '>' ? NODE_PARTIAL : NODE_PARENT, t);
			n->dynamic = t->dynamic;
			if (t->dynamic)
				split_path(&n->path, text + t->start, t->len);
			else
				n->name = xstrndup(text + t->start, t->len);
			n->standalone = t->standalone;
			n->indent = text + t->indent_start;
			n->indent_len = t->indent_len;
			if (t->sigil == '<') {
				build_arguments(b, i, &n->children);
				i = t->match;
			}
			break;
		case '$':
			n = add_node(out, NODE_BLOCK, t);
			n->name = xstrndup(text + t->start, t->len);
			n->standalone = t->standalone;
			n->indent = text + t->indent_start;
			n->indent_len = t->indent_len;
			build_range(b, i + 1, t->match, &n->children);
			i = t->match;
			break;
		default:
			continue;
		}
		/* A tag that took its line away writes no indentation: the lines
		 * of its content or expansion indent themselves. */
		n->line_start = b->line_start[(size_t)(t - tk)] && !t->owns_line;
	}
}

/* A token starts a template line if the text before it ends a line, or if
 * it follows, on the same line, only tokens that write nothing. */
static void mark_line_starts(const struct token_list *tl, const char *text, bool *line_start)
{
	for (size_t i = 0; i < tl->count; i++) {
		if (i == 0 || token_ends_line(&tl->items[i - 1], text)) {
			line_start[i] = true;
			continue;
		}
		const struct token *p = &tl->items[i - 1];
		bool silent = !p->dropped &&
			      ((p->kind == TOKEN_TAG && (p->sigil == '!' || p->sigil == '=')) ||
			       (p->kind == TOKEN_TEXT && p->len == 0));
		line_start[i] = silent && line_start[i - 1];
	}
}

struct mustache_template *mustache_compile(const char *text, size_t len, struct mustache_error *err)
{
	struct mustache_template *t = xcalloc(1, sizeof(*t));
	t->text = xmalloc(len + 1);
	if (len)
		memcpy(t->text, text, len);
	t->text[len] = '\0';
	t->len = len;

	struct lexer lx = {
		.text = t->text,
		.len = len,
		.line = 1,
		.open = "{{",
		.open_len = 2,
		.close = "}}",
		.close_len = 2,
		.err = err,
	};
	if (lex(&lx) < 0) {
		free(lx.tokens.items);
		mustache_free(t);
		return NULL;
	}
	apply_whitespace(&lx.tokens, t->text);
	struct builder b = {
		.tl = &lx.tokens,
		.text = t->text,
		.line_start = xcalloc(lx.tokens.count + 1, sizeof(bool)),
	};
	mark_line_starts(&lx.tokens, t->text, b.line_start);
	build_range(&b, 0, lx.tokens.count, &t->root);
	free(b.line_start);
	free(lx.tokens.items);
	return t;
}

void mustache_free(struct mustache_template *t)
{
	if (!t)
		return;
	free_nodes(&t->root);
	free(t->text);
	free(t);
}

/* ---- rendering ---- */

struct cached_partial {
	char *name;
	struct mustache_template *template; /* NULL: no such partial */
};

/* The arguments of the parents being expanded, innermost first. */
struct override_frame {
	const struct node *parent; /* its children are the argument blocks */
	const char *template_name; /* where the arguments were written */
	const struct override_frame *outer;
};

struct render_state {
	mustache_partial_fn partials;
	void *ctx;
	struct strbuf *out;
	size_t out_start;
	struct mustache_error *err;
	bool failed;
	const json_t **stack; /* the context stack, top last */
	size_t depth;
	size_t stack_cap;
	struct cached_partial *cache;
	size_t ncache;
	size_t cache_cap;
	int expansion;             /* partials and parents being expanded */
	const char *template_name; /* "" for the template being rendered */
	bool force_line_start;     /* the next node starts a line (a block argument) */
	long steps;                /* nodes visited, against MUSTACHE_MAX_STEPS */
	int nesting;               /* render_nodes calls in progress */
};

static void render_nodes(struct render_state *st, const struct node_list *nl, const char *indent,
			 size_t indent_len, const struct override_frame *frames);

static void render_error(struct render_state *st, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void render_error(struct render_state *st, const struct node *n, const char *fmt, ...)
{
	st->failed = true;
	if (!st->err)
		return;
	st->err->line = n->line;
	st->err->column = n->column;
	snprintf(st->err->partial, sizeof(st->err->partial), "%s", st->template_name);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->err->message, sizeof(st->err->message), fmt, ap);
	va_end(ap);
}

static void push_context(struct render_state *st, const json_t *v)
{
	grow_array((void **)&st->stack, &st->stack_cap, st->depth + 1, sizeof(*st->stack));
	st->stack[st->depth++] = v;
}

static const json_t *lookup_part(const json_t *v, const char *part)
{
	if (json_is_object(v))
		return json_object_get(v, part);
	if (json_is_array(v) && part[0] >= '0' && part[0] <= '9') {
		char *end;
		errno = 0;
		unsigned long long idx = strtoull(part, &end, 10);
		if (*end || errno)
			return NULL;
		return json_array_get(v, (size_t)idx);
	}
	return NULL;
}

/* Resolves a name against the context stack as the spec says: the first
 * part in the nearest context that has it, the other parts inside that. */
static const json_t *lookup(const struct render_state *st, const struct name_path *p)
{
	if (p->count == 0)
		return st->depth ? st->stack[st->depth - 1] : NULL;
	const json_t *v = NULL;
	for (size_t i = st->depth; i-- > 0;) {
		v = lookup_part(st->stack[i], p->parts[0]);
		if (v)
			break;
	}
	for (size_t k = 1; v && k < p->count; k++)
		v = lookup_part(v, p->parts[k]);
	return v;
}

static bool truthy(const json_t *v)
{
	if (!v)
		return false;
	switch (json_typeof(v)) {
	case JSON_NULL:
	case JSON_FALSE:
		return false;
	case JSON_INTEGER:
		return json_integer_value(v) != 0;
	case JSON_REAL:
		return json_real_value(v) != 0.0 && json_real_value(v) == json_real_value(v);
	case JSON_STRING:
		return json_string_length(v) > 0;
	case JSON_ARRAY:
		return json_array_size(v) > 0;
	default:
		return true;
	}
}

/* The shortest %g form that reads back as the same double. */
static void format_real(double d, char *buf, size_t size)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

/* Appends the string form of v (unescaped) to sb. */
static void value_to_string(const json_t *v, struct strbuf *sb)
{
	char buf[64];
	if (!v)
		return;
	switch (json_typeof(v)) {
	case JSON_STRING:
		strbuf_append(sb, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		strbuf_printf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		format_real(json_real_value(v), buf, sizeof(buf));
		strbuf_puts(sb, buf);
		break;
	case JSON_TRUE:
		strbuf_puts(sb, "true");
		break;
	case JSON_FALSE:
		strbuf_puts(sb, "false");
		break;
	case JSON_NULL:
		break;
	default: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (s)
			strbuf_puts(sb, s);
		free(s);
		break;
	}
	}
}

static void append_escaped(struct strbuf *sb, const char *s, size_t n)
{
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		const char *rep;
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		default: continue;
		}
		strbuf_append(sb, s + run, i - run);
		strbuf_puts(sb, rep);
		run = i + 1;
	}
	strbuf_append(sb, s + run, n - run);
}

static void render_variable(struct render_state *st, const struct node *n)
{
	const json_t *v = lookup(st, &n->path);
	if (!v)
		return;
	if (json_is_string(v)) {
		if (n->escape)
			append_escaped(st->out, json_string_value(v), json_string_length(v));
		else
			strbuf_append(st->out, json_string_value(v), json_string_length(v));
		return;
	}
	if (!n->escape) {
		value_to_string(v, st->out);
		return;
	}
	struct strbuf tmp = {0};
	value_to_string(v, &tmp);
	append_escaped(st->out, tmp.data ? tmp.data : "", tmp.len);
	strbuf_free(&tmp);
}

static bool at_line_start(const struct render_state *st)
{
	return st->out->len == st->out_start || st->out->data[st->out->len - 1] == '\n';
}

/* Finds (compiling once per render) the partial or parent `name`. */
static const struct mustache_template *get_partial(struct render_state *st, const char *name)
{
	for (size_t i = 0; i < st->ncache; i++)
		if (strcmp(st->cache[i].name, name) == 0)
			return st->cache[i].template;
	char *text = st->partials ? st->partials(st->ctx, name) : NULL;
	struct mustache_template *t = NULL;
	if (text) {
		struct mustache_error perr;
		t = mustache_compile(text, strlen(text), &perr);
		free(text);
		if (!t) {
			st->failed = true;
			if (st->err) {
				*st->err = perr;
				snprintf(st->err->partial, sizeof(st->err->partial), "%s", name);
			}
			return NULL;
		}
	}
	grow_array((void **)&st->cache, &st->cache_cap, st->ncache + 1, sizeof(*st->cache));
	st->cache[st->ncache].name = xstrdup(name);
	st->cache[st->ncache].template = t;
	st->ncache++;
	return t;
}

/* Expands a partial or a parent: `frames` are the overrides in force. */
static void render_expansion(struct render_state *st, const struct node *n, const char *indent,
			     size_t indent_len, const struct override_frame *frames)
{
	struct strbuf name = {0};
	if (n->dynamic) {
		value_to_string(lookup(st, &n->path), &name);
		if (name.len == 0 || memchr(name.data, '\0', name.len)) {
			strbuf_free(&name);
			return;
		}
	} else {
		strbuf_puts(&name, n->name);
	}
	if (st->expansion >= MUSTACHE_MAX_EXPANSION) {
		render_error(st, n, "%s \"%s\" nested more than %d deep (does it include itself?)",
			     n->kind == NODE_PARENT ? "parent" : "partial", name.data,
			     MUSTACHE_MAX_EXPANSION);
		strbuf_free(&name);
		return;
	}
	const struct mustache_template *t = get_partial(st, name.data);
	if (!t) {
		strbuf_free(&name);
		return;
	}
	/* Only a standalone expansion is indented, by the indentation in force
	 * plus its own; an inline one starts mid-line and is not indented. */
	char *ind = NULL;
	size_t ind_len = 0;
	if (n->standalone) {
		ind_len = indent_len + n->indent_len;
		ind = xmalloc(ind_len + 1);
		memcpy(ind, indent, indent_len);
		memcpy(ind + indent_len, n->indent, n->indent_len);
		ind[ind_len] = '\0';
	}
	struct override_frame frame = {
		.parent = n,
		.template_name = st->template_name,
		.outer = frames,
	};
	const char *saved_name = st->template_name;
	st->template_name = name.data;
	st->expansion++;
	render_nodes(st, &t->root, ind ? ind : "", ind_len, n->kind == NODE_PARENT ? &frame : frames);
	st->expansion--;
	st->template_name = saved_name;
	free(ind);
	strbuf_free(&name);
}

/* Renders a block: the outermost argument of that name if a parent passed
 * one, else the block's own content. */
static void render_block(struct render_state *st, const struct node *n, const char *indent,
			 size_t indent_len, const struct override_frame *frames)
{
	const struct node *arg = NULL;
	const struct override_frame *from = NULL;
	for (const struct override_frame *f = frames; f; f = f->outer) {
		const struct node_list *args = &f->parent->children;
		for (size_t i = 0; i < args->count; i++)
			if (strcmp(args->items[i].name, n->name) == 0) {
				arg = &args->items[i];
				from = f;
				break;
			}
	}
	if (!arg) {
		render_nodes(st, &n->children, indent, indent_len, frames);
		return;
	}
	char *ind = NULL;
	size_t ind_len = 0;
	if (n->standalone) {
		ind_len = indent_len + n->indent_len;
		ind = xmalloc(ind_len + 1);
		memcpy(ind, indent, indent_len);
		memcpy(ind + indent_len, n->indent, n->indent_len);
		ind[ind_len] = '\0';
	}
	const char *saved_name = st->template_name;
	st->template_name = from->template_name;
	st->force_line_start = n->standalone;
	/* Blocks inside the argument see only the overrides from outside the
	 * template that wrote it, so an argument cannot expand itself. */
	render_nodes(st, &arg->children, ind ? ind : "", ind_len, from->outer);
	st->force_line_start = false;
	st->template_name = saved_name;
	free(ind);
}

static void render_nodes(struct render_state *st, const struct node_list *nl, const char *indent,
			 size_t indent_len, const struct override_frame *frames)
{
	if (nl->count && st->nesting >= MUSTACHE_MAX_RENDER_DEPTH) {
		render_error(st, &nl->items[0], "sections and partials nested more than %d deep",
			     MUSTACHE_MAX_RENDER_DEPTH);
		return;
	}
	st->nesting++;
	for (size_t i = 0; i < nl->count && !st->failed; i++) {
		const struct node *n = &nl->items[i];
		if (++st->steps > MUSTACHE_MAX_STEPS) {
			render_error(st, n, "rendering takes more than %ld steps (sections nested over long lists?)",
				     (long)MUSTACHE_MAX_STEPS);
			break;
		}
		if (st->out->len - st->out_start > MUSTACHE_MAX_OUTPUT) {
			render_error(st, n, "output larger than %zu MiB (sections nested over long lists?)",
				     MUSTACHE_MAX_OUTPUT >> 20);
			break;
		}
		if ((n->line_start || st->force_line_start) && indent_len && at_line_start(st))
			strbuf_append(st->out, indent, indent_len);
		st->force_line_start = false;
		switch (n->kind) {
		case NODE_TEXT:
			strbuf_append(st->out, n->text, n->len);
			break;
		case NODE_VARIABLE:
			render_variable(st, n);
			break;
		case NODE_SECTION: {
			const json_t *v = lookup(st, &n->path);
			if (json_is_array(v)) {
				for (size_t k = 0; k < json_array_size(v) && !st->failed; k++) {
					push_context(st, json_array_get(v, k));
					render_nodes(st, &n->children, indent, indent_len, frames);
					st->depth--;
				}
			} else if (truthy(v)) {
				push_context(st, v);
				render_nodes(st, &n->children, indent, indent_len, frames);
				st->depth--;
			}
			break;
		}
		case NODE_INVERTED:
			if (!truthy(lookup(st, &n->path)))
				render_nodes(st, &n->children, indent, indent_len, frames);
			break;
		case NODE_PARTIAL:
		case NODE_PARENT:
			render_expansion(st, n, indent, indent_len, frames);
			break;
		case NODE_BLOCK:
			render_block(st, n, indent, indent_len, frames);
			break;
		}
	}
	st->nesting--;
}

int mustache_render(const struct mustache_template *t, const json_t *data,
		    mustache_partial_fn partials, void *ctx, struct strbuf *out,
		    struct mustache_error *err)
{
	struct render_state st = {
		.partials = partials,
		.ctx = ctx,
		.out = out,
		.out_start = out->len,
		.err = err,
		.template_name = "",
	};
	/* Make sure out->data exists so at_line_start may look at it. */
	strbuf_append(out, "", 0);
	if (data)
		push_context(&st, data);
	render_nodes(&st, &t->root, "", 0, NULL);
	for (size_t i = 0; i < st.ncache; i++) {
		free(st.cache[i].name);
		mustache_free(st.cache[i].template);
	}
	free(st.cache);
	free(st.stack);
	return st.failed ? -1 : 0;
}

char *mustache_render_string(const char *text, size_t len, const json_t *data,
			     mustache_partial_fn partials, void *ctx, struct mustache_error *err)
{
	struct mustache_template *t = mustache_compile(text, len, err);
	if (!t)
		return NULL;
	struct strbuf out = {0};
	int rc = mustache_render(t, data, partials, ctx, &out, err);
	mustache_free(t);
	if (rc < 0) {
		strbuf_free(&out);
		return NULL;
	}
	return strbuf_take(&out);
}
