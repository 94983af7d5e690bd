/* Unit tests for the campaign's JSON document (campaign_json.c). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/campaign_fixture.h"
#include "model/campaign_json.h"
#include "model/model.h"
#include "base/util.h"

static const json_t *path_get(const json_t *doc, const char *path)
{
	json_error_t err;
	const json_t *v = NULL;
	/* A tiny "a.b[2].c" walker keeps the assertions readable. */
	char *copy = xstrdup(path), *save = NULL;
	v = doc;
	for (char *tok = strtok_r(copy, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save)) {
		char *br = strchr(tok, '[');
		if (br) {
			*br = '\0';
			v = json_object_get(v, tok);
			v = json_array_get(v, strtoul(br + 1, NULL, 10));
		} else {
			v = json_object_get(v, tok);
		}
	}
	free(copy);
	(void)err;
	if (!v)
		fail_msg("no member %s", path);
	return v;
}

static void assert_json_string(const json_t *doc, const char *path, const char *expected)
{
	const json_t *v = path_get(doc, path);
	assert_true(json_is_string(v));
	assert_string_equal(json_string_value(v), expected);
}

static void assert_json_int(const json_t *doc, const char *path, long long expected)
{
	const json_t *v = path_get(doc, path);
	if (!json_is_integer(v))
		fail_msg("%s is not an integer", path);
	assert_int_equal(json_integer_value(v), expected);
}

static void test_document_content(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	json_t *doc = campaign_to_json(c);
	assert_non_null(doc);

	assert_json_int(doc, "schema_version", 1);
	assert_json_string(doc, "campaign.name", "Test Marches");
	assert_json_int(doc, "campaign.start_year", 1450);
	assert_true(json_is_null(path_get(doc, "campaign.organiser.player")));
	assert_json_int(doc, "year", 1450);
	assert_json_string(doc, "phase", "setup");
	assert_json_int(doc, "settings.reminder_hours[0]", 24);
	assert_json_int(doc, "settings.reminder_hours[1]", 2);
	assert_int_equal(json_array_size(path_get(doc, "settings.reminder_hours")), 2);

	assert_int_equal(json_array_size(path_get(doc, "provinces")), 5);
	assert_json_string(doc, "provinces[0].name", "Dijon");
	assert_json_string(doc, "provinces[0].owner", "burgundy");
	assert_json_string(doc, "provinces[0].home_of", "burgundy");
	assert_json_string(doc, "provinces[1].owner", "france");
	assert_true(json_is_null(path_get(doc, "provinces[2].owner")));
	assert_true(json_is_true(path_get(doc, "provinces[4].inviolate")));
	assert_true(json_real_value(path_get(doc, "provinces[0].x")) == 300.5);

	assert_json_string(doc, "routes[4].from", "Calais");
	assert_json_string(doc, "routes[4].to", "Jersey");
	assert_true(json_is_true(path_get(doc, "routes[4].sea")));
	assert_true(json_is_false(path_get(doc, "routes[0].sea")));

	assert_json_string(doc, "players[0].key", "burgundy");
	assert_json_string(doc, "players[0].status", "active");
	assert_json_string(doc, "players[0].field_army.location", "Dijon");
	assert_json_int(doc, "players[0].field_army.ap", 480);
	assert_json_int(doc, "players[0].field_army.generals", 2);
	assert_json_int(doc, "players[0].field_army.elements", 72);
	assert_json_int(doc, "players[0].field_army.troops.Kn(S)", 20);
	assert_json_int(doc, "players[0].reserve.ap", 0);
	assert_json_int(doc, "players[0].reserve.troops.Kn(S)", 0);
	assert_json_int(doc, "players[0].provinces_held", 1);
	/* A half-point cost is a real number, a whole one an integer. */
	const json_t *ps = path_get(doc, "players[0].army_list[3].cost");
	assert_true(json_is_real(ps));
	assert_true(json_real_value(ps) == 1.5);
	assert_json_int(doc, "players[0].army_list[1].cost", 12);
	assert_json_string(doc, "players[0].army_list[0].type", "Kn");
	assert_json_string(doc, "players[0].army_list[0].grade", "S");
	assert_true(json_is_true(path_get(doc, "players[0].army_list[0].general")));
	assert_json_int(doc, "players[1].field_army.ap", 480);
	assert_int_equal(json_array_size(path_get(doc, "contingents")), 0);
	assert_int_equal(json_array_size(path_get(doc, "sieges")), 0);

	json_decref(doc);
	campaign_free(c);
}

static void test_document_after_a_year(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	fixture_play_a_year(c);
	json_t *doc = campaign_to_json(c);

	assert_json_string(doc, "phase", "campaign");
	assert_json_int(doc, "year", 1451);
	assert_json_string(doc, "provinces[2].owner", "burgundy");
	assert_json_string(doc, "players[0].field_army.location", "Flanders");
	assert_json_int(doc, "players[0].field_army.ap", 420);
	assert_json_int(doc, "players[0].reserve.ap", 60);
	assert_json_int(doc, "players[0].reserve.troops.Kn(S)", 5);
	assert_json_int(doc, "players[0].provinces_held", 2);
	assert_json_int(doc, "players[0].prestige.battle", 2);
	assert_json_int(doc, "players[0].prestige.provinces", 3);
	assert_json_int(doc, "players[0].prestige.total", 5);
	assert_json_int(doc, "players[1].field_army.ap", 462);
	assert_json_string(doc, "players[1].overlord", "burgundy");
	assert_json_int(doc, "players[1].cap_ap", 470);
	assert_json_string(doc, "contingents[0].owner", "france");
	assert_json_string(doc, "contingents[0].with", "burgundy");
	assert_json_int(doc, "contingents[0].ap", 18);
	assert_json_int(doc, "contingents[0].troops.Kn(F)", 2);
	assert_json_string(doc, "sieges[0].province", "Calais");
	assert_json_string(doc, "sieges[0].besieger", "burgundy");
	assert_json_int(doc, "sieges[0].rounds_failed", 1);
	assert_json_int(doc, "sieges[0].last_round_year", 1451);
	assert_json_string(doc, "players[0].movement_option", "invade");
	assert_true(json_is_true(path_get(doc, "players[0].fought_this_year")));
	assert_json_string(doc, "players[1].movement_option", "none");

	/* One Ps(I) (1.5) and ten Bw(O) (50) more: 420 + 51.5 = 471.5 AP. */
	c->players[0].field.count[3] += 1;
	c->players[0].field.count[2] += 10;
	json_decref(doc);
	doc = campaign_to_json(c);
	const json_t *ap = path_get(doc, "players[0].field_army.ap");
	assert_true(json_is_real(ap));
	assert_true(json_real_value(ap) == 471.5);

	json_decref(doc);
	campaign_free(c);
}

static void assert_round_trip(struct campaign *c)
{
	json_t *doc = campaign_to_json(c);
	char *err = NULL;
	struct campaign *back = campaign_from_json(doc, &err);
	if (!back)
		fail_msg("campaign_from_json: %s", err);
	json_t *again = campaign_to_json(back);
	if (!json_equal(doc, again)) {
		char *a = json_dumps(doc, JSON_INDENT(1)), *b = json_dumps(again, JSON_INDENT(1));
		print_error("before:\n%s\nafter:\n%s\n", a, b);
		free(a);
		free(b);
		fail();
	}
	/* The model itself came back, not only its picture. */
	assert_int_equal(back->province_count, c->province_count);
	assert_int_equal(back->players[0].location, c->players[0].location);
	assert_int_equal(back->players[1].overlord, c->players[1].overlord);
	assert_int_equal(back->contingent_count, c->contingent_count);
	assert_int_equal(player_field_half_ap(&back->players[0]),
			 player_field_half_ap(&c->players[0]));
	json_decref(again);
	json_decref(doc);
	campaign_free(back);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	assert_round_trip(c);
	fixture_play_a_year(c);
	c->players[1].status = PLAYER_OUT;
	c->organiser_player = 1;
	c->settings.siege_floor = 2;
	c->settings.supply_across_sea = false;
	c->settings.inviolate_passable = false;
	c->players[1].movement_option = OPTION_ALLY;
	c->settings.reminder_hours[2] = 1;
	/* a declared alliance (rules 2.3), kept with the year it was made */
	grow_array((void **)&c->alliances, &c->alliance_cap, 1, sizeof *c->alliances);
	c->alliances[c->alliance_count++] = (struct alliance){.a = 0, .b = 1, .since_year = 1451};
	json_t *doc = campaign_to_json(c);
	assert_json_string(doc, "alliances[0].a", c->players[0].key);
	assert_json_string(doc, "alliances[0].b", c->players[1].key);
	assert_json_int(doc, "alliances[0].since_year", 1451);
	json_decref(doc);
	assert_round_trip(c);
	campaign_free(c);
}

static void expect_error(json_t *doc, const char *needle)
{
	char *err = NULL;
	struct campaign *c = campaign_from_json(doc, &err);
	assert_null(c);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err, needle);
	free(err);
}

static void test_from_json_errors(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	fixture_play_a_year(c);
	json_t *doc = campaign_to_json(c);
	campaign_free(c);
	json_t *copy;

	copy = json_deep_copy(doc);
	json_object_set_new((json_t *)path_get(copy, "players[1].field_army"), "location",
			    json_string("Flandres"));
	expect_error(copy, "players[1].field_army.location: unknown province \"Flandres\"");
	json_decref(copy);

	copy = json_deep_copy(doc);
	json_object_set_new((json_t *)path_get(copy, "players[0].army_list[3]"), "cost",
			    json_real(1.25));
	expect_error(copy, "players[0].army_list[3].cost: must be a whole or half number");
	json_decref(copy);

	copy = json_deep_copy(doc);
	json_object_set_new((json_t *)path_get(copy, "contingents[0].troops"), "Kn(S)",
			    json_integer(1));
	expect_error(copy, "contingents[0].troops.Kn(S): not in the army list");
	json_decref(copy);

	copy = json_deep_copy(doc);
	json_object_set_new((json_t *)path_get(copy, "provinces[3]"), "owner",
			    json_string("england"));
	expect_error(copy, "provinces[3].owner: unknown player \"england\"");
	json_decref(copy);

	copy = json_deep_copy(doc);
	json_object_set_new((json_t *)path_get(copy, "provinces[3]"), "name", json_string("dijon"));
	expect_error(copy, "provinces[3]: province \"dijon\" appears twice");
	json_decref(copy);

	copy = json_deep_copy(doc);
	json_object_set_new(copy, "schema_version", json_integer(2));
	expect_error(copy, "schema_version: 2 is not supported");
	json_decref(copy);

	copy = json_deep_copy(doc);
	json_object_set_new(copy, "phase", json_string("winter"));
	expect_error(copy, "phase: unknown phase \"winter\"");
	json_decref(copy);

	json_t *arr = json_array();
	expect_error(arr, "document: must be a JSON object");
	json_decref(arr);
	json_decref(doc);
}

/* Members computed from others; the reader ignores them. */
static bool derived(const char *key)
{
	/* "tag": a database written before tags has none; the default is made
	 * from the name; "alliances": a snapshot written before alliances has
	 * none (and there were none) */
	static const char *const keys[] = {"ap", "generals", "elements", "provinces_held",
					   "total", "tag", "alliances", NULL};
	for (size_t i = 0; keys[i]; i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* Removes, then retypes, each member of every object in turn: the reader
 * must refuse each broken document (never crash, never accept silently),
 * except for derived members and army counts, which may be absent. */
static size_t break_each_member(json_t *root, json_t *obj, bool counts)
{
	size_t tried = 0;
	if (json_is_array(obj)) {
		for (size_t i = 0; i < json_array_size(obj); i++)
			tried += break_each_member(root, json_array_get(obj, i), false);
		return tried;
	}
	if (!json_is_object(obj))
		return 0;
	size_t n = json_object_size(obj);
	char **keys = xcalloc(n, sizeof *keys);
	size_t k = 0;
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v)
		keys[k++] = xstrdup(key);
	for (size_t i = 0; i < n; i++) {
		json_t *value = json_incref(json_object_get(obj, keys[i]));
		bool must_fail = !derived(keys[i]);
		char *err = NULL;
		struct campaign *c;

		json_object_del(obj, keys[i]);
		c = campaign_from_json(root, &err);
		if (must_fail && !counts && c)
			fail_msg("document without \"%s\" was accepted", keys[i]);
		campaign_free(c);
		free(err);
		err = NULL;

		json_object_set_new(obj, keys[i], json_pack("[s]", "?"));
		c = campaign_from_json(root, &err);
		if (must_fail && c)
			fail_msg("document with an array as \"%s\" was accepted", keys[i]);
		campaign_free(c);
		free(err);

		json_object_set_new(obj, keys[i], value);
		tried++;
		tried += break_each_member(root, value, strcmp(keys[i], "troops") == 0);
		free(keys[i]);
	}
	free(keys);
	return tried;
}

static void test_from_json_never_accepts_broken(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	fixture_play_a_year(c);
	json_t *doc = campaign_to_json(c);
	size_t tried = break_each_member(doc, doc, false);
	/* Every member of the document was tried: over a hundred of them. */
	assert_true(tried > 150);
	json_decref(doc);
	campaign_free(c);
}

static void test_invalid_utf8_survives(void **state)
{
	(void)state;
	struct campaign *c = fixture_campaign();
	free(c->provinces[2].name);
	c->provinces[2].name = xstrdup("Fl\xe2ndres"); /* Latin-1 â */
	json_t *doc = campaign_to_json(c);
	assert_non_null(doc);
	assert_json_string(doc, "provinces[2].name", "Fl\xc3\xa2ndres");
	json_decref(doc);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_content),
		cmocka_unit_test(test_document_after_a_year),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_from_json_errors),
		cmocka_unit_test(test_from_json_never_accepts_broken),
		cmocka_unit_test(test_invalid_utf8_survives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
