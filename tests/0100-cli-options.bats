#!/usr/bin/env bats
# uprofile command line: help, version, option spellings, usage errors.

load helpers

# Make the assert_* helpers look at the stderr of the last
# "run --separate-stderr" (bats-assert 2.1 has no assert_stderr).
use_stderr() {
	output=$stderr
	lines=("${stderr_lines[@]}")
}

# A small profile of spin2 in ./spin2.out, for the tests that only read.
make_profile() {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -o spin2.out "$TPROG/spin2" 200
	[[ -s spin2.out ]]
}

@test "--help shows the examples and the exit-status table" {
	run -0 --separate-stderr "$UPROFILE" --help
	assert_equal "$stderr" ""
	assert_line --index 0 --regexp '^Usage: uprofile \[OPTION\.\.\.\] '
	assert_line 'Examples:'
	assert_line --regexp '^  uprofile \./prog args +profile, write umon\.out'
	assert_line --regexp '^  uprofile -display \./prog '
	assert_line --regexp '^  uprofile -p 1234 -d 10 +attach to process 1234'
	assert_line --regexp '^  uprofile -i umon\.out -lines '
	assert_line '  uprofile -i umon.out --format json'
	assert_line 'Exit status:'
	assert_line --regexp "^  N +the program's exit status"
	assert_line --regexp '^  128\+N +the program was killed by signal N$'
	assert_line --regexp '^  125 +uprofile itself failed'
	assert_line --regexp '^  126 +the program was found but could not be run$'
	assert_line --regexp '^  127 +the program was not found$'
}

@test "-help and -? are --help" {
	run -0 "$UPROFILE" --help
	local want=$output
	run -0 "$UPROFILE" -help
	assert_equal "$output" "$want"
	run -0 "$UPROFILE" '-?'
	assert_equal "$output" "$want"
}

@test "--version prints 'uprofile X.Y.Z', the version of the build" {
	local ver
	ver=$(<"$ROOT/VERSION")
	[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	run -0 --separate-stderr "$UPROFILE" --version
	assert_output "uprofile $ver"
	assert_equal "$stderr" ""
	run -0 "$UPROFILE" -version
	assert_output "uprofile $ver"
	run -0 "$UPROFILE" -V
	assert_output "uprofile $ver"
}

@test "single-dash long options equal --long options (-quit 1 / --quit=1)" {
	make_profile
	run -0 "$UPROFILE" -i spin2.out -quit 1 -numbers
	local tru64=$output
	# One row, hot_a: the test must be able to see a difference.
	assert_equal "$(grep -Ec '^ +[0-9.]+ +[0-9]+ +[0-9.]+ ' <<<"$output")" 1
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ +0x[0-9a-f]+ +hot_a +spin2$'
	run -0 "$UPROFILE" --input=spin2.out --quit=1 --numbers
	assert_equal "$output" "$tru64"
	run -0 "$UPROFILE" --input spin2.out --quit 1 --numbers
	assert_equal "$output" "$tru64"
	run -0 "$UPROFILE" -i spin2.out -quit=1 -numbers
	assert_equal "$output" "$tru64"
}

@test "single-dash and --long options give the same JSON rows" {
	make_profile
	run -0 "$UPROFILE" -i spin2.out -heavy -quit 2 -format json
	local a
	local q='[.view, (.rows[] | [.procedure, .file, .line, .address])]'
	a=$(jq -c "$q" <<<"$output")
	run -0 "$UPROFILE" --input=spin2.out --heavy --quit=2 --format=json
	assert_equal "$(jq -c "$q" <<<"$output")" "$a"
	[[ $a == '["heavy",["hot_a",'*'],['*']]' ]]
}

@test "an unknown option: status 125 and a usage hint on stderr" {
	run -125 --separate-stderr "$UPROFILE" --no-such-option "$TPROG/exitwith" 0
	assert_output ""
	use_stderr
	assert_line --index 0 --partial "'--no-such-option'"
	assert_line --partial 'uprofile --help'
	run -125 --separate-stderr "$UPROFILE" -nosuchoption "$TPROG/exitwith" 0
	use_stderr
	assert_line --partial 'uprofile --help'
	[[ ! -e umon.out ]]
}

# bad_value ERROR-WORD VALUE OPTIONS...
# The options are rejected with status 125 and one line naming VALUE,
# followed by at most the usage hint; nothing runs, nothing is written.
bad_value() {
	local word=$1 value=$2
	shift 2
	run -125 --separate-stderr "$UPROFILE" "$@"
	assert_output ""
	use_stderr
	assert_line --index 0 --regexp "^uprofile: .*$word.*'$value'"
	if ((${#lines[@]} > 1)); then
		assert_equal "${#lines[@]}" 2
		assert_line --index 1 --partial 'uprofile --help'
	fi
	[[ ! -e umon.out ]]
}

@test "bad numbers are rejected with 125 and a one-line error naming the value" {
	local p=$TPROG/exitwith
	bad_value 'process id' abc -p abc
	bad_value 'process id' 0 -p 0
	bad_value 'process id' -3 -p -3
	bad_value frequency 0 -F 0 "$p"
	bad_value frequency x -F x "$p"
	bad_value frequency 10kHz -F 10kHz "$p"
	bad_value frequency 1000001 --freq=1000001 "$p"
	bad_value period -5 -c -5 "$p"
	bad_value period 0 -c 0 "$p"
	bad_value period 1e3 -c 1e3 "$p"
	bad_value duration nope -p 1 -d nope
	bad_value duration 0 -p 1 -d 0
	bad_value quit 0 -quit 0 "$p"
	bad_value quit abc -quit abc "$p"
	bad_value quit 200% -quit 200% "$p"
	bad_value format xml --format xml "$p"
}

@test "-i with a program or -p is a usage error (125)" {
	make_profile
	run -125 --separate-stderr "$UPROFILE" -i spin2.out "$TPROG/exitwith" 3
	use_stderr
	assert_line --index 0 --partial '-i'
	assert_line --index 0 --partial 'cannot be combined'
	run -125 --separate-stderr "$UPROFILE" -i spin2.out -p 1
	use_stderr
	assert_line --index 0 --partial 'cannot be combined'
}

@test "no program is a usage error (125)" {
	run -125 --separate-stderr "$UPROFILE"
	assert_output ""
	use_stderr
	assert_line --index 0 --partial 'no program to profile'
	assert_line --partial 'uprofile --help'
	# Options alone, or only statistic words, are no program either.
	run -125 --separate-stderr "$UPROFILE" -quiet -F 100
	use_stderr
	assert_line --index 0 --partial 'no program to profile'
	run -125 --separate-stderr "$UPROFILE" cpu-clock
	use_stderr
	assert_line --index 0 --partial 'no program to profile'
	[[ ! -e umon.out ]]
}

@test "-p with a program, and -d with a program, are usage errors (125)" {
	run -125 --separate-stderr "$UPROFILE" -p 1 "$TPROG/exitwith" 0
	use_stderr
	assert_line --index 0 --partial 'not both'
	run -125 --separate-stderr "$UPROFILE" -d 1 "$TPROG/exitwith" 0
	use_stderr
	assert_line --index 0 --partial '-d'
	[[ ! -e umon.out ]]
}

@test "options after PROGRAM belong to the program" {
	skip_unless_perf_works
	# exitwith rejects -quiet with status 2 and its own usage message.
	run -2 --separate-stderr "$UPROFILE" -quiet "$TPROG/exitwith" -quiet
	use_stderr
	assert_line --partial 'usage: exitwith'
	run -4 "$UPROFILE" -quiet "$TPROG/exitwith" 4
	assert_output ""
}

@test "each tool's --help lists only what it accepts: -p, --engine, -pixie" {
	run -0 "$UPROFILE" --help
	assert_line --regexp '^  -p, --pid=PID +attach to a running process and its threads$'
	assert_line --regexp '^      --engine=perf\|sim '
	assert_line --regexp '^      --pixie '
	run -0 "$KPROFILE" --help
	assert_line --regexp '^  -p, --pid=PID +profile until process PID exits \(instead of$'
	assert_line '  or:  kprofile [OPTION...] -p PID'
	refute_line --partial -- '--engine'
	refute_line --partial -- '--pixie'
	# -p is under "What to profile:" in both (with -d, -t: what to
	# profile and for how long)
	for tool in "$UPROFILE" "$KPROFILE"; do
		run -0 "$tool" --help
		local group="" l
		for l in "${lines[@]}"; do
			[[ $l == " "[A-Z]*: ]] && group=$l
			[[ $l == "  -p, --pid=PID"* ]] && break
		done
		assert_equal "$group" " What to profile:"
	done
}

# help_group TEXT OPTION: the heading of the group a --help output lists
# OPTION (-x or --long) under, without its colon and " (note)".
help_group() {
	local line group=""
	while IFS= read -r line; do
		[[ $line == Examples:* ]] && break
		if [[ $line =~ ^\ ([A-Z][^:]*):$ ]]; then
			group=${BASH_REMATCH[1]%% (*}
		elif [[ $line =~ ^\ \ (-[^-\ ])(,\ (--[a-z][a-z-]*))?([=\ ]|$)|^\ {6}(--[a-z][a-z-]*)([=\ ]|$) ]] &&
			[[ $2 == "${BASH_REMATCH[1]}" || $2 == "${BASH_REMATCH[3]}" ||
				$2 == "${BASH_REMATCH[5]}" ]]; then
			printf '%s\n' "$group"
			return 0
		fi
	done <<<"$1"
	return 1
}

@test "--help groups the options by what the user is doing" {
	local tool o want
	for tool in "$UPROFILE" "$KPROFILE"; do
		run -0 "$tool" --help
		local help=$output
		# the headings, in this order (man/*.1 has them too: 0160)
		run -0 grep -E '^ [A-Z][^:]*:$' <<<"$help"
		assert_output "$(printf ' %s\n' 'What to profile:' \
			'Statistics and sampling:' 'Output files:' \
			'Reports (the views and filters imply -display; -by does not):' \
			'Combining profiles:' 'Symbols and debug information:' \
			'Messages:' 'Help:')"
		while read -r want o; do
			want=${want//_/ }
			run -0 help_group "$help" "$o"
			[[ $output == "$want" ]] ||
				fail "$tool: $o is under '$output', not '$want'"
		done <<-'EOF'
		What_to_profile -p
		What_to_profile -d
		What_to_profile -t
		What_to_profile --control
		What_to_profile --start-after
		What_to_profile --kernel
		What_to_profile --user
		Statistics_and_sampling -e
		Statistics_and_sampling -F
		Statistics_and_sampling -c
		Statistics_and_sampling -g
		Statistics_and_sampling --call-graph
		Statistics_and_sampling --count
		Statistics_and_sampling -l
		Statistics_and_sampling --dry-run
		Output_files -o
		Output_files --dirname
		Output_files --pids
		Output_files --each
		Output_files --one
		Reports -i
		Reports --display
		Reports --lines
		Reports --quit
		Reports --by
		Reports --format
		Reports --report-file
		Reports --ra
		Combining_profiles --merge
		Combining_profiles --diff
		Combining_profiles --archive
		Combining_profiles --alpha
		Combining_profiles --fail-above
		Symbols_and_debug_information --symfs
		Symbols_and_debug_information --debug-dir
		Symbols_and_debug_information --no-debuginfod
		Messages -v
		Messages --quiet
		Help --help
		Help --version
		EOF
	done
	# each tool's own options under the group of what they do
	local help
	help=$("$UPROFILE" --help)
	for o in --engine --pixie; do
		run -0 help_group "$help" "$o"
		assert_output "Statistics and sampling"
	done
	help=$("$KPROFILE" --help)
	run -0 help_group "$help" -k
	assert_output "Symbols and debug information"
	run -0 help_group "$help" --ra-routines
	assert_output "Reports"
	# the checks see an option that is missing
	run -1 help_group "$help" --pixie
}

@test "options are recorded, then acted on: -l gives the same list wherever it is" {
	local a b
	run -0 "$UPROFILE" -l --engine=sim
	a=$output
	run -0 "$UPROFILE" --engine=sim -l
	b=$output
	assert_equal "$a" "$b"
	assert_line --index 0 --regexp '^statistic +here +other names +description \(--engine=sim\)$'
	# -l needs no program, and the checks of a run do not apply to it
	run -0 "$UPROFILE" -l --count -F 100
	assert_line --regexp '^Software events'
	# the completion helper likewise, and it lists the tool's own options
	run -0 "$KPROFILE" -o x --completion-helper
	assert_line -- -ra-routines=
	assert_line -- -pid=
	refute_line -- -engine=
}

@test "kprofile -ra-routines takes any number of patterns" {
	local list i
	list=p0
	for ((i = 1; i < 100; i++)); do list+=",p$i"; done
	# 100 patterns match no routine: the run is refused for that, not
	# for their number
	skip_unless_perf_works
	run -125 --separate-stderr "$KPROFILE" -quiet -ra-routines "$list" -d 0.1
	[[ $stderr != *"needs the kernel's symbols"* ]] ||
		skip "kernel symbols are hidden here: $stderr"
	assert_equal "$stderr" "kprofile: -ra: no kernel routine matches the list ('p0', ...)"
}
