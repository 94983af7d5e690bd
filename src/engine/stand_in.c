/* Stand-ins (rulebook 1.1: "If for some reason you are indisposed for any
 * event then delegate to another person so play can continue"). A player,
 * or the organiser for him, names a stand-in until a date; the stand-in
 * gets a password of his own (to his address only) and a copy of every
 * mail to the player (outbox.c); his orders count as the player's. It ends
 * at the date, by STAND-IN END, or when the player sends orders himself. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "base/timefmt.h"
#include "base/util.h"
#include "dbm/orders.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const month_name[12] = {
	"January", "February", "March",     "April",   "May",      "June",
	"July",    "August",   "September", "October", "November", "December",
};

bool engine_stand_in_lasts(const struct store_stand_in *si, int64_t now)
{
	return si->ended_at == 0 && now < si->until_at;
}

/* "Jean Dupont <jean@example.org>", or the address alone. Caller frees. */
char *engine_stand_in_who(const struct store_stand_in *si)
{
	return si->name && *si->name ? xasprintf("%s <%s>", si->name, si->address)
				     : xstrdup(si->address);
}

static const char *nation_of(const struct player *pl)
{
	return pl->nation ? pl->nation : pl->key;
}

/* What every stand-in mail's template gets. */
static json_t *stand_in_data(const struct campaign *c, const struct player *pl,
			     const struct store_stand_in *si)
{
	char until[64];
	char *who = engine_stand_in_who(si);
	json_t *d = json_object();
	json_object_set_new(d, "campaign", json_string(c->name ? c->name : ""));
	json_object_set_new(d, "organiser_name",
			    json_string(c->organiser_name ? c->organiser_name : ""));
	json_object_set_new(d, "player", json_string(pl->key));
	json_object_set_new(d, "nation", json_string(nation_of(pl)));
	json_object_set_new(d, "player_name", json_string(pl->name ? pl->name : pl->key));
	json_object_set_new(d, "stand_in", json_string(who));
	json_object_set_new(d, "stand_in_name",
			    json_string(si->name && *si->name ? si->name : si->address));
	json_object_set_new(d, "until", json_string(timefmt_local(si->until_at, c->timezone,
								  until, sizeof until)));
	free(who);
	return d;
}

static int queue(struct engine *e, const struct campaign *c, const char *to, const char *name,
		 const char *subject, const char *tpl, json_t *data, const char *what,
		 bool secret, int64_t now, char **errstr)
{
	char *token = xasprintf("stand-in.%s.%lld.%08x", what, (long long)now,
				(unsigned)randombytes_random());
	struct reply r = {to, name, subject, tpl, data, NULL, token, MAIL_AUTO_GENERATED,
			  NULL, 0, NULL, secret, 0};
	int rc = engine_queue_mail(e, &r, c, now, NULL, errstr);
	free(token);
	return rc;
}

/* Ends player's stand-in (if one lasts) for `reason`; the stand-in is told
 * (tell_stand_in), and the player (tell_player). *ended says whether one
 * did. Returns 0, or -1 with *errstr. */
static int end_one(struct engine *e, const struct campaign *c, int player, const char *reason,
		   bool tell_player, bool tell_stand_in, int64_t now, bool *ended,
		   struct store_stand_in *out, char **errstr)
{
	const struct player *pl = &c->players[player];
	struct store_stand_in si;
	bool found = false;
	*ended = false;
	if (store_stand_in_get(e->store, pl->key, &si, &found, errstr) != STORE_OK)
		return -1;
	if (!found || !engine_stand_in_lasts(&si, now)) {
		store_stand_in_free(&si);
		return 0;
	}
	int rc = -1;
	if (store_stand_in_end(e->store, pl->key, now, reason, errstr) != STORE_OK)
		goto done;
	*ended = true;
	json_t *d = stand_in_data(c, pl, &si);
	char when[64];
	json_object_set_new(d, "reason", json_string(reason));
	json_object_set_new(d, "ended_at",
			    json_string(timefmt_local(now, c->timezone, when, sizeof when)));
	char *subject = xasprintf("The stand-in for %s has ended", nation_of(pl));
	rc = 0;
	if (tell_stand_in) {
		json_object_set_new(d, "to_stand_in", json_true());
		rc = queue(e, c, si.address, si.name, subject, "stand-in-ended", d, "ended", false,
			   now, errstr);
	}
	if (rc == 0 && tell_player) {
		json_object_set_new(d, "to_stand_in", json_false());
		e->no_stand_in_copy = true;
		rc = queue(e, c, pl->email, pl->name, subject, "stand-in-ended", d, "ended", false,
			   now, errstr);
		e->no_stand_in_copy = false;
	}
	free(subject);
	json_decref(d);
done:
	if (rc == 0 && out)
		*out = si;
	else
		store_stand_in_free(&si);
	return rc;
}

#define STAND_IN_MAX_DAYS 366

/* A player's STAND-IN mails an invitation to any address he names: at most
 * this many a day (UTC days), so the campaign is no relay for his mail. The
 * organiser's are not counted. The counters are rate counters ("rate:",
 * keyed by the hour the day starts), pruned with the others. */
#define STAND_IN_INVITES_PER_DAY 3

static char *invite_counter_key(const struct player *pl, int64_t now)
{
	return xasprintf("rate:stand-in-invite:%s:%lld", pl->key,
			 (long long)(now / 86400 * 24));
}

/* *count: the invitations player named today. */
static int invites_today(struct engine *e, const struct player *pl, int64_t now, int *count,
			 char **errstr)
{
	char *key = invite_counter_key(pl, now), *v = NULL;
	int rc = store_kv_get(e->store, key, &v, errstr) == STORE_OK ? 0 : -1;
	*count = v ? atoi(v) : 0;
	free(v);
	free(key);
	return rc;
}

static int invite_counted(struct engine *e, const struct player *pl, int64_t now, int count,
			  char **errstr)
{
	char *key = invite_counter_key(pl, now);
	char buf[16];
	snprintf(buf, sizeof buf, "%d", count + 1);
	int rc = store_kv_set(e->store, key, buf, errstr) == STORE_OK ? 0 : -1;
	free(key);
	return rc;
}

/* Names a stand-in for player until the end of day y-m-d (the campaign's
 * time zone). A refusal (nothing done) in *refusal; else *understood says
 * what was done. Returns 0, or -1 with *errstr. */
static int name_one(struct engine *e, const struct campaign *c, int player, const char *address,
		    const char *name, int y, int m, int d, const char *named_by, int64_t now,
		    char **refusal, char **understood, char **errstr)
{
	const struct player *pl = &c->players[player];
	*refusal = *understood = NULL;
	char nowtext[64], untiltext[64];
	timefmt_local(now, c->timezone, nowtext, sizeof nowtext);
	int64_t start = timefmt_day_start(y, m, d, c->timezone);
	int64_t until = timefmt_day_start(y, m, d + 1, c->timezone);
	char day[40];
	snprintf(day, sizeof day, "%d %s %d", d, month_name[(m - 1) % 12], y);
	if (!orders_address_ok(address)) {
		*refusal = xstrdup("that is not a plain mail address (name@example.org)");
		return 0;
	}
	if (e->campaign_address && strcasecmp(address, e->campaign_address) == 0) {
		*refusal = xstrdup("that is the campaign's own address: a stand-in needs an "
				   "address of their own");
		return 0;
	}
	if (pl->email && strcasecmp(address, pl->email) == 0) {
		*refusal = xasprintf("that is %s's own registered address: a stand-in is someone "
				     "else, with an address of their own",
				     nation_of(pl));
		return 0;
	}
	for (size_t i = 0; i < c->player_count; i++)
		if ((int)i != player && c->players[i].email &&
		    strcasecmp(address, c->players[i].email) == 0) {
			*refusal = xasprintf("that is the address of another player (%s): a "
					     "player cannot stand in for another",
					     nation_of(&c->players[i]));
			return 0;
		}
	if (until <= now) {
		*refusal = xasprintf("%s is in the past (it is now %s): name the last day the "
				     "stand-in is to give orders", day, nowtext);
		return 0;
	}
	if (start > now + STAND_IN_MAX_DAYS * 86400LL) {
		*refusal = xasprintf("%s is more than a year ahead: name a stand-in for at most "
				     "%d days (and again later if need be; a player who cannot "
				     "play for longer may leave the campaign)",
				     day, STAND_IN_MAX_DAYS);
		return 0;
	}
	bool by_player = strcmp(named_by, "organiser") != 0;
	int invites = 0;
	if (by_player && invites_today(e, pl, now, &invites, errstr) != 0)
		return -1;
	if (by_player && invites >= STAND_IN_INVITES_PER_DAY) {
		char next[64];
		timefmt_local(now / 86400 * 86400 + 86400, c->timezone, next, sizeof next);
		*refusal = xasprintf("%s has named %d stand-ins today, the most a day (each one "
				     "mails an invitation to the address named); another can be "
				     "named from %s",
				     nation_of(pl), invites, next);
		return 0;
	}
	/* one who stood in before is told he no longer does */
	struct store_stand_in old;
	bool found = false, ended = false;
	if (store_stand_in_get(e->store, pl->key, &old, &found, errstr) != STORE_OK)
		return -1;
	bool same = found && strcasecmp(old.address, address) == 0;
	store_stand_in_free(&old);
	if (end_one(e, c, player, "another stand-in was named", false, !same, now, &ended, NULL,
		    errstr) != 0)
		return -1;
	char password[20];
	engine_generate_password(password);
	struct store_stand_in si = {(char *)pl->key, (char *)address,   (char *)name,
				    (char *)named_by, now,   until, 0, NULL};
	int rc = -1;
	if (store_stand_in_set(e->store, &si, password, errstr) != STORE_OK)
		goto done;
	json_t *data = stand_in_data(c, pl, &si);
	json_object_set_new(data, "password", json_string(password));
	json_object_set_new(data, "day", json_string(day));
	json_object_set_new(data, "by_organiser", json_boolean(strcmp(named_by, "organiser") == 0));
	char *subject = xasprintf("You stand in for %s", nation_of(pl));
	/* to the stand-in's address only, quoting nothing: it holds his password */
	rc = queue(e, c, address, name, subject, "stand-in-invite", data, "invite", true, now,
		   errstr);
	json_object_del(data, "password");
	json_decref(data);
	free(subject);
	if (rc == 0 && by_player)
		rc = invite_counted(e, pl, now, invites, errstr);
	if (rc != 0)
		goto done;
	char *who = engine_stand_in_who(&si);
	timefmt_local(until, c->timezone, untiltext, sizeof untiltext);
	*understood = xasprintf(
		"%s stands in for %s from now until the end of %s (%s, the campaign's time). "
		"A password of their own was mailed to that address only; they get a copy "
		"of every mail to %s until then. Their orders count as %s's, and each is "
		"acknowledged to both. It ends earlier by STAND-IN END, or as soon as %s sends "
		"orders again.",
		who, nation_of(pl), day, untiltext, nation_of(pl), nation_of(pl), nation_of(pl));
	free(who);
done:
	sodium_memzero(password, sizeof password);
	return rc;
}

static void line_fail(struct order_set *set, struct order *o, const char *why)
{
	o->status = ORDER_ERROR;
	free(o->error);
	o->error = xstrdup(why);
	free(o->understood);
	o->understood = NULL;
	set->errors++;
}

static void note_add(char **note, const char *s)
{
	char *both = *note ? xasprintf("%s %s", *note, s) : xstrdup(s);
	free(*note);
	*note = both;
}

/* Orders that make the player's own mail end his stand-in: anything the
 * year uses, not requests (STATUS, MAP, HELP) or the STAND-IN lines. */
static bool holds_orders(const struct order_set *set)
{
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		switch (o->kind) {
		case ORDER_NONE: case ORDER_PLAYER: case ORDER_ORGANISER: case ORDER_PASSWORD:
		case ORDER_STATUS: case ORDER_MAP: case ORDER_HELP: case ORDER_CONFIRM:
		case ORDER_END: case ORDER_FORGOT_PASSWORD: case ORDER_STAND_IN:
			continue;
		default:
			return true;
		}
	}
	return false;
}

/* The player's own mail that gave no order (STATUS, MAP, HELP, or only
 * lines in error) and names or ends no stand-in: the stand-in who lasts
 * goes on, said with until when and how to take over again. */
static int goes_on(struct engine *e, const struct campaign *c, int player,
		   const struct order_set *set, int64_t now, char **note, char **errstr)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->orders[i].kind == ORDER_STAND_IN && set->orders[i].status == ORDER_OK)
			return 0;
	struct store_stand_in si;
	bool found = false;
	if (store_stand_in_get(e->store, c->players[player].key, &si, &found, errstr) !=
	    STORE_OK)
		return -1;
	if (found && engine_stand_in_lasts(&si, now)) {
		char until[64];
		char *who = engine_stand_in_who(&si);
		char *s = xasprintf("%s goes on standing in for you until %s: their orders count "
				    "as yours. This mail gave no order, so it did not end the "
				    "stand-in; to take over again before then, send your orders "
				    "yourself (any order accepted ends it) or STAND-IN END.",
				    who, timefmt_local(si.until_at, c->timezone, until,
						       sizeof until));
		note_add(note, s);
		free(s);
		free(who);
	}
	store_stand_in_free(&si);
	return 0;
}

int engine_stand_in_mail(struct engine *e, const struct campaign *c, int player,
			 const struct store_stand_in *acting, struct order_set *set, int64_t now,
			 char **note, char **errstr)
{
	const struct player *pl = &c->players[player];
	*note = NULL;
	if (!acting && holds_orders(set)) {
		bool ended = false;
		struct store_stand_in old = {0};
		char *why = xasprintf("%s sent orders in person", nation_of(pl));
		int rc = end_one(e, c, player, why, false, true, now, &ended, &old, errstr);
		free(why);
		if (rc != 0)
			return -1;
		if (ended) {
			char *who = engine_stand_in_who(&old);
			char *s = xasprintf("You sent orders yourself, so %s no longer stands in for "
					    "you (they were told; their password no longer works).",
					    who);
			note_add(note, s);
			free(s);
			free(who);
		}
		store_stand_in_free(&old);
	}
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (acting && o->kind == ORDER_PASSWORD) {
			line_fail(set, o, "a stand-in cannot change the player's password; the "
					  "password was not changed");
			continue;
		}
		if (o->kind != ORDER_STAND_IN)
			continue;
		if (o->choice == CHOICE_END) {
			bool ended = false;
			char *why = xasprintf("ended by STAND-IN END from %s",
					      acting ? "the stand-in" : nation_of(pl));
			int rc = end_one(e, c, player, why, acting != NULL, acting == NULL, now,
					 &ended, NULL, errstr);
			free(why);
			if (rc != 0)
				return -1;
			if (!ended)
				line_fail(set, o, "no stand-in stands in for you now");
			else
				note_add(note, acting ? "You no longer stand in: your password for "
							"this campaign no longer works (the player "
							"was told)."
						      : "Your stand-in no longer stands in for you "
							"(they were told; their password no longer "
							"works).");
			continue;
		}
		if (acting) {
			line_fail(set, o, "a stand-in cannot name another stand-in: only the player "
					  "(or the organiser) can");
			continue;
		}
		const char *arg = o->arg ? o->arg : "";
		const char *sp = strchr(arg, ' ');
		char *address = sp ? xstrndup(arg, (size_t)(sp - arg)) : xstrdup(arg);
		char *refusal = NULL, *understood = NULL;
		int rc = name_one(e, c, player, address, sp ? sp + 1 : NULL, o->count / 10000,
				  o->count / 100 % 100, o->count % 100, "player", now, &refusal,
				  &understood, errstr);
		free(address);
		if (rc != 0)
			return -1;
		if (refusal) {
			char *why = xasprintf("%s; no stand-in was named", refusal);
			line_fail(set, o, why);
			free(why);
		} else {
			note_add(note, understood);
		}
		free(refusal);
		free(understood);
	}
	if (!acting && !holds_orders(set))
		return goes_on(e, c, player, set, now, note, errstr);
	return 0;
}

int engine_stand_in_diary(struct engine *e, const struct campaign *c, int player,
			  const struct store_stand_in *acting, const struct order_set *set,
			  int64_t now, char **errstr)
{
	if (!holds_orders(set))
		return 0;
	const struct player *pl = &c->players[player];
	char *key = xasprintf("stand-in-diary:%s:%d:%lld", pl->key, c->year,
			      (long long)acting->started_at);
	char *seen = NULL;
	int rc = -1;
	if (store_kv_get(e->store, key, &seen, errstr) != STORE_OK)
		goto done;
	rc = 0;
	if (seen)
		goto done;
	rc = -1;
	json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:s}", "kind", "stand_in", "rule",
			       "1.1 A campaign requires commitment", "player", pl->key, "year",
			       c->year, "phase", campaign_phase_name(c->phase));
	if (acting->name && *acting->name)
		json_object_set_new(ev, "by", json_string(acting->name));
	int st = store_append_event_at(e->store, ev, now, NULL, errstr);
	json_decref(ev);
	if (st == STORE_OK && store_kv_set(e->store, key, "1", errstr) == STORE_OK)
		rc = 0;
done:
	free(seen);
	free(key);
	return rc;
}

int engine_stand_in_expire(struct engine *e, int64_t now, char **errstr)
{
	char **due = NULL;
	struct campaign *c = NULL;
	if (store_begin(e->store, errstr) != STORE_OK)
		return -1;
	int rc = -1;
	if (store_stand_ins_due(e->store, now, &due, errstr) != STORE_OK)
		goto done;
	if (!due[0]) {
		rc = 0;
		goto done;
	}
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		goto done;
	rc = 0;
	for (size_t i = 0; rc == 0 && due[i]; i++) {
		int player = campaign_find_player(c, due[i]);
		struct store_stand_in si;
		bool found = false;
		if (store_stand_in_get(e->store, due[i], &si, &found, errstr) != STORE_OK) {
			rc = -1;
			break;
		}
		if (!found || player < 0) {
			store_stand_in_free(&si);
			continue;
		}
		const struct player *pl = &c->players[player];
		char day[64];
		timefmt_local(si.until_at, c->timezone, day, sizeof day);
		const char *reason = "the date it was named until has passed";
		if (store_stand_in_end(e->store, si.player, si.until_at, reason, errstr) !=
		    STORE_OK) {
			store_stand_in_free(&si);
			rc = -1;
			break;
		}
		json_t *d = stand_in_data(c, pl, &si);
		json_object_set_new(d, "reason", json_string(reason));
		json_object_set_new(d, "ended_at", json_string(day));
		char *subject = xasprintf("The stand-in for %s has ended", nation_of(pl));
		json_object_set_new(d, "to_stand_in", json_true());
		rc = queue(e, c, si.address, si.name, subject, "stand-in-ended", d, "expired",
			   false, now, errstr);
		if (rc == 0) {
			json_object_set_new(d, "to_stand_in", json_false());
			rc = queue(e, c, pl->email, pl->name, subject, "stand-in-ended", d,
				   "expired", false, now, errstr);
		}
		free(subject);
		json_decref(d);
		store_stand_in_free(&si);
	}
done:
	if (rc == 0 && store_commit(e->store, errstr) != STORE_OK)
		rc = -1;
	if (rc != 0)
		store_rollback(e->store);
	for (size_t i = 0; due && due[i]; i++)
		free(due[i]);
	free(due);
	campaign_free(c);
	return rc;
}

int engine_stand_in_end_nation_changes(struct engine *e, const struct campaign *c, int player,
				       bool replaced, int64_t now, char **report, char **errstr)
{
	bool ended = false;
	struct store_stand_in old = {0};
	const struct player *pl = &c->players[player];
	char *why = replaced ? xasprintf("the organiser handed %s to a new player", nation_of(pl))
			     : xasprintf("%s has left the campaign", nation_of(pl));
	*report = NULL;
	int rc = end_one(e, c, player, why, false, true, now, &ended, &old, errstr);
	free(why);
	if (rc == 0 && ended) {
		char *who = engine_stand_in_who(&old);
		*report = xasprintf("%s no longer stands in for %s: their password no longer "
				    "works (they were told)",
				    who, nation_of(pl));
		free(who);
	}
	store_stand_in_free(&old);
	return rc;
}

/* ---- the organiser's: campaignctl stand-in, STAND-IN in his mail ---- */

/* Names one for player and tells the player; a refusal in *refusal. */
static int organiser_names(struct engine *e, const struct campaign *c, int player,
			   const char *address, const char *name, int y, int m, int d, int64_t now,
			   char **report, char **refusal, char **errstr)
{
	char *understood = NULL;
	*report = NULL;
	if (name_one(e, c, player, address, name && *name ? name : NULL, y, m, d, "organiser",
		     now, refusal, &understood, errstr) != 0)
		return -1;
	if (*refusal)
		return 0;
	/* the player is told what the organiser did in his name */
	const struct player *pl = &c->players[player];
	json_t *data = json_object();
	json_object_set_new(data, "campaign", json_string(c->name ? c->name : ""));
	json_object_set_new(data, "nation", json_string(nation_of(pl)));
	json_object_set_new(data, "player_name", json_string(pl->name ? pl->name : pl->key));
	json_object_set_new(data, "organiser_name",
			    json_string(c->organiser_name ? c->organiser_name : ""));
	json_object_set_new(data, "understood", json_string(understood));
	char *subject = xasprintf("A stand-in for %s", nation_of(pl));
	e->no_stand_in_copy = true;
	int rc = queue(e, c, pl->email, pl->name, subject, "stand-in-named", data, "named", false,
		       now, errstr);
	e->no_stand_in_copy = false;
	free(subject);
	json_decref(data);
	if (rc == 0)
		*report = understood;
	else
		free(understood);
	return rc;
}

/* Ends player's stand-in, both told; a refusal in *refusal if none lasts. */
static int organiser_ends(struct engine *e, const struct campaign *c, int player, int64_t now,
			  char **report, char **refusal, char **errstr)
{
	bool ended = false;
	struct store_stand_in old = {0};
	*report = NULL;
	if (end_one(e, c, player, "ended by the organiser", true, true, now, &ended, &old,
		    errstr) != 0)
		return -1;
	if (!ended) {
		*refusal = xasprintf("no stand-in stands in for %s now",
				     nation_of(&c->players[player]));
	} else {
		char *who = engine_stand_in_who(&old);
		*report = xasprintf("%s no longer stands in for %s (both were told)", who,
				    nation_of(&c->players[player]));
		free(who);
	}
	store_stand_in_free(&old);
	return 0;
}

int engine_stand_in_organiser_line(struct engine *e, const struct order *o, int64_t now,
				   char **report, char **errstr)
{
	struct campaign *c = NULL;
	char *refusal = NULL;
	*report = NULL;
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		return -1;
	int rc = 0;
	if (o->target < 0 || (size_t)o->target >= c->player_count) {
		refusal = xstrdup("the organiser's STAND-IN names the player first");
	} else if (o->choice == CHOICE_END) {
		rc = organiser_ends(e, c, o->target, now, report, &refusal, errstr);
	} else {
		const char *arg = o->arg ? o->arg : "";
		const char *sp = strchr(arg, ' ');
		char *address = sp ? xstrndup(arg, (size_t)(sp - arg)) : xstrdup(arg);
		rc = organiser_names(e, c, o->target, address, sp ? sp + 1 : NULL, o->count / 10000,
				     o->count / 100 % 100, o->count % 100, now, report, &refusal,
				     errstr);
		free(address);
	}
	if (rc == 0 && refusal) {
		*report = xasprintf("  refused: %s; nothing was done", refusal);
	} else if (rc == 0 && *report) {
		char *r = xasprintf("  %s", *report);
		free(*report);
		*report = r;
	}
	free(refusal);
	campaign_free(c);
	return rc;
}

/* What the organiser asks by campaignctl: a stand-in named (with its
 * address, name and last day), or, as NULL, the stand-in ended. */
struct organiser_ask {
	const char *address, *name;
	int y, m, d;
};

/* The organiser's ask for player_key's stand-in, in its own transaction:
 * 0 done, 1 refused (*errstr says why), -1 failed. */
static int organiser_act(struct engine *e, const char *player_key,
			 const struct organiser_ask *ask, int64_t now, char **report,
			 char **errstr)
{
	struct campaign *c = NULL;
	char *refusal = NULL;
	if (store_begin(e->store, errstr) != STORE_OK)
		return -1;
	int rc = -1;
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		goto done;
	int player = campaign_find_player(c, player_key);
	if (player < 0) {
		*errstr = xasprintf("no player \"%s\" in the campaign", player_key);
		rc = 1;
		goto done;
	}
	rc = ask ? organiser_names(e, c, player, ask->address, ask->name, ask->y, ask->m, ask->d,
				   now, report, &refusal, errstr)
		 : organiser_ends(e, c, player, now, report, &refusal, errstr);
	if (rc == 0 && refusal) {
		*errstr = refusal;
		refusal = NULL;
		rc = 1;
	}
done:
	free(refusal);
	if (rc == 0 && store_commit(e->store, errstr) != STORE_OK)
		rc = -1;
	if (rc != 0)
		store_rollback(e->store);
	campaign_free(c);
	return rc;
}

int engine_stand_in_name(struct engine *e, const char *player_key, const char *address,
			 const char *name, const char *date, int64_t now, char **report,
			 char **errstr)
{
	*report = NULL;
	int y, m, d;
	char *why = NULL;
	if (!orders_date_parse(date, &y, &m, &d, &why)) {
		*errstr = why;
		return 1;
	}
	if (name && (strlen(name) > 60 || strpbrk(name, "<>\"@,;:\\()[]\r\n\t"))) {
		*errstr = xstrdup("the stand-in's name is at most 60 characters, without "
				  "<>\"@,;:\\()[] or line breaks");
		return 1;
	}
	struct organiser_ask ask = {address, name, y, m, d};
	return organiser_act(e, player_key, &ask, now, report, errstr);
}

int engine_stand_in_end_by_organiser(struct engine *e, const char *player_key, int64_t now,
				     char **report, char **errstr)
{
	*report = NULL;
	return organiser_act(e, player_key, NULL, now, report, errstr);
}

/* ---- the stand-in's mails (engine.c) ---- */


void engine_stand_in_ack_data(json_t *data, const struct store_stand_in *si,
			      const struct campaign *c)
{
	char until[64];
	char *who = engine_stand_in_who(si);
	json_object_set_new(data, "stand_in_acting", json_true());
	json_object_set_new(data, "stand_in_who", json_string(who));
	json_object_set_new(data, "stand_in_until",
			    json_string(timefmt_local(si->until_at, c->timezone, until,
						      sizeof until)));
	free(who);
}

int engine_stand_in_ack_player(struct engine *e, const struct campaign *c, int player,
			       const struct reply *ack, int64_t now, char **errstr)
{
	const struct player *pl = &c->players[player];
	char *token = xasprintf("%s.player", ack->token);
	bool asks = json_is_true(json_object_get(ack->data, "only_asks"));
	char *subject = xasprintf(asks ? "Asked for %s by the stand-in"
				       : "Orders given for %s by the stand-in", nation_of(pl));
	json_t *data = json_deep_copy(ack->data);
	json_object_set_new(data, "to_player", json_true());
	struct reply r = *ack;
	r.to_addr = pl->email;
	r.to_name = pl->name;
	r.subject = subject;
	r.data = data;
	r.in_reply_to = NULL;
	r.token = token;
	e->no_stand_in_copy = true;
	int rc = engine_queue_mail(e, &r, c, now, NULL, errstr);
	e->no_stand_in_copy = false;
	json_decref(data);
	free(subject);
	free(token);
	return rc;
}

char *engine_stand_in_ended_reason(const struct store_stand_in *si, const struct campaign *c)
{
	char when[64];
	int pi = campaign_find_player(c, si->player);
	const char *nation = pi >= 0 ? nation_of(&c->players[pi]) : si->player;
	timefmt_local(si->ended_at ? si->ended_at : si->until_at, c->timezone, when, sizeof when);
	return xasprintf("you no longer stand in for %s: it ended at %s (%s), so your stand-in "
			 "password no longer works and nothing was changed",
			 nation, when,
			 si->end_reason ? si->end_reason : "the date it was named until has passed");
}
