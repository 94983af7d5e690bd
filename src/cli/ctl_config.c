/* -c CONFIG for the commands that work on a database: the database a
 * configuration (a file, or an instance name) names. */
#include "config.h"

#include "cli/campaignctl.h"
#include "daemon/conf.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

/* The path ctl_config_database found. */
static char *config_database;

int ctl_config_database(const char *config, const char **db)
{
	if (!config || *db)
		return EX_OK;
	char *err = NULL;
	char *path = conf_path_for(config, &err);
	if (!path) {
		fprintf(stderr, "%s: -c %s\n", ctl_prog, err);
		free(err);
		return EX_USAGE;
	}
	struct diag_list diags = {0};
	struct conf *cfg = conf_load_no_secrets(path, &diags);
	diag_print(&diags, stderr);
	diag_free(&diags);
	free(path);
	if (!cfg)
		return EX_CONFIG;
	free(config_database);
	config_database = xstrdup(cfg->database);
	conf_free(cfg);
	*db = config_database;
	return EX_OK;
}

void ctl_config_release(void)
{
	free(config_database);
	config_database = NULL;
}
