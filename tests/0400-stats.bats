#!/usr/bin/env bats
# Statistics: choosing them (-e, words before PROGRAM, modifiers), the
# no-PMU fallback of cycles, rejecting what cannot be sampled, and the
# sampling rate.

load helpers

use_stderr() {
	output=$stderr
	lines=("${stderr_lines[@]}")
}

# stats_json FILE: the "statistics" array of FILE's JSON report, compact.
stats_json() {
	"$UPROFILE" -i "$1" -format json | jq -c '.statistics'
}

@test "default statistic: cycles falls back to cpu-clock with a one-line notice" {
	skip_unless_perf_works
	has_pmu && skip "this machine has a PMU: cycles needs no substitute"
	run -0 --separate-stderr "$UPROFILE" -e cycles "$TPROG/exitwith" 0
	run -0 --separate-stderr "$UPROFILE" "$TPROG/spin2" 100
	assert_output ""
	use_stderr
	# exactly one line mentions the substitution, and names both
	assert_equal "$(grep -c "'cycles'" <<<"$stderr")" 1
	assert_line --index 0 --regexp "^uprofile: .*'cycles'.*'cpu-clock'"
	run -0 "$UPROFILE" -i umon.out -format json
	run -0 jq -c '.statistics | map({name, requested, substitute, modes})' \
		<<<"$output"
	assert_output '[{"name":"cpu-clock","requested":"cycles","substitute":true,"modes":"user"}]'
}

@test "-quiet silences the fallback notice" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -quiet "$TPROG/exitwith" 0
	assert_equal "$stderr" ""
}

@test "-e cpu-clock: no notice, no substitute" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock "$TPROG/spin2" 100
	use_stderr
	refute_line --partial 'not available'
	refute_line --partial 'instead'
	refute_line --partial 'cycles'
	run -0 "$UPROFILE" -i umon.out -format json
	run -0 jq -c '.statistics | map({name, requested, substitute})' \
		<<<"$output"
	assert_output '[{"name":"cpu-clock","requested":"cpu-clock","substitute":false}]'
}

@test "statistics as words before PROGRAM and -e a,b both give two statistics" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet cpu-clock page-faults "$TPROG/spin2" 100
	run -0 stats_json umon.out
	assert_equal "$(jq -c 'map(.name)' <<<"$output")" \
		'["cpu-clock","page-faults"]'
	rm umon.out
	run -0 "$UPROFILE" -quiet -e cpu-clock,page-faults "$TPROG/spin2" 100
	run -0 stats_json umon.out
	assert_equal "$(jq -c 'map(.name)' <<<"$output")" \
		'["cpu-clock","page-faults"]'
	# page-faults counts something (spin2 faults its pages in), and every
	# row has a share for both statistics.
	run -0 "$UPROFILE" -i umon.out -format json
	(($(jq '.statistics[1].value' <<<"$output") > 0))
	run -0 jq -e '[.rows[] | (.percent | keys)] | all(. == ["cpu-clock", "page-faults"])' \
		<<<"$output"
	rm umon.out
	# -e and words add up
	run -0 "$UPROFILE" -quiet -e page-faults cpu-clock "$TPROG/exitwith" 0
	run -0 stats_json umon.out
	assert_equal "$(jq -c 'map(.name)' <<<"$output")" \
		'["page-faults","cpu-clock"]'
}

@test "a word that is not a statistic starts the program" {
	skip_unless_perf_works
	# "true" is a program, not a statistic
	run -0 "$UPROFILE" -quiet -e cpu-clock true
	run -0 stats_json umon.out
	assert_equal "$(jq -c 'map(.name)' <<<"$output")" '["cpu-clock"]'
}

@test "an unknown statistic: 125, and the message lists the available ones" {
	run -125 --separate-stderr "$UPROFILE" -e no-such-stat "$TPROG/exitwith" 0
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: "*"'no-such-stat'"*"available here: "* ]]
	[[ $stderr =~ available\ here:\ .*cpu-clock ]]
	[[ $stderr =~ available\ here:\ .*page-faults ]]
	[[ ! -e umon.out ]]
	# also in a list
	run -125 --separate-stderr "$UPROFILE" -e cpu-clock,bogus "$TPROG/exitwith" 0
	[[ $stderr == *"'bogus'"* ]]
}

@test "retinst and instructions without a PMU: 125, 'not available here' and why" {
	has_pmu && skip "this machine has a PMU: instructions can be sampled"
	local s
	for s in retinst instructions; do
		run -125 --separate-stderr "$UPROFILE" -e "$s" "$TPROG/exitwith" 0
		assert_output ""
		assert_equal "${#stderr_lines[@]}" 1
		# the reason follows "not available here"
		[[ $stderr =~ ^uprofile:\ .*\'$s\'\ is\ not\ available\ here:\ [a-z]+ ]]
		[[ $stderr == *PMU* || $stderr == *counter* ]]
		[[ ! -e umon.out ]]
	done
	# as a word before the program, too
	run -125 --separate-stderr "$UPROFILE" retinst "$TPROG/exitwith" 0
	[[ $stderr == *"'retinst' is not available here"* ]]
}

@test "modifiers: cpu-clock:u samples user mode only, cpu-clock:k kernel only" {
	skip_unless_perf_works
	local json
	# kernelloop syscall: about half of its time in the kernel
	run -0 "$UPROFILE" -quiet -e cpu-clock:u "$TPROG/kernelloop" syscall 0.3
	json=$("$UPROFILE" -i umon.out -format json)
	assert_equal "$(jq -c '.statistics[0] | [.name, .requested, .modes]' <<<"$json")" \
		'["cpu-clock","cpu-clock:u","user"]'
	run -0 jq -e 'all(.rows[]; .object != "[kernel.kallsyms]")' <<<"$json"
	run -0 jq -e '([.modes[].kernel] | add // 0) == 0' <<<"$json"
	run -0 jq -e '([.modes[].user] | add // 0) > 0' <<<"$json"
	rm umon.out
	run -0 "$UPROFILE" -quiet -e cpu-clock:k "$TPROG/kernelloop" read 0.3
	json=$("$UPROFILE" -i umon.out -format json)
	assert_equal "$(jq -c '.statistics[0] | [.name, .requested, .modes]' <<<"$json")" \
		'["cpu-clock","cpu-clock:k","kernel"]'
	run -0 jq -e '([.modes[].user] | add // 0) == 0' <<<"$json"
	run -0 jq -e '[.modes[].kernel] | add > 0' <<<"$json"
	run -0 jq -e '.rows[0].object == "[kernel.kallsyms]"' <<<"$json"
}

@test "a modifier is not a substitution" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock:u -display "$TPROG/spin2" 50
	refute_output --partial 'substitute'
	use_stderr
	refute_line --partial 'instead'
	run -0 "$UPROFILE" -i umon.out -format json
	assert_equal "$(jq -c '.statistics[0] | [.name, .requested, .substitute]' <<<"$output")" \
		'["cpu-clock","cpu-clock:u",false]'
}

@test "the same statistic twice: 125" {
	run -125 --separate-stderr "$UPROFILE" -e cpu-clock,cpu-clock "$TPROG/exitwith" 0
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: "*"'cpu-clock'"*twice* ]]
	run -125 --separate-stderr "$UPROFILE" -e cpu-clock cpu-clock "$TPROG/exitwith" 0
	[[ $stderr == *twice* ]]
	run -125 --separate-stderr "$UPROFILE" -e cpu-clock -e cpu-clock:u "$TPROG/exitwith" 0
	[[ $stderr == *twice* ]]
	[[ ! -e umon.out ]]
}

@test "-F 500 and -c 1000000 are recorded as frequency and period" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -F 500 "$TPROG/spin2" 400
	run -0 stats_json umon.out
	assert_equal "$(jq -c '.[0] | [.frequency, .period]' <<<"$output")" \
		'[500,0]'
	# about 500 Hz of 0.4 s of CPU time
	assert_near "$(jq '.[0].samples' <<<"$output")" 200 50
	rm umon.out
	# one sample per 1 ms of cpu-clock (nanoseconds): about 400
	run -0 "$UPROFILE" -quiet -e cpu-clock -c 1000000 "$TPROG/spin2" 400
	run -0 stats_json umon.out
	assert_equal "$(jq -c '.[0] | [.frequency, .period]' <<<"$output")" \
		'[0,1000000]'
	assert_near "$(jq '.[0].samples' <<<"$output")" 400 60
	assert_near "$(jq '.[0].weight / 1000000' <<<"$output")" \
		"$(jq '.[0].samples' <<<"$output")" 0
	# the default: 1000 Hz
	rm umon.out
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/exitwith" 0
	run -0 stats_json umon.out
	assert_equal "$(jq -c '.[0] | [.frequency, .period]' <<<"$output")" \
		'[1000,0]'
}

@test "the last of -F and -c wins" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -c 2000000 -F 250 "$TPROG/exitwith" 0
	run -0 stats_json umon.out
	assert_equal "$(jq -c '.[0] | [.frequency, .period]' <<<"$output")" '[250,0]'
	run -0 "$UPROFILE" -quiet -e cpu-clock -F 250 -c 2000000 "$TPROG/exitwith" 0
	run -0 stats_json umon.out
	assert_equal "$(jq -c '.[0] | [.frequency, .period]' <<<"$output")" '[0,2000000]'
}
