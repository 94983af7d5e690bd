/* Corrections after an undo: the window of mails an undo may correct, and
 * each mail made again paired with the one the player had (what changed,
 * was / now), or left unsent when it came out the same. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "engine/engine_year_p.h"
#include "mail/mail_compose.h"
#include "mail/mail_text.h"
#include "base/timefmt.h"

#include <stdlib.h>
#include <string.h>

/* Why the organiser went back, as the undo recorded it. */
static const char *why_of(const json_t *correction)
{
	const char *why = json_string_value(json_object_get(correction, "why"));
	return why && *why ? why : "the organiser went back a step";
}

int engine_correction_open(struct engine *e, int64_t after, const char *why, char **errstr)
{
	int64_t upto = 0;
	char *old_text = NULL;
	/* the mails held so far are in the outbox first: they are ones an
	 * undo may correct */
	if (engine_fold_flush(e, errstr) != 0)
		return -1;
	if (store_outbox_last_id(e->store, &upto, errstr) != STORE_OK ||
	    store_kv_get(e->store, KV_CORRECTION, &old_text, errstr) != STORE_OK)
		return -1;
	json_t *old = old_text ? json_loads(old_text, 0, NULL) : NULL;
	free(old_text);
	/* a window already open is widened: the text a player has of a mail
	 * may be one sent before an earlier undo (it was not sent again when
	 * it came out the same). Each rewind pairs mails anew. */
	json_int_t old_after = json_integer_value(json_object_get(old, "after"));
	json_int_t since = after;
	if (json_is_object(old) && old_after < after)
		after = old_after;
	json_t *doc = json_pack("{s:I, s:I, s:I, s:s, s:[]}", "after", (json_int_t)after, "upto",
				(json_int_t)upto, "since", since, "why", why ? why : "", "used");
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	json_decref(old);
	int rc = store_kv_set(e->store, KV_CORRECTION, text, errstr) == STORE_OK ? 0 : -1;
	free(text);
	return rc;
}

/* The orders the acknowledgements to `addr` after outbox id `after` showed
 * as standing (their "Your current orders" lines, trimmed), one a line:
 * the player was told of them in the reply to his own mail, so a mail
 * made again does not list them as changed. NULL when there are none. */
static char *acknowledged_orders(struct yctx *y, const char *addr, int64_t after)
{
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	char *err = NULL;
	if (!addr || store_outbox_matching(y->e->store, after, INT64_MAX, "<ack.", &items, &n,
					   &err) != STORE_OK) {
		free(err);
		return NULL;
	}
	struct strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		if (!items[i].recipients || !strstr(items[i].recipients, addr))
			continue;
		char *text = engine_sent_text(items[i].raw);
		const char *at = text ? strstr(text, "\nYour current orders\n") : NULL;
		for (at = at ? strchr(at + 1, '\n') : NULL; at && *at;) {
			at++;
			const char *nl = strchr(at, '\n');
			size_t len = nl ? (size_t)(nl - at) : strlen(at);
			if (strncmp(at, "Each mail changes", 17) == 0 || strncmp(at, "Errors:", 7) == 0)
				break;
			size_t lead = 0;
			while (lead < len && at[lead] == ' ')
				lead++;
			/* an order, indented; not its notes ("-> ...") */
			if (lead > 0 && lead < len && lead <= 4 && strncmp(at + lead, "->", 2) != 0)
				strbuf_printf(&sb, "%.*s\n", (int)(len - lead), at + lead);
			at = nl;
		}
		free(text);
	}
	store_outbox_items_free(items, n);
	return sb.data;
}

/* A mail made again after an undo or a correction: the one it replaces is
 * looked for (same recipient, template, subject and place in the year).
 * *skip when its text is the same (not sent twice); else *preface says what
 * changed. Returns 0, or -1 once a failure was met. */
/* In the text of a mail that merged several (queue_merged), the part that
 * was the mail `subject`: the one under that heading, else the first (the
 * leading one has no heading). In place. */
static void section_of(char *text, const char *subject)
{
	static const char rule[] = "\n\n" MERGED_RULE "\n";
	char *first_end = strstr(text, rule);
	if (!first_end)
		return;
	for (char *at = first_end; at; at = strstr(at + 1, rule)) {
		char *head = at + strlen(rule);
		size_t len = strlen(subject);
		if (strncmp(head, subject, len) != 0)
			continue;
		/* under a mail of another year, with its year: "Subject (1451)" */
		if (head[len] == ' ' && head[len + 1] == '(' &&
		    strspn(head + len + 2, "0123456789") == 4 && strncmp(head + len + 6, ")\n", 2) == 0)
			len += 7;
		if (head[len] == '\n') {
			char *start = head + len + 1;
			while (*start == '\n')
				start++;
			char *end = strstr(start, rule);
			memmove(text, start, end ? (size_t)(end - start) : strlen(start));
			text[end ? (size_t)(end - start) : strlen(start)] = '\0';
			return;
		}
	}
	*first_end = '\0';
}

int yctx_correction_of(struct yctx *y, const char *slot, const char *addr, const char *tpl,
			 json_t *data, const char *body_check, const char *section, bool *skip,
			 char **preface)
{
	*skip = false;
	*preface = NULL;
	char *err = NULL;
	if (!y->correction) {
		char *text = NULL;
		if (store_kv_get(y->e->store, KV_CORRECTION, &text, &err) != STORE_OK) {
			set_err(y, err);
			return -1;
		}
		y->correction = text ? json_loads(text, 0, NULL) : NULL;
		if (!y->correction)
			y->correction = json_null();
		free(text);
	}
	if (!json_is_object(y->correction))
		return 0;
	json_t *used = json_object_get(y->correction, "used");
	struct store_outbox_item *items = NULL;
	size_t n = 0;
	if (store_outbox_matching(y->e->store,
				  json_integer_value(json_object_get(y->correction, "after")),
				  json_integer_value(json_object_get(y->correction, "upto")), slot,
				  &items, &n, &err) != STORE_OK) {
		set_err(y, err);
		return -1;
	}
	/* the latest one: what the player has now (a merged mail answers for
	 * each of its parts: "id.slot") */
	const struct store_outbox_item *old = NULL;
	char *mark = NULL;
	for (size_t i = n; i-- > 0 && !old;) {
		bool taken = false;
		size_t k;
		json_t *v;
		char *m = xasprintf("%lld%s", (long long)items[i].id, slot);
		json_array_foreach(used, k, v)
			taken |= json_integer_value(v) == items[i].id ||
				 (json_is_string(v) && strcmp(json_string_value(v), m) == 0);
		if (!taken) {
			old = &items[i];
			mark = m;
		} else {
			free(m);
		}
	}
	int rc = 0;
	if (old) {
		json_array_append_new(used, json_string(mark));
		char *doc = json_dumps(y->correction, JSON_COMPACT);
		if (store_kv_set(y->e->store, KV_CORRECTION, doc, &err) != STORE_OK) {
			set_err(y, err);
			rc = -1;
		}
		free(doc);
		char *was = engine_sent_text(old->raw);
		char *now = body_check ? NULL : templates_render(y->e->templates, tpl, data, &err);
		free(err);
		const char *text = body_check ? body_check : now;
		if (was) {
			/* a mail that was itself a correction: its text without
			 * its own "Corrected:" preface (which ends at the first
			 * blank line), so that only the text is compared */
			char *blank = strncmp(was, "Corrected: ", 11) == 0 ? strstr(was, "\n\n")
									    : NULL;
			if (blank)
				memmove(was, blank + 2, strlen(blank + 2) + 1);
			if (section)
				section_of(was, section);
			str_trim(was);
		}
		/* flowed and read back as the sent one was (trailing blanks) */
		char *text_trim = NULL;
		if (text) {
			char *f = mail_compose_flowed(text);
			text_trim = mail_text_unflow(f, false);
			free(f);
		}
		if (text_trim)
			str_trim(text_trim);
		if (was && text && strcmp(was, text_trim) == 0) {
			*skip = true;
		} else if (text) {
			char when[96];
			struct strbuf sb = {0};
			strbuf_printf(&sb, "Corrected: this mail replaces the one sent on %s under the "
					   "same subject: %s.\n",
				      timefmt_local(old->created_at, y->c->timezone, when, sizeof when),
				      why_of(y->correction));
			struct strbuf diff = {0};
			strbuf_puts(&diff, "");
			/* orders the player sent since, already acknowledged,
			 * are no change the correction made */
			char *acked = was ? acknowledged_orders(y, addr, old->id) : NULL;
			size_t changed = was ? engine_changed_lines(&diff, was, text, acked) : 0;
			free(acked);
			if (changed)
				strbuf_printf(&sb, "What changed:\n%s", diff.data);
			strbuf_free(&diff);
			*preface = strbuf_take(&sb);
		}
		free(was);
		free(now);
		free(text_trim);
	}
	free(mark);
	store_outbox_items_free(items, n);
	return rc;
}
