#!/usr/bin/env python3
"""Order mails for the reliability tests and benchmarks, and the checks.

Talks IMAP (plaintext, loopback only) to the test mail stack and reads the
campaign database with sqlite3. Every order mail is a pure function of its
index and the seed, so the checks can recompute what each mail said.

  mailtool.py feed  --first I --count N [--delay S [--jitter]] [--smtp]
      puts order mails I .. I+N-1 into the campaign's INBOX (IMAP APPEND in
      one session, or one SMTP session per mail with --smtp), S seconds
      apart (with --jitter: a seeded random 0 to 2S apart)
  mailtool.py check --count N [--wait S] [--kills K] [--max-dup D]
      waits up to S seconds for every acknowledgement, then prints the
      figures: lost, applied twice, duplicate replies, wrong state; exits 1
      when the target is missed (nothing lost, nothing applied twice, at
      most D duplicate replies, or one per kill when D is not given)
  mailtool.py latency --first I --count N [--delay S]
      appends mails I .. I+N-1 one at a time; for each, measures the time
      until its acknowledgement is in the player's INBOX; prints the median,
      90th and 99th percentiles and the maximum in milliseconds
  mailtool.py arrivals --first I --count N --delay S [--wait W]
      open loop: appends mails I .. I+N-1 at random moments (a Poisson
      process, S seconds apart on average) whatever the answers do, and
      measures each one's time until its acknowledgement is in the player's
      INBOX; prints the same figures
  mailtool.py inbox
      prints how many mails are in the campaign's INBOX and processed folder
  mailtool.py pending [--count N]
      prints how many of mails 0 .. N-1 have no acknowledgement yet

Common options: --imap-port, --smtp-port, --db, --passwords (the output of
campaignctl init), --seed.
"""
import argparse
import email
import email.policy
import imaplib
import random
import re
import smtplib
import sqlite3
import sys
import time

HOST = "127.0.0.1"
CAMPAIGN = ("campaign@example.test", "campaign-pw")
# player key -> (address, own provinces); addresses as the tests rewrite them
PLAYERS = {
    "burgundy": ("player1@example.test", ["Flanders", "Brabant", "Dijon", "Franche-Comté"]),
    "england": ("player2@example.test", ["York", "London", "Kent", "Gascony"]),
    "empire": ("player3@example.test", ["Swabia", "Franconia", "Bavaria", "Austria"]),
    "france": ("player4@example.test", ["Normandy", "Île-de-France", "Orléanais", "Champagne"]),
}
KEYS = sorted(PLAYERS)


def order_of(seed, i):
    """(player key, slot, order line) of mail i. The slot is what the order
    replaces: a later mail for the same slot overrides an earlier one."""
    key = KEYS[i % len(KEYS)]
    rnd = random.Random(seed * 1000003 + i)
    kind = rnd.randrange(3)
    if kind == 0:
        prov = rnd.choice(PLAYERS[key][1] + ["ANY"])
        return key, "if " + prov, "IF INVADED %s %s" % (prov, rnd.choice(["BATTLE", "SIEGE"]))
    if kind == 1:
        return key, "storm", "IN STORM " + rnd.choice(["CONTINUE", "HALT", "RETURN"])
    return key, "allies", "ANSWER ALLIES " + rnd.choice(["YES", "NO"])


def message_id(seed, i):
    return "o%d.s%d@example.test" % (i, seed)


def compose(seed, i, passwords):
    key, _slot, line = order_of(seed, i)
    addr = PLAYERS[key][0]
    text = ("From: %s <%s>\r\nTo: campaign@example.test\r\nSubject: orders %d\r\n"
            "Message-ID: <%s>\r\nDate: Mon, 30 Nov 2026 10:00:00 +0000\r\n"
            "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: 8bit\r\n\r\n"
            "Hello,\r\nPLAYER %s %s\r\n%s\r\n-- \r\n%s\r\n") % (
                key.capitalize(), addr, i, message_id(seed, i), key, passwords[key], line, key)
    return addr, text.encode("utf-8")


def read_passwords(path):
    """The table campaignctl init prints: NATION PLAYER EMAIL PASSWORD."""
    by_addr = {v[0]: k for k, v in PLAYERS.items()}
    out = {}
    with open(path, encoding="utf-8") as f:
        for row in f:
            fields = row.split()
            for field in fields:
                if field in by_addr and fields:
                    out[by_addr[field]] = fields[-1]
    missing = [k for k in KEYS if k not in out]
    if missing:
        sys.exit("mailtool: no password for %s in %s" % (", ".join(missing), path))
    return out


def imap_login(port, user, password, tries=50):
    for attempt in range(tries):
        try:
            m = imaplib.IMAP4(HOST, port)
            m.login(user, password)
            return m
        except (OSError, imaplib.IMAP4.error):
            if attempt == tries - 1:
                raise
            time.sleep(0.2)
    return None


def cmd_feed(a):
    passwords = read_passwords(a.passwords)
    if a.smtp:
        for i in range(a.first, a.first + a.count):
            addr, raw = compose(a.seed, i, passwords)
            with smtplib.SMTP(HOST, a.smtp_port, timeout=30) as s:
                s.sendmail(addr, ["campaign@example.test"], raw)
            if a.delay:
                time.sleep(a.delay)
        return 0
    m = imap_login(a.imap_port, *CAMPAIGN)
    pace = random.Random(a.seed)
    for i in range(a.first, a.first + a.count):
        _addr, raw = compose(a.seed, i, passwords)
        typ, data = m.append("INBOX", None, None, raw)
        if typ != "OK":
            sys.exit("mailtool: APPEND %d: %s" % (i, data))
        if a.delay:
            # seeded jitter: bursts and lulls around the mean delay
            time.sleep(pace.uniform(0, 2 * a.delay) if a.jitter else a.delay)
    m.logout()
    return 0


def folder_count(m, folder):
    typ, data = m.select('"%s"' % folder, readonly=True)
    return int(data[0]) if typ == "OK" else 0


def cmd_inbox(a):
    m = imap_login(a.imap_port, *CAMPAIGN)
    print("INBOX %d processed %d" % (folder_count(m, "INBOX"), folder_count(m, "processed")))
    m.logout()
    return 0


IRT = re.compile(rb"^In-Reply-To:\s*<([^>]*)>", re.I | re.M)


def player_replies(port, addr, with_body):
    """[(in-reply-to, message)] of every mail in the player's INBOX."""
    m = imap_login(port, addr, addr.split("@")[0] + "-pw")
    out = []
    typ, data = m.select("INBOX", readonly=True)
    if typ == "OK" and int(data[0]) > 0:
        what = "(BODY.PEEK[])" if with_body else "(BODY.PEEK[HEADER.FIELDS (IN-REPLY-TO)])"
        typ, data = m.fetch("1:*", what)
        for item in data:
            if not isinstance(item, tuple):
                continue
            raw = item[1]
            found = IRT.search(raw)
            msg = email.message_from_bytes(raw, policy=email.policy.default) if with_body else None
            out.append((found.group(1).decode() if found else None, msg))
    m.logout()
    return out


def ack_counts(port, wanted):
    counts = {}
    for addr in sorted({PLAYERS[k][0] for k in KEYS}):
        for irt, _msg in player_replies(port, addr, False):
            if irt in wanted:
                counts[irt] = counts.get(irt, 0) + 1
    return counts


def cmd_pending(a):
    wanted = {message_id(a.seed, i) for i in range(a.count)}
    counts = ack_counts(a.imap_port, wanted)
    print(len(wanted) - len(counts))
    return 0


def cmd_latency(a):
    passwords = read_passwords(a.passwords)
    feeder = imap_login(a.imap_port, *CAMPAIGN)
    watchers = {}
    for key in KEYS:
        addr = PLAYERS[key][0]
        watchers[key] = imap_login(a.imap_port, addr, addr.split("@")[0] + "-pw")
        watchers[key].select("INBOX", readonly=True)
    times = []
    for i in range(a.first, a.first + a.count):
        key = order_of(a.seed, i)[0]
        _addr, raw = compose(a.seed, i, passwords)
        criterion = '(HEADER In-Reply-To "%s")' % message_id(a.seed, i)
        t0 = time.monotonic()
        typ, data = feeder.append("INBOX", None, None, raw)
        if typ != "OK":
            sys.exit("mailtool: APPEND %d: %s" % (i, data))
        while True:
            w = watchers[key]
            w.noop()
            typ, data = w.search(None, criterion)
            if typ == "OK" and data[0].split():
                break
            if time.monotonic() - t0 > 60:
                sys.exit("mailtool: no acknowledgement of mail %d after 60 s" % i)
            time.sleep(0.01)
        times.append((time.monotonic() - t0) * 1000)
        time.sleep(a.delay)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print("latency over %d mails (ms): median %.0f, p90 %.0f, p99 %.0f, max %.0f, min %.0f"
          % (len(times), pick(0.5), pick(0.9), pick(0.99), times[-1], times[0]))
    return 0


def cmd_arrivals(a):
    """Open loop: mails appended at independent (Poisson) moments, --delay
    seconds apart on average, whatever the answers do; for each, the time
    from its APPEND until its acknowledgement is seen in the player's INBOX
    (watched every 10 ms)."""
    passwords = read_passwords(a.passwords)
    feeder = imap_login(a.imap_port, *CAMPAIGN)
    watchers, last_uid = {}, {}
    for key in KEYS:
        addr = PLAYERS[key][0]
        w = imap_login(a.imap_port, addr, addr.split("@")[0] + "-pw")
        w.select("INBOX", readonly=True)
        typ, data = w.uid("SEARCH", None, "ALL")
        uids = [int(u) for u in data[0].split()] if typ == "OK" and data[0] else []
        watchers[key], last_uid[key] = w, max(uids) if uids else 0
    pace = random.Random(a.seed * 7919)
    sent_at, times = {}, []
    todo = list(range(a.first, a.first + a.count))
    next_send = time.monotonic()
    deadline = None
    while todo or sent_at:
        now = time.monotonic()
        while todo and now >= next_send:
            i = todo.pop(0)
            _addr, raw = compose(a.seed, i, passwords)
            sent_at["<%s>" % message_id(a.seed, i)] = time.monotonic()
            typ, data = feeder.append("INBOX", None, None, raw)
            if typ != "OK":
                sys.exit("mailtool: APPEND %d: %s" % (i, data))
            next_send += pace.expovariate(1.0 / a.delay)
            now = time.monotonic()
        for key, w in watchers.items():
            w.noop()
            typ, data = w.uid("SEARCH", None, "UID %d:*" % (last_uid[key] + 1))
            if typ != "OK" or not data[0]:
                continue
            for u in sorted(int(x) for x in data[0].split()):
                if u <= last_uid[key]:
                    continue
                last_uid[key] = u
                typ, got = w.uid("FETCH", str(u), "(BODY.PEEK[HEADER.FIELDS (IN-REPLY-TO)])")
                seen = time.monotonic()
                for part in got:
                    if isinstance(part, tuple):
                        irt = part[1].decode("ascii", "replace").split(":", 1)[-1].strip()
                        if irt in sent_at:
                            times.append((seen - sent_at.pop(irt)) * 1000)
        if not todo:
            deadline = deadline or time.monotonic() + a.wait
            if time.monotonic() > deadline:
                sys.exit("mailtool: %d mails not acknowledged after %.0f s" % (len(sent_at), a.wait))
        time.sleep(0.01)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print("latency over %d mails arriving at random (Poisson, mean gap %.2f s) (ms):"
          " median %.0f, p90 %.0f, p99 %.0f, max %.0f, min %.0f"
          % (len(times), a.delay, pick(0.5), pick(0.9), pick(0.99), times[-1], times[0]))
    return 0


def body_text(msg):
    part = msg.get_body(preferencelist=("plain",)) if msg.is_multipart() else msg
    text = part.get_content() if part is not None else ""
    return text.replace("\r\n", "\n")


def cmd_check(a):
    passwords = read_passwords(a.passwords)
    del passwords
    mails = {message_id(a.seed, i): order_of(a.seed, i) for i in range(a.count)}
    deadline = time.time() + a.wait
    while True:
        counts = ack_counts(a.imap_port, mails)
        if len(counts) == len(mails) or time.time() >= deadline:
            break
        time.sleep(0.5)

    db = sqlite3.connect(a.db)
    inbound = {}
    for mid, status in db.execute("SELECT message_id, status FROM inbound"):
        mid = (mid or "").strip("<>")
        inbound.setdefault(mid, []).append(status)
    queued = {}
    for (raw,) in db.execute("SELECT raw FROM outbox"):
        found = IRT.search(bytes(raw))
        if found:
            irt = found.group(1).decode()
            queued[irt] = queued.get(irt, 0) + 1
    stored = {}
    for key, text in db.execute(
            "SELECT p.key, o.text FROM orders o JOIN players p ON p.id = o.player"):
        stored[key.lower()] = sorted(l.strip() for l in text.splitlines() if l.strip())
    db.close()

    not_recorded = [m for m in mails if m not in inbound]
    not_accepted = [m for m in mails if m in inbound and inbound[m] != ["accepted"]]
    twice = [m for m in mails if len(inbound.get(m, [])) > 1 or queued.get(m, 0) > 1]
    unqueued = [m for m in mails if m in inbound and queued.get(m, 0) == 0]

    # The acknowledgements as delivered: one per mail, echoing its line.
    delivered = {}
    for addr in sorted({PLAYERS[k][0] for k in KEYS}):
        for irt, msg in player_replies(a.imap_port, addr, True):
            if irt in mails:
                delivered.setdefault(irt, []).append(msg)
    unacked = [m for m in mails if m not in delivered]
    dup_replies = sum(len(v) - 1 for v in delivered.values())
    wrong_ack = []
    for mid, msgs in delivered.items():
        key, _slot, line = mails[mid]
        if msgs[0]["To"] is None or PLAYERS[key][0] not in str(msgs[0]["To"]):
            wrong_ack.append(mid)
        elif not re.search(r"^\s*\d+: %s$" % re.escape(line), body_text(msgs[0]), re.M):
            wrong_ack.append(mid)

    # The pending orders: for each slot, the line of the last mail naming it.
    expect = {k: {} for k in KEYS}
    for i in range(a.count):
        key, slot, line = order_of(a.seed, i)
        expect[key][slot] = line
    wrong_state = [k for k in KEYS if sorted(expect[k].values()) != stored.get(k, [])
                   and any(order_of(a.seed, i)[0] == k for i in range(a.count))]

    limit = a.max_dup if a.max_dup is not None else a.kills
    print("mails sent:                  %d" % len(mails))
    if a.kills:
        print("daemon killed:               %d times" % a.kills)
    print("lost (never recorded):       %d" % len(not_recorded))
    print("recorded but not accepted:   %d" % len(not_accepted))
    print("recorded without a reply:    %d" % len(unqueued))
    print("never acknowledged:          %d" % len(unacked))
    print("applied twice:               %d" % len(twice))
    print("duplicate replies:           %d (allowed: %d)" % (dup_replies, limit))
    print("acks not echoing the order:  %d" % len(wrong_ack))
    print("players whose stored orders differ from the last mails: %d" % len(wrong_state))
    for name, items in (("lost", not_recorded), ("not accepted", not_accepted),
                        ("unacknowledged", unacked), ("applied twice", twice),
                        ("wrong acknowledgement", wrong_ack)):
        if items:
            print("  %s: %s%s" % (name, " ".join(sorted(items)[:10]),
                                   " ..." if len(items) > 10 else ""))
    for k in wrong_state:
        print("  %s: expected %s, stored %s" % (k, sorted(expect[k].values()), stored.get(k)))
    ok = not (not_recorded or not_accepted or unqueued or unacked or twice or wrong_ack
              or wrong_state) and dup_replies <= limit
    print("RESULT: %s" % ("target met" if ok else "TARGET MISSED"))
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["feed", "check", "inbox", "pending", "latency",
                                       "arrivals"])
    p.add_argument("--imap-port", type=int, default=10143)
    p.add_argument("--smtp-port", type=int, default=10025)
    p.add_argument("--db", default="campaign.db")
    p.add_argument("--passwords", default="passwords.txt")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--jitter", action="store_true")
    p.add_argument("--smtp", action="store_true")
    p.add_argument("--wait", type=float, default=60.0)
    p.add_argument("--kills", type=int, default=0)
    p.add_argument("--max-dup", type=int, default=None)
    a = p.parse_args()
    return {"feed": cmd_feed, "check": cmd_check, "inbox": cmd_inbox,
            "pending": cmd_pending, "latency": cmd_latency,
            "arrivals": cmd_arrivals}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
