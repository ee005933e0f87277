#!/bin/sh
# ab.sh — `sbxsh -c true` of this tree against another commit's, and both against bare bwrap,
# interleaved: each round runs every command once, in turn, so a drift of the machine's load
# falls on all of them alike. network = none; monitor on (the default) and off.
# Writes the "Start-up, before and after" section of bench/RESULTS.md.
# Usage: sh bench/ab.sh [BUILD_DIR] [BASE_COMMIT]   (default base: HEAD~1; ROUNDS=400)
set -eu
B=${1:-build}
base=${2:-HEAD~1}
. "$(dirname "$0")/lib.sh"
trap 'git -C "$top" worktree remove --force "$work/base-src" > /dev/null 2>&1; rm -rf "$work"' EXIT INT TERM
bench_need bwrap python3 git

bench_install bench-ab "$work/new"
rev=$(git -C "$top" rev-parse --short "$base")
git -C "$top" worktree add -q --detach "$work/base-src" "$base"
(cd "$work/base-src" && $MAKE --no-print-directory B="build-ab" PREFIX="$work/old" \
	SYSCONFDIR="$work/old/etc" install > "$work/old.log" 2>&1) || { cat "$work/old.log"; exit 1; }
mkdir -p "$work/proj/.git"
printf '[default]\nnetwork = none\n' > "$work/on.ini"
printf '[sbxsh]\nmonitor = off\n[default]\nnetwork = none\n' > "$work/off.ini"
chmod 600 "$work/on.ini" "$work/off.ini"
cd "$work/proj"
for v in old new; do
	"$work/$v/bin/sbxsh" --config "$work/on.ini" -c true ||
		{ echo "ab.sh: the $v sbxsh -c true failed" >&2; exit 1; }
done

ROUNDS=${ROUNDS:-400} PYTHONPATH="$top/bench" python3 - "$work" "$(command -v bwrap)" "$rev" \
	"$top/bench/RESULTS.md" <<'PY'
import os, platform, statistics, subprocess, sys, time
import results
work, bwrap, rev, out = sys.argv[1:5]
rounds = int(os.environ["ROUNDS"])
cmds = [
    ("bare bwrap", [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                    "--unshare-all", "--die-with-parent", "/bin/bash", "-c", "true"]),
]
for v, label in (("old", rev), ("new", "this tree")):
    for mon in ("on", "off"):
        cmds.append(("%s, monitor %s" % (label, mon),
                     [work + "/%s/bin/sbxsh" % v, "--config", work + "/%s.ini" % mon, "-c", "true"]))
def once(argv):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    os.waitpid(pid, 0)
    return (time.perf_counter_ns() - t) / 1e6
for _ in range(20):
    for _, a in cmds:
        once(a)
times = [[] for _ in cmds]
for _ in range(rounds):
    for i, (_, a) in enumerate(cmds):
        times[i].append(once(a))
med = [statistics.median(t) for t in times]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
ver = subprocess.run([bwrap, "--version"], capture_output=True, text=True).stdout.strip()
sec = ["## Start-up, before and after", "",
       "`sbxsh -c true` (network none) of this tree and of %s, against bare bwrap, in one" % rev,
       "interleaved run of %d rounds (bench/ab.sh; medians of wall time from a spawn to its" % rounds,
       "exit). Goal (design.md): ≤ 1.3× bare bwrap.", "",
       "| | |", "|---|---|",
       "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       "| machine | %s, %d CPUs, kernel %s, %s, load %s |" % (cpu, os.cpu_count(),
           platform.release(), ver, " ".join(open("/proc/loadavg").read().split()[:3])),
       "", "| command | median (ms) | × bare bwrap |", "|---|---:|---:|"]
for (name, _), m in zip(cmds, med):
    sec.append("| %s | %.2f | %.2f |" % (name, m, m / med[0]))
results.put_section(out, sec)
print("\n".join(sec))
PY
