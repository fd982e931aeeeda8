#!/usr/bin/env bats
# A damaged object costs its own DWARF, never the run.  libdwarf 20210528
# reads every unit header of .debug_rnglists the first time .debug_info
# is used; one it cannot read (a wrong unit_length, version or address
# size) makes it free its context twice and abort the process, which
# replaced the profiled program's exit status by 134.  The symbolizer
# now checks the framing of the list sections first (symbolize/dwcheck.c)
# and names such an object's code from its ELF symbols only.

load helpers

SYMTOOL=$ROOT/$BUILD/tests/symtool

# The fixture: exitwith built with DWARF 5.  At -O2, gcc puts main in
# .text.startup and the other functions in .text, so the CU's
# DW_AT_ranges is a range list in .debug_rnglists.
setup() {
	common_setup
	[[ -x $SYMTOOL ]] || fail "$SYMTOOL not built (make $BUILD/tests/symtool)"
	gcc -O2 -g -gdwarf-5 -o good "$ROOT/tests/programs/exitwith.c" ||
		fail "cannot build the fixture"
	RNG=$(section_offset good .debug_rnglists)
	RNGSIZE=$(section_size good .debug_rnglists)
	SPIN=0x$(nm good | awk '$3 == "waiting_spin" { print $1 }')
	[[ $SPIN != 0x ]] || fail "no waiting_spin in the fixture"
}

# section_field FILE SECTION COLUMN: a column of objdump -h's row for
# SECTION (3: size, 6: file offset), in decimal.
section_field() {
	local v
	v=$(objdump -h "$1" | awk -v s="$2" -v c="$3" '$2 == s { print $c }')
	[[ $v ]] || fail "$1 has no $2 section"
	echo $((0x$v))
}
section_offset() { section_field "$1" "$2" 6; }
section_size() { section_field "$1" "$2" 3; }

# poke FILE OFFSET VALUE: overwrite the byte at OFFSET with VALUE (0-255).
poke() {
	printf "\\x$(printf %02x "$3")" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# A copy of the fixture whose first range-list unit has version 255: in
# DWARF 5 section 7.28 a unit starts with a 4-byte unit_length and then
# the 2-byte version (5), so the byte at +4 is the version's low byte.
damage() {
	cp good bad
	poke bad $((RNG + 4)) 255
	cmp -s good bad && fail "the fixture did not change"
	return 0
}

@test "the intact fixture names waiting_spin from DWARF" {
	run -0 "$SYMTOOL" --vaddr ./good "$SPIN"
	assert_output --regexp $'^waiting_spin\t.*exitwith\\.c:[0-9]+$'
}

@test "a damaged .debug_rnglists costs the object its DWARF, not the process" {
	damage
	run -0 "$SYMTOOL" --info --vaddr ./bad "$SPIN"
	assert_line -n 0 $'waiting_spin\t??:0'
	assert_line -n 1 --partial "ret=-4 (malformed DWARF)"
}

@test "no one-byte change of .debug_rnglists ends symtool by a signal" {
	local i b rc n=$RNGSIZE
	# Every byte of the section, each inverted in turn (the first 512
	# bytes if a compiler makes it larger): header fields, entry kinds,
	# operands and ULEB128 continuation bits.
	((n > 512)) && n=512
	for ((i = 0; i < n; i++)); do
		cp good cur
		b=$(($(od -An -tu1 -j $((RNG + i)) -N1 good)))
		poke cur $((RNG + i)) $((b ^ 255))
		rc=0
		timeout 60 "$SYMTOOL" --vaddr ./cur "$SPIN" >out 2>err || rc=$?
		((rc == 0)) || fail "byte $i of .debug_rnglists ($b -> \
$((b ^ 255))): status $rc: $(tail -n 3 err)"
		grep -q '^waiting_spin' out ||
			fail "byte $i: waiting_spin not named: $(cat out)"
	done
}

@test "uprofile keeps the exit status of a program with damaged DWARF" {
	damage
	run -3 --separate-stderr "$UPROFILE" ./bad -w 1 -t 3
	[[ $stderr != *"double free"* && $stderr != *Sanitizer* ]] ||
		fail "stderr: $stderr"
	# The summary of the run (on stderr) names the hot spot by symbol.
	grep -Eq '^ *[0-9.]+% +waiting_spin +bad$' <<<"$stderr" ||
		fail "waiting_spin not in the summary: $stderr"
	[[ -s umon.out ]] || fail "no profile written"

	# The procedures view needs no DWARF (symbol tables name the
	# procedures): nothing is lost, nothing to say.
	run -0 --separate-stderr "$UPROFILE" -i umon.out
	[[ $stderr != *Sanitizer* ]] || fail "stderr: $stderr"
	assert_output --partial "exit status 3"
	refute_output --partial "malformed"
	assert_line --regexp '^ *[0-9.]+ +[0-9]+ +[0-9.]+ waiting_spin +bad$'
	# The lines view does: the damaged object is named, and what was
	# lost said
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines
	[[ $stderr != *Sanitizer* ]] || fail "stderr: $stderr"
	assert_output --partial "note: bad has malformed debug information (DWARF), not used: its procedures are named from its symbol table, without source lines"
	refute_output --partial "could not be read"
	assert_line --regexp '^ *[0-9.]+ +[0-9]+ +[0-9.]+ \?\? +waiting_spin +bad$'
	run -0 "$UPROFILE" -i umon.out -lines --format json
	assert_equal "$(jq -c '[.objects_with_bad_dwarf[] | split("/") | last]' <<<"$output")" '["bad"]'
	assert_equal "$(jq .unresolved_objects <<<"$output")" 0
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -c '.objects_with_bad_dwarf' <<<"$output")" '[]'
}
