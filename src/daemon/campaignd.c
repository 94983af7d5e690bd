/* campaignd: the daemon. Reads order mail, answers it, sends the outbox.
 * Runs in the foreground (systemd style) until SIGTERM or SIGINT; --once
 * processes what is waiting and exits (cron, tests). */
#include "config.h"

#include "daemon/conf.h"
#include "engine/engine.h"
#include "base/log.h"
#include "base/secret_command.h"
#include "store/store.h"
#include "text/templates.h"
#include "mail/transport.h"
#include "base/util.h"
#include "base/wake.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;
/* --now: act as if the time were this (tests and replays); -1: the clock */
static int64_t fixed_now = -1;
/* --max-gap: a longer silence between two runs is our own downtime */
static int64_t max_gap = -1;

static int64_t clock_now(void)
{
	return fixed_now >= 0 ? fixed_now : (int64_t)time(NULL);
}
static volatile sig_atomic_t reload_requested;
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	if (sig == SIGHUP)
		reload_requested = 1;
	else if (sig != SIGUSR1) /* SIGUSR1: campaignctl queued mail (base/wake.h) */
		stop_requested = 1;
	if (wake_pipe[1] >= 0) {
		ssize_t ignored = write(wake_pipe[1], "x", 1);
		(void)ignored;
	}
	errno = saved;
}

static void drain_wake_pipe(void)
{
	char buf[64];
	while (read(wake_pipe[0], buf, sizeof buf) > 0)
		;
}

static void setup_signals(void)
{
	if (pipe(wake_pipe) == 0) {
		for (int i = 0; i < 2; i++) {
			fcntl(wake_pipe[i], F_SETFL, fcntl(wake_pipe[i], F_GETFL) | O_NONBLOCK);
			fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
		}
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void transport_log_fn(void *ctx, enum transport_log_level level, const char *message)
{
	(void)ctx;
	switch (level) {
	case TRANSPORT_LOG_ERROR: log_error("%s", message); break;
	case TRANSPORT_LOG_WARNING: log_warn("%s", message); break;
	case TRANSPORT_LOG_INFO: log_info("%s", message); break;
	case TRANSPORT_LOG_DEBUG: log_debug("%s", message); break;
	}
}

static void template_warning(void *ctx, const char *msg)
{
	(void)ctx;
	log_warn("%s", msg);
}

static enum transport_tls tls_of(enum conf_tls t)
{
	switch (t) {
	case TLS_IMPLICIT: return TRANSPORT_TLS_IMPLICIT;
	case TLS_STARTTLS: return TRANSPORT_TLS_STARTTLS;
	case TLS_NONE: return TRANSPORT_TLS_NONE;
	}
	return TRANSPORT_TLS_IMPLICIT;
}

struct daemon {
	struct conf *cfg;
	struct store *store;
	struct templates *templates;
	struct engine *engine;
	struct mail_source *source;
	struct mail_sink *sink;
	/* sink = smtp: the outbox sent through smtp-connections sessions */
	struct engine_sender *sender;
	char *campaign_name;
	int64_t last_prune;
	int64_t blocked_logged_try; /* the blocked sink's try last logged */
	bool sink_blocked;          /* after the last flush */
};

/* OAuth2 tokens from the configured commands; ctx is the configuration,
 * which lives as long as the transports. The output is never logged. */
static char *token_from(const char *key, const char *command, int line, const char *file,
			char **errstr)
{
	char *err = NULL;
	char *token = secret_command_run(command, 0, &err);
	if (!token)
		*errstr = xasprintf("%s:%d: %s: the command %s", file, line, key, err);
	free(err);
	return token;
}

static char *imap_token(void *ctx, char **errstr)
{
	const struct conf *cfg = ctx;
	return token_from("imap-token-command", cfg->imap_token_command,
			  cfg->imap_token_command_line, cfg->path, errstr);
}

static char *smtp_token(void *ctx, char **errstr)
{
	const struct conf *cfg = ctx;
	return token_from("smtp-token-command", cfg->smtp_token_command,
			  cfg->smtp_token_command_line, cfg->path, errstr);
}

static enum transport_auth auth_of(enum conf_auth a)
{
	switch (a) {
	case AUTH_PASSWORD: return TRANSPORT_AUTH_PASSWORD;
	case AUTH_XOAUTH2: return TRANSPORT_AUTH_XOAUTH2;
	case AUTH_OAUTHBEARER: return TRANSPORT_AUTH_OAUTHBEARER;
	}
	return TRANSPORT_AUTH_PASSWORD;
}

static struct mail_source *make_source(struct conf *cfg)
{
	struct transport_log tlog = {transport_log_fn, NULL};
	if (cfg->source == SOURCE_MAILDIR) {
		struct maildir_source_config m = {
			.path = cfg->maildir,
			.processed_folder = cfg->processed_folder,
			.quarantine_folder = cfg->quarantine_folder,
			.create = true,
			.log = tlog,
		};
		return transport_maildir_source_new(&m);
	}
	struct imap_source_config i = {
		.host = cfg->imap_host,
		.port = (uint16_t)cfg->imap_port,
		.tls = tls_of(cfg->imap_tls),
		.ca_file = cfg->imap_ca_file,
		.insecure = cfg->imap_insecure,
		.user = cfg->imap_user,
		.password = cfg->imap_password,
		.auth = auth_of(cfg->imap_auth),
		.token = {imap_token, cfg, (unsigned)cfg->token_lifetime},
		.mailbox = cfg->imap_folder,
		.processed_folder = cfg->processed_folder,
		.quarantine_folder = cfg->quarantine_folder,
		.log = tlog,
	};
	return transport_imap_source_new(&i);
}

static struct mail_sink *make_sink(struct conf *cfg)
{
	struct transport_log tlog = {transport_log_fn, NULL};
	switch (cfg->sink) {
	case SINK_DIRECTORY:
		return transport_dir_sink_new(cfg->outbox_dir, tlog);
	case SINK_MAILDIR:
		return transport_maildir_sink_new(cfg->outbox_dir, tlog);
	case SINK_SMTP: {
		struct smtp_sink_config s = {
			.host = cfg->smtp_host,
			.port = (uint16_t)cfg->smtp_port,
			.tls = tls_of(cfg->smtp_tls),
			.ca_file = cfg->smtp_ca_file,
			.insecure = cfg->smtp_insecure,
			.user = cfg->smtp_user,
			.password = cfg->smtp_password,
			.auth = auth_of(cfg->smtp_auth),
			.token = {smtp_token, cfg, (unsigned)cfg->token_lifetime},
			.log = tlog,
		};
		return transport_smtp_sink_new(&s);
	}
	}
	return NULL;
}

static void daemon_close(struct daemon *d)
{
	engine_sender_free(d->sender, clock_now());
	engine_free(d->engine);
	mail_source_free(d->source);
	mail_sink_free(d->sink);
	templates_free(d->templates);
	store_close(d->store);
	conf_free(d->cfg);
	free(d->campaign_name);
	memset(d, 0, sizeof *d);
}

static bool apply_logging(const struct conf *cfg)
{
	enum log_level level = LOG_LEVEL_INFO;
	if (!log_level_parse(cfg->log_level, &level))
		return false;
	log_init("campaignd", level, strcmp(cfg->log_target, "syslog") == 0);
	return true;
}

/* Seconds between two tries to open a busy or full database at startup, and
 * between two log lines saying we still wait. */
#define STARTUP_RETRY_SECONDS 2
#define STARTUP_LOG_SECONDS 60

/* Sleeps up to `seconds`; false if a stop was asked for meanwhile. */
static bool sleep_unless_stopped(unsigned seconds)
{
	struct timespec ts = {(time_t)seconds, 0};
	while (!stop_requested && nanosleep(&ts, &ts) != 0)
		;
	return !stop_requested;
}

/* The startup steps that need the database: open (and upgrade) it, check it
 * holds a campaign, record our address. Another campaignctl holding the
 * write lock, or a full disk, is waited out (logged) instead of exiting:
 * a daemon that exits here would leave the mail unanswered until someone
 * restarts it. Returns a sysexits code. */
static int open_database(struct daemon *d)
{
	int64_t started = time(NULL), waiting_since = -1, last_log = 0;
	for (;;) {
		char *err = NULL;
		int rc = STORE_OK;
		bool exists = false;
		if (!d->store)
			rc = store_open(d->cfg->database, 0, &d->store, &err);
		if (rc == STORE_OK) {
			/* a short wait per try, so the log says at once why we wait */
			store_set_busy_timeout(d->store, STARTUP_RETRY_SECONDS * 1000);
			free(d->campaign_name);
			d->campaign_name = NULL;
			rc = store_has_campaign(d->store, &exists, &d->campaign_name, &err);
		}
		if (rc == STORE_OK && !exists) {
			log_error("%s: holds no campaign (create it with campaignctl init)",
				  d->cfg->database);
			return EX_DATAERR;
		}
		/* campaignctl check-mail answers as the daemon would: it needs our address */
		if (rc == STORE_OK)
			rc = store_kv_set(d->store, "campaign-address", d->cfg->campaign_address, &err);
		if (rc == STORE_OK) {
			store_set_busy_timeout(d->store, 10000);
			if (waiting_since >= 0)
				log_info("%s: available again after %lld s; going on", d->cfg->database,
					 (long long)(time(NULL) - started));
			return EX_OK;
		}
		if (rc != STORE_BUSY && rc != STORE_FULL) {
			log_error("%s%s", err ? err : d->cfg->database,
				  rc == STORE_NOTFOUND ? " (create it with campaignctl init)" : "");
			free(err);
			return store_status_exit_code(rc);
		}
		int64_t now = time(NULL);
		if (waiting_since < 0) {
			waiting_since = last_log = now;
			log_warn("%s; waiting for the database (%s) before starting", err,
				 rc == STORE_FULL ? "the disk is full: free some space"
						  : "another program holds its write lock");
		} else if (now - last_log >= STARTUP_LOG_SECONDS) {
			last_log = now;
			log_warn("%s; still waiting (for %lld s)", err,
				 (long long)(now - waiting_since));
		}
		free(err);
		if (!sleep_unless_stopped(STARTUP_RETRY_SECONDS))
			return EX_TEMPFAIL;
	}
}

/* Loads the configuration and opens everything. Returns a sysexits code. */
static int daemon_open(struct daemon *d, const char *config_path)
{
	struct diag_list diags = {0};
	memset(d, 0, sizeof *d);
	d->cfg = conf_load(config_path, &diags);
	if (!d->cfg) {
		diag_print(&diags, stderr);
		diag_free(&diags);
		return EX_CONFIG;
	}
	diag_print(&diags, stderr); /* warnings */
	diag_free(&diags);
	apply_logging(d->cfg);

	int rc = open_database(d);
	if (rc != EX_OK)
		return rc;
	d->templates = templates_new(d->cfg->templates_dir);
	templates_set_warning(d->templates, template_warning, NULL);
	struct engine_config ec = {
		.campaign_address = d->cfg->campaign_address,
		.from_name = d->cfg->campaign_from_name,
		.mailbox = d->cfg->source == SOURCE_IMAP ? d->cfg->imap_folder : "maildir",
		.limits = {.max_bytes = d->cfg->max_message_bytes, .max_depth = 20,
			   .max_nesting = d->cfg->max_mime_depth,
			   .max_parts = d->cfg->max_mime_parts},
		.rate_limit_per_hour = d->cfg->rate_limit_per_hour,
		.quarantine_after = d->cfg->quarantine_after,
		.keep_mail_days = d->cfg->keep_mail_days,
		.publish_dir = d->cfg->publish_dir,
	};
	d->engine = engine_new(d->store, d->templates, &ec);
	d->source = make_source(d->cfg);
	d->sink = make_sink(d->cfg);
	if (d->cfg->sink == SINK_SMTP) {
		size_t n = (size_t)d->cfg->smtp_connections;
		struct mail_sink **sinks = xcalloc(n, sizeof *sinks);
		for (size_t i = 0; i < n; i++)
			sinks[i] = make_sink(d->cfg);
		char *err = NULL;
		d->sender = engine_sender_new(d->engine, sinks, n, &err);
		free(sinks);
		if (!d->sender) {
			log_error("%s", err ? err : "cannot start sending");
			free(err);
			return EX_OSERR;
		}
	}
	return EX_OK;
}

struct fetch_ctx {
	struct daemon *d;
	size_t processed;
	size_t in_batch;     /* mails in the open group transaction */
	int64_t batch_start; /* monotonic ms when the group was opened */
	int64_t last_flush;
};

/* Mails are applied in groups, one transaction each (a savepoint per
 * mail): at most this many, and a group is closed after this long so that
 * the first players of a backlog are answered at once. */
#define GROUP_MAILS 100
#define GROUP_MS 250

/* Seconds between outbox flushes while a long backlog is being read: the
 * first players get their answers before the last mail is read. */
#define BACKLOG_FLUSH_SECONDS 5

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Delivers what is due; -1 on a database error (logged). With SMTP the
 * sessions send in the background: this records what they did and hands
 * them what is due, and waits for them only with drain. */
static int flush_outbox(struct daemon *d, int64_t now, bool drain)
{
	size_t sent = 0, failed = 0;
	char *err = NULL;
	int rc = d->sender ? engine_sender_pump(d->sender, now, drain, &sent, &failed, &err)
			   : engine_flush_outbox(d->engine, d->sink, now, &sent, &failed, &err);
	if (rc != 0)
		log_error("outbox: %s", err ? err : "failed");
	free(err);
	if (sent || failed)
		log_info("outbox: %zu sent, %zu not sent", sent, failed);
	/* The organiser's mail about it waits behind the trouble: the log, at
	 * error level, is the channel that works now. */
	struct engine_sink_state st;
	if (engine_sink_state(d->engine, &st, NULL) == 0) {
		char when[32];
		if (st.blocked && st.tries != d->blocked_logged_try) {
			time_t t = (time_t)st.retry_at;
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
			log_error("outgoing mail is blocked since %lld s (%d tr%s): %s; nothing is "
				  "sent in clear, the mail stays queued; next try %s",
				  (long long)(now - st.since), st.tries, st.tries == 1 ? "y" : "ies",
				  st.error, when);
			d->blocked_logged_try = st.tries;
		} else if (!st.blocked && d->sink_blocked) {
			log_info("outgoing mail goes out again");
			d->blocked_logged_try = 0;
		}
		d->sink_blocked = st.blocked;
		engine_sink_state_free(&st);
	}
	return rc;
}

/* Moves the mail set aside but not yet moved to the quarantine folder (rare:
 * one command each). */
static enum transport_status do_quarantine_moves(struct daemon *d, uint32_t uidvalidity)
{
	uint32_t *uids = NULL;
	size_t n = 0;
	char *err = NULL;
	if (engine_pending_quarantine(d->engine, &uids, &n, &err) != 0) {
		log_error("%s", err);
		free(err);
		return TRANSPORT_TEMPFAIL;
	}
	enum transport_status st = TRANSPORT_OK;
	for (size_t i = 0; i < n && st == TRANSPORT_OK; i++) {
		st = mail_source_quarantine(d->source, uidvalidity, uids[i], &err);
		if (st == TRANSPORT_OK || st == TRANSPORT_UIDVALIDITY_CHANGED) {
			if (engine_quarantine_done(d->engine, uids[i], &err) != 0) {
				log_error("%s", err);
				st = TRANSPORT_TEMPFAIL;
			} else {
				st = TRANSPORT_OK;
			}
		} else {
			log_warn("moving message uid %u: %s", uids[i], err ? err : "failed");
		}
		free(err);
		err = NULL;
	}
	free(uids);
	return st;
}

/* Moves the mail that was committed (or set aside) but not yet moved: the
 * processed mail with one command per batch of UIDs, then one transaction
 * that forgets them. */
static enum transport_status do_moves(struct daemon *d)
{
	uint32_t *uids = NULL, uidvalidity = 0, last = 0;
	size_t n = 0;
	char *err = NULL;
	if (engine_mailbox_position(d->engine, &uidvalidity, &last, &err) != 0) {
		log_error("%s", err);
		free(err);
		return TRANSPORT_TEMPFAIL;
	}
	enum transport_status qst = do_quarantine_moves(d, uidvalidity);
	if (engine_pending_moves(d->engine, uidvalidity, &uids, &n, &err) != 0) {
		log_error("%s", err);
		free(err);
		return TRANSPORT_TEMPFAIL;
	}
	enum transport_status st = mail_source_mark_processed_set(d->source, uidvalidity, uids, n,
								  &err);
	if (st == TRANSPORT_OK || st == TRANSPORT_UIDVALIDITY_CHANGED) {
		if (n && engine_move_done(d->engine, uidvalidity, uids, n, &err) != 0) {
			log_error("%s", err);
			st = TRANSPORT_TEMPFAIL;
		} else {
			st = TRANSPORT_OK;
		}
	} else {
		log_warn("moving %zu message%s (uid %u..%u): %s", n, n == 1 ? "" : "s", uids[0],
			 uids[n - 1], err ? err : "failed");
	}
	free(err);
	free(uids);
	return qst != TRANSPORT_OK ? qst : st;
}

/* Commits the open group of mails; then, and only then, their replies are
 * sent (and, once the fetch is over, their mail moved: moving from inside
 * the fetch would disturb a Maildir's listing). */
static int close_group(struct fetch_ctx *fc)
{
	if (!engine_batch_open(fc->d->engine)) {
		fc->in_batch = 0;
		return 0;
	}
	char *err = NULL;
	size_t n = fc->in_batch;
	fc->in_batch = 0;
	if (engine_batch_commit(fc->d->engine, &err) != 0) {
		log_error("%zu message%s not recorded (%s); will retry", n, n == 1 ? "" : "s",
			  err ? err : "commit failed");
		free(err);
		fc->processed -= n < fc->processed ? n : fc->processed;
		return -1;
	}
	/* For the crash test: die between the commit and the move. */
	if (n && getenv("CAMPAIGND_TEST_CRASH_AFTER_COMMIT"))
		_exit(70);
	int64_t now = clock_now();
	if (n) {
		flush_outbox(fc->d, now, false);
		fc->last_flush = now;
	}
	return 0;
}

static enum transport_status on_message(void *ctx, const struct transport_message *msg,
					char **errstr)
{
	struct fetch_ctx *fc = ctx;
	struct engine_outcome out;
	char *err = NULL;
	int64_t now = clock_now();
	if (!engine_batch_open(fc->d->engine)) {
		if (engine_batch_begin(fc->d->engine, &err) != 0) {
			log_error("message uid %u: %s; will retry", msg->uid, err ? err : "failed");
			if (errstr)
				*errstr = err;
			else
				free(err);
			return TRANSPORT_TEMPFAIL;
		}
		fc->in_batch = 0;
		fc->batch_start = mono_ms();
	}
	if (engine_process_mail(fc->d->engine, msg->uidvalidity, msg->uid, msg->data, msg->len, now,
				false, &out, &err) != 0) {
		/* Nothing was recorded: the mail stays and is fetched again,
		 * unless it failed this way too often: then it is set aside
		 * and the mails behind it go on. The mails before it in its
		 * group are kept: committed first, so that its failure is
		 * counted in a transaction of its own. */
		if (!engine_batch_open(fc->d->engine) && fc->in_batch) {
			/* the database rolled the whole group back */
			log_error("%zu earlier message%s of its group not recorded; will retry",
				  fc->in_batch, fc->in_batch == 1 ? "" : "s");
			fc->processed -= fc->in_batch < fc->processed ? fc->in_batch : fc->processed;
			fc->in_batch = 0;
		}
		if (close_group(fc) != 0) {
			log_error("message uid %u: %s; will retry", msg->uid, err ? err : "failed");
			if (errstr)
				*errstr = err;
			else
				free(err);
			return TRANSPORT_TEMPFAIL;
		}
		char *qerr = NULL;
		int q = engine_mail_failed(fc->d->engine, msg->uidvalidity, msg->uid, msg->data,
					   msg->len, err ? err : "failed", now, &qerr);
		if (q == 1) {
			log_error("message uid %u: %s; failed %d times: set aside in the quarantine "
				  "folder, the organiser is told", msg->uid, err ? err : "failed",
				  fc->d->cfg->quarantine_after);
			free(err);
			fc->processed++;
			return stop_requested ? TRANSPORT_TEMPFAIL : TRANSPORT_OK;
		}
		if (q < 0)
			log_error("message uid %u: counting its failure: %s", msg->uid,
				  qerr ? qerr : "failed");
		free(qerr);
		log_error("message uid %u: %s; will retry", msg->uid, err ? err : "failed");
		if (errstr)
			*errstr = err;
		else
			free(err);
		return TRANSPORT_TEMPFAIL;
	}
	log_info("message uid %u <%s> from %s: %s (%s)%s%s", msg->uid,
		 out.message_id ? out.message_id : "no Message-ID", out.sender ? out.sender : "?",
		 engine_verdict_name(out.verdict), out.summary ? out.summary : "",
		 out.reply_to ? ", reply to " : "", out.reply_to ? out.reply_to : "");
	engine_outcome_free(&out);
	fc->processed++;
	fc->in_batch++;
	if (fc->in_batch >= GROUP_MAILS || mono_ms() - fc->batch_start >= GROUP_MS ||
	    stop_requested) {
		if (close_group(fc) != 0)
			return TRANSPORT_TEMPFAIL;
	}
	if (now - fc->last_flush >= BACKLOG_FLUSH_SECONDS && !engine_batch_open(fc->d->engine)) {
		flush_outbox(fc->d, now, false);
		fc->last_flush = now;
	}
	return stop_requested ? TRANSPORT_TEMPFAIL : TRANSPORT_OK;
}

/* One round: pending moves, new mail, moves, outbox. Returns the worst
 * transport status met, for backoff. */
static enum transport_status daemon_cycle(struct daemon *d, size_t *processed)
{
	char *err = NULL;
	enum transport_status worst = do_moves(d);
	uint32_t uidvalidity = 0, last = 0;
	struct fetch_ctx fc = {.d = d, .last_flush = clock_now()};
	if (engine_mailbox_position(d->engine, &uidvalidity, &last, &err) != 0) {
		log_error("%s", err);
		free(err);
		return TRANSPORT_TEMPFAIL;
	}
	uint32_t current = 0;
	enum transport_status st = mail_source_fetch_new(d->source, uidvalidity, last, on_message,
							 &fc, &current, &err);
	if (close_group(&fc) != 0 && st == TRANSPORT_OK)
		st = TRANSPORT_TEMPFAIL;
	if (st == TRANSPORT_UIDVALIDITY_CHANGED) {
		log_warn("the mailbox was recreated (UIDVALIDITY %u -> %u): matching mail by "
			 "Message-ID from now on", uidvalidity, current);
		free(err);
		err = NULL;
		if (engine_mailbox_reset(d->engine, current, &err) == 0) {
			st = mail_source_fetch_new(d->source, current, 0, on_message, &fc, &current,
						   &err);
			if (close_group(&fc) != 0 && st == TRANSPORT_OK)
				st = TRANSPORT_TEMPFAIL;
		} else {
			st = TRANSPORT_TEMPFAIL;
		}
	}
	if (st != TRANSPORT_OK) {
		log_warn("fetching mail: %s", err ? err : transport_status_name(st));
		worst = st;
	}
	free(err);
	err = NULL;
	if (fc.processed)
		do_moves(d);
	*processed = fc.processed;

	/* deadlines, reminders and the steps they release */
	struct engine_tick_info tick;
	int64_t gap_allowed = max_gap >= 0 ? max_gap : (int64_t)d->cfg->poll_seconds * 3 + 60;
	if (engine_tick(d->engine, clock_now(), gap_allowed, &tick, &err) != 0) {
		log_error("campaign year: %s", err ? err : "failed");
		worst = TRANSPORT_TEMPFAIL;
	} else if (tick.clock_backwards) {
		log_warn("the clock went back %lld s since the last run: no deadline fired",
			 (long long)-tick.gap);
	} else if (tick.downtime) {
		log_warn("%lld s since the last run (more than %lld s)%s", (long long)tick.gap,
			 (long long)gap_allowed,
			 tick.grace_granted ? ": a deadline passed meanwhile; the grace period"
					      " applies and the players are told" : "");
	}
	free(err);
	err = NULL;

	if (flush_outbox(d, clock_now(), true) != 0)
		worst = TRANSPORT_TEMPFAIL;

	/* bounded growth: old sent mail and rate counters, once an hour */
	if (clock_now() - d->last_prune >= 3600) {
		size_t deleted = 0;
		if (engine_prune(d->engine, clock_now(), &deleted, &err) != 0) {
			log_warn("pruning old mail: %s", err ? err : "failed");
		} else {
			d->last_prune = clock_now();
			if (deleted)
				log_info("pruned %zu old rows (sent mail, rate counters)", deleted);
		}
		free(err);
		err = NULL;
	}
	return worst;
}

static int run_once(struct daemon *d)
{
	size_t processed;
	enum transport_status st = daemon_cycle(d, &processed);
	if (st == TRANSPORT_OK && d->sink_blocked)
		st = TRANSPORT_TEMPFAIL; /* a cron job should see it */
	return st == TRANSPORT_OK ? EX_OK : st == TRANSPORT_PERMFAIL ? EX_CONFIG : EX_TEMPFAIL;
}

/* The lock that lets campaignctl wake us when it queued mail (base/wake.h);
 * without it (a read-only folder, a second daemon) mail waits for the poll. */
static int hold_wake_file(const struct daemon *d, int held)
{
	if (held >= 0)
		close(held);
	char *err = NULL;
	int fd = wake_hold(d->cfg->database, &err);
	if (fd < 0)
		log_warn("campaignctl cannot wake this daemon (%s): the mail it queues leaves at "
			 "the next poll",
			 err);
	free(err);
	return fd;
}

static int run_forever(struct daemon *d, const char *config_path)
{
	unsigned backoff = 0;
	log_info("started (%s in, %s out)", mail_source_name(d->source), mail_sink_name(d->sink));
	int wake_fd = hold_wake_file(d, -1);
	int64_t last_mail_ms = -1; /* monotonic: when a round last processed mail */
	bool looking = false;      /* in the quick look after a mail */
	while (!stop_requested) {
		if (reload_requested) {
			reload_requested = 0;
			struct daemon fresh;
			int rc = daemon_open(&fresh, config_path);
			if (rc == EX_OK) {
				daemon_close(d);
				*d = fresh;
				wake_fd = hold_wake_file(d, wake_fd);
				log_info("configuration and templates reloaded");
			} else {
				daemon_close(&fresh);
				apply_logging(d->cfg);
				log_error("reload failed; keeping the running configuration");
			}
		}
		size_t processed = 0;
		enum transport_status st = daemon_cycle(d, &processed);
		if (stop_requested)
			break;
		/* Mail came in while this round worked through the last: look
		 * again at once, not after the next IDLE. */
		if (st == TRANSPORT_OK && processed > 0) {
			last_mail_ms = mono_ms();
			continue;
		}
		unsigned timeout_ms;
		if (st == TRANSPORT_OK) {
			backoff = 0;
			timeout_ms = (unsigned)d->cfg->poll_seconds * 1000;
			int64_t due = engine_outbox_next_due(d->engine, clock_now());
			if (due >= 0 && (uint64_t)due * 1000 < timeout_ms)
				timeout_ms = (unsigned)due * 1000 + 100;
		} else {
			backoff = backoff ? (backoff < 300 ? backoff * 2 : 300) : 2;
			timeout_ms = backoff * 1000;
			log_info("retrying in %u s", backoff);
		}
		bool changed = false;
		char *err = NULL;
		if (st == TRANSPORT_OK) {
			/* While mail flows, ask every interval rather than wait
			 * for the server's news (campaignd.conf(5)). */
			unsigned interval_ms = 0;
			int64_t left = last_mail_ms < 0 ? 0
					: last_mail_ms + d->cfg->quick_look_seconds * 1000LL - mono_ms();
			if (left > 0) {
				interval_ms = (unsigned)d->cfg->quick_look_interval_ms;
				if ((uint64_t)left < timeout_ms)
					timeout_ms = (unsigned)left;
			}
			if (interval_ms && !looking)
				log_debug("quick look: mail came; asking every %u ms until %d s pass "
					  "without mail", interval_ms, d->cfg->quick_look_seconds);
			else if (!interval_ms && looking)
				log_debug("quick look over: %d s without mail; waiting for the "
					  "server's news again", d->cfg->quick_look_seconds);
			looking = interval_ms != 0;
			enum transport_status ws = mail_source_look(d->source, timeout_ms, interval_ms,
								    wake_pipe[0], &changed, &err);
			if (ws != TRANSPORT_OK) {
				log_warn("waiting for mail: %s", err ? err : transport_status_name(ws));
				struct timespec ts = {1, 0};
				nanosleep(&ts, NULL);
			}
			free(err);
		} else {
			struct timespec ts = {timeout_ms / 1000, 0};
			while (!stop_requested && !reload_requested && nanosleep(&ts, &ts) != 0)
				;
		}
		drain_wake_pipe();
	}
	if (wake_fd >= 0)
		close(wake_fd);
	log_info("stopping");
	return EX_OK;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: campaignd -c CONFIG [--once | --check-config] [--now SECONDS]\n\n"
		"The campaignd daemon: reads order mail, answers it, runs the campaign.\n\n"
		"  -c, --config CONFIG the configuration file (campaignd.conf(5)), or the\n"
		"                      name of one: club means " CONFDIR "/club.conf\n"
		"      --once          process the waiting mail and the outbox, then exit\n"
		"      --check-config  check the configuration and the database, then exit\n"
		"      --now SECONDS   act as if the time were SECONDS since the epoch\n"
		"                      (for tests and replays)\n"
		"      --max-gap SECONDS  a longer time since the last run counts as our own\n"
		"                      downtime (default: 3 poll intervals + 60 s; --once: 3600)\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n\n"
		"See campaignd(8).\n");
}

int main(int argc, char **argv)
{
	const char *config_arg = NULL;
	bool once = false, check_only = false;
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"once", no_argument, NULL, 'o'},
		{"check-config", no_argument, NULL, 'k'},
		{"now", required_argument, NULL, 'n'},
		{"max-gap", required_argument, NULL, 'g'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "c:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': config_arg = optarg; break;
		case 'o': once = true; break;
		case 'k': check_only = true; break;
		case 'n':
		case 'g': {
			char *end = NULL;
			long long v = strtoll(optarg, &end, 10);
			if (!*optarg || *end || v < 0) {
				fprintf(stderr, "campaignd: --%s wants a number of seconds, not \"%s\"\n",
					ch == 'n' ? "now" : "max-gap", optarg);
				return EX_USAGE;
			}
			if (ch == 'n')
				fixed_now = v;
			else
				max_gap = v;
			break;
		}
		case 'h': usage(stdout); return EX_OK;
		case 'V': printf("campaignd (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return EX_OK;
		default: usage(stderr); return EX_USAGE;
		}
	}
	if (!config_arg || optind != argc) {
		usage(stderr);
		return EX_USAGE;
	}
	char *err_name = NULL;
	char *config_path = conf_path_for(config_arg, &err_name);
	if (!config_path) {
		fprintf(stderr, "campaignd: -c %s\n", err_name);
		free(err_name);
		return EX_USAGE;
	}
	if (once && max_gap < 0)
		max_gap = 3600;
	setup_signals();
	struct daemon d;
	int rc = daemon_open(&d, config_path);
	if (rc == EX_OK && check_only) {
		char *year = NULL, *err = NULL;
		printf("%s: configuration OK; database %s holds \"%s\"\n", config_path,
		       d.cfg->database, d.campaign_name ? d.campaign_name : "");
		if (engine_year_status(d.engine, clock_now(), &year, &err) == 0)
			fputs(year, stdout);
		free(year);
		free(err);
	}
	else if (rc == EX_OK)
		rc = once ? run_once(&d) : run_forever(&d, config_path);
	daemon_close(&d);
	free(config_path);
	return rc;
}
