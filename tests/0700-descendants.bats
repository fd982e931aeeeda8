#!/usr/bin/env bats
# uprofile follows the whole process tree: fork, exec and threads.

load helpers

# split A B P [MAXTOL]: of ./umon.out's samples in procedures A and B, A
# has P percent (a binomial bound: helpers.bash).  The programs divide CPU
# time between their procedures by construction.
split() {
	local json
	json=$("$UPROFILE" -i umon.out -format json) || return 1
	assert_split "$json" "$@"
}

@test "forkexec: parent_spin in the parent and hot_a/hot_b in the exec'd child" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/forkexec" 900
	# CPU time: child spin2 900 ms (675 hot_a, 225 hot_b), parent 450 ms
	split parent_spin hot_a 40 8
	split hot_a hot_b 75 8
	local json
	json=$("$UPROFILE" -i umon.out -format json)
	assert_equal "$(jq -r '.rows[] | select(.procedure == "parent_spin") | .object' <<<"$json")" \
		"$TPROG/forkexec"
	assert_equal "$(jq -r '[.rows[] | select(.procedure | startswith("hot_")) | .object] | unique[]' <<<"$json")" \
		"$TPROG/spin2"
	# the exec'd child did not stop the parent's profile: it is one file
	assert_equal "$(jq -c .command <<<"$json")" "[\"$TPROG/forkexec\",\"900\"]"
	assert_equal "$(jq .exit_status <<<"$json")" 0
}

@test "forkexec -n: the forked child's child_spin is profiled" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/forkexec" -n 600
	split child_spin parent_spin 66.7 8
}

@test "threads: thread_work_a and thread_work_b ~50/50" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/threads" 500
	split thread_work_a thread_work_b 50 10
	# both threads' time is there: ~1 s of CPU at 1000 Hz
	local samples
	samples=$("$UPROFILE" -i umon.out -format json | jq '.statistics[0].samples')
	assert_near "$samples" 1000 150
}

@test "a grandchild in a shell pipeline is profiled" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock sh -c \
		"'$TPROG/spin2' 600 | cat; '$TPROG/threads' 300"
	# spin2 600 ms (hot_a 450), threads 2 x 300 ms
	split hot_a thread_work_a 60 10
	split thread_work_a thread_work_b 50 12
}
