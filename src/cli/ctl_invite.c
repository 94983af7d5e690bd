/* campaignctl invite: mails every player a new password, the rules in brief and the orders reference;
 * with --player KEY, that player only (a forgotten password). See doc/rules.md, "Running the year by
 * mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_invite;

enum { OPT_PLAYER = 1100 };

static int run(int argc, char **argv)
{
	static const struct option opts[] = {CTL_YEAR_OPTIONS,
					     {"player", required_argument, NULL, OPT_PLAYER},
					     {NULL, 0, NULL, 0}};
	struct ctl_year_opts o;
	ctl_year_opts_init(&o);
	const char *player = NULL;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT, opts, NULL)) != -1) {
		if (ch == OPT_PLAYER)
			player = optarg;
		else if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_invite);
	}
	if (o.bad || optind != argc || (player && !*player))
		return ctl_usage(&ctl_cmd_invite);
	struct engine_action_request req = {.action = ENGINE_ACT_INVITE, .arg = player};
	return ctl_year_action(&o, &req);
}

const struct ctl_command ctl_cmd_invite = {
	.name = "invite",
	.usage = "invite -d DB [--player KEY]",
	.summary = "mail every player (or one) a new password, the rules and the reference",
	.options = CTL_YEAR_HELP
		    "      --player KEY      that player only: a new password in a mail to that player alone\n",
	.run = run,
};
