/* campaignctl init: creates the campaign database from a campaign file and
 * gives every player and the organiser a password, shown once. */
#include "config.h"

#include "model/campaign_file.h"
#include "cli/campaignctl.h"
#include "engine/engine.h"
#include "base/diag.h"
#include "store/store.h"
#include "base/util.h"

#include <getopt.h>
#include <sodium.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

static void print_cell(const char *s, size_t width)
{
	fputs(s, stdout);
	for (size_t w = utf8_columns(s); w < width; w++)
		putchar(' ');
}

struct password_row {
	const char *nation, *name, *email;
	char password[ENGINE_PASSWORD_SIZE];
};

static void print_passwords(const char *db, const struct campaign *c,
			    const struct password_row *rows, size_t n)
{
	static const char *const head[] = {"NATION", "PLAYER", "EMAIL", "PASSWORD"};
	size_t width[3];
	for (size_t col = 0; col < 3; col++)
		width[col] = utf8_columns(head[col]);
	for (size_t i = 0; i < n; i++) {
		const char *cells[] = {rows[i].nation, rows[i].name, rows[i].email};
		for (size_t col = 0; col < 3; col++)
			if (utf8_columns(cells[col]) > width[col])
				width[col] = utf8_columns(cells[col]);
	}

	printf("Campaign \"%s\" created in %s: %zu players, %zu provinces, year %d.\n\n",
	       c->name ? c->name : "", db, c->player_count, c->province_count, c->year);
	printf("Passwords (shown only this once: the database keeps only their hashes).\n"
	       "Send each player theirs privately; it goes into every order mail.\n\n");
	for (size_t col = 0; col < 4; col++) {
		if (col < 3) {
			print_cell(head[col], width[col]);
			fputs("  ", stdout);
		} else {
			puts(head[col]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const char *cells[] = {rows[i].nation, rows[i].name, rows[i].email};
		for (size_t col = 0; col < 3; col++) {
			print_cell(cells[col], width[col]);
			fputs("  ", stdout);
		}
		puts(rows[i].password);
	}
}

/* Removes a database file this run created but could not fill. */
static void remove_new_database(const char *db)
{
	static const char *const suffixes[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
		char *f = xasprintf("%s%s", db, suffixes[i]);
		unlink(f);
		free(f);
	}
}

static int run_init(int argc, char **argv);

const struct ctl_command ctl_cmd_init = {
	.name = "init",
	.usage = "init FILE -d DB [--force]",
	.summary = "create the campaign database from a campaign file",
	.options = "  -d, --database DB     the campaign database\n"
		    "  -f, --force           replace an existing database\n",
	.run = run_init,
};

static int run_init(int argc, char **argv)
{
	static const struct option options[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	const char *db = NULL;
	bool force = false;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:d:fh", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			printf("usage: campaignctl %s\n\n"
			       "Reads and checks the campaign FILE (campaign(5)), creates the\n"
			       "database DB and prints a new password for each player and the\n"
			       "organiser. --force replaces a campaign already in DB.\n",
			       ctl_cmd_init.usage);
			return EX_OK;
		default:
			return ctl_usage(&ctl_cmd_init);
		}
	}
	int crc = ctl_config_database(config, &db);
	if (crc != EX_OK)
		return crc;
	if (!db || optind != argc - 1)
		return ctl_usage(&ctl_cmd_init);
	const char *file = argv[optind];

	struct diag_list diags = {0};
	struct campaign *c = campaign_file_load(file, &diags);
	diag_print(&diags, stderr);
	if (!c || diags.errors) {
		if (diags.errors)
			fprintf(stderr, "%s: %s: %zu error%s, no database written\n", ctl_prog, file,
				diags.errors, diags.errors == 1 ? "" : "s");
		diag_free(&diags);
		campaign_free(c);
		return EX_DATAERR;
	}
	diag_free(&diags);
	if (sodium_init() < 0) {
		fprintf(stderr, "%s: libsodium could not be initialised\n", ctl_prog);
		campaign_free(c);
		return EX_SOFTWARE;
	}

	struct stat sb;
	bool existed = stat(db, &sb) == 0;
	struct store *s = NULL;
	char *err = NULL;
	size_t n = c->player_count + 1;
	struct password_row *rows = xcalloc(n, sizeof *rows);
	int status = store_open(db, STORE_CREATE, &s, &err);
	if (status == STORE_OK)
		status = store_begin(s, &err);
	if (status == STORE_OK)
		status = store_init_campaign(s, c, force, &err);
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		rows[i].nation = p->nation ? p->nation : p->key;
		rows[i].name = p->name ? p->name : "";
		rows[i].email = p->email ? p->email : "";
		engine_generate_password(rows[i].password);
		status = store_set_password(s, p->key, rows[i].password, &err);
	}
	if (status == STORE_OK) {
		struct password_row *org = &rows[n - 1];
		org->nation = "(organiser)";
		org->name = c->organiser_name ? c->organiser_name : "";
		org->email = c->organiser_email ? c->organiser_email : "";
		engine_generate_password(org->password);
		status = store_set_password(s, STORE_ORGANISER, org->password, &err);
	}
	if (status == STORE_OK)
		status = store_commit(s, &err);
	store_close(s);

	int rc = EX_OK;
	if (status == STORE_EXISTS) {
		fprintf(stderr,
			"%s: %s\n"
			"%s: use --force to replace it (its state, events and orders are"
			" deleted)\n",
			ctl_prog, err, ctl_prog);
		rc = EX_CANTCREAT;
	} else if (status != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err ? err : db);
		/* A database that cannot even be created or written is a
		 * "cannot create" for the caller, whatever SQLite called it. */
		rc = status == STORE_ERROR ? EX_CANTCREAT : store_status_exit_code(status);
		if (!existed)
			remove_new_database(db);
	} else {
		print_passwords(db, c, rows, n);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "%s: standard output: %s\n", ctl_prog, strerror(errno));
			fprintf(stderr, "%s: the passwords may not have been shown; run"
					" campaignctl init --force to make new ones\n", ctl_prog);
			rc = EX_IOERR;
		}
	}
	sodium_memzero(rows, n * sizeof *rows);
	free(rows);
	free(err);
	campaign_free(c);
	return rc;
}
