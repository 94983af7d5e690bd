#include "config.h"

#include <stdlib.h>

#include "fuzz_check.h"

void fuzz_check_diags(const struct diag_list *diags, bool parsed, const uint8_t *data,
		      size_t size)
{
	if (!parsed != (diags->errors > 0))
		abort();
	int lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t i = 0; i < diags->count; i++) {
		const struct diag *d = &diags->items[i];
		if (!d->message || !*d->message || d->line < 0 || d->line > lines)
			abort();
	}
}
