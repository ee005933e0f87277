#!/bin/sh
# 0530 zsh as the interactive inner shell, through tmux: the user's .zshenv, .zshrc (and a
# login's .zprofile, .zlogin) read as zsh reads them, from ZDOTDIR when the caller set one;
# the prompt marker (after a theme's precmd too; '%' and PROMPT_SUBST never expand it); the
# violations before the next prompt.
. "$(dirname "$0")/lib.sh"

Z=$(command -v zsh) || Z=
if ! command -v tmux > /dev/null 2>&1 || [ -z "$Z" ]; then
	skip "zsh as the inner shell" "tmux or zsh is not installed (packaging/deps.sh test installs them)"
	done_testing; exit 0
fi
var_home zsh
nsrv=0
. "$(dirname "$0")/tmux_lib.sh"
trap 'TM kill-server 2>/dev/null; chmod -R u+rwX "$H" 2>/dev/null; rm -rf "$H"; e2e_cleanup' EXIT
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git" "$H/outside" "$HOME/zd"
chmod 700 "$HOME"
cd "$P" || exit 1
start() {
	TM kill-server 2>/dev/null
	nsrv=$((nsrv + 1))
	rm -f "$H/status"
	TM new-session -d -s s -x 120 -y 40 -c "$P" "$*; echo \$? > $H/status.t; mv $H/status.t $H/status; exec sleep 1000"
}
PR='^(\[sbxsh:[^]]*\] |<[^>]*> )?Z> '
prompts() { screen | grep -Ec "$PR"; }
cmd() { n=$(prompts); keys -l "$1"; keys Enter; wait_screen "$PR" $((n + 1)); }
zpol() { user_policy "[sbxsh]
inner_shell = $Z
$1"; }

zpol ''
printf '%s\n' 'export ZENV_READ=home' > "$HOME/.zshenv"
printf '%s\n' 'ZRC_READ=home; PS1="Z> "' > "$HOME/.zshrc"
start "$SBXSH"
if ! wait_screen "$PR"; then
	not_ok "an interactive zsh in the sandbox shows the user's prompt"; diag "$(screen | tail -n 15)"
	done_testing; exit 1
fi
ok "an interactive zsh in the sandbox shows the user's prompt"
like "…with the prompt marker before it" "$(screen)" '^\[sbxsh:default\] Z> $'
n=$(screen | grep -c '(venv) Z> '); keys -l 'OLDPS1=$PS1; PS1="(venv) ${PS1:-}"'; keys Enter
wait_screen '\(venv\) Z> $' $((n + 1))
like "a prefix before the prompt (a venv's): the marker first, once" \
	"$(screen | grep '(venv) Z> ' | tail -n 1)" '^\[sbxsh:default\] \(venv\) Z> $'
cmd 'PS1=$OLDPS1'
cmd 'echo "env=$ZENV_READ rc=$ZRC_READ zd=${ZDOTDIR-unset} in=$SBXSH_SANDBOX sh=$ZSH_NAME"'
like "the user's .zshenv and .zshrc are read; ZDOTDIR is unset again (zsh used \$HOME)" "$(screen)" \
	'^env=home rc=home zd=unset in=1 sh=zsh$'
cmd 'echo "pm=${SBXSH_PROMPT_MARKER-none} uzd=${SBXSH_USER_ZDOTDIR-none}"'
like "…and sbxsh's own variables are gone" "$(screen)" '^pm=none uzd=none$'
cmd "echo x > $H/outside/f; echo next-cmd"
between=$(screen | awk -v pr="$PR" 'on && $0 ~ pr { exit } on { print } /Z> echo x >/ { on = 1 }')
like "a violation is shown before the next prompt" "$between" "^sbxsh: violation: write $H/outside/f "
keys -l 'exit'; keys Enter
wait_file "$H/status"
is "exit: zsh's status is sbxsh's" "$(cat "$H/status")" 0

# A theme's precmd that rewrites the prompt: the marker comes back from the next prompt on.
printf '%s\n' '__theme() { PS1="T> "; }' 'precmd_functions+=(__theme)' 'PS1="Z> "' > "$HOME/.zshrc"
start "$SBXSH"
wait_screen 'T> $'
n=$(screen | grep -c 'T> '); keys -l 'true'; keys Enter; wait_screen 'T> ' $((n + 1))
like "a theme's precmd rewriting PS1: the marker is still added (from the second prompt)" \
	"$(screen | grep 'T> $' | tail -n 1)" '^\[sbxsh:default\] T> $'
keys -l 'exit'; keys Enter; wait_file "$H/status"

# The marker is text: '%' is not a prompt escape, and with PROMPT_SUBST nothing in it runs.
zpol '[sbxsh]
prompt_marker = <%p $(echo pwned) 5%>'
printf '%s\n' 'setopt prompt_subst; PS1="Z> "' > "$HOME/.zshrc"
start "$SBXSH"
wait_screen "$PR"
like "a marker with \$(…) and % under PROMPT_SUBST is shown as written" "$(screen)" \
	'^<default \$\(echo pwned\) 5%> Z> $'
unlike "…and nothing of it ran" "$(screen)" 'pwned\) 5%> Z> .*pwned|^<default pwned'
keys -l 'exit'; keys Enter; wait_file "$H/status"
zpol ''

# The caller's ZDOTDIR: the user's files are read from there, and it stays set.
printf '%s\n' 'export ZENV_READ=zd' > "$HOME/zd/.zshenv"
printf '%s\n' 'ZRC_READ=zd; PS1="Z> "' > "$HOME/zd/.zshrc"
start "ZDOTDIR=$HOME/zd $SBXSH"
wait_screen "$PR"
cmd 'echo "env=$ZENV_READ rc=$ZRC_READ zd=$ZDOTDIR"'
like "the caller's ZDOTDIR: the user's files are read from it, and it is kept" "$(screen)" \
	"^env=zd rc=zd zd=$HOME/zd\$"
like "…with the marker" "$(screen)" '^\[sbxsh:default\] Z> $'
keys -l 'exit'; keys Enter; wait_file "$H/status"

# A login zsh reads .zprofile and .zlogin too, in zsh's order.
printf '%s\n' 'export ZENV_READ=home; print -r -- order-zshenv' > "$HOME/.zshenv"
printf '%s\n' 'print -r -- order-zprofile' > "$HOME/.zprofile"
printf '%s\n' 'print -r -- order-zshrc; PS1="Z> "' > "$HOME/.zshrc"
printf '%s\n' 'print -r -- order-zlogin' > "$HOME/.zlogin"
start "$SBXSH -l"
wait_screen "$PR"
is "a login zsh reads .zshenv, .zprofile, .zshrc, .zlogin in that order" \
	"$(screen | grep '^order-' | tr '\n' ' ')" 'order-zshenv order-zprofile order-zshrc order-zlogin '
like "…and has the marker" "$(screen)" '^\[sbxsh:default\] Z> $'
keys -l 'exit'; keys Enter; wait_file "$H/status"

# The profile switch on cd (sbxsh(1), "Profile switch on cd") in zsh too: the state carried in
# zsh's own syntax (variables, an array, a function, aliases, an option, umask, a trap, the
# directory stack, history); with a job the shell keeps its profile; a login zsh reads its
# .zprofile once and its .zlogout once, at the session's end.
Q=$H/projq
mkdir -p "$Q/.git"
zpol "[dir $P]
write = .
[dir $Q]
write = ."
printf '%s\n' 'export ZENV_N=$((ZENV_N + 1))' > "$HOME/.zshenv"
printf '%s\n' 'ZRC_N=$((ZRC_N + 1)); PS1="Z> "; alias zrc="echo zrc-alias"' > "$HOME/.zshrc"
rm -f "$HOME/.zprofile" "$HOME/.zlogin"
MP="^\[sbxsh:dir $P\] Z> " MQ="^\[sbxsh:dir $Q\] Z> "
start "$SBXSH"
wait_screen "$MP"
cmd 'X=zx; typeset -a arr=(a "b c"); zf() { echo "zfn $1"; }; alias za="echo za-alias"; alias -g ZG="| tr a-z A-Z"'
cmd 'setopt extendedglob localtraps; umask 027; trap "echo usr1-trap" USR1; pushd -q /; pushd -q -; echo zmark-77'
n=$(screen | grep -Ec "$MQ"); keys -l "cd $Q"; keys Enter; wait_screen "$MQ" $((n + 1))
like "zsh: cd into another project switches, with one line saying so" "$(screen)" \
	"^sbxsh: cd: now in profile \\[dir $Q\\] .*, was \\[dir $P\\] .*; shell state kept\$"
cmd 'echo "st=$X/$arr[2]/${#arr}/$ZENV_N/$ZRC_N"; zf 1; za; echo zg ZG; zrc; [[ -o extendedglob ]] && echo eg-on; umask; kill -USR1 $$; echo "ds=${dirstack[1]}"; echo "hist=$(fc -ln -20 | grep -c "zmark-7[7]\$")"'
like "…a variable and an array kept; .zshenv and .zshrc not read again" "$(screen)" '^st=zx/b c/2/1/1$'
like "…a function kept" "$(screen)" '^zfn 1$'
like "…aliases kept" "$(screen)" '^za-alias$'
like "…the global alias" "$(screen)" '^ZG$'
like "…the .zshrc's alias" "$(screen)" '^zrc-alias$'
like "…an option kept" "$(screen)" '^eg-on$'
like "…the umask kept" "$(screen)" '^027$'
like "…a trap kept (set under LOCAL_TRAPS)" "$(screen)" '^usr1-trap$'
like "…the directory stack kept" "$(screen)" '^ds=/$'
like "…and the history" "$(screen)" '^hist=1$'
cmd 'echo "zd=${ZDOTDIR-unset} uzd=${SBXSH_USER_ZDOTDIR-unset}"'
like "…ZDOTDIR as the caller had it (unset), not sbxsh's" "$(screen)" '^zd=unset uzd=unset$'
cmd 'touch q-ok && echo q-wrote'
check "…and the new profile's grant applies (a write in the new project)" test -e "$Q/q-ok"
SLP=$(printf '5%07d' $$) # a sleep of this script's own: other suites may run one meanwhile
cmd "sleep $SLP &"
n=$(screen | grep -Ec "$MQ"); keys -l "cd $P"; keys Enter; wait_screen "$MQ" $((n + 1))
like "with a job: the shell keeps its profile and says why" "$(screen)" 'keeps its profile while it has jobs'
# the job ends while zsh waits at its prompt (killed from outside): the next prompt switches
kill -9 "$(pgrep -f "^sleep $SLP\$")" 2> /dev/null
i=0; while pgrep -f "^sleep $SLP\$" > /dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
n=$(screen | grep -Ec "$MP"); keys -l 'true'; keys Enter; wait_screen "$MP" $((n + 1))
like "…once the job ended, the next prompt switches" "$(screen)" \
	"^sbxsh: cd: now in profile \\[dir $P\\] .*, was \\[dir $Q\\] "
# typed ahead while a command runs: a cd that switches, and a line zsh runs in the new profile
type_ahead_cd "$Q"
like "zsh: a line typed ahead after a cd that switches runs, in the new profile" "$(screen)" "^ahead=\\[dir $Q\\]-42\$"
cmd 'OLDPS1=$PS1'
n=$(screen | grep -Ec "$MP"); keys -l "cd $P"; keys Enter; wait_screen "$MP" $((n + 1))
cmd 'PS1=$OLDPS1'
like "zsh: a prompt saved before a switch, put back after it: the new marker only" \
	"$(screen | grep -v '^$' | tail -n 1)" "$MP\$"
keys -l 'exit'; keys Enter; wait_file "$H/status"
is "…exit after switches: zsh's status (0)" "$(cat "$H/status")" 0

printf '%s\n' 'print -r -- zprofile-ran' > "$HOME/.zprofile"
printf '%s\n' "print -r -- zlogout-ran >> $P/zlogout" > "$HOME/.zlogout"
rm -f "$P/zlogout"
start "$SBXSH -l"
wait_screen "$MP"
n=$(screen | grep -Ec "$MQ"); keys -l "cd $Q"; keys Enter; wait_screen "$MQ" $((n + 1))
n=$(screen | grep -Ec "$MP"); keys -l "cd $P"; keys Enter; wait_screen "$MP" $((n + 1))
cmd '[[ -o login ]] && echo still-login'
is "a login zsh switches (there and back)" "$(screen | grep -c '^sbxsh: cd: now in profile')" 2
like "…and stays a login shell" "$(screen)" '^still-login$'
is "…its .zprofile ran once" "$(screen | grep -c '^zprofile-ran$')" 1
is "…its .zlogout did not run at a switch" "$(cat "$P/zlogout" 2>/dev/null)$(screen | grep -c 'violation.*zlogout')" 0
keys -l 'exit'; keys Enter; wait_file "$H/status"
is "…and its .zlogout once, at the end" "$(cat "$P/zlogout" 2>/dev/null | tr '\n' ' ')" 'zlogout-ran '
# A .zshrc (or a login's .zlogin) that assigns precmd_functions outright, as many dotfiles and
# themes do: the marker and the switch survive (sbxsh's hook goes in after the user's files
# ran), the user's hook runs, ZDOTDIR is the user's again at the prompt. Before, such a session
# had neither marker nor switch.
rm -f "$HOME/.zprofile" "$HOME/.zlogout" "$HOME/.zlogin"
printf '%s\n' 'export ZENV_N=1' > "$HOME/.zshenv"
for how in "rc:.zshrc" "login:.zlogin"; do
	kind=${how%%:*} file=${how#*:}
	rm -f "$HOME/.zlogin"
	printf '%s\n' 'PS1="Z> "' > "$HOME/.zshrc"
	printf '%s\n' 'myhook() { print -r -- my-hook-ran; }' 'precmd_functions=(myhook)' 'PS1="Z> "' \
		>> "$HOME/$file"
	if [ "$kind" = login ]; then start "$SBXSH -l"; else start "$SBXSH"; fi
	what="a $kind zsh whose $file assigns precmd_functions=(myhook)"
	if wait_screen "$PR"; then
		like "$what: the marker" "$(screen)" "$MP *\$"
		like "…and the user's hook runs" "$(screen)" '^my-hook-ran *$'
		n=$(screen | grep -Ec "$MQ"); keys -l "cd $Q"; keys Enter
		if wait_screen "$MQ" $((n + 1)); then
			like "…and the switch" "$(screen)" "^sbxsh: cd: now in profile \\[dir $Q\\] "
		else
			not_ok "…and the switch"; diag "$(screen | tail -n 8)"
		fi
		cmd 'echo "zd=${ZDOTDIR-unset}"; [[ -o login ]] && echo is-login || echo not-login'
		like "…ZDOTDIR unset again, as the caller had it" "$(screen)" '^zd=unset *$'
		if [ "$kind" = login ]; then l=is-login; else l=not-login; fi
		like "…a $kind shell" "$(screen)" "^$l *\$"
		keys -l 'exit'; keys Enter; wait_file "$H/status"
	else
		not_ok "$what shows the prompt"; diag "$(screen | tail -n 15)"
	fi
done
rm -f "$HOME/.zlogin"
# Assignments at the prompt that drop sbxsh's hooks: precmd_functions=(…) typed (its preexec
# hook puts the precmd hook back before the next line runs), then preexec_functions=() (the
# precmd hook puts that one back), then both unset in turn. The user's hook stays in force and
# runs once a prompt. Before, precmd_functions=(…) at the prompt ended the switch for good.
printf '%s\n' 'PS1="Z> "' > "$HOME/.zshrc"
start "$SBXSH"
if wait_screen "$MP"; then
	cmd 'uh() { print -r -- user-hook; }; precmd_functions=(uh)'
	n=$(screen | grep -Ec "$MQ"); keys -l "cd $Q"; keys Enter; wait_screen "$MQ" $((n + 1))
	like "zsh: after precmd_functions=(uh) at the prompt: the switch" "$(screen | grep -v '^$' | tail -n 1)" "$MQ"
	n=$(screen | grep -c '^user-hook *$')
	cmd 'true'
	is "…and the user's hook runs, once a prompt" "$(screen | grep -c '^user-hook *$')" $((n + 1))
	cmd 'preexec_functions=()'
	cmd 'true'
	cmd 'unset precmd_functions'
	n=$(screen | grep -Ec "$MP"); keys -l "cd $P"; keys Enter; wait_screen "$MP" $((n + 1))
	like "…after preexec_functions=() and then unset precmd_functions: the switch back" \
		"$(screen | grep -v '^$' | tail -n 1)" "$MP"
	keys -l 'exit'; keys Enter; wait_file "$H/status"
else
	not_ok "a zsh for assignments at the prompt shows the prompt"; diag "$(screen | tail -n 15)"
fi
# Traps across a switch: a DEBUG trap of odd quoting, ZERR, the top level's EXIT trap, a
# TRAPUSR2 function, a preexec function and hook, written at the top level before and after
# and compared. zsh hides the top level's EXIT trap (`trap … EXIT`, TRAPEXIT) from a function
# (sbxsh's hooks), so sbxsh lists the traps from the top level: the EXIT trap is carried, does
# not run at a switch (before, it ran there, in the old sandbox), and runs once at the end.
start "$SBXSH"
if wait_screen "$MP"; then
	cmd "trap \$'zd=\$((zd+1)) # it\\'s \"odd\" \\\\ \\n: two' DEBUG; trap 'ze=1' ZERR; trap 'print -r -- zexit-ran >> zexit' EXIT; TRAPUSR2() { print -r -- usr2-fn; }; preexec() { zpre=1; }; zph() { :; }; preexec_functions+=(zph); zd=0"
	cmd "{ trap; functions TRAPUSR2 preexec; print -rl -- \${preexec_functions:#__sbxsh_preexec}; } > $P/ztraps.p"
	n=$(screen | grep -Ec "$MQ"); keys -l "cd $Q"; keys Enter; wait_screen "$MQ" $((n + 1))
	like "zsh with DEBUG, ZERR and EXIT traps: the switch" "$(screen | grep -v '^$' | tail -n 1)" "$MQ"
	unlike "…where the EXIT trap did not run (it would write in Q from P's sandbox)" "$(screen)" 'violation.*zexit'
	cmd "{ trap; functions TRAPUSR2 preexec; print -rl -- \${preexec_functions:#__sbxsh_preexec}; } > $Q/ztraps.q"
	if [ -s "$P/ztraps.p" ] && [ -s "$Q/ztraps.q" ]; then
		is "…the traps, trap functions and preexec hooks are the same after it" \
			"$(diff "$P/ztraps.p" "$Q/ztraps.q")" ""
	else
		not_ok "…the traps, trap functions and preexec hooks are the same after it"
	fi
	cmd "TRAPEXIT() { print -r -- zexit-fn >> zexit; }; cd $P"
	like "…a TRAPEXIT function: the switch back" "$(screen | grep -v '^$' | tail -n 1)" "$MP"
	unlike "…where it did not run either" "$(screen)" 'violation.*zexit'
	keys -l 'exit'; keys Enter; wait_file "$H/status"
	is "…the TRAPEXIT carried back ran once, at the end, in the sandbox the shell ended in" \
		"$(cat "$Q/zexit" 2>/dev/null)|$(cat "$P/zexit" 2>/dev/null)" "|zexit-fn"
else
	not_ok "a zsh for traps shows the prompt"; diag "$(screen | tail -n 15)"
fi
zpol ''

done_testing
