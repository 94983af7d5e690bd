/* Dispatch from the opaque source/sink handles to their ops tables, and the
 * small helpers every transport shares. */
#include "config.h"

#include "mail/transport.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

struct mail_source {
	const struct mail_source_ops *ops;
	void *state;
	bool opened;
};

struct mail_sink {
	const struct mail_sink_ops *ops;
	void *state;
};

const char *transport_status_name(enum transport_status status)
{
	switch (status) {
	case TRANSPORT_OK:
		return "ok";
	case TRANSPORT_TEMPFAIL:
		return "temporary failure";
	case TRANSPORT_PERMFAIL:
		return "permanent failure";
	case TRANSPORT_UIDVALIDITY_CHANGED:
		return "UIDVALIDITY changed";
	case TRANSPORT_BLOCKED:
		return "server unusable for now";
	}
	return "unknown status";
}

bool transport_tls_parse(const char *s, enum transport_tls *tls)
{
	static const struct {
		const char *name;
		enum transport_tls tls;
	} names[] = {
		{"implicit", TRANSPORT_TLS_IMPLICIT},
		{"ssl", TRANSPORT_TLS_IMPLICIT},
		{"tls", TRANSPORT_TLS_IMPLICIT},
		{"starttls", TRANSPORT_TLS_STARTTLS},
		{"starttls-optional", TRANSPORT_TLS_STARTTLS_OPTIONAL},
		{"none", TRANSPORT_TLS_NONE},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(s, names[i].name) == 0) {
			*tls = names[i].tls;
			return true;
		}
	}
	return false;
}

void transport_logf(const struct transport_log *log, enum transport_log_level level,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct strbuf sb = {0};
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	char *msg = strbuf_take(&sb);
	if (log && log->fn)
		log->fn(log->ctx, level, msg);
	else if (level <= TRANSPORT_LOG_WARNING)
		fprintf(stderr, "campaignd: %s%s\n",
			level == TRANSPORT_LOG_WARNING ? "warning: " : "", msg);
	free(msg);
}

static int64_t token_clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void transport_token_clear(struct transport_token_cache *cache)
{
	if (cache->token) {
		volatile char *p = cache->token;
		while (*p)
			*p++ = '\0';
		free(cache->token);
	}
	cache->token = NULL;
	cache->fetched_ms = 0;
}

const char *transport_token(struct transport_token_cache *cache,
			    const struct transport_token_source *src, bool refused,
			    char **errstr)
{
	int64_t now = token_clock_ms();
	int64_t max_age = 1000LL * (src->max_age_seconds ? src->max_age_seconds : 3000);
	if (cache->token && !refused && now - cache->fetched_ms < max_age)
		return cache->token;
	transport_token_clear(cache);
	if (!src->get) {
		*errstr = xstrdup("no OAuth2 token source is configured");
		return NULL;
	}
	cache->fetches++;
	cache->token = src->get(src->ctx, errstr);
	if (!cache->token)
		return NULL;
	cache->fetched_ms = now;
	return cache->token;
}

enum transport_status transport_fail(char **errstr, enum transport_status status,
				     const char *fmt, ...)
{
	if (errstr) {
		va_list ap;
		va_start(ap, fmt);
		struct strbuf sb = {0};
		strbuf_vprintf(&sb, fmt, ap);
		va_end(ap);
		free(*errstr);
		*errstr = strbuf_take(&sb);
	}
	return status;
}

struct mail_source *mail_source_new(const struct mail_source_ops *ops, void *state)
{
	struct mail_source *src = xcalloc(1, sizeof(*src));
	src->ops = ops;
	src->state = state;
	return src;
}

const char *mail_source_name(const struct mail_source *src)
{
	return src->ops->name;
}

enum transport_status mail_source_open(struct mail_source *src, char **errstr)
{
	enum transport_status st = src->ops->open(src->state, errstr);
	if (st == TRANSPORT_OK)
		src->opened = true;
	return st;
}

static enum transport_status source_ensure_open(struct mail_source *src, char **errstr)
{
	if (src->opened)
		return TRANSPORT_OK;
	return mail_source_open(src, errstr);
}

enum transport_status mail_source_fetch_new(struct mail_source *src,
					    uint32_t known_uidvalidity, uint32_t last_uid,
					    transport_message_fn *fn, void *ctx,
					    uint32_t *uidvalidity, char **errstr)
{
	enum transport_status st = source_ensure_open(src, errstr);
	if (st != TRANSPORT_OK)
		return st;
	uint32_t current = 0;
	st = src->ops->fetch_new(src->state, known_uidvalidity, last_uid, fn, ctx,
				 &current, errstr);
	if (uidvalidity)
		*uidvalidity = current;
	return st;
}

enum transport_status mail_source_mark_processed(struct mail_source *src,
						 uint32_t uidvalidity, uint32_t uid,
						 char **errstr)
{
	enum transport_status st = source_ensure_open(src, errstr);
	if (st != TRANSPORT_OK)
		return st;
	return src->ops->mark_processed(src->state, uidvalidity, uid, errstr);
}

enum transport_status mail_source_quarantine(struct mail_source *src, uint32_t uidvalidity,
					     uint32_t uid, char **errstr)
{
	enum transport_status st = source_ensure_open(src, errstr);
	if (st != TRANSPORT_OK)
		return st;
	if (!src->ops->quarantine)
		return src->ops->mark_processed(src->state, uidvalidity, uid, errstr);
	return src->ops->quarantine(src->state, uidvalidity, uid, errstr);
}

enum transport_status mail_source_mark_processed_set(struct mail_source *src,
						     uint32_t uidvalidity, const uint32_t *uids,
						     size_t n, char **errstr)
{
	if (n == 0)
		return TRANSPORT_OK;
	enum transport_status st = source_ensure_open(src, errstr);
	if (st != TRANSPORT_OK)
		return st;
	if (src->ops->mark_processed_set)
		return src->ops->mark_processed_set(src->state, uidvalidity, uids, n, errstr);
	for (size_t i = 0; i < n && st == TRANSPORT_OK; i++)
		st = src->ops->mark_processed(src->state, uidvalidity, uids[i], errstr);
	return st;
}

enum transport_status mail_source_wait(struct mail_source *src, unsigned timeout_ms,
				       int wake_fd, bool *changed, char **errstr)
{
	return mail_source_look(src, timeout_ms, 0, wake_fd, changed, errstr);
}

enum transport_status mail_source_look(struct mail_source *src, unsigned timeout_ms,
				       unsigned interval_ms, int wake_fd, bool *changed,
				       char **errstr)
{
	*changed = false;
	enum transport_status st = source_ensure_open(src, errstr);
	if (st != TRANSPORT_OK)
		return st;
	if (src->ops->look)
		return src->ops->look(src->state, timeout_ms, interval_ms, wake_fd, changed,
				      errstr);
	return src->ops->wait(src->state, timeout_ms, wake_fd, changed, errstr);
}

void mail_source_close(struct mail_source *src)
{
	if (src->opened)
		src->ops->close(src->state);
	src->opened = false;
}

void mail_source_free(struct mail_source *src)
{
	if (!src)
		return;
	mail_source_close(src);
	src->ops->free(src->state);
	free(src);
}

struct mail_sink *mail_sink_new(const struct mail_sink_ops *ops, void *state)
{
	struct mail_sink *sink = xcalloc(1, sizeof(*sink));
	sink->ops = ops;
	sink->state = state;
	return sink;
}

const char *mail_sink_name(const struct mail_sink *sink)
{
	return sink->ops->name;
}

enum transport_status mail_sink_send(struct mail_sink *sink, const char *envelope_from,
				     const char *const *recipients, size_t n_recipients,
				     const char *data, size_t len, char **errstr)
{
	if (n_recipients == 0)
		return transport_fail(errstr, TRANSPORT_PERMFAIL, "no recipients");
	return sink->ops->send(sink->state, envelope_from ? envelope_from : "", recipients,
			       n_recipients, data, len, errstr);
}

void mail_sink_free(struct mail_sink *sink)
{
	if (!sink)
		return;
	sink->ops->free(sink->state);
	free(sink);
}
