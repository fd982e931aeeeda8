#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile debuginfod server for tests/1765-debuginfod-hostile.bats.

    fakedebuginfod.py file PATH   every /buildid/ID/debuginfo is PATH
    fakedebuginfod.py endless     every /buildid/ID/debuginfo is an
                                  endless chunked body (no Content-Length)

Anything else is 404.  It listens on 127.0.0.1, on a port the kernel
chooses, and prints that port on stdout once it accepts connections, so
a test waits for the line instead of sleeping.  Each request is logged
on stderr.  The endless body is paced (about 2 MB/s) and stops after
256 MiB, so a client that never cuts it cannot fill the disk in a
test's time.
"""
import http.server
import re
import sys
import time

CHUNK = 64 * 1024
PAUSE = 0.03
LIMIT = 256 << 20


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if not re.fullmatch(r"/buildid/[0-9a-f]+/debuginfo", self.path):
            self.send_error(404)
            return
        if MODE == "endless":
            self.endless()
        else:
            self.whole(ARG)

    def whole(self, path):
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def endless(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"%x\r\n" % CHUNK + b"\x7fELF" + bytes(CHUNK - 4) + b"\r\n"
        sent = 0
        try:
            while sent < LIMIT:
                self.wfile.write(chunk)
                self.wfile.flush()
                sent += CHUNK
                time.sleep(PAUSE)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def log_message(self, fmt, *args):
        sys.stderr.write("%s\n" % (fmt % args))
        sys.stderr.flush()


if len(sys.argv) < 2 or sys.argv[1] not in ("file", "endless") or \
        (sys.argv[1] == "file") != (len(sys.argv) == 3):
    sys.exit("usage: fakedebuginfod.py file PATH | endless")
MODE = sys.argv[1]
ARG = sys.argv[2] if MODE == "file" else None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
