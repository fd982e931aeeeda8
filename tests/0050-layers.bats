#!/usr/bin/env bats
# Layers: the include graph (and, in a built tree, the calls between
# objects and the names they export) follows docs/layers.txt, so a
# backward dependency, an unprefixed global name or two files of the
# library calling each other fails CI; and docs/architecture.md names
# every .c file of the library in its layer's row.
# The checker itself is tested on small trees made here, so the first
# test cannot pass vacuously.

load helpers

CHECK=$ROOT/tools/check-layers.py

@test "the tree follows docs/layers.txt: includes, calls, exported names, no call circles, every file in docs/architecture.md" {
	[ -d "$ROOT/$BUILD/obj" ] || skip "no objects in $BUILD/obj: run make first"
	run python3 "$CHECK" --objects "$ROOT/$BUILD/obj" \
		--doc "$ROOT/docs/architecture.md" "$ROOT"
	assert_success	# (not run -0: assert_success prints the offending lines)
	assert_output --regexp '^layers: ok \([0-9]+ files, [0-9]+ layers\)$'
}

# fixture: a tree with two layers, low and high; high may include low.
fixture() {
	mkdir -p t/low t/high t/docs
	printf 'low:  low/\nhigh: high/ -> low\n' >t/docs/layers.txt
	printf '#include "low/a.h"\n' >t/high/b.c
	printf 'int a(void);\n' >t/low/a.h
	printf 'int a(void) { return 0; }\n' >t/low/a.c
}

@test "check-layers: a downward include passes" {
	fixture
	run -0 python3 "$CHECK" -I. t
	assert_output "layers: ok (3 files, 2 layers)"
}

@test "check-layers: a backward include fails, naming the file, line and include" {
	fixture
	printf '/* x */\n#include "high/b.h"\n' >>t/low/a.c
	printf '\n' >t/high/b.h
	run -1 python3 "$CHECK" -I. t
	assert_output - <<-'OUT'
	layers: low/a.c:3: includes "high/b.h": layer 'low' may not include layer 'high' ('low' may include: nothing)
	layers: 1 problem(s); the layers are declared in docs/layers.txt
	OUT
}

@test "check-layers: an include of no file of the tree fails" {
	fixture
	printf '#include "low/gone.h"\n' >>t/high/b.c
	run -1 python3 "$CHECK" -I. t
	assert_line --index 0 'layers: high/b.c:2: includes "low/gone.h", which is no file of the tree (-I.)'
}

@test "check-layers: a file in no layer fails" {
	fixture
	mkdir t/other && printf '\n' >t/other/c.c
	run -1 python3 "$CHECK" -I. t
	assert_line --index 0 'layers: other/c.c: in no layer (add its directory to the layers file)'
}

@test "check-layers: a layer may only include layers declared below it" {
	fixture
	printf 'low:  low/ -> high\nhigh: high/\n' >t/docs/layers.txt
	run -2 python3 "$CHECK" -I. t
	assert_output "layers: t/docs/layers.txt:1: layer 'low' may include 'high', which is not declared above it (layers go bottom to top)"
}

@test "check-layers: a call across layers hidden by a shared header fails with --objects" {
	fixture
	# b.h declares a function of high; low calls it without including
	# anything of high (what frontend_int.h did for four files).
	printf 'int b(void);\nint a(void) { return b(); }\n' >t/low/a.c
	printf 'int b(void) { return 1; }\n' >t/high/b.c
	mkdir -p obj/low obj/high
	cc -c -o obj/low/a.o t/low/a.c
	cc -c -o obj/high/b.o t/high/b.c
	run -1 python3 "$CHECK" -I. --objects obj t
	assert_output - <<-'OUT'
	layers: low/a.c: uses b of high/b.c: layer 'low' may not use layer 'high'
	layers: 1 problem(s); the layers are declared in docs/layers.txt
	OUT
}

@test "check-layers: a global name without a prefix of its layer fails with --objects" {
	fixture
	printf 'prefixes low: low_ lo_\n' >>t/docs/layers.txt
	# Only helper and count lack a prefix: quiet is static, and high
	# declares no prefixes, so its b is not checked.
	cat >t/low/a.c <<-'C'
	static int quiet(void) { return 0; }
	int count;
	int low_a(void) { return quiet() + count; }
	int
	helper(void)
	{
		return 1;
	}
	const int lo_max = 2;
	C
	printf 'int b(void) { return 1; }\n' >t/high/b.c
	mkdir -p obj/low obj/high
	cc -c -o obj/low/a.o t/low/a.c
	cc -c -o obj/high/b.o t/high/b.c
	run -1 python3 "$CHECK" -I. --objects obj t
	assert_output - <<-'OUT'
	layers: low/a.c:2: exports 'count' without a prefix of layer 'low' (low_ lo_)
	layers: low/a.c:5: exports 'helper' without a prefix of layer 'low' (low_ lo_)
	layers: 2 problem(s); the layers are declared in docs/layers.txt
	OUT
}

@test "check-layers: prefixes name a layer declared above them" {
	fixture
	printf 'prefixes low: low_\nprefixes mid: mid_\n' >>t/docs/layers.txt
	run -2 python3 "$CHECK" -I. t
	assert_output "layers: t/docs/layers.txt:4: prefixes of 'mid', which is no layer declared above"
}

@test "check-layers: two files of a layer calling each other fail with --objects, naming the files and symbols" {
	fixture
	printf 'prefixes low: low_\n' >>t/docs/layers.txt
	# a.c and c.c each call the other: a circle the include graph does
	# not show (each declares what it calls itself).
	printf 'int low_c(void);\nint low_a(void) { return low_c(); }\n' >t/low/a.c
	printf 'int low_a(void);\nint low_c(void) { return 1; }\nint low_d(void) { return low_a(); }\n' >t/low/c.c
	mkdir -p obj/low obj/high
	cc -c -o obj/low/a.o t/low/a.c
	cc -c -o obj/low/c.o t/low/c.c
	run -1 python3 "$CHECK" -I. --objects obj t
	assert_output - <<-'OUT'
	layers: low/a.c, low/c.c: call each other (low/a.c -> low/c.c: low_c; low/c.c -> low/a.c: low_a): move what both need into a file below them
	layers: 1 problem(s); the layers are declared in docs/layers.txt
	OUT
	# Moved below both, the circle is gone.
	printf 'int low_c(void);\nint low_a(void) { return low_c(); }\n' >t/low/a.c
	printf 'int low_c(void) { return 1; }\n' >t/low/c.c
	cc -c -o obj/low/a.o t/low/a.c
	cc -c -o obj/low/c.o t/low/c.c
	run -0 python3 "$CHECK" -I. --objects obj t
}

@test "check-layers: a .c file of the library its layer's row of the doc does not name fails with --doc" {
	fixture
	printf 'prefixes low: low_\n' >>t/docs/layers.txt
	cat >t/docs/arch.md <<-'MD'
	# Arch

	## The layers, bottom to top

	| layer | directory | holds |
	|---|---|---|
	| low | `low/` | the one function (`a.c`) |
	| high | `high/` | nothing named: no prefixes, not checked |
	MD
	run -0 python3 "$CHECK" -I. --doc t/docs/arch.md t
	printf 'int low_e(void) { return 0; }\n' >t/low/e.c
	run -1 python3 "$CHECK" -I. --doc t/docs/arch.md t
	assert_output - <<-'OUT'
	layers: low/e.c: not named in t/docs/arch.md:7, the row of layer 'low' (say what it holds, with `e.c`)
	layers: 1 problem(s); the layers are declared in docs/layers.txt
	OUT
	sed -i '/^| low /d' t/docs/arch.md
	run -1 python3 "$CHECK" -I. --doc t/docs/arch.md t
	assert_line --index 0 "layers: t/docs/arch.md: no row for layer 'low' in the table of layers"
}
