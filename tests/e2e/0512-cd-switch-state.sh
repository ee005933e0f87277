#!/bin/sh
# 0512 the whole state of an interactive bash across a cd switch, driven through tmux: every
# kind of variable (arrays, associative arrays, readonly, integer, case, nameref, sparse,
# exported), functions and their trace and export attributes, aliases, shopt and set options
# (set -u, functrace, errtrace among them), traps (DEBUG, RETURN and ERR, which bash hides
# inside the function that writes the state, with odd bodies), the directory stack, umask,
# ulimits, HISTCONTROL/HISTIGNORE, PS2/PS4, PROMPT_COMMAND: written at the top level before
# the switch and after it, and compared. Then set -e across a switch, and sbxsh's prompt hook
# after the user's own DEBUG trap (or `trap - DEBUG`) replaced sbxsh's guard and a line
# dropped the hook's PROMPT_COMMAND element.
. "$(dirname "$0")/lib.sh"

CDSW_NAME=cdst CDSW_WHAT="the shell's state across a cd switch"
. "$(dirname "$0")/cdsw_lib.sh"

# snap FILE: the state, typed at the prompt (the top level: a function would hide the DEBUG,
# RETURN and ERR traps); the directory stack without its top (the cwd).
snap() {
	cmd "{ declare -p V ARR AS RO INT EX LOW UP REF SP IA XR HISTCONTROL HISTIGNORE PS0 PS2 PS3 PS4 PROMPT_COMMAND; declare -f f ft fx; declare -F; alias -p; complete -p; shopt -p; set +o; trap -p; dirs -p -l | tail -n +2; umask -p; ulimit -S -a; ulimit -H -a; echo \"flags=\$-\"; } > $1 2>&1"
}

start "$SBXSH"
if ! wait_screen "$PR"; then
	not_ok "an interactive sbxsh shows the prompt"
	diag "$(screen | tail -n 15)"
	done_testing; exit 1
fi
like "the shell starts in A's profile" "$(last)" "$MA"
cmd "V='a b'; ARR=(x \"y z\" \$'n\\nl'); declare -A AS=([k1]=v1 [\"k 2\"]=\$'t\\tab' [\$'q\\'x']=\"\\\$d\"); declare -r RO=ro; declare -i INT=40+2; export EX=exp; declare -l LOW=AbC; declare -u UP=aBc; declare -n REF=V; SP=([3]=a [7]=b); declare -ai IA=(1 2+3); declare -xr XR=xr"
cmd "f() { echo \"f:\$1\"; }; ft() { :; }; declare -ft ft; fx() { :; }; declare -fx fx; alias al='echo \"al q\"'; complete -W 'w1 \"w 2\"' -o nospace mycmd; PS3='sel> '"
cmd "shopt -s extglob globstar nocaseglob; set -o noclobber; umask 027; HISTCONTROL=ignoreboth; HISTIGNORE='ls:bg'; PS2='c> '; PS4='+x '; PROMPT_COMMAND[0]='pc0=\$((pc0+1))'; pushd /var > /dev/null; pushd \"\$OLDPWD\" > /dev/null; ulimit -S -c 0; ulimit -S -n 512; ulimit -H -n 4000"
cmd "trap \$'dbg=\$((dbg+1)) # it\\'s \"odd\" \\\\ \$x\\n: two' DEBUG; trap 'ret=\$((ret+1)) # '\"'\"'q' RETURN; trap 'errs=\$((errs+1))' ERR; trap 'echo usr1' USR1; trap '' QUIT; dbg=0 ret=0 errs=0 pc0=0; set -u"
cmd 'trap -p DEBUG'
like "the user's DEBUG trap is set" "$(screen)" "^trap -- 'dbg=\\$\(\(dbg\+1\)\) # it'\\\\''s \"odd\" \\\\ \\\$x\$"
cmd 'e0=$errs; true'
cmd 'echo "errs=$((errs - e0)) pc0=$pc0"'
like "with an ERR trap, sbxsh's prompt hook trips no ERR" "$(screen)" '^errs=0 pc0=[1-9]'
snap "$A/snap.a"
check "the state before the switch is written" test -s "$A/snap.a"
cmd "cd $B"
like "cd into B's profile switches" "$(screen)" \
	"^sbxsh: cd: now in profile \[dir $B\] \(project $B\), was \[dir $A\]"
like "…to B's prompt" "$(last)" "$MB"
snap "$B/snap.b"
check "the state after the switch is written" test -s "$B/snap.b"
if [ -s "$A/snap.a" ] && [ -s "$B/snap.b" ]; then
	d=$(diff "$A/snap.a" "$B/snap.b")
	is "…and is the same: variables, functions, aliases, options, traps, dirs, umask, ulimits" "$d" ""
else
	not_ok "…and is the same: variables, functions, aliases, options, traps, dirs, umask, ulimits"
fi
grep -q "^trap -- 'ret=" "$B/snap.b" 2> /dev/null
check "…the RETURN trap among them" test $? = 0
grep -q "^trap -- 'errs=" "$B/snap.b" 2> /dev/null
check "…and the ERR trap" test $? = 0
grep -q "^complete .* mycmd\$" "$B/snap.b" 2> /dev/null
check "…a completion" test $? = 0
grep -q "^builtin ulimit\|^open files .*(-n) 512\$" "$B/snap.b" 2> /dev/null
check "…and a lowered ulimit" test $? = 0
cmd 'd0=$dbg r0=$ret e0=$errs; ft; false; echo "dbg=$((dbg - d0)) ret=$((ret - r0)) errs=$((errs - e0)) ex=$(printenv EX) fx=$(bash -c "type -t fx")"; f 1; al'
s=$(screen)
like "after the switch the DEBUG, RETURN (of a traced function) and ERR traps run" "$s" '^dbg=[1-9][0-9]* ret=1 errs=1 ex=exp fx=function$'
like "…a function and an alias work" "$s" '^f:1$'
like "…the alias" "$s" '^al q$'
cmd 'e0=$errs; true'
cmd 'echo "errs=$((errs - e0))"'
like "…and the prompt hook trips no ERR there either" "$(screen)" '^errs=0$'
cmd "cd $A"
like "cd back switches back" "$(last)" "$MA"
snap "$A/snap.a2"
if [ -s "$A/snap.a2" ]; then
	is "…with the same state again" "$(diff "$A/snap.a" "$A/snap.a2")" ""
else
	not_ok "…with the same state again"
fi
bye 'exit'
is "exit after the switches: status 0" "$(cat "$H/status")" 0

# set -e, set -E (errtrace) and set -T (functrace), with an ERR and a DEBUG trap: sbxsh's prompt
# hook (which then runs under the user's traps) trips no ERR, keeps an errexit shell alive, and
# the switch carries options and traps.
start "$SBXSH"
cmd "trap 'errs=\$((errs+1))' ERR; trap 'dbg=1' DEBUG; errs=0; set -eET; true"
cmd 'true'
cmd "cd $B"
like "under set -eET with ERR and DEBUG traps the cd switches" "$(last)" "$MB"
cmd 'echo "flags=$- errs=$errs"; trap -p ERR DEBUG'
s=$(screen)
like "…set -e, -E and -T came along, and no ERR ran at a prompt" "$s" '^flags=[^ ]*E[^ ]*T[^ ]* errs=0$'
like "…the ERR trap" "$s" "^trap -- 'errs=\\\$\(\(errs\+1\)\)' ERR\$"
like "…the DEBUG trap" "$s" "^trap -- 'dbg=1' DEBUG\$"
cmd "cd $A"
like "…and back" "$(last)" "$MA"
bye 'exit'
is "…the shell was alive to its exit" "$(cat "$H/status")" 0

# The user's own DEBUG trap replaces sbxsh's guard; then a line drops sbxsh's PROMPT_COMMAND
# element (an array assignment, unset). The hook comes back (at most one prompt later) and the
# user's trap stays theirs. Before, this ended the switch for the session.
# bash-preexec's DEBUG trap takes a command for a PROMPT_COMMAND one when a piece of
# PROMPT_COMMAND split at newlines and semicolons is that command (__bp_in_prompt_command):
# sbxsh's hook must be such a piece, or preexec runs again at each prompt for the last line.
start "$SBXSH"
cmd "IFS=\$'\\n;' read -rd '' -a pcs <<< \"\${PROMPT_COMMAND[*]}\"; for c in \"\${pcs[@]}\"; do c=\${c#\"\${c%%[! ]*}\"}; [[ \${c%\"\${c##*[! ]}\"} == __sbxsh_prompt ]] && echo bp-match; done; true"
like "sbxsh's hook is a piece of PROMPT_COMMAND as bash-preexec splits it" "$(screen)" '^bp-match$'
bye 'exit'

# switched: how many switch lines the screen has
switched() { screen | grep -c '^sbxsh: cd: now in profile'; }
start "$SBXSH"
cmd "trap 'udbg=1' DEBUG"
cmd "PROMPT_COMMAND=('pcn=\$((pcn+1))')"
cmd 'true'
cmd "cd $B"
cmd 'true'
like "after the user's DEBUG trap and PROMPT_COMMAND=(…): the switch" "$(last)" "$MB"
cmd 'trap -p DEBUG; echo "pcn=${pcn-unset}"'
like "…the user's trap stays theirs" "$(screen)" "^trap -- 'udbg=1' DEBUG\$"
like "…and their PROMPT_COMMAND runs" "$(screen)" '^pcn=[1-9]'
bye 'exit'
start "$SBXSH"
cmd 'trap - DEBUG; unset PROMPT_COMMAND'
cmd 'true'
cmd "cd $B"
cmd 'true'
like "after trap - DEBUG and unset PROMPT_COMMAND: the switch" "$(last)" "$MB"
cmd 'trap -p DEBUG | wc -l'
like "…and no DEBUG trap came back" "$(screen | grep -E '^[0-9]+$' | tail -n 1)" '^0$'
sw0=$(switched)
cmd "PROMPT_COMMAND=('pcm=1')"
cmd 'true'
cmd "cd $A"
cmd 'true'
is "…and after the switch a PROMPT_COMMAND=(…) keeps it too" "$(switched)" $((sw0 + 1))
like "…to A's prompt" "$(last)" "$MA"
# PS0's guard shows nothing, leaves $_ and $? alone, and is never shown as text (promptvars off)
cmd 'false one-arg'
cmd 'echo "last=$_ st=$?"'
like "the guard in PS0 leaves \$_ and \$? of the line before" "$(screen)" '^last=one-arg st=1$'
cmd 'shopt -u promptvars'
cmd 'echo pv-off'
cmd 'shopt -s promptvars'
unlike "…and nothing of it is shown, with promptvars off too" "$(screen)" '__sbxsh_|bad array|unbound variable|readonly variable'
bye 'exit'

# A login shell (its rc file runs in `.` from the first PROMPT_COMMAND): a RETURN trap comes
# along and does not run at the switch (a RETURN trap set in `.` would run at its end).
printf '%s\n' 'PS1="P> "' > "$HOME/.profile"
start "$SBXSH -l"
cmd "trap 'rets=\$((rets+1))' RETURN; trap 'ld=1' DEBUG; rets=0"
cmd "cd $B"
like "a login shell with a RETURN and a DEBUG trap switches" "$(last)" "$MB"
cmd 'echo "rets=$rets"; trap -p RETURN DEBUG'
s=$(screen)
like "…its RETURN trap did not run at the switch" "$s" '^rets=0$'
like "…and is set" "$s" "^trap -- 'rets=\\\$\\(\\(rets\\+1\\)\\)' RETURN\$"
like "…and the DEBUG trap" "$s" "^trap -- 'ld=1' DEBUG\$"
cmd 'set -T; lf() { :; }; lf; set +T; echo "rets=$rets"'
like "…and runs at a traced function's return" "$(screen)" '^rets=1$'
bye 'logout'
rm -f "$HOME/.profile"

done_testing
