#include "config.h"

#include "engine/publish.h"
#include "model/campaign_json.h"
#include "dbm/diary.h"
#include "dbm/year.h"
#include "text/map_svg.h"
#include "store/store.h"
#include "text/templates.h"
#include "base/timefmt.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How many of the latest year's entries the front page shows. */
#define PUBLISH_LATEST_ENTRIES 12

struct site {
	struct store *store;
	const char *dir;
	struct templates *t;
	struct campaign *c;  /* the campaign as it stands */
	json_t *events;      /* every event, oldest first */
	json_t *years;       /* [int]: the years that have events, oldest first */
	json_t *nav;         /* [{"year", "href"}] newest first, for every page */
	char *err;
	bool own_transaction; /* publish_site began the read transaction */
	int64_t feed_updated; /* the latest time of any year in the feed */
	int64_t undated;      /* the time given to years recorded without one */
};

/* Writes `len` bytes to dir/name through a temporary file and a rename.
 * The temporary file is created exclusively, never through a symbolic link
 * (O_EXCL, O_NOFOLLOW), under an unpredictable name in the same folder, so
 * no one who can write to the folder can make us write elsewhere; and it is
 * made world-readable whatever the umask: a web server reads the site. */
static int write_atomic(struct site *s, const char *name, const char *data, size_t len)
{
	char *path = xasprintf("%s/%s", s->dir, name);
	char *tmp = NULL;
	int rc = -1, fd = -1;
	for (int attempt = 0; fd < 0 && attempt < 20; attempt++) {
		free(tmp);
		tmp = xasprintf("%s/.%s.%08" PRIx32 ".tmp", s->dir, name, randombytes_random());
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		s->err = xasprintf("%s: %s", tmp, strerror(errno));
		goto done;
	}
	bool failed = fchmod(fd, 0644) != 0;
	for (size_t done = 0; !failed && done < len;) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		failed = n <= 0;
		done += n > 0 ? (size_t)n : 0;
	}
	failed = failed || fsync(fd) != 0;
	int saved = errno;
	if (close(fd) != 0 && !failed) {
		failed = true;
		saved = errno;
	}
	if (failed) {
		s->err = xasprintf("%s: %s", tmp, strerror(saved ? saved : EIO));
		unlink(tmp);
		goto done;
	}
	if (rename(tmp, path) != 0) {
		s->err = xasprintf("%s: %s", path, strerror(errno));
		unlink(tmp);
		goto done;
	}
	rc = 0;
done:
	free(path);
	free(tmp);
	return rc;
}

static int render_to(struct site *s, const char *template_name, const json_t *data,
		     const char *file)
{
	char *err = NULL;
	char *out = templates_render(s->t, template_name, data, &err);
	if (!out) {
		s->err = xasprintf("%s: %s", file, err ? err : "cannot render");
		free(err);
		return -1;
	}
	int rc = write_atomic(s, file, out, strlen(out));
	free(out);
	return rc;
}

/* The map without its XML declaration, to put inside an HTML page. */
static json_t *inline_svg(const char *svg)
{
	const char *p = svg;
	if (strncmp(p, "<?xml", 5) == 0) {
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	return json_string(p);
}

/* Sets "text" on each event of a list: the diary-event phrasing as plain
 * text, which the page templates escape. */
static int add_texts(struct site *s, json_t *list)
{
	size_t i;
	json_t *ev;
	json_array_foreach(list, i, ev) {
		char *err = NULL;
		char *text = templates_render(s->t, "diary-event", ev, &err);
		if (!text) {
			s->err = xasprintf("diary-event: %s", err ? err : "cannot render");
			free(err);
			return -1;
		}
		str_trim(text);
		json_t *j = json_string(text);
		free(text);
		json_object_set_new(ev, "text", j ? j : json_string(""));
	}
	return 0;
}

static int add_all_texts(struct site *s, json_t *diary)
{
	static const char *const lists[] = {"foreword", "prelude", "recruitment", "ending",
					    "afterword", NULL};
	for (size_t i = 0; lists[i]; i++)
		if (add_texts(s, json_object_get(diary, lists[i])) != 0)
			return -1;
	size_t k;
	json_t *turn;
	json_array_foreach(json_object_get(diary, "turns"), k, turn)
		if (add_texts(s, json_object_get(turn, "events")) != 0)
			return -1;
	return 0;
}

static json_t *year_events(const json_t *all, int year)
{
	json_t *list = json_array();
	size_t i;
	json_t *ev;
	json_array_foreach((json_t *)all, i, ev)
		if (json_integer_value(json_object_get(ev, "year")) == year)
			json_array_append(list, ev);
	return list;
}

/* The dice of `year` for the diary: the commitment, and the seed once it
 * has been revealed. */
static json_t *dice_for_year(struct site *s, int year)
{
	struct store_dice_year dy;
	json_t *d = json_object();
	if (store_dice_year_get(s->store, year, &dy, NULL) != STORE_OK)
		return d;
	json_t *j = json_string(dy.commitment);
	if (j)
		json_object_set_new(d, "commitment", j);
	j = dy.revealed ? json_string(dy.seed_hex) : NULL;
	if (j)
		json_object_set_new(d, "seed", j);
	return d;
}

static json_t *comments_for_year(struct site *s, int year)
{
	json_t *comments = NULL;
	if (store_comments(s->store, year, &comments, NULL) != STORE_OK)
		return NULL;
	return comments;
}

/* The diary data of one year (diary_year_json) as campaign c tells it,
 * with the year's events, the organiser's comments and the dice. */
static json_t *year_diary(struct site *s, const struct campaign *c, int year)
{
	json_t *evs = year_events(s->events, year);
	json_t *comments = comments_for_year(s, year);
	json_t *dice = dice_for_year(s, year);
	json_t *data = diary_year_json(c, evs, year, comments, dice);
	json_decref(evs);
	json_decref(comments);
	json_decref(dice);
	return data;
}

/* The year's state as the store holds it; false (and `st` initialised)
 * when there is none yet or it cannot be read. Free with year_state_free. */
static bool read_year_state(struct site *s, struct year_state *st)
{
	char *text = NULL, *err = NULL;
	json_t *doc = NULL;
	if (store_year_state_get(s->store, &text, &err) == STORE_OK && text)
		doc = json_loads(text, 0, NULL);
	free(text);
	free(err);
	err = NULL;
	bool read = false;
	if (doc)
		read = year_state_from_json(st, doc, s->c, &err) == 0; /* initialises st */
	else
		year_state_init(st);
	free(err);
	json_decref(doc);
	return read;
}

/* The year under way: its turns still to come are not quiet turns, and its
 * map is not yet the one at its end. Marks each turn of data's "turns"
 * "to_come" or "playing_now" (the turn being played, nothing written in it
 * yet), and data "year_under_way"; returns whether the year is under way. */
static bool mark_year_under_way(struct site *s, json_t *data, int year)
{
	struct year_state st;
	bool read = read_year_state(s, &st);
	bool under_way = read && year == s->c->year && st.step != YEAR_IDLE &&
			 st.step != YEAR_ENDED;
	bool campaigning = st.step == YEAR_TURN || st.step == YEAR_DECISION ||
			   st.step == YEAR_BATTLE;
	size_t k;
	json_t *turn;
	json_array_foreach(under_way && campaigning ? json_object_get(data, "turns") : NULL, k,
			   turn) {
		const char *key = json_string_value(
			json_object_get(json_object_get(turn, "player"), "key"));
		size_t at = st.sequence_len;
		for (size_t i = 0; i < st.sequence_len && key; i++)
			if (st.sequence[i] >= 0 && (size_t)st.sequence[i] < s->c->player_count &&
			    strcmp(s->c->players[st.sequence[i]].key, key) == 0)
				at = i;
		bool empty = json_array_size(json_object_get(turn, "events")) == 0;
		if (at == st.sequence_len || at < st.turn || !empty)
			continue;
		json_object_set_new(turn, "quiet", json_false());
		json_object_set_new(turn, at == st.turn ? "playing_now" : "to_come", json_true());
	}
	json_object_set_new(data, "year_under_way", json_boolean(under_way));
	year_state_free(&st);
	return under_way;
}

/* The diary of `year` with the campaign as it stood at its end, its map,
 * and the fields every page has. *map_out gets the map (caller frees). */
static json_t *year_page_data(struct site *s, int year, char **map_out)
{
	json_t *doc = campaign_to_json(s->c);
	char *err = NULL;
	struct campaign *then = campaign_from_json(doc, &err);
	json_decref(doc);
	if (!then) {
		s->err = xasprintf("cannot copy the campaign: %s", err ? err : "?");
		free(err);
		return NULL;
	}
	bool rewound = diary_rewind(then, s->events, year);
	json_t *data = year_diary(s, then, year);

	/* The year's battles with each side's losses, and the organiser's
	 * corrections, marked as such. */
	json_t *battles = diary_battles(s->c, s->events, year);
	json_object_set_new(data, "has_battle_table", json_boolean(json_array_size(battles) > 0));
	json_object_set_new(data, "battle_table", battles);
	json_t *corrections = diary_corrections(s->c, s->events, year);
	json_object_set_new(data, "has_corrections",
			    json_boolean(json_array_size(corrections) > 0));
	json_object_set_new(data, "corrections", corrections);

	struct map_svg_options mo;
	map_svg_options_default(&mo);
	/* Troops of an earlier year are not in the events: no AP badges. */
	mo.show_armies = !rewound;
	bool under_way = mark_year_under_way(s, data, year);
	char *title = xasprintf(under_way ? "%s, %d so far" : "%s, end of %d",
				s->c->name ? s->c->name : "Campaign", year);
	mo.title = title;
	json_t *marks = diary_map_marks(s->c, s->events, year);
	mo.marks = marks;
	char *map = map_svg(then, &mo);
	json_decref(marks);
	free(title);
	json_object_set_new(data, "map_svg", inline_svg(map));
	json_object_set_new(data, "armies_shown", json_boolean(!rewound));
	*map_out = map;
	campaign_free(then);
	json_object_set(data, "years", s->nav);
	return data;
}

static void year_name(char *buf, size_t n, const char *prefix, int year, const char *ext)
{
	snprintf(buf, n, "%s%d%s", prefix, year, ext);
}

/* Links to the year before and after, for the year pages. */
static void set_neighbours(struct site *s, json_t *data, size_t index)
{
	char name[64];
	if (index > 0) {
		int y = (int)json_integer_value(json_array_get(s->years, index - 1));
		year_name(name, sizeof name, "year-", y, ".html");
		json_object_set_new(data, "previous", json_pack("{s:i, s:s}", "year", y, "href", name));
	}
	if (index + 1 < json_array_size(s->years)) {
		int y = (int)json_integer_value(json_array_get(s->years, index + 1));
		year_name(name, sizeof name, "year-", y, ".html");
		json_object_set_new(data, "next", json_pack("{s:i, s:s}", "year", y, "href", name));
	}
}

/* An RFC 3339 time (UTC) for the Atom feed. */
static json_t *atom_time(int64_t t)
{
	time_t tt = (time_t)(t > 0 ? t : 0);
	struct tm tm;
	char buf[32];
	if (!gmtime_r(&tt, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, sizeof buf, "1970-01-01T00:00:00Z");
	return json_string(buf);
}

/* A stable id for the feed: the campaign's name as a URN part. */
static char *campaign_slug(const char *name)
{
	struct strbuf sb = {0};
	for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p; p++) {
		if (('a' <= *p && *p <= 'z') || ('0' <= *p && *p <= '9'))
			strbuf_putc(&sb, (char)*p);
		else if ('A' <= *p && *p <= 'Z')
			strbuf_putc(&sb, (char)(*p - 'A' + 'a'));
		else if (sb.len && sb.data[sb.len - 1] != '-')
			strbuf_putc(&sb, '-');
	}
	while (sb.len && sb.data[sb.len - 1] == '-')
		sb.data[--sb.len] = '\0';
	if (!sb.len)
		strbuf_puts(&sb, "campaign");
	return strbuf_take(&sb);
}

static int publish_years(struct site *s, json_t *entries)
{
	size_t n = json_array_size(s->years);
	char *slug = campaign_slug(s->c->name);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		int year = (int)json_integer_value(json_array_get(s->years, i));
		char *map = NULL;
		json_t *data = year_page_data(s, year, &map);
		if (!data) {
			rc = -1;
			break;
		}
		char page[64], svg[64];
		year_name(page, sizeof page, "year-", year, ".html");
		year_name(svg, sizeof svg, "map-", year, ".svg");
		json_object_set_new(data, "map_href", json_string(svg));
		set_neighbours(s, data, i);

		/* The feed entry carries the plain-text diary. */
		char *err = NULL;
		char *text = templates_render(s->t, "diary", data, &err);
		if (!text) {
			s->err = xasprintf("diary: %s", err ? err : "cannot render");
			free(err);
			rc = -1;
		}
		/* The entry's times are when the year was written: its first and
		 * latest event or comment, as the store recorded them. */
		int64_t first = 0, last = 0;
		if (rc == 0 && store_year_times(s->store, year, &first, &last, &s->err) != STORE_OK)
			rc = -1;
		if (rc == 0) {
			if (!last)
				first = last = s->undated; /* recorded before times were kept */
			if (last > s->feed_updated)
				s->feed_updated = last;
			char *id = xasprintf("urn:campaignd:%s:year:%d", slug, year);
			json_t *content = json_string(text);
			json_array_insert_new(
				entries, 0,
				json_pack("{s:i, s:s, s:o, s:o, s:s, s:o}", "year", year, "id", id,
					  "published", atom_time(first), "updated", atom_time(last),
					  "href", page, "content",
					  content ? content : json_string("")));
			free(id);
		}
		free(text);
		if (rc == 0)
			rc = add_all_texts(s, data);
		if (rc == 0)
			rc = write_atomic(s, svg, map, strlen(map));
		if (rc == 0)
			rc = render_to(s, "web-year", data, page);
		free(map);
		json_decref(data);
	}
	free(slug);
	return rc;
}

/* The latest narrated entries of a diary, newest last. */
static json_t *latest_entries(const json_t *diary)
{
	json_t *all = json_array();
	static const char *const lists[] = {"foreword", "prelude", NULL};
	for (size_t i = 0; lists[i]; i++)
		json_array_extend(all, json_object_get(diary, lists[i]));
	size_t k;
	json_t *turn;
	json_array_foreach(json_object_get(diary, "turns"), k, turn)
		json_array_extend(all, json_object_get(turn, "events"));
	json_array_extend(all, json_object_get(diary, "recruitment"));
	json_array_extend(all, json_object_get(diary, "ending"));
	json_array_extend(all, json_object_get(diary, "afterword"));
	size_t n = json_array_size(all);
	json_t *latest = json_array();
	for (size_t i = n > PUBLISH_LATEST_ENTRIES ? n - PUBLISH_LATEST_ENTRIES : 0; i < n; i++)
		json_array_append(latest, json_array_get(all, i));
	json_decref(all);
	return latest;
}

/* Where the campaign stands, for the front page: {"started", "ended",
 * "waiting" (what the current step waits for), "nation" and "colour" (whose
 * turn it is, in a turn), "until" (the deadline in the campaign's time
 * zone), "paused"}. */
static json_t *standing_now(struct site *s)
{
	json_t *now = json_object();
	struct year_state st;
	bool read = read_year_state(s, &st);
	if (!read || st.step == YEAR_IDLE) {
		json_object_set_new(now, "started", json_false());
	} else if (st.step == YEAR_ENDED) {
		json_object_set_new(now, "started", json_true());
		json_object_set_new(now, "ended", json_true());
	} else {
		json_object_set_new(now, "started", json_true());
		char *what = year_step_describe(&st, s->c);
		json_object_set_new(now, "waiting", json_string(what));
		free(what);
		if (st.step == YEAR_TURN && st.turn < st.sequence_len) {
			json_t *ref = diary_player_ref(s->c, st.sequence[st.turn]);
			json_object_set(now, "nation", json_object_get(ref, "nation"));
			json_object_set(now, "colour", json_object_get(ref, "colour"));
			json_decref(ref);
		}
		if (st.paused) {
			json_object_set_new(now, "paused", json_true());
		} else if (st.deadline > 0) {
			char when[96];
			json_object_set_new(now, "until",
					    json_string(timefmt_local(st.deadline, s->c->timezone,
								      when, sizeof when)));
		}
	}
	year_state_free(&st);
	return now;
}

/* The front page's latest entries: those of `data` (the diary of `year`),
 * else of the latest earlier year that has some, so that a year just begun
 * shows how the one before ended. Sets data's "latest", "latest_year",
 * "latest_href" and "latest_earlier" (not the year of `data`). */
static int front_latest(struct site *s, json_t *data, int year)
{
	json_t *latest = latest_entries(data);
	int from = year, rc = 0;
	for (size_t i = json_array_size(s->years); rc == 0 && !json_array_size(latest) && i-- > 0;) {
		int y = (int)json_integer_value(json_array_get(s->years, i));
		if (y >= year)
			continue;
		json_t *d = year_diary(s, s->c, y);
		rc = add_all_texts(s, d);
		json_decref(latest);
		latest = latest_entries(d);
		from = y;
		json_decref(d);
	}
	char page[64];
	year_name(page, sizeof page, "year-", from, ".html");
	json_object_set_new(data, "latest_href", json_string(page));
	json_object_set_new(data, "latest_year", json_integer(from));
	json_object_set_new(data, "latest_earlier", json_boolean(from != year));
	json_object_set_new(data, "latest", latest);
	return rc;
}

/* Prestige over the years, drawn: for the front page and prestige.svg.
 * Caller frees. */
static char *prestige_chart(struct site *s)
{
	json_t *history = diary_prestige_history(s->c, s->events);
	char *title = xasprintf("Prestige in %s", s->c->name ? s->c->name : "the campaign");
	char *svg = map_svg_prestige_chart(history, title);
	free(title);
	json_decref(history);
	return svg;
}

static int publish_index(struct site *s)
{
	int year = json_array_size(s->years)
			   ? (int)json_integer_value(json_array_get(s->years, json_array_size(s->years) - 1))
			   : s->c->year;
	json_t *data = year_diary(s, s->c, year);
	int rc = add_all_texts(s, data);
	if (rc == 0)
		rc = front_latest(s, data, year);
	json_object_set_new(data, "current_year", json_integer(s->c->year));
	json_object_set_new(data, "phase", json_string(campaign_phase_name(s->c->phase)));
	json_object_set_new(data, "now", standing_now(s));
	json_object_set(data, "years", s->nav);
	json_object_set_new(data, "has_years", json_boolean(json_array_size(s->years) > 0));

	struct map_svg_options mo;
	map_svg_options_default(&mo);
	json_t *marks = diary_map_marks(s->c, s->events, s->c->year);
	mo.marks = marks;
	char *map = map_svg(s->c, &mo);
	json_decref(marks);
	json_object_set_new(data, "map_svg", inline_svg(map));
	json_object_set_new(data, "map_href", json_string("map.svg"));
	char *chart = prestige_chart(s);
	json_object_set_new(data, "prestige_svg", inline_svg(chart));
	free(chart);
	if (rc == 0)
		rc = write_atomic(s, "map.svg", map, strlen(map));
	free(map);
	if (rc == 0)
		rc = render_to(s, "web-index", data, "index.html");
	json_decref(data);
	return rc;
}

static int publish_chart(struct site *s)
{
	char *svg = prestige_chart(s);
	int rc = write_atomic(s, "prestige.svg", svg, strlen(svg));
	free(svg);
	return rc;
}

/* Text for the Atom feed: XML 1.0 allows no control characters but tab
 * and the line ends, and a player's or organiser's text may hold some; the
 * C1 controls and U+FFFE/U+FFFF go too. s is valid UTF-8. Caller frees. */
static char *feed_text(const char *s)
{
	struct strbuf sb = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7F)
			continue;
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
			p++;
			continue;
		}
		if (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) {
			p += 2;
			continue;
		}
		strbuf_putc(&sb, (char)*p);
	}
	return sb.data ? strbuf_take(&sb) : xstrdup("");
}

/* Every string of a JSON value, made feed_text, in place. */
static void feed_clean(json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach(v, key, item) {
			if (json_is_string(item)) {
				char *clean = feed_text(json_string_value(item));
				json_object_set_new(v, key, json_string(clean));
				free(clean);
			} else {
				feed_clean(item);
			}
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item) {
			if (json_is_string(item)) {
				char *clean = feed_text(json_string_value(item));
				json_array_set_new(v, i, json_string(clean));
				free(clean);
			} else {
				feed_clean(item);
			}
		}
	}
}

static int publish_feed(struct site *s, json_t *entries)
{
	char *slug = campaign_slug(s->c->name);
	char *id = xasprintf("urn:campaignd:%s", slug);
	json_t *data = json_pack("{s:s?, s:s?, s:s, s:o, s:O}", "campaign", s->c->name, "organiser",
				 s->c->organiser_name, "id", id, "updated",
				 atom_time(s->feed_updated), "entries", entries);
	int rc = -1;
	if (!data) {
		s->err = xasprintf("feed.xml: the campaign's name or organiser is not UTF-8");
	} else {
		feed_clean(data);
		rc = render_to(s, "web-feed", data, "feed.xml");
	}
	json_decref(data);
	free(id);
	free(slug);
	return rc;
}

/* Reads the campaign and its events; the dice and comments are read later
 * in the same snapshot. Inside the caller's transaction (the daemon after
 * a turn) that transaction is the snapshot. */
static int load(struct site *s)
{
	int status = STORE_OK;
	if (!store_in_transaction(s->store)) {
		status = store_begin_read(s->store, &s->err);
		s->own_transaction = status == STORE_OK;
	}
	if (status == STORE_OK)
		status = store_load_campaign(s->store, &s->c, &s->err);
	if (status == STORE_OK)
		status = store_events(s->store, STORE_ALL_YEARS, &s->events, &s->err);
	if (status == STORE_OK) {
		size_t i;
		json_t *ev;
		s->years = json_array();
		int last = 0;
		json_array_foreach(s->events, i, ev) {
			int y = (int)json_integer_value(json_object_get(ev, "year"));
			if (y != last) {
				bool seen = false;
				size_t k;
				json_t *v;
				json_array_foreach(s->years, k, v)
					seen = seen || json_integer_value(v) == y;
				if (!seen)
					json_array_append_new(s->years, json_integer(y));
				last = y;
			}
		}
	}
	return status;
}

static int cmp_json_int(const void *a, const void *b)
{
	json_int_t x = json_integer_value(*(json_t *const *)a),
		   y = json_integer_value(*(json_t *const *)b);
	return x < y ? -1 : x > y;
}

/* The maps refer to the campaign's background image by name: the
 * organiser copies it into the site folder. Until it is there the maps do
 * without it rather than show a broken image. A URL is kept as it is. */
static void hide_missing_background(struct site *s)
{
	const char *bg = s->c->background;
	if (!bg || !*bg || strstr(bg, "://"))
		return;
	char *path = xasprintf("%s/%s", s->dir, bg);
	if (access(path, R_OK) != 0) {
		free(s->c->background);
		s->c->background = NULL;
	}
	free(path);
}

int publish_site(struct store *store, const char *dir, struct templates *t, char **errstr)
{
	struct site s = {.store = store, .dir = dir, .t = t};
	int rc = -1;
	json_t *entries = json_array();
	if (mkdir(dir, 0755) == 0) {
		chmod(dir, 0755); /* readable by the web server whatever the umask */
	} else if (errno != EEXIST) {
		s.err = xasprintf("%s: %s", dir, strerror(errno));
		goto done;
	}
	if (load(&s) != STORE_OK)
		goto done;
	hide_missing_background(&s);
	/* Years in order even if the log was written out of order. */
	size_t n = json_array_size(s.years);
	json_t **ys = xcalloc(n + 1, sizeof *ys);
	for (size_t i = 0; i < n; i++)
		ys[i] = json_incref(json_array_get(s.years, i));
	qsort(ys, n, sizeof *ys, cmp_json_int);
	json_array_clear(s.years);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(s.years, ys[i]);
	free(ys);
	s.nav = json_array();
	for (size_t i = n; i-- > 0;) {
		int y = (int)json_integer_value(json_array_get(s.years, i));
		char page[64];
		year_name(page, sizeof page, "year-", y, ".html");
		json_array_append_new(s.nav, json_pack("{s:i, s:s}", "year", y, "href", page));
	}

	/* Years recorded before events had times: dated like the earliest
	 * year that has one (the feed needs a date, not a made-up one). */
	for (size_t i = 0; i < n; i++) {
		int64_t first = 0, last = 0;
		int y = (int)json_integer_value(json_array_get(s.years, i));
		if (store_year_times(store, y, &first, &last, NULL) == STORE_OK && first &&
		    (!s.undated || first < s.undated))
			s.undated = first;
	}
	if (publish_years(&s, entries) == 0 && publish_index(&s) == 0 && publish_chart(&s) == 0 &&
	    publish_feed(&s, entries) == 0 && render_to(&s, "web-style", NULL, "style.css") == 0)
		rc = 0;
done:
	if (s.own_transaction)
		store_rollback(store);
	if (rc != 0 && errstr)
		*errstr = s.err ? s.err : xstrdup("cannot publish");
	else
		free(s.err);
	json_decref(entries);
	json_decref(s.events);
	json_decref(s.years);
	json_decref(s.nav);
	campaign_free(s.c);
	return rc;
}
