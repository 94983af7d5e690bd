/* The mails players receive, read as a client shows them: the engine's
 * outbox sent through the Maildir transport into a scratch Maildir, each
 * mail's Subject decoded and its text part with quoted-printable and
 * format=flowed undone; and the parts of a mail that merges several sent
 * to one person at one moment (engine_year_mail.c). */
#ifndef CAMPAIGN_TEST_MAILDIR_FIXTURE_H
#define CAMPAIGN_TEST_MAILDIR_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/engine_fixture.h"

/* The line that heads each part merged after the first into one mail; the
 * part's own subject (after "· ") is the line below it. */
#define MERGED_RULE "------------------------------------------------------------------------"

/* One mail received: its file name in the Maildir, Delivered-To, the
 * Subject decoded and the text as a client shows it. */
struct received {
	char *file, *to, *subject, *text;
};

/* What the players received so far, in the order it was delivered. */
extern struct received *inbox;
extern size_t n_inbox;

/* Sends what the outbox of f holds at `now` into the players' Maildir (in
 * f's scratch directory) and appends what arrived to inbox. Fails the
 * test if a mail is not delivered. */
void maildir_flush(struct test_engine *f, int64_t now);
/* Empties inbox (a test's teardown). */
void maildir_clear(void);

/* The text part of a raw mail as composed (quoted-printable,
 * format=flowed), as a client shows it. Caller frees. */
char *maildir_text_of(const char *raw);
/* The raw mail's Subject, RFC 2047 words decoded. Caller frees. */
char *maildir_subject(const char *raw, size_t len);
/* The raw mail's header `name`, as it stands (not unfolded). Caller frees. */
char *maildir_header(const char *raw, const char *name);

/* Sends what t's outbox holds at `now` through the Maildir transport into
 * `maildir`, then returns every mail delivered to `addr` since the last
 * call, one after the other ("" if none), each as a first line "Subject: "
 * with the Subject decoded, the raw headers, a blank line, the body as a
 * client shows it, and a line "====="; the mails read are removed. */
char *maildir_received(struct test_engine *t, const char *maildir, int64_t now,
		       const char *addr);
/* How many times `needle` occurs in `text` (overlapping ones too). */
size_t maildir_count(const char *text, const char *needle);

/* A part merged into a mail's text: its rule line, its heading (the
 * part's subject after "· ") and its text after the heading line, up to
 * the next rule line (the newline before it included) or the end. */
struct merged_part {
	const char *rule;
	const char *head;
	size_t head_len;
	const char *body;
	size_t body_len;
};

/* The first part merged into a mail's text whose rule line starts after
 * `from` (a place in that text: its start, or the previous part's rule).
 * False when there is none. */
bool merged_part_next(const char *from, struct merged_part *p);
/* The n-th part (from 0) of the mail inbox[i] that had, as a mail of its
 * own, a Subject containing `subject`: the whole mail when its Subject
 * does, else a part merged into it under a rule and its subject. Its text
 * (allocated; of a merged part only that part) in *text when not NULL, its
 * place in the mail's text in *offset. False when there is no such part. */
bool maildir_part_of(size_t i, const char *subject, size_t nth, char **text, size_t *offset);
/* How many mails `to` received whose Subject contains `subject`, counting
 * a mail merged into another sent at the same moment (under a rule and
 * its subject) as one; the text of the last in *text (allocated, of a
 * merged one only its part) when text is not NULL. */
size_t maildir_parts(const char *to, const char *subject, char **text);
/* Whether `text` holds a merged part whose heading begins with the subject
 * `subject` names after its "· " (all of it when it has none). */
bool maildir_merged_into(const char *text, const char *subject);

#endif
