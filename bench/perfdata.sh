#!/bin/bash
# Reading perf record's files: uprofile -i perf.data against perf report
# on the same file, one recording of gcc's cc1 with DWARF stacks.
#
# Usage: bench/perfdata.sh [-k DIR]
#
# Writes a large C file (big.c: FUNCS generated functions of six kinds,
# loops, switches, lists, vector arithmetic, strings, small matrices, each
# calling an earlier one; seeded, the same file every time) and records
# its compile once:
#
#   perf record -e cpu-clock --call-graph dwarf -o cc1.data -- \
#       gcc -O2 -c big.c -o big.o
#
# (perf's default 4000 Hz and 8 KiB stack copies; gcc runs cc1, then as).
# Then times, interleaved RUNS times after a warm-up (the file read once,
# each command run once), with /usr/bin/time (wall, user + system
# seconds, maximum resident size):
#
#   uprofile -i cc1.data                         (procedures view)
#   uprofile -i cc1.data -tree
#   perf report --stdio -i cc1.data              (children by default:
#                                                 the file has stacks)
#   perf report --children --stdio -i cc1.data
#   perf report --stdio --no-inline -i cc1.data  (not a target: perf's
#                                                 report without its
#                                                 addr2line inline lookups)
#
# and writes `uprofile --merge merged.out cc1.data` once.  Targets (each
# of ours against each of perf's two reports, medians of the same run):
# time <= 1/3, maximum resident size <= perf's, merged.out <= 1/50 of
# cc1.data; PASS or MISS for each.
#
# Then the stacks: the share of samples whose stack reaches main or
# _start, from perf script (--no-inline; tests/tools/folded from-perf,
# user frames) and from uprofile --format folded, and the share whose root
# is an entry point (folded complete); the main rows of perf report
# --children and of -tree; perf's and uprofile's lost samples; the top
# procedures of both (perf report --no-children -g none --sort dso,sym
# against uprofile's JSON rows) and the samples each leaves unnamed.
#
# Environment: FUNCS (1000 functions: about 9-10 s of cc1 CPU, 38 000-
# 43 000 samples, a 320-360 MB cc1.data), RUNS (3), BUILD (build).  perf
# report --stdio takes minutes on this file (its addr2line child on cc1,
# which has no debug info, takes most of it): 3.5-7.5 minutes a run on 2
# vCPUs at load 6-8, and RUNS=3 about 45 minutes.  -k DIR keeps the work
# directory (big.c, cc1.data, the reports) in DIR.
set -euo pipefail
keep=
if [[ ${1-} == -k ]]; then
	keep=$2
	shift 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
[[ $build == /* ]] || build=$root/$build
uprofile=$build/uprofile
folded=$root/tests/tools/folded
funcs=${FUNCS:-1000}
runs=${RUNS:-3}
for tool in perf gcc python3 jq /usr/bin/time; do
	command -v "$tool" >/dev/null || {
		echo "perfdata: '$tool' is not installed" >&2
		exit 125
	}
done
[[ -x $uprofile ]] || {
	echo "perfdata: '$uprofile' missing; run make" >&2
	exit 125
}
if [[ -n $keep ]]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/perfdata.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
cd "$work"

# The workload: FUNCS functions, each of one of six shapes, each (but the
# first) calling an earlier one chosen at random, so that the inliner and
# the interprocedural passes have work too.
python3 "$root/bench/bigc.py" "$funcs" >big.c

# The share of samples whose stack holds a frame named main or _start
# (folded input): "K N".
cat >reach.py <<'EOF'
import re, sys
k = n = 0
for line in sys.stdin:
    m = re.match(r"^(.*) ([0-9]+)$", line.rstrip("\n"))
    if not m:
        continue
    c = int(m.group(2))
    names = {f.rsplit("`", 1)[-1].split(" ", 1)[0]
             for f in m.group(1).split(";")}
    n += c
    if "main" in names or "_start" in names:
        k += c
print(k, n)
EOF

printf 'load average: %s, %s CPUs; %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$(nproc)" "$(perf --version)"
cc1=$(gcc -print-prog-name=cc1)
printf 'workload: %s (%s functions, %s bytes), gcc -O2 -c (cc1: %s)\n' \
	big.c "$funcs" "$(stat -c %s big.c)" "$cc1"
rec=(perf record -e cpu-clock --call-graph dwarf -o cc1.data --
	gcc -O2 -c big.c -o big.o)
echo "recording: ${rec[*]}"
"${rec[@]}" >record.out 2>&1 || { cat record.out >&2; exit 1; }
perf report --stats -i cc1.data >stats.txt 2>/dev/null
p_samples=$(awk '/SAMPLE events:/ { print $3; exit }' stats.txt)
# The lost samples: the event's own LOST_SAMPLES count (perf record's
# total of the kernel's LOST records), not the aggregated number of
# records.
p_lost=$(awk '/ stats:/ && !/Aggregated/ { on = 1 }
	on && /LOST_SAMPLES events:/ { print $3; exit }' stats.txt)
p_bytes=$(stat -c %s cc1.data)
printf 'cc1.data: %s bytes, %s samples, %s lost (perf report --stats)\n' \
	"$p_bytes" "$p_samples" "${p_lost:-0}"

names=(u_proc u_tree p_report p_children p_noinline)
declare -A label
label[u_proc]="uprofile -i cc1.data"
label[u_tree]="uprofile -i cc1.data -tree"
label[p_report]="perf report --stdio -i cc1.data"
label[p_children]="perf report --children --stdio -i cc1.data"
label[p_noinline]="perf report --stdio --no-inline -i cc1.data"
# cmd_of NAME: NAME's command line in the array cmd.
cmd_of() {
	case $1 in
	u_proc) cmd=("$uprofile" -i cc1.data) ;;
	u_tree) cmd=("$uprofile" -i cc1.data -tree) ;;
	p_report) cmd=(perf report --stdio -i cc1.data) ;;
	p_children) cmd=(perf report --children --stdio -i cc1.data) ;;
	p_noinline) cmd=(perf report --stdio --no-inline -i cc1.data) ;;
	esac
}
# measure NAME: one run, "wall cpu kilobytes" appended to NAME.times, its
# output kept in NAME.txt.
measure() {
	local cmd
	cmd_of "$1"
	/usr/bin/time -o time.tmp -f '%e %U %S %M' "${cmd[@]}" \
		>"$1.txt" 2>"$1.err"
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' time.tmp >>"$1.times"
}
# median NAME COLUMN
median() {
	sort -g -k "$2" "$1.times" | awk -v c="$2" \
		'{ v[NR] = $c } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Warm-up: the file in the page cache, each uprofile command once, perf
# once without its inline lookups.
cat cc1.data >/dev/null
"$uprofile" -i cc1.data >/dev/null 2>&1
"$uprofile" -i cc1.data -tree >/dev/null 2>&1
perf report --stdio --no-inline -i cc1.data >/dev/null 2>&1
for n in "${names[@]}"; do
	: >"$n.times"
done
for ((i = 1; i <= runs; i++)); do
	for n in "${names[@]}"; do
		measure "$n"
		printf '  round %d: %-44s %s\n' "$i" "${label[$n]}" \
			"$(tail -n 1 "$n.times" | awk '{ printf "%.2f s, %.2f s CPU, %.0f MB", $1, $2, $3 / 1024 }')" >&2
	done
done

echo
echo "median of $runs interleaved runs (/usr/bin/time):"
printf '  %-44s %9s %9s %8s\n' command wall_s cpu_s MB
for n in "${names[@]}"; do
	printf '  %-44s %9.2f %9.2f %8.0f\n' "${label[$n]}" "$(median "$n" 1)" \
		"$(median "$n" 2)" "$(awk -v k="$(median "$n" 3)" 'BEGIN { print k / 1024 }')"
done

echo
echo "targets (uprofile / perf, medians):"
verdict() {
	awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "PASS" : "MISS") }'
}
for u in u_proc u_tree; do
	for p in p_report p_children; do
		tr=$(awk -v a="$(median "$u" 1)" -v b="$(median "$p" 1)" \
			'BEGIN { printf "%.4f", (b > 0 ? a / b : 99) }')
		cr=$(awk -v a="$(median "$u" 2)" -v b="$(median "$p" 2)" \
			'BEGIN { printf "%.4f", (b > 0 ? a / b : 99) }')
		mr=$(awk -v a="$(median "$u" 3)" -v b="$(median "$p" 3)" \
			'BEGIN { printf "%.4f", (b > 0 ? a / b : 99) }')
		printf '  %-28s vs %-44s time %s (CPU %s, target <= 1/3): %s; memory %s (target <= 1): %s\n' \
			"${label[$u]}" "${label[$p]}" "$tr" "$cr" \
			"$(verdict "$tr" 0.3333)" "$mr" "$(verdict "$mr" 1)"
	done
	tr=$(awk -v a="$(median "$u" 1)" -v b="$(median p_noinline 1)" \
		'BEGIN { printf "%.4f", (b > 0 ? a / b : 99) }')
	printf '  %-28s vs %-44s time %s (for information)\n' "${label[$u]}" \
		"${label[p_noinline]}" "$tr"
done
/usr/bin/time -o time.tmp -f '%e %M' "$uprofile" --merge merged.out cc1.data \
	>merge.out 2>&1
m_bytes=$(stat -c %s merged.out)
sr=$(awk -v a="$m_bytes" -v b="$p_bytes" 'BEGIN { printf "%.5f", a / b }')
printf '  uprofile --merge merged.out cc1.data: %s bytes (%s s, %.0f MB), %s of cc1.data = 1/%.1f (target <= 1/50): %s\n' \
	"$m_bytes" "$(cut -d' ' -f1 time.tmp)" \
	"$(awk '{ print $2 / 1024 }' time.tmp)" "$sr" \
	"$(awk -v r="$sr" 'BEGIN { print 1 / r }')" "$(verdict "$sr" 0.02)"

echo
echo "stacks (all processes of the recording: gcc, cc1, as):"
perf script -i cc1.data --no-inline -F comm,tid,ip,sym,dso \
	>perf.script 2>/dev/null
python3 "$folded" from-perf <perf.script >perf.folded
"$uprofile" -i cc1.data --format folded >uprofile.folded 2>/dev/null
share() {
	awk '{ printf "%d of %d = %.2f%%", $1, $2, $2 ? 100 * $1 / $2 : 0 }'
}
printf '  reaching main or _start: perf script %s; uprofile --format folded %s\n' \
	"$(python3 reach.py <perf.folded | share)" \
	"$(python3 reach.py <uprofile.folded | share)"
printf '  root an entry point (tests/tools/folded complete): perf %s; uprofile %s\n' \
	"$(python3 "$folded" complete <perf.folded | share)" \
	"$(python3 "$folded" complete <uprofile.folded | share)"
printf '  main row: perf report --children %s; uprofile -tree %s\n' \
	"$(awk '$NF == "main" && $2 ~ /%$/ { print $1; exit }' p_children.txt)" \
	"$(awk '$NF == "main" { print $1 "%"; exit }' u_tree.txt)"
printf '  uprofile -tree heading: %s\n' \
	"$(grep -m 1 'call stacks' u_tree.txt | sed 's/^ *//')"
printf '  lost: perf %s (perf report --stats); uprofile heading: %s\n' \
	"${p_lost:-0}" "$(sed -n 2p u_proc.txt | sed 's/^ *//')"

echo
echo "top procedures by samples (self):"
perf report --no-children --stdio -g none --sort dso,sym -q -n -i cc1.data \
	2>/dev/null | awk '{ n = $2; d = $3; $1 = $2 = $3 = $4 = ""
		sub(/^ +/, ""); print n "\t" $0 "\t" d }' >perf.self
"$uprofile" -i cc1.data --format json 2>/dev/null | jq -r '.rows[] |
	"\(.samples["cpu-clock"])\t\(.procedure)\t\(.object | split("/") | last)"' \
	>uprofile.self
paste <(head -n 15 perf.self | awk -F'\t' '{ printf "%6d %-40.40s\n", $1, $2 }') \
	<(head -n 15 uprofile.self | awk -F'\t' '{ printf "%6d %-40.40s\n", $1, $2 }') |
	awk 'BEGIN { printf "  %-47s   %s\n", "perf report --no-children", "uprofile -i" } { printf "  %s\n", $0 }'
printf '  unnamed: perf %s samples (addresses, 0x...), uprofile %s (func@ADDRESS: unwind-table extents)\n' \
	"$(awk -F'\t' '$2 ~ /^0x/ { s += $1 } END { print s + 0 }' perf.self)" \
	"$(awk -F'\t' '$2 ~ /^func@|^\[/ { s += $1 } END { print s + 0 }' uprofile.self)"
printf '  perf names not among uprofile'"'"'s (>= 20 samples): %s\n' \
	"$(awk -F'\t' 'NR == FNR { u[$2]; next } !($2 in u) && $1 >= 20 && $2 !~ /^0x/ { printf "%s%s (%d)", sep, $2, $1; sep = ", " }' \
		uprofile.self perf.self)"
printf '  kernel frames left as addresses in uprofile'"'"'s stacks: %s samples\n' \
	"$(awk '/\[kernel.kallsyms\]\+0x/ { s += $NF } END { print s + 0 }' uprofile.folded)"
