#!/bin/sh
# 0130-signals-fds — exit status and signals as bash gives them (compat.md 5), stdio bytes
# and the caller's descriptors (compat.md 6), no sandboxed process outliving sbxsh.
TMPDIR=/var/tmp; export TMPDIR
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'

# wait_for FILE: up to ~10 s for the sandboxed command to have started. (Its shell makes the
# file itself, `: > started`: with a touch, a signal that came while the shell waited for the
# touch was bash's to take after it, and the exec'd sleep then ran to its end.)
wait_for() { n=0; while [ ! -e "$1" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done; [ -e "$1" ]; }
# alive PATTERN: a process whose command line holds PATTERN exists.
alive() { pgrep -f -- "$1" > /dev/null; }
# gone PATTERN…: within ~5 s no process holds any PATTERN (a function, not `sh -c '! alive …'`:
# alive is this script's, so such a sh said "alive: not found" and the check could not fail).
gone() {
	n=0
	for p in "$@"; do
		while alive "$p" && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
		! alive "$p" || return 1
	done
}

"$SBXSH" -c 'kill -KILL $$' 2>/dev/null; rc=$?
is "a command killed by SIGKILL: sbxsh dies of SIGKILL (137)" "$rc" 137
"$SBXSH" -c 'kill -SEGV $$' 2>/dev/null; rc=$?
is "…of SIGSEGV (139)" "$rc" 139
sh -c '"$0" -c "exit 143" 2>/dev/null; echo $?' "$SBXSH" > "$T/st"
is "an exit status of 143 stays an exit status" "$(cat "$T/st")" 143

# kill -TERM of sbxsh: the command gets it, sbxsh dies of SIGTERM.
rm -f started got
"$SBXSH" -c 'trap "echo TERM > got; exit 0" TERM; : > started; while :; do sleep 0.1; done' 2>/dev/null &
pid=$!
wait_for started && kill -TERM $pid
wait $pid
check "kill -TERM of sbxsh reaches the command (its trap ran)" wait_for got
rm -f started
"$SBXSH" -c ': > started; exec sleep 31.5' 2>/dev/null &
pid=$!
wait_for started && kill -TERM $pid
wait $pid; rc=$?
is "sbxsh dies of SIGTERM when the command does (143)" "$rc" 143
check "…and the command is gone" gone "sleep 31.5"
# An async list starts with SIGINT and SIGQUIT ignored; dfl runs a command with them default.
dfl() { exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT): signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$@"; }
rm -f started
dfl "$SBXSH" -c ': > started; exec sleep 32.5' 2>/dev/null &
pid=$!
wait_for started && kill -INT $pid
wait $pid; rc=$?
is "SIGINT likewise (130)" "$rc" 130
for sh_ in "$SBXSH" /bin/bash; do
	rm -f started
	"$sh_" -c ': > started; sleep 1; echo survived' > "$T/ign.out" 2>/dev/null &
	pid=$!
	wait_for started && kill -INT $pid
	wait $pid; echo "status=$?" >> "$T/ign.out"
	cp "$T/ign.out" "$T/ign.${sh_##*/}"
done
is "a SIGINT the caller ignores stays ignored, as bash keeps it" "$(cat "$T/ign.sbxsh")" "$(cat "$T/ign.bash")"
# A caller that ignores SIGCHLD (a daemon that never reaps): sbxsh ends with the command's
# status (before, the stage lost its shell's exit to the kernel's auto-reaping and waited for
# ever), and the command sees SIGCHLD ignored as under bash.
chld_ign() { timeout -k 1 20 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$@"; }
for sh_ in "$SBXSH" /bin/bash; do
	chld_ign "$sh_" -c 'python3 -c "import signal; print(\"chld\", int(signal.getsignal(signal.SIGCHLD)))"; sh -c "exit 3" & wait $!; exit 7' > "$T/chld.${sh_##*/}" 2>/dev/null
	echo "status=$?" >> "$T/chld.${sh_##*/}"
done
is "a caller ignoring SIGCHLD: the status comes back, SIGCHLD stays ignored (as bash)" "$(cat "$T/chld.sbxsh")" "$(cat "$T/chld.bash")"
rm -f started
"$SBXSH" -c ': > started; sleep 33.5 & sleep 33.6' 2>/dev/null &
pid=$!
wait_for started && kill -HUP $pid
wait $pid; rc=$?
is "SIGHUP reaches the command's whole process group (129)" "$rc" 129
check "…background jobs included" gone "sleep 33.5"

# kill -KILL of sbxsh takes the whole sandbox along (die-with-parent, pid namespace).
rm -f started
"$SBXSH" -c ': > started; (setsid sleep 34.5 &); exec sleep 34.6' 2>/dev/null &
pid=$!
wait_for started && kill -KILL $pid
wait $pid
check "a SIGKILLed sbxsh leaves no sandboxed process (setsid ones included)" gone "sleep 34.5" "sleep 34.6"

# stdio: a binary stream byte for byte; descriptors the caller passed stay open.
head -c 10485760 /dev/urandom > "$T/in.bin"
"$SBXSH" -c 'cat' < "$T/in.bin" > "$T/out.bin" 2>/dev/null
check "10 MB of binary through cat is byte-identical" cmp -s "$T/in.bin" "$T/out.bin"
"$SBXSH" -c 'cat >&2' < "$T/in.bin" 2> "$T/err.bin"
check "…through stderr too" cmp -s "$T/in.bin" "$T/err.bin"
echo from-fd3 > "$T/fd3"
is "fd 3 passed by the caller is readable" "$("$SBXSH" -c 'cat <&3' 3< "$T/fd3" 2>/dev/null)" "from-fd3"
"$SBXSH" -c 'echo to-fd4 >&4' 4> "$T/fd4" 2>/dev/null
is "fd 4 passed by the caller is writable" "$(cat "$T/fd4")" "to-fd4"
is "the command sees exactly the caller's descriptors" \
	"$("$SBXSH" -c 'ls /proc/self/fd' 3< "$T/fd3" 2>/dev/null | tr '\n' ' ')" \
	"$(/bin/bash -c 'ls /proc/self/fd' 3< "$T/fd3" | tr '\n' ' ')"
is "with stdin closed, the command sees it closed (and runs)" \
	"$("$SBXSH" -c 'cat <&0 2>/dev/null; echo "rc=$?"' <&- 2>/dev/null)" "rc=1"
is "with stdin and stdout closed, the command still runs" \
	"$("$SBXSH" -c 'echo ran >&2' 2>&1 <&- >&-)" "ran"
done_testing
