# sbxsh.zshenv — LIBEXECDIR/zsh/.zshenv, read by an interactive inner zsh that sbxsh started
# with ZDOTDIR here (sbxsh(1), "Interactive use"). Read inside the sandbox, bound read-only.
# It puts ZDOTDIR back as the caller had it (SBXSH_USER_ZDOTDIR, or unset: $HOME), reads the
# user's .zshenv from there as zsh would have, and leaves zsh to read the user's .zprofile,
# .zshrc and .zlogin itself (zsh takes each file from ZDOTDIR as it is then). For the prompt
# it adds a precmd hook of its own, moved to the end of precmd_functions at every prompt (a
# theme's hook that rewrites the prompt runs before it from the second prompt on): it opens
# /dev/null, a call the violation monitor answers, so the violations of the command before are
# on the terminal above the prompt; and it puts the marker before the prompt unless the prompt
# already starts with it ('%' doubled; with PROMPT_SUBST a reference to a variable, so the
# marker's text is never expanded).
if (( ${+SBXSH_USER_ZDOTDIR} )); then
	ZDOTDIR=$SBXSH_USER_ZDOTDIR
else
	unset ZDOTDIR
fi
unset SBXSH_USER_ZDOTDIR
if [[ -o interactive ]]; then
	typeset -g __sbxsh_marker=${SBXSH_PROMPT_MARKER-}
	typeset -g __sbxsh_mp=${__sbxsh_marker//\%/%%}
	unset SBXSH_PROMPT_MARKER
	function __sbxsh_precmd {
		local m=$__sbxsh_mp
		[[ -o promptsubst ]] && m='${__sbxsh_mp}'
		emulate -L zsh
		: >> /dev/null
		precmd_functions=(${precmd_functions:#__sbxsh_precmd} __sbxsh_precmd)
		[[ -n $__sbxsh_marker ]] || return 0
		[[ $PS1 == "$m"* ]] || PS1=$m$PS1
	}
	typeset -ga precmd_functions
	precmd_functions+=(__sbxsh_precmd)
fi
if [[ -f ${ZDOTDIR:-$HOME}/.zshenv ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zshenv"
fi
