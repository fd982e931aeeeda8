#!/bin/bash
# JIT code from a jitdump, for -asm and -lines: what it costs against
# perf's way (perf record, then perf inject --jit, which writes an ELF
# file per piece of code, then perf annotate / perf report).
#
# Usage: bench/jitcode.sh [-k DIR]
#
# One workload, node --perf-prof tests/programs/jitwork.js MS (default
# 3000 ms), profiled RUNS (3) times by each, interleaved:
#   uprofile -quiet -F FREQ -e cpu-clock -o umon.out node --perf-prof ...
#   perf record -q -k 1 -F FREQ -e cpu-clock -o perf.data node --perf-prof ...
# then, per run:
#   size      the jitdump; umon.out and its sections 12 (JIT names) and 16
#             (the sampled code's bytes and lines); perf.data after
#             perf inject --jit plus the jitted-*.so files it wrote
#   post_s    what comes after the run before a report can be made:
#             nothing for uprofile, perf inject --jit for perf
#   asm_s     uprofile -i umon.out -asm -only 'JS:*hotA*' against
#             perf annotate --stdio -s SYMBOL (hotA's optimized code)
#   lines_s   uprofile -i umon.out -lines against perf report --stdio
#             --sort srcline
# and prints the medians and the ratios uprofile / perf.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-3}
FREQ=${FREQ:-1000}
MS=${MS:-3000}
KEEP=
if [[ ${1-} == -k ]]; then
	KEEP=$2
	shift 2
fi
W=$(mktemp -d)
[[ -n $KEEP ]] || trap 'rm -rf "$W"' EXIT
[[ -z $KEEP ]] || W=$KEEP
mkdir -p "$W"
UP=$ROOT/build/uprofile
JS=$ROOT/tests/programs/jitwork.js

# secs CMD...: wall seconds of CMD (output thrown away).
secs() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

sec_size() {
	python3 - "$1" "$2" "$ROOT/tests/tools" <<'EOF'
import sys
sys.path.insert(0, sys.argv[3])
import umonsections as u
d = open(sys.argv[1], 'rb').read()
print(sum(len(b) for i, b in u.sections(d) if i == int(sys.argv[2])))
EOF
}

declare -A V
add() { V[$1]+="$2 "; }

for ((i = 0; i < RUNS; i++)); do
	d=$W/up$i
	mkdir -p "$d"
	cd "$d"
	"$UP" -quiet -F "$FREQ" -e cpu-clock -o umon.out \
		node --perf-prof "$JS" "$MS" >/dev/null
	add dump "$(stat -c %s jit-*.dump)"
	add up_size "$(stat -c %s umon.out)"
	add sec12 "$(sec_size umon.out 12)"
	add sec16 "$(sec_size umon.out 16)"
	add up_asm "$(secs "$UP" -i umon.out -asm -only 'JS:*hotA*')"
	add up_lines "$(secs "$UP" -i umon.out -lines)"
	d=$W/perf$i
	mkdir -p "$d"
	cd "$d"
	perf record -q -k 1 -F "$FREQ" -e cpu-clock -o perf.data \
		node --perf-prof "$JS" "$MS" >/dev/null
	add perf_post "$(secs perf inject --jit -i perf.data -o perf.jit.data)"
	add perf_size "$(du -cb perf.jit.data jitted-*.so | tail -1 | cut -f1)"
	sym=$(perf report -i perf.jit.data --stdio --sort sym 2>/dev/null |
	      grep -o 'JS:\*hotA [^ ]*' | head -1)
	add perf_asm "$(secs perf annotate -i perf.jit.data --stdio -s "$sym")"
	add perf_lines "$(secs perf report -i perf.jit.data --stdio --sort srcline)"
	cd "$ROOT"
done

m() { tr ' ' '\n' <<<"${V[$1]}" | grep . | median; }
printf '%-34s %12s %12s %8s\n' "" uprofile perf ratio
row() {
	local a b
	a=$(m "$2")
	b=$(m "$3")
	printf '%-34s %12s %12s %8s\n' "$1" "$a" "$b" \
		"$(echo "scale=3; $a / $b" | bc)"
}
row "profile bytes (perf: + jitted .so)" up_size perf_size
printf '%-34s %12s %12s\n' "after the run, s" 0 "$(m perf_post)"
row "-asm hotA / perf annotate, s" up_asm perf_asm
row "-lines / perf report srcline, s" up_lines perf_lines
printf 'jitdump bytes %s; umon.out section 12 %s, section 16 %s\n' \
	"$(m dump)" "$(m sec12)" "$(m sec16)"
