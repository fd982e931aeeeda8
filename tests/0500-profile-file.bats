#!/usr/bin/env bats
# Profile files: where they are written (-o, -dirname, -pids, -each), that
# they are written atomically, and that damaged files are rejected with
# status 125 and one clear line, never a crash (docs/profile-format.md).

load helpers

# make_profile FILE [MS]: a profile of spin2 in FILE.
make_profile() {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -e cpu-clock -o "$1" "$TPROG/spin2" "${2:-100}"
	[[ -s $1 ]]
}

# rejects FILE WORDS...: "uprofile -i FILE" fails with 125 and exactly one
# line on stderr, "uprofile: ...", naming FILE and containing each of
# WORDS (case-insensitive); nothing on stdout.
rejects() {
	local file=$1 w
	shift
	run -125 --separate-stderr "$UPROFILE" -i "$file"
	assert_output ""
	[[ ${#stderr_lines[@]} -eq 1 ]] ||
		fail "expected one line on stderr, got: $stderr"
	[[ $stderr == "uprofile: "*"'$file'"* ]] ||
		fail "message does not name '$file': $stderr"
	for w; do
		[[ ${stderr,,} == *"${w,,}"* ]] ||
			fail "message lacks '$w': $stderr"
	done
}

# The damage tool: craft.py MODE SRC DST [ARG] writes a damaged copy of
# profile SRC to DST.  Except for truncate and flip, the CRC-32 is
# recomputed, so the damage is found by validating the contents.  The
# modes on sections 7-9 need a profile with stacks (mkstacks write).
write_craft() {
	cat >craft.py <<'EOF'
import struct, sys, zlib

def u32(b, o): return struct.unpack_from('<I', b, o)[0]
def u64(b, o): return struct.unpack_from('<Q', b, o)[0]
def put32(b, o, v): struct.pack_into('<I', b, o, v & 0xffffffff)
def put64(b, o, v): struct.pack_into('<Q', b, o, v & 0xffffffffffffffff)

mode, src, dst = sys.argv[1:4]
arg = sys.argv[4] if len(sys.argv) > 4 else None
b = bytearray(open(src, 'rb').read())
assert b[:8] == b'UMONPROF' and u32(b, 8) == 3, 'not a version 3 profile'
# section id -> (table entry offset, section offset, section size)
sec = {u32(b, 32 + 24 * i): (32 + 24 * i, u64(b, 40 + 24 * i),
                             u64(b, 48 + 24 * i))
       for i in range(u32(b, 12))}
assert set(sec) - {10, 11, 14, 15} in ({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5, 7, 8, 9}), \
    'unexpected sections %r' % sec
fix_crc = True
if mode == 'truncate':
    b = b[:int(arg)]
    fix_crc = False
elif mode == 'flip':
    b[int(arg)] ^= 0xff
    fix_crc = False
elif mode == 'section-offset':          # section starts after the end
    put64(b, sec[int(arg)][0] + 8, len(b) + 64)
elif mode == 'section-end':             # section ends one byte too late
    put64(b, sec[int(arg)][0] + 16, len(b) - sec[int(arg)][1] + 1)
elif mode == 'section-wrap':            # offset + size overflows
    put64(b, sec[int(arg)][0] + 8, 2**64 - 16)
elif mode == 'section-short':           # decoder does not consume it all
    put64(b, sec[int(arg)][0] + 16, sec[int(arg)][2] - 1)
elif mode == 'section-id':              # ID:NEW
    i, v = arg.split(':')
    put32(b, sec[int(i)][0], int(v))
elif mode == 'nsections':
    put32(b, 12, int(arg, 0))
elif mode == 'version':
    put32(b, 8, int(arg))
elif mode == 'magic':
    b[0:8] = arg.encode()
elif mode == 'size-field':
    put64(b, 16, len(b) + int(arg))
elif mode == 'string-length':           # first key of the metadata
    put32(b, sec[1][1] + 4, int(arg, 0))
elif mode == 'count':                   # element count of section ARG
    # (modes: u32 ncpus, u32 nmodes, u32 count)
    put32(b, sec[int(arg)][1] + (8 if arg == '5' else 0), 0xffffffff)
elif mode == 'count-plus':              # one element more than there is
    o = sec[int(arg)][1]
    put32(b, o, u32(b, o) + 1)
elif mode == 'nmodes':
    put32(b, sec[5][1] + 4, int(arg, 0))
elif mode == 'object-index':            # first count entry's object
    put32(b, sec[4][1] + 4, u32(b, sec[3][1]))
elif mode == 'stat-index':              # first count entry's statistic
    put32(b, sec[4][1] + 8, u32(b, sec[2][1]))
elif mode == 'identity-object':         # first identity's object: one
    put32(b, sec[14][1] + 4, u32(b, sec[3][1]))  # past the last object
elif mode == 'identity-flags':          # first identity's flags: ARG
    put32(b, sec[14][1] + 8, int(arg, 0))
elif mode == 'identity-ino':            # first identity's inode: 0
    put64(b, sec[14][1] + 4 + 8 + 8, 0)
elif mode == 'build-id-length':         # first object's, above 20
    o = sec[3][1] + 4 + 4
    o += 4 + u32(b, o)
    put32(b, o, 21)
elif mode == 'frame-object':            # first frame's object
    put32(b, sec[7][1] + 4, u32(b, sec[3][1]))
elif mode == 'stack-end':               # first stack's end
    put32(b, sec[8][1] + 4, int(arg, 0))
elif mode == 'stack-nframes':           # first stack's number of frames
    put32(b, sec[8][1] + 8, int(arg, 0))
elif mode == 'stack-frame':             # first stack's leaf frame
    put32(b, sec[8][1] + 12, u32(b, sec[7][1]))
elif mode == 'stack-count-stack':       # first stack count's stack
    put32(b, sec[9][1] + 4, u32(b, sec[8][1]))
elif mode == 'stack-count-stat':        # first stack count's statistic
    put32(b, sec[9][1] + 8, u32(b, sec[2][1]))
elif mode == 'stack-count-swap':        # first two stack counts swapped
    o = sec[9][1] + 4
    b[o:o + 48] = b[o + 24:o + 48] + b[o:o + 24]
elif mode == 'stack-count-dup':         # first stack count twice
    o = sec[9][1] + 4
    b[o + 24:o + 48] = b[o:o + 24]
elif mode == 'task-count-count':        # first task count's count index
    put32(b, sec[11][1] + 4, u32(b, sec[4][1]))
elif mode == 'task-count-task':         # first task count's task
    put32(b, sec[11][1] + 8, u32(b, sec[10][1]))
elif mode == 'task-count-swap':         # first two task counts swapped
    o = sec[11][1] + 4
    b[o:o + 64] = b[o + 32:o + 64] + b[o:o + 32]
elif mode == 'task-count-samples':      # first task count's samples + 1
    o = sec[11][1] + 4 + 16
    put64(b, o, u64(b, o) + 1)
elif mode == 'task-comm-length':        # first task's name length
    put32(b, sec[10][1] + 12, int(arg, 0))
elif mode == 'meta-replace':            # OLD:NEW, the same length
    old, new = (x.encode() for x in arg.split(':'))
    o, n = sec[1][1], sec[1][2]
    assert len(old) == len(new) and b[o:o + n].count(old) == 1
    b[o:o + n] = b[o:o + n].replace(old, new)
elif mode == 'table-reverse':           # sections listed last to first
    n = u32(b, 12)
    t = [b[32 + 24 * i:56 + 24 * i] for i in range(n)]
    b[32:32 + 24 * n] = b''.join(reversed(t))
else:
    sys.exit('craft.py: unknown mode ' + mode)
if fix_crc:
    put32(b, 24, zlib.crc32(bytes(b[32:])))
open(dst, 'wb').write(b)
EOF
}

craft() {
	python3 craft.py "$@"
}

@test "-o FILE writes FILE and no umon.out" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -o my.prof "$TPROG/exitwith" 0
	[[ -s my.prof && ! -e umon.out ]]
	run -0 "$UPROFILE" -i my.prof -format json
	assert_equal "$(jq -r .file <<<"$output")" my.prof
	# a path in another directory
	mkdir sub
	run -0 "$UPROFILE" -quiet --output=sub/x.out "$TPROG/exitwith" 0
	[[ -s sub/x.out && ! -e umon.out ]]
	# a directory that does not exist: 125, the name in the message
	run -125 --separate-stderr "$UPROFILE" -quiet -o nodir/x.out "$TPROG/exitwith" 0
	[[ $stderr == *"nodir/x.out"* ]]
}

@test "-dirname DIR writes DIR/umon.out" {
	skip_unless_perf_works
	mkdir out
	run -0 "$UPROFILE" -quiet -dirname out "$TPROG/exitwith" 0
	[[ -s out/umon.out && ! -e umon.out ]]
	run -0 "$UPROFILE" -quiet --dirname=out -o my.out "$TPROG/exitwith" 0
	[[ -s out/my.out ]]
	# an absolute -o is not moved into DIR
	run -0 "$UPROFILE" -quiet -dirname out -o "$PWD/abs.out" "$TPROG/exitwith" 0
	[[ -s abs.out && ! -e out/abs.out ]]
}

@test "-dirname of a missing directory or of a file: 125 naming it" {
	skip_unless_perf_works
	run -125 --separate-stderr "$UPROFILE" -quiet -dirname no-such-dir "$TPROG/exitwith" 0
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: "*"'no-such-dir'"* ]]
	[[ $stderr == *"No such file or directory"* ]]
	[[ ! -e umon.out && ! -e no-such-dir ]]
	touch afile
	run -125 --separate-stderr "$UPROFILE" -quiet -dirname afile "$TPROG/exitwith" 0
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: "*"'afile'"* ]]
	[[ ${stderr,,} == *"not a directory"* ]] ||
		fail "message does not say why: $stderr"
}

@test "a bad -dirname is found before the program runs" {
	skip_unless_perf_works
	run -125 "$UPROFILE" -quiet -dirname no-such-dir sh -c 'touch ran'
	[[ ! -e ran ]] || fail "the program ran although its profile could not be written"
}

@test "-pids: the program started shows its arguments even when it ends before they can be read" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -pids -o s.out sh -c ': short'
	local files=(s.*.out)
	assert_equal "${#files[@]}" 1
	run -0 "$UPROFILE" -i "${files[0]}" -format json
	assert_equal "$(jq -c .command <<<"$output")" '["sh","-c",": short"]'
}

@test "-pids: one file per process, umon.PID.out, each with its own pid" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -pids "$TPROG/forkexec" 600
	local files=(umon.*.out) f pid json pids=()
	assert_equal "${#files[@]}" 2
	[[ ! -e umon.out ]]
	for f in "${files[@]}"; do
		[[ $f =~ ^umon\.([0-9]+)\.out$ ]]
		pid=${BASH_REMATCH[1]}
		json=$("$UPROFILE" -i "$f" -format json)
		assert_equal "$(jq .pid <<<"$json")" "$pid"
		pids+=("$pid")
		# the parent has parent_spin, the exec'd child hot_a and hot_b
		case $(jq -r '.rows[0].procedure' <<<"$json") in
		parent_spin)
			# its own command: the one profiled
			assert_equal "$(jq -c .command <<<"$json")" "[\"$TPROG/forkexec\",\"600\"]"
			# parent_spin, and the clock reads it spins on
			awk -v s="$(json_share parent_spin cpu-clock - <<<"$json")" \
				'BEGIN { exit !(s >= 80) }' ||
				fail "parent_spin has only $(json_share parent_spin cpu-clock - <<<"$json")%"
			assert_equal "$(json_share hot_a cpu-clock - <<<"$json")" 0.00 ;;
		hot_a)
			# its own command, not its parent's: the program it
			# exec'd, with the arguments when they could be read
			# before it ended
			[[ $(jq -r '.command[0]' <<<"$json") == *spin2 ]] ||
				fail "command: $(jq -c .command <<<"$json")"
			run -0 "$UPROFILE" -i "$f"
			[[ ${lines[0]} =~ ^"Profile $f (uprofile): "[^\ ]*spin2( 600)?" (process $pid)"$ ]] ||
				fail "heading: ${lines[0]}"
			assert_split "$json" hot_a hot_b 75 10
			assert_equal "$(json_share parent_spin cpu-clock - <<<"$json")" 0.00 ;;
		*)
			fail "unexpected top procedure in $f: $json" ;;
		esac
	done
	[[ ${pids[0]} != "${pids[1]}" ]]
	# one of each
	assert_equal "$(for f in "${files[@]}"; do
		"$UPROFILE" -i "$f" -format json | jq -r '.rows[0].procedure'
	done | sort | tr '\n' ' ')" "hot_a parent_spin "
}

@test "-pids with -o NAME.out and another name" {
	skip_unless_perf_works
	run -0 "$UPROFILE" -quiet -pids -o p.out "$TPROG/spin2" 50
	local f=(p.*.out)
	assert_equal "${#f[@]}" 1
	[[ ${f[0]} =~ ^p\.[0-9]+\.out$ ]]
	run -0 "$UPROFILE" -quiet -pids -o prof "$TPROG/spin2" 50
	f=(prof.*)
	assert_equal "${#f[@]}" 1
	[[ ${f[0]} =~ ^prof\.[0-9]+$ ]]
}

@test "-each: FILE.N per CPU, adding up to an -all run" {
	skip_unless_perf_works
	command -v taskset >/dev/null || skip "taskset (util-linux) is missing"
	need_cpus 2
	# one spin2 pinned to each of the first two CPUs we may use
	local cpus c0 c1
	cpus=$(allowed_cpus | tr '\n' ' ')
	read -r c0 c1 _ <<<"$cpus"
	local work="taskset -c $c0 '$TPROG/spin2' 800 & taskset -c $c1 '$TPROG/spin2' 800; wait"
	run -0 "$UPROFILE" -quiet -e cpu-clock -each sh -c "$work"
	[[ ! -e umon.out ]]
	[[ -s umon.out.$c0 && -s umon.out.$c1 ]] ||
		fail "expected umon.out.$c0 and umon.out.$c1 (CPUs $cpus), got: $(ls)"
	local f n each=0 json
	for f in umon.out.*; do
		n=${f#umon.out.}
		json=$("$UPROFILE" -i "$f" -format json)
		assert_equal "$(jq .cpu <<<"$json")" "$n"
		# every sample of the file is on its CPU
		run -0 jq -e --argjson n "$n" 'all(.modes[]; .cpu == $n)' <<<"$json"
		each=$((each + $(jq '.statistics[0].samples' <<<"$json")))
		assert_split "$json" hot_a hot_b 75 10
	done
	run -0 "$UPROFILE" -quiet -e cpu-clock -all sh -c "$work"
	local all
	all=$("$UPROFILE" -i umon.out -format json | jq '.statistics[0].samples')
	# the same work: the same number of samples, give or take
	((each > all / 2 && each < all * 2)) ||
		fail "-each: $each samples, -all: $all"
	assert_near "$each" 1600 400
}

@test "profiles are replaced atomically: new inode, no temporary file left" {
	skip_unless_perf_works
	run -1 "$UPROFILE" -quiet "$TPROG/exitwith" 1
	ln umon.out old-link
	local old_sum old_ino
	old_sum=$(cksum <old-link)
	old_ino=$(stat -c %i umon.out)
	run -0 "$UPROFILE" -quiet "$TPROG/exitwith" 0
	# the old file was not rewritten in place, but replaced by rename
	[[ $(stat -c %i umon.out) != "$old_ino" ]]
	assert_equal "$(cksum <old-link)" "$old_sum"
	run -0 ls -A
	assert_output $'old-link\numon.out'
}

@test "a read-only directory: 125, the old profile untouched" {
	skip_unless_perf_works
	mkdir ro
	make_profile ro/umon.out
	local sum
	sum=$(cksum <ro/umon.out)
	if (($(id -u) == 0)); then
		# root writes anywhere: make a read-only mount of the directory
		command -v unshare >/dev/null || skip "unshare is missing"
		unshare -m true 2>/dev/null || skip "cannot make a mount namespace"
		run -125 --separate-stderr unshare -m sh -c \
			'mount --bind -o ro ro ro && exec "$@"' sh \
			"$UPROFILE" -quiet -dirname ro "$TPROG/exitwith" 0
	else
		chmod a-w ro
		run -125 --separate-stderr "$UPROFILE" -quiet -dirname ro "$TPROG/exitwith" 0
		chmod u+w ro
	fi
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "uprofile: "*"ro/umon.out"* ]]
	assert_equal "$(cksum <ro/umon.out)" "$sum"
	run -0 ls -A ro
	assert_output umon.out
}

@test "a profile copied elsewhere is read from any directory" {
	make_profile orig.out 600
	local want
	want=$("$UPROFILE" -i orig.out -format json | jq -c '[.rows[] | [.procedure, .object, .percent]]')
	mkdir -p elsewhere/deeper other
	cp orig.out elsewhere/deeper/copied.out
	rm orig.out
	cd other
	run -0 "$UPROFILE" -i ../elsewhere/deeper/copied.out -format json
	assert_equal "$(jq -c '[.rows[] | [.procedure, .object, .percent]]' <<<"$output")" "$want"
	assert_equal "$(jq -r .file <<<"$output")" ../elsewhere/deeper/copied.out
	assert_split "$output" hot_a hot_b 75 12
	run -0 "$UPROFILE" -i "$BATS_TEST_TMPDIR/elsewhere/deeper/copied.out" -lines
	assert_line --regexp ' spin2\.c:45 +hot_a +spin2$'
}

@test "a missing or empty profile file: 125 with one line" {
	run -125 --separate-stderr "$UPROFILE" -i no-such.out
	assert_equal "$stderr" "uprofile: cannot open 'no-such.out': No such file or directory"
	: >empty.out
	rejects empty.out
	mkdir dir.out
	rejects dir.out
	printf 'hello, world\n' >text.out
	rejects text.out
}

@test "truncated profiles are rejected, never crash" {
	make_profile good.out
	write_craft
	local size n
	size=$(stat -c %s good.out)
	for n in 0 1 7 8 12 16 24 31 32 40 55 56 100 200 $((size / 2)) \
		$((size - 33)) $((size - 8)) $((size - 1)); do
		craft truncate good.out t.out "$n"
		rejects t.out
	done
	# trailing garbage is no better
	cp good.out long.out
	printf 'x' >>long.out
	rejects long.out 'trailing'
}

@test "a profile truncated inside the header says it is truncated" {
	make_profile good.out
	write_craft
	local n
	for n in 8 12 20 31; do
		craft truncate good.out t.out "$n"
		rejects t.out 'truncated'
	done
}

@test "flipped bytes: checksum mismatch" {
	make_profile good.out
	write_craft
	local size off
	size=$(stat -c %s good.out)
	for off in 32 40 100 $((size / 2)) $((size - 1)); do
		craft flip good.out f.out "$off"
		rejects f.out 'checksum'
	done
	# the checksum itself
	craft flip good.out f.out 25
	rejects f.out 'checksum'
}

@test "damaged sections with a valid checksum are rejected with a clear message" {
	make_profile good.out
	write_craft
	local s
	for s in 1 2 3 4 5; do
		craft section-offset good.out d.out "$s"
		rejects d.out 'outside the file'
		craft section-end good.out d.out "$s"
		rejects d.out 'outside the file'
		craft section-wrap good.out d.out "$s"
		rejects d.out 'outside the file'
		craft section-short good.out d.out "$s"
		rejects d.out 'section'
		craft count good.out d.out "$s"
		rejects d.out 'section'
	done
	craft nmodes good.out d.out 4
	rejects d.out 'modes'
	craft nmodes good.out d.out 0xffffffff
	rejects d.out 'modes'
	craft section-id good.out d.out 4:99
	rejects d.out 'missing'
	craft section-id good.out d.out 5:4
	rejects d.out 'section'
}

@test "a huge string length, bad indices, a long build-id: rejected" {
	make_profile good.out
	write_craft
	craft string-length good.out d.out 0xfffffff0
	rejects d.out 'metadata'
	craft string-length good.out d.out 0x100001
	rejects d.out 'metadata'
	craft object-index good.out d.out
	rejects d.out 'counts'
	craft stat-index good.out d.out
	rejects d.out 'counts'
	craft build-id-length good.out d.out
	rejects d.out 'objects'
}

@test "file identities (section 14): recorded for the program's files; bad indices, flags and inode 0 rejected" {
	run -0 "$UPROFILE" -quiet -e cpu-clock -o good.out "$TPROG/spin2" 200
	write_craft
	python3 - good.out <<-'PY'
	import struct, sys
	b = open(sys.argv[1], 'rb').read()
	ids = [struct.unpack_from('<I', b, 32 + 24 * i)[0]
	       for i in range(struct.unpack_from('<I', b, 12)[0])]
	assert 14 in ids, 'no identities section: %r' % ids
	PY
	craft identity-object good.out d.out
	rejects d.out 'file identities'
	craft identity-flags good.out d.out 2
	rejects d.out 'file identities'
	# "never read by path" with an identity as well: one or the other
	craft identity-flags good.out d.out 1
	rejects d.out 'file identities'
	craft identity-ino good.out d.out
	rejects d.out 'file identities'
}

@test "section count 0 or huge, wrong size field: rejected" {
	make_profile good.out
	write_craft
	local n
	for n in 0 65 0x10000 0xffffffff; do
		craft nsections good.out d.out "$n"
		rejects d.out 'section'
	done
	craft size-field good.out d.out 1
	rejects d.out 'truncated'
	craft size-field good.out d.out -1
	rejects d.out
}

@test "version 4 is unsupported, a wrong magic is not a profile" {
	make_profile good.out
	write_craft
	craft version good.out d.out 4
	rejects d.out 'version 4' 'not supported'
	craft version good.out d.out 0
	rejects d.out 'version 0' 'not supported'
	craft magic good.out d.out UMONPROX
	rejects d.out 'not a profile'
	craft magic good.out d.out KMONPROF
	rejects d.out 'not a profile'
}

# Call stacks (sections 7-9), written by tests/tools/mkstacks.c: no
# sampling needed.
MKSTACKS=$ROOT/$BUILD/tests/mkstacks

# The stacks mkstacks writes, as "mkstacks print" shows them.
STACKS_PRINTED="frame 0: /nonexistent/prog+0x1010
frame 1: /nonexistent/prog+0x1100
frame 2: /nonexistent/libc.so.6+0x2200
frame 3: /nonexistent/prog+0x1200
stack 0: 0 1 3 (complete)
stack 1: 2 1 3 (complete)
stack 2: 0 (truncated: no unwind information)
count cpu-clock stack 0: 6 samples, weight 6000000
count cpu-clock stack 1: 3 samples, weight 3000000
count cpu-clock stack 2: 1 samples, weight 1000000
count task-clock stack 0: 4 samples, weight 4000000
count task-clock stack 1: 2 samples, weight 2000000"

# sections FILE: the section ids of profile FILE, in table order.
sections() {
	python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
print(" ".join(str(struct.unpack_from("<I", b, 32 + 24 * i)[0])
               for i in range(struct.unpack_from("<I", b, 12)[0])))' "$1"
}

# rows FILE: the report of FILE as JSON, without the file's name and
# the timeline member (why a file has none depends on its version).
rows() {
	"$UPROFILE" -i "$1" -format json | jq -c 'del(.file, .timeline)'
}

# timeline_missing FILE: why the report of FILE has no timeline.
timeline_missing() {
	"$UPROFILE" -i "$1" -format json | jq -r '.timeline.missing'
}

@test "call stacks: written as version 3, read back as written" {
	run -0 "$MKSTACKS" write s.out
	assert_equal "$(od -An -tu4 -j8 -N4 s.out | tr -d ' ')" 3
	assert_equal "$(sections s.out)" "1 2 3 4 5 7 8 9"
	# the stack counts were added out of order: read back sorted
	run -0 "$MKSTACKS" print s.out
	assert_output "call_graph dwarf
stack_dump 8192
$STACKS_PRINTED"
	local cg
	for cg in fp auto; do
		run -0 "$MKSTACKS" write s.out "$cg"
		run -0 "$MKSTACKS" print s.out
		assert_line --index 0 "call_graph $cg"
	done
	run -0 "$MKSTACKS" print s.out
	assert_line --index 1 "stack_dump 8192"
	# without stacks: no sections 7-9, no call-graph keys
	run -0 "$MKSTACKS" flat n.out
	assert_equal "$(sections n.out)" "1 2 3 4 5"
	run -0 "$MKSTACKS" print n.out
	assert_output $'call_graph none\nstack_dump 0'
	run -1 grep -c call_graph n.out
	# stacks change the flat report only by what the report says of
	# them: the call-stack summary and each row's total%
	assert_equal "$(rows s.out | jq -c 'del(.call_stacks) |
		del(.rows[].total_percent)')" \
		"$(rows n.out | jq -c 'del(.call_stacks)')"
	assert_equal "$(rows n.out | jq -c .call_stacks)" null
	rows s.out | json_check
}

@test "call stacks: the section table in any order reads the same" {
	run -0 "$MKSTACKS" write s.out
	write_craft
	craft table-reverse s.out r.out
	assert_equal "$(sections r.out)" "9 8 7 5 4 3 2 1"
	run -0 "$MKSTACKS" print r.out
	assert_output "call_graph dwarf
stack_dump 8192
$STACKS_PRINTED"
}

@test "version 1 is read as a profile without stacks" {
	write_craft
	# A version-1 writer wrote sections 1-5 exactly as version 2 does
	# without stacks: only the version field differs.
	run -0 "$MKSTACKS" flat n.out
	craft version n.out v1.out 1
	run -0 "$MKSTACKS" print v1.out
	assert_output $'call_graph none\nstack_dump 0'
	assert_equal "$(rows v1.out)" "$(rows n.out)"
	assert_equal "$(timeline_missing v1.out)" \
		"it was written before times were kept (profile file version 1 or 2)"
	assert_equal "$(timeline_missing n.out)" "its writer kept no times"
	# Sections 7-9 and the call-graph keys are unknown to version 1:
	# ignored, even when damaged.
	run -0 "$MKSTACKS" write s.out
	craft version s.out v1.out 1
	run -0 "$MKSTACKS" print v1.out
	assert_output $'call_graph none\nstack_dump 0'
	assert_equal "$(rows v1.out)" "$(rows n.out)"
	craft frame-object s.out d.out
	craft version d.out v1.out 1
	run -0 "$MKSTACKS" print v1.out
	craft meta-replace s.out d.out dwarf:dwarx
	craft version d.out v1.out 1
	run -0 "$MKSTACKS" print v1.out
	assert_output $'call_graph none\nstack_dump 0'
}

@test "damaged stack sections are rejected with one line, status 125" {
	run -0 "$MKSTACKS" write s.out
	write_craft
	local s n
	for s in 7 8 9; do
		craft section-offset s.out d.out "$s"
		rejects d.out 'outside the file'
		craft section-end s.out d.out "$s"
		rejects d.out 'outside the file'
		craft section-wrap s.out d.out "$s"
		rejects d.out 'outside the file'
		craft section-short s.out d.out "$s"
		rejects d.out 'section is malformed'
		craft count s.out d.out "$s"
		rejects d.out 'section is malformed'
		craft count-plus s.out d.out "$s"
		rejects d.out 'section is malformed'
		# one without the others
		craft section-id s.out d.out "$s:99"
		rejects d.out 'frames, stacks and stack counts' 'together'
	done
	craft frame-object s.out d.out
	rejects d.out 'frames section is malformed'
	craft stack-frame s.out d.out
	rejects d.out 'stacks section is malformed'
	for n in 0 0xffffffff; do
		craft stack-nframes s.out d.out "$n"
		rejects d.out 'stacks section is malformed'
	done
	for n in 11 0xffffffff; do
		craft stack-end s.out d.out "$n"
		rejects d.out 'stacks section is malformed'
	done
	craft stack-end s.out d.out 7
	run -0 "$MKSTACKS" print d.out
	assert_line 'stack 0: 0 1 3 (kernel frames only)'
	craft stack-end s.out d.out 8
	run -0 "$MKSTACKS" print d.out
	assert_line 'stack 0: 0 1 3 (truncated: stack switch)'
	craft stack-end s.out d.out 9
	run -0 "$MKSTACKS" print d.out
	assert_line 'stack 0: 0 1 3 (truncated: 32-bit task)'
	craft stack-end s.out d.out 10
	run -0 "$MKSTACKS" print d.out
	assert_line 'stack 0: 0 1 3 (truncated: no stack copied)'
	for n in stack-count-stack stack-count-stat stack-count-swap \
		stack-count-dup; do
		craft "$n" s.out d.out
		rejects d.out 'stack counts section is malformed'
	done
	for n in dwarf:dwarx dwarf:fpfpf 8192:81x2 8192:-192; do
		craft meta-replace s.out d.out "$n"
		rejects d.out 'metadata section is malformed'
	done
	# the reader's error, as the test tool prints it: one line, status 1
	craft frame-object s.out d.out
	run -1 --separate-stderr "$MKSTACKS" print d.out
	assert_equal "$stderr" "mkstacks: cannot read 'd.out': frames section is malformed"
}

@test "truncated profiles with stacks are rejected, never crash" {
	run -0 "$MKSTACKS" write s.out
	write_craft
	local size n
	size=$(stat -c %s s.out)
	for n in 32 100 $((size / 2)) $((size - 100)) $((size - 60)) \
		$((size - 25)) $((size - 1)); do
		craft truncate s.out t.out "$n"
		rejects t.out
	done
}

@test "never a crash: random damage to a profile with stacks gives 0 or 125" {
	run -0 "$MKSTACKS" write s.out
	write_fuzz
	run -0 python3 fuzz.py "$UPROFILE" s.out "$(rounds 400)"
}

# in_little_memory COMMAND...: run COMMAND with 300 MB of address space,
# too little to hold a 2 GB file.  Sanitizer builds reserve terabytes of
# address space for their shadow memory, so there COMMAND runs unlimited.
in_little_memory() {
	if sanitized; then
		"$@"
	else
		(ulimit -v 300000 && exec "$@")
	fi
}

@test "a 2 GB file that is not a profile is rejected after its header" {
	truncate -s 2G big.out
	run -125 --separate-stderr in_little_memory "$UPROFILE" -i big.out
	assert_output ""
	assert_equal "$stderr" \
		"uprofile: cannot read 'big.out': not a profile file (bad magic)"
}

@test "a declared size other than the file's is rejected before the rest is read" {
	make_profile good.out
	write_craft
	local size
	size=$(stat -c %s good.out)
	# Grown to 2 GB (sparse): the header still says the old size.
	cp good.out grown.out
	truncate -s 2G grown.out
	run -125 --separate-stderr in_little_memory "$UPROFILE" -i grown.out
	assert_equal "$stderr" "uprofile: cannot read 'grown.out': profile file is truncated or has trailing data (2147483648 bytes, header says $size)"
	# A header that claims 2 GB more than there is.
	craft size-field good.out claims.out $((1 << 31))
	rejects claims.out 'truncated' "header says $((size + (1 << 31)))"
	# The intact profile reads the same within the limit.
	run -0 in_little_memory "$UPROFILE" -i good.out -format json
	json_check <<<"$output"
}

# The mutation tool: fuzz.py UPROFILE SRC COUNT damages profile SRC COUNT
# times at random, with a valid checksum, and checks that "uprofile -i"
# gives status 0, or 125 with one line; each failing input is kept as
# failed.N.out.
write_fuzz() {
	cat >fuzz.py <<'EOF'
import random, struct, subprocess, sys, zlib

tool, src, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
good = open(src, 'rb').read()
rng = random.Random(20240601)
special = [0, 1, 2, 5, 31, 32, 0x7f, 0xff, 0x100, 0x10000, 0x100000,
           0x100001, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
           len(good), len(good) - 1, len(good) + 1]
failures = 0
outcomes = {0: 0, 125: 0}
for i in range(count):
    b = bytearray(good)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.4:         # a random byte after the magic
            b[rng.randrange(8, len(b))] = rng.randrange(256)
        elif r < 0.8:       # an aligned 32-bit field to a boundary value
            o = rng.randrange(8, len(b) - 3) & ~3
            struct.pack_into('<I', b, o, rng.choice(special))
        else:               # an aligned 64-bit field
            o = rng.randrange(8, len(b) - 7) & ~7
            struct.pack_into('<Q', b, o, rng.choice(
                special + [2**64 - 1, 2**63, 2**64 - len(b)]))
    struct.pack_into('<I', b, 24, zlib.crc32(bytes(b[32:])))
    open('mut.out', 'wb').write(b)
    for args in (['-i', 'mut.out'],
                 ['-i', 'mut.out', '-lines', '-numbers', '-format', 'json']):
        p = subprocess.run([tool] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20)
        err = p.stderr.decode(errors='replace')
        ok = p.returncode == 0 or (p.returncode == 125 and
                                   err.count('\n') == 1 and
                                   err.startswith('uprofile: '))
        outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
        if not ok:
            failures += 1
            name = 'failed.%d.out' % i
            open(name, 'wb').write(b)
            print('%s: uprofile %s: status %d: %s' % (
                name, ' '.join(args), p.returncode, err.strip()[:500]))
print('%d mutations, outcomes %r, %d failures' % (count, outcomes, failures))
# Most damage is found, some is harmless: both paths must be exercised.
if outcomes[0] < count // 20 or outcomes[125] < count // 2:
    print('the mutations do not exercise both outcomes')
    failures += 1
sys.exit(1 if failures else 0)
EOF
}

@test "never a crash: random damage with valid checksums gives 0 or 125" {
	make_profile good.out
	write_fuzz
	run -0 python3 fuzz.py "$UPROFILE" good.out "$(rounds 600)"
}

@test "damaged task sections are rejected with one line, status 125" {
	make_profile good.out 200
	write_craft
	run -0 "$UPROFILE" -i good.out -by tid
	local s m
	for s in 10 11; do
		craft section-short good.out d.out "$s"
		rejects d.out 'section is malformed'
		# one without the other
		craft section-id good.out d.out "$s:99"
		rejects d.out 'tasks and task counts' 'together'
	done
	for m in task-count-count task-count-task task-count-swap \
		task-count-samples; do
		craft "$m" good.out d.out
		rejects d.out 'task counts section is malformed'
	done
	for m in 0xffffffff 4096; do
		craft task-comm-length good.out d.out "$m"
		rejects d.out 'tasks section is malformed'
	done
}

@test "task sections unknown to a reader are skipped: version 1 reads without them" {
	make_profile good.out 100
	write_craft
	craft version good.out v1.out 1
	run -0 "$UPROFILE" -i v1.out
	run -0 "$UPROFILE" -i good.out
	local want=$output
	run -0 "$UPROFILE" -i v1.out
	assert_equal "${output//v1.out/good.out}" "$want"
}
