/* campaignctl check-mail: what the daemon would do with one mail, without
 * doing it. */
#include "config.h"

#include "cli/campaignctl.h"
#include "daemon/conf.h"
#include "engine/engine.h"
#include "base/fileio.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

/* Exit statuses, documented in campaignctl(1). */
#define CHECK_ACCEPTED 0
#define CHECK_REJECTED 1
#define CHECK_NOT_ORDERS 2

extern const struct ctl_command ctl_cmd_check_mail;

static int run(int argc, char **argv)
{
	const char *db = NULL, *address = NULL, *templates_dir = NULL, *config = NULL;
	static const struct option opts[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{"address", required_argument, NULL, 'a'},
		{"templates", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "d:c:a:t:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd': db = optarg; break;
		case 'c': config = optarg; break;
		case 'a': address = optarg; break;
		case 't': templates_dir = optarg; break;
		default: return ctl_usage(&ctl_cmd_check_mail);
		}
	}
	if ((!db && !config) || optind != argc - 1)
		return ctl_usage(&ctl_cmd_check_mail);
	/* The daemon's configuration: its database, address, templates and
	 * limits, so the mail is read and answered exactly as campaignd would. */
	struct conf *cfg = NULL;
	if (config) {
		/* a file, or an instance's name (club: /etc/campaignd/club.conf) */
		char *cerr = NULL, *path = conf_path_for(config, &cerr);
		if (!path) {
			fprintf(stderr, "%s: %s\n", ctl_prog, cerr);
			free(cerr);
			return EX_USAGE;
		}
		struct diag_list diags = {0};
		cfg = conf_load_no_secrets(path, &diags);
		free(path);
		diag_print(&diags, stderr);
		diag_free(&diags);
		if (!cfg)
			return EX_CONFIG;
		if (!db)
			db = cfg->database;
		if (!address)
			address = cfg->campaign_address;
		if (!templates_dir)
			templates_dir = cfg->templates_dir;
	}
	const char *file = argv[optind];
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, file, strerror(errno));
		conf_free(cfg);
		return EX_NOINPUT;
	}
	size_t len;
	char *raw = file_read_stream(f, 0, &len);
	if (f != stdin)
		fclose(f);

	struct store *store = NULL;
	char *err = NULL, *stored_address = NULL;
	int rc = store_open(db, 0, &store, &err);
	if (rc != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err);
		free(err);
		free(raw);
		conf_free(cfg);
		return store_status_exit_code(rc);
	}
	if (!address && store_kv_get(store, "campaign-address", &stored_address, NULL) == STORE_OK)
		address = stored_address;
	struct templates *tpl = templates_new(templates_dir);
	/* no publish folder: checking a mail never writes the web diary */
	struct engine_config ec = {
		.campaign_address = address ? address : "campaign@invalid",
		.from_name = cfg ? cfg->campaign_from_name : NULL,
		.mailbox = "check-mail",
		.limits = {.max_bytes = cfg ? cfg->max_message_bytes : 0},
		.rate_limit_per_hour = cfg ? cfg->rate_limit_per_hour : 0,
	};
	struct engine *e = engine_new(store, tpl, &ec);
	struct engine_outcome out;
	int status;
	if (engine_process_mail(e, 0, 0, raw, len, (int64_t)time(NULL), true, &out, &err) != 0) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, file, err ? err : "failed");
		free(err);
		status = EX_SOFTWARE;
	} else {
		printf("From:          %s\n", out.sender ? out.sender : "(none)");
		printf("Message-ID:    %s\n", out.message_id ? out.message_id : "(none)");
		if (out.organiser)
			printf("Authenticated: yes, as the organiser\n");
		else if (out.player)
			printf("Authenticated: %s, as %s\n", out.authenticated ? "yes" : "NO",
			       out.player);
		else
			printf("Authenticated: no\n");
		printf("Verdict:       %s: %s\n", engine_verdict_name(out.verdict),
		       out.summary ? out.summary : "");
		if (out.verdict == ENGINE_ACCEPTED && !out.organiser)
			printf("Line errors:   %zu\n", out.order_errors);
		if (out.orders_understood)
			printf("\nCurrent orders after this mail:\n%s", out.orders_understood);
		if (out.reply) {
			printf("\nReply to %s:\n", out.reply_to);
			fputs(out.reply, stdout);
		} else {
			printf("\nNo reply would be sent.\n");
		}
		printf("\n(nothing was changed)\n");
		status = out.verdict == ENGINE_ACCEPTED ? CHECK_ACCEPTED
			 : out.verdict == ENGINE_REJECTED ? CHECK_REJECTED
							  : CHECK_NOT_ORDERS;
		engine_outcome_free(&out);
	}
	engine_free(e);
	templates_free(tpl);
	store_close(store);
	free(stored_address);
	free(raw);
	conf_free(cfg);
	return status;
}

const struct ctl_command ctl_cmd_check_mail = {
	.name = "check-mail",
	.usage = "check-mail {-d DB | -c CONFIG} [--address ADDR] [--templates DIR] FILE.eml",
	.summary = "show how a mail would be read and answered, changing nothing",
	.options = "  -c, --config CONFIG   read the database, address, templates and limits\n"
		    "                        from the daemon's configuration\n"
		    "  -d, --database DB     the campaign database\n"
		    "      --address ADDR    the campaign's address (default: campaign@invalid)\n"
		    "      --templates DIR   the mail templates' folder\n",
	.run = run,
};
