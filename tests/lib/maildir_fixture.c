/* The mails players receive, read as a client shows them. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/maildir_fixture.h"
#include "mail/mail_read.h"
#include "mail/mail_text.h"
#include "mail/transport.h"
#include "base/fileio.h"
#include "base/util.h"

struct received *inbox;
size_t n_inbox;
static size_t cap_inbox;

/* Quoted-printable undone (soft line breaks and =XX), line ends made
 * "\n": the first len bytes of s. */
static char *qp_decode(const char *s, size_t len)
{
	const char *end = s + len;
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	while (s < end) {
		if (s[0] == '=' && end - s >= 3 && s[1] == '\r' && s[2] == '\n') {
			s += 3;
		} else if (s[0] == '=' && end - s >= 2 && s[1] == '\n') {
			s += 2;
		} else if (s[0] == '=' && end - s >= 3 && isxdigit((unsigned char)s[1]) &&
			   isxdigit((unsigned char)s[2])) {
			char hex[3] = {s[1], s[2], 0};
			strbuf_putc(&sb, (char)strtol(hex, NULL, 16));
			s += 3;
		} else if (*s == '\r') {
			s++;
		} else {
			strbuf_putc(&sb, *s++);
		}
	}
	return strbuf_take(&sb);
}

/* The text of a body (or a part) as a client shows it: quoted-printable
 * and format=flowed undone. */
static char *shown(const char *body, size_t len)
{
	char *flowed = qp_decode(body, len);
	char *text = mail_text_unflow(flowed, false);
	free(flowed);
	return text;
}

char *maildir_text_of(const char *raw)
{
	static const char marker[] = "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
	const char *at = strstr(raw, marker);
	assert_non_null(at);
	at += sizeof marker - 1;
	const char *end = strstr(at, "\r\n--=_");
	return shown(at, end ? (size_t)(end - at) : strlen(at));
}

char *maildir_subject(const char *raw, size_t len)
{
	struct mail_info info;
	assert_int_equal(mail_read(raw, len, NULL, &info), 0);
	char *s = xstrdup(info.subject ? info.subject : "");
	mail_info_free(&info);
	return s;
}

char *maildir_header(const char *raw, const char *name)
{
	char *key = xasprintf("%s: ", name);
	const char *at = strstr(raw, key);
	assert_non_null(at);
	at += strlen(key);
	free(key);
	return xstrndup(at, strcspn(at, "\r\n"));
}

void maildir_clear(void)
{
	for (size_t i = 0; i < n_inbox; i++) {
		free(inbox[i].file);
		free(inbox[i].to);
		free(inbox[i].subject);
		free(inbox[i].text);
	}
	free(inbox);
	inbox = NULL;
	n_inbox = cap_inbox = 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void maildir_flush(struct test_engine *f, int64_t now)
{
	char *md = xasprintf("%s/players", f->dir);
	struct mail_sink *sink = transport_maildir_sink_new(md, (struct transport_log){0});
	size_t sent = 0, failed = 0;
	char *err = NULL;
	if (engine_flush_outbox(f->engine, sink, now, &sent, &failed, &err) != 0)
		fail_msg("flush: %s", err ? err : "");
	assert_int_equal(failed, 0);
	mail_sink_free(sink);
	char *dir = xasprintf("%s/new", md);
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		bool seen = de->d_name[0] == '.';
		for (size_t i = 0; i < n_inbox && !seen; i++)
			seen = strcmp(inbox[i].file, de->d_name) == 0;
		if (seen)
			continue;
		grow_array((void **)&names, &cap, n + 1, sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		size_t len = 0;
		char *raw = file_read_all(path, 0, &len);
		assert_non_null(raw);
		grow_array((void **)&inbox, &cap_inbox, n_inbox + 1, sizeof *inbox);
		inbox[n_inbox++] = (struct received){names[i], maildir_header(raw, "Delivered-To"),
						     maildir_subject(raw, len), maildir_text_of(raw)};
		free(raw);
		free(path);
	}
	free(names);
	free(dir);
	free(md);
}

char *maildir_received(struct test_engine *t, const char *maildir, int64_t now,
		       const char *addr)
{
	struct mail_sink *sink = transport_maildir_sink_new(maildir, (struct transport_log){0});
	size_t sent = 0, failed = 0;
	char *err = NULL;
	assert_int_equal(engine_flush_outbox(t->engine, sink, now, &sent, &failed, &err), 0);
	assert_int_equal(failed, 0);
	mail_sink_free(sink);
	char *dir = xasprintf("%s/new", maildir);
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	char *want = xasprintf("Delivered-To: %s\r\n", addr);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		char *raw = file_read_all(path, 0, NULL);
		assert_non_null(raw);
		if (strstr(raw, want) && strstr(raw, want) < strstr(raw, "\r\n\r\n")) {
			/* the Subject decoded, the headers, then the body as a
			 * client shows it */
			char *subject = test_searchable(raw, strlen(raw));
			char *eol = strchr(subject, '\n');
			if (eol)
				eol[1] = '\0';
			const char *body = strstr(raw, "\r\n\r\n");
			char *head = xstrndup(raw, (size_t)(body - raw));
			char *text = shown(body + 4, strlen(body + 4));
			strbuf_printf(&sb, "%s%s\n\n%s\n=====\n", subject, head, text);
			free(text);
			free(head);
			free(subject);
			unlink(path);
		}
		free(raw);
		free(path);
	}
	if (d)
		closedir(d);
	free(want);
	free(dir);
	return strbuf_take(&sb);
}

size_t maildir_count(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

bool merged_part_next(const char *from, struct merged_part *p)
{
	static const char rule[] = "\n" MERGED_RULE "\n";
	const char *at = strstr(from, rule);
	if (!at)
		return false;
	p->rule = at + 1;
	p->head = at + strlen(rule);
	p->head_len = strcspn(p->head, "\n");
	p->body = p->head + p->head_len;
	const char *end = strstr(p->body, rule);
	p->body_len = end ? (size_t)(end - p->body) + 1 : strlen(p->body);
	return true;
}

bool maildir_merged_into(const char *text, const char *subject)
{
	const char *dot = strstr(subject, "\u00b7 ");
	const char *what = dot ? dot + strlen("\u00b7 ") : subject;
	struct merged_part p;
	for (const char *at = text; merged_part_next(at, &p); at = p.rule)
		if (p.head_len >= strlen(what) && strncmp(p.head, what, strlen(what)) == 0)
			return true;
	return false;
}

/* The subject the part at `head` (its heading line, `len` characters) had
 * as a mail of its own: the leading mail's subject with its text after
 * "· " replaced by the heading, and the year by the one the heading names
 * when it is not the leading mail's ("Recruitment (1450)"). */
static char *part_subject(const char *lead, const char *head, size_t len)
{
	static const char dot[] = "\u00b7 ";
	const char *what = strstr(lead, dot);
	size_t prefix = what ? (size_t)(what - lead) + strlen(dot) : 0;
	char *s = xasprintf("%.*s%.*s", (int)prefix, lead, (int)len, head);
	size_t n = strlen(s);
	if (what && n >= 7 && s[n - 7] == ' ' && s[n - 6] == '(' && s[n - 1] == ')') {
		const char *year = what - 5; /* "1450 · " */
		if (year >= lead && isdigit((unsigned char)*year)) {
			memcpy(s + (year - lead), s + n - 5, 4);
			s[n - 7] = '\0';
		}
	}
	return s;
}

/* The n-th part (from 0) of the mail inbox[i] that had, as a mail of its
 * own, a Subject containing `subject`: the whole mail when its Subject
 * does, else a part merged into it under a rule and its subject. Its text
 * (allocated; of a merged part only that part) in *text when not NULL, its
 * place in the mail's text in *offset. False when there is no such part. */
bool maildir_part_of(size_t i, const char *subject, size_t nth, char **text, size_t *offset)
{
	const struct received *m = &inbox[i];
	if (strstr(m->subject, subject) && nth-- == 0) {
		if (text)
			*text = xstrdup(m->text);
		*offset = 0;
		return true;
	}
	struct merged_part p;
	for (const char *at = m->text; merged_part_next(at, &p); at = p.rule) {
		char *sub = part_subject(m->subject, p.head, p.head_len);
		bool hit = strstr(sub, subject) != NULL;
		free(sub);
		if (!hit || nth-- != 0)
			continue;
		if (text)
			*text = xstrndup(p.body, p.body_len);
		*offset = (size_t)(p.rule - m->text);
		return true;
	}
	return false;
}

/* How many mails `to` received whose Subject contains `subject`, counting
 * a mail merged into another sent at the same moment (under a rule and
 * its subject) as one; the text of the last in *text (allocated, of a
 * merged one only its part) when text is not NULL. */
size_t maildir_parts(const char *to, const char *subject, char **text)
{
	size_t hits = 0, offset;
	if (text)
		*text = NULL;
	for (size_t i = 0; i < n_inbox; i++) {
		if (strcmp(inbox[i].to, to) != 0)
			continue;
		char *part = NULL;
		for (size_t nth = 0; maildir_part_of(i, subject, nth, text ? &part : NULL, &offset); nth++) {
			hits++;
			if (text) {
				free(*text);
				*text = part;
				part = NULL;
			}
		}
	}
	return hits;
}
