#!/bin/sh
# 0420 the mandatory list's gaps: files a host tool reads and runs (Mercurial's .hg, direnv's
# .envrc and .env, dev containers, git hook managers, editors' project files …) at depth 1 and
# 5, missing and existing, through a symlink and a renamed parent; the policy file this
# command was started with (--config, SBXSH_CONFIG); the refusal's hint; and a command that
# renames a directory holding a mount and works inside it (no false violation).
. "$(dirname "$0")/lib.sh"

var_home mandgaps # HOME and the project under /var/tmp
export GIT_CONFIG_NOSYSTEM=1 HGRCPATH=
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P"
chmod 700 "$HOME"
git -C "$P" init -q 2> /dev/null
cd "$P" || exit 1

pol() { printf '%s\n' "$1" > "$HOME/.config/sbxsh/sbxsh.ini"; chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"; }
run() {
	out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?
	err=$(cat "$H/err")
}
absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists"; fi; }
present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }

pol '[default]
network = none'
need_sandbox "the mandatory gaps"

# --- each name: missing at depth 1 and 5, existing at depth 1 and 5, a symlink pointing at
# it, a symlink in its place, and a renamed parent; a control file beside it lands ---
D5=a/b/c/d/e
for n in .bashrc .envrc .env .direnvrc .hgrc .hgsub .zlogout .cshrc .tcshrc .login .kshrc .mkshrc \
	.devcontainer.json .pre-commit-config.yaml .exrc .nvimrc .nvim.lua .dir-locals.el \
	.devcontainer/devcontainer.json .husky/pre-commit .cursor/mcp.json .zed/tasks.json; do
	rm -rf "$P/t" && mkdir -p "$P/t/$D5" "$P/t/ex/$D5" "$P/t/rp/q"
	top=${n%%/*}
	mkdir -p "$(dirname "$P/t/ex/$n")" "$(dirname "$P/t/ex/$D5/$n")" "$(dirname "$P/t/rp/q/$n")"
	for f in "$P/t/ex/$n" "$P/t/ex/$D5/$n" "$P/t/rp/q/$n"; do echo orig > "$f"; done
	run "cd t && mkdir -p \$(dirname $n) \$(dirname $D5/$n); echo x > $n; echo x > $D5/$n
		echo x > ex/$n; echo x > ex/$D5/$n; rm -f ex/$n
		ln -s $top lk && echo x > lk/x; ln -s $top lk2 && echo x > lk2
		mkdir -p s && ln -s ../sreal s/$top; mv rp rp2 && mkdir -p rp/q/\$(dirname $n) && echo x > rp/q/$n
		echo ok > ctl"
	bad=""
	[ -e "$P/t/$n" ] || [ -L "$P/t/$n" ] && bad="$bad depth1-missing"
	[ -e "$P/t/$D5/$n" ] && bad="$bad depth5-missing"
	[ "$(cat "$P/t/ex/$n" 2>&1)" = orig ] || bad="$bad depth1-existing"
	[ "$(cat "$P/t/ex/$D5/$n" 2>&1)" = orig ] || bad="$bad depth5-existing"
	{ [ -e "$P/t/$top" ] || [ -L "$P/t/$top" ]; } && bad="$bad through-symlink"
	[ -L "$P/t/s/$top" ] && bad="$bad symlink-in-place"
	[ -e "$P/t/rp/q/$n" ] && bad="$bad renamed-parent"
	[ -e "$P/t/rp2/q/$n" ] || [ -e "$P/t/rp/q/$n" ] || bad="$bad renamed-parent-lost"
	[ -e "$P/t/ctl" ] || bad="$bad control"
	is "$n: refused missing and existing at depth 1 and 5, through a symlink, as a symlink, under a renamed parent; control lands" "$bad" ""
done
like "… the refusal names the rule and that no grant lifts it" "$err" \
	"write .*\.zed.* .*mandatory deny \(\.zed\).*no grant lifts it"
rm -rf "$P/venv" && mkdir -p "$P/venv"
run 'cd venv && mkdir .env && mkdir -p .env/lib && echo x > .env/lib/site.py && echo x > .env/pyvenv.cfg && echo made'
is "control: a virtualenv called .env is made and written (.env is protected as a file only)" "$out:$(cat "$P/venv/.env/pyvenv.cfg" 2>&1)" "made:x"

# --- Mercurial: .hg at any depth, the way .git is treated; the host's next hg runs nothing ---
M=$H/marker
if command -v hg > /dev/null 2>&1; then
	rm -rf "$P/hgp" && mkdir -p "$P/hgp/$D5" && hg init "$P/hgp" && hg init "$P/hgp/$D5"
	echo a > "$P/hgp/f" && hg -R "$P/hgp" -q add "$P/hgp/f" && hg -R "$P/hgp" -q commit -u t -m one
	hook() { printf '[hooks]\\npre-status = touch %s\\n' "$M.$1"; }
	hgs() { rm -f "$M".*; for d in "$@"; do (cd "$d" && hg status > /dev/null 2>&1); done; ls "$H" | grep -c '^marker\.'; }
	run "cd hgp && echo b > f && hg -q commit -u t -m two && echo committed
		printf '$(hook 1)' > .hg/hgrc; printf '$(hook 2)' > $D5/.hg/hgrc
		echo /elsewhere > .hg/sharedpath; printf '$(hook 3)' > .hg/hgrc-not-shared"
	is "hg commit works inside the sandbox" "$out:$(hg -R "$P/hgp" log -q 2>/dev/null | wc -l | tr -d ' ')" "committed:2"
	absent "a missing .hg/hgrc is not created" "$P/hgp/.hg/hgrc"
	absent "… nor at depth 5" "$P/hgp/$D5/.hg/hgrc"
	absent "… nor .hg/sharedpath (a redirect to another repository's hgrc)" "$P/hgp/.hg/sharedpath"
	absent "… nor .hg/hgrc-not-shared" "$P/hgp/.hg/hgrc-not-shared"
	is "… the host's hg status runs no hook" "$(hgs "$P/hgp" "$P/hgp/$D5")" 0
	printf '[ui]\n' > "$P/hgp/.hg/hgrc"
	printf '[ui]\n' > "$P/hgp/$D5/.hg/hgrc"
	mkdir -p "$P/hgp/sub" "$P/hgp/sub2"
	run "cd hgp && printf '$(hook 4)' >> .hg/hgrc; printf '$(hook 5)' >> $D5/.hg/hgrc; mv .hg .hg.x
		mkdir -p ev/store && printf '$(hook 6)' > ev/hgrc && mv ev sub/.hg
		mkdir -p ev2 && printf '$(hook 7)' > ev2/hgrc; ln -s ../ev2 sub2/.hg
		mv a/b/c/d/e a/b/c/d/moved && printf '$(hook 8)' >> a/b/c/d/moved/.hg/hgrc
		mkdir -p $D5/.hg && printf '$(hook 9)' > $D5/.hg/hgrc"
	is "an existing .hg/hgrc is not written, at depth 1 and 5 (moved there with its renamed parent)" \
		"$(cat "$P/hgp/.hg/hgrc" "$P/hgp/a/b/c/d/moved/.hg/hgrc" 2>&1 | tr '\n' ' ')" "[ui] [ui] "
	absent "… mv .hg away is refused" "$P/hgp/.hg.x"
	absent "… a directory moved in as .hg is refused" "$P/hgp/sub/.hg"
	absent "… a symlink as .hg is refused" "$P/hgp/sub2/.hg"
	absent "… under the renamed parent's old name none is planted" "$P/hgp/$D5/.hg/hgrc"
	is "… the host's hg status runs no hook anywhere" \
		"$(hgs "$P/hgp" "$P/hgp/sub" "$P/hgp/sub2" "$P/hgp/a/b/c/d/moved" "$P/hgp/$D5")" 0
	rm -rf "$P/hgn" && mkdir -p "$P/hgn"
	run "cd hgn && hg init && test -d .hg/store && echo made"
	is "hg init works (a new .hg holds no hgrc)" "$out" made
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do skip "Mercurial" "no hg (packaging/deps.sh test installs mercurial)"; done
fi

# --- direnv (its whitelist and load_dotenv set, as many users have them): the host's next cd
# runs nothing a command wrote ---
if command -v direnv > /dev/null 2>&1; then
	mkdir -p "$P/de" "$HOME/.config/direnv"
	printf '[global]\nload_dotenv = true\n[whitelist]\nprefix = [ "%s" ]\n' "$P" > "$HOME/.config/direnv/direnv.toml"
	printf 'touch %s.de\n' "$M" > "$P/de/.envrc"
	run "cd de && printf 'touch $M.evil\\n' >> .envrc; mv .envrc .envrc.x; printf 'touch $M.evil\\n' > .envrc.new && mv .envrc.new .envrc; echo PLANTED=1 > .env"
	envout=$(cd "$P/de" && direnv export json 2>&1)
	absent "an .envrc under direnv's whitelist is not rewritten (the host's direnv runs nothing planted)" "$M.evil"
	present "… control: direnv ran the user's own" "$M.de"
	absent "… nor a .env made" "$P/de/.env"
	unlike "… and direnv loads nothing planted" "$envout" PLANTED
else
	for i in 1 2 3 4; do skip "direnv" "no direnv (packaging/deps.sh test installs it)"; done
fi

# --- the home rule's fixed paths for the same tools, even with ~/.config granted ---
pol '[default]
network = none
write += ~/.config'
mkdir -p "$HOME/work"
mkdir -p "$HOME/.config/nvim" && echo orig > "$HOME/.config/nvim/init.lua"
run 'mkdir -p ~/.config/hg ~/.config/direnv; echo x > ~/.config/hg/hgrc; echo x > ~/.config/direnv/direnvrc; echo x >> ~/.config/nvim/init.lua; mv ~/.config/nvim ~/.config/nvim.x; mkdir -p ~/.config/x/nvim && echo x > ~/.config/x/nvim/init.lua && mv ~/.config/x ~/.config/y; echo x > ~/.config/tool.ini' "$HOME/work"
absent "~/.config/hg/hgrc is not made (~/.config granted)" "$HOME/.config/hg"
absent "… nor ~/.config/direnv/direnvrc" "$HOME/.config/direnv/direnvrc"
is "… an existing ~/.config/nvim/init.lua is not written, nor its directory renamed away" "$(cat "$HOME/.config/nvim/init.lua"):$(test -e "$HOME/.config/nvim.x" && echo moved)" "orig:"
present "… control: another file there is (and a directory named nvim elsewhere)" "$HOME/.config/y/nvim/init.lua"
present "… control: another file there is" "$HOME/.config/tool.ini"

# --- the policy file of this command: --config FILE, SBXSH_CONFIG ---
pol '[default]
network = none'
mkdir -p "$P/cfg"
printf '[default]\nnetwork = none\n' > "$P/cfg/p.ini"
chmod 600 "$P/cfg/p.ini"
want=$(cat "$P/cfg/p.ini")
out=$(cd "$P" && "$SBXSH" --config "$P/cfg/p.ini" -c 'echo "#evil" >> cfg/p.ini; mv cfg cfg.x; mkdir -p cfg && echo "[default]" > cfg/p.ini' 2> "$H/err")
is "--config FILE (absolute) is not written, nor replaced through a renamed parent" "$(cat "$P/cfg/p.ini")" "$want"
absent "… the renamed parent is refused" "$P/cfg.x"
like "… the refusal says the mandatory rule and that no grant lifts it" "$(cat "$H/err")" \
	"write .*cfg/p\.ini .*mandatory deny \(sbxsh's policy.*no grant lifts it"
out=$(cd "$P" && "$SBXSH" --config cfg/p.ini -c 'echo "#evil" >> cfg/p.ini; echo "#evil" > cfg/p.new && mv cfg/p.new cfg/p.ini; rm -f cfg/p.ini; echo ok > cfg/other' 2> "$H/err")
is "--config FILE (relative) is not written, replaced or removed" "$(cat "$P/cfg/p.ini")" "$want"
present "… control: another file beside it is written" "$P/cfg/other"
out=$(cd "$P" && SBXSH_CONFIG="$P/cfg/p.ini" "$SBXSH" -c 'echo "#evil" >> cfg/p.ini; ln -s p.ini cfg/l; echo x >> cfg/l' 2> "$H/err")
is "SBXSH_CONFIG's file is not written (directly or through a symlink)" "$(cat "$P/cfg/p.ini")" "$want"
ln -s cfg "$P/cl"
out=$(cd "$P" && "$SBXSH" --config cl/p.ini -c 'rm cl; mv cl cl.x; mkdir -p ev && echo "[default]" > ev/p.ini && ln -sfn ev cl' 2> "$H/err")
is "--config spelled through a symlinked directory: the link is not replaced" "$(readlink "$P/cl")" cfg
cp "$P/cfg/p.ini" "$P/cfg/q.ini"
out=$(cd "$P" && SBXSH_CONFIG="$P/cfg/q.ini" "$SBXSH" --config "$P/cfg/p.ini" -c 'echo "#evil" >> cfg/q.ini' 2> "$H/err")
is "… SBXSH_CONFIG's file too when --config wins (the next command without --config loads it)" "$(cat "$P/cfg/q.ini")" "$want"
out=$(cd "$P" && SBXSH_CONFIG="$P/cfg/none.ini" "$SBXSH" -c 'echo "[default]" > cfg/none.ini' 2> "$H/err"); rc=$?
is "a missing SBXSH_CONFIG file runs no command (nothing can plant it)" "$rc:$(test -e "$P/cfg/none.ini" && echo planted)" "125:"
like "… and says so" "$(cat "$H/err")" "none\.ini: cannot open"

# --- the hint for an existing config file (the user's, git's) ---
run 'echo "#x" >> ~/.config/sbxsh/sbxsh.ini; echo "#x" >> .git/config'
like "a write to the existing ~/.config/sbxsh/sbxsh.ini: the mandatory rule, no grant lifts it" "$err" \
	"write ~/\.config/sbxsh/sbxsh\.ini .*mandatory deny .*no grant lifts it"
like "… to .git/config: git_config = yes" "$err" "write .*\.git/config .*mandatory deny \(\.git/config\).*git_config = yes"
unlike "… never a grant to add or a directory to create" "$err" "matched nothing|write \+= "

# --- a command renames a directory holding a mount (deny_read, deny_write): refused (the
# mount would go with it, the name stay: the next command read the file unhidden under the new
# name, the host a new file under the old one; e2e 0940) ---
rm -rf "$P/mv" && mkdir -p "$P/mv/a/sec" "$P/mv/a/ro" && echo s > "$P/mv/a/sec/s"
pol "[default]
network = none
deny_read = $P/mv/a/sec
deny_write = $P/mv/a/ro"
run 'cd mv && mv a b'
like "a directory holding deny_read and deny_write mounts is not renamed, and that is reported" \
	"$err" "write [^ ]*mv/a \(renameat"
check "… it keeps its name" test -d "$P/mv/a/sec" -a ! -e "$P/mv/b"
run 'cd mv && mkdir -p c && touch c/f && mv c d && ls d'
is "… control: a directory beside it, holding none, is renamed" "$rc:$out" "0:f"
run 'cd mv && cat a/sec/s; echo x > a/ro/f'
like "… control: still hidden, and reported with its rule" "$err" "read .*mv/a/sec.*hidden by deny_read .*mv/a/sec"
like "… and still read-only, and reported with its rule" "$err" "write .*mv/a/ro/f.*deny_write .*mv/a/ro"
done_testing
