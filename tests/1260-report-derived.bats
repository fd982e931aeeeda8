#!/usr/bin/env bats
# Derived figures computed by the report for any row: X_per_ret ratios
# (marked when a row has too few samples), freq (retired instructions
# averaged over basic blocks) and -average (per execution), from exact
# counts (--engine=sim, -pixie) on programs whose work is known.

load helpers

skip_unless_valgrind() {
	command -v valgrind >/dev/null ||
		skip "valgrind is missing (the sim engine and -pixie need it)"
}

@test "sim: mispredict_per_ret per row is 100 * mispredict / retinst, far higher on random input" {
	skip_unless_valgrind
	run -0 "$UPROFILE" --engine=sim -quiet -o random.out mispredict_per_ret \
		"$TPROG/branchy" random
	run -0 "$UPROFILE" --engine=sim -quiet -o sorted.out mispredict_per_ret \
		"$TPROG/branchy" sorted
	local f
	for f in random sorted; do
		run -0 "$UPROFILE" -i $f.out --format json
		# The ratio is declared once, with its inputs, for the run.
		run -0 jq -r '.ratios[] | "\(.name) \(.numerator) \(.denominator) \(.scale) \(.low)"' <<<"$output"
		assert_output "mispredict_per_ret mispredict retinst 100 false"
		# Every row: the ratio of its own weights, never low (exact).
		run -0 "$UPROFILE" -i $f.out --format json
		run -0 jq -r '.rows[] | select(.weight.retinst > 0) |
			(100 * .weight.mispredict / .weight.retinst) as $want |
			.ratios.mispredict_per_ret as $r |
			select((($r.value - $want) | fabs) > 0.0001 or $r.low) |
			"\(.procedure) \($r.value) \($want) \($r.low)"' <<<"$output"
		assert_output ""
	done
	local r s
	r=$("$UPROFILE" -i random.out --format json |
		jq '.rows[] | select(.procedure == "count_big") | .ratios.mispredict_per_ret.value')
	s=$("$UPROFILE" -i sorted.out --format json |
		jq '.rows[] | select(.procedure == "count_big") | .ratios.mispredict_per_ret.value')
	echo "count_big mispredict_per_ret: random $r, sorted $s"
	jq -en "$r > 5 and $s < 0.5 and $r > 20 * $s"
	# The text report has the ratio column and the whole-run line.
	run -0 "$UPROFILE" -i random.out -quit 1
	assert_line --regexp '^  mispredict_per_ret = 100 \* mispredict / retinst: [0-9.]+ for the whole run$'
	assert_line --regexp ' mispredict_per_ret .* procedure'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+\.[0-9]{2}  +[0-9.]+ count_big +branchy$'
}

@test "sim: freq in the asm view equals every instruction's exact count (whole blocks)" {
	skip_unless_valgrind
	run -0 "$UPROFILE" --engine=sim -quiet -o b.out "$TPROG/branchy" random
	run -0 "$UPROFILE" -i b.out -asm -only count_big --format json
	run -0 jq -r '.freq.exact, (.rows[0].instructions | length)' <<<"$output"
	assert_equal "${lines[0]}" true
	((lines[1] > 5)) || fail "count_big has ${lines[1]} instructions"
	run -0 "$UPROFILE" -i b.out -asm -only count_big --format json
	run -0 jq -r '.rows[0].instructions[] |
		select(.freq != .samples.retinst) | "\(.address) \(.freq) \(.samples.retinst)"' <<<"$output"
	assert_output ""
	# freq of a block row is how often the block ran.
	run -0 "$UPROFILE" -i b.out -blocks -only count_big --format json
	run -0 jq -r '.rows[] | select(.freq * ((.executions / .freq) | round) != .executions) | .address' <<<"$output"
	assert_output ""
}

@test "-pixie: X_per_ret over exact retired counts; rows with few samples are marked" {
	skip_unless_valgrind
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -pixie -e cpu-clock,cpu-clock_per_ret \
		-o e.out "$TPROG/evencost" 40000000
	run -0 "$UPROFILE" -i e.out --format json
	local json=$output
	# The denominator is the exact (simulated) retinst from the pixie run.
	run -0 jq -r '.ratios[0] | "\(.name) \(.denominator) \(.low)"' <<<"$json"
	assert_output "cpu-clock_per_ret retinst false"
	run -0 jq -r '.statistics[] | select(.name == "retinst") | "\(.simulated) \(.requested)"' <<<"$json"
	assert_output "true pixie"
	# low exactly where a row has fewer than 10 cpu-clock samples.
	run -0 jq -r '.rows[] | select(.weight.retinst > 0) |
		select(.ratios["cpu-clock_per_ret"].low != (.samples["cpu-clock"] < 10)) |
		.procedure' <<<"$json"
	assert_output ""
	run -0 jq -r '[.rows[] | select(.ratios["cpu-clock_per_ret"].low)] | length' <<<"$json"
	((output > 0)) || fail "no row with few samples to mark"
	# The marker in the text report.
	run -0 "$UPROFILE" -i e.out
	assert_line --regexp '[0-9]\.[0-9]{2}\* .*(work|_start|main|_dl|__libc)'
}

@test "-average divides by exact executions: weight = average * executions" {
	skip_unless_valgrind
	skip_unless_perf_works
	# 100M iterations: about 0.5 s, so work_b (a quarter) has ~125
	# samples and its time per execution is known to about 10%.
	run -0 "$UPROFILE" -quiet -pixie -e cpu-clock -o e.out "$TPROG/evencost" 100000000
	run -0 "$UPROFILE" -i e.out -average --format json
	run -0 jq -r '.average, .freq.exact' <<<"$output"
	assert_equal "${lines[*]}" "true true"
	run -0 "$UPROFILE" -i e.out -average --format json
	run -0 jq -r '.rows[] | select(.executions > 0) |
		select(((.average["cpu-clock"] * .executions) - .weight["cpu-clock"] | fabs)
			> 0.001 * .weight["cpu-clock"] + 1) | .procedure' <<<"$output"
	assert_output ""
	# work_a and work_b run the same loop: the same time per execution
	# within sampling noise.
	run -0 "$UPROFILE" -i e.out -average --format json
	run -0 jq -r '[.rows[] | select(.procedure == "work_a" or .procedure == "work_b") |
		.average["cpu-clock"]] | "\(.[0]) \(.[1])"' <<<"$output"
	echo "cpu-clock ns per instruction: $output"
	local a=${output% *} b=${output#* }
	jq -en "$a / $b > 0.6 and $a / $b < 1 / 0.6"
	run -0 "$UPROFILE" -i e.out -average -quit 2
	assert_line --regexp 'cpu-clock/exec +retinst/exec'
}

@test "-blocks -average is per instruction of the block, as --help and the man page say" {
	skip_unless_valgrind
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -pixie -e cpu-clock -o p.out "$TPROG/spin2" 100
	run -0 "$UPROFILE" -i p.out -blocks -average --format json
	# exact counts: a block's executions are its runs (freq) times its
	# length, and its retired instructions exactly that: retinst/exec 1.
	# (The program's blocks: valgrind runs its own clock_gettime, so the
	# vdso's sampled blocks have no exact counts.)
	run -0 jq -r '.rows[] | select(.object | endswith("/spin2")) |
		select(.executions != (.weight.retinst | tonumber)
		or .average.retinst != 1
		or (.executions / .freq) != ((.executions / .freq) | floor)
		or .executions < .freq) | .address' <<<"$output"
	assert_output ""
	run -0 "$UPROFILE" -i p.out -blocks -average --format json
	run -0 jq -e '[.rows[] | select(.executions > .freq)] | length > 0' <<<"$output"
	run -0 "$UPROFILE" --help
	assert_output --partial "per instruction executed"
	assert_output --partial "in -blocks, the block's runs"
	run -0 "$KPROFILE" --help
	assert_output --partial "in -blocks, the block's runs"
	grep -q "per instruction of the block, not per run" "$ROOT/man/uprofile.1"
	grep -q "per instruction of the block, not per run" "$ROOT/man/kprofile.1"
}

@test "-average with nothing to divide by: one note says why, in every view" {
	skip_unless_perf_works
	local note="  note: -average has nothing to divide by: the profile has no exact execution counts (-pixie, --engine=sim) nor retired-instruction samples (-e retinst) to estimate them from"
	run -0 "$UPROFILE" -quiet -e cpu-clock -o c.out "$TPROG/spin2" 100
	local view
	for view in "" -blocks -asm -lines; do
		run -0 --separate-stderr "$UPROFILE" -i c.out -average $view
		assert_equal "$(grep -cxF -- "$note" <<<"$output")" 1
		assert_line --regexp 'cpu-clock/exec'
	done
	# not without -average, and not when there is something to divide by
	run -0 "$UPROFILE" -i c.out
	refute_line --partial "-average"
	command -v valgrind >/dev/null || return 0
	run -0 "$UPROFILE" -quiet -pixie -e cpu-clock -o p.out "$TPROG/spin2" 100
	run -0 "$UPROFILE" -i p.out -average
	refute_line --partial "-average"
	run -0 "$UPROFILE" -i p.out -average --format json
	run -0 jq -e '.rows[0].average["cpu-clock"] > 0' <<<"$output"
}

@test "without a retired statistic: no freq, and the report says why when asked" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o c.out "$TPROG/spin2" 100
	run -0 "$UPROFILE" -i c.out -blocks --format json
	run -0 jq -r '.freq, ([.rows[].freq] | unique | .[0])' <<<"$output"
	assert_equal "${lines[*]}" "null null"
	run -0 "$UPROFILE" -i c.out -blocks -quit 1
	refute_line --partial freq
}

@test "the demo from a fresh build: -asm, -blocks, -stride, freq and -average with -pixie" {
	skip_unless_valgrind
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -pixie freq -o demo.out "$TPROG/demo" 0.02
	# About 40 samples: the four kernels are named, in whatever order
	# sampling gave them (a busy machine may put ld.so's work between).
	run -0 "$UPROFILE" -i demo.out
	assert_line --regexp '^  freq: retinst, exact execution counts$'
	assert_line --regexp ' freq .* procedure '
	local p
	for p in matrix_multiply insertion_sort naive_search crc32_buffer; do
		assert_line --regexp " $p +demo$"
	done
	run -0 "$UPROFILE" -i demo.out -asm -only matrix_multiply -average
	assert_line --regexp '^matrix_multiply \(demo\), [0-9.]+% of cpu-clock, [0-9.]+% of retinst:$'
	assert_line --regexp '^ +---- block [0-9]+ ----$'
	assert_line --regexp 'cpu-clock/exec'
	run -0 "$UPROFILE" -i demo.out -stride 8 -quit 3 -only matrix_multiply
	assert_line --regexp '^instruction buckets, heaviest first, by cpu-clock'
	assert_line --regexp ' 0x[0-9a-f]+-0x[0-9a-f]+ +demo\.c:[0-9]+'
	run -0 "$UPROFILE" -i demo.out -blocks -quit 3 --format json
	run -0 jq -r '.rows | length' <<<"$output"
	assert_output 3
}
