/* Where mail comes from (a source) and where it goes (a sink).
 *
 * Each transport hides behind a small table of function pointers, so the
 * engine, campaignd --once and the tests can swap one for another (a test
 * can write its own ops table as a fake). The handles are opaque.
 *
 * Exactly-once is the caller's job, helped by this contract:
 *   1. mail_source_fetch_new(src, known_uidvalidity, last_uid, ...) calls back
 *      for each message whose UID is above last_uid, in increasing UID order.
 *      The source never decides by itself what was processed (no \Seen, no
 *      local "done" list): last_uid comes from the caller's own store.
 *   2. In the callback the engine records the message and its effects,
 *      with (uidvalidity, uid) as the new last UID, in a transaction (or a
 *      savepoint of a transaction shared by a group of messages).
 *   3. Only after that commit does it call mail_source_mark_processed(uid)
 *      (or _set for many), which moves the message to the "processed"
 *      folder. A crash before the commit leaves nothing recorded: the
 *      message is fetched again. A crash between 2 and 3 leaves the message
 *      in the inbox with a UID at or below the stored last UID: it is not
 *      fetched again, and the move can be redone.
 * IMAP fetches new mail in batches: one UID FETCH of (UID RFC822.SIZE) lists
 * it, then one UID FETCH per batch of at most 100 messages and 8 MiB. Any
 * EXISTS or RECENT the server reports from the listing on makes the next
 * wait return at once (changed), so mail that came meanwhile is not left
 * waiting for an IDLE in which the server would not report it again.
 *
 * Failure classes (enum transport_status):
 *   TRANSPORT_TEMPFAIL  the network, the server or the disk had a problem that
 *                       may go away: retry later with backoff.
 *   TRANSPORT_PERMFAIL  retrying will not help until someone changes
 *                       something (bad password, untrusted certificate,
 *                       recipient refused with 5xx, missing directory).
 *   TRANSPORT_BLOCKED   sinks only: the server cannot be used safely for
 *                       any message (its certificate is not trusted or has
 *                       expired, STARTTLS is not offered, our login is
 *                       refused). Nothing was sent, and nothing is wrong
 *                       with the message: keep it queued and retry for a
 *                       long time, telling someone; a renewed certificate
 *                       or a fixed setting lets everything go.
 * Every function that returns a status other than TRANSPORT_OK and takes a
 * `char **errstr` sets *errstr to an allocated one-line message (the caller
 * frees it); on TRANSPORT_OK *errstr is left untouched. errstr may be NULL.
 *
 * The daemon's loop, in outline:
 *     src = transport_imap_source_new(&cfg);     (or transport_maildir_...)
 *     for (;;) {
 *         st = mail_source_fetch_new(src, stored_uidvalidity, stored_last_uid,
 *                                    engine_take_message, engine, &uv, &err);
 *         (engine_take_message commits each message with its UID; then the
 *          loop calls mail_source_mark_processed(src, uv, uid, &err) for the
 *          committed UIDs)
 *         if (st == TRANSPORT_UIDVALIDITY_CHANGED) match by Message-ID ...
 *         mail_source_wait(src, ms_until_next_deadline, self_pipe, &changed, &err);
 *     }
 * Nothing here installs signal handlers or changes SIGPIPE's disposition.
 */
#ifndef CAMPAIGN_TRANSPORT_H
#define CAMPAIGN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum transport_status {
	TRANSPORT_OK = 0,
	TRANSPORT_TEMPFAIL,
	TRANSPORT_PERMFAIL,
	/* Only from fetch_new: the mailbox was recreated, so UIDs stored
	 * against the old UIDVALIDITY mean nothing now. Nothing was fetched.
	 * The engine should match the mailbox's messages by Message-ID
	 * instead: call fetch_new again with the new UIDVALIDITY and
	 * last_uid = 0, and skip messages whose Message-ID it already has. */
	TRANSPORT_UIDVALIDITY_CHANGED,
	TRANSPORT_BLOCKED,
};

/* "ok", "temporary failure", ... (static string). */
const char *transport_status_name(enum transport_status status);

/* Log hook for messages the transports produce on their own (reconnects,
 * the loud warning for an insecure TLS setting). With fn NULL, errors and
 * warnings go to stderr prefixed with "campaignd: " and the rest is dropped. */
enum transport_log_level {
	TRANSPORT_LOG_ERROR,
	TRANSPORT_LOG_WARNING,
	TRANSPORT_LOG_INFO,
	TRANSPORT_LOG_DEBUG,
};
struct transport_log {
	void (*fn)(void *ctx, enum transport_log_level level, const char *message);
	void *ctx;
};

/* ---------------------------------------------------------------- source */

/* One fetched message. The bytes belong to the source and are valid only
 * during the callback: copy what you keep. */
struct transport_message {
	uint32_t uidvalidity;
	uint32_t uid;           /* > the last_uid passed to fetch_new */
	const char *data;       /* raw RFC 5322 message, not NUL-terminated */
	size_t len;
	int64_t internal_date;  /* arrival time, seconds since the epoch; 0 if unknown */
};

/* Called once per new message. Return TRANSPORT_OK to go on; any other
 * status stops the fetch, and fetch_new returns that status (with the
 * callback's *errstr passed through). */
typedef enum transport_status transport_message_fn(void *ctx,
						   const struct transport_message *msg,
						   char **errstr);

/* The table a source implements. `state` is the pointer given to
 * mail_source_new. The semantics are those of the mail_source_* wrappers
 * below. */
struct mail_source_ops {
	const char *name; /* "imap", "maildir", ... for messages */
	enum transport_status (*open)(void *state, char **errstr);
	enum transport_status (*fetch_new)(void *state, uint32_t known_uidvalidity,
					   uint32_t last_uid, transport_message_fn *fn,
					   void *ctx, uint32_t *uidvalidity, char **errstr);
	enum transport_status (*mark_processed)(void *state, uint32_t uidvalidity,
						uint32_t uid, char **errstr);
	/* may be NULL: then a quarantined message goes where processed ones go */
	enum transport_status (*quarantine)(void *state, uint32_t uidvalidity, uint32_t uid,
					    char **errstr);
	/* optional: several UIDs (sorted) at once; NULL: mark_processed each */
	enum transport_status (*mark_processed_set)(void *state, uint32_t uidvalidity,
						    const uint32_t *uids, size_t n,
						    char **errstr);
	/* one of wait and look; look is wait with a polling interval (0: none) */
	enum transport_status (*wait)(void *state, unsigned timeout_ms, int wake_fd,
				      bool *changed, char **errstr);
	enum transport_status (*look)(void *state, unsigned timeout_ms, unsigned interval_ms,
				      int wake_fd, bool *changed, char **errstr);
	void (*close)(void *state);
	void (*free)(void *state); /* frees state; close was already called */
};

struct mail_source;

/* Wraps an implementation; takes ownership of state (ops->free frees it). */
struct mail_source *mail_source_new(const struct mail_source_ops *ops, void *state);
const char *mail_source_name(const struct mail_source *src);

/* Connects (IMAP: TCP, TLS, certificate check, login, select, creating the
 * processed folder if missing) or checks the directories (Maildir). Calling
 * the other functions without open is allowed: they open on demand. */
enum transport_status mail_source_open(struct mail_source *src, char **errstr);

/* Calls fn for each message with a UID above last_uid, in increasing UID
 * order, and sets *uidvalidity (if not NULL) to the mailbox's UIDVALIDITY.
 * known_uidvalidity is the UIDVALIDITY stored with last_uid, or 0 when
 * nothing is stored yet (first run). If it is not 0 and differs from the
 * mailbox's, returns TRANSPORT_UIDVALIDITY_CHANGED without calling fn.
 * Messages are fetched without changing their flags (IMAP BODY.PEEK). */
enum transport_status mail_source_fetch_new(struct mail_source *src,
					    uint32_t known_uidvalidity, uint32_t last_uid,
					    transport_message_fn *fn, void *ctx,
					    uint32_t *uidvalidity, char **errstr);

/* Moves message uid out of the inbox into the processed folder (IMAP: UID
 * MOVE when the server offers MOVE, else UID COPY + \Deleted + UID EXPUNGE
 * of that one UID; Maildir: rename into the processed Maildir folder).
 * A uid that is no longer in the inbox is not an error (the move was done
 * before a crash). If uidvalidity is not the mailbox's, nothing is moved
 * and TRANSPORT_UIDVALIDITY_CHANGED is returned. */
enum transport_status mail_source_mark_processed(struct mail_source *src,
						 uint32_t uidvalidity, uint32_t uid,
						 char **errstr);
/* The same for several UIDs, sorted increasing: IMAP moves them with one
 * UID MOVE per thousand UIDs (a UID set such as 4:97,99), or UID COPY +
 * UID STORE + UID EXPUNGE of the set where MOVE is missing; Maildir renames
 * each. On an error some of them may have been moved: calling again with
 * all of them is safe. */
enum transport_status mail_source_mark_processed_set(struct mail_source *src,
						     uint32_t uidvalidity, const uint32_t *uids,
						     size_t n, char **errstr);

/* Like mail_source_mark_processed, but into the quarantine folder: for a
 * message the engine could not process and set aside (campaignd(8)). */
enum transport_status mail_source_quarantine(struct mail_source *src, uint32_t uidvalidity,
					     uint32_t uid, char **errstr);

/* Blocks until new mail may have arrived, at most timeout_ms, then returns
 * with *changed set: true means "call fetch_new now", false means the time
 * ran out, wake_fd became readable, or a signal interrupted the wait (check
 * your flags). wake_fd is a descriptor to watch as well (a self-pipe), or
 * -1. IMAP uses IDLE when offered (always left before returning, so the
 * session is ready for commands), at most idle_max_seconds per call; else
 * it sleeps and sends a NOOP. Maildir polls the directories' mtimes. If the
 * IMAP source is waiting out a reconnect backoff, wait just sleeps. The caller should call fetch_new after every wait anyway:
 * a short IDLE can miss nothing, but a server may push nothing either. */
enum transport_status mail_source_wait(struct mail_source *src, unsigned timeout_ms,
				       int wake_fd, bool *changed, char **errstr);

/* The quick look: like mail_source_wait, but the server is asked every
 * interval_ms instead of being waited on (IMAP: a NOOP every interval_ms,
 * no IDLE), until it reports news or timeout_ms ran out. For the seconds
 * after a mail, while more is likely: Dovecot sends the news of a new mail
 * to an IDLE client half a second late, a NOOP sees it at once. Sources
 * without it (Maildir) wait as mail_source_wait does. */
enum transport_status mail_source_look(struct mail_source *src, unsigned timeout_ms,
				       unsigned interval_ms, int wake_fd, bool *changed,
				       char **errstr);

/* Disconnects; the source may be opened again. */
void mail_source_close(struct mail_source *src);
/* Closes and frees. NULL is allowed. */
void mail_source_free(struct mail_source *src);

/* ------------------------------------------------------------------ sink */

struct mail_sink_ops {
	const char *name;
	enum transport_status (*send)(void *state, const char *envelope_from,
				      const char *const *recipients, size_t n_recipients,
				      const char *data, size_t len, char **errstr);
	void (*free)(void *state);
};

struct mail_sink;

struct mail_sink *mail_sink_new(const struct mail_sink_ops *ops, void *state);
const char *mail_sink_name(const struct mail_sink *sink);

/* Delivers one message (CRLF line ends, as mail_compose makes it) to all
 * recipients (bare addresses, no angle brackets), with envelope_from as the
 * envelope sender ("" for the null sender <>). All or nothing: if one
 * recipient is refused, nothing is sent. So send one message per recipient
 * when their outcomes must be independent. After a TEMPFAIL the message may
 * still have gone out (a timeout after the data was sent): resend it with
 * the same Message-ID so the receiver can recognise the duplicate. */
enum transport_status mail_sink_send(struct mail_sink *sink, const char *envelope_from,
				     const char *const *recipients, size_t n_recipients,
				     const char *data, size_t len, char **errstr);
void mail_sink_free(struct mail_sink *sink);

/* ----------------------------------------------- Maildir / directory (local) */

/* A local Maildir as the inbox: messages are the files in new/ and cur/.
 * UIDs are given in file name order (Maildir names start with the delivery
 * time) and kept in the file "campaignd-uidlist" in the Maildir, written
 * atomically, together with a UIDVALIDITY; a UID once given is never given
 * again. Deleting that file starts a new UIDVALIDITY. Processed mail is
 * renamed into the Maildir++ folder "<maildir>/.<processed_folder>/" (new/
 * or cur/ as it was), created on open; quarantined mail likewise into
 * "<maildir>/.<quarantine_folder>/". */
struct maildir_source_config {
	const char *path;             /* the Maildir (with new/ cur/ tmp/) */
	const char *processed_folder; /* NULL: "processed" */
	const char *quarantine_folder; /* NULL: "quarantine" */
	bool create;                  /* create the Maildir if it is missing */
	unsigned poll_interval_ms;    /* wait's polling period; 0: 500 */
	struct transport_log log;
};
/* Copies the configuration; no I/O yet. */
struct mail_source *transport_maildir_source_new(const struct maildir_source_config *cfg);

/* A directory of .eml files as the outbox of last resort (demo, tests).
 * Each message becomes "<date>-<id>.eml", written to a temporary name and
 * renamed, so a reader never sees half a file. <date> comes from the Date
 * header (UTC, YYYYMMDDTHHMMSSZ) and <id> from the Message-ID (characters
 * other than letters, digits, '.', '-', '_', '@' become '_'), so sending the
 * same message again replaces the file instead of adding one. The envelope
 * is recorded in two header lines put first: "X-Envelope-From: <from>" and
 * "X-Envelope-To: <rcpt>, <rcpt>". The directory is created if missing. */
struct mail_sink *transport_dir_sink_new(const char *directory, struct transport_log log);

/* Delivers into a Maildir's new/ (created if missing) the way an MDA does:
 * tmp/ then rename, with "Return-Path: <from>" and "Delivered-To: <rcpt>"
 * put first; one file per recipient. */
struct mail_sink *transport_maildir_sink_new(const char *maildir, struct transport_log log);

/* ------------------------------------------------------------------ IMAP */

enum transport_tls {
	TRANSPORT_TLS_IMPLICIT,          /* TLS from the first byte (IMAP 993, SMTP 465) */
	TRANSPORT_TLS_STARTTLS,          /* plaintext, then STARTTLS, which must work */
	TRANSPORT_TLS_STARTTLS_OPTIONAL, /* SMTP only: STARTTLS if offered */
	TRANSPORT_TLS_NONE,              /* plaintext: for loopback test servers only */
};

/* Parses "implicit"/"ssl"/"tls", "starttls", "starttls-optional", "none";
 * false on anything else. */
bool transport_tls_parse(const char *s, enum transport_tls *tls);

/* How a transport logs in. */
enum transport_auth {
	TRANSPORT_AUTH_PASSWORD,    /* IMAP LOGIN; SMTP AUTH PLAIN/LOGIN */
	TRANSPORT_AUTH_XOAUTH2,     /* an OAuth2 access token (Gmail, Microsoft 365) */
	TRANSPORT_AUTH_OAUTHBEARER, /* the same as RFC 7628 (SMTP only here) */
};

/* Where an OAuth2 access token comes from (a helper command, for the
 * daemon). get returns a fresh allocated token, or NULL with *errstr set.
 * A transport calls it when it has no token, when the one it holds is
 * older than max_age_seconds (0: 3000; tokens usually live an hour), and
 * once more when the server refuses a token, then retries the login with
 * the new one at once (a second refusal is an error: for IMAP a
 * TRANSPORT_PERMFAIL, retried after the backoff with yet another token).
 * Tokens are wiped before they are freed and never logged. */
struct transport_token_source {
	char *(*get)(void *ctx, char **errstr);
	void *ctx;
	unsigned max_age_seconds;
};

struct imap_source_config {
	const char *host;
	uint16_t port;                /* 0: 993 for implicit TLS, else 143 */
	enum transport_tls tls;       /* IMPLICIT, STARTTLS or NONE (STARTTLS_OPTIONAL
				       * is taken as STARTTLS: never log in in clear
				       * by accident) */
	/* The server's certificate chain and host name are checked with GnuTLS
	 * before LOGIN, against the system trust store or ca_file if set. On
	 * failure login is refused (TRANSPORT_PERMFAIL) unless insecure is set,
	 * which logs a warning on every connection. */
	const char *ca_file;          /* PEM file of trusted CAs, or NULL */
	const char *tls_name;         /* name to check and send as SNI; NULL: host */
	bool insecure;
	const char *user;
	const char *password;
	enum transport_auth auth;     /* PASSWORD or XOAUTH2 (token from token) */
	struct transport_token_source token;
	const char *mailbox;          /* NULL: "INBOX" */
	const char *processed_folder; /* NULL: "processed"; created if missing */
	const char *quarantine_folder; /* NULL: "quarantine"; created if missing */
	unsigned timeout_seconds;     /* per network operation; 0: 60 */
	unsigned idle_max_seconds;    /* one IDLE lasts at most this; 0: 600 (< 29 min) */
	unsigned backoff_max_seconds; /* reconnect backoff cap; 0: 300 */
	struct transport_log log;
};

/* Copies the configuration; no I/O yet. After a STREAM/PARSE/FATAL error the
 * session is dropped and the next call reconnects: at once the first time,
 * then only after an exponential backoff (1 s, 2 s, 4 s ... up to
 * backoff_max_seconds; calls before that return TRANSPORT_TEMPFAIL at once,
 * wait sleeps until then). A successful select resets the backoff.
 * Nothing here raises SIGPIPE; the daemon should still ignore it. */
struct mail_source *transport_imap_source_new(const struct imap_source_config *cfg);

/* ------------------------------------------------------------------ SMTP */

struct smtp_sink_config {
	const char *host;
	uint16_t port;                /* 0: 465 for implicit TLS, else 587 */
	enum transport_tls tls;       /* any; NONE only for loopback tests */
	const char *ca_file;          /* NULL: the system trust store */
	bool insecure;                /* skip certificate checks (logged loudly) */
	const char *user;             /* NULL: no AUTH */
	const char *password;
	enum transport_auth auth;     /* XOAUTH2/OAUTHBEARER: token from token */
	struct transport_token_source token;
	const char *helo_name;        /* EHLO name; NULL: libcurl's default */
	unsigned connect_timeout_seconds; /* 0: 30 */
	unsigned timeout_seconds;     /* whole transaction; 0: 120 */
	struct transport_log log;
};

/* Copies the configuration. Sends go through one libcurl handle whose SMTP
 * connection is used again for the next mail (a new one after any failure,
 * or when the server closed it). A 5xx
 * reply is TRANSPORT_PERMFAIL; 4xx, no reply, network errors and timeouts
 * are TRANSPORT_TEMPFAIL; a TLS handshake or certificate failure, a server
 * that does not offer STARTTLS when it is required, or a refused login is
 * TRANSPORT_BLOCKED (never a fall back to clear text). The error string
 * carries the server's code. */
struct mail_sink *transport_smtp_sink_new(const struct smtp_sink_config *cfg);

/* ------------------------------------------------------- for implementers */

/* Formats a message and hands it to log (or stderr). */
void transport_logf(const struct transport_log *log, enum transport_log_level level,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The token cache the transports share: a token is fetched from src when
 * none is held, when it is older than src->max_age_seconds, or when
 * `refused` says the server turned it down. Returns the token held (owned by
 * the cache) or NULL with *errstr set. */
struct transport_token_cache {
	char *token;
	int64_t fetched_ms;   /* monotonic */
	unsigned fetches;     /* how many times get was called (for logs, tests) */
};
const char *transport_token(struct transport_token_cache *cache,
			    const struct transport_token_source *src, bool refused,
			    char **errstr);
void transport_token_clear(struct transport_token_cache *cache);

/* Sets *errstr (if errstr is not NULL) to a formatted message; returns status. */
enum transport_status transport_fail(char **errstr, enum transport_status status,
				     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
