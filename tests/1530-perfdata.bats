#!/usr/bin/env bats
# perf record's recordings read as profiles: uprofile -i perf.data (and
# kprofile -i, --merge, --diff, -i - for perf's pipe mode).  perf's own
# report of the same file is the oracle: both read the same samples, so
# every share must be the same (within rounding), not merely close.
#
# The recordings are taken once (setup_file) with Debian's perf, of
# programs whose hot spots are known (tests/programs), on software clock
# events only (cpu-clock, task-clock: no PMU needed); the tests only read
# them, except those about a pipe read as it is written and about a
# program rebuilt after its recording.  Every recording is -N (no build-id
# cache in the home directory: perf then reads the objects where they
# are, as we do) and --no-bpf-event (no side-band thread, which perf
# record waits a second for at its end).
#
# What is compared: the rows `perf report --stdio -t '|' -F overhead,KEYS`
# prints (KEYS: sym, comm, dso, pid (perf's pid is the thread), cpu) with
# ours from `--format json` (-by for the task keys), each as "KEY<TAB>%"
# lines, for every row of at least 1% on either side.

load helpers

setup_file() {
	skip_unless_perf_works
	local d=$BATS_FILE_TMPDIR max
	cd "$d" || return 1
	# perf's default rate, where the kernel allows it.
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
	FREQ=$((max < 4000 ? max : 4000))
	# The -g recording is compared in size with our profile of it: keep
	# it at ~2000 samples at any rate.
	FP_MS=$((500 * 4000 / FREQ))
	export FREQ FP_MS
	# this boot's kernel symbols, for perf report (perf_report)
	local i
	for i in 1 2 3 4 5; do
		cp /proc/kallsyms kallsyms.new &&
			awk '$3 == "_text" && $1 !~ /^0+$/ { ok = 1 }
				END { exit !ok }' kallsyms.new &&
			mv kallsyms.new kallsyms && break
		sleep 0.2
	done
	rm -f kallsyms.new
	rec flat.data -e cpu-clock -F "$FREQ" -- "$TPROG/spin2" 400 &&
		rec two.data -e cpu-clock,task-clock -F "$((FREQ / 2))" -- \
			"$TPROG/spin2" 300 &&
		rec fp.data -e cpu-clock -F "$FREQ" -g -- "$TPROG/callers" "$FP_MS" &&
		rec dwarf.data -e cpu-clock -F "$((FREQ / 2))" --call-graph dwarf -- \
			"$TPROG/callers-nofp" 500 &&
		rec forkexec.data -e cpu-clock -F "$((FREQ / 2))" -- \
			"$TPROG/forkexec" 300 &&
		rec threads.data -e cpu-clock -F "$((FREQ / 2))" -- \
			"$TPROG/threads" 200 &&
		rec phases.data -e cpu-clock -F "$((FREQ / 2))" -- \
			"$TPROG/timephases" 150 || return 1
	# perf's pipe format, saved as it came.
	perf_record -e cpu-clock -F "$FREQ" -o - -- "$TPROG/spin2" 300 \
		>pipe.data 2>pipe.data.err || {
		echo "perf record -o - failed: $(cat pipe.data.err)" >&2
		return 1
	}
	# -z needs a perf built with zstd; system-wide, CAP_PERFMON or
	# perf_event_paranoid 0 or lower: without, their tests skip with
	# perf's reason.
	rec z.data -z -e cpu-clock -F "$FREQ" -- "$TPROG/spin2" 300 \
		2>/dev/null || cp z.data.err z.data.skip
	rec system.data -a -e cpu-clock -F 1000 -- "$TPROG/threads" 300 \
		2>/dev/null || cp system.data.err system.data.skip
}

setup() {
	common_setup
	skip_unless_perf_works
	D=$BATS_FILE_TMPDIR
}

# perf_record ARG...: perf record as the tests record.
perf_record() {
	perf record -q -N --no-bpf-event "$@"
}

# rec NAME ARG...: perf_record ARG... into NAME (in the current directory).
rec() {
	local name=$1
	shift
	perf_record -o "$name" "$@" >"$name.out" 2>"$name.err" || {
		echo "perf record $* failed: $(cat "$name.err")" >&2
		return 1
	}
}

# perf_report ARG...: perf report with the copy of /proc/kallsyms
# setup_file took (when it could read the addresses), so that perf names
# kernel code the same whatever kernel.kptr_restrict is meanwhile.
perf_report() {
	local ks=$BATS_FILE_TMPDIR/kallsyms
	if [[ -s $ks ]]; then
		perf report --kallsyms="$ks" "$@"
	else
		perf report "$@"
	fi
}

# perf_shares FILE KEYS [PERF-REPORT-ARG...]: perf report's rows of FILE
# by KEYS (sym, comm, dso, tid, cpu; comma-separated) as "EVENT / KEY...
# <TAB>PERCENT" lines.  Names as ours: no "[.] " mark, no symbol version
# (clock_gettime@@GLIBC_2.17), an unnamed address 0x1157, a thread its
# tid, a CPU its number.
perf_shares() {
	local file=$1 keys=$2
	shift 2
	perf_report -i "$file" --stdio -t '|' -g none \
		-F "overhead,${keys//tid/pid}" "$@" 2>/dev/null | awk -F'|' '
	function norm(f) {
		gsub(/^[ \t]+|[ \t]+$/, "", f)
		sub(/^\[.\] /, "", f)
		sub(/@@.*/, "", f)
		if (f ~ /^0x[0-9a-f]+$/) {
			sub(/^0x0*/, "", f)
			f = "0x" (f == "" ? "0" : f)
		} else if (f ~ /^[0-9]+:/)
			sub(/:.*/, "", f)
		else if (f ~ /^[0-9]+$/)
			f = f + 0
		return f
	}
	/^# Samples: / {
		q = sprintf("%c", 39)
		ev = substr($0, index($0, q) + 1)
		ev = substr(ev, 1, index(ev, q) - 1)
		next
	}
	/^#/ || NF < 2 { next }
	{
		pct = $1
		gsub(/[ %]/, "", pct)
		key = ev
		for (i = 2; i <= NF; i++)
			key = key " / " norm($i)
		printf "%s\t%s\n", key, pct
	}'
}

# perf_children FILE: perf report --children's inclusive share of each
# symbol, "EVENT / SYM<TAB>PERCENT".
perf_children() {
	perf_report -i "$1" --stdio -t '|' --children --sort sym -g none \
		2>/dev/null | awk -F'|' '
	/^# Samples: / {
		q = sprintf("%c", 39)
		ev = substr($0, index($0, q) + 1)
		ev = substr(ev, 1, index(ev, q) - 1)
		next
	}
	/^#/ || NF < 3 { next }
	{
		pct = $1
		gsub(/[ %]/, "", pct)
		sym = $3
		gsub(/^[ \t]+|[ \t]+$/, "", sym)
		sub(/^\[.\] /, "", sym)
		sub(/@@.*/, "", sym)
		printf "%s / %s\t%s\n", ev, sym, pct
	}'
}

# perf_counts FILE: each event's samples, "EVENT<TAB>N" lines, sorted.
# (perf script prints the call chains of a pipe-format recording whatever
# -F says: only the "EVENT:" lines are counted.)
perf_counts() {
	perf script -i "$1" -F event 2>/dev/null |
		awk 'NF == 1 && $1 ~ /:$/ { sub(/:$/, "", $1); n[$1]++ }
		END { for (e in n) printf "%s\t%d\n", e, n[e] }' | sort
}

# our_shares KEYS: the rows of the JSON report on stdin as perf_shares
# prints perf's (KEYS: sym, comm, dso, pid, tid, cpu).  A row named
# OBJECT+0xADDR (no symbol) is named 0xADDR, as perf names it.
our_shares() {
	jq -r --arg keys "$1" '
	def base: sub("^.*/"; "");
	($keys | split(",")) as $k
	| [.statistics[] | select(.derived | not) | (.key // .name)] as $stats
	| .rows[] as $r | $stats[] as $s
	| select(($r.samples[$s] // 0) > 0)
	| ([$s] + [$k[] as $f
		| if $f == "sym" then
			(($r.object | base) + "+0x") as $pre
			| if ($r.procedure | startswith($pre)) then
				$r.procedure[($pre | length) - 2:]
			  else $r.procedure end
		  elif $f == "dso" then $r.object | base
		  else $r[$f] | tostring end]
	   | join(" / ")) + "\t" + ($r.percent[$s] | tostring)'
}

# our_counts: each statistic's samples of the JSON report on stdin.
our_counts() {
	jq -r '.statistics[] | select(.derived | not) |
		"\(.name)\t\(.samples)"' | sort
}

# our_inclusive: the inclusive share of every procedure in the call
# stacks of the -callers '*' JSON report on stdin, as perf_children.
our_inclusive() {
	jq -r '.call_stacks.statistic as $s | .callers[] |
		"\($s) / \(.procedure)\t\(.percent)"'
}

# tree_inclusive PROC: the inclusive share of PROC in the -tree JSON report
# on stdin: the sum of the totals of its outermost nodes.
tree_inclusive() {
	jq -r --arg p "$1" '
	def outer: if .procedure == $p then .percent
		else [.children[]? | outer] | add // 0 end;
	[.tree.roots[] | outer] | add // 0'
}

# only_keys PATTERN: the lines of stdin whose key matches PATTERN (an
# extended regular expression).
only_keys() {
	awk -F'\t' -v re="$1" '$1 ~ re'
}

# compare_shares WHAT OURS PERF MIN TOL: for every key with MIN percent or
# more on either side ("KEY<TAB>PERCENT" lines, summed by key), our share
# and perf's differ by TOL points at most.
compare_shares() {
	local what=$1 ours=$2 perf=$3 min=$4 tol=$5 msg
	msg=$(awk -F'\t' -v min="$min" -v tol="$tol" '
	FNR == 1 { side++ }
	NF >= 2 { v[side, $1] += $2; keys[$1] = 1 }
	END {
		for (k in keys) {
			a = v[1, k] + 0
			b = v[2, k] + 0
			if (a < min && b < min)
				continue
			n++
			d = a - b
			if (d < 0)
				d = -d
			if (d > tol)
				printf "  %s: ours %.2f%%, perf %.2f%%\n", k, a, b
		}
		if (!n)
			printf "  no row of %s%% or more on either side\n", min
	}' <(printf '%s\n' "$ours") <(printf '%s\n' "$perf"))
	[[ -z $msg ]] || fail "$what: shares differ by more than $tol points:
$msg"
}

# share_of KEY SHARES: the percent of KEY in "KEY<TAB>PERCENT" lines, 0 if none.
share_of() {
	awk -F'\t' -v k="$1" '$1 == k { s += $2 } END { print s + 0 }' <<<"$2"
}

# report FILE [ARG...]: our JSON report of FILE in $json (strictly
# checked), its stderr in $stderr.
report() {
	run -0 --separate-stderr "$UPROFILE" -i "$@" --format json
	json=$output
	json_check <<<"$json"
}

# assert_same_as_perf FILE: the procedures and sample counts of our
# report of FILE ($json) are perf report's of FILE.
assert_same_as_perf() {
	compare_shares "procedures of $1" "$(our_shares sym <<<"$json")" \
		"$(perf_shares "$1" sym)" 1 0.1
	assert_equal "$(our_counts <<<"$json")" "$(perf_counts "$1")"
}

# ---- 1, 2: flat profiles, one event and two --------------------------

@test "a cpu-clock recording: every procedure's share and the sample count are perf report's" {
	report "$D/flat.data"
	assert_same_as_perf "$D/flat.data"
	# the known program: spin2's hot_a and hot_b (3:1) are its rows
	local a b
	a=$(json_samples hot_a cpu-clock - <<<"$json")
	b=$(json_samples hot_b cpu-clock - <<<"$json")
	assert_binomial "hot_a against hot_b" "$a" "$((a + b))" 75 15
	# perf's recording is described as a profile: its command, its
	# statistic as asked, a time stream
	run -0 jq -r '[.statistics[0].name, .statistics[0].requested,
		(.command | index("--") != null), .timeline.kept] | @tsv' <<<"$json"
	assert_output $'cpu-clock\tcpu-clock\ttrue\ttrue'
	# a well-formed recording leaves no note (but the kernel's
	# throttling, on a machine where it lowered the sample rate)
	run -0 grep -v 'THROTTLE records not used' <<<"$stderr"
	assert_output ""
	# the text view is of the same profile
	run -0 --separate-stderr "$UPROFILE" -i "$D/flat.data"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ hot_a +spin2$'
	assert_line --regexp "^  cpu-clock, .*: $(jq '.statistics[0].samples' <<<"$json") samples, 0 lost$"
}

@test "two events (-e cpu-clock,task-clock): both statistics, each with perf's samples and shares" {
	report "$D/two.data"
	run -0 jq -r '[.statistics[].name] | join(",")' <<<"$json"
	assert_output cpu-clock,task-clock
	# counts per event, shares per event (perf reports each separately)
	assert_same_as_perf "$D/two.data"
	local ev
	for ev in cpu-clock task-clock; do
		(($(json_samples hot_a "$ev" - <<<"$json") > 0)) ||
			fail "no $ev samples in hot_a"
	done
}

# ---- 3: call stacks ----------------------------------------------------

# Procedures of tests/programs/callers.c, whose inclusive shares are
# checked against perf report --children.
CALLERS_PROCS='main caller_a caller_b caller_c leaf_work recurse rec_leaf sort_caller cmp_work'

# check_inclusive FILE [PERF_FILE]: our inclusive shares of CALLERS_PROCS
# in FILE, from -callers '*' and from -tree, are perf's of PERF_FILE
# (default: FILE) within 0.5 points; sets $inclusive (ours) and
# $children (perf's).
check_inclusive() {
	local file=$1 p ours perf tree
	children=$(perf_children "${2:-$1}")
	run -0 --separate-stderr "$UPROFILE" -i "$file" -callers '*' --format json
	json_check <<<"$output"
	inclusive=$(our_inclusive <<<"$output")
	run -0 --separate-stderr "$UPROFILE" -i "$file" -tree -quit 0.001% --format json
	json_check <<<"$output"
	tree=$output
	for p in $CALLERS_PROCS; do
		ours=$(share_of "cpu-clock / $p" "$inclusive")
		perf=$(share_of "cpu-clock / $p" "$children")
		assert_near "$ours" "$perf" 0.5
		assert_near "$(tree_inclusive "$p" <<<"$tree")" "$perf" 0.5
	done
	# the stacks are there: main holds most of the run
	(($(share_of "cpu-clock / main" "$inclusive" | cut -d. -f1) >= 50)) ||
		fail "main holds only $(share_of "cpu-clock / main" "$inclusive")% of the stacks"
}

@test "-g (frame pointers): self shares are perf's, inclusive shares (-callers, -tree) perf report --children's" {
	report "$D/fp.data"
	assert_same_as_perf "$D/fp.data"
	run -0 jq -r .call_stacks.samples <<<"$json"
	assert_output "$(jq '.statistics[0].samples' <<<"$json")"
	check_inclusive "$D/fp.data"
	# leaf_work's callers 1:2:5 by construction, as perf has them
	run -0 --separate-stderr "$UPROFILE" -i "$D/fp.data" -callers leaf_work --format json
	json_check <<<"$output"
	local c n k
	n=$(jq '.callers[0].samples' <<<"$output")
	for c in caller_a=12.5 caller_b=25 caller_c=62.5; do
		k=$(jq --arg c "${c%=*}" '[.callers[0].calls[] |
			select(.procedure == $c) | .samples] | add // 0' <<<"$output")
		assert_binomial "${c%=*} calling leaf_work" "$k" "$n" "${c#*=}" 10
	done
	# the text views name them
	run -0 --separate-stderr "$UPROFILE" -i "$D/fp.data" -tree
	assert_output --partial caller_c
	run -0 --separate-stderr "$UPROFILE" -i "$D/fp.data" -callers leaf_work
	assert_output --partial caller_b
}

@test "--call-graph dwarf: inclusive shares are perf's, our stacks reach main at least as often as perf's" {
	report "$D/dwarf.data"
	assert_same_as_perf "$D/dwarf.data"
	check_inclusive "$D/dwarf.data"
	# no frame pointers anywhere: only the stack copies get from the
	# leaves to main, through libc's qsort to cmp_work's caller
	local ours perf
	ours=$(share_of "cpu-clock / main" "$inclusive")
	perf=$(share_of "cpu-clock / main" "$children")
	# (perf's figures are rounded to 0.01)
	awk -v o="$ours" -v p="$perf" 'BEGIN { exit !(o >= p - 0.005) }' ||
		fail "our stacks reach main in $ours% of the samples, perf's in $perf%"
	run -0 jq -r '.call_stacks.complete_percent' <<<"$json"
	awk -v o="$output" -v p="$perf" 'BEGIN { exit !(o >= p - 0.005) }' ||
		fail "$output% of our stacks complete, perf's reach main in $perf%"
	# cmp_work's stacks go through qsort to sort_caller, as perf's do
	assert_near "$(share_of "cpu-clock / sort_caller" "$inclusive")" \
		"$(share_of "cpu-clock / cmp_work" "$inclusive")" 0.5
}

@test "--call-graph dwarf of a 32-bit program: its stacks truncated as a 32-bit task's, not as a too small copy" {
	gcc -m32 -O2 -g -fno-omit-frame-pointer -o callers32 \
		"$ROOT/tests/programs/callers.c" 2>cc.err ||
		skip "gcc -m32 cannot build here (gcc-multilib): $(head -n 1 cc.err)"
	rec c32.data -e cpu-clock -F "$((FREQ / 4))" --call-graph dwarf -- \
		./callers32 300
	run -0 --separate-stderr "$UPROFILE" -i c32.data --format json
	run -0 jq -r '.call_stacks | [.samples, (.truncated[] |
		select(.reason == "32-bit task") | .samples)] |
		"\(.[0]) \(.[1:] | add)"' <<<"$output"
	read -r n k <<<"$output"
	[[ $n -gt 0 && $k == "$n" ]] ||
		fail "32-bit task truncations: $k of $n samples"
}

# ---- 4: system-wide, kprofile ------------------------------------------

@test "kprofile -i of a perf record -a: the workload's procedures, -by comm and -by cpu are perf's" {
	[[ ! -e $D/system.data.skip ]] ||
		skip "perf record -a fails here: $(head -n 1 "$D/system.data.skip")"
	local f=$D/system.data
	run -0 --separate-stderr "$KPROFILE" -i "$f" -by comm --format json
	json=$output
	json_check <<<"$json"
	# every process of the machine is in it; the workload's rows are
	# perf's (perf's own, and what else ran, are named from stripped
	# binaries, perf by address, we by function: only threads' compared)
	compare_shares "threads's procedures" \
		"$(our_shares comm,sym <<<"$json" | only_keys '^cpu-clock / threads / ')" \
		"$(perf_shares "$f" comm,sym | only_keys '^cpu-clock / threads / ')" 1 0.1
	# (the machine may run other builds of the program meanwhile: the
	# workload's rows are those of its object)
	local p
	for p in thread_work_a thread_work_b; do
		run -0 jq -r --arg p "$p" --arg o "$TPROG/threads" '[.rows[] |
			select(.procedure == $p and .object == $o)] |
			"\([.[].comm] | unique | join(",")) \([.[].samples["cpu-clock"]] | add // 0)"' <<<"$json"
		[[ $output =~ ^threads\ ([0-9]+)$ ]] && ((BASH_REMATCH[1] > 20)) ||
			fail "$p: $output (command, samples)"
	done
	assert_equal "$(our_counts <<<"$json")" "$(perf_counts "$f")"
	# the totals per command and per CPU
	compare_shares "-by comm" "$(jq -r '.by_totals[] |
		"cpu-clock / \(.comm)\t\(.percent["cpu-clock"])"' <<<"$json")" \
		"$(perf_shares "$f" comm)" 0.5 0.1
	run -0 --separate-stderr "$KPROFILE" -i "$f" -by cpu --format json
	json_check <<<"$output"
	compare_shares "-by cpu" "$(jq -r '.by_totals[] |
		"cpu-clock / \(.cpu)\t\(.percent["cpu-clock"])"' <<<"$output")" \
		"$(perf_shares "$f" cpu)" 0.5 0.1
	run -0 --separate-stderr "$KPROFILE" -i "$f" -by comm,cpu
	assert_output --partial 'totals by comm cpu:'
}

# ---- 5, 6: compressed and pipe recordings ------------------------------

@test "perf record -z (zstd): the same report as perf's" {
	[[ ! -e $D/z.data.skip ]] ||
		skip "perf record -z fails here: $(head -n 1 "$D/z.data.skip")"
	run -0 perf report -i "$D/z.data" --header-only
	assert_output --partial 'compressed : Zstd'
	report "$D/z.data"
	assert_same_as_perf "$D/z.data"
	(($(json_samples hot_a cpu-clock - <<<"$json") > 0)) || fail "no hot_a"
}

@test "pipe mode: -i - while perf writes, a saved stream as -i FILE, -i <(perf record -o - ...)" {
	# perf record -o - | uprofile -i -, the stream saved by tee for perf
	run -0 --separate-stderr bash -c 'set -o pipefail
		perf record -q -N --no-bpf-event -e cpu-clock -F "$1" -o - -- "$2" 300 2>perf.err |
			tee live.data | "$3" -i - --format json' \
		_ "$FREQ" "$TPROG/spin2" "$UPROFILE"
	json=$output
	json_check <<<"$json"
	assert_equal "$(jq -r .file <<<"$json")" -
	assert_same_as_perf live.data
	(($(json_samples hot_a cpu-clock - <<<"$json") > 0)) || fail "no hot_a"
	# a pipe-format file on disk
	report "$D/pipe.data"
	assert_same_as_perf "$D/pipe.data"
	# a process substitution (a pipe with a name)
	run -0 --separate-stderr "$UPROFILE" --format json -i <(
		perf_record -e cpu-clock -F "$FREQ" -o - -- "$TPROG/spin2" 300 \
			2>perf2.err | tee subst.data)
	json=$output
	json_check <<<"$json"
	assert_same_as_perf subst.data
	(($(json_samples hot_a cpu-clock - <<<"$json") > 0)) || fail "no hot_a"
}

# ---- 7: processes and threads ------------------------------------------

@test "fork+exec: the exec'd image's procedures are its own, under its command; -by pid splits the processes" {
	local f=$D/forkexec.data
	report "$f" -by comm
	compare_shares "procedures by command and object" \
		"$(our_shares comm,dso,sym <<<"$json")" \
		"$(perf_shares "$f" comm,dso,sym)" 1 0.1
	# hot_a and hot_b are spin2's, named from spin2 under the command
	# spin2; parent_spin is forkexec's
	run -0 jq -r '[.rows[] | select(.procedure | test("^(hot_a|hot_b|parent_spin)$"))
		| "\(.procedure) \(.comm) \(.object)"] | unique | .[]' <<<"$json"
	assert_output "hot_a spin2 $TPROG/spin2
hot_b spin2 $TPROG/spin2
parent_spin forkexec $TPROG/forkexec"
	# two processes: the child's pid is not the parent's
	report "$f" -by pid
	run -0 jq -r '[.rows[] | select(.procedure == "hot_a" or
		.procedure == "parent_spin") | "\(.procedure) \(.pid)"] |
		unique | .[]' <<<"$json"
	assert_equal "${#lines[@]}" 2
	[[ ${lines[0]#* } != "${lines[1]#* }" ]] ||
		fail "hot_a and parent_spin in one process: $output"
	# forkexec: hot_a 50%, hot_b 16.7%, parent_spin 33.3% of the tree
	assert_split "$json" hot_a parent_spin 60 20
}

@test "threads: -by tid puts each thread's procedure in its own thread, as perf does" {
	local f=$D/threads.data
	report "$f" -by tid
	compare_shares "procedures by thread" "$(our_shares tid,sym <<<"$json")" \
		"$(perf_shares "$f" tid,sym)" 1 0.1
	compare_shares "-by tid totals" "$(jq -r '.by_totals[] |
		"cpu-clock / \(.tid)\t\(.percent["cpu-clock"])"' <<<"$json")" \
		"$(perf_shares "$f" tid)" 0.5 0.1
	local ta tb
	ta=$(jq -r '[.rows[] | select(.procedure == "thread_work_a") | .tid] | unique | join(",")' <<<"$json")
	tb=$(jq -r '[.rows[] | select(.procedure == "thread_work_b") | .tid] | unique | join(",")' <<<"$json")
	[[ $ta =~ ^[0-9]+$ && $tb =~ ^[0-9]+$ && $ta != "$tb" ]] ||
		fail "thread_work_a in threads $ta, thread_work_b in $tb"
	assert_split "$json" thread_work_a thread_work_b 50 20
}

# ---- 8: --merge and --diff ---------------------------------------------

@test "--merge OUT perf.data: a profile a tenth of the recording's size or less, with the same report" {
	local f=$D/fp.data size out
	run -0 --separate-stderr "$UPROFILE" --merge merged.umon "$f"
	size=$(stat -c %s "$f")
	out=$(stat -c %s merged.umon)
	((out * 10 < size)) ||
		fail "merged.umon is $out bytes, the perf.data $size (not under a tenth)"
	# an ordinary profile, not a perf.data
	[[ $(head -c 8 merged.umon) != PERFILE2 ]] || fail "merged.umon is a copy of the perf.data"
	report merged.umon
	assert_same_as_perf "$f"
	check_inclusive merged.umon "$f"
	# two recordings add up, a file and a saved pipe stream
	run -0 --separate-stderr "$UPROFILE" --merge sum.umon "$D/flat.data" "$D/pipe.data"
	report sum.umon
	local n1 n2
	n1=$(perf_counts "$D/flat.data" | cut -f2)
	n2=$(perf_counts "$D/pipe.data" | cut -f2)
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$((n1 + n2))"
}

@test "--diff between two perf.data files: each side's shares are perf's, the changes significant" {
	# -v: every row, those within noise too
	run -0 --separate-stderr "$UPROFILE" --diff "$D/flat.data" "$D/forkexec.data" -v --format json
	json=$output
	json_check <<<"$json"
	compare_shares "base side" \
		"$(jq -r '.rows[] | "cpu-clock / \(.procedure)\t\(.base_percent)"' <<<"$json")" \
		"$(perf_shares "$D/flat.data" sym)" 1 0.1
	compare_shares "new side" \
		"$(jq -r '.rows[] | "cpu-clock / \(.procedure)\t\(.new_percent)"' <<<"$json")" \
		"$(perf_shares "$D/forkexec.data" sym)" 1 0.1
	# spin2 alone against forkexec's tree: parent_spin comes, hot_a
	# loses about a third of its share
	run -0 jq -r '.rows[] | select(.procedure == "parent_spin" or
		.procedure == "hot_a") | "\(.procedure) \(.significant) \(.change > 0)"' <<<"$json"
	assert_line 'parent_spin true true'
	assert_line 'hot_a true false'
	run -0 --separate-stderr "$UPROFILE" --diff "$D/flat.data" "$D/forkexec.data"
	assert_line --regexp '^ +0\.00 +[0-9.]+ +\+[0-9.]+ .* parent_spin \(forkexec\)$'
}

# ---- 9: a program rebuilt after its recording --------------------------

# Two builds of one program: old_spin at the same name in both, but the
# second has a function before it, so old_spin's addresses in the first
# are other code (new_pad) in the second.
stale_prog() {
	cat >prog.c <<-'EOF'
	#include <time.h>
	volatile unsigned long sink;
	#if VERSION == 2
	__attribute__((noinline)) void new_pad(void)
	{
		for (int i = 0; i < 1000; i++)
			sink += i * 3;
		__asm__ volatile(".fill 4096, 1, 0x90");
	}
	#endif
	__attribute__((noinline)) void old_spin(void)
	{
		struct timespec t;
		do {
			for (int i = 0; i < 100000; i++)
				sink += i * VERSION;
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		} while (t.tv_sec == 0 && t.tv_nsec < 300000000);
	}
	int main(void)
	{
	#if VERSION == 2
		new_pad();
	#endif
		old_spin();
		return 0;
	}
	EOF
	cc -O1 -g -DVERSION="$1" -o prog prog.c
}

# check_stale FILE: our report of FILE, recorded of ./prog before it was
# rebuilt, names none of prog's rows, says prog is stale, and has perf's
# rows (addresses) with perf's shares.
check_stale() {
	local f=$1
	report "$f"
	assert_equal "$(jq -c .stale_objects <<<"$json")" "[\"$PWD/prog\"]"
	run -0 jq -r --arg o "$PWD/prog" '[.rows[] | select(.object == $o) |
		.procedure | select(test("^prog\\+0x[0-9a-f]+$") | not)] | .[]' <<<"$json"
	assert_output ""
	(($(jq --arg o "$PWD/prog" '[.rows[] | select(.object == $o) |
		.samples["cpu-clock"]] | add // 0' <<<"$json") > 100)) ||
		fail "too few samples in prog"
	compare_shares "rows of $f" "$(our_shares dso,sym <<<"$json")" \
		"$(perf_shares "$f" dso,sym)" 1 0.1
	run -0 --separate-stderr "$UPROFILE" -i "$f"
	assert_line "  note: prog was rebuilt since the profile was taken (its build-id differs): its rows are addresses"
	refute_output --regexp ' (old_spin|new_pad|main) '
}

@test "a program rebuilt since the recording: its rows are addresses, named stale (file, and pipe with --buildid-mmap)" {
	command -v cc >/dev/null || skip "no C compiler (cc)"
	stale_prog 1
	perf_record -e cpu-clock -F "$((FREQ / 2))" -o old.data -- ./prog 2>perf.err ||
		fail "perf record: $(cat perf.err)"
	# perf's pipe format has build-ids only in MMAP2 records, with
	# --buildid-mmap (Linux 5.12 and later)
	local pipe=yes
	perf_record --buildid-mmap -e cpu-clock -F "$((FREQ / 2))" -o - -- ./prog \
		>old-pipe.data 2>perf.err || pipe=$(cat perf.err)
	# before the rebuild: named
	report old.data
	(($(json_samples old_spin cpu-clock - <<<"$json") > 100)) ||
		fail "old_spin not named before the rebuild"
	stale_prog 2
	check_stale old.data
	[[ $pipe == yes ]] || skip "perf record --buildid-mmap fails here: $pipe"
	check_stale old-pipe.data
}

@test "a program rebuilt since the recording: found in perf's build-id cache (~/.debug) when that is the user's own, not when others may write it" {
	command -v cc >/dev/null || skip "no C compiler (cc)"
	stale_prog 1
	perf_record -e cpu-clock -F "$((FREQ / 2))" -o old.data -- ./prog 2>perf.err ||
		fail "perf record: $(cat perf.err)"
	local id
	id=$(readelf -n prog | awk '/Build ID:/ { print $3 }')
	[[ $id =~ ^[0-9a-f]{40}$ ]] || fail "no build-id in prog: $id"
	# perf's layout: ~/.debug/.build-id/XX/REST/elf
	mkdir -p "home/.debug/.build-id/${id:0:2}/${id:2}"
	cp prog "home/.debug/.build-id/${id:0:2}/${id:2}/elf"
	chmod 755 home home/.debug
	stale_prog 2
	HOME=$PWD/home report old.data
	assert_equal "$(jq -c .stale_objects <<<"$json")" "[]"
	(($(json_samples old_spin cpu-clock - <<<"$json") > 100)) ||
		fail "old_spin not named from the build-id cache"
	# a cache its group may write is not the user's alone: not used
	chmod 775 home/.debug
	HOME=$PWD/home report old.data
	assert_equal "$(jq -c .stale_objects <<<"$json")" "[\"$PWD/prog\"]"
	assert_equal "$(json_samples old_spin cpu-clock - <<<"$json")" 0
}

# ---- 10: damaged recordings --------------------------------------------

# damage: write the damaged copies of flat.data: trunc.data (cut inside
# the header), overrun.data (the data section's last record 8 bytes
# longer than what is left of it), attr0.data (attr_size 0),
# garbage.data (the magic, then bytes that are no header); killed.data
# and killed-mid.data: what perf record leaves when it is killed (data.size
# still 0, nothing after the data section), the second cut inside its
# last sample.
damage() {
	python3 - "$D/flat.data" <<-'EOF'
	import struct, sys
	d = bytes(open(sys.argv[1], 'rb').read())
	def put(name, b):
	    open(name, 'wb').write(b)
	def with_u(b, fmt, off, v):
	    b = bytearray(b)
	    struct.pack_into(fmt, b, off, v)
	    return bytes(b)
	# perf_file_header: magic, size, attr_size, attrs {offset, size},
	# data {offset, size}, event_types, feature bits
	data_off, data_size = struct.unpack_from('<QQ', d, 40)
	off, last, last_sample = data_off, None, None
	while off < data_off + data_size:
	    typ, misc, size = struct.unpack_from('<IHH', d, off)
	    last = off
	    if typ == 9:
	        last_sample = (off, size)
	    off += size
	assert off == data_off + data_size and last_sample
	put('trunc.data', d[:50])
	size = struct.unpack_from('<H', d, last + 6)[0]
	put('overrun.data', with_u(d, '<H', last + 6, size + 8))
	put('attr0.data', with_u(d, '<Q', 16, 0))
	put('garbage.data', d[:8] + bytes((i * 37 + 11) & 0xff for i in range(len(d) - 8)))
	killed = with_u(d[:data_off + data_size], '<Q', 48, 0)
	put('killed.data', killed)
	put('killed-mid.data', killed[:last_sample[0] + last_sample[1] // 2])
	EOF
}

# refused TOOL FILE ARG...: TOOL refuses FILE: status 125, one line on
# stderr naming it, nothing on stdout, no file written here.
refused() {
	local tool=$1 f=$2 before
	shift 2
	before=$(ls -A)
	run -125 --separate-stderr "$tool" "$@"
	assert_equal "$output" ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"'$f'"* ]] || fail "the error does not name '$f': $stderr"
	assert_equal "$(ls -A)" "$before"
}

@test "damaged recordings: status 125, one line naming the file, nothing written" {
	# (run --separate-stderr keeps a file of its own in the test's
	# directory: the recordings are in one of theirs)
	mkdir dmg
	cd dmg
	damage
	local f before
	for f in trunc.data overrun.data attr0.data garbage.data; do
		refused "$UPROFILE" "$f" -i "$f"
		refused "$KPROFILE" "$f" -i "$f"
		refused "$UPROFILE" "$f" -i "$f" --format json
		refused "$UPROFILE" "$f" --merge out.umon "$f"
	done
	# a perf.data file (not perf's pipe format) read from a pipe
	before=$(ls -A)
	run -125 --separate-stderr bash -c 'cat "$1" | "$2" -i -' _ "$D/flat.data" "$UPROFILE"
	assert_equal "$output" ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"'-'"* ]] || fail "the error does not name '-': $stderr"
	assert_equal "$(ls -A)" "$before"
	run -125 --separate-stderr "$UPROFILE" -i <(cat "$D/flat.data")
	assert_equal "$output" ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"'/dev/fd/"* ]] || fail "the error does not name the pipe: $stderr"
}

@test "a recording perf record did not finish (killed) is read, with a note saying so" {
	damage
	local n
	n=$(perf_counts "$D/flat.data" | cut -f2)
	report killed.data
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "${stderr_lines[0]}" "uprofile: killed.data: the recording was not finished (perf record was killed?): read up to the end of the file"
	# every record is there: the report is the finished recording's
	compare_shares "procedures" "$(our_shares sym <<<"$json")" \
		"$(perf_shares "$D/flat.data" sym)" 1 0.1
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$n"
	# cut inside its last sample: that one is left out
	report killed-mid.data
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} == "uprofile: killed-mid.data: the recording was not finished"* ]] ||
		fail "no note: $stderr"
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$((n - 1))"
}

# ---- 11: records we do not know ----------------------------------------

@test "unknown record types in a pipe stream: the report works, stderr names them once with their count" {
	# type 200, size 16, once between two records and once at the end
	python3 - "$D/pipe.data" >unknown.data <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read()
	rec = struct.pack('<IHHQ', 200, 0, 16, 0)
	off, ends = 16, []
	while off < len(d):
	    off += struct.unpack_from('<H', d, off + 6)[0]
	    ends.append(off)
	assert off == len(d)
	mid = ends[len(ends) // 2]
	sys.stdout.buffer.write(d[:mid] + rec + d[mid:] + rec)
	EOF
	report unknown.data
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} =~ ^uprofile:\ unknown\.data:\ 2\ records\ of\ type\ .*not\ read ]] ||
		fail "not one note naming the 2 unknown records: $stderr"
	# perf itself stops at them: its report of the stream without them
	assert_same_as_perf "$D/pipe.data"
	# read from a pipe, the same
	run -0 --separate-stderr bash -c '"$2" -i - --format json <"$1" | cat' _ unknown.data "$UPROFILE"
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} == "uprofile: -: 2 records of type "* ]] || fail "$stderr"
}

# ---- 12: the time stream -----------------------------------------------

# perf_t0 FILE: the time of FILE's first sample, in perf's clock (ns).
perf_t0() {
	perf script -i "$1" --ns -F time 2>/dev/null |
		awk 'NR == 1 { gsub(/[^0-9]/, ""); print }'
}

# secs NS: NS nanoseconds as perf's --time takes them (S.NNNNNNNNN).
secs() {
	printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000))
}

@test "--time on a perf.data: the window's samples and shares are perf report --time's" {
	local f=$D/phases.data t0 a b
	t0=$(perf_t0 "$f")
	[[ $t0 =~ ^[0-9]+$ ]] || fail "no sample time from perf script: $t0"
	# from 0.1 s to 0.3 s after the first sample (phases of 0.15 s:
	# phase_a's end, phase_b)
	report "$f" --time 0.1-0.3
	run -0 jq -c .timeline.window <<<"$json"
	assert_output '[[0.1,0.3]]'
	a=$(secs $((t0 + 100000000)))
	b=$(secs $((t0 + 300000000)))
	compare_shares "procedures in 0.1-0.3 s" "$(our_shares sym <<<"$json")" \
		"$(perf_shares "$f" sym --time "$a,$b")" 1 0.1
	run -0 bash -c 'perf script -i "$1" -F time --time "$2,$3" 2>/dev/null | wc -l' \
		_ "$f" "$a" "$b"
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$output"
	(($(json_samples phase_b cpu-clock - <<<"$json") > 0)) || fail "no phase_b in the window"
	# a window in percent of the run: perf's is of the time from its
	# first sample to its last, as ours
	report "$f" --time 25%-75%
	compare_shares "procedures in 25%-75%" "$(our_shares sym <<<"$json")" \
		"$(perf_shares "$f" sym --time 25%-75%)" 1 0.1
	run -0 bash -c 'perf script -i "$1" -F time --time 25%-75% 2>/dev/null | wc -l' _ "$f"
	assert_equal "$(jq '.statistics[0].samples' <<<"$json")" "$output"
}

@test "-timeline on a perf.data: its intervals hold perf's samples, its phases are the program's" {
	local f=$D/phases.data t0
	t0=$(perf_t0 "$f")
	report "$f" -timeline 3
	run -0 jq -r '[.timeline.phases[].procedure] | join(" ")' <<<"$json"
	assert_output 'phase_a phase_b phase_c'
	run -0 jq -r '.timeline | [.samples, (.intervals | length)] | @tsv' <<<"$json"
	assert_output "$(jq '.statistics[0].samples' <<<"$json")	3"
	# each interval's samples are those perf's times put in it (an
	# interval's ends are rounded to the microsecond: one sample either
	# side of one is tolerated)
	local want got
	want=$(perf script -i "$f" --ns -F time 2>/dev/null | awk -v t0="$t0" \
		-v ends="$(jq -r '[.timeline.intervals[].end] | join(" ")' <<<"$json")" '
		BEGIN { n = split(ends, e, " ") }
		{ gsub(/[^0-9]/, ""); t = ($0 - t0) / 1e9
		  for (i = 1; i < n && t >= e[i]; i++) ;
		  c[i]++ }
		END { for (i = 1; i <= n; i++) printf "%d ", c[i] }')
	got=$(jq -r '[.timeline.intervals[].samples] | join(" ")' <<<"$json")
	awk -v w="$want" -v g="$got" 'BEGIN {
		n = split(w, a, " "); split(g, b, " ")
		for (i = 1; i <= n; i++) { d = a[i] - b[i]; if (d > 1 || d < -1) exit 1 }
	}' || fail "samples per interval: ours $got, perf's times $want"
	run -0 --separate-stderr "$UPROFILE" -i "$f" -timeline 30
	assert_output --partial 'phase_a'
	assert_output --regexp 'phases \(consecutive intervals'
}

# ---- found while writing these tests -----------------------------------

@test "lost samples: the heading's lost count is perf's, each loss counted once" {

	# a one-page buffer at a high rate with call chains: perf falls behind
	perf_record -m 1 -g -e cpu-clock -F 20000 -o lost.data -- "$TPROG/threads" 200 \
		2>perf.err || fail "perf record: $(cat perf.err)"
	local want
	want=$(perf report -i lost.data --stdio 2>/dev/null |
		sed -n 's/^# Total Lost Samples: //p')
	[[ $want =~ ^[0-9]+$ ]] || fail "no 'Total Lost Samples' in perf report's header"
	((want > 0)) || skip "perf lost no sample here: no loss to count"
	report lost.data
	assert_equal "$(jq '.statistics[0].lost' <<<"$json")" "$want"
	assert_same_as_perf lost.data
	run -0 --separate-stderr "$UPROFILE" -i lost.data
	assert_line --regexp "^  cpu-clock, .*: [0-9]+ samples, $want lost$"
}

@test "a recording without CPU numbers (perf record of a program): -by cpu does not put its samples on CPU 0" {

	# perf record of a program does not record CPUs
	run -0 perf_shares "$D/threads.data" cpu
	assert_output $'cpu-clock / -001\t100.00'
	report "$D/threads.data" -by cpu
	# JSON: a key whose value is not known is null
	assert_equal "$(jq -c '[.by_totals[].cpu]' <<<"$json")" "[null]"
}

@test "a pipe stream that ends inside a record (perf killed while writing) is read, with a note saying so" {

	# pipe.data cut inside its middle sample
	python3 - "$D/pipe.data" >cut.data <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read()
	off, samples = 16, []
	while off < len(d):
	    typ, misc, size = struct.unpack_from('<IHH', d, off)
	    if typ == 9:
	        samples.append((off, size))
	    off += size
	at, size = samples[len(samples) // 2]
	sys.stdout.buffer.write(d[:at + size // 2])
	EOF
	report cut.data
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} == "uprofile: cut.data: "* ]] || fail "no note: $stderr"
	assert_same_as_perf cut.data
	run -0 --separate-stderr bash -c '"$2" -i - --format json <"$1" | cat' _ cut.data "$UPROFILE"
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} == "uprofile: -: "* ]] || fail "no note: $stderr"
}
