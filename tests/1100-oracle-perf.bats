#!/usr/bin/env bats
# The oracle nobody here wrote: perf record + perf report on the same
# program at the same rate must put the time in the same procedures.

load helpers

@test "procedure shares agree with perf report within 4 points (demo)" {
	skip_unless_perf_works
	run -0 "$ROOT/bench/shares.sh" -n 5 "$TPROG/demo" 1
	assert_line --regexp 'matrix_multiply \(demo\)$'
	local diff
	diff=$(sed -n 's/^largest difference: \([0-9.]*\) .*/\1/p' <<<"$output")
	[[ -n $diff ]] || fail "no 'largest difference' line"
	# Two independent runs of ~2000 samples: sampling noise alone is
	# about 1 point on a 30% share; 4 leaves room without hiding a bug.
	assert_near "$diff" 0 4
}

@test "shares agree with perf for a shared library and an exec'd child" {
	skip_unless_perf_works
	run -0 "$ROOT/bench/shares.sh" -n 3 "$TPROG/forkexec" 600
	assert_line --regexp 'hot_a \(spin2\)$'
	assert_line --regexp 'parent_spin \(forkexec\)$'
	local diff
	diff=$(sed -n 's/^largest difference: \([0-9.]*\) .*/\1/p' <<<"$output")
	assert_near "$diff" 0 5
}
