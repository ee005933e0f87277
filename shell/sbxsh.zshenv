# sbxsh.zshenv — LIBEXECDIR/zsh/.zshenv, read by an interactive inner zsh that sbxsh started
# with ZDOTDIR here (sbxsh(1), "Interactive use"). Read inside the sandbox, bound read-only.
# It puts ZDOTDIR back as the caller had it (SBXSH_USER_ZDOTDIR, or unset: $HOME), reads the
# user's .zshenv from there as zsh would have, then points ZDOTDIR here again: zsh reads this
# directory's .zprofile, .zshrc and .zlogin (sbxsh.zrc), each of which reads the user's own
# and the last of which leaves ZDOTDIR as the user's and puts the hook last. For the prompt
# it adds a precmd hook of its own, moved to the end of precmd_functions at every prompt (a
# theme's hook that rewrites the prompt runs before it from the second prompt on): it opens
# /dev/null, a call the violation monitor answers, so the violations of the command before are
# on the terminal above the prompt; and it puts the marker before the prompt unless the prompt
# already starts with it ('%' doubled; with PROMPT_SUBST a reference to a variable, so the
# marker's text is never expanded).
#
# The profile switch on cd, as sbxsh.bashrc does it for bash (the same channel and protocol,
# SBXSH_CDSW_FD: "H" first, "P0"/"P1" at each prompt, the front end's k or s; on s the state in
# zsh's own syntax, then on x the shell exits 0). After a switch (SBXSH_CDSW_STATE) the state
# is sourced here instead of the user's .zshenv, and no other start-up file is read (RCS off
# until the first prompt: the state has what they set; a login's .zlogout still runs at the
# session's end).
if (( ${+SBXSH_USER_ZDOTDIR} )); then
	ZDOTDIR=$SBXSH_USER_ZDOTDIR
else
	unset ZDOTDIR
fi
unset SBXSH_USER_ZDOTDIR
typeset -g __sbxsh_cdfd=${SBXSH_CDSW_FD-} __sbxsh_state=${SBXSH_CDSW_STATE-}
unset SBXSH_CDSW_FD SBXSH_CDSW_STATE
[[ $__sbxsh_cdfd == <-> ]] || __sbxsh_cdfd=
[[ $__sbxsh_state == <-> ]] || __sbxsh_state=
if [[ -o interactive ]]; then
	if [[ -n $__sbxsh_cdfd ]]; then
		builtin print -n H 2> /dev/null >&$__sbxsh_cdfd || __sbxsh_cdfd=
	fi
	if [[ -n $__sbxsh_state ]]; then
		builtin source /dev/fd/$__sbxsh_state 2> /dev/null
		exec {__sbxsh_state}<&-
	fi
	typeset -g __sbxsh_marker=${SBXSH_PROMPT_MARKER-}
	typeset -g __sbxsh_mp=${__sbxsh_marker//\%/%%}
	unset SBXSH_PROMPT_MARKER
	function __sbxsh_precmd {
		local m=$__sbxsh_mp
		[[ -o promptsubst ]] && m='${__sbxsh_mp}'
		local -A __sbxsh_uo # the user's options, for a dump (emulate -L changes them here)
		[[ -z $__sbxsh_cdfd ]] || __sbxsh_uo=("${(@kv)options}")
		emulate -L zsh
		: >> /dev/null
		precmd_functions=(${precmd_functions:#__sbxsh_precmd} __sbxsh_precmd)
		typeset -ga preexec_functions
		(( ${preexec_functions[(Ie)__sbxsh_preexec]} )) || preexec_functions+=(__sbxsh_preexec)
		if [[ -n $__sbxsh_marker && $PS1 != "$m"* ]]; then
			# a prefix put before it (a venv's activate: PS1="(venv) $PS1"): moved to the front
			[[ $PS1 == *"$m"* ]] && PS1=${PS1/"$m"/}
			# a prompt saved before a profile switch (a venv's, put back by deactivate) holds
			# an earlier profile's marker: only this one's is shown
			local o
			for o in $__sbxsh_oms; do
				[[ $PS1 == *"$o"* ]] && PS1=${PS1/"$o"/}
			done
			PS1=$m$PS1
		fi
		[[ -z $__sbxsh_cdfd ]] || __sbxsh_cd
	}
	# The guard: before each command line runs, the precmd hook goes back into
	# precmd_functions when an assignment at the prompt (precmd_functions=(…), unset, a
	# framework's) dropped it; the precmd hook puts this one back into preexec_functions.
	function __sbxsh_preexec {
		emulate -L zsh
		typeset -ga precmd_functions
		(( ${precmd_functions[(Ie)__sbxsh_precmd]} )) || precmd_functions+=(__sbxsh_precmd)
	}
	# At the prompt: the history carried in (first prompt), then the front end's word.
	function __sbxsh_cd {
		emulate -L zsh
		local a j=0
		if (( ! ${+__sbxsh_h0} )); then
			for a in "${(@)__sbxsh_hist}"; do builtin print -rs -- "$a"; done
			unset __sbxsh_hist
			typeset -g __sbxsh_h0=$HISTCMD
		fi
		(( ${#jobstates} )) && j=1
		builtin print -n "P$j" 2> /dev/null >&$__sbxsh_cdfd || {
			__sbxsh_cdfd=
			return 0
		}
		builtin read -r -k 1 -t 2 -u $__sbxsh_cdfd a 2> /dev/null || return 0
		[[ $a == s ]] || return 0
		# zsh hides the top level's EXIT trap (trap … EXIT, TRAPEXIT) from a function, where
		# this runs: the traps are listed by a command zsh/sched runs at the top level, right
		# after the precmd hooks, before this prompt is drawn. Without the module (a zsh built
		# without it), from here: all but the EXIT trap.
		if builtin zmodload zsh/sched 2> /dev/null; then
			builtin sched +0 '\__sbxsh_dump || builtin true; builtin trap 2> /dev/null >&$__sbxsh_cdfd || builtin true; \__sbxsh_dump_end || builtin true'
		else
			__sbxsh_dump
			builtin trap 2> /dev/null >&$__sbxsh_cdfd
			__sbxsh_dump_end
		fi
	}
	# The state in zsh's own syntax: parameters (not zsh's own nor sbxsh's; of zsh's specials
	# those a user sets), functions, aliases, options and umask (in __sbxsh_opts, run last),
	# traps (the body of __sbxsh_traps, run at the top level after it: __sbxsh_dump ends with
	# its first line, the caller lists the traps, __sbxsh_dump_end closes it), the directory
	# stack; then the names and the lines typed in this shell.
	function __sbxsh_dump {
		# from zsh/sched's command, at the top level: the user's options are in force here
		(( ${+__sbxsh_uo} )) || local -A __sbxsh_uo=("${(@kv)options}")
		emulate -L zsh
		local n t v=()
		local -a keep=(PATH FPATH MANPATH CDPATH MODULE_PATH PS1 PS2 PS3 PS4 PROMPT PROMPT2
			PROMPT3 PROMPT4 RPROMPT RPS1 RPROMPT2 RPS2 SPROMPT HISTSIZE SAVEHIST WORDCHARS
			IFS LANG LC_ALL LC_COLLATE LC_CTYPE LC_MESSAGES LC_NUMERIC LC_TIME TERMINFO
			KEYTIMEOUT DIRSTACKSIZE LISTMAX REPORTTIME TIMEFMT TMOUT NULLCMD READNULLCMD
			WATCHFMT LOGCHECK MAILCHECK MAILPATH psvar fignore watch)
		for n in ${(k)parameters}; do
			t=${parameters[$n]}
			[[ $n == (__sbxsh_*|_|ZSH_ARGZERO|ZSH_NAME|ZSH_VERSION|ZSH_PATCHLEVEL|OSTYPE|VENDOR|CPUTYPE|MACHTYPE|HOST|TTY|signals) ||
				$t == *(local|hide|readonly)* ]] && continue
			if [[ $t == *special* ]]; then
				(( ${keep[(Ie)$n]} )) || continue
			fi
			v+=($n)
		done
		typeset -ga __sbxsh_v=($v)
		typeset -g __sbxsh_ps1=$PS1
		PS1=${PS1#"$__sbxsh_mp"}
		PS1=${PS1#'${__sbxsh_mp}'}
		{
			# a first byte that is no prompt's P (the front end takes one for the next prompt)
			builtin print -r -- ':'
			for n in $v; do
				t=${parameters[$n]}
				if [[ $t != *special* ]]; then
					builtin typeset -p -- $n
				elif [[ $t == array* ]]; then
					builtin print -r -- "$n=( ${(@q+)${(P)n}} )"
				else
					builtin print -r -- "$n=${(q+)${(P)n}}"
				fi
			done
			# no alias of the new shell's expands in the functions' text
			builtin print -r -- "builtin unalias -m '*'; builtin unalias -s -m '*'"
			builtin functions -x 8
			builtin alias -L
			builtin print -r -- '__sbxsh_opts() {'
			for n in ${(k)__sbxsh_uo}; do
				[[ $n == (interactive|login|shinstdin|singlecommand|privileged|restricted|zle|monitor) ]] && continue
				if [[ ${__sbxsh_uo[$n]} == on ]]; then
					builtin print -r -- "setopt $n"
				else
					builtin print -r -- "unsetopt $n"
				fi
			done
			builtin print -r -- "umask $(builtin umask)"
			builtin print -r -- ':'
			builtin print -r -- '}'
			builtin print -r -- '__sbxsh_traps() {'
		} 2> /dev/null >&$__sbxsh_cdfd
		PS1=$__sbxsh_ps1
	}
	function __sbxsh_dump_end {
		emulate -L zsh
		local a i
		local -a oms=("$__sbxsh_mp" "${(@)__sbxsh_oms}")
		{
			builtin print -r -- ':'
			builtin print -r -- '}'
			builtin print -r -- "dirstack=( ${(@q+)dirstack} )"
			# the markers of the profiles this shell was in, for the next one's hook
			builtin print -r -- "typeset -ga __sbxsh_oms=( ${(@q+)${(@u)oms}} )"
			builtin print -rn -- $'\0N'
			builtin print -rl -- $__sbxsh_v
			builtin print -rn -- $'\0H'
			for ((i = __sbxsh_h0; i < HISTCMD; i++)); do
				(( ${+history[$i]} )) && builtin printf '%5d  %s\n' $i "${history[$i]}"
			done
			builtin print -rn -- $'\0E'
		} 2> /dev/null >&$__sbxsh_cdfd
		unset __sbxsh_v __sbxsh_ps1
		builtin read -r -k 1 -t 5 -u $__sbxsh_cdfd a 2> /dev/null
		if [[ $a == x ]]; then
			trap - EXIT
			zshexit_functions=()
			unsetopt rcs # no .zlogout: that is for the session's end
			# not exit: zsh hides the top level's EXIT trap (trap … EXIT, TRAPEXIT) from a
			# function, and runs it at an exit; exec runs none (and writes the history file)
			builtin exec /bin/true 2> /dev/null
			builtin exit 0 2> /dev/null
		fi
		[[ $a == k ]] || builtin print -rn -- $'\0A' 2> /dev/null >&$__sbxsh_cdfd
	}
	typeset -ga precmd_functions preexec_functions
	precmd_functions+=(__sbxsh_precmd)
	(( ${preexec_functions[(Ie)__sbxsh_preexec]} )) || preexec_functions+=(__sbxsh_preexec)
	if [[ -n $__sbxsh_state ]]; then
		if (( ${+functions[__sbxsh_opts]} )); then
			__sbxsh_opts 2> /dev/null
			unfunction __sbxsh_opts
		fi
		# the traps at the top level (here, not in a function): an EXIT trap set in a function
		# would be that function's, and LOCAL_TRAPS would undo the others at its return
		if (( ${+functions[__sbxsh_traps]} )); then
			builtin eval "${functions[__sbxsh_traps]}" 2> /dev/null
			unfunction __sbxsh_traps
		fi
		# the state has what .zprofile, .zshrc and .zlogin set: not again
		unsetopt rcs
		# RCS on again at the first prompt (the session's end reads .zlogout): from a hook of
		# its own, since sbxsh's (emulate -L) would set it for itself only
		function __sbxsh_rcs {
			setopt rcs
			precmd_functions=(${precmd_functions:#__sbxsh_rcs})
			unfunction __sbxsh_rcs
		}
		precmd_functions=(__sbxsh_rcs $precmd_functions)
	fi
fi
if [[ -z $__sbxsh_state && -f ${ZDOTDIR:-$HOME}/.zshenv ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zshenv"
fi
# zsh's next files (.zprofile, .zshrc, .zlogin) are sbxsh.zrc in this directory: each reads the
# user's, from the ZDOTDIR the user's .zshenv left (kept in __sbxsh_uzd), and the last puts
# sbxsh's hook after whatever the user's files did to precmd_functions.
if [[ -o interactive && -z $__sbxsh_state && -o rcs && -r ${${(%):-%x}:h}/.zshrc ]]; then
	(( ! ${+ZDOTDIR} )) || typeset -g __sbxsh_uzd=$ZDOTDIR
	ZDOTDIR=${${(%):-%x}:h}
fi
unset __sbxsh_state
