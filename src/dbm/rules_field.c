/* The field army's own movement option (2.2 MOVE): taking it recalls the
 * army's contingents, then the army moves. */
#include "config.h"

#include "dbm/rules_p.h"
#include "base/util.h"

#include <stdlib.h>

enum rules_status rules_field_move(struct campaign *c, const struct move_order *o,
				   struct dice *d, struct event_log *log,
				   struct move_outcome *out, struct rules_reason *why)
{
	struct move_order mo = *o;
	mo.kind = MOVE_FRIENDLY;
	mo.contingent = NO_INDEX;
	if (rules_move_check(c, &mo, why) != RULES_OK)
		return RULES_REFUSED;
	struct player *p = &c->players[o->player];
	if (p->movement_option != OPTION_NONE)
		return rules_refuse(why, "%s has already taken a movement option this year",
				    rules_player_nation(c, o->player));
	p->movement_option = OPTION_MOVE;
	rules_contingent_recall_all(c, o->player, d, log);
	return rules_move(c, &mo, d, log, out, why);
}
