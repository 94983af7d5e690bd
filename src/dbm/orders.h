/* The order language: what players (and the organiser) write in a mail.
 * Lines are parsed into struct order, checked against the campaign model and
 * the rules' static limits, merged into the player's pending orders, and
 * turned into the data of the acknowledgement. Pure: no I/O, no clock.
 * The language is documented in doc/campaign-orders.7 (the reference) and
 * templates/help.mustache (the short form sent back by HELP).
 *
 * Secrets: the password of a PLAYER or ORGANISER line and the new password
 * of a PASSWORD line are kept only in order_set.password and order.secret.
 * Every text an order carries for echoing (text, understood, error, guess)
 * has them masked, and neither orders_ack_json nor orders_format_pending
 * ever writes them. */
#ifndef CAMPAIGN_ORDERS_H
#define CAMPAIGN_ORDERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"

#define ORDERS_MAX_STAGES 4          /* rules 2.1: the maximum move */
#define ORDERS_NORMAL_STAGES 2       /* rules 2.1: beyond this, forced march */
#define ORDERS_FORCED_MARCH_HALF_AP HALF_AP(40) /* per stage beyond the normal limit */
#define ORDERS_CONTINGENT_MAX_HALF_AP HALF_AP(80)
#define ORDERS_RECRUIT_HALF_AP_PER_PROVINCE HALF_AP(10)
/* A player's own password (PASSWORD line): long enough that guessing it
 * by mail (slowed down by the daemon) or from a stolen database (Argon2
 * hashes) is hopeless. */
#define ORDERS_PASSWORD_MIN 12
#define ORDERS_PASSWORD_MAX 128
#define ORDERS_LINE_MAX 1000         /* longer lines are refused, not cut */
#define ORDERS_ANY (-2)              /* "ANY" province / "ALL" players */

enum order_kind {
	ORDER_NONE,              /* not an order: ignored greeting or unknown line */
	/* authentication and requests (never kept as pending orders) */
	ORDER_PLAYER, ORDER_ORGANISER, ORDER_PASSWORD, ORDER_STATUS, ORDER_MAP,
	ORDER_HELP, ORDER_CLEAR, ORDER_CONFIRM, ORDER_END,
	ORDER_FORGOT_PASSWORD,   /* from the registered address, without PLAYER */
	ORDER_STAND_IN,          /* a stand-in named or ended (rulebook 1.1) */
	/* withdraws the standing CONTINGENT FROM a tributary (rules 3.2): it acts
	 * on the pending orders when merged and is not kept itself */
	ORDER_NO_CONTINGENT_FROM,
	/* the year's one movement option (rules 1.4) */
	ORDER_INVADE, ORDER_MOVE, ORDER_SEND_CONTINGENT, ORDER_NO_MOVE,
	/* a besieged field army gives battle to its besieger (rules 2.2) */
	ORDER_SALLY,
	/* allies solicited before committing the army (rules 2.2): the turn's
	 * first order, then INVADE (go on) or CALL OFF (the option stays open);
	 * both count as the movement order while they wait */
	ORDER_ASK_ALLIES, ORDER_CALL_OFF,
	/* standing choices */
	ORDER_RECALL_CONTINGENTS, ORDER_IF_INVADED, ORDER_IN_STORM,
	ORDER_ALLOW_PASSAGE, ORDER_DENY_PASSAGE, ORDER_ALLOW_SUPPLY, ORDER_DENY_SUPPLY,
	ORDER_ANSWER_ALLIES, ORDER_CONTINGENT_FOR, ORDER_LOSSES_FIRST, ORDER_RETREAT_PREFER,
	/* an overlord's call on a tributary for a contingent, or a tributary's
	 * on its own for a substitute (rules 3.2) */
	ORDER_CONTINGENT_FROM,
	/* recruitment (rules 3.1) */
	ORDER_RECRUIT, ORDER_DISMISS, ORDER_RETRIEVE_GENERAL,
	/* setting up by mail, before the campaign starts (rules 1.3) */
	ORDER_ARMY, ORDER_START_IN,
	/* changing your army: reserve troops for others of the list (3.1) */
	ORDER_EXCHANGE,
	/* alliances declared by mail (rules 1.4 Move, 2.3; rules_allied) */
	ORDER_ALLY_WITH, ORDER_END_ALLIANCE,
	/* tributaries, campaign end, leaving (rules 3.2) */
	ORDER_TRIBUTARY_OF, ORDER_ACCEPT_TRIBUTARY, ORDER_RENOUNCE, ORDER_VOTE, ORDER_LEAVE,
	/* battle result reports (rules 2.2.1; dbm-rules reading 13) */
	ORDER_BATTLE_AT, ORDER_BATTLE_WINNER, ORDER_BATTLE_CONCEDED, ORDER_BATTLE_WITHDRAWAL,
	ORDER_BATTLE_DEMORALISED, ORDER_BATTLE_DESTROYED, ORDER_BATTLE_FLED,
	ORDER_BATTLE_WITHDRAWN,
	/* the players' choices in the result (rules 2.2.1 routers rounded up or
	 * down per type; 2.3 a negotiated ally share); GENERAL KILLED stays last */
	ORDER_BATTLE_RETURNED, ORDER_BATTLE_SHARE,
	ORDER_BATTLE_GENERAL_KILLED,
	/* organiser orders: parsed here, acted on by the engine */
	ORDER_ORG_EXTEND, ORDER_ORG_PAUSE, ORDER_ORG_RESUME, ORDER_ORG_PROCESS,
	ORDER_ORG_PREVIEW, ORDER_ORG_COMMENT,
	ORDER_KIND_COUNT
};

enum order_status {
	ORDER_OK,
	ORDER_IGNORED, /* a line before the first order that is no order (greeting) */
	ORDER_ERROR,
};

/* IF INVADED, IN STORM, ANSWER ALLIES and VOTE choices. */
enum order_choice {
	CHOICE_NONE,
	CHOICE_BATTLE, CHOICE_SIEGE, CHOICE_RETREAT,   /* IF INVADED */
	CHOICE_CONTINUE, CHOICE_HALT, CHOICE_RETURN,   /* IN STORM; VOTE uses CONTINUE */
	CHOICE_YES, CHOICE_NO,                         /* ANSWER ALLIES */
	CHOICE_END,                                    /* VOTE END */
};

/* n elements of one line of an army list. */
struct order_item {
	int count;
	int type; /* index in the army list of the player the order is about */
};

struct order {
	enum order_kind kind;
	enum order_status status;
	int line;          /* 1-based line number in the mail (0: built, not parsed) */
	char *text;        /* the line as the player wrote it, secrets masked */
	char *understood;  /* canonical form (as orders_format_pending writes it), or NULL */
	char *error;       /* why the line was refused, or NULL */
	char *guess;       /* the line as we guess it was meant, or NULL */

	int province;      /* destination, IF INVADED province, BATTLE AT, ...; ORDERS_ANY */
	int target;        /* player argument (ally, tributary, battle side); ORDERS_ANY = ALL */
	int retreat_to;    /* IF INVADED ... RETREAT TO */
	int for_player;    /* CONTINGENT FROM ... FOR: the overlord a substitute is for */
	enum order_choice choice;
	int count;         /* RECRUIT/DISMISS/DESTROYED/FLED/WITHDRAWN n; EXTEND hours */
	int type;          /* element type: in the own list, or in target's for battle lines */
	struct order_item *items; /* SEND/CONTINGENT FOR elements; LOSSES FIRST, DEMORALISED labels */
	size_t item_count;
	int *via;          /* provinces named after VIA (or RETREAT PREFER list), in order;
			    * ASK ALLIES: the players asked */
	size_t via_count;
	char *arg;         /* LEAVE replacement address, PROCESS step, COMMENT text */
	bool confirmed;    /* LEAVE CAMPAIGN with CONFIRM in the same mail */
	char *secret;      /* PASSWORD: the new password. Never echoed. */

	/* Filled by route planning (INVADE, MOVE, SEND CONTINGENT). */
	int *route;        /* provinces from the army's location to the destination */
	size_t route_len;  /* stages = route_len - 1 */
	bool route_chosen; /* no VIA given: the shortest route was chosen for the player */
	int stages;
	int extra_stages;          /* stages beyond the normal limit */
	int forced_march_half_ap;  /* extra_stages x 40 AP */
	int sea_stages;
	int *hostile;      /* provinces passed through that need permission or force */
	size_t hostile_count;
	int battle;        /* battle lines: index of their BATTLE AT line in the set, or -1 */
};

struct order_set {
	struct order *orders;
	size_t count, cap;
	int player;        /* who the orders are from: PLAYER line or the caller; -1 unknown */
	bool organiser;    /* an ORGANISER line was given */
	char *password;    /* password of the PLAYER / ORGANISER line: for the engine to check */
	size_t errors;     /* orders with status ORDER_ERROR */
	bool cleared;      /* CLEAR was given */
	bool wants_status, wants_map, wants_help;
};

/* Parses every line of `text` (UTF-8) against campaign `c`, never stopping at
 * an error: each line becomes one order in `out` (blank and comment lines
 * none). `player` is the sender if already known, else -1: a PLAYER line
 * anywhere in the mail then names the player for the whole mail (a PLAYER
 * line naming someone else than a known `player` is an error). Lines before
 * the first line that starts with a keyword are ORDER_IGNORED unless they
 * look like a misspelt keyword; after it, a line that is no order is an
 * error. END stops reading (a signature may follow). Costs of moves are
 * computed here. `out` is initialised here; release with orders_set_free.
 * Returns the number of lines in error. Never fails on any input. */
size_t orders_parse(const char *text, const struct campaign *c, int player,
		    struct order_set *out);

/* The lines in error of `set` named by number for a sentence ("line 6",
 * "lines 3 and 6", at most five numbers then "and N more"), NULL when none
 * is; *count (if not NULL) gets how many there are. Caller frees. */
char *orders_error_lines_text(const struct order_set *set, size_t *count);

/* Checks the set's orders against the model and the rules' static limits
 * for `player` (-1: the organiser alone): the single movement option, legal
 * destinations and routes, at most 4 stages, contingents (<= 80 AP, with a
 * general, C-in-C stays, no forced march), recruitment (10 AP a province,
 * list maxima and minima, reserve), labels and counts, tributary relations,
 * CONFIRM for LEAVE, organiser-only orders. Orders found wrong become
 * ORDER_ERROR with a message; set->errors is updated. Returns set->errors. */
size_t orders_validate(struct order_set *set, const struct campaign *c, int player);

/* The army-list line holding the player's C-in-C: the first general line of
 * the army list with at least one element in the field army (DBM lists put
 * the C-in-C first), or -1 if the field army has no general. */
int orders_cinc_type(const struct player *p);

/* Applies a new mail's orders to the pending ones (the semantics stated by
 * orders_resubmission_rule): `result` is initialised here and receives deep
 * copies; `pending` and `incoming` are not changed. Only ORDER_OK orders of
 * kinds that are kept are used (not PLAYER, PASSWORD, requests, battle
 * reports or organiser orders: those act once, on receipt). */
void orders_merge(const struct order_set *pending, const struct order_set *incoming,
		  struct order_set *result);

/* The sentence the acknowledgement states about resubmission. Static. */
const char *orders_resubmission_rule(void);

/* The canonical text of the kept orders of `set`, one per line, in the
 * language itself: orders_parse of it gives the same orders back. Caller
 * frees. Never contains a password. */
char *orders_format_pending(const struct order_set *set, const struct campaign *c);

/* The canonical one-line form of one order (no newline), or NULL for lines
 * that are no order. Caller frees. */
char *orders_format_one(const struct order *o, const struct campaign *c, int player);

/* The data of the acknowledgement, for the reply template: every line of
 * the mail as understood (or its error and our guess), what each order will
 * cost, the complete current orders, the error count and the resubmission
 * sentence. Keys are listed in doc/campaign-orders.7. Never a password.
 * Returns a new reference. */
json_t *orders_ack_json(const struct order_set *mail_orders, const struct order_set *current,
			const struct campaign *c, int player);

/* The cost and consequence notes of one order ("forced march: 1 extra stage,
 * -40 AP"...), appended to json array `notes`. */
void orders_cost_notes(const struct order *o, const struct campaign *c, int player,
		       json_t *notes);

/* Setting up by mail (rules 1.3): the army and start of the player's
 * ARMY and START IN orders in `set` (counts: one slot per list line;
 * *has_army false and *start NO_INDEX when not given), and the data the
 * acknowledgement shows of it: the army as it stands with its total, what
 * is missing, whether the player is ready (keys in campaign-orders(7)).
 * NULL when the player does not set up by mail. */
void orders_setup_of(const struct order_set *set, const struct campaign *c, int player,
		     int *counts, bool *has_army, int *start);
json_t *orders_setup_json(const struct order_set *current, const struct campaign *c, int player);

/* Keyword of an order kind as written in the language ("SEND CONTINGENT"). */
const char *order_kind_keyword(enum order_kind kind);

/* True if orders of this kind are kept as pending orders between mails. */
bool order_kind_is_kept(enum order_kind kind);

/* True for the recruitment lines (RECRUIT, DISMISS, RETRIEVE GENERAL,
 * EXCHANGE), which replace an earlier recruitment as a whole (rules 3.1). */
bool orders_kind_is_recruitment(enum order_kind k);

/* The year's one movement option (rules 1.4). */
bool orders_kind_is_movement(enum order_kind k);

void orders_set_init(struct order_set *set);
/* Appends a zeroed order (indices -1) and returns it. */
struct order *orders_set_add(struct order_set *set);
/* Frees everything the set owns, wiping the secrets first. */
void orders_set_free(struct order_set *set);
void order_free(struct order *o);
/* Deep copy of an order. */
void order_copy(struct order *dst, const struct order *src);

/* STAND-IN's date: "2026-12-24", "24 December 2026", "24 Dec 2026",
 * "December 24, 2026" (English month names or their first three letters,
 * ordinal endings allowed: "24th"). True with *y, *m, *d set; else false
 * and *why (caller frees) says what is accepted. */
bool orders_date_parse(const char *text, int *y, int *m, int *d, char **why);
/* A plain mail address (local@domain.tld, the characters of a dot-atom):
 * nothing a mail header could be built from. */
bool orders_address_ok(const char *address);

#endif
