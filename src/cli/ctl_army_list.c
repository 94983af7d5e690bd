/* campaignctl army-list: checks a national army list written in the
 * campaign file's syntax and prints it as derived for the campaign (rules
 * 1.3, dbm/rules_setup.c), every problem as file:line. */
#include "config.h"

#include "cli/campaignctl.h"
#include "dbm/rules.h"
#include "model/campaign_file.h"
#include "base/fileio.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_army_list;

#define LIST_FILE_MAX (4u << 20)

static void print_element(const struct element_type *t)
{
	char cost[16];
	printf("element = %s | %s(%c) %s | %s | %d-%d%s\n", t->label, t->code, t->grade,
	       t->regular ? "Reg" : "Irr", half_ap_format(t->cost_half_ap, cost), t->list_min,
	       t->list_max, t->general ? " | general" : "");
}

static void print_list(const struct player *y, const struct list_derivation *d)
{
	char a[16], b[16], g[16], n[16], m[16];
	printf("[player %s]\n", y->key);
	if (y->nation)
		printf("nation = %s\n", y->nation);
	if (d->increased)
		printf("# at its maximums the list totals %s AP, under 480: every troop line's "
		       "maximum and minimum\n# multiplied by %s/%s (generals %s AP, kept), maximums "
		       "rounded up, minimums down;\n# derived total %s AP\n",
		       half_ap_format(d->before_half_ap, a), half_ap_format(d->factor_num, n),
		       half_ap_format(d->factor_den, m),
		       half_ap_format(d->general_half_ap, g), half_ap_format(d->after_half_ap, b));
	else
		printf("# at its maximums the list totals %s AP: kept as it is\n",
		       half_ap_format(d->before_half_ap, a));
	for (size_t i = 0; i < y->list.count; i++)
		print_element(&y->list.types[i]);
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {{"quiet", no_argument, NULL, 'q'},
					     {NULL, 0, NULL, 0}};
	bool quiet = false;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
		if (ch != 'q')
			return ctl_usage(&ctl_cmd_army_list);
		quiet = true;
	}
	if (optind + 1 != argc)
		return ctl_usage(&ctl_cmd_army_list);
	const char *path = argv[optind];
	size_t len = 0;
	char *text = file_read_all(path, LIST_FILE_MAX, &len);
	if (!text) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, path, strerror(errno));
		return EX_NOINPUT;
	}
	struct diag_list diags = {0};
	struct campaign *c = campaign_file_parse_lists(text, len, path, &diags);
	free(text);
	if (!c) {
		diag_print(&diags, stderr);
		diag_free(&diags);
		return EX_DATAERR;
	}
	for (size_t i = 0; i < c->player_count; i++) {
		struct player *y = &c->players[i];
		struct list_derivation d;
		rules_derive_army_list(&y->list, path, y->line, &d, &diags);
		if (!quiet) {
			if (i)
				printf("\n");
			print_list(y, &d);
		}
	}
	diag_print(&diags, stderr);
	int rc = diags.errors ? EX_DATAERR : EX_OK;
	diag_free(&diags);
	campaign_free(c);
	return rc;
}

const struct ctl_command ctl_cmd_army_list = {
	.name = "army-list",
	.usage = "army-list FILE [--quiet]",
	.summary = "check national army lists and print them as derived for the campaign",
	.options = "  -q, --quiet           print only the problems\n",
	.run = run,
};
