#!/usr/bin/env bats
# zsh completion (completions/_uprofile), driven through zsh's own
# completion system (compinit) in an interactive zsh on a pseudo-terminal:
# options, statistics and option values come from the tool's tables.

load helpers

setup() {
	common_setup
	command -v zsh >/dev/null || skip "zsh is missing (./setup.sh deps installs it)"
	PATH=$ROOT/$BUILD:$PATH
}

# complete LINE: the candidates zsh's completion offers at the end of LINE,
# one per line, sorted.  An interactive zsh runs compinit with our
# directory first in $fpath; compadd is wrapped to record what the
# completion functions add; a widget completes without listing or
# inserting, then prints a marker the driver waits for.  PIDFILE, when
# set, receives the inner shell's PID.
complete() {
	timeout 60 zsh -f -c '
		zmodload zsh/zpty || exit 2
		out=$PWD/.zsh-candidates
		: >$out
		zpty z zsh -f -i
		zpty -w z "bindkey -e; PS1=\"> \"; fpath=($ROOT/completions \$fpath); autoload -Uz compinit; compinit -u -D"
		[[ -n ${PIDFILE-} ]] && zpty -w z "print \$\$ >$PIDFILE"
		zpty -w z "compadd() { if (( \${@[(I)-[OAD]*]} )); then builtin compadd \"\$@\"; return; fi; local -a h; builtin compadd -O h \"\$@\"; (( \$#h )) && print -rl -- \$h >>$out; builtin compadd \"\$@\"; }"
		zpty -w z "_capc() { _main_complete; compstate[list]=\"\"; compstate[insert]=\"\"; }; zle -C capc complete-word _capc"
		zpty -w z "_cap() { zle capc; print -n -- __C\"\"DONE__ >&2; }; zle -N _cap; bindkey \"^T\" _cap"
		zpty -w -n z "$1"$'"'"'\C-t'"'"'
		zpty -r z buf "*__CDONE__*"
		zpty -d z
		sort -u $out
		rm -f $out
	' _ "$1"
}

@test "zsh: every option --help lists is completed, for both tools" {
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
	run -0 complete "kprofile -r"
	assert_line -- -ra
	assert_line -- -ra-routines
	# the --long spelling
	run -0 complete "uprofile --form"
	assert_output --format
}

@test "zsh: statistic names after -e (also in a list) and before the program" {
	run -0 complete "uprofile -e mispr"
	assert_line mispredict
	assert_line mispredict_per_ret
	# other names -l shows
	run -0 complete "uprofile -e instr"
	assert_output instructions
	run -0 complete "uprofile -e cycles,pm_cy"
	assert_output pm_cycles
	run -0 complete "uprofile --event=page-f"
	assert_output page-faults
	run -0 complete "uprofile cpu-c"
	assert_line cpu-clock
	run -0 complete "kprofile -e task-c"
	assert_output task-clock
}

@test "zsh: option values; none for numbers" {
	run -0 complete "uprofile --engine="
	assert_output $'perf\nsim'
	run -0 complete "uprofile --python="
	assert_output $'off\non\nread'
	run -0 complete "uprofile -python of"
	assert_output off
	run -0 complete "uprofile -format c"
	assert_output $'callgrind\ncsv'
	run -0 complete "uprofile -format s"
	assert_output speedscope
	run -0 complete "uprofile -format fi"
	assert_output firefox
	run -0 complete "uprofile -by comm,p"
	assert_output pid
	run -0 complete "uprofile -by tid,s"
	assert_output state
	run -0 complete "uprofile --pmu=a"
	assert_output $'amd-ibs\narm-spe\nauto'
	run -0 complete "uprofile -stride "
	assert_output ""
}

@test "zsh: -i offers profiles (and directories), -o any file" {
	mkdir dir
	touch umon.out umon.123.out a.umon k.kmon notes.txt
	run -0 complete "uprofile -i "
	assert_output $'a.umon\ndir\nk.kmon\numon.123.out\numon.out'
	run -0 complete "uprofile -o no"
	assert_output notes.txt
	run -0 complete "uprofile --dirname="
	assert_output dir
	run -0 complete "uprofile --archive no"
	assert_output notes.txt
	run -0 complete "uprofile --debug-dir "
	assert_output dir
}

@test "zsh: -p offers process IDs" {
	PIDFILE=$PWD/pid run -0 complete "uprofile -p "
	# zsh's _pids offers the processes of the terminal: the shell is one
	assert_line "$(<pid)"
	refute_line --regexp '[^0-9]'
}

@test "zsh: an option's value is not the program; the program's own arguments" {
	run -0 complete "uprofile -stride 4 -quit 3 cpu-cl"
	assert_line cpu-clock
	touch some-file
	run -0 complete "uprofile -e cpu-clock cat some-"
	assert_output some-file
	run -0 complete "uprofile cat -"
	refute_line -- -display
}

@test "zsh: native event names of the CPU libpfm4 knows, with their unit masks" {
	# a pinned model: the names come from libpfm4's Ice Lake tables
	LIBPFM_FORCE_PMU=icl run -0 complete "uprofile -e INST_RETIRED:AN"
	assert_output $'INST_RETIRED:ANY\nINST_RETIRED:ANY_P'
	# only -e takes them: not --start-after, not words before PROGRAM
	LIBPFM_FORCE_PMU=icl run -0 complete "uprofile -start-after INST_RETIRED:AN"
	assert_output ""
	LIBPFM_FORCE_PMU=icl run -0 complete "uprofile INST_RETIRED:AN"
	assert_output ""
}
