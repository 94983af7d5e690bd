/* Runs the official Mustache spec (one JSON file per module) against our
 * engine. The folder is $MUSTACHE_SPEC_DIR, else
 * $top_srcdir/../shared/conformance/mustache-spec; if it is absent the test
 * is skipped (exit 77). Lambdas cannot be written as JSON data: that module's
 * tests are counted as skipped. Ends with "N passed, M failed, K skipped";
 * exits 1 if any test failed. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "text/mustache.h"
#include "base/util.h"

#define EXIT_SKIP 77

struct counts {
	int passed, failed, skipped;
};

static char *spec_partial(void *ctx, const char *name)
{
	const json_t *partials = ctx;
	const json_t *p = json_object_get(partials, name);
	return json_is_string(p) ? xstrdup(json_string_value(p)) : NULL;
}

/* Prints s with control characters escaped, so that whitespace differences
 * show and each string stays on one line. */
static void print_escaped(const char *label, const char *s)
{
	printf("    %-9s \"", label);
	for (; *s; s++) {
		switch (*s) {
		case '\n': fputs("\\n", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		case '"': fputs("\\\"", stdout); break;
		case '\\': fputs("\\\\", stdout); break;
		default: putchar(*s); break;
		}
	}
	fputs("\"\n", stdout);
}

static void run_test(const char *file, const json_t *test, struct counts *c)
{
	const char *name = json_string_value(json_object_get(test, "name"));
	const char *tmpl = json_string_value(json_object_get(test, "template"));
	const char *expected = json_string_value(json_object_get(test, "expected"));
	const json_t *data = json_object_get(test, "data");
	json_t *partials = json_object_get(test, "partials");
	if (!name || !tmpl || !expected) {
		printf("FAIL %s: malformed test entry\n", file);
		c->failed++;
		return;
	}
	struct mustache_error err;
	char *got = mustache_render_string(tmpl, strlen(tmpl), data, spec_partial, partials, &err);
	if (got && strcmp(got, expected) == 0) {
		c->passed++;
	} else {
		printf("FAIL %s: %s\n", file, name);
		print_escaped("template:", tmpl);
		print_escaped("expected:", expected);
		if (got)
			print_escaped("got:", got);
		else
			printf("    error:    %s%s%d: %s\n", err.partial, err.partial[0] ? ":" : "",
			       err.line, err.message);
		c->failed++;
	}
	free(got);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	char *dir = NULL;
	const char *env = getenv("MUSTACHE_SPEC_DIR");
	if (env && *env) {
		dir = xstrdup(env);
	} else {
		const char *top = getenv("top_srcdir");
		dir = xasprintf("%s/../shared/conformance/mustache-spec", top && *top ? top : ".");
	}
	DIR *d = opendir(dir);
	if (!d) {
		printf("mustache spec folder %s not found: skipped\n", dir);
		free(dir);
		return EXIT_SKIP;
	}
	char **files = NULL;
	size_t nfiles = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 5 && strcmp(de->d_name + n - 5, ".json") == 0) {
			grow_array((void **)&files, &cap, nfiles + 1, sizeof(*files));
			files[nfiles++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	qsort(files, nfiles, sizeof(*files), by_name);

	struct counts c = {0};
	for (size_t i = 0; i < nfiles; i++) {
		char *path = xasprintf("%s/%s", dir, files[i]);
		json_error_t jerr;
		json_t *spec = json_load_file(path, 0, &jerr);
		if (!spec) {
			printf("FAIL %s:%d: %s\n", path, jerr.line, jerr.text);
			c.failed++;
		} else {
			const json_t *tests = json_object_get(spec, "tests");
			bool lambdas = strstr(files[i], "lambdas") != NULL;
			for (size_t k = 0; k < json_array_size(tests); k++) {
				if (lambdas)
					c.skipped++;
				else
					run_test(files[i], json_array_get(tests, k), &c);
			}
			json_decref(spec);
		}
		free(path);
		free(files[i]);
	}
	free(files);
	free(dir);
	printf("%d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped);
	return c.failed ? 1 : 0;
}
