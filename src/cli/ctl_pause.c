/* campaignctl pause: stops the campaign clock.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_pause;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_pause, argc, argv, ENGINE_ACT_PAUSE, NULL);
}

const struct ctl_command ctl_cmd_pause = {
	.name = "pause",
	.usage = "pause -d DB [--now T]",
	.summary = "stop the campaign clock (no deadline passes)",
	.options = CTL_YEAR_HELP,
	.run = run,
};
