#!/bin/sh
# 0170-boundary-redteam2 — a second red team against the boundary, with the shipped policy, as
# root and as a user. What it found:
# - the session daemon wrote one log record per refused connection, with no bound: a command
#   opening refused connections in a loop filled the user's disk through
#   ~/.local/state/sbxsh/violations.jsonl (outside every bound of the sandbox), ~2.6 MB a
#   second here;
# - root (uid 0 mapped to 0, the owner of every 0400 file of procfs) read /proc/kpageflags,
#   kpagecount, kpagecgroup (the host's physical page map), slabinfo, vmallocinfo and
#   pagetypeinfo (the kernel heap's layout: what a kernel exploit grooms), and the host's
#   trace buffers under /sys/kernel/tracing (reading trace_pipe consumes the host's events);
# - userfaultfd (user-mode faults only, which needs no privilege) was open: a tool of kernel
#   exploits no command needs.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
sb() { "$SBXSH" "$@"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
helper=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall

# --- 1. the violation log: bounded per command ---
LOG="$HOME/.local/state/sbxsh/violations.jsonl"
user_policy '[default]
network = proxy
on_violation = warn'
cat > "$T/proj/flood.py" << 'EOF'
import socket, sys
tag, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    h = b"%s%d.invalid:443" % (tag.encode(), i)
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT " + h + b" HTTP/1.1\r\nHost: " + h + b"\r\n\r\n")
    s.recv(4096)
    s.close()
print("sent", n)
EOF
if [ -z "$PY" ]; then
	skip "the violation log is bounded per command" "python3 is not installed"
else
	out=$(sb -c '"$0" flood.py rtbflood 400' "$PY" 2>&1)
	like "control: 400 refused connections are made and refused" "$out" '^sent 400$'
	like "…and all counted in the summary" "$out" '400 violations|\(3[0-9][0-9] more not listed\)'
	n=$(grep -c 'rtbflood' "$LOG" 2>/dev/null)
	n=${n:-0}
	ok_n=no; [ "$n" -le 257 ] && [ "$n" -ge 256 ] && ok_n=yes
	is "the log holds at most 256 of one command's refusals, and one line saying so ($n lines)" \
		"$ok_n" yes
	like "…that line says the rest are not logged" "$(grep rtbflood "$LOG" | tail -n 1)" \
		'"reason":"[^"]*further refusals of this command are not logged'
	sb -c '"$0" flood.py rtbnext 1' "$PY" > /dev/null 2>&1
	is "the next command's refusal is logged again" "$(grep -c 'rtbnext0' "$LOG" 2>/dev/null)" 1
fi

# --- 2. root: procfs's 0400 files of the kernel's memory layout, the host's trace buffers ---
# (masked for root; a user fails the kernel's own permission check on them: 0400 root)
for f in /proc/kpageflags /proc/kpagecount /proc/kpagecgroup /proc/slabinfo \
	/proc/vmallocinfo /proc/pagetypeinfo; do
	if [ ! -e "$f" ]; then
		skip "$f gives nothing" "no $f on this kernel"
		continue
	fi
	v=$(sb -c 'head -c 64 "$0" 2>/dev/null | wc -c' "$f" 2>/dev/null)
	if is_root; then
		is "$f is masked for root (reads empty)" "${v:-0}" 0
	else
		is "$f gives a user nothing" "${v:-0}" 0
	fi
done
if [ -r /sys/kernel/tracing/README ] || { is_root && [ -e /sys/kernel/tracing/README ]; }; then
	v=$(sb -c 'ls -A /sys/kernel/tracing 2>/dev/null | wc -l' 2>/dev/null)
	if is_root; then
		is "/sys/kernel/tracing is masked for root (an empty directory)" "$v" 0
	else
		is "/sys/kernel/tracing gives a user nothing" "$v" 0
	fi
else
	skip "/sys/kernel/tracing is masked" "no tracefs there, or not readable by this user"
fi

# --- 3. userfaultfd ---
if [ -x "$helper" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$helper" "$T/proj/try"
	ctl=$(./try x86_64 323 1 2>&1) # userfaultfd(UFFD_USER_MODE_ONLY)
	if [ "$ctl" = ok ]; then
		ok "control: outside, userfaultfd(UFFD_USER_MODE_ONLY) works"
		for level in off on; do
			user_policy "[sbxsh]
monitor = $level
[default]
network = none"
			is "monitor $level: userfaultfd is EPERM" "$(sb -c './try x86_64 323 1' 2>&1)" EPERM
		done
	else
		skip "userfaultfd is refused by the filter" "the kernel refuses it here already ($ctl)"
	fi
else
	skip "userfaultfd is refused by the filter" "no try-syscall helper or not x86_64"
fi
done_testing
