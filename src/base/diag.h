/* Diagnostics collected while reading a user's file: every error is kept so
 * the user sees all of them in one run, each as "file:line: message". */
#ifndef CAMPAIGN_DIAG_H
#define CAMPAIGN_DIAG_H

#include <stddef.h>
#include <stdio.h>

enum diag_level { DIAG_ERROR, DIAG_WARNING };

struct diag {
	enum diag_level level;
	char *file;   /* may be NULL for errors not tied to a file */
	int line;     /* 0 when not tied to a line */
	char *message;
};

struct diag_list {
	struct diag *items;
	size_t count;
	size_t cap;
	size_t errors; /* number of DIAG_ERROR items */
};

void diag_add(struct diag_list *dl, enum diag_level level, const char *file, int line,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Writes each diagnostic as "file:line: error: message\n". */
void diag_print(const struct diag_list *dl, FILE *out);
/* Finds the first diagnostic whose message contains `needle` (tests use it). */
const struct diag *diag_find(const struct diag_list *dl, const char *needle);
void diag_free(struct diag_list *dl);

#endif
