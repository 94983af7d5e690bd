/* Unit tests for campaignd.conf parsing and loading. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/conf.h"
#include "lib/files.h"
#include "base/util.h"

static struct conf *parse(const char *text, struct diag_list *dl)
{
	return conf_parse(text, strlen(text), "campaignd.conf", "/etc/campaignd", dl);
}

static void test_minimal_maildir(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct conf *c = parse("# demo\n"
			       "database = campaign.db\n"
			       "campaign-address = campaign@example.org\n"
			       "maildir = inbox   # trailing spaces\n"
			       "outbox = outbox\n",
			       &dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	assert_string_equal(c->database, "/etc/campaignd/campaign.db");
	assert_string_equal(c->maildir, "/etc/campaignd/inbox   # trailing spaces");
	assert_int_equal(c->source, SOURCE_MAILDIR);
	assert_int_equal(c->sink, SINK_DIRECTORY);
	assert_string_equal(c->log_level, "info");
	assert_int_equal(c->poll_seconds, 60);
	conf_free(c);
	diag_free(&dl);
}

static void test_imap_smtp(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct conf *c = parse("database = /var/lib/campaignd/c.db\n"
			       "campaign-address = campaign@example.org\n"
			       "source = imap\nimap-host = mail.example.org\nimap-user = campaign\n"
			       "imap-password-file = secret\nimap-tls = starttls\n"
			       "sink = smtp\nsmtp-host = mail.example.org\nsmtp-tls = implicit\n"
			       "IMAP-INSECURE = yes\n",
			       &dl);
	assert_non_null(c);
	assert_int_equal(c->imap_port, 143);
	assert_int_equal(c->smtp_port, 465);
	assert_int_equal(c->imap_tls, TLS_STARTTLS);
	assert_true(c->imap_insecure);
	assert_string_equal(c->imap_password_file, "/etc/campaignd/secret");
	assert_string_equal(c->imap_folder, "INBOX");
	conf_free(c);
	diag_free(&dl);
}

static void test_every_error_at_once(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct conf *c = parse("databse = x.db\n"       /* 1: typo */
			       "poll-interval = soon\n" /* 2: bad number */
			       "imap-insecure = maybe\n" /* 3: bad bool */
			       "just words\n"           /* 4: no = */
			       "source = pigeon\n"      /* 5 */
			       "log-level = loud\n",
			       &dl);
	assert_null(c);
	const struct diag *d = diag_find(&dl, "did you mean \"database\"");
	assert_non_null(d);
	assert_int_equal(d->line, 1);
	assert_int_equal(diag_find(&dl, "poll-interval must be")->line, 2);
	assert_int_equal(diag_find(&dl, "imap-insecure must be yes or no")->line, 3);
	assert_int_equal(diag_find(&dl, "expected \"key = value\"")->line, 4);
	assert_int_equal(diag_find(&dl, "source must be maildir or imap")->line, 5);
	assert_non_null(diag_find(&dl, "log-level must be"));
	assert_non_null(diag_find(&dl, "missing \"database\""));
	assert_non_null(diag_find(&dl, "campaign-address"));
	diag_free(&dl);
}

static void test_imap_needs_credentials(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct conf *c = parse("database = c.db\ncampaign-address = a@b.c\nsource = imap\n"
			       "outbox = o\n", &dl);
	assert_null(c);
	assert_non_null(diag_find(&dl, "needs \"imap-host\""));
	assert_non_null(diag_find(&dl, "needs \"imap-user\""));
	assert_non_null(diag_find(&dl, "imap-password-file"));
	diag_free(&dl);
}

static void test_load_refuses_readable_password(void **state)
{
	(void)state;
	char dir[] = "/tmp/campaignd-conf-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cfgpath = xasprintf("%s/campaignd.conf", dir);
	char *secret = xasprintf("%s/imap.secret", dir);
	FILE *f = fopen(secret, "w");
	fputs("s3cret\n", f);
	fclose(f);
	chmod(secret, 0644);
	f = fopen(cfgpath, "w");
	fputs("database = c.db\ncampaign-address = a@example.org\nsource = imap\n"
	      "imap-host = h\nimap-user = u\nimap-password-file = imap.secret\noutbox = o\n", f);
	fclose(f);

	struct diag_list dl = {0};
	assert_null(conf_load(cfgpath, &dl));
	assert_non_null(diag_find(&dl, "others can read it"));
	diag_free(&dl);

	chmod(secret, 0600);
	struct conf *c = conf_load(cfgpath, &dl);
	assert_non_null(c);
	assert_string_equal(c->imap_password, "s3cret");
	conf_free(c);
	diag_free(&dl);

	/* a password inline in a world-readable config is refused */
	f = fopen(cfgpath, "w");
	fputs("database = c.db\ncampaign-address = a@example.org\nsource = imap\n"
	      "imap-host = h\nimap-user = u\nimap-password = inline\noutbox = o\n", f);
	fclose(f);
	chmod(cfgpath, 0644);
	assert_null(conf_load(cfgpath, &dl));
	assert_non_null(diag_find(&dl, "chmod 600"));
	diag_free(&dl);
	chmod(cfgpath, 0600);
	c = conf_load(cfgpath, &dl);
	assert_non_null(c);
	conf_free(c);
	diag_free(&dl);

	unlink(secret);
	unlink(cfgpath);
	rmdir(dir);
	free(secret);
	free(cfgpath);
}

/* An address that cannot be mailed would stop every reply: refused at its line. */
static void test_addresses_checked(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"Campaign <campaign@example.org>", "campaign@example.org>", "campaign",
		"campaign@@example.org", "camp aign@example.org", "campaign@localhost",
		"campaign@example.org, other@example.org", "campaign@exa_mple.org",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct diag_list dl = {0};
		char *text = xasprintf("database = c.db\n\ncampaign-address = %s\noutbox = o\n"
				       "maildir = m\n", bad[i]);
		struct conf *c = parse(text, &dl);
		if (c)
			fail_msg("campaign-address \"%s\" was accepted", bad[i]);
		const struct diag *d = diag_find(&dl, "campaign-address");
		assert_non_null(d);
		assert_int_equal(d->line, 3);
		assert_string_equal(d->file, "campaignd.conf");
		free(text);
		diag_free(&dl);
	}
	struct diag_list dl = {0};
	struct conf *c = parse("database = c.db\ncampaign-address = campaign@example.org\n"
			       "campaign-from-name = The Campaign\rBcc: x@evil.example\n"
			       "outbox = o\nmaildir = m\n", &dl);
	assert_null(c);
	assert_int_equal(diag_find(&dl, "control character")->line, 3);
	diag_free(&dl);
}

/* A private CA without smtp-insecure; a login in clear is warned about. */
static void test_smtp_ca_file_and_clear_login(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct conf *c = parse("database = c.db\ncampaign-address = campaign@example.org\n"
			       "maildir = m\nsink = smtp\nsmtp-host = mail.example.org\n"
			       "smtp-ca-file = private-ca.pem\n", &dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	assert_string_equal(c->smtp_ca_file, "/etc/campaignd/private-ca.pem");
	assert_false(c->smtp_insecure);
	conf_free(c);

	c = parse("database = c.db\ncampaign-address = campaign@example.org\n"
		  "maildir = m\nsink = smtp\nsmtp-host = mail.example.org\n"
		  "smtp-tls = none\nsmtp-user = campaign\nsmtp-password = x\n", &dl);
	assert_non_null(c);
	const struct diag *d = diag_find(&dl, "crosses the network in clear");
	assert_non_null(d);
	assert_int_equal(d->level, DIAG_WARNING);
	assert_int_equal(d->line, 6);
	conf_free(c);
	diag_free(&dl);

	/* the loopback test servers, and no login: nothing to warn about */
	c = parse("database = c.db\ncampaign-address = campaign@example.org\n"
		  "maildir = m\nsink = smtp\nsmtp-host = 127.0.0.1\n"
		  "smtp-tls = none\nsmtp-user = campaign\n", &dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	conf_free(c);
	c = parse("database = c.db\ncampaign-address = campaign@example.org\n"
		  "maildir = m\nsink = smtp\nsmtp-host = mail.example.org\nsmtp-tls = none\n",
		  &dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	conf_free(c);
	diag_free(&dl);
}

/* Every key the parser knows is documented in campaignd.conf(5). */
static void test_every_key_documented(void **state)
{
	(void)state;
	char *path = test_source_path("doc/campaignd.conf.5");
	char *page = test_source_text("doc/campaignd.conf.5", NULL);
	for (size_t i = 0; conf_keys[i]; i++) {
		/* roff writes "imap-host" as "imap\-host" or plain */
		struct strbuf roff = {0};
		for (const char *k = conf_keys[i]; *k; k++) {
			if (*k == '-')
				strbuf_putc(&roff, '\\');
			strbuf_putc(&roff, *k);
		}
		if (!strstr(page, conf_keys[i]) && !strstr(page, roff.data))
			fail_msg("%s does not document \"%s\"", path, conf_keys[i]);
		strbuf_free(&roff);
	}
	free(page);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_maildir),
		cmocka_unit_test(test_imap_smtp),
		cmocka_unit_test(test_every_error_at_once),
		cmocka_unit_test(test_addresses_checked),
		cmocka_unit_test(test_smtp_ca_file_and_clear_login),
		cmocka_unit_test(test_imap_needs_credentials),
		cmocka_unit_test(test_load_refuses_readable_password),
		cmocka_unit_test(test_every_key_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
