#!/bin/sh
# agents.sh — what an agent pays (issue #14's goals): `sbxsh run -- AGENT` against AGENT alone
# (the agent's start: /bin/true stands for it), a tool call through the bash shim against
# `sbxsh -c` (the same command), and `npm install` of a project with 200 dependencies from a
# local registry stand-in (tests/e2e/npm_registry.py on loopback) in the sandbox against the
# same without it (cold caches both ways: npm's cache made anew each round). Interleaved: each
# round runs every command once, in turn. Writes the "Agents" section of bench/RESULTS.md.
# Usage: sh bench/agents.sh [BUILD_DIR]   ROUNDS=200 (start-up rows) NPM_ROUNDS=5
set -eu
B=${1:-build}
. "$(dirname "$0")/lib.sh"
reg=""
trap '[ -n "$reg" ] && kill "$reg" 2> /dev/null; rm -rf "$work"' EXIT INT TERM
bench_need python3 npm node
bench_install bench-agents "$work/inst"
S=$work/inst/bin/sbxsh
SHIM=$work/inst/libexec/sbxsh/shims/bash
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
unset XDG_STATE_HOME
mkdir -p "$HOME/.config/sbxsh" "$work/proj/.git"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$HOME/.config/sbxsh/sbxsh.ini" << EOF
[default]
allow_domains += localhost:$port
env_set += npm_config_cache=/tmp/npm-cache
EOF
chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"
python3 "$top/tests/e2e/npm_registry.py" "$port" 127.0.0.1 "127.0.0.1:$port" 200 "$work/proj" \
	> "$work/reg.out" 2>&1 &
reg=$!
i=0
until grep -q ready "$work/reg.out" 2> /dev/null; do
	i=$((i + 1))
	[ $i -gt 100 ] && { cat "$work/reg.out"; echo "agents.sh: the registry did not start" >&2; exit 1; }
	sleep 0.05
done
cd "$work/proj"
"$S" -c true # the session daemon up: every row joins it

ROUNDS=${ROUNDS:-200} NPM_ROUNDS=${NPM_ROUNDS:-5} python3 - "$S" "$SHIM" "$port" "$work" \
	> "$work/section.md" << 'PY'
import os, platform, shutil, statistics, subprocess, sys, time
S, shim, port, work = sys.argv[1:5]
reg = "http://127.0.0.1:%s/" % port
def once(argv, env=None):
    t = time.perf_counter_ns()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit("agents.sh: %s exited %d" % (" ".join(argv), p.returncode))
    return (time.perf_counter_ns() - t) / 1e6
def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])
def rounds(cmds, n, before=None):
    times = [[] for _ in cmds]
    for _ in range(n):
        for i, (_, a, env) in enumerate(cmds):
            if before:
                before()
            times[i].append(once(a, env))
    return [statistics.median(t) for t in times]
load0 = load()
start = [("/bin/true", ["/bin/true"], None),
         ("sbxsh run -- /bin/true", [S, "run", "--", "/bin/true"], None),
         ("sbxsh -c true", [S, "-c", "true"], None),
         ("bash shim -c true", [shim, "-c", "true"], None)]
for _ in range(10):
    for _, a, e in start:
        once(a, e)
m = rounds(start, int(os.environ["ROUNDS"]))
# the bare run's cache on a tmpfs too, as the sandbox's private /tmp is one
cache = "/dev/shm/sbxsh-bench-npm-%d" % os.getpid() if os.path.isdir("/dev/shm") else \
    os.path.join(work, "proj", "npm-cache")
def clean():
    shutil.rmtree(cache, ignore_errors=True)
    for d in ("node_modules",):
        shutil.rmtree(os.path.join(work, "proj", d), ignore_errors=True)
    try:
        os.unlink(os.path.join(work, "proj", "package-lock.json"))
    except FileNotFoundError:
        pass
npm = ["npm", "install", "--no-audit", "--no-fund", "--registry", reg]
bare_env = dict(os.environ, npm_config_cache=cache)
ncmds = [("npm install, no sandbox", npm, bare_env),
         ("npm install in sbxsh", [S, "-c", " ".join(npm)], None)]
n = rounds(ncmds, int(os.environ["NPM_ROUNDS"]), clean)
clean()
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print("\n".join([
    "## Agents", "",
    "What an agent pays (bench/agents.sh): `sbxsh run` against the agent alone (/bin/true stands",
    "for the agent), a tool call through the bash shim against `sbxsh -c`, and `npm install` of",
    "200 dependencies from a loopback registry stand-in (tests/e2e/npm_registry.py; in the",
    "sandbox through `allow_domains += localhost:PORT`, npm's cache in the private /tmp; cold",
    "caches both ways, each on a tmpfs). One interleaved run; medians. Goals (issue #14): `sbxsh run` adds under",
    "50 ms; the shim costs what `sbxsh -c` costs; npm within 1.15×.", "",
    "| | |", "|---|---|",
    "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "| machine | %s, %d CPUs, kernel %s |" % (cpu, os.cpu_count(), platform.release()),
    "| load | %s before, %s after |" % (load0, load()), "",
    "| command | median (ms) | against | added (ms) | × |", "|---|---:|---|---:|---:|",
    "| %s (%s rounds) | %.2f | | | |" % (start[0][0], os.environ["ROUNDS"], m[0]),
    "| %s | %.2f | /bin/true | %.2f | |" % (start[1][0], m[1], m[1] - m[0]),
    "| %s | %.2f | | | |" % (start[2][0], m[2]),
    "| %s | %.2f | sbxsh -c true | %.2f | %.2f |" % (start[3][0], m[3], m[3] - m[2], m[3] / m[2]),
    "| %s (%s rounds) | %.0f | | | |" % (ncmds[0][0], os.environ["NPM_ROUNDS"], n[0]),
    "| %s | %.0f | no sandbox | %.0f | %.2f |" % (ncmds[1][0], n[1], n[1] - n[0], n[1] / n[0]),
]))
PY
cat "$work/section.md"
python3 "$top/bench/results.py" "$top/bench/RESULTS.md" < "$work/section.md"
