/* libFuzzer harness for the order mail reader: any bytes go through
 * mail_read, and the result must keep the contract of mail_read.h (text or
 * refusal, valid UTF-8, LF line ends), with the daemon's default limits
 * (size, MIME nesting and parts), so what the fuzzer finds is what a
 * hostile sender could do. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail/mail_read.h"
#include "mail/mail_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s)
{
	if (s && !mail_text_utf8_valid(s, strlen(s)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the daemon's defaults: run-all.sh gives inputs up to just past the
	 * default size limit, so the "too large" path is reached as well */
	const struct mail_read_limits limits = {0};
	struct mail_info m;

	if (mail_read((const char *)data, size, &limits, &m) != 0)
		abort();
	if (!m.text == !m.refusal)
		abort();
	if (m.text && strchr(m.text, '\r'))
		abort();
	check_string(m.text);
	check_string(m.message_id);
	check_string(m.from_addr);
	check_string(m.from_name);
	check_string(m.reply_to_addr);
	check_string(m.return_path);
	check_string(m.subject);
	check_string(m.in_reply_to);
	check_string(m.references);
	check_string(m.date);
	check_string(m.x_loop);
	for (size_t i = 0; i < m.warning_count; i++)
		check_string(m.warnings[i]);
	mail_info_free(&m);
	return 0;
}
