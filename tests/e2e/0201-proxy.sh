#!/bin/sh
# 0201-proxy — the session daemon's filtering proxy against real clients and servers:
# curl through HTTP, CONNECT (TLS to openssl s_server, --cacert) and SOCKS5; 403 bodies;
# deny wins; the address guard; SNI and Host mismatches; request framing and pipelining;
# keep-alive (each request on a kept connection judged on its own; response framing:
# chunked, HEAD, close-delimited, 1xx, malformed); loopback reach; the violation log.
#
# It runs in the lab of lab_lib.sh: a user + network + mount namespace (unshare -rmn, so as
# root and as a normal user alike) holding a veth pair to a second network namespace, the
# "remote" host 10.77.0.2 / fd77::2, and a private /etc/hosts naming it good.test, bad.test, …
. "$SBXSH_STAGE/e2e/lab_lib.sh"
export ECHO_LOG="$T/echo.log"
: > "$ECHO_LOG"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 fd77::2 > /dev/null 2>&1
SRV=$!
"$PY" "$E2E/echo_http.py" 18081 127.0.0.1 > /dev/null 2>&1 &
SRV="$SRV $!"
"$PY" "$E2E/echo_http.py" 18082 ::1 > /dev/null 2>&1 &
SRV="$SRV $!"
# resp_srv.py: one request per connection, answered with a response its path chooses, to
# exercise the proxy's response framing (the proxy asks every server for Connection: close).
cat > "$T/resp_srv.py" <<'EOF'
import socket, sys, threading
RESP = {
    "/chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
    "/close": b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nclose-delimited body",
    "/badcl": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    "/nul": b"HTTP/1.1 200 OK\r\nX-A: \x00\r\nContent-Length: 2\r\n\r\nok",
    "/lf": b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
    "/junk": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
             b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled",
    "/hop": b"HTTP/1.1 200 OK\r\nConnection: close, X-Secret\r\nX-Secret: 1\r\n"
            b"Keep-Alive: timeout=5\r\nX-Kept: 1\r\nContent-Length: 3\r\n\r\nhop",
    "/short": b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab",
}


def serve(c):
    data = b""
    while b"\r\n\r\n" not in data:
        d = c.recv(65536)
        if not d:
            c.close()
            return
        data += d
    head, _, body = data.partition(b"\r\n\r\n")
    method, path = head.split(b"\r\n")[0].decode().split(" ")[:2]
    n = 0
    for f in head.split(b"\r\n")[1:]:
        k, _, v = f.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    if path == "/head":
        out = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"
        if method != "HEAD":
            out += b"head's body"
    elif path == "/continue":
        c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        while len(body) < n:
            body += c.recv(65536)
        out = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    else:
        out = RESP.get(path, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    c.sendall(out)
    c.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
in_remote_bg "$PY" "$T/resp_srv.py" 10.77.0.2 82 > /dev/null 2>&1
SRV="$SRV $!"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=good.test -addext "subjectAltName=DNS:good.test,DNS:evil.test" \
	-keyout "$T/key.pem" -out "$T/cert.pem" > /dev/null 2>&1
in_remote_bg openssl s_server -quiet -accept 443 -cert "$T/cert.pem" -key "$T/key.pem" -www \
	> "$T/tls.log" 2>&1
SRV="$SRV $!"
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/
check "the remote TLS server is up" wait_for curl -sf --cacert "$T/cert.pem" https://good.test/
check "the loopback servers are up" wait_for curl -sf http://127.0.0.1:18081/
check "the ::1 server is up" wait_for curl -sf "http://[::1]:18082/"
check "the remote response server is up" wait_for curl -sf http://10.77.0.2:82/head
check "the daemon starts in the lab" sess_start

check "a command with allow and deny lists" sess_begin c1 --allow good.test --allow other.test --allow '*.good.test' \
	--allow good6.test --allow good.test:81 --allow good.test:82 --allow loop.test --allow meta.test --allow self.test --allow nx.test --allow 127.0.0.1:18081 --deny bad.test \
	--deny evil.test:80 --profile '[dir /lab]' --file /lab/sbxsh.ini
X="-x http://127.0.0.1:$HP"
LOG="$HOME/.local/state/sbxsh/violations.jsonl"

# --- HTTP forward proxy ---
out=$(curl -sS $X http://good.test/hello 2>&1)
like "an allowed name is fetched through the HTTP proxy" "$out" "^method=GET path=/hello host=good.test body=0"
out=$(curl -sS $X -w '%{http_code}' -o "$T/403" http://bad.test/x); body=$(cat "$T/403")
is "a denied name gets 403" "$out" 403
like "the 403 names the host" "$body" "refused a connection to bad.test:80"
like "the 403 says deny won" "$body" "Reason: denied by deny_domains bad.test"
like "the 403 names the profile and its file" "$body" "Profile: \[dir /lab\] in /lab/sbxsh.ini"
like "the 403 gives the line that would allow it" "$body" "deny_domains -= bad.test"
out=$(curl -sS $X -w '%{http_code}' -o "$T/403b" http://unlisted.example/)
is "a name in no list gets 403" "$out" 403
like "its 403 offers allow_domains += host" "$(cat "$T/403b")" "allow_domains \+= unlisted.example"
out=$(curl -sS $X -w '%{http_code}' -o /dev/null http://good.test:8080/)
is "an allowed name on a port its pattern does not name gets 403" "$out" 403
out=$(curl -sS $X -w '%{http_code}' -o "$T/hm" -H 'Host: bad.test' http://good.test/)
is "a Host header naming another host is refused (request smuggling)" "$out" 400
out=$(curl -sS $X -w '%{http_code}' -o /dev/null http://nx.test/)
is "an allowed name that does not resolve gets 502" "$out" 502
out=$(curl -sS $X -w '%{http_code}' -o /dev/null http://good.test:81/)
is "an allowed upstream that refuses gets 502" "$out" 502

# --- the address guard ---
out=$(curl -sS $X -w '%{http_code}' -o "$T/g1" http://loop.test/)
is "an allowed name resolving to 127.0.0.1 is refused by the guard" "$out" 403
like "the guard says why" "$(cat "$T/g1")" "resolves to 127.0.0.1 \(loopback\)"
out=$(curl -sS $X -w '%{http_code}' -o "$T/g2" http://meta.test/)
like "a name resolving to the cloud metadata address is refused" "$out$(cat "$T/g2")" "resolves to 169.254.169.254 \\(cloud metadata\\)"
out=$(curl -sS $X -w '%{http_code}' -o "$T/g3" http://self.test/)
like "a name resolving to the host's own address is refused" "$out$(cat "$T/g3")" "resolves to 10.77.0.1 \\(an address of this host\\)"
out=$(curl -sS $X http://127.0.0.1:18081/lit)
like "an IP literal the policy names is reached even on loopback" "$out" "path=/lit"
out=$(curl -sS $X "http://0x7f.0.0.1:18081/hex")
like "another spelling of that address is the same address" "$out" "path=/hex"
out=$(curl -sS $X -w '%{http_code}' -o /dev/null http://127.0.0.1:18082/)
is "a loopback port the policy does not name is refused" "$out" 403

# --- bodies and framing ---
head -c 300000 /dev/urandom > "$T/body"
want=$(sha256sum < "$T/body" | cut -d' ' -f1)
out=$(curl -sS $X --data-binary @"$T/body" http://good.test/post)
like "a Content-Length body arrives whole" "$out" "method=POST path=/post host=good.test body=300000 sha=$want"
out=$(curl -sS $X -H 'Transfer-Encoding: chunked' --data-binary @"$T/body" http://good.test/chunked)
like "a chunked body arrives whole" "$out" "body=300000 sha=$want"
# --- keep-alive and pipelining: each request on a kept connection is judged on its own ---
cat > "$T/raw.py" <<'EOF'
import socket, sys
# raw.py PORT: sends stdin to the proxy in one write, reads until the proxy closes, prints
# each response as "CODE BODY" on a line of its own, then "rest=N" (bytes that were not a
# complete response) and "heads=" with the response fields named on the command line.
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.settimeout(30)
c.sendall(sys.stdin.buffer.read())
data = b""
try:
    while True:
        d = c.recv(65536)
        if not d:
            break
        data += d
except socket.timeout:
    print("no end: the proxy kept the connection")
fields = [a.lower().encode() for a in sys.argv[2:]]
seen = []
while b"\r\n\r\n" in data:
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    code = lines[0].split(b" ")[1].decode()
    hdr = {}
    for l in lines[1:]:
        k, _, v = l.partition(b":")
        hdr[k.strip().lower()] = v.strip()
        if k.strip().lower() in fields:
            seen.append(l.decode())
    n = int(hdr.get(b"content-length", b"0"))
    if len(rest) < n:
        break
    body = rest[:n].decode(errors="replace")
    path = [w for w in body.split() if w.startswith("path=")]
    body_n = [w for w in body.split() if w.startswith("body=")]
    print(code, " ".join(path + body_n) or "-")
    data = rest[n:]
print("rest=%d" % len(data))
if fields:
    print("heads=" + "|".join(seen))
EOF
raw() { "$PY" "$T/raw.py" "$HP" "$@"; }
: > "$ECHO_LOG"
out=$(printf '%s\r\n' "GET http://good.test/first HTTP/1.1" "Host: good.test" "" \
	"GET http://bad.test/second HTTP/1.1" "Host: bad.test" "" \
	"GET http://good.test/third HTTP/1.1" "Host: good.test" "" | raw)
is "pipelined: the first answered, the denied second gets 403, then the connection closes" \
	"$out" "200 path=/first body=0
403 -
rest=0"
is "the denied pipelined request and the one after it never reached any server" \
	"$(cat "$ECHO_LOG")" "GET /first good.test"
: > "$ECHO_LOG"
out=$(printf '%s\r\n' "POST http://good.test/p1 HTTP/1.1" "Host: good.test" "Content-Length: 5" "" \
	"helloGET http://good.test/p2 HTTP/1.1" "Host: good.test" "Transfer-Encoding: chunked" "" \
	"3" "abc" "0" "" "GET http://good.test/p3 HTTP/1.1" "Host: good.test" "Connection: close" "" | raw)
is "pipelined after bodies (length, chunked): three answers in order, closed as the last asked" \
	"$out" "200 path=/p1 body=5
200 path=/p2 body=3
200 path=/p3 body=0
rest=0"
is "each pipelined request reached the server once, in order" "$(cat "$ECHO_LOG")" "POST /p1 good.test
GET /p2 good.test
GET /p3 good.test"
out=$(printf '%s\r\n' "GET http://good.test/a10 HTTP/1.0" "Connection: keep-alive" "" \
	"GET http://good.test/b10 HTTP/1.0" "" | raw connection)
is "HTTP/1.0: kept when it asks for keep-alive (and told so), closed when it does not" "$out" \
	"200 path=/a10 body=0
200 path=/b10 body=0
rest=0
heads=Connection: keep-alive|Connection: close"
pick() { printf '%s\n' "$1" | grep -o "$2" | tr '\n' ' '; }
out=$(curl -sS $X http://good.test/k1 http://good.test/k2 -w ' connects=%{num_connects}\n')
is "curl reuses the proxy connection for a second request (num_connects 0)" \
	"$(pick "$out" 'path=[^ ]*\|connects=[0-9]*')" "path=/k1 connects=1 path=/k2 connects=0 "
out=$(curl -sS $X http://good.test/k3 http://other.test/k4 -w ' connects=%{num_connects}\n')
is "a second request to another host on the same connection goes to its own upstream" \
	"$(pick "$out" 'path=[^ ]*\|host=[^ ]*\|connects=[0-9]*')" \
	"path=/k3 host=good.test connects=1 path=/k4 host=other.test connects=0 "
out=$(curl -sS $X http://good.test/k5 http://bad.test/k6 -o /dev/null -o "$T/403k" \
	-w '%{http_code} %{num_connects}\n')
is "the second request on a kept connection is judged on its own: 200, then 403" "$(echo $out)" \
	"200 1 403 0"
like "its 403 names the denied host" "$(cat "$T/403k")" "refused a connection to bad.test:80"
out=$(curl -sS $X http://good.test:82/chunked http://good.test/k7 -w ' connects=%{num_connects}\n')
is "a chunked response, then a second request on the same connection" \
	"$(pick "$out" 'hello world\|path=[^ ]*\|connects=[0-9]*')" \
	"hello world connects=1 path=/k7 connects=0 "
out=$(curl -sS $X -I http://good.test:82/head -w 'connects=%{num_connects}\n' \
	--next $X http://good.test:82/head -w ' connects=%{num_connects}\n')
is "HEAD (a Content-Length but no body), then GET on the same connection" \
	"$(pick "$out" "Content-Length: 11\|head's body\|connects=[0-9]*")" \
	"Content-Length: 11 connects=1 head's body connects=0 "
out=$(curl -sS $X -D "$T/hclose" http://good.test:82/close http://good.test/k8 \
	-w ' connects=%{num_connects}\n')
is "a close-delimited response arrives whole, then the connection closes (a new one next)" \
	"$(pick "$out" 'close-delimited body\|path=[^ ]*\|connects=[0-9]*')" \
	"close-delimited body connects=1 path=/k8 connects=1 "
like "the client is told Connection: close" "$(tr -d '\r' < "$T/hclose")" "^Connection: close$"
out=$(curl -sS $X http://good.test:82/junk http://good.test/k9 -w ' connects=%{num_connects}\n')
is "bytes a server sends past its response's end are never relayed (no smuggled response)" \
	"$(pick "$out" 'ok\|smuggled\|path=[^ ]*\|connects=[0-9]*')" "ok connects=1 path=/k9 connects=0 "
out=$(curl -sS $X -D - -o /dev/null http://good.test:82/hop | tr -d '\r')
like "the server's end-to-end fields are relayed" "$out" "X-Kept: 1"
case $out in *X-Secret* | *Keep-Alive* | *onnection:*) not_ok "hop-by-hop response fields dropped: $out" ;;
*) ok "hop-by-hop response fields (Connection and what it names, Keep-Alive) are dropped" ;; esac
out=$(curl -sS -v $X -H 'Expect: 100-continue' --data-binary @"$T/body" \
	http://good.test:82/continue 2>"$T/cont.err" | sha256sum | cut -d' ' -f1)
is "100 Continue is relayed, then the final response with the whole body" \
	"$out $(grep -c '< HTTP/1.1 100 Continue' "$T/cont.err")" "$want 1"
for bad in badcl nul lf; do
	out=$(curl -sS $X -w '%{http_code}' -o "$T/502$bad" http://good.test:82/$bad)
	is "a malformed response head ($bad) gets 502" "$out" 502
done
like "the 502 says the server's response was bad" "$(cat "$T/502badcl")" \
	"good.test:82 sent a bad response: invalid or conflicting Content-Length"
curl -sS $X -o /dev/null http://good.test:82/short 2> /dev/null
is "a response shorter than its Content-Length is cut short for the client too (curl 18)" "$?" 18
bigsha=$(curl -sS "http://good.test/big?n=20000000" | sha256sum)
is "20 MB arrive intact through the HTTP proxy" "$(curl -sS $X "http://good.test/big?n=20000000" | sha256sum)" "$bigsha"
is "20 MB arrive intact through a CONNECT tunnel (splice relay)" \
	"$(curl -sS -p $X "http://good.test/big?n=20000000" | sha256sum)" "$bigsha"
is "20 MB arrive intact through SOCKS5" \
	"$(curl -sS --socks5-hostname "127.0.0.1:$SP" "http://good.test/big?n=20000000" | sha256sum)" "$bigsha"
out=$(curl -sS -p $X -H 'Transfer-Encoding: chunked' --data-binary @"$T/body" http://good.test/up)
like "a 300 KB upload through a CONNECT tunnel arrives whole" "$out" "body=300000 sha=$want"

# --- CONNECT ---
out=$(curl -sS $X --cacert "$T/cert.pem" https://good.test/ 2>&1)
like "CONNECT to an allowed name reaches the TLS server" "$out" "s_server"
out=$(curl -sS $X --cacert "$T/cert.pem" https://bad.test/ 2>&1); rc=$?
like "CONNECT to a denied name is refused with 403" "$rc $out" "^56 .*403"
out=$(echo Q | openssl s_client -proxy "127.0.0.1:$HP" -connect good.test:443 \
	-servername good.test -CAfile "$T/cert.pem" 2>&1)
like "a ClientHello naming the tunnel's host goes through" "$out" "Verify return code: 0"
out=$(echo Q | openssl s_client -proxy "127.0.0.1:$HP" -connect good.test:443 \
	-servername evil.test -CAfile "$T/cert.pem" 2>&1)
like "a ClientHello naming another host (SNI) is cut off" "$out" "(errno=104|unexpected eof|write:errno|handshake failure|connect:errno)"
like "the SNI refusal is in the violation log" "$(cat "$LOG")" "TLS server name evil.test does not match"

# --- SOCKS5 ---
out=$(curl -sS --socks5-hostname "127.0.0.1:$SP" http://good.test/socks 2>&1)
like "SOCKS5 with a name: allowed" "$out" "path=/socks"
curl -sS --socks5-hostname "127.0.0.1:$SP" http://bad.test/ > /dev/null 2>&1
is "SOCKS5 with a denied name: refused (reply 2, curl 97)" "$?" 97
out=$(curl -sS --socks5-hostname "127.0.0.1:$SP" http://good6.test/v6 2>&1)
like "SOCKS5 to a name with only an IPv6 address" "$out" "path=/v6"
curl -sS --socks5 "127.0.0.1:$SP" http://good.test/ > /dev/null 2>&1
is "SOCKS5 with an IPv4 address the policy does not name: refused" "$?" 97
out=$(curl -sS --socks5-hostname "127.0.0.1:$SP" --cacert "$T/cert.pem" https://good.test/ 2>&1)
like "TLS through SOCKS5" "$out" "s_server"
curl -sS --socks5-hostname "127.0.0.1:$SP" http://nx.test/ > /dev/null 2>&1; rc=$?
is "SOCKS5 to a name that does not resolve: reply 4 (curl 97)" "$rc" 97
like "curl reports host unreachable" "$(curl -sS --socks5-hostname "127.0.0.1:$SP" http://nx.test/ 2>&1)" "\(4\)"
like "SOCKS5 to a refusing upstream: reply 5" "$(curl -sS --socks5-hostname "127.0.0.1:$SP" http://good.test:81/ 2>&1)" "\(5\)"

# --- sbxsh session connect: the ProxyCommand for ssh and git over ssh ---
out=$(printf 'GET /pc HTTP/1.0\r\nHost: good.test\r\n\r\n' |
	ALL_PROXY="socks5h://127.0.0.1:$SP" "$SBXSH" session connect good.test 80 2>&1)
like "session connect relays stdin/stdout through the SOCKS5 front" "$out" "path=/pc"
out=$(echo x | ALL_PROXY="socks5h://127.0.0.1:$SP" "$SBXSH" session connect bad.test 22 2>&1); rc=$?
like "session connect to a denied host fails, saying why" "$rc $out" "^1 .*bad.test:22: not allowed by the profile"
out=$(echo x | ALL_PROXY="socks5h://10.77.0.2:1080" "$SBXSH" session connect good.test 22 2>&1)
like "session connect never uses a proxy off loopback" "$out" "is not a SOCKS5 proxy on loopback"
sess_end c1 > /dev/null

# --- another command's lists are its own ---
check "a second command allowing only the address" sess_begin c2 --allow 10.77.0.2 --allow '[fd77::2]'
out=$(curl -sS --socks5 "127.0.0.1:$SP" http://good.test/ipv4 2>&1)
like "SOCKS5 with an IPv4 address it names" "$out" "path=/ipv4"
out=$(curl -sS -x "http://127.0.0.1:$HP" "http://[fd77::2]/ipv6" 2>&1)
like "HTTP to an IPv6 literal it names" "$out" "path=/ipv6"
out=$(curl -sS -x "http://127.0.0.1:$HP" -w '%{http_code}' -o /dev/null http://good.test/)
is "the first command's names are not this one's" "$out" 403
sess_end c2 > /dev/null

# --- loopback reach ---
check "a command reaching host ports 18081 and 18082" sess_begin c3 --allow localhost:18081 \
	--allow localhost:18082 --reach 18081 --reach 18082
r1=$(printf '%s\n' "$BEGIN_OUT" | sed -n 's/.*reach=18081:\([0-9]*\).*/\1/p')
r2=$(printf '%s\n' "$BEGIN_OUT" | sed -n 's/.*reach=18082:\([0-9]*\).*/\1/p')
out=$(curl -sS --noproxy '*' "http://127.0.0.1:$r1/reach")
like "a client ignoring proxies reaches the host's 127.0.0.1:18081" "$out" "path=/reach"
out=$(curl -sS --noproxy '*' "http://127.0.0.1:$r2/reach6")
like "a host server on ::1 alone is reached too" "$out" "path=/reach6"
sess_end c3 > /dev/null
out=$(timeout 10 "$PY" "$CLIENT" begin "$SOCK" --reach 18081 2>&1 | head -1)
like "a reach port the allow list does not grant is refused" "$out" "REFUSED ERR loopback port 18081 is not granted"

# --- the violation log ---
out=$("$PY" - "$LOG" <<'EOF'
import json, sys
need = {"time", "session", "command", "cmdline", "cwd", "profile", "profile_file", "kind", "host", "port", "reason"}
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert need <= set(r), set(r)
    assert r["kind"] == "network" and r["session"] == "e2e"
    n += 1
print(n)
EOF
)
ok_log=no; [ "${out:-0}" -ge 10 ] 2> /dev/null && ok_log=yes
is "every refusal is one JSON line with all fields ($out lines)" "$ok_log" yes
like "a refusal record names host, port and reason" "$(grep bad.test "$LOG" | head -1)" '"host":"bad.test","port":80.*"reason":"denied by deny_domains bad.test"'
like "and the line that would allow it" "$(grep bad.test "$LOG" | head -1)" '"grant":"deny_domains -= bad.test"'
like "a name in no list: the allow line" "$(grep unlisted.example "$LOG" | head -1)" '"grant":"allow_domains \+= unlisted.example"'
mv "$LOG" "$LOG.keep"; mkdir "$LOG"
check "a command whose log is unwritable still runs" sess_begin c4 --deny bad.test
out=$(curl -sS -x "http://127.0.0.1:$HP" -w '%{http_code}' -o /dev/null http://bad.test/)
is "and its refusals are still answered" "$out" 403
sess_end c4 > /dev/null
rmdir "$LOG"; mv "$LOG.keep" "$LOG"
refused=$(counter refused); allowed=$(counter allowed)
ok_c=no; [ "$refused" -gt 10 ] && [ "$allowed" -gt 10 ] && ok_c=yes
is "status counts allowed ($allowed) and refused ($refused) connections" "$ok_c" yes

done_testing
