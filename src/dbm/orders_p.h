/* Private to the orders_*.c files: the parser's state and the helpers the
 * files of the order language share. Not a contract for anyone outside the
 * order language (orders.h is). Calls go one way: orders_parse uses
 * orders_format (each order's canonical form); orders_parse, orders_validate
 * and orders_format use orders_grammar, orders_route, orders_token and
 * orders_set; orders_grammar uses orders_route and orders_token;
 * orders_route uses orders_token; orders_token and orders_set use no other. */
#ifndef CAMPAIGN_ORDERS_P_H
#define CAMPAIGN_ORDERS_P_H

#include <stdbool.h>
#include <stddef.h>

#include "dbm/orders.h"
#include "base/util.h"

#define MASK "********"

struct tok {
	char *s;       /* the word, quotes removed */
	char *folded;  /* name_fold(s) */
	size_t off;    /* byte offset of the token (with its quote) in the line */
	size_t len;    /* byte length in the line */
	bool quoted;
	bool comma;    /* ',' or ';' */
};

struct name_table {
	const char **names; /* display names, borrowed from the model */
	char **folded;
	int *index;         /* what each name stands for (player keys and nations share one) */
	size_t n;
	int max_words;
};

struct parser {
	const struct campaign *c;
	struct order_set *set;
	int player;
	struct name_table provinces, players;
	struct name_table *labels; /* per player, built on first use */
	bool *labels_built;
	int battle;                /* index in set of the current BATTLE AT, or -1 */
	bool seen_order;           /* a line that starts with a keyword was seen */

	const char *line;          /* the current line, secrets masked */
	struct tok *toks;
	size_t ntok, tok_cap;
	size_t pos;                /* next token to read */
	size_t end;                /* tokens from `end` on are not read (PLAYER's password) */
	struct order *o;
};

/* ------------------------------------------------------ orders_token.c */

/* Splits a line into words, commas and "quoted names". A '#' that starts a
 * word starts a comment. */
void orders_tokenize(struct parser *p, const char *line);
void orders_toks_clear(struct parser *p);
/* Replaces bytes that are not valid UTF-8, and control characters, by '?'
 * so every text can go into JSON and a mail. Caller frees. */
char *orders_utf8_clean(const char *s, size_t n);

void orders_table_add(struct name_table *t, const char *name, int index);
void orders_table_free(struct name_table *t);
int orders_table_exact(const struct name_table *t, const char *folded);
/* Exact match, else the one thing of which `folded` is a prefix (at least 2
 * letters). *ambiguous is set when several things share the prefix. */
int orders_table_prefix(const struct name_table *t, const char *folded, bool *ambiguous);
/* The folded words of tokens [from, to), joined by spaces. Caller frees. */
char *orders_join_folded(const struct parser *p, size_t from, size_t to);

/* Marks the current order in error (the first error of a line is kept). */
void orders_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool orders_failed(const struct parser *p);
/* The line with tokens [from, to) replaced by `with`: our guess. */
void orders_guess(struct parser *p, size_t from, size_t to, const char *with);
/* A short quotation of the tokens [from, to) of the line for messages. */
char *orders_span_text(const struct parser *p, size_t from, size_t to);

bool orders_at_end(const struct parser *p);
bool orders_is_word_at(const struct parser *p, size_t i, const char *word);
bool orders_accept(struct parser *p, const char *word);
bool orders_accept_comma(struct parser *p);
void orders_expect_end(struct parser *p, const char *after);
bool orders_read_int(struct parser *p, const char *what, int min, int max, int *value);
/* True if token i is a whole number (not quoted). */
bool orders_is_number_at(const struct parser *p, size_t i);
/* Names at the current token (-1 and an error with a guess if unknown). */
int orders_match_province(struct parser *p, const char *const *stops);
int orders_match_player(struct parser *p, const char *const *stops, bool stop_at_number);
int orders_match_label(struct parser *p, int player, const char *const *stops);
void orders_push_item(struct order *o, int count, int type);
/* A list of provinces, commas optional, up to a stop word or the end. */
void orders_read_province_list(struct parser *p, const char *const *stops);
/* "<n> <label>" or "GENERAL <label>" items, commas optional. */
void orders_read_items(struct parser *p, int player, const char *const *stops);
int orders_require_player(struct parser *p);

/* Names for messages and the canonical form: "ALL" / "ANY" for ORDERS_ANY,
 * "?" for an index out of range. */
const char *orders_player_key(const struct campaign *c, int player);
/* The player's nation as players read it, for notes and errors. */
const char *orders_player_nation(const struct campaign *c, int player);
const char *orders_province_name(const struct campaign *c, int prov);

/* ------------------------------------------------------ orders_route.c */

/* Yours, your overlord's or a tributary's. */
bool orders_province_friendly(const struct campaign *c, int player, int prov);
/* Works out the route of a move from `start` to o->province through o->via
 * and what it costs. Returns an error message (caller frees) or NULL. */
char *orders_route_plan(const struct campaign *c, int player, int start, struct order *o);
/* Where the player's field army starts from; where the order goes (for
 * SEND CONTINGENT: the ally's field army). */
int orders_move_start(const struct campaign *c, int player);
int orders_route_dest_of(const struct campaign *c, const struct order *o);
/* Plans the route of the order being parsed; fails the line if none. */
void orders_plan_route(struct parser *p);

/* -------------------------------------------------- orders_stand_in.c */

/* STAND-IN <address> UNTIL <date> (arg: the address, then a space and the
 * name if one came before it; count: the date as yyyymmdd) or STAND-IN END
 * (choice CHOICE_END). In the organiser's mail the player comes first
 * (target). */
void orders_parse_stand_in(struct parser *p);
/* The canonical form after the keyword (" jean@example.org UNTIL 2026-12-24"). */
void orders_format_stand_in(struct strbuf *sb, const struct order *o, const struct campaign *c);

/* ---------------------------------------------------- orders_grammar.c */

enum keyword_flags {
	KW_SECRET = 1,  /* the last word is a secret: masked in every echo */
};

struct keyword {
	const char *phrase;
	enum order_kind kind;
	void (*parse)(struct parser *p);
	unsigned flags;
};

/* Number of tokens the phrase takes at the start of the line, or 0. */
size_t orders_phrase_match(const struct parser *p, const char *phrase);
/* The longest keyword phrase the line starts with (*words: its tokens), or
 * NULL. */
const struct keyword *orders_keyword_find(const struct parser *p, size_t *words);
/* The keyword phrase the first word nearly spells, or NULL. */
const char *orders_keyword_near_miss(const struct parser *p);

/* -------------------------------------------------------- orders_set.c */

/* Replaces every occurrence of `secret` in the set's texts by the mask. */
void orders_mask_everywhere(struct order_set *set, const char *secret);

/* orders_minimums.c: when the mail changes the recruitment (or sends NO
 * MOVE in the recruitment phase), the list minimums the recruitment as it
 * stands in `current` leaves unfilled, counted by carrying it out
 * (rules_recruit_orders) on a copy of the campaign: {"lines": [{"label",
 * "list_min", "in_army", "short", "from_reserve", "cost_ap", "left_ap",
 * "most_now", and one of "none_in_reserve", "may_add_now", "some_now",
 * "next_recruitment"}], "has_refused", "refused": [{"order", "reason"}],
 * "binding", "as_army_stands"}; NULL when none is left short. The ack
 * template words it. */
json_t *orders_minimums_json(const struct order_set *mail_orders, const struct order_set *current,
			     const struct campaign *c, int player);

#endif
