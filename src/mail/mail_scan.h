/* A cheap, linear scan of a raw mail, before any parser sees it: how deep
 * its MIME containers nest, how many parts it may have, how deep its
 * parentheses (RFC 5322 comments) nest. libetpan's parser recurses once per
 * level of each, so mail_read refuses a mail beyond its limits unread.
 * Pure: no allocation, no I/O, no libetpan. */
#ifndef CAMPAIGN_MAIL_SCAN_H
#define CAMPAIGN_MAIL_SCAN_H

#include <stddef.h>

/* What mail_scan measured. */
struct mail_scan {
	int nesting;         /* deepest MIME container nesting (message: 0) */
	size_t parts;        /* an upper bound on the parts: the lines that
				start a Content-Type field or with "--", anywhere */
	int comment_nesting; /* deepest parenthesis nesting in one unfolded line */
};

/* Scans len bytes (no libetpan, no allocation, linear in len times the
 * nesting reached): the scan stops as soon as the nesting passes
 * max_nesting (or 254), so nesting then says max_nesting + 1 at most.
 * parts bounds the depth libetpan can recurse to, whatever the structure. */
void mail_scan(const char *raw, size_t len, int max_nesting, struct mail_scan *out);

/* Blanks out every comment of s in place, parentheses included (an
 * unclosed one to the end of its unfolded line), so that what mail_scan
 * counted is harmless to a parser. */
void mail_scan_blank_comments(char *s, size_t len);

#endif
