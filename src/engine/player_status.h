/* A player's STATUS by mail: their own army, reserve and contingents, the
 * requests waiting for an answer, where everyone stands (inside the
 * acknowledgement, which already says what is awaited and which orders
 * stand). Private to the engine. */
#ifndef CAMPAIGN_ENGINE_PLAYER_STATUS_H
#define CAMPAIGN_ENGINE_PLAYER_STATUS_H

#include <jansson.h>
#include <stdint.h>

#include "engine/engine.h"

/* Inside the mail's transaction, after his orders were stored: the data of
 * the template "status" for `player` (index), a new reference; NULL with
 * *errstr on a database error. Keys:
 *   "army": {"location", "ap", "generals", "generals_text" ("2 generals"),
 *            "elements": [{"count", "label", "ap_each", "ap", "general"}],
 *            "empty" when it holds none},
 *   "reserve": the same without "location",
 *   "ceiling_ap", "prestige", "provinces" (names), "overlord",
 *   "contingents_out": [{"with", "where", "ap", "elements", "returning"}],
 *   "contingents_in": [{"from", "ap", "elements"}],
 *   "positions": year_positions_json's, as the year's mails give them,
 *   "provinces_text": his provinces, home ones starred,
 *   "your_requests": the requests without deadline that concern them,
 *   "has_requests",
 *   "stand_in": {"who", "until"} while a stand-in acts for them. */
json_t *engine_player_status(struct engine *e, int player, int64_t now, char **errstr);

#endif
