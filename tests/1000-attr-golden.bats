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

@test "kprofile: per-CPU events in every mode, no inheritance, task names tracked (no maps)" {
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

# UPROFILE_CPU pins the CPU model (vendor:family:model) whatever the host
# is; libpfm4's tables are then used only when LIBPFM_FORCE_PMU names them,
# so each of these holds on any machine, with or without a PMU.
@test "pinned models: Intel Skylake and AMD Zen 4 through libpfm4" {
	[[ $(uname -m) == x86_64 ]] || skip "libpfm4's x86 tables are built on x86 only"
	UPROFILE_CPU=GenuineIntel:6:0x55 LIBPFM_FORCE_PMU=skl \
		golden skl-natives "$UPROFILE" --dry-run -e replay_trap,condmispredict true
	UPROFILE_CPU=AuthenticAMD:0x19:0x11 LIBPFM_FORCE_PMU=amd64_fam19h_zen4 \
		golden zen4-natives "$UPROFILE" --dry-run -e replay_trap,condmispredict true
}

@test "pinned models: AMD Zen 5 and Arm from the suite's own tables" {
	# Zen 5 (family 1Ah): libpfm4 4.13 has no tables; the encodings are
	# AMD's (event select high nibble in config bits 32-35)
	UPROFILE_CPU=AuthenticAMD:0x1a:0x2 golden zen5-natives "$UPROFILE" \
		--dry-run -e replay_trap,condmispredict,scache,pipedry:k true
	# Arm PMUv3 common events (Neoverse N1's part number)
	UPROFILE_CPU=ARM:0x41:0xd0c golden arm-natives "$UPROFILE" \
		--dry-run -e issues,unaligntraps,scachemisses true
	# -v and -l say where the encoding came from
	UPROFILE_CPU=AuthenticAMD:0x1a:0x2 run -0 --separate-stderr \
		"$UPROFILE" -v --dry-run -e replay_trap true
	[[ $stderr == *"'replay_trap' -> type 4 (raw) config 0x19f = amdzen5::bp_redirects.resync, user mode"* ]] ||
		fail "$stderr"
	UPROFILE_CPU=AuthenticAMD:0x1a:0x2 run -0 "$UPROFILE" -l
	assert_line --index 0 --partial 'AMD CPU (AuthenticAMD, family 0x1a model 0x2, pinned by UPROFILE_CPU); native events: own table amdzen5'
	assert_line --partial "this suite's own table 'amdzen5'"
	assert_line --regexp '^  replay_trap +bp_redirects\.resync \(raw 0x19f\)$'
	# a model that neither knows: the reason names the model
	UPROFILE_CPU=AuthenticAMD:0x19:0x11 run -125 --separate-stderr \
		"$UPROFILE" --dry-run -e replay_trap true
	[[ $stderr == *"RESYNCS on this AMD CPU (family 0x19 model 0x11), which neither libpfm4 nor this suite's own tables can encode"* ]] ||
		fail "$stderr"
	# a pin that is not VENDOR:FAMILY:MODEL says so
	UPROFILE_CPU=bogus run -0 "$UPROFILE" -l
	assert_line --index 0 --partial "UPROFILE_CPU 'bogus' is not VENDOR:FAMILY:MODEL"
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

@test "uprofile --call-graph=dwarf: user registers and a 64 KiB stack copy, kernel chains only" {
	golden uprofile-callgraph-dwarf "$UPROFILE" --dry-run --call-graph=dwarf -e cpu-clock true
	run -0 "$UPROFILE" --dry-run --call-graph=dwarf,4096 -e cpu-clock true
	assert_line '  sample_regs_user 0xff01ff sample_stack_user 4096'
	# -g is auto on uprofile: the same user registers and stack.
	run -0 "$UPROFILE" --dry-run -g -e cpu-clock true
	assert_line '  sample_regs_user 0xff01ff sample_stack_user 65528'
}

# A python's Python frames are read as its samples are drained: the
# samples of a millisecond wake the drainer, not the buffer's watermark.
@test "uprofile -g on a python: its sampling event wakes the drainer every millisecond's samples" {
	printf '#!/bin/sh\n' >python-fake
	chmod +x python-fake
	run -0 "$UPROFILE" --dry-run -g -e cpu-clock -F 1000 ./python-fake
	assert_line '  watermark 0 wakeup_watermark 2'
	assert_line '  wakeup_events 2'
	run -0 "$UPROFILE" --dry-run -g -e cpu-clock -F 4000 ./python-fake
	assert_line '  wakeup_events 5'
	run -0 "$UPROFILE" --dry-run -g -e cpu-clock -c 1000000 ./python-fake
	assert_line '  wakeup_events 2'
	# Not without Python frames, nor for another program.
	run -0 "$UPROFILE" --dry-run -g --python=off -e cpu-clock ./python-fake
	refute_line --partial 'wakeup_events'
	refute_line --partial 'watermark 0'
	run -0 "$UPROFILE" --dry-run -g -e cpu-clock true
	refute_line --partial 'wakeup_events'
	run -0 "$UPROFILE" --dry-run -e cpu-clock ./python-fake
	refute_line --partial 'wakeup_events'
}

@test "call graphs: fp asks the kernel for user chains; kprofile -g for kernel chains only" {
	run -0 "$UPROFILE" --dry-run --call-graph=fp -e cpu-clock true
	assert_line '  sample_type 0x101a7'
	assert_line --partial 'exclude_callchain_user 0'
	refute_line --partial 'sample_regs_user'
	run -0 "$KPROFILE" --dry-run -g -e cpu-clock
	assert_line '  sample_type 0x101a7'
	assert_line --partial 'exclude_callchain_user 1'
	refute_line --partial 'sample_regs_user'
}

@test "call graphs: a bad mode or size is a usage error" {
	run -125 "$UPROFILE" --call-graph=lbr true
	assert_output --partial "bad --call-graph 'lbr'"
	run -125 "$UPROFILE" --call-graph=dwarf,70000 true
	assert_output --partial "bad --call-graph size"
	run -125 "$UPROFILE" --call-graph=fp,8192 true
	run -125 "$UPROFILE" -g --count true
	assert_output --partial "do not apply to --count"
}
