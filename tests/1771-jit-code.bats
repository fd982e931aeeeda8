#!/usr/bin/env bats
# JIT code in -asm and -lines: a jitdump's code loads carry the code's
# bytes and its debug records the source lines; the profile keeps them
# for the sampled symbols (section 16), so reports later, elsewhere or
# after --merge decode and place the code without the jitdump.
# tests/programs/jitasm.c writes a jitdump of known bytes and lines (the
# oracle: objdump of those bytes); node --perf-prof is a real runtime.

load helpers

setup() {
	common_setup
	skip_unless_perf_works
}

# asm_of PROFILE PROCEDURE [START]: "ADDRESS LENGTH TEXT" per instruction
# of PROCEDURE's -asm listing (JSON; the one starting at START, 0xHEX,
# when code of that name was compiled more than once), addresses in
# hexadecimal without 0x.
asm_of() {
	run -0 --separate-stderr "$UPROFILE" -i "$1" -asm --format json
	jq -r --arg p "$2" --arg s "${3-}" '.rows[] |
		select(.procedure == $p and
		       ($s == "" or .instructions[0].address == $s)) |
		.instructions[] | "\(.address) \(.end) \(.text)"' <<<"$output" |
	while read -r a e text; do
		printf '%x %d %s\n' "$a" $((e - a)) "$text"
	done
}

# objdump_of FILE ADDRESS: the same lines from objdump's disassembly of
# FILE's bytes placed at ADDRESS.
objdump_of() {
	objdump -D -b binary -mi386:x86-64 -M intel --insn-width=16 \
		--adjust-vma="0x$2" "$1" |
	awk -F'\t' '/^ *[0-9a-f]+:\t/ {
		sub(/^ */, "", $1); sub(/:$/, "", $1)
		printf "%s %d %s\n", $1, split($2, b, " "), $3
	}'
}

# normalize: the syntax Zydis and binutils write differently, nothing of
# the decoding: spaces and case; numbers in hexadecimal, a negative
# displacement as 2^64 minus it ("rip+0xff..91"); objdump's comment
# after a rip-relative operand ("# 0xADDR"); an index scaled by 1 and a
# displacement of 0 written out ("[rax+rax*1+0]"); "xchg ax, ax" (66 90),
# which Intel calls a two-byte nop (tests/tools/objdump-compare.py).
normalize() {
	python3 -c '
import re, sys
def num(m):
    v = int(m.group(1), 16)
    return str(v - (1 << 64) if v >= 1 << 63 else v)
for l in sys.stdin:
    a, n, t = l.rstrip("\n").split(" ", 2)
    t = re.sub(r"\s+", "", t.lower().split("#")[0])
    t = re.sub(r"0x([0-9a-f]+)", num, t)
    t = t.replace("+-", "-").replace("*1]", "]").replace("*1+", "+")
    t = t.replace("*1-", "-").replace("+0]", "]")
    t = "nop" if t == "xchgax,ax" else t
    print(a, n, t)'
}

# assert_objdump PROFILE: jit_sum's listing is objdump's, instruction
# for instruction (jitasm wrote its bytes to code.bin).
assert_objdump() {
	local ours theirs
	ours=$(asm_of "$1" jit_sum | normalize)
	theirs=$(objdump_of code.bin "$ADDR" | normalize)
	[[ -n $ours ]] || fail "no instructions of jit_sum in $1"
	assert_equal "$ours" "$theirs"
	[[ $(wc -l <<<"$ours") == 10 ]] || fail "instructions: $ours"
}

run_jitasm() {
	[[ $(uname -m) == x86_64 ]] || skip "jitasm's code is x86-64"
	run -0 --separate-stderr "$UPROFILE" -e cpu-clock -o u.out \
		"$TPROG/jitasm" "$@"
	ADDR=${lines[0]}
	[[ $ADDR =~ ^[0-9a-f]+$ ]] || fail "jitasm printed: $output"
	ERR=$stderr
}

@test "jitasm: -asm of JIT code is objdump's disassembly of its bytes, from the profile alone" {
	run_jitasm 600
	rm -f jit-*.dump
	assert_objdump u.out
	# --merge carries the code too
	run -0 "$UPROFILE" -quiet -i u.out --merge m.out
	assert_objdump m.out
	# and the samples are on the loop's instructions: the few outside
	# it (the call's first and last two instructions, a timer's tick
	# that lands at its return) stay under 1% and 2 samples
	run -0 --separate-stderr "$UPROFILE" -i u.out -asm --format json
	run -0 jq -r '.rows[] | select(.procedure == "jit_sum") |
		.instructions[] | select(.samples["cpu-clock"] > 0) |
		"\(.address) \(.samples["cpu-clock"])"' <<<"$output"
	local a n in=0 out=0 where=
	for line in "${lines[@]}"; do
		read -r a n <<<"$line"
		if ((a >= 0x$ADDR + 5 && a < 0x$ADDR + 0x18)); then
			((in += n))
		else
			((out += n))
			where+=" $a"
		fi
	done
	((in > 100)) || fail "$in samples in the loop"
	((out <= 2 && out * 100 <= in)) ||
		fail "$out samples outside the loop ($in in it):$where"
}

@test "jitasm: the debug record's lines in -asm and -lines, the repeated file name resolved" {
	run_jitasm 600
	rm -f jit-*.dump
	run -0 --separate-stderr "$UPROFILE" -i u.out -asm --format json
	run -0 jq -r '.rows[] | select(.procedure == "jit_sum") |
		.instructions[] | "\(.address) \(.file):\(.line)"' <<<"$output"
	local want=(0:gen 3:gen 5:gen 9:gen c:gen 10:gen 13:gen 16:gen
		    18:other 1b:other)
	local lines_of=(10 10 11 11 11 12 12 12 40 40) i a
	for i in "${!want[@]}"; do
		a=$(printf '0x%x' $((0x$ADDR + 0x${want[i]%%:*})))
		assert_line "$a /synthetic/${want[i]#*:}.src:${lines_of[i]}"
	done
	# the text listing heads each line's code with it
	run -0 --separate-stderr "$UPROFILE" -i u.out -asm
	assert_line --regexp '^ +gen\.src:11:$'
	assert_line --regexp '^ +gen\.src:12:$'
	assert_line --regexp '^ +other\.src:40:$'
	# -lines: the loop's two lines hold jit_sum's samples
	run -0 --separate-stderr "$UPROFILE" -i u.out -lines --format json
	json=$output
	total=$(jq '[.rows[] | select(.procedure == "jit_sum") | .samples["cpu-clock"]] | add' <<<"$json")
	loop=$(jq '[.rows[] | select(.procedure == "jit_sum" and .file == "/synthetic/gen.src" and (.line == 11 or .line == 12)) | .samples["cpu-clock"]] | add' <<<"$json")
	run -0 jq -r '[.rows[] | select(.procedure == "jit_sum") | "\(.file):\(.line)"] | sort | join(" ")' <<<"$json"
	[[ $output == *"/synthetic/gen.src:11"*"/synthetic/gen.src:12"* ]] ||
		fail "jit_sum's lines: $output"
	# a call takes 200000 turns of the loop: outside it, < 1%
	((total > 100 && loop * 100 >= total * 99)) ||
		fail "loop $loop of $total samples"
}

@test "jitasm: -blocks splits the JIT code at its loop" {
	run_jitasm 400
	run -0 --separate-stderr "$UPROFILE" -i u.out -blocks --format json
	run -0 jq -r '[.rows[] | select(.procedure == "jit_sum") | .address] | unique | join(" ")' <<<"$output"
	# the loop is block 1 (0x5 to the jne): all the samples
	assert_output "$(printf '0x%x' $((0x$ADDR + 5)))"
}

@test "jitasm hostile: a debug record too short, a code size past its record and a record cut short: one line each" {
	run_jitasm 300 hostile
	dump=$(echo "$PWD"/jit-*.dump)
	run -0 grep '^uprofile: jitdump' <<<"$ERR"
	assert_output "uprofile: jitdump $dump: 1 code record could not be used (no code, or a move of code never loaded): skipped
uprofile: jitdump $dump: 1 debug record does not hold its entries: the code it describes has no source lines
uprofile: jitdump $dump ends in a record cut short (its writer stopped while writing it, or is still writing): that record is not read"
	# the code is still named and decoded, without lines
	assert_objdump u.out
	run -0 --separate-stderr "$UPROFILE" -i u.out -lines --format json
	run -0 jq -c '[.rows[] | select(.procedure == "jit_sum") | .line] | unique' <<<"$output"
	assert_output '[null]'
}

@test "a profile whose JIT code section is damaged is refused in one line (status 125)" {
	run_jitasm 200
	python3 - u.out <<'EOF'
import struct, sys
sys.path.insert(0, __import__('os').environ['ROOT'] + '/tests/tools')
import umonsections as u
data = open(sys.argv[1], 'rb').read()
secs = u.sections(data)
def damaged(fn):
    return u.rebuild(data, [(i, fn(b) if i == 16 else b) for i, b in secs])
assert any(i == 16 for i, _ in secs), 'no section 16'
# a symbol index past the symbols
open('index.out', 'wb').write(damaged(
    lambda b: b[:4] + struct.pack('<I', 1000) + b[8:]))
# the code's bytes cut short
open('short.out', 'wb').write(damaged(lambda b: b[:20]))
# lines out of order: the second line's address before the first's
def swap(b):
    b = bytearray(b)
    code = struct.unpack_from('<I', b, 8)[0]
    at = 12 + (28 if code else 0)
    nfiles = struct.unpack_from('<I', b, at)[0]
    at += 4
    for _ in range(nfiles):
        at += 4 + struct.unpack_from('<I', b, at)[0]
    first = at + 4
    b[first:first + 8], b[first + 16:first + 24] = \
        b[first + 16:first + 24], b[first:first + 8]
    return bytes(b)
open('order.out', 'wb').write(damaged(swap))
EOF
	for f in index short order; do
		run -125 --separate-stderr "$UPROFILE" -i $f.out
		assert_equal "$stderr" "uprofile: cannot read '$f.out': JIT code section is malformed"
	done
}

@test "node --perf-prof: the hot function's instructions carry its samples, -lines its loop's line in the .js file" {
	command -v node >/dev/null || fail "node is missing (./setup.sh deps installs nodejs)"
	run -0 "$UPROFILE" -quiet -e cpu-clock node --perf-prof \
		"$ROOT/tests/programs/jitwork.js" 1500
	# hotA's heaviest code is, instruction for instruction, what objdump
	# makes of the bytes its load record holds (read by the test's own
	# reader of the jitdump)
	run -0 --separate-stderr "$UPROFILE" -i umon.out -asm --format json
	run -0 jq -r '[.rows[] | select(.procedure | test("^JS:.hotA "))] |
		max_by(.samples["cpu-clock"]) |
		"\(.instructions[0].address) \(.procedure)"' <<<"$output"
	read -r start name <<<"$output"
	python3 - jit-*.dump "$start" "$name" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
want, name = int(sys.argv[2], 16), sys.argv[3].encode()
off, code = struct.unpack_from('<I', b, 8)[0], None
while off + 16 <= len(b):
    rid, size = struct.unpack_from('<II', b, off)
    if rid == 0:
        addr, csize = struct.unpack_from('<QQ', b, off + 32)
        end = b.index(b'\0', off + 56)
        if addr == want and b[off + 56:end] == name:
            code = b[end + 1:end + 1 + csize]
    off += size
open('code.bin', 'wb').write(code)
EOF
	ours=$(asm_of umon.out "$name" "$start" | normalize)
	theirs=$(objdump_of code.bin "${start#0x}" | normalize)
	(($(wc -l <<<"$ours") > 20)) || fail "hotA's instructions: $ours"
	assert_equal "$ours" "$theirs"
	rm -f jit-*.dump
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --format json
	json=$output
	# hotA's heaviest line is its loop, line 15 of jitwork.js
	run -0 jq -r '[.rows[] | select(.procedure | test("^JS:.hotA "))] |
		max_by(.samples["cpu-clock"]) | "\(.file):\(.line)"' <<<"$json"
	assert_output "$ROOT/tests/programs/jitwork.js:15"
	run -0 jq -r '[.rows[] | select(.procedure | test("^JS:.hotB "))] |
		max_by(.samples["cpu-clock"]) | "\(.file):\(.line)"' <<<"$json"
	assert_output "$ROOT/tests/programs/jitwork.js:21"
	# -asm: hotA's samples all on decoded instructions of it
	run -0 --separate-stderr "$UPROFILE" -i umon.out -asm --format json
	json=$output
	run -0 jq -r '[.rows[] | select(.procedure | test("^JS:.hotA ")) |
		select(.samples["cpu-clock"] == ([.instructions[].samples["cpu-clock"]] | add)) |
		.instructions[] | select(.samples["cpu-clock"] > 0) |
		select(.text == "(bad)" or (.text | test("^\\(unknown")))] | length' <<<"$json"
	assert_output 0
	run -0 jq -r '[.rows[] | select(.procedure | test("^JS:.hotA ")) |
		select(.samples["cpu-clock"] == ([.instructions[].samples["cpu-clock"]] | add)) |
		.samples["cpu-clock"]] | add // 0' <<<"$json"
	((output > 100)) || fail "hotA's samples on its instructions: $output"
}

# node 20 writes a script's name in its debug records from memory it has
# freed: malloc's two pointers over its first 16 bytes.  A short path
# (under 32 bytes) keeps less than half of itself: its lines are still
# taken back from the code's own name.
@test "node --perf-prof, a script at a short path (node's damaged names): -lines still gives its lines" {
	command -v node >/dev/null || fail "node is missing (./setup.sh deps installs nodejs)"
	local dir
	dir=$(mktemp -d /tmp/tmp.XXXXXXXX)
	cp "$ROOT/tests/programs/jitwork.js" "$dir/w.js"
	run -0 "$UPROFILE" -quiet -e cpu-clock node --perf-prof "$dir/w.js" 1500
	rm -rf "$dir"
	((${#dir} + 5 < 32)) || fail "not a short path: $dir/w.js"
	run -0 --separate-stderr "$UPROFILE" -i umon.out -lines --format json
	run -0 jq -r '[.rows[] | select(.procedure | test("^JS:.hotA "))] |
		max_by(.samples["cpu-clock"]) | "\(.file):\(.line)"' <<<"$output"
	assert_output "$dir/w.js:15"
}

@test "jitasm twice: two pieces of JIT code of one name are two listings in -asm, each objdump's" {
	run_jitasm 600 twice
	run -0 --separate-stderr "$UPROFILE" -i u.out -asm --format json
	run -0 jq -r '.rows[] | select(.procedure == "jit_sum") |
		"\(.instructions[0].address) \(.instructions | length)"' <<<"$output"
	assert_equal "$(sort <<<"$output")" "$(printf '0x%x 10\n0x%x 10' \
		$((0x$ADDR)) $((0x$ADDR + 0x800)))"
	theirs=$(objdump_of code.bin "$ADDR" | normalize)
	assert_equal "$(asm_of u.out jit_sum "0x$ADDR" | normalize)" "$theirs"
	theirs=$(objdump_of code.bin "$(printf '%x' $((0x$ADDR + 0x800)))" | normalize)
	assert_equal "$(asm_of u.out jit_sum "$(printf '0x%x' $((0x$ADDR + 0x800)))" | normalize)" "$theirs"
}
