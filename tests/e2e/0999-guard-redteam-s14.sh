#!/bin/sh
# 0999 the write boundary attacked again (session 14), as root and as a user. Each attack
# below succeeded on the build before its fix:
# - the line a refusal suggests spelled the path with only its glob characters escaped: a
#   command that tried to write "~/notes ~/x" was answered `write += ~/notes ~`, which the
#   policy reads as two grants, the second all of the home (a blank, ',', '$' and ';' are
#   policy syntax: a list's separators, a variable, a comment); and its `deny_write -= X` /
#   `deny_read -= X` spelled a rule of a project under "sp ace" as two entries that named
#   nothing (the rule stayed).
# - zsh's compiled start-up files: zsh runs NAME.zwc instead of NAME when it is newer
#   (`zcompile`), for its start-up files and every file it sources; .zshrc was held by name,
#   .zshrc.zwc beside it was not (a ZDOTDIR in a write grant: a dotfiles repository).
# - agents' project configs that name commands were not held: aider's .aider.conf.yml
#   (lint-cmd, test-cmd, notifications-command; `load:` runs /run lines at its start), opencode's
#   opencode.json(c) and Crush's crush.json / .crush.json (MCP servers, formatters, language
#   servers), Qwen Code's .qwen/settings.json, Kilo Code's .kilocode/mcp.json, Junie's
#   .junie/mcp/mcp.json; opencode's global plugins under ~/.config/opencode.
# - node-gyp's cache (~/.cache/node-gyp, under `write += ~/.cache`): the headers and
#   common.gypi every native addon the host builds next includes (a .gypi's <!(command) runs
#   when gyp loads it) were rewritten; so were parso's, jedi's and pylint's caches, pickles a
#   host language server or `pylint` loads (pickle.load runs what the pickle names).
# - what the shell's start-up files source: rustup's `. "$HOME/.cargo/env"` in ~/.profile and
#   ~/.bashrc, nvm's `\. "$NVM_DIR/nvm.sh"`, sdkman's init script — under a grant of the
#   tool's directory (write += ~/.cargo: cargo install, the registry cache) the file was
#   rewritten and ran at the host's next shell.
# - the home rule held for $HOME only: with HOME naming another directory (an agent's fresh
#   HOME, a test harness, sudo keeping the caller's), a grant of the password database's home
#   by its absolute path (or a project root a marker found there) passed its dot-entries —
#   ~/.ssh, the start-up files' neighbours, ~/.config/systemd — to the command.
# - start-up files and stores the lists did not know: tcsh's .logout and .cshdirs, yash's and
#   xonsh's rc files, elvish's and Oils' config; under write += ~/.local and ~/.config: ble.sh's
#   modules, oh-my-fish, WirePlumber's scripts, Nautilus/Nemo/Caja Python extensions,
#   FileManager-Actions, thumbnailers (Exec= on every preview), the JetBrains IDEs' plugins and
#   settings (idea.vmoptions), code-server's extensions; what runs at every login:
#   systemd-tmpfiles --user's user-tmpfiles.d (a `w` line writes any file), Quadlet's
#   ~/.config/containers/systemd (ExecStartPre=), PipeWire's context.exec, WirePlumber's config.
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

# --- 3. agents' project configs ---
AG=".aider.conf.yml sub/.aider.conf.yml opencode.json opencode.jsonc a/b/crush.json .crush.json
.qwen/settings.json .kilocode/mcp.json .junie/mcp/mcp.json"
script=
for f in $AG; do script="$script mkdir -p \"\$(dirname $f)\"; printf 'test-cmd: touch /tmp/x\\n' > $f;"; done
run "$script"
made=
for f in $AG; do [ -e "$P/$f" ] && made="$made $f"; done
is "no agent config that names commands is made" "$made" ""
like "… the refusal names the rule" "$err" 'mandatory deny \((\.aider\.conf\.yml|opencode\.json)'
run 'mkdir -p .qwen/logs && echo x > .qwen/logs/l && echo x > notes.json'
present "control: an agent's logs are written" "$P/.qwen/logs/l"
present "… and another JSON file" "$P/notes.json"
mkdir -p "$HOME/.config"
user_policy '[default]
network = none
write += ~/.config'
run 'mkdir -p ~/.config/opencode/plugin && echo "export const P = async () => {}" > ~/.config/opencode/plugin/p.js'
absent "opencode's global plugins are not made (~/.config granted)" "$HOME/.config/opencode/plugin"
user_policy '[default]
network = none'

# --- 4. node-gyp's cache under write += ~/.cache ---
G=$HOME/.cache/node-gyp/20.0.0/include/node
mkdir -p "$G" "$HOME/.cache/other"
echo "{ 'variables': {} }" > "$G/common.gypi"
user_policy '[default]
network = none
write += ~/.cache'
run 'echo "{ \"variables\": { \"x\": \"<!(touch /tmp/pwn)\" } }" > ~/.cache/node-gyp/20.0.0/include/node/common.gypi; mkdir -p ~/.cache/node-gyp/21.0.0/include; echo x > ~/.cache/other/f; mkdir -p ~/.cache/parso/CPython-311-33 ~/.cache/jedi/x ~/.cache/pylint; echo x > ~/.cache/parso/CPython-311-33/a.pkl; echo x > ~/.cache/pylint/a.stats'
is "node-gyp's common.gypi is not rewritten (~/.cache granted)" "$(cat "$G/common.gypi")" "{ 'variables': {} }"
absent "… nor another Node's headers made" "$HOME/.cache/node-gyp/21.0.0"
absent "… nor parso's parse cache (pickles)" "$HOME/.cache/parso/CPython-311-33/a.pkl"
absent "… nor jedi's" "$HOME/.cache/jedi/x"
absent "… nor pylint's stats (pickles)" "$HOME/.cache/pylint/a.stats"
present "control: another cache there is written" "$HOME/.cache/other/f"
user_policy '[default]
network = none'

# --- 5. what the shell's start-up files source, under a grant of the tool's directory ---
mkdir -p "$HOME/.cargo/bin" "$HOME/.cargo/registry" "$HOME/.nvm" "$HOME/.sdkman/bin"
echo 'echo cargo-genuine' > "$HOME/.cargo/env"
echo 'echo nvm-genuine' > "$HOME/.nvm/nvm.sh"
echo 'echo sdkman-genuine' > "$HOME/.sdkman/bin/sdkman-init.sh"
cat > "$HOME/.bashrc" << 'RC'
. "$HOME/.cargo/env"
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"  # This loads nvm
[[ -s "${HOME}/.sdkman/bin/sdkman-init.sh" ]] && source ~/.sdkman/bin/sdkman-init.sh
D="$HOME/.cargo"; [ -f "$D" ] && . "$D"
RC
hostbash() { (cd "$H" && bash -ic true < /dev/null 2>/dev/null); }
genuine='cargo-genuine
nvm-genuine
sdkman-genuine'
is "setup: the host's bash sources the three" "$(hostbash)" "$genuine"
user_policy '[default]
network = none
write += ~/.cargo ~/.nvm ~/.sdkman'
run 'echo "echo PLANTED" > ~/.cargo/env; echo "echo PLANTED" >> ~/.nvm/nvm.sh; rm -f ~/.sdkman/bin/sdkman-init.sh; echo "echo PLANTED" > ~/.sdkman/bin/sdkman-init.sh'
is "a file the start-up files source is not rewritten, appended to or replaced under a grant of its directory" "$(hostbash)" "$genuine"
like "… the refusal names the rule" "$err" "start-up files source"
run 'mv ~/.sdkman/bin ~/.sdkman/bin.old && mkdir ~/.sdkman/bin && echo "echo PLANTED" > ~/.sdkman/bin/sdkman-init.sh'
is "… nor its directory renamed away and made anew" "$(hostbash)" "$genuine"
run 'echo x > ~/.cargo/registry/f && echo x > ~/.nvm/other'
present "control: the rest of the grant is written (a directory after a . holds nothing)" "$HOME/.cargo/registry/f"
present "… and beside the sourced file" "$HOME/.nvm/other"
rm -f "$HOME/.bashrc"
user_policy '[default]
network = none'

# --- 6. the home rule in the password database's home when HOME names another ---
PW=$(getent passwd "$(id -un)" | cut -d: -f6)
if [ -n "$PW" ] && [ -d "$PW" ] && [ -w "$PW" ] && [ "$(cd "$PW" && pwd -P)" != "$(cd "$HOME" && pwd -P)" ]; then
	dot=$PW/.sbxsh-e2e-probe-$$ plain=$PW/sbxsh-e2e-plain-$$
	user_policy "[default]
network = none
write += $PW"
	run "touch '$dot' '$plain'"
	absent "a dot-entry of the password database's home is not made (HOME elsewhere, that home granted)" "$dot"
	like "… the refusal names the home rule there" "$err" "password database's home"
	present "control: a plain file there is" "$plain"
	rm -f "$dot" "$plain"
	user_policy '[default]
network = none'
else
	skip "the home rule in the password database's home" "no writable home of our own here"
fi

# --- 7. start-up files and stores the lists did not know ---
user_policy '[default]
network = none
write += ~/.local ~/.config'
mkdir -p "$HOME/.local/share" "$HOME/.config"
NEW=".logout a/b/.cshdirs .yashrc .yash_profile .xonshrc ~/.config/elvish/rc.elv
~/.config/oils/oshrc ~/.local/share/blesh/lib/core.sh ~/.local/share/omf/init.fish
~/.local/share/wireplumber/scripts/x.lua ~/.local/share/nautilus-python/extensions/x.py
~/.local/share/nemo-python/extensions/x.py ~/.local/share/caja-python/extensions/x.py
~/.local/share/file-manager/actions/x.desktop ~/.local/share/thumbnailers/x.thumbnailer
~/.local/share/JetBrains/IntelliJIdea2025.1/x/lib/x.jar ~/.config/JetBrains/IntelliJIdea2025.1/idea64.vmoptions
~/.local/share/code-server/extensions/x/package.json ~/.config/user-tmpfiles.d/x.conf
~/.local/share/user-tmpfiles.d/x.conf ~/.config/containers/systemd/x.container
~/.config/pipewire/pipewire.conf.d/x.conf ~/.config/wireplumber/main.lua.d/x.lua"
script=
for f in $NEW; do script="$script mkdir -p \"\$(dirname $f)\"; echo x > $f;"; done
run "$script echo x > ~/.local/share/other-f; echo x > ~/.config/other-f"
made=
for f in $NEW; do
	case $f in "~/"*) g=$HOME/${f#"~/"} ;; *) g=$P/$f ;; esac
	[ -e "$g" ] && made="$made $f"
done
is "none of them is made" "$made" ""
present "control: another file in ~/.local/share is" "$HOME/.local/share/other-f"
present "… and in ~/.config" "$HOME/.config/other-f"
user_policy '[default]
network = none'

# --- 8. the lines that lift a rule name that rule (a project path with a blank) ---
SP="$H/sp ace/proj"
mkdir -p "$SP/.git" "$SP/sec"
echo k > "$SP/keep.txt"
echo s > "$SP/sec/s"
rules='[default]
network = none
deny_write += ./keep.txt
deny_read += ./sec'
user_policy "$rules"
run 'echo x > keep.txt; echo y > sec/n' "$SP"
dw=$(printf '%s\n' "$err" | sed -n 's/.*: deny_write -= \(.*\)$/\1/p' | head -1)
dr=$(printf '%s\n' "$err" | sed -n 's/.*: deny_read -= \(.*\)$/\1/p' | head -1)
printf '%s\ndeny_write -= %s\ndeny_read -= %s\n' "$rules" "$dw" "$dr" > "$H/try.ini"
chmod 600 "$H/try.ini"
left=$(cd "$SP" && "$SBXSH" policy --config "$H/try.ini" 2>&1 | grep -E '^deny_(write|read) = .*sp ace/proj' | sed 's/  #.*//')
is "the suggested deny_write -= and deny_read -= lift the rules they name" "$left" ""
user_policy '[default]
network = none'

done_testing
