#!/bin/bash
# Mail benchmarks of campaignd on the loopback mail stack (Dovecot +
# Postfix). Prints figures; asserts nothing about time.
#   latency  BENCH_LATENCY_MAILS (200) order mails appended one at a time
#            while the daemon waits in IMAP IDLE: APPEND to acknowledgement
#            in the player's INBOX (so Postfix and LMTP delivery, ~35 ms,
#            are included; Dovecot holds IDLE notifications ~0.5 s).
#   backlog  BENCH_BACKLOG (10000) order mails waiting before the daemon
#            starts: time until all are acknowledged, beside the time mbsync
#            (isync) takes to copy the same mails to a local Maildir.
#   arrivals BENCH_ARRIVALS (300) order mails appended at random moments
#            (Poisson, BENCH_ARRIVAL_GAP (0.5) s apart on average) whatever
#            the answers do: APPEND to acknowledgement, as for latency
#            (after one mail of each player, whose password check is then
#            remembered).
#   floor    BENCH_FLOOR (the backlog's size, 10000) mails of a reply's size
#            pushed to the same Postfix alone, over one SMTP session (the
#            submission floor: no daemon can hand its replies over faster).
#   idle     the daemon's CPU time over BENCH_IDLE_SECONDS (60) of IDLE,
#            its resident memory and its heap.
# Usage: bench/mail.sh [latency] [arrivals] [backlog] [floor] [idle]
#        (default: latency arrivals backlog floor idle)
# Exit 77 where the mail stack cannot run.
set -u
NAME=bench
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/reliability/setup.sh"
parts=${*:-latency arrivals backlog floor idle}
next=0
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
sent_count() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
		"SELECT count(*) FROM outbox WHERE status = '"'sent'"'").fetchone()[0])' "$db_dir/campaign.db"
}
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"

for part in $parts; do
case $part in
latency)
	n=${BENCH_LATENCY_MAILS:-200}
	start_daemon
	sleep 1
	echo "== latency: $n mails, one at a time, daemon in IDLE"
	mt latency --first $next --count "$n" --delay 0.3 || fail "latency"
	next=$((next + n))
	stop_daemon
	;;
arrivals)
	n=${BENCH_ARRIVALS:-300}
	start_daemon
	sleep 1
	# one mail of each player first: its password check (Argon2, about
	# 0.1 s on a quiet machine) is paid once, then remembered
	mt latency --first $next --count 4 --delay 0 > /dev/null || fail "warm-up"
	next=$((next + 4))
	echo "== arrivals: $n mails at random moments, ${BENCH_ARRIVAL_GAP:-0.5} s apart on average"
	mt arrivals --first $next --count "$n" --delay "${BENCH_ARRIVAL_GAP:-0.5}" || fail "arrivals"
	next=$((next + n))
	stop_daemon
	;;
floor)
	n=${BENCH_FLOOR:-${BENCH_BACKLOG:-10000}}
	echo "== submission floor: $n mails of a reply's size to Postfix, one SMTP session"
	python3 - "$MAILSTACK_SMTP_PORT" "$n" <<'EOT'
import smtplib, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
body = ("From: campaign@example.test\r\nTo: player1@example.test\r\nSubject: floor\r\n"
        "Message-ID: <floor%d@example.test>\r\n\r\n" + "x" * 70 + "\r\n") * 1
line = "Your orders were read as follows. " * 2 + "\r\n"
t0 = time.monotonic()
with smtplib.SMTP("127.0.0.1", port, timeout=60) as s:
    for i in range(n):
        s.sendmail("campaign@example.test", ["player1@example.test"],
                   (body % i) + line * 40)
ms = (time.monotonic() - t0) * 1000
print("submission floor: %d mails accepted by Postfix in %.0f ms (%.0f mails/s)" % (n, ms, n * 1000 / ms))
EOT
	;;
backlog)
	n=${BENCH_BACKLOG:-10000}
	echo "== backlog: $n mails waiting"
	mt feed --first $next --count "$n" || fail "feeding"
	if command -v mbsync >/dev/null; then
		mkdir -p mbsync-maildir
		cat > mbsyncrc <<EOT
IMAPAccount bench
Host 127.0.0.1
Port $MAILSTACK_IMAP_PORT
User campaign@example.test
Pass campaign-pw
SSLType None
AuthMechs LOGIN

IMAPStore bench-remote
Account bench

MaildirStore bench-local
Path $work/mbsync-maildir/
Inbox $work/mbsync-maildir/INBOX

Channel bench
Far :bench-remote:INBOX
Near :bench-local:INBOX
Sync Pull
Create Near
SyncState *
EOT
		t0=$(now_ms)
		mbsync -q -c mbsyncrc bench || fail "mbsync"
		mbsync_ms=$(( $(now_ms) - t0 ))
		copied=$(ls mbsync-maildir/INBOX/new mbsync-maildir/INBOX/cur 2>/dev/null | grep -c .)
		echo "mbsync: $copied mails copied to a Maildir in $mbsync_ms ms"
	else
		mbsync_ms=
		echo "mbsync: not installed (package isync), no comparison"
	fi
	before=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
		"SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0])' "$db_dir/campaign.db")
	# counted before the start: a fast daemon sends its first replies at once
	sent_before=$(sent_count)
	t0=$(now_ms)
	start_daemon
	while [ "$(sent_count)" -lt $((sent_before + n)) ]; do
		kill -0 "$dpid" 2>/dev/null || { fail "campaignd died"; break; }
		sleep 1
	done
	# the outbox keeps send times in seconds
	first_s=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
		"SELECT min(sent_at) FROM outbox WHERE id > ?", (int(sys.argv[2]),)).fetchone()[0])' \
		"$db_dir/campaign.db" "$before")
	daemon_ms=$(( $(now_ms) - t0 ))
	next=$((next + n))
	echo "campaignd: $n mails read, applied and acknowledged (replies accepted by SMTP) in $daemon_ms ms" \
		"($(awk -v n="$n" -v ms="$daemon_ms" 'BEGIN { printf "%.1f", n * 1000 / ms }') mails/s);" \
		"first reply sent $(( first_s - t0 / 1000 )) s after the start"
	[ -n "$mbsync_ms" ] && [ "$mbsync_ms" -gt 0 ] &&
		echo "ratio campaignd / mbsync: $(awk -v a="$daemon_ms" -v b="$mbsync_ms" 'BEGIN { printf "%.1f", a / b }')"
	stop_daemon
	;;
idle)
	secs=${BENCH_IDLE_SECONDS:-60}
	start_daemon
	sleep 3
	c0=$(cpu_ticks "$dpid")
	sleep "$secs"
	c1=$(cpu_ticks "$dpid")
	echo "== idle: CPU $(awk -v t=$((c1 - c0)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }') s" \
		"over $secs s in IDLE; resident memory (VmRSS) $(rss_kb "$dpid") kB," \
		"of which the daemon's own heap $(awk '/\[heap\]/ { h = 1; next } h && /^Rss:/ { print $2; exit }' \
		"/proc/$dpid/smaps") kB"
	stop_daemon
	;;
*)
	echo "unknown part $part (latency, arrivals, backlog, floor, idle)" >&2
	exit 2
	;;
esac
done
[ "$failures" = 0 ]
