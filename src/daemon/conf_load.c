/* Reading campaignd.conf from disk: the file, the password files it names,
 * and the permission checks on both. */
#include "config.h"

#include "daemon/conf.h"
#include "base/fileio.h"
#include "base/secret_command.h"
#include "base/util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool readable_by_others(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH));
}

static void load_secret(const char *path, char **dest, const char *key, const char *cfgfile,
			struct diag_list *diags)
{
	size_t len = 0;
	char *s = file_read_all(path, 1024 * 1024, &len);
	if (!s) {
		diag_add(diags, DIAG_ERROR, cfgfile, 0, "%s: cannot read %s: %s", key, path,
			 strerror(errno));
		return;
	}
	if (readable_by_others(path))
		diag_add(diags, DIAG_ERROR, path, 0,
			 "holds a password but others can read it (chmod 600 %s)", path);
	/* the secret is the first line, without its line end */
	s[strcspn(s, "\r\n")] = '\0';
	free(*dest);
	*dest = s;
}

/* Runs a password command; its output goes nowhere but *dest. */
static void run_secret(const char *command, int line, char **dest, const char *key,
		       const char *cfgfile, struct diag_list *diags)
{
	char *err = NULL;
	char *s = secret_command_run(command, 0, &err);
	if (!s) {
		diag_add(diags, DIAG_ERROR, cfgfile, line, "%s: the command %s", key, err);
		free(err);
		return;
	}
	secret_free(*dest);
	*dest = s;
}

static struct conf *load(const char *path, bool secrets, struct diag_list *diags)
{
	size_t len = 0;
	char *text = file_read_all(path, 1024 * 1024, &len);
	if (!text) {
		diag_add(diags, DIAG_ERROR, path, 0, "cannot read: %s", strerror(errno));
		return NULL;
	}
	char *copy = xstrdup(path);
	char *dir = dirname(copy);
	size_t before = diags->errors;
	struct conf *cfg = conf_parse(text, len, path, dir, diags);
	free(copy);
	free(text);
	if (!cfg)
		return NULL;
	if ((cfg->imap_password || cfg->smtp_password) && readable_by_others(path))
		diag_add(diags, DIAG_ERROR, path, 0,
			 "holds a password but others can read it: chmod 600 it, or move the "
			 "password to a file named by imap-password-file / smtp-password-file");
	if (secrets && cfg->imap_password_file)
		load_secret(cfg->imap_password_file, &cfg->imap_password, "imap-password-file",
			    path, diags);
	if (secrets && cfg->smtp_password_file)
		load_secret(cfg->smtp_password_file, &cfg->smtp_password, "smtp-password-file",
			    path, diags);
	const char *ca_files[][2] = {{"imap-ca-file", cfg->imap_ca_file},
				     {"smtp-ca-file", cfg->smtp_ca_file}};
	for (size_t i = 0; i < 2; i++) {
		char *pem = ca_files[i][1] ? file_read_all(ca_files[i][1], 16 * 1024 * 1024, &len)
					   : NULL;
		if (ca_files[i][1] && !pem)
			diag_add(diags, DIAG_ERROR, path, 0, "%s: cannot read %s: %s",
				 ca_files[i][0], ca_files[i][1], strerror(errno));
		else if (pem && !strstr(pem, "-----BEGIN CERTIFICATE-----"))
			diag_add(diags, DIAG_ERROR, path, 0, "%s: %s holds no PEM certificate",
				 ca_files[i][0], ca_files[i][1]);
		free(pem);
	}
	/* Only the side in use logs in: a command for the other is not run. */
	if (secrets && cfg->imap_password_command && cfg->source == SOURCE_IMAP)
		run_secret(cfg->imap_password_command, cfg->imap_password_command_line,
			   &cfg->imap_password, "imap-password-command", path, diags);
	if (secrets && cfg->smtp_password_command && cfg->sink == SINK_SMTP)
		run_secret(cfg->smtp_password_command, cfg->smtp_password_command_line,
			   &cfg->smtp_password, "smtp-password-command", path, diags);
	if (diags->errors > before) {
		conf_free(cfg);
		return NULL;
	}
	return cfg;
}

struct conf *conf_load(const char *path, struct diag_list *diags)
{
	return load(path, true, diags);
}

struct conf *conf_load_no_secrets(const char *path, struct diag_list *diags)
{
	return load(path, false, diags);
}

char *conf_path_for(const char *arg, char **errstr)
{
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n >= 5 && strcmp(arg + n - 5, ".conf") == 0))
		return xstrdup(arg);
	bool ok = n > 0 && arg[0] != '.' && arg[0] != '-';
	for (const char *p = arg; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || *p == '@';
	if (!ok) {
		*errstr = xasprintf("\"%s\" is neither a configuration file (a path, or a name "
				    "ending in .conf) nor the name of one in %s", arg, CONFDIR);
		return NULL;
	}
	const char *dir = getenv("CAMPAIGND_CONFIG_DIR");
	return xasprintf("%s/%s.conf", dir && *dir ? dir : CONFDIR, arg);
}
