#!/bin/sh
# pty.sh — the pty relay (docs/sbxsh.1.md, "Interactive use"): keystroke round trip (1,000
# one-byte echoes through `cat` on a raw pty) and the throughput of `cat` of 100 MB to the
# terminal, bash -c against sbxsh -c (and another commit's sbxsh -c, given BASE_COMMIT) on the
# same kind of pty, interleaved: each round runs every command once, in turn, so a drift of the
# machine's load falls on all of them alike; the ratios are taken within a round. Writes its
# section of RESULTS.md.
# Usage: sh bench/pty.sh [BUILD_DIR] [BASE_COMMIT]   (ROUNDS=7 cat rounds, ECHO_ROUNDS=5)
set -eu
B=${1:-build}
base=${2:-}
. "$(dirname "$0")/lib.sh"
trap 'git -C "$top" worktree remove --force "$work/base-src" > /dev/null 2>&1; rm -rf "$work"' EXIT INT TERM
bench_need python3
bench_install pty-build "$work/inst"
rev=
if [ -n "$base" ]; then
	bench_need git
	rev=$(git -C "$top" rev-parse --short "$base")
	git -C "$top" worktree add -q --detach "$work/base-src" "$base"
	(cd "$work/base-src" && $MAKE --no-print-directory B="build-pty" PREFIX="$work/old" \
		SYSCONFDIR="$work/old/etc" install > "$work/old.log" 2>&1) || { cat "$work/old.log"; exit 1; }
fi
export HOME="$work/home"
mkdir -p "$HOME" "$work/proj/.git"
cd "$work/proj"
head -c 100000000 /dev/zero | tr '\0' 'x' | fold -w 99 > "$work/big.txt"

ROUNDS=${ROUNDS:-7} ECHO_ROUNDS=${ECHO_ROUNDS:-5} PYTHONPATH="$top/bench" python3 - "$work" "$rev" \
	"$top/bench/pty_drive.py" "$top/bench/RESULTS.md" <<'PY'
import os, platform, statistics, subprocess, sys, time
import results
work, rev, drive, out = sys.argv[1:5]
cmds = [("bash", "/bin/bash")]
if rev:
    cmds.append(("sbxsh " + rev, work + "/old/bin/sbxsh"))
cmds.append(("sbxsh (this tree)", work + "/inst/bin/sbxsh"))
# the inner pty raw too, so every byte goes through cat (and, for sbxsh, the relay) both ways
echo_cmd = "stty raw -echo; echo READY; exec cat"
cat_cmd = "cat " + work + "/big.txt"


def run(mode, n, sh, c):
    r = subprocess.run(["/usr/bin/python3", drive, mode, str(n), sh, "-c", c],
                       capture_output=True, text=True, check=True)
    return [float(x) for x in r.stdout.split()]


load0 = open("/proc/loadavg").read().split()[:3]
echo = {name: [] for name, _ in cmds}  # medians of each round, µs
for _ in range(int(os.environ["ECHO_ROUNDS"])):
    for name, sh in cmds:
        echo[name].append(run("echo", 1000, sh, echo_cmd)[0])
cat = {name: [] for name, _ in cmds}  # MB/s
for _ in range(int(os.environ["ROUNDS"])):
    for name, sh in cmds:
        cat[name].append(run("cat", 0, sh, cat_cmd)[0])
load1 = open("/proc/loadavg").read().split()[:3]

med = statistics.median
sec = ["## Pty relay", ""]
sec.append("- %s, %d CPUs, Linux %s, load average %s before, %s after (bench/pty.sh; %s)" % (
    time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), platform.release(),
    " ".join(load0), " ".join(load1),
    "interleaved rounds, each runs every command once in turn; ratios within a round"))
sec += ["", "| keystroke round trip, 1,000 one-byte echoes through `cat` on a raw pty (median of each round, µs) | "
        + " | ".join(n for n, _ in cmds) + " |", "|---|" + "---|" * len(cmds)]
for i in range(len(echo["bash"])):
    sec.append("| round %d | " % (i + 1) + " | ".join("%.1f" % echo[n][i] for n, _ in cmds) + " |")
sec.append("| **median; − bash's** | " + " | ".join(
    "**%.1f**" % med(echo[n]) if n == "bash" else "**%.1f; %+.1f**" % (
        med(echo[n]), med([a - b for a, b in zip(echo[n], echo["bash"])])) for n, _ in cmds) + " |")
sec += ["", "- goal: within 0.1 ms (100 µs) of bash's", ""]
sec += ["| `cat` of 100 MB to the terminal (MB/s; the ratio to bash's in the same round) | "
        + " | ".join(n for n, _ in cmds) + " |", "|---|" + "---|" * len(cmds)]
for i in range(len(cat["bash"])):
    b = cat["bash"][i]
    sec.append("| round %d | " % (i + 1) + " | ".join(
        "%.1f" % cat[n][i] if n == "bash" else "%.1f (%.0f%%)" % (cat[n][i], 100 * cat[n][i] / b)
        for n, _ in cmds) + " |")
sec.append("| **median (median ratio)** | " + " | ".join(
    "**%.1f**" % med(cat[n]) if n == "bash" else "**%.1f (%.0f%%)**" % (
        med(cat[n]), 100 * med([a / b for a, b in zip(cat[n], cat["bash"])])) for n, _ in cmds) + " |")
sec += ["", "- goal: at least 90% of bash's throughput"]
print("\n".join(sec))
results.put_section(out, sec)
PY
