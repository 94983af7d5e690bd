# Sourced (bash) by the reliability tests and the benchmarks after they set
# NAME (a short name for their state directories). Starts the loopback mail
# stack (tests/mailstack), makes the example campaign with the players at
# player1..4@example.test in $work/campaign.db, writes $work/campaignd.conf,
# and defines helpers. Exits 77 (skipped) where the stack cannot run.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$PWD}"
ctl=$top_builddir/campaignctl
daemon=$top_builddir/campaignd
tool=$top_srcdir/tests/reliability/mailtool.py
work=$top_builddir/tests/$NAME.work
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
[ -x "$daemon" ] && [ -x "$ctl" ] || { echo "FAIL: build campaignd and campaignctl first"; exit 1; }

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $* [$SECONDS s]"; }

. "$top_srcdir/tests/mailstack/common.sh"
MS=$(mailstack_dir "$NAME")
mailstack_up "$MS"
dpid=
# Runs on exit: stops the daemon and the stack; keeps the state for a look
# after a failure. Tests may set extra_cleanup to a command run once the
# daemon is gone.
reliability_cleanup() {
	[ -n "$dpid" ] && kill -KILL "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	[ -n "${extra_cleanup:-}" ] && eval "$extra_cleanup"
	"$top_srcdir/tests/mailstack/stop.sh" "$MS"
	if [ "$failures" = 0 ]; then
		rm -rf "$work" "$MS"
	else
		echo "state kept in $work and $MS"
	fi
}
trap reliability_cleanup EXIT
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
export CAMPAIGND_TEMPLATES=$top_srcdir/templates

sed -e 's/organiser@example.org>/organiser@example.test>/' \
	-e 's/^email *= *organiser@example.org/email  = player4@example.test/' \
	-e 's/pieter@example.org/player1@example.test/' \
	-e 's/thomas.ashdown@example.net/player2@example.test/' \
	-e 's/konrad@example.net/player3@example.test/' \
	"$top_srcdir/contrib/examples/europe1450.campaign" > test.campaign
# db_dir: where the database lives (the full-disk test points it elsewhere).
db_dir=${db_dir:-$work}
"$ctl" init test.campaign -d "$db_dir/campaign.db" > passwords.txt || { echo "FAIL: init"; exit 1; }
printf 'campaign-pw\n' > imap.secret && chmod 600 imap.secret
cat > campaignd.conf <<EOF
database         = $db_dir/campaign.db
campaign-address = campaign@example.test
source           = imap
imap-host        = 127.0.0.1
imap-port        = $MAILSTACK_IMAP_PORT
imap-tls         = none
imap-user        = campaign@example.test
imap-password-file = imap.secret
poll-interval    = 5
sink             = smtp
smtp-host        = 127.0.0.1
smtp-port        = $MAILSTACK_SMTP_PORT
smtp-tls         = none
rate-limit       = 100000
EOF
chmod 600 campaignd.conf

mt() { # mailtool with this stack's ports and files
	python3 "$tool" "$@" --imap-port "$MAILSTACK_IMAP_PORT" \
		--smtp-port "$MAILSTACK_SMTP_PORT" --db "$db_dir/campaign.db" \
		--passwords passwords.txt --seed "${SEED:-1}"
}
start_daemon() { # the daemon in the background, its log appended to daemon.log
	"$daemon" -c campaignd.conf 2>> daemon.log &
	dpid=$!
}
stop_daemon() { # SIGTERM and wait; returns its exit status
	local rc=0
	[ -n "$dpid" ] || return 0
	kill -TERM "$dpid" 2>/dev/null
	wait "$dpid" || rc=$?
	dpid=
	return $rc
}
inbox_count() { mt inbox | awk '{ print $2 }'; }
# Waits up to $2 seconds until no order mail of 0 .. $1-1 lacks an answer.
wait_all_acked() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		[ "$(mt pending --count "$1")" = 0 ] && return 0
		sleep 1
	done
	return 1
}
