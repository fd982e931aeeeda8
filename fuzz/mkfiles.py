#!/usr/bin/env python3
# Seeds of archived files (section 13) for fuzz_profile, made from a
# profile without files (fuzz/mkcorpus.sh passes stacks.umon, the same
# bytes every time): a file and a debug file that unpack, and files
# over the caps of docs/profile-format.md or whose stream does not give
# the size declared.  The total cap (4 GiB) cannot be reached by a seed
# small enough to keep: the reader checks it in the same place.
#
#   fuzz/mkfiles.py BASE OUTDIR
import os, struct, sys, zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'tools'))
from umonsections import sections, rebuild  # noqa: E402


def with_files(base, files):
    body = struct.pack('<I', len(files))
    for kind, path, bid, size, z in files:
        body += struct.pack('<II', kind, len(path)) + path
        body += struct.pack('<I', len(bid)) + bid
        body += struct.pack('<QQ', size, len(z)) + z
    return rebuild(base, [s for s in sections(base) if s[0] != 13] +
                   [(13, body)])


base = open(sys.argv[1], 'rb').read()
out = sys.argv[2]
text = b'archived bytes\n' * 64
bid = bytes(range(20))
seeds = {
    # an object and its debug file (found by build-id)
    'files-ok': [(0, b'/usr/lib/x.so', bid, len(text), zlib.compress(text)),
                 (1, b'/usr/lib/x.so', bid, 4096,
                  zlib.compress(bytes(4096)))],
    # 1 MiB of zeros: over 200:1
    'files-ratio': [(0, b'/a', b'', 1 << 20, zlib.compress(bytes(1 << 20)))],
    # 2 GiB declared: over the cap per file
    'files-big': [(0, b'/a', b'', 1 << 31, zlib.compress(b'x'))],
    # the stream gives more, then fewer, bytes than declared
    'files-long': [(0, b'/a', b'', 1000, zlib.compress(bytes(5000)))],
    'files-short': [(0, b'/a', b'', 5000, zlib.compress(bytes(1000)))],
}
for name, files in seeds.items():
    open(f'{out}/{name}.umon', 'wb').write(with_files(base, files))
