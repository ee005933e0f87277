#!/bin/sh
# 0510 the profile switch on cd, driven through tmux: `cd` into a directory of another profile
# gives the next command that profile's sandbox with the shell's state (variables, exported
# env, functions, aliases, shopt/set options, the directory stack, history); a write only the
# new profile allows works; with a stopped job the shell keeps its profile and says why once;
# cd back switches back; a command's own writes on the shell's channel count for nothing.
. "$(dirname "$0")/lib.sh"

CDSW_NAME=cdsw CDSW_WHAT="profile switch on cd"
. "$(dirname "$0")/cdsw_lib.sh"

start "$SBXSH"
if ! wait_screen "$PR"; then
	not_ok "an interactive sbxsh shows the prompt"
	diag "$(screen | tail -n 15)"
	done_testing; exit 1
fi
like "the shell starts in the profile of its cwd" "$(last)" "$MA"
cmd "echo pre > $B/pre.txt"
check "…where the other project cannot be written" test ! -e "$B/pre.txt"
cmd 'V="a b"; declare -a ARR=(x "y z"); f() { echo "fn:$1"; }; alias al="echo alias-ok"; export EX=exp-ok'
cmd 'shopt -s extglob; set -o noclobber; pushd /var > /dev/null; pushd "$OLDPWD" > /dev/null; echo marker-cmd'
cmd 'echo "hfa=$HISTFILE"'
cmd "cd $B"
like "cd into another profile's directory: one line says so" "$(screen)" \
	"^sbxsh: cd: now in profile \[dir $B\] \(project $B\), was \[dir $A\]"
like "…and the next prompt is the new profile's" "$(last)" "$MB"
cmd 'echo "v=$V arr=${ARR[1]} ex=$(printenv EX)"; f 1; al'
s=$(screen)
like "a variable and an array came along" "$s" '^v=a b arr=y z '
like "…an exported variable, exported" "$s" ' ex=exp-ok$'
like "…a function" "$s" '^fn:1$'
like "…an alias" "$s" '^alias-ok$'
cmd 'shopt -q extglob && echo shopt-on; [[ -o noclobber ]] && echo set-on; dirs -p -l | tr "\n" " "; echo; pwd'
s=$(screen)
like "…shopt options" "$s" '^shopt-on$'
like "…set -o options" "$s" '^set-on$'
like "…the directory stack" "$s" "^$B /var $A $"
like "…the cwd" "$s" "^$B$"
cmd 'history | grep -c "echo marker-cmd$"'
like "…the session's history" "$(screen)" '^1$'
cmd "echo hi > $B/w.txt && echo wrote"
is "a write only the new profile allows works after the cd" "$(cat "$B/w.txt" 2>/dev/null)" hi
cmd 'echo "sb=$SBXSH_PROFILE hfb=$HISTFILE"'
s=$(screen)
like "the sandbox's own variables are the new profile's" "$s" "^sb=\[dir $B\] hfb=/"
hfa=$(printf '%s\n' "$s" | sed -n 's/^hfa=//p' | tail -n 1)
hfb=$(printf '%s\n' "$s" | sed -n 's/^sb=.* hfb=//p' | tail -n 1)
check "…HISTFILE too (the new profile's history file)" test -n "$hfa" -a "$hfa" != "$hfb"

# Typed ahead while a command runs: a `cd` that switches and a line after it. bash reads the
# `cd` only; the next line waits in the old pty's input when that shell exits, and runs in the
# new profile's shell (before, it was lost with the old pty).
type_ahead_cd "$A"
like "a line typed ahead after a cd that switches runs, in the new profile" "$(screen)" "^ahead=\[dir $A\]-42\$"
cmd "cd $B"
like "…and cd back switches back" "$(last)" "$MB"
# A prompt saved before a switch (a venv's _OLD_VIRTUAL_PS1, put back by `deactivate`) holds
# the old profile's marker: the new profile's prompt shows its own only.
cmd 'OLDPS1=$PS1'
cmd "cd $A"
cmd 'PS1=$OLDPS1'
like "a prompt saved before a switch, put back after it: the new marker only" "$(last)" "$MA\$"
cmd "cd $B"

# A stopped job: the shell keeps its profile, and says why once. (A sleep of this script's own
# length: other suites may run a sleep of their own meanwhile.)
SLP=$(printf '4%07d' $$)
# gone_or_dead PID: waits (20 s at most) until PID is reaped or a zombie: the job has ended.
gone_or_dead() {
	i=0
	while [ $i -lt 200 ]; do
		st=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		i=$((i + 1)); sleep 0.1
	done
	return 1
}
# stop_sleep: a sleep $SLP in the foreground, ^Z; $pid is its pid (seen from here)
stop_sleep() {
	keys -l "sleep $SLP"; keys Enter
	i=0; while ! pid=$(pgrep -f "^sleep $SLP\$") && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3 # (into its sleep, not a measurement)
	n=$(prompts); keys C-z; wait_screen "$PR" $((n + 1))
}
stop_sleep
cmd "cd $A"
like "with a stopped job the cd keeps the profile" "$(last)" "$MB"
like "…and says why" "$(screen)" 'keeps its profile while it has jobs'
cmd 'true'
is "…once" "$(screen | grep -c 'keeps its profile while it has jobs')" 1
# The job ends while the shell waits at its prompt (killed from outside): bash reaps it then and
# tells of it after the next prompt's hook. That prompt switches (before, the hook still counted
# the job there, and the switch came a prompt later; when bash had not reaped it yet, not until
# an external command ended).
kill -9 "$pid" 2> /dev/null
check "the stopped job is killed from outside" gone_or_dead "$pid"
cmd 'true'
like "once the job is gone, the next prompt's cd switches back" "$(last)" "$MA"
like "…with its line" "$(screen)" "^sbxsh: cd: now in profile \[dir $A\]"
cmd 'echo "v=$V"'
like "…and the state again" "$(screen)" '^v=a b$'
# The same with `kill -9 %1` typed in the shell: the first prompt after the job is gone switches.
stop_sleep
cmd "cd $B"
like "a stopped job again: the cd keeps the profile" "$(last)" "$MA"
cmd 'kill -9 %1'
check "…kill -9 %1 ends it" gone_or_dead "$pid"
cmd 'true'
like "…and the next prompt switches" "$(last)" "$MB"
cmd "cd $A"
like "…and back" "$(last)" "$MA"

# A command's writes on the shell's channel count for nothing: a background writer floods it
# with a forged state while the shell switches.
cmd '(while :; do printf "touch %s/pwned\n" '"$B"'; printf "P0"; done >&$__sbxsh_cdfd 2>/dev/null &) ; echo flooding'
cmd "cd $B"
like "a switch with a forger on the channel still happens" "$(last)" "$MB"
check "…and nothing the forger wrote ran" test ! -e "$B/pwned"
cmd 'echo "v=$V"'
like "…and the state is the shell's" "$(screen)" '^v=a b$'
cmd 'history | grep -c "echo marker-cmd$"'
like "after three switches a line is in the history once" "$(screen | grep -E '^[0-9]+$' | tail -n 1)" '^1$'
# The shell whose state goes on to the next profile is not a command's to take over: no
# ptrace attach of it (pid 2), no write into its memory, on either ABI; a command still traces
# its own child.
cat > "$A/take.py" << 'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
def err():
    return os.strerror(ctypes.get_errno()).replace(" ", "_")
def tr(pid, req):
    if libc.ptrace(req, pid, None, None) == 0:
        if req == 16:
            os.waitpid(pid, 0)
        libc.ptrace(17, pid, None, None)
        return "ok"
    return err()
out = ["shellpid %d" % os.getppid()]
out.append("seize %s" % tr(2, 0x4206))
out.append("seize_high %s" % tr(0x100000002, 0x4206))
c = os.fork()
if c == 0:
    time.sleep(5)
    os._exit(0)
out.append("child %s" % tr(c, 16))
os.kill(c, 9)
class iov(ctypes.Structure):
    _fields_ = [("b", ctypes.c_void_p), ("n", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(8)
l = iov(ctypes.cast(buf, ctypes.c_void_p), 8)
r = iov(0x1000, 8)
libc.process_vm_writev.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong,
                                   ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
k = libc.process_vm_writev(2, ctypes.byref(l), 1, ctypes.byref(r), 1, 0)
out.append("vmw %s" % (err() if k < 0 else "ok"))
try:
    open("/proc/2/mem", "r+b")
    out.append("mem ok")
except OSError as e:
    out.append("mem " + e.strerror.replace(" ", "_"))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
rm -f "$A/take.out"
cmd "cd $A"
cmd "python3 $A/take.py $A/take.out.t; mv $A/take.out.t $A/take.out"
wait_file "$A/take.out"
got() { sed -n "s/^$1 //p" "$A/take.out"; }
is "the shell a cd switch carries on is pid 2" "$(got shellpid)" 2
is "ptrace(PTRACE_SEIZE) of it is refused" "$(got seize)" Operation_not_permitted
is "…with high bits in the pid too" "$(got seize_high)" Operation_not_permitted
is "…a command still traces its own child" "$(got child)" ok
is "process_vm_writev into the shell is refused" "$(got vmw)" Operation_not_permitted
unlike "…and /proc/2/mem does not open for writing" "$(got mem)" '^ok$'
helper=$SBXSH_STAGE/libexec/sbxsh/test/try-syscall
if [ -x "$helper" ] && [ "$(uname -m)" = x86_64 ]; then
	cp "$helper" "$A/try"
	rm -f "$A/try.out"
	cmd "for c in getpid 'ptrace 0x4206 2 0 0' 'ptrace 16 2 0 0' 'process_vm_writev 2 0 0 0 0 0'; do ./try i386 \$c; echo; done > $A/try.out.t 2>&1; mv $A/try.out.t $A/try.out"
	wait_file "$A/try.out"
	sed -i '/^$/d' "$A/try.out"
	if [ "$(sed -n 1p "$A/try.out")" = ok ]; then
		is "i386 (int 0x80): ptrace SEIZE and ATTACH of the shell, process_vm_writev into it: refused" \
			"$(sed -n '2,$p' "$A/try.out" | tr '\n' ' ')" "EPERM EPERM EPERM "
	else
		skip "i386: ptrace of the shell" "no IA32 emulation here"
	fi
else
	skip "i386: ptrace of the shell" "no try-syscall helper ($helper) or not x86_64"
fi

bye 'exit'
is "exit after switches: the shell's status (0)" "$(cat "$H/status")" 0

# A login shell (sbxsh -l, as sshd and su - start it) switches too: it read its profile files
# once, in the first sandbox; after the switch it is still a login shell and reads them not
# again (--noprofile: the state has what they set).
printf '%s\n' 'echo profile-ran; PS1="P> "; LOGINVAR=lv' > "$HOME/.profile"
printf '%s\n' 'echo logout-ran' > "$HOME/.bash_logout"
start "$SBXSH -l"
if wait_screen "$PR"; then
	like "a login shell shows the marker" "$(last)" "$MA"
	cmd 'lf() { echo "lfn:$1"; }; LV2=x2'
	cmd "cd $B"
	like "a login shell's cd into another profile switches" "$(screen)" \
		"^sbxsh: cd: now in profile \[dir $B\] \(project $B\), was \[dir $A\]"
	like "…to the new profile's prompt" "$(last)" "$MB"
	cmd 'echo "lv=$LOGINVAR lv2=$LV2"; lf 2; shopt -q login_shell && echo login-on'
	s=$(screen)
	like "…with what its profile set and a variable" "$s" '^lv=lv lv2=x2$'
	like "…a function" "$s" '^lfn:2$'
	like "…still a login shell" "$s" '^login-on$'
	is "…whose profile ran once" "$(screen | grep -c '^profile-ran$')" 1
	is "…and whose ~/.bash_logout did not run at the switch" "$(screen | grep -c '^logout-ran$')" 0
	cmd "echo login > $B/login.txt"
	is "…and a write only the new profile allows works" "$(cat "$B/login.txt" 2>/dev/null)" login
	cmd "cd $A"
	like "…and switches again, back (the first switch left the rc file's PROMPT_COMMAND set)" \
		"$(screen)" "^sbxsh: cd: now in profile \[dir $A\] \(project $A\), was \[dir $B\]"
	cmd 'echo "late=${SBXSH_RC_LATE-unset} pc0=${PROMPT_COMMAND[0]}"'
	like "…with neither SBXSH_RC_LATE nor the rc file in PROMPT_COMMAND after the switches" \
		"$(screen)" '^late=unset pc0=$'
	cmd 'bash -c "echo child-pc=\${PROMPT_COMMAND-unset}"'
	like "…and a child bash does not inherit the rc file's PROMPT_COMMAND" "$(screen)" \
		'^child-pc=unset$'
	bye 'echo typed-in-b; logout'
	is "logout from the switched login shell: status 0" "$(cat "$H/status")" 0
	like "…where ~/.bash_logout runs" "$(screen)" '^logout-ran$'
	hb=$(find "$HOME/.local/state/sbxsh-shell" -name bash_history -newer "$HOME/.profile" \
		-exec grep -l 'echo typed-in-b' {} + 2> /dev/null | head -n 1)
	check "…and the history it typed is kept" test -n "$hb"
else
	not_ok "a login shell shows the prompt"
	diag "$(screen | tail -n 15)"
fi

# A login shell whose caller set PROMPT_COMMAND: it keeps that PROMPT_COMMAND, and gets the
# marker and the switch too (before, such a session had neither).
rm -f "$HOME/.bash_logout"
start "PROMPT_COMMAND='echo pc-caller' $SBXSH -l"
if wait_screen "$PR"; then
	like "a login shell with the caller's PROMPT_COMMAND: the marker" "$(last)" "$MA"
	like "…and the caller's PROMPT_COMMAND runs at the first prompt" "$(screen)" '^pc-caller$'
	cmd "cd $B"
	like "…and the switch" "$(screen)" "^sbxsh: cd: now in profile \[dir $B\] \(project $B\), was \[dir $A\]"
	cmd "cd $A"
	like "…there and back" "$(screen)" "^sbxsh: cd: now in profile \[dir $A\] \(project $A\), was \[dir $B\]"
	n=$(screen | grep -c '^pc-caller$')
	cmd 'true'
	is "…where the caller's PROMPT_COMMAND still runs at each prompt" "$(screen | grep -c '^pc-caller$')" $((n + 1))
	bye 'logout'
else
	not_ok "a login shell with the caller's PROMPT_COMMAND shows the prompt"
	diag "$(screen | tail -n 15)"
fi

# A note the next sandbox's plan prints at a switch (a write grant it creates) is a line of
# its own on the raw terminal: the switch's line starts a line below it, at the margin.
C=$H/c
mkdir -p "$C"
user_policy "[dir $A]
write = .
[dir $C]
write = .
write += $H/made-at-switch"
rm -f "$HOME/.bash_logout"
start "$SBXSH"
if wait_screen "$PR"; then
	cmd "cd $C"
	s=$(screen)
	like "a note printed at a switch starts its own line" "$s" \
		"^sbxsh: note: write grant $H/made-at-switch "
	like "…and the switch's line the next one, at the margin" "$s" "^sbxsh: cd: now in profile \[dir $C\]"
	bye 'exit'
else
	not_ok "a session for the note at a switch shows the prompt"
	diag "$(screen | tail -n 15)"
fi

# A profile file that assigns PROMPT_COMMAND outright (as OpenHands and many dotfiles do), as a
# scalar and as a bash 5.1 array, in a login shell's ~/.profile and a shell's ~/.bashrc: the
# marker and the switch survive, the file's PROMPT_COMMAND runs; then an OpenHands-style scalar
# assignment at the prompt keeps them too. Before, such a login session had neither.
user_policy "[dir $A]
write = .
[dir $B]
write = ."
rm -f "$HOME/.bash_logout"
for how in "login:.profile:PROMPT_COMMAND='echo pc-file'" "login:.profile:PROMPT_COMMAND=('echo pc-file')" \
	"rc:.bashrc:PROMPT_COMMAND='echo pc-file'" "rc:.bashrc:PROMPT_COMMAND=('echo pc-file')"; do
	kind=${how%%:*} rest=${how#*:}
	file=${rest%%:*} line=${rest#*:}
	rm -f "$HOME/.profile"
	printf '%s\n' 'PS1="P> "' "$line" 'HISTSIZE=5000' > "$HOME/$file"
	[ -n "$hfa" ] && seq -f 'echo hist-line-%g' 600 > "$hfa"
	if [ "$kind" = login ]; then start "$SBXSH -l"; else start "$SBXSH"; fi
	what="a $kind shell whose ~/$file says $line"
	if wait_screen "$PR"; then
		like "$what: the marker" "$(last)" "$MA"
		like "…and the file's PROMPT_COMMAND runs" "$(screen)" '^pc-file$'
		cmd "cd $B"
		like "…and the switch" "$(screen)" "^sbxsh: cd: now in profile \[dir $B\] \(project $B\), was \[dir $A\]"
		like "…to the new profile's prompt" "$(last)" "$MB"
		cmd "PROMPT_COMMAND='PS1=\"P> \"'"
		cmd "cd $A"
		like "…and after a scalar PROMPT_COMMAND= at the prompt, the switch back" "$(screen)" \
			"^sbxsh: cd: now in profile \[dir $A\] \(project $A\), was \[dir $B\]"
		like "…and the marker" "$(last)" "$MA"
		cmd 'echo "hn=$(history | grep -c "echo hist-line-[0-9]")"; shopt -q login_shell && echo is-login || echo not-login'
		like "…the history as long as the file's HISTSIZE keeps it (600 lines)" "$(screen)" '^hn=600$'
		if [ "$kind" = login ]; then l=is-login; else l=not-login; fi
		like "…a $kind shell" "$(screen)" "^$l\$"
		bye 'exit'
	else
		not_ok "$what shows the prompt"
		diag "$(screen | tail -n 15)"
	fi
done
rm -f "$HOME/.profile"
printf '%s\n' 'PS1="P> "' > "$HOME/.bashrc"

# Assignments at the prompt that drop sbxsh's PROMPT_COMMAND element: `unset PROMPT_COMMAND`, an
# array assignment, unset then a scalar, a framework's hook that unsets and re-assigns it at
# every prompt. sbxsh's element comes back (its DEBUG trap), the user's value stays in force and
# runs once a prompt; $_ and $? are the user's; a DEBUG trap of the user's stays theirs. Before,
# each of these ended the switch (and the violations before the prompt) for the session.
start "$SBXSH"
if wait_screen "$PR"; then
	cmd 'unset PROMPT_COMMAND'
	cmd "cd $B"
	like "after unset PROMPT_COMMAND at the prompt: the switch" "$(last)" "$MB"
	cmd "PROMPT_COMMAND=('echo pc-arr')"
	cmd "cd $A"
	like "after PROMPT_COMMAND=(…) at the prompt: the switch" "$(last)" "$MA"
	c=$(screen | grep -c '^pc-arr$')
	cmd 'true'
	is "…and the array's command runs, once a prompt" "$(screen | grep -c '^pc-arr$')" $((c + 1))
	cmd "unset PROMPT_COMMAND; PROMPT_COMMAND='echo pc-sc'; cd $B"
	like "unset, a scalar and cd on one line: the switch" "$(last)" "$MB"
	c=$(screen | grep -c '^pc-sc$')
	cmd 'true'
	is "…and the scalar runs, once a prompt" "$(screen | grep -c '^pc-sc$')" $((c + 1))
	cmd 'fw() { echo fw-ran; unset PROMPT_COMMAND; PROMPT_COMMAND=fw; }; PROMPT_COMMAND=fw'
	cmd "cd $A"
	like "a hook that unsets and re-assigns PROMPT_COMMAND at each prompt: the switch" "$(last)" "$MA"
	cmd "cd $B"
	like "…every time" "$(last)" "$MB"
	c=$(screen | grep -c '^fw-ran$')
	cmd 'true'
	is "…and the hook runs, once a prompt" "$(screen | grep -c '^fw-ran$')" $((c + 1))
	cmd 'mkdir -p d1/d2 && cd $_ && pwd; false; echo "st=$?"'
	like "\$_ is the user's (mkdir -p d1/d2 && cd \$_)" "$(screen)" "^$B/d1/d2\$"
	like "…and \$?" "$(screen)" '^st=1$'
	cmd "trap 'echo dbg-user > /dev/null' DEBUG"
	cmd 'true'
	cmd 'trap -p DEBUG'
	like "a DEBUG trap of the user's stays theirs" "$(screen | grep -v '^$' | tail -n 4)" "^trap -- 'echo dbg-user > /dev/null' DEBUG\$"
	bye 'exit'
else
	not_ok "a session for assignments at the prompt shows the prompt"
	diag "$(screen | tail -n 15)"
fi

done_testing
