#!/bin/sh
# 0221-proxy-bounds — what one command can do to the session's proxy, in the lab of
# lab_lib.sh (as 0210): `kill 0` inside a command with `listen` leaves the relay working; a
# command holding connections past its limit is refused (503 / SOCKS failure, a violation
# record) while another command's request still goes through.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
cd "$T/proj" || exit 1
# A small per-command limit for this script's daemon (started by its first command).
export SBXSH_PROXY_CONN_MAX=8
need_sandbox "the sandbox in the lab"
P="$T/proj"

# --- kill 0 inside a command with listen: the relay is not in the command's group ---
LP=18094
user_policy "[default]
network = proxy
listen = $LP"
rm -f "$P/up" "$P/done"
"$SBXSH" -c "trap '' TERM USR1 USR2 ALRM
	'$PY' -m http.server $LP --bind 127.0.0.1 > /dev/null 2>&1 & s=\$!
	until curl -s --noproxy '*' -o /dev/null http://127.0.0.1:$LP/; do sleep 0.05; done
	kill -TERM 0; kill -USR1 0; kill -ALRM 0; sleep 0.2
	: > up; while [ ! -e done ]; do sleep 0.05; done; kill -9 \$s" > "$T/lout" 2>&1 &
CMD=$!
check "the server inside came up, and kill 0 (TERM, USR1, ALRM) ran" wait_for test -e "$P/up"
out=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP/ 2>&1)
is "after kill 0 inside, the host still reaches the server through the relay" "$out" 200
: > "$P/done"
wait "$CMD"
is "…and the command ended well" "$?" 0

# --- a command holding connections past its limit: refused, recorded; others go on ---
export ECHO_LOG="$T/echo.log"
: > "$ECHO_LOG"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 > /dev/null 2>&1
SRV="$SRV $!"
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/
user_policy "[default]
network = proxy
allow_domains = good.test"
cat > "$P/hold.py" <<'PY'
import os, socket, sys, time
n = int(sys.argv[1])
held, over = [], []
for i in range(n + 4):
    s = socket.create_connection(("127.0.0.1", 3128))
    (held if i < n else over).append(s)
refused = 0
for s in over:
    s.settimeout(20)
    if s.recv(4096).startswith(b"HTTP/1.1 503"):
        refused += 1
socks = socket.create_connection(("127.0.0.1", 1080))
socks.settimeout(20)
socks.sendall(b"\x05\x01\x00")
greet = socks.recv(2)
socks.sendall(b"\x05\x01\x00\x03\x09good.test\x00\x50")
rep = socks.recv(10)
print("socks=%s" % ("refused" if greet == b"\x05\x00" and rep[:2] == b"\x05\x01" else repr(greet + rep)), flush=True)
quiet = 0
for s in held:
    s.setblocking(False)
    try:
        s.recv(1)
    except BlockingIOError:
        quiet += 1
print("held=%d refused=%d" % (quiet, refused), flush=True)
open("held", "w").close()
while not os.path.exists("go"):
    time.sleep(0.05)
for s in held:
    s.close()
PY
rm -f "$P/held" "$P/go"
"$SBXSH" -c "'$PY' hold.py 8 > hold.out
	curl -sS -o /dev/null -w 'after=%{http_code}\n' http://good.test/after >> hold.out 2>&1" > /dev/null 2> "$T/hold.err" &
CMD=$!
i=0; until [ -e "$P/held" ] || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.05; done # ≤ 30 s
check "a command holds 8 connections (its limit) and opens 4 more" test -e "$P/held"
like "…a SOCKS connection past the limit gets a failure reply" "$(cat "$P/hold.out")" "^socks=refused$"
like "…the 8 are held, the 4 past the limit get 503" "$(cat "$P/hold.out")" "^held=8 refused=4$"
out=$("$SBXSH" -c 'curl -sS -m 20 http://good.test/other' 2>&1)
like "another command's request goes through meanwhile" "$out" "path=/other"
: > "$P/go"
wait "$CMD"
out=$(cat "$P/hold.out")
like "…and once it closed its connections, it is served again" "$out" "after=200"
[ -e "$P/held" ] || diag "its stderr: $(cat "$T/hold.err")"
like "the refusal is reported after the command" "$(cat "$T/hold.err")" \
	"network proxy \(more than 8 connections through the proxy at once\)"
out=$("$SBXSH" log 2>&1)
like "…and in sbxsh log" "$out" "^[0-9T:-]+  network proxy$"
like "…with the limit named" "$out" "^    the per-command limit on proxy connections"
out=$("$SBXSH" -c 'curl -sS -o /dev/null -w "%{http_code}" http://good.test/x; true' 2>&1)
is "the daemon still serves new commands" "$out" 200
body=$(SBXSH_PROXY_CONN_MAX=0 "$SBXSH" session start 2>&1); rc=$?
is "a bad SBXSH_PROXY_CONN_MAX is refused" "$rc" 125
like "…naming it and the range" "$body" "SBXSH_PROXY_CONN_MAX='0' is not a number of connections: use 1 to 65536"

done_testing
