/* campaignctl: the organiser's tool. Each subcommand lives in its own
 * ctl_<name>.c and exports one struct ctl_command, listed in campaignctl.c. */
#ifndef CAMPAIGN_CTL_H
#define CAMPAIGN_CTL_H

struct ctl_command {
	const char *name;
	const char *usage;   /* e.g. "init FILE -d DB [--force]" */
	const char *summary; /* one line for --help */
	const char *options; /* its options, one line each, for CMD --help */
	/* argv[0] is the subcommand name. Returns a sysexits.h code. */
	int (*run)(int argc, char **argv);
};

/* "campaignctl CMD" while a subcommand runs ("campaignctl" before): what
 * its error messages start with, so that a script's log says which command
 * failed. */
extern const char *ctl_prog;

/* Prints "usage: campaignctl <usage>" for cmd to stderr; returns EX_USAGE. */
int ctl_usage(const struct ctl_command *cmd);
/* Prints cmd's usage, summary and options to stdout (CMD --help). */
void ctl_command_help(const struct ctl_command *cmd);

/* -c CONFIG for the commands that take -d DB (ctl_config.c): unless *db is
 * already set (-d wins), sets it to the database named by the configuration
 * CONFIG, a path or an instance name ("club": /etc/campaignd/club.conf, see
 * conf_path_for). Password files and commands are left alone. Returns a
 * sysexits code (EX_OK, or EX_CONFIG/EX_USAGE after printing why); the
 * path lives until ctl_config_release, which main calls when the command
 * has returned. Without CONFIG (NULL) it does nothing and returns EX_OK. */
int ctl_config_database(const char *config, const char **db);
void ctl_config_release(void);

#endif
