/* What a PREVIEW says (campaignctl preview, the organiser's PREVIEW): the
 * step processed on a copy with throwaway dice, told in the words of the
 * turn reports, every nation it leaves out with why, and the mails as
 * they would leave (one a person, joined as yctx_mail_out joins them). */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "text/templates.h"
#include "dbm/year.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Before a preview processes the step: for each active nation, what it
 * has in for the step, as the sentence the preview says when none of the
 * step's events names it: [{"player", "nation", "text"}]. The
 * recruitment says why each nation recruits nothing; a step one nation
 * plays says whose it is. NULL when the step is none of these (the start,
 * the end). */
json_t *engine_preview_before(struct yctx *y)
{
	const struct campaign *c = y->c;
	const struct year_state *st = &y->st;
	if (st->step == YEAR_IDLE || st->step == YEAR_ENDED)
		return NULL;
	const char *mover = st->step == YEAR_TURN && st->turn < st->sequence_len
				    ? c->players[st->sequence[st->turn]].nation
				    : NULL;
	json_t *out = json_array();
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (pl->status != PLAYER_ACTIVE)
			continue;
		const char *nation = pl->nation ? pl->nation : pl->key;
		char *text = NULL;
		if (st->step == YEAR_RECRUITMENT) {
			char *orders = y->io.orders_load(y, (int)p, c->year, c->phase);
			struct order_set set;
			orders_parse(orders ? orders : "", c, (int)p, &set);
			free(orders);
			bool recruits = false, no_move = false;
			for (size_t i = 0; i < set.count; i++) {
				const struct order *o = &set.orders[i];
				recruits |= o->status == ORDER_OK && (o->kind == ORDER_RECRUIT ||
					    o->kind == ORDER_DISMISS || o->kind == ORDER_EXCHANGE ||
					    o->kind == ORDER_RETRIEVE_GENERAL);
				no_move |= o->status == ORDER_OK && o->kind == ORDER_NO_MOVE;
			}
			orders_set_free(&set);
			bool empty = player_reserve_half_ap(pl) == 0;
			text = recruits ? xasprintf("%s: none of its recruitment orders can be "
						    "carried out.", nation)
			       : empty && no_move
				       ? xasprintf("%s recruits nothing: its reserve is empty, and "
						   "it sent NO MOVE.", nation)
			       : empty ? xasprintf("%s recruits nothing: its reserve is empty.",
						   nation)
			       : no_move ? xasprintf("%s recruits nothing: it sent NO MOVE.", nation)
					 : xasprintf("%s recruits nothing: it has sent no recruitment "
						     "orders yet (if none come by the deadline, the "
						     "same).", nation);
		} else if (mover) {
			text = xasprintf("%s: nothing at this step (it is %s's turn).", nation, mover);
		} else {
			text = xasprintf("%s: nothing at this step.", nation);
		}
		json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "player", pl->key, "nation",
						     nation, "text", text));
		free(text);
	}
	return out;
}

/* The nations of `before` no event of the step names (the step's events
 * end where the next turn begins or the year's end roll): their
 * sentences. */
static json_t *preview_quiet(const json_t *before, const json_t *events)
{
	json_t *quiet = json_array();
	size_t i;
	json_t *n;
	json_array_foreach(before, i, n) {
		const char *nation = json_string_value(json_object_get(n, "nation"));
		bool named = false;
		size_t k;
		json_t *ev;
		json_array_foreach(events, k, ev) {
			const char *kind = json_string_value(json_object_get(ev, "kind"));
			if (kind && (strcmp(kind, "end_roll") == 0 || strcmp(kind, "turn") == 0))
				break;
			const char *f;
			json_t *v;
			json_object_foreach(ev, f, v) {
				size_t fl = strlen(f);
				named |= fl > 7 && strcmp(f + fl - 7, "_nation") == 0 &&
					 json_is_string(v) && nation &&
					 strcmp(json_string_value(v), nation) == 0;
			}
			if (named)
				break;
		}
		if (!named)
			json_array_append(quiet, n);
	}
	return quiet;
}

/* Who gets a mail sent to `addr`: the keys of the active players there
 * (into `keys`), whether it is the organiser's, and in words ("France
 * (the organiser)", "Burgundy", "the organiser"). */
static char *addressee(const struct campaign *c, const char *addr, json_t *keys, bool *org)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t n = 0;
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (!pl->email || strcasecmp(pl->email, addr) != 0)
			continue;
		json_array_append_new(keys, json_string(pl->key));
		strbuf_printf(&sb, "%s%s", n++ ? " and " : "", pl->nation ? pl->nation : pl->key);
	}
	*org = c->organiser_email && strcasecmp(c->organiser_email, addr) == 0;
	if (*org)
		strbuf_puts(&sb, n ? " (the organiser)" : "the organiser");
	return strbuf_take(&sb);
}

/* "A, B and C" */
static char *names_text(const json_t *names)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t n = json_array_size(names);
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			      json_string_value(json_array_get(names, i)));
	return strbuf_take(&sb);
}

/* The mails as they would leave: one a person, each with its recipient
 * (json, from yctx_mails_held_json), and for the prose the same mails
 * said once for everyone who gets the same ones (`lines`). */
static json_t *preview_mails(struct yctx *y, int year, json_t *lines)
{
	json_t *mails = yctx_mails_held_json(y, year);
	size_t i;
	json_t *m;
	json_array_foreach(mails, i, m) {
		json_t *keys = json_array();
		bool org = false;
		char *to = addressee(y->c, json_string_value(json_object_get(m, "address")), keys,
				     &org);
		json_object_del(m, "address");
		json_object_set_new(m, "to", keys);
		json_object_set_new(m, "organiser", json_boolean(org));
		json_object_set_new(m, "to_text", json_string(to));
		/* "with "A" and "B"": the parts under the lead */
		json_t *parts = json_object_get(m, "parts"), *quoted = json_array();
		size_t k;
		json_t *part;
		json_array_foreach(parts, k, part) {
			char *q = xasprintf("\"%s\"",
					    json_string_value(json_object_get(part, "subject")));
			json_array_append_new(quoted, json_string(q));
			free(q);
		}
		char *with = names_text(quoted);
		json_decref(quoted);
		/* one line for everyone who gets the same mail */
		json_t *same = NULL;
		size_t l;
		json_t *line;
		json_array_foreach(lines, l, line)
			if (json_equal(json_object_get(line, "subject"), json_object_get(m, "subject")) &&
			    strcmp(json_string_value(json_object_get(line, "with")), with) == 0)
				same = line;
		if (!same) {
			same = json_pack("{s:O, s:s, s:b, s:[]}", "subject", json_object_get(m, "subject"),
					 "with", with, "has_with", *with != '\0', "names");
			json_array_append_new(lines, same);
		}
		json_array_append_new(json_object_get(same, "names"), json_string(to));
		free(with);
		free(to);
	}
	json_array_foreach(lines, i, m) {
		char *to = names_text(json_object_get(m, "names"));
		json_object_set_new(m, "to_text", json_string(to));
		json_object_del(m, "names");
		free(to);
	}
	return mails;
}

void engine_preview_report(struct yctx *y, const char *step, int year, bool as_json,
			   const json_t *before, struct strbuf *out)
{
	yctx_flush(y);
	json_t *events = json_array();
	for (size_t i = 0; i < y->log.count; i++)
		json_array_append(events, y->log.events[i]);
	json_t *decorated = year_events_for_mail(y->c, events);
	json_t *quiet = preview_quiet(before, decorated);
	json_t *lines = json_array();
	json_t *mails = preview_mails(y, year, lines);
	if (as_json) {
		json_t *doc = json_pack("{s:s, s:b, s:O, s:O, s:O}", "step", step, "changed", 0,
					"events", events, "mails", mails, "nothing", quiet);
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
		strbuf_printf(out, "%s\n", text ? text : "{}");
		free(text);
		json_decref(doc);
	} else {
		json_t *d = yctx_base_data(y, NO_INDEX);
		json_object_set_new(d, "step", json_string(step));
		char words[256];
		year_step_words(y->c, step, words, sizeof words);
		json_object_set_new(d, "step_text", json_string(words));
		json_object_set(d, "events", decorated);
		json_object_set(d, "nothing", quiet);
		json_object_set(d, "mails", lines);
		if (!json_array_size(lines))
			json_object_set_new(d, "no_mails", json_true());
		char *err = NULL;
		char *text = templates_render(y->e->templates, "preview", d, &err);
		strbuf_puts(out, text ? text : "");
		if (!text)
			strbuf_printf(out, "(the preview could not be written: %s)\n",
				      err ? err : "no template");
		free(text);
		free(err);
		json_decref(d);
	}
	json_decref(events);
	json_decref(decorated);
	json_decref(quiet);
	json_decref(mails);
	json_decref(lines);
}
