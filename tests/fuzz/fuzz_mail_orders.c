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
#include "fuzz_check.h"
#include "mail/mail_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* contrib/examples/europe1450.campaign as a C string, made by the build. */
static const char campaign_text[] =
#include "europe1450.inc"
	;

static struct campaign *campaign;

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
	if (m.text)
		fuzz_check_orders(m.text, campaign);
	mail_info_free(&m);
	return 0;
}
