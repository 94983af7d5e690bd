/* What the tests on a real SQLite file share: opening a database with fast
 * password hashing, and one holding a campaign. */
#ifndef CAMPAIGN_TEST_STORE_FIXTURE_H
#define CAMPAIGN_TEST_STORE_FIXTURE_H

#include "model/model.h"
#include "store/store.h"

/* Opens (creating) the database at path with the minimum Argon2 limits, so
 * that tests stay fast; fails the test on error. */
struct store *test_store_open(const char *path);
/* Creates the database at path holding c (which it frees), as above. */
struct store *test_store_with(const char *path, struct campaign *c);

#endif
