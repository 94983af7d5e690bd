/* Dice come in through this interface so the rules never make randomness of
 * their own. Two implementations:
 *  - dice_hmac: fair and verifiable. Each year has a secret 32-byte seed;
 *    the SHA-256 of the seed (the commitment) is published when the year
 *    starts and the seed when it ends. Roll number n of the year is derived
 *    from HMAC-SHA256(seed, "<year>|<phase>|<purpose>|<n>") (doc/dice.md).
 *  - dice_fixed: a queue of values for tests; running out aborts.
 * Every roll the rules make goes through dice_roll, which logs it. */
#ifndef CAMPAIGN_DICE_H
#define CAMPAIGN_DICE_H

#include <stdbool.h>
#include <stddef.h>

struct event_log;

#define DICE_SEED_BYTES 32
#define DICE_COMMITMENT_HEX (2 * 32 + 1) /* 64 hex digits and a NUL */

struct dice {
	/* Returns 1..6. `purpose` says what the roll is for (it is part of the
	 * HMAC message). The implementation sets `counter` to the number of
	 * the roll it just made. */
	int (*roll)(struct dice *d, const char *purpose);
	int year;                /* campaign year, part of the HMAC message */
	int phase;               /* enum campaign_phase, by name in the message */
	unsigned long counter;   /* number of the latest roll; 0 before the first */
};

/* Sets the year and phase that the following rolls belong to. The counter
 * runs on through the phases of a year. */
void dice_set_time(struct dice *d, int year, int phase);

/* Rolls one die for `purpose` under rulebook section `rule`, and logs the
 * event {"kind":"roll","purpose","value","counter"}. Returns 1..6. */
int dice_roll(struct dice *d, struct event_log *log, const char *rule, const char *purpose);

/* The verifiable roller. `seed` is copied; `rolls_made` is the number of
 * rolls already made with this seed (0 at the start of a year; the caller
 * keeps it to resume after a restart). The caller gets the seed from a real
 * random source (randombytes_buf) in the edge layer. */
struct dice_hmac {
	struct dice base;
	unsigned char seed[DICE_SEED_BYTES];
};
void dice_hmac_init(struct dice_hmac *d, const unsigned char seed[DICE_SEED_BYTES], int year,
		    int phase, unsigned long rolls_made);
/* Forgets the seed (zeroes it). */
void dice_hmac_clear(struct dice_hmac *d);

/* The value roll number `counter` has for these inputs: 1..6. `phase` is the
 * phase name as in the message ("campaign", "recruitment"). */
int dice_hmac_value(const unsigned char seed[DICE_SEED_BYTES], int year, const char *phase,
		    const char *purpose, unsigned long counter);
/* True if `claimed` is the value of that roll. */
bool dice_verify(const unsigned char seed[DICE_SEED_BYTES], int year, const char *phase,
		 const char *purpose, unsigned long counter, int claimed);
/* Lowercase hex SHA-256 of the seed into hex (DICE_COMMITMENT_HEX bytes). */
void dice_commitment(const unsigned char seed[DICE_SEED_BYTES], char hex[DICE_COMMITMENT_HEX]);
/* Parses 64 hex digits into a seed; false on anything else. */
bool dice_seed_from_hex(const char *hex, unsigned char seed[DICE_SEED_BYTES]);

/* The test roller: returns `values` in order (not copied; each must be
 * 1..6). Asking for one more than it holds prints the purpose of the roll
 * and aborts, which fails the test. */
struct dice_fixed {
	struct dice base;
	const int *values;
	size_t count;
	size_t next;
};
void dice_fixed_init(struct dice_fixed *d, const int *values, size_t count);
/* Values not used yet (tests assert it is 0 to catch unexpected rolls). */
size_t dice_fixed_left(const struct dice_fixed *d);

#endif
