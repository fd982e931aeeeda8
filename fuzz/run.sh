#!/bin/bash
# Run every fuzz target (make fuzz builds them): first over its checked-in
# corpus (fuzz/corpus/NAME/: a regression on a known input fails here),
# then SECONDS more of fuzzing from there (default 10; 0: corpus only).
#
#   fuzz/run.sh [SECONDS] [NAME...]     NAME: profile, elf, kallsyms, ...
#
# New inputs the fuzzer finds go to build-fuzz/corpus/NAME/ (not the
# checked-in corpus), a crashing input to build-fuzz/crashes/, libFuzzer's
# output to build-fuzz/logs/NAME.log.  Prints one line per target; exits
# 1 if any target crashed, leaked, timed out or could not run.
#
# FUZZ_CORPUS_ONLY="NAME..." runs those targets over their corpus only:
# for a target whose fuzzing still finds a known, not yet fixed defect.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

secs=${1:-10}
shift $(($# ? 1 : 0))
if ! [[ $secs =~ ^[0-9]+$ ]]; then
	echo "usage: fuzz/run.sh [SECONDS] [NAME...]" >&2
	exit 2
fi
dir=build-fuzz
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
	for f in fuzz/fuzz_*.c; do
		f=${f##*/fuzz_}
		names+=("${f%.c}")
	done
fi

# The elf and kallsyms targets write each input to a file: in memory
# where there is a tmpfs, so the disk is not in the loop.
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then
	export TMPDIR=/dev/shm
fi
# Reports on stderr, into the log; UBSan's with a stack.
export ASAN_OPTIONS=detect_leaks=1
# Leaks inside libdwarf on malformed input are not ours (fuzz/lsan.supp).
export LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

mkdir -p "$dir/logs" "$dir/crashes"
status=0
for name in "${names[@]}"; do
	bin=$dir/fuzz_$name
	seeds=fuzz/corpus/$name
	work=$dir/corpus/$name
	log=$dir/logs/$name.log
	if [[ ! -x $bin || ! -d $seeds ]]; then
		echo "fuzz: $name: no $bin or $seeds (make fuzz first)"
		status=1
		continue
	fi
	mkdir -p "$work"
	common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1
		-artifact_prefix="$dir/crashes/$name-")
	# -runs=0: run every input of the corpus once, no mutation.
	"$bin" "${common[@]}" -runs=0 "$seeds" >"$log" 2>&1
	rc=$?
	run_secs=$secs
	[[ " ${FUZZ_CORPUS_ONLY:-} " == *" $name "* ]] && run_secs=0
	if [[ $rc -eq 0 && $run_secs -gt 0 ]]; then
		"$bin" "${common[@]}" -max_total_time="$run_secs" "$work" "$seeds" \
			>>"$log" 2>&1
		rc=$?
	fi
	execs=$(grep -h '^stat::number_of_executed_units' "$log" |
		awk '{ n += $2 } END { print n + 0 }')
	if [[ $rc -ne 0 ]]; then
		echo "fuzz: $name: FAILED (exit $rc) after $execs runs;" \
			"input in $dir/crashes/, log $log:"
		grep -E -m 1 -A 30 '^==[0-9]+==ERROR|runtime error|^SUMMARY' \
			"$log" | sed 's/^/  /'
		status=1
	else
		if [[ $run_secs -gt 0 ]]; then
			echo "fuzz: $name: ok, $execs runs (corpus, then ${run_secs}s)"
		else
			echo "fuzz: $name: ok, $execs runs (corpus only)"
		fi
	fi
done
exit "$status"
