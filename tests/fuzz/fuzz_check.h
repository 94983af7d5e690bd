/* The properties several libFuzzer harnesses check, in one place. Each
 * aborts (the harness's crash) when a property does not hold. */
#ifndef CAMPAIGN_FUZZ_CHECK_H
#define CAMPAIGN_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "model/model.h"

/* A parser's diagnostics for the input data: a result came back exactly
 * when no error was reported (`parsed`), and every diagnostic has a
 * message and names a line of the text. (fuzz_check_diags.c) */
void fuzz_check_diags(const struct diag_list *diags, bool parsed, const uint8_t *data,
		      size_t size);

/* The order language on a mail's text against campaign: parsed, validated,
 * merged into empty pending orders and acknowledged; the acknowledgement is
 * valid JSON text, the password is never echoed, and the canonical text of
 * the result parses again without error. (fuzz_check_orders.c) */
void fuzz_check_orders(const char *text, const struct campaign *campaign);

#endif
