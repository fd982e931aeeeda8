#!/usr/bin/env bats
# kprofile -t: everything is set up but nothing is counted until a
# trigger: SIGUSR1 / 'enable' on the -control FIFO start sampling,
# SIGUSR2 / 'disable' stop it again.
#
# The counts are compared through the histogram of sample modes: with
# every CPU kept busy (a kernelloop pinned to each), each CPU gives about
# 1000 samples per second of enabled sampling whoever runs on it.

load helpers

# busy_cpus: a kernelloop pinned to every online CPU, in the background,
# for a minute (longer than any test here; the teardown ends them).
busy_cpus() {
	local c
	for c in $(online_cpus); do
		taskset -c "$c" "$TPROG/kernelloop" read 60 &
		BG_PIDS+=("$!")
	done
}

# Nothing here waits a fixed time for kprofile: a test waits until it
# has its events open and blocks the trigger signals (wait_profiling),
# sends a trigger and waits for kprofile's -v line saying it acted on it.
# The time counted is then known within bounds: sampling was enabled
# between the trigger's sending (t_send) and its line's appearing
# (t_seen), and likewise disabled.  The sleeps left are the windows of
# counting and not counting that the tests measure, not waits for an
# event.

# now: the monotonic-enough wall clock in nanoseconds.
now() {
	date +%s%N
}

# trigger KP SIGNAL|FIFO-COMMAND PATTERN COUNT: send a trigger to kprofile
# KP (a signal name, or "fifo:TEXT" to write TEXT to ./ctl) and wait until
# its stderr has COUNT lines matching PATTERN; sets T_SEND and T_SEEN.
trigger() {
	T_SEND=$(now)
	if [[ $2 == fifo:* ]]; then
		# (opening a FIFO waits for its reader: bounded, should
		# kprofile be gone)
		timeout 60 bash -c 'printf "%b" "$1" >ctl' _ "${2#fifo:}" ||
			fail "could not write '${2#fifo:}' to ctl"
	else
		kill -"$2" "$1"
	fi
	wait_line stderr "$3" "$4"
	T_SEEN=$(now)
}

# expect_window MIN_NS MAX_NS: the profile in $json was enabled on every
# CPU for between MIN_NS and MAX_NS nanoseconds: 1000 samples a second a
# CPU within 40% (the sampling frequency adjusts its period).
expect_window() {
	local n t
	n=$(online_cpus | wc -l)
	t=$(modes_total)
	awk -v t="$t" -v lo="$1" -v hi="$2" -v n="$n" 'BEGIN {
		exit !(t >= 0.6 * lo / 1e6 * n && t <= 1.4 * hi / 1e6 * n) }' ||
		fail "$t samples; expected $(($1 / 1000000)) to $(($2 / 1000000)) ms x $n CPUs x 1000 Hz"
}

# stop_kprofile KP: SIGTERM, wait for the end, exit status 0.
stop_kprofile() {
	local rc=0
	kill -TERM "$1"
	wait_exit "$1"
	wait "$1" || rc=$?
	assert_equal "$rc" 0
}

@test "-t without a trigger: nothing is counted, exit 0, an empty profile" {
	skip_unless_perf_works
	busy_cpus
	run -0 --separate-stderr "$KPROFILE" -t -e cpu-clock -o k.out -d 1
	[[ $stderr == *"0 samples (cpu-clock), 0 lost; profile written to k.out"* ]] ||
		fail "unexpected summary: $stderr"
	kjson k.out
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" 0
	assert_equal "$(jq '.rows | length' <<<"$json")" 0
	assert_equal "$(modes_total)" 0
}

@test "-t: SIGUSR1 starts counting" {
	skip_unless_perf_works
	busy_cpus
	"$KPROFILE" -t -v -e cpu-clock -o k.out 2>stderr &
	local kp=$! on_lo on_hi
	BG_PIDS+=("$kp")
	wait_profiling "$kp" USR1 USR2 TERM
	sleep 1	# not counted
	trigger "$kp" USR1 'sampling enabled' 1
	on_hi=$T_SEND on_lo=$T_SEEN
	sleep 1	# counted
	# The end of the window: SIGUSR2, whose line says when it took
	# effect (kprofile's exit comes after it has written the profile).
	trigger "$kp" USR2 'sampling disabled' 1
	local lo=$((T_SEND - on_lo)) hi=$((T_SEEN - on_hi))
	stop_kprofile "$kp"
	kjson k.out
	# the second before the trigger is not counted (it would be 2 s,
	# above the bound)
	expect_window "$lo" "$hi"
	assert_equal "$(top_busy)" read_zero
}

@test "-t: SIGUSR2 stops counting again; a second SIGUSR1 resumes" {
	skip_unless_perf_works
	busy_cpus
	"$KPROFILE" -t -v -e cpu-clock -o k.out 2>stderr &
	local kp=$! lo=0 hi=0 on_send on_seen
	BG_PIDS+=("$kp")
	wait_profiling "$kp" USR1 USR2 TERM
	trigger "$kp" USR1 'sampling enabled' 1
	on_send=$T_SEND on_seen=$T_SEEN
	sleep 0.5	# counted
	trigger "$kp" USR2 'sampling disabled' 1
	lo=$((lo + T_SEND - on_seen)) hi=$((hi + T_SEEN - on_send))
	sleep 1	# not counted
	trigger "$kp" USR1 'sampling enabled' 2
	on_send=$T_SEND on_seen=$T_SEEN
	sleep 0.3	# counted
	trigger "$kp" USR2 'sampling disabled' 2
	lo=$((lo + T_SEND - on_seen)) hi=$((hi + T_SEEN - on_send))
	sleep 0.5	# not counted
	stop_kprofile "$kp"
	assert_equal "$(grep -c 'sampling enabled' stderr)" 2
	assert_equal "$(grep -c 'sampling disabled' stderr)" 2
	# ~0.5 s + ~0.3 s counted, not the 1.5 s in between and after.
	kjson k.out
	expect_window "$lo" "$hi"
}

@test "-t -control FIFO: created if missing, 'enable'/'disable' bound the counting, removed at the end" {
	skip_unless_perf_works
	busy_cpus
	"$KPROFILE" -t -v -control ctl -e cpu-clock -o k.out 2>stderr &
	local kp=$! on_send on_seen
	BG_PIDS+=("$kp")
	# the FIFO is made before the events are opened
	wait_profiling "$kp" TERM
	[[ -p ctl ]] || fail "kprofile did not create the FIFO ctl"
	sleep 0.3	# not counted
	trigger "$kp" 'fifo:enable\n' 'sampling enabled' 1
	on_send=$T_SEND on_seen=$T_SEEN
	sleep 0.8	# counted
	trigger "$kp" 'fifo:disable\n' 'sampling disabled' 1
	local lo=$((T_SEND - on_seen)) hi=$((T_SEEN - on_send))
	sleep 0.5	# not counted
	stop_kprofile "$kp"
	[[ ! -e ctl ]] || fail "the FIFO kprofile created is still there"
	kjson k.out
	expect_window "$lo" "$hi"
	assert_equal "$(top_busy)" read_zero
}

@test "-control with an existing FIFO: it is used and kept; several commands per write" {
	skip_unless_perf_works
	busy_cpus
	mkfifo ctl
	"$KPROFILE" -t -v -control ctl -e cpu-clock -o k.out 2>stderr &
	local kp=$! on_send on_seen
	BG_PIDS+=("$kp")
	wait_profiling "$kp" TERM
	sleep 0.4	# not counted
	trigger "$kp" 'fifo:enable\n' 'sampling enabled' 1
	on_send=$T_SEND on_seen=$T_SEEN
	sleep 0.3	# counted
	# "disable" and "enable" in one write: counting goes on.
	trigger "$kp" 'fifo:disable\nenable\n' 'sampling enabled' 2
	sleep 0.7	# counted
	trigger "$kp" 'fifo:bogus\ndisable\n' 'sampling disabled' 2
	local lo=$((T_SEND - on_seen)) hi=$((T_SEEN - on_send))
	sleep 0.4	# not counted
	stop_kprofile "$kp"
	[[ -p ctl ]] || fail "the existing FIFO was removed"
	grep -q "unknown control command 'bogus' (use enable or disable)" stderr
	# all of the ~1 s from the first enable to the last disable
	# (counting only the 0.3 s before the double command would be
	# under the bound)
	kjson k.out
	expect_window "$lo" "$hi"
}

@test "-control on a file that is not a FIFO: 125, the file is left alone" {
	skip_unless_perf_works
	echo data >notfifo
	run -125 --separate-stderr "$KPROFILE" -t -control notfifo -e cpu-clock -d 0.2
	[[ $stderr == *"'notfifo' is not a FIFO"* ]]
	assert_equal "$(cat notfifo)" data
	[[ ! -e kmon.out ]]
}

# child_named PID COMM: the pid of PID's child named COMM, if any.
child_named() {
	local f line rest
	for f in /proc/[0-9]*/stat; do
		{ read -r line <"$f"; } 2>/dev/null || continue
		[[ $line == *" ($2) "* ]] || continue
		rest=${line##*) }	# state ppid ...
		rest=${rest#* }
		[[ ${rest%% *} == "$1" ]] || continue
		echo "${line%% *}"
		return 0
	done
	return 1
}

@test "SIGUSR1 during a triggered run with a program: counting starts, the program's status is returned" {
	skip_unless_perf_works
	"$KPROFILE" -t -quiet -e cpu-clock -o k.out "$TPROG/kernelloop" read 60 &
	local kp=$! rc=0 prog c1 c2
	BG_PIDS+=("$kp")
	wait_profiling "$kp" USR1 TERM
	# kprofile's child, once it has become kernelloop (it runs from when
	# the events are enabled, and is not sampled before the trigger)
	wait_until 60 "kprofile's program to run" child_named "$kp" kernelloop >/dev/null
	prog=$(child_named "$kp" kernelloop)
	BG_PIDS+=("$prog")
	# half a second of the program's CPU time before the trigger, half a
	# second after; then the program is killed, and its status returned
	wait_cpu "$prog" 50
	c1=$(cpu_ticks "$prog")
	kill -USR1 "$kp"
	wait_cpu "$prog" $((c1 + 50))
	c2=$(cpu_ticks "$prog")
	kill -TERM "$prog"
	wait_exit "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 143
	kjson k.out
	local n
	n=$(jq '[.rows[] | select(.procedure == "read_zero") |
		.samples["cpu-clock"]] | add' <<<"$json")
	# About 1000 Hz of the program's CPU time after the signal (c2 - c1
	# ticks of 10 ms and the moment to the kill: +5 ticks; 25% for the
	# frequency's adjustment), never the 0.5 s before it, which would
	# double the count.
	((n > 50 && n <= (c2 - c1 + 5) * 125 / 10)) ||
		fail "$n read_zero samples for $((c2 - c1)) ticks of CPU after the trigger"
}
