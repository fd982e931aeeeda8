#!/bin/bash
# Rebuild the seed corpora under fuzz/corpus/ (see fuzz/README.md).  Needs
# "make" first, and clang; profiles are sampled here (cpu-clock, no
# PMU needed; kprofile as root), so they differ from run to run.
set -euo pipefail
cd "$(dirname "$0")/.."

c=fuzz/corpus
rm -rf "$c"
mkdir -p "$c"/{profile,elf,kallsyms,profileme,stats,jitmap,perfdata,pylines,bpfrec}

# hex -> bytes, for records written out field by field below.
unhex() { python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' "$1"; }

# Seeds are committed, so they must not carry the paths of the machine
# that made them: objects are compiled with the source directory mapped
# to ".", and the profiled program runs as /mnt/profile-object, on a tmpfs
# mounted in a private mount namespace (needs root, like kprofile below).
if [[ ${1-} != --in-namespace ]]; then
	exec unshare -m "$0" --in-namespace
fi
mount -t tmpfs none /mnt
map=-fdebug-prefix-map=$PWD=.
obj=/mnt/profile-object
cc -O2 -g -fno-omit-frame-pointer "$map" -o "$obj" tests/programs/inline.c

# profile: what the tools write.  The object fuzz_profile maps every file
# object to is the program profiled here (the same source and flags as
# build-fuzz/profile-object).
build/uprofile --quiet -o "$c/profile/sampled.umon" "$obj" 200
build/uprofile --quiet -e cpu-clock,task-clock -o "$c/profile/two-stats.umon" \
	"$obj" 100
build/uprofile --quiet --count -e cpu-clock,task-clock \
	-o "$c/profile/counting.umon" "$obj" 20
build/kprofile --quiet -o "$c/profile/kernel.kmon" -d 0.3
# Tasks (sections 10-11): two processes of the program, a shell between.
build/uprofile --quiet -o "$c/profile/tasks.umon" -- sh -c \
	"$obj 100 & $obj 100; wait"
# Call stacks (sections 7-9): a small profile built by the test tool, the
# same bytes every time.
build/tests/mkstacks write "$c/profile/stacks.umon"
# Archived files (section 13): within and over the caps on their sizes.
fuzz/mkfiles.py "$c/profile/stacks.umon" "$c/profile"
# The time stream (section 15, version 3): sampled, with and without call
# stacks; the test tool's timed profile (an off-CPU interval among its
# events, the same bytes every time); and the first one as the version-2
# writer wrote it (no stream, the task counts' state reserved).
build/uprofile --quiet -o "$c/profile/events.umon" "$obj" 60
build/uprofile --quiet -g -o "$c/profile/events-stacks.umon" "$obj" 60
build/tests/mkstacks timed "$c/profile/timed.umon"
# JIT code (section 16): jitasm's bytes and lines, from its jitdump.
cp build/tests/jitasm /mnt/jitasm
(cd /mnt && "$OLDPWD/build/uprofile" --quiet -o "$OLDPWD/$c/profile/jit-code.umon" \
	/mnt/jitasm 100 >/dev/null)
build/tests/mkstacks timed "$c/profile/timed-flat.umon" flat
# fuzz_profile reads the header's reserved byte 28 as options: a window
# of two ranges of the timed profile, a window and -exclude-idle of the
# flat one.
python3 - "$c/profile" <<'PY'
import sys
for name, opt in (('timed', 0x4e), ('timed-flat', 0x2a)):
    b = bytearray(open('%s/%s.umon' % (sys.argv[1], name), 'rb').read())
    b[28] = opt
    open('%s/%s-window.umon' % (sys.argv[1], name), 'wb').write(b)
PY
python3 - "$c/profile/events.umon" "$c/profile/events-v2.umon" <<'PY'
import struct, sys, zlib
sys.path.insert(0, 'tests/tools')
from umonsections import sections, rebuild
d = open(sys.argv[1], 'rb').read()
out = bytearray(rebuild(d, [s for s in sections(d) if s[0] != 15]))
struct.pack_into('<I', out, 8, 2)
struct.pack_into('<I', out, 24, zlib.crc32(bytes(out[32:])))
open(sys.argv[2], 'wb').write(out)
PY

# elf: the same program from both compilers (gcc's and clang's DWARF 5:
# rnglists, loclists, different line programs), a shared library, and a
# stripped copy (symbols from .dynsym and .eh_frame only).
cp "$obj" "$c/elf/inline-gcc"
clang -w -O2 -g -gdwarf-5 -fno-omit-frame-pointer "$map" \
	-o "$c/elf/inline-clang" tests/programs/inline.c
cc -O1 -g -fno-omit-frame-pointer -fPIC -shared "$map" -o "$c/elf/libhot.so" \
	tests/programs/libhot.c
strip -o "$c/elf/inline-stripped" "$obj"

# jitmap: perf map lines as node and python write them, with a stale
# entry under a later one, an overlap, a malformed line, 0x prefixes, a
# CRLF; and the edges of the address space.
printf '%s\n' '7f0000001000 40 stale' 'not a line' \
	'7f0000001000 6 JS:*fib /tmp/hot.js:1:13' \
	'0x7f0000001100 0x6 py::f:/x.py' '7f0000001004 10 overlap' '' \
	$'7f0000002000 100 LazyCompile:~work x.js:3\r' >"$c/jitmap/node"
printf '%s\n' 'ffffffffffffffff 1 top' '0 1 zero' '10 ffffffffffffffff over' \
	>"$c/jitmap/edges"

# jitmap, jitdump files (see common/profile/jitdump.c): code loads with
# their bytes, a move, debug and unwinding records, a record of an unknown
# type, a move of an index never loaded, a close and a load after it; one
# cut inside its last record; a load shorter than its fields.
python3 - "$c/jitmap" <<'PY'
import struct, sys
def rec(i, body): return struct.pack('<IIQ', i, 16 + len(body), 7) + body
def load(addr, size, index, name):
    return rec(0, struct.pack('<IIQQQQ', 9, 9, addr, addr, size, index)
               + name + b'\0' + b'\xc3' * size)
def move(old, new, size, index):
    return rec(1, struct.pack('<IIQQQQQ', 9, 9, new, old, new, size, index))
head = struct.pack('<IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, 9, 1, 0)
body = (load(0x7f0000001000, 64, 0, b'JS:~stale x.js:1:1')
        + rec(2, struct.pack('<QQ', 0x7f0000001000, 1)
              + struct.pack('<QII', 0x7f0000001000, 3, 0) + b'x.js\0')
        + load(0x7f0000002000, 16, 1, b'JS:*hot x.js:3:14')
        + move(0x7f0000002000, 0x7f0000001000, 16, 1)
        + rec(4, struct.pack('<QQQ', 0, 0, 0))
        + load(0x7f0000001008, 8, 2, b'Builtin:Inner')
        + move(0x7f0000003000, 0x7f0000004000, 8, 77)
        + rec(99, b'\1' * 8) + rec(3, b'')
        + load(0x7f0000005000, 8, 3, b'after close'))
open(sys.argv[1] + '/jitdump', 'wb').write(head + body)
cut = head + load(0xffffffffffffff00, 0x100, 0, b'top') + load(0x10, 4, 1, b'cut')
open(sys.argv[1] + '/jitdump-cut', 'wb').write(cut[:-3])
# a code load shorter than its fixed fields (once read past its end)
short = head + rec(0, struct.pack('<IIQQ', 9, 9, 0x7f0000001000, 0x7f0000001000))
open(sys.argv[1] + '/jitdump-short-load', 'wb').write(short)
# debug records (see common/profile/jitdebug.c) before their loads: one
# with a repeated name ("\xff"), then moved; one as node 20 writes them
# (names damaged at their start, entries of one size, V8's 0x40 skew);
# one claiming more entries than it holds.
def debug(addr, ents, pad=b''):
    return rec(2, struct.pack('<QQ', addr, len(ents)) + b''.join(
        struct.pack('<QII', a, l, 0) + n + b'\0' for a, l, n in ents) + pad)
a, b = 0x7f0000001000, 0x7f0000002000
path = b'/src/app/main.js'
bad = b'\x12\x00\x7f' + b'\x01' * 5 + path[8:]
dbg = (head + debug(a, [(a, 3, b'/src/a.js'), (a + 4, 4, b'\xff'),
                        (a + 12, 9, b'/src/b.js')])
       + load(a, 16, 0, b'f') + move(a, a + 0x100, 16, 0)
       + debug(b, [(b + 0x40, 1, bad), (b + 0x48, 2, bad)], b'\0' * 4)
       + load(b, 32, 1, b'JS:*g ' + path + b':1:10')
       + rec(2, struct.pack('<QQQII', b + 64, 1000, b + 64, 1, 0) + b'x\0')
       + load(b + 64, 8, 2, b'h'))
open(sys.argv[1] + '/jitdump-debug', 'wb').write(dbg)
PY

# kallsyms: /proc/kallsyms lines, with aliases, a weak and a data symbol,
# and modules.
printf '%s\n' \
	'ffffffff81000000 T _text' 'ffffffff81000000 T startup_64' \
	'ffffffff81001000 t __do_softirq' 'ffffffff81002000 W arch_cpu_idle' \
	'ffffffff81003000 T _raw_spin_lock' 'ffffffff82000000 D jiffies' \
	>"$c/kallsyms/kernel"
printf '%s\n' \
	'ffffffff81000000 T _text' \
	'ffffffffc0a01000 t ext4_read [ext4]' \
	'ffffffffc0a02000 T ext4_write [ext4]' \
	'ffffffffc0b00000 t e1000_intr [e1000]' >"$c/kallsyms/modules"
printf '%s\n' '0000000000000000 T _text' '0000000000000000 t x' \
	>"$c/kallsyms/hidden"

# profileme: 0 = IBS op (u32 caps, then IbsOpCtl, IbsOpRip, IbsOpData,
# IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd; with caps bits 5 and 10
# IbsBrTarget and IbsOpData4), 1 = SPE packets, 2 = PEBS fields.  See
# tests/1010-profileme.bats for the layouts.
q() { python3 -c 'import struct, sys; print(struct.pack("<Q", int(sys.argv[1], 0)).hex())' "$1"; }
unhex "00""87000000$(q 0x40000)$(q 0x401000)$(q 0)$(q 0)$(q 0xbb00020081)$(q 0x7ffd1234)$(q 0)" \
	>"$c/profileme/ibs-load"
unhex "00""a7040000$(q 0x40000)$(q 0x401000)$(q 0x2800000000)$(q 0)$(q 0)$(q 0)$(q 0)$(q 0x401100)$(q 0)" \
	>"$c/profileme/ibs-branch"
# SPE: PC, op (load), events (retired, L1D refill), VA, total and issue
# counters, End; padding; a second record (branch) closed by a timestamp.
unhex "01""b0$(q 0x401000)4900520a00b2$(q 0x7ffd0000)987800991400010000b0$(q 0x401010)4a01520200""71$(q 12345)" \
	>"$c/profileme/spe"
unhex "02""01""0f""$(q 0x401000)$(q 0x7ffd0000)$(q 187)$(q 0x68100142)0500" \
	>"$c/profileme/pebs-load"

# pylines: a first line number (int32, little-endian), then a CPython
# 3.11 location table: two of the standard library's (every entry form:
# short, one-line, no columns, long, no location), and none.
unhex "b2030000""f8e800e8008000f000010d39f000010d39a0618858d70d1ed20d1e9871d10d21d40d21f000010d39f000010d39f000010d39f000010d39f000010d39f000010d39" \
	>"$c/pylines/stdlib-946"
unhex "48000000""f88000dd0f199824a508d10f29d40f29f000010928ad54b024b42ad12d3dd42d3dc563cd35d55259d0455ad02d5ad02d5ad80c21d00c21a024d10c27d40c27d00c27d80f138c7ad00819" \
	>"$c/pylines/stdlib-72"
unhex "01000000" >"$c/pylines/empty"
# 3.10's pairs (json.decoder.JSONObject: lines that move back, ranges of
# no line, -128) and 3.9's co_lnotab (json.decoder.py_scanstring); a
# negative first line (a 3.9 table that ends before the line moves
# gave it back, found by fuzzing).
unhex "88000000""0802040106010802040106011003080208010e0110010802080108010c010401080108010c0108010201060104ff0802020110010a0114030e0114010c01080102020c0108010c01120104800c01040102ff020312010e011001088002ff0c020201080108011201080104800c01080102ff08020a0202010a0110010e01100108010a0102010a0104ff02d70a2b0801080108010a0108010801" \
	>"$c/pylines/pairs-310"
unhex "45000000""000a0401060108020a0108010c0108010c020401080308010601080104020a010e020801020102010c010c01040104ff020102ff08030a0102010c010c010a0112010a020a01080132010e011c011801080108010a01" \
	>"$c/pylines/lnotab-39"
unhex "e8f8b2ff""ffffffffff009ff000010d39" >"$c/pylines/negative-first"

# bpfrec: records of the BPF program (common/engine/bpf/sample_bpf.h,
# little-endian): a Python frames record ("PYBF", tid, length) with a
# thread state's 16 bytes and a frame's 12 (padded to 16), a deep
# stack's record ("STAK") of one 8-byte region, and a frames record
# whose region claims more than it holds.
unhex "50594246""39300000""50000000""00000000""0010000000700000""10000000""00000000""00112233445566778899aabbccddeeff""2010000000700000""0c000000""00000000""0102030405060708090a0b0c00000000" \
	>"$c/bpfrec/frames"
unhex "5354414b""39300000""28000000""00000000""00f0ffffff7f0000""08000000""00000000""1122334455667788" \
	>"$c/bpfrec/stack"
unhex "50594246""39300000""30000000""00000000""0010000000700000""00010000""00000000""0011223344556677" \
	>"$c/bpfrec/cut"

# stats: values typed after -e, -F, -c, -d, -stride.
printf '%s\n' cycles cycles:u retinst:uk cpu-clock:k pm_retire \
	mispredict_per_ret r01c2:u INST_RETIRED:ANY_P >"$c/stats/names"
printf '%s\n' 1000 0x10 18446744073709551616 2.5 -1 12x '' >"$c/stats/numbers"
printf '%s\n' cycle bad:q amd-ibs spe pm_cycles:h >"$c/stats/misspelt"
# --time ranges: seconds, units, percent, ends left out, several, and
# some that are refused.
printf '%s\n' 2.5-4 250ms-1s 10%-20%,80%- -4 90-100% 1-2,0.5-3 5%-200% \
	.5- 0x10-1e3 >"$c/stats/times"

# perfdata: perf's recordings (in namespaces of their own) and crafted
# files and streams.
fuzz/mkperfdata.sh
