#!/bin/sh
# 0600-agents — AI agent CLIs (compat.md 12–15): the shims (bash, sh, zsh), `sbxsh run`, the
# presets, Claude Code's cwd file with and without sbxsh run, -l with SBXSH_CONFIG, tmp =
# shared, a write grant under the private /tmp.
# serial: as root it writes the staged system policy ([limits]); it counts the host's
# /tmp/sbxsh-cwd.* relay directories and removes /var/tmp/sbxsh-run.*; it installs the
# agents into ~/.cache/sbxsh-e2e, which 0440 and 0610 run.
TMPDIR=/var/tmp; export TMPDIR # $HOME outside /tmp (the private /tmp would hide it)
REAL_HOME=${HOME:-}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agents_lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
# (the real directory: an installed package's is /usr/libexec/sbxsh/shims behind the stage's link)
SHIMS=$(cd "$SBXSH_STAGE/libexec/sbxsh/shims" 2>/dev/null && pwd -P) || SHIMS=$SBXSH_STAGE/libexec/sbxsh/shims
u=$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
hex=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
mkdir -p sub

# --- the shims ---
for s in bash sh zsh; do
	is "the $s shim is sbxsh by another name" "$(readlink -f "$SHIMS/$s")" "$(readlink -f "$SBXSH_STAGE/bin/sbxsh")"
done
is "bash --version through the shim is the real bash's" \
	"$("$SHIMS/bash" --version 2>&1 | head -1)" "$(/bin/bash --version | head -1)"
is "…and --help too (bash's text, not sbxsh's)" \
	"$("$SHIMS/bash" --help 2>&1 | head -1)" "$(/bin/bash --help | head -1)"
"$SHIMS/bash" -c 'exit 3' 2>/dev/null
is "bash -c 'exit 3' through the shim exits 3" "$?" 3
printf 'echo "log script ran: $*"\n' > log
is "bash log runs the script ./log, not sbxsh's subcommand" "$("$SHIMS/bash" log a b 2>&1)" "log script ran: a b"
rm -f log
out=$("$SHIMS/bash" policy 2>&1)
rc=$?
is "bash policy (no such script) exits 127 as bash would" "$rc" 127
unlike "…and prints no policy" "$out" 'project root|\[default\]'
out=$("$SHIMS/bash" run true 2>&1)
unlike "bash run is no sbxsh run" "$out" 'preset'
out=$("$SHIMS/bash" --dry-run -c true 2>&1)
rc=$?
is "sbxsh's own --dry-run is an invalid option through the shim (exit 2)" "$rc" 2
out=$("$SHIMS/bash" -c "echo x > '$HOME/agent-wrote.$u'" 2>&1)
rc=$?
is "a write outside the project through the shim is refused (the command fails: exit 1)" "$rc" 1
like "…and reported" "$out" "violation"
check "…and nothing lands on the host" test ! -e "$HOME/agent-wrote.$u"
is "a login -bash through the shim is a login shell" \
	"$(/bin/bash -c 'exec -a -bash "$0" -c "shopt -q login_shell && echo login; echo \$0"' "$SHIMS/bash" 2>&1)" \
	"login
-bash"
is "the sh shim runs bash in POSIX mode" "$("$SHIMS/sh" -c 'case $SHELLOPTS in *posix*) echo posix;; esac' 2>&1)" posix
if [ -x /bin/zsh ]; then
	is "the zsh shim runs the real zsh, sandboxed" "$("$SHIMS/zsh" -c 'echo $ZSH_VERSION $SBXSH_PROFILE' 2>&1)" "$(/bin/zsh -c 'echo $ZSH_VERSION') [default]"
	is "…nested too (zsh from PATH inside a sandbox)" "$("$SBXSH" -c "PATH=$SHIMS:\$PATH zsh -c 'echo \$ZSH_VERSION'" 2>&1)" "$(/bin/zsh -c 'echo $ZSH_VERSION')"
else
	skip "the zsh shim runs the real zsh" "zsh is not installed (apt-get install zsh)"
	skip "…nested too" "zsh is not installed"
fi
ns='readlink /proc/self/ns/mnt'
both=$("$SBXSH" -c "$ns; PATH=$SHIMS:\$PATH bash -c '$ns'" 2>&1)
is "bash from PATH inside a sandbox runs in the same sandbox (no nesting)" \
	"$(echo "$both" | sed -n 2p)" "$(echo "$both" | sed -n 1p)"

# --- sbxsh run, with a fake agent doing what Claude Code does ---
cat > "$T/claude" << 'EOF'
#!/bin/sh
# Claude Code: $SHELL -c -l "CMD && pwd -P >| $TMPDIR/claude-XXXX-cwd", then reads the file
# from the host and starts the next call in that directory.
cwdf="${CLAUDE_CODE_TMPDIR:-${TMPDIR:-/tmp}}/claude-$HEX-cwd"
echo "shell=$SHELL preset=$SBXSH_PRESET"
"$SHELL" -c -l "cd sub && pwd -P >| $cwdf"
echo "rc1=$?"
cd "$(cat "$cwdf")" || exit 9
"$SHELL" -c "echo in=\$(pwd) && pwd -P >| $cwdf"
echo "rc2=$?"
echo "tmpdir=$CLAUDE_CODE_TMPDIR agent=$SBXSH_AGENT_TMP own=$TMPDIR"
echo agent > "$HOME/agent-unsandboxed.$U"
EOF
chmod 755 "$T/claude"
export HEX="$hex" U="$u"
out=$("$SBXSH" run --preset claude-code -- "$T/claude" 2> "$T/err")
err=$(cat "$T/err")
like "sbxsh run: the agent's SHELL is the bash shim and the preset is exported" "$out" "^shell=$SHIMS/bash preset=claude-code\$"
like "…its first call (-c -l) succeeds" "$out" '^rc1=0$'
is "…cd in one call is seen by the next (the cwd file reached the host)" \
	"$(echo "$out" | sed -n 's/^in=//p')" "$(cd sub && pwd -P)"
like "…the second succeeds" "$out" '^rc2=0$'
tmpd=$(echo "$out" | sed -n 's/^tmpdir=\([^ ]*\) .*/\1/p')
like "…CLAUDE_CODE_TMPDIR is a fresh sbxsh-run directory" "$tmpd" '/sbxsh-run\.[A-Za-z0-9]{6}$'
like "…SBXSH_AGENT_TMP names it; the agent's own TMPDIR is left alone" "$out" "agent=$tmpd own=$TMPDIR\$"

is "…mode 0700, ours" "$(stat -c '%a %u' "$tmpd" 2>&1)" "700 $(id -u)"
check "…the agent itself is not sandboxed (it wrote its home)" test -e "$HOME/agent-unsandboxed.$u"
unlike "…with --preset nothing is said about the preset" "$err" 'preset'
rm -rf "$tmpd"
cp "$T/claude" "$T/bin-claude"
mkdir -p "$T/bin" && mv "$T/bin-claude" "$T/bin/claude"
out=$(PATH="$T/bin:$PATH" "$SBXSH" run claude 2>&1 > /dev/null)
is "sbxsh run claude picks the claude-code preset and says so once" \
	"$(echo "$out" | grep -c 'preset claude-code')" 1
rm -rf "${TMPDIR:-/tmp}"/sbxsh-run.* 2> /dev/null
out=$("$SBXSH" run --preset nosuch -- true 2>&1)
rc=$?
is "an unknown preset is refused before the agent starts (exit 125)" "$rc" 125
like "…naming it and the fix" "$out" "preset .*'nosuch'.*no \\[profile nosuch\\]"
out=$("$SBXSH" run -- /nonexistent/agent 2>&1)
is "a missing agent exits 127" "$?" 127
out=$("$SBXSH" run 2>&1)
is "sbxsh run without an agent is a usage error" "$?" 2
out=$("$SBXSH" run --preset none -- sh -c 'echo "$SBXSH_PRESET|$PATH|$TMPDIR"' 2>&1)
like "--preset none: no preset, shims first on PATH, TMPDIR the agent's directory" "$out" "^none\\|$SHIMS:.*\\|$TMPDIR/sbxsh-run\\."
rm -rf "${TMPDIR:-/tmp}"/sbxsh-run.* 2> /dev/null

# --- the claude-code preset's files ---
mkdir -p "$HOME/.claude/shell-snapshots"
echo secret > "$HOME/.claude/.credentials.json"
echo '{}' > "$HOME/.claude/settings.json"
export SBXSH_PRESET=claude-code
out=$("$SBXSH" -c 'cat ~/.claude/.credentials.json' 2>&1)
unlike "claude-code: the agent's credentials are hidden" "$out" '^secret$'
out=$("$SBXSH" -c 'echo snap > ~/.claude/shell-snapshots/snapshot-bash-1.sh && cat ~/.claude/settings.json' 2>&1)
is "…its shell snapshots are writable and its settings readable" "$out" '{}'
out=$("$SBXSH" -c 'echo x > ~/.claude/settings.json' 2>&1)
like "…its settings are not writable" "$out" 'Read-only|violation'
is "…and unchanged" "$(cat "$HOME/.claude/settings.json")" '{}'
echo mine > CLAUDE.md
"$SBXSH" -c 'echo injected > CLAUDE.md' > /dev/null 2>&1
is "…the project's CLAUDE.md is not rewritten by a command" "$(cat CLAUDE.md)" mine
rm -f CLAUDE.md
# a deny_write name that does not exist yet (a fresh project): no bind can hold it, the guard does
out=$("$SBXSH" -c 'echo injected > CLAUDE.md' 2>&1)
check "…nor made where there is none yet" test ! -e CLAUDE.md
like "…and that is reported as the preset's deny_write" "$out" 'write ~?/.*CLAUDE\.md \(openat\): read-only by deny_write'
"$SBXSH" -c 'echo injected > CLAUDE.local.md' > /dev/null 2>&1
check "…nor CLAUDE.local.md (Claude Code reads it as the project's instructions too)" test ! -e CLAUDE.local.md
"$SBXSH" -c 'mkdir .claude; mkdir y && echo "{}" > y/settings.local.json && mv y .claude' > /dev/null 2>&1
check "…no ./.claude is made or renamed into place" test ! -e .claude
rm -rf y
user_policy '[default]
network = none
deny_write += ./dist'
"$SBXSH" -c 'mkdir -p dist/a && echo x > dist/a/f; mkdir z && echo x > z/f && mv z dist' > /dev/null 2>&1
check "a user's deny_write of a name that does not exist yet holds (mkdir, a rename into place)" test ! -e dist
rm -rf z
user_policy '[default]
network = none'
mkdir -p .gemini && echo GEMINI_API_KEY=gem-secret > .gemini/.env
is "gemini: the project's .gemini/.env (the agent's API key) is hidden" \
	"$(SBXSH_PRESET=gemini "$SBXSH" -c 'cat .gemini/.env; echo end' 2>/dev/null)" end
rm -rf .gemini
unset SBXSH_PRESET
# (the credentials are hidden by the default deny_read too: the preset's own grant tells)
rm -f "$HOME/.claude/shell-snapshots/snapshot-bash-2.sh"
CLAUDECODE=1 "$SBXSH" -c 'echo snap > ~/.claude/shell-snapshots/snapshot-bash-2.sh' > /dev/null 2>&1
is "CLAUDECODE=1 alone (SHELL at a shim, no sbxsh run) applies the claude-code preset" \
	"$(cat "$HOME/.claude/shell-snapshots/snapshot-bash-2.sh" 2>&1)" snap
rm -f "$HOME/.claude/shell-snapshots/snapshot-bash-3.sh"
SBXSH_PRESET=none CLAUDECODE=1 "$SBXSH" -c 'echo snap > ~/.claude/shell-snapshots/snapshot-bash-3.sh' > /dev/null 2>&1
check "…SBXSH_PRESET=none turns the recognition off" test ! -e "$HOME/.claude/shell-snapshots/snapshot-bash-3.sh"

out=$("$SBXSH" policy --preset claude-code 2>&1)
like "sbxsh policy --preset shows the preset's section" "$out" '^section = \[profile claude-code\] <embedded>:'
out=$(SBXSH_PRESET=codex "$SBXSH" policy 2>&1)
like "…and SBXSH_PRESET's" "$out" '^section = \[profile codex\] <embedded>:'

# --- [limits] hold for a preset and for the agent's directory ---
if is_root; then
	mkdir -p "$T/agent-tmp" && chmod 700 "$T/agent-tmp"
	printf '[limits]\nwrite = %s\n' "$T/proj" > "$SYSCONF/sbxsh.ini"
	chmod 644 "$SYSCONF/sbxsh.ini"
	user_policy "[default]
network = none
[profile claude-code]
write += $T/granted"
	out=$(SBXSH_PRESET=claude-code SBXSH_AGENT_TMP="$T/agent-tmp" "$SBXSH" -c "echo > '$T/granted/p'; echo > '$T/agent-tmp/a'" 2>&1)
	like "[limits]: a user's addition to a preset is dropped with a warning" "$out" "write '$T/granted' dropped: outside every write tree"
	like "…and so is the agent's directory (SBXSH_AGENT_TMP)" "$out" "write '$T/agent-tmp' dropped: outside every write tree"
	check "…neither is writable" test ! -e "$T/granted/p" -a ! -e "$T/agent-tmp/a"
	rm -f "$SYSCONF/sbxsh.ini"
else
	skip "[limits] hold for a preset" "only root can write the staged system policy"
fi
user_policy '[default]
network = none'
out=$(SBXSH_AGENT_TMP=/tmp "$SBXSH" -c true 2>&1)
like "SBXSH_AGENT_TMP naming a directory others can write is refused with a note" "$out" "SBXSH_AGENT_TMP=/tmp is not owned by you, or writable by others"

# --- Claude Code without sbxsh run: the cwd file in the host's /tmp ---
cwdf=/tmp/claude-$hex-cwd
rm -f "$cwdf"
out=$(TMPDIR=/tmp CLAUDECODE=1 "$SHIMS/bash" -c -l "cd sub && pwd -P >| $cwdf" 2>&1)
is "SHELL at the shim: Claude Code's cd reaches its cwd file in the host's /tmp" "$(cat "$cwdf" 2>&1)" "$(cd sub && pwd -P)"
is "…no relay directory is left" "$(ls -d /tmp/sbxsh-cwd.* 2>/dev/null | wc -l)" 0
out=$(TMPDIR=/tmp CLAUDECODE=1 "$SHIMS/bash" -c "echo x > /tmp/claude-other.$u; pwd -P >| $cwdf" 2>&1)
check "…the rest of the host's /tmp stays unwritable" test ! -e "/tmp/claude-other.$u"
rm -f "$cwdf"
echo victim > "$T/victim"
ln -s "$T/victim" "$cwdf"
TMPDIR=/tmp CLAUDECODE=1 "$SHIMS/bash" -c "pwd -P >| $cwdf" > /dev/null 2>&1
is "…a symlink planted at the cwd file's name is not followed" "$(cat "$T/victim")" victim
rm -f "$cwdf"
hostname=$(cat /etc/hostname 2>/dev/null || echo none)
TMPDIR=/tmp CLAUDECODE=1 "$SHIMS/bash" -c "d=\$(ls -d /tmp/sbxsh-cwd.*); ln -s /etc/hostname \"\$d/claude-$hex-cwd\"; pwd -P >| $cwdf" > /dev/null 2>&1
unlike "…a symlink the command puts in the relay directory is not read through" "$(cat "$cwdf" 2>/dev/null)" "^$hostname\$"
is "…and the relay directory is gone" "$(ls -d /tmp/sbxsh-cwd.* 2>/dev/null | wc -l)" 0
rm -f "$cwdf"
out=$(TMPDIR=/tmp CLAUDECODE=1 "$SHIMS/bash" -c "pwd -P >| $T/claude-$hex-cwd" 2>&1)
check "…a cwd file outside the agent's temporary directory is not made" test ! -e "$T/claude-$hex-cwd"

# --- -l honours SBXSH_CONFIG; a login by argv[0] does not ---
mkdir -p "$T/granted"
printf '[default]\nnetwork = none\nwrite += %s\n' "$T/granted" > "$T/alt.ini"
chmod 600 "$T/alt.ini"
out=$(SBXSH_CONFIG="$T/alt.ini" "$SBXSH" -c -l "echo l > '$T/granted/f' && echo ok" 2>&1)
is "-c -l honours SBXSH_CONFIG (Claude Code's fallback)" "$out" ok
out=$("$SBXSH" --config "$T/alt.ini" -l -c "echo l > '$T/granted/g' && echo ok" 2>&1)
is "--config with -l is honoured" "$out" ok
out=$(SBXSH_CONFIG="$T/alt.ini" /bin/bash -c 'exec -a -sbxsh "$0" -c "echo l > \"$1\"/h"' "$SBXSH" "$T/granted" 2>&1)
check "a login by argv[0] (-sbxsh) still ignores SBXSH_CONFIG" test ! -e "$T/granted/h"

# --- tmp = shared, and a write grant under the private /tmp ---
user_policy '[default]
network = none
tmp = shared'
out=$("$SBXSH" -c "echo s > /tmp/sbxsh-e2e-shared.$u" 2>&1)
rc=$?
is "tmp = shared: a write to /tmp is no violation (exit 0)" "$rc" 0
unlike "…and nothing is reported" "$out" violation
rm -f "/tmp/sbxsh-e2e-shared.$u"
mkdir -p "/tmp/sbxsh-e2e-grant.$u"
user_policy "[default]
network = none
write += /tmp/sbxsh-e2e-grant.$u /tmp/sbxsh-e2e-none.$u"
out=$("$SBXSH" -c "echo g > /tmp/sbxsh-e2e-grant.$u/f" 2>&1)
is "tmp = private: a write grant under /tmp is bound from the host" "$(cat "/tmp/sbxsh-e2e-grant.$u/f" 2>&1)" g
like "…one that does not exist is said, not dropped silently" "$out" "sbxsh-e2e-none.$u.*does not exist"
rm -rf "/tmp/sbxsh-e2e-grant.$u"
user_policy '[default]
network = none
write += /tmp'
out=$("$SBXSH" -c "echo w > /tmp/sbxsh-e2e-whole.$u" 2>&1)
like "…write += /tmp with tmp = private is said, not dropped silently" "$out" 'write grant /tmp .*does nothing with tmp = private'
check "…and the host's /tmp stays unwritten" test ! -e "/tmp/sbxsh-e2e-whole.$u"

# --- the real Claude Code CLI from npm, against a mock of its API on loopback ---
# Installed once per user into ~/.cache/sbxsh-e2e (the real home, not the test's); skipped
# with the reason when npm or the registry is not there.
user_policy '[default]
network = none'
mkdir -p "$HOME/.ssh"
echo SECRET-KEY > "$HOME/.ssh/id_test"
if ! npm_agent claude-code @anthropic-ai/claude-code claude; then
	skip "the real Claude Code runs its tool calls sandboxed" "$why"
else
	CLAUDE=$BIN
	claude_turn "$CLAUDE" 'cd sub && pwd' 'pwd' 'cat ~/.ssh/id_test' "echo x > ~/outside.$u" \
		'echo "key=${ANTHROPIC_API_KEY:-unset}"' 'exit 7'
	like "the real Claude Code (sbxsh run) finishes its turn" "$out" '^done$'
	is "…its first tool call's output comes back (cd sub && pwd)" "$(call 1)" "$(cd sub && pwd -P)"
	is "…the cd is seen by the next call" "$(call 2)" "$(cd sub && pwd -P)"
	out=$(call 3)
	unlike "…a credential read is hidden" "$out" SECRET-KEY
	like "…and reported in the tool result" "$out" 'violation.*|read ~/.ssh/id_test'
	out=$(call 4)
	like "…a write outside the project is refused and reported" "$out" "write ~/outside.$u"
	check "…and lands nowhere" test ! -e "$HOME/outside.$u"
	is "…the agent's API key is not in the command's environment" "$(call 5)" "key=unset"
	like "…a command's exit status reaches the agent" "$(call 6)" 'Exit code 7'
	rm -rf /var/tmp/sbxsh-run.* 2> /dev/null
fi
done_testing
