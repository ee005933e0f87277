#!/usr/bin/env python3
"""net_probe.py CASE... -- e2e 0240's attacks from inside a sandbox with network = proxy.

Each CASE prints one line "CASE: RESULT". The proxy fronts are the sandbox's
127.0.0.1:3128 (HTTP) and 127.0.0.1:1080 (SOCKS5).
"""
import os
import socket
import ssl
import struct
import sys

HTTP = ("127.0.0.1", 3128)
SOCKS = ("127.0.0.1", 1080)


def talk(addr, data, wait=5.0):
    c = socket.create_connection(addr, timeout=wait)
    c.sendall(data)
    out = b""
    try:
        while True:
            d = c.recv(65536)
            if not d:
                break
            out += d
    except socket.timeout:
        out += b"<timeout>"
    except OSError as e:
        out += b"<errno %d>" % e.errno
    c.close()
    return out


def status(out):
    """The first line's status and what an echo server said it saw."""
    s = out.decode("latin1")
    words = [w for w in s.split() if w.startswith(("path=", "host="))]
    return " ".join([s.split("\r\n")[0][9:12] or "-"] + words)


def socks(host, port, atyp=3):
    a = bytes([len(host)]) + host if atyp == 3 else host
    c = socket.create_connection(SOCKS, timeout=5)
    c.sendall(b"\x05\x01\x00\x05\x01\x00" + bytes([atyp]) + a + struct.pack(">H", port))
    try:
        out = c.recv(2) + c.recv(64)
    except OSError as e:
        return "errno %d" % e.errno
    return "reply %d" % out[3] if len(out) > 3 else "closed"


def client_hello(name):
    """The bytes of a real ClientHello naming name (Python's ssl, no server needed)."""
    ctx = ssl.create_default_context()
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=name)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return o.read()


def connect_then(host_port, first):
    """CONNECT host_port, then first into the tunnel: the proxy's answer, then what came back."""
    return talk(HTTP, b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (host_port, host_port) + first)


def case(name):
    if name == "guard":  # an allowed name whose address is the host's loopback
        return status(talk(HTTP, b"GET http://loop.test/g HTTP/1.1\r\nHost: loop.test\r\n\r\n"))
    if name == "host-mismatch":
        return status(talk(HTTP, b"CONNECT good.test:80 HTTP/1.1\r\nHost: evil.test:80\r\n\r\n"))
    if name == "host-c1":  # a Host naming another host with a C1 control byte in it
        return status(talk(HTTP, b"CONNECT good.test:443 HTTP/1.1\r\nHost: ev\x9b2Jil.test:443\r\n\r\n"))
    if name == "sni":
        out = connect_then(b"good.test:80", client_hello("evil.test"))
        head, _, rest = out.partition(b"\r\n\r\n")
        if b" 200 " not in head:
            return status(out)
        return "relayed %r" % rest[:40] if rest else "cut"
    if name == "sni-front":  # a tunnel to good.test asking for the fronted name front.test
        out = connect_then(b"good.test:80", client_hello("front.test"))
        head, _, rest = out.partition(b"\r\n\r\n")
        return "cut" if b" 200 " in head and not rest else status(out)
    if name.startswith("guard6="):  # an allowed name whose address is guarded: 403 each
        host = name[7:].encode()
        return status(talk(HTTP, b"GET http://%s:18081/g HTTP/1.1\r\nHost: %s:18081\r\n\r\n" % (host, host)))
    if name == "slowloris":
        # a command's own connections that never finish a head, a greeting or a ClientHello,
        # and a body that never ends: the proxy holds them all, and serves a request beside
        held = []
        for i in range(60):
            c = socket.create_connection(HTTP, timeout=10)
            c.sendall(b"GET http://good.test/slow HTTP/1.1\r\nHost: good.test\r\nX-%d: " % i)
            held.append(c)
        for i in range(20):
            c = socket.create_connection(SOCKS, timeout=10)
            c.sendall(b"\x05")
            held.append(c)
        for i in range(20):
            c = socket.create_connection(HTTP, timeout=10)
            c.sendall(b"CONNECT good.test:80 HTTP/1.1\r\nHost: good.test:80\r\n\r\n\x16\x03\x01\x02\x00")
            held.append(c)
        c = socket.create_connection(HTTP, timeout=10)
        c.sendall(b"POST http://good.test/forever HTTP/1.1\r\nHost: good.test\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n" + b"4\r\nxxxx\r\n" * 20000)
        held.append(c)
        r = status(talk(HTTP, b"GET http://good.test/beside HTTP/1.1\r\nHost: good.test\r\nConnection: close\r\n\r\n"))
        for c in held:
            c.close()
        return r
    if name == "socks-slash":
        return socks(b"evil.test/.good.test", 80)
    if name == "socks-c1":
        return socks(b"\x9b2J\x9d0;x\x9c.test", 80)
    if name == "socks-utf8-c1":
        return socks(b"\xc2\x9b2Jevil.test", 80)
    if name == "socks4a":
        try:
            out = talk(SOCKS, b"\x04\x01\x00\x50\x00\x00\x00\x01u\x00good.test\x00")
        except OSError as e:
            return "errno %d" % e.errno
        return "socks4 reply %d" % out[1] if len(out) > 1 else "closed"
    if name == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.sendto(b"x", ("10.77.0.2", 9))
            return "sent"
        except OSError as e:
            return "errno %d" % e.errno
    if name in ("raw", "icmp"):  # a raw socket, a ping socket: to the remote, directly
        try:
            if name == "raw":
                s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
            else:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
            s.sendto(b"\x08\x00\xf7\xff\x00\x00\x00\x00", ("10.77.0.2", 0))
            return "sent"
        except OSError as e:
            return "errno %d" % e.errno
    if name == "tcp-direct":
        try:
            socket.create_connection(("10.77.0.2", 80), timeout=5)
            return "connected"
        except OSError as e:
            return "errno %d" % e.errno
    if name.startswith("abstract="):
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect("\0" + name[9:])
            return "connected"
        except OSError as e:
            return "errno %d" % e.errno
    if name.startswith("fake-daemon="):
        # a session daemon's socket served from inside the sandbox: made where the front end
        # of a later command looks for its session's daemon; says what reached it
        path = name[12:]
        for d in (os.path.dirname(os.path.dirname(path)), os.path.dirname(path)):
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o700)  # as the daemon makes them: private
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.listen(4)
        print("up", flush=True)
        s.settimeout(30)
        try:
            c, _ = s.accept()
        except socket.timeout:
            return "no connection"
        c.settimeout(10)
        try:
            got = c.recv(65536)
        except OSError:
            got = b""
        return "sent %d bytes" % len(got) if got else "closed, nothing sent"
    if name.startswith("ctl-status="):
        # the session daemon's control socket, once it appears: asks for its status
        import time
        sys.path.insert(0, os.getcwd())
        import sess_client as sc
        path = name[11:]
        for _ in range(300):
            if os.path.exists(path):
                break
            time.sleep(0.1)
        s = sc.connect(path)
        try:
            s.sendall(sc.frame(sc.STATUS))
        except OSError:
            pass  # refused at accept: the daemon's answer is read below
        try:
            r = sc.recv_frame(s)
        except OSError as e:
            return "errno %d" % e.errno
        return "served" if r and r[0] == sc.STATUS_REPLY else sc.describe(r)
    return "unknown case"


for n in sys.argv[1:]:
    try:
        r = case(n)
    except Exception as e:  # a probe that breaks says so, it never passes silently
        r = "error %s" % e
    print("%s: %s" % (n, r), flush=True)
