#!/bin/bash
# The time stream (section 15 of the profile): what keeping every
# sample's time costs, and how fast a time window is reported.
#
# Usage: bench/timestream.sh [-k DIR] [size] [cpu] [window]
#
# size    build/tests/workers (4 threads busy for SECONDS, 20) sampled on
#         cpu-clock at 1000 Hz, without and with -g, by:
#           uprofile  section 15's bytes per event (its size over the
#                     event count in its header, read with
#                     tests/tools/umonsections.py), the file's size
#           perf      perf record -F 1000 -e cpu-clock [-g]: perf.data
#         with the profiler's own CPU seconds, not its workload's (as
#         bench/offcpu.sh reads them: /proc/PID/schedstat once it has
#         exited).  Each round runs the four commands interleaved; the
#         summary gives the medians of bytes per event and of umon.out /
#         perf.data (whole files, and per sample).
# cpu     the collection CPU of this build against OLD, both attached at
#         once (-p, -d SECONDS, -F CPUFREQ) to one run of
#         build/tests/workers 4, with and without -g, RUNS rounds: the
#         same threads sampled over the same time, so both take the same
#         samples (within 1%) and the ratio of their CPU times
#         (/proc/PID/schedstat) compares what each spends on them, under
#         the same load; the median ratio.
# window  one run of build/tests/workers (4 threads, WSECONDS, 25) at
#         WFREQ Hz (20000) of cpu-clock, sampled at once by perf record
#         and by uprofile (perf runs uprofile, which runs the workload:
#         both profiles come from the same run, about 1 000 000 samples
#         each on 2 CPUs), then times, interleaved RUNS times after a
#         warm-up, the whole report and the report of the window
#         WINDOW (40%-60%):
#           uprofile -i umon.out [--time WINDOW]
#           perf report -i perf.data --stdio --sort sym [--time WINDOW]
#         (median wall and CPU seconds from /usr/bin/time).
#
# Environment: SECONDS_RUN (20), RUNS (3), CPUFREQ (1000: the cpu part's
# sampling rate; more samples weigh the per-sample cost against the
# start, whose dynamic linking both builds pay), OLD (/tmp/old/build/uprofile,
# a build of the commit before the time stream, which the cpu part needs:
# `git archive 257abd3 | tar -x -C /tmp/old && make -C /tmp/old
# build/uprofile`), BUILD (build), WSECONDS (25), WFREQ (20000), WINDOW
# (40%-60%).  -k DIR keeps the profiles in DIR.
set -euo pipefail
keep=
if [[ ${1-} == -k ]]; then
	keep=$2
	shift 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
uprofile=$build/uprofile
workers=$build/tests/workers
old=${OLD:-/tmp/old/build/uprofile}
secs=${SECONDS_RUN:-20}
cpufreq=${CPUFREQ:-1000}
runs=${RUNS:-3}
window=${WINDOW:-40%-60%}
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(size cpu window)
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 1; }
[[ -x $workers ]] || { echo "no $workers: run make" >&2; exit 1; }

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	work=$(cd "$keep" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/timestream.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

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
# sec15 FILE: section 15's bytes and its event count (its header's).
cat >"$work/sec15.py" <<EOF
import struct, sys
sys.path.insert(0, "$root/tests/tools")
import umonsections
data = open(sys.argv[1], "rb").read()
for sid, body in umonsections.sections(data):
    if sid == 15:
        print(len(body), struct.unpack_from("<Q", body, 8)[0])
        break
else:
    print(0, 0)
EOF
selfcpu() {
	python3 "$work/selfcpu.py" "$@"
}
# samples_of FILE: a profile's samples (its JSON report's).
samples_of() {
	"$uprofile" -i "$1" --format json 2>/dev/null |
		jq '[.statistics[].samples] | add'
}
perf_samples() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { for (i = 1; i < NF; i++)
			if ($i == "events:") { print $(i + 1); exit } }'
}
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

size_part() {
	local i g d
	echo
	echo "== size: workers 4 $secs, cpu-clock at 1000 Hz, $runs rounds"
	printf '%-5s %-3s %-9s %8s %8s %9s %9s %9s\n' round g tool cpu_s \
		samples file_B sec15_B B/event
	: >"$work/size.rows"
	for ((i = 1; i <= runs; i++)); do
		for g in no -g; do
			local gopt=()
			[[ $g == no ]] || gopt=(-g)
			d=$work/size-$i$g
			mkdir -p "$d"
			selfcpu "$d/u.cpu" "$uprofile" -quiet -e cpu-clock -F 1000 \
				"${gopt[@]}" -o "$d/umon.out" "$workers" 4 "$secs"
			selfcpu "$d/p.cpu" perf record -q -e cpu-clock -F 1000 \
				"${gopt[@]}" -o "$d/perf.data" "$workers" 4 "$secs" \
				>/dev/null 2>&1
			local us ub s15 ev pc ps pb uc
			us=$(samples_of "$d/umon.out")
			ub=$(stat -c %s "$d/umon.out")
			read -r s15 ev < <(python3 "$work/sec15.py" "$d/umon.out")
			uc=$(cat "$d/u.cpu")
			pc=$(cat "$d/p.cpu")
			ps=$(perf_samples "$d/perf.data")
			pb=$(stat -c %s "$d/perf.data")
			[[ -n $keep ]] || rm -f "$d/perf.data"
			awk -v i="$i" -v g="$g" -v uc="$uc" -v us="$us" -v ub="$ub" \
				-v s15="$s15" -v ev="$ev" -v pc="$pc" -v ps="$ps" \
				-v pb="$pb" 'BEGIN {
				f = "%-5s %-3s %-9s %8.3f %8d %9d %9s %9s\n"
				printf f, i, g, "uprofile", uc, us, ub, s15,
					sprintf("%.2f", ev ? s15 / ev : 0)
				printf f, i, g, "perf", pc, ps, pb, "", ""
			}'
			echo "$g $uc $us $ub $s15 $ev $pc $ps $pb" >>"$work/size.rows"
		done
	done
	echo
	echo "medians over the rounds:"
	for g in no -g; do
		local bpe fr sr
		bpe=$(awk -v g=$g '$1 == g && $6 { print $5 / $6 }' "$work/size.rows" | median)
		fr=$(awk -v g=$g '$1 == g && $9 { print $4 / $9 }' "$work/size.rows" | median)
		sr=$(awk -v g=$g '$1 == g && $8 && $3 { print ($4 / $3) / ($9 / $8) }' "$work/size.rows" | median)
		printf '  %-3s section 15: %.2f bytes/event (target <= 4); umon.out / perf.data %.5f = 1/%.0f, per sample %.5f = 1/%.0f (target <= 1/20 with -g)\n' \
			"$g" "$bpe" "$fr" "$(awk -v r="$fr" 'BEGIN { print r ? 1 / r : 0 }')" \
			"$sr" "$(awk -v r="$sr" 'BEGIN { print r ? 1 / r : 0 }')"
	done
}

# attach.py SECONDS OPTS NEW OLD OUTDIR: one workers run, NEW and OLD
# attached at once; prints "new_s new_samples old_s old_samples".
cat >"$work/attach.py" <<'EOF'
import json, os, subprocess, sys, time
secs, opts, new, old, out = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
w = subprocess.Popen([os.environ["WORKERS"], "4", str(float(secs) + 3)])
time.sleep(0.5)
procs = [subprocess.Popen([b, "-quiet", "-e", "cpu-clock", "-F", os.environ["CPUFREQ"]] + opts +
                          ["-p", str(w.pid), "-d", secs, "-o", "%s/%s.out" % (out, n)])
         for n, b in (("new", new), ("old", old))]
res = []
for n, p in zip(("new", "old"), procs):
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    with open("/proc/%d/schedstat" % p.pid) as f:
        ns = int(f.read().split()[0])
    p.wait()
    j = json.loads(subprocess.run([new, "-i", "%s/%s.out" % (out, n), "--format", "json"],
                                  capture_output=True).stdout)
    res += ["%.4f" % (ns / 1e9), str(j["statistics"][0]["samples"])]
w.wait()
print(" ".join(res))
EOF

cpu_part() {
	local i g r d
	[[ -x $old ]] || { echo "no $old: the cpu part needs it" >&2; return; }
	echo
	echo "== cpu: this build and $old attached at once to workers 4 for $secs s, cpu-clock at $cpufreq Hz, $runs rounds"
	printf '%-5s %-3s %9s %8s %9s %8s %7s\n' round g new_cpu_s samples old_cpu_s samples ratio
	: >"$work/cpu.rows"
	for ((i = 1; i <= runs; i++)); do
		for g in no -g; do
			d=$work/cpu-$i$g
			mkdir -p "$d"
			r=$(WORKERS=$workers CPUFREQ=$cpufreq python3 "$work/attach.py" "$secs" \
				"$([[ $g == no ]] || echo -g)" "$uprofile" "$old" "$d")
			echo "$g $r" >>"$work/cpu.rows"
			awk -v i="$i" -v g="$g" '{ printf "%-5s %-3s %9.4f %8d %9.4f %8d %7.3f\n",
				i, g, $1, $2, $3, $4, $1 / $3 }' <<<"$r"
		done
	done
	for g in no -g; do
		printf '  %-3s median CPU ratio this build / old: %s (target <= 1.10)\n' "$g" \
			"$(awk -v g=$g '$1 == g && $4 > 0 { print $2 / $4 }' "$work/cpu.rows" | median)"
	done
}

window_part() {
	local wsecs=${WSECONDS:-25} wfreq=${WFREQ:-20000} d=$work/window i
	mkdir -p "$d"
	echo
	echo "== window: workers 4 $wsecs at $wfreq Hz, perf record and uprofile on the same run"
	perf record -q -e cpu-clock -F "$wfreq" -o "$d/perf.data" -- \
		"$uprofile" -quiet -e cpu-clock -F "$wfreq" -o "$d/umon.out" \
		"$workers" 4 "$wsecs" >/dev/null 2>&1
	printf '  samples: uprofile %s, perf %s; sizes: umon.out %s, perf.data %s bytes\n' \
		"$(samples_of "$d/umon.out")" "$(perf_samples "$d/perf.data")" \
		"$(stat -c %s "$d/umon.out")" "$(stat -c %s "$d/perf.data")"
	local -a names=("uprofile -i umon.out" "uprofile -i umon.out --time $window"
		"perf report --stdio --sort sym" "perf report --stdio --sort sym --time $window")
	local -a cmds=("$uprofile -i $d/umon.out"
		"$uprofile -i $d/umon.out --time $window"
		"perf report -i $d/perf.data --stdio --sort sym"
		"perf report -i $d/perf.data --stdio --sort sym --time $window")
	local k
	for k in 0 1 2 3; do	# warm-up
		${cmds[$k]} >"$d/out.$k" 2>/dev/null || true
	done
	: >"$d/times"
	for ((i = 1; i <= runs; i++)); do
		for k in 0 1 2 3; do
			/usr/bin/time -f "$k %e %U %S" -a -o "$d/times" \
				${cmds[$k]} >/dev/null 2>&1 || true
		done
	done
	for k in 0 1 2 3; do
		printf '  %-52s wall %6.2f s  cpu %6.2f s\n' "${names[$k]}" \
			"$(awk -v k=$k '$1 == k { print $2 }' "$d/times" | median)" \
			"$(awk -v k=$k '$1 == k { print $3 + $4 }' "$d/times" | median)"
	done
	awk -v n="$runs" '
	{ w[$1, ++c[$1]] = $2; u[$1, c[$1]] = $3 + $4 }
	END {
		for (r = 1; r <= n; r++) {
			printf "  round %d: uprofile/perf wall: whole %.3f, window %.3f; cpu: whole %.3f, window %.3f\n", r,
				w[0, r] / w[2, r], w[1, r] / w[3, r], u[0, r] / u[2, r], u[1, r] / u[3, r]
		}
	}' "$d/times"
}

for p in "${parts[@]}"; do
	case $p in
	size) size_part ;;
	cpu) cpu_part ;;
	window) window_part ;;
	*) echo "unknown part '$p' (size, cpu, window)" >&2; exit 2 ;;
	esac
done
