#!/bin/sh
# 0506-terminal — the sandbox's terminal behind the pty relay.
# 1. `/dev/tty` inside the sandbox is the command's own controlling terminal.
# Behind the pty relay (a terminal on sbxsh's stdio) the command's terminal is a pty of the
# sandbox's own devpts; a write open of /dev/tty is the guard's, made from the front end,
# where the name means the front end's terminal. It must give the command its own terminal:
# - programs that open /dev/tty for reading and writing (ssh's and git's prompts, Python's
#   getpass, `exec 3<>/dev/tty`) got ENXIO whenever the caller's terminal and the sandbox's
#   had different numbers (the caller on /dev/pts/8);
# - and the caller's REAL terminal, past the relay, when both were /dev/pts/0 (the first ssh
#   login's): a device number does not say which devpts a pty belongs to.
# Without a terminal, /dev/tty is ENXIO, as for any process with no controlling terminal.
# 2. The caller's terminal goes away (the ssh connection drops, the terminal window is
#    closed: its pty's master is closed) while a foreground job runs: the session ends as
#    bash's would, the job with it. The relay closes the sandbox's pty then, whose hang-up the
#    kernel signals to the session's leader alone — the stage, which let it drop ("the group
#    has it already"): sbxsh, the shell and the job stayed forever.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
PY=$(command -v python3)
if [ -z "$PY" ]; then
	skip "/dev/tty behind the relay" "python3 is not installed"
	done_testing; exit
fi

# The command's terminal, and the file /dev/tty gave it: the same device of the same devpts
# (stat -L follows the descriptors' links to the inodes).
same='exec 3<>/dev/tty || exit 7
echo via-tty >&3
a=$(stat -L -c %d.%t.%T /proc/self/fd/3) b=$(stat -L -c %d.%t.%T /proc/self/fd/0)
[ "$a" = "$b" ] && echo SAME || echo "DIFFERENT $a $b"'

out=$("$PY" "$E2E/pty_run.py" "$SBXSH" -c "$same" 2>&1)
like "behind the relay, /dev/tty opens for reading and writing" "$out" '^via-tty$'
like "and it is the command's own terminal" "$out" '^SAME$'
like "the command exits 0" "$out" '^status=0$'

out=$("$PY" "$E2E/pty_run.py" "$SBXSH" -c 'python3 -c "
import os
fd = os.open(\"/dev/tty\", os.O_RDWR | os.O_NOCTTY)
os.write(fd, b\"getpass-style\n\")
print(os.ttyname(fd) == os.ttyname(0))"' 2>&1)
like "an O_RDWR|O_NOCTTY open (getpass, ssh, git) writes to the terminal" "$out" '^getpass-style$'
like "and names the command's own pty" "$out" '^True$'

# Another spelling of /dev/tty, a link to it, a directory descriptor, the re-open of a
# read-only /dev/tty descriptor through /proc/self/fd: each names the device 5,0, which means
# the opener's terminal; a write open the guard made from the front end by that device was
# the caller's real terminal past the relay (TIOCGPGRP answers only for one's own terminal).
cat > "$T/ttyspell.py" <<'PYEOF'
import fcntl, os, termios
ln = os.path.join(os.getcwd(), "ttylink")
os.symlink("/dev/tty", ln)
d = os.open("/dev", os.O_RDONLY | os.O_DIRECTORY)
ro = os.open("/dev/tty", os.O_RDONLY)
for name, path, dfd in (("slash", "/dev//tty", None), ("dot", "/dev/./tty", None),
                        ("dotdot", "/dev/../dev/tty", None), ("link", ln, None),
                        ("dirfd", "tty", d), ("reopen", "/proc/self/fd/%d" % ro, None)):
    try:
        fd = os.open(path, os.O_RDWR, dir_fd=dfd)
    except OSError as e:
        print(name, "refused", e.errno)
        continue
    try:
        fcntl.ioctl(fd, termios.TIOCGPGRP, b"\0" * 4)
        print(name, "OWN")
    except OSError:
        print(name, "OTHER")
os.unlink(ln)
PYEOF
out=$("$PY" "$E2E/pty_run.py" "$SBXSH" -c "python3 $T/ttyspell.py" 2>&1)
for s in slash dot dotdot link dirfd reopen; do
	like "/dev/tty as $s: the command's own terminal" "$out" "^$s OWN\$"
done

out=$("$SBXSH" -c 'exec 3<>/dev/tty; echo rc=$?' < /dev/null 2>&1)
like "without a terminal, /dev/tty is ENXIO" "$out" 'No such device or address'

# The caller on /dev/pts/0 of a devpts of its own (root: a mount namespace with a new devpts
# instance), the sandbox's pty /dev/pts/0 of another: same device number, two terminals.
if is_root && command -v unshare > /dev/null; then
	cat > "$T/coll.sh" <<EOF
mount -t devpts -o newinstance,ptmxmode=666,mode=620 devpts /dev/pts || exit 9
mount --bind /dev/pts/ptmx /dev/ptmx || exit 9
exec "$PY" "$E2E/pty_run.py" /bin/sh -c 'tty; exec "\$0" -c "\$1"' "$SBXSH" "\$1"
EOF
	out=$(unshare -m --propagation private /bin/sh "$T/coll.sh" "$same" 2>&1)
	if printf '%s\n' "$out" | grep -qx '/dev/pts/0'; then
		like "the caller on /dev/pts/0: the command's /dev/tty is its own pty" "$out" '^SAME$'
		unlike "and never the caller's real terminal" "$out" '^DIFFERENT'
	else
		skip "the caller on /dev/pts/0" "no devpts of our own: $(printf '%s' "$out" | head -c 200)"
		skip "and never the caller's real terminal" "as above"
	fi
else
	skip "the caller on /dev/pts/0: the command's /dev/tty is its own pty" "root only (a devpts of its own)"
	skip "and never the caller's real terminal" "root only"
fi

# hup.py ARGV…: runs ARGV on a new pty, waits for `ready` in its output (the prompt's marker,
# or the command's echo), sleeps a second, closes the master; then prints "ended" when ARGV
# exits within 15 s (else "running"), and "job gone" when no `sleep $K` is left (else "job left").
K=$((47000 + $$ % 1000))
cat > "$T/hup.py" <<'PYEOF'
import os, pty, select, signal, sys, time
k, ready, argv = sys.argv[1], sys.argv[2].encode(), sys.argv[3:]
pid, m = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
out, end = b"", time.time() + 20
while ready not in out and time.time() < end:
    if select.select([m], [], [], 0.2)[0]:
        try:
            out += os.read(m, 4096)
        except OSError:
            break
if argv[1:2] == ["-i"]:
    os.write(m, b"sleep %s\r" % k.encode())
time.sleep(1)
os.close(m)
def job():
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and open("/proc/%s/cmdline" % p, "rb").read() == b"sleep\0%s\0" % k.encode():
                return int(p)
        except OSError:
            pass
end = time.time() + 15
alive = True
while alive and time.time() < end:
    alive = os.waitpid(pid, os.WNOHANG)[0] == 0
    time.sleep(0.1)
print("running" if alive else "ended")
while time.time() < end and job():
    time.sleep(0.1)
j = job()
print("job left" if j else "job gone")
if alive:
    os.kill(pid, signal.SIGKILL)
if j:
    os.kill(j, signal.SIGKILL)
PYEOF
out=$("$PY" "$T/hup.py" "$K" '[sbxsh:' "$SBXSH" -i 2>&1)
like "the terminal goes away during a foreground job: the interactive session ends" "$out" '^ended$'
like "…and the job with it" "$out" '^job gone$'
out=$("$PY" "$T/hup.py" "$K" 'started' "$SBXSH" -c "echo started; sleep $K" 2>&1)
like "the terminal goes away during sbxsh -c: it ends" "$out" '^ended$'
like "…and its command with it" "$out" '^job gone$'
done_testing
