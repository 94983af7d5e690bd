/* Private to the engine (engine.c, engine_year*.c, outbox.c): the engine's insides
 * and the one way mail is queued, so the year's mail goes out exactly like
 * the acknowledgements. Not a contract for anyone else. */
#ifndef CAMPAIGN_ENGINE_P_H
#define CAMPAIGN_ENGINE_P_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/engine.h"
#include "mail/mail_compose.h"
#include "dbm/orders.h"
#include "base/util.h"

struct engine {
	struct store *store;
	struct templates *templates;
	char *campaign_address;
	char *from_name;
	char *mailbox;
	char *domain;
	struct mail_read_limits limits;
	int rate_limit_per_hour;
	char *publish_dir;   /* NULL: no web diary */
	bool publish_due;    /* a committed step ended a turn or a year */
};

struct reply {
	const char *to_addr;
	const char *to_name;
	const char *subject;
	const char *template_name;
	json_t *data;
	const struct mail_info *in_reply_to; /* NULL for mail that answers none */
	const char *token;                   /* unique: the Message-ID is made of it */
	enum mail_auto_submitted auto_submitted;
	const struct mail_attachment *attachments; /* may be NULL */
	size_t n_attachments;
	/* NULL, or a template rendered with `data` (plus "text_body": the text
	 * part as rendered, and "text_lines": it line by line) as the mail's
	 * HTML alternative; a failure to render it leaves the text alone. */
	const char *html_template;
};

/* Renders and queues one mail; *body_out (if not NULL) gets the rendered
 * text. Returns 0, or -1 with *errstr on a database, template or compose
 * error. Inside the caller's transaction. */
int engine_queue_mail(struct engine *e, const struct reply *r, const char *campaign_name,
		      int64_t now, char **body_out, char **errstr);

/* After a player's orders were stored (inside the mail's transaction):
 * battle result lines go to the battle waiting for them, and the year moves
 * on with the new orders. *note (allocated, or NULL) is a sentence for the
 * acknowledgement (e.g. why a report was refused). Returns 0, or -1 with
 * *errstr on a database error. */
int engine_year_after_orders(struct engine *e, int player, const struct order_set *set,
			     int64_t now, char **note, char **errstr);

/* The organiser orders of an authenticated ORGANISER mail (inside its
 * transaction): each is carried out in turn; *report (allocated) says what
 * was done or refused, for the answer to the organiser. Returns 0, or -1
 * with *errstr on a database error. */
int engine_year_organiser_mail(struct engine *e, const struct order_set *set, int64_t now,
			       char **report, char **errstr);

#endif
