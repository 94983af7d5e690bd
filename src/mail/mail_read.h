/* Read an order mail as any client writes it: raw RFC 5322 bytes in, the
 * headers that matter and the cleaned order text out. No I/O: the caller
 * fetched the bytes (IMAP, a file, a test) and decides what to do with the
 * result. MIME structure, transfer encodings, addresses and encoded words go
 * through libetpan; charsets through iconv, with our own UTF-8 check and
 * Windows-1252 table because libetpan's charconv turns bad bytes into '?'.
 *
 * Which text is read:
 * - text/plain is preferred; in multipart/alternative the text/plain part;
 *   HTML-only mail is reduced to text (mail_text_from_html, with a warning);
 * - in multipart/mixed, related, signed, report...: the first inline text
 *   part that is not blank; attachments (Content-Disposition: attachment or
 *   a file name) are skipped, but a text/plain attachment is used, with a
 *   warning, when there is nothing else;
 * - an attached message (message/rfc822) is never the sender's text;
 * - format=flowed is undone, then mail_text_clean removes quotes, signatures
 *   and the reply history.
 * Charsets: a missing, us-ascii or unknown charset is read as UTF-8 when the
 * bytes are valid UTF-8, else as Windows-1252 (a warning says so);
 * ISO-8859-1 is read as Windows-1252; invalid bytes become U+FFFD. */
#ifndef CAMPAIGN_MAIL_READ_H
#define CAMPAIGN_MAIL_READ_H

#include <stdbool.h>
#include <stddef.h>

#define MAIL_READ_DEFAULT_MAX_BYTES (1024u * 1024u)
#define MAIL_READ_DEFAULT_MAX_DEPTH 20

/* Zero (or a NULL limits pointer) means the default above. */
struct mail_read_limits {
	size_t max_bytes; /* larger messages: headers only, refusal "message too large" */
	int max_depth;    /* parts below this many MIME containers are not read */
};

struct mail_info {
	char *message_id;    /* without <>, NULL if none */
	char *from_addr;     /* lowercased addr-spec of From; "" for "<>"; NULL if none */
	char *from_name;     /* display name decoded to UTF-8, NULL if none */
	char *reply_to_addr; /* lowercased, NULL if none */
	char *return_path;   /* address inside <>, "" for <>, NULL if no header */
	char *subject;       /* decoded to UTF-8, NULL if none */
	char *in_reply_to;   /* raw, unfolded, NULL if none */
	char *references;    /* raw, unfolded, NULL if none */
	char *date;          /* raw, unfolded, NULL if none */
	bool auto_submitted;  /* Auto-Submitted other than "no", X-Autoreply, X-Autorespond */
	bool is_bulk_or_list; /* Precedence bulk/junk/list, or List-Id */
	bool is_report;       /* multipart/report, delivery-status, feedback-report,
	                         From MAILER-DAEMON, or Return-Path <> */
	char *x_loop;         /* first X-Loop, NULL if none */
	int received_count;   /* number of Received headers */
	char *text;    /* order text: UTF-8, LF line ends, cleaned; "" when the
	                  text part held nothing but quotes; NULL iff refusal */
	char *refusal; /* NULL, or why there is no text: "no text part",
	                  "encrypted message", "truncated multipart",
	                  "nested too deeply", "message too large" */
	char **warnings; /* things the reader fixed or guessed, in order, no
	                    duplicates: "HTML converted to text", "invalid UTF-8
	                    replaced", "unknown charset x read as windows-1252"... */
	size_t warning_count;
};

/* Read the len bytes at raw (not NUL-terminated; NUL bytes allowed; a
 * leading mbox "From " line is skipped) into *out, which is overwritten and
 * owned by the caller afterwards (free with mail_info_free). limits may be
 * NULL for the defaults above. Every header field is NULL-checked and falls
 * back to the raw header text where libetpan cannot parse it.
 * Returns 0, with either out->text or out->refusal set; -1 only when raw is
 * NULL (with len > 0) or out is NULL, and then *out is untouched. */
int mail_read(const char *raw, size_t len, const struct mail_read_limits *limits,
	      struct mail_info *out);

/* Free everything mail_read stored in *info and zero it. NULL is fine. */
void mail_info_free(struct mail_info *info);

#endif
