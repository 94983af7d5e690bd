/* The recruitment phase, the vote and the year's end; a new year begins. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- recruitment and the year end */

static bool carried(enum order_kind k, enum year_carry how)
{
	if (k == ORDER_RECALL_CONTINGENTS || k == ORDER_LEAVE)
		return how == CARRY_ALL;
	switch (how) {
	case CARRY_ALL:
		return true;
	case CARRY_TO_RECRUITMENT:
		return !year_is_movement(k);
	case CARRY_TO_CAMPAIGN:
		return !year_is_recruitment(k) && k != ORDER_NO_MOVE && k != ORDER_SALLY &&
		       k != ORDER_VOTE;
	}
	return false;
}

static void carry_orders(struct year_run *r, int from_year, int from_phase, enum year_carry how)
{
	for (size_t p = 0; p < r->c->player_count; p++) {
		struct order_set old, kept, now, merged;
		year_load_orders_at(r, (int)p, from_year, from_phase, &old);
		year_load_orders(r, (int)p, &now);
		orders_set_init(&kept);
		kept.player = (int)p;
		for (size_t i = 0; i < old.count; i++) {
			const struct order *o = &old.orders[i];
			if (o->status == ORDER_OK && carried(o->kind, how))
				order_copy(orders_set_add(&kept), o);
			/* an order that no longer reads right on the new map is
			 * not dropped quietly */
			else if (o->status == ORDER_ERROR && order_kind_is_kept(o->kind) &&
				 carried(o->kind, how) && active(r->c, (int)p))
				year_refused_instead(r, (int)p, o->text,
						     o->error ? o->error : "it is not valid now",
						     "it is dropped: send it again if you still mean it");
		}
		orders_merge(&kept, &now, &merged);
		merged.player = (int)p;
		if (merged.count) {
			char *text = orders_format_pending(&merged, r->c);
			r->io->orders_save(r->io->ctx, (int)p, r->c->year, r->c->phase, text);
			free(text);
		}
		orders_set_free(&old);
		orders_set_free(&kept);
		orders_set_free(&now);
		orders_set_free(&merged);
	}
}

/* The list minimums that come first, in words: "your list minimum of
 * Longbowmen (5 short: 35 AP)", "your list minimums of Longbowmen (5
 * short) and Billmen (1 short): 40 AP". Caller frees. */
static char *minimums_words(const struct army_list *l, const int *fill)
{
	struct strbuf sb = {0};
	size_t n = 0, shown = 0;
	int cost = 0;
	char a[16];
	for (size_t i = 0; i < l->count; i++) {
		n += fill[i] > 0;
		cost += fill[i] > 0 ? fill[i] * l->types[i].cost_half_ap : 0;
	}
	strbuf_printf(&sb, "your list minimum%s of ", n == 1 ? "" : "s");
	for (size_t i = 0; i < l->count; i++) {
		if (fill[i] <= 0)
			continue;
		shown++;
		strbuf_printf(&sb, "%s%s (%d short%s", shown == 1 ? "" : shown == n ? " and " : ", ",
			      l->types[i].label, fill[i], n == 1 ? ": " : ")");
		if (n == 1)
			strbuf_printf(&sb, "%s AP)", half_ap_format(cost, a));
	}
	if (n > 1)
		strbuf_printf(&sb, ": %s AP", half_ap_format(cost, a));
	return strbuf_take(&sb);
}

/* Why one more element of type i cannot come on top of `take`, as `limit`
 * (rules_recruit_limit) says: the words after "none: ". */
static char *limit_words(const struct campaign *c, int p, size_t i, const int *take,
			 enum rules_recruit_limit limit, const struct rules_reason *why)
{
	const struct player *pl = &c->players[p];
	const struct element_type *t = &pl->list.types[i];
	int allowance = rules_recruit_allowance(c, p);
	int spent = 0;
	for (size_t k = 0; k < pl->list.count; k++)
		spent += take[k] * pl->list.types[k].cost_half_ap;
	int army = rules_army_half_ap(c, p) + spent;
	int *have = rules_army_counts(c, p);
	int in_army = have[i] + take[i];
	free(have);
	char a[16], b[16], e[16];
	switch (limit) {
	case RECRUIT_LIMIT_ALLOWANCE:
		if (spent == 0)
			return xasprintf("one costs %s AP, more than your allowance of %s AP",
					 half_ap_format(t->cost_half_ap, a),
					 half_ap_format(allowance, b));
		return xasprintf("only %s AP of your allowance of %s AP is left; one costs %s AP",
				 half_ap_format(allowance - spent, a), half_ap_format(allowance, b),
				 half_ap_format(t->cost_half_ap, e));
	case RECRUIT_LIMIT_CEILING:
		return xasprintf("one more would take your army (%s AP) above its ceiling of %s AP",
				 half_ap_format(army, a), half_ap_format(pl->cap_half_ap, b));
	case RECRUIT_LIMIT_LIST_MAX:
		return xasprintf("your army has %d, the most your army list allows", in_army);
	default:
		return xstrdup(why->text);
	}
}

/* One element type of the reserve: how many of it the rules would take
 * now, alone, into "most"; when none, the actual reason ("none_reason"):
 * the allowance, the ceiling, the list maximum, or the list minimums of
 * other troops that come first (and how many could come with them). A
 * type below its own list minimum says so ("min_short"). */
static json_t *recruitable_one(const struct campaign *c, int p, size_t i, int *take,
			       const int *fill)
{
	const struct player *pl = &c->players[p];
	const struct army_list *l = &pl->list;
	const struct element_type *t = &l->types[i];
	int have = pl->reserve.count[i];
	char a[16], b[16];
	int most = 0;
	struct rules_reason why = {{0}};
	for (int n = 1; n <= have; n++) {
		take[i] = n;
		if (rules_recruit_check(c, p, take, NULL) != RULES_OK)
			break;
		most = n;
	}
	json_t *one = json_pack("{s:s, s:s, s:i, s:b, s:b}", "label", t->label, "ap_each",
				half_ap_format(t->cost_half_ap, a), "most", most, "none", most == 0,
				"general", t->general);
	int *army = rules_army_counts(c, p);
	if (fill[i] > 0)
		json_object_set_new(one, "min_short",
				    json_pack("{s:i, s:i, s:i}", "short", t->list_min - army[i],
					      "list_min", t->list_min, "in_army", army[i]));
	free(army);
	if (most > 0) {
		take[i] = 0;
		return one;
	}
	take[i] = 1;
	enum rules_recruit_limit limit = rules_recruit_limit(c, p, take, &why);
	take[i] = 0;
	char *reason = NULL;
	if (limit == RECRUIT_LIMIT_LIST_MIN) {
		/* other troops' minimums first: how many could come with them */
		int *with = xcalloc(l->count + 1, sizeof *with);
		memcpy(with, fill, l->count * sizeof *with);
		char *mins = minimums_words(l, fill);
		enum rules_recruit_limit filled = rules_recruit_limit(c, p, with, &why);
		int after = 0;
		for (int n = 1; filled == RECRUIT_LIMIT_NONE && n <= have; n++) {
			with[i] = fill[i] + n;
			if (rules_recruit_check(c, p, with, NULL) != RULES_OK)
				break;
			after = n;
		}
		with[i] = fill[i];
		if (after > 0) {
			reason = xasprintf("not before %s is filled; with it, up to %d", mins, after);
			json_object_set_new(one, "most_after_minimums", json_integer(after));
		} else if (filled == RECRUIT_LIMIT_ALLOWANCE) {
			reason = xasprintf("none this year: %s comes first, and your allowance of %s "
					   "AP does not pay for all of it",
					   mins, half_ap_format(rules_recruit_allowance(c, p), a));
		} else if (filled == RECRUIT_LIMIT_CEILING) {
			reason = xasprintf("none this year: %s comes first, and your army's ceiling "
					   "of %s AP leaves no room for all of it",
					   mins, half_ap_format(pl->cap_half_ap, b));
		} else if (filled != RECRUIT_LIMIT_NONE) {
			reason = xasprintf("none this year: %s comes first (%s)", mins, why.text);
		} else {
			with[i] = fill[i] + 1;
			filled = rules_recruit_limit(c, p, with, &why);
			with[i] = fill[i];
			char *then = limit_words(c, p, i, with, filled, &why);
			reason = xasprintf("none this year: %s comes first, and after it %s", mins,
					   then);
			free(then);
		}
		free(mins);
		free(with);
	} else {
		char *words = limit_words(c, p, i, take, limit, &why);
		reason = xasprintf("none: %s", words);
		free(words);
	}
	json_object_set_new(one, "none_reason", json_string(reason));
	free(reason);
	return one;
}

/* The reserve by label, and what may be recruited from it with its cost:
 * for each element in the reserve, how many of it alone the rules would
 * take now (allowance, ceiling, list maximum, list minimums first), and
 * when none, why. */
static void recruitment_lists(const struct campaign *c, int p, json_t *d)
{
	const struct player *pl = &c->players[p];
	const struct army_list *l = &pl->list;
	json_t *reserve = json_array(), *may = json_array();
	int *take = xcalloc(l->count ? l->count : 1, sizeof *take);
	int *fill = xcalloc(l->count ? l->count : 1, sizeof *fill);
	rules_recruit_minimums(c, p, fill);
	char a[16], b[16];
	for (size_t i = 0; i < l->count; i++) {
		int have = pl->reserve.count[i];
		if (have <= 0)
			continue;
		const struct element_type *t = &l->types[i];
		json_array_append_new(reserve, json_pack("{s:i, s:s, s:s, s:s}", "count", have,
			"label", t->label, "ap_each", half_ap_format(t->cost_half_ap, a), "ap",
			half_ap_format(t->cost_half_ap * have, b)));
		json_array_append_new(may, recruitable_one(c, p, i, take, fill));
	}
	free(take);
	free(fill);
	if (!json_array_size(reserve))
		json_object_set_new(d, "reserve_empty", json_true());
	json_object_set_new(d, "reserve_elements", reserve);
	json_object_set_new(d, "recruitable", may);
}

/* The player's recruitment (RECRUIT, DISMISS, RETRIEVE GENERAL) checked
 * again against the campaign as it is now, as the reply checked it when it
 * arrived: the lines that can no longer be carried out are taken out of his
 * orders, each with an order_refused event, and either added to `refused`
 * ({"order", "reason"}: the caller tells the player) or, with `refused`
 * NULL, mailed to the player at once; the lines that stand are added to
 * `kept_lines` (if not NULL). Returns the number refused. */
static size_t recheck_recruitment(struct year_run *r, int p, json_t *refused, json_t *kept_lines)
{
	struct order_set orig, checked;
	year_load_orders(r, p, &orig);
	year_load_orders(r, p, &checked);
	orders_validate(&checked, r->c, p);
	struct order_set kept;
	orders_set_init(&kept);
	kept.player = p;
	size_t n = 0;
	for (size_t i = 0; i < orig.count && i < checked.count; i++) {
		const struct order *o = &checked.orders[i];
		bool recruitment = year_is_recruitment(o->kind);
		if (recruitment && o->status == ORDER_ERROR) {
			char *line = orders_format_one(&orig.orders[i], r->c, p);
			const char *reason = o->error ? o->error : "refused";
			if (refused) {
				json_array_append_new(refused,
						      json_pack("{s:s, s:s}", "order", line ? line : "",
								"reason", reason));
				event_emit(r->log, "order_refused", RULE_GAME_YEAR,
					   "{s:s, s:s, s:s}", "player", pkey(r->c, p), "order",
					   line ? line : "", "reason", reason);
			} else {
				year_refused_instead(r, p, line, reason,
						     "the campaign changed since your orders were "
						     "acknowledged; the rest of your recruitment is "
						     "carried out as acknowledged");
			}
			free(line);
			n++;
			continue;
		}
		if (recruitment && o->status == ORDER_OK && kept_lines) {
			char *line = orders_format_one(o, r->c, p);
			if (line)
				json_array_append_new(kept_lines, json_string(line));
			free(line);
		}
		order_copy(orders_set_add(&kept), &orig.orders[i]);
	}
	if (n) {
		char *text = orders_format_pending(&kept, r->c);
		r->io->orders_save(r->io->ctx, p, r->c->year, r->c->phase, text);
		free(text);
	}
	orders_set_free(&orig);
	orders_set_free(&checked);
	orders_set_free(&kept);
	return n;
}

void year_begin_recruitment(struct year_run *r)
{
	struct campaign *c = r->c;
	rules_recruitment_begin(c, r->dice, r->log);
	carry_orders(r, c->year, PHASE_CAMPAIGN, CARRY_TO_RECRUITMENT);
	struct year_state *st = r->st;
	st->step = YEAR_RECRUITMENT;
	json_decref(st->pending);
	st->pending = NULL;
	year_set_deadline_hours(r, c->settings.recruitment_deadline_hours);
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		char a[24], b[24];
		json_t *d = year_deadline_data(r);
		json_object_update_new(d, json_pack("{s:s, s:s, s:i, s:o}", "allowance_ap",
						half_ap_format(rules_recruit_allowance(c, (int)p), a),
						"reserve_ap",
						half_ap_format(player_reserve_half_ap(&c->players[p]), b),
						"province_prestige", rules_province_prestige(c, (int)p),
						"positions", year_positions_json(c)));
		recruitment_lists(c, (int)p, d);
		/* orders sent in advance were counted against the campaign as it
		 * was then: counted again now, and the player told at once */
		json_t *refused = json_array(), *kept = json_array();
		recheck_recruitment(r, (int)p, refused, kept);
		json_object_set_new(d, "has_recruitment_refused",
				    json_boolean(json_array_size(refused) > 0));
		json_object_set_new(d, "recruitment_refused", refused);
		json_object_set_new(d, "has_recruitment_orders",
				    json_boolean(json_array_size(kept) > 0));
		json_object_set_new(d, "recruitment_orders", kept);
		year_mail(r, "recruitment", (int)p, false, d, "Recruitment");
	}
}

void year_late_recruitment_back(struct year_run *r)
{
	struct campaign *c = r->c;
	enum year_step step = r->st->step;
	if (step != YEAR_TURN && step != YEAR_DECISION && step != YEAR_BATTLE &&
	    step != YEAR_RECRUITMENT)
		return; /* the vote: this year's recruitment is done */
	int year = c->year;
	bool open = step == YEAR_RECRUITMENT;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		struct order_set late, moved, rest, now, merged;
		year_load_orders_at(r, (int)p, year + 1, PHASE_CAMPAIGN, &late);
		orders_set_init(&moved);
		orders_set_init(&rest);
		moved.player = rest.player = (int)p;
		for (size_t i = 0; i < late.count; i++) {
			const struct order *o = &late.orders[i];
			bool recruit = o->status == ORDER_OK && year_is_recruitment(o->kind);
			order_copy(orders_set_add(recruit ? &moved : &rest), o);
		}
		if (!moved.count) {
			orders_set_free(&late);
			orders_set_free(&moved);
			orders_set_free(&rest);
			continue;
		}
		json_t *sent = json_array();
		for (size_t i = 0; i < moved.count; i++) {
			char *line = orders_format_one(&moved.orders[i], c, (int)p);
			if (line)
				json_array_append_new(sent, json_string(line));
			free(line);
		}
		/* they replace this year's recruitment as a whole, as a mail
		 * sent now would; no longer kept for the next year's */
		year_load_orders(r, (int)p, &now);
		orders_merge(&now, &moved, &merged);
		merged.player = (int)p;
		char *text = orders_format_pending(&merged, c);
		r->io->orders_save(r->io->ctx, (int)p, year, c->phase, text);
		free(text);
		text = orders_format_pending(&rest, c);
		r->io->orders_save(r->io->ctx, (int)p, year + 1, PHASE_CAMPAIGN, text);
		free(text);
		event_emit(r->log, "recruitment_back", RULE_RECRUITMENT, "{s:s, s:i, s:O}", "player",
			   pkey(c, (int)p), "from_year", year + 1, "orders", sent);
		/* counted again now, against the campaign as the undo left it */
		json_t *refused = json_array(), *kept = json_array();
		if (open)
			recheck_recruitment(r, (int)p, refused, kept);
		json_t *d = json_pack("{s:i, s:i, s:b, s:o, s:b, s:o, s:b, s:o}", "late_year",
				      year, "next_year", year + 1, "open", open, "sent", sent,
				      "has_refused", json_array_size(refused) > 0, "refused", refused,
				      "has_kept", json_array_size(kept) > 0, "kept", kept);
		if (open)
			json_object_update_new(d, year_deadline_data(r));
		year_mail(r, "late-recruitment", (int)p, false, d,
			  "Your recruitment sent late counts for %d", year);
		orders_set_free(&late);
		orders_set_free(&moved);
		orders_set_free(&rest);
		orders_set_free(&now);
		orders_set_free(&merged);
	}
}

static void apply_recruitment(struct year_run *r, int p)
{
	/* what the replies accepted is carried out; a line the campaign no
	 * longer allows (it changed since, e.g. a corrected battle) is not,
	 * and the player is mailed why */
	recheck_recruitment(r, p, NULL, NULL);
	struct order_set set;
	year_load_orders(r, p, &set);
	/* DISMISS, EXCHANGE, RECRUIT: the function the acknowledgement's
	 * account of the list minimums plays too */
	struct rules_recruit_outcome out;
	rules_recruit_orders(r->c, p, &set, r->log, &out);
	for (int s = 0; s < RECRUIT_STEP_COUNT; s++)
		if (out.step[s].refused)
			year_refused(r, p, rules_recruit_step_keyword((enum rules_recruit_step)s),
				     out.step[s].why.text);
	orders_set_free(&set);
}

static bool finish_year(struct year_run *r, int year);

/* The sequence of play of c->year (the year about to begin), rolled at the
 * end of the year before with its dice, or the scenario's fixed one; kept
 * in the state until the year begins. */
static void roll_next_sequence(struct year_run *r)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	int *order = xcalloc(c->player_count + 1, sizeof *order);
	size_t n = 0;
	if (r->io->fixed_sequence)
		n = r->io->fixed_sequence(r->io->ctx, c->year, order);
	if (n) {
		json_t *keys = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(keys, json_string(pkey(c, order[i])));
		event_emit(r->log, "next_sequence", RULE_GAME_YEAR, "{s:i, s:o, s:b}",
			   "year_of_play", c->year, "order", keys, "fixed", 1);
	} else {
		n = rules_next_sequence_of_play(c, r->dice, r->log, c->year, order);
	}
	free(st->sequence);
	st->sequence = order;
	st->sequence_len = n;
	st->sequence_year = c->year;
	st->turn = 0;
}

/* The sequence rolled ahead for c->year, as it stands when the year
 * begins: a player gone since is left out, one who joined since (a
 * replacement keeps his predecessor's place) comes last. Returns its
 * length, 0 if none was rolled ahead. */
static size_t sequence_rolled_ahead(struct year_run *r, int *order)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	if (st->sequence_year != c->year || !st->sequence_len)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < st->sequence_len; i++)
		if (active(c, st->sequence[i]))
			order[n++] = st->sequence[i];
	for (size_t p = 0; p < c->player_count; p++) {
		bool listed = false;
		for (size_t i = 0; i < n; i++)
			listed |= order[i] == (int)p;
		if (active(c, (int)p) && !listed)
			order[n++] = (int)p;
	}
	json_t *keys = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(keys, json_string(pkey(c, order[i])));
	event_emit(r->log, "sequence_of_play", RULE_GAME_YEAR, "{s:o, s:i}", "order", keys,
		   "rolled_in", c->year - 1);
	return n;
}

bool year_resolve_recruitment(struct year_run *r)
{
	struct campaign *c = r->c;
	year_apply_renounces(r);
	for (size_t p = 0; p < c->player_count; p++)
		if (active(c, (int)p))
			apply_recruitment(r, (int)p);
	int year = c->year;
	bool vote = rules_year_end(c, r->dice, r->log);
	struct year_state *st = r->st;
	year_sync_turn_events(r);
	if (!vote)
		return finish_year(r, year);
	st->step = YEAR_VOTE;
	year_set_deadline_hours(r, c->settings.decision_deadline_hours);
	json_t *d = year_deadline_data(r);
	json_object_set_new(d, "positions", year_positions_json(c));
	year_mail(r, "vote", NO_INDEX, true, d, "The campaign may end: your vote");
	return false;
}

bool year_resolve_vote(struct year_run *r)
{
	struct campaign *c = r->c;
	bool all = true;
	for (size_t p = 0; p < c->player_count; p++) {
		if (!active(c, (int)p))
			continue;
		enum order_choice v = year_vote_of(r, (int)p);
		event_emit(r->log, "vote", RULE_CAMPAIGN_END, "{s:s, s:s, s:b}", "player",
			   pkey(c, (int)p), "vote", v == CHOICE_CONTINUE ? "continue" : "end",
			   "by_default", v == CHOICE_NONE);
		all &= v == CHOICE_CONTINUE;
	}
	int year = c->year;
	rules_campaign_end_vote(c, all, r->log);
	return finish_year(r, year);
}

/* The year `year` is over (its recruitment and vote): the diary goes out
 * with the seed revealed, and the next year begins unless the campaign
 * ended. Returns true when it began. */
static bool finish_year(struct year_run *r, int year)
{
	struct campaign *c = r->c;
	/* 1.4: the end checked, the diary, "and determines a random sequence
	 * of play for the next year": rolled now, with this year's dice
	 * (committed to when the year began, revealed in its diary) */
	bool next = c->phase != PHASE_ENDED && year_phase_may_begin(r, c->year, PHASE_CAMPAIGN);
	if (next)
		roll_next_sequence(r);
	r->io->reveal_dice(r->io->ctx, year);
	year_sync_turn_events(r);
	json_t *d = json_pack("{s:i}", "diary_year", year);
	/* "step" as year_mail gives it: after an undo the diary made again
	 * finds the one sent before (not sent twice when the same) */
	json_t *req = json_pack("{s:s, s:s, s:s, s:b, s:o, s:i, s:i}", "template", "diary",
				"subject", "", "to", "all", "organiser", 1, "data", d,
				"diary_year", year, "step", r->st->resolutions);
	char *subject = xstrdup("The year's diary"); /* its year: "diary_year" */
	json_object_set_new(req, "subject", json_string(subject));
	free(subject);
	json_array_append_new(r->mails, req);
	if (c->phase == PHASE_ENDED) {
		struct year_state *st = r->st;
		st->step = YEAR_ENDED;
		st->deadline = 0;
		json_decref(st->pending);
		st->pending = NULL;
		json_t *e = json_pack("{s:o}", "positions", year_positions_json(c));
		json_t *last = event_log_last(r->log, "campaign_end");
		if (last)
			json_object_set(e, "end", last);
		json_t *winners = json_array();
		size_t i;
		json_t *w;
		json_array_foreach(json_object_get(last, "winners"), i, w)
			json_array_append_new(winners,
					      json_string(pnation(c, find_player(c, json_string_value(w)))));
		json_object_set_new(e, "winners", winners);
		year_mail(r, "campaign-end", NO_INDEX, true, e, "The campaign is over");
		return false;
	}
	if (!next)
		return false;
	year_begin_year(r, year, PHASE_RECRUITMENT, CARRY_TO_CAMPAIGN);
	return true;
}

void year_begin_year(struct year_run *r, int from_year, int from_phase, enum year_carry how)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	const char *commitment = r->io->new_year_dice(r->io->ctx, c->year);
	int *order = xcalloc(c->player_count + 1, sizeof *order);
	size_t n = 0;
	year_enter_joiners(r, from_year);
	rules_year_prepare(c, r->dice, r->log);
	/* rolled at the end of the year before (1.4); the first year's when
	 * play starts (1.2: "Determine a random sequence of play for the
	 * first year") */
	n = sequence_rolled_ahead(r, order);
	bool ahead = n > 0;
	if (!n && r->io->fixed_sequence) {
		n = r->io->fixed_sequence(r->io->ctx, c->year, order);
		if (n) {
			json_t *keys = json_array();
			for (size_t i = 0; i < n; i++)
				json_array_append_new(keys, json_string(pkey(c, order[i])));
			event_emit(r->log, "sequence_of_play", RULE_GAME_YEAR, "{s:o, s:b}",
				   "order", keys, "fixed", 1);
		}
	}
	if (!n)
		n = rules_sequence_of_play(c, r->dice, r->log, order);
	carry_orders(r, from_year, from_phase, how);
	event_emit(r->log, "dice_commitment", RULE_GAME_YEAR, "{s:s}", "commitment",
		   commitment ? commitment : "");
	free(st->sequence);
	st->sequence = order;
	st->sequence_len = n;
	st->sequence_year = 0;
	st->turn = 0;
	json_t *seq = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(seq, json_pack("{s:i, s:s, s:s}", "place", (int)i + 1, "player",
						     pkey(c, order[i]), "nation",
						     pnation(c, order[i])));
	char buf[64];
	json_t *d = json_pack("{s:o, s:s, s:i, s:o}", "sequence", seq, "commitment",
			      commitment ? commitment : "", "turn_hours",
			      c->settings.turn_deadline_hours, "positions", year_positions_json(c));
	json_object_set_new(d, "starts", json_string(year_format_time(r->now, buf, sizeof buf)));
	if (ahead)
		json_object_set_new(d, "rolled_in", json_integer(c->year - 1));
	/* each player is told his own place (1.4: "The order in which you get
	 * your turn will vary from year to year"); the organiser the list */
	for (size_t i = 0; i < n; i++) {
		json_t *mine = json_deep_copy(d);
		json_object_set_new(mine, "your_place", json_integer((json_int_t)i + 1));
		json_object_set_new(mine, "places", json_integer((json_int_t)n));
		json_object_set_new(mine, "first", json_boolean(i == 0));
		year_mail(r, "announce-sequence", order[i], false, mine, "The sequence of play");
	}
	year_mail_organiser(r, "announce-sequence", d, "The sequence of play");
}
