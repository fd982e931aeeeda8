#!/usr/bin/env bats
# kprofile runs: one event per online CPU in kernel mode, for the life of
# a program (its fate is kprofile's exit status) or, without one, until
# Ctrl-C, SIGTERM or -d; kmon.out, -o, -i and the JSON report.

load helpers

@test "a program's exit status passes through (0, 3), profile written" {
	skip_unless_perf_works
	local n
	for n in 0 3; do
		rm -f kmon.out
		run -"$n" --separate-stderr "$KPROFILE" -quiet "$TPROG/exitwith" "$n"
		assert_output ""
		assert_equal "$stderr" ""
		[[ -s kmon.out ]]
		kjson kmon.out
		assert_equal "$(jq -r .exit_status <<<"$json")" "$n"
		assert_equal "$(jq -c .command <<<"$json")" \
			"[\"$TPROG/exitwith\",\"$n\"]"
	done
}

@test "a program killed by signal N gives 128+N (TERM 143, KILL 137)" {
	skip_unless_perf_works
	run -143 "$KPROFILE" -quiet "$TPROG/exitwith" -s TERM
	[[ -s kmon.out ]]
	kjson kmon.out
	assert_equal "$(jq -r .exit_status <<<"$json")" 143
	rm kmon.out
	run -137 "$KPROFILE" -quiet "$TPROG/exitwith" -s KILL
	[[ -s kmon.out ]]
}

@test "a program that is not found: 127, a message, no kmon.out" {
	skip_unless_perf_works
	run -127 --separate-stderr "$KPROFILE" -quiet no-such-program-here
	assert_output ""
	assert_equal "$stderr" \
		"kprofile: cannot run 'no-such-program-here': command not found"
	[[ ! -e kmon.out ]]
	# A statistic word before it does not change that.
	run -127 "$KPROFILE" -quiet cpu-clock no-such-program-here
	[[ ! -e kmon.out ]]
}

@test "Ctrl-C with a program: the program dies of SIGINT, 130, profile written" {
	skip_unless_perf_works
	command -v perl >/dev/null || skip "perl is needed to start a process group"
	run_in_own_pgrp "$KPROFILE" -e cpu-clock "$TPROG/exitwith" -w 60 -t \
		>stdout 2>stderr &
	local pg=$! rc=0
	BG_PIDS+=("$pg")
	# The program prints its pid once it runs, which kprofile lets it
	# do when it is collecting (and reading SIGINT).
	wait_line stdout '^[0-9]+$'
	BG_PIDS+=("$(cat stdout)")
	kill -INT -- "-$pg"
	wait_exit "$pg"
	wait "$pg" || rc=$?
	assert_equal "$rc" 130
	grep -q 'profile written to kmon.out' stderr
	kjson kmon.out
	assert_equal "$(jq -r .exit_status <<<"$json")" 130
}

@test "without a program: Ctrl-C (SIGINT to the process group) ends it with 0, profile written" {
	skip_unless_perf_works
	command -v perl >/dev/null || skip "perl is needed to start a process group"
	local t0 t1 t2 t3
	t0=$(date +%s%N)
	run_in_own_pgrp "$KPROFILE" -v -e cpu-clock >stdout 2>stderr &
	local pg=$! rc=0
	BG_PIDS+=("$pg")
	wait_profiling "$pg" INT TERM
	t1=$(date +%s%N)
	grep -q 'profiling all CPUs until SIGTERM or Ctrl-C' stderr
	# Not a synchronisation: the time it collects, checked below.
	sleep 1
	t2=$(date +%s%N)
	kill -INT -- "-$pg"
	wait_exit "$pg"
	wait "$pg" || rc=$?
	t3=$(date +%s%N)
	assert_equal "$rc" 0
	grep -q 'profile written to kmon.out' stderr
	assert_equal "$(cat stdout)" ""
	kjson kmon.out
	assert_equal "$(jq -c .command <<<"$json")" '[]'
	assert_equal "$(jq -r .exit_status <<<"$json")" null
	assert_equal "$(jq -r .tool <<<"$json")" kprofile
	# It collected for the time it ran: at most from its start to its
	# end, and for most of the second between its opening the events and
	# the signal (half of it: the events open one by one before
	# collection starts, and the machine may be busy).
	local d
	d=$(jq -r .duration_seconds <<<"$json")
	awk -v d="$d" -v lo="$(((t2 - t1) / 2000))" -v hi="$(((t3 - t0) / 1000))" \
		'BEGIN { exit !(d * 1e6 >= lo && d * 1e6 <= hi) }' ||
		fail "duration $d s; ran $(((t3 - t0) / 1000000)) ms, $(((t2 - t1) / 1000000)) ms of them with its events open"
}

@test "without a program: SIGTERM ends it with 0, profile written" {
	skip_unless_perf_works
	"$KPROFILE" -e cpu-clock -o term.out >stdout 2>stderr &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	wait_profiling "$kp" TERM
	kill -TERM "$kp"
	wait_exit "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	grep -q 'profile written to term.out' stderr
	[[ -s term.out && ! -e kmon.out ]]
	kjson term.out
	assert_equal "$(jq -c .command <<<"$json")" '[]'
}

# sigint_stays_ignored PID: SIGINT is ignored (SigIgn) and not blocked
# (SigBlk: the signals kprofile reads from its signalfd) by PID.
sigint_stays_ignored() {
	sig_in_mask "$1" SigIgn INT || fail "SIGINT is no longer ignored"
	! sig_in_mask "$1" SigBlk INT || fail "SIGINT is read (blocked for the signalfd)"
}

@test "SIGINT ignored when kprofile started (python SIG_IGN): SIGINT does not stop it, SIGTERM does" {
	skip_unless_perf_works
	command -v python3 >/dev/null || skip "python3 is needed to start with SIGINT ignored"
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$KPROFILE" -v -e cpu-clock \
		>stdout 2>stderr &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	wait_profiling "$kp" TERM
	# SIGINT stays ignored and is not read: the kernel discards it when
	# it is sent, so it can neither end kprofile nor reach it later.
	sigint_stays_ignored "$kp"
	kill -INT "$kp"
	proc_running "$kp" || fail "kprofile stopped on SIGINT although it was ignored at start"
	[[ ! -e kmon.out ]]
	# It says so.
	grep -q 'profiling all CPUs until SIGTERM$' stderr
	kill -TERM "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	[[ -s kmon.out ]]
	grep -q 'profile written to kmon.out' stderr
}

@test "SIGINT ignored by the shell (trap '' INT; exec kprofile): only SIGTERM stops it" {
	skip_unless_perf_works
	(
		trap '' INT
		exec "$KPROFILE" -quiet -e cpu-clock -o k.out
	) >stdout 2>stderr &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	wait_profiling "$kp" TERM
	sigint_stays_ignored "$kp"
	kill -INT "$kp"
	proc_running "$kp" || fail "kprofile stopped on SIGINT although it was ignored at start"
	kill -TERM "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	[[ -s k.out ]]
	assert_equal "$(cat stderr)" ""
}

@test "-d SECONDS stops collection after that time, exit 0" {
	skip_unless_perf_works
	local t0 ms
	t0=$(date +%s%N)
	run -0 --separate-stderr "$KPROFILE" -e cpu-clock -d 1
	ms=$(ms_since "$t0")
	# -d is about time: the run is never shorter than asked; the upper
	# bounds, 10 times that, only say that -d ends it (a busy machine
	# delays the start and the end by milliseconds, not seconds).
	((ms >= 950 && ms < 10000)) || fail "kprofile -d 1 ran for $ms ms"
	assert_output ""
	[[ $stderr == *"profile written to kmon.out"* ]]
	kjson kmon.out
	awk -v d="$(jq -r .duration_seconds <<<"$json")" \
		'BEGIN { exit !(d >= 0.75 && d < 10) }' ||
		fail "duration $(jq -r .duration_seconds <<<"$json") s with -d 1"
	assert_equal "$(jq -r .exit_status <<<"$json")" null
	# Fractions of a second work too.
	t0=$(date +%s%N)
	run -0 "$KPROFILE" -quiet -e cpu-clock -d 0.3 -o short.out
	ms=$(ms_since "$t0")
	((ms >= 280 && ms < 3000)) || fail "kprofile -d 0.3 ran for $ms ms"
	[[ -s short.out ]]
}

@test "-d with a program is a usage error (125)" {
	run -125 --separate-stderr "$KPROFILE" -d 1 "$TPROG/exitwith" 0
	[[ $stderr == *"-d applies to -p or to collection without a program"* ]]
	[[ ! -e kmon.out ]]
}

@test "one event per online CPU: time enabled is CPUs x duration, every CPU has a modes row" {
	skip_unless_perf_works
	local -a cpus
	mapfile -t cpus < <(online_cpus)
	local n=${#cpus[@]} script="" c
	# Keep every online CPU busy in the kernel for the run.
	for c in "${cpus[@]}"; do
		script+="taskset -c $c \"\$1\" read 1 & "
	done
	script+="wait"
	run -0 "$KPROFILE" -quiet -e cpu-clock sh -c "$script" sh \
		"$TPROG/kernelloop"
	kjson kmon.out
	local ratio
	ratio=$(jq '.statistics[0].time_enabled_ns /
		(.duration_seconds * 1e9)' <<<"$json")
	assert_near "$ratio" "$n" 0.35
	assert_equal "$(jq -c '[.modes[].cpu]' <<<"$json")" \
		"[$(IFS=,; echo "${cpus[*]}")]"
	# Every CPU took kernel samples.
	assert_equal "$(jq '[.modes[] | select(.kernel > 0)] | length' \
		<<<"$json")" "$n"
}

@test "kernel mode by default: only kernel rows, although user mode is sampled for the histogram" {
	skip_unless_perf_works
	# About half of kernelloop syscall's time is in user mode.
	run -0 "$KPROFILE" -quiet -e cpu-clock "$TPROG/kernelloop" syscall 1
	kjson kmon.out
	assert_equal "$(jq -r '.statistics[0].modes' <<<"$json")" kernel
	local user kernel
	user=$(jq '[.modes[].user] | add' <<<"$json")
	kernel=$(jq '[.modes[] | .kernel + .idle] | add' <<<"$json")
	((user > 100)) || fail "only $user user-mode samples in the histogram"
	# Rows: kernel code only, and all the kernel-mode samples.
	assert_equal "$(jq '[.rows[] | select(.object != "[kernel.kallsyms]"
		and .module == null)] | length' <<<"$json")" 0
	assert_equal "$(jq '[.rows[].samples["cpu-clock"]] | add' <<<"$json")" \
		"$kernel"
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$kernel"
	# No row of the program itself (its user code is not profiled).
	assert_equal "$(jq '[.rows[] | select(.procedure == "syscall_loop")]
		| length' <<<"$json")" 0
}

@test "output: kmon.out by default, -o FILE, same format as umon.out, -i reports it" {
	skip_unless_perf_works
	run -0 --separate-stderr "$KPROFILE" -e cpu-clock "$TPROG/kernelloop" read 0.3
	[[ $stderr == *"profile written to kmon.out"* ]]
	[[ -s kmon.out ]]
	# The umon.out format: magic and version 3, with a time stream.
	assert_equal "$(head -c 8 kmon.out)" UMONPROF
	assert_equal "$(od -An -tu4 -j8 -N4 kmon.out | tr -d ' ')" 3
	run -0 "$KPROFILE" -i kmon.out --format json
	assert_equal "$(jq -c .timeline <<<"$output")" \
		'{"kept":true,"missing":null,"window":null,"window_seconds":null}'
	run -0 "$KPROFILE" -quiet -o other.out "$TPROG/kernelloop" read 0.3
	[[ -s other.out ]]
	run -0 find . -maxdepth 1 -name '*.out*'
	assert_equal "$(sort <<<"$output")" $'./kmon.out\n./other.out'
	# -i: the text report names the file and the tool.
	run -0 --separate-stderr "$KPROFILE" -i other.out
	assert_line --index 0 --regexp '^Profile other\.out \(kprofile\): .*/kernelloop read 0\.3$'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ read_zero +\[kernel\.kallsyms\]$'
	assert_equal "$stderr" ""
	# uprofile reads kprofile's files: one format for both.
	run -0 "$UPROFILE" -i kmon.out --format json
	json_check <<<"$output"
	assert_equal "$(jq -r .tool <<<"$output")" kprofile
}

@test "--format json: schema_version 1, tool kprofile, kprofile's fields" {
	skip_unless_perf_works
	run -0 "$KPROFILE" -quiet -e cpu-clock "$TPROG/kernelloop" read 0.5
	kjson kmon.out
	assert_equal "$stderr" ""
	jq -e . <<<"$json" >/dev/null
	assert_equal "$(jq -r .schema_version <<<"$json")" 1
	assert_equal "$(jq -r .tool <<<"$json")" kprofile
	assert_equal "$(jq -r .file <<<"$json")" kmon.out
	assert_equal "$(jq -r .caller_attribution <<<"$json")" null
	assert_equal "$(jq -r '.cpu, .pid' <<<"$json")" $'null\nnull'
	assert_equal "$(jq -r '.modes | type' <<<"$json")" array
	assert_equal "$(jq -r '.rows[0].object' <<<"$json")" '[kernel.kallsyms]'
	assert_equal "$(jq -r '.rows[0].address | test("^0xffff[0-9a-f]{12}$")' \
		<<<"$json")" true
	# Also straight after a run with -display (stderr: stdout is the
	# program's).
	run -0 --separate-stderr "$KPROFILE" -quiet -e cpu-clock -display \
		--format json -o j.out "$TPROG/kernelloop" read 0.3
	assert_equal "$(jq -r '.tool, .file, .schema_version' <<<"$stderr")" \
		$'kprofile\nj.out\n1'
}

@test "statistics: cpu-clock as a word before the program and with -e; cycles falls back with a notice" {
	skip_unless_perf_works
	run -0 --separate-stderr "$KPROFILE" -quiet cpu-clock "$TPROG/kernelloop" read 0.3
	kjson kmon.out
	assert_equal "$(jq -c '[.statistics[] | [.name, .requested, .substitute]]' \
		<<<"$json")" '[["cpu-clock","cpu-clock",false]]'
	assert_equal "$(jq -c .command <<<"$json")" \
		"[\"$TPROG/kernelloop\",\"read\",\"0.3\"]"
	rm kmon.out
	run -0 --separate-stderr "$KPROFILE" -e cpu-clock "$TPROG/kernelloop" read 0.3
	[[ $stderr != *"not available"* ]]
	kjson kmon.out
	assert_equal "$(jq -c '[.statistics[] | [.name, .requested]]' \
		<<<"$json")" '[["cpu-clock","cpu-clock"]]'
	rm kmon.out
	# Default statistic: cycles.
	run -0 --separate-stderr "$KPROFILE" "$TPROG/kernelloop" read 0.3
	local notice=$stderr
	kjson kmon.out
	assert_equal "$(jq -r '.statistics[0].requested' <<<"$json")" cycles
	if ! has_pmu; then
		[[ $notice == *"'cycles' is not available here (no hardware PMU); sampling 'cpu-clock' instead"* ]]
		assert_equal "$(jq -c '.statistics[0] | [.name, .substitute]' \
			<<<"$json")" '["cpu-clock",true]'
	fi
}
