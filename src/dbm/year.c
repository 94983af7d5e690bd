/* The campaign year by mail: the state machine (see year.h and doc/rules.md,
 * "Running the year by mail"). */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define RUN_GUARD 1000 /* resolutions in one run: far beyond any real year */

/* ---------------------------------------------------------------- state */

void year_state_init(struct year_state *st)
{
	memset(st, 0, sizeof *st);
	st->turn_events = json_array();
}

void year_state_free(struct year_state *st)
{
	free(st->sequence);
	json_decref(st->pending);
	json_decref(st->turn_events);
	memset(st, 0, sizeof *st);
}

static const char *const step_names[] = {"idle", "turn", "decision", "battle",
					 "recruitment", "vote", "ended"};

json_t *year_state_to_json(const struct year_state *st, const struct campaign *c)
{
	json_t *seq = json_array();
	for (size_t i = 0; i < st->sequence_len; i++)
		json_array_append_new(seq, json_string(pkey(c, st->sequence[i])));
	json_t *doc = json_pack("{s:i, s:s, s:o, s:I, s:I, s:I, s:b, s:I, s:i}", "version", 1,
				"step", step_names[st->step], "sequence", seq, "turn",
				(json_int_t)st->turn, "deadline", (json_int_t)st->deadline,
				"reminders_sent", (json_int_t)st->reminders_sent, "paused",
				st->paused, "paused_left", (json_int_t)st->paused_left,
				"resolutions", st->resolutions);
	if (st->sequence_year)
		json_object_set_new(doc, "sequence_year", json_integer(st->sequence_year));
	json_object_set(doc, "pending", st->pending ? st->pending : json_null());
	json_object_set(doc, "turn_events", st->turn_events ? st->turn_events : json_null());
	return doc;
}

int year_state_from_json(struct year_state *st, const json_t *doc, const struct campaign *c,
			 char **errstr)
{
	year_state_init(st);
	const char *step = jstr(doc, "step");
	int found = -1;
	for (size_t i = 0; step && i < sizeof step_names / sizeof *step_names; i++)
		if (strcmp(step, step_names[i]) == 0)
			found = (int)i;
	if (!json_is_object(doc) || found < 0) {
		*errstr = xstrdup("year state: no valid \"step\"");
		year_state_free(st);
		return -1;
	}
	st->step = (enum year_step)found;
	const json_t *seq = json_object_get(doc, "sequence");
	size_t n = json_array_size(seq);
	st->sequence = xcalloc(n ? n : 1, sizeof *st->sequence);
	for (size_t i = 0; i < n; i++) {
		int p = find_player(c, json_string_value(json_array_get(seq, i)));
		if (p < 0) {
			*errstr = xasprintf("year state: sequence[%zu]: unknown player", i);
			year_state_free(st);
			return -1;
		}
		st->sequence[st->sequence_len++] = p;
	}
	st->turn = (size_t)json_integer_value(json_object_get(doc, "turn"));
	st->deadline = json_integer_value(json_object_get(doc, "deadline"));
	st->reminders_sent = (unsigned)json_integer_value(json_object_get(doc, "reminders_sent"));
	st->paused = json_is_true(json_object_get(doc, "paused"));
	st->paused_left = json_integer_value(json_object_get(doc, "paused_left"));
	st->resolutions = jint(doc, "resolutions", 0);
	st->sequence_year = jint(doc, "sequence_year", 0);
	json_t *pending = json_object_get(doc, "pending");
	if (json_is_object(pending))
		st->pending = json_deep_copy(pending);
	json_t *events = json_object_get(doc, "turn_events");
	if (json_is_array(events)) {
		json_decref(st->turn_events);
		st->turn_events = json_deep_copy(events);
	}
	return 0;
}

/* ---------------------------------------------------------------- step names */

const char *year_step_name(const struct year_state *st, const struct campaign *c, char *buf,
			   size_t size)
{
	switch (st->step) {
	case YEAR_IDLE:
		snprintf(buf, size, "start");
		break;
	case YEAR_TURN:
		snprintf(buf, size, "turn-%s",
			 st->turn < st->sequence_len ? pkey(c, st->sequence[st->turn]) : "none");
		break;
	case YEAR_DECISION: {
		const json_t *aw = json_object_get(st->pending, "asked");
		snprintf(buf, size, "decision-%s",
			 json_array_size(aw) ? json_string_value(json_array_get(aw, 0)) : "none");
		break;
	}
	case YEAR_BATTLE:
		snprintf(buf, size, "battle-%s", jstr(st->pending, "province")
						 ? jstr(st->pending, "province") : "none");
		break;
	case YEAR_RECRUITMENT:
		snprintf(buf, size, "recruitment");
		break;
	case YEAR_VOTE:
		snprintf(buf, size, "vote");
		break;
	case YEAR_ENDED:
		snprintf(buf, size, "ended");
		break;
	}
	return buf;
}

const char *year_step_words(const struct campaign *c, const char *name, char *buf, size_t size)
{
	static const struct {
		const char *name, *words;
	} fixed[] = {{"recruitment", "the recruitment"},
		     {"vote", "the vote on the campaign's end"},
		     {"start", "the start of the year"},
		     {"ended", "the end of the campaign"},
		     {NULL, NULL}};
	if (!name)
		name = "";
	if (strncmp(name, "turn-", 5) == 0 || strncmp(name, "decision-", 9) == 0) {
		bool turn = name[0] == 't';
		const char *key = name + (turn ? 5 : 9);
		int p = find_player(c, key);
		snprintf(buf, size, turn ? "%s's turn" : "%s's answer", p >= 0 ? pnation(c, p) : key);
		return buf;
	}
	if (strncmp(name, "battle-", 7) == 0) {
		int prov = find_province(c, name + 7);
		snprintf(buf, size, "the battle at %s",
			 prov != NO_INDEX ? prov_name(c, prov) : name + 7);
		return buf;
	}
	for (size_t i = 0; fixed[i].name; i++)
		if (strcmp(name, fixed[i].name) == 0) {
			snprintf(buf, size, "%s", fixed[i].words);
			return buf;
		}
	snprintf(buf, size, "%s", name);
	return buf;
}

bool year_step_is(const struct year_state *st, const struct campaign *c, const char *name)
{
	char buf[256];
	year_step_name(st, c, buf, sizeof buf);
	return name && name_equal(buf, name);
}

/* ---------------------------------------------------------------- what is awaited */

static bool recruitment_done(struct year_run *r, int p)
{
	const struct player *pl = &r->c->players[p];
	if (player_reserve_half_ap(pl) == 0)
		return true;
	struct order_set set;
	year_load_orders(r, p, &set);
	bool done = false;
	for (size_t i = 0; i < set.count && !done; i++)
		done = set.orders[i].status == ORDER_OK &&
		       (year_is_recruitment(set.orders[i].kind) || set.orders[i].kind == ORDER_NO_MOVE);
	orders_set_free(&set);
	return done;
}

/* Decision answers: has `asked` answered what the pending decision needs? */
static bool decision_answered(struct year_run *r, int asked)
{
	const json_t *pd = r->st->pending;
	const char *kind = jstr(pd, "kind");
	struct order_set set;
	year_load_orders(r, asked, &set);
	bool ok = false;
	if (kind && strcmp(kind, "defence") == 0) {
		ok = year_if_invaded(&set, find_province(r->c, jstr(pd, "province"))) != NULL;
	} else if (year_solicit_kind(pd)) {
		ok = year_solicit_answered_by(r, asked);
	} else if (kind && strcmp(kind, "allies") == 0) {
		const struct order *o;
		int side = find_player(r->c, jstr(json_object_get(pd, "for"), pkey(r->c, asked)));
		/* ordered (rules 3.2): only troops answer, not a refusal */
		ok = year_ally_answer(&set, side, &o) >=
		     (year_tributary_ordered(r->st, r->c, asked) ? 1 : 0);
	} else {
		int mover = find_player(r->c, jstr(pd, "mover"));
		const char *key = pkey(r->c, asked);
		bool need_pass = false, need_supply = false;
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(pd, "passage"), i, v)
			need_pass |= strcmp(json_string_value(v), key) == 0;
		json_array_foreach(json_object_get(pd, "supply"), i, v)
			need_supply |= strcmp(json_string_value(v), key) == 0;
		ok = (!need_pass || year_permission_of(&set, mover, false) >= 0) &&
		     (!need_supply || year_permission_of(&set, mover, true) >= 0);
	}
	orders_set_free(&set);
	return ok;
}

/* The players a step waits for, as indices into out (c->player_count). */
static size_t awaited(struct year_run *r, int *out)
{
	const struct campaign *c = r->c;
	const struct year_state *st = r->st;
	size_t n = 0;
	switch (st->step) {
	case YEAR_TURN:
		if (st->turn < st->sequence_len)
			out[n++] = st->sequence[st->turn];
		break;
	case YEAR_DECISION: {
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(st->pending, "asked"), i, v) {
			int p = find_player(c, json_string_value(v));
			if (p >= 0 && !decision_answered(r, p))
				out[n++] = p;
		}
		break;
	}
	case YEAR_BATTLE: {
		if (json_is_true(json_object_get(st->pending, "disputed")))
			break;
		const json_t *reports = json_object_get(st->pending, "reports");
		const char *sides[] = {jstr(st->pending, "attacker"), jstr(st->pending, "defender")};
		for (int s = 0; s < 2; s++) {
			int p = find_player(c, sides[s]);
			if (p >= 0 && !json_object_get(reports, sides[s]))
				out[n++] = p;
		}
		break;
	}
	case YEAR_RECRUITMENT:
		for (size_t p = 0; p < c->player_count; p++)
			if (active(c, (int)p) && !recruitment_done(r, (int)p))
				out[n++] = (int)p;
		break;
	case YEAR_VOTE:
		for (size_t p = 0; p < c->player_count; p++)
			if (active(c, (int)p) && year_vote_of(r, (int)p) == CHOICE_NONE)
				out[n++] = (int)p;
		break;
	default:
		break;
	}
	return n;
}

json_t *year_awaited(const struct year_state *st, const struct campaign *c,
		     const struct year_io *io)
{
	struct event_log log;
	event_log_init(&log);
	struct year_run r;
	year_run_init(&r, (struct campaign *)c, (struct year_state *)st, NULL, &log, 0, io);
	int *who = xcalloc(c->player_count + 1, sizeof *who);
	size_t n = awaited(&r, who);
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_string(pkey(c, who[i])));
	free(who);
	year_run_free(&r);
	event_log_free(&log);
	return arr;
}

/* A player's name as the reader of the mail reads it: "you" when he is
 * that player, else his nation. */
static const char *named(const struct campaign *c, int p, int reader)
{
	return p >= 0 && p == reader ? "you" : pnation(c, p);
}

/* "Burgundy's", or "your" for the reader himself. */
static char *named_s(const struct campaign *c, int p, int reader)
{
	return p >= 0 && p == reader ? xstrdup("your") : xasprintf("%s's", pnation(c, p));
}

char *year_step_describe(const struct year_state *st, const struct campaign *c)
{
	return year_step_describe_for(st, c, NO_INDEX);
}

char *year_step_describe_for(const struct year_state *st, const struct campaign *c, int reader)
{
	const json_t *pd = st->pending;
	const char *kind = jstr(pd, "kind") ? jstr(pd, "kind") : "";
	char *out = NULL, *who = NULL;
	switch (st->step) {
	case YEAR_IDLE:
		return xstrdup("the campaign has not been started");
	case YEAR_TURN: {
		int mover = st->turn < st->sequence_len ? st->sequence[st->turn] : NO_INDEX;
		if (mover >= 0 && mover == reader)
			return xstrdup("your turn: a movement option (INVADE, MOVE, SEND CONTINGENT "
				       "or NO MOVE)");
		return xasprintf("the turn of %s: a movement option (INVADE, MOVE, SEND CONTINGENT "
				 "or NO MOVE)",
				 mover >= 0 ? pnation(c, mover) : "nobody");
	}
	case YEAR_DECISION:
		if (strcmp(kind, "allies") == 0)
			return xasprintf("the allies' answers before the battle at %s (ANSWER ALLIES, "
					 "CONTINGENT FOR)", jstr(pd, "province"));
		if (strcmp(kind, "solicit") == 0) {
			who = named_s(c, find_player(c, jstr(pd, "mover")), reader);
			out = xasprintf("the answers to %s call for allies before invading %s "
					"(CONTINGENT FOR, ANSWER ALLIES NO)", who, jstr(pd, "province"));
		} else if (strcmp(kind, "commit") == 0) {
			int mover = find_player(c, jstr(pd, "mover"));
			who = named_s(c, mover, reader);
			out = xasprintf("%s choice, %s allies' answers in: INVADE %s or CALL OFF", who,
					mover >= 0 && mover == reader ? "your" : "its",
					jstr(pd, "province"));
		} else if (strcmp(kind, "defence") == 0) {
			who = named_s(c, find_player(c, jstr(pd, "defender")), reader);
			out = xasprintf("%s answer to the invasion of %s by %s (IF INVADED)", who,
					jstr(pd, "province"),
					named(c, find_player(c, jstr(pd, "attacker")), reader));
		} else {
			int mover = find_player(c, jstr(pd, "mover"));
			out = mover >= 0 && mover == reader
				      ? xstrdup("permission for your move (ALLOW/DENY PASSAGE or "
						"SUPPLY)")
				      : xasprintf("permission for the move of %s (ALLOW/DENY PASSAGE "
						  "or SUPPLY)", pnation(c, mover));
		}
		free(who);
		return out;
	case YEAR_BATTLE:
		return xasprintf("the result of the battle at %s (%s)", jstr(pd, "province"),
				 json_is_true(json_object_get(pd, "disputed"))
					 ? "the reports differ or are missing: the organiser decides"
					 : "a report from each side");
	case YEAR_RECRUITMENT:
		return xstrdup("every player's recruitment orders (RECRUIT, DISMISS, RETRIEVE "
			       "GENERAL, or NO MOVE for none)");
	case YEAR_VOTE:
		return xstrdup("every player's VOTE CONTINUE or VOTE END");
	case YEAR_ENDED:
		return xstrdup("nothing: the campaign has ended");
	}
	return xstrdup("");
}

/* ---------------------------------------------------------------- orders too late */

bool year_turn_is_over(const struct year_state *st, const struct campaign *c, int player)
{
	if (c->phase != PHASE_CAMPAIGN || player < 0 ||
	    (st->step != YEAR_TURN && st->step != YEAR_DECISION && st->step != YEAR_BATTLE))
		return false;
	for (size_t i = 0; i < st->sequence_len; i++)
		if (st->sequence[i] == player)
			return i < st->turn ||
			       (i == st->turn && st->step != YEAR_TURN &&
				!(st->step == YEAR_DECISION && year_solicit_kind(st->pending)));
	return false;
}

size_t year_orders_too_late(const struct year_state *st, const struct campaign *c, int player,
			    struct order_set *set)
{
	size_t n = 0;
	/* the Ally option taken (a contingent sent on call) excludes INVADE
	 * and MOVE this year: said in the answer, not later */
	bool ally = c->phase == PHASE_CAMPAIGN && player >= 0 &&
		    (size_t)player < c->player_count && st->step != YEAR_IDLE &&
		    c->players[player].movement_option == OPTION_ALLY;
	for (size_t i = 0; ally && i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || (o->kind != ORDER_INVADE && o->kind != ORDER_MOVE))
			continue;
		o->status = ORDER_ERROR;
		free(o->understood);
		o->understood = NULL;
		o->error = xasprintf("%s has already taken the Ally movement option this year (a "
				     "contingent was sent): no INVADE or MOVE until next year",
				     pnation(c, player));
		set->errors++;
		n++;
	}
	/* a recruitment order in the campaign phase is for the recruitment
	 * at the end of this year: one that cannot be carried out as things
	 * stand says that the recruitment phase is over, not only the rule */
	for (size_t i = 0; c->phase == PHASE_CAMPAIGN && st->step != YEAR_IDLE && i < set->count;
	     i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_ERROR || !year_is_recruitment(o->kind) || !o->error)
			continue;
		char *why = xasprintf("the recruitment phase is over: the next one is at the end "
				      "of %d; a recruitment order now is kept for it, but as your "
				      "army stands now this one cannot be carried out (%s), so it "
				      "is not kept: send it again in that recruitment phase",
				      c->year, o->error);
		free(o->error);
		o->error = why;
	}
	if (!year_turn_is_over(st, c, player))
		return n;
	size_t place = st->sequence_len;
	for (size_t i = 0; i < st->sequence_len && place == st->sequence_len; i++)
		if (st->sequence[i] == player)
			place = i;
	bool over = place < st->turn;
	bool under_way = place == st->turn && st->step != YEAR_TURN;
	if (!over && !under_way)
		return n;
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !year_is_movement(o->kind))
			continue;
		o->status = ORDER_ERROR;
		free(o->understood);
		o->understood = NULL;
		o->error = xasprintf(
			"your turn of %d is %s: a movement order now is for a turn that is over, "
			"so it is not used and not kept; your turn of next year takes movement "
			"orders from the recruitment phase on", c->year,
			over ? "over (your movement option was carried out)"
			     : "under way (your movement order is being carried out)");
		set->errors++;
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- reminders */

/* What happens to a player who sends nothing before the deadline. */
static const char *step_default(const struct year_state *st)
{
	const char *kind = jstr(st->pending, "kind");
	switch (st->step) {
	case YEAR_TURN:
		return "If nothing comes, your army does not move this year (NO MOVE).";
	case YEAR_RECRUITMENT:
		return "If nothing comes, you recruit nothing this year.";
	case YEAR_VOTE:
		return "If nothing comes, your vote counts as END.";
	case YEAR_DECISION:
		if (kind && (strcmp(kind, "allies") == 0 || strcmp(kind, "solicit") == 0))
			return "If nothing comes, you send no contingent.";
		if (kind && strcmp(kind, "commit") == 0)
			return "If nothing comes, the attack is called off and your turn goes on, "
			       "its movement option still open.";
		if (kind && strcmp(kind, "defence") == 0)
			return "If nothing comes, you stand a siege where you are invaded (no "
			       "battle, no retreat).";
		return "If nothing comes, passage and supply are denied.";
	default:
		return "If nothing comes, the step goes on without you.";
	}
}

/* What a reminder to `reader` says it waits for, in his words: "your
 * turn", "your recruitment orders". Caller frees. */
static char *reminder_waiting_for(const struct year_run *r, int reader)
{
	if (r->st->step == YEAR_RECRUITMENT)
		return xstrdup("your recruitment orders: RECRUIT, DISMISS, RETRIEVE GENERAL, or "
			       "NO MOVE for none");
	if (r->st->step == YEAR_VOTE)
		return xstrdup("your vote: VOTE CONTINUE or VOTE END");
	return year_step_describe_for(r->st, r->c, reader);
}

static void send_reminders(struct year_run *r)
{
	const struct campaign_settings *s = &r->c->settings;
	struct year_state *st = r->st;
	if (!st->deadline || r->now >= st->deadline)
		return;
	int best = -1;
	for (int i = 0; i < 4 && s->reminder_hours[i] > 0; i++)
		if (r->now >= st->deadline - (int64_t)s->reminder_hours[i] * HOUR &&
		    (best < 0 || s->reminder_hours[i] < s->reminder_hours[best]))
			best = i;
	if (best < 0 || (st->reminders_sent & (1u << best)))
		return;
	for (int i = 0; i < 4 && s->reminder_hours[i] > 0; i++)
		if (s->reminder_hours[i] >= s->reminder_hours[best])
			st->reminders_sent |= 1u << i;
	int *who = xcalloc(r->c->player_count + 1, sizeof *who);
	size_t n = awaited(r, who);
	for (size_t i = 0; i < n; i++) {
		json_t *d = year_deadline_data(r);
		char *what = reminder_waiting_for(r, who[i]);
		json_object_set_new(d, "waiting_for", json_string(what));
		free(what);
		/* a player is reminded because nothing valid of his is in */
		json_object_set_new(d, "none_in",
				    json_string("Nothing valid of yours is in for this step yet "
						"(a line with an error counts for nothing)."));
		json_object_set_new(d, "if_nothing",
				    json_string(year_tributary_ordered(st, r->c, who[i])
							? "If nothing comes, the contingent you were "
							  "told of is sent: you cannot refuse it (rules "
							  "3.2)."
							: step_default(st)));
		json_object_set_new(d, "hours_left",
				    json_integer((st->deadline - r->now + HOUR - 1) / HOUR));
		char left[64];
		json_object_set_new(d, "time_left",
				    json_string(year_format_duration(st->deadline - r->now, left,
								     sizeof left)));
		year_mail(r, "reminder", who[i], false, d, "Reminder: %s left", left);
	}
	free(who);
}

/* ---------------------------------------------------------------- the loop */

static void checkpoint(struct year_run *r)
{
	char name[256];
	year_step_name(r->st, r->c, name, sizeof name);
	year_sync_turn_events(r);
	r->io->checkpoint(r->io->ctx, name);
	r->st->resolutions++;
}

/* The handlers never start the next step themselves: they return, and the
 * machine moves on here. */

/* The turn of sequence[turn] (or of the next active player), or the
 * recruitment phase after the last. */
static void start_turn(struct year_run *r)
{
	if (!year_enter_turn(r) && year_phase_may_begin(r, r->c->year, PHASE_RECRUITMENT))
		year_begin_recruitment(r);
}

/* The turn is over (its move done, its battle settled): its report, then
 * the next turn. */
static void turn_over(struct year_run *r)
{
	year_end_turn(r);
	start_turn(r);
}

/* Applies the result; on success the turn ends. */
static int settle_battle(struct year_run *r, const char *text, const char *how_decided,
			 char *why, size_t why_size)
{
	checkpoint(r);
	if (year_battle_apply(r, text, how_decided, why, why_size) != 0)
		return -1;
	turn_over(r);
	return 0;
}

/* The battle's deadline passed: one report settles it, else the organiser. */
static void battle_deadline(struct year_run *r)
{
	char *text = year_battle_sole_report(r);
	if (!text) {
		year_battle_dispute(r, "no report came before the deadline");
		return;
	}
	char reason[RULES_REASON_MAX + 64];
	if (settle_battle(r, text, "one report at the deadline", reason, sizeof reason) != 0)
		year_battle_dispute(r, reason);
	free(text);
}

int year_start(struct year_run *r, char *why, size_t why_size)
{
	if (r->st->step != YEAR_IDLE) {
		year_say(why, why_size, "the campaign has already been started");
		return -1;
	}
	if (r->c->phase == PHASE_ENDED) {
		year_say(why, why_size, "the campaign has ended");
		return -1;
	}
	int setup_year = r->c->year;
	int setup_phase = r->c->phase;
	year_begin_year(r, setup_year, setup_phase, CARRY_ALL);
	start_turn(r);
	year_advance(r);
	return 0;
}

void year_advance(struct year_run *r)
{
	struct year_state *st = r->st;
	if (st->paused || st->step == YEAR_IDLE || st->step == YEAR_ENDED)
		return;
	send_reminders(r);
	year_load_loss_preferences(r);
	int *who = xcalloc(r->c->player_count + 1, sizeof *who);
	for (int guard = 0; guard < RUN_GUARD && !st->paused; guard++) {
		bool due = st->deadline && r->now >= st->deadline;
		enum year_step before = st->step;
		size_t turn_before = st->turn;
		int resolved_before = st->resolutions;
		if (st->step == YEAR_TURN || st->step == YEAR_RECRUITMENT || st->step == YEAR_VOTE)
			year_between_steps(r);
		switch (st->step) {
		case YEAR_TURN: {
			if (st->turn >= st->sequence_len) {
				/* stopped before the recruitment (phase_may_begin) */
				break;
			}
			if (!active(r->c, st->sequence[st->turn])) {
				/* left or knocked out since the turn began */
				st->turn++;
				start_turn(r);
				break;
			}
			if (year_check_turn_orders(r))
				break; /* told at once: the turn stays open */
			struct order_set set;
			year_load_orders(r, st->sequence[st->turn], &set);
			bool in = year_find_movement(&set) != NULL;
			orders_set_free(&set);
			if (in || due) {
				checkpoint(r);
				if (year_resolve_turn_now(r))
					turn_over(r);
			}
			break;
		}
		case YEAR_DECISION:
			if (awaited(r, who) == 0 || due) {
				checkpoint(r);
				if (year_resolve_decision(r))
					turn_over(r);
			}
			break;
		case YEAR_BATTLE:
			if (due && !json_is_true(json_object_get(st->pending, "disputed")))
				battle_deadline(r);
			break;
		case YEAR_RECRUITMENT:
			if (awaited(r, who) == 0 || due) {
				checkpoint(r);
				if (year_resolve_recruitment(r))
					start_turn(r);
			}
			break;
		case YEAR_VOTE: {
			bool any_end = false;
			for (size_t p = 0; p < r->c->player_count; p++)
				any_end |= active(r->c, (int)p) && year_vote_of(r, (int)p) == CHOICE_END;
			if (awaited(r, who) == 0 || due || any_end) {
				checkpoint(r);
				if (year_resolve_vote(r))
					start_turn(r);
			}
			break;
		}
		default:
			break;
		}
		if (st->step == before && st->turn == turn_before && st->resolutions == resolved_before)
			break;
		if (st->step == YEAR_ENDED)
			break;
	}
	free(who);
	year_sync_turn_events(r);
	year_tell_relations(r);
}

/* ---------------------------------------------------------------- battle reports */

int year_battle_report(struct year_run *r, int player, bool organiser,
		       const struct order_set *set, char *why, size_t why_size)
{
	char *text;
	const char *how;
	if (year_battle_take_report(r, player, organiser, set, &text, &how, why, why_size) != 0)
		return -1;
	if (!text)
		return 0; /* recorded: the other side's report, or the organiser, next */
	int rc = 0;
	if (organiser) {
		rc = settle_battle(r, text, how, why, why_size);
		if (rc == 0)
			year_advance(r);
	} else {
		char reason[RULES_REASON_MAX + 64];
		if (settle_battle(r, text, how, reason, sizeof reason) != 0)
			year_battle_dispute(r, reason);
		else
			year_advance(r);
	}
	free(text);
	return rc;
}
