/* campaignctl process: processes the current step now, as if its deadline had passed.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_process;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_process, argc, argv, ENGINE_ACT_PROCESS, ctl_year_one_arg);
}

const struct ctl_command ctl_cmd_process = {
	.name = "process",
	.usage = "process -d DB [--now T] STEP",
	.summary = "process the current step now (named, to be sure)",
	.options = CTL_YEAR_HELP,
	.run = run,
};
