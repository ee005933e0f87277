#!/bin/sh
# 0992-boundary-redteam-s15 — a red team against the sandbox boundary (issue #11), session 15,
# as root and as a user. Each attack below succeeded on the build before:
# - the mode of a device node the command reaches: a terminal the caller passed (`sbxsh -c
#   cmd > /dev/pts/N`, no relay) was made readable and writable by every local user
#   (fchmod(1, 0666), chmod /proc/self/fd/1), which stayed after the command: another user
#   then reads what the user types (a password at sudo's prompt) and writes to the terminal;
#   as root, the sandbox's /dev binds the host's nodes, and `chmod 600 /dev/null` (or fchmod of
#   an open /dev/null) changed the host's: every other user's /dev/null broken.
# - kernel files root reads as their owner beyond the masked ones: /sys/kernel/slab (the kernel
#   heap's layout, /proc/slabinfo's second spelling) and /sys/class/zram-control/hot_add,
#   whose read makes a new zram block device on the host (one a read, no bound).
# - an epoll set, a timerfd and a signalfd the caller left open from 3 up passed (as "a wait
#   set, a timer, the command's own signals"), but they are the caller's objects, changed in
#   place: the command set the data word of the caller's epoll entry for a pipe both held
#   (0x4141414141 came back to the caller's loop, which in C is a pointer), disarmed the
#   caller's timer and emptied its signalfd's mask.
# - inet and inet6 sockets of any protocol were made: SCTP, DCCP, UDP-Lite, L2TP, SMC over
#   inet (kernel code few run, which a distribution's kernel loads as a module at the first
#   socket() of that protocol, for any user); now only IP's default, ICMP (ping sockets), TCP,
#   UDP, ICMPv6 and MPTCP, on every ABI (i386 in unit test_filters, through the simulator).
# - a serial line's ioctls on the caller's terminal (no relay): dropping DTR (TIOCMBIC,
#   TIOCMSET) hangs a serial login up as the refused vhangup does, and a break held on
#   (TIOCSBRK), the port's settings (TIOCSSERIAL), RS-485 and ISO 7816 modes outlive the
#   command.
# - a file passed for reading (`sbxsh -c cmd < file`) had its inode flags changed through the
#   descriptor (FS_IOC_SETFLAGS: no-atime, no-dump, sync), judged on the caller's mount where
#   the file is writable, as chmod was before the guard took it; fsxattr and fs-verity too.
# - with unix_sockets = all, an unconnected datagram unix socket the caller left open from 3
#   up sent to any abstract name of the caller's network namespace (a host daemon's), under
#   network = none too; landlock's scope (ABI 6) now refuses it, and any signal from inside to
#   a process outside the sandbox's domain: the listen relay, which a kill by its pid from
#   inside (pgrep sbxsh-stage, pkill, kill -9 -1) ended.
. "$(dirname "$0")/lib.sh"

redteam_start boundary-redteam-s15 "the sandbox boundary (session 15)"

# --- 1. the caller's terminal's mode ---
# A pty the test makes, on the command's stdout only (no relay: the caller's terminal itself);
# prints the slave's mode before and after, then what the command said on stderr.
cat > "$H/ttymode.py" << 'PY'
import os, pty, stat, subprocess, sys
m, s = pty.openpty()
name = os.ttyname(s)
os.chmod(name, 0o600)
p = subprocess.run([sys.argv[1], "-c", sys.argv[2]], stdin=subprocess.DEVNULL, stdout=s,
                   stderr=subprocess.PIPE)
print("%04o %04o" % (0o600, stat.S_IMODE(os.stat(name).st_mode)))
print(p.stderr.decode(errors="replace"))
PY
cat > "$P/fchmod.py" << 'PY'
import os, sys
try:
    os.fchmod(int(sys.argv[1]), int(sys.argv[2], 8))
    print("fchmod done", file=sys.stderr)
except OSError as e:
    print("fchmod refused", e.errno, file=sys.stderr)
PY
for m in 644 666 604; do
	res=$(cd "$P" && python3 "$H/ttymode.py" "$SBXSH" "python3 fchmod.py 1 $m" 2>&1)
	is "fchmod(1, 0$m) of the caller's terminal leaves its mode" "$(printf '%s\n' "$res" | head -1)" "0600 0600"
	like "… and is refused (EPERM)" "$res" "fchmod refused 1"
done
res=$(cd "$P" && python3 "$H/ttymode.py" "$SBXSH" "chmod 666 /proc/self/fd/1 2>/dev/null || echo chmod-failed >&2" 2>&1)
is "chmod of /proc/self/fd/1 (the caller's terminal) leaves its mode" "$(printf '%s\n' "$res" | head -1)" "0600 0600"
like "… and fails" "$res" "chmod-failed"
# control: a file of the project keeps its fchmod (tar, install)
echo x > "$P/plain"
chmod 600 "$P/plain"
run "python3 fchmod.py 3 644 3< plain"
is "control: fchmod of a file of the project works" "$(stat -c %a "$P/plain")" 644

# --- 2. the host's device nodes through the sandbox's /dev (root: the nodes are its own) ---
if is_root; then
	mode0=$(stat -c %a /dev/full)
	run "chmod 766 /dev/full; python3 -c 'import os; fd = os.open(\"/dev/full\", os.O_RDONLY); os.fchmod(fd, 0o664)'"
	got=$(stat -c %a /dev/full)
	chmod "$mode0" /dev/full
	is "chmod and fchmod of the sandbox's /dev/full leave the host's node" "$got" "$mode0"
	run "python3 fchmod.py 0 600" < /dev/full
	got=$(stat -c %a /dev/full)
	chmod "$mode0" /dev/full
	is "… and so does fchmod of a /dev/full the caller passed on 0" "$got" "$mode0"
	like "… refused (EPERM)" "$err" "fchmod refused 1"
	run "echo x > /dev/null && head -c 3 /dev/zero | wc -c"
	is "control: /dev/null is written and /dev/zero read" "$out" 3
else
	skip "device nodes of the host's root" "as root only"
	skip "… passed on 0" "as root only"
	skip "… refused" "as root only"
	skip "control: /dev/null" "as root only"
fi

# --- 3. kernel files root reads as their owner ---
if is_root; then
	run "cat /sys/kernel/slab/kmalloc-64/objects /sys/kernel/slab/kmalloc-64/total_objects 2>/dev/null | wc -l"
	is "/sys/kernel/slab (the heap's layout) is not readable" "$out" 0
	if [ -e /sys/class/zram-control/hot_add ]; then
		run "cat /sys/class/zram-control/hot_add 2>/dev/null"
		case $out in
		[0-9]*) echo "$out" > /sys/class/zram-control/hot_remove ;;
		esac
		is "reading zram-control/hot_add makes no host device" "$out" ""
	else
		skip "zram-control/hot_add" "no zram module here"
	fi
else
	skip "/sys/kernel/slab" "as root only (0400 files of the host's root)"
	skip "zram-control/hot_add" "as root only"
fi

# --- 4. the caller's epoll, timerfd and signalfd, passed from 3 up ---
# The caller (a driver) leaves them open for the command beside a pipe it also watches; the
# command changes them in place: the epoll entry of the shared pipe gets a data word of its
# choosing (a C caller's event loop takes it for a pointer), the caller's armed timer is
# disarmed, the caller's signalfd stops taking SIGUSR1.
cat > "$H/kobj.py" << 'PY'
import ctypes, os, select, signal, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
ep = select.epoll()
ep.register(r, select.EPOLLIN)
tfd = libc.timerfd_create(1, 0)                         # CLOCK_MONOTONIC
libc.timerfd_settime(tfd, 0, struct.pack("qqqq", 0, 0, 3600, 0), None)
mask = ctypes.create_string_buffer(struct.pack("Q", 1 << (signal.SIGUSR1 - 1)), 128)
sfd = libc.signalfd(-1, mask, 0)
for fd in (ep.fileno(), tfd, sfd, r):
    os.set_inheritable(fd, True)
cmd = "python3 kobj_in.py %d %d %d %d" % (ep.fileno(), tfd, sfd, r)
p = subprocess.run([sys.argv[1], "-c", cmd], pass_fds=(ep.fileno(), tfd, sfd, r),
                   stderr=subprocess.PIPE)
os.write(w, b"x")
ev = ep.poll(1)
print("epoll", "same" if ev == [(r, select.EPOLLIN)] else "changed %r" % ev)
cur = ctypes.create_string_buffer(32)
libc.timerfd_gettime(tfd, cur)
print("timer", "armed" if struct.unpack("qqqq", cur.raw)[2] > 0 else "disarmed")
with open("/proc/self/fdinfo/%d" % sfd) as f:
    sm = [l for l in f if l.startswith("sigmask:")][0].split()[1]
print("signalfd", "same" if int(sm, 16) == 1 << (signal.SIGUSR1 - 1) else "changed " + sm)
print(p.stderr.decode(errors="replace"))
PY
cat > "$P/kobj_in.py" << 'PY'
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
ep, tfd, sfd, r = map(int, sys.argv[1:])
said = []
ev = struct.pack("=IQ", 1, 0x4141414141)                # EPOLLIN, a data word of ours
said.append("epoll_ctl %d" % (libc.epoll_ctl(ep, 3, r, ev) or ctypes.get_errno()))
said.append("timerfd_settime %d" % (libc.timerfd_settime(tfd, 0, bytes(32), None) or ctypes.get_errno()))
said.append("signalfd %d" % (0 if libc.signalfd(sfd, bytes(128), 0) >= 0 else ctypes.get_errno()))
print(" ".join(said), file=sys.stderr)
PY
res=$(cd "$P" && python3 "$H/kobj.py" "$SBXSH")
is "the caller's epoll set keeps its entry (no data word of the command's)" \
	"$(printf '%s\n' "$res" | grep '^epoll ')" "epoll same"
is "the caller's timerfd stays armed" "$(printf '%s\n' "$res" | grep '^timer')" "timer armed"
is "the caller's signalfd keeps its mask" "$(printf '%s\n' "$res" | grep '^signalfd')" "signalfd same"
like "… they are not passed, with a note" "$res" "descriptor [0-9]+ \(a kernel object, anon_inode:\[eventpoll\]\) not passed"

# --- 5. inet protocols beyond TCP, UDP, ICMP and MPTCP ---
# A distribution's kernel loads SCTP, DCCP, L2TP's and SMC's modules at the first socket() of
# that protocol, for any user (this kernel has none built: EPROTONOSUPPORT before the fix).
# try-syscall: the errno of one raw socket() (tests/helpers/try-syscall.c).
try=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall
if [ -x "$try" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$try" "$P/try"
	protos='./try x86_64 socket 2 1 132; ./try x86_64 socket 10 5 132; ./try x86_64 socket 2 6 33
./try x86_64 socket 2 2 136; ./try x86_64 socket 2 2 115; ./try x86_64 socket 10 1 256
./try x86_64 socket 2 1 0x100000006'
	run "$protos"
	is "SCTP, DCCP, UDP-Lite, L2TP, SMC over inet and a protocol with high bits are refused (EPERM)" \
		"$(printf '%s\n' "$out" | tr '\n' ' ')" "EPERM EPERM EPERM EPERM EPERM EPERM EPERM "
	run "./try x86_64 socket 2 1 6; ./try x86_64 socket 10 2 17; ./try x86_64 socket 2 1 262; ./try x86_64 socket 2 2 0"
	is "control: TCP, UDP, MPTCP and the default protocol are made" \
		"$(printf '%s\n' "$out" | tr '\n' ' ')" "ok ok ok ok "
else
	skip "inet protocols refused" "no try-syscall helper or not x86_64"
	skip "control: TCP, UDP, MPTCP" "no try-syscall helper or not x86_64"
fi

# --- 6. a serial line's ioctls on the caller's terminal ---
# Dropping DTR (TIOCMBIC, TIOCMSET) hangs a serial login up, as vhangup; a break held on
# (TIOCSBRK), the port's settings (TIOCSSERIAL), RS-485 and ISO 7816 modes stay after the
# command. On a pty the kernel answers ENOTTY or 0; EPERM is the filter's.
if [ -x "$try" ] && [ "$(uname -m)" = x86_64 ]; then
	ser='./try x86_64 ioctl pty 0x5417 i:1; ./try x86_64 ioctl pty 0x5416 i:1
./try x86_64 ioctl pty 0x5418 i:0; ./try x86_64 ioctl pty 0x5427 0; ./try x86_64 ioctl pty 0x541F w:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
./try x86_64 ioctl pty 0x542F w:0,0,0,0,0,0,0,0; ./try x86_64 ioctl pty 0xC0285443 w:0,0,0,0,0,0,0,0,0,0'
	run "$ser"
	is "TIOCMBIC, TIOCMBIS, TIOCMSET, TIOCSBRK, TIOCSSERIAL, TIOCSRS485, TIOCSISO7816 are refused (EPERM)" \
		"$(printf '%s\n' "$out" | tr '\n' ' ')" "EPERM EPERM EPERM EPERM EPERM EPERM EPERM "
	run "./try x86_64 ioctl pty 0x5415 i:0; ./try x86_64 ioctl pty 0x5409 1"
	is "control: TIOCMGET and tcdrain's TCSBRK reach the kernel" \
		"$(printf '%s\n' "$out" | tr '\n' ' ')" "ENOTTY ok "
else
	skip "serial ioctls refused" "no try-syscall helper or not x86_64"
	skip "control: TIOCMGET" "no try-syscall helper or not x86_64"
fi

# --- 7. a file passed for reading: its inode flags (chattr) ---
# FS_IOC_SETFLAGS through descriptor 0 reached the host's file on the caller's mount (no-atime
# set here; no-dump hides it from dump and borg --exclude-nodump, sync slows every write).
cat > "$P/setflags.py" << 'PY'
import fcntl, struct, sys
b = bytearray(8)
try:
    fcntl.ioctl(0, 0x80086601, b)                     # FS_IOC_GETFLAGS
    fl = struct.unpack("=i", b[:4])[0]
    fcntl.ioctl(0, 0x40086602, struct.pack("=q", fl | 0x80))   # FS_IOC_SETFLAGS, +noatime
    print("setflags done")
except OSError as e:
    print("setflags refused", e.errno)
PY
echo data > "$H/hostfile"
flags0=$(lsattr "$H/hostfile" 2> /dev/null | cut -d' ' -f1)
if [ -n "$flags0" ]; then
	run "python3 setflags.py" < "$H/hostfile"
	is "FS_IOC_SETFLAGS of a file passed for reading leaves the host's file" \
		"$(lsattr "$H/hostfile" | cut -d' ' -f1)" "$flags0"
	is "… refused (EPERM)" "$out" "setflags refused 1"
else
	skip "FS_IOC_SETFLAGS of a passed file" "no inode flags on $H's file system"
	skip "… refused" "no inode flags"
fi

# --- 8. an abstract unix name of the caller's, through a datagram socket it passed ---
# With unix_sockets = all, a unix socket from 3 up passes as it is; an unconnected datagram
# one sends in the caller's network namespace, to any abstract name bound there (a host
# daemon's). Closed by landlock's scope (Linux 6.12, ABI 6) where the kernel has it.
cat > "$H/abstract.py" << 'PY'
import os, socket, subprocess, sys
name = b"\0sbxsh-e2e-0992-%d" % os.getpid()
rx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
rx.bind(name)
rx.settimeout(2)
tx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
os.set_inheritable(tx.fileno(), True)
inner = "python3 -c 'import socket; s = socket.socket(fileno=%d); " \
        "print(\"sent\" if s.sendto(b\"hi\", bytes.fromhex(\"%s\")) else \"\")' 2>&1" \
        % (tx.fileno(), name.hex())
p = subprocess.run([sys.argv[1], "-c", inner], pass_fds=(tx.fileno(),), capture_output=True)
try:
    print("received", rx.recv(16).decode())
except socket.timeout:
    print("nothing received")
print(p.stdout.decode(errors="replace").strip()[-200:])
PY
scope=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2> /dev/null)
user_policy '[default]
network = none
unix_sockets = all'
res=$(cd "$P" && python3 "$H/abstract.py" "$SBXSH")
user_policy '[default]
network = none'
if [ "${scope:-0}" -ge 6 ] 2> /dev/null; then
	is "a datagram socket the caller passed reaches no abstract name of the caller's (landlock scope)" \
		"$(printf '%s\n' "$res" | head -1)" "nothing received"
else
	skip "abstract names of the caller's" "no landlock ABI 6 here (ABI ${scope:-none})"
fi

# --- 9. the listen relay, signalled by name from inside ---
# `kill 0` leaves it (e2e 0221), but a kill by its pid (pgrep sbxsh-stage, pkill, kill -9 -1)
# ended it: the host's connections to the command's own forwarded port then got nothing.
if [ "${scope:-0}" -ge 6 ] 2> /dev/null; then
	LP=$((18000 + $$ % 1000))
	user_policy "[default]
network = proxy
listen = $LP"
	rm -f "$P/up" "$P/done"
	(cd "$P" && "$SBXSH" -c "python3 -m http.server $LP --bind 127.0.0.1 > /dev/null 2>&1 & s=\$!
	until curl -s --noproxy '*' -o /dev/null http://127.0.0.1:$LP/; do sleep 0.05; done
	for p in \$(pgrep -x sbxsh-stage); do [ \$p = 1 ] || kill -9 \$p 2> /dev/null || echo refused; done
	: > up; while [ ! -e done ]; do sleep 0.05; done; kill -9 \$s" > "$H/lout" 2>&1) &
	cmd=$!
	i=0
	while [ ! -e "$P/up" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	got=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$LP/" 2>&1)
	: > "$P/done"
	wait "$cmd"
	is "after kill -9 of the relay's pid inside, the host still reaches the command's server" "$got" 200
	like "… the kill was refused" "$(cat "$H/lout")" "^refused"
	user_policy '[default]
network = none'
else
	skip "the listen relay signalled from inside" "no landlock ABI 6 here"
	skip "… refused" "no landlock ABI 6 here"
fi

done_testing
