/* Who is an ally (rules 1.4 Move "a friendly province, ie one controlled by
 * you or an ally"; 2.1; 2.3): the one definition the order check and the
 * rules share. Queries only, on the model alone (the order language is
 * built with it on its own). */
#include "config.h"

#include "dbm/rules.h"

static bool active_player(const struct campaign *c, int p)
{
	return p >= 0 && (size_t)p < c->player_count && c->players[p].status == PLAYER_ACTIVE;
}

int rules_alliance_index(const struct campaign *c, int a, int b)
{
	if (a == b)
		return -1;
	int lo = a < b ? a : b, hi = a < b ? b : a;
	for (size_t i = 0; i < c->alliance_count; i++)
		if (c->alliances[i].a == lo && c->alliances[i].b == hi)
			return (int)i;
	return -1;
}

bool rules_allied(const struct campaign *c, int a, int b)
{
	if (!active_player(c, a) || !active_player(c, b) || a == b)
		return false;
	if (c->players[a].overlord == b || c->players[b].overlord == a)
		return true;
	return rules_alliance_index(c, a, b) >= 0;
}

bool rules_friendly_to(const struct campaign *c, int player, int province)
{
	if (player < 0 || (size_t)player >= c->player_count || province < 0 ||
	    (size_t)province >= c->province_count)
		return false;
	int owner = c->provinces[province].owner;
	if (owner == NO_INDEX)
		return false;
	return owner == player || rules_allied(c, player, owner);
}

/* 2.3 relief (rules_relief.c): here, as the order check asks it too. */
int rules_relief_besieger(const struct campaign *c, int player, int province)
{
	if (!active_player(c, player) || province < 0 ||
	    (size_t)province >= c->province_count)
		return NO_INDEX;
	int owner = c->provinces[province].owner;
	if (owner == NO_INDEX || owner == player || !rules_allied(c, player, owner))
		return NO_INDEX;
	for (size_t i = 0; i < c->siege_count; i++) {
		int b = c->sieges[i].besieger;
		if (c->sieges[i].province == province && b != player && b != owner &&
		    active_player(c, b) && c->players[b].location == province &&
		    !rules_allied(c, player, b))
			return b;
	}
	return NO_INDEX;
}
