#!/usr/bin/env python3
"""aider_replay.py — runs one command the way Aider's run_cmd_pexpect does (compat.md 14):
pexpect.spawn($SHELL, ["-i", "-c", COMMAND]) on a pty of its own, reading everything the
command writes until it ends, then the exit status. Here with the standard library's pty
(pexpect is a pty.fork and an exec). Prints "status N" and then the output, CRs dropped.

    aider_replay.py COMMAND
"""
import os
import pty
import sys

shell = os.environ.get("SHELL", "/bin/sh")
pid, fd = pty.fork()
if pid == 0:
    os.execv(shell, [shell, "-i", "-c", sys.argv[1]])
out = b""
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:  # EIO: the pty's other side is gone
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
code = os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st)
print("status %d" % code)
sys.stdout.write(out.decode("utf-8", "replace").replace("\r", ""))
