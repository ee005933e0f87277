# pty_run.py [--type TEXT [--at-prompt | --ahead]] CMD…: runs CMD on a new pty (its
# controlling terminal) and prints what it wrote there (carriage returns dropped), then
# "status=N" on a line of its own (its exit status; -N: killed by signal N). TEXT (Python
# escapes: \n, \x04) is typed at once; with --at-prompt when the output first ends in a
# prompt ("$" or "#"); with --ahead before CMD starts (the line discipline queues it: typed
# ahead of the program). Reads until CMD closes the terminal or 20 s pass ("timed out", CMD
# killed, status=-1).
import os, pty, select, sys, time

args, text, when = sys.argv[1:], None, "now"
while args and args[0] in ("--type", "--at-prompt", "--ahead"):
    if args[0] == "--type":
        text = args[1].encode().decode("unicode_escape").encode("latin-1")
        args = args[2:]
    else:
        when = args[0][2:]
        args = args[1:]
r, w = os.pipe()
pid, fd = pty.fork()
if pid == 0:
    os.close(w)
    os.read(r, 1)  # until the text typed ahead is queued
    os.execv(args[0], args)
os.close(r)
if text is not None and when == "ahead":
    os.write(fd, text)
    time.sleep(0.3)  # the line discipline has queued it
    text = None
os.write(w, b"g")
os.close(w)
if text is not None and when == "now":
    os.write(fd, text)
    text = None
out, end = b"", time.time() + 20
while time.time() < end:
    if text is not None and out.rstrip().endswith((b"$", b"#")):
        os.write(fd, text)
        text = None
    if select.select([fd], [], [], 0.5)[0]:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
st = None
if time.time() >= end:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    print("timed out")
else:
    _, st = os.waitpid(pid, 0)
out = out.decode("utf-8", "replace").replace("\r", "")
sys.stdout.write(out if not out or out.endswith("\n") else out + "\n")
print("status=%d" % (os.waitstatus_to_exitcode(st) if st is not None else -1))
