/* The campaign's tables: writing a new campaign, reading it back, and
 * saving its state after each step. */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Schema 6: players who set up by mail (a column of their own, written
 * and read apart so that older schemas, which tests create, still take a
 * campaign). */
#define SETUP_SCHEMA 6
/* The schema step that made the alliances table. */
#define ALLIANCE_SCHEMA 8
/* The schema step that marked players joining during play. */
#define JOIN_SCHEMA 10

/* Where the campaign's state goes, one statement (SQL and parameters, as
 * store_run takes them) at a time: to the database, or, when rows is not
 * NULL, appended to rows. store_save_state compares the rows the kept
 * campaign and the one to save would write, so whatever it writes is
 * compared, and a save that would change nothing writes nothing. */
struct state_out {
	struct store *s;
	char **errstr;
	struct strbuf *rows;
};

static int state_row(struct state_out *o, const char *sql, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int status = STORE_OK;
	if (!o->rows) {
		status = store_runv(o->s, o->errstr, NULL, sql, fmt, ap);
		va_end(ap);
		return status;
	}
	strbuf_puts(o->rows, sql);
	strbuf_putc(o->rows, '\0');
	for (; fmt && *fmt; fmt++) {
		strbuf_putc(o->rows, *fmt);
		switch (*fmt) {
		case 'I': {
			int64_t v = va_arg(ap, int64_t);
			strbuf_append(o->rows, (const char *)&v, sizeof v);
			break;
		}
		case 't': {
			const char *t = va_arg(ap, const char *);
			strbuf_putc(o->rows, t ? 't' : 'n');
			if (t)
				strbuf_append(o->rows, t, strlen(t) + 1);
			break;
		}
		case 'i':
		case 'B':
		case 'r': {
			int v = va_arg(ap, int);
			if (*fmt == 'B')
				v = v ? 1 : 0;
			strbuf_append(o->rows, (const char *)&v, sizeof v);
			break;
		}
		default: /* the state has no 'd' or 'b' */
			abort();
		}
	}
	va_end(ap);
	return status;
}

static int save_setup_by_mail(struct state_out *o, const struct campaign *c, bool all)
{
	int status = STORE_OK;
	if (store_schema_version(o->s) < SETUP_SCHEMA)
		return STORE_OK;
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++)
		if (all || c->players[i].setup_by_mail)
			status = state_row(o, "UPDATE players SET setup_by_mail = ? WHERE id = ?",
					   "BI", c->players[i].setup_by_mail, (int64_t)i);
	return status;
}

static void mark_setup_by_mail(void *arg, size_t i)
{
	((struct campaign *)arg)->players[i].setup_by_mail = true;
}

static int load_setup_by_mail(struct store *s, struct campaign *c, char **errstr)
{
	if (store_schema_version(s) < SETUP_SCHEMA)
		return STORE_OK;
	return store_each_index(s, errstr, "SELECT id FROM players WHERE setup_by_mail ORDER BY id",
				c->player_count, "setup_by_mail of no player", mark_setup_by_mail,
				c);
}

/* ---------------------------------------------------------------- names */

static const char *player_status_name(enum player_status st)
{
	switch (st) {
	case PLAYER_ACTIVE: return "active";
	case PLAYER_OUT: return "out";
	case PLAYER_LEFT: return "left";
	case PLAYER_JOINING: return "active"; /* and the joining mark (store_join.c) */
	}
	return "active";
}

static bool player_status_parse(const char *name, enum player_status *st)
{
	static const enum player_status all[] = {PLAYER_ACTIVE, PLAYER_OUT, PLAYER_LEFT};
	for (size_t i = 0; name && i < sizeof all / sizeof *all; i++)
		if (strcmp(name, player_status_name(all[i])) == 0) {
			*st = all[i];
			return true;
		}
	return false;
}

static const char *const movement_option_names[] = {"none", "invade", "ally", "move"};

static const char *movement_option_name(int option)
{
	return option >= OPTION_NONE && option <= OPTION_MOVE ? movement_option_names[option]
							      : "none";
}

static bool movement_option_parse(const char *name, int *option)
{
	for (int i = OPTION_NONE; name && i <= OPTION_MOVE; i++)
		if (strcmp(name, movement_option_names[i]) == 0) {
			*option = i;
			return true;
		}
	return false;
}

static bool phase_parse(const char *name, int *phase)
{
	for (int ph = PHASE_SETUP; name && ph <= PHASE_ENDED; ph++)
		if (strcmp(name, campaign_phase_name(ph)) == 0) {
			*phase = ph;
			return true;
		}
	return false;
}

/* ---------------------------------------------------------------- campaign: write */

/* Everything store_init_campaign writes must be in range and named, so the
 * rows make sense and nothing NULL is dereferenced. */
static int check_campaign(const struct store *s, const struct campaign *c, char **errstr)
{
	int np = (int)c->player_count, nv = (int)c->province_count;
#define BAD(...) \
	return store_fail(s, errstr, STORE_ERROR, "cannot store the campaign: " __VA_ARGS__)
#define PLAYER_OK(i) ((i) == NO_INDEX || ((i) >= 0 && (i) < np))
#define PROVINCE_OK(i) ((i) == NO_INDEX || ((i) >= 0 && (i) < nv))
	if (!PLAYER_OK(c->organiser_player))
		BAD("organiser's nation %d out of range", c->organiser_player);
	for (int i = 0; i < nv; i++) {
		const struct province *p = &c->provinces[i];
		if (!p->name)
			BAD("province %d has no name", i);
		if (!PLAYER_OK(p->owner) || !PLAYER_OK(p->home_of))
			BAD("province %s: player out of range", p->name);
	}
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		if (r->a < 0 || r->a >= nv || r->b < 0 || r->b >= nv)
			BAD("route %zu: province out of range", i);
	}
	for (int i = 0; i < np; i++) {
		const struct player *p = &c->players[i];
		if (!p->key)
			BAD("player %d has no key", i);
		if (!PLAYER_OK(p->overlord) || !PROVINCE_OK(p->location))
			BAD("player %s: overlord or location out of range", p->key);
		for (size_t j = 0; j < p->list.count; j++)
			if (!p->list.types[j].label)
				BAD("player %s: army list line %zu has no label", p->key, j);
	}
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *k = &c->contingents[i];
		if (k->owner < 0 || k->owner >= np || k->with_player < 0 || k->with_player >= np)
			BAD("contingent %zu: player out of range", i);
	}
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *g = &c->sieges[i];
		if (g->province < 0 || g->province >= nv || g->besieger < 0 || g->besieger >= np)
			BAD("siege %zu: province or besieger out of range", i);
	}
	for (size_t i = 0; i < c->alliance_count; i++) {
		const struct alliance *a = &c->alliances[i];
		if (a->a < 0 || a->a >= np || a->b < 0 || a->b >= np || a->a == a->b)
			BAD("alliance %zu: player out of range", i);
	}
#undef BAD
#undef PLAYER_OK
#undef PROVINCE_OK
	return STORE_OK;
}

/* A reference column: the index, or NULL for NO_INDEX. */
static int bind_ref(sqlite3_stmt *st, int col, int idx)
{
	return idx == NO_INDEX ? sqlite3_bind_null(st, col) : sqlite3_bind_int64(st, col, idx);
}

static int count_of(const struct troops *t, size_t i)
{
	return t->count ? t->count[i] : 0;
}

static int insert_contingents_and_sieges(struct state_out *o, const struct campaign *c)
{
	int status = STORE_OK;
	for (size_t i = 0; status == STORE_OK && i < c->contingent_count; i++) {
		const struct contingent *k = &c->contingents[i];
		status = state_row(
			o,
			"INSERT INTO contingents (id, owner, with_player, sent_year, is_returning)"
			" VALUES (?, ?, ?, ?, ?)",
			"IiiiB", (int64_t)i, k->owner, k->with_player, k->sent_year, k->returning);
		const struct army_list *l = &c->players[k->owner].list;
		for (size_t j = 0; status == STORE_OK && j < l->count; j++)
			if (count_of(&k->troops, j))
				status = state_row(
					o,
					"INSERT INTO contingent_troops (contingent, position,"
					" count) VALUES (?, ?, ?)",
					"Iii", (int64_t)i, (int)j, count_of(&k->troops, j));
	}
	for (size_t i = 0; status == STORE_OK && i < c->siege_count; i++) {
		const struct siege *g = &c->sieges[i];
		status = state_row(o,
				   "INSERT INTO sieges (id, province, besieger, rounds_failed,"
				   " last_round_year) VALUES (?, ?, ?, ?, ?)",
				   "Iiiii", (int64_t)i, g->province, g->besieger, g->rounds_failed,
				   g->last_round_year);
	}
	for (size_t i = 0; status == STORE_OK && store_schema_version(o->s) >= ALLIANCE_SCHEMA &&
			   i < c->alliance_count; i++) {
		const struct alliance *a = &c->alliances[i];
		status = state_row(o,
				   "INSERT INTO alliances (id, a, b, since_year) VALUES (?, ?, ?, ?)",
				   "Iiii", (int64_t)i, a->a, a->b, a->since_year);
	}
	return status;
}

static int insert_players(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int status = store_prepare(
		s, errstr, &st,
		"INSERT INTO players (id, key, nation, name, email, location, original_half_ap,"
		" cap_half_ap, battle_prestige, province_prestige, quiet_years, overlord, status,"
		" line, movement_option, fought_this_year)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
		NULL);
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_text(st, 2, p->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, p->nation, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, p->email, -1, SQLITE_STATIC);
		bind_ref(st, 6, p->location);
		sqlite3_bind_int(st, 7, p->original_half_ap);
		sqlite3_bind_int(st, 8, p->cap_half_ap);
		sqlite3_bind_int(st, 9, p->battle_prestige);
		sqlite3_bind_int(st, 10, p->province_prestige);
		sqlite3_bind_int(st, 11, p->quiet_years);
		bind_ref(st, 12, p->overlord);
		sqlite3_bind_text(st, 13, player_status_name(p->status), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 14, p->line);
		sqlite3_bind_text(st, 15, movement_option_name(p->movement_option), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int(st, 16, p->fought_this_year);
		status = store_step_done(s, errstr, st);
	}
	store_finish(s, st);

	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		for (size_t j = 0; status == STORE_OK && j < p->list.count; j++) {
			const struct element_type *e = &p->list.types[j];
			char grade[2] = {e->grade, '\0'};
			status = store_run(
				s, errstr, NULL,
				"INSERT INTO element_types (player, position, label, code, grade,"
				" regular, cost_half_ap, list_min, list_max, general, line)"
				" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				"IitttBiiiBi", (int64_t)i, (int)j, e->label, e->code,
				e->grade ? grade : NULL, e->regular, e->cost_half_ap, e->list_min,
				e->list_max, e->general, e->line);
			if (status == STORE_OK)
				status = store_run(
					s, errstr, NULL,
					"INSERT INTO troops (player, position, field, reserve)"
					" VALUES (?, ?, ?, ?)",
					"Iiii", (int64_t)i, (int)j, count_of(&p->field, j),
					count_of(&p->reserve, j));
		}
	}
	return status;
}

static int insert_map(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	int status =
		store_prepare(s, errstr, &st,
			      "INSERT INTO provinces (id, name, terrain, climate, x, y, home_of,"
			      " inviolate, owner, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      NULL);
	for (size_t i = 0; status == STORE_OK && i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_text(st, 2, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, p->terrain, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, p->climate, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 5, p->x);
		sqlite3_bind_double(st, 6, p->y);
		bind_ref(st, 7, p->home_of);
		sqlite3_bind_int(st, 8, p->inviolate);
		bind_ref(st, 9, p->owner);
		sqlite3_bind_int(st, 10, p->line);
		status = store_step_done(s, errstr, st);
	}
	store_finish(s, st);
	for (size_t i = 0; status == STORE_OK && i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		status =
			store_run(s, errstr, NULL,
				  "INSERT INTO routes (id, a, b, sea, line) VALUES (?, ?, ?, ?, ?)",
				  "IiiBi", (int64_t)i, r->a, r->b, r->sea, r->line);
	}
	return status;
}

static int insert_campaign(struct store *s, const struct campaign *c, char **errstr)
{
	const struct campaign_settings *set = &c->settings;
	sqlite3_stmt *st = NULL;
	int status = store_prepare(
		s, errstr, &st,
		"INSERT INTO campaign (id, name, start_year, timezone, organiser_name,"
		" organiser_email, organiser_player, background, year, phase)"
		" VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"tittt", c->name, c->start_year, c->timezone, c->organiser_name,
		c->organiser_email);
	if (status == STORE_OK) {
		bind_ref(st, 6, c->organiser_player);
		sqlite3_bind_text(st, 7, c->background, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 8, c->year);
		sqlite3_bind_text(st, 9, campaign_phase_name(c->phase), -1, SQLITE_STATIC);
		status = store_step_done(s, errstr, st);
	}
	store_finish(s, st);
	/* the subject tag (campaign(5)) lives in kv: no schema change for it */
	if (status == STORE_OK && c->tag)
		status = store_run(s, errstr, NULL,
				   "INSERT INTO kv (key, value) VALUES ('campaign-tag', ?)"
				   " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
				   "t", c->tag);
	if (status == STORE_OK)
		status = store_run(
			s, errstr, NULL,
			"INSERT INTO settings (id, siege_floor, supply_across_sea,"
			" turn_deadline_hours, decision_deadline_hours, battle_deadline_hours,"
			" recruitment_deadline_hours, grace_hours, inviolate_passable,"
			" defence_recalls_contingents) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			"iBiiiiiBB", set->siege_floor, set->supply_across_sea,
			set->turn_deadline_hours, set->decision_deadline_hours,
			set->battle_deadline_hours, set->recruitment_deadline_hours,
			set->grace_hours, set->inviolate_passable,
			set->defence_recalls_contingents);
	for (int i = 0; status == STORE_OK && i < 4 && set->reminder_hours[i]; i++)
		status = store_run(s, errstr, NULL,
				   "INSERT INTO reminders (position, hours) VALUES (?, ?)", "ii", i,
				   set->reminder_hours[i]);
	return status;
}

/* The old campaign and what belongs to it; see store_init_campaign. */
static int delete_campaign(struct store *s, char **errstr)
{
	static const char *const tables[] = {
		"year_state", "dice_years", "snapshots", "comments",
		"orders", "events", "alliances", "sieges", "contingent_troops", "contingents", "troops",
		"element_types", "routes", "provinces", "players", "reminders", "settings",
		"campaign",
	};
	int status = STORE_OK;
	for (size_t i = 0; status == STORE_OK && i < sizeof tables / sizeof *tables; i++) {
		if (strcmp(tables[i], "alliances") == 0 && store_schema_version(s) < ALLIANCE_SCHEMA)
			continue;
		char *sql = xasprintf("DELETE FROM %s", tables[i]);
		status = store_run(s, errstr, NULL, sql, NULL);
		free(sql);
	}
	if (status == STORE_OK)
		status = store_run(s, errstr, NULL, "DELETE FROM outbox WHERE status = 'queued'",
				   NULL);
	return status;
}

int store_has_campaign(struct store *s, bool *exists, char **name, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = store_prepare(s, errstr, &st, "SELECT name FROM campaign WHERE id = 1", NULL);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK) {
		*exists = row;
		if (name)
			*name = row ? store_column_text(st, 0) : NULL;
	}
	store_finish(s, st);
	return status;
}

int store_init_campaign(struct store *s, const struct campaign *c, bool force, char **errstr)
{
	int status = check_campaign(s, c, errstr);
	if (status != STORE_OK)
		return status;
	status = store_write_begin(s, errstr);
	if (status != STORE_OK)
		return status;
	bool exists = false;
	char *old_name = NULL;
	status = store_has_campaign(s, &exists, &old_name, errstr);
	if (status == STORE_OK && exists && !force)
		status = store_fail(s, errstr, STORE_EXISTS, "already holds the campaign \"%s\"",
				    old_name ? old_name : "");
	free(old_name);
	if (status == STORE_OK && exists)
		status = delete_campaign(s, errstr);
	if (status == STORE_OK)
		status = insert_campaign(s, c, errstr);
	if (status == STORE_OK)
		status = insert_map(s, c, errstr);
	if (status == STORE_OK)
		status = insert_players(s, c, errstr);
	struct state_out o = {s, errstr, NULL};
	if (status == STORE_OK)
		status = save_setup_by_mail(&o, c, false);
	if (status == STORE_OK)
		status = insert_contingents_and_sieges(&o, c);
	return store_write_end(s, status, errstr);
}

/* ---------------------------------------------------------------- campaign: read */

static int load_header(struct store *s, struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = store_prepare(
		s, errstr, &st,
		"SELECT name, start_year, timezone, organiser_name, organiser_email,"
		" organiser_player, background, year, phase FROM campaign WHERE id = 1",
		NULL);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && !row)
		status = store_fail(s, errstr, STORE_NOTFOUND,
				    "holds no campaign (create one with campaignctl init)");
	if (status == STORE_OK) {
		c->name = store_column_text(st, 0);
		c->start_year = sqlite3_column_int(st, 1);
		c->timezone = store_column_text(st, 2);
		c->organiser_name = store_column_text(st, 3);
		c->organiser_email = store_column_text(st, 4);
		c->organiser_player = sqlite3_column_type(st, 5) == SQLITE_NULL
					      ? NO_INDEX : sqlite3_column_int(st, 5);
		c->background = store_column_text(st, 6);
		c->year = sqlite3_column_int(st, 7);
		if (!phase_parse((const char *)sqlite3_column_text(st, 8), &c->phase))
			status = store_corrupt(s, errstr, "unknown campaign phase");
	}
	store_finish(s, st);
	if (status != STORE_OK)
		return status;
	/* the tag, or its default for a campaign stored before tags */
	status = store_prepare(s, errstr, &st, "SELECT value FROM kv WHERE key = 'campaign-tag'",
			       NULL);
	row = false;
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && row)
		c->tag = store_column_text(st, 0);
	store_finish(s, st);
	if (status != STORE_OK)
		return status;
	if (!c->tag || campaign_tag_problem(c->tag)) {
		free(c->tag);
		c->tag = campaign_default_tag(c->name);
	}

	struct campaign_settings *set = &c->settings;
	status = store_prepare(s, errstr, &st,
			       "SELECT siege_floor, supply_across_sea, turn_deadline_hours,"
			       " decision_deadline_hours, battle_deadline_hours,"
			       " recruitment_deadline_hours, grace_hours, inviolate_passable,"
			       " defence_recalls_contingents FROM settings WHERE id = 1",
			       NULL);
	if (status == STORE_OK)
		status = store_step_row(s, errstr, st, &row);
	if (status == STORE_OK && !row)
		status = store_corrupt(s, errstr, "no settings");
	if (status == STORE_OK) {
		set->siege_floor = sqlite3_column_int(st, 0);
		set->supply_across_sea = sqlite3_column_int(st, 1);
		set->turn_deadline_hours = sqlite3_column_int(st, 2);
		set->decision_deadline_hours = sqlite3_column_int(st, 3);
		set->battle_deadline_hours = sqlite3_column_int(st, 4);
		set->recruitment_deadline_hours = sqlite3_column_int(st, 5);
		set->grace_hours = sqlite3_column_int(st, 6);
		set->inviolate_passable = sqlite3_column_int(st, 7);
		set->defence_recalls_contingents = sqlite3_column_int(st, 8);
	}
	store_finish(s, st);
	if (status != STORE_OK)
		return status;

	memset(set->reminder_hours, 0, sizeof set->reminder_hours);
	status = store_prepare(s, errstr, &st, "SELECT hours FROM reminders ORDER BY position",
			       NULL);
	for (int i = 0; status == STORE_OK; i++) {
		status = store_step_row(s, errstr, st, &row);
		if (status != STORE_OK || !row)
			break;
		if (i >= 4)
			status = store_corrupt(s, errstr, "more than 4 reminders");
		else
			set->reminder_hours[i] = sqlite3_column_int(st, 0);
	}
	store_finish(s, st);
	return status;
}

/* Reads a nullable reference column into an index, checking its range. */
static bool column_ref(sqlite3_stmt *st, int col, size_t count, int *out)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		*out = NO_INDEX;
		return true;
	}
	int64_t v = sqlite3_column_int64(st, col);
	if (v < 0 || (uint64_t)v >= count)
		return false;
	*out = (int)v;
	return true;
}

static int load_map(struct store *s, struct campaign *c, int64_t players, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = store_prepare(
		s, errstr, &st,
		"SELECT id, name, terrain, climate, x, y, home_of, inviolate, owner, line"
		" FROM provinces ORDER BY id",
		NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		struct province *p = campaign_add_province(c);
		if (sqlite3_column_int64(st, 0) != (int64_t)c->province_count - 1)
			status = store_corrupt(s, errstr, "province ids are not 0, 1, 2...");
		p->name = store_column_text(st, 1);
		p->terrain = store_column_text(st, 2);
		p->climate = store_column_text(st, 3);
		p->x = sqlite3_column_double(st, 4);
		p->y = sqlite3_column_double(st, 5);
		p->inviolate = sqlite3_column_int(st, 7);
		p->line = sqlite3_column_int(st, 9);
		if (!column_ref(st, 6, (size_t)players, &p->home_of) ||
		    !column_ref(st, 8, (size_t)players, &p->owner))
			status = store_corrupt(s, errstr, "province refers to no player");
	}
	store_finish(s, st);
	if (status != STORE_OK)
		return status;

	status = store_prepare(s, errstr, &st, "SELECT id, a, b, sea, line FROM routes ORDER BY id",
			       NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		struct route *r = campaign_add_route(c);
		r->sea = sqlite3_column_int(st, 3);
		r->line = sqlite3_column_int(st, 4);
		if (!column_ref(st, 1, c->province_count, &r->a) ||
		    !column_ref(st, 2, c->province_count, &r->b) || r->a < 0 || r->b < 0)
			status = store_corrupt(s, errstr, "route refers to no province");
	}
	store_finish(s, st);
	return status;
}

static int load_players(struct store *s, struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int64_t count = 0;
	int status =
		store_query_int64(s, errstr, &count, NULL, "SELECT count(*) FROM players", NULL);
	if (status == STORE_OK)
		status = store_prepare(
			s, errstr, &st,
			"SELECT id, key, nation, name, email, location, original_half_ap,"
			" cap_half_ap, battle_prestige, province_prestige, quiet_years,"
			" overlord, status, line, movement_option, fought_this_year"
			" FROM players ORDER BY id",
			NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		struct player *p = campaign_add_player(c);
		if (sqlite3_column_int64(st, 0) != (int64_t)c->player_count - 1)
			status = store_corrupt(s, errstr, "player ids are not 0, 1, 2...");
		p->key = store_column_text(st, 1);
		p->nation = store_column_text(st, 2);
		p->name = store_column_text(st, 3);
		p->email = store_column_text(st, 4);
		p->original_half_ap = sqlite3_column_int(st, 6);
		p->cap_half_ap = sqlite3_column_int(st, 7);
		p->battle_prestige = sqlite3_column_int(st, 8);
		p->province_prestige = sqlite3_column_int(st, 9);
		p->quiet_years = sqlite3_column_int(st, 10);
		p->line = sqlite3_column_int(st, 13);
		p->fought_this_year = sqlite3_column_int(st, 15);
		if (!column_ref(st, 5, c->province_count, &p->location) ||
		    !column_ref(st, 11, (size_t)count, &p->overlord))
			status = store_corrupt(s, errstr, "player refers to no province or player");
		else if (!player_status_parse((const char *)sqlite3_column_text(st, 12),
					      &p->status))
			status = store_corrupt(s, errstr, "unknown player status");
		else if (!movement_option_parse((const char *)sqlite3_column_text(st, 14),
						&p->movement_option))
			status = store_corrupt(s, errstr, "unknown movement option");
	}
	store_finish(s, st);
	if (status != STORE_OK)
		return status;

	status = store_prepare(s, errstr, &st,
			       "SELECT e.player, e.position, e.label, e.code, e.grade, e.regular,"
			       " e.cost_half_ap, e.list_min, e.list_max, e.general, e.line"
			       " FROM element_types e ORDER BY e.player, e.position",
			       NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		int64_t pi = sqlite3_column_int64(st, 0);
		if (pi < 0 || (uint64_t)pi >= c->player_count) {
			status = store_corrupt(s, errstr, "army list of no player");
			break;
		}
		struct army_list *l = &c->players[pi].list;
		if (sqlite3_column_int64(st, 1) != (int64_t)l->count) {
			status = store_corrupt(s, errstr, "army list positions are not 0, 1, 2...");
			break;
		}
		struct element_type *e = army_list_add(l);
		e->label = store_column_text(st, 2);
		const char *code = (const char *)sqlite3_column_text(st, 3);
		const char *grade = (const char *)sqlite3_column_text(st, 4);
		if (!e->label || !code || strlen(code) >= sizeof e->code) {
			status = store_corrupt(s, errstr, "army list line without label or type");
			break;
		}
		strcpy(e->code, code);
		e->grade = grade ? grade[0] : '\0';
		e->regular = sqlite3_column_int(st, 5);
		e->cost_half_ap = sqlite3_column_int(st, 6);
		e->list_min = sqlite3_column_int(st, 7);
		e->list_max = sqlite3_column_int(st, 8);
		e->general = sqlite3_column_int(st, 9);
		e->line = sqlite3_column_int(st, 10);
	}
	store_finish(s, st);
	if (status != STORE_OK)
		return status;

	for (size_t i = 0; i < c->player_count; i++)
		player_alloc_troops(&c->players[i]);
	status = store_prepare(s, errstr, &st,
			       "SELECT player, position, field, reserve FROM troops", NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		int64_t pi = sqlite3_column_int64(st, 0), pos = sqlite3_column_int64(st, 1);
		if (pi < 0 || (uint64_t)pi >= c->player_count || pos < 0 ||
		    (uint64_t)pos >= c->players[pi].list.count) {
			status = store_corrupt(s, errstr, "troops of no army list line");
			break;
		}
		c->players[pi].field.count[pos] = sqlite3_column_int(st, 2);
		c->players[pi].reserve.count[pos] = sqlite3_column_int(st, 3);
	}
	store_finish(s, st);
	return status;
}

static int load_contingents_and_sieges(struct store *s, struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	int status = store_prepare(
		s, errstr, &st,
		"SELECT id, owner, with_player, sent_year, is_returning FROM contingents"
		" ORDER BY id",
		NULL);
	int64_t *ids = NULL;
	size_t ids_cap = 0;
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
			   sizeof *c->contingents);
		grow_array((void **)&ids, &ids_cap, c->contingent_count + 1, sizeof *ids);
		ids[c->contingent_count] = sqlite3_column_int64(st, 0);
		struct contingent *k = &c->contingents[c->contingent_count++];
		memset(k, 0, sizeof *k);
		k->sent_year = sqlite3_column_int(st, 3);
		k->returning = sqlite3_column_int(st, 4);
		if (!column_ref(st, 1, c->player_count, &k->owner) ||
		    !column_ref(st, 2, c->player_count, &k->with_player) || k->owner < 0 ||
		    k->with_player < 0) {
			k->owner = NO_INDEX;
			status = store_corrupt(s, errstr, "contingent of no player");
		} else {
			troops_alloc(&k->troops, c->players[k->owner].list.count);
		}
	}
	store_finish(s, st);

	for (size_t i = 0; status == STORE_OK && i < c->contingent_count; i++) {
		struct contingent *k = &c->contingents[i];
		size_t n = c->players[k->owner].list.count;
		status = store_prepare(
			s, errstr, &st,
			"SELECT position, count FROM contingent_troops WHERE contingent = ?", "I",
			ids[i]);
		while (status == STORE_OK &&
		       (status = store_step_row(s, errstr, st, &row)) == STORE_OK && row) {
			int64_t pos = sqlite3_column_int64(st, 0);
			if (pos < 0 || (uint64_t)pos >= n)
				status = store_corrupt(s, errstr,
						       "contingent troops of no army list line");
			else
				k->troops.count[pos] = sqlite3_column_int(st, 1);
		}
		store_finish(s, st);
	}
	free(ids);
	if (status != STORE_OK)
		return status;

	status = store_prepare(
		s, errstr, &st,
		"SELECT province, besieger, rounds_failed, last_round_year FROM sieges"
		" ORDER BY id",
		NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1,
			   sizeof *c->sieges);
		struct siege *g = &c->sieges[c->siege_count++];
		g->rounds_failed = sqlite3_column_int(st, 2);
		g->last_round_year = sqlite3_column_int(st, 3);
		if (!column_ref(st, 0, c->province_count, &g->province) ||
		    !column_ref(st, 1, c->player_count, &g->besieger) || g->province < 0 ||
		    g->besieger < 0)
			status = store_corrupt(s, errstr, "siege of no province or player");
	}
	store_finish(s, st);
	if (status != STORE_OK || store_schema_version(s) < ALLIANCE_SCHEMA)
		return status;

	status = store_prepare(s, errstr, &st,
			       "SELECT a, b, since_year FROM alliances ORDER BY id", NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		grow_array((void **)&c->alliances, &c->alliance_cap, c->alliance_count + 1,
			   sizeof *c->alliances);
		struct alliance *a = &c->alliances[c->alliance_count++];
		a->since_year = sqlite3_column_int(st, 2);
		if (!column_ref(st, 0, c->player_count, &a->a) ||
		    !column_ref(st, 1, c->player_count, &a->b) || a->a < 0 || a->b < 0)
			status = store_corrupt(s, errstr, "alliance of no player");
	}
	store_finish(s, st);
	return status;
}

int store_load_campaign(struct store *s, struct campaign **out, char **errstr)
{
	*out = NULL;
	int64_t players = 0, version = 0;
	int status = store_read_begin(s, errstr);
	if (status == STORE_OK)
		status = store_campaign_version(s, &version, errstr);
	if (status == STORE_OK && (*out = store_campaign_cached(s, version))) {
		store_read_end(s);
		return STORE_OK;
	}
	struct campaign *c = campaign_new();
	if (status == STORE_OK)
		status = load_header(s, c, errstr);
	if (status == STORE_OK)
		status = store_query_int64(s, errstr, &players, NULL,
					   "SELECT count(*) FROM players", NULL);
	if (status == STORE_OK)
		status = load_map(s, c, players, errstr);
	if (status == STORE_OK)
		status = load_players(s, c, errstr);
	if (status == STORE_OK)
		status = load_setup_by_mail(s, c, errstr);
	if (status == STORE_OK)
		status = store_join_load(s, c, errstr);
	if (status == STORE_OK)
		status = load_contingents_and_sieges(s, c, errstr);
	if (status == STORE_OK && c->organiser_player >= (int)c->player_count)
		status = store_corrupt(s, errstr, "organiser's nation is no player");
	store_read_end(s);
	if (status != STORE_OK) {
		campaign_free(c);
		return status;
	}
	store_campaign_keep(s, c, version);
	*out = c;
	return STORE_OK;
}

/* ---------------------------------------------------------------- campaign: state */

/* The stored definition must be the one c was loaded from. */
static int check_same_campaign(struct store *s, const struct campaign *c, char **errstr)
{
	sqlite3_stmt *st = NULL;
	bool row = false;
	size_t n = 0;
	int status = store_prepare(s, errstr, &st, "SELECT name FROM provinces ORDER BY id", NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (n >= c->province_count || !name || !c->provinces[n].name ||
		    strcmp(name, c->provinces[n].name) != 0)
			status = store_fail(
				s, errstr, STORE_MISMATCH,
				"the campaign to save has other provinces than the stored one");
		n++;
	}
	store_finish(s, st);
	if (status == STORE_OK && n != c->province_count)
		status = store_fail(s, errstr, STORE_MISMATCH,
				    "the campaign to save has other provinces than the stored one");
	if (status != STORE_OK)
		return status;

	n = 0;
	status = store_prepare(
		s, errstr, &st,
		"SELECT p.key, (SELECT count(*) FROM element_types e WHERE e.player = p.id)"
		" FROM players p ORDER BY p.id",
		NULL);
	while (status == STORE_OK && (status = store_step_row(s, errstr, st, &row)) == STORE_OK &&
	       row) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		if (n >= c->player_count || !key || !c->players[n].key ||
		    strcmp(key, c->players[n].key) != 0 ||
		    (size_t)sqlite3_column_int64(st, 1) != c->players[n].list.count)
			status = store_fail(
				s, errstr, STORE_MISMATCH,
				"the campaign to save has other players or army lists than"
				" the stored one");
		n++;
	}
	store_finish(s, st);
	if (status == STORE_OK && n != c->player_count)
		status = store_fail(s, errstr, STORE_MISMATCH,
				    "the campaign to save has other players than the stored one");
	return status;
}

/* Everything store_save_state writes, through o. */
static int write_state(struct state_out *o, const struct campaign *c)
{
	int status = state_row(o, "UPDATE campaign SET year = ?, phase = ? WHERE id = 1", "it",
			       c->year, campaign_phase_name(c->phase));
	for (size_t i = 0; status == STORE_OK && i < c->province_count; i++)
		status = state_row(o, "UPDATE provinces SET owner = ?1 WHERE id = ?2", "rI",
				   c->provinces[i].owner, (int64_t)i);
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		status = state_row(
			o,
			"UPDATE players SET location = ?1, original_half_ap = ?2,"
			" cap_half_ap = ?3, battle_prestige = ?4, province_prestige = ?5,"
			" quiet_years = ?6, overlord = ?7, status = ?8, movement_option = ?10,"
			" fought_this_year = ?11 WHERE id = ?9",
			"riiiiirtIti", p->location, p->original_half_ap, p->cap_half_ap,
			p->battle_prestige, p->province_prestige, p->quiet_years, p->overlord,
			player_status_name(p->status), (int64_t)i,
			movement_option_name(p->movement_option), p->fought_this_year);
	}
	for (size_t i = 0; status == STORE_OK && i < c->player_count; i++) {
		const struct player *p = &c->players[i];
		for (size_t j = 0; status == STORE_OK && j < p->list.count; j++)
			status = state_row(o,
					   "UPDATE troops SET field = ?1, reserve = ?2"
					   " WHERE player = ?3 AND position = ?4",
					   "iiII", count_of(&p->field, j), count_of(&p->reserve, j),
					   (int64_t)i, (int64_t)j);
	}
	if (status == STORE_OK)
		status = save_setup_by_mail(o, c, true);
	/* a joining player is "active" in the status column, with the mark */
	for (size_t i = 0; status == STORE_OK && store_schema_version(o->s) >= JOIN_SCHEMA &&
			   i < c->player_count; i++)
		status = state_row(o, "UPDATE players SET joining = ? WHERE id = ?", "BI",
				   c->players[i].status == PLAYER_JOINING, (int64_t)i);
	if (status == STORE_OK)
		status = state_row(o, "DELETE FROM contingent_troops", NULL);
	if (status == STORE_OK)
		status = state_row(o, "DELETE FROM contingents", NULL);
	if (status == STORE_OK)
		status = state_row(o, "DELETE FROM sieges", NULL);
	if (status == STORE_OK && store_schema_version(o->s) >= ALLIANCE_SCHEMA)
		status = state_row(o, "DELETE FROM alliances", NULL);
	if (status == STORE_OK)
		status = insert_contingents_and_sieges(o, c);
	return status;
}

/* The rows write_state would write for c, after what check_same_campaign
 * compares (provinces' names, players' keys and army lists' lengths). */
static void state_rows(struct store *s, const struct campaign *c, struct strbuf *rows)
{
	for (size_t i = 0; i < c->province_count; i++)
		strbuf_append(rows, c->provinces[i].name, strlen(c->provinces[i].name) + 1);
	for (size_t i = 0; i < c->player_count; i++) {
		strbuf_append(rows, c->players[i].key, strlen(c->players[i].key) + 1);
		strbuf_append(rows, (const char *)&c->players[i].list.count, sizeof(size_t));
	}
	struct state_out o = {s, NULL, rows};
	write_state(&o, c);
}

/* Whether saving c would write what the kept campaign, the stored one,
 * would write; c has passed check_campaign. */
static bool state_unchanged(struct store *s, const struct campaign *c)
{
	int64_t version = 0;
	if (!s->campaign || store_campaign_version(s, &version, NULL) != STORE_OK ||
	    s->campaign_version != version)
		return false;
	struct strbuf kept = {0}, now = {0};
	state_rows(s, s->campaign, &kept);
	state_rows(s, c, &now);
	bool same = kept.len == now.len && memcmp(kept.data, now.data, kept.len) == 0;
	strbuf_free(&kept);
	strbuf_free(&now);
	return same;
}

int store_save_state(struct store *s, const struct campaign *c, char **errstr)
{
	int status = check_campaign(s, c, errstr);
	if (status != STORE_OK)
		return status;
	/* Only what changed is written: most mail changes nothing of it. */
	if (state_unchanged(s, c))
		return STORE_OK;
	store_campaign_forget(s);
	status = store_write_begin(s, errstr);
	if (status != STORE_OK)
		return status;
	status = check_same_campaign(s, c, errstr);
	struct state_out o = {s, errstr, NULL};
	if (status == STORE_OK)
		status = write_state(&o, c);
	return store_write_end(s, status, errstr);
}
