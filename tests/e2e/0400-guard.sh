#!/bin/sh
# 0400 the guard: the mandatory write denies hold by name (missing or not, at any depth, through
# symlinks and renamed parents, in every git variant, under the home rule), while the same
# writes land where they are allowed; what the guard performs behaves as the kernel would.
. "$(dirname "$0")/lib.sh"

var_home guard # HOME and the project under /var/tmp
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x
export GIT_CONFIG_NOSYSTEM=1
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$HOME/work" "$P"
chmod 700 "$HOME"
git -C "$P" init -q 2> /dev/null
cd "$P" || exit 1

pol() { printf '%s\n' "$1" > "$HOME/.config/sbxsh/sbxsh.ini"; chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"; }
# run CMD [DIR]: runs CMD under sbxsh in DIR (default the project); $rc, $out, $err.
run() {
	out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?
	err=$(grep -v '^sbxsh: network = proxy is not available' "$H/err")
}
# absent DESC PATH: PATH does not exist on the host (not even as a dangling symlink).
absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists"; fi; }
present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }

pol '[default]
network = none'
need_sandbox "the guard"

# --- each missing name, with a control beside it ---
run 'echo x > ok.txt'
present "control: a file in the project is created" "$P/ok.txt"
for n in .bashrc .bash_profile .profile .gitconfig .mcp.json .gitmodules .zshrc .inputrc \
	.bash_aliases .lfsconfig; do
	run "echo x > $n"
	absent "a missing $n is not created" "$P/$n"
done
like "… the refusal is a violation naming the rule and that no grant lifts it" "$err" \
	"write .*/\.lfsconfig .*mandatory deny \(\.lfsconfig\).*no grant lifts it"
run 'mkdir -p .claude && echo x > .claude/settings.json; mkdir -p .claude/logs && echo x > .claude/logs/notes.md'
absent "a missing .claude/settings.json is not created" "$P/.claude/settings.json"
present "… control: its logs in .claude are (an agent's data)" "$P/.claude/logs/notes.md"
run 'echo x > .git/hooks/pre-commit; mkdir .git/hooks; echo x > .git/hooks/pre-commit'
absent "a missing .git/hooks/pre-commit is not created" "$P/.git/hooks/pre-commit"
run 'mkdir -p a/b/c/d/e/.vscode; echo x > a/b/c/d/e/.vscode/settings.json; echo y > a/b/c/d/e/ok'
absent "depth 5: a/b/c/d/e/.vscode is not created" "$P/a/b/c/d/e/.vscode"
present "… control: a/b/c/d/e/ok is" "$P/a/b/c/d/e/ok"
mkdir -p "$P/x/y/z/w/v/.idea"
echo orig > "$P/x/y/z/w/v/.idea/ws.xml"
run 'echo evil > x/y/z/w/v/.idea/ws.xml; exec 3< x/y/z/w/v/.idea/ws.xml; echo evil > /proc/self/fd/3; echo evil > /dev/fd/3'
is "an existing protected file deeper than the mounts' probes is not written, directly or by re-opening a read-only descriptor (/proc/self/fd/N, /dev/fd/N)" "$(cat "$P/x/y/z/w/v/.idea/ws.xml")" orig
run 'mv x/y/z/w/v/.idea x/y/z/w/v/idea2'
present "… nor renamed away" "$P/x/y/z/w/v/.idea/ws.xml"

# --- symlinks ---
echo real > "$P/real.txt"
ln -s real.txt "$P/.profile"
run 'rm .profile; echo evil > .profile'
if [ -L "$P/.profile" ] && [ "$(cat "$P/real.txt")" = real ]; then ok "a symlinked .profile is neither removed nor written through"; else not_ok "a symlinked .profile is neither removed nor written through"; diag "$(ls -l "$P/.profile" 2>&1) $(cat "$P/real.txt")"; fi
rm -f "$P/.profile"
run 'ln -s .bashrc link && echo evil > link; ln -s ok2.txt link2 && echo ok > link2'
absent "a symlink pointing at a protected name does not create it" "$P/.bashrc"
present "… control: one pointing at another name does" "$P/ok2.txt"
run 'ln -s /proc/self/mem .zshenv; ln -s '"$P"'/.bashrc abs; echo x > abs; ln real.txt .zlogin'
absent "a symlink or a hard link made under a protected name is refused" "$P/.zshenv"
absent "… a hard link too" "$P/.zlogin"
absent "… an absolute symlink to a protected name does not create it" "$P/.bashrc"

# --- git ---
M=$H/marker
run 'echo a > f && git add f && git commit -qm first'
is "git add and commit work in a plain repository" "$rc:$(git -C "$P" log --oneline 2>/dev/null | wc -l | tr -d ' ')" "0:1"
run "git config core.fsmonitor 'touch $M.1'"
git -C "$P" status > /dev/null 2>&1
absent "git config core.fsmonitor is refused (.git/config); the host's git status runs nothing" "$M.1"
like "… the refusal names git_config = yes" "$err" "git_config = yes"
mkdir -p "$P/evilc"
printf '[core]\n\tfsmonitor = touch %s.2\n' "$M" > "$P/evilc/config"
run 'echo ../evilc > .git/commondir'
git -C "$P" status > /dev/null 2>&1
absent "a .git/commondir redirect is refused; git status runs nothing" "$M.2"
run "mv .git .git.orig && mkdir .git && cp -r .git.orig/* .git/ && printf '[core]\\n\\tfsmonitor = touch $M.3\\n' > .git/config"
git -C "$P" status > /dev/null 2>&1
present "mv .git .git.orig is refused" "$P/.git/HEAD"
absent "… and the host's git status runs nothing" "$M.3"
mkdir -p "$P/vendor/lib" && git -C "$P/vendor/lib" init -q 2> /dev/null
run "printf '#!/bin/sh\\ntouch $M.4\\n' > vendor/lib/.git/hooks/pre-commit; chmod +x vendor/lib/.git/hooks/pre-commit"
absent "a nested repository's hooks (vendor/lib/.git/hooks) are refused" "$P/vendor/lib/.git/hooks/pre-commit"
mkdir -p "$P/plain"
run "cd plain && git init -q && git config core.fsmonitor 'touch $M.5'"
absent "git init in a plain directory fails" "$P/plain/.git"
like "… with a hint naming git_config = yes" "$err" "git_config = yes"
git -C "$P/plain" status > /dev/null 2>&1
absent "… and git status there runs nothing" "$M.5"
# ... but in the sandbox's own /tmp and /dev/shm (tmpfs mounts no host program reads, gone
# with the command) no rule holds: a clone or git init there works (cargo's git
# dependencies, go's VCS fetches, an agent's scratch clone); a host directory granted into
# the private /tmp keeps every rule
run 'cd /tmp && git init -q s && cd s && git -c user.name=t -c user.email=t@x commit -q --allow-empty -m s && git log --oneline | wc -l && mkdir -p /dev/shm/r/.git && echo x > /tmp/.bashrc && echo scratch-ok'
is "git init and commit in the private /tmp, .git in /dev/shm, a .bashrc in /tmp: allowed" \
	"$(printf '%s' "$out" | tr '\n' ' ')" "1 scratch-ok"
HB=$(mktemp -d /tmp/e2e-scratch.XXXXXX)
chmod 755 "$HB"; chown "$(id -u):$(id -g)" "$HB"
pol "[default]
network = none
write += $HB"
run "cd $HB && git init -q && echo x > .bashrc; echo done"
absent "a host directory granted into the private /tmp: git init there still fails" "$HB/.git"
absent "… and a .bashrc there is not made" "$HB/.bashrc"
run "echo kept > $HB/ok.txt"
is "… while a plain file there lands on the host" "$(cat "$HB/ok.txt" 2>&1)" kept
rm -rf "$HB"
pol '[default]
network = none
git_config = yes'
run "mkdir -p gc && cd gc && git init -q && git config core.x y && echo x > .git/hooks/pre-commit"
is "with git_config = yes, git init and git config work" "$(git -C "$P/gc" config core.x 2>&1)" y
absent "… and hooks stay refused" "$P/gc/.git/hooks/pre-commit"
pol '[default]
network = none'
run 'echo x > sub.git-file-test && mkdir m && echo "gitdir: /elsewhere" > m/.git'
absent "a .git file is not created" "$P/m/.git"
git -C "$P" worktree add -q "$P/wt" 2> /dev/null
run 'cd wt && echo b > g && git add g && git commit -qm wt'
if [ -d "$P/wt" ]; then
	is "git add and commit work in a linked worktree inside the project" "$rc" 0
	run "echo /evil > .git/worktrees/wt/gitdir; echo x > wt/.git"
	is "… its gitdir and .git file are refused" "$(cat "$P/.git/worktrees/wt/gitdir"):$(head -c 7 "$P/wt/.git")" "$P/wt/.git:gitdir:"
else
	skip "a linked worktree" "git worktree add failed"
	skip "a linked worktree's gitdir" "git worktree add failed"
fi

git -C "$P" worktree add -q "$H/wt2" 2> /dev/null
if [ -d "$H/wt2" ]; then
	run 'echo c > h && git add h && git commit -qm wt2' "$H/wt2"
	is "git commit works in a linked worktree outside the project (index.lock under .git/worktrees/wt2)" "$rc" 0
	run "printf '[core]\\n\\tfsmonitor = touch $M.6\\n' >> $P/.git/config; echo x > $P/.git/hooks/post-commit" "$H/wt2"
	git -C "$H/wt2" status > /dev/null 2>&1
	absent "… while its repository's config and hooks stay refused" "$M.6"
else
	skip "a linked worktree outside the project" "git worktree add failed"
	skip "a linked worktree's repository config" "git worktree add failed"
fi
mkdir -p "$H/subsrc" && git -C "$H/subsrc" init -q 2> /dev/null && echo s > "$H/subsrc/s0" &&
	git -C "$H/subsrc" add s0 && git -C "$H/subsrc" commit -qm s0 &&
	git -C "$P" -c protocol.file.allow=always submodule add -q "$H/subsrc" sub > /dev/null 2>&1
if [ -f "$P/sub/.git" ]; then
	run 'echo d > s && git add s && git commit -qm s' "$P/sub"
	is "git commit works in a submodule checkout" "$rc:$(git -C "$P/sub" log --oneline | wc -l | tr -d ' ')" "0:2"
	run "echo x > $P/.git/modules/sub/hooks/pre-commit; git config core.fsmonitor 'touch $M.7'" "$P/sub"
	absent "… while .git/modules/sub/hooks is refused" "$P/.git/modules/sub/hooks/pre-commit"
	git -C "$P/sub" status > /dev/null 2>&1
	absent "… and its config" "$M.7"
	run "mkdir -p evil/hooks && echo x > evil/hooks/post-checkout && echo x > evil/commondir && mv evil .git/modules/other; mkdir -p evil2 && echo ../.. > evil2/commondir && mv evil2 .git/worktrees/w9"
	absent "a directory moved in as a module's git directory (hooks inside) is refused" "$P/.git/modules/other"
	absent "… and as a linked worktree's (a commondir inside)" "$P/.git/worktrees/w9"
	run "mkdir -p evil3/hooks && echo x > evil3/hooks/post-checkout && python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.renameat2(-100, b\".git/modules/sub\", -100, b\"evil3\", 2)
print(r, os.strerror(ctypes.get_errno()))
'"
	absent "… and exchanged with a module's git directory (RENAME_EXCHANGE)" "$P/.git/modules/sub/hooks/post-checkout"
else
	skip "a submodule checkout" "git submodule add failed"
	skip "a submodule's hooks" "git submodule add failed"
	skip "a submodule's config" "git submodule add failed"
fi

# --- the home rule and sbxsh's own state ---
pol '[default]
network = none
write += ~'
rm -f "$HOME/.config/sbxsh/x"
run 'echo x > ~/notes.txt; echo x > ~/.npmrc; mkdir ~/bin; echo x > ~/.bashrc; echo x > ~/.bash_profile; echo x > ~/.profile; echo x > ~/.gitconfig' "$HOME/work"
present "control: a file directly in a granted ~ is created" "$HOME/notes.txt"
for n in .npmrc bin .bashrc .bash_profile .profile .gitconfig; do
	absent "a grant of ~ does not cover ~/$n" "$HOME/$n"
done
like "… the home rule is named with the grant that lifts it" "$err" "home rule.*write \+= ~/\.npmrc"
pol '[default]
network = none
write += ~
write += ~/.config
write += ~/.cache
write += ~/.ssh'
mkdir -p "$HOME/.cache" # a grant of a missing directory mounts nothing (yet)
mv "$HOME/.config/sbxsh/sbxsh.ini" "$H/saved.ini"
cp "$H/saved.ini" "$H/pol.ini"
run 'mkdir -p ~/.cache/pip && echo x > ~/.cache/pip/x; echo "[default]" > ~/.config/sbxsh/sbxsh.ini; echo x > ~/.config/tool.ini' "$HOME/work"
# the policy must exist for the run: --config keeps it out of the way of the attack
out=$(cd "$HOME/work" && "$SBXSH" --config "$H/pol.ini" -c 'echo "[default]
network = open" > ~/.config/sbxsh/sbxsh.ini; mkdir -p ~/.ssh; echo key > ~/.ssh/authorized_keys; echo x > ~/.cache/y; echo x > ~/.config/tool.ini' 2> "$H/err")
absent "policy planting: a missing ~/.config/sbxsh/sbxsh.ini is not created (even with ~/.config granted)" "$HOME/.config/sbxsh/sbxsh.ini"
absent "~/.ssh/authorized_keys is not created when ~/.ssh is missing (even granted)" "$HOME/.ssh"
present "… control: a granted dot-entry (~/.cache) is writable" "$HOME/.cache/y"
present "… control: ~/.config/tool.ini with ~/.config granted" "$HOME/.config/tool.ini"
out=$(cd "$HOME/work" && "$SBXSH" --config "$H/pol.ini" -c 'mv ~/.config ~/.config.x && mkdir -p ~/.config/sbxsh && echo "[default]" > ~/.config/sbxsh/sbxsh.ini' 2> "$H/err")
absent "mv ~/.config ~/.config.x is refused" "$HOME/.config.x"
absent "… and no sbxsh.ini is planted" "$HOME/.config/sbxsh/sbxsh.ini"
mkdir -p "$HOME/.local/state/sbxsh"
echo record > "$HOME/.local/state/sbxsh/violations.jsonl"
out=$(cd "$HOME/work" && "$SBXSH" --config "$H/pol.ini" -c ': > ~/.local/state/sbxsh/violations.jsonl; echo x > ~/.local/bin' 2> "$H/err")
is "sbxsh's own log cannot be emptied (write += ~/.local is not needed for that refusal)" "$(head -n 1 "$HOME/.local/state/sbxsh/violations.jsonl")" record
mv "$H/saved.ini" "$HOME/.config/sbxsh/sbxsh.ini"

# --- the calls whose meaning depends on the caller ---
pol '[default]
network = none'
run 'echo a > /dev/stdout; echo b > /dev/fd/1; echo c > /proc/self/fd/1; echo d > /dev/null; echo e >> /dev/stdout; echo f > /dev/stderr'
is "/dev/stdout, /dev/fd/1, /proc/self/fd/1 and /dev/null work" "$(printf '%s' "$out" | tr '\n' ' ')" "a b c e"
like "… /dev/stderr too" "$err" "^f$"
run 'echo x > /proc/self/loginuid; echo x > /proc/1/fd/1; echo x > /sys/kernel/x'
is "… other writes under /proc and /sys are refused, the command goes on" "$rc" 1
run 'echo guarded > /proc/self/comm && read n < /proc/self/comm && echo "$n"
echo tself > /proc/thread-self/comm && read n < /proc/self/comm && echo "$n"
echo pid > /proc/$$/comm && read n < /proc/self/comm && echo "$n"
echo tid > /proc/self/task/$$/comm && read n < /proc/self/comm && echo "$n"
v=$(cat /proc/self/oom_score_adj); echo "$v" >> /proc/self/oom_score_adj && echo adj'
is "the command's own /proc/{self,thread-self,PID,self/task/TID}/comm take its writes, read back in the same process; oom_score_adj too" \
	"$(printf '%s' "$out" | tr '\n' ' ')" "guarded tself pid tid adj"
run 'echo x >/proc/self/mem; echo x >/proc/self/uid_map; echo x >/proc/self/setgroups; echo x >/proc/self/environ; echo x >/proc/self/attr/../comm; echo x >/proc/self/cwd/proc-cwd; exit 0'
is "… mem, uid_map, setgroups, environ, a dotted spelling and the cwd link are refused" \
	"$(printf '%s\n' "$err" | grep -c 'Permission denied\|Read-only\|No such file')" 6
absent "… nothing was written through /proc/self/cwd" "$P/proc-cwd"
run "echo evil > /proc/self/root$HOME/.bashrc; echo evil > /proc/thread-self/root$P/.bashrc; echo evil > /proc/self/cwd/.bashrc; echo ok > /proc/self/root$P/root-ok"
absent "/proc/self/root/…/.bashrc (home) is not created" "$HOME/.bashrc"
absent "… nor /proc/thread-self/root/… or /proc/self/cwd/… (project)" "$P/.bashrc"
absent "… and the root link writes nothing at all (refused as procfs)" "$P/root-ok"

# --- semantics: the same results and errno values as natively ---
mkdir "$P/sem" "$H/native"
cp "$E2E/guard_probe.py" "$H/probe.py" # the sandbox's /tmp is its own
python3 "$H/probe.py" "$H/native" > "$H/native.txt" 2>&1
run "python3 $H/probe.py $P/sem"
printf '%s\n' "$out" > "$H/inside.txt"
if diff "$H/native.txt" "$H/inside.txt" > "$H/diff" 2>&1; then
	ok "O_EXCL/O_APPEND/O_TMPFILE/O_NOFOLLOW/O_CLOEXEC, umask, errno values: as natively ($(wc -l < "$H/native.txt" | tr -d ' ') probes)"
else
	not_ok "guarded calls behave as natively"; diag "$(cat "$H/diff")"
fi

# --- a FIFO opened for writing does not stall the others ---
run 'mkfifo ff && python3 -c "
import os, signal, threading, time
signal.alarm(20)  # a hang fails this test, not the suite
def w():
    try:
        fd = os.open(\"ff\", os.O_WRONLY)
    except OSError as e:
        print(\"writer-error\", e.errno)
        return
    os.write(fd, b\"hello\")
    os.close(fd)
t = threading.Thread(target=w); t.start()
time.sleep(0.3)
open(\"other\", \"w\").close()
print(\"created\", os.path.exists(\"other\"))
fd = os.open(\"ff\", os.O_RDONLY)
print(os.read(fd, 10).decode())
t.join()
"'
is "a FIFO's blocking open for writing does not stall another thread's create" "$(printf '%s' "$out" | tr '\n' ' ')" "created True hello"

# --- a signal reaches a command waiting in a FIFO's open for writing, as natively: each
# script's output and status under sbxsh equal bash's or python's own (before, the guard's
# wait took no signal but SIGKILL: a trap never ran, Ctrl-C and Ctrl-Z were lost) ---
mkdir -p "$P/fifo" "$H/fifo"
cat > "$P/fifo/trap.sh" << 'EOS'
trap 'echo INT' INT
rm -f f; mkfifo f
(sleep 0.3; kill -INT $$) &
echo x > f
echo "rc=$?"
EOS
cat > "$P/fifo/restart.sh" << 'EOS'
rm -f f; mkfifo f
(sleep 0.2) &
(sleep 0.6; cat f > got) &
echo x > f
echo "rc=$?"
wait
cat got
EOS
cat > "$P/fifo/stop.sh" << 'EOS'
rm -f f; mkfifo f
sh -c 'echo stopped-writer > f' &
w=$!
sleep 0.3
kill -STOP $w
sleep 0.3
state=$(cut -d' ' -f3 /proc/$w/stat)
kill -CONT $w
echo "state=$state"
cat f
wait $w
echo "rc=$?"
EOS
cat > "$P/fifo/handler.py" << 'EOS'
import os, signal, threading, time
if not os.path.exists("f"):
    os.mkfifo("f")
signal.signal(signal.SIGUSR1, lambda *a: print("usr1", flush=True))
pid = os.getpid()
def r():
    time.sleep(0.3); os.kill(pid, signal.SIGUSR1)
    time.sleep(0.3); fd = os.open("f", os.O_RDONLY); print("read", os.read(fd, 9).decode(), flush=True)
threading.Thread(target=r, daemon=True).start()
fd = os.open("f", os.O_WRONLY); os.write(fd, b"data"); os.close(fd)
time.sleep(0.2)
print("done", flush=True)
EOS
for s in trap.sh restart.sh stop.sh handler.py; do
	case $s in *.py) c="python3 $s" ;; *) c="bash $s" ;; esac
	cp "$P/fifo/$s" "$H/fifo/$s"
	native=$(cd "$H/fifo" && rm -f f && timeout -k 1 3 $c 2>&1; echo "exit $?")
	run "cd fifo && rm -f f && timeout -k 1 3 $c 2>&1; echo \"exit \$?\""
	is "fifo $s: a signal during its open for writing acts as natively ($(printf '%s' "$native" | tr '\n' ' '))" "$out" "$native"
done

# --- the other calls that change a file: fchmodat2, xattrs, a descriptor's chmod/chown, a
# descriptor (O_TMPFILE) linked into place (tests/e2e/guard_gaps.py) ---
if [ "$(uname -m)" = x86_64 ]; then
	mkdir -p "$P/gaps/x/y/z/w/v/.idea"
	echo o > "$P/gaps/x/y/z/w/v/.idea/ws.xml"
	echo o > "$P/gaps/ok.txt"
	chmod 644 "$P/gaps/x/y/z/w/v/.idea/ws.xml"
	cp "$E2E/guard_gaps.py" "$H/gaps.py" # the sandbox's /tmp is its own
	cp "$E2E/guard_libc.py" "$H/guard_libc.py" # (what it imports)
	run "cd gaps && python3 $H/gaps.py x/y/z/w/v/.idea/ws.xml ok.txt"
	is "fchmodat2, setxattr, fsetxattr, a descriptor's chmod/chown and linking a descriptor: refused on protected names, performed on the others" \
		"$(printf '%s' "$out" | tr '\n' ';')" \
		"fchmodat2 protected: EROFS;fchmodat2 ok: ok;… mode: 0o640;setxattr protected: EROFS;setxattr ok: ok;… read back: val;removexattr ok: ok;… gone: ENODATA;fsetxattr protected (a read-only descriptor): EROFS;fchmod by AT_EMPTY_PATH protected: EROFS;fchown by AT_EMPTY_PATH protected: EROFS;fsetxattr ok: ok;… read back: fdval;fchown by AT_EMPTY_PATH ok: ok;lsetxattr on a symlink: EPERM;O_TMPFILE linked by /proc/self/fd as tmp-linked: ok;O_TMPFILE linked by /proc/self/fd as .bashrc: EROFS;O_TMPFILE linked by AT_EMPTY_PATH as .profile: EROFS;a protected file's descriptor linked as another name: EROFS"
	is "… the protected file's mode is unchanged" "$(stat -c %a "$P/gaps/x/y/z/w/v/.idea/ws.xml")" 644
	absent "… no .bashrc from an O_TMPFILE" "$P/gaps/.bashrc"
	absent "… no .profile from an O_TMPFILE" "$P/gaps/.profile"
	is "… the permitted O_TMPFILE is in place with its content" "$(cat "$P/gaps/tmp-linked" 2>&1)" tmp
else
	for i in 1 2 3 4 5; do skip "the guard's other calls" "x86_64 system call numbers"; done
fi

# --- openat2's flags are in memory: a flip after the guard read them must not reach the kernel ---
if [ "$(uname -m)" = x86_64 ]; then
	cp "$E2E/guard_openat2.py" "$H/o2.py"
	mkdir -p "$P/o2"
	run "cd o2 && python3 $H/o2.py .bashrc 2"
	absent "openat2 with its open_how flipped between O_RDONLY and O_CREAT: .bashrc never appears ($out)" "$P/o2/.bashrc"
	run "cd o2 && python3 $H/o2.py ok-o2 1"
	like "… control: a permitted name is created through openat2" "$out" 'opened [1-9]'
	present "… and is there" "$P/o2/ok-o2"
else
	for i in 1 2 3; do skip "the openat2 flip" "x86_64 system call numbers"; done
fi

# --- monitor = off still guards ---
pol '[sbxsh]
monitor = off
[default]
network = none'
run 'echo x > .bashrc; echo y > off-ok'
absent "monitor = off: the guard still refuses .bashrc" "$P/.bashrc"
present "… control: the write beside it lands" "$P/off-ok"
unlike "… and nothing is reported" "$err" "violation"
run 'echo y > off-src; mv off-src .profile; ln -s x .zshrc; ln off-ok .gitconfig; mkdir .vscode; mknod .inputrc p; umask 077; echo z > off-mask; exit 0'
absent "… (its own filter) rename onto .profile refused" "$P/.profile"
absent "… symlink at .zshrc refused" "$P/.zshrc"
absent "… link to .gitconfig refused" "$P/.gitconfig"
absent "… mkdir .vscode refused" "$P/.vscode"
absent "… mknod .inputrc refused" "$P/.inputrc"
is "… a umask set in the command applies to what the guard creates" "$(stat -c %a "$P/off-mask" 2>&1)" 600
run 'python3 -c "import socket; socket.socket(socket.AF_UNIX)" 2>&1 | tail -n 1; touch -d @0 off-ok; stat -c %Y off-ok'
like "… AF_UNIX is still refused (by the filter: EPERM)" "$out" "PermissionError"
like "… a call off does not notify (utimensat) works" "$out" "^0$"

# --- the guard's own rights: no more than the command's ---
# A file the command may not write (root: owned by a user the sandbox does not map, so root's
# capabilities there do not reach it; a user: mode 0444). The guard performs the open, so a
# guard thread that kept the front end's capabilities would write it.
pol '[default]
network = none'
printf 'orig\n' > "$P/not-mine"
if is_root; then chown 65534:65534 "$P/not-mine"; chmod 644 "$P/not-mine"; else chmod 444 "$P/not-mine"; fi
if is_root; then
	run 'echo planted >> not-mine; echo "a=$?"; chmod 666 not-mine; echo "c=$?"; truncate -s 0 not-mine; echo "t=$?"'
	want="a=1 c=1 t=1" mode=644
else # its owner may chmod it
	run 'echo planted >> not-mine; echo "a=$?"; truncate -s 0 not-mine; echo "t=$?"'
	want="a=1 t=1" mode=444
fi
is "a file the command may not write is not written, chmod'ed or truncated by the guard for it (its rights, not the front end's)" "$(cat "$P/not-mine"; stat -c %a "$P/not-mine")" "orig
$mode"
is "… each call refused" "$(printf '%s' "$out" | tr '\n' ' ')" "$want"
rm -f "$P/not-mine"

# --- the race ---
pol '[default]
network = none'
if command -v cc > /dev/null 2>&1 && cc -O2 -pthread -o "$H/race" "$E2E/guard_race.c" 2> "$H/cc.err"; then
	mkdir "$P/race"
	run "$H/race $P/race 3"
	absent "a path flipped between ok_file and .bashrc while threads create, rename and symlink it: .bashrc never appears ($out)" "$P/race/.bashrc"
	if [ -e "$P/race/ok_file" ] || [ -L "$P/race/ok_file" ]; then ok "… control: the permitted name was written"; else not_ok "… control: the permitted name was written"; fi
	mkdir "$P/race2"
	run "$H/race $P/race2 2 /proc/self/comm /proc/self/root$P/race2/.bashrc"
	absent "a path flipped between /proc/self/comm and /proc/self/root/…/.bashrc while threads open it for writing: .bashrc never appears ($out)" "$P/race2/.bashrc"
	like "… control: /proc/self/comm was opened" "$out" 'opened [1-9]'
else
	skip "the race test" "no C compiler"
	skip "the race test's control" "no C compiler"
	skip "the /proc race test" "no C compiler"
	skip "the /proc race test's control" "no C compiler"
fi

done_testing
