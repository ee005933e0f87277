#!/bin/sh
# monitor.sh B — the "Monitor" benchmark (issue 5, docs/monitor.md): the same workloads under
# sbxsh with the violation monitor on, off, and off with strace tracing opens inside the
# sandbox (the reference runtime's approach). Needs hyperfine, gcc, make, git, python3, strace.
# Builds a private staged install from build dir B; writes the "Monitor" section of
# bench/RESULTS.md in place (and prints it; progress on stderr). Tests never assert timings.
set -eu
B=${1:-build}
RUNS=${MONITOR_BENCH_RUNS:-5}
. "$(dirname "$0")/lib.sh"
W=$work
trap 'rm -rf "$W"' EXIT INT TERM
bench_need hyperfine gcc make git strace /usr/bin/python3
# The interpreter itself: a python3 found first on PATH may be a wrapper (pyenv's shim is a bash
# script that costs ~40 ms a start), which would thin every ratio below.
PY=/usr/bin/python3
bench_install bench-build "$W/stage"
SBXSH=$W/stage/bin/sbxsh
export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config"
unset XDG_STATE_HOME SBXSH_CONFIG
mkdir -p "$HOME/.config/sbxsh" "$W/proj/.git"
chmod 700 "$HOME"
for m in on off writes full; do
	printf '[sbxsh]\nmonitor = %s\non_violation = warn\n[default]\nnetwork = none\n' "$m" > "$W/$m.ini"
	chmod 600 "$W/$m.ini"
done

# --- workloads, in the project ---
P=$W/proj
cd "$P"
mkdir -p cbuild
for i in $(seq 1 40); do
	printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\nint f%d(int x) { char b[32]; snprintf(b, sizeof b, "%%d", x); return (int)strlen(b) + (int)sqrt(x); }\n' "$i" > "cbuild/f$i.c"
done
printf 'int main(void) { return 0; }\n' > cbuild/main.c
printf 'OBJ := $(patsubst %%.c,%%.o,$(wildcard *.c))\nprog: $(OBJ)\n\t$(CC) -o $@ $(OBJ) -lm\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\n' > cbuild/Makefile
cat > imports.py <<'EOF'
import argparse, asyncio, csv, decimal, difflib, email.parser, http.client, json, logging
import multiprocessing, sqlite3, statistics, tarfile, unittest, urllib.request, xml.dom.minidom
import zipfile, concurrent.futures, dataclasses, typing, pathlib, subprocess, shutil, tempfile
EOF
cat > opens.py <<'EOF'
open("f", "w").close()
for i in range(50000):
    open("f").close()
EOF
cat > osopens.py <<'EOF'
import os
open("f", "w").close()
for i in range(50000):
    os.close(os.open("f", os.O_RDONLY))
EOF
echo "monitor.sh: making a git repository of 10,000 files" >&2
mkdir repo
(cd repo && git init -q && for d in $(seq 1 100); do mkdir "d$d"; for f in $(seq 1 100); do echo "$d $f" > "d$d/f$f"; done; done &&
	git add -A && git -c user.email=b@x -c user.name=b commit -qm init)

STRACE="strace -f --seccomp-bpf -e trace=open,openat -o /dev/null"
# name|command run by the sandbox's shell
cat > "$W/workloads" <<EOF
C build (make -j2, 41 files)|make -s -B -j2 -C cbuild
Python imports|$PY imports.py
git status (10,000 files)|git -C repo status --porcelain
50,000 opens (Python loop, open().close())|$PY opens.py
50,000 opens (os.open/os.close: the tightest loop)|$PY osopens.py
true|true
EOF
# the 10,000 files just written are still being flushed: let that settle before timing
sync
sleep 3

i=0
while IFS='|' read -r name cmd; do
	i=$((i + 1))
	echo "monitor.sh: $name" >&2
	# Rounds: each round runs every configuration once in turn (hyperfine), so a drift in the
	# machine's load during the minutes a workload takes falls on all of them alike. `true` is
	# a few milliseconds: it needs many runs to say anything about +0.5 ms; git status (~25 ms)
	# a few times more than the rest to say anything about 10%.
	per=1 warm=1
	case $cmd in
	true) per=20 warm=20 ;;
	*status*) per=5 warm=3 ;;
	esac
	round=0
	while [ "$round" -lt "$RUNS" ]; do
		round=$((round + 1))
		[ "$round" -gt 1 ] && warm=0
		hyperfine -N --warmup "$warm" --runs "$per" --export-json "$W/r$i.$round.json" \
			-n off "env SBXSH_CONFIG=$W/off.ini $SBXSH -c '$cmd'" \
			-n on "env SBXSH_CONFIG=$W/on.ini $SBXSH -c '$cmd'" \
			-n writes "env SBXSH_CONFIG=$W/writes.ini $SBXSH -c '$cmd'" \
			-n full "env SBXSH_CONFIG=$W/full.ini $SBXSH -c '$cmd'" \
			-n strace "env SBXSH_CONFIG=$W/off.ini $SBXSH -c '$STRACE $cmd'" > /dev/null 2>&1 ||
			{ echo "monitor.sh: $name failed under hyperfine" >&2; exit 1; }
	done
	echo "$name" > "$W/r$i.name"
done < "$W/workloads"

{
echo "## Monitor"
echo
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); \`bench/monitor.sh\`, hyperfine in $RUNS rounds, each running every configuration in turn (1 run a round; git status 5, \`true\` 20; warm-ups before the first), mean ± stddev over all runs; for \`true\` the difference of the medians"
echo "- off / on (the default) / writes / full: \`[sbxsh] monitor = …\` (docs/monitor.md, \"Levels\"); strace: monitor off, \`$STRACE\` inside the sandbox; Python is \`$PY\` (not a wrapper found on PATH)"
echo
python3 - "$W" "$i" <<'EOF'
import glob, json, statistics, sys
w, n = sys.argv[1], int(sys.argv[2])

def results(i):
    """Every run of round files r{i}.*.json, per configuration."""
    times = {}
    for path in glob.glob(f"{w}/r{i}.*.json"):
        for x in json.load(open(path))["results"]:
            times.setdefault(x["command"], []).extend(x["times"])
    return {k: {"mean": statistics.mean(t), "median": statistics.median(t),
                "stddev": statistics.stdev(t) if len(t) > 1 else 0.0} for k, t in times.items()}

print("| workload | off | on | on/off | goal | writes/off | full/off | strace | strace/off |")
print("|---|---|---|---|---|---|---|---|---|")
goals = {"true": "+0.5 ms", "50,000 opens (Python loop, open().close())": "≤ 2.5×",
         "50,000 opens (os.open/os.close: the tightest loop)": "—"}
for i in range(1, n + 1):
    name = open(f"{w}/r{i}.name").read().strip()
    r = results(i)
    f = lambda k: f'{r[k]["mean"]*1000:.1f} ± {r[k]["stddev"]*1000:.1f} ms'
    off, st = r["off"]["mean"], r["strace"]["mean"]
    rel = lambda k: (f"{(r[k]['median']-r['off']['median'])*1000:+.2f} ms" if name == "true"
                     else f"{r[k]['mean']/off:.2f}×")
    print(f"| {name} | {f('off')} | {f('on')} | **{rel('on')}** | {goals.get(name, '≤ 1.10×')} "
          f"| {rel('writes')} | {rel('full')} | {f('strace')} | {st/off:.2f}× |")
EOF
} > "$W/section.md"
# The "Monitor" section of bench/RESULTS.md, replaced where it stands (also printed).
cat "$W/section.md"
python3 "$top/bench/results.py" "$top/bench/RESULTS.md" < "$W/section.md"
