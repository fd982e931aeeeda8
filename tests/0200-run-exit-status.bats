#!/usr/bin/env bats
# uprofile PROGRAM: the program's fate is uprofile's exit status, the
# program is found as a shell would, its stdio is untouched, and signals
# meant for it reach it.

load helpers

@test "the program's exit status passes through (0, 1, 7, 42)" {
	skip_unless_perf_works
	local n
	for n in 0 1 7 42; do
		rm -f umon.out
		run -"$n" --separate-stderr "$UPROFILE" -quiet "$TPROG/exitwith" "$n"
		assert_output ""
		assert_equal "$stderr" ""
		[[ -s umon.out ]]
	done
}

@test "a program killed by a signal gives 128+N (KILL 137, SEGV 139)" {
	skip_unless_perf_works
	run -137 "$UPROFILE" -quiet "$TPROG/exitwith" -s KILL
	[[ -s umon.out ]]
	rm umon.out
	run -139 "$UPROFILE" -quiet "$TPROG/exitwith" -s SEGV
	[[ -s umon.out ]]
	run -0 "$UPROFILE" -i umon.out -format json
	assert_equal "$(jq -c .command <<<"$output")" \
		"[\"$TPROG/exitwith\",\"-s\",\"SEGV\"]"
}

@test "a program that is not found: 127, 'cannot run 'x': command not found'" {
	run -127 --separate-stderr "$UPROFILE" no-such-program-here arg
	assert_output ""
	lines=("${stderr_lines[@]}")
	assert_line --index $((${#lines[@]} - 1)) \
		"uprofile: cannot run 'no-such-program-here': command not found"
	[[ ! -e umon.out ]]
	# Nothing else to say when the statistic needs no substitute.
	run -127 --separate-stderr "$UPROFILE" -e cpu-clock no-such-program-here
	assert_equal "$stderr" \
		"uprofile: cannot run 'no-such-program-here': command not found"
	run -127 --separate-stderr "$UPROFILE" -quiet no-such-program-here
	assert_equal "$stderr" \
		"uprofile: cannot run 'no-such-program-here': command not found"
	# A path is not looked up: the shells' "No such file or directory".
	run -127 --separate-stderr "$UPROFILE" -quiet ./no-such-file
	assert_equal "$stderr" \
		"uprofile: cannot run './no-such-file': No such file or directory"
	[[ ! -e umon.out ]]
}

@test "a file without execute permission: 126" {
	skip_unless_perf_works
	printf '#!/bin/sh\nexit 0\n' >script
	chmod 644 script
	run -126 --separate-stderr "$UPROFILE" -quiet ./script
	assert_output ""
	[[ $stderr == "uprofile: cannot run './script': "* ]]
	[[ ! -e umon.out ]]
}

@test "a directory: 126" {
	skip_unless_perf_works
	mkdir adir
	run -126 --separate-stderr "$UPROFILE" -quiet ./adir
	[[ $stderr == "uprofile: cannot run './adir': "* ]]
	run -126 "$UPROFILE" -quiet /
	[[ ! -e umon.out ]]
}

@test "a program is found on PATH as a shell finds it" {
	skip_unless_perf_works
	mkdir -p noexec adir/myprog bin
	printf '#!/bin/sh\nexec "%s" 9\n' "$TPROG/exitwith" >bin/myprog
	chmod 755 bin/myprog
	# Earlier PATH entries with a non-executable file or a directory of
	# that name are passed over, as by execvp and the shells.
	printf '#!/bin/sh\nexit 1\n' >noexec/myprog
	chmod 644 noexec/myprog
	run -9 env PATH="$PWD/noexec:$PWD/adir:$PWD/bin:$PATH" \
		"$UPROFILE" -quiet myprog
	assert_output ""
	[[ -s umon.out ]]
	# The command is recorded as it was typed.
	run -0 "$UPROFILE" -i umon.out -format json
	assert_equal "$(jq -c .command <<<"$output")" '["myprog"]'
	# Only a non-executable one: the shell's "permission denied", 126.
	run -126 env PATH="$PWD/noexec:$PATH" "$UPROFILE" -quiet myprog
	run -126 env PATH="$PWD/noexec:$PATH" bash -c myprog
	# Not on PATH at all.
	run -127 env PATH="$PWD/adir" "$UPROFILE" -quiet myprog
}

@test "stdin, stdout and stderr of the program are untouched" {
	skip_unless_perf_works
	local rc=0
	printf 'line one\n\0binary\377 and no newline' >input
	"$UPROFILE" -quiet "$TPROG/exitwith" -i 0 <input >stdout 2>stderr ||
		rc=$?
	assert_equal "$rc" 0
	cmp input stdout
	assert_equal "$(cat stderr)" "err"
	# Without -quiet, the program's stderr is still all there, and
	# stdout is only the program's.
	"$UPROFILE" "$TPROG/exitwith" -i 5 <input >stdout 2>stderr || rc=$?
	assert_equal "$rc" 5
	cmp input stdout
	grep -qx err stderr
	# A closed stdin stays closed: exitwith fails to read it (status 1,
	# EBADF) exactly as when run directly.
	rc=0
	"$UPROFILE" -quiet "$TPROG/exitwith" -i 0 <&- >stdout 2>stderr ||
		rc=$?
	assert_equal "$rc" 1
	assert_equal "$(cat stderr)" "exitwith: read: Bad file descriptor"
	# The program gets no other file descriptor than those it would
	# get without uprofile.
	local fds='cd /proc/self/fd && echo *'
	run -0 sh -c "$fds"
	local want=$output
	run -0 "$UPROFILE" -quiet sh -c "$fds"
	assert_output "$want"
}

@test "'uprofile prog && echo ok' behaves as 'prog && echo ok'" {
	skip_unless_perf_works
	run -0 bash -c '"$UPROFILE" -quiet "$TPROG/exitwith" 0 && echo ok'
	assert_output ok
	run -3 bash -c '"$UPROFILE" -quiet "$TPROG/exitwith" 3 && echo ok'
	assert_output ""
	run -0 bash -c '"$UPROFILE" -quiet "$TPROG/exitwith" 3 || echo failed'
	assert_output failed
}

@test "Ctrl-C: SIGINT to the process group ends the run with 130, profile written" {
	skip_unless_perf_works
	command -v perl >/dev/null || skip "perl is needed to start a process group"
	run_in_own_pgrp "$UPROFILE" "$TPROG/exitwith" -w 60 -t \
		>stdout 2>stderr &
	local pg=$! prog
	BG_PIDS+=("$pg")
	# The program prints its pid once it runs (sampled from its exec);
	# it has spun for half a second of CPU time, ~500 samples, when
	# Ctrl-C comes.
	wait_line stdout '^[0-9]+$'
	prog=$(cat stdout)
	BG_PIDS+=("$prog")
	wait_cpu "$prog" $(($(cpu_ticks "$prog") + 50))
	kill -INT -- "-$pg"
	local rc=0
	wait_exit "$pg"
	wait "$pg" || rc=$?
	assert_equal "$rc" 130
	grep -q 'profile written to umon.out' stderr
	run -0 "$UPROFILE" -i umon.out -format json
	assert_equal "$(jq -r '.rows[0].procedure' <<<"$output")" waiting_spin
	assert_equal "$(jq -r '.exit_status' <<<"$output")" 130
	assert_near "$(json_share waiting_spin cpu-clock - <<<"$output")" 100 5
}

@test "SIGTERM to uprofile alone is passed on to the program (143), profile written" {
	skip_unless_perf_works
	"$UPROFILE" -quiet "$TPROG/exitwith" -w 60 -t >stdout 2>stderr &
	local up=$! prog
	BG_PIDS+=("$up")
	wait_line stdout '^[0-9]+$'
	prog=$(cat stdout)
	BG_PIDS+=("$prog")
	# samples to report: a fifth of a second of the program's CPU time
	wait_cpu "$prog" $(($(cpu_ticks "$prog") + 20))
	kill -TERM "$up"
	local rc=0
	wait_exit "$up"
	wait "$up" || rc=$?
	assert_equal "$rc" 143
	# The program got the signal: it is gone.
	run ! kill -0 "$prog"
	assert_equal "$(cat stderr)" ""
	run -0 "$UPROFILE" -i umon.out -format json
	assert_equal "$(jq -r '.rows[0].procedure' <<<"$output")" waiting_spin
	assert_equal "$(jq -r '.exit_status' <<<"$output")" 143
}

@test "an existing umon.out is kept when the program cannot be run" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet "$TPROG/exitwith" 0
	[[ -s umon.out ]]
	local sum
	sum=$(cksum <umon.out)
	cp -p umon.out before
	run -127 "$UPROFILE" -quiet no-such-program-here
	assert_equal "$(cksum <umon.out)" "$sum"
	printf '#!/bin/sh\n' >script
	run -126 "$UPROFILE" -quiet ./script
	assert_equal "$(cksum <umon.out)" "$sum"
	[[ ! umon.out -nt before && ! umon.out -ot before ]]
	# and no temporary file is left behind
	run -0 ls -A
	assert_output $'before\nscript\numon.out'
}
