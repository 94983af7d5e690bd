/* Building outgoing RFC 5322 / MIME messages. Pure: no clock, no I/O; the
 * date and the unique token come from the caller, so the same input always
 * gives the same bytes (the outbox can store the Message-ID and rebuild).
 *
 * Output: CRLF line ends, every line at most 998 octets (header lines are
 * folded near 78), MIME-Version 1.0, UTF-8 text in quoted-printable,
 * attachments in base64, non-ASCII header text as RFC 2047 encoded words.
 * Shape: text/plain alone; with an HTML version, multipart/alternative;
 * with attachments, multipart/mixed around either. No dot-stuffing (the
 * SMTP client does it). */
#ifndef CAMPAIGN_MAIL_COMPOSE_H
#define CAMPAIGN_MAIL_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

struct mail_address {
	const char *name;    /* display name, UTF-8; NULL or "" for none */
	const char *address; /* addr-spec, ASCII, e.g. "campaign@example.org" */
};

struct mail_attachment {
	const char *filename;     /* UTF-8; shown to the reader */
	const char *content_type; /* e.g. "image/svg+xml"; NULL: application/octet-stream */
	const unsigned char *data;
	size_t len;
};

enum mail_auto_submitted {
	MAIL_AUTO_REPLIED,   /* "Auto-Submitted: auto-replied": answers to a mail */
	MAIL_AUTO_GENERATED, /* "auto-generated": reports, reminders, the diary */
	MAIL_AUTO_NONE,      /* no Auto-Submitted header */
};

struct mail_compose {
	struct mail_address from;           /* required */
	const struct mail_address *to;      /* required, n_to >= 1 */
	size_t n_to;
	const struct mail_address *reply_to; /* optional */
	const char *subject;                /* UTF-8; NULL: empty */
	const char *text_body;              /* UTF-8, LF or CRLF line ends; required */
	const char *html_body;              /* UTF-8; optional */
	const struct mail_attachment *attachments;
	size_t n_attachments;
	/* Message-ID is "<message_id_token@domain>": the token must be unique
	 * for the campaign and made of letters, digits and ".-_+=". */
	const char *message_id_token;
	const char *domain;
	const char *in_reply_to;            /* a Message-ID, with or without <>; optional */
	const char *references;             /* Message-IDs separated by spaces; optional */
	enum mail_auto_submitted auto_submitted;
	const char *x_loop;                 /* the campaign address; optional */
	int64_t date;                       /* seconds since the epoch; written in UTC */
};

/* Returns the message (NUL-terminated, *len_out set if not NULL; the caller
 * frees) or NULL with *errstr (allocated, caller frees) naming the bad field:
 * a missing required field, an address that is not plain ASCII
 * local@domain, CR or LF in a header field, a bad token. */
char *mail_compose(const struct mail_compose *m, size_t *len_out, char **errstr);

/* "<token@domain>" as mail_compose writes it (caller frees), or NULL if the
 * token or the domain is not acceptable. */
char *mail_compose_message_id(const char *token, const char *domain);

/* The ids of a mail we answer, fit for our reply's In-Reply-To and
 * References, whatever the sender's client wrote. An id is kept when it is
 * printable ASCII without blanks, '<', '>' or '"', holds an '@' and has at
 * most MAIL_COMPOSE_MAX_ID_LEN characters; anything else is dropped, never
 * an error. */
#define MAIL_COMPOSE_MAX_ID_LEN 250
#define MAIL_COMPOSE_MAX_REFERENCES 10

/* "<id>" for a Message-ID given with or without <> (caller frees), or NULL
 * when it is missing or not acceptable as above. */
char *mail_compose_reply_id(const char *message_id);

/* The References of a reply: the acceptable ids found between '<' and '>'
 * in the parent's References (`refs`, raw, may be NULL; separators,
 * commas and junk between ids are ignored), then `parent_id` ("<id>" or
 * NULL). Only the first and the last ones are kept, at most
 * MAIL_COMPOSE_MAX_REFERENCES in all (RFC 5322 3.6.4 allows trimming).
 * Returns "<a> <b> ..." (caller frees), or NULL when none is left. */
char *mail_compose_reply_references(const char *refs, const char *parent_id);

/* The text part as mail_compose writes it: RFC 3676 format=flowed at 72
 * columns (trailing blanks dropped but the signature separator's, long
 * lines broken after a space, lines starting with a space, '>' or "From "
 * space-stuffed), LF line ends. Caller frees. */
char *mail_compose_flowed(const char *text);

/* RFC 2047 encoding of a UTF-8 header text for a header whose name takes
 * `used` columns ("Subject: " = 9): returned unchanged when it is ASCII,
 * else as =?UTF-8?B?...?= words of at most 75 characters, never splitting a
 * UTF-8 character, joined by CRLF SP. Caller frees. */
char *mail_compose_encode_header_text(const char *utf8, size_t used);

#endif
