/* libFuzzer harness for the whole path of an order mail: any bytes as a raw
 * mail go through mail_read (MIME, charsets, quotes, signatures), and the
 * text it gives is parsed, validated, merged and acknowledged as orders
 * against the Europe 1450 example campaign, built into the harness. The
 * properties are those the engine relies on: text or refusal, never a
 * password echoed, an acknowledgement that is valid JSON text, and pending
 * orders whose canonical text parses again without error. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/campaign_file.h"
#include "base/diag.h"
#include "mail/mail_read.h"
#include "dbm/orders.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* contrib/examples/europe1450.campaign as a C string, made by the build. */
static const char campaign_text[] =
#include "europe1450.inc"
	;

static struct campaign *campaign;

static bool echoes(const struct order *o, const char *secret)
{
	const char *texts[] = {o->text, o->understood, o->error, o->guess};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		if (texts[i] && strstr(texts[i], secret))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!campaign) {
		struct diag_list diags = {0};
		campaign = campaign_file_parse(campaign_text, sizeof campaign_text - 1,
					       "fuzz.campaign", &diags);
		if (!campaign) {
			diag_print(&diags, stderr);
			abort();
		}
		diag_free(&diags);
	}
	/* the daemon's defaults: run-all.sh gives inputs up to just past the
	 * default size limit, so the "too large" path is reached as well */
	const struct mail_read_limits limits = {0};
	struct mail_info m;
	if (mail_read((const char *)data, size, &limits, &m) != 0 || !m.text == !m.refusal)
		abort();
	if (m.text) {
		struct order_set mail, pending, current, again;
		orders_parse(m.text, campaign, -1, &mail);
		orders_validate(&mail, campaign, mail.player);
		orders_set_init(&pending);
		orders_merge(&pending, &mail, &current);
		json_t *ack = orders_ack_json(&mail, &current, campaign, mail.player);
		char *dump = json_dumps(ack, 0);
		if (!dump)
			abort();
		free(dump);
		json_decref(ack);
		if (mail.password && strlen(mail.password) >= 4)
			for (size_t i = 0; i < mail.count; i++)
				if (echoes(&mail.orders[i], mail.password))
					abort();
		char *canonical = orders_format_pending(&current, campaign);
		orders_parse(canonical, campaign, current.player, &again);
		if (again.errors)
			abort();
		orders_set_free(&again);
		free(canonical);
		orders_set_free(&mail);
		orders_set_free(&pending);
		orders_set_free(&current);
	}
	mail_info_free(&m);
	return 0;
}
