#!/usr/bin/env bats
# --format callgrind, read back by its real consumer, Valgrind's
# callgrind_annotate (tests/tools/cgannotate turns its report into JSON):
# the totals, every function's self cost, the inclusive costs from the
# call arcs and the annotated source lines must be the report's own
# figures, exactly (costs are the statistics' weights).

load helpers

CGA=$ROOT/tests/tools/cgannotate

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	command -v callgrind_annotate >/dev/null || return 0
	"$UPROFILE" -quiet -g -e cpu-clock -o callers.umon \
		"$TPROG/callers" 1000 || return 1
	"$UPROFILE" -quiet -e cpu-clock -o inline.umon \
		"$TPROG/inline" 500 || return 1
}

setup() {
	common_setup
	command -v callgrind_annotate >/dev/null ||
		skip "callgrind_annotate (valgrind) is not installed"
	skip_unless_perf_works
	P=$BATS_FILE_TMPDIR
}

# export UMON: its callgrind export in out.cg (uprofile must succeed,
# writing nothing to stderr).
export_cg() {
	run -0 --separate-stderr "$UPROFILE" -i "$1" --format callgrind \
		-report-file out.cg
	[[ -z $stderr ]] || fail "uprofile said: $stderr"
}

# annotate [OPTION...]: callgrind_annotate on out.cg, every function
# listed (--threshold=100), no source annotated unless OPTIONs say so; it
# must read the file without a warning.  Its report as JSON (cgannotate)
# in $ann.
annotate() {
	run -0 --separate-stderr callgrind_annotate --threshold=100 --auto=no \
		"$@" out.cg
	[[ -z $stderr ]] || fail "callgrind_annotate warned: $stderr"
	ann=$(python3 "$CGA" <<<"$output") || fail "cannot read: $output"
}

# report UMON [OPTION...]: the JSON report in $json.
report() {
	local f=$1
	shift
	run -0 --separate-stderr "$UPROFILE" -i "$f" --format json "$@"
	json=$output
}

@test "callgrind: callgrind_annotate reads it back with the report's totals, given and summed" {
	export_cg "$P/callers.umon"
	annotate
	report "$P/callers.umon"
	[[ $(jq -c '[.statistics[] | .weight]' <<<"$json") == \
		"$(jq -c .totals <<<"$ann")" ]] ||
		fail "totals: $(jq -c .totals <<<"$ann"), report $(jq -c '[.statistics[].weight]' <<<"$json")"
	[[ $(jq .calculated <<<"$ann") == false ]]
	# Without the summary: line, callgrind_annotate adds up the self
	# costs: the same totals, so every sample is in the file once.
	grep -v '^summary:' out.cg >nosum.cg
	mv nosum.cg out.cg
	annotate
	[[ $(jq .calculated <<<"$ann") == true ]]
	[[ $(jq -c '[.statistics[] | .weight]' <<<"$json") == \
		"$(jq -c .totals <<<"$ann")" ]] || fail "summed self costs differ"
	# Every arc counts calls (callgrind_annotate takes the cost of a
	# calls=0 arc for the caller's self cost).
	run -1 grep '^calls=0 ' out.cg
	run -0 grep -c '^calls=[1-9]' out.cg
}

@test "callgrind: each function's self cost is its -procedures -inline row (inlined functions their own)" {
	local umon
	for umon in callers inline; do
		export_cg "$P/$umon.umon"
		annotate
		report "$P/$umon.umon" -procedures -inline
		# Rows of one procedure (inlined into several callers) add up.
		run -0 jq -n --argjson a "$ann" --argjson r "$json" '
			($r.statistics[0].name) as $s
			| ([$r.rows[] | {k: .procedure, v: .weight[$s]}]
			   | group_by(.k) | map({key: .[0].k,
			     value: (map(.v) | add)}) | from_entries) as $ours
			| ($a.functions | map_values(.[0])
			   | with_entries(select(.value > 0))) as $theirs
			| if $ours == $theirs then "same"
			  else {ours: $ours, callgrind: $theirs} end'
		[[ $output == '"same"' ]] || fail "$umon: $output"
	done
	# inline: the hot loop is inner_kernel's, inlined into outer_driver.
	[[ $(jq '.functions.inner_kernel[0] > .functions.cold_part[0]' <<<"$ann") == true ]]
}

@test "callgrind --inclusive=yes: main and the callers hold what -callees gives their stacks, recursion once" {
	export_cg "$P/callers.umon"
	annotate --inclusive=yes
	local f theirs ours total
	total=$(jq '.totals[0]' <<<"$ann")
	for f in main caller_a caller_b caller_c leaf_work recurse rec_leaf \
		sort_caller cmp_work; do
		report "$P/callers.umon" -callees "$f"
		ours=$(jq --arg f "$f" '.callees[] | select(.procedure == $f) |
			.weight' <<<"$json")
		theirs=$(jq --arg f "$f" '.functions[$f][0]' <<<"$ann")
		[[ -n $ours && $ours == "$theirs" ]] ||
			fail "$f: callgrind_annotate inclusive $theirs, -callees $ours"
	done
	# main is the run, but for the loader's start (a few samples).
	assert_near "$(jq -n "100 * $(jq '.functions.main[0]' <<<"$ann") / $total")" 100 2
	# recurse calls itself 8 deep: its stacks count once (about 25%:
	# its own 12.5% and rec_leaf's), not eight times.
	theirs=$(jq '.functions.recurse[0]' <<<"$ann")
	((theirs <= total)) || fail "recurse inclusive $theirs > total $total"
}

@test "callgrind --auto=yes: the source of build/tests/callers annotated with the -lines report's costs" {
	export_cg "$P/callers.umon"
	# Not every function (--threshold=100): 3.19 warns with Perl's
	# "uninitialized value" on a source file whose functions have no
	# self cost, which --threshold=100 picks for annotation too.
	run -0 --separate-stderr callgrind_annotate --auto=yes out.cg
	[[ -z $stderr ]] || fail "callgrind_annotate warned: $stderr"
	ann=$(python3 "$CGA" <<<"$output") || fail "cannot read: $output"
	report "$P/callers.umon" -lines
	local src=$ROOT/tests/programs/callers.c
	run -0 jq -n --argjson a "$ann" --argjson r "$json" --arg src "$src" '
		($r.statistics[0].name) as $s
		| ([$r.rows[] | select(.file == $src)
		    | {k: (.line | tostring), v: .weight[$s]}]
		   | group_by(.k) | map({key: .[0].k, value: (map(.v) | add)})
		   | from_entries) as $ours
		| ($a.lines[$src] // {}) as $theirs
		| if $ours == $theirs and ($ours | length) > 0 then "same"
		  else {ours: $ours, callgrind: $theirs} end'
	[[ $output == '"same"' ]] || fail "$output"
	# The hot line of leaf_work, the SPIN in its body, is annotated.
	local hot
	hot=$(grep -n 'SPIN(ns, 1);' "$src" | cut -d: -f1)
	[[ $(jq --arg s "$src" --arg l "$hot" '.lines[$s][$l] > 0' <<<"$ann") == true ]]
}

@test "callgrind: two statistics are two events with their own totals" {
	"$UPROFILE" -quiet -g -e cpu-clock,task-clock -o two.umon \
		"$TPROG/callers" 300
	export_cg two.umon
	run -0 grep '^events:' out.cg
	assert_output 'events: cpu-clock task-clock'
	run -0 grep -c '^event: ' out.cg
	assert_output 2
	annotate
	report two.umon
	[[ $(jq -c '[.statistics[] | .weight]' <<<"$json") == \
		"$(jq -c .totals <<<"$ann")" ]] || fail "totals differ"
	[[ $(jq -c .events <<<"$ann") == '["cpu-clock","task-clock"]' ]]
}

@test "callgrind: the header callgrind_annotate and KCachegrind read, in their order" {
	export_cg "$P/callers.umon"
	# version first; positions and the rest before events (where
	# callgrind_annotate stops reading the header); summary after it.
	run -0 awk '/^(version|creator|cmd|positions|event|events|summary):/ {
		sub(/:.*/, ""); print }' out.cg
	assert_output "$(printf '%s\n' version creator cmd positions event events summary)"
	run -0 grep -m1 '^cmd:' out.cg
	assert_output "cmd: $TPROG/callers 1000"
}

@test "callgrind: refused with row options, for counting profiles, and on stdout after a run" {
	run -125 --separate-stderr "$UPROFILE" -i "$P/callers.umon" \
		--format callgrind -lines
	[[ $stderr == *"--format callgrind exports the whole profile"* ]]
	run -125 --separate-stderr "$UPROFILE" --format callgrind true
	[[ $stderr == *"needs -report-file FILE"* ]]
	"$UPROFILE" -quiet --count -o count.umon true
	run -125 --separate-stderr "$UPROFILE" -i count.umon --format callgrind
	[[ $stderr == *"counting profile"* ]]
}

@test "callgrind: exported above the sources or elsewhere, callgrind_annotate lists each function once" {
	local cc=${CC:-cc}
	command -v "$cc" >/dev/null || skip "no C compiler ($cc)"
	# The program's source in a subdirectory, compiled from its parent:
	# its functions' file is x/src/callers.c, below x.
	mkdir -p x/src x/other
	cp "$ROOT/tests/programs/callers.c" x/src/
	(cd x && "$cc" -O2 -g -fno-omit-frame-pointer -o src/callers \
		src/callers.c) || fail "cannot compile callers.c"
	(cd x && "$UPROFILE" -quiet -g -e cpu-clock -o x.umon src/callers 300) ||
		fail "uprofile failed"
	local dir opts
	for dir in x x/other; do
		# Exported and read in the parent of src/, and in a directory
		# the sources are not below.
		(cd "$dir" && "$UPROFILE" -i "$BATS_TEST_TMPDIR/x/x.umon" \
			--format callgrind -report-file out.cg) ||
			fail "export in $dir failed"
		for opts in --inclusive=no --inclusive=yes; do
			run -0 --separate-stderr bash -c 'cd "$1" &&
				callgrind_annotate --threshold=100 --auto=no "$2" out.cg' \
				_ "$dir" "$opts"
			[[ -z $stderr ]] || fail "callgrind_annotate warned: $stderr"
			ann=$(python3 "$CGA" <<<"$output") || fail "cannot read: $output"
			# Defined once, and called under that one name (a
			# function only called would be listed without its
			# object).
			run -0 jq -r '.listings | to_entries[]
				| select((.value | length) > 1
				  or (.value[0] | test(" \\[.*\\]$") | not))
				| "\(.key): \(.value | join(" | "))"' <<<"$ann"
			[[ -z $output ]] || fail "in $dir, $opts, listed twice or only called:
$output"
			for f in main caller_a leaf_work; do
				[[ $(jq --arg f "$f" '.listings[$f] | length' \
					<<<"$ann") == 1 ]] || fail "$f not listed in $dir"
			done
		done
	done
	# Read where it was made, the relative name opens the source.
	run -0 --separate-stderr bash -c 'cd x && callgrind_annotate --auto=yes out.cg'
	assert_output --partial "-- Auto-annotated source: src/callers.c"
	run -0 grep -c '^fl=([0-9]*) src/callers.c$' x/out.cg
	run -0 grep -c "^fl=([0-9]*) $(cd x && pwd -P)/src/callers.c\$" \
		x/other/out.cg
}
