/* The year's mail out: each request of the state machine rendered for each
 * recipient (with the map, the diary) and queued in the outbox. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "dbm/diary.h"
#include "text/map_svg.h"
#include "dbm/year.h"
#include "base/timefmt.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- mail */

json_t *yctx_base_data(struct yctx *y, int player)
{
	const struct campaign *c = y->c;
	json_t *d = json_pack("{s:s, s:s, s:i, s:s, s:s}", "campaign", c->name ? c->name : "",
			      "campaign_address", y->e->campaign_address, "year", c->year, "phase",
			      campaign_phase_name(c->phase), "organiser_name",
			      c->organiser_name ? c->organiser_name : "");
	if (player >= 0) {
		const struct player *p = &c->players[player];
		json_object_set_new(d, "player", json_string(p->key));
		json_object_set_new(d, "nation", json_string(p->nation ? p->nation : p->key));
		json_object_set_new(d, "player_name", json_string(p->name ? p->name : ""));
	} else {
		json_object_set_new(d, "to_organiser", json_true());
		json_object_set_new(d, "nation", json_string("the organiser"));
		json_object_set_new(d, "player_name",
				    json_string(c->organiser_name ? c->organiser_name : ""));
	}
	return d;
}

static json_t *diary_data(struct yctx *y, int year)
{
	json_t *events = NULL, *comments = NULL;
	char *err = NULL;
	if (store_events(y->e->store, year, &events, &err) != STORE_OK) {
		set_err(y, err);
		return json_object();
	}
	if (store_comments(y->e->store, year, &comments, &err) != STORE_OK) {
		set_err(y, err);
		json_decref(events);
		return json_object();
	}
	struct store_dice_year row;
	json_t *dice = NULL;
	if (store_dice_year_get(y->e->store, year, &row, NULL) == STORE_OK)
		dice = json_pack("{s:s, s:s?}", "commitment", row.commitment, "seed",
				 row.revealed ? row.seed_hex : NULL);
	json_t *d = diary_year_json(y->c, events, year, comments, dice);
	json_decref(events);
	json_decref(comments);
	json_decref(dice);
	return d;
}

/* The mail's extras: the current map, and the diary's HTML part. */
struct mail_extras {
	const struct mail_attachment *attachments;
	size_t n_attachments;
	const char *html_template;
};

static int queue_one(struct yctx *y, const char *tpl, const char *subject, json_t *data,
		     int player, const char *addr, const char *name, const struct mail_extras *x)
{
	json_t *d = json_deep_copy(data);
	/* deadlines in the campaign's time zone (the pure core writes UTC) */
	json_t *epoch = json_object_get(d, "deadline_epoch");
	if (json_is_integer(epoch)) {
		char when[96];
		json_object_set_new(d, "deadline",
				    json_string(timefmt_local(json_integer_value(epoch),
							      y->c->timezone, when, sizeof when)));
	}
	json_t *base = yctx_base_data(y, player);
	json_object_update_missing(d, base);
	json_decref(base);
	char *token = xasprintf("year.%s.%lu.%d", y->tag, ++y->mail_seq, y->c->year);
	struct reply r = {addr, name, subject, tpl, d, NULL, token, MAIL_AUTO_GENERATED,
			  x ? x->attachments : NULL, x ? x->n_attachments : 0,
			  x ? x->html_template : NULL, false};
	char *err = NULL;
	int rc = engine_queue_mail(y->e, &r, y->c->name, y->now, NULL, &err);
	if (rc != 0)
		set_err(y, err);
	free(token);
	json_decref(d);
	return rc;
}

static void queue_request(struct yctx *y, const json_t *req)
{
	const struct campaign *c = y->c;
	const char *tpl = json_string_value(json_object_get(req, "template"));
	const char *subject = json_string_value(json_object_get(req, "subject"));
	const json_t *to = json_object_get(req, "to");
	bool org = json_is_true(json_object_get(req, "organiser"));
	bool *rcpt = xcalloc(c->player_count + 1, sizeof *rcpt);
	if (json_is_string(to)) {
		for (size_t p = 0; p < c->player_count; p++)
			rcpt[p] = c->players[p].status == PLAYER_ACTIVE;
	} else {
		size_t i;
		json_t *v;
		json_array_foreach(to, i, v) {
			int p = campaign_find_player(c, json_string_value(v));
			if (p >= 0)
				rcpt[p] = true;
		}
	}
	if (y->dry) {
		strbuf_printf(&y->preview, "mail \"%s\" (%s) to", subject ? subject : "", tpl);
		for (size_t p = 0; p < c->player_count; p++)
			if (rcpt[p])
				strbuf_printf(&y->preview, " %s", c->players[p].key);
		strbuf_printf(&y->preview, "%s\n", org ? " and the organiser" : "");
		free(rcpt);
		return;
	}
	json_t *data = json_object_get(req, "data");
	json_t *diary = NULL;
	if (tpl && strcmp(tpl, "diary") == 0) {
		diary = diary_data(y, (int)json_integer_value(json_object_get(req, "diary_year")));
		data = diary;
	}
	/* the map as it stands goes with the turn's mail and the diary */
	struct mail_extras x = {0};
	struct mail_attachment map_att;
	char *map = NULL;
	if (tpl && (strcmp(tpl, "your-turn") == 0 || strcmp(tpl, "turn-report") == 0 ||
		    strcmp(tpl, "diary") == 0)) {
		map = map_svg(c, NULL);
		map_att = (struct mail_attachment){"map.svg", "image/svg+xml",
						   (const unsigned char *)map, strlen(map)};
		x.attachments = &map_att;
		x.n_attachments = 1;
	}
	if (tpl && strcmp(tpl, "diary") == 0)
		x.html_template = "diary-html";
	bool organiser_reached = false;
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (!rcpt[p] || !pl->email || !*pl->email)
			continue;
		if (c->organiser_email && strcasecmp(c->organiser_email, pl->email) == 0)
			organiser_reached = true;
		if (queue_one(y, tpl, subject, data, (int)p, pl->email, pl->name, &x) != 0)
			break;
	}
	if (org && !organiser_reached && c->organiser_email && *c->organiser_email)
		queue_one(y, tpl, subject, data, NO_INDEX, c->organiser_email, c->organiser_name,
			  &x);
	free(map);
	json_decref(diary);
	free(rcpt);
}

/* Stores the new events and queues the new mail requests. */
int yctx_flush(struct yctx *y)
{
	if (y->dry) {
		for (; y->mails_done < json_array_size(y->run.mails); y->mails_done++)
			queue_request(y, json_array_get(y->run.mails, y->mails_done));
		return y->err ? -1 : 0;
	}
	for (; y->stored < y->log.count && !y->err; y->stored++) {
		char *err = NULL;
		if (store_append_event(y->e->store, y->log.events[y->stored], NULL, &err) != STORE_OK)
			set_err(y, err);
	}
	for (; y->mails_done < json_array_size(y->run.mails) && !y->err; y->mails_done++)
		queue_request(y, json_array_get(y->run.mails, y->mails_done));
	return y->err ? -1 : 0;
}
