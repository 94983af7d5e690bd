/* orders_validate: the orders of a mail checked against the campaign and
 * the rules' static limits. */
#include "config.h"

#include "dbm/orders_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	return order_kind_is_kept(k) || k == ORDER_PASSWORD || k == ORDER_NO_CONTINGENT_FROM;
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

/* MOVE (rules_move_check): another player's field army in the friendly
 * province bars it (2.3: allied field armies meet only for a relief, an
 * invasion). */
static void reject_army_there(struct order *o, const struct campaign *c, int player)
{
	for (size_t p = 0; p < c->player_count; p++)
		if ((int)p != player && c->players[p].status == PLAYER_ACTIVE &&
		    c->players[p].location == o->province) {
			reject(o, "the field army of %s stands in %s", orders_player_nation(c, (int)p),
			       orders_province_name(c, o->province));
			return;
		}
}

/* ALLY WITH and END ALLIANCE WITH (rules_alliance_make, _end). */
static void validate_alliance(struct order *o, const struct campaign *c, int player)
{
	bool declared = rules_alliance_index(c, player, o->target) >= 0;
	if (o->target == player)
		reject(o, "you cannot ally with yourself");
	else if (c->players[o->target].status != PLAYER_ACTIVE)
		reject(o, "%s is no longer in the campaign", orders_player_nation(c, o->target));
	else if (o->kind == ORDER_END_ALLIANCE && !declared)
		reject(o, "%s is not your ally by declaration (an overlord or tributary is "
		       "left with RENOUNCE)", orders_player_nation(c, o->target));
	else if (o->kind == ORDER_ALLY_WITH && declared)
		reject(o, "%s is your ally already", orders_player_nation(c, o->target));
	else if (o->kind == ORDER_ALLY_WITH && is_overlord_or_tributary(c, player, o->target))
		reject(o, "%s is your %s: allies already", orders_player_nation(c, o->target),
		       c->players[player].overlord == o->target ? "overlord" : "tributary");
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

/* CONTINGENT FROM (rules 3.2): `player`'s direct tributary, FOR his own
 * overlord when a substitute; the troops named must make a contingent of
 * the tributary's field army as it stands (at most 80 AP, a general, the
 * C-in-C stays). */
static void validate_contingent_from(struct order *o, const struct campaign *c, int player)
{
	int t = o->target, overlord = c->players[player].overlord;
	if (t < 0 || c->players[t].status != PLAYER_ACTIVE || c->players[t].overlord != player) {
		reject(o, "%s is not your tributary: CONTINGENT FROM calls on a tributary of yours "
		       "(rules 3.2)", orders_player_nation(c, t));
		return;
	}
	if (o->for_player >= 0 && o->for_player != overlord) {
		if (overlord < 0)
			reject(o, "you have no overlord: a substitute contingent is for your overlord");
		else
			reject(o, "a substitute contingent is for your overlord, %s",
			       orders_player_nation(c, overlord));
		return;
	}
	const struct player *pl = &c->players[t];
	int half_ap = 0, generals = 0, cinc = orders_cinc_type(pl);
	int *wanted = xcalloc(pl->list.count + 1, sizeof *wanted);
	for (size_t i = 0; i < o->item_count; i++) {
		const struct element_type *e = &pl->list.types[o->items[i].type];
		half_ap += o->items[i].count * e->cost_half_ap;
		generals += e->general ? o->items[i].count : 0;
		wanted[o->items[i].type] += o->items[i].count;
	}
	for (size_t i = 0; i < pl->list.count; i++) {
		int available = (pl->field.count ? pl->field.count[i] : 0) - ((int)i == cinc);
		if (wanted[i] > available)
			reject(o, "%s has only %d %s to send (its C-in-C stays with its field army)",
			       orders_player_nation(c, t), available < 0 ? 0 : available,
			       pl->list.types[i].label);
	}
	free(wanted);
	char buf[16];
	if (o->item_count && half_ap > ORDERS_CONTINGENT_MAX_HALF_AP)
		reject(o, "a contingent is at most 80 AP; this one is %s AP",
		       half_ap_format(half_ap, buf));
	else if (o->item_count && !generals)
		reject(o, "a contingent must include a general");
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
		reject(o, "%s is no longer in the campaign", orders_player_nation(c, o->target));
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

/* The recruitment counted in full, as it is applied at the end of the
 * recruitment phase (rules 3.1; rules_dismiss, rules_change_reserve then
 * rules_recruit_check, to which this must keep agreeing): every DISMISS
 * first, then every EXCHANGE (reserve troops changed for others of the
 * list), then every RECRUIT and RETRIEVE GENERAL in the order written (in
 * the recruitment phase a general taken from the reserve is recruited like
 * other troops, against the allowance), then the list minimums. A RETRIEVE
 * GENERAL sent in the campaign phase is not a recruit: the general comes at
 * the next step between turns, paid with troops of his value sent to the
 * reserve (year_between_steps), so only the reserve is checked. A line that
 * cannot be paid for, or breaks a limit, is refused with the reason; the
 * lines kept are what will be applied. */
static bool counted_recruit(const struct order *o, const struct campaign *c)
{
	return o->kind == ORDER_RECRUIT ||
	       (o->kind == ORDER_RETRIEVE_GENERAL && c->phase == PHASE_RECRUITMENT);
}

/* The EXCHANGE lines as a whole, as the end of the recruitment phase
 * carries them out (rules_recruit_orders, after the DISMISS lines): a new
 * reserve worth more than the old, or an army that would leave its list's
 * minimums or maximums, is refused there, so every EXCHANGE line is
 * refused now with that reason. Returns true when they were. */
static bool exchanges_refused(struct order_set *set, const struct campaign *c, int player)
{
	struct order_set steps;
	orders_set_init(&steps);
	steps.player = player;
	bool any = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status == ORDER_OK && (o->kind == ORDER_DISMISS || o->kind == ORDER_EXCHANGE))
			order_copy(orders_set_add(&steps), o);
		any |= o->status == ORDER_OK && o->kind == ORDER_EXCHANGE;
	}
	if (!any) {
		orders_set_free(&steps);
		return false;
	}
	struct campaign *copy = campaign_copy(c);
	copy->phase = PHASE_RECRUITMENT;
	struct event_log log;
	event_log_init(&log);
	struct rules_recruit_outcome out;
	rules_recruit_orders(copy, player, &steps, &log, &out);
	event_log_free(&log);
	campaign_free(copy);
	orders_set_free(&steps);
	if (!out.step[RECRUIT_STEP_EXCHANGE].refused)
		return false;
	for (size_t i = 0; i < set->count; i++)
		if (set->orders[i].status == ORDER_OK && set->orders[i].kind == ORDER_EXCHANGE)
			reject(&set->orders[i], "%s (the EXCHANGE lines are carried out "
			       "together, or none of them)", out.step[RECRUIT_STEP_EXCHANGE].why.text);
	return true;
}

static void validate_recruitment(struct order_set *set, const struct campaign *c, int player)
{
	const struct player *pl = &c->players[player];
	size_t n = pl->list.count;
	if (!pl->field.count || !pl->reserve.count)
		return;
	int *have = xcalloc(n + 1, sizeof *have);
	int *reserve = xcalloc(n + 1, sizeof *reserve);
	int *dismiss = xcalloc(n + 1, sizeof *dismiss);
	int *take = xcalloc(n + 1, sizeof *take);
	/* the army: the field army and the contingents out */
	int army = player_field_half_ap(pl);
	for (size_t i = 0; i < n; i++) {
		have[i] = pl->field.count[i];
		reserve[i] = pl->reserve.count[i];
	}
	for (size_t k = 0; k < c->contingent_count; k++) {
		const struct contingent *ct = &c->contingents[k];
		if (ct->owner != player || !ct->troops.count)
			continue;
		for (size_t i = 0; i < n; i++)
			have[i] += ct->troops.count[i];
		army += troops_half_ap(&pl->list, &ct->troops);
	}
	int provinces = player_province_count(c, player);
	int allowance = ORDERS_RECRUIT_HALF_AP_PER_PROVINCE * provinces;
	char b1[16], b2[16], b3[16];

	/* a general retrieved in the campaign phase leaves the reserve at
	 * once, before anything of the recruitment phase */
	for (size_t i = 0; c->phase != PHASE_RECRUITMENT && i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_RETRIEVE_GENERAL || o->type < 0 ||
		    (size_t)o->type >= n)
			continue;
		if (reserve[o->type] < 1) {
			reject(o, "no %s in your reserve", pl->list.types[o->type].label);
			continue;
		}
		reserve[o->type]--;
	}

	int generals = troops_generals(&pl->list, &pl->field);
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_DISMISS || o->type < 0 ||
		    (size_t)o->type >= n)
			continue;
		const struct element_type *t = &pl->list.types[o->type];
		if (dismiss[o->type] + o->count > pl->field.count[o->type]) {
			reject(o, "only %d %s in your field army",
			       pl->field.count[o->type] - dismiss[o->type], t->label);
			continue;
		}
		if (t->general && generals - o->count < 1) {
			reject(o, "you must keep at least one general");
			continue;
		}
		dismiss[o->type] += o->count;
		if (t->general)
			generals -= o->count;
	}
	for (size_t i = 0; i < n; i++) {
		have[i] -= dismiss[i];
		reserve[i] += dismiss[i];
		army -= dismiss[i] * pl->list.types[i].cost_half_ap;
	}

	/* EXCHANGE: the reserve, dismissed troops included, changed for other
	 * troops of the list before the recruits; the value and the list's
	 * limits as rules_change_reserve checks them when it is applied */
	int *before_exchange = xcalloc(n + 1, sizeof *before_exchange);
	memcpy(before_exchange, reserve, n * sizeof *reserve);
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->kind != ORDER_EXCHANGE || o->type < 0 ||
		    (size_t)o->type >= n || o->item_count < 1 || o->items[0].type < 0 ||
		    (size_t)o->items[0].type >= n)
			continue;
		if (o->count > reserve[o->type]) {
			reject(o, "only %d %s in your reserve to exchange", reserve[o->type],
			       pl->list.types[o->type].label);
			continue;
		}
		reserve[o->type] -= o->count;
		reserve[o->items[0].type] += o->items[0].count;
	}
	if (exchanges_refused(set, c, player))
		memcpy(reserve, before_exchange, n * sizeof *reserve);
	free(before_exchange);

	int spent = 0;
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->type < 0 || (size_t)o->type >= n ||
		    !counted_recruit(o, c))
			continue;
		const struct element_type *t = &pl->list.types[o->type];
		bool general = o->kind == ORDER_RETRIEVE_GENERAL;
		int k = general ? 1 : o->count;
		int left = reserve[o->type] - take[o->type];
		if (k > left) {
			if (left > 0)
				reject(o, "only %d %s in your reserve", left, t->label);
			else
				reject(o, "no %s in your reserve", t->label);
			continue;
		}
		if (t->list_max > 0 && have[o->type] + take[o->type] + k > t->list_max) {
			reject(o, "your army list allows at most %d %s (your army would have %d)",
			       t->list_max, t->label, have[o->type] + take[o->type] + k);
			continue;
		}
		int cost = k * t->cost_half_ap;
		if (spent + cost > allowance) {
			reject(o, "%srecruitment allowance exceeded: %s AP asked, %s AP allowed "
			       "(10 AP for each of your %d province%s); this line costs %s AP",
			       general ? "a general from the reserve is recruited like other "
					 "troops: "
				       : "",
			       half_ap_format(spent + cost, b2), half_ap_format(allowance, b3),
			       provinces, provinces == 1 ? "" : "s", half_ap_format(cost, b1));
			continue;
		}
		if (army + spent + cost > pl->cap_half_ap) {
			reject(o, "your army would be %s AP, above its ceiling of %s AP",
			       half_ap_format(army + spent + cost, b1),
			       half_ap_format(pl->cap_half_ap, b2));
			continue;
		}
		take[o->type] += k;
		spent += cost;
	}

	/* rules 3.1: list minimums are filled before any other troops */
	int short_type = -1;
	for (size_t j = 0; j < n && short_type < 0; j++) {
		int deficit = pl->list.types[j].list_min - have[j];
		if (deficit > reserve[j])
			deficit = reserve[j];
		if (deficit > 0 && take[j] < deficit)
			short_type = (int)j;
	}
	for (size_t i = set->count; short_type >= 0 && i-- > 0;) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || o->type < 0 || (size_t)o->type >= n ||
		    !counted_recruit(o, c))
			continue;
		int deficit = pl->list.types[o->type].list_min - have[o->type];
		if (deficit > reserve[o->type])
			deficit = reserve[o->type];
		if (deficit < 0)
			deficit = 0;
		if (take[o->type] <= deficit)
			continue;
		const struct element_type *s = &pl->list.types[short_type];
		int k = o->kind == ORDER_RETRIEVE_GENERAL ? 1 : o->count;
		/* the mail is judged as a whole: the shortfall before its
		 * recruits and the one its recruits of that kind leave */
		int before = s->list_min - have[short_type];
		if (take[short_type] > 0)
			reject(o, "fill your list minimum of %s first (%d short before this "
				  "mail's recruits, %d after)",
			       s->label, before, before - take[short_type]);
		else
			reject(o, "fill your list minimum of %s first (%d short)", s->label,
			       before);
		take[o->type] -= k;
	}
	free(have);
	free(reserve);
	free(dismiss);
	free(take);
}

/* ARMY and START IN: before the start, for a player setting up by mail. */
static void validate_setup(struct order *o, const struct campaign *c, int player)
{
	const struct player *pl = &c->players[player];
	if (c->phase != PHASE_SETUP && pl->status != PLAYER_JOINING) {
		reject(o, "the campaign has started: ARMY and START IN choose the field army "
		       "before play only");
		return;
	}
	if (!pl->setup_by_mail) {
		reject(o, "your field army and where it starts were set by the organiser in the "
		       "campaign file");
		return;
	}
	if (o->kind == ORDER_START_IN) {
		if (o->province >= 0 && c->provinces[o->province].home_of != player) {
			struct strbuf sb = {0};
			for (size_t i = 0; i < c->province_count; i++)
				if (c->provinces[i].home_of == player)
					strbuf_printf(&sb, "%s%s", sb.len ? ", " : "",
						      c->provinces[i].name);
			reject(o, "%s is not one of your home provinces; your army starts in one of "
			       "them: %s", c->provinces[o->province].name, sb.len ? sb.data : "-");
			strbuf_free(&sb);
		}
		return;
	}
	int *counts = xcalloc(pl->list.count + 1, sizeof *counts);
	for (size_t i = 0; i < o->item_count; i++)
		if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count &&
		    counts[o->items[i].type] < 100000)
			counts[o->items[i].type] += o->items[i].count;
	struct rules_reason why;
	if (rules_setup_army_check(pl, counts, &why) != RULES_OK)
		reject(o, "%s: the army was not changed", why.text);
	free(counts);
}

static void validate_one(struct order *o, const struct campaign *c, int player, int *committed)
{
	const struct player *pl = &c->players[player];
	int loc = pl->location;
	switch (o->kind) {
	case ORDER_ARMY:
	case ORDER_START_IN:
		validate_setup(o, c, player);
		break;
	case ORDER_INVADE: {
		const struct province *d = &c->provinces[o->province];
		if (d->owner == player)
			reject(o, "%s is your own province: use MOVE", d->name);
		else if (d->owner == NO_INDEX && d->inviolate)
			reject(o, "%s is an inviolate neutral: it cannot be attacked", d->name);
		else if (d->owner >= 0 && is_overlord_or_tributary(c, player, d->owner) &&
			 rules_relief_besieger(c, player, o->province) == NO_INDEX)
			reject(o, "%s belongs to %s: you cannot attack your %s", d->name,
			       orders_player_nation(c, d->owner),
			       pl->overlord == d->owner ? "overlord" : "tributary");
		validate_route(o, c, player, ORDERS_MAX_STAGES, "");
		break;
	}
	case ORDER_MOVE:
		if (o->province == loc)
			reject(o, "your field army is already in %s (write NO MOVE to stay)",
			       orders_province_name(c, loc));
		else if (!orders_province_friendly(c, player, o->province))
			reject(o, "%s is not friendly (yours or an ally's: a declared ally, your "
			       "overlord or a tributary): use INVADE",
			       orders_province_name(c, o->province));
		else
			reject_army_there(o, c, player);
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
	case ORDER_CONTINGENT_FROM:
		validate_contingent_from(o, c, player);
		break;
	case ORDER_ASK_ALLIES: {
		const struct province *d = o->province >= 0 ? &c->provinces[o->province] : NULL;
		for (size_t i = 0; i < o->via_count && o->status == ORDER_OK; i++) {
			int q = o->via[i];
			if (q == player)
				reject(o, "you cannot ask yourself: name the players you ask");
			else if (q < 0 || c->players[q].status != PLAYER_ACTIVE)
				reject(o, "%s is not in the campaign", orders_player_nation(c, q));
			for (size_t j = 0; j < i && o->status == ORDER_OK; j++)
				if (o->via[j] == q)
					reject(o, "%s is named twice", orders_player_nation(c, q));
		}
		if (o->status == ORDER_OK && d && d->owner == player)
			reject(o, "%s is yours: ASK ALLIES is for an invasion", d->name);
		else if (o->status == ORDER_OK && d && d->owner == NO_INDEX && d->inviolate)
			reject(o, "%s is an inviolate neutral: it cannot be attacked", d->name);
		break;
	}
	case ORDER_NO_CONTINGENT_FROM:
		if (o->target < 0 || c->players[o->target].status != PLAYER_ACTIVE ||
		    c->players[o->target].overlord != player)
			reject(o, "%s is not your tributary: NO CONTINGENT FROM withdraws an order "
			       "to a tributary of yours (an order to one who is no longer your "
			       "tributary is not acted on)", orders_player_nation(c, o->target));
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
	case ORDER_ALLY_WITH:
	case ORDER_END_ALLIANCE:
		validate_alliance(o, c, player);
		break;
	case ORDER_TRIBUTARY_OF:
		if (o->target == player)
			reject(o, "you cannot be your own tributary");
		else if (pl->overlord >= 0)
			reject(o, "you are already the tributary of %s: a tributary cannot have two "
			       "overlords", orders_player_nation(c, pl->overlord));
		else if (c->players[o->target].overlord == player)
			reject(o, "%s is your tributary", orders_player_nation(c, o->target));
		break;
	case ORDER_ACCEPT_TRIBUTARY:
		if (o->target == player)
			reject(o, "you cannot be your own tributary");
		else if (c->players[o->target].overlord == player)
			reject(o, "%s is already your tributary", orders_player_nation(c, o->target));
		else if (c->players[o->target].overlord >= 0)
			reject(o, "%s already has an overlord (%s)", orders_player_nation(c, o->target),
			       orders_player_nation(c, c->players[o->target].overlord));
		else if (pl->overlord == o->target)
			reject(o, "%s is your overlord", orders_player_nation(c, o->target));
		break;
	case ORDER_RENOUNCE:
		if (o->target == player || !is_overlord_or_tributary(c, player, o->target))
			reject(o, "%s is neither your overlord nor your tributary",
			       orders_player_nation(c, o->target));
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

/* What a player who joins during play may send before he enters (the
 * year after campaignctl add-player): his setup, and what every mail may. */
static bool joining_may(enum order_kind k)
{
	switch (k) {
	case ORDER_NONE: case ORDER_PLAYER: case ORDER_PASSWORD: case ORDER_STATUS:
	case ORDER_MAP: case ORDER_HELP: case ORDER_CLEAR: case ORDER_CONFIRM: case ORDER_END:
	case ORDER_FORGOT_PASSWORD: case ORDER_ARMY: case ORDER_START_IN:
		return true;
	default:
		return false;
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
		if (o->status == ORDER_ERROR && player >= 0 && o->kind != ORDER_NONE &&
		    c->players[player].status == PLAYER_JOINING && !joining_may(o->kind)) {
			/* the reason that counts: not what the line lacks */
			free(o->error);
			o->error = NULL;
			o->status = ORDER_OK;
		}
		if (o->status != ORDER_OK)
			continue;
		if (kind_is_organiser(o->kind) && !set->organiser) {
			reject(o, "organiser orders need an ORGANISER line with the organiser's "
			       "password");
			continue;
		}
		if (o->kind == ORDER_PASSWORD && set->organiser)
			continue;
		if (o->kind == ORDER_FORGOT_PASSWORD && (player >= 0 || set->organiser)) {
			reject(o, "your password was right: to change it write PASSWORD <new>");
			continue;
		}
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
		if (c->players[player].status == PLAYER_JOINING && !joining_may(o->kind)) {
			reject(o, "you enter the campaign when the year %d begins: until then only "
			       "your setup (ARMY, START IN) is read", c->year + 1);
			continue;
		}
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
