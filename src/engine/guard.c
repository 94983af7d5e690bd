/* Limits that protect the players without being usable against them: how
 * many rejections a registered address gets, and how fast passwords can be
 * guessed by mail. The counters live in the store's key-value table, inside
 * the mail's transaction. See engine_p.h for the contract. */
#include "config.h"

#include "engine/engine_p.h"
#include "mail/mail_read.h"
#include "base/timefmt.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- counters ---- */

/* The count under key; 0 when absent. */
static int counter_get(struct engine *e, const char *key, int *n, char **errstr)
{
	char *v = NULL;
	if (store_kv_get(e->store, key, &v, errstr) != STORE_OK)
		return -1;
	*n = v ? atoi(v) : 0;
	free(v);
	return 0;
}

static int counter_set(struct engine *e, const char *key, int n, char **errstr)
{
	char buf[16];
	snprintf(buf, sizeof buf, "%d", n);
	return store_kv_set(e->store, key, buf, errstr) == STORE_OK ? 0 : -1;
}

/* The per-address reply budget: true if one more reply may go to addr
 * this hour (and counts it); false when the budget is spent or on error. */
bool guard_reply_allowed(struct engine *e, const char *addr, int64_t now, char **errstr)
{
	char *key = xasprintf("rate:reply:%s:%lld", addr, (long long)(now / 3600));
	int n = 0;
	bool allow = counter_get(e, key, &n, errstr) == 0 && n < e->rate_limit_per_hour &&
		     counter_set(e, key, n + 1, errstr) == 0;
	free(key);
	return allow;
}

/* The part of the Message-ID after the '@', lower case and bounded, or "-":
 * mail clients and providers each have their own, so it tells apart senders
 * that put the same From on their mail. */
static char *msgid_domain(const char *message_id)
{
	const char *at = message_id ? strrchr(message_id, '@') : NULL;
	if (!at || !at[1])
		return xstrdup("-");
	char *d = xstrndup(at + 1, strnlen(at + 1, 64));
	for (char *p = d; *p; p++)
		*p = (char)(isalnum((unsigned char)*p) || *p == '.' || *p == '-'
				    ? tolower((unsigned char)*p) : '_');
	return d;
}

static char *lower_copy(const char *s, size_t max)
{
	const char *src = s ? s : "-";
	char *d = xstrndup(src, strnlen(src, max));
	for (char *p = d; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

/* ---- rejections ---- */

int guard_reject_allowed(struct engine *e, const char *to_addr, const struct mail_info *info,
			 int64_t now, bool *allowed, char **errstr)
{
	*allowed = false;
	char *to = lower_copy(to_addr, 254), *from = lower_copy(info->from_addr, 254);
	char *domain = msgid_domain(info->message_id);
	/* the day's counter is named by the hour the day begins, like the
	 * others, so pruning old counters (by hour) keeps it all day */
	long long hour = (long long)(now / 3600), day = (long long)(now / 86400) * 24;
	char *origin_key = xasprintf("rate:reject:%s:%s:%s:%lld", to, from, domain, hour);
	char *total_key = xasprintf("rate:reject-total:%s:%lld", to, hour);
	char *daily_key = xasprintf("rate:reject-daily:%s:%lld", to, day);
	int origin = 0, total = 0, daily = 0, rc = -1;
	if (counter_get(e, origin_key, &origin, errstr) != 0 ||
	    counter_get(e, total_key, &total, errstr) != 0)
		goto done;
	if (origin < GUARD_REJECTIONS_PER_ORIGIN && total < GUARD_REJECTIONS_PER_ADDRESS) {
		if (counter_set(e, origin_key, origin + 1, errstr) != 0 ||
		    counter_set(e, total_key, total + 1, errstr) != 0)
			goto done;
		*allowed = true;
	} else if (strcmp(from, to) == 0) {
		/* others used up the budget: mail that claims to come from the
		 * registered address itself is still answered once a day */
		if (counter_get(e, daily_key, &daily, errstr) != 0)
			goto done;
		if (daily < 1) {
			if (counter_set(e, daily_key, daily + 1, errstr) != 0)
				goto done;
			*allowed = true;
		}
	}
	rc = 0;
done:
	free(to);
	free(from);
	free(domain);
	free(origin_key);
	free(total_key);
	free(daily_key);
	return rc;
}

/* ---- password attempts ---- */

struct attempts {
	int failures;     /* wrong passwords in a row */
	int64_t since;    /* the first of them */
	int64_t until;    /* no password of this class is checked before */
	bool told;        /* the organiser was told of this run */
};

static char *attempts_key(const char *who, bool own)
{
	char *w = lower_copy(who, 64);
	char *key = xasprintf("pwfail:%s:%s", w, own ? "own" : "other");
	free(w);
	return key;
}

static int attempts_get(struct engine *e, const char *key, struct attempts *a, char **errstr)
{
	char *v = NULL;
	memset(a, 0, sizeof *a);
	if (store_kv_get(e->store, key, &v, errstr) != STORE_OK)
		return -1;
	if (v) {
		long long since = 0, until = 0;
		int told = 0;
		if (sscanf(v, "%d %lld %lld %d", &a->failures, &since, &until, &told) == 4) {
			a->since = since;
			a->until = until;
			a->told = told != 0;
		}
	}
	free(v);
	return 0;
}

static int attempts_set(struct engine *e, const char *key, const struct attempts *a,
			char **errstr)
{
	if (!a) /* a right password ends the run */
		return store_kv_set(e->store, key, NULL, errstr) == STORE_OK ? 0 : -1;
	char *v = xasprintf("%d %lld %lld %d", a->failures, (long long)a->since,
			    (long long)a->until, a->told ? 1 : 0);
	int rc = store_kv_set(e->store, key, v, errstr) == STORE_OK ? 0 : -1;
	free(v);
	return rc;
}

int guard_password_wait(struct engine *e, const char *who, bool own, int64_t now,
			int64_t *until, char **errstr)
{
	struct attempts a;
	char *key = attempts_key(who, own);
	int rc = attempts_get(e, key, &a, errstr);
	free(key);
	*until = rc == 0 && a.until > now ? a.until : 0;
	return rc;
}

int guard_password_right(struct engine *e, const char *who, bool own, char **errstr)
{
	char *key = attempts_key(who, own);
	int rc = attempts_set(e, key, NULL, errstr);
	free(key);
	return rc;
}

/* The wait after the n-th wrong password in a row. */
static int64_t attempt_delay(int failures)
{
	if (failures < GUARD_FREE_ATTEMPTS)
		return 0;
	int64_t d = GUARD_FIRST_DELAY;
	for (int i = GUARD_FREE_ATTEMPTS; i < failures && d < GUARD_MAX_DELAY; i++)
		d *= 2;
	return d < GUARD_MAX_DELAY ? d : GUARD_MAX_DELAY;
}

static int tell_organiser(struct engine *e, const struct campaign *c, const char *who,
			  bool own, const struct attempts *a, const char *sender, int64_t now,
			  char **errstr)
{
	if (!c->organiser_email)
		return 0;
	char since[64], until[64];
	/* "stand-in:KEY": the password of KEY's stand-in (stand_in.c) */
	bool stand_in = strncmp(who, "stand-in:", 9) == 0;
	int idx = campaign_find_player(c, stand_in ? who + 9 : who);
	const struct player *pl = idx >= 0 ? &c->players[idx] : NULL;
	char *whom = pl ? xasprintf("%s%s", stand_in ? "the stand-in for " : "",
				    pl->nation ? pl->nation : pl->key)
			: xstrdup("the organiser");
	json_t *data = json_object();
	json_object_set_new(data, "campaign", json_string(c->name ? c->name : ""));
	json_object_set_new(data, "who", json_string(whom));
	json_object_set_new(data, "failures", json_integer(a->failures));
	json_object_set_new(data, "since",
			    json_string(timefmt_local(a->since, c->timezone, since, sizeof since)));
	json_object_set_new(data, "until",
			    json_string(timefmt_local(a->until, c->timezone, until, sizeof until)));
	json_object_set_new(data, "sender", json_string(sender ? sender : "(none)"));
	json_object_set_new(data, "free_attempts", json_integer(GUARD_FREE_ATTEMPTS));
	char *w = lower_copy(who, 64);
	for (char *q = w; *q; q++)
		if (*q == ':')
			*q = '-'; /* a Message-ID token */
	/* the class is in it: both classes may reach the limit in one second */
	char *token = xasprintf("guessing.%s.%s.%lld", w, own ? "own" : "other", (long long)now);
	char *subject = xasprintf("Password guessing on %s", pl ? whom : "the organiser's password");
	free(whom);
	struct reply r = {c->organiser_email, c->organiser_name, subject, "password-guessing", data,
			  NULL, token, MAIL_AUTO_GENERATED, NULL, 0, NULL, false, 0};
	int rc = engine_queue_mail(e, &r, c, now, NULL, errstr);
	free(w);
	free(token);
	free(subject);
	json_decref(data);
	return rc;
}

int guard_password_wrong(struct engine *e, const struct campaign *c, const char *who, bool own,
			 const char *sender, int64_t now, char **errstr)
{
	struct attempts a;
	char *key = attempts_key(who, own);
	int rc = attempts_get(e, key, &a, errstr);
	if (rc == 0) {
		if (!a.failures)
			a.since = now;
		a.failures++;
		int64_t delay = attempt_delay(a.failures);
		a.until = delay ? now + delay : 0;
		if (a.failures >= GUARD_FREE_ATTEMPTS && !a.told) {
			a.told = true;
			rc = tell_organiser(e, c, who, own, &a, sender, now, errstr);
		}
	}
	if (rc == 0)
		rc = attempts_set(e, key, &a, errstr);
	free(key);
	return rc;
}
