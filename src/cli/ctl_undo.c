/* campaignctl undo: undoes the last step of the year and pauses the campaign.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_undo;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_undo, argc, argv, ENGINE_ACT_UNDO, NULL);
}

const struct ctl_command ctl_cmd_undo = {
	.name = "undo",
	.usage = "undo -d DB [--now T]",
	.summary = "undo the last step (and pause the campaign)",
	.options = CTL_YEAR_HELP,
	.run = run,
};
