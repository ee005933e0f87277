#!/bin/sh
# 0630-aider-replay — Aider's invocation (compat.md 14), replayed: with SHELL at the bash shim,
# each command runs as `$SHELL -i -c COMMAND` on a pty of Aider's own (aider_replay.py does
# what pexpect.spawn does). The command's output and exit status come back, its cwd is the
# project's, a refused write is refused and shown on that pty, and Aider's own terminal is
# never the sandbox's (the relay's pty stands between).
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside the private /tmp
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
SHIMS=$(cd "$SBXSH_STAGE/libexec/sbxsh/shims" 2>/dev/null && pwd -P) || SHIMS=$SBXSH_STAGE/libexec/sbxsh/shims
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$SBXSH" -c true 2> "$T/err0"; then
	skip "Aider's invocation replayed" "no $PY, or sbxsh cannot run a sandbox here: $(head -c 300 "$T/err0" 2>/dev/null)"
	done_testing
	exit
fi
aider() { out=$(SHELL="$SHIMS/bash" "$PY" "$E2E/aider_replay.py" "$1" 2>&1); }

aider 'echo "out:$(pwd)"; echo err >&2; exit 7'
like "the command's output comes back on Aider's pty" "$out" "^out:$T/proj$"
like "…its stderr too" "$out" "^err$"
like "…and its exit status" "$out" "^status 7$"
aider 'tty; test -t 0 && echo "stdin-tty"'
like "the command has a terminal (the sandbox's own pty)" "$out" "^/dev/pts/[0-9]+$"
like "…on its stdin too" "$out" "^stdin-tty$"
aider 'echo x > proj-file && cat proj-file'
like "a write in the project lands" "$out" "^x$"
is "…on the host" "$(cat "$T/proj/proj-file" 2> /dev/null)" x
aider 'echo evil >> ~/.bashrc; echo "rc=$?"'
like "a write to ~/.bashrc is refused" "$out" "^rc=1$"
like "…and the violation is shown on Aider's pty, naming the file" "$out" "sbxsh: .*write ~/\.bashrc"
check "…the host's ~/.bashrc holds nothing of it" sh -c "! grep -q evil '$HOME/.bashrc' 2> /dev/null"
aider 'cd / && pwd'
like "an interactive shell's cd works within a command" "$out" "^/$"
done_testing
