#!/usr/bin/env bats
# uprofile -p PID where no sample can come: a kernel thread, uprofile's own
# process, a zombie, another user's process.  Each is one line naming the
# process and why, status 125 (cannot collect), and no profile; before,
# most ended in 0 samples and status 0.

load helpers

# refused MESSAGE: the last run failed with 125, its stderr the one line
# "uprofile: MESSAGE", nothing on stdout, no umon.out.
refused() {
	assert_equal "$status" 125
	assert_output ""
	assert_equal "$stderr" "uprofile: $1"
	[[ ! -e umon.out ]]
}

# A kernel thread: PF_KTHREAD (0x00200000) in the flags of /proc/PID/stat.
kernel_thread() {
	local pid stat flags
	for pid in 2 $(ls /proc | grep -E '^[0-9]+$'); do
		stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
		read -ra f <<<"${stat##*) }"
		flags=${f[6]}
		if ((flags & 0x00200000)); then
			echo "$pid"
			return
		fi
	done
}

@test "-p of a kernel thread: 125, 'is a kernel thread: use kprofile'" {
	local pid comm
	pid=$(kernel_thread)
	[[ -n $pid ]] || skip "no kernel thread visible in /proc"
	comm=$(cat "/proc/$pid/comm")
	run --separate-stderr "$UPROFILE" -quiet -e cpu-clock -p "$pid" -d 0.3
	refused "cannot attach to process $pid ($comm): it is a kernel thread: use kprofile"
	# described or not, it is refused the same
	run --separate-stderr "$UPROFILE" --dry-run -e cpu-clock -p "$pid"
	refused "cannot attach to process $pid ($comm): it is a kernel thread: use kprofile"
}

@test "-p of uprofile's own process: 125, 'it is uprofile itself'" {
	run --separate-stderr sh -c \
		'echo $$ >self.pid; exec "$1" -quiet -e cpu-clock -p $$ -d 0.3' \
		sh "$UPROFILE"
	refused "cannot attach to process $(cat self.pid): it is uprofile itself"
}

@test "-p of a zombie: 125, 'has exited (zombie)'; kprofile -p too" {
	# sh starts cat, then becomes sleep, which never reaps it; cat
	# exits only then, when the FIFO is written.
	mkfifo go
	sh -c 'cat go >/dev/null & echo $! >zombie.pid; exec sleep 30' &
	local parent=$! pid comm tries=200
	BG_PIDS+=("$parent")
	wait_nonempty zombie.pid
	pid=$(cat zombie.pid)
	until [[ $(cat "/proc/$parent/comm") == sleep ]]; do
		((tries-- > 0)) || fail "sh did not become sleep"
		sleep 0.05
	done
	echo >go
	until [[ $(cut -d' ' -f3 "/proc/$pid/stat") == Z ]]; do
		((tries-- > 0)) || fail "process $pid did not become a zombie"
		sleep 0.05
	done
	comm=$(cat "/proc/$pid/comm")
	run --separate-stderr "$UPROFILE" -quiet -e cpu-clock -p "$pid" -d 0.3
	refused "cannot attach to process $pid ($comm): it has exited (zombie)"
	run -125 --separate-stderr "$KPROFILE" -quiet -e cpu-clock -p "$pid" -d 0.3
	assert_equal "$stderr" "kprofile: cannot attach to process $pid ($comm): it has exited (zombie)"
	[[ ! -e kmon.out ]]
}

@test "kprofile -p of a process that does not exist: 125, 'no process'" {
	local pid
	pid=$(($(cat /proc/sys/kernel/pid_max) + 1))
	run -125 --separate-stderr "$KPROFILE" -quiet -e cpu-clock -p "$pid" -d 0.3
	assert_equal "$stderr" "kprofile: no process $pid"
	[[ ! -e kmon.out ]]
}

@test "-p of another user's process (nobody attaching to root's): 125, permission denied naming both users; its own: profiled" {
	skip_unless_perf_works
	local real
	real=$(cat /proc/sys/kernel/perf_event_paranoid)
	((real <= 2)) ||
		skip "kernel.perf_event_paranoid=$real refuses nobody any event"
	nobody_dir
	"$TPROG/exitwith" -w 20 -t >root.pid &
	BG_PIDS+=("$!")
	wait_nonempty root.pid
	local pid
	pid=$(cat root.pid)
	run --separate-stderr as_nobody "$UPROFILE" -quiet -e cpu-clock -p "$pid" -d 0.3
	refused "cannot attach to process $pid (exitwith): permission denied: it runs as user 'root' (uid 0), uprofile as 'nobody' (uid $(id -u nobody)): run uprofile as that user or as root"
	# nobody's own process is nobody's to profile
	as_nobody "$TPROG/exitwith" -w 20 -t >nobody.pid &
	BG_PIDS+=("$!")
	wait_nonempty nobody.pid
	pid=$(cat nobody.pid)
	run -0 --separate-stderr as_nobody "$UPROFILE" -quiet -e cpu-clock -p "$pid" -d 0.5
	assert_equal "$stderr" ""
	run -0 "$UPROFILE" -i umon.out --format json
	assert_equal "$(jq -r '.rows[0].procedure' <<<"$output")" waiting_spin
}
