#!/bin/sh
# 0930 the guard, attacked a third time: what host programs read and run from a granted
# ~/.config, ~/.local or ~/.cache (shells', terminals', editors', window managers' configs,
# pip's and uv's index, plugin managers' directories, caches whose code a host tool takes
# without checking it again), a relative core.hooksPath of the global config in a nested
# repository (whose own config the guard does not read), and spellings of a protected name
# deeper than the mounts' probes; each with a control that the same write lands where it is
# allowed.
. "$(dirname "$0")/lib.sh"

var_home redteam3 # HOME and the project under /var/tmp
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x
export GIT_CONFIG_NOSYSTEM=1
unset GIT_CONFIG_GLOBAL
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P"
chmod 700 "$HOME"
user_policy '[default]
network = none'
if ! command -v git > /dev/null 2>&1 || ! command -v python3 > /dev/null 2>&1; then
	skip "the guard attacked a third time" "needs git and python3"
	done_testing
	exit
fi
git -C "$P" init -q && git -C "$P" commit -q --allow-empty -m init || exit 1
cd "$P" || exit 1
if ! "$SBXSH" -c true 2> "$H/err"; then
	skip "the guard attacked a third time" "sbxsh cannot run a sandbox here: $(head -c 300 "$H/err")"
	done_testing
	exit
fi
absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists; $err"; fi; }
present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }
run() { out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }

# --- a grant of ~/.config, ~/.local and ~/.cache (pip install --user, a tool's cache): what
# the host's own programs read there at their next start and run ---
user_policy '[default]
network = none
write += ~/.config ~/.local ~/.cache'
mkdir -p "$HOME/.config" "$HOME/.local/share" "$HOME/.cache"
CFG="tmux/tmux.conf vim/vimrc emacs/init.el doom/config.el helix/languages.toml zed/tasks.json
Code/User/settings.json Code/User/tasks.json VSCodium/User/tasks.json Cursor/User/settings.json
kitty/kitty.conf alacritty/alacritty.toml wezterm/wezterm.lua zellij/config.kdl foot/foot.ini
zsh/aliases.zsh nushell/config.nu xonsh/rc.xsh powershell/Microsoft.PowerShell_profile.ps1
starship.toml gdb/gdbinit pip/pip.conf uv/uv.toml jj/config.toml mimeapps.list i3/config
sway/config hypr/hyprland.conf openbox/autostart labwc/autostart bspwm/bspwmrc awesome/rc.lua
qtile/config.py niri/config.kdl river/init xmonad/xmonad.hs"
DAT="nvim/lazy/p/plugin/x.lua nvim/mason/bin/pyright nvim/plugged/p/plugin/x.vim
jupyter/kernels/python3/kernel.json zinit/plugins/p/p.plugin.zsh mise/installs/node/20/bin/node"
CACHE="pre-commit/repo1/.pre-commit-hooks.yaml pip/wheels/a/x.whl uv/wheels-v1/x pypoetry/artifacts/x
yarn/v6/x bazel/_bazel_u/install/x go-build/00/x ccache/0/x sccache/x ms-playwright/chromium/chrome
puppeteer/chrome/x deno/remote/x antidote/p/p.zsh p10k-instant-prompt-u.zsh p10k-dump-u.zsh"
script=
for f in $CFG; do script="$script mkdir -p \"\$(dirname ~/.config/$f)\"; echo x > ~/.config/$f;"; done
for f in $DAT; do script="$script mkdir -p \"\$(dirname ~/.local/share/$f)\"; echo x > ~/.local/share/$f;"; done
for f in $CACHE; do script="$script mkdir -p \"\$(dirname ~/.cache/$f)\"; echo x > ~/.cache/$f;"; done
run "$script mkdir -p ~/.config/other ~/.local/share/other ~/.cache/thumbnails ~/.local/share/nvim; echo ok > ~/.config/other/x; echo ok > ~/.local/share/other/x; echo ok > ~/.cache/thumbnails/x; echo ok > ~/.local/share/nvim/notes"
landed=
for f in $CFG; do [ -e "$HOME/.config/$f" ] && landed="$landed ~/.config/$f"; done
for f in $DAT; do [ -e "$HOME/.local/share/$f" ] && landed="$landed ~/.local/share/$f"; done
for f in $CACHE; do [ -e "$HOME/.cache/$f" ] && landed="$landed ~/.cache/$f"; done
is "nothing a host program loads or runs is written under a grant of ~/.config, ~/.local, ~/.cache" "$landed" ""
present "… control: another directory of ~/.config is written" "$HOME/.config/other/x"
present "… control: of ~/.local/share" "$HOME/.local/share/other/x"
present "… control: of ~/.cache" "$HOME/.cache/thumbnails/x"
present "… control: Neovim's other data" "$HOME/.local/share/nvim/notes"
run 'echo x > ~/.config/starship.toml'
like "… the refusal names the rule" "$err" 'mandatory deny \((~/\.config/starship\.toml|\$XDG_CONFIG_HOME)'
run 'echo x > ~/.cache/p10k-instant-prompt-u.zsh'
like "… and a cache's" "$err" 'mandatory deny \(~/\.cache/p10k-\*\)'
# an existing one is not moved away for a directory of the command's own
mkdir -p "$HOME/.cache/pip/http" "$HOME/.config/tmux"
run 'mv ~/.cache/pip ~/.cache/pip.x; mkdir -p ~/.cache/pp/wheels && echo x > ~/.cache/pp/wheels/x.whl && mv ~/.cache/pp ~/.cache/uv; mv ~/.config/tmux ~/.config/t.x; ln -s ~/.cache/thumbnails ~/.config/kitty'
present "… nor renamed away (~/.cache/pip)" "$HOME/.cache/pip/http"
absent "… nor a directory renamed into place (~/.cache/uv)" "$HOME/.cache/uv"
present "… nor ~/.config/tmux renamed" "$HOME/.config/tmux"
absent "… nor a link made in place (~/.config/kitty)" "$HOME/.config/kitty"
# where $XDG_CONFIG_HOME moves ~/.config: there
mkdir -p "$H/work"
user_policy "[default]
network = none
write += $H/work"
out=$(XDG_CONFIG_HOME=$H/work/cfg; export XDG_CONFIG_HOME; mkdir -p "$XDG_CONFIG_HOME/sbxsh"; cp "$HOME/.config/sbxsh/sbxsh.ini" "$XDG_CONFIG_HOME/sbxsh/"; cd "$P" && "$SBXSH" -c 'mkdir -p $XDG_CONFIG_HOME/tmux $XDG_CONFIG_HOME/other; echo x > $XDG_CONFIG_HOME/tmux/tmux.conf; echo ok > $XDG_CONFIG_HOME/other/x' 2>&1)
absent "… and \$XDG_CONFIG_HOME/tmux where XDG_CONFIG_HOME moves it (into a write grant)" "$H/work/cfg/tmux/tmux.conf"
present "… control: another directory there is written" "$H/work/cfg/other/x"
user_policy '[default]
network = none'

# --- a relative core.hooksPath in the global config names a directory in every repository,
# a nested one (vendored, a submodule checkout) too, whose own config is not read at start ---
N=$P/vendor/lib
mkdir -p "$N"
git -C "$N" init -q && git -C "$N" commit -q --allow-empty -m init || exit 1
git config --global core.hooksPath .githooks
hook() { echo "mkdir -p '$1' && printf '#!/bin/sh\\ntouch $H/pwned\\n' > '$1/$2' && chmod +x '$1/$2'"; }
run "$(hook vendor/lib/.githooks pre-commit); $(hook vendor/lib/.githooks2 pre-commit)"
absent "a hook is not made in a nested repository's hooks directory the global config names" "$N/.githooks/pre-commit"
present "… control: the same hook under another directory is" "$N/.githooks2/pre-commit"
rm -f "$H/pwned"
git -C "$N" commit -q --allow-empty -m x > /dev/null 2>&1
absent "… and the host's next git commit there runs nothing" "$H/pwned"
like "… the refusal names the rule" "$err" 'core\.hooksPath'
run "git -C vendor/lib commit -q --allow-empty -m inside && echo committed"
is "… control: a commit in the nested repository inside the sandbox works" "$out" committed
# two components: the directory holding it is not made a file, a link, or moved into place
git config --global core.hooksPath ./tools//hooks/
run "mkdir -p x && $(hook x/hooks post-commit) && mv x vendor/lib/tools; ln -s $H vendor/lib/tools; $(hook vendor/lib/tools/hooks post-commit); $(hook vendor/lib/tools/hooks2 post-commit)"
absent "… nor one of two components: a directory moved in, a link, a file made" "$N/tools/hooks"
present "… control: beside it" "$N/tools/hooks2/post-commit"
rm -f "$H/pwned"
git -C "$N" commit -q --allow-empty -m x > /dev/null 2>&1
absent "… and the host's next git commit runs nothing" "$H/pwned"
git config --global --unset core.hooksPath
run "$(hook vendor/lib/.githooks pre-commit)"
present "… control: without that config the same hook is written" "$N/.githooks/pre-commit"
rm -rf "$N/.githooks" "$N/.githooks2" "$N/tools" "$P/x"

# --- a nested repository's own relative core.hooksPath (a vendored checkout's, a submodule's):
# its config is read when the guard first meets the repository ---
host_commit() { # host_commit DESC REPO: the user's next commit there runs nothing planted
	rm -f "$H/pwned"
	git -C "$2" commit -q --allow-empty -m x > /dev/null 2>&1
	if [ -e "$H/pwned" ]; then not_ok "$1"; diag "a planted hook ran; $err"; else ok "$1"; fi
}
git -C "$N" config core.hooksPath .hk
mkdir -p "$P/r/s/t/u"
git -C "$P/r/s/t/u" init -q && git -C "$P/r/s/t/u" config core.hooksPath ./ci/hooks
run "$(hook vendor/lib/.hk pre-commit); $(hook vendor/lib/.hk2 pre-commit); $(hook r/s/t/u/ci/hooks pre-commit); $(hook r/s/t/u/ci/h2 pre-commit)"
absent "a hook is not made where a nested repository's own relative core.hooksPath points" "$N/.hk/pre-commit"
absent "… nor at depth 4, two components" "$P/r/s/t/u/ci/hooks"
present "… control: beside it" "$N/.hk2/pre-commit"
present "… control: beside the deeper one" "$P/r/s/t/u/ci/h2/pre-commit"
host_commit "… and the host's next git commit there runs nothing" "$N"
host_commit "… nor in the deeper one" "$P/r/s/t/u"
like "… the refusal names the rule" "$err" 'core\.hooksPath'
# the repository's directory renamed first: met at its new place
run "mv vendor vendor.x && $(hook vendor.x/lib/.hk pre-commit)"
absent "… nor after the directory holding it was renamed" "$P/vendor.x/lib/.hk/pre-commit"
mv "$P/vendor.x" "$P/vendor" 2> /dev/null
# a directory looked at first, then the repository renamed into its place
run "mkdir -p s && echo x > s/x && rm -r s && mv r/s/t/u s && $(hook s/ci/hooks pre-commit)"
absent "… nor after it was renamed where a directory had been seen without one" "$P/s/ci/hooks"
rm -rf "$P/s" "$P/r" "$N/.hk2"
# a submodule: its config is the superproject's .git/modules/NAME/config
S=$H/subsrc
mkdir -p "$S" && git -C "$S" init -q && git -C "$S" commit -q --allow-empty -m s || exit 1
git -C "$P" -c protocol.file.allow=always submodule add -q "$S" sub > /dev/null 2>&1 &&
	git -C "$P/sub" config core.hooksPath .hk
run "$(hook sub/.hk pre-commit); git -C sub commit -q --allow-empty -m inside && echo committed"
absent "… nor in a submodule's checkout (its config in .git/modules)" "$P/sub/.hk/pre-commit"
is "… control: a commit in the submodule inside the sandbox works" "$out" committed
host_commit "… and the host's next commit there runs nothing" "$P/sub"
git -C "$N" config --unset core.hooksPath
run "$(hook vendor/lib/.hk pre-commit)"
present "… control: without that config the same hook is written" "$N/.hk/pre-commit"
rm -rf "$N/.hk"

# --- spellings of a protected name with no read-only mount (a nested repository's git
# directory, deeper than the mounts' probes): a hard link to it, a descriptor re-opened, an
# O_TMPFILE linked in, a directory descriptor whose directory was renamed ---
D=$P/a/b/c
mkdir -p "$D"
git -C "$D" init -q || exit 1
cp "$D/.git/config" "$H/config.before"
run 'python3 - <<EOF
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def linkat(src, dst): # linkat(AT_FDCWD, src, AT_FDCWD, dst, AT_SYMLINK_FOLLOW)
    if libc.linkat(-100, src.encode(), -100, dst.encode(), 0x400) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
def t(name, f):
    try:
        f(); print(name, "landed")
    except OSError as e:
        print(name, e.errno)
t("link", lambda: os.link("a/b/c/.git/config", "cfg"))
fd = os.open("a/b/c/.git/config", os.O_RDONLY)
t("reopen", lambda: os.open("/proc/self/fd/%d" % fd, os.O_WRONLY | os.O_APPEND))
t("devfd", lambda: os.open("/dev/fd/%d" % fd, os.O_RDWR))
tf = os.open("a/b", os.O_TMPFILE | os.O_WRONLY, 0o755)
os.write(tf, b"#!/bin/sh\n")
t("tmpfile", lambda: linkat("/proc/self/fd/%d" % tf, "a/b/c/.git/hooks/pre-commit"))
t("tmpfile control", lambda: linkat("/proc/self/fd/%d" % tf, "a/b/tmp-ok"))
d = os.open("a/b", os.O_RDONLY | os.O_DIRECTORY)
os.rename("a/b", "a/x")
t("dirfd", lambda: os.open("c/.git/hooks/post-checkout", os.O_CREAT | os.O_WRONLY, 0o755, dir_fd=d))
t("dotdot", lambda: os.open("a/x/c/.git/../.git/./hooks//pre-push", os.O_CREAT | os.O_WRONLY, 0o755))
os.rename("a/x", "a/b")
t("control", lambda: os.open("a/b/c/ok", os.O_CREAT | os.O_WRONLY, 0o644))
EOF'
is "a nested git directory's config and hooks under every spelling" "$(printf '%s\n' "$out" | tr '\n' ' ')" "link 30 reopen 30 devfd 30 tmpfile 30 tmpfile control landed dirfd 30 dotdot 30 control landed "
is "… the config unchanged" "$(cmp "$H/config.before" "$D/.git/config" && echo same)" same
is "… no hook made" "$(ls "$D/.git/hooks" | grep -v '\.sample$')" ""
done_testing
