/* Setting up (rulebook 1.3): the national army list derived for the
 * campaign, and the field army and start a player chooses by mail before
 * play. Our reading of "up to four generals" is in doc/rules.md. */
#include "config.h"

#include "dbm/rules.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* n * num / den rounded up, or down; all non-negative. */
static int scale_up(int n, int num, int den)
{
	long long v = (long long)n * num;
	return (int)((v + den - 1) / den);
}

static int scale_down(int n, int num, int den)
{
	return (int)((long long)n * num / den);
}

int rules_derive_army_list(struct army_list *list, const char *file, int list_line,
			   struct list_derivation *out, struct diag_list *problems)
{
	char buf[16], buf2[16];
	size_t before = problems->errors;
	struct list_derivation d = {0};
	long long generals_half = 0, troops_half = 0, min_half = 0;
	int gen_max = 0, gen_min = 0, last_general_line = 0;
	for (size_t i = 0; i < list->count; i++) {
		const struct element_type *t = &list->types[i];
		long long at_max = (long long)t->list_max * t->cost_half_ap;
		if (t->general) {
			generals_half += at_max;
			gen_max += t->list_max;
			gen_min += t->list_min;
			last_general_line = t->line;
		} else {
			troops_half += at_max;
		}
	}
	if (generals_half + troops_half > 1000000000LL) {
		diag_add(problems, DIAG_ERROR, file, list_line,
			 "the list is too large to be a DBM army list");
		*out = d;
		return (int)(problems->errors - before);
	}
	d.general_half_ap = (int)generals_half;
	d.before_half_ap = (int)(generals_half + troops_half);
	d.max_generals = gen_max;
	d.factor_num = d.factor_den = 1;

	if (gen_max == 0)
		diag_add(problems, DIAG_ERROR, file, list_line, "the list has no general: mark the "
			 "C-in-C's element line with \"| general\"");
	if (gen_min > MAX_GENERALS)
		diag_add(problems, DIAG_ERROR, file, last_general_line, "the general lines require "
			 "at least %d generals; DBM allows at most %d", gen_min, MAX_GENERALS);
	else if (gen_max > MAX_GENERALS)
		diag_add(problems, DIAG_ERROR, file, last_general_line, "the general lines allow %d "
			 "generals; DBM allows at most %d (lower their maximums)", gen_max,
			 MAX_GENERALS);

	if (d.before_half_ap < RULES_LIST_TARGET_HALF_AP) {
		long long need = RULES_LIST_TARGET_HALF_AP - generals_half;
		if (troops_half == 0) {
			diag_add(problems, DIAG_ERROR, file, list_line, "the list totals %s AP and has no "
				 "troops besides its generals to increase to 480 AP",
				 half_ap_format(d.before_half_ap, buf));
		} else {
			d.increased = true;
			d.factor_num = (int)need;
			d.factor_den = (int)troops_half;
			for (size_t i = 0; i < list->count; i++) {
				struct element_type *t = &list->types[i];
				if (t->general)
					continue;
				int min = scale_down(t->list_min, d.factor_num, d.factor_den);
				if (t->list_min > 0 && min == 0)
					min = 1; /* never reduced to zero */
				t->list_max = scale_up(t->list_max, d.factor_num, d.factor_den);
				t->list_min = min;
			}
		}
	}
	long long after = 0;
	for (size_t i = 0; i < list->count; i++) {
		const struct element_type *t = &list->types[i];
		after += (long long)t->list_max * t->cost_half_ap;
		min_half += (long long)t->list_min * t->cost_half_ap;
	}
	d.after_half_ap = (int)after;
	if (d.increased && after > RULES_LIST_CEILING_HALF_AP)
		diag_add(problems, DIAG_ERROR, file, list_line, "increased and rounded up, the "
			 "list totals %s AP, above the 600 AP the rules allow (split the costliest lines or "
			 "lower their maximums)", half_ap_format(d.after_half_ap, buf));
	if (min_half > FIELD_ARMY_HALF_AP)
		diag_add(problems, DIAG_ERROR, file, list_line, "the list's minimums cost %s AP: "
			 "no field army of 480 AP can hold them all (%s AP over)", half_ap_format((int)min_half, buf),
			 half_ap_format((int)(min_half - FIELD_ARMY_HALF_AP), buf2));
	*out = d;
	return (int)(problems->errors - before);
}

/* ------------------------------------------------ the field army by mail */

int rules_setup_cinc_line(const struct army_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		if (l->types[i].general)
			return (int)i;
	return -1;
}

static long long army_half_ap(const struct army_list *l, const int *counts)
{
	long long total = 0;
	for (size_t i = 0; i < l->count; i++)
		total += (long long)counts[i] * l->types[i].cost_half_ap;
	return total;
}

static void why_text(struct rules_reason *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why_text(struct rules_reason *why, const char *fmt, ...)
{
	if (!why)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why->text, sizeof why->text, fmt, ap);
	va_end(ap);
}

enum rules_status rules_setup_army_check(const struct player *p, const int *counts,
					 struct rules_reason *why)
{
	char a[16], b[16];
	const struct army_list *l = &p->list;
	int generals = 0;
	for (size_t i = 0; i < l->count; i++) {
		const struct element_type *t = &l->types[i];
		if (counts[i] > t->list_max) {
			why_text(why, "%d %s is above the list maximum of %d", counts[i], t->label,
				 t->list_max);
			return RULES_REFUSED;
		}
		if (t->general)
			generals += counts[i];
	}
	if (generals > MAX_GENERALS) {
		why_text(why, "%d generals: DBM allows at most %d", generals, MAX_GENERALS);
		return RULES_REFUSED;
	}
	long long total = army_half_ap(l, counts);
	if (total > FIELD_ARMY_HALF_AP) {
		why_text(why, "the army costs %s AP, %s AP over the 480 AP of a field army",
			 half_ap_format((int)total, a),
			 half_ap_format((int)(total - FIELD_ARMY_HALF_AP), b));
		return RULES_REFUSED;
	}
	return RULES_OK;
}

static size_t add_line(char **lines, size_t max, size_t n, char *text)
{
	if (n < max)
		lines[n] = text;
	else
		free(text);
	return n + 1;
}

static char *home_list(const struct campaign *c, int player)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].home_of == player)
			strbuf_printf(&sb, "%s%s", sb.len ? ", " : "", c->provinces[i].name);
	return strbuf_take(&sb);
}

size_t rules_setup_missing(const struct campaign *c, int player, const int *counts, int start,
			   char **lines, size_t max)
{
	char a[16];
	const struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	size_t n = 0;
	if (!counts) {
		n = add_line(lines, max, n, xstrdup("your field army: an ARMY line listing its "
						      "elements, 480 AP in all"));
	} else {
		int cinc = rules_setup_cinc_line(l);
		if (cinc >= 0 && counts[cinc] == 0)
			n = add_line(lines, max, n, xasprintf("your C-in-C: 1 %s",
							      l->types[cinc].label));
		for (size_t i = 0; i < l->count; i++) {
			const struct element_type *t = &l->types[i];
			if ((int)i != cinc && counts[i] < t->list_min)
				n = add_line(lines, max, n,
					     xasprintf("%d more %s (the list minimum is %d)",
						       t->list_min - counts[i], t->label,
						       t->list_min));
		}
		long long left = FIELD_ARMY_HALF_AP - army_half_ap(l, counts);
		bool can_spend = false;
		for (size_t i = 0; i < l->count && left > 0; i++)
			if (counts[i] < l->types[i].list_max && l->types[i].cost_half_ap <= left)
				can_spend = true;
		if (can_spend)
			n = add_line(lines, max, n, xasprintf("%s AP still to spend (a field army "
							      "costs 480 AP)",
							      half_ap_format((int)left, a)));
	}
	if (start == NO_INDEX) {
		char *homes = home_list(c, player);
		n = add_line(lines, max, n, xasprintf("where your army starts: START IN one of %s",
						      homes));
		free(homes);
	}
	return n;
}

void rules_setup_default(const struct campaign *c, int player, int *counts, int *start)
{
	const struct army_list *l = &c->players[player].list;
	int cinc = rules_setup_cinc_line(l);
	for (size_t i = 0; i < l->count; i++)
		counts[i] = l->types[i].list_min;
	if (cinc >= 0 && counts[cinc] == 0 && l->types[cinc].list_max > 0)
		counts[cinc] = 1;
	long long total = army_half_ap(l, counts);
	for (size_t i = 0; i < l->count; i++) {
		const struct element_type *t = &l->types[i];
		if (t->general)
			continue;
		while (counts[i] < t->list_max && total + t->cost_half_ap <= FIELD_ARMY_HALF_AP) {
			counts[i]++;
			total += t->cost_half_ap;
		}
	}
	*start = NO_INDEX;
	for (size_t i = 0; i < c->province_count && *start == NO_INDEX; i++)
		if (c->provinces[i].home_of == player)
			*start = (int)i;
}
