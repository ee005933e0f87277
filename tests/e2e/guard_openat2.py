# guard_openat2.py NAME SECONDS — one thread flips an open_how between O_RDONLY and O_WRONLY|O_CREAT
# while the main thread loops openat2(NAME) (x86_64: 437). Prints "calls N opened M".
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
class How(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]
h = How(0, 0o644, 0)
stop = False
def flip():
    while not stop:
        h.flags = 0
        h.flags = 0o101  # O_WRONLY | O_CREAT
t = threading.Thread(target=flip)
t.start()
end, n, opened = time.time() + float(sys.argv[2]), 0, 0
while time.time() < end:
    fd = libc.syscall(437, -100, sys.argv[1].encode(), ctypes.byref(h), 24)
    n += 1
    if fd >= 0:
        opened += 1
        os.close(fd)
stop = True
t.join()
print("calls", n, "opened", opened)
