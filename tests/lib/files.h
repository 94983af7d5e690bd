/* What many tests share for files: the source tree's files, scratch
 * directories. (Whole files are read with file_read_all, base/fileio.h.) */
#ifndef CAMPAIGN_TEST_FILES_H
#define CAMPAIGN_TEST_FILES_H

#include <stddef.h>

/* $top_srcdir/rel (".." when top_srcdir is not set); free it. */
char *test_source_path(const char *rel);
/* The whole file $top_srcdir/rel, NUL-terminated, its length in *len (if
 * len is not NULL); fails the test if it cannot be read. */
char *test_source_text(const char *rel, size_t *len);
/* Makes a new directory /tmp/campaignd-NAME-XXXXXX into dir (64 bytes). */
void test_scratch_dir(char dir[64], const char *name);
/* Removes it and everything in it. */
void test_scratch_remove(const char *dir);

#endif
