#include "config.h"

#include "text/templates.h"
#include "base/fileio.h"
#include "text/mustache.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DIRS 3
/* Templates and partials kept read (and compiled) between renders. */
#define MAX_CACHED 128

/* A template file as read: kept while the file stays the same (same inode,
 * size and modification time); a file added to a folder searched earlier
 * is seen after templates_free (the daemon's SIGHUP). */
struct cached {
	char *name;
	size_t from;     /* the first folder searched */
	size_t found_at; /* the folder it came from */
	char *path;
	struct stat sb;
	char *text;
	struct mustache_template *compiled; /* NULL until rendered once */
	bool rendering; /* never made room for while its render runs */
};

struct templates {
	char *dirs[MAX_DIRS]; /* dirs[0] is the override folder or NULL */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	struct cached cache[MAX_CACHED];
	size_t cached;
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
	return t;
}

void templates_free(struct templates *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < MAX_DIRS; i++)
		free(t->dirs[i]);
	for (size_t i = 0; i < t->cached; i++) {
		free(t->cache[i].name);
		free(t->cache[i].path);
		free(t->cache[i].text);
		mustache_free(t->cache[i].compiled);
	}
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

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Template `name` from folder index `from` onwards, read once and kept
 * while its file is unchanged; NULL if there is none. */
static struct cached *load_from(struct templates *t, const char *name, size_t from)
{
	if (!valid_name(name))
		return NULL;
	struct cached *c = NULL;
	for (size_t i = 0; i < t->cached; i++)
		if (t->cache[i].from == from && strcmp(t->cache[i].name, name) == 0)
			c = &t->cache[i];
	struct stat sb;
	if (c && (c->rendering || (stat(c->path, &sb) == 0 && same_file(&sb, &c->sb))))
		return c;
	for (size_t i = from; i < MAX_DIRS; i++) {
		if (!t->dirs[i])
			continue;
		char *path = xasprintf("%s/%s.mustache", t->dirs[i], name);
		char *text = NULL;
		if (stat(path, &sb) == 0)
			text = file_read_all(path, 0, NULL);
		if (!text) {
			free(path);
			continue;
		}
		if (!c && t->cached == MAX_CACHED) {
			/* full (not with our templates): another one makes room */
			for (size_t j = 0; !c && j < MAX_CACHED; j++)
				if (!t->cache[j].rendering)
					c = &t->cache[j];
			free(c->name);
			c->name = NULL;
		}
		if (!c)
			c = &t->cache[t->cached++];
		else {
			free(c->path);
			free(c->text);
			mustache_free(c->compiled);
		}
		if (!c->name)
			c->name = xstrdup(name);
		c->from = from;
		c->found_at = i;
		c->path = path;
		c->sb = sb;
		c->text = text;
		c->compiled = NULL;
		return c;
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
	struct cached *c = load_from(pc->t, name, pc->from);
	return c ? xstrdup(c->text) : NULL;
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
	struct cached *c = load_from(t, name, from);
	if (!c) {
		*errstr = xasprintf("no template \"%s\" (%s.mustache)", name, name);
		return NULL;
	}
	*used = c->found_at;
	struct partial_ctx pc = {t, from};
	struct mustache_error err = {0};
	char *out = NULL;
	if (!c->compiled)
		c->compiled = mustache_compile(c->text, strlen(c->text), &err);
	if (c->compiled) {
		struct strbuf sb = {0};
		c->rendering = true;
		int rc = mustache_render(c->compiled, data, partial_loader, &pc, &sb, &err);
		c->rendering = false;
		if (rc == 0)
			out = strbuf_take(&sb);
		else
			strbuf_free(&sb);
	}
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
