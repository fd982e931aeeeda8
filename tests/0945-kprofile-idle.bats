#!/usr/bin/env bats
# -exclude-idle: the idle task's samples (pid 0, CPUs with nothing to run)
# out of a report's rows and totals; the heading says how many, or how
# much of the profile they are when they are kept.

load helpers

# idle_of FILE: samples of cpu-clock the idle task took, from -by pid.
idle_of() {
	"$KPROFILE" -i "$1" -by pid --format json |
		jq '[.by_totals[] | select(.pid == 0) | .samples["cpu-clock"]] | add // 0'
}

@test "-exclude-idle: the idle task's samples leave the rows and the totals, and the heading says how many" {
	skip_unless_perf_works
	# one CPU busy, the other (if any) mostly idle
	run -0 "$KPROFILE" -quiet -e cpu-clock -o k.kmon "$TPROG/kernelloop" read 1
	local all idle rest
	all=$("$KPROFILE" -i k.kmon --format json | jq '.statistics[0].samples')
	idle=$(idle_of k.kmon)
	((all > 100)) || fail "only $all samples"
	run -0 "$KPROFILE" -i k.kmon -exclude-idle --format json
	json_check <<<"$output"
	rest=$(jq '.statistics[0].samples' <<<"$output")
	assert_equal "$rest" $((all - idle))
	assert_equal "$(jq .idle_excluded <<<"$output")" "$idle"
	# the rows add up to the rest, percentages are of it
	assert_equal "$(jq '[.rows[].samples["cpu-clock"]] | add // 0' <<<"$output")" "$rest"
	# no idle task left to split by
	run -0 "$KPROFILE" -i k.kmon -exclude-idle -by pid --format json
	assert_equal "$(jq '[.by_totals[] | select(.pid == 0)] | length' <<<"$output")" 0
	# the text heading
	run -0 "$KPROFILE" -i k.kmon -exclude-idle
	assert_line "  note: -exclude-idle: $idle samples of the idle task (pid 0) are left out; percentages are of the rest"
	# without it, the heading says what share is idle when it is a tenth
	# or more
	run -0 "$KPROFILE" -i k.kmon
	if ((idle * 10 >= all)); then
		assert_line --regexp "^  note: [0-9.]+% of the samples are the idle task \(pid 0: .*-exclude-idle leaves them out$"
	else
		refute_output --partial "of the samples are the idle task"
	fi
	# the file itself is whole
	assert_equal "$("$KPROFILE" -i k.kmon --format json | jq '.statistics[0].samples')" "$all"
}

@test "-exclude-idle after a run: the report leaves idle out, the file keeps it" {
	skip_unless_perf_works
	run -0 --separate-stderr "$KPROFILE" -e cpu-clock -exclude-idle -o k.kmon \
		-report-file r.txt sleep 0.5
	local idle
	idle=$(idle_of k.kmon)
	run -0 cat r.txt
	assert_line "  note: -exclude-idle: $idle samples of the idle task (pid 0) are left out; percentages are of the rest"
	run -0 "$KPROFILE" -i k.kmon --format json
	assert_equal "$(jq .idle_excluded <<<"$output")" 0
}

@test "-exclude-idle on a user profile changes nothing; on a profile with call stacks it is refused in one line" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o u.umon "$TPROG/spin2" 200
	run -0 "$UPROFILE" -i u.umon --format json
	local before=$output
	run -0 "$UPROFILE" -i u.umon -exclude-idle --format json
	assert_equal "$(jq -c '[.statistics[0].samples, [.rows[] | [.procedure, .samples]]]' <<<"$output")" \
		"$(jq -c '[.statistics[0].samples, [.rows[] | [.procedure, .samples]]]' <<<"$before")"
	run -0 "$UPROFILE" -quiet -e cpu-clock -g -o g.umon "$TPROG/spin2" 100
	run -125 --separate-stderr "$UPROFILE" -i g.umon -exclude-idle
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"-exclude-idle: the profile has call stacks"* ]] || fail "stderr: $stderr"
}
