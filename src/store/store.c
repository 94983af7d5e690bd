/* The store: opening and closing the database file, and the handle's
 * settings. The SQL of each table family is in its own file (README). */
#include "config.h"

#include "store/store_p.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The daemon and campaignctl share the file: a writer waits this long for
 * another one before giving up with "database is locked". */
#define STORE_BUSY_TIMEOUT_MS 10000

/* ---------------------------------------------------------------- open */

int store_create_private(const struct store *s, const char *path, bool exclusive,
			 char **errstr)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == EEXIST && !exclusive)
			return STORE_OK;
		return store_fail(s, errstr, errno == EEXIST ? STORE_EXISTS : STORE_ERROR,
				  "cannot create %s: %s", path,
				  errno == EEXIST ? "it exists already (a file or a link)"
						  : strerror(errno));
	}
	int status = STORE_OK;
	if (fchmod(fd, 0600) != 0)
		status = store_fail(s, errstr, STORE_ERROR, "%s: %s", path, strerror(errno));
	close(fd);
	return status;
}

int store_open_at_version(const char *path, unsigned flags, int schema_version,
			  struct store **out, char **errstr)
{
	struct store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->readonly = flags & STORE_READONLY;
	s->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
	s->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
	*out = NULL;
	int status = STORE_OK;
	struct stat sb;

	if (schema_version < 1 || schema_version > STORE_SCHEMA_VERSION) {
		status = store_fail(s, errstr, STORE_ERROR, "no schema version %d", schema_version);
		goto done;
	}
	if (sodium_init() < 0) {
		status = store_fail(s, errstr, STORE_ERROR, "libsodium could not be initialised");
		goto done;
	}
	if (!(flags & STORE_CREATE) || s->readonly) {
		if (stat(path, &sb) != 0) {
			status = store_fail(
				s, errstr, errno == ENOENT ? STORE_NOTFOUND : STORE_ERROR, "%s%s",
				strerror(errno),
				errno == ENOENT ? " (create it with campaignctl init)" : "");
			goto done;
		}
	}
	if ((flags & STORE_CREATE) && !s->readonly) {
		status = store_create_private(s, path, false, errstr);
		if (status != STORE_OK)
			goto done;
	}
	int oflags = s->readonly ? SQLITE_OPEN_READONLY
				 : SQLITE_OPEN_READWRITE |
					   (flags & STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
	int rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		status = store_db_fail(s, errstr, rc);
		goto done;
	}
	sqlite3_extended_result_codes(s->db, 1);
	store_campaign_hooks(s);
	s->busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);

	int64_t version = 0;
	status = store_check_identity(s, &version, errstr);
	if (status != STORE_OK)
		goto done;
	s->version = (int)version;
	status = store_exec(s, "PRAGMA foreign_keys = ON", errstr);
	/* What is deleted or overwritten (a mail that held a password) is
	 * zeroed, not left in free pages. */
	if (status == STORE_OK)
		status = store_exec(s, "PRAGMA secure_delete = ON", errstr);
	if (status != STORE_OK)
		goto done;
	if (s->readonly) {
		if (version < STORE_SCHEMA_VERSION)
			status = store_fail(
				s, errstr, version ? STORE_VERSION : STORE_NOTFOUND,
				version ? "database schema version %lld is older than %d:"
					  " open it once read-write to upgrade it"
					: "empty database (schema version %lld of %d)",
				(long long)version, STORE_SCHEMA_VERSION);
		goto done;
	}
	/* WAL lets campaignctl read while the daemon writes. */
	status = store_exec(s, "PRAGMA journal_mode = WAL", errstr);
	if (status == STORE_OK && version < schema_version)
		status = store_migrate(s, schema_version, errstr);
done:
	if (status != STORE_OK) {
		store_close(s);
		return status;
	}
	*out = s;
	return STORE_OK;
}

int store_open(const char *path, unsigned flags, struct store **out, char **errstr)
{
	return store_open_at_version(path, flags, STORE_SCHEMA_VERSION, out, errstr);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->db) {
		store_rollback(s);
		store_stmt_cache_clear(s);
		store_campaign_forget(s);
		sqlite3_close_v2(s->db);
	}
	free(s->path);
	free(s);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

int store_schema_version(const struct store *s)
{
	return s->version;
}

void store_set_pwhash_limits(struct store *s, unsigned long long opslimit, size_t memlimit)
{
	s->opslimit = opslimit;
	s->memlimit = memlimit;
}

void store_set_busy_timeout(struct store *s, int milliseconds)
{
	s->busy_timeout_ms = milliseconds;
	sqlite3_busy_timeout(s->db, milliseconds);
}

int store_set_synced(struct store *s, bool synced, char **errstr)
{
	/* WAL: FULL syncs the log at every commit, NORMAL only at checkpoints */
	return store_exec(s, synced ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
			  errstr);
}
