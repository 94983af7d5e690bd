/* Benchmark: renders a diary-like template (sections, inverted sections, a
 * partial per event, a parent with overridden blocks, escaping) with 10,000
 * events and prints the time per render and the throughput. Figures only. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "text/mustache.h"
#include "base/util.h"

#define EVENTS 10000
#define RENDERS 20

static const char diary_template[] =
	"{{<page}}\n"
	"{{$title}}{{campaign}}, year {{year}}{{/title}}\n"
	"{{$body}}\n"
	"{{#turns}}\n"
	"<h2>Turn {{number}} ({{season}})</h2>\n"
	"<ul>\n"
	"  {{#events}}\n"
	"  {{>event}}\n"
	"  {{/events}}\n"
	"  {{^events}}\n"
	"  <li>Nothing happened.</li>\n"
	"  {{/events}}\n"
	"</ul>\n"
	"{{/turns}}\n"
	"{{/body}}\n"
	"{{/page}}\n";

static const char page_partial[] =
	"<html><head><title>{{$title}}Diary{{/title}}</title></head>\n"
	"<body>\n"
	"  {{$body}}\n"
	"  {{/body}}\n"
	"<p>Published by {{organiser}}</p>\n"
	"</body></html>\n";

static const char event_partial[] =
	"<li class=\"{{kind}}\">{{player}} in {{province}}: {{text}}"
	"{{#rolls.0}} (rolled {{#rolls}}{{.}} {{/rolls}}){{/rolls.0}}"
	"{{#loss}}, lost {{loss}} AP{{/loss}}</li>\n";

static char *bench_partial(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "page") == 0)
		return xstrdup(page_partial);
	if (strcmp(name, "event") == 0)
		return xstrdup(event_partial);
	return NULL;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 10,000 events in turns of 50, with a fixed pattern (no randomness). */
static json_t *diary_data(void)
{
	static const char *const kinds[] = {"move", "siege", "storm", "battle", "recruit"};
	static const char *const players[] = {"Burgundy", "France", "Milan", "Venice", "Aragon"};
	static const char *const provinces[] = {"Flanders", "Île-de-France", "Lombardy", "Dalmatia",
						"Catalonia", "Savoy", "Genoa"};
	json_t *turns = json_array();
	json_t *events = NULL;
	for (int i = 0; i < EVENTS; i++) {
		if (i % 50 == 0) {
			json_t *turn = json_object();
			events = json_array();
			json_object_set_new(turn, "number", json_integer(i / 50 + 1));
			json_object_set_new(turn, "season", json_string(i % 100 ? "autumn" : "spring"));
			json_object_set_new(turn, "events", events);
			json_array_append_new(turns, turn);
		}
		json_t *e = json_object();
		json_object_set_new(e, "kind", json_string(kinds[i % 5]));
		json_object_set_new(e, "player", json_string(players[i % 5]));
		json_object_set_new(e, "province", json_string(provinces[i % 7]));
		json_object_set_new(e, "text", json_string("the army <marched> & \"suffered\""));
		json_t *rolls = json_array();
		for (int k = 0; k < i % 3; k++)
			json_array_append_new(rolls, json_integer((i * 7 + k) % 6 + 1));
		json_object_set_new(e, "rolls", rolls);
		json_object_set_new(e, "loss", json_real((i % 4) * 1.5));
		json_array_append_new(events, e);
	}
	json_t *root = json_object();
	json_object_set_new(root, "campaign", json_string("Europe 1450"));
	json_object_set_new(root, "year", json_integer(1453));
	json_object_set_new(root, "organiser", json_string("Jean <jean@example.org>"));
	json_object_set_new(root, "turns", turns);
	return root;
}

int main(void)
{
	struct mustache_error err;
	json_t *data = diary_data();

	double t0 = now_seconds();
	struct mustache_template *t = mustache_compile(diary_template, strlen(diary_template), &err);
	double compile_s = now_seconds() - t0;
	if (!t) {
		fprintf(stderr, "bench_mustache: template:%d: %s\n", err.line, err.message);
		return 1;
	}

	size_t bytes = 0;
	double best = 1e9, total = 0;
	for (int r = 0; r < RENDERS; r++) {
		struct strbuf out = {0};
		double start = now_seconds();
		if (mustache_render(t, data, bench_partial, NULL, &out, &err) < 0) {
			fprintf(stderr, "bench_mustache: %s:%d: %s\n", err.partial, err.line, err.message);
			return 1;
		}
		double s = now_seconds() - start;
		total += s;
		if (s < best)
			best = s;
		bytes = out.len;
		strbuf_free(&out);
	}
	double mean = total / RENDERS;
	printf("mustache: compile %.1f us; %d events, %zu bytes out\n", compile_s * 1e6, EVENTS, bytes);
	printf("mustache: render mean %.2f ms, best %.2f ms over %d renders\n", mean * 1e3, best * 1e3,
	       RENDERS);
	printf("mustache: %.1f MB/s, %.0f events/s\n", (double)bytes / mean / 1e6, EVENTS / mean);
	mustache_free(t);
	json_decref(data);
	return 0;
}
