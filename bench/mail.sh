#!/bin/bash
# Mail benchmarks of campaignd on the loopback mail stack (Dovecot +
# Postfix). Prints figures; asserts nothing about time.
#   latency  BENCH_LATENCY_MAILS (200) order mails appended one at a time
#            while the daemon waits (IDLE, or NOOPs in its quick look after
#            a mail, campaignd.conf(5)): APPEND to acknowledgement
#            in the player's INBOX (so Postfix and LMTP delivery, ~35 ms,
#            are included; Dovecot holds IDLE notifications ~0.5 s),
#            after the first mail of each player, timed apart (its
#            password check, then remembered).
#   backlog  BENCH_BACKLOG (10000; several sizes may be given, "2000 10000")
#            order mails waiting before the daemon starts: time until all
#            are acknowledged, beside the time mbsync (isync) takes to copy
#            the same mails to a local Maildir, BENCH_RUNS (1) times each
#            (the median is printed when there are several runs). With
#            each run, the CPU time of the daemon, of Postfix's and of
#            Dovecot's processes (bench/cputree.py, from /proc), for
#            mbsync's run too (counted until Postfix delivered every
#            reply); with BENCH_PERF=1, `perf record` (DWARF call graphs)
#            on the daemon and its samples by phase (the data is kept in
#            the build directory, perf-SIZE-RUN.data).
#   arrivals BENCH_ARRIVALS (300) order mails appended at random moments
#            (Poisson, BENCH_ARRIVAL_GAP (0.5) s apart on average) whatever
#            the answers do: APPEND to acknowledgement, as for latency
#            (after one mail of each player, whose password check is then
#            remembered).
#   BENCH_QUICK_LOOK: values of imap-quick-look (campaignd.conf(5)) to
#            run latency and arrivals with, one run each ("0 20": off,
#            then on); unset: the default.
#   floor    BENCH_FLOOR (the first backlog size, 10000) mails of a reply's
#            size pushed to the same Postfix alone, over one SMTP session
#            and over BENCH_SMTP_CONNECTIONS (3, the daemon's default) at
#            once (the submission floor: the daemon hands its replies over
#            no faster), with the CPU time of Postfix and Dovecot taking
#            and delivering them.
#   idle     the daemon's CPU time over BENCH_IDLE_SECONDS (60) of IDLE,
#            its resident memory and its heap.
#   rules    instructions (callgrind) of campaignctl simulate over the
#            two-year scenario of the tests: the rules, the year's steps
#            and the mails composed, without any I/O wait.
# Every figure is printed with the load average of the machine (1 min) at
# its start and end: on a shared machine the times mean little without it.
# Usage: bench/mail.sh [latency] [arrivals] [backlog] [floor] [idle] [rules]
#        (default: latency arrivals backlog floor idle rules)
# Exit 77 where the mail stack cannot run.
set -u
NAME=bench
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
. "$top_srcdir/tests/reliability/setup.sh"
parts=${*:-latency arrivals backlog floor idle rules}
# the daemon's smtp-connections: its default (3) unless set
sessions=${BENCH_SMTP_CONNECTIONS:-3}
[ -n "${BENCH_SMTP_CONNECTIONS:-}" ] && echo "smtp-connections = $sessions" >> campaignd.conf
next=0
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
sent_count() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
		"SELECT count(*) FROM outbox WHERE status = '"'sent'"'").fetchone()[0])' "$db_dir/campaign.db"
}
load() { cut -d' ' -f1 /proc/loadavg; }
# CPU snapshots of the daemon (pid $1, or none), Postfix and Dovecot
cpu_snap() {
	python3 "$top_srcdir/bench/cputree.py" snap "$2" daemon="${1:--}" \
		postfix="$(tr -d ' \n' < "$MS/spool/postfix/pid/master.pid" 2>/dev/null)" \
		dovecot="$(cat "$MS/run/dovecot/master.pid" 2>/dev/null)"
}
cpu_diff() { python3 "$top_srcdir/bench/cputree.py" diff "$@"; }
# Waits (at most 120 s) until Postfix's queue is empty: every reply it took
# delivered to Dovecot, so that their CPU time is all counted.
queue_drained() {
	local i
	for i in $(seq 240); do
		[ -z "$(find "$MS/spool/postfix/incoming" "$MS/spool/postfix/active" \
			"$MS/spool/postfix/maildrop" -type f 2>/dev/null | head -1)" ] && return 0
		sleep 0.5
	done
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# The daemon's samples by phase: the share of the samples (children
# included) under each of its main functions, from perf report.
perf_phases() {
	echo "perf: the daemon's samples (with callees) by phase, of $(perf report -i "$1" --stdio \
		--no-children 2>/dev/null | awk '/^# Samples:/ { print $3; exit }') samples;" \
		"libsodium's own (the Argon2 password checks, four in all):" \
		"$(perf report -i "$1" --stdio --no-children --sort dso 2>/dev/null |
			awk '/libsodium/ { print $1; exit }')"
	perf report -i "$1" --stdio --children --sort sym -g none 2>/dev/null |
		grep -E '\] (engine_process_mail|engine_batch_commit|engine_tick|flush_outbox|'\
'mail_source_fetch_new|mail_source_mark_processed_set|do_moves|on_message|sink_pool_[a-z_]*|'\
'crypto_pwhash_argon2id_str_verify|store_check_password|templates_render|mail_compose|sqlite3_step|sqlite3_prepare_v2|'\
'fdatasync|fsync|curl_easy_perform|mailimap_[a-z_]*fetch|malloc|free)$' | head -30
}
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"

# latency and arrivals once per value of BENCH_QUICK_LOOK
quick_look() {
	sed -i '/^imap-quick-look /d' campaignd.conf
	[ "$1" = - ] || echo "imap-quick-look = $1" >> campaignd.conf
	[ "$1" = - ] || echo "(imap-quick-look = $1)"
}
qls=${BENCH_QUICK_LOOK:--}
first_ql=${qls%% *}
for part in $parts; do
for ql in $qls; do
case $part in latency | arrivals) ;; *) [ "$ql" = "$first_ql" ] || continue ;; esac
quick_look "$ql"
case $part in
latency)
	n=${BENCH_LATENCY_MAILS:-200}
	start_daemon
	sleep 1
	# the first mail of each player pays its password check (Argon2, about
	# 0.1 s on a quiet machine, seconds under load), then it is remembered:
	# timed on its own, so that the figures below are those of every later
	# mail (four cold mails in 200 would be the 99th percentile)
	echo "== latency: the first mail of each player (its password checked) (load $(load))"
	mt latency --first $next --count 4 --delay 0.3 || fail "latency warm-up"
	next=$((next + 4))
	echo "== latency: $n mails, one at a time, the daemon waiting (load $(load))"
	mt latency --first $next --count "$n" --delay 0.3 || fail "latency"
	echo "(load at the end $(load))"
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
	echo "(load $(load))"
	mt arrivals --first $next --count "$n" --delay "${BENCH_ARRIVAL_GAP:-0.5}" || fail "arrivals"
	echo "(load at the end $(load))"
	next=$((next + n))
	stop_daemon
	;;
floor)
	n=${BENCH_FLOOR:-$(echo ${BENCH_BACKLOG:-10000} | awk '{ print $1 }')}
	for k in 1 $sessions; do
	echo "== submission floor: $n mails of a reply's size to Postfix, $k SMTP session(s) at once (load $(load))"
	cpu_snap "" cpu-floor0.json
	python3 - "$MAILSTACK_SMTP_PORT" "$n" "$k" <<'EOT'
import smtplib, sys, threading, time
port, n, k = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
body = ("From: campaign@example.test\r\nTo: player1@example.test\r\nSubject: floor\r\n"
        "Message-ID: <floor%d@example.test>\r\n\r\n" + "x" * 70 + "\r\n") * 1
line = "Your orders were read as follows. " * 2 + "\r\n"
def push(first):
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as s:
        for i in range(first, n, k):
            s.sendmail("campaign@example.test", ["player1@example.test"],
                       (body % i) + line * 40)
t0 = time.monotonic()
threads = [threading.Thread(target=push, args=(j,)) for j in range(k)]
for t in threads:
    t.start()
for t in threads:
    t.join()
ms = (time.monotonic() - t0) * 1000
print("submission floor: %d mails accepted by Postfix in %.0f ms (%.0f mails/s) over %d session(s)"
      % (n, ms, n * 1000 / ms, k))
EOT
	queue_drained
	cpu_snap "" cpu-floor1.json
	cpu_diff cpu-floor0.json cpu-floor1.json "$n" | grep -v '^  daemon'
	echo "(load at the end $(load))"
	done
	;;
backlog)
	runs=${BENCH_RUNS:-1}
	for n in ${BENCH_BACKLOG:-10000}; do
	all_daemon= all_mbsync=
	for run in $(seq "$runs"); do
		echo "== backlog: $n mails waiting, run $run of $runs (load $(load))"
		rm -rf mbsync-maildir
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
			# the snapshots (a scan of /proc) stay out of the timed part
			cpu_snap "" cpu-mbsync0.json
			t0=$(now_ms)
			{ time -p mbsync -q -c mbsyncrc bench; } 2> mbsync.time || fail "mbsync"
			mbsync_ms=$(( $(now_ms) - t0 ))
			mbsync_cpu=$(awk '/^(user|sys) / { t += $2 } END { printf "%.2f", t }' mbsync.time)
			cpu_snap "" cpu-mbsync1.json
			copied=$(ls mbsync-maildir/INBOX/new mbsync-maildir/INBOX/cur 2>/dev/null | grep -c .)
			echo "mbsync: $copied mails copied to a Maildir in $mbsync_ms ms"
			cpu_diff cpu-mbsync0.json cpu-mbsync1.json "$n" | grep -v '^  daemon'
			echo "  mbsync   $mbsync_cpu s CPU"
		else
			mbsync_ms=
			echo "mbsync: not installed (package isync), no comparison"
		fi
		before=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
			"SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0])' "$db_dir/campaign.db")
		# counted before the start: a fast daemon sends its first replies at once
		sent_before=$(sent_count)
		cpu_snap "" cpu-daemon0.json
		t0=$(now_ms)
		start_daemon
		perf_pid=
		if [ "${BENCH_PERF:-0}" = 1 ]; then
			perf record -q -F 250 --call-graph dwarf,16384 -p "$dpid" -o "$top_builddir/perf-$n-$run.data" 2> perf.err &
			perf_pid=$!
		fi
		died=
		while [ "$(sent_count)" -lt $((sent_before + n)) ]; do
			if ! kill -0 "$dpid" 2>/dev/null; then
				died=0
				wait "$dpid" || died=$?
				dpid=
				break
			fi
			sleep 1
		done
		if [ -n "$died" ]; then
			# no figures from a run cut short: say what it did, and stop
			# this part (the mails it left stay in the mailbox)
			fail "campaignd died (exit status $died) after $(( $(sent_count) - sent_before )) of $n replies, $(( $(now_ms) - t0 )) ms after its start; the end of $work/daemon.log:"
			tail -n 5 daemon.log | sed 's/^/  /'
			[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null && wait "$perf_pid"
			break 2
		fi
		daemon_ms=$(( $(now_ms) - t0 ))
		queue_drained
		cpu_snap "$dpid" cpu-daemon1.json
		# the outbox keeps send times in seconds
		first_s=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
			"SELECT min(sent_at) FROM outbox WHERE id > ?", (int(sys.argv[2]),)).fetchone()[0])' \
			"$db_dir/campaign.db" "$before")
		next=$((next + n))
		echo "campaignd: $n mails read, applied and acknowledged (replies accepted by SMTP) in $daemon_ms ms" \
			"($(awk -v n="$n" -v ms="$daemon_ms" 'BEGIN { printf "%.1f", n * 1000 / ms }') mails/s);" \
			"first reply sent $(( first_s - t0 / 1000 )) s after the start"
		[ -n "$mbsync_ms" ] && [ "$mbsync_ms" -gt 0 ] &&
			echo "ratio campaignd / mbsync: $(awk -v a="$daemon_ms" -v b="$mbsync_ms" 'BEGIN { printf "%.1f", a / b }')"
		cpu_diff cpu-daemon0.json cpu-daemon1.json "$n"
		if [ -n "$perf_pid" ]; then
			kill -INT "$perf_pid" && wait "$perf_pid"
			perf_phases "$top_builddir/perf-$n-$run.data"
		fi
		echo "(load at the end $(load))"
		all_daemon="$all_daemon $daemon_ms"
		all_mbsync="$all_mbsync ${mbsync_ms:-0}"
		stop_daemon
	done
	if [ "$runs" -gt 1 ]; then
		dm=$(echo $all_daemon | median) mm=$(echo $all_mbsync | median)
		echo "backlog $n, median of $runs runs: campaignd $dm ms ($all_daemon ), mbsync $mm ms ($all_mbsync ), ratio of the medians $(awk -v a="$dm" -v b="$mm" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')"
	fi
	done
	;;
idle)
	secs=${BENCH_IDLE_SECONDS:-60}
	start_daemon
	sleep 3
	c0=$(cpu_ticks "$dpid")
	sleep "$secs"
	c1=$(cpu_ticks "$dpid")
	echo "== idle (load $(load)): CPU $(awk -v t=$((c1 - c0)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }') s" \
		"over $secs s in IDLE; resident memory (VmRSS) $(rss_kb "$dpid") kB," \
		"of which the daemon's own heap $(awk '/\[heap\]/ { h = 1; next } h && /^Rss:/ { print $2; exit }' \
		"/proc/$dpid/smaps") kB"
	stop_daemon
	;;
rules)
	if command -v valgrind >/dev/null; then
		scenario=$top_srcdir/tests/data/scenarios/two-years.scenario
		valgrind --tool=callgrind --callgrind-out-file=rules.callgrind "$ctl" simulate "$scenario" \
			> rules.out 2> rules.err || fail "campaignctl simulate under callgrind (see $work/rules.err)"
		ir=$(awk '/^summary:/ { print $2 }' rules.callgrind)
		echo "== rules: campaignctl simulate of the two-year scenario: $ir instructions" \
			"($(awk -v i="$ir" 'BEGIN { printf "%.1f", i / 2e6 }') million a year; callgrind, load $(load))"
	else
		echo "== rules: valgrind is not installed, no instruction count"
	fi
	;;
*)
	echo "unknown part $part (latency, arrivals, backlog, floor, idle, rules)" >&2
	exit 2
	;;
esac
done
done
[ "$failures" = 0 ]
