#!/usr/bin/env bats
# kprofile -t: everything is set up but nothing is counted until a
# trigger: SIGUSR1 / 'enable' on the -control FIFO start sampling,
# SIGUSR2 / 'disable' stop it again.
#
# The counts are compared through the histogram of sample modes: with
# every CPU kept busy (a kernelloop pinned to each), each CPU gives about
# 1000 samples per second of enabled sampling whoever runs on it.

load helpers

# busy_cpus SECONDS: a kernelloop pinned to every online CPU, in the
# background, for SECONDS.
busy_cpus() {
	local c
	for c in $(online_cpus); do
		taskset -c "$c" "$TPROG/kernelloop" read "$1" &
		BG_PIDS+=("$!")
	done
}

# expect_seconds SECONDS: the profile in $json was enabled for about
# SECONDS on every CPU (within 40%: the machine may be shared, and
# signals and FIFO commands take a moment).
expect_seconds() {
	local n t
	n=$(online_cpus | wc -l)
	t=$(modes_total)
	awk -v t="$t" -v w="$(awk -v s="$1" -v n="$n" 'BEGIN { print s * n * 1000 }')" \
		'BEGIN { exit !(t >= 0.6 * w && t <= 1.4 * w) }' ||
		fail "$t samples; expected about $1 s x $n CPUs x 1000 Hz"
}

@test "-t without a trigger: nothing is counted, exit 0, an empty profile" {
	skip_unless_perf_works
	busy_cpus 2
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
	busy_cpus 3
	"$KPROFILE" -t -v -e cpu-clock -o k.out -d 2 2>stderr &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	sleep 0.5
	kill -USR1 "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	grep -q 'sampling enabled' stderr
	kjson k.out
	expect_seconds 1.5
	assert_equal "$(top_busy)" read_zero
}

@test "-t: SIGUSR2 stops counting again; a second SIGUSR1 resumes" {
	skip_unless_perf_works
	busy_cpus 3
	"$KPROFILE" -t -v -e cpu-clock -o k.out -d 2.4 2>stderr &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	sleep 0.3
	kill -USR1 "$kp"
	sleep 0.5
	kill -USR2 "$kp"
	sleep 1
	kill -USR1 "$kp"
	sleep 0.3
	kill -USR2 "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	assert_equal "$(grep -c 'sampling enabled' stderr)" 2
	assert_equal "$(grep -c 'sampling disabled' stderr)" 2
	# 0.5 s + 0.3 s counted, not the 1.6 s in between and after.
	kjson k.out
	expect_seconds 0.8
}

@test "-t -control FIFO: created if missing, 'enable'/'disable' bound the counting, removed at the end" {
	skip_unless_perf_works
	busy_cpus 3
	"$KPROFILE" -t -v -control ctl -e cpu-clock -o k.out -d 2.3 2>stderr &
	local kp=$! rc=0 tenths=30
	BG_PIDS+=("$kp")
	while [[ ! -p ctl ]] && ((tenths-- > 0)); do
		sleep 0.1
	done
	[[ -p ctl ]] || fail "kprofile did not create the FIFO ctl"
	sleep 0.3
	echo enable >ctl
	sleep 0.8
	echo disable >ctl
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	grep -q 'sampling enabled' stderr
	grep -q 'sampling disabled' stderr
	[[ ! -e ctl ]] || fail "the FIFO kprofile created is still there"
	kjson k.out
	expect_seconds 0.8
	assert_equal "$(top_busy)" read_zero
}

@test "-control with an existing FIFO: it is used and kept; several commands per write" {
	skip_unless_perf_works
	busy_cpus 3
	mkfifo ctl
	"$KPROFILE" -t -control ctl -e cpu-clock -o k.out -d 1.8 2>stderr &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	sleep 0.4
	printf 'enable\n' >ctl
	sleep 0.6
	# "disable" and "enable" in one write: counting goes on.
	printf 'disable\nenable\n' >ctl
	sleep 0.4
	printf 'bogus\ndisable\n' >ctl
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	[[ -p ctl ]] || fail "the existing FIFO was removed"
	grep -q "unknown control command 'bogus' (use enable or disable)" stderr
	kjson k.out
	expect_seconds 1.0
}

@test "-control on a file that is not a FIFO: 125, the file is left alone" {
	skip_unless_perf_works
	echo data >notfifo
	run -125 --separate-stderr "$KPROFILE" -t -control notfifo -e cpu-clock -d 0.2
	[[ $stderr == *"'notfifo' is not a FIFO"* ]]
	assert_equal "$(cat notfifo)" data
	[[ ! -e kmon.out ]]
}

@test "SIGUSR1 during a triggered run with a program: counting starts, the program's status is returned" {
	skip_unless_perf_works
	"$KPROFILE" -t -quiet -e cpu-clock -o k.out "$TPROG/kernelloop" read 1.5 &
	local kp=$! rc=0
	BG_PIDS+=("$kp")
	sleep 0.5
	kill -USR1 "$kp"
	wait "$kp" || rc=$?
	assert_equal "$rc" 0
	kjson k.out
	local n
	n=$(jq '[.rows[] | select(.procedure == "read_zero") |
		.samples["cpu-clock"]] | add' <<<"$json")
	# Up to 1 s of the 1.5 s in read_zero (less on a busy machine), never
	# the 0.5 s before the signal.
	((n > 50 && n < 1300)) || fail "$n read_zero samples"
}
