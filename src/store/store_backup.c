/* An online copy of the database. */
#include "config.h"

#include "store/store_p.h"

#include <sqlite3.h>
#include <unistd.h>

/* ---------------------------------------------------------------- backup */

int store_backup(struct store *s, const char *dest_path, char **errstr)
{
	sqlite3 *dest = NULL;
	/* a copy holds the same secrets (password hashes) as the original */
	int created = store_create_private(s, dest_path, true, errstr);
	if (created != STORE_OK)
		return created;
	int rc = sqlite3_open_v2(dest_path, &dest, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		int status =
			store_fail(s, errstr, STORE_ERROR, "cannot create the copy %s: %s",
				   dest_path, dest ? sqlite3_errmsg(dest) : sqlite3_errstr(rc));
		sqlite3_close(dest);
		unlink(dest_path);
		return status;
	}
	/* The online backup copies a consistent snapshot while others write:
	 * a step that meets a writer's lock is simply tried again. */
	sqlite3_backup *b = sqlite3_backup_init(dest, "main", s->db, "main");
	if (!b) {
		int status = store_fail(s, errstr, STORE_ERROR, "backup to %s: %s", dest_path,
					sqlite3_errmsg(dest));
		sqlite3_close(dest);
		unlink(dest_path);
		return status;
	}
	do {
		rc = sqlite3_backup_step(b, 256);
		if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
			sqlite3_sleep(50);
	} while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
	sqlite3_backup_finish(b);
	int status = STORE_OK;
	if (rc != SQLITE_DONE)
		status = store_fail(s, errstr, STORE_ERROR, "backup to %s: %s", dest_path,
				    sqlite3_errstr(rc));
	sqlite3_close(dest);
	if (status != STORE_OK)
		unlink(dest_path);
	return status;
}
