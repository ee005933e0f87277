# sbxsh.bashrc — the --rcfile of an interactive inner bash (sbxsh(1), "Interactive use").
# Read inside the sandbox, bound read-only. The user's ~/.bashrc first, as bash reads it
# (bash has read /etc/bash.bashrc already), then a PROMPT_COMMAND element of sbxsh's own
# (bash 5.1 and later keep it when a script assigns PROMPT_COMMAND=… as a scalar: that sets
# element 0). It opens /dev/null, a call the violation monitor answers, so by the time it
# returns the violations of the command before are on the terminal, above the prompt; and it
# puts the prompt marker before PS1 unless PS1 already starts with it.
if [ -f ~/.bashrc ]; then . ~/.bashrc; fi
__sbxsh_marker=${SBXSH_PROMPT_MARKER-}
__sbxsh_marker=${__sbxsh_marker//\\/\\\\}
__sbxsh_marker=${__sbxsh_marker//\$/\\\$}
__sbxsh_marker=${__sbxsh_marker//\`/\\\`}
unset SBXSH_PROMPT_MARKER
__sbxsh_prompt() {
	: >> /dev/null
	if [ -n "$__sbxsh_marker" ]; then
		case $PS1 in "$__sbxsh_marker"*) ;; *) PS1=$__sbxsh_marker$PS1 ;; esac
	fi
}
if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
	if ((${#PROMPT_COMMAND[@]} == 0)); then PROMPT_COMMAND=(''); fi
	PROMPT_COMMAND+=(__sbxsh_prompt)
else
	PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND; }__sbxsh_prompt"
fi
