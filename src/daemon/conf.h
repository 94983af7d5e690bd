/* campaignd.conf: the daemon's configuration (campaignd.conf(5)).
 * "key = value" lines, '#' comments, every error reported with file:line. */
#ifndef CAMPAIGN_CONF_H
#define CAMPAIGN_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

enum conf_source { SOURCE_MAILDIR, SOURCE_IMAP };
enum conf_sink { SINK_DIRECTORY, SINK_MAILDIR, SINK_SMTP };
enum conf_tls { TLS_IMPLICIT, TLS_STARTTLS, TLS_NONE };
enum conf_auth { AUTH_PASSWORD, AUTH_XOAUTH2, AUTH_OAUTHBEARER };

/* smtp-connections: its default and its limit */
#define CONF_SMTP_CONNECTIONS_DEFAULT 3
#define CONF_SMTP_CONNECTIONS_MAX 16

struct conf {
	char *path;            /* the file it was read from */
	char *database;
	char *campaign_address; /* the campaign's mail address, e.g. campaign@example.org */
	char *campaign_from_name;
	char *templates_dir;   /* organiser's overrides, may be NULL */
	char *publish_dir;     /* where the web diary is written, may be NULL */
	char *log_level;       /* error, warning, info, debug */
	char *log_target;      /* stderr or syslog */

	enum conf_source source;
	char *maildir;         /* SOURCE_MAILDIR: the inbox Maildir */
	char *processed_folder; /* IMAP folder / Maildir for processed mail */
	char *quarantine_folder; /* ... for mail set aside unprocessed; NULL: "quarantine" */
	int quarantine_after;   /* failures of one mail before it is set aside */
	int keep_mail_days;     /* sent mail and its raw text kept this long */
	char *imap_host;
	int imap_port;
	enum conf_tls imap_tls;
	char *imap_user;
	char *imap_password;
	char *imap_password_file;
	char *imap_password_command; /* run by conf_load; its first line is the password */
	int imap_password_command_line; /* where it was set, for its errors */
	enum conf_auth imap_auth;
	char *imap_token_command; /* run by the transport for each new OAuth2 token */
	int imap_token_command_line;
	char *imap_folder;
	char *imap_ca_file;
	int imap_tls_line;     /* where imap-tls was set (0: the default) */
	bool imap_insecure;    /* accept an unverified certificate (loudly logged) */
	int poll_seconds;      /* when IDLE is not offered, or for a Maildir */
	int quick_look_seconds; /* NOOP instead of IDLE this long after a mail; 0: never */
	int quick_look_interval_ms; /* ... one NOOP every so many ms */

	enum conf_sink sink;
	char *outbox_dir;      /* SINK_DIRECTORY / SINK_MAILDIR */
	char *smtp_host;
	int smtp_port;
	enum conf_tls smtp_tls;
	char *smtp_user;
	char *smtp_password;
	char *smtp_password_file;
	char *smtp_password_command;
	int smtp_password_command_line;
	enum conf_auth smtp_auth;
	char *smtp_token_command;
	int smtp_token_command_line;
	int token_lifetime;    /* seconds a token is used before a fresh one is asked for */
	bool smtp_insecure;
	char *smtp_ca_file;    /* PEM file of trusted CAs (a private CA), or NULL */
	int smtp_connections;  /* SMTP sessions sending at once */
	int smtp_tls_line;     /* where smtp-tls was set (0: the default) */

	size_t max_message_bytes;
	int max_mime_depth;      /* MIME containers nested deeper: refused unread */
	int max_mime_parts;      /* more MIME parts: refused unread */
	int rate_limit_per_hour; /* mails per sender per hour before we stop replying */
};

/* Parses `len` bytes of configuration text. Relative paths in the file are
 * resolved against `base_dir` (the config file's directory; may be NULL).
 * Every problem is added to diags; returns NULL if there was any error.
 * Pure: no I/O. */
struct conf *conf_parse(const char *text, size_t len, const char *filename,
			    const char *base_dir, struct diag_list *diags);

/* Reads the file, parses it, reads the password files it names, runs the
 * password commands (an error names the key, file:line and the command's
 * exit status, never its output), and refuses (a diag) a file holding a
 * password that others than its owner can read. */
struct conf *conf_load(const char *path, struct diag_list *diags);

/* conf_load without the secrets: no password file is read and no command
 * run (campaignctl, which never logs in, uses it). */
struct conf *conf_load_no_secrets(const char *path, struct diag_list *diags);

/* What "-c ARG" names: ARG itself when it holds a '/' or ends in ".conf",
 * else the configuration called ARG, "<dir>/ARG.conf", where <dir> is
 * $CAMPAIGND_CONFIG_DIR if set, else the installed one (/etc/campaignd).
 * NULL with *errstr set when ARG is neither a path nor a plain name
 * (letters, digits, '-', '_', '.', '@'; not starting with '.' or '-'). */
char *conf_path_for(const char *arg, char **errstr);

/* The keys conf_parse knows, NULL-terminated (man page test uses it). */
extern const char *const conf_keys[];

void conf_free(struct conf *cfg);

#endif
