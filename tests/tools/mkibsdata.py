#!/usr/bin/env python3
# A perf.data of AMD IBS op samples, as perf record -e ibs_op// -R writes
# them on a machine with IBS (this one may have none): samples of the
# ibs_op PMU whose raw data are the MSR images the kernel copies
# (caps, IbsOpCtl, IbsOpRip, IbsOpData..3, IbsDcLinAd, IbsDcPhysAd), in
# functions of a real program, with known tag-to-retire cycles and
# mispredicted branches, so that the report's profile-me statistics and
# ratios are known by construction:
#   hot_a: 300 ops, 40 cycles each
#   hot_b: 100 ops, 10 cycles each, 50 of them mispredicted branches
# Layouts: AMD's PPR (IBS registers), perf's perf.data format; the
# record and header builders are fuzz/mkperfdata.py's.
#
#   tests/tools/mkibsdata.py PROG OUT
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'fuzz'))
import mkperfdata as m  # noqa: E402

IBS_TYPE = 11                   # the ibs_op PMU's type (dynamic: any)
PERIOD = 100000
PID = 4242
BASE = 0x555555554000


def symbols(prog):
    out = subprocess.run(['nm', prog], capture_output=True, text=True,
                         check=True).stdout
    return {f[2]: int(f[0], 16) for f in (l.split() for l in
                                           out.splitlines()) if len(f) == 3}


def exec_segment(prog):
    """The executable PT_LOAD: (offset, vaddr, filesz)."""
    out = subprocess.run(['readelf', '-lW', prog], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == 'LOAD' and 'E' in f[6:-1]:
            return int(f[1], 16), int(f[2], 16), int(f[4], 16)
    sys.exit('no executable segment in ' + prog)


def ibs_raw(rip, cycles, mispredict):
    data = cycles << 16                 # IbsTagToRetCtr
    if mispredict is not None:
        data |= 1 << 37                 # IbsOpBrnRet
        data |= (1 << 36) if mispredict else 0     # IbsOpBrnMisp
    caps = 0x87                         # IBS, op sampling, RipInvalidChk
    return struct.pack('<I', caps) + struct.pack(
        '<7Q', 1 << 18, rip, data, 0, 0, 0, 0)     # IbsOpVal


def main():
    prog, out = sys.argv[1], sys.argv[2]
    prog = os.path.abspath(prog)
    syms = symbols(prog)
    off, vaddr, size = exec_segment(prog)
    pie = vaddr < 0x400000
    base = BASE if pie else 0
    start = base + (vaddr & ~0xfff)
    length = ((vaddr + size + 0xfff) & ~0xfff) - (vaddr & ~0xfff)
    st = m.S_IP | m.S_TID | m.S_TIME | m.S_CPU | m.S_PERIOD | m.S_RAW
    ev = m.Events([m.attr(st, period=PERIOD, type_=IBS_TYPE)], [[7]])
    data = ev.comm(PID, PID, os.path.basename(prog).encode(), time=1000)
    # MMAP2 with the program's own device and inode, as the kernel
    # records them (the reader checks the file at the path is still it)
    st_ = os.stat(prog)
    data += m.rec(m.MMAP2, m.u32(PID, PID) +
                  m.u64(start, length, off & ~0xfff) +
                  m.u32(os.major(st_.st_dev), os.minor(st_.st_dev)) +
                  m.u64(st_.st_ino, 0) + m.u32(5, 2) +
                  m.cstr(prog.encode()) + ev.trailer(PID, PID, 1000),
                  m.USER)
    t = 2000
    for name, n, cycles, misp in (('hot_a', 300, 40, None),
                                  ('hot_b', 100, 10, 50)):
        rip = base + syms[name] + 4
        for k in range(n):
            t += 100000
            mis = None if misp is None else k < misp
            data += ev.sample(0, 0, t, pid=PID, tid=PID, cpu=k % 2,
                              period=PERIOD,
                              raw=ibs_raw(rip, cycles, mis))
    data += m.round_end()
    feats = {
        m.F_HOSTNAME: m.header_string(b'ibs-host'),
        m.F_OSRELEASE: m.header_string(b'6.1.0'),
        m.F_VERSION: m.header_string(b'6.1.0'),
        m.F_ARCH: m.header_string(b'x86_64'),
        m.F_NRCPUS: m.u32(2, 2),
        m.F_CPUDESC: m.header_string(b'AMD EPYC'),
        m.F_CMDLINE: m.u32(5) + b''.join(m.header_string(s) for s in (
            b'perf', b'record', b'-e', b'ibs_op//', prog.encode())),
        m.F_EVENT_DESC: m.event_desc(ev, [b'ibs_op//']),
        m.F_SAMPLE_TIME: m.u64(2000, t),
    }
    with open(out, 'wb') as f:
        f.write(m.perf_file(ev, data, feats))


main()
