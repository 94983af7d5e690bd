#include "config.h"

#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"
#include "base/util.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dice_set_time(struct dice *d, int year, int phase)
{
	d->year = year;
	d->phase = phase;
}

int dice_roll(struct dice *d, struct event_log *log, const char *rule, const char *purpose)
{
	int value = d->roll(d, purpose);
	event_emit(log, "roll", rule, "{s:s, s:i, s:I}", "purpose", purpose, "value", value,
		   "counter", (json_int_t)d->counter);
	return value;
}

/* Rejection sampling: 252 = 42 * 6 is the largest multiple of 6 a byte can
 * hold, so a byte below 252 taken modulo 6 is uniform. Bytes are taken in
 * order; if all 32 are 252 or more (chance 4^32 / 256^32), the message is
 * MACed again with "|1", then "|2", ... appended. */
int dice_hmac_value(const unsigned char seed[DICE_SEED_BYTES], int year, const char *phase,
		    const char *purpose, unsigned long counter)
{
	char *base = xasprintf("%d|%s|%s|%lu", year, phase, purpose, counter);
	int value = 0;
	for (unsigned long retry = 0; value == 0; retry++) {
		char *msg = retry ? xasprintf("%s|%lu", base, retry) : xstrdup(base);
		unsigned char mac[crypto_auth_hmacsha256_BYTES];
		crypto_auth_hmacsha256_state st;
		crypto_auth_hmacsha256_init(&st, seed, DICE_SEED_BYTES);
		crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, strlen(msg));
		crypto_auth_hmacsha256_final(&st, mac);
		for (size_t i = 0; i < sizeof mac && value == 0; i++)
			if (mac[i] < 252)
				value = mac[i] % 6 + 1;
		free(msg);
	}
	free(base);
	return value;
}

bool dice_verify(const unsigned char seed[DICE_SEED_BYTES], int year, const char *phase,
		 const char *purpose, unsigned long counter, int claimed)
{
	return dice_hmac_value(seed, year, phase, purpose, counter) == claimed;
}

void dice_commitment(const unsigned char seed[DICE_SEED_BYTES], char hex[DICE_COMMITMENT_HEX])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, seed, DICE_SEED_BYTES);
	sodium_bin2hex(hex, DICE_COMMITMENT_HEX, h, sizeof h);
}

bool dice_seed_from_hex(const char *hex, unsigned char seed[DICE_SEED_BYTES])
{
	size_t len = 0;
	const char *end = NULL;
	if (!hex || strlen(hex) != 2 * DICE_SEED_BYTES)
		return false;
	if (sodium_hex2bin(seed, DICE_SEED_BYTES, hex, strlen(hex), NULL, &len, &end) != 0)
		return false;
	return len == DICE_SEED_BYTES && end && *end == '\0';
}

static int dice_hmac_roll(struct dice *base, const char *purpose)
{
	struct dice_hmac *d = (struct dice_hmac *)base;
	base->counter++;
	return dice_hmac_value(d->seed, base->year, campaign_phase_name(base->phase), purpose,
			       base->counter);
}

void dice_hmac_init(struct dice_hmac *d, const unsigned char seed[DICE_SEED_BYTES], int year,
		    int phase, unsigned long rolls_made)
{
	if (sodium_init() < 0) {
		fputs("campaignd: libsodium failed to initialise\n", stderr);
		abort();
	}
	memset(d, 0, sizeof *d);
	d->base.roll = dice_hmac_roll;
	d->base.year = year;
	d->base.phase = phase;
	d->base.counter = rolls_made;
	memcpy(d->seed, seed, DICE_SEED_BYTES);
}

void dice_hmac_clear(struct dice_hmac *d)
{
	sodium_memzero(d->seed, sizeof d->seed);
}

static int dice_fixed_roll(struct dice *base, const char *purpose)
{
	struct dice_fixed *d = (struct dice_fixed *)base;
	if (d->next >= d->count) {
		fprintf(stderr, "dice_fixed: out of values (%zu used) for roll \"%s\"\n", d->count,
			purpose);
		abort();
	}
	int v = d->values[d->next++];
	if (v < 1 || v > 6) {
		fprintf(stderr, "dice_fixed: value %d is not a die roll (roll \"%s\")\n", v,
			purpose);
		abort();
	}
	base->counter++;
	return v;
}

void dice_fixed_init(struct dice_fixed *d, const int *values, size_t count)
{
	memset(d, 0, sizeof *d);
	d->base.roll = dice_fixed_roll;
	d->values = values;
	d->count = count;
}

size_t dice_fixed_left(const struct dice_fixed *d)
{
	return d->count - d->next;
}
