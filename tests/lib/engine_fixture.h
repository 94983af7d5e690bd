/* What the engine tests share: a scratch directory, a real SQLite store
 * holding a campaign (with fast password hashing), and the templates of the
 * source tree. */
#ifndef CAMPAIGN_TEST_ENGINE_FIXTURE_H
#define CAMPAIGN_TEST_ENGINE_FIXTURE_H

#include "model/model.h"
#include "store/store.h"
#include "text/templates.h"

/* Makes a new directory /tmp/campaignd-NAME-XXXXXX into dir (64 bytes). */
void test_scratch_dir(char dir[64], const char *name);
/* Removes it and everything in it. */
void test_scratch_remove(const char *dir);
/* Creates the database at path holding c (which it frees), with the
 * minimum Argon2 limits so that tests stay fast. */
struct store *test_store_with(const char *path, struct campaign *c);
/* The templates of the source tree ($top_srcdir/templates), with no
 * override folder. */
struct templates *test_templates(void);

#endif
