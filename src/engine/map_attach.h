/* The map as a mail carries it: a list of attachments, so that another
 * rendering (a PNG beside the SVG) is added in one place. Private to the
 * engine. */
#ifndef CAMPAIGN_ENGINE_MAP_ATTACH_H
#define CAMPAIGN_ENGINE_MAP_ATTACH_H

#include <stddef.h>

#include "mail/mail_compose.h"
#include "model/model.h"

struct engine_attachments {
	struct mail_attachment *items;
	size_t count;
	char **owned; /* the data the items point into */
	size_t n_owned;
};

/* The current map of c, appended to *a (zeroed by the caller): today
 * "map.svg" (image/svg+xml). */
void engine_map_attachments(const struct campaign *c, struct engine_attachments *a);
/* The file names of a's items, ", " between them ("map.svg"). Caller frees. */
char *engine_attachments_names(const struct engine_attachments *a);
void engine_attachments_free(struct engine_attachments *a);

#endif
