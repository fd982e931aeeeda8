# The section table of a profile (docs/profile-format.md), for the tests
# and fuzz seeds that craft damaged or hostile profiles from real ones:
#
#   sections(data)        [(id, bytes)] in the table's order
#   rebuild(data, secs)   data's header with secs laid out after a new
#                         table, the size and CRC-32 recomputed
#   fix_crc(buf)          buf (a bytearray) with its CRC-32 recomputed
import struct, zlib

HEADER = 32
ENTRY = 24


def sections(data):
    n = struct.unpack_from('<I', data, 12)[0]
    out = []
    for i in range(n):
        sid, _, off, ln = struct.unpack_from('<IIQQ', data,
                                             HEADER + ENTRY * i)
        out.append((sid, bytes(data[off:off + ln])))
    return out


def rebuild(data, secs):
    off = HEADER + ENTRY * len(secs)
    table = b''
    for sid, body in secs:
        table += struct.pack('<IIQQ', sid, 0, off, len(body))
        off += len(body)
    rest = table + b''.join(body for _, body in secs)
    return bytes(data[:12]) + struct.pack('<IQII', len(secs), off,
                                          zlib.crc32(rest), 0) + rest


def fix_crc(buf):
    struct.pack_into('<I', buf, 24, zlib.crc32(bytes(buf[HEADER:])))
    return buf


# Section 15, the time stream (docs/profile-format.md): a 32-byte header
# (u32 unit_ns, u32 flags, u64 nevents, u64 raw_len, u64 zlen), then zlen
# bytes of zlib holding four columns of LEB128 numbers, nevents each:
# time deltas (in units), task count indices, stack indices + 1, weights.
#
#   uleb(v)                    v as unsigned LEB128
#   events(body)               {'unit', 'flags', 'n', 'raw_len', 'zlen',
#                              'cols': [times, tcounts, stacks, weights]}
#                              of a section 15 body (its stream inflated)
#   events_body(cols, ...)     a section 15 body of the four columns; any
#                              header field may be given instead of the
#                              one computed (unit=1000, flags=0, n,
#                              raw_len, zlen), raw= the columns' bytes as
#                              they are to be deflated, tail= bytes after
#                              the stream
EVENTS_HEADER = 32


def uleb(v):
    out = bytearray()
    while True:
        c = v & 0x7f
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _read_uleb(b, o):
    v = shift = 0
    while True:
        c = b[o]
        o += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, o


def events(body):
    unit, flags, n, raw_len, zlen = struct.unpack_from('<IIQQQ', body)
    raw = zlib.decompress(body[EVENTS_HEADER:])
    cols, o = [], 0
    for _ in range(4):
        col = []
        for _ in range(n):
            v, o = _read_uleb(raw, o)
            col.append(v)
        cols.append(col)
    assert o == len(raw) == raw_len, 'columns do not fill the stream'
    return {'unit': unit, 'flags': flags, 'n': n, 'raw_len': raw_len,
            'zlen': zlen, 'cols': cols}


def events_body(cols, unit=1000, flags=0, n=None, raw_len=None, zlen=None,
                raw=None, tail=b''):
    if raw is None:
        raw = b''.join(uleb(v) for col in cols for v in col)
    # zlib's fastest level, as the writer (events.c): the same bytes, so
    # a test's 'len' is the stream's
    z = zlib.compress(raw, 1) + tail
    return struct.pack('<IIQQQ', unit, flags,
                       len(cols[0]) if n is None else n,
                       len(raw) if raw_len is None else raw_len,
                       len(z) if zlen is None else zlen) + z
