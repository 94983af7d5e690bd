/* campaignctl remove-player: removes a player who leaves without a replacement.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "ctl_year.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_remove_player;

static bool fill(struct engine_action_request *req, int argc, char **argv)
{
	if (argc != 1)
		return false;
	req->arg = argv[0];
	return true;
}

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_remove_player, argc, argv, ENGINE_ACT_REMOVE_PLAYER, fill);
}

const struct ctl_command ctl_cmd_remove_player = {
	.name = "remove-player",
	.usage = "remove-player -d DB PLAYER",
	.summary = "a player leaves without replacement (provinces neutral)",
	.run = run,
};
