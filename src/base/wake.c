/* Waking a running campaignd (wake.h): a lock on DATABASE.pid, SIGUSR1. */
#include "config.h"

#include "base/wake.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *wake_file_for(const char *database)
{
	return xasprintf("%s.pid", database);
}

int wake_hold(const char *database, char **errstr)
{
	char *path = wake_file_for(database);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		*errstr = xasprintf("%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK)
			*errstr = xasprintf("%s: held by process %ld", path, (long)who.l_pid);
		else
			*errstr = xasprintf("%s: %s", path, strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)n) != n) {
		*errstr = xasprintf("%s: %s", path, strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	return fd;
}

long wake_daemon(const char *database)
{
	char *path = wake_file_for(database);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return 0;
	struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	long pid = 0;
	if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0 &&
	    who.l_pid != getpid())
		pid = kill(who.l_pid, SIGUSR1) == 0 ? (long)who.l_pid : -1;
	close(fd);
	return pid;
}
