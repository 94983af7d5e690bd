/* Reading whole files: the small I/O helpers the edges share. */
#ifndef CAMPAIGN_FILEIO_H
#define CAMPAIGN_FILEIO_H

#include <stddef.h>
#include <stdio.h>

/* Reads all of the file at path (at most max_bytes; 0: no limit) into a new
 * NUL-terminated buffer (NUL bytes inside are kept; *len tells the size).
 * Returns NULL with errno set on failure; EFBIG when the file is larger
 * than max_bytes. */
char *file_read_all(const char *path, size_t max_bytes, size_t *len);

/* The same from an open stream (not closed). */
char *file_read_stream(FILE *f, size_t max_bytes, size_t *len);

#endif
