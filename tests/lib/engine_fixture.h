/* What the engine tests share: an engine on a real SQLite file holding a
 * campaign (with fast password hashing) in a scratch directory, the
 * templates of the source tree, and order mails as clients send them. */
#ifndef CAMPAIGN_TEST_ENGINE_FIXTURE_H
#define CAMPAIGN_TEST_ENGINE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "model/model.h"
#include "store/store.h"
#include "text/templates.h"

/* The campaign's address and the Date of test_mail's mails. */
#define TEST_ADDRESS "campaign@example.org"
#define TEST_DATE "Mon, 30 Nov 2026 10:00:00 +0000"

/* The templates of the source tree ($top_srcdir/templates), with no
 * override folder. */
struct templates *test_templates(void);

/* An engine test's world. */
struct test_engine {
	char dir[64];         /* scratch directory */
	char *db;             /* dir/campaign.db */
	struct store *store;
	struct templates *tpl;
	struct engine *engine;
	uint32_t uid;         /* for tests that number their mails */
};

/* Makes the scratch directory /tmp/campaignd-NAME-XXXXXX, the database
 * holding c (which it frees), sets the passwords (a NULL-terminated list
 * of player key and password pairs; STORE_ORGANISER for the organiser),
 * and starts the engine with cfg and the templates of the source tree. */
void test_engine_open(struct test_engine *t, const char *name, struct campaign *c,
		      const char *const *passwords, const struct engine_config *cfg);
/* Frees it all and removes the scratch directory. */
void test_engine_close(struct test_engine *t);
/* The cmocka teardown of a struct test_engine allocated by the setup. */
int test_engine_teardown(void **state);

/* engine_process_mail on the whole of raw, not a dry run: fails the test
 * if the engine reports an error; returns the verdict. */
enum engine_verdict test_engine_process(struct test_engine *t, uint32_t uidvalidity,
					uint32_t uid, const char *raw, int64_t now,
					struct engine_outcome *out);

/* A queued mail as a test searches it: a first line "Subject: " with the
 * Subject decoded (RFC 2047: ours hold a middle dot), then the raw mail
 * unchanged. Free it. */
char *test_searchable(const char *raw, size_t len);

/* An order mail from its fields; NULL fields are left out, but for `to`
 * (TEST_ADDRESS) and `subject` ("orders"). */
struct test_mail {
	const char *from, *to, *subject, *msgid, *date;
	const char *headers; /* more header lines, each ending in CRLF */
	const char *body;
};
/* The raw mail: From, To, Subject, Message-ID, Date, the other headers,
 * a text/plain UTF-8 Content-Type, then the body. Free it. */
char *test_mail(const struct test_mail *m);

/* test_mail from `from` with `body`, processed at `now` as IMAP uid `uid`
 * (uidvalidity 1): the verdict, and the reply (allocated, NULL if none) in
 * *reply when reply is not NULL. */
enum engine_verdict test_engine_send(struct test_engine *t, uint32_t uid, const char *from,
				     const char *body, int64_t now, char **reply);

#endif
