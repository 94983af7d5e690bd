#!/bin/bash
# Starts a throw-away mail stack on 127.0.0.1 for the integration tests,
# with FRESH state (earlier mail in the state directory is deleted):
#   Dovecot  IMAP     127.0.0.1:$MAILSTACK_IMAP_PORT  (default 10143; STARTTLS offered)
#            IMAPS    127.0.0.1:$MAILSTACK_IMAPS_PORT (default 10993; only with a certificate)
#            LMTP     127.0.0.1:$MAILSTACK_LMTP_PORT  (default 10024) and a unix socket
#   Postfix  SMTP     127.0.0.1:$MAILSTACK_SMTP_PORT  (default 10025) -> Dovecot LMTP
#                     (STARTTLS offered, not required, when there is a certificate)
# Users (see users): campaign@, organiser@, player1@ .. player8@example.test,
# password "<local part>-pw". Mail is owned by uid/gid 5000.
#
# Usage (as root):  start.sh STATE_DIR       stop with: stop.sh STATE_DIR
# The TLS test certificate (self-signed, for mail.example.test only) is
# STATE_DIR/etc/tls/cert.pem; made with certtool or openssl if either is
# installed, else there is no IMAPS listener. It is also the test CA: it
# signs Postfix's certificate (etc/tls/smtp-cert.pem, for 127.0.0.1 and
# mail.example.test), so a client that trusts cert.pem can check Postfix.
# STATE_DIR/ports gets the ports as shell assignments, to be sourced.
# Exit status: 0 up; 77 cannot run here (no Dovecot/Postfix, not root);
# 3 a port is taken by something else; 1 any other failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 STATE_DIR" >&2
	exit 1
fi
MS=$(realpath -m "$1")
case "$MS" in
/ | /tmp | /var | /root | /home | /usr | /etc)
	echo "start.sh: refusing state directory $MS" >&2
	exit 1 ;;
esac

imap_port=${MAILSTACK_IMAP_PORT:-10143}
imaps_port=${MAILSTACK_IMAPS_PORT:-10993}
lmtp_port=${MAILSTACK_LMTP_PORT:-10024}
smtp_port=${MAILSTACK_SMTP_PORT:-10025}

skip() { echo "start.sh: skipped: $*" >&2; exit 77; }
PATH=$PATH:/usr/sbin:/sbin
command -v dovecot >/dev/null || skip "dovecot is not installed (dovecot-imapd, dovecot-lmtpd)"
command -v postfix >/dev/null || skip "postfix is not installed"
[ "$(id -u)" = 0 ] || skip "the mail stack needs root (mail owned by uid 5000)"
for u in postfix dovecot dovenull; do
	getent passwd "$u" >/dev/null || skip "system user $u is missing"
done

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

"$here/stop.sh" "$MS" # an earlier run of this stack, also one that was killed
for port in "$imap_port" "$imaps_port" "$lmtp_port" "$smtp_port"; do
	if port_open "$port"; then
		echo "start.sh: 127.0.0.1:$port is already in use" >&2
		exit 3
	fi
done

rm -rf "$MS/etc" "$MS/run" "$MS/spool" "$MS/state" "$MS/mail" "$MS/log" "$MS/ports"
mkdir -p "$MS/etc/postfix" "$MS/etc/tls" "$MS/run" "$MS/spool/postfix" \
	"$MS/state/postfix" "$MS/mail" "$MS/log"
chmod 755 "$MS"            # uid 5000 and user postfix must get through it
chown 5000:5000 "$MS/mail"
chown postfix "$MS/state/postfix" # Postfix's data_directory must be its own

# uid 5000 must reach the state directory through every parent.
if command -v setpriv >/dev/null &&
	! setpriv --reuid=5000 --regid=5000 --clear-groups test -x "$MS/mail"; then
	skip "uid 5000 cannot reach $MS (a parent directory is not searchable)"
fi

# A self-signed certificate for a name nobody connects to by default: the
# tests use it to check that an unverifiable server is refused.
ssl=no
cert=$MS/etc/tls/cert.pem
key=$MS/etc/tls/key.pem
if command -v certtool >/dev/null; then
	cat >"$MS/etc/tls/template" <<-EOF
		cn = "mail.example.test"
		dns_name = "mail.example.test"
		expiration_days = 2
		tls_www_server
		signing_key
		encryption_key
		ca
		cert_signing_key
	EOF
	certtool --generate-privkey --key-type=ecdsa --outfile "$key" >/dev/null 2>&1 &&
		certtool --generate-self-signed --load-privkey "$key" \
			--template "$MS/etc/tls/template" --outfile "$cert" >/dev/null 2>&1 &&
		ssl=yes
	cat >"$MS/etc/tls/smtp-template" <<-EOF
		cn = "mail.example.test"
		dns_name = "mail.example.test"
		ip_address = "127.0.0.1"
		expiration_days = 2
		tls_www_server
		signing_key
		encryption_key
	EOF
	[ $ssl = yes ] &&
		certtool --generate-privkey --key-type=ecdsa --outfile "$MS/etc/tls/smtp-key.pem" \
			>/dev/null 2>&1 &&
		certtool --generate-certificate --load-privkey "$MS/etc/tls/smtp-key.pem" \
			--load-ca-certificate "$cert" --load-ca-privkey "$key" \
			--template "$MS/etc/tls/smtp-template" \
			--outfile "$MS/etc/tls/smtp-cert.pem" >/dev/null 2>&1 || ssl=no
elif command -v openssl >/dev/null; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$key" -out "$cert" -days 2 -subj "/CN=mail.example.test" \
		-addext "subjectAltName=DNS:mail.example.test" >/dev/null 2>&1 && ssl=yes
	[ $ssl = yes ] &&
		openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout "$MS/etc/tls/smtp-key.pem" -subj "/CN=mail.example.test" \
			-out "$MS/etc/tls/smtp.csr" >/dev/null 2>&1 &&
		openssl x509 -req -in "$MS/etc/tls/smtp.csr" -CA "$cert" -CAkey "$key" \
			-CAcreateserial -days 2 -out "$MS/etc/tls/smtp-cert.pem" \
			-extfile <(printf 'subjectAltName=DNS:mail.example.test,IP:127.0.0.1\n') \
			>/dev/null 2>&1 || ssl=no
fi
if [ $ssl = yes ]; then
	chmod 600 "$key" "$MS/etc/tls/smtp-key.pem"
	ssl_cert="ssl_cert = <$cert"
	ssl_key="ssl_key = <$key"
else
	ssl_cert=
	ssl_key=
	imaps_port=0
fi

render() {
	sed -e "s|@MS@|$MS|g" -e "s|@IMAP_PORT@|$imap_port|g" \
		-e "s|@IMAPS_PORT@|$imaps_port|g" -e "s|@LMTP_PORT@|$lmtp_port|g" \
		-e "s|@SMTP_PORT@|$smtp_port|g" -e "s|@SSL@|$ssl|g" \
		-e "s|@SSL_CERT@|$ssl_cert|g" -e "s|@SSL_KEY@|$ssl_key|g" \
		-e "s|@INSTANCE@|mailstack-$imap_port|g" "$1" >"$2"
}
render "$here/dovecot.conf.in" "$MS/etc/dovecot.conf"
render "$here/main.cf.in" "$MS/etc/postfix/main.cf"
render "$here/master.cf.in" "$MS/etc/postfix/master.cf"
if [ $ssl = yes ]; then
	# STARTTLS offered, never required (the tests also speak SMTP in clear)
	cat >>"$MS/etc/postfix/main.cf" <<-EOF
		smtpd_tls_security_level = may
		smtpd_tls_cert_file = $MS/etc/tls/smtp-cert.pem
		smtpd_tls_key_file = $MS/etc/tls/smtp-key.pem
	EOF
fi
cp "$here/users" "$MS/etc/users"
# Optional: OAuth2 bearer tokens (XOAUTH2, OAUTHBEARER) for IMAP and for SMTP
# AUTH, checked by Dovecot's oauth2 passdb against the token introspection
# endpoint MAILSTACK_OAUTH_URL (the test starts one, oauth2_introspect.py);
# Postfix then offers AUTH through Dovecot. Without it nothing changes.
if [ -n "${MAILSTACK_OAUTH_URL:-}" ]; then
	mkdir -p "$MS/spool/postfix/private"
	chown postfix "$MS/spool/postfix/private"
	cat >"$MS/etc/dovecot-oauth2.conf.ext" <<-EOF
		introspection_mode = post
		introspection_url = $MAILSTACK_OAUTH_URL
		force_introspection = yes
		username_attribute = username
		active_attribute = active
		active_value = true
	EOF
	cat >>"$MS/etc/dovecot.conf" <<-EOF
		auth_mechanisms = plain login xoauth2 oauthbearer
		passdb {
		  driver = oauth2
		  mechanisms = xoauth2 oauthbearer
		  args = $MS/etc/dovecot-oauth2.conf.ext
		}
		service auth {
		  unix_listener $MS/spool/postfix/private/auth {
		    mode = 0660
		    user = postfix
		    group = postfix
		  }
		}
	EOF
	cat >>"$MS/etc/postfix/main.cf" <<-EOF
		smtpd_sasl_auth_enable = yes
		smtpd_sasl_type = dovecot
		smtpd_sasl_path = private/auth
	EOF
fi
cut -d: -f1 "$here/users" | sed 's/$/ OK/' >"$MS/etc/vmailbox"
# Postfix waits about 2 s for files changed within the last second to
# settle; these are complete, so date them back.
touch -d 2000-01-01 "$MS/etc/postfix/main.cf" "$MS/etc/postfix/master.cf" "$MS/etc/vmailbox"

# Both daemonize. Their output goes to files: an inherited stderr would keep
# a caller's pipe open ("start.sh | tee" would never end).
# A port taken between the check above and the listen (another build tree
# starting its own stack) is reported as such (3), so the caller moves on.
taken() { grep -qs 'Address already in use' "$@"; }
if ! dovecot -c "$MS/etc/dovecot.conf" </dev/null >"$MS/log/dovecot.out" 2>&1; then
	taken "$MS/log/dovecot.out" "$MS/log/dovecot.log" && exit 3
	cat "$MS/log/dovecot.out" "$MS/log/dovecot.log" >&2 2>/dev/null || true
	exit 1
fi
if ! postfix -c "$MS/etc/postfix" start </dev/null >"$MS/log/postfix.out" 2>&1; then
	"$here/stop.sh" "$MS"
	taken "$MS/log/postfix.out" "$MS/log/postfix.log" && exit 3
	cat "$MS/log/postfix.out" "$MS/log/postfix.log" >&2 2>/dev/null || true
	exit 1
fi

ports="$imap_port $lmtp_port $smtp_port"
[ $ssl = yes ] && ports="$ports $imaps_port"
for port in $ports; do
	for _ in $(seq 100); do
		port_open "$port" && continue 2
		sleep 0.1
	done
	echo "start.sh: 127.0.0.1:$port did not come up; logs in $MS/log/" >&2
	"$here/stop.sh" "$MS"
	exit 1
done

cat >"$MS/ports" <<EOF
MAILSTACK_IMAP_PORT=$imap_port
MAILSTACK_IMAPS_PORT=$imaps_port
MAILSTACK_LMTP_PORT=$lmtp_port
MAILSTACK_SMTP_PORT=$smtp_port
MAILSTACK_TLS_CERT=$([ $ssl = yes ] && echo "$cert")
MAILSTACK_SMTP_TLS=$ssl
EOF
echo "mail stack up: IMAP $imap_port, IMAPS $imaps_port, SMTP $smtp_port, LMTP $lmtp_port (state in $MS)"
