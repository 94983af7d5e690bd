#include "config.h"

#include "text/templates.h"
#include "base/fileio.h"
#include "text/mustache.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIRS 4

struct templates {
	char *dirs[MAX_DIRS]; /* dirs[0] is the override folder or NULL */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

struct templates *templates_new(const char *override_dir)
{
	struct templates *t = xcalloc(1, sizeof *t);
	size_t n = 0;
	t->dirs[n++] = override_dir ? xstrdup(override_dir) : NULL;
	const char *env = getenv("CAMPAIGND_TEMPLATES");
	if (env && *env)
		t->dirs[n++] = xstrdup(env);
	t->dirs[n++] = xstrdup(TEMPLATEDIR);
	t->dirs[n++] = xstrdup(SRCTEMPLATEDIR);
	return t;
}

void templates_free(struct templates *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < MAX_DIRS; i++)
		free(t->dirs[i]);
	free(t);
}

void templates_set_warning(struct templates *t, void (*fn)(void *ctx, const char *msg), void *ctx)
{
	t->warn = fn;
	t->warn_ctx = ctx;
}

static bool valid_name(const char *name)
{
	if (!*name || name[0] == '.')
		return false;
	for (const char *p = name; *p; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
		      ('0' <= *p && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return !strstr(name, "..");
}

/* Reads template `name` from folder index `from` onwards; *found_at gets the
 * folder index used. */
static char *load_from(struct templates *t, const char *name, size_t from, size_t *found_at)
{
	if (!valid_name(name))
		return NULL;
	for (size_t i = from; i < MAX_DIRS; i++) {
		if (!t->dirs[i])
			continue;
		char *path = xasprintf("%s/%s.mustache", t->dirs[i], name);
		char *text = file_read_all(path, 0, NULL);
		free(path);
		if (text) {
			if (found_at)
				*found_at = i;
			return text;
		}
	}
	return NULL;
}

struct partial_ctx {
	struct templates *t;
	size_t from; /* 0: overrides allowed; 1: built-in only */
};

static char *partial_loader(void *ctx, const char *name)
{
	struct partial_ctx *pc = ctx;
	return load_from(pc->t, name, pc->from, NULL);
}

char *templates_find(struct templates *t, const char *name, const char **kind)
{
	for (size_t i = 0; i < MAX_DIRS; i++) {
		if (!t->dirs[i] || !valid_name(name))
			continue;
		char *path = xasprintf("%s/%s.mustache", t->dirs[i], name);
		FILE *f = fopen(path, "rb");
		if (f) {
			fclose(f);
			if (kind)
				*kind = i == 0 ? "override" : "built-in";
			return path;
		}
		free(path);
	}
	return NULL;
}

static char *render_from(struct templates *t, const char *name, const json_t *data, size_t from,
			 size_t *used, char **errstr)
{
	char *text = load_from(t, name, from, used);
	if (!text) {
		*errstr = xasprintf("no template \"%s\" (%s.mustache)", name, name);
		return NULL;
	}
	struct partial_ctx pc = {t, from};
	struct mustache_error err = {0};
	char *out = mustache_render_string(text, strlen(text), data, partial_loader, &pc, &err);
	free(text);
	if (!out) {
		const char *dir = t->dirs[*used] ? t->dirs[*used] : "";
		if (err.partial[0])
			*errstr = xasprintf("%s/%s.mustache:%d: %s", dir, err.partial, err.line,
					    err.message);
		else
			*errstr = xasprintf("%s/%s.mustache:%d: %s", dir, name, err.line,
					    err.message);
	}
	return out;
}

char *templates_render(struct templates *t, const char *name, const json_t *data, char **errstr)
{
	size_t used = 0;
	char *err = NULL;
	char *out = render_from(t, name, data, 0, &used, &err);
	if (out)
		return out;
	if (used == 0 && t->dirs[0]) {
		/* a broken override: say so, and fall back to the built-in one */
		if (t->warn) {
			char *msg = xasprintf("%s; using the built-in template", err);
			t->warn(t->warn_ctx, msg);
			free(msg);
		}
		free(err);
		err = NULL;
		out = render_from(t, name, data, 1, &used, &err);
		if (out)
			return out;
	}
	if (errstr)
		*errstr = err;
	else
		free(err);
	return NULL;
}
