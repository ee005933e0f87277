#!/usr/bin/env python3
"""sess_client.py -- a test client of the session daemon, speaking session/proto.h on its own.

It plays the front end and the stage for the e2e tests: it makes its own listening sockets,
passes them with BEGIN over the control socket (SCM_RIGHTS), and holds the command open.

  begin SOCK [--allow P]... [--deny P]... [--reach HOSTPORT]... [--profile S] [--file F]
        [--listen PORT:INNERPORT]...  (the host's PORT relayed to 127.0.0.1:INNERPORT, as the
        stage's listen relay would relay it to PORT inside the sandbox)
        prints "READY http=PORT socks=PORT reach=HOSTPORT:PORT..." (or "REFUSED why") on
        stdout and closes it, then holds the command until SIGUSR1 (sends END, prints the
        answer on stderr) or SIGTERM (just closes, as a killed front end would).
  status SOCK     prints the counters, one "name value" a line
  stop SOCK
  raw SOCK HEX    sends the bytes, prints the reply type (or "closed")
  multi SOCK N TARGETPORT
        N commands at once, each with its own listener and lists (even: allow
        127.0.0.1:TARGETPORT, odd: nothing), each fetching through its own listener;
        prints "ok" when every answer is the right one for its own command.
"""
import os
import signal
import socket
import struct
import sys
import threading

VERSION = 1
BEGIN, END, STATUS, STOP, RELAY = 1, 2, 3, 4, 5
OK, ERR, STATUS_REPLY = 0x81, 0x82, 0x83
T_CMD_ID, T_CMDLINE, T_CWD, T_PROFILE, T_PROFILE_FILE = 1, 2, 3, 4, 5
T_ALLOW, T_DENY, T_REACH, T_LISTEN, T_FD, T_TEXT, T_PORT = 6, 7, 8, 9, 10, 11, 12
COUNTERS = ["pid", "uptime", "served", "live", "conns", "allowed", "refused",
            "bytes_up", "bytes_down"]
FD_HTTP, FD_SOCKS, FD_REACH, FD_RELAY = 1, 2, 3, 4


def field(tag, value):
    if isinstance(value, str):
        value = value.encode()
    return struct.pack(">BH", tag, len(value)) + value


def frame(mtype, fields=b""):
    body = bytes([VERSION, mtype]) + fields
    return struct.pack(">I", len(body)) + body


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(s):
    hdr = recv_exact(s, 4)
    if hdr is None:
        return None
    (n,) = struct.unpack(">I", hdr)
    body = recv_exact(s, n)
    if body is None:
        return None
    mtype, fields, i = body[1], {}, 2
    while i + 3 <= len(body):
        tag, ln = struct.unpack(">BH", body[i:i + 3])
        fields.setdefault(tag, []).append(body[i + 3:i + 3 + ln])
        i += 3 + ln
    return mtype, fields


def describe(reply):
    if reply is None:
        return "closed"
    mtype, fields = reply
    text = b"".join(fields.get(T_TEXT, [])).decode(errors="replace")
    name = {OK: "OK", ERR: "ERR", STATUS_REPLY: "STATUS"}.get(mtype, "type%d" % mtype)
    return name + (" " + text if text else "")


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)  # a daemon that never answers fails the test instead of hanging it
    s.connect(path)
    return s


def listener():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    return s


def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(sock, inner):
    """The stage's listen relay: SESS_RELAY frames, one accepted connection each."""
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 4 + 7, 1)
        except OSError:
            return
        if not msg or not fds:
            return
        host = socket.socket(fileno=fds[0])
        host.setblocking(True)  # the daemon's accepted socket is non-blocking: a pump
        # reading it before the client's bytes came would stop at EAGAIN
        port = struct.unpack(">H", msg[-2:])[0]
        try:
            inside = socket.create_connection(("127.0.0.1", inner[port]))
        except OSError:
            host.close()
            continue
        threading.Thread(target=pump, args=(host, inside), daemon=True).start()
        threading.Thread(target=pump, args=(inside, host), daemon=True).start()


def begin_fields(cmd_id, allow, deny, reach, profile, pfile, roles, listen=()):
    f = field(T_CMD_ID, cmd_id) + field(T_CMDLINE, "test command " + cmd_id)
    f += field(T_CWD, os.getcwd()) + field(T_PROFILE, profile) + field(T_PROFILE_FILE, pfile)
    for a in allow:
        f += field(T_ALLOW, a)
    for d in deny:
        f += field(T_DENY, d)
    for p in reach:
        f += field(T_REACH, struct.pack(">H", p))
    for p in listen:
        f += field(T_LISTEN, struct.pack(">H", p))
    for role, port in roles:
        f += field(T_FD, struct.pack(">BH", role, port))
    return f


def send_begin(path, cmd_id, allow, deny, reach, profile, pfile, listen=None):
    http, socks = listener(), listener()
    roles, fds, reach_l = [(FD_HTTP, 0), (FD_SOCKS, 0)], [http.fileno(), socks.fileno()], []
    for p in reach:
        r = listener()
        reach_l.append((p, r))
        roles.append((FD_REACH, p))
        fds.append(r.fileno())
    ours = None
    if listen:
        ours, theirs = socket.socketpair()
        roles.append((FD_RELAY, 0))
        fds.append(theirs.fileno())
    s = connect(path)
    msg = frame(BEGIN, begin_fields(cmd_id, allow, deny, reach, profile, pfile, roles,
                                    list(listen or {})))
    socket.send_fds(s, [msg], fds)
    reply = recv_frame(s)
    if listen:
        theirs.close()
        threading.Thread(target=relay, args=(ours, listen), daemon=True).start()
    ports = (http.getsockname()[1], socks.getsockname()[1],
             [(p, r.getsockname()[1]) for p, r in reach_l])
    # The daemon holds its own copies now: ours close, as the front end's do.
    for sock in [http, socks] + [r for _, r in reach_l]:
        sock.close()
    return s, reply, ports


def opt_list(args, name):
    out, i = [], 0
    while i < len(args):
        if args[i] == name and i + 1 < len(args):
            out.append(args[i + 1])
            i += 2
        else:
            i += 1
    return out


def cmd_begin(path, args):
    allow, deny = opt_list(args, "--allow"), opt_list(args, "--deny")
    reach = [int(p) for p in opt_list(args, "--reach")]
    profile = (opt_list(args, "--profile") or ["[dir /test]"])[0]
    pfile = (opt_list(args, "--file") or ["/test/sbxsh.ini"])[0]
    listen = {int(a): int(b) for a, b in (x.split(":") for x in opt_list(args, "--listen"))}
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1, signal.SIGTERM])
    s, reply, (hp, sp, rp) = send_begin(path, "t%d" % os.getpid(), allow, deny, reach,
                                        profile, pfile, listen)
    if reply is None or reply[0] != OK:
        print("REFUSED", describe(reply), flush=True)
        return 1
    print("READY http=%d socks=%d%s" % (hp, sp, "".join(
        " reach=%d:%d" % x for x in rp)), flush=True)
    sys.stdout.close()
    if signal.sigwait([signal.SIGUSR1, signal.SIGTERM]) == signal.SIGUSR1:
        s.sendall(frame(END))
        print(describe(recv_frame(s)), file=sys.stderr, flush=True)
    s.close()
    return 0


def cmd_status(path):
    s = connect(path)
    s.sendall(frame(STATUS))
    reply = recv_frame(s)
    if reply is None or reply[0] != STATUS_REPLY:
        print(describe(reply))
        return 1
    for i, name in enumerate(COUNTERS):
        v = reply[1].get(20 + i, [b"\0" * 8])[0]
        print(name, struct.unpack(">Q", v)[0])
    return 0


def cmd_raw(path, hexbytes):
    s = connect(path)
    try:
        s.sendall(bytes.fromhex(hexbytes))
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    try:
        print(describe(recv_frame(s)))
    except OSError:
        print("closed")
    return 0


def fetch(port, target):
    """GET through the HTTP front at port; returns (status, body)."""
    c = socket.create_connection(("127.0.0.1", port), timeout=20)
    # it reads to the end of the stream, so it asks for the connection to close (the proxy
    # keeps an HTTP/1.1 client's connection open otherwise)
    c.sendall(("GET http://%s/ HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
               % (target, target)).encode())
    data = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    c.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return status, body.decode(errors="replace")


def cmd_multi(path, n, target_port):
    target = "127.0.0.1:%d" % target_port
    barrier, errors = threading.Barrier(n), []

    def one(i):
        allow = [target] if i % 2 == 0 else []
        profile = "[dir /test/c%d]" % i
        try:
            s, reply, (hp, _, _) = send_begin(path, "m%d" % i, allow, [], [], profile,
                                              "/test/%d.ini" % i)
            barrier.wait(timeout=60)
            if reply is None or reply[0] != OK:
                errors.append("%d: BEGIN %s" % (i, describe(reply)))
                return
            status, body = fetch(hp, target)
            want = 200 if i % 2 == 0 else 403
            if status != want:
                errors.append("%d: status %d, want %d" % (i, status, want))
            elif want == 403 and profile not in body:
                errors.append("%d: 403 body does not name its own profile: %s" % (i, body))
            s.sendall(frame(END))
            recv_frame(s)
            s.close()
        except Exception as e:  # noqa: BLE001 -- any failure is the test's
            errors.append("%d: %r" % (i, e))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\n".join(sorted(errors)))
        return 1
    print("ok")
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    verb, path, rest = argv[1], argv[2], argv[3:]
    if verb == "begin":
        return cmd_begin(path, rest)
    if verb == "status":
        return cmd_status(path)
    if verb == "stop":
        s = connect(path)
        s.sendall(frame(STOP))
        print(describe(recv_frame(s)))
        return 0
    if verb == "raw":
        return cmd_raw(path, rest[0])
    if verb == "multi":
        return cmd_multi(path, int(rest[0]), int(rest[1]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
