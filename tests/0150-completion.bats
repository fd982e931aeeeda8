#!/usr/bin/env bats
# Bash completion (completions/uprofile.bash): options, which of them take
# a value, and statistic names all come from the tool's own tables.

load helpers

setup() {
	common_setup
	[[ -r /usr/share/bash-completion/bash_completion ]] ||
		skip "bash-completion is missing (./setup.sh deps installs it)"
}

# complete WORD...: what bash completion offers for the last WORD of the
# command line WORD... (the first is the tool), one per line, sorted.
complete() {
	bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$ROOT/completions/uprofile.bash"
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_profile_tool_complete
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$@" | sort -u
}

@test "every option --help lists is completed, for both tools" {
	local tool opt n
	for tool in "$UPROFILE" "$KPROFILE"; do
		run -0 complete "$tool" -
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
	# kprofile's own option
	run -0 complete "$KPROFILE" -r
	assert_line -- -ra
	assert_line -- -ra-routines
}

@test "statistic names after -e and as words before the program" {
	run -0 complete "$UPROFILE" -e mispr
	assert_line mispredict
	assert_line mispredict_per_ret
	run -0 complete "$UPROFILE" -e pm_cy
	assert_output pm_cycles
	run -0 complete "$UPROFILE" cpu-c
	assert_line cpu-clock
	# the sim engine's names that the table spells otherwise are there too
	run -0 complete "$UPROFILE" --engine=sim -e retin
	assert_line retinst
}

@test "option values: engines, formats, PMU families, --python; none for numbers" {
	run -0 complete "$UPROFILE" --engine=
	assert_output $'perf\nsim'
	run -0 complete "$UPROFILE" -engine ""
	assert_output $'perf\nsim'
	run -0 complete "$UPROFILE" --python=
	assert_output $'off\non\nread'
	run -0 complete "$UPROFILE" -python o
	assert_output $'off\non'
	run -0 complete "$UPROFILE" --python=of
	assert_output off
	run -0 complete "$UPROFILE" -format j
	assert_output json
	run -0 complete "$UPROFILE" --format=c
	assert_output $'callgrind\ncsv'
	run -0 complete "$UPROFILE" --format=s
	assert_output speedscope
	run -0 complete "$UPROFILE" --format=fi
	assert_output firefox
	run -0 complete "$UPROFILE" -by c
	assert_output $'comm\ncpu'
	run -0 complete "$UPROFILE" -by comm,p
	assert_output comm,pid
	run -0 complete "$UPROFILE" -by tid,s
	assert_output tid,state
	run -0 complete "$UPROFILE" --pmu=a
	assert_output $'amd-ibs\narm-spe\nauto'
	run -0 complete "$UPROFILE" -stride ""
	assert_output ""
	run -0 complete "$UPROFILE" -start-after page-f
	assert_output page-faults
}

@test "an option's value is not taken for the program" {
	# "4" is -stride's value, so the next word still completes statistics
	run -0 complete "$UPROFILE" -stride 4 -quit 3 cpu-cl
	assert_line cpu-clock
	# after the program, its own arguments: files, not our options
	touch some-file
	run -0 complete "$UPROFILE" -e cpu-clock gzip some-
	assert_output some-file
	run -0 complete "$UPROFILE" gzip -
	refute_output --partial -- -display
}

@test "-i offers profiles (and directories), -o any file" {
	mkdir dir
	touch umon.out umon.123.out a.umon k.kmon notes.txt
	run -0 complete "$UPROFILE" -i ""
	assert_output $'a.umon\ndir\nk.kmon\numon.123.out\numon.out'
	run -0 complete "$UPROFILE" -o no
	assert_output notes.txt
	# --archive and --merge write a file; --symfs, --debug-dir are dirs
	run -0 complete "$UPROFILE" --archive no
	assert_output notes.txt
	run -0 complete "$UPROFILE" --symfs ""
	assert_output dir
}

@test "-p offers process IDs, a running one among them" {
	sleep 60 &
	local pid=$!
	BG_PIDS+=("$pid")
	run -0 complete "$UPROFILE" -p ""
	assert_line "$pid"
	assert_line 1
	refute_line --regexp '[^0-9]'
	run -0 complete "$KPROFILE" -p ""
	assert_line "$pid"
}

@test "native event names of the CPU libpfm4 knows, with their unit masks" {
	# a pinned model: the names come from libpfm4's Ice Lake tables
	LIBPFM_FORCE_PMU=icl run -0 complete "$UPROFILE" -e INST_RETIRED:AN
	# bash replaces the word after the colon (a word break)
	assert_output $'ANY\nANY_P'
	# only -e takes them: not --start-after, not words before PROGRAM
	LIBPFM_FORCE_PMU=icl run -0 complete "$UPROFILE" --start-after INST_RETIRED:AN
	assert_output ""
	LIBPFM_FORCE_PMU=icl run -0 complete "$UPROFILE" INST_RETIRED:AN
	assert_output ""
}
