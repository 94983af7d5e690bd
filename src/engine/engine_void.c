/* The mails an organiser's undo (or a battle result corrected) makes void:
 * those a person received about the steps taken back, named in the note
 * that tells everyone of it, so that nobody acts on a "Your turn" that no
 * longer holds. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "mail/mail_read.h"
#include "base/timefmt.h"

#include <stdlib.h>
#include <string.h>

/* Whether the organiser's actions `actions` take steps back. */
static bool takes_back(const json_t *actions)
{
	size_t i;
	json_t *a;
	json_array_foreach((json_t *)actions, i, a) {
		const char *what = json_string_value(json_object_get(a, "action"));
		const char *detail = json_string_value(json_object_get(a, "detail"));
		if (what && (strcmp(what, "undo") == 0 ||
			     (strcmp(what, "battle-result") == 0 && detail &&
			      strncmp(detail, "corrected ", 10) == 0)))
			return true;
	}
	return false;
}

/* A mail of the year's steps: its Message-ID names its place in the year
 * (".s" tokens before the '@'), which a mail made again looks for. */
static bool of_a_step(const char *message_id)
{
	const char *at = message_id ? strchr(message_id, '@') : NULL;
	for (const char *p = message_id; p && at && p + 2 < at; p++)
		if (p[0] == '.' && p[1] == 's')
			return true;
	return false;
}

void engine_void_note(struct engine *e, const struct campaign *c, json_t *data, const char *addr)
{
	if (!addr || !takes_back(json_object_get(data, "actions")))
		return;
	char *text = NULL, *err = NULL;
	if (store_kv_get(e->store, KV_CORRECTION, &text, &err) != STORE_OK || !text) {
		free(err);
		free(text);
		return;
	}
	json_t *win = json_loads(text, 0, NULL);
	free(text);
	/* this rewind's own window: a wider one kept from an earlier undo
	 * holds mails that still stand */
	json_t *since = json_object_get(win, "since");
	int64_t after = json_integer_value(since ? since : json_object_get(win, "after"));
	int64_t upto = json_integer_value(json_object_get(win, "upto"));
	json_decref(win);
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	if (store_outbox_matching(e->store, after, upto, "", &items, &n, &err) != STORE_OK) {
		free(err);
		return;
	}
	json_t *list = json_array();
	for (size_t i = 0; i < n; i++) {
		if (!items[i].recipients || !strstr(items[i].recipients, addr) ||
		    !of_a_step(items[i].message_id))
			continue;
		struct mail_info info;
		if (mail_read(items[i].raw, items[i].raw_len, NULL, &info) != 0)
			continue;
		const char *subject = info.subject ? info.subject : "";
		/* without the campaign's tag: "1451 · Your turn" */
		const char *tag_end = subject[0] == '[' ? strstr(subject, "] ") : NULL;
		if (tag_end)
			subject = tag_end + 2;
		char when[96];
		timefmt_local(items[i].created_at, c->timezone, when, sizeof when);
		bool turn = strstr(subject, "Your turn") != NULL;
		/* the mails merged into it, each under its heading */
		json_t *parts = json_array();
		char *body = engine_sent_text(items[i].raw);
		static const char rule[] = "\n" MERGED_RULE "\n";
		for (const char *at = body ? strstr(body, rule) : NULL; at;
		     at = strstr(at + 1, rule)) {
			const char *head = at + sizeof rule - 1;
			size_t len = strcspn(head, "\n");
			if (!len)
				continue;
			char *name = xstrndup(head, len);
			turn |= strncmp(name, "Your turn", 9) == 0;
			json_array_append_new(parts, json_pack("{s:s, s:b}", "name", name, "last", 0));
			free(name);
		}
		free(body);
		size_t np = json_array_size(parts);
		if (np)
			json_object_set_new(json_array_get(parts, np - 1), "last", json_true());
		json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:o, s:b}", "subject", subject,
						      "sent", when, "your_turn", turn, "parts",
						      parts, "has_parts", np > 0));
		mail_info_free(&info);
	}
	store_outbox_items_free(items, n);
	size_t k;
	json_t *v;
	bool turn = false;
	json_array_foreach(list, k, v)
		turn |= json_is_true(json_object_get(v, "your_turn"));
	json_object_set_new(data, "void_your_turn", json_boolean(turn));
	json_object_set_new(data, "has_void_mails", json_boolean(json_array_size(list) > 0));
	json_object_set_new(data, "void_mails", list);
}
