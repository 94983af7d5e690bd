/* A player added to a stored campaign during play (store_join.c): his
 * rows, the joining mark kept across saves and loads, a file of the
 * previous schema upgraded, and what is refused. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/campaign_fixture.h"
#include "lib/files.h"
#include "lib/store_fixture.h"
#include "store/store.h"
#include "base/util.h"

struct scratch {
	char dir[64];
	char *db;
};

static int setup(void **state)
{
	struct scratch *sc = xcalloc(1, sizeof *sc);
	test_scratch_dir(sc->dir, "storejoin");
	sc->db = xasprintf("%s/campaign.db", sc->dir);
	*state = sc;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *sc = *state;
	test_scratch_remove(sc->dir);
	free(sc->db);
	free(sc);
	return 0;
}

static struct campaign *load(struct store *s)
{
	struct campaign *c = NULL;
	char *err = NULL;
	if (store_load_campaign(s, &c, &err) != STORE_OK)
		fail_msg("load: %s", err);
	return c;
}

/* Delta joins c: the last player, Genève his, joining. */
static int add_delta(struct campaign *c)
{
	struct player *p = campaign_add_player(c);
	p->key = xstrdup("delta");
	p->nation = xstrdup("Deltaland");
	p->email = xstrdup("dave@example.com");
	struct element_type *t = army_list_add(&p->list);
	t->label = xstrdup("General");
	strcpy(t->code, "Kn");
	t->grade = 'S';
	t->cost_half_ap = 44;
	t->list_min = t->list_max = 1;
	t->general = true;
	player_alloc_troops(p);
	p->location = p->overlord = NO_INDEX;
	p->status = PLAYER_JOINING;
	p->setup_by_mail = true;
	int me = (int)c->player_count - 1;
	c->provinces[campaign_find_province(c, "Genève")].home_of = me;
	return me;
}

static void test_add_player_kept(void **state)
{
	struct scratch *sc = *state;
	/* a file of the schema before this one, upgraded on opening */
	struct store *s = NULL;
	char *err = NULL;
	if (store_open_at_version(sc->db, STORE_CREATE, STORE_SCHEMA_VERSION - 1, &s, &err) !=
	    STORE_OK)
		fail_msg("open: %s", err);
	struct campaign *c = test_campaign_load("tests/data/campaign/minimal.campaign");
	assert_int_equal(store_init_campaign(s, c, false, &err), STORE_OK);
	campaign_free(c);
	store_close(s);
	s = test_store_open(sc->db);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);

	c = load(s);
	int me = add_delta(c);
	/* before the rows are added, a save is refused as today */
	assert_int_equal(store_save_state(s, c, &err), STORE_MISMATCH);
	free(err);
	err = NULL;
	assert_int_equal(store_add_player(s, c, me, &err), STORE_OK);
	/* twice: refused, nothing added */
	assert_int_equal(store_add_player(s, c, me, &err), STORE_MISMATCH);
	assert_non_null(strstr(err, "the stored campaign has 4 players, not 3"));
	free(err);
	err = NULL;
	campaign_free(c);

	c = load(s);
	assert_int_equal(c->player_count, 4);
	assert_string_equal(c->players[3].key, "delta");
	assert_int_equal(c->players[3].status, PLAYER_JOINING);
	assert_true(c->players[3].setup_by_mail);
	assert_int_equal(c->players[3].list.count, 1);
	int geneve = campaign_find_province(c, "Genève");
	assert_int_equal(c->provinces[geneve].home_of, 3);
	assert_int_equal(c->provinces[geneve].owner, NO_INDEX);

	/* he enters: the mark goes, the state is saved as anyone's */
	c->players[3].status = PLAYER_ACTIVE;
	c->players[3].setup_by_mail = false;
	c->players[3].location = geneve;
	c->players[3].field.count[0] = 1;
	c->provinces[geneve].owner = 3;
	assert_int_equal(store_save_state(s, c, &err), STORE_OK);
	campaign_free(c);
	store_close(s);
	s = test_store_open(sc->db);
	c = load(s);
	assert_int_equal(c->players[3].status, PLAYER_ACTIVE);
	assert_false(c->players[3].setup_by_mail);
	assert_int_equal(c->players[3].location, geneve);
	assert_int_equal(c->players[3].field.count[0], 1);
	assert_int_equal(c->provinces[geneve].owner, 3);
	campaign_free(c);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_player_kept, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
