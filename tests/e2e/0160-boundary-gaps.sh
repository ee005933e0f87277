#!/bin/sh
# 0160-boundary-gaps — the holes a red team found past issue 11: system calls newer than the
# build's libseccomp (refused by number, a later kernel's too), unix sockets inherited on
# descriptors 3 and up, `unix_sockets = PATH` (refused at load: it granted nothing), an
# AF_UNIX bind at a mandatory name, and doctor's check of bwrap's --bind-fd.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
base='[default]
network = none
on_violation = warn'
user_policy "$base"
helper=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall

# --- 1. system calls the kernel has and libseccomp 2.5.4 does not name ---
# Numbers shared by every ABI since 424: 460 lsm_set_self_attr, 463 setxattrat,
# 466 removexattrat, 467 open_tree_attr, 469 file_setattr (refused); 457 statmount,
# 462 mseal, 464 getxattrat (allowed). Arguments that make each fail harmlessly outside.
if [ -x "$helper" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$helper" "$T/proj/try"
	echo data > "$T/proj/f"
	# LABEL ABI NR ARGS: setxattrat(AT_FDCWD, "f", 0, "user.sbx", {value "abc", size 3}, 16)
	cases='setxattrat-64 x86_64 463 -100 s:f 0 s:user.sbx w:s:abc,3 16
removexattrat-64 x86_64 466 -100 s:f 0 s:user.none
file_setattr-64 x86_64 469 -100 s:f w:0,0,0 24 0
lsm_set_self_attr-64 x86_64 460 0 0 0 0
open_tree_attr-64 x86_64 467 -1 s:/ 0x80000000 0 0
statmount-64 x86_64 457 0 0 0 0
mseal-64 x86_64 462 0 0 0
getxattrat-64 x86_64 464 -100 s:f 0 s:user.none w:0,0 16
future-64 x86_64 500 0 0 0'
	script='while read -r label abi nr args; do
	printf "%s %s\n" "$label" "$(./try "$abi" "$nr" $args 2>&1 | tr " " _)"
done'
	outside=$(printf '%s\n' "$cases" | sh -c "$script")
	diag "outside: $(printf '%s\n' "$outside" | tr '\n' ' ')"
	xattr() { python3 -c 'import os, sys; print(os.getxattr("f", "user.sbx").decode())' 2>/dev/null; }
	unxattr() { python3 -c 'import os; os.removexattr("f", "user.sbx")' 2>/dev/null; }
	is "control: outside, setxattrat set the attribute" "$(xattr)" abc
	unxattr
	for level in off on; do
		user_policy "[sbxsh]
monitor = $level
$base"
		inside=$(printf '%s\n' "$cases" | "$SBXSH" -c "$script" 2>&1)
		got() { printf '%s\n' "$inside" | sed -n "s/^$1 //p"; }
		if printf '%s\n' "$outside" | grep -qx 'setxattrat-64 ok'; then
			is "monitor $level: setxattrat (463) is ENOSYS: libc falls back to the guarded setxattr" \
				"$(got setxattrat-64)" ENOSYS
			is "…and the attribute was not set past the guard" "$(xattr)" ""
			unxattr
		else
			skip "monitor $level: setxattrat is ENOSYS" "the kernel lacks it (before 6.13) or user xattrs here"
		fi
		is "monitor $level: removexattrat (466) is ENOSYS" "$(got removexattrat-64)" ENOSYS
		is "monitor $level: file_setattr (469) is ENOSYS" "$(got file_setattr-64)" ENOSYS
		is "monitor $level: lsm_set_self_attr (460) is ENOSYS" "$(got lsm_set_self_attr-64)" ENOSYS
		is "monitor $level: open_tree_attr (467) is EPERM, as open_tree" "$(got open_tree_attr-64)" EPERM
		is "monitor $level: statmount (457) answers as outside" "$(got statmount-64)" \
			"$(printf '%s\n' "$outside" | sed -n 's/^statmount-64 //p')"
		is "monitor $level: mseal (462) answers as outside" "$(got mseal-64)" \
			"$(printf '%s\n' "$outside" | sed -n 's/^mseal-64 //p')"
		is "monitor $level: getxattrat (464) answers as outside" "$(got getxattrat-64)" \
			"$(printf '%s\n' "$outside" | sed -n 's/^getxattrat-64 //p')"
		is "monitor $level: a number no kernel has yet (500) is ENOSYS" "$(got future-64)" ENOSYS
	done
	user_policy "$base"
else
	skip "system calls newer than libseccomp" "no try-syscall helper ($helper) or not x86_64"
fi

# --- 2. unix sockets inherited on descriptors 3 and up ---
# A caller's agent connection (fd 3), a listening socket (fd 4), a datagram socket (fd 8) and
# a seqpacket one (fd 9) stay out unless unix_sockets = all; an inet socket (7, the caller's
# network namespace) always (e2e 0190); a pipe (5), a file (6), stdout as a unix socketpair
# (Node's way) and a dup of it (10) pass, as bash's.
cat > "$T/fds.py" << 'PY'
import os, socket, subprocess, sys
t, sbxsh, script = sys.argv[1], sys.argv[2], sys.argv[3]
for n in ("/agent.sock", "/listen.sock"):
    if os.path.exists(t + n):
        os.unlink(t + n)
agent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
agent.bind(t + "/agent.sock"); agent.listen(4)
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(t + "/agent.sock")
srv, _ = agent.accept()
lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
lst.bind(t + "/listen.sock"); lst.listen(4)
r, w = os.pipe()
os.write(w, b"piped\n"); os.close(w)
f = os.open(t + "/proj/f", os.O_RDONLY)
inet = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sq = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
out, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
fds = {3: conn.fileno(), 4: lst.fileno(), 5: r, 6: f, 7: inet.fileno(), 8: dg.fileno(),
       9: sq.fileno(), 1: out.fileno()}
def child():
    for n, o in fds.items():
        os.dup2(o, 100 + n)
    for n in fds:
        os.dup2(100 + n, n)
        os.close(100 + n)
    os.dup2(1, 10)
p = subprocess.Popen([sbxsh, "-c", script], preexec_fn=child, close_fds=False,
                     stderr=subprocess.PIPE)
out.close()
err = p.stderr.read().decode()
p.wait()
srv.settimeout(0.2)
try:
    got = srv.recv(100).decode()
except OSError:
    got = ""
peer.settimeout(5)
data = b""
while True:
    try:
        b = peer.recv(4096)
    except OSError:
        break
    if not b:
        break
    data += b
sys.stdout.write(data.decode() + "agent-received:" + got + "\n")
sys.stderr.write(err)
PY
fdscript='for n in 3 4 5 6 7 8 9 10; do
	if [ -e /proc/self/fd/$n ]; then echo "fd$n: $(readlink /proc/self/fd/$n | cut -d: -f1)"; else echo "fd$n: closed"; fi
done
cat <&5; cat <&6
python3 -c "import socket; socket.socket(fileno=3).send(b\"signed\")" 2>/dev/null
echo via-dup >&10'
fds_run() { python3 "$T/fds.py" "$T" "$SBXSH" "$fdscript" 2> "$T/fds.err"; }
field() { printf '%s\n' "$out" | sed -n "s/^$1//p"; }
echo data > "$T/proj/f"
user_policy "$base"
out=$(fds_run)
err=$(cat "$T/fds.err")
is "fd 3, an inherited unix socket (an agent connection), is closed inside" "$(field 'fd3: ')" closed
is "…so the agent receives nothing" "$(field agent-received:)" ""
is "fd 4, a listening unix socket, is closed inside" "$(field 'fd4: ')" closed
is "fd 8, a unix datagram socket, is closed inside" "$(field 'fd8: ')" closed
is "fd 9, a unix seqpacket socket, is closed inside" "$(field 'fd9: ')" closed
is "fd 5, a pipe, passes (bash's contract: cat <&5)" "$(printf '%s\n' "$out" | grep -x piped)" piped
is "fd 6, a file, passes" "$(printf '%s\n' "$out" | grep -x data)" data
is "fd 7, an inet socket (the caller's network namespace), is closed inside (e2e 0190)" \
	"$(field 'fd7: ')" closed
is "stdout, a unix socketpair (as Node gives), and fd 10, its dup, pass" \
	"$(printf '%s\n' "$out" | grep -x via-dup)" via-dup
like "a note names each dropped descriptor and the line that passes it" "$err" \
	'^sbxsh: note: descriptor 3 \(a unix socket connected to [^ ]*/agent\.sock\) not passed into the sandbox: to pass it, \[default\] in [^ ]*: unix_sockets = all'
like "…a listening one by its own address" "$err" \
	'^sbxsh: note: descriptor 4 \(a unix socket listening at [^ ]*/listen\.sock\) not passed'
like "…the inet socket with a note naming its kind" "$err" \
	'^sbxsh: note: descriptor 7 \(a (TCP|UDP) IPv4 socket\) not passed into the sandbox'
unlike "…and no note for the pipe, the file, stdout or its dup" "$err" \
	'descriptor (1|5|6|10) '
# A datagram pair is no "connected pair that reaches no one": either end may sendto() or
# connect() to any datagram socket it can name (syslog's /dev/log, journald's socket).
cat > "$T/dgram.py" << 'PY'
import os, socket, sys
p = sys.argv[1] + "/log.sock"
if os.path.exists(p):
    os.unlink(p)
log = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
log.bind(p)
os.chmod(p, 0o777)
log.settimeout(15)
sys.stdout.write("ready\n"); sys.stdout.flush()
try:
    sys.stdout.write("log-received:" + log.recv(100).decode() + "\n")
except OSError:
    sys.stdout.write("log-received:\n")
PY
dgram_try() { # TYPE: what the command answers for socketpair(AF_UNIX, TYPE) + sendto
	"$SBXSH" -c 'python3 -c "
import socket, sys
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.$0)
    a.sendto(b\"forged\", sys.argv[1])
    print(\"sent\")
except OSError as e:
    print(e.strerror)
" "$1"' "$1" "$T/log.sock" 2>&1
}
for type in SOCK_DGRAM SOCK_RAW; do
	python3 "$T/dgram.py" "$T" > "$T/log.out" &
	lpid=$!
	i=0; while [ "$i" -lt 50 ] && ! grep -q ready "$T/log.out"; do sleep 0.1; i=$((i + 1)); done
	got=$(dgram_try "$type")
	[ "$got" = sent ] || python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"", sys.argv[1])' "$T/log.sock"
	wait "$lpid"
	is "socketpair(AF_UNIX, $type) is refused (EPERM) unless unix_sockets = all" "$got" \
		"Operation not permitted"
	is "…and nothing reached the host's datagram socket" \
		"$(sed -n 's/^log-received://p' "$T/log.out")" ""
done
is "socketpair(AF_UNIX, SOCK_STREAM) still works" \
	"$("$SBXSH" -c 'python3 -c "import socket; socket.socketpair(); print(\"pair\")"' 2>&1)" pair
user_policy "$base
unix_sockets = all"
out=$(fds_run)
is "unix_sockets = all: fd 3 passes" "$(field 'fd3: ')" socket
is "…and reaches the agent" "$(field agent-received:)" signed
unlike "…with no note but the inet socket's" "$(cat "$T/fds.err")" 'note: descriptor [^7]'
user_policy "$base"

# --- 4. unix_sockets = all: bind() of an AF_UNIX socket makes a name: the guard's ---
mkdir -p "$T/proj/.git/hooks" "$T/proj/sub"
bind_try() { # MONITOR: one line per bind, "NAME RESULT"
	user_policy "[sbxsh]
monitor = $1
$base
unix_sockets = all"
	"$SBXSH" -c 'python3 -c "
import socket
def b(label, addr, fam=socket.AF_UNIX):
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.bind(addr)
        s.listen(1)
        if fam == socket.AF_UNIX and addr[:1] != \"\\0\":
            c = socket.socket(socket.AF_UNIX)
            c.connect(addr)
        print(label, \"ok\")
    except OSError as e:
        print(label, e.strerror.replace(\" \", \"_\"))
b(\"hook\", \".git/hooks/pre-commit\")
b(\"config\", \".git/config\")
b(\"abs-hook\", \"'"$T"'/proj/.git/hooks/post-merge\")
b(\"ok\", \"ok.sock\")
b(\"sub\", \"sub/x.sock\")
b(\"abs\", \"'"$T"'/proj/sub/y.sock\")
b(\"abstract\", \"\\0sbxsh-test-\" + str(__import__(\"os\").getpid()))
b(\"inet\", (\"127.0.0.1\", 0), socket.AF_INET)
b(\"inet80\", (\"127.0.0.1\", 80), socket.AF_INET)
b(\"inet6-1023\", (\"::1\", 1023), socket.AF_INET6)
b(\"inet1024\", (\"127.0.0.1\", 1024), socket.AF_INET)
"' 2>"$T/bind.err"
}
for level in off on; do
	rm -f "$T/proj/ok.sock" "$T/proj/sub/x.sock" "$T/proj/sub/y.sock"
	out=$(bind_try $level)
	got() { printf '%s\n' "$out" | sed -n "s/^$1 //p"; }
	is "monitor $level: bind at .git/hooks/pre-commit is refused (EROFS)" "$(got hook)" Read-only_file_system
	check "…and made no file there" test ! -e "$T/proj/.git/hooks/pre-commit"
	is "monitor $level: bind at .git/config is refused" "$(got config)" Read-only_file_system
	is "monitor $level: bind at an absolute hooks path is refused" "$(got abs-hook)" Read-only_file_system
	check "…and made no file there" test ! -e "$T/proj/.git/hooks/post-merge"
	is "monitor $level: bind of ./ok.sock works (and a client connects)" "$(got ok)" ok
	check "…a socket on the host" test -S "$T/proj/ok.sock"
	is "monitor $level: bind of sub/x.sock works" "$(got sub)" ok
	is "monitor $level: bind of an absolute path works" "$(got abs)" ok
	check "…a socket on the host" test -S "$T/proj/sub/y.sock"
	is "monitor $level: an abstract bind works" "$(got abstract)" ok
	is "monitor $level: an inet bind works" "$(got inet)" ok
	# the guard binds from outside, as the user who made the sandbox's user namespace (every
	# capability in it): a privileged port must still be the command's EACCES
	is "monitor $level: an inet bind of port 80 is EACCES, as the kernel says to the command" \
		"$(got inet80)" Permission_denied
	is "monitor $level: an inet6 bind of port 1023 is EACCES" "$(got inet6-1023)" Permission_denied
	is "monitor $level: an inet bind of port 1024 works" "$(got inet1024)" ok
done
like "the refusal is a violation naming the rule" "$(cat "$T/bind.err")" \
	'write .*\.git/config \(bind\).*(mandatory|git_config)'
# Without unix_sockets = all a socketpair's end can still be bound to a path: a name made.
user_policy "$base"
out=$("$SBXSH" -c 'python3 -c "
import socket
for label, path in ((\"pair-config\", \".git/config\"), (\"pair-ok\", \"pair.sock\")):
    a, b = socket.socketpair()
    try:
        a.bind(path); print(label, \"ok\")
    except OSError as e:
        print(label, e.strerror.replace(\" \", \"_\"))
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
a, b = socket.socketpair()
buf = ctypes.create_string_buffer(b\"\\x01\\x00\" + b\"x\" * 126, 128)
r = libc.bind(a.fileno(), buf, 120)
print(\"pair-long\", \"ok\" if r == 0 else os.strerror(ctypes.get_errno()).replace(\" \", \"_\"))
"' 2>&1)
is "…an address longer than a sockaddr_un is EINVAL, as the kernel says" \
	"$(printf '%s\n' "$out" | sed -n 's/^pair-long //p')" Invalid_argument
is "default policy: a socketpair end bound at .git/config is refused" \
	"$(printf '%s\n' "$out" | sed -n 's/^pair-config //p')" Read-only_file_system
check "…and made no file there" test ! -e "$T/proj/.git/config"
is "…one bound at pair.sock works" "$(printf '%s\n' "$out" | sed -n 's/^pair-ok //p')" ok
if [ -x "$helper" ] && [ "$(uname -m)" = x86_64 ]; then
	# socketcall(SYS_BIND 2, {fd, addr, len}): its address is in memory the guard cannot
	# hold: refused (the direct i386 bind, 361, goes to the guard)
	if [ "$(./try i386 getpid 2>&1)" = ok ]; then
		out=$("$SBXSH" -c './try i386 socketcall 2 w:0,s:x,2' 2>&1)
		is "i386 socketcall(SYS_BIND) is EPERM with unix_sockets = all" "$out" EPERM
	else
		skip "i386 socketcall(SYS_BIND) with unix_sockets = all" "no IA32 emulation here"
	fi
fi
user_policy "$base"

# --- 5. a bwrap without --bind-fd: doctor says so, and a command fails closed ---
is "doctor: this bwrap has --bind-fd" "$("$SBXSH" doctor 2>&1 | grep -E '^[a-zA-Z]+ +bwrap --bind-fd' | awk '{print $1}')" ok
mkdir -p "$T/oldbwrap"
cat > "$T/oldbwrap/bwrap" << 'SH'
#!/bin/sh
# an older bubblewrap: no --bind-fd
for a; do
	if [ "$a" = --bind-fd ]; then echo "bwrap: Unknown option --bind-fd" >&2; exit 1; fi
done
exec /usr/bin/bwrap "$@"
SH
chmod 755 "$T/oldbwrap" "$T/oldbwrap/bwrap"
user_policy "[sbxsh]
bwrap = $T/oldbwrap/bwrap
$base"
doc=$("$SBXSH" doctor 2>&1)
if printf '%s\n' "$doc" | grep -q "oldbwrap/bwrap"; then
	like "doctor: a bwrap without --bind-fd is a FAIL that says the fix" "$doc" \
		'^FAIL +bwrap --bind-fd +this bwrap lacks --bind-fd.*install a newer bubblewrap'
	out=$("$SBXSH" -c 'echo ran-unsandboxed' 2>&1); st=$?
	unlike "…and a command with a write grant does not run" "$out" '^ran-unsandboxed$'
	is "…exit 125 (refused)" "$st" 125
	like "…with bwrap's own word for it" "$out" 'bind-fd'
else
	skip "doctor and a command with a bwrap lacking --bind-fd" "[sbxsh] bwrap is not taken from a user file"
fi
user_policy "$base"

done_testing
