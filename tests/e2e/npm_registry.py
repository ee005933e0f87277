#!/usr/bin/env python3
"""npm_registry.py — a local stand-in for the npm registry, for the e2e tests and the bench.

    npm_registry.py PORT BIND NAME COUNT PROJECT_DIR

Makes COUNT packages in memory (sbxsh-dep-000 …, version 1.0.0; each a package.json, an
index.js, a lib/ file and a README; the first half each depend on one of the second half, so
npm resolves a graph, not a list), serves their packuments (GET /NAME) and tarballs
(GET /NAME/-/NAME-1.0.0.tgz) with the shasum and sha512 integrity npm checks, and writes
PROJECT_DIR/package.json depending on all of them. NAME is the host the tarball URLs name
(127.0.0.1:PORT, or a name the test's /etc/hosts gives). Prints "ready" when it listens.
Every request is appended to $NPM_REG_LOG when that is set.
"""
import base64
import hashlib
import http.server
import io
import json
import os
import socket
import sys
import tarfile

port, bind, name, count, project = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
base = "http://%s" % name
pkgs = {}


def tarball(pkg, deps):
    files = {
        "package/package.json": json.dumps({"name": pkg, "version": "1.0.0", "main": "index.js",
                                            "dependencies": deps}),
        "package/index.js": "module.exports = %s + require('./lib/v');\n" % json.dumps(pkg + ":"),
        "package/lib/v.js": "module.exports = '1.0.0';\n",
        "package/README.md": "# %s\n\nA package of the sbxsh tests' npm registry stand-in.\n" % pkg,
    }
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as t:
        for p, c in files.items():
            b = c.encode()
            i = tarfile.TarInfo(p)
            i.size, i.mode, i.mtime = len(b), 0o644, 499162500
            t.addfile(i, io.BytesIO(b))
    return raw.getvalue()


names = ["sbxsh-dep-%03d" % i for i in range(count)]
for i, pkg in enumerate(names):
    deps = {names[count // 2 + i]: "1.0.0"} if i < count // 2 and count // 2 + i < count else {}
    tgz = tarball(pkg, deps)
    url = "%s/%s/-/%s-1.0.0.tgz" % (base, pkg, pkg)
    doc = {"name": pkg, "dist-tags": {"latest": "1.0.0"},
           "versions": {"1.0.0": {"name": pkg, "version": "1.0.0", "dependencies": deps,
                                  "dist": {"tarball": url,
                                           "shasum": hashlib.sha1(tgz).hexdigest(),
                                           "integrity": "sha512-" + base64.b64encode(
                                               hashlib.sha512(tgz).digest()).decode()}}}}
    pkgs["/" + pkg] = ("application/json", json.dumps(doc).encode())
    pkgs["/%s/-/%s-1.0.0.tgz" % (pkg, pkg)] = ("application/octet-stream", tgz)

os.makedirs(project, exist_ok=True)
with open(os.path.join(project, "package.json"), "w") as f:
    json.dump({"name": "sbxsh-npm-project", "version": "1.0.0", "private": True,
               "dependencies": {n: "1.0.0" for n in names}}, f)

log = os.environ.get("NPM_REG_LOG")


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # headers and body are two writes: without this, Nagle and the client's delayed ACK
        # hold every response 40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        if log:
            with open(log, "a") as f:
                f.write(self.path + "\n")
        body = pkgs.get(self.path.split("?")[0].replace("%2f", "/").replace("%2F", "/"))
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", body[0])
        self.send_header("Content-Length", str(len(body[1])))
        self.end_headers()
        self.wfile.write(body[1])

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer((bind, int(port)), H)
print("ready", flush=True)
srv.serve_forever()
