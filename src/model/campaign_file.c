/* The campaign file parser and its checks (syntax: doc/campaign.5).
 *
 * One pass reads the lines into the model, remembering the names that refer
 * to things defined elsewhere in the file (a province's home player, a
 * player's start province, the routes, organiser-plays); a second pass
 * resolves those names and checks the campaign as a whole. Parsing never
 * stops at an error: the organiser sees every problem in one run, sorted by
 * line. Where one error would only cause others (an element line that could
 * not be read makes the army total meaningless), the follow-on checks are
 * skipped rather than reported twice.
 *
 * This file is the entry: it cuts the text into lines for the reader
 * (campaign_file_read.c, which hands each section's keys to
 * campaign_file_keys.c), then runs the whole-file checks
 * (campaign_file_check.c); campaign_file_diag.c holds the messages. */
#include "config.h"

#include "model/campaign_file_p.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------- text */

static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char b = s[i];
		size_t len;
		unsigned cp;
		if (b < 0x80) {
			i++;
			continue;
		} else if (b >= 0xC2 && b <= 0xDF) {
			len = 2;
			cp = b & 0x1F;
		} else if (b >= 0xE0 && b <= 0xEF) {
			len = 3;
			cp = b & 0x0F;
		} else if (b >= 0xF0 && b <= 0xF4) {
			len = 4;
			cp = b & 0x07;
		} else {
			return false;
		}
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

/* --------------------------------------------------------- parser storage */

static void parser_free(struct parser *ps)
{
	for (size_t i = 0; i < ps->c->province_count; i++)
		free(ps->pinfo[i].home);
	for (size_t i = 0; i < ps->c->player_count; i++) {
		free(ps->yinfo[i].start);
		free(ps->yinfo[i].field);
	}
	free(ps->pinfo);
	free(ps->yinfo);
	for (size_t i = 0; i < ps->route_count; i++) {
		free(ps->routes[i].a);
		free(ps->routes[i].b);
	}
	free(ps->routes);
	free(ps->organiser_plays);
}

/* ------------------------------------------------------------------- entry */

static struct campaign *parse(const char *text, size_t len, const char *filename,
			      struct diag_list *diags, bool lists_only)
{
	struct parser ps = {0};
	ps.file = filename;
	ps.lists_only = lists_only;
	ps.c = campaign_new();

	size_t pos = 0;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		pos = 3; /* a UTF-8 byte order mark, as some Windows editors write */
	int line = 0;
	while (pos < len) {
		line++;
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t n = end - pos;
		if (memchr(text + pos, '\0', n)) {
			cf_error(&ps, line, "line contains a NUL byte: is this a text file?");
		} else if (!utf8_valid((const unsigned char *)text + pos, n)) {
			cf_error(&ps, line, "line is not valid UTF-8: save the file as UTF-8");
		} else {
			char *copy = xstrndup(text + pos, n);
			cf_parse_line(&ps, copy, line);
			free(copy);
		}
		pos = end + 1;
	}
	cf_finish_section(&ps);

	if (lists_only)
		cf_check_lists(&ps);
	else
		cf_check_file(&ps);

	bool failed = ps.diags.errors > 0;
	cf_hand_over_diags(&ps, diags);
	parser_free(&ps);
	if (failed) {
		campaign_free(ps.c);
		return NULL;
	}
	return ps.c;
}

struct campaign *campaign_file_parse(const char *text, size_t len, const char *filename,
				     struct diag_list *diags)
{
	return parse(text, len, filename, diags, false);
}

struct campaign *campaign_file_parse_lists(const char *text, size_t len, const char *filename,
					   struct diag_list *diags)
{
	return parse(text, len, filename, diags, true);
}
