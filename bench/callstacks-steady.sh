#!/bin/bash
# The collector's CPU per sample in steady state, against perf record:
# both attach (-p) to one running workload for SHORT and LONG seconds
# (default 2 and 8) with DWARF stacks at FREQ Hz (4000); the difference
# of CPU time over the difference of samples takes each tool's start-up
# and end (reading maps, writing and summarizing the profile) off.
#
# Usage: bench/callstacks-steady.sh [python|callers]
#
# CPU times are perf stat's task-clock of the profiler alone (the
# workload is not its child); samples are uprofile's JSON totals and
# perf report --stats' SAMPLE events.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
uprofile=$build/uprofile
freq=${FREQ:-4000}
short=${SHORT:-2}
long=${LONG:-8}
work=$(mktemp -d "${TMPDIR:-/tmp}/steady.XXXXXX")
pid=
trap '[[ -z $pid ]] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

case ${1:-python} in
python)
	cat >"$work/fib.py" <<-'PY'
	def fib(n):
	    return n if n < 2 else fib(n - 1) + fib(n - 2)
	while True:
	    fib(25)
	PY
	python=/usr/bin/python3
	[[ -x $python ]] || python=$(command -v python3)
	"$python" "$work/fib.py" &
	;;
callers)
	"$build/tests/callers-nofp" 600000 &
	;;
*)
	echo "usage: $0 [python|callers]" >&2
	exit 2
	;;
esac
pid=$!
sleep 0.5

# task-clock milliseconds of COMMAND
cpu_ms() {
	perf stat -x, -e task-clock "$@" 2>&1 >/dev/null |
		awk -F, '$3 == "task-clock" { print $1 }'
}

for d in "$short" "$long"; do
	u_ms[$d]=$(cpu_ms "$uprofile" -quiet -F "$freq" --call-graph=dwarf \
		-p "$pid" -d "$d" -o "$work/u$d.out")
	u_n[$d]=$("$uprofile" -i "$work/u$d.out" --format json |
		jq '[.statistics[].samples] | add')
	p_ms[$d]=$(cpu_ms perf record -q -F "$freq" -e cpu-clock \
		--call-graph dwarf -p "$pid" -o "$work/p$d.data" -- sleep "$d")
	p_n[$d]=$(perf report -i "$work/p$d.data" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; exit }')
done
awk -v us="${u_ms[$short]}" -v ul="${u_ms[$long]}" \
	-v ns="${u_n[$short]}" -v nl="${u_n[$long]}" \
	-v ps="${p_ms[$short]}" -v pl="${p_ms[$long]}" \
	-v ms="${p_n[$short]}" -v ml="${p_n[$long]}" -v w="${1:-python}" 'BEGIN {
	u = 1000 * (ul - us) / (nl - ns)
	p = 1000 * (pl - ps) / (ml - ms)
	printf "%s, %d Hz: uprofile %.2f us/sample (%d and %d samples), perf record %.2f us/sample (%d and %d), ratio %.2f\n",
		w, '"$freq"', u, ns, nl, p, ms, ml, u / p
}'
