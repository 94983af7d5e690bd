/* campaignctl map: the current campaign map as an SVG file, or as PNG when
 * the output file's name ends in ".png". */
#include "config.h"

#include "cli/campaignctl.h"
#include "dbm/diary.h"
#include "text/map_png.h"
#include "text/map_svg.h"
#include "store/store.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <unistd.h>

static int run_map(int argc, char **argv);

const struct ctl_command ctl_cmd_map = {
	.name = "map",
	.usage = "map -d DB [-o FILE] [--no-armies]",
	.summary = "write the current campaign map as SVG (or PNG)",
	.options = "  -d, --database DB     the campaign database\n"
		    "  -o, --output FILE     write the map there (default: standard output);\n"
		    "                        a FILE ending in .png gets a PNG rendering\n"
		    "      --no-armies       the provinces only\n",
	.run = run_map,
};

/* Writes through a temporary file beside `path` so a reader never sees a
 * half-written map. */
static int write_file(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	int rc = EX_OK;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, tmp, strerror(errno));
		free(tmp);
		return EX_CANTCREAT;
	}
	bool failed = fwrite(data, 1, len, f) != len || fflush(f) != 0;
	failed = fclose(f) != 0 || failed;
	if (failed || rename(tmp, path) != 0) {
		fprintf(stderr, "%s: %s: %s\n", ctl_prog, path, strerror(errno));
		unlink(tmp);
		rc = EX_IOERR;
	}
	free(tmp);
	return rc;
}

static int run_map(int argc, char **argv)
{
	static const struct option options[] = {
		{"database", required_argument, NULL, 'd'},
		{"config", required_argument, NULL, 'c'},
		{"output", required_argument, NULL, 'o'},
		{"no-armies", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	const char *db = NULL, *output = NULL;
	struct map_svg_options mo;
	map_svg_options_default(&mo);
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:d:o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'n':
			mo.show_armies = false;
			break;
		case 'h':
			printf("usage: campaignctl %s\n\n"
			       "Writes the campaign map as it stands (owners, home provinces, routes,\n"
			       "field armies with their AP, sieges) as SVG to FILE or standard output;\n"
			       "as PNG when FILE ends in .png.\n",
			       ctl_cmd_map.usage);
			return EX_OK;
		default:
			return ctl_usage(&ctl_cmd_map);
		}
	}
	int crc = ctl_config_database(config, &db);
	if (crc != EX_OK)
		return crc;
	if (!db || optind != argc)
		return ctl_usage(&ctl_cmd_map);

	struct store *s = NULL;
	struct campaign *c = NULL;
	char *err = NULL;
	json_t *events = NULL, *marks = NULL;
	int status = store_open(db, STORE_READONLY, &s, &err);
	if (status == STORE_OK)
		status = store_load_campaign(s, &c, &err);
	if (status == STORE_OK)
		status = store_events(s, c->year, &events, &err);
	store_close(s);
	if (status != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err ? err : db);
		free(err);
		campaign_free(c);
		return store_status_exit_code(status);
	}
	marks = diary_map_marks(c, events, c->year);
	mo.marks = marks;
	char *svg = map_svg(c, &mo);
	json_decref(marks);
	json_decref(events);
	campaign_free(c);
	int rc = EX_OK;
	size_t n = output ? strlen(output) : 0;
	if (n > 4 && strcasecmp(output + n - 4, ".png") == 0) {
		unsigned char *png = NULL;
		size_t png_len = 0;
		if (map_png(svg, strlen(svg), 1.0, &png, &png_len, &err) != 0) {
			fprintf(stderr, "%s: %s\n", ctl_prog, err);
			free(err);
			rc = EX_SOFTWARE;
		} else {
			rc = write_file(output, (const char *)png, png_len);
		}
		free(png);
	} else if (output && strcmp(output, "-") != 0) {
		rc = write_file(output, svg, strlen(svg));
	} else if (fputs(svg, stdout) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "%s: standard output: %s\n", ctl_prog, strerror(errno));
		rc = EX_IOERR;
	}
	free(svg);
	return rc;
}
