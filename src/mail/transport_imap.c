/* IMAP mail source on libetpan, with the certificate checks libetpan does
 * not do (GnuTLS) and workarounds for two IDLE bugs of libetpan 1.9.4.
 * See transport.h for the contract. */
#define _GNU_SOURCE
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <libetpan/libetpan.h>

#include "mail/transport.h"
#include "base/util.h"

/* sel_exists/sel_recent while no EXISTS/RECENT came since the last
 * listing (libetpan sets them from the server's untagged answers). */
#define NO_NEWS UINT32_MAX

struct imap_source {
	char *host;
	uint16_t port;
	enum transport_tls tls;
	char *ca_file;
	char *tls_name;
	bool insecure;
	char *user;
	char *password;
	enum transport_auth auth;
	struct transport_token_source token_src;
	struct transport_token_cache token;
	bool token_refused;      /* the server turned the held token down */
	char *mailbox;
	char *processed;
	char *quarantine;
	unsigned timeout_seconds;
	unsigned idle_max_seconds;
	unsigned backoff_max_seconds;
	struct transport_log log;

	mailimap *imap;          /* NULL while disconnected */
	uint32_t uidvalidity;    /* of the selected mailbox */
	bool has_move, has_uidplus, has_idle;
	unsigned failed_connects; /* in a row, for the backoff */
	int64_t next_connect_ms;  /* monotonic; no connection attempt before */
};

static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libetpan and GnuTLS write to sockets without MSG_NOSIGNAL. While a
 * command runs SIGPIPE is blocked for this thread, and one raised meanwhile
 * is taken off the pending set before unblocking, so a dropped connection
 * is an error return, never the death of the process. */
struct sigpipe_guard {
	sigset_t old;
	bool was_pending;
};

static void sigpipe_block(struct sigpipe_guard *g)
{
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

static void sigpipe_unblock(struct sigpipe_guard *g)
{
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigpending(&pending);
	if (!g->was_pending && sigismember(&pending, SIGPIPE)) {
		struct timespec zero = {0, 0};
		while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

static const char *server_text(const struct imap_source *s)
{
	return s->imap && s->imap->imap_response ? s->imap->imap_response : "";
}

/* Errors after which the session cannot be trusted any more. */
static bool is_connection_error(int r)
{
	return r == MAILIMAP_ERROR_STREAM || r == MAILIMAP_ERROR_PARSE ||
	       r == MAILIMAP_ERROR_FATAL || r == MAILIMAP_ERROR_CONNECTION_REFUSED ||
	       r == MAILIMAP_ERROR_MEMORY || r == MAILIMAP_ERROR_BAD_STATE ||
	       r == MAILIMAP_ERROR_SSL;
}

static void drop_session(struct imap_source *s)
{
	if (s->imap) {
		mailimap_free(s->imap);
		s->imap = NULL;
	}
}

/* A session that worked and then broke is retried at once (servers close
 * idle connections); failed connection attempts back off exponentially. */
static void session_broken(struct imap_source *s)
{
	drop_session(s);
	s->failed_connects = 0;
	s->next_connect_ms = 0;
}

static void connect_failed(struct imap_source *s)
{
	drop_session(s);
	unsigned shift = s->failed_connects < 20 ? s->failed_connects : 20;
	uint64_t delay = (uint64_t)1 << shift;
	if (delay > s->backoff_max_seconds)
		delay = s->backoff_max_seconds;
	s->failed_connects++;
	s->next_connect_ms = monotonic_ms() + (int64_t)delay * 1000;
}

static bool is_ip_literal(const char *name)
{
	unsigned char buf[16];
	return inet_pton(AF_INET, name, buf) == 1 || inet_pton(AF_INET6, name, buf) == 1;
}

static void set_sni(struct mailstream_ssl_context *ctx, void *data)
{
	struct imap_source *s = data;
	/* RFC 6066: no IP literals in SNI. */
	if (!is_ip_literal(s->tls_name))
		mailstream_ssl_set_server_name(ctx, s->tls_name);
}

/* Checks the server's chain against the trust store (or ca_file) and its
 * name against tls_name. Returns NULL if good, else an allocated reason. */
static char *verify_server_certificate(struct imap_source *s)
{
	char *reason = NULL;
	carray *chain = mailstream_get_certificate_chain(s->imap->imap_stream);
	if (!chain || carray_count(chain) == 0) {
		if (chain)
			mailstream_certificate_chain_free(chain);
		return xstrdup("the server sent no certificate");
	}
	unsigned n = carray_count(chain);
	gnutls_x509_crt_t *certs = xcalloc(n, sizeof(*certs));
	gnutls_x509_trust_list_t trust = NULL;
	unsigned imported = 0;
	for (; imported < n; imported++) {
		MMAPString *der = carray_get(chain, imported);
		gnutls_datum_t datum = {(unsigned char *)der->str, (unsigned)der->len};
		if (gnutls_x509_crt_init(&certs[imported]) < 0)
			break;
		if (gnutls_x509_crt_import(certs[imported], &datum, GNUTLS_X509_FMT_DER) < 0) {
			gnutls_x509_crt_deinit(certs[imported]);
			reason = xstrdup("cannot read the server's certificate");
			goto done;
		}
	}
	if (imported < n) {
		reason = xstrdup("out of memory reading the certificate chain");
		goto done;
	}
	if (gnutls_x509_trust_list_init(&trust, 0) < 0) {
		reason = xstrdup("cannot set up certificate verification");
		goto done;
	}
	int added;
	if (s->ca_file)
		added = gnutls_x509_trust_list_add_trust_file(trust, s->ca_file, NULL,
							       GNUTLS_X509_FMT_PEM, 0, 0);
	else
		added = gnutls_x509_trust_list_add_system_trust(trust, 0, 0);
	if (added <= 0) {
		reason = s->ca_file ? xasprintf("no CA certificate could be read from %s", s->ca_file)
				    : xstrdup("the system trust store is empty or unreadable");
		goto done;
	}
	gnutls_typed_vdata_st checks[2] = {
		{.type = GNUTLS_DT_DNS_HOSTNAME, .data = (unsigned char *)s->tls_name},
		{.type = GNUTLS_DT_KEY_PURPOSE_OID, .data = (unsigned char *)GNUTLS_KP_TLS_WWW_SERVER},
	};
	unsigned status = 0;
	if (gnutls_x509_trust_list_verify_crt2(trust, certs, n, checks, 2, 0, &status, NULL) < 0) {
		reason = xstrdup("certificate verification failed to run");
		goto done;
	}
	if (status != 0) {
		gnutls_datum_t text = {NULL, 0};
		if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) >= 0
		    && text.data) {
			reason = xstrdup((char *)text.data);
			gnutls_free(text.data);
		} else {
			reason = xasprintf("verification status 0x%x", status);
		}
		size_t len = strlen(reason);
		while (len > 0 && (reason[len - 1] == ' ' || reason[len - 1] == '.'))
			reason[--len] = '\0';
		if (status & GNUTLS_CERT_UNEXPECTED_OWNER) {
			char *r2 = xasprintf("%s (checked for the name %s)", reason, s->tls_name);
			free(reason);
			reason = r2;
		}
	}
done:
	if (trust)
		gnutls_x509_trust_list_deinit(trust, 1);
	for (unsigned i = 0; i < imported; i++)
		gnutls_x509_crt_deinit(certs[i]);
	free(certs);
	mailstream_certificate_chain_free(chain);
	return reason;
}

static void read_capabilities(struct imap_source *s)
{
	struct mailimap_capability_data *caps = NULL;
	if (mailimap_capability(s->imap, &caps) == MAILIMAP_NO_ERROR && caps)
		mailimap_capability_data_free(caps);
	s->has_move = mailimap_has_extension(s->imap, "MOVE");
	s->has_uidplus = mailimap_has_extension(s->imap, "UIDPLUS");
	s->has_idle = mailimap_has_idle(s->imap);
}

static bool is_loopback(const char *host)
{
	return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0 ||
	       strcmp(host, "localhost") == 0;
}

/* Connects, checks the certificate, logs in and selects the mailbox. */
static enum transport_status imap_connect_try(struct imap_source *s, char **errstr)
{
	if (s->imap)
		return TRANSPORT_OK;
	int64_t now = monotonic_ms();
	if (now < s->next_connect_ms)
		return transport_fail(errstr, TRANSPORT_TEMPFAIL,
				      "imap %s:%u: next connection attempt in %lld s", s->host,
				      s->port, (long long)((s->next_connect_ms - now + 999) / 1000));

	s->imap = mailimap_new(0, NULL);
	if (!s->imap)
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "imap: out of memory");
	mailimap_set_timeout(s->imap, s->timeout_seconds);
	int r;
	switch (s->tls) {
	case TRANSPORT_TLS_IMPLICIT:
		r = mailimap_ssl_connect_with_callback(s->imap, s->host, s->port, set_sni, s);
		break;
	default:
		r = mailimap_socket_connect(s->imap, s->host, s->port);
		break;
	}
	if (r != MAILIMAP_NO_ERROR && r != MAILIMAP_NO_ERROR_AUTHENTICATED &&
	    r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED) {
		connect_failed(s);
		return transport_fail(errstr, TRANSPORT_TEMPFAIL,
				      "imap %s:%u: cannot connect%s (libetpan error %d)", s->host,
				      s->port, s->tls == TRANSPORT_TLS_IMPLICIT ? " with TLS" : "", r);
	}
	if (s->tls == TRANSPORT_TLS_STARTTLS) {
		read_capabilities(s);
		if (!mailimap_has_extension(s->imap, "STARTTLS")) {
			connect_failed(s);
			return transport_fail(errstr, TRANSPORT_PERMFAIL,
					      "imap %s:%u: the server does not offer STARTTLS; "
					      "refusing to log in without TLS", s->host, s->port);
		}
		r = mailimap_socket_starttls_with_callback(s->imap, set_sni, s);
		if (r != MAILIMAP_NO_ERROR) {
			connect_failed(s);
			return transport_fail(errstr, TRANSPORT_TEMPFAIL,
					      "imap %s:%u: STARTTLS failed (libetpan error %d)",
					      s->host, s->port, r);
		}
	}
	if (s->tls != TRANSPORT_TLS_NONE) {
		char *reason = verify_server_certificate(s);
		if (reason && !s->insecure) {
			enum transport_status st = transport_fail(
				errstr, TRANSPORT_PERMFAIL,
				"imap %s:%u: the server's certificate is not trusted: %s; not "
				"logging in (give a CA file, or set insecure to accept it)",
				s->host, s->port, reason);
			free(reason);
			connect_failed(s);
			return st;
		}
		if (reason) {
			transport_logf(&s->log, TRANSPORT_LOG_WARNING,
				       "imap %s:%u: INSECURE: the server's certificate is not "
				       "trusted (%s) and the password is sent anyway because "
				       "insecure is set; anyone in between can read it",
				       s->host, s->port, reason);
			free(reason);
		}
	} else if (!is_loopback(s->host)) {
		transport_logf(&s->log, TRANSPORT_LOG_WARNING,
			       "imap %s:%u: INSECURE: no TLS; the password crosses the network "
			       "in clear", s->host, s->port);
	}

	if (s->auth == TRANSPORT_AUTH_PASSWORD) {
		r = mailimap_login(s->imap, s->user, s->password);
	} else {
		char *terr = NULL;
		const char *token = transport_token(&s->token, &s->token_src, s->token_refused, &terr);
		s->token_refused = false;
		if (!token) {
			enum transport_status st = transport_fail(
				errstr, TRANSPORT_TEMPFAIL, "imap %s:%u: no OAuth2 token for %s: %s",
				s->host, s->port, s->user, terr ? terr : "");
			free(terr);
			connect_failed(s);
			return st;
		}
		r = mailimap_oauth2_authenticate(s->imap, s->user, token);
		/* Any refusal of a token may mean it expired: the next
		 * attempt asks for a fresh one. */
		if (r != MAILIMAP_NO_ERROR && !is_connection_error(r))
			s->token_refused = true;
	}
	if (r != MAILIMAP_NO_ERROR) {
		bool refused = r == MAILIMAP_ERROR_LOGIN || s->token_refused;
		enum transport_status st = transport_fail(
			errstr, refused ? TRANSPORT_PERMFAIL : TRANSPORT_TEMPFAIL,
			"imap %s:%u: login as %s %s%s%s", s->host, s->port, s->user,
			refused ? "refused" : "failed", *server_text(s) ? ": " : "",
			server_text(s));
		connect_failed(s);
		return st;
	}
	/* The capabilities change after login (MOVE, IDLE...). */
	read_capabilities(s);

	/* Create the processed and quarantine folders; "already exists" is
	 * the usual answer. */
	r = mailimap_create(s->imap, s->processed);
	if (!is_connection_error(r))
		r = mailimap_create(s->imap, s->quarantine);
	if (is_connection_error(r)) {
		connect_failed(s);
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "imap %s:%u: connection lost",
				      s->host, s->port);
	}
	r = mailimap_select(s->imap, s->mailbox);
	if (r != MAILIMAP_NO_ERROR || !s->imap->imap_selection_info) {
		bool refused = r == MAILIMAP_ERROR_SELECT;
		enum transport_status st = transport_fail(
			errstr, refused ? TRANSPORT_PERMFAIL : TRANSPORT_TEMPFAIL,
			"imap %s:%u: cannot select %s%s%s", s->host, s->port, s->mailbox,
			*server_text(s) ? ": " : "", server_text(s));
		connect_failed(s);
		return st;
	}
	s->uidvalidity = s->imap->imap_selection_info->sel_uidvalidity;
	s->failed_connects = 0;
	s->next_connect_ms = 0;
	transport_logf(&s->log, TRANSPORT_LOG_INFO, "imap %s:%u: logged in as %s, %s selected",
		       s->host, s->port, s->user, s->mailbox);
	return TRANSPORT_OK;
}

/* imap_connect_try, and once more at once when the server refused the
 * token: it may have expired (a helper may also hand out a cached token
 * that just did), and a fresh one is worth a try before backing off. */
static enum transport_status imap_connect(struct imap_source *s, char **errstr)
{
	enum transport_status st = imap_connect_try(s, errstr);
	if (st == TRANSPORT_PERMFAIL && s->token_refused) {
		transport_logf(&s->log, TRANSPORT_LOG_INFO,
			       "imap %s:%u: the OAuth2 token was refused; trying a fresh one",
			       s->host, s->port);
		if (errstr) {
			free(*errstr);
			*errstr = NULL;
		}
		s->next_connect_ms = 0;
		if (s->failed_connects > 0)
			s->failed_connects--;
		st = imap_connect_try(s, errstr);
	}
	return st;
}

static enum transport_status imap_open(void *state, char **errstr)
{
	struct imap_source *s = state;
	struct sigpipe_guard g;
	sigpipe_block(&g);
	enum transport_status st = imap_connect(s, errstr);
	sigpipe_unblock(&g);
	return st;
}

static enum transport_status lost(struct imap_source *s, int r, const char *what, char **errstr)
{
	enum transport_status st = transport_fail(errstr, TRANSPORT_TEMPFAIL,
						  "imap %s:%u: %s failed (libetpan error %d)",
						  s->host, s->port, what, r);
	session_broken(s);
	return st;
}

/* A UID set of sorted UIDs, runs written as ranges (1:5,9). */
static struct mailimap_set *uid_set(const uint32_t *uids, size_t n)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && uids[j + 1] == uids[j] + 1)
			j++;
		if (j == i)
			mailimap_set_add_single(set, uids[i]);
		else
			mailimap_set_add_interval(set, uids[i], uids[j]);
		i = j + 1;
	}
	return set;
}

/* UIDs above last_uid with their sizes, sorted by UID: one UID FETCH
 * last+1:* (UID RFC822.SIZE). `last+1:*` also matches the highest UID when
 * it is below last+1, hence the filter. */
static int list_new(struct imap_source *s, uint32_t last_uid, uint32_t **uids, uint32_t **sizes,
		    size_t *n)
{
	*uids = NULL;
	*sizes = NULL;
	*n = 0;
	struct mailimap_set *set = mailimap_set_new_interval(last_uid + 1, 0);
	struct mailimap_fetch_type *type = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(type, mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(type, mailimap_fetch_att_new_rfc822_size());
	clist *result = NULL;
	int r = mailimap_uid_fetch(s->imap, set, type, &result);
	mailimap_fetch_type_free(type);
	mailimap_set_free(set);
	if (r == MAILIMAP_ERROR_FETCH) /* nothing matched, on some servers */
		return MAILIMAP_NO_ERROR;
	if (r != MAILIMAP_NO_ERROR)
		return r;
	size_t cap = 0, scap = 0;
	for (clistiter *it = clist_begin(result); it; it = clist_next(it)) {
		struct mailimap_msg_att *att = clist_content(it);
		uint32_t uid = 0, size = 0;
		bool has_size = false;
		for (clistiter *i2 = clist_begin(att->att_list); i2; i2 = clist_next(i2)) {
			struct mailimap_msg_att_item *item = clist_content(i2);
			if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
				continue;
			struct mailimap_msg_att_static *st = item->att_data.att_static;
			if (st->att_type == MAILIMAP_MSG_ATT_UID)
				uid = st->att_data.att_uid;
			else if (st->att_type == MAILIMAP_MSG_ATT_RFC822_SIZE) {
				size = st->att_data.att_rfc822_size;
				has_size = true;
			}
		}
		/* Unsolicited FETCH responses (flag changes) carry no size. */
		if (uid <= last_uid || !has_size)
			continue;
		grow_array((void **)uids, &cap, *n + 1, sizeof(**uids));
		grow_array((void **)sizes, &scap, *n + 1, sizeof(**sizes));
		(*uids)[*n] = uid;
		(*sizes)[(*n)++] = size;
	}
	mailimap_fetch_list_free(result);
	/* sort both by UID (insertion sort: servers answer in order already) */
	for (size_t i = 1; i < *n; i++) {
		uint32_t u = (*uids)[i], z = (*sizes)[i];
		size_t j = i;
		for (; j > 0 && (*uids)[j - 1] > u; j--) {
			(*uids)[j] = (*uids)[j - 1];
			(*sizes)[j] = (*sizes)[j - 1];
		}
		(*uids)[j] = u;
		(*sizes)[j] = z;
	}
	/* drop a UID answered twice */
	size_t m = 0;
	for (size_t i = 0; i < *n; i++)
		if (m == 0 || (*uids)[m - 1] != (*uids)[i]) {
			(*uids)[m] = (*uids)[i];
			(*sizes)[m++] = (*sizes)[i];
		}
	*n = m;
	return MAILIMAP_NO_ERROR;
}

static int64_t imap_date_to_epoch(const struct mailimap_date_time *d)
{
	if (!d || d->dt_month < 1 || d->dt_month > 12)
		return 0;
	/* Days from the civil date (proleptic Gregorian). */
	int64_t y = d->dt_year - (d->dt_month <= 2);
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t m = d->dt_month;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d->dt_day - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	int zone_min = (d->dt_zone / 100) * 60 + d->dt_zone % 100;
	return days * 86400 + d->dt_hour * 3600 + d->dt_min * 60 + d->dt_sec -
	       (int64_t)zone_min * 60;
}

/* A batch of mail is fetched with one UID FETCH: at most this many
 * messages, and at most this many bytes (by RFC822.SIZE; a single larger
 * message is fetched alone). */
#define FETCH_BATCH_MAILS 100
#define FETCH_BATCH_BYTES (8u * 1024 * 1024)

/* Fetches the messages uids[0..n) (sorted) with one UID FETCH and hands
 * them to fn in UID order (*cb_status is what fn said last; *done counts
 * the messages fn accepted, in order). A UID the server no longer has is
 * skipped. Returns a libetpan code. */
static int fetch_batch(struct imap_source *s, const uint32_t *uids, size_t n,
		       transport_message_fn *fn, void *ctx, enum transport_status *cb_status,
		       uint32_t *last_done, char **errstr)
{
	struct mailimap_set *set = uid_set(uids, n);
	struct mailimap_fetch_type *type = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(type, mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(
		type, mailimap_fetch_att_new_body_peek_section(mailimap_section_new(NULL)));
	mailimap_fetch_type_new_fetch_att_list_add(type, mailimap_fetch_att_new_internaldate());
	clist *result = NULL;
	int r = mailimap_uid_fetch(s->imap, set, type, &result);
	mailimap_fetch_type_free(type);
	mailimap_set_free(set);
	*cb_status = TRANSPORT_OK;
	if (r != MAILIMAP_NO_ERROR)
		return r;
	struct transport_message *msgs = xcalloc(n, sizeof *msgs);
	for (clistiter *it = clist_begin(result); it; it = clist_next(it)) {
		struct mailimap_msg_att *att = clist_content(it);
		uint32_t got_uid = 0;
		const char *data = NULL;
		size_t len = 0;
		int64_t date = 0;
		for (clistiter *i2 = clist_begin(att->att_list); i2; i2 = clist_next(i2)) {
			struct mailimap_msg_att_item *item = clist_content(i2);
			if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
				continue;
			struct mailimap_msg_att_static *st = item->att_data.att_static;
			switch (st->att_type) {
			case MAILIMAP_MSG_ATT_UID:
				got_uid = st->att_data.att_uid;
				break;
			case MAILIMAP_MSG_ATT_BODY_SECTION:
				data = st->att_data.att_body_section->sec_body_part;
				len = st->att_data.att_body_section->sec_length;
				break;
			case MAILIMAP_MSG_ATT_INTERNALDATE:
				date = imap_date_to_epoch(st->att_data.att_internal_date);
				break;
			default:
				break;
			}
		}
		/* Unsolicited FETCH responses (flag changes) can come along. */
		if (!data)
			continue;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (uids[mid] < got_uid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || uids[lo] != got_uid || msgs[lo].data)
			continue;
		msgs[lo] = (struct transport_message){
			.uidvalidity = s->uidvalidity,
			.uid = got_uid,
			.data = data,
			.len = len,
			.internal_date = date,
		};
	}
	for (size_t i = 0; i < n && *cb_status == TRANSPORT_OK; i++) {
		if (!msgs[i].data)
			continue;
		*cb_status = fn(ctx, &msgs[i], errstr);
		if (*cb_status == TRANSPORT_OK)
			*last_done = uids[i];
	}
	free(msgs);
	mailimap_fetch_list_free(result);
	return MAILIMAP_NO_ERROR;
}

static enum transport_status fetch_round(struct imap_source *s, uint32_t known_uidvalidity,
					 uint32_t *last_uid, transport_message_fn *fn, void *ctx,
					 uint32_t *uidvalidity, char **errstr)
{
	enum transport_status st = imap_connect(s, errstr);
	if (st != TRANSPORT_OK)
		return st;
	*uidvalidity = s->uidvalidity;
	if (known_uidvalidity != 0 && known_uidvalidity != s->uidvalidity)
		return transport_fail(errstr, TRANSPORT_UIDVALIDITY_CHANGED,
				      "imap %s:%u: UIDVALIDITY of %s is %" PRIu32 ", expected %" PRIu32,
				      s->host, s->port, s->mailbox, s->uidvalidity,
				      known_uidvalidity);
	/* From here on, any EXISTS or RECENT the server reports (in the
	 * answers to this listing, the FETCHes or the MOVEs) may be mail the
	 * listing missed: wait then looks again instead of entering IDLE,
	 * where the server would not repeat it. */
	s->imap->imap_selection_info->sel_exists = NO_NEWS;
	s->imap->imap_selection_info->sel_recent = NO_NEWS;
	uint32_t *uids, *sizes;
	size_t n;
	int r = list_new(s, *last_uid, &uids, &sizes, &n);
	if (r != MAILIMAP_NO_ERROR) {
		if (is_connection_error(r))
			return lost(s, r, "UID FETCH (RFC822.SIZE)", errstr);
		return transport_fail(errstr, TRANSPORT_TEMPFAIL,
				      "imap %s:%u: UID FETCH (RFC822.SIZE): %s", s->host, s->port,
				      server_text(s));
	}
	for (size_t i = 0; i < n && st == TRANSPORT_OK;) {
		size_t j = i;
		uint64_t bytes = 0;
		while (j < n && j - i < FETCH_BATCH_MAILS &&
		       (j == i || bytes + sizes[j] <= FETCH_BATCH_BYTES))
			bytes += sizes[j++];
		enum transport_status cb = TRANSPORT_OK;
		uint32_t done = *last_uid;
		r = fetch_batch(s, uids + i, j - i, fn, ctx, &cb, &done, errstr);
		if (r != MAILIMAP_NO_ERROR) {
			if (is_connection_error(r))
				st = lost(s, r, "UID FETCH", errstr);
			else
				st = transport_fail(errstr, TRANSPORT_TEMPFAIL,
						    "imap %s:%u: UID FETCH %" PRIu32 ":%" PRIu32
						    ": %s",
						    s->host, s->port, uids[i], uids[j - 1],
						    server_text(s));
			break;
		}
		st = cb;
		/* Mail that vanished meanwhile counts as taken. */
		*last_uid = st == TRANSPORT_OK ? uids[j - 1] : done;
		i = j;
	}
	free(sizes);
	free(uids);
	return st;
}

static enum transport_status imap_fetch_new(void *state, uint32_t known_uidvalidity,
					    uint32_t last_uid, transport_message_fn *fn, void *ctx,
					    uint32_t *uidvalidity, char **errstr)
{
	struct imap_source *s = state;
	struct sigpipe_guard g;
	sigpipe_block(&g);
	bool had_session = s->imap != NULL;
	enum transport_status st = fetch_round(s, known_uidvalidity, &last_uid, fn, ctx,
					       uidvalidity, errstr);
	/* A session that had been sitting idle may have been closed by the
	 * server: one immediate retry on a fresh connection, starting after
	 * what the callback already took. */
	if (st == TRANSPORT_TEMPFAIL && had_session && !s->imap && s->next_connect_ms == 0) {
		if (errstr) {
			free(*errstr);
			*errstr = NULL;
		}
		st = fetch_round(s, known_uidvalidity, &last_uid, fn, ctx, uidvalidity, errstr);
	}
	sigpipe_unblock(&g);
	return st;
}

/* Moves uids[0..n) (sorted) to folder with one command (UID MOVE with a UID
 * set), or UID COPY, UID STORE and UID EXPUNGE of that set. */
static int move_set(struct imap_source *s, const uint32_t *uids, size_t n, const char *folder,
		    const char **step)
{
	struct mailimap_set *set = uid_set(uids, n);
	int r;
	if (s->has_move) {
		*step = "UID MOVE";
		r = mailimap_uid_move(s->imap, set, folder);
	} else {
		/* Never a plain EXPUNGE: it would also remove messages that
		 * someone else marked \Deleted. */
		*step = "UID COPY";
		r = mailimap_uid_copy(s->imap, set, folder);
		if (r == MAILIMAP_NO_ERROR) {
			*step = "UID STORE +FLAGS (\\Deleted)";
			struct mailimap_flag_list *flags = mailimap_flag_list_new_empty();
			mailimap_flag_list_add(flags, mailimap_flag_new_deleted());
			struct mailimap_store_att_flags *att =
				mailimap_store_att_flags_new_add_flags_silent(flags);
			r = mailimap_uid_store(s->imap, set, att);
			mailimap_store_att_flags_free(att);
		}
		if (r == MAILIMAP_NO_ERROR && s->has_uidplus) {
			*step = "UID EXPUNGE";
			r = mailimap_uid_expunge(s->imap, set);
		}
		/* Without UIDPLUS the copy stays behind flagged \Deleted; its UID
		 * is at or below the stored last UID, so it is not fetched again. */
	}
	mailimap_set_free(set);
	return r;
}

/* UIDs moved with one command at most; a longer list goes in several. */
#define MOVE_BATCH 1000

static enum transport_status imap_move_set(struct imap_source *s, const char *folder,
					   uint32_t uidvalidity, const uint32_t *uids, size_t n,
					   char **errstr)
{
	struct sigpipe_guard g;
	sigpipe_block(&g);
	enum transport_status st = TRANSPORT_OK;
	for (size_t i = 0; i < n && st == TRANSPORT_OK;) {
		size_t m = n - i < MOVE_BATCH ? n - i : MOVE_BATCH;
		for (int attempt = 0; attempt < 2; attempt++) {
			bool had_session = s->imap != NULL;
			st = imap_connect(s, errstr);
			if (st != TRANSPORT_OK)
				break;
			if (uidvalidity != s->uidvalidity) {
				st = transport_fail(errstr, TRANSPORT_UIDVALIDITY_CHANGED,
						    "imap %s:%u: UIDVALIDITY of %s is %" PRIu32
						    ", not %" PRIu32,
						    s->host, s->port, s->mailbox, s->uidvalidity,
						    uidvalidity);
				break;
			}
			const char *step = "";
			int r = move_set(s, uids + i, m, folder, &step);
			if (r == MAILIMAP_NO_ERROR)
				break;
			if (is_connection_error(r)) {
				st = lost(s, r, step, errstr);
				if (had_session)
					continue; /* once more on a fresh connection */
				break;
			}
			st = transport_fail(errstr, TRANSPORT_TEMPFAIL,
					    "imap %s:%u: %s %" PRIu32 "..%" PRIu32 " to %s: %s",
					    s->host, s->port, step, uids[i], uids[i + m - 1],
					    folder, server_text(s));
			break;
		}
		i += m;
	}
	sigpipe_unblock(&g);
	return st;
}

static enum transport_status imap_mark_processed(void *state, uint32_t uidvalidity, uint32_t uid,
						 char **errstr)
{
	struct imap_source *s = state;
	return imap_move_set(s, s->processed, uidvalidity, &uid, 1, errstr);
}

static enum transport_status imap_mark_processed_set(void *state, uint32_t uidvalidity,
						     const uint32_t *uids, size_t n, char **errstr)
{
	struct imap_source *s = state;
	return imap_move_set(s, s->processed, uidvalidity, uids, n, errstr);
}

static enum transport_status imap_quarantine(void *state, uint32_t uidvalidity, uint32_t uid,
					     char **errstr)
{
	struct imap_source *s = state;
	return imap_move_set(s, s->quarantine, uidvalidity, &uid, 1, errstr);
}

/* Waits for the socket, wake_fd or the time limit. Returns 1 if the
 * server sent something, 0 on timeout, -1 if woken or interrupted. */
static int wait_readable(int fd, int wake_fd, int64_t ms)
{
	struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
	int r = poll(pfd, wake_fd >= 0 ? 2 : 1, ms > INT32_MAX ? INT32_MAX : (int)ms);
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	if (wake_fd >= 0 && (pfd[1].revents & POLLIN))
		return -1;
	return 1;
}

/* Asks with a NOOP every interval ms until the server reports news, ms
 * have passed, or wake_fd or a signal interrupted the wait: one NOOP after
 * ms where the server has no IDLE, a quick look every interval while mail
 * flows (Dovecot holds an IDLE notice back for half a second). */
static enum transport_status noop_wait(struct imap_source *s, int64_t ms, int64_t interval,
				       int wake_fd, bool *changed, char **errstr)
{
	int64_t start = monotonic_ms(), left = ms;
	unsigned noops = 0;
	for (;;) {
		int w = wait_readable(-1, wake_fd, left < interval ? left : interval);
		uint32_t exists = s->imap->imap_selection_info->sel_exists;
		uint32_t recent = s->imap->imap_selection_info->sel_recent;
		int r = mailimap_noop(s->imap);
		noops++;
		if (is_connection_error(r))
			return lost(s, r, "NOOP", errstr);
		*changed = w == 0 && (s->imap->imap_selection_info->sel_exists != exists ||
				      s->imap->imap_selection_info->sel_recent != recent);
		left = ms - (monotonic_ms() - start);
		if (w < 0 || *changed || left <= 0)
			break;
	}
	if (interval < ms)
		transport_logf(&s->log, TRANSPORT_LOG_DEBUG,
			       "imap %s:%u: quick look: %u NOOP in %lld ms, %s", s->host, s->port,
			       noops, (long long)(monotonic_ms() - start),
			       *changed ? "new mail" : "no news");
	return TRANSPORT_OK;
}

static enum transport_status imap_look(void *state, unsigned timeout_ms, unsigned interval_ms,
				       int wake_fd, bool *changed, char **errstr)
{
	struct imap_source *s = state;
	*changed = false;
	int64_t start = monotonic_ms();
	if (!s->imap && start < s->next_connect_ms) {
		/* In backoff: sleep until the next attempt is due. */
		int64_t ms = s->next_connect_ms - start;
		if (ms > timeout_ms)
			ms = timeout_ms;
		wait_readable(-1, wake_fd, ms);
		return TRANSPORT_OK;
	}
	struct sigpipe_guard g;
	sigpipe_block(&g);
	enum transport_status st = imap_connect(s, errstr);
	if (st != TRANSPORT_OK)
		goto out;
	int64_t ms = timeout_ms;
	if (ms > (int64_t)s->idle_max_seconds * 1000)
		ms = (int64_t)s->idle_max_seconds * 1000;
	if (s->imap->imap_selection_info->sel_exists != NO_NEWS ||
	    s->imap->imap_selection_info->sel_recent != NO_NEWS) {
		/* news came while we were busy: look now, not after IDLE */
		*changed = true;
		goto out;
	}

	if (!s->has_idle || interval_ms) {
		/* No IDLE, or a quick look: a NOOP lets the server report news
		 * and shows whether the connection is still alive. */
		st = noop_wait(s, ms, interval_ms ? interval_ms : ms, wake_fd, changed, errstr);
		goto out;
	}

	transport_logf(&s->log, TRANSPORT_LOG_DEBUG, "imap %s:%u: IDLE for up to %lld ms", s->host,
		       s->port, (long long)ms);
	int r = mailimap_idle(s->imap);
	if (r != MAILIMAP_NO_ERROR) {
		/* libetpan 1.9.4 fails here when an untagged response (such as
		 * the EXISTS of a new message) comes before "+ idling", and
		 * the session is out of step afterwards: start afresh, and
		 * have the caller look for new mail. */
		transport_logf(&s->log, TRANSPORT_LOG_DEBUG,
			       "imap %s:%u: IDLE failed (libetpan error %d); reconnecting", s->host,
			       s->port, r);
		session_broken(s);
		*changed = true;
		goto out;
	}
	/* libetpan 1.9.4 may already hold the server's news in its read
	 * buffer (read together with "+ idling"): polling the socket would
	 * then sleep the whole timeout. */
	int w = 1;
	if (s->imap->imap_stream->read_buffer_len == 0)
		w = wait_readable(mailimap_idle_get_fd(s->imap), wake_fd, ms);
	r = mailimap_idle_done(s->imap);
	if (r != MAILIMAP_NO_ERROR) {
		transport_logf(&s->log, TRANSPORT_LOG_DEBUG,
			       "imap %s:%u: leaving IDLE failed (libetpan error %d); reconnecting",
			       s->host, s->port, r);
		session_broken(s);
		*changed = true;
		goto out;
	}
	*changed = w == 1;
out:
	sigpipe_unblock(&g);
	return st;
}

static void imap_close(void *state)
{
	struct imap_source *s = state;
	if (s->imap) {
		struct sigpipe_guard g;
		sigpipe_block(&g);
		mailimap_logout(s->imap);
		sigpipe_unblock(&g);
	}
	drop_session(s);
	s->failed_connects = 0;
	s->next_connect_ms = 0;
}

static void imap_free(void *state)
{
	struct imap_source *s = state;
	drop_session(s);
	free(s->host);
	free(s->ca_file);
	free(s->tls_name);
	free(s->user);
	if (s->password) {
		/* Do not leave the password in freed memory. */
		volatile char *p = s->password;
		while (*p)
			*p++ = '\0';
	}
	free(s->password);
	transport_token_clear(&s->token);
	free(s->mailbox);
	free(s->processed);
	free(s->quarantine);
	free(s);
}

static const struct mail_source_ops imap_source_ops = {
	.name = "imap",
	.open = imap_open,
	.fetch_new = imap_fetch_new,
	.mark_processed = imap_mark_processed,
	.quarantine = imap_quarantine,
	.mark_processed_set = imap_mark_processed_set,
	.look = imap_look,
	.close = imap_close,
	.free = imap_free,
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct mail_source *transport_imap_source_new(const struct imap_source_config *cfg)
{
	struct imap_source *s = xcalloc(1, sizeof(*s));
	s->host = xstrdup(cfg->host ? cfg->host : "localhost");
	s->tls = cfg->tls == TRANSPORT_TLS_STARTTLS_OPTIONAL ? TRANSPORT_TLS_STARTTLS : cfg->tls;
	s->port = cfg->port ? cfg->port : (s->tls == TRANSPORT_TLS_IMPLICIT ? 993 : 143);
	s->ca_file = dup_or_null(cfg->ca_file);
	s->tls_name = xstrdup(cfg->tls_name ? cfg->tls_name : s->host);
	s->insecure = cfg->insecure;
	s->user = xstrdup(cfg->user ? cfg->user : "");
	s->password = xstrdup(cfg->password ? cfg->password : "");
	s->auth = cfg->auth == TRANSPORT_AUTH_PASSWORD ? TRANSPORT_AUTH_PASSWORD : TRANSPORT_AUTH_XOAUTH2;
	s->token_src = cfg->token;
	s->mailbox = xstrdup(cfg->mailbox ? cfg->mailbox : "INBOX");
	s->processed = xstrdup(cfg->processed_folder ? cfg->processed_folder : "processed");
	s->quarantine = xstrdup(cfg->quarantine_folder ? cfg->quarantine_folder : "quarantine");
	s->timeout_seconds = cfg->timeout_seconds ? cfg->timeout_seconds : 60;
	/* RFC 2177: servers may drop an IDLE after 30 minutes. */
	s->idle_max_seconds = cfg->idle_max_seconds ? cfg->idle_max_seconds : 600;
	if (s->idle_max_seconds > 28 * 60)
		s->idle_max_seconds = 28 * 60;
	s->backoff_max_seconds = cfg->backoff_max_seconds ? cfg->backoff_max_seconds : 300;
	s->log = cfg->log;
	return mail_source_new(&imap_source_ops, s);
}
