#!/bin/sh
# 0535 a violation's line keeps its place on the terminal (interactive bash and zsh behind the
# pty relay, driven through a pty of the test's own, its bytes read exactly): after all the
# command wrote before the refused call, before what it wrote after and before the next prompt.
# - The line is the monitor thread's, written while the call waits; the relay's loop (another
#   thread) may at that moment hold bytes of the sandbox it has read and not yet written (a
#   terminal that is slow, or just a thread between its read and its write): the line went
#   between them or before them (0530's "violation before the next prompt" failed so, once,
#   under load), or, when the terminal took nothing for 1 s, was dropped. Round 1 stops reading
#   for 2 s once the violation is logged: the line must still come, in its place.
# - Rounds 2-5: the terminal read as fast as it can while the command's output is relayed.
. "$(dirname "$0")/lib.sh"

PY=$(command -v python3) || PY=
if [ -z "$PY" ]; then
	skip "a violation's place on the terminal" "python3 is not installed"
	done_testing; exit 0
fi
var_home order
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git" "$H/outside"
chmod 700 "$HOME"
printf '%s\n' 'PS1="P> "' > "$HOME/.bashrc"
printf '%s\n' 'PS1="P> "' > "$HOME/.zshrc"
cd "$P" || exit 1

# order.py SBXSH OUTSIDE LOG: per round K, `seq -f kK-%g 1 N; : > OUTSIDE/fK; echo end-K` at the
# prompt, then the checks; prints "round K: ok" or what is wrong.
cat > "$H/order.py" << 'EOF'
import os, pty, re, select, sys, time
sbxsh, outside, log = sys.argv[1], sys.argv[2], sys.argv[3]
pid, m = pty.fork()
if pid == 0:
    os.execv(sbxsh, [sbxsh])
out = bytearray()
def pump(until, secs=60):
    end = time.time() + secs
    while not re.search(until, out):
        if time.time() > end:
            return False
        if select.select([m], [], [], 0.2)[0]:
            try:
                b = os.read(m, 65536)
            except OSError:
                return False
            if not b:
                return False
            out.extend(b)
    return True
def logged(k):
    try:
        return ("/f%d\"" % k) in open(log).read()
    except OSError:
        return False
PR = rb"P> (\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>])*\Z" # zsh's line editor's modes after it
if not pump(PR):
    print("no prompt: %r" % bytes(out[-300:])); sys.exit(1)
# round 1: ~100 KB, more than the test's pty holds: the relay keeps the rest while we stop
rounds = [(1, 10000, True)] + [(k, 3000, False) for k in range(2, 6)]
for k, n, stop in rounds:
    os.write(m, ("seq -f 'k%d-%%g' 1 %d; : > %s/f%d; echo end-%d\r" % (k, n, outside, k, k)).encode())
    if stop:
        t = time.time()
        while not logged(k) and time.time() < t + 60:
            time.sleep(0.05)
        time.sleep(2)
    pump(rb"(?s)\nend-%d\r?\n.*" % k + PR, 60)
os.write(m, b"exit\r")
pump(rb"\Z.", 10)
text = re.sub(rb"\x1b(\[[0-9;?]*[A-Za-z]|[=>])", b"", bytes(out)).replace(b"\r", b"").decode("utf-8", "replace")
L = text.split("\n")
for k, n, stop in rounds:
    at = [i for i, l in enumerate(L) if re.fullmatch(r"k%d-\d+" % k, l)]
    num = [int(L[i].split("-", 1)[1]) for i in at]
    vio = [i for i, l in enumerate(L) if l.startswith("sbxsh: violation: write %s/f%d " % (outside, k))]
    end = [i for i, l in enumerate(L) if l == "end-%d" % k]
    prompt = [i for i, l in enumerate(L) if i > (end or [len(L)])[0] and "P> " in l]
    why = []
    if num != list(range(1, n + 1)):
        why.append("the output's lines not whole and in order (%d of %d)" % (len(num), n))
    if len(vio) != 1:
        why.append("%d violation lines at a line's start%s" % (len(vio), "; seen: %r" % [l[:90] for l in L if "/f%d " % k in l and "violation" in l]))
    elif at and vio[0] < at[-1]:
        why.append("the violation before the command's last line")
    if len(end) != 1 or (vio and vio[0] > end[0]):
        why.append("the violation after what the command printed after it")
    if not prompt or (vio and vio[0] > prompt[0]):
        why.append("no prompt after, or the violation after it")
    print("round %d%s: %s" % (k, " (the terminal stops reading)" if stop else "", "; ".join(why) or "ok"))
EOF

for sh in bash zsh; do
	path=$(command -v $sh) || path=
	if [ -z "$path" ]; then
		skip "$sh: a violation's place on the terminal" "$sh is not installed"
		continue
	fi
	user_policy "[sbxsh]
inner_shell = $path"
	rm -f "$H/outside/"* "$HOME/.local/state/sbxsh/violations.jsonl"
	res=$("$PY" "$H/order.py" "$SBXSH" "$H/outside" "$HOME/.local/state/sbxsh/violations.jsonl" 2>&1)
	like "$sh: a violation's line comes after the output before it and before the next prompt, with a terminal that stops reading (round 1)" \
		"$res" '^round 1 \(the terminal stops reading\): ok$'
	for k in 2 3 4 5; do
		like "$sh: …and with a terminal that reads fast (round $k)" "$res" "^round $k: ok\$"
	done
done
done_testing
