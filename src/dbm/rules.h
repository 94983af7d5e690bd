/* The campaign rules (rulebook sections 2 and 3, and our readings in
 * doc/rules.md) as a pure core: no storage, no mail, no clock and no
 * randomness of its own. Dice come in through struct dice; every consequence
 * is an event in the struct event_log (the rules never write prose).
 *
 * Conventions for every state transition below:
 *  - inputs are const structs naming the player's choices explicitly (storm
 *    continue/halt/return, loss picks, retreat choice), so the engine can pass
 *    standing orders and a script can drive a whole year;
 *  - the function first checks everything it can without dice; if the order
 *    is not allowed it returns RULES_REFUSED, changes nothing, logs nothing,
 *    and writes a sentence saying why into `why` (which may be NULL);
 *  - once checked it returns RULES_OK and applies the consequences, rolling
 *    the dice it needs and logging each step;
 *  - army points are in halves (HALF_AP(40) = 80) like everywhere else;
 *  - player, province and contingent arguments are indices; a bad index is
 *    refused, never a crash. Contingent indices shift when a contingent is
 *    removed, so do not keep them across calls.
 * The "*_check" functions are the checking half alone, for acknowledging
 * orders before they are carried out. */
#ifndef CAMPAIGN_RULES_H
#define CAMPAIGN_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"

enum rules_status { RULES_OK = 0, RULES_REFUSED = 1 };

#define RULES_REASON_MAX 256
struct rules_reason {
	char text[RULES_REASON_MAX];
};

/* Rulebook sections, as they appear in the "rule" field of events. */
#define RULE_NEW_PLAYER "1.2 A new player"
#define RULE_LOSING_TROOPS "1.3 Losing troops"
#define RULE_GAME_YEAR "1.4 Game year"
#define RULE_NORMAL_MOVEMENT "2.1 Normal movement"
#define RULE_FORCED_MARCH "2.1 Forced marching"
#define RULE_SEA_MOVEMENT "2.1 Sea movement"
#define RULE_HOSTILE_PROVINCES "2.1 Hostile provinces"
#define RULE_SUPPLY "2.1 Supply"
#define RULE_INVASION "2.2 Invasion"
#define RULE_SIEGE "2.2 Siege"
#define RULE_DEFENDING "2.2.1 Defending"
#define RULE_BATTLE_LOSSES "2.2.1 Losses"
#define RULE_BATTLE_CONSEQUENCES "2.2.1 Consequences"
#define RULE_BATTLE_PRESTIGE "2.2.2 Prestige"
#define RULE_CONTINGENT_MOVEMENT "2.3 Movement"
#define RULE_CONTINGENT_COMPOSITION "2.3 Composition"
#define RULE_CONTINGENT_ARRIVAL "2.3 Arrival"
#define RULE_CONTINGENT_PRESTIGE "2.3 During battle"
#define RULE_CONTINGENT_RECALL "2.3 Recall"
#define RULE_RESERVE "3.1 The reserve"
#define RULE_RECRUITMENT "3.1 Recruitment"
#define RULE_GENERALS "3.1 Generals"
#define RULE_CHANGING_ARMY "3.1 Changing your army"
#define RULE_PROFOUND_PEACE "3.1 Profound peace"
#define RULE_PROVINCE_PRESTIGE "3.2 Prestige for provinces"
#define RULE_CAMPAIGN_END "3.2 Campaign end"
#define RULE_TRIBUTARIES "3.2 Tributaries"
#define RULE_ALLIES "2.3 Allied contingents"
#define RULE_LEAVING "3.2 Leaving game"

/* Fixed numbers of the rulebook, in half AP. */
#define RULES_NORMAL_STAGES 2
#define RULES_MAX_STAGES 4
#define RULES_FORCED_MARCH_HALF_AP HALF_AP(40)   /* per stage beyond 2 */
#define RULES_STORM_PIP_HALF_AP HALF_AP(25)      /* per pip of the second die */
#define RULES_STORM_MOUNTED_HALF_AP HALF_AP(25)  /* the first 25 AP lost: mounted */
#define RULES_PASSAGE_PIP_HALF_AP HALF_AP(40)    /* forcing a way, per pip */
#define RULES_SUPPLY_PIP_HALF_AP HALF_AP(40)     /* out of supply, per pip */
#define RULES_SIEGE_FAILED_HALF_AP HALF_AP(40)   /* a failed siege round */
#define RULES_CONTINGENT_MAX_HALF_AP HALF_AP(80)
#define RULES_RECRUIT_PER_PROVINCE_HALF_AP HALF_AP(10)
#define RULES_PEACE_CAP_3_HALF_AP HALF_AP(440)
#define RULES_PEACE_CAP_6_HALF_AP HALF_AP(400)
#define RULES_MIN_BATTLE_PRESTIGE 40

/* ---- Generic losses (1.3 Losing troops; rules_loss.c) ----------------- */

/* Whoever pays: `player`'s field army (contingent == NO_INDEX) or one of
 * the contingents in c->contingents (then `player` must be its owner).
 * `due_half_ap`: troops worth at least this much are lost ("rounded against
 * you"). `mounted_first_half_ap`: of those, at least this much must be
 * mounted troops if the force has them (sea storms: 25 AP; else 0).
 * `pick`: the element counts the player chooses to lose, indexed like the
 * player's army list, or NULL: then the pick his LOSSES FIRST preference
 * makes (struct player.loss_first, rules_loss_pick_from_preference), else
 * the default. A pick that breaks a rule
 * (see rules_loss_pick_check) is not obeyed: the default is used and a
 * "loss_pick_refused" event says why. The default (doc/rules.md, "Generic
 * losses") spreads the loss over the arms, largest holding first, chooses
 * the last element to waste as little as possible, and takes generals last.
 * One general is always kept; a force that cannot pay loses everything but
 * one general. Lost troops go to the owner's reserve. `cause` names the
 * cause in the event ("sea storm", "supply" ...). Logs one "loss" event.
 * Returns the half AP actually lost (0 if the arguments are bad). */
int rules_generic_loss(struct campaign *c, int player, int contingent, int due_half_ap,
		       int mounted_first_half_ap, const int *pick, const char *rule,
		       const char *cause, struct event_log *log);

/* Checks a loss pick without applying it: counts within what the force has,
 * at least one general left, at least the AP due (or everything but one
 * general), and at least the mounted share. */
enum rules_status rules_loss_pick_check(const struct campaign *c, int player, int contingent,
					int due_half_ap, int mounted_first_half_ap,
					const int *pick, struct rules_reason *why);

/* The default pick for a loss, written into `out` (one count per element
 * type of the player's list). Returns the half AP it removes. */
int rules_default_loss_pick(const struct campaign *c, int player, int contingent,
			    int due_half_ap, int mounted_first_half_ap, int *out);

/* The pick a LOSSES FIRST preference makes (element types of the player's
 * list, `prefer[0]` first; bad or repeated indices are ignored): whole
 * elements of the first listed line are taken while the AP due is not
 * covered, then of the next line, and so on ("rounded against you": the
 * last element may go past what is due); whatever is still due is taken
 * by the default pick from what is left. The mounted share (sea storms)
 * comes first, from the listed mounted lines in order, then by default.
 * One general is always kept, and a force that cannot pay loses everything
 * but one general, as with the default. Writes `out` (one count per element
 * type) and returns the half AP it removes; 0 if the force does not exist.
 * rules_generic_loss uses it, when given no explicit pick, for a player
 * whose struct player.loss_first is set (chosen_by "preference"). */
int rules_loss_pick_from_preference(const struct campaign *c, int player, int contingent,
				    int due_half_ap, int mounted_first_half_ap,
				    const int *prefer, size_t prefer_count, int *out);

/* ---- Movement (2.1; rules_move.c) ------------------------------------- */

enum storm_choice {
	STORM_CONTINUE, /* go on to the destination (default) */
	STORM_HALT,     /* stop in the province the stormy stage set out from */
	STORM_RETURN,   /* go back to where the move started, without more dice */
};

enum move_kind {
	MOVE_FRIENDLY,   /* the Move option: to a friendly province */
	MOVE_INVADE,     /* towards an invaded province (rules_invade) */
	MOVE_DEFEND,     /* moving up to, or away from, an invaded province */
	MOVE_RETREAT,    /* after a lost battle: forces its way where it must */
	MOVE_CONTINGENT, /* a contingent joining a field army */
	MOVE_RETURN,     /* a contingent returning to its field army */
};

/* A force moving along a path of provinces. */
struct move_order {
	int player;
	int contingent;          /* NO_INDEX: the field army */
	enum move_kind kind;
	const int *path;         /* provinces entered, in order; the last is the end */
	size_t stages;           /* length of path */
	enum storm_choice on_storm;
	bool force_passage;      /* force a way where passage is not permitted */
	const bool *passage;     /* per player: lets this force pass; NULL = nobody */
	const int *loss_pick;    /* NULL = default picks for the losses of the move */
};

struct move_outcome {
	int end_province;   /* where the force stands after the move */
	int stages_moved;   /* stages completed */
	bool storm;         /* caught in at least one storm */
	bool halted;        /* stopped by its own choice after a storm */
	bool returned;      /* went back to its start after a storm */
	bool forced_passage; /* forced a way this move: no supply loss after it */
	int lost_half_ap;   /* storms + forced passage + forced march */
};

/* Forced march: 40 AP for each stage beyond 2 (0, 0, 0, 80, 160 for 0..4
 * stages, in half AP). Stages beyond 4 are not allowed at all. */
int rules_forced_march_cost(int stages);

/* One die for one sea stage; on a 1 (*storm set) a second die × 25 AP is
 * lost, the first 25 AP of it mounted. Returns the half AP lost.
 * `stage` (1-based) only names the stage in the roll's purpose. */
int rules_sea_storm(struct campaign *c, int player, int contingent, int stage,
		    const int *pick, struct dice *d, struct event_log *log, bool *storm);

/* Forcing a way through hostile `province`: one die × 40 AP.
 * Returns the half AP lost. */
int rules_force_passage(struct campaign *c, int player, int contingent, int province,
			const int *pick, struct dice *d, struct event_log *log);

/* How a force may enter `province` on its way through: */
enum passage {
	PASSAGE_FREE,     /* own province, or permitted by everyone it must ask */
	PASSAGE_FORCE,    /* hostile and unoccupied: may force its way */
	PASSAGE_BARRED,   /* a field army present refuses, or an inviolate neutral */
};
enum passage rules_passage(const struct campaign *c, int player, int province,
			   const bool *passage);

/* Checks a move without dice: stage limits (2 for contingents, 4 for the
 * rest, any for returning contingents), routes, passage, destination. */
enum rules_status rules_move_check(const struct campaign *c, const struct move_order *o,
				   struct rules_reason *why);
/* Checks, then moves stage by stage: sea storm -> forced passage -> forced
 * march for each stage; field armies' location is updated, a field army that
 * leaves a siege lifts it. Does not check supply (rules_supply_check after
 * the player's move) and does not take a movement option (rules_field_move,
 * rules_invade do). */
enum rules_status rules_move(struct campaign *c, const struct move_order *o, struct dice *d,
			     struct event_log *log, struct move_outcome *out,
			     struct rules_reason *why);

/* The Move option: the field army moves to a friendly province (own, or one
 * whose owner permits). Takes the year's movement option and recalls the
 * player's contingents. `o->kind` is ignored (MOVE_FRIENDLY). */
enum rules_status rules_field_move(struct campaign *c, const struct move_order *o,
				   struct dice *d, struct event_log *log,
				   struct move_outcome *out, struct rules_reason *why);

/* In supply: at, or one route from, a city controlled by the player or by a
 * player in `supply` (per player; NULL = nobody). Sea routes count when
 * settings.supply_across_sea. A player's own province is always a city in
 * supply, so an army besieged in its own city is in supply. */
bool rules_in_supply(const struct campaign *c, int player, const bool *supply);
/* At the end of the player's move: out of supply costs one die × 40 AP,
 * unless the move forced a way (one set of losses only). Only field armies.
 * Returns the half AP lost. */
int rules_supply_check(struct campaign *c, int player, const bool *supply,
		       bool forced_passage_this_move, const int *pick, struct dice *d,
		       struct event_log *log);

/* A shortest path of stages from `from` to `to`; among equally short ones,
 * the one through fewest provinces hostile to `player`, then the lowest
 * province indices. Writes up to `max` provinces (the first entered first)
 * and returns the number of stages, or -1 if `to` cannot be reached. */
int rules_shortest_path(const struct campaign *c, int player, int from, int to, int *path,
			size_t max);

/* ---- Invasion and sieges (2.2; rules_siege.c) ------------------------- */

struct invasion_order {
	int player;
	int target;              /* the province invaded */
	const int *path;         /* to the target; NULL/0 stages when already there */
	size_t stages;
	enum storm_choice on_storm;
	bool force_passage;
	const bool *passage;
	const int *loss_pick;
};

/* Can `attacker` attack the province? Not its own, not an inviolate
 * neutral, not a province of its direct overlord or tributary. */
enum rules_status rules_may_attack(const struct campaign *c, int attacker, int province,
				   struct rules_reason *why);
enum rules_status rules_invade_check(const struct campaign *c, const struct invasion_order *o,
				     struct rules_reason *why);
/* The Invade option: takes the movement option (even if a storm then stops
 * the army: announcing an invasion counts), recalls the player's
 * contingents, moves the army. `arrived` tells whether it reached the target.
 * Next the engine checks supply, then asks the defender (rules_defend). */
enum rules_status rules_invade(struct campaign *c, const struct invasion_order *o,
			       struct dice *d, struct event_log *log, struct move_outcome *out,
			       bool *arrived, struct rules_reason *why);

/* ---- Relief (2.3; rules_relief.c) -------------------------------------
 * An INVADE of an ally's city besieged by a field army standing there is a
 * relief: no attack on the ally (rules_may_attack is not asked, the
 * alliance stands), a battle with the besieger, the besieged army giving
 * only a contingent to the relieving side. */

/* The besieger that `player` would fight by invading `province` as a
 * relief (an ally's city, its besieger's field army there, not an ally of
 * `player`), or NO_INDEX when it is no relief. */
int rules_relief_besieger(const struct campaign *c, int player, int province);
/* The besieged player's contingent joins the relieving army in the city
 * (both are there): `pick` (counts by army-list line: his CONTINGENT FOR the
 * relieving player) if it keeps the rules of 2.3 Composition, else the
 * default (the cheapest general that is not the last, then elements in
 * list order within 80 AP). It has arrived (no roll) and takes no movement
 * option. Refused when no general can be spared. */
enum rules_status rules_relief_contingent(struct campaign *c, int besieged, int relieving,
					  const int *pick, struct event_log *log, int *index,
					  struct rules_reason *why);
/* After the battle: the besieged player's contingents with the relieving
 * army go back into the city, whoever won. */
void rules_relief_rejoin(struct campaign *c, int besieged, int relieving, struct event_log *log);

enum defence_choice { DEFEND_BATTLE, DEFEND_SIEGE };
struct defence_order {
	int player;              /* owner of the invaded province */
	int province;
	enum defence_choice choice;
	const int *path;         /* field army moving up to (battle, siege) or away
				  * from (siege) the province; NULL = stays */
	size_t stages;
	enum storm_choice on_storm;
	bool force_passage;
	const bool *passage;
	const int *loss_pick;
};
/* The defender's answer to an invasion. Battle: the field army must end in
 * the province. Siege: it stands inside or retreats to another of the
 * player's provinces. The move is in addition to the player's own option.
 * Logs "defence". For a siege the engine then calls rules_siege_round. */
enum rules_status rules_defend(struct campaign *c, const struct defence_order *o,
			       struct dice *d, struct event_log *log, struct rules_reason *why);

/* Score needed this round: 6 if the defending field army is inside or the
 * city is neutral, else 5, less one per earlier consecutive failed round,
 * never below settings.siege_floor. */
int rules_siege_needed_score(const struct campaign *c, int province, int rounds_failed);
/* Index in c->sieges of the siege of `province` by `besieger`, or -1. */
int rules_find_siege(const struct campaign *c, int province, int besieger);
/* One round (one a year) by `besieger`, whose field army is at `province`.
 * Success captures the province; a defending field army inside is lost
 * entirely (all its troops to the reserve; one general is retrieved and
 * placed in the nearest province the player still holds). Failure costs the
 * besieger's field army 40 AP (allies nothing) and the next round needs one
 * less. */
enum rules_status rules_siege_round(struct campaign *c, int besieger, int province,
				    const int *loss_pick, struct dice *d, struct event_log *log,
				    bool *captured, struct rules_reason *why);
/* A besieged field army sallies out in its own turn: only to give battle.
 * Logs "sally"; the battle follows (rules_apply_battle_result). */
enum rules_status rules_siege_sally(struct campaign *c, int player, struct event_log *log,
				    struct rules_reason *why);

/* Transfers the province to `new_owner` (NO_INDEX = neutral), ends sieges of
 * it, and knocks out a previous owner left with no province. */
void rules_capture_province(struct campaign *c, int province, int new_owner, const char *rule,
			    struct event_log *log);
/* The whole field army is lost: all its troops go to the reserve; one
 * general comes back (free: there is nothing left to pay with) in the
 * nearest province the player holds (lowest index on a tie). */
void rules_field_army_lost(struct campaign *c, int player, const char *rule,
			   struct event_log *log);

/* ---- Battles (2.2.1, 2.2.2, 2.3 During battle; rules_battle.c) -------- */

/* Prestige value of one command when the army has `commands` commands
 * (table in 2.2.2, reading #11 beyond 7). 0 for fewer than 1 command. */
int rules_command_prestige(int commands, bool c_in_c);
/* The prestige value of a side: its undemoralised commands. */
int rules_army_prestige(int commands, bool c_in_c_demoralised, int others_demoralised);
/* max(40, (winner value − loser value) × loser AP ÷ winner AP), rounded half
 * up. AP in any consistent unit. */
int rules_battle_prestige(int winner_value, int loser_value, int winner_ap, int loser_ap);
/* The normal share of one allied command: award ÷ (commands + 1), the
 * C-in-C's command counted twice, rounded half up. */
int rules_ally_prestige_share(int award, int commands);
/* Routers coming back: floor(n / 3) for the winner, floor(n / 6) for the loser. */
int rules_routers_returning(int routers, bool winner);
/* Shares `total` among cells holding routers[i] routers by largest
 * remainder (ties: the lower index), writing out[i]. */
void rules_share_routers(const int *routers, size_t cells, int total, int *out);

enum battle_end { BATTLE_DEMORALISED, BATTLE_CONCEDED, BATTLE_WITHDRAWAL };

/* One force on the table: a main protagonist's field army, or a contingent
 * (allied, or a protagonist's own returning one) that arrived. */
struct battle_party {
	int player;
	int side;                  /* 0 or 1 */
	int contingent;            /* NO_INDEX: the player's field army */
	int commands;              /* commands fielded (a contingent is 1) */
	bool c_in_c_demoralised;   /* field army only */
	int others_demoralised;    /* demoralised commands other than the C-in-C's */
	const int *destroyed;      /* per element type of the player's list; NULL = 0 */
	const int *fled;
	const int *withdrawn;      /* recorded only: not losses */
	const int *returned_pick;  /* routers the player brings back per type, each
				    * the share rounded up or down; NULL = default */
	int agreed_share;          /* allied command on the winning side: prestige
				    * agreed with the C-in-C (normal..2×normal); 0 = normal */
};

/* What both sides report after a DBM battle (reading #13). */
struct battle_result {
	int province;
	int winner_side;
	enum battle_end how;
	const struct battle_party *parties;
	size_t party_count;
	int side_half_ap[2];       /* AP deployed at the start; 0 = the parties'
				    * troops before the losses */
	int enemy_came_from;       /* province the winner entered from: the loser may
				    * not retreat there (NO_INDEX if none) */
	int retreat_choice;        /* the loser's pick among equally near friendly
				    * provinces; NO_INDEX = the lowest index */
	enum storm_choice retreat_on_storm;
};

/* The defending player (2.2.1): who controls the province, else whose army
 * arrived first. */
int rules_battle_defender(const struct campaign *c, int province, int player_a, int player_b,
			  int arrived_first);

enum rules_status rules_battle_check(const struct campaign *c, const struct battle_result *r,
				     struct rules_reason *why);
/* Applies a battle: losses and routers (killed generals to the reserve,
 * routers back by thirds or sixths, the rest to the reserve; a field army
 * without a general retrieves one), prestige to the winning side (shared
 * with allied commands), capture of the province if its owner lost, sieges
 * lifted, and the loser's retreat to the nearest friendly province.
 * Events: "battle", "general_killed", "routers", "prestige", "capture",
 * "retreat" and the rolls and losses of the retreat. */
enum rules_status rules_apply_battle_result(struct campaign *c, const struct battle_result *r,
					    struct dice *d, struct event_log *log,
					    struct rules_reason *why);

/* Nearest province friendly to `player` (own, or owned by a player marked in
 * `allies`), not `from`, not `forbidden`; on a tie `choice` if it is one of
 * the nearest, else the lowest index. Writes the distance in stages into
 * *stages. Returns NO_INDEX if there is none. */
int rules_retreat_destination(const struct campaign *c, int player, int from, int forbidden,
			      const bool *allies, int choice, int *stages);

/* ---- Contingents (2.3; rules_contingent.c) ---------------------------- */

struct contingent_order {
	int owner;               /* the player sending it */
	int to_player;           /* the field army it joins */
	const int *troops;       /* element counts from the owner's field army */
	const int *path;         /* NULL: the shortest path */
	size_t stages;
	enum storm_choice on_storm;
	bool force_passage;
	const bool *passage;
	const int *loss_pick;
};

enum rules_status rules_contingent_check(const struct campaign *c,
					 const struct contingent_order *o,
					 struct rules_reason *why);
/* Rules 2.3 "normal movement rules apply to contingents", but no forced
 * march: can a contingent of `owner` reach the field army of `to_player`
 * by the shortest way, with the passage `passage` gives (NULL: none)?
 * RULES_OK, or RULES_REFUSED with why (too far, a field army barring the
 * way, no way). Its troops are not checked. */
enum rules_status rules_contingent_reach(const struct campaign *c, int owner, int to_player,
					 const bool *passage, struct rules_reason *why);
/* The contingent a tributary ordered by its overlord sends when it chose
 * none (rules 3.2 "Your tributaries must provide an allied contingent if
 * you order them to"; 2.3 its composition; our default, doc/rules.md): its
 * cheapest general but one (the field army keeps a general), then, in the
 * order of its army list, as many of each other element of its field army
 * as fit within 80 AP. Fills `troops` (list.count ints); false when its
 * field army has a single general (no contingent can be made). */
bool rules_contingent_default(const struct campaign *c, int owner, int *troops);
/* The Ally option: detaches up to 80 AP with a general (the field army
 * keeps one: the C-in-C), moves it at most 2 stages (no forced march) with
 * storms and forced passage, and attaches it to the other field army.
 * A storm that halts or turns it back sends it home to its field army.
 * *index receives its index in c->contingents (NO_INDEX if it went home). */
enum rules_status rules_contingent_send(struct campaign *c, const struct contingent_order *o,
					struct dice *d, struct event_log *log, int *index,
					struct rules_reason *why);
/* Before a battle: a contingent sent this year, or returning this year, rolls
 * (1-4 arrives, 5-6 too distant); others have arrived already. */
bool rules_contingent_arrival(struct campaign *c, int contingent, struct dice *d,
			      struct event_log *log);
/* Orders a contingent home: it moves any distance, no forced march, no forced
 * passage, but dices for sea storms on the way. It stays in c->contingents,
 * marked returning, until rules_contingent_rejoin (it may still roll to
 * arrive at its own army's battle this year). */
enum rules_status rules_contingent_recall(struct campaign *c, int contingent, struct dice *d,
					  struct event_log *log, struct rules_reason *why);
/* Recalls every contingent the player has out (invade, move). */
void rules_contingent_recall_all(struct campaign *c, int player, struct dice *d,
				 struct event_log *log);
/* Merges a contingent into its owner's field army and removes it. */
void rules_contingent_rejoin(struct campaign *c, int contingent, struct event_log *log);
/* Merges every returning contingent of `player` (every player if NO_INDEX). */
void rules_contingent_rejoin_returning(struct campaign *c, int player, struct event_log *log);

/* ---- Recruitment (3.1, 3.2 Prestige for provinces; rules_recruit.c) --- */

/* 10 AP (in half AP) for each province under the player's direct control. */
int rules_recruit_allowance(const struct campaign *c, int player);
/* Troops (field army and contingents out) may not exceed the ceiling. */
int rules_army_half_ap(const struct campaign *c, int player);
enum rules_status rules_recruit_check(const struct campaign *c, int player, const int *take,
				      struct rules_reason *why);
/* Which limit of rules_recruit_check refuses `take` first (NONE: it may be
 * recruited), with the reason in *why. */
enum rules_recruit_limit {
	RECRUIT_LIMIT_NONE,
	RECRUIT_LIMIT_OTHER,      /* not the recruitment phase, no such player */
	RECRUIT_LIMIT_RESERVE,    /* more than the reserve holds */
	RECRUIT_LIMIT_ALLOWANCE,  /* 10 AP a province */
	RECRUIT_LIMIT_CEILING,    /* the army's ceiling */
	RECRUIT_LIMIT_LIST_MAX,   /* a list maximum */
	RECRUIT_LIMIT_LIST_MIN,   /* a list minimum to fill first */
};
enum rules_recruit_limit rules_recruit_limit(const struct campaign *c, int player,
					     const int *take, struct rules_reason *why);
/* The list minimums that come first (3.1): for each element type, how many
 * recruits the army (field army and contingents out) lacks for its list's
 * minimum, as far as the reserve holds them, into `fill` (one count per
 * element type; may be NULL). Returns how many element types are short. */
int rules_recruit_minimums(const struct campaign *c, int player, int *fill);
/* Elements of each type in the army: the field army and the contingents
 * out (caller frees). */
int *rules_army_counts(const struct campaign *c, int player);
/* Recruitment phase: moves `take` (per type) from reserve to field army:
 * at most the allowance, list minimums first, never above the ceiling or a
 * list maximum. Logs "recruit". */
enum rules_status rules_recruit(struct campaign *c, int player, const int *take,
				struct event_log *log, struct rules_reason *why);
/* A general from the reserve (element type `type`) in the campaign phase,
 * for troops of at least equal value sent to the reserve (`pay`, NULL =
 * default pick; an army with nothing to pay gets him free). In the
 * recruitment phase generals are recruited with rules_recruit. */
enum rules_status rules_retrieve_general(struct campaign *c, int player, int type,
					 const int *pay, struct event_log *log,
					 struct rules_reason *why);
/* Recruitment phase: sends troops of the field army to the reserve
 * voluntarily (keeping one general), so they can be changed. */
enum rules_status rules_dismiss(struct campaign *c, int player, const int *troops,
				struct event_log *log, struct rules_reason *why);
/* Recruitment phase: replaces the reserve by `new_reserve`: only reserve
 * troops change, worth no more than before, and the whole army still keeps
 * to the list's minimums and maximums. */
enum rules_status rules_change_reserve(struct campaign *c, int player, const int *new_reserve,
				       struct event_log *log, struct rules_reason *why);
/* A player's recruitment orders (orders.h) carried out as the end of the
 * recruitment phase carries them out (rules_recruit_orders.c): every
 * DISMISS (rules_dismiss), then every EXCHANGE (rules_change_reserve),
 * then every RECRUIT and RETRIEVE GENERAL together (rules_recruit). Only
 * ORDER_OK lines count. A step the rules refuse is not carried out, with
 * the reason in `out`; the steps after it are. The one truth of what a
 * recruitment does: the acknowledgement plays it on a copy of the campaign
 * (campaign_copy) for what the army will have. */
struct order_set;
enum rules_recruit_step {
	RECRUIT_STEP_DISMISS,
	RECRUIT_STEP_EXCHANGE,
	RECRUIT_STEP_RECRUIT,     /* RECRUIT and RETRIEVE GENERAL */
	RECRUIT_STEP_COUNT
};
struct rules_recruit_outcome {
	struct {
		bool ordered;     /* the orders had lines of this step */
		bool refused;     /* ... and the rules refused them: why */
		struct rules_reason why;
	} step[RECRUIT_STEP_COUNT];
	int recruited_half_ap;    /* what the recruits taken are worth */
};
void rules_recruit_orders(struct campaign *c, int player, const struct order_set *set,
			  struct event_log *log, struct rules_recruit_outcome *out);
/* The keyword a step's orders are written with ("DISMISS", "EXCHANGE",
 * "RECRUIT"). */
const char *rules_recruit_step_keyword(enum rules_recruit_step step);
/* Ceiling after `quiet_years` years without battle or siege: 440 AP from 3,
 * 400 AP from 6, never above the player's original size. */
int rules_profound_peace_cap(int original_half_ap, int quiet_years);
/* Start of a year (not the first): counts the quiet years, sets the ceiling
 * and sends troops above it to the reserve (`pick` or the default). */
void rules_profound_peace(struct campaign *c, int player, const int *pick,
			  struct event_log *log);
/* Province prestige of this recruitment phase: 6 per home province held, 4
 * per other, 2 per province of each direct tributary. */
int rules_province_prestige(const struct campaign *c, int player);

/* ---- The year, the end, tributaries, leaving (1.4, 3.2; rules_year.c) - */

/* Sets the campaign's phase and the time of the dice and the log. */
void rules_set_phase(struct campaign *c, struct dice *d, struct event_log *log, int phase);
/* A random order of the active players, by dice (a Fisher-Yates shuffle with
 * a uniform die-made choice at each step). Writes up to c->player_count
 * indices into `order`; returns how many. Logs "sequence_of_play". */
size_t rules_sequence_of_play(struct campaign *c, struct dice *d, struct event_log *log,
			      int *order);
/* 1.4 "... and determines a random sequence of play for the next year":
 * the same shuffle, rolled at the end of a year's recruitment phase with
 * that year's dice for the year `year_of_play` (purposes "sequence of play
 * for <year> step ..."). Logs "next_sequence" {year_of_play, order}. */
size_t rules_next_sequence_of_play(struct campaign *c, struct dice *d, struct event_log *log,
				   int year_of_play, int *order);
/* Start of the campaign phase of c->year: profound peace (from the second
 * year), options and battle flags cleared, returning contingents merged,
 * the sequence of play rolled into `order` (c->player_count ints). */
size_t rules_year_begin(struct campaign *c, struct dice *d, struct event_log *log, int *order);
/* rules_year_begin without the sequence of play (no dice), for a caller
 * that is given the order instead of rolling it (campaignctl simulate). */
void rules_year_prepare(struct campaign *c, struct dice *d, struct event_log *log);
/* Start of the recruitment phase: province prestige for everyone. */
void rules_recruitment_begin(struct campaign *c, struct dice *d, struct event_log *log);
/* After each year but the first: 2d6; true when they make 2 (then every
 * player may vote to continue: rules_campaign_end_vote). */
bool rules_campaign_end_roll(struct campaign *c, struct dice *d, struct event_log *log);
/* Ends the campaign (PHASE_ENDED, "campaign_end" with the winners) unless
 * all players chose to continue. */
void rules_campaign_end_vote(struct campaign *c, bool all_continue, struct event_log *log);
/* End of the year: the end roll; if the campaign goes on, c->year moves on.
 * Returns true when a vote is needed (the year does not move on until
 * rules_campaign_end_vote has been called). */
bool rules_year_end(struct campaign *c, struct dice *d, struct event_log *log);
/* Score: battle + province prestige (0 for a player who left). */
int rules_player_score(const struct campaign *c, int player);
/* Players with the highest score into `winners`; returns how many. */
size_t rules_campaign_winners(const struct campaign *c, int *winners);

/* ---- Allies (1.4 Move, 2.1, 2.3; rules_ally.c, rules_year.c) ----------
 * One definition for the order check (MOVE, retreats, the provinces a route
 * needs permission for) and the rules (MOVE, passage, supply defaults,
 * allies called to a battle). */

/* True if `a` and `b` are allies: both active, and either a declared
 * mutual alliance (ALLY WITH from both) or direct overlord and tributary. */
bool rules_allied(const struct campaign *c, int a, int b);
/* The index in c->alliances of the declared alliance of a and b, or -1. */
int rules_alliance_index(const struct campaign *c, int a, int b);
/* A friendly province for `player`: controlled by him or by an ally. */
bool rules_friendly_to(const struct campaign *c, int player, int province);
/* Both sides have declared ALLY WITH the other: the alliance is made
 * ("alliance" event). Refused: not two different active players, already
 * declared allies, or overlord and tributary (allies already). */
enum rules_status rules_alliance_make(struct campaign *c, int a, int b, struct event_log *log,
				      struct rules_reason *why);
/* Events name the two players "player" and "ally" (the lower index first). */
/* Ends the declared alliance of a and b ("alliance_ended" with who ended it
 * and `how`: "declared" for END ALLIANCE WITH, "invaded" when `by` attacked
 * the other). Refused if there is none. */
enum rules_status rules_alliance_end(struct campaign *c, int a, int b, int by, const char *how,
				     struct event_log *log, struct rules_reason *why);

/* True if `a` is the direct overlord or tributary of `b` (no attacks). */
bool rules_tributary_related(const struct campaign *c, int a, int b);
/* `tributary` asks to become `overlord`'s tributary; takes effect if
 * accepted. Refused: the same player, not active, already a tributary, or a
 * loop (the overlord is below the tributary in a chain). */
enum rules_status rules_tributary_request(struct campaign *c, int tributary, int overlord,
					  bool accepted, struct event_log *log,
					  struct rules_reason *why);
/* Either side ends the relationship: in the recruitment phase only. */
enum rules_status rules_tributary_renounce(struct campaign *c, int tributary,
					   struct event_log *log, struct rules_reason *why);
/* The overlord (or the overlord's overlord, for a substitute contingent)
 * orders a tributary (o->owner) to send a contingent to o->to_player, who
 * must be the orderer or the orderer's own overlord. */
enum rules_status rules_tributary_order_contingent(struct campaign *c, int orderer,
						   const struct contingent_order *o,
						   struct dice *d, struct event_log *log,
						   int *index, struct rules_reason *why);
/* Frees the tributaries of `overlord` (knocked out or left). */
void rules_tributary_free_all(struct campaign *c, int overlord, struct event_log *log);

/* Lost all provinces: out, keeps prestige, tributaries freed, its contingents
 * and the contingents with it go home. */
void rules_player_knocked_out(struct campaign *c, int player, struct event_log *log);
/* Leaves voluntarily. Replaced: nothing changes here (the engine changes the
 * person). Not replaced: provinces become neutral, prestige is lost,
 * tributaries freed. */
enum rules_status rules_player_leaves(struct campaign *c, int player, bool replaced,
				      struct event_log *log, struct rules_reason *why);

/* ---- Setting up (1.3; rules_setup.c) ---------------------------------- */

#define RULES_LIST_TARGET_HALF_AP HALF_AP(480) /* a list must reach this ... */
#define RULES_LIST_CEILING_HALF_AP HALF_AP(600) /* ... and, increased, stay under this */

/* What the derivation of a national army list did (1.3). */
struct list_derivation {
	int before_half_ap;    /* the list at its maximums, as given */
	int after_half_ap;     /* the derived list at its maximums */
	int general_half_ap;   /* of which the general lines (never increased) */
	bool increased;        /* the list was under 480 AP and was increased */
	int factor_num;        /* troop lines multiplied by num / den */
	int factor_den;
	int max_generals;      /* generals the list allows at most */
};

/* Derives a national army list for the campaign, in place (1.3): where the
 * list totals under 480 AP at its maximums, the maximum and minimum of every
 * troop line are multiplied by the one factor that brings the total to 480
 * AP; maximums are then rounded up to whole elements, minimums down but
 * never to zero; general lines keep their numbers (at most four generals,
 * as per DBM; reading in doc/rules.md). Every problem that keeps the list
 * from serving (more than four generals, no general line, minimums that
 * cost more than 480 AP, a derived total over 600 AP) is added to
 * `problems` with `file` and the line of the element it is about
 * (`list_line` for the list as a whole). Returns the number of problems. Pure. */
int rules_derive_army_list(struct army_list *list, const char *file, int list_line,
			   struct list_derivation *out, struct diag_list *problems);

/* A field army chosen by mail before play (1.3): `counts` has one count
 * per line of the player's army list. Refused (RULES_REFUSED, `why` says
 * which rule) when it costs more than 480 AP, goes above a line's maximum
 * or has more than four generals: what can never become a valid army. */
enum rules_status rules_setup_army_check(const struct player *p, const int *counts,
					 struct rules_reason *why);
/* The C-in-C's line of the list: its first general line (DBM lists put the
 * C-in-C first), or -1. */
int rules_setup_cinc_line(const struct army_list *l);
/* What the player's setup still lacks to be ready: each a sentence, written
 * into lines[0 .. max-1] (allocated; the caller frees them). `counts` is
 * NULL when no army was chosen yet, `start` NO_INDEX when no province. An
 * army is complete when it keeps every minimum, has the C-in-C and costs
 * 480 AP, or as near as the list allows (no line under its maximum is
 * cheap enough for what is left). Returns how many things are missing
 * (more than max are counted, not written); 0: ready. */
size_t rules_setup_missing(const struct campaign *c, int player, const int *counts, int start,
			   char **lines, size_t max);
/* The default setup of a player who did not finish his by the start
 * (campaignctl start --force; campaign(5)): every line at its minimum (the
 * C-in-C line at least one), then troop lines in list order filled up to
 * their maximums while the army stays within 480 AP; the start, the first
 * home province in the campaign file. `counts` has one slot per list line. */
void rules_setup_default(const struct campaign *c, int player, int *counts, int *start);

/* A new player added during play (1.2, campaignctl add-player). May he be
 * given these home provinces (indices, n of them)? Refused unless one to
 * four distinct provinces, each neutral and not set aside for another new
 * player; `why` names those that are not and the ones that are. Pure. */
enum rules_status rules_join_check(const struct campaign *c, const int *provinces, size_t n,
				   struct rules_reason *why);
/* Gives c->players[player] (his list in place, troops allocated) the
 * provinces as home provinces and makes him set up by mail. Before the
 * start (PHASE_SETUP) they are his at once and he is active; during play
 * he is PLAYER_JOINING: the provinces stay neutral, set aside for him,
 * until he enters. Event "player_joined". */
void rules_player_joins(struct campaign *c, int player, const int *provinces, size_t n,
			struct event_log *log);
/* A joining player enters play (the next year begins, before its sequence
 * of play is rolled): his home provinces still neutral become his, his
 * field army (`counts`, one per list line) stands in `start`, or in the
 * first of them when `start` is not one. Returns the start, or NO_INDEX
 * when none was left to him (he is then out). Events "player_entered" or
 * "player_out". */
int rules_player_enters(struct campaign *c, int player, const int *counts, int start,
			struct event_log *log);

#endif
