#!/usr/bin/env bats
# --format pprof: the gzipped profile.proto, read back by the real client,
# go tool pprof (Debian's golang-go), never by a reader of our own.
#
# What a user relies on:
#  - pprof's -top shows the procedures' flat counts and the totals of our
#    own report, exactly (both come from the same counts), for every
#    sample type: the samples and the weight of each statistic;
#  - -traces shows whole stacks, -raw the inline frames and the mappings
#    with their build-ids, -list the source lines, -diff_base subtracts;
#  - the export is already symbolized: pprof must not look for the
#    binaries (the program profiled is deleted before pprof runs, so a
#    pprof that tried would say "Local symbolization failed");
#  - the README's curl commands deliver a profile that decodes as it was
#    (a receiver on 127.0.0.1 stands in for Pyroscope and Parca).
#
# The profiles are taken once (setup_file) of a copy of tests/programs/
# callers (and inline, whose hot loop is an inlined function); the tests
# only read them.

load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	cd "$d" || return 1
	cp "$TPROG/callers" "$TPROG/inline" "$d/"
	"$UPROFILE" -quiet -g -o inline.umon ./inline 300 &&
		"$UPROFILE" -quiet -g -o stacks.umon ./callers 1000 &&
		"$UPROFILE" -quiet -g -o stacks2.umon ./callers 500 &&
		"$UPROFILE" -quiet -o flat.umon ./callers 300 &&
		"$UPROFILE" -quiet -e cpu-clock,task-clock -o two.umon \
			./callers 300 || return 1
	local p
	for p in stacks stacks2 flat two inline; do
		"$UPROFILE" -i $p.umon --format pprof >$p.pb.gz &&
			"$UPROFILE" -i $p.umon -inline --format json >$p.json ||
			return 1
	done
	# pprof reads the exports without the program.
	rm "$d/callers" "$d/inline"
}

setup() {
	common_setup
	command -v go >/dev/null ||
		skip "go is not installed (golang-go): go tool pprof reads the export"
	# go needs a home and a cache; it runs offline, as root too.
	export HOME=$BATS_TEST_TMPDIR/home GOCACHE=$BATS_TEST_TMPDIR/gocache
	export GOPATH=$BATS_TEST_TMPDIR/gopath GOPROXY=off GOFLAGS=
	mkdir -p "$HOME"
	F=$BATS_FILE_TMPDIR
}

teardown() {
	[[ -z ${RECEIVER_PID-} ]] || kill "$RECEIVER_PID" 2>/dev/null || true
	kill_started "${BG_PIDS[@]}"
}

# pprof ARG...: go tool pprof ARG... succeeds; its report in $output.  It
# never tries to symbolize what the export says is symbolized.
pprof() {
	run -0 --separate-stderr go tool pprof "$@"
	[[ $stderr != *ymbolization* && $stderr != *"not available"* ]] ||
		fail "pprof tried to symbolize the export: $stderr"
}

# flat_by_name: "NAME FLAT" lines from a pprof -top report in $output,
# one per function name (pprof's "(inline)" dropped, equal names added),
# sorted, zeros left out.
flat_by_name() {
	awk '/^ *flat  flat%/ { rows = 1; next }
	     rows && NF >= 6 {
		v = $1; sub(/ns$/, "", v)
		name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
		sub(/ \(inline\)$/, "", name)
		flat[name] += v
	     }
	     END { for (n in flat) if (flat[n]) printf "%s %.0f\n", n, flat[n] }' <<<"$output" |
		sort
}

# report_by_name JSON FIELD STAT: the same from our JSON report (with
# -inline: pprof names inlined functions apart, "(inline)"): per
# procedure name, the sum of the rows' FIELD (samples, weight) of STAT.
report_by_name() {
	jq -r --arg f "$2" --arg s "$3" '
		[.rows[] | {p: .procedure, v: .[$f][$s]}] | group_by(.p)[]
		| {p: .[0].p, v: (map(.v) | add)} | select(.v > 0)
		| "\(.p) \(.v)"' "$1" | sort
}

# total JSON FIELD STAT: the report's total of STAT (samples, weight).
total() {
	jq -r --arg f "$2" --arg s "$3" \
		'.statistics[] | select(.name == $s) | .[$f]' "$1"
}

# check_top PROFILE TYPE FIELD STAT: pprof -top of sample type TYPE shows
# the flat value of every procedure and the total our report has.
check_top() {
	local want got
	pprof -top -nodefraction=0 -nodecount=100000 -unit=ns \
		-sample_index="$2" "$F/$1.pb.gz"
	got=$(flat_by_name)
	want=$(report_by_name "$F/$1.json" "$3" "$4")
	[[ -n $want ]] || fail "no rows in our report of $1"
	diff -u <(echo "$want") <(echo "$got") ||
		fail "pprof -top $2: flat values differ from our report"
	local t
	t=$(total "$F/$1.json" "$3" "$4")
	[[ $output == *"of ${t}ns total"* || $output == *"of $t total"* ]] ||
		fail "pprof's total is not our $t: $output"
}

@test "pprof -top: every procedure's flat samples and weight, and the totals, as our report" {
	check_top stacks cpu-clock_samples samples cpu-clock
	check_top stacks cpu-clock weight cpu-clock
	# The weight is the default type, in nanoseconds.
	pprof -raw "$F/stacks.pb.gz"
	[[ $output == *"cpu-clock_samples/count cpu-clock/nanoseconds[dflt]"* ]] ||
		fail "sample types: $output"
}

@test "pprof -raw: every sample type adds up to the report's totals" {
	local p s k want got
	for p in stacks flat two; do
		pprof -raw "$F/$p.pb.gz"
		# Samples: one row of values per sample, "v1 v2 ...: locations".
		got=$(awk '/^Samples:/ { on = 1; getline; next }
			   /^Locations/ { on = 0 }
			   on && /:/ { split($0, a, ":"); n = split(a[1], v, " ")
				   for (i = 1; i <= n; i++) sum[i] += v[i]
				   if (n > m) m = n }
			   END { for (i = 1; i <= m; i++) printf "%.0f ", sum[i] }' \
			<<<"$output")
		want=
		for s in $(jq -r '.statistics[].name' "$F/$p.json"); do
			for k in samples weight; do
				want+="$(total "$F/$p.json" $k "$s") "
			done
		done
		[[ $got == "$want" ]] ||
			fail "$p: sums of the samples '$got', report totals '$want'"
	done
}

@test "pprof -traces: complete stacks from the leaf to _start" {
	pprof -traces "$F/stacks.pb.gz"
	# One trace per sample: "VALUE FRAME" then one frame a line.
	run -0 awk '/^-----------\+/ { if (n) print s; s = ""; n = 0; next }
		    /^ +[0-9.]+m?s +/ { s = $2; n = 1; next }
		    n && NF { sub(/^ +/, ""); s = s ";" $0 }
		    END { if (n) print s }' <<<"$output"
	local traces=$output
	# A stack per line: grep is given a string, not our output.
	grep -Eq '(^|;)leaf_work;caller_c;main;(.*;)?_start$' <<<"$traces" ||
		fail "no stack main -> caller_c -> leaf_work: $traces"
	grep -Eq '(^|;)cmp_work;.*;__qsort_r;sort_caller;main;(.*;)?_start$' <<<"$traces" ||
		fail "no stack through libc's qsort: $traces"
	grep -Eq '(^|;)rec_leaf(;recurse){8};main;(.*;)?_start$' <<<"$traces" ||
		fail "no recursion 8 deep: $traces"
}

@test "pprof -raw: inline frames in one location, mappings with build-ids, already symbolized" {
	pprof -raw "$F/inline.pb.gz"
	# inner_kernel is inlined into outer_driver, where ~90% of the
	# samples are: one location, two lines, the inlined function first.
	run -0 awk '/^Locations/ { on = 1; next } /^Mappings/ { on = 0 }
		    on && /^ +[0-9]+: / { prev = $4; next }
		    on && prev == "inner_kernel" && $1 == "outer_driver" { n++ }
		    END { print n + 0 }' <<<"$output"
	((output > 0)) || fail "no location with inner_kernel inlined into outer_driver"
	pprof -raw "$F/stacks.pb.gz"
	local id
	id=$(readelf -n "$TPROG/callers" | awk '/Build ID:/ { print $3 }')
	[[ -n $id ]] || fail "callers has no build-id"
	run -0 awk '/^Mappings/ { on = 1; next } on' <<<"$output"
	[[ ${lines[0]} == "1: 0x"*"/callers $id [FN][FL][LN][IN]" ]] ||
		fail "the program is not the first mapping, with its build-id: $output"
	[[ $output == *"libc.so.6 "[0-9a-f]*" [FN][FL][LN][IN]"* ]] ||
		fail "no libc mapping with its build-id: $output"
}

@test "pprof -raw: a location's address lies in its mapping" {
	pprof -raw "$F/stacks.pb.gz"
	run -0 python3 -c '
import re, sys
text = sys.stdin.read()
maps = {}
for m in re.finditer(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/", text, re.M):
    maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
bad = n = 0
for m in re.finditer(r"^ +\d+: 0x([0-9a-f]+) M=(\d+) ", text, re.M):
    lo, hi = maps[m.group(2)]
    n += 1
    if not lo <= int(m.group(1), 16) < hi:
        bad += 1
        print("outside:", m.group(0))
print(n, bad)' <<<"$output"
	[[ ${lines[-1]} == *" 0" && ${lines[-1]} != "0 0" ]] ||
		fail "locations outside their mapping: $output"
}

@test "pprof -list: leaf_work's source lines with their counts" {
	pprof -list '^leaf_work$' "$F/stacks.pb.gz"
	[[ $output == *"ROUTINE ="*" leaf_work in "*"tests/programs/callers.c"* ]] ||
		fail "no listing of leaf_work: $output"
	# The spin loop's line holds leaf_work's own time.
	[[ $output =~ [[:space:]]+[0-9.]+m?s[[:space:]]+[0-9.]+m?s[[:space:]]+[0-9]+:[[:space:]]+SPIN\(ns,\ 1\)\; ]] ||
		fail "the SPIN line of leaf_work has no counts: $output"
}

@test "pprof -diff_base: the change between two exports" {
	local a b
	a=$(report_by_name "$F/stacks.json" samples cpu-clock |
		awk '$1 == "leaf_work" { print $2 }')
	b=$(report_by_name "$F/stacks2.json" samples cpu-clock |
		awk '$1 == "leaf_work" { print $2 }')
	pprof -top -nodefraction=0 -sample_index=cpu-clock_samples \
		-diff_base="$F/stacks.pb.gz" "$F/stacks2.pb.gz"
	run -0 awk '$NF == "leaf_work" { print $1 }' <<<"$output"
	[[ $output == "$((b - a))" ]] ||
		fail "leaf_work changed by '$output', not $b - $a"
}

@test "a profile without stacks exports flat samples of one location" {
	check_top flat cpu-clock_samples samples cpu-clock
	pprof -traces "$F/flat.pb.gz"
	# Each trace: the sampled function and the ones inlined into it.
	run -0 awk '/^-----------\+/ { on = 0; next }
		    /^ +[0-9.]+m?s +/ { on = 1; n = 0 }
		    on && NF && !/\(inline\)$/ { n++ }
		    n > 1 { bad = 1 }
		    END { print bad + 0 }' <<<"$output"
	[[ $output == 0 ]] || fail "a flat profile has stacks"
}

@test "two statistics: two sample types each, both with the report's figures" {
	pprof -raw "$F/two.pb.gz"
	[[ $output == *"cpu-clock_samples/count cpu-clock/nanoseconds[dflt] task-clock_samples/count task-clock/nanoseconds"* ]] ||
		fail "sample types: $output"
	check_top two task-clock_samples samples task-clock
	check_top two task-clock weight task-clock
	check_top two cpu-clock weight cpu-clock
}

@test "comments: the command line, the tool and the substitution" {
	pprof -raw "$F/stacks.pb.gz"
	[[ $output == *"Comment: ./callers 1000"* ]] || fail "$output"
	[[ $output == *"Comment: profiled by uprofile"* ]] || fail "$output"
	local s
	s=$(jq -r '.statistics[0] | select(.substitute) |
		"\(.name) (substitute for \(.requested))"' "$F/stacks.json")
	[[ -z $s || $output == *"Comment: $s"* ]] ||
		fail "no comment '$s': $output"
}

@test "-report-file writes the export atomically, replacing a planted link" {
	# After a run.
	run -0 "$UPROFILE" -quiet -g --format pprof -report-file run.pb.gz \
		"$TPROG/callers" 200
	pprof -top run.pb.gz
	[[ $output == *leaf_work* ]] || fail "$output"
	# With -i.
	echo precious >target
	ln -s target out.pb.gz
	run -0 "$UPROFILE" -i umon.out --format pprof -report-file out.pb.gz
	[[ -f out.pb.gz && ! -L out.pb.gz ]] || fail "the link was followed"
	[[ $(cat target) == precious ]] || fail "the link's target changed"
	"$UPROFILE" -i umon.out --format pprof >stdout.pb.gz
	cmp out.pb.gz stdout.pb.gz || fail "not the export stdout gets"
	cmp out.pb.gz run.pb.gz || fail "not the export the run wrote"
}

@test "a counting profile is refused with one line, status 125" {
	run -0 "$UPROFILE" -quiet --count -o count.umon "$TPROG/callers" 50
	run -125 --separate-stderr "$UPROFILE" -i count.umon --format pprof \
		-report-file c.pb.gz
	[[ $stderr == "uprofile: 'count.umon' is a counting profile: it has totals, no samples to export (use --format text or json)" ]] ||
		fail "$stderr"
	[[ ! -e c.pb.gz ]] || fail "a file was written"
}

@test "never written to a terminal" {
	command -v script >/dev/null || skip "script (bsdutils) is not installed"
	# script gives the command a terminal as stdout.
	run script -qec "'$UPROFILE' -i '$F/stacks.umon' --format pprof; echo status=\$?" /dev/null
	[[ $output == *"--format pprof is binary"*"status=125"* ]] ||
		fail "$output"
}

# ---- continuous profiling: the README's commands ----------------------

# readme_block N: the N-th ```sh block of the README's "Continuous
# profiling" section.
readme_block() {
	awk -v want="$1" '/^## / { on = ($0 == "## Continuous profiling") }
		on && /^```sh$/ { n++; inb = (n == want); next }
		inb && /^```$/ { inb = 0; next }
		inb' "$ROOT/README.md"
}

# start_receiver: an HTTP server on 127.0.0.1 that answers 200 to every
# POST, keeping its path in request.path and its body in request.body;
# its base URL in $URL.
start_receiver() {
	cat >receiver.py <<-'EOF'
		import http.server, sys
		class H(http.server.BaseHTTPRequestHandler):
		    def do_POST(self):
		        body = self.rfile.read(int(self.headers["Content-Length"]))
		        open("request.body", "wb").write(body)
		        open("request.ctype", "w").write(
		            self.headers.get("Content-Type", ""))
		        open("request.path", "w").write(self.path)
		        self.send_response(200)
		        self.end_headers()
		    def log_message(self, *a):
		        pass
		s = http.server.HTTPServer(("127.0.0.1", 0), H)
		open("port.tmp", "w").write(str(s.server_port))
		__import__("os").rename("port.tmp", "port")
		s.serve_forever()
	EOF
	python3 receiver.py &
	RECEIVER_PID=$!
	wait_nonempty port
	URL=http://127.0.0.1:$(cat port)
}

# run_readme N HOST:PORT: run the README's N-th block in this directory
# on a new umon.out (its report in umon.json), our tools on PATH, its
# server replaced by the receiver.
run_readme() {
	local block
	block=$(readme_block "$1")
	[[ -n $block ]] || fail "no block $1 in the README's Continuous profiling"
	[[ $block == *"http://$2"* ]] || fail "block $1 does not post to $2: $block"
	run -0 "$UPROFILE" -quiet -g "$TPROG/callers" 300
	"$UPROFILE" -i umon.out -inline --format json >umon.json
	local server=http://$2
	run -0 env PATH="$ROOT/$BUILD:$PATH" bash -euo pipefail \
		-c "${block//"$server"/$URL}"
}

@test "README: curl to Pyroscope's /ingest delivers the profile as it was" {
	command -v curl >/dev/null || skip "curl is not installed"
	start_receiver
	run_readme 1 localhost:4040
	local path from until
	path=$(cat request.path)
	[[ $path == /ingest\?name=*"&format=pprof" ]] || fail "posted to $path"
	from=$(sed -E 's/.*[?&]from=([0-9]+).*/\1/' <<<"$path")
	until=$(sed -E 's/.*[?&]until=([0-9]+).*/\1/' <<<"$path")
	local start
	start=$(jq '.start_time_ns / 1e9 | floor' umon.json)
	((from == start && until >= from)) ||
		fail "from=$from until=$until, the profile started at $start"
	cp request.body got.pb.gz
	check_arrived got.pb.gz
}

@test "README: curl to Parca's writeraw delivers the profile as it was" {
	command -v curl >/dev/null || skip "curl is not installed"
	start_receiver
	run_readme 2 localhost:7070
	[[ $(cat request.path) == /api/profiles/writeraw ]] ||
		fail "posted to $(cat request.path)"
	[[ $(cat request.ctype) == application/json ]] || fail "not JSON"
	run -0 jq -r '.series[0].labels.labels[] | select(.name == "__name__")
		| .value' request.body
	[[ $output == process_cpu ]] || fail "__name__ is '$output'"
	jq -r '.series[0].samples[0].rawProfile' request.body |
		base64 -d >got.pb.gz
	check_arrived got.pb.gz
}

# check_arrived FILE: FILE is the export of umon.out, and pprof -top reads
# in it what our report of umon.out has.
check_arrived() {
	"$UPROFILE" -i umon.out --format pprof >want.pb.gz
	cmp "$1" want.pb.gz || fail "what arrived is not the export"
	pprof -top -nodefraction=0 -nodecount=100000 -unit=ns \
		-sample_index=cpu-clock "$1"
	diff -u <(report_by_name umon.json weight cpu-clock) \
		<(flat_by_name) || fail "what arrived reads differently"
}
