#!/usr/bin/env bats
# The call-stack views of a report: total% in the procedures view,
# -callers, -callees, -tree, --format folded, the completeness summary
# and report-time -ra.  The profiles are written by tests/tools/mkcallstacks
# with stacks known exactly, over the functions of the callstack test
# program (tests/programs/callstack.c): no sampling, so every figure is
# the construction's.

load helpers

MKCALLSTACKS=$ROOT/$BUILD/tests/mkcallstacks

# The construction, leaf first (900 samples with a stack, 100 without):
#   main -> a -> leaf            400 complete + 50 by frame pointers
#   main -> b -> leaf            200
#   main -> c -> mid (inlined into c) -> leaf   100
#   main -> rec -> rec -> rec -> leaf           100
#   [no unwind information] -> b -> leaf         50 truncated
#   a                            100 samples without a stack
setup() {
	common_setup
	run -0 "$MKCALLSTACKS" s.out "$TPROG/callstack" \
		400:complete:leaf,a,main 200:complete:leaf,b,main \
		100:complete:leaf,c@inline,main \
		100:complete:leaf,rec,rec,rec,main 50:fp:leaf,a,main \
		50:nocfi:leaf,b 100:nostack:a
	run -0 "$MKCALLSTACKS" plain.out "$TPROG/callstack" 100:nostack:a \
		50:nostack:leaf
}

# The lines of $output after the one that is exactly $1.
after() {
	awk -v h="$1" 'found { print } $0 == h { found = 1 }' <<<"$output"
}

@test "procedures: total% beside self, a procedure counted once per stack" {
	run -0 "$UPROFILE" -i s.out
	assert_output --partial "$(cat <<'END'
       %   samples  total%    cum% procedure                        object
   90.00       900   90.00   90.00 leaf                             callstack
   10.00       100   55.00  100.00 a                                callstack
END
)"
	run -0 "$UPROFILE" -i s.out --format json
	json_check <<<"$output"
	assert_equal "$(jq -c '[.rows[] | [.procedure, .total_percent]]' \
		<<<"$output")" '[["leaf",90],["a",55]]'
}

@test "procedures: without stacks the report is as before (no total%)" {
	run -0 "$UPROFILE" -i plain.out
	assert_output --partial "$(cat <<'END'
       %   samples    cum% procedure                        object
   66.67       100   66.67 a                                callstack
END
)"
	refute_output --partial "total%"
	refute_output --partial "call stacks"
	run -0 "$UPROFILE" -i plain.out --format json
	json_check <<<"$output"
	assert_equal "$(jq -c '.call_stacks, [.rows[] | has("total_percent")]' \
		<<<"$output")" $'null\n[false,false]'
}

@test "heading: completeness, truncation by reason and object" {
	run -0 "$UPROFILE" -i s.out
	assert_line "  call stacks (cpu-clock): 900 samples, 94.44% complete (reached _start/clone/thread entry), truncated: 5.56% (no unwind information in callstack 5.56%); 100 samples without a stack"
	run -0 "$UPROFILE" -i s.out --format json
	json_check <<<"$output"
	assert_equal "$(jq -c .call_stacks <<<"$output")" \
		'{"statistic":"cpu-clock","samples":900,"samples_without_stack":100,"complete_samples":850,"complete_percent":94.4444,"kernel_only_samples":0,"kernel_only_percent":0,"truncated":[{"reason":"no unwind information","object":"callstack","samples":50,"percent":5.5556}]}'
}

@test "heading: stacks of kernel frames only are neither complete nor truncated" {
	# kprofile -g records kernel frames only: none reaches _start.
	run -0 "$MKCALLSTACKS" k.out "$TPROG/callstack" 300:kernel:leaf,a \
		100:kernel:leaf
	run -0 "$UPROFILE" -i k.out
	assert_line "  call stacks (cpu-clock): 400 samples, 100.00% kernel frames only (a kernel thread's, or no user part recorded)"
	refute_output --partial "complete (reached"
	# Beside complete and truncated ones, each counted apart.
	run -0 "$MKCALLSTACKS" m.out "$TPROG/callstack" 300:kernel:leaf,a \
		100:complete:leaf,a,main 100:nocfi:leaf,b
	run -0 "$UPROFILE" -i m.out
	assert_line "  call stacks (cpu-clock): 500 samples, 20.00% complete (reached _start/clone/thread entry), 60.00% kernel frames only (a kernel thread's, or no user part recorded), truncated: 20.00% (no unwind information in callstack 20.00%)"
	run -0 "$UPROFILE" -i m.out --format json
	json_check <<<"$output"
	assert_equal "$(jq -c '.call_stacks | [.complete_samples, .kernel_only_samples, .kernel_only_percent, .truncated[0].samples]' <<<"$output")" \
		'[100,300,60,100]'
}

@test "-callers leaf: the constructed shares, an inlined caller marked" {
	run -0 "$UPROFILE" -i s.out -callers leaf
	assert_equal "$(after "callers, by cpu-clock:")" "$(cat <<'END'
leaf: total 90.00% (900 samples), self 90.00% (900 samples)
    share%   total%    samples  caller
     50.00    45.00        450  a
     27.78    25.00        250  b
     11.11    10.00        100  mid [inlined]
     11.11    10.00        100  rec
END
)"
	run -0 "$UPROFILE" -i s.out -callers 'lea*' --format json
	json_check <<<"$output"
	assert_equal "$(jq -c '.view, [.callers[] | .procedure, .samples,
		([.calls[] | [.procedure, .inlined, .samples, .share]])]' \
		<<<"$output")" \
		"$(printf '%s\n' '"callers"' \
		'["leaf",900,[["a",false,450,50],["b",false,250,27.7778],["mid",true,100,11.1111],["rec",false,100,11.1111]]]')"
}

@test "-callers/-callees rec: recursion shown, not counted twice" {
	run -0 "$UPROFILE" -i s.out -callers rec
	assert_equal "$(after "callers, by cpu-clock:")" "$(cat <<'END'
rec: total 10.00% (100 samples), self 0.00% (0 samples)
    share%   total%    samples  caller
    100.00    10.00        100  main
    100.00    10.00        100  rec [recursive]
END
)"
	run -0 "$UPROFILE" -i s.out -callees rec
	assert_equal "$(after "callees, by cpu-clock:")" "$(cat <<'END'
rec: total 10.00% (100 samples), self 0.00% (0 samples)
    share%   total%    samples  callee
    100.00    10.00        100  leaf
    100.00    10.00        100  rec [recursive]
END
)"
	run -0 "$UPROFILE" -i s.out -callees main --format json
	json_check <<<"$output"
	assert_equal "$(jq -c '[.callees[] | .percent, ([.calls[] |
		[.procedure, .share, .recursive]])]' <<<"$output")" \
		'[85,[["a",52.9412,false],["b",23.5294,false],["c",11.7647,false],["rec",11.7647,false]]]'
}

@test "-tree: structure, self and total, inlined and truncated frames" {
	run -0 "$UPROFILE" -i s.out -tree
	assert_equal "$(after "call tree from the roots, by cpu-clock:")" \
		"$(cat <<'END'
  (nodes below 0.50% pruned)
    total%    self%    samples  procedure
     85.00     0.00        850  main
     45.00     0.00        450    a
     45.00    45.00        450      leaf
     20.00     0.00        200    b
     20.00    20.00        200      leaf
     10.00     0.00        100    c
     10.00     0.00        100      mid [inlined]
     10.00    10.00        100        leaf
     10.00     0.00        100    rec
     10.00     0.00        100      rec
     10.00     0.00        100        rec
     10.00    10.00        100          leaf
      5.00     0.00         50  [truncated: no unwind information in callstack]
      5.00     0.00         50    b
      5.00     5.00         50      leaf
END
)"
}

@test "-tree: -quit N% prunes, -quit N keeps N children; JSON nested" {
	run -0 "$UPROFILE" -i s.out -tree -quit 15%
	assert_equal "$(after "call tree from the roots, by cpu-clock:")" \
		"$(cat <<'END'
  (nodes below 15.00% pruned)
    total%    self%    samples  procedure
     85.00     0.00        850  main  (2 more not shown)
     45.00     0.00        450    a
     45.00    45.00        450      leaf
     20.00     0.00        200    b
     20.00    20.00        200      leaf
  (1 more roots not shown)
END
)"
	run -0 "$UPROFILE" -i s.out -tree -quit 1
	assert_equal "$(after "call tree from the roots, by cpu-clock:")" \
		"$(cat <<'END'
  (nodes below 0.50% pruned)
    total%    self%    samples  procedure
     85.00     0.00        850  main  (3 more not shown)
     45.00     0.00        450    a
     45.00    45.00        450      leaf
  (1 more roots not shown)
END
)"
	run -0 "$UPROFILE" -i s.out -tree --format json
	json_check <<<"$output"
	assert_equal "$(jq -c '.view, .tree.threshold_percent,
		[.tree.roots[] | .procedure, .samples],
		[.tree.roots[0].children[2].children[0] | .procedure, .inlined,
		 .children[0].procedure, .children[0].self_samples]' \
		<<<"$output")" "$(printf '%s\n' '"tree"' 0.5 \
		'["main",850,"[truncated: no unwind information in callstack]",50]' \
		'["mid",true,"leaf",100]')"
}

@test "--format folded: one line per distinct stack, root first" {
	run -0 --separate-stderr "$UPROFILE" -i s.out --format folded
	assert_output "$(cat <<'END'
[no stack];a 100
[truncated: no unwind information in callstack];b;leaf 50
main;a;leaf 450
main;b;leaf 200
main;c;mid_[i];leaf 100
main;rec;rec;rec;leaf 100
END
)"
	assert_equal "$stderr" ""
	# What a consumer of the format relies on: the count after the last
	# space, the counts summing to the report's total samples (the 100
	# taken without a stack stand on "[no stack]").
	assert_equal "$(awk '{ n += $NF } END { print n }' <<<"$output")" 1000
}

@test "--format folded: a real consumer reads it" {
	command -v flamegraph.pl >/dev/null ||
		skip "flamegraph.pl is not installed (Debian 12 does not package it)"
	run -0 "$UPROFILE" -i s.out --format folded
	echo "$output" >out.folded
	run -0 flamegraph.pl out.folded
	assert_output --partial "<svg"
}

@test "-ra at report time: samples charged to the first caller outside" {
	run -0 "$UPROFILE" -i s.out -inline -ra 'le*,nothing'
	assert_line "  -ra: 900 samples in utility routines were charged to their first caller outside them, from the call stacks (le*,nothing; 2 patterns)"
	assert_output --partial "$(cat <<'END'
       %   samples  total%    cum% procedure                        object
   55.00       550   55.00   55.00 a                                callstack
   25.00       250   25.00   80.00 b                                callstack
   10.00       100   10.00   90.00 mid [inlined into c]             callstack
   10.00       100   10.00  100.00 rec                              callstack
END
)"
	run -0 "$UPROFILE" -i s.out -ra leaf --format json
	json_check <<<"$output"
	assert_equal "$(jq -c .caller_attribution <<<"$output")" \
		'{"routines":"leaf","moved_samples":900,"from":"stacks"}'
	# kprofile's record-time options answer a report the same way.
	run -0 "$KPROFILE" -i s.out -ra-routines leaf
	assert_line "  -ra: 900 samples in utility routines were charged to their first caller outside them, from the call stacks (leaf; 1 pattern)"
}

@test "views of a profile without stacks: one line, status 125" {
	local v what
	for v in -tree "-callers leaf" "-callees a" "--format folded"; do
		what=${v% *}
		[[ $v == --format* ]] && what=$v
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$UPROFILE" -i plain.out $v
		assert_equal "$output" ""
		assert_equal "$stderr" "uprofile: 'plain.out' has no call stacks (profile with -g): $what needs them"
	done
	run -125 --separate-stderr "$UPROFILE" -i plain.out -ra leaf
	assert_equal "$stderr" "uprofile: 'plain.out' has no call stacks (profile with -g): -ra at report time needs them"
	run -125 --separate-stderr "$KPROFILE" -i plain.out -tree
	assert_equal "$stderr" "kprofile: 'plain.out' has no call stacks (profile with -g): -tree needs them"
}

@test "bad combinations and names: one line, status 125" {
	run -125 --separate-stderr "$UPROFILE" -i s.out -callers nosuch
	assert_equal "$stderr" "uprofile: -callers 'nosuch': no procedure in the call stacks matches"
	run -125 --separate-stderr "$UPROFILE" -i s.out -tree -lines
	assert_equal "${stderr%%$'\n'*}" "uprofile: -callers, -callees and -tree show procedures: -lines, -heavy, -blocks, -asm and -stride do not apply"
	run -125 --separate-stderr "$UPROFILE" -i s.out -ra leaf --format folded
	assert_equal "${stderr%%$'\n'*}" "uprofile: -ra charges the rows' samples to callers; --format folded exports the call stacks as taken: give one or the other"
	run -125 --separate-stderr "$UPROFILE" -i s.out -tree --format folded
	assert_equal "${stderr%%$'\n'*}" "uprofile: --format folded writes every stack: -callers, -callees and -tree do not apply"
	run -125 --separate-stderr "$UPROFILE" -ra memcpy true
	assert_equal "${stderr%%$'\n'*}" "uprofile: -ra PROCS is answered from the call stacks of a profile: give it with -i FILE"
	run -125 --separate-stderr "$UPROFILE" -i s.out --format svg
	assert_equal "${stderr%%$'\n'*}" "uprofile: bad format 'svg': use text, json, csv, folded, pprof, flamegraph, callgrind, speedscope or firefox"
}
