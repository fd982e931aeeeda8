#!/usr/bin/env bats
# The sim engine (--engine=sim: exact counts from valgrind) and -pixie.

load helpers

setup() {
	common_setup
	command -v valgrind >/dev/null ||
		skip "valgrind is not installed (./setup.sh deps installs it)"
}

# weight PROC STAT [FILE]: PROC's exact count of STAT, summed over rows.
weight() {
	"$UPROFILE" -i "${3:-umon.out}" --format json |
		jq -e --arg p "$1" --arg s "$2" \
			'[.rows[] | select(.procedure == $p) | .weight[$s]] | add // 0'
}

@test "sim: exact counts of loops with known trip counts equal the hand-computed ones" {
	local n
	for n in 1000 37; do
		run -0 "$UPROFILE" --engine=sim -quiet -o "t$n.out" \
			retinst loads stores condbranches "$TPROG/tripcount" "$n"
		# tripcount.c: loop_a(n) x10 = 4n+2 instructions, n+1 loads,
		# n stores, n conditional branches per call; loop_b(3n) x5 =
		# 6n+1 instructions, 1 load, 3n conditional branches per call.
		assert_equal "$(weight loop_a retinst "t$n.out")" $((10 * (4 * n + 2)))
		assert_equal "$(weight loop_a loads "t$n.out")" $((10 * (n + 1)))
		assert_equal "$(weight loop_a stores "t$n.out")" $((10 * n))
		assert_equal "$(weight loop_a condbranches "t$n.out")" $((10 * n))
		assert_equal "$(weight loop_b retinst "t$n.out")" $((5 * (6 * n + 1)))
		assert_equal "$(weight loop_b loads "t$n.out")" 5
		assert_equal "$(weight loop_b stores "t$n.out")" 0
		assert_equal "$(weight loop_b condbranches "t$n.out")" $((15 * n))
	done
	# every event is a sample: samples == weight, for rows and totals
	run -0 "$UPROFILE" -i t1000.out --format json
	json_check <<<"$output"
	assert_equal "$(jq '[.rows[] | select(.samples != .weight)] | length' <<<"$output")" 0
	assert_equal "$(jq -c '[.statistics[] | .samples == .weight and .simulated]
		| unique' <<<"$output")" '[true]'
	# the per-line view agrees: all of loop_a is its asm statement
	run -0 "$UPROFILE" -i t1000.out --format json -lines
	assert_equal "$(jq '[.rows[] | select(.procedure == "loop_a") | .weight.retinst] | add' <<<"$output")" 40020
}

@test "sim: every instruction of the program has its block's exact count; PLT stubs count for themselves" {
	run -0 "$UPROFILE" --engine=sim -quiet "$TPROG/demo" 0.02
	run -0 "$UPROFILE" -i umon.out --format json -asm
	json_check <<<"$output"
	local json=$output
	# freq is the count averaged over the block: with exact counts it
	# equals each instruction's own count, unless a boundary is wrong or
	# another instruction's cost was charged to it (callgrind charges a
	# PLT stub's to the call unless told otherwise)
	assert_equal "$(jq --arg o "$TPROG/demo" '[.rows[] | select(.object == $o)
		| .instructions[] | select(.weight.retinst > 0)] | length' <<<"$json")" \
		"$(jq --arg o "$TPROG/demo" '[.rows[] | select(.object == $o)
		| .instructions[] | select(.weight.retinst > 0)
		| select(.freq == .weight.retinst)] | length' <<<"$json")"
	run -0 "$UPROFILE" -i umon.out --format json
	run -0 jq -r --arg o "$TPROG/demo" \
		'.rows[] | select(.object == $o) | .procedure' <<<"$output"
	assert_line memcpy@plt
	# in the listing a stub is a procedure of its own: its instructions
	# are those objdump lists under <memcpy@plt>
	local want
	want=$(objdump -d --no-show-raw-insn "$TPROG/demo" |
		awk '/<memcpy@plt>:/ { f = 1; next } /^$/ { f = 0 }
		     f { sub(":", "", $1); printf "0x%s ", $1 }')
	[[ -n $want ]] || fail "objdump shows no memcpy@plt in demo"
	# (libc has a memcpy@plt of its own: the IFUNC's stub)
	run -0 "$UPROFILE" -i umon.out --format json -asm -only memcpy@plt
	assert_equal "$(jq -r --arg o "$TPROG/demo" '[.rows[] | select(.object == $o) |
		.instructions[].address] | join(" ")' <<<"$output") " "$want"
}

@test "sim: two runs of a deterministic program give identical counts" {
	local stats="retinst loads stores icachemisses dcachemisses bcachemisses condbranches indbranches mispredict"
	local k
	for k in 1 2; do
		# shellcheck disable=SC2086
		run -0 "$UPROFILE" --engine=sim -quiet -o "d$k.out" $stats \
			"$TPROG/branchy" random
		assert_output "201560"
		"$UPROFILE" -i "d$k.out" --format json -lines |
			jq -S '{statistics: [.statistics[] | del(.time_enabled_ns, .time_running_ns)], rows}' >"d$k.json"
	done
	run -0 cmp d1.json d2.json
	# per procedure too (the default view), every statistic
	"$UPROFILE" -i d1.out --format json | jq -c '.rows[] | [.procedure, .object, .weight]' >r1
	"$UPROFILE" -i d2.out --format json | jq -c '.rows[] | [.procedure, .object, .weight]' >r2
	run -0 cmp r1 r2
	[[ $(wc -l <r1) -gt 100 ]]
}

@test "sim: simulated mispredicts per 100 instructions, random vs sorted input" {
	local mode ratio_random ratio_sorted
	for mode in random sorted; do
		run -0 "$UPROFILE" --engine=sim -quiet -o "$mode.out" \
			retinst mispredict "$TPROG/branchy" "$mode"
	done
	# mispredict_per_ret = 100 * mispredict / retinst in count_big
	ratio() {
		"$UPROFILE" -i "$1" --format json | jq -e '[.rows[]
			| select(.procedure == "count_big") | .weight] as $w
			| 100 * ($w | map(.mispredict) | add) / ($w | map(.retinst) | add)'
	}
	ratio_random=$(ratio random.out)
	ratio_sorted=$(ratio sorted.out)
	echo "# count_big mispredict_per_ret: random $ratio_random, sorted $ratio_sorted" >&3
	# the same instructions either way
	assert_equal "$(weight count_big retinst random.out)" "$(weight count_big retinst sorted.out)"
	# about one mispredict per two of its ~12 instructions per element on
	# random bytes; a handful in all on sorted ones
	awk -v r="$ratio_random" -v s="$ratio_sorted" 'BEGIN { exit !(r > 4 && r > 100 * s) }'
}

@test "sim and perf agree on the hottest procedures of an even-cost program" {
	skip_unless_perf_works
	# perf: cpu-clock samples; sim: exact instructions (fewer iterations:
	# valgrind runs it ~100 times slower; the shares do not depend on N)
	run -0 "$UPROFILE" -quiet -o perf.out -e cpu-clock "$TPROG/evencost" 200000000
	run -0 "$UPROFILE" --engine=sim -quiet -o sim.out "$TPROG/evencost" 2000000
	local p s proc
	echo "# procedure   perf cpu-clock %   sim retinst %" >&3
	for proc in work_a work_b; do
		p=$("$UPROFILE" -i perf.out --format json | json_share "$proc" cpu-clock -)
		s=$("$UPROFILE" -i sim.out --format json | json_share "$proc" retinst -)
		echo "# $proc        $p            $s" >&3
		assert_near "$p" "$s" 6
	done
	# the same two hottest procedures, in the same order, in the same object
	local top_p top_s
	top_p=$("$UPROFILE" -i perf.out --format json -quit 2 | jq -c '[.rows[] | [.procedure, .object]]')
	top_s=$("$UPROFILE" -i sim.out --format json -quit 2 | jq -c '[.rows[] | [.procedure, .object]]')
	assert_equal "$top_p" "$top_s"
	assert_equal "$top_s" "[[\"work_a\",\"$TPROG/evencost\"],[\"work_b\",\"$TPROG/evencost\"]]"
}

@test "sim: descendants: a forked and exec'd child, and -pids" {
	run -0 "$UPROFILE" --engine=sim -quiet "$TPROG/forkexec" 100
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -r '.rows[] | select(.procedure == "parent_spin") | .object' <<<"$output")" \
		"$TPROG/forkexec"
	assert_equal "$(jq -r '[.rows[] | select(.procedure | startswith("hot_")) | .object] | unique[]' <<<"$output")" \
		"$TPROG/spin2"
	assert_equal "$(jq -c .command <<<"$output")" "[\"$TPROG/forkexec\",\"100\"]"
	# no row for valgrind's own code
	assert_equal "$(jq '[.rows[] | select(.object | test("valgrind|vgpreload|unknown"))] | length' <<<"$output")" 0

	# -n: fork without exec, one file per process; the child does not
	# repeat its parent's startup (callgrind dumps before each fork)
	run -0 "$UPROFILE" --engine=sim -quiet -pids "$TPROG/forkexec" -n 50
	local files=(umon.*.out)
	assert_equal "${#files[@]}" 2
	local parent=${files[0]} child=${files[1]}
	assert [ "$(weight parent_spin retinst "$parent")" -gt 100000 ]
	assert_equal "$(weight child_spin retinst "$parent")" 0
	assert [ "$(weight child_spin retinst "$child")" -gt 100000 ]
	assert_equal "$(weight parent_spin retinst "$child")" 0
	# ld.so's start-up: __tunables_init, which glibc's symbol table
	# names by its internal alias __GI___tunables_init
	local tun=__tunables_init
	[[ $("$UPROFILE" -i "$parent" --format json | jq -r '.rows[].procedure') == *__GI___tunables_init* ]] &&
		tun=__GI___tunables_init
	assert_equal "$(weight $tun retinst "$child")" 0
	assert [ "$(weight $tun retinst "$parent")" -gt 1000 ]
}

@test "sim: an argument with spaces, a forked subshell: every instruction placed, PLT stubs named" {
	# valgrind's log escapes the command's spaces and backslashes and
	# writes a tab or newline as '_', callgrind writes a newline as \n;
	# the subshell's log names none of the objects it inherited from its
	# parent
	run -0 "$UPROFILE" --engine=sim -quiet -pids bash -c \
		'x=$(for i in $(seq 200); do echo $i; done); echo ${#x} # \a	b
# \n, a second line'
	assert_output 691
	local f n=0
	for f in umon.*.out; do
		run -0 "$UPROFILE" -i "$f" --format json
		assert_equal "$(jq '[.rows[] | select(.object == "[unknown]")] | length' <<<"$output")" 0
		n=$((n + 1))
	done
	# bash, the subshell, seq
	((n >= 3)) || fail "only $n processes"
	run -0 "$UPROFILE" --engine=sim -quiet bash -c \
		'x=$(for i in $(seq 200); do echo $i; done); echo ${#x}'
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq '[.rows[] | select(.object == "[unknown]")] | length' <<<"$output")" 0
	run -0 jq -r '.rows[] | select(.procedure | endswith("@plt")) | .procedure' <<<"$output"
	assert_line malloc@plt
}

@test "sim: a shared library's code is keyed like perf's: library rows and source lines" {
	run -0 "$UPROFILE" --engine=sim -quiet "$TPROG/shlib" 50
	run -0 "$UPROFILE" -i umon.out --format json -heavy -quit 4
	# shlib.c and libhot.c: the busy loops are lines 41 and 36 (and
	# their for lines, 40 and 35)
	assert_equal "$(jq -c '[.rows[] | [.procedure, (.object | split("/") | last), (.file | split("/") | last), .line]] | sort' <<<"$output")" \
		'[["lib_hot_loop","libhot.so","libhot.c",35],["lib_hot_loop","libhot.so","libhot.c",36],["main_part","shlib","shlib.c",40],["main_part","shlib","shlib.c",41]]'
}

@test "sim: the program keeps stdin, stdout, stderr and its exit status" {
	run -3 --separate-stderr "$UPROFILE" --engine=sim -quiet "$TPROG/exitwith" 3
	assert_output ""
	run -0 --separate-stderr "$UPROFILE" --engine=sim -quiet "$TPROG/exitwith" -i <<<"hello"
	assert_output "hello"
	assert_equal "$stderr" "err"
	run -143 "$UPROFILE" --engine=sim -quiet "$TPROG/exitwith" -s TERM
	[[ -s umon.out ]]
}

@test "sim: the text report's columns: each statistic named over its own, exact counts as 'count'" {
	run -0 "$UPROFILE" --engine=sim -quiet -o two.out retinst \
		condmispredict "$TPROG/branchy" random
	run -0 "$UPROFILE" -i two.out -quit 3 -average
	local i
	for ((i = 0; i < ${#lines[@]}; i++)); do
		[[ ${lines[i]} == procedures* ]] && break
	done
	# the names line, then the column labels, then the rows
	assert_regex "${lines[i + 1]}" '^ +retinst +condmispredict$'
	assert_regex "${lines[i + 2]}" '^ +% +count +% +count +retinst/exec +condmispredict/exec +cum% +procedure +object$'
	# ends LINE N: the columns where LINE's first N fields end
	ends() {
		awk -v n="$2" '{ s = $0; p = 0
			for (f = 1; f <= n; f++) {
				match(s, /[^ ]+/); p += RSTART + RLENGTH - 1
				printf "%d ", p; s = substr(s, RSTART + RLENGTH)
			} }' <<<"$1"
	}
	# every name, label and figure of a statistic ends in the same
	# column: names over the counts, labels over the figures
	local labels
	labels=$(ends "${lines[i + 2]}" 7)
	assert_equal "$(ends "${lines[i + 1]}" 2)" "$(cut -d' ' -f2,4 <<<"$labels") "
	assert_equal "$(ends "${lines[i + 3]}" 7)" "$labels"
	assert_equal "$(ends "${lines[i + 4]}" 7)" "$labels"
	# a sampled statistic's figures are samples
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o one.out "$TPROG/tripcount" 10
	run -0 "$UPROFILE" -i one.out
	assert_line --regexp '^ +% +samples +cum% +procedure +object$'
}

@test "sim: the report and JSON mark statistics as simulated" {
	run -0 "$UPROFILE" --engine=sim -quiet -display "$TPROG/tripcount" 10
	assert_line --partial "  retinst (simulated), user mode, exact counts: "
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -c '.statistics[] | [.name, .requested, .simulated, .substitute]' <<<"$output")" \
		'["retinst","retinst",true,false]'
	run -0 "$UPROFILE" --engine=sim "$TPROG/tripcount" 10
	assert_line --regexp '^uprofile: [0-9]+ events counted \(retinst, simulated by valgrind\); 1 profile written \(umon.out\)$'
}

@test "sim: valgrind missing at run time is a clear error" {
	run -125 env PATH=/nonexistent "$UPROFILE" --engine=sim "$TPROG/tripcount"
	assert_output "uprofile: the sim engine needs valgrind: not found on PATH (install the valgrind package)"
	[[ ! -e umon.out ]]
	run -125 env PATH=/nonexistent "$UPROFILE" -pixie "$TPROG/tripcount"
	assert_output "uprofile: the sim engine needs valgrind: not found on PATH (install the valgrind package)"
}

@test "sim: statistics it cannot give, and options that do not apply" {
	run -125 "$UPROFILE" --engine=sim cycles "$TPROG/tripcount"
	assert_output "uprofile: 'cycles' is not available with the sim engine (valgrind counts and simulates instructions, caches and branches, not time or kernel events); it provides retinst, loads, stores, icachemisses, dcachemisses, bcachemisses, condbranches, indbranches, mispredict, condmispredict, indmispredict"
	run -125 "$UPROFILE" --engine=sim -e retinst:k "$TPROG/tripcount"
	assert_output --partial "'retinst:k' is not available with the sim engine: it simulates user mode only"
	run -125 "$UPROFILE" --engine=sim -p 1
	assert_line --index 0 "uprofile: --engine=sim needs a PROGRAM to run (it cannot attach with -p)"
	run -125 "$UPROFILE" --engine=sim -F 99 "$TPROG/tripcount"
	assert_line --index 0 "uprofile: --engine=sim counts every event; -F and -c do not apply"
	# kprofile has no engines: valgrind does not see the kernel
	run -125 "$KPROFILE" --engine=sim true
	assert_line --index 0 "kprofile: unrecognized option '--engine=sim'"
	run -125 "$KPROFILE" -pixie true
	assert_line --index 0 "kprofile: unrecognized option '-pixie'"
	run -125 "$UPROFILE" --engine=valgrind true
	assert_line --index 0 "uprofile: bad engine 'valgrind': use perf or sim"
	# aliases name the same statistic
	run -0 "$UPROFILE" --engine=sim -quiet instructions cache-misses "$TPROG/tripcount" 10
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -c '[.statistics[] | [.name, .requested]]' <<<"$output")" \
		'[["retinst","instructions"],["bcachemisses","cache-misses"]]'
	run -0 "$UPROFILE" --engine=sim --dry-run "$TPROG/tripcount" 10
	assert_output --regexp '--tool=callgrind .*--dump-instr=yes .*--trace-children=yes .* /.*/tripcount 10$'
}

@test "valgrind simulates caches and branches only for the statistics that need them" {
	# retinst (the default, and -pixie's) needs neither: each
	# simulation slows valgrind down further (about 3x for both on gzip).
	local want
	for want in "retinst:" "mispredict:--branch-sim=yes" \
		"condbranches:--branch-sim=yes" "loads:--cache-sim=yes" \
		"dcachemisses:--cache-sim=yes" \
		"retinst,bcachemisses,indmispredict:--cache-sim=yes --branch-sim=yes"; do
		run -0 "$UPROFILE" --engine=sim -e "${want%%:*}" --dry-run "$TPROG/tripcount" 10
		local sims
		sims=$(grep -o -- '--[a-z]*-sim=yes' <<<"$output" | paste -sd ' ' || true)
		assert_equal "${want%%:*}:$sims" "$want"
	done
	run -0 --separate-stderr "$UPROFILE" -v --engine=sim -o r.out "$TPROG/tripcount" 10
	[[ $stderr == *"under valgrind: callgrind, instruction counts only"* ]] ||
		fail "-v does not say what is simulated: $stderr"
	run -0 --separate-stderr "$UPROFILE" -v --engine=sim -e loads,mispredict -o r.out "$TPROG/tripcount" 10
	[[ $stderr == *"under valgrind: callgrind with cache and branch simulation"* ]] ||
		fail "-v does not say what is simulated: $stderr"
}

@test "-pixie adds exact instruction counts to the sampled profile" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -quiet -pixie -e cpu-clock "$TPROG/tripcount" 1000
	assert_equal "$stderr" ""
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -c '[.statistics[] | [.name, .requested, .simulated]]' <<<"$output")" \
		'[["cpu-clock","cpu-clock",false],["retinst","pixie",true]]'
	assert_equal "$(weight loop_a retinst)" 40020
	assert_equal "$(weight loop_b retinst)" 30005
	run -0 "$UPROFILE" -i umon.out
	assert_line --partial "  retinst (simulated, as pixie), user mode, exact counts: "
}

@test "-pixie warns when the two runs clearly diverge" {
	skip_unless_perf_works
	# exits 0 on its first run, 1 on its second
	cat >flip <<-EOF
		#!/bin/sh
		n=\$(cat "$BATS_TEST_TMPDIR/count" 2>/dev/null || echo 0)
		echo \$((n + 1)) >"$BATS_TEST_TMPDIR/count"
		exit \$((n % 2))
	EOF
	chmod +x flip
	run -0 --separate-stderr "$UPROFILE" -quiet -pixie ./flip
	assert_equal "$stderr" "uprofile: warning: the -pixie run diverged: the program exited 0 in the sampled run and 1 under valgrind; its exact counts may not match the samples"
	# the profile is still written, with both statistics
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq '.statistics | length' <<<"$output")" 2
	assert_equal "$(jq .exit_status <<<"$output")" 0
}

@test "-pixie gives both runs the same stdin: a file rewound, a pipe kept" {
	skip_unless_perf_works
	head -c 2000000 /dev/urandom >in
	local sum
	sum=$(md5sum <in)
	# md5sum's work is its input: the exact count says what it read
	run -0 --separate-stderr "$UPROFILE" -quiet -pixie -o null.out md5sum </dev/null
	run -0 --separate-stderr "$UPROFILE" -quiet -pixie -o file.out md5sum <in
	assert_equal "$output" "$sum"$'\n'"$sum"
	assert_equal "$stderr" ""
	run -0 --separate-stderr bash -c 'cat in | "$1" -quiet -pixie -o pipe.out md5sum' _ "$UPROFILE"
	assert_equal "$output" "$sum"$'\n'"$sum"
	assert_equal "$stderr" ""
	local n f p
	n=$("$UPROFILE" -i null.out --format json | jq '.statistics[1].weight')
	f=$("$UPROFILE" -i file.out --format json | jq '.statistics[1].weight')
	p=$("$UPROFILE" -i pipe.out --format json | jq '.statistics[1].weight')
	# 2 MB hashed: millions of instructions more than an empty input
	((f > n + 1000000)) || fail "the replay did not read the file: $f vs $n"
	# the same work, up to read sizes chosen from the file's block size
	((p > f - f / 100 && p < f + f / 100)) ||
		fail "the replay of the pipe differs: $p vs $f from a file"
}

@test "README CI example: passes against its own baseline, fails when a procedure grows" {
	local ci=$ROOT/docs/examples/ci-check.sh
	export UPROFILE
	run -0 "$ci" -u baseline.json "$TPROG/tripcount" 1000
	assert_output --regexp '^ci-check: baseline written to baseline.json \([0-9]+ procedures\)$'
	assert_equal "$(jq '."loop_a (tripcount)"' baseline.json)" 40020
	run -0 "$ci" baseline.json "$TPROG/tripcount" 1000
	assert_output --regexp '^ci-check: OK, no procedure grew by more than 5% \([0-9]+ checked\)$'
	# 10% more iterations: loop_a and loop_b grow by 9.99%
	run -1 "$ci" baseline.json "$TPROG/tripcount" 1100
	assert_line --index 0 "ci-check: retired instructions grew by more than 5%:"
	assert_line "  loop_a (tripcount): 40020 -> 44020 retired instructions (+9.99%)"
	assert_line "  loop_b (tripcount): 30005 -> 33005 retired instructions (+9.99%)"
	run -0 "$ci" -t 20 baseline.json "$TPROG/tripcount" 1100
	run -2 "$ci" baseline.json "$TPROG/exitwith" 4
	assert_output "ci-check: '$TPROG/exitwith 4' exited with status 4 (125: uprofile failed)"
}
