/* orders_parse: a mail read line by line (the sender found first, lines
 * cut by a client's wrap joined again, greetings and signatures left
 * alone), then secrets masked and the canonical form of each order noted. */
#include "config.h"

#include "dbm/orders_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- parse */

/* Finds who sent the mail before reading the orders, so element names can
 * be resolved on lines above the PLAYER line too. */
static void find_sender(struct parser *p, const char *text)
{
	const char *s = text;
	while (*s && p->player < 0) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (len <= ORDERS_LINE_MAX) {
			char *line = orders_utf8_clean(s, len);
			orders_tokenize(p, line);
			if (p->ntok >= 3 && orders_phrase_match(p, "PLAYER")) {
				int idx;
				char *f = orders_join_folded(p, 1, p->ntok - 1);
				idx = orders_table_exact(&p->players, f);
				if (idx < 0) {
					bool amb;
					idx = orders_table_prefix(&p->players, f, &amb);
				}
				free(f);
				if (idx >= 0)
					p->player = idx;
			}
			orders_toks_clear(p);
			free(line);
		}
		s = nl ? nl + 1 : s + len;
	}
}

static void parse_line(struct parser *p, char *line, int lineno)
{
	orders_tokenize(p, line);
	if (p->ntok == 0)
		return; /* blank or comment */
	size_t words;
	const struct keyword *kw = orders_keyword_find(p, &words);
	struct order *o = orders_set_add(p->set);
	p->o = o;
	o->line = lineno;
	if (kw && (kw->flags & KW_SECRET) && p->ntok > words) {
		/* mask the last word, the secret, in everything echoed */
		struct tok *t = &p->toks[p->ntok - 1];
		char *masked = xasprintf("%.*s%s%s", (int)t->off, line, MASK, line + t->off + t->len);
		o->text = masked;
	} else {
		o->text = xstrdup(line);
	}
	p->line = o->text;
	if (!kw) {
		const char *near = orders_keyword_near_miss(p);
		char *first = orders_span_text(p, 0, 1);
		o->kind = ORDER_NONE;
		if (near) {
			o->status = ORDER_ERROR;
			o->error = xasprintf("\"%s\" is not an order (did you mean %s?)", first, near);
			orders_guess(p, 0, 1, near);
		} else if (!p->seen_order) {
			o->status = ORDER_IGNORED;
		} else {
			o->status = ORDER_ERROR;
			o->error = xasprintf("\"%s\" is not an order (HELP lists them)", first);
		}
		free(first);
		return;
	}
	p->seen_order = true;
	o->kind = kw->kind;
	o->status = ORDER_OK;
	p->pos = words;
	kw->parse(p);
	if (o->status == ORDER_OK && o->kind == ORDER_PLAYER)
		p->player = p->set->player;
}

/* True if the line may continue the order on the line before it: it is
 * not blank, not a comment and does not start with a keyword (nor nearly
 * spell one). */
static bool is_continuation(struct parser *p, const char *line)
{
	orders_tokenize(p, line);
	size_t words;
	bool cont = p->ntok > 0 && !orders_keyword_find(p, &words) && !orders_keyword_near_miss(p);
	orders_toks_clear(p);
	return cont;
}

/* Drop the order parse_line just added, to parse its line again. */
static void pop_order(struct parser *p)
{
	order_free(&p->set->orders[--p->set->count]);
	p->o = NULL;
}

/* Clients that wrap long lines (Outlook's plain text at 76 columns, any
 * client sending without format=flowed) cut an order in two: "SEND
 * CONTINGENT ... WITH 4" then "Archers, ...". When an order line is in
 * error or ends with a comma, and the next line starts with no keyword, the
 * two are read as one line; if that reads without error it is the order,
 * else both lines are read alone as before. Lines carrying a secret are
 * never joined.
 * Returns the number of extra lines consumed (0 or 1). */
static int parse_line_wrapped(struct parser *p, char *line, int lineno, const char *next,
			      size_t next_len)
{
	bool seen = p->seen_order;
	parse_line(p, line, lineno);
	struct order *o = p->set->count ? &p->set->orders[p->set->count - 1] : NULL;
	size_t line_len = strlen(line);
	bool cut_list = line_len > 0 && line[line_len - 1] == ',';
	if (!o || o->line != lineno || o->kind == ORDER_NONE ||
	    (o->status != ORDER_ERROR && !cut_list) || o->kind == ORDER_PASSWORD ||
	    !next || next_len == 0 || line_len + 1 + next_len > ORDERS_LINE_MAX)
		return 0;
	char *cont = orders_utf8_clean(next, next_len);
	str_trim(cont);
	int used = 0;
	if ((o->kind == ORDER_PLAYER || o->kind == ORDER_ORGANISER) && is_continuation(p, cont)) {
		/* A PLAYER line the client wrapped: the password went to the
		 * next line. Joined first, then masked like any PLAYER line,
		 * even when the joined line is still wrong (never echoed). */
		orders_tokenize(p, cont);
		bool one_word = p->ntok == 1;
		orders_toks_clear(p);
		if (one_word) {
			char *joined = xasprintf("%s %s", line, cont);
			pop_order(p);
			p->seen_order = seen;
			parse_line(p, joined, lineno);
			free(joined);
			used = 1;
		}
	} else if (o->kind != ORDER_PLAYER && o->kind != ORDER_ORGANISER &&
		   is_continuation(p, cont)) {
		char *joined = xasprintf("%s %s", line, cont);
		pop_order(p);
		p->seen_order = seen;
		parse_line(p, joined, lineno);
		if (p->set->orders[p->set->count - 1].status == ORDER_OK) {
			used = 1;
		} else {
			pop_order(p);
			p->seen_order = seen;
			parse_line(p, line, lineno);
		}
		free(joined);
	}
	free(cont);
	return used;
}

static void names_build(struct parser *p)
{
	const struct campaign *c = p->c;
	for (size_t i = 0; i < c->province_count; i++)
		orders_table_add(&p->provinces, c->provinces[i].name, (int)i);
	for (size_t i = 0; i < c->player_count; i++) {
		orders_table_add(&p->players, c->players[i].key, (int)i);
		if (c->players[i].nation && !name_equal(c->players[i].nation, c->players[i].key))
			orders_table_add(&p->players, c->players[i].nation, (int)i);
	}
	p->labels = xcalloc(c->player_count + 1, sizeof *p->labels);
	p->labels_built = xcalloc(c->player_count + 1, sizeof *p->labels_built);
}

static void names_free(struct parser *p)
{
	orders_table_free(&p->provinces);
	orders_table_free(&p->players);
	for (size_t i = 0; i < p->c->player_count; i++)
		orders_table_free(&p->labels[i]);
	free(p->labels);
	free(p->labels_built);
}

size_t orders_parse(const char *text, const struct campaign *c, int player, struct order_set *out)
{
	struct parser p = {0};
	orders_set_init(out);
	p.c = c;
	p.set = out;
	p.battle = -1;
	if (player >= 0 && (size_t)player >= c->player_count)
		player = -1;
	p.player = player;
	out->player = player;
	names_build(&p);
	if (p.player < 0)
		find_sender(&p, text ? text : "");
	const char *s = text ? text : "";
	int lineno = 0;
	bool stop = false;
	while (*s && !stop) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		lineno++;
		if (len > ORDERS_LINE_MAX) {
			struct order *o = orders_set_add(out);
			char *head = orders_utf8_clean(s, 60);
			o->line = lineno;
			o->status = ORDER_ERROR;
			o->text = xasprintf("%s...", head);
			o->error = xasprintf("line too long (%zu bytes; at most %d)", len,
					     ORDERS_LINE_MAX);
			free(head);
		} else {
			char *line = orders_utf8_clean(s, len);
			str_trim(line);
			const char *next = nl ? nl + 1 : NULL;
			size_t next_len = next ? strcspn(next, "\n") : 0;
			int extra = parse_line_wrapped(&p, line, lineno, next, next_len);
			free(line);
			if (out->count && out->orders[out->count - 1].kind == ORDER_END &&
			    out->orders[out->count - 1].line == lineno)
				stop = true;
			if (extra) {
				lineno++;
				s = next + next_len;
				nl = *s == '\n' ? s : NULL;
				len = 0;
			}
		}
		s = nl ? nl + 1 : s + len;
	}
	orders_toks_clear(&p);
	free(p.toks);
	names_free(&p);

	/* A closing greeting ("Regards, John") after the last order is no more
	 * an error than the greeting before the first: lines at the end that are
	 * no order and no near miss of one are ignored, and shown as such. */
	for (size_t i = out->count; i-- > 0;) {
		struct order *o = &out->orders[i];
		if (o->kind != ORDER_NONE || o->status != ORDER_ERROR || o->guess ||
		    o->line == 0 || !o->error || !strstr(o->error, "is not an order (HELP"))
			break;
		o->status = ORDER_IGNORED;
		free(o->error);
		o->error = NULL;
	}

	bool confirm = false;
	for (size_t i = 0; i < out->count; i++) {
		struct order *o = &out->orders[i];
		if (o->status != ORDER_OK)
			continue;
		if (o->kind == ORDER_CONFIRM)
			confirm = true;
		out->cleared |= o->kind == ORDER_CLEAR;
		out->wants_status |= o->kind == ORDER_STATUS;
		out->wants_map |= o->kind == ORDER_MAP;
		out->wants_help |= o->kind == ORDER_HELP;
	}
	for (size_t i = 0; i < out->count; i++) {
		struct order *o = &out->orders[i];
		if (o->kind == ORDER_LEAVE && confirm)
			o->confirmed = true;
		if (o->status == ORDER_OK)
			o->understood = orders_format_one(o, c, out->player);
	}
	orders_mask_everywhere(out, out->password);
	for (size_t i = 0; i < out->count; i++)
		if (out->orders[i].secret)
			orders_mask_everywhere(out, out->orders[i].secret);
	out->errors = 0;
	for (size_t i = 0; i < out->count; i++)
		out->errors += out->orders[i].status == ORDER_ERROR;
	return out->errors;
}
