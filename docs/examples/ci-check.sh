#!/bin/bash
# ci-check.sh - fail a CI job when a procedure's retired instructions grow.
#
#   ci-check.sh [-t PERCENT] [-m MIN] [-u] BASELINE.json PROGRAM [ARG...]
#
# Profiles PROGRAM with `uprofile --engine=sim` (exact instruction counts
# from valgrind: the same program and input give the same counts on every
# run and every machine with the same binaries) and compares each
# procedure's retired instructions with BASELINE.json.  Fails when one grew
# by more than PERCENT (default 5) percent.  Procedures below MIN retired
# instructions (default 1000) are left out of the baseline and not checked:
# a tiny one going from 3 to 4 instructions is not a regression.
#
#   -u   write BASELINE.json from this run instead (commit it)
#
# BASELINE.json maps "procedure (object)" to retired instructions, e.g.
#   {"loop_a (tripcount)": 40020, "loop_b (tripcount)": 30005}
#
# Exit status: 0 no regression (or baseline written), 1 a procedure grew
# too much, 2 usage error, the program failed or could not be profiled.
# UPROFILE names the uprofile binary (default: uprofile on PATH).
# Needs bash, jq and uprofile with valgrind.
set -euo pipefail

usage() {
	echo "usage: ci-check.sh [-t PERCENT] [-m MIN] [-u] BASELINE.json PROGRAM [ARG...]" >&2
	exit 2
}

pct=5 min=1000 update=0
while getopts "t:m:u" opt; do
	case $opt in
	t) pct=$OPTARG ;;
	m) min=$OPTARG ;;
	u) update=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -ge 2 && $pct =~ ^[0-9]+([.][0-9]+)?$ && $min =~ ^[0-9]+$ ]] || usage
baseline=$1
shift
uprofile=${UPROFILE:-uprofile}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The program's stdout and stderr stay its own; the report goes to a file.
status=0
"$uprofile" --engine=sim -quiet -o "$tmp/umon.out" --format json \
	-report-file "$tmp/report.json" "$@" || status=$?
if [[ $status -ne 0 ]]; then
	echo "ci-check: '$*' exited with status $status (125: uprofile failed)" >&2
	exit 2
fi

# One number per procedure and object, summed over its rows.
jq -S '[.rows[] | {key: "\(.procedure) (\(.object | split("/") | last))",
		   value: .weight.retinst}]
       | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)})
       | from_entries' "$tmp/report.json" >"$tmp/current.json"

if [[ $update -eq 1 ]]; then
	jq -S --argjson min "$min" 'with_entries(select(.value >= $min))' \
		"$tmp/current.json" >"$tmp/baseline.json"
	cp "$tmp/baseline.json" "$baseline"
	echo "ci-check: baseline written to $baseline ($(jq length "$baseline") procedures)"
	exit 0
fi
[[ -r $baseline ]] || { echo "ci-check: cannot read baseline '$baseline' (create it with -u)" >&2; exit 2; }

jq -r --argjson pct "$pct" --argjson min "$min" \
	--slurpfile cur "$tmp/current.json" '
	to_entries[] | select(.value >= $min)
	| .key as $k | .value as $b | ($cur[0][$k] // 0) as $c
	| select($c > $b * (1 + $pct / 100))
	| "  \($k): \($b) -> \($c) retired instructions (+\(((($c - $b) * 10000 / $b) | floor) / 100)%)"
	' "$baseline" >"$tmp/grown"

checked=$(jq --argjson min "$min" '[.[] | select(. >= $min)] | length' "$baseline")
if [[ -s $tmp/grown ]]; then
	echo "ci-check: retired instructions grew by more than $pct%:"
	cat "$tmp/grown"
	exit 1
fi
echo "ci-check: OK, no procedure grew by more than $pct% ($checked checked)"
