#!/usr/bin/env bats
# Breakdowns (-by comm|pid|tid|cpu|object): the rows of a report split by
# the task that ran (command name, process, thread), the CPU and the
# object, with the whole profile's totals per value.  The workloads'
# splits are known by construction (tests/programs): forknamed's children
# "worka" and "workb" share their CPU time 1:3, threads' two threads 1:1.
# Shares are checked within the binomial bound of the sample counts.

load helpers

# forknamed_profile FILE: a profile of forknamed (worka 400 ms, workb
# 1200 ms of CPU time).
forknamed_profile() {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o "$1" "$TPROG/forknamed" 400
}

# by_samples JSON SELECT: the samples of the first statistic of the
# by_totals entries that jq filter SELECT keeps, summed.
by_samples() {
	jq -e "[.by_totals[] | select($2) | .samples[\"cpu-clock\"]]
		| add // 0" <<<"$1"
}

@test "-by comm: the two named children share their CPU time 1:3" {
	forknamed_profile f.umon
	run -0 "$UPROFILE" -i f.umon -by comm --format json
	json_check <<<"$output"
	local json=$output a b
	run -0 jq -c '.by' <<<"$json"
	assert_output '["comm"]'
	a=$(by_samples "$json" '.comm == "worka"')
	b=$(by_samples "$json" '.comm == "workb"')
	assert_binomial "worka against workb" "$a" "$((a + b))" 25 6
	# The totals are the whole profile's.
	run -0 jq -e '([.by_totals[].samples["cpu-clock"]] | add) ==
		.statistics[0].samples' <<<"$json"
	# Every row of spin_work is one of the two names.
	run -0 jq -r '[.rows[] | select(.procedure == "spin_work") | .comm]
		| sort | unique | join(" ")' <<<"$json"
	assert_output "worka workb"
}

@test "-by after a run: the summary stays a summary; -display shows the split rows" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -by comm -o s.umon \
		"$TPROG/forknamed" 30
	# As without -by: the top procedures and the closing line.
	[[ $stderr == "top procedures by cpu-clock:"$'\n'* ]] ||
		fail "not the summary: $stderr"
	[[ $stderr == *$'\n'"uprofile: "*" samples (cpu-clock), "*" profile written to s.umon" ]] ||
		fail "no closing line: $stderr"
	[[ $stderr != *"totals by comm"* && $stderr != *"procedures (incl."* &&
		$stderr != *"Profile s.umon"* ]] || fail "a full report: $stderr"
	[[ -z $output ]] || fail "on stdout: $output"
	# The breakdown is -display's (on stderr) and -i's.
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -by comm -display \
		-o d.umon "$TPROG/spin2" 50
	[[ $stderr == *$'\n'"totals by comm:"$'\n'* ]] ||
		fail "-display -by comm: no totals by comm: $stderr"
	[[ -z $output ]] || fail "on stdout: $output"
	run -0 "$UPROFILE" -i s.umon -by comm
	assert_line "totals by comm:"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ work[ab] +spin_work +forknamed$'
}

@test "-by pid: the children are two processes, split 1:3; at most the parent besides" {
	forknamed_profile f.umon
	run -0 "$UPROFILE" -i f.umon -by pid,comm --format json
	local json=$output a b n
	n=$(jq '[.by_totals[].pid] | unique | length' <<<"$json")
	((n >= 2 && n <= 3)) || fail "$n processes, expected 2 or 3"
	# spin_work: one row per child process, none of the parent's
	run -0 jq -r '[.rows[] | select(.procedure == "spin_work")] |
		map("\(.pid) \(.comm)") | join(",")' <<<"$json"
	[[ $output =~ ^([0-9]+)\ work[ab],([0-9]+)\ work[ab]$ ]] ||
		fail "spin_work rows: $output"
	[[ ${BASH_REMATCH[1]} != "${BASH_REMATCH[2]}" ]] ||
		fail "both children have pid ${BASH_REMATCH[1]}"
	a=$(jq '[.rows[] | select(.procedure == "spin_work" and
		.comm == "worka") | .samples["cpu-clock"]] | add' <<<"$json")
	b=$(jq '[.rows[] | select(.procedure == "spin_work" and
		.comm == "workb") | .samples["cpu-clock"]] | add' <<<"$json")
	assert_binomial "spin_work of worka" "$a" "$((a + b))" 25 6
	# text: a column per key, the totals first
	run -0 "$UPROFILE" -i f.umon -by comm,pid -quit 2
	assert_line --regexp '^totals by comm pid:$'
	assert_line --regexp '^ +% +samples comm +pid$'
	assert_line --regexp '^ +% +samples +cum% comm +pid procedure +object$'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ workb +[0-9]+ spin_work +forknamed$'
}

@test "-by tid: each thread of threads is its own row, 1:1, in one process" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o t.umon "$TPROG/threads" 700
	run -0 "$UPROFILE" -i t.umon -by pid,tid --format json
	local json=$output a b
	run -0 jq -r '[.rows[] | select(.procedure | test("^thread_work_"))
		| "\(.procedure) \(.pid) \(.tid)"] | join(",")' <<<"$json"
	[[ $output =~ ^thread_work_[ab]\ ([0-9]+)\ ([0-9]+),thread_work_[ab]\ ([0-9]+)\ ([0-9]+)$ ]] ||
		fail "thread rows: $output"
	local pa=${BASH_REMATCH[1]} ta=${BASH_REMATCH[2]}
	local pb=${BASH_REMATCH[3]} tb=${BASH_REMATCH[4]}
	[[ $pa == "$pb" && $ta != "$tb" && $ta != "$pa" && $tb != "$pa" ]] ||
		fail "threads: pid $pa tid $ta, pid $pb tid $tb"
	a=$(by_samples "$json" ".tid == $ta")
	b=$(by_samples "$json" ".tid == $tb")
	assert_binomial "thread $ta against $tb" "$a" "$((a + b))" 50 8
}

@test "split rows add up to the rows of every view" {
	forknamed_profile f.umon
	local view sum
	# per row identity (procedure, line, address range), the samples
	sum='[.rows[] | {k: "\(.procedure) \(.inlined_into) \(.file) \(.line) \(.end)",
		n: .samples["cpu-clock"]}] | group_by(.k)
		| map("\(.[0].k) \(map(.n) | add)") | sort | join("\n")'
	for view in -procedures -lines -heavy -blocks; do
		run -0 "$UPROFILE" -i f.umon "$view" --format json
		local whole=$output
		run -0 "$UPROFILE" -i f.umon "$view" -by comm,tid,cpu \
			--format json
		json_check <<<"$output"
		assert_equal "$(jq -r "$sum" <<<"$output")" \
			"$(jq -r "$sum" <<<"$whole")"
	done
	# -lines: the rows of one line come together, hottest first
	run -0 "$UPROFILE" -i f.umon -lines -by comm --format json
	run -0 jq -e '[.rows[] | select(.procedure == "spin_work")] |
		(map(.line) | . == sort) and
		all(.[]; .comm == "worka" or .comm == "workb")' <<<"$output"
}

@test "-asm -by comm: each sampled instruction split, the procedure's total whole" {
	forknamed_profile f.umon
	run -0 "$UPROFILE" -i f.umon -asm -by comm -only spin_work --format json
	json_check <<<"$output"
	local json=$output
	# the heading has no values; its instructions add up to it, every
	# sampled one under one of the two names
	run -0 jq -e '.rows[0] | .procedure == "spin_work" and .comm == null
		and ([.instructions[].samples["cpu-clock"]] | add) ==
		    .samples["cpu-clock"]
		and all(.instructions[] | select(.samples["cpu-clock"] > 0);
			.comm == "worka" or .comm == "workb")' <<<"$json"
	# unsampled instructions stay in the listing, once each
	run -0 jq -e '.rows[0].instructions | map(select(.samples["cpu-clock"]
		== 0) | .address) | length == (unique | length) and length > 5' \
		<<<"$json"
	run -0 "$UPROFILE" -i f.umon -asm -by comm -only spin_work
	assert_line --regexp '^ +% +samples comm +address +instruction$'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ workb +0x[0-9a-f]+ +[a-z]'
}

@test "-by object: the whole profile per object; needs no task data" {
	forknamed_profile f.umon
	run -0 "$UPROFILE" -i f.umon -by object --format json
	local json=$output
	run -0 jq -e '([.by_totals[].samples["cpu-clock"]] | add) ==
		.statistics[0].samples and
		(.by_totals[0].object | endswith("/forknamed")) and
		all(.rows[]; has("comm") | not)' <<<"$json"
	run -0 "$UPROFILE" -i f.umon -by object
	assert_line --regexp '^totals by object:$'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ forknamed$'
}

@test "a profile without per-task data: -by comm is one line naming the file, status 125" {
	forknamed_profile f.umon
	# Version 1 has no task sections (nor any writer before them).
	python3 - <<'EOF'
import struct, zlib
b = bytearray(open('f.umon', 'rb').read())
struct.pack_into('<I', b, 8, 1)
open('old.umon', 'wb').write(b)
EOF
	run -125 --separate-stderr "$UPROFILE" -i old.umon -by comm
	assert_output ""
	assert_equal "$stderr" "uprofile: 'old.umon' has no per-task data for -by comm (it was taken before profiles recorded tasks)"
	run -125 --separate-stderr "$UPROFILE" -i old.umon -by pid,cpu
	[[ $stderr == *"for -by pid,cpu"* ]] || fail "$stderr"
	run -0 "$UPROFILE" -i old.umon -by object
}

@test "kprofile -by comm,cpu: the kernel time of a process that makes syscalls" {
	skip_unless_root
	skip_unless_perf_works
	# dd makes a system call per byte; sh reports the kernel time the
	# kernel accounted to it (its waited-for children's stime, field 17
	# of /proc/PID/stat, in clock ticks), read by the shell itself (no
	# other child) and run again until it is half a second, however
	# fast the machine.
	run -0 "$KPROFILE" -quiet -e cpu-clock -o k.kmon -- sh -c \
		'h=$(($(getconf CLK_TCK) / 2)) t=0
		 while [ "$t" -lt "$h" ]; do
			dd if=/dev/zero of=/dev/null bs=1 count=400000 2>/dev/null
			read -r l </proc/$$/stat; set -- $l; t=${17}
		 done; echo "$t" >stime'
	run -0 "$KPROFILE" -i k.kmon -by comm,cpu --format json
	json_check <<<"$output"
	local json=$output dd ticks hz ncpus
	run -0 jq -e '([.by_totals[].samples["cpu-clock"]] | add) ==
		.statistics[0].samples' <<<"$json"
	ncpus=$(jq '.host.ncpus' <<<"$json")
	run -0 jq -e --argjson n "$ncpus" \
		'all(.by_totals[]; .cpu == null or (.cpu >= 0 and .cpu < $n))' \
		<<<"$json"
	dd=$(by_samples "$json" '.comm == "dd"')
	ticks=$(cat stime)
	hz=$(getconf CLK_TCK)
	# 1000 samples a second of the time dd spent in the kernel, to
	# within 20% (the kernel's accounting is by ticks) and the bound.
	awk -v k="$dd" -v t="$ticks" -v hz="$hz" 'BEGIN {
		want = t * 1000 / hz
		tol = 0.2 * want + 4.5 * sqrt(want) + 1000 / hz
		if (want < 300) { print "dd ran too short: " want; exit 1 }
		d = k - want; if (d < 0) d = -d
		if (d > tol) {
			printf "dd: %d kernel samples, stime %.0f ms\n", k, want
			exit 1
		}
	}' || fail "dd's kernel samples do not match its system time"
	# text: the columns and the hottest of dd's rows
	run -0 "$KPROFILE" -i k.kmon -by comm,cpu -only '*' -quit 40
	assert_line --regexp '^totals by comm cpu:$'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ dd +[0-9]+$'
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ dd +[0-9]+ [^ ].* +\[kernel\.kallsyms\]$'
}

@test "-by: help, bad keys and the views and formats it does not apply to" {
	local tool
	for tool in "$UPROFILE" "$KPROFILE"; do
		run -0 "$tool" --help
		assert_output --partial "--by=KEY[,KEY...]"
		assert_output --partial "split each row by comm (command name), pid, tid,"
	done
	run -125 --separate-stderr "$UPROFILE" -i x.umon -by comm,nope
	assert_equal "$stderr" "uprofile: bad -by 'comm,nope': keys are comm, pid, tid, cpu, object and state, separated by commas
Try \`uprofile --help' or \`uprofile --usage' for more information."
	run -125 --separate-stderr "$UPROFILE" -i x.umon -by pid -tree
	[[ $stderr == *"-by splits the rows of -procedures, -lines, -heavy, -blocks and -asm: -callers, -callees and -tree do not apply"* ]] ||
		fail "$stderr"
	for f in pprof folded csv; do
		run -125 --separate-stderr "$UPROFILE" -i x.umon -by pid \
			--format "$f"
		[[ $stderr == *"-by applies to the text and json reports, not to --format $f"* ]] ||
			fail "$f: $stderr"
	done
}

@test "-by on a profile with call stacks: split rows have no inclusive total" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -g -o g.umon "$TPROG/forknamed" 100
	run -0 "$UPROFILE" -i g.umon -by comm -quit 3
	assert_line --regexp '^ +% +samples +cum% comm +procedure +object$'
	refute_output --partial 'nan'
	run -0 "$UPROFILE" -i g.umon -by comm --format json
	run -0 jq -e 'all(.rows[]; has("total_percent") | not)' <<<"$output"
	# -by object keeps the rows whole, and their total%
	run -0 "$UPROFILE" -i g.umon -by object -quit 3
	assert_line --regexp '^ +% +samples +total% +cum% procedure +object$'
}
