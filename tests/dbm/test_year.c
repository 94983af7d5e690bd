/* The campaign year's state machine (year.c), pure: the fixture campaign,
 * orders held in memory, fixed dice and a clock that is only a number. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/campaign_fixture.h"
#include "dbm/orders.h"
#include "dbm/rules.h"
#include "base/util.h"
#include "dbm/year.h"

#define T0 1800000000LL
#define HOUR 3600LL
#define BURGUNDY 0
#define FRANCE 1
#define DIJON 0
#define PARIS 1
#define FLANDERS 2

struct stored_orders {
	int player, year, phase;
	char *text;
};

/* Everything one test plays with; the fake io reads and writes here. */
struct world {
	struct campaign *c;
	struct year_state st;
	struct dice_fixed dice;
	int values[64];
	size_t n_values;
	struct event_log log;
	struct stored_orders orders[64];
	size_t n_orders;
	json_t *mails;      /* every mail request of every run */
	char checkpoints[32][64];
	size_t n_checkpoints;
	int new_years[8], revealed[8];
	size_t n_new_years, n_revealed;
	size_t revealed_at[8]; /* the log's length when each year was revealed */
	struct year_io io;
};

static char *fake_load(void *ctx, int player, int year, int phase)
{
	struct world *w = ctx;
	for (size_t i = 0; i < w->n_orders; i++)
		if (w->orders[i].player == player && w->orders[i].year == year &&
		    w->orders[i].phase == phase)
			return xstrdup(w->orders[i].text);
	return NULL;
}

static void fake_save(void *ctx, int player, int year, int phase, const char *text)
{
	struct world *w = ctx;
	for (size_t i = 0; i < w->n_orders; i++)
		if (w->orders[i].player == player && w->orders[i].year == year &&
		    w->orders[i].phase == phase) {
			free(w->orders[i].text);
			w->orders[i].text = xstrdup(text);
			return;
		}
	assert_true(w->n_orders < 64);
	w->orders[w->n_orders++] = (struct stored_orders){player, year, phase, xstrdup(text)};
}

static json_t *fake_events(void *ctx, int year)
{
	struct world *w = ctx;
	json_t *arr = json_array();
	for (size_t i = 0; i < w->log.count; i++)
		if (json_integer_value(json_object_get(w->log.events[i], "year")) == year)
			json_array_append(arr, w->log.events[i]);
	return arr;
}

static void fake_checkpoint(void *ctx, const char *step)
{
	struct world *w = ctx;
	assert_true(w->n_checkpoints < 32);
	snprintf(w->checkpoints[w->n_checkpoints++], 64, "%s", step);
}

static const char *fake_new_year(void *ctx, int year)
{
	struct world *w = ctx;
	w->new_years[w->n_new_years++] = year;
	return "c0ffee";
}

static void fake_reveal(void *ctx, int year)
{
	struct world *w = ctx;
	w->revealed_at[w->n_revealed] = w->log.count;
	w->revealed[w->n_revealed++] = year;
}

/* The player sends orders for the current year and phase (as the engine
 * would store them: merged into the pending ones). */
static void send(struct world *w, int player, const char *text)
{
	struct order_set pending, incoming, merged;
	char *old = fake_load(w, player, w->c->year, w->c->phase);
	if (old)
		orders_parse(old, w->c, player, &pending);
	else
		orders_set_init(&pending);
	free(old);
	orders_parse(text, w->c, player, &incoming);
	orders_validate(&incoming, w->c, player);
	assert_int_equal(incoming.errors, 0);
	orders_merge(&pending, &incoming, &merged);
	char *canon = orders_format_pending(&merged, w->c);
	fake_save(w, player, w->c->year, w->c->phase, canon);
	free(canon);
	orders_set_free(&pending);
	orders_set_free(&incoming);
	orders_set_free(&merged);
}

static struct world *world_new(const int *dice, size_t n)
{
	struct world *w = xcalloc(1, sizeof *w);
	w->c = fixture_campaign();
	year_state_init(&w->st);
	memcpy(w->values, dice, n * sizeof *dice);
	w->n_values = n;
	dice_fixed_init(&w->dice, w->values, n);
	event_log_init(&w->log);
	event_log_set_time(&w->log, w->c->year, w->c->phase);
	w->mails = json_array();
	w->io = (struct year_io){w, fake_load, fake_save, fake_events, fake_checkpoint,
				 fake_new_year, fake_reveal, NULL, NULL};
	return w;
}

static void world_free(struct world *w)
{
	assert_int_equal(dice_fixed_left(&w->dice), 0);
	campaign_free(w->c);
	year_state_free(&w->st);
	event_log_free(&w->log);
	for (size_t i = 0; i < w->n_orders; i++)
		free(w->orders[i].text);
	json_decref(w->mails);
	free(w);
}

/* One run of the machine at `now`: fn(run) then the mails are kept. */
#define RUN(w, now, stmt)                                                        \
	do {                                                                     \
		struct year_run r_;                                              \
		year_run_init(&r_, (w)->c, &(w)->st, &(w)->dice.base, &(w)->log, \
			      (now), &(w)->io);                                  \
		struct year_run *r = &r_;                                        \
		stmt;                                                            \
		json_array_extend((w)->mails, r_.mails);                         \
		year_run_free(&r_);                                              \
	} while (0)

static size_t mails_of(const struct world *w, const char *tpl, const char *to)
{
	size_t n = 0, i;
	json_t *m;
	json_array_foreach(w->mails, i, m) {
		if (strcmp(json_string_value(json_object_get(m, "template")), tpl) != 0)
			continue;
		const json_t *rcpt = json_object_get(m, "to");
		if (!to)
			n++;
		else if (json_is_string(rcpt) && strcmp(to, "all") == 0)
			n++;
		else if (json_is_array(rcpt) && json_array_size(rcpt) &&
			 strcmp(json_string_value(json_array_get(rcpt, 0)), to) == 0)
			n++;
	}
	return n;
}

static const json_t *last_event(const struct world *w, const char *kind)
{
	return event_log_last(&w->log, kind);
}

/* The place the latest announce-sequence mail to `to` gives him (0: none);
 * *of: how many places. */
static int place_told(const struct world *w, const char *to, int *of)
{
	int place = 0;
	size_t i;
	json_t *m;
	json_array_foreach(w->mails, i, m) {
		const json_t *rcpt = json_object_get(m, "to");
		if (strcmp(json_string_value(json_object_get(m, "template")), "announce-sequence") ||
		    !json_is_array(rcpt) || json_array_size(rcpt) != 1 ||
		    strcmp(json_string_value(json_array_get(rcpt, 0)), to))
			continue;
		const json_t *d = json_object_get(m, "data");
		place = (int)json_integer_value(json_object_get(d, "your_place"));
		*of = (int)json_integer_value(json_object_get(d, "places"));
	}
	return place;
}

/* Where the first event of `kind` is in the log (the log's length if none). */
static size_t event_index(const struct world *w, const char *kind)
{
	for (size_t i = 0; i < w->log.count; i++)
		if (!strcmp(json_string_value(json_object_get(w->log.events[i], "kind")), kind))
			return i;
	return w->log.count;
}

/* Burgundy plays first: the sequence is one die, 2 keeps the order. */
static void test_turn_deadline_reminders_and_default(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	RUN(w, T0, assert_int_equal(year_start(r, why, sizeof why), 0));
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_int_equal(w->st.sequence_len, 2);
	assert_int_equal(w->st.sequence[0], BURGUNDY);
	assert_int_equal(w->st.deadline, T0 + 72 * HOUR);
	assert_int_equal(w->c->phase, PHASE_CAMPAIGN);
	/* each player is told his place, the organiser gets the list */
	int of = 0;
	assert_int_equal(mails_of(w, "announce-sequence", "all"), 0);
	assert_int_equal(mails_of(w, "announce-sequence", NULL), 3);
	assert_int_equal(place_told(w, "burgundy", &of), 1);
	assert_int_equal(of, 2);
	assert_int_equal(place_told(w, "france", &of), 2);
	assert_int_equal(mails_of(w, "your-turn", "burgundy"), 1);
	assert_int_equal(w->new_years[0], 1450);

	/* nothing before 24 hours are left; then the 24 h reminder, once */
	RUN(w, T0 + 47 * HOUR, year_advance(r));
	assert_int_equal(mails_of(w, "reminder", NULL), 0);
	RUN(w, T0 + 49 * HOUR, year_advance(r));
	RUN(w, T0 + 50 * HOUR, year_advance(r));
	assert_int_equal(mails_of(w, "reminder", "burgundy"), 1);
	RUN(w, T0 + 71 * HOUR, year_advance(r));
	assert_int_equal(mails_of(w, "reminder", "burgundy"), 2);
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_int_equal(w->st.turn, 0);

	/* the deadline: no order, so NO MOVE; France's turn begins */
	RUN(w, T0 + 72 * HOUR, year_advance(r));
	assert_string_equal(json_string_value(json_object_get(last_event(w, "default_applied"),
								 "player")),
			    "burgundy");
	assert_int_equal(w->st.turn, 1);
	assert_int_equal(w->st.deadline, T0 + 144 * HOUR);
	assert_int_equal(mails_of(w, "turn-report", "all"), 1);
	assert_int_equal(mails_of(w, "your-turn", "france"), 1);
	assert_int_equal(w->n_checkpoints, 1);
	assert_string_equal(w->checkpoints[0], "turn-burgundy");
	world_free(w);
}

/* Orders sent before the start count, and a turn whose orders are in goes
 * on at once: Burgundy invades Paris, France's standing order gives battle
 * where its army stands; both report the same result. */
static void test_advance_orders_battle_agreed(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	send(w, BURGUNDY, "INVADE Paris");
	send(w, FRANCE, "IF INVADED ANY BATTLE");
	RUN(w, T0, assert_int_equal(year_start(r, why, sizeof why), 0));
	assert_int_equal(w->st.step, YEAR_BATTLE);
	assert_int_equal(w->c->players[BURGUNDY].location, PARIS);
	assert_int_equal(mails_of(w, "battle", "all"), 1);
	assert_int_equal(w->st.deadline, T0 + 336 * HOUR);

	const char *report = "BATTLE AT Paris\nWINNER france\n"
			     "DEMORALISED burgundy Kn(S) general\nDESTROYED burgundy 2 Kn(S)\n";
	struct order_set set;
	orders_parse(report, w->c, BURGUNDY, &set);
	RUN(w, T0 + HOUR, assert_int_equal(year_battle_report(r, BURGUNDY, false, &set, why,
							      sizeof why), 0));
	orders_set_free(&set);
	assert_int_equal(w->st.step, YEAR_BATTLE); /* one report is not enough */

	/* the lines in another order are the same report */
	orders_parse("BATTLE AT Paris\nDESTROYED burgundy 2 Kn(S)\nWINNER france\n"
		     "DEMORALISED burgundy Kn(S) general\n",
		     w->c, FRANCE, &set);
	RUN(w, T0 + 2 * HOUR, assert_int_equal(year_battle_report(r, FRANCE, false, &set, why,
								  sizeof why), 0));
	orders_set_free(&set);
	/* Burgundy's value: its C-in-C demoralised leaves one sub-command, 66;
	 * France 200: (200 - 66) x 480 / 480 = 134. The loser gets none of its
	 * 2 routers back (2 / 6 rounds down): 2 x 12 AP to the reserve, and it
	 * retreats one stage home to Dijon. */
	assert_int_equal(w->c->players[FRANCE].battle_prestige, 134);
	assert_int_equal(w->c->players[BURGUNDY].battle_prestige, 0);
	assert_int_equal(player_field_half_ap(&w->c->players[BURGUNDY]), HALF_AP(480 - 24));
	assert_int_equal(player_reserve_half_ap(&w->c->players[BURGUNDY]), HALF_AP(24));
	assert_int_equal(w->c->players[BURGUNDY].location, DIJON);
	assert_int_equal(w->c->provinces[PARIS].owner, FRANCE);
	/* the turn is over: France's turn */
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_int_equal(w->st.turn, 1);
	assert_int_equal(mails_of(w, "turn-report", "all"), 1);
	world_free(w);
}

/* Two reports that differ go to the organiser, whose decision applies. */
static void test_disputed_battle(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	send(w, BURGUNDY, "INVADE Paris");
	send(w, FRANCE, "IF INVADED Paris BATTLE");
	RUN(w, T0, year_start(r, why, sizeof why));
	struct order_set a, b;
	orders_parse("BATTLE AT Paris\nWINNER france\n", w->c, BURGUNDY, &a);
	orders_parse("BATTLE AT Paris\nWINNER france\nDESTROYED burgundy 4 Kn(S)\n", w->c, FRANCE,
		     &b);
	RUN(w, T0 + HOUR, year_battle_report(r, BURGUNDY, false, &a, why, sizeof why));
	RUN(w, T0 + HOUR, year_battle_report(r, FRANCE, false, &b, why, sizeof why));
	assert_int_equal(w->st.step, YEAR_BATTLE);
	assert_true(json_is_true(json_object_get(w->st.pending, "disputed")));
	assert_int_equal(w->st.deadline, 0);
	assert_int_equal(mails_of(w, "battle-disputed", "burgundy"), 1);
	assert_int_equal(mails_of(w, "battle-disputed", "france"), 1);
	assert_int_equal(mails_of(w, "battle-disputed", NULL), 3); /* and the organiser */
	/* a player cannot settle it now; the organiser can */
	RUN(w, T0 + 2 * HOUR,
	    assert_int_equal(year_battle_report(r, FRANCE, false, &b, why, sizeof why), -1));
	assert_non_null(strstr(why, "organiser"));
	RUN(w, T0 + 3 * HOUR,
	    assert_int_equal(year_battle_report(r, NO_INDEX, true, &b, why, sizeof why), 0));
	assert_int_equal(player_reserve_half_ap(&w->c->players[BURGUNDY]), HALF_AP(48));
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_string_equal(json_string_value(json_object_get(last_event(w, "battle_result"),
								 "decided")),
			    "organiser");
	orders_set_free(&a);
	orders_set_free(&b);
	world_free(w);
}

/* A report is checked in full on arrival: one naming more troops than the
 * army has, a winner who also concedes, no result at all, or a line in
 * error is refused at once and not recorded. Two reports that mean the same
 * ("CONCEDED BY burgundy" alone, and with "WINNER france") agree. */
static int report_of(struct world *w, int player, int64_t at, const char *text, char *why,
		     size_t why_size)
{
	struct order_set set;
	orders_parse(text, w->c, player, &set);
	orders_validate(&set, w->c, player);
	int rc = -2;
	RUN(w, at, rc = year_battle_report(r, player, false, &set, why, why_size));
	orders_set_free(&set);
	return rc;
}

static void test_battle_report_checked_on_arrival(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[512];
	send(w, BURGUNDY, "INVADE Paris");
	send(w, FRANCE, "IF INVADED Paris BATTLE");
	RUN(w, T0, year_start(r, why, sizeof why));
	assert_int_equal(w->st.step, YEAR_BATTLE);

	assert_int_equal(report_of(w, BURGUNDY, T0 + HOUR,
				   "BATTLE AT Paris\nWINNER france\nDESTROYED burgundy 99 Kn(S)\n",
				   why, sizeof why), -1);
	assert_non_null(strstr(why, "the report names 99 Kn(S) of Burgundy's army destroyed, fled or "
				   "withdrawn, but it had 20 at the battle"));
	assert_non_null(strstr(why, "not recorded"));
	assert_int_equal(report_of(w, BURGUNDY, T0 + HOUR,
				   "BATTLE AT Paris\nWINNER france\nCONCEDED BY france\n", why,
				   sizeof why), -1);
	assert_non_null(strstr(why, "also CONCEDED BY"));
	assert_int_equal(report_of(w, BURGUNDY, T0 + HOUR,
				   "BATTLE AT Paris\nDESTROYED burgundy 1 Kn(S)\n", why, sizeof why),
			 -1);
	assert_non_null(strstr(why, "no result"));
	assert_int_equal(report_of(w, BURGUNDY, T0 + HOUR,
				   "BATTLE AT Paris\nWINNER france\nDESTROYED burgundy 1 Knigts\n",
				   why, sizeof why), -1);
	assert_non_null(strstr(why, "in error"));
	/* nothing of these was recorded */
	assert_int_equal(json_object_size(json_object_get(w->st.pending, "reports")), 0);

	assert_int_equal(report_of(w, BURGUNDY, T0 + 2 * HOUR,
				   "BATTLE AT Paris\nCONCEDED BY burgundy\n", why, sizeof why), 0);
	assert_int_equal(report_of(w, FRANCE, T0 + 3 * HOUR,
				   "battle at paris\nconceded by burgundy\nwinner france\n", why,
				   sizeof why), 0);
	assert_int_equal(mails_of(w, "battle-disputed", NULL), 0);
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_string_equal(json_string_value(json_object_get(last_event(w, "battle_result"),
								 "decided")),
			    "both sides");
	world_free(w);
}

/* Reports compared by meaning: a comma list and the same elements on
 * separate lines (in any order, split differently) are one result, and so
 * are a killed general with or without his DESTROYED line. What is recorded
 * is spelt out with the AP of each element. A real difference goes to the
 * organiser with both reports side by side, the differing rows marked. */
static void test_battle_reports_by_meaning(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[512];
	send(w, BURGUNDY, "INVADE Paris");
	send(w, FRANCE, "IF INVADED Paris BATTLE");
	RUN(w, T0, year_start(r, why, sizeof why));
	/* the battle mail lists both armies by label and number */
	size_t i;
	json_t *m, *battle = NULL;
	json_array_foreach(w->mails, i, m)
		if (strcmp(json_string_value(json_object_get(m, "template")), "battle") == 0)
			battle = json_object_get(m, "data");
	assert_non_null(battle);
	const json_t *forces = json_object_get(battle, "forces");
	assert_int_equal(json_array_size(forces), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(forces, 0),
							      "elements")),
			    "2 Kn(S) general, 20 Kn(S), 30 Bw(O), 20 Ps(I)");
	assert_string_equal(json_string_value(json_object_get(json_array_get(forces, 1),
							      "elements")),
			    "2 Cv(O) general, 20 Kn(F), 40 Sp(I), 30 Bw(I), 1 Art(I)");

	struct order_set a, b;
	orders_parse("BATTLE AT Paris\nCONCEDED BY burgundy\n"
		     "DESTROYED burgundy 2 Kn(S), 3 Bw(O)\nFLED burgundy 1 Kn(S)\n"
		     "GENERAL KILLED burgundy Kn(S) general\nDESTROYED france 1 Kn(F)\n",
		     w->c, BURGUNDY, &a);
	char *as = NULL;
	RUN(w, T0 + HOUR, as = year_battle_report_text(r, &a));
	assert_non_null(as);
	assert_non_null(strstr(as, "Winner: France (conceded by Burgundy)"));
	assert_non_null(strstr(as, "Burgundy (burgundy), the attacker:"));
	assert_non_null(strstr(as, "destroyed        1 Kn(S) general (30 AP), 2 Kn(S) (24 AP), "
				   "3 Bw(O) (15 AP)"));
	assert_non_null(strstr(as, "fled             1 Kn(S) (12 AP)"));
	assert_non_null(strstr(as, "generals killed  1 Kn(S) general (30 AP)"));
	assert_non_null(strstr(as, "destroyed        1 Kn(F) (9 AP)"));
	assert_non_null(strstr(as, "DESTROYED burgundy 2 Kn(S)\n"));
	free(as);
	RUN(w, T0 + HOUR,
	    assert_int_equal(year_battle_report(r, BURGUNDY, false, &a, why, sizeof why), 0));
	orders_set_free(&a);
	orders_parse("BATTLE AT Paris\nWINNER france\nDESTROYED france 1 Kn(F)\n"
		     "DESTROYED burgundy 1 Bw(O), 1 Kn(S)\nCONCEDED BY burgundy\n"
		     "DESTROYED burgundy 1 Kn(S), 2 Bw(O), 1 Kn(S) general\n"
		     "FLED burgundy 1 Kn(S)\nGENERAL KILLED burgundy Kn(S) general\n",
		     w->c, FRANCE, &b);
	RUN(w, T0 + 2 * HOUR,
	    assert_int_equal(year_battle_report(r, FRANCE, false, &b, why, sizeof why), 0));
	orders_set_free(&b);
	assert_int_equal(mails_of(w, "battle-disputed", NULL), 0);
	assert_int_equal(w->st.step, YEAR_TURN);
	world_free(w);

	/* a real difference: both reports side by side */
	w = world_new((const int[]){2}, 1);
	send(w, BURGUNDY, "INVADE Paris");
	send(w, FRANCE, "IF INVADED Paris BATTLE");
	RUN(w, T0, year_start(r, why, sizeof why));
	orders_parse("BATTLE AT Paris\nWINNER france\nDESTROYED burgundy 2 Kn(S)\n", w->c,
		     BURGUNDY, &a);
	orders_parse("BATTLE AT Paris\nWINNER france\nDESTROYED burgundy 4 Kn(S)\n"
		     "DEMORALISED burgundy Kn(S) general\n", w->c, FRANCE, &b);
	RUN(w, T0 + HOUR, year_battle_report(r, BURGUNDY, false, &a, why, sizeof why));
	RUN(w, T0 + HOUR, year_battle_report(r, FRANCE, false, &b, why, sizeof why));
	orders_set_free(&a);
	orders_set_free(&b);
	assert_int_equal(mails_of(w, "battle-disputed", NULL), 3);
	const char *cmp = NULL;
	json_array_foreach(w->mails, i, m)
		if (strcmp(json_string_value(json_object_get(m, "template")), "battle-disputed") == 0)
			cmp = json_string_value(json_object_get(json_object_get(m, "data"),
								"comparison"));
	assert_non_null(cmp);
	assert_non_null(strstr(cmp, "Burgundy's report"));
	assert_non_null(strstr(cmp, "France's report"));
	assert_non_null(strstr(cmp, "  winner "));
	assert_non_null(strstr(cmp, "| France "));
	assert_non_null(strstr(cmp, "* Burgundy destroyed   | 2 Kn(S) (24 AP)"));
	assert_non_null(strstr(cmp, "| 4 Kn(S) (48 AP)\n"));
	assert_non_null(strstr(cmp, "* Burgundy demoralised | none"));
	assert_string_equal(json_string_value(json_object_get(last_event(w, "battle_disputed"),
							      "reason")),
			    "the two reports differ in: Burgundy destroyed, Burgundy demoralised");
	world_free(w);

	/* the players' rounding of returning routers is part of the meaning:
	 * 3 French routers, 1 returns (a third of Kn(F)'s, two thirds of
	 * Sp(I)'s share); written as one line or two it is the same report,
	 * rounded the other way it is a real difference */
	w = world_new((const int[]){2}, 1);
	send(w, BURGUNDY, "INVADE Paris");
	send(w, FRANCE, "IF INVADED Paris BATTLE");
	RUN(w, T0, year_start(r, why, sizeof why));
	orders_parse("BATTLE AT Paris\nWINNER france\nFLED france 1 Kn(F), 2 Sp(I)\n"
		     "RETURNED france 1 Sp(I)\n", w->c, BURGUNDY, &a);
	RUN(w, T0 + HOUR, as = year_battle_report_text(r, &a));
	assert_non_null(as);
	assert_non_null(strstr(as, "RETURNED france 1 Sp(I)\n"));
	assert_non_null(strstr(as, "routers returned 1 Sp(I) ("));
	free(as);
	orders_parse("BATTLE AT Paris\nWINNER france\nFLED france 1 Kn(F), 2 Sp(I)\n"
		     "RETURNED france 0 Kn(F)\nRETURNED france 1 Sp(I)\n", w->c, FRANCE, &b);
	char *bs = NULL;
	RUN(w, T0 + HOUR, bs = year_battle_report_text(r, &b));
	assert_non_null(bs);
	RUN(w, T0 + HOUR, as = year_battle_report_text(r, &a));
	assert_string_equal(as, bs);
	free(as);
	free(bs);
	orders_set_free(&b);
	orders_parse("BATTLE AT Paris\nWINNER france\nFLED france 1 Kn(F), 2 Sp(I)\n"
		     "RETURNED france 1 Kn(F)\n", w->c, FRANCE, &b);
	RUN(w, T0 + HOUR,
	    assert_int_equal(year_battle_report(r, BURGUNDY, false, &a, why, sizeof why), 0));
	RUN(w, T0 + HOUR,
	    assert_int_equal(year_battle_report(r, FRANCE, false, &b, why, sizeof why), 0));
	orders_set_free(&a);
	orders_set_free(&b);
	assert_int_equal(mails_of(w, "battle-disputed", NULL), 3);
	assert_string_equal(json_string_value(json_object_get(last_event(w, "battle_disputed"),
							      "reason")),
			    "the two reports differ in: France routers returned");
	world_free(w);
}

/* The recruitment a reply accepted is carried out; when the campaign changed
 * since (here a province lost), the player is told: when the phase begins
 * for orders sent in advance, at its end for orders sent during it. */
static const json_t *last_mail_data(const struct world *w, const char *tpl, const char *to)
{
	const json_t *found = NULL;
	size_t i;
	json_t *m;
	json_array_foreach(w->mails, i, m) {
		const json_t *rcpt = json_object_get(m, "to");
		if (strcmp(json_string_value(json_object_get(m, "template")), tpl) == 0 &&
		    json_is_array(rcpt) &&
		    strcmp(json_string_value(json_array_get(rcpt, 0)), to) == 0)
			found = json_object_get(m, "data");
	}
	return found;
}

static void test_recruitment_state_changed(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2, 2}, 2); /* 1450's and 1451's sequence */
	char why[256];
	struct player *b = &w->c->players[BURGUNDY];
	b->field.count[1] = 17; /* 3 Kn(S) at 12 AP in the reserve: 444 AP of 480 */
	b->reserve.count[1] = 3;
	b->field.count[3] = 19; /* and a Ps(I) */
	b->reserve.count[3] = 1;
	b->cap_half_ap = HALF_AP(480);
	w->c->provinces[FLANDERS].owner = BURGUNDY; /* two provinces: 20 AP */
	send(w, BURGUNDY, "NO MOVE\nRECRUIT 1 Kn(S)");
	send(w, FRANCE, "NO MOVE");
	w->c->provinces[FLANDERS].owner = NO_INDEX; /* lost before the recruitment: 10 AP */
	RUN(w, T0, year_start(r, why, sizeof why));
	assert_int_equal(w->st.step, YEAR_RECRUITMENT);
	const json_t *d = last_mail_data(w, "recruitment", "burgundy");
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "has_recruitment_refused")));
	const json_t *refused = json_array_get(json_object_get(d, "recruitment_refused"), 0);
	assert_string_equal(json_string_value(json_object_get(refused, "order")),
			    "RECRUIT 1 Kn(S)");
	assert_non_null(strstr(json_string_value(json_object_get(refused, "reason")),
			       "recruitment allowance exceeded: 12 AP asked, 10 AP allowed"));
	assert_int_equal(mails_of(w, "recruitment", "france"), 1);
	assert_false(json_is_true(json_object_get(last_mail_data(w, "recruitment", "france"),
						  "has_recruitment_refused")));

	/* sent during the phase and accepted; Flanders is lost before its end */
	w->c->provinces[FLANDERS].owner = BURGUNDY;
	send(w, BURGUNDY, "RECRUIT 1 Kn(S)\nRECRUIT 1 Ps(I)");
	w->c->provinces[FLANDERS].owner = NO_INDEX;
	RUN(w, w->st.deadline, year_advance(r));
	assert_int_equal(w->c->phase, PHASE_CAMPAIGN);
	assert_int_equal(mails_of(w, "order-refused", "burgundy"), 1);
	d = last_mail_data(w, "order-refused", "burgundy");
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "order")), "RECRUIT 1 Kn(S)");
	assert_non_null(strstr(json_string_value(json_object_get(d, "reason")),
			       "12 AP asked, 10 AP allowed"));
	assert_non_null(strstr(json_string_value(json_object_get(d, "instead")),
			       "the rest of your recruitment is carried out as acknowledged"));
	/* the rest was carried out as acknowledged */
	assert_int_equal(b->field.count[1], 17);
	assert_int_equal(b->field.count[3], 20);
	assert_int_equal(mails_of(w, "order-refused", "france"), 0);
	world_free(w);
}

/* The invaded player does not answer: at the decision's deadline the city
 * stands a siege with the army inside (6 needed); a 3 fails and costs the
 * besieger 40 AP. */
static void test_defence_default_siege(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2, 3}, 2);
	char why[256];
	send(w, BURGUNDY, "INVADE Paris");
	RUN(w, T0, year_start(r, why, sizeof why));
	assert_int_equal(w->st.step, YEAR_DECISION);
	assert_int_equal(w->st.deadline, T0 + 24 * HOUR);
	assert_int_equal(mails_of(w, "decision", "france"), 1);
	char name[64];
	assert_string_equal(year_step_name(&w->st, w->c, name, sizeof name), "decision-france");
	RUN(w, T0 + 23 * HOUR, year_advance(r));
	assert_int_equal(w->st.step, YEAR_DECISION);
	RUN(w, T0 + 24 * HOUR, year_advance(r));
	const json_t *ev = last_event(w, "decision");
	assert_string_equal(json_string_value(json_object_get(ev, "answer")), "siege");
	assert_true(json_is_true(json_object_get(ev, "by_default")));
	ev = last_event(w, "siege_round");
	assert_int_equal(json_integer_value(json_object_get(ev, "needed")), 6);
	assert_false(json_is_true(json_object_get(ev, "captured")));
	assert_int_equal(player_field_half_ap(&w->c->players[BURGUNDY]), HALF_AP(440));
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_int_equal(w->st.turn, 1);
	world_free(w);
}

/* Dijon to Flanders passes Paris, where France's army stands: France is
 * asked for passage (and supply at Flanders); silence denies both, and an
 * army may not force its way past a field army. */
static void test_permission_denied_by_silence(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	send(w, BURGUNDY, "INVADE Flanders VIA Paris");
	RUN(w, T0, year_start(r, why, sizeof why));
	assert_int_equal(w->st.step, YEAR_DECISION);
	assert_string_equal(json_string_value(json_object_get(w->st.pending, "kind")), "permission");
	assert_int_equal(json_array_size(json_object_get(w->st.pending, "passage")), 1);
	assert_int_equal(json_array_size(json_object_get(w->st.pending, "supply")), 1);
	assert_int_equal(mails_of(w, "decision", "france"), 1);
	RUN(w, T0 + 24 * HOUR, year_advance(r));
	const json_t *ev = last_event(w, "order_refused");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "player")), "burgundy");
	assert_int_equal(w->c->players[BURGUNDY].location, DIJON);
	assert_int_equal(w->st.turn, 1);
	world_free(w);
}

/* A standing ALLOW answers before anyone is asked: the move goes at once,
 * the neutral city is besieged (6 needed, a 6 takes it). */
static void test_permission_by_standing_order(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2, 6}, 2);
	char why[256];
	send(w, BURGUNDY, "INVADE Flanders VIA Paris");
	send(w, FRANCE, "ALLOW PASSAGE burgundy\nALLOW SUPPLY ALL");
	RUN(w, T0, year_start(r, why, sizeof why));
	assert_int_equal(mails_of(w, "decision", NULL), 0);
	assert_int_equal(w->c->players[BURGUNDY].location, FLANDERS);
	assert_int_equal(w->c->provinces[FLANDERS].owner, BURGUNDY);
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_int_equal(w->st.turn, 1);
	world_free(w);
}

/* Both turns, the recruitment (a player with nothing in reserve has nothing
 * to send), the year's end (the first year rolls no end die), the diary and
 * the next year's sequence. */
static void test_recruitment_and_year_end(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2, 3, 1}, 3);
	char why[256];
	send(w, BURGUNDY, "INVADE Paris");
	RUN(w, T0, year_start(r, why, sizeof why));
	RUN(w, T0 + 24 * HOUR, year_advance(r)); /* siege by default: fails, -40 AP */
	send(w, FRANCE, "NO MOVE");
	RUN(w, T0 + 25 * HOUR, year_advance(r));
	assert_int_equal(w->st.step, YEAR_RECRUITMENT);
	assert_int_equal(w->c->phase, PHASE_RECRUITMENT);
	assert_int_equal(w->st.deadline, T0 + 25 * HOUR + 72 * HOUR);
	assert_int_equal(mails_of(w, "recruitment", "burgundy"), 1);
	assert_int_equal(mails_of(w, "recruitment", "france"), 1);
	/* province prestige: one home province each, 6 */
	assert_int_equal(w->c->players[BURGUNDY].province_prestige, 6);
	json_t *aw = year_awaited(&w->st, w->c, &w->io);
	assert_int_equal(json_array_size(aw), 1); /* France has no reserve */
	assert_string_equal(json_string_value(json_array_get(aw, 0)), "burgundy");
	json_decref(aw);
	/* the 40 AP went as 1 Kn(S), 5 Bw(O), 2 Ps(I) (the default pick); one
	 * province allows 10 AP: 2 Bw(O) */
	const json_t *loss = json_object_get(last_event(w, "loss"), "elements");
	assert_int_equal(json_integer_value(json_object_get(loss, "Bw(O)")), 5);
	send(w, BURGUNDY, "RECRUIT 2 Bw(O)");
	RUN(w, T0 + 26 * HOUR, year_advance(r));
	assert_int_equal(player_field_half_ap(&w->c->players[BURGUNDY]), HALF_AP(440 + 10));
	/* the year ended, the diary went out, 1451 began with its own dice */
	assert_int_equal(w->n_revealed, 1);
	assert_int_equal(w->revealed[0], 1450);
	assert_int_equal(mails_of(w, "diary", "all"), 1);
	assert_int_equal(w->c->year, 1451);
	assert_int_equal(w->c->phase, PHASE_CAMPAIGN);
	assert_int_equal(w->new_years[1], 1451);
	assert_int_equal(w->st.sequence[0], FRANCE); /* a 1 swaps them */
	assert_int_equal(w->st.step, YEAR_TURN);
	assert_int_equal(mails_of(w, "announce-sequence", NULL), 6);
	int of = 0;
	assert_int_equal(place_told(w, "france", &of), 1);
	assert_int_equal(place_told(w, "burgundy", &of), 2);
	assert_int_equal(of, 2);
	/* 1.4: the sequence of 1451 was rolled at the end of 1450's
	 * recruitment phase, with 1450's dice, before they were revealed */
	const json_t *next = last_event(w, "next_sequence");
	assert_non_null(next);
	assert_int_equal(json_integer_value(json_object_get(next, "year_of_play")), 1451);
	assert_int_equal(json_integer_value(json_object_get(next, "year")), 1450);
	assert_string_equal(json_string_value(json_object_get(next, "phase")), "recruitment");
	const json_t *roll = last_event(w, "roll");
	assert_string_equal(json_string_value(json_object_get(roll, "purpose")),
			    "sequence of play for 1451 step 1 of 2 try 1 die 1");
	assert_int_equal(json_integer_value(json_object_get(roll, "year")), 1450);
	assert_true(event_index(w, "next_sequence") < w->revealed_at[0]);
	/* 1451 began with its own dice, none rolled yet: its sequence was
	 * ready */
	const json_t *seq = last_event(w, "sequence_of_play");
	assert_int_equal(json_integer_value(json_object_get(seq, "year")), 1451);
	assert_int_equal(json_integer_value(json_object_get(seq, "rolled_in")), 1450);
	assert_int_equal(w->st.sequence_year, 0);
	world_free(w);
}

/* A die's label in words, as the diary and the mails show it: nations by
 * name, and the sequence of play's draws by the place each one fills (the
 * shuffle fills the places from the last: the first of 2 draws, among 2,
 * decides who plays 2nd), also for a sequence rolled ahead for the next
 * year, where the label's draw number may exceed the nations it is drawn
 * among ("step 3 of 2"). */
static void test_roll_words(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	static const struct {
		const char *label, *words;
	} cases[] = {
		{"sequence of play step 1 of 2 try 1 die 1",
		 "the sequence of play, place 2 of 2 (drawn among 2), try 1, die 1"},
		{"sequence of play step 1 of 4 try 1 die 1",
		 "the sequence of play, place 4 of 4 (drawn among 4), try 1, die 1"},
		{"sequence of play step 3 of 2 try 2 die 1",
		 "the sequence of play, place 2 of 4 (drawn among 2), try 2, die 1"},
		{"sequence of play for 1451 step 3 of 2 try 1 die 1",
		 "the sequence of play of 1451, place 2 of 4 (drawn among 2), try 1, die 1"},
		{"sea storm burgundy stage 2", "sea storm, Burgundy, stage 2"},
		{"shipwreck france contingent stage 1",
		 "sea storm losses, France's contingent, stage 1"},
		{"siege burgundy Paris", "the siege of Paris by Burgundy"},
		{"supply france", "the supply of France"},
		{"forced passage france Calais", "the forced passage of France through Calais"},
		{"arrival burgundy contingent returning",
		 "the arrival of the contingent of Burgundy on its way home"},
		{"campaign end die 2", "the campaign-end roll, die 2"},
		/* what it cannot read stays as it is */
		{"sequence of play step 1 of 1 try 1 die 1",
		 "sequence of play step 1 of 1 try 1 die 1"},
		{"sea storm nobody stage 2", "sea storm nobody stage 2"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *words = year_roll_words(c, cases[i].label);
		assert_string_equal(words, cases[i].words);
		free(words);
	}
	campaign_free(c);
}

/* From the second year the end die is rolled; a 2 asks for a vote, and
 * silence ends the campaign. */
static void test_end_roll_and_vote(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2, 1, 1}, 3);
	char why[256];
	w->c->year = 1451;
	send(w, BURGUNDY, "NO MOVE");
	send(w, FRANCE, "NO MOVE");
	/* both turns in, nobody has a reserve to recruit from: straight to the
	 * end roll, 1 + 1 */
	RUN(w, T0, year_start(r, why, sizeof why));
	assert_int_equal(w->st.step, YEAR_VOTE);
	assert_int_equal(w->st.deadline, T0 + 24 * HOUR);
	assert_int_equal(mails_of(w, "vote", "all"), 1);
	send(w, BURGUNDY, "VOTE CONTINUE");
	RUN(w, T0 + HOUR, year_advance(r));
	assert_int_equal(w->st.step, YEAR_VOTE);
	RUN(w, T0 + 24 * HOUR, year_advance(r));
	assert_true(json_is_true(json_object_get(last_event(w, "vote"), "by_default")));
	assert_int_equal(w->st.step, YEAR_ENDED);
	assert_int_equal(w->c->phase, PHASE_ENDED);
	assert_int_equal(mails_of(w, "campaign-end", "all"), 1);
	assert_int_equal(mails_of(w, "diary", "all"), 1);
	world_free(w);
}

static void test_organiser_controls(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	RUN(w, T0, year_start(r, why, sizeof why));
	/* PROCESS names the step, or is refused */
	RUN(w, T0 + HOUR, assert_int_equal(year_process(r, "turn france", why, sizeof why), -1));
	assert_non_null(strstr(why, "turn-burgundy"));
	/* extending and shortening */
	RUN(w, T0 + HOUR, year_set_deadline(r, 10 * HOUR, true, why, sizeof why));
	assert_int_equal(w->st.deadline, T0 + 82 * HOUR);
	RUN(w, T0 + HOUR, year_set_deadline(r, 5 * HOUR, false, why, sizeof why));
	assert_int_equal(w->st.deadline, T0 + 6 * HOUR);
	/* a pause stops the clock: nothing passes, the time left is kept */
	RUN(w, T0 + 2 * HOUR, assert_int_equal(year_pause(r, why, sizeof why), 0));
	RUN(w, T0 + 100 * HOUR, year_advance(r));
	assert_int_equal(w->st.turn, 0);
	RUN(w, T0 + 100 * HOUR, assert_int_equal(year_resume(r, why, sizeof why), 0));
	assert_int_equal(w->st.deadline, T0 + 104 * HOUR);
	RUN(w, T0 + 101 * HOUR,
	    assert_int_equal(year_process(r, "Turn-Burgundy", why, sizeof why), 0));
	assert_int_equal(w->st.turn, 1);
	world_free(w);
}

/* Our downtime: the deadline is moved by the grace, and everyone told. */
static void test_grace(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	RUN(w, T0, year_start(r, why, sizeof why));
	RUN(w, T0 + 80 * HOUR, year_grant_grace(r, T0 + HOUR, "down"));
	assert_int_equal(w->st.deadline, T0 + 92 * HOUR);
	assert_int_equal(mails_of(w, "grace", "all"), 1);
	RUN(w, T0 + 91 * HOUR, year_advance(r));
	assert_int_equal(w->st.turn, 0);
	RUN(w, T0 + 92 * HOUR, year_advance(r));
	assert_int_equal(w->st.turn, 1);
	world_free(w);
}

static void test_state_round_trip(void **state)
{
	(void)state;
	struct world *w = world_new((const int[]){2}, 1);
	char why[256];
	send(w, BURGUNDY, "INVADE Paris");
	RUN(w, T0, year_start(r, why, sizeof why));
	json_t *doc = year_state_to_json(&w->st, w->c);
	struct year_state back;
	char *err = NULL;
	assert_int_equal(year_state_from_json(&back, doc, w->c, &err), 0);
	json_t *again = year_state_to_json(&back, w->c);
	assert_true(json_equal(doc, again));
	assert_int_equal(back.step, YEAR_DECISION);
	json_decref(again);
	year_state_free(&back);
	/* a sequence rolled ahead keeps the year it is for */
	json_object_set_new(doc, "sequence_year", json_integer(1451));
	assert_int_equal(year_state_from_json(&back, doc, w->c, &err), 0);
	assert_int_equal(back.sequence_year, 1451);
	again = year_state_to_json(&back, w->c);
	assert_true(json_equal(doc, again));
	json_decref(again);
	year_state_free(&back);
	json_object_set_new(doc, "step", json_string("dancing"));
	assert_int_equal(year_state_from_json(&back, doc, w->c, &err), -1);
	assert_non_null(strstr(err, "step"));
	free(err);
	json_decref(doc);
	world_free(w);
}

/* The organiser's actions in a turn's mail are sentences, never the
 * internal action names ("undo:", "battle-result:"). */
static void test_organiser_events_in_words(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	json_t *events = json_pack(
		"[{s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s}]", "kind",
		"organiser", "action", "undo", "detail", "France's turn was undone", "kind",
		"organiser", "action", "battle-result", "detail",
		"decided the result of the battle at Calais", "kind", "organiser", "action",
		"comment", "detail", "Rain all spring.", "kind", "organiser", "action", "pause");
	json_t *out = year_events_for_mail(c, events);
	static const char *const want[] = {
		"The organiser undid a step: France's turn was undone",
		"The organiser decided the result of the battle at Calais",
		"The organiser's note: Rain all spring.",
		"The organiser paused the campaign.",
	};
	assert_int_equal(json_array_size(out), 4);
	for (size_t i = 0; i < 4; i++) {
		const char *got =
			json_string_value(json_object_get(json_array_get(out, i), "organiser_sentence"));
		assert_non_null(got);
		assert_string_equal(got, want[i]);
		assert_null(strstr(got, "undo:"));
		assert_null(strstr(got, "battle-result"));
	}
	json_decref(out);
	json_decref(events);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turn_deadline_reminders_and_default),
		cmocka_unit_test(test_advance_orders_battle_agreed),
		cmocka_unit_test(test_disputed_battle),
		cmocka_unit_test(test_battle_report_checked_on_arrival),
		cmocka_unit_test(test_battle_reports_by_meaning),
		cmocka_unit_test(test_recruitment_state_changed),
		cmocka_unit_test(test_defence_default_siege),
		cmocka_unit_test(test_permission_denied_by_silence),
		cmocka_unit_test(test_permission_by_standing_order),
		cmocka_unit_test(test_recruitment_and_year_end),
		cmocka_unit_test(test_end_roll_and_vote),
		cmocka_unit_test(test_organiser_controls),
		cmocka_unit_test(test_grace),
		cmocka_unit_test(test_roll_words),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_organiser_events_in_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
