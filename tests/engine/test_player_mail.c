/* What a player gets by mail, end to end on the Maildir transport: his
 * mail delivered into a Maildir, fetched and processed by the engine, the
 * replies delivered by the Maildir sink into another, and read back as the
 * player's client would: STATUS (his own army, reserve, contingents,
 * pending orders, what he is awaited for), MAP (the map attached, valid
 * MIME), HELP (the whole orders reference), the recruitment mail (the
 * reserve and what may be recruited, with costs), and the organiser's
 * PREVIEW in prose. No password in any of them. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <libetpan/libetpan.h>

#include "lib/campaign_fixture.h"
#include "lib/engine_fixture.h"
#include "lib/files.h"
#include "engine/engine.h"
#include "mail/mail_text.h"
#include "mail/transport.h"
#include "store/store.h"
#include "base/fileio.h"
#include "base/util.h"

#define NOW 1800000000LL
#define HOUR 3600LL
#define BURGUNDY_PW "BRG0-1XYZ-7KQM-2XRT"
#define FRANCE_PW "FRA0-1XYZ-7KQM-2XRT"
#define ORGANISER_PW "ORGA-0002-SECRET"
#define SEED "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define PHILIPPE "philippe@example.org"
#define CHARLES "charles@example.org"

struct world {
	struct test_engine t;
	char *in, *out;
	struct mail_source *src;
	struct mail_sink *sink;
	int seq;
	int64_t now;
};

static int setup_with(void **state, bool played)
{
	struct world *w = xcalloc(1, sizeof *w);
	struct campaign *c = fixture_campaign();
	if (played)
		fixture_play_a_year(c);
	static const char *const pw[] = {"burgundy", BURGUNDY_PW, "france", FRANCE_PW,
					 STORE_ORGANISER, ORGANISER_PW, NULL};
	struct engine_config cfg = {.campaign_address = TEST_ADDRESS, .mailbox = "INBOX"};
	test_engine_open(&w->t, "playermail", c, pw, &cfg);
	w->in = xasprintf("%s/inbox", w->t.dir);
	w->out = xasprintf("%s/players", w->t.dir);
	w->src = transport_maildir_source_new(&(struct maildir_source_config){
		.path = w->in, .create = true});
	w->sink = transport_maildir_sink_new(w->out, (struct transport_log){0});
	*state = w;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, false);
}

static int setup_played(void **state)
{
	return setup_with(state, true);
}

static int teardown(void **state)
{
	struct world *w = *state;
	mail_source_free(w->src);
	mail_sink_free(w->sink);
	free(w->in);
	free(w->out);
	test_engine_close(&w->t);
	free(w);
	return 0;
}

static enum transport_status on_message(void *ctx, const struct transport_message *m,
					char **errstr)
{
	(void)errstr;
	struct world *w = ctx;
	char *raw = xstrndup(m->data, m->len);
	struct engine_outcome out;
	test_engine_process(&w->t, m->uidvalidity, m->uid, raw, w->now, &out);
	engine_outcome_free(&out);
	free(raw);
	return TRANSPORT_OK;
}

/* Delivers a mail into the inbox Maildir, lets the engine fetch and answer
 * it at `now`, and sends what it queued into the players' Maildir. */
static void deliver(struct world *w, const char *from, const char *body, int64_t now)
{
	char msgid[64], *path;
	snprintf(msgid, sizeof msgid, "pm%d@example.org", ++w->seq);
	char *raw = test_mail(&(struct test_mail){.from = from, .msgid = msgid, .body = body});
	path = xasprintf("%s/new/%lld.M%03dP1.test", w->in, (long long)now, w->seq);
	char *err = NULL;
	if (w->seq == 1)
		assert_int_equal(mail_source_open(w->src, &err), TRANSPORT_OK);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(raw, fp);
	assert_int_equal(fclose(fp), 0);
	free(path);
	free(raw);
	w->now = now;
	uint32_t uv = 0, last = 0;
	assert_int_equal(engine_mailbox_position(w->t.engine, &uv, &last, NULL), 0);
	enum transport_status st = mail_source_fetch_new(w->src, uv, last, on_message, w, NULL,
							 &err);
	if (st != TRANSPORT_OK)
		fail_msg("fetch: %s", err ? err : "?");
	size_t sent = 0, failed = 0;
	assert_int_equal(engine_flush_outbox(w->t.engine, w->sink, now, &sent, &failed, &err), 0);
	assert_int_equal(failed, 0);
}

/* The mails delivered to `addr` since the last call (their files are
 * removed), as one NUL-separated list: returns their count, *raws the
 * raw mails (free each and the array). */
static size_t mails_to(struct world *w, const char *addr, char ***raws)
{
	char *dir = xasprintf("%s/new", w->out);
	DIR *d = opendir(dir);
	size_t n = 0;
	*raws = NULL;
	struct dirent *de;
	char *line = xasprintf("Delivered-To: %s\r\n", addr);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		size_t len = 0;
		char *raw = file_read_all(path, 1 << 24, &len);
		if (raw && strstr(raw, line)) {
			*raws = xrealloc(*raws, (n + 1) * sizeof **raws);
			(*raws)[n++] = raw;
			unlink(path);
		} else {
			free(raw);
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(line);
	free(dir);
	return n;
}

/* Forgets the mails to addr so far; returns how many there were. */
static size_t drop(struct world *w, const char *addr)
{
	char **raws = NULL;
	size_t n = mails_to(w, addr, &raws);
	for (size_t i = 0; i < n; i++)
		free(raws[i]);
	free(raws);
	return n;
}

/* The MIME parts of a raw mail with their decoded bodies: fails the test
 * when libetpan cannot parse it. Finds the first part of `type`
 * ("text/plain", "image/svg+xml") and returns its decoded body. */
static char *part_of(const char *raw, const char *type, char **filename);

static char *find_part(struct mailmime *mm, const char *raw_type, char **filename)
{
	if (mm->mm_type == MAILMIME_MULTIPLE) {
		clistiter *it;
		for (it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it; it = it->next) {
			char *r = find_part(clist_content(it), raw_type, filename);
			if (r)
				return r;
		}
		return NULL;
	}
	if (mm->mm_type == MAILMIME_MESSAGE)
		return mm->mm_data.mm_message.mm_msg_mime
			       ? find_part(mm->mm_data.mm_message.mm_msg_mime, raw_type, filename)
			       : NULL;
	if (mm->mm_type != MAILMIME_SINGLE)
		return NULL;
	struct mailmime_content *ct = mm->mm_content_type;
	char type[128];
	snprintf(type, sizeof type, "%s/%s",
		 ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE &&
				 ct->ct_type->tp_data.tp_discrete_type->dt_type ==
					 MAILMIME_DISCRETE_TYPE_TEXT
			 ? "text"
		 : ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE &&
				 ct->ct_type->tp_data.tp_discrete_type->dt_type ==
					 MAILMIME_DISCRETE_TYPE_IMAGE
			 ? "image"
			 : "other",
		 ct->ct_subtype);
	if (strcasecmp(type, raw_type) != 0)
		return NULL;
	struct mailmime_data *body = mm->mm_data.mm_single;
	int encoding = MAILMIME_MECHANISM_8BIT;
	if (mm->mm_mime_fields) {
		clistiter *it;
		for (it = clist_begin(mm->mm_mime_fields->fld_list); it; it = it->next) {
			struct mailmime_field *f = clist_content(it);
			if (f->fld_type == MAILMIME_FIELD_TRANSFER_ENCODING)
				encoding = f->fld_data.fld_encoding->enc_type;
		}
	}
	size_t idx = 0, len = 0;
	char *decoded = NULL;
	assert_int_equal(mailmime_part_parse(body->dt_data.dt_text.dt_data,
					     body->dt_data.dt_text.dt_length, &idx, encoding,
					     &decoded, &len),
			 MAILIMF_NO_ERROR);
	char *copy = xstrndup(decoded, len);
	mailmime_decoded_part_free(decoded);
	if (filename) {
		*filename = NULL;
		if (mm->mm_mime_fields && mm->mm_mime_fields->fld_list) {
			clistiter *it;
			for (it = clist_begin(mm->mm_mime_fields->fld_list); it; it = it->next) {
				struct mailmime_field *f = clist_content(it);
				if (f->fld_type != MAILMIME_FIELD_DISPOSITION)
					continue;
				clistiter *p;
				for (p = clist_begin(f->fld_data.fld_disposition->dsp_parms); p;
				     p = p->next) {
					struct mailmime_disposition_parm *dp = clist_content(p);
					if (dp->pa_type == MAILMIME_DISPOSITION_PARM_FILENAME)
						*filename = xstrdup(dp->pa_data.pa_filename);
				}
			}
		}
	}
	return copy;
}

static char *part_of(const char *raw, const char *type, char **filename)
{
	size_t idx = 0;
	struct mailmime *mm = NULL;
	assert_int_equal(mailmime_parse(raw, strlen(raw), &idx, &mm), MAILIMF_NO_ERROR);
	char *r = find_part(mm, type, filename);
	mailmime_free(mm);
	return r;
}

/* The one answer to a mail (it has an In-Reply-To) among the mails to
 * addr since the last call; its decoded text part. The other mails (the
 * year's, such as reminders) are dropped. None may hold a password. */
static char *text_to(struct world *w, const char *addr, char **raw_out)
{
	char **raws = NULL;
	size_t n = mails_to(w, addr, &raws), answers = 0;
	char *answer = NULL;
	for (size_t i = 0; i < n; i++) {
		assert_null(strstr(raws[i], BURGUNDY_PW));
		assert_null(strstr(raws[i], FRANCE_PW));
		assert_null(strstr(raws[i], ORGANISER_PW));
		if (strstr(raws[i], "\r\nIn-Reply-To: ")) {
			answers++;
			free(answer);
			answer = raws[i];
		} else {
			free(raws[i]);
		}
	}
	free(raws);
	if (answers != 1)
		fail_msg("%zu answers among the %zu mails to %s, expected 1", answers, n, addr);
	char *text = part_of(answer, "text/plain", NULL);
	assert_non_null(text);
	if (strstr(answer, "format=flowed")) { /* read as a client shows it */
		char *joined = mail_text_unflow(text, false);
		free(text);
		text = joined;
	}
	if (raw_out)
		*raw_out = answer;
	else
		free(answer);
	return text;
}

/* Each of `lines` (NULL-terminated) is in text, in that order. */
static void assert_in_order(const char *text, const char *const *lines)
{
	const char *at = text;
	for (size_t i = 0; lines[i]; i++) {
		const char *hit = strstr(at, lines[i]);
		if (!hit)
			fail_msg("\"%s\" missing (or out of order) in:\n%s", lines[i], text);
		at = hit + strlen(lines[i]);
	}
}

static void start(struct world *w)
{
	char *report = NULL, *err = NULL;
	assert_int_equal(engine_start(w->t.engine, NOW, SEED, &report, &err), 0);
	free(report);
	size_t sent = 0, failed = 0;
	assert_int_equal(engine_flush_outbox(w->t.engine, w->sink, NOW, &sent, &failed, &err), 0);
	drop(w, PHILIPPE);
	drop(w, CHARLES);
	drop(w, "organiser@example.org");
}

static void test_status(void **state)
{
	struct world *w = *state;
	start(w);
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nIF INVADED ANY SIEGE\nSTATUS\n",
		NOW + HOUR);
	char *text = text_to(w, CHARLES, NULL);
	/* what is awaited and the orders that stand are the acknowledgement's
	 * own sections, said once, before the status */
	assert_in_order(text, (const char *const[]){
		"What happens next",
		"Burgundy's turn",
		"Nothing is awaited from you now",
		"Deadline: ",
		"Your current orders",
		"IF INVADED ANY SIEGE",
		"Status of France, 1451",
		"Your field army at Paris: 462 AP, 2 generals",
		"2 Cv(O) general at 25 AP = 50 AP",
		"18 Kn(F) at 9 AP = 162 AP",
		"Your reserve: 0 AP",
		"(empty)",
		"You are the tributary of Burgundy.",
		"Your contingent with Burgundy's army at Flanders: 18 AP",
		"2 Kn(F) at 9 AP = 18 AP",
		"Where everyone stands",
		NULL});
	assert_null(strstr(text, "What the campaign waits for"));
	assert_null(strstr(text, "Your pending orders"));
	free(text);

	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nSTATUS\n", NOW + 2 * HOUR);
	text = text_to(w, PHILIPPE, NULL);
	assert_in_order(text, (const char *const[]){
		"Your field army at Flanders: 420 AP",
		"15 Kn(S) at 12 AP = 180 AP",
		"Your reserve: 60 AP",
		"5 Kn(S) at 12 AP = 60 AP",
		"Your provinces (* home): Dijon*, Flanders",
		"France's contingent with your army: 18 AP",
		"2 Kn(F) at 9 AP = 18 AP",
		NULL});
	assert_in_order(text, (const char *const[]){
		"What happens next",
		"Awaited from you: the movement option of the turn",
		"Your current orders",
		"(none",
		"Status of Burgundy",
		NULL});
	assert_null(strstr(text, "Nothing is awaited from you"));
	free(text);
}

/* MAP: the map as it stands, attached to the answer as valid MIME. */
static void test_map(void **state)
{
	struct world *w = *state;
	start(w);
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nMAP\n", NOW + HOUR);
	char *raw = NULL;
	char *text = text_to(w, PHILIPPE, &raw);
	assert_non_null(strstr(raw, "Content-Type: multipart/mixed"));
	assert_non_null(strstr(text, "The current map is attached (map.png, map.svg)."));
	char *png = part_of(raw, "image/png", NULL);
	assert_non_null(png);
	assert_memory_equal(png, "\x89PNG", 4);
	free(png);
	char *filename = NULL;
	char *svg = part_of(raw, "image/svg+xml", &filename);
	assert_non_null(svg);
	assert_non_null(filename);
	assert_string_equal(filename, "map.svg");
	assert_non_null(strstr(svg, "<svg"));
	assert_non_null(strstr(svg, "</svg>"));
	assert_non_null(strstr(svg, "Dijon"));
	/* its legend explains the dashed line to the island */
	assert_non_null(strstr(svg, ">sea route</text>"));
	free(filename);
	free(svg);
	free(text);
	free(raw);
	/* without MAP, no attachment */
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nIN STORM HALT\n", NOW + 2 * HOUR);
	text = text_to(w, PHILIPPE, &raw);
	assert_null(strstr(raw, "image/svg+xml"));
	assert_null(strstr(text, "map is attached"));
	free(text);
	free(raw);
}

/* HELP: the whole orders reference, and no pointer to a manual page the
 * player does not have. */
static void test_help(void **state)
{
	struct world *w = *state;
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nHELP\n", NOW);
	char *text = text_to(w, PHILIPPE, NULL);
	assert_in_order(text, (const char *const[]){
		"THE MAIL", "LINES AND NAMES", "AUTHENTICATION", "PLAYER", "PASSWORD",
		"THE MOVEMENT OPTION", "INVADE", "SEND CONTINGENT TO", "NO MOVE",
		"STANDING ORDERS", "IF INVADED", "LOSSES FIRST", "RECALL CONTINGENTS",
		"RECRUITMENT", "RETRIEVE GENERAL", "TRIBUTARIES", "LEAVE CAMPAIGN",
		"BATTLE RESULTS", "GENERAL KILLED", "REQUESTS", "STATUS", "MAP", "CLEAR",
		"RESUBMISSION", NULL});
	assert_null(strstr(text, "man "));
	assert_null(strstr(text, "campaign-orders(7)"));
	free(text);
}

/* The recruitment mail: the reserve by element, and what may be recruited
 * from it with its cost, as far as the allowance allows. */
static void test_recruitment_mail(void **state)
{
	struct world *w = *state;
	start(w);
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n", NOW + HOUR);
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nNO MOVE\n", NOW + 2 * HOUR);
	char **raws = NULL;
	size_t n = mails_to(w, PHILIPPE, &raws);
	char *text = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strstr(raws[i], "recruitment") && strstr(raws[i], "Subject:") && !text) {
			char *t = part_of(raws[i], "text/plain", NULL);
			if (strstr(t, "Your reserve"))
				text = t;
			else
				free(t);
		}
		assert_null(strstr(raws[i], BURGUNDY_PW));
		free(raws[i]);
	}
	free(raws);
	if (!text)
		fail_msg("no recruitment mail to Burgundy among %zu", n);
	/* 2 provinces: 20 AP, one Kn(S) of 12 AP */
	assert_in_order(text, (const char *const[]){
		"You may recruit up to 20 AP",
		"Your reserve (60 AP):",
		"5 Kn(S) at 12 AP = 60 AP",
		"What you may recruit",
		"Kn(S): 12 AP each, up to 1 (RECRUIT 1 Kn(S))",
		NULL});
	free(text);
	/* France's reserve is empty: nothing to recruit, and said so */
	n = mails_to(w, CHARLES, &raws);
	text = NULL;
	for (size_t i = 0; i < n; i++) {
		char *t = part_of(raws[i], "text/plain", NULL);
		if (!text && strstr(t, "Your reserve"))
			text = t;
		else
			free(t);
		free(raws[i]);
	}
	free(raws);
	assert_non_null(text);
	assert_non_null(strstr(text, "Your reserve is empty:"));
	assert_null(strstr(text, "(empty"));
	assert_null(strstr(text, "What you may recruit"));
	free(text);
}

/* The organiser's PREVIEW by mail reads as the turn reports do, and
 * changes nothing. */
static void test_preview_by_mail(void **state)
{
	struct world *w = *state;
	start(w);
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nIN STORM HALT\n", NOW + HOUR);
	drop(w, PHILIPPE);
	deliver(w, "organiser@example.org", "ORGANISER " ORGANISER_PW "\nPREVIEW\n",
		NOW + 2 * HOUR);
	char *text = text_to(w, "organiser@example.org", NULL);
	assert_in_order(text, (const char *const[]){
		"Preview of France's turn: what would happen if it were processed now.",
		"Nothing was changed",
		"What would happen:",
		"France sent no movement order in time: NO MOVE.",
		"The mails it would send, one to each person:",
		"  \"Your turn\" with \"The turn of France\" under it, to Burgundy\n",
		"  \"The turn of France\" to France and the organiser\n",
		NULL});
	assert_null(strstr(text, "event "));
	assert_null(strstr(text, "{\""));
	free(text);
	/* nothing happened: the players got nothing, it is still France's turn */
	assert_int_equal(drop(w, PHILIPPE), 0);
	assert_int_equal(drop(w, CHARLES), 0);
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nSTATUS\n", NOW + 3 * HOUR);
	text = text_to(w, CHARLES, NULL);
	assert_non_null(strstr(text, "Awaited from you: the movement option of the turn"));
	free(text);
}

/* STATUS while a decision waits: the defender is told what he is awaited
 * for and the attacker that nothing is wanted from him; a tributary asked
 * for is shown to both players as the request it is. */
static void test_status_awaited_for_a_decision(void **state)
{
	struct world *w = *state;
	start(w); /* France moves first */
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nNO MOVE\nTRIBUTARY OF burgundy\n",
		NOW + HOUR);
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nINVADE Paris\n", NOW + 2 * HOUR);
	drop(w, PHILIPPE);
	drop(w, CHARLES);
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nSTATUS\n", NOW + 3 * HOUR);
	char *text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"What happens next",
		/* to France herself: "your", not "France's" (issue 13) */
		"the year waits for your answer to the invasion of Paris by Burgundy",
		"Awaited from you: the answer to the invasion of Paris by Burgundy: IF INVADED "
		"Paris BATTLE, SIEGE or RETREAT TO a province.",
		"Deadline: ",
		"Waiting for an answer",
		"France asked to become the tributary of Burgundy, who has not answered",
		NULL});
	free(text);
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nSTATUS\n", NOW + 4 * HOUR);
	text = text_to(w, PHILIPPE, NULL);
	assert_in_order(text, (const char *const[]){
		"the year waits for France's answer to the invasion of Paris by you",
		"Nothing is awaited from you now",
		"Waiting for an answer",
		"France asked to become the tributary of Burgundy, who has not answered "
		"(ACCEPT TRIBUTARY france)",
		NULL});
	free(text);
}

/* An INVADE or MOVE recalls the player's contingents with other armies
 * (rules 2.3): the acknowledgement says so, naming them, only when some are
 * out. */
static void test_move_ack_names_recalled_contingents(void **state)
{
	struct world *w = *state;
	start(w); /* France's contingent is with Burgundy's army */
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nMOVE Dijon\n", NOW + HOUR);
	char *text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"Your mail, line by line",
		"2: MOVE Dijon",
		"-> 1 stage: normal move, no cost",
		"-> your contingent with Burgundy's army is recalled",
		"Your current orders",
		NULL});
	assert_null(strstr(text, "contingents with other armies"));
	free(text);
	/* Burgundy has none of its own out (France's is with it) */
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nMOVE Dijon\n", NOW + 2 * HOUR);
	text = text_to(w, PHILIPPE, NULL);
	assert_in_order(text, (const char *const[]){
		"2: MOVE Dijon",
		"-> carried out with your mail",
		"Errors: 0",
		NULL});
	assert_null(strstr(text, "recalled"));
	free(text);
}

/* A movement order sent in advance replaced by another: the reply names the
 * one no longer ordered, and says nothing when the same order comes again. */
static void test_replaced_movement_order_is_named(void **state)
{
	struct world *w = *state;
	start(w); /* Burgundy moves first: France's orders wait for its turn */
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nMOVE Dijon\n", NOW + HOUR);
	char *text = text_to(w, CHARLES, NULL);
	assert_null(strstr(text, "This replaces your earlier"));
	free(text);
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nNO MOVE\n", NOW + 2 * HOUR);
	text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"Every line of your mail was understood.",
		"This replaces your earlier movement order: MOVE Dijon is no longer ordered.",
		"Your mail, line by line",
		NULL});
	free(text);
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nNO MOVE\n", NOW + 3 * HOUR);
	text = text_to(w, CHARLES, NULL);
	assert_null(strstr(text, "This replaces your earlier"));
	free(text);
}

/* A move carried out with its own mail: the plan is past, but the recall
 * of the contingents it made is still said. */
static void test_move_carried_out_names_recalled_contingents(void **state)
{
	struct world *w = *state;
	start(w); /* France's contingent is with Burgundy's army */
	deliver(w, PHILIPPE, "PLAYER burgundy " BURGUNDY_PW "\nNO MOVE\n", NOW + HOUR);
	free(text_to(w, PHILIPPE, NULL));
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nMOVE Dijon\n", NOW + 2 * HOUR);
	char *text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"Your mail, line by line",
		"2: MOVE Dijon",
		"-> carried out with your mail",
		"-> your contingent with Burgundy's army is recalled",
		"Your current orders",
		NULL});
	assert_null(strstr(text, "1 stage: normal move"));
	free(text);
}

static void test_move_ack_without_contingents(void **state)
{
	struct world *w = *state;
	start(w); /* no contingent is out */
	deliver(w, CHARLES, "PLAYER france " FRANCE_PW "\nINVADE Calais\n", NOW + HOUR);
	char *text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"2: INVADE Calais",
		"-> carried out with your mail",
		"Errors: 0",
		NULL});
	assert_null(strstr(text, "recalled"));
	free(text);
}

/* A PLAYER line without its password: the answer says so in words and
 * shows how the line reads, and repeats no word that could be the
 * password (text_to fails on any password in any mail). */
static void test_player_line_without_password(void **state)
{
	struct world *w = *state;
	start(w);
	deliver(w, CHARLES, "PLAYER france\nNO MOVE\n", NOW + HOUR);
	char *text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"was not accepted",
		"1: PLAYER ********   <- the password is missing (only your name follows "
		"PLAYER): write PLAYER France <your password> on one line",
		"2: NO MOVE",
		NULL});
	assert_null(strstr(text, "write PLAYER <your name>"));
	free(text);
	/* the password alone: it might be one, so it is not repeated */
	deliver(w, CHARLES, "PLAYER " FRANCE_PW "\nNO MOVE\n", NOW + 2 * HOUR);
	text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"1: PLAYER ********   <- your nation or your password is missing (the word "
		"after PLAYER is not shown, in case it is the password): write PLAYER <your "
		"nation> <your password> on one line",
		NULL});
	free(text);
	deliver(w, CHARLES, "PLAYER\nNO MOVE\n", NOW + 3 * HOUR);
	text = text_to(w, CHARLES, NULL);
	assert_in_order(text, (const char *const[]){
		"1: PLAYER   <- the password is missing: write PLAYER <your nation> <your "
		"password> on one line",
		NULL});
	free(text);
	/* a mistyped password is not taken for a missing one */
	deliver(w, CHARLES, "PLAYER france WRONG-PASSWORD-1\nNO MOVE\n", NOW + 4 * HOUR);
	text = text_to(w, CHARLES, NULL);
	assert_non_null(strstr(text, "wrong password"));
	assert_null(strstr(text, "missing"));
	assert_null(strstr(text, "WRONG-PASSWORD-1"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_status, setup_played, teardown),
		cmocka_unit_test_setup_teardown(test_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recruitment_mail, setup_played, teardown),
		cmocka_unit_test_setup_teardown(test_preview_by_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_awaited_for_a_decision, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_ack_names_recalled_contingents, setup_played,
						teardown),
		cmocka_unit_test_setup_teardown(test_move_carried_out_names_recalled_contingents,
						setup_played, teardown),
		cmocka_unit_test_setup_teardown(test_move_ack_without_contingents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_movement_order_is_named, setup_played,
						teardown),
		cmocka_unit_test_setup_teardown(test_player_line_without_password, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
