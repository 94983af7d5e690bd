/* The campaign map as an SVG 1.1 document, drawn from the province positions
 * of the campaign file: provinces coloured by owner, home provinces ringed
 * in their nation's colour, neutrals grey and inviolate neutrals hatched,
 * land routes solid and sea routes dashed blue, field armies with their
 * army points, sieges under way, the year's battles and sieges (marks),
 * a title above and a legend below, sized to hold its longest line. No
 * mark covers a province's name (map_layout_p.h).
 * Pure: no I/O; the optional background image is only referred to by
 * name. Every name is escaped. */
#ifndef CAMPAIGN_MAP_SVG_H
#define CAMPAIGN_MAP_SVG_H

#include <stdbool.h>

#include <jansson.h>

#include "model/model.h"

struct map_svg_options {
	bool show_armies;  /* a badge with each active field army's AP */
	bool show_sieges;  /* a marker on each province under siege */
	const char *title; /* the title written above the map (and its <title>);
			    * NULL = campaign name and year */
	/* Places marked for the year shown: an array of {"province": name,
	 * "kind": "battle" or "siege", "title": what happened (a tooltip),
	 * "year"}, or NULL. Unknown provinces and kinds are ignored. */
	const json_t *marks;
};

/* The options the daemon and campaignctl use: armies and sieges shown. */
void map_svg_options_default(struct map_svg_options *o);

/* The map of c as it stands. Returns the malloc'd document (UTF-8,
 * well-formed XML, never NULL); `o` may be NULL for the defaults. A campaign
 * without provinces gives an empty map with its legend. */
char *map_svg(const struct campaign *c, const struct map_svg_options *o);

/* A line chart of prestige over the years, one line per player in its
 * colour (players tied in a year drawn a little apart there, so every line
 * shows), titled `title` (NULL: "Prestige") above, with a legend giving
 * each player's latest total inside the chart. `history` is
 * diary_prestige_history's document. Returns the malloc'd SVG document. */
char *map_svg_prestige_chart(const json_t *history, const char *title);

/* Appends `s` to sb escaped for XML text and attribute values (& < > " '),
 * with control characters and invalid UTF-8 bytes replaced by '?', since
 * XML 1.0 cannot hold them at all. */
struct strbuf;
void map_svg_escape(struct strbuf *sb, const char *s);

#endif
