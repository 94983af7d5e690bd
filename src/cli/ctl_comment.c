/* campaignctl comment: adds the organiser's commentary to the year's diary.
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct ctl_command ctl_cmd_comment;

static char *comment_text;

static void free_comment(void)
{
	free(comment_text);
}

/* The words of the comment, joined by spaces as the shell split them. */
static bool fill(struct engine_action_request *req, int argc, char **argv)
{
	if (argc < 1)
		return false;
	struct strbuf sb = {0};
	for (int i = 0; i < argc; i++)
		strbuf_printf(&sb, "%s%s", i ? " " : "", argv[i]);
	comment_text = strbuf_take(&sb);
	atexit(free_comment);
	req->arg = comment_text;
	return true;
}

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_comment, argc, argv, ENGINE_ACT_COMMENT, fill);
}

const struct ctl_command ctl_cmd_comment = {
	.name = "comment",
	.usage = "comment -d DB TEXT...",
	.summary = "add the organiser's commentary to the diary",
	.options = CTL_YEAR_HELP,
	.run = run,
};
