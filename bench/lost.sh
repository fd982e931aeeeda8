#!/bin/bash
# Samples lost under -g: `uprofile -g` against `perf record --call-graph
# dwarf` on node --perf-basic-prof running tests/programs/jitwork.js (JIT
# code and node's large binary: its unwind tables are read at its first
# sample, inside the drain).
#
# Usage: bench/lost.sh [-k DIR]
#
# Each round runs, one after the other:
#   uprofile -quiet -g node --perf-basic-prof jitwork.js MS
#   OLD -quiet -g ... (another build of uprofile, when OLD names one)
#   perf record -q -F 1000 --call-graph dwarf node --perf-basic-prof ...
# and prints each one's samples and lost samples: uprofile's from its
# JSON report (statistics[0].samples, .lost), perf's from perf report
# --stats (SAMPLE and LOST_SAMPLES events).  The summary gives the lost
# samples of each tool over all rounds.
#
# Environment: RUNS (4 rounds), MS (3000: jitwork.js's run time), HOGS
# (0: that many busy loops run beside, as a loaded machine), OLD, BUILD
# (build).  -k DIR keeps the profiles in DIR.  The perf maps node leaves
# in /tmp are removed; its isolate logs stay in the work directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
keep=
if [[ ${1-} == -k ]]; then
	keep=$2
	shift 2
fi
build=$root/${BUILD:-build}
uprofile=$build/uprofile
runs=${RUNS:-4}
ms=${MS:-3000}
hogs=${HOGS:-0}
old=${OLD-}
js=$root/tests/programs/jitwork.js
command -v node >/dev/null || { echo "node is not installed" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }
[[ -x $uprofile ]] || { echo "no $uprofile: run make" >&2; exit 1; }
[[ -z $old || -x $old ]] || { echo "OLD: no $old" >&2; exit 1; }

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/lost.XXXXXX")
fi
hog_pids=()
cleanup() {
	local p
	for p in "${hog_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	[[ -n $keep ]] || rm -rf "$work"
}
trap cleanup EXIT
for ((h = 0; h < hogs; h++)); do
	sh -c 'while :; do :; done' &
	hog_pids+=($!)
done

# drop_map PID...: node's perf maps, when they are this user's files.
drop_map() {
	local p
	for p in "$@"; do
		[[ -f /tmp/perf-$p.map && -O /tmp/perf-$p.map &&
			! -L /tmp/perf-$p.map ]] && rm -f "/tmp/perf-$p.map"
	done
	return 0
}

# uprof NAME BINARY: "samples lost" of one run.
uprof() {
	local out=$work/$1.out json pids
	"$2" -quiet -g -o "$out" node --perf-basic-prof "$js" "$ms" \
		>/dev/null 2>"$work/$1.err"
	json=$("$uprofile" -i "$out" --format json)
	mapfile -t pids < <(jq -r '.rows[].object
		| select(test("^/tmp/perf-[0-9]+\\.map$"))
		| capture("perf-(?<p>[0-9]+)").p' <<<"$json" | sort -u)
	drop_map "${pids[@]}"
	jq -r '.statistics[0] | "\(.samples) \(.lost)"' <<<"$json"
}

perfrec() {
	local data=$work/perf.data pids
	perf record -q -F 1000 --call-graph dwarf -o "$data" -- \
		node --perf-basic-prof "$js" "$ms" >/dev/null 2>"$work/perf.err"
	mapfile -t pids < <(perf script -i "$data" -F pid 2>/dev/null |
		awk '{ print $1 }' | sort -u)
	drop_map "${pids[@]}"
	perf report -i "$data" --stats 2>/dev/null | awk '
		/ SAMPLE events:/ && !s { s = $3 }
		/LOST_SAMPLES events:/ { l = $3 }
		END { print s + 0, l + 0 }'
	[[ -n $keep ]] || rm -f "$data"
}

# node writes its isolate logs in the current directory.
cd "$work"
echo "== node --perf-basic-prof jitwork.js $ms, $runs rounds, $hogs hogs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-10s %8s %6s\n' round tool samples lost
: >"$work/rows"
for ((i = 1; i <= runs; i++)); do
	tools=(uprofile)
	[[ -z $old ]] || tools+=(old)
	tools+=(perf)
	for t in "${tools[@]}"; do
		case $t in
		uprofile) r=$(uprof "u$i" "$uprofile") ;;
		old) r=$(uprof "o$i" "$old") ;;
		perf) r=$(perfrec) ;;
		esac
		echo "$t $r" >>"$work/rows"
		read -r ns nl <<<"$r"
		printf '%-5s %-10s %8d %6d\n' "$i" "$t" "$ns" "$nl"
	done
done
awk '{ s[$1] += $2; l[$1] += $3; n[$1]++; if ($3 > 0) k[$1]++ }
	END { for (t in s) printf "  %-10s lost %d of %d samples; %d of %d runs lost some\n",
		t, l[t], s[t] + l[t], k[t], n[t] }' "$work/rows"
