#!/usr/bin/env bats
# --format speedscope (formats/speedscope.c, docs/exports.md): the file
# validates against the schema speedscope ships (its npm package), keeps
# the rules its importer relies on, lays each thread's samples out in
# the order they were taken (tests/programs/phases2: phase_a, phase_b,
# phase_c by construction), adds up to the report's totals per thread,
# and loads in speedscope itself (headless chromium).  A profile without
# a timeline still exports, with one note saying why.

load helpers

PHASES2=$TPROG/phases2
CHECK=$ROOT/tests/tools/speedscope-check

# The speedscope npm package (its schema and its viewer): SPEEDSCOPE_DIR,
# else where setup.sh installs it; prints its directory.
speedscope_dir() {
	local d
	for d in "${SPEEDSCOPE_DIR-}" "$ROOT/build/npm/node_modules/speedscope"; do
		if [[ -n $d && -f $d/dist/release/file-format-schema.json ]]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

skip_unless_speedscope() {
	SS_DIR=$(speedscope_dir) ||
		skip "the speedscope npm package is not installed (npm install --prefix build/npm speedscope@1.25.0, or set SPEEDSCOPE_DIR)"
}

# prof NAME ARG...: uprofile -g ARG... once per file run, copied to
# ./NAME.out (as profile_of, with call stacks).
prof() {
	local name=$1
	shift
	skip_unless_perf_works
	local cached=$BATS_FILE_TMPDIR/$name.out
	if [[ ! -s $cached ]]; then
		run -0 "$UPROFILE" -quiet -g -e cpu-clock -o "$cached.new" "$@"
		mv "$cached.new" "$cached"
	fi
	cp "$cached" "$name.out"
}

# export_ss PROFILE OUT [ARG...]: the speedscope export of PROFILE to OUT,
# which must be strict JSON; stderr in $stderr.
export_ss() {
	local in=$1 out=$2
	shift 2
	run -0 --separate-stderr "$UPROFILE" -i "$in" "$@" \
		--format speedscope -report-file "$out"
	json_check "$out"
}

# summary FILE: what the tests look at, as JSON, after checking the rules
# speedscope's importer relies on (src/lib/file-format.ts,
# importSpeedscopeProfiles, and StackListProfileBuilder in profile.ts):
# samples and weights of the same length, weights positive numbers,
# frame indices integers in range, activeProfileIndex a profile; and
# ours: frames unique, endValue - startValue the sum of the weights (the
# width the time order view has), gaps (empty samples) only between
# samples.  Per profile: name, unit, start, end, weight (of the samples
# with frames), gaps (of the empty ones), the tid its name gives, the
# order of the phase_* functions its samples are in (repeats dropped),
# each one's weight, the depths of the stacks whose leaf is one, and
# whether main stands before phase_* in every stack (root first).
summary() {
	python3 - "$1" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1]))
frames = doc["shared"]["frames"]
keys = [(f["name"], f.get("file"), f.get("line")) for f in frames]
assert len(set(keys)) == len(keys), "shared.frames has a frame twice"
profs = doc["profiles"]
assert 0 <= doc["activeProfileIndex"] < len(profs), "activeProfileIndex"
out = {"active": doc["activeProfileIndex"], "name": doc["name"],
       "exporter": doc["exporter"], "profiles": []}
for p in profs:
    n = p["name"]
    assert p["type"] == "sampled", n
    s, w = p["samples"], p["weights"]
    assert len(s) == len(w), "%s: %d samples, %d weights" % (n, len(s), len(w))
    assert all(type(x) is int and x > 0 for x in w), n + ": a weight <= 0"
    assert all(type(i) is int and 0 <= i < len(frames)
               for st in s for i in st), n + ": a frame index out of range"
    assert p["endValue"] - p["startValue"] == sum(w), n + ": end - start"
    # The view starts at the run's start: a thread's first sample may
    # come after a gap; its last is never one.
    assert not s or s[-1], n + ": a gap at the end"
    order, main_first, pw, depths = [], True, {}, set()
    for st, x in zip(s, w):
        names = [frames[i]["name"] for i in st]
        ph = [k for k, y in enumerate(names) if y.startswith("phase_")]
        if not ph:
            continue
        pw[names[ph[0]]] = pw.get(names[ph[0]], 0) + x
        if ph[0] == len(names) - 1:
            depths.add(len(names))
        if "main" in names and names.index("main") > ph[0]:
            main_first = False
        if not order or order[-1] != names[ph[0]]:
            order.append(names[ph[0]])
    m = re.search(r"\((\d+)/(\d+)\)", n)
    out["profiles"].append({
        "name": n, "unit": p["unit"],
        # where its first sample with frames starts
        "start": p["startValue"] + sum(next((w[:k] for k, st in enumerate(s)
                                             if st), [])),
        "end": p["endValue"], "tid": int(m.group(2)) if m else None,
        "weight": sum(x for st, x in zip(s, w) if st),
        # the gaps after its first sample
        "gaps": sum(x for k, (st, x) in enumerate(zip(s, w))
                    if not st and any(s[:k])),
        "phase_weight": pw, "phase_depths": sorted(depths),
        "order": order, "main_first": main_first})
print(json.dumps(out))
EOF
}

# by_tid PROFILE [ARG...]: {"TID": weight of cpu-clock} of the report.
by_tid() {
	run -0 "$UPROFILE" -i "$@" -by tid -format json
	jq -c '[.by_totals[] | {key: (.tid | tostring),
		value: .weight["cpu-clock"]}] | from_entries' <<<"$output"
}

# Every thread's profile weighs what the report gives its tid.
assert_thread_totals() {
	local sum=$1 want=$2 got
	got=$(jq -c '[.profiles[] | {key: (.tid | tostring), value: .weight}]
		| from_entries' <<<"$sum")
	assert_equal "$(jq -S . <<<"$got")" "$(jq -S . <<<"$want")"
}

@test "speedscope: the file validates against the schema of speedscope's npm package" {
	skip_unless_speedscope
	python3 -c 'import jsonschema' 2>/dev/null ||
		skip "python3-jsonschema is not installed"
	prof one "$PHASES2" 300
	prof two "$PHASES2" -t 300
	export_ss one.out one.json
	export_ss two.out two.json
	run -0 "$UPROFILE" --merge sum.out one.out two.out
	export_ss sum.out sum.json
	for f in one.json two.json sum.json; do
		if [[ -x $CHECK ]]; then
			SPEEDSCOPE_DIR=${SS_DIR%/node_modules/speedscope} \
				run -0 "$CHECK" "$f"
		fi
		run -0 python3 - "$SS_DIR/dist/release/file-format-schema.json" "$f" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2])), schema,
                    cls=jsonschema.Draft7Validator)
EOF
	done
	# and the check is not vacuous: a unit the schema does not know fails
	jq '.profiles[0].unit = "ticks"' one.json >bad.json
	run -1 python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
' "$SS_DIR/dist/release/file-format-schema.json" bad.json
}

@test "speedscope: one thread's samples run phase_a, phase_b, phase_c, root first, weighing the report's totals" {
	prof one "$PHASES2" 300
	export_ss one.out one.json
	assert_equal "$stderr" ""
	sum=$(summary one.json)
	assert_equal "$(jq -r '.profiles | length' <<<"$sum")" 1
	assert_equal "$(jq -r '.profiles[0].order | join(" ")' <<<"$sum")" \
		"phase_a phase_b phase_c"
	assert_equal "$(jq -r '.profiles[0].main_first' <<<"$sum")" true
	assert_equal "$(jq -r '.profiles[0].unit' <<<"$sum")" nanoseconds
	assert_equal "$(jq -r '.active' <<<"$sum")" 0
	assert_equal "$(jq -r '.exporter' <<<"$sum")" "uprofile $(cat "$ROOT/VERSION")"
	assert_equal "$(jq -r '.name' <<<"$sum")" "$PHASES2 300"
	[[ $(jq -r '.profiles[0].name' <<<"$sum") =~ ^phases2\ \([0-9]+/[0-9]+\)$ ]] ||
		fail "thread name: $(jq -r '.profiles[0].name' <<<"$sum")"
	assert_thread_totals "$sum" "$(by_tid one.out)"
	assert_equal "$(jq -c '.profiles[0].phase_depths' <<<"$sum")" "[5]"
	# three phases of 300 ms of CPU: the samples cover about 0.9 s (a
	# timer that skips a period now and then undercounts it a little)
	assert_near "$(jq '.profiles[0].weight / 1e9' <<<"$sum")" 0.8 0.2
}

# The worker of phases2 names itself first thing; its rename's record may
# reach a drain after samples taken after it, from another CPU's ring
# (a CI run named it "phases2, worker" in the test below).
@test "a rename drained after samples taken after it: they take the new name (mkrename)" {
	run -0 "$TPROG/mkrename" rn.out "$TPROG/demo"
	run -0 "$UPROFILE" -i rn.out --by=tid,comm --format json
	run -0 jq -c '[.rows[] | [.tid, .comm, .samples["cpu-clock"]]] | sort' <<<"$output"
	# 101: all four samples after the rename; 102: one before it, so
	# its 5 ms sample (counted before the record came) stays "prog"
	assert_output '[[101,"worker",4],[102,"prog",2],[102,"worker",1]]'
}

@test "speedscope: two threads, each its own profile in time order; the sleeping one's sleep is a gap" {
	prof two "$PHASES2" -t 300
	export_ss two.out two.json
	sum=$(summary two.json)
	assert_equal "$(jq -r '.profiles | length' <<<"$sum")" 2
	main=$(jq -c '.profiles[] | select(.name | startswith("phases2 "))' <<<"$sum")
	worker=$(jq -c '.profiles[] | select(.name | startswith("worker "))' <<<"$sum")
	[[ -n $main && -n $worker ]] || fail "thread names: $(jq -c '[.profiles[].name]' <<<"$sum")"
	assert_equal "$(jq -r '.order | join(" ")' <<<"$main")" "phase_a phase_c"
	assert_equal "$(jq -r '.order | join(" ")' <<<"$worker")" "phase_b"
	assert_equal "$(jq -r '.main_first' <<<"$main")" true
	assert_equal "$(jq -c '.phase_depths' <<<"$main")" "[5]"
	# the worker's thread starts in clone, its stacks in libc
	[[ $(jq -c '.phase_depths' <<<"$worker") =~ ^\[[3-9]\]$ ]] ||
		fail "worker's stacks: $(jq -c '.phase_depths' <<<"$worker")"
	# main works 600 ms, the worker 300 ms: main is the busiest
	assert_equal "$(jq -r ".profiles[.active].name" <<<"$sum")" \
		"$(jq -r .name <<<"$main")"
	assert_thread_totals "$sum" "$(by_tid two.out)"
	# The worker starts after main's phase_a (start: ns from the run's
	# start), and main's gap, its sleep in pthread_join, lasts the
	# worker's run at least (less a few periods of slack).
	local ms ma ws ww mg
	ms=$(jq .start <<<"$main")
	ma=$(jq .phase_weight.phase_a <<<"$main")
	ws=$(jq .start <<<"$worker")
	ww=$(jq .weight <<<"$worker")
	mg=$(jq .gaps <<<"$main")
	((ws + 5000000 >= ms + ma)) ||
		fail "worker starts at $ws ns, main at $ms with $ma ns in phase_a"
	((mg + 10000000 >= ww)) ||
		fail "main's gaps $mg ns, the worker ran $ww ns"
}

@test "speedscope: a --time window exports what is in it, per thread" {
	prof two "$PHASES2" -t 300
	export_ss two.out win.json --time 0.1-0.5
	sum=$(summary win.json)
	assert_thread_totals "$sum" "$(by_tid two.out --time 0.1-0.5)"
	main=$(jq -c '.profiles[] | select(.name | startswith("phases2 "))' <<<"$sum")
	assert_equal "$(jq -r '.order | join(" ")' <<<"$main")" "phase_a"
	# the window starts at 0.1 s: so does main's first sample, within a period
	(($(jq .start <<<"$main") >= 99000000)) || fail "starts at $(jq .start <<<"$main")"
	# Two ranges, in phase_a and in phase_c (main's last 0.1 s but its
	# exit, as the whole export places it: phase_c is its last phase and
	# lasts 0.3 s of CPU, while its start after the worker's end may
	# wait for a CPU on a busy machine): the time between them is cut,
	# not a gap, so main spans 0.2 s at most (and a period before the
	# first).
	export_ss two.out all.json
	local me range
	me=$(summary all.json | jq '.profiles[] | select(.name |
		startswith("phases2 ")) | .end')
	range="0.1-0.2,$((me - 110000000))ns-$((me - 10000000))ns"
	export_ss two.out cut.json --time "$range"
	sum=$(summary cut.json)
	assert_thread_totals "$sum" "$(by_tid two.out --time "$range")"
	main=$(jq -c '.profiles[] | select(.name | startswith("phases2 "))' <<<"$sum")
	assert_equal "$(jq -r '.order | join(" ")' <<<"$main")" "phase_a phase_c"
	(($(jq '.end - .start' <<<"$main") <= 200000000 + 1000000)) ||
		fail "main spans $(jq '.end - .start' <<<"$main") ns of a 0.2 s window"
}

@test "speedscope: without call stacks each sample is its address's frames" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o flat.out "$PHASES2" 200
	export_ss flat.out flat.json
	sum=$(summary flat.json)
	assert_equal "$(jq -r '.profiles[0].order | join(" ")' <<<"$sum")" \
		"phase_a phase_b phase_c"
	assert_equal "$(jq -c '.profiles[0].phase_depths' <<<"$sum")" "[1]"
	assert_thread_totals "$sum" "$(by_tid flat.out)"
}

@test "speedscope: a merged profile exports its sums, and one note says the timeline is missing" {
	prof one "$PHASES2" 300
	prof two "$PHASES2" -t 300
	run -0 "$UPROFILE" --merge sum.out one.out two.out
	export_ss sum.out sum.json
	assert_equal "$stderr" "uprofile: note: 'sum.out' has no timeline (it adds up several runs, each with its own clock): its speedscope profiles are each statistic's call stacks added up, all threads, in no time order"
	sum=$(summary sum.json)
	assert_equal "$(jq -r '.profiles | length' <<<"$sum")" 1
	assert_equal "$(jq -r '.profiles[0].name' <<<"$sum")" \
		"cpu-clock: all threads, no time order (it adds up several runs, each with its own clock)"
	assert_equal "$(jq -r '.profiles[0].main_first' <<<"$sum")" true
	assert_equal "$(jq -r '.profiles[0].gaps' <<<"$sum")" 0
	run -0 "$UPROFILE" -i sum.out -format json
	assert_equal "$(jq -r '.profiles[0].weight' <<<"$sum")" \
		"$(jq -r '.statistics[0].weight' <<<"$output")"
	# several -i add up the same way; -quiet keeps the note to itself
	run -0 --separate-stderr "$UPROFILE" -i one.out -i two.out -quiet \
		--format speedscope -report-file sum2.json
	assert_equal "$stderr" ""
	assert_equal "$(jq -c .profiles sum2.json)" "$(jq -c .profiles sum.json)"
}

@test "speedscope: after a run, with -report-file" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -g -e cpu-clock --format speedscope \
		-report-file run.json "$PHASES2" 100
	json_check run.json
	sum=$(summary run.json)
	assert_equal "$(jq -r '.profiles[0].order | join(" ")' <<<"$sum")" \
		"phase_a phase_b phase_c"
	run -125 --separate-stderr "$UPROFILE" --format speedscope "$PHASES2" 1
	assert_equal "${stderr%%$'\n'*}" "uprofile: --format speedscope after a run needs -report-file FILE (stderr is for messages)"
}

@test "speedscope: speedscope itself loads the export (headless chromium)" {
	skip_unless_speedscope
	command -v chromium >/dev/null ||
		skip "chromium is not installed (Debian package chromium)"
	prof two "$PHASES2" -t 300
	export_ss two.out two.json
	# What speedscope's own command line does (bin/cli.mjs): a script
	# that hands the file to the page, named in the URL's hash.
	python3 - two.json two.js <<'EOF'
import base64, json, sys
data = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
open(sys.argv[2], "w").write("speedscope.loadFileFromBase64(%s, %s)"
                             % (json.dumps(sys.argv[1]), json.dumps(data)))
EOF
	run -0 --separate-stderr timeout 120 chromium --headless --no-sandbox \
		--disable-gpu --allow-file-access-from-files \
		--user-data-dir="$BATS_TEST_TMPDIR/chromium" \
		--virtual-time-budget=10000 --dump-dom \
		"file://$SS_DIR/dist/release/index.html#localProfilePath=$PWD/two.js"
	[[ $output != *"Something went wrong"* ]] ||
		fail "speedscope could not import the file"
	# the page's title is the command, the profile menu names the threads
	[[ $output == *"<title>$PHASES2 -t 300 - speedscope</title>"* ]] ||
		fail "no title naming the command"
	main=$(jq -r '.profiles[] | select(.name | startswith("phases2 ")) | .name' two.json)
	worker=$(jq -r '.profiles[] | select(.name | startswith("worker ")) | .name' two.json)
	[[ $output == *"<span>$main</span>"* && $output == *"<span>$worker</span>"* ]] ||
		fail "the profile menu does not name both threads"
	# and a file it refuses says so there: the check above can fail
	jq '.profiles[0].weights |= .[1:]' two.json >bad.json
	python3 - bad.json bad.js <<'EOF'
import base64, json, sys
data = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
open(sys.argv[2], "w").write("speedscope.loadFileFromBase64(%s, %s)"
                             % (json.dumps(sys.argv[1]), json.dumps(data)))
EOF
	run -0 --separate-stderr timeout 120 chromium --headless --no-sandbox \
		--disable-gpu --allow-file-access-from-files \
		--user-data-dir="$BATS_TEST_TMPDIR/chromium" \
		--virtual-time-budget=10000 --dump-dom \
		"file://$SS_DIR/dist/release/index.html#localProfilePath=$PWD/bad.js"
	[[ $output == *"Something went wrong"* ]] ||
		fail "speedscope took a file whose weights are short"
}
