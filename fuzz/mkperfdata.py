#!/usr/bin/env python3
# Crafted perf.data seeds for fuzz_perfdata (fuzz/fuzz_perfdata.c): the
# same bytes every time.  Files and pipe streams with every record type
# common/engine/perfdata.c reads (samples with every field it walks,
# mappings with and without build-ids, task records, lost counts,
# switches, rounds, id indexes, pipe-mode attributes, features and
# build-ids, hardware-trace data with its payload, zstd-compressed
# records, types it does not know) and damaged ones (cut headers,
# sections past the end, records past their section, unknown or
# malformed features, a perf.data directory).  Layouts: perf's
# Documentation/perf.data-file-format.txt and <linux/perf_event.h>.
#
# Each seed is fuzz_perfdata's option byte (bit 0: also read through a
# pipe; bit 1: every second event not wanted), then the perf.data bytes.
# Python's standard library has no zstd, so the compressed records hold
# zstd frames of raw (stored) blocks, which every zstd decoder reads; but
# the inputs that must be small and inflate to much (bad-id-index-*,
# bad-build-ids-many) are compressed by the zstd program, and left out
# without it.
#
#   fuzz/mkperfdata.py OUTDIR
import hashlib
import struct
import subprocess
import sys

# record types
MMAP, LOST, COMM, EXIT, THROTTLE, FORK, READ, SAMPLE, MMAP2 = (
    1, 2, 3, 4, 5, 7, 8, 9, 10)
AUX, ITRACE_START, LOST_SAMPLES, SWITCH, SWITCH_CPU_WIDE = 11, 12, 13, 14, 15
KSYMBOL = 17
HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA, HEADER_BUILD_ID = (
    64, 65, 66, 67)
FINISHED_ROUND, ID_INDEX, AUXTRACE_INFO, AUXTRACE = 68, 69, 70, 71
STAT, TIME_CONV, HEADER_FEATURE, COMPRESSED = 76, 79, 80, 81
FINISHED_INIT, COMPRESSED2 = 82, 83

# sample_type bits, in the order a sample lays them out
S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU = (
    1, 2, 4, 8, 16, 32, 64, 128)
S_PERIOD, S_STREAM_ID, S_RAW, S_BRANCH_STACK = 256, 512, 1024, 2048
S_REGS_USER, S_STACK_USER, S_IDENTIFIER = 4096, 8192, 1 << 16
# read_format
R_ENABLED, R_RUNNING, R_ID, R_GROUP, R_LOST = 1, 2, 4, 8, 16
# attr flag bits
A_EXCL_KERNEL, A_FREQ, A_SAMPLE_ID_ALL = 1 << 5, 1 << 10, 1 << 18
A_MMAP2, A_CONTEXT_SWITCH = 1 << 23, 1 << 26
BRANCH_HW_INDEX = 1 << 17
# misc
USER, KERNEL = 2, 1
MISC_COMM_EXEC = MISC_SWITCH_OUT = 1 << 13
MISC_PREEMPT = MISC_MMAP_BUILD_ID = 1 << 14
MISC_BUILD_ID_SIZE = 1 << 15
REGS_MASK = 0xff0fff            # perf's --call-graph dwarf registers (x86-64)
ATTR_SIZE = 128                 # sizeof(perf_event_attr) of perf 6.1

# features
F_TRACING_DATA, F_BUILD_ID, F_HOSTNAME, F_OSRELEASE, F_VERSION = 1, 2, 3, 4, 5
F_ARCH, F_NRCPUS, F_CPUDESC, F_CPUID, F_TOTAL_MEM, F_CMDLINE = (
    6, 7, 8, 9, 10, 11)
F_EVENT_DESC, F_BRANCH_STACK, F_AUXTRACE, F_STAT = 12, 15, 18, 19
F_SAMPLE_TIME, F_DIR_FORMAT, F_COMPRESSED, F_LAST = 21, 24, 27, 32


def u32(*v): return struct.pack('<%dI' % len(v), *v)
def u64(*v): return struct.pack('<%dQ' % len(v), *v)
def pad8(b): return b + bytes(-len(b) % 8)
def cstr(s): return pad8(s + b'\0')


def attr(sample_type, period=1000000, flags=A_SAMPLE_ID_ALL | A_MMAP2,
         read_format=0, branch=0, regs=0, stack=0, type_=1, config=0,
         size=ATTR_SIZE):
    """perf_event_attr (type 1 config 0: cpu-clock)."""
    a = struct.pack('<IIQQQQQIIQQQQIiQIHHIIQ', type_, size, config, period,
                    sample_type, read_format, flags, 0, 0, 0, 0, branch,
                    regs, stack, 0, 0, 0, 0, 0, 0, 0, 0)
    return a.ljust(size, b'\0')[:size]


def rec(type_, body, misc=0):
    body = pad8(body)
    return struct.pack('<IHH', type_, misc, 8 + len(body)) + body


class Events:
    """The events of a recording: attributes, ids, the trailer layout."""

    def __init__(self, attrs, ids):
        self.attrs = attrs      # perf_event_attr bytes
        self.ids = ids          # list of id lists
        st = struct.unpack_from('<Q', attrs[0], 24)[0]
        self.st = st
        fl = struct.unpack_from('<Q', attrs[0], 40)[0]
        self.all = bool(fl & A_SAMPLE_ID_ALL)

    def trailer(self, pid=100, tid=100, time=0, ev=0, cpu=0):
        if not self.all:
            return b''
        st, i = self.st, self.ids[ev][0] if self.ids[ev] else 0
        t = b''
        t += u32(pid, tid) if st & S_TID else b''
        t += u64(time) if st & S_TIME else b''
        t += u64(i) if st & S_ID else b''
        t += u64(0) if st & S_STREAM_ID else b''
        t += u32(cpu, 0) if st & S_CPU else b''
        t += u64(i) if st & S_IDENTIFIER else b''
        return t

    def sample(self, ev, ip, time, pid=100, tid=100, cpu=0, period=None,
               chain=(), raw=b'', branches=0, regs=None, stack=b'',
               misc=USER, ident=None):
        a = self.attrs[ev]
        st, rf, br, mask = (struct.unpack_from('<Q', a, o)[0]
                            for o in (24, 32, 72, 80))
        i = self.ids[ev][0] if self.ids[ev] else 0
        i = i if ident is None else ident
        b = b''
        b += u64(i) if st & S_IDENTIFIER else b''
        b += u64(ip) if st & S_IP else b''
        b += u32(pid, tid) if st & S_TID else b''
        b += u64(time) if st & S_TIME else b''
        b += u64(0x7ffd0000) if st & S_ADDR else b''
        b += u64(i) if st & S_ID else b''
        b += u64(i) if st & S_STREAM_ID else b''
        b += u32(cpu, 0) if st & S_CPU else b''
        b += u64(period or 1000000) if st & S_PERIOD else b''
        if st & S_READ:
            per = lambda v: (u64(v) + (u64(i) if rf & R_ID else b'') +  # noqa
                             (u64(0) if rf & R_LOST else b''))
            times = u64(5, 5)[:8 * (bool(rf & R_ENABLED) +
                                    bool(rf & R_RUNNING))]
            if rf & R_GROUP:
                b += u64(2) + times + per(10) + per(20)
            else:
                b += u64(10) + times + per(0)[8:]
        if st & S_CALLCHAIN:
            b += u64(len(chain), *chain)
        if st & S_RAW:     # padded as the kernel pads it
            raw = raw.ljust(len(raw) + (-(len(raw) + 4) % 8), b'\0')
            b += u32(len(raw)) + raw
        if st & S_BRANCH_STACK:
            b += u64(branches)
            b += u64(0) if br & BRANCH_HW_INDEX else b''
            for k in range(branches):
                b += u64(ip + 16 * k, ip + 16 * k + 8, 0)
        if st & S_REGS_USER:
            if regs is None:
                b += u64(0)
            else:
                n = bin(mask).count('1')
                b += u64(2) + u64(*(list(regs) + [0] * n)[:n])
        if st & S_STACK_USER:
            b += u64(len(stack))
            if stack:
                b += stack + u64(len(stack))
        return rec(SAMPLE, b, misc)

    # records with a trailer
    def mmap(self, pid, addr, length, pgoff, path, time=0, misc=USER):
        return rec(MMAP, u32(pid, pid) + u64(addr, length, pgoff) +
                   cstr(path) + self.trailer(pid, pid, time), misc)

    def mmap2(self, pid, addr, length, pgoff, path, build_id=None, time=0,
              prot=5, misc=USER):
        if build_id is None:
            ident = u32(8, 1) + u64(1234, 0)
        else:
            misc |= MISC_MMAP_BUILD_ID
            ident = bytes([len(build_id), 0, 0, 0]) + build_id.ljust(20, b'\0')
        return rec(MMAP2, u32(pid, pid) + u64(addr, length, pgoff) + ident +
                   u32(prot, 2) + cstr(path) + self.trailer(pid, pid, time),
                   misc)

    def comm(self, pid, tid, name, time=0, exec_=True):
        return rec(COMM, u32(pid, tid) + cstr(name) +
                   self.trailer(pid, tid, time),
                   USER | (MISC_COMM_EXEC if exec_ else 0))

    def fork(self, pid, ppid, tid, ptid, time, type_=FORK):
        return rec(type_, u32(pid, ppid, tid, ptid) + u64(time) +
                   self.trailer(pid, tid, time))

    def lost(self, ev, n, time=0):
        return rec(LOST, u64(self.ids[ev][0] if self.ids[ev] else 0, n) +
                   self.trailer(time=time, ev=ev))

    def lost_samples(self, ev, n, time=0):
        return rec(LOST_SAMPLES, u64(n) + self.trailer(time=time, ev=ev))

    def switch(self, pid, tid, time, out, preempt=False, cpu=0):
        misc = (MISC_SWITCH_OUT if out else 0) | (MISC_PREEMPT if preempt
                                                   else 0)
        return rec(SWITCH, self.trailer(pid, tid, time, cpu=cpu), misc)

    def switch_wide(self, pid, tid, other, time, out, cpu=0):
        return rec(SWITCH_CPU_WIDE, u32(other, other) +
                   self.trailer(pid, tid, time, cpu=cpu),
                   MISC_SWITCH_OUT if out else 0)


def round_end(): return rec(FINISHED_ROUND, b'')


def id_index(pairs):
    return rec(ID_INDEX, u64(len(pairs)) +
               b''.join(u64(i, idx, 0, 100) for i, idx in pairs))


def auxtrace(payload):
    return rec(AUXTRACE, u64(len(payload), 0, 7) + u32(0, 100, 0, 0)) + \
        payload


def zstd_raw(data, split=None):
    """A zstd frame of raw blocks (window 128 KiB, no checksum)."""
    out, blocks = b'\x28\xb5\x2f\xfd' + bytes([0x00, 7 << 3]), []
    step = split or 65536
    for k in range(0, len(data), step):
        blocks.append(data[k:k + step])
    blocks = blocks or [b'']
    for k, blk in enumerate(blocks):
        last = k == len(blocks) - 1
        h = (len(blk) << 3) | int(last)     # type 0: raw
        out += struct.pack('<I', h)[:3] + blk
    return out


def zstd_cli(data):
    """data compressed by the zstd program (Python's library has no zstd),
    or None without it."""
    try:
        return subprocess.run(['zstd', '-19', '--no-check', '-q', '-c'],
                              input=data, capture_output=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def compressed(z, v2=False):
    """COMPRESSED is not padded (its successor, COMPRESSED2, is)."""
    if v2:
        return rec(COMPRESSED2, u64(len(z)) + z)
    return struct.pack('<IHH', COMPRESSED, 0, 8 + len(z)) + z


def header_string(s):
    s = pad8(s + b'\0')
    return u32(len(s)) + s


def build_id_entry(path, bid, pid=-1, misc=KERNEL, sized=True):
    body = struct.pack('<i', pid) + bid.ljust(20, b'\0')
    body += bytes([len(bid), 0, 0, 0]) + cstr(path)
    return struct.pack('<IHH', 0, misc | (MISC_BUILD_ID_SIZE if sized else 0),
                       8 + len(body)) + body


def header_build_id(path, bid, pid=-1):
    e = build_id_entry(path, bid, pid)
    return struct.pack('<IHH', HEADER_BUILD_ID, *struct.unpack_from(
        '<HH', e, 4)) + e[8:]


def event_desc(events, names):
    b = u32(len(events.attrs), ATTR_SIZE)
    for a, ids, name in zip(events.attrs, events.ids, names):
        b += a + u32(len(ids)) + header_string(name) + u64(*ids)
    return b


BID = bytes(range(1, 21))


def features(events, names=(b'cpu-clock', b'task-clock'), extra=None):
    """The feature sections perf writes, and some it writes rarely."""
    f = {
        F_BUILD_ID: build_id_entry(b'[kernel.kallsyms]', BID) +
        build_id_entry(b'/opt/prog', BID[::-1], pid=100, misc=USER) +
        build_id_entry(b'/opt/libshort.so', BID[:8], pid=100, misc=USER),
        F_HOSTNAME: header_string(b'host'),
        F_OSRELEASE: header_string(b'6.1.0-test-amd64'),
        F_VERSION: header_string(b'6.1.0'),
        F_ARCH: header_string(b'x86_64'),
        F_NRCPUS: u32(4, 2),
        F_CPUDESC: header_string(b'Some CPU @ 2.00GHz'),
        F_CPUID: header_string(b'GenuineIntel,6,85,4'),
        F_TOTAL_MEM: u64(1 << 20),
        F_CMDLINE: u32(4) + b''.join(header_string(s) for s in
                                     (b'perf', b'record', b'-g', b'/opt/prog')),
        F_EVENT_DESC: event_desc(events, names),
        F_BRANCH_STACK: b'',
        F_AUXTRACE: u64(0),
        F_STAT: b'',
        F_SAMPLE_TIME: u64(1000, 9000),
        F_TRACING_DATA: b'\0' * 16,
        F_COMPRESSED: u32(0, 1, 1, 4) + u64(1 << 20),
    }
    f.update(extra or {})
    return {k: v for k, v in f.items() if v is not None}


def perf_file(events, data, feats, header_size=104, attr_size=None,
              data_size=None, attrs_at=None, ids_at=None, feat_fix=None):
    """A perf.data file: header, ids, attributes, data, features."""
    attr_size = attr_size or ATTR_SIZE + 16
    ids = b''
    id_sections = []
    at = header_size
    for l in events.ids:
        id_sections.append((at + len(ids), 8 * len(l)))
        ids += u64(*l)
    a_off = header_size + len(ids)
    attrs = b''
    for k, a in enumerate(events.attrs):
        off, ln = ids_at[k] if ids_at else id_sections[k]
        attrs += a.ljust(attr_size - 16, b'\0')[:attr_size - 16] + u64(off, ln)
    d_off = a_off + len(attrs)
    bits = sorted(feats)
    table_at = d_off + len(data)
    body_at = table_at + 16 * len(bits)
    table, bodies = b'', b''
    for b in bits:
        off, ln = body_at + len(bodies), len(feats[b])
        if feat_fix and b in feat_fix:
            off, ln = feat_fix[b](off, ln)
        table += u64(off, ln)
        bodies += feats[b]
    mask = 0
    for b in bits:
        mask |= 1 << b
    h = b'PERFILE2' + u64(header_size, attr_size)
    h += u64(*(attrs_at or (a_off, len(attrs))))
    h += u64(d_off, len(data) if data_size is None else data_size)
    h += u64(0, 0)
    if header_size == 104:
        h += mask.to_bytes(32, 'little')
    return h + ids + attrs + data + table + bodies


def perf_pipe(events, data, feats=None, names=(b'cpu-clock', b'task-clock')):
    """perf's pipe format: attributes, features, then the records."""
    out = b'PERFILE2' + u64(16)
    for a, ids in zip(events.attrs, events.ids):
        out += rec(HEADER_ATTR, a + u64(*ids))
    for bit, body in sorted((feats or {}).items()):
        out += rec(HEADER_FEATURE, u64(bit) + body)
    if feats is not None:
        out += rec(HEADER_FEATURE, u64(F_LAST))
    return out + data


# ---- the recordings -------------------------------------------------------

FULL = (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_STREAM_ID |
        S_CPU | S_PERIOD | S_READ | S_CALLCHAIN | S_RAW | S_BRANCH_STACK |
        S_REGS_USER | S_STACK_USER)
PLAIN = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD


def full_events():
    """Two events whose samples carry every field the reader walks; the
    first records context switches."""
    rf = R_ENABLED | R_RUNNING | R_ID | R_GROUP | R_LOST
    common = dict(read_format=rf, branch=BRANCH_HW_INDEX | 1,
                  regs=REGS_MASK, stack=256)
    return Events([attr(FULL, flags=A_SAMPLE_ID_ALL | A_MMAP2 |
                        A_CONTEXT_SWITCH, **common),
                   attr(FULL, type_=1, config=1, **common)],
                  [[11, 12], [21]])


def plain_events(n=2, flags=A_SAMPLE_ID_ALL | A_MMAP2):
    return Events([attr(PLAIN, flags=flags, config=k) for k in range(n)],
                  [[11 + 10 * k] for k in range(n)])


def all_records(ev, compressed_part=True):
    """Every record type the reader delivers, in two rounds, then records
    it only counts."""
    stack = bytes(range(256))
    regs = [0] * 6 + [0x7ffd1000, 0x7ffd0f00, 0x401010]    # bp, sp, ip
    r = b''
    r += ev.comm(100, 100, b'prog', time=1000)
    r += ev.mmap(100, 0x400000, 0x2000, 0, b'/opt/prog', time=1001)
    r += ev.mmap2(100, 0x7f0000000000, 0x10000, 0x1000, b'/opt/libx.so',
                  build_id=BID, time=1002)
    r += ev.mmap2(100, 0x7f0000100000, 0x10000, 0, b'/opt/liby.so',
                  time=1003)
    r += ev.mmap2(100, 0x7fff0000, 0x2000, 0, b'[vdso]', build_id=BID[:16],
                  time=1004)
    r += ev.mmap2(100, 0x600000, 0x1000, 0, b'/opt/data', prot=3,
                  time=1005)
    r += ev.mmap(-1 & 0xffffffff, 0xffffffff81000000, 0x1000000, 0,
                 b'[kernel.kallsyms]_text', misc=KERNEL)
    r += ev.fork(101, 100, 101, 100, 1100)
    r += ev.comm(101, 101, b'child', time=1101, exec_=False)
    r += ev.sample(0, 0x401000, 1200, chain=(0xfffffffffffffe00, 0x401000,
                                             0x401100), raw=b'rawdata',
                   branches=2, regs=regs, stack=stack)
    r += ev.sample(1, 0x7f0000001000, 1201, chain=(0x7f0000001000,),
                   regs=regs, stack=stack[:64])
    r += ev.sample(0, 0xffffffff81000100, 1202, misc=KERNEL,
                   chain=(0xffffffffffffff80, 0xffffffff81000100))
    r += ev.sample(0, 0x7fff0100, 1203, pid=101, tid=101)
    r += ev.sample(0, 0x401000, 1204, ident=999)        # no such id
    r += ev.switch(100, 100, 1300, True, preempt=True)
    r += ev.switch(100, 100, 1400, False)
    r += ev.switch_wide(101, 101, 100, 1350, True, cpu=1)
    r += ev.switch_wide(101, 101, 100, 1450, False, cpu=1)
    r += ev.lost(0, 3, time=1500)
    r += ev.lost_samples(1, 2, time=1501)
    r += round_end()
    r += rec(THROTTLE, u64(1600, 11, 0) + ev.trailer(time=1600))
    r += rec(KSYMBOL, u64(0xffffffffa0000000) + u32(100, 0) +
             cstr(b'bpf_prog_x') + ev.trailer(time=1601))
    r += rec(40, b'unknown type')
    r += rec(99, b'unknown type past the table')
    r += rec(STAT, u64(11, 0, 5, 5, 5))
    r += rec(TIME_CONV, u64(0, 1, 0))
    r += rec(AUXTRACE_INFO, u32(0, 0) + u64(1))
    r += auxtrace(b'\x01' * 24)
    r += id_index([(31, 1), (41, 7)])
    r += ev.sample(1, 0x7f0000100010, 1700, ident=31)  # id from ID_INDEX
    if compressed_part:
        inner = (ev.sample(0, 0x401004, 1800) +
                 ev.fork(100, 100, 102, 100, 1801) +
                 ev.fork(100, 100, 102, 100, 1802, type_=EXIT))
        # a stream over two records, a record cut between them
        z = zstd_raw(inner, split=40)
        r += compressed(z[:50]) + compressed(z[50:])
        r += compressed(zstd_raw(ev.sample(1, 0x401008, 1803)), v2=True)
    r += ev.fork(101, 100, 101, 100, 1900, type_=EXIT)
    r += rec(FINISHED_INIT, b'')
    r += round_end()
    return r


def seeds():
    out = {}
    ev = full_events()
    data = all_records(ev)
    feats = features(ev)
    out['craft-all'] = (0, perf_file(ev, data, feats))
    out['craft-all-odd'] = (2, perf_file(ev, data, feats))
    # the same in perf's pipe format, read from a file and from a pipe,
    # with its own record types (build-ids, tracing data and its payload)
    pipe = perf_pipe(ev, rec(FINISHED_INIT, b'') +
                     header_build_id(b'/opt/prog', BID[::-1], pid=100) +
                     header_build_id(b'[kernel.kallsyms]', BID) +
                     rec(HEADER_TRACING_DATA, u32(16)) + bytes(16) + data,
                     {k: v for k, v in feats.items()
                      if k not in (F_BUILD_ID, F_TRACING_DATA)})
    out['craft-pipe'] = (1, pipe)
    # a stream cut inside its last record
    out['craft-pipe-cut'] = (1, pipe[:-5])
    # a stream cut in its feature records (perf killed early)
    out['craft-pipe-early'] = (1, pipe[:16 + 2 * (8 + ATTR_SIZE) + 30])

    # plain samples, one event without sample_id_all, no ids
    ev1 = Events([attr(S_IP | S_TID | S_TIME | S_PERIOD, flags=A_MMAP2 |
                       A_FREQ | A_EXCL_KERNEL, period=99)], [[]])
    r = (ev1.mmap2(100, 0x400000, 0x1000, 0, b'/opt/prog') +
         ev1.comm(100, 100, b'prog') +
         b''.join(ev1.sample(0, 0x400100 + k, 100 + k) for k in range(4)) +
         ev1.lost(0, 1) + ev1.switch(100, 100, 200, True))
    out['craft-one-event'] = (0, perf_file(ev1, r, {}))
    # the header perf wrote before the feature bits (72 bytes)
    out['craft-old-header'] = (0, perf_file(ev1, r, {}, header_size=72))
    # an event with ID, not IDENTIFIER, records without trailers
    ev2 = Events([attr(S_IP | S_TID | S_TIME | S_ID | S_PERIOD, config=k,
                       flags=A_MMAP2) for k in range(2)], [[5], [6]])
    r2 = (ev2.mmap2(7, 0x400000, 0x1000, 0, b'/opt/prog') +
          ev2.sample(0, 0x400100, 10, pid=7, tid=7) +
          ev2.sample(1, 0x400200, 11, pid=7, tid=7) +
          ev2.lost(1, 4) + ev2.lost_samples(0, 1))
    out['craft-id'] = (0, perf_file(ev2, r2, features(ev2, extra={
        F_BUILD_ID: None, F_EVENT_DESC: event_desc(ev2, (b'a', b'b'))})))

    # ---- damage ----
    pe = plain_events()
    pr = (pe.mmap2(100, 0x400000, 0x1000, 0, b'/opt/prog') +
          pe.sample(0, 0x400100, 10) + pe.sample(1, 0x400200, 11) +
          round_end())
    good = perf_file(pe, pr, features(pe))
    out['bad-header-cut'] = (0, good[:50])
    out['bad-header-cut-88'] = (0, good[:88])
    # a file of 88 bytes whose header says 104: its event (the header
    # itself) and its data fit, its feature bits do not (once read from
    # memory never written)
    out['bad-header-short-file'] = (0, b'PERFILE2' + u64(
        104, 80, 0, 80, 80, 8, 0, 0) + bytes(8) + rec(FINISHED_ROUND, b''))
    out['bad-header-size'] = (0, good[:8] + u64(96) + good[16:])
    out['bad-magic'] = (0, b'PERFILE1' + good[8:])
    out['bad-swapped'] = (0, b'2ELIFREP' + good[8:])
    out['bad-file-in-pipe'] = (1, good)
    out['bad-attr-size'] = (0, perf_file(pe, pr, {}, attr_size=16))
    out['bad-attr-size-odd'] = (0, perf_file(pe, pr, {}, attr_size=100))
    out['bad-attrs-beyond'] = (0, perf_file(pe, pr, {},
                                            attrs_at=(1 << 40, 288)))
    out['bad-ids-beyond'] = (0, perf_file(pe, pr, {}, ids_at=[
        (104, 8), (1 << 32, 8)]))
    out['bad-ids-odd'] = (0, perf_file(pe, pr, {}, ids_at=[(104, 7),
                                                           (112, 8)]))
    out['bad-no-events'] = (0, perf_file(Events([attr(PLAIN)], [[]]), pr,
                                         {}, attrs_at=(104, 0)))
    out['bad-data-beyond'] = (0, perf_file(pe, pr, {}, data_size=1 << 20))
    # the last record runs past the data section into the features
    out['bad-record-overrun'] = (0, perf_file(
        pe, pr[:-8] + struct.pack('<IHH', FINISHED_ROUND, 0, 64),
        features(pe)))
    out['bad-record-short'] = (0, perf_file(
        pe, pr + struct.pack('<IHH', SAMPLE, 0, 4), {}))
    out['bad-data-ends-in-header'] = (0, perf_file(pe, pr + b'\1\0\0', {}))
    # data.size 0: perf record was killed; the last record cut short
    out['bad-unfinished'] = (0, perf_file(pe, pr[:-12], {}, data_size=0))
    # feature sections past the end, with lengths their contents deny
    out['bad-feature-huge'] = (0, perf_file(pe, pr, features(pe), feat_fix={
        F_HOSTNAME: lambda o, n: (o, 1 << 30)}))
    out['bad-feature-beyond'] = (0, perf_file(pe, pr, features(pe), feat_fix={
        F_OSRELEASE: lambda o, n: (1 << 40, n)}))
    out['bad-feature-long'] = (0, perf_file(pe, pr, features(pe), feat_fix={
        F_CMDLINE: lambda o, n: (o, n + 4096)}))
    out['bad-feature-lengths'] = (0, perf_file(pe, pr, features(pe, extra={
        F_HOSTNAME: u32(1 << 20) + b'host',
        F_ARCH: u32(64) + b'x86_64',
        F_NRCPUS: u32(4),
        F_SAMPLE_TIME: u64(5),
        F_CPUDESC: u32(8) + b'no nul!!',
        F_CMDLINE: u32(1 << 30) + header_string(b'perf'),
        F_BUILD_ID: None,
    })))
    out['bad-feature-cmdline'] = (0, perf_file(pe, pr, features(pe, extra={
        F_BUILD_ID: None, F_CMDLINE: u32(3) + header_string(b'perf') +
        u32(1 << 20)})))
    out['bad-feature-build-id'] = (0, perf_file(pe, pr, features(pe, extra={
        F_BUILD_ID: struct.pack('<IHH', 0, 0, 4000) + bytes(40)})))
    out['bad-feature-build-id-short'] = (0, perf_file(
        pe, pr, features(pe, extra={
            F_BUILD_ID: struct.pack('<IHH', 0, 0, 16) + bytes(16)})))
    out['bad-event-desc'] = (0, perf_file(pe, pr, features(pe, extra={
        F_EVENT_DESC: u32(1 << 20, ATTR_SIZE)})))
    out['bad-event-desc-ids'] = (0, perf_file(pe, pr, features(pe, extra={
        F_EVENT_DESC: u32(1, ATTR_SIZE) + pe.attrs[0] + u32(1 << 28) +
        header_string(b'x')})))
    out['bad-unknown-features'] = (0, perf_file(pe, pr, features(pe, extra={
        40: b'unknown', 200: b'', 255: u64(1), 28: b'caps'})))
    out['bad-dir-format'] = (0, perf_file(pe, pr, features(pe, extra={
        F_DIR_FORMAT: u64(1)})))
    out['bad-not-zstd'] = (0, perf_file(pe, pr, features(pe, extra={
        F_COMPRESSED: u32(0, 2, 1, 4) + u64(0)})))
    # samples whose fields lie beyond the record, each malformed at one
    # field (FULL's layout: 9 words, then READ, CALLCHAIN, RAW,
    # BRANCH_STACK, REGS_USER, STACK_USER), and other records too short
    # for their fields
    fe = full_events()
    pre = u64(11, 0x401000) + u32(100, 100) + u64(10, 0, 11, 11) + \
        u32(0, 0) + u64(1000)
    read = u64(1, 5, 5, 10, 11, 0)
    chain = u64(1, 0x401000)
    raw = u32(4) + b'raw!'
    branch = u64(0, 0)
    regs = u64(0)
    huge = 1 << 40
    t = fe.trailer()
    bad = [
        rec(SAMPLE, pre + u64(huge)),
        rec(SAMPLE, pre + read + u64(huge)),
        rec(SAMPLE, pre + read + chain + u32(0xfffffff0) + bytes(4)),
        rec(SAMPLE, pre + read + chain + raw + u64(huge, 0)),
        rec(SAMPLE, pre + read + chain + raw + branch + u64(2, 1, 2)),
        rec(SAMPLE, pre + read + chain + raw + branch + regs + u64(huge)),
        rec(SAMPLE, pre + read + chain + raw + branch + regs + u64(16) +
            bytes(16)),
        rec(SAMPLE, pre[:20]),                  # cut in its fields
        rec(SAMPLE, u64(999) + pre[8:]),        # an unknown id
        rec(SAMPLE, b''),                       # no id at all
        rec(MMAP2, u64(1) + t),
        rec(MMAP, u32(1, 1) + u64(1, 2, 3) + b'nonulxyz' + t),
        rec(COMM, u32(1, 1) + b'no nul!!' + t),
        rec(FORK, u32(1, 2)),
        rec(EXIT, u32(1, 2, 3, 4)),
        rec(LOST, u32(1)),
        rec(LOST_SAMPLES, b''),
        rec(LOST_SAMPLES, t),
        rec(SWITCH, b''),
        rec(SWITCH_CPU_WIDE, u32(1)),
        round_end(),
    ]
    out['bad-records'] = (0, perf_file(fe, b''.join(bad), {}))
    # pid -1, the collector's mark of an empty slot, in every record that
    # names a process (once read as a process of garbage)
    se = plain_events(2, A_SAMPLE_ID_ALL | A_MMAP2 | A_CONTEXT_SWITCH)
    m = 0xffffffff
    out['bad-pid-max'] = (0, perf_file(se, se.mmap2(5, 0x400000, 0x1000, 0,
                                                    b'/opt/prog') +
                                       se.comm(5, 5, b'p') +
                                       se.sample(0, 0x400100, 5, pid=5, tid=5) +
                                       se.sample(0, 0x400100, 6, pid=m, tid=5) +
                                       se.comm(m, m, b'x', time=7) +
                                       se.fork(m, 5, m, 5, 8) +
                                       se.fork(6, m, 6, m, 9) +
                                       se.fork(m, m, m, m, 10, type_=EXIT) +
                                       se.switch(m, m, 11, True) +
                                       se.switch(m, m, 12, False) +
                                       round_end(), {}))
    out['bad-id-index'] = (0, perf_file(pe, pr + rec(ID_INDEX, u64(1 << 40)),
                                        {}))
    out['bad-auxtrace-beyond'] = (0, perf_file(pe, pr + rec(
        AUXTRACE, u64(1 << 30, 0, 0) + u32(0, 0, 0, 0)), {}))
    out['bad-zstd'] = (0, perf_file(pe, pr + compressed(
        b'\x28\xb5\x2f\xfd\x00\x38\xff\xff\xff'), {}))
    out['bad-zstd-short-record'] = (0, perf_file(pe, pr + compressed(
        zstd_raw(struct.pack('<IHH', SAMPLE, 0, 4) + bytes(8))), {}))
    out['bad-zstd-nested'] = (0, perf_file(pe, pr + compressed(
        zstd_raw(compressed(zstd_raw(round_end())))), {}))
    # a zstd bomb: COMPRESSED records of 33 bytes, each a frame of one
    # block whose one sequence repeats its 8 literal bytes (an empty
    # SWITCH record) to 128 KiB: 16384 records a record, 16 million in
    # all, from 33 KB.  The block's bytes are zstd's (zstd -19 of those
    # 128 KiB): raw literals, then the sequence (literals 8, offset 8,
    # match 131064) in its predefined codes.
    block = (bytes([8 << 3]) + struct.pack('<IHH', SWITCH, 0, 8) +
             bytes([1, 0]) + bytes.fromhex('f5fff3cb05'))
    frame = (b'\x28\xb5\x2f\xfd\x00\x68' +
             struct.pack('<I', (len(block) << 3) | (2 << 1) | 1)[:3] + block)
    out['bad-zstd-bomb'] = (0, perf_file(pe, pr + compressed(frame) * 1000,
                                         {F_COMPRESSED: u32(0, 1, 1, 4) +
                                          u64(1 << 20)}))
    # COMPRESSED records of ID_INDEX records adding 53,222 ids (26 of
    # 2047), 50 KB in all: each id added once sorted all the ids known
    # again (minutes).  Made by the zstd program when there is one.
    ids = b''.join(rec(ID_INDEX, u64(2047) + b''.join(
        u64(100 + 2047 * r + k, 1, 0, 0) for k in range(2047)))
        for r in range(26))
    z = zstd_cli(ids)
    if z is not None:
        out['bad-id-index-many'] = (0, perf_file(pe, pr + b''.join(
            compressed(z[k:k + 60000]) for k in range(0, len(z), 60000)),
            {F_COMPRESSED: u32(0, 1, 1, 4) + u64(1 << 20)}))
    # and 45,000 ID_INDEX records of one new id each, 58 KB: sorting once
    # a record was still quadratic (the ids are now in a hash index)
    ids = b''.join(rec(ID_INDEX, u64(1, 100 + k, 1, 0, 0))
                   for k in range(45000))
    z2 = zstd_cli(ids)
    if z2 is not None:
        out['bad-id-index-each'] = (0, perf_file(pe, pr + b''.join(
            compressed(z2[k:k + 60000]) for k in range(0, len(z2), 60000)),
            {F_COMPRESSED: u32(0, 1, 1, 4) + u64(1 << 20)}))
    else:
        print('mkperfdata.py: no zstd program: bad-id-index-* not made',
              file=sys.stderr)
    # 230,000 HEADER_BUILD_ID records then 230,000 mappings of another
    # path, zstd's frame then 48 KB of noise in one COMPRESSED record
    # (noise the reader skips, but counts as compressed bytes: 8 records
    # a byte allowed), 60 KB: each mapping looked for its path's build-id
    # among all the entries (over 10 s)
    z = zstd_cli(header_build_id(b'/a', BID, pid=5) * 230000 +
                 pe.mmap2(5, 0x400000, 0x1000, 0, b'/b') * 230000)
    if z is not None:
        noise, k = b'', 0
        while len(z) + len(noise) < 60000:
            noise += hashlib.sha256(b'%d' % k).digest()
            k += 1
        out['bad-build-ids-many'] = (0, perf_file(
            pe, pr + compressed(z + noise[:60000 - len(z)]),
            {F_COMPRESSED: u32(0, 1, 1, 4) + u64(1 << 20)}))
    out['bad-compressed2-len'] = (0, perf_file(pe, pr + rec(
        COMPRESSED2, u64(1 << 20) + bytes(8)), {}))
    pp = perf_pipe(pe, pr)
    out['bad-pipe-attr'] = (1, b'PERFILE2' + u64(16) + rec(
        HEADER_ATTR, attr(PLAIN, size=40)) + pr)
    out['bad-pipe-attr-size'] = (1, b'PERFILE2' + u64(16) + rec(
        HEADER_ATTR, attr(PLAIN)[:4] + u32(4000) + attr(PLAIN)[8:]) + pr)
    out['bad-pipe-feature'] = (1, pp[:16] + rec(HEADER_FEATURE, b'') +
                               pp[16:])
    out['bad-pipe-no-attr'] = (1, b'PERFILE2' + u64(16) + pr)
    out['bad-pipe-record-short'] = (1, pp + struct.pack('<IHH', 9, 0, 2))
    out['bad-pipe-build-id'] = (1, pp[:16 + 2 * (8 + ATTR_SIZE + 8)] + rec(
        HEADER_BUILD_ID, bytes(20)) + pr)
    out['bad-pipe-dir-format'] = (1, perf_pipe(pe, pr, {F_DIR_FORMAT: u64(1)}))
    return out


def main():
    outdir = sys.argv[1]
    for name, (opt, data) in sorted(seeds().items()):
        with open('%s/%s' % (outdir, name), 'wb') as f:
            f.write(bytes([opt]) + data)


if __name__ == '__main__':
    main()
