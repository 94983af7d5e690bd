/* The map as a mail carries it (map_attach.h). */
#include "config.h"

#include "engine/map_attach.h"
#include "text/map_svg.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static void add(struct engine_attachments *a, const char *filename, const char *type, char *data,
		size_t len)
{
	a->items = xrealloc(a->items, (a->count + 1) * sizeof *a->items);
	a->items[a->count++] = (struct mail_attachment){filename, type,
							(const unsigned char *)data, len};
	a->owned = xrealloc(a->owned, (a->n_owned + 1) * sizeof *a->owned);
	a->owned[a->n_owned++] = data;
}

void engine_map_attachments(const struct campaign *c, struct engine_attachments *a)
{
	char *svg = map_svg(c, NULL);
	add(a, "map.svg", "image/svg+xml", svg, strlen(svg));
}

char *engine_attachments_names(const struct engine_attachments *a)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < a->count; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", a->items[i].filename);
	return strbuf_take(&sb);
}

void engine_attachments_free(struct engine_attachments *a)
{
	for (size_t i = 0; i < a->n_owned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->items);
	memset(a, 0, sizeof *a);
}
