#!/bin/sh
# 0985-boundary-redteam-s12 — the session-12 red team against the boundary, with the shipped
# policy, as root and as a user. Each attack below failed on the build before:
# - a refused write's suggestion named a place the host runs code from (`write += /etc/cron.d`
#   as root, `write += ~/bin`, a directory of $PATH): one line pasted from the hint handed the
#   sandbox the host's next command. Now no grant is suggested there, and the hint says why.
# - a deny_read entry the caller's environment names ($HISTFILE, $GNUPGHOME…) broke or
#   weakened the sandbox when it named the sandbox itself: HISTFILE=/dev/fd/1 (or
#   /proc/self/fd/1, /dev/fd, /proc/self) stopped bwrap, /proc and /dev the stage, /dev/shm
#   made the sandbox's /dev/shm read-only, /usr hid the inner shell, the home hid the project.
# - credential files the default deny_read missed: Modal, RunPod, Twilio CLI, IBM Cloud and
#   Tencent Cloud CLIs, mount.cifs credential files, ClickHouse's client, MongoDB Atlas CLI,
#   Fastly, a GitLab runner's and a Buildkite agent's tokens, Syncthing's keys, Borg's key
#   files, Chef, Puppet's token, Amp's API key.
# - a host FIFO outside every write grant was opened for writing and written (a read-only
#   mount does not stop a FIFO's writes; the guard opened it): a command talked to whatever
#   host process reads it (systemd's initctl FIFO as root, a debugger's vgdb pipe, a media
#   player's command FIFO) as it may not through a unix socket.
# - a lease (fcntl F_SETLEASE) on a host file the user owns: while the command ignores SIGIO,
#   a host program opening that file for writing waits up to lease-break-time (45 s), and
#   the command learns when the host opens it.
. "$(dirname "$0")/lib.sh"

redteam_start redteam12 "the boundary" # HOME and the project under /var/tmp

# --- 1. suggestions: never a grant of a place the host runs code from ---
hint() { printf '%s\n' "$err" | grep 'sbxsh:   write' | head -n 1; }
run 'echo x > ~/work/out.txt'
like "control: a write outside the grants suggests its grant" "$(hint)" 'write \+= ~/work$'
mkdir -p "$HOME/work"
run 'echo x > ~/bin/tool'
unlike "~/bin: no grant suggested" "$(hint)" 'write \+= ~/bin'
like "~/bin: the hint says why" "$(hint)" 'no grant suggested: ~/bin: the home.s programs'
mkdir -p "$HOME/tools/cmds" "$H/srv/cmds"
out=$(PATH="$HOME/tools/cmds:$H/srv/cmds:$PATH" "$SBXSH" -c 'echo x > ~/tools/cmds/ls' 2> "$H/err")
err=$(cat "$H/err")
unlike "a directory of \$PATH in the home (~/tools/cmds): no grant suggested" "$(hint)" 'write \+= ~/tools/cmds'
out=$(PATH="$HOME/tools/cmds:$H/srv/cmds:$PATH" "$SBXSH" -c "echo x > '$H/srv/cmds/ls'" 2> "$H/err")
err=$(cat "$H/err")
unlike "a directory of \$PATH elsewhere: no grant suggested" "$(hint)" 'write \+= .*/srv/cmds'
like "… and the hint says it is on \$PATH" "$(hint)" 'no grant suggested: .*/srv/cmds: a directory on \$PATH'
mkdir -p "$H/srv/app/bin"
run "echo x > '$H/srv/app/bin/tool'"
unlike "a directory named bin elsewhere: no grant suggested" "$(hint)" 'write \+= .*/bin$'
if is_root; then
	run 'echo "* * * * * root id" > /etc/cron.d/sbxsh-test-x'
	absent "root: /etc/cron.d is not written" /etc/cron.d/sbxsh-test-x
	unlike "root: /etc/cron.d: no grant suggested" "$(hint)" 'write \+= /etc'
	like "root: the hint says why" "$(hint)" 'no grant suggested: /etc: the system.s configuration'
	run 'echo x > /usr/local/lib/sbxsh-test-x'
	unlike "root: /usr/local/lib: no grant suggested" "$(hint)" 'write \+= /usr'
	run 'echo x > /var/spool/cron/sbxsh-test-x'
	unlike "root: /var/spool/cron: no grant suggested" "$(hint)" 'write \+= /var/spool/cron'
	run 'echo x > /var/sbxsh-test-x'
	unlike "root: /var (which holds /var/spool/cron): no grant of /var" "$(hint)" 'write \+= /var$'
fi

# --- 2. a caller's environment never breaks or weakens the sandbox ---
echo project > "$P/f"
for h in /dev/fd/1 /dev/fd/2 /proc/self/fd/1 /dev/stdout /dev/fd /proc/self /proc /dev /sys /usr \
	/usr/bin / /tmp /dev/pts "$HOME" "$P"; do
	out=$(HISTFILE=$h "$SBXSH" -c 'echo ran; ls /usr/bin/env; cat '"'$P/f'" 2> "$H/err" < /dev/null)
	is "HISTFILE=$h: the sandbox is built and the command runs" "$(printf '%s\n' "$out" | tr '\n' ' ')" \
		"ran /usr/bin/env project "
done
for v in HISTFILE GNUPGHOME XAUTHORITY; do
	out=$(env "$v=/dev/shm" "$SBXSH" -c 'echo w > /dev/shm/x && cat /dev/shm/x' 2> "$H/err")
	is "$v=/dev/shm: the sandbox's /dev/shm stays writable" "$out" w
	out=$(env "$v=/tmp" "$SBXSH" -c 'echo w > /tmp/x && cat /tmp/x' 2> "$H/err")
	is "$v=/tmp: the sandbox's /tmp stays writable" "$out" w
done
# …while what a variable names on the host is still hidden: a file, and a directory of its own
mkdir -p "$H/gpg" && echo secret-key > "$H/gpg/key" && echo secret-hist > "$H/hist"
chmod 755 "$H/gpg"
out=$(GNUPGHOME="$H/gpg" HISTFILE="$H/hist" "$SBXSH" -c "cat '$H/gpg/key' '$H/hist' 2>/dev/null; echo end" 2> "$H/err")
is "control: \$GNUPGHOME's directory and \$HISTFILE's file stay hidden" "$out" end

# --- 3. credential files the default deny_read missed ---
creds=".modal.toml .runpod/config.toml .twilio-cli/config.json .bluemix/config.json
.tccli/default.credential .smbcredentials .cifs-credentials .clickhouse-client/config.xml
.config/clickhouse-client/config.xml .config/atlascli/config.toml .config/mongocli/config.toml
.config/fastly/config.toml .gitlab-runner/config.toml .buildkite-agent/buildkite-agent.cfg
.config/syncthing/key.pem .config/syncthing/config.xml .local/state/syncthing/key.pem
.config/borg/keys/repo_key .chef/credentials .chef/client.pem .puppetlabs/token
.local/share/amp/secrets.json"
for f in $creds; do
	mkdir -p "$(dirname "$HOME/$f")" && echo "secret-of-$f" > "$HOME/$f"
done
mkdir -p "$HOME/.config/goose" && echo goose-config > "$HOME/.config/goose/config.yaml"
got=$("$SBXSH" -c 'for f in "$@"; do cat ~/"$f" 2>/dev/null; done; cat ~/.config/goose/config.yaml; echo end' sh $creds 2> /dev/null)
like "control: the command ran, and Goose's config (no secret) stays readable" "$got" '^goose-config$'
for f in $creds; do
	unlike "~/$f is hidden" "$got" "^secret-of-$f\$"
done

# --- 4. a host FIFO outside the write grants is not written ---
mkdir -p "$H/fifo" && mkfifo -m 666 "$H/fifo/f" "$P/own" && chmod 755 "$H/fifo"
timeout 20 cat "$H/fifo/f" > "$H/fifo.out" 2>&1 &
reader=$!
run "echo INJECTED > '$H/fifo/f'; echo rc=\$?"
like "a FIFO on a read-only mount: the write open fails" "$out" '^rc=[1-9]'
like "… reported as a write violation" "$err" "write .*/fifo/f"
cat > "$H/reopen.py" << 'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
try:
    w = os.open("/proc/self/fd/%d" % fd, os.O_WRONLY)
    os.write(w, b"INJECTED2\n")
    print("reopened")
except OSError as e:
    print("refused", e.strerror)
EOF
run "python3 '$H/reopen.py' '$H/fifo/f'"
like "… nor through a descriptor of it re-opened for writing (/proc/self/fd/N)" "$out" '^refused'
timeout 5 sh -c "echo end > '$H/fifo/f'" 2> /dev/null
wait "$reader"
is "the host's reader got nothing from the sandbox" "$(cat "$H/fifo.out")" end
timeout 20 cat "$P/own" > "$H/own.out" 2>&1 &
reader=$!
run "echo mine > '$P/own'; echo rc=\$?"
like "control: a FIFO in the project (a write grant) is written" "$out" '^rc=0$'
wait "$reader"
is "… and its reader got it" "$(cat "$H/own.out")" mine

# --- 5. no lease on a host file ---
echo data > "$H/leased"
cat > "$H/lease.py" << 'EOF'
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    print("leased")
except OSError as e:
    print("refused", e.strerror)
EOF
like "control: the user may take a lease on its own file outside sbxsh" "$(python3 "$H/lease.py" "$H/leased")" '^leased$'
run "python3 '$H/lease.py' '$H/leased'"
like "a lease on a host file is refused" "$out" '^refused Operation not permitted$'

# --- 6. a write below a deny_read inside a write grant: the hint names the deny_read ---
mkdir -p "$P/sdir"
echo secret > "$P/sdir/key"
user_policy "[default]
network = none
[dir $P]
deny_read += ./sdir"
run 'cat sdir/key; echo x > sdir/k'
unlike "control: the deny_read hides sdir" "$out" secret
absent "… and the write below it does not land" "$P/sdir/k"
unlike "a write below a deny_read is not taken for a grant that matched nothing" "$err" 'matched nothing'
like "… the hint names the deny_read and its line" "$err" 'write .*sdir/k .*hidden by deny_read .*sdir \(~/.config/sbxsh/sbxsh.ini:4\): nothing is written where it hides; to allow it, remove it there: deny_read -= '

done_testing
