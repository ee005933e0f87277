#!/bin/sh
# 0746-clients-s15 — real callers of a shell that earlier suites left out (compat.md 1-6, 10,
# 14, 16): a stop signal sent to sbxsh with no terminal relay (a job-control shell's ^Z and
# kill -TSTP), callers that run $SHELL (vim's :! and :terminal, make SHELL=, xargs and find
# -exec, script -c, nohup, timeout, env -i, exec -a, tmux's default-command, screen, expect and
# pexpect), and the prompt an agent parses (OpenHands' PS1 that starts with a newline). Each
# case runs the caller as it runs bash and checks what the caller takes from it.
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
H=$T
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
if ! "$SBXSH" -c true 2> "$T/err0"; then
	skip "real callers" "sbxsh cannot run a sandbox here: $(head -c 300 "$T/err0")"
	done_testing
	exit
fi
PY=/usr/bin/python3
nsrv=0
if command -v tmux > /dev/null; then
	. "$(dirname "$0")/tmux_lib.sh"
	trap 'TM kill-server 2>/dev/null; e2e_cleanup' EXIT
fi
me=$(id -u)
# state PID: the process's state letter (S, R, T …), empty when it is gone
state() { sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2> /dev/null; }
# wait_state PID WANT|!WANT: until its state is (or is not) WANT, for up to 30 s
wait_state() {
	i=0
	while :; do
		s_=$(state "$1")
		case $2 in !*) [ "$s_" != "${2#!}" ] && return 0 ;; *) [ "$s_" = "$2" ] && return 0 ;; esac
		i=$((i + 1)); [ $i -ge 300 ] && return 1; sleep 0.1
	done
}
# loop_pid MARK: the bash that runs the loop marked MARK (its command line holds MARK; sbxsh's
# own processes are named sbxsh, bwrap and sbxsh-stage), waited for up to 30 s
loop_pid() {
	i=0
	while :; do
		for p_ in $(pgrep -u "$me" -f "$1"); do
			[ "$(cat "/proc/$p_/comm" 2> /dev/null)" = bash ] && { echo "$p_"; return 0; }
		done
		i=$((i + 1)); [ $i -ge 300 ] && return 1; sleep 0.1
	done
}

# job OUT ARGV…: ARGV in a process group of its own (a job, as a job-control shell starts one:
# its parent, this python, is in another group of the session, so a stop is not dropped as in
# an orphaned group), stdin /dev/null, output to OUT; its pid in OUT.pid; ends with its status
job() {
	"$PY" -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:], preexec_fn=os.setpgrp, stdin=subprocess.DEVNULL,
                     stdout=open(sys.argv[1], "w"), stderr=subprocess.STDOUT)
open(sys.argv[1] + ".pid.t", "w").write("%d\n" % p.pid)
os.rename(sys.argv[1] + ".pid.t", sys.argv[1] + ".pid")
sys.exit(p.wait() & 255)' "$@"
}
wait_file() { i=0; while [ ! -s "$1" ]; do i=$((i + 1)); [ $i -ge 300 ] && return 1; sleep 0.1; done; }

# --- A stop sent to sbxsh when no terminal is relayed (stdio redirected: a build started from
# an interactive shell with its output in a log; a supervisor's kill -TSTP). bash stops; the
# sandbox is in a session of its own, so sbxsh alone stopped and the command ran on (until its
# next call the monitor answers, which then waited for the stopped front end).
n_=0
for sh_ in /bin/bash "$SBXSH"; do
	n_=$((n_ + 1)); mark=tstp-$$-$n_; rm -f "$T/stop"
	rm -f "$T/tstp.out.pid"
	job "$T/tstp.out" "$sh_" -c "while [ ! -e $T/stop ]; do sleep 0.1; done; echo done $mark" &
	j=$!
	wait_file "$T/tstp.out.pid"; p=$(cat "$T/tstp.out.pid")
	lp=$(loop_pid "$mark")
	kill -TSTP "$p"
	wait_state "$lp" T; st=$(state "$lp")
	is "kill -TSTP to ${sh_##*/} with no terminal: the command stops" "$st" T
	[ "$lp" != "$p" ] && is "…and so does sbxsh (its caller sees it stopped)" "$(wait_state "$p" T; state "$p")" T
	kill -CONT "$p"
	wait_state "$lp" '!T'
	: > "$T/stop"
	wait "$j"; rc=$?
	is "…kill -CONT: it goes on and ends as under bash" "$rc $(cat "$T/tstp.out")" "0 done $mark"
done
# A group with no job-control shell to continue it (setsid: orphaned): the kernel drops a stop
# sent to it, and the command goes on as bash does.
mark=orph-$$; rm -f "$T/stop" "$T/orph.out"
setsid "$SBXSH" -c "while [ ! -e $T/stop ]; do sleep 0.1; done; echo done $mark" < /dev/null > "$T/orph.out" 2>&1 &
lp=$(loop_pid "$mark")
fe=$(pgrep -u "$me" -x -f "$SBXSH -c while .*$mark.*" | head -n 1)
kill -TSTP "$fe"
: > "$T/stop"
i=0; while ! grep -q "done $mark" "$T/orph.out" && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.1; done
is "kill -TSTP to sbxsh in an orphaned process group (setsid): ignored as bash's would be, the command goes on" \
	"$(cat "$T/orph.out")" "done $mark"

# ^Z typed at a job-control shell (the terminal's SIGTSTP to the foreground job) while sbxsh
# runs a command with its output redirected, then fg.
if command -v tmux > /dev/null; then
	TM new-session -d -s s -x 150 -y 40 -c "$T/proj" "env -u PROMPT_COMMAND PS1='J> ' bash --norc --noprofile -i"
	wait_screen '^J> '
	mark=ctlz-$$; rm -f "$T/stop"
	keys -l "$SBXSH -c 'while [ ! -e $T/stop ]; do sleep 0.1; done; echo done $mark' < /dev/null > $T/ctlz.out 2>&1"; keys Enter
	lp=$(loop_pid "$mark")
	keys C-z
	wait_screen 'Stopped'
	wait_state "$lp" T
	is "^Z at a job-control shell running sbxsh -c CMD > log: the command stops with sbxsh" "$(state "$lp")" T
	keys -l fg; keys Enter
	wait_state "$lp" '!T'
	: > "$T/stop"
	wait_screen '^J> ' 3
	keys -l 'echo rc=$?'; keys Enter
	wait_screen '^rc='
	like "…fg: it goes on and ends with its status" "$(screen)" '^rc=0$'
	is "…its output whole" "$(cat "$T/ctlz.out")" "done $mark"
	TM kill-server 2> /dev/null
else
	skip "^Z at a job-control shell running sbxsh -c CMD > log" "no tmux"
fi

done_testing
