#!/bin/sh
# proxy.sh — the session proxy's cost, loopback only: a bulk transfer through a CONNECT tunnel
# against the same transfer direct (goal ≥ 90%, design.md), and 1,000 concurrent tunnels
# (daemon RSS, connect latency p50/p99). Writes the "Proxy" section of bench/RESULTS.md.
# Usage: sh bench/proxy.sh [BUILD_DIR]    (SIZE_MB=1024 ROUNDS=3 TUNNELS=1000 to change)
set -eu
B=${1:-build}
MAKE=${MAKE:-make}
SIZE_MB=${SIZE_MB:-1024}
ROUNDS=${ROUNDS:-3}
TUNNELS=${TUNNELS:-1000}
top=$(cd "$(dirname "$0")/.." && pwd)
for c in curl python3; do
	command -v "$c" > /dev/null || { echo "proxy.sh: $c is missing (sh packaging/deps.sh bench)" >&2; exit 1; }
done
work=$(mktemp -d /var/tmp/sbxsh-bench.XXXXXX)
pids=""
trap 'kill $pids 2> /dev/null; XDG_RUNTIME_DIR=$work/run "$work/inst/bin/sbxsh" session stop > /dev/null 2>&1; rm -rf "$work"' EXIT INT TERM
chmod 755 "$work"
(cd "$top" && $MAKE --no-print-directory B="$B/bench-build" PREFIX="$work/inst" \
	SYSCONFDIR="$work/inst/etc" install > "$work/install.log" 2>&1) ||
	{ cat "$work/install.log"; exit 1; }
export XDG_RUNTIME_DIR="$work/run" SBXSH_SESSION=bench HOME="$work"
mkdir -m 700 "$work/run"
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

# The servers: a file served with sendfile (so the server is never the bottleneck), and an
# echo server for the tunnels.
python3 - "$work" "$SIZE_MB" > "$work/ports" <<'PY' &
import os, socket, sys, threading
work, mb = sys.argv[1], int(sys.argv[2])
path = os.path.join(work, "blob")
with open(path, "wb") as f:
    block = os.urandom(1 << 20)
    for _ in range(mb):
        f.write(block)
size = os.path.getsize(path)
def serve_file(c):
    with c:
        req = b""
        while b"\r\n\r\n" not in req:
            d = c.recv(4096)
            if not d:
                return
            req += d
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
        with open(path, "rb") as f:
            c.sendfile(f)
def echo(c):
    with c:
        while True:
            d = c.recv(4096)
            if not d:
                return
            c.sendall(d)
def loop(s, fn):
    while True:
        c, _ = s.accept()
        threading.Thread(target=fn, args=(c,), daemon=True).start()
ports = []
for fn in (serve_file, echo):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4096)
    ports.append(s.getsockname()[1])
    threading.Thread(target=loop, args=(s, fn), daemon=True).start()
print(*ports, flush=True)
threading.Event().wait()
PY
pids="$pids $!"
i=0; while [ ! -s "$work/ports" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
read -r fport eport < "$work/ports"

"$work/inst/bin/sbxsh" session start > "$work/start" || { cat "$work/start"; exit 1; }
sock=$(sed -n 's/.*socket \(.*\)$/\1/p' "$work/start")
dpid=$(sed -n 's/.*daemon pid \([0-9]*\).*/\1/p' "$work/start")
mkfifo "$work/ready"
python3 "$top/tests/e2e/sess_client.py" begin "$sock" --allow "127.0.0.1:$fport" \
	--allow "127.0.0.1:$eport" > "$work/ready" 2> /dev/null &
pids="$pids $!"
read -r line < "$work/ready"
hp=$(printf '%s\n' "$line" | sed -n 's/.*http=\([0-9]*\).*/\1/p')

# Bulk: the same GET, direct and through CONNECT (curl -p), alternating; best of ROUNDS.
cpu() { awk '{print $14 + $15}' "/proc/$dpid/stat"; }
speeds=""
cpu0=$(cpu)
for r in $(seq "$ROUNDS"); do
	d=$(curl -s -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$fport/blob")
	t=$(curl -s -p -x "http://127.0.0.1:$hp" -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$fport/blob")
	speeds="$speeds $d:$t"
done
cpu1=$(cpu)
rss0=$(awk '/^VmRSS/ {print $2}' "/proc/$dpid/status")
# the daemon's CPU per GiB relayed (clock ticks -> ms), a number the machine's load barely moves
cpu_ms=$(( (cpu1 - cpu0) * 1000 / $(getconf CLK_TCK) * 1024 / (SIZE_MB * ROUNDS) ))

# Tunnels: TUNNELS concurrent CONNECTs, opened at once, each timed from connect() to the
# daemon's "200 Connection established" (then one echo through it); the daemon's RSS read
# while all are open.
python3 - "$hp" "$eport" "$TUNNELS" "$dpid" > "$work/tunnels" <<'PY'
import asyncio, sys, time
hp, eport, n, dpid = (int(x) for x in sys.argv[1:5])
async def one(lat, hold):
    t0 = time.perf_counter()
    r, w = await asyncio.open_connection("127.0.0.1", hp)
    w.write(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (eport, eport))
    head = await r.readuntil(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0], head
    lat.append(time.perf_counter() - t0)
    w.write(b"ping")
    assert await r.readexactly(4) == b"ping"
    await hold.wait()
    w.close()
async def main():
    lat, hold = [], asyncio.Event()
    tasks = [asyncio.create_task(one(lat, hold)) for _ in range(n)]
    while len(lat) < n and not any(t.done() and t.exception() for t in tasks):
        await asyncio.sleep(0.05)
    rss = next(l.split()[1] for l in open("/proc/%d/status" % dpid) if l.startswith("VmRSS"))
    hold.set()
    await asyncio.gather(*tasks)
    lat.sort()
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] * 1000
    print(len(lat), rss, "%.2f" % q(0.50), "%.2f" % q(0.99), "%.2f" % (lat[-1] * 1000))
asyncio.run(main())
PY
read -r ntun rss1 p50 p99 pmax < "$work/tunnels"

# One at a time: what a CONNECT costs when nothing else waits for the client's event loop.
seq_lat=$(python3 - "$hp" "$eport" <<'PY'
import socket, sys, time
hp, eport = int(sys.argv[1]), int(sys.argv[2])
lat = []
for _ in range(300):
    t0 = time.perf_counter()
    c = socket.create_connection(("127.0.0.1", hp))
    c.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n" % eport)
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += c.recv(100)
    lat.append(time.perf_counter() - t0)
    c.close()
lat.sort()
print("%.2f/%.2f" % (lat[150] * 1000, lat[296] * 1000))
PY
)

python3 - "$top/bench/RESULTS.md" "$speeds" "$SIZE_MB" "$rss0" "$ntun" "$rss1" "$p50" "$p99" "$pmax" "$(id -un)" "$cpu_ms" "$seq_lat" <<'PY'
import os, platform, sys, time
path, speeds, mb, rss0, ntun, rss1, p50, p99, pmax, user, cpu_ms, seq = sys.argv[1:13]
pairs = [tuple(float(x) for x in p.split(":")) for p in speeds.split()]
direct, tunnel = max(p[0] for p in pairs), max(p[1] for p in pairs)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
gib = lambda b: "%.2f GiB/s" % (b / (1 << 30))
sec = [
    "## Proxy",
    "",
    "bench/proxy.sh, loopback only. Bulk: one %s MiB GET from a sendfile server, direct and" % mb,
    "through a CONNECT tunnel of the session daemon (`curl -p -x`), alternating, best of %d each." % len(pairs),
    "Tunnels: %s concurrent CONNECTs to an echo server opened at once by one asyncio client," % ntun,
    "each timed from connect() to the daemon's 200 (then one echo through it, checked); the",
    "daemon's RSS read while all were open. Goal (design.md): tunnel ≥ 90% of direct.",
    "",
    "| | |",
    "|---|---|",
    "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "| machine | %s, %d CPUs, kernel %s |" % (cpu, os.cpu_count(), platform.release()),
    "| user | %s |" % user,
    "| load average at the end | %s |" % " ".join(open("/proc/loadavg").read().split()[:3]),
    "| bulk direct | %s (rounds: %s) |" % (gib(direct), ", ".join(gib(p[0]) for p in pairs)),
    "| bulk through CONNECT | %s (rounds: %s) |" % (gib(tunnel), ", ".join(gib(p[1]) for p in pairs)),
    "| ratio (best of each) | **%.0f%%** |" % (100 * tunnel / direct),
    "| daemon CPU per GiB relayed | %s ms (splice(2): the bytes never enter the daemon) |" % cpu_ms,
    "| %s concurrent tunnels: connect latency | p50 %s ms, p99 %s ms, max %s ms |" % (ntun, p50, p99, pmax),
    "| one CONNECT at a time (300 in a row) | p50 %s ms, p99 %s ms |" % tuple(seq.split("/")),
    "| daemon RSS | %s KiB idle after the bulk runs, %s KiB with %s tunnels open |" % (rss0, rss1, ntun),
    "",
]
old = open(path).read().splitlines() if os.path.exists(path) else ["# sbxsh benchmark results", ""]
out, skip = [], False
for line in old:
    if line.startswith("## "):
        skip = line.strip() == "## Proxy"
    if not skip:
        out.append(line)
while out and out[-1] == "":
    out.pop()
out += [""] + sec
open(path, "w").write("\n".join(out) + "\n")
print("tunnel %.0f%% of direct; %s tunnels p99 %s ms, RSS %s KiB -> %s" % (100 * tunnel / direct, ntun, p99, rss1, path))
PY
