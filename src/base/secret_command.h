/* Secrets from a command, as mbsync's PassCmd and msmtp's passwordeval do
 * it: imap-password-command, smtp-password-command and the token commands
 * of campaignd.conf(5) run a command and take the first line it prints. */
#ifndef CAMPAIGN_SECRET_COMMAND_H
#define CAMPAIGN_SECRET_COMMAND_H

/* Runs `command` with /bin/sh -c, its standard input from /dev/null and its
 * standard error passed through (its diagnostics, never its output), and
 * returns the first line of its standard output without the line end.
 * The command gets at most timeout_seconds (0: 60), after which it is
 * killed; it must exit with status 0 and print a non-empty first line.
 * Returns NULL on failure with *errstr set to an allocated message that
 * says why ("exited with status 1", "was killed by signal 9", "printed
 * nothing", "did not finish within 60 s") and never quotes the output.
 * The caller should wipe the returned secret before freeing it
 * (secret_free). Signal dispositions and mask are reset in the child;
 * descriptors other than 0-2 are not passed on. */
char *secret_command_run(const char *command, unsigned timeout_seconds, char **errstr);

/* Overwrites the string with zeros, then frees it. NULL is allowed. */
void secret_free(char *secret);

#endif
