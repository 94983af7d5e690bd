/* The acknowledgement's data: the mail's lines (cut to a size) and the
 * orders that stand. */
#include "config.h"

#include <string.h>

#include "engine/engine_p.h"
#include "dbm/orders.h"
#include "base/util.h"

/* A reply lists the mail's lines one by one: at most ENGINE_ACK_MAX_LINES
 * of them, each sender's text an excerpt; the rest is only counted
 * ("lines_not_shown": how many were understood, in error or ignored), so a
 * mail of 250,000 lines gives a short reply and no JSON for its tail. What
 * will be applied is still shown in full (the current orders). */
json_t *engine_ack_json(const struct order_set *set, const struct order_set *current,
			const struct campaign *c, int player)
{
	struct order_set shown = *set;
	if (shown.count > ENGINE_ACK_MAX_LINES)
		shown.count = ENGINE_ACK_MAX_LINES;
	json_t *ack = orders_ack_json(&shown, current, c, player);
	json_t *lines = json_object_get(ack, "lines");
	for (size_t i = 0; i < json_array_size(lines); i++) {
		json_t *line = json_array_get(lines, i);
		const char *text = json_string_value(json_object_get(line, "text"));
		if (text && strlen(text) > ENGINE_EXCERPT_LINE) {
			char *cut = engine_excerpt(text, ENGINE_EXCERPT_LINE);
			json_object_set_new(line, "text", json_string(cut));
			free(cut);
		}
	}
	if (set->count > shown.count) {
		json_int_t ok = 0, errors = 0, ignored = 0;
		for (size_t i = shown.count; i < set->count; i++) {
			enum order_status st = set->orders[i].status;
			ok += st == ORDER_OK;
			errors += st == ORDER_ERROR;
			ignored += st == ORDER_IGNORED;
		}
		json_object_set_new(ack, "lines_not_shown",
				    json_pack("{s:I, s:s, s:I, s:I, s:I}", "count",
					      (json_int_t)(set->count - shown.count), "count_s",
					      plural_s((long long)(set->count - shown.count)),
					      "understood", ok, "in_error", errors, "ignored", ignored));
	}
	return ack;
}

/* The movement order a turn carried out is kept (an undo may take the turn
 * back) but is no current order: the reply shows what stands for the next
 * time. */
void engine_drop_movement(struct order_set *merged, const struct campaign *c, char **text)
{
	size_t w = 0;
	for (size_t i = 0; i < merged->count; i++) {
		enum order_kind k = merged->orders[i].kind;
		if (k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT ||
		    k == ORDER_NO_MOVE)
			order_free(&merged->orders[i]);
		else
			merged->orders[w++] = merged->orders[i];
	}
	merged->count = w;
	free(*text);
	*text = orders_format_pending(merged, c);
}

/* The lines of a movement order the mail's own turn carried out: the plan
 * (stages, the cost foreseen) is past; what came of it (storms, forced
 * passage, supply, the battle, or why it could not be done) is in the
 * year's mail on the turn, so the line says that instead of the estimate. */
void engine_ack_moves_done(json_t *ack, const struct order_set *set)
{
	json_t *lines = json_object_get(ack, "lines");
	for (size_t i = 0; i < set->count && i < json_array_size(lines); i++) {
		const struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || (o->kind != ORDER_INVADE && o->kind != ORDER_MOVE &&
					      o->kind != ORDER_SEND_CONTINGENT))
			continue;
		json_t *line = json_array_get(lines, i);
		/* "below" when the reply goes with that mail (engine_told.c) */
		char *text = engine_move_done_text(NULL);
		json_t *done = json_pack("[s]", text);
		free(text);
		json_object_set_new(line, "move_done", json_true());
		/* what the move did besides, the recall of contingents,
		 * stays said (the line's "recall" note, orders_ack_json) */
		json_t *recall = json_object_get(line, "recall");
		if (json_is_string(recall))
			json_array_append(done, recall);
		json_object_set_new(line, "has_costs", json_true());
		json_object_set_new(line, "costs", done);
	}
}

void engine_ack_not_used(json_t *ack, const struct order_set *set, const bool *unused)
{
	json_t *lines = json_object_get(ack, "lines");
	for (size_t i = 0; unused && i < set->count && i < json_array_size(lines); i++) {
		if (!unused[i])
			continue;
		json_t *line = json_array_get(lines, i);
		json_object_set_new(line, "is_error", json_false());
		json_object_set_new(line, "not_used", json_true());
	}
}

void engine_drop_no_move(struct order_set *merged)
{
	size_t w = 0;
	for (size_t i = 0; i < merged->count; i++) {
		if (merged->orders[i].kind == ORDER_NO_MOVE)
			order_free(&merged->orders[i]);
		else
			merged->orders[w++] = merged->orders[i];
	}
	merged->count = w;
}

/* The orders of one class (recruitment: replaced as a whole; movement:
 * one order replaces the other) that the mail replaced: those of pending
 * the orders now standing (merged) no longer hold, named under `key` as
 * "This replaces your earlier WHAT: ... no longer ordered.", so that
 * nothing is dropped silently. Only when the mail has an accepted order of
 * that class and no CLEAR. */
static void note_replaced(json_t *ack, const struct order_set *pending,
			  const struct order_set *set, const struct order_set *merged,
			  const struct campaign *c, int player, bool (*in_class)(enum order_kind),
			  const char *what, const char *key)
{
	bool replaces = false;
	for (size_t i = 0; i < set->count && !replaces; i++)
		replaces = set->orders[i].status == ORDER_OK && in_class(set->orders[i].kind);
	if (!replaces || set->cleared)
		return;
	struct strbuf sb = {0};
	size_t gone = 0, shown = 0;
	char *last = NULL;
	for (size_t i = 0; i < pending->count; i++) {
		const struct order *o = &pending->orders[i];
		if (o->status != ORDER_OK || !in_class(o->kind))
			continue;
		char *was = orders_format_one(o, c, player);
		bool stands = false;
		for (size_t j = 0; was && j < merged->count && !stands; j++) {
			if (!in_class(merged->orders[j].kind))
				continue;
			char *now = orders_format_one(&merged->orders[j], c, player);
			stands = now && strcmp(now, was) == 0;
			free(now);
		}
		if (!was || stands) {
			free(was);
			continue;
		}
		gone++;
		if (shown >= ENGINE_ACK_MAX_LINES) {
			free(was);
			continue;
		}
		if (last)
			strbuf_printf(&sb, "%s%s", shown > 1 ? ", " : "", last);
		free(last);
		last = was;
		shown++;
	}
	if (gone) {
		struct strbuf note = {0};
		strbuf_printf(&note, "This replaces your earlier %s: %s%s%s", what,
			      sb.data ? sb.data : "", shown > 1 ? " and " : "", last);
		if (gone > shown)
			strbuf_printf(&note, " (and %zu more)", gone - shown);
		strbuf_printf(&note, " %s no longer ordered.", gone > 1 ? "are" : "is");
		json_object_set_new(ack, key, json_string(note.data));
		strbuf_free(&note);
	}
	free(last);
	strbuf_free(&sb);
}

void engine_ack_replaced(json_t *ack, const struct order_set *pending,
			 const struct order_set *set, const struct order_set *merged,
			 const struct campaign *c, int player)
{
	note_replaced(ack, pending, set, merged, c, player, orders_kind_is_recruitment,
		      "recruitment", "recruitment_replaced");
	note_replaced(ack, pending, set, merged, c, player, orders_kind_is_movement,
		      "movement order", "movement_replaced");
}
