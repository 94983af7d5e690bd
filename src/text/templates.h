/* Finding and rendering the mail and page templates. A template named "ack"
 * is the file "ack.mustache" (partials likewise) looked up first in the
 * organiser's override folder, then in the built-in folders. An override
 * that does not compile or render is reported (once per render, through the
 * warning callback) and the built-in one is used instead. Each file is read
 * and compiled once and kept while it is unchanged (same inode, size and
 * modification time); a file added to a folder searched earlier is seen by
 * a new struct templates (the daemon makes one on SIGHUP). */
#ifndef CAMPAIGN_TEMPLATES_H
#define CAMPAIGN_TEMPLATES_H

#include <jansson.h>

struct templates;

/* override_dir may be NULL. The built-in folders are, in order: the
 * CAMPAIGND_TEMPLATES environment variable if set, the installed folder.
 * No path of the source tree is built in: an uninstalled build (the tests,
 * the demo) names the source tree's templates in CAMPAIGND_TEMPLATES. */
struct templates *templates_new(const char *override_dir);
void templates_free(struct templates *t);

/* Called with a one-line message when an override is broken. */
void templates_set_warning(struct templates *t, void (*fn)(void *ctx, const char *msg),
			   void *ctx);

/* Renders template `name` with data. Returns the malloc'd text, or NULL with
 * *errstr set ("ack.mustache:12: unclosed section \"orders\"") when no usable
 * template exists. */
char *templates_render(struct templates *t, const char *name, const json_t *data,
		       char **errstr);

/* The path of the file that would be used for `name` (for messages), or NULL. */
char *templates_find(struct templates *t, const char *name, const char **kind);

#endif
