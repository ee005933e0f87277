# guard_probe.py DIR — file-system calls whose results (values and errno names) must be the
# same inside the sandbox, where the guard performs them, as natively. Prints one line each.
import ctypes, errno, fcntl, os, stat, sys

d = sys.argv[1]
os.chdir(d)
os.umask(0o027)


def r(name, fn):
    try:
        v = fn()
        if isinstance(v, int) and v > 2 and name.startswith("open"):
            fl = os.get_inheritable(v)
            os.close(v)
            v = "fd inheritable=%s" % fl
        print(name, "ok", v if v is not None else "")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))


W, C, X = os.O_WRONLY, os.O_CREAT, os.O_EXCL
r("open-creat", lambda: os.open("f1", W | C, 0o666))
r("mode-umask", lambda: oct(stat.S_IMODE(os.stat("f1").st_mode)))
r("open-excl-exists", lambda: os.open("f1", W | C | X, 0o644))
r("open-cloexec", lambda: os.open("f1", W | os.O_CLOEXEC))
libc = ctypes.CDLL(None, use_errno=True)


def raw_open(path, flags):
    fd = libc.open(path.encode(), flags, 0o644)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "open")
    cl = fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    os.close(fd)
    return "cloexec=%d" % cl


r("raw-open-no-cloexec", lambda: raw_open("f1", W))
r("raw-open-cloexec", lambda: raw_open("f1", W | os.O_CLOEXEC))
fd = os.open("f1", W | os.O_APPEND)
os.write(fd, b"ab")
os.close(fd)
fd = os.open("f1", W | os.O_APPEND)
os.write(fd, b"cd")
print("append-pos", os.lseek(fd, 0, os.SEEK_CUR))
os.close(fd)
r("open-trunc", lambda: os.open("f1", W | os.O_TRUNC))
r("size-after-trunc", lambda: os.stat("f1").st_size)
os.symlink("f1", "l1")
os.symlink("missing-target", "l2")
r("open-nofollow-link", lambda: os.open("l1", W | os.O_NOFOLLOW))
r("open-excl-link", lambda: os.open("l2", W | C | X, 0o644))
r("open-creat-dangling", lambda: os.open("l2", W | C, 0o644))
r("dangling-made", lambda: os.path.exists("missing-target"))
os.mkdir("dir")
r("open-dir-write", lambda: os.open("dir", W))
r("open-dir-creat", lambda: os.open("dir", C | os.O_RDONLY, 0o644))
r("open-slash-new", lambda: os.open("new/", W | C, 0o644))
r("open-file-slash", lambda: os.open("f1/", W))
r("open-missing-parent", lambda: os.open("nodir/x", W | C, 0o644))
r("open-missing", lambda: os.open("nofile", W))
r("open-dot", lambda: os.open(".", W))
r("open-tmpfile", lambda: os.open("dir", os.O_TMPFILE | os.O_RDWR, 0o600))
r("open-rel-dotdot", lambda: os.open("dir/../f2", W | C, 0o644))
r("f2-made", lambda: os.path.exists("f2"))
r("mkdir-exists", lambda: os.mkdir("dir"))
r("mkdir-mode", lambda: (os.mkdir("dir2", 0o777), oct(stat.S_IMODE(os.stat("dir2").st_mode)))[1])
r("mkdir-link", lambda: os.mkdir("l1"))
r("mkdir-dot", lambda: os.mkdir("."))
open("dir/inner", "w").close()
r("rmdir-nonempty", lambda: os.rmdir("dir"))
r("rmdir-file", lambda: os.rmdir("f1"))
r("rmdir-dot", lambda: os.rmdir("."))
r("unlink-dir", lambda: os.unlink("dir"))
r("unlink-missing", lambda: os.unlink("nofile"))
r("unlink-link", lambda: os.unlink("l1"))
r("link-still-f1", lambda: os.path.exists("f1"))
r("rename-dir-onto-file", lambda: os.rename("dir2", "f1"))
r("rename-file-onto-dir", lambda: os.rename("f1", "dir"))
r("rename-missing", lambda: os.rename("nofile", "x"))
r("rename-ok", lambda: os.rename("f2", "f3"))
r("rename-into-own-child", lambda: os.rename("dir", "dir/sub"))
r("link-ok", lambda: os.link("f3", "f4"))
r("link-exists", lambda: os.link("f3", "f4"))
r("link-nlink", lambda: os.stat("f3").st_nlink)
r("symlink-exists", lambda: os.symlink("x", "f3"))
r("symlink-ok", lambda: os.symlink("x", "s1"))
r("readlink", lambda: os.readlink("s1"))
r("truncate-len", lambda: (os.truncate("f3", 5), os.stat("f3").st_size)[1])
r("truncate-dir", lambda: os.truncate("dir", 0))
r("chmod", lambda: (os.chmod("f3", 0o640), oct(stat.S_IMODE(os.stat("f3").st_mode)))[1])
r("chmod-missing", lambda: os.chmod("nofile", 0o600))
r("chown-self", lambda: os.chown("f3", os.getuid(), os.getgid()))
r("mkfifo", lambda: os.mkfifo("fifo"))
r("fifo-nonblock-noreader", lambda: os.open("fifo", W | os.O_NONBLOCK))
r("open-abs", lambda: os.open(os.path.join(d, "abs"), W | C, 0o644))
