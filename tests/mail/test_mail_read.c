/* Tests for mail_read: order mails as real clients write them (files under
 * tests/data/mail, kept byte for byte), and small hand-made messages for the
 * corner cases, limits and libetpan's gaps. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/files.h"
#include "mail/mail_read.h"
#include "mail/mail_scan.h"
#include "base/util.h"

static char *load_mail(const char *name, size_t *len)
{
	char *rel = xasprintf("tests/data/mail/%s", name);
	char *raw = test_source_text(rel, len);
	free(rel);
	return raw;
}

static void read_file_mail(const char *name, struct mail_info *m)
{
	size_t len;
	char *raw = load_mail(name, &len);
	assert_int_equal(mail_read(raw, len, NULL, m), 0);
	free(raw);
}

static void read_string_mail(const char *raw, const struct mail_read_limits *limits,
			     struct mail_info *m)
{
	assert_int_equal(mail_read(raw, strlen(raw), limits, m), 0);
}

static bool has_warning(const struct mail_info *m, const char *warning)
{
	for (size_t i = 0; i < m->warning_count; i++)
		if (strcmp(m->warnings[i], warning) == 0)
			return true;
	return false;
}

/* An ordinary order mail: not automatic, not a list, not a report. */
static void assert_personal(const struct mail_info *m)
{
	assert_false(m->auto_submitted);
	assert_false(m->is_bulk_or_list);
	assert_false(m->is_report);
	assert_null(m->refusal);
}

static void test_thunderbird_flowed(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("thunderbird-flowed.eml", &m);
	/* "VIA " flowed into "Artois"; " From" was space-stuffed; the
	 * signature is gone. */
	assert_string_equal(m.text, "PLAYER burgundy 7KQM-2XRT-P9WD\n"
				    "MOVE Flanders Brabant\n"
				    "INVADE Picardy VIA Artois\n"
				    "From here we strike south.\n"
				    "STATUS\n");
	assert_string_equal(m.from_addr, "charles@burgundy.example");
	assert_string_equal(m.from_name, "Charles le T\xc3\xa9m\xc3\xa9raire");
	assert_string_equal(m.message_id, "8f2c1e0a-51b7-4c2e-9d3a-5b1f0e6a7c11@burgundy.example");
	assert_string_equal(m.subject, "Orders for spring 1450");
	assert_string_equal(m.date, "Mon, 3 Mar 2025 09:12:44 +0100");
	assert_null(m.return_path);
	assert_null(m.in_reply_to);
	assert_int_equal(m.received_count, 0);
	assert_int_equal(m.warning_count, 0);
	assert_personal(&m);
	mail_info_free(&m);
}

/* Apple Mail: format=flowed with delsp=yes, quoted-printable, and accents
 * decomposed (I + U+0302): the reader keeps them as sent, name matching
 * folds them. */
static void test_applemail_flowed_nfd(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("applemail-flowed-nfd.eml", &m);
	assert_string_equal(m.text, "PLAYER burgundy 8WJS-MGCV-VGJZ-FETZ\n"
				    "INVADE I\xcc\x82le-de-France\n"
				    "IF INVADED Flanders RETREAT TO Brabant\n"
				    "RETREAT PREFER Brabant, Lie\xcc\x80ge, Cologne\n"
				    "\n"
				    "Pieter\n");
	assert_int_equal(m.warning_count, 0);
	assert_personal(&m);
	mail_info_free(&m);
}

/* iOS Mail: typographic quotes around names, "Sent from my iPhone" cut. */
static void test_ios_smart_quotes(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("ios-smart-quotes.eml", &m);
	assert_string_equal(m.text, "PLAYER burgundy 8WJS-MGCV-VGJZ-FETZ\n"
				    "INVADE \xe2\x80\x9c\xc3\x8ele-de-France\xe2\x80\x9d\n"
				    "RETREAT PREFER \xe2\x80\x9c" "Brabant\xe2\x80\x9d\n");
	assert_personal(&m);
	mail_info_free(&m);
}

/* Outlook desktop: the text/plain alternative is wrapped at 76 columns, so
 * the SEND CONTINGENT order arrives on two lines (the order parser joins
 * them); =E8 is the Windows-1252 e grave. */
static void test_outlook_desktop_wrapped(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("outlook-desktop-wrapped.eml", &m);
	assert_string_equal(m.text, "PLAYER burgundy 8WJS-MGCV-VGJZ-FETZ\n"
				    "SEND CONTINGENT TO Holy Roman Empire VIA Brabant, Li\xc3\xa8ge, Cologne WITH 4\n"
				    "Archers, 2 Knights and squires GENERAL Household captains\n"
				    "IF INVADED ANY RETREAT TO Brabant\n"
				    "\n"
				    "Best regards,\n"
				    "Pieter\n");
	assert_false(has_warning(&m, "HTML converted to text"));
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_gmail_alternative_qp(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("gmail-alternative-qp.eml", &m);
	/* text/plain chosen over HTML; "=3D" and the soft break decoded. */
	assert_string_equal(m.text, "PLAYER burgundy 7KQM-2XRT-P9WD\n"
				    "MOVE Flanders Brabant\n"
				    "# reserve: Picardy=empty, the long comment line is wrapped "
				    "by the encoder here and continues\n"
				    "STATUS\n");
	assert_string_equal(m.message_id, "CAF3xk=Yq2hN9s0-Lk@mail.gmail.com");
	assert_string_equal(m.from_addr, "philippe.burgundy@gmail.com");
	assert_false(has_warning(&m, "HTML converted to text"));
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_outlook_html_1252(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("outlook-html-1252.eml", &m);
	/* <br> and <p> end lines; &nbsp; paragraph is a blank line; =E8 is
	 * è in Windows-1252, =92 its right single quote, &#8211; an en dash;
	 * <head> and <style> are gone. */
	assert_string_equal(m.text, "PLAYER luxembourg 3HFD-9WQA-KT2M\n"
				    "MOVE Gen\xc3\xa8ve Savoie\n"
				    "\n"
				    "INVADE Picardy VIA Artois \xe2\x80\x93 it\xe2\x80\x99s time\n"
				    "STATUS\n");
	assert_true(has_warning(&m, "HTML converted to text"));
	assert_string_equal(m.from_name, "Jean de Luxembourg");
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_applemail_latin1_base64(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("applemail-latin1-base64.eml", &m);
	assert_string_equal(m.text, "PLAYER cologne 4TRB-8MZX-Q2LE\n"
				    "MOVE K\xc3\xb6ln J\xc3\xbclich\n"
				    "STATUS\n");
	assert_string_equal(m.subject, "Befehle f\xc3\xbcr K\xc3\xb6ln");
	assert_string_equal(m.from_name, "Dietrich von M\xc3\xb6rs");
	assert_int_equal(m.warning_count, 0);
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_iphone_reply(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("iphone-reply.eml", &m);
	/* Reading stops at "On ... wrote:"; the quoted original (which holds
	 * order-like lines) is not read. */
	assert_string_equal(m.text, "MOVE Flanders Brabant\nSTATUS\n");
	assert_string_equal(m.in_reply_to, "<turn-1450-spring-burgundy@campaign.example.org>");
	assert_string_equal(m.references, "<turn-1450-spring-burgundy@campaign.example.org>");
	assert_string_equal(m.subject, "Re: Spring 1450: your turn");
	assert_personal(&m);
	mail_info_free(&m);
}

/* The habits of issue "every order mail read as the player meant it": each
 * mail as its client writes it, with the text read, where reading stopped
 * and the forwarded text kept. */
static void test_forwards_replies_and_signoffs(void **state)
{
	(void)state;
	static const struct {
		const char *file, *text;
		int stop_line;
		const char *earlier; /* the first, or NULL for none */
	} cases[] = {
		{"gmail-forward-inline.eml",
		 "Voici mes ordres, envoy\xc3\xa9s depuis ma bo\xc3\xaete personnelle.\n", 3,
		 "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\nIN STORM HALT\n"},
		{"applemail-forward.eml",
		 "Sent again from my Mac: the first one went from the wrong address.\n", 3,
		 "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\n"},
		{"outlook-forward.eml", "Ordres envoy\xc3\xa9s du bureau.\n", 5,
		 "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\n\nINVADE Flanders\n"},
		{"thunderbird-forward-attached.eml", "My orders again, attached, from my old address.\n",
		 0, "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\n"},
		{"thunderbird-bottom-post.eml", "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\n",
		 13, NULL},
		{"gmail-interleaved.eml",
		 "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\n\nIN STORM HALT\n", 0, NULL},
		{"windows-mail-signoffs.eml",
		 "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\n\nIN STORM HALT\n", 0, NULL},
		{"outlook-reply-no-player.eml", "INVADE Flanders\n\nPhilippe\n", 5,
		 "Every order mail starts with a line naming your nation and your password:\n\n"
		 "    PLAYER burgundy <your password>\n"},
		{"subject-player-line.eml", "INVADE Flanders\n", 0, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct mail_info m;
		read_file_mail(cases[i].file, &m);
		assert_personal(&m);
		assert_null(m.auto_reply);
		assert_null(m.maybe_auto_reply);
		if (strcmp(m.text, cases[i].text) != 0 || m.stop_line != cases[i].stop_line)
			fail_msg("%s: text \"%s\" stop %d", cases[i].file, m.text, m.stop_line);
		if (cases[i].earlier) {
			assert_true(m.earlier_count >= 1);
			if (strcmp(m.earlier[0], cases[i].earlier) != 0)
				fail_msg("%s: earlier \"%s\"", cases[i].file, m.earlier[0]);
		} else {
			assert_int_equal(m.earlier_count, 0);
		}
		mail_info_free(&m);
	}
}

/* Auto-replies without Auto-Submitted. */
static void test_auto_replies_without_auto_submitted(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("exchange-automatic-reply.eml", &m);
	assert_false(m.auto_submitted);
	assert_null(m.auto_reply);
	assert_string_equal(m.maybe_auto_reply, "an automatic reply's Subject");
	mail_info_free(&m);
	read_file_mail("precedence-auto-reply.eml", &m);
	assert_string_equal(m.auto_reply, "Precedence: auto_reply");
	mail_info_free(&m);
	read_string_mail("From: a@example.org\nX-Autogenerated: Reply\nSubject: Re: orders\n\nAway.\n",
			 NULL, &m);
	assert_string_equal(m.auto_reply, "X-Autogenerated");
	mail_info_free(&m);
	read_string_mail("From: a@example.org\nX-Auto-Response-Suppress: All\nSubject: orders\n\n"
			 "PLAYER x y\n", NULL, &m);
	assert_null(m.auto_reply);
	assert_string_equal(m.maybe_auto_reply, "X-Auto-Response-Suppress");
	mail_info_free(&m);
	read_string_mail("From: a@example.org\nSubject: Out of Office: orders\n\nAway.\n", NULL, &m);
	assert_string_equal(m.maybe_auto_reply, "an automatic reply's Subject");
	mail_info_free(&m);
}

/* The photo makes the mail too large: refused, the headers still read. */
static void test_oversized_photo(void **state)
{
	(void)state;
	struct mail_info m;
	size_t len;
	char *raw = load_mail("iphone-photo-oversized.eml", &len);
	struct mail_read_limits limits = {.max_bytes = 20000};
	assert_int_equal(mail_read(raw, len, &limits, &m), 0);
	assert_string_equal(m.refusal, "message too large");
	assert_string_equal(m.from_addr, "philippe@example.org");
	mail_info_free(&m);
	assert_int_equal(mail_read(raw, len, NULL, &m), 0);
	assert_string_equal(m.text, "PLAYER burgundy BRG0-1XYZ-7KQM-2XRT\nINVADE Flanders\n"
				    "Here is my army on the table!\n");
	mail_info_free(&m);
	free(raw);
}

static void test_gmail_nbsp(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("gmail-nbsp.eml", &m);
	/* U+00A0 and U+202F are plain spaces; the trailing one is trimmed. */
	assert_string_equal(m.text, "PLAYER france 6PNV-3CJH-W8YD\n"
				    "MOVE  Champagne Picardy\n"
				    "INVADE Artois VIA Picardy\n");
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_signature_disclaimer(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("signature-disclaimer.eml", &m);
	/* The disclaimer after "-- " holds order words: not read. */
	assert_string_equal(m.text, "PLAYER bourbon 2XKD-7MQT-H4RN\nMOVE Bourbonnais Auvergne\n");
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_outlook_original_message(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("outlook-original-message.eml", &m);
	assert_string_equal(m.text, "PLAYER england 9QWE-5RTY-U3IO\nMOVE Calais Artois\n\n"
				    "Regards,\nJohn\n");
	/* A quoted display name keeps its comma. */
	assert_string_equal(m.from_name, "Kemp, John");
	assert_string_equal(m.from_addr, "john.kemp@canterbury.example");
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_auto_reply(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("auto-reply.eml", &m);
	assert_true(m.auto_submitted);
	assert_false(m.is_bulk_or_list);
	assert_false(m.is_report);
	assert_string_equal(m.text, "I am out of the office until Monday.\n");
	assert_string_equal(m.return_path, "bounce+ooo@bourbon.example");
	mail_info_free(&m);
}

static void test_vacation_bulk(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("vacation-bulk.eml", &m);
	assert_false(m.auto_submitted);
	assert_true(m.is_bulk_or_list);
	assert_false(m.is_report);
	assert_int_equal(m.received_count, 2);
	assert_string_equal(m.x_loop, "anne.beaujeu@example.net");
	assert_null(m.from_name);
	assert_string_equal(m.from_addr, "anne.beaujeu@example.net");
	assert_string_equal(m.text, "I am on holiday and will read your mail when I return.\n");
	mail_info_free(&m);
}

static void test_dsn_bounce(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("dsn-bounce.eml", &m);
	assert_true(m.is_report);
	assert_true(m.auto_submitted);
	assert_string_equal(m.return_path, "");
	assert_string_equal(m.from_addr, "mailer-daemon@mail.campaign.example.org");
	/* The human-readable part, never the returned message. */
	assert_non_null(m.text);
	assert_non_null(strstr(m.text, "550 5.1.1 User unknown"));
	assert_null(strstr(m.text, "MOVE"));
	mail_info_free(&m);
}

static void test_list_mail(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("list-mail.eml", &m);
	assert_true(m.is_bulk_or_list);
	assert_false(m.auto_submitted);
	assert_false(m.is_report);
	/* The list footer starts with an underscore rule. */
	assert_string_equal(m.text, "Anyone for an alliance against France?\n");
	mail_info_free(&m);
}

static void test_attachments(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("attachments.eml", &m);
	/* The PDF and the attached text file are skipped. */
	assert_string_equal(m.text, "PLAYER france 6PNV-3CJH-W8YD\nMOVE Champagne Picardy\nSTATUS\n");
	assert_int_equal(m.warning_count, 0);
	assert_personal(&m);
	mail_info_free(&m);
}

static void test_utf8_base64_accents(void **state)
{
	(void)state;
	struct mail_info m;
	read_file_mail("utf8-base64-accents.eml", &m);
	assert_string_equal(m.text, "PLAYER savoy 8JHG-2LKD-5SNA\n"
				    "MOVE Gen\xc3\xa8ve Savoie\n"
				    "INVADE K\xc3\xb6ln VIA J\xc3\xbclich\n");
	assert_string_equal(m.subject, "Ordres pour Gen\xc3\xa8ve");
	assert_string_equal(m.from_name, "Am\xc3\xa9" "d\xc3\xa9" "e de Savoie");
	assert_personal(&m);
	mail_info_free(&m);
}

/* ------------------------------------------------- hand-made corner cases */

static void test_headers_libetpan_misses(void **state)
{
	(void)state;
	struct mail_info m;
	/* A folded Message-ID, "From: admin <>", an mbox "From " line and an
	 * upper-case address. */
	read_string_mail("From admin@example.org Mon Mar  3 10:00:00 2025\n"
			 "From: admin <>\n"
			 "Reply-To: Umpire <Umpire@Campaign.Example.ORG>\n"
			 "Message-ID:\n <folded.id@example.org>\n"
			 "Subject: =?utf-8?q?Gen=C3=A8ve?= and\n Savoie\n"
			 "\n"
			 "STATUS\n",
			 NULL, &m);
	assert_string_equal(m.from_addr, "");
	assert_string_equal(m.from_name, "admin");
	assert_string_equal(m.reply_to_addr, "umpire@campaign.example.org");
	assert_string_equal(m.message_id, "folded.id@example.org");
	assert_string_equal(m.subject, "Gen\xc3\xa8ve and Savoie");
	assert_string_equal(m.text, "STATUS\n");
	mail_info_free(&m);
}

static void test_no_headers_and_empty(void **state)
{
	(void)state;
	struct mail_info m;
	read_string_mail("", NULL, &m);
	assert_null(m.from_addr);
	assert_null(m.message_id);
	assert_true(m.text || m.refusal);
	mail_info_free(&m);

	assert_int_equal(mail_read(NULL, 0, NULL, &m), 0);
	mail_info_free(&m);
	assert_int_equal(mail_read(NULL, 5, NULL, &m), -1);
	assert_int_equal(mail_read("x", 1, NULL, NULL), -1);
}

static void test_message_too_large(void **state)
{
	(void)state;
	struct mail_info m;
	struct mail_read_limits limits = {.max_bytes = 64, .max_depth = 0};
	read_string_mail("From: charles@burgundy.example\n"
			 "Subject: big\n"
			 "\n"
			 "MOVE Flanders Brabant\nMOVE Flanders Brabant\nMOVE Flanders Brabant\n",
			 &limits, &m);
	assert_null(m.text);
	assert_string_equal(m.refusal, "message too large");
	/* The sender is still known, so the refusal can be answered. */
	assert_string_equal(m.from_addr, "charles@burgundy.example");
	mail_info_free(&m);
}

/* A text part wrapped in `levels` multipart/mixed containers. */
static char *nested_mail(int levels)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "From: a@example.org\nMIME-Version: 1.0\n");
	for (int i = 0; i < levels; i++)
		strbuf_printf(&sb, "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i, i);
	strbuf_puts(&sb, "Content-Type: text/plain\n\nSTATUS\n");
	for (int i = levels - 1; i >= 0; i--)
		strbuf_printf(&sb, "--b%d--\n", i);
	return strbuf_take(&sb);
}

static void test_nesting_limit(void **state)
{
	(void)state;
	struct mail_info m;
	char *raw = nested_mail(30);
	read_string_mail(raw, NULL, &m);
	assert_null(m.text);
	assert_string_equal(m.refusal, "nested too deeply");
	mail_info_free(&m);

	/* 30 containers: the text part is at depth 31 (the message is 0). */
	struct mail_read_limits limits = {.max_bytes = 0, .max_depth = 31};
	read_string_mail(raw, &limits, &m);
	assert_string_equal(m.text, "STATUS\n");
	mail_info_free(&m);
	free(raw);
}

/* Issue 17: libetpan's parser recurses once per MIME level and per nested
 * parenthesis; these mails overflowed the stack (SIGSEGV) before the scan.
 * Each is refused unread, its sender still known for the answer. */
static char *deep_rfc822_mail(int levels, size_t *len)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "From: Pieter <pieter@example.org>\r\nSubject: deep\r\n"
			 "Message-ID: <deep@example.net>\r\nMIME-Version: 1.0\r\n");
	for (int i = 0; i < levels; i++)
		strbuf_puts(&sb, "Content-Type: message/rfc822\r\n\r\n");
	strbuf_puts(&sb, "Content-Type: text/plain\r\n\r\nSTATUS\r\n");
	*len = sb.len;
	return strbuf_take(&sb);
}

static void test_hostile_nesting_refused(void **state)
{
	(void)state;
	struct mail_info m;
	size_t len;
	char *raw = deep_rfc822_mail(28000, &len);
	assert_true(len > 800000 && len < MAIL_READ_DEFAULT_MAX_BYTES);
	assert_int_equal(mail_read(raw, len, NULL, &m), 0);
	assert_null(m.text);
	assert_string_equal(m.refusal, "nested too deeply");
	assert_string_equal(m.from_addr, "pieter@example.org");
	assert_string_equal(m.message_id, "deep@example.net");
	mail_info_free(&m);
	struct mail_scan scan;
	mail_scan(raw, len, 100, &scan);
	assert_int_equal(scan.nesting, 101); /* the scan stops there */
	free(raw);

	/* at the limit it is read; one more level is refused */
	raw = deep_rfc822_mail(MAIL_READ_DEFAULT_MAX_NESTING, &len);
	mail_scan(raw, len, MAIL_READ_DEFAULT_MAX_NESTING, &scan);
	assert_int_equal(scan.nesting, MAIL_READ_DEFAULT_MAX_NESTING);
	assert_int_equal(mail_read(raw, len, NULL, &m), 0);
	assert_string_not_equal(m.refusal ? m.refusal : "", "nested too deeply");
	mail_info_free(&m);
	free(raw);
	raw = deep_rfc822_mail(MAIL_READ_DEFAULT_MAX_NESTING + 1, &len);
	assert_int_equal(mail_read(raw, len, NULL, &m), 0);
	assert_string_equal(m.refusal, "nested too deeply");
	mail_info_free(&m);
	free(raw);

	/* multiparts with distinct boundaries, and digests whose parts are
	 * message/rfc822 without saying so */
	struct strbuf sb = {0};
	strbuf_puts(&sb, "From: pieter@example.org\nContent-Type: multipart/mixed; boundary=b0\n\n");
	for (int i = 1; i < 15000; i++)
		strbuf_printf(&sb, "--b%d\nContent-Type: multipart/mixed;\n boundary=\"b%d\"\n\n",
			      i - 1, i);
	assert_int_equal(mail_read(sb.data, sb.len, NULL, &m), 0);
	assert_string_equal(m.refusal, "nested too deeply");
	mail_info_free(&m);
	strbuf_free(&sb);
	strbuf_puts(&sb, "From: pieter@example.org\n");
	for (int i = 0; i < 15000; i++)
		strbuf_printf(&sb, "Content-Type: multipart/digest; boundary=d%d\n\n--d%d\n\n", i, i);
	assert_int_equal(mail_read(sb.data, sb.len, NULL, &m), 0);
	assert_string_equal(m.refusal, "nested too deeply");
	mail_info_free(&m);
	strbuf_free(&sb);

	/* 900,000 nested parentheses in a header: refused, the From still read */
	strbuf_puts(&sb, "From: pieter@example.org (Pieter ");
	for (int i = 0; i < 900000; i++)
		strbuf_putc(&sb, '(');
	strbuf_puts(&sb, "\r\nSubject: x\r\n\r\nSTATUS\r\n");
	assert_int_equal(mail_read(sb.data, sb.len, NULL, &m), 0);
	assert_string_equal(m.refusal, "nested too deeply");
	assert_string_equal(m.from_addr, "pieter@example.org");
	mail_info_free(&m);
	/* also when the mail is too large: its headers are read all the same */
	struct mail_read_limits small = {.max_bytes = 100000};
	assert_int_equal(mail_read(sb.data, sb.len, &small, &m), 0);
	assert_string_equal(m.refusal, "message too large");
	assert_string_equal(m.from_addr, "pieter@example.org");
	mail_info_free(&m);
	strbuf_free(&sb);

	/* siblings are not nesting: 40 attachments read fine; too many parts
	 * are refused */
	strbuf_puts(&sb, "From: pieter@example.org\nContent-Type: multipart/mixed; boundary=\"=_x\"\n\n"
			 "--=_x\nContent-Type: text/plain\n\nSTATUS\n");
	for (int i = 0; i < 40; i++)
		strbuf_puts(&sb, "--=_x\nContent-Type: message/rfc822\n\nSubject: a\n\nhello\n");
	strbuf_puts(&sb, "--=_x--\n");
	assert_int_equal(mail_read(sb.data, sb.len, NULL, &m), 0);
	assert_string_equal(m.text, "STATUS\n");
	mail_info_free(&m);
	struct mail_read_limits few = {.max_parts = 50};
	assert_int_equal(mail_read(sb.data, sb.len, &few, &m), 0);
	assert_string_equal(m.refusal, "too many MIME parts");
	assert_string_equal(m.from_addr, "pieter@example.org");
	mail_info_free(&m);
	mail_scan(sb.data, sb.len, MAIL_READ_DEFAULT_MAX_NESTING, &scan);
	assert_int_equal(scan.nesting, 2);
	assert_int_equal(scan.parts, 1 + 41 + 41 + 1); /* Content-Type lines, delimiters */
	strbuf_free(&sb);
}

static void test_truncated_multipart(void **state)
{
	(void)state;
	struct mail_info m;
	/* Cut after a delimiter: libetpan 1.9.4 alone finds no part at all. */
	read_string_mail("From: a@example.org\n"
			 "Content-Type: multipart/mixed; boundary=\"XX\"\n"
			 "\n"
			 "--XX\n"
			 "Content-Type: text/plain; charset=utf-8\n"
			 "\n"
			 "MOVE Flanders Brabant\n"
			 "--XX\n"
			 "Content-Type: application/pdf\n",
			 NULL, &m);
	assert_string_equal(m.text, "MOVE Flanders Brabant\n");
	assert_true(has_warning(&m, "multipart not closed: the message may be truncated"));
	mail_info_free(&m);

	/* A multipart without any part. */
	read_string_mail("From: a@example.org\n"
			 "Content-Type: multipart/alternative; boundary=\"XX\"\n"
			 "\n"
			 "nothing here\n",
			 NULL, &m);
	assert_null(m.text);
	assert_string_equal(m.refusal, "truncated multipart");
	mail_info_free(&m);
}

static void test_charset_fallbacks(void **state)
{
	(void)state;
	struct mail_info m;
	/* Unknown charset, Latin-1 bytes: read as Windows-1252. */
	read_string_mail("Content-Type: text/plain; charset=x-bogus\n\nGen\xe8ve\n", NULL, &m);
	assert_string_equal(m.text, "Gen\xc3\xa8ve\n");
	assert_true(has_warning(&m, "unknown charset x-bogus read as windows-1252"));
	mail_info_free(&m);

	/* Bytes of the charset name reach the warning as printable ASCII. */
	read_string_mail("Content-Type: text/plain; charset=\"x\xffy\"\n\nGen\xe8ve\n", NULL, &m);
	assert_string_equal(m.text, "Gen\xc3\xa8ve\n");
	assert_true(has_warning(&m, "unknown charset x?y read as windows-1252"));
	mail_info_free(&m);

	/* Labelled us-ascii but UTF-8: UTF-8, no complaint. */
	read_string_mail("Content-Type: text/plain; charset=us-ascii\n\nK\xc3\xb6ln\n", NULL, &m);
	assert_string_equal(m.text, "K\xc3\xb6ln\n");
	assert_int_equal(m.warning_count, 0);
	mail_info_free(&m);

	/* No charset, 8-bit non-UTF-8: Windows-1252 with a warning. */
	read_string_mail("Subject: x\n\nK\xf6ln \x93quoted\x94\n", NULL, &m);
	assert_string_equal(m.text, "K\xc3\xb6ln \xe2\x80\x9cquoted\xe2\x80\x9d\n");
	assert_true(has_warning(&m, "8-bit text without a charset read as windows-1252"));
	mail_info_free(&m);

	/* Labelled UTF-8 with a stray Latin-1 byte: U+FFFD. */
	read_string_mail("Content-Type: text/plain; charset=utf-8\n\nJ\xfclich\n", NULL, &m);
	assert_string_equal(m.text, "J\xef\xbf\xbdlich\n");
	assert_true(has_warning(&m, "invalid UTF-8 replaced"));
	mail_info_free(&m);

	/* A real legacy charset through iconv. */
	read_string_mail("Content-Type: text/plain; charset=iso-8859-2\n\n\xa3" "\xf3" "d\xbc\n",
			 NULL, &m);
	assert_string_equal(m.text, "\xc5\x81\xc3\xb3" "d\xc5\xba\n");
	mail_info_free(&m);
}

static void test_structure_refusals(void **state)
{
	(void)state;
	struct mail_info m;
	read_string_mail("Content-Type: multipart/encrypted; boundary=E; protocol=\"application/pgp-encrypted\"\n"
			 "\n--E\nContent-Type: application/pgp-encrypted\n\nVersion: 1\n"
			 "--E\nContent-Type: application/octet-stream\n\n-----BEGIN PGP MESSAGE-----\n--E--\n",
			 NULL, &m);
	assert_string_equal(m.refusal, "encrypted message");
	mail_info_free(&m);

	/* A forwarded message as the only content is not the sender's text. */
	read_string_mail("Content-Type: multipart/mixed; boundary=F\n"
			 "\n--F\nContent-Type: message/rfc822\n\n"
			 "From: other@example.org\nSubject: old\n\nMOVE Flanders Brabant\n--F--\n",
			 NULL, &m);
	assert_null(m.text);
	assert_string_equal(m.refusal, "no text part");
	mail_info_free(&m);

	/* Only a text/plain attachment: used, with a warning. */
	read_string_mail("Content-Type: multipart/mixed; boundary=G\n"
			 "\n--G\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0K\n"
			 "--G\nContent-Type: text/plain; name=orders.txt\n"
			 "Content-Disposition: attachment; filename=orders.txt\n\nSTATUS\n--G--\n",
			 NULL, &m);
	assert_string_equal(m.text, "STATUS\n");
	assert_true(has_warning(&m, "text taken from an attached file"));
	mail_info_free(&m);
}

static void test_broken_headers_repaired(void **state)
{
	(void)state;
	struct mail_info m;
	/* A field name with blanks would end libetpan's header block and
	 * push Content-Transfer-Encoding into the body. */
	read_string_mail("From: a@example.org\n"
			 "Content-Type: text/plain; charset=utf-8\n"
			 "X-Odd Name: value\n"
			 " continued\n"
			 "Content-Transfer-Encoding: base64\n"
			 "\n"
			 "U1RBVFVTCg==\n",
			 NULL, &m);
	assert_string_equal(m.text, "STATUS\n");
	mail_info_free(&m);

	/* Bare CR line ends (classic Mac OS). */
	read_string_mail("From: a@example.org\rSubject: cr\r\rMOVE Flanders Brabant\rSTATUS\r",
			 NULL, &m);
	assert_string_equal(m.subject, "cr");
	assert_string_equal(m.text, "MOVE Flanders Brabant\nSTATUS\n");
	mail_info_free(&m);
}

/* Found by fuzzing: libetpan read two bytes past a quoted-printable '='
 * that ends the message. The message sits in a buffer of its exact size so
 * that ASan and valgrind see any read past it. */
static void test_fuzz_qp_equals_at_end(void **state)
{
	(void)state;
	static const char text[] = "Content-Type: text/plain; charset=iso-8859-1\n"
				   "Content-Transfer-Encoding: quoted-printable\n"
				   "\n"
				   "STATUS\nMOVE Gen=E8ve Savoie=F";
	size_t len = sizeof(text) - 1;
	char *exact = xmalloc(len);
	memcpy(exact, text, len);
	struct mail_info m;
	assert_int_equal(mail_read(exact, len, NULL, &m), 0);
	assert_non_null(m.text);
	const char *expected = "STATUS\nMOVE Gen\xc3\xa8ve Savoie";
	assert_int_equal(strncmp(m.text, expected, strlen(expected)), 0);
	mail_info_free(&m);
	free(exact);
}

static void test_html_reply_and_flags(void **state)
{
	(void)state;
	struct mail_info m;
	read_string_mail("From: Postmaster <postmaster@example.org>\n"
			 "Auto-Submitted: no\n"
			 "Precedence: junk\n"
			 "Content-Type: text/html; charset=utf-8\n"
			 "\n"
			 "<div>STATUS</div><div class=gmail_quote><blockquote>"
			 "<div>MOVE old order</div></blockquote></div>\n",
			 NULL, &m);
	assert_string_equal(m.text, "STATUS\n");
	assert_false(m.auto_submitted);
	assert_true(m.is_bulk_or_list);
	assert_true(m.is_report);
	mail_info_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thunderbird_flowed),
		cmocka_unit_test(test_gmail_alternative_qp),
		cmocka_unit_test(test_applemail_flowed_nfd),
		cmocka_unit_test(test_ios_smart_quotes),
		cmocka_unit_test(test_outlook_desktop_wrapped),
		cmocka_unit_test(test_outlook_html_1252),
		cmocka_unit_test(test_applemail_latin1_base64),
		cmocka_unit_test(test_iphone_reply),
		cmocka_unit_test(test_gmail_nbsp),
		cmocka_unit_test(test_forwards_replies_and_signoffs),
		cmocka_unit_test(test_auto_replies_without_auto_submitted),
		cmocka_unit_test(test_oversized_photo),
		cmocka_unit_test(test_signature_disclaimer),
		cmocka_unit_test(test_outlook_original_message),
		cmocka_unit_test(test_auto_reply),
		cmocka_unit_test(test_vacation_bulk),
		cmocka_unit_test(test_dsn_bounce),
		cmocka_unit_test(test_list_mail),
		cmocka_unit_test(test_attachments),
		cmocka_unit_test(test_utf8_base64_accents),
		cmocka_unit_test(test_headers_libetpan_misses),
		cmocka_unit_test(test_no_headers_and_empty),
		cmocka_unit_test(test_message_too_large),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_hostile_nesting_refused),
		cmocka_unit_test(test_truncated_multipart),
		cmocka_unit_test(test_charset_fallbacks),
		cmocka_unit_test(test_structure_refusals),
		cmocka_unit_test(test_broken_headers_repaired),
		cmocka_unit_test(test_fuzz_qp_equals_at_end),
		cmocka_unit_test(test_html_reply_and_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
