/* Running a secret's command. See secret_command.h. */
#define _GNU_SOURCE
#include "config.h"

#include "base/secret_command.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A token or password is short; more than this is not a secret but a
 * mistake (a command that prints a file). Only the first line is kept. */
#define SECRET_OUTPUT_MAX (64 * 1024)

void secret_free(char *secret)
{
	if (!secret)
		return;
	volatile char *p = secret;
	while (*p)
		*p++ = '\0';
	free(secret);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void child(const char *command, int out_fd)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	int in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(out_fd, 1) < 0)
		_exit(126);
	closefrom(3);
	/* Its own process group, so a timeout kills what it started too. */
	setpgid(0, 0);
	execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	_exit(127);
}

/* Waits for the child to end. Returns
 * its wait status, or -1 if it could not be waited for. */
static int reap(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return status;
}

char *secret_command_run(const char *command, unsigned timeout_seconds, char **errstr)
{
	int fds[2];
	if (!command || !*command) {
		*errstr = xstrdup("the command is empty");
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		*errstr = xasprintf("cannot start it: %s", strerror(errno));
		return NULL;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*errstr = xasprintf("cannot start it: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0)
		child(command, fds[1]);
	close(fds[1]);
	setpgid(pid, pid); /* as the child does: no race either way */

	long long deadline = now_ms() + 1000LL * (timeout_seconds ? timeout_seconds : 60);
	char *buf = xmalloc(SECRET_OUTPUT_MAX + 1);
	size_t len = 0;
	bool timed_out = false, too_long = false, reaped = false;
	int status = 0;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		int r = poll(&p, 1, left > 100 ? 100 : (int)left);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0) {
			/* Something it started in the background (an agent) may
			 * hold the pipe open: once the command itself has exited,
			 * take what it printed and stop. */
			if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
				reaped = true;
				fcntl(fds[0], F_SETFL, O_NONBLOCK);
			} else if (reaped) {
				break;
			}
			continue;
		}
		if (len == SECRET_OUTPUT_MAX) {
			too_long = true;
			break;
		}
		ssize_t n = read(fds[0], buf + len, SECRET_OUTPUT_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	if (!reaped) {
		if (timed_out || too_long)
			kill(-pid, SIGKILL);
		status = reap(pid);
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	char *why = NULL;
	if (timed_out)
		why = xasprintf("did not finish within %u s and was killed",
				timeout_seconds ? timeout_seconds : 60);
	else if (too_long)
		why = xasprintf("printed more than %d bytes", SECRET_OUTPUT_MAX);
	else if (status < 0)
		why = xasprintf("could not be waited for: %s", strerror(errno));
	else if (WIFSIGNALED(status))
		why = xasprintf("was killed by signal %d", WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		why = xstrdup("exited with status 127 (command not found?)");
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		why = xasprintf("exited with status %d", WEXITSTATUS(status));
	else if (!buf[0])
		why = xstrdup("printed nothing on its first line");
	if (why) {
		memset(buf, 0, len);
		free(buf);
		*errstr = why;
		return NULL;
	}
	char *secret = xstrdup(buf);
	memset(buf, 0, len);
	free(buf);
	return secret;
}
