/* The embedded transports: a local Maildir as the inbox, and a directory of
 * .eml files or a Maildir as the outbox. See transport.h for the contract. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/libetpan.h>

#include "mail/transport.h"
#include "base/util.h"

#define UIDLIST_NAME "campaignd-uidlist"
#define UIDLIST_MAGIC "campaignd-uidlist"
#define UIDLIST_VERSION 1

/* ------------------------------------------------------ file helpers */

static bool write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Writes head + body to dir/tmpname, syncs it and renames it to final.
 * On failure nothing is left behind and errno is kept. */
static bool write_file_atomic(const char *tmp_path, const char *final_path, const char *head,
			      size_t head_len, const char *body, size_t body_len)
{
	int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	if (!write_all(fd, head, head_len) || !write_all(fd, body, body_len) || fsync(fd) != 0) {
		int e = errno;
		close(fd);
		unlink(tmp_path);
		errno = e;
		return false;
	}
	if (close(fd) != 0 || rename(tmp_path, final_path) != 0) {
		int e = errno;
		unlink(tmp_path);
		errno = e;
		return false;
	}
	return true;
}

static bool make_dir(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* path, path/new, path/cur, path/tmp. */
static bool make_maildir(const char *path)
{
	static const char *const subs[] = {"new", "cur", "tmp"};
	if (!make_dir(path))
		return false;
	for (size_t i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%s", path, subs[i]);
		bool ok = make_dir(p);
		free(p);
		if (!ok)
			return false;
	}
	return true;
}

static bool is_maildir(const char *path)
{
	static const char *const subs[] = {"new", "cur", "tmp"};
	for (size_t i = 0; i < 3; i++) {
		struct stat st;
		char *p = xasprintf("%s/%s", path, subs[i]);
		int r = stat(p, &st);
		free(p);
		if (r != 0 || !S_ISDIR(st.st_mode))
			return false;
	}
	return true;
}

static bool read_file(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct strbuf sb = {0};
	char buf[65536];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			strbuf_free(&sb);
			errno = e;
			return false;
		}
		if (r == 0)
			break;
		strbuf_append(&sb, buf, (size_t)r);
	}
	close(fd);
	*len = sb.len;
	*data = strbuf_take(&sb);
	return true;
}

/* A unique name in the Maildir style: seconds.M<usec>P<pid>Q<n>.campaignd */
static char *maildir_unique_name(void)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return xasprintf("%lld.M%06ldP%ldQ%04u.campaignd", (long long)ts.tv_sec, ts.tv_nsec / 1000,
			 (long)getpid(), ++counter);
}

/* ------------------------------------------------------ Maildir source */

struct maildir_entry {
	uint32_t uid;
	char *key;      /* file name before ':' (the Maildir flags part) */
	char *subdir;   /* "new" or "cur"; NULL when known from the uidlist only */
	char *filename; /* full file name in subdir */
};

struct maildir_source {
	char *path;
	char *processed;  /* path/.<folder> */
	char *quarantine; /* path/.<quarantine folder> */
	char *uidlist;    /* path/campaignd-uidlist */
	bool create;
	unsigned poll_ms;
	struct transport_log log;

	uint32_t uidvalidity;
	uint32_t next_uid;
	struct maildir_entry *entries; /* sorted by uid after a scan */
	size_t n_entries, cap_entries;
	struct timespec seen_mtime[2]; /* new/, cur/ at the last scan */
};

static void entries_clear(struct maildir_source *md)
{
	for (size_t i = 0; i < md->n_entries; i++) {
		free(md->entries[i].key);
		free(md->entries[i].subdir);
		free(md->entries[i].filename);
	}
	md->n_entries = 0;
}

static struct maildir_entry *entry_add(struct maildir_source *md, uint32_t uid, const char *key)
{
	grow_array((void **)&md->entries, &md->cap_entries, md->n_entries + 1,
		   sizeof(*md->entries));
	struct maildir_entry *e = &md->entries[md->n_entries++];
	memset(e, 0, sizeof(*e));
	e->uid = uid;
	e->key = xstrdup(key);
	return e;
}

/* Reads the uidlist into md->entries (subdir unknown yet). A missing file
 * starts a new UIDVALIDITY; a damaged one is an error for the organiser,
 * since guessing could process mail twice. */
static enum transport_status uidlist_load(struct maildir_source *md, bool *created,
					  char **errstr)
{
	entries_clear(md);
	*created = false;
	FILE *f = fopen(md->uidlist, "re");
	if (!f) {
		if (errno != ENOENT)
			return transport_fail(errstr, TRANSPORT_TEMPFAIL, "%s: %s", md->uidlist,
					      strerror(errno));
		/* Seconds since the epoch, like Dovecot: a recreated list gets a
		 * different UIDVALIDITY unless done twice in one second. */
		md->uidvalidity = (uint32_t)time(NULL);
		md->next_uid = 1;
		*created = true;
		return TRANSPORT_OK;
	}
	char line[4096];
	unsigned lineno = 0;
	enum transport_status st = TRANSPORT_OK;
	unsigned version = 0;
	unsigned long uidvalidity = 0, next = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t n = strlen(line);
		if (n == 0 || line[n - 1] != '\n') {
			st = transport_fail(errstr, TRANSPORT_PERMFAIL,
					    "%s:%u: line too long or cut short", md->uidlist, lineno);
			break;
		}
		line[n - 1] = '\0';
		unsigned long uid;
		int used = 0;
		if (lineno == 1) {
			if (sscanf(line, UIDLIST_MAGIC " %u%n", &version, &used) != 1 ||
			    line[used] || version != UIDLIST_VERSION) {
				st = transport_fail(errstr, TRANSPORT_PERMFAIL,
						    "%s:1: not a version %d campaignd uidlist",
						    md->uidlist, UIDLIST_VERSION);
				break;
			}
		} else if (lineno == 2) {
			if (sscanf(line, "uidvalidity %lu next %lu%n", &uidvalidity, &next, &used) != 2 ||
			    line[used] || uidvalidity == 0 || uidvalidity > UINT32_MAX || next == 0 ||
			    next > UINT32_MAX) {
				st = transport_fail(errstr, TRANSPORT_PERMFAIL,
						    "%s:2: expected \"uidvalidity N next N\"",
						    md->uidlist);
				break;
			}
		} else if (sscanf(line, "%lu %n", &uid, &used) != 1 || used == 0 ||
			   !line[used] || strchr(line + used, ' ') || uid == 0 || uid >= next) {
			st = transport_fail(errstr, TRANSPORT_PERMFAIL,
					    "%s:%u: expected \"UID NAME\" with UID below %lu",
					    md->uidlist, lineno, next);
			break;
		} else {
			entry_add(md, (uint32_t)uid, line + used);
		}
	}
	if (st == TRANSPORT_OK && lineno < 2)
		st = transport_fail(errstr, TRANSPORT_PERMFAIL, "%s:%u: file is incomplete",
				    md->uidlist, lineno + 1);
	fclose(f);
	if (st != TRANSPORT_OK) {
		entries_clear(md);
		return st;
	}
	md->uidvalidity = (uint32_t)uidvalidity;
	md->next_uid = (uint32_t)next;
	return TRANSPORT_OK;
}

static enum transport_status uidlist_save(struct maildir_source *md, char **errstr)
{
	struct strbuf sb = {0};
	strbuf_printf(&sb, "%s %d\nuidvalidity %" PRIu32 " next %" PRIu32 "\n", UIDLIST_MAGIC,
		      UIDLIST_VERSION, md->uidvalidity, md->next_uid);
	for (size_t i = 0; i < md->n_entries; i++)
		strbuf_printf(&sb, "%" PRIu32 " %s\n", md->entries[i].uid, md->entries[i].key);
	char *tmp = xasprintf("%s.tmp", md->uidlist);
	unlink(tmp);
	bool ok = write_file_atomic(tmp, md->uidlist, "", 0, sb.data, sb.len);
	int e = errno;
	free(tmp);
	strbuf_free(&sb);
	if (!ok)
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "writing %s: %s", md->uidlist,
				      strerror(e));
	return TRANSPORT_OK;
}

/* Leading digits first (delivery time), then the whole name. */
static int maildir_name_cmp(const char *a, const char *b)
{
	size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

static int found_cmp(const void *x, const void *y)
{
	const struct maildir_entry *a = x, *b = y;
	return maildir_name_cmp(a->key, b->key);
}

static int uid_cmp(const void *x, const void *y)
{
	const struct maildir_entry *a = x, *b = y;
	return a->uid < b->uid ? -1 : a->uid > b->uid;
}

static struct maildir_entry *entry_by_key(struct maildir_source *md, const char *key)
{
	for (size_t i = 0; i < md->n_entries; i++)
		if (strcmp(md->entries[i].key, key) == 0)
			return &md->entries[i];
	return NULL;
}

/* Lists new/ and cur/ into `found` (uid 0). */
static enum transport_status list_messages(struct maildir_source *md, struct maildir_entry **found,
					   size_t *n_found, char **errstr)
{
	static const char *const subs[] = {"new", "cur"};
	size_t cap = 0;
	*found = NULL;
	*n_found = 0;
	for (size_t s = 0; s < 2; s++) {
		char *dir = xasprintf("%s/%s", md->path, subs[s]);
		struct stat st;
		if (stat(dir, &st) == 0)
			md->seen_mtime[s] = st.st_mtim;
		DIR *d = opendir(dir);
		if (!d) {
			enum transport_status r = transport_fail(errstr, TRANSPORT_TEMPFAIL,
								 "%s: %s", dir, strerror(errno));
			free(dir);
			return r;
		}
		free(dir);
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			size_t keylen = strcspn(de->d_name, ":");
			if (keylen == 0 || strchr(de->d_name, ' ') || strchr(de->d_name, '\n'))
				continue; /* not a name we can keep in the uidlist */
			grow_array((void **)found, &cap, *n_found + 1, sizeof(**found));
			struct maildir_entry *e = &(*found)[(*n_found)++];
			e->uid = 0;
			e->key = xstrndup(de->d_name, keylen);
			e->subdir = xstrdup(subs[s]);
			e->filename = xstrdup(de->d_name);
		}
		closedir(d);
	}
	return TRANSPORT_OK;
}

/* Brings md->entries in line with the directories: known names keep their
 * UID, new names get the next UIDs in delivery order, vanished names are
 * dropped; saves the list if anything changed. Holds a lock so that a
 * second process (campaignctl) cannot hand out the same UIDs. */
static enum transport_status maildir_scan(struct maildir_source *md, char **errstr)
{
	char *lockpath = xasprintf("%s.lock", md->uidlist);
	int lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lockfd < 0) {
		enum transport_status r = transport_fail(errstr, TRANSPORT_TEMPFAIL, "%s: %s",
							 lockpath, strerror(errno));
		free(lockpath);
		return r;
	}
	free(lockpath);
	while (flock(lockfd, LOCK_EX) != 0 && errno == EINTR)
		;

	struct maildir_entry *found = NULL;
	size_t n_found = 0;
	bool created = false;
	enum transport_status st = uidlist_load(md, &created, errstr);
	if (st == TRANSPORT_OK)
		st = list_messages(md, &found, &n_found, errstr);
	if (st == TRANSPORT_OK) {
		if (n_found > 1)
			qsort(found, n_found, sizeof(*found), found_cmp);
		bool changed = created;
		size_t kept = 0;
		for (size_t i = 0; i < n_found; i++) {
			struct maildir_entry *known = entry_by_key(md, found[i].key);
			if (known)
				found[i].uid = known->uid;
		}
		for (size_t i = 0; i < n_found; i++) {
			if (found[i].uid == 0) {
				if (md->next_uid == UINT32_MAX) {
					st = transport_fail(errstr, TRANSPORT_PERMFAIL,
							    "%s: UIDs exhausted; delete it to "
							    "start a new UIDVALIDITY",
							    md->uidlist);
					break;
				}
				found[i].uid = md->next_uid++;
				changed = true;
			} else {
				kept++;
			}
		}
		if (kept != md->n_entries)
			changed = true; /* some names went away */
		if (st == TRANSPORT_OK) {
			entries_clear(md);
			free(md->entries);
			md->entries = found;
			md->n_entries = md->cap_entries = n_found;
			found = NULL;
			n_found = 0;
			if (md->n_entries > 1)
				qsort(md->entries, md->n_entries, sizeof(*md->entries),
				      uid_cmp);
			if (changed)
				st = uidlist_save(md, errstr);
			if (st == TRANSPORT_OK && created)
				transport_logf(&md->log, TRANSPORT_LOG_INFO,
					       "%s: new UID list, UIDVALIDITY %" PRIu32,
					       md->uidlist, md->uidvalidity);
		}
	}
	for (size_t i = 0; i < n_found; i++) {
		free(found[i].key);
		free(found[i].subdir);
		free(found[i].filename);
	}
	free(found);
	flock(lockfd, LOCK_UN);
	close(lockfd);
	return st;
}

static enum transport_status maildir_source_open(void *state, char **errstr)
{
	struct maildir_source *md = state;
	if (!is_maildir(md->path)) {
		if (!md->create)
			return transport_fail(errstr, TRANSPORT_PERMFAIL,
					      "%s is not a Maildir (no new/, cur/ and tmp/)",
					      md->path);
		if (!make_maildir(md->path))
			return transport_fail(errstr, TRANSPORT_PERMFAIL, "creating Maildir %s: %s",
					      md->path, strerror(errno));
	}
	if (!make_maildir(md->processed))
		return transport_fail(errstr, TRANSPORT_PERMFAIL, "creating folder %s: %s",
				      md->processed, strerror(errno));
	if (!make_maildir(md->quarantine))
		return transport_fail(errstr, TRANSPORT_PERMFAIL, "creating folder %s: %s",
				      md->quarantine, strerror(errno));
	return TRANSPORT_OK;
}

static enum transport_status maildir_source_fetch_new(void *state, uint32_t known_uidvalidity,
						      uint32_t last_uid, transport_message_fn *fn,
						      void *ctx, uint32_t *uidvalidity,
						      char **errstr)
{
	struct maildir_source *md = state;
	enum transport_status st = maildir_scan(md, errstr);
	if (st != TRANSPORT_OK)
		return st;
	*uidvalidity = md->uidvalidity;
	if (known_uidvalidity != 0 && known_uidvalidity != md->uidvalidity)
		return transport_fail(errstr, TRANSPORT_UIDVALIDITY_CHANGED,
				      "%s: UIDVALIDITY is %" PRIu32 ", expected %" PRIu32,
				      md->path, md->uidvalidity, known_uidvalidity);
	for (size_t i = 0; i < md->n_entries && st == TRANSPORT_OK; i++) {
		const struct maildir_entry *e = &md->entries[i];
		if (e->uid <= last_uid)
			continue;
		char *file = xasprintf("%s/%s/%s", md->path, e->subdir, e->filename);
		char *data = NULL;
		size_t len = 0;
		struct stat sb;
		if (stat(file, &sb) != 0 || !read_file(file, &data, &len)) {
			/* Gone since the scan (moved by another reader): its
			 * UID is simply not there any more, as in IMAP. */
			if (errno != ENOENT)
				st = transport_fail(errstr, TRANSPORT_TEMPFAIL, "%s: %s", file,
						    strerror(errno));
			free(file);
			continue;
		}
		free(file);
		struct transport_message msg = {
			.uidvalidity = md->uidvalidity,
			.uid = e->uid,
			.data = data,
			.len = len,
			.internal_date = (int64_t)sb.st_mtime,
		};
		st = fn(ctx, &msg, errstr);
		free(data);
	}
	return st;
}

static struct maildir_entry *entry_by_uid(struct maildir_source *md, uint32_t uid)
{
	size_t lo = 0, hi = md->n_entries; /* entries are sorted by UID */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (md->entries[mid].uid == uid)
			return &md->entries[mid];
		if (md->entries[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The list of the last scan is tried first, so a backlog of thousands of
 * mails is moved without reading the folder again for each one; a mail
 * that is not where that list says (another client renamed it meanwhile)
 * is looked up again in a fresh scan. */
static enum transport_status maildir_move(struct maildir_source *md, const char *folder,
					  uint32_t uidvalidity, uint32_t uid, char **errstr)
{
	for (int pass = md->n_entries > 0 && uidvalidity == md->uidvalidity ? 0 : 1; pass < 2;
	     pass++) {
		if (pass == 1) {
			enum transport_status st = maildir_scan(md, errstr);
			if (st != TRANSPORT_OK)
				return st;
			if (uidvalidity != md->uidvalidity)
				return transport_fail(errstr, TRANSPORT_UIDVALIDITY_CHANGED,
						      "%s: UIDVALIDITY is %" PRIu32 ", not %" PRIu32,
						      md->path, md->uidvalidity, uidvalidity);
		}
		struct maildir_entry *e = entry_by_uid(md, uid);
		if (!e)
			continue;
		char *from = xasprintf("%s/%s/%s", md->path, e->subdir, e->filename);
		char *to = xasprintf("%s/%s/%s", folder, e->subdir, e->filename);
		int r = rename(from, to), saved = errno;
		enum transport_status st = TRANSPORT_OK;
		if (r != 0 && saved != ENOENT)
			st = transport_fail(errstr, TRANSPORT_TEMPFAIL, "moving %s to %s: %s", from,
					    to, strerror(saved));
		free(from);
		free(to);
		if (r == 0 || saved != ENOENT || pass == 1)
			return st;
	}
	return TRANSPORT_OK; /* already moved */
}

static enum transport_status maildir_source_mark_processed(void *state, uint32_t uidvalidity,
							   uint32_t uid, char **errstr)
{
	struct maildir_source *md = state;
	return maildir_move(md, md->processed, uidvalidity, uid, errstr);
}

static enum transport_status maildir_source_quarantine(void *state, uint32_t uidvalidity,
						       uint32_t uid, char **errstr)
{
	struct maildir_source *md = state;
	return maildir_move(md, md->quarantine, uidvalidity, uid, errstr);
}

static bool mtime_changed(const struct maildir_source *md)
{
	static const char *const subs[] = {"new", "cur"};
	for (size_t s = 0; s < 2; s++) {
		char *dir = xasprintf("%s/%s", md->path, subs[s]);
		struct stat st;
		int r = stat(dir, &st);
		free(dir);
		if (r == 0 && (st.st_mtim.tv_sec != md->seen_mtime[s].tv_sec ||
			       st.st_mtim.tv_nsec != md->seen_mtime[s].tv_nsec))
			return true;
	}
	return false;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static enum transport_status maildir_source_wait(void *state, unsigned timeout_ms, int wake_fd,
						 bool *changed, char **errstr)
{
	struct maildir_source *md = state;
	(void)errstr;
	int64_t deadline = monotonic_ms() + timeout_ms;
	for (;;) {
		/* A delivery renames a file into new/ (or a client moves one
		 * into cur/): either changes that directory's mtime. */
		if (mtime_changed(md)) {
			*changed = true;
			return TRANSPORT_OK;
		}
		int64_t left = deadline - monotonic_ms();
		if (left <= 0)
			return TRANSPORT_OK;
		struct pollfd pfd = {.fd = wake_fd, .events = POLLIN};
		int r = poll(&pfd, wake_fd >= 0 ? 1 : 0,
			     (int)(left < md->poll_ms ? left : md->poll_ms));
		if (r != 0)
			return TRANSPORT_OK; /* woken, or a signal: let the caller look */
	}
}

static void maildir_source_close(void *state)
{
	struct maildir_source *md = state;
	entries_clear(md);
}

static void maildir_source_free(void *state)
{
	struct maildir_source *md = state;
	entries_clear(md);
	free(md->entries);
	free(md->path);
	free(md->processed);
	free(md->quarantine);
	free(md->uidlist);
	free(md);
}

static const struct mail_source_ops maildir_source_ops = {
	.name = "maildir",
	.open = maildir_source_open,
	.fetch_new = maildir_source_fetch_new,
	.mark_processed = maildir_source_mark_processed,
	.quarantine = maildir_source_quarantine,
	.wait = maildir_source_wait,
	.close = maildir_source_close,
	.free = maildir_source_free,
};

struct mail_source *transport_maildir_source_new(const struct maildir_source_config *cfg)
{
	struct maildir_source *md = xcalloc(1, sizeof(*md));
	md->path = xstrdup(cfg->path);
	size_t n = strlen(md->path);
	while (n > 1 && md->path[n - 1] == '/')
		md->path[--n] = '\0';
	md->processed = xasprintf("%s/.%s", md->path,
				  cfg->processed_folder ? cfg->processed_folder : "processed");
	md->quarantine = xasprintf("%s/.%s", md->path,
				   cfg->quarantine_folder ? cfg->quarantine_folder : "quarantine");
	md->uidlist = xasprintf("%s/%s", md->path, UIDLIST_NAME);
	md->create = cfg->create;
	md->poll_ms = cfg->poll_interval_ms ? cfg->poll_interval_ms : 500;
	md->log = cfg->log;
	return mail_source_new(&maildir_source_ops, md);
}

/* ------------------------------------------------------ directory sink */

struct dir_sink {
	char *directory;
	struct transport_log log;
};

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* File name stem "<UTC date>-<id>" from the message's Date and Message-ID. */
static char *dir_sink_stem(const char *data, size_t len)
{
	size_t idx = 0;
	struct mailimf_fields *fields = NULL;
	char *id = NULL;
	int64_t when = 0;
	bool have_date = false;
	if (mailimf_fields_parse(data, len, &idx, &fields) == MAILIMF_NO_ERROR) {
		struct mailimf_single_fields sf;
		mailimf_single_fields_init(&sf, fields);
		if (sf.fld_message_id && sf.fld_message_id->mid_value)
			id = xstrdup(sf.fld_message_id->mid_value);
		if (sf.fld_orig_date && sf.fld_orig_date->dt_date_time) {
			const struct mailimf_date_time *d = sf.fld_orig_date->dt_date_time;
			int zone_min = (d->dt_zone / 100) * 60 + d->dt_zone % 100;
			when = days_from_civil(d->dt_year, (unsigned)d->dt_month,
					       (unsigned)d->dt_day) * 86400 +
			       d->dt_hour * 3600 + d->dt_min * 60 + d->dt_sec - zone_min * 60;
			have_date = d->dt_month >= 1 && d->dt_month <= 12;
		}
		mailimf_fields_free(fields);
	}
	if (!have_date)
		when = (int64_t)time(NULL);
	time_t t = (time_t)when;
	struct tm tm;
	char date[32] = "00000000T000000Z";
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y%m%dT%H%M%SZ", &tm);
	if (!id)
		id = maildir_unique_name();
	for (char *p = id; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(".-_@", c)))
			*p = '_';
	}
	if (strlen(id) > 200)
		id[200] = '\0';
	char *stem = xasprintf("%s-%s", date, id);
	free(id);
	return stem;
}

static enum transport_status dir_sink_send(void *state, const char *envelope_from,
					   const char *const *recipients, size_t n_recipients,
					   const char *data, size_t len, char **errstr)
{
	struct dir_sink *ds = state;
	if (!make_dir(ds->directory))
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "creating %s: %s", ds->directory,
				      strerror(errno));
	struct strbuf head = {0};
	strbuf_printf(&head, "X-Envelope-From: <%s>\r\nX-Envelope-To:", envelope_from);
	for (size_t i = 0; i < n_recipients; i++)
		strbuf_printf(&head, "%s <%s>", i ? "," : "", recipients[i]);
	strbuf_puts(&head, "\r\n");
	char *stem = dir_sink_stem(data, len);
	char *final = xasprintf("%s/%s.eml", ds->directory, stem);
	char *unique = maildir_unique_name();
	/* A leading dot keeps readers that glob *.eml off the partial file. */
	char *tmp = xasprintf("%s/.%s.tmp", ds->directory, unique);
	enum transport_status st = TRANSPORT_OK;
	if (!write_file_atomic(tmp, final, head.data, head.len, data, len))
		st = transport_fail(errstr, TRANSPORT_TEMPFAIL, "writing %s: %s", final,
				    strerror(errno));
	free(stem);
	free(final);
	free(unique);
	free(tmp);
	strbuf_free(&head);
	return st;
}

static void dir_sink_free(void *state)
{
	struct dir_sink *ds = state;
	free(ds->directory);
	free(ds);
}

static const struct mail_sink_ops dir_sink_ops = {
	.name = "directory",
	.send = dir_sink_send,
	.free = dir_sink_free,
};

struct mail_sink *transport_dir_sink_new(const char *directory, struct transport_log log)
{
	struct dir_sink *ds = xcalloc(1, sizeof(*ds));
	ds->directory = xstrdup(directory);
	ds->log = log;
	return mail_sink_new(&dir_sink_ops, ds);
}

/* ------------------------------------------------------ Maildir sink */

static enum transport_status maildir_sink_send(void *state, const char *envelope_from,
					       const char *const *recipients, size_t n_recipients,
					       const char *data, size_t len, char **errstr)
{
	struct dir_sink *ds = state;
	if (!make_maildir(ds->directory))
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "creating Maildir %s: %s",
				      ds->directory, strerror(errno));
	for (size_t i = 0; i < n_recipients; i++) {
		char *head = xasprintf("Return-Path: <%s>\r\nDelivered-To: %s\r\n", envelope_from,
				       recipients[i]);
		char *name = maildir_unique_name();
		char *tmp = xasprintf("%s/tmp/%s", ds->directory, name);
		char *final = xasprintf("%s/new/%s", ds->directory, name);
		bool ok = write_file_atomic(tmp, final, head, strlen(head), data, len);
		int e = errno;
		free(head);
		free(name);
		free(tmp);
		free(final);
		if (!ok)
			return transport_fail(errstr, TRANSPORT_TEMPFAIL, "delivering to %s: %s",
					      ds->directory, strerror(e));
	}
	return TRANSPORT_OK;
}

static const struct mail_sink_ops maildir_sink_ops = {
	.name = "maildir",
	.send = maildir_sink_send,
	.free = dir_sink_free,
};

struct mail_sink *transport_maildir_sink_new(const char *maildir, struct transport_log log)
{
	struct dir_sink *ds = xcalloc(1, sizeof(*ds));
	ds->directory = xstrdup(maildir);
	ds->log = log;
	return mail_sink_new(&maildir_sink_ops, ds);
}
