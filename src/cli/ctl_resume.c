/* campaignctl resume: starts the campaign clock again.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_resume;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_resume, argc, argv, ENGINE_ACT_RESUME, NULL);
}

const struct ctl_command ctl_cmd_resume = {
	.name = "resume",
	.usage = "resume -d DB [--now T]",
	.summary = "start the campaign clock again",
	.options = CTL_YEAR_HELP,
	.run = run,
};
