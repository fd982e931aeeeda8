#!/usr/bin/env bats
# Golden perf_event_attr checks: --dry-run prints the attributes of every
# event that would be opened, without opening any, so hardware statistics
# are checked on machines without a PMU.

load helpers

@test "uprofile: retinst every 100000 events, user mode, inherited, enabled at exec" {
	golden uprofile-retinst-period "$UPROFILE" --dry-run -e retinst -c 100000 true
}

@test "uprofile: cycles with -kernel and mispredict:u at 4000 Hz" {
	golden uprofile-cycles-kernel "$UPROFILE" --dry-run -kernel \
		-e cycles,mispredict:u -F 4000 true
}

@test "uprofile -t: sampling events wait for the trigger, tracking starts at exec" {
	golden uprofile-triggered "$UPROFILE" --dry-run -t -e cpu-clock true
}

@test "kprofile: per-CPU events in every mode, no inheritance, no tracking" {
	golden kprofile-cycles "$KPROFILE" --dry-run -e cycles
}

@test "kprofile -user: tracking event for process maps" {
	golden kprofile-user "$KPROFILE" --dry-run -user -e retinst:k -c 50000
}

@test "kprofile -ra: kernel call chains, user chains excluded" {
	run -0 "$KPROFILE" --dry-run -ra -e cpu-clock
	assert_line '  sample_type 0x101a7'
	assert_line '  disabled 1 inherit 0 enable_on_exec 0'
	assert_line --partial 'exclude_callchain_user 1'
}

# LIBPFM_FORCE_PMU makes libpfm4 use one CPU model's event tables whatever
# the CPU, so the native mappings are checked on any x86 machine.
@test "replay_trap: Intel MACHINE_CLEARS:MEMORY_ORDERING, AMD Zen 4 RESYNCS" {
	[[ $(uname -m) == x86_64 ]] || skip "libpfm4's x86 tables are built on x86 only"
	LIBPFM_FORCE_PMU=skl run -0 "$UPROFILE" --dry-run -e replay_trap true
	assert_line '  type 4'
	assert_line '  config 0x2c3'
	LIBPFM_FORCE_PMU=amd64_fam19h_zen4 run -0 "$UPROFILE" --dry-run -e replay_trap true
	assert_line '  config 0x96'
	# Zen 3 has no pipeline-restart event: a reason, not a guess
	LIBPFM_FORCE_PMU=amd64_fam19h_zen3 run -125 --separate-stderr \
		"$UPROFILE" --dry-run -e replay_trap true
	[[ $stderr == *"'replay_trap' is not available here: AMD CPUs have no such event: AMD: Zen 4 and later"* ]]
}

@test "the statistics table is valid: descriptions, unique names, substitutes" {
	run -0 "$ROOT/$BUILD/tests/tablecheck"
	assert_output --regexp '^[0-9]+ statistics$'
}

@test "--list shows every statistic and whether this machine has it" {
	run -0 "$UPROFILE" --list
	assert_line --regexp '^cpu-clock +yes '
	assert_line --regexp '^replay_trap +(yes|no)'
	if ! perf stat -e instructions true >/dev/null 2>&1; then
		assert_line --regexp '^cycles +as cpu-clock '
		assert_line --regexp '^retinst +no '
	fi
}
