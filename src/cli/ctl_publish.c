/* campaignctl publish: writes the web diary (a static site) into a folder. */
#include "config.h"

#include "cli/campaignctl.h"
#include "engine/publish.h"
#include "store/store.h"
#include "text/templates.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

static int run_publish(int argc, char **argv);

const struct ctl_command ctl_cmd_publish = {
	.name = "publish",
	.usage = "publish -d DB [--templates DIR] OUTDIR",
	.summary = "write the web diary (pages, maps, chart, Atom feed) into OUTDIR",
	.options = "  -d, --database DB     the campaign database\n"
		    "  -t, --templates DIR   the page templates' folder\n",
	.run = run_publish,
};

static void warn(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s: warning: %s\n", ctl_prog, msg);
}

static int run_publish(int argc, char **argv)
{
	static const struct option options[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{"templates", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	const char *db = NULL, *overrides = NULL;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:d:t:h", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 't':
			overrides = optarg;
			break;
		case 'h':
			printf("usage: campaignctl %s\n\n"
			       "Writes index.html, a page per year, the maps, prestige.svg, feed.xml\n"
			       "and style.css into OUTDIR (created if missing). Templates in DIR\n"
			       "replace the built-in ones of the same name.\n",
			       ctl_cmd_publish.usage);
			return EX_OK;
		default:
			return ctl_usage(&ctl_cmd_publish);
		}
	}
	int crc = ctl_config_database(config, &db);
	if (crc != EX_OK)
		return crc;
	if (!db || optind != argc - 1)
		return ctl_usage(&ctl_cmd_publish);
	const char *dir = argv[optind];

	struct store *s = NULL;
	char *err = NULL;
	int status = store_open(db, STORE_READONLY, &s, &err);
	if (status != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err ? err : db);
		free(err);
		return store_status_exit_code(status);
	}
	struct templates *t = templates_new(overrides);
	templates_set_warning(t, warn, NULL);
	int rc = publish_site(s, dir, t, &err);
	templates_free(t);
	store_close(s);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err);
		free(err);
		return EX_CANTCREAT;
	}
	printf("published %s\n", dir);
	return EX_OK;
}
