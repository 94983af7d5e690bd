/* Scenarios: the readable summary (an event a line, the standings). */
#include "config.h"

#include "engine/scenario.h"
#include "engine/scenario_p.h"

#include "dbm/rules.h"
#include "base/util.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ summary */

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (const char *p = s; *p; p++)
		if (isspace((unsigned char)*p) || strchr("=\",:[]{}", *p))
			return true;
	return false;
}

static void put_text(struct strbuf *sb, const char *s)
{
	if (!needs_quotes(s)) {
		strbuf_puts(sb, s);
		return;
	}
	strbuf_putc(sb, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '\n') {
			strbuf_puts(sb, "\\n"); /* one event, one line */
			continue;
		}
		if (*p == '"' || *p == '\\')
			strbuf_putc(sb, '\\');
		strbuf_putc(sb, *p);
	}
	strbuf_putc(sb, '"');
}

static void put_value(struct strbuf *sb, const json_t *v, bool half_ap)
{
	char buf[16];
	switch (json_typeof(v)) {
	case JSON_STRING:
		put_text(sb, json_string_value(v));
		break;
	case JSON_INTEGER: {
		json_int_t n = json_integer_value(v);
		if (half_ap && n >= INT_MIN && n <= INT_MAX)
			strbuf_puts(sb, half_ap_format((int)n, buf));
		else
			strbuf_printf(sb, "%" JSON_INTEGER_FORMAT, n);
		break;
	}
	case JSON_REAL:
		strbuf_printf(sb, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		strbuf_puts(sb, "yes");
		break;
	case JSON_FALSE:
		strbuf_puts(sb, "no");
		break;
	case JSON_NULL:
		strbuf_puts(sb, "-");
		break;
	case JSON_ARRAY: {
		size_t i;
		const json_t *e;
		strbuf_putc(sb, '[');
		json_array_foreach(v, i, e) {
			if (i)
				strbuf_putc(sb, ',');
			put_value(sb, e, half_ap);
		}
		strbuf_putc(sb, ']');
		break;
	}
	case JSON_OBJECT: {
		const char *k;
		const json_t *e;
		bool first = true;
		strbuf_putc(sb, '{');
		json_object_foreach((json_t *)v, k, e) {
			if (!first)
				strbuf_putc(sb, ',');
			first = false;
			put_text(sb, k);
			strbuf_putc(sb, ':');
			put_value(sb, e, half_ap);
		}
		strbuf_putc(sb, '}');
		break;
	}
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

char *scenario_event_line(const json_t *event)
{
	struct strbuf sb = {0};
	const char *kind = json_string_value(json_object_get(event, "kind"));
	const char *rule = json_string_value(json_object_get(event, "rule"));
	const char *phase = json_string_value(json_object_get(event, "phase"));
	strbuf_printf(&sb, "%" JSON_INTEGER_FORMAT " %-11s %-19s",
		      json_integer_value(json_object_get(event, "year")), phase ? phase : "?",
		      kind ? kind : "?");
	if (rule && *rule)
		strbuf_printf(&sb, " [%s]", rule);
	if (kind && strcmp(kind, "roll") == 0) {
		/* Rolls read best as "purpose: value (roll n)". */
		const char *purpose = json_string_value(json_object_get(event, "purpose"));
		strbuf_printf(&sb, " %s: %" JSON_INTEGER_FORMAT " (roll %" JSON_INTEGER_FORMAT ")",
			      purpose ? purpose : "?",
			      json_integer_value(json_object_get(event, "value")),
			      json_integer_value(json_object_get(event, "counter")));
		return strbuf_take(&sb);
	}
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)event, k, v) {
		if (!strcmp(k, "kind") || !strcmp(k, "rule") || !strcmp(k, "year") ||
		    !strcmp(k, "phase") || json_is_false(v))
			continue;
		strbuf_putc(&sb, ' ');
		if (json_is_true(v)) {
			strbuf_puts(&sb, k);
			continue;
		}
		bool half = ends_with(k, "half_ap");
		if (half)
			strbuf_printf(&sb, "%.*sap=", (int)(strlen(k) - strlen("half_ap")), k);
		else
			strbuf_printf(&sb, "%s=", k);
		put_value(&sb, v, half);
	}
	return strbuf_take(&sb);
}

static void put_padded(struct strbuf *sb, const char *s, size_t width)
{
	strbuf_puts(sb, s);
	for (size_t w = utf8_columns(s); w < width; w++)
		strbuf_putc(sb, ' ');
}

char *scenario_standings(const struct campaign *c)
{
	struct strbuf sb = {0};
	char a[16], b[16];
	size_t n = c->player_count;
	int *order = xcalloc(n + 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = (int)i;
	/* By score, then in the campaign file's order (a stable insertion sort). */
	for (size_t i = 1; i < n; i++) {
		int v = order[i];
		size_t j = i;
		for (; j > 0 && rules_player_score(c, order[j - 1]) < rules_player_score(c, v); j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
	strbuf_printf(&sb, "Standings in %d, %s phase:\n", c->year, campaign_phase_name(c->phase));
	size_t wkey = 6, wloc = 8;
	for (size_t i = 0; i < n; i++) {
		size_t w = utf8_columns(c->players[i].key);
		wkey = w > wkey ? w : wkey;
		w = utf8_columns(province_of(c, c->players[i].location));
		wloc = w > wloc ? w : wloc;
	}
	strbuf_puts(&sb, "  ");
	put_padded(&sb, "player", wkey + 2);
	put_padded(&sb, "status", 8);
	put_padded(&sb, "location", wloc + 2);
	strbuf_puts(&sb, "field AP  reserve AP  provinces  battle  province  total\n");
	for (size_t k = 0; k < n; k++) {
		const struct player *p = &c->players[order[k]];
		static const char *const status[] = {"active", "out", "left", "joining"};
		strbuf_puts(&sb, "  ");
		put_padded(&sb, p->key, wkey + 2);
		put_padded(&sb, (unsigned)p->status < 4 ? status[p->status] : "?", 8);
		put_padded(&sb, province_of(c, p->location), wloc + 2);
		strbuf_printf(&sb, "%8s  %10s  %9d  %6d  %8d  %5d\n",
			      half_ap_format(player_field_half_ap(p), a),
			      half_ap_format(player_reserve_half_ap(p), b),
			      player_province_count(c, order[k]), p->battle_prestige,
			      p->province_prestige, rules_player_score(c, order[k]));
	}
	free(order);
	strbuf_puts(&sb, "Provinces:\n");
	for (long owner = 0; owner <= (long)n; owner++) {
		int who = owner == (long)n ? NO_INDEX : (int)owner;
		bool any = false;
		for (size_t i = 0; i < c->province_count; i++) {
			if (c->provinces[i].owner != who)
				continue;
			strbuf_puts(&sb, any ? ", " : "  ");
			if (!any)
				strbuf_printf(&sb, "%s: ", key_of(c, who));
			strbuf_puts(&sb, c->provinces[i].name);
			any = true;
		}
		if (any)
			strbuf_putc(&sb, '\n');
	}
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *ct = &c->contingents[i];
		strbuf_printf(&sb, "Contingent: %s with %s, %s AP%s\n", key_of(c, ct->owner),
			      key_of(c, ct->with_player),
			      half_ap_format(troops_half_ap(&c->players[ct->owner].list, &ct->troops),
					     a),
			      ct->returning ? ", returning" : "");
	}
	for (size_t i = 0; i < c->siege_count; i++) {
		const struct siege *s = &c->sieges[i];
		strbuf_printf(&sb, "Siege: %s by %s, %d failed round%s\n",
			      province_of(c, s->province), key_of(c, s->besieger), s->rounds_failed,
			      s->rounds_failed == 1 ? "" : "s");
	}
	return strbuf_take(&sb);
}
