#!/usr/bin/env bats
# Reporting a profile where its files are elsewhere (another machine's
# copy): --symfs DIR finds the objects under DIR, matched by build-id;
# --debug-dir DIR finds split debug files like /usr/lib/debug.

load helpers

# profile_prog: copy spin2 (built -g) to ./prog and profile it into
# ./umon.out.  The copy lives in this test's directory, so moving it
# away does not touch other tests.
profile_prog() {
	skip_unless_perf_works
	cp "$TPROG/spin2" ./prog
	run -0 "$UPROFILE" -quiet -e cpu-clock ./prog 300
}

# The procedures of prog's rows in a JSON report (stdin), one a line,
# sorted and unique.
prog_procs() {
	jq -r --arg o "$PWD/prog" '[.rows[] | select(.object == $o) |
		.procedure] | unique[]'
}

@test "--symfs DIR: the object moved under DIR is found there" {
	profile_prog
	mkdir -p "fs$PWD"
	mv prog "fs$PWD/prog"
	# Without it, the object is gone: addresses only.
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	run -0 prog_procs <<<"$output"
	refute_line hot_a
	run -0 --separate-stderr "$UPROFILE" -i umon.out --symfs fs --format json
	json_check <<<"$output"
	assert_equal "$(jq -c .stale_objects <<<"$output")" "[]"
	run -0 prog_procs <<<"$output"
	assert_line hot_a
	assert_line hot_b
	# Source lines come from the copy's DWARF.
	run -0 --separate-stderr "$UPROFILE" -i umon.out --symfs "$PWD/fs/" \
		-lines --format json
	run -0 jq -r '.rows | max_by(.percent["cpu-clock"]) |
		"\(.procedure) \(.file | split("/") | last):\(.line)"' <<<"$output"
	assert_output "hot_a spin2.c:45"
}

@test "--symfs: a file with another build-id is named as a mismatch and not used" {
	profile_prog
	mkdir -p "fs$PWD"
	mv prog "fs$PWD/prog"
	cp "$TPROG/inline" "fs$PWD/prog"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --symfs fs
	assert_line "  note: 'fs$PWD/prog' is not the prog of the profile (its build-id differs): not used; its rows are addresses"
	refute_line --partial ' hot_a '
	run -0 --separate-stderr "$UPROFILE" -i umon.out --symfs fs --format json
	json_check <<<"$output"
	assert_equal "$(jq -c .stale_objects <<<"$output")" "[\"$PWD/prog\"]"
	assert_equal "$(jq -c .stale_files <<<"$output")" "[\"fs$PWD/prog\"]"
	run -0 prog_procs <<<"$output"
	refute_line hot_a
}

@test "--symfs: a mismatch under DIR does not hide the right file at its own path" {
	profile_prog
	mkdir -p "fs$PWD"
	cp "$TPROG/inline" "fs$PWD/prog"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --symfs fs --format json
	assert_equal "$(jq -c .stale_objects <<<"$output")" "[]"
	run -0 prog_procs <<<"$output"
	assert_line hot_a
}

# split_debug: ./prog without DWARF (symbols kept), its DWARF in
# ./prog.debug; the build-id of both in $BUILD_ID.
split_debug() {
	objcopy --only-keep-debug prog prog.debug
	objcopy --strip-debug prog
	BUILD_ID=$(readelf -n prog | sed -n 's/.*Build ID: //p')
	[[ $BUILD_ID =~ ^[0-9a-f]{8,}$ ]] || fail "no build-id in prog"
}

# The source lines of prog's rows (stdin: a -lines JSON report), "null"
# for rows without one, sorted and unique.
prog_lines() {
	jq -r --arg o "$PWD/prog" '[.rows[] | select(.object == $o) |
		"\(.file // "null" | split("/") | last):\(.line)"] | unique[]'
}

@test "--debug-dir DIR: a split debug file under DIR/.build-id gives the lines" {
	profile_prog
	split_debug
	mkdir -p "dd/.build-id/${BUILD_ID:0:2}"
	mv prog.debug "dd/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug"
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --format json
	run -0 prog_lines <<<"$output"
	refute_line spin2.c:45
	# A --debug-dir that is not a directory is a usage error.
	run -125 "$UPROFILE" -i umon.out --debug-dir nowhere-else
	assert_output --partial "bad --debug-dir 'nowhere-else': No such file or directory"
	mkdir other
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines \
		--debug-dir other --debug-dir dd --format json
	json_check <<<"$output"
	run -0 prog_lines <<<"$output"
	assert_line spin2.c:45
	assert_line spin2.c:57
}

@test "--debug-dir DIR: found by path and .gnu_debuglink, checked by its CRC" {
	profile_prog
	split_debug
	# objcopy records the debug file's CRC next to its name
	objcopy --add-gnu-debuglink=prog.debug prog
	mkdir -p "dd$PWD"
	mv prog.debug "dd$PWD/prog.debug"
	# The profile's build-id is the same: only the sections changed.
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --debug-dir dd \
		--format json
	run -0 prog_lines <<<"$output"
	assert_line spin2.c:45
	# Another file by that name (CRC differs) is not used.
	cp "$TPROG/inline" "dd$PWD/prog.debug"
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --debug-dir dd \
		--format json
	run -0 prog_lines <<<"$output"
	refute_line spin2.c:45
}

@test "--symfs and --debug-dir together: a stripped copy and its debug file" {
	profile_prog
	split_debug
	mkdir -p "fs$PWD" "dd/.build-id/${BUILD_ID:0:2}"
	mv prog "fs$PWD/prog"
	mv prog.debug "dd/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug"
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --symfs fs \
		--debug-dir dd --format json
	run -0 prog_lines <<<"$output"
	assert_line spin2.c:45
}

@test "--symfs: not a directory is a usage error" {
	run -125 "$UPROFILE" -i umon.out --symfs /nonexistent-symfs
	assert_output --partial "bad --symfs '/nonexistent-symfs': No such file or directory"
	touch plain
	run -125 "$UPROFILE" -i umon.out --symfs plain
	assert_output --partial "bad --symfs 'plain': not a directory"
}
