#!/bin/sh
# floor.sh — the floor of sbxsh's design on this machine: bare bwrap + bash against sbxsh's own
# bwrap argv (from --dry-run, bash in place of the stage), the same under a static front end
# that does nothing but spawn bwrap and wait (bench/floor/front.c), and under that front end
# and a static stage that does nothing but spawn bash and wait (bench/floor/stage.c): the
# process chain sbxsh -> bwrap -> sbxsh-stage -> bash with none of sbxsh's work. Then `sbxsh -c
# true` itself, monitor on and off. Interleaved rounds; p10 and median, and each against bare bwrap. The
# ≤ 1.3× start-up goal cannot be met by this design where the floor's ratio is near 1.3.
# Prints a table; writes nothing.
# Usage: sh bench/floor.sh [BUILD_DIR]   (ROUNDS=150; RT=1 runs under chrt -f 20, root only:
#        the measured processes preempt a loaded machine's others)
set -eu
B=${1:-build}
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$work"' EXIT INT TERM
bench_need bwrap python3 musl-gcc

bench_install bench-floor "$work/inst"
for p in front stage; do
	musl-gcc -O2 -static-pie -fPIE -o "$work/$p" "$top/bench/floor/$p.c"
done
mkdir -p "$work/proj/.git"
printf '[default]\nnetwork = none\n' > "$work/on.ini"
printf '[sbxsh]\nmonitor = off\n[default]\nnetwork = none\n' > "$work/off.ini"
chmod 600 "$work/on.ini" "$work/off.ini"
cd "$work/proj"
"$work/inst/bin/sbxsh" --config "$work/on.ini" --dry-run -c true > "$work/dry"
# sbxsh's bwrap options, its data files left out (no descriptor to give); then bash, or the
# floor's stage (bound in, as sbxsh's stage is when the mounts do not show it) running bash
python3 - "$work" << 'PY'
import sys
w = sys.argv[1]
a = open(w + "/dry").read().split("\n")[:-1]
o = a[:a.index("--")]
while "--ro-bind-data" in o:
    i = o.index("--ro-bind-data")
    del o[i:i + 3]
open(w + "/own-bash", "w").write("\n".join(o + ["--", "/bin/bash", "-c", "true"]) + "\n")
st = w + "/stage"
open(w + "/own-stage", "w").write("\n".join(o + ["--ro-bind", st, st, "--", st, "/bin/bash", "-c", "true"]) + "\n")
PY
rt=""
[ "${RT:-0}" = 1 ] && rt="chrt -f 20"
$rt env ROUNDS="${ROUNDS:-150}" python3 - "$work" "$(command -v bwrap)" << 'PY'
import os, statistics, sys, time
w, bwrap = sys.argv[1:3]
sb = w + "/inst/bin/sbxsh"
env = dict(os.environ)
cmds = [
    ("bare bwrap + bash", [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                           "--unshare-all", "--die-with-parent", "/bin/bash", "-c", "true"], env),
    ("sbxsh's bwrap argv, bash", [bwrap] + open(w + "/own-bash").read().split("\n")[1:-1], env),
    ("+ a front end that only spawns", [w + "/front", w + "/own-bash"], env),
    ("+ a stage that only spawns (the floor)", [w + "/front", w + "/own-stage"], env),
    ("sbxsh, monitor on", [sb, "--config", w + "/on.ini", "-c", "true"], env),
    ("sbxsh, monitor off", [sb, "--config", w + "/off.ini", "-c", "true"], env),
]
def once(a, e):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(a[0], a, e)
    _, st = os.waitpid(pid, 0)
    if st:
        sys.exit("floor.sh: %s failed (%d)" % (a[0], st))
    return (time.perf_counter_ns() - t) / 1e6
for _ in range(10):
    for _, a, e in cmds:
        once(a, e)
times = [[] for _ in cmds]
for _ in range(int(os.environ["ROUNDS"])):
    for i, (_, a, e) in enumerate(cmds):
        times[i].append(once(a, e))
def p10(v):
    return sorted(v)[len(v) // 10]
b10, bmed = p10(times[0]), statistics.median(times[0])
print("load %s, %s rounds" % (" ".join(open("/proc/loadavg").read().split()[:3]), os.environ["ROUNDS"]))
print("| command | p10 (ms) | median (ms) | × bare (p10 / median) |")
print("|---|---:|---:|---:|")
for (n, _, _), t in zip(cmds, times):
    print("| %s | %.2f | %.2f | %.2f / %.2f |" % (n, p10(t), statistics.median(t), p10(t) / b10,
                                                 statistics.median(t) / bmed))
PY
