/* Reading campaignd.conf from disk: the file, the password files it names,
 * and the permission checks on both. */
#include "config.h"

#include "daemon/conf.h"
#include "base/fileio.h"
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

struct conf *conf_load(const char *path, struct diag_list *diags)
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
	if (cfg->imap_password_file)
		load_secret(cfg->imap_password_file, &cfg->imap_password, "imap-password-file",
			    path, diags);
	if (cfg->smtp_password_file)
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
	if (diags->errors > before) {
		conf_free(cfg);
		return NULL;
	}
	return cfg;
}
