#!/bin/sh
# completion.sh — bash's and zsh's completion for sbxsh, driven for real (TAP).
# The subcommands come from `sbxsh --help` itself, so a new subcommand missing from either
# completion fails here. bash: the completion function called with COMP_WORDS as readline sets
# them. zsh: an interactive zsh on a pseudo-terminal (zsh/zpty), compinit with our _sbxsh
# first in fpath, a TAB sent and each match compadd adds printed (tests/lint/zcomp.zsh).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sbxsh=${SBXSH:-$top/build/sbxsh}
comp=$top/packaging/completion
i=0
ok() { i=$((i + 1)); echo "ok $i - $1"; }
nok() { i=$((i + 1)); echo "not ok $i - $1"; }
has() { # has WORD LIST…
	w=$1
	shift
	for x; do [ "$x" = "$w" ] && return 0; done
	return 1
}

# The subcommands --help names (usage lines "sbxsh WORD …" with WORD a lower-case word).
subs=$("$sbxsh" --help 2>&1 | sed -n 's/^.*sbxsh \([a-z][a-z]*\)\( .*\)*$/\1/p' | sort -u)
if [ -n "$subs" ] && has run $subs && has log $subs; then
	ok "--help names the subcommands ($(echo $subs))"
else
	nok "--help names the subcommands (got: $subs)"
fi

# bash: bcomp WORD… — COMPREPLY for the last word (the one being completed).
bcomp() {
	bash --norc --noprofile -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_sbxsh; printf "%s\n" "${COMPREPLY[@]}"' bcomp "$comp/sbxsh.bash" "$@" 2> /dev/null
}
got=$(bcomp sbxsh '')
for s in $subs; do
	if has "$s" $got; then ok "bash: sbxsh <TAB> offers $s"; else nok "bash: sbxsh <TAB> offers $s (got: $(echo $got))"; fi
done
got=$(bcomp sbxsh run --preset c)
if has claude-code $got && has codex $got && ! has aider $got; then
	ok "bash: sbxsh run --preset c<TAB> offers the presets beginning with c"
else
	nok "bash: sbxsh run --preset c<TAB> (got: $(echo $got))"
fi
got=$(bcomp sbxsh session st)
if has start $got && has status $got && has stop $got && ! has connect $got; then
	ok "bash: sbxsh session st<TAB> offers start, status, stop"
else
	nok "bash: sbxsh session st<TAB> (got: $(echo $got))"
fi
got=$(bcomp sbxsh log --j)
if [ "$got" = --json ]; then ok "bash: sbxsh log --j<TAB> is --json"; else nok "bash: sbxsh log --j<TAB> (got: $got)"; fi

# zsh: zcomp LINE — the matches for LINE followed by a TAB, one a line.
if ! command -v zsh > /dev/null 2>&1; then
	i=$((i + 1))
	echo "ok $i - zsh completion # SKIP zsh is not installed (packaging/deps.sh installs it)"
	got=$(zcomp 'sbxsh doctor --s')
if [ "$got" = --sshd ]; then ok "zsh: sbxsh doctor --s<TAB> is --sshd"; else nok "zsh: sbxsh doctor --s<TAB> (got: $(echo $got))"; fi
got=$(zcomp 'sbxsh run sle')
if has sleep $got; then ok "zsh: sbxsh run sle<TAB> offers commands (sleep)"; else nok "zsh: sbxsh run sle<TAB> (got: $(echo $got))"; fi
echo "1..$i"
	exit 0
fi
zcomp() { timeout 30 zsh -f "$top/tests/lint/zcomp.zsh" "$comp" "$1" 2> /dev/null | sort -u; }
got=$(zcomp 'sbxsh ')
for s in $subs; do
	if has "$s" $got; then ok "zsh: sbxsh <TAB> offers $s"; else nok "zsh: sbxsh <TAB> offers $s (got: $(echo $got))"; fi
done
got=$(zcomp 'sbxsh run --preset c')
if has claude-code $got && has codex $got && ! has aider $got; then
	ok "zsh: sbxsh run --preset c<TAB> offers the presets beginning with c"
else
	nok "zsh: sbxsh run --preset c<TAB> (got: $(echo $got))"
fi
got=$(zcomp 'sbxsh session st')
if has start $got && has status $got && has stop $got && ! has connect $got; then
	ok "zsh: sbxsh session st<TAB> offers start, status, stop"
else
	nok "zsh: sbxsh session st<TAB> (got: $(echo $got))"
fi
got=$(zcomp 'sbxsh log --j')
if has --json $got && ! has --all $got; then ok "zsh: sbxsh log --j<TAB> offers --json"; else nok "zsh: sbxsh log --j<TAB> (got: $(echo $got))"; fi
got=$(zcomp 'sbxsh doctor --s')
if [ "$got" = --sshd ]; then ok "zsh: sbxsh doctor --s<TAB> is --sshd"; else nok "zsh: sbxsh doctor --s<TAB> (got: $(echo $got))"; fi
got=$(zcomp 'sbxsh run sle')
if has sleep $got; then ok "zsh: sbxsh run sle<TAB> offers commands (sleep)"; else nok "zsh: sbxsh run sle<TAB> (got: $(echo $got))"; fi
echo "1..$i"
