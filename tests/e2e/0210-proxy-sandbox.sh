#!/bin/sh
# 0210-proxy-sandbox — network = proxy end to end: a real sandbox (sbxsh -c) whose stage makes
# the fronts and hands them to a real session daemon. curl through HTTP_PROXY and SOCKS5
# (allowed vs denied, the 403 body), GIT_SSH_COMMAND's ProxyCommand (sbxsh session connect)
# from inside, git clone over HTTP, loopback reach (and a port below 1024 refused), listen = PORT (and a
# held port refused before the command runs), the daemon killed mid-command (fail closed, the
# next command works), the proxy variables, and the session directory hidden from sandboxes.
#
# It runs in the lab of lab_lib.sh (as 0201): a user + network + mount namespace with a veth
# pair to a "remote" namespace at 10.77.0.2 and a private /etc/hosts naming it good.test etc.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
cd "$T/proj" || exit 1
need_sandbox "the sandbox in the lab"

# --- servers: HTTP (echo) and a dumb-HTTP git repository on the remote; one on loopback ---
export ECHO_LOG="$T/echo.log"
: > "$ECHO_LOG"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 > /dev/null 2>&1
SRV=$!
mkdir -p "$T/www" "$T/src"
git -C "$T/src" init -q && git -C "$T/src" -c user.name=t -c user.email=t@t \
	commit -q --allow-empty -m "the first commit" &&
	git clone -q --bare "$T/src" "$T/www/repo.git" && git -C "$T/www/repo.git" update-server-info
(cd "$T/www" && exec nsenter -t "$NS" -n "$PY" -m http.server 8000 --bind 10.77.0.2) > /dev/null 2>&1 &
SRV="$SRV $!"
"$PY" "$E2E/echo_http.py" 18081 127.0.0.1 > /dev/null 2>&1 &
SRV="$SRV $!"
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/
check "the remote git server is up" wait_for curl -sf http://10.77.0.2:8000/repo.git/HEAD
check "the loopback server is up" wait_for curl -sf http://127.0.0.1:18081/

P="$T/proj"
cd "$P" || exit 1
pol() { user_policy "[default]
network = proxy
allow_domains = good.test good.test:8000 $1"; }
pol ""

# --- the proxy variables, and the session directory out of reach ---
out=$("$SBXSH" -c 'echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $NO_PROXY"' 2>&1)
is "the proxy variables are set inside" "$out" \
	"http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:1080 localhost,127.0.0.1,::1"
check "the daemon was started by that command" sess_start
diag "session socket $SOCK"
for net in proxy open; do
	user_policy "[default]
network = $net
tmp = shared
unix_sockets = all"
	out=$("$SBXSH" -c "ls -A '$XDG_RUNTIME_DIR/sbxsh' | wc -l; [ -e '$SOCK' ] && echo visible
		'$PY' -c 'import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print(\"connected\")
except OSError as e: print(\"refused\", e.errno)' '$SOCK'" 2>&1)
	like "network = $net: the session directory is empty inside, its socket unreachable" \
		"$out" "^0
refused 2$"
done
pol ""

# --- HTTP proxy: allowed vs denied, the 403 body ---
out=$("$SBXSH" -c 'curl -sS http://good.test/hello' 2>&1)
like "an allowed host through HTTP_PROXY" "$out" "^method=GET path=/hello host=good.test"
out=$("$SBXSH" -c 'curl -sS -w "%{http_code}" -o 403.txt http://bad.test/x; echo; cat 403.txt' 2> "$T/err"); rc=$?
like "a denied host gets 403" "$out" "^403$"
like "the 403 names the host" "$out" "refused a connection to bad.test:80"
like "the 403 names the line to add" "$out" "allow_domains \+= bad.test"
is "the refusal is a violation (on_violation = fail)" "$rc" 122
like "…reported with its grant" "$(cat "$T/err")" "network bad.test:80 .*allow_domains \+= bad.test"

# --- SOCKS5 ---
out=$("$SBXSH" -c 'curl -sS --socks5-hostname 127.0.0.1:1080 http://good.test/s' 2>&1)
like "an allowed host through SOCKS5 (--socks5-hostname)" "$out" "^method=GET path=/s host=good.test"
out=$("$SBXSH" -c 'curl -sS --socks5-hostname "${ALL_PROXY#socks5h://}" http://bad.test/s; echo "rc=$?"' 2>&1)
like "a denied host through SOCKS5 is refused" "$out" "rc=97"

# --- commands at once, each with its own allow list: no cross-talk ---
for i in 1 2 3 4 5 6 7 8; do
	if [ $((i % 2)) = 1 ]; then a="good.test"; else a="other.example"; fi
	printf '[default]\nnetwork = proxy\nallow_domains = %s\n' "$a" > "$T/par$i.ini"
	chmod 600 "$T/par$i.ini"
	("$SBXSH" --config "$T/par$i.ini" -c 'curl -s -o /dev/null -w "%{http_code}" http://good.test/' \
		> "$T/par$i.out" 2> "$T/par$i.err"; echo $? > "$T/par$i.rc") &
	PAR="${PAR:-} $!"
done
for p in $PAR; do wait "$p"; done
got=""; for i in 1 2 3 4 5 6 7 8; do got="$got $(cat "$T/par$i.out")"; done
want=" 200 403 200 403 200 403 200 403"
is "8 commands at once: each gets its own list's answer" "$got" "$want"
[ "$got" = "$want" ] ||
	for i in 1 2 3 4 5 6 7 8; do diag "command $i: rc $(cat "$T/par$i.rc"), stderr: $(head -c 600 "$T/par$i.err")"; done

# --- GIT_SSH_COMMAND's ProxyCommand (sbxsh session connect) from inside ---
like "GIT_SSH_COMMAND's ProxyCommand is this sbxsh's session connect" \
	"$("$SBXSH" -c 'echo "$GIT_SSH_COMMAND"' 2>&1)" "ProxyCommand=$SBXSH session connect %h %p"
pol "
read += $SBXSH_STAGE"
req='printf "GET /ssh HTTP/1.0\r\nHost: good.test\r\n\r\n"'
out=$("$SBXSH" -c "$req | '$SBXSH' session connect good.test 80" 2>&1)
like "…relays an allowed host through the SOCKS5 front" "$out" "path=/ssh"
out=$("$SBXSH" -c "$req | '$SBXSH' session connect bad.test 80; echo \"rc=\$?\"" 2>&1)
like "…and refuses a denied one" "$out" "rc=[1-9]"
like "…saying so" "$out" "bad.test"
pol ""

# --- git clone over HTTP through the proxy ---
# (a clone makes a new repository's config: the guard refuses that unless git_config = yes)
pol "
git_config = yes"
out=$("$SBXSH" -c 'git clone -q http://good.test:8000/repo.git clone && git -C clone log --format=%s' 2>&1)
like "git clone over HTTP through the proxy" "$out" "^the first commit$"
out=$("$SBXSH" -c 'git clone -q http://bad.test:8000/repo.git clone2; echo "rc=$?"' 2>&1)
like "git clone from a host not allowed fails" "$out" "rc=128"
pol ""

# --- loopback reach ---
conn='import socket; socket.create_connection(("127.0.0.1", 18081)); print("reached")'
pol "localhost:18081"
out=$("$SBXSH" -c "'$PY' -c '$conn'" 2>&1)
is "allow_domains += localhost:18081 reaches the host's loopback port" "$out" "reached"
out=$("$SBXSH" -c "curl -sS --noproxy '*' http://127.0.0.1:18081/r" 2>&1)
like "…with a client that ignores the proxy" "$out" "path=/r"
pol ""
out=$("$SBXSH" -c "'$PY' -c '$conn' 2>&1 | tail -n 1" 2>&1)
like "without the grant it is refused" "$out" "ConnectionRefusedError"

pol "localhost:80"
rm -f "$P/ran"
out=$("$SBXSH" -c ': > ran' 2>&1); rc=$?
is "a loopback-reach port below 1024 refuses the command" "$rc" 125
like "…naming the port and the fix" "$out" "127.0.0.1:80 in the sandbox.*below 1024.*remove that localhost:PORT"
check "…before the command ran" test ! -e "$P/ran"

# --- listen = PORT ---
LP=18093
user_policy "[default]
network = proxy
listen = $LP"
rm -f "$P/up" "$P/done"
"$SBXSH" -c "'$PY' -m http.server $LP --bind 127.0.0.1 > /dev/null 2>&1 & s=\$!
	until curl -s --noproxy '*' -o /dev/null http://127.0.0.1:$LP/; do sleep 0.05; done
	: > up; while [ ! -e done ]; do sleep 0.05; done; kill \$s" > "$T/lout" 2>&1 &
CMD=$!
check "the server inside came up" wait_for test -e "$P/up"
out=$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP/ 2>&1)
is "listen = $LP: the sandbox's server is reached from the host" "$out" 200
: > "$P/done"
wait "$CMD"
is "…and the command ended well" "$?" 0
out=$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:$LP/ 2>&1)
like "…and the port is closed with it" "$out" "^000"
"$PY" -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' $LP &
HOLD=$!
wait_for "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $LP))"
rm -f "$P/ran"
out=$("$SBXSH" -c ': > ran' 2>&1); rc=$?
kill $HOLD; diag "$out"
is "a listen port held on the host refuses the command" "$rc" 125
like "…naming the port" "$out" "$LP"
check "…before the command ran" test ! -e "$P/ran"

# --- the daemon killed mid-command: fail closed; the next command starts a new one ---
pol ""
sess_start
old=$DPID
rm -f "$P/up" "$P/go"
"$SBXSH" -c 'curl -sS -o /dev/null -w "%{http_code}\n" http://good.test/ > first; : > up
	while [ ! -e go ]; do sleep 0.05; done
	curl -sS -m 10 -o /dev/null http://good.test/; echo "$?" > second' > /dev/null 2>&1 &
CMD=$!
check "a command runs with the daemon" wait_for test -e "$P/up"
is "…and reaches an allowed host" "$(cat "$P/first")" 200
kill -9 "$old"
: > "$P/go"
wait "$CMD"
is "after kill -9 its next proxy connection fails (curl: 7, could not connect)" "$(cat "$P/second")" 7
out=$("$SBXSH" -c 'curl -sS http://good.test/again' 2>&1)
like "the next command works (a new daemon)" "$out" "path=/again"
sess_start
check "…which is another process" test "$DPID" != "$old"

done_testing
