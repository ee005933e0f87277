#!/bin/sh
# 0920 the guard, attacked again: a hooks directory git's configuration names inside a write
# grant (core.hooksPath: git runs what is there at the host's next commit, as it would
# .git/hooks) and a config file git's config includes there; an agent's hook scripts and
# skills beside its protected settings; a directory of PATH in a write grant; mise's and
# lefthook's configs; each with a control that the same kind of write lands where it is
# allowed.
. "$(dirname "$0")/lib.sh"

var_home redteam2 # HOME and the project under /var/tmp
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x
export GIT_CONFIG_NOSYSTEM=1
unset GIT_CONFIG_GLOBAL
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P"
chmod 700 "$HOME"
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"
chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"
if ! command -v git > /dev/null 2>&1; then
	skip "the guard attacked again" "needs git"
	done_testing
	exit
fi
git -C "$P" init -q && git -C "$P" commit -q --allow-empty -m init || exit 1
cd "$P" || exit 1
if ! "$SBXSH" -c true 2> "$H/err"; then
	skip "the guard attacked again" "sbxsh cannot run a sandbox here: $(head -c 300 "$H/err")"
	done_testing
	exit
fi
absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists; $err"; fi; }
present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }
run() { out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }
# hook D NAME: a command that writes an executable hook NAME in D leaving a mark
hook() { echo "mkdir -p '$1' && printf '#!/bin/sh\\ntouch $H/pwned\\n' > '$1/$2' && chmod +x '$1/$2'"; }
# host_commit: the user's next commit on the host; ok when no hook ran
host_commit() {
	rm -f "$H/pwned"
	git -C "$P" commit -q --allow-empty -m x > /dev/null 2>&1
	if [ -e "$H/pwned" ]; then not_ok "$1"; diag "a planted hook ran; $err"; else ok "$1"; fi
}

# --- core.hooksPath in the repository's own config, relative to the worktree (git runs hooks
# from the worktree's top) ---
git -C "$P" config core.hooksPath .githooks
mkdir "$P/.githooks"
run "$(hook .githooks pre-commit); $(hook .githooks2 pre-commit)"
absent "a hook is not written in the hooks directory core.hooksPath names" "$P/.githooks/pre-commit"
present "… control: the same hook under another directory is" "$P/.githooks2/pre-commit"
host_commit "… and the host's next git commit runs nothing"
like "… the refusal names the rule" "$err" 'core\.hooksPath'
run "mv .githooks .githooks.x; mkdir -p hk && printf '#!/bin/sh\\ntouch $H/pwned\\n' > hk/pre-commit && chmod +x hk/pre-commit && mv hk .githooks; ln -s hk .githooks"
host_commit "… nor made by renaming it away and a directory or a link into its place"
present "… (it is still there)" "$P/.githooks"
absent "… (nothing renamed into it)" "$P/.githooks/pre-commit"
rm -rf "$P/.githooks.x" "$P/.githooks2" "$P/hk"

# missing when the command starts, through a symlink on the way, and spelled absolute
git -C "$P" config core.hooksPath tools/hooks
run "mkdir tools && ln -s tools t; $(hook t/hooks pre-commit)"
absent "… a missing hooks directory is not made (through a symlinked parent)" "$P/tools/hooks"
host_commit "… and the host's commit runs nothing"
rm -rf "$P/tools" "$P/t"
git -C "$P" config core.hooksPath "$P/abs-hooks"
run "$(hook abs-hooks post-commit)"
absent "… nor one spelled absolute" "$P/abs-hooks/post-commit"
# hooks turned off (core.hooksPath = /dev/null) leaves the device alone
git -C "$P" config core.hooksPath /dev/null
run 'echo x > /dev/null && echo written'
is "… control: core.hooksPath = /dev/null, and /dev/null is still written" "$out" written
git -C "$P" config --unset core.hooksPath
# the caller's GIT_CONFIG_COUNT pairs: the host's git takes them as config entries
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=Core.HooksPath GIT_CONFIG_VALUE_0=envhooks
run "$(hook envhooks pre-commit)"
absent "… nor one GIT_CONFIG_KEY_0 of the caller's environment names" "$P/envhooks/pre-commit"
host_commit "… and the host's commit (with that environment) runs nothing"
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
rm -rf "$P/envhooks"

# --- a file the repository's config includes (include.path), in the worktree: git reads it
# as its config (core.fsmonitor runs at the next git status) ---
git -C "$P" config include.path ../tools/gitcfg
mkdir -p "$P/tools"
: > "$P/tools/gitcfg"
run "printf '[core]\\n\\tfsmonitor = touch $H/pwned\\n' >> tools/gitcfg; printf '[core]\\n' > tools/other; mv tools tools.x"
is "a file the repository's config includes is not written" "$(cat "$P/tools/gitcfg")" ""
present "… nor moved away with its directory" "$P/tools/gitcfg"
present "… control: another file beside it is written" "$P/tools/other"
rm -f "$H/pwned"
git -C "$P" status > /dev/null 2>&1
absent "… and the host's next git status runs nothing" "$H/pwned"
like "… the refusal names the rule" "$err" 'include\.path'
git -C "$P" config --unset include.path
rm -rf "$P/tools"
# a FIFO where an include points (made before the user added the include) stalls nothing
# (git itself would block on it: the config is restored by hand)
mkfifo "$P/gitcfg.fifo"
cp "$P/.git/config" "$H/config.saved"
printf '[include]\n\tpath = ../gitcfg.fifo\n' >> "$P/.git/config"
out=$(cd "$P" && timeout 60 "$SBXSH" -c 'echo ran' 2> "$H/err" < /dev/null)
is "… control: an include naming a FIFO does not stall the command's start" "$out" ran
cp "$H/config.saved" "$P/.git/config"
rm -f "$P/gitcfg.fifo"

# --- in the user's global config: ~/ expanded, and a relative one is every repository's ---
git config --global core.hooksPath '~/proj-hooks'
mkdir -p "$H/home/proj-hooks"
run "$(hook "$H/home/proj-hooks" pre-commit)"
absent "a hooks directory ~/.gitconfig names (~/…) is not written" "$H/home/proj-hooks/pre-commit"
printf '[default]\nnetwork = none\nwrite += ~/proj-hooks\n' > "$HOME/.config/sbxsh/sbxsh.ini"
run "$(hook "$H/home/proj-hooks" pre-commit)"
absent "… even when a write grant names it" "$H/home/proj-hooks/pre-commit"
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"
git config --global core.hooksPath .hooks-g
run "$(hook .hooks-g pre-commit)"
absent "… nor a relative one, in the project" "$P/.hooks-g/pre-commit"
host_commit "… and the host's commit runs nothing"
git config --global --unset core.hooksPath
# quoted and commented in $XDG_CONFIG_HOME/git/config, in a section spelled [CORE]
mkdir -p "$XDG_CONFIG_HOME/git"
printf '[CORE] # x\n\thooksPATH = "q h" ; c\n' > "$XDG_CONFIG_HOME/git/config"
run "$(hook 'q h' pre-commit)"
absent "… nor one \$XDG_CONFIG_HOME/git/config names, quoted" "$P/q h/pre-commit"
rm -rf "$XDG_CONFIG_HOME/git"
run "$(hook 'q h' pre-commit)"
present "… control: without that config it is written" "$P/q h/pre-commit"
rm -rf "$P/q h"

# --- an agent's hooks and skills: settings.json runs .claude/hooks/* by path, a skill is
# a command the agent runs (as .claude/commands) ---
mkdir -p "$P/.claude/hooks" "$P/.claude/skills/x"
run 'echo x > .claude/hooks/check.sh; echo x > .claude/skills/x/SKILL.md; mkdir -p sk/y && echo x > sk/y/SKILL.md && mv sk .claude/skills2 && mv .claude/skills .claude/s.x && mv .claude/skills2 .claude/skills; mkdir -p .claude/logs && echo ok > .claude/logs/notes.md'
absent "a hook script in .claude/hooks is not written" "$P/.claude/hooks/check.sh"
absent "… nor a skill in .claude/skills (written, or a directory renamed into its place)" "$P/.claude/skills/x/SKILL.md"
absent "…" "$P/.claude/skills/y"
present "… control: its logs in .claude are (an agent's data)" "$P/.claude/logs/notes.md"
like "… the refusal names the rule" "$err" '\.claude/hooks'

# --- a directory on the user's PATH inside a write grant (write += ~/.cargo for cargo's
# registry also hands over ~/.cargo/bin): a program planted there runs as the host's next
# command of that name, as ~/.local/bin's would ---
mkdir -p "$HOME/.cargo/bin" "$HOME/.cargo/registry" "$H/work/bin"
printf '[default]\nnetwork = none\nwrite += ~/.cargo %s/work\n' "$H" > "$HOME/.config/sbxsh/sbxsh.ini"
plant="printf '#!/bin/sh\\ntouch $H/pwned\\n' > x.sh && chmod +x x.sh"
OPATH=$PATH
PATH="$HOME/.cargo/bin:$H/work/bin:.:$PATH"
run "$plant; cp x.sh ~/.cargo/bin/ls; mv x.sh ~/.cargo/bin/cat; ln -s $P/x.sh ~/.cargo/bin/id; $plant; ln x.sh ~/.cargo/bin/wc; mv ~/.cargo/bin ~/.cargo/b.x; cp x.sh $H/work/bin/git; echo ok > ~/.cargo/registry/x; mkdir -p $H/work/bin/sub && echo ok > $H/work/bin/sub/y; echo ok > z"
is "nothing is written, renamed, linked or moved into a PATH directory inside a write grant" "$(ls -A "$HOME/.cargo/bin" "$H/work/bin" | tr '\n' ' ')" "$(printf '%s:\n\n%s:\nsub\n' "$HOME/.cargo/bin" "$H/work/bin" | tr '\n' ' ')"
present "… control: the rest of the grant is written" "$HOME/.cargo/registry/x"
present "… control: a subdirectory of a PATH directory is (PATH lookups do not descend)" "$H/work/bin/sub/y"
present "… control: a relative PATH entry (.) protects nothing" "$P/z"
like "… the refusal names the rule" "$err" 'PATH'
PATH=$OPATH
rm -f "$H/pwned"; (PATH="$HOME/.cargo/bin:$H/work/bin:$PATH"; ls > /dev/null 2>&1; git --version > /dev/null 2>&1)
absent "… and the host's next ls or git runs nothing planted" "$H/pwned"
# an activated virtualenv (pip install writes its bin), the project's own node_modules/.bin
# (direnv's PATH_add; missing before the first npm install) and any directory of the project:
# its own tooling, not the host's
mkdir -p "$HOME/.cargo/venv/bin" "$P/.venv/bin" "$P/tools/bin"
: > "$HOME/.cargo/venv/pyvenv.cfg"
PATH="$HOME/.cargo/venv/bin:$P/node_modules/.bin:$P/.venv/bin:$P/tools/bin:$PATH"
run "echo ok > ~/.cargo/venv/bin/tool; mkdir -p node_modules/.bin && echo ok > node_modules/.bin/tool; echo ok > .venv/bin/tool; echo ok > tools/bin/tool"
is "… control: a virtualenv's bin and the project's own PATH directories are written" \
	"$(cat "$HOME/.cargo/venv/bin/tool" "$P/node_modules/.bin/tool" "$P/.venv/bin/tool" "$P/tools/bin/tool" 2>&1 | tr '\n' ' ')" "ok ok ok ok "
PATH=$OPATH
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"

# --- mise's config (its [hooks] and [env] _.source run at the host's next cd into a directory
# trusted once, by path, not by content) and lefthook's (what its installed hooks run at the
# host's next commit), at any depth ---
run 'mkdir -p sub .mise mise .config/mise .lefthook/pre-commit; for f in lefthook.yml .lefthook.yaml lefthook-local.toml .lefthook-local.json mise.toml .mise.toml mise.local.toml .mise.dev.local.toml .rtx.toml sub/mise.toml .mise/config.toml mise/config.toml mise/config.dev.toml .config/mise.toml .config/mise/config.toml .lefthook/pre-commit/x.sh sub/lefthook.yml; do echo x > $f; done; echo ok > mise.txt; echo ok > mise/other.txt; echo ok > .config/other.toml; echo ok > lefthook.md.txt'
is "no mise or lefthook config is made" "$(cd "$P" && find . -path ./.git -prune -o -type f -print | grep -Ei 'mise|rtx|lefthook' | sort | tr '\n' ' ')" "./lefthook.md.txt ./mise.txt ./mise/other.txt "
present "… control: another file in .config is" "$P/.config/other.toml"
like "… the refusal names the rule" "$err" 'mandatory deny \((mise|lefthook)'
printf '[default]\nnetwork = none\nwrite += ~/.config/mise ~/.config/other\n' > "$HOME/.config/sbxsh/sbxsh.ini"
run 'mkdir -p ~/.config/mise ~/.config/other; echo x > ~/.config/mise/config.toml; echo ok > ~/.config/other/x'
absent "… nor ~/.config/mise/config.toml, even granted" "$HOME/.config/mise/config.toml"
present "… control: another granted directory of ~/.config is written" "$HOME/.config/other/x"
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"

# --- what direnv and mise trust, under write += ~/.local (the hint pip install --user gets):
# an allow file there makes the next cd run an .envrc the user never allowed (a cloned
# repository's), a trusted-configs entry a mise.toml ---
printf '[default]\nnetwork = none\nwrite += ~/.local\n' > "$HOME/.config/sbxsh/sbxsh.ini"
mkdir -p "$HOME/.local/share/direnv/allow" "$HOME/.local/state/mise/trusted-configs"
run 'echo x > ~/.local/share/direnv/allow/0123; echo x > ~/.local/state/mise/trusted-configs/x; mkdir -p ~/.local/share/other && echo ok > ~/.local/share/other/x'
is "no direnv allow file nor mise trust is made under a grant of ~/.local" "$(ls -A "$HOME/.local/share/direnv/allow" "$HOME/.local/state/mise/trusted-configs" | tr '\n' ' ')" \
	"$(printf '%s:\n\n%s:\n' "$HOME/.local/share/direnv/allow" "$HOME/.local/state/mise/trusted-configs" | tr '\n' ' ')"
present "… control: another directory of ~/.local/share is written" "$HOME/.local/share/other/x"
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"
# --- many write grants: the guard's list of them held 64, and a grant outside the home
# directory past the 64th had no rule at all (a .bashrc, .claude/hooks made there) ---
G="[default]
network = none"
i=0
while [ $i -lt 70 ]; do i=$((i + 1)); mkdir -p "$H/many/g$i"; G="$G
write += $H/many/g$i"; done
mkdir -p "$H/many/last"
user_policy "$G
write += $H/many/last"
run "echo x > $H/many/last/.bashrc; mkdir -p $H/many/last/.claude/hooks; echo x > $H/many/last/.claude/hooks/h.sh; echo ok > $H/many/last/ok"
absent "the 71st write grant outside home keeps the rules: no .bashrc" "$H/many/last/.bashrc"
absent "… no .claude/hooks" "$H/many/last/.claude/hooks"
present "… control: a plain file there is written" "$H/many/last/ok"
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"
done_testing
