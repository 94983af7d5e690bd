/* What the campaignctl commands that run the campaign year share: their
 * common options (-d DB or -c CONFIG, --address, --templates, --now), opening
 * the database and the engine, and printing an engine answer. Not a
 * subcommand itself. */
#ifndef CAMPAIGN_CTL_YEAR_H
#define CAMPAIGN_CTL_YEAR_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/campaignctl.h"
#include "daemon/conf.h"
#include "engine/engine.h"
#include "store/store.h"
#include "text/templates.h"

/* The long options every such command takes; their short forms are "d:c:"
 * and the values below. Put CTL_YEAR_OPTIONS first in the command's table. */
enum { CTL_OPT_ADDRESS = 1000, CTL_OPT_TEMPLATES, CTL_OPT_NOW };
#define CTL_YEAR_SHORT "d:c:"
#define CTL_YEAR_OPTIONS                                                       \
	{"database", required_argument, NULL, 'd'},                            \
	{"config", required_argument, NULL, 'c'},                              \
	{"address", required_argument, NULL, CTL_OPT_ADDRESS},                 \
	{"templates", required_argument, NULL, CTL_OPT_TEMPLATES},             \
	{"now", required_argument, NULL, CTL_OPT_NOW}

/* Their lines in a command's --help. */
#define CTL_YEAR_HELP                                                                      \
	"  -d, --database DB     the campaign database\n"                                  \
	"  -c, --config FILE     the daemon's configuration: its database, address and\n"  \
	"                        templates\n"                                               \
	"      --address ADDR    the campaign's address for the mail queued\n"            \
	"      --templates DIR   the mail templates' folder\n"                             \
	"      --now T           act as if it were T (seconds since the epoch)\n"

struct ctl_year_opts {
	const char *database;
	const char *config;
	const char *address;
	const char *templates;
	int64_t now;      /* --now, else the clock */
	bool bad;         /* an option's value was wrong (message printed) */
};

/* Starts with the clock's time and nothing set. */
void ctl_year_opts_init(struct ctl_year_opts *o);
/* Handles one of the common options; false if `ch` is not one of them. */
bool ctl_year_option(struct ctl_year_opts *o, int ch, const char *arg);

struct ctl_year {
	struct conf *cfg;
	struct store *store;
	struct templates *tpl;
	struct engine *engine;
	char *address;
	char *database;
};

/* Opens the database (from -d, or the configuration's) and an engine on it
 * with the campaign's address (--address, the configuration's, or the one
 * the daemon last ran with). Returns a sysexits code; messages printed. */
int ctl_year_open(struct ctl_year *y, const struct ctl_year_opts *o);
/* Closes it all; if mail is in the outbox, a running daemon is
 * woken to send it now (base/wake.h). */
void ctl_year_close(struct ctl_year *y);

/* Prints an engine answer (0 done, 1 refused, -1 error) and the report;
 * returns the exit code: 0, 1 (refused) or EX_SOFTWARE/EX_TEMPFAIL. */
int ctl_year_finish(int rc, char *report, char *err);

/* What a command does with the open engine: an engine answer (0 done,
 * 1 refused, -1 error) with its report or error message. */
typedef int (*ctl_year_step)(struct engine *e, int64_t now, const void *arg, char **report,
			     char **err);
/* Opens the database and the engine (ctl_year_open), runs `step` with `arg`
 * at the time --now says, closes it all and prints the answer
 * (ctl_year_finish). Returns the command's exit code. */
int ctl_year_run(const struct ctl_year_opts *o, ctl_year_step step, const void *arg);
/* ctl_year_run with one engine_action. */
int ctl_year_action(const struct ctl_year_opts *o, const struct engine_action_request *req);

/* Fills an action request from the positional arguments (argv[0..argc));
 * false if they are wrong (usage). */
typedef bool (*ctl_year_fill)(struct engine_action_request *req, int argc, char **argv);
/* A whole command made of the common options, positional arguments checked
 * by `fill` (NULL: none allowed) and one engine action. */
int ctl_year_simple(const struct ctl_command *cmd, int argc, char **argv, enum engine_action action,
		    ctl_year_fill fill);
/* A ctl_year_fill for commands taking exactly one argument (req->arg). */
bool ctl_year_one_arg(struct engine_action_request *req, int argc, char **argv);

#endif
