/* Private to the engine's year files: setting up by mail before play
 * (engine_setup.c). Each takes a struct yctx opened by the caller. */
#ifndef CAMPAIGN_ENGINE_SETUP_P_H
#define CAMPAIGN_ENGINE_SETUP_P_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "engine/engine_year_p.h"

/* campaignctl open-setup: mails every player who sets up by mail his army
 * list, home provinces, his setup as it stands and how to answer. Writes
 * a line per mail into `out`; `why` says why nothing could be mailed.
 * Returns 0, or -1 on a failure (y->err). */
int setup_open(struct yctx *y, struct strbuf *out, char *why, size_t why_size);
/* Mails one player who sets up by mail (or joins during play) his army
 * list, home provinces, his setup as it stands and how to answer.
 * Returns 0, or -1 on a failure (y->err). */
int setup_mail(struct yctx *y, int player);
/* Who sets up by mail, and whether he is ready or what he lacks, for the
 * organiser's status; once the campaign started, the players joining
 * (campaignctl add-player) until they enter. */
void setup_status(struct yctx *y, struct strbuf *out);
/* At the start: refused (`why` filled) while a player is not ready unless
 * `force`; then every army and start put in place, the missing ones by
 * the default (rules_setup_default) with a mail to the player. Returns 0,
 * or -1 on a failure (y->err). */
int setup_apply(struct yctx *y, bool force, struct strbuf *out, char *why, size_t why_size);

#endif
