/* 3.1: a player's recruitment orders carried out, in the order the rules
 * apply them: every DISMISS, then every EXCHANGE, then every RECRUIT (and a
 * RETRIEVE GENERAL, recruited like other troops). The recruitment phase
 * carries them out with it; the acknowledgement plays the same function on
 * a copy of the campaign to say what the army will have. */
#include "config.h"

#include "dbm/rules_p.h"
#include "dbm/orders.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a + b kept within +-1,000,000: a set never validated sums no further (the
 * rules then refuse it, since no army or reserve holds that many) */
static int add_capped(int a, int b)
{
	long long v = (long long)a + b;
	return v > 1000000 ? 1000000 : v < -1000000 ? -1000000 : (int)v;
}

static bool in_list(int type, size_t types)
{
	return type >= 0 && (size_t)type < types;
}

const char *rules_recruit_step_keyword(enum rules_recruit_step step)
{
	switch (step) {
	case RECRUIT_STEP_DISMISS:
		return "DISMISS";
	case RECRUIT_STEP_EXCHANGE:
		return "EXCHANGE";
	case RECRUIT_STEP_RECRUIT:
	case RECRUIT_STEP_COUNT:
		break;
	}
	return "RECRUIT";
}

static void refused(struct rules_recruit_outcome *out, enum rules_recruit_step step,
		    const struct rules_reason *why)
{
	out->step[step].refused = true;
	out->step[step].why = *why;
}

void rules_recruit_orders(struct campaign *c, int player, const struct order_set *set,
			  struct event_log *log, struct rules_recruit_outcome *out)
{
	memset(out, 0, sizeof *out);
	if (!rules_valid_player(c, player) || !set)
		return;
	const struct player *pl = &c->players[player];
	size_t types = pl->list.count;
	if (!types || !pl->field.count || !pl->reserve.count)
		return;
	int *dismiss = xcalloc(types, sizeof *dismiss);
	int *take = xcalloc(types, sizeof *take);
	int *reserve = xcalloc(types, sizeof *reserve);
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !in_list(o->type, types))
			continue;
		if (o->kind == ORDER_DISMISS) {
			dismiss[o->type] = add_capped(dismiss[o->type], o->count);
			out->step[RECRUIT_STEP_DISMISS].ordered = true;
		} else if (o->kind == ORDER_RECRUIT) {
			take[o->type] = add_capped(take[o->type], o->count);
			out->step[RECRUIT_STEP_RECRUIT].ordered = true;
		} else if (o->kind == ORDER_RETRIEVE_GENERAL) {
			take[o->type] = add_capped(take[o->type], 1);
			out->step[RECRUIT_STEP_RECRUIT].ordered = true;
		}
	}
	struct rules_reason why = {{0}};
	if (out->step[RECRUIT_STEP_DISMISS].ordered &&
	    rules_dismiss(c, player, dismiss, log, &why) != RULES_OK)
		refused(out, RECRUIT_STEP_DISMISS, &why);
	/* "Changing your army": the reserve, dismissed troops included,
	 * changed for other troops of the list; then the recruits */
	memcpy(reserve, pl->reserve.count, types * sizeof *reserve);
	bool negative = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_EXCHANGE || o->item_count < 1 ||
		    !in_list(o->type, types) || !in_list(o->items[0].type, types))
			continue;
		reserve[o->type] = add_capped(reserve[o->type], -o->count);
		reserve[o->items[0].type] = add_capped(reserve[o->items[0].type], o->items[0].count);
		out->step[RECRUIT_STEP_EXCHANGE].ordered = true;
	}
	for (size_t i = 0; i < types; i++)
		negative |= reserve[i] < 0;
	if (out->step[RECRUIT_STEP_EXCHANGE].ordered) {
		if (negative) {
			snprintf(why.text, sizeof why.text,
				 "the reserve does not hold the troops to exchange");
			refused(out, RECRUIT_STEP_EXCHANGE, &why);
		} else if (rules_change_reserve(c, player, reserve, log, &why) != RULES_OK) {
			refused(out, RECRUIT_STEP_EXCHANGE, &why);
		}
	}
	if (out->step[RECRUIT_STEP_RECRUIT].ordered) {
		if (rules_recruit(c, player, take, log, &why) != RULES_OK)
			refused(out, RECRUIT_STEP_RECRUIT, &why);
		else
			out->recruited_half_ap = rules_counts_half_ap(&pl->list, take);
	}
	free(dismiss);
	free(take);
	free(reserve);
}
