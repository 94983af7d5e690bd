/* Reading a campaign file from disk: the only I/O on the way to
 * campaign_file_parse, kept apart so the parser stays pure. */
#include "config.h"

#include "campaign_file.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the whole file; NULL with errno set on failure. */
static char *read_whole_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct strbuf sb = {0};
	char buf[8192];
	size_t n;
	strbuf_puts(&sb, "");
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_append(&sb, buf, n);
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		strbuf_free(&sb);
		errno = err;
		return NULL;
	}
	*len = sb.len;
	return strbuf_take(&sb);
}

struct campaign *campaign_file_load(const char *path, struct diag_list *diags)
{
	size_t len = 0;
	char *text = read_whole_file(path, &len);
	if (!text) {
		diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s", strerror(errno));
		return NULL;
	}
	struct campaign *c = campaign_file_parse(text, len, path, diags);
	free(text);
	return c;
}
