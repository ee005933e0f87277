#!/bin/sh
# 0223-proxy-names — the name the proxy dials is the name it judged: a grant of
# localhost:PORT reaches the host's loopback PORT and nothing a resolver says "localhost."
# is; a name is looked up in the spelling it was matched in (lowercase, no trailing dot),
# never completed with the resolver's search domains; a tunnel's TLS server name is read
# whatever version its first record claims, and a ClientHello behind an alert is refused. In the lab of
# lab_lib.sh, with a DNS server of its own (dns_stub.py on 10.77.0.2) in a private
# /etc/resolv.conf.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
export ECHO_LOG="$T/echo.log" DNS_LOG="$T/dns.log"
: > "$ECHO_LOG"
: > "$DNS_LOG"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 > /dev/null 2>&1
SRV=$!
# on the host's own lab address only: what "localhost." resolves to in this lab's DNS
"$PY" "$E2E/echo_http.py" 18093 10.77.0.1 > /dev/null 2>&1 &
SRV="$SRV $!"
"$PY" "$E2E/echo_http.py" 18094 127.0.0.1 > /dev/null 2>&1 &
SRV="$SRV $!"
in_remote_bg "$PY" "$E2E/dns_stub.py" 10.77.0.2 53 localhost=10.77.0.1 \
	x.good.test.corp.test=10.77.0.2 > /dev/null 2>&1
SRV="$SRV $!"
printf 'nameserver 10.77.0.2\nsearch corp.test\noptions timeout:1 attempts:1\n' > "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/
check "the host-side server is up" wait_for curl -sf http://10.77.0.1:18093/
check "the lab's DNS server answers" wait_for getent ahostsv4 x.good.test.corp.test
check "the host's loopback server is up" wait_for curl -sf http://127.0.0.1:18094/
: > "$DNS_LOG"
check "the daemon starts in the lab" sess_start
check "a command allowing localhost:18093, localhost:18094, good.test and *.good.test" sess_begin c1 \
	--allow localhost:18093 --allow localhost:18094 --allow good.test --allow '*.good.test'
X="-x http://127.0.0.1:$HP"

# --- localhost:PORT is the host's loopback, not what DNS says "localhost." is ---
out=$(curl -sS -m 20 $X -w ' %{http_code}' http://localhost.:18093/dot 2>&1)
unlike "localhost.:18093 (trailing dot, past /etc/hosts to DNS) does not reach DNS's address" \
	"$out" "path=/dot"
out=$(curl -sS -m 20 --socks5-hostname "127.0.0.1:$SP" http://LOCALHOST.:18093/sdot 2>&1)
unlike "…nor through SOCKS5" "$out" "path=/sdot"
unlike "…and the resolver was not asked for localhost" "$(cat "$DNS_LOG")" "localhost"
out=$(curl -sS -m 20 $X http://localhost:18094/plain 2>&1)
like "localhost:18094 reaches the host's 127.0.0.1:18094" "$out" "path=/plain"
out=$(curl -sS -m 20 $X http://LocalHost.:18094/spelt 2>&1)
like "…and so does another spelling of it (case, trailing dot)" "$out" "path=/spelt"
out=$(curl -sS -m 20 --socks5-hostname "127.0.0.1:$SP" http://localhost:18094/socks 2>&1)
like "…through SOCKS5 too" "$out" "path=/socks"

# --- a name is looked up as it was matched: lowercase, no trailing dot ---
# (good.test is in /etc/hosts only; "GOOD.Test." would skip /etc/hosts for DNS, which says
# no such name)
out=$(curl -sS -m 20 $X -w ' %{http_code}' http://GOOD.Test./dot 2>&1)
like "a name with a trailing dot and capitals is looked up as the name it matched" "$out" "path=/dot"
out=$(curl -sS -m 20 --socks5-hostname "127.0.0.1:$SP" http://Good.Test./sdot 2>&1)
like "…through SOCKS5 too" "$out" "path=/sdot"

# --- the line a refusal offers is one that would allow the request ---
out=$(curl -sS -m 20 $X http://intranet/ 2>&1)
like "a dotless name is refused" "$out" "refused a connection to intranet:80"
unlike "…offering no line (the policy takes no dotless name but localhost)" "$out" "allow_domains \+="
out=$(curl -sS -m 20 $X http://-x.good.test/ 2>&1)
unlike "a label starting with '-' is offered no line (no pattern can name it)" "$out" "allow_domains \+="
out=$(curl -sS -m 20 $X http://localhost/ 2>&1)
like "localhost on port 80 is offered localhost:80 (a grant of the web ports is no loopback grant)" \
	"$out" "allow_domains \+= localhost:80\$"
out=$(curl -sS -m 20 $X http://Other.Test./ 2>&1)
like "a name is offered in its matched spelling" "$out" "allow_domains \+= other.test\$"
like "…the same line in the violation log" \
	"$(grep '"other.test"' "$HOME/.local/state/sbxsh/violations.jsonl" 2> /dev/null)" "allow_domains \+= other.test\""
like "…and the log offers localhost:80 too" \
	"$(grep '"localhost"' "$HOME/.local/state/sbxsh/violations.jsonl" 2> /dev/null)" "allow_domains \+= localhost:80\""
unlike "…and no line for intranet" \
	"$(grep '"intranet"' "$HOME/.local/state/sbxsh/violations.jsonl" 2> /dev/null)" '"grant"'

# --- no search domains ---
out=$(curl -sS -m 20 $X -w ' %{http_code}' http://x.good.test/search 2>&1)
unlike "an allowed name that does not resolve is not completed with a search domain" \
	"$out" "path=/search"
like "…it is a 502 (no such name)" "$out" " 502$"
unlike "…the resolver was never asked for the completed name" "$(cat "$DNS_LOG")" "corp.test"

# --- the TLS server name, whatever the first record's header says ---
# tls_srv.py: answers "sni=NAME" with the server name its OpenSSL saw. OpenSSL takes any
# record version 3.x on a first record; the proxy read 3.5 as "not TLS" and relayed the
# ClientHello unchecked.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=good.test -keyout "$T/key.pem" -out "$T/cert.pem" > /dev/null 2>&1
cat > "$T/tls_srv.py" <<'PY'
import socket, ssl, sys, threading
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[3], sys.argv[4])
seen = {}
ctx.sni_callback = lambda so, name, c: seen.__setitem__(id(so), name)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print("ready", flush=True)
def serve(c):
    try:
        t = ctx.wrap_socket(c, server_side=True)
        t.recv(100)
        t.sendall(b"sni=%s\n" % str(seen.pop(id(t), None)).encode())
        t.close()
    except (OSError, ssl.SSLError):
        c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
# tls_cli.py PORT HOW SNI: CONNECT good.test:443, then a TLS handshake naming SNI whose first
# record is changed as HOW says (none, minor: version 3.5, alert: a warning alert first)
cat > "$T/tls_cli.py" <<'PY'
import socket, ssl, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
s.sendall(b"CONNECT good.test:443 HTTP/1.1\r\nHost: good.test:443\r\n\r\n")
r = b""
while b"\r\n\r\n" not in r:
    r += s.recv(1)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
o = ctx.wrap_bio(inc, out, server_hostname=sys.argv[3])
first = True
def more():
    x = s.recv(65536)
    if not x:
        raise OSError("closed")
    inc.write(x)
try:
    while True:
        try:
            o.do_handshake()
            break
        except ssl.SSLWantReadError:
            d = out.read()
            if first and d:
                first = False
                if sys.argv[2] == "minor":
                    d = d[:2] + b"\x05" + d[3:]
                elif sys.argv[2] == "alert":
                    d = b"\x15\x03\x01\x00\x02\x01\x5a" + d
            s.sendall(d)
            more()
    o.write(b"hi")
    s.sendall(out.read())
    while True:
        try:
            print(o.read(100).decode().strip())
            break
        except ssl.SSLWantReadError:
            more()
except (OSError, ssl.SSLError) as e:
    print("cut: %s" % e)
PY
in_remote_bg "$PY" "$T/tls_srv.py" 10.77.0.2 443 "$T/cert.pem" "$T/key.pem" > "$T/tls.out" 2>&1
SRV="$SRV $!"
check "the remote TLS server is up" wait_for grep -q ready "$T/tls.out"
LOG="$HOME/.local/state/sbxsh/violations.jsonl"
is "a ClientHello naming the tunnel's host is relayed" \
	"$("$PY" "$T/tls_cli.py" "$HP" none good.test 2>&1)" "sni=good.test"
is "…and so is one whose first record says version 3.5 (OpenSSL takes it)" \
	"$("$PY" "$T/tls_cli.py" "$HP" minor good.test 2>&1)" "sni=good.test"
out=$("$PY" "$T/tls_cli.py" "$HP" minor evil.test 2>&1)
unlike "a ClientHello naming another host behind a record version 3.5 is cut off" "$out" "sni="
like "…as a violation" "$(cat "$LOG" 2> /dev/null)" "TLS server name evil.test does not match"
sess_end c1 > /dev/null
# (a command logs each host:port once: a command of its own)
check "a command allowing good.test" sess_begin c3 --allow good.test --profile '[dir /alert]'
out=$("$PY" "$T/tls_cli.py" "$HP" alert evil.test 2>&1)
unlike "a warning alert before the ClientHello (Go and BoringSSL skip one) is cut off" "$out" "sni="
like "…as a violation" "$(grep '/alert' "$LOG" 2> /dev/null)" "malformed TLS ClientHello"
sess_end c3 > /dev/null

# --- one command's slow name lookups do not hold another command's ---
# 40 lookups of names the lab's DNS never answers (5 s each), queued by one command: the
# resolver threads they fill must not keep another command waiting for a name /etc/hosts has.
printf 'nameserver 10.77.0.2\noptions timeout:5 attempts:1\n' > "$T/resolv.conf"
cat > "$T/slow.py" <<'PY'
import socket, struct, sys, time
held = []
for i in range(40):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    name = b"slow%d.good.test" % i
    s.sendall(b"\x05\x01\x00\x05\x01\x00\x03" + bytes([len(name)]) + name + struct.pack("!H", 80))
    held.append(s)
print("held", flush=True)
time.sleep(120)
PY
check "a command allowing *.good.test" sess_begin c4 --allow '*.good.test'
"$PY" "$T/slow.py" "$SP" > "$T/slow.out" 2>&1 &
SLOW=$!
check "a command queues 40 lookups the DNS server never answers" wait_for grep -q held "$T/slow.out"
wait_for grep -q "slow3.good.test" "$DNS_LOG"
check "another command of the session" sess_begin c2 --allow good.test
out=$(curl -sS -m 15 -x "http://127.0.0.1:$HP" -w ' %{http_code}' http://good.test/other 2>&1)
like "…is answered meanwhile (its name is in /etc/hosts)" "$out" "path=/other"
kill "$SLOW" 2> /dev/null
wait "$SLOW" 2> /dev/null
sess_end c2 > /dev/null
sess_end c4 > /dev/null
sess_stop
done_testing
