#!/usr/bin/env bats
# The time stream (section 15, docs/profile-format.md) and the windows
# --time cuts from it: -i, --merge and --diff of part of a run, why a
# profile has no timeline (merged, old), and damaged or hostile streams
# rejected with one line and status 125, never a crash.
#
# Two kinds of profile:
# - phasemarks (tests/programs/phasemarks.c), sampled: phase_a, phase_b
#   and phase_c one after another in wall-clock time, each phase's start
#   printed on the wall clock, so windows are placed inside the phases
#   from the profile's start time whatever the start-up took.  A window
#   in the middle of a phase holds that phase's procedure and the clock
#   reads it spins on (1-3%): at least 95% of its samples, less the
#   binomial bound of helpers.bash (4.5 sigma), and not one sample of
#   another phase.
# - mkstacks timed (tests/tools/mkstacks.c): a 10 ms run known event by
#   event, an off-CPU interval among them, so windows are checked
#   exactly, and damage is made field by field.

load helpers

MKSTACKS=$ROOT/$BUILD/tests/mkstacks

setup() {
	common_setup
	local max
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 1000)
	FREQ=$((max < 4000 ? max : 4000))
}

# ---- helpers --------------------------------------------------------------

# in_little_memory COMMAND...: COMMAND with 2 GB of address space (as in
# tests/0500); unlimited in sanitizer builds, whose shadow memory
# reserves terabytes.
in_little_memory() {
	if sanitized; then
		"$@"
	else
		(ulimit -v 2000000 && exec "$@")
	fi
}

# ph: the profile of phasemarks (500 ms a phase, cpu-clock at FREQ) in
# ph.umon, taken once per file run; A0, B0, C0, END: when phase_a,
# phase_b, phase_c started and phase_c ended, in seconds from the run's
# start; DUR: the run's duration in seconds.
ph() {
	skip_unless_perf_works
	local cached=$BATS_FILE_TMPDIR/ph json start what ns
	if [[ ! -s $cached.umon ]]; then
		run -0 --separate-stderr "$UPROFILE" -quiet -e cpu-clock \
			-F "$FREQ" -o "$cached.new" "$TPROG/phasemarks" 500
		printf '%s\n' "$output" >"$cached.marks"
		mv "$cached.new" "$cached.umon"
	fi
	cp "$cached.umon" ph.umon
	json=$("$UPROFILE" -i ph.umon --format json)
	# exactly: jq reads numbers as doubles
	start=$(sed -n 's/^ *"start_time_ns": \([0-9]*\),$/\1/p' <<<"$json")
	[[ $start =~ ^[0-9]+$ ]] || fail "no start_time_ns in the report"
	DUR=$(jq .duration_seconds <<<"$json")
	while read -r what ns; do
		printf -v "${what^^}" '%s' "$(awk -v d="$((ns - start))" \
			'BEGIN { printf "%.6f", d / 1e9 }')"
	done < <(sed 's/^phase_//' "$cached.marks")
	[[ -n ${A-} && -n ${B-} && -n ${C-} && -n ${END-} ]] ||
		fail "phasemarks printed: $(cat "$cached.marks")"
	A0=$A B0=$B C0=$C
}

# between FROM TO F G: the range from F to G of the way from FROM to TO
# (seconds), as --time takes it.
between() {
	awk -v a="$1" -v b="$2" -v f="$3" -v g="$4" \
		'BEGIN { printf "%.4f-%.4f", a + f * (b - a), a + g * (b - a) }'
}

# json_of ARGS...: the JSON report of uprofile ARGS... --format json (must
# succeed, strict JSON) in $json.
json_of() {
	run -0 --separate-stderr "$UPROFILE" "$@" --format json
	json=$output
	json_check <<<"$json"
}

# samples_of PROC: cpu-clock samples of PROC in $json; total: all of
# them.
samples_of() {
	json_samples "$1" cpu-clock - <<<"$json"
}
total() {
	jq '.statistics[0].samples' <<<"$json"
}

# assert_at_least WHAT K N P_PERCENT [MAXTOL]: K of N samples are at
# least P percent, less assert_binomial's bound (4.5 sigma + 1), which
# must be within MAXTOL points (default 10) for the claim to mean
# something.
assert_at_least() {
	local what=$1 k=$2 n=$3 p=$4 maxtol=${5:-10} msg
	msg=$(awk -v k="$k" -v n="$n" -v p="$p" -v m="$maxtol" -v w="$what" '
	BEGIN {
		if (k !~ /^[0-9]+$/ || n !~ /^[0-9]+$/ || n == 0) {
			printf "%s: bad sample counts K=%s N=%s", w, k, n
			exit
		}
		p /= 100
		bound = 4.5 * sqrt(n * p * (1 - p)) + 1
		if (100 * bound / n > m) {
			printf "%s: workload too short: %d samples give a bound of +/-%.1f points, the claim needs +/-%s", w, n, 100 * bound / n, m
			exit
		}
		if (k < n * p - bound)
			printf "%s: %d of %d samples (%.2f%%), expected at least %.2f%% less %.2f points (4.5 sigma)", w, k, n, 100 * k / n, 100 * p, 100 * bound / n
	}')
	[[ -z $msg ]] || fail "$msg"
}

# phase_window P W: in the report $json of window W, phase_P holds at
# least 95% of the samples (binomial bound) and the other phases none.
phase_window() {
	local p=$1 w=$2 other
	assert_at_least "phase_$p in $w" "$(samples_of "phase_$p")" "$(total)" 95 6
	for other in a b c; do
		[[ $other == "$p" ]] && continue
		assert_equal "phase_$other in $w: $(samples_of "phase_$other")" \
			"phase_$other in $w: 0"
	done
}

# rejects FILE WORDS...: "uprofile -i FILE" fails with 125 and exactly one
# line on stderr naming FILE and containing each of WORDS; nothing on
# stdout.
rejects() {
	local file=$1 w
	shift
	run -125 --separate-stderr "$UPROFILE" -i "$file"
	assert_output ""
	[[ ${#stderr_lines[@]} -eq 1 ]] ||
		fail "expected one line on stderr, got: $stderr"
	[[ $stderr == "uprofile: "*"'$file'"* ]] ||
		fail "message does not name '$file': $stderr"
	for w; do
		[[ $stderr == *"$w"* ]] || fail "message lacks '$w': $stderr"
	done
}

# refused STATUS WORDS... -- ARGS...: uprofile ARGS... exits STATUS with
# one line on stderr containing each of WORDS, nothing on stdout.
refused() {
	local status=$1 w words=()
	shift
	while [[ $1 != -- ]]; do
		words+=("$1")
		shift
	done
	shift
	run "-$status" --separate-stderr "$UPROFILE" "$@"
	assert_output ""
	[[ ${#stderr_lines[@]} -eq 1 ]] ||
		fail "uprofile $*: expected one line on stderr, got: $stderr"
	for w in "${words[@]}"; do
		[[ $stderr == *"$w"* ]] ||
			fail "uprofile $*: message lacks '$w': $stderr"
	done
}

# rows: "procedure cpu-samples cpu-weight task-samples task-weight" of
# the report $json of a mkstacks timed profile, sorted.
rows() {
	jq -r '.rows[] | "\(.procedure) \(.samples["cpu-clock"]) \(.weight["cpu-clock"]) \(.samples["task-clock"]) \(.weight["task-clock"])"' <<<"$json" | sort
}

# craft MODE SRC DST [ARG...]: a copy of profile SRC with its sections
# changed (tests/tools/umonsections.py rebuilds the table, the size and
# the CRC); the modes on the time stream decode it, change it and encode
# it again, so the damage is found past zlib.
craft() {
	python3 - "$@" <<'PY'
import os, struct, sys, zlib
sys.path.insert(0, os.environ['ROOT'] + '/tests/tools')
from umonsections import sections, rebuild, events, events_body, uleb

mode, src, dst, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
d = bytearray(open(src, 'rb').read())
secs = sections(d)
sec = dict(secs)


def replace(sid, body):
    return [(i, body if i == sid else b) for i, b in secs]


if 15 in sec:
    ev = events(sec[15])
    cols = ev['cols']
if mode == 'version':                   # the version field; no stream
    # when ARG says so ("2" keeps it, "2-" drops it)
    keep = not args[0].endswith('-')
    out = rebuild(d, [s for s in secs if keep or s[0] != 15])
    out = bytearray(out)
    struct.pack_into('<I', out, 8, int(args[0].rstrip('-')))
    struct.pack_into('<I', out, 24, zlib.crc32(bytes(out[32:])))
    out = bytes(out)
elif mode == 'drop':                    # sections ARG... left out
    out = rebuild(d, [s for s in secs if str(s[0]) not in args])
elif mode == 'state':                   # task count ARG0's state: ARG1
    b = bytearray(sec[11])
    struct.pack_into('<I', b, 4 + 32 * int(args[0]) + 12, int(args[1], 0))
    out = rebuild(d, replace(11, bytes(b)))
elif mode == 'cut':                     # the stream's last ARG bytes
    out = rebuild(d, replace(15, sec[15][:-int(args[0])]))
elif mode == 'head':                    # the stream's first ARG bytes
    out = rebuild(d, replace(15, sec[15][:int(args[0])]))
elif mode == 'field':                   # header field ARG0 := ARG1, ...
    # (unit, flags, n, raw_len, zlen; each an expression of them as
    # set so far and of 'len': the stream's deflated length)
    f = dict(unit=ev['unit'], flags=ev['flags'], n=ev['n'],
             raw_len=ev['raw_len'], zlen=ev['zlen'])
    # (the stream as events_body deflates it again)
    f['len'] = len(events_body(cols, unit=ev['unit'])) - 32
    for k, v in zip(args[0::2], args[1::2]):
        f[k] = eval(v, {}, dict(f))
    f.pop('len')
    out = rebuild(d, replace(15, events_body(cols, **f)))
elif mode == 'col':                     # column ARG0's event ARG1 := ARG2
    cols[int(args[0])][int(args[1])] = int(args[2], 0)
    out = rebuild(d, replace(15, events_body(cols, unit=ev['unit'])))
elif mode == 'pop':                     # the last event left out
    out = rebuild(d, replace(15, events_body([c[:-1] for c in cols])))
elif mode == 'tail':                    # ARG0 bytes after the stream
    out = rebuild(d, replace(15, events_body(cols, tail=b'\0' * int(args[0]))))
elif mode == 'junk':                    # a byte after the columns
    raw = b''.join(uleb(v) for c in cols for v in c) + b'\1'
    out = rebuild(d, replace(15, events_body(cols, raw=raw)))
elif mode == 'overlong':                # the first number in 11 bytes
    raw = b''.join(uleb(v) for c in cols for v in c)
    raw = b'\x80' * 10 + b'\0' + raw[1:]
    out = rebuild(d, replace(15, events_body(cols, raw=raw)))
elif mode == 'bomb':                    # ARG0 zero bytes deflated,
    # declared as they are (raw_len ARG0, ARG0 / 4 events)
    n = int(args[0])
    z = zlib.compress(bytes(n), 9)
    body = struct.pack('<IIQQQ', 1000, 0, n // 4, n, len(z)) + z
    out = rebuild(d, replace(15, body))
else:
    sys.exit('craft: unknown mode ' + mode)
open(dst, 'wb').write(out)
PY
}

# ---- windows of a sampled run -----------------------------------------------

@test "--time in seconds: a window in the middle of each phase is that phase's procedure" {
	ph
	local w
	for w in "a $(between "$A0" "$B0" 0.2 0.8)" \
		"b $(between "$B0" "$C0" 0.2 0.8)" \
		"c $(between "$C0" "$END" 0.2 0.8)"; do
		json_of -i ph.umon --time="${w#* }"
		phase_window "${w%% *}" "${w#* }"
		# the window as given, its length, the whole run's length
		run -0 jq -e --arg w "${w#* }" '($w | split("-") | map(tonumber))
			as [$f, $t] | .timeline.kept and .timeline.missing == null
			and (.timeline.window | length) == 1
			and (.timeline.window[0][0] - $f | fabs) < 1e-6
			and (.timeline.window[0][1] - $t | fabs) < 1e-6
			and (.timeline.window_seconds - ($t - $f) | fabs) < 1e-6
			and .duration_seconds > 1.5' <<<"$json"
	done
}

@test "--time in percent of the run: the same windows, placed from the run's length" {
	ph
	local p from to pct
	for p in "a $A0 $B0" "b $B0 $C0" "c $C0 $END"; do
		read -r p from to <<<"$p"
		pct=$(awk -v a="$from" -v b="$to" -v d="$DUR" 'BEGIN {
			printf "%.4f%%-%.4f%%", 100 * (a + 0.25 * (b - a)) / d,
				100 * (a + 0.75 * (b - a)) / d }')
		json_of -i ph.umon --time="$pct"
		phase_window "$p" "$pct"
		# percent of the run's duration: the window in seconds is the
		# middle half of the phase
		run -0 jq -e --argjson f "$from" --argjson t "$to" '
			.timeline.window[0] as [$a, $b]
			| ($a - ($f + 0.25 * ($t - $f)) | fabs) < 0.0001
			and ($b - ($f + 0.75 * ($t - $f)) | fabs) < 0.0001' <<<"$json"
	done
	# a unit at one end is the other's too
	json_of -i ph.umon --time=0-50%
	local half=$json
	json_of -i ph.umon --time=0%-50%
	assert_equal "$(jq -c 'del(.file)' <<<"$half")" "$(jq -c 'del(.file)' <<<"$json")"
}

@test "--time with several ranges: their samples add up, phases between them have none" {
	ph
	local wa wc na nc
	wa=$(between "$A0" "$B0" 0.2 0.8)
	wc=$(between "$C0" "$END" 0.2 0.8)
	json_of -i ph.umon --time="$wa"
	na=$(total)
	json_of -i ph.umon --time="$wc"
	nc=$(total)
	json_of -i ph.umon --time="$wa,$wc"
	assert_equal "$(total)" "$((na + nc))"
	assert_equal "$(samples_of phase_b)" 0
	assert_at_least "phase_a and phase_c in $wa,$wc" \
		"$(($(samples_of phase_a) + $(samples_of phase_c)))" "$(total)" 95 6
	run -0 jq -e '(.timeline.window | length) == 2 and
		(.timeline.window_seconds - ([.timeline.window[] | .[1] - .[0]] | add) | fabs) < 1e-6' <<<"$json"
	# the text heading says which window it shows
	run -0 "$UPROFILE" -i ph.umon --time="$wa,$wc"
	assert_line --regexp "^  window [0-9.]+s-[0-9.]+s, [0-9.]+s-[0-9.]+s of the run \([0-9.]+ s\): the samples above are those in it$"
	# the whole run's report has no such line
	run -0 "$UPROFILE" -i ph.umon
	refute_line --partial 'window'
}

@test "--time 0%-50% and 50%-100%: the halves' samples add up to the whole, row by row" {
	ph
	local whole first second p
	json_of -i ph.umon
	whole=$json
	json_of -i ph.umon --time=0%-50%
	first=$json
	json_of -i ph.umon --time=50%-100%
	second=$json
	assert_equal "$(($(json=$first total) + $(json=$second total)))" \
		"$(json=$whole total)"
	for p in phase_a phase_b phase_c; do
		assert_equal "$p $(($(json=$first samples_of "$p") + $(json=$second samples_of "$p")))" \
			"$p $(json=$whole samples_of "$p")"
	done
	# every row's weight too (each sample's period)
	run -0 jq -n --argjson a "$first" --argjson b "$second" --argjson w "$whole" '
		def per: [.rows[] | {key: "\(.procedure) \(.object)",
			value: .weight["cpu-clock"]}] | group_by(.key)
			| map({key: .[0].key, value: (map(.value) | add)}) | from_entries;
		($a | per) as $pa | ($b | per) as $pb | ($w | per) as $pw
		| [$pw | keys[] | select(($pa[.] // 0) + ($pb[.] // 0) != $pw[.])]'
	assert_output '[]'
	# the run's end is in the last range: 50%- is the same window
	json_of -i ph.umon --time=50%-
	assert_equal "$(total)" "$(json=$second total)"
}

@test "a window outside the run: 125, one line naming the run's length" {
	ph
	local len
	refused 125 "'ph.umon'" "time range '10-20' starts at 10.000s, after the run's end: the run lasted " -- \
		-i ph.umon --time=10-20
	len=$(sed -n "s/.*the run lasted \([0-9.]*\)s$/\1/p" <<<"$stderr")
	assert_near "$len" "$DUR" 0.0006
	refused 125 "time range '100%-' starts at" "the run lasted " -- -i ph.umon --time=100%-
	# exactly, on a run of 10 ms
	"$MKSTACKS" timed t.umon
	run -125 --separate-stderr "$UPROFILE" -i t.umon --time=11ms-12ms
	assert_equal "$stderr" "uprofile: 't.umon': time range '11ms-12ms' starts at 0.011s, after the run's end: the run lasted 0.010s"
}

@test "malformed --time ranges: 125 with one line; --time without a profile to cut is a usage error" {
	"$MKSTACKS" timed t.umon
	local r
	for r in abc 1-2-3 -- , '' ' 1-2' 1x-2 0x10-0x20 1e3-2e3 nan-1 inf- \
		101%- 5%-200% 1ms-2ms,, 1%-2%,x; do
		refused 125 "'t.umon'" "bad time range '$r'" "FROM-TO" -- -i t.umon --time="$r"
	done
	for r in 5ms-3ms 5ms-5ms 50%-40%; do
		refused 125 "time range '$r' is empty" -- -i t.umon --time="$r"
	done
	refused 125 "time ranges '2ms-4ms,3ms-5ms' overlap or are out of order" -- \
		-i t.umon --time=2ms-4ms,3ms-5ms
	refused 125 "overlap or are out of order" -- -i t.umon --time=6ms-7ms,1ms-2ms
	# --merge and --diff say the same
	refused 125 "bad time range 'abc'" -- --merge m.umon --time=abc t.umon
	[[ ! -e m.umon ]]
	refused 125 "bad time range 'abc'" -- --diff t.umon@abc t.umon
	# not a report of a profile: a usage error, before anything runs
	run -125 --separate-stderr "$UPROFILE" --time=0-1 sh -c 'touch ran'
	[[ ! -e ran && ! -e umon.out ]]
	assert_output ""
	assert_equal "${stderr_lines[0]}" "uprofile: --time cuts a window out of a profile written before: give it with -i FILE, --merge or --diff"
	run -125 --separate-stderr "$KPROFILE" --time=0-1 -d 0.1
	assert_equal "${stderr_lines[0]}" "kprofile: --time cuts a window out of a profile written before: give it with -i FILE, --merge or --diff"
}

@test "--diff of a run's start and its end: phase_a gone, phase_c new" {
	ph
	# Each phase is about a third of the run (the same CPU time): 0-30%
	# holds phase_a and not phase_c, 70-100% phase_c and not phase_a
	awk -v d="$DUR" -v b="$B0" -v c="$C0" 'BEGIN { exit !(0.3 * d < c && 0.7 * d > b) }' ||
		fail "phases at $A0 $B0 $C0 $END of $DUR s: 0-30% reaches phase_c or 70-100% phase_a"
	json_of --diff ph.umon@0-30% ph.umon@70-100%
	run -0 jq -e '.base.file == "ph.umon@0-30%" and .new.file == "ph.umon@70-100%"
		and .base.samples > 0 and .new.samples > 0' <<<"$json"
	# (phase_b may be at either end, as the load on the machine made
	# the phases' lengths on the wall clock)
	run -0 jq -r '[.rows[] | select(.procedure | test("^phase_[ac]$")) |
		"\(.procedure) \(.base_samples > 0) \(.new_samples > 0) \(.significant)"]
		| sort[]' <<<"$json"
	assert_output $'phase_a true false true\nphase_c false true true'
	# --time applies to both sides; with FILE@RANGE it is one or the other
	cp ph.umon ph2.umon
	json_of --diff --time=0-30% ph.umon ph2.umon
	run -0 jq -e '[.rows[] | select(.significant)] | length == 0' <<<"$json"
	refused 125 "give the window with --time or as FILE@RANGE, not both" -- \
		--diff --time=0-30% ph.umon@0-30% ph2.umon
	# a file whose name has an @ is that file
	cp ph.umon 'at@0-30%'
	json_of --diff 'at@0-30%' ph.umon
	run -0 jq -e '.base.samples == .new.samples' <<<"$json"
}

@test "windows of a run with call stacks: the halves' stacks add up to the whole" {
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -quiet -g -e cpu-clock -F "$FREQ" \
		-o g.umon "$TPROG/phasemarks" 150
	local whole halves
	whole=$("$UPROFILE" -i g.umon --format folded | sort)
	halves=$({ "$UPROFILE" -i g.umon --time=-50% --format folded
		"$UPROFILE" -i g.umon --time=50%- --format folded; } |
		awk '{ n = $NF; $NF = ""; s[$0] += n } END { for (k in s) print k s[k] }' | sort)
	[[ -n $whole ]]
	assert_equal "$halves" "$whole"
	# the first half's stacks are phase_a's (and phase_b's), never phase_c's
	run -0 "$UPROFILE" -i g.umon --time=0%-30% --format folded
	assert_line --partial 'main;phase_a'
	refute_line --partial 'phase_c'
}

# ---- windows known event by event -------------------------------------------

@test "windows of a run known by construction: samples where they fall, intervals clipped" {
	"$MKSTACKS" timed t.umon
	json_of -i t.umon
	assert_equal "$(rows)" "libc.so.6+0x2200 3 3000000 2 2000000
libc.so.6+0x2300 0 0 1 3000000
prog+0x1010 7 7000000 4 4000000"
	run -0 jq -c '.timeline' <<<"$json"
	assert_output '{"kept":true,"missing":null,"window":null,"window_seconds":null}'
	# cpu-clock at 5.5 and 6.5 ms; the blocked interval from 4.5 to 7.5
	# ms, 2 ms of it
	json_of -i t.umon --time=5ms-7ms
	assert_equal "$(rows)" "libc.so.6+0x2300 0 0 1 2000000
prog+0x1010 2 2000000 0 0"
	run -0 jq -c '[.timeline, [.statistics[].samples]]' <<<"$json"
	assert_output '[{"kept":true,"missing":null,"window":[[0.005,0.007]],"window_seconds":0.002},[2,1]]'
	# the first half: 0.5 ms of the interval
	json_of -i t.umon --time=0-50%
	assert_equal "$(rows)" "libc.so.6+0x2300 0 0 1 500000
prog+0x1010 5 5000000 4 4000000"
	# the second half, up to the run's end (null): 2.5 ms of it; a
	# sample is in one half, an interval across the edge in both, its
	# weight split
	json_of -i t.umon --time=50%-
	assert_equal "$(rows)" "libc.so.6+0x2200 3 3000000 2 2000000
libc.so.6+0x2300 0 0 1 2500000
prog+0x1010 2 2000000 0 0"
	run -0 jq -c '.timeline.window' <<<"$json"
	assert_output '[[0.005,null]]'
	# two ranges, [from, to): 1.5 and 8.5 ms; 1, 8 and 9 ms; not 9.5
	json_of -i t.umon --time=1ms-2ms,8ms-9.5ms
	assert_equal "$(rows)" "libc.so.6+0x2200 1 1000000 2 2000000
prog+0x1010 1 1000000 1 1000000"
	run -0 jq -c '[.timeline.window, .timeline.window_seconds]' <<<"$json"
	assert_output '[[[0.001,0.002],[0.008,0.0095]],0.0025]'
	# an empty window is a report of nothing
	json_of -i t.umon --time=7.6ms-7.9ms
	assert_equal "$(rows)" ""
	# the window's stacks: 6.5 ms (truncated) and 7.5, 8.5, 9.5 ms
	run -0 "$UPROFILE" -i t.umon --time=6ms- --format folded
	assert_output "[truncated: no unwind information in prog];prog+0x1010 1
prog+0x1200;prog+0x1100;libc.so.6+0x2200 3"
	run -0 "$UPROFILE" -i t.umon --time=6ms-
	assert_line '  window 0.006s-end of the run (0.004 s): the samples above are those in it'
}

@test "--merge of one profile keeps its time stream, byte for byte; with --time, the window's" {
	"$MKSTACKS" timed t.umon
	run -0 --separate-stderr "$UPROFILE" --merge one.umon t.umon
	cmp t.umon one.umon
	run -0 "$MKSTACKS" print one.umon
	assert_equal "$(grep -c '^event ' <<<"$output")" 17
	json_of -i one.umon --time=5ms-7ms
	assert_equal "$(rows)" "libc.so.6+0x2300 0 0 1 2000000
prog+0x1010 2 2000000 0 0"
	# the window written: its events, the interval cut to it; read
	# back, it has a timeline (the window's), the run's length
	run -0 --separate-stderr "$UPROFILE" --merge w.umon --time=5ms-7ms t.umon
	run -0 "$MKSTACKS" print w.umon
	assert_equal "$(grep '^event ' <<<"$output")" "event 5000000 ns: tid 200 cpu 1 blocked task-clock /nonexistent/libc.so.6+0x2300 weight 2000000
event 5500000 ns: tid 200 cpu 1 running cpu-clock /nonexistent/prog+0x1010 weight 1000000 stack 0
event 6500000 ns: tid 200 cpu 1 running cpu-clock /nonexistent/prog+0x1010 weight 1000000 stack 2"
	json_of -i w.umon
	assert_equal "$(rows)" "libc.so.6+0x2300 0 0 1 2000000
prog+0x1010 2 2000000 0 0"
	run -0 jq -c '[.timeline, .duration_seconds]' <<<"$json"
	assert_output '[{"kept":true,"missing":null,"window":null,"window_seconds":null},0.01]'
	# a sampled run: the same bytes, the same windows
	ph
	run -0 --separate-stderr "$UPROFILE" --merge one.umon ph.umon
	cmp ph.umon one.umon
}

@test "--merge of two profiles has no timeline, and says why; --time on the sum is refused" {
	"$MKSTACKS" timed t.umon
	cp t.umon u.umon
	run -0 --separate-stderr "$UPROFILE" --merge m.umon t.umon u.umon
	json_of -i m.umon
	run -0 jq -c '.timeline' <<<"$json"
	assert_output '{"kept":false,"missing":"it adds up several runs, each with its own clock","window":null,"window_seconds":null}'
	assert_equal "$(rows)" "libc.so.6+0x2200 6 6000000 4 4000000
libc.so.6+0x2300 0 0 2 6000000
prog+0x1010 14 14000000 8 8000000"
	local why="cannot use --time on 'm.umon': it has no timeline: it adds up several runs, each with its own clock"
	refused 125 "$why" -- -i m.umon --time=0-50%
	refused 125 "$why" -- --merge n.umon --time=0-50% m.umon
	refused 125 "$why" -- --diff m.umon@0-50% t.umon
	# the sum of -i A -i B has none either
	json_of -i t.umon -i u.umon
	run -0 jq -r '.timeline.missing' <<<"$json"
	assert_output "it adds up several runs, each with its own clock"
	# each cut to its window first, then added up
	run -0 --separate-stderr "$UPROFILE" --merge w.umon --time=5ms-7ms t.umon u.umon
	json_of -i w.umon
	assert_equal "$(rows)" "libc.so.6+0x2300 0 0 2 4000000
prog+0x1010 4 4000000 0 0"
	run -0 jq -r '.timeline.kept' <<<"$json"
	assert_output false
	# the sampled run too
	ph
	cp ph.umon ph2.umon
	run -0 --separate-stderr "$UPROFILE" --merge m.umon ph.umon ph2.umon
	refused 125 "$why" -- -i m.umon --time=0-1
}

# ---- profiles without a timeline --------------------------------------------

@test "version 1 and 2 profiles still report; --time on them: written before times were kept" {
	"$MKSTACKS" timed t.umon
	local v want why
	json_of -i t.umon
	want=$(jq -c 'del(.file, .timeline)' <<<"$json")
	craft version t.umon v2.umon 2-
	craft version t.umon v2s.umon 2
	craft version t.umon v1.umon 1
	for v in v2 v2s; do
		# the same report, the task counts' states ignored (reserved
		# then), the stream too when it is there
		json_of -i "$v.umon"
		assert_equal "$(jq -c 'del(.file, .timeline)' <<<"$json")" "$want"
		run -0 jq -c '.timeline' <<<"$json"
		assert_output '{"kept":false,"missing":"it was written before times were kept (profile file version 1 or 2)","window":null,"window_seconds":null}'
		run -0 "$UPROFILE" -i "$v.umon" -by tid
	done
	# version 1: no stacks, no tasks
	json_of -i v1.umon
	assert_equal "$(rows)" "libc.so.6+0x2200 3 3000000 2 2000000
libc.so.6+0x2300 0 0 1 3000000
prog+0x1010 7 7000000 4 4000000"
	run -0 jq -r '.timeline.missing' <<<"$json"
	assert_output "it was written before times were kept (profile file version 1 or 2)"
	why="it has no timeline: it was written before times were kept (profile file version 1 or 2)"
	for v in v1 v2 v2s; do
		refused 125 "cannot use --time on '$v.umon': $why" -- -i "$v.umon" --time=0-50%
		refused 125 "cannot use --time on '$v.umon': $why" -- --merge m.umon --time=0-50% "$v.umon"
		refused 125 "cannot use --time on '$v.umon': $why" -- --diff "$v.umon@0-50%" t.umon
	done
	[[ ! -e m.umon ]]
	# and a sampled one, as the version-2 writer wrote it
	ph
	craft version ph.umon v2.umon 2-
	json_of -i v2.umon
	run -0 jq -r '.timeline.missing' <<<"$json"
	assert_output "it was written before times were kept (profile file version 1 or 2)"
	refused 125 "cannot use --time on 'v2.umon': $why" -- -i v2.umon --time=0-50%
}

@test "a version 3 profile that lost its stream says so; profiles of exact counts have none" {
	"$MKSTACKS" timed t.umon
	craft drop t.umon d.umon 15
	json_of -i d.umon
	run -0 jq -r '.timeline.missing' <<<"$json"
	assert_output "its counts were changed without its times (-exclude-idle)"
	refused 125 "cannot use --time on 'd.umon': it has no timeline: its counts were changed without its times" -- \
		-i d.umon --time=0-5ms
	# a writer that kept none (the test tools without a stream)
	"$MKSTACKS" write s.umon
	json_of -i s.umon
	run -0 jq -r '.timeline.missing' <<<"$json"
	assert_output "its writer kept no times"
	# counting: totals, no samples in time
	skip_unless_perf_works
	run -0 --separate-stderr "$UPROFILE" -quiet --count -e task-clock -o c.umon "$TPROG/exitwith" 0
	refused 125 "cannot use --time on 'c.umon': it has no timeline: its counts are exact or totals, not samples taken in time" -- \
		-i c.umon --time=0-50%
}

@test "task counts' states: read in version 3, a state past the last refused; reserved in version 2" {
	"$MKSTACKS" timed t.umon
	# task count 5 is the blocked interval's
	craft state t.umon s.umon 5 3
	run -0 "$UPROFILE" -i s.umon
	craft state t.umon s.umon 5 4
	rejects s.umon "task counts section is malformed"
	craft state t.umon s.umon 0 0xffffffff
	rejects s.umon "task counts section is malformed"
	# version 2 reserved the field: not read
	craft state t.umon s.umon 5 4
	craft version s.umon v2.umon 2-
	run -0 "$UPROFILE" -i v2.umon
}

# ---- damaged and hostile streams ---------------------------------------------

@test "a damaged time stream is rejected with one line, status 125: sizes, zlib, columns" {
	"$MKSTACKS" timed t.umon
	craft cut t.umon d.umon 1
	rejects d.umon "the time stream is malformed"
	craft head t.umon d.umon 31
	rejects d.umon "the time stream is malformed"
	craft head t.umon d.umon 32
	rejects d.umon "the time stream is malformed"
	craft field t.umon d.umon zlen 'len + 1'
	rejects d.umon "the time stream is malformed"
	craft field t.umon d.umon zlen 'len - 1'
	rejects d.umon "the time stream is malformed"
	craft field t.umon d.umon unit 0
	rejects d.umon "the time stream has a bad time unit"
	craft field t.umon d.umon unit 1000000001
	rejects d.umon "the time stream has a bad time unit"
	# one event more than the columns hold: they shift, the first
	# weight is read as a stack; fewer bytes than the events take
	craft field t.umon d.umon n 'n + 1'
	rejects d.umon "an event's stack is out of range"
	craft field t.umon d.umon n 'raw_len // 4 + 1'
	rejects d.umon "the time stream's sizes do not fit its bytes"
	craft field t.umon d.umon raw_len 'n * 40 + 1'
	rejects d.umon "the time stream's sizes do not fit its bytes"
	craft field t.umon d.umon raw_len 'raw_len - 1'
	rejects d.umon "the time stream's compressed data is damaged"
	craft field t.umon d.umon raw_len 'raw_len + 1'
	rejects d.umon "the time stream's compressed data is damaged"
	# bytes after the zlib stream, in the columns, a number in 11 bytes
	craft tail t.umon d.umon 1
	rejects d.umon "the time stream's compressed data is damaged"
	craft junk t.umon d.umon
	rejects d.umon "the time stream is malformed"
	craft overlong t.umon d.umon
	rejects d.umon "the time stream is malformed"
	# the file cut inside the stream: the header says more
	local size
	size=$(stat -c %s t.umon)
	head -c $((size - 5)) t.umon >d.umon
	rejects d.umon "truncated"
}

@test "a decompression bomb is refused from its sizes before it is inflated; one within them inflates to what it declares" {
	"$MKSTACKS" timed t.umon
	# 1100 times the deflated bytes, and 4 KiB, is the most they may
	# declare (zlib gives at most about 1032:1); each event takes at
	# least 4 bytes of columns, at most 40
	craft field t.umon d.umon raw_len 'zlen * 1100 + 4097' n 'raw_len // 40 + 1'
	rejects d.umon "the time stream's sizes do not fit its bytes"
	craft field t.umon d.umon raw_len 'zlen * 1100 + 4096' n 'raw_len // 40 + 1'
	rejects d.umon "the time stream's compressed data is damaged"
	# 16 MB of zeros in 16 KB: 4 million events of nothing, more than
	# 32 a compressed byte (real streams take 0.5 to 3 bytes an event):
	# refused from the header, in 2 GB of address space at most
	craft bomb t.umon d.umon 16000000
	[[ $(stat -c %s d.umon) -lt 40000 ]]
	run -125 --separate-stderr in_little_memory "$UPROFILE" -i d.umon
	assert_equal "$stderr" "uprofile: cannot read 'd.umon': the time stream's sizes do not fit its bytes"
	# 16 KB of zeros: 4,000 events, within the caps, inflated and
	# then found not to add up to the task counts
	craft bomb t.umon d.umon 16000
	run -125 --separate-stderr in_little_memory "$UPROFILE" -i d.umon
	assert_equal "$stderr" "uprofile: cannot read 'd.umon': the events do not add up to the task counts"
}

@test "hostile events: times past the end of time, task counts and stacks out of range, events that do not add up" {
	"$MKSTACKS" timed t.umon
	# column 0: time deltas in µs; 1: task counts; 2: stacks + 1;
	# 3: weights.  Event 0: cpu-clock at 0.5 ms, task count 0, stack 0.
	craft col t.umon d.umon 0 0 0xffffffffffffffff
	rejects d.umon "the time stream's times overflow"
	craft col t.umon d.umon 0 1 0xfffffffffffffe00
	rejects d.umon "the time stream's times overflow"
	# the first time in µs, times 1000, past 2^64 ns
	craft col t.umon d.umon 0 0 18446744073709552
	rejects d.umon "the time stream's times overflow"
	# just below: the last event 9 ms later
	craft col t.umon d.umon 0 0 18446744073689551
	run -0 "$UPROFILE" -i d.umon --time=50%-
	craft col t.umon d.umon 3 16 0xffffffffffffffff
	rejects d.umon "an event ends past the end of time"
	craft col t.umon d.umon 1 0 6
	rejects d.umon "an event's task count is out of range"
	craft col t.umon d.umon 1 0 0xffffffff
	rejects d.umon "an event's task count is out of range"
	craft col t.umon d.umon 2 0 4
	rejects d.umon "an event's stack is out of range"
	# stack 2 was never counted for task-clock (event 1's statistic)
	craft col t.umon d.umon 2 1 3
	rejects d.umon "an event's stack is out of range"
	# another task count of the same count, another weight, one less
	craft col t.umon d.umon 1 0 1
	rejects d.umon "the events do not add up to the task counts"
	craft col t.umon d.umon 3 0 999999
	rejects d.umon "the events do not add up to the task counts"
	craft pop t.umon d.umon
	rejects d.umon "the events do not add up to the task counts"
	# another stack of the same statistic
	craft col t.umon d.umon 2 0 3
	rejects d.umon "the events do not add up to the stack counts"
	# without it, the event has no stack: the stack counts lack one
	craft col t.umon d.umon 2 0 0
	rejects d.umon "the events do not add up to the stack counts"
	# times change nothing the counts say
	craft col t.umon d.umon 0 16 123456
	run -0 "$UPROFILE" -i d.umon --time=50%-
}

@test "a time stream without its task counts: the sections come together" {
	"$MKSTACKS" timed t.umon
	craft drop t.umon d.umon 10 11
	rejects d.umon "the time stream comes without task counts"
	craft drop t.umon d.umon 11
	rejects d.umon "the tasks and task counts sections must come together"
	craft drop t.umon d.umon 10
	rejects d.umon "the tasks and task counts sections must come together"
}

@test "never a crash: random damage to the stream's columns gives 0 or 125, windows of what reads" {
	"$MKSTACKS" timed t.umon
	python3 - "$UPROFILE" t.umon "$(rounds 300)" <<'PY'
import os, random, subprocess, sys
sys.path.insert(0, os.environ['ROOT'] + '/tests/tools')
from umonsections import sections, rebuild, events, events_body

tool, src, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, 'rb').read()
secs = sections(d)
cols = events(dict(secs)[15])['cols']
rng = random.Random(20261126)
special = [0, 1, 2, 3, 5, 6, 7, 0x7f, 0x80, 0xffffffff, 0x100000000,
           2**63, 2**64 - 1]
outcomes, failures = {}, 0
for i in range(count):
    c = [list(x) for x in cols]
    for _ in range(rng.randint(1, 3)):
        col = rng.randrange(4)
        c[col][rng.randrange(len(c[col]))] = rng.choice(
            special + [rng.randrange(2**rng.choice((8, 20, 40, 64)))])
    out = rebuild(d, [(s, events_body(c) if s == 15 else b)
                      for s, b in secs])
    open('mut.umon', 'wb').write(out)
    for args in (['-i', 'mut.umon'],
                 ['-i', 'mut.umon', '--time=25%-75%', '--format', 'json']):
        p = subprocess.run([tool] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20)
        err = p.stderr.decode(errors='replace')
        outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
        if not (p.returncode == 0 or (p.returncode == 125 and
                                      err.count('\n') == 1)):
            failures += 1
            open('failed.%d.umon' % i, 'wb').write(out)
            print('failed.%d.umon: %s: %d: %s' % (i, ' '.join(args),
                  p.returncode, err.strip()[:300]))
print('outcomes', outcomes)
if outcomes.get(0, 0) < count // 10 or outcomes.get(125, 0) < count // 2:
    print('the mutations do not exercise both outcomes')
    failures += 1
sys.exit(1 if failures else 0)
PY
}

@test "-exclude-idle with --time: the window is cut first, the idle task's events leave with their counts" {
	"$MKSTACKS" timed f.umon flat
	# process 100 ("prog", everything before 5 ms) made the idle task
	python3 - f.umon idle.umon <<'PY'
import os, struct, sys
sys.path.insert(0, os.environ['ROOT'] + '/tests/tools')
from umonsections import sections, rebuild
d = open(sys.argv[1], 'rb').read()
secs = sections(d)
b = bytearray(dict(secs)[10])
o, hit = 4, 0
for _ in range(struct.unpack_from('<I', b, 0)[0]):
    if struct.unpack_from('<I', b, o)[0] == 100:
        struct.pack_into('<I', b, o, 0)
        hit += 1
    o += 12 + struct.unpack_from('<I', b, o + 8)[0]
assert hit == 1
open(sys.argv[2], 'wb').write(rebuild(d, [(s, bytes(b) if s == 10 else x)
                                          for s, x in secs]))
PY
	json_of -i idle.umon -exclude-idle
	run -0 jq .idle_excluded <<<"$json"
	assert_output 5
	assert_equal "$(rows)" "libc.so.6+0x2200 3 3000000 2 2000000
libc.so.6+0x2300 0 0 1 3000000
prog+0x1010 2 2000000 0 0"
	# the first half: the idle task's 5 samples, the interval's 0.5 ms
	json_of -i idle.umon -exclude-idle --time=0-5ms
	run -0 jq .idle_excluded <<<"$json"
	assert_output 5
	assert_equal "$(rows)" "libc.so.6+0x2300 0 0 1 500000"
	# the second: no idle samples
	json_of -i idle.umon -exclude-idle --time=5ms-
	run -0 jq .idle_excluded <<<"$json"
	assert_output 0
	assert_equal "$(rows)" "libc.so.6+0x2200 3 3000000 2 2000000
libc.so.6+0x2300 0 0 1 2500000
prog+0x1010 2 2000000 0 0"
}
