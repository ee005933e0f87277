#!/bin/sh
# 0900-redteam — attacks found by trying to get around the boundary as a patient hostile
# command would (as root and as a normal user). Each has a control showing the allowed thing
# still works.
TMPDIR=/var/tmp; export TMPDIR # HOME and the projects outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
swap=$SBXSH_STAGE/libexec/sbxsh/test/swap-names

# --- a write grant's directory turned into a link to ~ while the next sandbox is built ---
# With write += ~/work/*/build, a command in the project ~/work/a (which it may write) flips
# build and a link to ~ (renameat2 RENAME_EXCHANGE) in a loop. sbxsh checks the glob hit, then
# bwrap binds the path: if the link is there by then, ~ itself is bound writable at
# ~/work/a/build in another command, which writes ~/.bashrc through it.
user_policy '[default]
network = none
write += ~/work/*/build'
mkdir -p "$HOME/work/a/.git" "$HOME/work/a/build"
out=$(cd "$T/proj" && "$SBXSH" -c 'touch ~/work/a/build/ok && echo made' 2>&1)
like "control: write += ~/work/*/build lets another project's command write ~/work/a/build" "$out" '^made$'
check "…and the file lands there" test -f "$HOME/work/a/build/ok"
if [ ! -x "$swap" ]; then
	skip "a write grant flipped to a link to ~ during start-up" "no swap-names helper ($swap)"
else
	cp "$swap" "$HOME/work/a/swap"
	ln -s "$HOME" "$HOME/work/a/lnk"
	(cd "$HOME/work/a" && exec "$SBXSH" -c './swap build lnk 60' > "$T/swap.log" 2>&1) &
	swapper=$!
	sleep 1
	won=0 saw=0 i=0
	while [ $i -lt 150 ] && [ $won = 0 ]; do
		i=$((i + 1))
		out=$(cd "$T/proj" && "$SBXSH" -c '[ -d ~/work/a/build/work ] && echo saw &&
			touch ~/work/a/build/PWNED && echo won' 2>/dev/null)
		case $out in *saw*) saw=$((saw + 1)) ;; esac
		[ -e "$HOME/PWNED" ] && won=$i
	done
	kill "$swapper" 2> /dev/null
	wait "$swapper" 2> /dev/null
	diag "$i runs; $saw saw ~ at ~/work/a/build; swapper: $(head -c 300 "$T/swap.log")"
	check "the link to ~ never becomes a writable mount (no ~/PWNED after $i tries)" test "$won" = 0
	unlike "…and the swapper ran (it exchanged the names without an error)" \
		"$(cat "$T/swap.log")" 'renameat2'
fi

# --- terminal ioctls whose effect outlives the command (beyond TIOCSTI/TIOCSETD) ---
# TIOCEXCL puts the caller's terminal in exclusive mode (every later open of it is EBUSY for
# a user: sudo's, ssh's, pinentry's prompts); TCXONC TCOOFF stops its output (the caller's
# shell hangs on its next write). Both stayed after sbxsh exited. The helper makes a pty of
# its own; outside, the kernel takes both (the control).
try=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall
if [ ! -x "$try" ] || [ "$(uname -m)" != x86_64 ]; then
	skip "terminal ioctls that outlive the command" "no try-syscall helper or not x86_64"
else
	cp "$try" "$T/proj/try"
	cases='x86_64 ioctl pty 0x540C 0
x86_64 ioctl pty 0x10000540C 0
i386 ioctl pty 0x540C 0
x86_64 ioctl pty 0x540A 0
i386 ioctl pty 0x540A 0'
	script='while read -r abi call args; do printf "%s " "$(./try "$abi" "$call" $args 2>&1)"; done'
	ia32=yes
	# without IA32 emulation int 0x80 faults (no answer at all): the i386 cases are left out
	[ "$(cd "$T/proj" && ./try i386 getpid 2>&1)" = ok ] ||
		{ ia32=no; cases=$(printf '%s\n' "$cases" | grep -v '^i386 '); }
	out=$(cd "$T/proj" && printf '%s\n' "$cases" | sh -c "$script")
	if [ $ia32 = yes ]; then
		is "control: TIOCEXCL and TCXONC work on a pty outside" "$out" "ok ok ok ok ok "
	else
		is "control: TIOCEXCL and TCXONC work on a pty outside" "$out" "ok ok ok "
	fi
	for level in off on; do
		user_policy "[sbxsh]
monitor = $level
[default]
network = none"
		out=$(cd "$T/proj" && printf '%s\n' "$cases" | "$SBXSH" -c "$script" 2>&1)
		if [ $ia32 = yes ]; then
			is "monitor $level: TIOCEXCL (64, high bits, i386) and TCXONC (64, i386) are EPERM" \
				"$out" "EPERM EPERM EPERM EPERM EPERM "
		else
			is "monitor $level: TIOCEXCL and TCXONC are EPERM (no IA32 here)" \
				"$out" "EPERM EPERM EPERM "
		fi
	done
	out=$(cd "$T/proj" && "$SBXSH" -c './try x86_64 ioctl pty 0x540D 0' 2>&1)
	is "control: TIOCNXCL (leaving exclusive mode) still works inside" "$out" "ok"
fi

# --- credentials in variables the first default missed ---
# Passwords in URLs and connection strings, *_PASS, *_KEY, bare names, npm's auth variables
# and lower-case spellings all reached the command.
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
vars="DATABASE_URL REDIS_URL AZURE_STORAGE_KEY AZURE_STORAGE_CONNECTION_STRING SECRET_KEY_BASE
DB_PASS SMTP_PASS GOOGLE_CREDENTIALS GITHUB_PAT SLACK_WEBHOOK_URL TOKEN SECRET PASSWORD API_KEY
NPM_CONFIG__AUTH npm_config__authToken gh_token github_token"
shows='for v; do eval "printf \"%s=%s \" \"\$v\" \"\${$v-"-"}\""; done'
# shellcheck disable=SC2086
got=$(env $(for v in $vars; do printf '%s=s3cret ' "$v"; done) "$SBXSH" -c "$shows" sh $vars 2>&1)
for v in $vars; do
	like "$v is removed by the default env_unset" "$got" "(^| )$v=- "
done
got=$(env DATABASE_URL=s3cret PATH="$PATH" "$SBXSH" -c 'echo "$PATH"' 2>&1)
is "control: PATH (…_PAT… inside a name is not *_PAT) still reaches the command" "$got" "$PATH"
user_policy '[default]
network = none
env_keep += DATABASE_URL'
got=$(env DATABASE_URL=s3cret "$SBXSH" -c "$shows" sh DATABASE_URL 2>&1)
is "control: env_keep += DATABASE_URL lets it through" "$got" "DATABASE_URL=s3cret "

# --- the system's secrets under other names: Debian's daily backups of the password files
# (/var/backups/shadow.bak, gshadow.bak, 0600 root) and pam_pwhistory's old hashes, which a
# command run by root read like any file of its own.
out=$("$SBXSH" policy 2>&1)
like "the default deny_read has /var/backups/*shadow*" "$out" '^deny_read = /var/backups/\*shadow\*  # '
like "…and /etc/security/opasswd" "$out" '^deny_read = /etc/security/opasswd  # '
if is_root && [ -f /etc/security/opasswd ]; then
	out=$("$SBXSH" -c 'grep -c " /etc/security/opasswd " /proc/self/mountinfo' 2>/dev/null)
	is "as root, /etc/security/opasswd is masked" "$out" 1
else
	skip "as root, /etc/security/opasswd is masked" "not root, or no such file here"
fi

# --- escape sequences in names printed by sbxsh ---
# A command names a file with ESC [2J (clear screen) and a UTF-8 C1 CSI: the violation line,
# `sbxsh log` and a notice about a planted link printed them raw on the user's terminal.
esc=$(printf '\033')
user_policy '[default]
network = none
on_violation = warn'
out=$(cd "$T/proj" && "$SBXSH" -c 'touch "$(printf "/usr/x\033[2Jy\302\233z")"' 2>&1)
unlike "a violation line carries no raw ESC" "$out" "$esc"
like "…it spells the bytes out" "$out" 'write /usr/x\\x1b\[2Jy\\xc2\\x9bz '
out=$("$SBXSH" log 2>&1)
unlike "sbxsh log carries no raw ESC" "$out" "$esc"
like "…it spells them out too" "$out" '/usr/x\\x1b\[2Jy'
mkdir -p "$HOME/work/b/.git" "$HOME/work/b/x"
ln -s "$HOME" "$HOME/work/b/x/$(printf 'o\033[2Jut')"
user_policy '[default]
network = none
write += ~/work/*/x/o*'
out=$(cd "$T/proj" && "$SBXSH" -c true 2>&1)
like "control: the planted link's notice is printed" "$out" 'leads through the symlink'
unlike "…with no raw ESC" "$out" "$esc"

done_testing
