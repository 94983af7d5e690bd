/* The mails players receive, read as a client shows them. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

char *maildir_text_of(const char *raw)
{
	static const char marker[] = "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
	const char *at = strstr(raw, marker);
	assert_non_null(at);
	at += sizeof marker - 1;
	const char *end = strstr(at, "\r\n--=_");
	if (!end)
		end = at + strlen(at);
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	while (at < end) {
		if (at[0] == '=' && at[1] == '\r' && at[2] == '\n') {
			at += 3;
		} else if (at[0] == '=' && isxdigit((unsigned char)at[1]) &&
			   isxdigit((unsigned char)at[2])) {
			char hex[3] = {at[1], at[2], 0};
			strbuf_putc(&sb, (char)strtol(hex, NULL, 16));
			at += 3;
		} else if (at[0] == '\r' && at[1] == '\n') {
			strbuf_putc(&sb, '\n');
			at += 2;
		} else {
			strbuf_putc(&sb, *at++);
		}
	}
	/* the text part is format=flowed: read it as a mail client shows it */
	char *flowed = strbuf_take(&sb);
	char *text = mail_text_unflow(flowed, false);
	free(flowed);
	return text;
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
