#!/bin/sh
# Runs cmocka unit-test binaries under valgrind's memcheck: any memory error
# or definite leak fails. Used by make check-valgrind (which passes every
# tests/test_* binary) and CI.
#
# Usage: tests/valgrind.sh [BINARY...]   (default: every tests/test_* in
#        the build directory; run from it, or set top_builddir)
# The log of each run is kept in tests/valgrind-logs/<name>.log. Exit 0 all
# clean, 1 a binary failed or valgrind found errors, 77 valgrind missing.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$PWD}"
export top_srcdir top_builddir
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
cd "$top_builddir" || exit 1

if [ $# -eq 0 ]; then
	for f in tests/*/test_*; do
		case $f in *.o | *.log | *.trs | *.c) continue ;; esac
		[ -x "$f" ] && set -- "$@" "$f"
	done
fi
[ $# -gt 0 ] || { echo "no test binaries: run make check first"; exit 1; }

logs=tests/valgrind-logs
mkdir -p "$logs"
failed=
start=$(date +%s)
for t in "$@"; do
	name=$(basename "$t")
	t0=$(date +%s)
	# --errors-for-leak-kinds=definite: still-reachable memory of libraries
	# (libsodium, gnutls, libcurl's global state) is not our leak.
	if valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --error-exitcode=99 \
		--suppressions="$top_srcdir/tests/valgrind-gconv.supp" \
		--log-file="$logs/$name.log" "./$t" >"$logs/$name.out" 2>&1; then
		echo "ok:   $name ($(($(date +%s) - t0)) s)"
	else
		rc=$?
		if [ $rc = 99 ]; then
			echo "FAIL: $name: valgrind found errors (see $logs/$name.log)"
		else
			echo "FAIL: $name: exit status $rc (see $logs/$name.out)"
		fi
		failed="$failed $name"
	fi
done
echo "valgrind: $# binaries in $(($(date +%s) - start)) s"
if [ -n "$failed" ]; then
	echo "failed:$failed"
	exit 1
fi
