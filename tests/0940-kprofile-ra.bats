#!/usr/bin/env bats
# kprofile -ra / -ra-routines: samples in kernel utility routines (copy,
# clear, locks) are charged to their callers, found through kernel call
# chains; the report says how many were moved.
#
# Workload: reading a 200 MB file that is in the page cache, 12 times on
# every CPU at once (an idle CPU's samples would be in whatever halt
# routine the hypervisor has): nearly all kernel time is in the copy to
# user space (_copy_to_iter on this kernel), called from
# copy_page_to_iter, from filemap_read.

load helpers

setup_file() {
	BIG=$BATS_FILE_TMPDIR/big
	head -c 200M /dev/zero >"$BIG"
	cat "$BIG" >/dev/null
	export BIG
	# Workload with "$1" the file, on every CPU.
	local c cpus=""
	for c in $(online_cpus); do
		cpus+="$c "
	done
	export READ_BIG="for c in $cpus; do taskset -c \$c sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat \"\$1\" >/dev/null; done' sh \"\$1\" & done; wait"
}

teardown_file() {
	rm -f "$BIG"
}


# share PROC: PROC's percent of the samples outside idle loops and
# interrupt-enable points (busy_share, helpers.bash).
share() {
	busy_share "$1"
}

# ge A B: A >= B (decimal numbers).
ge() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

profile_plain() {
	run -0 "$KPROFILE" -quiet -e cpu-clock -o plain.out sh -c "$READ_BIG" sh "$BIG"
}

@test "without -ra: the copy routine holds the samples; no caller attribution" {
	skip_unless_perf_works
	profile_plain
	kjson plain.out
	local r
	r=$(top_busy)
	# Whatever this kernel calls it, it is a copy routine.
	[[ $r == *copy* || $r == *memcpy* || $r == *movs* ]] ||
		fail "the hottest procedure of reading a cached file is '$r', not a copy routine"
	ge "$(share "$r")" 30 || fail "$r has only $(share "$r")%"
	assert_equal "$(jq -r .caller_attribution <<<"$json")" null
	run -0 "$KPROFILE" -i plain.out
	refute_line --partial -- '-ra:'
}

@test "-ra-routines ROUTINE: its samples go to its caller; the report says how many" {
	skip_unless_perf_works
	profile_plain
	local r p caller c0 c1 moved samples
	kjson plain.out
	r=$(top_busy)
	p=$(share "$r")
	ge "$p" 30 || fail "$r has only $p% without -ra"
	run -0 --separate-stderr "$KPROFILE" -quiet -e cpu-clock -o ra.out \
		-ra-routines "$r" sh -c "$READ_BIG" sh "$BIG"
	kjson ra.out
	# The routine is (nearly) gone...
	ge 1 "$(share "$r")" || fail "$r still has $(share "$r")% with -ra-routines $r"
	# ... and the new hottest procedure, its caller, gained about as much.
	caller=$(top_busy)
	[[ $caller != "$r" ]]
	c1=$(share "$caller")
	kjson plain.out
	c0=$(share "$caller")
	ge "$c1" "$(awk -v a="$c0" -v p="$p" 'BEGIN { print a + p / 2 }')" ||
		fail "$caller: $c0% without -ra, $c1% with -ra-routines $r ($r had $p%)"
	# JSON: the list and the number of samples moved.
	kjson ra.out
	assert_equal "$(jq -r .caller_attribution.routines <<<"$json")" "$r"
	moved=$(jq .caller_attribution.moved_samples <<<"$json")
	samples=$(jq '.statistics[0].samples' <<<"$json")
	((moved > 0 && moved <= samples)) ||
		fail "moved_samples $moved of $samples samples"
	# At least half as many as the routine's share would predict.
	local busy
	busy=$(jq '.statistics[0].samples - ([.modes[].idle] | add // 0)' <<<"$json")
	ge "$((moved * 100))" "$(awk -v s="$busy" -v p="$p" 'BEGIN { print s * p / 2 }')" ||
		fail "only $moved of $busy non-idle samples moved; $r had $p%"
	# Text: a line in the header.
	run -0 --separate-stderr "$KPROFILE" -i ra.out
	assert_line --regexp "^ +-ra: $moved samples .*were charged to their callers \\($r; 1 pattern\\)\$"
}

@test "-ra (the default list): copy routines and their copy callers go up to filemap_read" {
	skip_unless_perf_works
	profile_plain
	local r
	kjson plain.out
	r=$(top_busy)
	run -0 "$KPROFILE" -quiet -e cpu-clock -o ra.out -ra sh -c "$READ_BIG" sh "$BIG"
	kjson ra.out
	ge 1 "$(share "$r")" || fail "$r still has $(share "$r")% with -ra"
	ge 1 "$(share copy_page_to_iter)" ||
		fail "copy_page_to_iter still has $(share copy_page_to_iter)% with -ra"
	assert_equal "$(top_busy)" filemap_read
	ge "$(share filemap_read)" 30 || fail "filemap_read has only $(share filemap_read)%"
	# The routines of the default list, as patterns, are recorded.
	[[ $(jq -r .caller_attribution.routines <<<"$json") == *_copy_to_iter* ]]
	(($(jq .caller_attribution.moved_samples <<<"$json") > 0))
	run -0 "$KPROFILE" -i ra.out
	assert_line --regexp '^ +-ra: [0-9]+ samples .*were charged to their callers \(memcpy\*,.*; [0-9]+ patterns\)$'
}

@test "-ra-routines with several patterns; a pattern matching nothing is skipped among others" {
	skip_unless_perf_works
	run -0 "$KPROFILE" -quiet -e cpu-clock -o ra.out \
		-ra-routines '_copy_to_iter,copy_page_to_iter*,no_such_routine_xyz' \
		sh -c "$READ_BIG" sh "$BIG"
	kjson ra.out
	assert_equal "$(jq -r .caller_attribution.routines <<<"$json")" \
		'_copy_to_iter,copy_page_to_iter*,no_such_routine_xyz'
	ge 1 "$(share _copy_to_iter)"
	ge 1 "$(share copy_page_to_iter)"
	assert_equal "$(top_busy)" filemap_read
}

@test "-ra-routines matching no kernel routine: 125 and a message, nothing written" {
	skip_unless_perf_works
	run -125 --separate-stderr "$KPROFILE" -quiet -e cpu-clock \
		-ra-routines 'no_such_routine_*' true
	assert_output ""
	assert_equal "$stderr" \
		"kprofile: -ra: no kernel routine matches the list ('no_such_routine_*')"
	[[ ! -e kmon.out ]]
	run -125 --separate-stderr "$KPROFILE" -quiet -e cpu-clock \
		-ra-routines 'no_such_a,no_such_b' -d 0.2
	[[ $stderr == *"no kernel routine matches the list ('no_such_a', ...)"* ]]
	[[ ! -e kmon.out ]]
}
