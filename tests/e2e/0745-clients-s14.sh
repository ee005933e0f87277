#!/bin/sh
# 0745-clients-s14 — more real callers of a shell (compat.md 1-3, 12-15): each case runs the
# caller's exact invocation (argv, environment, stdio kinds) under /bin/bash and under sbxsh and
# compares what the caller takes from it.
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
need_sandbox "real callers"
# the user's start-up files: ~/.profile (a login's) and ~/.bashrc (an interactive shell's)
cat > "$HOME/.profile" << 'EOP'
export FROM_PROFILE=p1
PATH="$HOME/pbin:$PATH"
[ -n "$BASH" ] && [ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"
EOP
echo 'export FROM_BASHRC=b1' > "$HOME/.bashrc"
# startup VARS…: what a shell given ARGV… ran its command with (FROM_PROFILE, FROM_BASHRC, the
# PATH ~/.profile set, no prompt hook of sbxsh's), stdin /dev/null, detached (setsid)
startup() {
	_sh=$1; shift
	setsid -w "$_sh" "$@" 'echo "P=$FROM_PROFILE B=$FROM_BASHRC path=${PATH%%:*} pc=${PROMPT_COMMAND-unset}"; env | grep -c "^SBXSH_RC\|^SBXSH_PROMPT\|^SBXSH_HISTFILE"' < /dev/null 2> "$T/startup.err.${_sh##*/}"
	echo "status=$?"
}

# --- A login and interactive shell given a command: `$SHELL -ilc CMD` (editors and Electron
# apps taking the login environment: VS Code, Cursor, JetBrains IDEs, Zed, fix-path). bash
# reads ~/.profile (a login) and ~/.bashrc (interactive) before the command; sbxsh read
# neither (it left the profile to its prompt hook, and a -c never prompts).
for a in -ilc -lic '-l -i -c' '--login -i -c' -lc -ic; do
	# shellcheck disable=SC2086
	is "sbxsh $a CMD reads the start-up files bash $a does" "$(startup "$SBXSH" $a)" "$(startup /bin/bash $a)" ||
		diag "$(cat "$T/startup.err.sbxsh")"
done
if command -v script > /dev/null; then
	c='echo "P=$FROM_PROFILE B=$FROM_BASHRC pc=${PROMPT_COMMAND-unset}"'
	is "…on a terminal too (script -qec \"\$SHELL -ilc CMD\")" \
		"$(script -qec "$SBXSH -ilc '$c'" /dev/null < /dev/null 2> /dev/null | tr -d '\r')" \
		"$(script -qec "/bin/bash -ilc '$c'" /dev/null < /dev/null 2> /dev/null | tr -d '\r')"
else
	skip "…on a terminal too" "no script(1) (bsdutils)"
fi
# VS Code's own resolver (vscode_shell_env.js does what shellEnv.ts does, with node)
if command -v node > /dev/null; then
	node "$E2E/vscode_shell_env.js" /bin/bash > "$T/vsc.bash" 2>&1
	node "$E2E/vscode_shell_env.js" "$SBXSH" > "$T/vsc.sbxsh" 2>&1
	pick() { node -e 'const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		console.log(process.argv.slice(2).map((k) => k + "=" + (e[k] === undefined ? "unset" : e[k])).join(" "))' "$@" 2>&1; }
	is "VS Code's shell environment resolver takes ~/.profile's and ~/.bashrc's variables from sbxsh as from bash" \
		"$(pick "$T/vsc.sbxsh" FROM_PROFILE FROM_BASHRC PATH PROMPT_COMMAND)" \
		"$(pick "$T/vsc.bash" FROM_PROFILE FROM_BASHRC PATH PROMPT_COMMAND)"
	# What sbxsh sets for commands in its sandbox (its markers, the proxy, the package caches in
	# the private /tmp, the policy's env_set) describes the sandbox: VS Code adopted them for
	# itself, its extensions, tasks and terminals (HTTP_PROXY at a port only the sandbox has,
	# CARGO_HOME=/tmp/.cargo, SBXSH_SANDBOX=1 outside any sandbox).
	user_policy '[default]
env_set += E2E_POLICY_VAR=x'
	node "$E2E/vscode_shell_env.js" /bin/bash > "$T/vsc.bash" 2>&1
	node "$E2E/vscode_shell_env.js" "$SBXSH" > "$T/vsc.sbxsh" 2>&1
	vars="SBXSH_SANDBOX SBXSH_PROFILE HTTP_PROXY https_proxy ALL_PROXY JAVA_TOOL_OPTIONS GIT_SSH_COMMAND CARGO_HOME GOPATH npm_config_cache E2E_POLICY_VAR GIT_DISCOVERY_ACROSS_FILESYSTEM"
	# shellcheck disable=SC2086
	is "…and none of the variables sbxsh sets inside its sandbox" "$(pick "$T/vsc.sbxsh" $vars)" "$(pick "$T/vsc.bash" $vars)"
	is "…while ~/.profile's still come" "$(pick "$T/vsc.sbxsh" FROM_PROFILE)" "FROM_PROFILE=p1"
	out=$(VSCODE_RESOLVING_ENVIRONMENT=1 "$SBXSH" -ilc 'echo "$SBXSH_SANDBOX"; cat /proc/self/cgroup > /dev/null; echo x > ~/outside' < /dev/null 2>&1)
	check "…which still ran sandboxed (a write to ~ refused)" test ! -e "$HOME/outside"
	like "…and reported" "$out" 'write ~/outside'
	user_policy '[default]
network = none'
else
	skip "VS Code's shell environment resolver" "no node (apt-get install nodejs)"
fi
# --- The zsh shim as a login shell on a terminal (a user whose login shell is the zsh shim:
# sshd's and tmux's `-zsh`, `zsh -l`): sbxsh gave zsh bash's --noprofile ("zsh: no such
# option: noprofile") and the login ended at once.
SHIMS=$(cd "$SBXSH_STAGE/libexec/sbxsh/shims" 2>/dev/null && pwd -P) || SHIMS=$SBXSH_STAGE/libexec/sbxsh/shims
if [ -x /bin/zsh ] && command -v script > /dev/null; then
	echo 'export FROM_ZPROFILE=zp' > "$HOME/.zprofile"
	echo 'export FROM_ZSHRC=zr' > "$HOME/.zshrc"
	for how in "$SHIMS/zsh -l" "exec -a -zsh $SHIMS/zsh"; do
		out=$(printf 'echo "ZZ=$FROM_ZPROFILE/$FROM_ZSHRC/$SBXSH_SANDBOX"\nexit 3\n' |
			TERM=dumb SHELL=/bin/bash timeout 30 script -qec "$how" /dev/null 2>&1; echo "status=$?")
		out=$(printf '%s\n' "$out" | tr -d '\r')
		like "the zsh shim as a login shell on a terminal ($how) reads ~/.zprofile and ~/.zshrc, sandboxed" "$out" '^ZZ=zp/zr/1$'
		unlike "…with no option error" "$out" 'no such option'
		like "…and ends with the shell's status" "$out" 'status=3$'
	done
	rm -f "$HOME/.zprofile" "$HOME/.zshrc"
else
	skip "the zsh shim as a login shell on a terminal" "no zsh or no script(1)"
fi
# --- A command that stops itself with no terminal (kill -STOP $$, a debugger's raise(SIGSTOP)),
# continued by its caller (kill -CONT PID: a supervisor, a CI runner resuming a paused step):
# bash goes on; sbxsh never passed the SIGCONT into the sandbox, and the caller waited for
# ever.
for sh_ in /bin/bash "$SBXSH"; do
	"$sh_" -c 'kill -STOP $$; echo resumed' < /dev/null > "$T/cont.${sh_##*/}" 2>&1 &
	p=$!
	# continued until it ends (a SIGCONT before its stop is lost), for at most 20 s
	i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do kill -CONT "$p"; sleep 0.2; i=$((i + 1)); done
	kill -KILL "$p" 2>/dev/null
	wait "$p"
	echo "status=$?" >> "$T/cont.${sh_##*/}"
done
is "kill -STOP \$\$ with no terminal, then the caller's kill -CONT: the command goes on as under bash" \
	"$(cat "$T/cont.sbxsh")" "$(cat "$T/cont.bash")"
done_testing
