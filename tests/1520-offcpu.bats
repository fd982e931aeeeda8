#!/usr/bin/env bats
# Off-CPU statistics (offcpu, wall) against truth by construction: test
# programs that wait in known ways for times they measure themselves
# (tests/programs/offcpu.c, timeslice.c, fsyncer.c), an attached sleep,
# kprofile on the same run, and perf's own sched_switch records.
#
# Off-CPU intervals are not samples: each is the exact time between a
# thread's switch out and its next switch in, stamped by the kernel.
# What separates them from the programs' own clocks is scheduling: a
# program reads CLOCK_MONOTONIC a few instructions before and after its
# blocking call, and a thread woken under load waits for a CPU (counted
# by both), but a preemption just before a thread's first clock read or
# after its last (thread start and exit, outside what it can measure) is
# counted by the profiler only.  That is at most a time slice or two
# (EEVDF's base slice is 0.75-3 ms; a tick is 1-10 ms), which the
# absolute parts of the tolerances below cover.

load helpers

# The fields of a program's line for NAME in FILE (NAME TID START END
# WAIT CPU RUNDELAY, tests/programs/offcpu.c): truth FILE NAME FIELD.
truth() {
	awk -v n="$2" -v f="$3" '$1 == n { print $f; found = 1 }
		END { exit !found }' "$1" || fail "no line '$2' in $1: $(cat "$1")"
}

# The lifetime a program's line records: END - START, ns.
lifetime() {
	echo $(($(truth "$1" "$2" 4) - $(truth "$1" "$2" 3)))
}

# The time a spinning thread was preempted, as its program saw it (ns):
# the kernel's run_delay over its lifetime where the kernel has it, else
# its lifetime less its CPU time (which also leaves out what a
# hypervisor's steal took while it ran).
preempted_truth() {
	local rd
	rd=$(truth "$1" "$2" 7)
	if ((rd >= 0)); then
		echo "$rd"
	else
		echo $(($(lifetime "$1" "$2") - $(truth "$1" "$2" 6)))
	fi
}

# assert_ns WHAT ACTUAL EXPECTED PCT MIN_MS: ACTUAL and EXPECTED (ns)
# differ by no more than PCT percent of EXPECTED or MIN_MS ms, whichever
# is larger.
assert_ns() {
	awk -v a="$2" -v e="$3" -v p="$4" -v m="$5" -v w="$1" 'BEGIN {
		if (a !~ /^-?[0-9.e+]+$/ || e !~ /^-?[0-9.e+]+$/) {
			printf "%s: not numbers: %s, %s\n", w, a, e; exit 1 }
		t = p / 100 * (e < 0 ? -e : e)
		if (t < m * 1e6) t = m * 1e6
		d = a - e
		if (d < 0) d = -d
		if (d > t) {
			printf "%s: %.3f ms, expected %.3f ms +/- %.3f ms\n", w, a / 1e6, e / 1e6, t / 1e6
			exit 1
		}
	}' || fail "off-CPU time not within tolerance"
}

# thread_ns JSON TID: "running blocked blocked-io preempted" of TID in the
# report's .threads, in ns (running -1 when the report has none).
thread_ns() {
	jq -e -r --argjson t "$2" '[.threads.threads[] | select(.tid == $t)]
		| if length != 1 then error("tid \($t): \(length) rows")
		  else .[0].seconds end
		| [(.running // -1e-9), .blocked, ."blocked-io", .preempted]
		| map(. * 1e9 | round) | join(" ")' <<<"$1" ||
		fail "thread $2 not in the report's threads"
}

# thread_times JSON TID: R B IO P (ns: running, blocked, blocked-io,
# preempted) of TID in the report's .threads; fails if it is not there.
thread_times() {
	local v
	v=$(thread_ns "$1" "$2") || return 1
	read -r R B IO P <<<"$v"
}

# The off-CPU time (ns) of a thread in JSON: blocked + blocked-io +
# preempted.
off_ns() {
	thread_times "$1" "$2" || return 1
	echo $((B + IO + P))
}

# off_ns, or 0 for a thread the report does not have: a spinner an idle
# machine never switches out has no off-CPU time, hence no thread in an
# offcpu-only profile.
off_ns_or0() {
	off_ns "$1" "$2" 2>/dev/null || echo 0
}

# Kernel samples (where the switches out are sampled, so -g and kernel
# rows work): root, or perf_event_paranoid 1 or lower.
skip_unless_kernel_samples() {
	skip_unless_perf_works
	[[ $(id -u) -eq 0 || $(cat /proc/sys/kernel/perf_event_paranoid) -le 1 ]] ||
		skip "sampling the kernel needs root or perf_event_paranoid <= 1"
}

# in_tracefs_ns COMMAND [ARG...]: COMMAND where tracefs is mounted at
# /sys/kernel/tracing (so root can read sched:sched_switch): there if
# the machine has it mounted, else in a mount namespace of its own where
# it is mounted; nothing changes outside.  Skips when it cannot.
in_tracefs_ns() {
	if [[ $(stat -f -c %T /sys/kernel/tracing 2>/dev/null) == tracefs ]]; then
		"$@"
		return
	fi
	unshare -m true 2>/dev/null || skip "unshare -m fails here (no mount namespaces)"
	unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing' 2>/dev/null ||
		skip "tracefs cannot be mounted at /sys/kernel/tracing"
	unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing &&
		exec "$@"' sh "$@"
}

# without_tracefs COMMAND [ARG...]: COMMAND where neither
# /sys/kernel/tracing nor debugfs's tracing directory has tracefs (empty
# tmpfs over both, in a mount namespace of its own), whatever this
# machine mounts.
without_tracefs() {
	unshare -m true 2>/dev/null || skip "unshare -m fails here (no mount namespaces)"
	unshare -m sh -c 'mount -t tmpfs none /sys/kernel/tracing &&
		{ ! mountpoint -q /sys/kernel/debug ||
		  mount -t tmpfs none /sys/kernel/debug; } && exec "$@"' sh "$@"
}

teardown() {
	[[ -z ${SLEEP_PID-} ]] || kill "$SLEEP_PID" 2>/dev/null || true
	kill_started "${BG_PIDS[@]}"
	[[ -z ${NOBODY_DIR-} ]] || rm -rf "$NOBODY_DIR"
}

@test "offcpu -g: each wait charged to its procedure, the spinner only preempted, wall per thread its lifetime" {
	skip_unless_kernel_samples
	run -0 "$UPROFILE" -quiet -e offcpu -e wall -g -o off.out \
		"$TPROG/offcpu" truth.txt
	run -0 --separate-stderr "$UPROFILE" -i off.out --format json
	json_check <<<"$output"
	local json=$output p got want
	# both are times, in ns; the threads table is wall's
	assert_equal "$(jq -r '[.statistics[].unit] | join(" ")' <<<"$json")" \
		"nanoseconds nanoseconds"
	assert_equal "$(jq -r '.threads.statistic' <<<"$json")" wall

	# Off-CPU time per procedure (with its callees: the libc and kernel
	# frames of the wait), against the time the program measured
	# around its one blocking call: 5% or 20 ms.
	for p in wait_sleep wait_mutex wait_pipe; do
		run -0 --separate-stderr "$UPROFILE" -i off.out -callers "$p" \
			--format json
		got=$(jq -e --arg p "$p" '[.callers[] | select(.procedure == $p)
			| .weight] | add' <<<"$output") || fail "$p: no off-CPU time"
		assert_ns "$p" "$got" "$(truth truth.txt "$p" 5)" 5 20
	done
	# The spinner never blocks: its off-CPU time is all preemption, the
	# time it waited on the run queue.
	run -0 --separate-stderr "$UPROFILE" -i off.out -callers spin --format json
	got=$(jq -e '[.callers[] | select(.procedure == "spin") | .weight]
		| add // 0' <<<"$output")
	want=$(preempted_truth truth.txt spin)
	assert_ns "spin (preempted)" "$got" "$want" 5 20

	# -by tid,state: the spinner's thread has no blocked row, and its
	# preempted rows hold that time.
	local spin_tid
	spin_tid=$(truth truth.txt spin 2)
	run -0 --separate-stderr "$UPROFILE" -i off.out -by tid,state --format json
	json_check <<<"$output"
	assert_equal "$(jq --argjson t "$spin_tid" '[.rows[] | select(.tid == $t)
		| select(.state == "blocked" or .state == "blocked-io")] | length' <<<"$output")" 0
	got=$(jq --argjson t "$spin_tid" '[.rows[] | select(.tid == $t and
		.state == "preempted") | .weight.offcpu] | add // 0' <<<"$output")
	assert_ns "spin's preempted rows" "$got" "$want" 5 20
	thread_times "$json" "$spin_tid"
	assert_equal "$B $IO" "0 0"
	assert_ns "spin's preempted time" "$P" "$want" 5 20
	# the waits were asleep, not waiting for a CPU
	for p in wait_sleep wait_mutex wait_pipe; do
		thread_times "$json" "$(truth truth.txt "$p" 2)"
		assert_ns "$p's blocked time" "$B" "$(truth truth.txt "$p" 5)" 5 20
	done

	# wall: each thread's running + blocked + blocked-io + preempted is
	# its lifetime, within 2% (and 2 ms for a preemption at the
	# thread's start or exit, outside what it measures).
	for p in wait_sleep wait_mutex wait_pipe spin; do
		thread_times "$json" "$(truth truth.txt "$p" 2)"
		((R >= 0)) || fail "$p: no running time in the threads table"
		assert_ns "$p's wall" "$((R + B + IO + P))" \
			"$(lifetime truth.txt "$p")" 2 2
	done
	# the spinner's running time is the rest of its life (its CPU time
	# and any steal): wall's timer samples it in the kernel too (1000
	# Hz: 1 ms a sample; 2% and 5 samples)
	thread_times "$json" "$spin_tid"
	assert_ns "spin's running" "$R" \
		"$(($(lifetime truth.txt spin) - want))" 2 5

	# the text report says it by state: preempted if ever (an idle
	# machine may leave the spinner its CPU), never blocked
	run -0 "$UPROFILE" -i off.out -by tid,state
	if ((P > 0)); then
		assert_line --regexp "^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +$spin_tid preempted$"
	fi
	refute_line --regexp "^ .* $spin_tid blocked"
}

@test "two spinners pinned to one CPU: each preempted for the other's half of the run" {
	skip_unless_perf_works
	local cpu
	cpu=$(allowed_cpus | tail -n 1)
	run -0 "$UPROFILE" -quiet -e offcpu -o ts.out "$TPROG/timeslice" ts.txt "$cpu" 1000
	run -0 --separate-stderr "$UPROFILE" -i ts.out --format json
	local json=$output n w ca cb
	ca=$(truth ts.txt slice_a 6)
	cb=$(truth ts.txt slice_b 6)
	for n in slice_a slice_b; do
		thread_times "$json" "$(truth ts.txt "$n" 2)"
		w=$(lifetime ts.txt "$n")
		# a spinner is never blocked, only preempted
		assert_equal "$B $IO" "0 0"
		# Exact: the time it waited on the run queue (1% and 5 ms: a
		# slice or two at its start or exit).
		assert_ns "$n preempted against its run queue wait" \
			"$P" "$(preempted_truth ts.txt "$n")" 1 5
		# Half the run: the CPU is shared between the two, and
		# whatever else runs there takes from both alike, so each
		# waits W - (Ca + Cb) / 2 (W / 2 on a CPU they have alone).
		# Two equal tasks get the same service to within a slice
		# (EEVDF: 0.75-3 ms) or a scheduling latency (CFS: 6-24 ms),
		# and the two start a thread creation apart: 3% of the run.
		assert_ns "$n preempted against half the run" \
			"$P" "$((w - (ca + cb) / 2))" 3 0
	done
}

@test "fsync: blocked-io (D) with sched_switch, in the kernel's I/O waits; never D without it" {
	skip_unless_root
	skip_unless_perf_works
	local fs
	fs=$(stat -f -c %T "$BATS_TEST_TMPDIR")
	case $fs in
	tmpfs | ramfs | devtmpfs | proc | sysfs)
		skip "$BATS_TEST_TMPDIR is on $fs, where fsync never waits for a device" ;;
	esac
	in_tracefs_ns "$UPROFILE" -quiet -e offcpu:k -o io.out \
		"$TPROG/fsyncer" "$BATS_TEST_TMPDIR/data" 500 >fsync.txt ||
		fail "uprofile in a mount namespace with tracefs failed"
	local calls
	calls=$(awk '$1 == "fsyncs" { print $4 }' fsync.txt)
	[[ -n $calls ]] || fail "fsyncer printed: $(cat fsync.txt)"
	run -0 --separate-stderr "$UPROFILE" -i io.out -by state --format json
	json_check <<<"$output"
	local json=$output io
	# offcpu:k is kernel-mode rows
	assert_equal "$(jq -r '.statistics[0].modes' <<<"$json")" kernel
	io=$(jq '[.rows[] | select(.state == "blocked-io") | .weight.offcpu]
		| add // 0' <<<"$json")
	# D time is there, and no more than the calls took
	((io > 0)) || fail "no blocked-io time: $(jq -c '[.rows[] | {procedure, state, weight}]' <<<"$json")"
	((io <= calls + 5000000)) ||
		fail "blocked-io $io ns, more than the $calls ns the writes and fsyncs took"
	# ... charged to the kernel routines that wait for I/O: 90% of it
	local waits='^(io_schedule.*|folio_wait.*|__folio_lock.*|.*wait_on_page.*|.*wait_on_buffer|.*bit_wait.*|.*wait_on_bit.*|jbd2.*|submit_bio_wait|blk_mq_.*|.*wait_for_common.*|wait_for_completion_io.*|filemap_fdatawait.*|__filemap_fdatawait_range|rq_qos_wait|wbt_wait|.*_wait_io.*)$'
	local in_waits
	in_waits=$(jq --arg re "$waits" '[.rows[] | select(.state == "blocked-io")
		| select(.procedure | test($re)) | .weight.offcpu] | add // 0' <<<"$json")
	((in_waits * 10 >= io * 9)) ||
		fail "blocked-io rows not in I/O waits: $(jq -c '[.rows[] | select(.state == "blocked-io") | {procedure, ns: .weight.offcpu}]' <<<"$json")"
	assert_equal "$(jq -r '.threads.threads | length' <<<"$json")" 1

	# Without tracefs S and D cannot be told apart: all blocked, no D.
	without_tracefs "$UPROFILE" -quiet -e offcpu -o nodrv.out \
		"$TPROG/fsyncer" "$BATS_TEST_TMPDIR/data" 300 >/dev/null ||
		fail "uprofile without tracefs failed"
	run -0 --separate-stderr "$UPROFILE" -i nodrv.out -by state --format json
	assert_equal "$(jq '[.rows[] | select(.state == "blocked-io")] | length' <<<"$output")" 0
	assert_equal "$(jq '[.threads.threads[].seconds."blocked-io"] | add' <<<"$output")" 0
	(($(jq '[.rows[] | select(.state == "blocked") | .weight.offcpu] | add // 0' <<<"$output") > 0)) ||
		fail "no blocked time without tracefs"
	# the fsync waits are in fsync (user rows)
	assert_equal "$(jq -r '[.rows[] | select(.state == "blocked")][0].procedure' <<<"$output")" fsync
}

@test "kprofile -e offcpu -d N: the program's threads with uprofile's figures, and kernel threads" {
	skip_unless_root
	skip_unless_perf_works
	"$KPROFILE" -quiet -e offcpu -d 3 -o k.out 2>kprofile.err &
	local kp=$!
	BG_PIDS+=("$kp")
	wait_profiling "$kp"
	run -0 "$UPROFILE" -quiet -e offcpu -o u.out "$TPROG/offcpu" truth.txt
	proc_running "$kp" ||
		fail "kprofile ended before the program did: the machine is too slow for -d 3"
	wait "$kp" || fail "kprofile failed: $(cat kprofile.err)"
	run -0 --separate-stderr "$KPROFILE" -i k.out --format json
	json_check <<<"$output"
	local kj=$output uj p tid lost
	run -0 --separate-stderr "$UPROFILE" -i u.out --format json
	uj=$output
	# every thread of the program, by tid, and kernel threads, which
	# wait too
	for p in main wait_sleep wait_mutex wait_pipe spin; do
		tid=$(truth truth.txt "$p" 2)
		[[ $p == spin ]] && (($(off_ns_or0 "$uj" "$tid") == 0)) && continue
		jq -e --argjson t "$tid" --argjson p "$(truth truth.txt main 2)" \
			'[.threads.threads[] | select(.tid == $t and .pid == $p
			  and .comm == "offcpu")] | length == 1' <<<"$kj" >/dev/null ||
			fail "$p (tid $tid) not in kprofile's threads: $(jq -c --argjson t "$tid" '[.threads.threads[] | select(.tid == $t)]' <<<"$kj")"
	done
	jq -e '[.threads.threads[] | select(.comm | test("^(kworker|ksoftirqd|rcu_|migration|kcompactd|khugepaged|kswapd|jbd2|kthreadd)"))]
		| length > 0' <<<"$kj" >/dev/null ||
		fail "no kernel thread in kprofile's threads: $(jq -c '[.threads.threads[].comm]' <<<"$kj")"
	# A lost record only ever drops an interval (a switch out met
	# while off CPU drops the one before), so kprofile is never above
	# uprofile; below it only when records were lost.
	for p in wait_sleep wait_mutex wait_pipe spin; do
		tid=$(truth truth.txt "$p" 2)
		(($(off_ns_or0 "$kj" "$tid") <= $(off_ns_or0 "$uj" "$tid") + 2000000)) ||
			fail "$p (tid $tid): kprofile $(off_ns_or0 "$kj" "$tid") ns, above uprofile's $(off_ns_or0 "$uj" "$tid")"
	done
	lost=$(jq '.statistics[0].lost' <<<"$kj")
	((lost == 0)) || skip "kprofile lost $lost switch records under this machine's load: the figures cannot be compared ($(cat kprofile.err))"
	# The same switches seen per CPU and per task: the worker threads
	# (whole lives inside both) agree to 1% and 2 ms.  (main's first
	# switches, before its exec, are kprofile's only.)
	for p in wait_sleep wait_mutex wait_pipe spin; do
		tid=$(truth truth.txt "$p" 2)
		assert_ns "$p (tid $tid): kprofile against uprofile" \
			"$(off_ns_or0 "$kj" "$tid")" "$(off_ns_or0 "$uj" "$tid")" 1 2
	done
	# and against the construction (test 1's tolerances)
	for p in wait_sleep wait_mutex wait_pipe; do
		assert_ns "$p: kprofile against the program" \
			"$(off_ns_or0 "$kj" "$(truth truth.txt "$p" 2)")" \
			"$(truth truth.txt "$p" 5)" 5 20
	done
	assert_ns "spin: kprofile against the program" \
		"$(off_ns_or0 "$kj" "$(truth truth.txt spin 2)")" \
		"$(preempted_truth truth.txt spin)" 5 20
}

@test "-p a sleeping process for -d 2: 2 s off CPU in its nanosleep" {
	skip_unless_perf_works
	sleep 30 &
	SLEEP_PID=$!
	wait_until 10 "sleep to be asleep" eval '[[ $(proc_field $SLEEP_PID 1) == S ]]'
	run -0 "$UPROFILE" -quiet -e offcpu -p "$SLEEP_PID" -d 2 -o p.out
	run -0 --separate-stderr "$UPROFILE" -i p.out --format json
	json_check <<<"$output"
	local json=$output got
	# asleep from the attach to the end: charged to its nanosleep (the
	# user PC /proc gave when it attached), ~2 s (5%)
	got=$(jq '[.rows[] | select(.procedure | test("nanosleep")) | .weight.offcpu]
		| add // 0' <<<"$json")
	assert_ns "nanosleep rows" "$got" 2000000000 5 0
	assert_ns "the whole profile" "$(jq '.statistics[0].weight' <<<"$json")" 2000000000 5 0
	assert_ns "the thread's blocked time" "$(off_ns "$json" "$SLEEP_PID")" 2000000000 5 0
}

@test "offcpu against perf's sched_switch records of the same run: each thread within 2% and 5 ms" {
	skip_unless_root
	skip_unless_perf_works
	# perf records every CPU's sched_switch while uprofile runs the
	# program (perf starts its events before uprofile, ends after),
	# those of the program's threads only (the kernel filters on their
	# name: a busy machine switches 10^5 times a second); perf script
	# reads the data inside the same namespace.
	# perf itself now and then drops a thread's switches without saying
	# so (seen on an idle machine too: a 0.4 s wait read as 0.03 ms):
	# a second recording settles whether the difference is ours.
	local try
	for try in 1 2; do
		in_tracefs_ns sh -c '
			perf record -q -a -m 1024 -k CLOCK_MONOTONIC -e sched:sched_switch \
				--filter "prev_comm == \"offcpu\" || next_comm == \"offcpu\"" \
				-e sched:sched_process_exec -o perf.data -- \
				"$1" -quiet -e offcpu -o off.out "$2" truth.txt &&
			perf script --ns -i perf.data -F trace:tid,cpu,time,event,trace >perf.txt' \
			sh "$UPROFILE" "$TPROG/offcpu" 2>perf.err ||
			fail "perf record or script failed: $(cat perf.err)"
		! grep -qi 'lost' perf.err || skip "perf lost events under this load: $(cat perf.err)"
		run -0 --separate-stderr "$UPROFILE" -i off.out --format json
		echo "$output" >off.json
		# Both stamp the kernel's switch points; 2% and 5 ms cover the
		# boundary of each recording (uprofile starts at the exec) and the
		# nanoseconds between the tracepoint and the switch record.
		# the spinner has no row when nothing preempted it (CPUs to
		# spare): its 0 is then checked against perf's
		run python3 "$ROOT/tests/tools/offcpu-perf.py" perf.txt off.json \
			"$(truth truth.txt main 2)" 2 5 "$(truth truth.txt spin 2)"
		((status == 0)) && break
	done
	# perf's records against the program's own clock: where perf is off
	# the program's own measure and uprofile is not, it is perf's miss
	# (the waits themselves are checked against construction by the
	# first test), not a difference to judge.  The measure: a waiting
	# thread's wait; main's lifetime less its CPU time (uprofile's
	# figure also has its start-up and exit, a few ms).
	if ((status != 0)); then
		local p tid want got ours
		for p in wait_sleep wait_mutex wait_pipe main; do
			tid=$(truth truth.txt "$p" 2)
			if [[ $p == main ]]; then
				want=$(($(lifetime truth.txt main) - $(truth truth.txt main 6)))
			else
				want=$(truth truth.txt "$p" 5)
			fi
			got=$(sed -n "s/^tid $tid: .* perf \([0-9.]*\) ms.*/\1/p" <<<"$output")
			ours=$(sed -n "s/^tid $tid: uprofile \([0-9.]*\) ms.*/\1/p" <<<"$output")
			[[ -n $got && -n $ours ]] && awk -v g="$got" -v o="$ours" -v w="$want" \
				'BEGIN { w /= 1e6; t = 0.02 * w + 5
					 exit !((g - w > t || w - g > t) &&
						o - w <= t + 10 && w - o <= t) }' &&
				skip "perf's sched_switch records missed part of $p's waits ($got ms; uprofile $ours ms, the program measured $((want / 1000000)) ms): $output"
		done
	fi
	((status == 0)) || fail "$output"
	# with tracefs readable, root's off-CPU samples came from
	# sched_switch (they tell S from D): the waits are all S, but for
	# a moment of D a thread may spend on a lock of the kernel's (its
	# process's memory map, taken by another thread's mmap or fault,
	# is a sleep in D): 78 us seen under load
	local p
	for p in wait_sleep wait_mutex wait_pipe spin; do
		# (a spinner an idle machine never preempts has no off-CPU
		# time, hence no row of its own in an offcpu-only profile)
		if ! thread_times "$(cat off.json)" "$(truth truth.txt "$p" 2)"; then
			[[ $p == spin ]] || fail "$p: not in the report's threads"
			continue
		fi
		((IO <= 5000000)) || fail "$p: $IO ns blocked-io"
		[[ $p == spin ]] || ((B > 100 * IO)) || fail "$p: blocked $B ns, blocked-io $IO ns"
	done
	(($(wc -l <<<"$output") == 5)) || fail "not 5 threads compared: $output"
}

@test "bad requests: --count, the sim engine; unprivileged: -g refused before the program runs, per-thread times without it" {
	skip_unless_perf_works
	run -125 --separate-stderr "$UPROFILE" -e offcpu --count true
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"'offcpu' is time charged per switch, not a counter: it cannot be counted (drop --count)"* ]] ||
		fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" -e wall --count true
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"'wall' is time charged per switch (and sampled on CPU by a timer), not a counter"* ]] ||
		fail "$stderr"
	run -125 --separate-stderr "$UPROFILE" --engine=sim -e offcpu true
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"'offcpu' is not available with the sim engine"* ]] || fail "$stderr"

	nobody_dir
	local paranoid
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	((paranoid == 2)) ||
		skip "perf_event_paranoid is $paranoid, not 2 (at 1 or lower nobody may sample the kernel, at 3 not at all)"
	run -125 --separate-stderr as_nobody "$UPROFILE" -g -e offcpu -o n.out \
		"$TPROG/offcpu" "$NOBODY_DIR/ran.txt"
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == *"-g with an off-CPU statistic"*"perf_event_paranoid is $paranoid"*"run as root, give the profiler CAP_PERFMON, or set kernel.perf_event_paranoid to 1 or lower"* ]] ||
		fail "$stderr"
	# refused before the program ran: it would have written this file
	[[ ! -e $NOBODY_DIR/ran.txt ]] || fail "the program ran"
	[[ ! -e n.out ]] || fail "a profile was written"

	# without -g: per-thread times, and one notice of what is missing
	run -0 --separate-stderr as_nobody "$UPROFILE" -e offcpu -o n.out \
		"$TPROG/offcpu" "$NOBODY_DIR/ran.txt"
	assert_equal "$(grep -c 'off-CPU time is recorded per thread only' <<<"$stderr")" 1
	[[ $stderr == *"perf_event_paranoid is 2"* ]] || fail "$stderr"
	run -0 --separate-stderr "$UPROFILE" -i n.out --format json
	local json=$output p
	for p in wait_sleep wait_mutex wait_pipe; do
		thread_times "$json" "$(truth ran.txt "$p" 2)"
		assert_ns "$p blocked (unprivileged)" "$((B + IO))" \
			"$(truth ran.txt "$p" 5)" 5 20
	done
	# The spinner never blocks; a machine that never switched it out
	# has no row for it (no off-CPU time), which is preempted 0.
	local spin_tid
	spin_tid=$(truth ran.txt spin 2)
	if thread_times "$json" "$spin_tid" 2>/dev/null; then
		assert_equal "$B $IO" "0 0"
	else
		P=0
	fi
	assert_ns "spin preempted (unprivileged)" "$P" \
		"$(preempted_truth ran.txt spin)" 5 20
}

@test "--dry-run: the switch event of -g -e offcpu and of -e wall" {
	# -one: the rings' size depends on how many CPUs they are on
	golden uprofile-offcpu-g "$UPROFILE" --dry-run -one -g -e offcpu true
	golden uprofile-wall "$UPROFILE" --dry-run -e wall true
	# what the goldens must say, whatever else changes: one event has
	# context_switch, samples the kernel with the user registers
	# (sample_type bit REGS_USER 0x1000); with -g also a stack copy
	# (STACK_USER 0x2000); the kernel's chain (CALLCHAIN 0x20), whose
	# walk costs the workload most, only for rows in the kernel (:k)
	# and, without its kernel part, for fp's user frames
	run -0 "$UPROFILE" --dry-run -g -e offcpu true
	assert_equal "$(grep -c '^  context_switch 1$' <<<"$output")" 1
	local ev t
	ev=$(sed -n '/(switches: off-CPU statistics)/,/^event/p' <<<"$output")
	t=$(awk '$1 == "sample_type" { print $2 }' <<<"$ev")
	(((t & 0x3020) == 0x3000)) || fail "sample_type $t: $ev"
	[[ $ev == *"exclude_kernel 0"* && $ev == *"sample_stack_user 16384"* ]] || fail "$ev"
	run -0 "$UPROFILE" --dry-run -g -e offcpu:k true
	ev=$(sed -n '/(switches: off-CPU statistics)/,/^event/p' <<<"$output")
	t=$(awk '$1 == "sample_type" { print $2 }' <<<"$ev")
	(((t & 0x3020) == 0x3020)) || fail "sample_type $t: $ev"
	[[ $ev == *"exclude_callchain_user 1"* && $ev != *exclude_callchain_kernel* ]] || fail "$ev"
	# kprofile's kernel threads are charged at their kernel wait in
	# every mode: the chain stays for its user rows too
	run -0 "$KPROFILE" --dry-run -e offcpu:u true
	ev=$(sed -n '/(switches: off-CPU statistics)/,/^event/p' <<<"$output")
	t=$(awk '$1 == "sample_type" { print $2 }' <<<"$ev")
	(((t & 0x20) == 0x20)) || fail "sample_type $t: $ev"
	run -0 "$UPROFILE" --dry-run --call-graph=fp -e offcpu true
	ev=$(sed -n '/(switches: off-CPU statistics)/,/^event/p' <<<"$output")
	t=$(awk '$1 == "sample_type" { print $2 }' <<<"$ev")
	(((t & 0x3020) == 0x1020)) || fail "sample_type $t: $ev"
	[[ $ev == *"exclude_callchain_user 0"* && $ev == *"exclude_callchain_kernel 1"* ]] || fail "$ev"
	# wall: a cpu-clock timer in both modes with the user registers
	run -0 "$UPROFILE" --dry-run -e wall true
	ev=$(sed -n '/^event 1$/,/^event 2/p' <<<"$output")
	[[ $ev == *"config 0"$'\n'* && $ev == *"exclude_kernel 0"* ]] || fail "$ev"
	t=$(awk '$1 == "sample_type" { print $2 }' <<<"$ev")
	(((t & 0x1000) == 0x1000)) || fail "sample_type $t: $ev"
}

# copy_truncated JSON: the samples of the first statistic's stacks cut
# at the end of their stack copy.
copy_truncated() {
	jq -e '[.call_stacks.truncated[]? |
		select(.reason == "stack copy too small") | .samples] | add // 0' <<<"$1"
}

@test "switch samples copy 16 KiB of user stack unless SIZE says: a wait 12 KiB deep is whole, 24 KiB deep needs dwarf,32768" {
	# what is opened: the switch event's copy and the CPU samples'
	run -0 "$UPROFILE" --dry-run -g -e offcpu -e cpu-clock true
	local ev json
	ev=$(sed -n '/(switches: off-CPU statistics)/,/^event/p' <<<"$output")
	[[ $ev == *"sample_stack_user 16384"* ]] || fail "$ev"
	assert_equal "$(grep -c 'sample_stack_user 65528$' <<<"$output")" 1
	run -0 "$UPROFILE" --dry-run --call-graph=dwarf,8192 -e offcpu -e cpu-clock true
	assert_equal "$(grep -c 'sample_stack_user 8192$' <<<"$output")" 2

	skip_unless_kernel_samples
	# deepwait KIB sleeps under KIB frames of 1 KiB each
	run -0 "$UPROFILE" -quiet -e offcpu -g -o d12.out "$TPROG/deepwait" 12 100
	run -0 --separate-stderr "$UPROFILE" -i d12.out --format json
	json=$output
	assert_equal "$(copy_truncated "$json")" 0
	(($(jq '.call_stacks.complete_samples' <<<"$json") > 0)) ||
		fail "no complete stack: $(jq -c '.call_stacks' <<<"$json")"
	run -0 "$UPROFILE" -quiet -e offcpu -g -o d24.out "$TPROG/deepwait" 24 100
	run -0 --separate-stderr "$UPROFILE" -i d24.out --format json
	(($(copy_truncated "$output") > 0)) ||
		fail "24 KiB deep, not cut: $(jq -c '.call_stacks' <<<"$output")"
	run -0 "$UPROFILE" -quiet -e offcpu --call-graph=dwarf,32768 -o d24.out \
		"$TPROG/deepwait" 24 100
	run -0 --separate-stderr "$UPROFILE" -i d24.out --format json
	json=$output
	assert_equal "$(copy_truncated "$json")" 0
	(($(jq '.call_stacks.complete_samples' <<<"$json") > 0)) ||
		fail "no complete stack: $(jq -c '.call_stacks' <<<"$json")"
	# and they are the waits, under all 24 levels: the tree indents
	# _start by 2, each level by 2 more (_start, two of libc's, main,
	# 24 descend, then wait_here: 58)
	run -0 --separate-stderr "$UPROFILE" -i d24.out -tree
	assert_line --regexp "^ +[0-9.]+ +[0-9.]+ +[0-9]+ {58}wait_here$"
}

@test "rings of 16 MiB per CPU for a stack copy at every switch, 128 MiB in all at most, never below 4 MiB" {
	# in pages, as the profiler counts them: halved while the rings of
	# all online CPUs are over 128 MiB, never below 1024 pages; a
	# quarter of a ring wakes the collector
	local n pg pages want
	n=$(getconf _NPROCESSORS_ONLN) pg=$(getconf PAGESIZE)
	pages=$(((16 << 20) / pg))
	while ((pages > 1024 && pages * pg * n > 128 << 20)); do
		pages=$((pages / 2))
	done
	((pages >= 1024)) || pages=1024
	want=$((pages / 4 * pg))
	run -0 "$UPROFILE" --dry-run -g -e offcpu -e cpu-clock true
	assert_equal "$(grep -c 'wakeup_watermark' <<<"$output")" 3
	assert_equal "$(grep -c "wakeup_watermark $want\$" <<<"$output")" 3
	# one CPU: 16 MiB (or 1024 pages)
	pages=$(((16 << 20) / pg))
	((pages >= 1024)) || pages=1024
	run -0 "$UPROFILE" --dry-run -one -g -e offcpu true
	assert_equal "$(grep -c "wakeup_watermark $((pages / 4 * pg))\$" <<<"$output")" 2
	# without a copy at the switches, the 4 MiB of any off-CPU run
	run -0 "$UPROFILE" --dry-run -one -e offcpu true
	assert_equal "$(grep -c "wakeup_watermark $((1024 / 4 * pg))\$" <<<"$output")" 2
}

@test "--time windows clip the intervals: a 1 s sleep cut by a 0.5 s window counts 0.5 s" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e offcpu -o t.out sleep 1
	local w
	# [0.25, 0.75] lies inside the sleep: exactly 0.5 s of it, one
	# interval
	run -0 --separate-stderr "$UPROFILE" -i t.out --time 0.25-0.75 --format json
	json_check <<<"$output"
	assert_equal "$(jq '.statistics[0].weight' <<<"$output")" 500000000
	assert_equal "$(jq '.statistics[0].samples' <<<"$output")" 1
	assert_equal "$(jq '[.threads.threads[].seconds.blocked] | add' <<<"$output")" 0.5
	# two windows of 0.2 s: 0.4 s, still one interval
	run -0 --separate-stderr "$UPROFILE" -i t.out --time 0.2-0.4,0.6-0.8 --format json
	assert_equal "$(jq '.statistics[0].weight' <<<"$output")" 400000000
	assert_equal "$(jq '.statistics[0].samples' <<<"$output")" 1
	# to the end: the run's last half second less what followed the
	# sleep (the exit: well under 20 ms)
	run -0 --separate-stderr "$UPROFILE" -i t.out --time 0.5- --format json
	w=$(jq '.timeline.window_seconds * 1e9 | round' <<<"$output")
	assert_ns "0.5 s to the end" "$(jq '.statistics[0].weight' <<<"$output")" "$w" 0 20
	# the whole run: the sleep, 1 s, and on a busy machine the wait
	# for a CPU once it ended, but never more than the run
	run -0 --separate-stderr "$UPROFILE" -i t.out --format json
	run -0 jq -e '.statistics[0].weight as $w
		| $w >= 1e9 and $w <= .duration_seconds * 1e9' <<<"$output"
}

# The weights of statistic $2 (0 the first) in the pprof export of profile
# $1, summed as go tool pprof reads them: -raw lists each sample's
# values, count then weight per statistic.
pprof_weight() {
	run -0 "$UPROFILE" -i "$1" --format pprof -report-file x.pb.gz
	run -0 --separate-stderr go tool pprof -raw x.pb.gz
	awk -v k=$((2 * $2 + 2)) '/^Samples:/ { s = 1; next }
		/^Locations/ { s = 0 }
		s && $1 ~ /^[0-9]+$/ { v = $k; sub(/:.*/, "", v); t += v }
		END { printf "%d", t }' <<<"$output"
}

# The exports of profile $1 add up to its report: pprof's weights of
# each statistic and the folded lines' (the first statistic's).
exports_add_up() {
	local f want got
	for f in 0 1; do
		run -0 --separate-stderr "$UPROFILE" -i "$1" --format json
		want=$(jq ".statistics[$f].weight" <<<"$output")
		got=$(pprof_weight "$1" $f)
		assert_equal "$got" "$want"
	done
	run -0 "$UPROFILE" -i "$1" --format folded
	got=$(awk '{ t += $NF } END { printf "%d", t }' <<<"$output")
	want=$("$UPROFILE" -i "$1" --format json | jq '.statistics[0].weight')
	assert_equal "$got" "$want"
}

# The exports take each stack's samples off the count at its leaf, so an
# off-CPU or wall stack must end where its row is: the user PC for
# user-mode rows, the kernel's wait for kernel-mode ones (:k).  Each
# export of such profiles is read by its consumer: go tool pprof for
# pprof (its total is the report's, in ns), the folded lines' sum.
@test "exports of off-CPU stacks (user rows and :k rows): pprof and folded add up to the report" {
	skip_unless_kernel_samples
	command -v go >/dev/null || skip "go is not installed (Debian package golang-go)"
	run -0 "$UPROFILE" -quiet -e wall -e offcpu:k -g -o x.out \
		"$TPROG/offcpu" truth.txt
	exports_add_up x.out
}

@test "exports of switches a run meets rarely: a user PC in no mapping known yet, a kernel sample without a chain" {
	command -v go >/dev/null || skip "go is not installed (Debian package golang-go)"
	# Each stack's leaf is its row's address, which the exports take
	# its weight off (they refused such a profile, 1 run in 60 of the
	# test above).
	run -0 "$TPROG/mkswitches" sw.umon "$TPROG/demo"
	exports_add_up sw.umon
	run -0 "$UPROFILE" -i sw.umon --format json
	run -0 jq -e '[.statistics[].weight] == [6000000, 6000000]' <<<"$output"
	run -0 "$UPROFILE" -i sw.umon --format folded
	assert_line "[truncated: address in no mapping in [unknown]];[unknown]+0x7f0000001234 2000000"
	assert_line --regexp '^.*;demo\+0x100 2000000$'
}
