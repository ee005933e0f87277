#!/bin/sh
# 0110-filesystem — what a command may read and write (policy.md): hidden credentials,
# write grants, file grants widened, mandatory write denies, globs, links, the cwd.
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
sb() { "$SBXSH" "$@"; }

# deny_read: a hidden directory is empty, a hidden file reads empty; neither is writable.
mkdir -p "$HOME/.ssh" && echo secret > "$HOME/.ssh/id_rsa" && echo machine > "$HOME/.netrc"
out=$(sb -c 'cat ~/.ssh/id_rsa' 2>&1); rc=$?
check "a file under a hidden ~/.ssh cannot be read" test "$rc" -ne 0
is "…and the hidden ~/.ssh looks empty" "$(sb -c 'ls -A ~/.ssh; echo end' 2>/dev/null)" "end"
is "a hidden file (~/.netrc) reads empty" "$(sb -c 'cat ~/.netrc; echo end' 2>/dev/null)" "end"
sb -c 'echo x > ~/.ssh/new; echo y > ~/.netrc' 2>/dev/null
check "…writes into them fail and nothing lands on the host" \
	test ! -e "$HOME/.ssh/new" -a "$(cat "$HOME/.netrc")" = machine

# Writes: outside the grants refused, nothing on the host; inside the project they land.
sb -c "echo x > '$HOME/outside.txt'" 2>/dev/null; rc=$?
check "a write outside the grants fails" test "$rc" -ne 0
check "…and nothing appears on the host" test ! -e "$HOME/outside.txt"
sb -c 'mkdir -p sub && echo data > sub/f.txt' 2>/dev/null
is "a write inside the project lands on the host" "$(cat "$T/proj/sub/f.txt" 2>&1)" "data"

# A file write grant is widened to its directory, so rename-over-it works (no EBUSY).
mkdir -p "$T/data" && echo old > "$T/data/out.bin"
user_policy "[default]
network = none
write += $T/data/out.bin"
out=$(sb -c "cd '$T/data' && echo new > tmp && mv tmp out.bin && echo moved" 2>&1)
like "mv tmp out.bin over a granted file works" "$out" 'moved'
is "…the host file has the new content" "$(cat "$T/data/out.bin")" "new"
like "…and the widening is said on stderr" "$out" "write grant $T/data/out.bin is a file; its directory $T/data is writable"

# Mandatory write denies hold inside write grants, home included.
mkdir -p "$T/proj/.git/hooks" && : > "$T/proj/.bashrc" && : > "$T/proj/.git/config"
: > "$HOME/.bashrc"
user_policy "[default]
network = none
write += ~"
for f in "$T/proj/.bashrc" "$T/proj/.git/hooks/x" "$T/proj/.git/config" "$HOME/.bashrc" \
	"$HOME/.config/sbxsh/sbxsh.ini" "$HOME/.config/sbxsh/new.ini"; do
	sb -c "echo pwned >> '$f'" 2>/dev/null
	check "${f#$T/} is not writable inside a write grant" sh -c "! grep -q pwned '$f' 2>/dev/null"
done
sb -c 'echo ok > ~/allowed.txt' 2>/dev/null
is "…while the rest of the granted home is writable" "$(cat "$HOME/allowed.txt" 2>&1)" ok
user_policy "[default]
network = none
git_config = yes"
sb -c 'echo "# ok" >> .git/config' 2>/dev/null
is "git_config = yes makes .git/config writable" "$(cat "$T/proj/.git/config")" "# ok"

# deny_write from the profile.
mkdir -p "$T/proj/vendor"
user_policy "[default]
network = none
deny_write = ./vendor"
sb -c 'touch vendor/x' 2>/dev/null
check "deny_write makes a tree read-only inside the project" test ! -e "$T/proj/vendor/x"

# Globs: expanded at start; one matching nothing is reported with the directory to grant.
mkdir -p "$T/out-a" "$T/out-b"
user_policy "[default]
network = none
write += $T/out-*
write += $T/build-*/"
out=$(sb -c "touch '$T/out-a/1' '$T/out-b/2'" 2>&1)
check "a write glob grants each directory it matches" test -e "$T/out-a/1" -a -e "$T/out-b/2"
like "a write glob matching nothing is reported with the directory to grant" "$out" \
	"build-\\*.*matches nothing.*grant the directory $T instead"

# A write grant spelled inside the project whose link leads out of it is refused, by name,
# whether it is a literal or a glob's hit; nothing outside becomes writable.
mkdir -p "$T/elsewhere" && ln -s "$T/elsewhere" "$T/proj/outlink"
user_policy "[default]
network = none
write += outlink"
out=$(sb -c 'echo x > outlink/f' 2>&1); rc=$?
is "a write grant through a link out of the project is refused (125)" "$rc" 125
like "…naming the grant, the target and the fix" "$out" "write: 'outlink' leads through a symlink to $T/elsewhere, outside the project $T/proj; grant $T/elsewhere itself"
user_policy "[default]
network = none
write += outl*"
out=$(sb -c 'echo x > outlink/f' 2>&1); rc=$?
is "a glob whose hit leads out of the project is refused (125)" "$rc" 125
like "…naming the link" "$out" "the symlink $T/proj/outlink leads to $T/elsewhere"
check "…and nothing was written outside" test ! -e "$T/elsewhere/f"
rm -f "$T/proj/outlink"

# A cwd that no grant shows is refused with a message, never run in $HOME instead.
mkdir -p "$T/other"; rm -f "$T/proj/ran"
user_policy "[default]
network = none
hermetic = yes
write = $T/other"
out=$(sb -c 'pwd; touch ran' 2>&1); rc=$?
is "a cwd outside every grant is refused (125)" "$rc" 125
like "…with a message naming it" "$out" "current directory $T/proj is not granted"
check "…and nothing ran" test ! -e "$T/proj/ran"

# hermetic: only the system directories (and grants) are visible.
user_policy "[default]
network = none
hermetic = yes"
out=$(sb -c "ls '$HOME' >/dev/null 2>&1 && echo home-visible; ls /usr/bin/env >/dev/null && echo usr; pwd" 2>&1)
is "hermetic hides the home directory, keeps /usr and the project" "$out" "usr
$T/proj"

# git across the mounts; environment.
if command -v git > /dev/null; then
	git -C "$T/proj" init -q 2>/dev/null
	user_policy '[default]
network = none'
	out=$(cd "$T/proj/sub" && sb -c 'git rev-parse --show-toplevel' 2>&1)
	is "git finds the repository across the sandbox's mounts" "$out" "$T/proj"
else
	skip "git finds the repository" "git is not installed"
fi
user_policy '[default]
network = none
env_unset = SECRET_* LEAK
env_set = FOO=bar'
out=$(SECRET_A=1 SECRET_B=2 LEAK=3 KEEP=4 sb -c 'echo "${SECRET_A-}${SECRET_B-}${LEAK-}|$KEEP|$FOO|$SBXSH_SANDBOX"' 2>&1)
is "env_unset (globs), env_set and SBXSH_SANDBOX" "$out" "|4|bar|1"

# An inner shell that cannot run: the status bash gives (127 missing, 126 not runnable) and
# the stage's message naming it.
user_policy '[sbxsh]
inner_shell = /nonexistent/bash
[default]
network = none'
out=$(sb -c true 2>&1); rc=$?
is "a missing inner_shell exits 127" "$rc" 127
like "… naming it" "$out" "cannot run the inner shell /nonexistent/bash: No such file or directory"
echo 'not a program' > "$T/notashell" && chmod 644 "$T/notashell"
user_policy '[sbxsh]
inner_shell = '"$T"'/notashell
[default]
network = none'
out=$(sb -c true 2>&1); rc=$?
is "an inner_shell that is not a program exits 126" "$rc" 126
like "… naming it" "$out" "cannot run the inner shell $T/notashell"
done_testing
