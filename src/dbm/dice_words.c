/* A die's label in words: the label a roll is made with (the HMAC's
 * message, doc/dice.md) names players by key and counts the sequence of
 * play's draws as the rules code does; mails and the diary say it as a
 * player reads it. Pure. */
#include "config.h"

#include "dbm/year.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

/* The nation of the player whose key starts `s` (up to a space or the
 * end); *rest after it. NULL when no player has that key. */
static const char *nation_at(const struct campaign *c, const char *s, const char **rest)
{
	size_t n = strcspn(s, " ");
	for (size_t p = 0; p < c->player_count; p++) {
		const struct player *pl = &c->players[p];
		if (pl->key && strlen(pl->key) == n && strncmp(pl->key, s, n) == 0) {
			*rest = s + n;
			return pl->nation ? pl->nation : pl->key;
		}
	}
	return NULL;
}

static bool prefix(const char *s, const char *p, const char **rest)
{
	size_t n = strlen(p);
	if (strncmp(s, p, n) != 0)
		return false;
	*rest = s + n;
	return true;
}

char *year_roll_words(const struct campaign *c, const char *purpose)
{
	if (!purpose)
		return xstrdup("");
	int step, left, attempt, die, year = 0;
	int n = 0;
	/* "sequence of play [for <year>] step <s> of <m> try <t> die <d>":
	 * the shuffle fills the places from the last: the draw numbered s
	 * (from 1) picks among the m nations not yet placed the one that plays
	 * m-th, of s + m - 1 in all (rules_year.c) */
	if ((sscanf(purpose, "sequence of play step %d of %d try %d die %d%n", &step, &left,
		    &attempt, &die, &n) == 4 ||
	     sscanf(purpose, "sequence of play for %d step %d of %d try %d die %d%n", &year, &step,
		    &left, &attempt, &die, &n) == 5) &&
	    !purpose[n] && step >= 1 && left >= 2) {
		char of_year[32] = "";
		if (year)
			snprintf(of_year, sizeof of_year, " of %d", year);
		return xasprintf("the sequence of play%s, place %d of %d (drawn among %d), try %d, "
				 "die %d", of_year, left, step + left - 1, left, attempt, die);
	}
	if (sscanf(purpose, "campaign end die %d", &die) == 1)
		return xasprintf("the campaign-end roll, die %d", die);
	const char *rest = NULL, *after = NULL, *nation = NULL;
	int stage = 0;
	if (prefix(purpose, "siege ", &rest) && (nation = nation_at(c, rest, &after)) &&
	    *after == ' ')
		return xasprintf("the siege of %s by %s", after + 1, nation);
	if (prefix(purpose, "supply ", &rest) && (nation = nation_at(c, rest, &after)) && !*after)
		return xasprintf("the supply of %s", nation);
	if ((prefix(purpose, "sea storm ", &rest) || prefix(purpose, "shipwreck ", &rest)) &&
	    (nation = nation_at(c, rest, &after))) {
		bool contingent = prefix(after, " contingent", &after);
		if (sscanf(after, " stage %d", &stage) == 1)
			return xasprintf("%s, %s%s, stage %d",
					 purpose[0] == 's' && purpose[1] == 'e' ? "sea storm"
										 : "sea storm losses",
					 nation, contingent ? "'s contingent" : "", stage);
	}
	if (prefix(purpose, "forced passage ", &rest) && (nation = nation_at(c, rest, &after))) {
		bool contingent = prefix(after, " contingent", &after);
		if (*after == ' ')
			return xasprintf("the forced passage of %s%s through %s", nation,
					 contingent ? "'s contingent" : "", after + 1);
	}
	if (prefix(purpose, "arrival ", &rest) && (nation = nation_at(c, rest, &after)) &&
	    prefix(after, " contingent", &after))
		return xasprintf("the arrival of the contingent of %s%s", nation,
				 strcmp(after, " returning") == 0 ? " on its way home" : after);
	return xstrdup(purpose);
}
