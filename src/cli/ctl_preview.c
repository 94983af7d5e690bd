/* campaignctl preview: shows what processing the current step now would do, changing nothing.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_preview;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_preview, argc, argv, ENGINE_ACT_PREVIEW, NULL);
}

const struct ctl_command ctl_cmd_preview = {
	.name = "preview",
	.usage = "preview -d DB [--now T]",
	.summary = "show what processing the current step would do",
	.options = CTL_YEAR_HELP,
	.run = run,
};
