#!/usr/bin/env bats
# The sim engine across process lifecycles: every instruction of every
# process image counted once, or the run says what is missing.

load helpers

setup() {
	common_setup
	command -v valgrind >/dev/null ||
		skip "valgrind is not installed (./setup.sh deps installs it)"
}

# counts FILE: "procedure count" of execchain's loops, sorted.
counts() {
	"$UPROFILE" -i "$1" --format json | jq -r '[.rows[]
		| select(.procedure | test("^(top|mid|leaf)_(before|child|after)$"))]
		| group_by(.procedure)[]
		| "\(.[0].procedure) \(map(.weight.retinst) | add)"'
}

# expected N [PROC...]: execchain's exact counts (its source: the K-th of
# top_before, top_child, ... leaf_after runs 2*K*N+1 instructions).
expected() {
	local n=$1 k=0 p
	shift
	for p in top_before top_child top_after mid_before mid_child \
		mid_after leaf_before leaf_child leaf_after; do
		k=$((k + 1))
		if (($# == 0)) || [[ " $* " == *" $p "* ]]; then
			echo "$p $((2 * k * n + 1))"
		fi
	done | sort
}

@test "sim: a make-like chain of forks and execs: each loop counted once, exactly" {
	local n
	for n in 1000 37; do
		run -0 --separate-stderr "$UPROFILE" --engine=sim -quiet \
			-o "chain$n.out" "$TPROG/execchain" "$n"
		assert_equal "$stderr" ""
		# top_child and mid_child run between a fork and an exec; the
		# pid of top's child dumps at its exec, then again as mid at
		# its fork; the static leaf forks without the dynamic libc
		assert_equal "$(counts "chain$n.out")" "$(expected "$n")"
	done
	# the code run before each exec is placed too (execl@plt has only a
	# runtime address in valgrind's output: its parent's log places it)
	run -0 "$UPROFILE" -i chain37.out --format json
	assert_equal "$(jq '[.rows[] | select(.object == "[unknown]")] | length' <<<"$output")" 0
	run -0 jq -r '.rows[] | select(.procedure == "execl@plt") | .object' <<<"$output"
	assert_output "$TPROG/execchain"
}

@test "sim -pids: each process image's loops in its own process, none repeated" {
	run -0 --separate-stderr "$UPROFILE" --engine=sim -quiet -pids \
		-o chain.out "$TPROG/execchain" 100
	assert_equal "$stderr" ""
	local f got=()
	for f in chain.*.out; do
		got+=("$(counts "$f" | cut -d' ' -f1 | paste -sd,)")
		# every count of a process is its own: exact, never doubled
		run -0 join -v1 <(counts "$f") <(expected 100)
		assert_output ""
		# each process names the command it ran last
		if [[ ${got[-1]} == *top_before* ]]; then
			run -0 "$UPROFILE" -i "$f" --format json
			assert_equal "$(jq -c .command <<<"$output")" "[\"$TPROG/execchain\",\"100\"]"
		fi
	done
	# by process: top; top's child (then mid); mid's child (then the
	# static leaf); leaf's child
	assert_equal "$(printf '%s\n' "${got[@]}" | sort | paste -sd' ')" \
		"leaf_after,leaf_before,mid_child leaf_child mid_after,mid_before,top_child top_after,top_before"
}

@test "sim: a fork or exec valgrind cannot see coming is reported, not silently lost or repeated" {
	# stripped static programs: no _Fork, no execve to dump at.  The
	# leaf's child repeats what the leaf ran before its fork.
	EXECCHAIN_LEAF=execchain-static-stripped run -0 --separate-stderr \
		"$UPROFILE" --engine=sim -quiet -o leaf.out "$TPROG/execchain" 100
	assert_regex "$stderr" "^uprofile: warning: not counted exactly: process [0-9]+ \('execchain-static-stripped'\): its counts repeat what its parent \(process [0-9]+\) ran from its last dump to the fork \(a fork valgrind did not see coming\)$"
	# the named programs are still exact
	assert_equal "$(counts leaf.out)" "$(expected 100 top_before top_child top_after mid_before mid_child mid_after)"
	# a stripped mid: its child's fork and exec are both unseen, so what
	# it ran before exec'ing the leaf is missing
	EXECCHAIN_MID=execchain-static-stripped run -0 --separate-stderr \
		"$UPROFILE" --engine=sim -quiet -o mid.out "$TPROG/execchain" 100
	assert_regex "$stderr" "^uprofile: warning: not counted exactly: process [0-9]+: what it ran from its fork until it exec'd 'execchain-static' is missing \(an exec valgrind did not see coming\)$"
	assert_equal "$(counts mid.out)" "$(expected 100 top_before top_child top_after leaf_before leaf_child leaf_after)"
}

@test "-pixie -pids: each sampled process gets the exact counts of the valgrind run's process with its arguments, whatever the pid order" {
	# Two leaves, started in the opposite order under valgrind (its
	# preload library is in LD_PRELOAD there), as timing reorders the
	# jobs of make -j: pid order pairs the wrong ones.  They are found
	# through PATH (valgrind names the file exec'd, the sampled run
	# argv[0]) and linger before their loops, long enough for their
	# arguments to be read.
	cat >order.sh <<'SH'
PATH=${1%/*}:$PATH
if [[ $LD_PRELOAD == *vgpreload* ]]; then
	execchain leaf 300 & execchain leaf 100 &
else
	execchain leaf 100 & execchain leaf 300 &
fi
wait
SH
	EXECCHAIN_LINGER_MS=1000 run -0 --separate-stderr "$UPROFILE" -quiet \
		-e cpu-clock -pixie -pids -o o.out bash order.sh "$TPROG/execchain"
	assert_equal "$stderr" ""
	local f got=()
	for f in o.*.out; do
		got+=("$("$UPROFILE" -i "$f" --format json | jq -r '
			(.command | .[0] |= sub("^.*/"; "") | join(" ")) + ": " + ([.rows[]
			| select(.procedure | test("^leaf_"))
			| "\(.procedure) \(.weight.retinst)"] | sort | join(", "))')")
	done
	run sort < <(printf '%s\n' "${got[@]}")
	# each leaf's parent and child (the same arguments) have its counts
	assert_output - < <(sort <<OUT
bash order.sh $TPROG/execchain: 
execchain leaf 100: $(expected 100 leaf_before leaf_after | paste -sd, | sed 's/,/, /')
execchain leaf 300: $(expected 300 leaf_before leaf_after | paste -sd, | sed 's/,/, /')
execchain leaf 100: $(expected 100 leaf_child)
execchain leaf 300: $(expected 300 leaf_child)
OUT
)
}

@test "-pixie -pids: a script (its interpreter to the sampled run, itself to valgrind) still gets its counts, with a warning" {
	printf '#!/bin/sh\n"$1" leaf 100\n' >leaf.sh
	chmod +x leaf.sh
	EXECCHAIN_LINGER_MS=300 run -0 --separate-stderr "$UPROFILE" -quiet \
		-e cpu-clock -pixie -pids -o s.out sh -c './leaf.sh "$0"' \
		"$TPROG/execchain"
	assert_regex "$stderr" "^uprofile: warning: -pixie -pids: 1 process\(es\) paired with the valgrind run's by birth order, not by command line \("
	local f n=0
	for f in s.*.out; do
		"$UPROFILE" -i "$f" --format json | jq -e '[.rows[]
			| select(.procedure | test("^leaf_")) | .weight.retinst]
			| length > 0' >/dev/null && n=$((n + 1))
	done
	# the leaf and its child
	((n == 2)) || fail "$n processes with leaf counts"
	run -0 bash -c 'for f in s.*.out; do "$0" -i "$f" --format json; done |
		jq -r ".rows[] | select(.procedure | test(\"^leaf_\")) |
		\"\(.procedure) \(.weight.retinst)\"" | sort' "$UPROFILE"
	assert_output "$(expected 100 leaf_before leaf_child leaf_after)"
}
