#!/bin/bash
# How fast and how small are the exports, against perf script on perf's
# file of the same workload?
#
# Usage: bench/exports.sh [-k DIR] [callers|python]
#
# Samples the workload with stacks, cpu-clock:u at FREQ Hz, for about
# SAMPLES samples, once under `perf record --call-graph dwarf` and once
# under `uprofile -g`, then times, interleaved RUNS times:
#
#   perf script -i perf.data               (perf's default: inline frames
#                                           resolved)
#   perf script -i perf.data --no-inline   (the faster one)
#   uprofile -i umon.out --format pprof -report-file p.pb.gz
#   uprofile -i umon.out --format folded
#   uprofile -i umon.out --format flamegraph, callgrind (where this build
#                                           has them)
#
# Each figure is the median wall time and CPU time (user + system,
# children included: perf script runs addr2line) from /usr/bin/time.  The
# ratios divide each export's time by the faster perf script's, and the
# pprof file's size by perf.data's.  The issue's targets: exports <= 1/5
# of perf script's time, the pprof file <= 1/20 of perf.data.
#
# Workloads: callers (default): build/tests/callers, frame pointers, the
# call tree of tests/programs/callers.c; python: /usr/bin/python3 (no
# frame pointers) computing a recursive fib(25) over and over for the
# same CPU time, deep stacks of the interpreter's C frames.
#
# Environment: SAMPLES (100000), FREQ (10000, or the kernel's maximum
# rate when lower), RUNS (3), BUILD (build).  -k DIR keeps the profiles
# and outputs in DIR (default: a temporary directory, removed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$root/$BUILD
RUNS=${RUNS:-3}
SAMPLES=${SAMPLES:-100000}
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
FREQ=${FREQ:-$((max < 10000 ? max : 10000))}
uprofile=$BUILD/uprofile
for tool in perf jq /usr/bin/time; do
	command -v "$tool" >/dev/null || {
		echo "exports: '$tool' is not installed" >&2
		exit 125
	}
done
[[ -x $uprofile ]] || {
	echo "exports: '$uprofile' missing; run make" >&2
	exit 125
}
if [[ ${1:-} == -k ]]; then
	mkdir -p "$2"
	dir=$(cd "$2" && pwd)
	shift 2
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
cd "$dir"

# The workload: SAMPLES / FREQ seconds of CPU.
ms=$((SAMPLES * 1000 / FREQ))
case ${1:-callers} in
callers)
	cmd=("$BUILD/tests/callers" "$ms")
	comm=callers
	;;
python)
	# fib(25) again and again until the CPU time is used.
	cat >fib.py <<-EOF
	import time
	def fib(n):
	    return n if n < 2 else fib(n - 1) + fib(n - 2)
	end = time.process_time() + $ms / 1000
	while time.process_time() < end:
	    fib(25)
	EOF
	cmd=(/usr/bin/python3 "$dir/fib.py")
	comm=python3
	;;
*)
	echo "exports: unknown workload '$1' (callers, python)" >&2
	exit 2
	;;
esac

echo "profiling: ${cmd[*]} at $FREQ Hz (perf record, then uprofile)" >&2
perf record -q -e cpu-clock:u -F "$FREQ" --call-graph dwarf \
	-o perf.data -- "${cmd[@]}" >/dev/null 2>&1
"$uprofile" -quiet -e cpu-clock -F "$FREQ" -g -o umon.out "${cmd[@]}" \
	>/dev/null
p_samples=$(perf script -i perf.data -F comm 2>/dev/null |
	awk -v c="$comm" '$1 == c { n++ } END { print n + 0 }')
u_samples=$("$uprofile" -i umon.out --format json |
	jq '.statistics[0].samples')

# measure NAME COMMAND...: one run, "wall cpu" seconds appended to
# NAME.times; its output to NAME.out.  A command that fails leaves
# NAME.failed.
measure() {
	local name=$1
	shift
	if /usr/bin/time -o time.tmp -f "%e %U %S" "$@" >"$name.out" \
		2>/dev/null; then
		awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' time.tmp >>"$name.times"
	else
		: >"$name.failed"
	fi
}

# median NAME COLUMN
median() {
	sort -n -k "$2" "$1.times" | awk -v c="$2" \
		'{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

for ((i = 0; i < RUNS; i++)); do
	measure script perf script -i perf.data
	measure script-noinline perf script -i perf.data --no-inline
	measure pprof "$uprofile" -i umon.out --format pprof \
		-report-file p.pb.gz
	measure folded "$uprofile" -i umon.out --format folded
	measure flamegraph "$uprofile" -i umon.out --format flamegraph
	measure callgrind "$uprofile" -i umon.out --format callgrind
done

# The faster perf script is the bar.
base=script
awk -v a="$(median script-noinline 1)" -v b="$(median script 1)" \
	'BEGIN { exit !(a < b) }' && base=script-noinline
bw=$(median $base 1)
bc=$(median $base 2)

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs;" \
	"median of $RUNS runs"
echo "workload: ${cmd[*]}; samples: perf $p_samples, uprofile $u_samples"
printf '%-34s %8s %8s %10s %10s\n' command wall_s cpu_s wall/perf cpu/perf
row() {
	local name=$1 label=$2
	if [[ -e $name.failed || ! -s $name.times ]]; then
		printf '%-34s %s\n' "$label" "not available"
		return
	fi
	awk -v l="$label" -v w="$(median "$name" 1)" -v c="$(median "$name" 2)" \
		-v bw="$bw" -v bc="$bc" 'BEGIN {
		printf "%-34s %8.2f %8.2f %10.3f %10.3f\n", l, w, c,
			(bw > 0 ? w / bw : 0), (bc > 0 ? c / bc : 0) }'
}
row script "perf script"
row script-noinline "perf script --no-inline"
row pprof "uprofile --format pprof"
row folded "uprofile --format folded"
row flamegraph "uprofile --format flamegraph"
row callgrind "uprofile --format callgrind"

sizes() {
	local f
	for f; do
		[[ -e $f ]] && printf '  %-12s %12d bytes\n' "$f" "$(stat -c %s "$f")"
	done
	return 0
}
echo "sizes:"
sizes perf.data umon.out p.pb.gz
awk -v p="$(stat -c %s p.pb.gz)" -v d="$(stat -c %s perf.data)" 'BEGIN {
	printf "pprof / perf.data: %.2e (1/%.0f)\n", p / d, d / p }'
