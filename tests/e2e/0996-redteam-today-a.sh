#!/bin/sh
# 0996-redteam-today-a — the red team of 2026-12-05 against that day's changes (the pty relay
# from the background, the inherited descriptors' allowlist, a script in the host's /tmp, the
# argv memfd, the blocked signals), as root and as a user. Each attack failed on the build
# before its fix:
# - sbxsh on the user's terminal from a session of its own (`setsid sbxsh -c cmd &`, the
#   terminal not its controlling terminal): the relay took "no job control for us" for the
#   foreground and put the user's terminal in raw mode (echo off) under the shell reading it.
# - a file the caller passed for reading (`sbxsh -c cmd < ~/.bashrc`, `3< file`) was
#   rewritten through its /proc/self/fd/N (/dev/stdin, /dev/fd/N): the re-open, truncate,
#   chmod (and fchmod of the descriptor) were judged against the caller's mount, where the
#   file is writable, not the sandbox's read-only view of it.
. "$(dirname "$0")/lib.sh"

redteam_start redteam-today-a "today's changes"

# --- 1. a terminal that is not sbxsh's controlling terminal: its modes are not changed ---
cat > "$H/nocty.py" << 'PY'
import os, pty, signal, subprocess, sys, termios, time, fcntl, select
sbxsh, outf = sys.argv[1], sys.argv[2]
code = 'import os,sys\nd = os.read(0, 100)\nopen(sys.argv[1], "w").write(d.decode().strip())\n'
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.close(m)
    os.setsid(); fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    before = termios.tcgetattr(s)
    # setsid sbxsh -c cmd &: a session of its own, the terminal on 0-2 not its controlling one
    p = subprocess.Popen([sbxsh, "-c", 'exec python3 -c "$0" "$1"', code, outf], stdin=s,
                         stdout=s, stderr=s, start_new_session=True)
    time.sleep(3)
    print("modes", "kept" if termios.tcgetattr(s) == before else "changed", flush=True)
    try:
        r = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL); r = "timeout"
    print("job", r, flush=True)
    os._exit(0)
os.close(s)
time.sleep(5)
os.write(m, b"hello\n")
t = time.time()
while time.time() - t < 30:
    try:
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
        if select.select([m], [], [], 0.2)[0]:
            os.read(m, 4096)
    except OSError:
        time.sleep(0.1)
try:
    print("cmd-read", open(outf).read(), flush=True)
except OSError:
    print("cmd-read", "nothing", flush=True)
PY
out=$(cd "$P" && timeout 90 python3 "$H/nocty.py" "$SBXSH" "$P/nocty" 2>&1)
like "setsid sbxsh on the user's terminal: its modes are left as the shell's" "$out" 'modes kept'
like "control: the command reads the terminal (bash's contract there)" "$out" 'cmd-read hello'
like "… and ends by itself" "$out" 'job 0'

# --- 2. a file passed for reading is not written through its descriptor's magic link ---
f=$H/rcfile
reset_f() { printf 'original\n' > "$f"; chmod 644 "$f"; }
for sp in /proc/self/fd/0 /dev/stdin /dev/fd/0 '/proc/$$/fd/0' /proc/thread-self/fd/0; do
	reset_f
	(cd "$P" && "$SBXSH" -c "echo pwned > $sp" < "$f" > /dev/null 2>&1)
	is "a file on stdin for reading is not rewritten through $sp" "$(cat "$f")" original
done
reset_f
(cd "$P" && "$SBXSH" -c 'echo pwned >> /dev/fd/3' 3< "$f" > /dev/null 2>&1)
is "a file on fd 3 for reading is not appended to through /dev/fd/3" "$(cat "$f")" original
reset_f
(cd "$P" && "$SBXSH" -c 'truncate -s 0 /proc/self/fd/0' < "$f" > /dev/null 2>&1)
is "… nor truncated through /proc/self/fd/0" "$(cat "$f")" original
reset_f
(cd "$P" && "$SBXSH" -c 'chmod 777 /proc/self/fd/0' < "$f" > /dev/null 2>&1)
is "… nor chmod'ed through /proc/self/fd/0" "$(stat -c %a "$f")" 644
reset_f
(cd "$P" && "$SBXSH" -c 'exec python3 -c "import os; os.fchmod(0, 0o777)"' < "$f" > /dev/null 2>&1)
is "… nor fchmod'ed through the descriptor itself" "$(stat -c %a "$f")" 644
reset_f
out=$(cd "$P" && "$SBXSH" -c 'echo pwned > /proc/self/fd/0; echo rc=$?' < "$f" 2>&1)
like "… the write is refused (Read-only file system)" "$out" 'Read-only file system'
# controls: what the caller opened for writing is the command's to write, through any spelling
reset_f
(cd "$P" && "$SBXSH" -c 'echo appended >> /dev/fd/3' 3>> "$f" > /dev/null 2>&1)
is "control: a file on fd 3 opened for appending is appended to through /dev/fd/3" \
	"$(cat "$f")" "original
appended"
reset_f
(cd "$P" && "$SBXSH" -c 'echo via-tee | tee /dev/stderr > /dev/null' 2> "$f")
is "control: tee /dev/stderr writes the caller's stderr file" "$(cat "$f")" via-tee
echo inproj > "$P/own"
is "control: the project's own file, opened for reading, is rewritten through /proc/self/fd/3" \
	"$(cd "$P" && "$SBXSH" -c 'exec 3< own; echo new > /proc/self/fd/3; cat own' 2>&1)" new

done_testing
