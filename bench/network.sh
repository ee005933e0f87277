#!/bin/sh
# network.sh — what network = proxy adds to a command's start: `sbxsh -c true` with
# network = proxy (its fronts made by the stage, handed to a running session daemon) against
# the same with network = none, in one hyperfine run. Goal (issue 4): the network adds ≤ 1 ms.
# Writes the "Network start" section of bench/RESULTS.md.
# Usage: sh bench/network.sh [BUILD_DIR]
set -eu
B=${1:-build}
. "$(dirname "$0")/lib.sh"
sbxsh=$work/inst/bin/sbxsh
# A session of its own, stopped at the end.
export XDG_RUNTIME_DIR="$work/run" SBXSH_SESSION=bench
trap '"$sbxsh" session stop > /dev/null 2>&1; rm -rf "$work"' EXIT INT TERM
bench_need hyperfine bwrap python3
bench_install bench-build "$work/inst"
mkdir -m 700 "$XDG_RUNTIME_DIR"
mkdir -p "$work/proj/.git"
printf '[default]\nnetwork = none\n' > "$work/none.ini"
printf '[default]\nnetwork = proxy\nallow_domains = example.com localhost:5432\n' > "$work/proxy.ini"
chmod 600 "$work/none.ini" "$work/proxy.ini"

cd "$work/proj"
for c in none proxy; do
	"$sbxsh" --config "$work/$c.ini" -c true ||
		{ echo "network.sh: sbxsh -c true failed with network = $c" >&2; exit 1; }
done
hyperfine -N --warmup 30 --runs "${RUNS:-300}" --export-json "$work/h.json" \
	"$sbxsh --config $work/proxy.ini -c true" \
	"$sbxsh --config $work/none.ini -c true"

PYTHONPATH="$top/bench" python3 - "$work/h.json" "$top/bench/RESULTS.md" "$(id -un)" <<'PY'
import json, os, platform, sys, time
res = json.load(open(sys.argv[1]))["results"]
path, user = sys.argv[2], sys.argv[3]
med = [r["median"] * 1000 for r in res]
mean = [r["mean"] * 1000 for r in res]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
load = open("/proc/loadavg").read().split()[:3]
sec = [
    "## Network start",
    "",
    "`sbxsh -c true` with `network = proxy` (`allow_domains = example.com localhost:5432`: the",
    "stage listens on 3128, 1080 and one reach port (127.0.0.1, and ::1 with IPv6), hands them out,",
    "the front end passes them to the running session daemon with BEGIN and ENDs after) against",
    "the same with `network = none`, one `hyperfine -N` run (bench/network.sh). Goal: ≤ 1 ms.",
    "",
    "| | |",
    "|---|---|",
    "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "| machine | %s, %d CPUs, kernel %s |" % (cpu, os.cpu_count(), platform.release()),
    "| user | %s |" % user,
    "| load average at the end | %s |" % " ".join(load),
    "| `network = proxy` | median %.2f ms (mean %.2f) |" % (med[0], mean[0]),
    "| `network = none` | median %.2f ms (mean %.2f) |" % (med[1], mean[1]),
    "| the network adds (medians) | **%.2f ms** |" % (med[0] - med[1]),
    "",
]
from results import put_section
put_section(path, sec)
print("network adds %.2f ms (proxy %.2f ms, none %.2f ms) -> %s" % (med[0] - med[1], med[0], med[1], path))
PY
