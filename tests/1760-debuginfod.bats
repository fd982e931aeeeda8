#!/usr/bin/env bats
# debuginfod: where an object has no debug info here, a report fetches it
# by build-id from the servers of DEBUGINFOD_URLS (elfutils'
# libdebuginfod, with its cache), says so on stderr, and a dead server
# does not hold the report.  The server is Debian's debuginfod, started
# on a free port and reached on 127.0.0.1, serving a directory with the
# debug file of a stripped test program and nothing else.

load helpers

skip_unless_debuginfod() {
	command -v debuginfod >/dev/null ||
		skip "debuginfod (package debuginfod) is not installed"
}

# http_get PORT PATH: the body of an HTTP GET to 127.0.0.1:PORT, without
# curl (bash's /dev/tcp); fails when nothing listens.
http_get() (
	exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
	cat <&3
)

# start_server DIR [KIND]: debuginfod serving DIR on a free port ($PORT,
# pid $SERVER_PID); returns once it has indexed the debug file there (its
# /metrics count the debuginfo found), and an executable with KIND
# "executable", at most 30 s.
start_server() {
	local dir=$1 kind=${2:-} try tenths pid metrics
	for try in 1 2 3 4 5; do
		PORT=$((20000 + (RANDOM * 7 + try) % 40000))
		http_get "$PORT" / >/dev/null 2>&1 && continue
		debuginfod -F -d "$BATS_TEST_TMPDIR/db.sqlite" -p "$PORT" \
			-t 0 -g 0 "$dir" >"$BATS_TEST_TMPDIR/server.log" 2>&1 &
		pid=$!
		for ((tenths = 0; tenths < 300; tenths++)); do
			kill -0 "$pid" 2>/dev/null || break
			metrics=$(http_get "$PORT" /metrics 2>/dev/null) || true
			if [[ $metrics =~ found_debuginfo_total\{source=\"files\"\}\ [1-9] &&
				( -z $kind ||
				$metrics =~ found_${kind}_total\{source=\"files\"\}\ [1-9] ) ]]; then
				SERVER_PID=$pid
				return 0
			fi
			sleep 0.1
		done
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	fail "debuginfod did not start: $(cat "$BATS_TEST_TMPDIR/server.log")"
}

teardown() {
	# kill_started leaves other programs alone: the server is ours.
	[[ -z ${SERVER_PID-} ]] || kill "$SERVER_PID" 2>/dev/null || true
	[[ -z ${SERVER_PID-} ]] || wait "$SERVER_PID" 2>/dev/null || true
	[[ -z ${LISTENER_PID-} ]] || kill "$LISTENER_PID" 2>/dev/null || true
	kill_started "${BG_PIDS[@]}"
}

# The profile of a stripped spin2 (no DWARF here; symbols and build-id
# kept) as ./umon.out, the program at ./prog, its unstripped copy at
# ./prog.full and its debug file alone in ./srv.
prepare() {
	skip_unless_perf_works
	skip_unless_debuginfod
	cp "$TPROG/spin2" prog.full
	cp prog.full prog
	mkdir srv
	objcopy --only-keep-debug prog srv/prog.debug
	objcopy --strip-debug prog
	run -0 "$UPROFILE" -quiet -e cpu-clock ./prog 300
	export DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache
	unset DEBUGINFOD_TIMEOUT
}

# The rows of prog in a -lines JSON report (stdin) as "ADDRESS FILE:LINE"
# ("null:null" without a line).
prog_rows() {
	jq -r --arg o "$PWD/prog" '.rows[] | select(.object == $o) |
		"\(.address) \(.file // "null"):\(.line // "null")"'
}

@test "debuginfod: the stripped program's lines come from the server, as addr2line gives them from the unstripped one" {
	command -v addr2line >/dev/null || skip "addr2line (binutils) is missing"
	prepare
	start_server srv
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	json_check <<<"$output"
	assert_equal "$stderr" "uprofile: debug info for '$PWD/prog' from debuginfod"
	local rows addr where want checked=0
	rows=$(prog_rows <<<"$output")
	while read -r addr where; do
		want=$(addr2line -e prog.full "$addr" | sed -E 's/ \(discriminator [0-9]+\)//')
		assert_equal "$addr $where" "$addr $want"
		checked=$((checked + 1))
	done <<<"$rows"
	((checked > 0)) || fail "no row of prog"
	run -0 jq -r '.rows | max_by(.percent["cpu-clock"]) |
		"\(.procedure) \(.file | split("/") | last):\(.line)"' <<<"$output"
	assert_output "hot_a spin2.c:45"
	# Now in the cache: a second report needs no server.
	kill "$SERVER_PID"
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	assert_equal "$(prog_rows <<<"$output")" "$rows"
	# -quiet says nothing
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$UPROFILE" -i umon.out -quiet -lines
	assert_equal "$stderr" ""
}

@test "debuginfod: without a server, or with --no-debuginfod, the report has no lines for the stripped program" {
	prepare
	start_server srv
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --format json
	assert_equal "$stderr" ""
	run -0 bash -c 'jq -r --arg o "$1" "[.rows[] | select(.object == \$o) |
		.file] | unique[]"' _ "$PWD/prog" <<<"$output"
	assert_output null
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$UPROFILE" -i umon.out -lines --no-debuginfod
	assert_equal "$stderr" ""
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ \?\? +hot_a +prog$'
	refute_line --partial 'spin2.c:45'
}

@test "debuginfod: a dead server costs little and the report still comes out" {
	prepare
	# A port where nothing listens: a server started and stopped.
	start_server srv
	kill "$SERVER_PID"
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=
	local t0 ms
	t0=$(date +%s%N)
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$UPROFILE" -i umon.out -lines
	ms=$(ms_since "$t0")
	echo "# a report with a dead server took $ms ms" >&3
	((ms < 60000)) || fail "the report took $ms ms"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ \?\? +hot_a +prog$'
	# said once, with the reason, however many objects lack debug info
	assert_equal "$stderr" "uprofile: debuginfod: cannot fetch for '$PWD/prog' (Connection refused): no more fetches for this report"
}

@test "debuginfod: a server that never answers is given up after a few seconds" {
	prepare
	# Connections are accepted by the kernel (the backlog), never
	# answered.
	python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(120)' >port &
	LISTENER_PID=$!
	wait_nonempty port
	local t0 ms
	t0=$(date +%s%N)
	# Without DEBUGINFOD_TIMEOUT the library would wait 90 s.
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$(cat port)" \
		"$UPROFILE" -i umon.out -lines
	ms=$(ms_since "$t0")
	echo "# a report with a server that never answers took $ms ms" >&3
	((ms < 60000)) || fail "the report took $ms ms"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ \?\? +hot_a +prog$'
	assert_equal "$stderr" "uprofile: debuginfod: cannot fetch for '$PWD/prog' (nothing received for 5 s; DEBUGINFOD_TIMEOUT sets the wait): no more fetches for this report"
}

@test "debuginfod: a missing program is fetched by its build-id, with its debug info" {
	prepare
	mv prog srv/prog
	start_server srv executable
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	[[ $stderr == *"uprofile: '$PWD/prog' from debuginfod (by its build-id)"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *"uprofile: debug info for '$PWD/prog' from debuginfod"* ]] ||
		fail "stderr: $stderr"
	run -0 jq -r '.rows | max_by(.percent["cpu-clock"]) |
		"\(.procedure) \(.file | split("/") | last):\(.line)"' <<<"$output"
	assert_output "hot_a spin2.c:45"
}

# fake_vmlinux: profile kernelloop read into ./kmon.out and make a
# stand-in for this kernel's vmlinux, ./srv/vmlinux, with its copy by
# build-id under ./dd: no vmlinux is at hand on a test machine, so the
# lookup is given a small ELF whose build-id is the running kernel's
# ($KERNEL_ID), with _text where the kernel's is and fake_hot over the
# hottest procedure of the kernel proper ($HOT_PROC): nops after its
# prologue, on line 4 of fakekernel.c.  Skips where the kernel has no
# build-id, hides its addresses, or has its own debug info installed.
fake_vmlinux() {
	skip_unless_root
	skip_unless_perf_works
	local id proc start end text size
	id=$(kernel_build_id)
	[[ -n $id ]] || skip "the kernel has no build-id note"
	[[ $(uname -m) == x86_64 ]] || skip "the stand-in vmlinux is built for x86-64"
	[[ ! -e /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug ]] ||
		skip "this kernel's debug info is installed: it would be found first"
	run -0 "$KPROFILE" -quiet -e cpu-clock "$TPROG/kernelloop" read 0.5
	# The hottest procedure of the kernel proper, where kallsyms puts it.
	proc=$("$KPROFILE" -i kmon.out --format json | jq -r 'first(.rows[] |
		select(.object == "[kernel.kallsyms]" and .module == null)) |
		.procedure')
	# (read through cat: sort reads /proc/kallsyms in a way that makes
	# the kernel walk it again for every block, minutes instead of ms)
	read -r start end < <(cat /proc/kallsyms | sort | awk -v p="$proc" '
		found && $1 != start { print start, $1; exit }
		!found && $3 == p && NF == 3 { found = 1; start = $1 }')
	text=$(awk '$3 == "_text" && NF == 3 { print $1; exit }' /proc/kallsyms)
	[[ -n $start && -n $end && $start != 0000000000000000 && -n $text ]] ||
		skip "kernel addresses are hidden (kptr_restrict)"
	cat >fakekernel.c <<'SRC'
void _text(void) __attribute__((section(".text.head")));
void _text(void) {}
__attribute__((section(".text.fake"))) void fake_hot(void)
{
	__asm__ volatile(".fill " SIZE ", 1, 0x90");
}
SRC
	printf 'SECTIONS {\n.text.head 0x%s : { *(.text.head) }\n.text.fake 0x%s : { *(.text.fake) }\n}\n' \
		"$text" "$start" >fake.ld
	# fake_hot covers all of the hot procedure (a sample at its last
	# bytes is fake_hot's too): its .fill is the procedure's size less
	# what the compiler adds around it, measured with a .fill of 1.
	gcc -g -O0 -fno-pic -mcmodel=kernel -DSIZE='"1"' -c fakekernel.c
	size=$(nm -S fakekernel.o | awk '$4 == "fake_hot" { print $2 }')
	[[ -n $size ]] || fail "no fake_hot in fakekernel.o"
	size=$((0x$end - 0x$start - (0x$size - 1)))
	((size > 0)) || size=1
	gcc -g -O0 -fno-pic -mcmodel=kernel -DSIZE="\"$size\"" -c fakekernel.c
	mkdir srv
	ld -o srv/vmlinux --build-id="0x$id" -e 0 -T fake.ld fakekernel.o
	mkdir -p "dd/.build-id/${id:0:2}"
	cp srv/vmlinux "dd/.build-id/${id:0:2}/${id:2}.debug"
	KERNEL_ID=$id
	HOT_PROC=$proc
}

@test "kernel: a vmlinux with the kernel's build-id, under --debug-dir or from debuginfod, gives kernel source lines" {
	skip_unless_debuginfod
	fake_vmlinux
	# Under --debug-dir, by build-id.
	run -0 --separate-stderr "$KPROFILE" -i kmon.out -lines --debug-dir dd \
		--format json
	run -0 jq -r '[.rows[] | select(.procedure == "fake_hot") |
		"\(.file | split("/") | last):\(.object)"] | unique[]' <<<"$output"
	assert_output "fakekernel.c:[kernel.kallsyms]"
	# Without it, no lines for the kernel.
	run -0 --separate-stderr "$KPROFILE" -i kmon.out -lines --format json
	run -0 jq -r '[.rows[] | select(.object == "[kernel.kallsyms]") |
		.file] | unique[]' <<<"$output"
	assert_output null
	# From debuginfod, by the build-id the profile recorded.
	export DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache
	start_server srv
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$KPROFILE" -i kmon.out -lines --format json
	assert_equal "$stderr" "kprofile: debug info for '[kernel.kallsyms]' from debuginfod"
	run -0 jq -r '[.rows[] | select(.procedure == "fake_hot") |
		"\(.file | split("/") | last):\(.object)"] | unique[]' <<<"$output"
	assert_output "fakekernel.c:[kernel.kallsyms]"
}

@test "kernel: -asm and -blocks read the kernel's code from the vmlinux found by build-id, as its lines" {
	fake_vmlinux
	# A sampled instruction of fake_hot, decoded: mostly its nops.
	local nop='^ +[0-9.]+ +[1-9][0-9]* 0x[0-9a-f]+ (nop|push rbp|mov rbp, rsp|pop rbp|ret)$'
	local block='^ +[0-9.]+ +[1-9][0-9]* +[0-9.]+ 0x[0-9a-f]+-0x[0-9a-f]+ +fakekernel\.c:[0-9-]+ +fake_hot +\[kernel\.kallsyms\]$'
	# Without an image: the hot procedure's instructions are not decoded
	# and the note says where an image would be looked for.
	run -0 "$KPROFILE" -i kmon.out -asm -only "$HOT_PROC"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ 0x[0-9a-f]+ \(not decoded\)$'
	assert_line --regexp "^  note: no blocks or instructions for [0-9]+ kernel procedure\(s\): the kernel's code is read from a vmlinux image, kprofile -k VMLINUX or the one with the profile's kernel build-id under --debug-dir, /usr/lib/debug or from debuginfod; none with their code was found$"
	refute_line --regexp "$nop"
	# Under --debug-dir, by build-id: the stand-in's nops, with samples.
	run -0 "$KPROFILE" -i kmon.out -asm --debug-dir dd -only fake_hot
	assert_line --regexp "$nop"
	refute_line --partial '(not decoded)'
	run -0 "$KPROFILE" -i kmon.out -blocks --debug-dir dd -only fake_hot
	assert_line --regexp "$block"
	# -k names the same image.
	run -0 "$KPROFILE" -i kmon.out -asm -k srv/vmlinux -only fake_hot
	assert_line --regexp "$nop"
	# From debuginfod, by the build-id the profile recorded.
	command -v debuginfod >/dev/null || return 0
	export DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache
	start_server srv
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$PORT" \
		"$KPROFILE" -i kmon.out -asm -only fake_hot
	assert_equal "$stderr" "kprofile: debug info for '[kernel.kallsyms]' from debuginfod"
	assert_line --regexp "$nop"
	refute_line --partial '(not decoded)'
}
