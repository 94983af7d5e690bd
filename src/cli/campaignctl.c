#include "config.h"

#include "cli/campaignctl.h"
#include "base/util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

/* The subcommand table, in the order --help lists them. */
extern const struct ctl_command ctl_cmd_init;
extern const struct ctl_command ctl_cmd_army_list;
extern const struct ctl_command ctl_cmd_status;
extern const struct ctl_command ctl_cmd_export;
extern const struct ctl_command ctl_cmd_render;
extern const struct ctl_command ctl_cmd_check_mail;
extern const struct ctl_command ctl_cmd_backup;
extern const struct ctl_command ctl_cmd_simulate;
extern const struct ctl_command ctl_cmd_map;
extern const struct ctl_command ctl_cmd_publish;
extern const struct ctl_command ctl_cmd_open_setup;
extern const struct ctl_command ctl_cmd_start;
extern const struct ctl_command ctl_cmd_deadline;
extern const struct ctl_command ctl_cmd_pause;
extern const struct ctl_command ctl_cmd_resume;
extern const struct ctl_command ctl_cmd_process;
extern const struct ctl_command ctl_cmd_preview;
extern const struct ctl_command ctl_cmd_battle_result;
extern const struct ctl_command ctl_cmd_replace_player;
extern const struct ctl_command ctl_cmd_stand_in;
extern const struct ctl_command ctl_cmd_remove_player;
extern const struct ctl_command ctl_cmd_add_player;
extern const struct ctl_command ctl_cmd_undo;
extern const struct ctl_command ctl_cmd_comment;
extern const struct ctl_command ctl_cmd_invite;
extern const struct ctl_command ctl_cmd_verify;

static const struct ctl_command *const commands[] = {
	&ctl_cmd_init,
	&ctl_cmd_army_list,
	&ctl_cmd_status,
	&ctl_cmd_export,
	&ctl_cmd_render,
	&ctl_cmd_check_mail,
	&ctl_cmd_backup,
	&ctl_cmd_simulate,
	&ctl_cmd_map,
	&ctl_cmd_publish,
	&ctl_cmd_open_setup,
	&ctl_cmd_start,
	&ctl_cmd_deadline,
	&ctl_cmd_pause,
	&ctl_cmd_resume,
	&ctl_cmd_process,
	&ctl_cmd_preview,
	&ctl_cmd_battle_result,
	&ctl_cmd_replace_player,
	&ctl_cmd_stand_in,
	&ctl_cmd_remove_player,
	&ctl_cmd_add_player,
	&ctl_cmd_undo,
	&ctl_cmd_comment,
	&ctl_cmd_invite,
	&ctl_cmd_verify,
	NULL,
};

/* A command works on a campaign database when its usage says -d DB; those
 * all take -c CONFIG as well. */
static bool takes_config(const struct ctl_command *cmd)
{
	return strstr(cmd->usage, "-d DB") != NULL;
}

static int run_command(const struct ctl_command *cmd, int argc, char **argv)
{
	int rc = cmd->run(argc, argv);
	ctl_config_release();
	return rc;
}

static void help(FILE *out)
{
	fprintf(out, "usage: campaignctl COMMAND [ARGS]\n\n"
		     "The organiser's tool for a campaignd campaign.\n\nCommands:\n");
	/* a name and what it does, wrapped to 79 columns; each command's
	 * synopsis is in its own --help */
	for (size_t i = 0; commands[i]; i++) {
		const char *s = commands[i]->summary;
		fprintf(out, "  %-15s", commands[i]->name);
		while (*s) {
			size_t n = strlen(s), cut = n;
			if (n > 61)
				for (cut = 61; cut > 0 && s[cut] != ' '; cut--)
					;
			if (cut == 0)
				cut = n;
			fprintf(out, " %.*s\n", (int)cut, s);
			s += cut;
			while (*s == ' ')
				s++;
			if (*s)
				fprintf(out, "%17s", "");
		}
	}
	fprintf(out, "\nOptions:\n"
		     "  -c, --config CONFIG  before the command: the campaign whose configuration\n"
		     "                       is CONFIG, a file or a name\n"
		     "                       (club: " CONFDIR "/club.conf);\n"
		     "                       every command taking -d DB takes -c CONFIG as well\n"
		     "  -h, --help           show this help\n"
		     "  -V, --version        show the version\n\n"
		     "'campaignctl COMMAND --help' or 'campaignctl help COMMAND' shows a\n"
		     "command's options. See campaignctl(1).\n");
}

static const struct ctl_command *find(const char *name)
{
	for (size_t i = 0; commands[i]; i++)
		if (strcmp(name, commands[i]->name) == 0)
			return commands[i];
	return NULL;
}

/* CMD --help anywhere before a "--", or CMD -h first: GNU habits. */
static bool wants_help(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[2], "-h") == 0)
		return true;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return EX_USAGE;
	}
	/* campaignctl -c CONFIG COMMAND ARGS: as COMMAND -c CONFIG ARGS. */
	const char *config = NULL;
	if (strcmp(argv[1], "-c") == 0 || strcmp(argv[1], "--config") == 0) {
		if (argc < 4) {
			help(stderr);
			return EX_USAGE;
		}
		config = argv[2];
		argc -= 2;
		argv += 2;
	} else if (strncmp(argv[1], "--config=", 9) == 0 && argc >= 3) {
		config = argv[1] + 9;
		argc -= 1;
		argv += 1;
	}
	if (strcmp(argv[1], "help") == 0 && argc == 3 && strcmp(argv[2], "help") != 0 &&
	    strcmp(argv[2], "--help") != 0 && strcmp(argv[2], "-h") != 0) {
		const struct ctl_command *cmd = find(argv[2]);
		if (!cmd) {
			fprintf(stderr, "campaignctl help: unknown command \"%s\" (see campaignctl --help)\n",
				argv[2]);
			return EX_USAGE;
		}
		ctl_command_help(cmd);
		return EX_OK;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		help(stdout);
		return EX_OK;
	}
	/* --version is global: wherever it comes, before a "--" */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--version") == 0 || (i == 1 && strcmp(argv[i], "-V") == 0)) {
			printf("campaignctl (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
			return EX_OK;
		}
	const struct ctl_command *cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "campaignctl: unknown command \"%s\" (see campaignctl --help)\n",
			argv[1]);
		return EX_USAGE;
	}
	if (wants_help(argc, argv)) {
		ctl_command_help(cmd);
		return EX_OK;
	}
	static char prog[64];
	snprintf(prog, sizeof prog, "campaignctl %s", cmd->name);
	ctl_prog = prog;
	/* getopt's own messages (an unknown option) name the program and
	 * the subcommand, as every other error does */
	argv[1] = prog;
	if (!config)
		return run_command(cmd, argc - 1, argv + 1);
	if (!takes_config(cmd)) {
		fprintf(stderr, "%s: this command works on no campaign; -c is not for it\n", ctl_prog);
		return EX_USAGE;
	}
	/* as COMMAND -c CONFIG ARGS */
	int n = argc - 1;
	char **args = xcalloc((size_t)n + 3, sizeof *args);
	args[0] = prog;
	args[1] = (char *)"-c";
	args[2] = (char *)config;
	for (int i = 1; i < n; i++)
		args[i + 2] = argv[1 + i];
	int rc = run_command(cmd, n + 2, args);
	free(args);
	return rc;
}
