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
# - tools' global configs that run code in every project, under a grant of the tool's
#   directory (write += ~/.cargo for its registry cache, ~/.gradle, ~/.julia, ~/.ipython,
#   ~/.config): cargo's config.toml (build.rustc-wrapper), gradle's init scripts and
#   gradle.properties, Julia's startup.jl, IPython's startup files, curl's ~/.config/.curlrc.
# - REPL start-up files of the current directory that no rule named: IEx's .iex.exs, the
#   OCaml toplevel's .ocamlinit.
# - zsh's completion dump (.zcompdump*, prezto's ~/.cache/prezto), sourced by compinit at every
#   interactive zsh: appended to in a ZDOTDIR that is the project, the host's next zsh ran it;
#   and under write += ~/.cache the caches host tools run code from unchecked (Neovim's
#   byte-code, gitstatus, Cypress, bazelisk, Selenium Manager, Prisma, Hugging Face's modules,
#   torch.hub), which session 13 listed in monitor.md Limits and left writable.
# - what git's config names by an absolute path in a write grant: init.templateDir (its hooks
#   copied into every new repository: the host's next git clone ran a planted post-checkout),
#   and the programs git runs (core.fsmonitor, core.pager, credential.helper, an alias's
#   !command, a diff driver's textconv), rewritten before.
# - under write += ~/.config: less's lesskey (#env LESSOPEN=|cmd: the host's next less ran the
#   command) and the configs of file managers, editors, players, mail and feed readers,
#   terminals, bars and the desktop's key bindings (dconf) that run commands at their start.
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

# --- 2. tools' global configs that run code, under a grant of the tool's directory: cargo's
# config.toml (build.rustc-wrapper, target.*.runner: every host `cargo build` in any project),
# gradle's init scripts and gradle.properties (-javaagent in org.gradle.jvmargs), Julia's
# startup.jl, IPython's startup files and profile configs, curl's $XDG_CONFIG_HOME/.curlrc
# (`url` + `output`: the host's next curl writes a file of the command's choosing)
mkdir -p "$HOME/.cargo/registry" "$HOME/.gradle/caches" "$HOME/.julia/packages" \
	"$HOME/.ipython/profile_default" "$HOME/.config/other"
echo '[net]' > "$HOME/.cargo/config"
user_policy '[default]
network = none
write += ~/.cargo ~/.gradle ~/.julia ~/.ipython ~/.config'
run 'printf "[build]\nrustc-wrapper = \"/tmp/x\"\n" > ~/.cargo/config.toml; echo "[build]" >> ~/.cargo/config
mkdir -p ~/.gradle/init.d ~/.julia/config ~/.ipython/profile_default/startup ~/.ipython/profile_x
echo x > ~/.gradle/init.d/a.gradle; echo x > ~/.gradle/init.gradle; echo x > ~/.gradle/init.gradle.kts
echo "org.gradle.jvmargs=-javaagent:/tmp/a.jar" > ~/.gradle/gradle.properties
echo x > ~/.julia/config/startup.jl; echo x > ~/.ipython/profile_default/startup/00-a.py
echo x > ~/.ipython/profile_x/ipython_config.py; echo x > ~/.config/.curlrc
echo x > ~/.cargo/registry/f; echo x > ~/.gradle/caches/f; echo x > ~/.julia/packages/f
echo x > ~/.config/other/f'
absent "cargo's ~/.cargo/config.toml is not made (~/.cargo granted)" "$HOME/.cargo/config.toml"
is "… nor its older name appended to" "$(cat "$HOME/.cargo/config")" '[net]'
absent "gradle's init.d script is not made (~/.gradle granted)" "$HOME/.gradle/init.d/a.gradle"
absent "… nor init.gradle" "$HOME/.gradle/init.gradle"
absent "… nor init.gradle.kts" "$HOME/.gradle/init.gradle.kts"
absent "… nor gradle.properties" "$HOME/.gradle/gradle.properties"
absent "Julia's startup.jl is not made (~/.julia granted)" "$HOME/.julia/config/startup.jl"
absent "IPython's startup file is not made (~/.ipython granted)" "$HOME/.ipython/profile_default/startup/00-a.py"
absent "… nor a profile's ipython_config.py" "$HOME/.ipython/profile_x/ipython_config.py"
absent "curl's \$XDG_CONFIG_HOME/.curlrc is not made (~/.config granted)" "$HOME/.config/.curlrc"
present "control: cargo's registry cache is written" "$HOME/.cargo/registry/f"
present "… gradle's caches" "$HOME/.gradle/caches/f"
present "… Julia's packages" "$HOME/.julia/packages/f"
present "… another directory of ~/.config" "$HOME/.config/other/f"
# … and where the tool's variable moves its directory (GRADLE_USER_HOME into the project)
GRADLE_USER_HOME="$P/gh" run 'mkdir -p gh/init.d gh/caches; echo x > gh/init.d/a.gradle; echo x > gh/caches/f'
absent "GRADLE_USER_HOME's init.d script is not made" "$P/gh/init.d/a.gradle"
present "control: its caches are written" "$P/gh/caches/f"
user_policy '[default]
network = none'

# --- 3. REPLs that run a file of the current directory at start with no trust, as .irbrc and
# .pryrc are held: IEx's .iex.exs (then ~/.iex.exs), the OCaml toplevel's and utop's .ocamlinit
mkdir -p "$P/a/b"
run 'echo x > .iex.exs; echo x > a/b/.ocamlinit; echo x > a/b/iex.exs'
absent "IEx's .iex.exs is not made in the project" "$P/.iex.exs"
absent "… nor the OCaml toplevel's .ocamlinit two levels down" "$P/a/b/.ocamlinit"
present "control: a file of another name is" "$P/a/b/iex.exs"
# --- 4. zsh's completion dump: compinit sources ${ZDOTDIR:-~}/.zcompdump at every interactive
# start (oh-my-zsh's .zcompdump-HOST-VERSION, prezto's ~/.cache/prezto/zcompdump); a ZDOTDIR
# in a dotfiles repository (the project), whose .zshrc is held by name, left it writable
if command -v zsh > /dev/null 2>&1; then
	mkdir -p "$P/zdot"
	printf 'autoload -Uz compinit\ncompinit -d "$ZDOTDIR/.zcompdump"\n' > "$P/zdot/.zshrc"
	hostzsh() { (cd "$H" && ZDOTDIR="$P/zdot" zsh -i -c true < /dev/null 2>&1); }
	hostzsh > /dev/null
	check "setup: the host's zsh made its completion dump" test -s "$P/zdot/.zcompdump"
	run 'echo "echo PLANTED" >> zdot/.zcompdump; echo "echo PLANTED" > zdot/.zcompdump-h-5.9; echo x > zdot/other'
	is "the completion dump in ZDOTDIR is not appended to (the host's next zsh runs nothing)" "$(hostzsh)" ""
	absent "… nor oh-my-zsh's .zcompdump-HOST-VERSION made" "$P/zdot/.zcompdump-h-5.9"
	present "control: another file there is written" "$P/zdot/other"
else
	skip "zsh's completion dump" "no zsh here"
fi
mkdir -p "$HOME/.cache"
user_policy '[default]
network = none
write += ~/.cache'
run 'mkdir -p ~/.cache/prezto ~/.cache/else; echo "echo PLANTED" > ~/.cache/prezto/zcompdump; echo x > ~/.cache/else/f'
absent "prezto's ~/.cache/prezto/zcompdump is not made (~/.cache granted)" "$HOME/.cache/prezto/zcompdump"
# the caches session 13 saw running code unchecked and left (monitor.md Limits then): Neovim's
# byte-code (a held ~/.config/nvim/init.lua's compiled form, its size and time copied: vim.loader
# runs it instead), gitstatus (every zsh with powerlevel10k), downloaded test and build tools,
# Hugging Face's remote code, torch.hub's repositories
for d in nvim/luac gitstatus Cypress bazelisk selenium prisma huggingface/modules torch/hub; do
	run "mkdir -p ~/.cache/$d && echo x > ~/.cache/$d/f"
	absent "~/.cache/$d is not written (~/.cache granted)" "$HOME/.cache/$d/f"
done
present "control: another cache is" "$HOME/.cache/else/f"
user_policy '[default]
network = none'

# --- 5. what the user's git config names by an absolute path, in the project (a dotfiles
# repository): init.templateDir (git init and git clone copy its hooks into every new
# repository: post-checkout runs at the clone), and the programs git runs — core.fsmonitor
# (every git status), core.pager, credential.helper, an alias's !command, a diff driver
if command -v git > /dev/null 2>&1; then
	mkdir -p "$P/tmpl/hooks" "$P/gbin" "$H/src"
	for f in fsmon pager cred alias textconv; do
		printf '#!/bin/sh\nexit 0\n' > "$P/gbin/$f"
		chmod 755 "$P/gbin/$f"
	done
	cp -R "$P/gbin" "$H/orig/gbin"
	cat > "$HOME/.gitconfig" << CFG
[init]
	templateDir = $P/tmpl
[core]
	fsmonitor = $P/gbin/fsmon
	pager = $P/gbin/pager -R
[credential "https://example.com"]
	helper = $P/gbin/cred
[alias]
	x = !$P/gbin/alias --flag
[diff "bin"]
	textconv = $P/gbin/textconv
CFG
	(cd "$H/src" && git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x) > /dev/null 2>&1
	run 'printf "#!/bin/sh\ntouch %s/cloned-hook\n" "$HOME" > tmpl/hooks/post-checkout; chmod 755 tmpl/hooks/post-checkout'
	(cd "$H" && git clone -q "$H/src" "$H/clone") > /dev/null 2>&1
	absent "init.templateDir's hooks are not planted (the host's next git clone runs none)" "$HOME/cloned-hook"
	absent "… the template's hook is not made" "$P/tmpl/hooks/post-checkout"
	for f in fsmon pager cred alias textconv; do
		run "echo 'touch /tmp/x' >> gbin/$f"
		check "the program git's config names ($f) is not appended to" same "gbin/$f"
	done
	run 'echo x > gbin/other; echo x > tmpl/other'
	present "control: beside them a file is written" "$P/gbin/other"
	rm -f "$HOME/.gitconfig"
else
	skip "git's config naming programs" "no git here"
fi

# --- 6. what host programs read and run from ~/.config at their start, under write += ~/.config:
# less's lesskey (#env LESSOPEN=|cmd runs for every file less shows: git log's pager, man) and
# the file managers', editors', players', mail readers', bars' and desktop's configs that run
# commands or code
mkdir -p "$HOME/.config/other"
echo 'genuine' > "$H/page.txt"
hostless() { (cd "$H" && unset LESSOPEN LESSKEYIN LESSKEY; less -F "$H/page.txt" < /dev/null 2>&1); }
is "setup: the host's less shows the file" "$(hostless)" genuine
user_policy '[default]
network = none
write += ~/.config'
run 'printf "#env\nLESSOPEN=|echo PLANTED %%s\n" > ~/.config/lesskey; echo x > ~/.config/other/g'
is "less's ~/.config/lesskey is not made (the host's next less runs no LESSOPEN)" "$(hostless)" genuine
present "control: another directory of ~/.config is written" "$HOME/.config/other/g"
for d in bat ranger lf yazi micro kak sublime-text ptpython mpv neomutt newsboat aerc qutebrowser \
	ghostty terminator polybar waybar dunst sxhkd dconf Thunar xfce4 espanso autokey; do
	run "mkdir -p ~/.config/$d && echo x > ~/.config/$d/config"
	absent "~/.config/$d is not written (~/.config granted)" "$HOME/.config/$d/config"
done
user_policy '[default]
network = none'

done_testing
