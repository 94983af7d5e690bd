#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/engine_fixture.h"
#include "mail/mail_read.h"
#include "lib/files.h"
#include "lib/store_fixture.h"
#include "base/util.h"

struct templates *test_templates(void)
{
	char *tdir = test_source_path("templates");
	setenv("CAMPAIGND_TEMPLATES", tdir, 1);
	free(tdir);
	return templates_new(NULL);
}

void test_engine_open(struct test_engine *t, const char *name, struct campaign *c,
		      const char *const *passwords, const struct engine_config *cfg)
{
	test_scratch_dir(t->dir, name);
	t->db = xasprintf("%s/campaign.db", t->dir);
	t->store = test_store_with(t->db, c);
	char *err = NULL;
	for (size_t i = 0; passwords && passwords[i]; i += 2)
		assert_int_equal(store_set_password(t->store, passwords[i], passwords[i + 1], &err),
				 STORE_OK);
	t->tpl = test_templates();
	t->engine = engine_new(t->store, t->tpl, cfg);
}

void test_engine_close(struct test_engine *t)
{
	engine_free(t->engine);
	templates_free(t->tpl);
	store_close(t->store);
	test_scratch_remove(t->dir);
	free(t->db);
}

int test_engine_teardown(void **state)
{
	struct test_engine *t = *state;
	test_engine_close(t);
	free(t);
	return 0;
}

enum engine_verdict test_engine_process(struct test_engine *t, uint32_t uidvalidity,
					uint32_t uid, const char *raw, int64_t now,
					struct engine_outcome *out)
{
	char *err = NULL;
	if (engine_process_mail(t->engine, uidvalidity, uid, raw, strlen(raw), now, false, out,
				&err) != 0)
		fail_msg("engine_process_mail: %s", err);
	return out->verdict;
}

char *test_mail(const struct test_mail *m)
{
	struct strbuf sb = {0};
	if (m->from)
		strbuf_printf(&sb, "From: %s\r\n", m->from);
	strbuf_printf(&sb, "To: %s\r\nSubject: %s\r\n", m->to ? m->to : TEST_ADDRESS,
		      m->subject ? m->subject : "orders");
	if (m->msgid)
		strbuf_printf(&sb, "Message-ID: <%s>\r\n", m->msgid);
	if (m->date)
		strbuf_printf(&sb, "Date: %s\r\n", m->date);
	strbuf_puts(&sb, m->headers ? m->headers : "");
	strbuf_puts(&sb, "Content-Type: text/plain; charset=utf-8\r\n\r\n");
	strbuf_puts(&sb, m->body ? m->body : "");
	return strbuf_take(&sb);
}

char *test_searchable(const char *raw, size_t len)
{
	struct mail_info info;
	char *subject = NULL;
	if (mail_read(raw, len, NULL, &info) == 0) {
		subject = xstrdup(info.subject ? info.subject : "");
		mail_info_free(&info);
	}
	char *out = xasprintf("Subject: %s\r\n%.*s", subject ? subject : "", (int)len, raw);
	free(subject);
	return out;
}

enum engine_verdict test_engine_send(struct test_engine *t, uint32_t uid, const char *from,
				     const char *body, int64_t now, char **reply)
{
	char *m = test_mail(&(struct test_mail){.from = from, .body = body});
	struct engine_outcome out;
	enum engine_verdict v = test_engine_process(t, 1, uid, m, now, &out);
	if (reply)
		*reply = out.reply ? xstrdup(out.reply) : NULL;
	engine_outcome_free(&out);
	free(m);
	return v;
}
