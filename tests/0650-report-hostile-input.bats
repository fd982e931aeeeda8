#!/usr/bin/env bats
# Reports over files a profile names, or DWARF names, that are not what
# they should be: a FIFO, a directory or a device in place of an object,
# its debug file or a source file is named and skipped, never read (a FIFO
# would block the report forever); names with control characters or bytes
# that are not UTF-8 give valid JSON and a text report that cannot act on
# a terminal.

load helpers

# A program with one hot procedure, hot(), whose source is hot.c here.
write_hot() {
	cat >hot.c <<'EOF'
volatile unsigned long sink;

__attribute__((noinline)) void hot(void)
{
	for (unsigned long i = 0; i < 200000000UL; i++)
		sink += i;
}

int main(void)
{
	hot();
	return 0;
}
EOF
}

# profile_hot PROGRAM: profile ./PROGRAM into umon.out.
profile_hot() {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock "./$1"
	[[ -s umon.out ]]
}

# report ARGS...: "uprofile -i umon.out ARGS" ends (a report stuck on a
# FIFO is killed after 30 s, failing with status 137) with status 0;
# stdout in $output, stderr in $stderr.
report() {
	run -0 --separate-stderr timeout -s KILL 30 "$UPROFILE" -i umon.out "$@"
}

# skip_note PATH KIND: the text report in $output names PATH once as a
# KIND that was not read.
skip_note() {
	local want="  note: '$1' is a $2, not a regular file: not read"
	[[ $(grep -cxF -- "$want" <<<"$output") == 1 ]] ||
		fail "no single line '$want' in: $output"
}

# object_note PATH WHY: the text report in $output names the object PATH
# once as unreadable, for reason WHY, and has no other note of it.
object_note() {
	local want="  note: cannot read '$1' ($2): its addresses are shown as object+offset"
	[[ $(grep -cxF -- "$want" <<<"$output") == 1 ]] ||
		fail "no single line '$want' in: $output"
	[[ $(grep -cF -- "'$1'" <<<"$output") == 1 ]] ||
		fail "'$1' named more than once: $output"
}

@test "an object replaced by a FIFO or a directory: named, skipped, the report goes on" {
	write_hot
	cc -O1 -o hot hot.c
	profile_hot hot
	rm hot
	mkfifo hot
	report
	object_note "$PWD/hot" "a fifo, not a regular file"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ hot\+0x[0-9a-f]+ +hot$'
	report -asm
	object_note "$PWD/hot" "a fifo, not a regular file"
	report -blocks
	object_note "$PWD/hot" "a fifo, not a regular file"
	report -format json
	run -0 jq -c .skipped_files <<<"$output"
	assert_output "[{\"path\":\"$PWD/hot\",\"kind\":\"fifo\"}]"
	rm hot
	mkdir hot
	report
	object_note "$PWD/hot" "a directory, not a regular file"
}

@test "an object gone or not ELF: one note naming it and why" {
	write_hot
	cc -O1 -o hot hot.c
	profile_hot hot
	mv hot hot.saved
	report
	object_note "$PWD/hot" "No such file or directory"
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ +[0-9.]+ hot\+0x[0-9a-f]+ +hot$'
	report -format json
	run -0 jq -c '[.unresolved_objects, .unreadable_objects]' <<<"$output"
	assert_output "[1,[{\"path\":\"$PWD/hot\",\"why\":\"No such file or directory\"}]]"
	echo 'not an object' >hot
	report
	object_note "$PWD/hot" "not a valid ELF object"
	report -blocks
	object_note "$PWD/hot" "not a valid ELF object"
}

@test "an object its reader may not open: the note says so" {
	nobody_dir
	write_hot
	cc -O1 -o hot hot.c
	profile_hot hot
	chmod 644 umon.out
	chmod 700 hot
	run -0 --separate-stderr as_nobody "$UPROFILE" -i umon.out
	object_note "$PWD/hot" "Permission denied"
}

@test "a debug file (.gnu_debuglink) replaced by a FIFO: named, skipped" {
	write_hot
	cc -O1 -g -o hot.full hot.c
	objcopy --only-keep-debug hot.full hot.debug
	strip -o hot hot.full
	objcopy --add-gnu-debuglink=hot.debug hot
	profile_hot hot
	report -lines
	assert_line --regexp ' hot\.c:[0-9]+ +hot +hot$'
	rm hot.debug
	mkfifo hot.debug
	report -lines
	skip_note "$PWD/hot.debug" fifo
	# Without its debug file, the stripped object's code is still shown.
	assert_line --regexp ' hot$'
}

@test "a source file replaced by a FIFO: -asm lists the code without it" {
	write_hot
	cc -O1 -g -o hot hot.c
	profile_hot hot
	report -asm
	assert_line --regexp '^ *hot\.c:[0-9]+:[[:space:]]+sink \+= i;$'
	rm hot.c
	mkfifo hot.c
	report -asm
	skip_note "$PWD/hot.c" fifo
	refute_line --partial 'sink += i;'
	assert_line --regexp '^hot \(hot\), '
	assert_line --regexp '^ +[0-9.]+ +[0-9]+ 0x[0-9a-f]+ +add '
}

# strict_json FILE: FILE is UTF-8 (strictly) and JSON; prints the
# procedure of each row, one a line, as Python's ascii() shows them.
strict_json() {
	python3 -c '
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
for row in doc["rows"]:
    print(ascii(row["procedure"]), ascii(row.get("file")))
' "$1"
}

@test "names with ESC, DEL and bytes that are not UTF-8: valid JSON, visible in text" {
	write_hot
	cc -O1 -o hot.plain hot.c
	# ESC [31m would turn a terminal red; 0xff and 0xc3 ( are not UTF-8.
	objcopy --redefine-sym hot=$'hot\e[31m\xff\xc3(\x7fend' hot.plain hot
	profile_hot hot
	report -format json
	printf '%s' "$output" >report.json
	json_check report.json
	run -0 strict_json report.json
	assert_line "'hot\\x1b[31m\\ufffd\\ufffd(\\x7fend' None"
	report
	[[ $output != *$'\e'* && $output != *$'\x7f'* ]] ||
		fail "raw control character in the text report"
	assert_line --regexp ' hot\\x1b\[31m\\xff\\xc3\(\\x7fend +hot$'
	# The summary after a run goes to a terminal too.
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock ./hot
	[[ $stderr != *$'\e'* ]] || fail "raw ESC in the summary: $stderr"
	[[ $stderr == *'hot\x1b[31m\xff\xc3(\x7fend'* ]] ||
		fail "the summary does not show the name: $stderr"
}

@test "a source file name with control characters: valid JSON, visible in -lines" {
	write_hot
	local src=$'we\eird\x9b\e]0;x\a.c'
	cp hot.c "$src"
	cc -O1 -g -o hot "$src"
	profile_hot hot
	report -lines -format json
	printf '%s' "$output" >report.json
	json_check report.json
	run -0 strict_json report.json
	assert_line --regexp "^'hot' '.*/we\\\\x1bird\\\\ufffd\\\\x1b\\]0;x\\\\x07\\.c'$"
	report -lines
	[[ $output != *[$'\e\a\x9b']* ]] ||
		fail "raw control character in the text report"
	assert_line --regexp ' we\\x1bird\\x9b\\x1b\]0;x\\x07\.c:[0-9]+ +hot +hot$'
}

@test "two statistics with one name: the second gets key NAME#2, the JSON stays valid" {
	command -v valgrind >/dev/null || skip "valgrind is missing"
	run -0 "$UPROFILE" -quiet --engine=sim icachemisses dcachemisses "$TPROG/spin2" 50
	# the same length: rename dcachemisses in place, then fix the CRC
	python3 - <<'PY'
import struct, zlib
b = bytes(open("umon.out", "rb").read())
assert b.count(b"dcachemisses") >= 1
b = bytearray(b.replace(b"dcachemisses", b"icachemisses"))
struct.pack_into("<I", b, 24, zlib.crc32(bytes(b[32:])))
open("dup.out", "wb").write(b)
PY
	"$UPROFILE" -i dup.out --format json >dup.json
	json_check dup.json
	assert_equal "$(jq -c '[.statistics[] | [.name, .key]]' dup.json)" \
		'[["icachemisses",null],["icachemisses","icachemisses#2"]]'
	# every row has both counts, under their keys
	assert_equal "$(jq '(.rows | length) as $n | $n > 0 and ([.rows[] |
		select(.samples | has("icachemisses") and has("icachemisses#2"))] |
		length == $n)' dup.json)" true
}
