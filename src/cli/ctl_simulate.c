/* campaignctl simulate: a campaign file and a script of orders, battle
 * results and dice played offline through the rules (doc/scenario.md). */
#include "config.h"

#include "model/campaign_file.h"
#include "model/campaign_json.h"
#include "cli/campaignctl.h"
#include "engine/scenario.h"
#include "base/fileio.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

static int run_simulate(int argc, char **argv);

const struct ctl_command ctl_cmd_simulate = {
	.name = "simulate",
	.usage = "simulate SCENARIO [--json] [--seed HEX] [--keep-going]",
	.summary = "play a scenario of orders offline and print the events",
	.options = "  -j, --json            the result as JSON\n"
		    "  -s, --seed HEX        the dice seed (64 hex digits)\n"
		    "  -k, --keep-going      go on after a failed expectation\n",
	.run = run_simulate,
};

/* The campaign file named in the scenario, relative to the scenario's folder. */
static char *campaign_path(const char *scenario_path, const char *name)
{
	const char *slash = strrchr(scenario_path, '/');
	if (name[0] == '/' || !slash)
		return xstrdup(name);
	return xasprintf("%.*s/%s", (int)(slash - scenario_path), scenario_path, name);
}

static int print_summary(const struct event_log *log, const struct campaign *c)
{
	for (size_t i = 0; i < log->count; i++) {
		char *line = scenario_event_line(log->events[i]);
		puts(line);
		free(line);
	}
	char *standings = scenario_standings(c);
	printf("\n%s", standings);
	free(standings);
	return 0;
}

static int print_json(const struct event_log *log, const struct campaign *c)
{
	json_t *events = json_array();
	for (size_t i = 0; i < log->count; i++)
		json_array_append(events, log->events[i]);
	json_t *doc = json_pack("{s:o, s:o}", "events", events, "state", campaign_to_json(c));
	int rc = json_dumpf(doc, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(doc);
	return rc;
}

static int run_simulate(int argc, char **argv)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"seed", required_argument, NULL, 's'},
		{"keep-going", no_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct scenario_options opt = {0};
	bool json = false;
	int c_opt;
	optind = 1;
	while ((c_opt = getopt_long(argc, argv, "jks:h", options, NULL)) != -1) {
		switch (c_opt) {
		case 'j':
			json = true;
			break;
		case 'k':
			opt.keep_going = true;
			break;
		case 's':
			if (!dice_seed_from_hex(optarg, opt.seed)) {
				fprintf(stderr, "%s: --seed takes 64 hexadecimal digits\n", ctl_prog);
				return EX_USAGE;
			}
			opt.use_seed = true;
			break;
		case 'h':
			printf("usage: campaignctl %s\n\n"
			       "Plays the scenario (a campaign file, the players' orders, battle\n"
			       "results and dice; see doc/scenario.md) through the rules and prints\n"
			       "every event and the final standings, or with --json the document\n"
			       "{\"events\": [...], \"state\": {...}}. --seed rolls verifiable dice\n"
			       "with that seed instead of the scenario's dice; --keep-going skips a\n"
			       "refused order instead of stopping.\n",
			       ctl_cmd_simulate.usage);
			return EX_OK;
		default:
			return ctl_usage(&ctl_cmd_simulate);
		}
	}
	if (optind + 1 != argc)
		return ctl_usage(&ctl_cmd_simulate);
	const char *path = argv[optind];

	size_t len = 0;
	char *text = file_read_all(path, 0, &len);
	if (!text) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, path, strerror(errno));
		return EX_NOINPUT;
	}
	struct diag_list diags = {0};
	struct scenario *s = scenario_parse(text, len, path, &diags);
	free(text);
	if (!s) {
		diag_print(&diags, stderr);
		diag_free(&diags);
		return EX_DATAERR;
	}
	char *cpath = campaign_path(path, s->campaign_path);
	FILE *probe = fopen(cpath, "rb");
	if (!probe) {
		fprintf(stderr, "%s:%d: error: cannot read the campaign file %s: %s\n", path,
			s->campaign_line, cpath, strerror(errno));
		free(cpath);
		scenario_free(s);
		diag_free(&diags);
		return EX_NOINPUT;
	}
	fclose(probe);
	struct campaign *c = campaign_file_load(cpath, &diags);
	free(cpath);
	int status = EX_OK;
	if (!c || scenario_resolve(s, c, &diags) > 0) {
		diag_print(&diags, stderr);
		status = EX_DATAERR;
		goto done;
	}
	struct event_log log;
	event_log_init(&log);
	event_log_set_time(&log, c->year, c->phase);
	enum scenario_status st = scenario_run(s, c, &opt, &log, &diags);
	diag_print(&diags, stderr);
	int rc = json ? print_json(&log, c) : print_summary(&log, c);
	event_log_free(&log);
	if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", ctl_prog, strerror(errno));
		status = EX_IOERR;
	} else if (st != SCENARIO_OK) {
		status = EX_DATAERR;
	}
done:
	campaign_free(c);
	scenario_free(s);
	diag_free(&diags);
	return status;
}
