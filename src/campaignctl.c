#include "config.h"

#include "campaignctl.h"

#include <stdio.h>
#include <string.h>
#include <sysexits.h>

/* The subcommand table, in the order --help lists them. */
extern const struct ctl_command ctl_cmd_init;
extern const struct ctl_command ctl_cmd_status;
extern const struct ctl_command ctl_cmd_export;
extern const struct ctl_command ctl_cmd_render;
extern const struct ctl_command ctl_cmd_check_mail;
extern const struct ctl_command ctl_cmd_backup;

static const struct ctl_command *const commands[] = {
	&ctl_cmd_init,
	&ctl_cmd_status,
	&ctl_cmd_export,
	&ctl_cmd_render,
	&ctl_cmd_check_mail,
	&ctl_cmd_backup,
	NULL,
};

int ctl_usage(const struct ctl_command *cmd)
{
	fprintf(stderr, "usage: campaignctl %s\n", cmd->usage);
	return EX_USAGE;
}

static void help(FILE *out)
{
	fprintf(out, "usage: campaignctl COMMAND [ARGS]\n\n"
		     "The organiser's tool for a campaignd campaign.\n\nCommands:\n");
	for (size_t i = 0; commands[i]; i++)
		fprintf(out, "  %-48s %s\n", commands[i]->usage, commands[i]->summary);
	fprintf(out, "\nOptions:\n  -h, --help     show this help\n"
		     "  -V, --version  show the version\n\n"
		     "See campaignctl(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return EX_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		help(stdout);
		return EX_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("campaignctl (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return EX_OK;
	}
	for (size_t i = 0; commands[i]; i++)
		if (strcmp(argv[1], commands[i]->name) == 0)
			return commands[i]->run(argc - 1, argv + 1);
	fprintf(stderr, "campaignctl: unknown command \"%s\" (see campaignctl --help)\n", argv[1]);
	return EX_USAGE;
}
