/* Unit tests for the event log. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/event.h"
#include "model/model.h"

static void test_emit_and_find(void **state)
{
	(void)state;
	struct event_log log;
	event_log_init(&log);
	event_log_set_time(&log, 1452, PHASE_RECRUITMENT);
	json_t *ev = event_emit(&log, "loss", "2.1 Supply", "{s:s, s:i}", "player", "burgundy",
				"lost_half_ap", 80);
	assert_string_equal(json_string_value(json_object_get(ev, "kind")), "loss");
	assert_string_equal(json_string_value(json_object_get(ev, "rule")), "2.1 Supply");
	assert_int_equal(json_integer_value(json_object_get(ev, "year")), 1452);
	assert_string_equal(json_string_value(json_object_get(ev, "phase")), "recruitment");
	assert_int_equal(json_integer_value(json_object_get(ev, "lost_half_ap")), 80);
	event_emit(&log, "move", "2.1 Normal movement", NULL);
	/* Fields cannot override what the log stamps. */
	ev = event_emit(&log, "loss", "x", "{s:s}", "kind", "forged");
	assert_string_equal(json_string_value(json_object_get(ev, "kind")), "loss");
	assert_int_equal(event_log_count(&log, "loss"), 2);
	assert_int_equal(event_log_count(&log, NULL), 3);
	assert_ptr_equal(event_log_find(&log, "loss", 1), ev);
	assert_ptr_equal(event_log_last(&log, "loss"), ev);
	assert_null(event_log_find(&log, "loss", 2));
	assert_null(event_log_last(&log, "capture"));
	char *dump = event_log_dump(&log);
	assert_non_null(strstr(dump, "\"kind\":\"move\""));
	json_error_t err;
	json_t *back = json_loads(dump, 0, &err);
	assert_non_null(back);
	assert_int_equal(json_array_size(back), 3);
	json_decref(back);
	free(dump);
	event_log_free(&log);
	assert_int_equal(log.count, 0);
}

static void test_pack_error_is_logged(void **state)
{
	(void)state;
	struct event_log log;
	event_log_init(&log);
	json_t *ev = event_emit(&log, "oops", "none", "{s:s}", "player", (const char *)NULL);
	assert_non_null(json_object_get(ev, "pack_error"));
	ev = event_emit(&log, "oops", "none", "[i]", 3);
	assert_non_null(json_object_get(ev, "pack_error"));
	assert_int_equal(event_log_count(&log, "oops"), 2);
	event_log_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emit_and_find),
		cmocka_unit_test(test_pack_error_is_logged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
