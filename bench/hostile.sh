#!/bin/bash
# Growth under hostile mail: BENCH_HOSTILE (10000) mails that try to make
# the database grow, on the embedded default (a Maildir in, a folder out),
# processed by one campaignd --once. Prints the time taken, the database's
# size and its rows, then the same after keep-mail-days (30) have passed and
# the daemon pruned. Asserts nothing. Needs python3.
#   deep      1,000 nested message/rfc822 parts from a player's address
#   subject   a 20 KB Subject, no orders, from a stranger
#   ids       mangled Message-ID and References, from a player, no password
#   longid    a 20 KB Message-ID, from a stranger
#   bounce    a delivery report (Return-Path <>)
#   lines     3,000 junk lines after a PLAYER line with a wrong password
#             (one mail in 50: each costs a password check)
#   forged    a player's From with no PLAYER line
# Usage: bench/hostile.sh   (from the build directory; exit 77 without python3)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$PWD}"
command -v python3 > /dev/null || { echo "no python3: skipped"; exit 77; }
n=${BENCH_HOSTILE:-10000}
work=$top_builddir/bench-hostile.work
export CAMPAIGND_TEMPLATES=$top_srcdir/templates
rm -rf "$work" && mkdir -p "$work/inbox/new" "$work/inbox/cur" "$work/inbox/tmp" && cd "$work" || exit 1
"$top_builddir/campaignctl" init "$top_srcdir/contrib/examples/europe1450.campaign" \
	-d campaign.db > passwords.txt || exit 1
cat > campaignd.conf <<EOT
database         = campaign.db
campaign-address = campaign@example.org
maildir          = inbox
outbox           = outbox
EOT
python3 - "$n" <<'EOT'
import sys
n = int(sys.argv[1])
players = ["pieter@example.org", "thomas.ashdown@example.net", "konrad@example.net"]
def write(i, headers, body):
    with open("inbox/new/%010d.M%d.bench" % (i, i), "wb") as f:
        f.write(headers.encode() + b"\r\n" + body)
for i in range(n):
    kind = i % 7
    p = players[i % len(players)]
    h = "Date: Mon, 30 Nov 2026 10:00:00 +0000\r\nTo: campaign@example.org\r\n"
    if kind == 0:
        write(i, h + "From: %s\r\nSubject: deep\r\nMessage-ID: <h%d@x.example>\r\n" % (p, i),
              b"Content-Type: message/rfc822\r\n\r\n" * 1000 + b"STATUS\r\n")
    elif kind == 1:
        write(i, h + "From: s%d@stranger.example\r\nSubject: %s\r\nMessage-ID: <h%d@x.example>\r\n"
              % (i, "S" * 20000, i), b"hello\r\n")
    elif kind == 2:
        write(i, h + "From: %s\r\nSubject: ids\r\nMessage-ID: <a<h%d@x.example>\r\n"
              "References: <r@x>,<b<c@x> <caf\xe9@x>\r\n" % (p, i), b"STATUS\r\n")
    elif kind == 3:
        write(i, h + "From: s%d@stranger.example\r\nSubject: id\r\nMessage-ID: <%s%d@x.example>\r\n"
              % (i, "I" * 20000, i), b"hello\r\n")
    elif kind == 4:
        write(i, h + "From: MAILER-DAEMON@x.example\r\nReturn-Path: <>\r\nSubject: failure\r\n"
              "Message-ID: <h%d@x.example>\r\n" % i, b"delivery failed\r\n" * 100)
    elif kind == 5:
        pw = "WRONG" if i % 50 == 5 else ""
        first = b"PLAYER burgundy %s\r\n" % pw.encode() if pw else b"hello\r\n"
        write(i, h + "From: %s\r\nSubject: lines\r\nMessage-ID: <h%d@x.example>\r\n" % (p, i),
              first + b"xx\r\n" * 3000)
    else:
        write(i, h + "From: %s\r\nSubject: forged\r\nMessage-ID: <h%d@x.example>\r\n" % (p, i),
              b"INVADE Flanders\r\n")
EOT
size() { stat -c %s campaign.db; }
rows() {
	python3 -c 'import sqlite3; c = sqlite3.connect("campaign.db"); print(", ".join(
		"%s %d" % (t, c.execute("SELECT count(*) FROM " + t).fetchone()[0])
		for t in ("inbound", "outbox", "kv")))'
}
echo "machine: $(nproc) cores; $n hostile mails, $(du -sm inbox | cut -f1) MB in the Maildir"
echo "database before: $(size) bytes"
now=$(date +%s)
t0=$(date +%s%N)
"$top_builddir/campaignd" -c campaignd.conf --once --now "$now" 2> once.log
rc=$?
t1=$(date +%s%N)
echo "campaignd --once: exit $rc, $(( (t1 - t0) / 1000000 )) ms, $(ls inbox/.processed/new | wc -l) mails processed, $(ls outbox | wc -l) replies"
echo "database after:  $(size) bytes ($(( $(size) / n )) bytes a mail); rows: $(rows)"
later=$((now + 31 * 86400))
"$top_builddir/campaignd" -c campaignd.conf --once --now "$later" --max-gap 99999999 2> later.log
echo "31 days later:   $(size) bytes (free pages reused, the file does not shrink); rows: $(rows)"
grep -h 'pruned' later.log
# the logs are kept when campaignd failed, for a look
if [ "$rc" = 0 ]; then cd / && rm -rf "$work"; else echo "campaignd failed: logs kept in $work (once.log, later.log)"; fi
