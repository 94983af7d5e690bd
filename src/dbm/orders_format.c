/* Orders written back: the canonical form of each order (read back by
 * orders_parse), the notes on what an order costs, and the data of the
 * acknowledgement. */
#include "config.h"

#include "dbm/orders_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MINUS "\xe2\x88\x92" /* U+2212, as the rulebook prints losses */

/* --------------------------------------------------------------- format */

/* Writes a name so that orders_tokenize reads it back as one name: in double
 * quotes (inner quotes doubled) when it holds a separator or a quote. */
static void put_name(struct strbuf *sb, const char *name)
{
	if (!strchr(name, ',') && !strchr(name, ';') && !strchr(name, '#') && !strchr(name, '"')) {
		strbuf_puts(sb, name);
		return;
	}
	strbuf_putc(sb, '"');
	for (const char *r = name; *r; r++) {
		if (*r == '"')
			strbuf_putc(sb, '"');
		strbuf_putc(sb, *r);
	}
	strbuf_putc(sb, '"');
}

static const char *label_of(const struct campaign *c, int player, int type)
{
	if (player < 0 || (size_t)player >= c->player_count || type < 0 ||
	    (size_t)type >= c->players[player].list.count)
		return "?";
	return c->players[player].list.types[type].label;
}

static void put_items(struct strbuf *sb, const struct order *o, const struct campaign *c,
		      int player, bool counts)
{
	for (size_t i = 0; i < o->item_count; i++) {
		if (i)
			strbuf_puts(sb, ", ");
		if (counts)
			strbuf_printf(sb, "%d ", o->items[i].count);
		put_name(sb, label_of(c, player, o->items[i].type));
	}
}

static void put_provinces(struct strbuf *sb, const struct campaign *c, const int *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_puts(sb, ", ");
		put_name(sb, orders_province_name(c, p[i]));
	}
}

static const char *choice_word(enum order_choice ch)
{
	switch (ch) {
	case CHOICE_BATTLE: return "BATTLE";
	case CHOICE_SIEGE: return "SIEGE";
	case CHOICE_RETREAT: return "RETREAT TO";
	case CHOICE_CONTINUE: return "CONTINUE";
	case CHOICE_HALT: return "HALT";
	case CHOICE_RETURN: return "RETURN";
	case CHOICE_YES: return "YES";
	case CHOICE_NO: return "NO";
	case CHOICE_END: return "END";
	case CHOICE_NONE: break;
	}
	return "";
}

/* The intermediate provinces of a planned route, or the VIA list. A route
 * chosen for the player (no VIA written) is not part of the order: it is
 * chosen again, from where the army then stands, when the move is carried
 * out. */
static void put_via(struct strbuf *sb, const struct order *o, const struct campaign *c)
{
	if (o->route_chosen)
		return;
	if (o->route_len > 2) {
		strbuf_puts(sb, " VIA ");
		put_provinces(sb, c, o->route + 1, o->route_len - 2);
	} else if (!o->route && o->via_count) {
		strbuf_puts(sb, " VIA ");
		put_provinces(sb, c, o->via, o->via_count);
	}
}

char *orders_format_one(const struct order *o, const struct campaign *c, int player)
{
	struct strbuf sb = {0};
	if (o->kind == ORDER_NONE || o->kind >= ORDER_KIND_COUNT)
		return NULL;
	strbuf_puts(&sb, order_kind_keyword(o->kind));
	switch (o->kind) {
	case ORDER_PLAYER:
		strbuf_printf(&sb, " %s %s", orders_player_key(c, o->target), MASK);
		break;
	case ORDER_ORGANISER:
	case ORDER_PASSWORD:
		strbuf_puts(&sb, " " MASK);
		break;
	case ORDER_STAND_IN:
		orders_format_stand_in(&sb, o, c);
		break;
	case ORDER_INVADE:
	case ORDER_MOVE:
		strbuf_putc(&sb, ' ');
		put_name(&sb, orders_province_name(c, o->province));
		put_via(&sb, o, c);
		break;
	case ORDER_SEND_CONTINGENT:
		strbuf_printf(&sb, " TO %s", orders_player_key(c, o->target));
		put_via(&sb, o, c);
		strbuf_puts(&sb, " WITH ");
		put_items(&sb, o, c, player, true);
		break;
	case ORDER_CONTINGENT_FOR:
		strbuf_printf(&sb, " %s WITH ", orders_player_key(c, o->target));
		put_items(&sb, o, c, player, true);
		break;
	case ORDER_NO_CONTINGENT_FROM:
		strbuf_printf(&sb, " %s", orders_player_key(c, o->target));
		break;
	case ORDER_ASK_ALLIES:
		for (size_t i = 0; i < o->via_count; i++)
			strbuf_printf(&sb, "%s %s", i ? "," : "", orders_player_key(c, o->via[i]));
		strbuf_puts(&sb, " FOR INVADE ");
		put_name(&sb, orders_province_name(c, o->province));
		break;
	case ORDER_CONTINGENT_FROM:
		strbuf_printf(&sb, " %s", orders_player_key(c, o->target));
		if (o->for_player >= 0)
			strbuf_printf(&sb, " FOR %s", orders_player_key(c, o->for_player));
		if (o->item_count) {
			strbuf_puts(&sb, " WITH ");
			put_items(&sb, o, c, o->target, true);
		}
		break;
	case ORDER_IF_INVADED:
		strbuf_putc(&sb, ' ');
		put_name(&sb, orders_province_name(c, o->province));
		strbuf_printf(&sb, " %s", choice_word(o->choice));
		if (o->choice == CHOICE_RETREAT) {
			strbuf_putc(&sb, ' ');
			put_name(&sb, orders_province_name(c, o->retreat_to));
		}
		break;
	case ORDER_IN_STORM:
	case ORDER_ANSWER_ALLIES:
	case ORDER_VOTE:
		strbuf_printf(&sb, " %s", choice_word(o->choice));
		break;
	case ORDER_ALLOW_PASSAGE:
	case ORDER_DENY_PASSAGE:
	case ORDER_ALLOW_SUPPLY:
	case ORDER_DENY_SUPPLY:
	case ORDER_TRIBUTARY_OF:
	case ORDER_ACCEPT_TRIBUTARY:
	case ORDER_RENOUNCE:
	case ORDER_ALLY_WITH:
	case ORDER_END_ALLIANCE:
		strbuf_printf(&sb, " %s", orders_player_key(c, o->target));
		break;
	case ORDER_LOSSES_FIRST:
		strbuf_putc(&sb, ' ');
		put_items(&sb, o, c, player, false);
		break;
	case ORDER_RETREAT_PREFER:
		strbuf_putc(&sb, ' ');
		put_provinces(&sb, c, o->via, o->via_count);
		break;
	case ORDER_RECRUIT:
	case ORDER_DISMISS:
		strbuf_printf(&sb, " %d ", o->count);
		put_name(&sb, label_of(c, player, o->type));
		break;
	case ORDER_RETRIEVE_GENERAL:
		strbuf_putc(&sb, ' ');
		put_name(&sb, label_of(c, player, o->type));
		break;
	case ORDER_ARMY:
		strbuf_putc(&sb, ' ');
		put_items(&sb, o, c, player, true);
		break;
	case ORDER_START_IN:
		strbuf_putc(&sb, ' ');
		put_name(&sb, orders_province_name(c, o->province));
		break;
	case ORDER_EXCHANGE:
		strbuf_printf(&sb, " %d ", o->count);
		put_name(&sb, label_of(c, player, o->type));
		if (o->item_count) {
			strbuf_printf(&sb, " FOR %d ", o->items[0].count);
			put_name(&sb, label_of(c, player, o->items[0].type));
		}
		break;
	case ORDER_LEAVE:
		if (o->arg)
			strbuf_printf(&sb, " REPLACEMENT %s", o->arg);
		if (o->confirmed)
			strbuf_puts(&sb, " CONFIRM");
		break;
	case ORDER_BATTLE_AT:
		strbuf_putc(&sb, ' ');
		put_name(&sb, orders_province_name(c, o->province));
		break;
	case ORDER_BATTLE_WINNER:
	case ORDER_BATTLE_CONCEDED:
	case ORDER_BATTLE_WITHDRAWAL:
		strbuf_printf(&sb, " %s", orders_player_key(c, o->target));
		break;
	case ORDER_BATTLE_DEMORALISED:
		strbuf_printf(&sb, " %s ", orders_player_key(c, o->target));
		put_items(&sb, o, c, o->target, false);
		break;
	case ORDER_BATTLE_DESTROYED:
	case ORDER_BATTLE_FLED:
	case ORDER_BATTLE_WITHDRAWN:
		strbuf_printf(&sb, " %s ", orders_player_key(c, o->target));
		put_items(&sb, o, c, o->target, true);
		break;
	case ORDER_BATTLE_RETURNED:
		strbuf_printf(&sb, " %s %d ", orders_player_key(c, o->target), o->count);
		put_name(&sb, label_of(c, o->target, o->type));
		break;
	case ORDER_BATTLE_SHARE:
		strbuf_printf(&sb, " %s %d", orders_player_key(c, o->target), o->count);
		break;
	case ORDER_BATTLE_GENERAL_KILLED:
		strbuf_printf(&sb, " %s ", orders_player_key(c, o->target));
		put_items(&sb, o, c, o->target, false);
		break;
	case ORDER_ORG_EXTEND:
		strbuf_printf(&sb, " %d", o->count);
		break;
	case ORDER_ORG_PROCESS:
	case ORDER_ORG_COMMENT:
		strbuf_printf(&sb, " %s", o->arg ? o->arg : "");
		break;
	default:
		break;
	}
	return strbuf_take(&sb);
}

char *orders_format_pending(const struct order_set *set, const struct campaign *c)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !order_kind_is_kept(o->kind))
			continue;
		char *line = orders_format_one(o, c, set->player);
		if (line) {
			strbuf_puts(&sb, line);
			strbuf_putc(&sb, '\n');
		}
		free(line);
	}
	return strbuf_take(&sb);
}

/* ------------------------------------------------------- cost notes */

static void note(json_t *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(json_t *notes, const char *fmt, ...)
{
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	char *s = strbuf_take(&sb);
	json_array_append_new(notes, json_string(s));
	free(s);
}

static bool in_supply_at(const struct campaign *c, int player, int prov)
{
	if (orders_province_friendly(c, player, prov))
		return true;
	for (size_t i = 0; i < c->route_count; i++) {
		const struct route *r = &c->routes[i];
		int other = r->a == prov ? r->b : r->b == prov ? r->a : NO_INDEX;
		if (other < 0 || (r->sea && !c->settings.supply_across_sea))
			continue;
		if (orders_province_friendly(c, player, other))
			return true;
	}
	return false;
}

static int field_army_at(const struct campaign *c, int player, int prov)
{
	for (size_t i = 0; i < c->player_count; i++)
		if ((int)i != player && c->players[i].location == prov &&
		    c->players[i].status == PLAYER_ACTIVE)
			return (int)i;
	return -1;
}

/* An INVADE or MOVE recalls the player's contingents with other armies
 * (rules 2.3): the note names those out now, and is left out when there
 * are none. */
static void recall_note(const struct campaign *c, int player, json_t *notes)
{
	struct strbuf sb = {0};
	size_t n = 0, total = 0;
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *ct = &c->contingents[i];
		if (ct->owner == player && !ct->returning && ct->with_player != player)
			total++;
	}
	for (size_t i = 0; i < c->contingent_count; i++) {
		const struct contingent *ct = &c->contingents[i];
		if (ct->owner != player || ct->returning || ct->with_player == player)
			continue;
		n++;
		strbuf_printf(&sb, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
			      orders_player_nation(c, ct->with_player));
	}
	char *with = strbuf_take(&sb);
	if (total == 1)
		note(notes, "your contingent with %s's army is recalled", with);
	else if (total > 1)
		note(notes, "your contingents with the armies of %s are recalled", with);
	free(with);
}

static void move_notes(const struct order *o, const struct campaign *c, int player, json_t *notes)
{
	char buf[16];
	if (!o->route)
		return;
	if (o->route_chosen) {
		struct strbuf sb = {0};
		put_provinces(&sb, c, o->route, o->route_len);
		char *r = strbuf_take(&sb);
		note(notes, "route chosen for you (the shortest from where your army stands now): "
		     "%s; it is chosen again from where your army stands when the move is carried "
		     "out; write VIA to fix the route", r);
		free(r);
	}
	if (o->stages == 0 && o->kind == ORDER_SEND_CONTINGENT)
		note(notes, "no movement: %s's field army is in the same province",
		     orders_player_nation(c, o->target));
	else if (o->stages == 0)
		note(notes, "stays in %s", orders_province_name(c, o->province));
	else if (o->extra_stages == 0)
		note(notes, "%d stage%s: normal move, no cost", o->stages, o->stages > 1 ? "s" : "");
	else
		note(notes, "forced march: %d extra stage%s, " MINUS "%s AP", o->extra_stages,
		     o->extra_stages > 1 ? "s" : "", half_ap_format(o->forced_march_half_ap, buf));
	if (o->sea_stages == 1)
		note(notes, "sea stage: dice for storm (1 in 6: lose 25 AP per pip of a second die, "
		     "the first 25 AP mounted)");
	else if (o->sea_stages > 1)
		note(notes, "%d sea stages: each dices for a storm (1 in 6: lose 25 AP per pip of a "
		     "second die, the first 25 AP mounted)", o->sea_stages);
	for (size_t i = 0; i < o->hostile_count; i++) {
		int prov = o->hostile[i], owner = c->provinces[prov].owner;
		int army = field_army_at(c, player, prov);
		if (army >= 0)
			note(notes, "passes through %s: %s's field army is there, passage needs its "
			     "permission", orders_province_name(c, prov), orders_player_nation(c, army));
		else if (owner >= 0)
			note(notes, "passes through %s (%s's): needs permission or forced passage: a "
			     "die " "\xc3\x97" " 40 AP", orders_province_name(c, prov), orders_player_nation(c, owner));
		else
			note(notes, "passes through %s (neutral): forced passage: a die " "\xc3\x97"
			     " 40 AP", orders_province_name(c, prov));
	}
	if (o->kind != ORDER_SEND_CONTINGENT) {
		int dest = o->province;
		if (!in_supply_at(c, player, dest))
			note(notes, "out of supply in %s at the end of the move: a die " "\xc3\x97"
			     " 40 AP (not if forced passage already cost you)", orders_province_name(c, dest));
		int army = field_army_at(c, player, dest);
		if (o->kind == ORDER_INVADE && army >= 0)
			note(notes, "%s's field army is in %s: battle or siege, as %s decides",
			     orders_player_nation(c, army), orders_province_name(c, dest), orders_player_nation(c, army));
		if (o->kind == ORDER_INVADE || o->kind == ORDER_MOVE)
			recall_note(c, player, notes);
	}
}

/* The march of a defending (or retreating) field army from where it
 * stands now to `dest`, as rules 2.1 prices it: stages, forced march beyond
 * 2, hostile provinces passed. Returns the stages, or -1 if there is no way. */
static int defence_march(const struct campaign *c, int player, int dest, struct order *plan)
{
	memset(plan, 0, sizeof *plan);
	plan->province = dest;
	char *err = orders_route_plan(c, player, orders_move_start(c, player), plan);
	int stages = err ? -1 : plan->stages;
	free(err);
	return stages;
}

/* IF INVADED ... BATTLE (or RETREAT TO): the worst the standing decision
 * may cost when it is carried out, counted from where the army stands now
 * (rules 2.1: more than 2 stages is a forced march at 40 AP a stage, more
 * than 4 cannot be marched). */
static void defence_notes(const struct order *o, const struct campaign *c, int player,
			  json_t *notes)
{
	char buf[16];
	int from = orders_move_start(c, player);
	if (from < 0 || (size_t)from >= c->province_count)
		return;
	int worst = NO_INDEX, worst_stages = 0;
	size_t unreachable = 0;
	struct strbuf far = {0};
	bool retreat = o->choice == CHOICE_RETREAT;
	for (size_t p = 0; p < c->province_count; p++) {
		int dest = (int)p;
		if (retreat ? dest != o->retreat_to
			    : o->province == ORDERS_ANY ? c->provinces[p].owner != player
							: dest != o->province)
			continue;
		struct order plan;
		int stages = defence_march(c, player, dest, &plan);
		free(plan.route);
		free(plan.hostile);
		if (stages > ORDERS_MAX_STAGES || stages < 0) {
			strbuf_printf(&far, "%s%s", unreachable++ ? ", " : "",
				      orders_province_name(c, dest));
			continue;
		}
		if (worst == NO_INDEX || stages > worst_stages) {
			worst = dest;
			worst_stages = stages;
		}
	}
	const char *where = orders_province_name(c, from);
	if (worst != NO_INDEX && worst_stages > ORDERS_NORMAL_STAGES) {
		int extra = worst_stages - ORDERS_NORMAL_STAGES;
		note(notes, "worst cost: a forced march of %d stages from %s (where your army "
		     "stands now) to %s, " MINUS "%s AP (%d extra stage%s at 40 AP)", worst_stages,
		     where, orders_province_name(c, worst),
		     half_ap_format(extra * ORDERS_FORCED_MARCH_HALF_AP, buf), extra,
		     extra == 1 ? "" : "s");
	} else if (worst != NO_INDEX && worst_stages > 0) {
		note(notes, "at most %d stage%s from %s (where your army stands now): no forced "
		     "march", worst_stages, worst_stages == 1 ? "" : "s", where);
	} else if (worst != NO_INDEX && !retreat && o->province != ORDERS_ANY) {
		note(notes, "your army is in %s: it fights there, no march", where);
	}
	if (worst != NO_INDEX) {
		struct order plan;
		defence_march(c, player, worst, &plan);
		for (size_t i = 0; i < plan.hostile_count; i++)
			note(notes, "on the way to %s: passes through %s, forced passage without "
			     "permission: a die " "\xc3\x97" " 40 AP", orders_province_name(c, worst),
			     orders_province_name(c, plan.hostile[i]));
		if (plan.sea_stages)
			note(notes, "on the way to %s: %d sea stage%s, each dices for a storm",
			     orders_province_name(c, worst), plan.sea_stages,
			     plan.sea_stages == 1 ? "" : "s");
		free(plan.route);
		free(plan.hostile);
	}
	if (unreachable)
		note(notes, "more than 4 stages from %s (where your army stands now): %s; %s",
		     where, far.data,
		     retreat ? "the army cannot retreat there and stays"
			     : "invaded there, your army cannot come: the city stands a siege");
	if (worst != NO_INDEX || unreachable)
		note(notes, "counted from where your army stands now: the cost changes if it moves");
	strbuf_free(&far);
}

/* RECRUIT and RETRIEVE GENERAL: what the line costs and the running total
 * against the allowance (*spent: the lines before it, in the same list); a
 * general retrieved in the campaign phase is paid with troops instead. */
static void recruit_notes(const struct order *o, const struct campaign *c, int player,
			  int *spent, json_t *notes)
{
	const struct player *pl = &c->players[player];
	if (o->type < 0 || (size_t)o->type >= pl->list.count)
		return;
	const struct element_type *t = &pl->list.types[o->type];
	int cost = (o->kind == ORDER_RETRIEVE_GENERAL ? 1 : o->count) * t->cost_half_ap;
	int provinces = player_province_count(c, player);
	char b1[16], b2[16], b3[16];
	if (o->kind == ORDER_RETRIEVE_GENERAL && c->phase != PHASE_RECRUITMENT) {
		/* 3.1: not a recruit, the allowance is untouched */
		note(notes, "comes at the next step between turns: troops worth at least %s AP "
			    "go to the reserve in exchange at once (your LOSSES FIRST, else as for "
			    "any generic loss); not a recruit, the recruitment allowance is "
			    "untouched",
		     half_ap_format(cost, b1));
		return;
	}
	*spent += cost;
	note(notes, "%s%s AP; %s AP of your allowance of %s AP counted so far (10 AP for each of "
		    "your %d province%s)",
	     o->kind == ORDER_RETRIEVE_GENERAL
		     ? "a general from the reserve is recruited like other troops: "
		     : "",
	     half_ap_format(cost, b1), half_ap_format(*spent, b2),
	     half_ap_format(ORDERS_RECRUIT_HALF_AP_PER_PROVINCE * provinces, b3), provinces,
	     provinces == 1 ? "" : "s");
	/* sent in the campaign phase: kept for the recruitment at the end of
	 * this year, and said so plainly when the last one is over */
	if (c->phase != PHASE_RECRUITMENT && c->year > c->start_year)
		note(notes, "the recruitment phase of %d is over: this order is kept for the next "
			    "one, at the end of %d, and checked again when it begins",
		     c->year - 1, c->year);
	else if (c->phase != PHASE_RECRUITMENT)
		note(notes, "kept for the recruitment phase at the end of %d, and checked again "
			    "when it begins", c->year);
}

static void cost_notes(const struct order *o, const struct campaign *c, int player, int *spent,
		       json_t *notes);

void orders_cost_notes(const struct order *o, const struct campaign *c, int player,
		       json_t *notes)
{
	int spent = 0;
	cost_notes(o, c, player, &spent, notes);
}

/* INVADE of an ally's province: a relief of its besieged city (2.3), or
 * an attack that ends a declared alliance at once. */
static void ally_invade_notes(const struct order *o, const struct campaign *c, int player,
			      json_t *notes)
{
	int owner = o->province >= 0 ? c->provinces[o->province].owner : NO_INDEX;
	int besieger = rules_relief_besieger(c, player, o->province);
	if (besieger != NO_INDEX)
		note(notes, "relief of %s's city: you fight the besieging army of %s; %s's army "
		     "inside gives a contingent to your side (its CONTINGENT FOR %s, else up to "
		     "80 AP with a general); your alliance stands",
		     orders_player_nation(c, owner), orders_player_nation(c, besieger),
		     orders_player_nation(c, owner), orders_player_key(c, player));
	else if (owner >= 0 && rules_alliance_index(c, player, owner) >= 0)
		note(notes, "%s is your ally: this invasion ends your alliance at once (everyone "
		     "is told)", orders_player_nation(c, owner));
}

/* CONTINGENT FOR: whether the contingent can reach the field army it is
 * for from where the armies stand now, by the rules' own check
 * (rules_contingent_check, as when it is sent: at most 2 stages, no forced
 * march, passage); if not, why and what happens when that army calls. */
static void contingent_reach_notes(const struct order *o, const struct campaign *c, int player,
				   json_t *notes)
{
	const struct player *pl = &c->players[player];
	int to = o->target;
	if (to < 0 || (size_t)to >= c->player_count || to == player ||
	    c->players[to].location == pl->location)
		return;
	int *troops = xcalloc(pl->list.count + 1, sizeof *troops);
	for (size_t i = 0; i < o->item_count; i++)
		if (o->items[i].type >= 0 && (size_t)o->items[i].type < pl->list.count)
			troops[o->items[i].type] += o->items[i].count;
	struct contingent_order co = {.owner = player, .to_player = to, .troops = troops,
				      .on_storm = STORM_CONTINUE, .force_passage = true};
	struct rules_reason why;
	if (rules_contingent_check(c, &co, &why) != RULES_OK) {
		const char *nation = orders_player_nation(c, to);
		note(notes, "cannot reach the field army of %s in %s from %s, where your army "
		     "stands now: %s (rules 2.3)", nation,
		     orders_province_name(c, c->players[to].location),
		     orders_province_name(c, pl->location), why.text);
		note(notes, "so if %s calls on you while the armies stand so, no contingent of "
		     "yours goes: %s fights without it (the order stays for a later call)",
		     nation, nation);
	}
	free(troops);
}

/* CONTINGENT FROM (rules 3.2): what happens, said to the overlord. */
static void contingent_from_notes(const struct order *o, const struct campaign *c, int player,
				  json_t *notes)
{
	const char *t = orders_player_nation(c, o->target);
	int to = o->for_player >= 0 ? o->for_player : player;
	note(notes, "%s is told now: it must send a contingent to %s before each battle %s "
	     "fights, as long as this order stands; it cannot refuse (rules 3.2)", t,
	     orders_player_nation(c, to), orders_player_nation(c, to));
	if (o->item_count)
		note(notes, "%s may choose other troops (CONTINGENT FOR, at most 80 AP with a "
		     "general); if it does not answer by the deadline, the troops named here go",
		     t);
	else
		note(notes, "%s chooses the troops (at most 80 AP with a general); if it does not "
		     "answer by the deadline, its cheapest general and troops of its list up to "
		     "80 AP go", t);
	if (o->for_player >= 0)
		note(notes, "a substitute: when %s calls on you, %s's contingent goes instead of "
		     "yours", orders_player_nation(c, o->for_player), t);
}

static void cost_notes(const struct order *o, const struct campaign *c, int player, int *spent,
		       json_t *notes)
{
	char b1[16];
	if (o->status != ORDER_OK || player < 0 || (size_t)player >= c->player_count)
		return;
	const struct player *pl = &c->players[player];
	switch (o->kind) {
	case ORDER_INVADE:
	case ORDER_MOVE:
		move_notes(o, c, player, notes);
		if (o->kind == ORDER_INVADE)
			ally_invade_notes(o, c, player, notes);
		break;
	case ORDER_CONTINGENT_FROM:
		contingent_from_notes(o, c, player, notes);
		break;
	case ORDER_ASK_ALLIES:
		note(notes, "when your turn comes (now, if it is under way) the players named are "
		     "mailed at once and have the decision deadline to answer CONTINGENT FOR %s "
		     "WITH ... (the troops they promise) or ANSWER ALLIES NO; then you are mailed "
		     "their answers and have the decision deadline to send INVADE %s (the "
		     "promised contingents come to its battle) or CALL OFF (your movement option "
		     "stays open: rules 2.2, calling off uses none); without an answer the attack "
		     "is called off", orders_player_key(c, player),
		     orders_province_name(c, o->province));
		break;
	case ORDER_CALL_OFF:
		note(notes, "answers your ASK ALLIES once the answers are in: the attack is called "
		     "off and your turn goes on, with its movement option still open");
		break;
	case ORDER_NO_CONTINGENT_FROM:
		note(notes, "your standing CONTINGENT FROM %s is withdrawn (a substitute FOR your "
		     "overlord too): %s is told now and is no longer called for your battles; a "
		     "call already made for a battle under way stands",
		     orders_player_key(c, o->target), orders_player_nation(c, o->target));
		break;
	case ORDER_SEND_CONTINGENT:
	case ORDER_CONTINGENT_FOR: {
		int half_ap = 0, generals = 0;
		for (size_t i = 0; i < o->item_count; i++) {
			const struct element_type *t = &pl->list.types[o->items[i].type];
			half_ap += o->items[i].count * t->cost_half_ap;
			generals += t->general ? o->items[i].count : 0;
		}
		note(notes, "contingent of %s AP (at most 80) with %d general%s", half_ap_format(half_ap, b1),
		     generals, generals == 1 ? "" : "s");
		if (o->kind == ORDER_CONTINGENT_FOR)
			contingent_reach_notes(o, c, player, notes);
		if (o->kind == ORDER_SEND_CONTINGENT) {
			move_notes(o, c, player, notes);
			note(notes, "arrives this year on 1-4 on a die (5-6: too late for the battle)");
		}
		break;
	}
	case ORDER_RECRUIT:
	case ORDER_RETRIEVE_GENERAL:
		recruit_notes(o, c, player, spent, notes);
		break;
	case ORDER_DISMISS: {
		const struct element_type *t = &pl->list.types[o->type];
		note(notes, "to the reserve: " MINUS "%s AP from your field army",
		     half_ap_format(o->count * t->cost_half_ap, b1));
		break;
	}
	case ORDER_IF_INVADED:
		if (o->choice == CHOICE_BATTLE || o->choice == CHOICE_RETREAT)
			defence_notes(o, c, player, notes);
		break;
	case ORDER_RENOUNCE:
		if (c->phase != PHASE_RECRUITMENT)
			note(notes, "takes effect in the recruitment phase");
		break;
	case ORDER_LEAVE:
		note(notes, o->arg ? "your provinces go to your replacement"
				   : "without a replacement your provinces become neutral and you "
				     "lose your prestige");
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- ack */

static const char *status_word(enum order_status s)
{
	return s == ORDER_OK ? "ok" : s == ORDER_IGNORED ? "ignored" : "error";
}

static json_t *order_json(const struct order *o, const struct campaign *c, int player,
			  bool with_line, int *spent)
{
	json_t *j = json_object();
	json_t *notes = json_array();
	if (with_line) {
		json_object_set_new(j, "line", json_integer(o->line));
		json_object_set_new(j, "text", json_string(o->text ? o->text : ""));
	}
	json_object_set_new(j, "status", json_string(status_word(o->status)));
	json_object_set_new(j, "ok", json_boolean(o->status == ORDER_OK));
	json_object_set_new(j, "ignored", json_boolean(o->status == ORDER_IGNORED));
	json_object_set_new(j, "is_error", json_boolean(o->status == ORDER_ERROR));
	if (o->kind != ORDER_NONE)
		json_object_set_new(j, "keyword", json_string(order_kind_keyword(o->kind)));
	char *understood = o->understood ? xstrdup(o->understood)
		: o->status == ORDER_OK ? orders_format_one(o, c, player) : NULL;
	if (understood)
		json_object_set_new(j, "understood", json_string(understood));
	free(understood);
	if (o->error)
		json_object_set_new(j, "error", json_string(o->error));
	if (o->guess)
		json_object_set_new(j, "guess", json_string(o->guess));
	cost_notes(o, c, player, spent, notes);
	json_object_set_new(j, "has_costs", json_boolean(json_array_size(notes) > 0));
	json_object_set_new(j, "costs", notes);
	/* the note of the contingents a move recalls, flagged apart: it still
	 * holds once the move is carried out */
	if (o->status == ORDER_OK && o->route && (o->kind == ORDER_INVADE || o->kind == ORDER_MOVE) &&
	    player >= 0 && (size_t)player < c->player_count) {
		json_t *recall = json_array();
		recall_note(c, player, recall);
		if (json_array_size(recall))
			json_object_set(j, "recall", json_array_get(recall, 0));
		json_decref(recall);
	}
	return j;
}

json_t *orders_ack_json(const struct order_set *mail_orders, const struct order_set *current,
			const struct campaign *c, int player)
{
	json_t *ack = json_object();
	json_t *lines = json_array();
	json_t *orders = json_array();
	if (player >= 0 && (size_t)player < c->player_count) {
		json_object_set_new(ack, "player", json_string(c->players[player].key));
		json_object_set_new(ack, "nation", json_string(c->players[player].nation ?
							       c->players[player].nation :
							       c->players[player].key));
	}
	json_object_set_new(ack, "organiser", json_boolean(mail_orders->organiser));
	if (c->name)
		json_object_set_new(ack, "campaign", json_string(c->name));
	json_object_set_new(ack, "year", json_integer(c->year));
	json_object_set_new(ack, "phase", json_string(campaign_phase_name(c->phase)));
	int spent = 0;
	for (size_t i = 0; i < mail_orders->count; i++)
		json_array_append_new(lines,
				      order_json(&mail_orders->orders[i], c, player, true, &spent));
	spent = 0;
	size_t kept = 0;
	for (size_t i = 0; current && i < current->count; i++) {
		const struct order *o = &current->orders[i];
		if (o->status != ORDER_OK || !order_kind_is_kept(o->kind))
			continue;
		json_array_append_new(orders, order_json(o, c, player, false, &spent));
		kept++;
	}
	char *text = current ? orders_format_pending(current, c) : xstrdup("");
	json_object_set_new(ack, "lines", lines);
	json_object_set_new(ack, "current_orders", orders);
	json_object_set_new(ack, "current_orders_text", json_string(text));
	json_object_set_new(ack, "no_current_orders", json_boolean(kept == 0));
	json_t *minimums = orders_minimums_json(mail_orders, current, c, player);
	if (minimums)
		json_object_set_new(ack, "list_minimums", minimums);
	json_t *setup = player >= 0 ? orders_setup_json(current, c, player) : NULL;
	if (setup)
		json_object_set_new(ack, "setup", setup);
	json_object_set_new(ack, "error_count", json_integer((json_int_t)mail_orders->errors));
	json_object_set_new(ack, "has_errors", json_boolean(mail_orders->errors > 0));
	json_object_set_new(ack, "cleared", json_boolean(mail_orders->cleared));
	json_object_set_new(ack, "resubmission", json_string(orders_resubmission_rule()));
	json_object_set_new(ack, "wants_status", json_boolean(mail_orders->wants_status));
	json_object_set_new(ack, "wants_map", json_boolean(mail_orders->wants_map));
	json_object_set_new(ack, "wants_help", json_boolean(mail_orders->wants_help));
	bool password_changed = false;
	for (size_t i = 0; i < mail_orders->count; i++)
		password_changed |= mail_orders->orders[i].kind == ORDER_PASSWORD &&
				    mail_orders->orders[i].status == ORDER_OK;
	json_object_set_new(ack, "password_changed", json_boolean(password_changed));
	free(text);
	return ack;
}
