#!/usr/bin/env bats
# --format firefox (formats/firefox.c, docs/exports.md): the Firefox
# Profiler's processed profile.  Every file passes our shape check
# (tests/tools/firefox-check: columns as long as their tables, indices
# in range, stacks in topological order, version 70, one grey category,
# times in order), and then the profiler's own code reads it: npm's
# @firefox-devtools/profiler-cli loads it (the profiler's loader:
# unserializeProfileOfArbitraryFormat, the upgraders, the Redux store)
# and computes every thread's call tree and function list.  What it
# computes is checked against the report of the same profile, exactly:
# each node of the report's call tree (-tree) is a node of the threads'
# tree with the same samples, each thread's total is its -by tid total,
# each phase's self samples its -by tid -inline row.  tests/programs/
# phases2 runs phase_a, phase_b, phase_c in turn (-t: phase_b in a
# worker thread while main waits in pthread_join).

load helpers

PHASES2=$TPROG/phases2
CHECK=$ROOT/tests/tools/firefox-check

# profiler-cli's script: FIREFOX_PROFILER_CLI, else where setup.sh
# installs the npm package.
profiler_cli_js() {
	local f
	for f in "${FIREFOX_PROFILER_CLI-}" \
		"$ROOT/build/npm/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js"; do
		if [[ -n $f && -f $f ]]; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

skip_unless_profiler_cli() {
	command -v node >/dev/null || skip "node is not installed"
	PCLI=$(profiler_cli_js) ||
		skip "the npm package @firefox-devtools/profiler-cli is not installed (./setup.sh test installs it: npm install --prefix build/npm @firefox-devtools/profiler-cli@0.10.0; or set FIREFOX_PROFILER_CLI to its dist/profiler-cli.js)"
}

# pcli ARG...: profiler-cli in this test's session; its daemon's socket
# and log are in the test's directory, and teardown stops it.  Never a
# symbol server: the file is symbolicated (and there is no network).
pcli() {
	PROFILER_CLI_SESSION_DIR=$BATS_TEST_TMPDIR/pcli \
		PROFILER_CLI_NO_SYMBOLICATE=1 node "$PCLI" "$@" --session fx
}

teardown() {
	# a daemon the test started (a load that failed leaves one too)
	if [[ -n ${PCLI-} && -d $BATS_TEST_TMPDIR/pcli ]]; then
		pcli stop >/dev/null 2>&1 || :
	fi
	kill_started "${BG_PIDS[@]}"
}

# prof NAME ARG...: uprofile -g ARG... once per file run, copied to
# ./NAME.out.
prof() {
	local name=$1
	shift
	skip_unless_perf_works
	local cached=$BATS_FILE_TMPDIR/$name.out
	if [[ ! -s $cached ]]; then
		run -0 "$UPROFILE" -quiet -g -o "$cached.new" "$@"
		mv "$cached.new" "$cached"
	fi
	cp "$cached" "$name.out"
}

# export_fx PROFILE OUT [ARG...]: the firefox export of PROFILE to OUT,
# strict JSON that passes the shape check; stderr in $stderr.
export_fx() {
	local in=$1 out=$2
	shift 2
	run -0 --separate-stderr "$UPROFILE" -i "$in" "$@" \
		--format firefox -report-file "$out"
	json_check "$out"
	run -0 "$CHECK" "$out"
}

# summary FILE: firefox-check --summary's lines, one JSON array.
summary() {
	"$CHECK" --summary "$1" | jq -s -c .
}

# profiler_views FILE DIR: profiler-cli loads FILE, and DIR gets what it
# computes: list.json (the threads), and per thread HANDLE.tree.json
# (samples-top-down), HANDLE.functions.json, HANDLE.tree.txt (the tree
# as the command prints it).  Then the session ends.
profiler_views() {
	local file=$1 dir=$2 t
	mkdir -p "$dir"
	run -0 pcli load "$file"
	run -0 pcli thread list --json
	echo "$output" >"$dir/list.json"
	for t in $(jq -r '.threads[].threadHandle' "$dir/list.json"); do
		run -0 pcli thread samples-top-down --thread "$t" --json \
			--max-lines 100000
		echo "$output" >"$dir/$t.tree.json"
		run -0 pcli thread functions --thread "$t" --json --limit 0
		echo "$output" >"$dir/$t.functions.json"
		run -0 pcli thread samples-top-down --thread "$t" \
			--max-lines 100000
		echo "$output" >"$dir/$t.tree.txt"
	done
	run -0 pcli stop
	[[ -s $dir/list.json ]] || fail "profiler-cli listed no threads"
}

# compare PROFILE DIR STAT UNIT [ARG...]: what profiler-cli computed
# (DIR, of PROFILE's export with ARG...) against PROFILE's report of
# statistic STAT (with ARG...), in UNIT: samples (weightType "samples")
# or ms ("tracing-ms"):
#  - every node of the report's call tree (-tree, all threads; nodes
#    below 0.5% pruned) is a node of the threads' trees, at the same
#    path from the root, with the same total and self samples, added up
#    over the threads that have it (a statistic of time: the same total
#    weight, ms against ns, within a microsecond);
#  - each thread's total is its tid's in -by tid;
#  - each thread's functions' self samples are its tid's rows of -by tid
#    -inline (inlined code in rows of its own, as the profiler counts a
#    sample to its innermost frame's function).
# Prints one line per thread: "name tid total" (into DIR/compare.txt),
# and fails naming what differs.
compare() {
	local profile=$1 dir=$2 stat=$3 unit=$4
	shift 4
	run -0 "$UPROFILE" -i "$profile" "$@" -tree -format json
	echo "$output" >"$dir/report-tree.json"
	run -0 "$UPROFILE" -i "$profile" "$@" -by tid -inline -format json
	echo "$output" >"$dir/report-by.json"
	python3 - "$dir" "$stat" "$unit" <<'EOF'
import glob, json, os, sys
d, stat, timed = sys.argv[1], sys.argv[2], sys.argv[3] == 'ms'
problems = []
rt = json.load(open(os.path.join(d, 'report-tree.json')))
by = json.load(open(os.path.join(d, 'report-by.json')))
threads = json.load(open(os.path.join(d, 'list.json')))['threads']

def same(a, b):
    return abs(a - b) <= 1e-3 if timed else a == b

def want(samples, weight):
    return weight / 1e6 if timed else samples

# per thread: path -> (total, self), and its root total
trees = {}
for t in threads:
    doc = json.load(open(os.path.join(d, t['threadHandle'] + '.tree.json')))
    root = doc['regularCallTree']
    nodes = {}
    def walk(n, path):
        for c in n.get('children', []):
            p = path + (c['name'],)
            assert p not in nodes, 'two nodes %s' % '/'.join(p)
            nodes[p] = (c['totalSamples'], c['selfSamples'])
            walk(c, p)
    walk(root, ())
    trees[t['threadHandle']] = (t, root['totalSamples'], nodes)

def rwalk(n, path):
    p = path + (n['procedure'],)
    yield p, n
    for c in n.get('children', []):
        yield from rwalk(c, p)

checked = 0
for r in rt['tree']['roots']:
    for p, n in rwalk(r, ()):
        # the report's tree adds the threads' up
        hits = [(h, x[2][p]) for h, x in trees.items() if p in x[2]]
        name = '/'.join(p)
        if not hits:
            problems.append('%s: in no thread\'s tree' % name)
            continue
        h = ','.join(x[0] for x in hits)
        tot = sum(x[1][0] for x in hits)
        slf = sum(x[1][1] for x in hits)
        if not same(tot, want(n['samples'], n['weight'])):
            problems.append('%s (%s): total %s, the report %s' % (
                name, h, tot, want(n['samples'], n['weight'])))
        if not timed and slf != n['self_samples']:
            problems.append('%s (%s): self %s, the report %s' % (
                name, h, slf, n['self_samples']))
        checked += 1
if checked < 5:
    problems.append('only %d nodes compared' % checked)

tid_total = {b['tid']: b for b in by['by_totals']}
out = []
for h, (t, total, nodes) in trees.items():
    b = tid_total.get(t['tid'])
    if b is None:
        problems.append('%s: tid %s not in -by tid' % (h, t['tid']))
        continue
    w = want(b['samples'][stat], b['weight'][stat])
    if not same(total, w):
        problems.append('%s (tid %s): total %s, -by tid %s' % (
            h, t['tid'], total, w))
    if timed:
        out.append('%s %s %.6f' % (t['name'], t['tid'], total))
        continue
    rows = {}
    for r in by['rows']:
        if r['tid'] == t['tid'] and r['samples'].get(stat):
            rows[r['procedure']] = rows.get(r['procedure'], 0) + \
                r['samples'][stat]
    fn = json.load(open(os.path.join(d, h + '.functions.json')))
    selfs = {f['name']: f['selfSamples'] for f in fn['functions']
             if f['selfSamples']}
    if selfs != rows:
        problems.append('%s (tid %s): self samples %s, -by tid -inline %s'
                        % (h, t['tid'], selfs, rows))
    out.append('%s %s %s' % (t['name'], t['tid'], total))
open(os.path.join(d, 'compare.txt'), 'w').write('\n'.join(out) + '\n')
for p in problems:
    print('compare: ' + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}

@test "firefox: one thread's export passes the shape check, loads in profiler-cli, and its tree is the report's" {
	skip_unless_profiler_cli
	prof one -e cpu-clock "$PHASES2" 300
	export_fx one.out one.json
	assert_equal "$stderr" ""
	sum=$(summary one.json)
	assert_equal "$(jq -r 'length' <<<"$sum")" 1
	assert_equal "$(jq -r '.[0].phases' <<<"$sum")" "phase_a phase_b phase_c"
	assert_equal "$(jq -r '.[0].weightType' <<<"$sum")" samples
	assert_equal "$(jq -r '.[0].isMainThread' <<<"$sum")" true
	assert_equal "$(jq -r '.[0].name' <<<"$sum")" phases2
	assert_equal "$(jq -r .meta.arguments one.json)" "$PHASES2 300"
	assert_equal "$(jq -r .meta.product one.json)" uprofile
	profiler_views one.json views
	compare one.out views cpu-clock samples
	# the tree as profiler-cli prints it: main, then the phases
	grep -q '^   f-[0-9]*\. main ' views/t-0.tree.txt ||
		fail "no main in: $(cat views/t-0.tree.txt)"
	for ph in phase_a phase_b phase_c; do
		grep -q "\. $ph \[total: " views/t-0.tree.txt ||
			fail "no $ph in: $(cat views/t-0.tree.txt)"
	done
}

@test "firefox: two threads, each a thread of the profiler, in time order; trees and totals are the report's" {
	skip_unless_profiler_cli
	prof two -e cpu-clock "$PHASES2" -t 300
	export_fx two.out two.json
	sum=$(summary two.json)
	assert_equal "$(jq -r 'length' <<<"$sum")" 2
	main=$(jq -c '.[] | select(.name == "phases2")' <<<"$sum")
	worker=$(jq -c '.[] | select(.name == "worker")' <<<"$sum")
	[[ -n $main && -n $worker ]] || fail "thread names: $(jq -c '[.[].name]' <<<"$sum")"
	assert_equal "$(jq -r .phases <<<"$main")" "phase_a phase_c"
	assert_equal "$(jq -r .phases <<<"$worker")" "phase_b"
	assert_equal "$(jq -r .isMainThread <<<"$main")" true
	assert_equal "$(jq -r .isMainThread <<<"$worker")" false
	assert_equal "$(jq -r .pid <<<"$worker")" "$(jq -r .pid <<<"$main")"
	# One clock: the worker's samples are between main's phase_a and
	# phase_c (ms from the run's start).
	run -0 python3 - two.json <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
sh = doc['shared']
S, fn, fr, st = sh['stringArray'], sh['funcTable'], sh['frameTable'], \
    sh['stackTable']
def leafmost_phase(s):
    while s is not None:
        n = S[fn['name'][fr['func'][st['frame'][s]]]]
        if n.startswith('phase_'):
            return n
        o = st['prefixOffset'][s]
        s = s - o if o else None
span = {}
for t in doc['threads']:
    for s, x in zip(t['samples']['stack'], t['samples']['time']):
        p = leafmost_phase(s)
        if p:
            a, b = span.get(p, (x, x))
            span[p] = (min(a, x), max(b, x))
assert span['phase_a'][1] <= span['phase_b'][0] + 5, span
assert span['phase_b'][1] <= span['phase_c'][0] + 5, span
print(json.dumps(span))
EOF
	profiler_views two.json views
	compare two.out views cpu-clock samples
	# A clock's CPU deltas are its periods: each thread's are its
	# -by tid weight, and the CPU time profiler-cli gives it is theirs
	# but the first (the profiler ignores it).
	run -0 "$UPROFILE" -i two.out -by tid -format json
	by=$output
	for tid in $(jq '.[].tid' <<<"$sum"); do
		assert_equal "$(jq ".[] | select(.tid == $tid) | .cpu + .cpu_first" <<<"$sum")" \
			"$(jq ".by_totals[] | select(.tid == $tid) | .weight[\"cpu-clock\"]" <<<"$by")"
		cpu_ms=$(jq ".threads[] | select(.tid == $tid) | .cpuMs" views/list.json)
		assert_near "$cpu_ms" "$(jq ".[] | select(.tid == $tid) | .cpu / 1e6" <<<"$sum")" 0.001
	done
	# and its listing names both threads of the one process
	assert_equal "$(jq -r '[.threads[].name] | sort | join(" ")' views/list.json)" "phases2 worker"
	assert_equal "$(jq -r '.processCount' views/list.json)" 1
}

@test "firefox: an off-CPU profile (-e wall) weighs time: the wait in pthread_join is in the tree, CPU time is what ran" {
	skip_unless_profiler_cli
	prof wall -e wall "$PHASES2" -t 300
	export_fx wall.out wall.json
	sum=$(summary wall.json)
	assert_equal "$(jq -r '[.[].weightType] | unique | join(" ")' <<<"$sum")" tracing-ms
	assert_equal "$(jq -r .meta.sampleUnits.threadCPUDelta wall.json)" ns
	profiler_views wall.json views
	compare wall.out views wall ms
	# The main thread's tree: besides phase_a and phase_c, main waits
	# (off CPU) for about as long as the worker lives.
	main=$(jq -r '.threads[] | select(.name == "phases2") | .threadHandle' views/list.json)
	worker=$(jq -r '.threads[] | select(.name == "worker") | .threadHandle' views/list.json)
	wait_ms=$(jq '[.regularCallTree | .. | objects | select(.name? == "main")
		| .children[] | select(.name | startswith("phase_") | not)
		| .totalSamples] | add' "views/$main.tree.json")
	worker_ms=$(jq .regularCallTree.totalSamples "views/$worker.tree.json")
	main_ms=$(jq .regularCallTree.totalSamples "views/$main.tree.json")
	awk -v w="$wait_ms" -v k="$worker_ms" 'BEGIN { exit !(w >= 0.8 * k) }' ||
		fail "main waits $wait_ms ms, the worker lives $worker_ms ms: $(cat "views/$main.tree.txt")"
	# The thread's CPU time (profiler-cli's, from threadCPUDelta) is its
	# running time, not its time: about the report's running seconds,
	# well under the tree's total.
	cpu_ms=$(jq ".threads[] | select(.threadHandle == \"$main\") | .cpuMs" views/list.json)
	assert_near "$cpu_ms" "$(jq '.[] | select(.name == "phases2") | .cpu / 1e6' <<<"$sum")" 0.001
	run -0 "$UPROFILE" -i wall.out -format json
	running_ms=$(jq '.threads.threads[] | select(.comm == "phases2") | .seconds.running * 1000' <<<"$output")
	awk -v c="$cpu_ms" -v r="$running_ms" -v t="$main_ms" \
		'BEGIN { exit !(c >= 0.75 * r && c <= 1.25 * r && c < 0.8 * t) }' ||
		fail "main: CPU $cpu_ms ms, running $running_ms ms, total $main_ms ms"
}

@test "firefox: several statistics, a thread each per statistic; one main thread per process" {
	skip_unless_profiler_cli
	prof multi -e cpu-clock,offcpu "$PHASES2" -t 100
	export_fx multi.out multi.json
	sum=$(summary multi.json)
	# The worker spins and exits: an idle machine may never switch it
	# out, and a thread without off-CPU time has no offcpu track.
	local names="phases2: cpu-clock,phases2: offcpu,worker: cpu-clock"
	local types="samples tracing-ms samples" n=3
	run -0 --separate-stderr "$UPROFILE" -i multi.out -format json
	if jq -e '.threads.threads[] | select(.comm == "worker")
		| .seconds | (.blocked + ."blocked-io" + .preempted) > 0' \
		<<<"$output" >/dev/null; then
		names+=",worker: offcpu" types+=" tracing-ms" n=4
	fi
	assert_equal "$(jq -r '[.[].name] | join(",")' <<<"$sum")" "$names"
	assert_equal "$(jq -r '[.[].weightType] | join(" ")' <<<"$sum")" "$types"
	assert_equal "$(jq -r '[.[] | select(.isMainThread)] | length' <<<"$sum")" 1
	profiler_views multi.json views
	assert_equal "$(jq -r '.threads | length' views/list.json)" "$n"
}

@test "firefox: a --time window exports what is in it, on the run's clock" {
	skip_unless_profiler_cli
	prof two -e cpu-clock "$PHASES2" -t 300
	export_fx two.out win.json --time 0.1-0.5
	assert_equal "$(jq -c '[.meta.profilingStartTime, .meta.profilingEndTime]' win.json)" "[100,500]"
	run -0 python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["threads"]:
    x = t["samples"]["time"]
    assert not x or 100 <= x[0] and x[-1] < 500, (t["name"], x[0], x[-1])
' win.json
	profiler_views win.json views
	compare two.out views cpu-clock samples --time 0.1-0.5
}

@test "firefox: without call stacks each sample is its address's frames" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o flat.out "$PHASES2" 200
	export_fx flat.out flat.json
	sum=$(summary flat.json)
	assert_equal "$(jq -r '.[0].phases' <<<"$sum")" "phase_a phase_b phase_c"
	run -0 "$UPROFILE" -i flat.out -by tid -format json
	assert_equal "$(jq -r '.[0].samples' <<<"$sum")" \
		"$(jq -r '.by_totals[0].samples["cpu-clock"]' <<<"$output")"
}

@test "firefox: a merged profile has no timeline: refused in one line, nothing written" {
	prof one -e cpu-clock "$PHASES2" 300
	prof two -e cpu-clock "$PHASES2" -t 300
	run -0 "$UPROFILE" --merge sum.out one.out two.out
	run -125 --separate-stderr "$UPROFILE" -i sum.out --format firefox \
		-report-file sum.json
	assert_equal "$stderr" "uprofile: 'sum.out' has no timeline (it adds up several runs, each with its own clock): the Firefox Profiler lays samples out in time (--format speedscope, pprof or flamegraph export its sums)"
	[[ ! -e sum.json ]] || fail "sum.json was written"
	run -125 --separate-stderr "$UPROFILE" -i one.out -i two.out \
		--format firefox
	assert_equal "$output" ""
	[[ $stderr == "uprofile: '"*"' has no timeline (it adds up several runs, each with its own clock): the Firefox Profiler lays samples out in time (--format speedscope, pprof or flamegraph export its sums)" ]] ||
		fail "stderr: $stderr"
}

@test "firefox: after a run, with -report-file" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -g -e cpu-clock --format firefox \
		-report-file run.json "$PHASES2" 100
	json_check run.json
	run -0 "$CHECK" --summary run.json
	assert_equal "$(jq -r .phases <<<"$output")" "phase_a phase_b phase_c"
	run -125 --separate-stderr "$UPROFILE" --format firefox "$PHASES2" 1
	assert_equal "${stderr%%$'\n'*}" "uprofile: --format firefox after a run needs -report-file FILE (stderr is for messages)"
}

@test "firefox: the checks are not vacuous: the shape check and the profiler's loader refuse broken files" {
	skip_unless_profiler_cli
	prof one -e cpu-clock "$PHASES2" 300
	export_fx one.out one.json
	jq '.shared.frameTable.func |= .[1:]' one.json >short.json
	run -1 --separate-stderr "$CHECK" short.json
	[[ $stderr == *"shared.frameTable.func has "*" entries, length is "* ]] ||
		fail "$stderr"
	jq '.threads[0].samples.stack[0] = 100000' one.json >oob.json
	run -1 --separate-stderr "$CHECK" oob.json
	[[ $stderr == *"threads[0].samples.stack[0] = 100000 is not an index"* ]] ||
		fail "$stderr"
	jq '.meta.preprocessedProfileVersion = 69' one.json >old.json
	run -1 "$CHECK" old.json
	jq '.threads[0].samples.time |= reverse' one.json >back.json
	run -1 "$CHECK" back.json
	# the profiler's loader: a file without its stack table fails to load
	jq 'del(.shared.stackTable)' one.json >nostacks.json
	run pcli load nostacks.json
	[[ $status -ne 0 || $output == *"Profile load failed"* ]] ||
		fail "profiler-cli loaded a file without shared.stackTable: $output"
}
