/* campaignctl status: where the campaign stands, for the organiser. */
#include "config.h"

#include "model/campaign_json.h"
#include "cli/campaignctl.h"
#include "engine/engine.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/timefmt.h"
#include "base/util.h"

#include <getopt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#define WRAP_COLUMN 78

/* Appends items separated by ", " to lines indented by `indent`, breaking
 * before WRAP_COLUMN. */
struct wrapper {
	struct strbuf *out;
	size_t indent;
	size_t column;
	bool first;
};

static void wrap_start(struct wrapper *w, struct strbuf *out, const char *head, size_t indent)
{
	w->out = out;
	w->indent = indent;
	w->first = true;
	strbuf_puts(out, head);
	w->column = utf8_columns(head);
}

static void wrap_item(struct wrapper *w, const char *item)
{
	size_t len = utf8_columns(item);
	if (!w->first) {
		strbuf_putc(w->out, ',');
		w->column++;
		if (w->column + 1 + len > WRAP_COLUMN) {
			strbuf_printf(w->out, "\n%*s", (int)w->indent, "");
			w->column = w->indent;
		} else {
			strbuf_putc(w->out, ' ');
			w->column++;
		}
	}
	strbuf_puts(w->out, item);
	w->column += len;
	w->first = false;
}

static void wrap_end(struct wrapper *w)
{
	if (w->first)
		strbuf_puts(w->out, "none");
	strbuf_putc(w->out, '\n');
}

static const char *nation_of(const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count)
		return "nobody";
	const struct player *p = &c->players[player];
	return p->nation ? p->nation : p->key;
}

static const char *status_text(enum player_status st)
{
	switch (st) {
	case PLAYER_ACTIVE: return "active";
	case PLAYER_OUT: return "out of the campaign (no province left)";
	case PLAYER_LEFT: return "left the campaign";
	case PLAYER_JOINING: return "joining: sets up by mail, plays from next year";
	}
	return "unknown";
}

static void troops_line(struct strbuf *out, const struct army_list *l, const struct troops *t,
			size_t indent)
{
	struct wrapper w;
	char *head = xasprintf("%*s", (int)indent, "");
	wrap_start(&w, out, head, indent);
	free(head);
	for (size_t i = 0; i < l->count; i++) {
		if (!t->count || !t->count[i])
			continue;
		char *item = xasprintf("%d %s", t->count[i], l->types[i].label);
		wrap_item(&w, item);
		free(item);
	}
	if (w.first)
		strbuf_puts(out, "no elements");
	strbuf_putc(out, '\n');
}

static void provinces_section(struct strbuf *out, const struct campaign *c)
{
	struct wrapper w;
	strbuf_printf(out, "Provinces (%zu; * home province)\n", c->province_count);
	for (int owner = 0; owner < (int)c->player_count; owner++) {
		char *head = xasprintf("  %s (%s, %d): ", nation_of(c, owner),
				       c->players[owner].key, player_province_count(c, owner));
		wrap_start(&w, out, head, 4);
		free(head);
		for (size_t i = 0; i < c->province_count; i++) {
			const struct province *p = &c->provinces[i];
			if (p->owner != owner)
				continue;
			char *item = xasprintf("%s%s", p->name, p->home_of == owner ? "*" : "");
			wrap_item(&w, item);
			free(item);
		}
		wrap_end(&w);
	}
	for (int inviolate = 0; inviolate <= 1; inviolate++) {
		wrap_start(&w, out, inviolate ? "  Inviolate: " : "  Neutral: ", 4);
		for (size_t i = 0; i < c->province_count; i++) {
			const struct province *p = &c->provinces[i];
			if (p->owner == NO_INDEX && p->inviolate == (bool)inviolate)
				wrap_item(&w, p->name);
		}
		wrap_end(&w);
	}
}

static void armies_section(struct strbuf *out, const struct campaign *c)
{
	char ap[16], ap2[16];
	strbuf_puts(out, "\nArmies\n");
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		strbuf_printf(out, "  %s (%s), %s: %s\n", nation_of(c, (int)i), p->key,
			      p->name ? p->name : "", status_text(p->status));
		const char *where = p->location >= 0 ? c->provinces[p->location].name : "nowhere";
		int generals = troops_generals(&p->list, &p->field);
		strbuf_printf(out, "    field army at %s: %s AP, %d general%s, %d elements\n", where,
			      half_ap_format(player_field_half_ap(p), ap), generals,
			      generals == 1 ? "" : "s", troops_elements(&p->list, &p->field));
		troops_line(out, &p->list, &p->field, 6);
		strbuf_printf(out, "    reserve: %s AP\n",
			      half_ap_format(player_reserve_half_ap(p), ap));
		if (troops_elements(&p->list, &p->reserve))
			troops_line(out, &p->list, &p->reserve, 6);
		strbuf_printf(out, "    ceiling: %s AP", half_ap_format(p->cap_half_ap, ap));
		if (p->cap_half_ap != p->original_half_ap)
			strbuf_printf(out, " (originally %s AP)",
				      half_ap_format(p->original_half_ap, ap2));
		strbuf_printf(out, "\n    prestige: %d (%d battle + %d provinces)\n",
			      p->battle_prestige + p->province_prestige, p->battle_prestige,
			      p->province_prestige);
		if (p->overlord != NO_INDEX)
			strbuf_printf(out, "    tributary of %s\n", nation_of(c, p->overlord));
	}
}

static void contingents_and_sieges(struct strbuf *out, const struct campaign *c)
{
	char ap[16];
	strbuf_puts(out, "\nContingents\n");
	if (!c->contingent_count)
		strbuf_puts(out, "  none\n");
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *k = &c->contingents[i];
		const struct army_list *l = &c->players[k->owner].list;
		strbuf_printf(out, "  %s's contingent with %s's army: %s AP, sent in %d%s\n",
			      nation_of(c, k->owner), nation_of(c, k->with_player),
			      half_ap_format(troops_half_ap(l, &k->troops), ap), k->sent_year,
			      k->returning ? ", returning home" : "");
		troops_line(out, l, &k->troops, 4);
	}
	strbuf_puts(out, "\nSieges\n");
	if (!c->siege_count)
		strbuf_puts(out, "  none\n");
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *g = &c->sieges[i];
		strbuf_printf(out, "  %s besieged by %s, %d failed round%s so far\n",
			      c->provinces[g->province].name, nation_of(c, g->besieger),
			      g->rounds_failed, g->rounds_failed == 1 ? "" : "s");
	}
}

static char *status_text_report(const struct campaign *c)
{
	struct strbuf out = {0};
	strbuf_printf(&out, "%s\nYear %d, %s phase.\n", c->name ? c->name : "(unnamed campaign)",
		      c->year, campaign_phase_name(c->phase));
	if (c->organiser_name || c->organiser_email) {
		strbuf_printf(&out, "Organiser: %s <%s>", c->organiser_name ? c->organiser_name : "",
			      c->organiser_email ? c->organiser_email : "");
		if (c->organiser_player != NO_INDEX)
			strbuf_printf(&out, ", plays %s", nation_of(c, c->organiser_player));
		strbuf_putc(&out, '\n');
	}
	strbuf_putc(&out, '\n');
	provinces_section(&out, c);
	armies_section(&out, c);
	contingents_and_sieges(&out, c);
	return strbuf_take(&out);
}

/* The same summary as JSON: pieces of the export document, grouped as the
 * text shows them. */
static json_t *status_json(const struct campaign *c)
{
	json_t *doc = campaign_to_json(c);
	json_t *by_owner = json_object();
	for (size_t i = 0; i < c->player_count; i++)
		json_object_set_new(by_owner, c->players[i].key, json_array());
	json_t *neutral = json_array(), *inviolate = json_array();
	for (size_t i = 0; i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		json_t *name = json_object_get(json_array_get(json_object_get(doc, "provinces"), i),
					       "name");
		json_t *list = p->owner != NO_INDEX
				       ? json_object_get(by_owner, c->players[p->owner].key)
				       : p->inviolate ? inviolate : neutral;
		json_array_append(list, name);
	}
	json_t *players = json_array();
	json_t *all = json_object_get(doc, "players");
	static const char *const keep[] = {"key", "nation", "name", "status", "overlord",
					   "provinces_held", "prestige", "cap_ap", "field_army",
					   "reserve", NULL};
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *p = json_object();
		for (size_t k = 0; keep[k]; k++)
			json_object_set(p, keep[k], json_object_get(json_array_get(all, i), keep[k]));
		json_array_append_new(players, p);
	}
	json_t *out = json_pack("{s:O, s:O, s:O, s:O, s:{s:o, s:o, s:o}, s:o, s:O, s:O}",
				"campaign", json_object_get(json_object_get(doc, "campaign"), "name"),
				"organiser", json_object_get(json_object_get(doc, "campaign"),
							     "organiser"),
				"year", json_object_get(doc, "year"),
				"phase", json_object_get(doc, "phase"),
				"provinces",
				"by_owner", by_owner, "neutral", neutral, "inviolate", inviolate,
				"players", players,
				"contingents", json_object_get(doc, "contingents"),
				"sieges", json_object_get(doc, "sieges"));
	json_decref(doc);
	return out;
}

/* The year's step: who is to move, what is awaited, the deadline (in the
 * campaign's time zone), as engine_year_status says it, and whether the
 * outgoing mail is blocked (*sink). NULL on a database error (*err set). */
static char *year_step_text(struct store *s, int64_t now, struct engine_sink_state *sink,
			    json_t **waiting, char **err)
{
	char *address = NULL;
	if (store_kv_get(s, "campaign-address", &address, NULL) != STORE_OK)
		address = NULL;
	struct templates *t = templates_new(NULL);
	struct engine_config ec = {.campaign_address = address ? address : "campaign@invalid",
				   .mailbox = "campaignctl"};
	struct engine *e = engine_new(s, t, &ec);
	char *text = NULL;
	if (engine_year_status(e, now, &text, err) != 0)
		text = NULL;
	if (text && waiting && engine_year_status_json(e, now, waiting, err) != 0) {
		free(text);
		text = NULL;
	}
	if (text && engine_sink_state(e, sink, err) != 0) {
		free(text);
		text = NULL;
	}
	engine_free(e);
	templates_free(t);
	free(address);
	return text;
}

static int run_status(int argc, char **argv);

const struct ctl_command ctl_cmd_status = {
	.name = "status",
	.usage = "status -d DB [--json] [--now EPOCH]",
	.summary = "show the campaign: provinces, armies, prestige, sieges",
	.options = "  -d, --database DB     the campaign database\n"
		    "  -j, --json            the state as JSON\n"
		    "  -n, --now EPOCH       the time to report for (seconds since the epoch)\n",
	.run = run_status,
};

static int run_status(int argc, char **argv)
{
	static const struct option options[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		{"now", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	const char *db = NULL;
	bool as_json = false;
	int64_t now = (int64_t)time(NULL);
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:d:jn:h", options, NULL)) != -1) {
		switch (opt) {
		case 'n': {
			char *end = NULL;
			now = strtoll(optarg, &end, 10);
			if (!*optarg || *end || now < 0) {
				fprintf(stderr, "%s: --now wants seconds since the epoch, "
						"not \"%s\"\n", ctl_prog, optarg);
				return EX_USAGE;
			}
			break;
		}
		case 'd':
			db = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			printf("usage: campaignctl %s\n\n"
			       "Shows the year and phase, who holds which province, each army\n"
			       "with its place, army points, generals and elements, the reserves,\n"
			       "prestige, contingents and sieges, and the year's current step:\n"
			       "who is to move, who is awaited and for what, the deadline (in the\n"
			       "campaign's time zone) and the requests that wait without one.\n"
			       "--json prints the same as JSON (the step as \"year_step\" text\n"
			       "and as \"waiting\", its parts). --now gives\n"
			       "the time (seconds since the epoch) for tests.\n",
			       ctl_cmd_status.usage);
			return EX_OK;
		default:
			return ctl_usage(&ctl_cmd_status);
		}
	}
	int crc = ctl_config_database(config, &db);
	if (crc != EX_OK)
		return crc;
	if (!db || optind != argc)
		return ctl_usage(&ctl_cmd_status);

	struct store *s = NULL;
	struct campaign *c = NULL;
	char *err = NULL;
	char *step = NULL;
	struct engine_sink_state sink = {0};
	int status = store_open(db, 0, &s, &err);
	if (status == STORE_OK)
		status = store_load_campaign(s, &c, &err);
	json_t *waiting = NULL;
	if (status == STORE_OK &&
	    !(step = year_step_text(s, now, &sink, as_json ? &waiting : NULL, &err)))
		status = STORE_ERROR;
	store_close(s);
	if (status != STORE_OK) {
		json_decref(waiting);
		campaign_free(c);
		fprintf(stderr, "%s: %s\n", ctl_prog, err ? err : db);
		free(err);
		return store_status_exit_code(status);
	}

	char since[64] = "", next[64] = "";
	if (sink.blocked) {
		timefmt_local(sink.since, c->timezone, since, sizeof since);
		timefmt_local(sink.retry_at, c->timezone, next, sizeof next);
	}
	if (as_json) {
		json_t *doc = status_json(c);
		json_object_set_new(doc, "year_step", json_string(step));
		json_object_set_new(doc, "waiting", waiting);
		json_object_set_new(doc, "outgoing_mail",
				    sink.blocked ? json_pack("{ss sI sI si ss}", "state", "blocked",
							     "since", (json_int_t)sink.since,
							     "next_try", (json_int_t)sink.retry_at,
							     "tries", sink.tries, "error", sink.error)
						 : json_pack("{ss}", "state", "ok"));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	} else {
		char *text = status_text_report(c);
		fputs(text, stdout);
		printf("\nThe year\n%s", step);
		if (sink.blocked)
			printf("\nOutgoing mail\n  BLOCKED since %s (%d tr%s): %s\n"
			       "  Nothing is sent in clear; the mail stays queued. Next try: %s.\n",
			       since, sink.tries, sink.tries == 1 ? "y" : "ies", sink.error, next);
		free(text);
	}
	engine_sink_state_free(&sink);
	free(step);
	campaign_free(c);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", ctl_prog, strerror(errno));
		return EX_IOERR;
	}
	return EX_OK;
}
