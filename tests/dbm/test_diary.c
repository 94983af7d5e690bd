/* The diary as template data: a year of events (written as the rules log
 * them) narrated turn by turn, folded, commented, ranked; the rewind of the
 * campaign to an earlier year; prestige over the years. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbm/diary.h"
#include "dbm/year.h"
#include "lib/rules_fixture.h"

/* Provinces: 0 Dijon (burgundy home), 1 Paris (france home), 2 Calais
 * (neutral), 3 London (england home), 4 Kent (england); players burgundy,
 * France & Co <Ltd> (key france, the organiser's), england. */
static struct campaign *diary_campaign(void)
{
	struct campaign *c = fx_campaign();
	fx_province(c, "Dijon", 0, true);
	fx_province(c, "Paris", 1, true);
	fx_province(c, "Calais", NO_INDEX, false);
	fx_province(c, "London", 2, true);
	fx_province(c, "Kent", 2, false);
	fx_route(c, 0, 1, false);
	fx_route(c, 1, 2, false);
	fx_route(c, 2, 4, true);
	fx_route(c, 3, 4, false);
	fx_player(c, "burgundy", 0);
	fx_player(c, "france", 1);
	fx_player(c, "england", 3);
	free(c->players[1].nation);
	c->players[1].nation = xstrdup("France & Co <Ltd>");
	c->organiser_player = 1;
	c->organiser_name = xstrdup("Marguerite");
	return c;
}

/* A year as the rules log it (numbers are the event numbers, 1-based). */
static const char year_events[] =
	"["
	/* 1 */ "{\"kind\":\"year_begin\",\"year\":1450,\"phase\":\"campaign\"},"
	/* 2 */ "{\"kind\":\"sequence_of_play\",\"year\":1450,\"phase\":\"campaign\","
	"\"order\":[\"burgundy\",\"france\",\"england\"]},"
	/* 3 */ "{\"kind\":\"invasion\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"province\":\"Calais\",\"owner\":\"neutral\"},"
	/* 4 */ "{\"kind\":\"move\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"contingent\":false,\"from\":\"Dijon\",\"to\":\"Calais\",\"path\":[\"Paris\",\"Calais\"],"
	"\"stages_moved\":2,\"halted\":false,\"returned\":false,\"forced_passage\":false,"
	"\"lost_half_ap\":0},"
	/* 5 */ "{\"kind\":\"roll\",\"year\":1450,\"phase\":\"campaign\",\"purpose\":\"siege burgundy Calais\","
	"\"value\":3,\"counter\":1},"
	/* 6 */ "{\"kind\":\"siege_round\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"province\":\"Calais\",\"defender\":\"neutral\",\"rounds_failed\":0,\"needed\":6,\"roll\":3,"
	"\"army_inside\":false,\"captured\":false},"
	/* 7 */ "{\"kind\":\"loss\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"contingent\":false,\"cause\":\"siege\",\"due_half_ap\":80,\"lost_half_ap\":80,"
	"\"mounted_half_ap\":0,\"elements\":{\"C-in-C\":0,\"Sp(O)\":8},\"paid_in_full\":true,"
	"\"chosen_by\":\"default\"},"
	/* 8 */ "{\"kind\":\"invasion\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"france\","
	"\"province\":\"Dijon\",\"owner\":\"burgundy\"},"
	/* 9 */ "{\"kind\":\"move\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"france\","
	"\"contingent\":false,\"from\":\"Paris\",\"to\":\"Dijon\",\"path\":[\"Dijon\"],"
	"\"stages_moved\":1,\"halted\":false,\"returned\":false,\"forced_passage\":false,"
	"\"lost_half_ap\":0},"
	/* 10 */ "{\"kind\":\"defence\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"province\":\"Dijon\",\"invader\":\"france\",\"choice\":\"battle\"},"
	/* 11 */ "{\"kind\":\"move\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"contingent\":false,\"from\":\"Calais\",\"to\":\"Dijon\",\"path\":[\"Paris\",\"Dijon\"],"
	"\"stages_moved\":2,\"halted\":false,\"returned\":false,\"forced_passage\":false,"
	"\"lost_half_ap\":0},"
	/* 12 */ "{\"kind\":\"battle\",\"year\":1450,\"phase\":\"campaign\",\"province\":\"Dijon\","
	"\"winner\":\"france\",\"loser\":\"burgundy\",\"how\":\"conceded\",\"commands\":[3,3],"
	"\"prestige_values\":[12,4],\"half_ap\":[960,801],\"award\":40},"
	/* 13 */ "{\"kind\":\"general_killed\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"contingent\":false,\"generals\":{\"Sub-general\":2}},"
	/* 14 */ "{\"kind\":\"routers\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\"},"
	/* 15 */ "{\"kind\":\"prestige\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"france\","
	"\"points\":40,\"award\":40,\"as\":\"winner\"},"
	/* 16 */ "{\"kind\":\"capture\",\"year\":1450,\"phase\":\"campaign\",\"province\":\"Dijon\","
	"\"from\":\"burgundy\",\"to\":\"france\"},"
	/* 17 */ "{\"kind\":\"retreat\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"from\":\"Dijon\",\"to\":\"Calais\",\"distance\":2,\"stages\":2},"
	/* 18 */ "{\"kind\":\"move\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"contingent\":false,\"from\":\"Dijon\",\"to\":\"Calais\",\"path\":[\"Paris\",\"Calais\"],"
	"\"stages_moved\":2,\"halted\":false,\"returned\":false,\"forced_passage\":false,"
	"\"lost_half_ap\":0},"
	/* 19 */ "{\"kind\":\"supply\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
	"\"province\":\"Calais\",\"in_supply\":true,\"loss_waived\":false},"
	/* 20 */ "{\"kind\":\"province_prestige\",\"year\":1450,\"phase\":\"recruitment\","
	"\"player\":\"france\",\"points\":16,\"total\":56},"
	/* 21 */ "{\"kind\":\"recruit\",\"year\":1450,\"phase\":\"recruitment\",\"player\":\"england\","
	"\"half_ap\":41,\"allowance_half_ap\":40,\"elements\":{\"Kn(O)\":1,\"Ax(O)\":1,\"LH(O)\":0}},"
	/* 22 */ "{\"kind\":\"end_roll\",\"year\":1450,\"phase\":\"recruitment\",\"rolled\":false},"
	/* 23 */ "{\"kind\":\"year_end\",\"year\":1450,\"phase\":\"recruitment\"}"
	"]";

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);
	if (!j)
		fail_msg("bad JSON in the test at %d: %s", err.position, err.text);
	return j;
}

static const char *str_at(const json_t *o, const char *path)
{
	/* "a.b.0.c": objects by key, arrays by index */
	char *copy = xstrdup(path);
	const json_t *cur = o;
	for (char *part = strtok(copy, "."); part && cur; part = strtok(NULL, ".")) {
		if (json_is_array(cur))
			cur = json_array_get(cur, (size_t)atoi(part));
		else
			cur = json_object_get(cur, part);
	}
	free(copy);
	return json_string_value(cur);
}

static json_int_t int_at(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

struct fixture {
	struct campaign *c;
	json_t *events;
	json_t *doc;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	f->c = diary_campaign();
	/* The state after the year: France took Dijon and won 40 + 16. */
	f->c->provinces[0].owner = 1;
	f->c->players[0].location = 2;
	f->c->players[1].location = 0;
	f->c->players[1].battle_prestige = 40;
	f->c->players[1].province_prestige = 16;
	f->c->players[2].province_prestige = 8;
	f->c->players[0].province_prestige = 8;
	f->events = parse(year_events);
	json_t *comments = parse("[{\"text\": \"Too slow, Burgundy!\", \"after_event\": 6},"
				 " {\"text\": \"A year of glory begins.\", \"after_event\": 0},"
				 " {\"text\": \"Vive la France.\", \"after_event\": 99}]");
	json_t *dice = parse("{\"commitment\": \"abcd\", \"seed\": \"0011\"}");
	f->doc = diary_year_json(f->c, f->events, 1450, comments, dice);
	json_decref(comments);
	json_decref(dice);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	json_decref(f->doc);
	json_decref(f->events);
	campaign_free(f->c);
	free(f);
	return 0;
}

static void assert_kinds(const json_t *list, const char *const *kinds)
{
	size_t n = 0;
	while (kinds[n])
		n++;
	if (json_array_size(list) != n) {
		char *dump = json_dumps(list, JSON_COMPACT);
		fail_msg("expected %zu entries, got %zu: %s", n, json_array_size(list), dump);
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *ev = json_array_get(list, i);
		char flag[64];
		snprintf(flag, sizeof flag, "is_%s", kinds[i]);
		if (!json_is_true(json_object_get(ev, flag)))
			fail_msg("entry %zu is not a %s: %s", i, kinds[i],
				 json_dumps(ev, JSON_COMPACT));
	}
}

static void test_header(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(int_at(f->doc, "year"), 1450);
	assert_string_equal(str_at(f->doc, "campaign"), "test");
	assert_string_equal(str_at(f->doc, "organiser_nation.nation"), "France & Co <Ltd>");
	assert_string_equal(str_at(f->doc, "dice.commitment"), "abcd");
	assert_string_equal(str_at(f->doc, "dice.seed"), "0011");
	assert_true(json_is_true(json_object_get(json_object_get(f->doc, "dice"), "revealed")));
	/* The sequence, by nation, in the order rolled. */
	const json_t *seq = json_object_get(f->doc, "sequence");
	assert_int_equal(json_array_size(seq), 3);
	assert_string_equal(str_at(seq, "0.nation"), "burgundy");
	assert_string_equal(str_at(seq, "1.nation"), "France & Co <Ltd>");
	assert_string_equal(str_at(seq, "2.key"), "england");
	assert_int_equal(int_at(json_array_get(seq, 2), "place"), 3);
	/* The one roll goes to the appendix, not the narrative. */
	const json_t *rolls = json_object_get(f->doc, "rolls");
	assert_int_equal(json_array_size(rolls), 1);
	assert_string_equal(str_at(rolls, "0.purpose"), "siege burgundy Calais");
	assert_int_equal(int_at(json_array_get(rolls, 0), "counter"), 1);
}

static void test_turns(void **state)
{
	struct fixture *f = *state;
	const json_t *turns = json_object_get(f->doc, "turns");
	assert_int_equal(json_array_size(turns), 3);

	/* Burgundy: the invasion, the move there, the siege (with its loss
	 * folded in), and the organiser's comment placed after event 6. */
	const json_t *t0 = json_array_get(turns, 0);
	assert_string_equal(str_at(t0, "player.key"), "burgundy");
	const json_t *ev0 = json_object_get(t0, "events");
	assert_kinds(ev0, (const char *const[]){"invasion", "move", "siege_round", "comment", NULL});
	const json_t *siege = json_array_get(ev0, 2);
	assert_int_equal(int_at(siege, "loss_ap"), 40);
	assert_string_equal(str_at(siege, "lost_elements.0.label"), "Sp(O)");
	assert_int_equal(int_at(json_array_get(json_object_get(siege, "lost_elements"), 0), "count"), 8);
	assert_int_equal(json_array_size(json_object_get(siege, "lost_elements")), 1);
	assert_true(json_is_true(json_object_get(json_object_get(siege, "defender"), "neutral")));
	assert_string_equal(str_at(ev0, "3.text"), "Too slow, Burgundy!");
	assert_true(json_is_true(json_object_get(json_array_get(ev0, 1), "move_kind_invade")));

	/* France: invasion, move, Burgundy's defence and move up (in
	 * France's turn), the battle with prestige and generals folded in,
	 * the capture, the retreat; the supply event (in supply) is not worth
	 * a line. */
	const json_t *t1 = json_array_get(turns, 1);
	assert_string_equal(str_at(t1, "player.nation"), "France & Co <Ltd>");
	const json_t *ev1 = json_object_get(t1, "events");
	assert_kinds(ev1, (const char *const[]){"invasion", "move", "defence", "move", "battle",
						 "capture", "retreat", NULL});
	assert_true(json_is_true(json_object_get(json_array_get(ev1, 3), "move_kind_defend")));
	/* The retreat's own move is folded into the retreat. */
	assert_int_equal(int_at(json_array_get(ev1, 6), "stages_moved"), 2);
	assert_true(json_is_true(json_object_get(json_array_get(ev1, 2), "choice_battle")));
	const json_t *battle = json_array_get(ev1, 4);
	assert_string_equal(str_at(battle, "winner.key"), "france");
	assert_int_equal(int_at(battle, "winner_ap"), 480);
	assert_true(json_is_real(json_object_get(battle, "loser_ap")));
	assert_true(json_real_value(json_object_get(battle, "loser_ap")) == 400.5);
	assert_true(json_is_true(json_object_get(battle, "how_conceded")));
	assert_int_equal(json_array_size(json_object_get(battle, "prestige")), 1);
	assert_int_equal(int_at(json_array_get(json_object_get(battle, "prestige"), 0), "points"), 40);
	assert_int_equal(int_at(json_array_get(json_object_get(battle, "generals_killed"), 0), "count"), 2);
	/* The organiser's nation won: the diary may gloat. */
	assert_true(json_is_true(json_object_get(battle, "ours")));
	assert_false(json_is_true(json_object_get(battle, "theirs")));
	const json_t *capture = json_array_get(ev1, 5);
	assert_string_equal(str_at(capture, "from.key"), "burgundy");
	assert_string_equal(str_at(capture, "to.nation"), "France & Co <Ltd>");
	assert_true(json_is_true(json_object_get(json_array_get(ev1, 6), "last")));

	/* England did nothing. */
	const json_t *t2 = json_array_get(turns, 2);
	assert_true(json_is_true(json_object_get(t2, "quiet")));
	assert_int_equal(json_array_size(json_object_get(t2, "events")), 0);
}

static void test_phases_and_comments(void **state)
{
	struct fixture *f = *state;
	assert_kinds(json_object_get(f->doc, "prelude"), (const char *const[]){NULL});
	const json_t *recruitment = json_object_get(f->doc, "recruitment");
	assert_kinds(recruitment, (const char *const[]){"recruit", NULL});
	/* 41 half AP is 20.5 AP; the zero count is left out of the list. */
	assert_true(json_real_value(json_object_get(json_array_get(recruitment, 0), "ap")) == 20.5);
	assert_int_equal(json_array_size(json_object_get(json_array_get(recruitment, 0), "elements")), 2);
	assert_kinds(json_object_get(f->doc, "ending"), (const char *const[]){"end_roll", NULL});
	assert_string_equal(str_at(f->doc, "foreword.0.text"), "A year of glory begins.");
	assert_string_equal(str_at(f->doc, "afterword.0.text"), "Vive la France.");
	assert_int_equal(json_array_size(json_object_get(f->doc, "battles")), 1);
	assert_int_equal(json_array_size(json_object_get(f->doc, "sieges")), 1);
	assert_int_equal(json_array_size(json_object_get(f->doc, "captures")), 1);
	assert_false(json_is_true(json_object_get(f->doc, "ended")));
	assert_false(json_is_true(json_object_get(f->doc, "has_prelude")));
	assert_true(json_is_true(json_object_get(f->doc, "has_turns")));
	assert_true(json_is_true(json_object_get(f->doc, "has_ending")));
	assert_true(json_is_true(json_object_get(f->doc, "has_rolls")));
}

static void test_standings(void **state)
{
	struct fixture *f = *state;
	/* Prestige: France 56, then Burgundy and England tied on 8 (rank 2
	 * both, by nation name). */
	const json_t *p = json_object_get(f->doc, "prestige");
	assert_int_equal(json_array_size(p), 3);
	assert_string_equal(str_at(p, "0.player.key"), "france");
	assert_int_equal(int_at(json_array_get(p, 0), "total"), 56);
	assert_int_equal(int_at(json_array_get(p, 0), "gained_battle"), 40);
	assert_int_equal(int_at(json_array_get(p, 0), "gained_province"), 16);
	assert_int_equal(int_at(json_array_get(p, 0), "rank"), 1);
	assert_string_equal(str_at(p, "1.player.key"), "burgundy");
	assert_string_equal(str_at(p, "2.player.key"), "england");
	assert_int_equal(int_at(json_array_get(p, 1), "rank"), 2);
	assert_int_equal(int_at(json_array_get(p, 2), "rank"), 2);
	/* Provinces: France holds Paris (home) and Dijon, England London
	 * (home) and Kent: a tie, rank 1 both, in nation name order ("France
	 * & Co <Ltd>" before "england", byte order); Burgundy none. */
	const json_t *prov = json_object_get(f->doc, "provinces");
	assert_string_equal(str_at(prov, "0.player.key"), "france");
	assert_string_equal(str_at(prov, "1.player.key"), "england");
	assert_int_equal(int_at(json_array_get(prov, 1), "rank"), 1);
	assert_int_equal(int_at(json_array_get(prov, 1), "held"), 2);
	assert_int_equal(int_at(json_array_get(prov, 1), "home_held"), 1);
	assert_int_equal(int_at(json_array_get(prov, 2), "held"), 0);
	assert_int_equal(int_at(json_array_get(prov, 2), "rank"), 3);
}

/* Each narrated event has exactly one of v0..v2, the one diary_variant
 * gives; the same input gives the same document. */
static void test_variants_reproducible(void **state)
{
	struct fixture *f = *state;
	const json_t *ev1 = json_object_get(json_array_get(json_object_get(f->doc, "turns"), 1),
					    "events");
	size_t i;
	json_t *ev;
	unsigned seen = 0;
	json_array_foreach((json_t *)ev1, i, ev) {
		int seq = (int)int_at(ev, "seq");
		const char *kind = json_string_value(json_object_get(ev, "kind"));
		unsigned v = diary_event_variant(1450, json_array_get(f->events, (size_t)seq - 1),
						 kind, 3);
		assert_int_equal(int_at(ev, "variant"), v);
		int set = 0;
		for (unsigned k = 0; k < 3; k++) {
			char name[4];
			snprintf(name, sizeof name, "v%u", k);
			if (json_is_true(json_object_get(ev, name))) {
				set++;
				assert_int_equal(k, v);
			}
		}
		assert_int_equal(set, 1);
		seen |= 1u << v;
	}
	/* Eight events use more than one phrasing. */
	assert_true(seen != 1 && seen != 2 && seen != 4);
	assert_int_equal(diary_variant(1450, 7, "battle", 0), 0);
	assert_int_equal(diary_variant(1450, 7, "battle", 3), diary_variant(1450, 7, "battle", 3));

	json_t *again = diary_year_json(f->c, f->events, 1450, NULL, NULL);
	const json_t *a = json_object_get(f->doc, "turns"), *b = json_object_get(again, "turns");
	/* Without comments Burgundy's turn has one entry fewer; the rest is
	 * identical. */
	assert_true(json_equal(json_array_get(a, 1), json_array_get(b, 1)));
	assert_false(json_is_true(json_object_get(json_object_get(again, "dice"), "revealed")));
	assert_null(json_object_get(json_object_get(again, "dice"), "commitment"));

	/* An undo and a resume add notes before the events played again: how
	 * each event reads does not depend on its place in the year. */
	json_t *shifted = json_array();
	json_array_append_new(shifted, parse("{\"kind\": \"organiser\", \"year\": 1450, "
					     "\"action\": \"undo\", \"detail\": \"x\"}"));
	json_array_append_new(shifted, parse("{\"kind\": \"organiser\", \"year\": 1450, "
					     "\"action\": \"resume\", \"detail\": \"y\"}"));
	json_array_extend(shifted, f->events);
	json_t *later = diary_year_json(f->c, shifted, 1450, NULL, NULL);
	const json_t *lt = json_object_get(later, "turns");
	size_t compared = 0;
	for (size_t t = 0; t < json_array_size(b); t++) {
		const json_t *ea = json_object_get(json_array_get(b, t), "events");
		const json_t *el = json_object_get(json_array_get(lt, t), "events");
		assert_int_equal(json_array_size(ea), json_array_size(el));
		for (size_t k = 0; k < json_array_size(ea); k++, compared++)
			assert_int_equal(int_at(json_array_get(ea, k), "variant"),
					 int_at(json_array_get(el, k), "variant"));
	}
	assert_true(compared > 3);
	json_decref(later);
	json_decref(shifted);
	json_decref(again);
}

/* Without "turn" events or a sequence, and with garbage mixed in, nothing
 * crashes and every event lands somewhere. */
static void test_odd_input(void **state)
{
	(void)state;
	struct campaign *c = diary_campaign();
	json_t *events = parse("[42, {\"kind\": 7}, {\"year\": 1450},"
			       " {\"kind\":\"capture\",\"year\":1450,\"phase\":\"campaign\","
			       "  \"province\":\"Calais\",\"from\":\"neutral\",\"to\":\"ghost\"},"
			       " {\"kind\":\"player_out\",\"year\":1450,\"player\":\"england\",\"prestige\":3},"
			       " {\"kind\":\"campaign_end\",\"year\":1450,\"winners\":[\"france\",\"burgundy\"]}]");
	json_t *not_a_list = json_string("not a list");
	json_t *doc = diary_year_json(c, events, 1450, not_a_list, not_a_list);
	json_decref(not_a_list);
	assert_kinds(json_object_get(doc, "prelude"), (const char *const[]){"capture", "player_out", NULL});
	/* An unknown key is shown as written. */
	assert_string_equal(str_at(doc, "prelude.0.to.nation"), "ghost");
	assert_true(json_is_true(json_object_get(json_object_get(json_array_get(json_object_get(doc, "prelude"), 0), "from"), "neutral")));
	assert_true(json_is_true(json_object_get(doc, "ended")));
	assert_string_equal(str_at(doc, "winners.1.key"), "burgundy");
	assert_int_equal(json_array_size(json_object_get(doc, "turns")), 0);
	json_decref(doc);
	json_decref(events);

	/* Names that are not UTF-8 do not break the document. */
	free(c->players[2].nation);
	c->players[2].nation = xstrdup("Angl\xe9terre");
	json_t *ref = diary_player_ref(c, 2);
	assert_string_equal(json_string_value(json_object_get(ref, "nation")), "Angl?terre");
	json_decref(ref);
	ref = diary_player_ref(c, 17);
	assert_true(json_is_true(json_object_get(ref, "neutral")));
	json_decref(ref);
	campaign_free(c);
}

/* A loss the force could not pay in full says what was lost against what
 * was due; one that fell on a contingent names the army it serves with. */
static void test_loss_short_and_contingent(void **state)
{
	(void)state;
	struct campaign *c = diary_campaign();
	json_t *events = parse(
		"[{\"kind\":\"storm\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
		"  \"contingent\":true,\"stage\":1,\"due_half_ap\":150},"
		" {\"kind\":\"loss\",\"year\":1450,\"phase\":\"campaign\",\"player\":\"burgundy\","
		"  \"contingent\":true,\"with\":\"england\",\"cause\":\"sea storm\",\"due_half_ap\":150,"
		"  \"lost_half_ap\":8,\"elements\":{\"Ps(O)\":2},\"paid_in_full\":false}]");
	json_t *doc = diary_year_json(c, events, 1450, NULL, NULL);
	/* no sequence of play: told before the turns */
	const json_t *storm = json_array_get(json_object_get(doc, "prelude"), 0);
	assert_true(json_is_true(json_object_get(storm, "is_storm")));
	assert_int_equal(int_at(storm, "loss_ap"), 4);
	assert_true(json_is_true(json_object_get(storm, "loss_short")));
	assert_int_equal(int_at(storm, "loss_due_ap"), 75);
	assert_string_equal(str_at(storm, "loss_with.key"), "england");
	json_decref(doc);
	json_decref(events);
	campaign_free(c);
}

/* A battle whose two reports differed: the dispute, the organiser's decision
 * and the note made with it are told in that order under the battle's turn,
 * before the battle they concern (the log has the decision after the
 * battle's consequences, and the note after the next turn began). The year's
 * losses say what each army lost and which routers came back. */
static void test_dispute_in_order_and_losses(void **state)
{
	(void)state;
	struct campaign *c = diary_campaign();
	json_t *events = parse(
		"["
		/* 1 */ "{\"kind\":\"sequence_of_play\",\"year\":1450,\"phase\":\"campaign\","
		"\"order\":[\"england\",\"france\"]},"
		/* 2 */ "{\"kind\":\"turn\",\"year\":1450,\"player\":\"england\",\"place\":1},"
		/* 3 */ "{\"kind\":\"invasion\",\"year\":1450,\"player\":\"england\","
		"\"province\":\"Paris\",\"owner\":\"france\"},"
		/* 4 */ "{\"kind\":\"storm\",\"year\":1450,\"player\":\"england\",\"contingent\":false,"
		"\"stage\":1,\"due_half_ap\":100},"
		/* 5 */ "{\"kind\":\"loss\",\"year\":1450,\"player\":\"england\",\"contingent\":false,"
		"\"cause\":\"sea storm\",\"due_half_ap\":100,\"lost_half_ap\":100,"
		"\"elements\":{\"Bw(O)\":5},\"paid_in_full\":true},"
		/* 6 */ "{\"kind\":\"battle_announced\",\"year\":1450,\"province\":\"Paris\","
		"\"attacker\":\"england\",\"defender\":\"france\",\"half_ap\":[600,900]},"
		/* 7 */ "{\"kind\":\"battle_report\",\"year\":1450,\"player\":\"england\",\"province\":\"Paris\"},"
		/* 8 */ "{\"kind\":\"battle_report\",\"year\":1450,\"player\":\"france\",\"province\":\"Paris\"},"
		/* 9 */ "{\"kind\":\"battle_disputed\",\"year\":1450,\"province\":\"Paris\","
		"\"reason\":\"the two reports differ in: winner\"},"
		/* 10 */ "{\"kind\":\"battle\",\"year\":1450,\"province\":\"Paris\",\"winner\":\"france\","
		"\"loser\":\"england\",\"how\":\"demoralised\",\"half_ap\":[900,600],\"award\":60},"
		/* 11 */ "{\"kind\":\"routers\",\"year\":1450,\"player\":\"england\",\"contingent\":false,"
		"\"winner\":false,\"routers\":6,\"returned\":{\"Bw(O)\":1},\"to_reserve_half_ap\":40,"
		"\"lost\":{\"Bw(O)\":3,\"Sp(O)\":2}},"
		/* 12 */ "{\"kind\":\"routers\",\"year\":1450,\"player\":\"france\",\"contingent\":false,"
		"\"winner\":true,\"routers\":0,\"returned\":{},\"to_reserve_half_ap\":0,\"lost\":{}},"
		/* 13 */ "{\"kind\":\"prestige\",\"year\":1450,\"player\":\"france\",\"points\":60},"
		/* 14 */ "{\"kind\":\"retreat\",\"year\":1450,\"player\":\"england\",\"from\":\"Paris\","
		"\"to\":\"Kent\",\"distance\":1,\"stages\":1},"
		/* 15 */ "{\"kind\":\"battle_result\",\"year\":1450,\"province\":\"Paris\","
		"\"decided\":\"organiser\",\"report\":\"BATTLE AT Paris\\nWINNER france\\n\"},"
		/* 16 */ "{\"kind\":\"turn\",\"year\":1450,\"player\":\"france\",\"place\":2},"
		/* 17 */ "{\"kind\":\"organiser\",\"year\":1450,\"action\":\"battle-result\","
		"\"detail\":\"decided the result of the battle at Paris:\\nBATTLE AT Paris\\n\"},"
		/* 18 */ "{\"kind\":\"organiser\",\"year\":1450,\"action\":\"comment\","
		"\"detail\":\"On the umpire's notes.\"},"
		/* 19 */ "{\"kind\":\"organiser\",\"year\":1450,\"action\":\"comment\","
		"\"detail\":\"Both sides lost elements.\"},"
		/* 20 */ "{\"kind\":\"capture\",\"year\":1450,\"province\":\"Calais\","
		"\"from\":\"neutral\",\"to\":\"france\"}"
		"]");
	json_t *comments = parse("[{\"text\": \"On the umpire's notes.\", \"after_event\": 17},"
				 " {\"text\": \"Both sides lost elements.\", \"after_event\": 18},"
				 " {\"text\": \"France's turn now.\", \"after_event\": 20}]");
	json_t *doc = diary_year_json(c, events, 1450, comments, NULL);
	const json_t *turns = json_object_get(doc, "turns");
	const json_t *england = json_object_get(json_array_get(turns, 0), "events");
	assert_kinds(england, (const char *const[]){"invasion", "storm", "battle_disputed",
						    "battle_decided", "comment", "comment",
						    "battle", "retreat", NULL});
	assert_string_equal(str_at(england, "2.attacker.nation"), "england");
	assert_string_equal(str_at(england, "2.defender.nation"), "France & Co <Ltd>");
	assert_string_equal(str_at(england, "2.reason"), "the two reports differ in: winner");
	assert_string_equal(str_at(england, "3.province"), "Paris");
	assert_string_equal(str_at(england, "3.winner.key"), "france");
	assert_string_equal(str_at(england, "4.text"), "On the umpire's notes.");
	assert_string_equal(str_at(england, "5.text"), "Both sides lost elements.");
	/* France's turn keeps only what belongs to it: its capture and the
	 * comment made after the decision's notes */
	const json_t *france = json_object_get(json_array_get(turns, 1), "events");
	assert_kinds(france, (const char *const[]){"capture", "comment", NULL});
	assert_string_equal(str_at(france, "1.text"), "France's turn now.");

	/* England lost 50 AP at sea and 20 AP at Paris, where 1 of its 6
	 * routers came back; France lost nothing */
	const json_t *losses = json_object_get(doc, "losses");
	assert_true(json_is_true(json_object_get(doc, "has_losses")));
	assert_int_equal(json_array_size(losses), 1);
	assert_string_equal(str_at(losses, "0.player.key"), "england");
	assert_int_equal(int_at(json_array_get(losses, 0), "ap"), 70);
	const json_t *items = json_object_get(json_array_get(losses, 0), "items");
	assert_int_equal(json_array_size(items), 2);
	assert_string_equal(str_at(items, "0.cause"), "sea storm");
	assert_int_equal(int_at(json_array_get(items, 0), "ap"), 50);
	assert_string_equal(str_at(items, "0.elements.0.label"), "Bw(O)");
	assert_int_equal(int_at(json_array_get(json_object_get(json_array_get(items, 0), "elements"), 0),
			     "count"), 5);
	assert_true(json_is_true(json_object_get(json_array_get(items, 1), "battle")));
	assert_string_equal(str_at(items, "1.province"), "Paris");
	assert_int_equal(int_at(json_array_get(items, 1), "ap"), 20);
	assert_int_equal(int_at(json_array_get(items, 1), "routers"), 6);
	assert_int_equal(int_at(json_array_get(items, 1), "returned_count"), 1);
	assert_string_equal(str_at(items, "1.returned.0.label"), "Bw(O)");
	/* one element of a plural label, said as one (issue 13) */
	assert_string_equal(str_at(items, "0.elements.0.text"), "5 Bw(O)");
	assert_string_equal(str_at(items, "1.returned.0.text"), "1 element of Bw(O)");
	/* the storm cost what it said was due: the text names the troops */
	assert_true(json_is_true(json_object_get(json_array_get(england, 1), "loss_as_due")));
	assert_int_equal(json_array_size(json_object_get(json_array_get(items, 1), "elements")), 2);
	json_decref(doc);
	json_decref(comments);
	json_decref(events);
	campaign_free(c);
}

/* The year's events as a mail tells them (issue 13: each thing once): a
 * storm and the loss it caused, a battle and its prestige and who decided
 * it, a retreat and its march are one line each; the organiser's decision
 * (with his note) comes before the battle it decided, its lines indented;
 * one element of a line the list allows once is named alone. */
static void test_events_for_mail_say_once(void **state)
{
	(void)state;
	struct campaign *c = diary_campaign();
	json_t *events = parse(
		"[{\"kind\":\"turn\",\"player\":\"england\"},"
		" {\"kind\":\"storm\",\"player\":\"england\",\"contingent\":false,\"stage\":1,"
		"  \"due_half_ap\":100},"
		" {\"kind\":\"loss\",\"player\":\"england\",\"contingent\":false,"
		"  \"cause\":\"sea storm\",\"due_half_ap\":100,\"lost_half_ap\":100,"
		"  \"elements\":{\"Sp(O)\":10},\"paid_in_full\":true},"
		" {\"kind\":\"forced_march\",\"player\":\"england\",\"stage\":5,\"due_half_ap\":80},"
		" {\"kind\":\"loss\",\"player\":\"england\",\"contingent\":false,"
		"  \"cause\":\"forced march\",\"due_half_ap\":80,\"lost_half_ap\":84,"
		"  \"elements\":{\"Kn(O)\":7},\"paid_in_full\":true},"
		" {\"kind\":\"move\",\"player\":\"england\",\"move_kind\":\"invade\","
		"  \"from\":\"Kent\",\"to\":\"Paris\",\"stages_moved\":2,\"lost_half_ap\":184},"
		" {\"kind\":\"battle\",\"province\":\"Paris\",\"winner\":\"france\","
		"  \"loser\":\"england\",\"how\":\"demoralised\",\"award\":60},"
		" {\"kind\":\"routers\",\"player\":\"england\"},"
		" {\"kind\":\"general_killed\",\"player\":\"burgundy\"},"
		" {\"kind\":\"routers\",\"player\":\"france\"},"
		" {\"kind\":\"prestige\",\"player\":\"france\",\"points\":50},"
		" {\"kind\":\"prestige\",\"player\":\"burgundy\",\"points\":10},"
		" {\"kind\":\"retreat\",\"player\":\"england\",\"from\":\"Paris\",\"to\":\"Kent\"},"
		" {\"kind\":\"roll\",\"purpose\":\"sea storm england stage 1\",\"value\":3},"
		" {\"kind\":\"move\",\"player\":\"england\",\"move_kind\":\"retreat\","
		"  \"from\":\"Paris\",\"to\":\"Kent\",\"stages_moved\":1},"
		" {\"kind\":\"battle_result\",\"province\":\"Paris\",\"decided\":\"organiser\"},"
		" {\"kind\":\"turn\",\"player\":\"france\"},"
		" {\"kind\":\"organiser\",\"action\":\"battle-result\",\"detail\":"
		"  \"decided the result of the battle at Paris:\\nBATTLE AT Paris\\nWINNER france\\n\"},"
		" {\"kind\":\"organiser\",\"action\":\"comment\",\"detail\":\"On the notes.\"},"
		" {\"kind\":\"decision_asked\",\"asked\":\"france\",\"question\":\"passage\"},"
		" {\"kind\":\"organiser\",\"action\":\"comment\",\"detail\":\"Later.\"}]");
	json_t *out = year_events_for_mail(c, events);
	const char *const kinds[] = {"turn", "storm", "forced_march", "move", "organiser",
				     "organiser", "battle", "routers", "general_killed", "routers",
				     "retreat", "roll", "turn", "decision_asked", "organiser", NULL};
	size_t n = 0;
	for (; kinds[n]; n++)
		assert_string_equal(kinds[n], json_string_value(json_object_get(
							json_array_get(out, n), "kind")));
	assert_int_equal(json_array_size(out), n);
	const json_t *storm = json_array_get(out, 1), *march = json_array_get(out, 2);
	assert_true(json_is_true(json_object_get(storm, "has_loss")));
	assert_true(json_is_true(json_object_get(storm, "loss_as_due")));
	assert_string_equal(str_at(storm, "loss_ap"), "50");
	assert_true(json_is_true(json_object_get(march, "has_loss")));
	assert_false(json_is_true(json_object_get(march, "loss_as_due")));
	assert_string_equal(str_at(march, "loss_ap"), "42");
	assert_string_equal(str_at(out, "4.organiser_sentence"),
			    "The organiser decided the result of the battle at Paris:\n"
			    "    BATTLE AT Paris\n    WINNER france");
	assert_string_equal(str_at(out, "5.detail"), "On the notes.");
	const json_t *battle = json_array_get(out, 6);
	assert_string_equal(str_at(battle, "prestige_text"),
			    "France & Co <Ltd> gains 50 prestige and burgundy 10");
	assert_string_equal(str_at(battle, "decided_text"), "the organiser");
	assert_true(json_is_true(json_object_get(battle, "decided_by_organiser")));
	const json_t *retreat = json_array_get(out, 10);
	assert_int_equal(int_at(retreat, "stages_moved"), 1);
	assert_string_equal(str_at(out, "14.detail"), "Later.");
	json_decref(out);
	json_decref(events);

	/* a retreat halted on the way: the march says where it stopped */
	events = parse("[{\"kind\":\"retreat\",\"player\":\"england\",\"from\":\"Paris\","
		       "  \"to\":\"London\"},"
		       " {\"kind\":\"move\",\"player\":\"england\",\"move_kind\":\"retreat\","
		       "  \"from\":\"Paris\",\"to\":\"Kent\",\"stages_moved\":1,\"halted\":true}]");
	out = year_events_for_mail(c, events);
	assert_int_equal(json_array_size(out), 1);
	assert_string_equal(str_at(out, "0.kind"), "move");
	assert_true(json_is_true(json_object_get(json_array_get(out, 0), "retreating")));
	json_decref(out);
	json_decref(events);

	/* one element named alone where the list allows only one */
	json_t *counts = parse("{\"C-in-C\": 1, \"Sp(O)\": 1, \"Kn(O)\": 2, \"LH(O)\": 0}");
	json_t *list = diary_elements_list(c, "england", counts);
	assert_int_equal(json_array_size(list), 3);
	assert_string_equal(str_at(list, "0.text"), "C-in-C");
	assert_string_equal(str_at(list, "1.text"), "1 element of Sp(O)");
	assert_string_equal(str_at(list, "2.text"), "2 Kn(O)");
	json_decref(list);
	json_decref(counts);
	campaign_free(c);
}

static void test_rewind(void **state)
{
	struct fixture *f = *state;
	/* A second year: England takes Calais; France gains 4 more. */
	json_t *all = json_deep_copy(f->events);
	json_t *more = parse("[{\"kind\":\"move\",\"year\":1451,\"player\":\"england\","
				     "\"contingent\":false,\"from\":\"London\",\"to\":\"Calais\"},"
				     "{\"kind\":\"capture\",\"year\":1451,\"province\":\"Calais\","
				     "\"from\":\"neutral\",\"to\":\"england\"},"
				     "{\"kind\":\"province_prestige\",\"year\":1451,"
				     "\"player\":\"france\",\"points\":4,\"total\":60}]");
	json_array_extend(all, more);
	json_decref(more);
	struct campaign *c = f->c;
	c->provinces[2].owner = 2;
	c->players[2].location = 2;
	c->players[1].province_prestige += 4;
	c->year = 1452;
	/* The rewind does not touch the sieges of a year with none. */
	assert_false(diary_rewind(c, all, 1451));
	assert_true(diary_rewind(c, all, 1450));
	assert_int_equal(c->provinces[2].owner, NO_INDEX);
	assert_int_equal(c->players[2].location, 3);
	assert_int_equal(c->players[1].province_prestige, 16);
	assert_int_equal(c->year, 1450);
	/* 1450 had a failed siege round of Calais, but Burgundy left it for
	 * the battle and no later event ended it: it shows as under way. */
	assert_int_equal(c->siege_count, 1);
	assert_int_equal(c->sieges[0].province, 2);
	assert_int_equal(c->sieges[0].rounds_failed, 1);

	json_t *h = diary_prestige_history(c, all);
	assert_int_equal(json_array_size(json_object_get(h, "years")), 2);
	const json_t *fr = json_array_get(json_object_get(h, "players"), 1);
	assert_string_equal(str_at(fr, "player.key"), "france");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(fr, "totals"), 0)), 56);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(fr, "totals"), 1)), 60);
	json_decref(h);
	json_decref(all);
}

/* The battle table, corrections and map marks (diary_battles.c): each
 * side's losses from the routers events, a correction found and marked,
 * an undo told, other years skipped, odd events harmless. */
static void test_battles_corrections_marks(void **state)
{
	(void)state;
	struct campaign *c = diary_campaign();
	json_t *events = parse(
		"[{\"kind\":\"siege_round\",\"year\":1450,\"seq\":1,\"player\":\"burgundy\","
		"\"province\":\"Calais\"},"
		" {\"kind\":\"battle\",\"year\":1450,\"seq\":2,\"province\":\"Dijon\","
		"\"winner\":\"france\",\"loser\":\"burgundy\",\"how\":\"conceded\","
		"\"half_ap\":[960,661],\"award\":69},"
		" {\"kind\":\"routers\",\"year\":1450,\"seq\":3,\"player\":\"burgundy\","
		"\"winner\":false,\"to_reserve_half_ap\":62,\"killed\":{\"Kn(S) general\":1}},"
		" {\"kind\":\"routers\",\"year\":1450,\"seq\":4,\"player\":\"france\","
		"\"winner\":true,\"to_reserve_half_ap\":60,\"killed\":{}},"
		" {\"kind\":\"routers\",\"year\":1450,\"seq\":5,\"player\":\"england\","
		"\"winner\":true,\"to_reserve_half_ap\":7,\"killed\":{}},"
		" {\"kind\":\"prestige\",\"year\":1450,\"seq\":6,\"player\":\"france\"},"
		" {\"kind\":\"retreat\",\"year\":1450,\"seq\":7,\"player\":\"burgundy\"},"
		" {\"kind\":\"routers\",\"year\":1450,\"seq\":8,\"player\":\"burgundy\","
		"\"winner\":false,\"to_reserve_half_ap\":1000},"
		" {\"kind\":\"organiser\",\"year\":1450,\"seq\":9,\"action\":\"battle-result\","
		"\"detail\":\"corrected the result of the battle at Dijon:\\nWINNER france\\n\"},"
		" {\"kind\":\"organiser\",\"year\":1450,\"seq\":10,\"action\":\"undo\","
		"\"detail\":\"the step turn-england was undone (2 unsent mails dropped); the campaign is paused\"},"
		" {\"kind\":\"organiser\",\"year\":1450,\"seq\":11,\"action\":\"battle-result\","
		"\"detail\":\"decided the result of the battle at Paris:\\n\"},"
		" {\"kind\":\"battle\",\"year\":1450,\"seq\":12,\"province\":\"Nowhere\"},"
		" {\"kind\":\"battle\",\"year\":1451,\"seq\":1,\"province\":\"Paris\","
		"\"winner\":\"burgundy\",\"loser\":\"france\",\"half_ap\":[10,10]},"
		" {\"kind\":\"organiser\",\"year\":1450,\"seq\":13}, 42, \"x\"]");
	json_t *b = diary_battles(c, events, 1450);
	assert_int_equal(json_array_size(b), 1); /* the one without sides is left out */
	const json_t *dijon = json_array_get(b, 0);
	assert_string_equal(str_at(dijon, "province"), "Dijon");
	assert_string_equal(str_at(dijon, "winner.key"), "france");
	assert_int_equal(int_at(dijon, "winner_ap"), 480);
	assert_true(json_real_value(json_object_get(dijon, "loser_ap")) == 330.5);
	/* France and its ally England: 30 + 3.5; Burgundy 31 and a general;
	 * the routers after the retreat are another matter */
	assert_true(json_number_value(json_object_get(dijon, "winner_lost_ap")) == 33.5);
	assert_int_equal(int_at(dijon, "loser_lost_ap"), 31);
	assert_int_equal(int_at(dijon, "loser_generals_killed"), 1);
	assert_int_equal(int_at(dijon, "winner_generals_killed"), 0);
	assert_int_equal(int_at(dijon, "award"), 69);
	assert_string_equal(str_at(dijon, "how"), "conceded");
	assert_true(json_is_true(json_object_get(dijon, "corrected")));
	json_decref(b);
	b = diary_battles(c, events, 1451);
	assert_int_equal(json_array_size(b), 1);
	assert_false(json_is_true(json_object_get(json_array_get(b, 0), "corrected")));
	json_decref(b);

	json_t *k = diary_corrections(c, events, 1450);
	assert_int_equal(json_array_size(k), 2);
	assert_string_equal(str_at(json_array_get(k, 0), "text"),
			    "The organiser corrected the result of the battle at Dijon.");
	assert_string_equal(str_at(json_array_get(k, 1), "text"),
			    "The organiser took back a step: the step turn-england was undone.");
	json_decref(k);

	json_t *m = diary_map_marks(c, events, 1450);
	assert_int_equal(json_array_size(m), 3);
	assert_string_equal(str_at(json_array_get(m, 0), "kind"), "siege");
	assert_string_equal(str_at(json_array_get(m, 0), "title"),
			    "Siege of Calais by burgundy, 1450");
	assert_string_equal(str_at(json_array_get(m, 1), "title"),
			    "Battle at Dijon, 1450: France & Co <Ltd> beat burgundy");
	assert_string_equal(str_at(json_array_get(m, 2), "province"), "Nowhere");
	json_decref(m);
	json_decref(events);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_turns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phases_and_comments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_standings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variants_reproducible, setup, teardown),
		cmocka_unit_test(test_odd_input),
		cmocka_unit_test(test_loss_short_and_contingent),
		cmocka_unit_test(test_dispute_in_order_and_losses),
		cmocka_unit_test(test_events_for_mail_say_once),
		cmocka_unit_test_setup_teardown(test_rewind, setup, teardown),
		cmocka_unit_test(test_battles_corrections_marks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
