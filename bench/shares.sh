#!/bin/bash
# Do uprofile and perf agree on where a program spends its time?
#
# Usage: bench/shares.sh [-n TOP] [-F HZ] [--separate] [--kernel] COMMAND [ARG...]
#
# By default both profilers sample the SAME run, at the same event and
# rate (-F, default 1000): `perf record -e cpu-clock:u -F 1000 --
# uprofile -e cpu-clock -F 1000 COMMAND`, so the comparison is not
# blurred by run-to-run variation of the
# workload (a few points for cache-sensitive code on a shared machine).
# perf's samples of uprofile itself are left out.  With --separate each
# profiler gets its own run.
#
# --kernel compares kprofile with `perf record -a` instead: both sample
# every CPU, and perf's kernel samples within kprofile's collection window
# (perf -k realtime) are compared with kprofile's rows.
#
# Prints, for perf's TOP (default 10) hottest symbols, perf's share,
# uprofile's share of the same symbol in the same object, the difference,
# then the largest absolute difference in percentage points, and last
# the number of samples each profiler counted.
# uprofile charges inlined code to the inlined function; here its rows are
# grouped by the out-of-line function (JSON inlined_into), which is what
# perf reports.  Samples perf cannot name (stripped code) are left out of
# the comparison (shares stay of all samples).  gcc's clone suffixes
# (.constprop.0, .isra.0, .part.0, .cold) are dropped on both sides:
# uprofile shows the DWARF name, kallsyms the suffixed one.
set -euo pipefail
top=10
hz=1000
separate=
kernel=
while [[ $# -gt 0 ]]; do
	case $1 in
	-n) top=$2; shift 2 ;;
	-F) hz=$2; shift 2 ;;
	--separate) separate=1; shift ;;
	--kernel) kernel=1; shift ;;
	*) break ;;
	esac
done
[[ $# -gt 0 ]] || {
	echo "usage: $0 [-n TOP] [-F HZ] [--separate] [--kernel] COMMAND [ARG...]" >&2
	exit 2
}
root=$(cd "$(dirname "$0")/.." && pwd)
uprofile=$root/${BUILD:-build}/uprofile
work=$(mktemp -d "${TMPDIR:-/tmp}/shares.XXXXXX")
trap 'rm -rf "$work"' EXIT

# -B: perf need not collect build-ids for this comparison.
window=
if [[ -n $kernel ]]; then
	kprofile=$root/${BUILD:-build}/kprofile
	perf record -B -q -k realtime -a -e cpu-clock -F "$hz" \
		-o "$work/perf.data" -- "$kprofile" -quiet -e cpu-clock -F "$hz" \
		-o "$work/umon.out" "$@" >/dev/null 2>&1
	window=$("$kprofile" -i "$work/umon.out" --format json | jq -r '
		"\(.start_time_ns / 1e9),\(.start_time_ns / 1e9 +
		 .duration_seconds)"' | awk -F, '{ printf "%.6f,%.6f", $1, $2 }')
	uprofile=$kprofile
elif [[ -n $separate ]]; then
	perf record -B -q -e cpu-clock:u -F "$hz" -o "$work/perf.data" -- "$@" \
		>/dev/null 2>&1
	"$uprofile" -quiet -e cpu-clock -F "$hz" -o "$work/umon.out" "$@" \
		>/dev/null
else
	perf record -B -q -e cpu-clock:u -F "$hz" -o "$work/perf.data" -- \
		"$uprofile" -quiet -e cpu-clock -F "$hz" -o "$work/umon.out" \
		"$@" >/dev/null 2>&1
fi

# perf: "share<TAB>object<TAB>symbol", shares of the sample periods.
perf script -i "$work/perf.data" ${window:+--time "$window"} \
	-F comm,period,ip,sym,dso 2>/dev/null |
	awk -v top="$top" -v kernel="$kernel" -v nfile="$work/perf.n" '
	(kernel ? $NF == "([kernel.kallsyms])" : $1 != "uprofile") && NF >= 4 {
		tot += $2
		nsamples++
		dso = $NF; gsub(/^\(|\)$/, "", dso); n = split(dso, p, "/")
		dso = p[n]
		sym = ""
		for (i = 4; i < NF; i++)
			sym = sym (i > 4 ? " " : "") $i
		if (sym == "" || sym == "[unknown]")
			next	# no symbol: nothing to compare by name
		gsub(/\.(constprop|isra|part|cold|lto_priv)(\.[0-9]+)?/, "", sym)
		w[dso "\t" sym] += $2
	}
	END {
		printf "%d\n", nsamples >nfile
		for (k in w)
			printf "%.4f\t%s\n", 100 * w[k] / tot, k
	}' | sort -t$'\t' -k1,1gr | awk -v top="$top" 'NR <= top' >"$work/perf.tsv"

"$uprofile" -i "$work/umon.out" --format json |
	jq -r '.rows[] | [(.inlined_into // .procedure),
		(.object | split("/") | last), .percent[]] | @tsv' |
	awk -F'\t' '{ sym = $1
		gsub(/\.(constprop|isra|part|cold|lto_priv)(\.[0-9]+)?/, "", sym)
		s[$2 "\t" sym] += $3 }
		END { for (k in s) print k "\t" s[k] }' >"$work/uprofile.tsv"

awk -F'\t' 'NR == FNR { u[$1 "\t" $2] = $3; next }
	{ k = $2 "\t" $3; up = (k in u) ? u[k] : 0; d = up - $1
	  if (d < 0) d = -d; if (d > max) max = d
	  printf "%8.2f %9.2f %6.2f  %s (%s)\n", $1, up, d, $3, $2 }
	BEGIN { printf "%8s %9s %6s  %s\n", "perf%", "uprofile%", "diff", "symbol (object)" }
	END { printf "largest difference: %.2f percentage points\n", max }' \
	"$work/uprofile.tsv" "$work/perf.tsv"
# For a tolerance from the sample counts (a binomial bound).
printf 'samples: perf %s, uprofile %s\n' "$(cat "$work/perf.n")" \
	"$("$uprofile" -i "$work/umon.out" --format json |
	   jq '[.statistics[].samples] | add')"
