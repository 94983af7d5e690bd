/* Shared by the campaignctl commands that run the campaign year. */
#include "config.h"

#include "cli/ctl_year.h"
#include "base/util.h"
#include "base/wake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

void ctl_year_opts_init(struct ctl_year_opts *o)
{
	memset(o, 0, sizeof *o);
	o->now = (int64_t)time(NULL);
}

bool ctl_year_option(struct ctl_year_opts *o, int ch, const char *arg)
{
	char *end = NULL;
	switch (ch) {
	case 'd': o->database = arg; return true;
	case 'c': o->config = arg; return true;
	case CTL_OPT_ADDRESS: o->address = arg; return true;
	case CTL_OPT_TEMPLATES: o->templates = arg; return true;
	case CTL_OPT_NOW:
		o->now = strtoll(arg, &end, 10);
		if (!*arg || *end || o->now < 0) {
			fprintf(stderr, "%s: --now wants seconds since the epoch, not \"%s\"\n", ctl_prog,
				arg);
			o->bad = true;
		}
		return true;
	}
	return false;
}

int ctl_year_open(struct ctl_year *y, const struct ctl_year_opts *o)
{
	memset(y, 0, sizeof *y);
	if (o->config) {
		char *err = NULL;
		char *path = conf_path_for(o->config, &err);
		if (!path) {
			fprintf(stderr, "campaignctl: -c %s\n", err);
			free(err);
			return EX_USAGE;
		}
		/* campaignctl never logs in: no password file read, no command run */
		struct diag_list diags = {0};
		y->cfg = conf_load_no_secrets(path, &diags);
		free(path);
		diag_print(&diags, stderr);
		diag_free(&diags);
		if (!y->cfg)
			return EX_CONFIG;
	}
	const char *db = o->database ? o->database : y->cfg ? y->cfg->database : NULL;
	if (!db) {
		fprintf(stderr, "%s: name the database with -d DB (or -c CONFIG)\n", ctl_prog);
		return EX_USAGE;
	}
	y->database = xstrdup(db);
	char *err = NULL;
	int rc = store_open(db, 0, &y->store, &err);
	if (rc != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err);
		free(err);
		return store_status_exit_code(rc);
	}
	char *stored = NULL;
	if (o->address)
		y->address = xstrdup(o->address);
	else if (y->cfg && y->cfg->campaign_address)
		y->address = xstrdup(y->cfg->campaign_address);
	else if (store_kv_get(y->store, "campaign-address", &stored, NULL) == STORE_OK && stored)
		y->address = stored;
	else
		y->address = xstrdup("campaign@invalid");
	y->tpl = templates_new(o->templates ? o->templates : y->cfg ? y->cfg->templates_dir : NULL);
	struct engine_config ec = {
		.campaign_address = y->address,
		.from_name = y->cfg ? y->cfg->campaign_from_name : NULL,
		.mailbox = "campaignctl",
		.publish_dir = y->cfg ? y->cfg->publish_dir : NULL,
	};
	y->engine = engine_new(y->store, y->tpl, &ec);
	return EX_OK;
}

void ctl_year_close(struct ctl_year *y)
{
	if (y->engine && engine_outbox_next_due(y->engine, (int64_t)time(NULL)) >= 0)
		wake_daemon(y->database);
	free(y->database);
	engine_free(y->engine);
	templates_free(y->tpl);
	store_close(y->store);
	conf_free(y->cfg);
	free(y->address);
	memset(y, 0, sizeof *y);
}

int ctl_year_finish(int rc, char *report, char *err)
{
	int code = EX_OK;
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err ? err : "failed");
		code = err && strstr(err, "busy") ? EX_TEMPFAIL : EX_SOFTWARE;
	} else {
		if (report)
			fputs(report, rc == 1 ? stderr : stdout);
		code = rc == 1 ? 1 : EX_OK;
	}
	free(report);
	free(err);
	return code;
}

int ctl_year_run(const struct ctl_year_opts *o, ctl_year_step step, const void *arg)
{
	struct ctl_year y;
	int rc = ctl_year_open(&y, o);
	if (rc != EX_OK) {
		ctl_year_close(&y);
		return rc;
	}
	char *report = NULL, *err = NULL;
	rc = step(y.engine, o->now, arg, &report, &err);
	ctl_year_close(&y);
	return ctl_year_finish(rc, report, err);
}

static int action_step(struct engine *e, int64_t now, const void *arg, char **report, char **err)
{
	return engine_action(e, arg, now, report, err);
}

int ctl_year_action(const struct ctl_year_opts *o, const struct engine_action_request *req)
{
	return ctl_year_run(o, action_step, req);
}

int ctl_year_simple(const struct ctl_command *cmd, int argc, char **argv, enum engine_action action,
		    ctl_year_fill fill)
{
	static const struct option opts[] = {CTL_YEAR_OPTIONS, {NULL, 0, NULL, 0}};
	struct ctl_year_opts o;
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT, opts, NULL)) != -1)
		if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(cmd);
	struct engine_action_request req = {.action = action};
	if (o.bad || (!fill && optind != argc) ||
	    (fill && !fill(&req, argc - optind, argv + optind)))
		return ctl_usage(cmd);
	return ctl_year_action(&o, &req);
}

bool ctl_year_one_arg(struct engine_action_request *req, int argc, char **argv)
{
	if (argc != 1)
		return false;
	req->arg = argv[0];
	return true;
}
