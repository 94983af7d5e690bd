/* Unit tests for scenarios: the parser (every section kind, errors with
 * their lines), resolving against a campaign, and small runs on the test
 * campaign (tests/data/campaign/minimal.campaign). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/campaign_file.h"
#include "engine/scenario.h"
#include "lib/campaign_fixture.h"
#include "base/util.h"

static struct scenario *parse(const char *text, struct diag_list *dl)
{
	memset(dl, 0, sizeof *dl);
	return scenario_parse(text, strlen(text), "t.scenario", dl);
}

/* The error (or warning) reported at `line` whose message contains `needle`. */
static bool has_diag(const struct diag_list *dl, int line, const char *needle)
{
	for (size_t i = 0; i < dl->count; i++)
		if (dl->items[i].line == line && strstr(dl->items[i].message, needle))
			return true;
	return false;
}

static void test_parse_sections(void **state)
{
	(void)state;
	struct diag_list dl;
	struct scenario *s = parse("# a comment\n"
				   "campaign = camp/minimal.campaign   # relative\n"
				   "dice = 1 2, 3\n"
				   "dice = 6\n"
				   "\n"
				   "[year 1450 campaign]\n"
				   "sequence = alpha, Betaland , gamma\n"
				   "[alpha]\n"
				   "INVADE Picardy\r\n"
				   "\n"
				   "[battle Picardy]   # the battle\n"
				   "WINNER alpha\n"
				   "[ year 1450 Recruitment ]\n"
				   "[beta]\n"
				   "RECRUIT 2 Knights\n",
				   &dl);
	assert_non_null(s);
	assert_int_equal(dl.count, 0);
	assert_string_equal(s->campaign_path, "camp/minimal.campaign");
	assert_int_equal(s->campaign_line, 2);
	assert_int_equal(s->dice_count, 4);
	assert_int_equal(s->dice[0], 1);
	assert_int_equal(s->dice[2], 3);
	assert_int_equal(s->dice[3], 6);
	assert_int_equal(s->dice_line, 3);
	assert_false(s->has_seed);
	assert_int_equal(s->phase_count, 2);

	const struct scenario_phase *ph = &s->phases[0];
	assert_int_equal(ph->year, 1450);
	assert_int_equal(ph->phase, PHASE_CAMPAIGN);
	assert_int_equal(ph->line, 6);
	assert_int_equal(ph->sequence_count, 3);
	assert_string_equal(ph->sequence_names[1], "Betaland");
	assert_int_equal(ph->sequence_line, 7);
	assert_int_equal(ph->section_count, 2);
	assert_int_equal(ph->sections[0].kind, SCENARIO_PLAYER);
	assert_string_equal(ph->sections[0].name, "alpha");
	assert_int_equal(ph->sections[0].line, 8);
	/* The body is kept line for line (the carriage return dropped). */
	assert_string_equal(ph->sections[0].body, "INVADE Picardy\n\n");
	assert_int_equal(ph->sections[1].kind, SCENARIO_BATTLE);
	assert_string_equal(ph->sections[1].name, "Picardy");
	assert_string_equal(ph->sections[1].body, "WINNER alpha\n");

	ph = &s->phases[1];
	assert_int_equal(ph->phase, PHASE_RECRUITMENT);
	assert_int_equal(ph->line, 13);
	assert_null(ph->sequence_names);
	assert_int_equal(ph->sections[0].line, 14);
	scenario_free(s);
	diag_free(&dl);
}

/* Every structural error at once, each on its line. */
static void test_parse_errors(void **state)
{
	(void)state;
	struct diag_list dl;
	struct scenario *s = parse("dice = 1 0 7 x\n"          /* 1 */
				   "colour = blue\n"            /* 2 */
				   "just words\n"               /* 3 */
				   "[alpha]\n"                  /* 4 */
				   "[year 1450 autumn]\n"       /* 5 */
				   "[year 1450 campaign\n"      /* 6 */
				   "[year 1450 campaign]\n"     /* 7 */
				   "sequence = alpha\n"         /* 8 */
				   "sequence = beta\n"          /* 9 */
				   "turns = 3\n"                /* 10 */
				   "[battle]\n"                 /* 11 */
				   "[year 1450 recruitment]\n"  /* 12 */
				   "sequence = alpha\n"         /* 13 */
				   "[battle Picardy]\n"         /* 14 */
				   "[]\n",                      /* 15 */
				   &dl);
	assert_null(s);
	assert_true(has_diag(&dl, 1, "\"0\" is not a die"));
	assert_true(has_diag(&dl, 1, "\"7\" is not a die"));
	assert_true(has_diag(&dl, 1, "\"x\" is not a die"));
	assert_true(has_diag(&dl, 2, "unknown key \"colour\""));
	assert_true(has_diag(&dl, 3, "expected \"key = value\""));
	assert_true(has_diag(&dl, 4, "[alpha] must follow a [year N campaign]"));
	assert_true(has_diag(&dl, 5, "write [year N campaign] or [year N recruitment]"));
	assert_true(has_diag(&dl, 6, "a section header ends with ]"));
	assert_true(has_diag(&dl, 9, "a second sequence for year 1450"));
	assert_true(has_diag(&dl, 10, "unknown key \"turns\""));
	assert_true(has_diag(&dl, 11, "write [battle PROVINCE]"));
	assert_true(has_diag(&dl, 13, "the sequence of play belongs to the campaign phase"));
	assert_true(has_diag(&dl, 14, "battles are fought in the campaign phase"));
	assert_true(has_diag(&dl, 15, "an empty section header"));
	assert_true(has_diag(&dl, 0, "no \"campaign = FILE\" line"));
	assert_int_equal(dl.errors, 15);
	diag_free(&dl);
}

static void test_parse_seed(void **state)
{
	(void)state;
	struct diag_list dl;
	struct scenario *s = parse("campaign = x\nseed = "
				   "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n",
				   &dl);
	assert_non_null(s);
	assert_true(s->has_seed);
	assert_int_equal(s->seed[31], 0x1f);
	scenario_free(s);
	diag_free(&dl);

	s = parse("campaign = x\nseed = 00ff\ndice = 1\nseed = "
		  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n",
		  &dl);
	assert_null(s);
	assert_true(has_diag(&dl, 2, "a seed is 64 hexadecimal digits"));
	assert_true(has_diag(&dl, 4, "a second \"seed =\" line"));
	diag_free(&dl);

	s = parse("campaign = x\ndice = 1\nseed = "
		  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n",
		  &dl);
	assert_null(s);
	assert_true(has_diag(&dl, 2, "either \"dice =\" values or a \"seed =\""));
	diag_free(&dl);
}

/* ------------------------------------------------ with the campaign */

struct world {
	struct campaign *c;
	struct scenario *s;
	struct diag_list dl;
	struct event_log log;
};

static int setup(void **state)
{
	struct world *w = xcalloc(1, sizeof *w);
	w->c = test_campaign_load("tests/data/campaign/minimal.campaign");
	event_log_init(&w->log);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	scenario_free(w->s);
	campaign_free(w->c);
	diag_free(&w->dl);
	event_log_free(&w->log);
	free(w);
	return 0;
}

/* Parses and resolves `text`; returns the number of resolve errors. */
static size_t load(struct world *w, const char *text)
{
	w->s = scenario_parse(text, strlen(text), "t.scenario", &w->dl);
	assert_non_null(w->s);
	return scenario_resolve(w->s, w->c, &w->dl);
}

static void test_resolve_names_and_orders(void **state)
{
	struct world *w = *state;
	size_t errors = load(w, "campaign = x\n"                 /* 1 */
				"[year 1450 campaign]\n"         /* 2 */
				"sequence = alpha, gama, alpha\n" /* 3 */
				"[alfa]\n"                       /* 4 */
				"[beta]\n"                       /* 5 */
				"RECRUIT 2 Knights\n"            /* 6 */
				"WINNER beta\n"                  /* 7 */
				"LOSSES FIRST Archers\n"         /* 8 */
				"IF INVADED ANY BATTLE\n"        /* 9 */
				"INVADE Flandres\n"              /* 10: checked when played */
				"[Betaland]\n"                   /* 11 */
				"[battle Picardie]\n"            /* 12 */
				"[battle Picardy]\n"             /* 13 */
				"DESTROYED beta 2 Knights\n"     /* 14 */
				"RECRUIT 1 Knights\n"            /* 15 */
				"BATTLE AT Anjou\n"              /* 16 */
				"[year 1450 recruitment]\n"      /* 17 */
				"[gamma]\n"                      /* 18 */
				"MOVE Kent\n"                    /* 19 */
				"VOTE CONTINUE\n");              /* 20 */
	assert_true(has_diag(&w->dl, 3, "unknown player \"gama\" (did you mean \"gamma\"?)"));
	assert_true(has_diag(&w->dl, 3, "alpha is twice in the sequence"));
	assert_true(has_diag(&w->dl, 4, "unknown player \"alfa\" (did you mean \"alpha\"?)"));
	assert_true(has_diag(&w->dl, 6, "RECRUIT belongs in a [year N recruitment] section"));
	assert_true(has_diag(&w->dl, 7, "belongs in a [battle PROVINCE] section"));
	assert_false(has_diag(&w->dl, 8, "")); /* LOSSES FIRST: applied, as in play */
	assert_true(has_diag(&w->dl, 11, "a second [Betaland] section in [year 1450 campaign] (the first is at line 5)"));
	assert_true(has_diag(&w->dl, 12, "unknown province \"Picardie\" (did you mean \"Picardy\"?)"));
	assert_true(has_diag(&w->dl, 13, "needs a WINNER, CONCEDED BY or WITHDRAWAL BY line"));
	assert_true(has_diag(&w->dl, 15, "RECRUIT is not a battle result"));
	assert_true(has_diag(&w->dl, 16, "a [battle] section holds one battle"));
	assert_true(has_diag(&w->dl, 19, "MOVE belongs in a [year N campaign] section"));
	assert_false(has_diag(&w->dl, 10, "")); /* INVADE: when it is played */
	assert_false(has_diag(&w->dl, 9, ""));
	assert_false(has_diag(&w->dl, 20, ""));
	assert_int_equal(errors, 11);
	/* The orders carry their scenario lines. */
	const struct scenario_section *beta = &w->s->phases[0].sections[1];
	assert_int_equal(beta->player, 1);
	assert_int_equal(beta->orders.orders[3].kind, ORDER_IF_INVADED);
	assert_int_equal(beta->orders.orders[3].line, 9);
	const struct scenario_section *battle = &w->s->phases[0].sections[4];
	assert_int_equal(battle->province, campaign_find_province(w->c, "Picardy"));
	assert_int_equal(battle->orders.orders[1].kind, ORDER_BATTLE_DESTROYED);
	assert_int_equal(battle->orders.orders[1].line, 14);
}

static void test_resolve_years(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[year 1450 campaign]\n"
				 "[year 1451 campaign]\n"
				 "[year 1451 recruitment]\n"
				 "[year 1452 campaign]\n"),
			 0);
	/* The left-out recruitment phases of 1450 and 1451 are added. */
	assert_int_equal(w->s->phase_count, 5);
	assert_int_equal(w->s->phases[1].year, 1450);
	assert_int_equal(w->s->phases[1].phase, PHASE_RECRUITMENT);
	assert_int_equal(w->s->phases[1].line, 0);
	assert_int_equal(w->s->phases[3].line, 4);
	scenario_free(w->s);
	w->s = NULL;

	assert_int_equal(load(w, "campaign = x\n"
				 "[year 1451 campaign]\n"
				 "[year 1451 recruitment]\n"
				 "[year 1451 campaign]\n"
				 "[year 1453 campaign]\n"),
			 3);
	assert_true(has_diag(&w->dl, 2, "starts with [year 1450 campaign]"));
	assert_true(has_diag(&w->dl, 4, "[year 1451 campaign] cannot follow [year 1451 recruitment]"));
	assert_true(has_diag(&w->dl, 5, "[year 1453 campaign] cannot follow"));
}

/* Alpha invades Picardy: Flanders - Artois - Picardy, two stages through
 * its own Artois: no dice. Beta gave no IF INVADED: it stands siege where
 * its army is (Anjou), so the city needs a 5 (not a 6); a 5 takes it. */
static void test_run_default_siege(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 5\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nINVADE Picardy VIA Artois\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	json_t *d = event_log_find(&w->log, "defence", 0);
	assert_string_equal(json_string_value(json_object_get(d, "choice")), "siege");
	json_t *r = event_log_find(&w->log, "siege_round", 0);
	assert_int_equal(json_integer_value(json_object_get(r, "needed")), 5);
	assert_true(json_is_true(json_object_get(r, "captured")));
	assert_int_equal(w->c->provinces[campaign_find_province(w->c, "Picardy")].owner, 0);
	assert_int_equal(event_log_count(&w->log, "roll"), 1);
	/* The campaign phase alone: no recruitment, no year end. */
	assert_int_equal(w->c->phase, PHASE_CAMPAIGN);
	assert_int_equal(event_log_count(&w->log, "province_prestige"), 0);
}

/* Gamma crosses Kent ~ Flanders with IN STORM HALT: a 1, then a 1 (25 AP
 * lost) and it halts in Kent, where the stormy stage set out from: it never
 * reaches Flanders, so there is no defence and no siege. */
static void test_run_storm_halt(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 1 1\n"
				 "[year 1450 campaign]\n"
				 "sequence = gamma, alpha, beta\n"
				 "[gamma]\nIN STORM HALT\nINVADE Flanders VIA Kent\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	assert_int_equal(w->c->players[2].location, campaign_find_province(w->c, "Kent"));
	json_t *m = event_log_last(&w->log, "move");
	assert_true(json_is_true(json_object_get(m, "halted")));
	json_t *loss = event_log_find(&w->log, "loss", 0);
	assert_int_equal(json_integer_value(json_object_get(loss, "due_half_ap")), HALF_AP(25));
	assert_int_equal(event_log_count(&w->log, "defence"), 0);
	assert_int_equal(event_log_count(&w->log, "siege_round"), 0);
	assert_int_equal(w->c->provinces[campaign_find_province(w->c, "Flanders")].owner, 0);
}

/* Beta moves up to give battle (Anjou - Maine - Normandy - Picardy: three
 * stages, a forced march) but the scenario has no report of that battle:
 * the run stops at the invasion's line. */
static void test_run_missing_battle(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[beta]\nIF INVADED ANY BATTLE\n"
				 "[alpha]\nINVADE Picardy VIA Artois\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_FAILED);
	assert_true(has_diag(&w->dl, 7, "the scenario needs a [battle Picardy] section"));
	json_t *fm = event_log_find(&w->log, "forced_march", 0);
	assert_string_equal(json_string_value(json_object_get(fm, "player")), "beta");
	assert_int_equal(w->c->players[1].location, campaign_find_province(w->c, "Picardy"));
}

/* The dice run out at the siege roll: the run stops there and nothing of
 * the step that rolled (beta's answer, the siege) is applied; alpha's
 * turn before it (the invasion) stands. */
static void test_run_dice_ran_out(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nINVADE Picardy VIA Artois\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_FAILED);
	assert_true(has_diag(&w->dl, 0, "the dice ran out: the roll for \"siege alpha Picardy\""));
	assert_true(has_diag(&w->dl, 0, "nothing of the step decision-beta is applied"));
	assert_int_equal(event_log_count(&w->log, "roll"), 0);
	assert_int_equal(event_log_count(&w->log, "siege_round"), 0);
	assert_int_equal(event_log_count(&w->log, "invasion"), 1);
	assert_int_equal(event_log_count(&w->log, "defence"), 0);
	assert_int_equal(w->c->sieges ? (int)w->c->siege_count : 0, 0);
}

/* Dice running out while the sequence of play is rolled: three players,
 * the 6 is kept for the first place (6 is a multiple of 3), the next step finds
 * no value. The rolls with no value must not make the sequence's rejection
 * sampling loop for ever (simulate.test checks it with four players). */
static void test_run_dice_ran_out_in_sequence(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 6\n[year 1450 campaign]\n"), 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_FAILED);
	assert_true(has_diag(&w->dl, 2, "the roll for \"sequence of play step 2 of 2 try 1 die 1\""));
	/* nothing of the start is applied: not even the first roll */
	assert_int_equal(event_log_count(&w->log, "roll"), 0);
	assert_int_equal(event_log_count(&w->log, "sequence_of_play"), 0);
}

/* A starting position: 1452, alpha's army before Picardy with a siege of
 * two failed rounds, fewer troops in the field and some in the reserve,
 * prestige, gamma its tributary. The siege goes on: 5 needed (beta's army
 * is not inside) less the two failed rounds = 3, and a 3 takes it. */
static void test_start_position(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 3\n"
				 "[start]\n"
				 "year = 1452\n"
				 "alpha at = Picardy\n"
				 "alpha field = 1 General, 1 Sub-general, 18 Knights, 44 Archers, 2 Skirmishers\n"
				 "alpha reserve = 10 Archers\n"
				 "alpha prestige = 120\n"
				 "gamma overlord = alpha\n"
				 "Picardy siege = alpha, 2\n"
				 "Maine owner = gamma\n"
				 "[year 1452 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nINVADE Picardy\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	assert_int_equal(w->c->year, 1452);
	json_t *r = event_log_find(&w->log, "siege_round", 0);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "year")), 1452);
	assert_int_equal(json_integer_value(json_object_get(r, "rounds_failed")), 2);
	assert_int_equal(json_integer_value(json_object_get(r, "needed")), 3);
	assert_true(json_is_true(json_object_get(r, "captured")));
	assert_int_equal(w->c->provinces[campaign_find_province(w->c, "Picardy")].owner, 0);
	assert_int_equal(w->c->provinces[campaign_find_province(w->c, "Maine")].owner, 2);
	assert_int_equal(w->c->players[0].battle_prestige, 120);
	assert_int_equal(w->c->players[0].reserve.count[3], 10);
	assert_int_equal(w->c->players[0].field.count[3], 44);
	assert_int_equal(w->c->players[2].overlord, 0);
}

/* A starting position play could not reach is an error at its line. */
static void test_start_errors(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\n"
				 "delta at = Picardy\n"
				 "alpha at = Atlantis\n"
				 "alpha reserve = 10 Archers\n"
				 "beta field = 2 Knights\n"
				 "Artois siege = gamma, 1\n"
				 "alpha colour = red\n"
				 "alpha overlord = beta\n"
				 "beta overlord = alpha\n"
				 "year = 1449\n"
				 "[year 1450 campaign]\n"),
			 10);
	assert_true(has_diag(&w->dl, 3, "\"delta\" is neither a player nor a province"));
	assert_true(has_diag(&w->dl, 4, "unknown province \"Atlantis\""));
	assert_true(has_diag(&w->dl, 2, "alpha: field and reserve are 520 AP, more than its army's 480 AP"));
	assert_true(has_diag(&w->dl, 2, "beta: the field army needs a general"));
	assert_true(has_diag(&w->dl, 2, "gamma besieges Artois: its field army must be there"));
	assert_true(has_diag(&w->dl, 8, "unknown \"alpha colour\""));
	assert_true(has_diag(&w->dl, 2, "alpha: the tributaries make a loop"));
	assert_true(has_diag(&w->dl, 2, "year 1449 is before the campaign's first year, 1450"));
}

/* Standing orders in a scenario are the daemon's: checked on receipt (an
 * IF INVADED for a province not one's own is refused at its line, as the
 * acknowledgement of a mail would refuse it) and used by the year: alpha's
 * LOSSES FIRST pays the failed siege's 40 AP with its 2 Skirmishers (4 AP)
 * and then 9 Archers (36 AP). */
static void test_standing_orders_as_by_mail(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 1\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[beta]\nIF INVADED Flanders BATTLE\n"
				 "[alpha]\nLOSSES FIRST Skirmishers, Archers\nINVADE Picardy VIA Artois\n"),
			 0);
	struct scenario_options opt = {.keep_going = true};
	assert_int_equal(scenario_run(w->s, w->c, &opt, &w->log, &w->dl), SCENARIO_REFUSED);
	assert_true(has_diag(&w->dl, 6, "beta: IF INVADED Flanders BATTLE refused: Flanders is not your province"));
	json_t *ref = event_log_find(&w->log, "order_refused", 0);
	assert_int_equal(json_integer_value(json_object_get(ref, "line")), 6);
	json_t *loss = event_log_find(&w->log, "loss", 0);
	assert_non_null(loss);
	assert_string_equal(json_string_value(json_object_get(loss, "chosen_by")), "preference");
	json_t *el = json_object_get(loss, "elements");
	assert_int_equal(json_integer_value(json_object_get(el, "Skirmishers")), 2);
	assert_int_equal(json_integer_value(json_object_get(el, "Archers")), 9);
	assert_int_equal(json_object_size(el), 2);
}

/* 2.1 Supply, "at the end of the player's move", whatever option he took:
 * alpha's army stands in Genève (neutral, next to beta's Anjou and the
 * neutral Outremer). NO MOVE: out of supply, a 2: 80 AP lost. The Ally
 * option (a contingent to beta) the same. With beta's standing ALLOW
 * SUPPLY alpha it is in supply: no roll. */
static void test_supply_whatever_the_option(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 2\n"
				 "[start]\nalpha at = Genève\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nNO MOVE\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	json_t *sup = event_log_find(&w->log, "supply", 0);
	assert_non_null(sup);
	assert_string_equal(json_string_value(json_object_get(sup, "player")), "alpha");
	assert_false(json_is_true(json_object_get(sup, "in_supply")));
	json_t *loss = event_log_find(&w->log, "loss", 0);
	assert_string_equal(json_string_value(json_object_get(loss, "cause")), "out of supply");
	assert_int_equal(json_integer_value(json_object_get(loss, "due_half_ap")), HALF_AP(80));
	assert_int_equal(player_field_half_ap(&w->c->players[0]), HALF_AP(400));
}

static void test_supply_after_ally_option(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\ndice = 3\n"
				 "[start]\nalpha at = Genève\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nSEND CONTINGENT TO beta WITH 1 Sub-general, 2 Knights\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	assert_int_equal(event_log_count(&w->log, "contingent_sent"), 1);
	json_t *sup = event_log_find(&w->log, "supply", 0);
	assert_false(json_is_true(json_object_get(sup, "in_supply")));
	json_t *loss = event_log_find(&w->log, "loss", 0);
	assert_int_equal(json_integer_value(json_object_get(loss, "due_half_ap")), HALF_AP(120));
	assert_int_equal(w->c->players[0].movement_option, OPTION_ALLY);
}

static void test_supply_permitted_no_roll(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\nalpha at = Genève\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[beta]\nALLOW SUPPLY alpha\n"
				 "[alpha]\nNO MOVE\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	json_t *sup = event_log_find(&w->log, "supply", 0);
	assert_true(json_is_true(json_object_get(sup, "in_supply")));
	assert_int_equal(event_log_count(&w->log, "roll"), 0);
	assert_int_equal(event_log_count(&w->log, "loss"), 0);
}

/* 2.2 sieges both ways, from a position: beta's army besieged in its
 * Picardy by alpha (one failed round). Beta's SALLY in its own turn gives
 * battle to the besieger; beta wins: the siege is lifted and alpha
 * retreats to Artois. Gamma, not besieged, is refused on receipt. */
static void test_sally(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\nalpha at = Picardy\nbeta at = Picardy\n"
				 "Picardy siege = alpha, 1\n"
				 "[year 1450 campaign]\n"
				 "sequence = beta, alpha, gamma\n"
				 "[beta]\nSALLY\n"
				 "[gamma]\nSALLY\n"
				 "[battle Picardy]\nWINNER beta\nDEMORALISED alpha General, Sub-general\n"),
			 0);
	struct scenario_options opt = {.keep_going = true};
	assert_int_equal(scenario_run(w->s, w->c, &opt, &w->log, &w->dl), SCENARIO_REFUSED);
	json_t *sally = event_log_find(&w->log, "sally", 0);
	assert_string_equal(json_string_value(json_object_get(sally, "besieger")), "alpha");
	json_t *b = event_log_find(&w->log, "battle", 0);
	assert_string_equal(json_string_value(json_object_get(b, "winner")), "beta");
	assert_int_equal(event_log_count(&w->log, "siege_lifted"), 1);
	assert_int_equal(w->c->siege_count, 0);
	assert_int_equal(w->c->players[0].location, campaign_find_province(w->c, "Artois"));
	assert_int_equal(w->c->players[1].movement_option, OPTION_INVADE);
	assert_true(has_diag(&w->dl, 11, "gamma: SALLY refused: your field army is not besieged"));
}

/* A besieged army cannot move away nor slip a contingent past the
 * besieger: refused on receipt by the order check, as the rules would. */
static void test_besieged_stays(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\nalpha at = Picardy\nbeta at = Picardy\ngamma at = Maine\n"
				 "Picardy siege = alpha, 1\n"
				 "[year 1450 campaign]\n"
				 "sequence = beta, alpha, gamma\n"
				 "[beta]\nSEND CONTINGENT TO gamma WITH 1 Sub-general, 2 Knights\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_REFUSED);
	assert_true(has_diag(&w->dl, 10, "beta: SEND CONTINGENT TO gamma WITH 1 Sub-general, 2 Knights refused: your field army is besieged in Picardy: no contingent can slip past the besieger"));
	assert_int_equal(event_log_count(&w->log, "contingent_sent"), 0);
	assert_int_equal(w->c->contingent_count, 0);
}

/* 3.1 "To retrieve a general from the reserve in the campaign phase you
 * must transfer the equivalent value of troops to the reserve": alpha's
 * Sub-general (22 AP) comes back at once, paid with 6 Archers (24 AP, its
 * LOSSES FIRST), and is no recruit: the recruitment phase recruits
 * nothing for alpha. */
static void test_general_in_campaign_phase(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\n"
				 "alpha field = 1 General, 18 Knights, 54 Archers, 2 Skirmishers\n"
				 "alpha reserve = 1 Sub-general\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nLOSSES FIRST Archers\nRETRIEVE GENERAL Sub-general\n"
				 "[year 1450 recruitment]\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	json_t *g = event_log_find(&w->log, "general_retrieved", 0);
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "phase")), "campaign");
	const struct player *a = &w->c->players[0];
	assert_int_equal(a->field.count[1], 1);
	assert_int_equal(a->reserve.count[1], 0);
	assert_int_equal(a->reserve.count[3], 6);
	assert_int_equal(a->field.count[3], 48);
	assert_int_equal(event_log_count(&w->log, "recruit"), 0);
}

/* 3.1 "Changing your army": alpha's 6 Archers in reserve (24 AP) are
 * exchanged for 2 Knights (24 AP), which the same mail recruits (24 AP of
 * 40 allowed); then 4 Archers dismissed and exchanged for 1 Knights in
 * one mail. An exchange worth more than what it gives is refused. */
static void test_exchange_reserve(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\n"
				 "alpha field = 1 General, 1 Sub-general, 18 Knights, 48 Archers, 2 Skirmishers\n"
				 "alpha reserve = 6 Archers\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[year 1450 recruitment]\n"
				 "[alpha]\nEXCHANGE 6 Archers FOR 2 Knights\nRECRUIT 2 Knights\n"
				 "[beta]\nEXCHANGE 1 Archers FOR 1 Knights\n"),
			 0);
	struct scenario_options opt = {.keep_going = true};
	assert_int_equal(scenario_run(w->s, w->c, &opt, &w->log, &w->dl), SCENARIO_REFUSED);
	const struct player *a = &w->c->players[0];
	assert_int_equal(a->field.count[2], 20);
	assert_int_equal(a->reserve.count[2], 0);
	assert_int_equal(a->reserve.count[3], 0);
	assert_int_equal(event_log_count(&w->log, "reserve_changed"), 1);
	/* beta has no Archers in reserve: refused on receipt */
	assert_true(has_diag(&w->dl, 12, "beta: EXCHANGE 1 Archers FOR 1 Knights refused: only 0 Archers in your reserve to exchange"));
}

/* A refused order with keep_going: logged and skipped; the status says so. */
static void test_run_keep_going(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nINVADE Brabant\n"
				 "[beta]\nMOVE Maine\n"),
			 0);
	struct scenario_options opt = {.keep_going = true};
	assert_int_equal(scenario_run(w->s, w->c, &opt, &w->log, &w->dl), SCENARIO_REFUSED);
	assert_true(has_diag(&w->dl, 5,
			     "alpha: INVADE Brabant refused: Brabant is your own province: use MOVE"));
	json_t *e = event_log_find(&w->log, "order_refused", 0);
	assert_int_equal(json_integer_value(json_object_get(e, "line")), 5);
	assert_int_equal(w->c->players[1].location, campaign_find_province(w->c, "Maine"));
}

static void test_event_line(void **state)
{
	(void)state;
	json_t *e = json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:b, s:b, s:[s,s], s:{s:i}, s:n}",
			      "kind", "loss", "rule", "1.3 Losing troops", "year", 1450, "phase",
			      "campaign", "cause", "sea storm", "lost_half_ap", 51, "paid_in_full", 1,
			      "halted", 0, "path", "Kent", "Île-de-France", "elements", "Bw(O) x", 2,
			      "to");
	char *line = scenario_event_line(e);
	assert_string_equal(line, "1450 campaign    loss                [1.3 Losing troops] "
				  "cause=\"sea storm\" lost_ap=25.5 paid_in_full "
				  "path=[Kent,Île-de-France] elements={\"Bw(O) x\":2} to=-");
	free(line);
	json_decref(e);
}

/* 1.4 Move "a friendly province, ie one controlled by you or an ally", 2.1
 * supply, from a position with an alliance ("alpha ally = beta"): alpha
 * marches into beta's Maine (4 stages: a forced march, 80 AP) and, at the
 * end of its turn, is supplied there by its ally without being asked (no
 * die); gamma, no ally of beta, is refused a move into beta's Picardy on
 * receipt, as the rules would refuse it, and stays in alpha's Brabant,
 * out of supply (its die: 1, 40 AP). */
static void test_alliance_move_and_supply(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "dice = 1\n"
				 "[start]\nalpha ally = beta\ngamma at = Brabant\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, gamma, beta\n"
				 "[alpha]\nMOVE Maine VIA Artois, Picardy, Normandy\n"
				 "[gamma]\nMOVE Picardy VIA Hainaut\n"),
			 0);
	struct scenario_options opt = {.keep_going = true};
	assert_int_equal(scenario_run(w->s, w->c, &opt, &w->log, &w->dl), SCENARIO_REFUSED);
	assert_int_equal(w->c->players[0].location, campaign_find_province(w->c, "Maine"));
	assert_int_equal(player_field_half_ap(&w->c->players[0]), HALF_AP(400));
	json_t *sup = event_log_find(&w->log, "supply", 0);
	assert_string_equal(json_string_value(json_object_get(sup, "player")), "alpha");
	assert_true(json_is_true(json_object_get(sup, "in_supply")));
	assert_true(has_diag(&w->dl, 11, "gamma: MOVE Picardy VIA Hainaut refused: Picardy is not friendly"));
	assert_int_equal(w->c->players[2].location, campaign_find_province(w->c, "Brabant"));
	sup = event_log_find(&w->log, "supply", 1);
	assert_string_equal(json_string_value(json_object_get(sup, "player")), "gamma");
	assert_false(json_is_true(json_object_get(sup, "in_supply")));
	assert_int_equal(event_log_count(&w->log, "roll"), 1);
	assert_int_equal(player_field_half_ap(&w->c->players[2]), HALF_AP(440));
}

/* ALLY WITH from both sides makes the alliance at the next step between
 * turns, before alpha's turn; END ALLIANCE WITH from one side ends it. */
static void test_alliance_declared_and_ended(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nALLY WITH beta\n"
				 "[beta]\nALLY WITH alpha\n"
				 "[gamma]\nALLY WITH alpha\n"
				 "[year 1450 recruitment]\n"
				 "[beta]\nEND ALLIANCE WITH alpha\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	assert_int_equal(event_log_count(&w->log, "alliance"), 1);
	json_t *a = event_log_find(&w->log, "alliance", 0);
	assert_string_equal(json_string_value(json_object_get(a, "player")), "alpha");
	assert_string_equal(json_string_value(json_object_get(a, "ally")), "beta");
	json_t *e = event_log_find(&w->log, "alliance_ended", 0);
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "by")), "beta");
	assert_string_equal(json_string_value(json_object_get(e, "how")), "declared");
	/* gamma's proposal was never answered: no alliance */
	assert_int_equal(w->c->alliance_count, 0);
}

/* 2.3 relief: beta's army besieged in its Picardy by alpha; gamma, beta's
 * ally, invades Picardy from Normandy: the battle is with alpha, and
 * beta's army gives the contingent of its CONTINGENT FOR gamma (1
 * Sub-general, 4 Knights: 70 AP), already there (no arrival roll). Gamma
 * wins: the siege is lifted, alpha retreats to Artois, the contingent goes
 * back into the city, and the alliance stands. */
static void test_relief(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "[start]\nalpha at = Picardy\nbeta at = Picardy\n"
				 "Picardy siege = alpha, 1\ngamma ally = beta\ngamma at = Normandy\n"
				 "[year 1450 campaign]\n"
				 "sequence = gamma, alpha, beta\n"
				 "[beta]\nCONTINGENT FOR gamma WITH 1 Sub-general, 4 Knights\n"
				 "[gamma]\nINVADE Picardy\n"
				 "[battle Picardy]\nWINNER gamma\nDEMORALISED alpha General, Sub-general\n"
				 "DESTROYED beta 1 Knights\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	json_t *rel = event_log_find(&w->log, "relief", 0);
	assert_non_null(rel);
	assert_string_equal(json_string_value(json_object_get(rel, "besieger")), "alpha");
	assert_int_equal(event_log_count(&w->log, "invasion"), 0);
	json_t *k = event_log_find(&w->log, "relief_contingent", 0);
	assert_true(json_is_true(json_object_get(k, "chosen")));
	assert_int_equal(json_integer_value(json_object_get(k, "half_ap")), HALF_AP(70));
	json_t *b = event_log_find(&w->log, "battle", 0);
	assert_string_equal(json_string_value(json_object_get(b, "winner")), "gamma");
	assert_string_equal(json_string_value(json_object_get(b, "loser")), "alpha");
	assert_int_equal(w->c->siege_count, 0);
	assert_int_equal(w->c->players[0].location, campaign_find_province(w->c, "Artois"));
	assert_int_equal(w->c->contingent_count, 0);
	const struct player *beta = &w->c->players[1];
	assert_int_equal(beta->field.count[1], 1); /* the Sub-general is back */
	assert_int_equal(beta->field.count[2] + beta->reserve.count[2], 18);
	assert_int_equal(beta->reserve.count[2], 1); /* the Knight lost */
	assert_int_equal(w->c->alliance_count, 1);
	assert_int_equal(w->c->provinces[campaign_find_province(w->c, "Picardy")].owner, 1);
}

/* Invading a declared ally's province (no siege there) ends the alliance
 * at once: everyone is told, and the invasion goes on as any other. */
static void test_invading_an_ally_ends_it(void **state)
{
	struct world *w = *state;
	assert_int_equal(load(w, "campaign = x\n"
				 "dice = 6\n"
				 "[start]\nalpha ally = beta\n"
				 "[year 1450 campaign]\n"
				 "sequence = alpha, beta, gamma\n"
				 "[alpha]\nINVADE Picardy VIA Artois\n"
				 "[beta]\nIF INVADED Picardy SIEGE\n"),
			 0);
	assert_int_equal(scenario_run(w->s, w->c, NULL, &w->log, &w->dl), SCENARIO_OK);
	json_t *e = event_log_find(&w->log, "alliance_ended", 0);
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "how")), "invaded");
	assert_string_equal(json_string_value(json_object_get(e, "by")), "alpha");
	assert_int_equal(event_log_count(&w->log, "invasion"), 1);
	assert_int_equal(w->c->alliance_count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sections),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_seed),
		cmocka_unit_test(test_event_line),
		cmocka_unit_test_setup_teardown(test_resolve_names_and_orders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_years, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_default_siege, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_storm_halt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_missing_battle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_dice_ran_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_dice_ran_out_in_sequence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_position, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_standing_orders_as_by_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_supply_whatever_the_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_supply_after_ally_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_supply_permitted_no_roll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sally, setup, teardown),
		cmocka_unit_test_setup_teardown(test_besieged_stays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alliance_move_and_supply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alliance_declared_and_ended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relief, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invading_an_ally_ends_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_general_in_campaign_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchange_reserve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_keep_going, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
