#!/bin/bash
# Python frames in call stacks (uprofile -g on a CPython): are they
# there, are they right, what do they cost the collector and the program?
#
# Usage: bench/python.sh [-k DIR] [collect] [slowdown] [self]
#
# The workload (app.py, written to the work directory) is pure Python:
# four functions f1..f4, each a loop whose time is almost all on one
# line (marked "# fN hot"; the loop's deadline check, "# fN check", is
# the only other line it runs).
#
# collect   app.py phases S LOG: f1, f2, f3, f4, f1, ... each for a random
#           20-60 ms (seeded), every switch logged with time.monotonic_ns()
#           and the offset of CLOCK_REALTIME from CLOCK_MONOTONIC, so that
#           each sample's time (the profile's time stream, exported with
#           --format firefox: ms from the run's start, whose wall-clock
#           time is meta.startTime) is placed in the schedule.  Each of
#           RUNS rounds runs, interleaved, for SHORT and for LONG seconds,
#             uprofile -v -g -e cpu-clock -F FREQ             (Python frames)
#             uprofile -v -g -e cpu-clock -F FREQ --python=off (native only)
#           and gives:
#   py%       the -v line "python: CPython ...: N of M samples with
#             Python frames" (target >= 95%)
#   cpu_s     the profiler's own CPU seconds, not its workload's: read
#             once it has exited and before it is reaped, from
#             /proc/PID/schedstat (it runs one thread: exact ns)
#   us/smp    cpu_s per sample (M, or the heading's count with
#             --python=off), the whole run: start-up and the end's
#             symbolization included
#   marg      (cpu_s LONG - cpu_s SHORT) / (samples LONG - SHORT): what a
#             sample costs once start and end are taken off
#           then the ratios with / without Python frames (target <= 3).
#           The LONG runs with Python frames are checked against the
#           schedule (check.py): a sample is ambiguous within AMBIG_MS
#           (2) of a switch and counted apart; the others must have as
#           innermost Python frame the function the log says ran then,
#           at one of its loop's lines (target >= 99%).  Skew: the share
#           of samples taken x ms before a switch that already show the
#           next phase is P(read more than x ms late); its sum over 0.25
#           ms bins up to 10 ms is the mean lateness.  Also counted:
#           samples taken before the first switch (interpreter start-up)
#           that show one of f1..f4 (read when it was already running),
#           and stacks whose root is a Python frame (no eval loop under
#           them); and, as a check that the clocks are lined up, samples
#           taken within AMBIG_MS after a switch that show the phase
#           before it (none can: it has returned).
# slowdown  app.py work WORK (fixed work: WORK rounds of f1..f4, ~3 s)
#           RUNS rounds, interleaved: alone; uprofile -g -e cpu-clock -F
#           FREQ; the same with --python=off; perf record -e cpu-clock:u
#           -F FREQ --call-graph dwarf; py-spy record -r FREQ (default,
#           which pauses the program to read it, and --nonblocking) when
#           py-spy is on PATH or PYSPY names it.  Per run: the work's own
#           wall and CPU seconds (app.py's, interpreter start and tools'
#           start and end left out) and the whole command's wall seconds;
#           medians over the rounds, and each tool's median of the
#           per-round ratios to the run alone (target <= 1.05 for
#           uprofile -g at 1 kHz).
# self      where the collector's CPU goes: uprofile -g --kernel --user
#           -F 4000 --pids on `uprofile -g ... app.py phases LONG`, the
#           inner uprofile's totals of the procedures that read Python
#           frames, poll and unwind; with strace installed, its
#           process_vm_readv and poll calls per sample (strace -c on a
#           SHORT run).  Needs --kernel (root, or perf_event_paranoid
#           <= 1).
#
# PYMODE=read runs every uprofile with Python frames as --python=read
# (frames read from the process, not copied at the sample by the BPF
# program: the way without root).
#
# Environment: PYTHON (/usr/bin/python3.11), FREQ (1000), RUNS (3 for
# collect, 5 for slowdown: RUNS sets both), SHORT (2), LONG (8), WORK
# (9000), AMBIG_MS (2), PYSPY, BUILD (build).  -k DIR keeps the profiles
# and logs in DIR.  About 3 minutes.
set -euo pipefail
keep=
if [[ ${1-} == -k ]]; then
	keep=$2
	shift 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
uprofile=$build/uprofile
python=${PYTHON:-/usr/bin/python3.11}
freq=${FREQ:-1000}
short=${SHORT:-2}
long=${LONG:-8}
work_n=${WORK:-9000}
ambig=${AMBIG_MS:-2}
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(collect slowdown self)
[[ -x $python ]] || { echo "no $python (PYTHON names another)" >&2; exit 1; }
[[ -x $uprofile ]] || { echo "no $uprofile: run make" >&2; exit 1; }
pyspy=${PYSPY:-$(command -v py-spy || true)}
pymode=()
[[ -z ${PYMODE-} ]] || pymode=("--python=$PYMODE")

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/pybench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

cat >"$work/app.py" <<'EOF'
"""python3 app.py phases SECONDS LOG: f1..f4 in turn, each for a random
20-60 ms, switches logged; python3 app.py work N: N rounds of f1..f4.
Prints the work's own wall and CPU seconds on stderr."""
import random
import sys
import time
from time import monotonic_ns

CHUNK = 4000


def f1(deadline):
    n = 0
    while True:  # f1 loop
        for i in range(CHUNK): n += i % 7  # f1 hot
        if monotonic_ns() >= deadline:  # f1 check
            return n


def f2(deadline):
    n = 0
    while True:  # f2 loop
        for i in range(CHUNK): n += i * 3 & 255  # f2 hot
        if monotonic_ns() >= deadline:  # f2 check
            return n


def f3(deadline):
    n = 0.0
    while True:  # f3 loop
        for i in range(CHUNK): n += i * 0.5  # f3 hot
        if monotonic_ns() >= deadline:  # f3 check
            return n


def f4(deadline):
    n = 0
    while True:  # f4 loop
        for i in range(CHUNK): n ^= i << 3  # f4 hot
        if monotonic_ns() >= deadline:  # f4 check
            return n


FUNCS = (f1, f2, f3, f4)


def phases(seconds, log):
    rnd = random.Random(1)
    out = []
    # CLOCK_REALTIME - CLOCK_MONOTONIC: the profile's run start is on the
    # wall clock
    m0 = monotonic_ns(); w0 = time.time_ns(); m1 = monotonic_ns()
    end = m0 + int(seconds * 1e9)
    k = 0
    t = monotonic_ns()
    while t < end:
        f = FUNCS[k % 4]
        out.append((t, f.__name__))
        f(t + rnd.randrange(20_000_000, 60_000_000))
        k += 1
        t = monotonic_ns()
    out.append((t, "end"))
    with open(log, "w") as fh:
        fh.write("offset %d\n" % (w0 - (m0 + m1) // 2))
        for t, name in out:
            fh.write("%d %s\n" % (t, name))


def work(rounds):
    for _ in range(rounds):
        for f in FUNCS:
            f(0)


def main():
    w0 = time.monotonic(); c0 = time.process_time()
    if sys.argv[1] == "phases":
        phases(float(sys.argv[2]), sys.argv[3])
    else:
        work(int(sys.argv[2]))
    print("work: %.6f s wall, %.6f s cpu" % (time.monotonic() - w0,
          time.process_time() - c0), file=sys.stderr)


main()
EOF

# check.py APP AMBIG_MS FIREFOX_JSON LOG [FIREFOX_JSON LOG...]: each
# sample's innermost Python frame against the logged schedule, all runs
# added up; one line of key=value, then the lateness curve.
cat >"$work/check.py" <<'EOF'
import bisect, json, sys

app, ambig = sys.argv[1], float(sys.argv[2]) * 1e6
lines = {}                      # fN: (hot line, {its loop's lines})
for no, text in enumerate(open(app), 1):
    if "#" in text:
        w = text.split("#")[-1].split()
        if len(w) == 2 and w[0] in ("f1", "f2", "f3", "f4"):
            hot, ok = lines.setdefault(w[0], [0, set()])
            ok.add(no)
            if w[1] == "hot":
                lines[w[0]][0] = no
BIN, NB = 250_000, 40           # lateness bins: 0.25 ms up to 10 ms
late = [[0, 0] for _ in range(NB)]
n = dict.fromkeys(("samples", "py", "before", "before_fn", "after",
                   "window", "ambig", "checked", "func_ok", "line_ok",
                   "hot", "next", "other", "nopy", "rootpy", "soon",
                   "prev"), 0)
for ff, log in zip(sys.argv[3::2], sys.argv[4::2]):
    d = json.load(open(ff))
    rows = open(log).read().split("\n")
    offset = int(rows[0].split()[1])
    sw = [(int(a), b) for a, b in (r.split() for r in rows[1:] if r)]
    st = [t for t, _ in sw]
    # the profile's times are ms from the run's start, meta.startTime
    # that start on the wall clock: on the monotonic clock it is t0
    t0 = round(d["meta"]["startTime"] * 1e6) - offset
    sh = d["shared"]
    S = sh["stringArray"]
    ft, fr, stk, src = (sh["funcTable"], sh["frameTable"],
                        sh["stackTable"], sh["sources"])
    pyfunc = [s is not None and S[src["filename"][s]].endswith(".py")
              for s in ft["source"]]
    for th in d["threads"]:
        sm = th["samples"]
        for i in range(sm["length"]):
            t = t0 + round(sm["time"][i] * 1e6)
            s, got, root_py = sm["stack"][i], None, False
            while True:         # leaf to root
                fi = stk["frame"][s]
                f = fr["func"][fi]
                root_py = pyfunc[f]
                if root_py and got is None:
                    got = (S[ft["name"][f]], fr["line"][fi])
                po = stk["prefixOffset"][s]
                if po == 0:
                    break
                s -= po
            n["samples"] += 1
            n["py"] += got is not None
            n["rootpy"] += root_py
            if t < st[0]:
                n["before"] += 1
                n["before_fn"] += got is not None and got[0] in lines
                continue
            if t >= st[-1]:
                n["after"] += 1
                continue
            n["window"] += 1
            k = bisect.bisect_right(st, t) - 1
            want = sw[k][1]
            dprev, dnext = t - st[k], st[k + 1] - t
            if dnext < NB * BIN:
                b = late[dnext // BIN]
                b[0] += 1
                b[1] += got is not None and got[0] != want
            if k and dprev < ambig:
                # after a switch, what ran before it cannot be read: a
                # sample showing it would say the clocks are not lined up
                n["soon"] += 1
                n["prev"] += got is not None and got[0] == sw[k - 1][1]
            if min(dprev, dnext) < ambig:
                n["ambig"] += 1
                continue
            n["checked"] += 1
            if got is None:
                n["nopy"] += 1
            elif got[0] == want:
                n["func_ok"] += 1
                n["line_ok"] += got[1] in lines[want][1]
                n["hot"] += got[1] == lines[want][0]
            elif got[0] == sw[k + 1][1]:
                n["next"] += 1
            else:
                n["other"] += 1
curve = [m / c if c else 0.0 for c, m in late]
mean = sum(curve) * BIN / 1e6


def upto(q):
    """The end of the first bin where fewer than q are later."""
    for b, p in enumerate(curve):
        if p < q:
            return "%.2f" % ((b + 1) * BIN / 1e6)
    return ">10"


def beyond(ms):
    """Percent read later than ms: the curve over the ms after it."""
    b = int(ms * 1e6) // BIN
    c = late[b:b + 4]
    return 100 * sum(m for _, m in c) / max(1, sum(n for n, _ in c))


print(" ".join("%s=%d" % kv for kv in n.items()),
      "skew_mean_ms=%.2f skew_p50_ms=%s skew_p90_ms=%s skew_gt2_pct=%.2f"
      " skew_gt5_pct=%.2f" %
      (mean, upto(0.5), upto(0.1), beyond(2), beyond(5)))
print("ms before a switch: share of the samples taken then that show the next phase (samples)")
for r in range(0, NB, 10):
    print("  " + " ".join("%.2f:%.2f(%d)" % (b * BIN / 1e6, curve[b], late[b][0])
                          for b in range(r, r + 10)))
EOF

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
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# pyline FILE: "N M" from -v's "N of M samples with Python frames"; else
# "0 M" with M the last line's "M samples".
pyline() {
	local l
	l=$(sed -n 's/.*python: .*: \([0-9]*\) of \([0-9]*\) samples with Python frames.*/\1 \2/p' "$1" | tail -n 1)
	[[ -n $l ]] || l="0 $(sed -n 's/.*uprofile: \([0-9]*\) samples (.*/\1/p' "$1" | tail -n 1)"
	echo "$l"
}

printf 'load average: %s; %s on %s CPUs; cpu-clock at %s Hz\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$("$python" -c 'import sys; print(sys.version.split()[0])')" \
	"$(nproc)" "$freq"

collect_part() {
	local runs=${RUNS:-3} i len mode d opt
	echo
	echo "== collect: app.py phases ($short s and $long s), $runs rounds"
	printf '%-5s %-5s %-4s %8s %8s %7s %8s %8s\n' round secs mode \
		samples with_py py% cpu_s us/smp
	: >"$work/collect.rows"
	local checks=()
	for ((i = 1; i <= runs; i++)); do
		for len in "$short" "$long"; do
			for mode in py off; do
				d=$work/c$i-$len-$mode
				mkdir -p "$d"
				opt=("${pymode[@]}")
				[[ $mode == py ]] || opt=(--python=off)
				selfcpu "$d/cpu" "$uprofile" -v -g -e cpu-clock \
					-F "$freq" "${opt[@]}" -o "$d/umon.out" \
					"$python" "$work/app.py" phases "$len" "$d/log" \
					>/dev/null 2>"$d/err"
				local np m c
				read -r np m < <(pyline "$d/err")
				c=$(cat "$d/cpu")
				awk -v i="$i" -v l="$len" -v mo="$mode" -v np="$np" \
					-v m="$m" -v c="$c" 'BEGIN {
					printf "%-5s %-5s %-4s %8d %8d %6.2f%% %8.3f %8.2f\n",
						i, l, mo, m, np, m ? 100 * np / m : 0, c,
						m ? 1e6 * c / m : 0 }'
				echo "$i $len $mode $m $np $c" >>"$work/collect.rows"
				if [[ $mode == py && $len == "$long" ]]; then
					"$uprofile" -i "$d/umon.out" --format firefox \
						-report-file "$d/ff.json" 2>/dev/null
					checks+=("$d/ff.json" "$d/log")
				fi
			done
		done
	done
	echo
	echo "per round: us per sample (whole run, $long s), marginal us per sample ($long s - $short s runs)"
	python3 - "$work/collect.rows" "$short" "$long" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
short, long_ = sys.argv[2], sys.argv[3]
r = {(a, b, c): (int(m), int(np), float(cpu)) for a, b, c, m, np, cpu in rows}
rounds = sorted({a for a, _, _ in r}, key=int)
agg = {k: [] for k in ("wpy", "woff", "wr", "mpy", "moff", "mr", "share")}
for a in rounds:
    w, mg = {}, {}
    for mode in ("py", "off"):
        m, _, c = r[a, long_, mode]
        ms, _, cs = r[a, short, mode]
        w[mode] = 1e6 * c / m
        mg[mode] = 1e6 * (c - cs) / (m - ms) if m > ms else float("nan")
    agg["wpy"].append(w["py"]); agg["woff"].append(w["off"])
    agg["wr"].append(w["py"] / w["off"])
    agg["mpy"].append(mg["py"]); agg["moff"].append(mg["off"])
    agg["mr"].append(mg["py"] / mg["off"])
    m, np, _ = r[a, long_, "py"]
    agg["share"].append(100 * np / m)
    print("  round %s: whole %.2f / %.2f us (x%.2f); marginal %.2f / %.2f us (x%.2f)"
          % (a, w["py"], w["off"], w["py"] / w["off"], mg["py"], mg["off"],
             mg["py"] / mg["off"]))
med = {k: statistics.median(v) for k, v in agg.items()}
print("medians: samples with Python frames %.2f%% (target >= 95%%)" % med["share"])
print("  collection CPU per sample, with / without Python frames: whole run %.2f / %.2f us = x%.2f;"
      " marginal %.2f / %.2f us = x%.2f (target <= 3)"
      % (med["wpy"], med["woff"], med["wr"], med["mpy"], med["moff"], med["mr"]))
EOF
	echo
	echo "check against the schedule ($runs runs of $long s, ambiguous within $ambig ms of a switch):"
	python3 "$work/check.py" "$work/app.py" "$ambig" "${checks[@]}" |
		tee "$work/check.out"
	awk 'NR == 1 { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["checked"]
		printf "  checked %d of %d samples (%d ambiguous): function right %.2f%%, function and line %.2f%% (target >= 99%%), on the hot line %.2f%%\n",
			c, v["window"], v["ambig"], c ? 100 * v["func_ok"] / c : 0,
			c ? 100 * v["line_ok"] / c : 0, c ? 100 * v["hot"] / c : 0
		printf "  wrong: %d show the next phase (read late by more than %s ms), %d another function, %d no Python frame\n",
			v["next"], "'"$ambig"'", v["other"], v["nopy"]
		printf "  read late by: mean %.2f ms (up to 10 ms), half within %s ms, 90%% within %s ms; %.2f%% later than 2 ms, %.2f%% later than 5 ms\n",
			v["skew_mean_ms"], v["skew_p50_ms"], v["skew_p90_ms"],
			v["skew_gt2_pct"], v["skew_gt5_pct"]
		printf "  clocks lined up: %d of the %d samples taken within %s ms after a switch show the phase before it (0 expected)\n",
			v["prev"], v["soon"], "'"$ambig"'"
		printf "  start-up: %d samples before the first switch, %d of them showing f1..f4; %d stacks rooted in a Python frame\n",
			v["before"], v["before_fn"], v["rootpy"] }' "$work/check.out"
}

slowdown_part() {
	local runs=${RUNS:-5} i t d tools=(alone uprofile python-off perf)
	[[ -z $pyspy ]] || tools+=(py-spy py-spy-nb)
	echo
	echo "== slowdown: app.py work $work_n, $runs rounds"
	echo "  uprofile -g -e cpu-clock -F $freq [--python=off]"
	echo "  perf record -e cpu-clock:u -F $freq --call-graph dwarf"
	if [[ -n $pyspy ]]; then
		echo "  $("$pyspy" --version) record -r $freq [--nonblocking]"
	else
		echo "  py-spy: not installed (PYSPY names one)"
	fi
	printf '%-5s %-10s %8s %8s %8s\n' round tool wl_wall wl_cpu cmd_wall
	: >"$work/slow.rows"
	for ((i = 1; i <= runs; i++)); do
		d=$work/s$i
		mkdir -p "$d"
		for t in "${tools[@]}"; do
			local cmd=("$python" "$work/app.py" work "$work_n")
			case $t in
			alone) ;;
			uprofile) cmd=("$uprofile" -quiet -g -e cpu-clock -F "$freq"
				"${pymode[@]}" -o "$d/u.umon" "${cmd[@]}") ;;
			python-off) cmd=("$uprofile" -quiet -g -e cpu-clock -F "$freq"
				--python=off -o "$d/off.umon" "${cmd[@]}") ;;
			perf) cmd=(perf record -q -e cpu-clock:u -F "$freq"
				--call-graph dwarf -o "$d/perf.data" -- "${cmd[@]}") ;;
			py-spy) cmd=("$pyspy" record -r "$freq" -f raw
				-o "$d/pyspy.txt" -- "${cmd[@]}") ;;
			py-spy-nb) cmd=("$pyspy" record -r "$freq" --nonblocking
				-f raw -o "$d/pyspy-nb.txt" -- "${cmd[@]}") ;;
			esac
			local s e
			s=$EPOCHREALTIME
			"${cmd[@]}" >"$d/$t.out" 2>"$d/$t.err"
			e=$EPOCHREALTIME
			local ww wc
			read -r ww wc < <(sed -n 's/^work: \([0-9.]*\) s wall, \([0-9.]*\) s cpu/\1 \2/p' "$d/$t.err")
			printf '%-5s %-10s %8.3f %8.3f %8.3f\n' "$i" "$t" "$ww" "$wc" \
				"$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')"
			echo "$i $t $ww $wc $s $e" >>"$work/slow.rows"
		done
		[[ -n $keep ]] || rm -f "$d/perf.data"
	done
	echo
	python3 - "$work/slow.rows" <<'EOF'
import statistics, sys
r = {}
for l in open(sys.argv[1]):
    i, t, ww, wc, s, e = l.split()
    r[i, t] = (float(ww), float(wc), float(e) - float(s))
rounds = sorted({i for i, _ in r}, key=int)
tools = []
for _, t in r:
    if t not in tools:
        tools.append(t)
print("medians over %d rounds; ratios: median of each round's ratio to the run alone" % len(rounds))
print("  %-10s %8s %8s %8s %8s %8s %8s" % ("tool", "wl_wall", "wl_cpu", "cmd_wall",
                                           "x wall", "x cpu", "x cmd"))
for t in tools:
    med = [statistics.median(r[i, t][k] for i in rounds) for k in range(3)]
    rat = [statistics.median(r[i, t][k] / r[i, "alone"][k] for i in rounds)
           for k in range(3)]
    print("  %-10s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f" % (t, *med, *rat))
print("target: uprofile -g's work wall time <= x1.05 of the run alone")
EOF
}

self_part() {
	local d=$work/self f inner= n
	rm -rf "$d"
	mkdir -p "$d"
	echo
	echo "== self: where uprofile -g's CPU goes on app.py phases $long (uprofile -g --kernel --user -F 4000 --pids on it)"
	if ! "$uprofile" -quiet -g --kernel --user -e cpu-clock -F 4000 --pids \
		--dirname "$d" -o self.umon -- "$uprofile" -quiet -g -e cpu-clock \
		-F "$freq" "${pymode[@]}" -o "$d/inner.umon" "$python" \
		"$work/app.py" phases \
		"$long" "$d/log" >/dev/null 2>"$d/err"; then
		echo "  not available ($(head -n 1 "$d/err"))"
		return
	fi
	for f in "$d"/self.umon.*; do
		! "$uprofile" -i "$f" 2>/dev/null | sed -n 1p |
			grep -qF "(uprofile): $uprofile " || inner=$f
	done
	[[ -n $inner ]] || { echo "  no profile of the inner uprofile"; return; }
	n=$("$uprofile" -i "$d/inner.umon" --format json 2>/dev/null |
		jq '[.statistics[].samples] | add')
	# totals from the folded stacks: the samples whose stack holds the
	# procedure (inlined or not), over all of the inner uprofile's
	"$uprofile" -i "$inner" --format folded 2>/dev/null |
		awk -v n="$n" -v procs="py_samples_add py_sample_stack py_code_info py_linetable_line process_vm_readv ptrace_may_access __poll collect_stacks_walk perf_session_drain" '
		BEGIN { np = split(procs, want, " ") }
		{
			c = $NF
			total += c
			k = split(substr($0, 1, length($0) - length(c) - 1), fr, ";")
			delete seen
			for (i = 1; i <= k; i++) {
				f = fr[i]
				sub(/_\[i\]$/, "", f)
				seen[f] = 1
			}
			for (i = 1; i <= np; i++)
				if (want[i] in seen)
					hit[want[i]] += c
		}
		END {
			printf "  %d samples of uprofile at 4 kHz: %.1f ms of CPU, %.2f us per sample of its %d\n",
				total, total / 4, n ? total * 250 / n : 0, n
			print "  share of its CPU (total: the procedure and what it calls):"
			for (i = 1; i <= np; i++)
				printf "    %s: %.1f%%\n", want[i],
					total ? 100 * hit[want[i]] / total : 0
		}'
	if command -v strace >/dev/null; then
		strace -c -o "$d/strace" -e trace=process_vm_readv,poll \
			"$uprofile" -quiet -g -e cpu-clock -F "$freq" \
			"${pymode[@]}" -o "$d/strace.umon" "$python" \
			"$work/app.py" phases "$short" \
			"$d/log2" >/dev/null 2>&1
		n=$("$uprofile" -i "$d/strace.umon" --format json 2>/dev/null |
			jq '[.statistics[].samples] | add')
		awk -v n="$n" '$NF == "process_vm_readv" || $NF == "poll" {
			printf "  %s: %d calls, %.1f per sample (strace -c, %d samples)\n",
				$NF, $4, n ? $4 / n : 0, n }' "$d/strace"
	fi
}

for p in "${parts[@]}"; do
	case $p in
	collect) collect_part ;;
	slowdown) slowdown_part ;;
	self) self_part ;;
	*) echo "unknown part '$p' (collect, slowdown, self)" >&2; exit 2 ;;
	esac
done
