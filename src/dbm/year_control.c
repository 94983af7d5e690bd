/* The organiser's controls over the year: deadlines, pause, processing a
 * step now, and the grace after our own downtime. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"

#include <stdlib.h>

/* ---------------------------------------------------------------- organiser controls */

int year_set_deadline(struct year_run *r, int64_t seconds, bool relative, char *why,
		      size_t why_size)
{
	struct year_state *st = r->st;
	if (st->step == YEAR_IDLE || st->step == YEAR_ENDED) {
		year_say(why, why_size, "there is no deadline: %s",
			 st->step == YEAR_IDLE ? "the campaign has not been started" : "it has ended");
		return -1;
	}
	if (st->paused) {
		st->paused_left = relative ? st->paused_left + seconds : seconds;
		if (st->paused_left < 0)
			st->paused_left = 0;
		return 0;
	}
	int64_t base = relative ? (st->deadline ? st->deadline : r->now) : r->now;
	st->deadline = base + seconds;
	if (st->deadline < r->now)
		st->deadline = r->now;
	/* the reminders count from the new deadline; those whose time has
	 * passed under it are not sent late */
	year_rearm_reminders(r);
	return 0;
}

int year_pause(struct year_run *r, char *why, size_t why_size)
{
	struct year_state *st = r->st;
	if (st->paused) {
		year_say(why, why_size, "the campaign is already paused");
		return -1;
	}
	st->paused = true;
	st->paused_left = st->deadline ? st->deadline - r->now : 0;
	if (st->paused_left < 0)
		st->paused_left = 0;
	return 0;
}

int64_t year_step_length(const struct year_state *st, const struct campaign *c)
{
	const struct campaign_settings *s = &c->settings;
	int hours = 0;
	switch (st->step) {
	case YEAR_TURN:
		hours = s->turn_deadline_hours;
		break;
	case YEAR_DECISION:
	case YEAR_VOTE:
		hours = s->decision_deadline_hours;
		break;
	case YEAR_BATTLE:
		hours = s->battle_deadline_hours;
		break;
	case YEAR_RECRUITMENT:
		hours = s->recruitment_deadline_hours;
		break;
	case YEAR_IDLE:
	case YEAR_ENDED:
		return 0;
	}
	return (int64_t)(hours > 0 ? hours : 1) * HOUR;
}

int year_resume(struct year_run *r, char *why, size_t why_size)
{
	struct year_state *st = r->st;
	if (!st->paused) {
		year_say(why, why_size, "the campaign is not paused");
		return -1;
	}
	st->paused = false;
	if (st->deadline) {
		st->deadline = r->now + st->paused_left;
		year_rearm_reminders(r);
	}
	st->paused_left = 0;
	year_advance(r);
	return 0;
}

int year_process(struct year_run *r, const char *name, char *why, size_t why_size)
{
	struct year_state *st = r->st;
	char current[256];
	year_step_name(st, r->c, current, sizeof current);
	if (!year_step_is(st, r->c, name)) {
		year_say(why, why_size, "\"%s\" is not the current step (the current step is %s)",
			 name ? name : "", current);
		return -1;
	}
	if (st->paused) {
		year_say(why, why_size, "the campaign is paused: resume it first");
		return -1;
	}
	if (st->step == YEAR_IDLE || st->step == YEAR_ENDED) {
		year_say(why, why_size, "there is nothing to process (%s)", current);
		return -1;
	}
	if (st->step == YEAR_BATTLE &&
	    (json_object_size(json_object_get(st->pending, "reports")) != 1 ||
	     json_is_true(json_object_get(st->pending, "disputed")))) {
		year_say(why, why_size, "the battle needs a result: send it as the organiser "
					"(BATTLE AT ...) or use campaignctl battle-result");
		return -1;
	}
	st->deadline = r->now;
	year_advance(r);
	return 0;
}

void year_grant_grace(struct year_run *r, int64_t last_run, const char *reason)
{
	struct year_state *st = r->st;
	char was[64], now_buf[64];
	int64_t old = st->deadline;
	st->deadline = r->now + (int64_t)(r->c->settings.grace_hours > 0
					   ? r->c->settings.grace_hours : 1) * HOUR;
	year_rearm_reminders(r);
	event_emit(r->log, "grace", RULE_GAME_YEAR, "{s:I, s:I, s:I, s:s}", "old_deadline",
		   (json_int_t)old, "new_deadline", (json_int_t)st->deadline, "last_run",
		   (json_int_t)last_run, "reason", reason);
	char *what = year_step_describe(st, r->c);
	json_t *d = year_deadline_data(r);
	json_object_update_new(d, json_pack("{s:s, s:s, s:s, s:i}", "old_deadline",
					year_format_time(old, was, sizeof was), "last_run",
					year_format_time(last_run, now_buf, sizeof now_buf),
					"waiting_for", what, "grace_hours",
					r->c->settings.grace_hours));
	free(what);
	year_mail(r, "grace", NO_INDEX, true, d, "The deadline is moved (our downtime)");
}
