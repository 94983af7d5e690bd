/* Benchmark: a synthetic campaign of 64 players and 512 provinces (a 32 x 16
 * grid, every seventh column crossed by sea) resolving whole years with the
 * verifiable dice: everyone moves, invades or sends a contingent, sieges,
 * a few battles with made-up results, recruitment, prestige, the end roll.
 * Prints figures; asserts nothing about time. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "dbm/rules.h"
#include "base/util.h"

#define COLS 32
#define ROWS 16
#define PLAYERS 64
#define PER_PLAYER (COLS * ROWS / PLAYERS)
#define YEARS 10

static struct campaign *build(void)
{
	struct campaign *c = campaign_new();
	c->name = xstrdup("bench");
	c->start_year = c->year = 1400;
	for (int i = 0; i < COLS * ROWS; i++) {
		struct province *p = campaign_add_province(c);
		p->name = xasprintf("P%03d", i);
		p->owner = i / PER_PLAYER;
		p->home_of = i % PER_PLAYER < 4 ? p->owner : NO_INDEX;
	}
	for (int y = 0; y < ROWS; y++)
		for (int x = 0; x < COLS; x++) {
			int i = y * COLS + x;
			if (x + 1 < COLS) {
				struct route *r = campaign_add_route(c);
				r->a = i;
				r->b = i + 1;
				r->sea = x % 7 == 6;
			}
			if (y + 1 < ROWS) {
				struct route *r = campaign_add_route(c);
				r->a = i;
				r->b = i + COLS;
			}
		}
	static const struct {
		const char *label, *code;
		int cost, min, max;
		bool general;
	} list[] = {
		{"C-in-C", "Kn", 60, 1, 1, true}, {"Sub-general", "Cv", 56, 0, 3, true},
		{"Kn(O)", "Kn", 24, 4, 12, false}, {"LH(O)", "LH", 10, 0, 12, false},
		{"Sp(O)", "Sp", 10, 20, 36, false}, {"Ps(O)", "Ps", 4, 0, 20, false},
		{"Ax(O)", "Ax", 7, 0, 16, false},
	};
	static const int army[] = {1, 2, 10, 10, 30, 16, 12};
	for (int i = 0; i < PLAYERS; i++) {
		struct player *p = campaign_add_player(c);
		p->key = xasprintf("p%02d", i);
		for (size_t t = 0; t < sizeof list / sizeof *list; t++) {
			struct element_type *e = army_list_add(&p->list);
			e->label = xstrdup(list[t].label);
			snprintf(e->code, sizeof e->code, "%s", list[t].code);
			e->cost_half_ap = list[t].cost;
			e->list_min = list[t].min;
			e->list_max = list[t].max;
			e->general = list[t].general;
		}
		player_alloc_troops(p);
		memcpy(p->field.count, army, sizeof army);
		p->location = i * PER_PLAYER;
	}
	return c;
}

/* A province next to the player's army held by someone it may attack. */
static int target_next_to(const struct campaign *c, int player)
{
	int nb[8];
	int at = c->players[player].location;
	size_t n = campaign_neighbours(c, at, nb, 8);
	for (size_t i = 0; i < n && i < 8; i++)
		if (rules_may_attack(c, player, nb[i], NULL) == RULES_OK)
			return nb[i];
	return NO_INDEX;
}

static void battle(struct campaign *c, int attacker, int province, struct dice *d,
		   struct event_log *log, int seq)
{
	int defender = c->provinces[province].owner;
	if (defender == NO_INDEX || c->players[defender].status != PLAYER_ACTIVE)
		return;
	int destroyed[2][7] = {{0, 0, 1, 1, 3, 1, 0}, {0, 1, 2, 0, 4, 2, 1}};
	int fled[2][7] = {{0, 0, 0, 1, 0, 2, 0}, {0, 0, 0, 2, 1, 0, 0}};
	for (int s = 0; s < 2; s++) {
		const struct player *p = &c->players[s == 0 ? attacker : defender];
		for (int t = 0; t < 7; t++) {
			if (destroyed[s][t] + fled[s][t] > p->field.count[t]) {
				destroyed[s][t] = 0;
				fled[s][t] = 0;
			}
		}
	}
	struct battle_party parties[] = {
		{.player = attacker, .side = 0, .contingent = NO_INDEX, .commands = 3,
		 .others_demoralised = seq % 2, .destroyed = destroyed[0], .fled = fled[0]},
		{.player = defender, .side = 1, .contingent = NO_INDEX, .commands = 3,
		 .c_in_c_demoralised = seq % 3 == 0, .destroyed = destroyed[1], .fled = fled[1]},
	};
	struct battle_result r = {
		.province = province, .winner_side = seq % 2, .parties = parties, .party_count = 2,
		.enemy_came_from = NO_INDEX, .retreat_choice = NO_INDEX,
	};
	c->players[defender].location = province;
	rules_apply_battle_result(c, &r, d, log, NULL);
}

static void recruit(struct campaign *c, int player, struct event_log *log)
{
	struct player *p = &c->players[player];
	int take[7] = {0};
	int budget = rules_recruit_allowance(c, player);
	int room = p->cap_half_ap - rules_army_half_ap(c, player);
	if (room < budget)
		budget = room;
	/* Minimums first, then whatever fits. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t t = 0; t < p->list.count; t++) {
			int cost = p->list.types[t].cost_half_ap;
			while (take[t] < p->reserve.count[t] && cost <= budget &&
			       (pass == 1 || p->field.count[t] + take[t] < p->list.types[t].list_min) &&
			       p->field.count[t] + take[t] < p->list.types[t].list_max) {
				take[t]++;
				budget -= cost;
			}
		}
	rules_recruit(c, player, take, log, NULL);
}

int main(void)
{
	struct campaign *c = build();
	struct event_log log;
	event_log_init(&log);
	unsigned char seed[DICE_SEED_BYTES];
	for (int i = 0; i < DICE_SEED_BYTES; i++)
		seed[i] = (unsigned char)(i * 7 + 1);
	struct dice_hmac dice;
	int order[PLAYERS];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int years = 0, battles = 0;
	for (; years < YEARS && c->phase != PHASE_ENDED; years++) {
		dice_hmac_init(&dice, seed, c->year, PHASE_CAMPAIGN, 0);
		size_t n = rules_year_begin(c, &dice.base, &log, order);
		for (size_t k = 0; k < n; k++) {
			int pl = order[k];
			if (c->players[pl].status != PLAYER_ACTIVE)
				continue;
			bool forced = false;
			if (pl % 4 != 1) {
				int target = target_next_to(c, pl);
				if (target != NO_INDEX) {
					struct invasion_order o = {.player = pl, .target = target,
								   .path = &target, .stages = 1,
								   .force_passage = true};
					struct move_outcome out;
					bool arrived = false;
					if (rules_invade(c, &o, &dice.base, &log, &out, &arrived, NULL) ==
					    RULES_OK)
						forced = out.forced_passage;
					rules_supply_check(c, pl, NULL, forced, NULL, &dice.base, &log);
					if (arrived && k % 8 == 0) {
						battle(c, pl, target, &dice.base, &log, (int)k);
						battles++;
					} else if (arrived) {
						rules_siege_round(c, pl, target, NULL, &dice.base, &log,
								  NULL, NULL);
					}
					continue;
				}
			}
			int ally = pl % 2 ? pl - 1 : pl + 1;
			int troops[7] = {0, 1, 2, 0, 2, 0, 0};
			struct contingent_order co = {.owner = pl, .to_player = ally, .troops = troops,
						      .force_passage = true};
			rules_contingent_send(c, &co, &dice.base, &log, NULL, NULL);
		}
		rules_recruitment_begin(c, &dice.base, &log);
		for (size_t i = 0; i < c->player_count; i++)
			if (c->players[i].status == PLAYER_ACTIVE)
				recruit(c, (int)i, &log);
		if (rules_year_end(c, &dice.base, &log))
			rules_campaign_end_vote(c, true, &log);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	int active = 0;
	for (size_t i = 0; i < c->player_count; i++)
		active += c->players[i].status == PLAYER_ACTIVE;
	printf("bench_rules: %d players, %zu provinces, %zu routes\n", PLAYERS, c->province_count,
	       c->route_count);
	printf("bench_rules: %d years in %.1f ms (%.2f ms a year), %d battles, %zu events, "
	       "%zu rolls, %d players still in\n",
	       years, ms, ms / years, battles, log.count, event_log_count(&log, "roll"), active);
	event_log_free(&log);
	dice_hmac_clear(&dice);
	campaign_free(c);
	return 0;
}
