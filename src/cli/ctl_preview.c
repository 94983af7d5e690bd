/* campaignctl preview: shows what processing the current step now would do, changing nothing.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_preview;

static int run(int argc, char **argv)
{
	static const struct option opts[] = {CTL_YEAR_OPTIONS,
					     {"json", no_argument, NULL, 'j'},
					     {NULL, 0, NULL, 0}};
	struct ctl_year_opts o;
	ctl_year_opts_init(&o);
	struct engine_action_request req = {.action = ENGINE_ACT_PREVIEW};
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT "j", opts, NULL)) != -1) {
		if (ch == 'j')
			req.json = true;
		else if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_preview);
	}
	if (o.bad || optind != argc)
		return ctl_usage(&ctl_cmd_preview);
	return ctl_year_action(&o, &req);
}

const struct ctl_command ctl_cmd_preview = {
	.name = "preview",
	.usage = "preview -d DB [--json] [--now T]",
	.summary = "show what processing the current step would do",
	.options = CTL_YEAR_HELP
		   "  -j, --json            the machine form: the step, its events and mails as\n"
		   "                        JSON\n",
	.run = run,
};
