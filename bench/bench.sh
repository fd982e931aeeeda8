#!/bin/bash
# Compare uprofile with perf on one CPU-bound workload at the same event
# and sampling rate: run-time overhead, profile size, report time.
#
# Usage: bench/bench.sh            (after make; see bench/README.md)
# Environment:
#   SCALE=5      workload size: build/tests/demo SCALE (~2 s per unit)
#   RUNS=5       timed runs per command
#   FREQ=1000    sampling frequency (Hz)
#   EVENT=cpu-clock:u (user mode: what uprofile samples by default)
#   BUILD=build  build directory
#   KEEP=1       keep the work directory (profiles, hyperfine JSON)
#   HYPERFINE=0  time with bash instead of hyperfine
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

SCALE=${SCALE:-5}
RUNS=${RUNS:-5}
FREQ=${FREQ:-1000}
EVENT=${EVENT:-cpu-clock:u}
BUILD=${BUILD:-build}
uprofile=$root/$BUILD/uprofile
prog=$root/$BUILD/tests/demo

for f in "$uprofile" "$prog"; do
	[[ -x $f ]] || { echo "bench: $f missing; run make first" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "bench: perf not installed" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX")
if [[ -z ${KEEP:-} ]]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "bench: work directory $work"
fi
cd "$work"

if [[ ${HYPERFINE:-1} != 0 ]] && command -v hyperfine >/dev/null; then
	use_hf=1
	timer="hyperfine ($RUNS runs, mean)"
else
	use_hf=
	timer="bash time ($RUNS runs, mean)"
fi

# mean_time NAME RUNS COMMAND: print the mean wall time and the mean CPU
# time (user + system, children included) in seconds of a command, run
# RUNS times with its output discarded.
mean_time() {
	local name=$1 runs=$2 cmd=$3 i t all=""
	if [[ -n $use_hf ]]; then
		hyperfine -N --style none --runs "$runs" --warmup "${WARMUP:-0}" \
			--export-json "$name.json" "$cmd" >/dev/null ||
			{ echo "bench: failed: $cmd" >&2; exit 1; }
		jq -r '.results[0] | "\(.mean) \(.user + .system)"' "$name.json"
		return
	fi
	[[ ${WARMUP:-0} == 0 ]] || bash -c "$cmd" >/dev/null 2>&1 || true
	for ((i = 0; i < runs; i++)); do
		t=$( { TIMEFORMAT='%R %U %S'; time bash -c "$cmd" >/dev/null 2>&1; } 2>&1) ||
			{ echo "bench: failed: $cmd" >&2; exit 1; }
		all+="$t"$'\n'
	done
	awk '{ w += $1; c += $2 + $3; n++ }
	     END { printf "%.4f %.4f\n", w / n, c / n }' <<<"$all"
}

# Everything a command needs is in one string, for hyperfine.
q() { printf '%q' "$1"; }
run_plain="$(q "$prog") $SCALE"
run_perf="perf record -q -F $FREQ -e $EVENT -o perf.data -- $(q "$prog") $SCALE"
run_uprof="$(q "$uprofile") -quiet -F $FREQ -e $EVENT -o umon.out $(q "$prog") $SCALE"
rep_perf_sym="perf report -i perf.data --stdio --sort sym"
rep_uprof_proc="$(q "$uprofile") -i umon.out -procedures"
rep_perf_line="perf report -i perf.data --stdio --sort srcline"
rep_uprof_line="$(q "$uprofile") -i umon.out -lines"

echo "bench: workload $BUILD/tests/demo $SCALE, event $EVENT at $FREQ Hz," \
	"timer $timer" >&2
# The three runs are interleaved (plain, perf, uprofile, plain, ...) and
# each summarized by its median: on a shared or virtual machine the speed
# drifts by 10-20% over minutes, which blocks of consecutive runs would
# charge to whichever command ran during a slow spell.
echo "bench: timing runs (interleaved, median of $RUNS)..." >&2
interleaved() {
	local i name t
	for ((i = 0; i < RUNS; i++)); do
		for name in plain perf uprof; do
			local var=run_$name
			t=$( { TIMEFORMAT='%R %U %S'
				time bash -c "${!var}" >/dev/null 2>&1; } 2>&1) ||
				{ echo "bench: failed: ${!var}" >&2; exit 1; }
			echo "$name $t"
		done
	done
}
median() {	# NAME COLUMN(wall|cpu) < "name wall user sys" lines
	awk -v n="$1" -v col="$2" '$1 == n {
		print (col == "wall" ? $2 : $3 + $4) }' | sort -g |
		awk '{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.4f\n", m
		}'
}
interleaved >runs.txt
t_plain=$(median plain wall <runs.txt)
c_plain=$(median plain cpu <runs.txt)
t_perf=$(median perf wall <runs.txt)
c_perf=$(median perf cpu <runs.txt)
t_uprof=$(median uprof wall <runs.txt)
c_uprof=$(median uprof cpu <runs.txt)

# The profiler's own CPU time, without its workload's: perf stat counting
# task-clock on the profiler's process only (--no-inherit).  Exact where
# the wall times above drown in the machine's noise.
own_cpu() {	# COMMAND-STRING: median milliseconds over RUNS
	local i
	for ((i = 0; i < RUNS; i++)); do
		bash -c "perf stat --no-inherit -x, -e task-clock -- $1" \
			2>&1 >/dev/null | awk -F, '$3 == "task-clock" { print $1 }'
	done | sort -g | awk '{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.1f\n", m
		}'
}
echo "bench: the profilers' own CPU time..." >&2
o_perf=$(own_cpu "$run_perf")
o_uprof=$(own_cpu "$run_uprof")

# The profiles left by the last timed runs.
[[ -s perf.data && -s umon.out ]] ||
	{ echo "bench: a profiler wrote no profile" >&2; exit 1; }
s_perf=$(stat -c %s perf.data)
s_uprof=$(stat -c %s umon.out)

echo "bench: timing reports..." >&2
read -r t_rps _ < <(WARMUP=1 mean_time perf-report-sym "$RUNS" "$rep_perf_sym")
read -r t_rup _ < <(WARMUP=1 mean_time uprofile-procedures "$RUNS" "$rep_uprof_proc")
read -r t_rpl _ < <(WARMUP=1 mean_time perf-report-srcline "$RUNS" "$rep_perf_line")
read -r t_rul _ < <(WARMUP=1 mean_time uprofile-lines "$RUNS" "$rep_uprof_line")

awk -v plain="$t_plain" -v perf="$t_perf" -v uprof="$t_uprof" \
	-v cplain="$c_plain" -v cperf="$c_perf" -v cuprof="$c_uprof" \
	-v sp="$s_perf" -v su="$s_uprof" -v op="$o_perf" -v ou="$o_uprof" \
	-v rps="$t_rps" -v rup="$t_rup" -v rpl="$t_rpl" -v rul="$t_rul" \
	-v desc="demo $SCALE, $EVENT @ $FREQ Hz; runs: median of $RUNS interleaved; reports: $timer" 'BEGIN {
	printf "\nWorkload: %s\n\n", desc
	printf "%-28s %12s %12s %10s\n", "", "perf", "uprofile", "up/perf"
	printf "%-28s %12.3f %12s %10s\n", "run, unprofiled (s)", plain, "", ""
	printf "%-28s %12.3f %12.3f %10.2f\n", "run, profiled (s)", perf, uprof, uprof / perf
	printf "%-28s %11.1f%% %11.1f%% %10s\n", "  wall-time overhead",
		100 * (perf - plain) / plain, 100 * (uprof - plain) / plain, ""
	printf "%-28s %12.3f %12s %10s\n", "CPU, unprofiled (s)", cplain, "", ""
	printf "%-28s %12.3f %12.3f %10.2f\n", "CPU, profiled (s)", cperf, cuprof, cuprof / cperf
	printf "%-28s %11.1f%% %11.1f%% %10s\n", "  CPU-time overhead",
		100 * (cperf - cplain) / cplain, 100 * (cuprof - cplain) / cplain, ""
	printf "%-28s %12.1f %12.1f %10.3f\n", "profiler'"'"'s own CPU (ms)",
		op, ou, ou / op
	printf "%-28s %12.1f %12.1f %10.3f\n", "profile size (KiB)",
		sp / 1024, su / 1024, su / sp
	printf "%-28s %12.3f %12.3f %10.2f\n", "report by procedure (s)", rps, rup, rup / rps
	printf "%-28s %12.3f %12.3f %10.2f\n", "report by line (s)", rpl, rul, rul / rpl
	printf "\nperf: perf record / perf report --sort sym|srcline;" \
		" uprofile: -o umon.out / -i umon.out -procedures|-lines\n"
}'
