/* Setting up (rulebook 1.3): the national army list derived for the
 * campaign. Our reading of "up to four generals" is in doc/rules.md. */
#include "config.h"

#include "dbm/rules.h"
#include "base/util.h"

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
