#!/bin/sh
# 0155-stage-mounts — the masks over deny_read hits, the system's secrets and the kernel knobs
# (root's made by the stage itself before it drops its capabilities, a user's by bwrap:
# docs/architecture.md) are read-only and empty, and stay out of the command's reach: no
# unmount, no remount, no other way to the file; a mount the stage cannot make stops the
# command (exit 125, fail closed).
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none
on_violation = warn'
sb() { "$SBXSH" "$@"; }
stage=$SBXSH_STAGE/libexec/sbxsh/sbxsh-stage
printf 'machine example.com password SECRET\n' > "$HOME/.netrc"
mkdir -p "$HOME/.aws"
printf '[default]\nkey = SECRET\n' > "$HOME/.aws/credentials"

# try PATH: each way a command could take a mask off, with the errno each got.
try='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p = sys.argv[1].encode()
class A(ctypes.Structure):
    _fields_ = [("set", ctypes.c_uint64), ("clr", ctypes.c_uint64),
                ("prop", ctypes.c_uint64), ("userns", ctypes.c_uint64)]
def err(r):
    return "ok" if r == 0 else os.strerror(ctypes.get_errno())
out = []
out.append("umount " + err(libc.umount2(p, 0)))
out.append("detach " + err(libc.umount2(p, 2)))
out.append("remount " + err(libc.mount(None, p, None, 32 | 4096, None)))  # MS_REMOUNT|MS_BIND
a = A(0, 1, 0, 0)  # clear MOUNT_ATTR_RDONLY
out.append("setattr " + err(libc.syscall(442, -100, p, 0, ctypes.byref(a), 32)))
print(" ".join(out))'

masks="$HOME/.netrc $HOME/.aws"
if is_root; then
	for f in /etc/shadow /proc/kpageflags /proc/sys /sys/firmware /etc/ssl/private; do
		[ -e "$f" ] && masks="$masks $f"
	done
fi
for m in $masks; do
	out=$(sb -c 'python3 -c "$1" "$2"; if [ -d "$2" ]; then ls -A "$2" | wc -l; else wc -c < "$2"; fi
		if [ -d "$2" ]; then : > "$2/new" && echo wrote; else echo x >> "$2" && echo wrote; fi' \
		sh "$try" "$m" 2>/dev/null)
	like "$m: no unmount, no detach, no remount, no attribute cleared" "$out" \
		'^umount [^o].* detach [^o].* remount [^o].* setattr [^o]'
	case $m in
	/proc/sys) ;; # shown read-only, not emptied
	*) is "$m: …and it is still empty" "$(echo "$out" | sed -n 2p | tr -d ' ')" 0 ;;
	esac
	unlike "$m: …and read-only" "$out" '^wrote$'
done
is "no secret through another path (/proc/1/root)" \
	"$(sb -c 'cat /proc/1/root"$1"/.netrc /proc/self/root"$1"/.aws/credentials' sh "$HOME" 2>/dev/null)" ""
is "the masks' files are not left in /dev" "$(sb -c 'ls -A /dev | grep -c sbxsh' 2>/dev/null)" 0
unlike "/dev is read-only" "$(sb -c ': > /dev/new && echo wrote' 2>&1)" '^wrote$'
# the real path (the package run's stage is links in the host's /tmp, which the sandbox does not see)
marker=$(readlink -f "$SBXSH_STAGE/libexec/sbxsh/sandbox-marker")
like "the marker inside names the sandbox" "$(sb -c 'cat "$0"' "$marker" 2>&1)" '^sbxsh-sandbox '
unlike "…and cannot be rewritten" "$(sb -c 'echo x > "$0" && echo wrote' "$marker" 2>&1)" '^wrote$'
if is_root; then
	like "root: the stage makes them (its mount options in the bwrap argv)" \
		"$(sb --dry-run -c true 2>&1 | tr '\n' ' ')" '--mask-file=/etc/shadow .*--dev-ro '
else
	like "a user: bwrap makes them (the stage's capabilities would not reach them)" \
		"$(sb --dry-run -c true 2>&1 | tr '\n' ' ')" '--remount-ro /dev '
fi

# --- fail closed: the stage run by hand, as bwrap runs it, with a mount it cannot make ---
ln -s /etc/hostname "$T/link"
: > "$T/file"
if is_root; then
	ns="--unshare-user --uid 0 --gid 0 --cap-drop ALL --cap-add CAP_SETPCAP"
else
	ns="--unshare-user --cap-add CAP_SETPCAP"
fi
run_stage() {
	# shellcheck disable=SC2086
	bwrap --die-with-parent --as-pid-1 $ns "$@" --unshare-pid --ro-bind / / --dev /dev \
		--proc /proc -- "$stage" --fd=3 $mnt -- /bin/true true 3> /dev/null
}
for case in "--ro=/nonexistent:No such file" "--mask-file=$T/link:" \
	"--mask-dir=$T/file:" "--ro=$T/file:"; do
	mnt=${case%%:*}
	out=$(run_stage --cap-add CAP_SYS_ADMIN 2>&1)
	rc=$?
	is "$mnt: the stage stops (125)" "$rc" 125
	like "…naming the path" "$out" "sandbox stage: mounting over ${mnt#*=} in the sandbox: ${case#*:}"
done
# a path to hide that is gone by the stage's turn (the host removed a lock or temporary file
# since the plan) has nothing left to hide: the start goes on (e2e 0158)
for mnt in --mask-file=/nonexistent --mask-dir=/nonexistent; do
	out=$(run_stage --cap-add CAP_SYS_ADMIN 2>&1)
	# past its mounts, the stage by hand stops at its report (fd 3 is no socket here)
	like "$mnt: a path to hide gone since the plan is no failure" "$out" \
		'telling sbxsh the sandbox is ready'
	unlike "…and no mount is named" "$out" 'mounting over'
done
mnt=--mask-file=/etc/hostname
out=$(run_stage 2>&1)
rc=$?
is "without CAP_SYS_ADMIN the stage's mount fails and it stops (125)" "$rc" 125
like "…saying so" "$out" 'mounting over /etc/hostname in the sandbox: Operation not permitted'
if ! is_root; then
	out=$(run_stage --cap-add CAP_SYS_ADMIN 2>&1)
	rc=$?
	is "a user: CAP_SYS_ADMIN in bwrap's second user namespace does not reach the mounts (125)" \
		"$rc" 125
fi
done_testing
