/* What every subcommand shares: the usage message. Kept apart from the
 * command table (campaignctl.c) so that the table calls the subcommands and
 * the subcommands never call back into it. */
#include "config.h"

#include "cli/campaignctl.h"

#include <stdio.h>
#include <sysexits.h>

int ctl_usage(const struct ctl_command *cmd)
{
	fprintf(stderr, "usage: campaignctl %s\n", cmd->usage);
	return EX_USAGE;
}
