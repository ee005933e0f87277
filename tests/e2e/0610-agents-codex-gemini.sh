#!/bin/sh
# 0610-agents-codex-gemini — the real Codex and Gemini CLIs from npm, each driven through
# tool calls by a mock of its API on loopback (mock_openai.py: the Responses API;
# mock_gemini.py: generateContent), with sbxsh run and with only PATH/the login shell at a
# shim. Installed once per user into ~/.cache/sbxsh-e2e (the real home); skipped with the
# reason when npm or the registry is not there.
# lock agents: it installs the real CLIs into ~/.cache/sbxsh-e2e, with npm's cache in the
# real home, as the package's 0600 does.
TMPDIR=/var/tmp; export TMPDIR # $HOME outside /tmp (the private /tmp would hide it)
REAL_HOME=${HOME:-}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agents_lib.sh"
# the agents' sbxsh-run directories in this run's own TMPDIR: another run's cleanup (or this
# one's) never removes a directory an agent still uses
TMPDIR=$T/tmp; mkdir -p "$TMPDIR"; export TMPDIR
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
SHIMS=$(cd "$SBXSH_STAGE/libexec/sbxsh/shims" 2>/dev/null && pwd -P) || SHIMS=$SBXSH_STAGE/libexec/sbxsh/shims
u=$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
mkdir -p sub "$HOME/.ssh"
echo SECRET-KEY > "$HOME/.ssh/id_test"
echo '# mine' > "$HOME/.bashrc"
PROJ=$(pwd -P)

trap 'kill $mocks 2> /dev/null; e2e_cleanup' EXIT
STEPS='cd sub && pwd|pwd|cat ~/.ssh/id_test|echo x >> ~/.bashrc|echo "key=${OPENAI_API_KEY:-${GEMINI_API_KEY:-unset}} in=${SBXSH_PROFILE:+sandbox}"|exit 7'
steps() { set -f; IFS='|'; start_mock "$1" $STEPS; unset IFS; set +f; }
# the six calls' results, checked the same way for each agent (NAME, exit-code pattern)
check_calls() {
	is "$1: its first tool call's output comes back (cd sub && pwd)" "$(call 1 | grep -c "$PROJ/sub")" 1
	like "$1: the next call starts where the agent says (it does not track cd)" "$(call 2)" "$PROJ\$"
	out=$(call 3)
	unlike "$1: a credential read is hidden" "$out" SECRET-KEY
	like "$1: …and reported in the tool result" "$out" 'read ~/.ssh/id_test'
	like "$1: a ~/.bashrc write is refused and reported" "$(call 4)" 'write ~/.bashrc'
	is "$1: …and ~/.bashrc is unchanged" "$(cat "$HOME/.bashrc")" '# mine'
	like "$1: the command ran sandboxed, without the agent's API key" "$(call 5)" 'key=unset in=sandbox'
	like "$1: a command's exit status reaches the agent" "$(call 6)" "$2"
}

# --- Gemini CLI ---
mkdir -p "$HOME/.gemini"
echo '{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false}}' > "$HOME/.gemini/settings.json"
gemini() {
	GEMINI_API_KEY=e2e-key GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port" timeout 180 "$@" \
		-p 'run the steps' --yolo < /dev/null > "$T/agent.out" 2>&1
}
if ! npm_agent gemini-cli @google/gemini-cli gemini; then
	skip "the real Gemini CLI runs its tool calls sandboxed" "$why"
else
	GEMINI=$BIN
	steps mock_gemini.py
	gemini "$SBXSH" run -- "$GEMINI"
	kill "$mock" 2> /dev/null
	like "Gemini CLI (sbxsh run) finishes its turn" "$(cat "$T/agent.out")" '^done$'
	check_calls "Gemini CLI (sbxsh run)" 'Exit Code: 7'
	rm -rf "$TMPDIR"/sbxsh-run.* 2> /dev/null
	# without sbxsh run: only PATH has the shims first; recognised by GEMINI_CLI=1
	steps mock_gemini.py
	(PATH="$SHIMS:$PATH"; gemini "$GEMINI") # (a subshell: PATH as it was after)
	kill "$mock" 2> /dev/null
	check_calls "Gemini CLI (PATH at the shims)" 'Exit Code: 7'
fi

# --- Codex CLI ---
# Codex's shell snapshot runs `SHELL -c '. SNAPSHOT && exec "$@"' … SHIM -lc CMD`: the shim must be
# visible in the sandbox, which a stage under /tmp (the private /tmp) is not.
case $SHIMS in /tmp/*) nosnap="--disable shell_snapshot" ;; *) nosnap= ;; esac
codex_args() {
	echo exec $nosnap --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -c model_provider=mock \
		-c "model_providers.mock={name=\"mock\",base_url=\"http://127.0.0.1:$port/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}" \
		-m gpt-mock
}
if ! npm_agent codex @openai/codex codex; then
	skip "the real Codex CLI runs its tool calls sandboxed" "$why"
else
	CODEX=$BIN
	login=$(getent passwd "$(id -u)" | cut -d: -f7)
	case $(readlink -f "$login") in
	"$(readlink -f "$SHIMS/bash")") skip "sbxsh run codex refuses a login shell that is not sbxsh" "the login shell is sbxsh" ;;
	*)
		out=$(OPENAI_API_KEY=x "$SBXSH" run -- "$CODEX" exec true 2>&1)
		is "sbxsh run codex: refused while the login shell is $login (Codex runs it, not SHELL): exit 125" "$?" 125
		like "…naming the login shell and the fix" "$out" "login shell \\($login.*chsh -s $SHIMS/bash"
		;;
	esac
	if is_root && command -v unshare > /dev/null; then
		# The set-up sbxsh(1) names: the login shell of Codex's user is the shim. Shown to
		# Codex by a private mount namespace with /etc/passwd's root line changed.
		sed "s|^\(root:[^:]*:0:[^:]*:[^:]*:[^:]*:\).*|\1$SHIMS/bash|" /etc/passwd > "$T/passwd"
		chmod 644 "$T/passwd"
		codex() {
			OPENAI_API_KEY=sk-e2e timeout 180 unshare -m --propagation private sh -c \
				'mount --bind "$0" /etc/passwd && exec "$@"' "$T/passwd" "$@" \
				$(codex_args) 'run the steps' < /dev/null > "$T/agent.out" 2>&1
		}
		steps mock_openai.py
		codex "$SBXSH" run -- "$CODEX"
		kill "$mock" 2> /dev/null
		like "Codex (sbxsh run, login shell the shim) finishes its turn" "$(cat "$T/agent.out")" '^done$'
		check_calls "Codex (sbxsh run)" 'Process exited with code 7'
		rm -rf "$TMPDIR"/sbxsh-run.* 2> /dev/null
		# without sbxsh run: recognised by CODEX_THREAD_ID, the codex preset applies
		mkdir -p "$HOME/.codex/shell_snapshots" # (Codex makes it when it takes snapshots)
		rm -f "$HOME/.codex/shell_snapshots/e2e.$u"
		STEPS="echo snap > ~/.codex/shell_snapshots/e2e.$u|cat ~/.ssh/id_test"
		steps mock_openai.py
		codex "$CODEX"
		kill "$mock" 2> /dev/null
		is "Codex (login shell the shim, no sbxsh run): its commands get the codex preset" \
			"$(cat "$HOME/.codex/shell_snapshots/e2e.$u" 2>&1)" snap
		out=$(call 2)
		unlike "…and are sandboxed (a credential read hidden)" "$out" SECRET-KEY
		like "…and reported" "$out" 'read ~/.ssh/id_test'
	else
		skip "the real Codex runs its tool calls sandboxed" "needs root (a private mount namespace shows Codex the shim as the login shell)"
	fi
fi
done_testing
