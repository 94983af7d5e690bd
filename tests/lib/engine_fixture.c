#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sodium.h>

#include "lib/engine_fixture.h"
#include "base/util.h"

void test_scratch_dir(char dir[64], const char *name)
{
	snprintf(dir, 64, "/tmp/campaignd-%s-XXXXXX", name);
	assert_non_null(mkdtemp(dir));
}

void test_scratch_remove(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

struct store *test_store_with(const char *path, struct campaign *c)
{
	struct store *s = NULL;
	char *err = NULL;
	if (store_open(path, STORE_CREATE, &s, &err) != STORE_OK)
		fail_msg("%s", err);
	store_set_pwhash_limits(s, crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN);
	if (store_init_campaign(s, c, false, &err) != STORE_OK)
		fail_msg("%s", err);
	campaign_free(c);
	return s;
}

struct templates *test_templates(void)
{
	const char *src = getenv("top_srcdir");
	char *tdir = xasprintf("%s/templates", src ? src : "..");
	setenv("CAMPAIGND_TEMPLATES", tdir, 1);
	free(tdir);
	return templates_new(NULL);
}
