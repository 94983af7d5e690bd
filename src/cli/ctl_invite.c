/* campaignctl invite: mails every player a new password, the rules in brief and the orders reference.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_invite;

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_invite, argc, argv, ENGINE_ACT_INVITE, NULL);
}

const struct ctl_command ctl_cmd_invite = {
	.name = "invite",
	.usage = "invite -d DB",
	.summary = "mail every player a new password, the rules and the reference",
	.run = run,
};
