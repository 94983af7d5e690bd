/* campaignctl add-player: a new player joins (rules 1.2), given neutral
 * provinces as home provinces; his national list comes from a file in the
 * campaign file's syntax, checked and derived as campaignctl army-list
 * does. See campaign(5), "A new player joins". */
#include "config.h"

#include "cli/ctl_year.h"
#include "dbm/rules.h"
#include "model/campaign_file.h"
#include "base/fileio.h"
#include "base/util.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_add_player;

#define LIST_FILE_MAX (4u << 20)

/* The national list of `key` in `path` (its [player KEY] section, or the
 * only section there is), derived for the campaign; problems printed as
 * file:line. NULL when it cannot serve (*rc: the exit code). */
static struct campaign *read_list(const char *path, const char *key, int *section, int *rc)
{
	size_t len = 0;
	char *text = file_read_all(path, LIST_FILE_MAX, &len);
	if (!text) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, path, strerror(errno));
		*rc = EX_NOINPUT;
		return NULL;
	}
	struct diag_list diags = {0};
	struct campaign *lists = campaign_file_parse_lists(text, len, path, &diags);
	free(text);
	*rc = EX_DATAERR;
	*section = -1;
	for (size_t i = 0; lists && i < lists->player_count; i++)
		if (strcasecmp(lists->players[i].key, key) == 0)
			*section = (int)i;
	if (lists && *section < 0 && lists->player_count == 1)
		*section = 0;
	if (lists && *section < 0) {
		fprintf(stderr, "%s: %s: no [player %s] section (it has %zu lists)\n", ctl_prog,
			path, key, lists->player_count);
		diag_free(&diags);
		campaign_free(lists);
		return NULL;
	}
	if (lists) {
		struct player *y = &lists->players[*section];
		struct list_derivation d;
		rules_derive_army_list(&y->list, path, y->line, &d, &diags);
	}
	diag_print(&diags, stderr);
	bool bad = diags.errors || !lists;
	diag_free(&diags);
	if (bad) {
		if (lists)
			fprintf(stderr, "%s: refused: the army list in %s has problems (above)\n",
				ctl_prog, path);
		campaign_free(lists);
		return NULL;
	}
	*rc = EX_OK;
	return lists;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CTL_YEAR_OPTIONS,
		{"nation", required_argument, NULL, 'N'},
		{"name", required_argument, NULL, 'n'},
		{"email", required_argument, NULL, 'e'},
		{"provinces", required_argument, NULL, 'p'},
		{"army-list", required_argument, NULL, 'l'},
		{NULL, 0, NULL, 0},
	};
	struct ctl_year_opts o;
	struct engine_new_player np = {0};
	const char *list_path = NULL;
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT "N:n:e:p:l:", opts, NULL)) != -1) {
		if (ch == 'N')
			np.nation = optarg;
		else if (ch == 'n')
			np.name = optarg;
		else if (ch == 'e')
			np.email = optarg;
		else if (ch == 'p')
			np.provinces = optarg;
		else if (ch == 'l')
			list_path = optarg;
		else if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_add_player);
	}
	if (o.bad || optind != argc - 1 || !np.email || !np.provinces || !list_path)
		return ctl_usage(&ctl_cmd_add_player);
	np.key = argv[optind];
	int rc, section;
	struct campaign *lists = read_list(list_path, np.key, &section, &rc);
	if (!lists)
		return rc;
	np.list = &lists->players[section].list;
	if (!np.nation)
		np.nation = lists->players[section].nation;
	if (sodium_init() < 0) {
		campaign_free(lists);
		return EX_SOFTWARE;
	}
	struct ctl_year y;
	rc = ctl_year_open(&y, &o);
	if (rc != EX_OK) {
		ctl_year_close(&y);
		campaign_free(lists);
		return rc;
	}
	char *report = NULL, *err = NULL;
	rc = engine_add_player(y.engine, &np, o.now, &report, &err);
	ctl_year_close(&y);
	campaign_free(lists);
	return ctl_year_finish(rc, report, err);
}

const struct ctl_command ctl_cmd_add_player = {
	.name = "add-player",
	.usage = "add-player -d DB KEY --email ADDR --provinces P1,P2,... --army-list FILE "
		 "[--nation NAME] [--name NAME]",
	.summary = "a new player joins with neutral home provinces (plays from next year)",
	.options = CTL_YEAR_HELP
		   "      --email ADDR      the new player's address (the invitation goes there)\n"
		   "      --provinces LIST  the home provinces, neutral ones, comma-separated\n"
		   "      --army-list FILE  the national list in the campaign file's syntax\n"
		   "                        (its [player KEY] section, or its only one)\n"
		   "      --nation NAME     the nation (default: the list's nation, or KEY)\n"
		   "      --name NAME       the player's name\n",
	.run = run,
};
