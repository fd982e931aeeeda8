#!/usr/bin/env bats
# kprofile's refusals: an unprivileged user (system-wide, kernel-mode
# profiling needs CAP_PERFMON or a low kernel.perf_event_paranoid), and
# statistics this machine cannot count (replay_trap without a PMU).

load helpers

@test "unprivileged (nobody): 125, one line naming perf_event_paranoid, CAP_PERFMON and the fix; nothing written or run" {
	skip_unless_perf_works
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	((paranoid > 0)) ||
		skip "kernel.perf_event_paranoid=$paranoid lets unprivileged users profile system-wide"
	nobody_dir
	# With a program: it is not started.
	run -125 --separate-stderr as_nobody "$KPROFILE" -e cpu-clock \
		sh -c 'touch ran'
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "kprofile: "* ]]
	[[ $stderr == *perf_event_paranoid* ]] ||
		fail "no mention of perf_event_paranoid: $stderr"
	[[ $stderr == *"(it is $paranoid)"* || $stderr == *"perf_event_paranoid=$paranoid)"* ]] ||
		fail "the current value $paranoid is not given: $stderr"
	[[ $stderr == *CAP_PERFMON* ]] || fail "no mention of CAP_PERFMON: $stderr"
	[[ $stderr == *"sysctl kernel.perf_event_paranoid=0"* ]] ||
		fail "does not say what to change: $stderr"
	[[ ! -e ran ]] || fail "the program ran"
	[[ ! -e kmon.out ]]
	local msg=$stderr
	# Without a program, and with the default statistic: the same.
	run -125 --separate-stderr as_nobody "$KPROFILE" -d 0.5
	assert_equal "$stderr" "$msg"
	run -125 --separate-stderr as_nobody "$KPROFILE" -each -e cpu-clock -d 0.5
	assert_equal "$stderr" "$msg"
	run -0 ls -A
	assert_output ""
}

@test "unprivileged (nobody): reporting an existing kmon.out works and names kernel procedures" {
	skip_unless_perf_works
	run -0 "$KPROFILE" -quiet -e cpu-clock "$TPROG/kernelloop" read 0.5
	local want
	run -0 --separate-stderr "$KPROFILE" -i kmon.out --format json
	want=$(jq -c '[.rows[:5][].procedure]' <<<"$output")
	[[ $want == '["'* ]]
	local here=$PWD
	nobody_dir
	cp "$here/kmon.out" .
	chmod 644 kmon.out
	run -0 --separate-stderr as_nobody "$KPROFILE" -i kmon.out --format json
	assert_equal "$(jq -c '[.rows[:5][].procedure]' <<<"$output")" "$want"
	assert_equal "$stderr" ""
}

@test "replay_trap is a known statistic: here 125, naming it, the reason and what is available" {
	run --separate-stderr "$KPROFILE" -e replay_trap true
	[[ $stderr != *"unknown statistic 'replay_trap'"* ]] ||
		fail "replay_trap is not in the statistics table: $stderr"
	if has_pmu; then
		# With hardware counters it may be counted or not; either
		# way it is not "unknown".
		skip "this machine has a PMU: the no-PMU refusal is not tested"
	fi
	assert_equal "$status" 125
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "kprofile: "*"'replay_trap'"* ]] ||
		fail "replay_trap not named: $stderr"
	[[ $stderr == *"not available"* ]] || fail "no reason: $stderr"
	# The user's situation first (no PMU), then what the statistic would
	# need on this CPU, then what works instead; on any CPU model.
	[[ $stderr == "kprofile: statistic 'replay_trap' is not available here: this machine has no hardware performance counters (no PMU"*"a VM or container without a virtual PMU"*"; it "*"need"*"; available here: "*cpu-clock* ]] ||
		fail "not: no PMU, then what it needs, then alternatives: $stderr"
	[[ ! -e kmon.out ]]
	# As a word before the program it is a statistic too, not a
	# program to run (that would be 127).
	local msg=$stderr
	run -125 --separate-stderr "$KPROFILE" replay_trap true
	assert_equal "$stderr" "$msg"
	# A name that is no statistic at all says so.
	run -125 --separate-stderr "$KPROFILE" -e no_such_statistic true
	[[ $stderr == *"unknown statistic 'no_such_statistic'"* ]] ||
		fail "unexpected message: $stderr"
}

@test "statistics that work here are listed after 'available here:' and do work" {
	has_pmu && skip "this machine has a PMU: nothing is refused for want of one"
	skip_unless_perf_works
	run -125 --separate-stderr "$KPROFILE" -e replay_trap true
	local list=${stderr##*available here: } name n=0
	[[ $list != "$stderr" ]] || fail "no list: $stderr"
	local -a names
	IFS=, read -ra names <<<"$list"
	for name in "${names[@]}"; do
		name=${name# }
		name=${name%% *}
		[[ -n $name ]] || continue
		run --separate-stderr "$KPROFILE" -quiet -e "$name" -o "$name.out" -d 0.1
		((status == 0)) || fail "-e $name: status $status: $stderr"
		[[ -s $name.out ]]
		n=$((n + 1))
	done
	((n >= 2))
}
