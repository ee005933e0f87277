#!/bin/sh
# 0440 create-only grants (create +=; the agents' shell snapshots): a command in a narrow
# profile must not change a snapshot another command made, which an agent session then sources
# in a wider profile (another [dir]'s write grant). Two projects: narrow and wide (only wide may
# write $WG). A snapshot is made by a wide command (Claude Code's way: `>|` then `>>` in one
# command); a narrow command attacks it by every spelling; a wide command sources it: the
# planted line must not run. Controls: the maker writes its own file, a narrow command makes
# and writes its own.
# lock agents: it runs the real Claude Code from root's ~/.cache/sbxsh-e2e (0600 and the
# package's 0600 install it there) and removes /var/tmp/sbxsh-run.*.
REAL_HOME=${HOME:-}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agents_lib.sh"

var_home createonly
NARROW=$H/narrow WIDE=$H/wide WG=$H/widegrant
mkdir -p "$HOME/.config/sbxsh" "$NARROW/.git" "$WIDE/.git" "$WG" "$HOME/.claude/shell-snapshots"
chmod 700 "$HOME"
SD=$HOME/.claude/shell-snapshots
user_policy "[default]
network = none
[dir $WIDE]
write += $WG"
export SBXSH_PRESET=claude-code
if ! (cd "$NARROW" && "$SBXSH" -c true 2> "$H/err"); then
	skip "create-only grants" "sbxsh cannot run a sandbox here: $(head -c 300 "$H/err")"
	done_testing
	exit
fi
# in DIR CMD: runs CMD there ($out, $rc, $err)
run_in() { out=$(cd "$1" && "$SBXSH" -c "$2" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }
is "control: the wide profile writes its grant" "$(run_in "$WIDE" "echo w > $WG/w && cat $WG/w"; echo "$out")" w
run_in "$NARROW" "echo n > $WG/n"
check "control: the narrow one does not" test ! -e "$WG/n"

PLANT="echo pwned > $WG/pwned"
# snap NAME: a snapshot made by a wide command as Claude Code makes one
snap() {
	S=$SD/$1
	run_in "$WIDE" "echo '# Snapshot file' >| $S; echo 'unalias -a 2>/dev/null || true' >> $S; echo 'export SNAP=$1' >> $S"
	want="# Snapshot file
unalias -a 2>/dev/null || true
export SNAP=$1"
}
# attack DESC NAME NARROW-COMMAND: the snapshot is unchanged and sourcing it in the wide profile
# runs nothing planted
attack() {
	snap "$2"
	is "control: the wide command made its snapshot and appended to it ($2)" "$(cat "$S" 2>&1)" "$want"
	run_in "$NARROW" "$3"
	narrow_err=$err
	rm -f "$WG/pwned"
	run_in "$WIDE" ". $S; echo sourced=\$SNAP"
	check "$1: the planted line did not run in the wide profile" test ! -e "$WG/pwned"
	is "… the wide command sourced the snapshot as made" "$out" "sourced=$2"
	is "… the snapshot is unchanged" "$(cat "$S" 2>&1)" "$want"
}
attack "append (>>)" s-append.sh "echo '$PLANT' >> $SD/s-append.sh"
like "… the refusal is a violation naming the create grant" "$narrow_err" \
	'write ~/\.claude/shell-snapshots/s-append\.sh \(openat\): create grant ~/\.claude/shell-snapshots \(the default policy.s \[profile claude-code\], line [0-9]+\)'
like "… and how the user's file lifts it (after the preset)" "$narrow_err" \
	'\[profile claude-code\] in ~/\.config/sbxsh/sbxsh\.ini: create -= ~/\.claude/shell-snapshots, then write \+= '
attack "overwrite (>)" s-over.sh "echo '$PLANT' > $SD/s-over.sh"
attack "truncate" s-trunc.sh "truncate -s 0 $SD/s-trunc.sh; : > $SD/s-trunc2.sh; python3 -c 'import os; os.truncate(\"$SD/s-trunc.sh\", 0)'"
attack "a file made beside it renamed over it" s-ren.sh "echo '$PLANT' > $SD/x-ren; mv -f $SD/x-ren $SD/s-ren.sh"
attack "a project file moved over it (another mount: copy)" s-mv.sh "echo '$PLANT' > p-mv; mv -f p-mv $SD/s-mv.sh"
attack "unlinked and made anew" s-unl.sh "rm -f $SD/s-unl.sh; echo '$PLANT' > $SD/s-unl.sh"
attack "renamed away, made anew" s-away.sh "mv $SD/s-away.sh $SD/old; echo '$PLANT' > $SD/s-away.sh"
attack "RENAME_EXCHANGE with a file made beside it" s-xchg.sh "echo '$PLANT' > $SD/x-xchg; python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2(-100, b\"$SD/x-xchg\", -100, b\"$SD/s-xchg.sh\", 2)'"
attack "a hard link beside it, written" s-hl.sh "ln $SD/s-hl.sh $SD/hl; echo '$PLANT' >> $SD/hl"
attack "a hard link in the project, written" s-hlp.sh "ln $SD/s-hlp.sh hlp; echo '$PLANT' >> hlp"
attack "a symlink beside it, written" s-sl.sh "ln -s s-sl.sh $SD/sl; echo '$PLANT' >> $SD/sl"
attack "a symlink in the project, written" s-slp.sh "ln -s $SD/s-slp.sh slp; echo '$PLANT' >> slp"
attack "reopened for writing through /proc/self/fd" s-fd.sh "exec 3< $SD/s-fd.sh; echo '$PLANT' >> /proc/self/fd/3; echo '$PLANT' >> /dev/fd/3"
attack "opened by a relative path from the directory" s-rel.sh "cd $SD && echo '$PLANT' >> ./s-rel.sh; echo '$PLANT' >> ../shell-snapshots/s-rel.sh"
attack "os.open O_WRONLY|O_APPEND, O_RDWR" s-py.sh "python3 -c '
import os
for fl in (os.O_WRONLY | os.O_APPEND, os.O_RDWR, os.O_WRONLY | os.O_CREAT):
    try:
        fd = os.open(\"$SD/s-py.sh\", fl); os.lseek(fd, 0, 2); os.write(fd, b\"\n$PLANT\n\"); os.close(fd)
    except OSError as e: print(e)'"
attack "O_PATH|O_CREAT|O_EXCL first (the kernel opens it, makes nothing), then written" s-opath.sh "python3 -c '
import os
d = os.open(\"$SD\", os.O_RDONLY | os.O_DIRECTORY)
for at in (None, d):
    try:
        os.close(os.open(\"x-opath\", os.O_WRONLY | os.O_CREAT | os.O_EXCL, dir_fd=d))
    except OSError as e: print(e)
    for fl in (os.O_PATH | os.O_CREAT | os.O_EXCL, os.O_PATH | os.O_CREAT):
        try:
            os.close(os.open(\"$SD/s-opath.sh\" if at is None else \"s-opath.sh\", fl, 0o600, dir_fd=at))
        except OSError as e: print(e)
    try:
        fd = os.open(\"$SD/s-opath.sh\" if at is None else \"s-opath.sh\", os.O_WRONLY | os.O_APPEND, dir_fd=at)
        os.write(fd, b\"\n$PLANT\n\"); os.close(fd)
    except OSError as e: print(e)'"
attack "an O_TMPFILE linked into place, renamed over it" s-tmpf.sh "python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(\"$SD\", os.O_TMPFILE | os.O_WRONLY, 0o600)
os.write(fd, b\"$PLANT\n\")
print(libc.linkat(-100, b\"/proc/self/fd/%d\" % fd, -100, b\"$SD/x-tmpf\", 0x400))
os.rename(\"$SD/x-tmpf\", \"$SD/s-tmpf.sh\")'"
like "… the O_TMPFILE it made got its name (its own file)" "$(cat "$SD/x-tmpf" 2>&1)" pwned
attack "chmod, then written" s-chmod.sh "chmod 666 $SD/s-chmod.sh; echo '$PLANT' >> $SD/s-chmod.sh"
attack "through a subdirectory made there and renamed" s-sub.sh "mkdir $SD/d; mv $SD/s-sub.sh $SD/d/; echo '$PLANT' > $SD/s-sub.sh"

# the session's own snapshot: made by a narrow command, planted by a later narrow one, sourced
# after the session moved to the wide project
S=$SD/s-own.sh
run_in "$NARROW" "echo 'export SNAP=own' >| $S"
run_in "$NARROW" "echo '$PLANT' >> $S"
rm -f "$WG/pwned"
run_in "$WIDE" ". $S; echo sourced=\$SNAP"
check "a snapshot a narrow command made, planted by a later one: nothing runs in the wide profile" test ! -e "$WG/pwned"
is "… the later command did not change it" "$(cat "$S")" "export SNAP=own"

# a long-lived narrow command waits for a snapshot made later, then writes it
cat > "$H/watch.py" << EOF
import os, time, errno
d, plant = "$SD", b"\n$PLANT\n"
open("ready", "w").close()
tried = []
for _ in range(3000):
    names = [n for n in os.listdir(d) if n.startswith("late")]
    if names:
        for _ in range(200):
            try:
                fd = os.open(os.path.join(d, names[0]), os.O_WRONLY | os.O_APPEND)
                os.write(fd, plant); os.close(fd); tried.append("wrote")
            except OSError as e:
                tried.append(errno.errorcode[e.errno])
            time.sleep(0.005)
        break
    time.sleep(0.01)
open("tried", "w").write(" ".join(sorted(set(tried))) + "\n")
EOF
rm -f "$NARROW/ready" "$NARROW/tried"
(cd "$NARROW" && "$SBXSH" -c "python3 $H/watch.py" > /dev/null 2>&1) &
bg=$!
n=0; while [ ! -e "$NARROW/ready" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
snap late.sh
n=0; while [ ! -e "$NARROW/tried" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
wait $bg
rm -f "$WG/pwned"
run_in "$WIDE" ". $S; echo sourced=\$SNAP"
like "a long-lived narrow command met the new snapshot and was refused each time" "$(cat "$NARROW/tried" 2>&1)" '^EROFS$'
check "… nothing it planted ran in the wide profile" test ! -e "$WG/pwned"
is "… the snapshot is as its maker wrote it" "$(cat "$S")" "$want"

# controls: a command makes and writes files of its own there, and may remove them
run_in "$NARROW" "echo a >| $SD/mine; echo b >> $SD/mine; mkdir $SD/md; echo c > $SD/md/f; echo d >> $SD/md/f; cat $SD/mine $SD/md/f; rm $SD/md/f; rmdir $SD/md; mv $SD/mine $SD/mine2; cat $SD/mine2"
is "control: a command writes, renames and removes the files it made there" "$out" "a
b
c
d
a
b"
run_in "$NARROW" "echo x >> $SD/mine2"
is "… a later command does not write them" "$(cat "$SD/mine2")" "a
b"

# the codex preset: Codex writes its snapshot itself, outside the sandbox (a temporary file
# renamed into place); no command changes it, and a command still makes its own there
mkdir -p "$HOME/.codex/shell_snapshots"
echo 'export SNAP=codex' > "$HOME/.codex/shell_snapshots/thread.1.sh"
out=$(cd "$NARROW" && SBXSH_PRESET=codex "$SBXSH" -c "echo '$PLANT' >> ~/.codex/shell_snapshots/thread.1.sh; mv ~/.codex/shell_snapshots/thread.1.sh ~/.codex/shell_snapshots/x; echo own > ~/.codex/shell_snapshots/own; echo more >> ~/.codex/shell_snapshots/own" 2>&1)
is "codex preset: a snapshot Codex made is not changed by a command" "$(cat "$HOME/.codex/shell_snapshots/thread.1.sh")" 'export SNAP=codex'
is "… a command makes and writes its own there" "$(cat "$HOME/.codex/shell_snapshots/own" 2>&1)" "own
more"

# --- create += in the user's policy: a project's directory, what holds it, monitor = off
mkdir -p "$WIDE/out/snaps"
user_policy "[sbxsh]
monitor = off
[default]
network = none
[dir $WIDE]
write += $WG
create += ./out/snaps"
out=$(cd "$WIDE" && "$SBXSH" policy 2>&1)
like "sbxsh policy shows the create grant with its origin" "$out" "^create = $WIDE/out/snaps  # .*sbxsh\.ini:[0-9]+"
like "… and it is a write grant too (bound writable)" "$out" "^write = $WIDE/out/snaps  # "
run_in "$WIDE" "echo one >| out/snaps/a; echo two >> out/snaps/a; echo x > out/other"
is "monitor = off: a command writes what it made there" "$(cat "$WIDE/out/snaps/a")" "one
two"
run_in "$WIDE" "echo '$PLANT' >> out/snaps/a; echo '$PLANT' > out/snaps/a"
is "… a later command does not (the guard holds it with the monitor off)" "$(cat "$WIDE/out/snaps/a")" "one
two"
echo p > "$WIDE/pfile"
run_in "$WIDE" "ln out/snaps/a hl; echo '$PLANT' >> hl; ln pfile out/snaps/b; ln -P out/snaps/a out/hl2"
is "… no hard link from it into the project (the same mount: the guard refuses it)" "$(stat -c %h "$WIDE/out/snaps/a")" 1
check "… nor one into it from the project" test ! -e "$WIDE/out/snaps/b"
is "… the file is unchanged" "$(cat "$WIDE/out/snaps/a")" "one
two"
run_in "$WIDE" "mv out out2; mkdir -p out/snaps; echo '$PLANT' > out/snaps/a"
check "… the directory holding the grant is not renamed away" test -d "$WIDE/out/snaps" -a ! -e "$WIDE/out2"
is "… so the file keeps its name and content" "$(cat "$WIDE/out/snaps/a")" "one
two"
run_in "$WIDE" "rm -rf out/snaps; mv out/snaps out/s2"
check "… nor removed, nor the grant's own directory renamed" test -f "$WIDE/out/snaps/a" -a ! -e "$WIDE/out/s2"
run_in "$WIDE" "ln -s /etc/passwd out/snaps/l; mkfifo out/snaps/f; python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"out/snaps/s\")'"
check "… no symbolic link, FIFO or socket is made there" test ! -e "$WIDE/out/snaps/l" -a ! -L "$WIDE/out/snaps/l" -a ! -e "$WIDE/out/snaps/f" -a ! -e "$WIDE/out/snaps/s"
is "control: the rest of the project is as writable as before" "$(cat "$WIDE/out/other")" x
user_policy "[default]
network = none
[dir $WIDE]
create += ./out/snaps"
run_in "$WIDE" "mv out out2"
like "the monitor on: renaming a directory holding a create grant is a violation saying why" "$err" \
	"write .*/wide/out \(rename.*\): create grant .*/wide/out/snaps \(.*sbxsh\.ini:[0-9]+\): its directory and the directories holding it are not removed"
run_in "$WIDE" "echo x >> out/snaps/a"
like "… a file another command made there: the command did not make it" "$err" \
	"write .*/wide/out/snaps/a \(openat\): create grant .*: a command changes only what it made there itself"
user_policy "[default]
network = none
create += ~/snaps/*"
out=$(cd "$WIDE" && "$SBXSH" -c true 2>&1)
is "a pattern in create is refused (exit 125)" "$?" 125
like "… naming the key and the fix" "$out" "create: '~/snaps/\*' is a pattern; name one directory"

# --- the real Claude Code (installed by e2e 0600 into ~/.cache/sbxsh-e2e): its snapshot
# command writes the file with `>|`, then many `>>`, in one command; every later call sources
# it, and a call cannot change it
CLAUDE=$REAL_HOME/.cache/sbxsh-e2e/claude-code/node_modules/.bin/claude
if [ -x "$CLAUDE" ] && command -v python3 > /dev/null; then
	user_policy '[default]
network = none'
	cd "$WIDE" || exit 1
	rm -rf "$SD"/*
	claude_turn "$CLAUDE" \
		'for f in ~/.claude/shell-snapshots/snapshot-*; do tail -n 3 "$f"; done; echo "fn=$(type -t rg)"' \
		'for f in ~/.claude/shell-snapshots/snapshot-*; do echo "echo planted" >> "$f"; done; echo tried' \
		'echo "fn=$(type -t rg)"'
	like "the real Claude Code finishes its turn" "$out" '^done$'
	out=$(call 1)
	like "… its snapshot was written whole in the sandbox (>| then >>: the PATH line last)" "$out" '^export PATH='
	like "… and its tool calls source it (its rg function or alias)" "$out" '^fn=(function|alias|file)$'
	like "… a call's attempt to change it is refused" "$(call 2)" 'Read-only file system'
	unlike "… the next call runs nothing planted" "$(call 3)" planted
	rm -rf /var/tmp/sbxsh-run.* 2> /dev/null
else
	skip "the real Claude Code's snapshot" "not installed in $REAL_HOME/.cache/sbxsh-e2e (e2e 0600 installs it)"
fi

done_testing
