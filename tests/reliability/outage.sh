#!/bin/bash
# Outages on the real mail stack, with campaignd running all along:
#   1. Dovecot (IMAP) stops for a while; order mails sent by SMTP meanwhile
#      wait in Postfix's queue. The daemon backs off, reconnects, and every
#      order is acknowledged.
#   2. (long form only) Postfix (SMTP) stops for a while; the daemon keeps
#      reading mail, its replies wait in the outbox (retried after 1 min,
#      2, 4 ...) and all go out once Postfix is back.
#   3. The disk holding the database fills up (a small tmpfs; skipped with a
#      message where mounting is not permitted): SQLite cannot write, the
#      mail stays in the INBOX untouched, and when space returns the daemon
#      recovers by itself and answers everything.
# Usage: outage.sh [short|long]   (default long; make check runs short)
# Exit 0 passed, 1 failed, 77 skipped (no mail stack here).
set -u
FORM=${1:-long}
case $FORM in
short) OUTAGE=3; PER_PHASE=6 ;;
long) OUTAGE=20; PER_PHASE=25 ;;
*) echo "usage: $0 [short|long]" >&2; exit 2 ;;
esac
NAME=outage-$FORM
: "${top_builddir:=$PWD}"

# The database goes on a small tmpfs when we may mount one (root, and a
# kernel and container that allow it).
disk=$top_builddir/tests/$NAME.disk
mounted=no
mkdir -p "$disk"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=24m,mode=0755 tmpfs "$disk" 2>/dev/null; then
	mounted=yes
	db_dir=$disk
fi
. "$(dirname "$0")/setup.sh"
extra_cleanup='[ $mounted = yes ] && umount "$disk"; rmdir "$disk" 2>/dev/null'
echo "outage test ($FORM): outages of $OUTAGE s, $PER_PHASE mails per phase"

dovecot_conf=$MS/etc/dovecot.conf
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() { # port up|down: up to 10 s
	for _ in $(seq 100); do
		if port_open "$1"; then [ "$2" = up ] && return 0; else [ "$2" = down ] && return 0; fi
		sleep 0.1
	done
	return 1
}
# Dovecot's imap processes outlive their master (an IDLE session would go
# on as if nothing happened): end its whole process group, as a server
# going down drops its clients.
dovecot_stop() {
	local master
	master=$(cat "$MS/run/dovecot/master.pid") || return 1
	kill -TERM "$master" && wait_port "$MAILSTACK_IMAP_PORT" down || return 1
	sleep 0.5
	kill -KILL -- "-$master" 2>/dev/null
	return 0
}
dovecot_start() {
	PATH=$PATH:/usr/sbin dovecot -c "$dovecot_conf" </dev/null >>"$MS/log/dovecot.out" 2>&1 &&
		wait_port "$MAILSTACK_IMAP_PORT" up
}
postfix_ctl() { PATH=$PATH:/usr/sbin postfix -c "$MS/etc/postfix" "$1" </dev/null >>"$MS/log/postfix.out" 2>&1; }
reconnects() { grep -c 'logged in as campaign@example.test' daemon.log; }

start_daemon
next=0 # the index of the next order mail

# 1. Dovecot goes away.
mt feed --first $next --count $PER_PHASE --delay 0.05 || fail "feeding"
next=$((next + PER_PHASE))
wait_all_acked $next 60 || fail "the first mails were not answered"
logins=$(reconnects)
dovecot_stop || fail "Dovecot did not stop"
sleep 1
mt feed --smtp --first $next --count $PER_PHASE || fail "sending by SMTP during the IMAP outage"
next=$((next + PER_PHASE))
sleep "$OUTAGE"
kill -0 "$dpid" 2>/dev/null && pass "campaignd kept running through a ${OUTAGE} s IMAP outage" ||
	fail "campaignd died during the IMAP outage"
dovecot_start || fail "Dovecot did not start again"
t0=$SECONDS
if wait_all_acked $next $((60 + OUTAGE * 2)); then
	pass "after the IMAP outage every order was answered ($((SECONDS - t0)) s after Dovecot returned)"
else
	fail "orders unanswered after the IMAP outage"
fi
[ "$(reconnects)" -gt "$logins" ] && pass "campaignd logged in again" || fail "no new IMAP login"
grep -q 'retrying in' daemon.log && pass "campaignd backed off: $(grep -o 'retrying in [0-9]* s' daemon.log |
	tr '\n' ' ')" || fail "no backoff in the log"

# 2. Postfix goes away (long form: the outbox waits at least a minute).
if [ "$FORM" = long ]; then
	postfix_ctl stop || fail "postfix stop"
	wait_port "$MAILSTACK_SMTP_PORT" down || fail "Postfix did not stop"
	mt feed --first $next --count $PER_PHASE --delay 0.05 || fail "feeding"
	next=$((next + PER_PHASE))
	sleep "$OUTAGE"
	[ "$(inbox_count)" = 0 ] && pass "mail was read while SMTP was down" ||
		fail "$(inbox_count) mails still in INBOX during the SMTP outage"
	grep -q 'outbox: 0 sent' daemon.log && pass "the replies were kept for later" ||
		fail "no failed send in the log"
	postfix_ctl start || fail "postfix start"
	t0=$SECONDS
	if wait_all_acked $next 200; then
		pass "after the SMTP outage every order was answered ($((SECONDS - t0)) s after Postfix returned)"
	else
		fail "orders unanswered after the SMTP outage"
	fi
fi

# 3. The disk fills up.
if [ $mounted = no ]; then
	echo "SKIP (part 3): cannot mount a tmpfs here (needs root and permission to mount)"
else
	# An empty write-ahead log, then no free block: the next transaction
	# cannot be written anywhere.
	python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' \
		"$db_dir/campaign.db" || fail "checkpoint"
	dd if=/dev/zero of="$disk/filler" bs=64k 2>/dev/null
	cat /dev/zero >"$disk/filler2" 2>/dev/null
	echo "disk: $(df -k "$disk" | awk 'NR == 2 { print $4 }') kB free"
	# The first write to fail is a mail's or the year step's: either logs a
	# database error and is retried.
	db_errors() { grep -E 'will retry|disk is full' daemon.log; }
	errors_before=$(db_errors | wc -l)
	mt feed --first $next --count 5 || fail "feeding"
	first_full=$next
	next=$((next + 5))
	sleep 5
	[ "$(inbox_count)" = 5 ] && pass "disk full: the 5 mails stay in the INBOX" ||
		fail "disk full: INBOX holds $(inbox_count) mails, not 5"
	[ "$(db_errors | wc -l)" -gt "$errors_before" ] &&
		pass "disk full: $(db_errors | tail -1 | sed 's/^.*\] //')" ||
		fail "disk full: no database error in the log"
	kill -0 "$dpid" 2>/dev/null && pass "campaignd kept running on a full disk" ||
		fail "campaignd died on a full disk"
	rm -f "$disk/filler" "$disk/filler2"
	t0=$SECONDS
	if wait_all_acked $next 60; then
		pass "space back: mails $first_full..$((next - 1)) answered $((SECONDS - t0)) s later"
	else
		fail "space back: orders unanswered"
	fi
fi

# Nothing lost, nothing twice, across all of it.
mt check --count $next --max-dup 0 --wait 10 || fail "the final count"
stop_daemon || fail "campaignd did not stop cleanly after SIGTERM"
echo "$failures failure(s) [$SECONDS s]"
[ "$failures" = 0 ]
