/* Private to the campaign file's reader and checks (campaign_file*.c): the
 * parser's state, the section and key names, and the helpers the files
 * share. The contract is campaign_file.h; nothing else includes this.
 *
 * Direction: campaign_file.c (entry) -> campaign_file_read.c (lines,
 * sections) -> campaign_file_keys.c (each section's keys, values) ->
 * campaign_file_diag.c (messages); campaign_file.c -> campaign_file_check.c
 * (whole-file checks) -> campaign_file_diag.c. */
#ifndef CAMPAIGN_FILE_P_H
#define CAMPAIGN_FILE_P_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "model/campaign_file.h"
#include "model/model.h"

enum section_kind { SEC_NONE, SEC_CAMPAIGN, SEC_PROVINCE, SEC_PLAYER, SEC_ROUTES, SEC_SKIP };

enum campaign_key {
	CK_NAME, CK_START_YEAR, CK_TIMEZONE, CK_ORGANISER, CK_ORGANISER_PLAYS, CK_BACKGROUND,
	CK_SIEGE_FLOOR, CK_SUPPLY_ACROSS_SEA, CK_TURN_DEADLINE, CK_DECISION_DEADLINE,
	CK_BATTLE_DEADLINE, CK_RECRUITMENT_DEADLINE, CK_REMINDERS, CK_GRACE, CK_TAG, CK_COUNT
};
extern const char *const cf_campaign_keys[CK_COUNT];

enum province_key { PK_TERRAIN, PK_CLIMATE, PK_POSITION, PK_HOME, PK_NEUTRAL, PK_INVIOLATE,
		    PK_COUNT };
extern const char *const cf_province_keys[PK_COUNT];

enum player_key { YK_NATION, YK_NAME, YK_EMAIL, YK_START, YK_ELEMENT, YK_COUNT };
extern const char *const cf_player_keys[YK_COUNT];

#define MAX_KEYS CK_COUNT

/* What a province section said about who holds it, kept until every
 * player is known. Parallel to campaign.provinces. */
struct province_info {
	char *home; /* the player named by "home", or NULL */
	int home_line;
	bool neutral;
	bool inviolate;
	int inviolate_line;
	bool has_position;
	bool duplicate; /* a second section for a name already defined */
};

/* Parallel to campaign.players. */
struct player_info {
	char *start;
	int start_line;
	int email_line;
	int nation_line;
	int *field; /* starting field army, parallel to the army list */
	size_t field_cap;
	bool army_unreadable; /* an element line had errors: skip the totals */
	bool any_field;       /* some element line gave "field N" */
	bool homes_uncertain; /* a misspelt "home" probably meant this player */
	bool duplicate;
};

struct pending_route {
	char *a, *b; /* b is NULL when the line could not be split */
	bool sea;
	int line;
};

struct parser {
	const char *file;
	/* An army list file (campaign_file_parse_lists): [player KEY] sections
	 * whose element lines are all that is required; no map, no campaign. */
	bool lists_only;
	struct diag_list diags; /* sorted by line before handing over */
	struct campaign *c;

	struct province_info *pinfo;
	size_t pinfo_cap;
	struct player_info *yinfo;
	size_t yinfo_cap;
	struct pending_route *routes;
	size_t route_count, route_cap;
	char *organiser_plays;
	int organiser_plays_line;

	int campaign_line;        /* first [campaign] header, 0 if none */
	int campaign_keys_line[MAX_KEYS];
	bool campaign_keys_guessed[MAX_KEYS];
	bool outside_reported;    /* text before the first section: said once */

	enum section_kind sec;
	int sec_line;
	int sec_index;            /* current province or player */
	int keys_line[MAX_KEYS];  /* current province/player section */
	/* A misspelt key already reported with "did you mean" for this key:
	 * do not also report the key as missing. */
	bool keys_guessed[MAX_KEYS];
};

/* campaign_file_read.c: the lines of the file, section by section. */

/* Reads one line (a copy the reader may cut up) into the model. */
void cf_parse_line(struct parser *ps, char *text, int line);
/* Called when a section ends: complain about required keys it lacked. */
void cf_finish_section(struct parser *ps);

/* campaign_file_keys.c: each section's keys, and the values they take. */

void cf_campaign_key(struct parser *ps, int key, char *value, int line);
void cf_province_key(struct parser *ps, int key, char *value, int line);
void cf_player_key(struct parser *ps, int key, char *value, int line);
/* Drops one pair of surrounding double quotes. */
char *cf_unquote(char *s);

/* campaign_file_check.c */

/* The whole-file checks, once every line is read: resolves the names the
 * sections referred to, checks the campaign as a whole, and fills the
 * starting state when no error was found. */
void cf_check_file(struct parser *ps);
/* An army list file: at least one list; the field counts kept. */
void cf_check_lists(struct parser *ps);

/* campaign_file_diag.c: messages, and handing them over. */

void cf_error(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cf_warning(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* " (did you mean "X"?)" or "" — valid until the next call. */
const char *cf_did_you_mean(const char *const *names, int suggestion);
/* Exact (case- and accent-folded) lookup; on a miss, *suggestion is the
 * candidate worth offering or -1 (see campaign_file_diag.c). */
int cf_lookup_exact(const char *query, const char *const *names, size_t n, int *suggestion);
/* Moves the collected diagnostics, sorted by line, to the caller's list. */
void cf_hand_over_diags(struct parser *ps, struct diag_list *out);

#endif
