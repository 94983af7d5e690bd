/* Scenarios: a campaign file plus a script of the players' orders, battle
 * results and dice, played offline through the daemon's year (campaignctl
 * simulate).
 * The format is described in doc/scenario.md. Pure: the caller reads the
 * files; the dice are the scenario's fixed values or a verifiable seed.
 *
 * Use: scenario_parse (the text alone) -> read the campaign file it names
 * -> scenario_resolve (names, years and every order line checked against
 * the campaign) -> scenario_run (the years played; events in a log). */
#ifndef CAMPAIGN_SCENARIO_H
#define CAMPAIGN_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "dbm/orders.h"

enum scenario_section_kind { SCENARIO_PLAYER, SCENARIO_BATTLE };

/* A [player] or [battle PROVINCE] section of a phase. */
struct scenario_section {
	enum scenario_section_kind kind;
	char *name;           /* as written in the header */
	int line;             /* line of the header */
	char *body;           /* the lines after the header, verbatim */
	int player;           /* SCENARIO_PLAYER: resolved player */
	int province;         /* SCENARIO_BATTLE: resolved province */
	struct order_set orders; /* parsed by scenario_resolve */
};

/* A [year N campaign] or [year N recruitment] section and what follows. */
struct scenario_phase {
	int year;
	int phase;            /* PHASE_CAMPAIGN or PHASE_RECRUITMENT */
	int line;             /* 0 for a recruitment phase the scenario left out */
	char **sequence_names; /* "sequence =" as written; NULL: rolled */
	size_t sequence_count;
	int sequence_line;
	int *sequence;        /* resolved players */
	struct scenario_section *sections;
	size_t section_count, section_cap;
};

/* A "WHO WHAT = value" line of the [start] section. */
struct scenario_start_item {
	int line;
	char *who, *what, *value;
};

struct scenario {
	char *filename;       /* for messages */
	char *campaign_path;  /* "campaign =": relative to the scenario's folder */
	int campaign_line;
	int *dice;            /* "dice =" values, in order */
	size_t dice_count, dice_cap;
	int dice_line;
	bool has_seed;        /* "seed =" given */
	unsigned char seed[DICE_SEED_BYTES];
	struct scenario_phase *phases;
	size_t phase_count, phase_cap;
	/* [start]: the starting position (doc/scenario.md) */
	int start_line;       /* 0: no [start] section */
	int start_year;       /* "year =": 0 for the campaign's first year */
	struct scenario_start_item *start;
	size_t start_count, start_cap;
};

/* Parses the structure of `len` bytes of scenario text: the top keys, the
 * section headers and the raw lines of each section. Every problem goes to
 * `diags` as "filename:line" (all of them). Returns the scenario (caller
 * frees with scenario_free), or NULL if any error was found. */
struct scenario *scenario_parse(const char *text, size_t len, const char *filename,
				struct diag_list *diags);

/* Checks the scenario against campaign `c` (as loaded, before any year):
 * player and province names, the years (the first is the campaign's start
 * year, then each year in turn, its campaign phase before its recruitment
 * phase; a recruitment phase left out before a later year is added empty),
 * "sequence =" lines, and every order line, parsed with the order language
 * (orders.h). Orders whose route depends on where the armies stand
 * (INVADE, MOVE, SEND CONTINGENT) are parsed again when they are carried
 * out, and their errors reported then. Orders that have no effect in a
 * scenario give warnings. Returns the number of errors added. */
size_t scenario_resolve(struct scenario *s, const struct campaign *c, struct diag_list *diags);

void scenario_free(struct scenario *s);

struct scenario_options {
	bool keep_going;      /* carry on after a refused order (it is skipped) */
	bool use_seed;        /* roll with `seed` instead of the scenario's dice */
	unsigned char seed[DICE_SEED_BYTES];
};

enum scenario_status {
	SCENARIO_OK = 0,
	SCENARIO_REFUSED = 1, /* the rules refused an order (see diags) */
	SCENARIO_FAILED = 2,  /* the script cannot go on: no battle report, dice ran out */
};

/* Plays the scenario on `c` (which must be the campaign it was resolved
 * against, not yet played) through the year's state machine (dbm/year.h),
 * as the daemon plays it: each player section is that player's mail for
 * its phase (his turn's orders arrive when his turn comes), each battle
 * section the organiser's result, and what a section does not give takes
 * the daemon's default when the step's deadline passes on the scenario's
 * clock. Every event is appended to `log`. Fixed dice are consumed in
 * order; the verifiable roller (scenario "seed =" or opt->seed) uses the
 * same seed for every year (the year is part of each roll's message).
 * Refused orders (by the order checker on receipt, or by the rules when
 * carried out) are reported in `diags` with the line of the order and the
 * reason; the run stops at the end of that step unless opt->keep_going. A
 * missing battle report or dice running out stop the run (the log ends
 * before the roll that had no value). The run also stops, with a warning,
 * when the campaign ends before the scenario does, and after the last
 * phase the scenario names. */
enum scenario_status scenario_run(const struct scenario *s, struct campaign *c,
				  const struct scenario_options *opt, struct event_log *log,
				  struct diag_list *diags);

/* One event as a line of the readable summary (no newline): year, phase,
 * kind, rule and the event's own fields, army points in whole AP. Caller
 * frees. */
char *scenario_event_line(const json_t *event);

/* The final standings of the readable summary: players by score, with
 * their provinces, armies and prestige; then contingents and sieges.
 * Lines end in newlines. Caller frees. */
char *scenario_standings(const struct campaign *c);

#endif
