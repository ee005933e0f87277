#!/bin/sh
# ab.sh — `sbxsh -c true` of this tree against another build's, and both against bare bwrap,
# interleaved: each round runs every command once, in turn, so a drift of the machine's load
# falls on all of them alike. network = none; monitor on (the default) and off. Then the
# counts that do not depend on the load: the front end's instructions (valgrind, one run,
# children not traced) and bwrap's mount operations and mount-table reads (strace -f).
# Writes the "Start-up, before and after" section of bench/RESULTS.md (one per user).
#
# Usage: sh bench/ab.sh [BUILD_DIR] [BASE]
#   BASE: a commit of this repository (default HEAD~1; built from `git archive`), or an
#         installed prefix holding bin/sbxsh and libexec/sbxsh/ (used as it is).
#   ROUNDS=400      rounds of the interleaved run
#   AB_USER=NAME    (as root) measure as that user instead, in a clean environment as
#                   tests/run.sh runs e2e suites (e.g. AB_USER=sbxsh-test)
#   COUNT=0         skip the counts (valgrind and strace are then not needed)
#   AB_LABEL=NAME   what to call an installed BASE in the table (default: its directory's name)
set -eu
B=${1:-build}
base=${2:-HEAD~1}
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$work"' EXIT INT TERM
bench_need bwrap python3 git
count=${COUNT:-1}
[ "$count" = 0 ] || bench_need valgrind strace

bench_install bench-ab "$work/new"
if [ -x "$base/bin/sbxsh" ]; then
	old=$(cd "$base" && pwd)
	rev=${AB_LABEL:-${old##*/}}
else
	rev=$(git -C "$top" rev-parse --short "$base")
	old="$work/old"
	mkdir "$work/base-src"
	git -C "$top" archive "$rev" | tar -x -C "$work/base-src"
	(cd "$work/base-src" && $MAKE --no-print-directory B="build-ab" PREFIX="$old" \
		SYSCONFDIR="$old/etc" install > "$work/old.log" 2>&1) ||
		{ cat "$work/old.log"; exit 1; }
fi

mkdir -p "$work/proj/.git" "$work/out"
printf '[default]\nnetwork = none\n' > "$work/on.ini"
printf '[sbxsh]\nmonitor = off\n[default]\nnetwork = none\n' > "$work/off.ini"
chmod 600 "$work/on.ini" "$work/off.ini"
as=""
who=$(id -un)
if [ -n "${AB_USER:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "ab.sh: AB_USER needs root" >&2; exit 1; }
	home=$(getent passwd "$AB_USER" | cut -d: -f6)
	[ -n "$home" ] || { echo "ab.sh: no user $AB_USER" >&2; exit 1; }
	chown "$AB_USER" "$work/on.ini" "$work/off.ini" "$work/proj" "$work/proj/.git" "$work/out"
	chmod -R a+rX "$work"
	as="setpriv --reuid=$(id -u "$AB_USER") --regid=$(id -g "$AB_USER") --init-groups env -i \
PATH=/usr/local/bin:/usr/bin:/bin HOME=$home USER=$AB_USER LOGNAME=$AB_USER TMPDIR=/tmp"
	who=$AB_USER
fi
cd "$work/proj"
for v in "$old" "$work/new"; do
	$as "$v/bin/sbxsh" --config "$work/on.ini" -c true ||
		{ echo "ab.sh: $v/bin/sbxsh -c true failed (as $who)" >&2; exit 1; }
done

# The counts: one run each (they do not vary with the load).
counts="$work/counts"
: > "$counts"
if [ "$count" != 0 ]; then
	for v in old new; do
		d=$old
		[ $v = new ] && d="$work/new"
		for mon in on off; do
			ir=$($as valgrind --tool=callgrind --trace-children=no \
				--callgrind-out-file=/dev/null "$d/bin/sbxsh" --config "$work/$mon.ini" \
				-c true 2>&1 | sed -n 's/.*Collected : //p')
			$as strace -f -qq -e trace=mount,openat -o "$work/out/st.$v.$mon" "$d/bin/sbxsh" \
				--config "$work/$mon.ini" -c true
			mounts=$(grep -c ' mount(' "$work/out/st.$v.$mon" || true)
			reads=$(grep -c 'mountinfo' "$work/out/st.$v.$mon" || true)
			echo "$v $mon ${ir:-?} $mounts $reads" >> "$counts"
		done
	done
	$as strace -f -qq -e trace=mount,openat -o "$work/out/st.bare" bwrap --ro-bind / / --dev /dev \
		--proc /proc --unshare-all --die-with-parent /bin/bash -c true
	echo "bare - - $(grep -c ' mount(' "$work/out/st.bare" || true) $(grep -c mountinfo "$work/out/st.bare" || true)" >> "$counts"
fi

$as env ROUNDS="${ROUNDS:-400}" PYTHONPATH="$top/bench" python3 - "$work" "$(command -v bwrap)" \
	"$rev" "$old" "$who" "$counts" > "$work/section.md" <<'PY'
import os, platform, statistics, subprocess, sys, time
work, bwrap, rev, old, who, counts = sys.argv[1:7]
rounds = int(os.environ["ROUNDS"])
cmds = [
    ("bare bwrap", [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                    "--unshare-all", "--die-with-parent", "/bin/bash", "-c", "true"]),
]
for d, label in ((old, rev), (work + "/new", "this tree")):
    for mon in ("on", "off"):
        cmds.append(("%s, monitor %s" % (label, mon),
                     [d + "/bin/sbxsh", "--config", work + "/%s.ini" % mon, "-c", "true"]))
def once(argv):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    os.waitpid(pid, 0)
    return (time.perf_counter_ns() - t) / 1e6
def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])
for _ in range(20):
    for _, a in cmds:
        once(a)
load0 = load()
times = [[] for _ in cmds]
for _ in range(rounds):
    for i, (_, a) in enumerate(cmds):
        times[i].append(once(a))
def p10(v):
    v = sorted(v)
    return v[len(v) // 10]
med = [statistics.median(t) for t in times]
low = [p10(t) for t in times]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
ver = subprocess.run([bwrap, "--version"], capture_output=True, text=True).stdout.strip()
title = "## Start-up, before and after" + ("" if who == "root" else " (%s)" % who)
sec = [title, "",
       "`sbxsh -c true` (network none) as %s, of this tree and of %s, against bare bwrap, in" % (who, rev),
       "one interleaved run of %d rounds (bench/ab.sh; wall time from a spawn to its exit:" % rounds,
       "medians, and the 10th percentile, which the machine's other load moves least). Goal",
       "(design.md): ≤ 1.3× bare bwrap.", "",
       "| | |", "|---|---|",
       "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       "| machine | %s, %d CPUs, kernel %s, %s |" % (cpu, os.cpu_count(), platform.release(), ver),
       "| load | %s before, %s after |" % (load0, load()), "",
       "| command | median (ms) | × bare | × %s | p10 (ms) | × bare |" % rev, "|---|---:|---:|---:|---:|---:|"]
for i, ((name, _), m, l) in enumerate(zip(cmds, med, low)):
    ref = i - 2 if i >= 3 else i  # this tree's row against the other build's, same monitor
    sec.append("| %s | %.2f | %.2f | %s | %.2f | %.2f |" % (
        name, m, m / med[0], "%.2f" % (m / med[ref]) if i >= 3 else "", l, l / low[0]))
rows = [l.split() for l in open(counts).read().splitlines()]
if rows:
    sec += ["", "Counts (one run each; they do not depend on the load): the front end's instructions",
            "(valgrind --tool=callgrind --trace-children=no), and over the whole start (strace -f)",
            "the mount(2) calls and bwrap's reads of the mount table (one per bind or remount).", "",
            "| build | monitor | front-end instructions | mount(2) calls | mount-table reads |",
            "|---|---|---:|---:|---:|"]
    for v, mon, ir, mounts, reads in rows:
        name = {"old": rev, "new": "this tree", "bare": "bare bwrap"}[v]
        sec.append("| %s | %s | %s | %s | %s |" % (name, mon, ir if ir == "-" else "{:,}".format(int(ir)) if ir.isdigit() else ir, mounts, reads))
print("\n".join(sec))
PY
PYTHONPATH="$top/bench" python3 "$top/bench/results.py" "$top/bench/RESULTS.md" < "$work/section.md"
cat "$work/section.md"
