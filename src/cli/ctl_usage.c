/* What every subcommand shares: the usage message. Kept apart from the
 * command table (campaignctl.c) so that the table calls the subcommands and
 * the subcommands never call back into it. */
#include "config.h"

#include "cli/campaignctl.h"

#include <stdio.h>
#include <sysexits.h>

const char *ctl_prog = "campaignctl";

int ctl_usage(const struct ctl_command *cmd)
{
	fprintf(stderr, "usage: campaignctl %s\nTry 'campaignctl %s --help' for more.\n", cmd->usage,
		cmd->name);
	return EX_USAGE;
}

void ctl_command_help(const struct ctl_command *cmd)
{
	printf("usage: campaignctl %s\n\n%c%s.\n", cmd->usage,
	       cmd->summary[0] >= 'a' && cmd->summary[0] <= 'z' ? cmd->summary[0] - 'a' + 'A'
								: cmd->summary[0],
	       cmd->summary + 1);
	printf("\nOptions:\n%s  -h, --help            show this help\n\nSee campaignctl(1).\n",
	       cmd->options ? cmd->options : "");
}
