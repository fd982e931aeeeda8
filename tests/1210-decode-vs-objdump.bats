#!/usr/bin/env bats
# x86-64 decoding (symbolize/decode_x86.c, through sym_code) against
# binutils' objdump: every instruction decodecheck (tests/tools/
# decodecheck.c) finds in every procedure of an object starts where
# objdump's has one, is as long, and has its mnemonic, up to the syntax
# differences objdump-compare.py documents.  libc's AVX-512 (EVEX)
# string routines are among them; AMX and CET come from a small
# assembled object, libc having no AMX and few endbr64.

load helpers

DECODECHECK=$ROOT/$BUILD/tests/decodecheck
COMPARE=$ROOT/tests/tools/objdump-compare.py
LIBC=/lib/x86_64-linux-gnu/libc.so.6

setup() {
	common_setup
	[[ $(uname -m) == x86_64 ]] || skip "x86-64 only"
	[[ -x $DECODECHECK ]] ||
		fail "$DECODECHECK not built (make $BUILD/tests/decodecheck)"
}

# compare OBJECT: decodecheck against objdump; leaves ours.txt, od.txt
# and the comparison in $output.
compare() {
	run -0 --separate-stderr "$DECODECHECK" "$1"
	printf '%s\n' "$output" >ours.txt
	objdump -d -M intel --insn-width=16 "$1" >od.txt
	run "$COMPARE" ours.txt od.txt
}

@test "libc: every instruction of every procedure as objdump decodes it" {
	[[ -r $LIBC ]] || skip "no $LIBC"
	compare "$LIBC"
	echo "# libc: ${lines[-1]}" >&3
	assert_success
	assert_line --regexp '^boundaries=([0-9]+)/\1 mnemonics=([0-9]+)/\2 data=[0-9]+ unknown=0 '
	# The EVEX routines were decoded, not skipped.
	run -0 grep -c -E ' (kmovd|kortestd|vpcmpb|vpminub) .*(zmm|ymm1[6-9]|ymm2[0-9]|k[1-7])' ours.txt
	(( output > 100 )) || fail "only $output EVEX instructions"
}

@test "the test programs and the dynamic linker as objdump decodes them" {
	local p
	for p in "$TPROG/spin2" "$TPROG/spin2-stripped" "$TPROG/inline" \
		"$TPROG/libhot.so" "$TPROG/demo" "$TPROG/branchy" \
		/lib64/ld-linux-x86-64.so.2; do
		[[ -r $p ]] || continue
		compare "$p"
		assert_success
		assert_line --regexp '^boundaries=([0-9]+)/\1 mnemonics=([0-9]+)/\2 .* unknown=0 '
	done
}

@test "AMX, CET and AVX-512 instructions as objdump decodes them" {
	cat >isa.s <<'EOF2'
	.intel_syntax noprefix
	.text
	.globl isa_mix
	.type isa_mix, @function
isa_mix:
	endbr64
	ldtilecfg [rdi]
	tileloadd tmm0, [rsi + rdx*1]
	tileloaddt1 tmm1, [rsi + rdx*1 + 0x40]
	tdpbssd tmm2, tmm0, tmm1
	tdpbf16ps tmm3, tmm0, tmm1
	tilezero tmm4
	tilestored [rdi + rdx*1], tmm2
	sttilecfg [rdi]
	tilerelease
	rdsspq rax
	incsspq rax
	wrssq [rdi], rax
	wrussq [rdi], rax
	saveprevssp
	rstorssp [rdi]
	setssbsy
	clrssbsy [rdi]
	kmovd k1, eax
	kmovq k2, k1
	kortestd k1, k2
	vpcmpneqb k1{k2}, zmm16, [rdi]
	vpcmpub k3, ymm17, ymm18, 6
	vpternlogd zmm0{k1}{z}, zmm1, zmm2, 0x96
	vmovdqu64 zmm16, [rsi + 0x40]
	vpcompressd [rdi]{k1}, zmm2
	vpaddd zmm0, zmm1, dword bcst [rax + 4]
	vaddph zmm0, zmm1, zmm2
	vpdpbusd zmm3, zmm4, zmm5
	{vex} vpdpbusd ymm3, ymm4, ymm5
	vcmpltps k1, zmm1, zmm2
	test eax, eax
	je 1f
	notrack jmp rax
1:	endbr32
	ret
	.size isa_mix, .-isa_mix
EOF2
	as -o isa.o isa.s || skip "this assembler knows no AMX"
	ld -shared -o isa.so isa.o
	compare isa.so
	assert_success
	assert_line 'boundaries=36/36 mnemonics=36/36 data=0 unknown=0 lock_skips=0'
	run -0 cat ours.txt
	assert_line '1016 5 - tdpbssd tmm2, tmm0, tmm1'
	assert_line '1056 4 - clrssbsy qword ptr [rdi]'
	assert_line '1076 7 - vpternlogd zmm0 {k1} {z}, zmm1, zmm2, 0x96'
	assert_line '10ad 3 bi notrack jmp rax'
}

@test "the comparison can fail: a shifted boundary and a wrong mnemonic" {
	cat >ours.txt <<'EOF2'
1000 4 - endbr64
1004 3 - mov eax, 1
1007 1 r ret
EOF2
	cat >od.txt <<'EOF2'
    1000:	f3 0f 1e fa	endbr64
    1004:	b8 01 00 00 00	mov    eax,0x1
    1009:	c3	ret
EOF2
	run -1 "$COMPARE" ours.txt od.txt
	assert_line --partial 'BOUNDARY 1004 len 3'
	assert_line --regexp '^boundaries=1/3 '
	sed -i 's/^1004 3 - mov/1004 5 - add/; s/^1007 1/1009 1/' ours.txt
	run -1 "$COMPARE" ours.txt od.txt
	assert_line 'MNEMONIC 1004 add eax, 1 | objdump mov    eax,0x1'
	assert_line --regexp '^boundaries=3/3 mnemonics=2/3 '
}

@test "an unknown instruction ends its block, marked, up to the next known start" {
	cat >u.s <<'EOF2'
	.intel_syntax noprefix
	.text
	.globl f
	.type f, @function
f:
	test edi, edi
	je 1f
	.byte 0x0f, 0x04
	nop
	nop
1:	mov eax, 1
	ret
	.size f, .-f
EOF2
	as -o u.o u.s
	ld -shared -o u.so u.o
	run -0 "$ROOT/$BUILD/tests/blockcheck" --dump u.so 0x1000
	assert_line 'procedure f [0x1000,0x100e) blocks=3 insns=5'
	# Not "(bad)" then two nops: its length is unknown, so nothing after
	# it is decoded until the branch target.
	assert_line '  0x1004 du (unknown instruction: 4 bytes not decoded)'
	assert_line --regexp '^block 2 \[0x1008,0x100e\) insns=2$'
	assert_line '  0x1008 - mov eax, 1'
}

@test "AArch64 still decodes (capstone): blocks, branch targets, a PLT stub named" {
	command -v ld.lld >/dev/null || skip "no ld.lld to link AArch64 code"
	printf 'int g(int);\nint f(int x) { int s = 0; for (int i = 0; i < x; i++) s += g(i); return s; }\n' >a.c
	clang --target=aarch64-linux-gnu -O1 -fPIC -c a.c -o a.o ||
		skip "clang cannot target AArch64"
	ld.lld -shared -o a.so a.o
	run -0 "$ROOT/$BUILD/tests/blockcheck" --dump a.so \
		"0x$(nm a.so | awk '$3 == "f" { print $1 }')"
	assert_line --regexp '^  0x[0-9a-f]+ bc b\.ne #0x[0-9a-f]+ -> 0x[0-9a-f]+$'
	assert_line --regexp '^  0x[0-9a-f]+ C bl #0x[0-9a-f]+ -> 0x[0-9a-f]+$'
	assert_line --regexp '^  0x[0-9a-f]+ r ret$'
	local stub
	# "0xVADDR C bl #0xSTUB -> OFFSET": the stub's vaddr.
	stub=$(awk '/ C bl / { print substr($4, 2); exit }' <<<"$output")
	run -0 "$ROOT/$BUILD/tests/blockcheck" --dump a.so "$stub"
	assert_line --regexp '^procedure g@plt '
	assert_line --regexp '^  0x[0-9a-f]+ bi br x17$'
}
