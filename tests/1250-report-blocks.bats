#!/usr/bin/env bats
# Instruction-level reports: -blocks, -asm, -stride, on a program whose hot
# loop is known by construction (spin2.c: the loop body on line 45 in
# hot_a, line 57 in hot_b, with hot_a getting three times hot_b's time).

load helpers

# spin_profile: profile spin2 once per file run (cached) into ./spin.out.
spin_profile() {
	skip_unless_perf_works
	local cached=$BATS_FILE_TMPDIR/spin.out
	if [[ ! -s $cached ]]; then
		run -0 "$UPROFILE" -quiet -e cpu-clock -c 100000 \
			-o "$cached.new" "$TPROG/spin2" 600
		mv "$cached.new" "$cached"
	fi
	cp "$cached" spin.out
}

@test "-asm lists procedures hottest first, instructions in address order, with the loop's instruction hottest" {
	spin_profile
	run -0 "$UPROFILE" -i spin.out -asm -quit 2
	# A heading per procedure: "hot_a (spin2), NN.NN% of cpu-clock:".
	assert_line --regexp '^hot_a \(spin2\), [0-9.]+% of cpu-clock:$'
	assert_line --regexp '^hot_b \(spin2\), [0-9.]+% of cpu-clock:$'
	# hot_a (3/4 of the time) comes first.
	local first
	first=$(grep -m1 -E '^[a-z_]+ \(' <<<"$output")
	[[ $first == "hot_a "* ]] || fail "first procedure: $first"
	# Instruction lines: figures (or blanks), address, disassembly.
	assert_line --regexp '^ +[0-9]+\.[0-9]{2} +[0-9]+ 0x[0-9a-f]+ +(imul|add|mov|sub|lea|xor|inc|dec) '
	assert_line --regexp '^ +0x[0-9a-f]+ +ret$'
	# Source lines interleaved, and block separators.
	assert_line --regexp '^ +spin2\.c:45: .*/\* HOT \*/'
	assert_line --regexp '^ +---- block [0-9]+ ----$'
	# Addresses increase within each procedure.
	local line addr last=0
	while IFS= read -r line; do
		if [[ $line =~ ^[a-z_]+\ \( ]]; then
			last=0
		elif [[ $line =~ \ (0x[0-9a-f]+)\ +[a-z] ]]; then
			addr=$((${BASH_REMATCH[1]}))
			((addr > last)) || fail "not increasing: $line"
			last=$addr
		fi
	done <<<"$output"
}

@test "-asm JSON: the instruction with the most samples is in the line-45 loop of hot_a" {
	spin_profile
	run -0 "$UPROFILE" -i spin.out -asm --format json
	json_check <<<"$output"
	local top
	top=$(jq -r '[.rows[] | .procedure as $p | .instructions[] |
		{p: $p, s: .samples["cpu-clock"], line, block, text}] |
		max_by(.s) | "\(.p) \(.line) \(.block)"' <<<"$output")
	[[ $top == "hot_a 45 "* ]] || fail "hottest instruction: $top"
	# That block is the loop body: it ends in a conditional jump back to
	# its own start.
	local blk=${top##* }
	run -0 jq -r --argjson b "$blk" '.rows[] | select(.procedure == "hot_a") |
		[.instructions[] | select(.block == $b)] |
		"\(.[0].address) \(.[-1].text)"' <<<"$output"
	local start=${output%% *} last=${output#* }
	[[ $last =~ ^j[a-z]+\ (0x[0-9a-f]+)$ ]] || fail "block ends with '$last'"
	assert_equal "${BASH_REMATCH[1]}" "$start"
}

@test "-blocks: rows are basic blocks with ranges and source lines; the loop block is hottest" {
	spin_profile
	run -0 "$UPROFILE" -i spin.out -blocks --format json
	json_check <<<"$output"
	run -0 jq -r '.view, (.rows[0] | "\(.kind) \(.procedure) \(.line) \(.end > .address)")' <<<"$output"
	assert_equal "${lines[0]}" blocks
	[[ ${lines[1]} =~ ^block\ hot_a\ (44|45)\ true$ ]] || fail "top block: ${lines[1]}"
	run -0 "$UPROFILE" -i spin.out -blocks -quit 3
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ 0x[0-9a-f]+-0x[0-9a-f]+ +spin2\.c:[0-9]+(-[0-9]+)? +hot_a +spin2$'
}

@test "-blocks makes each procedure's blocks as it is decoded, as -exclude's path makes them all at once" {
	# Without -only/-exclude, -blocks makes a procedure's sites as it
	# decodes it and lets go of its instructions in an object without
	# DWARF (spin2-stripped); a pattern that matches nothing takes the
	# other path, which decodes every procedure first.  Rows, block
	# numbers and notes on objects must be the same.
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -c 100000 -o stripped.out \
		"$TPROG/spin2-stripped" 300
	run -0 "$UPROFILE" -i stripped.out -blocks --format json
	json_check <<<"$output"
	jq -S 'del(.unmatched_patterns)' <<<"$output" >streamed.json
	[[ $(jq '.rows | length' streamed.json) -ge 2 ]] ||
		fail "too few rows: $output"
	jq -e '.objects_without_symbols | length == 1' streamed.json >/dev/null ||
		fail "spin2-stripped not noted: $output"
	run -0 "$UPROFILE" -i stripped.out -blocks -exclude no_such_procedure \
		--format json
	jq -S 'del(.unmatched_patterns)' <<<"$output" >whole.json
	run -0 diff streamed.json whole.json
}

@test "-stride 0 gives one bucket per procedure with the procedure's share; -stride 4 finer buckets" {
	spin_profile
	run -0 "$UPROFILE" -i spin.out --format json
	local proc samples
	proc=$(jq -r '.rows[] | select(.procedure == "hot_a") | .percent["cpu-clock"]' <<<"$output")
	samples=$(json_samples hot_a cpu-clock - <<<"$output")
	run -0 "$UPROFILE" -i spin.out -stride 0 --format json
	run -0 jq -r '.view, .stride, (.rows[] | select(.procedure == "hot_a") | .percent["cpu-clock"])' <<<"$output"
	assert_equal "${lines[0]}" buckets
	assert_equal "${lines[1]}" 0
	assert_equal "${lines[2]}" "$proc"
	assert_equal "${#lines[@]}" 3
	run -0 "$UPROFILE" -i spin.out -stride 4 --format json
	json_check <<<"$output"
	# Buckets of hot_a: at most 4 instructions each, their samples adding
	# up to hot_a's exactly (percentages are rounded, sample counts not).
	run -0 jq -r '[.rows[] | select(.procedure == "hot_a")] |
		"\(length) \(map(.samples["cpu-clock"]) | add)"' <<<"$output"
	local n=${output%% *} sum=${output#* }
	((n > 1)) || fail "hot_a in $n buckets"
	assert_equal "$sum" "$samples"
}

@test "-stride must be a power of two" {
	run -125 "$UPROFILE" -i nothing.out -stride 3
	assert_output --partial "bad -stride '3'"
	run -125 "$UPROFILE" -i nothing.out -stride x
	assert_output --partial "bad -stride 'x'"
}

@test "-asm text and JSON agree on the procedures and their shares" {
	spin_profile
	run -0 "$UPROFILE" -i spin.out -asm -quit 1 --format json
	run -0 jq -r '.rows[0] | "\(.procedure) \(.percent["cpu-clock"])"' <<<"$output"
	local want=$output
	run -0 "$UPROFILE" -i spin.out -asm -quit 1
	run -0 grep -E '^[a-z_]+ \(spin2\)' <<<"$output"
	local name=${want%% *} pct=${want#* }
	assert_output "$name (spin2), $(printf '%.2f' "$pct")% of cpu-clock:"
}

@test "-asm names call targets as objdump does: 'call 0x1040 <clock_gettime@plt>'" {
	spin_profile
	run -0 "$UPROFILE" -i spin.out -asm --format json
	local calls
	calls=$(jq -r --arg o "$TPROG/spin2" '.rows[] | select(.object == $o)
		| .instructions[] | select(.text | startswith("call 0x"))
		| "\(.address) \(.text)"' <<<"$output")
	[[ -n $calls ]] || fail "no direct call in the listing"
	# objdump: "    1189:	e8 b2 fe ff ff	call   1040 <clock_gettime@plt>"
	local addr text want n=0
	while read -r addr text; do
		want=$(objdump -d --no-show-raw-insn "$TPROG/spin2" |
			awk -v a="${addr#0x}:" '!n && $1 == a { $1 = ""; print; n = 1 }')
		want=$(awk '{ printf "%s 0x%s %s", $1, $2, $3 }' <<<"$want")
		assert_equal "$text" "$want"
		n=$((n + 1))
	done <<<"$calls"
	echo "# $n calls named as objdump names them" >&3
}
