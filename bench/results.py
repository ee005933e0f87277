"""results — writes one "## NAME" section of bench/RESULTS.md for the bench scripts.

put_section(path, lines): the section whose heading is lines[0] is replaced where it stands
(everything up to the next "## " heading); appended when the file has none. Other sections,
the hand-written notes among them, are left as they are. As a script:
    python3 bench/results.py RESULTS.md < section.md
"""
import os
import sys


def put_section(path, sec):
    sec = list(sec)
    while sec and sec[-1] == "":
        sec.pop()
    head = sec[0].strip()
    old = open(path).read().splitlines() if os.path.exists(path) else ["# sbxsh benchmark results"]
    out, skip, done = [], False, False
    for line in old:
        if line.startswith("## "):
            skip = line.strip() == head
            if skip and not done:
                out += sec + [""]
                done = True
        if not skip:
            out.append(line)
    while out and out[-1] == "":
        out.pop()
    if not done:
        out += [""] + sec
    open(path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    put_section(sys.argv[1], sys.stdin.read().splitlines())
