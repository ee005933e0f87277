#!/usr/bin/python3
"""pty_drive.py — drives a command on a pty of its own, as a terminal would (bench/pty.sh).

  pty_drive.py echo N CMD…   N one-byte round trips (write a byte, wait for it to come back);
                             prints the median and mean in microseconds
  pty_drive.py cat 0 CMD…    reads all the command writes; prints MB/s and the byte count
"""
import os, pty, select, statistics, sys, time, tty


def spawn(argv):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    return pid, fd


def read_until(fd, want, deadline=30.0):
    got = b""
    end = time.monotonic() + deadline
    while want not in got:
        if time.monotonic() > end:
            raise SystemExit("timed out waiting for %r (got %r)" % (want, got[-200:]))
        r, _, _ = select.select([fd], [], [], 1.0)
        if r:
            got += os.read(fd, 65536)
    return got


def echo(n, argv):
    pid, fd = spawn(argv)
    read_until(fd, b"READY")
    times = []
    for i in range(n):
        b = bytes([97 + i % 26])
        t = time.perf_counter_ns()
        os.write(fd, b)
        got = b""
        while b not in got:
            got += os.read(fd, 64)
        times.append((time.perf_counter_ns() - t) / 1000)
    os.write(fd, b"\x04")
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    print("%.1f %.1f" % (statistics.median(times), statistics.mean(times)))


def cat(nbytes, argv):
    pid, fd = spawn(argv)
    total, t0 = 0, None
    while True:  # to the end: onlcr makes more bytes than the file has
        try:
            d = os.read(fd, 1 << 20)
        except OSError:
            break
        if not d:
            break
        if t0 is None:
            t0 = time.perf_counter()
        total += len(d)
    dt = time.perf_counter() - t0
    os.waitpid(pid, 0)
    print("%.1f %d" % (total / dt / 1e6, total))


if __name__ == "__main__":
    mode, n, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    (echo if mode == "echo" else cat)(n, argv)
