/* campaignctl render: renders a Mustache template file with JSON data, to
 * try out and debug the report and diary templates. */
#include "config.h"

#include "cli/campaignctl.h"
#include "text/mustache.h"
#include "base/fileio.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

struct partial_dir {
	const char *dir;
};

/* A partial name is a relative path inside the partials folder. */
static bool partial_name_ok(const char *name)
{
	if (name[0] == '/' || strcmp(name, "..") == 0 || strncmp(name, "../", 3) == 0 ||
	    strstr(name, "/../") != NULL)
		return false;
	size_t n = strlen(name);
	return !(n >= 3 && strcmp(name + n - 3, "/..") == 0);
}

static char *partial_path(const char *dir, const char *name)
{
	return xasprintf("%s/%s.mustache", dir, name);
}

static char *load_partial(void *ctx, const char *name)
{
	const struct partial_dir *pd = ctx;
	if (!partial_name_ok(name)) {
		fprintf(stderr, "%s: warning: partial name \"%s\" leaves the partials folder; rendered as empty\n", ctl_prog,
			name);
		return NULL;
	}
	char *path = partial_path(pd->dir, name);
	size_t len;
	char *text = file_read_all(path, 0, &len);
	if (!text)
		fprintf(stderr, "%s: warning: partial \"%s\" not found (%s: %s); rendered as empty\n", ctl_prog,
			name, path, strerror(errno));
	free(path);
	return text;
}

static void print_error(const char *file, int line, const char *message)
{
	if (line > 0)
		fprintf(stderr, "%s:%d: %s\n", file, line, message);
	else
		fprintf(stderr, "%s: %s\n", file, message);
}

static int run_render(int argc, char **argv);

const struct ctl_command ctl_cmd_render = {
	.name = "render",
	.usage = "render TEMPLATE --data JSON [--partials DIR]",
	.summary = "render a Mustache template with JSON data to standard output",
	.options = "      --data JSON       the data, a JSON file\n"
		    "      --partials DIR    where the partials are\n",
	.run = run_render,
};

static int run_render(int argc, char **argv)
{
	const char *template_path = NULL, *data_path = NULL, *partials_dir = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("usage: campaignctl %s\n", ctl_cmd_render.usage);
			return EX_OK;
		} else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
			data_path = argv[++i];
		} else if (strncmp(argv[i], "--data=", 7) == 0) {
			data_path = argv[i] + 7;
		} else if (strcmp(argv[i], "--partials") == 0 && i + 1 < argc) {
			partials_dir = argv[++i];
		} else if (strncmp(argv[i], "--partials=", 11) == 0) {
			partials_dir = argv[i] + 11;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "%s: unknown or incomplete option \"%s\"\n", ctl_prog, argv[i]);
			return ctl_usage(&ctl_cmd_render);
		} else if (!template_path) {
			template_path = argv[i];
		} else {
			fprintf(stderr, "%s: only one template, please (\"%s\"?)\n", ctl_prog, argv[i]);
			return ctl_usage(&ctl_cmd_render);
		}
	}
	if (!template_path || !data_path)
		return ctl_usage(&ctl_cmd_render);

	int rc = EX_OK;
	char *text = NULL, *dir = NULL, *where = NULL;
	json_t *data = NULL;
	struct mustache_template *t = NULL;
	struct strbuf out = {0};
	struct mustache_error err;

	size_t len;
	text = file_read_all(template_path, 0, &len);
	if (!text) {
		fprintf(stderr, "%s: cannot read %s: %s\n", ctl_prog, template_path, strerror(errno));
		rc = EX_NOINPUT;
		goto done;
	}
	FILE *df = fopen(data_path, "rb");
	if (!df) {
		fprintf(stderr, "%s: cannot read %s: %s\n", ctl_prog, data_path, strerror(errno));
		rc = EX_NOINPUT;
		goto done;
	}
	json_error_t jerr;
	data = json_loadf(df, JSON_DECODE_ANY, &jerr);
	fclose(df);
	if (!data) {
		print_error(data_path, jerr.line, jerr.text);
		rc = EX_DATAERR;
		goto done;
	}
	if (partials_dir) {
		dir = xstrdup(partials_dir);
	} else {
		const char *slash = strrchr(template_path, '/');
		dir = slash ? xstrndup(template_path, (size_t)(slash - template_path) + (slash == template_path))
			    : xstrdup(".");
	}

	t = mustache_compile(text, len, &err);
	if (!t) {
		print_error(template_path, err.line, err.message);
		rc = EX_DATAERR;
		goto done;
	}
	struct partial_dir pd = {.dir = dir};
	if (mustache_render(t, data, load_partial, &pd, &out, &err) < 0) {
		where = err.partial[0] ? partial_path(dir, err.partial) : xstrdup(template_path);
		print_error(where, err.line, err.message);
		rc = EX_DATAERR;
		goto done;
	}
	if (out.len && fwrite(out.data, 1, out.len, stdout) != out.len)
		rc = EX_IOERR;
	if (fflush(stdout) != 0)
		rc = EX_IOERR;
	if (rc == EX_IOERR)
		fprintf(stderr, "%s: cannot write the output: %s\n", ctl_prog, strerror(errno));
done:
	strbuf_free(&out);
	mustache_free(t);
	json_decref(data);
	free(where);
	free(dir);
	free(text);
	return rc;
}
