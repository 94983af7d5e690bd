/* campaignctl open-setup: mails every player whom the campaign file left
 * to set up by mail his army list, home provinces and how to answer (ARMY,
 * START IN). See campaign(5), "Setting up by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_open_setup;

static int run(int argc, char **argv)
{
	static const struct option opts[] = {CTL_YEAR_OPTIONS, {NULL, 0, NULL, 0}};
	struct ctl_year_opts o;
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT, opts, NULL)) != -1)
		if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_open_setup);
	if (o.bad || optind != argc)
		return ctl_usage(&ctl_cmd_open_setup);
	struct engine_action_request req = {.action = ENGINE_ACT_OPEN_SETUP};
	return ctl_year_action(&o, &req);
}

const struct ctl_command ctl_cmd_open_setup = {
	.name = "open-setup",
	.usage = "open-setup -d DB",
	.summary = "mail the players who set up by mail their army list and home provinces",
	.options = CTL_YEAR_HELP,
	.run = run,
};
