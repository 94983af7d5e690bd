/* The campaign model: the map, the players, their army lists, field armies,
 * reserves and everything the rules change during play. Pure data plus small
 * queries; no I/O. Army points are always counted in halves (half_ap).
 *
 * Indices: provinces, routes and players are referred to by their index in
 * the campaign's arrays; -1 means "none" (no owner = neutral, no overlord...). */
#ifndef CAMPAIGN_MODEL_H
#define CAMPAIGN_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#define HALF_AP(ap) ((ap) * 2)         /* whole AP -> half AP */
#define FIELD_ARMY_HALF_AP HALF_AP(480) /* rules 1.3: a 480 AP field army */
#define MAX_GENERALS 4
#define NO_INDEX (-1)

enum troop_class { TROOP_MOUNTED, TROOP_FOOT, TROOP_NAVAL, TROOP_UNKNOWN };

/* The DBM troop type codes the campaign file accepts, with their class.
 * Returns TROOP_UNKNOWN for a code DBM does not have. Case-sensitive as DBM
 * writes them ("Kn", "LH", "WWg"); dbm_type_canonical finds the spelling. */
enum troop_class dbm_type_class(const char *code);
const char *dbm_type_canonical(const char *code); /* NULL if unknown */
extern const char *const dbm_type_codes[];        /* NULL-terminated */

/* One line of a player's army list: a kind of element. */
struct element_type {
	char *label;      /* unique within the list, e.g. "Kn(S) general" */
	char code[8];     /* DBM type code, e.g. "Kn" */
	char grade;       /* 'S', 'O', 'I', 'F' or 'X' */
	bool regular;     /* Reg (true) or Irr (false) */
	int cost_half_ap; /* cost of one element */
	int list_min;     /* list minimum, in elements */
	int list_max;     /* list maximum, in elements */
	bool general;     /* each element of this line is a general */
	int line;         /* campaign file line, for messages */
};

struct army_list {
	struct element_type *types;
	size_t count;
	size_t cap;
};

/* Element counts indexed like the owner's army_list.types. */
struct troops {
	int *count;
};

/* The one movement option a player may take in a year (rules 1.4). */
enum movement_option { OPTION_NONE, OPTION_INVADE, OPTION_ALLY, OPTION_MOVE };

enum player_status {
	PLAYER_ACTIVE,
	PLAYER_OUT,  /* lost all provinces: out, keeps prestige (rules 3.2) */
	PLAYER_LEFT, /* left voluntarily: provinces neutral, no prestige */
	PLAYER_JOINING, /* added during play (campaignctl add-player): sets up by
			   mail and enters the sequence of play next year */
};

struct player {
	char *key;        /* short unique identifier used in orders, e.g. "burgundy" */
	char *nation;     /* display name of the nation, e.g. "Burgundy" */
	char *name;       /* the person */
	char *email;
	struct army_list list;
	struct troops field;   /* the field army */
	struct troops reserve; /* lost or not yet recruited troops (rules 3.1) */
	int location;          /* province of the field army */
	int original_half_ap;  /* total of field + reserve at the start: the ceiling */
	int cap_half_ap;       /* current ceiling (profound peace lowers it) */
	int battle_prestige;
	int province_prestige;
	int quiet_years;       /* consecutive campaign years without battle or siege */
	int overlord;          /* player index or NO_INDEX (tributaries, rules 3.2) */
	enum player_status status;
	int line;              /* campaign file line of the player's section */
	int movement_option;   /* enum movement_option taken this year (rules 1.4) */
	bool fought_this_year; /* took part in a battle or siege this year (rules 3.1) */
	/* The campaign file left the field army and start open: the player
	 * chooses them by mail (ARMY, START IN) until the campaign starts. */
	bool setup_by_mail;
	/* The LOSSES FIRST standing order: element types (indices in `list`)
	 * to lose first, in order. Transient: set by the year engine from the
	 * player's orders before the rules run, never stored; owned (free). */
	int *loss_first;
	size_t loss_first_count;
};

/* An allied contingent detached from its owner's field army (rules 2.3). */
struct contingent {
	int owner;          /* player who sent it */
	int with_player;    /* field army it is attached to */
	struct troops troops; /* indexed like the owner's army list */
	int sent_year;      /* year it was sent: arrival rolls apply that year */
	bool returning;     /* recalled, on its way back to its own field army */
};

struct siege {
	int province;
	int besieger;       /* player index */
	int rounds_failed;  /* earlier consecutive failed rounds of this siege */
	int last_round_year; /* year of the latest round, 0 before the first */
};

/* A declared mutual alliance between two players (rules 1.4 Move, 2.3),
 * made by both sides' ALLY WITH and ended by either's END ALLIANCE WITH;
 * a < b. The overlord/tributary tie is an alliance too, but is kept in
 * player.overlord. */
struct alliance {
	int a, b;
	int since_year; /* the year it was made (0: before play) */
};

struct province {
	char *name;
	char *terrain;  /* the provincial terrain piece (rules 1.2) */
	char *climate;
	double x, y;    /* map position */
	int home_of;    /* player whose home province this is, or NO_INDEX */
	bool inviolate; /* neutral that cannot be attacked */
	int owner;      /* controlling player, or NO_INDEX for neutral */
	int line;
};

struct route {
	int a, b;  /* province indices */
	bool sea;  /* a sea route: each stage dices for storms */
	int line;
};

/* Campaign settings: where the rulebook is silent or reasonable people
 * differ (doc/rules.md names each one). */
struct campaign_settings {
	int siege_floor;             /* lowest score a siege can need (default 1) */
	bool supply_across_sea;      /* a city one sea route away supplies (default true) */
	int turn_deadline_hours;     /* a player's campaign-phase turn (default 72) */
	int decision_deadline_hours; /* defender, allies, passage, storm (default 24) */
	int battle_deadline_hours;   /* result reports of a tabletop battle (default 336) */
	int recruitment_deadline_hours; /* the whole recruitment phase (default 72) */
	int reminder_hours[4];       /* reminders before a deadline, 0-terminated */
	int grace_hours;             /* after our own downtime (default 12) */
	bool inviolate_passable;     /* forcing a way through an inviolate neutral (default true) */
	bool defence_recalls_contingents; /* moving up to defend recalls them (default true) */
};

struct campaign {
	char *name;
	int start_year;
	char *timezone;        /* IANA name, e.g. "Europe/Paris" */
	char *tag;             /* in brackets at the start of every mail's subject */
	char *organiser_name;
	char *organiser_email;
	int organiser_player;  /* the organiser's own nation, or NO_INDEX */
	char *background;      /* optional background image for maps */
	struct campaign_settings settings;

	struct province *provinces;
	size_t province_count, province_cap;
	struct route *routes;
	size_t route_count, route_cap;
	struct player *players;
	size_t player_count, player_cap;
	struct contingent *contingents;
	size_t contingent_count, contingent_cap;
	struct siege *sieges;
	size_t siege_count, siege_cap;
	struct alliance *alliances;
	size_t alliance_count, alliance_cap;

	int year;    /* current campaign year, starts at start_year */
	int phase;   /* enum campaign_phase */
};

enum campaign_phase { PHASE_SETUP, PHASE_CAMPAIGN, PHASE_RECRUITMENT, PHASE_ENDED };
const char *campaign_phase_name(int phase);
/* The subject tag a campaign named `name` gets when its file sets none:
 * the ASCII letters and digits of its words run together, a year of four
 * digits shortened to its last two ("Italia 1494" -> "Italia94"), at most
 * CAMPAIGN_TAG_MAX characters; "Campaign" when nothing is left. Caller
 * frees. */
#define CAMPAIGN_TAG_MAX 16
char *campaign_default_tag(const char *name);
/* NULL if `tag` may be a campaign's tag (1 to CAMPAIGN_TAG_MAX letters,
 * digits, '-', '_' or '.'), else what is wrong with it. */
const char *campaign_tag_problem(const char *tag);

struct campaign *campaign_new(void);
void campaign_free(struct campaign *c);
/* A deep copy of c (freed with campaign_free). */
struct campaign *campaign_copy(const struct campaign *c);
void campaign_settings_default(struct campaign_settings *s);

/* Appenders return a pointer to the new zero-filled item (indices NO_INDEX). */
struct province *campaign_add_province(struct campaign *c);
struct route *campaign_add_route(struct campaign *c);
struct player *campaign_add_player(struct campaign *c);
struct element_type *army_list_add(struct army_list *l);
/* After the army list is complete: allocate zeroed field and reserve counts. */
void player_alloc_troops(struct player *p);
void troops_alloc(struct troops *t, size_t n);
void troops_free(struct troops *t);

/* Exact-after-folding lookups; -1 if absent. */
int campaign_find_province(const struct campaign *c, const char *name);
int campaign_find_player(const struct campaign *c, const char *key_or_nation);
int army_list_find(const struct army_list *l, const char *label);

/* Queries. */
int troops_half_ap(const struct army_list *l, const struct troops *t);
int troops_generals(const struct army_list *l, const struct troops *t);
int troops_elements(const struct army_list *l, const struct troops *t);
int troops_mounted_half_ap(const struct army_list *l, const struct troops *t);
int player_field_half_ap(const struct player *p);
int player_reserve_half_ap(const struct player *p);
int player_province_count(const struct campaign *c, int player);
/* Route between two provinces: index or -1. */
int campaign_route_between(const struct campaign *c, int a, int b);
/* Neighbours of province p (via any route): writes up to max indices into
 * out, returns how many there are. */
size_t campaign_neighbours(const struct campaign *c, int p, int *out, size_t max);
/* Shortest number of stages between two provinces, -1 if unreachable. */
int campaign_distance(const struct campaign *c, int from, int to);
/* True if every province can be reached from every other. */
bool campaign_connected(const struct campaign *c);
/* A player's colour on maps and in the diary, "#rrggbb" (static); a
 * negative player (nobody) is grey. */
#define PLAYER_COLOUR_NOBODY "#b3b3b3"
const char *player_colour(int player);

#endif
