#!/bin/sh
# 0993 the write boundary attacked again (session 15), as root and as a user. Each attack
# below succeeded on the build before its fix:
# - files the caller's environment names as code: BASH_ENV (every non-interactive bash on the
#   host sources it), ENV, PYTHONSTARTUP, INPUTRC, GIT_CONFIG_GLOBAL, LD_PRELOAD, and the
#   programs EDITOR, VISUAL, PAGER, GIT_EDITOR, SUDO_ASKPASS, LESSOPEN … name — kept in a
#   dotfiles repository that is the project (or a write grant): the command rewrote them and
#   the host's next shell, python, git or editor ran what it wrote; LUA_INIT's @FILE; and a
#   library made in LD_LIBRARY_PATH's ~/.local/lib (under write += ~/.local), which the host's
#   next program linking one of that name loads.
# Each attack with a control that shows the same write lands where it is allowed.
. "$(dirname "$0")/lib.sh"

redteam_start redteam15 "the write boundary" # HOME and the project under /var/tmp

# --- 1. files the caller's environment names as code, in the project (a dotfiles repository)
mkdir -p "$P/bin" "$P/lib"
for f in bash_env sh_env pythonrc.py inputrc gitconfig bin/edit bin/askpass bin/lesspipe \
	lib/preload.so; do
	printf '#!/bin/sh\necho genuine\n' > "$P/$f"
	chmod 755 "$P/$f"
done
printf '[user]\n\tname = genuine\n' > "$P/gitconfig"
cp -R "$P" "$H/orig"
export BASH_ENV="$P/bash_env" ENV="$P/sh_env" PYTHONSTARTUP="$P/pythonrc.py" \
	INPUTRC="$P/inputrc" GIT_CONFIG_GLOBAL="$P/gitconfig" EDITOR="$P/bin/edit -w" \
	SUDO_ASKPASS="$P/bin/askpass" LESSOPEN="| $P/bin/lesspipe %s"
hostbash() { (cd "$H" && bash -c true 2>&1); }
same() { cmp -s "$H/orig/$1" "$P/$1"; } # same FILE: as it was made above
is "setup: the host's next bash sources BASH_ENV" "$(hostbash)" genuine
run 'echo "echo PLANTED" > bash_env'
is "BASH_ENV's file in the project is not rewritten" "$(hostbash)" genuine
like "… and reported" "$err" 'violation'
run 'mv bash_env bash_env.old; echo "echo PLANTED" > bash_env'
is "… nor renamed away and made anew" "$(hostbash)" genuine
for f in sh_env pythonrc.py inputrc gitconfig bin/edit bin/askpass bin/lesspipe; do
	run "echo PLANTED >> $f"
	check "the file $f (named by the environment) is not appended to" same "$f"
done
LD_PRELOAD="$P/lib/preload.so" run 'echo PLANTED >> lib/preload.so' 2> /dev/null
check "… nor LD_PRELOAD's library" same lib/preload.so
run 'rm -f bin/askpass; echo PLANTED > bin/askpass'
check "… nor SUDO_ASKPASS's program removed and made anew" same bin/askpass
run 'echo x > other; echo x > bin/other; echo x > lib/other.so'
present "control: another file of the project is written" "$P/other"
present "… and beside the named program" "$P/bin/other"
present "… and beside the preloaded library" "$P/lib/other.so"
unset BASH_ENV ENV PYTHONSTARTUP INPUTRC GIT_CONFIG_GLOBAL EDITOR SUDO_ASKPASS LESSOPEN
# LD_LIBRARY_PATH's directories, as $PATH's: ~/.local/lib under write += ~/.local
mkdir -p "$HOME/.local/lib"
user_policy '[default]
network = none
write += ~/.local'
LD_LIBRARY_PATH="$HOME/.local/lib" run 'echo x > ~/.local/lib/libz.so.1; mkdir -p ~/.local/lib/sub; echo x > ~/.local/lib/sub/f'
absent "a library is not made in LD_LIBRARY_PATH's ~/.local/lib (~/.local granted)" "$HOME/.local/lib/libz.so.1"
like "… the refusal names the rule" "$err" 'LD_LIBRARY_PATH'
present "control: a file in a subdirectory of it is made" "$HOME/.local/lib/sub/f"
user_policy '[default]
network = none'

echo 'print("genuine")' > "$P/init.lua"
LUA_INIT="@$P/init.lua" run 'echo "os.execute(\"touch /tmp/x\")" >> init.lua'
is "LUA_INIT's @FILE is not appended to" "$(cat "$P/init.lua")" 'print("genuine")'

done_testing
