#!/bin/sh
# 0410-roots — project roots (policy.md "project root"), links and globs in write grants,
# glob characters in real paths, missing grant directories. Each attack has a control that
# shows the allowed write still lands.
TMPDIR=/var/tmp; export TMPDIR # HOME and the projects outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
user_policy '[default]
network = none'
sb() { "$SBXSH" "$@"; }

# --- the home directory is never a project by itself ---
mkdir -p "$HOME/scratch/x"
out=$(cd "$HOME" && sb -c 'touch ~/x' 2>&1); rc=$?
check "from ~ (no .git), touch ~/x fails" test "$rc" -ne 0
check "…and ~/x does not exist on the host" test ! -e "$HOME/x"
unlike "…a command gets no notice for it (sbxsh policy and a prompt say it)" "$out" "grants nothing"
out=$(cd "$HOME/scratch/x" && sb -c 'touch ok && echo made' 2>&1)
like "control: from ~/scratch/x (no .git) touch ok works" "$out" '^made$'
check "…and lands in ~/scratch/x" test -f "$HOME/scratch/x/ok"
out=$(cd "$HOME/scratch/x" && sb -c 'touch ~/scratch/sib' 2>&1); rc=$?
check "…but ~/scratch/x is the root, not ~/scratch" test "$rc" -ne 0 -a ! -e "$HOME/scratch/sib"

# A dotfiles repository at ~ does not make ~ the project.
mkdir -p "$HOME/.git"
out=$(cd "$HOME" && sb -c 'touch ~/y' 2>&1); rc=$?
check "with ~/.git, touch ~/y from ~ fails" test "$rc" -ne 0 -a ! -e "$HOME/y"
out=$(cd "$HOME/scratch/x" && sb policy 2>&1)
like "…and ~/scratch/x is still its own root" "$out" "^root = $HOME/scratch/x  # cwd"
out=$(cd "$HOME" && sb policy 2>&1)
like "…sbxsh policy in ~ says root = none and why" "$out" '^root = none  # no project: the home directory is never a project by itself, even with a \.git'
rm -rf "$HOME/.git"

# A dot-directory of ~ is no project.
mkdir -p "$HOME/.config/x"
out=$(cd "$HOME/.config/x" && sb -c 'touch f' 2>&1); rc=$?
check "a cwd in ~/.config/x is no project: touch f fails" test "$rc" -ne 0 -a ! -e "$HOME/.config/x/f"
out=$(cd "$HOME/.config/x" && sb policy 2>&1)
like "…sbxsh policy names [dir ~/.config/x] write = ." "$out" 'to make it one: \[dir ~/\.config/x\] write = \.'

# Outside the home directory with no marker: no project (T/opt/x plays /opt/x).
mkdir -p "$T/opt/x"
out=$(cd "$T/opt/x" && sb -c 'touch f' 2>&1); rc=$?
check "/opt/x (no marker, outside ~) is no project: touch f fails" test "$rc" -ne 0 -a ! -e "$T/opt/x/f"
n=$(printf '%s\n' "$out" | grep -c "grants nothing")
is "…a command gets no notice (its refused write's hint names the line)" "$n" 0
n=$(cd "$T/opt/x" && sb -i -c true 2>&1 < /dev/null | grep -c "grants nothing")
is "…an interactive shell one" "$n" 1
like "…sbxsh policy names [dir $T/opt/x] write = ." "$(cd "$T/opt/x" && sb policy 2>&1)" "to make it one: \[dir $T/opt/x\] write = \."
like "…and the refused write's hint names that line" "$out" "write $T/opt/x/f .*to allow, \[dir $T/opt/x\] in .*: write = \."
user_policy "[default]
network = none
[dir $T/opt/x]
write = ."
out=$(cd "$T/opt/x" && sb -c 'touch f && echo made' 2>&1)
like "control: with [dir $T/opt/x] write = . the write lands" "$out" '^made$'
check "…on the host" test -f "$T/opt/x/f"
user_policy '[default]
network = none'

# No project in the host's /tmp (a mktemp -d): the cwd is seen read-only through the private /tmp.
td=$(mktemp -d /tmp/sbxsh-0410.XXXXXX) && echo hi > "$td/in"
out=$(cd "$td" && sb -c 'cat in; touch out' 2>&1); rc=$?
like "a cwd in the host's /tmp with no marker is readable" "$out" '^hi$'
check "…but no project: touch out fails and nothing lands" test "$rc" -ne 0 -a ! -e "$td/out"
rm -rf "$td"

# / is never a project: cd / && touch /etc/x fails, even as root.
f=/etc/sbxsh-0410-$$
out=$(cd / && sb -c "touch $f" 2>&1); rc=$?
check "cd / && touch /etc/… fails" test "$rc" -ne 0
check "…and nothing appears in /etc" test ! -e "$f"
rm -f "$f"
out=$(cd / && sb -c 'echo ok > /tmp/t && cat /tmp/t' 2>&1)
like "control: from /, the private /tmp is writable" "$out" '^ok$'

# --- a planted link widens a write glob ---
mkdir -p "$HOME/work/a" "$HOME/work/b/build"
user_policy '[default]
network = none
write += ~/work/*/build'
(cd "$HOME/work/a" && sb -c 'ln -s ~ build') 2>/dev/null
check "(setup) the command in ~/work/a planted build -> ~" test -L "$HOME/work/a/build"
out=$(cd "$T/proj" && sb -c 'touch ~/pwned' 2>&1); rc=$?
check "the next command cannot write ~ through the planted link" test ! -e "$HOME/pwned"
like "…the hit is dropped with a notice naming the link" "$out" "work/a/build leads through the symlink .*work/a/build to $HOME, outside $HOME/work; it is not mounted"
out=$(cd "$T/proj" && sb -c 'touch ~/work/b/build/ok && echo made' 2>&1)
like "control: a real ~/work/b/build hit is writable" "$out" '^made$'
check "…on the host" test -f "$HOME/work/b/build/ok"
rm -f "$HOME/work/a/build"
ln -s .. "$HOME/work/a/build"
out=$(cd "$T/proj" && sb -c 'touch ~/work/b/widened' 2>&1)
check "a hit linked to the fixed directory itself (build -> ..) does not widen the grant" test ! -e "$HOME/work/b/widened"
rm -f "$HOME/work/a/build"

# The same planted link under a literal grant: refused, naming the link.
mkdir -p "$HOME/work/c"
user_policy '[default]
network = none'
(cd "$HOME/work/c" && sb -c 'ln -s ~ build') 2>/dev/null
check "(setup) the command in ~/work/c planted build -> ~" test -L "$HOME/work/c/build"
user_policy '[default]
network = none
write += ~/work/c/build'
out=$(cd "$T/proj" && sb -c 'touch ~/pwned2' 2>&1); rc=$?
check "a literal grant through a planted link to ~ does not make ~ writable" test ! -e "$HOME/pwned2"
like "…the command is refused, naming the link" "$out" "write: '~/work/c/build' leads through a symlink to $HOME, which holds the home directory"
rm -f "$HOME/work/c/build" && mkdir "$HOME/work/c/build"
out=$(cd "$T/proj" && sb -c 'touch ~/work/c/build/ok && echo made' 2>&1)
like "control: the real directory is writable" "$out" '^made$'

# --- glob characters in real paths are literal ---
br="$T/br[1]/proj"
mkdir -p "$br/.git" "$T/br1/proj"
user_policy '[default]
network = none'
out=$(cd "$br" && sb -c 'touch f && echo made' 2>&1)
like "a project under br[1] gets its write grant from write = ." "$out" '^made$'
check "…the file lands in br[1]/proj" test -f "$br/f"
check "…and nothing in br1/proj" test ! -e "$T/br1/proj/f"
mkdir -p "$T/br[1]/other"
out=$(cd "$br" && sb -c "touch '$T/br[1]/other/g'" 2>&1)
case $out in
*"write += $T/br\\[1\\]/other"*) ok "the suggested line escapes the brackets" ;;
*) not_ok "the suggested line escapes the brackets"; diag "got: $out" ;;
esac
mkdir -p "$br/.claude" && echo '{}' > "$br/.claude/settings.json"
(cd "$br" && sb -c 'echo pwned > .claude/settings.json') 2>/dev/null
is "…and its .claude/settings.json (a mandatory deny found by a glob) stays read-only" "$(cat "$br/.claude/settings.json")" '{}'
mkdir -p "$T/x" && echo secret > "$T/x/sec[1]" && echo plain > "$T/x/sec1"
user_policy "[default]
network = none
deny_read += $T/x/sec\\[1\\]"
is "deny_read += …/sec\\[1\\] hides the file sec[1]" "$(cd "$T/proj" && sb -c "cat '$T/x/sec[1]'; echo end" 2>/dev/null)" "end"
is "…and not sec1" "$(cd "$T/proj" && sb -c "cat '$T/x/sec1'" 2>/dev/null)" "plain"
SECF="$T/x/sec[1]"; export SECF
user_policy '[default]
network = none
deny_read += $SECF'
is "a bracketed path from \$VAR hides what it names" "$(cd "$T/proj" && sb -c "cat '$T/x/sec[1]'; echo end" 2>/dev/null)" "end"
is "…and nothing else" "$(cd "$T/proj" && sb -c "cat '$T/x/sec1'" 2>/dev/null)" "plain"
unset SECF

# --- missing grant directories ---
user_policy '[default]
network = none
write += ~/.npm ~/.ssh/x ~/lnk/sub'
mkdir -p "$T/elsewhere" && ln -s "$T/elsewhere" "$HOME/lnk"
rm -rf "$HOME/.npm" "$HOME/.ssh"
out=$(cd "$T/proj" && sb -c 'echo x > ~/.npm/f && echo made' 2>&1)
like "a missing ~/.npm grant is created and writable" "$out" '^made$'
is "…the file landed" "$(cat "$HOME/.npm/f" 2>&1)" x
is "…~/.npm is 0700" "$(stat -c %a "$HOME/.npm")" 700
n=$(printf '%s\n' "$out" | grep -c "$HOME/.npm .*did not exist: created it")
is "…with one notice" "$n" 1
check "a missing ~/.ssh/x grant (mandatory name) is not created" test ! -e "$HOME/.ssh"
check "a grant through a symlink to outside ~ is not created there" test ! -e "$T/elsewhere/sub"
user_policy '[default]
network = none
write += ~/.bash_history ~/notes.txt'
out=$(cd "$T/proj" && sb -c true 2>&1)
check "a missing grant that looks like a file (~/.bash_history, ~/notes.txt) is not made a directory" \
	test ! -e "$HOME/.bash_history" -a ! -e "$HOME/notes.txt"
user_policy "[default]
network = none
write += $T/outside/missing"
out=$(cd "$T/proj" && sb -c 'true' 2>&1)
check "a missing grant outside ~ and the project is not created" test ! -e "$T/outside"
like "…and says so" "$out" "write grant $T/outside/missing .*does not exist; nothing is mounted"
out=$(cd "$T/proj" && sb --dry-run -c true 2>&1)
user_policy '[default]
network = none
write += ~/.cache/dry'
out=$(cd "$T/proj" && sb --dry-run -c true 2>&1)
check "--dry-run creates nothing" test ! -e "$HOME/.cache/dry"

# --- network refusals reach the front end over the control connection ---
if ! command -v curl > /dev/null 2>&1; then
	skip "network refusals over the control connection" "no curl"
	done_testing
	exit
fi
"$SBXSH" session stop > /dev/null 2>&1
cd "$T/proj" || exit 1
user_policy "[sbxsh]
log = $T/proj/vlog.jsonl
[default]
network = proxy
allow_domains = good.test"
err=$(sb -c "curl -sS -o /dev/null http://bad.test/x; : > '$T/proj/vlog.jsonl'; rm -f '$T/proj/vlog.jsonl'; true" 2>&1); rc=$?
is "a refusal is reported although the command tried to erase the log (exit 122)" "$rc" 122
like "… the configured log is not erased (the guard holds it by name)" "$(cat "$T/proj/vlog.jsonl" 2>/dev/null)" 'bad\.test'
like "… the attempt is reported" "$err" 'vlog\.jsonl.*the violation log'

like "…with its violation line" "$err" "network bad.test:80 .*allow_domains \+= bad.test"
err=$(sb -c "curl -sS -o /dev/null http://good.test/x 2>/dev/null; true" 2>&1); rc=$?
is "control: an allowed host is no violation" "$rc" 0
"$SBXSH" session stop > /dev/null 2>&1

# A shared daemon started by a caller with another HOME.
mkdir -p "$T/ha/.config/sbxsh" "$T/hb/.config/sbxsh"
chmod 700 "$T/ha" "$T/hb"
for h in ha hb; do
	printf '[default]\nnetwork = proxy\nallow_domains = good.test\n' > "$T/$h/.config/sbxsh/sbxsh.ini"
	chmod 600 "$T/$h/.config/sbxsh/sbxsh.ini"
done
out=$(HOME=$T/ha XDG_CONFIG_HOME=$T/ha/.config SBXSH_SESSION=e2e-0410 "$SBXSH" session start 2>&1)
check "(setup) a daemon started with HOME=ha" test $? -eq 0
err=$(HOME=$T/hb XDG_CONFIG_HOME=$T/hb/.config SBXSH_SESSION=e2e-0410 \
	"$SBXSH" -c 'curl -sS -o /dev/null http://bad.test/y' 2>&1); rc=$?
is "a refusal under a daemon started with another HOME is reported (exit 122)" "$rc" 122
like "…with its violation line" "$err" "network bad.test:80 "
check "…and the daemon logged it in its own session's log (HOME=ha)" \
	grep -q '"host":"bad.test"' "$T/ha/.local/state/sbxsh/violations.jsonl"
HOME=$T/ha XDG_CONFIG_HOME=$T/ha/.config SBXSH_SESSION=e2e-0410 "$SBXSH" session stop > /dev/null 2>&1

done_testing
