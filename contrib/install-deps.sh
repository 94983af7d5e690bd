#!/bin/sh
# Installs what campaignd needs to build, run and test on Debian 12 (as root).
# The mail servers (dovecot, postfix) are only used by the test suite, which
# starts private instances on 127.0.0.1; no system service is enabled.
# dpkg-dev, debhelper and lintian build and check the Debian package (make deb).
set -e
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (sudo sh contrib/install-deps.sh)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake pkg-config git ca-certificates \
	libetpan-dev libcurl4-gnutls-dev libgnutls28-dev libsqlite3-dev \
	libjansson-dev libsodium-dev libcmocka-dev librsvg2-dev libcairo2-dev \
	sqlite3 python3 curl man-db groff-base \
	dovecot-imapd dovecot-lmtpd postfix isync gnutls-bin valgrind clang chromium \
	dpkg-dev debhelper lintian \
	${CAMPAIGND_EXTRA_PACKAGES:-}
