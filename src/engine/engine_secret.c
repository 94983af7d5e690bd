/* Secrets: the passwords we make, the forms a generated password is copied
 * in, and a Subject with every password masked (what a reply may quote). */
#include "config.h"

#include "engine/engine_p.h"
#include "base/util.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Generated passwords are 16 Crockford base32 characters in groups of four,
 * hashed as printed. Players copy them in all manner of ways: lower case,
 * without the dashes, with spaces, O for 0 and I or L for 1. NULL if `typed`
 * cannot be such a password. */
char *engine_password_form(const char *typed)
{
	char plain[17];
	size_t n = 0;
	for (const char *p = typed; *p; p++) {
		char ch = *p;
		if (ch == '-' || ch == ' ')
			continue;
		if (ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		if (ch == 'O')
			ch = '0';
		else if (ch == 'I' || ch == 'L')
			ch = '1';
		if (!((ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')) || ch == 'U' || n == 16)
			return NULL;
		plain[n++] = ch;
	}
	if (n != 16)
		return NULL;
	return xasprintf("%.4s-%.4s-%.4s-%.4s", plain, plain + 4, plain + 8, plain + 12);
}

#define SUBJECT_MASK "********"

/* Replaces each occurrence of `secret` (4 characters or more) in *s. */
static void mask_secret_in(char **s, const char *secret)
{
	if (!*s || !secret || strlen(secret) < 4 || !strcasestr(*s, secret))
		return;
	struct strbuf sb = {0};
	size_t len = strlen(secret);
	const char *at = *s, *hit;
	strbuf_puts(&sb, "");
	while ((hit = strcasestr(at, secret))) {
		strbuf_append(&sb, at, (size_t)(hit - at));
		strbuf_puts(&sb, SUBJECT_MASK);
		at = hit + len;
	}
	strbuf_puts(&sb, at);
	sodium_memzero(*s, strlen(*s));
	free(*s);
	*s = strbuf_take(&sb);
}

/* The Subject as a reply may quote it: the passwords of the mail's PLAYER,
 * ORGANISER and PASSWORD lines, and any word that has the shape of a
 * generated password, are masked. A player who put the password in the
 * Subject never sees it come back (nor does anyone reading along). */
char *engine_masked_subject(const char *subject, const struct order_set *set)
{
	if (!subject)
		return NULL;
	char *out = xstrdup(subject);
	if (set) {
		mask_secret_in(&out, set->password);
		for (size_t i = 0; i < set->count; i++)
			mask_secret_in(&out, set->orders[i].secret);
	}
	/* words (split at spaces) of the generated form, in any spelling */
	struct strbuf sb = {0};
	strbuf_puts(&sb, "");
	const char *at = out;
	while (*at) {
		size_t gap = strspn(at, " \t");
		strbuf_append(&sb, at, gap);
		at += gap;
		size_t n = strcspn(at, " \t");
		if (!n)
			break;
		char *word = xstrndup(at, n);
		/* trim punctuation a Subject puts around a word */
		char *w = word;
		size_t wl = n;
		while (wl && strchr("([<\"':,;.)]>", w[wl - 1]))
			w[--wl] = '\0';
		size_t lead = strspn(w, "([<\"'");
		char *canonical = engine_password_form(w + lead);
		if (canonical) {
			strbuf_append(&sb, at, lead);
			strbuf_puts(&sb, SUBJECT_MASK);
			strbuf_append(&sb, at + wl, n - wl);
		} else {
			strbuf_append(&sb, at, n);
		}
		free(canonical);
		sodium_memzero(word, n);
		free(word);
		at += n;
	}
	sodium_memzero(out, strlen(out));
	free(out);
	return strbuf_take(&sb);
}

void engine_generate_password(char out[ENGINE_PASSWORD_SIZE])
{
	static const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
	size_t n = 0;
	for (int i = 0; i < 16; i++) {
		if (i && i % 4 == 0)
			out[n++] = '-';
		out[n++] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	}
	out[n] = '\0';
}

/* An order a Subject of everyday words may hold ("help please", "preview
 * please", "status?"): a bare keyword, no secret. */
static bool everyday_word(const struct order *o)
{
	return !o->secret && (o->kind == ORDER_NONE || o->kind == ORDER_HELP ||
			      o->kind == ORDER_STATUS || o->kind == ORDER_MAP ||
			      o->kind == ORDER_ORG_PREVIEW);
}

bool engine_subject_is_phrase(const struct order_set *subject, const struct order_set *body)
{
	bool phrase = subject->password == NULL && !subject->organiser;
	for (size_t i = 0; i < subject->count; i++)
		phrase = phrase && everyday_word(&subject->orders[i]);
	bool body_orders = false;
	for (size_t i = 0; i < body->count; i++)
		body_orders = body_orders || body->orders[i].kind != ORDER_NONE;
	return phrase && body_orders;
}
