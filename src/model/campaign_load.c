/* Reading a campaign file from disk: the only I/O on the way to
 * campaign_file_parse, kept apart so the parser stays pure. */
#include "config.h"

#include "model/campaign_file.h"
#include "base/fileio.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct campaign *campaign_file_load(const char *path, struct diag_list *diags)
{
	size_t len = 0;
	char *text = file_read_all(path, 0, &len);
	if (!text) {
		diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s", strerror(errno));
		return NULL;
	}
	struct campaign *c = campaign_file_parse(text, len, path, diags);
	free(text);
	return c;
}
