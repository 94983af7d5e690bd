/* campaignctl start: begins the campaign (the first year's campaign phase,
 * the sequence of play announced to everyone by mail).
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_start;

struct start_args {
	const char *seed;
	bool force;
};

static int start_step(struct engine *e, int64_t now, const void *arg, char **report, char **err)
{
	const struct start_args *a = arg;
	return engine_start_setup(e, now, a->seed, a->force, report, err);
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CTL_YEAR_OPTIONS,
		{"seed", required_argument, NULL, 's'},
		{"force", no_argument, NULL, 'F'},
		{NULL, 0, NULL, 0},
	};
	struct ctl_year_opts o;
	const char *seed = NULL;
	bool force = false;
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT "s:", opts, NULL)) != -1) {
		if (ch == 's')
			seed = optarg;
		else if (ch == 'F')
			force = true;
		else if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_start);
	}
	if (o.bad || optind != argc)
		return ctl_usage(&ctl_cmd_start);
	if (sodium_init() < 0) {
		fprintf(stderr, "%s: libsodium could not be initialised\n", ctl_prog);
		return EX_SOFTWARE;
	}
	const struct start_args args = {seed, force};
	return ctl_year_run(&o, start_step, &args);
}

const struct ctl_command ctl_cmd_start = {
	.name = "start",
	.usage = "start -d DB [--force] [--seed HEX] [--now T]",
	.summary = "start the campaign: the first year, the sequence announced",
	.options = CTL_YEAR_HELP
		    "      --force           start although a player setting up by mail is not\n"
		    "                        ready: that player gets the default army and start\n"
		    "      --seed HEX        the year's dice seed (64 hex digits; for tests)\n",
	.run = run,
};
