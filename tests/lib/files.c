#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/files.h"
#include "base/fileio.h"
#include "base/util.h"

char *test_source_path(const char *rel)
{
	const char *top = getenv("top_srcdir");
	return xasprintf("%s/%s", top ? top : "..", rel);
}

char *test_source_text(const char *rel, size_t *len)
{
	char *path = test_source_path(rel);
	char *text = file_read_all(path, 0, len);
	if (!text)
		fail_msg("cannot read %s", path);
	free(path);
	return text;
}

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
