/* Battle reports read for what they mean: the canonical text two reports
 * are compared by (the same result always written the same way), the
 * result spelt out for the reply (the winner, each force's elements
 * destroyed, fled and demoralised with their AP, generals killed, the
 * routers returned as the players rounded them and an agreed ally share),
 * and two reports side by side for the organiser. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* What a report says, by force: the two field armies, then the contingents
 * that arrived (as listed in the battle's pending data). */
enum { LOSS_DESTROYED, LOSS_FLED, LOSS_WITHDRAWN, LOSS_DEMORALISED, LOSS_KILLED, LOSS_KINDS };

static const enum order_kind loss_kind[LOSS_KINDS] = {
	ORDER_BATTLE_DESTROYED, ORDER_BATTLE_FLED, ORDER_BATTLE_WITHDRAWN,
	ORDER_BATTLE_DEMORALISED, ORDER_BATTLE_GENERAL_KILLED,
};

static const char *const loss_name[LOSS_KINDS] = {
	"destroyed", "fled", "withdrawn", "demoralised", "generals killed",
};

struct force {
	int player;
	int side;
	bool contingent;
	int *n[LOSS_KINDS]; /* per element type of the player's list */
	int *returned;      /* RETURNED per type, -1 where no line names it */
	bool has_returned;  /* RETURNED lines given: the players' rounding */
	int share;          /* SHARE points agreed (0: none) */
};

struct reading {
	struct force *forces;
	size_t count;
	int winner;       /* a player, or NO_INDEX */
	int conceded_by;  /* a player, or NO_INDEX */
	int withdrawal_by;
};

static void forces_init(struct reading *rd, const struct campaign *c, const json_t *pending)
{
	const json_t *arrived = json_object_get(pending, "contingents");
	rd->forces = xcalloc(2 + json_array_size(arrived), sizeof *rd->forces);
	rd->count = 0;
	rd->winner = rd->conceded_by = rd->withdrawal_by = NO_INDEX;
	for (int s = 0; s < 2; s++)
		rd->forces[rd->count++] = (struct force){
			.player = find_player(c, jstr(pending, s ? "defender" : "attacker")),
			.side = s};
	size_t i;
	const json_t *v;
	json_array_foreach(arrived, i, v)
		rd->forces[rd->count++] = (struct force){.player = find_player(c, jstr(v, "owner")),
							 .side = jint(v, "side", 0),
							 .contingent = true};
	for (size_t f = 0; f < rd->count; f++) {
		int p = rd->forces[f].player;
		size_t types = (p >= 0 ? c->players[p].list.count : 0) + 1;
		for (int k = 0; k < LOSS_KINDS; k++)
			rd->forces[f].n[k] = xcalloc(types, sizeof(int));
		rd->forces[f].returned = xcalloc(types, sizeof(int));
		for (size_t t = 0; t < types; t++)
			rd->forces[f].returned[t] = -1;
	}
}

static void reading_free(struct reading *rd)
{
	for (size_t f = 0; f < rd->count; f++) {
		for (int k = 0; k < LOSS_KINDS; k++)
			free(rd->forces[f].n[k]);
		free(rd->forces[f].returned);
	}
	free(rd->forces);
	rd->forces = NULL;
	rd->count = 0;
}

/* The force a line about `player` counts for: a protagonist's lines are its
 * field army's, an ally's its contingent's (as the result is applied). */
static struct force *force_of(struct reading *rd, int player)
{
	for (size_t f = 0; f < rd->count; f++)
		if (rd->forces[f].player == player && player >= 0)
			return &rd->forces[f];
	return NULL;
}

/* Reads the set's result lines for the battle at `province`. */
static void read_set(struct reading *rd, const struct campaign *c, const struct order_set *set,
		     int province)
{
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind <= ORDER_BATTLE_AT ||
		    o->kind > ORDER_BATTLE_GENERAL_KILLED || o->province != province)
			continue;
		if (o->kind == ORDER_BATTLE_WINNER) {
			rd->winner = o->target;
			continue;
		}
		if (o->kind == ORDER_BATTLE_CONCEDED || o->kind == ORDER_BATTLE_WITHDRAWAL) {
			*(o->kind == ORDER_BATTLE_CONCEDED ? &rd->conceded_by : &rd->withdrawal_by) =
				o->target;
			continue;
		}
		struct force *f = force_of(rd, o->target);
		if (!f)
			continue; /* kept as written by year_report_text */
		size_t types = c->players[o->target].list.count;
		if (o->kind == ORDER_BATTLE_SHARE) {
			f->share = o->count; /* the last one, as year_battle applies it */
			continue;
		}
		if (o->kind == ORDER_BATTLE_RETURNED) {
			/* several lines for a type add up, as year_battle adds them */
			if (o->type >= 0 && (size_t)o->type < types) {
				int *r = &f->returned[o->type];
				*r = (*r < 0 ? 0 : *r) + o->count;
				f->has_returned = true;
			}
			continue;
		}
		for (int k = 0; k < LOSS_KINDS; k++)
			if (loss_kind[k] == o->kind)
				for (size_t it = 0; it < o->item_count; it++)
					if (o->items[it].type >= 0 && (size_t)o->items[it].type < types)
						f->n[k][o->items[it].type] +=
							o->kind == ORDER_BATTLE_DEMORALISED
								? 1
								: o->items[it].count;
	}
	/* a lone CONCEDED BY or WITHDRAWAL BY of one side names the other the
	 * winner; a killed general is a destroyed general's element */
	int gave_up = rd->conceded_by != NO_INDEX ? rd->conceded_by : rd->withdrawal_by;
	struct force *g = gave_up != NO_INDEX ? force_of(rd, gave_up) : NULL;
	if (rd->winner == NO_INDEX && g && !g->contingent)
		rd->winner = rd->forces[1 - g->side].player;
	for (size_t f = 0; f < rd->count; f++) {
		int p = rd->forces[f].player;
		size_t types = p >= 0 ? c->players[p].list.count : 0;
		for (size_t t = 0; t < types; t++)
			if (rd->forces[f].n[LOSS_KILLED][t] > rd->forces[f].n[LOSS_DESTROYED][t])
				rd->forces[f].n[LOSS_DESTROYED][t] = rd->forces[f].n[LOSS_KILLED][t];
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* RETURNED and SHARE in their canonical form: the routers the players
 * rounded, a type a line (a type no line names returns none; the zero
 * lines written are kept only when no type returns any), and the share. */
static void choice_lines(const struct campaign *c, int province, const struct force *f,
			 char ***lines, size_t *n, size_t *cap)
{
	size_t types = f->player >= 0 ? c->players[f->player].list.count : 0;
	bool any = false;
	for (size_t t = 0; t < types; t++)
		any |= f->returned[t] > 0;
	for (size_t t = 0; f->has_returned && t < types; t++) {
		if (f->returned[t] < 0 || (any && f->returned[t] == 0))
			continue;
		struct order o = {.kind = ORDER_BATTLE_RETURNED, .province = province,
				  .target = f->player, .count = f->returned[t], .type = (int)t};
		if (*n == *cap)
			*lines = xrealloc(*lines, (*cap *= 2) * sizeof **lines);
		(*lines)[(*n)++] = orders_format_one(&o, c, -1);
	}
	if (f->share > 0) {
		struct order o = {.kind = ORDER_BATTLE_SHARE, .province = province,
				  .target = f->player, .count = f->share};
		if (*n == *cap)
			*lines = xrealloc(*lines, (*cap *= 2) * sizeof **lines);
		(*lines)[(*n)++] = orders_format_one(&o, c, -1);
	}
}

/* One line in the order language, from a built order. */
static char *line_of(const struct campaign *c, enum order_kind kind, int province, int target,
		     int count, int type)
{
	struct order o = {.kind = kind, .province = province, .target = target};
	struct order_item item = {.count = count, .type = type};
	if (type >= 0) {
		o.items = &item;
		o.item_count = 1;
	}
	return orders_format_one(&o, c, -1);
}

char *year_report_text(const struct campaign *c, const json_t *pending, const struct order_set *set,
		       int province)
{
	bool any = false;
	for (size_t i = 0; i < set->count && !any; i++)
		any = set->orders[i].status == ORDER_OK && set->orders[i].kind > ORDER_BATTLE_AT &&
		      set->orders[i].kind <= ORDER_BATTLE_GENERAL_KILLED &&
		      set->orders[i].province == province;
	if (!any)
		return NULL;
	struct reading rd;
	forces_init(&rd, c, pending);
	read_set(&rd, c, set, province);
	size_t cap = 8, n = 0;
	char **lines = xcalloc(cap, sizeof *lines);
#define ADD(line)                                                                  \
	do {                                                                       \
		if (n == cap)                                                      \
			lines = xrealloc(lines, (cap *= 2) * sizeof *lines);       \
		lines[n++] = (line);                                               \
	} while (0)
	/* WINNER, CONCEDED BY, WITHDRAWAL BY as written (each once), so a
	 * report naming two winners still says so; a lone CONCEDED BY or
	 * WITHDRAWAL BY adds the WINNER it implies */
	bool has_winner = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->province != province ||
		    (o->kind != ORDER_BATTLE_WINNER && o->kind != ORDER_BATTLE_CONCEDED &&
		     o->kind != ORDER_BATTLE_WITHDRAWAL))
			continue;
		has_winner |= o->kind == ORDER_BATTLE_WINNER;
		char *line = line_of(c, o->kind, province, o->target, 0, -1);
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = lines[j] && line && strcmp(lines[j], line) == 0;
		if (seen)
			free(line);
		else
			ADD(line);
	}
	if (!has_winner && rd.winner != NO_INDEX)
		ADD(line_of(c, ORDER_BATTLE_WINNER, province, rd.winner, 0, -1));
	for (size_t f = 0; f < rd.count; f++) {
		int p = rd.forces[f].player;
		size_t types = p >= 0 ? c->players[p].list.count : 0;
		for (int k = 0; k < LOSS_KINDS; k++)
			for (size_t t = 0; t < types; t++) {
				int v = rd.forces[f].n[k][t];
				/* DEMORALISED and GENERAL KILLED name one element a line */
				bool one = k == LOSS_DEMORALISED || k == LOSS_KILLED;
				for (int rep = 0; rep < (one ? v : v > 0); rep++)
					ADD(line_of(c, loss_kind[k], province, p, one ? 1 : v, (int)t));
			}
		choice_lines(c, province, &rd.forces[f], &lines, &n, &cap);
	}
	/* lines about a player who is no force of the battle stay as written:
	 * the check refuses them with the reason */
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status == ORDER_OK && o->kind >= ORDER_BATTLE_DEMORALISED &&
		    o->kind <= ORDER_BATTLE_GENERAL_KILLED && o->province == province &&
		    !force_of(&rd, o->target))
			ADD(orders_format_one(o, c, -1));
	}
#undef ADD
	reading_free(&rd);
	struct strbuf sb = {0};
	strbuf_printf(&sb, "BATTLE AT %s\n", prov_name(c, province));
	qsort(lines, n, sizeof *lines, cmp_str);
	for (size_t i = 0; i < n; i++) {
		strbuf_printf(&sb, "%s\n", lines[i] ? lines[i] : "");
		free(lines[i]);
	}
	free(lines);
	return strbuf_take(&sb);
}

/* ------------------------------------------------------ spelt out */

static const char *force_role(const struct campaign *c, const struct reading *rd, size_t f,
			      char *buf, size_t size)
{
	const struct force *fo = &rd->forces[f];
	if (!fo->contingent)
		snprintf(buf, size, "%s (%s), the %s", pnation(c, fo->player), pkey(c, fo->player),
			 fo->side ? "defender" : "attacker");
	else
		snprintf(buf, size, "%s's contingent (%s), with %s", pnation(c, fo->player),
			 pkey(c, fo->player), pnation(c, rd->forces[fo->side].player));
	return buf;
}

/* "2 Kn(S) (24 AP), 1 Bw(I) (4 AP)", or "none". */
static void put_elements(struct strbuf *sb, const struct campaign *c, int player, const int *n)
{
	const struct army_list *l = &c->players[player].list;
	bool first = true;
	for (size_t t = 0; t < l->count; t++) {
		if (n[t] <= 0)
			continue;
		char ap[24];
		/* a hostile report may name absurd numbers: no overflow */
		long long half = (long long)n[t] * l->types[t].cost_half_ap;
		strbuf_printf(sb, "%s%d %s (%s AP)", first ? "" : ", ", n[t], l->types[t].label,
			      half_ap_format(half > INT_MAX ? INT_MAX : (int)half, ap));
		first = false;
	}
	if (first)
		strbuf_puts(sb, "none");
}

static char *cell(const struct campaign *c, const struct force *f, int k)
{
	struct strbuf sb = {0};
	put_elements(&sb, c, f->player, f->n[k]);
	return strbuf_take(&sb);
}

/* The routers a force gets back as the players rounded them, or NULL
 * when the report leaves the rounding to the rules. */
static char *returned_cell(const struct campaign *c, const struct force *f)
{
	if (!f->has_returned)
		return NULL;
	size_t types = c->players[f->player].list.count;
	int *v = xcalloc(types + 1, sizeof *v);
	for (size_t t = 0; t < types; t++)
		v[t] = f->returned[t] > 0 ? f->returned[t] : 0;
	struct strbuf sb = {0};
	put_elements(&sb, c, f->player, v);
	free(v);
	return strbuf_take(&sb);
}

static void put_ending(struct strbuf *sb, const struct campaign *c, const struct reading *rd)
{
	if (rd->conceded_by != NO_INDEX)
		strbuf_printf(sb, "conceded by %s", pnation(c, rd->conceded_by));
	else if (rd->withdrawal_by != NO_INDEX)
		strbuf_printf(sb, "withdrawal by %s", pnation(c, rd->withdrawal_by));
	else
		strbuf_puts(sb, "the loser's army demoralised");
}

static void read_text(struct reading *rd, const struct campaign *c, const json_t *pending,
		      const char *text)
{
	struct order_set set;
	orders_parse(text, c, -1, &set);
	forces_init(rd, c, pending);
	read_set(rd, c, &set, find_province(c, jstr(pending, "province")));
	orders_set_free(&set);
}

char *year_report_summary(const struct campaign *c, const json_t *pending, const char *text)
{
	struct reading rd;
	read_text(&rd, c, pending, text);
	struct strbuf sb = {0};
	strbuf_printf(&sb, "  Winner: %s (", rd.winner != NO_INDEX ? pnation(c, rd.winner) : "nobody");
	put_ending(&sb, c, &rd);
	strbuf_puts(&sb, ")\n");
	for (size_t f = 0; f < rd.count; f++) {
		char role[256];
		strbuf_printf(&sb, "  %s:\n", force_role(c, &rd, f, role, sizeof role));
		for (int k = 0; k < LOSS_KINDS; k++) {
			if (k == LOSS_WITHDRAWN) {
				bool any = false;
				for (size_t t = 0; t < c->players[rd.forces[f].player].list.count; t++)
					any |= rd.forces[f].n[k][t] > 0;
				if (!any)
					continue;
			}
			char *v = cell(c, &rd.forces[f], k);
			strbuf_printf(&sb, "    %-16s %s\n", loss_name[k], v);
			free(v);
		}
		char *r = returned_cell(c, &rd.forces[f]);
		if (r)
			strbuf_printf(&sb, "    %-16s %s\n", "routers returned", r);
		free(r);
		if (rd.forces[f].share > 0)
			strbuf_printf(&sb, "    %-16s %d points\n", "share agreed", rd.forces[f].share);
	}
	reading_free(&rd);
	return strbuf_take(&sb);
}

/* ------------------------------------------------------ side by side */

struct row {
	char *label, *a, *b;
};

/* The width of a mail's line: the comparison never goes past it. */
#define SIDE_BY_SIDE_WIDTH 72

/* `text` after `indent` spaces, cut after commas (else spaces) so that no
 * line passes SIDE_BY_SIDE_WIDTH; the lines after the first indented by
 * `indent` + 2. */
static void put_wrapped(struct strbuf *sb, size_t indent, const char *text)
{
	size_t col = indent, room = SIDE_BY_SIDE_WIDTH;
	strbuf_printf(sb, "%*s", (int)indent, "");
	while (*text) {
		size_t len = strlen(text);
		if (col + len <= room) {
			strbuf_puts(sb, text);
			break;
		}
		/* the last ", " (else " ") that keeps the line inside the width */
		size_t fit = room > col ? room - col : 0, cut = 0;
		for (size_t k = 0; k + 1 < len && k < fit; k++)
			if (text[k] == ',' && text[k + 1] == ' ')
				cut = k + 1;
		for (size_t k = 0; !cut && k < len && k < fit; k++)
			if (text[k] == ' ')
				cut = k;
		if (!cut) { /* one word longer than the line */
			while (cut < len && text[cut] != ' ')
				cut++;
		}
		size_t keep = cut;
		while (keep > 0 && text[keep - 1] == ' ')
			keep--;
		strbuf_printf(sb, "%.*s\n%*s", (int)keep, text, (int)(indent + 2), "");
		col = indent + 2;
		text += cut;
		while (*text == ' ')
			text++;
	}
	strbuf_puts(sb, "\n");
}

/* The rows one under the other when side by side they would pass the
 * width (long nation names, many element kinds): a row where the reports
 * agree on one line, one that differs with each report's reading below. */
static void put_stacked(struct strbuf *sb, const struct row *rows, size_t n, const char *who_a,
			const char *who_b)
{
	size_t wn = strlen(who_a) > strlen(who_b) ? strlen(who_a) : strlen(who_b);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rows[i].a, rows[i].b) == 0) {
			char *line = xasprintf("%s: %s (both reports)", rows[i].label, rows[i].a);
			put_wrapped(sb, 2, line);
			free(line);
			continue;
		}
		strbuf_printf(sb, "* %s:\n", rows[i].label);
		for (int side = 0; side < 2; side++) {
			const char *who = side ? who_b : who_a;
			char *line = xasprintf("%s's report:%*s %s", who, (int)(wn - strlen(who)), "",
					       side ? rows[i].b : rows[i].a);
			put_wrapped(sb, 4, line);
			free(line);
		}
	}
}

char *year_report_side_by_side(const struct campaign *c, const json_t *pending, const char *a,
			       const char *b, char **differ)
{
	struct reading ra, rb;
	read_text(&ra, c, pending, a);
	read_text(&rb, c, pending, b);
	size_t cap = 2 + ra.count * (LOSS_KINDS + 2), n = 0;
	struct row *rows = xcalloc(cap, sizeof *rows);
	struct strbuf s1 = {0}, s2 = {0};
	strbuf_puts(&s1, ra.winner != NO_INDEX ? pnation(c, ra.winner) : "nobody");
	strbuf_puts(&s2, rb.winner != NO_INDEX ? pnation(c, rb.winner) : "nobody");
	rows[n++] = (struct row){xstrdup("winner"), strbuf_take(&s1), strbuf_take(&s2)};
	/* short, for the table's width */
	if (ra.conceded_by == NO_INDEX && ra.withdrawal_by == NO_INDEX)
		strbuf_puts(&s1, "demoralisation");
	else
		put_ending(&s1, c, &ra);
	if (rb.conceded_by == NO_INDEX && rb.withdrawal_by == NO_INDEX)
		strbuf_puts(&s2, "demoralisation");
	else
		put_ending(&s2, c, &rb);
	rows[n++] = (struct row){xstrdup("ended by"), strbuf_take(&s1), strbuf_take(&s2)};
	for (size_t f = 0; f < ra.count && f < rb.count; f++)
		for (int k = 0; k < LOSS_KINDS; k++) {
			char *x = cell(c, &ra.forces[f], k), *y = cell(c, &rb.forces[f], k);
			if (strcmp(x, "none") == 0 && strcmp(y, "none") == 0) {
				free(x);
				free(y);
				continue;
			}
			rows[n++] = (struct row){xasprintf("%s%s %s", pnation(c, ra.forces[f].player),
							   ra.forces[f].contingent ? "'s contingent"
										  : "",
							   loss_name[k]),
						 x, y};
		}
	for (size_t f = 0; f < ra.count && f < rb.count; f++) {
		const char *of = ra.forces[f].contingent ? "'s contingent" : "";
		char *x = returned_cell(c, &ra.forces[f]), *y = returned_cell(c, &rb.forces[f]);
		if (x || y)
			rows[n++] = (struct row){
				xasprintf("%s%s routers returned", pnation(c, ra.forces[f].player), of),
				x ? x : xstrdup("as the rules round"),
				y ? y : xstrdup("as the rules round")};
		int sa = ra.forces[f].share, sb2 = rb.forces[f].share;
		if (sa > 0 || sb2 > 0)
			rows[n++] = (struct row){
				xasprintf("%s%s share agreed", pnation(c, ra.forces[f].player), of),
				sa > 0 ? xasprintf("%d points", sa) : xstrdup("none"),
				sb2 > 0 ? xasprintf("%d points", sb2) : xstrdup("none")};
	}
	const char *who_a = pnation(c, find_player(c, jstr(pending, "attacker")));
	const char *who_b = pnation(c, find_player(c, jstr(pending, "defender")));
	size_t wl = 0, wa = strlen(who_a) + 9; /* "'s report" */
	for (size_t i = 0; i < n; i++) {
		if (strlen(rows[i].label) > wl)
			wl = strlen(rows[i].label);
		if (strlen(rows[i].a) > wa)
			wa = strlen(rows[i].a);
	}
	if (wa > 40)
		wa = 40;
	if (differ) {
		struct strbuf d = {0};
		for (size_t i = 0; i < n; i++)
			if (strcmp(rows[i].a, rows[i].b) != 0)
				strbuf_printf(&d, "%s%s", d.len ? ", " : "", rows[i].label);
		*differ = d.len ? strbuf_take(&d) : xstrdup("the wording only");
		if (!d.len)
			strbuf_free(&d);
	}
	char head[160];
	snprintf(head, sizeof head, "%s's report", who_a);
	/* the table fits in SIDE_BY_SIDE_WIDTH or the rows are stacked */
	size_t wb = strlen(who_b) + 9, wide_a = wa;
	for (size_t i = 0; i < n; i++) {
		if (strlen(rows[i].b) > wb)
			wb = strlen(rows[i].b);
		if (strlen(rows[i].a) > wide_a)
			wide_a = strlen(rows[i].a);
	}
	bool table = 2 + wl + 3 + wide_a + 3 + wb <= SIDE_BY_SIDE_WIDTH;
	struct strbuf sb = {0};
	if (!table)
		put_stacked(&sb, rows, n, who_a, who_b);
	else
		strbuf_printf(&sb, "  %-*s | %-*s | %s's report\n", (int)wl, "", (int)wa, head,
			      who_b);
	for (size_t i = 0; i < n; i++) {
		bool same = strcmp(rows[i].a, rows[i].b) == 0;
		if (table)
			strbuf_printf(&sb, "%s %-*s | %-*s | %s\n", same ? " " : "*", (int)wl,
				      rows[i].label, (int)wa, rows[i].a, rows[i].b);
		free(rows[i].label);
		free(rows[i].a);
		free(rows[i].b);
	}
	free(rows);
	reading_free(&ra);
	reading_free(&rb);
	return strbuf_take(&sb);
}
