/* What changed between a mail as it was sent and as it is made again (an
 * undo played again, a battle result corrected): the text of the mail sent,
 * the lines that differ, each line that was replaced shown as a pair,
 * "was:" then "now:". */
#include "config.h"

#include "engine/engine_p.h"
#include "mail/mail_text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define CHANGED_LINES_MAX 12

struct line {
	const char *at; /* trimmed of leading blanks */
	size_t len;
	bool paired;
};

static bool has_line(const char *text, const char *line, size_t len)
{
	for (const char *at = text; *at;) {
		const char *nl = strchr(at, '\n');
		size_t n = nl ? (size_t)(nl - at) : strlen(at);
		if (n == len && memcmp(at, line, len) == 0)
			return true;
		at += n + (nl ? 1 : 0);
	}
	return false;
}

/* The lines of `a` that `b` does not have (nor `also`, trimmed, when
 * given), trimmed of leading blanks; blank lines left out. */
static struct line *lines_not_in(const char *a, const char *b, const char *also, size_t *count)
{
	struct line *out = NULL;
	size_t n = 0, cap = 0;
	for (const char *at = a; *at;) {
		const char *nl = strchr(at, '\n');
		size_t len = nl ? (size_t)(nl - at) : strlen(at);
		const char *s = at;
		size_t sl = len;
		while (sl && (*s == ' ' || *s == '\t')) {
			s++;
			sl--;
		}
		if (sl && !has_line(b, at, len) && !(also && has_line(also, s, sl))) {
			grow_array((void **)&out, &cap, n + 1, sizeof *out);
			out[n++] = (struct line){.at = s, .len = sl};
		}
		at += len + (nl ? 1 : 0);
	}
	*count = n;
	return out;
}

/* How alike two lines read: the length of their common beginning plus
 * that of their common end (a figure or a date changed in the middle). */
static size_t alike(const struct line *x, const struct line *y)
{
	size_t head = 0, tail = 0, n = x->len < y->len ? x->len : y->len;
	while (head < n && x->at[head] == y->at[head])
		head++;
	while (tail < n - head && x->at[x->len - 1 - tail] == y->at[y->len - 1 - tail])
		tail++;
	return head + tail;
}

static void say(struct strbuf *sb, size_t *shown, size_t *more, const char *label,
		const struct line *l)
{
	if (*shown < CHANGED_LINES_MAX) {
		/* a line that introduced what followed it ("Send ... before
		 * DATE:") is shown without its colon: "was: Send ... DATE" */
		size_t len = l->len;
		if (len > 1 && l->at[len - 1] == ':')
			len--;
		strbuf_printf(sb, "  %s %.*s\n", label, (int)len, l->at);
		(*shown)++;
	} else {
		(*more)++;
	}
}

/* The text with the lines cut to fit the width joined again: a line that
 * ends in a comma and the next one indented deeper ("..., 4 provinces,"
 * then "    150 prestige": year_position_wrap) compare as one. New string. */
static char *unwrapped(const char *text)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t head_indent = 0;
	bool comma = false;
	for (const char *at = text; *at;) {
		const char *nl = strchr(at, '\n');
		size_t len = nl ? (size_t)(nl - at) : strlen(at), indent = 0;
		while (indent < len && at[indent] == ' ')
			indent++;
		if (comma && indent < len && indent > head_indent) {
			strbuf_putc(&sb, ' ');
			strbuf_append(&sb, at + indent, len - indent);
		} else {
			if (at != text)
				strbuf_putc(&sb, '\n');
			strbuf_append(&sb, at, len);
			head_indent = indent;
		}
		comma = len > 0 && at[len - 1] == ',';
		at += len + (nl ? 1 : 0);
	}
	return strbuf_take(&sb);
}

size_t engine_changed_lines(struct strbuf *sb, const char *was_text, const char *now_text,
			    const char *also)
{
	size_t n_was = 0, n_now = 0, shown = 0, more = 0;
	char *was = unwrapped(was_text), *now = unwrapped(now_text);
	struct line *gone = lines_not_in(was, now, NULL, &n_was);
	struct line *came = lines_not_in(now, was, also, &n_now);
	/* in the order of the new text: a new line after the old one it
	 * replaces (the most alike, at least half the shorter line alike) */
	for (size_t i = 0; i < n_now; i++) {
		size_t best = n_was, score = 0;
		for (size_t k = 0; k < n_was; k++) {
			if (gone[k].paired)
				continue;
			size_t a = alike(&gone[k], &came[i]);
			size_t shorter = gone[k].len < came[i].len ? gone[k].len : came[i].len;
			if (a * 2 >= shorter && a > score) {
				best = k;
				score = a;
			}
		}
		if (best < n_was) {
			/* the old lines nothing replaced that came before it */
			for (size_t k = 0; k < best; k++)
				if (!gone[k].paired) {
					say(sb, &shown, &more, "was:", &gone[k]);
					gone[k].paired = true;
				}
			say(sb, &shown, &more, "was:", &gone[best]);
			gone[best].paired = true;
		}
		say(sb, &shown, &more, "now:", &came[i]);
	}
	for (size_t k = 0; k < n_was; k++)
		if (!gone[k].paired)
			say(sb, &shown, &more, "was:", &gone[k]);
	if (more)
		strbuf_printf(sb, "  ... and %zu more line%s\n", more, more == 1 ? "" : "s");
	free(gone);
	free(came);
	free(was);
	free(now);
	return n_was + n_now;
}

/* The text part of a mail we composed (quoted-printable), decoded. */
char *engine_sent_text(const char *raw)
{
	static const char marker[] = "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
	const char *at = strstr(raw, marker);
	if (!at)
		return NULL;
	at += sizeof marker - 1;
	const char *end = strstr(at, "\r\n--=_");
	if (!end)
		end = at + strlen(at);
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	while (at < end) {
		if (at[0] == '=' && at + 2 < end + 1 && at[1] == '\r' && at[2] == '\n') {
			at += 3;
		} else if (at[0] == '=' && at + 2 < end && isxdigit((unsigned char)at[1]) &&
			   isxdigit((unsigned char)at[2])) {
			char hex[3] = {at[1], at[2], 0};
			strbuf_putc(&sb, (char)strtol(hex, NULL, 16));
			at += 3;
		} else if (at[0] == '\r' && at + 1 < end && at[1] == '\n') {
			strbuf_putc(&sb, '\n');
			at += 2;
		} else {
			strbuf_putc(&sb, *at++);
		}
	}
	/* sent format=flowed: the text as the player reads it */
	char *flowed = strbuf_take(&sb);
	char *text = mail_text_unflow(flowed, false);
	free(flowed);
	return text;
}
