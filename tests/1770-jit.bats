#!/usr/bin/env bats
# JIT code named by its runtime's perf map (/tmp/perf-PID.map) or jitdump
# (jit-PID.dump): read for every process profiled when the run ends, kept
# in the profile, never followed through a link or taken from a stranger.
# jitspin is a tiny JIT of our own (tests/programs/jitspin.c); node
# --perf-basic-prof, node --perf-prof and python3.12 -X perf are the real
# ones.

load helpers

setup() {
	common_setup
	skip_unless_perf_works
	MAPS=()
}

teardown() {
	local m
	for m in "${MAPS[@]}"; do
		rm -f "$m"
	done
}

# note_maps JSON: the perf maps of the report's JIT objects, removed by
# teardown (the runtimes leave them behind).
note_maps() {
	local m
	for m in $(jq -r '[.rows[].object | select(test("^/tmp/perf-[0-9]+\\.map$"))] | unique[]' <<<"$1"); do
		MAPS+=("$m")
	done
}

# named_percent JSON: the share of the first statistic in rows with a
# name: not "[anon]", "[JIT code without a name]" or "object+0xOFFSET".
named_percent() {
	jq '.statistics[0].name as $s | [.rows[]
		| select(.procedure | test("^\\[(anon|JIT code)|\\+0x[0-9a-f]+$") | not)
		| .percent[$s]] | add // 0' <<<"$1"
}

# assert_all_named JSON: at least 99.9% of the first statistic is in
# named rows (jitspin: > 90% of the time in generated code, all named).
assert_all_named() {
	local named
	named=$(named_percent "$1")
	awk -v n="$named" 'BEGIN { exit !(n >= 99.9) }' || fail "named: $named%"
}

@test "jitspin: JIT code gets the map's names, the last line wins, in the JIT object" {
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -report-file r.txt \
		"$TPROG/jitspin" 2000
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	json=$output
	note_maps "$json"
	pid=$(jq -r '[.rows[] | select(.procedure == "jit_hot") | .object][0]' <<<"$json")
	[[ $pid =~ ^/tmp/perf-([0-9]+)\.map$ ]] || fail "jit_hot's object: $pid"
	assert_split "$json" jit_hot jit_warm 75 8
	# the stale entry under jit_hot was written first: it names nothing
	run -0 jq '[.rows[] | select(.procedure == "jit_stale")] | length' <<<"$json"
	assert_output 0
	assert_all_named "$json"
	# the text report's object column
	run -0 grep -E '^ +[0-9.]+ +[0-9]+ +[0-9.]+ jit_hot +perf-[0-9]+\.map$' r.txt
	# the exports' own readers see the same names (the map is gone)
	rm -f "${MAPS[@]}"
	hot=$(jq '[.rows[] | select(.procedure == "jit_hot") | .weight[]] | add' <<<"$json")
	run -0 "$UPROFILE" -i umon.out --format callgrind -report-file out.cg
	run -0 callgrind_annotate out.cg
	hot=$(sed -E ':a; s/^([0-9]+)([0-9]{3})/\1,\2/; ta' <<<"$hot")
	assert_line --regexp "^ *$hot \([0-9.]+%\)  \?\?\?:jit_hot \[/tmp/perf-[0-9]+\.map\]\$"
	if command -v go >/dev/null; then
		export HOME=$BATS_TEST_TMPDIR/home GOCACHE=$BATS_TEST_TMPDIR/gocache
		export GOPATH=$BATS_TEST_TMPDIR/gopath GOPROXY=off GOFLAGS=
		mkdir -p "$HOME"
		run -0 "$UPROFILE" -i umon.out --format pprof -report-file out.pb.gz
		run -0 --separate-stderr go tool pprof -raw out.pb.gz
		assert_line --regexp "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ jit_hot :0 "
		assert_line --regexp "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 /tmp/perf-[0-9]+\.map "
	fi
}

@test "jitspin: a malformed map line is skipped and said, in one line" {
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -o u.out \
		"$TPROG/jitspin" 200
	[[ $stderr =~ JIT\ map\ (/tmp/perf-[0-9]+\.map):\ 1\ line\ is\ not ]] ||
		fail "stderr: $stderr"
	MAPS+=("${BASH_REMATCH[1]}")
}

@test "jitspin: the names stay in the profile when the map is gone" {
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/jitspin" 500
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	before=$(jq -c '[.rows[] | {procedure, object, samples}]' <<<"$output")
	note_maps "$output"
	rm -f "${MAPS[@]}"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -c '[.rows[] | {procedure, object, samples}]' <<<"$output")" "$before"
	[[ $before == *'"procedure":"jit_hot"'* ]] || fail "rows: $before"
	# a copy of the profile elsewhere reports the same (nothing is read
	# from /tmp at report time)
	cp umon.out copy.out
	run -0 --separate-stderr "$UPROFILE" -i copy.out --format json
	assert_equal "$(jq -c '[.rows[] | {procedure, object, samples}]' <<<"$output")" "$before"
}

@test "jitspin fork: each process's code is named by its own map, in the same profile" {
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/jitspin" 1200 fork
	run -0 --separate-stderr "$UPROFILE" -i umon.out -by pid --format json
	json=$output
	note_maps "$json"
	# parent and child mapped their code at the same address: still
	# each named as its own map says, each in its own pid's rows
	parent=$(jq '[.rows[] | select(.procedure == "jit_hot") | .pid] | unique' <<<"$json")
	child=$(jq '[.rows[] | select(.procedure == "jit_child_hot") | .pid] | unique' <<<"$json")
	[[ $(jq length <<<"$parent") == 1 && $(jq length <<<"$child") == 1 ]] ||
		fail "jit_hot in $parent, jit_child_hot in $child"
	[[ $parent != "$child" ]] || fail "both in $parent"
	run -0 jq -r '[.rows[] | select(.procedure | test("^jit_")) | "\(.pid) \(.object)"] | unique[]' <<<"$json"
	for line in "${lines[@]}"; do
		[[ $line =~ ^([0-9]+)\ /tmp/perf-([0-9]+)\.map$ &&
		   ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] ||
			fail "a row of process and map: $line"
	done
	assert_split "$json" jit_child_hot jit_child_warm 75 10
	# -pids: each file has its own process's JIT object
	run -0 "$UPROFILE" -quiet -pids -e cpu-clock "$TPROG/jitspin" 300 fork
	for f in umon.[0-9]*.out; do
		pid=${f#umon.}
		pid=${pid%.out}
		run -0 --separate-stderr "$UPROFILE" -i "$f" --format json
		note_maps "$output"
		run -0 jq -r '[.rows[] | select(.procedure | test("^jit_")) | .object] | unique[]' <<<"$output"
		assert_output "/tmp/perf-$pid.map"
	done
}

# start_waiting: jitspin in wait mode under uprofile, in the background;
# sets PID (jitspin's) and ADDR (jit_hot's address, hex).
start_waiting() {
	"$UPROFILE" -e cpu-clock -report-file r.txt --format json \
		"$TPROG/jitspin" "${1:-300}" wait >spin.out 2>err.txt &
	UP=$!
	wait_nonempty spin.out
	read -r PID ADDR <spin.out
	MAPS+=("/tmp/perf-$PID.map")
	# jitspin writes no map in this mode: one there is an earlier
	# process's that had this pid (the tests below plant their own)
	rm -f "/tmp/perf-$PID.map"
}

finish_waiting() {
	touch go
	wait "$UP"
}

@test "a map planted by the test (ours): its names are used" {
	start_waiting 1000
	printf '%s 6 planted_hot\n%x 6 planted_warm\n' "$ADDR" \
		"$((0x$ADDR + 0x100))" >"/tmp/perf-$PID.map"
	finish_waiting
	assert_split "$(cat r.txt)" planted_hot planted_warm 75 10
}

@test "a map that is a symbolic link is not followed: the code stays [anon], said in one line" {
	start_waiting
	printf '%s 6 linked_hot\n' "$ADDR" >target.map
	ln -s "$PWD/target.map" "/tmp/perf-$PID.map"
	finish_waiting
	run -0 jq '[.rows[] | select(.procedure == "linked_hot")] | length' r.txt
	assert_output 0
	run -0 jq '[.rows[] | select(.procedure == "[anon]")] | length' r.txt
	assert_output 1
	run -0 cat err.txt
	assert_output --partial "JIT map /tmp/perf-$PID.map is, or is reached through, a symbolic link: not followed"
}

@test "a map of another user (not root, us or the process's owner) is ignored, said in one line" {
	skip_unless_root
	start_waiting
	printf '%s 6 strangers_hot\n' "$ADDR" >"/tmp/perf-$PID.map"
	chown 65534:65534 "/tmp/perf-$PID.map"
	finish_waiting
	run -0 jq '[.rows[] | select(.procedure == "strangers_hot")] | length' r.txt
	assert_output 0
	run -0 cat err.txt
	assert_output --partial "JIT map /tmp/perf-$PID.map belongs to uid 65534"
}

@test "a FIFO at the map's name is not opened for long, said in one line" {
	start_waiting
	mkfifo "/tmp/perf-$PID.map"
	finish_waiting
	run -0 cat err.txt
	assert_output --partial "JIT map /tmp/perf-$PID.map is not a regular file"
}

@test "jitspin dump: JIT code named by its jitdump file (loads, moves, the last record wins, nothing after the close)" {
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -report-file r.txt \
		"$TPROG/jitspin" 2000 dump
	# a move of an index never loaded: one line
	[[ $stderr =~ jitdump\ ($PWD/jit-([0-9]+)\.dump):\ 1\ code\ record\ could\ not\ be\ used ]] ||
		fail "stderr: $stderr"
	dump=${BASH_REMATCH[1]}
	[[ ! -e /tmp/perf-${BASH_REMATCH[2]}.map ]] || fail "jitspin dump wrote a perf map"
	rm -f "$dump"
	# the names stay in the profile without the file
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	json=$output
	run -0 jq -r '[.rows[] | select(.procedure == "jit_hot" or .procedure == "jit_warm") | .object] | unique[]' <<<"$json"
	assert_output "$dump"
	# jit_hot was loaded elsewhere and moved over jit_stale's bytes
	assert_split "$json" jit_hot jit_warm 75 8
	run -0 jq '[.rows[] | select(.procedure | test("jit_stale|jit_after_close"))] | length' <<<"$json"
	assert_output 0
	assert_all_named "$json"
	run -0 grep -E '^ +[0-9.]+ +[0-9]+ +[0-9.]+ jit_warm +jit-[0-9]+\.dump$' r.txt
}

@test "a jitdump whose directory became a symbolic link is not read, said in one line" {
	mkdir d
	(cd d && JITSPIN_WAIT=1 exec "$UPROFILE" -e cpu-clock -o ../l.out \
		"$TPROG/jitspin" 300 dump 2>../err.txt) &
	local upid=$! i
	for ((i = 0; i < 3000; i++)); do
		compgen -G 'd/jit-*.dump' >/dev/null && break
		sleep 0.01
	done
	compgen -G 'd/jit-*.dump' >/dev/null || fail "no jitdump written"
	# the recorded path's directory is now a link to where it went
	mv d d2
	ln -s d2 d
	touch d2/go
	wait "$upid" || fail "uprofile: status $?: $(cat err.txt)"
	run cat err.txt
	assert_line --regexp "^uprofile: jitdump $PWD/d/jit-[0-9]+\.dump is, or is reached through, a symbolic link: not followed, its code stays unnamed$"
	run -0 --separate-stderr "$UPROFILE" -i l.out --format json
	run -0 jq '[.rows[] | select(.procedure | test("^jit_"))] | length' <<<"$output"
	assert_output 0
}

@test "jitspin dump in a pid namespace of its own: its jit-1.dump names its code" {
	skip_unless_root
	unshare -pf --mount-proc true 2>/dev/null ||
		skip "unshare -p does not work here"
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -o ns.out \
		unshare -pf --mount-proc "$TPROG/jitspin" 1000 dump
	[[ -f jit-1.dump ]] || fail "jitspin wrote no jit-1.dump: $(ls)"
	run -0 --separate-stderr "$UPROFILE" -i ns.out --format json
	run -0 jq -r '[.rows[] | select(.procedure == "jit_hot" or .procedure == "jit_warm") | .object] | unique[]' <<<"$output"
	assert_output "$PWD/jit-1.dump"
}

@test "node --perf-prof (a jitdump, no perf map): >= 95% of the samples named" {
	command -v node >/dev/null || fail "node is missing (./setup.sh deps installs nodejs)"
	run -0 "$UPROFILE" -quiet -e cpu-clock node --perf-prof \
		"$ROOT/tests/programs/jitwork.js" 1500
	ls jit-*.dump >/dev/null || fail "node wrote no jitdump here"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	json=$output
	note_maps "$json"
	((${#MAPS[@]} == 0)) || fail "node --perf-prof wrote perf maps: ${MAPS[*]}"
	named=$(named_percent "$json")
	awk -v n="$named" 'BEGIN { exit !(n >= 95) }' ||
		fail "named: $named% (rows: $(jq -c '[.rows[:8][] | [.procedure, .object, .percent]]' <<<"$json"))"
	a=$(jq '[.rows[] | select(.procedure | test("^JS:.hotA ")) | select(.object | test("/jit-[0-9]+\\.dump$")) | .samples[]] | add // 0' <<<"$json")
	b=$(jq '[.rows[] | select(.procedure | test("^JS:.hotB ")) | .samples[]] | add // 0' <<<"$json")
	((a > b && b > 0)) || fail "hotA $a, hotB $b"
}

@test "anonymous code without a map is one [anon] row per process, with a hint" {
	start_waiting
	finish_waiting
	run -0 jq -c '[.rows[] | select(.object == "//anon") | .procedure]' r.txt
	assert_output '["[anon]"]'
	run -0 "$UPROFILE" -i umon.out
	assert_line --regexp '^  note: (9[0-9]|100)\.[0-9]% is anonymous code without names \(\[anon\] rows\), likely JIT code: node --perf-basic-prof'
}

@test "node --perf-basic-prof: >= 95% of the samples named, the hot functions by their JavaScript names" {
	command -v node >/dev/null || fail "node is missing (./setup.sh deps installs nodejs)"
	run -0 "$UPROFILE" -quiet -e cpu-clock node --perf-basic-prof \
		"$ROOT/tests/programs/jitwork.js" 2500
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	json=$output
	note_maps "$json"
	named=$(named_percent "$json")
	awk -v n="$named" 'BEGIN { exit !(n >= 95) }' ||
		fail "named: $named% (rows: $(jq -c '[.rows[:8][] | [.procedure, .percent]]' <<<"$json"))"
	a=$(jq '[.rows[] | select(.procedure | test("^JS:.hotA ")) | .samples[]] | add // 0' <<<"$json")
	b=$(jq '[.rows[] | select(.procedure | test("^JS:.hotB ")) | .samples[]] | add // 0' <<<"$json")
	total=$(jq '.statistics[0].samples' <<<"$json")
	# hotA runs three times as long as hotB: a clear majority of the two
	((a + b > total / 2)) || fail "hotA $a, hotB $b of $total samples"
	# (3:1 by wall time; the JIT's tiers and a busy machine bend it, not
	# past 1:1)
	((a > b)) || fail "hotA $a, hotB $b"
	# without the flag the same code is [anon], and the report says how
	run -0 "$UPROFILE" -quiet -e cpu-clock node \
		"$ROOT/tests/programs/jitwork.js" 600
	run -0 "$UPROFILE" -i umon.out
	assert_output --partial "likely JIT code: node --perf-basic-prof"
}

@test "python3.12+ -X perf: Python functions in the call stacks (skipped without such a python)" {
	local py
	for py in python3.14 python3.13 python3.12; do
		if command -v "$py" >/dev/null && "$py" -X perf -c '' 2>/dev/null; then
			break
		fi
		py=
	done
	[[ -n $py ]] || skip "no python3.12 or later with -X perf on PATH (Debian 12 has 3.11)"
	cat >work.py <<'EOF'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(sum(fib(22) for _ in range(40)))
EOF
	run -0 "$UPROFILE" -quiet -e cpu-clock --call-graph=dwarf "$py" -X perf work.py
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format folded
	[[ $output == *"py::fib:"*"work.py"* ]] || fail "no py::fib frame in: ${output:0:600}"
	for m in /tmp/perf-*.map; do
		[[ -O $m ]] && grep -q 'py::fib' "$m" && MAPS+=("$m")
	done
	true
}

@test "node --perf-basic-prof -g: three runs lose no sample" {
	# 64 KiB stack copies fill a CPU's 4 MiB buffer in about 63
	# samples; the drain must never stall that long (node's unwind
	# tables were once copied with its whole 50 MB segment at its first
	# sample).
	command -v node >/dev/null || fail "node is missing (./setup.sh deps installs nodejs)"
	local round samples lost
	for round in 1 2 3; do
		run -0 --separate-stderr "$UPROFILE" -quiet -g -o "u$round.out" \
			node --perf-basic-prof "$ROOT/tests/programs/jitwork.js" 2000
		run -0 --separate-stderr "$UPROFILE" -i "u$round.out" --format json
		note_maps "$output"
		samples=$(jq '.statistics[0].samples' <<<"$output")
		lost=$(jq '.statistics[0].lost' <<<"$output")
		((samples > 100)) || fail "run $round: $samples samples"
		((lost == 0)) || fail "run $round lost $lost samples (kept $samples)"
	done
}
