/* The OAuth2 token cache the IMAP and SMTP transports share: when a token
 * is asked for again (none held, too old, refused), and that it is wiped. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "mail/transport.h"
#include "base/util.h"

struct helper {
	int calls;
	bool fail;
};

static char *next_token(void *ctx, char **errstr)
{
	struct helper *h = ctx;
	h->calls++;
	if (h->fail) {
		*errstr = xstrdup("the command exited with status 2");
		return NULL;
	}
	return xasprintf("token-%d", h->calls);
}

static void test_token_cache(void **state)
{
	(void)state;
	struct helper h = {0};
	struct transport_token_source src = {next_token, &h, 1};
	struct transport_token_cache cache = {0};
	char *err = NULL;

	assert_string_equal(transport_token(&cache, &src, false, &err), "token-1");
	/* held while young */
	assert_string_equal(transport_token(&cache, &src, false, &err), "token-1");
	assert_int_equal(h.calls, 1);
	/* refused: a fresh one at once */
	assert_string_equal(transport_token(&cache, &src, true, &err), "token-2");
	/* too old: a fresh one before it expires */
	struct timespec pause = {1, 100 * 1000 * 1000};
	nanosleep(&pause, NULL);
	assert_string_equal(transport_token(&cache, &src, false, &err), "token-3");
	assert_int_equal(cache.fetches, 3);

	/* a failing helper: its message, no token held, asked again next time */
	h.fail = true;
	assert_null(transport_token(&cache, &src, true, &err));
	assert_string_equal(err, "the command exited with status 2");
	free(err);
	err = NULL;
	assert_null(cache.token);
	h.fail = false;
	assert_string_equal(transport_token(&cache, &src, false, &err), "token-5");
	transport_token_clear(&cache);
	assert_null(cache.token);

	/* no source at all */
	struct transport_token_source none = {NULL, NULL, 0};
	assert_null(transport_token(&cache, &none, false, &err));
	assert_non_null(strstr(err, "no OAuth2 token source"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
