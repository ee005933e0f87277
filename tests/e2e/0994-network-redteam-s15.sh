#!/bin/sh
# 0994-network-redteam-s15 — session 15's attacks on the network boundary, in the lab of
# lab_lib.sh (as 0201: a user + network + mount namespace with a veth pair to a "remote"
# namespace at 10.77.0.2 and a private /etc/hosts), as root and as sbxsh-test. The proxy's
# fronts are driven by a test front end (sess_client.py, the same bytes a sandboxed client
# sends) and from inside real sandboxes.
#
# - the guard: an allowed name resolving into a prefix the host routes to itself (a local
#   route, "AnyIP"), which no interface lists, reached the host's services on any address;
#   now the kernel is asked whether each address is the host's.
# - a program ignoring the proxy variables: every route out refused by the kernel (holds).
# - an upgrade (WebSocket, h2c) after an allowed start: no blind tunnel (regression; holds).
# - memory: a client trickling a request body (or a tunnel's bytes) one byte a read to an
#   upstream that does not read: each read's 256 KiB buffer was queued for one byte, so the
#   daemon's memory grew by 256 KiB a byte until it held 1 MiB of *bytes* (a million reads,
#   gigabytes); now the queue is bounded by what it holds, buffers and all.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
cd "$T/proj" || exit 1
export ECHO_LOG="$T/echo.log"
: > "$ECHO_LOG"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 > /dev/null 2>&1
SRV=$!
# stall.py ADDR PORT: accepts and never reads (a server busy elsewhere, or hostile); a small
# receive buffer so the path to it fills at once
cat > "$T/stall.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(64)
held = []
print("ready", flush=True)
while True:
    held.append(s.accept()[0])
PY
in_remote_bg "$PY" "$T/stall.py" 10.77.0.2 8080 > "$T/stall.out" 2>&1
SRV="$SRV $!"
# the host's loopback service on every address ("::", dual stack), and two prefixes the host
# takes as its own by a local route (AnyIP: ip route add local …), which no interface lists
"$PY" "$E2E/echo_http.py" 18095 :: > /dev/null 2>&1 &
SRV="$SRV $!"
ip route add local 198.18.7.0/24 dev lo
ip -6 route add local fd99::/64 dev lo
printf '198.18.7.7 anyip.test\nfd99::7 anyip6.test\n' >> "$T/hosts"
# up101.py ADDR PORT LOG: answers every request "101 Switching Protocols" and then relays
# nothing but logs what came after the head (a WebSocket or h2c server, or a hostile one)
cat > "$T/up101.py" <<'PY'
import socket, sys, threading
def serve(c):
    data = b""
    c.settimeout(5)
    try:
        while b"\r\n\r\n" not in data:
            d = c.recv(65536)
            if not d:
                return
            data += d
        head, _, rest = data.partition(b"\r\n\r\n")
        c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\n\r\n")
        while True:
            d = c.recv(65536)
            if not d:
                break
            rest += d
    except OSError:
        pass
    with open(sys.argv[3], "a") as f:
        up = [l for l in head.split(b"\r\n") if l.lower().startswith((b"upgrade:", b"http2-settings:", b"connection:"))]
        f.write("head %r after %r\n" % (up, rest))
    c.close()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print("ready", flush=True)
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
PY
: > "$T/up101.log"
in_remote_bg "$PY" "$T/up101.py" 10.77.0.2 8081 "$T/up101.log" > "$T/up101.out" 2>&1
SRV="$SRV $!"
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/
check "the upgrading server is up" wait_for grep -q ready "$T/up101.out"
check "the host's server is up, and reached through the local route" \
	wait_for curl -sf http://198.18.7.7:18095/
check "the stalled server is up" wait_for grep -q ready "$T/stall.out"
check "the daemon starts in the lab" sess_start
check "a command allowing good.test and good.test:8080" sess_begin c1 --allow good.test \
	--allow good.test:8080 --allow good.test:8081 --allow anyip.test:18095 --allow anyip6.test:18095
SRV="$SRV $(cat "$T/c1.pid")"
X="-x http://127.0.0.1:$HP"

# vm: the daemon's writable anonymous memory in kB (heap and mmap; not the address space
# malloc reserves for each resolver thread, ---p, which VmData counts)
vm() {
	"$PY" -c 'import sys
n = 0
for l in open("/proc/%s/maps" % sys.argv[1]):
    f = l.split()
    if f[1] == "rw-p" and f[4] == "0" and (len(f) == 5 or f[5] == "[heap]"):
        a, b = (int(x, 16) for x in f[0].split("-"))
        n += (b - a) // 1024
print(n)' "$DPID"
}

# --- memory: one byte a read, queued to an upstream that does not read ---
# trickle.py PORT MODE N: a body (MODE post) or a tunnel (MODE connect) to good.test:8080,
# first 256 KiB at once (the kernel's buffers towards the stalled server fill), then N bytes
# one a send, each after the last was surely read (a short sleep); prints "sent N".
cat > "$T/trickle.py" <<'PY'
import socket, sys, time
port, mode, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
c = socket.create_connection(("127.0.0.1", port))
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
if mode == "post":
    c.sendall(b"POST http://good.test:8080/t HTTP/1.1\r\nHost: good.test:8080\r\n"
              b"Content-Length: 1000000000\r\n\r\n")
else:
    c.sendall(b"CONNECT good.test:8080 HTTP/1.1\r\nHost: good.test:8080\r\n\r\n")
    c.recv(4096)
c.sendall(b"x" * 262144)
time.sleep(0.5)
c.settimeout(0.2)
sent = 0
for i in range(n):
    try:
        sent += c.send(b"y")
    except socket.timeout:
        break
    time.sleep(0.001)
print("sent %d" % sent, flush=True)
time.sleep(30)
PY
# both names resolved once: the resolver threads' arenas are there before the first count
curl -s $X http://good.test/warm > /dev/null
curl -s -m 2 $X http://good.test:8080/warm > /dev/null
for mode in connect post; do
	before=$(vm)
	"$PY" "$T/trickle.py" "$HP" $mode 3000 > "$T/trickle.$mode" 2>&1 &
	TR=$!
	wait_for grep -q sent "$T/trickle.$mode"
	i=0; until grep -q sent "$T/trickle.$mode" || [ $i -gt 200 ]; do sleep 0.1; i=$((i + 1)); done
	after=$(vm)
	grew=$(( (after - before) / 1024 ))
	diag "$mode: $(cat "$T/trickle.$mode"), daemon's anonymous memory $before -> $after kB"
	check "$mode: 3000 one-byte reads queued to a stalled upstream grow the daemon by < 64 MiB ($grew MiB)" \
		test "$grew" -lt 64
	out=$(curl -sS $X http://good.test/beside 2>&1)
	like "…and the proxy still serves a request beside" "$out" "path=/beside host=good.test"
	kill "$TR" 2> /dev/null
	wait "$TR" 2> /dev/null
done

# --- an upgrade after an allowed start: the forward proxy never becomes a blind tunnel ---
# A WebSocket or h2c upgrade on a forwarded request, then bytes meant for the new protocol
# (here another request, for evil.test): the proxy drops Upgrade and the fields Connection
# names (HTTP2-Settings), refuses a 101, and judges the bytes after the head as a next request.
out=$("$PY" - "$HP" <<'PY'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
c.sendall(b"GET http://good.test:8081/ws HTTP/1.1\r\nHost: good.test:8081\r\n"
          b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: websocket, h2c\r\n"
          b"HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n"
          b"GET http://evil.test/smuggled HTTP/1.1\r\nHost: evil.test\r\n\r\n")
out = b""
try:
    while True:
        d = c.recv(65536)
        if not d:
            break
        out += d
except OSError:
    pass
print(" ".join(l.split(b" ")[1].decode() for l in out.split(b"\r\n") if l.startswith(b"HTTP/1.1 ")))
PY
)
like "an upgrade answered 101 is a 502 (no blind tunnel), then the pipelined request is judged" \
	"$out" "^502( 403)?$"
i=0; until [ -s "$T/up101.log" ] || [ $i -gt 100 ]; do sleep 0.05; i=$((i + 1)); done
is "…the server got no Upgrade, no Connection naming it, and nothing after the head" \
	"$(cat "$T/up101.log")" "head [b'Connection: close'] after b''"
unlike "…and evil.test was never reached" "$(cat "$ECHO_LOG")" "smuggled"

# --- addresses the host takes as its own that no interface lists ---
# A local route (AnyIP: a prefix routed to the host itself, as anycast and load-balancer
# hosts use) makes every address in it the host's; getifaddrs lists none of them, so the
# guard's list of the host's addresses let an allowed name resolving there reach the host's
# services listening on any address.
for h in anyip.test anyip6.test; do
	out=$(curl -sS -o "$T/body" -w '%{http_code}' $X "http://$h:18095/anyip" 2>&1)
	is "an allowed name ($h) in a prefix the host routes to itself is refused by the guard" \
		"$out" 403
	like "…saying it is an address of this host" "$(cat "$T/body")" \
		"resolves to (198\.18\.7\.7|fd99::7) \(an address of this host\)"
done
unlike "…and the host's service never saw it" "$(cat "$ECHO_LOG")" "/anyip"
# the same from inside a sandbox (network = proxy: its client goes through HTTP_PROXY)
user_policy "[default]
network = proxy
allow_domains = anyip.test:18095"
if "$SBXSH" -c true 2> "$T/err0"; then
	out=$("$SBXSH" -c "curl -s -o /dev/null -w '%{http_code}' http://anyip.test:18095/inside" 2> "$T/err")
	is "from inside a sandbox: refused too (403)" "$out" 403
	like "…reported after the command as an address of this host" "$(cat "$T/err")" \
		"network anyip\.test:18095 .*resolves to 198\.18\.7\.7 \(an address of this host\)"
	unlike "…and the host's service never saw it" "$(cat "$ECHO_LOG")" "/inside"
	# a program ignoring the proxy variables, by every route out the kernel offers it: IPv6,
	# an IPv4-mapped address on an IPv6 socket, datagrams both ways, SCTP, a packet socket
	cat > "$T/proj/direct.py" <<'PY'
import socket
def tcp(fam, addr, proto=0):
    s = socket.socket(fam, socket.SOCK_STREAM, proto)
    s.settimeout(3)
    s.connect(addr)
def udp(fam, addr):
    socket.socket(fam, socket.SOCK_DGRAM).sendto(b"x", addr)
cases = [("tcp6", lambda: tcp(socket.AF_INET6, ("fd77::2", 80))),
         ("mapped", lambda: tcp(socket.AF_INET6, ("::ffff:10.77.0.2", 80))),
         ("udp6", lambda: udp(socket.AF_INET6, ("fd77::2", 53))),
         ("mapped-udp", lambda: udp(socket.AF_INET6, ("::ffff:10.77.0.2", 53))),
         ("sctp", lambda: tcp(socket.AF_INET, ("10.77.0.2", 80), 132)),
         ("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))]
for name, f in cases:
    try:
        f()
        print(name, "reached")
    except OSError as e:
        print(name, "errno", e.errno)
PY
	out=$(cd "$T/proj" && "$SBXSH" -c "'$PY' direct.py" 2>&1)
	unlike "a program ignoring the proxy reaches nothing directly (IPv6, mapped, UDP, SCTP, packet)" \
		"$out" "reached"
	like "…each refused by the kernel (no route, or no such socket)" \
		"$(printf '%s\n' "$out" | grep -cE ' errno (1|13|93|94|97|101|113)$')" "^6$"
else
	skip "the AnyIP check from inside a sandbox" "sbxsh cannot run a sandbox here: $(head -c 300 "$T/err0")"
fi

# --- the daemon survives hostile bytes on every front and state (a seeded random mix) ---
# Fragments of valid requests, cut and spliced, with odd hosts, Host fields, SNI records and
# SOCKS requests, closed at random points: the daemon must still serve a request after.
out=$("$PY" - "$HP" "$SP" <<'PY'
import random, socket, ssl, struct, sys
hp, sp = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(994)
hosts = [b"good.test", b"GOOD.test.", b"good.test:8080", b"[::1]", b"[::ffff:127.0.0.1]:18095",
         b"0x7f.1:18095", b"anyip.test:18095", b"evil.test", b"", b"\xff\x00", b"good.test:0",
         b"good.test:99999", b"a" * 300, b"[fe80::1%25lo]", b"xn--e1afmkfd.test"]
def ch(name):
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ssl.create_default_context().wrap_bio(i, o, server_hostname=name)
    try:
        t.do_handshake()
    except ssl.SSLError:
        pass
    return o.read()
hellos = [ch("good.test"), ch("evil.test"), b"\x16\x03\x05\x00\x05\x01\x00\x00\x01\x00"]
def http():
    h = r.choice(hosts)
    m = r.choice([b"GET http://%s/x" % h, b"CONNECT %s" % h, b"POST http://%s/p" % h,
                  b"HEAD http://%s/" % h, b"GET /origin"])
    f = [m + b" HTTP/1." + r.choice([b"1", b"0", b"9"]) + b"\r\n"]
    for _ in range(r.randrange(4)):
        f.append(r.choice([b"Host: " + r.choice(hosts) + b"\r\n", b"Content-Length: 5\r\n",
                           b"Transfer-Encoding: chunked\r\n", b"Connection: Upgrade\r\n",
                           b"Content-Length: 5, 6\r\n", b" folded\r\n", b"X: \x01\r\n"]))
    f.append(b"\r\n")
    f.append(r.choice([b"", b"hello", b"5\r\nhello\r\n0\r\n\r\n", r.choice(hellos),
                       b"GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"]))
    b = b"".join(f)
    return b[:r.randrange(len(b) + 1)] if r.random() < 0.3 else b
def socks():
    a = r.choice([b"\x01\x7f\x00\x00\x01", b"\x03" + bytes([9]) + b"good.test",
                  b"\x04" + b"\x00" * 15 + b"\x01", b"\x03\x00", b"\x09"])
    b = (b"\x05" + bytes([r.randrange(3)]) + b"\x00\x02"[:r.randrange(3)] +
         b"\x05" + bytes([r.choice([1, 2, 3, 9])]) + b"\x00" + a + struct.pack(">H", r.choice([80, 0, 8080])))
    if r.random() < 0.2:
        b = b"\x04\x01\x00\x50\x7f\x00\x00\x01u\x00"
    return b[:r.randrange(len(b) + 1)] if r.random() < 0.3 else b + r.choice(hellos)
for n in range(400):
    port, data = (hp, http()) if r.random() < 0.7 else (sp, socks())
    c = socket.create_connection(("127.0.0.1", port))
    c.settimeout(0.3)
    c.sendall(data)
    if r.random() < 0.5:
        try:
            c.recv(4096)
        except OSError:
            pass
    c.close()
c = socket.create_connection(("127.0.0.1", hp), timeout=10)
c.sendall(b"GET http://good.test/after-mix HTTP/1.1\r\nHost: good.test\r\nConnection: close\r\n\r\n")
out = b""
while True:
    d = c.recv(65536)
    if not d:
        break
    out += d
print("after:", out.split(b"\r\n")[0].decode(), b"path=/after-mix" in out)
PY
)
is "400 random hostile connections on both fronts, then a request is served" "$out" \
	"after: HTTP/1.1 200 OK True"
check "…by the same daemon" kill -0 "$DPID"

sess_end c1
sess_stop
done_testing
