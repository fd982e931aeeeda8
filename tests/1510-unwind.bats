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
	if ! sanitized "$UNWCHECK" ||
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

@test "unwind: a sampled frame whose return address is in a register, with no frame of its own (vfork's shape)" {
	command -v as >/dev/null && command -v ld >/dev/null ||
		skip "as or ld (binutils) is missing"
	# glibc's __vfork pops its return address into rdi before the
	# system call (the child shares the stack), and its CFI says so:
	# the CFA is the stack pointer itself there
	cat >vf.s <<'ASM'
	.text
	.globl _start
_start:	.cfi_startproc
	popq %rdi
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rdi
in_call:
	syscall
	pushq %rdi
	.cfi_adjust_cfa_offset 8
back:	ret
	.cfi_endproc
ASM
	run -0 as vf.s -o vf.o
	run -0 ld --eh-frame-hdr -o vf vf.o
	local f out=""
	for f in _start in_call back; do
		run -0 "$ROOT/$BUILD/tests/unwstep" -di 5555 vf \
			"$(nm vf | awk -v f="$f" '$3 == f { print $1 }')"
		out+="$f ${output#* }"$'\n'
	done
	# In a caller's frame a return address in a register and no frame
	# is no step: the walk would not move up the stack.
	run -0 "$ROOT/$BUILD/tests/unwstep" -r -di 5555 vf \
		"$(nm vf | awk '$3 == "back" { print $1 }')"
	out+="back, a caller ${output#* }"
	assert_equal "$out" "_start stepped 0x1111 sp+8
in_call stepped 0x5555 sp+0
back stepped 0x5555 sp+8
back, a caller truncated: bad step"
}

@test "unwind: a PLT stub without CFI is stepped by its shape (PLT0, lazy, IBT, .plt.sec, .plt.got)" {
	command -v as >/dev/null && command -v ld >/dev/null ||
		skip "as or ld (binutils) is missing"
	# ld's PLT forms byte for byte, in a program without CFI; unwstep
	# steps once from each label on a stack of 0x1111, 0x2222, ...
	cat >plt.s <<'ASM'
	.section .plt,"ax",@progbits
plt0:	.byte 0xff, 0x35, 0, 0x20, 0, 0		# push GOT+8(%rip)
plt0_jmp:
	.byte 0xff, 0x25, 0, 0x20, 0, 0		# jmp *GOT+16(%rip)
	.byte 0x0f, 0x1f, 0x40, 0		# nopl 0(%rax)
lazy:	.byte 0xff, 0x25, 0, 0x20, 0, 0		# jmp *GOT(%rip)
lazy_push:
	.byte 0x68, 0, 0, 0, 0			# push $0
lazy_jmp:
	.byte 0xe9				# jmp plt0
	.long plt0 - (lazy_jmp + 5)
ibt:	.byte 0xf3, 0x0f, 0x1e, 0xfa		# endbr64
ibt_push:
	.byte 0x68, 1, 0, 0, 0			# push $1
ibt_jmp:
	.byte 0xf2, 0xe9			# bnd jmp plt0
	.long plt0 - (ibt_jmp + 6)
	.byte 0x90
	.section .plt.sec,"ax",@progbits
sec:	.byte 0xf3, 0x0f, 0x1e, 0xfa		# endbr64
sec_jmp:
	.byte 0xf2, 0xff, 0x25, 0, 0x20, 0, 0	# bnd jmp *GOT(%rip)
	.byte 0x0f, 0x1f, 0x44, 0, 0
	.section .plt.got,"ax",@progbits
got:	.byte 0xff, 0x25, 0, 0x20, 0, 0		# jmp *GOT(%rip)
	.byte 0x66, 0x90
	.text
other:	ret
	.globl _start
_start:	ret
ASM
	run -0 as plt.s -o plt.o
	run -0 ld -o plt plt.o
	run -0 readelf -SW plt
	refute_output --partial eh_frame
	local f out=""
	for f in plt0 plt0_jmp lazy lazy_push lazy_jmp ibt ibt_push ibt_jmp \
		sec sec_jmp got other; do
		run -0 "$ROOT/$BUILD/tests/unwstep" plt \
			"$(nm plt | awk -v f="$f" '$3 == f { print $1 }')"
		out+="$f ${output#* }"$'\n'
	done
	# before the push: [sp]; after it: [sp + 8]; in PLT0 (the index
	# pushed) [sp + 8], then [sp + 16]; code that is not a PLT: nothing
	# known without CFI
	assert_equal "$out" "plt0 stepped 0x2222 sp+16
plt0_jmp stepped 0x3333 sp+24
lazy stepped 0x1111 sp+8
lazy_push stepped 0x1111 sp+8
lazy_jmp stepped 0x2222 sp+16
ibt stepped 0x1111 sp+8
ibt_push stepped 0x1111 sp+8
ibt_jmp stepped 0x2222 sp+16
sec stepped 0x1111 sp+8
sec_jmp stepped 0x1111 sp+8
got stepped 0x1111 sp+8
other truncated: no CFI
"
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

# cficheck_agrees OBJECT MIN: cficheck on the addresses in addrs: every
# one in an FDE, read in place, as libdwarf reads it, more than MIN of
# them; cficheck's lines stay in $lines.
cficheck_agrees() {
	run "$ROOT/$BUILD/tests/cficheck" "$1" <"$BATS_TEST_TMPDIR/addrs"
	[[ $status -eq 0 ]] || fail "$1: $(tail -n 20 <<<"$output")"
	[[ ${lines[-1]} =~ ^([0-9]+)\ addresses,\ ([0-9]+)\ with\ CFI,\ 0\ differ,\ \.eh_frame$ ]] ||
		fail "$1: ${lines[-1]}"
	((BASH_REMATCH[1] > $2 && BASH_REMATCH[1] == BASH_REMATCH[2])) ||
		fail "$1: ${lines[-1]}"
}

@test "unwind: .eh_frame read in place gives libdwarf's rules at every address checked" {
	local obj libc
	libc=$(ldd "$UNWCHECK" | awk '$1 ~ /^libc\.so/ { print $3 }')
	[[ -f $libc ]] || fail "no libc found for $UNWCHECK"
	for obj in "$libc" "$UNWCHECK" "$TPROG/callers-nofp" /usr/bin/python3; do
		[[ -f $obj ]] || continue
		fde_addresses "$obj" 3 >"$BATS_TEST_TMPDIR/addrs"
		cficheck_agrees "$obj" 100
	done
}

@test "unwind: a large program's .eh_frame_hdr and .eh_frame are all it copies, and read right (node)" {
	# node's tables lie at the end of its 50 MB read-only segment; an
	# object is opened at its first sample, inside the drain, so copying
	# the whole segment stalled the drain while the buffers filled.
	local node lo=0 hi=0 name addr size
	node=$(command -v node) || fail "node is missing (./setup.sh deps installs nodejs)"
	node=$(readlink -f "$node")
	# The two sections' extent, from readelf's section table.
	while read -r name addr size; do
		((lo == 0 || 16#$addr < lo)) && lo=$((16#$addr))
		((16#$addr + 16#$size > hi)) && hi=$((16#$addr + 16#$size))
	done < <(readelf -SW "$node" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".eh_frame_hdr" || $1 == ".eh_frame" { print $1, $3, $5 }')
	((hi > lo && lo > 0)) || fail "no .eh_frame_hdr or .eh_frame in $node"
	# One address in every seventh FDE, against libdwarf.
	fde_addresses "$node" 1000000000 | awk 'NR % 7 == 1' >"$BATS_TEST_TMPDIR/addrs"
	cficheck_agrees "$node" 1000
	assert_equal "${lines[-2]}" "$((hi - lo)) bytes of CFI tables held"
}
