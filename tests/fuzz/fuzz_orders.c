/* libFuzzer harness for the order language: any bytes as a mail's text,
 * parsed, validated, merged, acknowledged and formatted against a small
 * fixed campaign; the canonical text of the result is parsed again. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "model/model.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct campaign *campaign;

static void add_province(const char *name, int owner, bool inviolate)
{
	struct province *p = campaign_add_province(campaign);
	p->name = xstrdup(name);
	p->owner = owner;
	p->inviolate = inviolate;
}

static void add_route(int a, int b, bool sea)
{
	struct route *r = campaign_add_route(campaign);
	r->a = a;
	r->b = b;
	r->sea = sea;
}

static void add_player(const char *key, const char *nation, int location, bool overlord_of_prev)
{
	static const char *const labels[] = {"Kn(S) general", "Cv(O) general", "Kn(O)", "Bw(O)",
					     "Ps(O)"};
	static const int costs[] = {70, 56, 24, 10, 4};
	static const bool generals[] = {true, true, false, false, false};
	struct player *p = campaign_add_player(campaign);
	p->key = xstrdup(key);
	p->nation = xstrdup(nation);
	p->location = location;
	for (size_t i = 0; i < 5; i++) {
		struct element_type *t = army_list_add(&p->list);
		t->label = xstrdup(labels[i]);
		t->cost_half_ap = costs[i];
		t->general = generals[i];
		t->list_min = 1;
		t->list_max = 20;
	}
	player_alloc_troops(p);
	for (size_t i = 0; i < 5; i++) {
		p->field.count[i] = (int)i + 1;
		p->reserve.count[i] = 2;
	}
	if (overlord_of_prev)
		campaign->players[campaign->player_count - 2].overlord =
			(int)campaign->player_count - 1;
}

static void build(void)
{
	campaign = campaign_new();
	campaign->name = xstrdup("Fuzz");
	campaign->phase = PHASE_CAMPAIGN;
	add_province("Flanders", 0, false);
	add_province("Artois", 0, false);
	add_province("Ile de France", 1, false);
	add_province("Champagne", 1, false);
	add_province("Kent", 2, false);
	add_province("Calais", NO_INDEX, false);
	add_province("Genève", NO_INDEX, true);
	add_route(0, 1, false);
	add_route(1, 2, false);
	add_route(1, 5, false);
	add_route(2, 3, false);
	add_route(3, 6, false);
	add_route(0, 4, true);
	add_route(4, 5, true);
	add_player("burgundy", "Duchy of Burgundy", 0, false);
	add_player("france", "France", 3, false);
	add_player("england", "England", 4, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!campaign)
		build();
	char *text = xstrndup((const char *)data, size);
	fuzz_check_orders(text, campaign);
	free(text);
	return 0;
}
