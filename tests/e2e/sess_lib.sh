# sess_lib.sh — helpers for the session daemon e2e tests (sourced after lib.sh).
# The daemon is reached as a test front end and stage would: tests/e2e/sess_client.py makes
# its own listeners and passes them with BEGIN (no sandbox involved).
PY=$(command -v python3)
CLIENT="$E2E/sess_client.py"

# A private runtime directory, so this script's daemon is its own.
export XDG_RUNTIME_DIR="$T/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export SBXSH_SESSION="e2e"

# sess_start: starts (or finds) the daemon; sets SOCK and DPID.
sess_start() {
	out=$("$SBXSH" session start 2>&1) || { diag "session start: $out"; return 1; }
	SOCK=$(printf '%s\n' "$out" | sed -n 's/.*socket \(.*\)$/\1/p')
	DPID=$(printf '%s\n' "$out" | sed -n 's/.*daemon pid \([0-9]*\).*/\1/p')
	[ -n "$SOCK" ] && [ -n "$DPID" ]
}

# sess_stop: stops the daemon if one runs (at the end of every script).
sess_stop() { "$SBXSH" session stop > /dev/null 2>&1 || true; }

# sess_begin NAME ARGS…: a command front held open by a client process; sets HP and SP
# (its HTTP and SOCKS ports) and REACH (host:listener pairs), or BEGIN_OUT on refusal.
sess_begin() {
	n=$1; shift
	rm -f "$T/$n.ready"; mkfifo "$T/$n.ready"
	"$PY" "$CLIENT" begin "$SOCK" "$@" > "$T/$n.ready" 2> "$T/$n.err" &
	echo $! > "$T/$n.pid"
	read -r BEGIN_OUT < "$T/$n.ready" || BEGIN_OUT=""
	HP=$(printf '%s\n' "$BEGIN_OUT" | sed -n 's/.*http=\([0-9]*\).*/\1/p')
	SP=$(printf '%s\n' "$BEGIN_OUT" | sed -n 's/.*socks=\([0-9]*\).*/\1/p')
	REACH=$(printf '%s\n' "$BEGIN_OUT" | sed -n 's/.*reach=\([0-9:]*\).*/\1/p')
	case $BEGIN_OUT in READY*) return 0 ;; *) return 1 ;; esac
}

# sess_end NAME [TERM]: ends the command (END), or with TERM just drops the connection;
# waits for the client, so call it in this shell (not in $(…)). What the daemon answered is
# then in $T/NAME.err.
sess_end() {
	pid=$(cat "$T/$1.pid")
	kill -"${2:-USR1}" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# counter NAME: one of the daemon's counters (sess_client.py status).
counter() { "$PY" "$CLIENT" status "$SOCK" | sed -n "s/^$1 //p"; }
