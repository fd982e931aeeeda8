#!/usr/bin/env bats
# The unwinder (common/unwind/) on stacks of known shape, without sampling:
# unwcheck (tests/tools/unwcheck.c) copies its own registers and stack the
# way a perf sample carries them and walks the copy, one function per line
# and how the walk ended ("= end": the CFI says there is no caller).

load helpers

UNWCHECK=$ROOT/$BUILD/tests/unwcheck

setup() {
	common_setup
	[[ -x $UNWCHECK ]] || fail "$UNWCHECK not built (make $BUILD/tests/unwcheck)"
}

# The frames of $output, one per line, without the result line.
frames() {
	printf '%s\n' "$output" | grep -v '^= '
}

@test "unwind: a plain call chain is walked to _start, every caller in order" {
	run -0 "$UNWCHECK" dwarf plain
	[[ "$(frames | head -5 | tr '\n' ' ')" == "snapshot c b a main " ]] ||
		fail "frames: $(frames | tr '\n' ' ')"
	assert_line "__libc_start_main"
	assert_line "_start"
	assert_line "= end"
}

@test "unwind: through a signal frame, back to the interrupted code" {
	run -0 "$UNWCHECK" dwarf signal
	# handler and __restore_rt have no exported names; the interrupted
	# raise() and its callers must follow.
	[[ "$(frames | head -1)" == snapshot ]]
	frames | grep -qx -e gsignal -e raise || fail "no raise: $output"
	[[ "$(frames | grep -A2 -x -e gsignal -e raise | tail -2 | tr '\n' ' ')" == "d main " ]] ||
		fail "frames: $(frames | tr '\n' ' ')"
	assert_line "= end"
}

@test "unwind: a callback is walked through libc's qsort to its caller" {
	run -0 "$UNWCHECK" dwarf qsort
	[[ "$(frames | head -2 | tr '\n' ' ')" == "snapshot compare " ]]
	# libc's qsort then main (a sanitizer build has its own, unnamed).
	if [[ $(ldd "$UNWCHECK") != *libasan* ]] ||
		frames | grep -qx -e qsort -e qsort_r; then
		[[ "$(frames | grep -A1 -x -e qsort -e qsort_r | tail -1)" == main ]] ||
			fail "frames: $(frames | tr '\n' ' ')"
	fi
	frames | sed -n '3,$p' | grep -qx main || fail "no main: $output"
	assert_line "_start"
	assert_line "= end"
}

@test "unwind: code without CFI ends a dwarf walk with the reason; auto follows its frame pointer" {
	run -0 "$UNWCHECK" dwarf nocfi
	[[ "$(frames | tr '\n' ' ')" == "snapshot c nocfi " ]] ||
		fail "frames: $(frames | tr '\n' ' ')"
	assert_line "= truncated: no CFI"
	run -0 "$UNWCHECK" auto nocfi
	[[ "$(frames | head -4 | tr '\n' ' ')" == "snapshot c nocfi main " ]] ||
		fail "frames: $(frames | tr '\n' ' ')"
	assert_line "= end"
}

@test "unwind: a stack copy too small ends the walk as truncated, never a guessed caller" {
	run -0 "$UNWCHECK" dwarf plain 16
	assert_line "= truncated: stack copy"
	# What was walked is right as far as it goes.
	[[ "$(frames | head -1)" == snapshot ]]
	run -0 "$UNWCHECK" dwarf plain 0
	assert_line "= truncated: stack copy"
}

# Link-time addresses to check in object $1: every $2-th byte of each
# FDE's range, as readelf lists them (it exits 1 on libc: no
# .debug_info; the count of addresses is checked by the caller).
fde_addresses() {
	{ readelf -wF "$1" 2>/dev/null || true; } |
		sed -n 's/.*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\)$/\1 \2/p' |
		python3 -c '
import sys
step = int(sys.argv[1])
for l in sys.stdin:
    a, b = (int(x, 16) for x in l.split())
    for v in range(a, b, step):
        print("%x" % v)' "$2"
}

@test "unwind: .eh_frame read in place gives libdwarf's rules at every address checked" {
	local obj libc
	libc=$(ldd "$UNWCHECK" | awk '$1 ~ /^libc\.so/ { print $3 }')
	[[ -f $libc ]] || fail "no libc found for $UNWCHECK"
	for obj in "$libc" "$UNWCHECK" "$TPROG/callers-nofp" /usr/bin/python3; do
		[[ -f $obj ]] || continue
		fde_addresses "$obj" 3 >"$BATS_TEST_TMPDIR/addrs"
		run "$ROOT/$BUILD/tests/cficheck" "$obj" <"$BATS_TEST_TMPDIR/addrs"
		[[ $status -eq 0 ]] || fail "$obj: $(tail -n 20 <<<"$output")"
		# Every address was in an FDE, and read in place.
		[[ ${lines[-1]} =~ ^([0-9]+)\ addresses,\ ([0-9]+)\ with\ CFI,\ 0\ differ,\ \.eh_frame$ ]] ||
			fail "$obj: ${lines[-1]}"
		((BASH_REMATCH[1] > 100 && BASH_REMATCH[1] == BASH_REMATCH[2])) ||
			fail "$obj: ${lines[-1]}"
	done
}
