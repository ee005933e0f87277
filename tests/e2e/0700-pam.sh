#!/bin/sh
# 0700-pam — sessions end with their logins: the daemon leaves no directory behind (stop,
# idle exit, status with none), a daemon whose audit session ended exits by itself, and
# pam_sbxsh.so (driven by pamtester under pam_wrapper with a private service directory)
# starts the user's daemon at open_session, exports SBXSH_SESSION, stops it at close_session,
# and fails a session on its own errors only when its `required` option says so.
. "$SBXSH_STAGE/e2e/lib.sh"
trap e2e_cleanup EXIT

audit=$(cat /proc/self/sessionid 2>/dev/null || echo 4294967295)
export SBXSH_SESSION=e2e-pam
if [ "$audit" = 4294967295 ]; then sid=e2e-pam; else sid="audit-$audit"; fi
sdir="$XDG_RUNTIME_DIR/sbxsh/$sid"

# wait_gone PID: up to 30 s for PID to exit; true when it did.
wait_gone() {
	case $1 in '' | *[!0-9]*) diag "no pid: '$1'"; return 1 ;; esac
	i=0; while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	! kill -0 "$1" 2>/dev/null
}
start_pid() { "$SBXSH" session start 2>&1 | sed -n 's/.*daemon pid \([0-9]*\).*/\1/p'; }

# --- nothing left on disk ---
out=$("$SBXSH" session status 2>&1)
like "status with no daemon says so" "$out" "no session daemon runs"
check "status with no daemon leaves no session directory" test ! -e "$sdir"
pid=$(start_pid)
check "a started daemon has its directory" test -S "$sdir/ctl.sock"
"$SBXSH" session stop; is "session stop exits 0" "$?" 0
check "session stop removes the session directory (socket and lock with it)" test ! -e "$sdir"
check "the stopped daemon exits" wait_gone "$pid"
pid=$(start_pid); "$SBXSH" session stop > /dev/null; pid2=$(start_pid)
check "stop then start: the fresh daemon has its socket" test -S "$sdir/ctl.sock"
wait_gone "$pid"
check "the old daemon's exit left the fresh one's directory alone" test -S "$sdir/ctl.sock"
"$SBXSH" session status > /dev/null; is "and the fresh one answers" "$?" 0
"$SBXSH" session stop > /dev/null
user_policy '[sbxsh]
idle_exit = 1'
pid=$(start_pid)
check "a daemon that idled out exits" wait_gone "$pid"
check "and removes its directory" test ! -e "$sdir"
user_policy ''

# --- a login that ended without pam_sbxsh: its daemon exits by itself ---
# new_login CMD…: runs CMD in a fresh audit session (root only: pam_loginuid's write).
new_login() { sh -c 'echo 0 > /proc/self/loginuid && exec "$@"' sh "$@"; }
if ! is_root; then
	for d in "a daemon stays while its login has a process" "a daemon exits once its login has no process left" \
		"and removes its directory"; do skip "$d" "writing /proc/self/loginuid needs root"; done
elif ! new_login true 2>/dev/null; then
	for d in "a daemon stays while its login has a process" "a daemon exits once its login has no process left" \
		"and removes its directory"; do skip "$d" "/proc/self/loginuid is not writable here (immutable loginuid)"; done
else
	new_login sh -c 'cat /proc/self/sessionid > "$1"; "$2" session start > "$1.start" 2>&1; exec sleep 8' \
		sh "$T/login.sid" "$SBXSH" &
	lpid=$!
	i=0; while ! grep -q 'daemon pid' "$T/login.sid.start" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	lsid=$(cat "$T/login.sid"); ldir="$XDG_RUNTIME_DIR/sbxsh/audit-$lsid"
	dpid=$(sed -n 's/.*daemon pid \([0-9]*\).*/\1/p' "$T/login.sid.start")
	sleep 5 # longer than the daemon's 3 s watch: the login's sleep still runs
	check "a daemon stays while its login has a process" kill -0 "${dpid:-none}"
	wait "$lpid"
	check "a daemon exits once its login has no process left" wait_gone "${dpid:-none}"
	check "and removes its directory" test ! -e "$ldir"
fi

# --- the shipped ssh preset: ~ writable, the persistence paths not ---
: > "$HOME/.bashrc"; mkdir -p "$HOME/w"
(cd "$HOME/w" && "$SBXSH" -c 'echo up > ~/upload.txt' > /dev/null 2>&1)
check "without [profile ssh] a command in ~/w cannot write ~" test ! -e "$HOME/upload.txt"
user_policy "[dir $HOME]
use = ssh"
(cd "$HOME/w" && "$SBXSH" -c 'echo up > ~/upload.txt; echo x >> ~/.bashrc' > /dev/null 2>&1)
is "with use = ssh a file lands in ~ (an scp upload)" "$(cat "$HOME/upload.txt" 2>/dev/null)" up
is "and ~/.bashrc stays as it was" "$(wc -c < "$HOME/.bashrc" | tr -d ' ')" 0
user_policy ''
"$SBXSH" session stop > /dev/null 2>&1

# --- pam_sbxsh.so under pamtester ---
MOD="$SBXSH_STAGE/lib/security/pam_sbxsh.so"
PWRAP=$(ls /usr/lib/*/libpam_wrapper.so /usr/lib/libpam_wrapper.so 2>/dev/null | head -n 1)
SECDIR=$(dirname "$(ls /usr/lib/*/security/pam_exec.so /lib/*/security/pam_exec.so 2>/dev/null | head -n 1)")
if ! command -v pamtester > /dev/null || [ -z "$PWRAP" ] || [ ! -e "$SECDIR/pam_exec.so" ]; then
	skip "pam_sbxsh.so" "pamtester, libpam-wrapper or pam_exec.so is missing (packaging/deps.sh test)"
	done_testing; exit
fi
if is_root; then puser=sbxsh-test; else puser=$(id -un); fi
if ! id "$puser" > /dev/null 2>&1; then
	skip "pam_sbxsh.so" "no user $puser"; done_testing; exit
fi
puid=$(id -u "$puser")
svc="$T/pam.d"; mkdir -p "$svc"
urun="$T/urun"; mkdir -p -m 700 "$urun"
is_root && chown "$puser" "$urun"
echo "XDG_RUNTIME_DIR DEFAULT=$urun" > "$svc/env.conf"
cat > "$svc/probe" <<EOF
#!/bin/sh
{ echo "\$PAM_TYPE id=\$(id -u) net=\$(readlink /proc/self/ns/net) SBXSH_SESSION=\${SBXSH_SESSION-unset}"
  ls "$urun/sbxsh/\${SBXSH_SESSION-none}" 2>&1; } >> "$T/probe.out"
exit 0
EOF
chmod 755 "$svc/probe"
loginuid=""
if is_root && new_login true 2>/dev/null; then loginuid="session required $SECDIR/pam_loginuid.so"; fi
# service NAME MODULE-ARGS: a stack with pam_env (XDG_RUNTIME_DIR), the module and the probe.
service() {
	printf '%s\n' "$loginuid" "session required $SECDIR/pam_env.so conffile=$svc/env.conf readenv=0" \
		"session required $MOD $2" "session optional $SECDIR/pam_exec.so $svc/probe" > "$svc/$1"
}
pamt() { LD_PRELOAD=$PWRAP PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=$svc pamtester -v "$@"; }

service good debug
: > "$T/probe.out"
out=$(PAM_WRAPPER_DEBUGLEVEL=3 pamt good "$puser" open_session close_session 2>&1); rc=$?
is "open_session and close_session succeed" "$rc" 0
open=$(sed -n 1p "$T/probe.out")
id=$(printf '%s\n' "$open" | sed -n 's/.*SBXSH_SESSION=\([^ ]*\).*/\1/p')
like "open_session exports SBXSH_SESSION (the audit session or a fresh id)" "$id" '^(audit-[0-9]+|pam-[0-9a-f]{16})$'
if [ -n "$loginuid" ]; then
	like "with pam_loginuid first it is the login's audit session" "$id" '^audit-[0-9]+$'
else
	skip "with pam_loginuid first it is the login's audit session" "pam_loginuid needs root"
fi
like "the daemon listens when open_session returns" "$(sed -n 2,9p "$T/probe.out")" '^ctl\.sock$'
is "the module left the caller's uid alone" "$(printf '%s\n' "$open" | sed -n 's/.* id=\([0-9]*\).*/\1/p')" "$(id -u)"
is "the module left the caller's network namespace alone" \
	"$(printf '%s\n' "$open" | sed -n 's/.* net=\([^ ]*\).*/\1/p')" "$(readlink /proc/self/ns/net)"
close=$(grep '^close_session' "$T/probe.out")
like "close_session sees the same SBXSH_SESSION" "$close" "SBXSH_SESSION=$id\$"
check "close_session removed the session directory" test ! -e "$urun/sbxsh/$id"
check "no daemon of that session is left" sh -c "i=0; while pgrep -u $puid -f '[s]bxsh-sessiond --dir $urun/sbxsh/$id ' > /dev/null && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done; [ \$i -lt 100 ]"
like "debug logs what it did" "$out" "user $puser: session $id: daemon pid"

# A daemon started by the module runs as the user, and survives open_session.
service hold ""
: > "$T/probe.out"
# As root the caller is made OOM-exempt first, as sshd's systemd unit makes sshd.
oomx=no
if is_root && sh -c 'echo -500 > /proc/self/oom_score_adj' 2>/dev/null; then
	oomx=yes
	(echo -500 > /proc/self/oom_score_adj && pamt hold "$puser" open_session > /dev/null 2>&1)
else
	pamt hold "$puser" open_session > /dev/null 2>&1
fi
is "open_session alone succeeds" "$?" 0
id=$(sed -n 's/.*SBXSH_SESSION=\([^ ]*\).*/\1/p' "$T/probe.out" | head -n 1)
dpid=$(pgrep -u "$puid" -f "sbxsh-sessiond --dir $urun/sbxsh/$id " | head -n 1)
check "its daemon runs" test -n "$dpid"
is "as the user" "$(ps -o uid= -p "${dpid:-none}" | tr -d ' ')" "$puid"
if [ $oomx = yes ]; then
	is "not OOM-exempt like its caller" "$(cat "/proc/${dpid:-none}/oom_score_adj" 2>/dev/null)" 0
else
	skip "not OOM-exempt like its caller" "oom_score_adj cannot be lowered here (needs root and a writable /proc)"
fi
if [ -n "$dpid" ] && [ "$(id -u)" = "$puid" ]; then
	XDG_RUNTIME_DIR=$urun SBXSH_SESSION=$id "$SBXSH" session stop > /dev/null 2>&1
else
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null
fi
check "stopped, it leaves nothing" sh -c "i=0; while [ -e '$urun/sbxsh/$id' ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done; [ ! -e '$urun/sbxsh/$id' ]"

# Its own errors: logged (pam_wrapper prints syslog lines), the session goes on.
service broken "sbxsh=/nonexistent/sbxsh"
out=$(pamt broken "$puser" open_session close_session 2>&1); rc=$?
is "a daemon that cannot start does not fail the session" "$rc" 0
like "the error names the program and the reason" "$out" "/nonexistent/sbxsh session start failed: cannot run /nonexistent/sbxsh: No such file or directory"
service strict "sbxsh=/nonexistent/sbxsh required"
out=$(pamt strict "$puser" open_session 2>&1); rc=$?
check "with required it fails the session" test "$rc" -ne 0
like "saying why" "$out" "Cannot make/remove an entry for the specified session"
service typo "sbxsh=/nonexistent/sbxsh requried"
out=$(pamt typo "$puser" open_session 2>&1); rc=$?
is "an unknown option does not fail the session" "$rc" 0
like "it is named, with the options there are" "$out" "unknown option 'requried' \\(options: required debug"
service relative "sbxsh=bin/sbxsh"
out=$(pamt relative "$puser" open_session 2>&1)
like "a relative sbxsh= path is refused as an option" "$out" "unknown option 'sbxsh=bin/sbxsh'"

done_testing
