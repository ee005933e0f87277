#!/bin/sh
# 0190-std-sockets — a socket the caller leaves on a descriptor is a channel past the sandbox
# unless it is tied to one peer for good. Each attack: a python3 parent passes a socket as
# fd 0, 1, 2 (or 5) to `sbxsh -c`, the command inside sends "pwn" through it, and a listener
# on the host side must not get it:
# - a datagram unix socket (unbound, bound, connected) sendto()s any named socket the command
#   can name, and any abstract one of the socket's own network namespace (the host's);
# - a UDP socket (IPv4, IPv6) is the host's network namespace's: sendto() any address, under
#   network = none too;
# - a listening TCP or unix socket accept()s the host's connections;
# - a connected TCP socket is disconnected (connect AF_UNSPEC) and connected anew anywhere;
# - a netlink socket speaks to the host's kernel (routes, links) from the host's namespace.
# Such a socket on 0-2 is refused (exit 125, a message naming the descriptor and its kind);
# from 3 up it is closed with a note (unix ones as before, unless unix_sockets = all).
# Controls: a connected unix stream or seqpacket socketpair on 0-2 works as before.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
PY=$(command -v python3)
if [ -z "$PY" ]; then
	skip "sockets on the standard descriptors" "python3 is not installed"
	done_testing; exit
fi

cat > "$T/att.py" <<'PYEOF'
# att.py SBXSH KIND FD DIR: runs `sbxsh -c 'python3 in.py …'` with a socket of KIND as its
# descriptor FD and a listener on the host side; prints "reached" when the listener got the
# command's bytes (else "blocked"), then "rc=N" and sbxsh's stderr.
import os, socket, sys
sbxsh, kind, fd, d = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
got = []
lsn = peer = None
target = "-"
P = os.getpid()
if kind in ("unixdgram", "unixdgram-bound", "unixdgram-conn"):
    target = os.path.join(d, "l%d.sock" % P)
    lsn = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    lsn.bind(target)
    os.chmod(target, 0o777)
    att = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if kind == "unixdgram-bound":
        att.bind(os.path.join(d, "a%d.sock" % P))
    if kind == "unixdgram-conn":
        other = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        other.bind(os.path.join(d, "o%d.sock" % P))
        att.connect(os.path.join(d, "o%d.sock" % P))
elif kind == "abstract":
    lsn = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    lsn.bind("\0sbxsh-e2e-%d" % P)
    att = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    target = "@sbxsh-e2e-%d" % P
elif kind in ("udp", "udp6"):
    fam, host = (socket.AF_INET, "127.0.0.1") if kind == "udp" else (socket.AF_INET6, "::1")
    lsn = socket.socket(fam, socket.SOCK_DGRAM)
    lsn.bind((host, 0))
    att = socket.socket(fam, socket.SOCK_DGRAM)
    target = str(lsn.getsockname()[1])
elif kind == "tcplisten":
    att = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    att.bind(("127.0.0.1", 0))
    att.listen(4)
    target = str(att.getsockname()[1])
elif kind == "unixlisten":
    target = os.path.join(d, "ul%d.sock" % P)
    att = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    att.bind(target)
    att.listen(4)
elif kind == "tcpconn":
    p1 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    p1.bind(("127.0.0.1", 0)); p1.listen(4)
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.bind(("127.0.0.1", 0)); lsn.listen(4)
    att = socket.create_connection(p1.getsockname())
    peer = p1.accept()[0]
    target = str(lsn.getsockname()[1])
elif kind == "netlink":
    att = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
elif kind in ("pair-stream", "pair-seqpacket"):
    t = socket.SOCK_STREAM if kind == "pair-stream" else socket.SOCK_SEQPACKET
    att, peer = socket.socketpair(socket.AF_UNIX, t)
else:
    sys.exit("unknown kind " + kind)
errf = os.path.join(d, "err%d" % P)
pid = os.fork()
if pid == 0:
    os.dup2(att.fileno(), fd)
    os.set_inheritable(fd, True)
    err = os.open(errf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for i in range(3):
        if i != fd:
            os.dup2(err if i == 2 else os.open("/dev/null", os.O_RDWR), i)
    os.closerange(3, fd)
    os.closerange(fd + 1, 1024) if fd >= 3 else os.closerange(3, 1024)
    os.execv(sbxsh, [sbxsh, "-c", "exec python3 in.py %s %d %s" % (kind, fd, target)])
att.close()
if kind in ("tcplisten", "unixlisten"):
    try:
        if kind == "unixlisten":
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.settimeout(10)
            c.connect(target)
        else:
            c = socket.create_connection(("127.0.0.1", int(target)), timeout=10)
        c.settimeout(10)
        got.append(c.recv(100))
    except OSError:
        pass
_, st = os.waitpid(pid, 0)
rc = os.waitstatus_to_exitcode(st)
for s in (lsn, peer):
    if s is None:
        continue
    s.setblocking(False)
    try:
        if s is lsn and s.type == socket.SOCK_STREAM:
            c, _ = s.accept(); c.settimeout(2); got.append(c.recv(100))
        else:
            got.append(s.recv(100))
    except OSError:
        pass
print("reached" if any(b"pwn" in g for g in got) else "blocked")
print("rc=%d" % rc)
sys.stdout.write(open(errf).read())
PYEOF

cat > "$T/proj/in.py" <<'PYEOF'
# in.py KIND FD TARGET — inside the sandbox: sends "pwn" past it through descriptor FD.
import ctypes, socket, sys
kind, fd, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    s = socket.socket(fileno=fd)
except OSError as e:
    print("in: not a socket:", e, file=sys.stderr); sys.exit(3)
try:
    if kind.startswith("unixdgram"):
        s.sendto(b"pwn", target)
    elif kind == "abstract":
        s.sendto(b"pwn", "\0" + target[1:])
    elif kind == "udp":
        s.sendto(b"pwn", ("127.0.0.1", int(target)))
    elif kind == "udp6":
        s.sendto(b"pwn", ("::1", int(target)))
    elif kind in ("tcplisten", "unixlisten"):
        s.settimeout(10)
        c, _ = s.accept()
        c.sendall(b"pwn")
        c.close()
    elif kind == "tcpconn":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.connect(fd, (ctypes.c_char * 16)(), 16)  # AF_UNSPEC: disconnect
        s.connect(("127.0.0.1", int(target)))
        s.sendall(b"pwn")
    else:
        s.sendall(b"pwn")
except OSError as e:
    print("in:", e, file=sys.stderr); sys.exit(4)
PYEOF

has_ipv6() { "$PY" -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; }

att() { "$PY" "$T/att.py" "$SBXSH" "$1" "$2" "$T/proj"; }

for net in none proxy open; do
	user_policy "[default]
network = $net
on_violation = warn"
	kinds="unixdgram unixdgram-bound unixdgram-conn abstract udp udp6 tcplisten unixlisten tcpconn netlink"
	[ "$net" = none ] || kinds="unixdgram abstract udp tcpconn"
	for k in $kinds; do
		if [ "$k" = udp6 ] && ! has_ipv6; then
			skip "network = $net: $k" "no IPv6 loopback"
			continue
		fi
		for fd in 0 1 2; do
			# every kind on 0 and 1 under none; the rest one each (the check is per fd)
			[ "$net" != none ] && [ "$fd" != 0 ] && continue
			[ "$fd" = 2 ] && [ "$k" != unixdgram ] && [ "$k" != udp ] && continue
			out=$(att "$k" "$fd")
			like "network = $net: $k on fd $fd reaches nothing" "$out" '^blocked$'
			like "network = $net: $k on fd $fd is refused (125)" "$out" '^rc=125$'
			[ "$fd" = 2 ] && continue # the message went into the socket itself
			like "network = $net: $k on fd $fd: the message names it and the fix" "$out" \
				"^sbxsh: descriptor $fd \(a [^)]*socket\) would let a command reach past the sandbox.*give sbxsh a pipe"
		done
	done
done
user_policy '[default]
network = none
on_violation = warn'
# from 3 up: closed, with a note
for k in udp tcplisten tcpconn netlink unixdgram; do
	out=$(att "$k" 5)
	like "$k on fd 5 reaches nothing" "$out" '^blocked$'
	like "$k on fd 5 is not passed (the command finds no descriptor 5)" "$out" 'in: not a socket'
	like "$k on fd 5: a note says so" "$out" 'sbxsh: note: descriptor 5 \(.*socket.*\) not passed into the sandbox'
done
# the note names a non-unix socket's kind
out=$(att udp 5)
like "the note says what the socket is" "$out" 'descriptor 5 \(a UDP IPv4 socket\) not passed'

# controls: a connected unix stream or seqpacket socket reaches only its peer, and works
for k in pair-stream pair-seqpacket; do
	for fd in 0 1 2; do
		out=$(att "$k" "$fd")
		like "control: $k on fd $fd reaches its peer" "$out" '^reached$'
		like "control: $k on fd $fd runs (0)" "$out" '^rc=0$'
	done
done
# a pipe and a file on 0-2: as before
is "control: pipes on 0-2" "$(echo hi | "$SBXSH" -c 'cat; echo err >&2' 2>&1 | cat)" "hi
err"

done_testing
