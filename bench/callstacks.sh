#!/bin/bash
# Call stacks: what perf record --call-graph dwarf costs, against
# uprofile --call-graph=dwarf, on the same workloads in one run.
#
# Usage: bench/callstacks.sh [-k DIR] [WORKLOAD...]
#
# Workloads (default: all three):
#   python  python3 running a pure-Python recursive fib (PYFIB, 37: ~3 s);
#           the distribution's /usr/bin/python3 when there is one (built
#           without frame pointers), else python3's real executable
#           (sys.executable: not a wrapper script such as pyenv's)
#   callers build/tests/callers-nofp (-O2 -fomit-frame-pointer), 3 s
#   cc1     gcc's cc1 compiling big.c with -O2 (bench/bigc.py: CC1_FUNCS,
#           300, generated functions; preprocessed first, so that only
#           cc1 runs), ~3 s: its range analysis keeps frames of several
#           KiB, stacks deeper than the copy
#
# Each workload runs under each profiler, user mode, cpu-clock at FREQ Hz
# (default 4000, perf's default).  The profiler's
# own CPU time is read from /proc/PID/stat when it has exited and is not
# yet reaped (utime + stime, without its children's): no process stands
# between the profiler and the workload (perf's DWARF stacks of a process
# that another one forked lose their outer frames: 73% complete on
# callers-nofp under /usr/bin/time, 100% without).  For each tool it
# prints:
#   samples     perf: stacks of the workload in perf script; uprofile:
#               samples in its JSON report
#   cpu         CPU seconds (user + system) of the profiler process, and
#               us/sample: the CPU time less that of the same profiler
#               on `true` (start-up, build-ids of nothing), per sample
#   script_us   `perf script --no-inline`'s CPU time per sample: perf's
#               DWARF unwinding and symbolization, done at report time
#   bytes       perf.data / umon.out, and bytes per sample
#   wl_cpu_s    the workload's CPU seconds under the profiler (the
#               kernel's copy of the user stack at each sample is
#               charged to it)
#   complete    share of the stacks whose root is an entry point (_start,
#               __libc_start_call_main, main, start_thread, clone3, ...;
#               tests/tools/folded), from perf script for perf and from
#               --format folded for uprofile
# then the ratios uprofile/perf, and the CPU seconds of reading the stacks
# back: `perf report --children` on perf's file against `uprofile -tree`
# and `-callers HOTTEST` on uprofile's.  Without --call-graph in the
# build, uprofile's rows say "uprofile: not available".
#
# uprofile runs once without call stacks (uprofile/none: the floor, what
# a sample costs it before any stack is taken; its ratio to perf's says
# how far under perf's any stack collection could go), then once per
# stack copy size of SIZES ("32768 65528": the
# copy of each sample, --call-graph=dwarf,SIZE), each with its row and
# ratios, and a line with its ring's room (the ring's pages are run.c's,
# whatever the size), the samples lost and those whose stack ran out of
# copy ("stack copy too small").
#
# -k DIR keeps the profiles and outputs in DIR (default: a temporary
# directory, removed).  Environment: FREQ (4000), PYFIB (37), BUILD
# (build), CALLERS_MS (3000), PYTHON (see above), CC1_FUNCS (300), SIZES.
set -euo pipefail
keep=
if [[ ${1-} == -k ]]; then
	keep=$2
	shift 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
uprofile=$build/uprofile
folded=$root/tests/tools/folded
freq=${FREQ:-4000}
sizes=${SIZES:-32768 65528}
ring_pages=1024
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(python callers cc1)

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/callstacks.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }

# selfcpu FILE COMMAND [ARG...]: run COMMAND; write to FILE its own CPU
# seconds (user + system, all its threads) and its reaped children's,
# read while it is a zombie (waitid WNOWAIT), then reap it.  Its main
# thread's time is the scheduler's, to the nanosecond (schedstat); the
# other threads' (perf's and uprofile's second threads: little) and the
# children's are in clock ticks (10 ms), all /proc/PID/stat has.
cat >"$work/selfcpu.py" <<'EOF'
import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:])
os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
def ticks(path):
    with open(path) as f:
        return f.read().rsplit(")", 1)[1].split()[11:15]
tick = os.sysconf("SC_CLK_TCK")
utime, stime, cutime, cstime = (int(x) / tick
                                for x in ticks("/proc/%d/stat" % p.pid))
mu, ms = (int(x) / tick for x in ticks("/proc/%d/task/%d/stat" %
                                       (p.pid, p.pid))[:2])
with open("/proc/%d/schedstat" % p.pid) as f:
    main = int(f.read().split()[0]) / 1e9
p.wait()
with open(sys.argv[1], "w") as f:
    f.write("%.6f %.2f\n" % (main + max(0, utime + stime - mu - ms),
                             cutime + cstime))
sys.exit(p.returncode)
EOF
selfcpu() {
	python3 "$work/selfcpu.py" "$@"
}

have_uprofile=
help=$("$uprofile" --help 2>/dev/null) || true
[[ $help != *--call-graph* ]] || have_uprofile=1

# The workload's command line in the array cmd, its comm in comm.
setup_workload() {
	case $1 in
	python)
		cat >"$work/fib.py" <<-EOF
		def fib(n):
		    return n if n < 2 else fib(n - 1) + fib(n - 2)
		print(fib(${PYFIB:-37}))
		EOF
		python=${PYTHON:-}
		[[ -n $python ]] || ! [[ -x /usr/bin/python3 ]] ||
			python=/usr/bin/python3
		[[ -n $python ]] ||
			python=$(python3 -c 'import sys; print(sys.executable)')
		cmd=("$python" "$work/fib.py")
		comm=$(basename "$python")
		;;
	callers)
		cmd=("$build/tests/callers-nofp" "${CALLERS_MS:-3000}")
		comm=callers-nofp
		;;
	cc1)
		python3 "$root/bench/bigc.py" "${CC1_FUNCS:-300}" >"$work/big.c"
		gcc -E "$work/big.c" -o "$work/big.i"
		cmd=("$(gcc -print-prog-name=cc1)" -quiet -O2 "$work/big.i"
			-o "$work/big.s")
		comm=cc1
		;;
	*)
		echo "unknown workload '$1' (python, callers, cc1)" >&2
		exit 2
		;;
	esac
}

# cpu_of FILE: the own CPU seconds of a selfcpu FILE; children_of FILE:
# its children's.
cpu_of() {
	awk '{ printf "%.3f", $1 }' "$1"
}
children_of() {
	awk '{ printf "%.3f", $2 }' "$1"
}

# row TOOL SAMPLES CPU BASE_CPU SCRIPT_CPU BYTES K N WORKLOAD_CPU
row() {
	awk -v t="$1" -v s="$2" -v c="$3" -v z="$4" -v x="$5" -v b="$6" \
		-v k="$7" -v n="$8" -v w="$9" 'BEGIN {
		us = (s > 0) ? 1e6 * (c - z) / s : 0
		xs = (s > 0) ? 1e6 * x / s : 0
		bs = (s > 0) ? b / s : 0
		cs = (n > 0) ? 100 * k / n : 0
		printf "  %-14s %8d %8.3f %9.1f", t, s, c, us
		if (x != "")
			printf " %9.1f", xs
		else
			printf " %9s", "-"
		printf " %11d %9.0f", b, bs
		if (n > 0)
			printf " %8.2f%%", cs
		else
			printf " %9s", "-"
		printf " %8.2f\n", w
	}'
}

# Each profiler's CPU time on `true`: what it costs before any sample.
selfcpu "$work/perf.base" perf record -q -e cpu-clock:u \
	-F "$freq" --call-graph dwarf -o "$work/base.data" -- true >/dev/null 2>&1
p_base=$(cpu_of "$work/perf.base")
u_base=0
if [[ -n $have_uprofile ]] && selfcpu "$work/uprofile.base" \
	"$uprofile" -quiet -e cpu-clock -F "$freq" --call-graph=dwarf \
	-o "$work/base.out" true >/dev/null 2>&1; then
	u_base=$(cpu_of "$work/uprofile.base")
fi
un_base=0
if selfcpu "$work/none.base" "$uprofile" -quiet -e cpu-clock -F "$freq" \
	-o "$work/none-base.out" true >/dev/null 2>&1; then
	un_base=$(cpu_of "$work/none.base")
fi

# run_floor DIR: the workload under uprofile without call stacks (its
# row, uprofile/none, less uprofile without stacks on true): what a
# sample costs uprofile before any stack, and its ratio to perf's.
run_floor() {
	local d=$1 n
	if ! selfcpu "$d/none.time" "$uprofile" -quiet -e cpu-clock \
		-F "$freq" -o "$d/none.out" "${cmd[@]}" >/dev/null \
		2>"$d/none.err"; then
		echo "  uprofile/none: failed ($(head -n 1 "$d/none.err"))"
		return
	fi
	n=$("$uprofile" -i "$d/none.out" --format json |
		jq '[.statistics[].samples] | add')
	row uprofile/none "$n" "$(cpu_of "$d/none.time")" "$un_base" "" \
		"$(stat -c %s "$d/none.out")" 0 0 "$(children_of "$d/none.time")"
	awk -v ps="$p_samples" -v pc="$p_cpu" -v pz="$p_base" -v n="$n" \
		-v c="$(cpu_of "$d/none.time")" -v z="$un_base" 'BEGIN {
		if (ps == 0 || n == 0 || pc <= pz) exit
		printf "  ratio uprofile/none/perf: us/sample %.3f (no stacks: the floor under any stack collection)\n",
			((c - z) / n) / ((pc - pz) / ps)
	}'
}

# run_uprofile DIR SIZE: the workload under uprofile --call-graph=dwarf
# with SIZE bytes of stack copied per sample, its row, the ratios to
# perf's and the ring's room (RING_PAGES pages per CPU, run.c's); the
# first SIZE's files are DIR/umon.out and DIR/uprofile.json, the others'
# DIR/umon-SIZE.out.  1 when uprofile fails.
run_uprofile() {
	local d=$1 size=$2 out=$1/umon.out json=$1/uprofile.json tag
	tag=uprofile/$size
	if [[ -s $json ]]; then
		out=$d/umon-$size.out
		json=$d/uprofile-$size.json
	fi
	if ! selfcpu "$d/uprofile.time" "$uprofile" -quiet -e cpu-clock \
		-F "$freq" --call-graph=dwarf,"$size" -o "$out" "${cmd[@]}" \
		>/dev/null 2>"$d/uprofile.err" ||
		! "$uprofile" -i "$out" --format folded \
			>"$d/uprofile.folded" 2>>"$d/uprofile.err" ||
		! "$uprofile" -i "$out" --format json \
			>"$json" 2>>"$d/uprofile.err"; then
		echo "  uprofile: not available ($(head -n 1 "$d/uprofile.err"))"
		return 1
	fi
	u_samples=$(jq '[.statistics[].samples] | add' "$json")
	u_lost=$(jq '[.statistics[].lost] | add' "$json")
	u_dump=$(jq '[.call_stacks | if type == "array" then .[] else . end |
		.truncated[]? | select(.reason == "stack copy too small") |
		.samples] | add // 0' "$json")
	u_cpu=$(cpu_of "$d/uprofile.time")
	u_bytes=$(stat -c %s "$out")
	read -r u_k u_n < <(python3 "$folded" complete <"$d/uprofile.folded")
	row "$tag" "$u_samples" "$u_cpu" "$u_base" "" "$u_bytes" "$u_k" \
		"$u_n" "$(children_of "$d/uprofile.time")"
	awk -v ps="$p_samples" -v pc="$p_cpu" -v pz="$p_base" -v pu="$p_unwind" \
		-v pb="$p_bytes" -v us="$u_samples" -v uc="$u_cpu" \
		-v uz="$u_base" -v ub="$u_bytes" -v t="$tag" 'BEGIN {
		if (ps == 0 || us == 0 || pc <= pz) exit
		u = (uc - uz) / us
		printf "  ratio %s/perf: us/sample %.3f (with perf script %.3f), bytes/sample %.4f, file %.4f\n",
			t, u / ((pc - pz) / ps), u / ((pc - pz + pu) / ps),
			(ub / us) / (pb / ps), ub / pb
	}'
	# A sample takes SIZE bytes of the ring and some 120 more (header,
	# ids, time, period, registers, the copy's sizes).
	awk -v s="$size" -v p="$ring_pages" -v l="$u_lost" -v n="$u_samples" \
		-v t="$u_dump" 'BEGIN {
		printf "  %s: ring %d KiB per CPU, room for %d samples; %d lost (%.3f%%); stack copy too small %d (%.2f%%)\n",
			s, p * 4, p * 4096 / (s + 120), l, n ? 100 * l / (n + l) : 0,
			t, n ? 100 * t / n : 0
	}'
}

printf 'load average: %s; cpu-clock:u at %s Hz, DWARF stacks\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$freq"
printf 'profilers on true: perf %s s, uprofile %s s (without stacks %s s) of CPU\n' \
	"$p_base" "$u_base" "$un_base"
for w in "${workloads[@]}"; do
	setup_workload "$w"
	d=$work/$w
	mkdir -p "$d"
	echo
	echo "== $w: ${cmd[*]}"
	printf '  %-14s %8s %8s %9s %9s %11s %9s %9s %8s\n' tool samples cpu_s \
		us/sample script_us bytes bytes/smp complete wl_cpu_s

	selfcpu "$d/perf.time" perf record -q -e cpu-clock:u -F "$freq" \
		--call-graph dwarf -o "$d/perf.data" -- "${cmd[@]}" \
		>/dev/null 2>"$d/perf.err"
	selfcpu "$d/script.time" perf script -i "$d/perf.data" --comms "$comm" --no-inline \
		-F comm,tid,ip,sym,dso >"$d/perf.script" 2>/dev/null
	python3 "$folded" from-perf <"$d/perf.script" >"$d/perf.folded"
	p_samples=$(python3 "$folded" total <"$d/perf.folded")
	p_cpu=$(cpu_of "$d/perf.time")
	p_unwind=$(awk -v a="$(cpu_of "$d/script.time")" \
		-v b="$(children_of "$d/script.time")" 'BEGIN { printf "%.3f", a + b }')
	p_bytes=$(stat -c %s "$d/perf.data")
	read -r p_k p_n < <(python3 "$folded" complete <"$d/perf.folded")
	row perf "$p_samples" "$p_cpu" "$p_base" "$p_unwind" "$p_bytes" \
		"$p_k" "$p_n" "$(children_of "$d/perf.time")"

	if [[ -z $have_uprofile ]]; then
		echo "  uprofile: not available (no --call-graph in this build)"
		continue
	fi
	run_floor "$d"
	for size in $sizes; do
		run_uprofile "$d" "$size" || continue 2
	done
	# Reading the stacks back: perf's caller/callee report of its file
	# against uprofile's call tree and -callers of the hottest procedure
	# of its file (CPU seconds, children included: perf report runs
	# addr2line and objdump).
	hot=$(jq -r '.rows[0].procedure // empty' "$d/uprofile.json")
	u=$d/umon.out
	selfcpu "$d/report.time" perf report -i "$d/perf.data" --children \
		--stdio --comms "$comm" >"$d/perf.report" 2>/dev/null || true
	selfcpu "$d/tree.time" "$uprofile" -i "$u" -tree \
		>"$d/uprofile.tree" 2>/dev/null || true
	selfcpu "$d/callers.time" "$uprofile" -i "$u" -callers "$hot" \
		>"$d/uprofile.callers" 2>/dev/null || true
	sum_cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
	printf '  report: perf report --children %s s; uprofile -tree %s s, -callers %s %s s\n' \
		"$(sum_cpu "$d/report.time")" "$(sum_cpu "$d/tree.time")" \
		"$hot" "$(sum_cpu "$d/callers.time")"
done
