#!/usr/bin/env bats
# --archive OUT IN: the profile with the objects it sampled and their
# debug files, so that the file alone gives the same report where none of
# them exists.  "Elsewhere" here: the program deleted and /usr/lib/debug
# hidden under an empty tmpfs in a private mount namespace.

load helpers

setup() {
	common_setup
	skip_unless_perf_works
}

# profile_prog: a copy of spin2 (-g) as ./prog, profiled with stacks.
profile_prog() {
	cp "$TPROG/spin2" ./prog
	run -0 "$UPROFILE" -quiet -g -e cpu-clock ./prog 400
}

# rows FILE OPTION...: the JSON rows of the report, compact.
rows() {
	local f=$1
	shift
	"$UPROFILE" -i "$f" "$@" --format json 2>/dev/null |
		jq -c '[.rows[] | del(.cumulative_percent)], .call_stacks'
}

# elsewhere CMD...: run CMD where /usr/lib/debug is empty.
elsewhere() {
	unshare -m bash -c 'mount -t tmpfs none /usr/lib/debug && exec "$@"' \
		bash "$@"
}

@test "--archive: where neither the program nor libc's debug file exists, the same rows" {
	skip_unless_root
	profile_prog
	local v here=() archived=()
	for v in -procedures -lines "-callers hot_a" -tree; do
		here+=("$(rows umon.out $v)")
	done
	run -0 --separate-stderr "$UPROFILE" --archive packed.out umon.out
	[[ $stderr =~ archived\ ([0-9]+)\ objects?\ and\ ([0-9]+)\ debug ]] ||
		fail "stderr: $stderr"
	# prog and libc at least (and the vdso is not a file)
	((BASH_REMATCH[1] >= 2)) || fail "$stderr"
	rm prog
	export -f rows
	export UPROFILE
	for v in -procedures -lines "-callers hot_a" -tree; do
		archived+=("$(elsewhere bash -c 'rows packed.out $0' "$v")")
	done
	for i in "${!here[@]}"; do
		assert_equal "${archived[$i]}" "${here[$i]}"
	done
	# the rows do name the program's code and its lines
	[[ ${here[1]} == *'"procedure":"hot_a"'*'"file":"'*spin2.c'"'* ]] ||
		fail "lines: ${here[1]:0:300}"
	# and without the archive they would not
	run -0 elsewhere bash -c 'rows umon.out -procedures'
	[[ $output != *'"procedure":"hot_a"'* ]] || fail "hot_a without the archive"
}

@test "--archive: the unpacked files go to a private directory under TMPDIR, removed after the report" {
	profile_prog
	run -0 "$UPROFILE" -quiet --archive packed.out umon.out
	mkdir tmp
	TMPDIR=$PWD/tmp run -0 --separate-stderr "$UPROFILE" -i packed.out -lines
	assert_output --partial hot_a
	run -0 ls -A tmp
	assert_output ""
	# an archive archived again (its own files are where it looks), after
	# the program is gone: the same files
	rm prog
	run -0 --separate-stderr "$UPROFILE" -i packed.out --archive again.out
	[[ $stderr == *"archived "* ]] || fail "$stderr"
	assert_equal "$(rows again.out -lines)" "$(rows packed.out -lines)"
}

@test "--archive: an object rebuilt since the profile is named, not archived" {
	profile_prog
	cp "$TPROG/inline" prog
	run -0 --separate-stderr "$UPROFILE" --archive packed.out umon.out
	assert_equal "$stderr" "$(printf '%s\n' \
		"uprofile: '$PWD/prog' has another build-id here: not archived, its rows will be addresses" \
		"$(grep '^uprofile: archived' <<<"$stderr")")"
}

@test "--merge of two archives keeps the files of both" {
	profile_prog
	mv umon.out a.out
	run -0 "$UPROFILE" -quiet -g -e cpu-clock ./prog 300
	run -0 "$UPROFILE" -quiet --archive a.arch a.out
	run -0 "$UPROFILE" -quiet --archive b.arch umon.out
	run -0 "$UPROFILE" -quiet --merge sum.arch a.arch b.arch
	want=$(rows sum.arch -procedures)
	rm prog
	assert_equal "$(rows sum.arch -procedures)" "$want"
	[[ $want == *'"procedure":"hot_a"'* ]] || fail "$want"
}

@test "--archive: usage errors before anything is written" {
	profile_prog
	run -125 "$UPROFILE" --archive out.umon umon.out umon.out
	assert_output --partial "--archive OUT takes one profile"
	run -125 "$UPROFILE" --archive out.umon -report-file r.txt umon.out
	assert_output --partial "--archive writes a profile"
	run -125 "$UPROFILE" --archive out.umon --merge m.umon umon.out
	[[ ! -e out.umon && ! -e m.umon && ! -e r.txt ]]
	run -125 "$UPROFILE" --archive out.umon missing.umon
	[[ ! -e out.umon ]]
}

@test "--diff of two archives reads their files" {
	profile_prog
	mv umon.out a.out
	run -0 "$UPROFILE" -quiet -g -e cpu-clock ./prog 300
	run -0 "$UPROFILE" -quiet --archive a.arch a.out
	run -0 "$UPROFILE" -quiet --archive b.arch umon.out
	rm prog
	# (-v: the rows within noise too)
	run -0 "$UPROFILE" --diff -v a.arch b.arch --format json
	run -0 jq -r '[.rows[].procedure] | index("hot_a") != null' <<<"$output"
	assert_output true
	# without the files the program's code has no names
	run -0 "$UPROFILE" --diff -v a.out umon.out --format json
	run -0 jq -r '[.rows[].procedure] | index("hot_a") != null' <<<"$output"
	assert_output false
}
