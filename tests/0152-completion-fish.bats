#!/usr/bin/env bats
# fish completion (completions/uprofile.fish, kprofile.fish), driven by
# fish itself (complete -C): options, statistics and option values come
# from the tool's tables.

load helpers

setup() {
	common_setup
	command -v fish >/dev/null || skip "fish is missing (./setup.sh deps installs it)"
	PATH=$ROOT/$BUILD:$PATH
}

# complete LINE: the candidates fish offers at the end of LINE (without
# their descriptions), one per line, sorted.  fish runs with an empty home
# (no user configuration) and our directory first in fish_complete_path.
complete() {
	mkdir -p "$BATS_TEST_TMPDIR/.home"
	HOME=$BATS_TEST_TMPDIR/.home XDG_CONFIG_HOME=$BATS_TEST_TMPDIR/.home \
		XDG_DATA_HOME=$BATS_TEST_TMPDIR/.home timeout 60 fish -c '
		set fish_complete_path $ROOT/completions $fish_complete_path
		complete -C $argv[1]' "$1" | cut -f1 | sort -u
}

@test "fish: every option --help lists is completed, for both tools" {
	local tool opt n
	for tool in uprofile kprofile; do
		run -0 complete "$tool -"
		local offered=$output
		n=0
		for opt in $("$tool" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' |
			sed -E 's/.*--//'); do
			[[ $opt == help || $opt == version || $opt == usage ]] && continue
			grep -qx -- "-$opt" <<<"$offered" || fail "$tool: -$opt not completed"
			n=$((n + 1))
		done
		((n > 30)) || fail "only $n options in $tool --help"
	done
	run -0 complete "kprofile -ra"
	assert_output $'-ra\n-ra-routines'
	# the --long spelling
	run -0 complete "uprofile --form"
	assert_output --format
}

@test "fish: statistic names after -e (also in a list) and before the program" {
	run -0 complete "uprofile -e mispr"
	assert_line mispredict
	assert_line mispredict_per_ret
	# other names -l shows
	run -0 complete "uprofile -e instr"
	assert_line instructions
	# and, fish matching case-insensitively when it can, the CPU's
	# native names (INSTRUCTION_CACHE_REFILLS_FROM_L2 on AMD family 19h)
	[[ -z $(grep -vxE 'instructions|[A-Z][A-Z0-9_.]*' <<<"$output") ]] ||
		fail "unexpected: $output"
	run -0 complete "uprofile -e cycles,pm_cy"
	assert_output cycles,pm_cycles
	run -0 complete "uprofile --event=page-f"
	assert_output --event=page-faults
	run -0 complete "uprofile cpu-c"
	assert_line cpu-clock
	run -0 complete "kprofile -e task-c"
	assert_output task-clock
}

@test "fish: option values; none for numbers" {
	run -0 complete "uprofile --engine="
	assert_output $'--engine=perf\n--engine=sim'
	run -0 complete "uprofile --python="
	assert_output $'--python=off\n--python=on\n--python=read'
	run -0 complete "uprofile -python of"
	assert_output off
	run -0 complete "uprofile -format c"
	assert_output $'callgrind\ncsv'
	run -0 complete "uprofile -format s"
	assert_output speedscope
	run -0 complete "uprofile -format fi"
	assert_output firefox
	run -0 complete "uprofile -by comm,p"
	assert_output comm,pid
	run -0 complete "uprofile -by tid,s"
	assert_output tid,state
	run -0 complete "uprofile --pmu=a"
	assert_output $'--pmu=amd-ibs\n--pmu=arm-spe\n--pmu=auto'
	run -0 complete "uprofile -stride "
	assert_output ""
}

@test "fish: -i offers profiles (and directories), -o any file" {
	mkdir dir
	touch umon.out umon.123.out a.umon k.kmon notes.txt
	run -0 complete "uprofile -i "
	assert_output $'a.umon\ndir/\nk.kmon\numon.123.out\numon.out'
	run -0 complete "uprofile --input=a"
	assert_output --input=a.umon
	run -0 complete "uprofile -o no"
	assert_output notes.txt
	run -0 complete "uprofile --dirname="
	assert_output --dirname=dir/
	run -0 complete "uprofile --merge no"
	assert_output notes.txt
	run -0 complete "uprofile --symfs="
	assert_output --symfs=dir/
}

@test "fish: -p offers process IDs" {
	sleep 60 &
	BG_PIDS+=($!)
	run -0 complete "uprofile -p "
	assert_line "$!"
	refute_line --regexp '[^0-9]'
}

@test "fish: an option's value is not the program; the program's own arguments" {
	run -0 complete "uprofile -stride 4 -quit 3 cpu-cl"
	assert_line cpu-clock
	touch some-file
	run -0 complete "uprofile -e cpu-clock cat some-"
	assert_output some-file
	run -0 complete "uprofile cat -"
	refute_line -- -display
	assert_line --regexp '^--?[a-z]'
}

@test "fish: native event names of the CPU libpfm4 knows, with their unit masks" {
	# a pinned model: the names come from libpfm4's Ice Lake tables
	LIBPFM_FORCE_PMU=icl run -0 complete "uprofile -e INST_RETIRED:AN"
	assert_output $'INST_RETIRED:ANY\nINST_RETIRED:ANY_P'
	# only -e takes them: not --start-after, not words before PROGRAM
	LIBPFM_FORCE_PMU=icl run -0 complete "uprofile -start-after INST_RETIRED:AN"
	assert_output ""
	LIBPFM_FORCE_PMU=icl run -0 complete "uprofile INST_RETIRED:AN"
	assert_output ""
}
