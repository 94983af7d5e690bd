/* A new player joins during play (rules 1.2: neutral provinces "used as
 * the initial territory of a new player"; campaignctl add-player): he is
 * given neutral provinces as home provinces, invited with a password of
 * his own, sent his army list to set up by mail, and everyone is told. He
 * enters the sequence of play when the next year begins (dbm/year_join.c).
 * Before the start he is simply one more player who sets up by mail.
 * Calls go engine_join.c -> engine_year.c, engine_setup.c, outbox.c;
 * engine_year_org.c (campaignctl invite) sends its invitations here. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_setup_p.h"
#include "engine/engine_year_p.h"
#include "engine/maps_p.h"
#include "model/campaign_json.h"
#include "dbm/rules.h"
#include "text/templates.h"

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define JOIN_MAX_PROVINCES 8

static bool key_ok(const char *key)
{
	size_t n = key ? strlen(key) : 0;
	if (n == 0 || n > 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)key[i]) && key[i] != '-' && key[i] != '_')
			return false;
	return true;
}

static bool email_ok(const char *a)
{
	const char *at = a ? strchr(a, '@') : NULL;
	if (!at || at == a || !at[1] || strchr(at + 1, '@') || strlen(a) > 254)
		return false;
	for (const char *s = a; *s; s++)
		if ((unsigned char)*s <= ' ' || strchr("<>,;\"()", *s))
			return false;
	return true;
}

/* The provinces named "A, B, C" as indices; why says what is wrong. */
static size_t read_provinces(const struct campaign *c, const char *list, int *out, char *why,
			     size_t why_size)
{
	size_t n = 0;
	char *copy = xstrdup(list ? list : "");
	char *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		size_t len = strlen(tok);
		while (len && isspace((unsigned char)tok[len - 1]))
			tok[--len] = '\0';
		if (!len)
			continue;
		int p = campaign_find_province(c, tok);
		if (p < 0) {
			snprintf(why, why_size, "no province \"%.60s\" on the map", tok);
			free(copy);
			return 0;
		}
		if (n == JOIN_MAX_PROVINCES) {
			snprintf(why, why_size, "a new player is given one to four home provinces "
				 "(rules 1.2: four), not more");
			free(copy);
			return 0;
		}
		out[n++] = p;
	}
	free(copy);
	if (!n)
		snprintf(why, why_size, "no home province given (--provinces NAME,NAME,...)");
	return n;
}

/* The request refused before anything changes: `why` filled. */
static void check_request(const struct campaign *c, const struct engine_new_player *np,
			  int *provinces, size_t *n, char *why, size_t why_size)
{
	if (!key_ok(np->key)) {
		snprintf(why, why_size, "the player key \"%.40s\" must be one word of letters, "
			 "digits, '-' or '_' (players type it in their orders)",
			 np->key ? np->key : "");
		return;
	}
	const char *nation = np->nation ? np->nation : np->key;
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *o = &c->players[i];
		const char *on = o->nation ? o->nation : o->key;
		if (strcasecmp(o->key, np->key) == 0 || strcasecmp(on, np->key) == 0) {
			snprintf(why, why_size, "there is already a player \"%s\" (%s)", o->key, on);
			return;
		}
		if (strcasecmp(on, nation) == 0 || strcasecmp(o->key, nation) == 0) {
			snprintf(why, why_size, "the nation \"%.60s\" is already played by \"%s\"",
				 nation, o->key);
			return;
		}
	}
	if (!email_ok(np->email)) {
		snprintf(why, why_size, "\"%.80s\" is not a mail address (--email ADDR)",
			 np->email ? np->email : "");
		return;
	}
	for (size_t i = 0; i < c->player_count; i++)
		if (c->players[i].email && strcasecmp(c->players[i].email, np->email) == 0) {
			snprintf(why, why_size, "%s is already the address of player \"%s\"; each "
				 "player needs an address of their own", np->email, c->players[i].key);
			return;
		}
	if (!np->list || !np->list->count) {
		snprintf(why, why_size, "the army list is empty");
		return;
	}
	if (rules_setup_cinc_line(np->list) < 0) {
		snprintf(why, why_size, "the army list has no general line for the C-in-C");
		return;
	}
	*n = read_provinces(c, np->provinces, provinces, why, why_size);
	if (!*n)
		return;
	struct rules_reason r;
	if (rules_join_check(c, provinces, *n, &r) != RULES_OK)
		snprintf(why, why_size, "%s", r.text);
}

static int add_to_campaign(struct campaign *c, const struct engine_new_player *np)
{
	struct player *p = campaign_add_player(c);
	p->key = xstrdup(np->key);
	p->nation = xstrdup(np->nation ? np->nation : np->key);
	p->name = np->name ? xstrdup(np->name) : NULL;
	p->email = xstrdup(np->email);
	for (size_t i = 0; i < np->list->count; i++) {
		struct element_type *t = army_list_add(&p->list);
		*t = np->list->types[i];
		t->label = xstrdup(np->list->types[i].label);
	}
	player_alloc_troops(p);
	p->location = NO_INDEX;
	p->overlord = NO_INDEX;
	p->status = PLAYER_ACTIVE;
	p->movement_option = OPTION_NONE;
	return (int)c->player_count - 1;
}

/* An invitation: the password (a secret mail), the campaign in brief, the
 * map; for a joiner, the year he enters. Shared with campaignctl invite. */
int yctx_invite(struct yctx *y, int player, const struct engine_maps *maps)
{
	struct campaign *c = y->c;
	const struct player *pl = &c->players[player];
	char password[20], *err = NULL;
	engine_generate_password(password);
	if (store_set_password(y->e->store, pl->key, password, &err) != STORE_OK) {
		sodium_memzero(password, sizeof password);
		set_err(y, err);
		return -1;
	}
	json_t *d = yctx_base_data(y, player);
	json_object_set_new(d, "password", json_string(password));
	sodium_memzero(password, sizeof password);
	char *help = templates_render(y->e->templates, "help", d, &err);
	free(err);
	err = NULL;
	json_object_set_new(d, "help_text", json_string(help ? help : ""));
	free(help);
	json_object_set_new(d, "organiser_email",
			    json_string(c->organiser_email ? c->organiser_email : ""));
	if (pl->status == PLAYER_JOINING)
		json_object_set_new(d, "enters_year", json_integer(c->year + 1));
	char *token = xasprintf("year.%s.%lu.%d", y->tag, ++y->mail_seq, c->year);
	struct reply r = {pl->email, pl->name, "Your invitation and password", "invite", d, NULL,
			  token, MAIL_AUTO_GENERATED, maps->att, maps->count, NULL, true, 0};
	int rc = engine_queue_mail(y->e, &r, c, y->now, NULL, &err);
	if (rc != 0)
		set_err(y, err);
	json_object_del(d, "password");
	json_decref(d);
	free(token);
	return rc;
}

/* The joiner's invitation, with the map as it stands. */
static int invite_joiner(struct yctx *y, int player)
{
	struct engine_maps maps;
	engine_maps_build(y->e->store, y->c, y->c->year, NULL, &maps);
	int rc = yctx_invite(y, player, &maps);
	engine_maps_free(&maps);
	return rc;
}

struct join_arg {
	const struct engine_new_player *np;
	int64_t now;
};

static int join_fn(struct engine *e, void *arg, char **report, char **errstr)
{
	const struct engine_new_player *np = ((struct join_arg *)arg)->np;
	int64_t now = ((struct join_arg *)arg)->now;
	struct yctx y;
	char why[WHY_MAX] = "";
	int provinces[JOIN_MAX_PROVINCES];
	size_t n = 0;
	int rc = -1;
	memset(&y, 0, sizeof y);
	if (yctx_open(&y, e, now, false, errstr) != 0)
		goto done;
	struct campaign *c = y.c;
	check_request(c, np, provinces, &n, why, sizeof why);
	if (why[0]) {
		*report = xasprintf("refused: %s\n", why);
		rc = 1;
		goto done;
	}
	int p = add_to_campaign(c, np);
	rules_player_joins(c, p, provinces, n, &y.log);
	if (store_add_player(e->store, c, p, errstr) != STORE_OK)
		goto done;
	if (invite_joiner(&y, p) != 0 || setup_mail(&y, p) != 0) {
		*errstr = y.err ? y.err : xstrdup("the new player's mails could not be queued");
		y.err = NULL;
		goto done;
	}
	const struct player *pl = &c->players[p];
	struct strbuf homes = {0};
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&homes, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			      c->provinces[provinces[i]].name);
	char *detail;
	if (pl->status == PLAYER_JOINING)
		detail = xasprintf("%s joins the campaign, played by %s, with %s as home province%s "
				   "(neutral until then); it takes its turns from %d", pl->nation,
				   pl->name ? pl->name : pl->email, homes.data, n == 1 ? "" : "s",
				   c->year + 1);
	else
		detail = xasprintf("%s joins the campaign, played by %s, with %s as home province%s",
				   pl->nation, pl->name ? pl->name : pl->email, homes.data,
				   n == 1 ? "" : "s");
	strbuf_free(&homes);
	yctx_announce(&y, "add-player", detail);
	if (yctx_save(&y, errstr) != 0) {
		free(detail);
		goto done;
	}
	*report = xasprintf("%s\ninvited %s <%s> (password by mail) and mailed the army list and "
			    "home provinces\n", detail, pl->key, pl->email);
	free(detail);
	rc = 0;
done:
	yctx_free(&y);
	return rc;
}

int engine_add_player(struct engine *e, const struct engine_new_player *np, int64_t now,
		      char **report, char **errstr)
{
	struct join_arg a = {np, now};
	*report = NULL;
	return engine_year_transaction(e, join_fn, &a, report, errstr);
}
