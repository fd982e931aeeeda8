#!/usr/bin/env bats
# uprofile follows the whole process tree: fork, exec and threads.

load helpers

# share PROC: PROC's share of cpu-clock in ./umon.out.
share() {
	local json
	json=$("$UPROFILE" -i umon.out -format json) || return 1
	json_share "$1" cpu-clock - <<<"$json"
}

@test "forkexec: parent_spin in the parent and hot_a/hot_b in the exec'd child" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/forkexec" 600
	# CPU time: child spin2 600 ms (450 hot_a, 150 hot_b), parent 300 ms
	assert_near "$(share parent_spin)" 33.3 7
	assert_near "$(share hot_a)" 50 7
	assert_near "$(share hot_b)" 16.7 6
	local json
	json=$("$UPROFILE" -i umon.out -format json)
	assert_equal "$(jq -r '.rows[] | select(.procedure == "parent_spin") | .object' <<<"$json")" \
		"$TPROG/forkexec"
	assert_equal "$(jq -r '[.rows[] | select(.procedure | startswith("hot_")) | .object] | unique[]' <<<"$json")" \
		"$TPROG/spin2"
	# the exec'd child did not stop the parent's profile: it is one file
	assert_equal "$(jq -c .command <<<"$json")" "[\"$TPROG/forkexec\",\"600\"]"
	assert_equal "$(jq .exit_status <<<"$json")" 0
}

@test "forkexec -n: the forked child's child_spin is profiled" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/forkexec" -n 600
	assert_near "$(share child_spin)" 66.7 7
	assert_near "$(share parent_spin)" 33.3 7
}

@test "threads: thread_work_a and thread_work_b ~50/50" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/threads" 500
	assert_near "$(share thread_work_a)" 50 10
	assert_near "$(share thread_work_b)" 50 10
	# both threads' time is there: ~1 s of CPU at 1000 Hz
	local samples
	samples=$("$UPROFILE" -i umon.out -format json | jq '.statistics[0].samples')
	assert_near "$samples" 1000 150
}

@test "a grandchild in a shell pipeline is profiled" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock sh -c \
		"'$TPROG/spin2' 300 | cat; '$TPROG/threads' 150"
	# spin2 300 ms, threads 2 x 150 ms
	assert_near "$(share hot_a)" 37.5 7
	assert_near "$(share thread_work_a)" 25 7
}
