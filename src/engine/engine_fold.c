/* While one mail is processed, the year's mails it causes are held here
 * (engine_fold_hold) instead of going straight to the outbox, so that what
 * one person is told at that moment leaves as one mail: the reply to his
 * own mail leads (engine_fold_reply), else the held mail that leads by
 * rank (engine_fold_flush); the others follow under their subjects as
 * headings, as a merged year mail (engine_year_mail.c) does, and keep their
 * places in the Message-ID for a correction after an undo.
 *
 * In a group of mails applied in one transaction (engine_batch_begin) the
 * fold is held for the whole group: each held mail, and each reply, is
 * tagged with the mail of the group that caused it and dropped when that
 * mail's savepoint rolls back; all are queued when the group ends, before
 * its commit. A person's reply to his own mail still leads and still says
 * what his mail did; the year's mails other mails of the group caused for
 * him follow it in the order they were made (each already led by what he
 * must act on, queue_merged), so one run brings him one mail. */
#include "config.h"

#include "engine/engine.h"
#include "engine/engine_p.h"
#include "base/util.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fold_mail {
	char *addr, *name, *subject, *tpl, *token, *html_template;
	json_t *data;
	struct mail_attachment *att;
	size_t n_att;
	enum mail_auto_submitted auto_submitted;
	int year, rank;
	int tag;       /* the mail of the group that caused it */
	bool is_reply; /* a reply held to the end of the group */
	bool private;  /* the organiser's answer (engine_fold_organiser_reply) */
	char *reply_id, *reply_refs; /* what it answers (In-Reply-To) */
};

struct fold_secret {
	int tag;
	char *s;
};

struct engine_fold {
	int64_t now;
	struct fold_mail *m;
	size_t n, cap;
	/* held for a group of mails: the mail being processed (tag), the
	 * mails queued while it is (back in m if it rolls back), and the
	 * secrets of the mails kept (for the check when they are queued) */
	bool batch, in_mail;
	int tag;
	struct fold_mail *spent;
	size_t n_spent, cap_spent;
	struct fold_secret *sec;
	size_t n_sec, cap_sec;
};

static void fold_mail_free(struct fold_mail *m)
{
	free(m->addr);
	free(m->name);
	free(m->subject);
	free(m->tpl);
	free(m->token);
	free(m->html_template);
	free(m->reply_id);
	free(m->reply_refs);
	json_decref(m->data);
	for (size_t i = 0; i < m->n_att; i++) {
		free((char *)m->att[i].filename);
		free((char *)m->att[i].content_type);
		free((unsigned char *)m->att[i].data);
	}
	free(m->att);
}

void engine_fold_begin(struct engine *e, int64_t now)
{
	engine_fold_end(e);
	e->fold = xcalloc(1, sizeof *e->fold);
	e->fold->now = now;
}

static void secret_free(struct fold_secret *s)
{
	sodium_memzero(s->s, strlen(s->s));
	free(s->s);
}

void engine_fold_end(struct engine *e)
{
	struct engine_fold *f = e->fold;
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		fold_mail_free(&f->m[i]);
	for (size_t i = 0; i < f->n_spent; i++)
		fold_mail_free(&f->spent[i]);
	for (size_t i = 0; i < f->n_sec; i++)
		secret_free(&f->sec[i]);
	free(f->m);
	free(f->spent);
	free(f->sec);
	free(f);
	e->fold = NULL;
}

void engine_fold_batch_begin(struct engine *e)
{
	engine_fold_end(e);
	e->fold = xcalloc(1, sizeof *e->fold);
	e->fold->batch = true;
}

bool engine_fold_mail_begin(struct engine *e, bool grouped, int64_t now)
{
	struct engine_fold *f = e->fold;
	if (!grouped || !f || !f->batch)
		return false;
	f->tag++;
	f->now = now;
	f->in_mail = true;
	return true;
}

void engine_fold_mail_end(struct engine *e, bool kept)
{
	struct engine_fold *f = e->fold;
	if (!f || !f->batch || !f->in_mail)
		return;
	f->in_mail = false;
	if (!store_in_transaction(e->store)) {
		engine_fold_end(e); /* the database rolled the whole group back */
		return;
	}
	if (kept) {
		/* its secrets, for the check when its replies are queued */
		for (size_t i = 0; i < e->secret_count; i++) {
			grow_array((void **)&f->sec, &f->cap_sec, f->n_sec + 1, sizeof *f->sec);
			f->sec[f->n_sec++] = (struct fold_secret){f->tag, xstrdup(e->secrets[i])};
		}
		for (size_t i = 0; i < f->n_spent; i++)
			fold_mail_free(&f->spent[i]);
		f->n_spent = 0;
		return;
	}
	/* rolled back: what it caused goes; what earlier mails caused and
	 * was queued while it was processed (an undo's flush) is held again */
	struct fold_mail *m = f->spent;
	size_t n = 0, cap = f->cap_spent;
	for (size_t i = 0; i < f->n_spent; i++)
		if (f->spent[i].tag == f->tag)
			fold_mail_free(&f->spent[i]);
		else
			m[n++] = f->spent[i];
	for (size_t i = 0; i < f->n; i++) {
		if (f->m[i].tag == f->tag) {
			fold_mail_free(&f->m[i]);
			continue;
		}
		grow_array((void **)&m, &cap, n + 1, sizeof *m);
		m[n++] = f->m[i];
	}
	free(f->m);
	f->m = m;
	f->n = n;
	f->cap = cap;
	f->spent = NULL;
	f->n_spent = f->cap_spent = 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static struct fold_mail *hold_copy(struct engine_fold *f, const struct reply *r, int rank)
{
	grow_array((void **)&f->m, &f->cap, f->n + 1, sizeof *f->m);
	struct fold_mail *m = &f->m[f->n++];
	*m = (struct fold_mail){
		.addr = xstrdup(r->to_addr),
		.name = dup_or_null(r->to_name),
		.subject = xstrdup(r->subject ? r->subject : ""),
		.tpl = xstrdup(r->template_name ? r->template_name : ""),
		.token = xstrdup(r->token),
		.html_template = dup_or_null(r->html_template),
		.data = json_deep_copy(r->data),
		.auto_submitted = r->auto_submitted,
		.year = r->year,
		.rank = rank,
		.tag = f->tag,
	};
	if (r->n_attachments) {
		m->att = xcalloc(r->n_attachments, sizeof *m->att);
		for (size_t i = 0; i < r->n_attachments; i++) {
			const struct mail_attachment *a = &r->attachments[i];
			unsigned char *d = xmalloc(a->len ? a->len : 1);
			if (a->len)
				memcpy(d, a->data, a->len);
			m->att[i] = (struct mail_attachment){dup_or_null(a->filename),
							     dup_or_null(a->content_type), d,
							     a->len};
		}
		m->n_att = r->n_attachments;
	}
	return m;
}

bool engine_fold_hold(struct engine *e, const struct reply *r, int rank)
{
	if (!e->fold || r->secret || r->in_reply_to || !r->to_addr || !r->token)
		return false;
	hold_copy(e->fold, r, rank);
	return true;
}

/* A mail's text as it was made: merged already, or its template. */
static char *text_of(struct engine *e, const char *tpl, const json_t *data, char **errstr)
{
	const char *made = json_string_value(json_object_get(data, "merged_text"));
	char *t = made ? xstrdup(made) : templates_render(e->templates, tpl, data, errstr);
	if (t)
		str_trim(t);
	return t;
}

/* The year a heading names (" (1450)" at its end), else 0; *base_len the
 * length of the subject before it. */
static int heading_year(const char *h, size_t len, size_t *base_len)
{
	*base_len = len;
	if (len < 8 || h[len - 7] != ' ' || h[len - 6] != '(' || h[len - 1] != ')')
		return 0;
	for (size_t i = len - 5; i < len - 1; i++)
		if (h[i] < '0' || h[i] > '9')
			return 0;
	*base_len = len - 7;
	return atoi(h + len - 5);
}

/* The text of a mail merged already, put under a lead of `lead_year`:
 * each of its headings names its year when that is not the lead's (its
 * parts without a year were of `year`). */
static char *reyear(const char *text, int year, int lead_year)
{
	static const char rule[] = "\n\n" MERGED_RULE "\n";
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	const char *at = text;
	for (const char *r; (r = strstr(at, rule));) {
		const char *head = r + strlen(rule);
		size_t len = strcspn(head, "\n"), base = len;
		int y = heading_year(head, len, &base);
		if (!y)
			y = year;
		strbuf_printf(&sb, "%.*s%.*s", (int)(head - at), at, (int)base, head);
		if (y != lead_year)
			strbuf_printf(&sb, " (%d)", y);
		at = head + len;
	}
	strbuf_puts(&sb, at);
	return strbuf_take(&sb);
}

/* A part's heading under another mail's text: its subject, with its year
 * when that is not the lead's ("Recruitment (1450)"). For queue_merged and
 * the fold alike. */
char *engine_part_heading(const char *subject, int year, int lead_year)
{
	return year != lead_year ? xasprintf("%s (%d)", subject, year) : xstrdup(subject);
}

/* A part's "Corrected:" preface as it reads below another mail's text: the
 * first sentence names the part (for queue_merged and the fold alike). */
void engine_part_preface(struct strbuf *pre, const char *p, const char *heading)
{
	static const char whole[] = "Corrected: this mail replaces the one sent on ";
	static const char same[] = " under the same subject:";
	const char *same_at = strstr(p, same);
	if (strncmp(p, whole, strlen(whole)) == 0 && same_at)
		strbuf_printf(pre, "Corrected: \"%s\" below replaces the one sent on %.*s:%s",
			      heading, (int)(same_at - p - strlen(whole)), p + strlen(whole),
			      same_at + strlen(same));
	else
		strbuf_puts(pre, p);
}

/* Queues `lead` with `parts` after it, each under its subject. */
static int queue_with(struct engine *e, const struct reply *lead, struct fold_mail **parts,
		      size_t n, const struct campaign *c, int64_t now, char **body_out,
		      char **errstr)
{
	if (n == 0)
		return engine_queue_mail(e, lead, c, now, body_out, errstr);
	/* each thing said once (engine_told.c): a reply's move told below, an
	 * organiser's note beside a "Your turn" without whose turn it is */
	const char *told = json_string_value(json_object_get(lead->data, "your_turn_told"));
	const char *move_heading = NULL;
	const char *player = json_string_value(json_object_get(lead->data, "player"));
	for (size_t i = 0; i < n; i++) {
		if (!told)
			told = json_string_value(json_object_get(parts[i]->data, "your_turn_told"));
		if (!move_heading)
			move_heading = engine_turn_told(parts[i]->data, player);
	}
	json_t *lead_data = json_deep_copy(lead->data);
	if (move_heading)
		engine_moves_told_below(lead_data, move_heading);
	char *text = text_of(e, lead->template_name, lead_data, errstr);
	json_decref(lead_data);
	if (!text)
		return -1;
	int lead_year = lead->year ? lead->year : c->year;
	struct strbuf body = {0}, pre = {0}, token = {0};
	strbuf_puts(&body, text);
	free(text);
	strbuf_puts(&token, lead->token);
	strbuf_puts(&pre, "");
	const char *lead_pre = json_string_value(json_object_get(lead->data, "correction_preface"));
	if (lead_pre)
		strbuf_puts(&pre, lead_pre);
	const struct mail_attachment *att = lead->attachments;
	size_t n_att = lead->n_attachments;
	const char *html_template = lead->html_template;
	const json_t *html_data = lead->data;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct fold_mail *m = parts[i];
		if (told && strcmp(m->tpl, "organiser-action") == 0 &&
		    json_is_true(json_object_get(m->data, "one_part"))) {
			/* made again from its data, without what the turn says */
			engine_next_told(m->data, told);
			json_object_del(m->data, "merged_text");
		}
		text = text_of(e, m->tpl, m->data, errstr);
		if (!text) {
			rc = -1;
			break;
		}
		int year = m->year ? m->year : c->year;
		if (year != lead_year) {
			char *t = reyear(text, year, lead_year);
			free(text);
			text = t;
		}
		char *heading = engine_part_heading(m->subject, year, lead_year);
		strbuf_printf(&body, "\n\n%s\n%s\n\n%s", MERGED_RULE, heading, text);
		free(text);
		/* its places in the year, for a correction after an undo */
		const char *slots = strstr(m->token, ".s");
		if (slots)
			strbuf_puts(&token, slots);
		const char *p = json_string_value(json_object_get(m->data, "correction_preface"));
		if (p)
			engine_part_preface(&pre, p, heading);
		free(heading);
		if (!n_att && m->n_att) {
			att = m->att;
			n_att = m->n_att;
		}
		if (!html_template && m->html_template) {
			html_template = m->html_template;
			html_data = m->data;
		}
	}
	if (rc == 0) {
		strbuf_putc(&body, '\n');
		json_t *d = json_deep_copy(html_data);
		json_object_set_new(d, "merged_text", json_string(body.data));
		if (pre.len)
			json_object_set_new(d, "correction_preface", json_string(pre.data));
		else
			json_object_del(d, "correction_preface");
		/* a reply keeps its "Re:" subject; a mail of the year's own
		 * says it corrects */
		char *subject = pre.len && !lead_pre && !lead->in_reply_to
					? xasprintf("Corrected: %s", lead->subject)
					: NULL;
		struct reply r = *lead;
		r.data = d;
		r.token = token.data;
		r.attachments = att;
		r.n_attachments = n_att;
		r.html_template = html_template;
		if (subject)
			r.subject = subject;
		rc = engine_queue_mail(e, &r, c, now, body_out, errstr);
		free(subject);
		json_decref(d);
	}
	strbuf_free(&body);
	strbuf_free(&pre);
	strbuf_free(&token);
	return rc;
}

/* The held mails to `addr` (in the order they were made), taken out of
 * the fold: the caller frees each and the array. */
static struct fold_mail **take_for(struct engine *e, const char *addr, size_t *n)
{
	struct engine_fold *f = e->fold;
	*n = 0;
	if (!f || !addr)
		return NULL;
	struct fold_mail **out = xcalloc(f->n + 1, sizeof *out);
	size_t kept = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (strcasecmp(f->m[i].addr, addr) == 0) {
			out[*n] = xmalloc(sizeof **out);
			*out[(*n)++] = f->m[i];
		} else {
			f->m[kept++] = f->m[i];
		}
	}
	f->n = kept;
	return out;
}

static void parts_free(struct fold_mail **parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fold_mail_free(parts[i]);
		free(parts[i]);
	}
	free(parts);
}

/* Queued: freed, or while a mail of a group is processed kept aside, to
 * be held again if that mail rolls back (the outbox rows go with it). */
static void parts_done(struct engine_fold *f, struct fold_mail **parts, size_t n)
{
	if (!f->batch || !f->in_mail) {
		parts_free(parts, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		grow_array((void **)&f->spent, &f->cap_spent, f->n_spent + 1, sizeof *f->spent);
		f->spent[f->n_spent++] = *parts[i];
		free(parts[i]);
	}
	free(parts);
}

/* A reply held to the end of the group, where the year's mails the
 * group caused for him join it; *body_out gets its own text. */
static struct fold_mail *hold_reply(struct engine *e, const struct reply *r, char **body_out,
				    char **errstr)
{
	char *text = body_out ? text_of(e, r->template_name, r->data, errstr) : NULL;
	if (body_out && !text)
		return NULL;
	struct fold_mail *m = hold_copy(e->fold, r, -1);
	m->is_reply = true;
	if (r->in_reply_to) {
		m->reply_id = dup_or_null(r->in_reply_to->message_id);
		m->reply_refs = dup_or_null(r->in_reply_to->references);
	}
	if (body_out)
		*body_out = text;
	return m;
}

int engine_fold_reply(struct engine *e, const struct reply *r, const struct campaign *c,
		      int64_t now, char **body_out, char **errstr)
{
	struct engine_fold *f = e->fold;
	if (f && f->batch && f->in_mail && !r->secret && r->to_addr && r->token)
		return hold_reply(e, r, body_out, errstr) ? 0 : -1;
	size_t n = 0;
	struct fold_mail **parts = r->secret ? NULL : take_for(e, r->to_addr, &n);
	int rc = queue_with(e, r, parts, n, c, now, body_out, errstr);
	parts_free(parts, n);
	return rc;
}

/* The organiser's answer `lead` with `parts` under it: one mail, no
 * secret (the parts are compared with it when made again after an undo),
 * never copied to a stand-in; alone, as it is. */
static int queue_private(struct engine *e, const struct reply *lead, struct fold_mail **parts,
			 size_t n, const struct campaign *c, int64_t now, char **body_out,
			 char **errstr)
{
	if (n == 0)
		return engine_queue_mail(e, lead, c, now, body_out, errstr);
	struct reply r = *lead;
	r.secret = false;
	r.data = json_deep_copy(lead->data);
	json_object_set_new(r.data, "news_below", json_true());
	bool was = e->no_stand_in_copy;
	e->no_stand_in_copy = true;
	int rc = queue_with(e, &r, parts, n, c, now, body_out, errstr);
	e->no_stand_in_copy = was;
	json_decref(r.data);
	return rc;
}

int engine_fold_organiser_reply(struct engine *e, const struct reply *r,
				const struct campaign *c, int64_t now, char **body_out,
				char **errstr)
{
	struct engine_fold *f = e->fold;
	bool copied = false;
	if (engine_stand_in_copies(e, c, r->to_addr, now, &copied, errstr) != 0)
		return -1;
	if (copied || !f || !r->to_addr || !r->token)
		return engine_queue_mail(e, r, c, now, body_out, errstr);
	if (f->batch && f->in_mail) {
		struct fold_mail *m = hold_reply(e, r, body_out, errstr);
		if (m)
			m->private = true;
		return m ? 0 : -1;
	}
	size_t n = 0;
	struct fold_mail **parts = take_for(e, r->to_addr, &n);
	int rc = queue_private(e, r, parts, n, c, now, body_out, errstr);
	parts_free(parts, n);
	return rc;
}

/* One person's held mails with replies among them: each reply leads the
 * year's mails made before it (and after the one before), the last reply
 * those made after it too; the others in the order they were made. */
static int queue_replies(struct engine *e, struct fold_mail **parts, size_t n,
			 const struct campaign *c, char **errstr)
{
	struct fold_mail **group = xcalloc(n + 1, sizeof *group);
	size_t last = 0;
	for (size_t i = 0; i < n; i++)
		if (parts[i]->is_reply)
			last = i;
	int rc = 0, prev_tag = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct fold_mail *lead = parts[i];
		if (!lead->is_reply)
			continue;
		size_t k = 0;
		for (size_t j = 0; j < n; j++) {
			struct fold_mail *m = parts[j];
			if (m->is_reply || m->tag <= prev_tag)
				continue;
			if (m->tag <= lead->tag || i == last)
				group[k++] = m;
		}
		prev_tag = i == last ? INT32_MAX : lead->tag;
		struct mail_info info = {0};
		info.message_id = lead->reply_id;
		info.references = lead->reply_refs;
		struct reply r = {lead->addr, lead->name, lead->subject, lead->tpl,
				  lead->data, lead->reply_id ? &info : NULL, lead->token,
				  lead->auto_submitted, lead->att, lead->n_att,
				  lead->html_template, lead->private, lead->year};
		rc = lead->private ? queue_private(e, &r, group, k, c, e->fold->now, NULL, errstr)
				   : queue_with(e, &r, group, k, c, e->fold->now, NULL, errstr);
	}
	free(group);
	return rc;
}

int engine_fold_flush(struct engine *e, char **errstr)
{
	if (!e->fold || e->fold->n == 0)
		return 0;
	struct engine_fold *f = e->fold;
	struct campaign *c = NULL;
	if (store_load_campaign(e->store, &c, errstr) != STORE_OK)
		return -1;
	/* the secrets of the group's mails, checked again as they leave */
	for (size_t i = 0; i < f->n_sec; i++)
		engine_secret_add(e, f->sec[i].s);
	int rc = 0;
	while (rc == 0 && f->n) {
		size_t n = 0;
		char *addr = xstrdup(f->m[0].addr);
		struct fold_mail **parts = take_for(e, addr, &n);
		free(addr);
		bool replies = false;
		for (size_t k = 0; k < n; k++)
			replies |= parts[k]->is_reply;
		if (replies) {
			rc = queue_replies(e, parts, n, c, errstr);
			parts_done(f, parts, n);
			continue;
		}
		/* the lead: what he must act on first (of two turns, the
		 * later); the others in the order they were made */
		size_t lead = 0;
		for (size_t k = 1; k < n; k++)
			if (parts[k]->rank < parts[lead]->rank ||
			    (parts[k]->rank == parts[lead]->rank &&
			     strcmp(parts[k]->tpl, "your-turn") == 0))
				lead = k;
		struct fold_mail *first = parts[lead];
		memmove(parts + 1, parts, lead * sizeof *parts);
		parts[0] = first;
		struct reply r = {first->addr, first->name, first->subject, first->tpl,
				  first->data, NULL, first->token, first->auto_submitted,
				  first->att, first->n_att, first->html_template, false,
				  first->year};
		rc = queue_with(e, &r, parts + 1, n - 1, c, f->now, NULL, errstr);
		parts_done(f, parts, n);
	}
	campaign_free(c);
	return rc;
}
