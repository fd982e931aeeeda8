#!/usr/bin/env bats
# Adding profiles up (--merge OUT IN..., -i A -i B [-merge OUT]) and
# comparing two (--diff BASE NEW, --fail-above PCT).
#
# Merge: a sum is exact, so its figures are checked exactly against the
# inputs' (totals, every procedure's samples, every folded stack's count);
# what cannot be added is refused with the reason (status 125, no file).
#
# Diff: tests/programs/diffwork is built twice, as is and with procedure b
# doing three times the work (diffwork-slow): b's share goes from 25% to
# 50% of the samples in a, b and c, a's from 25% to 16.7%, c's from 50% to
# 33.3%.  With ~4000 samples a profile, the 25-point change is ~20
# standard deviations: found whatever the machine.
#
# False positives.  Under pure sampling noise, Holm's correction keeps the
# chance that ANY row of a diff is called significant at most alpha,
# whatever the run length (a longer run only makes smaller changes
# significant).  At the default alpha 0.05 a same-build diff would show
# a noise row in up to 1 run of 20, too often for a test; so the
# same-build tests ask --alpha 1e-5 (about 4.4 standard deviations, the
# suite's 4.5-sigma rule for sampling assertions): no row significant,
# and --fail-above 1 exits 0, fail at most once in 100,000 runs from
# sampling noise.  Run-to-run differences that are not sampling noise
# (another cache layout, clock reads) are what the workload keeps small:
# its phases are measured in thread CPU time, and clock reads take ~1%.

load helpers

setup() {
	common_setup
	skip_unless_perf_works
	local max
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
	FREQ=$((max < 4000 ? max : 4000))
	# ~4000 samples per base run (the slow build runs 1.5 times longer).
	MS=$((1000 * 4000 / FREQ))
}

# sample OUT PROGRAM [ARG...]: cpu-clock at FREQ into OUT.
sample() {
	local out=$1
	shift
	run -0 --separate-stderr "$UPROFILE" -quiet -e cpu-clock -F "$FREQ" \
		-o "$out" "$@"
}

# json FILE...: the JSON report of (the sum of) FILE... in $json.
json_of() {
	local args=() f
	for f; do args+=(-i "$f"); done
	run -0 --separate-stderr "$UPROFILE" "${args[@]}" --format json
	json=$output
	json_check <<<"$json"
}

# per_proc: "procedure samples" lines of $json, summed over objects,
# sorted.
per_proc() {
	jq -r '[.rows[] | {p: .procedure, s: .samples["cpu-clock"]}]
		| group_by(.p)[] | "\(.[0].p) \(map(.s) | add)"' <<<"$json" |
		sort
}

@test "--merge: totals, every procedure and every stack are the sums of the inputs" {
	sample a.umon -g "$TPROG/callers" 600
	sample b.umon -g "$TPROG/callers" 600
	run -0 --separate-stderr "$UPROFILE" --merge sum.umon a.umon b.umon
	[[ $stderr == *"2 profiles added up"*"written to sum.umon"* ]] ||
		fail "no notice: $stderr"

	local sa sb ss wa wb ws pa pb
	json_of a.umon
	sa=$(jq '.statistics[0].samples' <<<"$json")
	wa=$(jq '.statistics[0].weight' <<<"$json")
	pa=$(per_proc)
	json_of b.umon
	sb=$(jq '.statistics[0].samples' <<<"$json")
	wb=$(jq '.statistics[0].weight' <<<"$json")
	pb=$(per_proc)
	json_of sum.umon
	ss=$(jq '.statistics[0].samples' <<<"$json")
	ws=$(jq '.statistics[0].weight' <<<"$json")
	((sa > 100 && sb > 100)) || fail "too few samples: $sa, $sb"
	assert_equal "$ss" "$((sa + sb))"
	assert_equal "$ws" "$((wa + wb))"
	assert_equal "$(jq '[.rows[].samples["cpu-clock"]] | add' <<<"$json")" "$ss"
	# Every procedure: the sum of its samples in a and b.
	assert_equal "$(per_proc)" "$(join -a1 -a2 -e0 -o 0,1.2,2.2 \
		<(echo "$pa") <(echo "$pb") | awk '{ print $1, $2 + $3 }')"
	[[ $(per_proc) == *"leaf_work "* ]] || fail "no leaf_work: $(per_proc)"

	# The tasks add up too: -by pid of the sum is each run's process.
	local by
	run -0 --separate-stderr "$UPROFILE" -i sum.umon -by pid --format json
	by=$(jq -c '[.by_totals[] | .samples["cpu-clock"]] | sort' <<<"$output")
	assert_equal "$by" "$(jq -nc --argjson a "$sa" --argjson b "$sb" '[$a, $b] | sort')"
	run -0 --separate-stderr "$UPROFILE" -i a.umon -i b.umon -by pid --format json
	assert_equal "$(jq -c '[.by_totals[] | .samples["cpu-clock"]] | sort' <<<"$output")" "$by"

	# Every stack: its count in the sum is its count in a plus in b.
	local fa fb fs
	run -0 --separate-stderr "$UPROFILE" -i a.umon --format folded
	fa=$output
	run -0 --separate-stderr "$UPROFILE" -i b.umon --format folded
	fb=$output
	run -0 --separate-stderr "$UPROFILE" -i sum.umon --format folded
	fs=$output
	assert_equal "$(sort <<<"$fs")" "$(printf '%s\n%s\n' "$fa" "$fb" |
		awk '{ n = $NF; $NF = ""; c[$0] += n }
		     END { for (k in c) print k c[k] }' | sort)"

	# The call tree of the sum: callers of leaf_work in 1:2:5.
	run -0 --separate-stderr "$UPROFILE" -i sum.umon -tree
	[[ $output == *caller_c*leaf_work* ]] || fail "no tree: $output"
	run -0 --separate-stderr "$UPROFILE" -i sum.umon -callers leaf_work \
		--format json
	local c
	c=$(jq -r '.callers[0].calls | map("\(.procedure)=\(.samples)") |
		join(" ")' <<<"$output")
	[[ $c == *caller_c=*caller_b=*caller_a=* ]] ||
		fail "callers of leaf_work in the sum: $c"
}

@test "-i A -i B reports the sum; -i A -i B -merge OUT writes it, as --merge does" {
	sample a.umon "$TPROG/spin2"
	sample b.umon "$TPROG/spin2"
	json_of a.umon
	local sa=$(jq '.statistics[0].samples' <<<"$json")
	json_of b.umon
	local sb=$(jq '.statistics[0].samples' <<<"$json")
	json_of a.umon b.umon
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$((sa + sb))"
	assert_equal "$(jq -r .file <<<"$json")" "a.umon + b.umon"

	run -0 --separate-stderr "$UPROFILE" -quiet -i a.umon -i b.umon \
		-merge tru64.umon
	assert_output ""
	run -0 --separate-stderr "$UPROFILE" -quiet --merge long.umon a.umon b.umon
	json_of tru64.umon
	local t=$json
	json_of long.umon
	assert_equal "$(jq -c '.statistics, .rows' <<<"$t")" \
		"$(jq -c '.statistics, .rows' <<<"$json")"
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$((sa + sb))"
}

# refused MESSAGE ARGS...: uprofile ARGS exits 125 with the one line
# "uprofile: cannot add up the profiles: MESSAGE" and writes no out.umon.
refused() {
	local msg=$1
	shift
	run -125 --separate-stderr "$UPROFILE" "$@"
	assert_output ""
	assert_equal "$stderr" "uprofile: cannot add up the profiles: $msg"
	[[ ! -e out.umon ]] || fail "out.umon written"
}

@test "--merge refuses other statistics, other periods, and another tool's profiles" {
	sample f.umon "$TPROG/spin2"
	run -0 "$UPROFILE" -quiet -e cpu-clock -c 1000000 -o p.umon "$TPROG/spin2"
	run -0 "$UPROFILE" -quiet -e cpu-clock,page-faults -F "$FREQ" \
		-o two.umon "$TPROG/spin2"
	refused "'p.umon' samples cpu-clock every 1000000 ns, 'f.umon' at $FREQ Hz: not comparable" \
		--merge out.umon p.umon f.umon
	refused "'f.umon' has statistics cpu-clock:u, 'two.umon' has cpu-clock:u, page-faults:u: different statistics are not comparable" \
		--merge out.umon f.umon two.umon
	# The report of -i A -i B is refused the same way.
	refused "'f.umon' has statistics cpu-clock:u, 'two.umon' has cpu-clock:u, page-faults:u: different statistics are not comparable" \
		-i f.umon -i two.umon
	run -0 "$UPROFILE" -quiet --count -e task-clock -o c.umon true
	refused "'c.umon' counts, 'f.umon' samples: not comparable" \
		--merge out.umon c.umon f.umon

	run "$KPROFILE" -quiet -o k.kmon -d 0.2
	[[ $status -eq 0 ]] || skip "kprofile cannot sample here: $output"
	refused "'f.umon' is a uprofile profile, 'k.kmon' a kprofile profile: not comparable" \
		--merge out.umon f.umon k.kmon
}

@test "--merge: a rebuilt binary at the same path is another object (build-ids differ)" {
	cat >prog.c <<-'EOF'
	#include <time.h>
	volatile unsigned long sink;
	__attribute__((noinline)) void spin(void)
	{
		clock_t end = clock() + CLOCKS_PER_SEC / 4;
		while (clock() < end)
			for (int i = 0; i < 100000; i++)
				sink += i * VERSION;
	}
	int main(void) { spin(); return 0; }
	EOF
	cc -O1 -g -DVERSION=1 -o prog prog.c
	sample old.umon ./prog
	cc -O1 -g -DVERSION=3 -o prog prog.c
	sample new.umon ./prog
	json_of new.umon
	local spin_new
	spin_new=$(json_samples spin cpu-clock - <<<"$json")
	((spin_new > 50)) || fail "too few samples in spin: $spin_new"

	run -0 --separate-stderr "$UPROFILE" -quiet --merge sum.umon old.umon new.umon
	json_of sum.umon
	# The old build's samples stay with the old build-id: stale, shown
	# as addresses; the new build's are named from the file.
	assert_equal "$(jq -c '.stale_objects' <<<"$json")" "[\"$PWD/prog\"]"
	assert_equal "$(json_samples spin cpu-clock - <<<"$json")" "$spin_new"
}

@test "--merge writes its output atomically and never follows a planted link" {
	sample a.umon "$TPROG/spin2"
	echo 'precious data' >victim
	ln -s victim out.umon
	run -0 --separate-stderr "$UPROFILE" -quiet --merge out.umon a.umon a.umon
	[[ -f out.umon && ! -L out.umon ]] || fail "out.umon is not a file"
	assert_equal "$(cat victim)" "precious data"
	json_of out.umon
	# A refused merge leaves an existing output alone.
	local sum
	sum=$(cksum <out.umon)
	run -0 "$UPROFILE" -quiet -e cpu-clock,page-faults -o two.umon "$TPROG/spin2"
	run -125 --separate-stderr "$UPROFILE" --merge out.umon a.umon two.umon
	assert_equal "$(cksum <out.umon)" "$sum"
	# No temporary left behind.
	local hidden
	hidden=$(shopt -s nullglob; echo .[!.]*)
	assert_equal "$hidden" ""
}

@test "--merge and --diff: usage errors" {
	run -125 --separate-stderr "$UPROFILE" --merge out.umon
	[[ $stderr == *"--merge OUT needs the profiles to add"* ]] || fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" --diff a.umon
	[[ $stderr == *"--diff compares two profiles"* ]] || fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" -i a.umon --fail-above 3
	[[ $stderr == *"--fail-above applies to --diff"* ]] || fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" --diff a b --format pprof
	[[ $stderr == *"--diff writes text or json"* ]] || fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" --diff a b --fail-above x
	[[ $stderr == *"bad --fail-above 'x'"* ]] || fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" --diff a b -tree
	[[ $stderr == *"--diff compares the rows"* ]] || fail "$stderr"
}

# diff_json BASE NEW [OPTION...]: --diff --format json in $json.
diff_json() {
	local base=$1 new=$2
	shift 2
	run --separate-stderr "$UPROFILE" --diff "$base" "$new" --format json "$@"
	json=$output
	json_check <<<"$json"
}

# row PROC FIELD: FIELD of PROC's row of the diff $json.
row() {
	jq -r --arg p "$1" --arg f "$2" \
		'[.rows[] | select(.procedure == $p)][0][$f]' <<<"$json"
}

@test "--diff: the slower procedure's share is up by the expected points, significantly" {
	sample base.umon "$TPROG/diffwork" "$MS"
	sample new.umon "$TPROG/diffwork-slow" "$MS"
	diff_json base.umon new.umon
	assert_equal "$status" 0
	jq -e '.schema_version == 1 and .mode == "diff" and
		.statistic == "cpu-clock" and .base.file == "base.umon" and
		.new.file == "new.umon" and
		.significance.correction == "holm" and
		.significance.alpha == 0.05' <<<"$json" >/dev/null ||
		fail "bad header: $json"
	# Rows by absolute change, largest first: b, c, a.
	assert_equal "$(jq -r '[.rows[] | .procedure] | .[0:3] | join(" ")' <<<"$json")" "b c a"
	jq -e '[.rows[] | .change | fabs] | . == (sort | reverse)' <<<"$json" >/dev/null ||
		fail "rows not sorted by absolute change"
	jq -e 'all(.rows[]; (.change - (.new_percent - .base_percent) | fabs) < 0.001
		and .significant)' <<<"$json" >/dev/null || fail "bad rows: $json"

	# b's share of the samples in a, b, c: 25% in base, 50% in new.
	local n1 n2 b1 b2 tot1 tot2
	n1=$(jq '[.rows[] | select(.procedure | test("^[abc]$")) | .base_samples] | add' <<<"$json")
	n2=$(jq '[.rows[] | select(.procedure | test("^[abc]$")) | .new_samples] | add' <<<"$json")
	b1=$(row b base_samples)
	b2=$(row b new_samples)
	assert_binomial "b in base" "$b1" "$n1" 25 5
	assert_binomial "b in new" "$b2" "$n2" 50 5
	# Its change in points: 50 f2 - 25 f1 where f is the share of a, b
	# and c in each profile (the rest is start-up and clock reads),
	# within 4.5 standard deviations of the difference of two shares.
	tot1=$(jq .base.samples <<<"$json")
	tot2=$(jq .new.samples <<<"$json")
	local expect tol
	read -r expect tol < <(awk -v n1="$n1" -v n2="$n2" -v t1="$tot1" -v t2="$tot2" 'BEGIN {
		f1 = n1 / t1; f2 = n2 / t2
		p1 = 0.25 * f1; p2 = 0.5 * f2
		printf "%.3f %.3f\n", 100 * (p2 - p1),
			100 * 4.5 * sqrt(p1 * (1 - p1) / t1 + p2 * (1 - p2) / t2) + 0.5 }')
	assert_near "$(row b change)" "$expect" "$tol"
	[[ $(row b p_holm) == *e-* ]] || fail "b's change not far beyond noise: $(row b p_holm)"

	# The text report says the same.
	run -0 --separate-stderr "$UPROFILE" --diff base.umon new.umon
	[[ ${lines[0]} == "Diff of cpu-clock, procedures: base 'base.umon' $tot1 samples, new 'new.umon' $tot2 samples" ]] ||
		fail "heading: ${lines[0]}"
	[[ $output == *"Holm-corrected over "*" rows; alpha 0.05"* ]] || fail "$output"
	[[ ${lines[3]} =~ ^\ +[0-9.]+\ +[0-9.]+\ +\+[0-9.]+\ +\<0.0001\ +b\ \(diffwork\)$ ]] ||
		fail "first row: ${lines[3]}"
}

@test "--fail-above: exit 1 naming the row that got worse by more, 0 below it" {
	sample base.umon "$TPROG/diffwork" "$MS"
	sample new.umon "$TPROG/diffwork-slow" "$MS"
	run -1 --separate-stderr "$UPROFILE" --diff base.umon new.umon --fail-above 5
	[[ $stderr =~ ^uprofile:\ worse\ by\ more\ than\ 5\ points:\ b:\ [0-9.]+%\ -\>\ [0-9.]+%\ \(\+[0-9.]+\ points ]] ||
		fail "message: $stderr"
	assert_equal "${#stderr_lines[@]}" 1
	diff_json base.umon new.umon --fail-above 5
	assert_equal "$status" 1
	assert_equal "$(jq -c '[.fail_above, .rows_worse, ([.rows[] | select(.worse) | .procedure])]' <<<"$json")" '[5,1,["b"]]'
	# c and a got better: never a failure.
	run -0 --separate-stderr "$UPROFILE" --diff base.umon new.umon --fail-above 50
	assert_equal "$stderr" ""
	# The other way round b got better, c (+16 points) and a (+8)
	# worse.
	run -1 --separate-stderr "$UPROFILE" --diff new.umon base.umon --fail-above 5
	assert_equal "${#stderr_lines[@]}" 2
	[[ ${stderr_lines[0]} == "uprofile: worse by more than 5 points: c: "* &&
		${stderr_lines[1]} == "uprofile: worse by more than 5 points: a: "* ]] ||
		fail "reverse: $stderr"
	run -0 --separate-stderr "$UPROFILE" --diff new.umon base.umon --fail-above 30
}

@test "--diff of two runs of the same build: nothing significant, --fail-above 1 passes" {
	sample base.umon "$TPROG/diffwork" "$MS"
	sample again.umon "$TPROG/diffwork" "$MS"
	diff_json base.umon again.umon --alpha 1e-5 --fail-above 1
	assert_equal "$status" 0
	assert_equal "$(jq -c '[.significance.rows_significant, .rows_worse, .rows]' <<<"$json")" '[0,0,[]]'
	# -v lists the noise, marked "~" in text.
	diff_json base.umon again.umon --alpha 1e-5 -v
	jq -e '(.rows | length) >= 3 and all(.rows[]; .significant | not)' <<<"$json" >/dev/null ||
		fail "-v rows: $json"
	run -0 --separate-stderr "$UPROFILE" --diff base.umon again.umon --alpha 1e-5 -v
	[[ $output == *" ~ b (diffwork)"* ]] || fail "no noise mark: $output"
	run -0 --separate-stderr "$UPROFILE" --diff base.umon again.umon --alpha 1e-5
	[[ $output == *"No significant change"*"within noise not shown (-v shows them)."* ]] ||
		fail "$output"
}

@test "--diff refuses profiles of different statistics" {
	sample a.umon "$TPROG/spin2"
	run -0 "$UPROFILE" -quiet -e cpu-clock,page-faults -F "$FREQ" -o two.umon "$TPROG/spin2"
	run -125 --separate-stderr "$UPROFILE" --diff a.umon two.umon
	assert_output ""
	assert_equal "$stderr" "uprofile: cannot compare: 'a.umon' and 'two.umon' have different statistics (page-faults only in two.umon): not comparable"
}
