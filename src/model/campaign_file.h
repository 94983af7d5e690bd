/* The campaign file: one human-editable text file that defines a whole
 * campaign (rules 1.2-1.3) — the campaign's details, the map, the players,
 * their army lists and starting field armies. Syntax: doc/campaign.5. */
#ifndef CAMPAIGN_FILE_H
#define CAMPAIGN_FILE_H

#include <stddef.h>

#include "base/diag.h"
#include "model/model.h"

/* Parses and validates `len` bytes of campaign text. `filename` is used in
 * diagnostics only. Every problem found is added to `diags` (all of them, in
 * one pass, each with its line). Returns the campaign, ready to play (year =
 * start year, phase = PHASE_SETUP, home provinces owned by their players,
 * field armies placed), or NULL if any error was found. Pure: no I/O. */
struct campaign *campaign_file_parse(const char *text, size_t len, const char *filename,
				     struct diag_list *diags);

/* Parses an army list file: one or more [player KEY] sections in the
 * campaign file's syntax, of which only the element lines are required
 * (nation, name, email and start may be given). Other sections (a whole
 * campaign file) are skipped unread.
 * Returns a campaign holding just those players and their lists (field
 * counts as given), or NULL if any error was found. Pure: no I/O. */
struct campaign *campaign_file_parse_lists(const char *text, size_t len, const char *filename,
					   struct diag_list *diags);

/* Reads the file at `path` and parses it as above. A file that cannot be read
 * is reported in `diags` as well. */
struct campaign *campaign_file_load(const char *path, struct diag_list *diags);

#endif
