#include "config.h"

#include "daemon/conf.h"
#include "base/util.h"

#include <strings.h>

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum key_type { K_STRING, K_PATH, K_INT, K_BOOL, K_SOURCE, K_SINK, K_TLS, K_COMMAND, K_AUTH };

struct key_def {
	const char *name;
	enum key_type type;
	size_t offset;
	int min, max; /* K_INT bounds */
	size_t line_offset; /* K_COMMAND: the int that keeps its line */
};

#define S(f) offsetof(struct conf, f)
static const struct key_def keys[] = {
	{"database", K_PATH, S(database), 0, 0, 0},
	{"campaign-address", K_STRING, S(campaign_address), 0, 0, 0},
	{"campaign-from-name", K_STRING, S(campaign_from_name), 0, 0, 0},
	{"templates", K_PATH, S(templates_dir), 0, 0, 0},
	{"publish", K_PATH, S(publish_dir), 0, 0, 0},
	{"log-level", K_STRING, S(log_level), 0, 0, 0},
	{"log-target", K_STRING, S(log_target), 0, 0, 0},
	{"source", K_SOURCE, S(source), 0, 0, 0},
	{"maildir", K_PATH, S(maildir), 0, 0, 0},
	{"processed-folder", K_STRING, S(processed_folder), 0, 0, 0},
	{"quarantine-folder", K_STRING, S(quarantine_folder), 0, 0, 0},
	{"quarantine-after", K_INT, S(quarantine_after), 1, 1000, 0},
	{"keep-mail-days", K_INT, S(keep_mail_days), 1, 3650, 0},
	{"imap-host", K_STRING, S(imap_host), 0, 0, 0},
	{"imap-port", K_INT, S(imap_port), 1, 65535, 0},
	{"imap-tls", K_TLS, S(imap_tls), 0, 0, 0},
	{"imap-user", K_STRING, S(imap_user), 0, 0, 0},
	{"imap-password", K_STRING, S(imap_password), 0, 0, 0},
	{"imap-password-file", K_PATH, S(imap_password_file), 0, 0, 0},
	{"imap-password-command", K_COMMAND, S(imap_password_command), 0, 0,
	 S(imap_password_command_line)},
	{"imap-auth", K_AUTH, S(imap_auth), 0, 0, 0},
	{"imap-token-command", K_COMMAND, S(imap_token_command), 0, 0, S(imap_token_command_line)},
	{"imap-folder", K_STRING, S(imap_folder), 0, 0, 0},
	{"imap-ca-file", K_PATH, S(imap_ca_file), 0, 0, 0},
	{"imap-insecure", K_BOOL, S(imap_insecure), 0, 0, 0},
	{"poll-interval", K_INT, S(poll_seconds), 1, 86400, 0},
	{"imap-quick-look", K_INT, S(quick_look_seconds), 0, 3600, 0},
	{"imap-quick-look-interval", K_INT, S(quick_look_interval_ms), 50, 60000, 0},
	{"sink", K_SINK, S(sink), 0, 0, 0},
	{"outbox", K_PATH, S(outbox_dir), 0, 0, 0},
	{"smtp-host", K_STRING, S(smtp_host), 0, 0, 0},
	{"smtp-port", K_INT, S(smtp_port), 1, 65535, 0},
	{"smtp-tls", K_TLS, S(smtp_tls), 0, 0, 0},
	{"smtp-user", K_STRING, S(smtp_user), 0, 0, 0},
	{"smtp-password", K_STRING, S(smtp_password), 0, 0, 0},
	{"smtp-password-file", K_PATH, S(smtp_password_file), 0, 0, 0},
	{"smtp-password-command", K_COMMAND, S(smtp_password_command), 0, 0,
	 S(smtp_password_command_line)},
	{"smtp-auth", K_AUTH, S(smtp_auth), 0, 0, 0},
	{"smtp-token-command", K_COMMAND, S(smtp_token_command), 0, 0, S(smtp_token_command_line)},
	{"token-lifetime", K_INT, S(token_lifetime), 60, 86400, 0},
	{"smtp-insecure", K_BOOL, S(smtp_insecure), 0, 0, 0},
	{"smtp-ca-file", K_PATH, S(smtp_ca_file), 0, 0, 0},
	{"smtp-connections", K_INT, S(smtp_connections), 1, CONF_SMTP_CONNECTIONS_MAX, 0},
	{"max-message-size", K_INT, S(max_message_bytes), 1024, INT_MAX, 0},
	{"max-mime-depth", K_INT, S(max_mime_depth), 1, 200, 0},
	{"max-mime-parts", K_INT, S(max_mime_parts), 10, 100000, 0},
	{"rate-limit", K_INT, S(rate_limit_per_hour), 1, 100000, 0},
};
#undef S

const char *const conf_keys[] = {
	"database", "campaign-address", "campaign-from-name", "templates", "publish",
	"log-level", "log-target", "source", "maildir", "processed-folder",
	"quarantine-folder", "quarantine-after", "keep-mail-days", "imap-host",
	"imap-port", "imap-tls", "imap-user", "imap-password", "imap-password-file",
	"imap-password-command", "imap-auth", "imap-token-command", "imap-folder", "imap-ca-file", "imap-insecure", "poll-interval",
	"imap-quick-look", "imap-quick-look-interval", "sink", "outbox",
	"smtp-host", "smtp-port", "smtp-tls", "smtp-user", "smtp-password",
	"smtp-password-file", "smtp-password-command", "smtp-auth", "smtp-token-command",
	"token-lifetime", "smtp-insecure", "smtp-ca-file", "smtp-connections", "max-message-size", "max-mime-depth",
	"max-mime-parts", "rate-limit", NULL,
};

static void conf_defaults(struct conf *cfg)
{
	cfg->source = SOURCE_MAILDIR;
	cfg->sink = SINK_DIRECTORY;
	cfg->imap_tls = TLS_IMPLICIT;
	cfg->smtp_tls = TLS_STARTTLS;
	cfg->poll_seconds = 60;
	cfg->quick_look_seconds = 20;
	cfg->quick_look_interval_ms = 250;
	cfg->max_message_bytes = 1024 * 1024;
	cfg->max_mime_depth = 50;
	cfg->max_mime_parts = 1000;
	cfg->quarantine_after = 3;
	cfg->keep_mail_days = 30;
	cfg->rate_limit_per_hour = 30;
	cfg->token_lifetime = 3000;
}

static char *resolve_path(const char *value, const char *base_dir)
{
	if (value[0] == '/' || !base_dir || !*base_dir)
		return xstrdup(value);
	return xasprintf("%s/%s", base_dir, value);
}

static bool parse_enum(const char *v, const char *const *names, int *out)
{
	for (int i = 0; names[i]; i++)
		if (strcasecmp(v, names[i]) == 0)
			return *out = i, true;
	return false;
}

/* Values that end up in every mail's headers: one that cannot be used would
 * stop all mail, so they are refused here, where the organiser sees them. */
static void check_string(const struct key_def *k, const char *value, const char *filename,
			 int line, struct diag_list *diags)
{
	if (k->offset == offsetof(struct conf, campaign_address)) {
		const char *problem = address_problem(value);
		if (problem)
			diag_add(diags, DIAG_ERROR, filename, line,
				 "campaign-address \"%s\" %s: write the bare address, e.g. "
				 "campaign@example.org (the name goes in campaign-from-name)",
				 value, problem);
	} else if (k->offset == offsetof(struct conf, campaign_from_name)) {
		for (const unsigned char *p = (const unsigned char *)value; *p; p++)
			if (*p < ' ' || *p == 0x7f) {
				diag_add(diags, DIAG_ERROR, filename, line,
					 "campaign-from-name has a control character");
				return;
			}
	}
}

static void set_key(struct conf *cfg, const struct key_def *k, const char *value,
		    const char *filename, int line, const char *base_dir, struct diag_list *diags)
{
	void *field = (char *)cfg + k->offset;
	static const char *const sources[] = {"maildir", "imap", NULL};
	static const char *const sinks[] = {"directory", "maildir", "smtp", NULL};
	static const char *const tls[] = {"implicit", "starttls", "none", NULL};
	static const char *const auths[] = {"password", "xoauth2", "oauthbearer", NULL};
	int e;
	switch (k->type) {
	case K_STRING:
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		check_string(k, value, filename, line, diags);
		break;
	case K_PATH:
		free(*(char **)field);
		*(char **)field = resolve_path(value, base_dir);
		break;
	case K_AUTH:
		if (!parse_enum(value, auths, &e))
			diag_add(diags, DIAG_ERROR, filename, line,
				 "%s must be password, xoauth2 or oauthbearer, not \"%s\"", k->name,
				 value);
		else
			*(enum conf_auth *)field = (enum conf_auth)e;
		break;
	case K_COMMAND:
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		*(int *)(void *)((char *)cfg + k->line_offset) = line;
		break;
	case K_INT: {
		char *end;
		long n = strtol(value, &end, 10);
		if (!*value || *end || n < k->min || n > k->max) {
			diag_add(diags, DIAG_ERROR, filename, line,
				 "%s must be a whole number from %d to %d, not \"%s\"", k->name,
				 k->min, k->max, value);
			return;
		}
		if (k->offset == offsetof(struct conf, max_message_bytes))
			*(size_t *)field = (size_t)n;
		else
			*(int *)field = (int)n;
		break;
	}
	case K_BOOL:
		if (!str_parse_bool(value, (bool *)field))
			diag_add(diags, DIAG_ERROR, filename, line,
				 "%s must be yes or no, not \"%s\"", k->name, value);
		break;
	case K_SOURCE:
		if (!parse_enum(value, sources, &e))
			diag_add(diags, DIAG_ERROR, filename, line,
				 "source must be maildir or imap, not \"%s\"", value);
		else
			cfg->source = (enum conf_source)e;
		break;
	case K_SINK:
		if (!parse_enum(value, sinks, &e))
			diag_add(diags, DIAG_ERROR, filename, line,
				 "sink must be directory, maildir or smtp, not \"%s\"", value);
		else
			cfg->sink = (enum conf_sink)e;
		break;
	case K_TLS:
		if (!parse_enum(value, tls, &e))
			diag_add(diags, DIAG_ERROR, filename, line,
				 "%s must be implicit, starttls or none, not \"%s\"", k->name, value);
		else
			*(enum conf_tls *)field = (enum conf_tls)e;
		if (k->offset == offsetof(struct conf, smtp_tls))
			cfg->smtp_tls_line = line;
		else
			cfg->imap_tls_line = line;
		break;
	}
}

static const struct key_def *find_key(const char *name, int *suggestion)
{
	const size_t n = sizeof keys / sizeof *keys;
	const char *names[sizeof keys / sizeof *keys];
	for (size_t i = 0; i < n; i++)
		names[i] = keys[i].name;
	*suggestion = -1;
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(names[i], name) == 0)
			return &keys[i];
	int sugg = -1;
	char *folded = name_fold(name);
	/* name_lookup folds '-' into spaces, so "imap host" == "imap-host";
	 * only an exact (folded) match counts, prefixes are too loose here. */
	int idx = name_lookup(folded, names, n, &sugg);
	free(folded);
	if (idx >= 0 && name_equal(names[idx], name))
		return &keys[idx];
	*suggestion = idx >= 0 ? idx : sugg;
	return NULL;
}

static bool host_is_loopback(const char *host)
{
	return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0 ||
	       strcasecmp(host, "localhost") == 0;
}

static void check_required(struct conf *cfg, const char *filename, struct diag_list *diags)
{
	if (!cfg->database)
		diag_add(diags, DIAG_ERROR, filename, 0, "missing \"database\" (the campaign's SQLite file)");
	if (!cfg->campaign_address)
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "missing \"campaign-address\" (the address players write to)");
	if (cfg->source == SOURCE_MAILDIR && !cfg->maildir)
		diag_add(diags, DIAG_ERROR, filename, 0, "source = maildir needs \"maildir\"");
	if (cfg->source == SOURCE_IMAP) {
		if (!cfg->imap_host)
			diag_add(diags, DIAG_ERROR, filename, 0, "source = imap needs \"imap-host\"");
		if (!cfg->imap_user)
			diag_add(diags, DIAG_ERROR, filename, 0, "source = imap needs \"imap-user\"");
		if (cfg->imap_auth == AUTH_OAUTHBEARER)
			diag_add(diags, DIAG_ERROR, filename, 0,
				 "imap-auth = oauthbearer is not supported; use xoauth2 (Gmail and "
				 "Microsoft 365 take both)");
		if (cfg->imap_auth != AUTH_PASSWORD && !cfg->imap_token_command)
			diag_add(diags, DIAG_ERROR, filename, 0,
				 "imap-auth = xoauth2 needs \"imap-token-command\" (a command "
				 "printing an OAuth2 access token)");
		if (cfg->imap_auth == AUTH_PASSWORD && !cfg->imap_password &&
		    !cfg->imap_password_file && !cfg->imap_password_command)
			diag_add(diags, DIAG_ERROR, filename, 0,
				 "source = imap needs \"imap-password-file\" or \"imap-password-command\" "
				 "(or \"imap-password\")");
	}
	if (!!cfg->imap_password + !!cfg->imap_password_file + !!cfg->imap_password_command > 1)
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "set only one of imap-password, imap-password-file and imap-password-command");
	if (!!cfg->smtp_password + !!cfg->smtp_password_file + !!cfg->smtp_password_command > 1)
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "set only one of smtp-password, smtp-password-file and smtp-password-command");
	if ((cfg->sink == SINK_DIRECTORY || cfg->sink == SINK_MAILDIR) && !cfg->outbox_dir)
		diag_add(diags, DIAG_ERROR, filename, 0, "sink = %s needs \"outbox\"",
			 cfg->sink == SINK_MAILDIR ? "maildir" : "directory");
	if (cfg->sink == SINK_SMTP && !cfg->smtp_host)
		diag_add(diags, DIAG_ERROR, filename, 0, "sink = smtp needs \"smtp-host\"");
	if (cfg->sink == SINK_SMTP && cfg->smtp_auth != AUTH_PASSWORD &&
	    (!cfg->smtp_token_command || !cfg->smtp_user))
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "smtp-auth = %s needs \"smtp-user\" and \"smtp-token-command\"",
			 cfg->smtp_auth == AUTH_XOAUTH2 ? "xoauth2" : "oauthbearer");
	if (cfg->imap_token_command && cfg->imap_auth == AUTH_PASSWORD)
		diag_add(diags, DIAG_ERROR, filename, cfg->imap_token_command_line,
			 "imap-token-command is used only with imap-auth = xoauth2");
	if (cfg->smtp_token_command && cfg->smtp_auth == AUTH_PASSWORD)
		diag_add(diags, DIAG_ERROR, filename, cfg->smtp_token_command_line,
			 "smtp-token-command is used only with smtp-auth = xoauth2 or oauthbearer");
	if (cfg->log_level && strcmp(cfg->log_level, "error") && strcmp(cfg->log_level, "warning") &&
	    strcmp(cfg->log_level, "info") && strcmp(cfg->log_level, "debug"))
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "log-level must be error, warning, info or debug, not \"%s\"", cfg->log_level);
	if (cfg->log_target && strcmp(cfg->log_target, "stderr") && strcmp(cfg->log_target, "syslog"))
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "log-target must be stderr or syslog, not \"%s\"", cfg->log_target);
	if (cfg->sink == SINK_SMTP && cfg->smtp_tls == TLS_NONE && cfg->smtp_user &&
	    cfg->smtp_host && !host_is_loopback(cfg->smtp_host))
		diag_add(diags, DIAG_WARNING, filename, cfg->smtp_tls_line,
			 "smtp-tls = none with smtp-user: the SMTP password crosses the network "
			 "in clear (use starttls or implicit)");
	if (cfg->source == SOURCE_IMAP && cfg->imap_tls == TLS_NONE && cfg->imap_host &&
	    !host_is_loopback(cfg->imap_host))
		diag_add(diags, DIAG_WARNING, filename, cfg->imap_tls_line,
			 "imap-tls = none: the IMAP password crosses the network in clear "
			 "(use starttls or implicit)");
	if (!cfg->imap_port)
		cfg->imap_port = cfg->imap_tls == TLS_IMPLICIT ? 993 : 143;
	if (cfg->smtp_connections && cfg->sink != SINK_SMTP)
		diag_add(diags, DIAG_WARNING, filename, 0,
			 "smtp-connections is used only with sink = smtp");
	if (!cfg->smtp_connections)
		cfg->smtp_connections = CONF_SMTP_CONNECTIONS_DEFAULT;
	if (!cfg->smtp_port)
		cfg->smtp_port = cfg->smtp_tls == TLS_IMPLICIT ? 465 : 587;
	if (!cfg->imap_folder)
		cfg->imap_folder = xstrdup("INBOX");
	if (!cfg->processed_folder)
		cfg->processed_folder = xstrdup("processed");
	if (!cfg->quarantine_folder)
		cfg->quarantine_folder = xstrdup("quarantine");
	if (strcmp(cfg->quarantine_folder, cfg->processed_folder) == 0 ||
	    strcmp(cfg->quarantine_folder, cfg->imap_folder) == 0)
		diag_add(diags, DIAG_ERROR, filename, 0,
			 "quarantine-folder must differ from processed-folder and imap-folder");
	if (!cfg->log_level)
		cfg->log_level = xstrdup("info");
	if (!cfg->log_target)
		cfg->log_target = xstrdup("stderr");
}

struct conf *conf_parse(const char *text, size_t len, const char *filename,
			    const char *base_dir, struct diag_list *diags)
{
	struct conf *cfg = xcalloc(1, sizeof *cfg);
	size_t errors_before = diags->errors;
	bool seen[sizeof keys / sizeof *keys] = {0};
	conf_defaults(cfg);
	cfg->path = xstrdup(filename);

	size_t pos = 0;
	int line = 0;
	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		line++;
		char *l = xstrndup(text + pos, end - pos);
		pos = end + 1;
		str_trim(l);
		if (!*l || l[0] == '#') {
			free(l);
			continue;
		}
		char *eq = strchr(l, '=');
		if (!eq) {
			diag_add(diags, DIAG_ERROR, filename, line,
				 "expected \"key = value\", got \"%s\"", l);
			free(l);
			continue;
		}
		*eq = '\0';
		char *key = str_trim(l), *value = str_trim(eq + 1);
		int sugg;
		const struct key_def *k = find_key(key, &sugg);
		if (!k) {
			if (sugg >= 0)
				diag_add(diags, DIAG_ERROR, filename, line,
					 "unknown key \"%s\" (did you mean \"%s\"?)", key, keys[sugg].name);
			else
				diag_add(diags, DIAG_ERROR, filename, line, "unknown key \"%s\"", key);
		} else if (!*value) {
			diag_add(diags, DIAG_ERROR, filename, line, "%s has no value", k->name);
		} else {
			size_t idx = (size_t)(k - keys);
			if (seen[idx])
				diag_add(diags, DIAG_WARNING, filename, line,
					 "%s is set again; the last value counts", k->name);
			seen[idx] = true;
			set_key(cfg, k, value, filename, line, base_dir, diags);
		}
		free(l);
	}
	check_required(cfg, filename, diags);
	if (diags->errors > errors_before) {
		conf_free(cfg);
		return NULL;
	}
	return cfg;
}

void conf_free(struct conf *cfg)
{
	if (!cfg)
		return;
	char **strings[] = {
		&cfg->path, &cfg->database, &cfg->campaign_address, &cfg->campaign_from_name,
		&cfg->templates_dir, &cfg->publish_dir, &cfg->log_level, &cfg->log_target,
		&cfg->maildir, &cfg->processed_folder, &cfg->quarantine_folder, &cfg->imap_host, &cfg->imap_user,
		&cfg->imap_password, &cfg->imap_password_file, &cfg->imap_folder,
		&cfg->imap_ca_file, &cfg->outbox_dir, &cfg->smtp_host, &cfg->smtp_user,
		&cfg->smtp_password, &cfg->smtp_password_file, &cfg->smtp_ca_file,
		&cfg->imap_password_command, &cfg->smtp_password_command, &cfg->imap_token_command,
		&cfg->smtp_token_command,
	};
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
		if (*strings[i] && (strings[i] == &cfg->imap_password ||
				    strings[i] == &cfg->smtp_password))
			memset(*strings[i], 0, strlen(*strings[i]));
		free(*strings[i]);
	}
	free(cfg);
}
