#!/usr/bin/env bats
# Counting mode (--count): whole-run totals, multiplexing scaled, ratios;
# groups; --start-after A:N (cascaded counters).  Software events end to
# end; hardware through golden attributes and crafted counting profiles
# (tests/tools/mkcount.c).

load helpers

MKCOUNT=$ROOT/$BUILD/tests/mkcount

# count_of STAT FILE: scaled_value of STAT in the JSON counts of FILE
count_of() {
	"$UPROFILE" -i "$2" --format json |
		jq -e --arg s "$1" '.statistics[] | select(.name == $s) |
			.scaled_value'
}

@test "--count: task-clock, page-faults, context-switches, text report" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" --count -display -kernel \
		-e task-clock,page-faults,context-switches "$TPROG/phases" 1000 200
	assert_equal "$output" ""
	local err=$stderr
	[[ $err == *"Counts umon.out (uprofile): $TPROG/phases 1000 200"* ]] ||
		fail "no heading: $err"
	[[ $err =~ task-clock\ +[0-9,]+ ]] || fail "no task-clock: $err"
	[[ $err =~ page-faults\ +[0-9,]+ ]] || fail "no page-faults: $err"
	[[ $err =~ context-switches\ +[0-9,]+ ]] || fail "no cs: $err"
	[[ $err == *"task-clock_cpus"* ]] || fail "no utilisation: $err"
	[[ $err == *"counted task-clock, page-faults, context-switches; profile written to umon.out"* ]] ||
		fail "no summary line: $err"
	[[ $err != *scaled* ]] || fail "software events are never multiplexed"
}

@test "--count: plausible totals in JSON (1000 new pages, 2 x 200 ms CPU)" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet --count -e task-clock,page-faults \
		"$TPROG/phases" 1000 200
	run -0 "$UPROFILE" -i umon.out --format json
	json_check <<<"$output"
	local json=$output
	assert_equal "$(jq -r '.mode' <<<"$json")" count
	assert_equal "$(jq -r '.schema_version' <<<"$json")" 1
	assert_equal "$(jq '.rows' <<<"$json")" null
	local pf tc
	pf=$(jq '.statistics[] | select(.name == "page-faults") | .value' <<<"$json")
	tc=$(jq '.statistics[] | select(.name == "task-clock") | .value' <<<"$json")
	((pf >= 1000)) || fail "page-faults $pf < 1000"
	((pf < 1500)) || fail "page-faults $pf: far more than the program makes"
	# 400 ms of thread CPU time, in user mode (plus clock reads).
	assert_near "$((tc / 1000000))" 400 60
	assert_equal "$(jq '[.statistics[] | .multiplexed] | any' <<<"$json")" false
	assert_equal "$(jq '[.statistics[] | .time_enabled_ns == .time_running_ns] | all' <<<"$json")" true
	# CPUs used = task-clock / duration: one thread at a time, so at
	# most 1; how much less depends on the machine's load.
	local dur
	dur=$(jq '.duration_seconds' <<<"$json")
	run -0 jq -e --argjson tc "$tc" --argjson d "$dur" \
		'.ratios[] | select(.name == "task-clock_cpus") |
		.value > 0 and .value <= 1.05 and
		((.value - $tc / 1e9 / $d) | fabs) < 0.01' <<<"$json"
	run -0 jq -e '.ratios[] | select(.name == "page-faults_per_second") |
		.inputs == ["page-faults"]' <<<"$json"
}

@test "--count follows descendants: their totals are included" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet --count -e page-faults sh -c \
		"\"$TPROG/phases\" 1000 10; \"$TPROG/phases\" 1000 10"
	local pf
	pf=$(count_of page-faults umon.out)
	((pf >= 2000)) || fail "page-faults $pf < 2000: children not counted"
}

@test "--count keeps the program's exit status and writes atomically" {
	skip_unless_perf_works
	run -3 "$UPROFILE" -quiet --count -e task-clock "$TPROG/exitwith" 3
	[[ -s umon.out ]]
	run -0 bash -c 'ls -a | grep -c tmp || true'
	assert_output 0
}

@test "multiplexed totals are scaled, and the report says from how much" {
	run -0 "$MKCOUNT" m.out 2000000000 \
		cycles:0:0:5000000:1000000000:500000000 \
		retinst:0:1:4000000:1000000000:500000000 \
		mispredict:0:5:20000:1000000000:1000000000
	run -0 "$UPROFILE" -i m.out
	assert_line --regexp '^  cycles +10,000,000  \(scaled from 50\.0% of the time\)$'
	assert_line --regexp '^  retinst +8,000,000  \(scaled from 50\.0% of the time\)$'
	assert_line --regexp '^  mispredict +20,000$'
	run -0 "$UPROFILE" -i m.out --format json
	run -0 jq -c '.statistics[] | [.name, .value, .scaled_value, .running_percent, .multiplexed]' <<<"$output"
	assert_output '["cycles",5000000,10000000,50,true]
["retinst",4000000,8000000,50,true]
["mispredict",20000,20000,100,false]'
}

@test "ratios from totals: cycles_per_ret, X_per_ret = 100 X / retinst" {
	run -0 "$MKCOUNT" m.out 2000000000 \
		cycles:0:0:5000000:1000000000:500000000 \
		retinst:0:1:4000000:1000000000:500000000 \
		mispredict:0:5:20000:1000000000:1000000000 \
		mispredict_per_ret:derived branches_per_ret:derived
	run -0 "$UPROFILE" -i m.out
	assert_line --regexp '^  cycles_per_ret +1\.2500  cycles / retinst$'
	assert_line --regexp '^  mispredict_per_ret +0\.2500  100 \* mispredict / retinst$'
	assert_line --regexp '^  branches_per_ret +-  100 \* branches / retinst \(not counted\)$'
	# derived statistics are not listed as counted ones
	refute_line --regexp '^  mispredict_per_ret +[0-9,]+$'
	run -0 "$UPROFILE" -i m.out --format json
	run -0 jq -c '.ratios[] | [.name, .value, .inputs, .requested]' <<<"$output"
	assert_output '["cycles_per_ret",1.25,["cycles","retinst"],false]
["mispredict_per_ret",0.25,["mispredict","retinst"],true]
["branches_per_ret",null,[],true]'
}

@test "a group that never ran is not shown as zero events" {
	run -0 "$MKCOUNT" m.out 1000000000 cycles:0:0:0:1000000000:0
	run -0 "$UPROFILE" -i m.out
	assert_line --partial 'never scheduled'
}

@test "golden: counting group cycles + retinst + mispredict for two ratios" {
	golden uprofile-count-group "$UPROFILE" --dry-run --count \
		-e cycles_per_ret,mispredict_per_ret true
}

@test "golden: sampling group of a ratio's inputs (co-scheduled)" {
	golden uprofile-sample-group "$UPROFILE" --dry-run \
		-e mispredict_per_ret -c 10000 true
}

@test "golden: kprofile counts per CPU, no inheritance, no tracking" {
	golden kprofile-count "$KPROFILE" --dry-run --count -e cycles,retinst
}

@test "golden: --start-after holds the statistic until the trigger" {
	golden uprofile-count-start-after "$UPROFILE" --dry-run -count \
		-e minor-faults --start-after page-faults:100 true
}

@test "NAME_per_ret works as a word before PROGRAM and needs its inputs" {
	run -0 "$UPROFILE" --dry-run -count mispredict_per_ret true
	assert_line 'event 0'
	assert_line '  group_fd event 0'
	if ! has_pmu; then
		run -125 "$UPROFILE" -count -e mispredict_per_ret true
		assert_output --partial "statistic 'mispredict_per_ret' is not available here: its input 'mispredict' is not: "
	fi
}

@test "usage errors: --start-after, and options that do not apply to --count" {
	run -125 "$UPROFILE" --start-after page-faults true
	assert_line --index 0 "uprofile: bad --start-after 'page-faults': expected STAT:N, e.g. page-faults:1000"
	run -125 "$UPROFILE" --start-after page-faults:0 true
	assert_line --index 0 --partial 'N must be a positive number'
	run -125 "$UPROFILE" --start-after page-faults:x true
	assert_line --index 0 --partial 'N must be a positive number'
	run -125 "$UPROFILE" --start-after nosuch:10 true
	assert_line --index 0 "uprofile: bad --start-after 'nosuch:10': unknown statistic 'nosuch' (see --list)"
	run -125 "$UPROFILE" --start-after page-faults:10 -t true
	assert_line --index 0 --partial 'give one'
	run -125 "$UPROFILE" --count -F 100 true
	assert_line --index 0 --partial '--count does not sample'
	run -125 "$UPROFILE" --count -lines true
	assert_line --index 0 --partial '--count has no rows'
	run -125 "$UPROFILE" --count -pids true
	assert_line --index 0 --partial 'whole-run totals'
	run -125 "$UPROFILE" --count -i umon.out
	assert_line --index 0 --partial 'apply to a run'
}

@test "--start-after page-faults:N: nothing before the N-th, everything after" {
	skip_unless_perf_works
	# Two runs of phases one after the other: the first reaches 1500
	# faults in its burst; the second starts 50 ms later, well after the
	# hand-over, so all of its faults are counted.  The faults of the
	# first run's burst that follow the 1500th come within the hand-over
	# (tens to hundreds of us) and may be missed.
	local cmd="\"$TPROG/phases\" 2000 50; \"$TPROG/phases\" 2000 50"
	run -0 "$UPROFILE" -quiet --count -e page-faults sh -c "$cmd"
	local all after
	all=$(count_of page-faults umon.out)
	run -0 "$UPROFILE" -quiet --count -e page-faults \
		--start-after page-faults:1500 sh -c "$cmd"
	after=$(count_of page-faults umon.out)
	((after <= all - 1500 + 50)) ||
		fail "counted $after of $all: faults before the 1500th were counted"
	((after >= all / 2 - 100)) ||
		fail "counted $after of $all: the second run was not counted whole"
	run -0 "$UPROFILE" -i umon.out --format json
	run -0 jq -e '.start_after.condition == "page-faults:1500" and
		.start_after.reached and .start_after.seconds > 0 and
		.start_after.handover_ns > 0' <<<"$output"
	run -0 "$UPROFILE" -i umon.out
	assert_line --regexp '^  started after page-faults:1500, [0-9.]+ s into the run \(hand-over [0-9.]+ us'
}

@test "--start-after: task-clock of phase one is not counted" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet --count -e task-clock \
		--start-after page-faults:1000 "$TPROG/phases" 2000 300
	local tc
	tc=$(count_of task-clock umon.out)
	# phase_two only: 300 ms, not 600.
	assert_near "$((tc / 1000000))" 300 60
}

@test "--start-after in sampling mode: samples only after the trigger" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/phases" 2000 300
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	assert_split "$output" phase_one phase_two 50 12
	run -0 "$UPROFILE" -quiet -e cpu-clock \
		--start-after page-faults:1000 "$TPROG/phases" 2000 300
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	assert_equal "$(json_share phase_one cpu-clock - <<<"$output")" 0.00
	assert_near "$(json_share phase_two cpu-clock - <<<"$output")" 95 6
}

@test "--start-after never reached: nothing counted, and the report says so" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" --count -e task-clock \
		--start-after page-faults:100000000 "$TPROG/phases" 10 10
	[[ $stderr == *"'page-faults' never occurred 100000000 times: nothing was counted"* ]] ||
		fail "no notice: $stderr"
	run -0 "$UPROFILE" -i umon.out
	assert_line '  started after page-faults:100000000: never reached, nothing was counted'
	assert_line --regexp '^  task-clock +0  \(never started\)$'
}
