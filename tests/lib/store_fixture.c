#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>

#include "lib/store_fixture.h"

struct store *test_store_open(const char *path)
{
	struct store *s = NULL;
	char *err = NULL;
	if (store_open(path, STORE_CREATE, &s, &err) != STORE_OK)
		fail_msg("store_open: %s", err);
	store_set_pwhash_limits(s, crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN);
	return s;
}

struct store *test_store_with(const char *path, struct campaign *c)
{
	struct store *s = test_store_open(path);
	char *err = NULL;
	if (store_init_campaign(s, c, false, &err) != STORE_OK)
		fail_msg("%s", err);
	campaign_free(c);
	return s;
}
