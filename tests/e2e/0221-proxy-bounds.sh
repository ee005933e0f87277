#!/bin/sh
# 0221-proxy-bounds — what one command can do to the session's proxy, in the lab of
# lab_lib.sh (as 0210): `kill 0` inside a command with `listen` leaves the relay working; a
# command holding connections past its limit is refused (503 / SOCKS failure, a violation
# record) while another command's request still goes through.
. "$SBXSH_STAGE/e2e/lab_lib.sh"
cd "$T/proj" || exit 1
if ! "$SBXSH" -c true 2> "$T/err0"; then
	skip "the sandbox in the lab" "sbxsh cannot run a sandbox here: $(head -c 300 "$T/err0")"
	done_testing
	exit
fi
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

done_testing
