/* The acknowledgement's data: the mail's lines (cut to a size) and the
 * orders that stand; a battle report refused; a mail that only asks. */
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

void engine_ack_lines_as_paid(json_t *ack, const json_t *before, const struct order_set *set,
			      bool movement, bool recruitment)
{
	json_t *lines = json_object_get(ack, "lines");
	const json_t *paid = json_object_get(before, "lines");
	for (size_t i = 0; i < set->count && i < json_array_size(lines) &&
			   i < json_array_size(paid); i++) {
		enum order_kind k = set->orders[i].kind;
		if ((movement && orders_kind_is_movement(k)) ||
		    (recruitment && orders_kind_is_recruitment(k)))
			json_array_set(lines, i, json_array_get(paid, i));
	}
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

static bool is_battle_line(enum order_kind k)
{
	return k >= ORDER_BATTLE_AT && k <= ORDER_BATTLE_GENERAL_KILLED;
}

bool *engine_ack_refused_report(struct order_set *set, bool for_errors)
{
	bool *unused = NULL;
	char *why = NULL;
	if (for_errors && set->errors) {
		char *lines = orders_error_lines_text(set, NULL);
		why = xasprintf("the battle report was refused for %s, in error",
				lines ? lines : "a line");
		free(lines);
		unused = xcalloc(set->count + 1, sizeof *unused);
	}
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		if (o->status != ORDER_OK || !is_battle_line(o->kind))
			continue;
		o->status = ORDER_ERROR;
		free(o->error);
		o->error = xstrdup(unused ? why
					  : "not used: the battle result was refused (why: see above)");
		if (unused)
			unused[i] = true;
		else
			set->errors++;
	}
	free(why);
	return unused;
}

void engine_ack_battle(json_t *ack, const struct order_set *set, bool refused)
{
	bool battle_lines = false, rest = false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		battle_lines |= is_battle_line(o->kind);
		rest |= o->status == ORDER_OK && o->kind != ORDER_PLAYER &&
			o->kind != ORDER_ORGANISER && o->kind != ORDER_END &&
			o->kind != ORDER_NONE && !is_battle_line(o->kind);
	}
	json_object_set_new(ack, "battle_lines", json_boolean(battle_lines));
	json_object_set_new(ack, "battle_rest_taken", json_boolean(refused && rest));
}

bool engine_ack_asked(json_t *ack, const struct order_set *set, const struct campaign *c,
		      int player)
{
	if (!set->wants_status && !set->wants_map && !set->wants_help)
		return false;
	for (size_t i = 0; i < set->count; i++) {
		const struct order *o = &set->orders[i];
		if (o->status == ORDER_IGNORED)
			continue;
		if (o->status != ORDER_OK)
			return false;
		switch (o->kind) {
		case ORDER_PLAYER: case ORDER_STATUS: case ORDER_MAP: case ORDER_HELP:
		case ORDER_END:
			continue;
		default:
			return false;
		}
	}
	const struct player *pl = player >= 0 && (size_t)player < c->player_count
		? &c->players[player] : NULL;
	const char *nation = pl ? (pl->nation ? pl->nation : pl->key) : "your nation";
	const char *what[3];
	char *status = xasprintf("the status of %s (below)", nation);
	size_t n = 0;
	if (set->wants_status)
		what[n++] = status;
	if (set->wants_map)
		what[n++] = "the current map (attached)";
	if (set->wants_help)
		what[n++] = "the orders reference (below)";
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", what[i]);
	json_object_set_new(ack, "only_asks", json_true());
	json_object_set_new(ack, "asked", json_string(sb.data));
	strbuf_free(&sb);
	free(status);
	return true;
}
