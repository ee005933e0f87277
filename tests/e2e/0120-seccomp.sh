#!/bin/sh
# 0120-seccomp — the stage's filter and privilege drop: AF_UNIX, TIOCSTI (masked compare),
# user namespaces, mounts, capabilities, setuid programs.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
sb() { "$SBXSH" "$@"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

unix='import socket
try:
    socket.socket(socket.AF_UNIX); print("allowed")
except OSError as e:
    print("errno", e.errno)'
is "control: AF_UNIX sockets work outside" "$("$PY" -c "$unix")" "allowed"
is "socket(AF_UNIX) fails with EPERM" "$(sb -c '"$0" -c "$1"' "$PY" "$unix" 2>/dev/null)" "errno 1"
is "socket(AF_INET) still works (loopback only)" \
	"$(sb -c '"$0" -c "import socket; socket.socket(); print(1)"' "$PY" 2>/dev/null)" "1"
user_policy '[sbxsh]
monitor = off
[default]
network = none'
is "…also with the monitor off (the main filter refuses it)" \
	"$(sb -c '"$0" -c "$1"' "$PY" "$unix" 2>/dev/null)" "errno 1"
# socket()'s family is an int: high bits in the register must not slip past the filter.
rawunix='import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(41, ctypes.c_long((1 << 32) | 1), 1, 0)
print("allowed" if fd >= 0 else "errno %d" % ctypes.get_errno())'
is "control: a raw socket(AF_UNIX | 1<<32) makes a unix socket outside" "$("$PY" -c "$rawunix")" "allowed"
is "…and is refused inside, monitor off" "$(sb -c '"$0" -c "$1"' "$PY" "$rawunix" 2>/dev/null)" "errno 1"
user_policy '[default]
network = none'
is "…and monitor on" "$(sb -c '"$0" -c "$1"' "$PY" "$rawunix" 2>/dev/null)" "errno 1"
user_policy '[default]
network = none
unix_sockets = all'
is "unix_sockets = all lifts the AF_UNIX filter" "$(sb -c '"$0" -c "$1"' "$PY" "$unix" 2>/dev/null)" "allowed"
user_policy '[default]
network = none'

# TIOCSTI on a pty that is the caller's controlling terminal; the second try sets high bits
# in the 64-bit request, which the kernel drops and a plain 64-bit compare would miss.
tiocsti='import os, fcntl, termios, ctypes, sys
m, s = os.openpty()
name = os.ttyname(s)
pid = os.fork()
if pid == 0:
    os.setsid()
    fd = os.open(name, os.O_RDWR)
    def res(ok, err): return "allowed" if ok else ("EPERM" if err == 1 else "errno%d" % err)
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"x"); a = res(True, 0)
    except OSError as e:
        a = res(False, e.errno)
    libc = ctypes.CDLL(None, use_errno=True)
    c = ctypes.c_char(b"y")
    rv = libc.ioctl(fd, ctypes.c_ulong(termios.TIOCSTI | (1 << 32)), ctypes.byref(c))
    print(a, res(rv == 0, ctypes.get_errno())); sys.stdout.flush()
    os._exit(0)
os.waitpid(pid, 0)'
ctl=$("$PY" -c "$tiocsti" 2>&1)
if [ "$ctl" = "allowed allowed" ]; then
	ok "control: TIOCSTI works outside the sandbox here"
	is "TIOCSTI fails with EPERM, also with high bits set" \
		"$(sb -c '"$0" -c "$1"' "$PY" "$tiocsti" 2>&1)" "EPERM EPERM"
else
	skip "TIOCSTI is refused by the filter" "the kernel refuses TIOCSTI here already ($ctl)"
fi

# Namespaces and mounts. With no capability the kernel refuses them EPERM too: the calls are
# made so that the kernel alone answers EINVAL (a flag it rejects before any permission check:
# CLONE_VFORK for unshare, MS_NOUSER for mount, an unknown umount2 flag), and EPERM can only be
# the filter's (tests/helpers/try-syscall.c prints the errno of one raw call).
out=$(sb -c 'unshare -r true 2>&1; echo "rc=$?"' 2>/dev/null)
like "unshare -r fails" "$out" 'rc=[1-9]'
try=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall
if [ -x "$try" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$try" "$T/proj/try"
	ns='./try x86_64 unshare 0x10004000; ./try x86_64 mount s:none s:/ 0 0x80000000 0
./try x86_64 umount2 s:/ 0x80000000; ./try x86_64 unshare 0x20000'
	is "control: outside, unshare(CLONE_NEWUSER|CLONE_VFORK), mount(MS_NOUSER), umount2(bad flag) are EINVAL" \
		"$(sh -c "$ns" | head -n3 | tr '\n' ' ')" "EINVAL EINVAL EINVAL "
	is "unshare(CLONE_NEWUSER), mount, umount2: EPERM from the filter; unshare -m: EPERM (no capability)" \
		"$(sb -c "$ns" 2>&1 | tr '\n' ' ')" "EPERM EPERM EPERM EPERM "
else
	skip "mount and unshare refused by the filter" "no try-syscall helper or not x86_64"
fi

# Capabilities and setuid programs.
st=$(sb -c 'grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):" /proc/self/status' 2>/dev/null)
is "no capabilities at all, bounding set empty, no_new_privs, seccomp filter" \
	"$(echo "$st" | tr -s '\t ' ' ')" "CapInh: 0000000000000000
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapBnd: 0000000000000000
CapAmb: 0000000000000000
NoNewPrivs: 1
Seccomp: 2"
# The stage (pid 1 inside, the shell's parent) holds none either: it dropped them itself.
st=$(sb -c 'grep -E "^(Name|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" /proc/1/status' 2>/dev/null)
is "the stage (pid 1) too: no capabilities, bounding set empty, no_new_privs" \
	"$(echo "$st" | tr -s '\t ' ' ')" "Name: sbxsh-stage
CapInh: 0000000000000000
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapBnd: 0000000000000000
CapAmb: 0000000000000000
NoNewPrivs: 1"
if is_root; then
	skip "su -c id cannot reach uid 0" "running as root already; capabilities checked above"
elif [ -u /bin/su ] || [ -u /usr/bin/su ]; then
	out=$(sb -c 'su -c id root < /dev/null 2>&1; echo "rc=$?"' 2>/dev/null)
	like "setuid su gains nothing (fails)" "$out" 'rc=[1-9]'
	check "…and never ran id as root" sh -c "! echo '$out' | grep -q 'uid=0'"
else
	skip "setuid su gains nothing" "no setuid su on this machine"
fi
done_testing
