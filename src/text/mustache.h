/* Mustache templates: compile once, render many times against jansson data.
 *
 * Implements the official Mustache spec: interpolation, sections, inverted
 * sections, comments, partials, set delimiters, and the optional inheritance
 * (parents {{<p}} and blocks {{$b}}) and dynamic names ({{>*name}},
 * {{<*name}}) modules. Lambdas are not supported: JSON data holds no code.
 *
 * Data rules (the spec leaves these open; we follow mustache.js):
 * - falsey values are: a missing name, null, false, 0, 0.0, "" and the empty
 *   array; everything else, including an empty object, is truthy;
 * - numbers interpolate as integers ("85") or as the shortest decimal that
 *   reads back as the same double ("1.21"), true/false as "true"/"false",
 *   null as "", arrays and objects as compact JSON;
 * - {{name}} escapes exactly & < > " (as &amp; &lt; &gt; &quot;);
 *   {{{name}}} and {{&name}} do not escape;
 * - a dotted name part that is a decimal number indexes an array
 *   ({{items.0.name}}).
 *
 * Pure: no I/O. Partials and parents come from a callback. */
#ifndef CAMPAIGN_MUSTACHE_H
#define CAMPAIGN_MUSTACHE_H

#include <stddef.h>

#include <jansson.h>

#include "base/util.h"

/* Partials and parents may nest this deep (a template that includes itself
 * stops here with an error instead of exhausting the stack). */
#define MUSTACHE_MAX_EXPANSION 64
/* Sections, parents and blocks may nest this deep inside one template. */
#define MUSTACHE_MAX_NESTING 256
/* ...and this deep in all while rendering, counting across partials and
 * parents, which keeps the C stack small. */
#define MUSTACHE_MAX_RENDER_DEPTH 1024
/* One render may visit this many template nodes and write this many bytes:
 * sections nested over lists multiply, and a runaway template must end
 * with an error rather than hang. A diary of 100,000 events fits easily. */
#define MUSTACHE_MAX_STEPS (1L << 24)
#define MUSTACHE_MAX_OUTPUT ((size_t)64 << 20)

struct mustache_error {
	int line;          /* 1-based line of the offending tag; 0 if none */
	int column;        /* 1-based column (bytes) of the tag's opening delimiter */
	char partial[128]; /* partial or parent the error is in; "" for the template itself */
	char message[256];
};

/* Returns the text of partial `name` as a malloc'd NUL-terminated string
 * (the engine frees it), or NULL if there is no such partial: the spec says a
 * missing partial renders as the empty string. Called at most once per
 * distinct name during one render. */
typedef char *(*mustache_partial_fn)(void *ctx, const char *name);

/* An opaque compiled template. It keeps its own copy of the text. */
struct mustache_template;

/* Compiles `len` bytes of template text (need not be NUL-terminated; NUL
 * bytes are literal text). Returns NULL on a malformed template and fills
 * *err (if err is not NULL): unclosed tag, empty or malformed tag name,
 * unknown tag type, bad delimiter change, unclosed or mismatched section,
 * nesting deeper than MUSTACHE_MAX_NESTING. Caller frees with mustache_free. */
struct mustache_template *mustache_compile(const char *text, size_t len, struct mustache_error *err);

/* Renders t with `data` (any JSON value; NULL is an empty context) and
 * appends the output to *out. `partials` may be NULL (no partials exist).
 * Returns 0, or -1 with *err filled (if not NULL) when a partial does not
 * compile, partials nest deeper than MUSTACHE_MAX_EXPANSION, sections
 * deeper than MUSTACHE_MAX_RENDER_DEPTH, or the render
 * exceeds MUSTACHE_MAX_STEPS or MUSTACHE_MAX_OUTPUT; after an error *out
 * holds the output written so far. */
int mustache_render(const struct mustache_template *t, const json_t *data,
		    mustache_partial_fn partials, void *ctx, struct strbuf *out,
		    struct mustache_error *err);

/* Compiles and renders in one go. Returns the malloc'd output, or NULL with
 * *err filled on any error from mustache_compile or mustache_render. */
char *mustache_render_string(const char *text, size_t len, const json_t *data,
			     mustache_partial_fn partials, void *ctx, struct mustache_error *err);

void mustache_free(struct mustache_template *t);

#endif
