#!/bin/sh
# 0970 the write boundary attacked again (session 11): names the kernel makes or removes for
# the sandbox without a call the guard sees (a core dump: `core` unlinked and made in the
# crashing process's cwd), checked against what the guard holds there (a deny_write glob, a
# create grant's file another command made, a $PATH directory of the home); the start-up
# files REPLs and pdb run from the current directory; a create grant's file by every other
# spelling of its path; Jujutsu's repository config. Each attack with a control showing the
# same thing works where it is allowed.
. "$(dirname "$0")/lib.sh"

redteam_start redteam11 "the write boundary" # HOME and the project under /var/tmp

# --- core dumps: with a core_pattern that is a file name (the kernel's default, `core`), a
# crashing process's core is written by the kernel into its cwd, after it unlinks a `core`
# already there: a name made and one removed with no system call of the command's, so no
# guard. The command chooses the cwd and raises its own RLIMIT_CORE (the hard limit is the
# caller's, usually unlimited).
pattern=$(cat /proc/sys/kernel/core_pattern 2> /dev/null)
crash='ulimit -c unlimited 2>/dev/null; sh -c "kill -SEGV \$\$"; echo crashed=$?'
case $pattern in
'|'* | '')
	skip "a core dump makes no name past the guard" "core_pattern is '$pattern' (a pipe: no file in the cwd)"
	;;
*)
	mkdir -p "$P/out" "$P/snaps"
	user_policy '[default]
network = none
deny_write += ./out/*
create += ./snaps'
	run "cd out; $crash"
	like "control: the crash is a crash (SIGSEGV)" "$out" 'crashed=139'
	absent "deny_write += ./out/*: no core is made in out/ by a crash there" "$P/out/core"
	ls "$P/out" > "$H/ls-out"
	is "… nor any other name (core.PID)" "$(cat "$H/ls-out")" ""
	run 'echo mine > snaps/core'
	is "control: a command makes a file named core in a create grant" "$(cat "$P/snaps/core" 2>&1)" mine
	run "echo other >> snaps/core; cd snaps; $crash"
	is "create += ./snaps: a later command's crash there does not replace the file another made" \
		"$(head -c 16 "$P/snaps/core" | tr -cd '[:print:]')" mine
	mkdir -p "$HOME/.cargo/bin"
	user_policy '[default]
network = none
write += ~/.cargo'
	out=$(cd "$P" && PATH="$HOME/.cargo/bin:$PATH" "$SBXSH" -c "cd ~/.cargo/bin && $crash" 2> "$H/err")
	like "control: the crash in ~/.cargo/bin is a crash" "$out" 'crashed=139'
	absent "write += ~/.cargo: no core is made in ~/.cargo/bin (a \$PATH directory: no new name)" \
		"$HOME/.cargo/bin/core"
	user_policy '[default]
network = none'
	run "ulimit -c unlimited && ulimit -c && ulimit -c 0 && ulimit -c"
	is "control: a command still sets its own core limit (ulimit -c)" "$out" "unlimited
0"
	rm -rf "$P/out" "$P/snaps"
	;;
esac

# --- REPLs and a debugger that run a file of the current directory when they start, with no
# trust asked, before any of the project's code: pdb (./.pdbrc, after ~/.pdbrc; its lines are
# Python), irb (./.irbrc, ./irb.rc, ./_irbrc when the home has none), Pry (./.pryrc), R
# (./.Rprofile before ~/.Rprofile; ./.Renviron sets R_PROFILE_USER, R_LIBS_USER), GHCi
# (./.ghci), Octave (./.octaverc)
mkdir -p "$P/a/b"
printf 'print("the user'"'"'s own tool")\n' > "$H/tool.py"
run 'printf "%s\n" "import os; open(\"'"$H"'/pwned-pdb\", \"w\").close()" > .pdbrc
for f in .irbrc irb.rc _irbrc .pryrc .Rprofile .Renviron .ghci .octaverc; do echo x > $f; echo x > a/b/$f; done
echo x > notes.pdbrc; echo x > Rprofile.R'
absent "the project's .pdbrc is not made (pdb runs it at start)" "$P/.pdbrc"
for f in .irbrc irb.rc _irbrc .pryrc .Rprofile .Renviron .ghci .octaverc; do
	absent "… nor $f (a REPL runs it at start)" "$P/$f"
	absent "… nor a/b/$f" "$P/a/b/$f"
done
present "… control: notes.pdbrc is made" "$P/notes.pdbrc"
present "… control: Rprofile.R is made" "$P/Rprofile.R"
if command -v python3 > /dev/null 2>&1; then
	(cd "$P" && echo c | timeout 20 python3 -m pdb "$H/tool.py" > /dev/null 2>&1)
	absent "… the host's next pdb in the project (on a script of the user's) runs nothing planted" "$H/pwned-pdb"
	printf '%s\n' "import os; open('$H/ok-pdb', 'w').close()" > "$P/.pdbrc"
	(cd "$P" && echo c | timeout 20 python3 -m pdb "$H/tool.py" > /dev/null 2>&1)
	present "… control: the host's pdb runs a .pdbrc the user made" "$H/ok-pdb"
	rm -f "$P/.pdbrc" "$H/ok-pdb"
else
	skip "the host's pdb runs nothing planted" "no python3 here"
	skip "control: the host's pdb runs a .pdbrc" "no python3 here"
fi
echo 'source("renv/activate.R")' > "$P/.Rprofile"
run 'echo "system(\"id\")" >> .Rprofile; rm -f .Rprofile; mv Rprofile.R .Rprofile'
is "… an existing .Rprofile (renv's) is not appended to, removed or replaced" "$(cat "$P/.Rprofile")" 'source("renv/activate.R")'
rm -rf "$P/a" "$P/.Rprofile" "$P/notes.pdbrc" "$P/Rprofile.R" "$H/tool.py"

# --- a create grant's file another command made, by every other spelling of its path (the
# guard resolves the real final name and checks the inode): none writes it nor changes its
# mode; utime of a read-only descriptor is the documented exception (a time: not the content)
mkdir -p "$P/snaps"
user_policy '[default]
network = none
create += ./snaps'
run 'echo "export SNAP=1" > snaps/s.sh'
cp "$E2E/guard_spellings.py" "$H/spell.py"
run "python3 $H/spell.py $P/snaps/s.sh"
r() { printf '%s\n' "$out" | sed -n "s/^$1: //p"; }
for s in "double slash" "dot component" dotdot relative "proc thread-self fd" "proc self task fd" \
	"proc pid fd" "O_PATH directory descriptor" "proc self fd of the directory, then the name"; do
	is "create grant: $s is refused (EROFS)" "$(r "$s")" EROFS
done
is "… a trailing slash: ENOTDIR" "$(r "trailing slash")" ENOTDIR
for s in "proc self cwd" "proc self root" "a child through its parent's procfs fd"; do
	is "… $s: a magic link or another process's procfs, EACCES" "$(r "$s")" EACCES
done
is "… nothing was appended by any of them" "$(r planted)" 0
is "… the snapshot is as its maker wrote it" "$(cat "$P/snaps/s.sh")" "export SNAP=1"
is "… nor does fchmod 0600 of a read-only descriptor (the guard's with every mode since session 15)" \
	"$(r "fchmod of the read-only descriptor")" EROFS
rm -rf "$P/snaps" "$H/spell.py"
user_policy '[default]
network = none'

# --- Jujutsu (jj): its repository's config (.jj/repo/config.toml: fix.tools, ui.pager and
# aliases run at the host's next jj; jj 0.38+ adopts one found where no config-id names its
# own, by copying it below ~/.config/jj), the workspace's, the ids, and .jj/repo as a file (a
# workspace pointed at another repository's directory)
run 'mkdir -p .jj/repo/op_store a/b/.jj; echo op > .jj/repo/op_store/op1
printf "[ui]\npager = [\"sh\", \"-c\", \"id; less\"]\n" > .jj/repo/config.toml
echo x > .jj/workspace-config.toml; echo abc > .jj/repo/config-id; echo ../../x > a/b/.jj/repo
mkdir -p y/repo; echo x > y/repo/config.toml; mv y/repo a/b/.jj/repo'
absent "jj: .jj/repo/config.toml is not made (run at the host's next jj)" "$P/.jj/repo/config.toml"
absent "… nor .jj/workspace-config.toml" "$P/.jj/workspace-config.toml"
absent "… nor .jj/repo/config-id" "$P/.jj/repo/config-id"
absent "… nor a .jj/repo file (another repository's directory)" "$P/a/b/.jj/repo"
present "… control: jj's op log is written" "$P/.jj/repo/op_store/op1"
echo abc > "$P/.jj/repo/config-id"
run 'rm -f .jj/repo/config-id; mv .jj jj.old'
present "… an existing config-id is not removed (a planted config would be adopted)" "$P/.jj/repo/config-id"
absent "… .jj is not renamed away" "$P/jj.old"
rm -rf "$P/.jj" "$P/a" "$P/y"

done_testing
