/* The campaign as a JSON document: the whole definition and state, for
 * `campaignctl export`, other tools and template contexts. Schema:
 * doc/export.md. Provinces are named and players keyed, never indexed, so
 * the document can be read without knowing the model's array order. Pure. */
#ifndef CAMPAIGN_JSON_H
#define CAMPAIGN_JSON_H

#include <jansson.h>

#include "model/model.h"

/* Version of the document's schema, written as "schema_version". */
#define CAMPAIGN_JSON_SCHEMA_VERSION 1

/* Builds the document for c. The same campaign always gives the same
 * document, keys in the same order. Army points are JSON numbers in whole
 * AP: an integer when whole (480), a real when there is a half (3.5).
 * Returns a new reference (never NULL); the caller json_decref()s it. */
json_t *campaign_to_json(const struct campaign *c);

/* Rebuilds a campaign from a document made by campaign_to_json. Checks
 * every type and every reference (owner keys, province names, army list
 * labels). Returns the new campaign (caller campaign_free()s it), or NULL
 * with *errstr set to an allocated message naming the offending member,
 * e.g. `players[1].field_army.location: unknown province "Flandres"`.
 * Campaign-file line numbers are not part of the document: they come back 0. */
struct campaign *campaign_from_json(const json_t *doc, char **errstr);

/* Army points (in halves) as the JSON number described above. New reference. */
json_t *half_ap_to_json(int half_ap);

#endif
