#!/usr/bin/env bats
# What the report says of a stripped object agrees with where its debug
# file is looked for: an object whose debug file is found (by build-id
# under --debug-dir, by .gnu_debuglink next to it) is named from it and
# called nothing; one whose debug file is not found is said to be
# stripped, and one that kept its .dynsym (as Debian ships liblzma and
# libbz2) is said to have its exported symbols only, not none.  The
# library is the tests' own (libexports.so: a thin export, the work in
# a local procedure), stripped here, so no -dbgsym package matters.

load helpers

# stripped_lib: exports and libexports.so copied here (the program finds
# the copy by its $ORIGIN rpath), the library's debug file split off to
# ./libexports.debug and the library stripped to its .dynsym; the
# profile of a run in ./umon.out; the library's build-id in $BUILD_ID,
# its path in $LIB, local_work's entry (hex, no 0x) in $LOCAL.
stripped_lib() {
	skip_unless_perf_works
	cp "$TPROG/exports" "$TPROG/libexports.so" .
	LIB=$PWD/libexports.so
	LOCAL=$(nm "$LIB" | awk '$3 == "local_work" { sub(/^0+/, "", $1); print $1 }')
	[[ -n $LOCAL ]] || fail "no local_work in libexports.so's symbols"
	objcopy --only-keep-debug libexports.so libexports.debug
	strip libexports.so
	run -0 readelf -S -W libexports.so
	refute_output --partial .symtab
	assert_output --partial .dynsym
	BUILD_ID=$(readelf -n libexports.so | sed -n 's/.*Build ID: //p')
	[[ $BUILD_ID =~ ^[0-9a-f]{8,}$ ]] || fail "no build-id in libexports.so"
	run -0 "$UPROFILE" -quiet -e cpu-clock ./exports 1000
}

EXPORTED_NOTE='  note: libexports.so has only its exported symbols (.dynsym; no .symtab, no debug file found): its other procedures are named func@ADDRESS from its unwind table; install its debug symbols or build it with -g'

# listed KEY PATH: whether the JSON report on stdin lists PATH in its
# array KEY (other objects, such as this machine's libc without its
# debug file, may be listed too).
listed() {
	jq -e --arg k "$1" --arg p "$2" '.[$k] | index($p) != null' >/dev/null
}

# named_from_debug_file REPORT-OPTIONS...: the report with these options
# names local_work from the debug file, in its share, and notes nothing
# of the library.
named_from_debug_file() {
	local json
	run -0 --separate-stderr "$UPROFILE" -i umon.out "$@"
	refute_line --partial 'note: libexports.so'
	json=$("$UPROFILE" -i umon.out --format json "$@" 2>/dev/null)
	json_check <<<"$json"
	run ! listed objects_without_symbols "$LIB" <<<"$json"
	run ! listed objects_with_exported_symbols_only "$LIB" <<<"$json"
	assert_split "$json" local_work exports_run 80 10
}

@test "a library stripped to its .dynsym: exported symbols only, not 'no symbols'" {
	stripped_lib
	run -0 --separate-stderr "$UPROFILE" -i umon.out
	assert_line "$EXPORTED_NOTE"
	refute_line --partial 'libexports.so has no symbols'
	json=$("$UPROFILE" -i umon.out --format json 2>/dev/null)
	json_check <<<"$json"
	listed objects_with_exported_symbols_only "$LIB" <<<"$json"
	run ! listed objects_without_symbols "$LIB" <<<"$json"
	# Its export is named, its local work by the entry of its FDE.
	assert_split "$json" "func@0x$LOCAL" exports_run 80 10
}

@test "a stripped library's debug file under --debug-dir DIR/.build-id: named, no note" {
	stripped_lib
	mkdir -p "dd/.build-id/${BUILD_ID:0:2}"
	mv libexports.debug "dd/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug"
	named_from_debug_file --debug-dir dd
	# Without the option it is not found: the note is back.
	run -0 --separate-stderr "$UPROFILE" -i umon.out
	assert_line "$EXPORTED_NOTE"
}

@test "a stripped library's debug file by .gnu_debuglink: named, no note; a wrong CRC is not found" {
	stripped_lib
	# objcopy records the name and CRC; the build-id stays the profile's.
	objcopy --add-gnu-debuglink=libexports.debug libexports.so
	named_from_debug_file
	mkdir .debug
	mv libexports.debug .debug/
	named_from_debug_file
	# Another file by that name (its CRC differs) is not the debug file:
	# not used, and the library is said to be stripped again.
	cp "$TPROG/libhot.so" .debug/libexports.debug
	run -0 --separate-stderr "$UPROFILE" -i umon.out
	assert_line "$EXPORTED_NOTE"
	refute_line --partial ' local_work '
}

@test "a program without a symbol of code: 'no symbols (stripped)', found by build-id: none" {
	skip_unless_perf_works
	cp "$TPROG/spin2" prog
	objcopy --only-keep-debug prog prog.debug
	strip prog
	run -0 "$UPROFILE" -quiet -e cpu-clock ./prog 300
	run -0 --separate-stderr "$UPROFILE" -i umon.out
	assert_line "  note: prog has no symbols (stripped): its procedures are named func@ADDRESS from its unwind table, other code object+offset; install its debug symbols or build it with -g"
	json=$("$UPROFILE" -i umon.out --format json 2>/dev/null)
	listed objects_without_symbols "$PWD/prog" <<<"$json"
	run ! listed objects_with_exported_symbols_only "$PWD/prog" <<<"$json"
	BUILD_ID=$(readelf -n prog | sed -n 's/.*Build ID: //p')
	mkdir -p "dd/.build-id/${BUILD_ID:0:2}"
	mv prog.debug "dd/.build-id/${BUILD_ID:0:2}/${BUILD_ID:2}.debug"
	run -0 --separate-stderr "$UPROFILE" -i umon.out --debug-dir dd
	refute_line --partial 'note: prog'
	assert_output --partial ' hot_a '
}
