#!/bin/sh
# 0100-shell-contract — sbxsh behaves as bash for every invocation callers use (compat.md 1–6).
# Each form runs under real /bin/bash and under sbxsh; status and stdout must match.
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
BASH_=/bin/bash

# same DESC ARGS…: stdout and status of sbxsh ARGS equal those of bash ARGS (stdin empty).
same() {
	d=$1; shift
	want=$("$BASH_" "$@" < /dev/null 2>/dev/null; echo "status=$?")
	got=$("$SBXSH" "$@" < /dev/null 2>/dev/null; echo "status=$?")
	is "$d" "$got" "$want"
}

same "-c with name and args" -c 'echo "$0|$*|$#"' name a 'b c'
same "-c exit status" -c 'exit 3'
same "-c -l (Claude Code)" -c -l 'echo "$0:$1"; shopt -q login_shell && echo login' n one
same "-lc" -lc 'shopt -q login_shell && echo login; echo "$0"' n
same "-l -c" -l -c 'shopt -q login_shell && echo login' n
same "--login -c" --login -c 'shopt -q login_shell && echo login' n
same "-ec stops at the first failure" -ec 'false; echo not-here'
same "-ce" -ce 'false; echo not-here'
same "-o pipefail -c" -o pipefail -c 'false | true'
same "+o posix -c" +o posix -c 'shopt -o posix'
same "-O extglob -c" -O extglob -c 'shopt extglob; echo !(x)' 
same "-c -- cmd" -c -- 'echo "[$0][$1]"' n a
same "-f -c (su)" -f -c 'echo *' 
same "--norc -c" --norc -c 'echo norc'
same "--noprofile -c" --noprofile -c 'echo noprofile'
same "--rcfile F -c" --rcfile /dev/null -c 'echo rcfile'
same "--posix -c" --posix -c 'shopt -o posix | tr -s " \t" " "'
same "-c '' exits 0" -c ''
same "-c with a syntax error" -c 'if then'
same "127 for a missing command" -c 'no-such-command-sbxsh'

# $0 with no name is argv[0], as bash gives its own path.
is "\$0 is argv[0]" "$("$SBXSH" -c 'echo "$0"' 2>/dev/null)" "$SBXSH"

# argv[0] starting with "-" is a login shell (sshd, su -, login).
login0() { python3 -c 'import os,sys; os.execv(sys.argv[1], ["-sbxsh"] + sys.argv[2:])' "$@"; }
is "argv[0] -sbxsh is a login shell" \
	"$(login0 "$SBXSH" -c 'shopt -q login_shell && echo login; echo "$0"' < /dev/null 2>/dev/null)" \
	"$(login0 "$BASH_" -c 'shopt -q login_shell && echo login; echo "$0"' < /dev/null 2>/dev/null)"

# Scripts: from stdin (no -c, stdin not a tty), with -s, and from a file.
got=$(printf 'echo from-stdin "$0"; exit 4\n' | "$SBXSH" 2>/dev/null; echo "status=$?")
want=$(printf 'echo from-stdin "$0"; exit 4\n' | "$BASH_" 2>/dev/null; echo "status=$?")
is "script on stdin" "$(echo "$got" | sed "s|$SBXSH|SHELL|")" "$(echo "$want" | sed "s|$BASH_|SHELL|")"
is "-s with positional args" "$(echo 'echo "$1-$2"' | "$SBXSH" -s a b 2>/dev/null)" "a-b"
printf 'echo "script $0 $1"\nexit 5\n' > "$T/proj/s.sh"
same "a script file" "$T/proj/s.sh" arg
same "a missing script file" "$T/proj/no-such.sh"

# stdin/stdout: EOF passes through, nothing is read ahead.
is "stdin EOF reaches the command" "$(printf abc | "$SBXSH" -c 'cat; echo :end' 2>/dev/null)" "abc:end"
is "the rest of stdin stays for the next reader" \
	"$(printf 'l1\nl2\n' | { "$SBXSH" -c 'read -r l; echo "got $l"' 2>/dev/null; cat; })" "got l1
l2"

# Usage errors: exit 2 and a message; sbxsh's own options.
out=$("$SBXSH" -c 2>&1); rc=$?
is "bare -c exits 2" "$rc" 2
like "bare -c names the option" "$out" '-c: option requires an argument'
out=$("$SBXSH" --bogus-option -c true 2>&1); rc=$?
is "an unknown long option exits 2" "$rc" 2
like "…and is named" "$out" 'bogus-option: invalid option'
like "--version" "$("$SBXSH" --version)" '^sbxsh [0-9]'
like "--help" "$("$SBXSH" --help)" 'usage: sbxsh'

# --dry-run: the bwrap argv, one argument a line; nothing runs.
out=$("$SBXSH" --dry-run -c 'touch ran' 2>/dev/null); rc=$?
is "--dry-run exits 0" "$rc" 0
like "--dry-run starts with bwrap's absolute path" "$(echo "$out" | head -n1)" '^/.*bwrap$'
like "--dry-run shows the namespaces" "$out" '--unshare-net'
like "--dry-run shows the cwd" "$(echo "$out" | grep -A1 -x -- --chdir | tail -n1)" "^$T/proj\$"
like "--dry-run ends with the inner shell's argv" "$(echo "$out" | tail -n2 | tr '\n' ' ')" '^-c touch ran $'
check "--dry-run ran nothing" test ! -e "$T/proj/ran"

# Refusals: no bwrap → 125 with the cause and the fix; the command does not run.
printf '[sbxsh]\nbwrap = /nonexistent/bwrap\n[default]\nnetwork = none\n' > "$T/nobwrap.ini"
chmod 600 "$T/nobwrap.ini"
out=$("$SBXSH" --config "$T/nobwrap.ini" -c 'touch ran' 2>&1); rc=$?
is "a missing bwrap is refused with 125" "$rc" 125
like "…naming bwrap and the fix" "$out" '/nonexistent/bwrap.*install bubblewrap'
check "…and the command did not run" test ! -e "$T/proj/ran"
out=$(SBXSH_CONFIG="$T/nobwrap.ini" "$SBXSH" -c true 2>&1); rc=$?
is "SBXSH_CONFIG is read too" "$rc" 125
printf '[sbxsh]\nbwrap = /bin/false\n[default]\nnetwork = none\n' > "$T/badbwrap.ini"
chmod 600 "$T/badbwrap.ini"
out=$("$SBXSH" --config "$T/badbwrap.ini" -c 'touch ran' 2>&1); rc=$?
is "a sandbox that cannot be built is refused with 125" "$rc" 125
like "…saying so and pointing at sbxsh doctor" "$out" 'could not be built.*sbxsh doctor'
printf '[default]\nnetwork = sideways\n' > "$T/bad.ini"; chmod 600 "$T/bad.ini"
out=$("$SBXSH" --config "$T/bad.ini" -c 'touch ran' 2>&1); rc=$?
is "a policy error is refused with 125" "$rc" 125
like "…naming the file" "$out" 'bad.ini'

# No command on a terminal: an interactive inner shell, inside the sandbox.
out=$(python3 "$E2E/pty_run.py" --at-prompt --type 'echo in-sandbox=$SBXSH_SANDBOX; exit 7\n' \
	"$SBXSH" --norc 2>&1)
like "sbxsh on a terminal runs an interactive shell in the sandbox" "$out" 'in-sandbox=1$'
like "…which exits with its status" "$out" '^status=7$'

# sbxsh doctor
out=$("$SBXSH" doctor 2>&1)
like "doctor checks bwrap" "$out" '^ok +bwrap'
like "doctor probes namespaces" "$out" 'namespaces'
like "doctor mentions what bypasses the shell" "$out" 'internal-sftp'
done_testing
