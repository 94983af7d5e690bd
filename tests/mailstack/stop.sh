#!/bin/bash
# Stops the mail stack that start.sh started in STATE_DIR. Safe to run when
# nothing runs or after a killed run: a process gets a signal only when it
# is shown to belong to this stack (pid files can be stale and name an
# unrelated process). Exits 1 if one of this stack's processes survives.
# Usage: stop.sh STATE_DIR
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 STATE_DIR" >&2
	exit 1
fi
MS=$(realpath -m "$1")

# Sets PSTATE and PGROUP from /proc/PID/stat; fails if there is no such
# process. Builtins only: this runs for every process on the machine.
proc_stat() {
	local s
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	PSTATE=$1
	PGROUP=$3
}
alive() { proc_stat "$1" && [ "$PSTATE" != Z ]; }
# Dovecot's processes work in its base_dir; Postfix's carry MAIL_CONFIG.
ours_dovecot() {
	case "$(readlink "/proc/$1/cwd" 2>/dev/null)" in
	"$MS/run/dovecot"*) return 0 ;;
	esac
	return 1
}
ours_postfix() {
	grep -qzxF "MAIL_CONFIG=$MS/etc/postfix" "/proc/$1/environ" 2>/dev/null
}
# Live members of process group $1 (a daemon's children stay in the group
# of their master, also after the master died) that pass test $2.
group_members() {
	local d pid
	[ -n "$1" ] || return 0
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		proc_stat "$pid" || continue
		[ "$PGROUP" = "$1" ] && [ "$PSTATE" != Z ] && "$2" "$pid" && echo "$pid"
	done
	return 0
}
term_and_wait() { # TERM, up to 5 s, then KILL
	kill -TERM "$1" 2>/dev/null || return 0
	for _ in $(seq 50); do
		alive "$1" || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
}

dovecot_pid=$(cat "$MS/run/dovecot/master.pid" 2>/dev/null)
postfix_pid=$(tr -d ' \n' 2>/dev/null <"$MS/spool/postfix/pid/master.pid")
[ -n "$dovecot_pid$postfix_pid" ] || exit 0

# Both masters at once: Dovecot's takes a second to finish.
if [ -n "$dovecot_pid" ] && alive "$dovecot_pid" && ours_dovecot "$dovecot_pid"; then
	term_and_wait "$dovecot_pid" &
fi
if [ -n "$postfix_pid" ] && alive "$postfix_pid" && ours_postfix "$postfix_pid"; then
	term_and_wait "$postfix_pid" &
fi
wait

for _ in $(seq 20); do
	left="$(group_members "$dovecot_pid" ours_dovecot)
$(group_members "$postfix_pid" ours_postfix)"
	[ -z "${left//[[:space:]]/}" ] && exit 0
	# Leftovers of a master that was killed: nobody will reap them.
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null
	sleep 0.1
done
echo "stop.sh: processes of the stack in $MS are still running:" $left >&2
exit 1
