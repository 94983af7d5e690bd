#include "config.h"

#include "text/map_png.h"
#include "base/util.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <string.h>

static cairo_status_t append_png(void *closure, const unsigned char *data, unsigned int length)
{
	strbuf_append(closure, (const char *)data, length);
	return CAIRO_STATUS_SUCCESS;
}

int map_png(const char *svg, size_t len, double scale, unsigned char **png, size_t *png_len,
	    char **errstr)
{
	*png = NULL;
	*png_len = 0;
	if (!(scale > 0))
		scale = 1;
	if (scale > 4)
		scale = 4;
	GError *gerr = NULL;
	RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, len, &gerr);
	if (!h) {
		*errstr = xasprintf("the map is not SVG: %s", gerr ? gerr->message : "?");
		if (gerr)
			g_error_free(gerr);
		return -1;
	}
	gdouble w = 0, hgt = 0;
	if (!rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &hgt) || !(w >= 1) || !(hgt >= 1) ||
	    !isfinite(w) || !isfinite(hgt)) {
		g_object_unref(h);
		*errstr = xstrdup("the map has no width and height");
		return -1;
	}
	double s = scale;
	if (w * s > MAP_PNG_MAX_SIDE)
		s = MAP_PNG_MAX_SIDE / w;
	if (hgt * s > MAP_PNG_MAX_SIDE)
		s = MAP_PNG_MAX_SIDE / hgt;
	int pw = (int)ceil(w * s), ph = (int)ceil(hgt * s);
	if (pw < 1)
		pw = 1;
	if (ph < 1)
		ph = 1;
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
	cairo_t *cr = cairo_create(surface);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	RsvgRectangle viewport = {0, 0, w * s, hgt * s};
	bool ok = rsvg_handle_render_document(h, cr, &viewport, &gerr);
	int rc = -1;
	if (!ok) {
		*errstr = xasprintf("cannot draw the map: %s", gerr ? gerr->message : "?");
	} else if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		*errstr = xasprintf("cannot draw the map: %s",
				    cairo_status_to_string(cairo_status(cr)));
	} else {
		struct strbuf sb = {0};
		cairo_surface_flush(surface);
		cairo_status_t st = cairo_surface_write_to_png_stream(surface, append_png, &sb);
		if (st != CAIRO_STATUS_SUCCESS || !sb.len) {
			*errstr = xasprintf("cannot write the PNG: %s", cairo_status_to_string(st));
			strbuf_free(&sb);
		} else {
			*png_len = sb.len;
			*png = (unsigned char *)strbuf_take(&sb);
			rc = 0;
		}
	}
	if (gerr)
		g_error_free(gerr);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	g_object_unref(h);
	return rc;
}
