/* libFuzzer harness for the campaignd.conf parser: any bytes as a
 * configuration file. A configuration comes back exactly when no error was
 * reported, and every diagnostic names a line of the text. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "daemon/conf.h"
#include "base/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_list diags = {0};
	struct conf *cfg = conf_parse((const char *)data, size, "fuzz.conf", "/srv/campaign",
				      &diags);
	fuzz_check_diags(&diags, cfg != NULL, data, size);
	if (cfg && (!cfg->database || !cfg->campaign_address))
		abort(); /* required keys: conf_parse must not accept a file without them */
	conf_free(cfg);
	diag_free(&diags);
	return 0;
}
