/* campaignctl stand-in: the organiser names a stand-in for a player, or
 * ends one (rulebook 1.1; the same as a player's STAND-IN line, see
 * campaign-orders(7)). */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_stand_in;

enum { OPT_UNTIL = 2000, OPT_END, OPT_NAME };

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CTL_YEAR_OPTIONS,
		{"until", required_argument, NULL, OPT_UNTIL},
		{"end", no_argument, NULL, OPT_END},
		{"name", required_argument, NULL, OPT_NAME},
		{NULL, 0, NULL, 0},
	};
	struct ctl_year_opts o;
	const char *until = NULL, *name = NULL;
	bool end = false;
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT, opts, NULL)) != -1) {
		if (ch == OPT_UNTIL)
			until = optarg;
		else if (ch == OPT_END)
			end = true;
		else if (ch == OPT_NAME)
			name = optarg;
		else if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_stand_in);
	}
	int args = argc - optind;
	if (o.bad || (end && (args != 1 || until || name)) || (!end && (args != 2 || !until)))
		return ctl_usage(&ctl_cmd_stand_in);
	if (sodium_init() < 0)
		return EX_SOFTWARE;
	struct ctl_year y;
	int rc = ctl_year_open(&y, &o);
	if (rc != EX_OK) {
		ctl_year_close(&y);
		return rc;
	}
	char *report = NULL, *err = NULL;
	if (end)
		rc = engine_stand_in_end_by_organiser(y.engine, argv[optind], o.now, &report, &err);
	else
		rc = engine_stand_in_name(y.engine, argv[optind], argv[optind + 1], name, until,
					  o.now, &report, &err);
	ctl_year_close(&y);
	return ctl_year_finish(rc, report, err);
}

const struct ctl_command ctl_cmd_stand_in = {
	.name = "stand-in",
	.usage = "stand-in -d DB PLAYER ADDRESS --until DATE [--name NAME] | "
		 "stand-in -d DB PLAYER --end",
	.summary = "name a stand-in for a player until a date, or end it",
	.options = CTL_YEAR_HELP
		    "      --until DATE      the last day of standing in (2026-12-24,\n"
		    "                        24 December 2026), in the campaign's time zone\n"
		    "      --name NAME       the stand-in's name (the diary shows it)\n"
		    "      --end             end the player's stand-in now\n",
	.run = run,
};
