/* 1.4 The game year and the sequence of play; 3.2 campaign end,
 * tributaries and leaving the game. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

void rules_set_phase(struct campaign *c, struct dice *d, struct event_log *log, int phase)
{
	c->phase = phase;
	if (d)
		dice_set_time(d, c->year, phase);
	if (log)
		event_log_set_time(log, c->year, phase);
}

/* A uniform choice among `m` (>= 1) by dice: q dice make a base-6 number
 * below 6^q >= m; a number at or above the largest multiple of m below 6^q
 * is thrown away and the dice rolled again. */
static int uniform_choice(struct dice *d, struct event_log *log, int m, int step, int for_year)
{
	if (m <= 1)
		return 0;
	int q = 0;
	long long span = 1;
	while (span < m) {
		span *= 6;
		q++;
	}
	long long limit = span / m * m;
	for (int attempt = 1;; attempt++) {
		long long v = 0;
		for (int k = 0; k < q; k++) {
			char *purpose =
				for_year ? xasprintf("sequence of play for %d step %d of %d try %d die %d",
						     for_year, step, m, attempt, k + 1)
					 : xasprintf("sequence of play step %d of %d try %d die %d", step,
						     m, attempt, k + 1);
			v = v * 6 + (dice_roll(d, log, RULE_GAME_YEAR, purpose) - 1);
			free(purpose);
		}
		if (v < limit)
			return (int)(v % m);
	}
}

/* The active players shuffled into `order`; `for_year` (0: the year being
 * played) names the year of play in the rolls' purpose. */
static size_t shuffle_players(const struct campaign *c, struct dice *d, struct event_log *log,
			      int *order, int for_year)
{
	size_t n = 0;
	/* rolled ahead for the next year (for_year): a player joining during
	 * this one enters when it begins (rules 1.2), so he is in its roll */
	for (size_t i = 0; i < c->player_count; i++)
		if (c->players[i].status == PLAYER_ACTIVE ||
		    (for_year && c->players[i].status == PLAYER_JOINING))
			order[n++] = (int)i;
	/* Fisher-Yates from the last place down: place i gets one of 0..i. */
	for (size_t i = n; i-- > 1;) {
		int j = uniform_choice(d, log, (int)i + 1, (int)(n - i), for_year);
		int tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	return n;
}

static json_t *player_keys(const struct campaign *c, const int *order, size_t n)
{
	json_t *keys = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(keys, json_string(rules_player_key(c, order[i])));
	return keys;
}

size_t rules_sequence_of_play(struct campaign *c, struct dice *d, struct event_log *log,
			      int *order)
{
	size_t n = shuffle_players(c, d, log, order, 0);
	event_emit(log, "sequence_of_play", RULE_GAME_YEAR, "{s:o}", "order",
		   player_keys(c, order, n));
	return n;
}

size_t rules_next_sequence_of_play(struct campaign *c, struct dice *d, struct event_log *log,
				   int year_of_play, int *order)
{
	size_t n = shuffle_players(c, d, log, order, year_of_play);
	event_emit(log, "next_sequence", RULE_GAME_YEAR, "{s:i, s:o}", "year_of_play",
		   year_of_play, "order", player_keys(c, order, n));
	return n;
}

void rules_year_prepare(struct campaign *c, struct dice *d, struct event_log *log)
{
	rules_set_phase(c, d, log, PHASE_CAMPAIGN);
	event_emit(log, "year_begin", RULE_GAME_YEAR, NULL);
	rules_contingent_rejoin_returning(c, NO_INDEX, log);
	for (size_t i = 0; i < c->player_count; i++) {
		if (c->players[i].status != PLAYER_ACTIVE)
			continue;
		if (c->year > c->start_year)
			rules_profound_peace(c, (int)i, NULL, log);
		c->players[i].movement_option = OPTION_NONE;
		c->players[i].fought_this_year = false;
	}
}

size_t rules_year_begin(struct campaign *c, struct dice *d, struct event_log *log, int *order)
{
	rules_year_prepare(c, d, log);
	return rules_sequence_of_play(c, d, log, order);
}

void rules_recruitment_begin(struct campaign *c, struct dice *d, struct event_log *log)
{
	rules_set_phase(c, d, log, PHASE_RECRUITMENT);
	rules_contingent_rejoin_returning(c, NO_INDEX, log);
	for (size_t i = 0; i < c->player_count; i++) {
		int points = rules_province_prestige(c, (int)i);
		if (c->players[i].status != PLAYER_ACTIVE)
			continue;
		c->players[i].province_prestige += points;
		event_emit(log, "province_prestige", RULE_PROVINCE_PRESTIGE, "{s:s, s:i, s:i}",
			   "player", rules_player_key(c, (int)i), "points", points, "total",
			   rules_player_score(c, (int)i));
	}
}

bool rules_campaign_end_roll(struct campaign *c, struct dice *d, struct event_log *log)
{
	if (c->year <= c->start_year) {
		event_emit(log, "end_roll", RULE_CAMPAIGN_END, "{s:b}", "rolled", 0);
		return false;
	}
	int a = dice_roll(d, log, RULE_CAMPAIGN_END, "campaign end die 1");
	int b = dice_roll(d, log, RULE_CAMPAIGN_END, "campaign end die 2");
	event_emit(log, "end_roll", RULE_CAMPAIGN_END, "{s:b, s:[i,i], s:i, s:b}", "rolled", 1,
		   "dice", a, b, "total", a + b, "end", a + b == 2);
	return a + b == 2;
}

int rules_player_score(const struct campaign *c, int player)
{
	if (!rules_valid_player(c, player) || c->players[player].status == PLAYER_LEFT)
		return 0;
	return c->players[player].battle_prestige + c->players[player].province_prestige;
}

size_t rules_campaign_winners(const struct campaign *c, int *winners)
{
	int best = 0;
	size_t n = 0;
	for (size_t i = 0; i < c->player_count; i++) {
		if (c->players[i].status == PLAYER_LEFT)
			continue;
		int s = rules_player_score(c, (int)i);
		if (n == 0 || s > best) {
			best = s;
			n = 0;
		}
		if (s == best)
			winners[n++] = (int)i;
	}
	return n;
}

void rules_campaign_end_vote(struct campaign *c, bool all_continue, struct event_log *log)
{
	if (all_continue) {
		event_emit(log, "end_vote", RULE_CAMPAIGN_END, "{s:b}", "continued", 1);
		c->year++;
		return;
	}
	int *winners = xcalloc(c->player_count ? c->player_count : 1, sizeof *winners);
	size_t n = rules_campaign_winners(c, winners);
	json_t *names = json_array(), *scores = json_object();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(names, json_string(rules_player_key(c, winners[i])));
	for (size_t i = 0; i < c->player_count; i++)
		json_object_set_new(scores, rules_player_key(c, (int)i),
				    json_integer(rules_player_score(c, (int)i)));
	free(winners);
	c->phase = PHASE_ENDED;
	event_emit(log, "campaign_end", RULE_CAMPAIGN_END, "{s:o, s:o}", "winners", names,
		   "scores", scores);
}

bool rules_year_end(struct campaign *c, struct dice *d, struct event_log *log)
{
	if (rules_campaign_end_roll(c, d, log)) {
		event_emit(log, "end_vote_needed", RULE_CAMPAIGN_END, NULL);
		return true;
	}
	event_emit(log, "year_end", RULE_GAME_YEAR, NULL);
	c->year++;
	return false;
}

bool rules_tributary_related(const struct campaign *c, int a, int b)
{
	if (!rules_valid_player(c, a) || !rules_valid_player(c, b) || a == b)
		return false;
	return c->players[a].overlord == b || c->players[b].overlord == a;
}

enum rules_status rules_alliance_make(struct campaign *c, int a, int b, struct event_log *log,
				      struct rules_reason *why)
{
	if (!rules_active_player(c, a) || !rules_active_player(c, b) || a == b)
		return rules_refuse(why, "an alliance is made by two different active players");
	if (rules_alliance_index(c, a, b) >= 0)
		return rules_refuse(why, "%s and %s are allies already",
				    rules_player_nation(c, a), rules_player_nation(c, b));
	if (rules_tributary_related(c, a, b))
		return rules_refuse(why, "%s and %s are overlord and tributary, allies already",
				    rules_player_nation(c, a), rules_player_nation(c, b));
	grow_array((void **)&c->alliances, &c->alliance_cap, c->alliance_count + 1,
		   sizeof *c->alliances);
	struct alliance *al = &c->alliances[c->alliance_count++];
	al->a = a < b ? a : b;
	al->b = a < b ? b : a;
	al->since_year = c->year;
	event_emit(log, "alliance", RULE_ALLIES, "{s:s, s:s}", "player",
		   rules_player_key(c, al->a), "ally", rules_player_key(c, al->b));
	return RULES_OK;
}

enum rules_status rules_alliance_end(struct campaign *c, int a, int b, int by, const char *how,
				     struct event_log *log, struct rules_reason *why)
{
	int i = rules_alliance_index(c, a, b);
	if (i < 0)
		return rules_refuse(why, "%s and %s are not allies by declaration",
				    rules_player_nation(c, a), rules_player_nation(c, b));
	int lo = c->alliances[i].a, hi = c->alliances[i].b;
	memmove(&c->alliances[i], &c->alliances[i + 1],
		(c->alliance_count - (size_t)i - 1) * sizeof *c->alliances);
	c->alliance_count--;
	event_emit(log, "alliance_ended", RULE_ALLIES, "{s:s, s:s, s:s, s:s}", "player",
		   rules_player_key(c, lo), "ally", rules_player_key(c, hi), "by",
		   rules_player_key(c, by), "how", how ? how : "declared");
	return RULES_OK;
}

enum rules_status rules_tributary_request(struct campaign *c, int tributary, int overlord,
					  bool accepted, struct event_log *log,
					  struct rules_reason *why)
{
	if (!rules_active_player(c, tributary) || !rules_active_player(c, overlord))
		return rules_refuse(why, "tributaries and overlords are active players");
	if (tributary == overlord)
		return rules_refuse(why, "a player cannot be its own overlord");
	int current = c->players[tributary].overlord;
	if (current != NO_INDEX)
		return rules_refuse(why, "%s is already the tributary of %s and cannot have two overlords",
				    rules_player_nation(c, tributary), rules_player_nation(c, current));
	for (int up = overlord, steps = 0; up != NO_INDEX && steps <= (int)c->player_count;
	     up = c->players[up].overlord, steps++)
		if (up == tributary)
			return rules_refuse(why, "%s is below %s in a chain of tributaries",
					    rules_player_nation(c, overlord),
					    rules_player_nation(c, tributary));
	if (accepted)
		c->players[tributary].overlord = overlord;
	event_emit(log, "tributary", RULE_TRIBUTARIES, "{s:s, s:s, s:b}", "tributary",
		   rules_player_key(c, tributary), "overlord", rules_player_key(c, overlord),
		   "accepted", accepted);
	return RULES_OK;
}

enum rules_status rules_tributary_renounce(struct campaign *c, int tributary,
					   struct event_log *log, struct rules_reason *why)
{
	if (!rules_valid_player(c, tributary) || c->players[tributary].overlord == NO_INDEX)
		return rules_refuse(why, "that player is nobody's tributary");
	if (c->phase != PHASE_RECRUITMENT)
		return rules_refuse(why, "a tributary relationship is renounced in the recruitment phase");
	int overlord = c->players[tributary].overlord;
	c->players[tributary].overlord = NO_INDEX;
	event_emit(log, "tributary_renounced", RULE_TRIBUTARIES, "{s:s, s:s}", "tributary",
		   rules_player_key(c, tributary), "overlord", rules_player_key(c, overlord));
	return RULES_OK;
}

enum rules_status rules_tributary_order_contingent(struct campaign *c, int orderer,
						   const struct contingent_order *o,
						   struct dice *d, struct event_log *log,
						   int *index, struct rules_reason *why)
{
	if (!rules_active_player(c, orderer) || !rules_valid_player(c, o->owner) ||
	    c->players[o->owner].overlord != orderer)
		return rules_refuse(why, "%s is not the tributary of %s",
				    rules_player_nation(c, o->owner), rules_player_nation(c, orderer));
	if (o->to_player != orderer && o->to_player != c->players[orderer].overlord)
		return rules_refuse(why,
				    "a tributary's contingent supports its overlord or, as a substitute, the overlord's overlord");
	if (rules_contingent_check(c, o, why) != RULES_OK)
		return RULES_REFUSED;
	event_emit(log, "tributary_order", RULE_TRIBUTARIES, "{s:s, s:s, s:s}", "overlord",
		   rules_player_key(c, orderer), "tributary", rules_player_key(c, o->owner), "to",
		   rules_player_key(c, o->to_player));
	return rules_contingent_send(c, o, d, log, index, why);
}

void rules_tributary_free_all(struct campaign *c, int overlord, struct event_log *log)
{
	for (size_t i = 0; i < c->player_count; i++)
		if (c->players[i].overlord == overlord && (int)i != overlord) {
			c->players[i].overlord = NO_INDEX;
			event_emit(log, "tributary_freed", RULE_TRIBUTARIES, "{s:s, s:s}", "tributary",
				   rules_player_key(c, (int)i), "overlord",
				   rules_player_key(c, overlord));
		}
}

/* A player leaving the board: its relationships end, its contingents and
 * the contingents with it go home, its sieges are lifted. */
static void leave_board(struct campaign *c, int player, struct event_log *log)
{
	rules_tributary_free_all(c, player, log);
	c->players[player].overlord = NO_INDEX;
	for (size_t i = c->contingent_count; i-- > 0;)
		if (c->contingents[i].owner == player || c->contingents[i].with_player == player)
			rules_contingent_rejoin(c, (int)i, log);
	rules_lift_sieges_by(c, player, NO_INDEX, log);
	c->players[player].location = NO_INDEX;
}

void rules_player_knocked_out(struct campaign *c, int player, struct event_log *log)
{
	if (!rules_active_player(c, player))
		return;
	c->players[player].status = PLAYER_OUT;
	event_emit(log, "player_out", RULE_LEAVING, "{s:s, s:i}", "player",
		   rules_player_key(c, player), "prestige", rules_player_score(c, player));
	leave_board(c, player, log);
}

enum rules_status rules_player_leaves(struct campaign *c, int player, bool replaced,
				      struct event_log *log, struct rules_reason *why)
{
	/* a player still joining (campaignctl add-player) may leave too */
	if (!rules_active_player(c, player) &&
	    !(rules_valid_player(c, player) && c->players[player].status == PLAYER_JOINING))
		return rules_refuse(why, "there is no active player number %d", player);
	if (replaced) {
		event_emit(log, "player_replaced", RULE_LEAVING, "{s:s}", "player",
			   rules_player_key(c, player));
		return RULES_OK;
	}
	struct player *p = &c->players[player];
	int forfeited = rules_player_score(c, player);
	json_t *neutral = json_array();
	for (size_t i = 0; i < c->province_count; i++)
		if (c->provinces[i].owner == player) {
			c->provinces[i].owner = NO_INDEX;
			json_array_append_new(neutral, json_string(rules_province_name(c, (int)i)));
		}
	p->status = PLAYER_LEFT;
	p->battle_prestige = 0;
	p->province_prestige = 0;
	event_emit(log, "player_left", RULE_LEAVING, "{s:s, s:o, s:i}", "player",
		   rules_player_key(c, player), "provinces_neutral", neutral, "prestige_lost",
		   forfeited);
	leave_board(c, player, log);
	return RULES_OK;
}
