#!/bin/sh
# 0425 the home rule's fixed paths below a grant of ~/.local (which `pip install --user`
# needs): what the host's own tools load and run with no project code run — bash-completion's
# completions and ~/.config/bash_completion, Neovim's site directory, fish's vendor and
# generated directories, D-Bus session services, desktop entries, Python's user site hooks
# (*.pth, usercustomize, sitecustomize) — missing and existing, through a link or a renamed
# directory in place of one on the way, where $XDG_DATA_HOME and $XDG_CONFIG_HOME move them;
# the refusal names the rule; another file in the same grant is written.
. "$(dirname "$0")/lib.sh"

var_home mandhome
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$HOME/.local" "$HOME/work" "$P"
chmod 700 "$HOME"
cd "$P" || exit 1
M=$H/marker

pol() { printf '[default]\nnetwork = none\n%s\n' "$1" > "$HOME/.config/sbxsh/sbxsh.ini"; chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"; }
run() {
	out=$(cd "$P" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?
	err=$(cat "$H/err")
}
absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists"; fi; }
present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }

pol 'write += ~/.local'
need_sandbox "the home rule's fixed paths"

# --- each path with ~/.local granted: made (its directories missing), written where it exists,
# replaced by a rename, and a directory holding it renamed away; a control file lands ---
S=$HOME/.local/share
for n in share/bash-completion/completions/git share/nvim/site/plugin/x.lua \
	share/nvim/site/pack/p/start/x/plugin/x.vim share/fish/vendor_conf.d/x.fish \
	share/fish/vendor_functions.d/fish_prompt.fish share/fish/vendor_completions.d/git.fish \
	share/fish/generated_completions/git.fish share/dbus-1/services/org.freedesktop.Notifications.service \
	share/applications/firefox.desktop share/gnome-shell/extensions/x@y/extension.js \
	share/plasma/plasmoids/x/contents/ui/main.qml; do
	rm -rf "$S" "$HOME/.local/moved" && mkdir -p "$S"
	f=$HOME/.local/$n
	run "mkdir -p \$(dirname ~/.local/$n) && echo planted > ~/.local/$n; echo ok > ~/.local/share/ctl"
	bad=""
	[ -e "$f" ] && bad="$bad missing"
	[ -e "$S/ctl" ] || bad="$bad control"
	rm -rf "$S" && mkdir -p "$(dirname "$f")" && echo orig > "$f"
	d=${n#share/}; d=${d%%/*}
	run "echo planted >> ~/.local/$n; echo planted > ~/.local/x && mv ~/.local/x ~/.local/$n; mv ~/.local/share/$d ~/.local/moved; mv ~/.local/share ~/.local/moved; echo ok > ~/.local/share/ctl"
	[ "$(cat "$f" 2>&1)" = orig ] || bad="$bad existing"
	[ -e "$HOME/.local/moved" ] && bad="$bad renamed-away"
	[ -e "$S/ctl" ] || bad="$bad control2"
	is "~/.local/$n: refused missing, existing, renamed onto, its directory renamed away; control lands" "$bad" ""
done
like "… the refusal names the rule and that no grant lifts it" "$err" \
	"write .*plasma.* .*mandatory deny \(~/\.local/share/plasma\).*no grant lifts it"

# --- a directory on the way made a link, or a directory moved in: nothing reaches the host's
# names through the other spelling ---
rm -rf "$S" "$HOME/.local/ev" "$HOME/.local/ev2"
run 'mkdir -p ~/.local/ev/bash-completion/completions && ln -s ev ~/.local/share; echo x > ~/.local/ev/bash-completion/completions/git
	mkdir -p ~/.local/ev2/bash-completion/completions && echo x > ~/.local/ev2/bash-completion/completions/git && mv ~/.local/ev2 ~/.local/share
	mkdir -p ~/.local/share/nvim && ln -s ../../ev ~/.local/share/nvim/site; echo ok > ~/.local/share/ctl'
absent "~/.local/share made a link to a directory holding bash-completion is refused" "$S/bash-completion"
absent "… ~/.local/share/nvim/site made a link is refused" "$S/nvim/site"
present "… control: a file in ~/.local/share (made as a directory) lands" "$S/ctl"
like "… the refusal names the rule" "$err" "mandatory deny \(~/\.local/share/(systemd|bash-completion|nvim/site|[a-z-]+)"

# --- Python's user site: *.pth, usercustomize, sitecustomize run at every host python start ---
PY=/usr/bin/python3
if [ -x "$PY" ] && $PY -c 'import site; assert site.ENABLE_USER_SITE' 2> /dev/null; then
	pv=$($PY -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
	SP=$HOME/.local/lib/$pv/site-packages
	rm -rf "$HOME/.local/lib" "$HOME/.local/ev"
	hook() { printf 'import os; open("%s.%s", "w")\n' "$M" "$1"; }
	run "mkdir -p ~/.local/lib/$pv/site-packages/__pycache__ ~/.local/lib/$pv/site-packages/usercustomize
		printf '$(hook pth)' > ~/.local/lib/$pv/site-packages/evil.pth
		printf '$(hook dotpth)' > ~/.local/lib/$pv/site-packages/.x.pth
		printf 'open(\"$M.uc\", \"w\")\\n' > ~/.local/lib/$pv/site-packages/usercustomize.py
		printf 'open(\"$M.ucd\", \"w\")\\n' > ~/.local/lib/$pv/site-packages/usercustomize/__init__.py
		printf 'open(\"$M.sc\", \"w\")\\n' > ~/.local/lib/$pv/site-packages/sitecustomize.py
		echo x > ~/.local/lib/$pv/site-packages/__pycache__/usercustomize.cpython-311.pyc
		echo x > ~/.local/lib/$pv/site-packages/ok.py; echo X=1 > ~/.local/lib/$pv/site-packages/mine.py"
	rm -f "$M".*
	(cd / && $PY -c 'import mine' > /dev/null 2>&1)
	is "no .pth, usercustomize or sitecustomize planted; the host's python runs none" \
		"$(cd "$SP" && ls -d evil.pth .x.pth usercustomize.py usercustomize/__init__.py sitecustomize.py __pycache__/usercustomize* 2> /dev/null):$(ls "$H" | grep -c '^marker\.')" ":0"
	like "… the refusal names the rule" "$err" "mandatory deny \(~/\.local/lib/python\*/site-packages/\{\*\.pth,usercustomize\*,sitecustomize\*\}\).*no grant lifts it"
	present "… control: a module beside them is written (and the host imports it)" "$SP/mine.py"
	rm -rf "$HOME/.local/lib" "$HOME/.local/ev"
	run "mkdir -p ~/.local/lib/$pv ~/.local/ev && printf '$(hook ln)' > ~/.local/ev/evil.pth && ln -s ../../ev ~/.local/lib/$pv/site-packages
		mkdir -p ~/.local/ev2 && printf '$(hook mv)' > ~/.local/ev2/evil.pth && mv ~/.local/ev2 ~/.local/lib/$pv/site-packages
		mkdir -p ~/.local/ev3/$pv/site-packages && printf '$(hook mv2)' > ~/.local/ev3/$pv/site-packages/evil.pth && rm -rf ~/.local/lib && mv ~/.local/ev3 ~/.local/lib
		mkdir -p ~/.local/lib/$pv/site-packages && echo ok > ~/.local/lib/$pv/site-packages/ok.py"
	rm -f "$M".*
	(cd / && $PY -c pass > /dev/null 2>&1)
	is "… site-packages made a link, a directory moved in as it or as a directory above it: refused, the host runs nothing" \
		"$(test -e "$SP/evil.pth" && echo planted):$(ls "$H" | grep -c '^marker\.')" ":0"
	present "… control: site-packages made as a directory, a module in it written" "$SP/ok.py"
	mkdir -p "$SP" && printf 'import os\n' > "$SP/user.pth"
	run "printf '$(hook ex)' >> ~/.local/lib/$pv/site-packages/user.pth; rm -f ~/.local/lib/$pv/site-packages/user.pth"
	is "… an existing .pth is not written nor removed" "$(cat "$SP/user.pth")" "import os"
	# pip install --user of a wheel from a local directory (no network): a plain one installs;
	# one that ships a .pth is refused (the cost)
	W=$H/wheels && mkdir -p "$W"
	$PY - "$W" << 'EOF'
import base64, hashlib, sys, zipfile
def h(b): return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
for name, pth, cli in (("sbxdemo", False, False), ("sbxdemopth", True, False), ("sbxdemocli", False, True)):
    d = f"{name}-1.0.dist-info"
    files = {f"{name}/__init__.py": b"X = 1\n",
             f"{d}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
             f"{d}/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    if pth:
        files[f"{name}.pth"] = b"import os\n"
    if cli:
        files[f"{d}/entry_points.txt"] = f"[console_scripts]\n{name} = {name}:X\n".encode()
    rec = "".join(f"{k},{h(v)},{len(v)}\n" for k, v in files.items()) + f"{d}/RECORD,,\n"
    with zipfile.ZipFile(f"{sys.argv[1]}/{name}-1.0-py3-none-any.whl", "w") as z:
        for k, v in files.items():
            z.writestr(k, v)
        z.writestr(f"{d}/RECORD", rec)
EOF
	if $PY -m pip --version > /dev/null 2>&1; then
		pip="$PY -m pip install -q --user --no-index --no-cache-dir --break-system-packages --disable-pip-version-check"
		run "$pip $W/sbxdemo-1.0-py3-none-any.whl && echo installed"
		is "pip install --user of a wheel from a local directory works with ~/.local granted" \
			"$out:$(cd / && $PY -c 'import sbxdemo; print(sbxdemo.X)' 2>&1)" "installed:1"
		run "$pip $W/sbxdemopth-1.0-py3-none-any.whl && echo installed"
		is "… one that ships a .pth is refused (the cost), its .pth not written" \
			"$out:$(test -e "$SP/sbxdemopth.pth" && echo planted)" ":"
		like "… and the refusal names the rule" "$err" "sbxdemopth\.pth .*mandatory deny \(~/\.local/lib/python"
		run "$pip $W/sbxdemocli-1.0-py3-none-any.whl && echo installed"
		is "… as is one with a console script (~/.local/bin)" \
			"$out:$(test -e "$HOME/.local/bin/sbxdemocli" && echo planted)" ":"
	else
		for i in 1 2 3 4; do skip "pip install --user" "no pip for $PY (packaging/deps.sh test installs python3-pip)"; done
	fi
else
	for i in 1 2 3 4 5 6 7 8 9 10; do skip "Python's user site" "no $PY with a user site"; done
fi

# --- ~/.config/bash_completion (bash-completion >= 2.12 sources it at every bash start), KDE's
# login scripts, with ~/.config granted ---
pol 'write += ~/.config'
for n in bash_completion plasma-workspace/env/x.sh autostart-scripts/x.sh; do
	rm -rf "$HOME/.config/bash_completion" "$HOME/.config/plasma-workspace" "$HOME/.config/autostart-scripts" "$HOME/.config/tool.ini"
	run "mkdir -p \$(dirname ~/.config/$n) && echo 'touch x' > ~/.config/$n; echo ok > ~/.config/tool.ini"
	is "~/.config/$n is not made (~/.config granted); control: another file there is" \
		"$(test -e "$HOME/.config/$n" && echo planted):$(cat "$HOME/.config/tool.ini" 2>&1)" ":ok"
done
like "… the refusal names the rule" "$err" 'mandatory deny \((~/\.config/autostart-scripts|\$XDG_CONFIG_HOME/)'

# --- where $XDG_DATA_HOME and $XDG_CONFIG_HOME move them (into a write grant) ---
pol 'write += ~/work'
XD=$HOME/work/data XC=$HOME/work/cfg
mkdir -p "$XD" "$XC/sbxsh" && cp "$HOME/.config/sbxsh/sbxsh.ini" "$XC/sbxsh/sbxsh.ini"
out=$(cd "$P" && XDG_DATA_HOME=$XD XDG_CONFIG_HOME=$XC "$SBXSH" -c '
	mkdir -p $XDG_DATA_HOME/bash-completion/completions $XDG_DATA_HOME/nvim/site/plugin $XDG_DATA_HOME/fish/vendor_conf.d
	echo x > $XDG_DATA_HOME/bash-completion/completions/git; echo x > $XDG_DATA_HOME/nvim/site/plugin/x.lua
	echo x > $XDG_DATA_HOME/fish/vendor_conf.d/x.fish; mkdir -p $XDG_DATA_HOME/dbus-1/services
	mkdir -p $XDG_DATA_HOME/x/applications && mv $XDG_DATA_HOME/x/applications $XDG_DATA_HOME/applications
	echo x > $XDG_CONFIG_HOME/bash_completion; mv $XDG_DATA_HOME $HOME/work/data2
	echo ok > $XDG_DATA_HOME/ctl' 2> "$H/err")
err=$(cat "$H/err")
is "\$XDG_DATA_HOME/{bash-completion,nvim/site,fish/vendor_conf.d,dbus-1,applications}, \$XDG_CONFIG_HOME/bash_completion: refused" \
	"$(cd "$HOME/work" && ls -d data/bash-completion/completions/git data/nvim/site data/fish/vendor_conf.d data/dbus-1 data/applications cfg/bash_completion data2 2> /dev/null)" ""
present "… control: another file in \$XDG_DATA_HOME lands" "$XD/ctl"
like "… the refusal names the rule" "$err" "mandatory deny \(\\\$XDG_CONFIG_HOME/\{sbxsh,git,…\}, \\\$XDG_DATA_HOME/"

# --- the same class in a project: a link or a file in place of .claude (its settings.json,
# hooks that run at the host's next claude, written through the other spelling) ---
pol "write += $P"
rm -rf "$P/.claude" "$P/ev" "$P/ev2"
run 'mkdir -p ev && ln -s ev .claude; echo "{}" > ev/settings.json; echo x > .claude-notes; mkdir -p ev2/sub && ln -s ../ev2 ev2/sub/.claude'
absent "a link named .claude is refused (at depth 1 and 2)" "$P/.claude"
absent "… nor below" "$P/ev2/sub/.claude"
present "… control: a file beside it lands" "$P/.claude-notes"
like "… the refusal names the rule" "$err" 'mandatory deny \(\.claude/\{commands,agents,hooks,skills,settings\*\.json\}\)'
done_testing
