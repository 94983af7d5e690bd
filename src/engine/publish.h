/* The published web diary: a static site written from the campaign
 * database, for readers who do not get the mails (doc/diary.md):
 *   index.html      whose turn it is and until when, standings, the
 *                   current map, the latest year's entries
 *   year-YYYY.html  one page per year: the narrated diary, its battles and
 *                   corrections, and that year's map
 *   map.svg, map-YYYY.svg  the maps on their own
 *   prestige.svg    prestige of every player over the years
 *   feed.xml        an Atom feed, one entry per year, dated by when its
 *                   events and comments were recorded
 *   style.css
 * Pages come from the templates web-index, web-year, web-feed and web-style
 * (the pages share the parent web-layout, whose blocks an organiser can
 * override one by one); event phrasing from diary-event, rendered as plain
 * text and escaped into the pages. Every file is written to a temporary
 * name in DIR and renamed over the old one, so a reader never sees half a
 * page. The dice shown are each year's commitment and, once revealed, its
 * seed; the organiser's commentary comes from the store's comments.
 * Nothing depends on the clock: the same database gives the same files. */
#ifndef CAMPAIGN_PUBLISH_H
#define CAMPAIGN_PUBLISH_H

struct store;
struct templates;

/* Writes the site for the campaign in `s` into folder `dir` (created if
 * missing; files of earlier runs are replaced, others left alone). Reads
 * the database in one snapshot. A broken organiser override of a template
 * is reported through the templates' warning callback and the built-in one
 * used. Returns 0, or -1 with *errstr (allocated; caller frees) naming the
 * file or database that failed. */
int publish_site(struct store *s, const char *dir, struct templates *t, char **errstr);

#endif
