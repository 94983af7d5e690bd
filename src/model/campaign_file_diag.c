/* The campaign file's messages: errors and warnings with their line, the
 * "did you mean" hints, and handing them over sorted by line. */
#include "config.h"

#include "model/campaign_file_p.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- messages */

static void report(struct parser *ps, enum diag_level level, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void report(struct parser *ps, enum diag_level level, int line, const char *fmt, va_list ap)
{
	struct strbuf sb = {0};
	strbuf_vprintf(&sb, fmt, ap);
	char *msg = strbuf_take(&sb);
	diag_add(&ps->diags, level, ps->file, line, "%s", msg);
	free(msg);
}

void cf_error(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(ps, DIAG_ERROR, line, fmt, ap);
	va_end(ap);
}

void cf_warning(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(ps, DIAG_WARNING, line, fmt, ap);
	va_end(ap);
}

/* " (did you mean "X"?)" or "" — valid until the next call. */
const char *cf_did_you_mean(const char *const *names, int suggestion)
{
	static _Thread_local char buf[256];
	if (suggestion < 0 || !names[suggestion])
		return "";
	snprintf(buf, sizeof buf, " (did you mean \"%s\"?)", names[suggestion]);
	return buf;
}

/* Exact (case- and accent-folded) lookup. On a miss, *suggestion is the
 * candidate worth offering (a unique prefix or a close spelling) or -1: a
 * campaign file is written once and read for months, so abbreviations that
 * orders accept are not accepted silently here. */
int cf_lookup_exact(const char *query, const char *const *names, size_t n, int *suggestion)
{
	int sugg = -1;
	int i = name_lookup(query, names, n, &sugg);
	if (i >= 0 && name_equal(names[i], query)) {
		*suggestion = -1;
		return i;
	}
	*suggestion = i >= 0 ? i : sugg;
	return -1;
}

/* ------------------------------------------------------------- diagnostics */

struct numbered_diag {
	struct diag d;
	size_t seq;
};

static int compare_diag(const void *a, const void *b)
{
	const struct numbered_diag *x = a, *y = b;
	if (x->d.line != y->d.line)
		return x->d.line < y->d.line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Moves the collected diagnostics, sorted by line, to the caller's list. */
void cf_hand_over_diags(struct parser *ps, struct diag_list *out)
{
	size_t n = ps->diags.count;
	struct numbered_diag *nd = xcalloc(n ? n : 1, sizeof *nd);
	for (size_t i = 0; i < n; i++) {
		nd[i].d = ps->diags.items[i];
		nd[i].seq = i;
	}
	qsort(nd, n, sizeof *nd, compare_diag);
	grow_array((void **)&out->items, &out->cap, out->count + n, sizeof *out->items);
	for (size_t i = 0; i < n; i++) {
		out->items[out->count++] = nd[i].d;
		if (nd[i].d.level == DIAG_ERROR)
			out->errors++;
	}
	free(nd);
	free(ps->diags.items);
	memset(&ps->diags, 0, sizeof ps->diags);
}
