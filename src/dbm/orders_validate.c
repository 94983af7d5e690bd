/* orders_validate: the orders of a mail checked against the campaign and
 * the rules' static limits. */
#include "config.h"

#include "dbm/orders_p.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>

/* ----------------------------------------------------------- validate */

static void reject(struct order *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void reject(struct order *o, const char *fmt, ...)
{
	if (o->status == ORDER_ERROR)
		return;
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	o->status = ORDER_ERROR;
	o->error = strbuf_take(&sb);
}

static bool kind_is_battle(enum order_kind k)
{
	return k >= ORDER_BATTLE_AT && k <= ORDER_BATTLE_GENERAL_KILLED;
}

static bool kind_is_organiser(enum order_kind k)
{
	return k >= ORDER_ORG_EXTEND && k <= ORDER_ORG_COMMENT;
}

static bool kind_needs_player(enum order_kind k)
{
	return order_kind_is_kept(k) || k == ORDER_PASSWORD;
}

int orders_cinc_type(const struct player *p)
{
	for (size_t i = 0; i < p->list.count; i++)
		if (p->list.types[i].general && p->field.count && p->field.count[i] > 0)
			return (int)i;
	return -1;
}

static bool is_overlord_or_tributary(const struct campaign *c, int player, int other)
{
	return c->players[player].overlord == other || c->players[other].overlord == player;
}

static void validate_route(struct order *o, const struct campaign *c, int player, int max_stages,
			   const char *who)
{
	if (!o->route && o->status == ORDER_OK) {
		int saved = o->province;
		o->province = orders_route_dest_of(c, o);
		char *err = o->province >= 0 ? orders_route_plan(c, player, orders_move_start(c, player), o)
					     : xstrdup("the ally's field army has no location");
		o->province = saved;
		if (err) {
			reject(o, "%s", err);
			free(err);
			return;
		}
	}
	if (o->stages > max_stages) {
		if (max_stages == ORDERS_MAX_STAGES)
			reject(o, "%d stages: the maximum move, forced march included, is %d",
			       o->stages, ORDERS_MAX_STAGES);
		else
			reject(o, "%d stages: %s cannot forced march beyond %d stages", o->stages,
			       who, max_stages);
	}
}

static void validate_contingent(struct order *o, const struct campaign *c, int player,
				int *committed)
{
	const struct player *pl = &c->players[player];
	size_t n = pl->list.count;
	int half_ap = 0, generals = 0;
	int cinc = orders_cinc_type(pl);
	char buf[16];
	if (o->target == player) {
		reject(o, "a contingent goes to another player, not to yourself");
		return;
	}
	if (o->target >= 0 && c->players[o->target].status != PLAYER_ACTIVE) {
		reject(o, "%s is no longer in the campaign", orders_player_key(c, o->target));
		return;
	}
	int *wanted = xcalloc(n + 1, sizeof *wanted);
	for (size_t i = 0; i < o->item_count; i++) {
		const struct element_type *t = &pl->list.types[o->items[i].type];
		half_ap += o->items[i].count * t->cost_half_ap;
		if (t->general)
			generals += o->items[i].count;
		wanted[o->items[i].type] += o->items[i].count;
	}
	for (size_t i = 0; i < n && o->status == ORDER_OK; i++) {
		int available = pl->field.count ? pl->field.count[i] : 0;
		if ((int)i == cinc)
			available--; /* the C-in-C stays with the field army */
		if (committed)
			available -= committed[i]; /* sent by an earlier line of the mail */
		if (wanted[i] <= available)
			continue;
		if ((int)i == cinc && wanted[i] == available + 1)
			reject(o, "your C-in-C (%s) must stay with the field army",
			       pl->list.types[i].label);
		else
			reject(o, "only %d %s in your field army to send", available < 0 ? 0 : available,
			       pl->list.types[i].label);
	}
	if (o->status == ORDER_OK && half_ap > ORDERS_CONTINGENT_MAX_HALF_AP)
		reject(o, "a contingent is at most 80 AP; this one is %s AP",
		       half_ap_format(half_ap, buf));
	else if (o->status == ORDER_OK && generals == 0)
		reject(o, "a contingent must include a general (as its ally-general)");
	if (o->status == ORDER_OK && committed)
		for (size_t i = 0; i < n; i++)
			committed[i] += wanted[i];
	free(wanted);
}

static void validate_recruitment(struct order_set *set, const struct campaign *c, int player)
{
	const struct player *pl = &c->players[player];
	size_t n = pl->list.count;
	int *recruit = xcalloc(n + 1, sizeof *recruit);
	int *dismiss = xcalloc(n + 1, sizeof *dismiss);
	int *retrieve = xcalloc(n + 1, sizeof *retrieve);
	int allowance = ORDERS_RECRUIT_HALF_AP_PER_PROVINCE * player_province_count(c, player);
	int spent = 0, field_half_ap = player_field_half_ap(pl);
	char b1[16], b2[16];
	if (!pl->field.count || !pl->reserve.count)
		goto done;
	/* troops the same mail puts into the reserve before the recruits
	 * (DISMISS, then EXCHANGE, then RECRUIT) may be recruited */
	int *incoming = xcalloc(n + 1, sizeof *incoming);
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->type < 0 || (size_t)o->type >= n)
			continue;
		if (o->kind == ORDER_DISMISS)
			incoming[o->type] += o->count;
		else if (o->kind == ORDER_EXCHANGE && o->item_count > 0 && o->items[0].type >= 0 &&
			 (size_t)o->items[0].type < n) {
			incoming[o->type] -= o->count;
			incoming[o->items[0].type] += o->items[0].count;
		}
	}

	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !orders_kind_is_recruitment(o->kind) || o->type < 0)
			continue;
		const struct element_type *t = &pl->list.types[o->type];
		int field = pl->field.count[o->type], reserve = pl->reserve.count[o->type];
		int reserve_then = reserve + incoming[o->type];
		if (o->kind == ORDER_RECRUIT) {
			if (recruit[o->type] + retrieve[o->type] + o->count > reserve_then) {
				reject(o, "only %d %s in your reserve", reserve_then - recruit[o->type] -
				       retrieve[o->type], t->label);
				continue;
			}
			if (field + recruit[o->type] + o->count - dismiss[o->type] > t->list_max) {
				reject(o, "your army list allows at most %d %s (you have %d)",
				       t->list_max, t->label, field);
				continue;
			}
			int cost = o->count * t->cost_half_ap;
			if (spent + cost > allowance) {
				reject(o, "recruitment allowance exceeded: %s AP asked, %s AP allowed "
				       "(10 AP for each of your %d provinces)",
				       half_ap_format(spent + cost, b1), half_ap_format(allowance, b2),
				       player_province_count(c, player));
				continue;
			}
			if (field_half_ap + spent + cost > pl->cap_half_ap) {
				reject(o, "your field army may not exceed %s AP",
				       half_ap_format(pl->cap_half_ap, b1));
				continue;
			}
			spent += cost;
			recruit[o->type] += o->count;
		} else if (o->kind == ORDER_EXCHANGE) {
			/* this line's own give is in reserve_then already */
			if (reserve_then < 0) {
				reject(o, "only %d %s in your reserve to exchange",
				       reserve_then + o->count, t->label);
				continue;
			}
		} else if (o->kind == ORDER_DISMISS) {
			if (dismiss[o->type] + o->count > field) {
				reject(o, "only %d %s in your field army", field - dismiss[o->type],
				       t->label);
				continue;
			}
			int generals = troops_generals(&pl->list, &pl->field);
			for (size_t j = 0; j < n; j++)
				if (pl->list.types[j].general)
					generals -= dismiss[j];
			if (t->general && generals - o->count < 1) {
				reject(o, "you must keep at least one general");
				continue;
			}
			dismiss[o->type] += o->count;
		} else {
			if (recruit[o->type] + retrieve[o->type] + 1 > reserve) {
				reject(o, "no %s in your reserve", t->label);
				continue;
			}
			retrieve[o->type]++;
		}
	}
	/* rules 3.1: list minimums are filled before any other troops */
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_RECRUIT)
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct element_type *t = &pl->list.types[j];
			int have = pl->field.count[j] + recruit[j] - dismiss[j];
			int can = pl->reserve.count[j] - recruit[j];
			if ((int)j == o->type || have >= t->list_min || can <= 0)
				continue;
			reject(o, "fill your list minimum of %s first (%d short)", t->label,
			       t->list_min - have);
			break;
		}
	}
	free(incoming);
done:
	free(recruit);
	free(dismiss);
	free(retrieve);
}

static void validate_one(struct order *o, const struct campaign *c, int player, int *committed)
{
	const struct player *pl = &c->players[player];
	int loc = pl->location;
	switch (o->kind) {
	case ORDER_INVADE: {
		const struct province *d = &c->provinces[o->province];
		if (d->owner == player)
			reject(o, "%s is your own province: use MOVE", d->name);
		else if (d->owner == NO_INDEX && d->inviolate)
			reject(o, "%s is an inviolate neutral: it cannot be attacked", d->name);
		else if (d->owner >= 0 && is_overlord_or_tributary(c, player, d->owner))
			reject(o, "%s belongs to %s: you cannot attack your %s", d->name,
			       orders_player_key(c, d->owner),
			       pl->overlord == d->owner ? "overlord" : "tributary");
		validate_route(o, c, player, ORDERS_MAX_STAGES, "");
		break;
	}
	case ORDER_MOVE:
		if (o->province == loc)
			reject(o, "your field army is already in %s (write NO MOVE to stay)",
			       orders_province_name(c, loc));
		else if (!orders_province_friendly(c, player, o->province))
			reject(o, "%s is not friendly (yours, your overlord's or a tributary's): "
			       "use INVADE", orders_province_name(c, o->province));
		validate_route(o, c, player, ORDERS_MAX_STAGES, "");
		break;
	case ORDER_SEND_CONTINGENT:
		/* as rules_contingent_check: none slips past a besieger (2.2) */
		for (size_t i = 0; i < c->siege_count && loc >= 0; i++) {
			int b = c->sieges[i].besieger;
			if (c->sieges[i].province == loc && c->provinces[loc].owner == player &&
			    b != player && b >= 0 && c->players[b].status == PLAYER_ACTIVE &&
			    c->players[b].location == loc) {
				reject(o, "your field army is besieged in %s: no contingent can slip "
				       "past the besieger (SALLY gives battle)",
				       orders_province_name(c, loc));
				break;
			}
		}
		if (o->status != ORDER_OK)
			break;
		validate_contingent(o, c, player, committed);
		if (o->target >= 0 && o->status == ORDER_OK)
			validate_route(o, c, player, ORDERS_NORMAL_STAGES, "contingents");
		break;
	case ORDER_CONTINGENT_FOR:
		validate_contingent(o, c, player, NULL);
		break;
	case ORDER_SALLY: {
		bool besieged = false;
		for (size_t i = 0; i < c->siege_count; i++)
			besieged |= c->sieges[i].province == loc;
		if (loc < 0 || c->provinces[loc].owner != player || !besieged)
			reject(o, "your field army is not besieged in one of your cities: SALLY "
			       "gives battle to the army besieging it");
		break;
	}
	case ORDER_IF_INVADED:
		if (o->province >= 0 && c->provinces[o->province].owner != player)
			reject(o, "%s is not your province", orders_province_name(c, o->province));
		else if (o->choice == CHOICE_RETREAT && !orders_province_friendly(c, player, o->retreat_to))
			reject(o, "you can only retreat to a friendly province, not %s",
			       orders_province_name(c, o->retreat_to));
		else if (o->choice == CHOICE_RETREAT && o->retreat_to == o->province)
			reject(o, "retreat to another province than the one invaded");
		break;
	case ORDER_RETREAT_PREFER:
		for (size_t i = 0; i < o->via_count; i++)
			if (!orders_province_friendly(c, player, o->via[i])) {
				reject(o, "%s is not friendly: you can only retreat to a friendly "
				       "province", orders_province_name(c, o->via[i]));
				break;
			}
		break;
	case ORDER_ALLOW_PASSAGE:
	case ORDER_DENY_PASSAGE:
	case ORDER_ALLOW_SUPPLY:
	case ORDER_DENY_SUPPLY:
		if (o->target == player)
			reject(o, "you always have your own permission");
		break;
	case ORDER_TRIBUTARY_OF:
		if (o->target == player)
			reject(o, "you cannot be your own tributary");
		else if (pl->overlord >= 0)
			reject(o, "you are already the tributary of %s: a tributary cannot have two "
			       "overlords", orders_player_key(c, pl->overlord));
		else if (c->players[o->target].overlord == player)
			reject(o, "%s is your tributary", orders_player_key(c, o->target));
		break;
	case ORDER_ACCEPT_TRIBUTARY:
		if (o->target == player)
			reject(o, "you cannot be your own tributary");
		else if (c->players[o->target].overlord == player)
			reject(o, "%s is already your tributary", orders_player_key(c, o->target));
		else if (c->players[o->target].overlord >= 0)
			reject(o, "%s already has an overlord (%s)", orders_player_key(c, o->target),
			       orders_player_key(c, c->players[o->target].overlord));
		else if (pl->overlord == o->target)
			reject(o, "%s is your overlord", orders_player_key(c, o->target));
		break;
	case ORDER_RENOUNCE:
		if (o->target == player || !is_overlord_or_tributary(c, player, o->target))
			reject(o, "%s is neither your overlord nor your tributary",
			       orders_player_key(c, o->target));
		break;
	case ORDER_LEAVE:
		if (!o->confirmed)
			reject(o, "LEAVE CAMPAIGN needs a CONFIRM line in the same mail");
		break;
	default:
		break;
	}
}

/* Only one movement option a year (rules 1.4): the first valid one in the
 * mail counts; several SEND CONTINGENT lines are one option. */
static void validate_single_movement(struct order_set *set)
{
	const struct order *first = NULL;
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !orders_kind_is_movement(o->kind))
			continue;
		if (!first) {
			first = o;
			continue;
		}
		if (first->kind == ORDER_SEND_CONTINGENT && o->kind == ORDER_SEND_CONTINGENT)
			continue;
		reject(o, "only one movement option a year: line %d (%s) counts, this line is "
		       "ignored", first->line, order_kind_keyword(first->kind));
	}
}

size_t orders_validate(struct order_set *set, const struct campaign *c, int player)
{
	if (player >= 0 && (size_t)player >= c->player_count)
		player = -1;
	int *committed = NULL;
	if (player >= 0)
		committed = xcalloc(c->players[player].list.count + 1, sizeof *committed);
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (kind_is_organiser(o->kind) && !set->organiser) {
			reject(o, "organiser orders need an ORGANISER line with the organiser's "
			       "password");
			continue;
		}
		if (o->kind == ORDER_PASSWORD && set->organiser)
			continue;
		if (kind_is_battle(o->kind) && player < 0 && !set->organiser) {
			reject(o, "battle results need your PLAYER line (or the organiser's)");
			continue;
		}
		if (kind_needs_player(o->kind) && player < 0) {
			reject(o, "this order needs your PLAYER line (PLAYER <name> <password>)");
			continue;
		}
		if (player < 0)
			continue;
		if (orders_kind_is_movement(o->kind) && c->players[player].status != PLAYER_ACTIVE) {
			reject(o, "you are no longer in the campaign");
			continue;
		}
		validate_one(o, c, player, committed);
	}
	if (player >= 0)
		validate_recruitment(set, c, player);
	validate_single_movement(set);
	free(committed);
	set->errors = 0;
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		set->errors += o->status == ORDER_ERROR;
		if (o->status == ORDER_ERROR && o->understood) {
			free(o->understood);
			o->understood = NULL;
		}
	}
	if (set->password)
		orders_mask_everywhere(set, set->password);
	return set->errors;
}
