/* libFuzzer harness for the Mustache engine: compiles the input as a
 * template and, if it compiles, renders it against fixed data. Every partial
 * and parent is the input itself, so recursion limits get exercised too. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "text/mustache.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_data[] =
	"{\"a\": [1, 2.5, {\"b\": true, \"c\": \"<&>\"}], \"b\": \"a\", \"c\": {\"a\": {\"b\": []}},"
	" \"n\": null, \"z\": 0, \"s\": \"x\\ny\", \"d\": \"b\"}";

static char *fuzz_partial(void *ctx, const char *name)
{
	(void)name;
	return xstrdup(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *context;
	if (!context)
		context = json_loads(fuzz_data, 0, NULL);
	struct mustache_error err;
	struct mustache_template *t = mustache_compile((const char *)data, size, &err);
	if (!t)
		return 0;
	char *self = xstrndup((const char *)data, size);
	struct strbuf out = {0};
	mustache_render(t, context, fuzz_partial, self, &out, &err);
	strbuf_free(&out);
	free(self);
	mustache_free(t);
	return 0;
}
