# guard_libc.py — what guard_gaps.py and guard_kernel.py share (imported from the directory of
# the script, which the suites copy beside it): libc's syscall(2) and one line of output a call.
import ctypes, errno, os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100


def res(name, f):
    """Prints "name: result": ok (f returned None), the value, or the errno's name."""
    try:
        v = f()
        print(f"{name}: {'ok' if v is None else v}")
    except OSError as e:
        print(f"{name}: {errno.errorcode.get(e.errno, e.errno)}")


def sysc(*a):
    """syscall(2) with these arguments (x86_64 numbers): its result, or OSError."""
    r = libc.syscall(*[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def call(*a):
    """sysc for a call's effect only: None (res prints ok), or OSError."""
    sysc(*a)
