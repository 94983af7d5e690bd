/* Between steps (rules 2.3, 3.2): leaving, recalls, tributaries made and
 * renounced, and the mails that tell everyone. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- between steps (rules 2.3, 3.2) */

/* Removes the player's pending orders of `kind` (about `target`, or any
 * target when NO_INDEX) from the current phase. */
static void drop_orders(struct year_run *r, int player, enum order_kind kind, int target)
{
	struct order_set set;
	year_load_orders(r, player, &set);
	size_t w = 0;
	bool dropped = false;
	for (size_t i = 0; i < set.count; i++) {
		struct order *o = &set.orders[i];
		if (o->kind == kind && (target == NO_INDEX || o->target == target)) {
			order_free(o);
			dropped = true;
		} else {
			set.orders[w++] = *o;
		}
	}
	set.count = w;
	if (dropped) {
		set.player = player;
		char *text = orders_format_pending(&set, r->c);
		r->io->orders_save(r->io->ctx, player, r->c->year, r->c->phase, text);
		free(text);
	}
	orders_set_free(&set);
}

/* A step of its own before a change made between steps, so that undo
 * takes back exactly that change. */
static void checkpoint_named(struct year_run *r, const char *what, int player)
{
	char *name = xasprintf("%s-%s", what, pkey(r->c, player));
	year_sync_turn_events(r);
	r->io->checkpoint(r->io->ctx, name);
	r->st->resolutions++;
	free(name);
}

/* The LOSSES FIRST standing orders, for the rules' generic losses. */
void year_load_loss_preferences(struct year_run *r)
{
	struct campaign *c = r->c;
	for (size_t p = 0; p < c->player_count; p++) {
		struct player *pl = &c->players[p];
		free(pl->loss_first);
		pl->loss_first = NULL;
		pl->loss_first_count = 0;
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		year_load_orders(r, (int)p, &set);
		const struct order *o = year_find_kind(&set, ORDER_LOSSES_FIRST);
		if (o && o->item_count) {
			pl->loss_first = xcalloc(o->item_count, sizeof *pl->loss_first);
			for (size_t i = 0; i < o->item_count; i++)
				pl->loss_first[pl->loss_first_count++] = o->items[i].type;
		}
		orders_set_free(&set);
	}
}

/* Has `player` a pending order of `kind` (about `target` if not NO_INDEX)? */
static const struct order *pending_order(const struct order_set *set, enum order_kind kind,
					 int target)
{
	for (size_t i = set->count; i-- > 0;) {
		const struct order *o = &set->orders[i];
		if (o->status == ORDER_OK && o->kind == kind &&
		    (target == NO_INDEX || o->target == target))
			return o;
	}
	return NULL;
}

static bool has_contingents_out(const struct campaign *c, int player)
{
	for (size_t k = 0; k < c->contingent_count; k++)
		if (c->contingents[k].owner == player && !c->contingents[k].returning)
			return true;
	return false;
}

/* A two-sided order `word` (`kind` about `own_target`) that player `p`
 * gave towards `other`: if `other` is no longer in the campaign, p's order
 * is refused and dropped (PAIR_GONE); otherwise whether `other` has the
 * answering order `answer` about p pending. */
enum pair_state { PAIR_GONE, PAIR_WAITING, PAIR_ANSWERED };

static enum pair_state pair_answer(struct year_run *r, int p, const char *word,
				   enum order_kind kind, int own_target, int other,
				   enum order_kind answer)
{
	if (!active(r->c, other)) {
		year_refused(r, p, word, "that player is no longer in the campaign");
		drop_orders(r, p, kind, own_target);
		return PAIR_GONE;
	}
	struct order_set set;
	year_load_orders(r, other, &set);
	bool answered = pending_order(&set, answer, p) != NULL;
	orders_set_free(&set);
	return answered ? PAIR_ANSWERED : PAIR_WAITING;
}

/* Alliances at a step boundary (rules 1.4 Move, 2.3): an ALLY WITH
 * answered by the other's ALLY WITH makes the alliance; END ALLIANCE WITH
 * ends it. Both are then dropped. Returns true if anything was done. */
static bool alliances_between_steps(struct year_run *r)
{
	struct campaign *c = r->c;
	bool done = false;
	struct rules_reason why;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		year_load_orders(r, (int)p, &set);
		int ends[64], asks[64];
		size_t n_end = 0, n_ask = 0;
		for (size_t i = 0; i < set.count; i++) {
			const struct order *o = &set.orders[i];
			if (o->kind == ORDER_END_ALLIANCE && n_end < 64)
				ends[n_end++] = o->status == ORDER_OK ? o->target : NO_INDEX;
			else if (o->kind == ORDER_ALLY_WITH && o->status == ORDER_OK && n_ask < 64)
				asks[n_ask++] = o->target;
		}
		orders_set_free(&set);
		for (size_t i = 0; i < n_end; i++) {
			int t = ends[i];
			if (t >= 0 && rules_alliance_index(c, (int)p, t) >= 0) {
				checkpoint_named(r, "alliance-end", (int)p);
				rules_alliance_end(c, (int)p, t, (int)p, "declared", r->log, &why);
			}
			done = true;
		}
		if (n_end)
			drop_orders(r, (int)p, ORDER_END_ALLIANCE, NO_INDEX);
		for (size_t i = 0; i < n_ask; i++) {
			int t = asks[i];
			enum pair_state s = pair_answer(r, (int)p, "ALLY WITH", ORDER_ALLY_WITH, t, t,
							ORDER_ALLY_WITH);
			if (s == PAIR_GONE)
				done = true;
			if (s != PAIR_ANSWERED)
				continue;
			checkpoint_named(r, "alliance", (int)p);
			if (rules_alliance_make(c, (int)p, t, r->log, &why) != RULES_OK) {
				year_refused(r, (int)p, "ALLY WITH", why.text);
				year_refused(r, t, "ALLY WITH", why.text);
			}
			drop_orders(r, (int)p, ORDER_ALLY_WITH, t);
			drop_orders(r, t, ORDER_ALLY_WITH, (int)p);
			done = true;
		}
	}
	return done;
}

/* At a step boundary (a turn, the recruitment or the vote waiting, never a
 * decision or a battle): LEAVE CAMPAIGN without replacement, RECALL
 * CONTINGENTS, and tributary requests that have been accepted. Returns true
 * if anything was done. */
bool year_between_steps(struct year_run *r)
{
	struct campaign *c = r->c;
	bool done = false;
	struct rules_reason why;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		year_load_orders(r, (int)p, &set);
		const struct order *leave = pending_order(&set, ORDER_LEAVE, NO_INDEX);
		bool leaves = leave && leave->confirmed && !leave->arg;
		bool recall = pending_order(&set, ORDER_RECALL_CONTINGENTS, NO_INDEX) != NULL;
		/* 3.1: a general retrieved in the campaign phase comes at once, for
		 * troops of equal value sent to the reserve (not a recruit) */
		int generals[MAX_GENERALS * 4];
		size_t n_generals = 0;
		for (size_t i = 0; c->phase == PHASE_CAMPAIGN && i < set.count &&
				   n_generals < sizeof generals / sizeof *generals; i++)
			if (set.orders[i].kind == ORDER_RETRIEVE_GENERAL &&
			    set.orders[i].status == ORDER_OK)
				generals[n_generals++] = set.orders[i].type;
		orders_set_free(&set);
		if (n_generals && !leaves) {
			checkpoint_named(r, "general", (int)p);
			for (size_t i = 0; i < n_generals; i++)
				if (rules_retrieve_general(c, (int)p, generals[i], NULL, r->log, &why) !=
				    RULES_OK)
					year_refused(r, (int)p, "RETRIEVE GENERAL", why.text);
			drop_orders(r, (int)p, ORDER_RETRIEVE_GENERAL, NO_INDEX);
			done = true;
		}
		if (leaves) {
			checkpoint_named(r, "leave", (int)p);
			if (rules_player_leaves(c, (int)p, false, r->log, &why) != RULES_OK)
				year_refused(r, (int)p, "LEAVE CAMPAIGN", why.text);
			drop_orders(r, (int)p, ORDER_LEAVE, NO_INDEX);
			drop_orders(r, (int)p, ORDER_RECALL_CONTINGENTS, NO_INDEX);
			done = true;
			continue;
		}
		if (recall) {
			if (has_contingents_out(c, (int)p)) {
				checkpoint_named(r, "recall", (int)p);
				rules_contingent_recall_all(c, (int)p, r->dice, r->log);
			} else {
				year_refused(r, (int)p, "RECALL CONTINGENTS", "you have no contingent out");
			}
			drop_orders(r, (int)p, ORDER_RECALL_CONTINGENTS, NO_INDEX);
			done = true;
		}
	}
	for (size_t t = 0; t < c->player_count; t++) {
		if (!active(c, (int)t))
			continue;
		struct order_set set;
		year_load_orders(r, (int)t, &set);
		const struct order *ask = pending_order(&set, ORDER_TRIBUTARY_OF, NO_INDEX);
		int overlord = ask ? ask->target : NO_INDEX;
		orders_set_free(&set);
		if (overlord < 0)
			continue;
		enum pair_state s = pair_answer(r, (int)t, "TRIBUTARY OF", ORDER_TRIBUTARY_OF,
						NO_INDEX, overlord, ORDER_ACCEPT_TRIBUTARY);
		if (s == PAIR_GONE)
			done = true;
		if (s != PAIR_ANSWERED)
			continue;
		checkpoint_named(r, "tributary", (int)t);
		if (rules_tributary_request(c, (int)t, overlord, true, r->log, &why) != RULES_OK) {
			year_refused(r, (int)t, "TRIBUTARY OF", why.text);
			year_refused(r, overlord, "ACCEPT TRIBUTARY", why.text);
		}
		drop_orders(r, (int)t, ORDER_TRIBUTARY_OF, NO_INDEX);
		drop_orders(r, overlord, ORDER_ACCEPT_TRIBUTARY, (int)t);
		done = true;
	}
	done |= alliances_between_steps(r);
	return done;
}

/* End of the recruitment phase: every RENOUNCE (by either side). */
void year_apply_renounces(struct year_run *r)
{
	struct campaign *c = r->c;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		struct order_set set;
		year_load_orders(r, (int)p, &set);
		int targets[64];
		size_t n = 0;
		for (size_t i = 0; i < set.count && n < 64; i++)
			if (set.orders[i].status == ORDER_OK && set.orders[i].kind == ORDER_RENOUNCE)
				targets[n++] = set.orders[i].target;
		orders_set_free(&set);
		for (size_t i = 0; i < n; i++) {
			int other = targets[i];
			int tributary = NO_INDEX;
			if (other >= 0 && (size_t)other < c->player_count) {
				if (c->players[p].overlord == other)
					tributary = (int)p;
				else if (c->players[other].overlord == (int)p)
					tributary = other;
			}
			struct rules_reason why;
			if (tributary == NO_INDEX)
				year_refused(r, (int)p, "RENOUNCE",
					     "that player is neither your overlord nor your tributary now");
			else if (rules_tributary_renounce(c, tributary, r->log, &why) != RULES_OK)
				year_refused(r, (int)p, "RENOUNCE", why.text);
		}
		if (n)
			drop_orders(r, (int)p, ORDER_RENOUNCE, NO_INDEX);
	}
}

/* Mails everyone about the relations changed since the last call:
 * tributaries made, renounced or freed, players out or gone. The player
 * concerned is told too, even when no longer active. */
void year_tell_relations(struct year_run *r)
{
	struct campaign *c = r->c;
	for (size_t i = r->told_mark; i < r->log->count; i++) {
		const json_t *ev = r->log->events[i];
		const char *kind = jstr(ev, "kind");
		if (!kind)
			continue;
		bool tributary = strcmp(kind, "tributary") == 0 &&
				 json_is_true(json_object_get(ev, "accepted"));
		bool renounced = strcmp(kind, "tributary_renounced") == 0;
		bool freed = strcmp(kind, "tributary_freed") == 0;
		bool out = strcmp(kind, "player_out") == 0;
		bool left = strcmp(kind, "player_left") == 0;
		bool allied = strcmp(kind, "alliance") == 0;
		bool unallied = strcmp(kind, "alliance_ended") == 0;
		if (!tributary && !renounced && !freed && !out && !left && !allied && !unallied)
			continue;
		json_t *one = json_array();
		json_array_append(one, (json_t *)ev);
		json_t *decorated = year_events_for_mail(c, one);
		json_decref(one);
		json_t *d = json_deep_copy(json_array_get(decorated, 0));
		json_decref(decorated);
		if (unallied)
			json_object_set_new(d, "how_invaded",
					    json_boolean(strcmp(jstr(ev, "how") ? jstr(ev, "how") : "",
								"invaded") == 0));
		json_object_set_new(d, "positions", year_positions_json(c));
		json_object_set_new(d, "show_positions", json_true());
		if (left) {
			struct strbuf list = {0};
			size_t k;
			json_t *v;
			json_array_foreach(json_object_get(ev, "provinces_neutral"), k, v)
				strbuf_printf(&list, "%s%s", k ? ", " : "", json_string_value(v));
			if (list.len)
				json_object_set_new(d, "neutral_list", json_string(list.data));
			strbuf_free(&list);
		}
		int who = find_player(c, jstr(ev, out || left ? "player" : "tributary"));
		int lord = find_player(c, jstr(ev, "overlord"));
		char subject[512];
		int year = jint(ev, "year", c->year); /* the subject's year */
		if (allied || unallied)
			snprintf(subject, sizeof subject, allied ? "%s and %s are allies"
								: "The alliance of %s and %s has ended",
				 pnation(c, find_player(c, jstr(ev, "player"))),
				 pnation(c, find_player(c, jstr(ev, "ally"))));
		else if (tributary)
			snprintf(subject, sizeof subject, "%s becomes the tributary of %s",
				 pnation(c, who), pnation(c, lord));
		else if (renounced || freed)
			snprintf(subject, sizeof subject, "%s is no longer the tributary of %s",
				 pnation(c, who), pnation(c, lord));
		else if (out)
			snprintf(subject, sizeof subject, "%s is out of the campaign",
				 pnation(c, who));
		else
			snprintf(subject, sizeof subject, "%s has left the campaign",
				 pnation(c, who));
		if ((out || left) && who >= 0) {
			json_t *own = json_deep_copy(d);
			json_object_set_new(own, "is_you", json_true());
			year_mail(r, "relations", who, false, own, "%s", subject);
			json_object_set_new(json_array_get(r->mails, json_array_size(r->mails) - 1),
					    "year", json_integer(year));
		}
		year_mail(r, "relations", NO_INDEX, true, d, "%s", subject);
		json_object_set_new(json_array_get(r->mails, json_array_size(r->mails) - 1), "year",
				    json_integer(year));
	}
	r->told_mark = r->log->count;
}

/* ALLY WITH is mailed to the player asked (unless he asked first: then
 * both have declared, and year_relations_settled says what came of it). */
static void alliance_request(struct year_run *r, int player, const struct order *o,
			     struct strbuf *note)
{
	struct campaign *c = r->c;
	struct order_set set;
	year_load_orders(r, o->target, &set);
	bool answered = pending_order(&set, ORDER_ALLY_WITH, player) != NULL;
	orders_set_free(&set);
	if (answered)
		return;
	json_t *d = year_deadline_data(r);
	json_object_update_new(d, json_pack("{s:b, s:s, s:s}", "k_alliance_request", 1, "asker",
					pkey(c, player), "asker_nation", pnation(c, player)));
	year_mail(r, "relations", o->target, false, d, "%s proposes an alliance",
		  pnation(c, player));
	strbuf_printf(note, "Your proposal was sent to %s: you become allies when it answers "
			    "ALLY WITH %s (at the next step between turns). ",
		      pnation(c, o->target), pkey(c, player));
}

char *year_relations_settled(struct year_run *r, int player, const struct order_set *set)
{
	struct campaign *c = r->c;
	struct strbuf note = {0};
	if (!active(c, player))
		return NULL;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		int t = o->target;
		if (o->status != ORDER_OK || t < 0 || (size_t)t >= c->player_count)
			continue;
		bool allied = rules_alliance_index(c, player, t) >= 0;
		if (o->kind == ORDER_ALLY_WITH) {
			if (allied) {
				strbuf_printf(&note, "%s had declared ALLY WITH %s too: the alliance "
						     "is made, as told below. ",
					      pnation(c, t), pkey(c, player));
				continue;
			}
			struct order_set other;
			year_load_orders(r, t, &other);
			if (pending_order(&other, ORDER_ALLY_WITH, player))
				strbuf_printf(&note, "%s has declared ALLY WITH %s too: the "
						     "alliance is made at the next step between "
						     "turns, and everyone is told. ",
					      pnation(c, t), pkey(c, player));
			orders_set_free(&other);
		} else if (o->kind == ORDER_END_ALLIANCE) {
			if (allied)
				strbuf_printf(&note, "Your alliance with %s ends at the next step "
						     "between turns; everyone is told. ",
					      pnation(c, t));
			else
				strbuf_printf(&note, "Your alliance with %s has ended, as told "
						     "below. ", pnation(c, t));
		} else if (o->kind == ORDER_ACCEPT_TRIBUTARY) {
			if (c->players[t].overlord == player)
				strbuf_printf(&note, "%s is now your tributary, as told below. ",
					      pnation(c, t));
			else
				strbuf_printf(&note, "%s becomes your tributary at the next step "
						     "between turns, once it has asked with TRIBUTARY "
						     "OF %s. ",
					      pnation(c, t), pkey(c, player));
		}
	}
	if (!note.len) {
		strbuf_free(&note);
		return NULL;
	}
	char *text = strbuf_take(&note);
	str_trim(text);
	return text;
}

char *year_orders_received(struct year_run *r, int player, const struct order_set *set)
{
	struct campaign *c = r->c;
	struct strbuf note = {0};
	if (!active(c, player))
		return NULL;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK)
			continue;
		switch (o->kind) {
		case ORDER_TRIBUTARY_OF: {
			json_t *d = year_deadline_data(r);
			json_object_update_new(d, json_pack("{s:b, s:s, s:s}", "k_request", 1,
							"tributary", pkey(c, player),
							"tributary_nation", pnation(c, player)));
			year_mail(r, "relations", o->target, false, d, "%s asks to become your tributary",
				  pnation(c, player));
			strbuf_printf(&note, "Your request was sent to %s: you become its tributary "
					     "when it answers ACCEPT TRIBUTARY %s (at the next step "
					     "between turns). ",
				      pnation(c, o->target), pkey(c, player));
			break;
		}
		case ORDER_ALLY_WITH:
			alliance_request(r, player, o, &note);
			break;
		case ORDER_CONTINGENT_FROM:
			year_tributary_order_received(r, player, o);
			break;
		case ORDER_NO_CONTINGENT_FROM:
			year_tributary_order_withdrawn(r, player, o);
			break;
		case ORDER_RENOUNCE:
			strbuf_printf(&note, "RENOUNCE %s takes effect at the end of %s recruitment "
					     "phase (rules 3.2). ",
				      pkey(c, o->target),
				      c->phase == PHASE_RECRUITMENT ? "this" : "this year's");
			break;
		case ORDER_RECALL_CONTINGENTS:
			strbuf_puts(&note, "Your contingents are recalled at the next step between "
					   "turns (not during a battle or a decision). ");
			break;
		case ORDER_LEAVE:
			if (!o->confirmed)
				break;
			if (o->arg) {
				event_emit(r->log, "leave_requested", RULE_LEAVING, "{s:s, s:s}",
					   "player", pkey(c, player), "replacement", o->arg);
				json_t *d = json_pack("{s:b, s:s, s:s, s:s}", "k_leave_request", 1,
						      "leaver", pkey(c, player), "leaver_nation",
						      pnation(c, player), "replacement", o->arg);
				char *subject = xasprintf("%s asks to be replaced",
							  pnation(c, player));
				year_mail_organiser(r, "relations", d, subject);
				free(subject);
				drop_orders(r, player, ORDER_LEAVE, NO_INDEX);
				strbuf_printf(&note, "The organiser was asked to hand %s to %s; until "
						     "then you play on. ",
					      pnation(c, player), o->arg);
			} else {
				strbuf_puts(&note, "You leave the campaign at the next step between "
						   "turns: your provinces become neutral and your "
						   "prestige is lost. ");
			}
			break;
		default:
			break;
		}
	}
	year_tell_relations(r);
	if (!note.len) {
		strbuf_free(&note);
		return NULL;
	}
	char *text = strbuf_take(&note);
	str_trim(text);
	return text;
}
