/* Command-line driver of the IMAP source and SMTP sink for
 * transport_imap.test. Usage:
 *   transport_probe fetch [--last-uid N] [--uidvalidity V] [--mark] [--dump DIR]
 *                         [--pause-ms N] CONNECTION
 *       prints "uidvalidity V", then "uid N len L" per message; with --mark
 *       moves each to the processed folder after "recording" it; with
 *       --pause-ms fetches twice with a pause in between (a test can break
 *       the connection meanwhile) and prints "second round" before the second.
 *   transport_probe idle --timeout-ms N CONNECTION
 *       fetches (to get in step), prints "idling", waits, prints
 *       "changed C ms M" (M = milliseconds waited).
 *   transport_probe send --from A --to B [--to C...] --file F CONNECTION
 * CONNECTION: --host H --port P --tls none|implicit|starttls [--ca FILE]
 *   [--tls-name N] [--insecure] [--user U --password W]
 * Exit status: 0 ok, 2 temporary failure, 3 permanent failure, 4 UIDVALIDITY
 * changed, 5 server unusable for now (TLS or login trouble), 1 usage error. Errors and log lines go to stderr. */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mail/transport.h"
#include "base/util.h"

struct options {
	const char *command;
	const char *host;
	unsigned port;
	enum transport_tls tls;
	const char *ca;
	const char *tls_name;
	bool insecure;
	const char *user;
	const char *password;
	uint32_t last_uid;
	uint32_t uidvalidity;
	bool mark;
	const char *dump;
	unsigned pause_ms;
	unsigned timeout_ms;
	const char *from;
	const char *to[8];
	size_t n_to;
	const char *file;
};

static void log_to_stderr(void *ctx, enum transport_log_level level, const char *msg)
{
	(void)ctx;
	static const char *const names[] = {"error", "warning", "info", "debug"};
	fprintf(stderr, "transport_probe: %s: %s\n", names[level], msg);
}

static int exit_code(enum transport_status st)
{
	switch (st) {
	case TRANSPORT_OK:
		return 0;
	case TRANSPORT_TEMPFAIL:
		return 2;
	case TRANSPORT_PERMFAIL:
		return 3;
	case TRANSPORT_UIDVALIDITY_CHANGED:
		return 4;
	case TRANSPORT_BLOCKED:
		return 5;
	}
	return 1;
}

static int usage(void)
{
	fputs("usage: transport_probe fetch|idle|send [options] (see the source)\n", stderr);
	return 1;
}

static bool parse_args(int argc, char **argv, struct options *o)
{
	if (argc < 2)
		return false;
	o->command = argv[1];
	o->tls = TRANSPORT_TLS_NONE;
	o->host = "127.0.0.1";
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--insecure") == 0) {
			o->insecure = true;
			continue;
		}
		if (strcmp(a, "--mark") == 0) {
			o->mark = true;
			continue;
		}
		if (!v)
			return false;
		i++;
		if (strcmp(a, "--host") == 0)
			o->host = v;
		else if (strcmp(a, "--port") == 0)
			o->port = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--tls") == 0) {
			if (!transport_tls_parse(v, &o->tls))
				return false;
		} else if (strcmp(a, "--ca") == 0)
			o->ca = v;
		else if (strcmp(a, "--tls-name") == 0)
			o->tls_name = v;
		else if (strcmp(a, "--user") == 0)
			o->user = v;
		else if (strcmp(a, "--password") == 0)
			o->password = v;
		else if (strcmp(a, "--last-uid") == 0)
			o->last_uid = (uint32_t)strtoul(v, NULL, 10);
		else if (strcmp(a, "--uidvalidity") == 0)
			o->uidvalidity = (uint32_t)strtoul(v, NULL, 10);
		else if (strcmp(a, "--dump") == 0)
			o->dump = v;
		else if (strcmp(a, "--pause-ms") == 0)
			o->pause_ms = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--timeout-ms") == 0)
			o->timeout_ms = (unsigned)strtoul(v, NULL, 10);
		else if (strcmp(a, "--from") == 0)
			o->from = v;
		else if (strcmp(a, "--to") == 0 && o->n_to < 8)
			o->to[o->n_to++] = v;
		else if (strcmp(a, "--file") == 0)
			o->file = v;
		else
			return false;
	}
	return true;
}

/* What the engine would do with a message: keep it (here: print and dump). */
struct fetch_ctx {
	const struct options *o;
	uint32_t last_uid;
	uint32_t uidvalidity;
	uint32_t done[64];
	size_t n_done;
};

static enum transport_status on_message(void *ctx, const struct transport_message *msg,
					char **errstr)
{
	struct fetch_ctx *fc = ctx;
	printf("uid %" PRIu32 " len %zu\n", msg->uid, msg->len);
	fflush(stdout);
	if (fc->o->dump) {
		char *path = xasprintf("%s/%" PRIu32 ".eml", fc->o->dump, msg->uid);
		FILE *f = fopen(path, "wb");
		bool ok = f && fwrite(msg->data, 1, msg->len, f) == msg->len;
		if (f && fclose(f) != 0)
			ok = false;
		free(path);
		if (!ok)
			return transport_fail(errstr, TRANSPORT_TEMPFAIL, "cannot write dump");
	}
	fc->last_uid = msg->uid;
	fc->uidvalidity = msg->uidvalidity;
	if (fc->n_done < 64)
		fc->done[fc->n_done++] = msg->uid;
	return TRANSPORT_OK;
}

static enum transport_status fetch(struct mail_source *src, struct fetch_ctx *fc, char **err)
{
	uint32_t uv = 0;
	fc->n_done = 0;
	enum transport_status st = mail_source_fetch_new(src, fc->uidvalidity, fc->last_uid,
							 on_message, fc, &uv, err);
	if (st == TRANSPORT_OK || st == TRANSPORT_UIDVALIDITY_CHANGED) {
		printf("uidvalidity %" PRIu32 "\n", uv);
		fflush(stdout);
	}
	if (st != TRANSPORT_OK)
		return st;
	fc->uidvalidity = uv;
	/* Only after "committing" are the messages moved. */
	for (size_t i = 0; fc->o->mark && i < fc->n_done; i++) {
		st = mail_source_mark_processed(src, uv, fc->done[i], err);
		if (st != TRANSPORT_OK)
			return st;
	}
	return TRANSPORT_OK;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int run_source(const struct options *o)
{
	struct imap_source_config cfg = {
		.host = o->host,
		.port = (uint16_t)o->port,
		.tls = o->tls,
		.ca_file = o->ca,
		.tls_name = o->tls_name,
		.insecure = o->insecure,
		.user = o->user,
		.password = o->password,
		.timeout_seconds = 10,
		.log = {log_to_stderr, NULL},
	};
	struct mail_source *src = transport_imap_source_new(&cfg);
	struct fetch_ctx fc = {.o = o, .last_uid = o->last_uid, .uidvalidity = o->uidvalidity};
	char *err = NULL;
	enum transport_status st = fetch(src, &fc, &err);
	if (st == TRANSPORT_OK && strcmp(o->command, "fetch") == 0 && o->pause_ms) {
		usleep(o->pause_ms * 1000);
		printf("second round\n");
		fflush(stdout);
		st = fetch(src, &fc, &err);
	}
	if (st == TRANSPORT_OK && strcmp(o->command, "idle") == 0) {
		bool changed = false;
		printf("idling\n");
		fflush(stdout);
		int64_t t0 = now_ms();
		st = mail_source_wait(src, o->timeout_ms ? o->timeout_ms : 10000, -1, &changed, &err);
		printf("changed %d ms %lld\n", changed, (long long)(now_ms() - t0));
		fflush(stdout);
		if (st == TRANSPORT_OK)
			st = fetch(src, &fc, &err);
	}
	if (st != TRANSPORT_OK)
		fprintf(stderr, "transport_probe: %s: %s\n", transport_status_name(st),
			err ? err : "(no message)");
	free(err);
	mail_source_free(src);
	return exit_code(st);
}

static int run_send(const struct options *o)
{
	if (!o->from || !o->n_to || !o->file)
		return usage();
	int fd = open(o->file, O_RDONLY);
	if (fd < 0) {
		perror(o->file);
		return 1;
	}
	struct strbuf sb = {0};
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_append(&sb, buf, (size_t)n);
	close(fd);
	struct smtp_sink_config cfg = {
		.host = o->host,
		.port = (uint16_t)o->port,
		.tls = o->tls,
		.ca_file = o->ca,
		.insecure = o->insecure,
		.user = o->user,
		.password = o->password,
		.helo_name = "probe.example.test",
		.connect_timeout_seconds = 5,
		.timeout_seconds = 10,
		.log = {log_to_stderr, NULL},
	};
	struct mail_sink *sink = transport_smtp_sink_new(&cfg);
	char *err = NULL;
	enum transport_status st = mail_sink_send(sink, o->from, o->to, o->n_to, sb.data ? sb.data : "",
						  sb.len, &err);
	printf("%s\n", transport_status_name(st));
	if (st != TRANSPORT_OK)
		fprintf(stderr, "transport_probe: %s: %s\n", transport_status_name(st), err);
	free(err);
	strbuf_free(&sb);
	mail_sink_free(sink);
	return exit_code(st);
}

int main(int argc, char **argv)
{
	struct options o = {0};
	if (!parse_args(argc, argv, &o))
		return usage();
	if (strcmp(o.command, "fetch") == 0 || strcmp(o.command, "idle") == 0)
		return run_source(&o);
	if (strcmp(o.command, "send") == 0)
		return run_send(&o);
	return usage();
}
