/* The campaign diary as data for the templates: what happened in a year,
 * narrated from its events. Pure: no I/O, no clock. The phrasing lives in
 * the templates; this module only chooses, reproducibly, which of several
 * phrasings each event uses, and gathers the standings. */
#ifndef CAMPAIGN_DIARY_H
#define CAMPAIGN_DIARY_H

#include <jansson.h>

#include "model.h"

/* The template data of year `year`'s diary: the sequence of play, each turn
 * with its narrated events, battles and sieges, the dice commitment and (once
 * revealed) the seed, province and prestige standings, and the organiser's
 * commentary. `events` is the year's array of event objects as stored;
 * `comments` is an array of {"text": ..., "after_event": n} objects or NULL;
 * `dice` is {"commitment": hex, "seed": hex-or-null} or NULL. Returns a new
 * reference. */
json_t *diary_year_json(const struct campaign *c, const json_t *events, int year,
			const json_t *comments, const json_t *dice);

#endif
