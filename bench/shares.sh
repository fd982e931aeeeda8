#!/bin/bash
# Do uprofile and perf agree on where a program spends its time?
#
# Usage: bench/shares.sh [-n TOP] COMMAND [ARG...]
#
# Profiles COMMAND once with `perf record -e cpu-clock:u -F 1000` and once
# with `uprofile -e cpu-clock -F 1000`, then prints, for perf's TOP
# (default 10) hottest symbols, perf's share, uprofile's share of the same
# symbol in the same object, and the difference; last the largest absolute
# difference in percentage points.  uprofile charges inlined code to the
# inlined function; here its rows are grouped by the out-of-line function
# (JSON inlined_into), which is what perf's --sort sym reports.
set -euo pipefail
top=10
if [[ ${1:-} == -n ]]; then
	top=$2
	shift 2
fi
[[ $# -gt 0 ]] || { echo "usage: $0 [-n TOP] COMMAND [ARG...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
uprofile=$root/${BUILD:-build}/uprofile
work=$(mktemp -d "${TMPDIR:-/tmp}/shares.XXXXXX")
trap 'rm -rf "$work"' EXIT

perf record -q -e cpu-clock:u -F 1000 -o "$work/perf.data" -- "$@" \
	>/dev/null 2>&1
"$uprofile" -quiet -e cpu-clock -F 1000 -o "$work/umon.out" "$@" >/dev/null

# perf: "share<TAB>object<TAB>symbol", shares of the samples' periods.
perf report -i "$work/perf.data" --stdio --sort dso,sym \
	--percentage relative 2>/dev/null |
	awk -v top="$top" '!/^#/ && NF >= 3 && $1 ~ /%$/ && n++ < top {
		pct = $1; sub(/%/, "", pct); dso = $2
		sub(/^[ \t]*[0-9.]+%[ \t]+[^ \t]+[ \t]+\[[^]]*\][ \t]+/, "")
		# gcc clones (.constprop.0, .isra.0, .part.0, .cold) carry
		# the DWARF name of their origin, which uprofile reports.
		gsub(/\.(constprop|isra|part|cold|lto_priv)(\.[0-9]+)?/, "")
		print pct "\t" dso "\t" $0 }' >"$work/perf.tsv"

"$uprofile" -i "$work/umon.out" --format json |
	jq -r '.rows[] | [(.inlined_into // .procedure),
		(.object | split("/") | last), .percent[]] | @tsv' |
	awk -F'\t' '{ s[$2 "\t" $1] += $3 }
		END { for (k in s) print k "\t" s[k] }' >"$work/uprofile.tsv"

awk -F'\t' 'NR == FNR { u[$1 "\t" $2] = $3; next }
	{ k = $2 "\t" $3; up = (k in u) ? u[k] : 0; d = up - $1
	  if (d < 0) d = -d; if (d > max) max = d
	  printf "%8.2f %9.2f %6.2f  %s (%s)\n", $1, up, d, $3, $2 }
	BEGIN { printf "%8s %9s %6s  %s\n", "perf%", "uprofile%", "diff", "symbol (object)" }
	END { printf "largest difference: %.2f percentage points\n", max }' \
	"$work/uprofile.tsv" "$work/perf.tsv"
