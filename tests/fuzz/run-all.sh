#!/bin/sh
# Runs every libFuzzer harness that was built, SECONDS each (default 30),
# starting from its seed corpus, and reports the executions of each. With
# RUNS, each harness stops after RUNS executions (or SECONDS, whichever
# comes first): CI runs a fixed number of executions in a bounded time.
# Builds nothing: configure a build directory with
# CC=clang ../configure --enable-fuzzing and run make check there first.
#
# Usage: tests/fuzz/run-all.sh [SECONDS [RUNS]]   (from the build directory,
#        or set top_builddir; top_srcdir defaults to this script's tree)
# The mail harnesses take inputs up to just past the daemon's default
# max-message-size (1 MiB), so the size limit's own path is fuzzed too, and
# use the MIME dictionary tests/fuzz/mail.dict; their corpus holds mails
# nested past the MIME limits (tests/fuzz/corpus/mail/deep-*).
# New inputs found go to fuzz-corpus/<name>/ in the build directory (the
# seed corpus in the source tree is only read). A crash leaves its input as
# fuzz-artifacts/<name>/crash-* and the script exits 1 once all have run;
# turn each such input into a regression test that feeds it to the real
# function. Exit 77 when no harness is built.
seconds=${1:-30}
runs=${2:-}
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
# harness name -> its extra libFuzzer options
options_of() {
	case $1 in
	fuzz_mail_read | fuzz_mail_orders)
		# 1 MiB (MAIL_READ_DEFAULT_MAX_BYTES) and a little more
		echo "-max_len=1049600 -dict=$top_srcdir/tests/fuzz/mail.dict" ;;
	*) echo "" ;;
	esac
}

ran=0
crashed=
total=0
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
	echo "== $harness: ${runs:+$runs executions or }$seconds s, corpus tests/fuzz/corpus/$name"
	# shellcheck disable=SC2046
	if "$bin" -max_total_time="$seconds" ${runs:+-runs="$runs"} -timeout=10 -rss_limit_mb=2048 \
		$(options_of "$harness") -artifact_prefix="$artifacts/" -print_final_stats=1 \
		"$work" "$top_srcdir/tests/fuzz/corpus/$name" >"$artifacts/log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$artifacts/log" | tail -1)
		took=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$artifacts/log" | tail -1)
		echo "   ${execs:-?} executions (${took:-?} a second), $(ls "$work" | wc -l) inputs in the corpus"
		total=$((total + ${execs:-0}))
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
echo "$ran harnesses ran without a crash: $total executions in all"
