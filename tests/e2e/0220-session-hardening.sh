#!/bin/sh
# 0220-session-hardening — what a command or another user can do to sbxsh outside the
# sandbox: a squatted runtime directory (/tmp/sbxsh-UID made first by someone else), escape
# sequences in names the sandbox reports (violation lines, sbxsh log), the command's CPU time
# reaching sbxsh's caller (getrusage RUSAGE_CHILDREN, /usr/bin/time), and background
# processes not waited for, and a control-socket peer whose namespace cannot be read.
. "$SBXSH_STAGE/e2e/lib.sh"
. "$SBXSH_STAGE/e2e/sess_lib.sh"
SQUAT=""
cleanup() {
	"$SBXSH" session stop > /dev/null 2>&1
	[ -n "$SQUAT" ] && { as_u "$SBXSH" session stop > /dev/null 2>&1; rm -rf "$SQUAT"; }
	e2e_cleanup
}
trap cleanup EXIT
cd "$T/proj" || exit 1
need_sandbox "the sandbox"
uid=$(id -u)

# --- a squatted runtime directory: /tmp/sbxsh-UID made first by someone else ---
# A fresh uid of its own (root only: another user cannot make a directory of another uid),
# so no real session directory of this machine is touched.
U=$((40000 + $$ % 20000))
sq=/tmp/sbxsh-$U
if ! is_root; then
	skip "a squatted runtime directory" "needs root (to make a directory of another uid and run as a fresh uid)"
elif [ -e "$sq" ] || [ -L "$sq" ] || [ -d "/run/user/$U" ]; then
	skip "a squatted runtime directory" "$sq or /run/user/$U exists already"
else
	SQUAT=$sq
	mkdir -m 700 "$sq" && chown 65534:65534 "$sq"
	UH="$T/u$U"
	mkdir -p "$UH/.config/sbxsh" "$UH/proj"
	printf '[default]\nnetwork = proxy\n' > "$UH/.config/sbxsh/sbxsh.ini"
	chmod 600 "$UH/.config/sbxsh/sbxsh.ini"
	chown -R "$U:$U" "$UH"
	chmod 700 "$UH"
	# as_u CMD…: CMD as uid U, its HOME in $UH, no XDG_RUNTIME_DIR
	as_u() {
		(cd "$UH/proj" && setpriv --reuid="$U" --regid="$U" --clear-groups env -i \
			PATH=/usr/local/bin:/usr/bin:/bin HOME="$UH" SBXSH_SESSION=e2e "$@")
	}
	out=$(as_u "$SBXSH" -c 'echo "proxy=$HTTP_PROXY"' 2>&1); rc=$?
	is "with $sq squatted, a proxied command still runs (no XDG_RUNTIME_DIR)" "$rc" 0
	like "…and has its proxy" "$out" "proxy=http://127.0.0.1:3128$"
	out=$(as_u "$SBXSH" session start 2>&1)
	like "…its daemon lives in ~/.cache/sbxsh-run, which no other user can make" "$out" \
		"socket $UH/.cache/sbxsh-run/e2e/ctl.sock"
	is "…~/.cache/sbxsh-run is private" "$(stat -c %a "$UH/.cache/sbxsh-run")" 700
	is "…and the squatter's directory is left as it was" "$(stat -c %u:%a "$sq")" 65534:700
	printf '[default]\nnetwork = proxy\nread += %s\n' "$UH" > "$UH/.config/sbxsh/sbxsh.ini"
	out=$(as_u "$SBXSH" -c 'ls -A "$HOME/.cache/sbxsh-run" | wc -l; ls -A "$HOME/.cache" | grep -c sbxsh-run' 2> "$T/e6")
	is "…hidden from the sandbox like the other session directories (home readable)" "$out" "0
1"
	diag "$(cat "$T/e6")"
	as_u "$SBXSH" session stop > /dev/null 2>&1
	rm -rf "$UH/.cache"
	as_u sh -c ': > "$HOME/.cache"'
	out=$(as_u "$SBXSH" -c ': > ran' 2>&1); rc=$?
	is "with the home's fallback unusable too: refused (125)" "$rc" 125
	like "…naming the squatter" "$out" "$sq is owned by uid 65534"
	like "…and the fix" "$out" "XDG_RUNTIME_DIR.*have root remove $sq"
	check "…before the command ran" test ! -e "$UH/proj/ran"
	diag "$out"
fi

# --- escape sequences in names from the sandbox: printed escaped, on stderr and in sbxsh log ---
user_policy "[default]
network = none"
# has_ctl FILE: FILE holds a raw ESC, BEL or CSI byte
has_ctl() { LC_ALL=C grep -q "$(printf '[\033\007\233]')" "$1"; }
"$SBXSH" -c 'n=$(printf "\033[2J\007x"); : > "/opt/$n"' > /dev/null 2> "$T/esc.all"
# the command's own stderr (the shell's error) is its own, passed through untouched: sbxsh's lines
grep '^sbxsh:' "$T/esc.all" > "$T/esc.err"
like "a write to /opt/<ESC[2J BEL x> is reported" "$(cat "$T/esc.err")" 'write /opt/'
if has_ctl "$T/esc.err"; then not_ok "sbxsh's lines hold no raw control byte"; else ok "sbxsh's lines hold no raw control byte"; fi
like "…the name is shown escaped" "$(cat "$T/esc.err")" 'write /opt/\\x1b\[2J\\x07x'
"$SBXSH" log > "$T/esc.log" 2>&1
like "sbxsh log lists it" "$(cat "$T/esc.log")" '/opt/\\x1b\[2J\\x07x'
if has_ctl "$T/esc.log"; then not_ok "sbxsh log prints no raw control byte"; else ok "sbxsh log prints no raw control byte"; fi
"$SBXSH" log --json > "$T/esc.json" 2>&1
like "sbxsh log --json keeps it as JSON escapes" "$(cat "$T/esc.json")" '/opt/\\u001b\[2J\\u0007x'
if has_ctl "$T/esc.json"; then not_ok "…and no raw control byte"; else ok "…and no raw control byte"; fi

# --- the command's CPU time reaches sbxsh's caller (RUSAGE_CHILDREN), as bash's does ---
user_policy "[default]
network = none"
loop='i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
# cpu CMD…: the CPU seconds (user + system) of CMD and everything it waited for
cpu() {
	"$PY" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((r.ru_utime + r.ru_stime) * 1000))' "$@"
}
bare=$(cpu bash -c "$loop")
boxed=$(cpu "$SBXSH" -c "$loop")
diag "the loop: $bare ms of CPU in bash, $boxed ms through sbxsh"
if [ "$bare" -ge 50 ] && [ "$boxed" -ge $((bare / 2)) ]; then
	ok "getrusage(RUSAGE_CHILDREN) of sbxsh's caller holds the command's CPU time"
else
	not_ok "getrusage(RUSAGE_CHILDREN) of sbxsh's caller holds the command's CPU time"
fi
if [ -x /usr/bin/time ]; then
	u=$(/usr/bin/time -f 'user=%U' "$SBXSH" -c "$loop" 2>&1 | sed -n 's/^user=//p')
	diag "/usr/bin/time: ${u:-?} s user"
	if awk -v u="${u:-0}" -v b="$bare" 'BEGIN { exit !(u * 1000 >= b / 3) }'; then
		ok "/usr/bin/time sbxsh -c <loop> reports its user time"
	else
		not_ok "/usr/bin/time sbxsh -c <loop> reports its user time"
	fi
else
	skip "/usr/bin/time sbxsh -c <loop>" "no /usr/bin/time (the time package)"
fi
start=$(date +%s)
"$SBXSH" -c 'sleep 60 & setsid sleep 60 & exit 3'
is "a command that leaves background processes still returns its status" "$?" 3
check "…at once (they die with the sandbox, not waited for)" test $(($(date +%s) - start)) -lt 30

# --- a peer whose network namespace the daemon cannot read is refused (fail closed) ---
# The connecting process is gone before the (stopped) daemon accepts: /proc/PID/ns/net
# cannot be read, so the daemon cannot know the peer is outside every sandbox.
if sess_start; then
	kill -STOP "$DPID"
	out=$("$PY" - "$SOCK" "$DPID" "$E2E" <<'PY'
import os, signal, socket, sys, time
sys.path.insert(0, sys.argv[3])
import sess_client as c
s = c.connect(sys.argv[1])
parent = os.getpid()
if os.fork():
    os._exit(0)  # the process the daemon will see as its peer is gone
while os.getppid() == parent:
    time.sleep(0.01)
os.kill(int(sys.argv[2]), signal.SIGCONT)
try:
    s.sendall(c.frame(c.STATUS))
except OSError:
    pass  # refused: the daemon answered and closed at accept
print(c.describe(c.recv_frame(s)))
PY
)
	kill -CONT "$DPID" 2> /dev/null
	like "a peer gone before the daemon could check its namespace is refused" "$out" \
		"^ERR refused: the peer is in another network namespace"
	out=$("$PY" "$CLIENT" status "$SOCK" | sed -n 's/^pid //p')
	is "…and the daemon serves a live peer as before" "$out" "$DPID"
else
	not_ok "the session daemon starts"
fi

done_testing
