#!/usr/bin/env python3
"""echo_http.py PORT ADDR... -- a test HTTP server: answers every request with what it saw.

GET /big?n=BYTES answers BYTES deterministic bytes; anything else answers one line
"method=M path=P host=H body=N sha=HEX". Each request is also appended to $ECHO_LOG.
Prints "ready" on stdout once every address listens.
"""
import hashlib
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))

    def answer(self):
        data = self.body()
        log = os.environ.get("ECHO_LOG")
        if log:
            with open(log, "a") as f:
                f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Host")))
        if self.path.startswith("/big?n="):
            n = int(self.path.split("=", 1)[1])
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            block = bytes(range(256)) * 256
            while n > 0:
                chunk = block[:min(n, len(block))]
                self.wfile.write(chunk)
                n -= len(chunk)
            return
        text = "method=%s path=%s host=%s body=%d sha=%s\n" % (
            self.command, self.path, self.headers.get("Host"), len(data),
            hashlib.sha256(data).hexdigest())
        out = text.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = answer


class V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def main():
    port = int(sys.argv[1])
    servers = []
    for addr in sys.argv[2:]:
        cls = V6Server if ":" in addr else ThreadingHTTPServer
        servers.append(cls((addr, port), Handler))
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print("ready", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
