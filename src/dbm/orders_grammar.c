/* The grammar: one parser for each family of orders, and the table of
 * keywords that leads a line to its parser. */
#include "config.h"

#include "dbm/orders_p.h"
#include "base/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------- order parsers */

/* A PLAYER line without its password. The echo of the line masks its last
 * word, so the answer says in words what is missing and what the line looks
 * like; it repeats no word of the line, but names the nation when the words
 * are exactly one's name (a name is no secret). */
static void player_no_password(struct parser *p, int who)
{
	if (who >= 0)
		orders_fail(p, "the password is missing (only your name follows PLAYER): write "
			    "PLAYER %s <your password> on one line",
			    orders_player_nation(p->c, who));
	else
		orders_fail(p, "the password is missing: write PLAYER <your nation> <your "
			    "password> on one line");
}

static void parse_player(struct parser *p)
{
	if (p->end == p->pos) {
		player_no_password(p, -1);
		return;
	}
	if (p->end - p->pos < 2) {
		/* one word: the name alone, or the password alone (not repeated) */
		char *word = orders_join_folded(p, p->pos, p->end);
		int who = orders_table_exact(&p->players, word);
		free(word);
		if (who >= 0)
			player_no_password(p, who);
		else
			orders_fail(p, "your nation or your password is missing (the word after "
				    "PLAYER is not shown, in case it is the password): write PLAYER "
				    "<your nation> <your password> on one line");
		return;
	}
	p->end--; /* the last word is the password */
	size_t name_at = p->pos;
	int who = orders_match_player(p, NULL, false);
	orders_expect_end(p, "the player name");
	p->end++;
	if (orders_failed(p))
		return;
	/* "PLAYER Duchy of Burgundy" and the password on the next line (a
	 * client wrapped it): the last word ends the name, it is no password */
	char *whole = orders_join_folded(p, name_at, p->end);
	int name_only = orders_table_exact(&p->players, whole);
	free(whole);
	if (name_only >= 0) {
		player_no_password(p, name_only);
		return;
	}
	if (p->set->player >= 0 && who != p->set->player) {
		orders_fail(p, "this mail is already from %s",
			    orders_player_nation(p->c, p->set->player));
		return;
	}
	p->o->target = who;
	if (!p->set->password)
		p->set->password = xstrdup(p->toks[p->end - 1].s);
	p->set->player = who;
}

static void parse_organiser(struct parser *p)
{
	if (p->end - p->pos != 1) {
		orders_fail(p, "write ORGANISER <password>");
		return;
	}
	p->set->organiser = true;
	free(p->set->password);
	p->set->password = xstrdup(p->toks[p->pos].s);
	p->pos++;
}

static void parse_password(struct parser *p)
{
	if (p->end - p->pos != 1) {
		orders_fail(p, "write PASSWORD <new password> (one word, at least %d characters)",
		     ORDERS_PASSWORD_MIN);
		return;
	}
	const char *pw = p->toks[p->pos].s;
	size_t len = strlen(pw);
	if (len < ORDERS_PASSWORD_MIN) {
		orders_fail(p, "a password needs at least %d characters (this one has %zu): a "
			       "shorter one could be guessed; the password was not changed",
			    ORDERS_PASSWORD_MIN, len);
		return;
	}
	if (len > ORDERS_PASSWORD_MAX) {
		orders_fail(p, "a password has at most %d characters; the password was not changed",
			    ORDERS_PASSWORD_MAX);
		return;
	}
	p->o->secret = xstrdup(pw);
	p->pos++;
}

static void parse_nothing(struct parser *p)
{
	orders_expect_end(p, order_kind_keyword(p->o->kind));
}

static void parse_leave(struct parser *p)
{
	if (orders_accept(p, "REPLACEMENT")) {
		if (orders_at_end(p)) {
			orders_fail(p, "REPLACEMENT needs the new player's mail address");
			return;
		}
		const char *addr = p->toks[p->pos].s;
		const char *at = strchr(addr, '@');
		if (!at || at == addr || !at[1] || strlen(addr) > 254 || strchr(at + 1, '@')) {
			orders_fail(p, "\"%s\" is not a mail address", addr);
			return;
		}
		p->o->arg = xstrdup(addr);
		p->pos++;
	}
	if (orders_accept(p, "CONFIRM"))
		p->o->confirmed = true;
	orders_expect_end(p, "LEAVE CAMPAIGN");
}

static void parse_move(struct parser *p)
{
	static const char *const stops[] = {"VIA", NULL};
	p->o->province = orders_match_province(p, stops);
	if (orders_accept(p, "VIA")) {
		static const char *const none[] = {NULL};
		orders_read_province_list(p, none);
		if (!orders_failed(p) && p->o->via_count == 0)
			orders_fail(p, "VIA needs the provinces on the way");
	}
	orders_expect_end(p, "the route");
	orders_require_player(p);
	orders_plan_route(p);
}

/* ASK ALLIES <player>, ... FOR INVADE <province> (rules 2.2): the players
 * asked are kept in o->via. */
static void parse_ask_allies(struct parser *p)
{
	static const char *const stops[] = {"FOR", NULL};
	orders_require_player(p);
	while (!orders_failed(p) && !orders_at_end(p) && !orders_is_word_at(p, p->pos, "FOR")) {
		int q = orders_match_player(p, stops, false);
		if (q < 0)
			break;
		if (p->o->via_count >= 64) {
			orders_fail(p, "ask at most 64 players");
			return;
		}
		p->o->via = xrealloc(p->o->via, (p->o->via_count + 1) * sizeof *p->o->via);
		p->o->via[p->o->via_count++] = q;
		orders_accept_comma(p);
	}
	if (orders_failed(p))
		return;
	if (p->o->via_count == 0 || !orders_accept(p, "FOR") || !orders_accept(p, "INVADE")) {
		orders_fail(p, "write ASK ALLIES <player>, ... FOR INVADE <province>");
		return;
	}
	p->o->province = orders_match_province(p, NULL);
	orders_expect_end(p, "the province");
}

static void parse_send(struct parser *p)
{
	static const char *const stops[] = {"VIA", "WITH", "GENERAL", NULL};
	orders_accept(p, "TO");
	int player = orders_require_player(p);
	p->o->target = orders_match_player(p, stops, false);
	while (!orders_failed(p) && !orders_at_end(p)) {
		if (orders_accept(p, "VIA")) {
			static const char *const via_stops[] = {"WITH", "GENERAL", NULL};
			orders_read_province_list(p, via_stops);
		} else if (orders_accept(p, "WITH") || orders_is_word_at(p, p->pos, "GENERAL")) {
			static const char *const item_stops[] = {"VIA", NULL};
			orders_read_items(p, player, item_stops);
		} else {
			orders_expect_end(p, "the contingent");
		}
	}
	if (!orders_failed(p) && p->o->item_count == 0)
		orders_fail(p, "say what the contingent is: WITH <n> <element>, ... (and a general)");
	orders_plan_route(p);
}

static void parse_contingent_for(struct parser *p)
{
	static const char *const stops[] = {"WITH", "GENERAL", NULL};
	int player = orders_require_player(p);
	p->o->target = orders_match_player(p, stops, false);
	if (!orders_accept(p, "WITH") && !orders_is_word_at(p, p->pos, "GENERAL") && !orders_failed(p)) {
		orders_fail(p, "write CONTINGENT FOR <player> WITH <n> <element>, ...");
		return;
	}
	orders_read_items(p, player, NULL);
	orders_expect_end(p, "the contingent");
}

/* CONTINGENT FROM <tributary> [FOR <overlord>] [WITH <n> <element>, ...]
 * (rules 3.2): the troops are the tributary's. */
static void parse_contingent_from(struct parser *p)
{
	static const char *const stops[] = {"FOR", "WITH", NULL};
	static const char *const with[] = {"WITH", NULL};
	orders_require_player(p);
	p->o->target = orders_match_player(p, stops, false);
	if (!orders_failed(p) && orders_accept(p, "FOR"))
		p->o->for_player = orders_match_player(p, with, false);
	if (orders_failed(p))
		return;
	if (orders_accept(p, "WITH"))
		orders_read_items(p, p->o->target, NULL);
	orders_expect_end(p, "the contingent");
}

/* NO CONTINGENT FROM <tributary>: the standing order withdrawn. */
static void parse_no_contingent_from(struct parser *p)
{
	orders_require_player(p);
	p->o->target = orders_match_player(p, NULL, false);
	orders_expect_end(p, "the tributary");
}

static void parse_if_invaded(struct parser *p)
{
	static const char *const stops[] = {"BATTLE", "SIEGE", "RETREAT", "THEN", NULL};
	if (orders_accept(p, "ANY"))
		p->o->province = ORDERS_ANY;
	else
		p->o->province = orders_match_province(p, stops);
	orders_accept(p, "THEN");
	if (orders_failed(p))
		return;
	if (orders_accept(p, "BATTLE")) {
		p->o->choice = CHOICE_BATTLE;
	} else if (orders_accept(p, "SIEGE")) {
		p->o->choice = CHOICE_SIEGE;
	} else if (orders_accept(p, "RETREAT")) {
		p->o->choice = CHOICE_RETREAT;
		orders_accept(p, "TO");
		p->o->retreat_to = orders_match_province(p, NULL);
	} else {
		orders_fail(p, "write IF INVADED <province or ANY> BATTLE, SIEGE or RETREAT TO <province>");
		return;
	}
	orders_expect_end(p, "the choice");
}

static void parse_in_storm(struct parser *p)
{
	if (orders_accept(p, "CONTINUE"))
		p->o->choice = CHOICE_CONTINUE;
	else if (orders_accept(p, "HALT"))
		p->o->choice = CHOICE_HALT;
	else if (orders_accept(p, "RETURN"))
		p->o->choice = CHOICE_RETURN;
	else {
		orders_fail(p, "write IN STORM CONTINUE, HALT or RETURN");
		return;
	}
	orders_expect_end(p, "the choice");
}

/* ALLOW/DENY PASSAGE/SUPPLY <player or ALL>; DENY without a name: ALL. */
static void parse_permission(struct parser *p)
{
	bool deny = p->o->kind == ORDER_DENY_PASSAGE || p->o->kind == ORDER_DENY_SUPPLY;
	orders_accept(p, "TO");
	if (orders_accept(p, "ALL") || (deny && orders_at_end(p)))
		p->o->target = ORDERS_ANY;
	else
		p->o->target = orders_match_player(p, NULL, false);
	orders_expect_end(p, "the player");
}

static void parse_answer_allies(struct parser *p)
{
	if (orders_accept(p, "YES"))
		p->o->choice = CHOICE_YES;
	else if (orders_accept(p, "NO"))
		p->o->choice = CHOICE_NO;
	else {
		orders_fail(p, "write ANSWER ALLIES YES or ANSWER ALLIES NO");
		return;
	}
	orders_expect_end(p, "the answer");
}

static void parse_losses_first(struct parser *p)
{
	int player = orders_require_player(p);
	do {
		int type = orders_match_label(p, player, NULL);
		if (type < 0)
			return;
		orders_push_item(p->o, 0, type);
		orders_accept_comma(p);
	} while (!orders_at_end(p));
}

static void parse_retreat_prefer(struct parser *p)
{
	orders_read_province_list(p, NULL);
}

/* RECRUIT / DISMISS <n> <element> */
static void parse_count_label(struct parser *p)
{
	int player = orders_require_player(p);
	orders_read_int(p, "number of elements", 1, 999, &p->o->count);
	p->o->type = orders_match_label(p, player, NULL);
	orders_expect_end(p, "the element");
}

/* ARMY <n> <element>, ... : the whole field army chosen before play. */
static void parse_army(struct parser *p)
{
	int player = orders_require_player(p);
	if (player < 0)
		return;
	if (orders_at_end(p)) {
		orders_fail(p, "write ARMY 1 <C-in-C>, <n> <element>, ... (your whole field army)");
		return;
	}
	orders_read_items(p, player, NULL);
	orders_expect_end(p, "the army");
}

static void parse_start_in(struct parser *p)
{
	p->o->province = orders_match_province(p, NULL);
	orders_expect_end(p, "the province");
}

/* EXCHANGE <n> <element> FOR <n> <element>: reserve troops (count, type)
 * changed for others of the list (items[0]). */
static void parse_exchange(struct parser *p)
{
	static const char *const stops[] = {"FOR", NULL};
	int player = orders_require_player(p);
	orders_read_int(p, "number of elements", 1, 999, &p->o->count);
	p->o->type = orders_match_label(p, player, stops);
	if (orders_failed(p))
		return;
	if (!orders_accept(p, "FOR")) {
		orders_fail(p, "write EXCHANGE <n> <element> FOR <n> <element>");
		return;
	}
	int n = 0;
	orders_read_int(p, "number of elements", 1, 999, &n);
	int type = orders_match_label(p, player, NULL);
	if (!orders_failed(p))
		orders_push_item(p->o, n, type);
	orders_expect_end(p, "the element");
}

static void parse_retrieve_general(struct parser *p)
{
	int player = orders_require_player(p);
	size_t at = p->pos;
	p->o->type = orders_match_label(p, player, NULL);
	orders_expect_end(p, "the general");
	if (!orders_failed(p) && !p->c->players[player].list.types[p->o->type].general) {
		char *t = orders_span_text(p, at, p->pos);
		orders_fail(p, "\"%s\" is not a general", t);
		free(t);
	}
}

static void parse_target_player(struct parser *p)
{
	p->o->target = orders_match_player(p, NULL, false);
	orders_expect_end(p, "the player");
}

static void parse_vote(struct parser *p)
{
	if (orders_accept(p, "CONTINUE"))
		p->o->choice = CHOICE_CONTINUE;
	else if (orders_accept(p, "END"))
		p->o->choice = CHOICE_END;
	else {
		orders_fail(p, "write VOTE CONTINUE or VOTE END");
		return;
	}
	orders_expect_end(p, "the vote");
}

static void parse_battle_at(struct parser *p)
{
	p->o->province = orders_match_province(p, NULL);
	orders_expect_end(p, "the province");
	if (!orders_failed(p))
		p->battle = (int)(p->o - p->set->orders);
}

static bool in_battle(struct parser *p)
{
	if (p->battle < 0) {
		orders_fail(p, "battle results start with BATTLE AT <province>");
		return false;
	}
	p->o->battle = p->battle;
	p->o->province = p->set->orders[p->battle].province;
	return true;
}

static void parse_battle_side(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = orders_match_player(p, NULL, false);
	orders_expect_end(p, "the player");
}

static void parse_battle_demoralised(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = orders_match_player(p, NULL, false);
	if (orders_failed(p))
		return;
	do {
		int type = orders_match_label(p, p->o->target, NULL);
		if (type < 0)
			return;
		orders_push_item(p->o, 1, type);
		orders_accept_comma(p);
	} while (!orders_at_end(p));
}

/* DESTROYED, FLED, WITHDRAWN <player> <n> <element>, <n> <element> ... */
static void parse_battle_losses(struct parser *p)
{
	if (!in_battle(p))
		return;
	if (orders_is_number_at(p, p->pos)) {
		orders_fail(p, "name whose elements they are: %s <player> <n> <element>, ...",
			    order_kind_keyword(p->o->kind));
		return;
	}
	p->o->target = orders_match_player(p, NULL, true);
	do {
		int count = 0;
		if (!orders_read_int(p, "number of elements", 1, 999, &count))
			return;
		int type = orders_match_label(p, p->o->target, NULL);
		if (type < 0)
			return;
		orders_push_item(p->o, count, type);
		orders_accept_comma(p);
	} while (!orders_failed(p) && !orders_at_end(p));
}

/* RETURNED <player> <n> <element>: how many routers of that type come
 * back to the force, the share rounded up or down (0 allowed). */
static void parse_battle_returned(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = orders_match_player(p, NULL, true);
	orders_read_int(p, "number of elements", 0, 999, &p->o->count);
	p->o->type = orders_match_label(p, p->o->target, NULL);
	orders_expect_end(p, "the element");
}

/* SHARE <ally> <points>: the prestige share agreed with an ally. */
static void parse_battle_share(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = orders_match_player(p, NULL, true);
	orders_read_int(p, "prestige points", 1, 10000, &p->o->count);
	orders_expect_end(p, "the points");
}

/* GENERAL KILLED <player> <general's element>, ... */
static void parse_battle_general_killed(struct parser *p)
{
	if (!in_battle(p))
		return;
	p->o->target = orders_match_player(p, NULL, false);
	do {
		size_t at = p->pos;
		int type = orders_match_label(p, p->o->target, NULL);
		if (type < 0)
			return;
		if (!p->c->players[p->o->target].list.types[type].general) {
			char *t = orders_span_text(p, at, p->pos);
			orders_fail(p, "\"%s\" is not a general", t);
			free(t);
			return;
		}
		orders_push_item(p->o, 1, type);
		orders_accept_comma(p);
	} while (!orders_failed(p) && !orders_at_end(p));
}

static void parse_extend(struct parser *p)
{
	orders_read_int(p, "number of hours", 1, 720, &p->o->count);
	orders_accept(p, "HOURS");
	orders_expect_end(p, "the hours");
}

static void parse_process(struct parser *p)
{
	if (p->end - p->pos != 1 || p->toks[p->pos].comma) {
		orders_fail(p, "write PROCESS <step name>, one word (e.g. PROCESS campaign)");
		return;
	}
	char *f = name_fold(p->toks[p->pos].s);
	p->o->arg = f;
	p->pos++;
}

static void parse_comment(struct parser *p)
{
	if (orders_at_end(p)) {
		orders_fail(p, "COMMENT needs the text of the comment");
		return;
	}
	p->o->arg = xstrdup(p->line + p->toks[p->pos].off);
	str_trim(p->o->arg);
	p->pos = p->end;
}

/* ------------------------------------------------------ keyword table */

static const struct keyword keywords[] = {
	{"PLAYER", ORDER_PLAYER, parse_player, KW_SECRET},
	{"ORGANISER", ORDER_ORGANISER, parse_organiser, KW_SECRET},
	{"ORGANIZER", ORDER_ORGANISER, parse_organiser, KW_SECRET},
	{"PASSWORD", ORDER_PASSWORD, parse_password, KW_SECRET},
	{"STATUS", ORDER_STATUS, parse_nothing, 0},
	{"MAP", ORDER_MAP, parse_nothing, 0},
	{"HELP", ORDER_HELP, parse_nothing, 0},
	{"CLEAR", ORDER_CLEAR, parse_nothing, 0},
	{"CONFIRM", ORDER_CONFIRM, parse_nothing, 0},
	{"END", ORDER_END, parse_nothing, 0},
	{"FORGOT PASSWORD", ORDER_FORGOT_PASSWORD, parse_nothing, 0},
	{"STAND-IN", ORDER_STAND_IN, orders_parse_stand_in, 0},
	{"STAND IN", ORDER_STAND_IN, orders_parse_stand_in, 0},
	{"INVADE", ORDER_INVADE, parse_move, 0},
	{"MOVE", ORDER_MOVE, parse_move, 0},
	{"SEND CONTINGENT", ORDER_SEND_CONTINGENT, parse_send, 0},
	{"SEND CONTINGENTS", ORDER_SEND_CONTINGENT, parse_send, 0},
	{"NO MOVE", ORDER_NO_MOVE, parse_nothing, 0},
	{"SALLY", ORDER_SALLY, parse_nothing, 0},
	{"ASK ALLIES", ORDER_ASK_ALLIES, parse_ask_allies, 0},
	{"CALL OFF", ORDER_CALL_OFF, parse_nothing, 0},
	{"RECALL CONTINGENTS", ORDER_RECALL_CONTINGENTS, parse_nothing, 0},
	{"RECALL CONTINGENT", ORDER_RECALL_CONTINGENTS, parse_nothing, 0},
	{"IF INVADED", ORDER_IF_INVADED, parse_if_invaded, 0},
	{"IN STORM", ORDER_IN_STORM, parse_in_storm, 0},
	{"ALLOW PASSAGE", ORDER_ALLOW_PASSAGE, parse_permission, 0},
	{"DENY PASSAGE", ORDER_DENY_PASSAGE, parse_permission, 0},
	{"ALLOW SUPPLY", ORDER_ALLOW_SUPPLY, parse_permission, 0},
	{"DENY SUPPLY", ORDER_DENY_SUPPLY, parse_permission, 0},
	{"ANSWER ALLIES", ORDER_ANSWER_ALLIES, parse_answer_allies, 0},
	{"CONTINGENT FOR", ORDER_CONTINGENT_FOR, parse_contingent_for, 0},
	{"CONTINGENT FROM", ORDER_CONTINGENT_FROM, parse_contingent_from, 0},
	{"NO CONTINGENT FROM", ORDER_NO_CONTINGENT_FROM, parse_no_contingent_from, 0},
	{"LOSSES FIRST", ORDER_LOSSES_FIRST, parse_losses_first, 0},
	{"RETREAT PREFER", ORDER_RETREAT_PREFER, parse_retreat_prefer, 0},
	{"RECRUIT", ORDER_RECRUIT, parse_count_label, 0},
	{"DISMISS", ORDER_DISMISS, parse_count_label, 0},
	{"EXCHANGE", ORDER_EXCHANGE, parse_exchange, 0},
	{"RETRIEVE GENERAL", ORDER_RETRIEVE_GENERAL, parse_retrieve_general, 0},
	{"ARMY", ORDER_ARMY, parse_army, 0},
	{"START IN", ORDER_START_IN, parse_start_in, 0},
	{"ALLY WITH", ORDER_ALLY_WITH, parse_target_player, 0},
	{"END ALLIANCE WITH", ORDER_END_ALLIANCE, parse_target_player, 0},
	{"END ALLIANCE", ORDER_END_ALLIANCE, parse_target_player, 0},
	{"TRIBUTARY OF", ORDER_TRIBUTARY_OF, parse_target_player, 0},
	{"ACCEPT TRIBUTARY", ORDER_ACCEPT_TRIBUTARY, parse_target_player, 0},
	{"RENOUNCE", ORDER_RENOUNCE, parse_target_player, 0},
	{"VOTE", ORDER_VOTE, parse_vote, 0},
	{"LEAVE CAMPAIGN", ORDER_LEAVE, parse_leave, 0},
	{"BATTLE AT", ORDER_BATTLE_AT, parse_battle_at, 0},
	{"WINNER", ORDER_BATTLE_WINNER, parse_battle_side, 0},
	{"CONCEDED BY", ORDER_BATTLE_CONCEDED, parse_battle_side, 0},
	{"WITHDRAWAL BY", ORDER_BATTLE_WITHDRAWAL, parse_battle_side, 0},
	{"DEMORALISED", ORDER_BATTLE_DEMORALISED, parse_battle_demoralised, 0},
	{"DEMORALIZED", ORDER_BATTLE_DEMORALISED, parse_battle_demoralised, 0},
	{"DESTROYED", ORDER_BATTLE_DESTROYED, parse_battle_losses, 0},
	{"FLED", ORDER_BATTLE_FLED, parse_battle_losses, 0},
	{"WITHDRAWN", ORDER_BATTLE_WITHDRAWN, parse_battle_losses, 0},
	{"RETURNED", ORDER_BATTLE_RETURNED, parse_battle_returned, 0},
	{"SHARE", ORDER_BATTLE_SHARE, parse_battle_share, 0},
	{"GENERAL KILLED", ORDER_BATTLE_GENERAL_KILLED, parse_battle_general_killed, 0},
	{"EXTEND", ORDER_ORG_EXTEND, parse_extend, 0},
	{"PAUSE", ORDER_ORG_PAUSE, parse_nothing, 0},
	{"RESUME", ORDER_ORG_RESUME, parse_nothing, 0},
	{"PROCESS", ORDER_ORG_PROCESS, parse_process, 0},
	{"PREVIEW", ORDER_ORG_PREVIEW, parse_nothing, 0},
	{"COMMENT", ORDER_ORG_COMMENT, parse_comment, 0},
};
#define KEYWORD_COUNT (sizeof keywords / sizeof *keywords)

const char *order_kind_keyword(enum order_kind kind)
{
	for (size_t i = 0; i < KEYWORD_COUNT; i++)
		if (keywords[i].kind == kind)
			return keywords[i].phrase;
	return "";
}

/* Number of tokens the phrase takes at the start of the line, or 0. */
size_t orders_phrase_match(const struct parser *p, const char *phrase)
{
	size_t i = 0;
	const char *w = phrase;
	while (*w) {
		const char *sp = strchr(w, ' ');
		size_t len = sp ? (size_t)(sp - w) : strlen(w);
		if (i >= p->ntok || p->toks[i].quoted || p->toks[i].comma ||
		    strlen(p->toks[i].s) != len || strncasecmp(p->toks[i].s, w, len) != 0)
			return 0;
		i++;
		w += len;
		while (*w == ' ')
			w++;
	}
	return i;
}

const struct keyword *orders_keyword_find(const struct parser *p, size_t *words)
{
	const struct keyword *best = NULL;
	*words = 0;
	for (size_t i = 0; i < KEYWORD_COUNT; i++) {
		size_t n = orders_phrase_match(p, keywords[i].phrase);
		if (n > *words) {
			*words = n;
			best = &keywords[i];
		}
	}
	return best;
}

/* The keyword phrase the first word nearly spells, or NULL. Short words
 * must be nearer, so "Hello" is a greeting and not HELP. */
const char *orders_keyword_near_miss(const struct parser *p)
{
	if (p->ntok == 0 || p->toks[0].quoted || p->toks[0].comma)
		return NULL;
	char *w = p->toks[0].folded;
	size_t len = strlen(w);
	if (len < 4 || len > 20)
		return NULL;
	size_t limit = len >= 6 ? 2 : 1;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < KEYWORD_COUNT; i++) {
		char first[24];
		size_t n = 0;
		for (const char *k = keywords[i].phrase; *k && *k != ' ' && n + 1 < sizeof first; k++)
			first[n++] = (char)tolower((unsigned char)*k);
		first[n] = '\0';
		size_t d = edit_distance(w, first, limit);
		if (d < best_d) {
			best_d = d;
			best = keywords[i].phrase;
		}
	}
	return best;
}
