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
	const char *db = NULL, *address = NULL, *templates_dir = NULL;
	static const struct option opts[] = {
		{"database", required_argument, NULL, 'd'},
		{"address", required_argument, NULL, 'a'},
		{"templates", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "d:a:t:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd': db = optarg; break;
		case 'a': address = optarg; break;
		case 't': templates_dir = optarg; break;
		default: return ctl_usage(&ctl_cmd_check_mail);
		}
	}
	if (!db || optind != argc - 1)
		return ctl_usage(&ctl_cmd_check_mail);
	const char *file = argv[optind];
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
	if (!f) {
		fprintf(stderr, "campaignctl: %s: %s\n", file, strerror(errno));
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
		fprintf(stderr, "campaignctl: %s\n", err);
		free(err);
		free(raw);
		return store_status_exit_code(rc);
	}
	if (!address && store_kv_get(store, "campaign-address", &stored_address, NULL) == STORE_OK)
		address = stored_address;
	struct templates *tpl = templates_new(templates_dir);
	struct engine_config cfg = {
		.campaign_address = address ? address : "campaign@invalid",
		.mailbox = "check-mail",
	};
	struct engine *e = engine_new(store, tpl, &cfg);
	struct engine_outcome out;
	int status;
	if (engine_process_mail(e, 0, 0, raw, len, (int64_t)time(NULL), true, &out, &err) != 0) {
		fprintf(stderr, "campaignctl: %s: %s\n", file, err ? err : "failed");
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
	return status;
}

const struct ctl_command ctl_cmd_check_mail = {
	.name = "check-mail",
	.usage = "check-mail -d DB [--address ADDR] [--templates DIR] FILE.eml",
	.summary = "show how a mail would be read and answered, changing nothing",
	.run = run,
};
