/* store_save_state skips a save that would write nothing new (the campaign
 * kept in memory is the stored one). Each part of the state it saves is
 * changed here in turn on a campaign loaded through that cache, saved, and
 * read back by another connection: a part the skip did not look at would
 * be lost. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/campaign_fixture.h"
#include "lib/files.h"
#include "lib/store_fixture.h"
#include "model/campaign_json.h"
#include "store/store.h"
#include "base/util.h"

static struct campaign *load(struct store *s)
{
	struct campaign *c = NULL;
	char *err = NULL;
	if (store_load_campaign(s, &c, &err) != STORE_OK)
		fail_msg("load: %s", err ? err : "?");
	return c;
}

static bool same_json(const struct campaign *a, const struct campaign *b)
{
	json_t *ja = campaign_to_json(a), *jb = campaign_to_json(b);
	bool same = json_equal(ja, jb);
	json_decref(ja);
	json_decref(jb);
	return same;
}

/* The fixture after fixture_play_a_year has a contingent (France's, with
 * Burgundy) and a siege. Each change is made to the state saved before it. */
static void c_year(struct campaign *c) { c->year++; }
static void c_phase(struct campaign *c) { c->phase = PHASE_RECRUITMENT; }
static void c_owner(struct campaign *c) { c->provinces[0].owner = 1; }
static void c_no_owner(struct campaign *c) { c->provinces[0].owner = NO_INDEX; }
static void c_location(struct campaign *c) { c->players[1].location = 3; }
static void c_original(struct campaign *c) { c->players[0].original_half_ap += 2; }
static void c_cap(struct campaign *c) { c->players[0].cap_half_ap += 2; }
static void c_battle(struct campaign *c) { c->players[1].battle_prestige++; }
static void c_provinces(struct campaign *c) { c->players[1].province_prestige++; }
static void c_quiet(struct campaign *c) { c->players[0].quiet_years++; }
static void c_overlord(struct campaign *c) { c->players[1].overlord = NO_INDEX; }
static void c_status(struct campaign *c) { c->players[1].status = PLAYER_OUT; }
static void c_option(struct campaign *c) { c->players[1].movement_option = OPTION_MOVE; }
static void c_fought(struct campaign *c) { c->players[1].fought_this_year = true; }
static void c_by_mail(struct campaign *c) { c->players[1].setup_by_mail = true; }
static void c_field(struct campaign *c) { c->players[0].field.count[2]--; }
static void c_reserve(struct campaign *c) { c->players[1].reserve.count[2]++; }
static void c_k_with(struct campaign *c) { c->contingents[0].with_player = 1; }
static void c_k_sent(struct campaign *c) { c->contingents[0].sent_year--; }
static void c_k_returning(struct campaign *c) { c->contingents[0].returning = true; }
static void c_k_troops(struct campaign *c) { c->contingents[0].troops.count[2] = 3; }
static void c_k_gone(struct campaign *c)
{
	troops_free(&c->contingents[0].troops);
	c->contingent_count = 0;
}
static void c_s_province(struct campaign *c) { c->sieges[0].province = 2; }
static void c_s_besieger(struct campaign *c) { c->sieges[0].besieger = 1; }
static void c_s_rounds(struct campaign *c) { c->sieges[0].rounds_failed++; }
static void c_s_last(struct campaign *c) { c->sieges[0].last_round_year++; }
static void c_s_gone(struct campaign *c) { c->siege_count = 0; }
static void c_a_made(struct campaign *c)
{
	grow_array((void **)&c->alliances, &c->alliance_cap, c->alliance_count + 1,
		   sizeof *c->alliances);
	c->alliances[c->alliance_count++] = (struct alliance){.a = 0, .b = 1, .since_year = c->year};
}
static void c_a_since(struct campaign *c) { c->alliances[0].since_year--; }
static void c_a_gone(struct campaign *c) { c->alliance_count = 0; }
static void c_joining(struct campaign *c) { c->players[0].status = PLAYER_JOINING; }

static const struct change {
	const char *what;
	void (*apply)(struct campaign *c);
} changes[] = {
	{"year", c_year},
	{"phase", c_phase},
	{"province owner", c_owner},
	{"province without owner", c_no_owner},
	{"location", c_location},
	{"original AP", c_original},
	{"AP cap", c_cap},
	{"battle prestige", c_battle},
	{"province prestige", c_provinces},
	{"quiet years", c_quiet},
	{"overlord", c_overlord},
	{"status", c_status},
	{"movement option", c_option},
	{"fought this year", c_fought},
	{"setup by mail", c_by_mail},
	{"field army", c_field},
	{"reserve", c_reserve},
	{"contingent with", c_k_with},
	{"contingent sent", c_k_sent},
	{"contingent returning", c_k_returning},
	{"contingent troops", c_k_troops},
	{"contingent gone", c_k_gone},
	{"siege province", c_s_province},
	{"siege besieger", c_s_besieger},
	{"siege rounds failed", c_s_rounds},
	{"siege last round", c_s_last},
	{"siege gone", c_s_gone},
	{"alliance made", c_a_made},
	{"alliance since", c_a_since},
	{"alliance gone", c_a_gone},
	{"joining", c_joining},
};

static void test_every_saved_part_is_saved(void **state)
{
	(void)state;
	char dir[64];
	test_scratch_dir(dir, "store_state");
	char *db = xasprintf("%s/campaign.db", dir);
	struct campaign *c = fixture_campaign();
	fixture_play_a_year(c);
	struct store *s = test_store_open(db);
	char *err = NULL;
	assert_int_equal(store_init_campaign(s, c, false, &err), STORE_OK);
	campaign_free(c);

	for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
		struct campaign *a = load(s), *before = load(s); /* the kept one, twice */
		changes[i].apply(a);
		if (same_json(a, before))
			fail_msg("%s: the change is not a change", changes[i].what);
		if (store_save_state(s, a, &err) != STORE_OK)
			fail_msg("%s: save: %s", changes[i].what, err ? err : "?");
		struct store *other = test_store_open(db);
		struct campaign *back = load(other);
		if (!same_json(a, back))
			fail_msg("%s: the save was skipped or incomplete", changes[i].what);
		store_close(other);
		campaign_free(back);
		campaign_free(before);
		campaign_free(a);
	}
	store_close(s);
	test_scratch_remove(dir);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_saved_part_is_saved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
