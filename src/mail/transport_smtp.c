/* SMTP mail sink on libcurl. See transport.h for the contract. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "mail/transport.h"
#include "base/util.h"

struct smtp_sink {
	char *url;
	enum transport_tls tls;
	char *ca_file;
	bool insecure;
	char *user;
	char *password;
	enum transport_auth auth;
	struct transport_token_source token_src;
	struct transport_token_cache token;
	long connect_timeout;
	long timeout;
	struct transport_log log;
	/* Kept between sends, so that its SMTP connection is used again
	 * (libcurl's connection cache) instead of a new session per mail;
	 * dropped after any failure, so the next send starts afresh. */
	CURL *curl;
};

struct upload {
	const char *data;
	size_t len;
	size_t pos;
};

static size_t upload_read(char *buf, size_t size, size_t nitems, void *userdata)
{
	struct upload *u = userdata;
	size_t room = size * nitems;
	size_t n = u->len - u->pos < room ? u->len - u->pos : room;
	memcpy(buf, u->data + u->pos, n);
	u->pos += n;
	return n;
}

/* Keeps the server's last error reply (4xx/5xx) for the error message:
 * libcurl only gives the code. */
struct transcript {
	char last_reply[512];
};

static int smtp_debug(CURL *c, curl_infotype type, char *data, size_t size, void *userdata)
{
	(void)c;
	struct transcript *t = userdata;
	if (type != CURLINFO_HEADER_IN || size < 3 || (data[0] != '4' && data[0] != '5'))
		return 0;
	size_t n = size < sizeof(t->last_reply) - 1 ? size : sizeof(t->last_reply) - 1;
	memcpy(t->last_reply, data, n);
	while (n > 0 && (t->last_reply[n - 1] == '\n' || t->last_reply[n - 1] == '\r'))
		n--;
	t->last_reply[n] = '\0';
	return 0;
}

/* Failures no retry can mend, whatever the reply code says. */
static bool curl_error_is_permanent(CURLcode res)
{
	switch (res) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		return true;
	default:
		return false;
	}
}

/* The server cannot be used safely or at all, for any message, until
 * someone acts (renews a certificate, turns STARTTLS back on, fixes the
 * login): not this message's fault, so never a reason to drop it. */
static bool curl_error_blocks_the_server(CURLcode res)
{
	switch (res) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_USE_SSL_FAILED:
	case CURLE_LOGIN_DENIED:
		return true;
	default:
		return false;
	}
}

/* One mail, over the kept connection when it is still open. *refused is
 * set when the server turned the login down
 * (535, or libcurl's "login denied"). */
static enum transport_status smtp_send_once(struct smtp_sink *s, const char *token,
					    const char *envelope_from,
					    const char *const *recipients, size_t n_recipients,
					    const char *data, size_t len, bool *refused,
					    char **errstr)
{
	*refused = false;
	if (s->curl)
		curl_easy_reset(s->curl); /* options only: the live connection stays */
	else
		s->curl = curl_easy_init();
	CURL *c = s->curl;
	if (!c)
		return transport_fail(errstr, TRANSPORT_TEMPFAIL, "smtp: cannot start libcurl");
	char errbuf[CURL_ERROR_SIZE] = "";
	struct transcript tr = {""};
	struct upload up = {data, len, 0};
	struct curl_slist *rcpts = NULL;
	for (size_t i = 0; i < n_recipients; i++) {
		char *r = xasprintf("<%s>", recipients[i]);
		rcpts = curl_slist_append(rcpts, r);
		free(r);
	}
	char *from = xasprintf("<%s>", envelope_from);

	curl_easy_setopt(c, CURLOPT_URL, s->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	switch (s->tls) {
	case TRANSPORT_TLS_NONE:
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_NONE);
		break;
	case TRANSPORT_TLS_STARTTLS_OPTIONAL:
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
		break;
	default:
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
		break;
	}
	if (s->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, s->ca_file);
	if (s->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (s->user && token) {
		curl_easy_setopt(c, CURLOPT_USERNAME, s->user);
		curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, token);
		curl_easy_setopt(c, CURLOPT_LOGIN_OPTIONS,
				 s->auth == TRANSPORT_AUTH_OAUTHBEARER ? "AUTH=OAUTHBEARER"
								       : "AUTH=XOAUTH2");
	} else if (s->user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, s->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, s->password ? s->password : "");
	}
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpts);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, upload_read);
	curl_easy_setopt(c, CURLOPT_READDATA, &up);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, s->connect_timeout);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, s->timeout);
	/* No SIGALRM for DNS timeouts; libcurl also keeps SIGPIPE away. */
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, smtp_debug);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, &tr);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);

	CURLcode res = curl_easy_perform(c);
	long code = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	enum transport_status st = TRANSPORT_OK;
	if (res != CURLE_OK)
		*refused = res == CURLE_LOGIN_DENIED || code == 535;
	if (res != CURLE_OK) {
		/* 5xx: the server will say the same next time. 4xx, no reply,
		 * network trouble and timeouts may pass. */
		bool blocked = curl_error_blocks_the_server(res);
		bool permanent = !blocked &&
				 ((code >= 500 && code < 600) || curl_error_is_permanent(res));
		st = transport_fail(errstr,
				    blocked ? TRANSPORT_BLOCKED
					    : permanent ? TRANSPORT_PERMFAIL : TRANSPORT_TEMPFAIL,
				    "smtp %s: %s%s%s", s->url, errbuf[0] ? errbuf : curl_easy_strerror(res),
				    code && tr.last_reply[0] ? "; server said: " : "",
				    code ? tr.last_reply : "");
	}
	if (st != TRANSPORT_OK) {
		curl_easy_cleanup(c);
		s->curl = NULL;
	}
	curl_slist_free_all(rcpts);
	free(from);
	return st;
}

static enum transport_status smtp_send(void *state, const char *envelope_from,
				       const char *const *recipients, size_t n_recipients,
				       const char *data, size_t len, char **errstr)
{
	struct smtp_sink *s = state;
	bool refused = false;
	if (s->auth == TRANSPORT_AUTH_PASSWORD || !s->user)
		return smtp_send_once(s, NULL, envelope_from, recipients, n_recipients, data, len,
				      &refused, errstr);
	enum transport_status st = TRANSPORT_OK;
	for (int attempt = 0; attempt < 2; attempt++) {
		char *terr = NULL;
		const char *token = transport_token(&s->token, &s->token_src, refused, &terr);
		if (!token) {
			st = transport_fail(errstr, TRANSPORT_TEMPFAIL, "smtp %s: no OAuth2 token for %s: %s",
					    s->url, s->user, terr ? terr : "");
			free(terr);
			break;
		}
		st = smtp_send_once(s, token, envelope_from, recipients, n_recipients, data, len,
				    &refused, errstr);
		/* A refused token may have expired: once more with a fresh
		 * one; a second refusal is final. */
		if (!refused || attempt == 1)
			break;
		transport_logf(&s->log, TRANSPORT_LOG_INFO,
			       "smtp %s: the OAuth2 token was refused; trying a fresh one", s->url);
		if (errstr) {
			free(*errstr);
			*errstr = NULL;
		}
	}
	/* The next send asks for a new token if this one was refused. */
	if (refused)
		transport_token_clear(&s->token);
	return st;
}

static void smtp_free(void *state)
{
	struct smtp_sink *s = state;
	if (s->curl)
		curl_easy_cleanup(s->curl);
	free(s->url);
	free(s->ca_file);
	free(s->user);
	if (s->password) {
		volatile char *p = s->password;
		while (*p)
			*p++ = '\0';
	}
	free(s->password);
	transport_token_clear(&s->token);
	free(s);
}

static const struct mail_sink_ops smtp_sink_ops = {
	.name = "smtp",
	.send = smtp_send,
	.free = smtp_free,
};

struct mail_sink *transport_smtp_sink_new(const struct smtp_sink_config *cfg)
{
	static bool curl_ready;
	if (!curl_ready) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		curl_ready = true;
	}
	struct smtp_sink *s = xcalloc(1, sizeof(*s));
	s->tls = cfg->tls;
	const char *host = cfg->host ? cfg->host : "localhost";
	unsigned port = cfg->port ? cfg->port : (cfg->tls == TRANSPORT_TLS_IMPLICIT ? 465 : 587);
	bool v6 = strchr(host, ':') != NULL;
	/* The URL's path is the name libcurl gives in EHLO. */
	s->url = xasprintf("%s://%s%s%s:%u/%s", cfg->tls == TRANSPORT_TLS_IMPLICIT ? "smtps" : "smtp",
			   v6 ? "[" : "", host, v6 ? "]" : "", port,
			   cfg->helo_name ? cfg->helo_name : "");
	s->ca_file = cfg->ca_file ? xstrdup(cfg->ca_file) : NULL;
	s->insecure = cfg->insecure;
	s->user = cfg->user ? xstrdup(cfg->user) : NULL;
	s->password = cfg->password ? xstrdup(cfg->password) : NULL;
	s->auth = cfg->auth;
	s->token_src = cfg->token;
	s->connect_timeout = cfg->connect_timeout_seconds ? (long)cfg->connect_timeout_seconds : 30;
	s->timeout = cfg->timeout_seconds ? (long)cfg->timeout_seconds : 120;
	s->log = cfg->log;
	if (s->insecure && s->tls != TRANSPORT_TLS_NONE)
		transport_logf(&s->log, TRANSPORT_LOG_WARNING,
			       "%s: INSECURE: the server's certificate will not be checked "
			       "because insecure is set", s->url);
	if (s->tls == TRANSPORT_TLS_NONE && s->user && strcmp(host, "127.0.0.1") &&
	    strcmp(host, "::1") && strcasecmp(host, "localhost"))
		transport_logf(&s->log, TRANSPORT_LOG_WARNING,
			       "%s: INSECURE: no TLS; the password crosses the network in clear",
			       s->url);
	return mail_sink_new(&smtp_sink_ops, s);
}
