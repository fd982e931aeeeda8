#!/usr/bin/env bats
# debuginfod against a hostile server or cache: reports run as root, so
# what a server sends is used only with the build-id asked for, a fetch
# is cut at DEBUGINFOD_MAXSIZE however the body comes, and a cache others
# can write is not used at all (symbolize/debuginfod.c).  The server is
# tests/tools/fakedebuginfod.py on a free port of 127.0.0.1; each attack
# plants a debug file of the stripped test program whose lines name
# another source file, so a report that believed it would show them.

load helpers

setup() {
	common_setup
	FAKE_PIDS=()
}

teardown() {
	local p
	# kill_started leaves other programs alone: the servers are ours.
	for p in "${FAKE_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	kill_started "${BG_PIDS[@]}"
}

# start_fake NAME ARG...: fakedebuginfod.py ARG... listening on a free
# port of 127.0.0.1 ($FAKE_PORT), its requests logged in NAME.log; returns
# once it accepts connections (it prints its port then).
start_fake() {
	local name=$1
	shift
	python3 "$ROOT/tests/tools/fakedebuginfod.py" "$@" >"$name.port" \
		2>"$name.log" 3>&- &
	FAKE_PIDS+=($!)
	wait_nonempty "$name.port" 60
	FAKE_PORT=$(cat "$name.port")
}

# The profile of a stripped spin2 (no DWARF here; symbols and build-id
# kept) as ./umon.out, the program at ./prog, its debug file at
# ./prog.debug and its build-id in hex as $ID.
prepare() {
	skip_unless_perf_works
	command -v objcopy >/dev/null && command -v readelf >/dev/null ||
		skip "objcopy and readelf (binutils) are missing"
	cp "$TPROG/spin2" prog
	objcopy --only-keep-debug prog prog.debug
	objcopy --strip-debug prog
	ID=$(readelf -n prog | awk '$1 == "Build" && $2 == "ID:" { print $3 }')
	[[ $ID =~ ^[0-9a-f]{8,}$ ]] || fail "no build-id in spin2: '$ID'"
	run -0 "$UPROFILE" -quiet -e cpu-clock ./prog 300
	unset DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXSIZE XDG_CACHE_HOME
	export DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache
}

# forge OUT NAME [ID]: a copy of prog.debug as OUT whose line tables name
# NAME (7 characters) instead of spin2.c, with build-id ID (hex, as long
# as $ID; default $ID; "none": no build-id note at all).
forge() {
	local out=$1 name=$2 id=${3:-$ID}
	python3 - prog.debug "$out" "$name" "$ID" "$id" <<'PY'
import sys
src, out, name, old, new = sys.argv[1:]
data = open(src, "rb").read()
assert len(name) == len("spin2.c") and data.count(b"spin2.c") > 0
data = data.replace(b"spin2.c", name.encode())
if new != "none":
    assert data.count(bytes.fromhex(old)) == 1
    data = data.replace(bytes.fromhex(old), bytes.fromhex(new))
open(out, "wb").write(data)
PY
	if [[ $id == none ]]; then
		objcopy --remove-section .note.gnu.build-id "$out"
		[[ -z $(readelf -n "$out" | grep 'Build ID') ]] ||
			fail "$out still has a build-id"
	fi
}

# The source files of prog's rows in a -lines JSON report (stdin), one a
# line, sorted ("null" without a line).
prog_files() {
	jq -r --arg o "$PWD/prog" '[.rows[] | select(.object == $o) |
		(.file // "null" | split("/") | last)] | unique[]'
}

# The line a report prints when a fetch for prog is refused for REASON.
refusal() {
	echo "uprofile: debuginfod: cannot fetch for '$PWD/prog' ($1): no more fetches for this report"
}

# No file of build-id $ID with contents is left in the cache CACHE (the
# library marks a miss with an empty one), nor any partial download.
assert_cache_clean() {
	local left
	left=$(find "$1" -path "*/$ID/*" \( -size +0 -o -name '*.??????' \) 2>&1)
	[[ -z $left ]] || fail "left in the cache: $left"
}

@test "debuginfod: a file with another build-id from the server is not used, and not kept in the cache" {
	prepare
	# With the right build-id the forged file would be believed: the
	# lines are what the test looks for.
	forge evil.debug 'evil!.c' "$(tr 0-9a-f fedcba9876543210 <<<"$ID")"
	[[ $(readelf -n evil.debug) != *"$ID"* ]] || fail "evil.debug has $ID"
	start_fake evil file evil.debug
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	json_check <<<"$output"
	assert_equal "$(prog_files <<<"$output")" null
	refute_output --partial 'evil!.c'
	assert_equal "$stderr" "$(refusal "debuginfod sent a file with another build-id for $ID")"
	grep -q "GET /buildid/$ID/debuginfo" evil.log || fail "not asked: $(cat evil.log)"
	assert_cache_clean cache
	# Nothing was kept: the next report asks again and refuses again.
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	refute_output --partial 'evil!.c'
	assert_equal "$stderr" "$(refusal "debuginfod sent a file with another build-id for $ID")"
	assert_equal "$(grep -c "GET /buildid/$ID/debuginfo" evil.log)" 2
	# A file without any build-id is refused the same way.
	forge bare.debug 'bare!.c' none
	start_fake bare file bare.debug
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		DEBUGINFOD_CACHE_PATH="$BATS_TEST_TMPDIR/cache2" \
		"$UPROFILE" -i umon.out -lines --format json
	refute_output --partial 'bare!.c'
	assert_equal "$stderr" "$(refusal "debuginfod sent a file with no build-id for $ID")"
	assert_cache_clean cache2
}

@test "debuginfod: an endless body, or one over DEBUGINFOD_MAXSIZE, is cut at the cap and nothing of it is kept" {
	prepare
	local t0 ms cut
	cut=$(refusal "the file is over the size cap of 1048576 bytes; DEBUGINFOD_MAXSIZE sets the cap")
	start_fake endless endless
	# With DEBUGINFOD_TIMEOUT set the library alone would read on (it
	# only weighs a Content-Length, and a chunked body has none); the
	# server gives 2 MB a second.
	t0=$(date +%s%N)
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		DEBUGINFOD_MAXSIZE=1048576 DEBUGINFOD_TIMEOUT=600 \
		timeout 90 "$UPROFILE" -i umon.out -lines
	ms=$(ms_since "$t0")
	echo "# a report with an endless body took $ms ms" >&3
	((ms < 60000)) || fail "the report took $ms ms"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ \?\? +hot_a +prog$'
	assert_equal "$stderr" "$cut"
	assert_cache_clean cache
	# Without DEBUGINFOD_TIMEOUT: cut for its size too, not taken for a
	# stalled server (a chunked body has no size to measure progress by).
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		DEBUGINFOD_MAXSIZE=1048576 DEBUGINFOD_CACHE_PATH="$BATS_TEST_TMPDIR/cache2" \
		timeout 90 "$UPROFILE" -i umon.out -lines
	assert_equal "$stderr" "$cut"
	assert_cache_clean cache2
	# A whole file over the cap, with its Content-Length.
	start_fake big file prog.debug
	(($(stat -c %s prog.debug) > 1000)) || fail "prog.debug is too small"
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		DEBUGINFOD_MAXSIZE=1000 DEBUGINFOD_CACHE_PATH="$BATS_TEST_TMPDIR/cache3" \
		timeout 90 "$UPROFILE" -i umon.out -lines
	assert_equal "$stderr" "$(refusal "the file is over the size cap of 1000 bytes; DEBUGINFOD_MAXSIZE sets the cap")"
	refute_output --partial 'spin2.c'
	assert_cache_clean cache3
}

# plant DIR: the forged debug file (lines in plant.c, the right build-id)
# where the library looks for $ID's in the cache DIR, as it leaves its
# own downloads.
plant() {
	mkdir -p "$1/$ID"
	forge "$1/$ID/debuginfo" plant.c
	chmod 0400 "$1/$ID/debuginfo"
}

# refused_cache REASON [ENV...]: a report (under env ENV...) with a server
# that has the true debug file, and the cache of ENV or of
# $DEBUGINFOD_CACHE_PATH: no
# lines (not the planted ones, not the server's: it is not even asked)
# and the one line of REASON.
refused_cache() {
	local reason=$1
	shift
	run -0 --separate-stderr env "$@" \
		DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	json_check <<<"$output"
	refute_output --partial plant.c
	assert_equal "$(prog_files <<<"$output")" null
	assert_equal "$stderr" "$(refusal "$reason")"
	[[ ! -s true.log ]] || fail "the server was asked: $(cat true.log)"
}

@test "debuginfod: a cache others can write to, or a symlink, is not used: nothing is fetched" {
	prepare
	start_fake true file prog.debug
	# Writable by anyone.
	mkdir cache
	chmod 0777 cache
	plant cache
	refused_cache "cache $PWD/cache is writable by anyone"
	# Writable by its group.
	chmod 0770 cache
	refused_cache "cache $PWD/cache is writable by its group"
	# A symlink to a good cache: the link could be turned elsewhere.
	chmod 0700 cache
	ln -s cache link
	refused_cache "cache $PWD/link is a symlink" DEBUGINFOD_CACHE_PATH="$PWD/link"
	# The same cache, named as itself, is ours: the planted file has the
	# right build-id and is used (a cache is trusted only as safe as this).
	run -0 --separate-stderr env DEBUGINFOD_URLS="http://127.0.0.1:$FAKE_PORT" \
		"$UPROFILE" -i umon.out -lines --format json
	assert_output --partial plant.c
}

@test "debuginfod: root does not use a cache of another user's, as sudo -E leaves HOME" {
	prepare
	skip_unless_root
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	local nobody
	nobody=$(id -u nobody)
	start_fake true file prog.debug
	# Given by DEBUGINFOD_CACHE_PATH.
	mkdir cache
	plant cache
	chown -R nobody cache
	refused_cache "cache $PWD/cache is owned by uid $nobody, not 0"
	# The library's default under a user's HOME, planted there.
	mkdir -p home/.cache/debuginfod_client
	plant home/.cache/debuginfod_client
	chown -R nobody home
	refused_cache "cache $PWD/home/.cache/debuginfod_client is owned by uid $nobody, not 0" \
		-u DEBUGINFOD_CACHE_PATH HOME="$PWD/home"
	# Not made yet: the user could make it first, or swap it for
	# another once root has; nothing is made there.
	rm -rf home/.cache
	refused_cache "cache $PWD/home/.cache/debuginfod_client: $PWD/home is owned by uid $nobody, not 0" \
		-u DEBUGINFOD_CACHE_PATH HOME="$PWD/home"
	[[ ! -e home/.cache ]] || fail "home/.cache was made"
	# XDG_CACHE_HOME comes before HOME/.cache, as for the library.
	mkdir xdg
	chown nobody xdg
	refused_cache "cache $PWD/xdg/debuginfod_client: $PWD/xdg is owned by uid $nobody, not 0" \
		-u DEBUGINFOD_CACHE_PATH HOME="$PWD/home" XDG_CACHE_HOME="$PWD/xdg"
}
