/* Robustness run of mail_read over the shared MIME corpus: real and broken
 * mail from many clients and servers. Every message, and its first half (a
 * mail cut short in transit), must be read without crashing and give either
 * valid text or a refusal. Prints counts and "N passed, M failed".
 *
 * The folder is $MIME_CORPUS_DIR, else the conformance suite next to the
 * source tree; the test is skipped (77) when neither exists.
 * MIME_CORPUS_VERBOSE=1 prints one line per message. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fileio.h"
#include "mail/mail_read.h"
#include "mail/mail_text.h"
#include "base/util.h"

struct tally {
	int passed, failed;
	int with_text, refused, reports, html;
	double slowest_ms;
	char slowest[256];
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool field_ok(const char *s)
{
	return !s || mail_text_utf8_valid(s, strlen(s));
}

/* Why a result breaks the contract, or NULL. */
static const char *violation(int rc, const struct mail_info *m)
{
	if (rc != 0)
		return "mail_read returned an error";
	if (!m->text == !m->refusal)
		return "text and refusal both set or both NULL";
	if (m->text && !mail_text_utf8_valid(m->text, strlen(m->text)))
		return "text is not valid UTF-8";
	if (m->text && strchr(m->text, '\r'))
		return "text holds a CR";
	if (m->text && *m->text && m->text[strlen(m->text) - 1] != '\n')
		return "text does not end with a line end";
	const char *fields[] = {m->message_id, m->from_addr, m->from_name, m->reply_to_addr,
				m->return_path, m->subject, m->in_reply_to, m->references,
				m->date, m->x_loop};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!field_ok(fields[i]))
			return "a header field is not valid UTF-8";
	for (size_t i = 0; i < m->warning_count; i++)
		if (!m->warnings[i] || !field_ok(m->warnings[i]))
			return "bad warning";
	if (m->received_count < 0)
		return "negative Received count";
	return NULL;
}

static void check_one(struct tally *t, const char *name, const char *data, size_t len,
		      bool count_outcome, bool verbose)
{
	struct mail_info m;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = mail_read(data, len, NULL, &m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (ms > t->slowest_ms) {
		t->slowest_ms = ms;
		snprintf(t->slowest, sizeof(t->slowest), "%s", name);
	}
	const char *bad = violation(rc, &m);
	if (bad) {
		t->failed++;
		printf("FAIL %s: %s\n", name, bad);
	} else {
		t->passed++;
	}
	if (count_outcome && rc == 0) {
		if (m.text)
			t->with_text++;
		else
			t->refused++;
		if (m.is_report)
			t->reports++;
		for (size_t i = 0; i < m.warning_count; i++)
			if (strcmp(m.warnings[i], "HTML converted to text") == 0)
				t->html++;
		if (verbose) {
			printf("%s: %s%s%s", name, m.text ? "text" : "refused: ",
			       m.refusal ? m.refusal : "", m.is_report ? " [report]" : "");
			for (size_t i = 0; i < m.warning_count; i++)
				printf(" {%s}", m.warnings[i]);
			printf(" (%zu bytes of text)\n", m.text ? strlen(m.text) : 0);
		}
	}
	if (rc == 0)
		mail_info_free(&m);
}

int main(void)
{
	const char *dir = getenv("MIME_CORPUS_DIR");
	const char *srcdir = getenv("top_srcdir");
	char *owned = NULL;
	bool verbose = getenv("MIME_CORPUS_VERBOSE") != NULL;

	if (!dir || !*dir) {
		owned = xasprintf("%s/../shared/conformance/mime-corpus/messages",
				  srcdir ? srcdir : ".");
		dir = owned;
	}
	DIR *d = opendir(dir);
	if (!d) {
		printf("MIME corpus not found (%s): skipped\n", dir);
		free(owned);
		return 77;
	}
	char **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		grow_array((void **)&names, &cap, count + 1, sizeof(*names));
		names[count++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, count, sizeof(*names), compare_names);

	struct tally t = {0};
	int unreadable = 0;
	for (size_t i = 0; i < count; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		size_t len = 0;
		char *data = file_read_all(path, 0, &len);
		if (!data) {
			printf("FAIL %s: cannot read\n", names[i]);
			unreadable++;
		} else {
			check_one(&t, names[i], data, len, true, verbose);
			/* The same mail cut in the middle, as a dropped
			 * connection leaves it; a private copy so that reading
			 * past the cut is caught by the memory checkers. */
			char *half = xmalloc(len / 2 + 1);
			memcpy(half, data, len / 2);
			char *label = xasprintf("%s (first half)", names[i]);
			check_one(&t, label, half, len / 2, false, false);
			free(label);
			free(half);
			free(data);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	free(owned);

	printf("%zu messages: %d with text, %d refused, %d reports, %d HTML reduced; "
	       "slowest %.1f ms (%s)\n",
	       count, t.with_text, t.refused, t.reports, t.html, t.slowest_ms, t.slowest);
	printf("%d passed, %d failed\n", t.passed, t.failed + unreadable);
	if (count == 0)
		return 77;
	return t.failed + unreadable ? 1 : 0;
}
