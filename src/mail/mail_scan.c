/* The cheap pre-scan of a raw mail: see mail_scan.h. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "mail/mail_scan.h"

static size_t line_end(const char *s, size_t len, size_t p)
{
	while (p < len && s[p] != '\r' && s[p] != '\n')
		p++;
	return p;
}

static size_t after_eol(const char *s, size_t len, size_t p)
{
	if (p < len && s[p] == '\r')
		p++;
	if (p < len && s[p] == '\n')
		p++;
	return p;
}

static bool ascii_prefix_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && strncasecmp(s, prefix, n) == 0;
}

/* Skips blanks, line ends and (nested) comments. */
static size_t skip_cfws(const char *s, size_t len, size_t p)
{
	int depth = 0;
	for (; p < len; p++) {
		char c = s[p];
		if (depth > 0 && c == '\\')
			p++;
		else if (c == '(')
			depth++;
		else if (c == ')' && depth > 0)
			depth--;
		else if (depth == 0 && c != ' ' && c != '\t' && c != '\r' && c != '\n')
			break;
	}
	return p;
}

static size_t scan_token(const char *s, size_t len, size_t p, char *buf, size_t size)
{
	size_t n = 0;
	while (p < len && !strchr(" \t\r\n()<>@,;:\\\"/[]?=", s[p])) {
		if (n + 1 < size)
			buf[n++] = (char)tolower((unsigned char)s[p]);
		p++;
	}
	buf[n] = '\0';
	return p;
}

/* The media type of a Content-Type value ("multipart", "message", ...)
 * and, for a multipart, its subtype and boundary (pointing into s). */
struct scan_type {
	char type[16], subtype[16];
	const char *boundary;
	size_t boundary_len;
};

static void scan_content_type(const char *s, size_t len, struct scan_type *t)
{
	size_t p = skip_cfws(s, len, 0);
	p = scan_token(s, len, p, t->type, sizeof(t->type));
	p = skip_cfws(s, len, p);
	if (p < len && s[p] == '/')
		p = scan_token(s, len, skip_cfws(s, len, p + 1), t->subtype, sizeof(t->subtype));
	t->boundary = NULL;
	t->boundary_len = 0;
	if (strcmp(t->type, "multipart") != 0)
		return;
	/* Every "boundary" word is a candidate; the last one wins, as a
	 * second parameter of the same name would. */
	while (p + 8 <= len) {
		if (strncasecmp(s + p, "boundary", 8) != 0) {
			p++;
			continue;
		}
		/* p only moves forward: the scan stays linear */
		size_t q = skip_cfws(s, len, p + 8);
		p = q;
		if (q >= len || s[q] != '=')
			continue;
		q = skip_cfws(s, len, q + 1);
		size_t start = q;
		if (q < len && s[q] == '"') {
			start = ++q;
			while (q < len && s[q] != '"')
				q += s[q] == '\\' ? 2 : 1;
			if (q > len)
				q = len;
		} else {
			while (q < len && !strchr(" \t\r\n;()", s[q]))
				q++;
		}
		t->boundary = s + start;
		t->boundary_len = q - start;
		p = q > p ? q : p + 1;
	}
}

void mail_scan_blank_comments(char *s, size_t len)
{
	int depth = 0;
	for (size_t p = 0; p < len; p++) {
		char c = s[p];
		if (c == '\n' && !(p + 1 < len && (s[p + 1] == ' ' || s[p + 1] == '\t')))
			depth = 0;
		if (c == '\r' || c == '\n')
			continue;
		if (c == '(') {
			depth++;
		} else if (depth > 0 && c == '\\' && p + 1 < len && s[p + 1] != '\r' &&
			   s[p + 1] != '\n') {
			s[p++] = ' ';
		} else if (c == ')' && depth > 0) {
			depth--;
			s[p] = ' ';
			continue;
		}
		if (depth > 0)
			s[p] = ' ';
	}
}

/* The nesting is followed the way a MIME parser reads the message: a header
 * block, then either a multipart body (its boundary opens one level for its
 * parts), a message/... body (a new header block one level down) or a leaf
 * body; a delimiter line of an open multipart ends whatever was nested
 * inside it. Only the first max_nesting + 1 multiparts are remembered. */
#define SCAN_STACK 256

void mail_scan(const char *raw, size_t len, int max_nesting, struct mail_scan *out)
{
	struct {
		const char *boundary;
		size_t len;
		int depth;
		bool digest;
	} stack[SCAN_STACK];
	size_t top = 0;
	int depth = 0, comment = 0;
	bool in_headers = true, digest_child = false, in_ct = false;
	const char *ct = NULL;
	size_t ct_len = 0;
	int cap = max_nesting < SCAN_STACK - 2 ? max_nesting : SCAN_STACK - 2;

	memset(out, 0, sizeof(*out));
	for (size_t p = 0; p < len;) {
		size_t end = line_end(raw, len, p);
		const char *line = raw + p;
		size_t n = end - p;
		size_t next = after_eol(raw, len, end);
		bool continuation = n > 0 && (line[0] == ' ' || line[0] == '\t');

		/* Parentheses, per unfolded line: a comment never spans fields. */
		if (!continuation)
			comment = 0;
		for (size_t i = 0; i < n; i++) {
			if (line[i] == '\\' && comment > 0)
				i++;
			else if (line[i] == '(' && ++comment > out->comment_nesting)
				out->comment_nesting = comment;
			else if (line[i] == ')' && comment > 0)
				comment--;
		}
		p = next;

		/* Any line that may be a delimiter counts (a boundary may even
		 * start with a blank, or be empty): the count bounds the
		 * parser's recursion. */
		if (n >= 2 && line[0] == '-' && line[1] == '-') {
			out->parts++;
			size_t i = top;
			while (i > 0 && !(stack[i - 1].len + 2 <= n &&
					  memcmp(line + 2, stack[i - 1].boundary, stack[i - 1].len) == 0))
				i--;
			if (i > 0) {
				size_t blen = stack[i - 1].len;
				top = i;
				in_ct = false;
				if (n >= blen + 4 && line[blen + 2] == '-' && line[blen + 3] == '-') {
					depth = stack[--top].depth;
					in_headers = false;
				} else {
					depth = stack[top - 1].depth + 1;
					digest_child = stack[top - 1].digest;
					in_headers = true;
					ct = NULL;
				}
				continue;
			}
		}
		/* Every Content-Type line counts, in a body too: what reads as
		 * a body here may be a header block to the parser. */
		size_t colon = 0;
		if (ascii_prefix_ci(line, n, "content-type")) {
			colon = 12;
			while (colon < n && (line[colon] == ' ' || line[colon] == '\t'))
				colon++;
			if (colon < n && line[colon] == ':')
				out->parts++;
			else
				colon = 0;
		}
		if (!in_headers)
			continue;
		if (continuation) {
			if (in_ct)
				ct_len = (size_t)(raw + end - ct);
			continue;
		}
		in_ct = false;
		if (n > 0) {
			if (colon) {
				ct = line + colon + 1;
				ct_len = n - colon - 1;
				in_ct = true;
			}
			continue;
		}
		/* The end of a header block: what does the body hold? */
		struct scan_type t = {{0}, {0}, NULL, 0};
		if (ct)
			scan_content_type(ct, ct_len, &t);
		else if (digest_child)
			strcpy(t.type, "message");
		ct = NULL;
		digest_child = false;
		in_headers = false;
		if (strcmp(t.type, "message") == 0) {
			depth++;
			in_headers = true;
		} else if (t.boundary && t.boundary_len > 0) {
			if (depth + 1 > cap || top >= SCAN_STACK) {
				depth++;
			} else {
				stack[top].boundary = t.boundary;
				stack[top].len = t.boundary_len;
				stack[top].depth = depth;
				stack[top].digest = strcmp(t.subtype, "digest") == 0;
				top++;
			}
		}
		if (depth > out->nesting)
			out->nesting = depth;
		if (out->nesting > cap)
			break;
	}
	if (depth > out->nesting)
		out->nesting = depth;
}
