/* What the campaign waits for: the open step and its decision, who is
 * awaited and for what, the deadline in the campaign's time zone, and the
 * requests that wait without a deadline (a tributary asked for, an
 * alliance proposed, a disputed battle the organiser settles). For campaignctl status and a player's
 * STATUS. Private to the engine (engine_year.c, player_status.c). */
#ifndef CAMPAIGN_ENGINE_AWAITED_H
#define CAMPAIGN_ENGINE_AWAITED_H

#include <jansson.h>

#include "dbm/year.h"
#include "model/model.h"

/* The year's open step as JSON (new reference):
 *   "started": false before the start (and nothing else but "year");
 *   "year", "phase", "step" (its name), "what" (the sentence of
 *   year_step_describe), "paused", "paused_left" (seconds),
 *   "deadline_epoch" and "deadline" (local text) when there is one;
 *   "awaited": [{"player", "nation", "for": what he must send}];
 *   "organiser": what the organiser is awaited for, when he is;
 *   "requests": [{"kind": "tributary" or "alliance", "player", "nation",
 *                 "waits_for": key, "waits_for_nation", "what", "accepted"}]
 *                 (no deadline): TRIBUTARY OF asked, ALLY WITH proposed.
 * `io` reads the pending orders (year_awaited's). */
json_t *engine_awaited_json(const struct year_state *st, const struct campaign *c,
			    const struct year_io *io);

/* The same for the organiser, as lines of text ("Year ..., Step: ...",
 * "Waiting for ...", one line per awaited player, the deadline, the
 * requests). Caller frees. */
char *engine_awaited_text(const json_t *aw);

/* What `player` is awaited for, or NULL when he is not: as a player and,
 * when he is the organiser's own nation, as the organiser (a disputed
 * battle, a step without deadline). Caller frees. Every view of what a
 * player is awaited for (STATUS, replies, the year's mails) says it so. */
char *engine_awaited_for(const json_t *aw, const struct campaign *c, int player);

#endif
