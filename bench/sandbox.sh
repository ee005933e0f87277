#!/bin/sh
# sandbox.sh — what a sandboxed command costs: `sbxsh -c true` (default profile, network =
# none through a --config file) against bare bwrap running bash, in one hyperfine run.
# Goal (design.md): ≤ 1.3×.  Writes the "Sandbox start" section of bench/RESULTS.md.
# Usage: sh bench/sandbox.sh [BUILD_DIR]
set -eu
B=${1:-build}
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$work"' EXIT INT TERM
bench_need hyperfine bwrap python3

# A private install: the stage is found at its compiled-in LIBEXECDIR.
bench_install bench-build "$work/inst"
sbxsh=$work/inst/bin/sbxsh
# The same front end and stage on glibc (LIBC=glibc), for the comparison below.
bench_install bench-build-glibc "$work/instg" LIBC=glibc
mkdir -p "$work/proj/.git"
printf '[default]\nnetwork = none\n' > "$work/bench.ini"
printf '[sbxsh]\nmonitor = off\n[default]\nnetwork = none\n' > "$work/nomon.ini"
chmod 600 "$work/bench.ini" "$work/nomon.ini"
bwrap=$(command -v bwrap)

cd "$work/proj"
"$sbxsh" --config "$work/bench.ini" -c true || { echo "sandbox.sh: sbxsh -c true failed" >&2; exit 1; }
stage=$work/inst/libexec/sbxsh/sbxsh-stage
# 1-2: the comparison; 3-6: where the difference goes (a process start, the front end
# without the sandbox, the stage running /bin/true outside any sandbox, the monitor off).
hyperfine -N --warmup 30 --runs "${RUNS:-300}" --export-json "$work/h.json" \
	"$sbxsh --config $work/bench.ini -c true" \
	"$bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/bash -c true" \
	"/bin/true" \
	"$sbxsh --config $work/bench.ini --dry-run -c true" \
	"$stage --fd=3 -- /bin/true true" \
	"$sbxsh --config $work/nomon.ini -c true" \
	"$work/instg/bin/sbxsh --config $work/bench.ini -c true" \
	"$work/instg/bin/sbxsh --config $work/nomon.ini -c true"

PYTHONPATH="$top/bench" python3 - "$work/h.json" "$top/bench/RESULTS.md" "$(id -un)" <<'PY'
import json, os, platform, subprocess, sys, time
res = json.load(open(sys.argv[1]))["results"]
path, user = sys.argv[2], sys.argv[3]
med = [r["median"] * 1000 for r in res]
mean = [r["mean"] * 1000 for r in res]
ratio = med[0] / med[1]
def sh(*a):
    try: return subprocess.run(a, capture_output=True, text=True).stdout.strip()
    except OSError: return "?"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
load = open("/proc/loadavg").read().split()[:3]
sec = [
    "## Sandbox start",
    "",
    "`sbxsh -c true` (default profile, `network = none` via `--config`) against bare",
    "`bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/bash -c true`,",
    "one `hyperfine -N` run (bench/sandbox.sh). Goal: ≤ 1.3×.",
    "",
    "| | |",
    "|---|---|",
    "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "| machine | %s, %d CPUs, kernel %s, %s |" % (cpu, os.cpu_count(), platform.release(), sh("bwrap", "--version")),
    "| user | %s |" % user,
    "| load average at the end | %s |" % " ".join(load),
    "| `sbxsh -c true` (the monitor on: the default) | median %.2f ms (mean %.2f) |" % (med[0], mean[0]),
    "| `sbxsh -c true`, `monitor = off` | median %.2f ms (mean %.2f) |" % (med[5], mean[5]),
    "| bare bwrap + bash | median %.2f ms (mean %.2f) |" % (med[1], mean[1]),
    "| ratio (medians), monitor on | **%.2f×** |" % ratio,
    "| ratio (medians), monitor off | **%.2f×** |" % (med[5] / med[1]),
    "| the monitor adds (medians) | %.2f ms |" % (med[0] - med[5]),
    "",
    "Where the %.2f ms go (medians of the same run): one process start (`/bin/true`) costs"
    % (med[0] - med[1]),
    "%.2f ms here; the front end alone (`sbxsh --dry-run -c true`: start, policy load, mount"
    % med[2],
    "plan) %.2f ms; the stage alone running `/bin/true` (start, capabilities, seccomp, spawn,"
    % med[3],
    "wait) %.2f ms, i.e. %.2f ms over `/bin/true`. The sandboxed path has two process starts"
    % (med[4], med[4] - med[2]),
    "more than bare bwrap + bash (the front end and the stage, both static musl; `/bin/true`",
    "is a glibc program), paid on every command.",
    "The same two with the front end and the stage built on glibc (`LIBC=glibc`) instead of",
    "static musl: median %.2f ms (%.2f×), monitor off %.2f ms (%.2f×)."
    % (med[6], med[6] / med[1], med[7], med[7] / med[1]),
    "",
]
from results import put_section
put_section(path, sec)
print("ratio %.2f (sbxsh %.2f ms, bwrap %.2f ms) -> %s" % (ratio, med[0], med[1], path))
PY
