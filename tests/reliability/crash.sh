#!/bin/bash
# Crash safety on the real mail stack: order mails from the four players of
# the example campaign arrive while campaignd is killed with SIGKILL at
# random moments and restarted each time. At the end: no order lost (every
# mail recorded and acknowledged), none applied twice, the stored orders
# those of the last mail for each slot, and at most one duplicate reply per
# kill (a reply the SMTP server took just before the kill is sent again).
#
# Usage: crash.sh [MAILS [KILLS [SEED]]]   (defaults 1000, 50, the time)
# Environment: CRASH_MAILS, CRASH_KILLS, SEED do the same. The seed is
# printed: run again with it to replay the same mails and kill times.
# Exit 0 target met, 1 missed, 77 skipped (no mail stack here).
set -u
NAME=crash
MAILS=${1:-${CRASH_MAILS:-1000}}
KILLS=${2:-${CRASH_KILLS:-50}}
SEED=${3:-${SEED:-$(date +%s)}}
. "$(dirname "$0")/setup.sh"
echo "crash test: $MAILS mails, $KILLS kills, seed $SEED (replay: $0 $MAILS $KILLS $SEED)"
RANDOM=$SEED

# Mails come in at about FEED_RATE a second (seeded jitter), a little
# slower than the daemon handles them (each mail checks a password with
# Argon2), so it sometimes catches up and sends replies: kills land in
# logins, in batches of mails and in the outbox. The daemon is killed at
# random moments spread over the feeding time, at least KILLS times.
FEED_RATE=${FEED_RATE:-4}
feed_ms=$(( MAILS * 1000 / FEED_RATE ))
max_delay=$(( 2 * feed_ms / KILLS ))
[ $max_delay -lt 200 ] && max_delay=200
mt feed --first 0 --count "$MAILS" --delay "$(awk -v r="$FEED_RATE" 'BEGIN { print 1 / r }')" \
	--jitter > feed.log 2>&1 &
feeder=$!
extra_cleanup='kill $feeder 2>/dev/null'

kills=0
while [ $kills -lt "$KILLS" ] || kill -0 $feeder 2>/dev/null; do
	start_daemon
	delay=$(( 20 + (RANDOM * 32768 + RANDOM) % max_delay ))
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -KILL "$dpid" 2>/dev/null && kills=$((kills + 1))
	wait "$dpid" 2>/dev/null
	dpid=
done
wait $feeder || fail "feeding the mails (see $work/feed.log)"
extra_cleanup=
echo "killed $kills times in $SECONDS s; now letting it finish"

start_daemon
mt check --count "$MAILS" --kills "$kills" --wait $((60 + MAILS / 5)) || fail "the target was missed"
stop_daemon || fail "campaignd did not stop cleanly after SIGTERM"
[ "$(inbox_count)" = 0 ] && pass "the INBOX was emptied" || fail "$(inbox_count) mails left in INBOX"
echo "$failures failure(s) [$SECONDS s]"
[ "$failures" = 0 ]
