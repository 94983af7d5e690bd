/* The campaign diary as data for the templates: what happened in a year,
 * narrated from its events. Pure: no I/O, no clock. The phrasing lives in
 * the templates; this module only chooses, reproducibly, which of several
 * phrasings each event uses, and gathers the standings. */
#ifndef CAMPAIGN_DIARY_H
#define CAMPAIGN_DIARY_H

#include <jansson.h>

#include "model/model.h"

/* The template data of year `year`'s diary: the sequence of play, each turn
 * with its narrated events, battles and sieges, the dice commitment and (once
 * revealed) the seed, province and prestige standings, and the organiser's
 * commentary. `events` is the year's array of event objects as stored;
 * `comments` is an array of {"text": ..., "after_event": n} objects or NULL;
 * `dice` is {"commitment": hex, "seed": hex-or-null} or NULL. Events and
 * comments that are not what they should be are skipped, never a crash.
 * Every field of the result is listed in doc/diary.md. Returns a new
 * reference. */
json_t *diary_year_json(const struct campaign *c, const json_t *events, int year,
			const json_t *comments, const json_t *dice);

/* The reference to a player the diary's data uses everywhere a player is
 * named: {"key", "nation", "name", "neutral", "organiser", "colour",
 * "index"}. NO_INDEX (or any bad index) gives the neutrals' reference.
 * "organiser" is true for the organiser's own nation. New reference. */
json_t *diary_player_ref(const struct campaign *c, int player);

/* Which of `phrasings` phrasings event number `seq` (1-based, within its
 * year) of `kind` uses: a hash of the three, so the same diary always reads
 * the same and neighbouring events vary. 0 if phrasings is 0. */
unsigned diary_variant(int year, int seq, const char *kind, unsigned phrasings);
/* The phrasing of a narrated event: a hash of its year, kind and content
 * (not its place in the year), so that notes added before it (an undo, a
 * resume) do not change how the same event reads. */
unsigned diary_event_variant(int year, const json_t *ev, const char *kind, unsigned phrasings);

/* Turns c (a copy the caller owns) back into the campaign as it stood at
 * the end of `year`, by undoing the events of later years (`events`: every
 * event of the campaign, oldest first): province owners, field army
 * locations, prestige, players out or gone, tributaries; sieges are those
 * of `year` still under way; contingents are dropped (the events do not
 * say enough to rebuild them, nor the troops, which stay as they are now).
 * Returns true if anything was undone (c is then in year `year`'s
 * recruitment phase), false if c already was that state. */
bool diary_rewind(struct campaign *c, const json_t *events, int year);

/* Each player's total prestige at the end of each year, from the events:
 * {"years": [1450, ...], "players": [{"player": ref, "totals": [n, ...]}]}
 * (battle and province prestige added up; a player who left drops to 0).
 * Years run from the campaign's start year to the last year in `events`.
 * New reference. */
json_t *diary_prestige_history(const struct campaign *c, const json_t *events);

/* diary_disputes.c, for diary_year_json. A copy of `comments` where each
 * comment the organiser made with a battle's decision (placed after the
 * "organiser" event that "decided the result of the battle at" a province,
 * or after comments made with it) says "decision_of": that province. New
 * reference. */
json_t *diary_comments_with_decisions(const json_t *comments, const json_t *events);
/* Whether the battle at events[i] was decided by the organiser: its
 * "battle_result", logged after its consequences, says so. */
bool diary_decided_by_organiser(const json_t *events, size_t i);

/* diary_elements.c. Element counts {label: count} of player `key` as a
 * list [{"label", "count", "text", "last"}] without the zeros: "text" is
 * "16 Longbowmen", "1 element of Longbowmen" (army lists name their lines
 * in the plural), or the label alone for a line of which the list allows
 * one element (a named general). New reference. */
json_t *diary_elements_list(const struct campaign *c, const char *key, const json_t *counts);

/* diary_losses.c. What each army lost to the reserve in `year` (events:
 * any array of events, the other years' are skipped), players in the order
 * of their first loss: [{"player": key, "half_ap": total, "items": [
 * {"cause" (a loss's: "sea storm", ...) or "battle": true and "province",
 * "half_ap", "elements": {label: count} (the elements gone to the reserve),
 * "contingent", and for a battle "routers" (elements routed) and
 * "returned": {label: count} (the routers who came back)}]}]. Losses of 0
 * AP are left out. New reference. */
json_t *diary_losses(const json_t *events, int year);

/* diary_battles.c. The battles of `year` (events: any array of events, the
 * other years' are skipped), in order: {"province", "winner", "loser"
 * (player refs), "winner_ap", "loser_ap" (as deployed), "winner_lost_ap",
 * "loser_lost_ap" (to the reserve: destroyed and fled, less the routers
 * who came back), "winner_generals_killed", "loser_generals_killed",
 * "how", "award", "corrected" (the organiser corrected the result later)}.
 * New reference. */
json_t *diary_battles(const struct campaign *c, const json_t *events, int year);
/* The organiser's corrections of `year`: [{"text", "seq"}], a sentence each
 * (a battle's result corrected, a step taken back). New reference. */
json_t *diary_corrections(const struct campaign *c, const json_t *events, int year);
/* The places the map marks for `year`, for map_svg_options.marks: its
 * battles and the provinces besieged in it. New reference. */
json_t *diary_map_marks(const struct campaign *c, const json_t *events, int year);

#endif
