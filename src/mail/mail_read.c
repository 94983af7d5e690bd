/* Reading order mails: see mail_read.h for the contract. */
/* memmem */
#define _GNU_SOURCE 1
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>

#include "mail/mail_read.h"
#include "mail/mail_scan.h"
#include "mail/mail_text.h"
#include "base/util.h"

/* ------------------------------------------------------------ raw headers */

/* The header block as written, for fields libetpan drops or cannot parse
 * (folded Message-ID, "From: admin <>") and for the optional fields. */
struct raw_field {
	const char *name;
	size_t name_len;
	const char *value; /* folded: may hold CR/LF, unfolded on use */
	size_t value_len;
};

struct raw_headers {
	struct raw_field *fields;
	size_t count, cap;
};

static size_t line_end(const char *s, size_t len, size_t p)
{
	while (p < len && s[p] != '\r' && s[p] != '\n')
		p++;
	return p;
}

static size_t after_eol(const char *s, size_t len, size_t p)
{
	if (p < len && s[p] == '\r')
		p++;
	if (p < len && s[p] == '\n')
		p++;
	return p;
}

/* Collect the header fields of the first len bytes; stops at the first empty
 * line. Lines that are neither a field nor a continuation are ignored. */
static void raw_headers_scan(const char *s, size_t len, struct raw_headers *h)
{
	size_t p = 0;

	while (p < len) {
		size_t end = line_end(s, len, p);
		if (end == p)
			break;
		if (s[p] == ' ' || s[p] == '\t') {
			if (h->count > 0) {
				struct raw_field *f = &h->fields[h->count - 1];
				f->value_len = (size_t)(s + end - f->value);
			}
		} else {
			const char *colon = memchr(s + p, ':', end - p);
			if (colon) {
				size_t name_len = (size_t)(colon - (s + p));
				while (name_len > 0 && (s[p + name_len - 1] == ' ' ||
							s[p + name_len - 1] == '\t'))
					name_len--;
				grow_array((void **)&h->fields, &h->cap, h->count + 1,
					   sizeof(*h->fields));
				h->fields[h->count++] = (struct raw_field){
					.name = s + p,
					.name_len = name_len,
					.value = colon + 1,
					.value_len = (size_t)(s + end - (colon + 1)),
				};
			}
		}
		p = after_eol(s, len, end);
	}
}

static bool raw_field_is(const struct raw_field *f, const char *name)
{
	size_t n = strlen(name);
	return f->name_len == n && strncasecmp(f->name, name, n) == 0;
}

/* The first field called name, unfolded (line ends and NUL bytes removed)
 * and trimmed; NULL if absent. Caller frees. */
static char *raw_header(const struct raw_headers *h, const char *name)
{
	for (size_t i = 0; i < h->count; i++) {
		const struct raw_field *f = &h->fields[i];
		if (!raw_field_is(f, name))
			continue;
		struct strbuf sb = {0};
		for (size_t k = 0; k < f->value_len; k++) {
			char c = f->value[k];
			if (c != '\r' && c != '\n' && c != '\0')
				strbuf_putc(&sb, c);
		}
		char *v = sb.data ? strbuf_take(&sb) : xstrdup("");
		str_trim(v);
		return v;
	}
	return NULL;
}

static int raw_header_count(const struct raw_headers *h, const char *name)
{
	int n = 0;
	for (size_t i = 0; i < h->count; i++)
		if (raw_field_is(&h->fields[i], name))
			n++;
	return n;
}

/* ------------------------------------------------------------- the reader */

struct reader {
	struct mail_read_limits limits;
	struct mail_info *info;
	const char *msg; /* the buffer libetpan parsed */
	size_t msg_len;
	bool too_deep;
	bool empty_multipart;
	bool unclosed_multipart;
	bool encrypted;
	struct mailmime *attached_text; /* a text/plain attachment, as last resort */
	struct mailmime *blank_text;    /* a blank inline text part */
	struct mailmime *attached_msgs[MAIL_TEXT_MAX_EARLIER]; /* message/rfc822 parts */
	size_t attached_msg_count;
	struct mailmime **reparsed;     /* parts of broken multiparts, parsed alone */
	size_t reparsed_count, reparsed_cap;
	size_t warning_cap;
};

/* Parts of broken multiparts parsed one by one: a bound on the work a
 * hostile message can ask for. */
#define MAX_REPARSED_PARTS 1000

static void warn(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct reader *r, const char *fmt, ...)
{
	struct mail_info *info = r->info;
	struct strbuf sb = {0};
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	char *msg = strbuf_take(&sb);
	for (size_t i = 0; i < info->warning_count; i++) {
		if (strcmp(info->warnings[i], msg) == 0) {
			free(msg);
			return;
		}
	}
	grow_array((void **)&info->warnings, &r->warning_cap, info->warning_count + 1,
		   sizeof(*info->warnings));
	info->warnings[info->warning_count++] = msg;
}

/* Header text for display: printable, one line, trimmed. */
static char *tidy_header_text(char *s)
{
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7F)
			*p = ' ';
	return str_trim(s);
}

/* Decode RFC 2047 encoded words; text outside them is UTF-8 if valid, else
 * Windows-1252 (raw 8-bit headers are common). Returns NULL for NULL. */
static char *header_decode(const char *raw)
{
	if (!raw)
		return NULL;
	size_t len = strlen(raw);
	bool utf8 = mail_text_utf8_valid(raw, len);
	char *decoded = NULL;
	char *out;
	size_t idx = 0;

	if (strstr(raw, "=?") &&
	    mailmime_encoded_phrase_parse(utf8 ? "utf-8" : "windows-1252", raw, len, &idx,
					  "utf-8", &decoded) == MAILIMF_NO_ERROR &&
	    decoded) {
		out = mail_text_utf8_sanitize(decoded, strlen(decoded), NULL);
	} else if (utf8) {
		out = xstrdup(raw);
	} else {
		out = mail_text_from_windows1252(raw, len);
	}
	free(decoded);
	return tidy_header_text(out);
}

static void ascii_lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s + 32);
}

/* An address for comparisons: valid UTF-8, no blanks, lowercase. */
static char *address_normalise(const char *addr, size_t len)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)addr[i]) && addr[i] != '\0')
			strbuf_putc(&sb, addr[i]);
	char *raw = sb.data ? strbuf_take(&sb) : xstrdup("");
	char *s = mail_text_utf8_sanitize(raw, strlen(raw), NULL);
	free(raw);
	ascii_lower(s);
	return s;
}

/* Where libetpan gives up: "Name <addr>", "Name <>", or a bare address. */
static void mailbox_fallback(const char *value, char **addr, char **name)
{
	const char *lt = strchr(value, '<');
	const char *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt) {
		*addr = address_normalise(lt + 1, (size_t)(gt - lt - 1));
		char *display = xstrndup(value, (size_t)(lt - value));
		str_trim(display);
		size_t n = strlen(display);
		if (n >= 2 && display[0] == '"' && display[n - 1] == '"') {
			memmove(display, display + 1, n - 2);
			display[n - 2] = '\0';
		}
		*name = *display ? header_decode(display) : NULL;
		free(display);
	} else {
		size_t n = strcspn(value, " \t,;");
		*addr = n ? address_normalise(value, n) : NULL;
		*name = NULL;
	}
}

static void mailbox_take(const struct mailimf_mailbox *mb, char **addr, char **name)
{
	*addr = address_normalise(mb->mb_addr_spec, strlen(mb->mb_addr_spec));
	*name = mb->mb_display_name ? header_decode(mb->mb_display_name) : NULL;
	if (*name && !**name) {
		free(*name);
		*name = NULL;
	}
}

/* First mailbox of an address header (From, Reply-To); addr or name may
 * come back NULL. */
static void read_mailbox(const char *value, char **addr, char **name)
{
	struct mailimf_address_list *list = NULL;
	const struct mailimf_mailbox *found = NULL;
	size_t idx = 0;

	*addr = *name = NULL;
	if (!value)
		return;
	if (mailimf_address_list_parse(value, strlen(value), &idx, &list) == MAILIMF_NO_ERROR &&
	    list && list->ad_list) {
		for (clistiter *it = clist_begin(list->ad_list); it && !found; it = clist_next(it)) {
			const struct mailimf_address *a = clist_content(it);
			if (!a)
				continue;
			if (a->ad_type == MAILIMF_ADDRESS_MAILBOX) {
				found = a->ad_data.ad_mailbox;
			} else if (a->ad_type == MAILIMF_ADDRESS_GROUP && a->ad_data.ad_group &&
				   a->ad_data.ad_group->grp_mb_list &&
				   a->ad_data.ad_group->grp_mb_list->mb_list) {
				clistiter *g = clist_begin(a->ad_data.ad_group->grp_mb_list->mb_list);
				found = g ? clist_content(g) : NULL;
			}
		}
	}
	/* libetpan reads "admin <>" as the address "admin<". */
	if (found && found->mb_addr_spec && *found->mb_addr_spec &&
	    !strpbrk(found->mb_addr_spec, "<> \t"))
		mailbox_take(found, addr, name);
	else
		mailbox_fallback(value, addr, name);
	if (list)
		mailimf_address_list_free(list);
}

static char *read_message_id(const char *value)
{
	char *id = NULL;
	size_t idx = 0;

	if (!value)
		return NULL;
	if (mailimf_msg_id_parse(value, strlen(value), &idx, &id) == MAILIMF_NO_ERROR && id &&
	    *id) {
		char *out = mail_text_utf8_sanitize(id, strlen(id), NULL);
		free(id);
		return out;
	}
	free(id);
	/* libetpan rejects folded and odd IDs: take what is between <>. */
	const char *lt = strchr(value, '<');
	const char *gt = lt ? strchr(lt, '>') : NULL;
	const char *start = lt && gt ? lt + 1 : value;
	size_t len = lt && gt ? (size_t)(gt - lt - 1) : strlen(value);
	struct strbuf sb = {0};
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)start[i]))
			strbuf_putc(&sb, start[i]);
	if (!sb.data)
		return NULL;
	char *raw = strbuf_take(&sb);
	char *out = mail_text_utf8_sanitize(raw, strlen(raw), NULL);
	free(raw);
	return out;
}

static char *read_return_path(const char *value)
{
	if (!value)
		return NULL;
	const char *lt = strchr(value, '<');
	const char *gt = lt ? strchr(lt, '>') : NULL;
	if (lt && gt)
		return address_normalise(lt + 1, (size_t)(gt - lt - 1));
	return address_normalise(value, strlen(value));
}

/* A header value as text: valid UTF-8, printable, trimmed. */
static char *read_text_header(const struct raw_headers *h, const char *name)
{
	char *v = raw_header(h, name);
	if (!v)
		return NULL;
	char *out = mail_text_utf8_sanitize(v, strlen(v), NULL);
	free(v);
	return tidy_header_text(out);
}

static bool local_part_is(const char *addr, const char *local)
{
	size_t n = strlen(local);
	return addr && strncmp(addr, local, n) == 0 && (addr[n] == '@' || addr[n] == '\0');
}

/* Auto-replies that carry no Auto-Submitted header. Headers only a
 * responder writes are proof; the Subject of an Exchange or webmail
 * out-of-office reply, or Exchange's X-Auto-Response-Suppress (which
 * Exchange also puts on ordinary mail), only a hint. */
static void read_auto_reply_hints(struct mail_info *info, const struct raw_headers *h)
{
	static const char *const proof[] = {
		"X-Autoreply", "X-Autorespond", "X-AutoReply-From", "X-Mail-Autoreply",
		"X-Autogenerated", "X-Vacation", NULL,
	};
	static const char *const subjects[] = {
		"Automatic reply:", "Automatic reply :", "Auto reply:", "Autoreply:",
		"Auto-Reply:", "Auto Response:", "Autoresponse:", "Out of Office",
		"Out of the Office", "Away from the office", "Vacation reply",
		"R\xc3\xa9ponse automatique", "Absence du bureau", "Automatische Antwort",
		"Abwesenheitsnotiz", "Automatische Abwesenheit", "Respuesta autom\xc3\xa1tica",
		"Fuera de la oficina", "Risposta automatica", "Fuori sede", "Fuori ufficio",
		"Automatisch antwoord", "Afwezig", "Niet aanwezig", NULL,
	};
	for (size_t k = 0; proof[k] && !info->auto_reply; k++)
		if (raw_header_count(h, proof[k]))
			info->auto_reply = proof[k];
	if (raw_header_count(h, "X-Auto-Response-Suppress"))
		info->maybe_auto_reply = "X-Auto-Response-Suppress";
	const char *subject = info->subject ? info->subject : "";
	for (size_t k = 0; subjects[k]; k++)
		if (str_starts_with_ci(subject, subjects[k]))
			info->maybe_auto_reply = "an automatic reply's Subject";
}

static void read_headers(struct reader *r, const char *msg, size_t len)
{
	struct mail_info *info = r->info;
	struct raw_headers h = {0};
	char *v;

	raw_headers_scan(msg, len, &h);

	v = raw_header(&h, "Message-ID");
	info->message_id = read_message_id(v);
	free(v);

	v = raw_header(&h, "From");
	read_mailbox(v, &info->from_addr, &info->from_name);
	free(v);

	v = raw_header(&h, "Reply-To");
	char *ignored_name = NULL;
	read_mailbox(v, &info->reply_to_addr, &ignored_name);
	free(ignored_name);
	free(v);

	v = raw_header(&h, "Return-Path");
	info->return_path = read_return_path(v);
	free(v);

	v = raw_header(&h, "Subject");
	info->subject = header_decode(v);
	free(v);

	info->in_reply_to = read_text_header(&h, "In-Reply-To");
	info->references = read_text_header(&h, "References");
	info->date = read_text_header(&h, "Date");
	info->x_loop = read_text_header(&h, "X-Loop");
	info->received_count = raw_header_count(&h, "Received");

	v = raw_header(&h, "Auto-Submitted");
	if (v) {
		v[strcspn(v, "; \t(")] = '\0';
		info->auto_submitted = strcasecmp(v, "no") != 0;
		free(v);
	}
	if (raw_header_count(&h, "X-Autoreply") || raw_header_count(&h, "X-Autorespond"))
		info->auto_submitted = true;

	v = raw_header(&h, "Precedence");
	if (v) {
		if (strcasecmp(v, "bulk") == 0 || strcasecmp(v, "junk") == 0 ||
		    strcasecmp(v, "list") == 0)
			info->is_bulk_or_list = true;
		if (strcasecmp(v, "auto_reply") == 0)
			info->auto_reply = "Precedence: auto_reply";
		free(v);
	}
	read_auto_reply_hints(info, &h);
	if (raw_header_count(&h, "List-Id"))
		info->is_bulk_or_list = true;

	if ((info->return_path && !*info->return_path) ||
	    local_part_is(info->from_addr, "mailer-daemon") ||
	    local_part_is(info->from_addr, "postmaster"))
		info->is_report = true;

	free(h.fields);
}

/* --------------------------------------------------------------- charsets */

static const struct {
	const char *label, *iconv_name;
} charset_aliases[] = {
	{"ks_c_5601-1987", "CP949"}, {"ks_c_5601", "CP949"}, {"gb2312", "GBK"},
	{"x-gbk", "GBK"}, {"x-sjis", "SHIFT_JIS"}, {"shift-jis", "SHIFT_JIS"},
	{"windows-874", "CP874"}, {"iso-8859-8-i", "ISO-8859-8"},
	{"x-euc-jp", "EUC-JP"}, {"unicode-1-1-utf-7", "UTF-7"},
};

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return true;
	return false;
}

static bool bytes_are_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/* No usable label: valid UTF-8 stays, anything else is Windows-1252. */
static char *guess_charset(struct reader *r, const char *data, size_t len, const char *label)
{
	if (bytes_are_ascii(data, len) || mail_text_utf8_valid(data, len)) {
		if (label && !bytes_are_ascii(data, len))
			warn(r, "unknown charset %s read as UTF-8", label);
		return mail_text_utf8_sanitize(data, len, NULL);
	}
	if (label)
		warn(r, "unknown charset %s read as windows-1252", label);
	else
		warn(r, "8-bit text without a charset read as windows-1252");
	return mail_text_from_windows1252(data, len);
}

static char *iconv_to_utf8(struct reader *r, iconv_t cd, const char *label, const char *data,
			   size_t len)
{
	struct strbuf sb = {0};
	char buf[4096];
	char *in = (char *)data;
	size_t in_left = len;
	bool bad = false;

	while (in_left > 0) {
		char *o = buf;
		size_t o_left = sizeof(buf);
		size_t rc = iconv(cd, &in, &in_left, &o, &o_left);
		strbuf_append(&sb, buf, (size_t)(o - buf));
		if (rc != (size_t)-1 || errno == E2BIG)
			continue;
		/* EILSEQ, EINVAL (cut short) or anything else: skip a byte so
		 * the loop always moves on. */
		strbuf_puts(&sb, "\xef\xbf\xbd");
		in++;
		in_left--;
		bad = true;
	}
	char *o = buf;
	size_t o_left = sizeof(buf);
	iconv(cd, NULL, NULL, &o, &o_left);
	strbuf_append(&sb, buf, (size_t)(o - buf));
	if (bad)
		warn(r, "invalid bytes for charset %s replaced", label);
	char *out = mail_text_utf8_sanitize(sb.data ? sb.data : "", sb.len, NULL);
	strbuf_free(&sb);
	return out;
}

/* Decode len bytes labelled with charset (NULL if none) to UTF-8. */
static char *charset_to_utf8(struct reader *r, const char *charset, const char *data, size_t len)
{
	static const char *const ascii[] = {
		"us-ascii", "ascii", "us_ascii", "ansi_x3.4-1968", "iso646-us", "us", "", NULL,
	};
	static const char *const utf8[] = {"utf-8", "utf8", "x-utf-8", NULL};
	static const char *const cp1252[] = {
		"iso-8859-1", "iso8859-1", "iso_8859-1", "iso-8859-1:1987", "latin1",
		"latin-1", "l1", "iso-ir-100", "cp819", "ibm819", "windows-1252",
		"cp1252", "x-cp1252", "cp-1252", "win-1252", NULL,
	};
	char label[48];
	size_t n = 0;

	if (charset) {
		const char *c = charset;
		while (*c == ' ' || *c == '"' || *c == '\'')
			c++;
		/* The label ends up in warnings: printable ASCII only. */
		while (*c && *c != '"' && *c != '\'' && *c != ' ' && n + 1 < sizeof(label)) {
			unsigned char u = (unsigned char)*c++;
			label[n++] = u > 32 && u < 127 ? (char)tolower(u) : '?';
		}
	}
	label[n] = '\0';

	if (!charset || name_in(label, ascii))
		return guess_charset(r, data, len, NULL);
	if (name_in(label, utf8)) {
		bool replaced = false;
		char *out = mail_text_utf8_sanitize(data, len, &replaced);
		if (replaced)
			warn(r, "invalid UTF-8 replaced");
		return out;
	}
	/* Clients that label UTF-8 text with a legacy charset are common, and
	 * legacy text with 8-bit bytes is almost never valid UTF-8 by chance.
	 * UTF-16/32 (NUL bytes) and UTF-7 (ASCII only) never match. */
	if (!bytes_are_ascii(data, len) && !memchr(data, '\0', len) &&
	    mail_text_utf8_valid(data, len)) {
		warn(r, "text labelled %s read as UTF-8", label);
		return mail_text_utf8_sanitize(data, len, NULL);
	}
	if (name_in(label, cp1252))
		return mail_text_from_windows1252(data, len);

	const char *iconv_name = label;
	for (size_t k = 0; k < sizeof(charset_aliases) / sizeof(charset_aliases[0]); k++)
		if (strcmp(label, charset_aliases[k].label) == 0)
			iconv_name = charset_aliases[k].iconv_name;
	/* Names with '/' or ',' would pass options to glibc's iconv. */
	bool plausible = strspn(label, "abcdefghijklmnopqrstuvwxyz0123456789-_.:+") == n &&
			 n + 1 < sizeof(label);
	iconv_t cd = plausible ? iconv_open("UTF-8", iconv_name) : (iconv_t)-1;
	if (cd == (iconv_t)-1)
		return guess_charset(r, data, len, label);
	char *out = iconv_to_utf8(r, cd, label, data, len);
	iconv_close(cd);
	return out;
}

/* ------------------------------------------------------------ MIME parts */

static const char *discrete_name(const struct mailmime_discrete_type *t)
{
	switch (t->dt_type) {
	case MAILMIME_DISCRETE_TYPE_TEXT: return "text";
	case MAILMIME_DISCRETE_TYPE_IMAGE: return "image";
	case MAILMIME_DISCRETE_TYPE_AUDIO: return "audio";
	case MAILMIME_DISCRETE_TYPE_VIDEO: return "video";
	case MAILMIME_DISCRETE_TYPE_APPLICATION: return "application";
	case MAILMIME_DISCRETE_TYPE_EXTENSION: return t->dt_extension ? t->dt_extension : "x";
	default: return "x";
	}
}

/* "type/subtype" in lowercase; "text/plain" when there is no Content-Type. */
static void media_type(const struct mailmime_content *ct, char *buf, size_t size)
{
	const char *type = "x";

	if (!ct || !ct->ct_type) {
		snprintf(buf, size, "text/plain");
		return;
	}
	if (ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE &&
	    ct->ct_type->tp_data.tp_discrete_type) {
		type = discrete_name(ct->ct_type->tp_data.tp_discrete_type);
	} else if (ct->ct_type->tp_type == MAILMIME_TYPE_COMPOSITE_TYPE &&
		   ct->ct_type->tp_data.tp_composite_type) {
		const struct mailmime_composite_type *c = ct->ct_type->tp_data.tp_composite_type;
		if (c->ct_type == MAILMIME_COMPOSITE_TYPE_MESSAGE)
			type = "message";
		else if (c->ct_type == MAILMIME_COMPOSITE_TYPE_MULTIPART)
			type = "multipart";
		else if (c->ct_token)
			type = c->ct_token;
	}
	snprintf(buf, size, "%s/%s", type, ct->ct_subtype ? ct->ct_subtype : "");
	ascii_lower(buf);
}

static const char *content_param(struct mailmime_content *ct, const char *name)
{
	if (!ct || !ct->ct_parameters)
		return NULL;
	for (clistiter *it = clist_begin(ct->ct_parameters); it; it = clist_next(it)) {
		const struct mailmime_parameter *p = clist_content(it);
		if (p && p->pa_name && p->pa_value && strcasecmp(p->pa_name, name) == 0)
			return p->pa_value;
	}
	return NULL;
}

static bool part_is_attachment(struct mailmime *m)
{
	struct mailmime_single_fields sf;
	mailmime_single_fields_init(&sf, m->mm_mime_fields, m->mm_content_type);
	if (sf.fld_disposition && sf.fld_disposition->dsp_type &&
	    sf.fld_disposition->dsp_type->dsp_type == MAILMIME_DISPOSITION_TYPE_ATTACHMENT)
		return true;
	return sf.fld_disposition_filename || sf.fld_content_name;
}

static const struct mailmime_data *part_body(const struct mailmime *m)
{
	const struct mailmime_data *d = m->mm_data.mm_single;
	if (!d || d->dt_type != MAILMIME_DATA_TEXT || !d->dt_data.dt_text.dt_data)
		return NULL;
	return d;
}

static bool part_is_blank(const struct mailmime *m)
{
	const struct mailmime_data *d = part_body(m);
	if (!d)
		return true;
	for (size_t i = 0; i < d->dt_data.dt_text.dt_length; i++)
		if (!isspace((unsigned char)d->dt_data.dt_text.dt_data[i]))
			return false;
	return true;
}

/* A truncated mail loses the close delimiter of its multiparts. */
static void check_multipart_closed(struct reader *r, struct mailmime *m)
{
	struct mailmime_single_fields sf;
	mailmime_single_fields_init(&sf, m->mm_mime_fields, m->mm_content_type);
	const char *boundary = sf.fld_content_boundary;
	const char *start = m->mm_mime_start;

	if (!boundary || !start || start < r->msg || start > r->msg + r->msg_len)
		return;
	size_t avail = (size_t)(r->msg + r->msg_len - start);
	size_t len = m->mm_length < avail ? m->mm_length : avail;
	char *close = xasprintf("--%s--", boundary);
	if (!memmem(start, len, close, strlen(close)))
		r->unclosed_multipart = true;
	free(close);
}

static bool media_is_report_body(const char *type)
{
	return strcmp(type, "message/delivery-status") == 0 ||
	       strcmp(type, "message/global-delivery-status") == 0 ||
	       strcmp(type, "message/feedback-report") == 0 ||
	       strcmp(type, "message/disposition-notification") == 0;
}

/* Choosing among the children of a multipart: the first text part, except
 * that multipart/alternative prefers text/plain to HTML. */
struct chooser {
	bool alternative;
	struct mailmime *html;
	struct mailmime *found;
	bool found_html;
};

/* Offer a child's pick; true when the choice is made. */
static bool chooser_offer(struct chooser *ch, struct mailmime *c, bool child_html)
{
	if (!c)
		return false;
	if (!ch->alternative || !child_html) {
		ch->found = c;
		ch->found_html = child_html;
		return true;
	}
	if (!ch->html)
		ch->html = c;
	return false;
}

static struct mailmime *chooser_result(struct chooser *ch, bool *is_html)
{
	if (ch->found) {
		*is_html = ch->found_html;
		return ch->found;
	}
	*is_html = ch->html != NULL;
	return ch->html;
}

static struct mailmime *pick_text(struct reader *r, struct mailmime *m, int depth, bool *is_html);

/* libetpan 1.9.4 returns no parts at all for a multipart whose close
 * delimiter is missing or mangled ("--b" at the end of the file, "--b-"),
 * which is what a truncated mail looks like. Split the body on the
 * delimiter lines ourselves and parse each part alone. */
static struct mailmime *pick_from_broken_multipart(struct reader *r, struct mailmime *m,
						   int depth, struct chooser *ch, bool *is_html)
{
	struct mailmime_single_fields sf;
	const struct mailmime_data *body = m->mm_body;

	mailmime_single_fields_init(&sf, m->mm_mime_fields, m->mm_content_type);
	if (!sf.fld_content_boundary || !body || body->dt_type != MAILMIME_DATA_TEXT ||
	    !body->dt_data.dt_text.dt_data)
		return NULL;
	const char *s = body->dt_data.dt_text.dt_data;
	size_t len = body->dt_data.dt_text.dt_length;
	char *delim = xasprintf("--%s", sf.fld_content_boundary);
	size_t dlen = strlen(delim);
	size_t part_start = 0;
	bool in_part = false, done = false;

	for (size_t p = 0; p <= len && !done;) {
		bool at_delim = p < len && len - p >= dlen && memcmp(s + p, delim, dlen) == 0;
		if (p < len && !at_delim) {
			p = after_eol(s, len, line_end(s, len, p));
			continue;
		}
		if (in_part && r->reparsed_count < MAX_REPARSED_PARTS) {
			/* The line end before a delimiter belongs to it. */
			size_t end = p;
			if (at_delim && end > part_start && s[end - 1] == '\n')
				end--;
			if (at_delim && end > part_start && s[end - 1] == '\r')
				end--;
			struct mailmime *sub = NULL;
			size_t idx = 0;
			if (mailmime_parse(s + part_start, end - part_start, &idx, &sub) ==
				    MAILIMF_NO_ERROR && sub) {
				grow_array((void **)&r->reparsed, &r->reparsed_cap,
					   r->reparsed_count + 1, sizeof(*r->reparsed));
				r->reparsed[r->reparsed_count++] = sub;
				bool child_html = false;
				struct mailmime *c = pick_text(r, sub->mm_data.mm_message.mm_msg_mime,
							       depth + 1, &child_html);
				done = chooser_offer(ch, c, child_html);
			}
		}
		if (p >= len)
			break;
		if (len - p >= dlen + 2 && memcmp(s + p + dlen, "--", 2) == 0)
			break;
		in_part = true;
		part_start = after_eol(s, len, line_end(s, len, p));
		p = part_start;
	}
	free(delim);
	return chooser_result(ch, is_html);
}

/* False when the body of multipart m holds no delimiter line at all: it is
 * then only a preamble ("This is a multi-part message in MIME format"), the
 * mail was cut before its first part, and libetpan's single part made of
 * the whole body is not the sender's text. */
static bool multipart_has_delimiter(const struct mailmime *m)
{
	struct mailmime_single_fields sf;
	const struct mailmime_data *body = m->mm_body;

	mailmime_single_fields_init(&sf, m->mm_mime_fields, m->mm_content_type);
	if (!sf.fld_content_boundary || !body || body->dt_type != MAILMIME_DATA_TEXT ||
	    !body->dt_data.dt_text.dt_data)
		return true;
	const char *s = body->dt_data.dt_text.dt_data;
	size_t len = body->dt_data.dt_text.dt_length;
	size_t blen = strlen(sf.fld_content_boundary);
	for (size_t p = 0; p < len; p = after_eol(s, len, line_end(s, len, p))) {
		if (len - p >= blen + 2 && s[p] == '-' && s[p + 1] == '-' &&
		    memcmp(s + p + 2, sf.fld_content_boundary, blen) == 0)
			return true;
	}
	return false;
}

/* The part that holds the sender's text, or NULL. *is_html tells which
 * kind. depth counts MIME containers above m (the message itself is 0). */
static struct mailmime *pick_text(struct reader *r, struct mailmime *m, int depth, bool *is_html)
{
	char type[96];

	if (!m)
		return NULL;
	if (depth > r->limits.max_depth) {
		r->too_deep = true;
		return NULL;
	}
	media_type(m->mm_content_type, type, sizeof(type));

	switch (m->mm_type) {
	case MAILMIME_MESSAGE:
		/* Only the outer message: an attached one is someone else's. */
		if (depth > 0)
			return NULL;
		return pick_text(r, m->mm_data.mm_message.mm_msg_mime, depth + 1, is_html);
	case MAILMIME_MULTIPLE: {
		clist *parts = m->mm_data.mm_multipart.mm_mp_list;
		struct chooser ch = {.alternative = strcmp(type, "multipart/alternative") == 0};
		if (strcmp(type, "multipart/report") == 0)
			r->info->is_report = true;
		if (strcmp(type, "multipart/encrypted") == 0) {
			r->encrypted = true;
			return NULL;
		}
		if (!multipart_has_delimiter(m)) {
			r->empty_multipart = true;
			return NULL;
		}
		if (!parts || clist_isempty(parts)) {
			size_t before = r->reparsed_count;
			struct mailmime *c = pick_from_broken_multipart(r, m, depth, &ch, is_html);
			if (r->reparsed_count == before)
				r->empty_multipart = true;
			else
				r->unclosed_multipart = true;
			return c;
		}
		check_multipart_closed(r, m);
		for (clistiter *it = clist_begin(parts); it; it = clist_next(it)) {
			bool child_html = false;
			struct mailmime *c = pick_text(r, clist_content(it), depth + 1, &child_html);
			if (chooser_offer(&ch, c, child_html))
				break;
		}
		return chooser_result(&ch, is_html);
	}
	case MAILMIME_SINGLE: {
		if (media_is_report_body(type)) {
			r->info->is_report = true;
			return NULL;
		}
		bool plain = strcmp(type, "text/plain") == 0;
		bool html = strcmp(type, "text/html") == 0;
		if (!plain && !html)
			return NULL;
		if (part_is_attachment(m)) {
			if (plain && !r->attached_text)
				r->attached_text = m;
			return NULL;
		}
		if (part_is_blank(m)) {
			if (!r->blank_text)
				r->blank_text = m;
			return NULL;
		}
		*is_html = html;
		return m;
	}
	default:
		return NULL;
	}
}

/* A name from the message, fit for a warning: printable ASCII, bounded. */
static void printable_copy(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	for (; *s && n + 1 < size; s++) {
		unsigned char u = (unsigned char)*s;
		buf[n++] = u >= 32 && u < 127 ? (char)u : '?';
	}
	buf[n] = '\0';
}

static const char *encoding_name(int mechanism)
{
	switch (mechanism) {
	case MAILMIME_MECHANISM_BASE64: return "base64";
	case MAILMIME_MECHANISM_QUOTED_PRINTABLE: return "quoted-printable";
	default: return "8bit";
	}
}

/* The cleaned UTF-8 text of a single text part, and what lies below the
 * markers where reading stopped. */
static void part_text(struct reader *r, struct mailmime *m, bool is_html,
		      struct mail_text_reading *reading)
{
	struct mailmime_single_fields sf;
	const struct mailmime_data *d = part_body(m);
	int mechanism = MAILMIME_MECHANISM_8BIT;
	char *decoded = NULL;
	size_t decoded_len = 0, idx = 0;
	char *utf8;

	mailmime_single_fields_init(&sf, m->mm_mime_fields, m->mm_content_type);
	if (sf.fld_encoding) {
		mechanism = sf.fld_encoding->enc_type;
		if (mechanism == MAILMIME_MECHANISM_TOKEN || mechanism == MAILMIME_MECHANISM_ERROR) {
			char token[32] = "?";
			if (sf.fld_encoding->enc_token)
				printable_copy(token, sizeof(token), sf.fld_encoding->enc_token);
			warn(r, "unknown transfer encoding %s read as 8bit", token);
			mechanism = MAILMIME_MECHANISM_8BIT;
		}
	}
	if (!d) {
		utf8 = xstrdup("");
	} else {
		/* libetpan 1.9.4's quoted-printable decoder reads and copies the
		 * two bytes after a '=' that ends its input (found by fuzzing):
		 * decode from a copy followed by NUL bytes, which are dropped. */
		size_t body_len = d->dt_data.dt_text.dt_length;
		char *padded = xmalloc(body_len + 4);
		memcpy(padded, d->dt_data.dt_text.dt_data, body_len);
		memset(padded + body_len, 0, 4);
		if (mailmime_part_parse(padded, body_len, &idx, mechanism, &decoded,
					&decoded_len) == MAILIMF_NO_ERROR && decoded) {
			utf8 = charset_to_utf8(r, sf.fld_content_charset, decoded, decoded_len);
			mmap_string_unref(decoded);
		} else {
			warn(r, "%s body could not be decoded, read as it is",
			     encoding_name(mechanism));
			utf8 = charset_to_utf8(r, sf.fld_content_charset, padded, body_len);
		}
		free(padded);
	}

	if (is_html) {
		char *plain = mail_text_from_html(utf8);
		free(utf8);
		utf8 = plain;
		warn(r, "HTML converted to text");
	} else {
		const char *format = content_param(m->mm_content_type, "format");
		if (format && strcasecmp(format, "flowed") == 0) {
			const char *delsp = content_param(m->mm_content_type, "delsp");
			char *joined = mail_text_unflow(utf8, delsp && strcasecmp(delsp, "yes") == 0);
			free(utf8);
			utf8 = joined;
		}
	}
	mail_text_read(utf8, reading);
	free(utf8);
}

static void add_earlier(struct mail_info *info, char *text)
{
	if (info->earlier_count < MAIL_TEXT_MAX_EARLIER && text && *text) {
		info->earlier = xrealloc(info->earlier,
					 (info->earlier_count + 1) * sizeof *info->earlier);
		info->earlier[info->earlier_count++] = text;
	} else {
		free(text);
	}
}

/* Keeps the reading's text as the mail's text (or as an earlier message's)
 * and every earlier message below its markers. */
static void take_reading(struct mail_info *info, struct mail_text_reading *reading, bool own)
{
	if (own) {
		info->text = reading->text;
		info->stop_line = reading->stop_line;
		info->stop_why = reading->stop_why;
	} else {
		add_earlier(info, reading->text);
	}
	reading->text = NULL;
	for (size_t i = 0; i < reading->earlier_count; i++) {
		add_earlier(info, reading->earlier[i]);
		reading->earlier[i] = NULL;
	}
	reading->earlier_count = 0;
}

/* Messages attached to this one (forwarded as attachments): found in every
 * multipart, not inside the attached messages themselves. */
static void collect_attached(struct reader *r, struct mailmime *m, int depth)
{
	if (!m || depth > r->limits.max_depth)
		return;
	if (m->mm_type == MAILMIME_MESSAGE) {
		if (depth == 0)
			collect_attached(r, m->mm_data.mm_message.mm_msg_mime, depth + 1);
		else if (r->attached_msg_count < MAIL_TEXT_MAX_EARLIER)
			r->attached_msgs[r->attached_msg_count++] = m;
		return;
	}
	if (m->mm_type != MAILMIME_MULTIPLE || !m->mm_data.mm_multipart.mm_mp_list)
		return;
	char type[96];
	media_type(m->mm_content_type, type, sizeof(type));
	if (strcmp(type, "multipart/report") == 0)
		return; /* the returned message of a bounce is not forwarded orders */
	for (clistiter *it = clist_begin(m->mm_data.mm_multipart.mm_mp_list); it;
	     it = clist_next(it))
		collect_attached(r, clist_content(it), depth + 1);
}

/* The text of each attached message, read as its own mail. */
static void read_attached(struct reader *r, struct mailmime *mime)
{
	collect_attached(r, mime, 0);
	for (size_t i = 0; i < r->attached_msg_count; i++) {
		struct mailmime *msg = r->attached_msgs[i]->mm_data.mm_message.mm_msg_mime;
		struct reader sub = {.limits = r->limits, .info = r->info,
				     .warning_cap = r->warning_cap};
		bool html = false;
		struct mailmime *part = pick_text(&sub, msg, 1, &html);
		if (!part && sub.attached_text) {
			part = sub.attached_text;
			html = false;
		}
		if (part) {
			struct mail_text_reading reading;
			part_text(&sub, part, html, &reading);
			take_reading(r->info, &reading, false);
			mail_text_reading_free(&reading);
		}
		for (size_t k = 0; k < sub.reparsed_count; k++)
			mailmime_free(sub.reparsed[k]);
		free(sub.reparsed);
		r->warning_cap = sub.warning_cap;
	}
}

static void read_body(struct reader *r)
{
	struct mail_info *info = r->info;
	struct mailmime *mime = NULL;
	size_t idx = 0;
	bool is_html = false;

	if (mailmime_parse(r->msg, r->msg_len, &idx, &mime) != MAILIMF_NO_ERROR || !mime) {
		info->refusal = xstrdup("no text part");
		return;
	}
	struct mailmime *part = pick_text(r, mime, 0, &is_html);
	if (!part && r->attached_text) {
		part = r->attached_text;
		warn(r, "text taken from an attached file");
	}
	if (!part)
		part = r->blank_text;

	if (part) {
		struct mail_text_reading reading;
		part_text(r, part, is_html && part != r->attached_text && part != r->blank_text,
			  &reading);
		take_reading(info, &reading, true);
		mail_text_reading_free(&reading);
		if (r->too_deep)
			warn(r, "parts nested too deeply were not read");
		if (r->unclosed_multipart || r->empty_multipart)
			warn(r, "multipart not closed: the message may be truncated");
	} else if (r->too_deep) {
		info->refusal = xstrdup("nested too deeply");
	} else if (r->encrypted) {
		info->refusal = xstrdup("encrypted message");
	} else if (r->empty_multipart) {
		info->refusal = xstrdup("truncated multipart");
	} else {
		info->refusal = xstrdup("no text part");
	}
	read_attached(r, mime);
	for (size_t i = 0; i < r->reparsed_count; i++)
		mailmime_free(r->reparsed[i]);
	free(r->reparsed);
	mailmime_free(mime);
}

/* A leading mbox "From " line is not a header. */
static size_t skip_mbox_line(const char *raw, size_t len)
{
	if (len < 5 || memcmp(raw, "From ", 5) != 0)
		return 0;
	return after_eol(raw, len, line_end(raw, len, 0));
}

enum header_line {
	HEADER_FIELD,    /* a field or a continuation */
	HEADER_GARBAGE,  /* dropped: an invalid name, or a wrap without its blank */
	HEADER_END,      /* not a header at all: the body starts here */
};

/* How a line of the header block reads. A field name is printable ASCII
 * without ':' (RFC 5322 2.2). A line without a colon is a long value that
 * lost its leading blank when it is a single word ("P8FxVk...GH0"), else
 * the body of a mail without the blank line ("This is a multi-part
 * message") or its first delimiter ("--boundary"). */
static enum header_line classify_header_line(const char *s, size_t line_len)
{
	if (line_len > 0 && (s[0] == ' ' || s[0] == '\t'))
		return HEADER_FIELD;
	const char *colon = memchr(s, ':', line_len);
	if (!colon) {
		if (line_len >= 2 && s[0] == '-' && s[1] == '-')
			return HEADER_END;
		for (size_t i = 0; i < line_len; i++)
			if (s[i] == ' ' || s[i] == '\t')
				return HEADER_END;
		return HEADER_GARBAGE;
	}
	if (colon == s)
		return HEADER_GARBAGE;
	for (const char *p = s; p < colon; p++)
		if ((unsigned char)*p < 33 || (unsigned char)*p > 126)
			return HEADER_GARBAGE;
	return HEADER_FIELD;
}

/* A copy of the message that libetpan reads as we do, or NULL when the
 * message needs no repair:
 * - bare CR line ends (old Macs) become CRLF: libetpan knows LF and CRLF;
 * - garbage lines of the header block (see classify_header_line) are
 *   dropped with their continuations: libetpan would end the header block
 *   there and read the rest of the headers (Content-Type,
 *   Content-Transfer-Encoding) as body.
 * A message whose first line is not a field has no header block. */
static char *repair_message(const char *s, size_t len, size_t *out_len)
{
	bool bare_cr = !memchr(s, '\n', len) && memchr(s, '\r', len);
	bool garbage = false;
	size_t p = 0;

	if (len > 0 && classify_header_line(s, line_end(s, len, 0)) == HEADER_FIELD) {
		while (p < len && !garbage) {
			size_t end = line_end(s, len, p);
			if (end == p)
				break;
			enum header_line kind = classify_header_line(s + p, end - p);
			if (kind == HEADER_END)
				break;
			garbage = kind == HEADER_GARBAGE;
			p = after_eol(s, len, end);
		}
	}
	if (!bare_cr && !garbage)
		return NULL;

	struct strbuf sb = {0};
	bool in_headers = garbage, keep = true;
	p = 0;
	while (p < len) {
		size_t end = line_end(s, len, p);
		size_t next = after_eol(s, len, end);
		if (in_headers) {
			enum header_line kind = end == p ? HEADER_END
							 : classify_header_line(s + p, end - p);
			if (kind == HEADER_END) {
				in_headers = false;
			} else {
				if (s[p] != ' ' && s[p] != '\t')
					keep = kind == HEADER_FIELD;
				if (!keep) {
					p = next;
					continue;
				}
			}
		}
		if (bare_cr) {
			strbuf_append(&sb, s + p, end - p);
			if (next > end)
				strbuf_puts(&sb, "\r\n");
		} else {
			strbuf_append(&sb, s + p, next - p);
		}
		p = next;
	}
	*out_len = sb.len;
	return sb.data ? strbuf_take(&sb) : xstrdup("");
}

int mail_read(const char *raw, size_t len, const struct mail_read_limits *limits,
	      struct mail_info *out)
{
	struct reader r = {0};
	char *copy = NULL;

	if (!out || (!raw && len > 0))
		return -1;
	memset(out, 0, sizeof(*out));
	r.info = out;
	r.limits.max_bytes = limits && limits->max_bytes ? limits->max_bytes
							   : MAIL_READ_DEFAULT_MAX_BYTES;
	r.limits.max_depth = limits && limits->max_depth > 0 ? limits->max_depth
							     : MAIL_READ_DEFAULT_MAX_DEPTH;
	r.limits.max_nesting = limits && limits->max_nesting > 0 ? limits->max_nesting
								 : MAIL_READ_DEFAULT_MAX_NESTING;
	r.limits.max_parts = limits && limits->max_parts > 0 ? limits->max_parts
							     : MAIL_READ_DEFAULT_MAX_PARTS;
	if (!raw)
		raw = "";

	const char *refusal = NULL;
	if (len > r.limits.max_bytes) {
		/* headers only, from the first max_bytes */
		size_t skip = skip_mbox_line(raw, r.limits.max_bytes);
		r.msg = raw + skip;
		r.msg_len = r.limits.max_bytes - skip;
		refusal = "message too large";
	} else {
		size_t skip = skip_mbox_line(raw, len);
		r.msg = raw + skip;
		r.msg_len = len - skip;
		copy = repair_message(r.msg, r.msg_len, &r.msg_len);
		if (copy)
			r.msg = copy;
	}
	struct mail_scan scan;
	mail_scan(r.msg, r.msg_len, r.limits.max_nesting, &scan);
	bool deep_comments = scan.comment_nesting > MAIL_READ_MAX_COMMENT_NESTING;
	if (!refusal && (scan.nesting > r.limits.max_nesting || deep_comments))
		refusal = "nested too deeply";
	else if (!refusal && scan.parts > (size_t)r.limits.max_parts)
		refusal = "too many MIME parts";
	if (refusal) {
		/* Unread, but answered: the sender comes from the top header
		 * block, with its comments blanked out when they nest too
		 * deeply for libetpan's address parser. */
		if (deep_comments) {
			char *defused = xmalloc(r.msg_len + 1);
			memcpy(defused, r.msg, r.msg_len);
			mail_scan_blank_comments(defused, r.msg_len);
			free(copy);
			copy = defused;
			r.msg = copy;
		}
		read_headers(&r, r.msg, r.msg_len);
		out->refusal = xstrdup(refusal);
	} else {
		read_headers(&r, r.msg, r.msg_len);
		read_body(&r);
	}
	free(copy);
	return 0;
}

void mail_info_free(struct mail_info *info)
{
	if (!info)
		return;
	free(info->message_id);
	free(info->from_addr);
	free(info->from_name);
	free(info->reply_to_addr);
	free(info->return_path);
	free(info->subject);
	free(info->in_reply_to);
	free(info->references);
	free(info->date);
	free(info->x_loop);
	free(info->text);
	free(info->refusal);
	for (size_t i = 0; i < info->earlier_count; i++)
		free(info->earlier[i]);
	free(info->earlier);
	for (size_t i = 0; i < info->warning_count; i++)
		free(info->warnings[i]);
	free(info->warnings);
	memset(info, 0, sizeof(*info));
}
