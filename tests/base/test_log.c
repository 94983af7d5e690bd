/* Unit tests for the log: lines to stderr carry a timestamp unless the
 * journal (JOURNAL_STREAM naming stderr's stream) adds its own. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/log.h"

enum journal { NO_JOURNAL, JOURNAL_IS_STDERR, JOURNAL_ELSEWHERE };

/* Runs one log_warn with stderr sent to a temporary file, JOURNAL_STREAM
 * unset, naming that file or another stream; returns the line. */
static void capture(char *out, size_t size, enum journal journal)
{
	char path[] = "test_log_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	char js[64];
	snprintf(js, sizeof js, "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + (journal == JOURNAL_ELSEWHERE));
	if (journal == NO_JOURNAL)
		unsetenv("JOURNAL_STREAM");
	else
		setenv("JOURNAL_STREAM", js, 1);
	log_init("campaignd", LOG_LEVEL_INFO, false);
	unsetenv("JOURNAL_STREAM");
	log_warn("queue of %d mails", 3);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	FILE *f = fdopen(fd, "r");
	assert_non_null(f);
	rewind(f);
	if (!fgets(out, (int)size, f))
		out[0] = '\0';
	fclose(f);
	unlink(path);
}

static void assert_stamped(const char *line)
{
	/* 2026-03-01T09:00:00+0100 campaignd: warning: queue of 3 mails */
	int y, mo, d, h, mi, s;
	char sign;
	assert_int_equal(sscanf(line, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &sign), 7);
	assert_true(y >= 2024);
	assert_true(sign == '+' || sign == '-');
	const char *rest = strchr(line, ' ');
	assert_non_null(rest);
	assert_string_equal(rest, " campaignd: warning: queue of 3 mails\n");
}

static void test_stamped_on_terminal(void **state)
{
	(void)state;
	char line[256];
	capture(line, sizeof line, NO_JOURNAL);
	assert_stamped(line);
}

/* A shell of a desktop session passes JOURNAL_STREAM on with stderr
 * elsewhere: the lines are stamped. */
static void test_stamped_when_journal_is_elsewhere(void **state)
{
	(void)state;
	char line[256];
	capture(line, sizeof line, JOURNAL_ELSEWHERE);
	assert_stamped(line);
}

static void test_plain_under_journal(void **state)
{
	(void)state;
	char line[256];
	capture(line, sizeof line, JOURNAL_IS_STDERR);
	assert_string_equal(line, "campaignd: warning: queue of 3 mails\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stamped_on_terminal),
		cmocka_unit_test(test_stamped_when_journal_is_elsewhere),
		cmocka_unit_test(test_plain_under_journal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
