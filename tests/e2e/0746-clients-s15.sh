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

# --- OpenHands (compat.md 14): its bash session in tmux, driven as openhands_drive.py does it
# (PROMPT_COMMAND exporting a PS1 that starts with a newline, then a JSON block between
# ###PS1JSON### and ###PS1END### lines; each command's output is what precedes the next block,
# the echo of the command taken off). Set up as README says: `sbxsh run --preset openhands`,
# its shell the bash shim. The prompt marker stood on a line of its own before the block: every
# output the model got ended with "[sbxsh:profile openhands]".
SHIMS=$(cd "$SBXSH_STAGE/libexec/sbxsh/shims" 2>/dev/null && pwd -P) || SHIMS=$SBXSH_STAGE/libexec/sbxsh/shims
if command -v tmux > /dev/null && [ -x "$PY" ]; then
	mkdir -p "$T/proj/sub"
	oh() { "$PY" "$E2E/openhands_drive.py" "$H/oh.$1.sock" "$2" 'echo hi' 'false' 'printf "a\nb\n"' 'cd sub && pwd' 2>&1; }
	want=$(oh bash "/bin/bash --norc --noprofile")
	got=$(timeout 300 "$SBXSH" run --preset openhands -- "$PY" "$E2E/openhands_drive.py" "$H/oh.run.sock" bash \
		'echo hi' 'false' 'printf "a\nb\n"' 'cd sub && pwd' 'echo "$SBXSH_SANDBOX"' 'echo x > ~/oh-f' 2>&1)
	is "OpenHands under sbxsh run: each command's output, exit code and directory as under bash" \
		"$(printf '%s\n' "$got" | head -n 4)" "$want"
	like "…sandboxed" "$(printf '%s\n' "$got" | sed -n 5p)" '"output": "1"'
	like "…a violation told in the command's own output" "$(printf '%s\n' "$got" | sed -n 6p)" 'violation: write ~/oh-f'
	check "…and refused" test ! -e "$HOME/oh-f"
	# the shim named as its shell, SBXSH_PRESET set (no sbxsh run)
	is "OpenHands with SBXSH_PRESET=openhands and the bash shim as its shell: the same" \
		"$(SBXSH_PRESET=openhands oh shim "$SHIMS/bash")" "$want"
else
	skip "OpenHands' bash session" "no tmux or no $PY"
fi

# --- tmux running a pane's command through its default-shell: `$SHELL -c bash` (a pane's
# command, default-command bash; OpenHands' window under sbxsh run), with SHELL and the bash on
# PATH the shims. sbxsh ran a bare inner bash in a sandbox of `-c`: no marker, no violations
# until the pane closed, no switch on cd. It is now sbxsh started as `bash`, as bash -c execs
# its one command.
if command -v tmux > /dev/null; then
	TM kill-server 2> /dev/null; nsrv=$((nsrv + 1))
	SHELL="$SHIMS/bash" PATH="$SHIMS:$PATH" TM new-session -d -s s -x 150 -y 40 -c "$T/proj" bash
	wait_screen '^\[sbxsh:default\] '
	like "tmux's \$SHELL -c bash with SHELL and PATH at the shims: an interactive sbxsh (the marker)" "$(screen)" '^\[sbxsh:default\] '
	keys -l 'echo x > ~/pane-f; echo "pane-rc=$?"'; keys Enter
	wait_screen '^\[sbxsh:default\] ' 2
	like "…a violation told before the next prompt" "$(screen)" 'violation: write ~/pane-f'
	keys -l 'exit 7'; keys Enter
	i=0; while TM has-session -t s 2> /dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	check "…exit ends the pane" test $i -lt 200
	TM kill-server 2> /dev/null
	# what may run so: sbxsh's own executable only; another program named by the word runs
	# in the sandbox as before
	out=$(PATH="$T/fakebin:$PATH" && mkdir -p "$T/fakebin" && printf '#!/bin/sh\necho "fake=$SBXSH_SANDBOX"\n' > "$T/fakebin/bash" &&
		chmod +x "$T/fakebin/bash" && PATH="$T/fakebin:$PATH" "$SHIMS/bash" -c bash < /dev/null 2>&1)
	is "…a bash on PATH that is not sbxsh runs in the sandbox" "$out" "fake=1"
	is "…sbxsh -c bash with the shim on PATH and no terminal reads stdin, sandboxed" \
		"$(echo 'echo "in=$SBXSH_SANDBOX"; exit 3' | PATH="$SHIMS:$PATH" "$SBXSH" -c bash 2>&1; echo "rc=$?")" "in=1
rc=3"
	printf '[default]\nnetwork = none\nenv_set += E2E_CFG=yes\n' > "$T/cfg.ini"; chmod 600 "$T/cfg.ini"
	is "…sbxsh --config F -c bash keeps F's policy" \
		"$(echo 'echo "cfg=$E2E_CFG"' | PATH="$SHIMS:$PATH" "$SBXSH" --config "$T/cfg.ini" -c bash 2>&1)" "cfg=yes"
else
	skip "tmux's \$SHELL -c bash" "no tmux"
fi

# --- Programs that run $SHELL -c (or $SHELL) for the user: each as it runs bash.
# make SHELL=…: each recipe line as `SHELL -c LINE`; .ONESHELL with .SHELLFLAGS=-ec
printf 'all:\n\t@echo "mk=$${SBXSH_SANDBOX:-0}"\n\t@false\n\t@echo never\none:\n\techo "a=$${SBXSH_SANDBOX:-0}"; exit 0\n' > "$T/proj/Makefile"
mk() { make -s -C "$T/proj" SHELL="$1" "$2" 2>&1 | sed -e 's/Makefile:[0-9]*: //' -e "s|$1|SH|g"; }
is "make SHELL=sbxsh: a recipe runs sandboxed and its failure stops make, as under bash" \
	"$(mk "$SBXSH" all)" "$(mk /bin/bash all | sed 's/mk=0/mk=1/')"
printf '.ONESHELL:\n.SHELLFLAGS = -ec\nall:\n\t@x=2\n\techo "one=$$x $${SBXSH_SANDBOX:-0}"\n\tfalse\n\techo never\n' > "$T/proj/one.mk"
mk1() { make -s -C "$T/proj" -f one.mk SHELL="$1" 2>&1 | sed -e 's/one.mk:[0-9]*: //' -e "s|$1|SH|g"; }
is "….ONESHELL with .SHELLFLAGS = -ec" "$(mk1 "$SBXSH")" "$(mk1 /bin/bash | sed 's/one=2 0/one=2 1/')"
rm -f "$T/proj/Makefile" "$T/proj/one.mk"
# xargs -0 and find -exec … {} + with names holding spaces and a newline
mkdir -p "$T/proj/xa"; : > "$T/proj/xa/a b"; : > "$T/proj/xa/$(printf 'c\nd')"; : > "$T/proj/xa/e"
xa() { find xa -type f -print0 | sort -z | xargs -0 "$1" -c 'for f; do printf "[%s]" "$f"; done; echo " n=$#"' _; }
fe() { find xa -type f -exec "$1" -c 'printf "%s\n" "$@" | sort | tr "\n" "|"; echo " n=$#"' _ {} +; }
is "xargs -0 \$SHELL -c '…' _: the names arrive whole" "$(xa "$SBXSH")" "$(xa /bin/bash)"
is "find -exec \$SHELL -c '…' _ {} +" "$(fe "$SBXSH")" "$(fe /bin/bash)"
# script(1) runs $SHELL -c CMD on a pty of its own
if command -v script > /dev/null; then
	sc() { SHELL=$1 script -qec 'echo "sc=${SBXSH_SANDBOX:-0} $(tty | cut -c1-9)"; exit 3' /dev/null < /dev/null | tr -d '\r'; echo "status=$?"; }
	is "script -qec CMD with SHELL=sbxsh: sandboxed, on a terminal, its status" "$(sc "$SBXSH")" "$(sc /bin/bash | sed 's/sc=0/sc=1/')"
else
	skip "script -qec CMD with SHELL=sbxsh" "no script(1)"
fi
# nohup: SIGHUP ignored for the command, as bash keeps it
nh() { nohup "$1" -c 'kill -HUP $$; echo "after-hup ${SBXSH_SANDBOX:-0}"' < /dev/null > "$T/nohup.out" 2>&1; echo "status=$? $(cat "$T/nohup.out")"; }
is "nohup \$SHELL -c: the hang-up stays ignored" "$(nh "$SBXSH")" "$(nh /bin/bash | sed 's/after-hup 0/after-hup 1/')"
# env -i: no HOME, no PATH (cron-like and sudo-like callers)
ei() { env -i "$1" -c 'echo "HOME=${HOME-unset} PATH=$PATH"; echo ~'; }
is "env -i \$SHELL -c: HOME unset, bash's default PATH, ~ the passwd home" "$(ei "$SBXSH")" "$(ei /bin/bash)"
# exec -a NAME: $0, and a login shell by a leading -
ea() { /bin/bash -c 'exec -a "$2" "$1" -c "echo \"\$0 \$(shopt -q login_shell && echo login || echo nologin)\""' _ "$@" 2>&1; }
is "exec -a mysh \$SHELL -c" "$(ea "$SBXSH" mysh)" "$(ea /bin/bash mysh)"
is "exec -a -bash \$SHELL -c: a login shell" "$(ea "$SBXSH" -bash)" "$(ea /bin/bash -bash)"

# --- Interactive callers on a terminal of their own: vim's :! and :terminal, screen, expect.
if command -v tmux > /dev/null && command -v vim > /dev/null; then
	TM kill-server 2> /dev/null; nsrv=$((nsrv + 1))
	TM new-session -d -s s -x 150 -y 40 -c "$T/proj" "SHELL=$SBXSH vim -u NONE -N -i NONE; echo vim-rc=\$?; sleep 300"
	wait_screen '^~'
	keys -l ':!echo "vim-bang=$SBXSH_SANDBOX"; exit 3'; keys Enter
	wait_screen 'shell returned 3'
	like "vim :!cmd with SHELL=sbxsh: sandboxed" "$(screen)" '^vim-bang=1$'
	like "…its status told" "$(screen)" 'shell returned 3'
	keys Enter
	if vim --version | grep -q '+terminal'; then
		keys -l ':terminal'; keys Enter
		wait_screen '^\[sbxsh:default\] '
		keys -l 'echo "vt=$SBXSH_SANDBOX"'; keys Enter
		wait_screen '^vt=1 *$'
		like "vim :terminal: an interactive sbxsh (the marker, sandboxed)" "$(screen)" '^vt=1 *$'
		keys -l 'exit'; keys Enter
		i=0; while [ "$(TM capture-pane -p -t s | grep -c '^\[sbxsh:default\] ')" -gt 0 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	else
		skip "vim :terminal" "vim without +terminal"
	fi
	keys Escape; keys -l ':qa!'; keys Enter
	wait_screen '^vim-rc='
	like "…vim quits" "$(screen)" '^vim-rc=0$'
	TM kill-server 2> /dev/null
else
	skip "vim :! and :terminal" "no tmux or vim"
fi
if command -v tmux > /dev/null && command -v screen > /dev/null; then
	TM kill-server 2> /dev/null; nsrv=$((nsrv + 1))
	mkdir -m 700 "$T/screendir"
	TM new-session -d -s s -x 150 -y 40 -c "$T/proj" "SHELL=$SBXSH SCREENDIR=$T/screendir screen -S e2e; echo screen-rc=\$?; sleep 300"
	wait_screen '^\[sbxsh:default\] '
	keys -l 'echo "sw=$SBXSH_SANDBOX ${STY#*.}"'; keys Enter
	wait_screen '^sw='
	like "screen with SHELL=sbxsh: each window an interactive sbxsh" "$(TM capture-pane -p -t s)" '^sw=1 e2e$'
	keys C-a c
	i=0; while TM capture-pane -p -t s | grep -q '^sw=' && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	wait_screen '^\[sbxsh:default\] '
	keys -l 'echo "sw2=$SBXSH_SANDBOX $WINDOW"'; keys Enter
	wait_screen '^sw2='
	like "…a second window (C-a c) too" "$(TM capture-pane -p -t s)" '^sw2=1 1$'
	keys -l 'exit'; keys Enter
	wait_screen '^sw=1 e2e$'
	keys -l 'exit'; keys Enter
	wait_screen '^screen-rc='
	like "…exit closes them, screen ends" "$(screen)" 'screen is terminating'
	TM kill-server 2> /dev/null
else
	skip "screen with SHELL=sbxsh" "no tmux or screen"
fi
if command -v expect > /dev/null; then
	cat > "$T/t.exp" << 'EOX'
set timeout 60
spawn $env(SH)
expect -re {[$#] $}
send "echo \"ex=\$SBXSH_SANDBOX\"\r"
expect -re {ex=([0-9])}
puts "\nGOT=$expect_out(1,string)"
send "sleep 300\r"
expect "sleep 300"
sleep 1
send "\003"
expect -re {[$#] $}
send "exit 4\r"
expect eof
puts "STATUS=[lindex [wait] 3]"
EOX
	out=$(SH=$SBXSH timeout 120 expect "$T/t.exp" 2>&1 | tr -d '\r')
	like "expect: spawn sbxsh, a command sandboxed" "$out" '^GOT=1$'
	like "…^C of a job keeps the shell, exit 4 its status" "$out" '^STATUS=4$'
else
	skip "expect spawning sbxsh" "no expect"
fi

done_testing
