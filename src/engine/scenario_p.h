/* Private to the scenario files (scenario.c, scenario_run.c,
 * scenario_summary.c): what the parser, the runner and the summary share.
 * Not a contract for anyone else; scenario.h is. */
#ifndef CAMPAIGN_SCENARIO_P_H
#define CAMPAIGN_SCENARIO_P_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "dbm/orders.h"
#include "model/model.h"

/* An error at file:line. */
void scenario_error_at(struct diag_list *diags, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* INVADE, MOVE, SEND CONTINGENT: orders whose route is planned when they
 * are carried out. */
bool scenario_is_route_kind(enum order_kind k);

/* PASSWORD, STATUS, MAP, HELP and the organiser's orders: they have no
 * effect in a scenario (a warning when the scenario is resolved). */
bool scenario_is_inert_kind(enum order_kind k);

struct scenario;

/* scenario_start.c: a line of the [start] section, kept for later. */
void scenario_start_line(struct scenario *s, char *text, int line, struct diag_list *diags);
/* Sets the starting position on `c` (year, armies, prestige, owners,
 * sieges, tributaries) and checks it is one play could reach. Returns the
 * number of errors added. */
size_t scenario_start_apply(const struct scenario *s, struct campaign *c, struct diag_list *diags);
void scenario_start_free(struct scenario *s);

static inline const char *key_of(const struct campaign *c, int player)
{
	return player >= 0 && (size_t)player < c->player_count ? c->players[player].key
								: "neutral";
}

static inline const char *province_of(const struct campaign *c, int province)
{
	return province >= 0 && (size_t)province < c->province_count ? c->provinces[province].name
								     : "nowhere";
}

static inline bool active(const struct campaign *c, int player)
{
	return player >= 0 && (size_t)player < c->player_count &&
	       c->players[player].status == PLAYER_ACTIVE;
}

#endif
