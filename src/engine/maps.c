#include "config.h"

#include "engine/maps_p.h"
#include "dbm/diary.h"
#include "store/store.h"
#include "text/map_png.h"
#include "text/map_svg.h"
#include "base/log.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

void engine_maps_build(struct store *store, const struct campaign *c, int year,
		       const char *title, struct engine_maps *m)
{
	memset(m, 0, sizeof *m);
	json_t *events = NULL, *marks = NULL;
	char *err = NULL;
	if (store && store_events(store, year, &events, &err) == STORE_OK) {
		marks = diary_map_marks(c, events, year);
	} else if (store) {
		log_warn("the map's marks of %d: %s", year, err ? err : "cannot read the events");
		free(err);
		err = NULL;
	}
	struct map_svg_options mo;
	map_svg_options_default(&mo);
	mo.marks = marks;
	mo.title = title;
	m->svg = map_svg(c, &mo);
	if (map_png(m->svg, strlen(m->svg), 1.0, &m->png, &m->png_len, &err) == 0) {
		m->att[m->count++] =
			(struct mail_attachment){"map.png", "image/png", m->png, m->png_len};
	} else {
		log_warn("the map goes as SVG only: %s", err ? err : "cannot render it");
		free(err);
	}
	m->att[m->count++] = (struct mail_attachment){"map.svg", "image/svg+xml",
						      (const unsigned char *)m->svg, strlen(m->svg)};
	json_decref(marks);
	json_decref(events);
}

void engine_maps_free(struct engine_maps *m)
{
	free(m->svg);
	free(m->png);
	memset(m, 0, sizeof *m);
}

char *engine_maps_names(const struct engine_maps *m)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < m->count; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", m->att[i].filename);
	return strbuf_take(&sb);
}
