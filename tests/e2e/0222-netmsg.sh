#!/bin/sh
# 0222-netmsg — what sbxsh says after a command about the network: one violation line per
# refused host, for CONNECT (https) and SOCKS clients too, which show only a status; a note
# (not a violation: the exit status stays the command's) for each host the session proxy
# could not reach upstream: a name that does not resolve, a port with nothing listening (on
# the remote and on an allowed localhost:PORT).
#
# It runs in the lab of lab_lib.sh (as 0210): traffic only to loopback and the lab's remote.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
cd "$T/proj" || exit 1
need_sandbox "the sandbox in the lab"
in_remote_bg "$PY" "$E2E/echo_http.py" 80 10.77.0.2 > /dev/null 2>&1
SRV=$!
check "the remote HTTP server is up" wait_for curl -sf http://10.77.0.2/

pol() { user_policy "[default]
network = proxy
allow_domains = good.test $1"; }
pol ""
# count PATTERN TEXT: the lines of TEXT matching PATTERN
count() { printf '%s\n' "$2" | grep -Ec -- "$1"; }

# --- refusals: one line per host, whatever the client shows ---
"$SBXSH" -c 'curl -sS https://bad.test/a; curl -sS https://bad.test/b; echo "rc=$?"' > "$T/out" 2> "$T/err"
err=$(cat "$T/err")
like "CONNECT refused: curl sees only its status" "$(cat "$T/out")" "rc=56"
is "…one line for the host (two connections)" "$(count '^sbxsh:   network bad.test:443 ' "$err")" 1
like "…naming host:port and the line to add" "$err" \
	"^sbxsh:   network bad.test:443 \(not in allow_domains\): (to allow, )?.*allow_domains \+= bad.test"
like "…counted as a violation" "$err" "^sbxsh: 1 violation$"

"$SBXSH" -c 'curl -sS --socks5-hostname 127.0.0.1:1080 http://evil.test/s
	curl -sS --socks5-hostname 127.0.0.1:1080 http://evil.test/t; echo "rc=$?"' > "$T/out" 2> "$T/err"
err=$(cat "$T/err")
like "SOCKS5 refused: curl sees only its status" "$(cat "$T/out")" "rc=97"
is "…one line for the host" "$(count '^sbxsh:   network evil.test:80 ' "$err")" 1
like "…naming the line to add" "$err" "^sbxsh:   network evil.test:80 .*allow_domains \+= evil.test"

"$SBXSH" -c 'curl -sS https://bad.test/; curl -sS --socks5-hostname 127.0.0.1:1080 http://other.test/' \
	> /dev/null 2> "$T/err"
err=$(cat "$T/err")
like "two hosts refused: two violations" "$err" "^sbxsh: 2 violations$"
is "…one line each" "$(count '^sbxsh:   network (bad|other).test:(443|80) ' "$err")" 2

# --- notes: upstream failures are not violations ---
pol "nothere.invalid nothere.invalid:443 good.test:81 localhost:18099"
"$SBXSH" -c 'curl -sS https://nothere.invalid/; echo "rc=$?"' > "$T/out" 2> "$T/err"
err=$(cat "$T/err")
diag "$err"
like "a name that does not resolve (CONNECT): curl's own status" "$(cat "$T/out")" "rc=56"
like "…a note naming host:port, resolved by the proxy" "$err" \
	"^sbxsh: note: nothere.invalid:443 could not be reached: (no such name|name lookup failed).*\(resolved by the session proxy\)$"
unlike "…not a violation" "$err" "violation"

"$SBXSH" -c 'curl -sS --socks5-hostname 127.0.0.1:1080 http://nothere.invalid/
	curl -sS --socks5-hostname 127.0.0.1:1080 http://nothere.invalid/x' > /dev/null 2> "$T/err"
rc=$?
err=$(cat "$T/err")
is "the same through SOCKS5: the exit status is curl's (97), not 122" "$rc" 97
is "…one note for the host (two connections)" "$(count '^sbxsh: note: nothere.invalid:80 ' "$err")" 1

"$SBXSH" -c 'curl -sS -f http://good.test:81/' > /dev/null 2> "$T/err"
rc=$?
err=$(cat "$T/err")
is "nothing listening on the remote: curl's status (22, the proxy's 502)" "$rc" 22
like "…a note: connection refused" "$err" "^sbxsh: note: good.test:81 could not be reached: connection refused$"
unlike "…not a violation" "$err" "violation"

"$SBXSH" -c "curl -sS --noproxy '*' http://127.0.0.1:18099/" > /dev/null 2> "$T/err"
rc=$?
err=$(cat "$T/err")
like "an allowed localhost:PORT with nothing listening: curl's status (52/56: closed or reset)" "$rc" "^(52|56)$"
like "…a note: connection refused" "$err" "^sbxsh: note: localhost:18099 could not be reached: connection refused$"

# An address nobody answers on the lab's link (no neighbour: the connect hangs for seconds):
# curl gives up first; the connection the proxy was still making is a note.
echo "10.77.0.99 hole.test" >> "$T/hosts"
pol "hole.test"
"$SBXSH" -c 'curl -sS -m 1 http://hole.test/' > /dev/null 2> "$T/err"
rc=$?
err=$(cat "$T/err")
is "a host that does not answer: curl's own status (28, its timeout)" "$rc" 28
like "…a note: the proxy was still connecting when the command ended" "$err" \
	"^sbxsh: note: hole.test:80 could not be reached: no answer yet when the command ended \(the session proxy was still connecting\)$"
unlike "…not a violation" "$err" "violation"

pol ""
"$SBXSH" -c 'curl -sS -f http://good.test/ok && curl -sS https://bad.test/' > /dev/null 2> "$T/err"
err=$(cat "$T/err")
unlike "a command whose hosts all answered gets no note" "$err" "note:"

done_testing
