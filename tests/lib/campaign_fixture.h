/* Campaigns for tests: a small one built in code for the store, JSON and
 * engine tests, so they do not depend on the campaign file parser; and
 * campaign files of the source tree, parsed. */
#ifndef CAMPAIGN_TEST_FIXTURE_H
#define CAMPAIGN_TEST_FIXTURE_H

#include "model/model.h"

/* Five provinces (Dijon, Paris, Flanders, Calais, Jersey), five routes (one
 * by sea), two players with 480 AP field armies at home, year 1450, setup:
 *   burgundy: 2 "Kn(S) general" at 30, 20 "Kn(S)" at 12, 30 "Bw(O)" at 5,
 *             20 "Ps(I)" at 1.5                     = 60+240+150+30  = 480
 *   france:   2 "Cv(O) general" at 25, 20 "Kn(F)" at 9, 40 "Sp(I)" at 3.5,
 *             30 "Bw(I)" at 3.5, 1 "Art(I)" at 5    = 50+180+140+105+5 = 480
 * Jersey is an inviolate neutral; Flanders and Calais are neutral. */
struct campaign *fixture_campaign(void);

/* A year of play on the fixture: Burgundy takes Flanders and moves there,
 * (the "invade" option, fighting), loses 5 Kn(S) to its reserve (field 420,
 * reserve 60), wins 2 battle and 3 province prestige, besieges Calais (1
 * failed round, in 1451); France sends 2 Kn(F)
 * to Burgundy (France field 462, contingent 18), becomes Burgundy's
 * tributary with a 470 AP ceiling; year 1451, campaign phase. */
void fixture_play_a_year(struct campaign *c);

/* Campaign file text parsed as the file `name`: fails the test, printing
 * the diagnostics, unless it parses without error. */
struct campaign *test_campaign_parse(const char *text, size_t len, const char *name);

/* The campaign file $top_srcdir/rel read and parsed as above. */
struct campaign *test_campaign_load(const char *rel);

#endif
