#!/usr/bin/env zsh
# zcomp.zsh DIR LINE — the matches zsh's completion offers for LINE followed by a TAB, one a
# line, with DIR (holding _sbxsh) first in fpath. An interactive zsh -f on a pseudo-terminal
# (zsh/zpty); compadd is wrapped to print each match it adds.
emulate -L zsh
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z 'PROMPT= RPROMPT= ; unsetopt zle_bracketed_paste 2>/dev/null'
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd () { local -a __h; builtin compadd -O __h "$@"; print -rl -- "<""m>"${^__h}"</""m>"; builtin compadd "$@" }'
zpty -w z 'comppostfuncs=(_zc_end); _zc_end () { print -r -- "<""end>"; compstate[insert]=; compstate[list]= }'
zpty -n -w z "$2"$'\t'
out=
integer tries=0
while (( tries < 300 )); do # 15 s at most
	if zpty -r -t z line; then
		out+=$line
		[[ $line == *'<end>'* ]] && break
	else
		(( tries++ ))
		sleep 0.05
	fi
done
zpty -d z
print -r -- ${out//$'\r'/} | grep -o '<m>[^<]*</m>' | sed 's/<m>//; s,</m>,,'
