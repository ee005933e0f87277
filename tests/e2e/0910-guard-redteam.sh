#!/bin/sh
# 0910 the guard, attacked: names git takes as a repository other than .git (a bare layout in
# the project or a subdirectory), each with the host's next git command running nothing, and a
# control that the same files land under another name.
. "$(dirname "$0")/lib.sh"

var_home redteam # HOME and the project under /var/tmp
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x
export GIT_CONFIG_NOSYSTEM=1
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P"
chmod 700 "$HOME"
printf '[default]\nnetwork = none\n' > "$HOME/.config/sbxsh/sbxsh.ini"
chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"
if ! command -v git > /dev/null 2>&1 || ! command -v script > /dev/null 2>&1; then
	skip "a bare repository planted" "needs git and script(1)"
	done_testing
	exit
fi
git -C "$P" init -q && git -C "$P" commit -q --allow-empty -m init || exit 1
cd "$P" || exit 1
if ! "$SBXSH" -c true 2> "$H/err"; then
	skip "the guard attacked" "sbxsh cannot run a sandbox here: $(head -c 300 "$H/err")"
	done_testing
	exit
fi
absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists"; fi; }
present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }
run() { out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }

# plant D HEADNAME: a bare layout in D (objects, refs, a config whose core.pager leaves a mark)
plant() {
	echo "cd '$1' && mkdir -p objects refs/heads && cp -R '$P/.git/objects/.' objects/ &&
		cp '$P/.git/refs/heads/'* refs/heads/ && printf '[core]\\n\\tpager = touch $H/pwned; cat\\n' > config &&
		echo 'ref: refs/heads/$(git -C "$P" symbolic-ref --short HEAD)' > $2"
}
# host_git D: the user's next git log in D, on a terminal (so the pager runs)
host_git() { rm -f "$H/pwned"; (cd "$1" && script -qc 'git log -1' /dev/null > /dev/null 2>&1); }

# control: the same layout under another name lands, and git takes nothing from it
mkdir -p "$P/ctl"
run "$(plant "$P/ctl" HEAD.txt)"
host_git "$P/ctl"
if [ -e "$P/ctl/HEAD.txt" ] && [ -e "$P/ctl/config" ] && [ ! -e "$H/pwned" ]; then ok "control: a bare layout with HEAD.txt lands and git log runs nothing"; else
	not_ok "control: a bare layout with HEAD.txt lands and git log runs nothing"; diag "$err"; fi

# the project's .git made invalid (its HEAD removed: allowed), the project itself a bare repository
run "rm -f .git/HEAD; $(plant "$P" HEAD)"
host_git "$P"
if [ ! -e "$H/pwned" ] && [ ! -e "$P/HEAD" ]; then ok "a HEAD beside objects/ refs/ config in the project is not made (git log runs no planted pager)"; else
	not_ok "a HEAD beside objects/ refs/ config in the project is not made (git log runs no planted pager)"; diag "$err"; fi
like "… the refusal names HEAD and git_config = yes" "$err" "HEAD \(a bare repository\).*git_config"
git -C "$P" symbolic-ref HEAD refs/heads/master 2> /dev/null || printf 'ref: refs/heads/master\n' > "$P/.git/HEAD"

# a subdirectory, made by rename and by symlink
mkdir -p "$P/sub"
run "$(plant "$P/sub" HEAD.new) && mv HEAD.new HEAD; ln -s refs/heads/master HEAD2 && mv HEAD2 HEAD; ln -s refs/heads/master HEAD"
host_git "$P/sub"
if [ ! -e "$H/pwned" ] && [ ! -e "$P/sub/HEAD" ] && [ ! -L "$P/sub/HEAD" ]; then ok "… nor in a subdirectory, by rename or symlink"; else
	not_ok "… nor in a subdirectory, by rename or symlink"; diag "$(ls -la "$P/sub")"; fi

# a bare repository that exists at start: its config and hooks, though no .git names them
git init -q --bare "$P/b.git"
cp "$P/b.git/config" "$H/b.config"
run 'mv b.git/refs b.git/refs.x; printf "[core]\n\tpager = touch x\n" >> b.git/config; mv b.git/refs.x b.git/refs; echo x > b.git/hooks/pre-receive; echo x > c.new && mv c.new b.git/config; mkdir -p hk && echo x > hk/post-update && mv b.git/hooks b.git/hooks.x; mv hk b.git/hooks; echo ok > b.git/description'
is "an existing bare repository's config is not written or replaced" "$(cmp "$P/b.git/config" "$H/b.config" && echo same)" same
is "… nor a hook made in it (directly, or a directory renamed into place)" "$(ls "$P/b.git/hooks" | grep -v '\.sample$')" ""
is "… control: its description is written" "$(cat "$P/b.git/description")" ok

# $XDG_CONFIG_HOME inside the project: sbxsh's policy and git's global config live there
mkdir -p "$P/cfg/sbxsh"
printf '[default]\nnetwork = none\n' > "$P/cfg/sbxsh/sbxsh.ini"
chmod 600 "$P/cfg/sbxsh/sbxsh.ini"
XDG_CONFIG_HOME="$P/cfg"
run 'mkdir -p cfg/git && printf "[core]\n\tpager = touch x\n" > cfg/git/config
		mv cfg/sbxsh cfg/old; mkdir -p cfg/sbxsh; echo "[default]" > cfg/sbxsh/sbxsh.ini.new && mv cfg/sbxsh/sbxsh.ini.new cfg/sbxsh/sbxsh.ini
		mkdir -p x/sbxsh && echo "[default]" > x/sbxsh/sbxsh.ini && mv cfg cfg.x; mv x cfg
		mkdir -p cfg/other && echo ok > cfg/other/x'
is "\$XDG_CONFIG_HOME/git/config in a write grant is not made" "$(find "$P" -path '*/git/config')" ""
is "… nor \$XDG_CONFIG_HOME/sbxsh/sbxsh.ini replaced (renamed parent, rename onto, a directory renamed into place)" \
	"$(cat "$P/cfg/sbxsh/sbxsh.ini")" "$(printf '[default]\nnetwork = none')"
present "… control: another directory there is written" "$P/cfg/other/x"
like "… the refusal names the rule" "$err" 'XDG_CONFIG_HOME/\{sbxsh,git'
XDG_CONFIG_HOME="$HOME/.config"

# A symbolic link inside a git directory: `.git/modules` or `.git/worktrees` made one (made,
# renamed or hard-linked into place) would make every submodule's or worktree's git
# directory one the command fills outside .git, where no check knows it is one (a later
# `git submodule update --init` writes a config there that a background job rewrites).
run 'mkdir -p evil/sub && ln -s ../evil .git/modules; ln -s ../evil l1 && mv l1 .git/worktrees
	ln -s ../evil l2 && ln l2 .git/info/l2; ln -s x .git/refs/heads/l3; ln -s ../../evil .git/objects/info/l4
	ln -s ../evil ok-link && echo control'
absent "a symbolic link made as .git/modules is refused" "$P/.git/modules"
absent "… renamed into place as .git/worktrees" "$P/.git/worktrees"
absent "… hard-linked into the git directory" "$P/.git/info/l2"
absent "… nor anywhere in it (refs, objects)" "$P/.git/refs/heads/l3"
absent "…" "$P/.git/objects/info/l4"
like "… the refusal names the rule" "$err" '\.git/\*\* \(a symbolic link\)'
is "… control: a symbolic link outside it is made" "$out:$(readlink "$P/ok-link")" "control:../evil"
run 'mkdir .git/modules && mkdir .git/modules/sub && echo made'
is "… control: git's own directories there are made" "$out" made
rm -rf "$P/evil" "$P/l1" "$P/l2" "$P/ok-link" "$P/.git/modules"

# git_config = yes lifts it (git init --bare)
printf '[default]\nnetwork = none\ngit_config = yes\n' > "$HOME/.config/sbxsh/sbxsh.ini"
run 'git init -q --bare bare.git && test -f bare.git/HEAD && echo made'
is "git_config = yes: git init --bare works" "$out" made
done_testing
