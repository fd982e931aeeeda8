#!/usr/bin/env bats
# Archived files (section 13) against exhaustion and leaks, as root reads
# profiles someone else wrote: the sizes a profile may declare are capped
# (per file, in all, and against the compressed size) and checked before
# anything is unpacked; the writer leaves out what is over the caps and
# streams what it keeps; profiles with files are written 0600; and the
# directory a report unpacks into never outlives it, however it ends.

load helpers

# add_files IN OUT PATH:SIZE:KIND:N...: IN (a profile) with a section 13
# of one file per argument: an object at PATH declaring SIZE bytes, its
# stream the zlib compression of N zero bytes (KIND zeros) or N random
# bytes (KIND random, not a stream).
add_files() {
	python3 - "$@" <<'PY'
import os, struct, sys, zlib
sys.path.insert(0, os.environ['ROOT'] + '/tests/tools')
from umonsections import sections, rebuild
src, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
d = open(src, 'rb').read()
body = struct.pack('<I', len(specs))
for spec in specs:
    path, size, kind, cnt = spec.split(':')
    z = zlib.compress(bytes(int(cnt))) if kind == 'zeros' \
        else os.urandom(int(cnt))
    body += struct.pack('<II', 0, len(path)) + path.encode()
    body += struct.pack('<IQQ', 0, int(size), len(z)) + z
open(out, 'wb').write(rebuild(d, [s for s in sections(d) if s[0] != 13] +
                               [(13, body)]))
PY
}

# hostile ARGS...: as nobody, a profile with add_files ARGS... in
# $NOBODY_DIR/evil.out; a private TMPDIR for the report, $PWD/tmp.
hostile() {
	nobody_dir
	"$TPROG/mkstacks" write base.out
	chmod 644 base.out
	export -f add_files
	as_nobody bash -c 'add_files base.out evil.out "$@"' bash "$@" ||
		fail "cannot write the profile as nobody"
	mkdir tmp
}

@test "a file declared far larger than its stream (sparse, 64 MiB) is refused before anything is unpacked" {
	hostile /usr/lib/x.so:67108864:zeros:67108864
	TMPDIR=$PWD/tmp run --separate-stderr "$UPROFILE" -i evil.out
	assert_equal "$status" 125
	[[ $stderr == *"archived file '/usr/lib/x.so' declares 67108864 bytes"*"over the 200:1 cap on the compression ratio"* ]] ||
		fail "stderr: $stderr"
	((${#lines[@]} == 0)) || fail "a report: $output"
	run -0 ls -A tmp
	assert_output ""
}

@test "a file declared over 1 GiB is refused, whatever its stream" {
	hostile /a:1073741825:random:6000000
	TMPDIR=$PWD/tmp run --separate-stderr "$UPROFILE" -i evil.out
	assert_equal "$status" 125
	[[ $stderr == *"archived file '/a' declares 1073741825 bytes"*"over the 1 GiB cap per file"* ]] ||
		fail "stderr: $stderr"
	run -0 ls -A tmp
	assert_output ""
}

@test "files declared over 4 GiB in all are refused" {
	# each 1 GiB in a stream long enough for the ratio
	hostile /a:1073741824:random:5400000 /b:1073741824:random:5400000 \
		/c:1073741824:random:5400000 /d:1073741824:random:5400000 \
		/e:4096:zeros:4096
	TMPDIR=$PWD/tmp run --separate-stderr "$UPROFILE" -i evil.out
	assert_equal "$status" 125
	[[ $stderr == *"archived file '/e' declares 4096 bytes"*"over the 4 GiB cap on all the files"* ]] ||
		fail "stderr: $stderr"
	run -0 ls -A tmp
	assert_output ""
}

@test "a stream longer than its declared size is damaged: no more is written" {
	hostile /usr/lib/x.so:1000:zeros:5000
	TMPDIR=$PWD/tmp run --separate-stderr "$UPROFILE" -i evil.out
	assert_equal "$status" 125
	[[ $stderr == *"archived file '/usr/lib/x.so' is damaged"* ]] ||
		fail "stderr: $stderr"
	run -0 ls -A tmp
	assert_output ""
}

# archive: a profile of ./prog (spin2) and its archive packed.out.
archive() {
	skip_unless_perf_works
	cp "$TPROG/spin2" ./prog
	run -0 "$UPROFILE" -quiet -e cpu-clock ./prog 300
	"$@"
	run -0 --separate-stderr "$UPROFILE" --archive packed.out umon.out
}

@test "--archive leaves out an object over 1 GiB with one line, unread" {
	# the same ELF, build-id and all, with a sparse tail
	archive truncate -s 1100M prog
	[[ $stderr == *"'$PWD/prog' is not archived: 1153433600 bytes, over the 1 GiB cap per file"* ]] ||
		fail "stderr: $stderr"
	run -0 "$UPROFILE" -i packed.out
}

@test "--archive leaves out an object that compresses over 200:1" {
	archive truncate -s 64M prog
	[[ $stderr == *"'$PWD/prog' is not archived: 67108864 bytes, over the 200:1 cap on the compression ratio"* ]] ||
		fail "stderr: $stderr"
	run -0 "$UPROFILE" -i packed.out
}

@test "--archive writes the archive 0600; a profile without files keeps the umask's mode" {
	umask 022
	archive :
	run -0 stat -c %a packed.out umon.out
	assert_output $'600\n644'
}

# in_ns CMD...: CMD where ./ns is a tmpfs holding spin2 as ./ns/prog.
in_ns() {
	unshare -m bash -c 'mount -t tmpfs none "$0/ns" &&
		cp "$1" "$0/ns/prog" && shift && exec "$@"' \
		"$PWD" "$TPROG/spin2" "$@"
}

@test "a run whose profile embeds a container's file writes it 0600" {
	skip_unless_perf_works
	skip_unless_root
	umask 022
	mkdir ns
	export -f in_ns
	export TPROG
	run -0 "$UPROFILE" -quiet -e cpu-clock bash -c 'in_ns "$PWD/ns/prog" 300'
	run -0 stat -c %a umon.out
	assert_output 600
}

# stalled VIEW...: the report of packed.out with VIEW in the background,
# its stdout a pipe of one page that nobody reads, so it blocks once it
# has unpacked and written that much; its pid in $STALLED (and BG_PIDS).
# SIGINT and SIGQUIT are not ignored, as they would be in a background
# job.  The pipe's holder (python) ends with the report.
stalled() {
	rm -f pid
	python3 - "$UPROFILE" -i packed.out "$@" >pid 2>stderr 3>&- <<'PY' &
import fcntl, os, signal, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
p = subprocess.Popen(sys.argv[1:], stdout=w, preexec_fn=lambda: [
    signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGQUIT)])
os.close(w)
print(p.pid, flush=True)
p.wait()
PY
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -s pid ]] && compgen -G "tmp/uprofile-archive.*" >/dev/null &&
			break
		sleep 0.1
	done
	compgen -G "tmp/uprofile-archive.*" >/dev/null ||
		fail "no directory unpacked: $(cat stderr)"
	STALLED=$(<pid)
	BG_PIDS+=("$STALLED")
}

# gone_within SECONDS: the unpacked directory is gone within SECONDS.
gone_within() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		compgen -G "tmp/uprofile-archive.*" >/dev/null || return 0
		sleep 0.1
	done
	fail "left behind: $(ls -A tmp)"
}

@test "a report killed by SIGINT, SIGTERM, SIGHUP or SIGKILL after unpacking leaves no directory" {
	archive :
	mkdir tmp
	export TMPDIR=$PWD/tmp
	local sig
	for sig in INT TERM HUP KILL; do
		stalled -asm --format json
		kill -s "$sig" "$STALLED"
		gone_within 30
		wait	# the holder, which ends with the report
	done
}

@test "a report piped into a reader that has gone (| head -1) leaves no directory" {
	archive :
	mkdir tmp
	# the reader closes the pipe at once: the report's first write is
	# its SIGPIPE
	TMPDIR=$PWD/tmp run bash -c '"$0" -i packed.out -asm --format json |
		{ exec 0<&-; sleep 1; }; echo "${PIPESTATUS[0]}"' "$UPROFILE"
	assert_output 141
	gone_within 30
	# and the report of a whole pipe ends with the report (the watchdog
	# holds none of its descriptors)
	TMPDIR=$PWD/tmp run -0 timeout 60 bash -c \
		'"$0" -i packed.out -asm | head -1' "$UPROFILE"
	gone_within 30
}
