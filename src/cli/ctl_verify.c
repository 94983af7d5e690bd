/* campaignctl verify: re-derives every recorded roll of the years whose
 * seed was revealed and checks each seed against its commitment
 * (doc/dice.md). Exit 0 if everything matches, 1 if anything does not. */
#include "config.h"

#include "cli/ctl_year.h"
#include "model/dice.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

extern const struct ctl_command ctl_cmd_verify;

/* Checks the rolls of one year; returns the number of mismatches. */
static int verify_year(const struct store_dice_year *row, const json_t *events, size_t *checked)
{
	unsigned char seed[DICE_SEED_BYTES];
	char commitment[DICE_COMMITMENT_HEX];
	int bad = 0;
	if (!dice_seed_from_hex(row->seed_hex, seed)) {
		printf("%d: the stored seed is not 64 hex digits\n", row->year);
		return 1;
	}
	dice_commitment(seed, commitment);
	if (strcmp(commitment, row->commitment) != 0) {
		printf("%d: MISMATCH: the seed does not hash to the published commitment %s\n",
		       row->year, row->commitment);
		bad++;
	}
	size_t i;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		if (!kind || strcmp(kind, "roll") != 0)
			continue;
		const char *phase = json_string_value(json_object_get(ev, "phase"));
		const char *purpose = json_string_value(json_object_get(ev, "purpose"));
		json_int_t counter = json_integer_value(json_object_get(ev, "counter"));
		int value = (int)json_integer_value(json_object_get(ev, "value"));
		(*checked)++;
		if (!phase || !purpose ||
		    !dice_verify(seed, row->year, phase, purpose, (unsigned long)counter, value)) {
			printf("%d: MISMATCH: roll %lld (%s, \"%s\") recorded as %d, the seed gives %d\n",
			       row->year, (long long)counter, phase ? phase : "?",
			       purpose ? purpose : "?", value,
			       phase && purpose ? dice_hmac_value(seed, row->year, phase, purpose,
								 (unsigned long)counter)
						: 0);
			bad++;
		}
	}
	sodium_memzero(seed, sizeof seed);
	return bad;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {CTL_YEAR_OPTIONS, {NULL, 0, NULL, 0}};
	struct ctl_year_opts o;
	ctl_year_opts_init(&o);
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CTL_YEAR_SHORT, opts, NULL)) != -1)
		if (!ctl_year_option(&o, ch, optarg))
			return ctl_usage(&ctl_cmd_verify);
	if (o.bad || optind != argc || !o.database)
		return ctl_usage(&ctl_cmd_verify);
	if (sodium_init() < 0)
		return EX_SOFTWARE;
	struct store *s = NULL;
	char *err = NULL;
	int rc = store_open(o.database, STORE_READONLY, &s, &err);
	if (rc != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err);
		free(err);
		return store_status_exit_code(rc);
	}
	struct store_dice_year *rows = NULL;
	size_t n = 0;
	int bad = 0;
	if (store_dice_years(s, &rows, &n, &err) != STORE_OK) {
		fprintf(stderr, "%s: %s\n", ctl_prog, err);
		free(err);
		store_close(s);
		return EX_IOERR;
	}
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].revealed) {
			printf("%d: not revealed yet (commitment %s); checked when the year ends\n",
			       rows[i].year, rows[i].commitment);
			continue;
		}
		json_t *events = NULL;
		if (store_events(s, rows[i].year, &events, &err) != STORE_OK) {
			fprintf(stderr, "%s: %s\n", ctl_prog, err);
			free(err);
			err = NULL;
			bad++;
			continue;
		}
		size_t checked = 0;
		int year_bad = verify_year(&rows[i], events, &checked);
		json_decref(events);
		printf("%d: seed %s: %zu roll%s checked, %s\n", rows[i].year, rows[i].seed_hex,
		       checked, checked == 1 ? "" : "s", year_bad ? "MISMATCHES FOUND" : "all match");
		bad += year_bad;
	}
	if (n == 0)
		printf("no dice have been rolled yet\n");
	free(rows);
	store_close(s);
	return bad ? 1 : EX_OK;
}

const struct ctl_command ctl_cmd_verify = {
	.name = "verify",
	.usage = "verify -d DB",
	.summary = "re-derive every roll of the revealed years from their seeds",
	.options = "  -d, --database DB     the campaign database\n",
	.run = run,
};
