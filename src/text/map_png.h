/* A map (or any SVG document map_svg writes) rendered to PNG, for mail
 * clients and phones that do not show SVG attachments. Rendered by librsvg
 * onto a cairo image surface, in memory: bytes in, bytes out. References
 * to other files (the background image) are not followed: librsvg loads
 * nothing without a base file, so the PNG shows the map without it. */
#ifndef CAMPAIGN_MAP_PNG_H
#define CAMPAIGN_MAP_PNG_H

#include <stddef.h>

/* The PNG's width and height are the SVG's intrinsic size times `scale`,
 * each capped at MAP_PNG_MAX_SIDE pixels (the aspect kept). */
#define MAP_PNG_MAX_SIDE 4096

/* Renders the `len` bytes of `svg` at `scale` (1 = one pixel per SVG
 * unit; at most 4; 0 or less means 1) on an opaque white background.
 * Returns 0 with *png (malloc'd) and *png_len set, or -1 with *errstr
 * (allocated; caller frees) saying why: not SVG, no size, too large. */
int map_png(const char *svg, size_t len, double scale, unsigned char **png, size_t *png_len,
	    char **errstr);

#endif
