# sbxsh.bashrc — the --rcfile of an interactive inner bash (sbxsh(1), "Interactive use").
# Read inside the sandbox, bound read-only. The user's ~/.bashrc first, as bash reads it
# (bash has read /etc/bash.bashrc already), then a PROMPT_COMMAND element of sbxsh's own
# (bash 5.1 and later keep it when a script assigns PROMPT_COMMAND=… as a scalar: that sets
# element 0). It opens /dev/null, a call the violation monitor answers, so by the time it
# returns the violations of the command before are on the terminal, above the prompt; and it
# puts the prompt marker before PS1 unless PS1 already starts with it (moved to the front when
# something put a prefix before it).
#
# The profile switch on cd (sbxsh(1), "Profile switch on cd"): SBXSH_CDSW_FD is a socket to
# the front end. "H" first (before anything else runs: the front end takes its writer for the
# shell); at each prompt "P0" or "P1" (jobs), and the front end, which reads this shell's cwd
# itself, answers k (keep) or s (switch). On s the shell's state goes down the socket in
# bash's own syntax and, on the front end's x, the shell exits 0; the next sandbox's bash
# gets the state as a sealed memfd (SBXSH_CDSW_STATE) and sources it instead of ~/.bashrc.
#
# sbxsh's PROMPT_COMMAND element is $__sbxsh_el: `__sbxsh_prompt`, which asks the front end (a
# command of its own before the `;`: bash-preexec's DEBUG trap knows it for a PROMPT_COMMAND one
# so), and when it answered s (__sbxsh_sw), `__sbxsh_dump` with the traps as an argument, from
# `trap -p` in a command substitution at the top level (a function does not see the DEBUG, RETURN and ERR traps: bash
# hides them from a function unless set -T/-E; `trap -p` in a command substitution prints the
# shell's own, and a fork only at a switch). PS0 holds an expansion of sbxsh's that puts the
# element back when it is gone (the guard below, for when the user's own DEBUG trap or
# `trap - DEBUG` replaced sbxsh's).
#
# A login shell reads no rc file: it sources this one from its first PROMPT_COMMAND (sbxsh puts
# `. THIS_FILE` there, with SBXSH_RC_LATE=1; the caller's own PROMPT_COMMAND is in
# SBXSH_USER_PROMPT_COMMAND). sbxsh starts it with --noprofile, so no profile file can assign
# PROMPT_COMMAND outright before this file ran: with SBXSH_RC_PROFILE=1 this file reads
# /etc/profile and the first of ~/.bash_profile, ~/.bash_login, ~/.profile itself, as bash
# would have, then loads the history as bash does after its start-up files (HISTFILE is empty
# until then, its name in SBXSH_HISTFILE: loaded and truncated with the profile's HISTSIZE and
# HISTFILESIZE), and adds its PROMPT_COMMAND element after what the profile files set. ~/.bashrc
# is not read here (the profile reads it). After a switch a login shell takes the state instead
# of the profile files.
__sbxsh_late=${SBXSH_RC_LATE-}
__sbxsh_prof=${SBXSH_RC_PROFILE-}
__sbxsh_hf=${SBXSH_HISTFILE-}
__sbxsh_cdfd=${SBXSH_CDSW_FD-}
__sbxsh_state=${SBXSH_CDSW_STATE-}
__sbxsh_upc=${SBXSH_USER_PROMPT_COMMAND-}
unset SBXSH_CDSW_FD SBXSH_CDSW_STATE SBXSH_RC_LATE SBXSH_USER_PROMPT_COMMAND SBXSH_RC_PROFILE \
	SBXSH_HISTFILE
[ -n "$__sbxsh_late" ] || __sbxsh_prof=
__sbxsh_dot=$__sbxsh_late # this file runs in `.`: a RETURN trap set here would run at its end
__sbxsh_el='__sbxsh_prompt;[[ -z ${__sbxsh_sw-} ]]||__sbxsh_dump "$({ builtin trap -p >&3; } 3>&1 > /dev/null)"'
if [ -n "$__sbxsh_late" ]; then
	builtin export -n PROMPT_COMMAND # a child bash must not source this file
	# `. THIS_FILE` gives way to the caller's PROMPT_COMMAND (a profile file's additions around
	# it stay), which then runs once for this prompt
	__sbxsh_n=". ${BASH_SOURCE[0]}"
	case ${PROMPT_COMMAND-} in
	*"$__sbxsh_n"*) PROMPT_COMMAND=${PROMPT_COMMAND/"$__sbxsh_n"/$__sbxsh_upc} ;;
	*) __sbxsh_upc= ;;
	esac
	# the profile files see the caller's PROMPT_COMMAND (or none), as they would have
	if [ -n "$__sbxsh_prof" ] && [ -z "$PROMPT_COMMAND" ] && [ -z "$__sbxsh_upc" ]; then
		unset PROMPT_COMMAND
	fi
fi
case $__sbxsh_cdfd in
'' | *[!0-9]*) __sbxsh_cdfd= ;;
*) builtin printf H 2> /dev/null >&"$__sbxsh_cdfd" || __sbxsh_cdfd= ;;
esac
case $__sbxsh_state in '' | *[!0-9]*) __sbxsh_state= ;; *) __sbxsh_upc= ;; esac
if [ -n "$__sbxsh_state" ]; then
	. "/dev/fd/$__sbxsh_state" 2> /dev/null
	exec {__sbxsh_state}<&-
	__sbxsh_state=
elif [ -n "$__sbxsh_prof" ]; then
	__sbxsh_upc= # the profile files have the caller's PROMPT_COMMAND, to keep or replace
	__sbxsh_runpc=1
	# bash set these when it found no history to load; the profile files must find them unset
	# as bash would have (the caller's, exported, stay)
	case ${HISTSIZE@a} in *x*) ;; *) unset HISTSIZE ;; esac
	case ${HISTFILESIZE@a} in *x*) ;; *) unset HISTFILESIZE ;; esac
	if [ -f /etc/profile ]; then . /etc/profile; fi
	for __sbxsh_n in ~/.bash_profile ~/.bash_login ~/.profile; do
		if [ -f "$__sbxsh_n" ] && [ -r "$__sbxsh_n" ]; then
			. "$__sbxsh_n"
			break
		fi
	done
	unset __sbxsh_n
elif [ -z "$__sbxsh_late" ] && [ -f ~/.bashrc ]; then
	. ~/.bashrc
fi
# The history, as bash loads it after its start-up files (HISTSIZE and HISTFILESIZE default
# to 500, the file truncated to HISTFILESIZE by the assignment).
if [ -n "$__sbxsh_prof" ] && [ -n "${HISTFILE+set}" ] && [ -z "$HISTFILE" ]; then
	HISTFILE=${__sbxsh_hf:-~/.bash_history}
	[ -n "${HISTSIZE+set}" ] || HISTSIZE=500
	HISTSIZE=$HISTSIZE
	[ -n "${HISTFILESIZE+set}" ] || HISTFILESIZE=$HISTSIZE
	HISTFILESIZE=$HISTFILESIZE
	if [ -f "$HISTFILE" ]; then builtin history -r; fi
fi
unset __sbxsh_hf __sbxsh_prof
__sbxsh_marker=${SBXSH_PROMPT_MARKER-}
__sbxsh_marker=${__sbxsh_marker//\\/\\\\}
__sbxsh_marker=${__sbxsh_marker//\$/\\\$}
__sbxsh_marker=${__sbxsh_marker//\`/\\\`}
unset SBXSH_PROMPT_MARKER
# Sets __sbxsh_sw when the front end said s: the element then runs __sbxsh_dump.
__sbxsh_prompt() {
	: >> /dev/null
	if [ -n "$__sbxsh_marker" ]; then
		case $PS1 in
		"$__sbxsh_marker"*) ;;
		# a prefix put before it (a venv's activate: PS1="(venv) $PS1"): the marker first again
		*"$__sbxsh_marker"*) PS1=$__sbxsh_marker${PS1/"$__sbxsh_marker"/} ;;
		*)
			# a prompt saved before a profile switch (a venv's, put back by deactivate)
			# holds an earlier profile's marker: only this one's is shown
			local __sbxsh_om
			for __sbxsh_om in ${__sbxsh_oms+"${__sbxsh_oms[@]}"}; do
				[[ -z $__sbxsh_om || $PS1 != *"$__sbxsh_om"* ]] || PS1=${PS1/"$__sbxsh_om"/}
			done
			PS1=$__sbxsh_marker$PS1
			;;
		esac
	fi
	if [ -n "$__sbxsh_ps0" ]; then __sbxsh_ps0set; fi
	if [ -n "$__sbxsh_cdfd" ]; then __sbxsh_cd || {
		__sbxsh_sw=1
		return 0
	}; fi
	# a hook that ran before this one may have assigned PROMPT_COMMAND (a prompt framework's)
	case ${PROMPT_COMMAND[*]-} in *__sbxsh_prompt*) ;; *) __sbxsh_pcadd ;; esac
	# where the element is now (a framework may have moved it): PS0's guard looks there
	[[ ${PROMPT_COMMAND[__sbxsh_pci]-} == "$__sbxsh_el" ]] || __sbxsh_pcfind
	return 0
}
# sbxsh's element, after whatever PROMPT_COMMAND holds (kept: a scalar becomes element 0 of the
# array; before bash 5.1 a line of the scalar). Never element 0, which a scalar assignment
# sets. A read-only or associative PROMPT_COMMAND is left alone.
__sbxsh_pcadd() {
	local - 2> /dev/null
	set +u
	case ${PROMPT_COMMAND@a} in *[rA]*) return 0 ;; esac
	if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
		[ -n "${PROMPT_COMMAND[*]+set}" ] || PROMPT_COMMAND=('')
		PROMPT_COMMAND+=("$__sbxsh_el")
		__sbxsh_pcfind
	else
		PROMPT_COMMAND=${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}$__sbxsh_el
	fi
	return 0
}
# The index of sbxsh's element in PROMPT_COMMAND (the first; a copy after it is dropped).
__sbxsh_pcfind() {
	local __sbxsh_i __sbxsh_f=
	case ${PROMPT_COMMAND[@]@a} in *[rA]*) return 0 ;; esac
	for __sbxsh_i in "${!PROMPT_COMMAND[@]}"; do
		[[ ${PROMPT_COMMAND[__sbxsh_i]} == "$__sbxsh_el" ]] || continue
		if [ -z "$__sbxsh_f" ]; then __sbxsh_f=$__sbxsh_i; else unset "PROMPT_COMMAND[$__sbxsh_i]"; fi
	done
	[ -z "$__sbxsh_f" ] || __sbxsh_pci=$__sbxsh_f
	return 0
}
# PS0's guard (bash 5.1 and later; PS0 is expanded after a command line is read, before it
# runs, at the top level, whatever the DEBUG trap is): an expansion that is always empty and,
# when PROMPT_COMMAND[__sbxsh_pci] is not sbxsh's element and PROMPT_COMMAND is unset, a scalar
# or an indexed array (not read-only, not associative), puts the element at the next index
# (count, at least 1) and records it there. No command runs (no fork). Under `shopt -u
# promptvars` PS0 is not expanded, and the hook takes it out again.
__sbxsh_ps0='${__sbxsh_z[z${__sbxsh_pk[x${PROMPT_COMMAND[__sbxsh_pci]-}]-${__sbxsh_ok[y${PROMPT_COMMAND[@]+x${PROMPT_COMMAND@a}}]+${PROMPT_COMMAND[__sbxsh_pci=${#PROMPT_COMMAND[@]}+!${#PROMPT_COMMAND[@]}]=$__sbxsh_el}}}]-}'
__sbxsh_pci=1
if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
	declare -A __sbxsh_z=() __sbxsh_ok=([y]=1 [yx]=1 [yxa]=1) __sbxsh_pk=(["x$__sbxsh_el"]=)
else
	__sbxsh_ps0=
fi
__sbxsh_ps0set() {
	case ${PS0[@]@a} in *r*) return 0 ;; esac
	if builtin shopt -q promptvars; then
		case ${PS0-} in *"$__sbxsh_ps0"*) ;; *) PS0=${PS0-}$__sbxsh_ps0 ;; esac
	else
		case ${PS0-} in *"$__sbxsh_ps0"*) PS0=${PS0/"$__sbxsh_ps0"/} ;; esac
	fi
	return 0
}
# The guard (sbxsh(1), "Interactive use"): a DEBUG trap, so before each command typed at the
# prompt (and each of PROMPT_COMMAND's), that puts sbxsh's element back when an assignment
# dropped it (`unset PROMPT_COMMAND`, `PROMPT_COMMAND=(…)`, a scalar before bash 5.1). It
# changes neither $? nor $_ (the [[ ]] sets neither; on a repair, $_ is passed on as the last
# argument) and returns 0 (extdebug skips a command on anything else). Set below only when the
# user's files set no DEBUG trap; one the user sets later replaces it (theirs is theirs).
__sbxsh_dtrap='[[ ${PROMPT_COMMAND[*]-} == *__sbxsh_prompt* ]] || __sbxsh_pcadd "$_"'
# __sbxsh_hn: the history number of the next line (HISTCMD). Before bash 5.1, HISTCMD (and
# \!) in PROMPT_COMMAND is 1: the last line's number from `history 1` then, a fork (at the first
# prompt and at a switch only).
__sbxsh_hcmd() {
	if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
		__sbxsh_hn=$HISTCMD
		return 0
	fi
	local __sbxsh_l
	__sbxsh_l=$(HISTTIMEFORMAT= builtin history 1 2> /dev/null)
	__sbxsh_l=${__sbxsh_l#"${__sbxsh_l%%[! ]*}"}
	__sbxsh_l=${__sbxsh_l%%[!0-9]*}
	__sbxsh_hn=$((${__sbxsh_l:-0} + 1))
}
# At the prompt: the history carried in (first prompt: the lines typed in the shell before),
# then the front end's word. Returns 1 on s: the element then runs __sbxsh_dump.
__sbxsh_cd() {
	local __sbxsh_a= __sbxsh_j=0
	if [ -z "${__sbxsh_h0-}" ]; then
		for __sbxsh_a in ${__sbxsh_hist+"${__sbxsh_hist[@]}"}; do
			builtin history -s -- "$__sbxsh_a"
		done
		unset __sbxsh_hist
		__sbxsh_hcmd
		__sbxsh_h0=$__sbxsh_hn # what this shell adds from here on goes to the next
	fi
	# Jobs. One that ended stays in bash's table until bash has said so, after this hook; and
	# bash may not have reaped it yet (under load it can be seconds late, or, with its SIGCHLD
	# handler's wait deferred, wait for the next child of the shell to end): `jobs -p %%` alone
	# said "jobs" at the prompt after, or at every prompt until an external command ran, and the
	# switch did not happen. With any job listed (-p: none marked as told), a child of ours
	# makes bash reap what has ended, and a subshell's `jobs -r`/`-s` (its copy of the table,
	# taken after that) says whether one still runs or is stopped. No fork without jobs.
	if builtin jobs -p %% > /dev/null 2>&1; then
		__sbxsh_a=$(:)
		__sbxsh_a=$(builtin jobs -rp 2> /dev/null; builtin jobs -sp 2> /dev/null)
		[ -z "$__sbxsh_a" ] || __sbxsh_j=1
	fi
	# A reply still unread is an earlier prompt's that came after its wait timed out (or an x
	# after __sbxsh_dump gave up): dropped, so it is not taken for this prompt's. The front end
	# answers a P that comes while it waits for a state as a prompt (cdswitch.c take_dump).
	while builtin read -t 0 -u "$__sbxsh_cdfd" 2> /dev/null; do
		builtin read -r -N 1 -t 1 -u "$__sbxsh_cdfd" __sbxsh_a 2> /dev/null || break
	done
	builtin printf 'P%s' "$__sbxsh_j" 2> /dev/null >&"$__sbxsh_cdfd" || {
		__sbxsh_cdfd=
		return 0
	}
	builtin read -r -N 1 -t 2 -u "$__sbxsh_cdfd" __sbxsh_a 2> /dev/null || return 0
	[ "$__sbxsh_a" = s ] || return 0
	return 1
}
# The state, in bash's own syntax: variables (not bash's own nor sbxsh's), functions, aliases,
# completions; options, umask and ulimits (soft, then hard: only ever lowered) in __sbxsh_opts
# (run last by the next rc); the directory stack; the traps ($1, `trap -p` at the top level) in
# __sbxsh_tr, set at the very end; then the names, the history lines typed in this shell
# (`history N`), the end. Returns 0 (the element's last command: not an ERR nor an errexit).
__sbxsh_dump() {
	__sbxsh_sw=
	[ -n "$__sbxsh_cdfd" ] || return 0
	local __sbxsh_n __sbxsh_i __sbxsh_v=() __sbxsh_a= __sbxsh_ps1=$PS1
	for __sbxsh_n in "${!A@}" "${!B@}" "${!C@}" "${!D@}" "${!E@}" "${!F@}" "${!G@}" "${!H@}" "${!I@}" "${!J@}" "${!K@}" "${!L@}" "${!M@}" "${!N@}" "${!O@}" "${!P@}" "${!Q@}" "${!R@}" "${!S@}" "${!T@}" "${!U@}" "${!V@}" "${!W@}" "${!X@}" "${!Y@}" "${!Z@}" "${!a@}" "${!b@}" "${!c@}" "${!d@}" "${!e@}" "${!f@}" "${!g@}" "${!h@}" "${!i@}" "${!j@}" "${!k@}" "${!l@}" "${!m@}" "${!n@}" "${!o@}" "${!p@}" "${!q@}" "${!r@}" "${!s@}" "${!t@}" "${!u@}" "${!v@}" "${!w@}" "${!x@}" "${!y@}" "${!z@}" "${!_@}"; do
		case $__sbxsh_n in
		__sbxsh_* | BASH | BASH_* | BASHOPTS | BASHPID | COLUMNS | LINES | DIRSTACK | \
			EPOCHREALTIME | EPOCHSECONDS | EUID | FUNCNAME | GROUPS | HISTCMD | HOSTNAME | \
			LINENO | PIPESTATUS | PPID | RANDOM | SECONDS | SHELLOPTS | SHLVL | SRANDOM | \
			UID | _) continue ;;
		HISTFILE) continue ;;
		esac
		__sbxsh_v+=("$__sbxsh_n")
	done
	# HISTFILE last: HISTFILESIZE set while it still names the old profile's file truncates
	# that file (bash 5.0), a write the new sandbox refuses
	[ -z "${HISTFILE+set}" ] || __sbxsh_v+=(HISTFILE)
	PS1=${PS1#"$__sbxsh_marker"}
	{
		builtin declare -p "${__sbxsh_v[@]}"
		builtin declare -f
		builtin alias -p
		builtin complete -p
		builtin printf '__sbxsh_opts() {\n'
		builtin shopt -p
		builtin set +o
		builtin umask -p
		for __sbxsh_n in R c d e f i l m n q r s t u v x; do
			builtin ulimit -S "-$__sbxsh_n" > /dev/null || continue # (-R: bash 5.1 and later)
			builtin printf 'builtin ulimit -S -%s ' "$__sbxsh_n"
			builtin ulimit -S "-$__sbxsh_n"
			builtin printf 'builtin ulimit -H -%s ' "$__sbxsh_n"
			builtin ulimit -H "-$__sbxsh_n"
		done
		builtin printf ':\n}\n'
		for ((__sbxsh_i = ${#DIRSTACK[@]} - 1; __sbxsh_i > 0; __sbxsh_i--)); do
			builtin printf 'pushd -n %q > /dev/null\n' "${DIRSTACK[__sbxsh_i]}"
		done
		if (($#)); then builtin printf '__sbxsh_tr=%q\n' "$1"; fi
		# the markers of the profiles this shell was in, for the next one's hook
		builtin printf '__sbxsh_oms=(%q' "$__sbxsh_marker"
		for __sbxsh_n in ${__sbxsh_oms+"${__sbxsh_oms[@]}"}; do
			[ "$__sbxsh_n" = "$__sbxsh_marker" ] || builtin printf ' %q' "$__sbxsh_n"
		done
		builtin printf ')\n'
		builtin printf '\0N'
		builtin printf '%s\n' "${__sbxsh_v[@]}"
		builtin printf '\0H'
		# this shell's own lines, h0 on (not fc -l: its range is off by one in PROMPT_COMMAND)
		__sbxsh_hcmd
		if ((__sbxsh_hn > __sbxsh_h0)); then
			HISTTIMEFORMAT= builtin history "$((__sbxsh_hn - __sbxsh_h0))"
		fi
		builtin printf '\0E'
	} 2> /dev/null >&"$__sbxsh_cdfd"
	PS1=$__sbxsh_ps1
	builtin read -r -N 1 -t 5 -u "$__sbxsh_cdfd" __sbxsh_a 2> /dev/null
	if [ "$__sbxsh_a" = x ]; then
		builtin trap - EXIT
		# a login shell's exit would read ~/.bash_logout: that is for the session's end
		if builtin shopt -q login_shell; then
			builtin history -a 2> /dev/null
			builtin exec /bin/true 2> /dev/null
		fi
		builtin exit 0 2> /dev/null
	fi
	[ "$__sbxsh_a" = k ] || builtin printf '\0A' 2> /dev/null >&"$__sbxsh_cdfd"
	return 0
}
case ${PROMPT_COMMAND[*]-} in *__sbxsh_prompt*) __sbxsh_pcfind ;; *) __sbxsh_pcadd ;; esac
if [ -n "$__sbxsh_ps0" ]; then __sbxsh_ps0set; fi
# After a switch: the shell options, umask and ulimits last (set -u would otherwise apply to the
# lines above), and the traps after everything (a DEBUG or ERR trap would run for the lines
# above; one set in a function runs at once, a RETURN trap at its end).
# Not `set -o history` again: it reloads the history file's lines, and HISTCMD (where the lines
# typed in this shell start) then counts them twice.
if declare -F __sbxsh_opts > /dev/null; then
	set() { case $* in '-o history' | '+o history') ;; *) builtin set "$@" ;; esac; }
	__sbxsh_opts 2> /dev/null
	unset -f __sbxsh_opts set
fi
# sbxsh's guard, when the user's files set no DEBUG trap (after a switch the traps are the old
# shell's, exactly: sbxsh's guard among them, the user's own, or none after `trap - DEBUG`)
if [ -z "${__sbxsh_tr+set}" ] && [ -z "$(builtin trap -p DEBUG)" ]; then
	builtin trap -- "$__sbxsh_dtrap" DEBUG
fi
# Late (from the first PROMPT_COMMAND): this prompt's turn is now.
if [ -n "$__sbxsh_late" ]; then
	unset __sbxsh_late
	if [ -n "$__sbxsh_upc" ]; then # (none after a switch: the state has its PROMPT_COMMAND)
		eval "$__sbxsh_upc"
	elif [ -n "${__sbxsh_runpc-}" ]; then # what the profile files left in PROMPT_COMMAND
		for __sbxsh_n in "${PROMPT_COMMAND[@]}"; do
			__sbxsh_n=${__sbxsh_n%"$__sbxsh_el"} # (a scalar before bash 5.1: "…\n$__sbxsh_el")
			[ -z "$__sbxsh_n" ] || eval "$__sbxsh_n"
		done
		unset __sbxsh_n
	fi
	unset __sbxsh_upc __sbxsh_runpc
	eval "$__sbxsh_el"
fi
# After a switch, last: the traps. In `.` (a login shell's first prompt) a RETURN trap set here
# would run when the `.` ends: a RETURN trap of sbxsh's sets them all again there instead.
if [ -n "${__sbxsh_tr+set}" ]; then
	builtin eval -- "$__sbxsh_tr"
	if [ -n "$__sbxsh_dot" ]; then
		builtin trap -- 'builtin trap - RETURN; builtin eval -- "$__sbxsh_tr"; builtin unset __sbxsh_tr' RETURN
	else
		unset __sbxsh_tr
	fi
fi
unset __sbxsh_dot
