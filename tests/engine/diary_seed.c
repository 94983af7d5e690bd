/* Test helper: plays two scripted years of the Europe 1450 example through
 * the rules, with verifiable dice from a fixed seed, and stores the events,
 * the dice and an organiser's comment in a campaign
 * database made by `campaignctl init`. Used by publish.test.
 *
 *   diary_seed DB
 *
 * The dice of both years are stored as revealed, and an organiser's comment
 * with markup is added after the third event of 1450. The script: in 1450 Burgundy invades Liège and France Poitou (sieges of
 * neutral cities), England sails to Gascony, the Empire stays at home; in
 * 1451 England invades Poitou if France holds it (France defends and wins
 * the battle), otherwise England and Burgundy press their sieges. */
#include "config.h"

#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "dbm/rules.h"
#include "store/store.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_player(const struct campaign *c, const char *key)
{
	int p = campaign_find_player(c, key);
	if (p < 0) {
		fprintf(stderr, "diary_seed: no player %s\n", key);
		exit(99);
	}
	return p;
}

static int find_province(const struct campaign *c, const char *name)
{
	int p = campaign_find_province(c, name);
	if (p < 0) {
		fprintf(stderr, "diary_seed: no province %s\n", name);
		exit(99);
	}
	return p;
}

static void refused(const char *what, const struct rules_reason *why)
{
	fprintf(stderr, "diary_seed: %s refused: %s\n", what, why->text);
	exit(99);
}

/* Invades `target` by the shortest path, or lays siege again when already
 * there; a neutral or undefended city is then besieged. */
static void invade_or_siege(struct campaign *c, int player, const char *target_name,
			    struct dice *d, struct event_log *log)
{
	int target = find_province(c, target_name);
	struct rules_reason why;
	if (c->provinces[target].owner == player)
		return;
	if (c->players[player].location != target) {
		int path[8];
		int stages = rules_shortest_path(c, player, c->players[player].location, target, path, 8);
		if (stages < 0)
			refused("path", &why);
		struct invasion_order o = {.player = player, .target = target, .path = path,
					   .stages = (size_t)stages, .force_passage = true};
		struct move_outcome out;
		bool arrived = false;
		if (rules_invade(c, &o, d, log, &out, &arrived, &why) != RULES_OK)
			refused("invasion", &why);
		rules_supply_check(c, player, NULL, out.forced_passage, NULL, d, log);
		if (!arrived)
			return;
	}
	bool captured = false;
	if (rules_siege_round(c, player, target, NULL, d, log, &captured, &why) != RULES_OK)
		refused("siege", &why);
}

static void store_log(struct store *s, struct event_log *log, size_t from)
{
	char *err = NULL;
	for (size_t i = from; i < log->count; i++)
		if (store_append_event(s, log->events[i], NULL, &err) != STORE_OK) {
			fprintf(stderr, "diary_seed: %s\n", err);
			exit(99);
		}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: diary_seed DB\n");
		return 64;
	}
	struct store *s = NULL;
	struct campaign *c = NULL;
	char *err = NULL;
	if (store_open(argv[1], 0, &s, &err) != STORE_OK ||
	    store_load_campaign(s, &c, &err) != STORE_OK) {
		fprintf(stderr, "diary_seed: %s\n", err);
		return 99;
	}
	unsigned char seed[DICE_SEED_BYTES];
	for (size_t i = 0; i < sizeof seed; i++)
		seed[i] = (unsigned char)(i * 7 + 3);
	int france = find_player(c, "france"), england = find_player(c, "england"),
	    burgundy = find_player(c, "burgundy");
	struct event_log log;
	event_log_init(&log);
	struct dice_hmac dh;
	int *order = xcalloc(c->player_count, sizeof *order);

	for (int year = c->start_year; year < c->start_year + 2; year++) {
		size_t mark = log.count;
		dice_hmac_init(&dh, seed, year, PHASE_CAMPAIGN, 0);
		struct dice *d = &dh.base;
		rules_set_phase(c, d, &log, PHASE_CAMPAIGN);
		size_t n = rules_year_begin(c, d, &log, order);
		for (size_t t = 0; t < n; t++) {
			int p = order[t];
			struct rules_reason why;
			if (p == burgundy) {
				invade_or_siege(c, p, year == c->start_year ? "Liège" : "Lorraine", d, &log);
			} else if (p == france) {
				invade_or_siege(c, p, "Poitou", d, &log);
			} else if (p == england && year == c->start_year) {
				int path[1] = {find_province(c, "Gascony")};
				struct move_order mo = {.player = p, .contingent = NO_INDEX, .path = path,
							.stages = 1};
				struct move_outcome out;
				if (rules_field_move(c, &mo, d, &log, &out, &why) != RULES_OK)
					refused("move", &why);
				rules_supply_check(c, p, NULL, false, NULL, d, &log);
			} else if (p == england) {
				int poitou = find_province(c, "Poitou");
				if (c->provinces[poitou].owner != france)
					continue;
				invade_or_siege(c, p, "Poitou", d, &log);
			}
		}
		/* A battle if England sits at a French Poitou with France inside. */
		int poitou = find_province(c, "Poitou");
		if (c->players[england].location == poitou &&
		    c->provinces[poitou].owner == france &&
		    c->players[france].location == poitou) {
			struct battle_party parties[2] = {
				{.player = france, .side = 0, .contingent = NO_INDEX, .commands = 3},
				{.player = england, .side = 1, .contingent = NO_INDEX, .commands = 3,
				 .others_demoralised = 1},
			};
			struct battle_result r = {.province = poitou, .winner_side = 0,
						  .how = BATTLE_DEMORALISED, .parties = parties,
						  .party_count = 2,
						  .enemy_came_from = find_province(c, "Gascony"),
						  .retreat_choice = NO_INDEX};
			struct rules_reason why;
			if (rules_apply_battle_result(c, &r, d, &log, &why) != RULES_OK)
				refused("battle", &why);
		}
		rules_set_phase(c, d, &log, PHASE_RECRUITMENT);
		rules_recruitment_begin(c, d, &log);
		if (rules_year_end(c, d, &log))
			rules_campaign_end_vote(c, true, &log);
		store_log(s, &log, mark);

		struct store_dice_year dy = {.year = year, .counter = dh.base.counter,
					     .revealed = true};
		dice_commitment(seed, dy.commitment);
		for (size_t i = 0; i < DICE_SEED_BYTES; i++)
			snprintf(dy.seed_hex + 2 * i, 3, "%02x", seed[i]);
		if (store_dice_year_put(s, &dy, &err) != STORE_OK) {
			fprintf(stderr, "diary_seed: %s\n", err);
			return 99;
		}
	}
	if (store_comment_add(s, c->start_year, 3, "France, as ever, <b>shone</b> & dazzled.", 0,
			      &err) != STORE_OK) {
		fprintf(stderr, "diary_seed: %s\n", err);
		return 99;
	}
	if (store_save_state(s, c, &err) != STORE_OK) {
		fprintf(stderr, "diary_seed: %s\n", err);
		return 99;
	}
	printf("%zu events\n", log.count);
	free(order);
	event_log_free(&log);
	campaign_free(c);
	store_close(s);
	return 0;
}
