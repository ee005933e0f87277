#!/bin/sh
# 0310 violation monitor under load: 16 processes x 25,000 opens each (SBXSH_LOAD_OPENS), every
# notification answered, the violations still found once, and nothing leaked by the front end
# (its open descriptors and resident memory sampled while the load runs: 400,000 notifications
# make a leak of 10 bytes each show past the 4 MB bound), from the load's start to its end.
. "$(dirname "$0")/lib.sh"

var_home mon # HOME and the project under /var/tmp
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$HOME/.aws" "$P/.git"
chmod 700 "$HOME"
echo secret > "$HOME/.aws/credentials"
printf '[sbxsh]\non_violation = warn\n[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"
chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"
cd "$P" || exit 1
N=${SBXSH_LOAD_OPENS:-25000}

cat > "$P/load.py" <<'EOF'
import os, sys
n, home = int(sys.argv[1]), sys.argv[2]
open("f", "w").close()
kids = []
for k in range(16):
    pid = os.fork()
    if pid == 0:
        for i in range(n):
            p = "f" if i % 1000 else home + "/.aws/credentials"  # a hidden read now and then
            try:
                os.close(os.open(p, os.O_RDONLY))
            except FileNotFoundError:
                pass
        os._exit(0)
    kids.append(pid)
open("started", "w").close()
bad = sum(1 for p in kids if os.waitpid(p, 0)[1] != 0)
open("ended", "w").close()
print("done", len(kids) - bad)
EOF

need_sandbox "the monitor under load"

"$SBXSH" -c "python3 load.py $N '$HOME'" > "$H/out" 2> "$H/err" &
pid=$!
: > "$H/samples"
while kill -0 "$pid" 2> /dev/null; do
	# while the load runs: the front end's own ending (its descriptors closed one by one,
	# slowly under a sanitizer) is no leak
	if [ -f "$P/started" ] && [ ! -f "$P/ended" ]; then
		fds=$(ls "/proc/$pid/fd" 2> /dev/null | wc -l)
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2> /dev/null)
		[ -n "$rss" ] && [ "$fds" -gt 0 ] && echo "$fds $rss" >> "$H/samples"
	fi
	sleep 0.2
done
wait "$pid"
rc=$?
is "16 x $N opens under the monitor: the command ends normally" "$rc" 0
is "… every process finished (every notification answered)" "$(cat "$H/out")" "done 16"
like "… the hidden read found among them, once" "$(cat "$H/err")" '^sbxsh: 1 violation$'
n=$(wc -l < "$H/samples" | tr -d ' ')
if [ "$n" -lt 3 ]; then
	skip "the front end's descriptors and memory" "the load ended before 3 samples ($n)"
else
	read -r fmin fmax rmin rmax <<EOF
$(awk 'NR == 1 { fmin = fmax = $1; rmin = rmax = $2 }
	{ if ($1 < fmin) fmin = $1; if ($1 > fmax) fmax = $1; if ($2 < rmin) rmin = $2; if ($2 > rmax) rmax = $2 }
	END { print fmin, fmax, rmin, rmax }' "$H/samples")
EOF
	diag "$n samples: descriptors $fmin..$fmax, RSS ${rmin}..${rmax} kB"
	is "the front end's open descriptors stay constant" "$fmin" "$fmax"
	check "its resident memory does not grow with the notifications (< 4 MB)" \
		[ $((rmax - rmin)) -lt 4096 ]
fi
done_testing
