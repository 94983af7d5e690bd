/* campaignctl: the organiser's tool. Each subcommand lives in its own
 * ctl_<name>.c and exports one struct ctl_command, listed in campaignctl.c. */
#ifndef CAMPAIGN_CTL_H
#define CAMPAIGN_CTL_H

struct ctl_command {
	const char *name;
	const char *usage;   /* e.g. "init FILE -d DB [--force]" */
	const char *summary; /* one line for --help */
	/* argv[0] is the subcommand name. Returns a sysexits.h code. */
	int (*run)(int argc, char **argv);
};

/* Prints "usage: campaignctl <usage>" for cmd to stderr; returns EX_USAGE. */
int ctl_usage(const struct ctl_command *cmd);

#endif
