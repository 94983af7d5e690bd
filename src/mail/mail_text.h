/* Text of an order mail once it is out of its MIME wrapping: UTF-8 checks,
 * Windows-1252 decoding, HTML reduction, format=flowed and the cleaning that
 * leaves only the lines the player wrote. Pure: no I/O, no libetpan, so the
 * order parser and these rules are tested alone.
 *
 * Every function that returns a string returns a new NUL-terminated UTF-8
 * string the caller frees; none returns NULL (allocation failure aborts). */
#ifndef CAMPAIGN_MAIL_TEXT_H
#define CAMPAIGN_MAIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* True if the len bytes at s are well-formed UTF-8 (no overlongs, no
 * surrogates, nothing above U+10FFFF). NUL bytes count as valid. */
bool mail_text_utf8_valid(const char *s, size_t len);

/* Copy of len bytes with every ill-formed UTF-8 sequence replaced by U+FFFD
 * and NUL bytes dropped. *replaced (if not NULL) is set when anything was
 * replaced. */
char *mail_text_utf8_sanitize(const char *s, size_t len, bool *replaced);

/* Decode len bytes of Windows-1252 to UTF-8. ISO-8859-1 text is read the
 * same way, as every mail client does: its 0x80-0x9F controls never occur in
 * real Latin-1 text, while Windows mislabels cp1252 as Latin-1 every day. */
char *mail_text_from_windows1252(const char *s, size_t len);

/* Undo RFC 3676 format=flowed: a line ending in a space is joined with the
 * next line of the same quote depth; one leading space (space-stuffing) is
 * removed; with delsp the trailing space of a flowed line is dropped too.
 * The signature separator "-- " never flows. Quote markers ('>') are kept, as
 * "> " plus the text, so that cleaning can drop them. Line ends may be LF,
 * CRLF or CR; the result uses LF. */
char *mail_text_unflow(const char *utf8, bool delsp);

/* Reduce HTML to plain text: tags are removed; <br> ends a line; block
 * elements (p, div, li, tr, h1-h6, table, ul, ol, pre, hr...) start a new
 * line; <head>, <style>, <script>, <title> and comments are dropped; runs of
 * white space collapse to one space (kept inside <pre>); named entities (the
 * common ones) and numeric ones are decoded, unknown ones are kept as
 * written. Text inside <blockquote> comes out prefixed with "> " so that
 * mail_text_clean removes it like any quoted reply. */
char *mail_text_from_html(const char *utf8);

/* Clean the text of an order mail (valid UTF-8 in):
 * - CRLF and CR become LF; U+2028/U+2029 become LF;
 * - tabs and Unicode spaces (U+00A0, U+2007, U+202F, U+2000-U+200A, U+205F,
 *   U+3000, U+1680) become a plain space; zero-width characters (U+200B-D,
 *   U+2060, U+FEFF), the soft hyphen and control characters are removed;
 *   "smart" quotes and other characters are left alone;
 * - trailing spaces of each line are removed;
 * - quoted lines are removed: lines starting with '>' or '|' after optional
 *   blanks. '#', ':' and '}' (which some readers also take as quote marks)
 *   are NOT quote marks here: '#' starts a comment in the order language;
 * - sign-offs that phones and mail programs add ("Sent from my iPhone",
 *   "Get Outlook for Android", "Sent from Mail for Windows", "Envoyé de mon
 *   iPhone", "Von meinem iPhone gesendet"... in English, French, German,
 *   Spanish, Italian and Dutch) are skipped;
 * - an attribution line "On ... wrote:" (also split over two lines, and the
 *   French, German, Spanish, Italian and Dutch forms) followed by quoted
 *   lines is skipped, and reading goes on below the quotes: bottom-posted
 *   and interleaved replies are read wherever the player wrote;
 * - reading stops at the first signature or history marker: a line that is
 *   exactly "-- " or "--"; a forwarded message (Gmail's "---------- Forwarded
 *   message ---------", Thunderbird's and mutt's, Apple Mail's "Begin
 *   forwarded message:", localised); "-----Original Message-----" and its
 *   localised forms; a line of 20 or more '_' (Outlook); an Outlook header
 *   block ("From:" followed by "Sent:", "Date:", "To:" or "Subject:" on the
 *   next line, and localised); an attribution line not followed by quotes;
 * - leading and trailing blank lines are dropped.
 * Every kept line ends with LF; an empty result is "". */
char *mail_text_clean(const char *utf8);

#define MAIL_TEXT_MAX_EARLIER 4

/* mail_text_clean, and what lies below the marker where reading stopped. */
struct mail_text_reading {
	char *text;           /* what mail_text_clean returns */
	int stop_line;        /* 1-based line of utf8 where reading stopped; 0: none */
	const char *stop_why; /* a static English phrase; NULL iff stop_line is 0 */
	/* The messages below a forward or history marker (not below a
	 * signature), each read like a mail of its own once its header block
	 * (From:, Date:, Subject:...) is skipped: outermost first, empty ones
	 * left out, at most MAIL_TEXT_MAX_EARLIER. */
	char *earlier[MAIL_TEXT_MAX_EARLIER];
	size_t earlier_count;
};

/* Fills *out (overwritten); release with mail_text_reading_free. */
void mail_text_read(const char *utf8, struct mail_text_reading *out);
void mail_text_reading_free(struct mail_text_reading *r);

#endif
