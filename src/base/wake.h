/* Waking a running campaignd: while it runs, the daemon holds a lock on the
 * file DATABASE.pid (its process id inside); campaignctl, once it queued
 * mail, sends SIGUSR1 to the process that holds the lock, so the mail
 * leaves within a second instead of at the daemon's next poll. The lock,
 * not the file's text, names the process: a file left behind by a daemon
 * that died names no one, and no other process is ever signalled. */
#ifndef CAMPAIGN_WAKE_H
#define CAMPAIGN_WAKE_H

/* "DATABASE.pid" for a database path (caller frees). */
char *wake_file_for(const char *database);

/* The daemon: takes the lock on the database's wake file and writes its
 * pid in it. Returns the file's descriptor (keep it open while running;
 * closing it releases the lock), or -1 with *errstr (allocated) when the
 * file cannot be written or another process holds the lock. */
int wake_hold(const char *database, char **errstr);

/* campaignctl: SIGUSR1 to the process that holds the database's wake file
 * lock. Returns its pid, 0 when no daemon holds it, -1 when it could not be
 * signalled. Never blocks. */
long wake_daemon(const char *database);

#endif
