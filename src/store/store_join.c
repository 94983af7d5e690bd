/* Players who join during play (campaignctl add-player, rules 1.2): the
 * new player's rows added to a stored campaign, and the "joining" mark
 * that keeps him out of the year until the next one begins. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Whether the players table has the column "joining" (its schema step
 * may be older than the file: tests create older schemas). */
static int has_joining(struct store *s, bool *yes, char **errstr)
{
	int64_t n = 0;
	int status = store_query_int64(s, errstr, &n, NULL,
				       "SELECT count(*) FROM pragma_table_info('players')"
				       " WHERE name = 'joining'", NULL);
	*yes = status == STORE_OK && n > 0;
	return status;
}

static void mark_joining(void *arg, size_t i)
{
	((struct campaign *)arg)->players[i].status = PLAYER_JOINING;
}

int store_join_load(struct store *s, struct campaign *c, char **errstr)
{
	bool yes = false;
	int status = has_joining(s, &yes, errstr);
	if (status != STORE_OK || !yes)
		return status;
	return store_each_index(s, errstr, "SELECT id FROM players WHERE joining ORDER BY id",
				c->player_count, "joining mark of no player", mark_joining, c);
}

int store_add_player(struct store *s, const struct campaign *c, int player, char **errstr)
{
	if (player < 0 || (size_t)player + 1 != c->player_count || !c->players[player].key)
		return store_fail(s, errstr, STORE_ERROR,
				  "cannot add a player: not the campaign's last one");
	const struct player *p = &c->players[player];
	for (size_t j = 0; j < p->list.count; j++)
		if (!p->list.types[j].label)
			return store_fail(s, errstr, STORE_ERROR,
					  "cannot add %s: army list line %zu has no label", p->key,
					  j);
	store_campaign_forget(s);
	int status = store_write_begin(s, errstr);
	if (status != STORE_OK)
		return status;
	int64_t rows = -1;
	bool yes = false;
	status = store_query_int64(s, errstr, &rows, NULL, "SELECT count(*) FROM players", NULL);
	if (status == STORE_OK && rows != (int64_t)player)
		status = store_fail(s, errstr, STORE_MISMATCH,
				    "cannot add %s: the stored campaign has %lld players, not %d",
				    p->key, (long long)rows, player);
	if (status == STORE_OK)
		status = has_joining(s, &yes, errstr);
	if (status == STORE_OK && !yes && p->status == PLAYER_JOINING)
		status = store_fail(s, errstr, STORE_VERSION,
				    "the database's schema is too old to add a player");
	/* the status column knows active, out and left: a joining player is
	 * active there, with the mark */
	if (status == STORE_OK)
		status = store_run(
			s, errstr, NULL,
			"INSERT INTO players (id, key, nation, name, email, location,"
			" original_half_ap, cap_half_ap, battle_prestige, province_prestige,"
			" quiet_years, overlord, status, line, movement_option, fought_this_year)"
			" VALUES (?, ?, ?, ?, ?, NULL, ?, ?, 0, 0, 0, NULL, 'active', 0, 'none', 0)",
			"Ittttii", (int64_t)player, p->key, p->nation, p->name, p->email,
			p->original_half_ap, p->cap_half_ap);
	for (size_t j = 0; status == STORE_OK && j < p->list.count; j++) {
		const struct element_type *e = &p->list.types[j];
		char grade[2] = {e->grade, '\0'};
		status = store_run(s, errstr, NULL,
				   "INSERT INTO element_types (player, position, label, code, grade,"
				   " regular, cost_half_ap, list_min, list_max, general, line)"
				   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				   "IitttBiiiBi", (int64_t)player, (int)j, e->label, e->code,
				   e->grade ? grade : NULL, e->regular, e->cost_half_ap, e->list_min,
				   e->list_max, e->general, e->line);
		if (status == STORE_OK)
			status = store_run(s, errstr, NULL,
					   "INSERT INTO troops (player, position, field, reserve)"
					   " VALUES (?, ?, 0, 0)",
					   "Ii", (int64_t)player, (int)j);
	}
	for (size_t i = 0; status == STORE_OK && i < c->province_count; i++)
		if (c->provinces[i].home_of == player)
			status = store_run(s, errstr, NULL,
					   "UPDATE provinces SET home_of = ? WHERE id = ?", "II",
					   (int64_t)player, (int64_t)i);
	if (status == STORE_OK && yes)
		status = store_run(s, errstr, NULL,
				   "UPDATE players SET joining = ?, setup_by_mail = ? WHERE id = ?",
				   "BBI", p->status == PLAYER_JOINING, p->setup_by_mail,
				   (int64_t)player);
	return store_write_end(s, status, errstr);
}
