#!/bin/sh
# 0191-inherited-dirs — a directory descriptor (or any O_PATH one, or a pty master) the caller leaves open is a
# way past the sandbox's mounts: openat(fd, …) and /proc/self/fd/N/… resolve in the caller's
# mounts, not the sandbox's, so a command read a credential store deny_read hides
# (/proc/self/fd/3/.aws/credentials) and created files where no grant lets it write
# (openat(3, "pwn", O_CREAT)). Such a descriptor from 3 up is closed with a note; on 0-2 sbxsh
# refuses (exit 125, naming the descriptor and the fix). Controls: a file and a pipe on fd 3
# pass as before.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
var_home dirs
mkdir -p "$HOME/.config/sbxsh" "$HOME/.aws" "$H/proj/.git"
chmod 700 "$HOME"
cd "$H/proj" || exit 1
PY=$(command -v python3)
if [ -z "$PY" ]; then
	skip "inherited directory descriptors" "python3 is not installed"
	done_testing; exit
fi
echo AKIA-E2E-SECRET > "$HOME/.aws/credentials"
user_policy '[default]
network = none
on_violation = warn'

# in.py: what a command does with descriptor N: read through it, create through it
cat > "$H/in.py" <<'PYEOF'
import os, sys
n = int(sys.argv[1])
try:
    print("read:", open("/proc/self/fd/%d/.aws/credentials" % n).read().strip())
except Exception as e:
    print("read refused:", type(e).__name__)
try:
    os.close(os.open("pwn", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=n))
    print("created")
except Exception as e:
    print("create refused:", type(e).__name__)
PYEOF
chmod 644 "$H/in.py"
# att.py SBXSH HOME FD KIND: sbxsh -c 'python3 in.py FD' with HOME opened as descriptor FD
# (KIND: dir, opath); prints the command's output, then rc=N and sbxsh's stderr.
cat > "$H/att.py" <<'PYEOF'
import os, subprocess, sys
sbxsh, home, fd, kind, py = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
fl = os.O_RDONLY | os.O_DIRECTORY if kind == "dir" else os.O_PATH
d = os.open(home, fl)
if fd > 2 and d != fd:
    os.dup2(d, fd)
    os.close(d)
    d = fd
os.set_inheritable(d, True)
# 0-2: the child gets it there (subprocess dup2s it), this process keeps its own
p = subprocess.run([sbxsh, "-c", '%s "$0" %d' % (py, fd), os.path.join(os.path.dirname(home), "in.py")],
                   pass_fds=(fd,) if fd > 2 else (), stdin=subprocess.DEVNULL if fd != 0 else d,
                   stdout=subprocess.PIPE if fd != 1 else d, stderr=subprocess.PIPE if fd != 2 else d)
sys.stdout.write((p.stdout or b"").decode())
print("rc=%d" % p.returncode)
sys.stdout.write((p.stderr or b"").decode())
PYEOF

for kind in dir opath; do
	for fd in 3 7; do
		rm -f "$HOME/pwn"
		out=$("$PY" "$H/att.py" "$SBXSH" "$HOME" "$fd" "$kind" "$PY" 2>&1)
		unlike "$kind descriptor on fd $fd: the hidden credential store is not read through it" "$out" 'AKIA-E2E-SECRET'
		check "$kind descriptor on fd $fd: nothing is created through it" [ ! -e "$HOME/pwn" ]
		like "$kind descriptor on fd $fd: a note says it is not passed" "$out" \
			"sbxsh: note: descriptor $fd \(a directory|sbxsh: note: descriptor $fd \(an O_PATH"
		like "$kind descriptor on fd $fd: the command runs" "$out" '^rc=0$'
	done
done
# on 0-2: refused before anything runs
for fd in 0 1; do
	rm -f "$HOME/pwn"
	out=$("$PY" "$H/att.py" "$SBXSH" "$HOME" "$fd" dir "$PY" 2>&1)
	check "directory on fd $fd: nothing is created through it" [ ! -e "$HOME/pwn" ]
	like "directory on fd $fd: refused (125)" "$out" '^rc=125$'
	like "directory on fd $fd: the message names it and the fix" "$out" \
		"sbxsh: descriptor $fd \(a directory[^)]*\) would let a command reach past the sandbox.*give sbxsh a pipe"
done

# A pty's master side (a terminal emulator's or tmux's leaked one): what a command writes there
# is typed into the shell on the slave side, outside the sandbox. Closed from 3 up, refused on
# 0-2, as a directory. (The slave side, a terminal, passes: TIOCSTI is refused by seccomp.)
cat > "$H/ptm.py" <<'PYEOF'
import os, pty, select, subprocess, sys
sbxsh, fd = sys.argv[1], int(sys.argv[2])
m, s = pty.openpty()
os.set_inheritable(m, True)
if fd > 2:
    os.dup2(m, fd)
cmd = "printf 'pwn-typed\\n' >&%d" % fd
p = subprocess.run([sbxsh, "-c", cmd], pass_fds=(fd,) if fd > 2 else (),
                   stdin=subprocess.DEVNULL if fd != 0 else m,
                   stdout=subprocess.PIPE if fd != 1 else m, stderr=subprocess.PIPE)
got = b""
while select.select([s], [], [], 0.5)[0]:
    got += os.read(s, 4096)
print("reached" if b"pwn-typed" in got else "blocked")
print("rc=%d" % p.returncode)
sys.stdout.write((p.stderr or b"").decode())
PYEOF
for fd in 3 0 1; do
	out=$("$PY" "$H/ptm.py" "$SBXSH" "$fd" 2>&1)
	like "a pty master on fd $fd: nothing is typed into its terminal" "$out" '^blocked$'
	if [ "$fd" = 3 ]; then
		like "a pty master on fd 3: a note says it is not passed" "$out" \
			'sbxsh: note: descriptor 3 \(a pty master[^)]*\) not passed into the sandbox'
	else
		like "a pty master on fd $fd: refused (125)" "$out" '^rc=125$'
	fi
done

# controls: a file and a pipe on fd 3 pass
echo data > "$H/f"
is "control: a file on fd 3 is read" "$("$SBXSH" -c 'cat <&3' 3< "$H/f" 2>&1)" "data"
is "control: a pipe on fd 3 is read" "$(echo piped | "$SBXSH" -c 'cat <&3' 3<&0 2>&1)" "piped"

done_testing
