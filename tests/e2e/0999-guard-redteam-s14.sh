#!/bin/sh
# 0999 the write boundary attacked again (session 14), as root and as a user. Each attack
# below succeeded on the build before its fix:
# - the line a refusal suggests spelled the path with only its glob characters escaped: a
#   command that tried to write "~/notes ~/x" was answered `write += ~/notes ~`, which the
#   policy reads as two grants, the second all of the home (a blank, ',', '$' and ';' are
#   policy syntax: a list's separators, a variable, a comment).
# - zsh's compiled start-up files: zsh runs NAME.zwc instead of NAME when it is newer
#   (`zcompile`), for its start-up files and every file it sources; .zshrc was held by name,
#   .zshrc.zwc beside it was not (a ZDOTDIR in a write grant: a dotfiles repository).
. "$(dirname "$0")/lib.sh"

redteam_start redteam14 "the write boundary" # HOME and the project under /var/tmp

# --- 1. the suggested line names the path refused, and nothing else ---
# suggested LINE_PATTERN: the value after "write += " in the violation lines of $err
suggested() { printf '%s\n' "$err" | sed -n 's/.*: write += \(.*\)$/\1/p' | sed 's/ (the file alone.*//' | head -1; }
# grants VALUE: the write grants a user file with `write += VALUE` adds (sbxsh policy)
grants() {
	printf '[default]\nnetwork = none\nwrite += %s\n' "$1" > "$H/try.ini"
	chmod 600 "$H/try.ini"
	(cd "$P" && "$SBXSH" policy --config "$H/try.ini" 2>&1) | sed -n 's/^write = \(.*\)  # .*try\.ini.*/\1/p'
}
for name in 'notes ~' 'w /etc' 'a,~' 'd$HOME' 'x ;y'; do
	run "touch \"\$HOME\"/'$name'/f"
	s=$(suggested)
	is "a refused write under ~/$name suggests a line that grants ~/$name alone" "$(grants "$s")" "$HOME/$name"
done
run 'mkdir "$HOME/notes ~"'
s=$(suggested)
is "… and for a file directly in ~ (the file alone)" "$(grants "$s")" "$HOME/notes ~"
# the no-project line ([dir X] write = .) names that cwd only
mkdir -p "$HOME/.stash"
for d in 'sp ace' 'd$HOME'; do
	mkdir -p "$HOME/.stash/$d"
	out=$(cd "$HOME/.stash/$d" && "$SBXSH" policy 2>&1)
	line=$(printf '%s\n' "$out" | grep -o '\[dir [^]]*\] write = \.' | head -1)
	printf '[default]\nnetwork = none\n%s\nwrite = .\n' "${line%% write = .}" > "$H/try.ini"
	chmod 600 "$H/try.ini"
	is "the no-project line for ~/.stash/$d makes that cwd the root" \
		"$(cd "$HOME/.stash/$d" && "$SBXSH" policy --config "$H/try.ini" 2>&1 | sed -n 's/^root = \(.*\)  # .*/\1/p')" "$HOME/.stash/$d"
done

# --- 2. zsh's compiled start-up files (NAME.zwc) ---
if command -v zsh > /dev/null 2>&1; then
	Z=$P/zsh
	mkdir -p "$Z" "$H/zc"
	echo 'echo genuine' > "$Z/.zshrc"
	echo 'echo PLANTED' > "$H/zc/.zshrc"
	(cd "$H/zc" && zsh -fc 'zcompile .zshrc') # the command's copy, made outside
	cp "$H/zc/.zshrc.zwc" "$P/planted.zwc"
	hostzsh() { (cd "$Z" && ZDOTDIR=$Z zsh -ic true < /dev/null 2>&1); }
	is "setup: the host's zsh runs the ZDOTDIR's .zshrc" "$(hostzsh)" genuine
	run 'sleep 1; cp planted.zwc zsh/.zshrc.zwc; cp planted.zwc zsh/.zshenv.zwc; mkdir -p a/b/c; cp planted.zwc a/b/c/.zprofile.zwc'
	is "a compiled .zshrc (.zshrc.zwc) is not made beside it: the host's zsh runs the genuine one" "$(hostzsh)" genuine
	absent "… nor .zshenv.zwc" "$Z/.zshenv.zwc"
	absent "… nor at depth 3 (.zprofile.zwc)" "$P/a/b/c/.zprofile.zwc"
	like "… the refusal names the rule" "$err" 'zwc'
	run 'mv planted.zwc zsh/.zshrc.zwc'
	is "… nor renamed into place" "$(hostzsh)" genuine
	run "cp '$H/zc/.zshrc.zwc' zsh/other.zwc; cp '$H/zc/.zshrc.zwc' .env.zwc"
	present "control: another .zwc is made" "$Z/other.zwc"
	absent "… but not .env.zwc (dotenv plugins source .env)" "$P/.env.zwc"
else
	skip "zsh's compiled start-up files" "no zsh here"
fi

done_testing
