/* Unit tests for the dice: the verifiable HMAC roller against answers
 * computed independently (python3 hmac/hashlib), its uniformity, and the
 * fixed test roller. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "model/dice.h"
#include "model/event.h"
#include "model/model.h"

static void test_seed(unsigned char seed[DICE_SEED_BYTES])
{
	for (int i = 0; i < DICE_SEED_BYTES; i++)
		seed[i] = (unsigned char)i;
}

/* Expected values from:
 *   python3 -c 'import hmac,hashlib; print(hmac.new(bytes(range(32)),
 *     b"1450|campaign|sea storm burgundy stage 1|1", hashlib.sha256).hexdigest())'
 * -> 4934e3a6...: first byte 0x49 = 73 < 252, 73 % 6 + 1 = 2. */
static void test_known_answers(void **state)
{
	(void)state;
	unsigned char seed[DICE_SEED_BYTES];
	test_seed(seed);
	assert_int_equal(dice_hmac_value(seed, 1450, "campaign", "sea storm burgundy stage 1", 1), 2);
	/* 0x32 = 50 -> 3 */
	assert_int_equal(dice_hmac_value(seed, 1450, "campaign", "siege france Paris", 2), 3);
	/* 0xca = 202 -> 5 */
	assert_int_equal(dice_hmac_value(seed, 1451, "recruitment", "campaign end die 1", 7), 5);
	/* MAC fe 60 ...: 0xfe = 254 is rejected, 0x60 = 96 -> 1 */
	assert_int_equal(dice_hmac_value(seed, 1450, "campaign", "rejection test", 384), 1);
	assert_true(dice_verify(seed, 1450, "campaign", "sea storm burgundy stage 1", 1, 2));
	assert_false(dice_verify(seed, 1450, "campaign", "sea storm burgundy stage 1", 1, 3));
	assert_false(dice_verify(seed, 1450, "campaign", "sea storm burgundy stage 1", 2, 2) &&
		     dice_verify(seed, 1450, "campaign", "sea storm burgundy stage 1", 2, 3));
}

static void test_commitment(void **state)
{
	(void)state;
	unsigned char seed[DICE_SEED_BYTES], back[DICE_SEED_BYTES];
	char hex[DICE_COMMITMENT_HEX];
	test_seed(seed);
	dice_commitment(seed, hex);
	assert_string_equal(hex, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
	assert_true(dice_seed_from_hex(
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", back));
	assert_memory_equal(seed, back, DICE_SEED_BYTES);
	assert_false(dice_seed_from_hex("0001", back));
	assert_false(dice_seed_from_hex(
		"zz0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", back));
	assert_false(dice_seed_from_hex(NULL, back));
}

static void test_hmac_roller(void **state)
{
	(void)state;
	unsigned char seed[DICE_SEED_BYTES];
	test_seed(seed);
	struct dice_hmac a, b;
	struct event_log log;
	event_log_init(&log);
	event_log_set_time(&log, 1450, PHASE_CAMPAIGN);
	dice_hmac_init(&a, seed, 1450, PHASE_CAMPAIGN, 0);
	dice_hmac_init(&b, seed, 1450, PHASE_CAMPAIGN, 0);
	assert_int_equal(dice_roll(&a.base, &log, "2.1 Sea movement", "sea storm burgundy stage 1"), 2);
	assert_int_equal(b.base.roll(&b.base, "sea storm burgundy stage 1"), 2);
	assert_int_equal(a.base.counter, 1);
	json_t *ev = event_log_find(&log, "roll", 0);
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "purpose")),
			    "sea storm burgundy stage 1");
	assert_int_equal(json_integer_value(json_object_get(ev, "value")), 2);
	assert_int_equal(json_integer_value(json_object_get(ev, "counter")), 1);
	assert_string_equal(json_string_value(json_object_get(ev, "rule")), "2.1 Sea movement");
	assert_string_equal(json_string_value(json_object_get(ev, "phase")), "campaign");
	/* Resuming after a restart: roll 2 is the same whoever makes it. */
	dice_hmac_init(&b, seed, 1450, PHASE_CAMPAIGN, 1);
	assert_int_equal(b.base.roll(&b.base, "siege france Paris"), 3);
	assert_int_equal(a.base.roll(&a.base, "siege france Paris"), 3);
	dice_hmac_clear(&a);
	unsigned char zero[DICE_SEED_BYTES] = {0};
	assert_memory_equal(a.seed, zero, DICE_SEED_BYTES);
	event_log_free(&log);
}

/* 60,000 rolls of a fixed seed: chi-square with 5 degrees of freedom. The
 * 0.9999 quantile is 25.7; the result is deterministic, so this never
 * flakes, and it would catch a biased mapping (e.g. b % 6 over all 256). */
static void test_uniform(void **state)
{
	(void)state;
	unsigned char seed[DICE_SEED_BYTES];
	test_seed(seed);
	struct dice_hmac d;
	dice_hmac_init(&d, seed, 1460, PHASE_CAMPAIGN, 0);
	int n = 60000, hist[7] = {0};
	for (int i = 0; i < n; i++) {
		int v = d.base.roll(&d.base, "uniformity");
		assert_true(v >= 1 && v <= 6);
		hist[v]++;
	}
	double expected = n / 6.0, chi = 0;
	for (int v = 1; v <= 6; v++)
		chi += (hist[v] - expected) * (hist[v] - expected) / expected;
	print_message("chi-square over %d rolls: %.2f\n", n, chi);
	assert_true(chi < 25.7);
	for (int v = 1; v <= 6; v++)
		assert_true(hist[v] > 9500 && hist[v] < 10500);
}

static void test_fixed(void **state)
{
	(void)state;
	static const int values[] = {3, 1, 6};
	struct dice_fixed d;
	dice_fixed_init(&d, values, 3);
	assert_int_equal(d.base.roll(&d.base, "a"), 3);
	assert_int_equal(d.base.roll(&d.base, "b"), 1);
	assert_int_equal(dice_fixed_left(&d), 1);
	assert_int_equal(d.base.counter, 2);
	assert_int_equal(d.base.roll(&d.base, "c"), 6);
	assert_int_equal(dice_fixed_left(&d), 0);
}

/* Running out of values aborts the test process: checked in a child. */
static void test_fixed_exhausted_aborts(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static const int one[] = {4};
		struct dice_fixed d;
		dice_fixed_init(&d, one, 1);
		d.base.roll(&d.base, "first");
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		d.base.roll(&d.base, "one too many");
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_commitment),
		cmocka_unit_test(test_hmac_roller),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_fixed_exhausted_aborts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
