#!/bin/bash
# Off-CPU time: what `uprofile -e offcpu -g` costs per recorded switch,
# against `perf record -e sched:sched_switch --call-graph dwarf`, on a
# ping-pong of two threads over pipes (build/tests/pingpong: every round
# trip switches each thread out once, 200 000+ switches a second here).
#
# Usage: bench/offcpu.sh [-k DIR] [-- UPROFILE_OPTION...]
#
# Needs root (perf reads sched:sched_switch from tracefs): when tracefs is
# not mounted, the script runs itself again in a mount namespace of its
# own (unshare -m) with tracefs mounted there, so the machine is left as
# it was; both tools then see the same tracefs (uprofile, as root, also
# samples sched_switch, whose prev_state tells S from D).
#
# Each round runs, interleaved, the workload alone, under uprofile and
# under perf, and measures in that round:
#   wl_s      the workload's own wall time (pingpong's round trips, from
#             its first write to its last read: the tools' start and end
#             are left out)
#   slow      wl_s under the tool / wl_s alone in the same round
#   cpu_s     CPU seconds of the profiler process itself, not of its
#             workload: read once it has exited and before it is reaped,
#             from /proc/PID/schedstat (its run time in ns) or, when other
#             threads of it ran, /proc/PID/stat (user + system of all its
#             threads, in ticks of 10 ms)
#   recorded  uprofile: the intervals of its heading ("N intervals");
#             perf: the sched_switch samples in perf.data (perf report
#             --stats)
#   lost      uprofile: the heading's "lost" (records the kernel dropped);
#             perf: its lost samples (LOST_SAMPLES, perf report --stats)
#   us/rec    cpu_s per recorded interval or sample, in microseconds
#   bytes     the profile's size: umon.out, perf.data
# and the ratios uprofile/perf of us/rec, bytes and slow.  The summary
# gives the median of each figure and of each ratio over the rounds.
# perf record runs as users run it (build-ids collected at the end); its
# command line is printed.  Options after -- go to uprofile; one naming
# a call-graph mode (--call-graph=dwarf,8192) replaces -g.
#
# Environment: ROUNDS (200000 round trips), RUNS (5 rounds), BUILD
# (build).  -k DIR keeps the profiles and outputs in DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [[ ! -r /sys/kernel/tracing/events/sched/sched_switch/id &&
	-z ${OFFCPU_BENCH_NS-} ]]; then
	if [[ $(id -u) != 0 ]]; then
		echo "bench/offcpu.sh: needs root (perf's sched:sched_switch)" >&2
		exit 1
	fi
	exec env OFFCPU_BENCH_NS=1 unshare -m --propagation private \
		bash -c 'mount -t tracefs nodev /sys/kernel/tracing &&
			exec bash "$0" "$@"' "$0" "$@"
fi

keep=
if [[ ${1-} == -k ]]; then
	keep=$2
	shift 2
fi
[[ ${1-} != -- ]] || shift
uopts=("$@")
# -g, unless the options name a call-graph mode of their own.
[[ " ${uopts[*]-} " == *" --call-graph"* ]] || uopts=(-g "${uopts[@]}")
build=$root/${BUILD:-build}
uprofile=$build/uprofile
pingpong=$build/tests/pingpong
rounds=${ROUNDS:-200000}
runs=${RUNS:-5}
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }
[[ -x $pingpong ]] || { echo "no $pingpong: run make" >&2; exit 1; }

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/offcpu.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

# selfcpu FILE COMMAND [ARG...]: run COMMAND; write to FILE its own CPU
# seconds, read while it is a zombie (waitid WNOWAIT), then reap it.
cat >"$work/selfcpu.py" <<'EOF'
import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:])
os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
with open("/proc/%d/stat" % p.pid) as f:
    fields = f.read().rsplit(")", 1)[1].split()
tick = os.sysconf("SC_CLK_TCK")
utime, stime = (int(x) / tick for x in fields[11:13])
# The leader's run time in ns: exact where stat counts 10 ms ticks; the
# ticks of all threads only when other threads ran too.
with open("/proc/%d/schedstat" % p.pid) as f:
    exact = int(f.read().split()[0]) / 1e9
p.wait()
with open(sys.argv[1], "w") as f:
    f.write("%.4f\n" % (exact if utime + stime <= exact + 2.0 / tick
                        else utime + stime))
sys.exit(p.returncode)
EOF
selfcpu() {
	python3 "$work/selfcpu.py" "$@"
}
# wl_time FILE: the workload's seconds from its "N round trips in S s".
wl_time() {
	sed -n 's/.* round trips in \([0-9.]*\) s.*/\1/p' "$1" | tail -n 1
}

perf_cmd=(perf record -e sched:sched_switch --call-graph dwarf)
printf 'load average: %s; %s round trips; %s rounds\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$rounds" "$runs"
printf 'uprofile -e offcpu %s\n%s\n' "${uopts[*]}" "${perf_cmd[*]}"
printf '%-5s %-8s %7s %6s %7s %9s %9s %8s %11s\n' round tool wl_s slow \
	cpu_s recorded lost us/rec bytes
out=$work/rows
: >"$out"
for ((i = 1; i <= runs; i++)); do
	d=$work/$i
	mkdir -p "$d"
	"$pingpong" "$rounds" 2>"$d/alone.err"
	a=$(wl_time "$d/alone.err")
	printf '%-5s %-8s %7.3f\n' "$i" alone "$a"

	selfcpu "$d/u.cpu" "$uprofile" -quiet -e offcpu "${uopts[@]}" \
		-o "$d/umon.out" "$pingpong" "$rounds" 2>"$d/u.err"
	head=$("$uprofile" -i "$d/umon.out" 2>/dev/null | sed -n 2p)
	u_rec=$(grep -o '[0-9]* intervals' <<<"$head" | cut -d' ' -f1)
	u_lost=$(grep -o '[0-9]* lost' <<<"$head" | cut -d' ' -f1)
	u_lost=${u_lost:-0}
	u_cpu=$(cat "$d/u.cpu")
	u_wl=$(wl_time "$d/u.err")
	u_bytes=$(stat -c %s "$d/umon.out")

	selfcpu "$d/p.cpu" "${perf_cmd[@]}" -o "$d/perf.data" \
		"$pingpong" "$rounds" 2>"$d/p.err" >/dev/null
	perf report -i "$d/perf.data" --stats >"$d/p.stats" 2>/dev/null
	read -r p_rec p_lost < <(awk '
		/sched:sched_switch stats:/ { on = 1; next }
		on && /SAMPLE events:/ { s = $NF }
		on && /LOST_SAMPLES events:/ { l = $NF }
		END { print s + 0, l + 0 }' "$d/p.stats")
	p_cpu=$(cat "$d/p.cpu")
	p_wl=$(wl_time "$d/p.err")
	p_bytes=$(stat -c %s "$d/perf.data")
	[[ -n $keep ]] || rm -f "$d/perf.data"

	awk -v i="$i" -v a="$a" -v uw="$u_wl" -v uc="$u_cpu" -v ur="$u_rec" \
		-v ul="$u_lost" -v ub="$u_bytes" -v pw="$p_wl" -v pc="$p_cpu" \
		-v pr="$p_rec" -v pl="$p_lost" -v pb="$p_bytes" 'BEGIN {
		uus = ur > 0 ? 1e6 * uc / ur : 0
		pus = pr > 0 ? 1e6 * pc / pr : 0
		fmt = "%-5s %-8s %7.3f %6.2f %7.2f %9d %9d %8.2f %11.0f\n"
		printf fmt, i, "uprofile", uw, uw / a, uc, ur, ul, uus, ub
		printf fmt, i, "perf", pw, pw / a, pc, pr, pl, pus, pb
		printf "%-5s %-8s %7s %6.2f %7s %9s %9s %8.3f %11.6f\n", i,
			"ratio", "", (uw / a) / (pw / a), "", "", "",
			(pus > 0 ? uus / pus : 0), ub / pb
		print i, a, uw, uw / a, uc, ur, ul, uus, ub, pw, pw / a, pc, pr,
			pl, pus, pb, (uw / a) / (pw / a), (pus > 0 ? uus / pus : 0), ub / pb \
			>> "'"$out"'"
	}'
done

# Medians over the rounds, column by column.
awk -v n="$runs" '
function median(c,   k, j, t, v) {
	for (k = 1; k <= n; k++)
		v[k] = col[c, k]
	for (k = 2; k <= n; k++)
		for (j = k; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{ r++; for (c = 1; c <= NF; c++) col[c, r] = $c }
END {
	n = r
	print ""
	printf "medians of %d rounds:\n", n
	printf "  alone     wl %.3f s\n", median(2)
	printf "  uprofile  wl %.3f s (x%.2f), cpu %.2f s, %d intervals, %d lost, %.2f us/interval, %.0f bytes\n",
		median(3), median(4), median(5), median(6), median(7),
		median(8), median(9)
	printf "  perf      wl %.3f s (x%.2f), cpu %.2f s, %d samples, %d lost, %.2f us/sample, %.0f bytes\n",
		median(10), median(11), median(12), median(13), median(14),
		median(15), median(16)
	printf "  uprofile/perf: us per record %.3f (target <= 0.5), bytes %.6f = 1/%.0f (target <= 1/50), slowdown %.3f (target <= 1)\n",
		median(18), median(19), 1 / median(19), median(17)
}' "$out"
