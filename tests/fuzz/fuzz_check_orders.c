#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "dbm/orders.h"

/* True if a text of the order that goes back to the player holds `secret`.
 * (Names from the campaign file may hold any word, so the check is on the
 * texts built from the mail.) */
static bool echoes(const struct order *o, const char *secret)
{
	const char *texts[] = {o->text, o->understood, o->error, o->guess};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		if (texts[i] && strstr(texts[i], secret))
			return true;
	return false;
}

void fuzz_check_orders(const char *text, const struct campaign *campaign)
{
	struct order_set mail, pending, current, again;
	orders_parse(text, campaign, -1, &mail);
	orders_validate(&mail, campaign, mail.player);
	orders_set_init(&pending);
	orders_merge(&pending, &mail, &current);
	json_t *ack = orders_ack_json(&mail, &current, campaign, mail.player);
	char *dump = json_dumps(ack, 0);
	if (!dump)
		abort(); /* every text in the acknowledgement must be valid UTF-8 */
	free(dump);
	json_decref(ack);
	if (mail.password && strlen(mail.password) >= 4)
		for (size_t i = 0; i < mail.count; i++)
			if (echoes(&mail.orders[i], mail.password))
				abort(); /* the password must never be echoed */
	char *canonical = orders_format_pending(&current, campaign);
	orders_parse(canonical, campaign, current.player, &again);
	/* the canonical text must parse without a single error */
	if (again.errors)
		abort();
	orders_set_free(&again);
	free(canonical);
	orders_set_free(&mail);
	orders_set_free(&pending);
	orders_set_free(&current);
}
