/* Sets of orders: building, copying, freeing (secrets wiped), masking
 * secrets; which kinds are kept between mails; merging a new mail into the
 * pending orders (resubmission); the lines in error named for a sentence. */
#include "config.h"

#include "dbm/orders_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

/* --------------------------------------------------------------- sets */

void orders_set_init(struct order_set *set)
{
	memset(set, 0, sizeof *set);
	set->player = -1;
}

static void order_init(struct order *o)
{
	memset(o, 0, sizeof *o);
	o->province = o->target = o->retreat_to = o->type = o->battle = -1;
	o->for_player = -1;
}

struct order *orders_set_add(struct order_set *set)
{
	grow_array((void **)&set->orders, &set->cap, set->count + 1, sizeof *set->orders);
	struct order *o = &set->orders[set->count++];
	order_init(o);
	return o;
}

static void free_secret(char *s)
{
	if (!s)
		return;
	sodium_memzero(s, strlen(s));
	free(s);
}

void order_free(struct order *o)
{
	free(o->text);
	free(o->understood);
	free(o->error);
	free(o->guess);
	free(o->items);
	free(o->via);
	free(o->arg);
	free_secret(o->secret);
	free(o->route);
	free(o->hostile);
	order_init(o);
}

void orders_set_free(struct order_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		order_free(&set->orders[i]);
	free(set->orders);
	free_secret(set->password);
	orders_set_init(set);
}

static void *dup_array(const void *src, size_t n, size_t size)
{
	if (!src || n == 0)
		return NULL;
	void *p = xmalloc(n * size);
	memcpy(p, src, n * size);
	return p;
}

static char *dup_opt(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void order_copy(struct order *dst, const struct order *src)
{
	*dst = *src;
	dst->text = dup_opt(src->text);
	dst->understood = dup_opt(src->understood);
	dst->error = dup_opt(src->error);
	dst->guess = dup_opt(src->guess);
	dst->items = dup_array(src->items, src->item_count, sizeof *src->items);
	dst->via = dup_array(src->via, src->via_count, sizeof *src->via);
	dst->arg = dup_opt(src->arg);
	dst->secret = dup_opt(src->secret);
	dst->route = dup_array(src->route, src->route_len, sizeof *src->route);
	dst->hostile = dup_array(src->hostile, src->hostile_count, sizeof *src->hostile);
}

/* Replaces every occurrence of `secret` in *s by the mask. */
static void mask_in(char **s, const char *secret)
{
	if (!*s || !secret || strlen(secret) < 4 || !strstr(*s, secret))
		return;
	struct strbuf sb = {0};
	const char *at = *s, *hit;
	size_t len = strlen(secret);
	strbuf_puts(&sb, "");
	while ((hit = strstr(at, secret))) {
		strbuf_append(&sb, at, (size_t)(hit - at));
		strbuf_puts(&sb, MASK);
		at = hit + len;
	}
	strbuf_puts(&sb, at);
	sodium_memzero(*s, strlen(*s));
	free(*s);
	*s = strbuf_take(&sb);
}

void orders_mask_everywhere(struct order_set *set, const char *secret)
{
	for (size_t i = 0; i < set->count; i++) {
		struct order *o = &set->orders[i];
		mask_in(&o->text, secret);
		mask_in(&o->understood, secret);
		mask_in(&o->error, secret);
		mask_in(&o->guess, secret);
		mask_in(&o->arg, secret);
	}
}

/* ------------------------------------------------------------- kinds */

bool orders_kind_is_movement(enum order_kind k)
{
	return k == ORDER_INVADE || k == ORDER_MOVE || k == ORDER_SEND_CONTINGENT ||
	       k == ORDER_NO_MOVE || k == ORDER_SALLY || k == ORDER_ASK_ALLIES ||
	       k == ORDER_CALL_OFF;
}

bool orders_kind_is_recruitment(enum order_kind k)
{
	return k == ORDER_RECRUIT || k == ORDER_DISMISS || k == ORDER_RETRIEVE_GENERAL ||
	       k == ORDER_EXCHANGE;
}

bool order_kind_is_kept(enum order_kind k)
{
	return k >= ORDER_INVADE && k <= ORDER_LEAVE;
}

/* --------------------------------------------------------------- merge */

const char *orders_resubmission_rule(void)
{
	return "Each mail changes only what it names. A movement order (INVADE, MOVE, SEND "
	       "CONTINGENT, NO MOVE) replaces your earlier one; recruitment lines (RECRUIT, "
	       "DISMISS, RETRIEVE GENERAL) replace your earlier recruitment as a whole; any "
	       "other order replaces the one of the same kind for the same province or player; "
	       "NO CONTINGENT FROM withdraws your CONTINGENT FROM that tributary. "
	       "A line in error changes nothing. CLEAR first drops all your pending orders.";
}

/* Standing orders replace the pending one with the same key. */
static bool same_slot(const struct order *a, const struct order *b)
{
	enum order_kind ka = a->kind, kb = b->kind;
	bool passage_a = ka == ORDER_ALLOW_PASSAGE || ka == ORDER_DENY_PASSAGE;
	bool passage_b = kb == ORDER_ALLOW_PASSAGE || kb == ORDER_DENY_PASSAGE;
	bool supply_a = ka == ORDER_ALLOW_SUPPLY || ka == ORDER_DENY_SUPPLY;
	bool supply_b = kb == ORDER_ALLOW_SUPPLY || kb == ORDER_DENY_SUPPLY;
	if ((passage_a && passage_b) || (supply_a && supply_b))
		return b->target == ORDERS_ANY || a->target == b->target;
	if (ka != kb)
		return false;
	switch (ka) {
	case ORDER_IF_INVADED:
		return a->province == b->province;
	case ORDER_CONTINGENT_FROM:
		return a->target == b->target && a->for_player == b->for_player;
	case ORDER_CONTINGENT_FOR:
	case ORDER_ACCEPT_TRIBUTARY:
	case ORDER_RENOUNCE:
	case ORDER_ALLY_WITH:
	case ORDER_END_ALLIANCE:
		return a->target == b->target;
	default:
		return true;
	}
}

static void remove_where(struct order_set *set, bool (*pred)(const struct order *, const void *),
			 const void *arg)
{
	size_t w = 0;
	for (size_t i = 0; i < set->count; i++) {
		if (pred(&set->orders[i], arg))
			order_free(&set->orders[i]);
		else
			set->orders[w++] = set->orders[i];
	}
	set->count = w;
}

static bool pred_movement(const struct order *o, const void *arg)
{
	(void)arg;
	return orders_kind_is_movement(o->kind);
}

static bool pred_recruitment(const struct order *o, const void *arg)
{
	(void)arg;
	return orders_kind_is_recruitment(o->kind);
}

static bool pred_same_slot(const struct order *o, const void *arg)
{
	return same_slot(o, arg);
}

/* NO CONTINGENT FROM: every standing CONTINGENT FROM that tributary (for
 * the player or, a substitute, for his overlord). */
static bool pred_contingent_from(const struct order *o, const void *arg)
{
	const struct order *no = arg;
	return o->kind == ORDER_CONTINGENT_FROM && o->target == no->target;
}

/* Where an order goes in the current orders: by kind, ALLOW and DENY of
 * the same permission together. */
static int kind_rank(enum order_kind k)
{
	/* four ranks a kind, so that a kind can come just before another */
	if (k == ORDER_DENY_PASSAGE)
		return 4 * ORDER_ALLOW_PASSAGE;
	if (k == ORDER_DENY_SUPPLY)
		return 4 * ORDER_ALLOW_SUPPLY;
	/* the recruitment in the order it is carried out (rules 3.1,
	 * rules_recruit_orders): DISMISS, EXCHANGE, then RECRUIT and RETRIEVE
	 * GENERAL */
	if (k == ORDER_DISMISS)
		return 4 * ORDER_RECRUIT - 2;
	if (k == ORDER_EXCHANGE)
		return 4 * ORDER_RECRUIT - 1;
	return 4 * (int)k;
}

static void append_copy(struct order_set *set, const struct order *src)
{
	struct order *o = orders_set_add(set);
	order_copy(o, src);
	free(o->error);
	free(o->guess);
	o->error = o->guess = NULL;
}

void orders_merge(const struct order_set *pending, const struct order_set *incoming,
		  struct order_set *result)
{
	orders_set_init(result);
	result->player = incoming->player >= 0 ? incoming->player : pending->player;
	if (!incoming->cleared)
		for (size_t i = 0; i < pending->count; i++)
			if (pending->orders[i].status == ORDER_OK &&
			    order_kind_is_kept(pending->orders[i].kind))
				append_copy(result, &pending->orders[i]);
	const struct order *movement = NULL;
	bool recruitment = false;
	for (size_t i = 0; i < incoming->count; i++) {
		const struct order *o = &incoming->orders[i];
		if (o->status == ORDER_OK && o->kind == ORDER_NO_CONTINGENT_FROM) {
			remove_where(result, pred_contingent_from, o);
			continue;
		}
		if (o->status != ORDER_OK || !order_kind_is_kept(o->kind))
			continue;
		if (orders_kind_is_movement(o->kind)) {
			if (movement && !(movement->kind == ORDER_SEND_CONTINGENT &&
					  o->kind == ORDER_SEND_CONTINGENT))
				continue; /* a second option: validation refused it */
			if (!movement)
				remove_where(result, pred_movement, NULL);
			movement = o;
			append_copy(result, o);
		} else if (orders_kind_is_recruitment(o->kind)) {
			if (!recruitment)
				remove_where(result, pred_recruitment, NULL);
			recruitment = true;
			bool added = false;
			for (size_t j = 0; j < result->count && o->kind != ORDER_RETRIEVE_GENERAL; j++) {
				struct order *r = &result->orders[j];
				if (r->kind == o->kind && r->type == o->type) {
					r->count += o->count;
					free(r->understood);
					r->understood = NULL;
					added = true;
					break;
				}
			}
			if (!added)
				append_copy(result, o);
		} else {
			remove_where(result, pred_same_slot, o);
			append_copy(result, o);
		}
	}
	for (size_t i = 0; i < result->count; i++) {
		struct order *o = &result->orders[i];
		free(o->text);
		o->text = NULL;
		o->line = 0;
	}
	/* a stable sort, so the current orders read in the same order every time */
	for (size_t i = 1; i < result->count; i++) {
		struct order tmp = result->orders[i];
		size_t j = i;
		for (; j > 0 && kind_rank(result->orders[j - 1].kind) > kind_rank(tmp.kind); j--)
			result->orders[j] = result->orders[j - 1];
		result->orders[j] = tmp;
	}
}

/* ------------------------------------------------------------ in words */

/* The mail's lines in error named by number, for a sentence: "line 6",
 * "lines 3 and 6", "lines 2, 3, 5, 8, 9 and 4 more"; *count gets how many.
 * NULL when there is none. Caller frees. */
#define LINES_NAMED 5
char *orders_error_lines_text(const struct order_set *set, size_t *count)
{
	size_t n = 0;
	for (size_t i = 0; i < set->count; i++)
		n += set->orders[i].status == ORDER_ERROR;
	if (count)
		*count = n;
	if (!n)
		return NULL;
	struct strbuf sb = {0};
	strbuf_puts(&sb, n == 1 ? "line " : "lines ");
	size_t named = 0, shown = n > LINES_NAMED ? LINES_NAMED : n;
	for (size_t i = 0; i < set->count && named < shown; i++) {
		if (set->orders[i].status != ORDER_ERROR)
			continue;
		named++;
		const char *sep = named == 1 ? "" : named == n ? " and " : ", ";
		strbuf_printf(&sb, "%s%d", sep, set->orders[i].line);
	}
	if (n > shown)
		strbuf_printf(&sb, " and %zu more", n - shown);
	return strbuf_take(&sb);
}
