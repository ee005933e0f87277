#!/bin/sh
# 0990-boundary-redteam-s13 — the session-13 red team against the boundary, with the shipped
# policy, as root and as a user. Each attack below failed on the build before:
# - descriptors a caller leaves open past the ones earlier red teams closed (sockets,
#   directories, O_PATH, pty masters): a /proc/PID/mem descriptor (a command wrote into a host
#   process's memory: the caller's own), a pidfd, a tun or fuse device, the kernel log, a
#   namespace file, an inotify or other kernel object, a file of sysfs, cgroupfs or procfs all
#   reached the command. Now only what bash's contract needs passes (pipes, files of real
#   file systems, terminals, /dev/null and its kin, eventfd, timerfd, signalfd, epoll, memfd).
# - under a common grant, `write += ~/.local`, what the host runs through the held ~/.local/bin
#   was writable: pipx's and uv's tool environments (~/.local/bin/black is a link into
#   ~/.local/share/pipx/venvs/black; its package ran at the host's next `black`), uv's
#   Python installs, and other places a host program runs code from at its next start or a
#   click: Konsole's profiles (Command=), zsh plugin managers' (sheldon, zap) and tmux's
#   plugins, file managers' scripts and service menus, Cinnamon's extensions, flatpak's user
#   installations and exports (on PATH and XDG_DATA_DIRS).
# - credentials in the environment the defaults let through: sshpass's SSHPASS, a webhook URL
#   (the URL is the credential: whoever has it posts as its owner) under a name without
#   _URL (TEAMS_WEBHOOK) or any name at all (NOTIFY=https://hooks.slack.com/services/…), and
#   OpenTelemetry's exporter headers (x-honeycomb-team=KEY, api-key=KEY).
# - credential files the default deny_read missed: DBeaver's saved passwords, Claude
#   Desktop's and VS Code's MCP settings (API keys in a server's env), aichat's, mods',
#   ShellGPT's, gptme's and Crush's API keys, Codeium's, cqlsh's credentials, now's token;
#   git's credential cache daemon, whose socket answered a command granted unix_sockets = all
#   every cached password (as the hidden ~/.git-credentials would).
# - sbxsh's own violation log was readable by the first commands of a new home (and by any
#   command started before the log existed): it is hidden only when it exists at the start,
#   and sbxsh made it during the command, which then read every record written while it ran
#   (other commands' command lines too).
# - a background `sbxsh -c cmd &` on the user's terminal read what the user typed at the shell
#   (the command held the real terminal in a session of its own, beyond job control).
. "$(dirname "$0")/lib.sh"

redteam_start redteam13 "the boundary" # HOME and the project under /var/tmp

# --- 1. descriptors a caller leaves open: kernel objects, devices, pseudo files ---
cat > "$H/fds.py" << 'PY'
import ctypes, os, subprocess, sys
sbxsh = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(b"clean-memory")
kept = []
def fd(name, opener):
    try:
        n = opener()
    except OSError:
        return
    if n >= 0:
        kept.append((name, n))
sl = subprocess.Popen(["sleep", "30"])
fd("procmem", lambda: os.open("/proc/self/mem", os.O_RDWR))
fd("pidfd", lambda: os.pidfd_open(sl.pid))
fd("tun", lambda: os.open("/dev/net/tun", os.O_RDWR))
fd("fuse", lambda: os.open("/dev/fuse", os.O_RDWR))
fd("kmsg", lambda: os.open("/dev/kmsg", os.O_RDONLY))
fd("nsfs", lambda: os.open("/proc/self/ns/net", os.O_RDONLY))
fd("sysfs", lambda: os.open("/sys/kernel/uevent_seqnum", os.O_RDONLY))
for c in ("cgroup.controllers", "cpu/cgroup.procs", "memory/cgroup.procs", "pids/cgroup.procs"):
    if os.path.exists("/sys/fs/cgroup/" + c):
        fd("cgroup", lambda: os.open("/sys/fs/cgroup/" + c, os.O_RDONLY))
        break
fd("procfile", lambda: os.open("/proc/self/environ", os.O_RDONLY))
fd("inotify", lambda: libc.inotify_init())
fd("eventfd", lambda: os.eventfd(0))
fd("memfd", lambda: os.memfd_create("data"))
fd("devnull", lambda: os.open("/dev/null", os.O_WRONLY))
fd("file", lambda: os.open(sys.argv[2], os.O_RDONLY))
r, w = os.pipe()
os.write(w, b"x"); os.close(w)
kept.append(("pipe", r))
for _, n in kept:
    os.set_inheritable(n, True)
code = r'''
import os, sys
for a in sys.argv[2:]:
    name, n = a.split("=")
    print("%s %s" % (name, "open" if os.path.exists("/proc/self/fd/" + n) else "closed"))
try:
    os.pwrite(int(sys.argv[1]), b"owned-by-cmd", ADDR)
except OSError as e:
    print("mem-write", e.strerror)
'''.replace("ADDR", str(ctypes.addressof(buf)))
mem = dict(kept).get("procmem", -1)
p = subprocess.run([sbxsh, "-c", 'exec python3 -c "$0" "$@"', code, str(mem)] +
                   ["%s=%d" % kv for kv in kept], pass_fds=[n for _, n in kept],
                   capture_output=True, text=True)
sl.kill()
sys.stdout.write(p.stdout)
print("memory:", buf.value.decode())
sys.stderr.write(p.stderr)
PY
echo data > "$P/f"
out=$(python3 "$H/fds.py" "$SBXSH" "$P/f" 2> "$H/err")
err=$(cat "$H/err")
state() { printf '%s\n' "$out" | sed -n "s/^$1 //p"; }
is "the caller's /proc/self/mem descriptor does not reach the command" "$(state procmem)" closed
is "…so the command cannot write into the caller's memory" "$(state memory:)" clean-memory
is "a pidfd of a host process is closed inside" "$(state pidfd)" closed
for k in tun fuse kmsg; do
	case $(state $k) in
	"") skip "a $k device descriptor is closed inside" "/dev/$k cannot be opened here" ;;
	*) is "a $k device descriptor is closed inside" "$(state $k)" closed ;;
	esac
done
is "a namespace file (/proc/self/ns/net) is closed inside" "$(state nsfs)" closed
is "a sysfs file is closed inside" "$(state sysfs)" closed
case $(state cgroup) in
"") skip "a cgroupfs file is closed inside" "no cgroup file at /sys/fs/cgroup" ;;
*) is "a cgroupfs file is closed inside" "$(state cgroup)" closed ;;
esac
is "a procfs file (the caller's live environment) is closed inside" "$(state procfile)" closed
is "an inotify descriptor (the caller's watches) is closed inside" "$(state inotify)" closed
is "an eventfd passes (a counter shared with its holder, as a pipe)" "$(state eventfd)" open
is "a memfd passes (a file)" "$(state memfd)" open
is "/dev/null passes" "$(state devnull)" open
is "a file passes" "$(state file)" open
is "a pipe passes" "$(state pipe)" open
if [ -n "$(state tun)$(state fuse)$(state kmsg)" ]; then
	like "a note names a dropped device and why" "$err" \
		'^sbxsh: note: descriptor [0-9]+ \(a device, /dev/(net/tun|fuse|kmsg)\) not passed into the sandbox: '
else
	skip "a note names a dropped device and why" "no device could be opened here"
fi
like "…and a dropped kernel object" "$err" \
	'^sbxsh: note: descriptor [0-9]+ \(.*pidfd.*\) not passed into the sandbox'
unlike "…and none for what passes" "$err" 'memfd|eventfd|/dev/null|pipe:'

# --- 2. write += ~/.local: what the host runs from below it, through ~/.local/bin or at start ---
user_policy '[default]
network = none
write += ~/.local'
HELD="share/pipx/venvs/black/lib/python3.12/site-packages/black/__init__.py
pipx/venvs/black/bin/black share/uv/tools/ruff/bin/ruff share/uv/python/cpython-3.12/bin/python3
share/konsole/Shell.profile share/sheldon/repos/p/p.plugin.zsh share/zap/plugins/p/p.zsh
share/tmux/plugins/tpm/tpm share/nautilus/scripts/s share/nemo/actions/a.nemo_action
share/kio/servicemenus/m.desktop share/kservices5/ServiceMenus/m.desktop
share/cinnamon/extensions/e/extension.js share/flatpak/exports/bin/app"
script=
for f in $HELD; do
	mkdir -p "$(dirname "$HOME/.local/$f")"
	echo host > "$HOME/.local/$f"
	script="$script echo planted > ~/.local/$f;"
done
mkdir -p "$HOME/.local/share/other"
run "$script echo ok > ~/.local/share/other/x"
changed=
for f in $HELD; do [ "$(cat "$HOME/.local/$f")" = host ] || changed="$changed ~/.local/$f"; done
is "nothing the host runs from below ~/.local is written under write += ~/.local" "$changed" ""
present "… control: another directory of ~/.local/share is written" "$HOME/.local/share/other/x"
run 'mkdir -p ~/.local/share/pipx/venvs/new/bin'
absent "… nor a new tool environment made" "$HOME/.local/share/pipx/venvs/new"
like "… the refusal names the rule" "$err" 'mandatory deny \((~/\.local/share/pipx|\$XDG_DATA_HOME)'

# --- 3. credentials in the environment ---
user_policy '[default]
network = none'
envcases='SSHPASS=s3cr3t-pw
TEAMS_WEBHOOK=https://example.webhook.office.com/webhookb2/0123-4567@89ab/IncomingWebhook/cdef0123/4567
WEBHOOK=https://example.com/hook/s3cr3t
ALERT_WEBHOOK_TOKENLESS=https://example.com/hook/s3cr3t
NOTIFY=https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx
CHAT=https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123
ALERTS=https://outlook.office.com/webhook/0123-4567@89ab/IncomingWebhook/cdef/0123
GCHAT=https://chat.googleapis.com/v1/spaces/AAAA/messages?key=AIzaS&token=abcdefghijklmnop
BOT=https://api.telegram.org/bot123456789:ABCdefGHIjklMNOpqrSTUvwxYZ/sendMessage
OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=abcdef0123456789
OTEL_EXPORTER_OTLP_TRACES_HEADERS=api-key=abcdef0123456789'
keepcases='SLACK_CHANNEL=#builds
HOOKS_DIR=.githooks
DOCS_URL=https://discord.com/developers/docs
OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318'
env_cases "each credential above is removed from the command's environment" \
	"… while ordinary variables of the same kinds stay"

# --- 4. credential files the default deny_read missed (made under the test HOME) ---
STORES=".local/share/DBeaverData/workspace6/General/.dbeaver/credentials-config.json
.dbeaver4/General/.dbeaver/credentials-config.json .config/Claude/claude_desktop_config.json
.config/Code/User/mcp.json .config/aichat/config.yaml .config/mods/mods.yml
.config/shell_gpt/.sgptrc .config/gptme/config.toml .config/crush/crush.json
.local/share/crush/crush.json .codeium/config.json .cassandra/credentials .cassandra/cqlshrc
.now/auth.json"
for f in $STORES; do
	mkdir -p "$(dirname "$HOME/$f")"
	echo s3cr3t-store > "$HOME/$f"
done
mkdir -p "$HOME/.config/aichat/roles"
echo role > "$HOME/.config/aichat/roles/r.md"
script=
for f in $STORES; do script="$script cat ~/$f;"; done
run "$script cat ~/.config/aichat/roles/r.md"
is "none of these stores is readable inside" "$(printf '%s\n' "$out" | grep -c s3cr3t-store)" 0
like "… control: what sits beside them is" "$out" '^role$'

# git's credential cache: a listening socket, reached with unix_sockets = all
user_policy '[default]
network = none
unix_sockets = all'
sockdir=$HOME/.cache/git/credential
mkdir -p "$sockdir"
chmod 700 "$sockdir"
python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
s.settimeout(20)
try:
    c, _ = s.accept(); c.sendall(b"password=s3cr3t-cached\n"); c.close()
except OSError:
    pass
' "$sockdir/socket" &
cache_pid=$!
i=0
while [ ! -S "$sockdir/socket" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
run 'python3 -c "
import os, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(os.path.expanduser(\"~/.cache/git/credential/socket\")); print(s.recv(100).decode())
except OSError as e:
    print(\"refused\", e.strerror)
"'
kill "$cache_pid" 2> /dev/null
wait "$cache_pid" 2> /dev/null
unlike "git's credential cache socket does not answer a command (unix_sockets = all)" "$out" s3cr3t-cached
user_policy '[default]
network = none'

# --- 5. the violation log of a new home: hidden from the first command too ---
fresh=$H/fresh
mkdir -p "$fresh/.config/sbxsh"
printf '[default]\nnetwork = none\non_violation = warn\n' > "$fresh/.config/sbxsh/sbxsh.ini"
out=$(cd "$P" && HOME=$fresh XDG_CONFIG_HOME=$fresh/.config "$SBXSH" -c \
	'cat ~/.ssh/id_x 2> /dev/null; echo > ~/outside-x 2> /dev/null; sleep 1
	cat ~/.local/state/sbxsh/violations.jsonl 2>&1' 2> /dev/null)
present "control: the command's refusal was logged on the host" "$fresh/.local/state/sbxsh/violations.jsonl"
unlike "… and the command could not read the log" "$out" 'outside-x'

# --- 6. a background sbxsh -c on the user's terminal: what the user types is not its ---
# A shell's `cmd &`: the job in a process group of its own, the shell the terminal's foreground.
# Before, sbxsh gave the command the real terminal in a session of its own (no job control
# there) and the command read what the user typed at the shell ("hunter2"); bash stops such a
# job (SIGTTIN). Now the relay stands between them from the background too: it neither reads
# the terminal nor changes its modes until `fg`, which gives the command the terminal.
cat > "$H/bg.py" << 'PY'
import os, pty, signal, subprocess, sys, termios, time, fcntl
sbxsh, outf = sys.argv[1], sys.argv[2]
code = 'import os,sys\nd = os.read(0, 100)\nopen(sys.argv[1], "w").write(d.decode().strip())\n'
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.close(m)
    os.setsid(); fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    before = termios.tcgetattr(s)
    p = subprocess.Popen([sbxsh, "-c", 'exec python3 -c "$0" "$1"', code, outf], stdin=s,
                         stdout=s, stderr=s, preexec_fn=lambda: os.setpgid(0, 0))
    os.tcsetpgrp(s, os.getpgrp())  # the shell is the foreground, the job in the background
    time.sleep(3)
    print("modes", "kept" if termios.tcgetattr(s) == before else "changed", flush=True)
    os.write(1, b"")
    time.sleep(2)  # the user types at the shell (the parent writes "hunter2")
    import select
    line = os.read(s, 100).decode().strip() if select.select([s], [], [], 3)[0] else 'nothing'
    print("shell-got", line, flush=True)
    os.tcsetpgrp(s, p.pid); os.killpg(p.pid, signal.SIGCONT)  # fg
    time.sleep(3)
    os.tcsetpgrp(s, os.getpgrp())
    try:
        r = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL); r = "timeout"
    print("job", r, flush=True)
    os._exit(0)
os.close(s)
time.sleep(4)
os.write(m, b"hunter2\n")
time.sleep(3)
os.write(m, b"hello\n")  # after fg: the job's
t = time.time()
while time.time() - t < 30:
    try:
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
        os.read(m, 4096)
    except OSError:
        time.sleep(0.1)
try:
    print("cmd-read", open(outf).read(), flush=True)
except OSError:
    print("cmd-read", "nothing", flush=True)
PY
out=$(cd "$P" && timeout 90 python3 "$H/bg.py" "$SBXSH" "$P/bgread" 2>&1)
like "background job: the terminal's modes are left as the shell's" "$out" 'modes kept'
like "background job: the shell reads what the user typed at it" "$out" 'shell-got hunter2'
unlike "background job: the command does not read what the user typed at the shell" "$out" 'cmd-read hunter2'
like "after fg, the command reads the terminal" "$out" 'cmd-read hello'
like "… and the job ends by itself" "$out" 'job 0'

done_testing
