/* 1.3 Losing troops: generic losses. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

enum loss_filter { TAKE_MOUNTED, TAKE_ANY };

static bool is_mounted(const struct element_type *t)
{
	return dbm_type_class(t->code) == TROOP_MOUNTED;
}

/* The next element to lose among the types the filter allows.
 * Non-generals: one from the type holding the most AP among those whose
 * element still fits in what is due (the loss spreads over the arms and
 * wastes little); when none fits, the cheapest element. Generals: the
 * cheapest, the later in the list on a tie, so the C-in-C (listed first,
 * usually the costliest) stays. Equal holdings: the earlier type. -1 if
 * none is left. */
static int next_loss(const struct army_list *l, const int *left, enum loss_filter f,
		     bool generals, int remaining)
{
	int fitting = -1, cheapest = -1;
	for (size_t i = 0; i < l->count; i++) {
		const struct element_type *t = &l->types[i];
		if (left[i] <= 0 || t->general != generals || t->cost_half_ap <= 0)
			continue;
		if (f == TAKE_MOUNTED && !is_mounted(t))
			continue;
		if (t->cost_half_ap <= remaining &&
		    (fitting < 0 || left[i] * t->cost_half_ap >
					    left[fitting] * l->types[fitting].cost_half_ap))
			fitting = (int)i;
		if (cheapest < 0 || t->cost_half_ap < l->types[cheapest].cost_half_ap ||
		    (generals && t->cost_half_ap == l->types[cheapest].cost_half_ap))
			cheapest = (int)i;
	}
	if (generals || fitting < 0)
		return cheapest;
	return fitting;
}

static bool allowed(const struct element_type *t, enum loss_filter f)
{
	return !t->general && t->cost_half_ap > 0 && (f == TAKE_ANY || is_mounted(t));
}

/* The last part of a loss: the elements worth `due` or just above it (the
 * least waste), the fewest elements on a tie, the types holding most AP
 * preferred after that. A small 0/1 knapsack over the elements that could
 * take part. Adds them to out[]; returns their value (less than `due` only
 * if the force has not enough). */
static int take_exact(const struct army_list *l, int *left, int *out, enum loss_filter f,
		      int due)
{
	size_t types = l->count;
	int maxc = 0;
	for (size_t i = 0; i < types; i++)
		if (left[i] > 0 && allowed(&l->types[i], f) && l->types[i].cost_half_ap > maxc)
			maxc = l->types[i].cost_half_ap;
	if (maxc == 0 || due <= 0)
		return 0;
	/* Items: copies of each type, types holding most AP first so that on a
	 * tie the DP keeps them (later items are used only if strictly better). */
	size_t *order = xmalloc((types ? types : 1) * sizeof *order);
	size_t n_order = 0;
	for (size_t i = 0; i < types; i++)
		if (left[i] > 0 && allowed(&l->types[i], f))
			order[n_order++] = i;
	for (size_t a = 1; a < n_order; a++)
		for (size_t b = a; b > 0; b--) {
			size_t x = order[b - 1], y = order[b];
			if (left[y] * l->types[y].cost_half_ap > left[x] * l->types[x].cost_half_ap) {
				order[b - 1] = y;
				order[b] = x;
			}
		}
	size_t items = 0;
	for (size_t k = 0; k < n_order; k++) {
		int copies = due / l->types[order[k]].cost_half_ap + 1;
		items += (size_t)(copies < left[order[k]] ? copies : left[order[k]]);
	}
	int *item_type = xmalloc((items ? items : 1) * sizeof *item_type);
	size_t at = 0;
	for (size_t k = 0; k < n_order; k++) {
		int copies = due / l->types[order[k]].cost_half_ap + 1;
		if (copies > left[order[k]])
			copies = left[order[k]];
		for (int j = 0; j < copies; j++)
			item_type[at++] = (int)order[k];
	}
	size_t span = (size_t)due + (size_t)maxc; /* sums 0 .. due + maxc - 1 */
	int *cnt = xmalloc((items + 1) * span * sizeof *cnt);
	bool *take = xcalloc((items + 1) * span, sizeof *take);
	for (size_t s = 0; s < span; s++)
		cnt[s] = s == 0 ? 0 : -1;
	for (size_t j = 1; j <= items; j++) {
		int c = l->types[item_type[j - 1]].cost_half_ap;
		for (size_t s = 0; s < span; s++) {
			int best = cnt[(j - 1) * span + s];
			if (s >= (size_t)c && cnt[(j - 1) * span + s - (size_t)c] >= 0) {
				int with = cnt[(j - 1) * span + s - (size_t)c] + 1;
				if (best < 0 || with < best) {
					best = with;
					take[j * span + s] = true;
				}
			}
			cnt[j * span + s] = best;
		}
	}
	int got = 0;
	size_t s = (size_t)due;
	while (s < span && cnt[items * span + s] < 0)
		s++;
	if (s < span) {
		got = (int)s;
		for (size_t j = items; j > 0; j--)
			if (take[j * span + s]) {
				int t = item_type[j - 1];
				out[t]++;
				left[t]--;
				s -= (size_t)l->types[t].cost_half_ap;
			}
	} else {
		/* Not enough: all of them. */
		for (size_t k = 0; k < n_order; k++) {
			size_t t = order[k];
			got += left[t] * l->types[t].cost_half_ap;
			out[t] += left[t];
			left[t] = 0;
		}
	}
	free(order);
	free(item_type);
	free(cnt);
	free(take);
	return got;
}

/* Takes elements into out[] until `target` half AP of the filtered kind are
 * taken (counting what `taken` already holds). Non-generals: spread from
 * the largest holdings while far from the target, then the exact finish.
 * Generals only while more than one would be left. */
static int take_until(const struct army_list *l, int *left, int *out, enum loss_filter f,
		      bool generals, int *generals_left, int target, int taken)
{
	while (taken < target) {
		if (generals && *generals_left <= 1)
			break;
		if (!generals) {
			int maxc = 0;
			for (size_t i = 0; i < l->count; i++)
				if (left[i] > 0 && allowed(&l->types[i], f) &&
				    l->types[i].cost_half_ap > maxc)
					maxc = l->types[i].cost_half_ap;
			if (maxc == 0)
				break;
			if (target - taken <= 3 * maxc) {
				taken += take_exact(l, left, out, f, target - taken);
				break;
			}
		}
		int i = next_loss(l, left, f, generals, target - taken);
		if (i < 0)
			break;
		left[i]--;
		out[i]++;
		taken += l->types[i].cost_half_ap;
		if (generals)
			(*generals_left)--;
	}
	return taken;
}

/* A force that cannot pay: everything but one general goes. Returns the
 * half AP of the whole pick. */
static int take_all_but_one_general(const struct army_list *l, const struct troops *t,
				    int *left, int *out)
{
	bool kept = false;
	for (size_t i = 0; i < l->count; i++) {
		int keep = 0;
		if (l->types[i].general && left[i] > 0 && !kept && troops_generals(l, t) > 0) {
			keep = 1;
			kept = true;
		}
		out[i] += left[i] - keep;
		left[i] = keep;
	}
	return rules_counts_half_ap(l, out);
}

int rules_default_loss_pick(const struct campaign *c, int player, int contingent,
			    int due_half_ap, int mounted_first_half_ap, int *out)
{
	const struct troops *t = rules_force_troops_const(c, player, contingent);
	if (!t)
		return 0;
	const struct army_list *l = &c->players[player].list;
	int *left = xmalloc((l->count ? l->count : 1) * sizeof *left);
	memcpy(left, t->count, l->count * sizeof *left);
	memset(out, 0, l->count * sizeof *out);
	int generals_left = troops_generals(l, t);
	int mounted_due = mounted_first_half_ap < due_half_ap ? mounted_first_half_ap : due_half_ap;

	/* The mounted share first (sea storms), generals last. */
	int mounted = take_until(l, left, out, TAKE_MOUNTED, false, &generals_left, mounted_due, 0);
	mounted = take_until(l, left, out, TAKE_MOUNTED, true, &generals_left, mounted_due,
			     mounted);
	(void)mounted;
	int taken = rules_counts_half_ap(l, out);
	taken = take_until(l, left, out, TAKE_ANY, false, &generals_left, due_half_ap, taken);
	taken = take_until(l, left, out, TAKE_ANY, true, &generals_left, due_half_ap, taken);
	if (taken < due_half_ap)
		taken = take_all_but_one_general(l, t, left, out);
	free(left);
	return taken;
}

/* Whole elements of type i while `taken` is below `target` (generals only
 * while another one stays). */
static int take_line(const struct army_list *l, int *left, int *out, size_t i,
		     int *generals_left, int target, int taken)
{
	const struct element_type *e = &l->types[i];
	while (taken < target && left[i] > 0 && e->cost_half_ap > 0 &&
	       (!e->general || *generals_left > 1)) {
		left[i]--;
		out[i]++;
		taken += e->cost_half_ap;
		if (e->general)
			(*generals_left)--;
	}
	return taken;
}

int rules_loss_pick_from_preference(const struct campaign *c, int player, int contingent,
				    int due_half_ap, int mounted_first_half_ap,
				    const int *prefer, size_t prefer_count, int *out)
{
	const struct troops *t = rules_force_troops_const(c, player, contingent);
	if (!t)
		return 0;
	const struct army_list *l = &c->players[player].list;
	int *left = xmalloc((l->count ? l->count : 1) * sizeof *left);
	bool *listed = xcalloc(l->count + 1, sizeof *listed);
	memcpy(left, t->count, l->count * sizeof *left);
	memset(out, 0, l->count * sizeof *out);
	int generals_left = troops_generals(l, t);
	int mounted_due = mounted_first_half_ap < due_half_ap ? mounted_first_half_ap : due_half_ap;

	/* The mounted share: listed mounted lines in order, then by default. */
	int mounted = 0;
	for (size_t k = 0; k < prefer_count; k++) {
		int i = prefer ? prefer[k] : -1;
		if (i < 0 || (size_t)i >= l->count || !is_mounted(&l->types[i]))
			continue;
		mounted = take_line(l, left, out, (size_t)i, &generals_left, mounted_due, mounted);
	}
	mounted = take_until(l, left, out, TAKE_MOUNTED, false, &generals_left, mounted_due,
			     mounted);
	take_until(l, left, out, TAKE_MOUNTED, true, &generals_left, mounted_due, mounted);
	/* Then the listed lines in order, each used up before the next. */
	int taken = rules_counts_half_ap(l, out);
	for (size_t k = 0; k < prefer_count; k++) {
		int i = prefer ? prefer[k] : -1;
		if (i < 0 || (size_t)i >= l->count || listed[i])
			continue;
		listed[i] = true;
		taken = take_line(l, left, out, (size_t)i, &generals_left, due_half_ap, taken);
	}
	/* Whatever is still due: the default pick from what is left. */
	taken = take_until(l, left, out, TAKE_ANY, false, &generals_left, due_half_ap, taken);
	taken = take_until(l, left, out, TAKE_ANY, true, &generals_left, due_half_ap, taken);
	if (taken < due_half_ap)
		taken = take_all_but_one_general(l, t, left, out);
	free(listed);
	free(left);
	return taken;
}

/* Mounted AP the force can lose while keeping one general. */
static int removable_mounted_half_ap(const struct army_list *l, const struct troops *t)
{
	int mounted = 0, cheapest_mounted_general = -1;
	bool foot_general = false;
	for (size_t i = 0; i < l->count; i++) {
		const struct element_type *e = &l->types[i];
		if (is_mounted(e))
			mounted += t->count[i] * e->cost_half_ap;
		if (e->general && t->count[i] > 0) {
			if (!is_mounted(e))
				foot_general = true;
			else if (cheapest_mounted_general < 0 ||
				 e->cost_half_ap < cheapest_mounted_general)
				cheapest_mounted_general = e->cost_half_ap;
		}
	}
	if (!foot_general && cheapest_mounted_general >= 0)
		mounted -= cheapest_mounted_general;
	return mounted;
}

enum rules_status rules_loss_pick_check(const struct campaign *c, int player, int contingent,
					int due_half_ap, int mounted_first_half_ap,
					const int *pick, struct rules_reason *why)
{
	const struct troops *t = rules_force_troops_const(c, player, contingent);
	if (!t)
		return rules_refuse(why, "there is no such force to take losses from");
	if (!pick)
		return rules_refuse(why, "no loss pick given");
	const struct army_list *l = &c->players[player].list;
	int generals_before = troops_generals(l, t), generals_lost = 0;
	int lost = 0, mounted_lost = 0, elements_left = 0;
	for (size_t i = 0; i < l->count; i++) {
		if (pick[i] < 0 || pick[i] > t->count[i])
			return rules_refuse(why, "the pick loses %d \"%s\" but the force has %d",
					    pick[i], l->types[i].label, t->count[i]);
		lost += pick[i] * l->types[i].cost_half_ap;
		if (is_mounted(&l->types[i]))
			mounted_lost += pick[i] * l->types[i].cost_half_ap;
		if (l->types[i].general)
			generals_lost += pick[i];
		elements_left += t->count[i] - pick[i];
	}
	if (generals_before > 0 && generals_before - generals_lost < 1)
		return rules_refuse(why, "at least one general must be kept");
	bool all_but_one_general = elements_left <= (generals_before > 0 ? 1 : 0);
	char a[16], b[16];
	if (lost < due_half_ap && !all_but_one_general)
		return rules_refuse(why, "the pick is worth %s AP but %s AP are due",
				    half_ap_format(lost, a), half_ap_format(due_half_ap, b));
	int mounted_due = mounted_first_half_ap < due_half_ap ? mounted_first_half_ap : due_half_ap;
	int mounted_max = removable_mounted_half_ap(l, t);
	if (mounted_due > mounted_max)
		mounted_due = mounted_max;
	if (mounted_lost < mounted_due)
		return rules_refuse(why, "the first %s AP lost must be mounted troops, the pick has %s AP",
				    half_ap_format(mounted_due, a), half_ap_format(mounted_lost, b));
	return RULES_OK;
}

int rules_generic_loss(struct campaign *c, int player, int contingent, int due_half_ap,
		       int mounted_first_half_ap, const int *pick, const char *rule,
		       const char *cause, struct event_log *log)
{
	struct troops *t = rules_force_troops(c, player, contingent);
	if (!t || due_half_ap <= 0)
		return 0;
	struct player *p = &c->players[player];
	const struct army_list *l = &p->list;
	int *chosen = xcalloc(l->count ? l->count : 1, sizeof *chosen);
	const char *chosen_by = "default";
	struct rules_reason why;
	int *preferred = NULL;
	const char *picked_by = "player";
	if (!pick && p->loss_first_count > 0) {
		preferred = xcalloc(l->count ? l->count : 1, sizeof *preferred);
		rules_loss_pick_from_preference(c, player, contingent, due_half_ap,
						mounted_first_half_ap, p->loss_first,
						p->loss_first_count, preferred);
		pick = preferred;
		picked_by = "preference";
	}
	if (pick) {
		if (rules_loss_pick_check(c, player, contingent, due_half_ap,
					  mounted_first_half_ap, pick, &why) == RULES_OK) {
			memcpy(chosen, pick, l->count * sizeof *chosen);
			chosen_by = picked_by;
		} else {
			event_emit(log, "loss_pick_refused", rule, "{s:s, s:s, s:s}", "player",
				   rules_player_key(c, player), "cause", cause ? cause : "",
				   "reason", why.text);
		}
	}
	if (strcmp(chosen_by, "default") == 0)
		rules_default_loss_pick(c, player, contingent, due_half_ap,
					mounted_first_half_ap, chosen);
	int lost = 0, mounted = 0;
	for (size_t i = 0; i < l->count; i++) {
		t->count[i] -= chosen[i];
		p->reserve.count[i] += chosen[i];
		lost += chosen[i] * l->types[i].cost_half_ap;
		if (is_mounted(&l->types[i]))
			mounted += chosen[i] * l->types[i].cost_half_ap;
	}
	json_t *ev = event_emit(log, "loss", rule,
				"{s:s, s:b, s:s, s:i, s:i, s:i, s:o, s:b, s:s}", "player",
				rules_player_key(c, player), "contingent", contingent != NO_INDEX,
				"cause", cause ? cause : "", "due_half_ap", due_half_ap,
				"lost_half_ap", lost, "mounted_half_ap", mounted, "elements",
				rules_counts_json(l, chosen), "paid_in_full", lost >= due_half_ap,
				"chosen_by", chosen_by);
	/* A contingent's loss names the field army it serves with (1.3:
	 * the diary says whose troops were lost). */
	if (ev && contingent != NO_INDEX)
		json_object_set_new(ev, "with", json_string(rules_player_key(
						      c, c->contingents[contingent].with_player)));
	free(chosen);
	free(preferred);
	return lost;
}
