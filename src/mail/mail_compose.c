/* Outgoing message builder; see mail_compose.h for the output's shape. */
#include "config.h"

#include "mail/mail_compose.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

/* RFC 2047: an encoded word is at most 75 characters, a line holding one
 * at most 76. */
#define ENCODED_WORD_MAX 75
#define HEADER_LINE_SOFT 78
/* A word longer than this cannot be folded within 998 octets: encode it. */
#define UNFOLDABLE_WORD 900
#define BODY_LINE_MAX 76

static const char base64_digits[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64_append(struct strbuf *sb, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		char out[4] = {base64_digits[(v >> 18) & 63], base64_digits[(v >> 12) & 63],
			       i + 1 < n ? base64_digits[(v >> 6) & 63] : '=',
			       i + 2 < n ? base64_digits[v & 63] : '='};
		strbuf_append(sb, out, 4);
	}
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static bool has_crlf(const char *s)
{
	return s && (strchr(s, '\r') || strchr(s, '\n'));
}

static size_t longest_word(const char *s)
{
	size_t best = 0, cur = 0;
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t')
			cur = 0;
		else if (++cur > best)
			best = cur;
	}
	return best;
}

/* How many bytes of s (at most max) can go in one encoded word without
 * cutting a UTF-8 sequence. */
static size_t utf8_chunk(const unsigned char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t k = max;
	while (k > 0 && (s[k] & 0xC0) == 0x80)
		k--;
	/* A run of continuation bytes longer than max is not UTF-8; cut anyway. */
	return k ? k : max;
}

/* The length of the plain ASCII words that start s, up to the blank before
 * the first word that needs encoding (non-ASCII, "=?" or too long to
 * fold); 0 if the first word does, or if none does. */
static size_t ascii_head(const char *s)
{
	size_t cut = 0;
	const char *p = s;
	while (*p) {
		const char *w = p + strspn(p, " \t");
		size_t n = strcspn(w, " \t");
		bool plain = n <= UNFOLDABLE_WORD;
		for (size_t i = 0; plain && i < n; i++)
			if ((unsigned char)w[i] >= 0x80 || (w[i] == '=' && w[i + 1] == '?'))
				plain = false;
		if (!plain)
			return w == s ? 0 : cut;
		if (!w[n])
			return 0; /* all plain */
		cut = (size_t)(w + n - s);
		p = w + n;
	}
	return 0;
}

char *mail_compose_encode_header_text(const char *utf8, size_t used)
{
	size_t head = is_ascii(utf8) ? 0 : ascii_head(utf8);
	if (head > 0) {
		/* "[Tag] 1495 =?UTF-8?B?...?=": the plain words stay readable
		 * (to filters on the raw header); the blank after them is kept
		 * by decoders (RFC 2047 6.2), written once, or as the fold. */
		char *plain = xstrndup(utf8, head);
		char *h = mail_compose_encode_header_text(plain, used);
		free(plain);
		const char *nl = strrchr(h, '\n');
		size_t col = nl ? strlen(nl + 1) : used + strlen(h);
		char *t = mail_compose_encode_header_text(utf8 + head + 1, col + 1);
		char *out = xasprintf("%s%s%s", h, t[0] == '\r' ? "" : " ", t);
		free(h);
		free(t);
		return out;
	}
	if (is_ascii(utf8) && longest_word(utf8) <= UNFOLDABLE_WORD) {
		/* Fold at spaces so no line goes far past 78 columns. */
		struct strbuf sb = {0};
		size_t col = used;
		const char *p = utf8;
		while (*p) {
			const char *sp = p;
			while (*sp == ' ' || *sp == '\t')
				sp++;
			const char *end = sp;
			while (*end && *end != ' ' && *end != '\t')
				end++;
			size_t spaces = (size_t)(sp - p), word = (size_t)(end - sp);
			if (spaces > 0 && col + spaces + word > HEADER_LINE_SOFT && col > used) {
				/* The fold's CRLF goes before the whitespace, which stays. */
				strbuf_puts(&sb, "\r\n");
				col = 0;
			}
			strbuf_append(&sb, p, (size_t)(end - p));
			col += spaces + word;
			p = end;
		}
		return strbuf_take(&sb);
	}
	struct strbuf sb = {0};
	const unsigned char *s = (const unsigned char *)utf8;
	size_t n = strlen(utf8);
	size_t room = used < 76 ? 76 - used : 0;
	bool first = true;
	while (n > 0) {
		if (!first || room < 16) {
			/* Words after the first, or a first word the header name
			 * left no room for, start a continuation line. */
			if (!first || used > 0)
				strbuf_puts(&sb, "\r\n ");
			room = ENCODED_WORD_MAX;
		}
		if (room > ENCODED_WORD_MAX)
			room = ENCODED_WORD_MAX;
		/* 12 characters of =?UTF-8?B? and ?=, then 4 per 3 bytes. */
		size_t take = utf8_chunk(s, n, (room - 12) / 4 * 3);
		strbuf_puts(&sb, "=?UTF-8?B?");
		base64_append(&sb, s, take);
		strbuf_puts(&sb, "?=");
		s += take;
		n -= take;
		first = false;
	}
	return strbuf_take(&sb);
}

/* addr-spec check: printable ASCII, one '@', no specials that would need
 * quoting. Enough for the addresses an organiser configures. */
static bool address_ok(const char *a)
{
	if (!a || !*a)
		return false;
	const char *at = strchr(a, '@');
	if (!at || at == a || !at[1] || strchr(at + 1, '@'))
		return false;
	for (const char *p = a; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c <= ' ' || c >= 0x7f || strchr("<>()[]\\,;:\"", c))
			return false;
	}
	return true;
}

static bool token_ok(const char *t)
{
	if (!t || !*t)
		return false;
	for (const char *p = t; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(".-_+=", c)))
			return false;
	}
	return true;
}

static bool domain_ok(const char *d)
{
	if (!d || !*d)
		return false;
	for (const char *p = d; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-'))
			return false;
	}
	return true;
}

char *mail_compose_message_id(const char *token, const char *domain)
{
	if (!token_ok(token) || !domain_ok(domain))
		return NULL;
	return xasprintf("<%s@%s>", token, domain);
}

/* A display name as an RFC 5322 phrase: atoms as they are, other ASCII as a
 * quoted-string, non-ASCII as encoded words. */
static void append_phrase(struct strbuf *sb, const char *name, size_t col)
{
	if (!is_ascii(name)) {
		char *enc = mail_compose_encode_header_text(name, col);
		strbuf_puts(sb, enc);
		free(enc);
		return;
	}
	bool atoms = true;
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == ' ' || strchr("!#$%&'*+-/=?^_`{|}~", c)))
			atoms = false;
	}
	if (atoms && name[0] != ' ') {
		strbuf_puts(sb, name);
		return;
	}
	strbuf_putc(sb, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_putc(sb, '\\');
		strbuf_putc(sb, *p);
	}
	strbuf_putc(sb, '"');
}

/* Column after the last CRLF in sb. */
static size_t current_column(const struct strbuf *sb)
{
	size_t i = sb->len;
	while (i > 0 && sb->data[i - 1] != '\n')
		i--;
	return sb->len - i;
}

static void append_mailbox(struct strbuf *sb, const struct mail_address *a)
{
	if (a->name && *a->name) {
		append_phrase(sb, a->name, current_column(sb));
		strbuf_putc(sb, ' ');
	}
	strbuf_printf(sb, "<%s>", a->address);
}

static void append_address_header(struct strbuf *sb, const char *field,
				  const struct mail_address *list, size_t n)
{
	strbuf_printf(sb, "%s: ", field);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			strbuf_puts(sb, current_column(sb) > 40 ? ",\r\n " : ", ");
		append_mailbox(sb, &list[i]);
	}
	strbuf_puts(sb, "\r\n");
}

static void append_date(struct strbuf *sb, int64_t when)
{
	static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	time_t t = (time_t)when;
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	strbuf_printf(sb, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n", days[tm.tm_wday % 7],
		      tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		      tm.tm_sec);
}

/* Appends "<id>" for a message id given with or without angle brackets;
 * false if it contains spaces, controls or brackets inside. */
static bool append_msgid(struct strbuf *sb, const char *id, size_t n)
{
	if (n >= 2 && id[0] == '<' && id[n - 1] == '>') {
		id++;
		n -= 2;
	}
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];
		if (c <= ' ' || c >= 0x7f || c == '<' || c == '>')
			return false;
	}
	strbuf_putc(sb, '<');
	strbuf_append(sb, id, n);
	strbuf_putc(sb, '>');
	return true;
}

static bool reply_id_ok(const char *id, size_t n)
{
	if (n == 0 || n > MAIL_COMPOSE_MAX_ID_LEN || !memchr(id, '@', n))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];
		if (c <= ' ' || c >= 0x7f || c == '<' || c == '>' || c == '"')
			return false;
	}
	return true;
}

char *mail_compose_reply_id(const char *message_id)
{
	if (!message_id)
		return NULL;
	size_t n = strlen(message_id);
	if (n >= 2 && message_id[0] == '<' && message_id[n - 1] == '>') {
		message_id++;
		n -= 2;
	}
	if (!reply_id_ok(message_id, n))
		return NULL;
	char *out = xmalloc(n + 3);
	out[0] = '<';
	memcpy(out + 1, message_id, n);
	out[n + 1] = '>';
	out[n + 2] = '\0';
	return out;
}

char *mail_compose_reply_references(const char *refs, const char *parent_id)
{
	/* (start, length) of the acceptable ids: the first, and a ring of
	 * the last ones */
	const char *first = NULL, *ring[MAIL_COMPOSE_MAX_REFERENCES];
	size_t first_n = 0, ring_n[MAIL_COMPOSE_MAX_REFERENCES], seen = 0;
	const size_t keep = MAIL_COMPOSE_MAX_REFERENCES - 2; /* + first + parent */

	for (const char *p = refs ? strchr(refs, '<') : NULL; p; p = strchr(p, '<')) {
		const char *gt = strchr(p + 1, '>');
		if (!gt)
			break;
		const char *id = p + 1;
		size_t n = (size_t)(gt - id);
		p = gt + 1;
		if (!reply_id_ok(id, n))
			continue;
		if (!first) {
			first = id;
			first_n = n;
			continue;
		}
		ring[seen % keep] = id;
		ring_n[seen % keep] = n;
		seen++;
	}
	struct strbuf sb = {0};
	if (first)
		strbuf_printf(&sb, "<%.*s>", (int)first_n, first);
	size_t from = seen > keep ? seen - keep : 0;
	for (size_t i = from; i < seen; i++)
		strbuf_printf(&sb, "%s<%.*s>", sb.len ? " " : "", (int)ring_n[i % keep],
			      ring[i % keep]);
	char *parent = mail_compose_reply_id(parent_id);
	if (parent)
		strbuf_printf(&sb, "%s%s", sb.len ? " " : "", parent);
	free(parent);
	return sb.data ? strbuf_take(&sb) : NULL;
}

static bool append_references(struct strbuf *sb, const char *refs)
{
	strbuf_puts(sb, "References:");
	const char *p = refs;
	bool any = false;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *end = p;
		while (*end && *end != ' ' && *end != '\t')
			end++;
		if (end == p)
			break;
		/* One id per line keeps every line short whatever their number. */
		strbuf_puts(sb, any ? "\r\n " : " ");
		if (!append_msgid(sb, p, (size_t)(end - p)))
			return false;
		any = true;
		p = end;
	}
	strbuf_puts(sb, "\r\n");
	return any;
}

/* Quoted-printable (RFC 2045 6.7) of UTF-8 text; LF or CRLF in, CRLF out. */
static void qp_append(struct strbuf *sb, const char *text)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		size_t col = 0;
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)p[i];
			char tok[4];
			size_t tl;
			bool last = i + 1 == n;
			/* "From " at a line start gets mangled by mbox writers; a
			 * lone "." is harmless (SMTP clients stuff it). */
			bool from_start = i == 0 && n >= 5 && memcmp(p, "From ", 5) == 0;
			if ((c >= 33 && c <= 126 && c != '=' && !from_start) ||
			    ((c == ' ' || c == '\t') && !last)) {
				tok[0] = (char)c;
				tl = 1;
			} else {
				tok[0] = '=';
				tok[1] = hex[c >> 4];
				tok[2] = hex[c & 15];
				tl = 3;
			}
			/* Keep room for the soft break's '=' (76 columns in all).
			 * The last token may use the 76th column itself. */
			size_t limit = last ? BODY_LINE_MAX : BODY_LINE_MAX - 1;
			if (col + tl > limit) {
				strbuf_puts(sb, "=\r\n");
				col = 0;
			}
			strbuf_append(sb, tok, tl);
			col += tl;
		}
		strbuf_puts(sb, "\r\n");
		if (!eol)
			break;
		p = eol + 1;
	}
}

static void base64_lines_append(struct strbuf *sb, const unsigned char *data, size_t len)
{
	/* 57 input bytes make one 76-character line. */
	for (size_t i = 0; i < len; i += 57) {
		base64_append(sb, data + i, len - i < 57 ? len - i : 57);
		strbuf_puts(sb, "\r\n");
	}
}

/* Characters (not bytes) of a UTF-8 run. */
static size_t utf8_width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

/* RFC 3676 format=flowed at FLOWED_WIDTH columns: trailing blanks of each
 * line dropped (but the signature separator's), lines longer than the width
 * broken after a space (the soft break: a line that ends in a space), lines
 * that start with a space, '>' or "From " space-stuffed. A word longer than
 * the width stays whole. LF out. */
#define FLOWED_WIDTH 72
char *mail_compose_flowed(const char *text)
{
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	const char *p = text;
	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *next = p[n] ? p + n + 1 : p + n;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		bool sig = n == 3 && memcmp(p, "-- ", 3) == 0;
		while (!sig && n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		bool first = true;
		do {
			size_t take = n;
			if (utf8_width(p, n) > FLOWED_WIDTH) {
				/* the last space within the width, else the first after */
				size_t cut = 0, i = 0, w = 0;
				for (; i < n && w < FLOWED_WIDTH; i++) {
					w += ((unsigned char)p[i] & 0xC0) != 0x80;
					if (p[i] == ' ' && i > 0)
						cut = i + 1;
				}
				if (!cut)
					for (; i < n; i++)
						if (p[i] == ' ') {
							cut = i + 1;
							break;
						}
				if (cut && cut < n)
					take = cut;
			}
			if ((take > 0 && (p[0] == ' ' || p[0] == '>')) ||
			    (take >= 5 && memcmp(p, "From ", 5) == 0) || (!first && take == 0))
				strbuf_putc(&sb, ' ');
			strbuf_append(&sb, p, take);
			strbuf_putc(&sb, '\n');
			p += take;
			n -= take;
			first = false;
		} while (n > 0);
		p = next;
	}
	return strbuf_take(&sb);
}

static void append_text_part(struct strbuf *sb, const char *subtype, const char *text)
{
	bool plain = strcmp(subtype, "plain") == 0;
	strbuf_printf(sb, "Content-Type: text/%s; charset=UTF-8%s\r\n"
			  "Content-Transfer-Encoding: quoted-printable\r\n\r\n",
		      subtype, plain ? "; format=flowed" : "");
	if (plain) {
		char *f = mail_compose_flowed(text);
		qp_append(sb, f);
		free(f);
	} else {
		qp_append(sb, text);
	}
}

static bool content_type_ok(const char *t)
{
	const char *slash = strchr(t, '/');
	if (!slash || slash == t || !slash[1] || strchr(slash + 1, '/'))
		return false;
	for (const char *p = t; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c <= ' ' || c >= 0x7f || strchr("()<>@,;:\\\"[]?=", c))
			return false;
	}
	return true;
}

/* filename parameter: quoted ASCII, or RFC 2231 UTF-8 percent-encoding. */
static void append_filename_param(struct strbuf *sb, const char *param, const char *name)
{
	bool plain = is_ascii(name) && strlen(name) < 200;
	for (const char *p = name; plain && *p; p++)
		if ((unsigned char)*p < ' ' || *p == '"' || *p == '\\')
			plain = false;
	if (plain) {
		strbuf_printf(sb, ";\r\n %s=\"%s\"", param, name);
		return;
	}
	static const char hex[] = "0123456789ABCDEF";
	strbuf_printf(sb, ";\r\n %s*=UTF-8''", param);
	size_t col = strlen(param) + 10;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (col > 70) {
			/* Long values would need RFC 2231 continuations; a
			 * reader that truncates is better than a 998 overflow. */
			break;
		}
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr(".-_", *p)) {
			strbuf_putc(sb, (char)*p);
			col++;
		} else {
			strbuf_putc(sb, '%');
			strbuf_putc(sb, hex[*p >> 4]);
			strbuf_putc(sb, hex[*p & 15]);
			col += 3;
		}
	}
}

static void append_attachment(struct strbuf *sb, const struct mail_attachment *a)
{
	const char *type = a->content_type ? a->content_type : "application/octet-stream";
	strbuf_printf(sb, "Content-Type: %s", type);
	append_filename_param(sb, "name", a->filename);
	strbuf_puts(sb, "\r\nContent-Disposition: attachment");
	append_filename_param(sb, "filename", a->filename);
	strbuf_puts(sb, "\r\nContent-Transfer-Encoding: base64\r\n\r\n");
	base64_lines_append(sb, a->data, a->len);
}

/* The readable body: text alone, or text + HTML as alternatives. */
static void append_body(struct strbuf *sb, const struct mail_compose *m)
{
	if (!m->html_body) {
		append_text_part(sb, "plain", m->text_body);
		return;
	}
	/* "=_" cannot occur in quoted-printable or base64 output, so a
	 * boundary starting with it never appears inside a part. */
	strbuf_printf(sb, "Content-Type: multipart/alternative;\r\n"
			  " boundary=\"=_alt_%s\"\r\n\r\n",
		      m->message_id_token);
	strbuf_printf(sb, "--=_alt_%s\r\n", m->message_id_token);
	append_text_part(sb, "plain", m->text_body);
	strbuf_printf(sb, "\r\n--=_alt_%s\r\n", m->message_id_token);
	append_text_part(sb, "html", m->html_body);
	strbuf_printf(sb, "\r\n--=_alt_%s--\r\n", m->message_id_token);
}

static char *fail(char **errstr, const char *msg)
{
	if (errstr)
		*errstr = xstrdup(msg);
	return NULL;
}

static const char *check_address(const struct mail_address *a, const char *what)
{
	if (!address_ok(a->address))
		return what;
	if (has_crlf(a->name))
		return what;
	return NULL;
}

char *mail_compose(const struct mail_compose *m, size_t *len_out, char **errstr)
{
	if (check_address(&m->from, "from"))
		return fail(errstr, "mail_compose: bad or missing From address");
	if (!m->to || m->n_to == 0)
		return fail(errstr, "mail_compose: no To address");
	for (size_t i = 0; i < m->n_to; i++)
		if (check_address(&m->to[i], "to"))
			return fail(errstr, "mail_compose: bad To address");
	if (m->reply_to && check_address(m->reply_to, "reply-to"))
		return fail(errstr, "mail_compose: bad Reply-To address");
	if (has_crlf(m->subject))
		return fail(errstr, "mail_compose: line break in Subject");
	if (!m->text_body)
		return fail(errstr, "mail_compose: no text body");
	if (!token_ok(m->message_id_token))
		return fail(errstr, "mail_compose: Message-ID token missing or not "
				    "made of letters, digits and .-_+=");
	if (!domain_ok(m->domain))
		return fail(errstr, "mail_compose: bad Message-ID domain");
	if (m->x_loop && !address_ok(m->x_loop))
		return fail(errstr, "mail_compose: bad X-Loop address");
	for (size_t i = 0; i < m->n_attachments; i++) {
		const struct mail_attachment *a = &m->attachments[i];
		if (!a->filename || !*a->filename || has_crlf(a->filename))
			return fail(errstr, "mail_compose: attachment without a usable file name");
		if (a->content_type && !content_type_ok(a->content_type))
			return fail(errstr, "mail_compose: bad attachment content type");
		if (a->len && !a->data)
			return fail(errstr, "mail_compose: attachment without data");
	}

	struct strbuf sb = {0};
	append_date(&sb, m->date);
	append_address_header(&sb, "From", &m->from, 1);
	append_address_header(&sb, "To", m->to, m->n_to);
	if (m->reply_to)
		append_address_header(&sb, "Reply-To", m->reply_to, 1);
	char *subject = mail_compose_encode_header_text(m->subject ? m->subject : "", 9);
	strbuf_printf(&sb, "Subject: %s\r\n", subject);
	free(subject);
	strbuf_printf(&sb, "Message-ID: <%s@%s>\r\n", m->message_id_token, m->domain);
	if (m->in_reply_to && *m->in_reply_to) {
		strbuf_puts(&sb, "In-Reply-To: ");
		if (!append_msgid(&sb, m->in_reply_to, strlen(m->in_reply_to))) {
			strbuf_free(&sb);
			return fail(errstr, "mail_compose: bad In-Reply-To");
		}
		strbuf_puts(&sb, "\r\n");
	}
	if (m->references && *m->references && !append_references(&sb, m->references)) {
		strbuf_free(&sb);
		return fail(errstr, "mail_compose: bad References");
	}
	if (m->auto_submitted == MAIL_AUTO_REPLIED)
		strbuf_puts(&sb, "Auto-Submitted: auto-replied\r\n");
	else if (m->auto_submitted == MAIL_AUTO_GENERATED)
		strbuf_puts(&sb, "Auto-Submitted: auto-generated\r\n");
	if (m->x_loop)
		strbuf_printf(&sb, "X-Loop: %s\r\n", m->x_loop);
	strbuf_puts(&sb, "MIME-Version: 1.0\r\n");

	if (m->n_attachments == 0) {
		append_body(&sb, m);
	} else {
		strbuf_printf(&sb, "Content-Type: multipart/mixed;\r\n"
				   " boundary=\"=_mix_%s\"\r\n\r\n"
				   "This is a message in MIME format.\r\n",
			      m->message_id_token);
		strbuf_printf(&sb, "--=_mix_%s\r\n", m->message_id_token);
		append_body(&sb, m);
		for (size_t i = 0; i < m->n_attachments; i++) {
			strbuf_printf(&sb, "\r\n--=_mix_%s\r\n", m->message_id_token);
			append_attachment(&sb, &m->attachments[i]);
		}
		strbuf_printf(&sb, "\r\n--=_mix_%s--\r\n", m->message_id_token);
	}
	if (len_out)
		*len_out = sb.len;
	return strbuf_take(&sb);
}
