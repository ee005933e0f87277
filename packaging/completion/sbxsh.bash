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
		*) COMPREPLY=($(compgen -W 'session policy log doctor' -- "$cur")) ;;
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
	*)
		case $prev in
		--config|--rcfile) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac ;;
	esac
}
complete -F _sbxsh sbxsh
