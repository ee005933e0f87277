#!/bin/sh
# proxy.sh — the session proxy's cost, loopback only: a bulk transfer through a CONNECT tunnel
# against the same transfer direct (goal ≥ 90%, design.md), 1,000 concurrent tunnels (daemon
# RSS, connect latency p50/p99), and small HTTP requests per second through the daemon's
# HTTP front against tinyproxy (wrk, same client and server, one run). Writes the "Proxy"
# section of bench/RESULTS.md (or of $RESULTS).
# Usage: sh bench/proxy.sh [BUILD_DIR]
#   (SIZE_MB=1024 ROUNDS=5 TUNNELS=1000 RPS_SECONDS=5 RPS_ROUNDS=3 RPS_CONNS=32 to change)
set -eu
B=${1:-build}
SIZE_MB=${SIZE_MB:-1024}
ROUNDS=${ROUNDS:-5}
TUNNELS=${TUNNELS:-1000}
RPS_SECONDS=${RPS_SECONDS:-5}
RPS_ROUNDS=${RPS_ROUNDS:-3}
RPS_CONNS=${RPS_CONNS:-32}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
. "$(dirname "$0")/lib.sh"
RESULTS=${RESULTS:-$top/bench/RESULTS.md}
pids=""
trap 'kill $pids 2> /dev/null; XDG_RUNTIME_DIR=$work/run "$work/inst/bin/sbxsh" session stop > /dev/null 2>&1; rm -rf "$work"' EXIT INT TERM
bench_need curl python3 wrk tinyproxy
bench_install bench-build "$work/inst"
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

# The small-request server: asyncio in a process of its own (the file server's threads and
# GIL stay out of it), a 300-byte body, keep-alive unless the request says close (or is
# HTTP/1.0 without keep-alive). Its own rate, measured direct, bounds what a proxy can show.
python3 - > "$work/sport" <<'PY' &
import asyncio
BODY = b"x" * 300
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n" % len(BODY)
class Small(asyncio.Protocol):
    def connection_made(self, t):
        self.t, self.buf = t, b""
    def data_received(self, d):
        self.buf += d
        while not self.t.is_closing():
            i = self.buf.find(b"\r\n\r\n")
            if i < 0:
                return
            head, self.buf = self.buf[:i].lower(), self.buf[i + 4:]
            close = b"connection: close" in head or (
                head.split(b"\r\n", 1)[0].endswith(b"http/1.0") and b"keep-alive" not in head)
            self.t.write(HEAD + (b"Connection: close\r\n\r\n" if close else b"\r\n") + BODY)
            if close:
                self.t.close()
async def main():
    srv = await asyncio.get_running_loop().create_server(Small, "127.0.0.1", 0, backlog=4096)
    print(srv.sockets[0].getsockname()[1], flush=True)
    await srv.serve_forever()
asyncio.run(main())
PY
pids="$pids $!"
i=0; while [ ! -s "$work/sport" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
read -r sport < "$work/sport"

"$work/inst/bin/sbxsh" session start > "$work/start" || { cat "$work/start"; exit 1; }
sock=$(sed -n 's/.*socket \(.*\)$/\1/p' "$work/start")
dpid=$(sed -n 's/.*daemon pid \([0-9]*\).*/\1/p' "$work/start")
mkfifo "$work/ready"
python3 "$top/tests/e2e/sess_client.py" begin "$sock" --allow "127.0.0.1:$fport" \
	--allow "127.0.0.1:$eport" --allow "127.0.0.1:$sport" > "$work/ready" 2> /dev/null &
pids="$pids $!"
read -r line < "$work/ready"
hp=$(printf '%s\n' "$line" | sed -n 's/.*http=\([0-9]*\).*/\1/p')

# Bulk: the same GET, direct and through CONNECT (curl -p), alternating; best of ROUNDS.
cpu() { awk '{print $14 + $15}' "/proc/$dpid/stat"; }
# the whole machine's busy clock ticks (everything but idle and iowait)
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }
speeds="" dbusy=0 tbusy=0
cpu0=$(cpu)
for r in $(seq "$ROUNDS"); do
	b0=$(busy)
	d=$(curl -s -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$fport/blob")
	b1=$(busy)
	t=$(curl -s -p -x "http://127.0.0.1:$hp" -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$fport/blob")
	b2=$(busy)
	speeds="$speeds $d:$t" dbusy=$((dbusy + b1 - b0)) tbusy=$((tbusy + b2 - b1))
done
cpu1=$(cpu)
rss0=$(awk '/^VmRSS/ {print $2}' "/proc/$dpid/status")
# CPU per GiB (clock ticks -> ms): the daemon's, a number the machine's load barely moves, and
# the machine's during the direct and the tunnelled transfers (client, server, daemon, kernel)
per_gib() { echo $(( $1 * 1000 / $(getconf CLK_TCK) * 1024 / (SIZE_MB * ROUNDS) )); }
cpu_ms=$(per_gib $((cpu1 - cpu0)))
cpu_all="$(per_gib $dbusy)/$(per_gib $tbusy)"

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

# Small requests: wrk (one thread, RPS_CONNS connections, RPS_SECONDS each) GETs a 300-byte
# body direct from the server, through the daemon's HTTP front and through tinyproxy (both
# absolute-form, `GET http://127.0.0.1:PORT/x`), first with a new connection per request
# (the client sends `Connection: close`), then keep-alive. Both proxies open one upstream
# connection per request. Rounds alternate; best of RPS_ROUNDS.
tport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/tinyproxy.conf" <<EOF
Port $tport
Listen 127.0.0.1
Timeout 600
MaxClients 1024
LogFile "$work/tinyproxy.log"
LogLevel Critical
Allow 127.0.0.1
DisableViaHeader Yes
EOF
tinyproxy -d -c "$work/tinyproxy.conf" > "$work/tinyproxy.out" 2>&1 &
pids="$pids $!"
i=0; until curl -s -o /dev/null -x "http://127.0.0.1:$tport" "http://127.0.0.1:$sport/x"; do
	[ $i -lt 100 ] || { echo "proxy.sh: tinyproxy did not start:" >&2; cat "$work/tinyproxy.out" >&2; exit 1; }
	sleep 0.1; i=$((i + 1))
done
cat > "$work/wrk.lua" <<'EOF'
wrk.path = os.getenv("WRK_PATH")
wrk.headers["Host"] = os.getenv("WRK_HOST")
if os.getenv("WRK_CLOSE") == "1" then wrk.headers["Connection"] = "close" end
done = function(s, lat)
	local e = s.errors
	io.write(string.format("RESULT %.0f %.2f %d\n", s.requests / s.duration * 1e6,
		lat:percentile(99) / 1000, e.connect + e.read + e.write + e.timeout + e.status))
end
EOF
# rps NAME PORT PATH CLOSE: one wrk run; appends "NAME req/s p99-ms errors" to $work/rps
rps() {
	WRK_PATH=$3 WRK_HOST=127.0.0.1:$sport WRK_CLOSE=$4 wrk -t1 -c "$RPS_CONNS" \
		-d "${RPS_SECONDS}s" -s "$work/wrk.lua" "http://127.0.0.1:$2/" > "$work/wrk.out" 2>&1 ||
		{ cat "$work/wrk.out" >&2; exit 1; }
	echo "$1 $(sed -n 's/^RESULT //p' "$work/wrk.out")" >> "$work/rps"
}
: > "$work/rps"
for r in $(seq "$RPS_ROUNDS"); do
	for k in close keep; do
		c=0; [ $k = close ] && c=1
		rps direct.$k "$sport" /x $c
		rps sbxsh.$k "$hp" "http://127.0.0.1:$sport/x" $c
		rps tinyproxy.$k "$tport" "http://127.0.0.1:$sport/x" $c
	done
done

PYTHONPATH="$top/bench" python3 - "$RESULTS" "$speeds" "$SIZE_MB" "$rss0" "$ntun" "$rss1" "$p50" "$p99" "$pmax" "$(id -un)" "$cpu_ms" "$seq_lat" "$work/rps" "$cpu_all" "$load0" "$RPS_CONNS" "$RPS_SECONDS" "$(tinyproxy -v | head -1)" "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)" <<'PY'
import os, platform, sys, time
path, speeds, mb, rss0, ntun, rss1, p50, p99, pmax, user, cpu_ms, seq = sys.argv[1:13]
rpsfile, cpu_all, load0, conns, secs, tpv, wrkv = sys.argv[13:20]
runs = {}
for l in open(rpsfile):
    name, r, q99, err = l.split()
    runs.setdefault(name, []).append((float(r), float(q99), int(err)))
def rps(name):
    best = max(runs[name])
    errs = sum(x[2] for x in runs[name])
    return "%.0f req/s (p99 %.2f ms%s)" % (best[0], best[1], ", %d errors" % errs if errs else "")
def ratio(k):
    return "%.2f" % (max(runs["sbxsh." + k])[0] / max(runs["tinyproxy." + k])[0])
pairs = [tuple(float(x) for x in p.split(":")) for p in speeds.split()]
direct, tunnel = max(p[0] for p in pairs), max(p[1] for p in pairs)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
gib = lambda b: "%.2f GiB/s" % (b / (1 << 30))
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
sec = [
    "## Proxy",
    "",
    "bench/proxy.sh, loopback only. Bulk: one %s MiB GET from a sendfile server, direct and" % mb,
    "through a CONNECT tunnel of the session daemon (`curl -p -x`), alternating, best of %d each." % len(pairs),
    "Tunnels: %s concurrent CONNECTs to an echo server opened at once by one asyncio client," % ntun,
    "each timed from connect() to the daemon's 200 (then one echo through it, checked); the",
    "daemon's RSS read while all were open. Goal (design.md): tunnel ≥ 90% of direct.",
    "Small requests: %s, one thread, %s connections, %s s a run, GETs a 300-byte" % (wrkv, conns, secs),
    "body from an asyncio server: direct, through the daemon's HTTP front and through",
    "%s (Debian's, foreground, log level Critical), both proxies given" % tpv,
    "`GET http://127.0.0.1:PORT/x`; with a new connection per request (the client sends",
    "`Connection: close`), then keep-alive; both proxies open one upstream connection per",
    "request. Alternating, best of %d each (p99 of that run; errors: wrk's socket errors and" % len(runs["direct.close"]),
    "non-2xx over all runs).",
] + ([
    "tinyproxy's errors: it closes the client connection after each response without saying",
    "so (it drops the server's `Connection: close` and sends none), so wrk's next request on",
    "that connection fails and goes again on a new one; its keep-alive rows are thus new",
    "connections too (tinyproxy has no client keep-alive).",
] if sum(x[2] for x in runs["tinyproxy.keep"]) else []) + [
    "",
    "| | |",
    "|---|---|",
    "| date | %s |" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "| machine | %s, %d CPUs, kernel %s |" % (cpu, os.cpu_count(), platform.release()),
    "| user | %s |" % user,
    "| load average at the start, at the end | %s; %s (the benchmark itself keeps 2-3 busy) |" % (load0, " ".join(open("/proc/loadavg").read().split()[:3])),
    "| bulk direct | %s (rounds: %s) |" % (gib(direct), ", ".join(gib(p[0]) for p in pairs)),
    "| bulk through CONNECT | %s (rounds: %s) |" % (gib(tunnel), ", ".join(gib(p[1]) for p in pairs)),
    "| ratio (best of each) | **%.0f%%** (of the medians: %.0f%%) |" % (100 * tunnel / direct, 100 * med([p[1] for p in pairs]) / med([p[0] for p in pairs])),
    "| daemon CPU per GiB relayed | %s ms (splice(2): the bytes never enter the daemon) |" % cpu_ms,
    "| the machine's CPU per GiB (all processes and the kernel) | direct %s ms, through CONNECT %s ms (%d CPUs: %d ms of CPU a second) |" % (*cpu_all.split("/"), os.cpu_count(), 1000 * os.cpu_count()),
    "| %s concurrent tunnels: connect latency | p50 %s ms, p99 %s ms, max %s ms |" % (ntun, p50, p99, pmax),
    "| one CONNECT at a time (300 in a row) | p50 %s ms, p99 %s ms |" % tuple(seq.split("/")),
    "| daemon RSS | %s KiB idle after the bulk runs, %s KiB with %s tunnels open |" % (rss0, rss1, ntun),
    "| small requests, new connection each: sbxsh | **%s** |" % rps("sbxsh.close"),
    "| small requests, new connection each: tinyproxy | **%s** (sbxsh/tinyproxy %s) |" % (rps("tinyproxy.close"), ratio("close")),
    "| small requests, new connection each: direct | %s |" % rps("direct.close"),
    "| small requests, keep-alive: sbxsh | **%s** |" % rps("sbxsh.keep"),
    "| small requests, keep-alive: tinyproxy | **%s** (sbxsh/tinyproxy %s) |" % (rps("tinyproxy.keep"), ratio("keep")),
    "| small requests, keep-alive: direct | %s |" % rps("direct.keep"),
    "",
]
from results import put_section
put_section(path, sec)
print("tunnel %.0f%% of direct; %s tunnels p99 %s ms, RSS %s KiB; small requests sbxsh/tinyproxy %s (new connection), %s (keep-alive) -> %s" % (100 * tunnel / direct, ntun, p99, rss1, ratio("close"), ratio("keep"), path))
PY
