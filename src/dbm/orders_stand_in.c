/* STAND-IN: a player names someone to give his orders while he is away
 * (rulebook 1.1), or ends it. The line is read here: the address (with an
 * optional name before it, as mail clients write "Name <address>") and the
 * date; whether the date lies ahead, and the rest, the engine decides. */
#include "config.h"

#include "dbm/orders_p.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STAND_IN_NAME_MAX 60

static const char *const month_names[12] = {
	"january", "february", "march",     "april",   "may",      "june",
	"july",    "august",   "september", "october", "november", "december",
};

static int days_in_month(int y, int m)
{
	static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : days[m - 1];
}

/* A month's English name or its first three letters or more; 0 if none. */
static int month_of(const char *w)
{
	size_t n = strlen(w);
	if (n > 0 && w[n - 1] == '.')
		n--;
	if (n < 3)
		return 0;
	for (int i = 0; i < 12; i++)
		if (n <= strlen(month_names[i]) && strncasecmp(w, month_names[i], n) == 0)
			return i + 1;
	return 0;
}

/* A whole number of at most `digits` digits, optionally followed by one of
 * the English ordinal endings when `ordinal`. */
static bool number_of(const char *w, size_t digits, bool ordinal, int *v)
{
	size_t n = 0;
	int x = 0;
	while (isdigit((unsigned char)w[n]) && n < digits)
		x = x * 10 + (w[n++] - '0');
	if (n == 0)
		return false;
	const char *rest = w + n;
	if (*rest && !(ordinal && (strcasecmp(rest, "st") == 0 || strcasecmp(rest, "nd") == 0 ||
				   strcasecmp(rest, "rd") == 0 || strcasecmp(rest, "th") == 0)))
		return false;
	*v = x;
	return true;
}

#define DATE_FORMS "2026-12-24, 24 December 2026 or December 24, 2026"

bool orders_date_parse(const char *text, int *y, int *m, int *d, char **why)
{
	*why = NULL;
	*y = *m = *d = 0;
	char *copy = xstrdup(text ? text : "");
	char *words[4];
	size_t n = 0;
	for (char *save = NULL, *w = strtok_r(copy, " \t,", &save); w;
	     w = strtok_r(NULL, " \t,", &save)) {
		if (n == 4) {
			n++;
			break;
		}
		words[n++] = w;
	}
	bool ok = false;
	int yy = 0, mm = 0, dd = 0;
	if (n == 1 && strlen(words[0]) == 10 && words[0][4] == '-' && words[0][7] == '-') {
		char a[5], b[3], c[3];
		memcpy(a, words[0], 4), a[4] = '\0';
		memcpy(b, words[0] + 5, 2), b[2] = '\0';
		memcpy(c, words[0] + 8, 2), c[2] = '\0';
		ok = number_of(a, 4, false, &yy) && number_of(b, 2, false, &mm) &&
		     number_of(c, 2, false, &dd);
	} else if (n == 3 && (mm = month_of(words[1])) != 0) {
		ok = number_of(words[0], 2, true, &dd) && number_of(words[2], 4, false, &yy);
	} else if (n == 3 && (mm = month_of(words[0])) != 0) {
		ok = number_of(words[1], 2, true, &dd) && number_of(words[2], 4, false, &yy);
	} else if (n == 1 && strchr(words[0], '/')) {
		*why = xstrdup("a date with slashes reads differently from country to country: "
			       "write it as " DATE_FORMS);
	}
	if (!ok && !*why)
		*why = xasprintf("\"%s\" is not a date: write it as " DATE_FORMS,
				 text && strlen(text) <= 40 ? text : "(this)");
	else if (ok && (yy < 2000 || yy > 2999 || mm < 1 || mm > 12 || dd < 1 ||
			dd > days_in_month(yy, mm))) {
		*why = xasprintf("there is no day %d-%02d-%02d: write the date as " DATE_FORMS,
				 yy, mm, dd);
		ok = false;
	}
	free(copy);
	if (ok) {
		*y = yy;
		*m = mm;
		*d = dd;
	}
	return ok;
}

/* A plain mail address, local@domain.example, nothing a header could be
 * made of: the characters RFC 5322 allows in a dot-atom, one '@', a domain
 * of letters, digits and hyphens with at least one dot. */
bool orders_address_ok(const char *a)
{
	const char *at = a ? strchr(a, '@') : NULL;
	size_t len = a ? strlen(a) : 0;
	if (!at || at == a || (size_t)(at - a) > 64 || len > 254 || strchr(at + 1, '@'))
		return false;
	for (const char *p = a; p < at; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".!#$%&'*+/=?^_`{|}~-", *p))
			return false;
	if (a[0] == '.' || at[-1] == '.' || strstr(a, ".."))
		return false;
	const char *dom = at + 1;
	if (!*dom || !strchr(dom, '.') || dom[0] == '.' || dom[0] == '-' || a[len - 1] == '.' ||
	    a[len - 1] == '-' || strstr(dom, ".."))
		return false;
	for (const char *p = dom; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
			return false;
	return true;
}

/* The name before the address: printable, no characters of an address or
 * a header's syntax, at most STAND_IN_NAME_MAX bytes. */
static bool name_ok(const char *s)
{
	if (!*s || strlen(s) > STAND_IN_NAME_MAX)
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || strchr("<>\"@,;:\\()[]", *p))
			return false;
	return true;
}

void orders_parse_stand_in(struct parser *p)
{
	/* the organiser's: the player first (STAND-IN burgundy ...) */
	bool organiser = p->player < 0 && p->set->organiser;
	if (organiser) {
		static const char *const stops[] = {"END", "UNTIL", NULL};
		p->o->target = orders_match_player(p, stops, false);
		if (orders_failed(p))
			return;
	}
	if (orders_accept(p, "END")) {
		p->o->choice = CHOICE_END;
		orders_expect_end(p, "STAND-IN END");
		if (!organiser)
			orders_require_player(p);
		return;
	}
	const char *usage = organiser ? "write STAND-IN <player> <mail address> UNTIL <date>, or "
					"STAND-IN <player> END"
				      : "write STAND-IN <mail address> UNTIL <date> (e.g. STAND-IN "
					"jean@example.org UNTIL 2026-12-24), or STAND-IN END";
	size_t until = p->pos;
	while (until < p->end && !orders_is_word_at(p, until, "UNTIL"))
		until++;
	if (until == p->pos || until >= p->end) {
		orders_fail(p, "%s", usage);
		return;
	}
	/* the address is the last word before UNTIL, "<...>" or bare */
	const char *last = p->toks[until - 1].s;
	size_t alen = strlen(last);
	char *addr = alen >= 2 && last[0] == '<' && last[alen - 1] == '>'
			     ? xstrndup(last + 1, alen - 2)
			     : xstrdup(last);
	if (!orders_address_ok(addr)) {
		char *shown = orders_span_text(p, until - 1, until);
		orders_fail(p, "\"%s\" is not a plain mail address: %s", shown, usage);
		free(shown);
		free(addr);
		return;
	}
	struct strbuf name = {0};
	strbuf_puts(&name, "");
	for (size_t i = p->pos; i + 1 < until; i++) {
		if (p->toks[i].comma)
			continue;
		if (name.len)
			strbuf_putc(&name, ' ');
		strbuf_puts(&name, p->toks[i].s);
	}
	char *nm = strbuf_take(&name);
	if (*nm && !name_ok(nm)) {
		orders_fail(p, "the stand-in's name before the address is at most %d characters, "
			       "without <>\"@,;:\\()[]: %s",
			    STAND_IN_NAME_MAX, usage);
		free(nm);
		free(addr);
		return;
	}
	struct strbuf words = {0};
	strbuf_puts(&words, "");
	for (size_t i = until + 1; i < p->end; i++) {
		strbuf_puts(&words, p->toks[i].s);
		strbuf_putc(&words, ' ');
	}
	char *date = strbuf_take(&words);
	char *why = NULL;
	int y, m, d;
	if (!orders_date_parse(date, &y, &m, &d, &why)) {
		orders_fail(p, "%s", why);
	} else {
		p->o->arg = *nm ? xasprintf("%s %s", addr, nm) : xstrdup(addr);
		p->o->count = y * 10000 + m * 100 + d;
		p->pos = p->end;
		if (!organiser)
			orders_require_player(p);
	}
	free(why);
	free(date);
	free(nm);
	free(addr);
}

void orders_format_stand_in(struct strbuf *sb, const struct order *o, const struct campaign *c)
{
	if (o->target >= 0)
		strbuf_printf(sb, " %s", orders_player_key(c, o->target));
	if (o->choice == CHOICE_END) {
		strbuf_puts(sb, " END");
		return;
	}
	const char *arg = o->arg ? o->arg : "";
	const char *sp = strchr(arg, ' ');
	if (sp)
		strbuf_printf(sb, " %s <%.*s>", sp + 1, (int)(sp - arg), arg);
	else
		strbuf_printf(sb, " %s", arg);
	strbuf_printf(sb, " UNTIL %04d-%02d-%02d", o->count / 10000, o->count / 100 % 100,
		      o->count % 100);
}
