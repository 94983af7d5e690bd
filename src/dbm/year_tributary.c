/* Rules 3.2 by mail: "Your tributaries must provide an allied contingent if
 * you order them to", and may order their own tributaries "to provide a
 * substitute contingent for you". An overlord's standing CONTINGENT FROM
 * <tributary> is the order; before each battle the overlord fights, the
 * tributary (or the substitute its own CONTINGENT FROM ... FOR names) sends
 * the troops it chose, else those named, else the default contingent. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* The standing CONTINGENT FROM `tributary` (FOR `for_player`, or without
 * FOR when -1) among the orders of `set`, or NULL. */
static const struct order *contingent_from(const struct order_set *set, int tributary,
					   int for_player)
{
	const struct order *found = NULL;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status == ORDER_OK && o->kind == ORDER_CONTINGENT_FROM &&
		    o->target == tributary && o->for_player == for_player)
			found = o;
	}
	return found;
}

bool year_tributary_called(struct year_run *r, int ally, int side, struct tributary_call *call)
{
	struct campaign *c = r->c;
	if (!active(c, ally) || !active(c, side) || c->players[ally].overlord != side)
		return false;
	struct order_set set;
	year_load_orders(r, side, &set);
	bool called = contingent_from(&set, ally, -1) != NULL;
	orders_set_free(&set);
	if (!called)
		return false;
	call->sender = ally;
	call->orderer = side;
	/* the tributary's own tributary sends a substitute, if it is told to */
	year_load_orders(r, ally, &set);
	for (size_t i = 0; i < set.count; i++) {
		const struct order *o = &set.orders[i];
		if (o->status == ORDER_OK && o->kind == ORDER_CONTINGENT_FROM &&
		    o->for_player == side && active(c, o->target) &&
		    c->players[o->target].overlord == ally) {
			call->sender = o->target;
			call->orderer = ally;
		}
	}
	orders_set_free(&set);
	return true;
}

bool year_tributary_default(struct year_run *r, const struct tributary_call *call, int side,
			    struct order *out)
{
	struct campaign *c = r->c;
	const struct player *pl = &c->players[call->sender];
	memset(out, 0, sizeof *out);
	out->kind = ORDER_CONTINGENT_FOR;
	out->status = ORDER_OK;
	out->target = side;
	out->province = out->retreat_to = out->type = out->battle = out->for_player = -1;
	struct order_set set;
	year_load_orders(r, call->orderer, &set);
	const struct order *named = contingent_from(&set, call->sender,
						    call->orderer == side ? -1 : side);
	if (named && named->item_count) {
		out->items = xcalloc(named->item_count, sizeof *out->items);
		memcpy(out->items, named->items, named->item_count * sizeof *out->items);
		out->item_count = named->item_count;
		orders_set_free(&set);
		return true;
	}
	orders_set_free(&set);
	int *troops = xcalloc(pl->list.count + 1, sizeof *troops);
	bool ok = rules_contingent_default(c, call->sender, troops);
	out->items = xcalloc(pl->list.count + 1, sizeof *out->items);
	for (size_t i = 0; ok && i < pl->list.count; i++)
		if (troops[i] > 0)
			out->items[out->item_count++] = (struct order_item){troops[i], (int)i};
	free(troops);
	return ok;
}

char *year_tributary_default_text(struct year_run *r, const struct tributary_call *call, int side)
{
	struct order o;
	if (!year_tributary_default(r, call, side, &o)) {
		order_free(&o);
		return xstrdup("nothing: its field army has a single general, so no contingent "
			       "can be made");
	}
	struct strbuf sb = {0};
	const struct army_list *l = &r->c->players[call->sender].list;
	for (size_t i = 0; i < o.item_count; i++)
		strbuf_printf(&sb, "%s%d %s", i ? ", " : "", o.items[i].count,
			      l->types[o.items[i].type].label);
	order_free(&o);
	return strbuf_take(&sb);
}

bool year_tributary_ordered(const struct year_state *st, const struct campaign *c, int player)
{
	const char *orderer = jstr(json_object_get(st->pending, "ordered"), pkey(c, player));
	return st->step == YEAR_DECISION && orderer != NULL;
}

void year_tributary_order_received(struct year_run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	int to = o->for_player >= 0 ? o->for_player : player;
	struct tributary_call call = {.sender = o->target, .orderer = player};
	char *troops = year_tributary_default_text(r, &call, to);
	json_t *d = json_pack("{s:b, s:s, s:s, s:s, s:s, s:s, s:b, s:s}", "k_contingent_order", 1,
			      "orderer_nation", pnation(c, player), "for", pkey(c, to), "for_nation",
			      pnation(c, to), "tributary_nation", pnation(c, o->target),
			      "default_troops", troops, "substitute", o->for_player >= 0,
			      "troops_named", o->item_count ? "yes" : "");
	free(troops);
	year_mail(r, "relations", o->target, false, d, "%s orders you to provide a contingent",
		  pnation(c, player));
}

void year_tributary_order_withdrawn(struct year_run *r, int player, const struct order *o)
{
	struct campaign *c = r->c;
	if (!active(c, o->target))
		return;
	json_t *d = json_pack("{s:b, s:s}", "k_contingent_withdrawn", 1, "orderer_nation",
			      pnation(c, player));
	year_mail(r, "relations", o->target, false, d,
		  "%s no longer orders you to provide a contingent", pnation(c, player));
}
