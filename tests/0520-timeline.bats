#!/usr/bin/env bats
# -timeline [N]: the run cut into N intervals, a row of shaded cells per
# thread (process, command, CPU), each interval's hottest procedure and
# the phases they make (formats/report/timeline.c).  Exact figures come
# from profiles whose time stream is known by construction
# (tests/tools/mkevents: samples and off-CPU intervals at given times);
# real runs from programs whose phases are known by construction
# (tests/programs/timephases.c: phase_a, phase_b, phase_c one after
# another in wall time; timeswap.c: one thread works while the other
# waits, then they swap), checked with what holds on a busy machine.

load helpers

MKEVENTS=$ROOT/$BUILD/tests/mkevents

# events FILE: a profile of 4 ms (intervals of 1 ms with -timeline 4):
# thread a (pid 10, tid 10) samples prog+0x100 at 0 and 0.999 ms and is
# blocked in prog+0x300 from 1.5 ms to 3 ms; thread b (tid 11) samples
# prog+0x200 at 1 ms and 2.999 ms (cpu 1), prog+0x100 at 3 ms (cpu 0).
events() {
	run -0 "$MKEVENTS" "$1" 4000 \
		a,10,10,0,running,0x100,0,1000 \
		a,10,10,0,running,0x100,999,1000 \
		b,10,11,1,running,0x200,1000,1000 \
		a,10,10,0,blocked,0x300,1500,1500 \
		b,10,11,1,running,0x200,2999,1000 \
		b,10,11,0,running,0x100,3000,1000
}

# fast_profile_of NAME PROGRAM [ARG...]: profile_of (helpers.bash) at
# 4000 samples a second of CPU time (the kernel's limit if lower), so
# that a program getting a tenth of a CPU on a busy machine still has
# tens of samples in a tenth of a second.
fast_profile_of() {
	local name=$1 rate cached
	shift
	skip_unless_perf_works
	cached=$BATS_FILE_TMPDIR/$name.out
	rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null) ||
		rate=1000
	((rate > 4000)) && rate=4000
	if [[ ! -s $cached ]]; then
		run -0 "$UPROFILE" -quiet -e cpu-clock -F "$rate" \
			-o "$cached.new" "$@"
		mv "$cached.new" "$cached"
	fi
	cp "$cached" "$name.out"
}

# tl JSON FILTER: jq -c FILTER on the timeline member of report JSON.
tl() {
	jq -c ".timeline | $2" <<<"$1"
}

@test "exact: a sample counts in its interval, an off-CPU interval by its overlap" {
	events e.out
	run -0 "$UPROFILE" -i e.out -timeline 4 --format json
	json_check <<<"$output"
	local json=$output
	assert_equal "$(jq -r .view <<<"$json")" timeline
	assert_equal "$(tl "$json" '[.statistic, .by, .start_seconds, .end_seconds, .samples, .weight, .max_cell_weight, .selection]')" \
		'["cpu-clock","tid",0,0.004,6,6500000,2000000,null]'
	assert_equal "$(tl "$json" '[.intervals[] | [.start, .end, .samples, .weight]]')" \
		'[[0,0.001,2,2000000],[0.001,0.002,2,1500000],[0.002,0.003,1,2000000],[0.003,0.004,1,1000000]]'
	# ties go to the first name: prog+0x200 before prog+0x300
	assert_equal "$(tl "$json" '[.intervals[] | [.hottest, .hottest_weight, .hottest_percent]]')" \
		'[["prog+0x100",2000000,100],["prog+0x200",1000000,66.6667],["prog+0x200",1000000,50],["prog+0x100",1000000,100]]'
	# rows in order of first activity; the interval's sample in its
	# first interval, its weight spread
	assert_equal "$(tl "$json" '[.rows[] | [.comm, .pid, .tid, .first_seconds, .total_samples, .total_weight, .samples, .weights]]')" \
		'[["a",10,10,0,3,3500000,[2,1,0,0],[2000000,500000,1000000,0]],["b",10,11,0.001,3,3000000,[0,1,1,1],[0,1000000,1000000,1000000]]]'
	assert_equal "$(tl "$json" '[.phases[] | [.start, .end, .first_interval, .last_interval, .procedure, .weight, .procedure_weight, .percent]]')" \
		'[[0,0.001,0,0,"prog+0x100",2000000,2000000,100],[0.001,0.003,1,2,"prog+0x200",3500000,2000000,57.1429],[0.003,0.004,3,3,"prog+0x100",1000000,1000000,100]]'
	# the report's rows are the procedures view's, unsplit
	assert_equal "$(jq -c '[.rows[] | [.procedure, .samples["cpu-clock"]]]' <<<"$json")" \
		'[["prog+0x100",3],["prog+0x200",2],["prog+0x300",1]]'
}

@test "jsoncheck holds the timeline's figures to each other" {
	events e.out
	run -0 "$UPROFILE" -i e.out -timeline 4 --format json
	local json=$output bad
	json_check <<<"$json"
	for bad in '.intervals[1].weight += 1' '.rows[0].samples[0] += 1' \
		'.intervals[3].start = 0.0025' '.phases[1].last_interval = 3' \
		'.rows |= reverse' '.intervals[0].hottest = null'; do
		run -1 --separate-stderr python3 "$ROOT/tests/tools/jsoncheck" \
			< <(jq ".timeline |= ($bad)" <<<"$json")
		[[ $stderr == "jsoncheck: -: timeline: "* ]] ||
			fail "$bad: $stderr"
	done
}

@test "exact: the text has the JSON's figures, shaded against the busiest cell" {
	events e.out
	LC_ALL=C.UTF-8 run -0 "$UPROFILE" -i e.out -timeline 4
	assert_line "timeline by cpu-clock, 0.000-0.004 s in 4 intervals of 0.001 s"
	assert_line "(a cell: its weight against the busiest cell's, █ = 2000000):"
	assert_line "  comm tid                  0.000 s"
	# a: 2, 0.5, 1, 0 ms of 2: levels 8, 3, 5, 0
	assert_line "  a                     10 |█▃▅ |"
	assert_line "  b                     11 | ▅▅▅|"
	assert_line "  hottest procedure        |ABBA|"
	assert_line "    A  prog+0x100 (prog)"
	assert_line "    B  prog+0x200 (prog)"
	assert_line "phases (consecutive intervals with the same hottest procedure), by cpu-clock:"
	assert_line "  0.000-0.001 s  A  prog+0x100  (100.0%)"
	assert_line "  0.001-0.003 s  B  prog+0x200  (57.1%)"
	assert_line "  0.003-0.004 s  A  prog+0x100  (100.0%)"
	refute_line --partial "procedures (incl. inlined code)"
	# not UTF-8: the same levels in ASCII
	LC_ALL= LC_CTYPE= LANG=C run -0 "$UPROFILE" -i e.out -timeline 4
	assert_line "  a                     10 |@-+ |"
	assert_line "  b                     11 | +++|"
	assert_line "(a cell: its weight against the busiest cell's, @ = 2000000):"
	LC_ALL=C LANG=C.UTF-8 run -0 "$UPROFILE" -i e.out -timeline 4
	assert_line "  a                     10 |@-+ |"
}

@test "exact: -only's share of each cell and interval; -by pid, comm, cpu" {
	events e.out
	run -0 "$UPROFILE" -i e.out -timeline 4 -only 'prog+0x2*' --format json
	json_check <<<"$output"
	local json=$output
	assert_equal "$(tl "$json" .selection)" '{"only":["prog+0x2*"],"exclude":[]}'
	assert_equal "$(tl "$json" '[.intervals[] | [.selected_samples, .selected_weight, .selected_percent]]')" \
		'[[0,0,0],[1,1000000,66.6667],[1,1000000,50],[0,0,0]]'
	assert_equal "$(tl "$json" '[.rows[] | .selected_percent]')" \
		'[[0,0,0,null],[null,100,100,0]]'
	# the phases are of the hottest procedure overall
	assert_equal "$(tl "$json" '[.phases[].procedure]')" \
		'["prog+0x100","prog+0x200","prog+0x100"]'
	LC_ALL=C.UTF-8 run -0 "$UPROFILE" -i e.out -timeline 4 -only 'prog+0x2*'
	assert_line "(a cell: the share in its weight of -only prog+0x2*, █ = 100%):"
	assert_line "  a                     10 |    |"
	assert_line "  b                     11 | ██ |"
	# 66.7% and 50% of the intervals' weight: levels 6 and 5
	assert_line "  selected, all rows       | ▆▅ |"
	# -exclude is a selection too
	run -0 "$UPROFILE" -i e.out -timeline 4 -exclude 'prog+0x1*' --format json
	assert_equal "$(tl "$output" '[.intervals[].selected_percent]')" \
		'[0,100,100,0]'
	# one row per process, per command, per CPU
	run -0 "$UPROFILE" -i e.out -timeline 4 -by pid --format json
	assert_equal "$(tl "$output" '[.by, [.rows[] | [.comm, .pid, .tid, .weights]]]')" \
		'["pid",[["a",10,null,[2000000,1500000,2000000,1000000]]]]'
	run -0 "$UPROFILE" -i e.out -timeline 4 -by comm --format json
	assert_equal "$(tl "$output" '[.rows[] | [.comm, .pid, .total_weight]]')" \
		'[["a",null,3500000],["b",null,3000000]]'
	run -0 "$UPROFILE" -i e.out -timeline 4 -by cpu --format json
	assert_equal "$(tl "$output" '[.rows[] | [.cpu, .comm, .weights]]')" \
		'[[0,null,[2000000,500000,1000000,1000000]],[1,null,[0,1000000,1000000,0]]]'
	run -0 "$UPROFILE" -i e.out -timeline 4 -by cpu
	assert_line --regexp '^  cpu 0 +\|'
	assert_line --regexp '^  cpu 1 +\|'
}

@test "exact: with --time, the window in N intervals, intervals cut by it" {
	events e.out
	run -0 "$UPROFILE" -i e.out --time 1ms-3ms -timeline 2 --format json
	json_check <<<"$output"
	local json=$output
	assert_equal "$(tl "$json" '[.window, .start_seconds, .end_seconds]')" \
		'[[[0.001,0.003]],0.001,0.003]'
	assert_equal "$(tl "$json" '[.intervals[] | [.start, .end, .weight, .hottest]]')" \
		'[[0.001,0.002,1500000,"prog+0x200"],[0.002,0.003,2000000,"prog+0x200"]]'
	assert_equal "$(tl "$json" '[.rows[] | [.comm, .weights]]')" \
		'[["b",[1000000,1000000]],["a",[500000,1000000]]]'
}

@test "the default number of intervals: COLUMNS, else 60; -timeline N and -timeline=N" {
	events e.out
	COLUMNS=100 run -0 "$UPROFILE" -i e.out -timeline
	# 100 columns less the 29 of the labels and borders
	assert_line --regexp '^timeline by cpu-clock, .* in 71 intervals of '
	assert_line --regexp '^  a +10 \|.{71}\|$'
	unset COLUMNS
	run -0 "$UPROFILE" -i e.out -timeline
	assert_line --regexp ' in 60 intervals of '
	COLUMNS=100 run -0 "$UPROFILE" -i e.out -timeline --format json
	assert_equal "$(tl "$output" '.intervals | length')" 60
	run -0 "$UPROFILE" -timeline 8 -i e.out --format json
	assert_equal "$(tl "$output" '.intervals | length')" 8
	run -0 "$UPROFILE" -i e.out -timeline=5 --format json
	assert_equal "$(tl "$output" '.intervals | length')" 5
	run -0 "$UPROFILE" -i e.out --timeline=3 --format json
	assert_equal "$(tl "$output" '.intervals | length')" 3
	# never shorter than a nanosecond: at most the window's length in ns
	run -0 "$UPROFILE" -i e.out --time 0-500ns -timeline 1000 --format json
	assert_equal "$(tl "$output" '.intervals | length')" 500
}

@test "refused: a profile without a timeline (merged, old, none kept), one line, 125" {
	events e.out
	run -0 "$UPROFILE" -quiet --merge m.out e.out e.out
	run -125 --separate-stderr "$UPROFILE" -i m.out -timeline
	assert_equal "$stderr" "uprofile: 'm.out' has no timeline, which -timeline needs: it adds up several runs, each with its own clock"
	assert_output ""
	run -125 --separate-stderr "$UPROFILE" -i e.out -i e.out -timeline 4
	assert_equal "$stderr" "uprofile: 'e.out + e.out' has no timeline, which -timeline needs: it adds up several runs, each with its own clock"
	# version 2: no time stream
	python3 - <<-'EOF'
	import os, struct, sys
	sys.path.insert(0, os.path.join(os.environ['ROOT'], 'tests', 'tools'))
	from umonsections import sections, rebuild
	d = bytearray(open('e.out', 'rb').read())
	struct.pack_into('<I', d, 8, 2)
	open('old.out', 'wb').write(
	    rebuild(d, [s for s in sections(d) if s[0] != 15]))
	EOF
	run -0 "$UPROFILE" -i old.out
	run -125 --separate-stderr "$UPROFILE" -i old.out -timeline
	assert_equal "$stderr" "uprofile: 'old.out' has no timeline, which -timeline needs: it was written before times were kept (profile file version 1 or 2)"
	run -0 "$ROOT/$BUILD/tests/mkstacks" flat flat.out
	run -125 --separate-stderr "$KPROFILE" -i flat.out -timeline --format json
	assert_equal "$stderr" "kprofile: 'flat.out' has no timeline, which -timeline needs: its writer kept no times"
	assert_output ""
}

@test "refused at the command line: other views and formats, --diff, two keys" {
	events e.out
	local args
	for args in "-lines" "-tree" "-stride 4" "--format csv" "--format folded" \
		"-by pid,tid" "-by object" "--diff e.out" "-timeline=0" \
		"-timeline=1001" "-timeline=x"; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$UPROFILE" -i e.out -timeline $args
		[[ $stderr == uprofile:\ * ]] || fail "$args: $stderr"
	done
}

# ---- real runs -------------------------------------------------------

@test "timephases: the thirds' hottest procedures are phase_a, phase_b, phase_c, and so are the phases" {
	fast_profile_of ph "$TPROG/timephases" 400
	run -0 "$UPROFILE" -i ph.out -timeline 3 --format json
	json_check <<<"$output"
	local json=$output
	assert_equal "$(tl "$json" '[.intervals[].hottest]')" \
		'["phase_a","phase_b","phase_c"]'
	assert_equal "$(tl "$json" '[.phases[] | [.procedure, .first_interval, .last_interval]]')" \
		'[["phase_a",0,0],["phase_b",1,1],["phase_c",2,2]]'
	# each third is mostly its phase (boundaries shift by the start-up)
	run -0 jq -e '.timeline.intervals | all(.hottest_percent > 60)' <<<"$json"
	run -0 "$UPROFILE" -i ph.out -timeline 3
	assert_line "  hottest procedure        |ABC|"
	assert_line "    A  phase_a (timephases)"
	assert_line "    B  phase_b (timephases)"
	assert_line "    C  phase_c (timephases)"
	# the phases list, in this order and nothing else
	run -0 awk '/^phases /{on=1; next} on && NF {print $3, $4}' <<<"$output"
	assert_output $'A phase_a\nB phase_b\nC phase_c'
}

@test "timephases: the text and the JSON say the same (cells, hottest, phases)" {
	fast_profile_of ph "$TPROG/timephases" 400
	run -0 "$UPROFILE" -i ph.out -timeline 30 --format json
	local json=$output
	LC_ALL=C run -0 "$UPROFILE" -i ph.out -timeline 30
	local text=$output
	# the text's cells and letters, from the JSON's weights and hottest
	# procedures (levels: 1 + round(7 * weight / busiest), 0 for none)
	run -0 python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["timeline"]
ramp = " .:-=+*#@"
procs = []
for i in t["intervals"]:
    if i["hottest"] is not None and i["hottest"] not in procs:
        procs.append(i["hottest"])
for r in t["rows"]:
    cells = "".join(ramp[0 if not w else 1 + int(7 * (w / t["max_cell_weight"]) + 0.5)] for w in r["weights"])
    print("  %-16.16s %7d |%s|" % (r["comm"], r["tid"], cells))
print("  %-24s |%s|" % ("hottest procedure", "".join(" " if i["hottest"] is None else chr(65 + procs.index(i["hottest"])) for i in t["intervals"])))
for p in t["phases"]:
    if p["procedure"] is not None:
        print("%s (%.1f%%)" % (p["procedure"], p["percent"]))
' <(printf '%s\n' "$json")
	local want=$output line
	# a row, the letters, three phases at least: not a vacuous check
	(($(wc -l <<<"$want") >= 5)) || fail "too little to compare: $want"
	while IFS= read -r line; do
		if [[ $line == "  "* ]]; then
			grep -qxF -- "$line" <<<"$text" || fail "not in the text: '$line'"
		else
			grep -qF -- "  ${line% (*}  (${line#* (}" <<<"$text" ||
				fail "phase not in the text: '$line'"
		fi
	done <<<"$want"
}

@test "timephases: -only phase_b is at least 90% of the middle of phase_b's phase" {
	fast_profile_of ph "$TPROG/timephases" 400
	run -0 "$UPROFILE" -i ph.out -timeline 12 -only phase_b --format json
	json_check <<<"$output"
	local json=$output mid
	# phase_b's phase (the longest, if noise split it), its middle
	# interval: wholly inside phase_b, whatever the start-up took
	mid=$(jq '[.timeline.phases[] | select(.procedure == "phase_b")]
		| max_by(.last_interval - .first_interval)
		| (.first_interval + .last_interval) / 2 | floor' <<<"$json")
	[[ $mid =~ ^[0-9]+$ ]] || fail "no phase of phase_b: $mid"
	run -0 jq -r --argjson k "$mid" '.timeline.intervals[$k]
		| "\(.samples) \(.selected_percent)"' <<<"$json"
	local n=${output% *} share=${output#* }
	# 10 samples: a share of 90% allows one sample elsewhere (a clock
	# read: well under 1% of them)
	((n >= 10)) || fail "workload too short: $n samples in interval $mid"
	awk -v s="$share" 'BEGIN { exit !(s >= 90) }' ||
		fail "phase_b has $share% of interval $mid"
	# and next to nothing of it in the middle of phase_a's phase (null:
	# the program had no CPU then)
	mid=$(jq '[.timeline.phases[] | select(.procedure == "phase_a")]
		| max_by(.last_interval - .first_interval)
		| (.first_interval + .last_interval) / 2 | floor' <<<"$json")
	run -0 jq -e --argjson k "$mid" '.timeline.intervals[$k]
		| .selected_percent == null or .selected_percent < 10' <<<"$json"
	run -0 "$UPROFILE" -i ph.out -timeline 12 -only phase_b
	assert_line --regexp '^  selected, all rows +\|'
}

@test "timeswap: the threads' rows show the swap, one before the other" {
	fast_profile_of sw "$TPROG/timeswap" 500
	run -0 "$UPROFILE" -i sw.out -timeline 20 --format json
	json_check <<<"$output"
	local json=$output
	# both threads have a row, and the rows are in the order of their
	# first samples: no row's first cell is after the next row's
	# (swap-one's is mostly first, but a sample of swap-two's few
	# microseconds of start-up may come before it)
	run -0 jq -r '[.timeline.rows[] | select(.comm | test("^swap-"))
		| .comm] | sort | join(" ")' <<<"$json"
	assert_output "swap-one swap-two"
	run -0 jq -e '[.timeline.rows[] | [.samples | to_entries[]
		| select(.value > 0) | .key][0]] as $f
		| all(range(1; $f | length); $f[. - 1] <= $f[.])' <<<"$json"
	# the hand-over is in one interval k: swap-one's samples after it and
	# swap-two's before it are only those of a few microseconds (thread
	# start, hand-over, exit); k is where they are fewest
	run -0 jq -r '.timeline.rows as $r
		| ($r[] | select(.comm == "swap-one") | .samples) as $a
		| ($r[] | select(.comm == "swap-two") | .samples) as $b
		| [range(0; $a | length) as $k
		   | {k: $k, stray: (($a[$k + 1:] | add // 0) +
				     ($b[:$k] | add // 0)),
		      a: ($a[:$k + 1] | add), b: ($b[$k:] | add)}]
		| min_by(.stray) | "\(.k) \(.stray) \(.a) \(.b)"' <<<"$json"
	local k stray a b
	read -r k stray a b <<<"$output"
	[[ $k =~ ^[0-9]+$ ]] || fail "no hand-over found: $output"
	((a >= 20 && b >= 20)) || fail "workload too short: $a and $b samples"
	((stray <= 2)) ||
		fail "$stray samples on the wrong side of the hand-over (interval $k)"
	# and the hand-over is not at either end
	((k > 2 && k < 17)) || fail "hand-over in interval $k of 20"
	# the workers' phases in turn, never back (the ends may be the
	# start-up's or the exit's; an interval the program got no CPU in
	# splits a phase)
	assert_equal "$(tl "$json" '[.phases[].procedure
		| select(. == "work_one" or . == "work_two")]
		| reduce .[] as $p ([]; if .[-1] == $p then . else . + [$p] end)')" \
		'["work_one","work_two"]'
}

@test "timeswap: in halves, swap-one's weight is in the first, swap-two's in the second" {
	fast_profile_of sw "$TPROG/timeswap" 500
	run -0 "$UPROFILE" -i sw.out -timeline 2 --format json
	local json=$output a1 a2 b1 b2
	read -r a1 a2 < <(jq -r '.timeline.rows[] | select(.comm == "swap-one")
		| .weights | "\(.[0]) \(.[1])"' <<<"$json")
	read -r b1 b2 < <(jq -r '.timeline.rows[] | select(.comm == "swap-two")
		| .weights | "\(.[0]) \(.[1])"' <<<"$json")
	# The hand-over is at the middle but for the start-up and the end
	# (milliseconds); three times the weight holds unless they differ by
	# a quarter of the run.
	((a1 >= 3 * a2)) || fail "swap-one: $a1 in the first half, $a2 in the second"
	((b2 >= 3 * b1)) || fail "swap-two: $b1 in the first half, $b2 in the second"
	run -0 "$UPROFILE" -i sw.out -timeline 2
	assert_line "  hottest procedure        |AB|"
	assert_line "    A  work_one (timeswap)"
	assert_line "    B  work_two (timeswap)"
}

@test "after a run: -timeline reports the run, on stderr" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -quiet -e cpu-clock -timeline 3 \
		"$TPROG/timephases" 150
	assert_output ""
	[[ $stderr == *"
timeline by cpu-clock, "*" in 3 intervals of "*"
  hottest procedure        |"???"|
"*"
phases (consecutive intervals with the same hottest procedure), by cpu-clock:
"* ]] || fail "no timeline on stderr: $stderr"
	[[ -s umon.out ]] || fail "no profile written"
}
