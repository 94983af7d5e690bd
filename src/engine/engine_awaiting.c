/* What happens next, as mails and status views say it: whose turn it is,
 * each player's place in the year's sequence, the deadline in the
 * campaign's time zone, and what each player is awaited for. Reads the year's
 * state, writes nothing (engine_year_p.h: engine_awaiting_json). */
#include "config.h"

#include "engine/engine_year_p.h"
#include "engine/awaited.h"
#include "base/timefmt.h"
#include "base/util.h"
#include "dbm/year.h"

#include <stdlib.h>
#include <string.h>

static const char *nation_of(const struct campaign *c, int p)
{
	if (p < 0 || (size_t)p >= c->player_count)
		return "nobody";
	const struct player *pl = &c->players[p];
	return pl->nation ? pl->nation : pl->key;
}

const char *ordinal_suffix(size_t n)
{
	if (n % 100 >= 11 && n % 100 <= 13)
		return "th";
	return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* "France", "France and Savoy", "France, Savoy and Milan" */
static char *nation_list(const struct campaign *c, const json_t *keys)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	size_t n = json_array_size(keys);
	for (size_t i = 0; i < n; i++) {
		int p = campaign_find_player(c, json_string_value(json_array_get(keys, i)));
		strbuf_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			      nation_of(c, p));
	}
	return strbuf_take(&sb);
}

json_t *engine_awaiting_json(const struct campaign *c, const struct year_state *st,
			     const struct year_io *io, int player)
{
	json_t *d = json_object();
	char step[256], when[96];
	year_step_name(st, c, step, sizeof step);
	json_object_set_new(d, "step", json_string(step));
	json_object_set_new(d, "year", json_integer(c->year));
	if (st->step == YEAR_IDLE) {
		json_object_set_new(d, "not_started", json_true());
		json_object_set_new(d, "now_text",
				    json_string("The campaign has not started yet: when the "
						"organiser starts it, the sequence of play is "
						"rolled and sent to everyone."));
		return d;
	}
	if (st->step == YEAR_ENDED) {
		json_object_set_new(d, "ended", json_true());
		json_object_set_new(d, "now_text", json_string("The campaign is over."));
		return d;
	}
	/* the sequence of play and the player's place in it */
	int mover = (st->step == YEAR_TURN || st->step == YEAR_DECISION ||
		     st->step == YEAR_BATTLE) && st->turn < st->sequence_len
			    ? st->sequence[st->turn]
			    : -1;
	/* who reads it: the player, or in the organiser's view the nation
	 * the organiser plays (he is "you" there too) */
	int reader = player >= 0 ? player : c->organiser_player;
	json_t *seq = json_array();
	size_t you_at = 0;
	for (size_t i = 0; i < st->sequence_len; i++) {
		int p = st->sequence[i];
		bool done = st->step == YEAR_RECRUITMENT || st->step == YEAR_VOTE || i < st->turn;
		json_array_append_new(seq, json_pack("{s:i, s:s, s:s, s:b, s:b, s:b}", "position",
						     (int)i + 1, "player", c->players[p].key,
						     "nation", nation_of(c, p), "current",
						     mover >= 0 && i == st->turn, "done", done,
						     "you", p == player));
		if (p == player)
			you_at = i + 1;
	}
	json_object_set_new(d, "sequence", seq);
	struct strbuf sb = {0};
	size_t n = st->sequence_len;
	if (mover >= 0) {
		json_object_set_new(d, "turn_nation", json_string(nation_of(c, mover)));
		if (mover == reader) /* "It is your turn" */
			strbuf_printf(&sb, "It is your turn in %d (%zu%s of %zu)", c->year,
				      st->turn + 1, ordinal_suffix(st->turn + 1), n);
		else /* "It is Burgundy's turn" */
			strbuf_printf(&sb, "It is %s's turn in %d (%zu%s of %zu)", nation_of(c, mover),
				      c->year, st->turn + 1, ordinal_suffix(st->turn + 1), n);
		if (st->step == YEAR_DECISION || st->step == YEAR_BATTLE) {
			char *what = year_step_describe_for(st, c, reader);
			strbuf_printf(&sb, "; the year waits for %s", what);
			/* what his turn waits for, said alone where a "Your turn"
			 * in the same mail says whose turn it is */
			if (mover == reader) {
				char *t = xasprintf("Your turn waits for %s.", what);
				json_object_set_new(d, "waits_text", json_string(t));
				free(t);
			}
			free(what);
		}
		strbuf_puts(&sb, ".");
	} else if (st->step == YEAR_RECRUITMENT) {
		strbuf_printf(&sb, "The recruitment phase of %d: every player recruits at once.",
			      c->year);
	} else if (st->step == YEAR_VOTE) {
		strbuf_printf(&sb, "The end of %d: every player votes to continue or to end the "
				   "campaign.", c->year);
	}
	json_object_set_new(d, "now_text", json_string(sb.data ? sb.data : ""));
	strbuf_free(&sb);

	/* who is awaited, and the deadline */
	json_t *aw = year_awaited(st, c, io);
	/* what he is awaited for, in both roles: the one view (awaited.c)
	 * that STATUS and campaignctl status give */
	json_t *view = engine_awaited_json(st, c, io);
	char *what = engine_awaited_for(view, c, player);
	bool organiser_awaited = json_object_get(view, "organiser") && !st->paused;
	/* for the organiser: each awaited player and what for, and his own part */
	json_t *each = json_object_get(view, "awaited");
	if (json_array_size(each)) {
		/* the organiser who plays reads his own nation's as "you" */
		size_t i;
		json_t *v;
		json_array_foreach(each, i, v)
			if (reader >= 0 && (size_t)reader < c->player_count &&
			    json_is_string(json_object_get(v, "player")) &&
			    strcmp(json_string_value(json_object_get(v, "player")),
				   c->players[reader].key) == 0)
				json_object_set_new(v, "you", json_true());
		json_object_set(d, "awaited_each", each);
	}
	if (organiser_awaited)
		json_object_set(d, "organiser_for", json_object_get(view, "organiser"));
	json_decref(view);
	bool you_awaited = what != NULL;
	char *list = nation_list(c, aw);
	json_object_set_new(d, "awaited", aw);
	json_object_set_new(d, "awaited_nations", json_string(list));
	if (st->paused) {
		json_object_set_new(d, "paused", json_true());
		json_object_set_new(d, "deadline_text",
				    json_string("The organiser has stopped the clock: no deadline "
						"passes until it runs again."));
	} else if (st->deadline) {
		timefmt_local(st->deadline, c->timezone, when, sizeof when);
		json_object_set_new(d, "deadline", json_string(when));
		json_object_set_new(d, "deadline_epoch", json_integer(st->deadline));
		char *t = xasprintf("Deadline: %s.", when);
		json_object_set_new(d, "deadline_text", json_string(t));
		free(t);
	}
	if (player >= 0) {
		json_object_set_new(d, "you_awaited", json_boolean(you_awaited));
		char *you;
		/* a step every player answers at once: a player not awaited has
		 * his answer in, and it stands until the step is played */
		const char *stand = NULL;
		if (!you_awaited && (size_t)player < c->player_count &&
		    c->players[player].status == PLAYER_ACTIVE) {
			if (st->step == YEAR_RECRUITMENT)
				stand = "Your recruitment orders are in: they stand, and you can "
					"change them (send them again) until the recruitment is "
					"played.";
			else if (st->step == YEAR_VOTE)
				stand = "Your vote is in: it stands, and you can change it until "
					"the votes are counted.";
		}
		/* whom the year waits for when it is not this player */
		const char *who = *list ? list : organiser_awaited ? "the organiser" : NULL;
		bool resume = !who && st->paused && player == c->organiser_player;
		const char *resume_text = "you resume the campaign when it should go on (RESUME).";
		if (you_awaited) {
			json_object_set_new(d, "awaited_for", json_string(what));
			you = xasprintf("Awaited from you: %s.", what);
		} else if (stand) {
			you = who ? xasprintf("%s The year waits for %s.", stand, who)
			      : resume ? xasprintf("%s As the organiser, %s", stand, resume_text)
				       : xstrdup(stand);
		} else if (who) {
			you = xasprintf("Nothing is awaited from you now; the year waits for %s.", who);
		} else if (resume) {
			you = xasprintf("Nothing is awaited from you as a player; as the organiser, %s",
					resume_text);
		} else {
			you = xstrdup("Nothing is awaited from you now.");
		}
		json_object_set_new(d, "you_text", json_string(you));
		free(you);
		if (you_at) {
			json_object_set_new(d, "your_position", json_integer((json_int_t)you_at));
			char *place;
			if (mover >= 0 && you_at - 1 > st->turn)
				place = xasprintf("You play %zu%s of %zu this year, after %s.", you_at,
						  ordinal_suffix(you_at), n,
						  nation_of(c, st->sequence[you_at - 2]));
			else if (mover >= 0 && you_at - 1 == st->turn)
				place = xasprintf("You play %zu%s of %zu this year.", you_at,
						  ordinal_suffix(you_at), n);
			else
				place = xasprintf("You played %zu%s of %zu this year.", you_at,
						  ordinal_suffix(you_at), n);
			json_object_set_new(d, "place_text", json_string(place));
			free(place);
		}
	}
	free(list);
	free(what);
	return d;
}
