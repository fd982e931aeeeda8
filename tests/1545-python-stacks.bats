#!/usr/bin/env bats
# uprofile -g on CPython programs: Python functions, files and lines in
# the call stacks in place of the interpreter's frames (engine/pysample.c,
# collect/stacks.c).  The programs are written here, their call trees
# known by construction, and what is checked is what a user reads:
#
#  - a/b/c doing 50/30/20 of the work under p1/p2 splitting 70/30: the
#    shares of the Python functions and of their callers within a
#    binomial bound of the construction; the hot lines the loops' lines;
#    the procedures' object the .py file; -v's count of samples with
#    Python frames;
#  - a Python function calling C through ctypes: the C function directly
#    under the Python function that called it, the callers' split 1:3;
#  - threads, a forked child, an exec'd child, a process attached to
#    with -p: each with its own functions;
#  - frames that change fast (deep recursion, generators, exceptions):
#    every name is a function of the program or of the standard library;
#  - --python=off, a program that is not Python, a CPython of a version
#    not known (-v says why, native frames stay), a bad --python;
#  - the folded and pprof exports;
#  - the frames copied at each sample by the BPF program (root), and
#    read from the process (--python=read, and where BPF is refused);
#  - off-CPU time (-e offcpu): where a Python program waits, and a
#    Python thread preempted in the interpreter.
#
# Frames are copied at the sample by a BPF program where the kernel lets
# uprofile (root), else read when the sample is drained, a millisecond
# or so after it was taken (PYMODE=read runs the shares' checks so): each
# workload spends several milliseconds in a function
# at a time, and its functions follow each other in a cycle, so that what
# one function loses to the next at its end it gains from the previous at
# its start.  The workloads run for a given CPU time
# (time.process_time), so the sample counts do not depend on the load.
#
# Debian's CPython 3.11 is the interpreter (PYTHON311 names another;
# tests/1540-pyframes.bats runs the shares of each version known); the
# shares, lines, C-under-Python, threads, children, -p and reads checks
# also run on CPython 3.9 and 3.10, whose frames are another kind, where
# PYTHON39 and PYTHON310 name them (skipped otherwise); PYTHON_OTHER may
# name a CPython of a version not known for the test of refusal (else
# one is looked for on PATH).

load helpers

setup() {
	common_setup
	PY=${PYTHON311:-/usr/bin/python3.11}
	HERE=$(pwd -P)
	STARTED=()
	local max
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
	FREQ=$((max < 4000 ? max : 4000))
}

# The processes bg started that still run here (a pid reused since would
# not have this test's directory as its own).
teardown() {
	local p
	for p in "${STARTED[@]}"; do
		[[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$HERE" ]] || continue
		kill -KILL "$p" 2>/dev/null || continue
		wait "$p" 2>/dev/null || :
	done
}

# bg COMMAND [ARG...]: start COMMAND in the background (its output in
# bg.log, away from bats' descriptors); BG is its pid.
bg() {
	"$@" >>bg.log 2>&1 3>&- &
	BG=$!
	STARTED+=("$BG")
}

# Skip unless PY is a CPython 3.11 and perf sampling works.
need_py311() {
	use_py 11
}

# use_py MINOR: PY is the CPython 3.MINOR to run (PYTHON3MINOR; 3.11:
# Debian's by default), PYV its minor version; skip unless there is one
# and perf sampling works.
use_py() {
	local var=PYTHON3$1
	skip_unless_perf_works
	PYV=$1
	if (($1 == 11)); then
		PY=${PYTHON311:-/usr/bin/python3.11}
	else
		PY=${!var:-}
		[[ -n $PY ]] || skip "no CPython 3.$1 (PYTHON3$1 names one)"
	fi
	[[ -x $PY ]] || skip "no CPython 3.$1 at $PY (python3.$1 package; PYTHON3$1 names another)"
	[[ $("$PY" -c "import sys; print(sys.implementation.name, sys.version_info[:2] == (3, $1))") == "cpython True" ]] ||
		skip "$PY is not CPython 3.$1"
}

# Attaching (-p) reads the memory of a process uprofile did not start:
# Yama's scope 1 allows it to root only, scope 3 to no one.
need_attach() {
	local scope=0
	[[ -r /proc/sys/kernel/yama/ptrace_scope ]] &&
		scope=$(cat /proc/sys/kernel/yama/ptrace_scope)
	((scope < 3)) || skip "kernel.yama.ptrace_scope=3: no process may read another's memory"
	((scope == 0)) || [[ $(id -u) -eq 0 ]] ||
		skip "kernel.yama.ptrace_scope=$scope: only root reads a process it did not start"
}

# wait_file FILE: wait (10 s at most) until FILE exists.
wait_file() {
	local tenths=100
	while [[ ! -e $1 ]] && ((tenths-- > 0)); do
		sleep 0.1
	done
	[[ -e $1 ]] || fail "'$1' not written in 10 s"
}

# pyprof OUT [OPTION...] PROGRAM [ARG...]: uprofile -v -g, cpu-clock at
# FREQ, into OUT; its messages in $vout.
pyprof() {
	local out=$1
	shift
	run -0 --separate-stderr "$UPROFILE" -v -g -e cpu-clock -F "$FREQ" \
		${PYMODE:+--python=$PYMODE} -o "$out" "$@"
	vout=$stderr
}

# pylines: the "python:" lines of -v in $vout, one per process; pyhow:
# the one that says how frames were taken.
pylines() {
	grep '^uprofile: python: ' <<<"$vout" |
		grep -v '^uprofile: python: frames ' || :
}
pyhow() {
	grep '^uprofile: python: frames ' <<<"$vout" || :
}

# check_pyline MIN_PERCENT NPROCS: -v says, for each of NPROCS
# processes (no more, no less), that it is the CPython 3.PYV of PY (3.11
# on: with its micro version; before: none is known) and that at least
# MIN_PERCENT of its samples got Python frames.
check_pyline() {
	local image line n=0 k m v="3\\.${PYV:-11}\\.[0-9]+"
	((${PYV:-11} >= 11)) || v="3\\.$PYV"
	image=$(readlink -f "$PY")
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		[[ $line =~ ^uprofile:\ python:\ CPython\ $v\ \((.*)\):\ ([0-9]+)\ of\ ([0-9]+)\ samples\ with\ Python\ frames,\ ([0-9]+)\ of\ them\ copied\ at\ the\ sample$ ]] ||
			fail "not a line of a CPython 3.${PYV:-11} read: $line" || return
		# The executable, or the libpython it is linked with.
		[[ ${BASH_REMATCH[1]} == "$image" ||
			${BASH_REMATCH[1]} == */libpython3.${PYV:-11}.so* ]] ||
			fail "the interpreter is $image, -v says ${BASH_REMATCH[1]}" || return
		k=${BASH_REMATCH[2]} m=${BASH_REMATCH[3]}
		((m > 0 && k * 100 >= m * $1)) ||
			fail "$k of $m samples with Python frames, under $1%: $line" || return
		n=$((n + 1))
	done <<<"$(pylines)"
	((n == $2)) || fail "$n python lines of -v, not $2: $(pylines)"
}

# json_of FILE [VIEW-OPTION...]: the JSON report of FILE in $json.
json_of() {
	local f=$1
	shift
	run -0 --separate-stderr "$UPROFILE" -i "$f" "$@" --format json
	json_check <<<"$output"
	json=$output
}

# folded_of FILE: FILE's folded stacks in $stacks.
folded_of() {
	run -0 --separate-stderr "$UPROFILE" -i "$1" --format folded
	[[ -n $output ]] || fail "no stacks in '$1'"
	stacks=$output
}

# rows_samples PROC [OBJECT]: the samples of the rows of $json whose
# procedure is PROC (and whose object is OBJECT).
rows_samples() {
	jq --arg p "$1" --arg o "${2-}" '[.rows[] | select(.procedure == $p)
		| select($o == "" or .object == $o)
		| .samples["cpu-clock"]] | add // 0' <<<"$json"
}

# ---- the construction: a/b/c under p1/p2 -------------------------------

# shares.py CPU_SECONDS: a, b and c run one loop (the lines marked
# "# @a", "# @b", "# @c") 5, 3 and 2 units of iterations a call: 50, 30
# and 20% of the work; p1 and p2 call each of them once a call, and a
# round calls p1 seven times and p2 three: 70 and 30%.  A unit is about
# 5 ms of CPU time (measured first, in calibrate), so c runs 10 ms a
# call; whole rounds run until CPU_SECONDS of CPU time have gone.
write_shares() {
	cat >shares.py <<'PY'
import sys
import time


def calibrate(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def a(n):
    s = 0
    for i in range(n):  # @a
        s += i * i  # @a
    return s


def b(n):
    s = 0
    for i in range(n):  # @b
        s += i * i  # @b
    return s


def c(n):
    s = 0
    for i in range(n):  # @c
        s += i * i  # @c
    return s


def p1(u):
    a(5 * u)
    b(3 * u)
    c(2 * u)


def p2(u):
    a(5 * u)
    b(3 * u)
    c(2 * u)


def main():
    t = time.process_time()
    calibrate(200000)
    per = (time.process_time() - t) / 200000
    u = max(1000, int(0.005 / max(per, 1e-9)))
    stop = time.process_time() + float(sys.argv[1])
    while time.process_time() < stop:
        for _ in range(7):
            p1(u)
        for _ in range(3):
            p2(u)


main()
PY
}

# shares_profile [MINOR]: the shares profile of CPython 3.MINOR (3.11),
# taken once per file run (any test may run alone): shares.out and the
# -v messages in shares.v here.
shares_profile() {
	use_py "${1:-11}"
	local d=$BATS_FILE_TMPDIR/shares$PYV$PYMODE
	if [[ ! -s $d/shares.out ]]; then
		mkdir -p "$d"
		(
			cd "$d" && write_shares &&
				"$UPROFILE" -v -g -e cpu-clock -F "$FREQ" \
					${PYMODE:+--python=$PYMODE} \
					-o shares.out.new "$PY" shares.py 2.4 \
					2>shares.v >/dev/null &&
				mv shares.out.new shares.out
		) || fail "uprofile -g $PY shares.py failed: $(cat "$d/shares.v")"
	fi
	cp "$d/shares.out" "$d/shares.v" "$d/shares.py" .
	SHARES_PY=$d/shares.py
	vout=$(cat shares.v)
}

# assert_abc FILE: $json's a, b and c of shares.py FILE hold 50/30/20 of
# their samples (more than MIN, 900 by default).
assert_abc() {
	local ka kb kc n
	ka=$(rows_samples a "$1")
	kb=$(rows_samples b "$1")
	kc=$(rows_samples c "$1")
	n=$((ka + kb + kc))
	((n > ${2:-900})) || fail "only $n samples in a, b and c"
	assert_binomial "a" "$ka" "$n" 50 4
	assert_binomial "b" "$kb" "$n" 30 4
	assert_binomial "c" "$kc" "$n" 20 4
}

check_shares() {
	shares_profile "$1"
	json_of shares.out
	assert_abc "$SHARES_PY" 0
	# Their callers, from -callers: p1 has 70% of each (and of the
	# three together), nothing else calls them.
	json_of shares.out -callers '[abc]'
	local f k1 k2 kn s1=0 s2=0
	for f in a b c; do
		read -r k1 k2 kn < <(jq -r --arg f "$f" '.callers[] |
			select(.procedure == $f) | [
			([.calls[] | select(.procedure == "p1") | .samples] | add // 0),
			([.calls[] | select(.procedure == "p2") | .samples] | add // 0),
			.samples] | @tsv' <<<"$json")
		[[ -n $kn ]] || fail "no callers entry for $f: $json"
		assert_binomial "$f called by p1" "$k1" $((k1 + k2)) 70 6
		# A sample read at a switch between functions may be
		# charged to p1 or p2 itself for a moment: one in a hundred.
		((kn - k1 - k2 <= 1 + kn / 100)) ||
			fail "$f has $((kn - k1 - k2)) of $kn samples under other callers"
		s1=$((s1 + k1)) s2=$((s2 + k2))
	done
	assert_binomial "a, b and c called by p1" "$s1" $((s1 + s2)) 70 4
	# -tree: <module> -> main -> p1 and p2, 70/30.
	json_of shares.out -tree
	read -r k1 k2 < <(jq -r '[.tree.roots[] | .. | objects
		| select(.procedure? == "<module>") | .children[]
		| select(.procedure == "main")
		| .children[]? | select(.procedure == "p1" or .procedure == "p2")
		| {(.procedure): .samples}] | add // {} | "\(.p1 // 0) \(.p2 // 0)"' <<<"$json")
	assert_binomial "p1 in the tree" "$k1" $((k1 + k2)) 70 4
}

@test "python: a/b/c 50/30/20 and their callers p1/p2 70/30, within a binomial bound" {
	check_shares 11
}

@test "python --python=read (frames read from the process): a/b/c 50/30/20 and their callers p1/p2 70/30" {
	PYMODE=read check_shares 11
}

@test "python --python=read: the hot lines are the loops' lines" {
	PYMODE=read check_hot_lines 11
}

@test "python 3.9: a/b/c 50/30/20 and their callers p1/p2 70/30, within a binomial bound" {
	check_shares 9
}

@test "python 3.10: a/b/c 50/30/20 and their callers p1/p2 70/30, within a binomial bound" {
	check_shares 10
}

check_hot_lines() {
	shares_profile "$1"
	json_of shares.out -lines
	local f loop n k other per=100
	[[ -z ${PYMODE-} ]] || per=50
	for f in a b c; do
		loop=$(grep -n "# @$f\$" shares.py | cut -d: -f1 | paste -sd, -)
		[[ $loop == *,* ]] || fail "no loop lines of $f in shares.py"
		n=$(jq --arg f "$f" '[.rows[] | select(.procedure == $f)
			| .samples["cpu-clock"]] | add // 0' <<<"$json")
		((n > 500)) || fail "only $n samples in $f"
		k=$(jq --arg f "$f" --arg o "$SHARES_PY" --arg l "$loop" '
			($l | split(",") | map(tonumber)) as $ls
			| [.rows[] | select(.procedure == $f and .object == $o
				and .file == $o and (.line as $x | $ls | index($x)))
			| .samples["cpu-clock"]] | add // 0' <<<"$json")
		other=$((n - k))
		# Frames read from the process (--python=read) are read a
		# millisecond or so after the sample: one at the end of a
		# call may find the function past its loop (22 of 2 005, 1.1%,
		# seen in CI); copied at the sample, none can.
		((other <= 1 + n / per)) ||
			fail "$f: $other of $n samples outside its loop (lines $loop): $(jq -c --arg f "$f" '[.rows[] | select(.procedure == $f) | [.line, .samples["cpu-clock"]]]' <<<"$json")"
		# Both lines of the loop have samples.
		for k in ${loop//,/ }; do
			[[ $(jq --arg f "$f" --argjson l "$k" '[.rows[] |
				select(.procedure == $f and .line == $l)] | length' <<<"$json") -eq 1 ]] ||
				fail "no row for line $k of $f"
		done
	done
	# The text reports: the object column is the file's base name,
	# -lines shows FILE:LINE.
	run -0 --separate-stderr "$UPROFILE" -i shares.out
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ a +shares\.py$'
	run -0 --separate-stderr "$UPROFILE" -i shares.out -lines
	assert_line --regexp "^ .* shares\.py:${loop%%,*} +c +shares\.py\$"
}

@test "python: the hot lines are the loops' lines; the rows' object is the .py file" {
	check_hot_lines 11
}

@test "python 3.9: the hot lines are the loops' lines; the rows' object is the .py file" {
	check_hot_lines 9
}

@test "python 3.10: the hot lines are the loops' lines; the rows' object is the .py file" {
	check_hot_lines 10
}

check_share_with_frames() {
	shares_profile "$1"
	check_pyline 95 1
}

@test "python: -v says which CPython each process is; 95% of samples or more carry Python frames" {
	check_share_with_frames 11
}

@test "python 3.9: -v says which CPython each process is; 95% of samples or more carry Python frames" {
	check_share_with_frames 9
}

@test "python 3.10: -v says which CPython each process is; 95% of samples or more carry Python frames" {
	check_share_with_frames 10
}

# ---- C called from Python -------------------------------------------

check_ctypes() {
	use_py "$1"
	[[ -f $TPROG/libhot.so ]] || fail "$TPROG/libhot.so not built"
	# lib_hot_loop(MS) spins MS of CPU time in its own code
	# (tests/programs/libhot.c); via_one calls it once a round,
	# via_three three times, 8 ms a call.
	cat >ct.py <<'PY'
import ctypes
import sys
import time

lib = ctypes.CDLL(sys.argv[1])
lib.lib_hot_loop.argtypes = [ctypes.c_uint]


def via_one():
    lib.lib_hot_loop(8)


def via_three():
    for _ in range(3):
        lib.lib_hot_loop(8)


stop = time.process_time() + float(sys.argv[2])
while time.process_time() < stop:
    via_one()
    via_three()
PY
	pyprof ct.out "$PY" ct.py "$TPROG/libhot.so" 1.2
	folded_of ct.out
	# Each stack holding lib_hot_loop: the first frame of ct.py rootward
	# of it is via_one or via_three (between them: the ctypes machinery,
	# libffi, native frames of other objects).
	local counts
	counts=$(awk '
		{ n = split($1, f, ";"); c = $NF
		  for (i = n; i > 0 && f[i] != "lib_hot_loop"; i--) ;
		  if (i == 0) next
		  for (j = i - 1; j > 0; j--)
			if (f[j] ~ /^(via_one|via_three|<module>)$/) break
		  # <module> there: a frame lost.
		  cnt[j ? f[j] : "(none)"] += c; total += c }
		END { printf "%d %d %d\n", cnt["via_one"], cnt["via_three"], total }' <<<"$stacks")
	local k1 k3 n
	read -r k1 k3 n <<<"$counts"
	((n > 1000)) || fail "only $n samples under lib_hot_loop"
	((n - k1 - k3 <= 1 + n / 100)) ||
		fail "$((n - k1 - k3)) of $n lib_hot_loop samples not under via_one/via_three"
	assert_binomial "lib_hot_loop called by via_one" "$k1" $((k1 + k3)) 25 4
	# The order in the folded lines: <module>;via_three;...;lib_hot_loop.
	grep -Eq '(^|;)<module>;via_three;([^;]+;)*lib_hot_loop( |;)' <<<"$stacks" ||
		fail "no folded line <module>;via_three;...;lib_hot_loop"
	grep -Eq '(^|;)<module>;via_one;([^;]+;)*lib_hot_loop( |;)' <<<"$stacks" ||
		fail "no folded line <module>;via_one;...;lib_hot_loop"
	check_pyline 95 1
}

@test "python: ctypes: the C function directly under the Python function that called it, 1:3" {
	check_ctypes 11
}

@test "python 3.9: ctypes: the C function directly under the Python function that called it, 1:3" {
	check_ctypes 9
}

@test "python 3.10: ctypes: the C function directly under the Python function that called it, 1:3" {
	check_ctypes 10
}

# ---- threads and processes ---------------------------------------------

check_two_threads() {
	use_py "$1"
	# Both threads run spin, one under work_one, the other under
	# work_two, 0.6 s of CPU time each; main only joins.
	cat >thr.py <<'PY'
import threading
import time


def spin(n):
    s = 0
    for i in range(n):
        s += i
    return s


def work_one(t):
    end = time.thread_time() + t
    while time.thread_time() < end:
        spin(30000)


def work_two(t):
    end = time.thread_time() + t
    while time.thread_time() < end:
        spin(30000)


threads = [threading.Thread(target=work_one, args=(0.6,)),
           threading.Thread(target=work_two, args=(0.6,))]
for t in threads:
    t.start()
for t in threads:
    t.join()
PY
	pyprof thr.out "$PY" thr.py
	check_pyline 95 1
	# Per thread (speedscope: one profile per thread, "comm (pid/tid)",
	# a run of equal stacks one sample weighing the run's time): the
	# samples (in periods) whose stack holds work_one, work_two, spin.
	run -0 --separate-stderr "$UPROFILE" -i thr.out --format speedscope
	local per period=$((1000000000 / FREQ))
	per=$(jq -r --arg f "$HERE/thr.py" --argjson p "$period" '.shared.frames as $fr
		| .profiles[] | .name as $n
		| [[.samples, .weights] | transpose[]
		   | {w: (.[1] / $p | round),
		      f: [.[0][] | $fr[.] | select(.file == $f) | .name]}] as $s
		| def with($x): [$s[] | select(.f | index($x)) | .w] | add // 0;
		  "\($n | sub("^.*/"; "") | rtrimstr(")"))"
		  + " \(with("work_one")) \(with("work_two")) \(with("spin"))"' <<<"$output")
	local tid one two spin t1= t2=
	while read -r tid one two spin; do
		if ((one > 0 && two > 0)); then
			fail "thread $tid has work_one in $one samples and work_two in $two: $per"
		elif ((one > 0)); then
			[[ -z $t1 ]] || fail "work_one in two threads: $per"
			t1=$tid
			((spin * 2 >= one)) ||
				fail "thread $tid: spin under work_one in $spin of $one samples"
		elif ((two > 0)); then
			[[ -z $t2 ]] || fail "work_two in two threads: $per"
			t2=$tid
			((spin * 2 >= two)) ||
				fail "thread $tid: spin under work_two in $spin of $two samples"
		fi
	done <<<"$per"
	[[ -n $t1 && -n $t2 ]] || fail "work_one or work_two in no thread: $per"
	# The same from -by tid: each thread's rows of spin, its own.
	json_of thr.out -by tid
	local k
	k=$(jq --argjson t "$t1" '[.rows[] | select(.tid == $t and .procedure == "spin") | .samples["cpu-clock"]] | add // 0' <<<"$json")
	((k > 100)) || fail "thread $t1 has $k samples in spin"
	k=$(jq --argjson t "$t2" '[.rows[] | select(.tid == $t and .procedure == "spin") | .samples["cpu-clock"]] | add // 0' <<<"$json")
	((k > 100)) || fail "thread $t2 has $k samples in spin"
}

@test "python: two threads: each thread's stacks hold its own function, never the other's" {
	check_two_threads 11
}

@test "python 3.9: two threads: each thread's stacks hold its own function, never the other's" {
	check_two_threads 9
}

@test "python 3.10: two threads: each thread's stacks hold its own function, never the other's" {
	check_two_threads 10
}

check_children() {
	use_py "$1"
	# parent_loop in the parent and child_loop in a multiprocessing
	# child (fork) run at once, then a subprocess (a new interpreter)
	# runs exec_loop of exec_mod.py: 0.4 s of CPU time each.
	cat >exec_mod.py <<'PY'
import time


def exec_loop(t):
    n = 0
    end = time.process_time() + t
    while time.process_time() < end:
        for i in range(1000):
            n += i
    return n
PY
	cat >mp.py <<'PY'
import multiprocessing
import subprocess
import sys
import time


def child_loop(t):
    n = 0
    end = time.process_time() + t
    while time.process_time() < end:
        for i in range(1000):
            n += i
    return n


def parent_loop(t):
    n = 0
    end = time.process_time() + t
    while time.process_time() < end:
        for i in range(1000):
            n += i
    return n


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    p = multiprocessing.Process(target=child_loop, args=(0.4,))
    p.start()
    parent_loop(0.4)
    p.join()
    subprocess.run([sys.executable, "-c",
                    "import exec_mod; exec_mod.exec_loop(0.4)"], check=True)
PY
	pyprof mp.out "$PY" mp.py
	# Three CPythons read: the parent, the fork, the exec'd one.
	check_pyline 95 3
	json_of mp.out -by pid
	local f pid k total=0 pids=() ks=()
	for f in parent_loop:mp.py child_loop:mp.py exec_loop:exec_mod.py; do
		# Each function in one process only.
		pid=$(jq -r --arg p "${f%%:*}" --arg o "$HERE/${f#*:}" '[.rows[] |
			select(.procedure == $p and .object == $o) | .pid]
			| unique | map(tostring) | join(" ")' <<<"$json")
		[[ $pid =~ ^[0-9]+$ ]] || fail "${f%%:*} of ${f#*:} in processes '$pid'"
		k=$(jq --arg p "${f%%:*}" '[.rows[] | select(.procedure == $p)
			| .samples["cpu-clock"]] | add // 0' <<<"$json")
		pids+=("$pid") ks+=("$k")
		total=$((total + k))
	done
	[[ ${pids[0]} != "${pids[1]}" && ${pids[1]} != "${pids[2]}" &&
		${pids[0]} != "${pids[2]}" ]] || fail "not three processes: ${pids[*]}"
	# Equal CPU times: about a third each (loosely: the processes ran
	# at once, competing with whatever else runs).
	for k in "${ks[@]}"; do
		((k * 100 >= total * 20)) || fail "samples ${ks[*]}: one under 20%"
	done
	# The fork's stack: its function under multiprocessing's bootstrap.
	folded_of mp.out
	# (A method by its name alone before 3.11.)
	grep -Eq ';(BaseProcess\.)?_bootstrap;([^;]+;)*child_loop [0-9]+$' <<<"$stacks" ||
		fail "child_loop is not under BaseProcess._bootstrap"
	grep -Eq '(^|;)<module>;exec_loop [0-9]+$' <<<"$stacks" ||
		fail "exec_loop is not under the -c program's <module>"
}

@test "python: a forked child (multiprocessing) and an exec'd one (subprocess): their own functions, their own processes" {
	check_children 11
}

@test "python 3.9: a forked child (multiprocessing) and an exec'd one (subprocess): their own functions, their own processes" {
	check_children 9
}

@test "python 3.10: a forked child (multiprocessing) and an exec'd one (subprocess): their own functions, their own processes" {
	check_children 10
}

# A fork from a thread that is not the main one: the child's only
# thread is the forking one, whose thread state the child keeps (3.9 and
# 3.10 find it through its pthread_t, the place of the thread id found
# again in the child).
check_thread_fork() {
	use_py "$1"
	cat >tf.py <<'PY'
import os
import threading
import time


def spin_child():
    end = time.process_time() + 0.5
    while time.process_time() < end:
        pass


def forker():
    pid = os.fork()
    if pid == 0:
        spin_child()
        os._exit(0)
    os.waitpid(pid, 0)


t = threading.Thread(target=forker)
t.start()
t.join()
PY
	pyprof tf.out "$PY" tf.py
	# Two CPythons read; the child's samples (over 100) with Python
	# frames, 95% of them or more.
	local line k m child=
	while IFS= read -r line; do
		[[ $line =~ :\ ([0-9]+)\ of\ ([0-9]+)\ samples\ with ]] || continue
		k=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]}
		((m > 100 && k * 100 >= m * 95)) && child=$line
	done <<<"$(pylines)"
	[[ -n $child && $(pylines | wc -l) -eq 2 ]] ||
		fail "no child with Python frames: $(pylines)"
	json_of tf.out -by pid
	[[ $(jq '[.rows[] | select(.procedure == "spin_child") | .pid]
		| unique | length' <<<"$json") -eq 1 ]] ||
		fail "spin_child in more than one process, or none"
	folded_of tf.out
	grep -Eq ';forker;spin_child(;[^ ]+)? [0-9]+$' <<<"$stacks" ||
		fail "spin_child is not under forker"
}

@test "python: a fork from a thread: the child's frames, under the thread's function" {
	check_thread_fork 11
}

@test "python 3.9: a fork from a thread: the child's frames, under the thread's function" {
	check_thread_fork 9
}

@test "python 3.10: a fork from a thread: the child's frames, under the thread's function" {
	check_thread_fork 10
}

check_attach() {
	use_py "$1"
	need_attach
	cat >loop.py <<'PY'
def attached_loop():
    first = True
    while True:
        for i in range(10000):
            pass
        if first:
            open("ready", "w").close()
            first = False


def outer():
    attached_loop()


outer()
PY
	bg "$PY" loop.py
	local pid=$BG
	wait_file ready
	pyprof att.out -p "$pid" -d 2
	check_pyline 95 1
	json_of att.out
	local k n
	k=$(rows_samples attached_loop "$HERE/loop.py")
	n=$(jq '.statistics[0].samples' <<<"$json")
	((n > 0 && k * 100 >= n * 95)) ||
		fail "attached_loop has $k of $n samples"
	folded_of att.out
	grep -Eq '(^|;)<module>;outer;attached_loop [0-9]+$' <<<"$stacks" ||
		fail "no stack <module>;outer;attached_loop: $(head -3 <<<"$stacks")"
	proc_running "$pid" || fail "the attached process is gone"
}

@test "python: -p attaches to a running CPython: its functions in the stacks" {
	check_attach 11
}

@test "python 3.9: -p attaches to a running CPython: its functions in the stacks" {
	check_attach 9
}

@test "python 3.10: -p attaches to a running CPython: its functions in the stacks" {
	check_attach 10
}

# ---- frames that change fast -----------------------------------------

@test "python: deep recursion, generators, exceptions: every name a function of the program or the standard library" {
	need_py311
	cat >churn.py <<'PY'
import json
import sys
import time


class Boom(Exception):
    pass


class Walker:
    def step(self, n):
        if n:
            return self.step(n - 1) + 1
        return sum(x * x for x in range(30))


def rec(n):
    if n == 0:
        return [i for i in range(20)]
    return rec(n - 1)


def gen(n):
    for i in range(n):
        yield i * 2


def thrower(n):
    if n == 0:
        raise Boom("deep")
    thrower(n - 1)


def catcher():
    try:
        thrower(8)
    except Boom:
        return 1


def main():
    stop = time.process_time() + float(sys.argv[1])
    w = Walker()
    k = 0
    while time.process_time() < stop:
        rec(k % 300)
        w.step(k % 60)
        sum(gen(50))
        catcher()
        json.dumps({"k": [k, str(k)]})
        (lambda v: v + 1)(k)
        k += 1


main()
PY
	pyprof churn.out "$PY" churn.py 1.5
	# The frames are read as they change: a walk that fails at the
	# innermost frame (a frame being pushed or popped) is done again,
	# twice at most; one that fails three times leaves the sample its
	# native frames, 1-2% of them here (2-10% with no second try).
	check_pyline 95 1
	# The checker: each frame of the speedscope export whose file is a
	# .py file or a "<...>" one is a Python frame (a native one has a
	# file only from its line tables: a .c or .S file); its file is
	# churn.py, a file of the standard library or a frozen module of it
	# ("<frozen importlib._bootstrap>"), and its name one of that file's
	# functions (the qualified names of the code objects compiled from
	# it); code compiled from a string ("<string>": namedtuple's, for
	# one) has only a name of the right shape.
	cat >names.py <<'PY'
import json
import os
import re
import sys
import sysconfig

prog = sys.argv[1]
stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
doc = json.load(sys.stdin)
names = {}


def qualnames(path):
    if path not in names:
        with open(path, "rb") as f:
            code = compile(f.read(), path, "exec")
        seen, todo = {"<module>"}, [code]
        while todo:
            c = todo.pop()
            seen.add(c.co_qualname)
            todo.extend(k for k in c.co_consts if hasattr(k, "co_code"))
        names[path] = seen
    return names[path]


# the interpreter's own search path: the standard library and the
# site directories its start-up imports from (site hooks)
roots = [stdlib] + [os.path.realpath(p) for p in sys.path
                    if p and os.path.isdir(p)]


def source(file):
    # code compiled from a string: the standard library's eval and exec
    # (namedtuple's __new__, dataclasses' methods) run a "<module>" there
    if file == "<string>":
        return "frozen"
    if file.startswith("<frozen ") and file.endswith(">"):
        mod = file[8:-1].replace(".", "/")
        for p in (mod + ".py", mod + "/__init__.py"):
            if os.path.isfile(os.path.join(stdlib, p)):
                return os.path.join(stdlib, p)
        # frozen without its source installed (getpath): its names
        # cannot be compiled here, only checked for their shape
        return "frozen"
    if file == prog:
        return file
    real = os.path.realpath(file)
    if any(real.startswith(r + "/") for r in roots) and os.path.isfile(real):
        return real
    return None


bad, seen = [], {}
for f in doc["shared"]["frames"]:
    if "file" not in f:
        continue
    name, file = f["name"], f["file"]
    if not (file.endswith(".py") or file.startswith("<")):
        continue
    path = source(file)
    if path is None:
        bad.append("%r in %r: not the program's or the standard library's" % (name, file))
    elif path == "frozen":
        if not re.fullmatch(r"[A-Za-z_<][\w.<>]*", name or ""):
            bad.append("%r is no Python name (%s)" % (name, file))
    elif not name or name not in qualnames(path):
        bad.append("%r is no function of %s" % (name, file))
    elif file == prog:
        seen[name] = True
for b in bad:
    print("bad:", b)
print("program:", " ".join(sorted(seen)))
PY
	run -0 --separate-stderr "$UPROFILE" -i churn.out --format speedscope
	run -0 --separate-stderr "$PY" names.py "$HERE/churn.py" <<<"$output"
	refute_line --partial 'bad:'
	local f
	for f in main rec Walker.step gen thrower catcher; do
		[[ " ${lines[-1]#program: } " == *" $f "* ]] ||
			fail "$f not in the profile: ${lines[-1]}"
	done
	# No empty frame in the folded stacks.
	folded_of churn.out
	grep -Eq '(^;|;;|; [0-9]+$)' <<<"$stacks" && fail "an empty frame name: $(grep -E '(^;|;;|; [0-9]+$)' <<<"$stacks" | head -2)"
	# The recursion is there, deep: some stack holds rec 100 times or
	# more.  (It goes 300 deep, but past about 140 frames, a 16 KiB
	# chunk of the thread's frame stack, a walk seldom gets to the
	# outer ones before the recursion has returned: it stops with a
	# reason, its inner frames kept.)
	awk '{ n = split($1, f, ";"); c = 0
	       for (i = 1; i <= n; i++) if (f[i] == "rec") c++
	       if (c > m) m = c }
	     END { exit !(m >= 100) }' <<<"$stacks" ||
		fail "no stack holds rec 100 times or more"
}

# ---- what reading the frames costs --------------------------------------

# A thread's frames are read in one system call a sample in the steady
# state: its thread state, its C frame's current frame, the headers of
# its last walk's code objects and the memory around its last frames
# (3.9, 3.10: its last frames) together (a read for each frame and each
# code object would be a dozen and more for this four-deep stack).
check_reads() {
	use_py "$1"
	command -v strace >/dev/null || skip "no strace"
	cat >deep.py <<-'PY'
	import time
	def h(end):
	    n = 0
	    while time.process_time() < end:
	        n += 1
	    return n
	def g(end):
	    return h(end)
	def f(end):
	    return g(end)
	f(time.process_time() + 1.0)
	PY
	# LeakSanitizer (a sanitized build's) cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run -0 --separate-stderr strace -qq -c -o st \
		-e trace=process_vm_readv \
		"$UPROFILE" -v -g -e cpu-clock -F "$FREQ" --python=read \
		-o p.umon "$PY" deep.py
	vout=$stderr
	local line m calls
	line=$(pylines)
	[[ $(pyhow) == "uprofile: python: frames read from the process as samples are drained (not copied at the sample: --python=read)" ]] ||
		fail "not said: frames read from the process: $(pyhow)"
	[[ $line =~ :\ ([0-9]+)\ of\ ([0-9]+)\ samples\ with\ Python\ frames,\ 0\ of ]] ||
		fail "no python line: $vout"
	m=${BASH_REMATCH[2]}
	((m >= 100)) || fail "only $m samples"
	calls=$(awk '$NF == "process_vm_readv" { print $4 }' st)
	[[ -n $calls ]] || fail "strace counted no process_vm_readv: $(cat st)"
	# Start-up (the interpreter found, the first walk of each thread)
	# takes a few dozen; a miss (frames moved off the window, a new
	# code object) one more.
	((calls <= 2 * m + 100)) ||
		fail "$calls process_vm_readv calls for $m samples"
}

@test "python: Python frames cost about one process_vm_readv a sample, not one per frame" {
	check_reads 11
}

@test "python 3.9: Python frames cost about one process_vm_readv a sample, not one per frame" {
	check_reads 9
}

@test "python 3.10: Python frames cost about one process_vm_readv a sample, not one per frame" {
	check_reads 10
}

# Frames copied at each sample by the BPF program (common/engine/
# perfbpf.c): root only, and a kernel that lets it load; -v says which.
need_bpf() {
	[[ $(id -u) -eq 0 ]] || skip "the BPF program needs root"
	[[ $(pyhow) == "uprofile: python: frames copied at each sample by a BPF program" ]] ||
		skip "BPF refused here: $(pyhow)"
}

@test "python: frames copied at the sample by a BPF program (root): -v says so, no read of the process a sample, right" {
	need_py311
	command -v strace >/dev/null || skip "no strace"
	write_shares
	# LeakSanitizer (a sanitized build's) cannot run under ptrace.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run -0 --separate-stderr strace -f -qq -c -o st \
		-e trace=process_vm_readv,poll \
		"$UPROFILE" -v -g -e cpu-clock -F "$FREQ" -o b.out \
		"$PY" shares.py 1.5
	vout=$stderr
	need_bpf
	local line k m c calls polls
	line=$(pylines)
	[[ $line =~ :\ ([0-9]+)\ of\ ([0-9]+)\ samples\ with\ Python\ frames,\ ([0-9]+)\ of\ them\ copied ]] ||
		fail "no python line: $vout"
	k=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]}
	((m >= 1000)) || fail "only $m samples"
	# A thread's samples before its state is found are read from the
	# process (its first, and the interpreter's start-up).
	((c * 100 >= k * 95)) || fail "$c of $k samples' frames copied"
	((k * 100 >= m * 95)) || fail "$k of $m samples with Python frames"
	# The process is read at start, for each thread's first samples and
	# for each code object's strings when first met (the interpreter's
	# start imports modules: 300 to 450 reads here), not at each sample
	# (reading from the process takes more than one a sample); the
	# drainer is not woken at each.
	calls=$(awk '$NF == "process_vm_readv" { print $4 }' st)
	polls=$(awk '$NF == "poll" { print $4 }' st)
	((${calls:-0} <= m / 10 + 400)) ||
		fail "${calls:-0} process_vm_readv calls for $m samples"
	((${polls:-0} <= m / 10 + 100)) ||
		fail "${polls:-0} polls for $m samples"
	# And right: the shares of the construction.
	json_of b.out
	assert_abc "$(pwd -P)/shares.py"
	folded_of b.out
	grep -Eq ';main;p1;a [0-9]+$' <<<"$stacks" || fail "no main;p1;a"
}

# ---- off-CPU time of Python programs ---------------------------------

@test "python: -e offcpu -g: a Python program's waits under the functions that wait, each thread's its own; the exports agree" {
	need_py311
	cat >waits.py <<'PY'
import threading
import time


def sleeper():
    for _ in range(20):
        time.sleep(0.02)


def waiter(ev):
    ev.wait(0.6)


ev = threading.Event()
t = threading.Thread(target=waiter, args=(ev,))
t.start()
sleeper()
t.join()
PY
	run -0 --separate-stderr "$UPROFILE" -v -e offcpu -g -o w.out "$PY" waits.py
	vout=$stderr
	folded_of w.out
	# Off-CPU weights are nanoseconds: sleeper's 20 sleeps of 20 ms
	# (0.4 s and more) end in the C library's sleep under sleeper; the
	# thread's 0.6 s wait under waiter (Event.wait, Condition.wait).
	# (A switch's frames are read from the process soon after it, while
	# the thread still waits: a wait shorter than the drain's delay,
	# under load, could be read after it.)
	local slept waited
	slept=$(awk '$1 ~ /;sleeper;/ && $1 ~ /nanosleep/ { n += $NF } END { print n + 0 }' <<<"$stacks")
	waited=$(awk '$1 ~ /;waiter;Event\.wait;Condition\.wait;/ { n += $NF } END { print n + 0 }' <<<"$stacks")
	((slept >= 380000000)) || fail "sleeper's sleeps: $slept ns: $stacks"
	((waited >= 550000000)) || fail "waiter's wait: $waited ns: $stacks"
	grep -Eq ';waiter;.*sleeper|;sleeper;.*waiter' <<<"$stacks" &&
		fail "one thread's function under the other's"
	# pprof's reading of the same profile.
	command -v go >/dev/null || return 0
	export HOME=$BATS_TEST_TMPDIR/home GOCACHE=$BATS_TEST_TMPDIR/gocache
	export GOPATH=$BATS_TEST_TMPDIR/gopath GOPROXY=off GOFLAGS=
	mkdir -p "$HOME"
	"$UPROFILE" -i w.out --format pprof >w.pb.gz || fail "--format pprof failed"
	run -0 --separate-stderr go tool pprof -top -cum -nodefraction=0 \
		-nodecount=100000 w.pb.gz
	[[ $output == *" waiter"* && $output == *" sleeper"* ]] ||
		fail "pprof: $output"
}

@test "python: -e offcpu -g: a Python thread preempted in the interpreter is charged to its Python function; the exports accept the profile" {
	need_py311
	command -v taskset >/dev/null || skip "no taskset"
	cat >spin.py <<'PY'
import sys
import time


def work(seconds):
    end = time.time() + seconds
    n = 0
    while time.time() < end:
        n += 1
    return n


work(float(sys.argv[1]))
PY
	# Another spinner on the same CPU: the profiled one is preempted,
	# most often in the eval loop (its native leaf there, its Python
	# leaf work).
	bg taskset -c 0 "$PY" spin.py 3
	run -0 --separate-stderr taskset -c 0 "$UPROFILE" -e offcpu -g \
		-o s.out "$PY" spin.py 1.5
	# Before the fix the count of such an interval was at the
	# interpreter's code while its stack's leaf was work: every export
	# refused the profile.
	run -0 --separate-stderr "$UPROFILE" -i s.out --format folded
	stacks=$output
	local pre
	pre=$(awk '$1 ~ /;<module>;work( |$)/ { n += $NF } END { print n + 0 }' <<<"$stacks")
	((pre >= 100000000)) || fail "only $pre ns preempted with work as the leaf: $stacks"
	run -0 --separate-stderr "$UPROFILE" -i s.out
	assert_line --regexp '^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ work +spin\.py$'
}

# ---- --python=off, other programs, other versions --------------------

@test "python: --python=off keeps the interpreter's frames: no .py object, _PyEval_EvalFrameDefault in the stacks" {
	need_py311
	write_shares
	pyprof off.out --python=off "$PY" shares.py 0.4
	[[ -z $(pylines) ]] || fail "--python=off, yet: $(pylines)"
	json_of off.out
	[[ $(jq '[.rows[] | select(.object | test("\\.py$|^<frozen "))] | length' <<<"$json") -eq 0 ]] ||
		fail "Python rows with --python=off: $(jq -c '[.rows[] | select(.object | endswith(".py")) | .procedure]' <<<"$json")"
	folded_of off.out
	grep -q '_PyEval_EvalFrameDefault' <<<"$stacks" ||
		fail "no _PyEval_EvalFrameDefault in the stacks"
	grep -Eq '(^|;)(p1|p2|main|<module>)(;| )' <<<"$stacks" &&
		fail "Python functions in the stacks with --python=off"
	# And on (the default, or said): the same program has them.
	pyprof on.out --python=on "$PY" shares.py 0.2
	folded_of on.out
	grep -Eq ';main;p1;a [0-9]+$' <<<"$stacks" || fail "no main;p1;a with --python=on"
}

@test "python: a program that is not Python: no python line in -v, the same stacks as with --python=off" {
	skip_unless_perf_works
	local on off
	pyprof on.out "$TPROG/spin2" 500
	[[ -z $(pylines) ]] || fail "spin2 is no Python: $(pylines)"
	json_of on.out
	assert_split "$json" hot_a hot_b 75 6
	folded_of on.out
	# The stacks that hold 1% of the samples or more, as names.
	on=$(awk '{ n += $NF; c[$1] += $NF } END { for (s in c) if (c[s] * 100 >= n) print s }' <<<"$stacks" | sort)
	pyprof off.out --python=off "$TPROG/spin2" 500
	folded_of off.out
	off=$(awk '{ n += $NF; c[$1] += $NF } END { for (s in c) if (c[s] * 100 >= n) print s }' <<<"$stacks" | sort)
	[[ -n $on ]] || fail "no stacks"
	diff <(echo "$on") <(echo "$off") || fail "spin2's stacks differ with --python=off"
}

@test "python: --python takes on, read or off: anything else is a usage error (125), nothing runs" {
	local v
	for v in maybe '' ON 1 bpf; do
		run -125 --separate-stderr "$UPROFILE" -g "--python=$v" -o x.out "$TPROG/exitwith" 0
		assert_output ""
		[[ ${stderr_lines[0]} == "uprofile: --python takes on, read or off, not '$v'" ]] ||
			fail "--python=$v: $stderr"
		((${#stderr_lines[@]} <= 2)) || fail "--python=$v: $stderr"
		[[ ! -e x.out ]]
	done
}

# A CPython of a version whose layout is not known (pystack --layout
# says so): PYTHON_OTHER, else the first python3.N on PATH that runs; its
# executable in OTHER, its version in OTHER_V.
find_other_python() {
	local cand v
	OTHER=
	for cand in ${PYTHON_OTHER-} python3.14 python3.15 python3.8 python3.7 python3.6; do
		v=$("$cand" -c 'import sys; print(sys.implementation.name, "%d.%d" % sys.version_info[:2], sys.executable)' 2>/dev/null) || continue
		[[ $v =~ ^cpython\ (3\.[0-9]+)\ (/.*)$ ]] || continue
		"$TPROG/pystack" --layout "${BASH_REMATCH[1]}" >/dev/null 2>&1 && continue
		OTHER_V=${BASH_REMATCH[1]} OTHER=${BASH_REMATCH[2]}
		return 0
	done
	skip "no CPython of a version with no layout (python3.14, python3.8, ...; PYTHON_OTHER names one)"
}

@test "python: a CPython of a version not known: -v names it in one line, its native frames stay" {
	skip_unless_perf_works
	find_other_python
	write_shares
	pyprof other.out "$OTHER" shares.py 0.3
	local v=$OTHER_V
	run pylines
	[[ ${#lines[@]} -eq 1 ]] || fail "not one python line: $output"
	assert_line --index 0 --regexp "^uprofile: python: no Python frames: CPython ${v//./\\.}(\\.[0-9]+)?: layout not known \\(process [0-9]+, .*\\)\$"
	json_of other.out
	[[ $(jq '[.rows[] | select(.object | endswith(".py"))] | length' <<<"$json") -eq 0 ]] ||
		fail "Python rows from a CPython $v"
	folded_of other.out
	grep -q '_PyEval_EvalFrameDefault' <<<"$stacks" ||
		fail "no _PyEval_EvalFrameDefault in the stacks"
}

# ---- exports ------------------------------------------------------------

@test "python: the folded export holds the Python stacks, main;p1;a ... main;p2;c" {
	shares_profile
	folded_of shares.out
	local s
	for s in p1\;a p1\;b p1\;c p2\;a p2\;b p2\;c; do
		grep -Eq "(^|;)<module>;main;$s [0-9]+\$" <<<"$stacks" ||
			fail "no folded line ...;<module>;main;$s"
	done
	# Its counts add up to the profile's samples.
	local n total
	n=$(awk '{ n += $NF } END { print n }' <<<"$stacks")
	json_of shares.out
	total=$(jq '.statistics[0].samples' <<<"$json")
	((n == total)) || fail "folded: $n samples, the profile $total"
}

@test "python: go tool pprof -top reads the Python functions' samples as our report has them" {
	shares_profile
	command -v go >/dev/null ||
		skip "go is not installed (golang-go): go tool pprof reads the export"
	export HOME=$BATS_TEST_TMPDIR/home GOCACHE=$BATS_TEST_TMPDIR/gocache
	export GOPATH=$BATS_TEST_TMPDIR/gopath GOPROXY=off GOFLAGS=
	mkdir -p "$HOME"
	"$UPROFILE" -i shares.out --format pprof >shares.pb.gz ||
		fail "--format pprof failed"
	run -0 --separate-stderr go tool pprof -top -nodefraction=0 -nodecount=100000 \
		-sample_index=cpu-clock_samples shares.pb.gz
	[[ $stderr != *ymbolization* ]] || fail "pprof tried to symbolize: $stderr"
	local top=$output f want got
	json_of shares.out
	for f in a b c; do
		want=$(rows_samples "$f")
		got=$(awk -v f="$f" '$NF == f && $1 ~ /^[0-9]+$/ { print $1 }' <<<"$top")
		[[ $got == "$want" ]] || fail "pprof: $f flat '$got', our report $want: $top"
	done
	# And the stacks (-traces: a block per stack, leaf first): a under
	# p1 under main under the script's <module>.
	run -0 --separate-stderr go tool pprof -traces shares.pb.gz
	awk '/^-+\+-+$/ { if (t ~ /^;a;p1;main;<module>;/) n++; t = ""; next }
	     { sub(/^ *([0-9.]+[a-z]*s)? +/, ""); t = t ";" $0 }
	     END { exit !(n > 0) }' <<<"$output" ||
		fail "no pprof trace a <- p1 <- main <- <module>"
}
