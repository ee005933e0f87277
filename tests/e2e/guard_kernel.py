# guard_kernel.py PROTECTED MISSING — the kernel's other ways to change a file or make a name,
# beside the calls the guard performs: io_uring's own openat/renameat/unlinkat, a file handle
# (name_to_handle_at / open_by_handle_at), a shared mapping of a read-only descriptor made
# writable, splice / copy_file_range / FICLONE / fallocate / pwritev2 into a read-only
# descriptor, fanotify, an AF_UNIX socket (the way to take a descriptor from another sandbox).
# PROTECTED: an existing protected file (read-only for the command); MISSING: a protected name
# that does not exist. x86_64 numbers. Prints one "name: result" line each (errno names, ok).
import ctypes, errno, mmap, os, sys
sys.dont_write_bytecode = True  # (no __pycache__ beside it: a write outside the grants)
from guard_libc import AT_FDCWD, libc, res, sysc

prot, missing = sys.argv[1], sys.argv[2]


# io_uring: setup refused means none of its operations (IORING_OP_OPENAT, RENAMEAT, UNLINKAT,
# MKDIRAT, SYMLINKAT, LINKAT, WRITE) can be submitted at all
params = ctypes.create_string_buffer(120)
res("io_uring_setup", lambda: sysc(425, 8, params) and None)
res("io_uring_register", lambda: sysc(427, 0, 0, 0, 0) and None)
res("io_uring_enter", lambda: sysc(426, 0, 1, 0, 0, 0, 0) and None)


def handle():
    fh = ctypes.create_string_buffer(8 + 128)
    ctypes.memmove(fh, (ctypes.c_uint * 1)(128), 4)
    mnt = ctypes.c_int(0)
    try:
        sysc(303, AT_FDCWD, prot.encode(), fh, ctypes.byref(mnt), 0)
    except OSError as e:
        print(f"name_to_handle_at: {errno.errorcode.get(e.errno, e.errno)}")
        return
    print("name_to_handle_at: ok")
    res("open_by_handle_at", lambda: os.close(sysc(304, AT_FDCWD, fh, os.O_WRONLY)))


handle()

fd = os.open(prot, os.O_RDONLY)
res("mmap_shared_write", lambda: mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) and None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
addr = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED


def mprot():
    if libc.mprotect(ctypes.c_void_p(addr), 4096, 3) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


res("mprotect_shared_write", mprot)
r, w = os.pipe()
os.write(w, b"evil\n")
res("splice_into_ro", lambda: sysc(275, r, 0, fd, 0, 5, 0) and None)
src = os.open("/proc/self/cmdline", os.O_RDONLY)
res("copy_file_range_into_ro", lambda: sysc(326, src, 0, fd, 0, 5, 0) and None)
res("sendfile_into_ro", lambda: sysc(40, fd, src, 0, 5) and None)
res("ficlone_into_ro", lambda: sysc(16, fd, 0x40049409, src) and None)
res("fallocate_ro", lambda: sysc(285, fd, 0, 0, 4096) and None)
buf = ctypes.create_string_buffer(b"evil\n")
iov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 5)
res("pwritev2_ro", lambda: sysc(328, fd, iov, 1, 0, 0, 0) and None)
res("fanotify_init", lambda: sysc(300, 0, 0) and None)
res("socket_unix", lambda: os.close(sysc(41, 1, 1, 0)))
res("missing_still_missing", lambda: None if not os.path.lexists(missing) else "MADE")
