# guard_spellings.py FILE — every other spelling of FILE opened for appending (//, /./, ..,
# a trailing slash, relative, /proc/self/cwd and root, /proc/{thread-self,self/task/TID,PID}/fd
# of a read-only descriptor, an O_PATH directory descriptor, /proc/self/fd/DIRFD/NAME, a child's
# /proc/PPID/fd), then fchmod and utime through the read-only descriptor. One "name: result"
# line each (errno names, or ok), and "planted: N" (lines appended that are there).
import errno, os, sys

f = sys.argv[1]
d, b = os.path.split(f)


def res(name, fn):
    try:
        r = fn()
        print(f"{name}: {'ok' if r is None else r}")
    except OSError as e:
        print(f"{name}: {errno.errorcode.get(e.errno, e.errno)}")


def app(p, dfd=None):
    fd = os.open(p, os.O_WRONLY | os.O_APPEND, dir_fd=dfd)
    os.write(fd, b"\necho planted\n")
    os.close(fd)


ro = os.open(f, os.O_RDONLY)
res("double slash", lambda: app("/" + f))
res("dot component", lambda: app(d + "/./" + b))
res("dotdot", lambda: app(d + "/../" + os.path.basename(d) + "/" + b))
res("trailing slash", lambda: app(f + "/"))
os.chdir(d)
res("relative", lambda: app(b))
res("proc self cwd", lambda: app("/proc/self/cwd/" + b))
res("proc self root", lambda: app("/proc/self/root" + f))
res("proc thread-self fd", lambda: app(f"/proc/thread-self/fd/{ro}"))
res("proc self task fd", lambda: app(f"/proc/self/task/{os.getpid()}/fd/{ro}"))
res("proc pid fd", lambda: app(f"/proc/{os.getpid()}/fd/{ro}"))
dfd = os.open(d, os.O_PATH | os.O_DIRECTORY)
res("O_PATH directory descriptor", lambda: app(b, dfd))
res("proc self fd of the directory, then the name", lambda: app(f"/proc/self/fd/{dfd}/{b}"))
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    res("a child through its parent's procfs fd", lambda: app(f"/proc/{os.getppid()}/fd/{ro}"))
    sys.stdout.flush()
    os._exit(0)
os.waitpid(pid, 0)
res("fchmod of the read-only descriptor", lambda: os.fchmod(ro, 0o600))
res("utime", lambda: os.utime(f, (1, 1)))
print("planted:", open(f).read().count("planted"))
