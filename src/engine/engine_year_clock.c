/* The year driven by the clock: the organiser's start, and the tick that
 * passes deadlines, sends reminders and notices our own downtime. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "engine/engine_setup_p.h"
#include "dbm/rules.h"
#include "dbm/year.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- start, tick */

struct start_arg {
	int64_t now;
	const char *seed_hex;
	bool force;
};

static int start_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct start_arg *a = arg;
	struct yctx y;
	int rc = -1;
	char why[WHY_MAX];
	if (yctx_open(&y, e, a->now, false, errstr) != 0)
		goto done;
	if (a->seed_hex &&
	    store_kv_set(e->store, KV_MASTER_SEED, a->seed_hex, errstr) != STORE_OK)
		goto done;
	struct strbuf setup = {0};
	why[0] = '\0';
	if (y.st.step == YEAR_IDLE && y.c->phase == PHASE_SETUP &&
	    setup_apply(&y, a->force, &setup, why, sizeof why) != 0) {
		strbuf_free(&setup);
		if (y.err) {
			*errstr = y.err;
			y.err = NULL;
		}
		goto done;
	}
	if (why[0] || year_start(&y.run, why, sizeof why) != 0) {
		strbuf_free(&setup);
		*report = xstrdup(why);
		rc = 1;
		goto done;
	}
	yctx_announce(&y, "start", "the campaign has started");
	if (yctx_save(&y, errstr) != 0) {
		strbuf_free(&setup);
		goto done;
	}
	char *st = yctx_status_text(&y);
	strbuf_puts(&setup, st);
	free(st);
	*report = strbuf_take(&setup);
	rc = 0;
done:
	yctx_free(&y);
	return rc;
}

int engine_start(struct engine *e, int64_t now, const char *seed_hex, char **report,
		 char **errstr)
{
	return engine_start_setup(e, now, seed_hex, false, report, errstr);
}

int engine_start_setup(struct engine *e, int64_t now, const char *seed_hex, bool force,
		       char **report, char **errstr)
{
	unsigned char seed[DICE_SEED_BYTES];
	*report = NULL;
	if (seed_hex && !dice_seed_from_hex(seed_hex, seed)) {
		*report = xstrdup("the seed must be 64 hexadecimal digits (32 bytes)");
		return 1;
	}
	struct start_arg a = {now, seed_hex, force};
	return engine_year_transaction(e, start_fn, &a, report, errstr);
}

struct tick_arg {
	int64_t now, max_gap;
	struct engine_tick_info *info;
};

static int tick_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	struct tick_arg *a = arg;
	struct yctx y;
	(void)report;
	int rc = -1;
	char *last_text = NULL, buf[32];
	if (yctx_open(&y, e, a->now, false, errstr) != 0)
		goto done;
	if (store_kv_get(e->store, KV_LAST_RUN, &last_text, errstr) != STORE_OK)
		goto done;
	int64_t last = last_text ? strtoll(last_text, NULL, 10) : 0;
	bool running = y.st.step != YEAR_IDLE && y.st.step != YEAR_ENDED;
	if (last_text)
		a->info->gap = a->now - last;
	snprintf(buf, sizeof buf, "%" PRId64, a->now);
	if (store_kv_set(e->store, KV_LAST_RUN, buf, errstr) != STORE_OK)
		goto done;
	if (!running) {
		rc = 0; /* nothing runs before the start or after the end */
		goto done;
	}
	if (last_text && a->now < last) {
		a->info->clock_backwards = true;
		event_emit(&y.log, "clock", RULE_GAME_YEAR, "{s:s, s:I, s:I}", "what", "backwards",
			   "from", (json_int_t)last, "to", (json_int_t)a->now);
	} else {
		if (last_text && a->max_gap > 0 && a->now - last > a->max_gap) {
			a->info->downtime = true;
			event_emit(&y.log, "clock", RULE_GAME_YEAR, "{s:s, s:I, s:I}", "what", "gap",
				   "from", (json_int_t)last, "to", (json_int_t)a->now);
			if (!y.st.paused && y.st.deadline && y.st.deadline <= a->now) {
				year_grant_grace(&y.run, last, "the daemon was not running when "
								"the deadline passed");
				a->info->grace_granted = true;
			}
		}
		year_advance(&y.run);
	}
	if (yctx_save(&y, errstr) != 0)
		goto done;
	rc = 0;
done:
	free(last_text);
	yctx_free(&y);
	return rc;
}

int engine_tick(struct engine *e, int64_t now, int64_t max_gap, struct engine_tick_info *info,
		char **errstr)
{
	struct engine_tick_info ignored;
	if (!info)
		info = &ignored;
	memset(info, 0, sizeof *info);
	struct tick_arg a = {now, max_gap, info};
	char *report = NULL;
	int rc = engine_year_transaction(e, tick_fn, &a, &report, errstr);
	free(report);
	if (rc == 0)
		rc = engine_stand_in_expire(e, now, errstr);
	return rc;
}
