#!/usr/bin/env bats
# The oracle nobody here wrote: perf record + perf report on the same
# program at the same rate must put the time in the same procedures.

load helpers

@test "procedure shares agree with perf within a binomial bound, 3 points at least (demo, same run)" {
	skip_unless_perf_works
	# 4 kHz for ~2 s: ~8000 samples each, a bound of ~3 points (the
	# issue's bar) on the difference of two 50% shares
	run -0 "$ROOT/bench/shares.sh" -n 5 -F 4000 "$TPROG/demo" 1
	assert_line --regexp 'matrix_multiply \(demo\)$'
	local diff tol
	diff=$(sed -n 's/^largest difference: \([0-9.]*\) .*/\1/p' <<<"$output")
	[[ -n $diff ]] || fail "no 'largest difference' line"
	# Both sample the same run, each with its own timer: which
	# instructions each hit differs as two binomial draws do.
	tol=$(shares_tolerance "$output")
	assert_near "$diff" 0 "$tol"
}

@test "shares agree with perf for a shared library and an exec'd child" {
	skip_unless_perf_works
	run -0 "$ROOT/bench/shares.sh" -n 3 -F 4000 "$TPROG/forkexec" 1200
	assert_line --regexp 'hot_a \(spin2\)$'
	assert_line --regexp 'parent_spin \(forkexec\)$'
	local diff tol
	diff=$(sed -n 's/^largest difference: \([0-9.]*\) .*/\1/p' <<<"$output")
	tol=$(shares_tolerance "$output")
	assert_near "$diff" 0 "$tol"
}

@test "perf still works alongside uprofile (no build-id bits leak into its records)" {
	skip_unless_perf_works
	# Asking for build-ids in MMAP2 left PERF_RECORD_MISC_MMAP_BUILD_ID
	# set in other events' records on this kernel, and perf crashed.
	run -0 perf record -q -o p.data -- "$UPROFILE" -quiet -e cpu-clock \
		"$TPROG/spin2" 200
	run -0 perf report -i p.data --stdio --sort sym
	refute_output --partial 'assertion failed'
	assert_output --partial 'hot_a'
}

@test "kprofile: kernel procedure shares agree with perf -a within a binomial bound, 3 points at least (same run)" {
	skip_unless_perf_works
	# Every CPU busy reading /dev/zero: no idle CPU whose halt samples
	# depend on timer placement.  Both tools sample every online CPU,
	# so each must be one this test may pin a reader to.
	local c script="" not_allowed
	not_allowed=$(comm -23 <(online_cpus | sort) <(allowed_cpus | sort) |
		sort -n | tr '\n' ' ')
	[[ -z $not_allowed ]] ||
		skip "online CPUs ${not_allowed}are outside this process's affinity ($(allowed_cpus | tr '\n' ' ')): they would be idle"
	for c in $(allowed_cpus); do
		script+="taskset -c $c $TPROG/kernelloop read 1 & "
	done
	run -0 "$ROOT/bench/shares.sh" --kernel -n 5 sh -c "${script}wait"
	assert_line --regexp 'read_zero \(\[kernel\.kallsyms\]\)$'
	local diff tol
	diff=$(sed -n 's/^largest difference: \([0-9.]*\) .*/\1/p' <<<"$output")
	[[ -n $diff ]] || fail "no 'largest difference' line"
	# Two samplers with their own timers on every CPU: each share is a
	# binomial estimate, so the bound comes from both sample counts.
	tol=$(shares_tolerance "$output")
	assert_near "$diff" 0 "$tol"
}
