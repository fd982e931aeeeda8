#!/usr/bin/env bats
# The Python stacks of a running CPython read from outside it
# (common/engine/pyframes.c), through tests/tools/pystack.c: frames,
# names, qualnames, files and exact lines of live programs of known
# shape, compared with what the program itself says of its threads
# (sys._current_frames()) and with the lines marked "# @NAME" in its
# source; the layout tables against CPython's own headers; the line-table
# decoder against co_positions(); damaged chains, a process that exits
# while read, a process that is no CPython, a CPython version not known;
# uprofile -g's Python functions.
#
# Each CPython version known (3.9 to 3.13) is tested when it is here:
# 3.11 is
# PYTHON311, else Debian's /usr/bin/python3.11, else python3.11 on PATH;
# 3.X is PYTHON3X, else python3.X on PATH (its headers, for the layout
# tests, where its sysconfig says, or PY3X_INCLUDE).  A version absent
# skips its tests, saying so.  The damaged chains are 3.11's.  A version
# not known is PYTHON_OTHER, else looked for on PATH.

load helpers

PYSTACK=$ROOT/$BUILD/tests/pystack

setup() {
	common_setup
	[[ -x $PYSTACK ]] || fail "$PYSTACK not built (make $BUILD/tests/pystack)"
	HERE=$(pwd -P)
	STARTED=()
}

# bg COMMAND [ARG...]: start COMMAND in the background (its output in
# bg.log, away from bats' descriptors); BG is its pid.
bg() {
	"$@" >>bg.log 2>&1 3>&- &
	BG=$!
	STARTED+=("$BG")
}

# The processes bg started that still run here (a pid reused since
# would not have this test's directory as its own).
teardown() {
	local p
	for p in "${STARTED[@]}"; do
		[[ $(readlink "/proc/$p/cwd" 2>/dev/null) == "$HERE" ]] || continue
		kill -KILL "$p" 2>/dev/null || continue
		wait "$p" 2>/dev/null || :
	done
}

# find_py MINOR: PY is the CPython 3.MINOR to test (a path), MINOR in
# MINOR; status 1 when there is none that runs.
find_py() {
	local var=PYTHON3$1 cand v
	local cands=()
	MINOR=$1
	PY=
	if [[ -n ${!var:-} ]]; then
		cands=("${!var}")
	else
		(($1 == 11)) && cands+=(/usr/bin/python3.11)
		cands+=("python3.$1")
	fi
	for cand in "${cands[@]}"; do
		v=$("$cand" -c 'import sys; print(sys.implementation.name, "%d.%d" % sys.version_info[:2])' 2>/dev/null) ||
			continue
		if [[ $v == "cpython 3.$1" ]]; then
			PY=$(command -v "$cand")
			return 0
		fi
	done
	return 1
}

# need_py MINOR: skip unless there is a CPython 3.MINOR (PY) whose
# memory this user may read.
need_py() {
	find_py "$1" || skip "no CPython 3.$1 that runs (python3.$1 on PATH, or PYTHON3$1)"
	need_readable
}

# Reading another process's memory needs PTRACE_MODE_ATTACH: pystack is
# not the parent of the programs it reads, so Yama's scope 1 allows it
# to root only, and scope 3 to no one.
need_readable() {
	local scope=0
	[[ -r /proc/sys/kernel/yama/ptrace_scope ]] &&
		scope=$(cat /proc/sys/kernel/yama/ptrace_scope)
	((scope < 3)) || skip "kernel.yama.ptrace_scope=3: no process may read another's memory"
	((scope == 0)) || [[ $(id -u) -eq 0 ]] ||
		skip "kernel.yama.ptrace_scope=$scope: only root reads a process it did not start"
}

line_of() {
	grep -n "# @$2\$" "$1" | cut -d: -f1
}

# wait_file FILE: wait (5 s at most) until FILE exists.
wait_file() {
	local tenths=50
	while [[ ! -e $1 ]] && ((tenths-- > 0)); do
		sleep 0.1
	done
	[[ -e $1 ]] || fail "'$1' not written in 5 s"
}

# The program of known shape, in a file whose name is not ASCII.
# Threads: main (main -> outer -> Greeter.hello -> inner, asleep), "rec"
# (rec 4 deep -> the generator numbers, resumed by list() -> pause,
# asleep), "names" (functions named in Latin-1, Cyrillic and a
# character past the BMP, asleep).  A reporter thread waits until every
# other thread is asleep at its line (the stacks cannot change then),
# writes their stacks as the program itself sees them to READY in
# pystack's format, and sleeps.
write_prog() {
	cat >"$1" <<'PY'
import os, sys, threading, time

READY = sys.argv[1]


class Greeter:
    def hello(self):
        inner()  # @hello


def inner():
    time.sleep(300)  # @inner


def outer():
    Greeter().hello()  # @outer


def numbers():
    yield pause()  # @numbers


def pause():
    time.sleep(300)  # @pause


def rec(k):
    if k == 0:
        return list(numbers())  # @rec0
    return rec(k - 1)  # @rec


def café():
    привет()  # @cafe


def привет():
    𠀀()  # @privet


def 𠀀():
    time.sleep(300)  # @astral


SLEEPERS = {"inner", "pause", "𠀀"}


def asleep(frame):
    # At the line of time.sleep (the one after the def), which the
    # thread does not leave for 300 s.
    return (frame.f_code.co_name in SLEEPERS and
            frame.f_lineno == frame.f_code.co_firstlineno + 1)


def report():
    me = threading.get_ident()
    while True:
        frames = {k: f for k, f in sys._current_frames().items() if k != me}
        if len(frames) == 3 and all(asleep(f) for f in frames.values()):
            break
        time.sleep(0.01)
    native = {t.ident: t.native_id for t in threading.enumerate()}
    out = []
    for ident, f in sorted(frames.items(), key=lambda kv: native[kv[0]]):
        out.append("thread %d" % native[ident])
        while f:
            c = f.f_code
            # (no qualified names before 3.11: the name stands for it)
            name = getattr(c, "co_qualname", c.co_name)
            out.append("%s (%s:%d)" % (name, c.co_filename, f.f_lineno))
            f = f.f_back
        out.append("= end")
    with open(READY + ".new", "w", encoding="utf-8") as fd:
        fd.write("\n".join(out) + "\n")
    os.rename(READY + ".new", READY)
    time.sleep(300)


def main():
    threading.Thread(target=rec, args=(3,), name="rec", daemon=True).start()
    threading.Thread(target=café, name="names", daemon=True).start()
    threading.Thread(target=report, daemon=True).start()
    outer()  # @main


main()  # @module
PY
}

# start_prog PYTHON: run the program under PYTHON; sets PROG (its file),
# PID and EXPECTED (its own view of its threads' stacks).
start_prog() {
	PROG=$PWD/prög.py
	EXPECTED=$PWD/expected
	write_prog "$PROG"
	bg "$1" "$PROG" "$EXPECTED"
	PID=$BG
	wait_file "$EXPECTED"
}

# read_expected_threads: pystack -t for each thread of EXPECTED, in its
# order, the "# CPython" line left out; status of the last read.
read_expected_threads() {
	local tid
	for tid in $(sed -n 's/^thread //p' "$EXPECTED"); do
		"$PYSTACK" "$@" -t "$tid" "$PID" | grep -v '^# CPython'
	done
}


# The layout test of 3.MINOR: pyoffsets compiled against its headers
# prints what pystack --layout 3.MINOR prints.
check_layout() {
	find_py "$1" || skip "no CPython 3.$1 that runs (python3.$1 on PATH, or PYTHON3$1), nor its headers"
	local var=PY3$1_INCLUDE inc
	inc=${!var:-$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')}
	[[ -r $inc/Python.h && -r $inc/internal/pycore_runtime.h ]] ||
		skip "no CPython 3.$1 headers with internal/ in $inc (libpython3.$1-dev)"
	command -v cc >/dev/null || skip "no C compiler"
	run -0 cc -I"$inc" -o pyoffsets "$ROOT/tests/tools/pyoffsets.c"
	run -0 ./pyoffsets
	[[ ${lines[0]} == "# CPython 3.$1."* ]] || fail "headers of ${lines[0]#\# }, not 3.$1"
	# Every value of either side, each on the other.
	diff -u <(./pyoffsets | grep -v '^#' | sort) \
		<("$PYSTACK" --layout "3.$1" | sort) ||
		fail "pylayout.c's layout table differs from the headers (- headers, + table)"
	[[ $("$PYSTACK" --layout "3.$1" | wc -l) -ge 28 ]]
}

@test "pyframes 3.9: the layout table equals offsetof() in CPython's headers" {
	check_layout 9
}

@test "pyframes 3.10: the layout table equals offsetof() in CPython's headers" {
	check_layout 10
}

@test "pyframes 3.11: the layout table equals offsetof() in CPython's headers" {
	check_layout 11
}

@test "pyframes 3.12: the layout table equals offsetof() in CPython's headers" {
	check_layout 12
}

@test "pyframes 3.13: the layout table equals offsetof() in CPython's headers" {
	check_layout 13
}

@test "pyframes 3.13: the offsets a live process publishes (_Py_DebugOffsets) are its headers' too" {
	need_py 13
	local var=PY313_INCLUDE inc
	inc=${!var:-$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')}
	[[ -r $inc/Python.h && -r $inc/internal/pycore_runtime.h ]] ||
		skip "no CPython 3.13 headers with internal/ in $inc (libpython3.13-dev)"
	command -v cc >/dev/null || skip "no C compiler"
	run -0 cc -I"$inc" -o pyoffsets "$ROOT/tests/tools/pyoffsets.c"
	bg "$PY" -c 'import time; open("ready", "w").close(); time.sleep(300)'
	PID=$BG
	wait_file ready
	run -0 "$PYSTACK" --layout-of "$PID"
	diff -u <(./pyoffsets | grep -v '^#' | sort) <(sort <<<"$output") ||
		fail "the layout read from the process differs from the headers (- headers, + read)"
	assert_line --partial "_Py_DebugOffsets.thread_state.current_frame "
}

# A 3.13 that damages what it publishes at the start of _PyRuntime
# (MODE: the cookie, or thread_state.current_frame's offset, at 184),
# then tells READY and sleeps.
write_debug_damage() {
	cat >"$1" <<'PY'
import ctypes, sys, time

MODE, READY = sys.argv[1], sys.argv[2]
rt = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, "_PyRuntime"))
if MODE == "cookie":
    ctypes.memmove(rt, b"xdebugpz", 8)
elif MODE == "offset":
    ctypes.c_uint64.from_address(rt + 184).value = 1 << 20
open(READY, "w").close()
time.sleep(300)
PY
}

@test "pyframes 3.13: debug offsets that are not (no cookie) or not believed (past their struct) refuse the process in one line" {
	need_py 13
	local v
	v=$("$PY" -c 'import platform; print(platform.python_version())')
	write_debug_damage damage.py
	bg "$PY" damage.py cookie ready
	PID=$BG
	wait_file ready
	run -1 "$PYSTACK" "$PID"
	assert_output "pystack: CPython $v: _PyRuntime does not start with its debug offsets (no cookie; process $PID)"
	rm ready
	bg "$PY" damage.py offset ready
	PID=$BG
	wait_file ready
	run -1 "$PYSTACK" "$PID"
	assert_output --regexp "^pystack: CPython $v: debug offset _Py_DebugOffsets.thread_state.current_frame is 1048576 \(in a struct of [0-9]+ bytes\): not believed \(process $PID\)\$"
}

@test "pyframes: a version with no table: pystack --layout says so" {
	run -1 "$PYSTACK" --layout 3.14
	assert_output "pystack: no layout for CPython 3.14"
	run -1 "$PYSTACK" --layout 3.8
	assert_output "pystack: no layout for CPython 3.8"
}

# Three threads' stacks as the program itself sees them.
check_threads() {
	need_py "$1"
	start_prog "$PY"
	run -0 read_expected_threads
	diff -u "$EXPECTED" <(printf '%s\n' "$output") ||
		fail "pystack differs from the program's own view (- program, + pystack)"
	# Which threads: main, rec, names (the reporter is not in EXPECTED).
	[[ $(grep -c '^thread ' "$EXPECTED") -eq 3 ]]
}

@test "pyframes 3.9: three threads' stacks, innermost first, as the program sees them: names, qualnames, files, lines" {
	check_threads 9
}

@test "pyframes 3.10: three threads' stacks, innermost first, as the program sees them: names, qualnames, files, lines" {
	check_threads 10
}

@test "pyframes 3.11: three threads' stacks, innermost first, as the program sees them: names, qualnames, files, lines" {
	check_threads 11
}

@test "pyframes 3.12: three threads' stacks, innermost first, as the program sees them: names, qualnames, files, lines" {
	check_threads 12
}

@test "pyframes 3.13: three threads' stacks, innermost first, as the program sees them: names, qualnames, files, lines" {
	check_threads 13
}

# The main thread: the lines marked; the image the interpreter is in.
check_main() {
	need_py "$1"
	start_prog "$PY"
	run -0 "$PYSTACK" -t "$PID" "$PID"
	local f=$PROG image
	image=${lines[0]##* }
	[[ $image == "$(readlink -f "/proc/$PID/exe")" || $image == */libpython3.$1.so* ]] ||
		fail "image $image: neither the executable nor a libpython3.$1"
	# Before 3.11: no Py_Version (the file's name tells the minor
	# version), no qualified names.
	local v hello=Greeter.hello
	v=$("$PY" -c 'import platform; print(platform.python_version())')
	(($1 >= 11)) || v=3.$1 hello=hello
	assert_output - <<-OUT
	# CPython $v $image
	thread $PID
	inner ($f:$(line_of "$f" inner))
	$hello ($f:$(line_of "$f" hello))
	outer ($f:$(line_of "$f" outer))
	main ($f:$(line_of "$f" main))
	<module> ($f:$(line_of "$f" module))
	= end
	OUT
}

@test "pyframes 3.9: the main thread: a method's name (no qualified names before 3.11), the exact lines marked in the source" {
	check_main 9
}

@test "pyframes 3.10: the main thread: a method's name (no qualified names before 3.11), the exact lines marked in the source" {
	check_main 10
}

@test "pyframes 3.11: the main thread: a method's qualname, the exact lines marked in the source" {
	check_main 11
}

@test "pyframes 3.12: the main thread: a method's qualname, the exact lines marked in the source" {
	check_main 12
}

@test "pyframes 3.13: the main thread: a method's qualname, the exact lines marked in the source" {
	check_main 13
}

# Entry frames: one per C call of the eval loop.  RECENTRY: whether the
# outermost rec is one (3.11: Thread.run calls it through C; 3.12 on:
# the eval loop runs a call with *args of a Python function inline).
# Before 3.11 each frame is run by a C call of its own: each is one (and
# is named by its name: no qualified names).
check_entries() {
	need_py "$1"
	local recentry=${2:-} each= cls=Thread. mains=1
	(($1 >= 11)) || recentry=" [entry]" each=" [entry]" cls= mains=5
	start_prog "$PY"
	local tid f=$PROG
	tid=$(sed -n 's/^thread //p' "$EXPECTED" | sed -n 2p)
	run -0 "$PYSTACK" -e -t "$tid" "$PID"
	# list() (C) resumes the generator: a new C call of the eval loop,
	# so numbers is an entry frame; the thread's bootstrap starts from C.
	assert_line --index 1 "thread $tid"
	assert_line --index 2 "pause ($f:$(line_of "$f" pause))$each"
	assert_line --index 3 "numbers ($f:$(line_of "$f" numbers)) [entry]"
	assert_line --index 4 "rec ($f:$(line_of "$f" rec0))$each"
	assert_line --index 5 "rec ($f:$(line_of "$f" rec))$each"
	assert_line --index 6 "rec ($f:$(line_of "$f" rec))$each"
	assert_line --index 7 "rec ($f:$(line_of "$f" rec))$recentry"
	[[ ${lines[8]} == "${cls}run ("*"/threading.py:"*")$each" ]]
	[[ ${lines[9]} == "${cls}_bootstrap_inner ("*"/threading.py:"*")$each" ]]
	[[ ${lines[10]} == "${cls}_bootstrap ("*"/threading.py:"*") [entry]" ]]
	assert_line --index 11 "= end"
	[[ ${#lines[@]} -eq 12 ]]
	# The main thread: one C call (the module's), the rest inline (3.11
	# on); one per frame before.
	run -0 "$PYSTACK" -e -t "$PID" "$PID"
	[[ $(grep -c '\[entry\]' <<<"$output") -eq $mains ]]
	[[ $(grep -c ' (' <<<"$output") -eq 5 ]]
	assert_line "<module> ($f:$(line_of "$f" module)) [entry]"
}

@test "pyframes 3.9: a generator resumed from C and a recursive function; every frame is an entry frame (a C call of the eval loop each)" {
	check_entries 9 " [entry]"
}

@test "pyframes 3.10: a generator resumed from C and a recursive function; every frame is an entry frame (a C call of the eval loop each)" {
	check_entries 10 " [entry]"
}

@test "pyframes 3.11: a generator resumed from C and a recursive function; entry frames mark each C call of the eval loop" {
	check_entries 11 " [entry]"
}

@test "pyframes 3.12: a generator resumed from C and a recursive function; entry frames (shims) mark each C call of the eval loop" {
	check_entries 12
}

@test "pyframes 3.13: a generator resumed from C and a recursive function; entry frames (shims) mark each C call of the eval loop" {
	check_entries 13
}

check_names() {
	need_py "$1"
	start_prog "$PY"
	local tid f=$PROG
	tid=$(sed -n 's/^thread //p' "$EXPECTED" | sed -n 3p)
	run -0 "$PYSTACK" -t "$tid" "$PID"
	assert_line --index 2 "𠀀 ($f:$(line_of "$f" astral))"
	assert_line --index 3 "привет ($f:$(line_of "$f" privet))"
	assert_line --index 4 "café ($f:$(line_of "$f" cafe))"
}

@test "pyframes 3.9: names of every string kind (ASCII, Latin-1, UCS-2, UCS-4) are given as UTF-8" {
	check_names 9
}

@test "pyframes 3.10: names of every string kind (ASCII, Latin-1, UCS-2, UCS-4) are given as UTF-8" {
	check_names 10
}

@test "pyframes 3.11: names of every string kind (ASCII, Latin-1, UCS-2, UCS-4) are given as UTF-8" {
	check_names 11
}

@test "pyframes 3.12: names of every string kind (ASCII, Latin-1, UCS-2, UCS-4) are given as UTF-8" {
	check_names 12
}

@test "pyframes 3.13: names of every string kind (ASCII, Latin-1, UCS-2, UCS-4) are given as UTF-8" {
	check_names 13
}

check_every_thread() {
	need_py "$1"
	start_prog "$PY"
	run -0 "$PYSTACK" "$PID"
	[[ $(grep -c '^thread ' <<<"$output") -eq $(ls /proc/$PID/task | wc -l) ]]
	[[ $(grep -c '^= end$' <<<"$output") -eq 4 ]]
	# The reporter, asleep after writing EXPECTED.
	assert_line --partial "report ($PROG:"
}

@test "pyframes 3.9: every thread of the process is listed, each walk complete" {
	check_every_thread 9
}

@test "pyframes 3.10: every thread of the process is listed, each walk complete" {
	check_every_thread 10
}

@test "pyframes 3.11: every thread of the process is listed, each walk complete" {
	check_every_thread 11
}

@test "pyframes 3.12: every thread of the process is listed, each walk complete" {
	check_every_thread 12
}

@test "pyframes 3.13: every thread of the process is listed, each walk complete" {
	check_every_thread 13
}

@test "pyframes: a CPython built as a shared library (libpython3.X.so) is read the same" {
	need_readable
	local py= cand minor=
	for cand in python3.11 python3.12 python3.13 python3; do
		command -v "$cand" >/dev/null || continue
		minor=$("$cand" -c 'import sys, sysconfig; print(sys.version_info[1] if sys.implementation.name == "cpython" and sysconfig.get_config_var("Py_ENABLE_SHARED") else "")' 2>/dev/null) ||
			continue
		[[ -n $minor ]] && "$PYSTACK" --layout "3.$minor" >/dev/null 2>&1 && {
			py=$(command -v "$cand")
			break
		}
	done
	[[ -n $py ]] || skip "no CPython of a version known on PATH built with --enable-shared"
	start_prog "$py"
	run -0 "$PYSTACK" -t "$PID" "$PID"
	[[ ${lines[0]} == "# CPython 3.$minor."*"/libpython3.$minor.so"* ]] || fail "not read from libpython: ${lines[0]}"
	run -0 read_expected_threads
	diff -u "$EXPECTED" <(printf '%s\n' "$output") ||
		fail "pystack differs from the program's own view (- program, + pystack)"
}

# The line table decoders of 3.9 (co_lnotab) and 3.10 (co_linetable)
# against CPython's own PyCode_Addr2Line(), called through ctypes on
# each code unit's byte offset.
check_addr2line() {
	need_py "$1"
	write_prog prog.py
	run -0 "$PY" - prog.py <<-'PY'
	import ctypes, importlib, sys, types
	line = ctypes.pythonapi.PyCode_Addr2Line
	line.argtypes = [ctypes.py_object, ctypes.c_int]
	def codes(co):
	    yield co
	    for c in co.co_consts:
	        if isinstance(c, types.CodeType):
	            yield from codes(c)
	files = [sys.argv[1]] + [importlib.import_module(m).__file__ for m in
	    ("argparse", "typing", "dataclasses", "inspect", "ast", "threading",
	     "collections", "email.message", "tarfile")]
	nolines = 0
	with open("tables", "w") as t, open("lines", "w") as l:
	    for path in files:
	        with open(path, encoding="utf-8") as f:
	            top = compile(f.read(), path, "exec")
	        for co in codes(top):
	            n = len(co.co_code) // 2
	            table = getattr(co, "co_linetable", None) if sys.version_info >= (3, 10) else co.co_lnotab
	            want = [line(co, 2 * u) for u in range(n)]
	            nolines += want.count(-1)
	            t.write("%d %d %s\n" % (co.co_firstlineno, n, table.hex()))
	            l.write(" ".join(map(str, want)) + "\n")
	print(nolines > 0 if sys.version_info >= (3, 10) else True)
	PY
	# 3.10 has units with no line (the -128 entries): some are there.
	assert_output True
	run -0 "$PYSTACK" --lines "3.$1" <tables
	diff -q lines <(printf '%s\n' "$output") ||
		fail "the decoder's lines differ from PyCode_Addr2Line()"
	[[ $(wc -l <lines) -gt 1000 ]]
}

# The location table decoder (3.11 on) against co_positions().
check_positions() {
	need_py "$1"
	write_prog prog.py
	run -0 "$PY" - prog.py <<-'PY'
	import importlib, sys, types
	def codes(co):
	    yield co
	    for c in co.co_consts:
	        if isinstance(c, types.CodeType):
	            yield from codes(c)
	kinds = set()
	files = [sys.argv[1]] + [importlib.import_module(m).__file__ for m in
	    ("argparse", "typing", "dataclasses", "inspect", "ast", "threading")]
	with open("tables", "w") as t, open("lines", "w") as l:
	    for path in files:
	        with open(path, encoding="utf-8") as f:
	            top = compile(f.read(), path, "exec")
	        for co in codes(top):
	            want = [p[0] if p[0] is not None else -1 for p in co.co_positions()]
	            t.write("%d %d %s\n" % (co.co_firstlineno, len(want), co.co_linetable.hex()))
	            l.write(" ".join(map(str, want)) + "\n")
	            kinds.update((b >> 3) & 15 for b in co.co_linetable if b & 128)
	print(len(kinds))
	PY
	assert_output 16
	run -0 "$PYSTACK" --lines <tables
	diff -q lines <(printf '%s\n' "$output") ||
		fail "the decoder's lines differ from co_positions()"
	[[ $(wc -l <lines) -gt 1000 ]]
}

@test "pyframes 3.9: the line table decoder gives PyCode_Addr2Line()'s line for every code unit of many code objects" {
	check_addr2line 9
}

@test "pyframes 3.10: the line table decoder gives PyCode_Addr2Line()'s line for every code unit of many code objects" {
	check_addr2line 10
}

@test "pyframes 3.11: the line table decoder gives co_positions()'s line for every code unit of many code objects, all 16 entry kinds" {
	check_positions 11
}

@test "pyframes 3.12: the line table decoder gives co_positions()'s line for every code unit of many code objects, all 16 entry kinds" {
	check_positions 12
}

@test "pyframes 3.13: the line table decoder gives co_positions()'s line for every code unit of many code objects, all 16 entry kinds" {
	check_positions 13
}

write_hostile() {
	cat >"$1" <<'PY'
import ctypes, sys, time

MODE, READY = sys.argv[1], sys.argv[2]
word = lambda addr: ctypes.c_void_p.from_address(addr)
KEEP = "not a code object"


def victim():
    frame = word(id(sys._getframe()) + 24).value
    if MODE == "unmapped":
        word(frame + 48).value = 0x1000
    elif MODE == "loop":
        word(frame + 48).value = frame
    elif MODE == "nocode":
        word(frame + 32).value = None
    elif MODE == "notcode":
        word(frame + 32).value = id(KEEP)
    elif MODE == "notstr":
        # co_qualname (PyCodeObject + 128): a float.
        word(id(victim.__code__) + 128).value = id(KEEP_FLOAT)
    open(READY, "w").close()
    time.sleep(300)  # @victim


def caller():
    victim()  # @caller


KEEP_FLOAT = 1.5
if MODE == "long":
    victim.__code__ = victim.__code__.replace(co_qualname="é" * 3000)
caller()
PY
}

# start_hostile MODE: run the hostile program in MODE; sets PID and F.
start_hostile() {
	F=$PWD/hostile.py
	write_hostile "$F"
	rm -f ready
	bg "$PY" "$F" "$1" ready
	PID=$BG
	wait_file ready
	wait_asleep "$PID"
}

# wait_asleep PID: wait (5 s at most) until PID's main thread is in
# time.sleep's system call, where its stack stays put: clock_nanosleep
# (x86-64's 230) from 3.11 on, select (23) or pselect6 (270) before.
wait_asleep() {
	local tenths=50
	until [[ $(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null) =~ ^(230|23|270)$ ]]; do
		((tenths-- > 0)) || fail "process $1 not asleep in time.sleep after 5 s"
		sleep 0.1
	done
}

@test "pyframes: a damaged chain ends the walk with its reason, the frames before it kept" {
	need_py 11
	start_hostile unmapped
	run -3 "$PYSTACK" -t "$PID" "$PID"
	assert_line --index 2 "victim ($F:$(line_of "$F" victim))"
	assert_line --index 3 "= stopped: cannot read a frame at 0x1000"
	[[ ${#lines[@]} -eq 4 ]]

	start_hostile loop
	run -3 "$PYSTACK" -t "$PID" "$PID"
	assert_line --index 2 "victim ($F:$(line_of "$F" victim))"
	assert_line --index 3 --regexp '^= stopped: the frames loop \(frame at 0x[0-9a-f]+ comes again\)$'
	[[ ${#lines[@]} -eq 4 ]]
}

@test "pyframes: a frame without a code object, or with another object as its code, stops the walk" {
	need_py 11
	start_hostile nocode
	run -3 "$PYSTACK" -t "$PID" "$PID"
	assert_line --index 2 --regexp '^= stopped: frame at 0x[0-9a-f]+: no code object \(NULL\)$'
	[[ ${#lines[@]} -eq 3 ]]

	start_hostile notcode
	run -3 "$PYSTACK" -t "$PID" "$PID"
	assert_line --index 2 --regexp '^= stopped: 0x[0-9a-f]+ is not a code object$'
}

@test "pyframes: a code object's name that is not a str is that frame's reason; the walk goes on" {
	need_py 11
	start_hostile notstr
	run -0 "$PYSTACK" -t "$PID" "$PID"
	assert_line --index 2 --regexp '^\? \(co_qualname at 0x[0-9a-f]+ is not a str\)$'
	assert_line --index 3 "caller ($F:$(line_of "$F" caller))"
	assert_line --index 5 "= end"
}

@test "pyframes: a name longer than 1024 characters is cut there" {
	need_py 11
	start_hostile long
	run -0 "$PYSTACK" -t "$PID" "$PID"
	local cut
	cut=$(printf 'é%.0s' {1..1024})
	assert_line --index 2 "$cut... ($F:$(line_of "$F" victim))"
}

check_churn() {
	need_py "$1"
	cat >churn.py <<-'PY'
	import threading
	def r(n):
	    if n:
	        return r(n - 1)
	    return sum(x for x in range(20))
	def churn():
	    k = 0
	    while True:
	        r(k % 150)
	        k += 1
	for _ in range(2):
	    threading.Thread(target=churn, daemon=True).start()
	open("ready", "w").close()
	churn()
	PY
	bg "$PY" churn.py
	PID=$BG
	wait_file ready
	local i rc complete=0
	for i in $(seq 60); do
		rc=0
		"$PYSTACK" "$PID" >out 2>err || rc=$?
		((rc == 0 || rc == 3)) || fail "status $rc: $(cat err)"
		# One line per frame or end, each of them.
		grep -Evq '^(# CPython .*|thread [0-9]+|.* \(.*:([0-9]+|\?)\)|\? \(.*\)|= (end|stopped: .*))$' out &&
			fail "a line of no known form: $(grep -Ev '^(# CPython .*|thread [0-9]+|.* \(.*:([0-9]+|\?)\)|\? \(.*\)|= (end|stopped: .*))$' out | head -3)"
		((rc == 0)) && complete=$((complete + 1))
	done
	((complete > 0)) || fail "no walk of 60 was complete"
}

@test "pyframes 3.9: stacks read while they change: every walk complete or stopped with a reason, never a crash" {
	check_churn 9
}

@test "pyframes 3.10: stacks read while they change: every walk complete or stopped with a reason, never a crash" {
	check_churn 10
}

@test "pyframes 3.11: stacks read while they change: every walk complete or stopped with a reason, never a crash" {
	check_churn 11
}

@test "pyframes 3.12: stacks read while they change: every walk complete or stopped with a reason, never a crash" {
	check_churn 12
}

@test "pyframes 3.13: stacks read while they change: every walk complete or stopped with a reason, never a crash" {
	check_churn 13
}

# uprofile -g on a workload of known shape: a, b, c run 50, 30, 20
# units of one loop under main.
check_uprofile() {
	need_py "$1"
	skip_unless_perf_works
	cat >work.py <<-'PY'
	import sys
	N = int(sys.argv[1])
	def a():
	    x = 0
	    for i in range(50 * N):
	        x += i
	def b():
	    x = 0
	    for i in range(30 * N):
	        x += i
	def c():
	    x = 0
	    for i in range(20 * N):
	        x += i
	def main():
	    a()
	    b()
	    c()
	main()
	PY
	run -0 "$UPROFILE" -quiet -g -e cpu-clock -o p.umon "$PY" work.py 600000
	run -0 "$UPROFILE" -i p.umon --format json
	local json=$output
	assert_split "$json" a b 62.5 12
	assert_split "$json" b c 60 12
	# The tree: the interpreter's frames gave way to the functions.
	run -0 "$UPROFILE" -i p.umon -tree
	local fn
	# (A node whose children below the tree's cut are not shown says
	# how many.)
	for fn in '<module>' main a b c; do
		assert_line --regexp "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +$fn( +\\([0-9]+ more not shown\\))?\$"
	done
	# The eval loop's frames, only where a sample kept its native
	# frames: with the BPF program, one of a thread the program was not
	# told of yet (the interpreter's start), drained too late to read
	# its frames from the process.  At most 5% of the samples (2.1% in
	# a CI run of the sanitizer build beside other tests, under 1%
	# alone; a splice that fails has them in all).
	local n big
	n=$(sed -n 's/^ *cpu-clock.*: \([0-9]*\) samples.*/\1/p' <<<"$output")
	big=$(awk -v n="$n" '/_PyEval_EvalFrameDefault/ && $3 * 20 > n' <<<"$output")
	[[ -n $n && -z $big ]] ||
		fail "the eval loop's frames in more than 5% of $n samples: $big"
}

@test "pyframes 3.9: uprofile -g shows the Python functions, in their shares" {
	check_uprofile 9
}

@test "pyframes 3.10: uprofile -g shows the Python functions, in their shares" {
	check_uprofile 10
}

@test "pyframes 3.11: uprofile -g shows the Python functions, in their shares" {
	check_uprofile 11
}

@test "pyframes 3.12: uprofile -g shows the Python functions, in their shares" {
	check_uprofile 12
}

@test "pyframes 3.13: uprofile -g shows the Python functions, in their shares" {
	check_uprofile 13
}

# The sample's time, not the read's: a copy of the thread's stack taken
# while it sleeps in first() (as a sample copies it), then the thread
# goes on into deeper(), then the stack is read with that copy.  3.11
# and 3.12 keep the innermost frame in the eval loop's C frame, on the
# stack: the walk starts from first()'s frame, as it was.  3.13 keeps it
# in the thread state, 3.9 and 3.10 too (a PyFrameObject, on the heap):
# the walk is of now.
check_copy() {
	need_py "$1"
	local fifo=$PWD/go reader w
	cat >later.py <<-'PY'
	import os, time
	def deeper():
	    open("ready2", "w").close()
	    time.sleep(300)  # @deeper
	def first():
	    open("ready", "w").close()
	    with open("gate", "rb") as g:
	        g.read(1)
	    deeper()  # @first
	first()  # @module
	PY
	mkfifo "$fifo" gate
	bg "$PY" "$PWD/later.py"
	PID=$BG
	wait_file ready
	# Blocked opening the gate (a system call: its stack pointer is
	# known).
	local tenths=50
	until [[ $(cut -d' ' -f1 "/proc/$PID/syscall" 2>/dev/null) == 257 ]]; do
		((tenths-- > 0)) || fail "process $PID not blocked in openat after 5 s"
		sleep 0.1
	done
	"$PYSTACK" --copy --wait -t "$PID" "$PID" <"$fifo" >out 2>err 3>&- &
	reader=$!
	exec {w}>"$fifo"
	wait_nonempty out
	echo x >gate
	wait_file ready2
	wait_asleep "$PID"
	echo >&$w
	exec {w}>&-
	wait "$reader" || fail "status $?: $(cat out err)"
	run cat out
	assert_line --index 1 "# attached"
	assert_line --index 2 "thread $PID"
	if (($1 >= 11 && $1 < 13)); then
		assert_line --index 3 "first ($PWD/later.py:$(line_of later.py first))"
		assert_line --index 4 "<module> ($PWD/later.py:$(line_of later.py module))"
		assert_line --index 5 "= end"
	else
		assert_line --index 3 "deeper ($PWD/later.py:$(line_of later.py deeper))"
	fi
	# Without the copy: the stack of now.
	run -0 "$PYSTACK" -t "$PID" "$PID"
	assert_line --index 2 "deeper ($PWD/later.py:$(line_of later.py deeper))"
	assert_line --index 3 "first ($PWD/later.py:$(line_of later.py first))"
}

@test "pyframes 3.9: a stack read with a sample's copy is the stack of now (its frames are heap objects)" {
	check_copy 9
}

@test "pyframes 3.10: a stack read with a sample's copy is the stack of now (its frames are heap objects)" {
	check_copy 10
}

@test "pyframes 3.11: a stack read with a sample's copy starts from the frame of the sample's time" {
	check_copy 11
}

@test "pyframes 3.12: a stack read with a sample's copy starts from the frame of the sample's time" {
	check_copy 12
}

@test "pyframes 3.13: a stack read with a sample's copy is the stack of now (its frame is not on the C stack)" {
	check_copy 13
}

@test "pyframes: a process that exits while it is read is an error: reaped, or a zombie" {
	need_py 11
	local fifo=$PWD/go reader rc w tenths
	mkfifo "$fifo"
	bg "$PY" -c 'import time; open("ready", "w").close(); time.sleep(300)'
	PID=$BG
	wait_file ready
	# pystack attaches, says so, and waits for a line: the process
	# exits (and is reaped) in between.
	"$PYSTACK" --wait "$PID" <"$fifo" >out 2>err 3>&- &
	reader=$!
	exec {w}>"$fifo"
	wait_nonempty out
	kill -KILL "$PID"
	wait "$PID" || :
	echo >&$w
	exec {w}>&-
	rc=0
	wait "$reader" || rc=$?
	[[ $rc -eq 1 ]] || fail "status $rc: $(cat out err)"
	[[ $(cat err) == "pystack: process $PID has exited" ]] || fail "$(cat err)"

	# A zombie: its parent (sh, then sleep after exec) never reaps it.
	rm -f ready out err
	bg sh -c '"$1" -c "import time; open(\"ready\", \"w\").close(); time.sleep(300)" & echo $! >pid; exec sleep 300' sh "$PY"
	wait_file ready
	PID=$(cat pid)
	STARTED+=("$PID")
	"$PYSTACK" --wait -t "$PID" "$PID" <"$fifo" >out 2>err 3>&- &
	reader=$!
	exec {w}>"$fifo"
	wait_nonempty out
	kill -KILL "$PID"
	tenths=50
	until [[ $(awk '/^State:/ { print $2 }' "/proc/$PID/status") == Z ]]; do
		((tenths-- > 0)) || fail "process $PID not a zombie after 5 s"
		sleep 0.1
	done
	echo >&$w
	exec {w}>&-
	rc=0
	wait "$reader" || rc=$?
	[[ $rc -eq 1 ]] || fail "status $rc: $(cat out err)"
	[[ $(cat err) == "pystack: process $PID has exited" ]] || fail "$(cat err)"
}

@test "pyframes: a process that is no CPython, or none at all, gives one line and status 1" {
	need_readable
	bg sleep 30
	PID=$BG
	run -1 "$PYSTACK" "$PID"
	assert_output "pystack: process $PID: no CPython found (no python or libpython file it maps exports _PyRuntime)"
	kill "$PID"
	wait "$PID" || :
	run -1 "$PYSTACK" "$PID"
	assert_output "pystack: no process $PID"
}

@test "pyframes: a CPython version not known is refused in one line naming it" {
	need_readable
	local py= cand v
	for cand in ${PYTHON_OTHER-} python3.14 python3.15 python3.8 python3.7 python3.6; do
		v=$("$cand" -c 'import sys; print(sys.implementation.name, "%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
		[[ $v == cpython\ 3.* ]] && ! "$PYSTACK" --layout "${v#cpython }" >/dev/null 2>&1 && { py=$cand; break; }
	done
	[[ -n $py ]] || skip "no CPython of a version with no layout on PATH (python3.14, python3.8, ...; PYTHON_OTHER names one)"
	bg "$py" -c 'import time; open("ready", "w").close(); time.sleep(300)'
	PID=$BG
	wait_file ready
	run -1 "$PYSTACK" "$PID"
	assert_output --regexp "^pystack: CPython ${v#cpython }(\.[0-9]+)?: layout not known \(process $PID, .*python${v#cpython }.*\)\$"
}

# A 3.9 or 3.10 program that writes its own process id in a second place
# of its main thread's struct pthread (the first zero word after its
# thread id), then sleeps (MODE sleep) or spins (MODE spin); READY once
# written.
write_twice() {
	cat >"$1" <<'PY'
import ctypes, os, sys, time

MODE, READY = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None)
libc.pthread_self.restype = ctypes.c_void_p
words = (ctypes.c_uint32 * 256).from_address(libc.pthread_self())
pid = os.getpid()
at = [i for i in range(256) if words[i] == pid]
assert len(at) == 1, at
words[next(i for i in range(at[0] + 1, 256) if words[i] == 0)] = pid
open(READY, "w").close()
if MODE == "sleep":
    time.sleep(300)
while True:
    pass
PY
}

# 3.9 and 3.10 tell a thread state's thread by the thread id in its
# pthread_t, at the one place of the main thread's that holds the
# process id: two such places are refused, not guessed between.
check_tid_twice() {
	need_py "$1"
	write_twice twice.py
	bg "$PY" twice.py sleep ready
	PID=$BG
	wait_file ready
	run -1 "$PYSTACK" "$PID"
	assert_output "pystack: CPython 3.$1: cannot tell where the C library keeps a thread's id (2 places in the first 1024 bytes of the main thread's pthread_t hold its id; process $PID)"
	# uprofile attached: the same line in -v, the native frames kept.
	skip_unless_perf_works
	bg "$PY" twice.py spin ready2
	PID=$BG
	wait_file ready2
	run -0 --separate-stderr "$UPROFILE" -v -g -e cpu-clock -o t.umon -p "$PID" -d 0.5
	[[ $(grep -c '^uprofile: python: ' <<<"$stderr") -eq 1 ]] || fail "$stderr"
	[[ $stderr =~ uprofile:\ python:\ no\ Python\ frames:\ CPython\ 3\.$1:\ cannot\ tell\ where\ the\ C\ library\ keeps\ a\ thread\'s\ id\ \(2\ places ]] ||
		fail "no line saying why: $stderr"
	run -0 "$UPROFILE" -i t.umon --format folded
	assert_output --partial _PyEval_EvalFrameDefault
	# Planted before CPython starts (a preloaded library's
	# constructor), in a program uprofile runs: the place is looked
	# for at a first walk, and the same line said.
	command -v cc >/dev/null || skip "no C compiler"
	cat >twice.c <<-'C'
	#include <pthread.h>
	#include <stdint.h>
	#include <unistd.h>
	__attribute__((constructor)) static void twice(void)
	{
		uint32_t *w = (uint32_t *)pthread_self();
		uint32_t pid = (uint32_t)getpid();
		int i = 0;

		while (i < 256 && w[i] != pid)
			i++;
		while (++i < 256)
			if (!w[i]) {
				w[i] = pid;
				return;
			}
	}
	C
	run -0 cc -shared -fPIC -o twice.so twice.c
	run -0 --separate-stderr "$UPROFILE" -v -g -e cpu-clock -o t2.umon \
		env LD_PRELOAD="$PWD/twice.so" "$PY" -c 'import time
end = time.process_time() + 0.3
while time.process_time() < end:
    pass'
	# (The line may come twice: env's exec record drained after the
	# first samples of the python it became, from another CPU's
	# buffer, has the process looked at anew.)
	grep '^uprofile: python: ' <<<"$stderr" | grep -vq 'cannot tell where the C library' &&
		fail "another python line: $stderr"
	[[ $stderr =~ uprofile:\ python:\ no\ Python\ frames:\ CPython\ 3\.$1:\ cannot\ tell\ where\ the\ C\ library\ keeps\ a\ thread\'s\ id\ \(2\ places ]] ||
		fail "no line saying why: $stderr"
}

@test "pyframes 3.9: a process id found twice in the main thread's pthread_t refuses the process in one line" {
	check_tid_twice 9
}

@test "pyframes 3.10: a process id found twice in the main thread's pthread_t refuses the process in one line" {
	check_tid_twice 10
}
