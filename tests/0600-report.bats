#!/usr/bin/env bats
# Reports: procedure shares of programs with known hot spots, source
# lines checked against addr2line, views, filters, JSON schema, summary.

load helpers

# a2l OBJECT ADDRESS: addr2line's frames for ADDRESS, one per line,
# innermost first, as "function file:line" (no discriminators).
a2l() {
	addr2line -i -f -e "$1" "$2" | paste - - |
		sed -E 's/ \(discriminator [0-9]+\)//; s/\t/ /'
}

skip_unless_addr2line() {
	command -v addr2line >/dev/null || skip "addr2line (binutils) is missing"
}

# check_rows_with_addr2line FILE.json N
# The first N rows of FILE.json that are in our test programs name the
# procedure, file and line that addr2line gives for their address
# (innermost frame).  At least one row must be checked.
check_rows_with_addr2line() {
	local json=$1 n=$2 checked=0 proc inl obj file line addr want frames
	while IFS=$'\t' read -r proc inl obj file line addr; do
		[[ $obj == "$TPROG"/* ]] || continue
		frames=$(a2l "$obj" "$addr")
		want=$(head -n1 <<<"$frames")
		# Where addr2line knows nothing (a PLT stub), we name the
		# stub target@plt as objdump labels it, with no line.
		if [[ $want == "?? ??:0" && $proc == *@plt && $file == null ]] &&
			objdump -d "$obj" | grep "<$proc>:" >/dev/null; then
			((++checked < n)) || break
			continue
		fi
		# The code between PLT stubs (the lazy resolver's call):
		# .plt, or .plt+0xN after the section's start.
		if [[ $want == "?? ??:0" && $proc == .plt* && $file == null ]]; then
			((++checked < n)) || break
			continue
		fi
		# Code without line information (crt1's _start): addr2line
		# says ??:? or ??:0 where we say none.
		if [[ $file == null && $line == null &&
			($want == "$proc ??:?" || $want == "$proc ??:0") ]]; then
			((++checked < n)) || break
			continue
		fi
		assert_equal "$proc $file:$line" "$want"
		if [[ $inl != null ]]; then
			# the function it is inlined into is an outer frame
			grep -q "^$inl " <<<"$frames" ||
				fail "$proc at $addr: '$inl' is not among the frames: $frames"
		fi
		((++checked < n)) || break
	done < <(jq -r '.rows[] | [.procedure, (.inlined_into // "null"),
		.object, (.file // "null"), (.line // "null"), .address] | @tsv' "$json")
	((checked > 0)) || fail "no row of a test program in $json"
}

@test "spin2: hot_a ~75%, hot_b ~25% of the samples" {
	profile_of spin2 "$TPROG/spin2" 1000
	run -0 "$UPROFILE" -i spin2.out -format json
	json_check <<<"$output"
	assert_split "$output" hot_a hot_b 75 8
	assert_equal "$(jq -r '[.rows[0:2][] | .procedure] | join(" ")' <<<"$output")" \
		"hot_a hot_b"
	assert_equal "$(jq -r '[.rows[0:2][] | .object] | unique[]' <<<"$output")" \
		"$TPROG/spin2"
}

@test "spin2: the -procedures text report lists hot_a, then hot_b, in spin2" {
	profile_of spin2 "$TPROG/spin2" 1000
	run -0 --separate-stderr "$UPROFILE" -i spin2.out -procedures
	assert_equal "$stderr" ""
	assert_line --partial 'spin2.out'
	local rows
	rows=$(grep -E '^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+ ' <<<"$output")
	[[ $(sed -n 1p <<<"$rows") =~ ^\ +[0-9]+\.[0-9]+\ +[0-9]+\ +[0-9]+\.[0-9]+\ +hot_a\ +spin2$ ]]
	[[ $(sed -n 2p <<<"$rows") =~ ^\ +[0-9]+\.[0-9]+\ +[0-9]+\ +[0-9]+\.[0-9]+\ +hot_b\ +spin2$ ]]
	# the shares are the JSON report's (checked there)
	assert_equal "$(sed -n 1p <<<"$rows" | awk '{ print $1 }')" \
		"$("$UPROFILE" -i spin2.out -format json | jq -r '.rows[0].percent["cpu-clock"]' | awk '{ printf "%.2f", $1 }')"
	# the default view is -procedures
	run -0 "$UPROFILE" -i spin2.out
	local plain=$output
	run -0 "$UPROFILE" -i spin2.out -procedures
	assert_equal "$output" "$plain"
}

@test "-lines: rows agree with addr2line, sorted by line within a procedure" {
	skip_unless_addr2line
	profile_of spin2 "$TPROG/spin2" 1000
	"$UPROFILE" -i spin2.out -lines -format json >lines.json
	json_check lines.json
	assert_equal "$(jq -r .view lines.json)" lines
	check_rows_with_addr2line lines.json 6
	# hot lines by construction: spin2.c:45 (hot_a), :57 (hot_b)
	run -0 jq -r '.rows | max_by(.percent["cpu-clock"]) | "\(.procedure) \(.file | split("/") | last):\(.line)"' lines.json
	assert_output "hot_a spin2.c:45"
	# a procedure's rows are together, in file/line order
	run -0 jq -e '[.rows[] | [.object, .procedure]] |
		(reduce .[] as $k ([]; if .[-1] == $k then . else . + [$k] end)) as $runs
		| ($runs | length) == (unique | length)' lines.json
	run -0 jq -e '.rows | all(range(1; length) as $i | [.[$i - 1], .[$i]];
		.[0].object != .[1].object or .[0].procedure != .[1].procedure or
		[.[0].file, .[0].line] <= [.[1].file, .[1].line])' lines.json
	# and objects and procedures are in order (docs/json-report.md)
	run -0 jq -e '[.rows[] | [.object, .procedure]] | . == sort' lines.json
	# the text report says the same
	run -0 "$UPROFILE" -i spin2.out -lines
	assert_line --regexp '^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ +spin2\.c:45 +hot_a +spin2$'
	assert_line --regexp '^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ +spin2\.c:57 +hot_b +spin2$'
}

@test "-heavy: rows agree with addr2line, hottest first" {
	skip_unless_addr2line
	profile_of spin2 "$TPROG/spin2" 1000
	"$UPROFILE" -i spin2.out -heavy -format json >heavy.json
	json_check heavy.json
	assert_equal "$(jq -r .view heavy.json)" heavy
	check_rows_with_addr2line heavy.json 4
	run -0 jq -e '[.rows[] | .percent["cpu-clock"]] | . == (sort | reverse)' heavy.json
	run -0 jq -e '[.rows[] | .cumulative_percent] | . == sort' heavy.json
	assert_equal "$(jq -r '.rows[0:2][] | "\(.procedure):\(.line)"' heavy.json | tr '\n' ' ')" \
		"hot_a:45 hot_b:57 "
}

@test "-quit 1 gives one row, -quit 20% stops before rows below 20%" {
	profile_of spin2 "$TPROG/spin2" 1000
	local all
	# rows_total: the rows before the cut (whether the clock reads got
	# samples, a third row, is up to the sampling)
	all=$("$UPROFILE" -i spin2.out -format json | jq '.rows | length')
	((all >= 2)) || fail "$all rows"
	run -0 "$UPROFILE" -i spin2.out -quit 1 -format json
	assert_equal "$(jq -c '[.rows[].procedure]' <<<"$output")" '["hot_a"]'
	assert_equal "$(jq .rows_total <<<"$output")" "$all"
	run -0 "$UPROFILE" -i spin2.out -quit 20% -format json
	assert_equal "$(jq -c '[.rows[].procedure]' <<<"$output")" '["hot_a","hot_b"]'
	assert_equal "$(jq .rows_total <<<"$output")" "$all"
	run -0 "$UPROFILE" -i spin2.out -heavy -quit 20% -format json
	assert_equal "$(jq -c '[.rows[] | [.procedure, .line]]' <<<"$output")" \
		'[["hot_a",45],["hot_b",57]]'
	# in the text report too
	run -0 "$UPROFILE" -i spin2.out -quit 1
	assert_equal "$(grep -cE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ ' <<<"$output")" 1
	run -0 "$UPROFILE" -i spin2.out -quit 50%
	assert_equal "$(grep -cE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ ' <<<"$output")" 1
}

@test "-only and -exclude filter rows; percentages stay shares of the total" {
	profile_of spin2 "$TPROG/spin2" 1000
	local all
	all=$("$UPROFILE" -i spin2.out -format json)
	run -0 "$UPROFILE" -i spin2.out -only hot_b -format json
	assert_equal "$(jq -c '[.rows[].procedure]' <<<"$output")" '["hot_b"]'
	assert_equal "$(json_share hot_b cpu-clock - <<<"$output")" \
		"$(json_share hot_b cpu-clock - <<<"$all")"
	run -0 "$UPROFILE" -i spin2.out -exclude hot_a -format json
	assert_equal "$(json_share hot_a cpu-clock - <<<"$output")" 0.00
	assert_equal "$(jq -r '.rows[0].procedure' <<<"$output")" hot_b
	# percentages stay shares of the whole profile
	assert_equal "$(json_share hot_b cpu-clock - <<<"$output")" \
		"$(json_share hot_b cpu-clock - <<<"$all")"
	# globs, repeated options
	run -0 "$UPROFILE" -i spin2.out -only 'hot_*' -format json
	assert_equal "$(jq -c '[.rows[].procedure]' <<<"$output")" '["hot_a","hot_b"]'
	run -0 "$UPROFILE" -i spin2.out -only hot_a -only hot_b -exclude hot_a -format json
	assert_equal "$(jq -c '[.rows[].procedure]' <<<"$output")" '["hot_b"]'
	# text
	run -0 "$UPROFILE" -i spin2.out -only hot_b
	assert_line --regexp '^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ +hot_b +spin2$'
	refute_line --partial hot_a
}

@test "-numbers adds an address column" {
	profile_of spin2 "$TPROG/spin2" 1000
	local addr
	addr=$("$UPROFILE" -i spin2.out -format json | jq -r '.rows[0].address')
	[[ $addr =~ ^0x[0-9a-f]+$ ]]
	run -0 "$UPROFILE" -i spin2.out -quit 2
	refute_output --partial "$addr"
	refute_output --regexp ' address '
	run -0 "$UPROFILE" -i spin2.out -quit 2 -numbers
	assert_line --regexp ' address +procedure'
	assert_line --regexp "^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ +$addr +hot_a +spin2\$"
}

@test "inline: inner_kernel, inlined into outer_driver, has ~90%" {
	skip_unless_addr2line
	profile_of inline "$TPROG/inline" 1200
	"$UPROFILE" -i inline.out -inline -format json >procs.json
	assert_equal "$(jq .inline_split procs.json)" true
	assert_split "$(cat procs.json)" inner_kernel cold_part 90 6
	assert_equal "$(jq -c '.rows[0] | [.procedure, .inlined_into]' procs.json)" \
		'["inner_kernel","outer_driver"]'
	# its address is inlined code per addr2line: inner_kernel, then
	# outer_driver
	local addr
	addr=$(jq -r '.rows[0].address' procs.json)
	run -0 a2l "$TPROG/inline" "$addr"
	assert_line --index 0 --regexp '^inner_kernel .*/inline\.c:45$'
	assert_line --index 1 --regexp '^outer_driver .*/inline\.c:[0-9]+$'
	run -0 "$UPROFILE" -i inline.out -inline
	assert_line "procedures (inlined code apart), by cpu-clock:"
	assert_line --regexp '^ +[89][0-9]\.[0-9]+ +[0-9]+ +[0-9.]+ +inner_kernel \[inlined into outer_driver\] +inline$'
	# by default inlined code is part of the procedure it was inlined
	# into: outer_driver's row holds inner_kernel's samples and its own
	local split folded
	split=$(jq '[.rows[] | select(.procedure == "outer_driver" or .inlined_into == "outer_driver") | .samples["cpu-clock"]] | add' procs.json)
	"$UPROFILE" -i inline.out -format json >folded.json
	assert_equal "$(jq .inline_split folded.json)" false
	assert_equal "$(jq '[.rows[] | select(.inlined_into != null)] | length' folded.json)" 0
	folded=$(jq '.rows[] | select(.procedure == "outer_driver") | .samples["cpu-clock"]' folded.json)
	assert_equal "$folded" "$split"
	assert_equal "$(jq -r '.rows[0].procedure' folded.json)" outer_driver
	run -0 "$UPROFILE" -i inline.out
	assert_line "procedures (incl. inlined code), by cpu-clock:"
	refute_output --partial "[inlined into"
	# -only and -exclude select code by its out-of-line procedure, in
	# every view: inner_kernel is outer_driver's code
	run -0 "$UPROFILE" -i inline.out -inline -only outer_driver
	assert_line --regexp ' inner_kernel \[inlined into outer_driver\] +inline$'
	run -0 "$UPROFILE" -i inline.out -inline -exclude outer_driver
	refute_output --partial "inner_kernel"
	run -0 "$UPROFILE" -i inline.out -lines -exclude outer_driver
	refute_output --partial "inner_kernel"
	run -0 "$UPROFILE" -i inline.out -lines -only outer_driver
	assert_output --partial "inner_kernel [inlined into outer_driver]"
	refute_output --partial "matches no procedure"
	# a pattern that selects nothing says so, in the header and JSON
	run -0 "$UPROFILE" -i inline.out -only inner_kernel -exclude 'nosuch*'
	assert_line "  note: -only 'inner_kernel' matches no procedure of the profile (a glob on the out-of-line procedure's name)"
	assert_line "  note: -exclude 'nosuch*' matches no procedure of the profile (a glob on the out-of-line procedure's name)"
	run -0 "$UPROFILE" -i inline.out -only 'outer*' -only nosuch --format json
	assert_equal "$(jq -c .unmatched_patterns <<<"$output")" '["-only '"'"'nosuch'"'"'"]'
	# its lines are those of the innermost frame
	"$UPROFILE" -i inline.out -lines -format json >lines.json
	check_rows_with_addr2line lines.json 4
	assert_equal "$(jq -c '[.rows[] | select(.procedure == "inner_kernel") | .line] | unique' lines.json)" \
		'[45]'
	run -0 "$UPROFILE" -i inline.out -heavy -quit 1
	assert_line --regexp ' inline\.c:45 +inner_kernel \[inlined into outer_driver\] +inline$'
}

@test "recursion inlined into itself: one row 'fib', never 'fib [inlined into fib]'" {
	skip_unless_addr2line
	skip_unless_perf_works
	cat >rec.c <<'EOF'
static unsigned long fib(unsigned long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
int main(int argc, char **argv)
{
	unsigned long s = 0;
	for (int i = 0; i < 400; i++)
		s += fib(27 + (argc > 5));
	return (int)(s & 1);
}
EOF
	gcc -O3 -g rec.c -o rec
	# The fixture has the shape: addr2line sees fib inlined into fib.
	local a n=0
	for a in $(objdump -d --no-show-raw-insn rec | awk '/<fib[.>]/ { f = 1 }
		/^$/ { f = 0 } f && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }'); do
		[[ $(addr2line -i -f -e rec "$a" | awk 'NR % 2 && NR <= 3' |
			paste -sd' ') == "fib fib" ]] && n=$((n + 1))
	done
	((n > 0)) || skip "this gcc did not inline fib into itself"
	run -0 "$UPROFILE" -quiet -e cpu-clock ./rec
	run -0 "$UPROFILE" -i umon.out -inline -format json
	assert_equal "$(jq '[.rows[] | select(.inlined_into == "fib")] | length' <<<"$output")" 0
	# the out-of-line fib is one row with its self-inlined code; a copy
	# inlined into main may be a second one
	assert_equal "$(jq '[.rows[] | select(.procedure == "fib" and .inlined_into == null)] | length' <<<"$output")" 1
	assert_near "$(jq '[.rows[] | select(.procedure == "fib") | .percent["cpu-clock"]] | add' <<<"$output")" 98 3
}

@test "shlib: lib_hot_loop in libhot.so has ~80%" {
	skip_unless_addr2line
	profile_of shlib "$TPROG/shlib" 1500
	"$UPROFILE" -i shlib.out -format json >procs.json
	assert_split "$(cat procs.json)" lib_hot_loop main_part 80 7
	run -0 jq -r '.rows[] | select(.procedure == "lib_hot_loop") | .object' procs.json
	assert_output "$TPROG/libhot.so"
	run -0 "$UPROFILE" -i shlib.out
	assert_line --regexp '^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ +lib_hot_loop +libhot\.so$'
	# the load bias is gone: addr2line on the library file agrees
	"$UPROFILE" -i shlib.out -heavy -format json >heavy.json
	check_rows_with_addr2line heavy.json 3
	assert_equal "$(jq -r '.rows[0] | "\(.file | split("/") | last):\(.line)"' heavy.json)" \
		libhot.c:36
}

@test "stripped binary with -g: its entry point (e_entry) is _start at the root of its stacks" {
	skip_unless_perf_works
	local entry
	entry=$(readelf -h "$TPROG/spin2-stripped" |
		awk '/Entry point address:/ { sub(/^0x/, "", $4); print $4 }')
	[[ -n $entry ]] || fail "no entry point in spin2-stripped's header"
	run -0 "$UPROFILE" -quiet -g -e cpu-clock -o g.out \
		"$TPROG/spin2-stripped" 200
	run -0 "$UPROFILE" -i g.out --format folded
	# No frame is named after the entry's address; the stacks through
	# main start at _start, as the unstripped program's do.
	refute_output --regexp "(^|;)func@0x$entry(;| )"
	assert_line --regexp '^_start;[^ ]+ [0-9]+$'
}

@test "stripped binary: procedures named from the unwind table, report still works" {
	profile_of stripped "$TPROG/spin2-stripped" 1000
	run -0 "$UPROFILE" -i stripped.out -format json
	local json=$output
	# every row of the program is named by a symbol, as func@0xENTRY from
	# the unwind table, or as prog+0xOFFSET
	run -0 jq -r --arg o "$TPROG/spin2-stripped" \
		'.rows[] | select(.object == $o) | .procedure' <<<"$json"
	[[ -n $output ]]
	refute_line ''
	refute_line '??'
	local p
	for p in "${lines[@]}"; do
		[[ $p =~ ^spin2-stripped\+0x[0-9a-f]+$ || $p =~ ^func@0x[0-9a-f]+$ ||
			$p =~ ^[A-Za-z_][A-Za-z0-9_.@]*$ ]] ||
			fail "odd procedure name '$p'"
	done
	# nearly all samples are in the program
	run -0 jq --arg o "$TPROG/spin2-stripped" \
		'[.rows[] | select(.object == $o) | .percent["cpu-clock"]] | add' <<<"$json"
	assert_near "$output" 98 4
	# its two hot procedures are hot_a and hot_b of the unstripped twin,
	# named by their entry addresses, in the same shares as unstripped
	local a b
	a=$(nm "$TPROG/spin2" | awk '$3 == "hot_a" { sub(/^0+/, "", $1); print $1 }')
	b=$(nm "$TPROG/spin2" | awk '$3 == "hot_b" { sub(/^0+/, "", $1); print $1 }')
	[[ -n $a && -n $b ]] || fail "no hot_a or hot_b in spin2's symbols"
	run -0 jq -r --arg o "$TPROG/spin2-stripped" \
		'[.rows[] | select(.object == $o)] | .[0:2][] | .procedure' <<<"$json"
	assert_line --index 0 "func@0x$a"
	assert_line --index 1 "func@0x$b"
	assert_split "$json" "func@0x$a" "func@0x$b" 75 10
	# -lines rows are addresses, and they lie in hot_a and hot_b
	if command -v addr2line >/dev/null; then
		local n addr fn ka=0 kb=0
		run -0 "$UPROFILE" -i stripped.out -lines -format json
		while read -r addr n; do
			fn=$(addr2line -f -e "$TPROG/spin2" "$addr" | awk 'NR == 1')
			case $fn in
			hot_a) ka=$((ka + n)) ;;
			hot_b) kb=$((kb + n)) ;;
			esac
		done < <(jq -r --arg o "$TPROG/spin2-stripped" \
			'.rows[] | select(.object == $o) | "\(.address) \(.samples["cpu-clock"])"' <<<"$output")
		assert_binomial "hot_a's lines against hot_b's" "$ka" "$((ka + kb))" 75 10
	fi
	json=$("$UPROFILE" -i stripped.out -format json)
	# the report says why the rows are addresses
	run -0 jq -r '.objects_without_symbols[]' <<<"$json"
	assert_output "$TPROG/spin2-stripped"
	run -0 "$UPROFILE" -i stripped.out
	assert_line "  note: spin2-stripped has no symbols (stripped): its procedures are named func@ADDRESS from its unwind table, other code object+offset; install its debug symbols or build it with -g"
	# text views do not fail either
	run -0 "$UPROFILE" -i stripped.out -lines
	run -0 "$UPROFILE" -i stripped.out -heavy -numbers
}

@test "a program rebuilt since the profile: addresses, and the report says so" {
	skip_unless_perf_works
	cp "$TPROG/spin2" ./prog
	run -0 "$UPROFILE" -quiet -e cpu-clock ./prog 200
	run -0 jq -r '.stale_objects | length' \
		< <("$UPROFILE" -i umon.out --format json)
	assert_output 0
	# Another binary at the same path: its build-id differs.
	cp "$TPROG/inline" ./prog
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	run -0 jq -r '.stale_objects[]' <<<"$output"
	assert_output "$PWD/prog"
	run -0 "$UPROFILE" -i umon.out
	assert_line "  note: prog was rebuilt since the profile was taken (its build-id differs): its rows are addresses"
	refute_line --partial ' hot_a '
}

@test "JSON: the whole document parses and has the documented keys and types" {
	profile_of spin2 "$TPROG/spin2" 1000
	local view
	for view in procedures lines heavy; do
		"$UPROFILE" -i spin2.out -"$view" -format json >r.json
		json_check r.json
		run -0 jq -c --arg view "$view" --arg file spin2.out '
		def int: type == "number" and . == floor and . >= 0;
		def int_or_null: . == null or (type == "number" and . == floor);
		def str: type == "string";
		def str_or_null: . == null or type == "string";
		def has_keys($k): type == "object" and (. as $o | all($k[]; . as $key | $o | has($key)));
		(.statistics | map(.name)) as $names
		| def per_stat: type == "object" and (keys | sort) == ($names | sort)
			and all(.[]; type == "number" and . >= 0);
		[
		  ["schema_version", .schema_version == 1],
		  ["tool", .tool == "uprofile"],
		  ["file", .file == $file],
		  ["command", (.command | type == "array" and length > 0 and all(.[]; str))],
		  ["host", (.host | has_keys(["hostname", "sysname", "release", "machine", "cpu_model", "ncpus"])
			and (.hostname, .sysname, .release, .machine, .cpu_model | str)
			and (.ncpus | int and . > 0))],
		  ["start_time_ns", (.start_time_ns | int and . > 1500000000000000000)],
		  ["duration_seconds", (.duration_seconds | type == "number" and . > 0)],
		  ["exit_status", .exit_status == 0],
		  ["pid", .pid == null],
		  ["cpu", .cpu == null],
		  ["timeline", (.timeline | has_keys(["kept", "missing", "window", "window_seconds"])
			and .kept == true and .missing == null and .window == null
			and .window_seconds == null)],
		  ["statistics", (.statistics | type == "array" and length == 1 and all(.[];
			has_keys(["name", "requested", "substitute", "modes", "period", "frequency",
				  "samples", "lost", "weight", "value", "time_enabled_ns", "time_running_ns"])
			and (.name, .requested, .modes | str) and (.substitute | type == "boolean")
			and (.period, .frequency, .samples, .lost, .weight, .value,
			     .time_enabled_ns, .time_running_ns | int)
			and ((.period == 0) != (.frequency == 0))))],
		  ["view", .view == $view],
		  ["rows_total", (.rows_total | int)],
		  ["unresolved_objects", (.unresolved_objects | int)],
		  ["rows", (.rows | type == "array" and length > 1 and length == $root.rows_total)],
		  ["row keys and types", (.rows | all(.[];
			has_keys(["procedure", "inlined_into", "object", "module", "file", "line",
				  "address", "samples", "weight", "percent", "cumulative_percent"])
			and (.procedure | str and length > 0) and (.inlined_into | str_or_null)
			and (.object | str and length > 0) and (.module | str_or_null)
			and (.file | str_or_null) and (.line | int_or_null)
			and (.address | str and test("^0x[0-9a-f]+$"))
			and (.samples | per_stat) and (.weight | per_stat) and (.percent | per_stat)
			and (.cumulative_percent | type == "number")))],
		  ["file and line in line views", (if $view == "procedures" then
			all(.rows[]; .file == null and .line == null)
			else any(.rows[]; .file != null and .line > 0) end)],
		  ["samples add up", ([.rows[].samples[$names[0]]] | add) == .statistics[0].samples],
		  ["weights add up", ([.rows[].weight[$names[0]]] | add) == .statistics[0].weight],
		  ["percent is weight share", all(.rows[] as $r | $r.percent[$names[0]] -
			100 * $r.weight[$names[0]] / $root.statistics[0].weight | fabs < 0.01; .)],
		  ["cumulative ends at 100", ((.rows[-1].cumulative_percent - 100) | fabs < 0.01)],
		  ["modes", (.modes | type == "array" and length > 0 and all(.[];
			has_keys(["cpu", "user", "kernel", "idle", "guest", "hypervisor"])
			and all(.[]; int)))],
		  ["modes add up", ([.modes[] | .user + .kernel + .idle + .guest + .hypervisor] | add)
			== .statistics[0].samples]
		] | map(select(.[1] != true) | .[0])
		' --argjson root "$(cat r.json)" r.json
		assert_output '[]'
	done
}

@test "-i reports an existing file: no program, nothing written" {
	profile_of spin2 "$TPROG/spin2" 1000
	local sum
	sum=$(cksum <spin2.out)
	run -0 --separate-stderr "$UPROFILE" -i spin2.out
	assert_equal "$stderr" ""
	assert_line --partial "$TPROG/spin2 1000"
	assert_line --regexp ' hot_a +spin2$'
	assert_equal "$(cksum <spin2.out)" "$sum"
	# (bats keeps the captured stderr in the test directory)
	assert_equal "$(ls -A | grep -v '^separate-stderr-')" spin2.out
}

@test "the default run prints a short summary and one result line on stderr" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" "$TPROG/spin2" 300
	assert_output ""
	local -a err=("${stderr_lines[@]}")
	# optional no-PMU notice, a heading, at most 5 rows, the result line
	[[ ${err[0]} != *"'cycles'"* ]] || err=("${err[@]:1}")
	[[ ${err[0]} =~ ^top\ procedures\ by\ cpu-clock:$ ]] ||
		fail "no summary heading: $stderr"
	[[ ${err[1]} =~ ^\ +[0-9]+\.[0-9]+%\ +hot_a\ +spin2$ ]] ||
		fail "hot_a is not first: $stderr"
	[[ ${err[2]} =~ ^\ +[0-9]+\.[0-9]+%\ +hot_b\ +spin2$ ]] ||
		fail "hot_b is not second: $stderr"
	local n=${#err[@]}
	((n >= 4 && n <= 7)) || fail "summary of $((n - 2)) rows: $stderr"
	[[ ${err[n - 1]} =~ ^uprofile:\ [0-9]+\ samples\ \(cpu-clock\),\ [0-9]+\ lost\;\ profile\ written\ to\ umon\.out$ ]] ||
		fail "bad result line: ${err[n - 1]}"
	# the count is the profile's
	local samples
	samples=$("$UPROFILE" -i umon.out -format json | jq '.statistics[0].samples')
	[[ ${err[n - 1]} == "uprofile: $samples samples"* ]]
}

@test "-quiet: nothing on stderr, nothing on stdout" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -quiet "$TPROG/spin2" 100
	assert_output ""
	assert_equal "$stderr" ""
	[[ -s umon.out ]]
}

@test "-display after a run: the report goes to stderr, the program keeps stdout" {
	skip_unless_perf_works
	# stdout belongs to the program: exitwith -i copies stdin to it.
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -display \
		"$TPROG/exitwith" -i <<<"payload"
	assert_output payload
	[[ $stderr == *"procedures (incl. inlined code), by cpu-clock"* ]] ||
		fail "no report on stderr: $stderr"
	[[ $stderr == *"profile written to umon.out"* ]]
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -display "$TPROG/spin2" 300
	assert_output ""
	grep -Eq '^ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ +hot_a +spin2$' <<<"$stderr" ||
		fail "no hot_a row in: $stderr"
	# -report-file: the whole report, JSON here, in a file of its own
	run -0 --separate-stderr "$UPROFILE" -quiet -format json \
		-report-file r.json "$TPROG/spin2" 100
	assert_output ""
	assert_equal "$stderr" ""
	run -0 jq -e '.schema_version == 1' r.json
	run -0 find . -name 'r.json.tmp*'
	assert_output ""
	# -i: the report is the command's result, on stdout
	run -0 --separate-stderr "$UPROFILE" -i umon.out -format json
	run -0 jq -e '.schema_version == 1' <<<"$output"
}

@test "the heading's command line is one line, each argument a shell word that reads back as itself" {
	skip_unless_perf_works
	local args=("two
lines	tab" "it's" 'a b' '$HOME' 'back\slash' '' plain-1.2 $'\x1b[31mred')
	run -0 "$UPROFILE" -quiet -o a.umon /bin/true "${args[@]}"
	run -0 "$UPROFILE" -i a.umon
	local head=${lines[0]}
	[[ $head == "Profile a.umon (uprofile): /bin/true "* ]] || fail "heading: $head"
	[[ ${lines[1]} == "  cpu-clock"* ]] || fail "the heading takes more than a line: ${lines[1]}"
	# bash reads the words back into the very arguments
	eval "local back=(${head#*: })"
	assert_equal "${#back[@]}" 9
	local i
	for i in "${!args[@]}"; do
		assert_equal "${back[i + 1]}" "${args[i]}"
	done
	# no byte a terminal would act on
	[[ $head != *$'\x1b'* ]] || fail "ESC in the heading"
	# the counting heading too
	run -0 "$UPROFILE" -quiet --count -o c.umon /bin/true "it's" $'x\ny'
	run -0 "$UPROFILE" -i c.umon
	assert_line --index 0 "Counts c.umon (uprofile): /bin/true 'it'\\''s' \$'x\\ny'"
}
