#!/bin/sh
# 0995 the write boundary attacked again (session 13): what a protected name *links to*, and
# the stores of code host tools run by themselves below commonly granted home directories.
# - A symlink in a directory of programs or hooks (~/.local/bin, a git repository's hooks)
#   names a file elsewhere: pipx's and uv's tool environments, npm's global packages, a
#   project's hook script. The name is protected; the file it leads to was not, so a command
#   wrote the program the host's next `tool` or `git commit` runs — through the link, by the
#   target's own name, by a module of its environment, or by renaming the environment away
#   and making a new one.
# - npx's cache (~/.npm/_npx, under `write += ~/.npm`) and corepack's (~/.cache/node/corepack,
#   under `write += ~/.cache`): both run what they find there at the host's next `npx PKG` or
#   `yarn` without checking it again.
# Each attack with a control that shows the same write lands where it is allowed.
. "$(dirname "$0")/lib.sh"

redteam_start redteam13 "the write boundary" # HOME and the project under /var/tmp

user_policy '[default]
network = none
write += ~/.local ~/.cache ~/.npm'

# --- a program of ~/.local/bin that is a link into a tool environment (a virtualenv holding
# pyvenv.cfg, as pipx's and uv's are; its script runs the environment's modules)
V=$HOME/.local/share/venvs/tool
mkdir -p "$V/bin" "$V/lib" "$HOME/.local/bin" "$HOME/.local/share/other"
echo 'home = /usr/bin' > "$V/pyvenv.cfg"
printf '#!/bin/sh\n. "$(dirname "$(readlink -f "$0")")/../lib/tool.sh"\n' > "$V/bin/tool"
echo 'echo genuine' > "$V/lib/tool.sh"
chmod 755 "$V/bin/tool"
ln -s "$V/bin/tool" "$HOME/.local/bin/tool"
tool() { "$HOME/.local/bin/tool" 2>&1; }
is "setup: the host's tool runs" "$(tool)" genuine
run 'printf "#!/bin/sh\necho PLANTED\n" > ~/.local/bin/tool'
is "a write through ~/.local/bin/tool (a link into a tool's environment) is refused" "$(tool)" genuine
like "… and reported" "$err" 'violation'
run 'printf "#!/bin/sh\necho PLANTED\n" > ~/.local/share/venvs/tool/bin/tool'
is "… and by the target's own name" "$(tool)" genuine
run 'echo "echo PLANTED" > ~/.local/share/venvs/tool/lib/tool.sh'
is "… nor a module of its environment (the script runs it)" "$(tool)" genuine
run 'mv ~/.local/share/venvs/tool ~/.local/share/venvs/old; mkdir -p ~/.local/share/venvs/tool/bin; printf "#!/bin/sh\necho PLANTED\n" > ~/.local/share/venvs/tool/bin/tool; chmod 755 ~/.local/share/venvs/tool/bin/tool'
is "… nor the environment renamed away and made anew" "$(tool)" genuine
run 'mv ~/.local/share/venvs ~/.local/share/venvs.old'
absent "… nor a directory holding it" "$HOME/.local/share/venvs.old"
# pipx's and uv's tool stores, by name (a tool installed later is linked there too)
run 'mkdir -p ~/.local/share/pipx/venvs/new ~/.local/share/uv/tools/new ~/.local/share/uv/python/new'
absent "pipx's tool environments are not made" "$HOME/.local/share/pipx/venvs/new"
absent "… nor uv's tools" "$HOME/.local/share/uv/tools/new"
absent "… nor uv's Pythons" "$HOME/.local/share/uv/python/new"
run 'echo x > ~/.local/share/other/f'
present "control: a file elsewhere in ~/.local/share is written" "$HOME/.local/share/other/f"
# npm's global packages under a prefix of ~/.local: the bin links into the package, whose
# other files the bin requires
N=$HOME/.local/lib/node_modules/tsx
mkdir -p "$N/bin" "$N/lib"
echo 'echo genuine' > "$N/lib/main.sh"
printf '#!/bin/sh\n. "$(dirname "$(readlink -f "$0")")/../lib/main.sh"\n' > "$N/bin/tsx"
chmod 755 "$N/bin/tsx"
ln -s ../lib/node_modules/tsx/bin/tsx "$HOME/.local/bin/tsx"
run 'echo "echo PLANTED" > ~/.local/lib/node_modules/tsx/lib/main.sh'
is "npm's global package (~/.local/bin/tsx links into it) is not rewritten" "$("$HOME/.local/bin/tsx" 2>&1)" genuine
# a dangling link in ~/.local/bin (the tool's environment removed): its target is not made
ln -s "$HOME/.local/share/gone/bin/gone" "$HOME/.local/bin/gone"
run 'mkdir -p ~/.local/share/gone/bin; printf "#!/bin/sh\necho PLANTED\n" > ~/.local/share/gone/bin/gone'
absent "a dangling link's target in ~/.local/bin is not made" "$HOME/.local/share/gone/bin/gone"

# --- a git hook that is a link to a script of the project (how many projects install theirs)
mkdir -p "$P/scripts" "$P/.git/hooks"
printf '#!/bin/sh\necho genuine-hook > "%s/hook.out"\n' "$H" > "$P/scripts/pre-commit"
chmod 755 "$P/scripts/pre-commit"
ln -s ../../scripts/pre-commit "$P/.git/hooks/pre-commit"
if command -v git > /dev/null 2>&1; then
	(cd "$P" && git init -q . > /dev/null 2>&1)
	run 'printf "#!/bin/sh\necho PLANTED > %s/hook.out\n" "$HOME/.." > .git/hooks/pre-commit; printf "#!/bin/sh\necho PLANTED > %s/hook.out\n" "$HOME/.." > scripts/pre-commit'
	(cd "$P" && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x > /dev/null 2>&1)
	is "a hook linked to a project script: the host's next git commit runs the user's script" \
		"$(cat "$H/hook.out" 2>&1)" genuine-hook
	run 'echo x > scripts/other.sh'
	present "control: another project script is written" "$P/scripts/other.sh"
else
	skip "a hook linked to a project script" "no git here"
fi

# --- npx's cache: `npx -p PKG cmd` runs the copy in ~/.npm/_npx/HASH when it is there
if command -v npx > /dev/null 2>&1; then
	mkdir -p "$H/pkg"
	echo '{"name":"hello-tool","version":"1.0.0","bin":{"hello-tool":"cli.js"}}' > "$H/pkg/package.json"
	printf '#!/usr/bin/env node\nconsole.log("genuine")\n' > "$H/pkg/cli.js"
	(cd "$H/pkg" && npm pack --silent > /dev/null 2>&1)
	npx_run() { (cd "$H" && timeout 120 npx --yes --offline -p "file:$H/pkg/hello-tool-1.0.0.tgz" hello-tool 2>&1 | tail -1); }
	is "setup: the host's npx runs the package" "$(npx_run)" genuine
	run 'for f in ~/.npm/_npx/*/node_modules/hello-tool/cli.js; do printf "#!/usr/bin/env node\nconsole.log(\"PLANTED\")\n" > "$f"; done; mkdir -p ~/.npm/_npx/0123456789abcdef'
	is "npx's cache under write += ~/.npm is not rewritten: the host's next npx runs the package" "$(npx_run)" genuine
	absent "… nothing is made there" "$HOME/.npm/_npx/0123456789abcdef"
	run 'mkdir -p ~/.npm/_cacache/tmp && echo x > ~/.npm/_cacache/tmp/x'
	present "control: npm's content cache (checked by hash) is written" "$HOME/.npm/_cacache/tmp/x"
else
	skip "npx's cache" "no npx here"
fi

# --- corepack's cache: a package manager found in ~/.cache/node/corepack/v1/NAME/VERSION (a
# .corepack file there) runs as the host's next yarn or pnpm, never downloaded or checked again
if command -v corepack > /dev/null 2>&1; then
	C=$HOME/.cache/node/corepack/v1/yarn/1.22.22
	mkdir -p "$C/bin"
	echo 'console.log("genuine")' > "$C/bin/yarn.js"
	echo '{"locator":{"name":"yarn","reference":"1.22.22"},"bin":{"yarn":"./bin/yarn.js"},"hash":"sha1.x"}' > "$C/.corepack"
	cp_run() { (cd "$H" && COREPACK_ENABLE_NETWORK=0 timeout 60 corepack yarn@1.22.22 --version 2>&1 | tail -1); }
	is "setup: the host's corepack runs the cached yarn" "$(cp_run)" genuine
	run 'echo "console.log(\"PLANTED\")" > ~/.cache/node/corepack/v1/yarn/1.22.22/bin/yarn.js; mkdir -p ~/.cache/node/corepack/v1/pnpm/9.0.0'
	is "corepack's cache under write += ~/.cache is not rewritten" "$(cp_run)" genuine
	absent "… no package manager is added" "$HOME/.cache/node/corepack/v1/pnpm/9.0.0"
	run 'mkdir -p ~/.cache/node/other && echo x > ~/.cache/node/other/f'
	present "control: another directory of ~/.cache/node is written" "$HOME/.cache/node/other/f"
else
	skip "corepack's cache" "no corepack here"
fi

# --- a file with a second name elsewhere (a hard link): uv (its default on Linux) and pnpm link
# each package file of a project's .venv or node_modules to their store, which every other
# project and tool environment links too; a write in place through the project's name is a
# write into the store, read-only for the sandbox, and into every project using it
S=$HOME/.cache/uv/archive-v0/abc
mkdir -p "$S/pkg" "$P/.venv/lib/pkg" "$P/scripts"
echo 'genuine' > "$S/pkg/mod.py"
ln "$S/pkg/mod.py" "$P/.venv/lib/pkg/mod.py"
chmod 644 "$S/pkg/mod.py"
run 'echo PLANTED > .venv/lib/pkg/mod.py'
is "a write through a project file hard-linked to a store is refused" "$(cat "$S/pkg/mod.py")" genuine
like "… and reported" "$err" 'hard link'
run 'echo PLANTED >> .venv/lib/pkg/mod.py; truncate -s 0 .venv/lib/pkg/mod.py'
is "… nor appended to or truncated" "$(cat "$S/pkg/mod.py")" genuine
py() { printf 'import os, sys\n%s\n' "$1" > "$H/t.py"; chmod 644 "$H/t.py"; run "python3 $H/t.py"; }
if command -v python3 > /dev/null 2>&1; then
	py "fd = os.open('.venv/lib/pkg/mod.py', os.O_RDONLY)
for f in (lambda: os.close(os.open('/proc/self/fd/%d' % fd, os.O_WRONLY)),
          lambda: os.truncate('/proc/self/fd/%d' % fd, 0), lambda: os.fchmod(fd, 0o755),
          lambda: os.chmod('.venv/lib/pkg/mod.py', 0o755)):
    try:
        f(); print('ok')
    except OSError as e:
        print(__import__('errno').errorcode[e.errno])"
	unlike "… nor re-opened for writing through /proc/self/fd/N, truncated there, or made executable" "$out" '^ok$'
	is "… its mode is unchanged" "$(stat -c %a "$S/pkg/mod.py")" 644
fi
run 'cp .venv/lib/pkg/mod.py .venv/lib/pkg/mod.new && echo mine >> .venv/lib/pkg/mod.new && mv .venv/lib/pkg/mod.new .venv/lib/pkg/mod.py'
is "control: a new copy renamed over the project's name is the project's (pip, editors)" "$(cat "$P/.venv/lib/pkg/mod.py" | tail -1)" mine
is "… and the store's file is unchanged" "$(cat "$S/pkg/mod.py")" genuine
# a hook hard-linked to a project script the user left disabled (not executable)
printf '#!/bin/sh\necho PLANTED > "%s/hook2.out"\n' "$H" > "$P/scripts/hook2"
chmod 644 "$P/scripts/hook2"
ln "$P/scripts/hook2" "$P/.git/hooks/post-commit"
run 'chmod 755 scripts/hook2'
check "a disabled hook hard-linked to a project script is not made executable through it" test ! -x "$P/.git/hooks/post-commit"
rm -f "$P/.git/hooks/post-commit"

# --- a hooks directory that is itself a link (`ln -s ../hk .git/hooks`), in a repository
# deeper than the mounts' probes (met by the guard, not read at start) and at the top
mkdir -p "$P/a/b/c/.git" "$P/a/b/c/hk" "$P/.githooks"
if command -v git > /dev/null 2>&1; then
	(cd "$P/a/b/c" && git init -q . && rm -rf .git/hooks && ln -s ../hk .git/hooks)
	rm -rf "$P/.git/hooks.x"
	mv "$P/.git/hooks" "$P/.git/hooks.x"
	ln -s ../.githooks "$P/.git/hooks"
	run 'printf "#!/bin/sh\necho PLANTED > %s/hook3.out\n" "$HOME/.." > a/b/c/hk/pre-commit; chmod 755 a/b/c/hk/pre-commit; printf "#!/bin/sh\necho PLANTED\n" > .githooks/post-commit'
	(cd "$P/a/b/c" && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x > /dev/null 2>&1)
	absent "a nested repository's linked hooks directory takes no hook: the host's next commit there runs nothing" "$H/hook3.out"
	absent "… nor the project's (.git/hooks -> ../.githooks)" "$P/.githooks/post-commit"
	run 'echo x > a/b/c/notes.txt'
	present "control: a file beside the nested repository is written" "$P/a/b/c/notes.txt"
	rm "$P/.git/hooks"
	mv "$P/.git/hooks.x" "$P/.git/hooks"
else
	skip "a linked hooks directory" "no git here"
fi

done_testing
