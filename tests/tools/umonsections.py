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
