/* libFuzzer harness for the campaign-file parser: any bytes as a campaign
 * file. The parser must keep the contract of campaign_file.h (a campaign
 * exactly when no error was reported; every diagnostic names the file and a
 * line of the text), and a campaign it accepts must survive the JSON export
 * and import that campaignctl export and the store rely on. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "model/campaign_file.h"
#include "model/campaign_json.h"
#include "base/diag.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_list diags = {0};
	struct campaign *c = campaign_file_parse((const char *)data, size, "fuzz.campaign", &diags);
	fuzz_check_diags(&diags, c != NULL, data, size);
	if (c) {
		json_t *doc = campaign_to_json(c);
		char *dump = json_dumps(doc, 0);
		if (!dump)
			abort(); /* every name must have come out as valid UTF-8 */
		char *err = NULL;
		struct campaign *back = campaign_from_json(doc, &err);
		if (!back)
			abort(); /* what we export, we must be able to import */
		if (back->province_count != c->province_count ||
		    back->player_count != c->player_count || back->route_count != c->route_count)
			abort();
		campaign_free(back);
		free(err);
		free(dump);
		json_decref(doc);
		campaign_free(c);
	}
	diag_free(&diags);
	return 0;
}
