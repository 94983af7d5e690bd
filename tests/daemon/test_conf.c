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
#include "base/secret_command.h"
#include "base/util.h"

#include <time.h>

#include <time.h>

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
	assert_int_equal(c->quick_look_seconds, 20);
	assert_int_equal(c->quick_look_interval_ms, 250);
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
			       "IMAP-INSECURE = yes\n"
			       "imap-quick-look = 0\nimap-quick-look-interval = 500\n",
			       &dl);
	assert_non_null(c);
	assert_int_equal(c->quick_look_seconds, 0);
	assert_int_equal(c->quick_look_interval_ms, 500);
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
			       "log-level = loud\n"
			       "imap-quick-look-interval = 10\n", /* 7: below 50 ms */
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
	assert_int_equal(diag_find(&dl, "imap-quick-look-interval must be")->line, 7);
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

/* smtp-connections: 3 by default, 1 to 16, said to be useless without SMTP. */
static void test_smtp_connections(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	const char *base = "database = c.db\ncampaign-address = campaign@example.org\n"
			   "maildir = m\nsink = smtp\nsmtp-host = mail.example.org\n";
	struct conf *c = parse(base, &dl);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	assert_int_equal(c->smtp_connections, 3);
	conf_free(c);
	char *text = xasprintf("%ssmtp-connections = 5\n", base);
	c = parse(text, &dl);
	free(text);
	assert_non_null(c);
	assert_int_equal(dl.count, 0);
	assert_int_equal(c->smtp_connections, 5);
	conf_free(c);
	text = xasprintf("%ssmtp-connections = 0\n", base);
	c = parse(text, &dl);
	free(text);
	assert_null(c);
	assert_int_equal(diag_find(&dl, "smtp-connections")->line, 6);
	diag_free(&dl);
	text = xasprintf("%ssmtp-connections = 17\n", base);
	c = parse(text, &dl);
	free(text);
	assert_null(c);
	assert_int_equal(diag_find(&dl, "smtp-connections")->line, 6);
	diag_free(&dl);
	c = parse("database = c.db\ncampaign-address = campaign@example.org\n"
		  "maildir = m\noutbox = o\nsmtp-connections = 2\n", &dl);
	assert_non_null(c);
	const struct diag *d = diag_find(&dl, "used only with sink = smtp");
	assert_non_null(d);
	assert_int_equal(d->level, DIAG_WARNING);
	conf_free(c);
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

/* A scratch folder with a configuration file in it, mode 600. */
struct scratch {
	char dir[64];
	char *cfg;
};

static void scratch_write(struct scratch *s, const char *text)
{
	if (!s->cfg) {
		strcpy(s->dir, "/tmp/campaignd-conf-XXXXXX");
		assert_non_null(mkdtemp(s->dir));
		s->cfg = xasprintf("%s/club.conf", s->dir);
	}
	FILE *f = fopen(s->cfg, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(s->cfg, 0600);
}

static void scratch_free(struct scratch *s)
{
	char *cmd = xasprintf("rm -rf '%s'", s->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(s->cfg);
}

#define IMAP_HEAD "database = c.db\ncampaign-address = a@example.org\nsource = imap\n" \
		  "imap-host = h\nimap-user = u\noutbox = o\n"

static void test_password_command(void **state)
{
	(void)state;
	struct scratch s = {0};
	struct diag_list dl = {0};
	/* the first line is the password; the rest is ignored */
	scratch_write(&s, IMAP_HEAD "imap-password-command = printf 'pa ss\\r\\nsecond\\n'\n"
		      "sink = smtp\nsmtp-host = h\nsmtp-user = u\n"
		      "smtp-password-command = echo smtp-secret; echo other >&2\n");
	struct conf *c = conf_load(s.cfg, &dl);
	assert_non_null(c);
	assert_string_equal(c->imap_password, "pa ss");
	assert_string_equal(c->smtp_password, "smtp-secret");
	assert_int_equal(dl.count, 0);
	conf_free(c);
	diag_free(&dl);

	/* a failing command: key, file:line and status; never its output */
	scratch_write(&s, IMAP_HEAD "\n# the secret\nimap-password-command = echo leaked-secret; exit 3\n");
	assert_null(conf_load(s.cfg, &dl));
	const struct diag *d = diag_find(&dl, "imap-password-command");
	assert_non_null(d);
	assert_string_equal(d->file, s.cfg);
	assert_int_equal(d->line, 9);
	assert_non_null(strstr(d->message, "exited with status 3"));
	for (size_t i = 0; i < dl.count; i++)
		assert_null(strstr(dl.items[i].message, "leaked-secret"));
	diag_free(&dl);

	scratch_write(&s, IMAP_HEAD "imap-password-command = true\n");
	assert_null(conf_load(s.cfg, &dl));
	assert_non_null(diag_find(&dl, "printed nothing"));
	diag_free(&dl);

	scratch_write(&s, IMAP_HEAD "imap-password-command = echo x; kill -9 $$\n");
	assert_null(conf_load(s.cfg, &dl));
	assert_non_null(diag_find(&dl, "killed by signal 9"));
	diag_free(&dl);

	scratch_write(&s, IMAP_HEAD "imap-password-command = no-such-command-here\n");
	assert_null(conf_load(s.cfg, &dl));
	assert_non_null(diag_find(&dl, "status 127"));
	diag_free(&dl);

	/* only one way to give a password */
	scratch_write(&s, IMAP_HEAD "imap-password-command = echo a\nimap-password-file = f\n");
	assert_null(conf_load(s.cfg, &dl));
	assert_non_null(diag_find(&dl, "set only one of imap-password"));
	diag_free(&dl);

	/* campaignctl's load runs nothing */
	char *marker = xasprintf("%s/ran", s.dir);
	char *text = xasprintf(IMAP_HEAD "imap-password-command = touch '%s'; echo p\n", marker);
	scratch_write(&s, text);
	c = conf_load_no_secrets(s.cfg, &dl);
	assert_non_null(c);
	assert_null(c->imap_password);
	assert_int_not_equal(access(marker, F_OK), 0);
	conf_free(c);
	c = conf_load(s.cfg, &dl);
	assert_non_null(c);
	assert_int_equal(access(marker, F_OK), 0);
	conf_free(c);
	diag_free(&dl);
	free(text);
	free(marker);
	scratch_free(&s);
}

static void test_oauth_keys(void **state)
{
	(void)state;
	struct diag_list dl = {0};
	struct conf *c = parse(IMAP_HEAD "imap-auth = xoauth2\nimap-token-command = oauth2 get imap\n"
			       "sink = smtp\nsmtp-host = h\nsmtp-user = u\nsmtp-auth = OAUTHBEARER\n"
			       "smtp-token-command = oauth2 get smtp\n", &dl);
	assert_non_null(c);
	assert_int_equal(c->imap_auth, AUTH_XOAUTH2);
	assert_int_equal(c->smtp_auth, AUTH_OAUTHBEARER);
	assert_string_equal(c->imap_token_command, "oauth2 get imap");
	assert_int_equal(c->imap_token_command_line, 8);
	assert_int_equal(c->token_lifetime, 3000);
	assert_null(c->imap_password);
	conf_free(c);
	diag_free(&dl);

	assert_null(parse(IMAP_HEAD "imap-auth = xoauth2\n", &dl));
	assert_non_null(diag_find(&dl, "needs \"imap-token-command\""));
	diag_free(&dl);
	assert_null(parse(IMAP_HEAD "imap-auth = oauthbearer\nimap-token-command = x\n", &dl));
	assert_non_null(diag_find(&dl, "oauthbearer is not supported"));
	diag_free(&dl);
	assert_null(parse(IMAP_HEAD "imap-password = p\nimap-token-command = x\n", &dl));
	assert_non_null(diag_find(&dl, "used only with imap-auth = xoauth2"));
	diag_free(&dl);
	assert_null(parse(IMAP_HEAD "imap-password = p\nimap-auth = kerberos\n", &dl));
	assert_non_null(diag_find(&dl, "password, xoauth2 or oauthbearer"));
	diag_free(&dl);
	assert_null(parse(IMAP_HEAD "imap-password = p\nsink = smtp\nsmtp-host = h\nsmtp-auth = xoauth2\n",
			  &dl));
	assert_non_null(diag_find(&dl, "needs \"smtp-user\" and \"smtp-token-command\""));
	diag_free(&dl);
	assert_null(parse(IMAP_HEAD "imap-password = p\ntoken-lifetime = 5\n", &dl));
	assert_non_null(diag_find(&dl, "token-lifetime must be"));
	diag_free(&dl);
}

static void test_secret_command_limits(void **state)
{
	(void)state;
	char *err = NULL;
	time_t t0 = time(NULL);
	assert_null(secret_command_run("sleep 10", 1, &err));
	assert_non_null(strstr(err, "did not finish within 1 s"));
	assert_true(time(NULL) - t0 < 5);
	free(err);
	err = NULL;
	/* a helper left running in the background does not hold us up */
	t0 = time(NULL);
	char *s = secret_command_run("sleep 10 & echo token", 5, &err);
	assert_non_null(s);
	assert_string_equal(s, "token");
	assert_true(time(NULL) - t0 < 4);
	secret_free(s);
	/* the command sees no standard input */
	s = secret_command_run("read x || echo eof", 5, &err);
	assert_non_null(s);
	assert_string_equal(s, "eof");
	secret_free(s);
	/* endless output is cut, and is an error */
	assert_null(secret_command_run("yes", 5, &err));
	assert_non_null(strstr(err, "printed more than"));
	free(err);
}

static void test_config_names(void **state)
{
	(void)state;
	char *err = NULL;
	setenv("CAMPAIGND_CONFIG_DIR", "/srv/conf", 1);
	char *p = conf_path_for("club", &err);
	assert_string_equal(p, "/srv/conf/club.conf");
	free(p);
	p = conf_path_for("league-2027_b", &err);
	assert_string_equal(p, "/srv/conf/league-2027_b.conf");
	free(p);
	unsetenv("CAMPAIGND_CONFIG_DIR");
	p = conf_path_for("club", &err);
	assert_string_equal(p, CONFDIR "/club.conf");
	free(p);
	/* paths stay paths */
	const char *paths[] = {"campaignd.conf", "./club", "/etc/campaignd/x.conf", "a/b"};
	for (size_t i = 0; i < 4; i++) {
		p = conf_path_for(paths[i], &err);
		assert_string_equal(p, paths[i]);
		free(p);
	}
	const char *bad[] = {"", ".hidden", "-x", "a b", "club;rm", "caf\xc3\xa9"};
	for (size_t i = 0; i < 6; i++) {
		assert_null(conf_path_for(bad[i], &err));
		assert_non_null(strstr(err, "neither a configuration file"));
		free(err);
		err = NULL;
	}
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
		cmocka_unit_test(test_smtp_connections),
		cmocka_unit_test(test_imap_needs_credentials),
		cmocka_unit_test(test_load_refuses_readable_password),
		cmocka_unit_test(test_password_command),
		cmocka_unit_test(test_oauth_keys),
		cmocka_unit_test(test_secret_command_limits),
		cmocka_unit_test(test_config_names),
		cmocka_unit_test(test_every_key_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
