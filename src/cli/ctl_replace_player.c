/* campaignctl replace-player: someone else takes over a nation; the new
 * player gets a new password (printed once).
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_replace_player;

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CTL_YEAR_OPTIONS,
		{"name", required_argument, NULL, 'n'},
		{"email", required_argument, NULL, 'e'},
		{NULL, 0, NULL, 0},
	};
	struct ctl_year_opts o;
	struct engine_action_request req = {.action = ENGINE_ACT_REPLACE_PLAYER};
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT "n:e:", opts, NULL)) != -1) {
		if (ch == 'n')
			req.name = optarg;
		else if (ch == 'e')
			req.email = optarg;
		else if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_replace_player);
	}
	if (o.bad || optind != argc - 1 || !req.email)
		return ctl_usage(&ctl_cmd_replace_player);
	req.arg = argv[optind];
	if (sodium_init() < 0)
		return EX_SOFTWARE;
	return ctl_year_action(&o, &req);
}

const struct ctl_command ctl_cmd_replace_player = {
	.name = "replace-player",
	.usage = "replace-player -d DB PLAYER --email ADDR [--name NAME]",
	.summary = "hand a nation to a new player (new password printed)",
	.options = CTL_YEAR_HELP
		    "      --email ADDR      the new player's address\n"
		    "      --name NAME       the new player's name\n",
	.run = run,
};
