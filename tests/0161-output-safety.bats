#!/usr/bin/env bats
# Output files (common/util/outfile.h): a link planted in the output directory
# is never followed, no temporary is left behind even after SIGKILL, and
# every output problem is found before the program runs (status 125, one
# line, the program not started, an existing profile kept).

load helpers

setup() {
	common_setup
	# The output directory; files "outside" live next to it.
	mkdir work
	cd work || return 1
}

teardown() {
	kill_started "${BG_PIDS[@]}"
	if [[ -n ${SHARED:-} ]]; then
		rm -rf "$SHARED"
	fi
}

# Skip unless the file system of the current directory has O_TMPFILE
# (ext4, xfs, btrfs, tmpfs do; some network file systems do not).
skip_unless_tmpfile() {
	python3 -c 'import os; os.close(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600))' \
		2>/dev/null ||
		skip "O_TMPFILE is not supported on $(stat -f -c %T .)"
}

# refused_before_run ARGS...: "uprofile -quiet ARGS... sh -c 'touch ran'"
# exits 125 with one line "uprofile: cannot write ...", the program did
# not run, and the existing umon.out is unchanged.
refused_before_run() {
	local sum
	sum=$(cksum <umon.out)
	run -125 --separate-stderr "$UPROFILE" -quiet "$@" sh -c 'touch ran'
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: cannot write '"* ]] ||
		fail "unexpected message: $stderr"
	[[ ! -e ran ]] || fail "the program ran: $*"
	assert_equal "$(cksum <umon.out)" "$sum"
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

@test "-o names: 246-255 bytes are written, a longer one is refused before the run" {
	skip_unless_perf_works
	local n name
	for n in 246 250 255; do
		name=$(printf '%*s' "$n" '' | tr ' ' p)
		run -0 "$UPROFILE" -quiet -o "$name" "$TPROG/exitwith" 0
		[[ -s $name ]] || fail "no $n-byte profile"
		rm "$name"
	done
	old_profile
	refused_before_run -o "$(printf '%*s' 256 '' | tr ' ' p)"
	[[ $stderr == *"File name too long"* ]]
	# -pids and -each add a number: the longest one must fit
	refused_before_run -pids -o "$(printf '%*s' 250 '' | tr ' ' p)"
	[[ $stderr == *"File name too long (the longest per-process file name)" ]]
	refused_before_run -each -o "$(printf '%*s' 255 '' | tr ' ' p)"
	[[ $stderr == *"File name too long (the longest per-CPU file name)" ]]
	run -0 ls -A
	assert_output umon.out
}

@test "-o or -report-file naming a directory: 125 before the run" {
	skip_unless_perf_works
	old_profile
	mkdir adir
	refused_before_run -o adir
	assert_equal "$stderr" "uprofile: cannot write 'adir': Is a directory"
	refused_before_run -o adir/
	refused_before_run -dirname adir -o .
	refused_before_run -report-file adir
	assert_equal "$stderr" "uprofile: cannot write 'adir': Is a directory"
	refused_before_run -report-file ..
	# a directory where umon.out would go
	mkdir -p sub/umon.out
	refused_before_run -dirname sub
	[[ $stderr == *"'sub/umon.out': Is a directory" ]]
}

@test "-report-file in a missing directory: 125 before the run" {
	skip_unless_perf_works
	old_profile
	refused_before_run -report-file nodir/r.txt
	assert_equal "$stderr" \
		"uprofile: cannot write 'nodir/r.txt': directory 'nodir': No such file or directory"
	touch afile
	refused_before_run -report-file afile/r.txt
	[[ $stderr == *"Not a directory" ]]
	run -0 ls -A
	assert_output $'afile\numon.out'
}

@test "attaching, kprofile and the sim engine check their outputs first" {
	skip_unless_perf_works
	mkdir adir
	"$TPROG/exitwith" -w 60 >pid &
	BG_PIDS+=("$!")
	wait_nonempty pid
	run -125 --separate-stderr "$UPROFILE" -quiet -o adir -p "$(cat pid)"
	assert_equal "$stderr" "uprofile: cannot write 'adir': Is a directory"
	run -125 --separate-stderr "$KPROFILE" -quiet -o adir sh -c 'touch ran'
	assert_equal "$stderr" "kprofile: cannot write 'adir': Is a directory"
	[[ ! -e ran ]]
	run -125 --separate-stderr "$UPROFILE" -quiet --engine=sim \
		-report-file adir sh -c 'touch ran'
	assert_equal "$stderr" "uprofile: cannot write 'adir': Is a directory"
	[[ ! -e ran ]]
}

# As user nobody in a world-writable directory of our own.
@test "another user's file in a sticky directory, an unwritable directory: 125 before the run" {
	skip_unless_root
	skip_unless_perf_works
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
	SHARED=$(mktemp -d "${TMPDIR:-/tmp}/output-safety.XXXXXX")
	chmod 1777 "$SHARED"
	local as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	"${as_nobody[@]}" true 2>/dev/null || skip "cannot run as nobody"
	# the program could leave its mark there if it ran
	run -0 "${as_nobody[@]}" touch "$SHARED/can-write"
	echo 'root data' >"$SHARED/umon.out"
	mkdir "$SHARED/ro"
	cd "$SHARED" || return 1
	run -125 --separate-stderr "${as_nobody[@]}" "$UPROFILE" -quiet \
		sh -c 'touch ran'
	[[ ! -e ran ]] || fail "the program ran"
	assert_equal "$stderr" "uprofile: cannot write 'umon.out': it belongs to another user (uid 0) in a sticky directory"
	assert_equal "$(cat umon.out)" "root data"
	run -125 --separate-stderr "${as_nobody[@]}" "$UPROFILE" -quiet \
		-o x.out -report-file ro/r.txt sh -c 'touch ran'
	assert_equal "$stderr" "uprofile: cannot write 'ro/r.txt': directory 'ro': Permission denied"
	[[ ! -e ran && ! -e x.out ]] || fail "the program ran"
}

@test "-i with -report-file: the report goes to the file, atomically; a bad file keeps the old report" {
	skip_unless_perf_works
	old_profile
	echo 'precious data' >../victim
	ln -s ../victim r.txt
	run -0 --separate-stderr "$UPROFILE" -i umon.out -report-file r.txt
	assert_output ""
	[[ -f r.txt && ! -L r.txt ]] || fail "r.txt is not a new file"
	assert_equal "$(cat ../victim)" "precious data"
	assert_equal "$(cat r.txt)" "$("$UPROFILE" -i umon.out)"
	# a profile that cannot be read: the old report stays, one line
	local sum
	sum=$(cksum <r.txt)
	echo 'not a profile' >bad.out
	run -125 --separate-stderr "$UPROFILE" -i bad.out -report-file r.txt
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "$(cksum <r.txt)" "$sum"
	# pprof is binary: never on a terminal (script(1) gives one)
	if command -v script >/dev/null; then
		run -125 script -qec "$UPROFILE -i umon.out --format pprof" /dev/null
		[[ $output == *"--format pprof is binary: redirect stdout to a file or give -report-file FILE"* ]] ||
			fail "no refusal on a terminal: $output"
	fi
}
