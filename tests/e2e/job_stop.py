#!/usr/bin/python3
"""job_stop.py N CMD… — ^Z typed at once after a command starts, then `kill -9 %1` (e2e 0520).

Runs CMD (an interactive shell whose prompt ends in "P> ") on a pty of its own and, N times:
types `sleep K`, Enter, and, once the shell has given the terminal to the job's group (its
child does that right after the fork: a ^Z before it is the shell's, lost), ^Z after a random
0–8 ms (so the stop lands in the job's fork, exec and start-up calls as well as in its sleep),
`kill -9 %1`, and then `/bin/true; jobs`. Prints one line of counts:

  stopped=S lost=L startup=U alive=A stuck=T late=R

  stopped  jobs that ^Z stopped (the shell said "Stopped")
  lost     ^Z that came before the job had the terminal (the shell's own group ignores it, as
           under bash without sbxsh; rare since the wait for the job's group): no "Stopped"
           in 10 s (a stop said later, at load 10, left a stopped job that the next kill -9 %1
           took for its own); such a job is ended with ^C and not counted
  startup  stopped jobs that were not in their sleep (clock_nanosleep) when ^Z came
  alive    jobs still alive (not dead nor a zombie) 5 s after kill -9: the failure looked for
  stuck    jobs `jobs` still called Stopped after the next external command: the failure
           looked for (the job's end never reached the shell)
  late     jobs `jobs` called Stopped right after kill -9 but not after the next command:
           bash's own race (a SIGCHLD arriving in one of its deferred windows is left for the
           next one; bash 5.2 without sbxsh shows it as often), counted, not a failure
"""
import os, pty, random, re, select, sys, time

buf = b""


def read_until(fd, pat, t=10.0):
    global buf
    end = time.monotonic() + t
    while True:
        m = re.search(pat, buf)
        if m:
            out, buf = buf[: m.end()], buf[m.end() :]
            return out
        if time.monotonic() > end:
            if os.environ.get("JOB_STOP_DEBUG"):
                print("# timed out waiting for %r in %r" % (pat, buf[-200:]), flush=True)
            return None
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return None
            if not d:
                return None
            buf += d


def find(k):
    want = b"sleep\0%d\0" % k
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    if f.read() == want:
                        return int(p)
            except OSError:
                pass
    return None


def state(p):
    """The process's state letter ('gone' when reaped), and its current call's number."""
    try:
        with open("/proc/%d/stat" % p) as f:
            st = f.read().rsplit(") ", 1)[1].split()[0]
    except OSError:
        return "gone", None
    try:
        with open("/proc/%d/syscall" % p) as f:
            sc = f.read().split()[0]
    except (OSError, IndexError):
        sc = None
    return st, sc


def stat(p):
    """/proc/PID/stat's fields after the command name (state first), or None."""
    try:
        with open("/proc/%d/stat" % p) as f:
            return f.read().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return None


def inner_shell(root):
    """The shell behind sbxsh's pty relay: the process below ROOT that leads its own group,
    the foreground one of its terminal (the sandbox's pty), or None."""
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            st = stat(int(p))
            if st:
                kids.setdefault(int(st[1]), []).append(int(p))
    todo = list(kids.get(root, []))
    while todo:
        p = todo.pop()
        st = stat(p)
        if st and int(st[2]) == p and int(st[5]) == p:  # pgrp, tpgid
            return p
        todo += kids.get(p, [])
    return None


def wait_given(sh, t=10.0):
    """Until the shell has given its terminal to another group (the job's: bash's child does
    that right after its fork), for up to T s."""
    end = time.monotonic() + t
    while sh is not None and time.monotonic() < end:
        st = stat(sh)
        if st is None or int(st[5]) != sh:
            return
        time.sleep(0.0005)


def main():
    n, argv = int(sys.argv[1]), sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    if read_until(fd, rb"P> ", 30) is None:
        sys.exit("no prompt: %r" % buf[-300:])
    sh = inner_shell(pid)
    c = dict(stopped=0, lost=0, startup=0, alive=0, stuck=0, late=0)
    k = 7000 + os.getpid() % 1000 * 100
    tries = 0
    while c["stopped"] < n and tries < 3 * n:
        tries += 1
        k += 1
        os.write(fd, b"sleep %d\r" % k)
        wait_given(sh)
        time.sleep(random.uniform(0, 0.008))
        os.write(fd, b"\x1a")
        if read_until(fd, rb"Stopped +sleep %d" % k, 10) is None:
            c["lost"] += 1
            os.write(fd, b"\x03")
            read_until(fd, rb"P> ", 10)
            continue
        read_until(fd, rb"P> ", 10)
        c["stopped"] += 1
        p = find(k)
        if p is None or state(p)[1] not in ("230", "35"):
            c["startup"] += 1  # in its start-up calls, or before its exec (no such cmdline yet)
        os.write(fd, b"kill -9 %1\r")
        read_until(fd, rb"P> ", 10)
        os.write(fd, b"jobs; echo j-%d\r" % k)
        out = read_until(fd, rb"[\r\n]j-%d\r\n" % k, 10)
        if out is None:
            sys.exit("no answer to jobs: %r" % buf[-300:])
        read_until(fd, rb"P> ", 10)
        if p is not None:
            end = time.monotonic() + 5
            while state(p)[0] not in ("Z", "gone") and time.monotonic() < end:
                time.sleep(0.05)
            if state(p)[0] not in ("Z", "gone"):
                c["alive"] += 1
                print("# sleep %d (pid %d) alive after kill -9: %s" % (k, p, state(p)), flush=True)
                os.kill(p, 9)
        os.write(fd, b"/bin/true; jobs; echo k-%d\r" % k)
        out2 = read_until(fd, rb"[\r\n]k-%d\r\n" % k, 10)
        if out2 is None:
            sys.exit("no answer to /bin/true; jobs: %r" % buf[-300:])
        read_until(fd, rb"P> ", 10)
        if b"Stopped" in out2:
            c["stuck"] += 1
            print("# sleep %d still Stopped: %r" % (k, out2[-200:]), flush=True)
            os.write(fd, b"kill -9 %1; fg\r")
            read_until(fd, rb"P> ", 10)
        elif b"Stopped" in out:
            c["late"] += 1
    os.write(fd, b"exit\r")
    end = time.monotonic() + 10
    while os.waitpid(pid, os.WNOHANG)[0] == 0:
        if time.monotonic() > end:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            break
        read_until(fd, rb"$^", 0.1)  # keep the pty drained
    print(" ".join("%s=%d" % (x, c[x]) for x in ("stopped", "lost", "startup", "alive", "stuck", "late")))


if __name__ == "__main__":
    main()
