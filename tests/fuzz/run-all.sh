#!/bin/sh
# Runs every libFuzzer harness that was built, SECONDS each (default 30),
# starting from its seed corpus. Builds nothing: configure a build directory
# with CC=clang ../configure --enable-fuzzing and run make check there first.
#
# Usage: tests/fuzz/run-all.sh [SECONDS]   (from the build directory, or set
#        top_builddir; top_srcdir defaults to this script's tree)
# New inputs found go to fuzz-corpus/<name>/ in the build directory (the
# seed corpus in the source tree is only read). A crash leaves its input as
# fuzz-artifacts/<name>/crash-* and the script exits 1 once all have run;
# turn each such input into a regression test that feeds it to the real
# function. Exit 77 when no harness is built.
seconds=${1:-30}
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$PWD}"

# harness name -> seed corpus folder in tests/fuzz/corpus
corpus_of() {
	case $1 in
	fuzz_mail_read) echo mail ;;
	*) echo "${1#fuzz_}" ;;
	esac
}

ran=0
crashed=
for harness in fuzz_orders fuzz_mail_read fuzz_mail_orders fuzz_mustache fuzz_campaign_file \
	fuzz_conf; do
	bin=$top_builddir/tests/fuzz/$harness
	if [ ! -x "$bin" ]; then
		echo "== $harness: not built, skipped"
		continue
	fi
	name=$(corpus_of "$harness")
	work=$top_builddir/fuzz-corpus/$name
	artifacts=$top_builddir/fuzz-artifacts/$name
	mkdir -p "$work" "$artifacts"
	echo "== $harness: $seconds s, corpus tests/fuzz/corpus/$name"
	if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts/" -print_final_stats=1 \
		"$work" "$top_srcdir/tests/fuzz/corpus/$name" >"$artifacts/log" 2>&1; then
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$artifacts/log" | tail -2
	else
		echo "   CRASH: $(grep -m1 -E 'ERROR|SUMMARY|deadly' "$artifacts/log")"
		echo "   input: $(ls "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* \
			"$artifacts"/oom-* 2>/dev/null | head -1); log: $artifacts/log"
		crashed="$crashed $harness"
	fi
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "no harness is built (configure with CC=clang --enable-fuzzing)"; exit 77; }
if [ -n "$crashed" ]; then
	echo "crashes in:$crashed"
	exit 1
fi
echo "$ran harnesses ran $seconds s each without a crash"
