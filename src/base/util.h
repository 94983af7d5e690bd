/* Small helpers shared by every layer: allocation that never returns NULL,
 * a growable string buffer, and forgiving name matching. No I/O. */
#ifndef CAMPAIGN_UTIL_H
#define CAMPAIGN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Allocation failure is fatal: the process prints a message and aborts. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow a dynamic array *items of *count elements of size `size` so that it
 * holds at least `need` elements; *cap tracks the allocation. */
void grow_array(void **items, size_t *cap, size_t need, size_t size);

/* A growable NUL-terminated byte buffer. A zeroed struct is an empty buffer. */
struct strbuf {
	char *data; /* always NUL-terminated once anything was appended */
	size_t len;
	size_t cap;
};
void strbuf_append(struct strbuf *sb, const char *s, size_t n);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_putc(struct strbuf *sb, char c);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Returns the buffer's string (never NULL) and leaves sb empty; caller frees. */
char *strbuf_take(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);

/* Names as players type them: lowercase ASCII, Latin-1 accents folded
 * ("Genève" -> "geneve"), decomposed accents too (combining marks U+0300 to
 * U+036F are dropped: "Ge" U+0300 "neve" -> "geneve"), typographic
 * apostrophes U+2018/U+2019 read as "'", every dash and hyphen (U+2010 to
 * U+2015, U+2212, the soft hyphen U+00AD, U+FE63, U+FF0D) read as '-', runs
 * of spaces, '_' and '-' collapsed to one space, leading/trailing space dropped. Input is UTF-8.
 * Caller frees. */
char *name_fold(const char *utf8);
/* True if a and b are the same name after name_fold. */
bool name_equal(const char *a, const char *b);
/* The width of UTF-8 text on a terminal: its characters, not its bytes
 * ("Île-de-France" is 13); NULL is 0. */
size_t utf8_columns(const char *s);
/* A yes-or-no word of a configuration or campaign file: yes, true, on or 1;
 * no, false, off or 0 (any case). False if s is none of them. */
bool str_parse_bool(const char *s, bool *out);
/* Edit distance between two strings (bytes), capped at `limit`+1. */
size_t edit_distance(const char *a, const char *b, size_t limit);

/* Forgiving lookup of `query` among `n` candidate names.
 * Returns the index of the exact (folded) match, else of the only candidate
 * of which the query is a prefix, else -1. If -1 and `suggestion` is not
 * NULL, *suggestion is set to the index of the closest candidate when it is
 * close enough to be offered as "did you mean", else -1. */
int name_lookup(const char *query, const char *const *names, size_t n, int *suggestion);

/* Trim ASCII whitespace at both ends in place; returns s. */
char *str_trim(char *s);

/* Why `s` is not a bare mail address we can use (name@domain.tld, no
 * display name, no brackets), as a phrase ("has no '@'"), or NULL if it is
 * one. Deliberately plain: what organisers type, not all of RFC 5322. */
const char *address_problem(const char *s);
bool str_starts_with_ci(const char *s, const char *prefix);

/* "" for 1, else "s": "2 stages", "1 stage" (English plurals in mail text). */
const char *plural_s(long long n);

/* Army points are counted in halves (DBM has 3.5 AP elements).
 * half_ap_format writes "480", "3.5" into buf (at least 16 bytes). */
const char *half_ap_format(int half_ap, char *buf);
/* Parses "12", "3.5", "0.5" into halves; false on anything else. */
bool half_ap_parse(const char *s, int *half_ap);

#endif
