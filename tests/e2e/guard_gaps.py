# guard_gaps.py PROTECTED OK — the calls beside open and rename that change a file: fchmodat2,
# the xattr family, chmod/chown of a descriptor, a descriptor (O_TMPFILE) linked into place.
# x86_64 system call numbers (fchmodat2 452, fchownat 260, linkat 265).
# Prints one "name: result" line each (errno names, or ok / a value read back).
import os, sys
sys.dont_write_bytecode = True  # (no __pycache__ beside it: a write outside the grants)
from guard_libc import AT_FDCWD, call, res

prot, okf = sys.argv[1], sys.argv[2]
AT_EMPTY_PATH = 0x1000


def linkfollow(a, b):  # linkat(AT_SYMLINK_FOLLOW): os.link calls link(), which does not follow
    call(265, AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), 0x400)


def fchmodat2(p, m):
    call(452, AT_FDCWD, p.encode(), m, 0)


res("fchmodat2 protected", lambda: fchmodat2(prot, 0o755))
res("fchmodat2 ok", lambda: fchmodat2(okf, 0o640))
res("… mode", lambda: oct(os.stat(okf).st_mode & 0o777))
res("setxattr protected", lambda: os.setxattr(prot, "user.sbx", b"1"))
res("setxattr ok", lambda: os.setxattr(okf, "user.sbx", b"val"))
res("… read back", lambda: os.getxattr(okf, "user.sbx").decode())
res("removexattr ok", lambda: os.removexattr(okf, "user.sbx"))
res("… gone", lambda: os.getxattr(okf, "user.sbx"))
fd = os.open(prot, os.O_RDONLY)
res("fsetxattr protected (a read-only descriptor)", lambda: os.setxattr(fd, "user.sbx", b"1"))
res("fchmod by AT_EMPTY_PATH protected",
    lambda: call(452, fd, b"", 0o755, AT_EMPTY_PATH))
res("fchown by AT_EMPTY_PATH protected",
    lambda: call(260, fd, b"", os.getuid(), os.getgid(), AT_EMPTY_PATH))
os.close(fd)
fd = os.open(okf, os.O_RDONLY)
res("fsetxattr ok", lambda: os.setxattr(fd, "user.fd", b"fdval"))
res("… read back", lambda: os.getxattr(okf, "user.fd").decode())
res("fchown by AT_EMPTY_PATH ok", lambda: call(260, fd, b"", os.getuid(), os.getgid(), AT_EMPTY_PATH))
os.close(fd)
os.symlink(okf, "gaps-link")
res("lsetxattr on a symlink", lambda: os.setxattr("gaps-link", "user.sbx", b"1", follow_symlinks=False))
d = os.path.dirname(os.path.abspath(okf))
for name in ("tmp-linked", ".bashrc"):
    fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o600)
    os.write(fd, b"tmp\n")
    res(f"O_TMPFILE linked by /proc/self/fd as {name}",
        lambda: linkfollow(f"/proc/self/fd/{fd}", os.path.join(d, name)))
    os.close(fd)
fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o600)
res("O_TMPFILE linked by AT_EMPTY_PATH as .profile",
    lambda: call(265, fd, b"", AT_FDCWD, os.path.join(d, ".profile").encode(), AT_EMPTY_PATH))
os.close(fd)
fd = os.open(prot, os.O_RDONLY)
res("a protected file's descriptor linked as another name",
    lambda: linkfollow(f"/proc/self/fd/{fd}", os.path.join(d, "second-name")))
os.close(fd)
