/* The campaign kept in memory between loads: handed out as copies while no
 * other connection committed (PRAGMA data_version) and this one neither
 * wrote the campaign's tables nor rolled anything back. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static bool campaign_table(const char *table)
{
	static const char *const tables[] = {
		"campaign", "settings",	   "reminders",	  "players",	       "provinces", "routes",
		"element_types", "troops", "contingents", "contingent_troops", "sieges",
		"alliances",
	};
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
		if (strcmp(table, tables[i]) == 0)
			return true;
	return false;
}

/* Any row written to a campaign table (SQLite does not call this for a
 * DELETE without WHERE: store_save_state forgets by itself). */
static void on_update(void *arg, int op, const char *db, const char *table, sqlite3_int64 rowid)
{
	(void)op;
	(void)db;
	(void)rowid;
	if (campaign_table(table))
		store_campaign_forget(arg);
}

/* A transaction undone, whatever undid it (ours, or SQLite's own after a
 * full disk): what was loaded inside it may never have been committed. */
static void on_rollback(void *arg)
{
	store_campaign_forget(arg);
}

void store_campaign_hooks(struct store *s)
{
	sqlite3_update_hook(s->db, on_update, s);
	sqlite3_rollback_hook(s->db, on_rollback, s);
}

void store_campaign_forget(struct store *s)
{
	campaign_free(s->campaign);
	s->campaign = NULL;
}

int store_campaign_version(struct store *s, int64_t *version, char **errstr)
{
	return store_query_int64(s, errstr, version, NULL, "PRAGMA data_version", NULL);
}

struct campaign *store_campaign_cached(struct store *s, int64_t version)
{
	return s->campaign && s->campaign_version == version ? campaign_copy(s->campaign) : NULL;
}

void store_campaign_keep(struct store *s, const struct campaign *c, int64_t version)
{
	store_campaign_forget(s);
	s->campaign = campaign_copy(c);
	s->campaign_version = version;
}

static bool troops_equal(const struct troops *a, const struct troops *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((a->count ? a->count[i] : 0) != (b->count ? b->count[i] : 0))
			return false;
	return true;
}

/* Whether c holds the same state (what store_save_state writes) as the
 * kept campaign, which is the stored one. */
bool store_campaign_unchanged(struct store *s, const struct campaign *c, int64_t version)
{
	const struct campaign *k = s->campaign;
	if (!k || s->campaign_version != version || k->year != c->year || k->phase != c->phase ||
	    k->province_count != c->province_count || k->player_count != c->player_count ||
	    k->contingent_count != c->contingent_count || k->siege_count != c->siege_count ||
	    k->alliance_count != c->alliance_count)
		return false;
	for (size_t i = 0; i < c->alliance_count; i++)
		if (k->alliances[i].a != c->alliances[i].a || k->alliances[i].b != c->alliances[i].b ||
		    k->alliances[i].since_year != c->alliances[i].since_year)
			return false;
	for (size_t i = 0; i < c->province_count; i++)
		if (k->provinces[i].owner != c->provinces[i].owner ||
		    strcmp(k->provinces[i].name, c->provinces[i].name) != 0)
			return false;
	for (size_t i = 0; i < c->player_count; i++) {
		const struct player *p = &k->players[i], *q = &c->players[i];
		if (p->list.count != q->list.count || strcmp(p->key, q->key) != 0 ||
		    p->location != q->location || p->original_half_ap != q->original_half_ap ||
		    p->cap_half_ap != q->cap_half_ap || p->battle_prestige != q->battle_prestige ||
		    p->province_prestige != q->province_prestige ||
		    p->quiet_years != q->quiet_years || p->overlord != q->overlord ||
		    p->status != q->status || p->movement_option != q->movement_option ||
		    p->fought_this_year != q->fought_this_year ||
		    p->setup_by_mail != q->setup_by_mail ||
		    !troops_equal(&p->field, &q->field, p->list.count) ||
		    !troops_equal(&p->reserve, &q->reserve, p->list.count))
			return false;
	}
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *a = &k->contingents[i], *b = &c->contingents[i];
		if (a->owner != b->owner || a->with_player != b->with_player ||
		    a->sent_year != b->sent_year || a->returning != b->returning ||
		    a->owner < 0 || (size_t)a->owner >= c->player_count ||
		    !troops_equal(&a->troops, &b->troops, c->players[a->owner].list.count))
			return false;
	}
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *a = &k->sieges[i], *b = &c->sieges[i];
		if (a->province != b->province || a->besieger != b->besieger ||
		    a->rounds_failed != b->rounds_failed || a->last_round_year != b->last_round_year)
			return false;
	}
	return true;
}
