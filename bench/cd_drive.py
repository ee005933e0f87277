#!/usr/bin/python3
"""cd_drive.py — the profile switch on cd, timed as a person at a terminal sees it (bench/cdswitch.sh).

  cd_drive.py N DIR_A DIR_B SUB CMD…
      starts CMD (an interactive sbxsh) on a pty of its own in DIR_A; then N times: `cd DIR_B`
      and `cd DIR_A` (each a profile switch: Enter to the new profile's prompt), and N times
      `cd SUB` and `cd DIR_A` (SUB in DIR_A's profile: no switch, the baseline). Prints the
      median and mean of each, in milliseconds: "switch_med switch_mean plain_med plain_mean".
"""
import os, pty, select, statistics, sys, time


def found(got, want):
    """want: bytes, or (first, then): then after first."""
    if isinstance(want, bytes):
        return want in got
    i = got.find(want[0])
    return i >= 0 and got.find(want[1], i) >= 0


def read_until(fd, want, deadline=30.0):
    got = b""
    end = time.monotonic() + deadline
    while not found(got, want):
        if time.monotonic() > end:
            raise SystemExit("timed out waiting for %r (got %r)" % (want, got[-300:]))
        r, _, _ = select.select([fd], [], [], 1.0)
        if r:
            got += os.read(fd, 65536)
    return got


def timed(fd, line, want):
    t = time.perf_counter_ns()
    os.write(fd, line.encode() + b"\r")
    read_until(fd, want)
    return (time.perf_counter_ns() - t) / 1e6


def main():
    n, a, b, sub, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(a)
        os.execv(argv[0], argv)
    ma, mb = ("[sbxsh:dir %s] P> " % a).encode(), ("[sbxsh:dir %s] P> " % b).encode()
    read_until(fd, ma)
    sw, plain = [], []
    for _ in range(n):
        sw.append(timed(fd, "cd " + b, mb))
        sw.append(timed(fd, "cd " + a, ma))
    for i in range(n):
        # the prompt's text is the same: wait for the echo of a marker after it
        plain.append(timed(fd, "cd %s; echo D%dX" % (sub, i), (("D%dX\r\n" % i).encode(), ma)))
        plain.append(timed(fd, "cd %s; echo E%dX" % (a, i), (("E%dX\r\n" % i).encode(), ma)))
    os.write(fd, b"exit\r")
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    print("%.1f %.1f %.1f %.1f" % (statistics.median(sw), statistics.mean(sw),
                                   statistics.median(plain), statistics.mean(plain)))


main()
