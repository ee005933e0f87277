#!/bin/sh
# 0500 interactive use behind the pty relay, driven through tmux: job control (^C, ^Z, fg,
# bg, jobs, kill %1), vim, resizes, exit status, the OpenHands sequence, the terminal the
# sandbox holds (never the caller's), the terminal's modes after sbxsh ends.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux > /dev/null 2>&1; then
	skip "interactive use" "tmux is not installed (packaging/deps.sh test installs it)"
	done_testing; exit 0
fi
# The sandbox's /tmp is private: HOME and the project live under /var/tmp.
H=$(mktemp -d /var/tmp/sbxsh-pty.XXXXXX)
chmod 755 "$H"
nsrv=0
. "$(dirname "$0")/tmux_lib.sh"
trap 'TM kill-server 2>/dev/null; chmod -R u+rwX "$H" 2>/dev/null; rm -rf "$H"; e2e_cleanup' EXIT
export HOME="$H/home" XDG_CONFIG_HOME="$H/home/.config"
unset XDG_STATE_HOME
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git" "$H/outside"
chmod 700 "$HOME"
printf '%s\n' 'PS1="P> "' > "$HOME/.bashrc"
cd "$P" || exit 1

# run_fg SECONDS: types `sleep SECONDS` and waits until that sleep runs.
run_fg() {
	keys -l "sleep $1"; keys Enter
	i=0; while ! pgrep -u "$(id -u)" -f "^sleep $1\$" > /dev/null; do i=$((i + 1)); [ $i -ge 200 ] && return 1; sleep 0.1; done
}
# start CMD…: a new tmux server whose one pane runs CMD, then records its status and the
# terminal's modes in $H/status and $H/stty.
start() {
	TM kill-server 2>/dev/null
	nsrv=$((nsrv + 1))
	rm -f "$H/status" "$H/stty"
	TM new-session -d -s s -x 120 -y 40 -c "$P" \
		"$*; echo \$? > $H/status.t; stty -a > $H/stty; mv $H/status.t $H/status; exec sleep 1000"
}
# cmd TEXT: types TEXT and Enter at the prompt, then waits for the next prompt.
PR='^(\[sbxsh:[^]]*\] )?P> '
M='^\[sbxsh:default\] '
prompts() { screen | grep -Ec "$PR"; }
cmd() { n=$(prompts); keys -l "$1"; keys Enter; wait_screen "$PR" $((n + 1)); }

start "$SBXSH"
if ! wait_screen "$PR"; then
	not_ok "an interactive sbxsh on a terminal shows the user's prompt"
like "…with the prompt marker before it" "$(screen)" "$M"'P> $'
	diag "$(screen | tail -n 15)"
	done_testing; exit 1
fi
ok "an interactive sbxsh on a terminal shows the user's prompt"
like "…with the prompt marker before it" "$(screen)" "$M"'P> $'
unlike "no 'no job control' or 'cannot set terminal process group'" "$(screen)" 'job control|terminal process group'
cmd 'echo "in=$SBXSH_SANDBOX"'
like "the shell runs in the sandbox" "$(screen)" '^in=1$'
# A prefix put before the prompt (a venv's activate: PS1="(venv) ${PS1:-}"; conda's alike):
# the marker stays first, once (it was added again before the prefix).
n=$(screen | grep -c '(venv) P> '); keys -l 'OLDPS1=$PS1; PS1="(venv) ${PS1:-}"'; keys Enter
wait_screen '\(venv\) P> $' $((n + 1))
like "a prefix before the prompt (a venv's): the marker first, once" \
	"$(screen | grep '(venv) P> ' | tail -n 1)" "$M"'\(venv\) P> $'
cmd 'PS1=$OLDPS1'
like "…and back as it was after deactivate" "$(screen | grep -v '^$' | tail -n 1)" "$M"'P> $'

n=$(prompts); keys C-c
wait_screen "$PR" $((n + 1))
cmd 'echo after-intr'
like "^C at the prompt keeps the shell" "$(screen)" '^after-intr$'

n=$(prompts); run_fg 101; keys C-c
wait_screen "$PR" $((n + 1))
cmd 'echo "after-sleep-intr rc=$?"'
like "^C of a foreground sleep ends it (130) and keeps the shell" "$(screen)" '^after-sleep-intr rc=130$'

run_fg 102; keys C-z
wait_screen 'Stopped +sleep 102'
cmd 'jobs'
like "^Z stops the job; jobs shows it Stopped" "$(screen)" '^\[1\]\+ +Stopped +sleep 102'
cmd 'bg'
like "bg resumes it in the background" "$(screen)" '^\[1\]\+ sleep 102 &'
cmd 'kill %1'
cmd 'jobs; echo jobs-done'
like "kill %1 ends it" "$(screen)" 'Terminated +sleep 102'

run_fg 103; keys C-z
wait_screen 'Stopped +sleep 103'
keys -l 'fg'; keys Enter; wait_screen '^sleep 103$'; keys C-c
cmd 'echo "fg rc=$?"'
like "fg brings a stopped job back to the foreground (and ^C ends it)" "$(screen)" '^fg rc=130$'

# ^C at the shell's own open of a FIFO for writing, which the guard performs (no reader yet):
# bash gives the prompt back with 130, as it does outside (before, only kill -9 ended it)
cmd 'rm -f ff; mkfifo ff'
n=$(prompts); keys -l 'printf x > ff'; keys Enter
sleep 1 # (a wait for the open to block, not a measurement)
keys C-c
wait_screen "$PR" $((n + 1))
cmd 'echo "fifo-intr rc=$?"; rm -f ff'
like "^C ends a FIFO's open for writing that waits for a reader (130)" "$(screen)" '^fifo-intr rc=130$'

cmd 'stty size'
like "the pty has the terminal's size" "$(screen)" '^40 120$'
TM resize-window -t s -x 100 -y 30 2> /dev/null || TM resize-pane -t s -x 100 -y 30
wait_screen '' 1
cmd 'stty size; tput cols'
like "a resize reaches the pty (stty size)" "$(screen)" '^30 100$'

cmd 'python3 -c "import os; print(\"pgrp-ok\" if os.tcgetpgrp(0) == os.getpgrp() else \"pgrp-bad\")"'
like "a foreground command owns the pty (tcgetpgrp)" "$(screen)" '^pgrp-ok$'

# The sandbox holds the pty, never the pane's terminal (compat.md 16).
# A pty's device number is its index in its devpts, the same in every instance (the pane's and
# the sandbox's own can both be pts/0): the file system and inode tell them apart.
outer=$(stat -L -c '%d:%i' "$(TM display -p -t s '#{pane_tty}')")
cmd 'for f in /proc/$$/fd/*; do [ -c "$f" ] && stat -L -c "dev=%d:%i" "$f"; done | sort -u | tr "\n" " "; echo'
inner=$(screen | grep '^dev=' | tail -n 1)
case $inner in
*"dev=$outer "*) not_ok "the shell's descriptors are not the caller's terminal"; diag "$inner / $outer" ;;
dev=*) ok "the shell's descriptors are not the caller's terminal ($outer)" ;;
*) not_ok "the shell's descriptors are not the caller's terminal"; diag "$(screen | tail -5)" ;;
esac
cmd 'python3 -c "import fcntl, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b\"Z\"); print(\"sti-ok\")
except OSError as e:
    print(\"sti-\" + str(e.errno))"'
like "TIOCSTI on the pty is refused (EPERM)" "$(screen)" '^sti-1$'
# The shell's pty is of the sandbox's own devpts (the stage opened it): tty names it, and the
# host's terminals are not there.
cmd 'tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo t012-ok'
like "tty names the sandbox's own pty (/dev/pts/N, not /dev/console)" "$(screen)" '^/dev/pts/[0-9]+$'
like "…and 0, 1 and 2 are terminals" "$(screen)" '^t012-ok$'
cmd 'echo "pts=$(ls /dev/pts | tr "\n" " ")"; echo "ctty=$(ps -o tty= -p $$)"'
like "the sandbox's /dev/pts holds its own pty only (none of the host's terminals)" "$(screen)" '^pts=0 ptmx $'
like "…which is the shell's controlling terminal" "$(screen)" '^ctty=pts/0$'
seq 1 200 | sed 's/^/line-/' > "$P/l.txt"
keys -l 'less l.txt'; keys Enter
wait_screen '^line-29$' # (the pane is 30 rows since the resize above: less shows 29 lines)
like "less shows a screenful" "$(screen)" '^line-1$'
n=$(prompts); keys q
wait_screen "$PR" $((n + 1))
cmd 'echo less-done'
like "…and q quits it" "$(screen)" '^less-done$'

keys -l 'vi -u NONE -N "+set nomore" t.txt'; keys Enter
wait_screen '"t.txt" \[New\]'
like "vim opens full-screen" "$(screen)" '^~'
n=$(prompts); keys -l ':q!'; keys Enter
wait_screen "$PR" $((n + 1))
cmd 'echo vim-done'
like "vim quits back to the prompt" "$(screen)" '^vim-done$'
unlike "…and its ~/.viminfo is no violation" "$(screen)" 'violation'
cmd 'echo hist-mark-42; echo q | less -K /etc/hostname > /dev/null'

# The OpenHands sequence (compat.md 14): PROMPT_COMMAND as a scalar, ^C, ^Z, kill -9 %1.
keys -l "export PROMPT_COMMAND='export PS1=\"OH\\$ \"'"; keys Enter
wait_screen "$M"'OH\$ '
n=$(screen | grep -c "$M"'OH\$ '); run_fg 200; keys C-c
wait_screen "$M"'OH\$ ' $((n + 1))
run_fg 300; keys C-z
wait_screen 'Stopped +sleep 300'
keys -l 'kill -9 %1'; keys Enter
# (bash tells of the job at the prompt after it has reaped it: wait until the sleep is gone;
# and bash 5.2 itself, without sbxsh, now and then leaves the SIGCHLD of a killed stopped job
# for the next one (e2e 0520): an external command's, then jobs, tells of it in any case)
i=0; while pgrep -u "$(id -u)" -f '^sleep 300$' > /dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
keys -l '/bin/true; jobs; echo oh-done'; keys Enter
wait_screen '^oh-done$'
like "the OpenHands sequence: PROMPT_COMMAND, ^C, ^Z, kill -9 %1" "$(screen)" 'Killed +sleep 300'
n=$(prompts); keys -l 'PROMPT_COMMAND=; PS1="P> "'; keys Enter
wait_screen "$PR" $((n + 1))

# A violation is shown when it happens, and does not make the session's status 122.
cmd "echo x > $H/outside/f; echo next-cmd"
between=$(screen | awk -v pr="$PR" 'on && $0 ~ pr { exit } on { print } /P> echo x >/ { on = 1 }')
like "a violation is shown before the next prompt" "$between" \
	"^sbxsh: violation: write $H/outside/f .*: write \\+= $H/outside\$"
like "…with the command's own output" "$between" '^next-cmd$'

keys -l 'true'; keys Enter
keys -l 'exit'; keys Enter
wait_file "$H/status"
is "exit after a violation: the shell's status (0)" "$(cat "$H/status")" 0
like "the terminal is back in its modes after exit" "$(cat "$H/stty")" '(^| )icanon( |$)'
like "…echo on" "$(cat "$H/stty")" '(^| )echo( |$)'

start "$SBXSH"
# typed before the shell runs: it waits in the terminal and reaches the shell
keys -l 'echo "typed-ahead-$((6 * 7))"'; keys Enter
wait_screen '^typed-ahead-42$'
like "what is typed before the prompt reaches the shell" "$(screen)" '^typed-ahead-42$'
wait_screen "$PR"
cmd 'history | grep -c "echo hist-mark-4[2]"'
like "history survives a restart" "$(screen)" '^1$'
check "…in the sandbox's own file, not the host's ~/.bash_history" test ! -e "$HOME/.bash_history"
keys -l 'exit 7'; keys Enter
wait_file "$H/status"
is "the shell's exit status is sbxsh's" "$(cat "$H/status")" 7

# A script on stdin (an agent's shell): each violation on stderr as it happens.
out=$(printf 'echo x > %s/outside/g\necho after-write\n' "$H" | "$SBXSH" 2>&1)
like "a script on stdin: the violation is shown when it happens" "$(printf '%s\n' "$out" | head -n 1)" "^sbxsh: violation: write $H/outside/g"
like "…before the next command's output" "$(printf '%s\n' "$out" | sed -n '3p')" '^after-write$'

# The inner shell killed from outside: sbxsh ends with its status, the terminal restored.
start "$SBXSH"
wait_screen "$PR"
# (this pane's own: a descendant of its sbxsh; another suite's bash, of the same user and
# install, is not ours to kill)
pane=$(TM display -p -t s '#{pane_pid}')
mine=$(ps -e -o pid= -o ppid= | awk -v r="$pane" '{ up[$1] = $2 }
	END { for (p in up) { q = p; while (q in up && q != r && q > 1) q = up[q]; if (q == r) print p } }')
inner=""
for p in $(pgrep -u "$(id -u)" -f -- "--rcfile ${SBXSH%/bin/sbxsh}/.*sbxsh\.bashrc"); do
	case " $(echo $mine) " in *" $p "*) inner=$p ;; esac
done
[ -n "$inner" ] && kill -KILL "$inner"
wait_file "$H/status"
is "the inner shell killed (SIGKILL): sbxsh's status says so (137)" "$(cat "$H/status")" 137
like "…and the terminal is back in canonical mode" "$(cat "$H/stty")" '(^| )icanon( |$)'

# A prompt_marker that is not one line of text is an error naming the key.
user_policy "[sbxsh]
prompt_marker = $(printf 'a\tb')"
out=$("$SBXSH" -c true 2>&1 < /dev/null); rc=$?
is "prompt_marker with a control character: refused (125)" "$rc" 125
like "…naming the key and the limit" "$out" 'sbxsh\.ini:2: prompt_marker: at most 64 printable characters'
rm -f "$HOME/.config/sbxsh/sbxsh.ini"

# -c on a terminal goes through the relay too; SIGTERM to sbxsh restores the terminal.
start "$SBXSH -c 'tty -s && echo c-tty; stty size; sleep 1000'"
wait_screen '^40 120$'
like "-c with a terminal gets a pty" "$(screen)" '^c-tty$'
pid=$(pgrep -f -n "^$SBXSH -c tty -s")
[ -n "$pid" ] && kill -TERM "$pid"
wait_file "$H/status"
is "SIGTERM to sbxsh -c on a terminal: it dies of it (143)" "$(cat "$H/status")" 143
like "…and the terminal is back in canonical mode" "$(cat "$H/stty")" '(^| )icanon( |$)'

# vim and top on a terminal under -c (a person typing `sbxsh -c vim`, `ssh -t host top`): vim's
# ~/.viminfo and top's mkdir ~/.config/procps in the read-only home are no violation, so no 122.
cat > "$P/tools.sh" << 'EOF'
vi -u NONE -N -i ~/.viminfo "+set viminfo='100" +q
top -n 1 > /dev/null
echo tools-done
EOF
start "$SBXSH -c '. ./tools.sh'"
wait_file "$H/status"
is "vim and top under -c on a terminal: status 0" "$(cat "$H/status")" 0
unlike "…and no violation" "$(screen)" 'violation'
like "…both ran" "$(screen)" '^tools-done$'
check "…and the host's ~/.viminfo was not written" test ! -e "$HOME/.viminfo"
out=$("$SBXSH" -c 'top -b -n 1 > /dev/null; echo top-ran' 2>&1 < /dev/null); rc=$?
is "top -bn1 without a terminal: status 0" "$rc" 0
is "…and only its output" "$out" top-ran

# A shim-based version manager's init in ~/.profile (`eval "$(rbenv init -)"`, nodenv, goenv,
# pyenv) rehashes at every login shell and every `bash -lc` (an agent's every command): rbenv's
# and nodenv's libexec/*-rehash (and pyenv's before 2.0) first take a lock by writing
# ROOT/shims/.NAME-shim (noclobber) and give up quietly (`rehash 2>/dev/null`) when it fails;
# pyenv 2 checks `[ -w shims ]` first and says so itself. The shims directory stays read-only
# (the host runs what is in it), the lock's refusal is no violation: no 122, no line of sbxsh's.
mkdir -p "$HOME/.rbenv/shims" "$HOME/.pyenv/shims"
printf '#!/bin/sh\n' > "$HOME/.rbenv/shims/ruby"
cat > "$HOME/.profile" << 'EOF2'
# as rbenv-rehash does it (its init runs `command rbenv rehash 2>/dev/null`)
( SHIM_PATH=$HOME/.rbenv/shims; mkdir -p "$SHIM_PATH"; set -o noclobber
  { echo > "$SHIM_PATH/.rbenv-shim"; } 2> /dev/null || exit 1 ) 2> /dev/null
# as pyenv 2's does it
( SHIM_PATH=$HOME/.pyenv/shims; mkdir -p "$SHIM_PATH"
  [ -w "$SHIM_PATH" ] || exit 1; set -o noclobber; echo -n > "$SHIM_PATH/.pyenv-shim" ) 2> /dev/null
:
EOF2
out=$(cd "$P" && "$SBXSH" -lc 'echo lc-ran' 2>&1 < /dev/null); rc=$?
is "a login -lc whose ~/.profile rehashes rbenv and pyenv: status 0" "$rc" 0
is "…and only its output (no violation for the rehash lock)" "$out" lc-ran
check "…and the lock was not written on the host" test ! -e "$HOME/.rbenv/shims/.rbenv-shim"
out=$(cd "$P" && "$SBXSH" -c 'echo x > ~/.rbenv/shims/ruby2' 2>&1 < /dev/null); rc=$?
like "a write of a shim itself is still a violation" "$out" '^sbxsh: +write ~/\.rbenv/shims/ruby2 '
rm -rf "$HOME/.profile" "$HOME/.rbenv" "$HOME/.pyenv"

# A hang-up (the terminal goes away) ends the session.
start "$SBXSH"
wait_screen "$PR"
pid=$(pgrep -x -n sbxsh -P "$(TM display -p -t s '#{pane_pid}')")
[ -n "$pid" ] && kill -HUP "$pid"
wait_file "$H/status"
is "SIGHUP to an interactive sbxsh reaches the shell (it dies of it: 129)" "$(cat "$H/status")" 129
like "…and the terminal is back in canonical mode" "$(cat "$H/stty")" '(^| )icanon( |$)'

# The marker is configurable ([sbxsh] prompt_marker, %p the profile) and can be turned off.
user_policy '[sbxsh]
prompt_marker = <%p on>'
start "$SBXSH"
wait_screen 'P> $'
like "prompt_marker = <%p on> gives that marker" "$(screen)" '^<default on> P> $'
user_policy '[sbxsh]
prompt_marker ='
start "$SBXSH"
wait_screen "$PR"
like "an empty prompt_marker: no marker" "$(screen)" '^P> $'
rm -f "$HOME/.config/sbxsh/sbxsh.ini"

# A login shell reads ~/.profile inside the sandbox (as bash -l) and gets the marker too.
printf '%s\n' 'echo "profile-in-$SBXSH_SANDBOX"; PS1="P> "' > "$HOME/.profile"
start "$SBXSH -l"
wait_screen "$PR"
like "a login shell reads ~/.profile in the sandbox" "$(screen)" '^profile-in-1$'
like "…and its prompt has the marker" "$(screen)" "$M"'P> $'
cmd 'shopt -q login_shell && echo is-login'
like "…and it is a login shell" "$(screen)" '^is-login$'
rm -f "$HOME/.profile"

# A background job of a job-control shell gets no relay (raw mode would stop it: SIGTTOU).
start "env PS1='P> ' /bin/bash --norc -i"
wait_screen "$PR"
cmd "$SBXSH -c 'echo bg-ran' & wait \$!; echo bg-status=\$?"
like "sbxsh as a background job on a terminal runs (not stopped by SIGTTOU)" "$(screen)" '^bg-status=0$'
like "…and its command ran" "$(screen)" '^bg-ran$'

# A broken user policy: a person at a terminal gets a labelled recovery shell (no network,
# only the config directory writable); a command without a terminal is refused (125).
user_policy '[default]
write += ~/nowhere-key-typo
bogus_key = 1'
out=$("$SBXSH" -c true 2>&1 < /dev/null); rc=$?
is "a broken user policy: a command without a terminal is refused (125)" "$rc" 125
start "$SBXSH -l"
if wait_screen '^\[sbxsh:RECOVERY\] '; then
	ok "a broken user policy: a login on a terminal gets a labelled recovery shell"
else
	not_ok "a broken user policy: a login on a terminal gets a labelled recovery shell"; diag "$(screen | tail -n 8)"
fi
like "…which shows the error" "$(screen)" 'sbxsh\.ini:3: .*bogus_key'
like "…and the fix" "$(screen)" 'RECOVERY SHELL: .*only .*/\.config/sbxsh is writable'
keys -l "echo x > $P/f; echo fixed > ~/.config/sbxsh/probe; cat ~/.config/sbxsh/probe; echo \"proxy=\${HTTPS_PROXY-none} net=\$(readlink /proc/self/ns/net)\"; echo net-tried"; keys Enter
wait_screen '^net-tried$'
like "…where the project is read-only" "$(screen)" "$P/f: Read-only file system"
like "…the config directory writable" "$(screen)" '^fixed$'
like "…and there is no network (no proxy, a network namespace of its own)" "$(screen)" \
	"^proxy=none net=net:\\[[0-9]+\\]\$"
unlike "…not the host's" "$(screen)" "^proxy=none net=$(readlink /proc/self/ns/net)\$"
keys -l 'exit'; keys Enter
wait_file "$H/status"
rm -f "$HOME/.config/sbxsh/sbxsh.ini" "$HOME/.config/sbxsh/probe"
# A policy that loads but hides the directory: refused on a terminal too, no recovery shell.
mkdir -p "$HOME/secret/.git"
user_policy '[default]
deny_read += ~/secret'
start "cd $HOME/secret && $SBXSH"
wait_file "$H/status"
is "a directory the user's policy hides: refused on a terminal too (125)" "$(cat "$H/status")" 125
unlike "…with no recovery shell" "$(screen)" 'RECOVERY'
rm -f "$HOME/.config/sbxsh/sbxsh.ini"

# `suspend` (the inner shell stops itself): sbxsh stops too and the job-control shell that
# started it has the terminal back; `fg` continues both, the shell's state kept. It hung the
# terminal before (the shell stopped, nothing ever continued it, keys went nowhere).
start "bash --norc"
keys -l 'PS1="O> "'; keys Enter
wait_screen '^O> '
keys -l "$SBXSH"; keys Enter
wait_screen "$PR"
keys -l 'X=kept; suspend'; keys Enter
if wait_screen 'Stopped +.*sbxsh'; then ok "suspend: sbxsh stops and the outer shell has the terminal"
else not_ok "suspend: sbxsh stops and the outer shell has the terminal"; diag "$(screen | tail -n 5)"; fi
keys -l 'fg'; keys Enter
sleep 0.5
cmd 'echo "back X=$X"'
like "…fg continues the inner shell, its state kept" "$(screen)" '^back X=kept$'
keys -l 'exit'; keys Enter
wait_screen '^O> ' 2
# Where nothing would continue it (sbxsh in its session leader's process group: a pane's
# `sh -c`, a login): the shell goes on, and a line says why.
start "$SBXSH"
wait_screen "$PR"
n=$(prompts); keys -l 'suspend'; keys Enter
wait_screen "$PR" $((n + 1))
cmd 'echo after-suspend'
like "suspend with no job-control shell outside: the shell goes on" "$(screen)" '^after-suspend$'
like "…and says why" "$(screen)" '^sbxsh: suspend: no job-control shell outside sbxsh would continue it'
keys -l 'exit'; keys Enter
wait_file "$H/status"

# The terminal goes away (the tmux server is killed): the session and its jobs end.
start "$SBXSH"
wait_screen "$PR"
cmd 'sleep 4242 & nohup sleep 4243 > /dev/null 2>&1 & echo started'
pid=$(pgrep -x -n sbxsh -P "$(TM display -p -t s '#{pane_pid}')")
TM kill-server
i=0; while kill -0 "$pid" 2> /dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
check "a terminal hang-up ends sbxsh" sh -c "! kill -0 $pid 2> /dev/null"
i=0; while pgrep -u "$(id -u)" -f 'sleep 424[23]' > /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "…and its jobs, nohup ones too" sh -c "! pgrep -u "$(id -u)" -f 'sleep 424[23]' > /dev/null"

done_testing
