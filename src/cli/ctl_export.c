/* campaignctl export: the whole campaign and its event log as one JSON
 * document (doc/export.md), for other tools. */
#include "config.h"

#include "model/campaign_json.h"
#include "cli/campaignctl.h"
#include "store/store.h"

#include <getopt.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sysexits.h>

static int run_export(int argc, char **argv);

const struct ctl_command ctl_cmd_export = {
	.name = "export",
	.usage = "export -d DB",
	.summary = "print the whole campaign and its events as JSON",
	.options = "  -d, --database DB     the campaign database\n",
	.run = run_export,
};

static int run_export(int argc, char **argv)
{
	static const struct option options[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	const char *db = NULL;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:d:h", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			printf("usage: campaignctl %s\n\n"
			       "Prints the campaign (definition and state) and every event so far\n"
			       "as one JSON document on standard output (see doc/export.md).\n",
			       ctl_cmd_export.usage);
			return EX_OK;
		default:
			return ctl_usage(&ctl_cmd_export);
		}
	}
	int crc = ctl_config_database(config, &db);
	if (crc != EX_OK)
		return crc;
	if (!db || optind != argc)
		return ctl_usage(&ctl_cmd_export);

	struct store *s = NULL;
	struct campaign *c = NULL;
	json_t *events = NULL;
	char *err = NULL;
	int status = store_open(db, 0, &s, &err);
	/* One snapshot: the campaign and its events from the same moment. */
	if (status == STORE_OK)
		status = store_begin_read(s, &err);
	if (status == STORE_OK)
		status = store_load_campaign(s, &c, &err);
	if (status == STORE_OK)
		status = store_events(s, STORE_ALL_YEARS, &events, &err);
	store_close(s);
	if (status != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err ? err : db);
		free(err);
		campaign_free(c);
		return store_status_exit_code(status);
	}

	json_t *doc = campaign_to_json(c);
	json_object_set_new(doc, "events", events);
	int rc = json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
	campaign_free(c);
	if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", ctl_prog, strerror(errno));
		return EX_IOERR;
	}
	return EX_OK;
}
