/* The year's mail out: each request of the state machine rendered for each
 * recipient (with the map, the diary) and queued in the outbox. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "mail/mail_compose.h"
#include "mail/mail_text.h"
#include "dbm/diary.h"
#include "engine/maps_p.h"
#include "dbm/year.h"
#include "base/timefmt.h"

#include <sodium.h>
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

/* The mail's extras: the diary's HTML part, the year of the subject. */
struct mail_extras {
	const char *html_template;
	int year; /* the year the subject names; 0: the current one */
};

/* One mail of the year for one recipient, held until the end of the step
 * so that what one person is told at one moment leaves as one mail. */
struct held {
	char *addr, *name;
	char *tpl, *subject;
	json_t *data;                    /* the template's data, complete */
	const struct engine_maps *maps;  /* borrowed from y->maps; may be NULL */
	char *html_template;
	int year;                        /* the year the subject names; 0: current */
	char *slot_key;                  /* its place in the year; NULL: none */
	int rank;                        /* which one leads a merged mail */
	int player;                      /* whom it is for (NO_INDEX: the organiser) */
	bool over;                       /* it asked for a step resolved since */
};

/* Which mail leads when several go to one person at one moment: what he
 * must act on first, then what happened, then notices. */
static int template_rank(const char *tpl)
{
	static const char *const order[] = {
		"your-turn",   "decision",     "battle-disputed", "battle",
		"recruitment", "vote",         "order-refused",   "campaign-end",
		"diary",       "reminder",     "relations",       "turn-report",
		"announce-sequence", "organiser-action", "grace",
	};
	for (size_t i = 0; tpl && i < sizeof order / sizeof order[0]; i++)
		if (strcmp(tpl, order[i]) == 0)
			return (int)i;
	return (int)(sizeof order / sizeof order[0]);
}

static void held_free(struct held *h)
{
	free(h->addr);
	free(h->name);
	free(h->tpl);
	free(h->subject);
	json_decref(h->data);
	free(h->html_template);
	free(h->slot_key);
}

void yctx_held_free(struct yctx *y)
{
	for (size_t i = 0; i < y->n_held; i++)
		held_free(&y->held[i]);
	free(y->held);
	y->held = NULL;
	y->n_held = y->cap_held = 0;
	for (size_t i = 0; i < y->n_maps; i++) {
		engine_maps_free(y->maps[i]);
		free(y->maps[i]);
	}
	free(y->maps);
	y->maps = NULL;
	y->n_maps = 0;
}

static void hold_one(struct yctx *y, const char *tpl, const char *subject, json_t *data,
		     int player, const char *addr, const char *name,
		     const struct engine_maps *maps, const char *html_template, int year, int step,
		     int nth)
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
	/* places as the rest of the mail says them: "1st of 4" */
	json_t *place = json_object_get(d, "your_place");
	if (json_is_integer(place) && json_integer_value(place) > 0) {
		size_t k = (size_t)json_integer_value(place);
		json_object_set_new(d, "your_place_th", json_sprintf("%zu%s", k, ordinal_suffix(k)));
	}
	json_t *turn = json_object_get(d, "turn_number");
	if (tpl && strcmp(tpl, "your-turn") == 0 && json_is_integer(turn) &&
	    json_integer_value(turn) > 0) {
		size_t k = (size_t)json_integer_value(turn);
		json_object_set_new(d, "turn_th", json_sprintf("%zu%s", k, ordinal_suffix(k)));
		json_object_set_new(d, "places", json_integer((json_int_t)y->st.sequence_len));
	}
	if (tpl && strcmp(tpl, "organiser-action") == 0 && !json_object_get(d, "next"))
		json_object_set_new(d, "next", engine_awaiting_json(y->c, &y->st, &y->io, player));
	if (tpl && strcmp(tpl, "organiser-action") == 0)
		engine_void_note(y->e, y->c, d, addr);
	json_t *base = yctx_base_data(y, player);
	json_object_update_missing(d, base);
	json_decref(base);
	grow_array((void **)&y->held, &y->cap_held, y->n_held + 1, sizeof *y->held);
	struct held *h = &y->held[y->n_held++];
	*h = (struct held){
		.addr = xstrdup(addr),
		.name = name ? xstrdup(name) : NULL,
		.tpl = xstrdup(tpl ? tpl : ""),
		.subject = xstrdup(subject ? subject : ""),
		.data = d,
		.maps = maps,
		.html_template = html_template ? xstrdup(html_template) : NULL,
		.year = year ? year : y->c->year, /* the year may end before it leaves */
		/* the mail's place: recipient, template, subject and step of
		 * the year, written into its Message-ID so that a mail made
		 * again after an undo finds the one it replaces */
		.slot_key = step >= 0 ? xasprintf("%s|%s|%s|%d|%d|%d", addr, tpl ? tpl : "",
						  subject ? subject : "", step, nth, y->c->year)
				      : NULL,
		.rank = template_rank(tpl),
		.player = player,
	};
}

static bool tpl_is(const struct held *h, const char *tpl)
{
	return strcmp(h->tpl, tpl) == 0;
}

void yctx_asks_over(struct yctx *y, const char *step)
{
	char name[256];
	const struct year_state *st = &y->st;
	if (!step || strcmp(step, year_step_name(st, y->c, name, sizeof name)) != 0)
		return;
	int mover = st->step == YEAR_TURN && st->turn < st->sequence_len ? st->sequence[st->turn]
									  : NO_INDEX;
	for (size_t i = 0; i < y->n_held; i++) {
		struct held *h = &y->held[i];
		/* a reminder is for the step open when it was made */
		h->over |= tpl_is(h, "reminder");
		switch (st->step) {
		case YEAR_TURN:
			h->over |= tpl_is(h, "your-turn") && h->player == mover && mover != NO_INDEX;
			break;
		case YEAR_DECISION:
			h->over |= tpl_is(h, "decision");
			break;
		case YEAR_BATTLE:
			h->over |= tpl_is(h, "battle") || tpl_is(h, "battle-disputed");
			break;
		case YEAR_RECRUITMENT:
			h->over |= tpl_is(h, "recruitment");
			break;
		case YEAR_VOTE:
			h->over |= tpl_is(h, "vote");
			break;
		default:
			break;
		}
	}
}

/* Whether the part still asks for what is open as the run ends: not
 * marked over (yctx_asks_over), and its step is the one the year is in. */
static bool asks_still(const struct yctx *y, const struct held *h)
{
	const struct year_state *st = &y->st;
	if (h->over)
		return false;
	bool this_year = h->year == y->c->year;
	if (tpl_is(h, "your-turn"))
		return this_year && st->step == YEAR_TURN && st->turn < st->sequence_len &&
		       st->sequence[st->turn] == h->player;
	if (tpl_is(h, "recruitment"))
		return this_year && st->step == YEAR_RECRUITMENT;
	if (tpl_is(h, "vote"))
		return this_year && st->step == YEAR_VOTE;
	if (tpl_is(h, "decision"))
		return st->step == YEAR_DECISION;
	if (tpl_is(h, "battle") || tpl_is(h, "battle-disputed"))
		return st->step == YEAR_BATTLE;
	return true;
}

/* Whether the part asks for anything (what template_rank puts first). */
static bool asks(const struct held *h)
{
	static const char *const kinds[] = {"your-turn", "decision", "battle-disputed", "battle",
					    "recruitment", "vote", "reminder"};
	/* news of a decision (an attack called off, an ally's choice) asks
	 * nothing */
	if (json_is_true(json_object_get(h->data, "is_news")))
		return false;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (tpl_is(h, kinds[i]))
			return true;
	return false;
}

static char *slot_of(const char *key)
{
	unsigned char hash[8];
	char hex[17];
	crypto_generichash(hash, sizeof hash, (const unsigned char *)key, strlen(key), NULL, 0);
	sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
	return xasprintf(".s%s", hex);
}

#define RANK_OVER 1000 /* a part whose step is over: news, never the lead */

/* Which part leads (the lowest): what asks him, by template_rank; a "Your
 * turn" whose turn is still under way (a decision or battle it led to)
 * after those and before the news, so that a mail led by no question of
 * his is led by his turn; a part whose step is over is news, after every
 * other. Ranks of held mails in the fold too (engine_fold_hold). */
static int lead_rank(const struct held *h)
{
	/* news of a decision (what a permission caused, a way changed)
	 * asks nothing: never the lead */
	if (json_is_true(json_object_get(h->data, "is_news")))
		return RANK_OVER + h->rank;
	if (!json_is_true(json_object_get(h->data, "step_over")))
		return 2 * h->rank;
	if (json_is_true(json_object_get(h->data, "turn_under_way")))
		return 2 * template_rank("campaign-end") - 1;
	return RANK_OVER + h->rank;
}

/* What the kept parts of a merged mail tell that another mail joined with
 * it leaves out or points to (engine_told.c): a "Your turn" ("asks" or
 * "under_way"), the turns whose outcome a part tells (its heading); and
 * "one_part" when it is made of one (its text may be made again). */
static void note_told(json_t *d, struct held **parts, const bool *keep, size_t n, size_t kept)
{
	if (kept == 1)
		json_object_set_new(d, "one_part", json_true());
	json_t *turns = json_array();
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		const json_t *pd = parts[i]->data;
		json_t *told = json_object_get(pd, "your_turn_told");
		if (json_is_string(told))
			json_object_set(d, "your_turn_told", told);
		/* what came of a move: its turn's report, or the battle it led to */
		json_t *who = tpl_is(parts[i], "turn-report") ? json_object_get(pd, "mover")
			      : tpl_is(parts[i], "battle")      ? json_object_get(pd, "attacker")
								: NULL;
		if (json_is_string(who))
			json_array_append_new(turns, json_pack("{s:O, s:s}", "player", who,
							       "heading", parts[i]->subject));
	}
	if (json_array_size(turns))
		json_object_set_new(d, "turns_told", turns);
	else
		json_decref(turns);
}

/* The mails held for one person (in rank order), queued as one: the first
 * leads, each other one follows under its subject as a heading. After an
 * undo each part is compared with what was sent for it: a part sent
 * before with the same text is left out, a changed one is told (the mail
 * then says "Corrected:", with what changed). */
static int queue_merged(struct yctx *y, struct held **parts, size_t n)
{
	char **text = xcalloc(n, sizeof *text);
	char **slot = xcalloc(n, sizeof *slot);
	char **preface = xcalloc(n, sizeof *preface);
	bool *keep = xcalloc(n, sizeof *keep);
	/* each part after the first under its subject, with its year when
	 * that is not the first one's ("Recruitment (1450)") */
	char **heading = xcalloc(n, sizeof *heading);
	for (size_t i = 0; i < n; i++)
		heading[i] = engine_part_heading(parts[i]->subject, parts[i]->year,
						 parts[0]->year);
	int rc = 0;
	size_t kept = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *err = NULL;
		text[i] = templates_render(y->e->templates, parts[i]->tpl, parts[i]->data, &err);
		if (!text[i]) {
			set_err(y, err);
			rc = -1;
			break;
		}
		str_trim(text[i]);
		bool skip = false;
		if (parts[i]->slot_key) {
			slot[i] = slot_of(parts[i]->slot_key);
			if (yctx_correction_of(y, slot[i], parts[i]->addr, parts[i]->tpl, parts[i]->data,
					  n > 1 ? text[i] : NULL, heading[i],
					  &skip, &preface[i]) != 0)
				rc = -1;
		}
		keep[i] = !skip;
		kept += keep[i];
	}
	if (rc != 0 || kept == 0)
		goto done; /* every part was sent before with the same text */
	struct held *lead = NULL;
	struct strbuf body = {0}, token = {0}, pre = {0};
	const struct held *html_part = NULL, *maps_part = NULL;
	strbuf_printf(&token, "year.%s.%lu.%d", y->tag, ++y->mail_seq, y->c->year);
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		if (!lead)
			lead = parts[i];
		else
			strbuf_printf(&body, "\n\n%s\n%s\n\n", MERGED_RULE, heading[i]);
		strbuf_puts(&body, text[i]);
		if (slot[i])
			strbuf_puts(&token, slot[i]);
		if (preface[i]) {
			/* the first says what this mail replaces; each other
			 * one names its part */
			if (parts[i] != lead)
				engine_part_preface(&pre, preface[i], heading[i]);
			else
				strbuf_puts(&pre, preface[i]);
		}
		if (!html_part && parts[i]->html_template)
			html_part = parts[i];
		if (!maps_part && parts[i]->maps && parts[i]->maps->count)
			maps_part = parts[i];
	}
	strbuf_putc(&body, '\n');
	/* the data the mail is made of: the leading one's, or for its HTML
	 * alternative (the diary) that part's */
	json_t *d = json_deep_copy(html_part ? html_part->data : lead->data);
	if (kept > 1 || html_part != lead)
		json_object_set_new(d, "merged_text", json_string(body.data));
	note_told(d, parts, keep, n, kept);
	const char *subject = lead->subject;
	char *corrected = NULL;
	if (pre.len) {
		corrected = xasprintf("Corrected: %s", subject);
		json_object_set_new(d, "correction_preface", json_string(pre.data));
	}
	struct reply r = {lead->addr, lead->name, corrected ? corrected : subject, lead->tpl, d,
			  NULL, token.data, MAIL_AUTO_GENERATED,
			  maps_part ? maps_part->maps->att : NULL,
			  maps_part ? maps_part->maps->count : 0,
			  html_part ? html_part->html_template : NULL, false, lead->year};
	char *err = NULL;
	/* while a mail is processed, held to go with its reply (engine_fold.c) */
	rc = engine_fold_hold(y->e, &r, lead_rank(lead)) ? 0
						     : engine_queue_mail(y->e, &r, y->c, y->now,
									 NULL, &err);
	if (rc != 0)
		set_err(y, err);
	free(corrected);
	json_decref(d);
	strbuf_free(&body);
	strbuf_free(&token);
	strbuf_free(&pre);
done:
	for (size_t i = 0; i < n; i++) {
		free(text[i]);
		free(slot[i]);
		free(preface[i]);
		free(heading[i]);
	}
	free(heading);
	free(text);
	free(slot);
	free(preface);
	free(keep);
	return rc;
}

/* Whether the turn a "Your turn" part opened is still under way as the
 * run ends: it is still his, in its step or in a decision or battle it led
 * to. */
static bool turn_under_way(const struct yctx *y, const struct held *h)
{
	const struct year_state *st = &y->st;
	return tpl_is(h, "your-turn") && h->year == y->c->year &&
	       (st->step == YEAR_TURN || st->step == YEAR_DECISION || st->step == YEAR_BATTLE) &&
	       st->turn < st->sequence_len && st->sequence[st->turn] == h->player;
}

/* The parts for one person, made to read right as the run ends: a part
 * that asked for a step resolved since no longer asks (its data says
 * "step_over"; a reminder of it is dropped); the organiser who plays is told the
 * sequence of play once, in his part as a player (it has the list too).
 * Returns how many parts are left, in their order. */
static size_t settle_parts(struct yctx *y, struct held **parts, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		struct held *h = parts[i];
		bool drop = false;
		if (asks(h) && !asks_still(y, h)) {
			drop = tpl_is(h, "reminder");
			json_object_set_new(h->data, "step_over", json_true());
		}
		if (turn_under_way(y, h))
			json_object_set_new(h->data, "turn_under_way", json_true());
		if (tpl_is(h, "your-turn") && json_is_true(json_object_get(h->data, "step_over"))) {
			/* his turn was played in this run: its report, when in
			 * this mail, says what came of it */
			const char *key = json_string_value(json_object_get(h->data, "player"));
			for (size_t k = 0; k < n; k++)
				if (tpl_is(parts[k], "turn-report") && key &&
				    parts[k]->year == h->year &&
				    json_equal(json_object_get(parts[k]->data, "mover"),
					       json_object_get(h->data, "player")))
					json_object_set_new(h->data, "report_here", json_true());
			/* and the sequence's "your turn begins now" is past */
			for (size_t k = 0; k < n; k++)
				if (tpl_is(parts[k], "announce-sequence") &&
				    parts[k]->year == h->year && parts[k]->player == h->player)
					json_object_set_new(parts[k]->data, "first", json_false());
		}
		if (tpl_is(h, "announce-sequence") && h->player == NO_INDEX)
			for (size_t k = 0; k < n && !drop; k++)
				drop = tpl_is(parts[k], "announce-sequence") &&
				       parts[k]->player != NO_INDEX && parts[k]->year == h->year;
		if (!drop)
			parts[w++] = h;
	}
	return w;
}

/* Whether the part's template may leave out where everyone stands
 * ("positions_elsewhere"): the others always show it. */
static bool positions_optional(const struct held *h)
{
	return tpl_is(h, "your-turn") || tpl_is(h, "turn-report") ||
	       tpl_is(h, "announce-sequence") || tpl_is(h, "relations");
}

static bool has_positions(const struct held *h)
{
	if (tpl_is(h, "relations") && !json_is_true(json_object_get(h->data, "show_positions")))
		return false;
	return json_array_size(json_object_get(h->data, "positions")) > 0;
}

/* Whether `ev` is one of the events of a turn report among `parts` of
 * `year`. */
static bool reported_here(struct held **parts, size_t n, int year, const json_t *ev)
{
	for (size_t k = 0; k < n; k++) {
		if (!tpl_is(parts[k], "turn-report") || parts[k]->year != year)
			continue;
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(parts[k]->data, "events"), i, v)
			if (json_equal(v, ev))
				return true;
	}
	return false;
}

/* A "Your turn" that asks for his movement option, or whose turn is under
 * way, says it is his turn (and what is asked, until when): the sequence
 * of play no longer says his turn begins now, the organiser's note leaves
 * it out of its "What happens next" (engine_next_told). */
static void turn_said_once(struct held **parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct held *h = parts[i];
		if (!tpl_is(h, "your-turn"))
			continue;
		const char *told = !json_is_true(json_object_get(h->data, "step_over")) ? "asks"
				   : json_is_true(json_object_get(h->data, "turn_under_way"))
					   ? "under_way"
					   : NULL;
		if (!told)
			continue;
		json_object_set_new(h->data, "your_turn_told", json_string(told));
		for (size_t k = 0; k < n; k++) {
			if (tpl_is(parts[k], "announce-sequence") && parts[k]->year == h->year &&
			    parts[k]->player == h->player)
				json_object_set_new(parts[k]->data, "first", json_false());
			if (tpl_is(parts[k], "organiser-action"))
				engine_next_told(parts[k]->data, told);
		}
	}
}

/* Whether the standings of a turn `h` belong in a turn report of the
 * mail: its year so far leaves the latest turns to their reports, which
 * come after it, and the standings they produced (the same) go after
 * them. */
static bool standings_below(struct held **parts, size_t n, const struct held *h)
{
	if (!tpl_is(h, "your-turn") || !json_is_true(json_object_get(h->data, "events_below")))
		return false;
	for (size_t k = 0; k < n; k++)
		if (tpl_is(parts[k], "turn-report") && parts[k]->year == h->year &&
		    has_positions(parts[k]) &&
		    json_equal(json_object_get(parts[k]->data, "positions"),
			       json_object_get(h->data, "positions")))
			return true;
	return false;
}

/* A merged mail says each thing once (parts in the order they were made,
 * the last one made the latest): a turn that is over is told by its
 * report alone (the side the organiser plays gets no copy of a disputed
 * battle beside the organiser's own: year_battle_dispute); the year so far of a turn leaves out what
 * the reports in the mail tell; where everyone stands is shown once, as
 * it stands the latest (in the part that always shows it, else the last
 * one made, but after the reports of the turns that made it); the diary
 * leaves the next year's sequence of play to its own part. Returns how
 * many parts are left. */
static size_t say_once(struct yctx *y, struct held **parts, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		struct held *h = parts[i];
		bool drop = tpl_is(h, "your-turn") &&
			    json_is_true(json_object_get(h->data, "report_here"));
		if (!drop)
			parts[w++] = h;
	}
	n = w;
	size_t keeper = n;
	for (size_t i = 0; i < n; i++) {
		struct held *h = parts[i];
		if (tpl_is(h, "your-turn")) {
			json_t *events = json_object_get(h->data, "events");
			json_t *before = json_array();
			size_t k;
			json_t *ev;
			json_array_foreach(events, k, ev)
				if (!reported_here(parts, n, h->year, ev))
					json_array_append(before, ev);
			json_object_set_new(h->data, "events_below",
					    json_boolean(json_array_size(before) <
							 json_array_size(events)));
			json_object_set_new(h->data, "events", before);
			/* some events have no line of their own (a turn begins) */
			char *lines = templates_render(y->e->templates, "year-events", h->data,
						       NULL);
			if (lines)
				str_trim(lines);
			json_object_set_new(h->data, "has_events", json_boolean(!lines || *lines));
			free(lines);
		}
		if (has_positions(h) && !standings_below(parts, n, h) &&
		    (keeper == n || positions_optional(parts[keeper])))
			keeper = i;
		if (tpl_is(h, "diary"))
			for (size_t k = 0; k < n; k++)
				if (tpl_is(parts[k], "announce-sequence") &&
				    json_equal(json_object_get(parts[k]->data, "year"),
					       json_object_get(h->data, "next_year")))
					json_object_set_new(h->data, "sequence_below", json_true());
	}
	for (size_t i = 0; i < n; i++)
		if (i != keeper && has_positions(parts[i]) && positions_optional(parts[i]))
			json_object_set_new(parts[i]->data, "positions_elsewhere", json_true());
	turn_said_once(parts, n);
	return n;
}

/* The parts of one mail as yctx_mail_out sends it: those held for the
 * address of part `i` (marked `done`), made to read right (settle_parts,
 * say_once), the lead first. Returns how many (0: nothing left to send
 * that person). */
static size_t mail_of(struct yctx *y, size_t i, bool *done, struct held **parts)
{
	size_t n = 0;
	for (size_t k = i; k < y->n_held; k++)
		if (!done[k] && strcasecmp(y->held[k].addr, y->held[i].addr) == 0) {
			done[k] = true;
			parts[n++] = &y->held[k];
		}
	n = say_once(y, parts, settle_parts(y, parts, n));
	if (!n)
		return 0;
	/* the lead: what he must act on now, the first part still open
	 * (of two turns, the later; of two reports, the first); a part
	 * whose step is over is news, after every other; the others
	 * after it in the order they happened */
	size_t lead = 0;
	for (size_t k = 1; k < n; k++)
		if (lead_rank(parts[k]) < lead_rank(parts[lead]) ||
		    (lead_rank(parts[k]) == lead_rank(parts[lead]) &&
		     strcmp(parts[k]->tpl, "your-turn") == 0))
			lead = k;
	struct held *first = parts[lead];
	memmove(parts + 1, parts, lead * sizeof *parts);
	parts[0] = first;
	/* the organiser's actions came before what they caused in this
	 * run (those of one organiser mail are announced together, once
	 * their consequences were made): they follow the lead first */
	for (size_t k = 1, at = 1; k < n; k++)
		if (tpl_is(parts[k], "organiser-action")) {
			struct held *o = parts[k];
			memmove(parts + at + 1, parts + at, (k - at) * sizeof *parts);
			parts[at++] = o;
		}
	return n;
}

int yctx_mail_out(struct yctx *y)
{
	if (y->dry || y->err) {
		yctx_held_free(y);
		return y->err ? -1 : 0;
	}
	bool *done = xcalloc(y->n_held + 1, sizeof *done);
	struct held **parts = xcalloc(y->n_held + 1, sizeof *parts);
	for (size_t i = 0; i < y->n_held && !y->err; i++) {
		if (done[i])
			continue;
		size_t n = mail_of(y, i, done, parts);
		if (n && queue_merged(y, parts, n) != 0)
			break;
	}
	free(parts);
	free(done);
	yctx_held_free(y);
	return y->err ? -1 : 0;
}

json_t *yctx_mails_held_json(struct yctx *y, int year)
{
	json_t *out = json_array();
	bool *done = xcalloc(y->n_held + 1, sizeof *done);
	struct held **parts = xcalloc(y->n_held + 1, sizeof *parts);
	for (size_t i = 0; i < y->n_held; i++) {
		size_t n = done[i] ? 0 : mail_of(y, i, done, parts);
		if (!n)
			continue;
		json_t *list = json_array();
		for (size_t k = 0; k < n; k++) {
			char *h = engine_part_heading(parts[k]->subject, parts[k]->year,
						      k ? parts[0]->year : year);
			json_array_append_new(list, json_pack("{s:s, s:s}", "subject", h,
							      "template", parts[k]->tpl));
			free(h);
		}
		json_t *lead = json_incref(json_array_get(list, 0));
		json_array_remove(list, 0);
		json_object_set_new(lead, "address", json_string(parts[0]->addr));
		json_object_set_new(lead, "parts", list);
		json_array_append_new(out, lead);
	}
	free(parts);
	free(done);
	return out;
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
	json_t *data = json_object_get(req, "data");
	json_t *diary = NULL;
	if (tpl && strcmp(tpl, "diary") == 0) {
		diary = diary_data(y, (int)json_integer_value(json_object_get(req, "diary_year")));
		data = diary;
	}
	/* the map as it stands goes with the turn's mail and the diary, as
	 * PNG (what every client shows) and SVG, marked with the year's
	 * battles and sieges */
	struct mail_extras x = {0};
	struct engine_maps *maps = NULL;
	if (!y->dry && tpl && (strcmp(tpl, "your-turn") == 0 || strcmp(tpl, "turn-report") == 0 ||
			       strcmp(tpl, "diary") == 0)) {
		int year = diary ? (int)json_integer_value(json_object_get(req, "diary_year"))
				 : c->year;
		/* the diary's year has ended: its map is the map at its end */
		char *title = diary && year != c->year
				      ? xasprintf("%s, end of %d", c->name ? c->name : "Campaign", year)
				      : NULL;
		maps = xcalloc(1, sizeof *maps);
		engine_maps_build(y->e->store, c, year, title, maps);
		free(title);
		grow_array((void **)&y->maps, &y->cap_maps, y->n_maps + 1, sizeof *y->maps);
		y->maps[y->n_maps++] = maps;
	}
	x.year = (int)json_integer_value(json_object_get(req, "year"));
	if (tpl && strcmp(tpl, "diary") == 0) {
		x.html_template = "diary-html";
		x.year = (int)json_integer_value(json_object_get(req, "diary_year"));
	}
	const json_t *step_v = json_object_get(req, "step");
	int step = json_is_integer(step_v) ? (int)json_integer_value(step_v) : -1;
	int nth = (int)json_integer_value(json_object_get(req, "nth"));
	/* the address whose answer says it already (engine_year_org.c) */
	const char *answered = json_string_value(json_object_get(req, "answered_to"));
	bool organiser_reached = answered && c->organiser_email &&
				 strcasecmp(c->organiser_email, answered) == 0;
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (!rcpt[p] || !pl->email || !*pl->email ||
		    (answered && strcasecmp(pl->email, answered) == 0))
			continue;
		if (c->organiser_email && strcasecmp(c->organiser_email, pl->email) == 0)
			organiser_reached = true;
		hold_one(y, tpl, subject, data, (int)p, pl->email, pl->name, maps, x.html_template,
			 x.year, step, nth);
	}
	if (org && !organiser_reached && c->organiser_email && *c->organiser_email)
		hold_one(y, tpl, subject, data, NO_INDEX, c->organiser_email, c->organiser_name,
			 maps, x.html_template, x.year, step, nth);
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
		if (store_append_event_at(y->e->store, y->log.events[y->stored], y->now, NULL,
					  &err) != STORE_OK)
			set_err(y, err);
	}
	for (; y->mails_done < json_array_size(y->run.mails) && !y->err; y->mails_done++)
		queue_request(y, json_array_get(y->run.mails, y->mails_done));
	return y->err ? -1 : 0;
}
