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
