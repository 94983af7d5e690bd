/* campaignctl backup: a consistent copy of a running campaign's database. */
#include "config.h"

#include "cli/campaignctl.h"
#include "store/store.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

extern const struct ctl_command ctl_cmd_backup;

static int run(int argc, char **argv)
{
	const char *config = NULL;
	const char *db = NULL;
	static const struct option opts[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:d:", opts, NULL)) != -1) {
		if (ch == 'c')
			config = optarg;
		else if (ch == 'd')
			db = optarg;
		else
			return ctl_usage(&ctl_cmd_backup);
	}
	int crc = ctl_config_database(config, &db);
	if (crc != EX_OK)
		return crc;
	if (!db || optind != argc - 1)
		return ctl_usage(&ctl_cmd_backup);
	const char *dest = argv[optind];
	/* store_backup creates the copy exclusively (any existing name is
	 * refused, a symbolic link too, even one that points nowhere) and
	 * private like the database, and removes it if the copy fails. */
	struct store *s = NULL;
	char *err = NULL;
	int rc = store_open(db, STORE_READONLY, &s, &err);
	if (rc == STORE_OK)
		rc = store_backup(s, dest, &err);
	store_close(s);
	if (rc != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err);
		free(err);
		return store_status_exit_code(rc);
	}
	printf("%s copied to %s\n", db, dest);
	return EX_OK;
}

const struct ctl_command ctl_cmd_backup = {
	.name = "backup",
	.usage = "backup -d DB FILE",
	.summary = "copy the database consistently, even while the daemon runs",
	.options = "  -d, --database DB     the campaign database\n",
	.run = run,
};
