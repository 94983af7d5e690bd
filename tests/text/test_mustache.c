/* Unit tests for the Mustache engine on its own: interpolation and escaping,
 * sections, partials through a callback, inheritance, error messages with
 * line numbers, and garbage that must never crash it. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "text/mustache.h"
#include "base/util.h"

/* Partials for a test: a NULL-terminated list of name, text pairs. */
struct partial_table {
	const char *const *pairs;
	int calls;
};

static char *table_partial(void *ctx, const char *name)
{
	struct partial_table *pt = ctx;
	pt->calls++;
	for (size_t i = 0; pt->pairs && pt->pairs[i]; i += 2)
		if (strcmp(pt->pairs[i], name) == 0)
			return xstrdup(pt->pairs[i + 1]);
	return NULL;
}

/* Renders tmpl with the JSON data text and partial pairs; returns the output
 * (caller frees) or NULL, with *err filled. */
static char *render_with(const char *tmpl, const char *json, const char *const *partials,
			 struct mustache_error *err)
{
	json_error_t jerr;
	json_t *data = json ? json_loads(json, JSON_DECODE_ANY, &jerr) : NULL;
	if (json)
		assert_non_null(data);
	struct partial_table pt = {.pairs = partials};
	char *out = mustache_render_string(tmpl, strlen(tmpl), data, table_partial, &pt, err);
	json_decref(data);
	return out;
}

static void assert_renders(const char *tmpl, const char *json, const char *const *partials,
			   const char *expected)
{
	struct mustache_error err = {0};
	char *out = render_with(tmpl, json, partials, &err);
	if (!out)
		fail_msg("template %s failed: line %d: %s", tmpl, err.line, err.message);
	assert_string_equal(out, expected);
	free(out);
}

/* Asserts that tmpl does not compile, with the error on `line` and a
 * message containing `needle`. */
static void assert_compile_error(const char *tmpl, int line, int column, const char *needle)
{
	struct mustache_error err = {0};
	struct mustache_template *t = mustache_compile(tmpl, strlen(tmpl), &err);
	if (t) {
		mustache_free(t);
		fail_msg("template %s compiled", tmpl);
	}
	assert_int_equal(err.line, line);
	if (column)
		assert_int_equal(err.column, column);
	if (!strstr(err.message, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
	assert_string_equal(err.partial, "");
}

static void test_interpolation_and_escaping(void **state)
{
	(void)state;
	assert_renders("Hello, {{who}}!", "{\"who\": \"Anjou\"}", NULL, "Hello, Anjou!");
	/* Exactly & < > " are escaped; the apostrophe is not. */
	assert_renders("{{s}}|{{{s}}}|{{&s}}", "{\"s\": \"<a href=\\\"x\\\">&'</a>\"}", NULL,
		       "&lt;a href=&quot;x&quot;&gt;&amp;'&lt;/a&gt;|<a href=\"x\">&'</a>|<a href=\"x\">&'</a>");
	assert_renders("{{n}} {{r}} {{h}} {{big}} {{neg}}",
		       "{\"n\": 85, \"r\": 1.21, \"h\": 1.5, \"big\": 1e21, \"neg\": -0.25}", NULL,
		       "85 1.21 1.5 1e+21 -0.25");
	assert_renders("[{{t}}][{{f}}][{{z}}][{{missing}}][{{a}}]",
		       "{\"t\": true, \"f\": false, \"z\": null, \"a\": [1, \"x\"]}", NULL,
		       "[true][false][][][[1,&quot;x&quot;]]");
	/* Dotted names, array indexes, and no re-interpolation of data. */
	assert_renders("{{p.name}} {{list.1.n}} {{list.9.n}} {{x}}",
		       "{\"p\": {\"name\": \"Jean\"}, \"list\": [{\"n\": 1}, {\"n\": 2}], \"x\": \"{{p}}\"}",
		       NULL, "Jean 2  {{p}}");
	/* The implicit iterator at the root. */
	assert_renders("<{{.}}>", "\"top\"", NULL, "<top>");
	/* NULL data is an empty context. */
	assert_renders("a{{b}}c", NULL, NULL, "ac");
}

static void test_sections(void **state)
{
	(void)state;
	const char *json = "{\"events\": [{\"what\": \"siege\"}, {\"what\": \"storm\"}],"
			   " \"none\": [], \"zero\": 0, \"empty\": \"\", \"obj\": {\"k\": \"v\"},"
			   " \"k\": \"outer\", \"yes\": true}";
	assert_renders("{{#events}}<{{what}}>{{/events}}", json, NULL, "<siege><storm>");
	assert_renders("{{#none}}x{{/none}}{{^none}}no events{{/none}}", json, NULL, "no events");
	/* 0 and "" are falsey, an object is truthy and becomes the context. */
	assert_renders("{{#zero}}a{{/zero}}{{^zero}}b{{/zero}}{{#empty}}c{{/empty}}{{^empty}}d{{/empty}}",
		       json, NULL, "bd");
	assert_renders("{{#obj}}{{k}}{{/obj}} {{k}}", json, NULL, "v outer");
	/* Lookups fall back to outer contexts. */
	assert_renders("{{#events}}{{k}}-{{what}};{{/events}}", json, NULL, "outer-siege;outer-storm;");
	/* Standalone section lines disappear, CRLF included. */
	assert_renders("List:\n{{#events}}\n  - {{what}}\n{{/events}}\nEnd\n", json, NULL,
		       "List:\n  - siege\n  - storm\nEnd\n");
	assert_renders("a\r\n  {{#yes}}  \r\nb\r\n{{/yes}}\r\nc", json, NULL, "a\r\nb\r\nc");
	/* Not standalone: text on the line, or an interpolation. */
	assert_renders(" {{#yes}}x{{/yes}}\n{{k}}\n", json, NULL, " x\nouter\n");
	/* Delimiters change for the rest of the template, not for partials. */
	const char *const parts[] = {"p", "({{k}})", NULL};
	assert_renders("{{=<% %>=}}<% k %> {{k}} <%> p%>", json, parts, "outer {{k}} (outer)");
	/* Comments vanish, even across lines. */
	assert_renders("a{{! one\ntwo }}b\n  {{! alone }}\nc", NULL, NULL, "ab\nc");
}

static void test_partials(void **state)
{
	(void)state;
	const char *const parts[] = {
		"event", "* {{what}}\n",
		"box", "[\n{{>event}}\n]\n",
		"self", "{{>self}}",
		"maybe", "a\n{{#none}}\nx\n{{/none}}\n",
		NULL,
	};
	const char *json = "{\"events\": [{\"what\": \"siege\"}, {\"what\": \"storm\"}]}";
	assert_renders("{{#events}}\n{{>event}}\n{{/events}}", json, parts, "* siege\n* storm\n");
	/* A standalone partial is indented line by line, nested ones too. */
	assert_renders("x\n  {{>box}}\ny", "{\"what\": \"w\"}", parts, "x\n  [\n  * w\n  ]\ny");
	/* A standalone line that renders nothing leaves no indentation behind. */
	assert_renders("start\n  {{>maybe}}\nend\n", "{\"none\": []}", parts, "start\n  a\nend\n");
	/* An inline partial is not indented; a missing one renders nothing. */
	assert_renders("> {{>box}}|{{>nope}}|", "{\"what\": \"w\"}", parts, "> [\n* w\n]\n||");
	/* Each partial is fetched once per render, however often it is used. */
	struct partial_table pt = {.pairs = parts};
	json_t *data = json_loads(json, 0, NULL);
	struct mustache_error err;
	char *out = mustache_render_string("{{#events}}{{>event}}{{>nope}}{{/events}}", 41, data,
					   table_partial, &pt, &err);
	assert_string_equal(out, "* siege\n* storm\n");
	assert_int_equal(pt.calls, 2);
	free(out);
	/* A partial that includes itself stops with an error, not a crash. */
	pt.calls = 0;
	out = mustache_render_string("line one\n{{>self}}", 18, data, table_partial, &pt, &err);
	assert_null(out);
	assert_string_equal(err.partial, "self");
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.message, "nested more than 64 deep"));
	/* A partial with a syntax error reports the partial's name and line. */
	const char *const broken[] = {"bad", "ok\n{{#open}}\n", NULL};
	pt.pairs = broken;
	out = mustache_render_string("{{>bad}}", 8, data, table_partial, &pt, &err);
	assert_null(out);
	assert_string_equal(err.partial, "bad");
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.message, "unclosed section \"open\""));
	json_decref(data);
	/* Dynamic names pick the partial from the data. */
	assert_renders("{{#events}}{{>*kind}}{{/events}}",
		       "{\"events\": [{\"kind\": \"event\", \"what\": \"a\"}, {\"kind\": \"nope\"},"
		       " {\"what\": \"b\"}]}",
		       parts, "* a\n");
}

static void test_inheritance(void **state)
{
	(void)state;
	const char *const parts[] = {
		"page", "<h1>{{$title}}Campaign{{/title}}</h1>\n<body>\n  {{$body}}\n  nothing yet\n  {{/body}}\n</body>\n",
		"year", "{{<page}}{{$title}}Year {{year}}{{/title}}{{/page}}",
		NULL,
	};
	/* Defaults when nothing is overridden. */
	assert_renders("{{<page}}{{/page}}", NULL, parts,
		       "<h1>Campaign</h1>\n<body>\n  nothing yet\n</body>\n");
	/* Overrides, with the argument's indentation replaced by the block's. */
	assert_renders("{{<page}}\n{{$body}}\n        <p>{{text}}</p>\n        <p>end</p>\n{{/body}}\n{{/page}}\n",
		       "{\"text\": \"x < y\"}", parts,
		       "<h1>Campaign</h1>\n<body>\n  <p>x &lt; y</p>\n  <p>end</p>\n</body>\n");
	/* Multi-level: the outermost override wins, others still apply. */
	assert_renders("{{<year}}{{$body}}Storms.{{/body}}{{/year}}", "{\"year\": 1453}", parts,
		       "<h1>Year 1453</h1>\n<body>\n  Storms.</body>\n");
	assert_renders("{{<year}}{{$title}}Peace{{/title}}{{/year}}", "{\"year\": 1453}", parts,
		       "<h1>Peace</h1>\n<body>\n  nothing yet\n</body>\n");
	/* A block at the top of a template renders its default content. */
	assert_renders("{{$x}}default{{/x}}", NULL, NULL, "default");
	/* An argument that contains a block of its own name does not loop. */
	const char *const self[] = {"p", "{{$a}}d{{/a}}", NULL};
	assert_renders("{{<p}}{{$a}}[{{$a}}x{{/a}}]{{/a}}{{/p}}", NULL, self, "[x]");
	/* A parent that is its own parent stops with an error. */
	const char *const loop[] = {"p", "{{<p}}{{/p}}", NULL};
	struct mustache_error err;
	char *out = render_with("{{<p}}{{/p}}", NULL, loop, &err);
	assert_null(out);
	assert_non_null(strstr(err.message, "parent \"p\" nested more than 64 deep"));
}

static void test_compile_errors(void **state)
{
	(void)state;
	assert_compile_error("Hello\n  {{name", 2, 3, "unclosed tag");
	assert_compile_error("{{{name}}", 1, 1, "unclosed tag");
	assert_compile_error("a\nb\n{{#events}}\n{{what}}\n", 3, 1, "unclosed section \"events\"");
	assert_compile_error("{{#a}}\n{{#b}}\n{{/a}}\n{{/b}}", 3, 1,
			     "closing tag \"a\" does not match the section \"b\" opened on line 2");
	assert_compile_error("x\n{{/a}}", 2, 1, "\"a\" closes nothing");
	assert_compile_error("{{=<%>=}}", 1, 1, "bad delimiter change");
	assert_compile_error("\n{{= a b c =}}", 2, 1, "bad delimiter change");
	assert_compile_error("{{=a= b=}}", 1, 1, "may not contain '='");
	assert_compile_error("one {{%pragma}}", 1, 5, "unknown tag type '%'");
	assert_compile_error("{{}}", 1, 1, "empty tag");
	assert_compile_error("{{# }}", 1, 1, "empty tag");
	assert_compile_error("{{a b}}", 1, 1, "contains a space");
	assert_compile_error("{{a..b}}", 1, 1, "empty part between dots");
	assert_compile_error("{{<p}}\n{{$b}}\n{{/p}}", 3, 1, "does not match the block \"b\"");
	/* Errors after a delimiter change name the new delimiters. */
	assert_compile_error("{{=<% %>=}}\n\n<% x", 3, 1, "\"<%\" has no matching \"%>\"");
	/* A tag spanning lines reports the line where it starts, and counting
	 * goes on correctly after it. */
	assert_compile_error("{{! a\nb\nc }}\n{{#x}}", 4, 1, "unclosed section");
	struct strbuf deep = {0};
	for (int i = 0; i < MUSTACHE_MAX_NESTING + 1; i++)
		strbuf_puts(&deep, "{{#a}}");
	assert_compile_error(deep.data, 1, 1537, "nested more than 256 deep");
	strbuf_free(&deep);
	/* A NULL err is allowed. */
	assert_null(mustache_compile("{{", 2, NULL));
}

static void test_compile_once_render_many(void **state)
{
	(void)state;
	struct mustache_error err;
	const char *src = "{{#p}}{{name}}: {{ap}} AP\n{{/p}}";
	struct mustache_template *t = mustache_compile(src, strlen(src), &err);
	assert_non_null(t);
	json_t *a = json_loads("{\"p\": [{\"name\": \"Anjou\", \"ap\": 480}]}", 0, NULL);
	json_t *b = json_loads("{\"p\": {\"name\": \"Milan\", \"ap\": 3.5}}", 0, NULL);
	struct strbuf out = {0};
	strbuf_puts(&out, "> ");
	assert_int_equal(mustache_render(t, a, NULL, NULL, &out, &err), 0);
	assert_int_equal(mustache_render(t, b, NULL, NULL, &out, &err), 0);
	assert_string_equal(out.data, "> Anjou: 480 AP\nMilan: 3.5 AP\n");
	strbuf_free(&out);
	json_decref(a);
	json_decref(b);
	mustache_free(t);
	mustache_free(NULL);
	/* NUL bytes in the template are literal text. */
	char *s = mustache_render_string("a\0b", 3, NULL, NULL, NULL, &err);
	assert_memory_equal(s, "a\0b", 4);
	free(s);
}

static void test_runaway_renders_stop(void **state)
{
	(void)state;
	/* 3^30 iterations of nested sections: stopped by the step limit. */
	struct strbuf tmpl = {0};
	for (int i = 0; i < 30; i++)
		strbuf_puts(&tmpl, "{{#a}}");
	strbuf_puts(&tmpl, "\n");
	for (int i = 0; i < 30; i++)
		strbuf_puts(&tmpl, "{{/a}}");
	struct mustache_error err;
	char *out = render_with(tmpl.data, "{\"a\": [1, 2, 3]}", NULL, &err);
	assert_null(out);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.message, "more than 16777216 steps"));
	strbuf_free(&tmpl);
	/* 66 copies of a 1 MiB string: the 66th is refused, 65 MiB being written. */
	json_t *data = json_object();
	char *big = xmalloc((1 << 20) + 1);
	memset(big, 'x', 1 << 20);
	big[1 << 20] = '\0';
	json_object_set_new(data, "big", json_string(big));
	free(big);
	for (int i = 0; i < 66; i++)
		strbuf_puts(&tmpl, "{{big}}");
	out = mustache_render_string(tmpl.data, tmpl.len, data, NULL, NULL, &err);
	assert_null(out);
	assert_int_equal(err.column, 65 * 7 + 1);
	assert_non_null(strstr(err.message, "output larger than 64 MiB"));
	strbuf_free(&tmpl);
	/* Sections nested across partials stop at MUSTACHE_MAX_RENDER_DEPTH,
	 * before the partial limit: 48 partials of 21 levels make 1008. */
	for (int i = 0; i < 20; i++)
		strbuf_puts(&tmpl, "{{#big}}");
	strbuf_puts(&tmpl, "{{>deep}}");
	for (int i = 0; i < 20; i++)
		strbuf_puts(&tmpl, "{{/big}}");
	const char *const deep[] = {"deep", tmpl.data, NULL};
	struct partial_table pt = {.pairs = deep};
	out = mustache_render_string("{{>deep}}", 9, data, table_partial, &pt, &err);
	assert_null(out);
	assert_string_equal(err.partial, "deep");
	assert_non_null(strstr(err.message, "sections and partials nested more than 1024 deep"));
	strbuf_free(&tmpl);
	json_decref(data);
}

/* A fixed-seed generator: the garbage is the same on every run. */
static uint32_t next_random(uint32_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

static char *garbage_partial(void *ctx, const char *name)
{
	(void)name;
	return xstrdup(ctx);
}

/* Compiles and renders any bytes: must either work or fail with a line.
 * Returns 1 if the text compiled, else 0. */
static int survive(const char *text, size_t len, const json_t *data)
{
	struct mustache_error err = {0};
	struct mustache_template *t = mustache_compile(text, len, &err);
	if (!t) {
		assert_true(err.line >= 1);
		assert_true(err.message[0] != '\0');
		return 0;
	}
	/* Every partial and parent is the template itself: recursion must stop. */
	char *copy = xstrndup(text, len);
	struct strbuf out = {0};
	int rc = mustache_render(t, data, garbage_partial, copy, &out, &err);
	if (rc < 0)
		assert_true(err.message[0] != '\0');
	strbuf_free(&out);
	free(copy);
	mustache_free(t);
	return 1;
}

static void test_garbage_never_crashes(void **state)
{
	(void)state;
	static const char alphabet[] = "{{}}{}#^/!<>$=&*. \n\r\tab|%";
	json_t *data = json_loads("{\"a\": [1, {\"b\": true}], \"b\": \"a\", \"ab\": {\"a\": \"b\"}}", 0, NULL);
	uint32_t seed = 20240611;
	char buf[160];
	int compiled = 0;
	for (int i = 0; i < 400; i++) {
		size_t len = next_random(&seed) % sizeof(buf);
		for (size_t k = 0; k < len; k++) {
			uint32_t r = next_random(&seed);
			buf[k] = (r & 0x100) ? alphabet[r % (sizeof(alphabet) - 1)] : (char)(r & 0xff);
		}
		compiled += survive(buf, len, data);
	}
	/* Some garbage must get past the compiler, or rendering goes untested. */
	assert_true(compiled >= 20);
	printf("# %d of 400 random templates compiled\n", compiled);
	/* Every truncation of a template that uses every feature. */
	const char *full = "{{! c }}\n{{#a}}\n  {{>b}}\n{{/a}}{{^b}}{{{a}}}{{&b}}{{/b}}\n"
			   "{{=| |=}}|#ab||a||/ab||={{ }}=|\n{{<ab}}{{$a}}\n x\n{{/a}}{{/ab}}"
			   "{{$b}}y{{/b}}{{>*b}}{{<*b}}{{/*b}}";
	compiled = 0;
	for (size_t len = 0; len <= strlen(full); len++)
		compiled += survive(full, len, data);
	assert_int_equal(survive(full, strlen(full), data), 1);
	printf("# %d of %zu truncations compiled\n", compiled, strlen(full) + 1);
	json_decref(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interpolation_and_escaping),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_partials),
		cmocka_unit_test(test_inheritance),
		cmocka_unit_test(test_compile_errors),
		cmocka_unit_test(test_compile_once_render_many),
		cmocka_unit_test(test_runaway_renders_stop),
		cmocka_unit_test(test_garbage_never_crashes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
