/* Unit tests for the text rules of order mails (mail_text.h): UTF-8 checks,
 * Windows-1252, format=flowed, HTML reduction and cleaning. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mail/mail_text.h"

/* Each helper frees the result so the tests read as input -> output. */
static void assert_clean(const char *in, const char *expected)
{
	char *out = mail_text_clean(in);
	assert_string_equal(out, expected);
	free(out);
}

static void assert_html(const char *in, const char *expected)
{
	char *out = mail_text_from_html(in);
	assert_string_equal(out, expected);
	free(out);
}

static void assert_unflow(const char *in, bool delsp, const char *expected)
{
	char *out = mail_text_unflow(in, delsp);
	assert_string_equal(out, expected);
	free(out);
}

static void test_utf8_valid(void **state)
{
	(void)state;
	assert_true(mail_text_utf8_valid("Gen\xc3\xa8ve", 7));
	assert_true(mail_text_utf8_valid("\xf0\x9f\x93\xa7", 4));
	assert_false(mail_text_utf8_valid("Gen\xe8ve", 6));       /* Latin-1 */
	assert_false(mail_text_utf8_valid("\xc0\xaf", 2));        /* overlong '/' */
	assert_false(mail_text_utf8_valid("\xed\xa0\x80", 3));    /* surrogate */
	assert_false(mail_text_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
	assert_false(mail_text_utf8_valid("\xc3", 1));            /* cut short */
	assert_true(mail_text_utf8_valid("", 0));
}

static void test_utf8_sanitize(void **state)
{
	(void)state;
	bool replaced = true;
	char *s = mail_text_utf8_sanitize("K\xc3\xb6ln", 5, &replaced);
	assert_string_equal(s, "K\xc3\xb6ln");
	assert_false(replaced);
	free(s);
	/* One bad byte -> one U+FFFD; the NUL is dropped; the cut-short
	 * sequence at the end is replaced too. */
	s = mail_text_utf8_sanitize("a\xff" "b\0c\xe2\x82", 7, &replaced);
	assert_string_equal(s, "a\xef\xbf\xbd" "bc\xef\xbf\xbd\xef\xbf\xbd");
	assert_true(replaced);
	free(s);
}

static void test_windows1252(void **state)
{
	(void)state;
	/* é (E9), € (80), curly quotes (93 94), NBSP (A0). */
	char *s = mail_text_from_windows1252("Gen\xe8ve \x80 \x93x\x94\xa0", 13);
	assert_string_equal(s, "Gen\xc3\xa8ve \xe2\x82\xac \xe2\x80\x9cx\xe2\x80\x9d\xc2\xa0");
	free(s);
}

static void test_unflow(void **state)
{
	(void)state;
	/* A soft break (trailing space) joins; a hard one stays. */
	assert_unflow("MOVE Flanders \r\nBrabant\r\nSTATUS\r\n", false,
		      "MOVE Flanders Brabant\nSTATUS\n");
	/* delsp=yes removes the space that marked the soft break. */
	assert_unflow("INVADE Pic \nardy\n", true, "INVADE Picardy\n");
	/* Space-stuffing: " From" was stuffed by the sender. */
	assert_unflow(" From the front\n", false, "From the front\n");
	/* The signature separator never flows, and quoted text keeps its
	 * marker but does not join with unquoted text. */
	assert_unflow("-- \nme\n", false, "-- \nme\n");
	assert_unflow("> quoted and \n> joined\nmine\n", false, "> quoted and joined\nmine\n");
	assert_unflow("> flowed into \nunquoted\n", false, "> flowed into \nunquoted\n");
	/* No final line end. */
	assert_unflow("STATUS", false, "STATUS\n");
	assert_unflow("", false, "");
}

static void test_html_basic(void **state)
{
	(void)state;
	/* Outlook: one paragraph per line, NBSP paragraphs for blank lines. */
	assert_html("<html><head><style>p {margin:0}</style><title>x</title></head>"
		    "<body><p class=MsoNormal>MOVE Flanders Brabant<o:p></o:p></p>\r\n"
		    "<p class=MsoNormal>STATUS</p></body></html>",
		    "MOVE Flanders Brabant\nSTATUS\n");
	/* Gmail: <div>s and <br>; a <div><br></div> is a blank line. */
	assert_html("<div dir=\"ltr\">PLAYER burgundy<div><br></div><div>STATUS<br></div></div>",
		    "PLAYER burgundy\n\nSTATUS\n");
	/* White space collapses; <li> and <tr> start lines; cells are apart. */
	assert_html("<ul><li>MOVE  a\n b</li><li>STATUS</li></ul><table><tr><td>x</td><td>y</td></tr></table>",
		    "MOVE a b\nSTATUS\nx y\n");
}

static void test_html_entities(void **state)
{
	(void)state;
	assert_html("a&amp;b &lt;c&gt; &quot;d&quot; Gen&egrave;ve K&#246;ln &#x20AC; &nbsp;x",
		    "a&b <c> \"d\" Gen\xc3\xa8ve K\xc3\xb6ln \xe2\x82\xac \xc2\xa0x\n");
	/* Unknown and broken entities are kept as written; a numeric one in
	 * the C1 range means Windows-1252 (&#150; is an en dash). */
	assert_html("&bogus; &amp &#; &#150;", "&bogus; &amp &#; \xe2\x80\x93\n");
	/* Out of range code points become U+FFFD, never a crash. */
	assert_html("&#0;&#xD800;&#99999999999;", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
}

static void test_html_dropped_and_odd(void **state)
{
	(void)state;
	assert_html("<script>alert('<p>x</p>')</script>MOVE<!-- <p>hidden --> A B",
		    "MOVE A B\n");
	/* A '<' that starts no tag is text. */
	assert_html("3 < 4", "3 < 4\n");
	/* <pre> keeps spacing and line ends. */
	assert_html("<pre>MOVE  A\nSTATUS</pre>", "MOVE  A\nSTATUS\n");
	/* Blockquotes (Gmail replies) come out quoted. */
	assert_html("<div>STATUS</div><blockquote><div>old order</div></blockquote>",
		    "STATUS\n> old order\n");
	/* Unterminated constructs end the text instead of looping. */
	assert_html("MOVE<style>p{}", "MOVE\n");
	assert_html("MOVE<!-- never closed", "MOVE\n");
	assert_html("MOVE <p class=\"x", "MOVE\n");
	/* A <head> without </head> ends at <body>. */
	assert_html("<head><meta charset=utf-8><body>STATUS", "STATUS\n");
	assert_html("", "");
}

static void test_clean_spaces(void **state)
{
	(void)state;
	/* NBSP, narrow NBSP, figure space, ideographic space and a tab become
	 * spaces; zero-width space, BOM and soft hyphen vanish; CRLF and CR
	 * become LF; trailing blanks go; smart quotes stay. */
	assert_clean("\xef\xbb\xbfMOVE\xc2\xa0" "Flanders\xe2\x80\xaf" "Brabant\r\n"
		     "INVADE\tPica\xe2\x80\x8brdy\xc2\xad VIA\xe2\x80\x87" "Artois \r"
		     "\xe2\x80\x9cSTATUS\xe2\x80\x9d\xe3\x80\x80\n",
		     "MOVE Flanders Brabant\nINVADE Picardy VIA Artois\n"
		     "\xe2\x80\x9cSTATUS\xe2\x80\x9d\n");
}

static void test_clean_quotes(void **state)
{
	(void)state;
	/* '>' and '|' quote; '#' does not (comments in orders); ':' neither. */
	assert_clean("MOVE A B\n> old\n  >> older\n| piped\n# my comment\n: colon\n",
		     "MOVE A B\n# my comment\n: colon\n");
}

static void test_clean_signatures(void **state)
{
	(void)state;
	assert_clean("STATUS\n-- \nJean\nDisclaimer: confidential\n", "STATUS\n");
	assert_clean("STATUS\n--\nJean\n", "STATUS\n");
	/* "---" or "-- x" is not a signature separator. */
	assert_clean("STATUS\n---\n-- x\n", "STATUS\n---\n-- x\n");
	assert_clean("STATUS\n\nSent from my iPhone\n", "STATUS\n");
}

static void test_clean_reply_markers(void **state)
{
	(void)state;
	assert_clean("STATUS\n\nOn Mon, 3 Mar 2025 at 10:00, Umpire <u@example.org> wrote:\n> x\n",
		     "STATUS\n");
	/* Gmail wraps long attributions. */
	assert_clean("STATUS\nOn Mon, 3 Mar 2025 at 10:00, Campaign Umpire <\numpire@example.org> wrote:\nquoted without marker\n",
		     "STATUS\n");
	assert_clean("STATUS\nLe lun. 3 mars 2025 \xc3\xa0 10:00, Arbitre <a@b.fr> a \xc3\xa9" "crit :\nold\n",
		     "STATUS\n");
	assert_clean("STATUS\nAm Mo., 3. M\xc3\xa4rz 2025 um 10:00 Uhr schrieb Schiri <s@b.de>:\nold\n",
		     "STATUS\n");
	assert_clean("STATUS\n-----Original Message-----\nFrom: x\n", "STATUS\n");
	assert_clean("STATUS\n----- Urspr\xc3\xbcngliche Nachricht -----\nold\n", "STATUS\n");
	assert_clean("STATUS\n________________________________\nFrom: Umpire\nSent: Monday\n",
		     "STATUS\n");
	assert_clean("STATUS\n\nFrom: Umpire <u@example.org>\nSent: Monday, 3 March 2025 10:00\nTo: me\n",
		     "STATUS\n");
	/* "On" starting an ordinary line, or a lone "From:" line, stays. */
	assert_clean("On reflection:\nMOVE A B\n", "On reflection:\nMOVE A B\n");
	assert_clean("From: me\nMOVE A B\n", "From: me\nMOVE A B\n");
}

/* Bottom-posted and interleaved replies: the attribution and the quotes are
 * skipped, every line the player wrote is read. */
static void test_clean_replies_read_wherever_written(void **state)
{
	(void)state;
	assert_clean("On Mon, 3 Mar 2025 at 10:00, Umpire <u@example.org> wrote:\n"
		     "> Your turn.\n> PLAYER burgundy <password>\n\nSTATUS\nMOVE A B\n",
		     "STATUS\nMOVE A B\n");
	assert_clean("Le lun. 3 mars 2025 \xc3\xa0 10:00, Arbitre <a@b.fr> a \xc3\xa9" "crit :\n"
		     "> Where to?\nMOVE A B\n> In a storm?\nIN STORM HALT\n> -- \n> Umpire\n",
		     "MOVE A B\nIN STORM HALT\n");
	/* a wrapped attribution followed by quotes */
	assert_clean("STATUS\nOn Mon, 3 Mar 2025 at 10:00, Campaign Umpire <\numpire@example.org> wrote:\n"
		     "\n> x\nMAP\n",
		     "STATUS\n\nMAP\n");
}

/* Sign-offs in the players' languages are skipped, and reading goes on. */
static void test_clean_signoffs_skipped(void **state)
{
	(void)state;
	static const char *const signoffs[] = {
		"Sent from my Galaxy", "Sent from Mail for Windows", "Get Outlook for iOS",
		"Get Outlook for Android<https://aka.ms/ghei36>", "Sent from Yahoo Mail on Android",
		"Envoy\xc3\xa9 de mon iPhone", "Von meinem iPhone gesendet",
		"Gesendet von Mail f\xc3\xbcr Windows", "Enviado desde mi iPhone",
		"Inviato da iPhone", "Verzonden vanaf mijn iPhone", "Outlook voor Android downloaden",
		"T\xc3\xa9l\xc3\xa9\x63harger Outlook pour Android", "Obtener Outlook para iOS",
	};
	for (size_t i = 0; i < sizeof signoffs / sizeof signoffs[0]; i++) {
		char in[200];
		snprintf(in, sizeof in, "STATUS\n\n%s\n\n> quoted\nMAP\n", signoffs[i]);
		assert_clean(in, "STATUS\n\nMAP\n");
	}
}

static void assert_reading(const char *in, const char *text, int stop_line, const char *why_part,
			   size_t earlier, const char *first_earlier)
{
	struct mail_text_reading r;
	mail_text_read(in, &r);
	assert_string_equal(r.text, text);
	assert_int_equal(r.stop_line, stop_line);
	if (why_part) {
		assert_non_null(r.stop_why);
		assert_non_null(strstr(r.stop_why, why_part));
	} else {
		assert_null(r.stop_why);
	}
	assert_int_equal(r.earlier_count, earlier);
	if (first_earlier)
		assert_string_equal(r.earlier[0], first_earlier);
	mail_text_reading_free(&r);
}

/* Where reading stops, why, and the forwarded or earlier message below. */
static void test_read_stops_and_forwards(void **state)
{
	(void)state;
	assert_reading("STATUS\n", "STATUS\n", 0, NULL, 0, NULL);
	assert_reading("STATUS\n-- \nPLAYER x y\n", "STATUS\n", 2, "signature", 0, NULL);
	/* Gmail */
	assert_reading("See below\n\n---------- Forwarded message ---------\nFrom: A <a@b.c>\n"
		       "Date: Mon, 3 Mar 2025 at 10:00\nSubject: orders\nTo: <c@d.e>\n\n\n"
		       "PLAYER x y\nMOVE A B\n> old\n--\nA\n",
		       "See below\n", 3, "forwarded", 1, "PLAYER x y\nMOVE A B\n");
	/* Apple Mail, German */
	assert_reading("Anfang der weitergeleiteten Nachricht:\n\nVon: A <a@b.c>\nBetreff: orders\n"
		       "Datum: 3. M\xc3\xa4rz 2025 um 10:00:00 MEZ\nAn: c@d.e\n\nPLAYER x y\n",
		       "", 1, "forwarded", 1, "PLAYER x y\n");
	/* Outlook's header block (a forward or an earlier mail), inside a forward */
	assert_reading("FYI\n\nFrom: A <a@b.c>\nSent: Monday, March 3, 2025 10:00 AM\nTo: c@d.e\n"
		       "Subject: orders\n\nMOVE A B\n\n-----Original Message-----\nFrom: x\n\nPLAYER x y\n",
		       "FYI\n", 3, "header lines", 2, "MOVE A B\n");
	/* an attribution with no quotes below it: history, read only for a PLAYER line */
	assert_reading("MOVE A B\nOn Mon, 3 Mar 2025 at 10:00, A <a@b.c> wrote:\nPLAYER x y\n",
		       "MOVE A B\n", 2, "wrote", 1, "PLAYER x y\n");
}

static void test_clean_blank_lines(void **state)
{
	(void)state;
	/* Leading and trailing blank lines go, inner ones stay. */
	assert_clean("\n \nMOVE A B\n\n\nSTATUS\n \n\n", "MOVE A B\n\n\nSTATUS\n");
	assert_clean("", "");
	assert_clean("> only a quote\n", "");
	/* No final line end in, one out. */
	assert_clean("STATUS", "STATUS\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_windows1252),
		cmocka_unit_test(test_unflow),
		cmocka_unit_test(test_html_basic),
		cmocka_unit_test(test_html_entities),
		cmocka_unit_test(test_html_dropped_and_odd),
		cmocka_unit_test(test_clean_spaces),
		cmocka_unit_test(test_clean_quotes),
		cmocka_unit_test(test_clean_signatures),
		cmocka_unit_test(test_clean_reply_markers),
		cmocka_unit_test(test_clean_blank_lines),
		cmocka_unit_test(test_clean_replies_read_wherever_written),
		cmocka_unit_test(test_clean_signoffs_skipped),
		cmocka_unit_test(test_read_stops_and_forwards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
