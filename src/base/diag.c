#include "config.h"

#include "base/diag.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void diag_add(struct diag_list *dl, enum diag_level level, const char *file, int line,
	      const char *fmt, ...)
{
	grow_array((void **)&dl->items, &dl->cap, dl->count + 1, sizeof *dl->items);
	struct diag *d = &dl->items[dl->count++];
	struct strbuf sb = {0};
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	d->level = level;
	d->file = file ? xstrdup(file) : NULL;
	d->line = line;
	d->message = strbuf_take(&sb);
	if (level == DIAG_ERROR)
		dl->errors++;
}

void diag_print(const struct diag_list *dl, FILE *out)
{
	for (size_t i = 0; i < dl->count; i++) {
		const struct diag *d = &dl->items[i];
		const char *lvl = d->level == DIAG_ERROR ? "error" : "warning";
		if (d->file && d->line > 0)
			fprintf(out, "%s:%d: %s: %s\n", d->file, d->line, lvl, d->message);
		else if (d->file)
			fprintf(out, "%s: %s: %s\n", d->file, lvl, d->message);
		else
			fprintf(out, "%s: %s\n", lvl, d->message);
	}
}

const struct diag *diag_find(const struct diag_list *dl, const char *needle)
{
	for (size_t i = 0; i < dl->count; i++)
		if (strstr(dl->items[i].message, needle))
			return &dl->items[i];
	return NULL;
}

void diag_free(struct diag_list *dl)
{
	for (size_t i = 0; i < dl->count; i++) {
		free(dl->items[i].file);
		free(dl->items[i].message);
	}
	free(dl->items);
	memset(dl, 0, sizeof *dl);
}
