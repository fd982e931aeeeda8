#!/usr/bin/env bats
# Root runs read only the files a profiled process really mapped: what
# the process controls (its paths, links, mounts, pid) never makes the
# profiler copy another file into a profile or an archive.  Each test is
# the attack as a container or a profiled user would make it, with a
# root-only secret on the host; tests/programs/mapswap.c is the attacker.

load helpers

setup() {
	common_setup
	skip_unless_root
	skip_unless_perf_works
	[[ $(uname -m) == x86_64 ]] || skip "mapswap's mapped code is x86-64"
	# The host's secret: root only, with a marker line to look for in
	# whatever the tools write (stored blocks of random bytes, so the
	# marker stays readable inside a zlib stream too).
	SECRET_DIR=$(mktemp -d /tmp/uprofile-secret.XXXXXX)
	chmod 711 "$SECRET_DIR"
	MARKER="UPROFILE-SECRET-$RANDOM$RANDOM$RANDOM"
	{ echo "$MARKER"; head -c 65536 /dev/urandom; } >"$SECRET_DIR/secret"
	chmod 600 "$SECRET_DIR/secret"
	export SECRET_DIR MARKER
}

teardown() {
	kill_started "${BG_PIDS[@]}"
	# the -p test's container process (not ours by kill_started's rule)
	[[ -z ${CONTAINED_PID-} ]] || kill -KILL "$CONTAINED_PID" 2>/dev/null
	rm -rf "${SECRET_DIR:?}" "${NOBODY_DIR:-/nonexistent}"
}

# holds_secret FILE: FILE holds the marker, plain or inside a zlib stream.
holds_secret() {
	python3 - "$1" "$MARKER" <<'PY'
import sys, zlib
data, marker = open(sys.argv[1], 'rb').read(), sys.argv[2].encode()
if marker in data:
    sys.exit(0)
for i in range(len(data) - 1):
    if data[i] == 0x78 and data[i + 1] in (0x01, 0x5e, 0x9c, 0xda):
        try:
            if marker in zlib.decompressobj().decompress(data[i:], 1 << 26):
                sys.exit(0)
        except zlib.error:
            pass
sys.exit(1)
PY
}

# contained: mapswap as a container's process: its own mount namespace
# and a bare root (a tmpfs at ./c), mapping /dir/victim, which it then
# overmounts with a link to the host secret's path.
contained() {
	unshare -m bash -c 'mount -t tmpfs none c && mkdir c/dir &&
		cp "$0" c/prog && exec chroot c /prog /dir/victim "$1" 1500 overmount' \
		"$TPROG/mapswap" "$SECRET_DIR/secret"
}

@test "a container's link over its mapped file: the profile holds the file it mapped, never the host's secret" {
	mkdir c
	export -f contained
	run -0 "$UPROFILE" -quiet -e cpu-clock bash -c contained
	holds_secret umon.out && fail "the host's secret is in the profile"
	# the file it did map is there: its code is an object of its own
	run -0 --separate-stderr "$UPROFILE" -i umon.out --format json
	run -0 jq -r '[.rows[] | select(.object == "/dir/victim") | .samples[]] | add' <<<"$output"
	((output > 100)) || fail "only $output samples in /dir/victim"
}

@test "kprofile --user: a container's link over its mapped file does not bring the host's secret in" {
	mkdir c
	export -f contained
	run -0 "$KPROFILE" -quiet --user -e cpu-clock bash -c contained
	holds_secret kmon.out && fail "the host's secret is in the profile"
	true
}

@test "-p PID: a container's process that overmounts its mapped file after the attach" {
	mkdir c
	export -f contained
	MAPSWAP_GO=/go bash -c contained &
	local bg=$! pid= upid i
	BG_PIDS+=($bg)
	for i in $(seq 300); do
		# the function's child: unshare, then bash, chroot, /prog
		pid=$(pgrep -P "$bg" -f "^/prog /dir/victim" || true)
		[[ -n $pid ]] && break
		sleep 0.1
	done
	[[ -n $pid ]] || fail "the container's process did not start"
	CONTAINED_PID=$pid
	"$UPROFILE" -quiet -e cpu-clock -o p.out -p "$pid" &
	upid=$!
	BG_PIDS+=($upid)
	# attached: its events are open
	for i in $(seq 300); do
		ls -l "/proc/$upid/fd" 2>/dev/null | grep -q perf_event && break
		sleep 0.1
	done
	touch "/proc/$pid/root/go"
	wait "$upid" || fail "uprofile -p exited $?"
	holds_secret p.out && fail "the host's secret is in the profile"
	true
}

@test "a profile that carries a container's file is readable by its owner only" {
	mkdir c
	export -f contained
	umask 022
	run -0 "$UPROFILE" -quiet -e cpu-clock bash -c contained
	run -0 stat -c %a umon.out
	assert_output 600
}

# The command prefix that runs a program as nobody (as_nobody's).
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)

# As nobody, mapswap maps its own file lib, runs in it, then replaces lib
# with a link to $SECRET_DIR/secret.elf.
swapped() {
	"$UPROFILE" -quiet -e cpu-clock -o "$BATS_TEST_TMPDIR/u.out" \
		"${NOBODY[@]}" "$TPROG/mapswap" "$NOBODY_DIR/lib" \
		"$SECRET_DIR/secret.elf" 1000 swap
}

# A root-only ELF file holding the marker; $1: keep its build-id.
make_secret_elf() {
	if [[ ${1-} == build-id ]]; then
		objcopy --add-section .marker="$SECRET_DIR/secret" \
			"$TPROG/spin2" "$SECRET_DIR/secret.elf"
	else
		objcopy --remove-section .note.gnu.build-id \
			--add-section .marker="$SECRET_DIR/secret" \
			"$TPROG/spin2" "$SECRET_DIR/secret.elf"
	fi
	chmod 600 "$SECRET_DIR/secret.elf"
}

@test "--archive: a profiled user's library replaced by a link to a root-only ELF file (no build-id) while it runs" {
	nobody_dir
	make_secret_elf
	run -0 swapped
	[[ -L lib ]] || fail "lib was not replaced"
	holds_secret "$BATS_TEST_TMPDIR/u.out" && fail "the secret is in the profile"
	run -0 "$UPROFILE" --archive "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/u.out"
	# the file it mapped (no ELF: mapswap's code) or nothing, never the
	# secret
	assert_output --regexp "'$NOBODY_DIR/lib' .*not archived"
	holds_secret "$BATS_TEST_TMPDIR/a.out" && fail "the secret is in the archive"
	true
}

@test "--archive: a program without a build-id replaced by a link to a root-only ELF file after the run is not archived" {
	nobody_dir
	make_secret_elf
	objcopy --remove-section .note.gnu.build-id "$TPROG/spin2" prog
	chmod 755 prog
	run -0 "$UPROFILE" -quiet -e cpu-clock -o "$BATS_TEST_TMPDIR/u.out" \
		"${NOBODY[@]}" ./prog 300
	"${NOBODY[@]}" ln -sf "$SECRET_DIR/secret.elf" prog
	run -0 "$UPROFILE" --archive "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/u.out"
	assert_output --partial "'$NOBODY_DIR/prog' has no build-id and is not the file profiled (replaced since): not archived"
	holds_secret "$BATS_TEST_TMPDIR/a.out" && fail "the secret is in the archive"
	true
}

@test "--archive and reports: a program with a build-id replaced by a link to a root-only ELF file without one is neither archived nor read" {
	nobody_dir
	make_secret_elf
	cp "$TPROG/spin2" prog
	chmod 755 prog
	run -0 "$UPROFILE" -quiet -e cpu-clock -o "$BATS_TEST_TMPDIR/u.out" \
		"${NOBODY[@]}" ./prog 300
	"${NOBODY[@]}" ln -sf "$SECRET_DIR/secret.elf" prog
	run -0 "$UPROFILE" --archive "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/u.out"
	assert_output --partial "'$NOBODY_DIR/prog' has another build-id here"
	holds_secret "$BATS_TEST_TMPDIR/a.out" && fail "the secret is in the archive"
	# nor are its symbols read: the rows are addresses
	run -0 "$UPROFILE" -i "$BATS_TEST_TMPDIR/u.out"
	refute_output --partial hot_a
}

@test "--archive: a library replaced by a link to a root-only ELF file with a build-id is not archived either" {
	nobody_dir
	make_secret_elf build-id
	run -0 swapped
	holds_secret "$BATS_TEST_TMPDIR/u.out" && fail "the secret is in the profile"
	run -0 "$UPROFILE" --archive "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/u.out"
	assert_output --regexp "'$NOBODY_DIR/lib' .*not archived"
	holds_secret "$BATS_TEST_TMPDIR/a.out" && fail "the secret is in the archive"
	true
}

@test "--archive of a library that was not replaced still carries it" {
	nobody_dir
	# A program without a build-id, left in place: archived, by the
	# identity the run recorded.
	objcopy --remove-section .note.gnu.build-id "$TPROG/spin2" spin2-nobid
	chmod 755 spin2-nobid
	run -0 "$UPROFILE" -quiet -e cpu-clock -o "$BATS_TEST_TMPDIR/u.out" \
		"${NOBODY[@]}" ./spin2-nobid 500
	run -0 "$UPROFILE" --archive "$BATS_TEST_TMPDIR/a.out" "$BATS_TEST_TMPDIR/u.out"
	refute_output --partial "not archived"
	run -0 --separate-stderr "$UPROFILE" -i "$BATS_TEST_TMPDIR/a.out" --format json
	run -0 jq -r '[.rows[] | .procedure] | unique[]' <<<"$output"
	assert_line hot_a
}

@test "a JIT map written by a profiled user's process that has exited is still used (its owner was noted while it ran)" {
	nobody_dir
	run -0 "$UPROFILE" -quiet -e cpu-clock -o "$BATS_TEST_TMPDIR/u.out" \
		"${NOBODY[@]}" "$TPROG/jitspin" 600
	run -0 --separate-stderr "$UPROFILE" -i "$BATS_TEST_TMPDIR/u.out" --format json
	run -0 jq -r '[.rows[] | .procedure] | unique[]' <<<"$output"
	assert_line jit_hot
}

@test "-asm of a container's program whose DWARF names a host file as its source: that file is not read" {
	# hot() says it comes from line 1 of the host's secret
	cat >lure.c <<-SRC
	#line 1 "$SECRET_DIR/secret"
	__attribute__((noinline)) unsigned long hot(unsigned long n) { volatile unsigned long s = 0; while (n--) s += n; return s; }
	#line 3 "lure.c"
	int main(void) { volatile unsigned long s = 0; for (int i = 0; i < 60000; i++) s += hot(100000); return (int)(s & 0); }
	SRC
	# (DWARF 4: GCC 12's DWARF 5 line table loses a #line file name,
	# for addr2line too)
	gcc -O1 -gdwarf-4 -static -o lure lure.c
	mkdir c
	run -0 "$UPROFILE" -quiet -e cpu-clock unshare -m bash -c \
		'mount -t tmpfs none c && cp lure c/lure && exec chroot c /lure'
	run -0 "$UPROFILE" -i umon.out -asm -only hot
	refute_output --partial "$MARKER"
	# (read from the profile's copy; or, when the program was gone before
	# its mapping was read, not read at all)
	assert_output --regexp "note: the source files of /lure are not read \(it was read from the profile's own copy, which carries no source files\)|note: cannot read '/lure' \(its path may lead to another file than the one mapped"
	# the same program here, a user's: root reads for it only what that
	# user could (the secret is root's, 0600)
	cp lure lure-user
	chown nobody lure-user
	run -0 "$UPROFILE" -quiet -e cpu-clock -o user.out ./lure-user
	run -0 "$UPROFILE" -i user.out -asm -only hot
	refute_output --partial "$MARKER"
	assert_output --partial "note: the source files of $PWD/lure-user are not read (its owner, uid $(id -u nobody), could not read some of them)"
	# root's own program: its source lines are read as always
	run -0 "$UPROFILE" -quiet -e cpu-clock -o here.out ./lure
	run -0 "$UPROFILE" -i here.out -asm -only hot
	assert_output --partial "$MARKER"
}

# unread_all IN OUT: IN with every file object marked as one the run could
# not check (section 14, PROF_ID_UNREAD), as a root run marks a file of a
# process that was gone, or whose path led to another file.
unread_all() {
	python3 - "$1" "$2" <<-'PY'
	import os, struct, sys
	sys.path.insert(0, os.environ['ROOT'] + '/tests/tools')
	from umonsections import fix_crc
	b = bytearray(open(sys.argv[1], 'rb').read())
	n = struct.unpack_from('<I', b, 12)[0]
	o = [struct.unpack_from('<Q', b, 40 + 24 * i)[0] for i in range(n)
	     if struct.unpack_from('<I', b, 32 + 24 * i)[0] == 14][0]
	for k in range(struct.unpack_from('<I', b, o)[0]):
	    struct.pack_into('<IQQQQ', b, o + 4 + 40 * k + 4, 1, 0, 0, 0, 0)
	open(sys.argv[2], 'wb').write(fix_crc(b))
	PY
}

@test "a file the run could not check is never read by its path: its rows are addresses, one note says why" {
	run -0 "$UPROFILE" -quiet -e cpu-clock "$TPROG/spin2" 300
	unread_all umon.out u.out
	run -0 "$UPROFILE" -i u.out
	refute_output --partial hot_a
	assert_output --partial "its path may lead to another file than the one mapped, which could not be checked: not read"
	# and --archive takes nothing for it
	run -0 "$UPROFILE" --archive a.out u.out
	assert_output --partial "archived 0 objects"
}
