#!/usr/bin/env bats
# symbolize/ against binutils' addr2line, the oracle: for every instruction
# of small fixtures built here (inlining two deep, PIE and not, DWARF 4 and
# 5, stripped, separate debug files, a shared library) symtool must print
# the same inline chain, function names and file:line as
# "addr2line -a -i -f -e".  Plus kallsyms and the vdso.

load helpers

SYMTOOL=$ROOT/$BUILD/tests/symtool
BLOCKCHECK=$ROOT/$BUILD/tests/blockcheck

setup() {
	common_setup
	[[ -x $SYMTOOL ]] || fail "$SYMTOOL not built (make $BUILD/tests/symtool)"
	write_fixtures
}

# Sources: a header with always_inline code two deep, a main file with a
# function that is inlined without being asked to and a cold path (so
# that main has DW_AT_ranges), and a shared library.  They live in
# subdirectories and are compiled by relative path, so file names must be
# joined from comp_dir and the include directory.
write_fixtures() {
	mkdir -p src/inc
	cat >src/inc/fix.h <<'EOF'
static inline __attribute__((always_inline)) unsigned leaf(unsigned x)
{
	x ^= x >> 7;
	x *= 0x9e3779b1u;
	return x ^ (x >> 13);
}

static inline __attribute__((always_inline)) unsigned middle(unsigned x,
							     unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += leaf(x + i) * (i | 1);
	return s;
}
EOF
	cat >src/fix.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "fix.h"

__attribute__((noinline)) unsigned work(unsigned x, unsigned n)
{
	return middle(x, n) + middle(x ^ n, n / 2 + 1);
}

static unsigned helper(const unsigned *v, unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += v[i] > 100 ? leaf(v[i]) : v[i] * 3;
	return s;
}

__attribute__((cold, noinline)) void fail(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned v[16], n = argc > 1 ? (unsigned)atoi(argv[1]) : 10;

	if (n > 16)
		fail("too many");
	for (unsigned i = 0; i < n; i++)
		v[i] = work(i, n);
	printf("%u\n", helper(v, n));
	return 0;
}
EOF
	cat >src/lib.c <<'EOF'
#include "fix.h"

__attribute__((noinline)) unsigned lib_helper(unsigned x)
{
	return middle(x, x & 15) * 7;
}

static __attribute__((noinline)) unsigned lib_static(unsigned x)
{
	return leaf(x) + 1;
}

unsigned lib_entry(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += lib_helper(i) + lib_static(s);
	return s;
}
EOF
}

# cc OUT FLAGS...: build the executable fixture.
cc_fix() {
	local out=$1
	shift
	gcc "$@" -Isrc/inc src/fix.c -o "$out"
}

cc_lib() {
	local out=$1
	shift
	gcc "$@" -fPIC -shared -Isrc/inc src/lib.c -o "$out"
}

# Every instruction address objdump disassembles in OBJ.
insn_addrs() {
	objdump -d --no-show-raw-insn "$1" |
		awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }'
}

# addr2line's answer, made comparable: no discriminators, "?" lines are
# 0, and a file name that is not a path (the STT_FILE name binutils
# falls back to, e.g. crtstuff.c) counts as no file.  Address lines are
# numbered instead of printed, so offsets and addresses compare.
norm_addr2line() {
	sed -e 's/ (discriminator [0-9]*)//' -e 's/:?$/:0/' \
		-e 's@^[^/]*:0$@??:0@' |
		awk '/^0x[0-9a-f]+$/ { print "@" ++n; next } { print }'
}

# symtool's answer in addr2line's layout; "object+0xoff" (no symbol at
# all) is addr2line's "??".
norm_symtool() {
	awk -F'\t' -v base="$1" '
		/^0x[0-9a-f]+$/ { print "@" ++n; next }
		{ f = $1; if (index(f, base "+0x") == 1) f = "??"
		  # PLT stubs: we name them target@plt (as perf and
		  # objdump do), the code between them .plt or .plt+0xN;
		  # addr2line knows nothing there.
		  if ((f ~ /@plt$/ || f ~ /^\.plt/) && $2 == "??:0") f = "??"
		  print f; print $2 }'
}

# hex(S): the value of hex string S, "0x" or not (plain awk: mawk has no
# strtonum).
AWK_HEX='
	function hex(s,    i, v) {
		sub(/^0x/, "", s)
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef",
					   substr(s, i, 1)) - 1
		return v
	}'

# program_entry OBJ: OBJ's entry point (readelf's "0x..."), when OBJ is
# a program: an executable, or a PIE (an interpreter, or flagged PIE);
# nothing for a shared library.
program_entry() {
	readelf -hldW "$1" 2>/dev/null | awk '
		/^ *Type:/ { exec = $2 == "EXEC"; dyn = $2 == "DYN" }
		/^ *Entry point address:/ { e = $4 }
		/^ *INTERP / { pie = 1 }
		/\(FLAGS_1\)/ && / PIE/ { pie = 1 }
		END { if (e != "0x0" && (exec || (dyn && pie))) print e }'
}

# unwind_names OBJ ORIG <expected: addr2line's normalized answer for the
# addresses in ./addrs with each "??" name replaced by what symtool must
# say there instead: "func@0xLO" when an .eh_frame FDE of OBJ, as
# binutils reads it, covers [LO, HI) around the address outside the PLT
# sections, "_start" when LO is a program's entry point.  Also checks
# that every such FDE starts where the unstripped ORIG has a function
# symbol: the name is a real procedure's entry (no ORIG, "": no such
# check, for the vdso, whose static code has none).
unwind_names() {
	local fdes plts funcs entry
	entry=$(program_entry "$1")
	# (readelf exits 1 on a file with a .gnu_debuglink it cannot follow,
	# after printing the frames: its status says nothing here)
	fdes=$({ readelf --debug-dump=frames "$1" || true; } |
		awk '$4 == "FDE" { sub(/^pc=/, "", $6); sub(/\.\./, " ", $6)
			print $6 }')
	plts=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 ~ /^\.plt/ { print $3, $5 }')
	[[ -z $2 ]] ||
		funcs=$(readelf -sW "$2" |
			awk '$4 == "FUNC" && $7 != "UND" { print $2 }')
	awk -v fdes="$fdes" -v plts="$plts" -v funcs="$funcs" \
		-v check="${2:+1}" -v entry="${entry:--1}" '
		'"$AWK_HEX"'
		BEGIN {
			n = split(fdes, f, /[ \n]/)
			for (i = 1; i + 1 <= n; i += 2) {
				lo[++k] = hex(f[i]); hi[k] = hex(f[i + 1])
			}
			n = split(plts, f, /[ \n]/)
			for (i = 1; i + 1 <= n; i += 2) {
				plo[++np] = hex(f[i])
				phi[np] = plo[np] + hex(f[i + 1])
			}
			n = split(funcs, f, /\n/)
			for (i = 1; i <= n; i++)
				isfunc[hex(f[i])] = 1
		}
		NR == FNR { a[FNR] = hex($1); next }
		/^@[0-9]+$/ { at = substr($0, 2); print; named = 0; next }
		!named && $0 == "??" {
			named = 1
			for (i = 1; i <= np; i++)
				if (a[at] >= plo[i] && a[at] < phi[i]) {
					print; next
				}
			for (i = 1; i <= k; i++)
				if (a[at] >= lo[i] && a[at] < hi[i]) {
					if (check && !(lo[i] in isfunc))
						printf "no symbol at FDE start %x\n", lo[i]
					if (entry != -1 && lo[i] == hex(entry))
						print "_start"
					else
						printf "func@0x%x\n", lo[i]
					next
				}
			print; next
		}
		!named { named = 1 }
		{ print }' addrs -
}

# clone_names ORIG <expected: the outermost procedure of each address
# (addr2line's DWARF name) renamed after the sized function symbol of
# ORIG that covers the address where that symbol is a copy of it the
# compiler made (NAME.cold, NAME.part.0, NAME.constprop.0): out-of-line
# code is named by the symbol table, as nm and perf name it.
clone_names() {
	local funcs
	funcs=$(readelf -sW "$1" | awk '$4 == "FUNC" && $7 != "UND" &&
		$3 != "0" { print $2, $3, $8 }')
	awk -v funcs="$funcs" '
		'"$AWK_HEX"'
		BEGIN {
			n = split(funcs, f, /[ \n]/)
			for (i = 1; i + 2 <= n; i += 3) {
				lo[++k] = hex(f[i]); sz[k] = f[i + 1] + 0
				nm[k] = f[i + 2]
			}
		}
		function flush(   i, a, last) {
			if (!nb) return
			a = addr[at]
			last = nb % 2 ? nb : nb - 1
			for (i = 1; i <= k && last >= 1; i++)
				if (a >= lo[i] && a < lo[i] + sz[i] &&
				    index(nm[i], b[last] ".") == 1)
					b[last] = nm[i]
			for (i = 1; i <= nb; i++) print b[i]
			nb = 0
		}
		NR == FNR { addr[FNR] = hex($1); next }
		/^@[0-9]+$/ { flush(); print; at = substr($0, 2); nb = 0; next }
		{ b[++nb] = $0 }
		END { flush() }' addrs -
}

# File offsets of the vaddrs on stdin, from the PT_LOAD headers of $1.
to_offsets() {
	local loads
	loads=$(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }')
	awk -v loads="$loads" '
		'"$AWK_HEX"'
		BEGIN {
			n = split(loads, f, /[ \n]/)
			for (i = 1; i + 2 <= n; i += 3) {
				off[++k] = hex(f[i])
				va[k] = hex(f[i + 1])
				sz[k] = hex(f[i + 2])
			}
		}
		{
			a = hex($1)
			for (i = 1; i <= k; i++)
				if (a >= va[i] && a < va[i] + sz[i]) {
					printf "%x\n", a - va[i] + off[i]
					next
				}
			print "bad " $1
		}'
}

# unstretch EXPECTED ACTUAL: EXPECTED with the one intended difference
# undone.  Where neither side has line information and symtool names no
# symbol, addr2line has stretched the preceding sized symbol over the
# address (a stripped object's sparse exports, padding, PLT stubs);
# symtool does not, by design (see symindex_lookup).
unstretch() {
	awk 'NR == FNR { a[FNR] = $0; next }
		{ e[FNR] = $0 }
		END {
			for (i = 1; i <= FNR; i++) {
				if (a[i] == "??" && a[i + 1] == "??:0" &&
				    e[i + 1] == "??:0")
					e[i] = "??"
				print e[i]
			}
		}' "$2" "$1"
}

# compare OBJ [--offsets] [ADDR_SOURCE]: symtool and addr2line agree on
# every instruction address of ADDR_SOURCE (default OBJ; a stripped OBJ
# takes its addresses from the unstripped original).  With --offsets
# symtool is given file offsets, as profiles record them.  Where
# addr2line has no name, symtool names the procedure the unwind table
# gives (unwind_names).
compare() {
	local obj=$1 mode=$2 src=${3:-$1} n
	insn_addrs "$src" >addrs
	n=$(wc -l <addrs)
	((n >= 50)) || fail "only $n addresses in $src"
	addr2line -a -i -f -e "$obj" <addrs | norm_addr2line |
		unwind_names "$obj" "$src" | clone_names "$src" >expected
	if [[ $mode == --offsets ]]; then
		to_offsets "$obj" <addrs >offsets
		run ! grep -q bad offsets
		"$SYMTOOL" -a "$obj" <offsets | norm_symtool "${obj##*/}" >actual
	else
		"$SYMTOOL" --vaddr -a "$obj" <addrs |
			norm_symtool "${obj##*/}" >actual
	fi
	unstretch expected actual >expected.norm
	run diff -u expected.norm actual
	assert_success
	echo "# $obj: $n addresses agree with addr2line" >&3
}

# The fixture really has the shape the comparisons rely on.
# assert_inline_chain OBJ [ADDR_SOURCE]
assert_inline_chain() {
	local obj=$1 src=${2:-$1} addr
	addr=$(objdump -d "$src" | awk '/<work>:/ { f = 1 } f && !n && /imul/ {
		sub(":", "", $1); print $1; n = 1 }')
	[[ -n $addr ]] || fail "no imul in work() of $src"
	run "$SYMTOOL" --vaddr "$obj" "$addr"
	assert_success
	assert_line --index 0 --regexp "^leaf	$BATS_TEST_TMPDIR/src/inc/fix.h:[0-9]+$"
	assert_line --index 1 --regexp "^middle	$BATS_TEST_TMPDIR/src/inc/fix.h:[0-9]+$"
	assert_line --index 2 --regexp "^work	$BATS_TEST_TMPDIR/src/fix.c:7$"
}

@test "PIE, DWARF 5, -O2: every instruction matches addr2line" {
	cc_fix fix -O2 -g -gdwarf-5
	assert_inline_chain fix
	compare fix
	compare fix --offsets
}

@test "PIE, DWARF 4, -O2: every instruction matches addr2line" {
	cc_fix fix -O2 -g -gdwarf-4
	assert_inline_chain fix
	compare fix
}

@test "non-PIE, DWARF 4 and 5: offsets are converted through PT_LOAD" {
	cc_fix fix4 -O2 -g -gdwarf-4 -no-pie
	cc_fix fix5 -O3 -g -gdwarf-5 -no-pie
	assert_inline_chain fix5
	compare fix4 --offsets
	compare fix5 --offsets
	compare fix5
}

@test "-O1 and -Os, compiled from the source directory" {
	mkdir -p bin
	(cd src && gcc -O1 -g -Iinc fix.c -o ../bin/fixO1) || fail
	(cd src && gcc -Os -g -gdwarf-4 -Iinc fix.c -o ../bin/fixOs) || fail
	compare bin/fixO1
	compare bin/fixOs --offsets
}

@test "shared library: offsets, DWARF 5 and 4" {
	cc_lib libfix.so -O2 -g
	cc_lib libfix4.so -O2 -g -gdwarf-4
	compare libfix.so --offsets
	compare libfix.so
	compare libfix4.so --offsets
}

@test "stripped: .dynsym names or object+offset, like addr2line" {
	cc_lib libfix.so -O2 -g
	strip -o libfix-stripped.so libfix.so
	compare libfix-stripped.so --offsets libfix.so
	cc_fix fix -O2 -g
	strip -o fix-stripped fix
	compare fix-stripped "" fix

	# Exported functions by name, a static one by its entry address from
	# the unwind table (flags: SYM_F_UNWIND only: no symbol, no line).
	addr=$(objdump -d libfix.so | awk '!n && /<lib_static>:/ { print $1; n = 1 }')
	run "$SYMTOOL" --vaddr --info libfix-stripped.so "$addr"
	assert_success
	assert_line --index 0 "func@0x$(printf %x $((16#$addr)))	??:0"
	assert_line --index 1 --regexp '^# flags=0x20 '
	addr=$(objdump -d libfix.so | awk '!n && /<lib_entry>:/ { print $1; n = 1 }')
	run "$SYMTOOL" --vaddr --info libfix-stripped.so "$addr"
	assert_line --index 0 "lib_entry	??:0"
	assert_line --index 1 --regexp '^# flags=0x1 '
}

@test "stripped: a program's entry point (e_entry) is _start, a library's is not" {
	cc_fix fix -O2 -g
	strip -o fix-stripped fix
	cc_fix fix-nopie -O2 -g -no-pie
	strip -o fix-nopie-stripped fix-nopie
	local o e objs=(fix-stripped fix-nopie-stripped)
	# A static PIE has no interpreter: its dynamic flags say PIE.
	if cc_fix fix-spie -O2 -static-pie 2>/dev/null; then
		strip -o fix-spie-stripped fix-spie
		objs+=(fix-spie-stripped)
	fi
	for o in "${objs[@]}"; do
		e=$(readelf -h "$o" | awk '/Entry point address:/ { print $4 }')
		run -0 "$SYMTOOL" --vaddr --info "$o" "$e" "$(printf 0x%x $((e + 1)))"
		assert_line --index 0 "_start	??:0"
		assert_line --index 1 --regexp '^# flags=0x20 '
		assert_line --index 2 "_start	??:0"
	done
	# A library whose entry is a hidden function (no .dynsym name once
	# stripped) is no program: that code is named by its address.
	cat >ent.c <<'EOF'
__attribute__((visibility("hidden"), noinline)) unsigned ent(unsigned x)
{
	return x * 3 + 1;
}

unsigned ent_user(unsigned n)
{
	return ent(n) + ent(n + 1);
}
EOF
	gcc -O2 -fPIC -shared -Wl,-e,ent ent.c -o libent.so
	strip -o libent-stripped.so libent.so
	e=$(readelf -h libent.so | awk '/Entry point address:/ { print $4 }')
	[[ $(nm libent.so | awk '$3 == "ent" { print $1 }') == \
		"$(printf %016x "$e")" ]] || fail "the linker did not take -e ent"
	run -0 "$SYMTOOL" --vaddr libent-stripped.so "$e"
	assert_output "func@$e	??:0"
}

@test "a symbol whose size stops short of its FDE still names the rest of the procedure" {
	cat >short.s <<'EOF'
	.text
	.globl	shorty
	.type	shorty, @function
shorty:
	.cfi_startproc
	xor	%eax, %eax
	.size	shorty, . - shorty
	inc	%eax
	inc	%eax
	ret
	.cfi_endproc
	.globl	main
	.type	main, @function
main:
	.cfi_startproc
	call	shorty
	ret
	.cfi_endproc
	.size	main, . - main
	.section	.note.GNU-stack, "", @progbits
EOF
	gcc short.s -o short
	local addr
	addr=$(nm short | awk '$3 == "shorty" { print $1 }')
	run -0 "$SYMTOOL" --vaddr short "0x$addr"
	assert_output "shorty	??:0"
	# past the symbol's size, inside its FDE
	run -0 "$SYMTOOL" --vaddr short "$(printf '0x%x' $((0x$addr + 3)))"
	assert_output "shorty	??:0"
}

@test "separate debug file through .gnu_debuglink, next to and in .debug/" {
	cc_fix fix -O2 -g
	objcopy --only-keep-debug fix fix.debug
	strip -o fix-dl fix
	objcopy --add-gnu-debuglink=fix.debug fix-dl
	compare fix-dl "" fix
	compare fix-dl --offsets fix

	mkdir -p sub/.debug
	cp fix-dl sub/fix-dl
	mv fix.debug sub/.debug/fix.debug
	compare sub/fix-dl --offsets fix
	assert_inline_chain sub/fix-dl fix
}

@test "debuglink with a wrong CRC is not used" {
	cc_fix fix -O2 -g
	objcopy --only-keep-debug fix fix.debug
	strip -o fix-dl fix
	objcopy --add-gnu-debuglink=fix.debug fix-dl
	echo garbage >>fix.debug
	addr=$(objdump -d fix | awk '!n && /<work>:/ { print $1; n = 1 }')
	run "$SYMTOOL" --vaddr --info fix-dl "$addr"
	assert_success
	assert_line --index 0 "func@0x$(printf %x $((16#$addr)))	??:0"
}

@test "separate debug file by build-id under the debug root" {
	cc_fix fix -O2 -g
	strip -o fix-stripped fix
	id=$(readelf -n fix | awk '/Build ID:/ { print $3 }')
	[[ -n $id ]] || skip "gcc does not add build-ids here"
	mkdir -p "root/.build-id/${id:0:2}"
	objcopy --only-keep-debug fix "root/.build-id/${id:0:2}/${id:2}.debug"
	insn_addrs fix >addrs
	addr2line -a -i -f -e fix <addrs | norm_addr2line | clone_names fix >expected
	"$SYMTOOL" --vaddr -a --debug-root "$BATS_TEST_TMPDIR/root" \
		fix-stripped <addrs | norm_symtool fix-stripped >actual
	unstretch expected actual >expected.norm
	run diff -u expected.norm actual
	assert_success
	run grep -c '^work$' actual
	assert_output --regexp '^[1-9][0-9]*$'
}

@test "build-id mismatch: stale, fallback only" {
	cc_fix fix -O2 -g
	id=$(readelf -n fix | awk '/Build ID:/ { print $3 }')
	[[ -n $id ]] || skip "gcc does not add build-ids here"
	addr=$(objdump -d fix | awk '!n && /<work>:/ { print $1; n = 1 }')
	run "$SYMTOOL" --vaddr --info --build-id 0123456789abcdef fix "$addr"
	assert_success
	assert_line --index 0 --regexp '^fix\+0x[0-9a-f]+	\?\?:0$'
	assert_line --index 1 --regexp '^# flags=0x4 '
	run "$SYMTOOL" --vaddr --info --build-id "$id" fix "$addr"
	assert_line --index 0 --regexp '^work	'
}

@test "missing object: fallback name and SYM_EOPEN" {
	run "$SYMTOOL" --info /nonexistent/libgone.so 1234
	assert_success
	assert_line --index 0 "libgone.so+0x1234	??:0"
	assert_line --index 1 --regexp '^# flags=0x8 start=0x1234 module=- vaddr=0x1234 ret=-2 '
}

@test "clang -gdwarf-4 matches addr2line too" {
	command -v clang >/dev/null || skip "clang not installed"
	clang -O2 -g -gdwarf-4 -Isrc/inc src/fix.c -o fixclang
	compare fixclang
}

@test "kallsyms: text symbols, aliases, modules, bounds" {
	cat >kallsyms <<'EOF'
ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff81000100 t do_one
ffffffff81000100 W do_one_weak
ffffffff81000180 D some_data
ffffffff81000200 T do_two
ffffffff81000400 T _etext
ffffffffc0001000 t mod_init	[mymod]
ffffffffc0001100 T mod_work	[mymod]
ffffffffc0002000 t other_fn	[other]
EOF
	run "$SYMTOOL" --info --kallsyms kallsyms '[kernel]' \
		ffffffff81000010 ffffffff81000190 ffffffff81000300 \
		ffffffffc0001150 ffffffffc0002010 ffffffff80000000 \
		ffffffffc1000000
	assert_success
	assert_output - <<'EOF'
startup_64	??:0
# flags=0x1 start=0xffffffff81000000 module=- vaddr=0xffffffff81000010 ret=0 (success)
do_one_weak	??:0
# flags=0x1 start=0xffffffff81000100 module=- vaddr=0xffffffff81000190 ret=0 (success)
do_two	??:0
# flags=0x1 start=0xffffffff81000200 module=- vaddr=0xffffffff81000300 ret=0 (success)
mod_work	??:0
# flags=0x1 start=0xffffffffc0001100 module=mymod vaddr=0xffffffffc0001150 ret=0 (success)
other_fn	??:0
# flags=0x1 start=0xffffffffc0002000 module=other vaddr=0xffffffffc0002010 ret=0 (success)
[kernel]+0xffffffff80000000	??:0
# flags=0x0 start=0xffffffff80000000 module=- vaddr=0xffffffff80000000 ret=0 (success)
[kernel]+0xffffffffc1000000	??:0
# flags=0x0 start=0xffffffffc1000000 module=- vaddr=0xffffffffc1000000 ret=0 (success)
EOF
}

@test "kallsyms with kptr_restrict (all zero): SYM_EKALLSYMS" {
	printf '0000000000000000 T _text\n0000000000000000 t foo [m]\n' >ks0
	run "$SYMTOOL" --info --kallsyms ks0 '[kernel]' ffffffff81000010
	assert_success
	assert_line --index 0 "[kernel]+0xffffffff81000010	??:0"
	assert_line --index 1 --regexp ' ret=-5 '
	run "$SYMTOOL" --info --kallsyms /nonexistent '[kernel]' 1
	assert_line --index 1 --regexp ' ret=-5 '
}

@test "vmlinux: DWARF for kernel addresses, shifted by kallsyms' _text" {
	cat >kern.c <<'EOF'
#include "fix.h"
__asm__(".text\n.globl _text\n.type _text,@function\n_text:\n");
__attribute__((noinline)) unsigned kwork(unsigned x)
{
	return middle(x, 3) + 1;
}
int main(int argc, char **argv)
{
	return (int)kwork((unsigned)argc);
}
EOF
	gcc -O2 -g -no-pie -Isrc/inc kern.c -o vmlinux
	text=$(nm vmlinux | awk '$3 == "_text" { print $1 }')
	kwork=$(nm vmlinux | awk '$3 == "kwork" { print $1 }')
	# KASLR moved the kernel by 16 MiB.
	printf '%x T _text\n%x T kwork\n' $((0x$text + 0x1000000)) \
		$((0x$kwork + 0x1000000)) >kallsyms
	objdump -d vmlinux | awk '/<kwork>:/ { f = 1; next } /^$/ { f = 0 }
		f && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' >addrs
	addr2line -a -i -f -e vmlinux <addrs | norm_addr2line >expected
	while read -r a; do
		printf '%x\n' $((0x$a + 0x1000000))
	done <addrs >kaddrs
	"$SYMTOOL" -a --vmlinux vmlinux --kallsyms kallsyms '[kernel]' \
		<kaddrs | norm_symtool vmlinux >actual
	run diff -u expected actual
	assert_success
	run grep -c '^middle$' actual
	assert_output --regexp '^[1-9][0-9]*$'
}

@test "anonymous code: one procedure per object ([anon]), the kernel's [unknown] per address" {
	run -0 "$SYMTOOL" --info '//anon' 7f0012345678 7f0012345999
	# every address the same procedure, starting at 0 (SYM_F_ANON)
	assert_line --index 0 "[anon]	??:0"
	assert_line --index 1 --regexp '^# flags=0x40 start=0x0 .* ret=0 '
	assert_line --index 2 "[anon]	??:0"
	run -0 "$SYMTOOL" --info '[anon:v8 code]' 7f0012345678
	assert_line --index 0 "[anon:v8 code]	??:0"
	# a stand-in for what the kernel could not place stays per address
	run "$SYMTOOL" --info '[unknown]' 7f0012345678
	assert_line --index 0 "[unknown]+0x7f0012345678	??:0"
}

@test "vdso: this process's image, same answers as addr2line on a copy" {
	"$SYMTOOL" --dump-vdso vdso.so || skip "no vdso"
	insn_addrs vdso.so >addrs
	# The vdso's PT_LOAD maps offset 0 at vaddr 0 on x86-64, so its
	# addresses are file offsets.  Aliases: addr2line takes the first
	# in table order (clock_gettime), symtool the global one
	# (__vdso_clock_gettime), so compare without the prefix.
	addr2line -a -i -f -e vdso.so <addrs | norm_addr2line |
		unwind_names vdso.so "" | sed 's/^__vdso_//' >expected
	"$SYMTOOL" -a '[vdso]' <addrs | norm_symtool '[vdso]' |
		sed 's/^__vdso_//' >actual
	unstretch expected actual >expected.norm
	run diff -u expected.norm actual
	assert_success
	run grep -c gettimeofday actual
	assert_output --regexp '^[1-9][0-9]*$'
}

@test "no leaks or memory errors under valgrind" {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	! nm "$SYMTOOL" 2>/dev/null | grep __asan_init >/dev/null ||
		skip "sanitizer build checks itself"
	cc_fix fix -O2 -g
	cc_lib libfix.so -O2 -g -gdwarf-4
	objcopy --only-keep-debug fix fix.debug
	strip -o fix-dl fix
	objcopy --add-gnu-debuglink=fix.debug fix-dl
	insn_addrs fix >addrs
	for obj in fix fix-dl libfix.so /nonexistent; do
		run valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite \
			"$SYMTOOL" --vaddr "$obj" $(head -300 addrs)
		assert_success
	done
	printf 'ffffffff81000000 T _text\nffffffffc0001000 t m [mod]\n' >ks
	run valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite \
		"$SYMTOOL" --kallsyms ks '[kernel]' ffffffff81000010 1
	assert_success
	run valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "$SYMTOOL" '[vdso]' 800
	assert_success
}

# check_plt OBJ: every stub objdump labels target@plt in OBJ is named so
# at its start and inside, and the block decoder takes it for a procedure
# of its own: from its label to the next label or its section's end.
check_plt() {
	local obj=$1 n=0 addr name got next end
	while read -r addr name next; do
		got=$("$SYMTOOL" --vaddr "$obj" "0x$addr")
		assert_equal "${got%%$'\t'*}" "$name"
		# an address inside the stub too
		got=$("$SYMTOOL" --vaddr "$obj" "$(printf '0x%x' $((0x$addr + 6)))")
		assert_equal "${got%%$'\t'*}" "$name"
		if [[ $next == .* ]]; then	# the last: its section's end
			end=$(readelf -SW "$obj" | sed 's/^ *\[ *[0-9]*\]//' |
				awk -v s="$next" '$1 == s { print $3, $5 }')
			end=$(printf '%x' $((0x${end% *} + 0x${end#* })))
		else
			end=$next
		fi
		run -0 "$BLOCKCHECK" --dump "$obj" "$(printf '0x%x' $((0x$addr + 6)))"
		assert_line --index 0 "$(printf 'procedure %s [0x%x,0x%x) ' \
			"$name" $((0x$addr)) $((0x$end)))${lines[0]#*) }"
		n=$((n + 1))
	done < <(objdump -d --no-show-raw-insn "$obj" | awk '
		function flush(next_) {
			if (label != "") print start, label, next_
			label = ""
		}
		/^Disassembly of section/ {
			flush(section); section = $4; sub(/:$/, "", section)
		}
		/^[0-9a-f]+ <.*>:$/ {
			flush($1)
			if ($2 ~ /@plt>:$/) {
				start = $1
				label = substr($2, 2, length($2) - 3)
			}
		}
		END { flush(section) }')
	((n >= 2)) || fail "only $n PLT stubs in $obj"
}

@test "PLT stubs are named target@plt, as objdump labels them, and are procedures of their own" {
	check_plt "$TPROG/spin2"
	# without IBT, .plt.got entries are 8 bytes
	cat >pg.c <<'EOF'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	printf("%zu %p %p\n", strlen(argv[0]), (void *)puts, (void *)strlen);
	return puts("") < 0;
}
EOF
	gcc -O1 -fcf-protection=none pg.c -o pg
	run -0 readelf -SW pg
	assert_line --regexp '\.plt\.got +PROGBITS +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ 08 '
	check_plt pg
}
