#include "config.h"

#include "base/fileio.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>

char *file_read_stream(FILE *f, size_t max_bytes, size_t *len)
{
	struct strbuf sb = {0};
	char buf[65536];
	size_t n;
	strbuf_puts(&sb, "");
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		strbuf_append(&sb, buf, n);
		if (max_bytes && sb.len > max_bytes) {
			strbuf_free(&sb);
			errno = EFBIG;
			return NULL;
		}
	}
	if (ferror(f)) {
		int err = errno ? errno : EIO;
		strbuf_free(&sb);
		errno = err;
		return NULL;
	}
	if (len)
		*len = sb.len;
	return strbuf_take(&sb);
}

char *file_read_all(const char *path, size_t max_bytes, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *data = file_read_stream(f, max_bytes, len);
	int err = errno;
	fclose(f);
	errno = err;
	return data;
}
