#!/usr/bin/env bats
# Names in reports: IFUNC PLT stubs, names cut to fit a column, -asm's
# locations whose source is missing, and one name for the same code in
# every view.

load helpers

skip_unless_binutils() {
	command -v objdump >/dev/null && command -v nm >/dev/null ||
		skip "objdump or nm (binutils) is missing"
}

# ifunc_stub PROGRAM: print "STUB RESOLVER" (hex, no 0x), the address of
# the PLT stub ifunc_caller calls ifunc_step through, and the addend of
# its slot's IRELATIVE relocation (the resolver's address).  (Whole
# outputs are read: an awk that stopped early would fail its writer.)
ifunc_stub() {
	local prog=$1 dis relocs stub slot resolver
	dis=$(objdump -d --no-show-raw-insn "$prog") || return 1
	relocs=$(readelf -rW "$prog") || return 1
	stub=$(awk '/<ifunc_caller>:/ { f = 1; next }
		f && /^$/ { f = 0 }
		f && $2 == "call" && $4 !~ /clock_gettime/ && !s { s = $3 }
		END { print s }' <<<"$dis")
	[[ -n $stub ]] || fail "no call to the stub in ifunc_caller"
	# the stub's "jmp *OFF(%rip)  # SLOT": objdump gives the slot
	slot=$(awk -v s="$stub" '$1 == s ":" && $2 == "jmp" { print $5 }' <<<"$dis")
	[[ -n $slot ]] || fail "stub $stub is no jmp through a slot"
	resolver=$(awk -v s="$slot" '$3 == "R_X86_64_IRELATIVE" &&
		$1 ~ ("^0*" s "$") { print $4 }' <<<"$relocs")
	[[ -n $resolver ]] || fail "slot $slot has no IRELATIVE relocation"
	echo "$stub $resolver"
}

@test "IFUNC PLT stub: named after the IFUNC at its resolver, where objdump says *ABS*+0xRESOLVER@plt" {
	skip_unless_binutils
	[[ $(uname -m) == x86_64 ]] || skip "the test reads x86-64 relocations"
	local prog stub resolver ifunc
	for prog in ifunc ifunc-static; do
		run -0 ifunc_stub "$TPROG/$prog"
		read -r stub resolver <<<"$output"
		# the symbol of type i (GNU indirect function) at the resolver
		run -0 nm "$TPROG/$prog"
		ifunc=$(awk -v r="$resolver" '$2 == "i" && $1 ~ ("^0*" r "$") { print $3 }' <<<"$output")
		assert_equal "$ifunc" ifunc_step
		if [[ $prog == ifunc ]]; then
			# objdump labels the PIE's stub after the addend
			run -0 objdump -d "$TPROG/$prog"
			assert_line --regexp "^0*$stub <\*ABS\*\+0x$resolver@plt>:\$"
		fi
		run -0 "$TPROG/symtool" --vaddr "$TPROG/$prog" "0x$stub" \
			"0x$(printf %x $((0x$stub + 6)))"
		assert_equal "$output" "ifunc_step@plt	??:0
ifunc_step@plt	??:0"
	done
}

@test "libc's own IFUNC PLT stubs: named after the exported IFUNC at the resolver" {
	skip_unless_binutils
	local libc dis syms stub resolver name names checked=0
	libc=$(ldd "$TPROG/ifunc" | awk '$1 ~ /^libc\.so/ { print $3 }')
	[[ -r $libc ]] || skip "no libc.so found by ldd"
	dis=$(objdump -d "$libc")
	syms=$(readelf -W --dyn-syms "$libc")
	# objdump's "*ABS*+0xRESOLVER@plt" stubs, the first 5
	while read -r stub resolver; do
		run -0 "$TPROG/symtool" --vaddr "$libc" "0x$stub"
		name=${output%%$'\t'*}
		# the dynamic symbols of type IFUNC at the resolver
		names=$(awk -v r="$resolver" '$4 == "IFUNC" && $2 ~ ("^0*" r "$") {
			sub(/@.*/, "", $8); print $8 }' <<<"$syms")
		[[ -n $names ]] || continue
		[[ $name == *@plt ]] || fail "stub $stub: $name"
		grep -Fx -- "${name%@plt}" <<<"$names" >/dev/null ||
			fail "stub $stub ($resolver): $name, not one of: $names"
		((++checked < 5)) || break
	done < <(sed -nE 's/^0*([0-9a-f]+) <\*ABS\*\+0x([0-9a-f]+)@plt>:$/\1 \2/p' <<<"$dis")
	((checked > 0)) || skip "this libc has no IFUNC PLT stubs"
}

@test "IFUNC PLT stub: its samples, -asm's call and call stacks name it ifunc_step@plt" {
	local prog
	for prog in ifunc ifunc-static; do
		# a one-jump stub gets 0.06-0.8% of the samples (where a
		# timer interrupt lands next to a jump depends on the CPU and
		# the load): one every 250 us for 5 s (20000 samples; a period,
		# which the kernel's rate limit does not refuse) expects 12 or
		# more there, none with odds below 1e-5
		profile_of "$prog" -g -c 250000 "$TPROG/$prog" 5000
		run -0 "$UPROFILE" -i "$prog.out" -format json
		local k
		k=$(jq '[.rows[] | select(.procedure == "ifunc_step@plt") | .samples["cpu-clock"]] | add // 0' <<<"$output")
		((k > 0)) || fail "$prog: no samples in ifunc_step@plt: $output"
		refute_output --partial '"procedure": "'"$prog"'+0x'
		run -0 "$UPROFILE" -i "$prog.out" -asm -only ifunc_caller
		assert_output --regexp 'call 0x[0-9a-f]+ <ifunc_step@plt>'
		# the stub is a jump without a frame: its caller is ifunc_caller
		# (the static program's .plt has no CFI, and frame pointers
		# would skip the caller of code that has not pushed one: the
		# unwinder knows the stubs' shape)
		run -0 "$UPROFILE" -i "$prog.out" -callers 'ifunc_step@plt'
		assert_line --regexp '^ifunc_step@plt: total '
		assert_line --regexp '^ +100\.00 +[0-9.]+ +[0-9]+ +ifunc_caller$' 
	done
}

# long_name_prog: build ./longname, whose hot function's name is
# "fn_" and 300 times "é" (603 bytes, more than a text report's name
# column holds), called from main through the noinline long_caller.
long_name_prog() {
	LONG=fn_$(printf 'é%.0s' {1..300})
	cat >longname.c <<C
#include <stdint.h>
#include <time.h>
volatile uint64_t sink;
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
__attribute__((noinline, noclone)) void $LONG(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns, x = 1;
	do {
		for (int i = 0; i < 12000; i++) {
			x = x * 6364136223846793005ull + 1;
			__asm__ volatile("" : "+r"(x));
		}
	} while (cpu_ns() < end);
	sink = x;
}
__attribute__((noinline, noclone)) void long_caller(void)
{
	$LONG(300000000u);
	sink++;
}
int main(void)
{
	long_caller();
	return 0;
}
C
	run -0 cc -O1 -g -fno-omit-frame-pointer -o longname longname.c
}

@test "text reports end a name cut to fit with ..., whole UTF-8 characters; JSON and CSV keep it whole" {
	skip_unless_perf_works
	long_name_prog
	run -0 "$UPROFILE" -quiet -g -e cpu-clock -o long.out ./longname
	local cut=${LONG:0:200}
	# -procedures, -lines: the name, cut, then "..." and the object
	for view in -procedures -lines; do
		run -0 "$UPROFILE" -i long.out "$view"
		assert_output --partial "$cut"
		assert_output --regexp "$cut(é)*\.\.\. +longname"
		refute_output --partial '\x'
		refute_output --partial "$LONG"
	done
	# the call-stack views: callers and the tree
	run -0 "$UPROFILE" -i long.out -tree
	assert_output --regexp "  $cut(é)*\.\.\."
	refute_output --partial '\x'
	run -0 "$UPROFILE" -i long.out -callees long_caller
	assert_output --regexp "  $cut(é)*\.\.\."
	refute_output --partial '\x'
	# a heading has no column to fit: -callers' and -asm's show it whole
	run -0 "$UPROFILE" -i long.out -callers "fn_*"
	assert_line --partial "$LONG: total "
	run -0 "$UPROFILE" -i long.out -asm -only "fn_*"
	assert_output --partial "$LONG (longname)"
	# JSON and CSV never cut a name
	run -0 "$UPROFILE" -i long.out -format json
	assert_equal "$(jq -r --arg n "$LONG" '[.rows[] | select(.procedure == $n)] | length' <<<"$output")" 1
	run -0 "$UPROFILE" -i long.out -format csv
	assert_output --partial ",$LONG,"
}

@test "--diff: a ratio's name cut to its column ends with ..." {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	run -0 "$UPROFILE" --engine=sim -quiet -e retinst,condmispredict_per_ret \
		-o base.out "$TPROG/evencost" 200000
	cp base.out new.out
	run -0 "$UPROFILE" --diff base.out new.out -v
	# condmispredict_per_ret is 22 characters, its column 17
	assert_line --regexp '^ +base% +new% +change +p\(Holm\) +condmispredict\.\.\. procedure$'
}

@test "-asm keeps file:line where the source file is missing, and says so once" {
	skip_unless_perf_works
	mkdir src
	cp "$ROOT/tests/programs/spin2.c" src/
	run -0 cc -O1 -g -fno-omit-frame-pointer -o spin2 src/spin2.c
	run -0 "$UPROFILE" -quiet -e cpu-clock -o spin.out ./spin2 300
	# with the source: line 45 with its text
	run -0 "$UPROFILE" -i spin.out -asm -only hot_a
	assert_line --regexp '^ +spin2\.c:45:[[:space:]]+for \(int i = 0; i < CHUNK; i\+\+\)'
	refute_output --partial "is missing"
	local with=$output
	mv src moved
	run -0 "$UPROFILE" -i spin.out -asm -only hot_a
	# the same locations, in the same places, without the text
	assert_line --regexp '^ +spin2\.c:45:$'
	assert_equal "$(grep -c 'spin2\.c:[0-9]*:' <<<"$output")" \
		"$(grep -c 'spin2\.c:[0-9]*:' <<<"$with")"
	# one line says which file is missing
	assert_equal "$(grep -c 'is missing' <<<"$output")" 1
	assert_line "  note: source file $PWD/src/spin2.c is missing: its lines are shown by location only"
}

# view_procs PROFILE OBJECT VIEW...: the names of OBJECT's procedures in
# a JSON report of VIEW, one a line, sorted, once each: the out-of-line
# procedure of each row (a line row's inlined_into when it has one).
view_procs() {
	local prof=$1 obj=$2
	shift 2
	run -0 "$UPROFILE" -i "$prof" --format json -quit 100000 "$@"
	jq -r --arg o "$obj" '.rows[] | select(.object | endswith("/" + $o)) |
		.inlined_into // .procedure' <<<"$output" | sort -u
}

@test "one name for the same code in -procedures, -lines, -asm and -blocks (PLT header, stubs, inlined code)" {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	# lazily bound, so the PLT's header (the resolver's call, no symbol)
	# runs once per function called through the PLT
	cat >views.c <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
volatile uint64_t sink;
static inline __attribute__((always_inline)) uint64_t mix(uint64_t x)
{
	for (int i = 0; i < 200; i++)
		x = x * 6364136223846793005ull + 1;
	return x;
}
__attribute__((noinline)) uint64_t work(uint64_t x, const char *s)
{
	return mix(x) + strlen(s) + (uint64_t)atoi(s);
}
int main(int argc, char **argv)
{
	uint64_t x = 1;
	for (int i = 0; i < 2000; i++)
		x = work(x, argv[0]);
	sink = x;
	return 0;
}
C
	run -0 cc -O2 -g -fno-omit-frame-pointer -Wl,-z,lazy -o views views.c
	run -0 "$UPROFILE" --engine=sim -quiet -o views.out ./views
	local procs
	procs=$(view_procs views.out views -procedures)
	# the cases are there: the header, stubs, code with inlined code
	assert_equal "$(grep -cx '\.plt' <<<"$procs")" 1
	grep -x 'strlen@plt' <<<"$procs" >/dev/null || fail "no strlen@plt: $procs"
	grep -x work <<<"$procs" >/dev/null || fail "no work: [$procs]"
	# nothing named after an address
	[[ $procs != *views+0x* ]] || fail "code named by address: $procs"
	local view
	for view in -lines -heavy -asm -blocks "-procedures -inline"; do
		# shellcheck disable=SC2086 # the view may be two words
		assert_equal "$(view_procs views.out views $view)" "$procs"
	done
}

@test "call stacks name each frame as the procedure rows do" {
	skip_unless_perf_works
	profile_of plt-stacks -g "$TPROG/plt" 600
	local procs tree
	procs=$(view_procs plt-stacks.out plt -procedures)
	# every out-of-line frame of the tree with samples of its own is a
	# procedure row, under the same name
	run -0 "$UPROFILE" -i plt-stacks.out --format json -tree -quit 0%
	tree=$(jq -r '[.tree.roots[] | recurse(.children[]?) |
		select(.inlined | not) | select(.self_samples > 0) |
		.procedure] | unique[]' <<<"$output")
	local all
	run -0 "$UPROFILE" -i plt-stacks.out --format json
	all=$(jq -r '.rows[].procedure' <<<"$output" | sort -u)
	while read -r name; do
		grep -Fx -- "$name" <<<"$all" >/dev/null ||
			fail "tree frame '$name' is no procedure row: $all"
	done <<<"$tree"
	grep -x 'lib_tiny@plt' <<<"$procs" >/dev/null || fail "no lib_tiny@plt: $procs"
}
