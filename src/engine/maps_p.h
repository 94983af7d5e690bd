/* The map that goes with a mail: SVG (for the web and clients that show
 * it) and a PNG rendering of it (for every other client and phones).
 * Private to src/engine. */
#ifndef CAMPAIGN_ENGINE_MAPS_P_H
#define CAMPAIGN_ENGINE_MAPS_P_H

#include <stddef.h>

#include "mail/mail_compose.h"
#include "model/model.h"

struct store;

struct engine_maps {
	char *svg;
	unsigned char *png;
	size_t png_len;
	struct mail_attachment att[2]; /* map.png (if rendered), map.svg */
	size_t count;
};

/* The map of `c` as it stands, marked with the battles and sieges of
 * `year` (read from the store's events; none if `store` is NULL), titled
 * `title` (NULL: the campaign and its current year), as attachments: "map.png" first, then
 * "map.svg". A PNG that cannot be rendered is logged and left out; the SVG
 * is always there. Free with engine_maps_free. */
void engine_maps_build(struct store *store, const struct campaign *c, int year,
		       const char *title, struct engine_maps *m);
void engine_maps_free(struct engine_maps *m);
/* The file names of m's attachments, ", " between them ("map.png,
 * map.svg"), as the answer to MAP names them. Caller frees. */
char *engine_maps_names(const struct engine_maps *m);

#endif
