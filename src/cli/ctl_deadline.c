/* campaignctl deadline: moves the current step's deadline.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_deadline;

/* "+12" or "-12": from the current deadline; "36": from now. */
static bool fill(struct engine_action_request *req, int argc, char **argv)
{
	if (argc != 1)
		return false;
	const char *s = argv[0];
	char *end = NULL;
	req->relative = *s == '+' || *s == '-';
	long hours = strtol(s, &end, 10);
	if (!*s || *end || hours < -720 || hours > 720 || (!req->relative && hours < 0)) {
		fprintf(stderr, "%s: HOURS is a number of hours (at most 720),"
				" with + or - to move the current deadline\n", ctl_prog);
		return false;
	}
	req->seconds = (int64_t)hours * 3600;
	return true;
}

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_deadline, argc, argv, ENGINE_ACT_DEADLINE, fill);
}

const struct ctl_command ctl_cmd_deadline = {
	.name = "deadline",
	.usage = "deadline -d DB [--now T] [+|-]HOURS",
	.summary = "move the current deadline (+/-: from the deadline)",
	.options = CTL_YEAR_HELP,
	.run = run,
};
