/* campaignctl battle-result: the organiser decides a disputed battle, or
 * corrects one already applied (its consequences are undone and the
 * corrected result applied; everyone is told).
 * See doc/rules.md, "Running the year by mail". */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_battle_result;

static char *result_text;

static void free_result(void)
{
	free(result_text);
}

static bool fill(struct engine_action_request *req, int argc, char **argv)
{
	if (argc != 1)
		return false;
	FILE *f = strcmp(argv[0], "-") == 0 ? stdin : fopen(argv[0], "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, argv[0], strerror(errno));
		return false;
	}
	struct strbuf sb = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_append(&sb, buf, n);
	if (f != stdin)
		fclose(f);
	strbuf_puts(&sb, "");
	result_text = strbuf_take(&sb);
	atexit(free_result);
	req->arg = result_text;
	return true;
}

static int run(int argc, char **argv)
{
	return ctl_year_simple(&ctl_cmd_battle_result, argc, argv, ENGINE_ACT_BATTLE_RESULT, fill);
}

const struct ctl_command ctl_cmd_battle_result = {
	.name = "battle-result",
	.usage = "battle-result -d DB [--now T] FILE",
	.summary = "decide or correct a battle result (BATTLE AT ... lines)",
	.options = CTL_YEAR_HELP,
	.run = run,
};
