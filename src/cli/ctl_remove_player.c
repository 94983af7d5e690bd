/* campaignctl remove-player: removes a player who leaves without a replacement.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_remove_player;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_remove_player, argc, argv, ENGINE_ACT_REMOVE_PLAYER, ctl_year_one_arg);
}

const struct ctl_command ctl_cmd_remove_player = {
	.name = "remove-player",
	.usage = "remove-player -d DB PLAYER",
	.summary = "a player leaves without replacement (provinces neutral)",
	.options = CTL_YEAR_HELP,
	.run = run,
};
