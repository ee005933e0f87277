#!/bin/sh
# 0640-clients-s13 — real clients driving sbxsh as they drive bash (compat.md 1-6, 10, 14):
# each case runs the same invocation under /bin/bash and under sbxsh and compares what the
# client sees (output, status, whether it returns at all).
TMPDIR=/var/tmp; export TMPDIR # HOME and the project outside /tmp (sbxsh hides the host's /tmp)
. "$(dirname "$0")/lib.sh"
cd "$T/proj" || exit 1
user_policy '[default]
network = none'
PY=/usr/bin/python3
need_sandbox "real clients"

# --- A terminal whose line discipline still holds an end-of-file when sbxsh starts.
# script(1) with stdin not a terminal writes ^D into its pty when its stdin ends (CI wrappers:
# `script -qec CMD /dev/null < /dev/null`); pexpect's sendeof() does the same; a user types
# ^D ahead. In canonical mode the ^D is queued as an end-of-file mark, and a switch of the
# terminal to raw mode turns the mark into a NUL byte: the command read "\0" instead of its end
# of input and waited for ever (cat), the pty echoed it as "^@".
if command -v script > /dev/null; then
	for sh_ in /bin/bash "$SBXSH"; do
		timeout 20 script -qec "$sh_ -c 'cat | od -An -c | tr -s \" \"; echo done'" /dev/null \
			< /dev/null > "$T/script.${sh_##*/}" 2>&1
		echo "status=$?" >> "$T/script.${sh_##*/}"
	done
	is "script -qec CMD with stdin at its end: the command's stdin ends as under bash" \
		"$(tr -d '\r' < "$T/script.sbxsh")" "$(tr -d '\r' < "$T/script.bash")"
else
	skip "script -qec CMD with stdin at its end" "no script(1) (bsdutils)"
fi
# The same with lines typed ahead: a whole line, one ended by ^D (no newline) and a ^D on its
# own, all queued before the shell starts (the child waits until the driver wrote them).
typeahead() { "$PY" "$E2E/pty_run.py" --ahead --type 'line1\nab\x04\x04' "$@"; }
if [ -x "$PY" ]; then
	want=$(typeahead /bin/bash -c 'cat | od -An -c | tr -s " "; echo done; exit 3' 2>&1)
	got=$(typeahead "$SBXSH" -c 'cat | od -An -c | tr -s " "; echo done; exit 3' 2>&1)
	# the echo of what was typed ahead differs (the sandbox's pty echoes it once more): compared
	# are od's lines, the end and the status
	typed() { printf '%s\n' "$1" | sed 's/^ab//' | grep -v 'line1$'; }
	is "lines and ^D typed ahead of a pty command reach it as under bash" "$(typed "$got")" "$(typed "$want")"
	unlike "…with no NUL (^@) in its place" "$got" '\^@|\\0'
else
	skip "lines and ^D typed ahead of a pty command" "no $PY"
fi

# --- Many arguments (xargs, find -exec … {} +, a glob): bwrap takes at most 9000 arguments in
# all, its own and the command's; bash takes what execve took.
# shellcheck disable=SC2046
many() { "$1" -c 'echo "$# [$1] [$2] [${@: -3:1}] [${@: -2:1}]"; printf %s "${@: -1}" | od -An -c' x $(seq 1 20000) '' 'a b' "$(printf 'n\nl\377')" 2>&1; echo "status=$?"; }
is "20,003 arguments after -c reach the command as under bash" "$(many "$SBXSH")" "$(many /bin/bash)"
# shellcheck disable=SC2046
is "…and after a script file" "$(printf 'echo "$# ${10000}"\n' > many.sh; "$SBXSH" many.sh $(seq 1 12000) 2>&1)" "12000 10000"

# --- A current directory the caller is in but cannot search: `su user -c CMD` from root's
# 0700 home, root in a user's 0700 directory (the sandbox has no capability, root's neither).
# bash runs there; a sandbox cannot start there: refused with the cause and the fix (never run
# in another directory, where a relative path names another file), not with bwrap's bare words.
mkdir -p "$T/proj/shut"
out=$(cd "$T/proj/shut" && chmod 0 . && "$SBXSH" -c 'touch ran; echo ran' 2>&1); rc=$?
chmod 755 "$T/proj/shut"
is "a current directory that cannot be searched is refused (125)" "$rc" 125
like "…naming it, its mode and the fix" "$out" "current directory $T/proj/shut cannot be entered in the sandbox: $T/proj/shut \\(owner uid [0-9]+, mode 0000\\) does not let uid $(id -u) search it.*cd to a directory you can enter"
unlike "…not bwrap's words" "$out" "Can't chdir|could not be built"
check "…and nothing ran" test ! -e "$T/proj/shut/ran"

# --- A signal to the caller's whole process group: timeout(1), a CI runner cancelling a step,
# Node's kill of a detached group, ^C to a pipeline. bash (and the command, in its group) takes
# it and runs its traps; bwrap was in that group too, died of it, and its --die-with-parent
# SIGKILLed the sandbox: no trap ran (a lock file stays) and sbxsh died of the signal.
grp() {
	rm -f "$T/proj/started"
	"$PY" - "$@" <<'PY'
import os, signal, subprocess, sys, time
sig, sh = getattr(signal, "SIG" + sys.argv[1]), sys.argv[2:]
p = subprocess.Popen(sh, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
end = time.time() + 20
while not os.path.exists("started") and time.time() < end:
    time.sleep(0.05)
os.killpg(p.pid, sig)
out = p.communicate(timeout=30)[0].decode(errors="replace")
print(out.replace(os.path.basename(sh[0]), "SH"), end="")
print("status=%d" % p.returncode)
PY
}
if [ -x "$PY" ]; then
	for sig in TERM INT HUP; do
		c="trap 'echo trapped-$sig; exit 3' $sig; : > started; sleep 3 & wait"
		is "SIG$sig to the caller's process group: the command's trap runs and its status comes back, as under bash" \
			"$(grp $sig "$SBXSH" -c "$c")" "$(grp $sig /bin/bash -c "$c")"
	done
	c="trap 'echo trapped; exit 4' TERM; : > started; sleep 3; echo after"
	is "…with the job in the foreground" "$(grp TERM "$SBXSH" -c "$c")" "$(grp TERM /bin/bash -c "$c")"
	# bwrap runs with them blocked; the command gets the caller's mask, as under bash
	blk() { "$PY" -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGUSR1})
os.execv(sys.argv[1], [sys.argv[1], "-c", "grep -E \"^Sig(Blk|Ign)\" /proc/self/status"])' "$1"; }
	is "a caller's blocked signals stay blocked for the command, as under bash" "$(blk "$SBXSH")" "$(blk /bin/bash)"
	is "…and none is blocked when the caller blocks none" \
		"$("$SBXSH" -c 'grep ^SigBlk /proc/self/status')" "$(/bin/bash -c 'grep ^SigBlk /proc/self/status')"
else
	skip "a signal to the caller's process group" "no $PY"
fi

# --- A script file in the host's /tmp (mktemp, then `$SHELL "$tmp" args`: CI runners, IDE
# tasks, Python's tempfile): the private /tmp hid it, and bash said "No such file" (127).
# Its text is now given read-only at its path in the sandbox (what bash would read; nothing
# else of the host's /tmp is shown).
tmps=$(mktemp /tmp/sbxsh-0640.XXXXXX)
printf 'echo "from /tmp: $0 $1"\ntest -e "$0-sibling" && echo sibling-shown || echo sibling-hidden\n{ echo tampered >> "$0"; } 2>/dev/null || echo read-only\nexit 4\n' > "$tmps"
: > "${tmps}-sibling"
out=$("$SBXSH" "$tmps" arg 2>&1); rc=$?
is "sbxsh /tmp/script arg runs the script, as bash does" "$(printf '%s\n' "$out" | head -n 1)" "from /tmp: $tmps arg"
is "…with its status" "$rc" 4
is "…and nothing else of the host's /tmp is shown (a file beside it)" "$(printf '%s\n' "$out" | sed -n 2p)" sibling-hidden
is "…read-only" "$(printf '%s\n' "$out" | sed -n 3p)" read-only
is "…the host's file unchanged" "$(wc -l < "$tmps")" 4
rm -f "$tmps" "${tmps}-sibling"

done_testing
