#!/usr/bin/env bats
# Layers: the include graph (and, in a built tree, the calls between
# objects and the names they export) follows docs/layers.txt, so a
# backward dependency or an unprefixed global name fails CI.
# The checker itself is tested on small trees made here, so the first
# test cannot pass vacuously.

load helpers

CHECK=$ROOT/tools/check-layers.py

@test "the tree follows docs/layers.txt: includes, calls and exported names" {
	[ -d "$ROOT/$BUILD/obj" ] || skip "no objects in $BUILD/obj: run make first"
	run python3 "$CHECK" --objects "$ROOT/$BUILD/obj" "$ROOT"
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
