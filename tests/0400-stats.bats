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

# ---- the statistics table (common/stats/stats.c, docs/statistics.md) ----

# attr_of FIELD: the value of "  FIELD N" for the last event of a --dry-run
# output in $output.
attr_of() {
	awk -v f="$1" '$1 == f { v = $2 } END { print v }' <<<"$output"
}

@test "the table is valid and has every name the originals and the suite use" {
	run -0 "$ROOT/$BUILD/tests/tablecheck"
	assert_output --regexp '^[0-9]+ statistics$'
}

@test "every statistic of the table resolves, or fails with 125 and one line saying why" {
	local name n=0
	while read -r name; do
		run --separate-stderr "$UPROFILE" -quiet -e "$name" "$TPROG/exitwith" 0
		if ((status == 0)); then
			n=$((n + 1))
			rm -f umon.out
			continue
		fi
		assert_equal "$status" 125
		assert_equal "${#stderr_lines[@]}" 1
		[[ $stderr =~ ^uprofile:\ statistic\ \'$name\'\ (is\ not\ available\ here|counts\ nothing\ in\ user\ mode):\ [a-z]+ ]] ||
			fail "no reason for '$name': $stderr"
		[[ ! -e umon.out ]]
	done < <("$ROOT/$BUILD/tests/tablecheck" --names)
	# the software events at least work wherever perf does
	if perf stat -e cpu-clock true >/dev/null 2>&1; then
		((n >= 7))
	fi
}

@test "raw rNNNN and the modifiers :u :k :h and :uk in the attributes" {
	run -0 "$UPROFILE" --dry-run -e r01c2:u true
	assert_equal "$(attr_of type)" 4
	assert_equal "$(attr_of config)" 0x1c2
	assert_line --partial 'exclude_user 0 exclude_kernel 1 exclude_hv 1'
	run -0 "$UPROFILE" --dry-run -e r1c2:k true
	assert_equal "$(attr_of config)" 0x1c2
	assert_line --partial 'exclude_user 1 exclude_kernel 0 exclude_hv 1'
	run -0 "$UPROFILE" --dry-run -e cpu-clock:uk true
	assert_line --partial 'exclude_user 0 exclude_kernel 0 exclude_hv 1'
	run -0 "$UPROFILE" --dry-run -e cpu-clock:h true
	assert_line --partial 'exclude_user 1 exclude_kernel 1 exclude_hv 0'
	# a modifier that is none
	run -125 --separate-stderr "$UPROFILE" --dry-run -e cycles:x true
	assert_equal "$stderr" "uprofile: bad modifier in 'cycles:x': use :u, :k, :h or a combination"
	run -125 --separate-stderr "$UPROFILE" --dry-run -e r12zz true
	[[ $stderr == *"unknown statistic 'r12zz'"* ]]
}

@test "perf's names are aliases of the same events" {
	local pair
	for pair in instructions:0:0x1 branch-misses:0:0x5 cache-misses:0:0x3 \
		cache-references:0:0x2 L1-dcache-load-misses:3:0x10000 \
		L1-icache-load-misses:3:0x10001 dTLB-load-misses:3:0x10003 \
		iTLB-load-misses:3:0x10004 stalled-cycles-frontend:0:0x7; do
		IFS=: read -r name type config <<<"$pair"
		run -0 "$UPROFILE" --dry-run -e "$name" true
		assert_equal "$(attr_of type):$(attr_of config)" "$type:$config"
	done
}

@test "libpfm4 native names, typed or from the table, per CPU family" {
	[[ $(uname -m) == x86_64 ]] || skip "libpfm4's x86 tables are built on x86 only"
	LIBPFM_FORCE_PMU=skl run -0 "$UPROFILE" --dry-run -e INST_RETIRED:ANY_P:k true
	assert_equal "$(attr_of type):$(attr_of config)" 4:0xc0
	assert_line --partial 'exclude_user 1 exclude_kernel 0'
	LIBPFM_FORCE_PMU=amd64_fam19h_zen4 run -0 "$UPROFILE" --dry-run \
		-e amd64_fam19h_zen4::RETIRED_INSTRUCTIONS true
	assert_equal "$(attr_of config)" 0xc0
	# table rows with no generic event take the family's native event
	LIBPFM_FORCE_PMU=icl run -0 "$UPROFILE" --dry-run -e condmispredict true
	assert_equal "$(attr_of config)" 0x11c5
	LIBPFM_FORCE_PMU=skl run -0 "$UPROFILE" --dry-run -e condmispredict true
	assert_equal "$(attr_of config)" 0x1c5
	LIBPFM_FORCE_PMU=amd64_fam19h_zen3 run -0 "$UPROFILE" --dry-run -e indbranches true
	assert_equal "$(attr_of config)" 0xcc
}

@test "an unknown statistic: 125, suggestions and what is available" {
	run -125 --separate-stderr "$UPROFILE" -e cycels "$TPROG/exitwith" 0
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: unknown statistic 'cycels'"*"did you mean 'cycles'"*"available here: "*cpu-clock* ]]
	run -125 --separate-stderr "$UPROFILE" -e dtb_mis_per_ret "$TPROG/exitwith" 0
	[[ $stderr == *"did you mean 'dtb_miss_per_ret'"* ]]
}

@test "plain names are counters, pm_NAME the profile-me statistic" {
	run -0 "$UPROFILE" --dry-run -e mispredict true
	assert_equal "$(attr_of type):$(attr_of config)" 0:0x5
	# a native counter: raw, on whatever CPU model (pinned: Zen 5, from
	# the suite's own table; Skylake, from libpfm4's)
	UPROFILE_CPU=AuthenticAMD:0x1a:0x2 run -0 "$UPROFILE" --dry-run -e replay_trap:u true
	assert_equal "$(attr_of type)" 4
	if [[ $(uname -m) == x86_64 ]]; then
		UPROFILE_CPU=GenuineIntel:6:0x55 LIBPFM_FORCE_PMU=skl \
			run -0 "$UPROFILE" --dry-run -e replay_trap:u true
		assert_equal "$(attr_of type)" 4
	fi
	# profile-me needs IBS, PEBS or SPE
	if ! ls /sys/bus/event_source/devices | grep -E '^(ibs_op|arm_spe)' >/dev/null; then
		local s
		for s in pm_mispredict pm_cycles retire retired dtb_miss dtb_miss_per_ret; do
			run -125 --separate-stderr "$UPROFILE" -e "$s" "$TPROG/exitwith" 0
			[[ $stderr == "uprofile: statistic '$s' is not available here: "* ]]
			[[ $stderr == *"instruction sampling"* ]] || fail "$stderr"
		done
		# ratios of counters and freq need the counters (or the sim
		# engine): unavailable here too, naming the input
		for s in mispredict_per_ret freq; do
			run -125 --separate-stderr "$UPROFILE" -e "$s" "$TPROG/exitwith" 0
			[[ $stderr == "uprofile: statistic '$s' is not available here: its input '"* ]] ||
				fail "$stderr"
		done
	fi
	# never measured by today's hardware, with the reason
	run -125 --separate-stderr "$UPROFILE" -e dtb_miss3 "$TPROG/exitwith" 0
	[[ $stderr == *"no current hardware records it per instruction: no PMU reports the depth of a page walk"* ]]
	run -125 --separate-stderr "$UPROFILE" -e pm_replay_trap "$TPROG/exitwith" 0
	[[ $stderr == *"no current hardware records it"* ]]
}

@test "-l: every group, every row marked, on stdout with status 0" {
	local tool
	for tool in "$UPROFILE" "$KPROFILE"; do
		run -0 --separate-stderr "$tool" -l
		assert_equal "$stderr" ""
		assert_line --index 0 --regexp '^this machine: .*hardware PMU: .*instruction sampling: '
		assert_line --regexp '^Aggregate hardware events'
		assert_line --regexp '^Profile-me statistics'
		assert_line --regexp '^Software events'
		assert_line --regexp '^Derived statistics'
		assert_line --regexp '^cpu-clock +yes +CPU time'
		assert_line --regexp '^pm_cycles +(yes|no: [a-z/A-Z *]+) +cycles the sampled'
		assert_line --regexp '^dtb_miss3 +no: no hardware has it '
		assert_line --regexp '^freq +(yes|no: .*) +retire averaged'
		# every table row is listed once, with yes, as X or no: why
		local name
		while read -r name; do
			assert_equal "$(grep -Ec "^$name +(yes|as [a-z-]+|no: [a-zA-Z][^ ]*( [^ ]+)*) " <<<"$output")" 1
		done < <("$ROOT/$BUILD/tests/tablecheck" --names)
	done
	if ! has_pmu; then
		run -0 "$UPROFILE" -l
		assert_line --regexp '^retinst +no: no hardware PMU '
		assert_line --regexp '^cycles +as cpu-clock '
	fi
}

@test "-v says what each statistic resolved to" {
	run -0 --separate-stderr "$UPROFILE" -v --dry-run -e retinst,r01c2:k,page-faults true
	assert_equal "${stderr_lines[0]}" "uprofile: 'retinst' -> type 0 (hardware) config 0x1 = PERF_COUNT_HW_INSTRUCTIONS, user mode"
	assert_equal "${stderr_lines[1]}" "uprofile: 'r01c2:k' -> type 4 (raw) config 0x1c2 = raw 0x1c2, kernel mode"
	assert_equal "${stderr_lines[2]}" "uprofile: 'page-faults' -> type 1 (software) config 0x2 = PERF_COUNT_SW_PAGE_FAULTS, user mode"
	# and how it is sampled, with the unit
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -v -e cpu-clock -F 500 -o f.out true
	[[ $stderr == *"sampling cpu-clock (type 1, config 0) in user mode, at 500 samples per second"* ]] ||
		fail "no rate with its unit: $stderr"
	run -0 --separate-stderr "$UPROFILE" -v -e cpu-clock -c 2000000 -o c.out true
	[[ $stderr == *"sampling cpu-clock (type 1, config 0) in user mode, every 2000000 events"* ]] ||
		fail "no period with its unit: $stderr"
}

@test "a last word that is a program on PATH is the program, even if a statistic has its name" {
	# A program called like a statistic (reset, trap, valid, ...).
	mkdir bin
	printf '#!/bin/sh\necho ran reset\n' >bin/reset
	chmod +x bin/reset
	PATH=$PWD/bin:$PATH run -0 --separate-stderr "$UPROFILE" -quiet -e cpu-clock reset
	assert_output "ran reset"
	# Before it, the same word is a statistic.
	run -125 --separate-stderr "$UPROFILE" -quiet reset "$TPROG/exitwith" 0
	[[ $stderr == "uprofile: statistic 'reset' is not available here: "* ]] || fail "$stderr"
}

@test "context-switches, cpu-migrations in user mode: refused with why and what to use" {
	# The kernel raises both only in the scheduler, with kernel registers:
	# opened without kernel mode they count nothing (perf's cs:u records
	# no sample), so a user-mode run would be silently empty.
	local s name
	for s in context-switches cs cs:u cpu-migrations migrations:u; do
		case $s in
		context-switches | cs*) name=context-switches ;;
		*) name=cpu-migrations ;;
		esac
		run -125 --separate-stderr "$UPROFILE" -e "$s" "$TPROG/exitwith" 0
		assert_output ""
		assert_equal "$stderr" "uprofile: statistic '$s' counts nothing in user mode: it happens only in kernel mode; use '$name:k' (with -g, its call stacks show the user code that led there)"
		[[ ! -e umon.out ]]
		# the same without asking the kernel, and when counting
		run -125 --separate-stderr "$UPROFILE" --dry-run -e "$s" true
		assert_equal "${#stderr_lines[@]}" 1
		run -125 --separate-stderr "$UPROFILE" --count -e "$s" true
		[[ $stderr == "uprofile: statistic '$s' counts nothing in user mode: "* ]]
	done
	run -125 --separate-stderr "$UPROFILE" --dry-run -e cs:h true
	[[ $stderr == "uprofile: statistic 'cs:h' counts nothing in hypervisor mode: "* ]]
	# -l says so in the default (user) mode; kprofile counts kernel mode
	run -0 "$UPROFILE" -l
	assert_line --regexp '^context-switches +no: kernel only, use :k +context switches'
	assert_line --regexp '^cpu-migrations +no: kernel only, use :k +moves'
	assert_line --regexp '^page-faults +yes '
	run -0 "$KPROFILE" -l
	assert_line --regexp '^context-switches +yes '
	# with kernel mode they are opened; user-mode software events that
	# the kernel raises with the task's registers stay allowed
	run -0 "$UPROFILE" --dry-run -e cs:k true
	assert_line '  exclude_user 1 exclude_kernel 0 exclude_hv 1 exclude_callchain_user 0'
	run -0 "$UPROFILE" --dry-run -e cpu-migrations:uk true
	assert_line '  exclude_user 0 exclude_kernel 0 exclude_hv 1 exclude_callchain_user 0'
	run -0 "$UPROFILE" --dry-run -e page-faults,minor-faults,major-faults,task-clock,alignment-faults,emulation-faults true
}

@test "context-switches:k -g: one sample per switch, the user code on the stacks" {
	skip_unless_perf_works
	if [[ $(id -u) -ne 0 && $(cat /proc/sys/kernel/perf_event_paranoid) -gt 1 ]]; then
		skip "kernel mode needs perf_event_paranoid <= 1 or root"
	fi
	# 200 sleeps: each blocks the task, at least one switch each
	run -0 "$UPROFILE" -quiet -e context-switches:k -c 1 -g \
		/usr/bin/python3 -c 'import time
for _ in range(200): time.sleep(0.001)'
	run -0 "$UPROFILE" -i umon.out -format json
	run -0 jq -e '.statistics[0] | .name == "context-switches" and
		.modes == "kernel" and .samples >= 200' <<<"$output"
	# the advice holds: the call tree reaches the program's user frames
	run -0 "$UPROFILE" -i umon.out -tree
	assert_line --regexp '^ +[0-9.]+ +[0-9.]+ +[0-9]+  _start'
}
