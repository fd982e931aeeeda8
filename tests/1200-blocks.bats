#!/usr/bin/env bats
# Basic blocks (sym_code, symbolize/blocks.c) against valgrind's callgrind,
# the oracle: callgrind counts every executed instruction, and every
# instruction of a basic block runs as often as the others.  blockcheck
# (tests/tools/blockcheck.c) compares, bench/blocks-vs-callgrind.sh runs
# both.  demo is left out here (3 minutes under valgrind); it passes too.

load helpers

BLOCKCHECK=$ROOT/$BUILD/tests/blockcheck
VSCG=$ROOT/bench/blocks-vs-callgrind.sh

setup() {
	common_setup
	[[ -x $BLOCKCHECK ]] ||
		fail "$BLOCKCHECK not built (make $BUILD/tests/blockcheck)"
}

skip_unless_valgrind() {
	command -v valgrind >/dev/null ||
		skip "valgrind (the oracle) is not installed"
}

# The vaddr of symbol $2 in object $1, as 0x...
sym_vaddr() {
	nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1; f = 1 } END { exit !f }'
}

# The total line's weighted share, "99.86", from blockcheck's $output.
weighted_share() {
	sed -n 's/^total .* weighted=\([0-9.]*\)%.*/\1/p' <<<"$output"
}

@test "hot_a of spin2: an entry block, the two loops, an exit block" {
	local va
	va=$(sym_vaddr "$TPROG/spin2" hot_a)
	run -0 "$BLOCKCHECK" --dump "$TPROG/spin2" "$va"
	assert_line --regexp '^procedure hot_a \[0x[0-9a-f]+,0x[0-9a-f]+\) blocks=5 insns=[0-9]+$'
	# Blocks: instructions are "  0xVADDR FLAGS TEXT [-> 0xTARGET]".
	awk '
	/^block/ { n++; start[n] = ""; last[n] = ""; calls[n] = 0 }
	/^  0x/ {
		if (start[n] == "") start[n] = $1
		last[n] = $0
		if ($2 ~ /C/) calls[n]++
	}
	END {
		# The inner loop: one block that branches back to its start.
		for (i = 1; i <= n; i++) {
			m = split(last[i], f, " ")
			if (f[2] == "bc" && f[m] == start[i])
				self++
		}
		if (self != 1) { print "self loops: " self; exit 1 }
		# The call to cpu_ns before the loops does not end block 0.
		split(last[1], f, " ")
		if (calls[1] != 1 || f[2] ~ /C/) { print "block 0: " last[1]; exit 1 }
		# The last block returns.
		split(last[n], f, " ")
		if (f[2] != "r") { print "last block: " last[n]; exit 1 }
	}' <<<"$output" || fail "unexpected block shape: $output"
	# The outer loop: a conditional branch back to the start of block 1.
	local b1
	b1=$(awk '/^block 1 / { getline; print $1 }' <<<"$output")
	assert_line --regexp "^  0x[0-9a-f]+ bc j[a-z]+ $b1 -> "
}

@test "a call to exit ends its block; rep movsb is a block of its own" {
	cat >t.c <<'EOF'
#include <stdlib.h>
__attribute__((noinline)) void copy(char *d, const char *s, unsigned long n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}
__attribute__((noinline)) int check(int x)
{
	if (x > 3)
		exit(2);
	return x + 1;
}
int main(int argc, char **argv) { (void)argv; return check(argc); }
EOF
	cc -O1 -g -o t t.c
	run -0 "$BLOCKCHECK" --dump t "$(sym_vaddr t copy)"
	assert_line --regexp '^block 1 \[0x[0-9a-f]+,0x[0-9a-f]+\) insns=1$'
	assert_line --regexp '^  0x[0-9a-f]+ R rep movsb'
	run -0 "$BLOCKCHECK" --dump t "$(sym_vaddr t check)"
	# The call to exit (through the PLT) is last in its block.
	run -0 awk '/^block/ { prev = ""; next } { if (prev ~ / Cn call/) bad = 1; prev = $0 }
		/ Cn call/ { seen = 1 } END { exit !(seen && !bad) }' <<<"$output"
}

@test "an address outside any code: no code, exit 1" {
	run -1 "$BLOCKCHECK" --dump "$TPROG/spin2" \
		"$(sym_vaddr "$TPROG/spin2" _IO_stdin_used)"
	assert_output --partial 'no readable code at the address'
}

@test "a wrong count makes a block fail (the check can fail)" {
	skip_unless_valgrind
	run -0 "$VSCG" -k cg -- "$TPROG/spin2" 20
	# One more execution of the inner loop's first instruction only.
	local va
	va=$(awk '/^block 2 / { getline; print $1 }' \
		<<<"$("$BLOCKCHECK" --dump "$TPROG/spin2" "$(sym_vaddr "$TPROG/spin2" hot_a)")")
	[[ -n $va ]] || fail "no block 2 in hot_a"
	# callgrind adds up cost lines of the same position.
	{
		cat cg/callgrind.out
		printf 'ob=%s\nfn=(999999) extra\n%s 0 1\n' "$TPROG/spin2" "$va"
	} >bad.out
	run -1 "$BLOCKCHECK" --object spin2 --min 100 bad.out cg/valgrind.log
	assert_line --regexp "^FAIL spin2 hot_a \[0x[0-9a-f]+,0x[0-9a-f]+\) vaddr $va: "
	run -0 "$BLOCKCHECK" --object spin2 --min 100 cg/callgrind.out \
		cg/valgrind.log
}

@test "every executed block of spin2, inline and shlib passes" {
	skip_unless_valgrind
	local p
	for p in spin2 inline shlib; do
		run -0 "$VSCG" --object "$p" --object libhot.so --min 100 -- \
			"$TPROG/$p" 20
		refute_line --partial FAIL
		refute_line --partial SPLIT
		assert_line --regexp "^total blocks=[1-9][0-9]+ "
	done
}

@test "spin2 including libc and ld.so: at least 99% weighted" {
	skip_unless_valgrind
	run -0 "$VSCG" --min 99 -- "$TPROG/spin2" 20
	assert_line --regexp '^total blocks=[1-9][0-9]+ '
}

@test "gzip: at least 99% of executed instructions in passing blocks" {
	skip_unless_valgrind
	command -v gzip >/dev/null || skip "gzip is not installed"
	head -c 1000000 "$(command -v gzip)" >in
	cat in in in >in3
	run -0 "$VSCG" --min 99 -- gzip -c in3
	assert_line --regexp '^/.*/gzip blocks=[1-9][0-9]+ '
	local share
	share=$(weighted_share)
	[[ -n $share ]] || fail "no total line: $output"
	assert [ "$(awk -v s="$share" 'BEGIN { print (s >= 99) }')" = 1 ]
}

@test "decoding out of memory says so, whichever allocation fails" {
	# decodecheck --oom fails each allocation of decoding each procedure
	# in turn (the neighbours' scan for jumps in among them): every one
	# must end in SYM_ENOMEM, never in a procedure decoded without it.
	local p
	for p in "$TPROG/branchy" "$TPROG/demo" "$TPROG/libhot.so"; do
		run -0 --separate-stderr "$ROOT/$BUILD/tests/decodecheck" \
			--oom "$p"
		assert_output ''
		[[ $stderr =~ ^procedures=[1-9][0-9]*\ allocations=[1-9][0-9]*$ ]] ||
			fail "$p: $stderr"
	done
}
