#!/usr/bin/env bats
# -control FIFO as root in a directory others can write (/tmp): only a
# FIFO of the running user that nobody else may write is read, the name
# is never followed through a link, and only the FIFO the run made is
# removed at the end, never a file put at its name since.

load helpers

setup() {
	common_setup
	skip_unless_perf_works
}

# sticky_dir: nobody_dir made sticky, like /tmp.
sticky_dir() {
	nobody_dir
	chmod 1777 "$NOBODY_DIR"
}

@test "a FIFO another user made in a sticky directory is refused (125), even 0600" {
	sticky_dir
	as_nobody mkfifo -m 666 ctl
	as_nobody mkfifo -m 600 ctl2
	local f
	for f in ctl ctl2; do
		run -125 --separate-stderr "$UPROFILE" -quiet -t -control "$f" \
			-e cpu-clock -o o.out sleep 0.2
		[[ $stderr == *"control FIFO '$f' belongs to uid $(id -u nobody), not to this user: refused"* ]] ||
			fail "stderr: $stderr"
		[[ -p $f ]] || fail "$f removed"
		[[ ! -e o.out ]] || fail "a profile written"
	done
}

@test "a FIFO of ours that others may write is refused (125)" {
	mkfifo -m 622 ctl
	run -125 --separate-stderr "$UPROFILE" -quiet -t -control ctl \
		-e cpu-clock -o o.out sleep 0.2
	[[ $stderr == *"control FIFO 'ctl' is writable by others (mode 0622): refused"* ]] ||
		fail "stderr: $stderr"
	[[ -p ctl ]] || fail "ctl removed"
}

@test "a symbolic link at the control path is not followed, even to a FIFO of ours" {
	sticky_dir
	mkfifo -m 600 real
	as_nobody ln -s real ctl
	run -125 --separate-stderr "$UPROFILE" -quiet -t -control ctl \
		-e cpu-clock -o o.out sleep 0.2
	[[ $stderr == *"control 'ctl' is a symbolic link: refused"* ]] ||
		fail "stderr: $stderr"
	[[ -L ctl && -p real ]] || fail "the link or its FIFO is gone"
}

@test "the FIFO the run made, replaced by another file before the end, is not removed" {
	# The program ends when told (a line on the FIFO go), not after a
	# time the test must beat.
	mkfifo go
	"$UPROFILE" -quiet -t -control ctl -e cpu-clock -o o.out \
		sh -c 'read -r _ <go' 2>stderr &
	local up=$! rc=0
	BG_PIDS+=("$up")
	# the FIFO is made before the events are opened
	wait_profiling "$up"
	[[ -p ctl ]] || fail "no FIFO made: $(cat stderr)"
	rm ctl
	echo keep >ctl
	echo >go
	wait_exit "$up"
	wait "$up" || rc=$?
	assert_equal "$rc" 0
	assert_equal "$(cat ctl)" keep
}

@test "the FIFO the run made is still removed at the end; one that was there is kept" {
	run -0 "$UPROFILE" -quiet -t -control ctl -e cpu-clock -o o.out \
		sleep 0.3
	[[ ! -e ctl ]] || fail "the FIFO made is still there"
	mkfifo ctl
	run -0 "$UPROFILE" -quiet -t -control ctl -e cpu-clock -o o.out \
		sleep 0.3
	[[ -p ctl ]] || fail "the existing FIFO was removed"
}
