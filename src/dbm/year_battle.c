/* Battles: announced with the contingents that arrived, then the two sides'
 * reports (or the organiser's decision) applied through the rules. */
#include "config.h"

#include "dbm/year.h"
#include "dbm/year_p.h"
#include "dbm/rules.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- battles */

static int retreat_preference(struct year_run *r, int player)
{
	struct order_set set;
	year_load_orders(r, player, &set);
	const struct order *o = year_find_kind(&set, ORDER_RETREAT_PREFER);
	int p = o && o->via_count ? o->via[0] : NO_INDEX;
	orders_set_free(&set);
	return p;
}

/* "2 Kn(S) general, 20 Kn(S)": the elements of `t` by number and label. */
static char *elements_text(const struct army_list *l, const struct troops *t)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	bool first = true;
	for (size_t i = 0; i < l->count && t->count; i++) {
		if (t->count[i] <= 0)
			continue;
		strbuf_printf(&sb, "%s%d %s", first ? "" : ", ", t->count[i], l->types[i].label);
		first = false;
	}
	if (first)
		strbuf_puts(&sb, "no elements");
	return strbuf_take(&sb);
}

static json_t *force_json(const struct campaign *c, int player, const struct troops *t,
			  const char *role)
{
	const struct army_list *l = &c->players[player].list;
	char *els = elements_text(l, t);
	char ap[24];
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s}", "player", pkey(c, player), "nation",
			      pnation(c, player), "role", role, "elements", els, "ap",
			      half_ap_format(troops_half_ap(l, t), ap));
	free(els);
	return j;
}

/* The contingents in a battle: arrived ones are listed in pending. */
void year_start_battle(struct year_run *r, int attacker, int defender, int province,
		       int came_from)
{
	struct campaign *c = r->c;
	json_t *arrived = json_array();
	/* what each side may report: the forces as they stand now */
	json_t *forces = json_array();
	json_array_append_new(forces, force_json(c, attacker, &c->players[attacker].field,
						 "the attacker, field army"));
	json_array_append_new(forces, force_json(c, defender, &c->players[defender].field,
						 "the defender, field army"));
	int side_ap[2] = {player_field_half_ap(&c->players[attacker]),
			  player_field_half_ap(&c->players[defender])};
	for (size_t k = 0; k < c->contingent_count; k++) {
		struct contingent *ct = &c->contingents[k];
		int side = -1;
		if (!ct->returning && ct->with_player == attacker)
			side = 0;
		else if (!ct->returning && ct->with_player == defender)
			side = 1;
		else if (ct->returning && ct->owner == attacker)
			side = 0;
		else if (ct->returning && ct->owner == defender)
			side = 1;
		if (side < 0 || !rules_contingent_arrival(c, (int)k, r->dice, r->log))
			continue;
		int ap = troops_half_ap(&c->players[ct->owner].list, &ct->troops);
		side_ap[side] += ap;
		char *role = xasprintf("contingent with %s", pnation(c, side ? defender : attacker));
		json_array_append_new(forces, force_json(c, ct->owner, &ct->troops, role));
		free(role);
		char buf[24];
		json_array_append_new(arrived,
				      json_pack("{s:s, s:s, s:s, s:i, s:s, s:b}", "owner",
						pkey(c, ct->owner), "owner_nation",
						pnation(c, ct->owner), "with",
						pkey(c, side ? defender : attacker), "side", side,
						"ap", half_ap_format(ap, buf), "returning",
						ct->returning));
	}
	char a[24], b[24];
	struct year_state *st = r->st;
	json_decref(st->pending);
	st->pending = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:[i,i], s:{}, s:b}", "kind",
				"battle", "province", prov_name(c, province), "attacker",
				pkey(c, attacker), "defender", pkey(c, defender), "came_from",
				prov_name(c, came_from), "contingents", arrived, "half_ap",
				side_ap[0], side_ap[1], "reports", "disputed", 0);
	st->step = YEAR_BATTLE;
	year_set_deadline_hours(r, c->settings.battle_deadline_hours);
	event_emit(r->log, "battle_announced", RULE_DEFENDING, "{s:s, s:s, s:s, s:[i,i]}",
		   "province", prov_name(c, province), "attacker", pkey(c, attacker), "defender",
		   pkey(c, defender), "half_ap", side_ap[0], side_ap[1]);
	json_t *d = year_deadline_data(r);
	json_object_update_new(d, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:b, s:s, s:s}",
					"province", prov_name(c, province), "terrain",
					c->provinces[province].terrain ? c->provinces[province].terrain : "",
					"climate",
					c->provinces[province].climate ? c->provinces[province].climate : "",
					"attacker", pkey(c, attacker), "attacker_nation",
					pnation(c, attacker), "defender", pkey(c, defender),
					"defender_nation", pnation(c, defender), "defender_ap",
					half_ap_format(side_ap[1], b), "contingents", arrived,
					"has_contingents", json_array_size(arrived) > 0,
					"attacker_ap", half_ap_format(side_ap[0], a), "report_example",
					""));
	char *example = xasprintf("BATTLE AT %s\nWINNER %s\nDEMORALISED %s <general's element>\n"
				  "DESTROYED %s <n> <element>, <n> <element>\nFLED %s <n> <element>",
				  prov_name(c, province), pkey(c, attacker), pkey(c, defender),
				  pkey(c, defender), pkey(c, attacker));
	json_object_set_new(d, "report_example", json_string(example));
	json_object_set_new(d, "forces", forces);
	/* what the turn cost so far (storm, forced march or passage, supply)
	 * is in the figures above: the mail says it, the turn report comes
	 * only once the battle is settled */
	year_sync_turn_events(r);
	json_t *so_far = year_events_for_mail(c, st->turn_events);
	json_object_set_new(d, "has_events", json_boolean(json_array_size(so_far) > 0));
	json_object_set_new(d, "events", so_far);
	free(example);
	year_mail(r, "battle", NO_INDEX, true, d, "Battle at %s", prov_name(c, province));
}

bool year_set_has_battle_lines(const struct order_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->orders[i].kind >= ORDER_BATTLE_AT &&
		    set->orders[i].kind <= ORDER_BATTLE_GENERAL_KILLED)
			return true;
	return false;
}

char *year_battle_report_text(const struct year_run *r, const struct order_set *set)
{
	if (r->st->step != YEAR_BATTLE)
		return NULL;
	int province = find_province(r->c, jstr(r->st->pending, "province"));
	char *text = year_report_text(r->c, r->st->pending, set, province);
	if (!text)
		return NULL;
	char *summary = year_report_summary(r->c, r->st->pending, text);
	char *both = xasprintf("%s\nIn the report's own form:\n%s", summary, text);
	free(summary);
	free(text);
	return both;
}

/* Counts per element type for one force in the battle. */
struct party_counts {
	int *destroyed, *fled, *withdrawn, *killed;
	int *returned;      /* RETURNED lines: the force's routers coming back */
	bool has_returned;
};


/* Builds and applies the result in `text`. Returns 0, or -1 with why. */
static int apply_battle_text(struct year_run *r, const char *text, bool dry, char *why,
			     size_t why_size)
{
	struct campaign *c = r->c;
	const json_t *pd = r->st->pending;
	int province = find_province(c, jstr(pd, "province"));
	int side_player[2] = {find_player(c, jstr(pd, "attacker")),
			      find_player(c, jstr(pd, "defender"))};
	struct order_set set;
	orders_parse(text, c, -1, &set);

	/* the forces: the two field armies, then the contingents that arrived */
	size_t cap = 2 + c->contingent_count;
	struct battle_party *parties = xcalloc(cap, sizeof *parties);
	struct party_counts *counts = xcalloc(cap, sizeof *counts);
	size_t n = 0;
	for (int s = 0; s < 2; s++) {
		const struct player *p = &c->players[side_player[s]];
		parties[n] = (struct battle_party){.player = side_player[s], .side = s,
						   .contingent = NO_INDEX,
						   .commands = troops_generals(&p->list, &p->field)};
		if (parties[n].commands < 1)
			parties[n].commands = 1;
		n++;
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(pd, "contingents"), i, v) {
		int owner = find_player(c, jstr(v, "owner"));
		int with = find_player(c, jstr(v, "with"));
		bool returning = json_is_true(json_object_get(v, "returning"));
		for (size_t k = 0; k < c->contingent_count; k++) {
			const struct contingent *ct = &c->contingents[k];
			if (ct->owner != owner || ct->returning != returning ||
			    (!returning && ct->with_player != with))
				continue;
			parties[n++] = (struct battle_party){.player = owner,
							     .side = jint(v, "side", 0),
							     .contingent = (int)k, .commands = 1};
			break;
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t types = c->players[parties[k].player].list.count + 1;
		counts[k].destroyed = xcalloc(types, sizeof(int));
		counts[k].fled = xcalloc(types, sizeof(int));
		counts[k].withdrawn = xcalloc(types, sizeof(int));
		counts[k].killed = xcalloc(types, sizeof(int));
		counts[k].returned = xcalloc(types, sizeof(int));
	}
	int rc = -1;
	int winner_side = -1;
	enum battle_end how = BATTLE_DEMORALISED;
	int conceded_by = NO_INDEX, withdrawal_by = NO_INDEX, winner_player = NO_INDEX;
	for (size_t k = 0; k < set.count; k++) {
		const struct order *o = &set.orders[k];
		if (o->status != ORDER_OK || o->kind <= ORDER_BATTLE_AT ||
		    o->kind > ORDER_BATTLE_GENERAL_KILLED)
			continue;
		/* a protagonist's lines are its field army's, an ally's its contingent's */
		int party = -1;
		for (size_t q = 0; q < n && party < 0; q++)
			if (parties[q].player == o->target)
				party = (int)q;
		if (party < 0) {
			year_say(why, why_size, "%s did not fight in the battle at %s",
				 pnation(c, o->target), prov_name(c, province));
			goto done;
		}
		switch (o->kind) {
		case ORDER_BATTLE_WINNER:
			if (winner_side >= 0 && winner_side != parties[party].side) {
				year_say(why, why_size, "the report names a WINNER on each side");
				goto done;
			}
			winner_side = parties[party].side;
			winner_player = o->target;
			break;
		case ORDER_BATTLE_CONCEDED:
			how = BATTLE_CONCEDED;
			conceded_by = parties[party].side;
			break;
		case ORDER_BATTLE_WITHDRAWAL:
			how = BATTLE_WITHDRAWAL;
			withdrawal_by = parties[party].side;
			break;
		case ORDER_BATTLE_DEMORALISED:
			for (size_t it = 0; it < o->item_count; it++) {
				int cinc = orders_cinc_type(&c->players[o->target]);
				if (parties[party].contingent == NO_INDEX && o->items[it].type == cinc)
					parties[party].c_in_c_demoralised = true;
				else
					parties[party].others_demoralised++;
			}
			break;
		case ORDER_BATTLE_DESTROYED:
		case ORDER_BATTLE_FLED:
		case ORDER_BATTLE_WITHDRAWN:
		case ORDER_BATTLE_GENERAL_KILLED: {
			int *to = o->kind == ORDER_BATTLE_DESTROYED ? counts[party].destroyed
				  : o->kind == ORDER_BATTLE_FLED    ? counts[party].fled
				  : o->kind == ORDER_BATTLE_WITHDRAWN ? counts[party].withdrawn
								      : counts[party].killed;
			for (size_t it = 0; it < o->item_count; it++)
				to[o->items[it].type] += o->items[it].count;
			break;
		}
		case ORDER_BATTLE_RETURNED:
			counts[party].returned[o->type] += o->count;
			counts[party].has_returned = true;
			break;
		case ORDER_BATTLE_SHARE:
			if (parties[party].contingent == NO_INDEX) {
				year_say(why, why_size, "SHARE %s: a share is agreed with an ally "
							"whose contingent fought, not with a main "
							"protagonist", pkey(c, o->target));
				goto done;
			}
			parties[party].agreed_share = o->count;
			break;
		default:
			break;
		}
	}
	if (conceded_by >= 0 && withdrawal_by >= 0) {
		year_say(why, why_size, "the report has both CONCEDED BY and WITHDRAWAL BY: "
					"a battle ends one way");
		goto done;
	}
	if (winner_side >= 0 && (winner_side == conceded_by || winner_side == withdrawal_by)) {
		year_say(why, why_size, "%s is named the WINNER but also %s", pnation(c, winner_player),
			 winner_side == conceded_by ? "CONCEDED BY" : "WITHDRAWAL BY");
		goto done;
	}
	if (winner_side < 0 && conceded_by >= 0)
		winner_side = 1 - conceded_by;
	if (winner_side < 0 && withdrawal_by >= 0)
		winner_side = 1 - withdrawal_by;
	if (winner_side < 0) {
		year_say(why, why_size, "the report names no result: write WINNER, CONCEDED BY or "
					"WITHDRAWAL BY");
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		size_t types = c->players[parties[k].player].list.count;
		/* a killed general is a destroyed general's element */
		for (size_t t = 0; t < types; t++)
			if (counts[k].killed[t] > counts[k].destroyed[t])
				counts[k].destroyed[t] = counts[k].killed[t];
		parties[k].destroyed = counts[k].destroyed;
		parties[k].fled = counts[k].fled;
		parties[k].withdrawn = counts[k].withdrawn;
		if (counts[k].has_returned)
			parties[k].returned_pick = counts[k].returned;
	}
	/* more troops than a force had, in the players' words (the rules'
	 * check below says the same by party number) */
	for (size_t k = 0; k < n; k++) {
		const struct player *pl = &c->players[parties[k].player];
		const struct troops *t = parties[k].contingent == NO_INDEX
						 ? &pl->field
						 : &c->contingents[parties[k].contingent].troops;
		char force[160];
		if (parties[k].contingent == NO_INDEX)
			snprintf(force, sizeof force, "%s's army", pnation(c, parties[k].player));
		else
			snprintf(force, sizeof force, "%s's contingent", pnation(c, parties[k].player));
		for (size_t ty = 0; ty < pl->list.count && t->count; ty++) {
			int lost = counts[k].destroyed[ty] + counts[k].fled[ty] + counts[k].withdrawn[ty];
			if (lost > t->count[ty]) {
				year_say(why, why_size,
					 "the report names %d %s of %s destroyed, fled or withdrawn, but "
					 "it had %d at the battle",
					 lost, pl->list.types[ty].label, force, t->count[ty]);
				goto done;
			}
		}
		int others = parties[k].commands - (parties[k].contingent == NO_INDEX ? 1 : 0);
		if (parties[k].others_demoralised > others) {
			year_say(why, why_size,
				 "the report names %d commands of %s demoralised besides the "
				 "C-in-C's, but it had %d",
				 parties[k].others_demoralised, force, others);
			goto done;
		}
	}
	int loser = side_player[1 - winner_side];
	struct battle_result res = {
		.province = province,
		.winner_side = winner_side,
		.how = how,
		.parties = parties,
		.party_count = n,
		.enemy_came_from = winner_side == 0 ? find_province(c, jstr(pd, "came_from"))
						    : NO_INDEX,
		.retreat_choice = retreat_preference(r, loser),
		.retreat_on_storm = year_player_storm(r, loser),
	};
	struct rules_reason rwhy;
	if (rules_battle_check(c, &res, &rwhy) != RULES_OK ||
	    (!dry && rules_apply_battle_result(c, &res, r->dice, r->log, &rwhy) != RULES_OK)) {
		year_say(why, why_size, "%s", rwhy.text);
		goto done;
	}
	/* 2.3 relief: the besieged owner's contingent goes back into its city */
	int owner = c->provinces[province].owner;
	if (!dry && owner >= 0 && owner != side_player[0] && owner != side_player[1])
		rules_relief_rejoin(c, owner, side_player[0], r->log);
	rc = 0;
done:
	for (size_t k = 0; k < n; k++) {
		free(counts[k].destroyed);
		free(counts[k].fled);
		free(counts[k].withdrawn);
		free(counts[k].killed);
		free(counts[k].returned);
	}
	free(counts);
	free(parties);
	orders_set_free(&set);
	return rc;
}

void year_battle_dispute(struct year_run *r, const char *reason)
{
	struct campaign *c = r->c;
	json_t *pd = r->st->pending;
	json_object_set_new(pd, "disputed", json_true());
	r->st->deadline = 0;
	event_emit(r->log, "battle_disputed", RULE_DEFENDING, "{s:s, s:s}", "province",
		   jstr(pd, "province"), "reason", reason);
	char *sentence = xstrdup(reason);
	if ('a' <= sentence[0] && sentence[0] <= 'z')
		sentence[0] = (char)(sentence[0] - 'a' + 'A');
	json_t *d = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:O}", "province",
			      jstr(pd, "province"), "reason", reason, "reason_text", sentence,
			      "attacker_nation",
			      pnation(c, find_player(c, jstr(pd, "attacker"))), "defender_nation",
			      pnation(c, find_player(c, jstr(pd, "defender"))), "step_name", "",
			      "reports", json_object_get(pd, "reports"));
	free(sentence);
	json_t *list = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(pd, "reports"), k, v)
		json_array_append_new(list, json_pack("{s:s, s:s, s:O}", "player", k, "nation",
						      pnation(c, find_player(c, k)), "text", v));
	json_object_set_new(d, "report_list", list);
	const char *a = jstr(json_object_get(pd, "reports"), jstr(pd, "attacker"));
	const char *b = jstr(json_object_get(pd, "reports"), jstr(pd, "defender"));
	if (a && b) {
		char *both = year_report_side_by_side(c, pd, a, b, NULL);
		json_object_set_new(d, "comparison", json_string(both));
		free(both);
	}
	/* the side the organiser plays gets the organiser's mail only: the
	 * same reports once, with what to do about them */
	for (int s = 0; s < 2; s++) {
		int side = find_player(c, jstr(pd, s ? "defender" : "attacker"));
		if (side >= 0 && side == c->organiser_player)
			continue;
		year_mail(r, "battle-disputed", side, false, json_deep_copy(d),
			  "The battle at %s goes to the organiser", jstr(pd, "province"));
	}
	year_mail_organiser(r, "battle-disputed", d, "A battle result needs your decision");
}

int year_battle_apply(struct year_run *r, const char *text, const char *how_decided, char *why,
		      size_t why_size)
{
	if (apply_battle_text(r, text, false, why, why_size) != 0)
		return -1;
	event_emit(r->log, "battle_result", RULE_BATTLE_CONSEQUENCES, "{s:s, s:s, s:s}",
		   "province", jstr(r->st->pending, "province"), "decided", how_decided, "report",
		   text);
	return 0;
}

int year_battle_take_report(struct year_run *r, int player, bool organiser,
			    const struct order_set *set, char **settle, const char **how,
			    char *why, size_t why_size)
{
	struct campaign *c = r->c;
	struct year_state *st = r->st;
	*settle = NULL;
	*how = NULL;
	if (st->step != YEAR_BATTLE) {
		year_say(why, why_size, "no battle is waiting for its result");
		return -1;
	}
	int province = find_province(c, jstr(st->pending, "province"));
	if (!organiser && set->errors > 0) {
		size_t n = 0;
		char *lines = orders_error_lines_text(set, &n);
		year_say(why, why_size, "%s of your mail %s in error, and a report is taken whole "
					"or not at all: send the whole report again, corrected",
			 lines ? lines : "a line", n <= 1 ? "is" : "are");
		free(lines);
		return -1;
	}
	char *text = year_report_text(c, st->pending, set, province);
	if (!text) {
		year_say(why, why_size, "the result lines are not for the battle at %s, the one "
					"waiting for its result", prov_name(c, province));
		return -1;
	}
	if (organiser) {
		*settle = text;
		*how = "organiser";
		return 0;
	}
	const char *key = pkey(c, player);
	if (strcmp(key, jstr(st->pending, "attacker")) != 0 &&
	    strcmp(key, jstr(st->pending, "defender")) != 0) {
		year_say(why, why_size, "only the two sides report the battle at %s",
			 prov_name(c, province));
		free(text);
		return -1;
	}
	if (json_is_true(json_object_get(st->pending, "disputed"))) {
		year_say(why, why_size, "the reports of the battle at %s differ: the organiser "
					"decides the result now", prov_name(c, province));
		free(text);
		return -1;
	}
	/* checked in full now, not when the other side's report arrives */
	if (apply_battle_text(r, text, true, why, why_size) != 0) {
		size_t used = strlen(why);
		if (used + 1 < why_size)
			snprintf(why + used, why_size - used,
				 "; the report is not recorded: send the whole report again");
		free(text);
		return -1;
	}
	json_t *reports = json_object_get(st->pending, "reports");
	json_object_set_new(reports, key, json_string(text));
	event_emit(r->log, "battle_report", RULE_DEFENDING, "{s:s, s:s}", "player", key,
		   "province", prov_name(c, province));
	if (json_object_size(reports) == 2) {
		const char *a = jstr(reports, jstr(st->pending, "attacker"));
		const char *b = jstr(reports, jstr(st->pending, "defender"));
		if (strcmp(a, b) != 0) {
			char *rows = NULL;
			free(year_report_side_by_side(c, st->pending, a, b, &rows));
			char *reason = xasprintf("the two reports differ in: %s", rows);
			year_battle_dispute(r, reason);
			free(reason);
			free(rows);
		} else {
			*settle = text;
			*how = "both sides";
			return 0;
		}
	}
	free(text);
	return 0;
}

char *year_battle_sole_report(struct year_run *r)
{
	json_t *reports = json_object_get(r->st->pending, "reports");
	if (json_object_size(reports) != 1)
		return NULL;
	const char *k;
	json_t *v;
	json_object_foreach(reports, k, v)
		return xstrdup(json_string_value(v));
	return NULL;
}
