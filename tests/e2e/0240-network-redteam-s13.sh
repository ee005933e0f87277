#!/bin/sh
# 0240-network-redteam-s13 — session 13's attacks on the network boundary, from inside a real
# sandbox with network = proxy and a small allow list (good.test, and loop.test, an allowed
# name whose address is the host's loopback), as root and as sbxsh-test. What each refusal
# says after the command: the host and the reason (a Host mismatch naming the host it asked
# for), and a policy line only where one would let the request through (never one the
# profile holds already, nor one its parser refuses); one refusal never hides another of
# another kind to the same host:port; a hostile name's bytes never raw on the terminal.
# Allowed names resolving to guarded IPv6 addresses; a command's held connections leaving its
# proxy serving. Around the proxy: a datagram, a direct, raw or ping socket out of the
# command's network namespace, the host's abstract unix sockets (per namespace) with
# unix_sockets = all, SOCKS4a. The session's own files made after a sandbox started (so not
# hidden from it): a daemon socket served from a sandbox is not taken for the daemon, the
# daemon serves no sandbox that reaches its socket (network = open), and the violation log
# is never readable inside.
#
# It runs in the lab of lab_lib.sh (as 0210): a user + network + mount namespace with a veth
# pair to a "remote" namespace at 10.77.0.2 and a private /etc/hosts naming it good.test etc.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
P="$T/proj"
cd "$P" || exit 1
need_sandbox "the sandbox in the lab"
export ECHO_LOG="$T/echo.log"
: > "$ECHO_LOG"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 > /dev/null 2>&1
SRV=$!
"$PY" "$E2E/echo_http.py" 18081 127.0.0.1 > /dev/null 2>&1 &
SRV="$SRV $!"
# an abstract unix socket of the lab's (the host's) network namespace
ABS="sbxsh-0240-$$"
"$PY" -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(8)
print("up", flush=True); time.sleep(100000)' "$ABS" > "$T/abs.up" 2>&1 &
SRV="$SRV $!"
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/
check "the loopback server is up" wait_for curl -sf http://127.0.0.1:18081/
check "the host's abstract socket is up" wait_for grep -q up "$T/abs.up"

cp "$E2E/net_probe.py" "$T/proj/probe.py" # the sandbox's /tmp is its own
user_policy "[default]
network = proxy
unix_sockets = all
allow_domains = good.test loop.test"
# probe CASE…: runs the probes in one sandbox; out: their lines, err: sbxsh's stderr.
probe() { out=$("$SBXSH" -c "'$PY' probe.py $*" 2> "$T/err"); err=$(cat "$T/err"); }
# line HOST:PORT: the violation line for HOST:PORT in err
line() { printf '%s\n' "$err" | grep -F "network $1 " | head -1; }

# --- what a refusal says: the line to add only where a line would allow it ---
probe guard host-mismatch socks-slash
is "an allowed name resolving to the host's loopback is refused by the guard" \
	"$(printf '%s\n' "$out" | grep '^guard:')" "guard: 403"
like "…reported with the address and its class" "$(line loop.test:80)" \
	"resolves to 127\.0\.0\.1 \(loopback\)"
unlike "…offering no line (allow_domains += loop.test is in the profile already)" \
	"$(line loop.test:80)" "allow_domains \+="
is "a CONNECT whose Host names another host is refused" \
	"$(printf '%s\n' "$out" | grep '^host-mismatch:')" "host-mismatch: 400"
like "…reported as a mismatch naming the host the Host header asked for" "$(line good.test:80)" \
	"\(the Host header names evil\.test:80, not the request target\)$"
err1=$err out1=$out
probe sni
is "a tunnel to good.test carrying a ClientHello for evil.test is cut off" \
	"$(printf '%s\n' "$out" | grep '^sni:')" "sni: cut"
like "…reported naming the TLS server name" "$err" \
	"network good\.test:80 \(TLS server name evil\.test does not match"
unlike "…and neither offers allow_domains += good.test (no line allows a mismatch)" \
	"$err1$err" "network good\.test:80 .*allow_domains \+= good\.test"
err=$err1 out=$out1

is "a SOCKS5 name that is no host name is refused (reply 2)" \
	"$(printf '%s\n' "$out" | grep '^socks-slash:')" "socks-slash: reply 2"
like "…reported by its name" "$err" "network evil\.test/\.good\.test:80 "
unlike "…offering no line the policy parser would refuse" "$err" "allow_domains \+= evil\.test/"

# --- one refusal does not hide another of another kind to the same host:port ---
LOG="$HOME/.local/state/sbxsh/violations.jsonl"
probe host-mismatch sni-front
is "a Host mismatch, then a tunnel to the same host:port fronting front.test: both cut" "$out" \
	"host-mismatch: 400
sni-front: cut"
like "…the fronting is reported after the mismatch" "$err" \
	"network good\.test:80 \(TLS server name front\.test does not match"
like "…and the mismatch too" "$err" "network good\.test:80 \(the Host header names evil\.test:80"
like "…the fronting is in the violation log" "$(grep front.test "$LOG")" \
	'"host":"good.test","port":80.*TLS server name front.test'

# --- a hostile name's bytes never reach the terminal raw ---
probe socks-c1 socks-utf8-c1 host-c1
is "SOCKS5 names with C1 controls (raw, UTF-8) are refused, and a Host header with one" "$out" \
	"socks-c1: reply 2
socks-utf8-c1: reply 2
host-c1: 400"
case $err in
*"$(printf '\233')"* | *"$(printf '\302\233')"* | *"$(printf '\235')"* | *"$(printf '\234')"*)
	not_ok "sbxsh's lines hold no raw control byte of the names" ;;
*) ok "sbxsh's lines hold no raw control byte of the names" ;;
esac
like "…the raw one shown escaped" "$err" 'network \\x9b2J\\x9d0;x\\x9c\.test:80 \(not in allow_domains\)$'
unlike "…offering no line (no pattern can name it)" "$err" 'allow_domains \+= \\x9b'
like "…the Host header's name shown escaped too" "$err" \
	'network good\.test:443 \(the Host header names ev\\x9B2Jil\.test:443, not the request target\)$'
like "…the UTF-8 one as the punycode name the proxy matched" "$err" "network xn--2jevil-[a-z0-9]*\.test:80"

# --- names whose IPv6 address is guarded (0201 has the IPv4 ones) ---
cat >> "$T/hosts" <<HOSTS
::1 lo6.test
fe80::1 ll6.test
::ffff:127.0.0.1 mapped6.test
fd77::1 self6.test
fd00:ec2::254 meta6.test
HOSTS
printf '[default]\nnetwork = proxy\nallow_domains = lo6.test:18081 ll6.test:18081 mapped6.test:18081 self6.test:18081 meta6.test:18081\n' > "$T/g6.ini"
chmod 600 "$T/g6.ini"
out=$("$SBXSH" --config "$T/g6.ini" -c "'$PY' probe.py guard6=lo6.test guard6=ll6.test guard6=mapped6.test guard6=self6.test guard6=meta6.test" 2>&1)
like "an allowed name resolving to ::1, fe80::1, ::ffff:127.0.0.1, the host's fd77::1, fd00:ec2::254: 403 each" \
	"$(printf '%s\n' "$out" | grep -c '^guard6=.*: 403$')" "^5$"
like "…each reported with its class" "$out" "resolves to ::1 \(loopback\)"
like "…link-local" "$out" "resolves to fe80::1 \(link-local\)"
like "…the mapped address as the IPv4 loopback it carries" "$out" "resolves to 127\.0\.0\.1 \(loopback\)"
like "…the host's own IPv6 address" "$out" "resolves to fd77::1 \(an address of this host\)"
like "…the IPv6 metadata address" "$out" "resolves to fd00:ec2::254 \(cloud metadata\)"

# --- a command's own slow connections do not stop its proxy ---
probe slowloris
is "100 held heads, greetings and ClientHellos and an endless body: a request beside is served" \
	"$out" "slowloris: 200 path=/beside host=good.test"

# --- around the proxy ---
probe udp tcp-direct raw icmp "abstract=$ABS" socks4a
like "a datagram to the remote finds no route out of the command's namespace" \
	"$(printf '%s\n' "$out" | grep '^udp:')" "^udp: errno (101|113)$"
like "…nor does a direct connection" "$(printf '%s\n' "$out" | grep '^tcp-direct:')" \
	"^tcp-direct: errno (101|113)$"
like "…nor a raw socket (no capability), nor a ping socket" \
	"$(printf '%s\n' "$out" | grep -E '^(raw|icmp):' | tr '\n' ' ')" \
	"^raw: errno (1|101) icmp: errno (1|13|101) $"
is "the host's abstract unix socket is not reached (unix_sockets = all; its own namespace)" \
	"$(printf '%s\n' "$out" | grep '^abstract')" "abstract=$ABS: errno 111"
is "SOCKS4a is refused (a SOCKS4 rejected reply)" "$(printf '%s\n' "$out" | grep '^socks4a:')" \
	"socks4a: socks4 reply 91"
is "nothing of these reached the loopback server, nor the remote but for the one beside" \
	"$(grep -v '^POST /forever' "$ECHO_LOG")" "GET / 10.77.0.2
GET / 127.0.0.1:18081
GET /beside good.test"

# --- a session daemon served from inside a sandbox is not the session's ---
# A session directory that does not exist when a sandbox starts is not hidden from it (only
# the existing ones are: platform/linux/mounts.c), and a sandbox that can write where it
# would be made (tmp = shared and /tmp/sbxsh-UID; here the runtime directory in the
# project) can serve a socket there. A later command's front end must not take it for its
# session's daemon: it would hand that process its fronts and lists, and take its word on
# the refusals.
"$SBXSH" session stop > /dev/null 2>&1
export XDG_RUNTIME_DIR="$P/rt" SBXSH_SESSION=e2e-0240
mkdir -m 700 "$P/rt"
out=$("$SBXSH" session start 2>&1)
FSOCK=$(printf '%s\n' "$out" | sed -n 's/.*socket \(.*\)$/\1/p')
"$SBXSH" session stop > /dev/null 2>&1
rm -rf "$P/rt/sbxsh"
printf '[default]\nnetwork = open\nunix_sockets = all\n' > "$T/open.ini"
printf '[default]\nnetwork = proxy\nallow_domains = good.test\n' > "$T/proxy.ini"
chmod 600 "$T/open.ini" "$T/proxy.ini"
if [ -z "$FSOCK" ]; then
	not_ok "the session's socket path is known: $out"
else
	"$SBXSH" --config "$T/open.ini" -c "'$PY' probe.py 'fake-daemon=$FSOCK'" > "$T/fake.out" 2>&1 &
	FAKE=$!
	check "a sandbox serves a socket where the session's daemon would be" wait_for grep -q '^up' "$T/fake.out"
	out=$("$SBXSH" --config "$T/proxy.ini" -c 'curl -sS http://good.test/victim' 2>&1); rc=$?
	wait "$FAKE"
	is "…the next command's front end sends it nothing" "$(grep fake-daemon "$T/fake.out")" \
		"fake-daemon=$FSOCK: closed, nothing sent"
	is "…and that command is refused (125), not run without its proxy" "$rc" 125
	like "…naming the socket and why" "$out" "$FSOCK.*another pid namespace"
	rm -rf "$P/rt/sbxsh"
	out=$("$SBXSH" --config "$T/proxy.ini" -c 'curl -sS http://good.test/after' 2>&1)
	like "once it is gone, a command starts the real daemon there" "$out" "path=/after host=good.test"
fi

# --- nor does the daemon serve a sandbox that reaches its socket: network = open shares the
# daemon's network namespace, and a session directory made after the sandbox started is not
# hidden from it (an agent's dev server running while its next command starts the daemon) ---
if [ -n "$FSOCK" ]; then
	"$SBXSH" session stop > /dev/null 2>&1
	rm -rf "$P/rt/sbxsh" "$P/waiting"
	cp "$E2E/sess_client.py" "$P/sess_client.py"
	"$SBXSH" --config "$T/open.ini" -c ": > waiting; '$PY' probe.py 'ctl-status=$FSOCK'" \
		> "$T/ctl.out" 2>&1 &
	ATT=$!
	check "a sandbox with network = open waits for the session's socket" wait_for test -e "$P/waiting"
	out=$("$SBXSH" --config "$T/proxy.ini" -c 'curl -sS http://good.test/started' 2>&1)
	like "…a proxied command starts the daemon meanwhile" "$out" "path=/started host=good.test"
	wait "$ATT"
	like "…the daemon refuses the sandbox, naming why" "$(cat "$T/ctl.out")" \
		"^ctl-status=$FSOCK: ERR refused: the peer is in another pid namespace"
	out=$("$SBXSH" session status 2>&1)
	like "…and still serves the session" "$out" "^pid +[0-9]+"
fi

# --- the violation log, made after a sandbox started, is hidden from it too ---
# (the command lines of the session's other commands: a long-running sandbox, an interactive
# shell's, started before the first refusal was logged read every later record)
"$SBXSH" session stop > /dev/null 2>&1
export XDG_STATE_HOME="$P/state"
VLOG="$XDG_STATE_HOME/sbxsh/violations.jsonl"
"$SBXSH" --config "$T/proxy.ini" -c ": > waiting2; i=0
	while [ ! -e '$VLOG' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
	sleep 1; echo \"log: \$(head -c 400 '$VLOG' 2>&1)\"" > "$T/vlog.out" 2>&1 &
RD=$!
check "a command runs before the violation log exists" wait_for test -e "$P/waiting2"
"$SBXSH" --config "$T/proxy.ini" -c 'curl -s -o /dev/null http://bad.test/SECRET-0240' > /dev/null 2>&1
like "another command's refusal is logged, with its command line" "$(cat "$VLOG")" "SECRET-0240"
wait "$RD"
unlike "…and the first command does not read it" "$(cat "$T/vlog.out")" "SECRET-0240"

done_testing
