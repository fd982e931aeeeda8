# Common setup for the bats test suite.  In each .bats file:
#
#     load helpers
#
# This provides a default setup() that calls common_setup; a file that
# defines its own setup() must call common_setup first.
#
# Environment:
#   BUILD   build directory relative to the repository root (default
#           "build"; "build-san" for the sanitizer build)

bats_require_minimum_version 1.5.0

# A pipeline fails when any of its commands fails, so no test hides our
# tools' exit status behind a pipe.  (Readers that stop early, head or
# grep -q, would then fail their writer with SIGPIPE: tests read whole
# outputs instead.)
set -o pipefail

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
UPROFILE=$ROOT/$BUILD/uprofile
KPROFILE=$ROOT/$BUILD/kprofile
# Test programs (tests/programs/*.c); the sanitizer build has its own copy.
TPROG=$ROOT/$BUILD/tests
export ROOT BUILD UPROFILE KPROFILE TPROG
# Reports fetch missing debug info from the servers DEBUGINFOD_URLS names:
# the tests' reports use this machine's files only, unless a test starts
# its own server (tests/1760-debuginfod.bats).
unset DEBUGINFOD_URLS

# Each test runs in its own empty directory, so umon.out / kmon.out land
# there and the repository tree stays clean.  A test that starts processes
# in the background adds their pids to BG_PIDS; the default teardown kills
# those still running (see kill_started).
common_setup() {
	BG_PIDS=()
	NOBODY_DIR=
	cd "$BATS_TEST_TMPDIR" || return 1
}

setup() {
	common_setup
}

teardown() {
	kill_started "${BG_PIDS[@]}"
	[[ -z ${NOBODY_DIR-} ]] || rm -rf "$NOBODY_DIR"
}

# as_nobody COMMAND [ARG...]: run COMMAND as nobody without privileges.
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$@"
}

# nobody_dir: make a directory nobody can write to the current directory
# of the test (NOBODY_DIR, removed by the default teardown); skips unless
# root can switch to nobody and nobody can run the tools.
nobody_dir() {
	skip_unless_root
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	id nobody >/dev/null 2>&1 && getent group nogroup >/dev/null ||
		skip "no user nobody / group nogroup"
	as_nobody "$UPROFILE" --version >/dev/null 2>&1 &&
		as_nobody "$KPROFILE" --version >/dev/null 2>&1 ||
		skip "nobody cannot run the tools (a directory on the way is not searchable)"
	NOBODY_DIR=$(mktemp -d /tmp/uprofile-test.XXXXXX)
	chmod 777 "$NOBODY_DIR"
	cd "$NOBODY_DIR"
}

# fake_procsys [NAME=VALUE...]: a directory for UPROFILE_PROCSYS holding
# this machine's perf_event_paranoid, perf_event_max_sample_rate and
# kptr_restrict, with the NAMEs given set to VALUE instead; prints its
# path.  Readable by nobody.
fake_procsys() {
	local dir name kv
	dir=$(mktemp -d "${NOBODY_DIR:-$BATS_TEST_TMPDIR}/procsys.XXXXXX")
	for name in perf_event_paranoid perf_event_max_sample_rate kptr_restrict; do
		cat "/proc/sys/kernel/$name" >"$dir/$name"
	done
	for kv in "$@"; do
		echo "${kv#*=}" >"$dir/${kv%%=*}"
	done
	chmod -R a+rX "$dir"
	echo "$dir"
}

# golden NAME COMMAND...: COMMAND (a --dry-run) succeeds and prints
# exactly tests/golden/NAME.attr.
golden() {
	local name=$1
	shift
	run -0 "$@"
	diff -u "$ROOT/tests/golden/$name.attr" <(printf '%s\n' "$output") ||
		fail "attributes differ from tests/golden/$name.attr"
}

# json_check [FILE]: FILE (default stdin) is one JSON document as a strict
# parser reads it (tests/tools/jsoncheck): well-formed UTF-8, no object
# with a key twice, no NaN.  jq and Python's json accept all three, so
# every test that has a JSON report checks it here as well.
json_check() {
	python3 "$ROOT/tests/tools/jsoncheck" "$@" ||
		fail "not a strict JSON document: ${1:-stdin}"
}

# json_share PROC STAT FILE
# Print the percentage of statistic STAT (e.g. cpu-clock; empty: the
# first statistic) attributed to procedure PROC in a JSON report FILE
# ("-" for stdin) of schema version 1 (docs/json-report.md), as a number
# with two decimals: the sum of .rows[].percent[STAT] over the rows whose
# "procedure" is PROC (several objects, processes or, in a -lines
# report, lines), 0.00 if there is none.
#
# Fails with a message, printing nothing, if FILE is not such a report:
# not JSON (json_check: strictly), schema_version missing or not 1, no "statistics" or "rows"
# array, STAT not one of the statistics, or a row whose "procedure" is
# not a string or whose "percent" has no number for STAT.
json_share() {
	local proc=$1 stat=$2 file=$3 out doc
	[[ $file == - ]] && file=/dev/stdin
	doc=$(cat -- "$file") || return 1
	python3 "$ROOT/tests/tools/jsoncheck" <<<"$doc" || {
		echo "json_share: '$file' is not strict JSON" >&2
		return 1
	}
	out=$(jq -e -r --arg p "$proc" --arg s "$stat" '
	def die($m): error("json_share: " + $m);
	if type != "object" then die("not a JSON object")
	elif has("schema_version") | not then die("no schema_version")
	elif .schema_version != 1 then
		die("schema_version \(.schema_version|tojson), expected 1")
	elif (.statistics | type) != "array" or (.statistics | length) == 0
		then die("no statistics array")
	elif (.rows | type) != "array" then die("no rows array")
	else . end
	| (if $s == "" then .statistics[0].name else $s end) as $stat
	| if ([.statistics[].name] | index($stat)) == null then
		die("statistic \($stat|tojson) not in the report (has " +
		    ([.statistics[].name] | join(", ")) + ")")
	  else . end
	| [.rows[]
	   | if (.procedure | type) != "string" then
		die("row without a procedure name: \(tojson)")
	     elif (.percent | type) != "object" or
		  (.percent[$stat] | type) != "number" then
		die("row without percent.\($stat): \(tojson)")
	     else . end
	   | select(.procedure == $p) | .percent[$stat]]
	| add // 0
	' <<<"$doc") || {
		echo "json_share: '$file' is not a schema 1 report with" \
			"statistic '${stat:-(first)}'" >&2
		return 1
	}
	awk -v v="$out" 'BEGIN { printf "%.2f\n", v }'
}

# assert_near ACTUAL EXPECTED TOLERANCE
# Fail unless |ACTUAL - EXPECTED| <= TOLERANCE (all decimal numbers).
assert_near() {
	local actual=$1 expected=$2 tol=$3
	if ! awk -v a="$actual" -v e="$expected" -v t="$tol" 'BEGIN {
		num = "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$"
		if (a !~ num || e !~ num || t !~ num) exit 1
		d = a - e
		if (d < 0) d = -d
		exit !(d <= t + 0)
	}'; then
		batslib_print_kv_single_or_multi 9 \
			'expected' "$expected +/- $tol" \
			'actual' "$actual" |
			batslib_decorate 'value not within tolerance' |
			fail
	fi
}

# Sampling assertions.  The number K of a profile's N samples that fall in
# a procedure whose true share is P is binomial: its standard deviation
# is sqrt(N P (1 - P)).  assert_binomial accepts
#     |K - N P| <= 4.5 sqrt(N P (1 - P)) + 1
# (4.5 standard deviations: a correct program fails about once in 150,000
# assertions, whatever the machine or its load).  The bound shrinks as
# the workload grows, so each test also states the widest bound, in points
# of share, at which its claim still means something (MAXTOL, default 10):
# a run with too few samples fails as "workload too short", never passes
# on a bound that proves nothing.
#
# assert_binomial WHAT K N P_PERCENT [MAXTOL]
assert_binomial() {
	local what=$1 k=$2 n=$3 p=$4 maxtol=${5:-10} msg
	msg=$(awk -v k="$k" -v n="$n" -v p="$p" -v m="$maxtol" -v w="$what" '
	BEGIN {
		if (k !~ /^[0-9]+$/ || n !~ /^[0-9]+$/ || n == 0) {
			printf "%s: bad sample counts K=%s N=%s", w, k, n
			exit
		}
		p /= 100
		bound = 4.5 * sqrt(n * p * (1 - p)) + 1
		tol = 100 * bound / n
		if (tol > m) {
			printf "%s: workload too short: %d samples give a bound of +/-%.1f points, the claim needs +/-%s", w, n, tol, m
			exit
		}
		d = k - n * p
		if (d < 0) d = -d
		if (d > bound)
			printf "%s: %d of %d samples (%.2f%%), expected %.2f%% +/- %.2f points (4.5 sigma)", w, k, n, 100 * k / n, 100 * p, tol
	}')
	[[ -z $msg ]] || fail "$msg"
}

# json_samples PROC STAT FILE: the samples of statistic STAT in the rows
# of procedure PROC of a JSON report FILE ("-": stdin), 0 if none.
json_samples() {
	local file=$3
	[[ $file == - ]] && file=/dev/stdin
	jq -e --arg p "$1" --arg s "$2" '[.rows[] | select(.procedure == $p)
		| .samples[$s] // 0] | add // 0' "$file"
}

# assert_split JSON A B P_PERCENT [MAXTOL]: of the samples of the report
# JSON (text) that are in procedures A or B, A has P percent (binomial
# bound, above).  A split between two procedures of one program is free
# of what the rest of the run costs (start-up, clock reads).
assert_split() {
	local json=$1 a=$2 b=$3 p=$4 maxtol=${5:-10} stat ka kb
	stat=$(jq -r '.statistics[0].name' <<<"$json")
	ka=$(json_samples "$a" "$stat" - <<<"$json")
	kb=$(json_samples "$b" "$stat" - <<<"$json")
	assert_binomial "$a against $b" "$ka" "$((ka + kb))" "$p" "$maxtol"
}

# profile_of NAME PROGRAM [ARG...]
# Profile PROGRAM once per file run (cached in $BATS_FILE_TMPDIR, so any
# test can run alone) and copy the profile to ./NAME.out.
profile_of() {
	local name=$1
	shift
	skip_unless_perf_works
	local cached=$BATS_FILE_TMPDIR/$name.out
	if [[ ! -s $cached ]]; then
		run -0 "$UPROFILE" -quiet -e cpu-clock -o "$cached.new" "$@"
		mv "$cached.new" "$cached"
	fi
	cp "$cached" "$name.out"
}

skip_unless_root() {
	[[ $(id -u) -eq 0 ]] || skip "needs root (uid $(id -u))"
}

# Skip when the kernel refuses perf_event_open for the cpu-clock software
# event (seccomp in containers, perf_event_paranoid=3, no perf support).
# The check runs once per test run and is cached.
skip_unless_perf_works() {
	local cache=${BATS_RUN_TMPDIR:-/tmp}/perf-works
	if [[ ! -e $cache ]]; then
		if ! command -v perf >/dev/null; then
			echo "perf (package linux-perf) is not installed" >"$cache"
		elif ! perf stat -x, -e cpu-clock -- true 2>&1 |
			grep -Eq '^[0-9.]+,[^,]*,cpu-clock'; then
			echo "perf_event_open(cpu-clock) fails here" \
				"(perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?'))" >"$cache"
		else
			: >"$cache"
		fi
	fi
	[[ ! -s $cache ]] || skip "$(cat "$cache")"
}

# wait_nonempty FILE [SECONDS]
# Wait until FILE exists and is not empty (default: at most 10 s);
# fail if it does not happen in time.
wait_nonempty() {
	local file=$1 tenths=$((${2:-10} * 10))
	while [[ ! -s $file ]] && ((tenths-- > 0)); do
		sleep 0.1
	done
	[[ -s $file ]] || fail "'$file' still empty after ${2:-10} s"
}

# ms_since START_NS: milliseconds elapsed since START_NS ($(date +%s%N)).
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# run_in_own_pgrp COMMAND [ARG...]
# Exec COMMAND as the leader of a new process group (as a shell with job
# control starts a foreground job), with SIGINT and SIGQUIT at their
# default actions: background jobs of scripts inherit them ignored, a
# terminal's Ctrl-C does not find them so.  The process group id is the
# pid of the caller's "run_in_own_pgrp ... &".
run_in_own_pgrp() {
	exec perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; setpgrp(0, 0);
		exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n"' "$@"
}

# has_pmu: true when the machine has hardware performance counters
# (perf can count instructions).  Tests of the no-PMU fallbacks skip
# when it is true, tests of hardware statistics when it is false.
has_pmu() {
	local cache=${BATS_RUN_TMPDIR:-/tmp}/has-pmu
	if [[ ! -e $cache ]]; then
		if command -v perf >/dev/null &&
			perf stat -x, -e instructions -- true 2>&1 |
			grep -Eq '^[0-9]+,'; then
			echo yes >"$cache"
		else
			echo no >"$cache"
		fi
	fi
	[[ $(cat "$cache") == yes ]]
}

# kill_started PID...
# For teardown: SIGKILL each PID that still runs one of our programs
# (uprofile, kprofile or a test program; a pid that has been reused by
# something else is left alone) and reap it if it is our child.
kill_started() {
	local p cmd
	for p; do
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
		case $cmd in
		"$UPROFILE "* | "$KPROFILE "* | "$TPROG"/*) ;;
		*) continue ;;
		esac
		kill -KILL "$p" 2>/dev/null || continue
		wait "$p" 2>/dev/null || true
	done
}

# ---- kprofile tests ----------------------------------------------------

# The online CPUs, one number a line ("0-1,3" -> 0 1 3).
online_cpus() {
	local part
	local -a parts
	IFS=, read -ra parts </sys/devices/system/cpu/online
	for part in "${parts[@]}"; do
		if [[ $part == *-* ]]; then
			seq "${part%-*}" "${part#*-}"
		else
			echo "$part"
		fi
	done
}

# A shell script that runs "$@" once on every online CPU (pinned), so
# that every CPU is busy, and waits for them.
on_every_cpu() {
	local c script=""
	for c in $(online_cpus); do
		script+="taskset -c $c \"\$@\" & "
	done
	echo "${script}wait"
}

# sanitized [PROGRAM]: whether PROGRAM (default: uprofile) is a sanitizer
# build (make SANITIZE=1): its shadow memory reserves terabytes of
# address space, and it runs several times slower.
sanitized() {
	[[ $(ldd "${1:-$UPROFILE}" 2>/dev/null) == *libasan* ]]
}

# rounds N: N rounds of a test's random damage, a quarter of them in a
# sanitizer build: the fuzz targets run the same readers and reports under
# the sanitizers (fuzz/), in process, thousands of inputs a second.
rounds() {
	if sanitized; then
		echo $(($1 / 4))
	else
		echo "$1"
	fi
}

# Idle loops (what an idle CPU's samples are in, whatever the hypervisor
# calls its halt: native_safe_halt, pvm_safe_halt_hc, ...) and the points
# where the kernel enables interrupts again: a timer (cpu-clock) sample
# that falls due while interrupts are off is
# taken when they are enabled, so under some hypervisors (where enabling
# them is a call, pvm_irq_enable, ...) that routine holds a large share of
# kernel samples.  finish_task_switch is such a point after every context
# switch: on a machine that switches 10^5 times a second (other work) it
# leads a system-wide profile.  Kernel tests compare shares among the
# other procedures.
KERNEL_NOISE_RE='^(.*safe_halt.*|.*_idle|.*_idle_.*|default_idle.*|arch_cpu_idle.*|cpu_idle_poll.*|poll_idle|mwait_idle.*|intel_idle.*|acpi_idle.*|cpuidle_enter.*|do_idle|.*halt_hc.*|.*irq_enable.*|.*irqrestore.*|finish_task_switch.*)$'

# busy_share PROC: percent of the samples of the report $json outside
# KERNEL_NOISE_RE procedures that are in procedure PROC.
busy_share() {
	jq --arg p "$1" --arg n "$KERNEL_NOISE_RE" '
		[.rows[] | select(.procedure | test($n) | not)] as $busy
		| ([$busy[] | .samples["cpu-clock"]] | add // 0) as $all
		| if $all == 0 then 0 else 100 * ([$busy[] |
		  select(.procedure == $p) | .samples["cpu-clock"]] | add // 0)
		  / $all end' <<<"$json"
}

# top_busy: the hottest procedure of the report $json outside
# KERNEL_NOISE_RE.
top_busy() {
	jq -r --arg n "$KERNEL_NOISE_RE" '[.rows[] |
		select(.procedure | test($n) | not)][0].procedure' <<<"$json"
}

# The oracle for kprofile's sample modes: the kernel's own accounting of
# each CPU's time in /proc/stat.  proc_stat_cpus prints its cpuN lines;
# check_modes_against BEFORE AFTER checks, for every CPU with enough time
# in both, that the kernel-mode share of the report $json's user and kernel
# samples agrees with /proc/stat's system+irq+softirq share of
# user+nice+system+irq+softirq between the two snapshots.  Both are counts
# of a share (samples; ticks of 1/USER_HZ), so the bound is 4.5 standard
# deviations of their difference, plus 5 points for the snapshots' window
# being a little wider than the profile's.  Whatever else the machine
# runs, both see the same CPUs.
proc_stat_cpus() {
	grep '^cpu[0-9]' /proc/stat
}

check_modes_against() {
	local stat ours c share ticks n=0
	stat=$(awk 'NR == FNR { for (i = 2; i <= 8; i++) b[$1, i] = $i; next }
		{ u = $2 - b[$1, 2] + $3 - b[$1, 3]
		  k = $4 - b[$1, 4] + $7 - b[$1, 7] + $8 - b[$1, 8]
		  if (u + k >= 50)
			printf "%s %.4f %d\n", substr($1, 4), k / (u + k), u + k }' \
		<(echo "$1") <(echo "$2"))
	while read -r c share ticks; do
		ours=$(jq -r --argjson c "$c" '.modes[] | select(.cpu == $c) |
			select(.user + .kernel >= 200) |
			"\(.kernel) \(.user + .kernel)"' <<<"$json")
		[[ -n $ours ]] || continue
		awk -v o="$ours" -v p="$share" -v t="$ticks" -v c="$c" 'BEGIN {
			split(o, f, " "); q = f[1] / f[2]
			sd = sqrt(p * (1 - p) / t + q * (1 - q) / f[2])
			bound = 4.5 * sd + 0.05
			d = q - p
			if (d > bound || -d > bound) {
				printf "CPU %s: %.1f%% of %d user+kernel samples in kernel mode, /proc/stat says %.1f%% of %d ticks (bound %.1f points)\n", c, 100 * q, f[2], 100 * p, t, 100 * bound
				exit 1
			}
		}' || fail "sample modes disagree with /proc/stat"
		n=$((n + 1))
	done <<<"$stat"
	((n > 0)) || fail "no CPU with enough samples and ticks to compare: $stat"
}

# kjson FILE: the JSON report of FILE in $json (kprofile must succeed).
kjson() {
	run -0 --separate-stderr "$KPROFILE" -i "$1" --format json
	json=$output
}

# Sum of every mode column of every CPU in the JSON report $json.
modes_total() {
	jq '[.modes[] | .user + .kernel + .idle + .guest + .hypervisor] |
		add // 0' <<<"$json"
}

# shares_tolerance OUTPUT: the largest difference two independent
# samplers of the same shares may show, in percentage points, from the
# "samples: perf N, uprofile M" line of bench/shares.sh: 4 standard
# deviations of a difference of two binomial shares at the worst case
# p = 0.5, and never under 3 points (the bar of the comparison).
shares_tolerance() {
	local n m
	read -r n m < <(sed -n 's/^samples: perf \([0-9]*\), uprofile \([0-9]*\)$/\1 \2/p' <<<"$1")
	[[ -n $n && -n $m && $n -gt 0 && $m -gt 0 ]] ||
		{ echo "shares_tolerance: no sample counts" >&2; return 1; }
	awk -v n="$n" -v m="$m" 'BEGIN {
		t = 100 * 4 * sqrt(0.25 * (1 / n + 1 / m))
		printf "%.2f\n", t < 3 ? 3 : t }'
}

# kernel_build_id: the running kernel's build-id (hex), from
# /sys/kernel/notes; empty when it has none.
kernel_build_id() {
	/usr/bin/python3 -c 'import sys
h = open("/sys/kernel/notes", "rb").read()
o = 0
while o + 12 <= len(h):
    n, d, t = (int.from_bytes(h[o + 4 * i:o + 4 * i + 4], "little") for i in range(3))
    name = o + 12
    desc = name + ((n + 3) & ~3)
    if t == 3 and h[name:name + 4] == b"GNU\0":
        print(h[desc:desc + d].hex())
        break
    o = desc + ((d + 3) & ~3)' 2>/dev/null || true
}

# ---- waiting for events -------------------------------------------------
# Tests wait for the event they need (a file, a line, a signal mask, open
# perf events, CPU time used), never for a fixed time: each wait below
# polls for its event and fails after a timeout (SECONDS, default 60) that
# only bounds a hang, however slow or busy the machine.

# proc_field PID N: field N of /proc/PID/stat counted after the command
# name (1 state, 12 utime, 13 stime); fails if PID is gone.
proc_field() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	awk -v n="$2" '{ print $n }' <<<"$stat"
}

# proc_running PID: PID exists and has not exited (not a zombie).
proc_running() {
	local s
	s=$(proc_field "$1" 1) && [[ -n $s && $s != Z && $s != X ]]
}

# cpu_ticks PID: the CPU time PID has used (user + system), in clock
# ticks (1/100 s).
cpu_ticks() {
	local s
	s=$(proc_field "$1" 12) && local u=$s &&
		s=$(proc_field "$1" 13) && echo $((u + s))
}

# sig_in_mask PID FIELD SIG: signal SIG (a number or a name: TERM, USR1)
# is in FIELD (SigBlk, SigIgn, SigCgt, SigPnd, ShdPnd) of
# /proc/PID/status.
sig_in_mask() {
	local n=$3 hex
	[[ $n == [0-9]* ]] || n=$(kill -l "${n#SIG}") || return 1
	hex=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null)
	[[ -n $hex ]] || return 1
	(((16#$hex >> (n - 1)) & 1))
}

# perf_events_open PID: PID has a perf event open (an fd on
# anon_inode:[perf_event]).
perf_events_open() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		[[ $(readlink "$fd" 2>/dev/null) == 'anon_inode:[perf_event]' ]] &&
			return 0
	done
	return 1
}

# wait_until SECONDS WHAT COMMAND [ARG...]: run COMMAND every 20 ms until
# it succeeds; fail ("WHAT") after SECONDS.
wait_until() {
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s%N) + secs * 1000000000))
	until "$@"; do
		if (($(date +%s%N) > end)); then
			fail "still waiting after $secs s: $what"
			return 1
		fi
		sleep 0.02
	done
}

# wait_profiling PID [SIG...] [-t SECONDS]: wait until the profiler PID
# has its perf events open and, for each SIG, has it blocked (SigBlk: the
# tools read SIGINT, SIGTERM, SIGUSR1... from a signalfd, and block them
# before they open the events, so a signal sent from here on is read, not
# fatal).  Fails at once if PID exits.
wait_profiling() {
	local pid=$1 secs=60 s end ok
	local -a sigs=()
	shift
	while (($#)); do
		if [[ $1 == -t ]]; then
			secs=$2
			shift 2
		else
			sigs+=("$1")
			shift
		fi
	done
	end=$(($(date +%s%N) + secs * 1000000000))
	while :; do
		proc_running "$pid" || {
			fail "process $pid ended before it was profiling (perf events open${sigs[*]:+, ${sigs[*]} blocked})"
			return 1
		}
		if perf_events_open "$pid"; then
			ok=1
			for s in "${sigs[@]}"; do
				sig_in_mask "$pid" SigBlk "$s" || ok=0
			done
			((ok)) && return 0
		fi
		if (($(date +%s%N) > end)); then
			fail "process $pid has no perf events open (or does not block ${sigs[*]}) after $secs s"
			return 1
		fi
		sleep 0.02
	done
}

# wait_cpu PID TICKS [SECONDS]: wait until PID has used TICKS clock ticks
# (1/100 s) of CPU time in all; fails if it exits first.
wait_cpu() {
	local pid=$1 want=$2 secs=${3:-60} t end
	end=$(($(date +%s%N) + secs * 1000000000))
	while :; do
		t=$(cpu_ticks "$pid") || {
			fail "process $pid ended before it used $want ticks of CPU"
			return 1
		}
		((t >= want)) && return 0
		if (($(date +%s%N) > end)); then
			fail "process $pid used $t of $want ticks of CPU in $secs s"
			return 1
		fi
		sleep 0.02
	done
}

# wait_exit PID [SECONDS]: wait until PID has exited (gone, or a zombie
# its parent, maybe this shell, has still to reap); the caller then
# `wait`s for its status.  Fails after SECONDS.
proc_exited() {
	! proc_running "$1"
}

wait_exit() {
	wait_until "${2:-60}" "process $1 to exit" proc_exited "$1"
}

# wait_line FILE REGEX [COUNT] [SECONDS]: wait until COUNT (default 1)
# lines of FILE match the extended REGEX.
lines_matching() {
	(($(grep -Ec -- "$2" "$1" 2>/dev/null) >= $3))
}

wait_line() {
	wait_until "${4:-60}" "${3:-1} line(s) matching '$2' in $1" \
		lines_matching "$1" "$2" "${3:-1}"
}

# ---- CPUs ----------------------------------------------------------------

# expand_cpu_list LIST: the CPUs of a list such as "0-2,5", one a line.
expand_cpu_list() {
	local part
	local -a parts
	IFS=, read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		if [[ $part == *-* ]]; then
			seq "${part%-*}" "${part#*-}"
		elif [[ -n $part ]]; then
			echo "$part"
		fi
	done
}

# allowed_cpus: the online CPUs this shell may run on (its affinity,
# which taskset, cgroups' cpusets or a CI runner may narrow), one a line.
allowed_cpus() {
	local list
	list=$(awk '$1 == "Cpus_allowed_list:" { print $2 }' "/proc/$BASHPID/status")
	comm -12 <(online_cpus | sort) <(expand_cpu_list "$list" | sort) | sort -n
}

# need_cpus N: skip unless this shell may run on N online CPUs or more.
need_cpus() {
	local n
	n=$(allowed_cpus | wc -l)
	((n >= $1)) || skip "needs $1 CPUs this process may run on; has $n (online: $(tr '\n' ' ' </sys/devices/system/cpu/online), allowed: $(allowed_cpus | tr '\n' ' '))"
}
