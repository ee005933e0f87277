"""openhands_drive.py — drives a shell in tmux as OpenHands' bash session does (its
runtime/utils/bash.py, re-written from its documented behaviour): the shell in a tmux window,
`export PROMPT_COMMAND='export PS1="…"'; export PS2=""` with its JSON prompt that begins
with a newline, then for each command: the screen and history cleared (C-l), the command
typed, the pane read until a prompt block follows it; the output is what lies before that
block (the anchor must start a line: `^###PS1JSON###`, MULTILINE), stripped of the command's
echo, as OpenHands hands it to the model; the exit code from the block's JSON.
Usage: openhands_drive.py TMUX_SOCKET SHELL_CMD COMMAND…   Prints one JSON line a command."""
import json, re, subprocess, sys, time

sock, shell, cmds = sys.argv[1], sys.argv[2], sys.argv[3:]
BEGIN, END = "\n###PS1JSON###\n", "\n###PS1END###"
RX = re.compile("^" + BEGIN.strip() + "(.*?)" + END.strip(), re.DOTALL | re.MULTILINE)


def tm(*a):
    return subprocess.run(["tmux", "-f", "/dev/null", "-S", sock] + list(a), capture_output=True,
                          text=True).stdout


def ps1():
    j = json.dumps({"pid": "$!", "exit_code": "$?", "username": r"\u", "hostname": r"\h",
                    "working_dir": r"$(pwd)"}, indent=2)
    return BEGIN + j.replace('"', r'\"') + END + "\n"


def matches(text):
    out = []
    for m in RX.finditer(text):
        try:
            json.loads(m.group(1).strip())
            out.append(m)
        except ValueError:
            pass
    return out


def pane():
    return tm("capture-pane", "-p", "-J", "-S", "-", "-t", "s").rstrip()


def wait_blocks(n, limit=60):
    end = time.time() + limit
    while time.time() < end:
        text = pane()
        if len(matches(text)) >= n:
            return text
        time.sleep(0.1)
    return None


tm("new-session", "-d", "-s", "s", "-x", "200", "-y", "50", shell)
tm("send-keys", "-t", "s", "-l", "export PROMPT_COMMAND='export PS1=\"%s\"'; export PS2=\"\"" % ps1())
tm("send-keys", "-t", "s", "Enter")
if wait_blocks(1) is None:
    print(json.dumps({"error": "no prompt block", "pane": pane()}))
    sys.exit(1)
for c in cmds:
    tm("send-keys", "-t", "s", "C-l")
    tm("clear-history", "-t", "s")
    tm("send-keys", "-t", "s", "-l", c)
    tm("send-keys", "-t", "s", "Enter")
    # done: the pane ends with a prompt block that comes after the command's line
    end, text = time.time() + 60, None
    while time.time() < end:
        t = pane()
        i = t.rfind("\n" + c)
        if i < 0 and t.startswith(c):
            i = 0
        if i >= 0 and t.endswith(END.strip()) and [m for m in matches(t) if m.start() > i]:
            text = t
            break
        time.sleep(0.1)
    if text is None:
        print(json.dumps({"command": c, "error": "no prompt block after it", "pane": pane()}))
        continue
    ms = matches(text)
    raw = text[: ms[-1].start()] if len(ms) == 1 else text[ms[-2].end() + 1: ms[-1].start()]
    output = raw.lstrip().removeprefix(c.lstrip()).lstrip().rstrip()
    meta = json.loads(ms[-1].group(1).strip())
    print(json.dumps({"command": c, "output": output, "exit_code": meta.get("exit_code"),
                      "working_dir": meta.get("working_dir")}))
if __import__("os").environ.get("OHDBG"): print(pane())
tm("kill-server")
