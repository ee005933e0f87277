# bash completion for sbxsh(1): its own subcommands and options; bash's options otherwise.
_sbxsh()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W '--dry-run --config --help --version --login --norc
			--noprofile --rcfile --posix -c -l -i -s -e -o -O' -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W 'session policy run log doctor' -- "$cur")) ;;
		esac
		return
	fi
	case ${COMP_WORDS[1]} in
	session)
		[ "$COMP_CWORD" -eq 2 ] &&
			COMPREPLY=($(compgen -W 'status start stop connect --help' -- "$cur")) ;;
	policy)
		case $prev in --config) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac
		COMPREPLY=($(compgen -W '--check --config --help' -- "$cur") $(compgen -d -- "$cur")) ;;
	log)
		case $prev in
		--config) COMPREPLY=($(compgen -f -- "$cur")) ;;
		--since|--command) ;;
		*) COMPREPLY=($(compgen -W '--json --since --command --all --config --help' -- "$cur")) ;;
		esac ;;
	doctor)
		COMPREPLY=($(compgen -W '--sshd --user --config --help' -- "$cur")) ;;
	run)
		# sbxsh run [--preset NAME] [--] AGENT [ARG…]: the agent is a command, then its own words
		local i=2 seen=
		while [ "$i" -lt "$COMP_CWORD" ]; do
			case ${COMP_WORDS[i]} in
			--preset) i=$((i + 1)) ;;
			--) ;;
			*) seen=1; break ;;
			esac
			i=$((i + 1))
		done
		if [ -n "$seen" ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		elif [ "$prev" = --preset ]; then
			COMPREPLY=($(compgen -W 'claude-code codex gemini aider openhands goose' -- "$cur"))
		else
			case $cur in
			-*) COMPREPLY=($(compgen -W '--preset --help --' -- "$cur")) ;;
			*) COMPREPLY=($(compgen -c -- "$cur")) ;;
			esac
		fi ;;
	*)
		case $prev in
		--config|--rcfile) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac ;;
	esac
}
complete -F _sbxsh sbxsh
