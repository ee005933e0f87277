#!/bin/sh
# guard.sh [B [BASE [PRE]]] — the "Guard" benchmark (docs/monitor.md "The guard",
# "Performance"): this tree against the revision BASE (default be87052: the guard before its
# per-thread cache) and PRE (default f49c361: the last build before the guard), in interleaved
# rounds (each round runs every configuration in turn):
#   - `sbxsh -c true`, network = none, at monitor = off and on;
#   - extracting a tarball of 20,000 small files (made here) into the project, at off, writes
#     and on — onto a tmpfs mounted for it when run as root (a disk's spread hides the
#     difference), else onto /var/tmp;
#   - a C build: `make -j2` of 41 generated C files and their link, at monitor = writes;
#   - `git clone` of a local repository of 5,000 files (made here) into the project, at on and
#     off (git_config = yes: a clone writes its .git/config);
#   - one guarded create: a Python loop of 10,000 os.open(O_CREAT|O_EXCL) + close at off, less
#     the same loop opening one file for reading (not notified), per call; with sbxsh pinned to
#     one CPU (taskset -c 0) and not.
# GUARD_BENCH_ONLY="true tar make clone creates" picks parts (all by default).
# Needs hyperfine, python3, tar, taskset, git, gcc, make. Writes the "Guard" section of bench/RESULTS.md
# in place (and prints it; progress on stderr). Tests never assert timings.
set -eu
B=${1:-build}
BASE=${2:-be87052}
PRE=${3:-f49c361}
RUNS=${GUARD_BENCH_ROUNDS:-10}
ONLY=${GUARD_BENCH_ONLY:-true tar make clone creates}
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
. "$(dirname "$0")/lib.sh"
W=$work
cleanup() {
	cd /
	if [ -n "${mounted:-}" ]; then umount "$W/fs" 2> /dev/null || true; fi
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
bench_need hyperfine git tar taskset /usr/bin/python3 gcc make
PY=/usr/bin/python3

echo "guard.sh: building this tree, $BASE and $PRE" >&2
bench_install bench-build "$W/new"
for v in base pre; do
	[ "$v" = base ] && rev=$BASE || rev=$PRE
	mkdir "$W/$v-src"
	(cd "$top" && git archive "$rev") | tar -x -C "$W/$v-src"
	(cd "$W/$v-src" && $MAKE --no-print-directory B="$W/$v-build" PREFIX="$W/$v" \
		SYSCONFDIR="$W/$v/etc" install > "$W/$v.log" 2>&1) || { cat "$W/$v.log"; exit 1; }
done
base_rev=$(cd "$top" && git rev-parse --short "$BASE")
pre_rev=$(cd "$top" && git rev-parse --short "$PRE")
new_rev=$(cd "$top" && git rev-parse --short HEAD)$(cd "$top" && git diff --quiet HEAD -- . || echo '+')

mkdir -p "$W/fs"
where="/var/tmp (ext4 or whatever holds it)"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=2g,mode=755 sbxsh-bench "$W/fs" 2> /dev/null; then
	mounted=1
	where="a tmpfs"
fi
export HOME="$W/fs/home" XDG_CONFIG_HOME="$W/fs/home/.config"
unset XDG_STATE_HOME SBXSH_CONFIG
P=$W/fs/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git"
chmod 700 "$HOME"
for m in off writes on; do
	printf '[sbxsh]\nmonitor = %s\non_violation = warn\n[default]\nnetwork = none\ngit_config = yes\n' "$m" > "$W/$m.ini"
	chmod 600 "$W/$m.ini"
done

echo "guard.sh: making the tarball of 20,000 files" >&2
mkdir "$W/src"
(cd "$W/src" && $PY -c '
import os
for d in range(100):
    os.mkdir(f"d{d}")
    for f in range(200):
        with open(f"d{d}/f{f}", "w") as o:
            o.write(f"{d} {f}\n")
' && tar -cf "$W/t.tar" .)
rm -rf "$W/src"
echo "guard.sh: making the C sources and the repository of 5,000 files" >&2
mkdir "$P/cb"
$PY - "$P/cb" << 'EOF'
import sys
d = sys.argv[1]
objs = []
for i in range(40):
    with open(f"{d}/u{i}.c", "w") as o:
        o.write("#include <string.h>\n")
        for k in range(30):
            o.write(f"int f{i}_{k}(const char *s) {{ int n = 0; for (size_t j = 0; j < strlen(s); j++)"
                    f" n += s[j] * {k + 1}; return n ^ {i}; }}\n")
    objs.append(f"o/u{i}.o")
with open(f"{d}/main.c", "w") as o:
    o.write("int main(void) { return 0; }\n")
with open(f"{d}/Makefile", "w") as o:  # the objects in o/: hyperfine's --prepare expands no glob
    o.write("OBJS = o/main.o " + " ".join(objs) + "\no/prog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n"
            "o/%.o: %.c\n\t@mkdir -p o\n\t$(CC) -O1 -c -o $@ $<\n")
EOF
mkdir "$W/repo"
(cd "$W/repo" && git init -q && $PY -c '
import os
for d in range(50):
    os.mkdir(f"d{d}")
    for f in range(100):
        with open(f"d{d}/f{f}.txt", "w") as o:
            o.write(f"{d} {f}\n" * 4)
' && git add . && git -c user.name=b -c user.email=b@x commit -qm files) ||
	{ echo "guard.sh: could not make the repository" >&2; exit 1; }
cat > "$P/creates.py" << 'EOF'
import os, sys
n, create = int(sys.argv[1]), sys.argv[2] == "1"
os.mkdir("c")
open("c/r", "w").close()
for i in range(n):
    if create:
        os.close(os.open(f"c/{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    else:
        os.close(os.open("c/r", os.O_RDONLY))
EOF
cd "$P"
for v in new base pre; do
	"$W/$v/bin/sbxsh" --config "$W/off.ini" -c true ||
		{ echo "guard.sh: $v: sbxsh -c true failed" >&2; exit 1; }
done

# round NAME RUNS WARM PREPARE CMD…: one round; each CMD is "label|config|command"
round() {
	_n=$1 _runs=$2 _warm=$3 _prep=$4
	shift 4
	set -- "$@"
	_args=
	for c; do
		_l=${c%%|*} _r=${c#*|}
		_cfg=${_r%%|*} _cmd=${_r#*|}
		_v=${_l%%-*}
		_args="$_args -n $_l"
		_args="$_args|$W/$_v/bin/sbxsh --config $W/$_cfg.ini -c '$_cmd'"
	done
	_i=0
	while [ "$_i" -lt "$RUNS" ]; do
		_i=$((_i + 1))
		[ "$_i" -gt 1 ] && _warm=0
		# the command lines hold spaces and quotes: hand them over through a file
		printf '%s' "$_args" | $PY -c '
import subprocess, sys
parts = sys.stdin.read().split(" -n ")[1:]
argv = ["hyperfine", "-N", "--warmup", sys.argv[1], "--runs", sys.argv[2],
        "--export-json", sys.argv[3]]
if sys.argv[4]:
    argv += ["--prepare", sys.argv[4]]
for p in parts:
    label, cmd = p.split("|", 1)
    argv += ["-n", label, cmd]
sys.exit(subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
' "$_warm" "$_runs" "$W/$_n.$_i.json" "$_prep" ||
			{ echo "guard.sh: $_n failed under hyperfine" >&2; exit 1; }
	done
}

if want true; then
echo "guard.sh: sbxsh -c true" >&2
round true 20 20 "" "new-off|off|true" "base-off|off|true" "pre-off|off|true" \
	"new-on|on|true" "base-on|on|true" "pre-on|on|true"
fi
if want tar; then
echo "guard.sh: the tarball" >&2
round tar 1 1 "rm -rf $P/x" \
	"new-off|off|mkdir x && tar -xf $W/t.tar -C x" "base-off|off|mkdir x && tar -xf $W/t.tar -C x" \
	"new-writes|writes|mkdir x && tar -xf $W/t.tar -C x" \
	"base-writes|writes|mkdir x && tar -xf $W/t.tar -C x" \
	"new-on|on|mkdir x && tar -xf $W/t.tar -C x" "base-on|on|mkdir x && tar -xf $W/t.tar -C x" \
	"pre-off|off|mkdir x && tar -xf $W/t.tar -C x" "pre-writes|writes|mkdir x && tar -xf $W/t.tar -C x" \
	"pre-on|on|mkdir x && tar -xf $W/t.tar -C x"
fi
if want make; then
echo "guard.sh: make -j2" >&2
"$W/new/bin/sbxsh" --config "$W/writes.ini" -c 'make -s -j2 -C cb' > /dev/null 2>&1 &&
	[ -x "$P/cb/o/prog" ] || { echo "guard.sh: make -j2 in the sandbox failed" >&2; exit 1; }
round make 1 1 "rm -rf $P/cb/o" \
	"new-writes|writes|make -s -j2 -C cb" "base-writes|writes|make -s -j2 -C cb" \
	"pre-writes|writes|make -s -j2 -C cb"
fi
if want clone; then
echo "guard.sh: git clone" >&2
"$W/new/bin/sbxsh" --config "$W/on.ini" -c "git clone -q $W/repo cl" > /dev/null 2>&1 &&
	[ -f "$P/cl/d49/f99.txt" ] || { echo "guard.sh: git clone in the sandbox failed" >&2; exit 1; }
rm -rf "$P/cl"
round clone 1 1 "rm -rf $P/cl" \
	"new-on|on|git clone -q $W/repo cl" "base-on|on|git clone -q $W/repo cl" \
	"pre-on|on|git clone -q $W/repo cl" "new-off|off|git clone -q $W/repo cl" \
	"base-off|off|git clone -q $W/repo cl" "pre-off|off|git clone -q $W/repo cl"
fi
if want creates; then
echo "guard.sh: guarded creates" >&2
for pin in 1 0; do
	t=
	[ "$pin" = 1 ] && t="taskset -c 0 "
	for v in new base; do
		for k in 1 0; do
			# a round of its own per variant: taskset wraps sbxsh, not the sandbox's shell
			printf '%s\n' "$t$W/$v/bin/sbxsh --config $W/off.ini -c '$PY creates.py 10000 $k'" > "$W/c.$pin.$v.$k.cmd"
		done
	done
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		hyperfine -N --runs 1 --prepare "rm -rf $P/c" --export-json "$W/cr.$pin.$i.json" \
			-n new-1 "$(cat "$W/c.$pin.new.1.cmd")" -n new-0 "$(cat "$W/c.$pin.new.0.cmd")" \
			-n base-1 "$(cat "$W/c.$pin.base.1.cmd")" -n base-0 "$(cat "$W/c.$pin.base.0.cmd")" \
			> /dev/null 2>&1 || { echo "guard.sh: creates failed under hyperfine" >&2; exit 1; }
	done
done
fi

{
echo "## Guard"
echo
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg); \`bench/guard.sh\`, hyperfine in $RUNS interleaved rounds (each runs every configuration in turn); new = $new_rev, base = $base_rev, pre = $pre_rev (before the guard); the project on $where; Python is \`$PY\`"
echo
$PY - "$W" <<'EOF'
import glob, json, statistics, sys
w = sys.argv[1]

def load(pat):
    t = {}
    for p in glob.glob(f"{w}/{pat}"):
        for x in json.load(open(p))["results"]:
            t.setdefault(x["command"], []).extend(x["times"])
    return t

med = statistics.median
t = load("true.*.json")
if t:
    n = len(t["new-off"])
    print(f"| `sbxsh -c true` ({n} runs each, medians) | new | base | pre | new − base | new − pre |")
    print("|---|---|---|---|---|---|")
    for m in ("off", "on"):
        a, b, c = (med(t[f"{v}-{m}"]) * 1e3 for v in ("new", "base", "pre"))
        print(f"| monitor = {m} | {a:.2f} ms | {b:.2f} ms | {c:.2f} ms | **{a - b:+.2f} ms** "
              f"| **{a - c:+.2f} ms** |")
    print()
for name, what, levels in (("tar", "20,000-file tarball into the project", ("off", "writes", "on")),
                           ("make", "`make -j2`, 41 C files and a link", ("writes",)),
                           ("clone", "`git clone` of 5,000 files into the project", ("off", "on"))):
    t = load(f"{name}.*.json")
    if not t:
        continue
    n = len(t[f"new-{levels[0]}"])
    print(f"| {what} ({n} runs each, medians) | new | base | pre | new/base | new/pre |")
    print("|---|---|---|---|---|---|")
    for m in levels:
        a, b, c = (med(t[f"{v}-{m}"]) for v in ("new", "base", "pre"))
        print(f"| monitor = {m} | {a * 1e3:.0f} ms | {b * 1e3:.0f} ms | {c * 1e3:.0f} ms "
              f"| **{a / b:.2f}×** | **{a / c:.2f}×** |")
    print()
if load("cr.1.*.json"):
    print("| one guarded create at off (10,000 `os.open(O_CREAT\\|O_EXCL)` + close, less the same "
          "loop of read opens, per call) | new | base |")
    print("|---|---|---|")
    for pin, what in (("1", "sbxsh pinned to one CPU"), ("0", "not pinned")):
        t = load(f"cr.{pin}.*.json")
        per = lambda v: (med(t[f"{v}-1"]) - med(t[f"{v}-0"])) / 10000 * 1e6
        print(f"| {what} | {per('new'):.1f} µs | {per('base'):.1f} µs |")
EOF
} > "$W/section.md"
cat "$W/section.md"
$PY "$top/bench/results.py" "$top/bench/RESULTS.md" < "$W/section.md"
