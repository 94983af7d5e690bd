/* FORGOT PASSWORD: a new password for a player who lost his, asked for by
 * mail from his registered address. The new password goes to that address
 * only; the old one keeps working until the new one is used, so a forged
 * request can neither lock a player out nor reach anyone else. */
#include "config.h"

#include "engine/engine_p.h"
#include "base/timefmt.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int engine_forgot_password(struct engine *e, const struct campaign *c, int player,
			   json_t *data, const struct mail_info *info, const char *token,
			   int64_t now, struct engine_outcome *out, char **errstr)
{
	const struct player *pl = &c->players[player];
	char *key = xasprintf("forgot-password:%s", pl->key), *last = NULL;
	char password[20] = "";
	int rc = -1;
	if (store_kv_get(e->store, key, &last, errstr) != STORE_OK)
		goto done;
	int64_t since = last ? strtoll(last, NULL, 10) : 0;
	bool limited = last && now >= since && now - since < ENGINE_FORGOT_HOURS * 3600LL;
	json_t *d = json_deep_copy(data);
	if (limited) {
		char when[64], next[64];
		timefmt_local(since, c->timezone, when, sizeof when);
		timefmt_local(since + ENGINE_FORGOT_HOURS * 3600LL, c->timezone, next, sizeof next);
		json_object_set_new(d, "limited", json_true());
		json_object_set_new(d, "sent_at", json_string(when));
		json_object_set_new(d, "next_at", json_string(next));
		out->verdict = ENGINE_REJECTED;
		out->summary = xasprintf("FORGOT PASSWORD from %s: one was sent at %s, none again "
					 "before %s", pl->key, when, next);
	} else {
		char buf[24];
		engine_generate_password(password);
		if (store_set_pending_password(e->store, pl->key, password, errstr) != STORE_OK) {
			json_decref(d);
			goto done;
		}
		snprintf(buf, sizeof buf, "%lld", (long long)now);
		if (store_kv_set(e->store, key, buf, errstr) != STORE_OK) {
			json_decref(d);
			goto done;
		}
		json_object_set_new(d, "password", json_string(password));
		out->verdict = ENGINE_ACCEPTED;
		out->summary = xasprintf("FORGOT PASSWORD from %s: a new password mailed to the "
					 "registered address", pl->key);
	}
	char *subject = xstrdup(limited ? "No new password yet" : "Your new password");
	/* to the registered address only, whatever the mail's From or Reply-To */
	struct reply r = {pl->email, pl->name, subject, "forgot-password", d, info, token,
			  MAIL_AUTO_REPLIED, NULL, 0, NULL, !limited, 0};
	/* the reply as rendered holds the password: never kept in the outcome */
	rc = engine_queue_mail(e, &r, c, now, limited ? &out->reply : NULL, errstr);
	if (rc == 0)
		out->reply_to = xstrdup(pl->email);
	if (rc == 0 && !limited)
		out->reply = xstrdup("(a new password, mailed to the registered address only; "
				     "not shown)");
	free(subject);
	json_object_del(d, "password");
	json_decref(d);
done:
	sodium_memzero(password, sizeof password);
	free(last);
	free(key);
	return rc;
}
