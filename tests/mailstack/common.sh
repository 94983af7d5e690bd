# Sourced by the integration tests (bash).
#
# mailstack_dir NAME prints a new, short state directory under $TMPDIR or /tmp:
# Dovecot's unix sockets live in it and a socket path may not exceed 107
# bytes, which a deep build tree (make distcheck) easily does.
mailstack_dir() {
	mktemp -d "${TMPDIR:-/tmp}/cms-$1.XXXXXX"
}

# mailstack_up STATE_DIR starts the
# loopback mail stack on the first free block of ports (another build tree
# may be running its own), sources the ports file, and arranges for the stack
# to be stopped on exit. Exits 77 (skipped) where the stack cannot run.
mailstack_up() {
	local ms=$1 offset rc
	for offset in $(seq 0 100 1900); do
		export MAILSTACK_IMAP_PORT=$((10143 + offset)) MAILSTACK_IMAPS_PORT=$((10993 + offset))
		export MAILSTACK_LMTP_PORT=$((10024 + offset)) MAILSTACK_SMTP_PORT=$((10025 + offset))
		"$top_srcdir/tests/mailstack/start.sh" "$ms"
		rc=$?
		case $rc in
		0) . "$ms/ports"; return 0 ;;
		77) exit 77 ;;
		3) continue ;; # ports in use
		*) echo "FAIL: the mail stack did not start"; exit 1 ;;
		esac
	done
	echo "FAIL: no free block of ports for the mail stack"
	exit 1
}
