#!/bin/sh
# 0170-boundary-redteam2 — a second red team against the boundary, with the shipped policy, as
# root and as a user. What it found:
# - the session daemon wrote one log record per refused connection, with no bound: a command
#   opening refused connections in a loop filled the user's disk through
#   ~/.local/state/sbxsh/violations.jsonl (outside every bound of the sandbox), ~2.6 MB a
#   second here (now: once per host:port, at most 256 a command, as the monitor's own);
# - root (uid 0 mapped to 0, the owner of every 0400 file of procfs) read /proc/kpageflags,
#   kpagecount, kpagecgroup (the host's physical page map), slabinfo, vmallocinfo and
#   pagetypeinfo (the kernel heap's layout: what a kernel exploit grooms), and the host's
#   trace buffers under /sys/kernel/tracing (reading trace_pipe consumes the host's events);
# - userfaultfd (user-mode faults only, which needs no privilege) was open: a tool of kernel
#   exploits no command needs;
# - a command made setuid and setgid files in its project (cp /bin/sh x; chmod 4755 x): run by
#   root, any local user who could reach the project then ran them as root on the host, past
#   every sandbox (a user's: as that user, its ~/.ssh readable).
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
tag, n, same = sys.argv[1], int(sys.argv[2]), len(sys.argv) > 3
for i in range(n):
    h = b"%s%d.invalid:443" % (tag.encode(), 0 if same else i)
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
	out=$(sb -c '"$0" flood.py rtbsame 50 same' "$PY" 2>&1)
	like "control: one host refused 50 times" "$out" '^sent 50$'
	is "…is logged once (as the monitor logs a path once a command)" \
		"$(grep -c 'rtbsame0' "$LOG" 2>/dev/null)" 1
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

# --- 4. setuid and setgid files: never made by a command ---
user_policy '[default]
network = none'
cp /bin/true "$T/proj/ctl" && chmod 4755 "$T/proj/ctl"
is "control: outside, its owner makes a file setuid" "$(stat -c %a "$T/proj/ctl")" 4755
rm -f "$T/proj/ctl"
modes='import os, sys
def t(label, f):
    try:
        f(); print(label, "ok")
    except OSError as e:
        print(label, e.strerror)
os.close(os.open("f", os.O_CREAT | os.O_WRONLY, 0o755))
t("chmod-4755", lambda: os.chmod("f", 0o4755))
t("chmod-2755", lambda: os.chmod("f", 0o2755))
fd = os.open("f", os.O_RDONLY)
t("fchmod-4755", lambda: os.fchmod(fd, 0o4755))
t("fchmod-2755", lambda: os.fchmod(fd, 0o2755))
t("chmod-755", lambda: os.chmod("f", 0o700))
os.mkdir("d")
t("dir-g+s", lambda: os.chmod("d", 0o2775))'
for level in off on; do
	user_policy "[sbxsh]
monitor = $level
[default]
network = none"
	rm -rf "$T/proj/f" "$T/proj/d"
	out=$(sb -c '"$0" -c "$1"' "$PY" "$modes" 2>&1)
	is "monitor $level: chmod/fchmod to setuid or setgid are refused, 0700 and a directory's g+s work" \
		"$(printf '%s\n' "$out" | grep -E '^[a-z+0-9-]+ ' | tr '\n' ' ')" \
		"chmod-4755 Operation not permitted chmod-2755 Operation not permitted fchmod-4755 Operation not permitted fchmod-2755 Operation not permitted chmod-755 ok dir-g+s ok "
	is "…and the file has no set-id bit on the host" "$(stat -c %a "$T/proj/f" 2>&1)" 700
	is "…while the directory keeps its g+s" "$(stat -c %a "$T/proj/d" 2>&1)" 2775
done
# fchmodat2(fd, "", 04755, AT_EMPTY_PATH): a descriptor's chmod the guard performs
if [ -x "$helper" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$helper" "$T/proj/try"
	: > "$T/proj/g"
	ctl=$(cd "$T/proj" && ./try x86_64 452 3 s: 0x9ed 0x1000 3< g 2>&1)
	if [ "$ctl" = ok ]; then
		chmod 644 "$T/proj/g"
		is "fchmodat2(fd, \"\", 04755, AT_EMPTY_PATH) is EPERM" \
			"$(sb -c './try x86_64 452 3 s: 0x9ed 0x1000 3< g' 2>&1)" EPERM
		is "…and g is not setuid on the host" "$(stat -c %a "$T/proj/g")" 644
	else
		skip "fchmodat2 with AT_EMPTY_PATH is refused" "the kernel lacks fchmodat2 here ($ctl)"
	fi
else
	skip "fchmodat2 with AT_EMPTY_PATH is refused" "no try-syscall helper or not x86_64"
fi
# coreutils gives a directory g+s by fchmod of its descriptor: the guard lets it
out=$(sb -c 'mkdir -m 2775 sd && install -d -m 2775 si && stat -c %a sd si' 2>&1)
is "mkdir -m 2775 and install -d -m 2775 (fchmod of a directory) keep g+s" "$(printf '%s\n' "$out" | tr '\n' ' ')" "2775 2775 "
# a set-ID mode asked at creation (open O_CREAT, O_TMPFILE, mknod): the kernel kept both
# bits, and a later write by a capable host process (root's cp onto it) keeps them
creat='import os
os.umask(0)
os.close(os.open("c1", os.O_CREAT | os.O_WRONLY, 0o6755))
os.mknod("c2", 0o100000 | 0o6755)
fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o4755)
print("tmpfile", oct(os.fstat(fd).st_mode & 0o7777))'
for level in off on; do
	user_policy "[sbxsh]
monitor = $level
[default]
network = none"
	rm -f "$T/proj/c1" "$T/proj/c2"
	out=$(sb -c '"$0" -c "$1"' "$PY" "$creat" 2>&1)
	is "monitor $level: open(O_CREAT, 06755) and mknod(S_IFREG|06755) make no set-ID file on the host" \
		"$(stat -c %a "$T/proj/c1" "$T/proj/c2" 2>&1 | tr '\n' ' ')" "755 755 "
	like "…nor O_TMPFILE with 04755" "$out" "tmpfile 0o755"
done
user_policy '[default]
network = none'
out=$(sb -c 'cp /bin/true x && chmod u+s x; echo "rc=$?"' 2>&1)
like "chmod u+s fails" "$out" 'rc=[1-9]'
is "…and x is not setuid on the host" "$(stat -c %a "$T/proj/x" 2>&1)" 755
done_testing
