#!/usr/bin/env bats
# Output files (common/outfile.h): a link planted in the output directory
# is never followed, and no temporary is left behind even after SIGKILL.

load helpers

setup() {
	common_setup
	# The output directory; files "outside" live next to it.
	mkdir work
	cd work || return 1
}

# Skip unless the file system of the current directory has O_TMPFILE
# (ext4, xfs, btrfs, tmpfs do; some network file systems do not).
skip_unless_tmpfile() {
	python3 -c 'import os; os.close(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600))' \
		2>/dev/null ||
		skip "O_TMPFILE is not supported on $(stat -f -c %T .)"
}

# An old profile that a failed or killed run must leave alone.
old_profile() {
	run -0 "$UPROFILE" -quiet "$TPROG/exitwith" 0
	[[ -s umon.out ]]
}

@test "links planted at the final names and at NAME.tmp are replaced, never followed" {
	skip_unless_perf_works
	echo 'precious data' >../victim
	local sum
	sum=$(cksum <../victim)
	ln -s ../victim umon.out
	ln -s ../victim r.txt
	ln -s ../victim r.txt.tmp
	ln -s ../victim umon.out.tmp
	# dangling: following them would create the targets
	ln -s ../created-1 r.json
	ln -s ../created-2 r.json.tmp
	run -3 "$UPROFILE" -quiet -report-file r.txt "$TPROG/exitwith" 3
	assert_equal "$(cksum <../victim)" "$sum"
	[[ -f umon.out && ! -L umon.out ]] || fail "umon.out is not a new file"
	[[ -f r.txt && ! -L r.txt ]] || fail "r.txt is not a new file"
	run -0 "$UPROFILE" -i umon.out
	run -3 "$UPROFILE" -quiet --format json -report-file r.json "$TPROG/exitwith" 3
	[[ ! -e ../created-1 && ! -e ../created-2 ]] ||
		fail "a dangling link was followed"
	[[ -f r.json && ! -L r.json ]]
	run -0 jq -e .schema_version r.json
	assert_equal "$(cksum <../victim)" "$sum"
	# the planted .tmp links are left as they were; nothing else appeared
	assert_equal "$(readlink r.txt.tmp) $(readlink r.json.tmp)" \
		"../victim ../created-2"
	run -0 ls -A
	assert_output $'r.json\nr.json.tmp\nr.txt\nr.txt.tmp\numon.out\numon.out.tmp'
}

@test "new files have the mode of an ordinary file, and no temporary is left" {
	skip_unless_perf_works
	(umask 022 && "$UPROFILE" -quiet -report-file r.txt "$TPROG/exitwith" 0)
	assert_equal "$(stat -c %a umon.out r.txt | paste -sd ' ')" "644 644"
	(umask 077 && "$UPROFILE" -quiet -pids -report-file r.txt "$TPROG/exitwith" 0)
	assert_equal "$(stat -c %a umon.*.out r.txt | paste -sd ' ')" "600 600"
	run -0 ls -A
	[[ $output =~ ^r\.txt$'\n'umon\.[0-9]+\.out$'\n'umon\.out$ ]] ||
		fail "unexpected files: $output"
}

@test "SIGKILL while the profile or report is written leaves no temporary" {
	skip_unless_perf_works
	skip_unless_tmpfile
	command -v strace >/dev/null || skip "strace is missing"
	old_profile
	local sum
	sum=$(cksum <umon.out)
	# killed as it makes the new profile durable (its first fsync)
	run -137 strace -o /dev/null -e trace=fsync -e inject=fsync:signal=SIGKILL \
		"$UPROFILE" -quiet "$TPROG/exitwith" 0
	assert_equal "$(cksum <umon.out)" "$sum"
	run -0 ls -A
	assert_output umon.out
	# the profile written, killed on the report's fsync
	run -137 strace -o /dev/null -e trace=fsync \
		-e inject=fsync:signal=SIGKILL:when=2 \
		"$UPROFILE" -quiet -report-file r.txt "$TPROG/exitwith" 0
	run -0 ls -A
	assert_output umon.out
}

@test "SIGKILL during a long run leaves no temporary and the old profile" {
	skip_unless_perf_works
	skip_unless_tmpfile
	old_profile
	local sum up prog
	sum=$(cksum <umon.out)
	"$UPROFILE" -quiet -report-file r.txt "$TPROG/exitwith" -w 60 -t >pid &
	up=$!
	BG_PIDS+=("$up")
	wait_nonempty pid
	prog=$(cat pid)
	BG_PIDS+=("$prog")
	kill -KILL "$up"
	wait "$up" || true
	kill -KILL "$prog"
	assert_equal "$(cksum <umon.out)" "$sum"
	run -0 ls -A
	assert_output $'pid\numon.out'
}
