#include "config.h"

#include "model/campaign_json.h"
#include "base/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

json_t *half_ap_to_json(int half_ap)
{
	if (half_ap % 2 == 0)
		return json_integer(half_ap / 2);
	return json_real(half_ap / 2.0);
}

/* Campaign text should be UTF-8; a stray Latin-1 byte must not make the
 * document (or the whole export) disappear, so invalid bytes are read as
 * Latin-1 and converted. */
static char *utf8_sanitize(const char *s)
{
	struct strbuf sb = {0};
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
			   : (*p & 0xf8) == 0xf0 ? 4 : 0;
		bool valid = len > 0;
		for (size_t i = 1; valid && i < len; i++)
			valid = (p[i] & 0xc0) == 0x80;
		if (valid) {
			strbuf_append(&sb, (const char *)p, len);
			p += len;
		} else {
			strbuf_putc(&sb, (char)(0xc0 | (*p >> 6)));
			strbuf_putc(&sb, (char)(0x80 | (*p & 0x3f)));
			p++;
		}
	}
	return strbuf_take(&sb);
}

static json_t *string_or_null(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (!j) {
		char *clean = utf8_sanitize(s);
		j = json_string(clean);
		free(clean);
	}
	return j ? j : json_string("");
}

static void object_set_text_key(json_t *o, const char *key, json_t *value)
{
	if (json_object_set_new(o, key, value) == 0)
		return;
	char *clean = utf8_sanitize(key);
	json_object_set_new(o, clean, value);
	free(clean);
}

static json_t *player_ref(const struct campaign *c, int player)
{
	if (player < 0 || (size_t)player >= c->player_count)
		return json_null();
	return string_or_null(c->players[player].key);
}

static json_t *province_ref(const struct campaign *c, int province)
{
	if (province < 0 || (size_t)province >= c->province_count)
		return json_null();
	return string_or_null(c->provinces[province].name);
}

static const char *status_name(enum player_status st)
{
	switch (st) {
	case PLAYER_ACTIVE: return "active";
	case PLAYER_OUT: return "out";
	case PLAYER_LEFT: return "left";
	case PLAYER_JOINING: return "joining";
	}
	return "unknown";
}

static const char *const movement_option_names[] = {"none", "invade", "ally", "move"};

static const char *movement_option_name(int option)
{
	return option >= OPTION_NONE && option <= OPTION_MOVE ? movement_option_names[option]
							      : "none";
}

static json_t *settings_to_json(const struct campaign_settings *s)
{
	json_t *reminders = json_array();
	for (size_t i = 0; i < 4 && s->reminder_hours[i]; i++)
		json_array_append_new(reminders, json_integer(s->reminder_hours[i]));
	return json_pack("{s:i, s:b, s:b, s:b, s:i, s:i, s:i, s:i, s:o, s:i}",
			 "siege_floor", s->siege_floor,
			 "supply_across_sea", s->supply_across_sea,
			 "inviolate_passable", s->inviolate_passable,
			 "defence_recalls_contingents", s->defence_recalls_contingents,
			 "turn_deadline_hours", s->turn_deadline_hours,
			 "decision_deadline_hours", s->decision_deadline_hours,
			 "battle_deadline_hours", s->battle_deadline_hours,
			 "recruitment_deadline_hours", s->recruitment_deadline_hours,
			 "reminder_hours", reminders,
			 "grace_hours", s->grace_hours);
}

/* Counts by army-list label, every line of the list present (0 included) so
 * that readers need not know the list to find a count. */
static json_t *troops_to_json(const struct army_list *l, const struct troops *t)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->count; i++)
		object_set_text_key(o, l->types[i].label ? l->types[i].label : "",
				    json_integer(t->count ? t->count[i] : 0));
	return o;
}

static json_t *army_list_to_json(const struct army_list *l)
{
	json_t *a = json_array();
	for (size_t i = 0; i < l->count; i++) {
		const struct element_type *e = &l->types[i];
		char grade[2] = {e->grade, '\0'};
		json_array_append_new(
			a, json_pack("{s:o, s:o, s:o, s:b, s:o, s:i, s:i, s:b}",
				     "label", string_or_null(e->label),
				     "type", string_or_null(e->code),
				     "grade", e->grade ? json_string(grade) : json_null(),
				     "regular", e->regular,
				     "cost", half_ap_to_json(e->cost_half_ap),
				     "min", e->list_min,
				     "max", e->list_max,
				     "general", e->general));
	}
	return a;
}

static json_t *player_to_json(const struct campaign *c, size_t idx)
{
	const struct player *p = &c->players[idx];
	const struct army_list *l = &p->list;
	json_t *field = json_pack(
		"{s:o, s:o, s:i, s:i, s:o}",
		"location", province_ref(c, p->location),
		"ap", half_ap_to_json(troops_half_ap(l, &p->field)),
		"generals", troops_generals(l, &p->field),
		"elements", troops_elements(l, &p->field),
		"troops", troops_to_json(l, &p->field));
	json_t *reserve = json_pack(
		"{s:o, s:i, s:o}",
		"ap", half_ap_to_json(troops_half_ap(l, &p->reserve)),
		"elements", troops_elements(l, &p->reserve),
		"troops", troops_to_json(l, &p->reserve));
	json_t *prestige = json_pack("{s:i, s:i, s:i}",
				     "battle", p->battle_prestige,
				     "provinces", p->province_prestige,
				     "total", p->battle_prestige + p->province_prestige);
	json_t *out = json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:i,"
			 " s:s, s:b}",
			 "key", string_or_null(p->key),
			 "nation", string_or_null(p->nation),
			 "name", string_or_null(p->name),
			 "email", string_or_null(p->email),
			 "status", status_name(p->status),
			 "overlord", player_ref(c, p->overlord),
			 "provinces_held", player_province_count(c, (int)idx),
			 "prestige", prestige,
			 "original_ap", half_ap_to_json(p->original_half_ap),
			 "cap_ap", half_ap_to_json(p->cap_half_ap),
			 "army_list", army_list_to_json(l),
			 "field_army", field,
			 "reserve", reserve,
			 "quiet_years", p->quiet_years,
			 "movement_option", movement_option_name(p->movement_option),
			 "fought_this_year", p->fought_this_year);
	if (p->setup_by_mail) /* written only when set: older files stay as they were */
		json_object_set_new(out, "setup_by_mail", json_true());
	return out;
}

static json_t *tag_default(const struct campaign *c)
{
	char *tag = campaign_default_tag(c->name);
	json_t *v = json_string(tag);
	free(tag);
	return v;
}

json_t *campaign_to_json(const struct campaign *c)
{
	json_t *organiser = json_pack("{s:o, s:o, s:o}",
				      "name", string_or_null(c->organiser_name),
				      "email", string_or_null(c->organiser_email),
				      "player", player_ref(c, c->organiser_player));
	json_t *campaign = json_pack("{s:o, s:i, s:o, s:o, s:o, s:o}",
				     "name", string_or_null(c->name),
				     "start_year", c->start_year,
				     "timezone", string_or_null(c->timezone),
				     "tag", c->tag ? json_string(c->tag) : tag_default(c),
				     "organiser", organiser,
				     "background", string_or_null(c->background));

	json_t *provinces = json_array();
	for (size_t i = 0; i < c->province_count; i++) {
		const struct province *p = &c->provinces[i];
		json_array_append_new(
			provinces,
			json_pack("{s:o, s:o, s:o, s:f, s:f, s:o, s:b, s:o}",
				  "name", string_or_null(p->name),
				  "terrain", string_or_null(p->terrain),
				  "climate", string_or_null(p->climate),
				  "x", p->x, "y", p->y,
				  "home_of", player_ref(c, p->home_of),
				  "inviolate", p->inviolate,
				  "owner", player_ref(c, p->owner)));
	}

	json_t *routes = json_array();
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		json_array_append_new(routes, json_pack("{s:o, s:o, s:b}",
							"from", province_ref(c, r->a),
							"to", province_ref(c, r->b),
							"sea", r->sea));
	}

	json_t *players = json_array();
	for (size_t i = 0; i < c->player_count; i++)
		json_array_append_new(players, player_to_json(c, i));

	json_t *contingents = json_array();
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *k = &c->contingents[i];
		json_t *troops, *ap;
		if (k->owner >= 0 && (size_t)k->owner < c->player_count) {
			const struct army_list *l = &c->players[k->owner].list;
			troops = troops_to_json(l, &k->troops);
			ap = half_ap_to_json(troops_half_ap(l, &k->troops));
		} else {
			troops = json_object();
			ap = json_integer(0);
		}
		json_array_append_new(contingents,
				      json_pack("{s:o, s:o, s:i, s:b, s:o, s:o}",
						"owner", player_ref(c, k->owner),
						"with", player_ref(c, k->with_player),
						"sent_year", k->sent_year,
						"returning", k->returning,
						"ap", ap,
						"troops", troops));
	}

	json_t *sieges = json_array();
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *s = &c->sieges[i];
		json_array_append_new(sieges, json_pack("{s:o, s:o, s:i, s:i}",
							"province", province_ref(c, s->province),
							"besieger", player_ref(c, s->besieger),
							"rounds_failed", s->rounds_failed,
							"last_round_year", s->last_round_year));
	}

	json_t *alliances = json_array();
	for (size_t i = 0; i < c->alliance_count; i++) {
		const struct alliance *a = &c->alliances[i];
		json_array_append_new(alliances, json_pack("{s:o, s:o, s:i}",
							   "a", player_ref(c, a->a),
							   "b", player_ref(c, a->b),
							   "since_year", a->since_year));
	}

	return json_pack("{s:i, s:o, s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "schema_version", CAMPAIGN_JSON_SCHEMA_VERSION,
			 "campaign", campaign,
			 "year", c->year,
			 "phase", campaign_phase_name(c->phase),
			 "settings", settings_to_json(&c->settings),
			 "provinces", provinces,
			 "routes", routes,
			 "players", players,
			 "contingents", contingents,
			 "sieges", sieges,
			 "alliances", alliances);
}

/* ---- reading ----
 * Each reader takes the path of the member it reads ("players[1].key") so
 * that an error names it exactly. The first error wins; later ones are not
 * reported because they are usually consequences of it. */

struct reader {
	struct campaign *c;
	char *error;
};

static bool fail(struct reader *r, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail(struct reader *r, const char *path, const char *fmt, ...)
{
	if (r->error)
		return false;
	struct strbuf sb = {0};
	va_list ap;
	strbuf_printf(&sb, "%s: ", path);
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	r->error = strbuf_take(&sb);
	return false;
}

static char *join(const char *path, const char *key)
{
	return path[0] ? xasprintf("%s.%s", path, key) : xstrdup(key);
}

static const json_t *member(struct reader *r, const json_t *obj, const char *path,
			    const char *key, char **member_path)
{
	*member_path = join(path, key);
	const json_t *v = json_object_get(obj, key);
	if (!v)
		fail(r, *member_path, "missing");
	return v;
}

/* Reads a member that is a string or null; *out is a new string or NULL. */
static bool read_opt_string(struct reader *r, const json_t *obj, const char *path,
			    const char *key, char **out)
{
	char *mp;
	const json_t *v = member(r, obj, path, key, &mp);
	bool ok = false;
	if (!v)
		goto done;
	if (json_is_null(v)) {
		*out = NULL;
		ok = true;
	} else if (json_is_string(v)) {
		*out = xstrdup(json_string_value(v));
		ok = true;
	} else {
		fail(r, mp, "must be a string or null");
	}
done:
	free(mp);
	return ok;
}

static bool read_string(struct reader *r, const json_t *obj, const char *path, const char *key,
			char **out)
{
	if (!read_opt_string(r, obj, path, key, out))
		return false;
	if (!*out) {
		char *mp = join(path, key);
		fail(r, mp, "must be a string");
		free(mp);
		return false;
	}
	return true;
}

static bool read_int(struct reader *r, const json_t *obj, const char *path, const char *key,
		     int min, int max, int *out)
{
	char *mp;
	const json_t *v = member(r, obj, path, key, &mp);
	bool ok = false;
	if (!v)
		goto done;
	if (!json_is_integer(v)) {
		fail(r, mp, "must be an integer");
		goto done;
	}
	json_int_t n = json_integer_value(v);
	if (n < min || n > max) {
		fail(r, mp, "%lld is out of range (%d to %d)", (long long)n, min, max);
		goto done;
	}
	*out = (int)n;
	ok = true;
done:
	free(mp);
	return ok;
}

static bool read_bool(struct reader *r, const json_t *obj, const char *path, const char *key,
		      bool *out)
{
	char *mp;
	const json_t *v = member(r, obj, path, key, &mp);
	bool ok = false;
	if (v && json_is_boolean(v)) {
		*out = json_is_true(v);
		ok = true;
	} else if (v) {
		fail(r, mp, "must be true or false");
	}
	free(mp);
	return ok;
}

static bool read_double(struct reader *r, const json_t *obj, const char *path, const char *key,
			double *out)
{
	char *mp;
	const json_t *v = member(r, obj, path, key, &mp);
	bool ok = false;
	if (v && json_is_number(v)) {
		*out = json_number_value(v);
		ok = true;
	} else if (v) {
		fail(r, mp, "must be a number");
	}
	free(mp);
	return ok;
}

/* Army points: a non-negative whole or half number. */
static bool read_half_ap(struct reader *r, const json_t *obj, const char *path, const char *key,
			 int *out)
{
	char *mp;
	const json_t *v = member(r, obj, path, key, &mp);
	bool ok = false;
	if (!v)
		goto done;
	if (!json_is_number(v)) {
		fail(r, mp, "must be a number of army points");
		goto done;
	}
	double halves = json_number_value(v) * 2.0;
	if (!(halves >= 0 && halves <= 2000000) || halves != floor(halves)) {
		fail(r, mp, "must be a whole or half number of army points from 0 to 1000000");
		goto done;
	}
	*out = (int)halves;
	ok = true;
done:
	free(mp);
	return ok;
}

static const json_t *read_typed(struct reader *r, const json_t *obj, const char *path,
				const char *key, json_type type)
{
	char *mp;
	const json_t *v = member(r, obj, path, key, &mp);
	if (v && json_typeof(v) != type) {
		fail(r, mp, type == JSON_ARRAY ? "must be an array" : "must be an object");
		v = NULL;
	}
	free(mp);
	return v;
}

/* A player key or null. */
static bool read_player_ref(struct reader *r, const json_t *obj, const char *path,
			    const char *key, int *out)
{
	char *name = NULL;
	if (!read_opt_string(r, obj, path, key, &name))
		return false;
	*out = NO_INDEX;
	if (!name)
		return true;
	for (size_t i = 0; i < r->c->player_count; i++)
		if (strcmp(r->c->players[i].key, name) == 0)
			*out = (int)i;
	if (*out == NO_INDEX) {
		char *mp = join(path, key);
		fail(r, mp, "unknown player \"%s\"", name);
		free(mp);
	}
	free(name);
	return *out != NO_INDEX || !r->error;
}

/* A province name or null. */
static bool read_province_ref(struct reader *r, const json_t *obj, const char *path,
			      const char *key, bool nullable, int *out)
{
	char *name = NULL;
	if (!read_opt_string(r, obj, path, key, &name))
		return false;
	*out = NO_INDEX;
	char *mp = join(path, key);
	if (!name) {
		if (!nullable)
			fail(r, mp, "must be a province name");
	} else {
		for (size_t i = 0; i < r->c->province_count; i++)
			if (strcmp(r->c->provinces[i].name, name) == 0)
				*out = (int)i;
		if (*out == NO_INDEX)
			fail(r, mp, "unknown province \"%s\"", name);
	}
	free(mp);
	free(name);
	return !r->error;
}

static bool read_troops(struct reader *r, const json_t *obj, const char *path, const char *key,
			const struct army_list *l, struct troops *t)
{
	const json_t *o = read_typed(r, obj, path, key, JSON_OBJECT);
	if (!o)
		return false;
	troops_alloc(t, l->count);
	const char *label;
	const json_t *v;
	json_object_foreach((json_t *)o, label, v) {
		char *mp = xasprintf("%s.%s.%s", path, key, label);
		int i = -1;
		for (size_t j = 0; j < l->count; j++)
			if (strcmp(l->types[j].label, label) == 0)
				i = (int)j;
		if (i < 0)
			fail(r, mp, "not in the army list");
		else if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			 json_integer_value(v) > 100000)
			fail(r, mp, "must be a count from 0 to 100000");
		else
			t->count[i] = (int)json_integer_value(v);
		free(mp);
		if (r->error)
			return false;
	}
	return true;
}

static bool read_settings(struct reader *r, const json_t *doc)
{
	struct campaign_settings *s = &r->c->settings;
	const json_t *o = read_typed(r, doc, "", "settings", JSON_OBJECT);
	if (!o)
		return false;
	const int hours_max = 24 * 366;
	if (!read_int(r, o, "settings", "siege_floor", 1, 6, &s->siege_floor) ||
	    !read_bool(r, o, "settings", "supply_across_sea", &s->supply_across_sea) ||
	    !read_bool(r, o, "settings", "inviolate_passable", &s->inviolate_passable) ||
	    !read_bool(r, o, "settings", "defence_recalls_contingents",
		       &s->defence_recalls_contingents) ||
	    !read_int(r, o, "settings", "turn_deadline_hours", 0, hours_max,
		      &s->turn_deadline_hours) ||
	    !read_int(r, o, "settings", "decision_deadline_hours", 0, hours_max,
		      &s->decision_deadline_hours) ||
	    !read_int(r, o, "settings", "battle_deadline_hours", 0, hours_max,
		      &s->battle_deadline_hours) ||
	    !read_int(r, o, "settings", "recruitment_deadline_hours", 0, hours_max,
		      &s->recruitment_deadline_hours) ||
	    !read_int(r, o, "settings", "grace_hours", 0, hours_max, &s->grace_hours))
		return false;
	const json_t *rem = read_typed(r, o, "settings", "reminder_hours", JSON_ARRAY);
	if (!rem)
		return false;
	size_t n = json_array_size(rem);
	if (n > 4)
		return fail(r, "settings.reminder_hours", "at most 4 reminders");
	memset(s->reminder_hours, 0, sizeof s->reminder_hours);
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_array_get(rem, i);
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > hours_max) {
			char *mp = xasprintf("settings.reminder_hours[%zu]", i);
			fail(r, mp, "must be a number of hours from 1 to %d", hours_max);
			free(mp);
			return false;
		}
		s->reminder_hours[i] = (int)json_integer_value(v);
	}
	return true;
}

static bool read_campaign_header(struct reader *r, const json_t *doc)
{
	struct campaign *c = r->c;
	const json_t *o = read_typed(r, doc, "", "campaign", JSON_OBJECT);
	if (!o)
		return false;
	if (!read_opt_string(r, o, "campaign", "name", &c->name) ||
	    !read_int(r, o, "campaign", "start_year", -10000, 10000, &c->start_year) ||
	    !read_opt_string(r, o, "campaign", "timezone", &c->timezone) ||
	    (json_object_get(o, "tag") && !read_opt_string(r, o, "campaign", "tag", &c->tag)) ||
	    !read_opt_string(r, o, "campaign", "background", &c->background))
		return false;
	if (!c->tag || campaign_tag_problem(c->tag)) { /* stored before tags */
		free(c->tag);
		c->tag = campaign_default_tag(c->name);
	}
	const json_t *org = read_typed(r, o, "campaign", "organiser", JSON_OBJECT);
	return org && read_opt_string(r, org, "campaign.organiser", "name", &c->organiser_name) &&
	       read_opt_string(r, org, "campaign.organiser", "email", &c->organiser_email);
}

static bool read_phase(struct reader *r, const json_t *doc)
{
	char *name = NULL;
	if (!read_string(r, doc, "", "phase", &name))
		return false;
	r->c->phase = -1;
	for (int ph = PHASE_SETUP; ph <= PHASE_ENDED; ph++)
		if (strcmp(campaign_phase_name(ph), name) == 0)
			r->c->phase = ph;
	if (r->c->phase < 0)
		fail(r, "phase", "unknown phase \"%s\" (setup, campaign, recruitment or ended)", name);
	free(name);
	return !r->error;
}

/* Names first: provinces and players can then refer to each other. */
static bool read_names(struct reader *r, const json_t *provinces, const json_t *players)
{
	struct campaign *c = r->c;
	for (size_t i = 0; i < json_array_size(provinces); i++) {
		char *path = xasprintf("provinces[%zu]", i);
		const json_t *o = json_array_get(provinces, i);
		struct province *p = campaign_add_province(c);
		if (!json_is_object(o))
			fail(r, path, "must be an object");
		else if (read_string(r, o, path, "name", &p->name) &&
			 campaign_find_province(c, p->name) != (int)i)
			fail(r, path, "province \"%s\" appears twice", p->name);
		free(path);
		if (r->error)
			return false;
	}
	for (size_t i = 0; i < json_array_size(players); i++) {
		char *path = xasprintf("players[%zu]", i);
		const json_t *o = json_array_get(players, i);
		struct player *p = campaign_add_player(c);
		if (!json_is_object(o))
			fail(r, path, "must be an object");
		else if (read_string(r, o, path, "key", &p->key)) {
			for (size_t j = 0; j < i; j++)
				if (strcmp(c->players[j].key, p->key) == 0)
					fail(r, path, "player \"%s\" appears twice", p->key);
		}
		free(path);
		if (r->error)
			return false;
	}
	return true;
}

static bool read_province(struct reader *r, const json_t *o, const char *path,
			  struct province *p)
{
	return read_opt_string(r, o, path, "terrain", &p->terrain) &&
	       read_opt_string(r, o, path, "climate", &p->climate) &&
	       read_double(r, o, path, "x", &p->x) && read_double(r, o, path, "y", &p->y) &&
	       read_player_ref(r, o, path, "home_of", &p->home_of) &&
	       read_bool(r, o, path, "inviolate", &p->inviolate) &&
	       read_player_ref(r, o, path, "owner", &p->owner);
}

static bool read_element_type(struct reader *r, const json_t *o, const char *path,
			      struct element_type *e)
{
	char *code = NULL, *grade = NULL;
	bool ok = read_string(r, o, path, "label", &e->label) &&
		  read_string(r, o, path, "type", &code) &&
		  read_opt_string(r, o, path, "grade", &grade) &&
		  read_bool(r, o, path, "regular", &e->regular) &&
		  read_half_ap(r, o, path, "cost", &e->cost_half_ap) &&
		  read_int(r, o, path, "min", 0, 100000, &e->list_min) &&
		  read_int(r, o, path, "max", 0, 100000, &e->list_max) &&
		  read_bool(r, o, path, "general", &e->general);
	if (ok && strlen(code) >= sizeof e->code) {
		char *mp = xasprintf("%s.type", path);
		ok = fail(r, mp, "\"%s\" is not a DBM troop type", code);
		free(mp);
	} else if (ok) {
		strcpy(e->code, code);
	}
	if (ok && grade) {
		if (strlen(grade) != 1) {
			char *mp = xasprintf("%s.grade", path);
			ok = fail(r, mp, "must be one letter");
			free(mp);
		} else {
			e->grade = grade[0];
		}
	}
	free(code);
	free(grade);
	return ok;
}

static bool read_player(struct reader *r, const json_t *o, const char *path, struct player *p)
{
	char *status = NULL, *option = NULL;
	if (!read_opt_string(r, o, path, "nation", &p->nation) ||
	    !read_opt_string(r, o, path, "name", &p->name) ||
	    !read_opt_string(r, o, path, "email", &p->email) ||
	    !read_string(r, o, path, "status", &status))
		return false;
	if (strcmp(status, "active") == 0)
		p->status = PLAYER_ACTIVE;
	else if (strcmp(status, "out") == 0)
		p->status = PLAYER_OUT;
	else if (strcmp(status, "left") == 0)
		p->status = PLAYER_LEFT;
	else if (strcmp(status, "joining") == 0)
		p->status = PLAYER_JOINING;
	else {
		char *mp = xasprintf("%s.status", path);
		fail(r, mp, "unknown status \"%s\" (active, out, left or joining)", status);
		free(mp);
	}
	free(status);
	if (r->error || !read_player_ref(r, o, path, "overlord", &p->overlord) ||
	    !read_half_ap(r, o, path, "original_ap", &p->original_half_ap) ||
	    !read_half_ap(r, o, path, "cap_ap", &p->cap_half_ap) ||
	    !read_int(r, o, path, "quiet_years", 0, 10000, &p->quiet_years) ||
	    !read_bool(r, o, path, "fought_this_year", &p->fought_this_year) ||
	    !read_string(r, o, path, "movement_option", &option))
		return false;
	p->movement_option = -1;
	for (int i = OPTION_NONE; i <= OPTION_MOVE; i++)
		if (strcmp(option, movement_option_names[i]) == 0)
			p->movement_option = i;
	if (p->movement_option < 0) {
		char *mp = join(path, "movement_option");
		fail(r, mp, "unknown option \"%s\" (none, invade, ally or move)", option);
		free(mp);
	}
	free(option);
	if (r->error)
		return false;
	p->setup_by_mail = json_is_true(json_object_get(o, "setup_by_mail"));

	const json_t *prestige = read_typed(r, o, path, "prestige", JSON_OBJECT);
	char *ppath = xasprintf("%s.prestige", path);
	bool ok = prestige &&
		  read_int(r, prestige, ppath, "battle", -100000, 100000, &p->battle_prestige) &&
		  read_int(r, prestige, ppath, "provinces", -100000, 100000,
			   &p->province_prestige);
	free(ppath);
	if (!ok)
		return false;

	const json_t *list = read_typed(r, o, path, "army_list", JSON_ARRAY);
	if (!list)
		return false;
	for (size_t i = 0; i < json_array_size(list); i++) {
		char *epath = xasprintf("%s.army_list[%zu]", path, i);
		const json_t *e = json_array_get(list, i);
		struct element_type *t = army_list_add(&p->list);
		if (!json_is_object(e))
			fail(r, epath, "must be an object");
		else if (read_element_type(r, e, epath, t)) {
			for (size_t j = 0; j + 1 < p->list.count; j++)
				if (strcmp(p->list.types[j].label, t->label) == 0)
					fail(r, epath, "label \"%s\" appears twice", t->label);
		}
		free(epath);
		if (r->error)
			return false;
	}
	player_alloc_troops(p);

	const json_t *field = read_typed(r, o, path, "field_army", JSON_OBJECT);
	const json_t *reserve = field ? read_typed(r, o, path, "reserve", JSON_OBJECT) : NULL;
	if (!reserve)
		return false;
	char *fpath = xasprintf("%s.field_army", path);
	char *rpath = xasprintf("%s.reserve", path);
	ok = read_province_ref(r, field, fpath, "location", true, &p->location) &&
	     read_troops(r, field, fpath, "troops", &p->list, &p->field) &&
	     read_troops(r, reserve, rpath, "troops", &p->list, &p->reserve);
	free(fpath);
	free(rpath);
	return ok;
}

static bool read_routes(struct reader *r, const json_t *doc)
{
	const json_t *routes = read_typed(r, doc, "", "routes", JSON_ARRAY);
	if (!routes)
		return false;
	for (size_t i = 0; i < json_array_size(routes); i++) {
		char *path = xasprintf("routes[%zu]", i);
		const json_t *o = json_array_get(routes, i);
		struct route *rt = campaign_add_route(r->c);
		if (!json_is_object(o))
			fail(r, path, "must be an object");
		else
			(void)(read_province_ref(r, o, path, "from", false, &rt->a) &&
			       read_province_ref(r, o, path, "to", false, &rt->b) &&
			       read_bool(r, o, path, "sea", &rt->sea));
		free(path);
		if (r->error)
			return false;
	}
	return true;
}

static bool read_contingents(struct reader *r, const json_t *doc)
{
	struct campaign *c = r->c;
	const json_t *arr = read_typed(r, doc, "", "contingents", JSON_ARRAY);
	if (!arr)
		return false;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		char *path = xasprintf("contingents[%zu]", i);
		const json_t *o = json_array_get(arr, i);
		grow_array((void **)&c->contingents, &c->contingent_cap, c->contingent_count + 1,
			   sizeof *c->contingents);
		struct contingent *k = &c->contingents[c->contingent_count++];
		memset(k, 0, sizeof *k);
		k->owner = k->with_player = NO_INDEX;
		if (!json_is_object(o))
			fail(r, path, "must be an object");
		else if (read_player_ref(r, o, path, "owner", &k->owner) &&
			 read_player_ref(r, o, path, "with", &k->with_player) &&
			 read_int(r, o, path, "sent_year", -10000, 10000, &k->sent_year) &&
			 read_bool(r, o, path, "returning", &k->returning)) {
			if (k->owner == NO_INDEX || k->with_player == NO_INDEX)
				fail(r, path, "needs an owner and a player it is with");
			else
				read_troops(r, o, path, "troops", &c->players[k->owner].list,
					    &k->troops);
		}
		free(path);
		if (r->error)
			return false;
	}
	return true;
}

static bool read_sieges(struct reader *r, const json_t *doc)
{
	struct campaign *c = r->c;
	const json_t *arr = read_typed(r, doc, "", "sieges", JSON_ARRAY);
	if (!arr)
		return false;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		char *path = xasprintf("sieges[%zu]", i);
		const json_t *o = json_array_get(arr, i);
		grow_array((void **)&c->sieges, &c->siege_cap, c->siege_count + 1,
			   sizeof *c->sieges);
		struct siege *s = &c->sieges[c->siege_count++];
		memset(s, 0, sizeof *s);
		s->province = s->besieger = NO_INDEX;
		if (!json_is_object(o))
			fail(r, path, "must be an object");
		else if (read_province_ref(r, o, path, "province", false, &s->province) &&
			 read_player_ref(r, o, path, "besieger", &s->besieger) &&
			 read_int(r, o, path, "rounds_failed", 0, 10000, &s->rounds_failed) &&
			 read_int(r, o, path, "last_round_year", -10000, 10000,
				  &s->last_round_year) &&
			 s->besieger == NO_INDEX)
			fail(r, path, "needs a besieger");
		free(path);
		if (r->error)
			return false;
	}
	return true;
}

/* Optional: a document without "alliances" has none. */
static bool read_alliances(struct reader *r, const json_t *doc)
{
	struct campaign *c = r->c;
	if (!json_object_get(doc, "alliances"))
		return true;
	const json_t *arr = read_typed(r, doc, "", "alliances", JSON_ARRAY);
	if (!arr)
		return false;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		char *path = xasprintf("alliances[%zu]", i);
		const json_t *o = json_array_get(arr, i);
		grow_array((void **)&c->alliances, &c->alliance_cap, c->alliance_count + 1,
			   sizeof *c->alliances);
		struct alliance *a = &c->alliances[c->alliance_count++];
		memset(a, 0, sizeof *a);
		a->a = a->b = NO_INDEX;
		if (!json_is_object(o))
			fail(r, path, "must be an object");
		else if (read_player_ref(r, o, path, "a", &a->a) &&
			 read_player_ref(r, o, path, "b", &a->b) &&
			 read_int(r, o, path, "since_year", -10000, 10000, &a->since_year) &&
			 (a->a == NO_INDEX || a->b == NO_INDEX || a->a == a->b))
			fail(r, path, "needs two different players");
		free(path);
		if (r->error)
			return false;
	}
	return true;
}

static bool read_document(struct reader *r, const json_t *doc)
{
	struct campaign *c = r->c;
	int version;
	if (!json_is_object(doc))
		return fail(r, "document", "must be a JSON object");
	if (!read_int(r, doc, "", "schema_version", 0, 1000000, &version))
		return false;
	if (version != CAMPAIGN_JSON_SCHEMA_VERSION)
		return fail(r, "schema_version", "%d is not supported (this version reads %d)",
			    version, CAMPAIGN_JSON_SCHEMA_VERSION);
	const json_t *provinces = read_typed(r, doc, "", "provinces", JSON_ARRAY);
	const json_t *players = provinces ? read_typed(r, doc, "", "players", JSON_ARRAY) : NULL;
	if (!players || !read_names(r, provinces, players) || !read_campaign_header(r, doc) ||
	    !read_int(r, doc, "", "year", -10000, 10000, &c->year) || !read_phase(r, doc) ||
	    !read_settings(r, doc))
		return false;
	const json_t *org = json_object_get(json_object_get(doc, "campaign"), "organiser");
	if (!read_player_ref(r, org, "campaign.organiser", "player", &c->organiser_player))
		return false;
	for (size_t i = 0; i < c->province_count; i++) {
		char *path = xasprintf("provinces[%zu]", i);
		read_province(r, json_array_get(provinces, i), path, &c->provinces[i]);
		free(path);
		if (r->error)
			return false;
	}
	for (size_t i = 0; i < c->player_count; i++) {
		char *path = xasprintf("players[%zu]", i);
		read_player(r, json_array_get(players, i), path, &c->players[i]);
		free(path);
		if (r->error)
			return false;
	}
	return read_routes(r, doc) && read_contingents(r, doc) && read_sieges(r, doc) &&
	       read_alliances(r, doc);
}

struct campaign *campaign_from_json(const json_t *doc, char **errstr)
{
	struct reader r = {.c = campaign_new()};
	if (!read_document(&r, doc)) {
		*errstr = r.error ? r.error : xstrdup("invalid campaign document");
		campaign_free(r.c);
		return NULL;
	}
	return r.c;
}
