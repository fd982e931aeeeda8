#!/usr/bin/env bats
# The kernel's perf sysctls: kernel.perf_event_paranoid above 2 is tried,
# not refused (what 3 and 4 forbid differs between kernels), and only a
# refusal is explained; kernel.perf_event_max_sample_rate is named with
# the way to raise it before the program runs.  UPROFILE_PROCSYS fakes
# the values the tools read; the kernel still decides what opens.

load helpers

# samples_of FILE: the samples of FILE's first statistic.
samples_of() {
	"$UPROFILE" -i "$1" --format json | jq '.statistics[0].samples'
}

@test "perf_event_paranoid 3 and 4 (faked), root: uprofile and kprofile profile" {
	skip_unless_root
	skip_unless_perf_works
	local p dir n
	for p in 3 4; do
		dir=$(fake_procsys perf_event_paranoid=$p)
		UPROFILE_PROCSYS=$dir run -0 --separate-stderr "$UPROFILE" \
			-quiet -e cpu-clock -o u$p.out "$TPROG/spin2" 300
		assert_equal "$stderr" ""
		n=$(samples_of u$p.out)
		((n > 0)) || fail "paranoid $p: $n samples"
		UPROFILE_PROCSYS=$dir run -0 --separate-stderr "$KPROFILE" \
			-quiet -e cpu-clock -o k$p.out -d 0.3
		assert_equal "$stderr" ""
		[[ -s k$p.out ]]
	done
}

@test "perf_event_paranoid 3 and 4, unprivileged (nobody): uprofile profiles where the kernel allows user events" {
	skip_unless_perf_works
	local real p dir n
	real=$(cat /proc/sys/kernel/perf_event_paranoid)
	((real <= 2)) ||
		skip "kernel.perf_event_paranoid=$real: the kernel decides for itself here"
	nobody_dir
	for p in 3 4; do
		dir=$(fake_procsys perf_event_paranoid=$p)
		UPROFILE_PROCSYS=$dir run -0 --separate-stderr as_nobody \
			"$UPROFILE" -quiet -e cpu-clock -o u$p.out "$TPROG/spin2" 300
		assert_equal "$stderr" ""
		n=$(samples_of u$p.out)
		((n > 0)) || fail "paranoid $p: $n samples"
	done
	# The value at its real place, /proc/sys/kernel, seen through a
	# private mount namespace (nothing changes for the rest of the
	# machine).
	unshare -m true 2>/dev/null || skip "no private mount namespace here"
	echo 3 >"$dir/perf_event_paranoid"
	run -0 --separate-stderr unshare -m sh -c '
		mount --bind "$1/perf_event_paranoid" \
			/proc/sys/kernel/perf_event_paranoid &&
		test "$(cat /proc/sys/kernel/perf_event_paranoid)" = 3 &&
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
			--inh-caps=-all "$2" -quiet -e cpu-clock -o ns.out "$3" 300
		' sh "$dir" "$UPROFILE" "$TPROG/spin2"
	assert_equal "$stderr" ""
	n=$(samples_of ns.out)
	((n > 0)) || fail "paranoid 3 at /proc/sys/kernel: $n samples"
}

@test "perf_event_paranoid 3 (faked), unprivileged kprofile refused: one line naming the value, CAP_PERFMON and the sysctl" {
	skip_unless_perf_works
	local real dir
	real=$(cat /proc/sys/kernel/perf_event_paranoid)
	((real > 0)) ||
		skip "kernel.perf_event_paranoid=$real lets unprivileged users profile system-wide"
	nobody_dir
	dir=$(fake_procsys perf_event_paranoid=3)
	UPROFILE_PROCSYS=$dir run -125 --separate-stderr as_nobody \
		"$KPROFILE" -e cpu-clock sh -c 'touch ran'
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "kprofile: "* ]]
	[[ $stderr == *"perf_event_paranoid=3"* || $stderr == *"(it is 3)"* ]] ||
		fail "the value 3 is not given: $stderr"
	[[ $stderr == *CAP_PERFMON* ]] || fail "no mention of CAP_PERFMON: $stderr"
	[[ $stderr == *"sysctl kernel.perf_event_paranoid=0"* ]] ||
		fail "does not say what to change: $stderr"
	[[ ! -e ran && ! -e kmon.out ]]
}

@test "-F above kernel.perf_event_max_sample_rate: 125 before the program runs, naming the limit and the sysctl" {
	skip_unless_perf_works
	local max want limit
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	want=$((max + 1))
	((want <= 1000000)) || skip "the limit $max is above what -F accepts"
	run -125 --separate-stderr "$UPROFILE" -e cpu-clock -F "$want" sh -c 'touch ran'
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: -F $want is above this kernel's limit of "* ]] ||
		fail "unexpected message: $stderr"
	# The kernel only ever lowers the limit by itself.
	limit=${stderr#*limit of }
	limit=${limit%% *}
	((limit <= max)) || fail "limit $limit, was $max: $stderr"
	[[ $stderr == *"(kernel.perf_event_max_sample_rate)"* ]] ||
		fail "the sysctl is not named: $stderr"
	[[ $stderr == *"-F $limit or less"* ]] || fail "no -F that works: $stderr"
	[[ $stderr == *"'sysctl kernel.perf_event_max_sample_rate=$want'"* ]] ||
		fail "does not say how to raise it: $stderr"
	[[ ! -e ran && ! -e umon.out ]]
	run -125 --separate-stderr "$KPROFILE" -e cpu-clock -F "$want" -d 0.2
	[[ $stderr == "kprofile: -F $want is above this kernel's limit of "* ]] ||
		fail "kprofile: $stderr"
	[[ ! -e kmon.out ]]
}

@test "a limit below the default frequency (faked): the default follows it, with a notice; -F at the limit and -c run" {
	skip_unless_perf_works
	local dir
	dir=$(fake_procsys perf_event_max_sample_rate=500)
	# The kernel lowers the limit by itself on a busy machine: a run at
	# the default frequency goes on at the limit, as perf record does.
	UPROFILE_PROCSYS=$dir run -0 --separate-stderr "$UPROFILE" \
		-e cpu-clock "$TPROG/spin2" 100
	assert_equal "${stderr_lines[0]}" "uprofile: sampling at 500 per second, not the default 1000: this kernel's limit (kernel.perf_event_max_sample_rate) is 500"
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq '.statistics[0].frequency' <<<"$output")" 500
	UPROFILE_PROCSYS=$dir run -125 --separate-stderr "$UPROFILE" \
		-e cpu-clock -F 1000 "$TPROG/spin2" 100
	[[ $stderr == "uprofile: -F 1000 is above this kernel's limit of 500 samples per second"* ]] ||
		fail "$stderr"
	UPROFILE_PROCSYS=$dir run -0 "$UPROFILE" -quiet -e cpu-clock -F 500 \
		"$TPROG/spin2" 100
	UPROFILE_PROCSYS=$dir run -0 "$UPROFILE" -quiet -e cpu-clock \
		-c 1000000 "$TPROG/spin2" 100
	# --dry-run opens nothing: it describes, whatever the limit.
	UPROFILE_PROCSYS=$dir run -0 "$UPROFILE" --dry-run -e cpu-clock true
}
