/* Unit tests for mail_compose: each message is parsed back with libetpan's
 * MIME parser and its headers and decoded parts compared with the input. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libetpan/libetpan.h>

#include "mail/mail_compose.h"
#include "mail/mail_text.h"
#include "base/util.h"

/* 2024-03-01 12:34:56 UTC, a Friday. */
#define TEST_DATE INT64_C(1709296496)

struct parsed {
	char *raw;
	size_t len;
	struct mailmime *mime;
	struct mailimf_single_fields sf;
};

static void parse_message(struct parsed *p, char *raw, size_t len)
{
	p->raw = raw;
	p->len = len;
	size_t idx = 0;
	assert_int_equal(mailmime_parse(raw, len, &idx, &p->mime), MAILIMF_NO_ERROR);
	assert_int_equal(p->mime->mm_type, MAILMIME_MESSAGE);
	assert_non_null(p->mime->mm_data.mm_message.mm_fields);
	mailimf_single_fields_init(&p->sf, p->mime->mm_data.mm_message.mm_fields);
}

static void parsed_free(struct parsed *p)
{
	mailmime_free(p->mime);
	free(p->raw);
}

/* Every line ends in CRLF, none is longer than `limit` octets. */
static void assert_lines(const char *s, size_t len, size_t limit)
{
	size_t col = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			assert_true(i > 0 && s[i - 1] == '\r');
			assert_true(col - 1 <= limit);
			col = 0;
		} else {
			assert_true(s[i] != '\r' || (i + 1 < len && s[i + 1] == '\n'));
			col++;
		}
	}
	assert_int_equal(col, 0);
}

static char *decode_words(const char *raw)
{
	size_t idx = 0;
	char *out = NULL;
	assert_int_equal(mailmime_encoded_phrase_parse("utf-8", raw, strlen(raw), &idx, "utf-8",
						       &out),
			 MAILIMF_NO_ERROR);
	return out;
}

static const char *optional_field(const struct parsed *p, const char *name)
{
	clist *list = p->mime->mm_data.mm_message.mm_fields->fld_list;
	for (clistiter *it = clist_begin(list); it; it = clist_next(it)) {
		struct mailimf_field *f = clist_content(it);
		if (f->fld_type == MAILIMF_FIELD_OPTIONAL_FIELD &&
		    strcasecmp(f->fld_data.fld_optional_field->fld_name, name) == 0)
			return f->fld_data.fld_optional_field->fld_value;
	}
	fail_msg("no %s header", name);
	return NULL;
}

/* Decoded content of a single part; caller frees. */
static char *decode_part(const struct mailmime *part, size_t *len)
{
	assert_int_equal(part->mm_type, MAILMIME_SINGLE);
	const struct mailmime_data *d = part->mm_data.mm_single;
	size_t idx = 0;
	char *res = NULL;
	size_t rlen = 0;
	assert_int_equal(mailmime_part_parse(d->dt_data.dt_text.dt_data, d->dt_data.dt_text.dt_length,
					     &idx, d->dt_encoding, &res, &rlen),
			 MAILIMF_NO_ERROR);
	char *copy = xstrndup(res, rlen);
	mmap_string_unref(res);
	*len = rlen;
	return copy;
}

static void assert_content_type(const struct mailmime *part, const char *type)
{
	const struct mailmime_content *ct = part->mm_content_type;
	assert_non_null(ct);
	char *got;
	const char *major = ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE ?
		(ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_TEXT ? "text" :
		 ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_IMAGE ? "image" :
		 ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_APPLICATION ?
		 "application" : "other") :
		(ct->ct_type->tp_data.tp_composite_type->ct_type == MAILMIME_COMPOSITE_TYPE_MULTIPART ?
		 "multipart" : "message");
	got = xasprintf("%s/%s", major, ct->ct_subtype);
	assert_string_equal(got, type);
	free(got);
}

static struct mail_compose basic_message(const struct mail_address *to)
{
	struct mail_compose m = {
		.from = {"Campaign Umpire", "campaign@example.org"},
		.to = to,
		.n_to = 1,
		.subject = "Orders received for 1452",
		.text_body = "Your orders:\nmove army to Flanders\n",
		.message_id_token = "ack.42.7",
		.domain = "example.org",
		.in_reply_to = "abc123@player.example",
		.references = "<root@player.example> <abc123@player.example>",
		.auto_submitted = MAIL_AUTO_REPLIED,
		.x_loop = "campaign@example.org",
		.date = TEST_DATE,
	};
	return m;
}

static void test_plain_headers(void **state)
{
	(void)state;
	struct mail_address to = {"Player One", "player1@example.test"};
	struct mail_compose m = basic_message(&to);
	size_t len;
	char *err = NULL;
	char *raw = mail_compose(&m, &len, &err);
	assert_non_null(raw);
	assert_null(err);
	assert_int_equal(len, strlen(raw));
	assert_lines(raw, len, 78);

	struct parsed p;
	parse_message(&p, raw, len);
	assert_string_equal(p.sf.fld_subject->sbj_value, "Orders received for 1452");
	assert_string_equal(p.sf.fld_message_id->mid_value, "ack.42.7@example.org");
	assert_string_equal(clist_content(clist_begin(p.sf.fld_in_reply_to->mid_list)),
			    "abc123@player.example");
	clist *refs = p.sf.fld_references->mid_list;
	assert_int_equal(clist_count(refs), 2);
	assert_string_equal(clist_content(clist_begin(refs)), "root@player.example");
	assert_string_equal(clist_content(clist_end(refs)), "abc123@player.example");

	struct mailimf_mailbox *from = clist_content(clist_begin(p.sf.fld_from->frm_mb_list->mb_list));
	assert_string_equal(from->mb_addr_spec, "campaign@example.org");
	assert_string_equal(from->mb_display_name, "Campaign Umpire");
	struct mailimf_address *ta = clist_content(clist_begin(p.sf.fld_to->to_addr_list->ad_list));
	assert_int_equal(ta->ad_type, MAILIMF_ADDRESS_MAILBOX);
	assert_string_equal(ta->ad_data.ad_mailbox->mb_addr_spec, "player1@example.test");

	struct mailimf_date_time *d = p.sf.fld_orig_date->dt_date_time;
	assert_int_equal(d->dt_year, 2024);
	assert_int_equal(d->dt_month, 3);
	assert_int_equal(d->dt_day, 1);
	assert_int_equal(d->dt_hour, 12);
	assert_int_equal(d->dt_min, 34);
	assert_int_equal(d->dt_sec, 56);
	assert_int_equal(d->dt_zone, 0);
	assert_non_null(strstr(raw, "Date: Fri, 01 Mar 2024 12:34:56 +0000\r\n"));

	assert_string_equal(optional_field(&p, "Auto-Submitted"), "auto-replied");
	assert_string_equal(optional_field(&p, "X-Loop"), "campaign@example.org");
	assert_non_null(strstr(raw, "\r\nMIME-Version: 1.0\r\n"));

	struct mailmime *body = p.mime->mm_data.mm_message.mm_msg_mime;
	assert_content_type(body, "text/plain");
	assert_string_equal(mailmime_content_param_get(body->mm_content_type, "charset"), "UTF-8");
	size_t dlen;
	char *text = decode_part(body, &dlen);
	assert_string_equal(text, "Your orders:\r\nmove army to Flanders\r\n");
	free(text);
	parsed_free(&p);
}

static void test_utf8_subject_and_names(void **state)
{
	(void)state;
	const char *subject = "Ordres reçus — année 1452: la Bourgogne avance sur Genève, "
			      "Köln résiste, ✓ tout est en règle, à bientôt ";
	struct mail_address to[2] = {
		{"Jean \"le Bon\", duc", "player2@example.test"},
		{"Zoë Ærøskøbing", "player3@example.test"},
	};
	struct mail_compose m = basic_message(to);
	m.n_to = 2;
	m.subject = subject;
	m.from.name = "L'Arbitre de la Campagne";
	size_t len;
	char *raw = mail_compose(&m, &len, NULL);
	assert_non_null(raw);
	assert_lines(raw, len, 78);
	/* Header lines with encoded words stay within RFC 2047's 76. */
	const char *subj = strstr(raw, "Subject: ");
	const char *end = strstr(subj, "\r\nMessage-ID");
	assert_lines(subj, (size_t)(end - subj) + 2, 76);
	assert_null(memchr(raw, 0xc3, len)); /* no raw 8-bit byte anywhere in the headers */

	struct parsed p;
	parse_message(&p, raw, len);
	char *dec = decode_words(p.sf.fld_subject->sbj_value);
	assert_string_equal(dec, subject);
	free(dec);

	clistiter *it = clist_begin(p.sf.fld_to->to_addr_list->ad_list);
	struct mailimf_address *a = clist_content(it);
	assert_string_equal(a->ad_data.ad_mailbox->mb_display_name, "Jean \"le Bon\", duc");
	a = clist_content(clist_next(it));
	dec = decode_words(a->ad_data.ad_mailbox->mb_display_name);
	assert_string_equal(dec, "Zoë Ærøskøbing");
	assert_string_equal(a->ad_data.ad_mailbox->mb_addr_spec, "player3@example.test");
	free(dec);
	struct mailimf_mailbox *from = clist_content(clist_begin(p.sf.fld_from->frm_mb_list->mb_list));
	assert_string_equal(from->mb_display_name, "L'Arbitre de la Campagne");
	parsed_free(&p);
}

static void test_encode_header_text(void **state)
{
	(void)state;
	/* ASCII comes back as it is. */
	char *s = mail_compose_encode_header_text("plain words", 9);
	assert_string_equal(s, "plain words");
	free(s);
	/* "é" is C3 A9, base64 "w6k=". */
	s = mail_compose_encode_header_text("é", 9);
	assert_string_equal(s, "=?UTF-8?B?w6k=?=");
	free(s);
	/* 30 two-byte characters: 60 bytes, more than the 48 that fit in the
	 * first word after "Subject: ", and no word splits a character. */
	struct strbuf in = {0};
	for (int i = 0; i < 30; i++)
		strbuf_puts(&in, "é");
	s = mail_compose_encode_header_text(in.data, 9);
	assert_non_null(strstr(s, "?=\r\n =?UTF-8?B?"));
	char *dec = decode_words(s);
	assert_string_equal(dec, in.data);
	free(dec);
	free(s);
	strbuf_free(&in);
	/* A long ASCII subject is folded at spaces before column 78. */
	s = mail_compose_encode_header_text(
		"one two three four five six seven eight nine ten eleven twelve thirteen "
		"fourteen fifteen", 9);
	/* "Subject: " and the words up to "twelve" take 71 columns. */
	assert_string_equal(s, "one two three four five six seven eight nine ten eleven "
			       "twelve\r\n thirteen fourteen fifteen");
	free(s);
	/* Our subjects: the plain words before the first one that needs
	 * encoding stay readable (a filter on the raw header finds the tag),
	 * the rest is encoded, and it decodes back whole. */
	const char *subject = "[Italia94] 1495 \u00b7 Battle at Parma";
	s = mail_compose_encode_header_text(subject, 9);
	assert_true(strncmp(s, "[Italia94] 1495 =?UTF-8?B?", 26) == 0);
	dec = decode_words(s);
	assert_string_equal(dec, subject);
	free(dec);
	free(s);
}

static void test_quoted_printable_body(void **state)
{
	(void)state;
	struct strbuf body = {0};
	strbuf_puts(&body, "From the field: the army = 480 AP, façade\n");
	strbuf_puts(&body, "trailing spaces   \n");
	strbuf_puts(&body, "tab at end\t\r\n");
	strbuf_puts(&body, ".\n");
	for (int i = 0; i < 300; i++)
		strbuf_putc(&body, (char)('a' + i % 26));
	strbuf_puts(&body, "\n");
	for (int i = 0; i < 100; i++)
		strbuf_puts(&body, "ü");
	strbuf_puts(&body, "\nno newline at the end");
	/* The same text as the HTML part (quoted-printable as it is) and as
	 * the text part (format=flowed first). */
	struct mail_address to = {NULL, "player1@example.test"};
	struct mail_compose m = basic_message(&to);
	m.text_body = body.data;
	m.html_body = body.data;
	size_t len;
	char *raw = mail_compose(&m, &len, NULL);
	assert_non_null(raw);
	assert_lines(raw, len, 78);
	const char *bodystart = strstr(raw, "\r\n\r\n") + 4;
	assert_lines(bodystart, len - (size_t)(bodystart - raw), 76);
	const char *html = strstr(raw, "Content-Type: text/html");
	assert_non_null(html);
	assert_non_null(strstr(html, "=46rom the field"));
	assert_non_null(strstr(html, "spaces  =20\r\n"));
	assert_non_null(strstr(html, "end=09\r\n"));
	assert_non_null(strstr(html, "=3D 480"));
	assert_non_null(strstr(raw, "Content-Type: text/plain; charset=UTF-8; format=flowed\r\n"));
	assert_non_null(strstr(raw, "To: <player1@example.test>\r\n"));

	struct parsed p;
	parse_message(&p, raw, len);
	clist *alts = p.mime->mm_data.mm_message.mm_msg_mime->mm_data.mm_multipart.mm_mp_list;
	size_t dlen;
	char *text = decode_part(clist_nth_data(alts, 1), &dlen);
	/* The HTML part: the input with CRLF line ends and a final CRLF. */
	struct strbuf want = {0};
	for (const char *c = body.data; *c; c++) {
		if (*c == '\r')
			continue;
		if (*c == '\n')
			strbuf_putc(&want, '\r');
		strbuf_putc(&want, *c);
	}
	strbuf_puts(&want, "\r\n");
	assert_int_equal(dlen, want.len);
	assert_memory_equal(text, want.data, dlen);
	free(text);
	strbuf_free(&want);
	/* The text part: no line over 72 characters but a word longer than
	 * that, "From " space-stuffed, trailing blanks gone; unflowed it gives
	 * back the input without them. */
	text = decode_part(clist_nth_data(alts, 0), &dlen);
	assert_int_equal(strncmp(text, " From the field", 15), 0);
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\r\n");
		size_t w = 0;
		for (size_t i = 0; i < n; i++)
			w += ((unsigned char)line[i] & 0xC0) != 0x80;
		assert_true(w <= 73 || memchr(line, ' ', n) == NULL);
		line += n;
		line += strspn(line, "\r\n");
	}
	char *unflowed = mail_text_unflow(text, false);
	strbuf_puts(&want, "");
	for (const char *c = body.data; *c; c++) {
		if (*c == '\r')
			continue;
		strbuf_putc(&want, *c);
	}
	strbuf_puts(&want, "\n");
	char *expected = strbuf_take(&want);
	/* "trailing spaces   " and "tab at end\t" lose their blanks */
	char *at = strstr(expected, "spaces   \n");
	memmove(at + 6, at + 9, strlen(at + 9) + 1);
	at = strstr(expected, "end\t\n");
	memmove(at + 3, at + 4, strlen(at + 4) + 1);
	assert_string_equal(unflowed, expected);
	free(expected);
	free(unflowed);
	free(text);
	strbuf_free(&body);
	parsed_free(&p);
}

static void test_html_alternative_and_attachments(void **state)
{
	(void)state;
	const char *svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">"
			  "<circle cx=\"5\" cy=\"5\" r=\"4\"/></svg>\n";
	unsigned char binary[256];
	for (int i = 0; i < 256; i++)
		binary[i] = (unsigned char)(255 - i);
	struct mail_attachment att[2] = {
		{"map-1452.svg", "image/svg+xml", (const unsigned char *)svg, strlen(svg)},
		{"dice.bin", NULL, binary, sizeof(binary)},
	};
	struct mail_address to = {"Player", "player1@example.test"};
	struct mail_compose m = basic_message(&to);
	m.html_body = "<p>Your orders: <b>move</b> to Flanders &amp; Artois</p>\n";
	m.attachments = att;
	m.n_attachments = 2;
	m.auto_submitted = MAIL_AUTO_GENERATED;
	size_t len;
	char *raw = mail_compose(&m, &len, NULL);
	assert_non_null(raw);
	assert_lines(raw, len, 78);

	struct parsed p;
	parse_message(&p, raw, len);
	assert_string_equal(optional_field(&p, "Auto-Submitted"), "auto-generated");
	struct mailmime *mixed = p.mime->mm_data.mm_message.mm_msg_mime;
	assert_content_type(mixed, "multipart/mixed");
	clist *parts = mixed->mm_data.mm_multipart.mm_mp_list;
	assert_int_equal(clist_count(parts), 3);

	clistiter *it = clist_begin(parts);
	struct mailmime *alt = clist_content(it);
	assert_content_type(alt, "multipart/alternative");
	clist *alts = alt->mm_data.mm_multipart.mm_mp_list;
	assert_int_equal(clist_count(alts), 2);
	struct mailmime *text = clist_content(clist_begin(alts));
	struct mailmime *html = clist_content(clist_end(alts));
	assert_content_type(text, "text/plain");
	assert_content_type(html, "text/html");
	size_t dlen;
	char *dec = decode_part(html, &dlen);
	assert_string_equal(dec, "<p>Your orders: <b>move</b> to Flanders &amp; Artois</p>\r\n");
	free(dec);
	dec = decode_part(text, &dlen);
	assert_string_equal(dec, "Your orders:\r\nmove army to Flanders\r\n");
	free(dec);

	it = clist_next(it);
	struct mailmime *map = clist_content(it);
	assert_content_type(map, "image/svg+xml");
	struct mailmime_single_fields sf;
	mailmime_single_fields_init(&sf, map->mm_mime_fields, map->mm_content_type);
	assert_string_equal(sf.fld_disposition_filename, "map-1452.svg");
	assert_int_equal(sf.fld_encoding->enc_type, MAILMIME_MECHANISM_BASE64);
	dec = decode_part(map, &dlen);
	assert_int_equal(dlen, strlen(svg));
	assert_memory_equal(dec, svg, dlen);
	free(dec);

	struct mailmime *bin = clist_content(clist_next(it));
	assert_content_type(bin, "application/octet-stream");
	dec = decode_part(bin, &dlen);
	assert_int_equal(dlen, sizeof(binary));
	assert_memory_equal(dec, binary, dlen);
	free(dec);
	parsed_free(&p);
}

static void test_deterministic_and_message_id(void **state)
{
	(void)state;
	struct mail_address to = {"Player", "player1@example.test"};
	struct mail_compose m = basic_message(&to);
	size_t l1, l2;
	char *a = mail_compose(&m, &l1, NULL);
	char *b = mail_compose(&m, &l2, NULL);
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	free(a);
	free(b);
	char *id = mail_compose_message_id("ack.42.7", "example.org");
	assert_string_equal(id, "<ack.42.7@example.org>");
	free(id);
	assert_null(mail_compose_message_id("bad token", "example.org"));
	assert_null(mail_compose_message_id("ok", "bad domain"));
}

static void test_rejects_bad_input(void **state)
{
	(void)state;
	struct mail_address to = {"Player", "player1@example.test"};
	struct mail_address bad_to = {"Player", "player1 example.test"};
	struct mail_compose m;
	char *err = NULL;

	m = basic_message(&to);
	m.from.address = "not-an-address";
	assert_null(mail_compose(&m, NULL, &err));
	assert_non_null(strstr(err, "From"));
	free(err);
	err = NULL;

	m = basic_message(&bad_to);
	assert_null(mail_compose(&m, NULL, &err));
	assert_non_null(strstr(err, "To"));
	free(err);
	err = NULL;

	m = basic_message(&to);
	m.subject = "injected\r\nBcc: victim@example.com";
	assert_null(mail_compose(&m, NULL, &err));
	assert_non_null(strstr(err, "Subject"));
	free(err);
	err = NULL;

	m = basic_message(&to);
	m.message_id_token = "has space";
	assert_null(mail_compose(&m, NULL, &err));
	assert_non_null(strstr(err, "token"));
	free(err);
	err = NULL;

	m = basic_message(&to);
	m.in_reply_to = "<a b@c>";
	assert_null(mail_compose(&m, NULL, &err));
	assert_non_null(strstr(err, "In-Reply-To"));
	free(err);
	err = NULL;

	m = basic_message(&to);
	struct mail_attachment att = {"x.svg", "image svg", (const unsigned char *)"x", 1};
	m.attachments = &att;
	m.n_attachments = 1;
	assert_null(mail_compose(&m, NULL, &err));
	assert_non_null(strstr(err, "content type"));
	free(err);
}

/* Issue 17: ids as clients mangle them are dropped from a reply, never
 * fatal; References stay short whatever the parent carried. */
static void test_reply_ids_from_hostile_headers(void **state)
{
	(void)state;
	char *id = mail_compose_reply_id("a<b@x");
	assert_null(id);
	assert_null(mail_compose_reply_id("caf\xc3\xa9@x.example"));
	assert_null(mail_compose_reply_id("no-at-sign"));
	assert_null(mail_compose_reply_id(NULL));
	id = mail_compose_reply_id("<ok.1@example.net>");
	assert_string_equal(id, "<ok.1@example.net>");
	free(id);
	char *long_id = xmalloc(MAIL_COMPOSE_MAX_ID_LEN + 10);
	memset(long_id, 'a', MAIL_COMPOSE_MAX_ID_LEN + 8);
	memcpy(long_id + 10, "@x", 2);
	long_id[MAIL_COMPOSE_MAX_ID_LEN + 8] = '\0';
	assert_null(mail_compose_reply_id(long_id));
	free(long_id);

	char *refs = mail_compose_reply_references(
		"<a<b@x> <c@x>,<d@x> <caf\xc3\xa9@x> \"junk\" <e f@x> <g@x", "<p@x>");
	assert_string_equal(refs, "<c@x> <d@x> <p@x>");
	free(refs);
	assert_null(mail_compose_reply_references("<bad>", NULL));
	refs = mail_compose_reply_references(NULL, "<p@x>");
	assert_string_equal(refs, "<p@x>");
	free(refs);

	struct strbuf sb = {0};
	for (int i = 0; i < 1000; i++)
		strbuf_printf(&sb, "<r%d@x>\r\n ", i);
	refs = mail_compose_reply_references(sb.data, "<p@x>");
	assert_string_equal(refs, "<r0@x> <r992@x> <r993@x> <r994@x> <r995@x> <r996@x> "
				  "<r997@x> <r998@x> <r999@x> <p@x>");
	/* and the reply built from them composes */
	struct mail_address to = {"Pieter", "pieter@example.org"};
	struct mail_compose m = {
		.from = {"Campaign", "campaign@example.org"}, .to = &to, .n_to = 1,
		.subject = "Re: x", .text_body = "hello\n", .message_id_token = "t1",
		.domain = "example.org", .in_reply_to = "<p@x>", .references = refs,
	};
	char *err = NULL;
	char *raw = mail_compose(&m, NULL, &err);
	assert_non_null(raw);
	assert_non_null(strstr(raw, "In-Reply-To: <p@x>\r\n"));
	free(raw);
	free(refs);
	strbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_headers),
		cmocka_unit_test(test_utf8_subject_and_names),
		cmocka_unit_test(test_encode_header_text),
		cmocka_unit_test(test_quoted_printable_body),
		cmocka_unit_test(test_html_alternative_and_attachments),
		cmocka_unit_test(test_deterministic_and_message_id),
		cmocka_unit_test(test_rejects_bad_input),
		cmocka_unit_test(test_reply_ids_from_hostile_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
