#!/bin/sh
# 0980 the write boundary attacked again (session 12): a protected file's mode changed through
# a descriptor opened read-only (fchmod: a disabled hook made executable, a world-writable
# one), a protected file named through a directory descriptor's /proc/self/fd/N/… spelling
# (which must also work where the kernel allows it), and the other version-control systems'
# repository directories whose files run code at the host's next command (Sapling, Pijul,
# Darcs, Fossil). Each attack with a control showing the same thing works where it is allowed.
. "$(dirname "$0")/lib.sh"

redteam_start redteam12 "the write boundary" # HOME and the project under /var/tmp

if ! command -v python3 > /dev/null 2>&1; then
	skip "descriptor attacks" "no python3"
	done_testing
	exit
fi

# py CODE: run python3 code in the sandbox (os imported), its output in $out
py() { printf 'import os, sys\n%s\n' "$1" > "$H/t.py"; chmod 644 "$H/t.py"; run "python3 $H/t.py"; }

# --- fchmod through a read-only descriptor. A nested repository deeper than the mounts'
# probes (a/b/c/.git) has a hook the user disabled (not executable: git skips it) and a
# husky hook three levels down; the kernel lets the file's owner change its mode through any
# descriptor, and landlock has no right for it.
mkdir -p "$P/a/b/c/.git/hooks" "$P/pkg/web/.husky"
printf '#!/bin/sh\ntouch %s/pwned\n' "$H" > "$P/a/b/c/.git/hooks/pre-commit"
printf '#!/bin/sh\ntouch %s/pwned\n' "$H" > "$P/pkg/web/.husky/pre-push"
printf 'echo tool\n' > "$P/tool.sh"
chmod 644 "$P/a/b/c/.git/hooks/pre-commit" "$P/pkg/web/.husky/pre-push" "$P/tool.sh"
fchmod_try() { # PATH MODE: fchmod through an O_RDONLY descriptor; prints ok or the errno name
	py "fd = os.open('$1', os.O_RDONLY)
try:
    os.fchmod(fd, $2); print('ok')
except OSError as e:
    print(__import__('errno').errorcode[e.errno])"
}
fchmod_try a/b/c/.git/hooks/pre-commit 0o755
unlike "fchmod 0755 of a read-only descriptor of a nested repository's disabled hook is refused" "$out" '^ok$'
check "… and the hook is still not executable (git would run it at the host's next commit)" \
	test ! -x "$P/a/b/c/.git/hooks/pre-commit"
fchmod_try pkg/web/.husky/pre-push 0o700
check "… nor a husky hook three levels down (0700)" test ! -x "$P/pkg/web/.husky/pre-push"
fchmod_try a/b/c/.git/hooks/pre-commit 0o646
check "… nor made world-writable (0646: any local user's code in it)" \
	test "$(stat -c %a "$P/a/b/c/.git/hooks/pre-commit")" = 644
fchmod_try a/b/c/.git/hooks/pre-commit 0o1644
check "… nor given the sticky bit" test "$(stat -c %a "$P/a/b/c/.git/hooks/pre-commit")" = 644
fchmod_try tool.sh 0o2755
is "a set-group-ID bit by fchmod on a file is refused (EPERM)" "$out" EPERM
fchmod_try tool.sh 0o4755
is "a set-user-ID bit by fchmod is refused (EPERM)" "$out" EPERM
fchmod_try tool.sh 0o755
is "control: fchmod 0755 of a project file through a read-only descriptor works" "$out" ok
check "… and it is executable" test -x "$P/tool.sh"
fchmod_try tool.sh 0o644
is "control: fchmod 0644 back works" "$(stat -c %a "$P/tool.sh")" 644
py "fd = os.open('tool.sh', os.O_PATH)
try:
    os.fchmod(fd, 0o755); print('ok')
except OSError as e:
    print(__import__('errno').errorcode[e.errno])"
is "fchmod of an O_PATH descriptor answers EBADF, as the kernel does" "$out" EBADF
py "fd = os.open('tool.sh', os.O_PATH)
for f in (lambda: os.setxattr(fd, 'user.a', b'1'), lambda: os.removexattr(fd, 'user.a'),
          lambda: os.setxattr('/proc/self/fd/%d' % fd, 'user.b', b'1')):
    try:
        f(); print('ok')
    except OSError as e:
        print(__import__('errno').errorcode[e.errno])"
is "fsetxattr, fremovexattr of an O_PATH descriptor answer EBADF; setxattr of its /proc/self/fd/N works (as the kernel)" \
	"$(echo $out)" "EBADF EBADF ok"
py "fd = os.open('a/b/c/.git/hooks/pre-commit', os.O_PATH)
for p in ('/proc/self/fd/%d' % fd, '/dev/fd/%d' % fd, '/proc/%d/fd/%d' % (os.getpid(), fd)):
    try:
        os.chmod(p, 0o755); print('ok')
    except OSError as e:
        print(__import__('errno').errorcode[e.errno])"
unlike "chmod of an O_PATH descriptor's /proc/self/fd/N, /dev/fd/N, /proc/PID/fd/N is refused" "$out" '^ok$'
check "… and the hook is still not executable" test ! -x "$P/a/b/c/.git/hooks/pre-commit"
py "fd = os.open('tool.sh', os.O_RDONLY)
os.chmod('/proc/self/fd/%d' % fd, 0o755); os.chmod('/dev/fd/%d' % fd, 0o700); print('ok')"
is "control: chmod of a project file's /proc/self/fd/N and /dev/fd/N works" "$out" ok
is "… the mode is the last one set" "$(stat -c %a "$P/tool.sh")" 700
chmod 644 "$P/tool.sh"
# fchown: the sandbox holds no capability (root's are dropped), so a file's owner cannot be
# changed to another user, through any descriptor (the kernel's rule; the guard is not asked)
py "fd = os.open('a/b/c/.git/hooks/pre-commit', os.O_RDONLY)
try:
    os.fchown(fd, 12345, -1); print('ok')
except OSError as e:
    print(__import__('errno').errorcode[e.errno])"
unlike "fchown of a protected file to another user fails (no CAP_CHOWN in the sandbox)" "$out" '^ok$'
check "… its owner is unchanged" test "$(stat -c %u "$P/a/b/c/.git/hooks/pre-commit")" = "$(stat -c %u "$P/tool.sh")"
if command -v git > /dev/null 2>&1; then
	(cd "$P/a/b/c" && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x > /dev/null 2>&1)
	absent "the host's next commit in the nested repository runs nothing" "$H/pwned"
fi

# --- a directory descriptor's /proc/self/fd/N/name (and /dev/fd/N/name): the kernel follows
# the descriptor and makes the name there. It must work where the command may write, and be
# judged by the final name where it may not.
mkdir -p "$P/d/e"
py "d = os.open('d', os.O_RDONLY | os.O_DIRECTORY)
g = os.open('a/b/c/.git', os.O_RDONLY | os.O_DIRECTORY)
def t(what, f):
    try:
        f(); print(what, 'ok')
    except OSError as e:
        print(what, __import__('errno').errorcode[e.errno])
t('create', lambda: os.close(os.open('/proc/self/fd/%d/new1' % d, os.O_WRONLY | os.O_CREAT, 0o644)))
t('devfd', lambda: os.close(os.open('/dev/fd/%d/new2' % d, os.O_WRONLY | os.O_CREAT, 0o644)))
t('append', lambda: os.close(os.open('/proc/self/fd/%d/new1' % d, os.O_WRONLY | os.O_APPEND)))
t('mkdir', lambda: os.mkdir('/proc/self/fd/%d/nd' % d))
t('deep', lambda: os.close(os.open('/proc/self/fd/%d/e/../e/new3' % d, os.O_WRONLY | os.O_CREAT, 0o644)))
t('up', lambda: os.close(os.open('/proc/self/fd/%d/../up1' % d, os.O_WRONLY | os.O_CREAT, 0o644)))
t('rename', lambda: os.rename('/proc/self/fd/%d/new2' % d, '/proc/self/fd/%d/new4' % d))
t('chmod', lambda: os.chmod('/proc/self/fd/%d/new1' % d, 0o600))
t('pid', lambda: os.close(os.open('/proc/%d/fd/%d/new5' % (os.getpid(), d), os.O_WRONLY | os.O_CREAT, 0o644)))
t('pdbrc', lambda: os.close(os.open('/proc/self/fd/%d/.pdbrc' % d, os.O_WRONLY | os.O_CREAT, 0o644)))
t('pdbrc-up', lambda: os.close(os.open('/proc/self/fd/%d/../.pdbrc' % d, os.O_WRONLY | os.O_CREAT, 0o644)))
t('hook', lambda: os.close(os.open('/proc/self/fd/%d/hooks/post-checkout' % g, os.O_WRONLY | os.O_CREAT, 0o755)))
t('hook-dev', lambda: os.close(os.open('/dev/fd/%d/hooks/post-merge' % g, os.O_WRONLY | os.O_CREAT, 0o755)))
t('config', lambda: os.close(os.open('/proc/self/fd/%d/config' % g, os.O_WRONLY | os.O_CREAT, 0o644)))
t('hookmv', lambda: os.rename('/proc/self/fd/%d/new1' % d, '/proc/self/fd/%d/hooks/pre-push' % g))
t('hookx', lambda: os.chmod('/proc/self/fd/%d/hooks/pre-commit' % g, 0o755))
os.symlink('/proc/self/fd/%d/viasl' % d, 'd/sl1'); os.symlink('/proc/self/fd/%d/.pdbrc' % d, 'd/sl2')
t('symlink', lambda: os.close(os.open('d/sl1', os.O_WRONLY | os.O_CREAT, 0o644)))
t('symlink-pdbrc', lambda: os.close(os.open('d/sl2', os.O_WRONLY | os.O_CREAT, 0o644)))"
for w in create devfd append mkdir deep up rename chmod pid symlink; do
	like "control: /proc/self/fd/DIR/name works as the kernel's ($w)" "$out" "^$w ok\$"
done
present "… new1 is made in d/" "$P/d/new1"
present "… new4 (renamed from new2, made through /dev/fd/N/)" "$P/d/new4"
present "… nd/" "$P/d/nd"
present "… e/new3" "$P/d/e/new3"
present "… up1 (the descriptor's ..)" "$P/up1"
present "… new5 (/proc/PID/fd/N/)" "$P/d/new5"
is "… new1's mode is the one set through the spelling" "$(stat -c %a "$P/d/new1" 2> /dev/null)" 600
absent "/proc/self/fd/DIR/.pdbrc is not made (a protected name by any spelling)" "$P/d/.pdbrc"
absent "… nor /proc/self/fd/DIR/../.pdbrc" "$P/.pdbrc"
absent "… nor a nested repository's hook through its .git's descriptor" "$P/a/b/c/.git/hooks/post-checkout"
absent "… nor through /dev/fd/N/" "$P/a/b/c/.git/hooks/post-merge"
absent "… nor its config" "$P/a/b/c/.git/config"
absent "… nor a hook renamed in from a file of the project" "$P/a/b/c/.git/hooks/pre-push"
check "… nor is a hook made executable by chmod of that spelling" test ! -x "$P/a/b/c/.git/hooks/pre-commit"
present "… a symlink whose target is /proc/self/fd/DIR/name makes the name there" "$P/d/viasl"
like "… and one to /proc/self/fd/DIR/.pdbrc is refused" "$out" '^symlink-pdbrc EROFS$'
absent "… (no .pdbrc)" "$P/d/.pdbrc"

# a create grant: the mode of a file another command made, through a read-only descriptor
mkdir -p "$P/snaps"
user_policy '[default]
network = none
create += ./snaps'
run 'echo "export SNAP=1" > snaps/s.sh'
fchmod_try snaps/s.sh 0o755
is "create grant: fchmod 0755 of a file another command made is refused (EROFS)" "$out" EROFS
check "… it is not executable" test ! -x "$P/snaps/s.sh"
run 'echo "echo mine" > snaps/t.sh; python3 -c "import os; fd = os.open(\"snaps/t.sh\", os.O_RDONLY); os.fchmod(fd, 0o755); print(\"ok\")"'
is "control: a command's own file there is made executable through a read-only descriptor" "$out" ok
user_policy '[default]
network = none'
rm -rf "$P/d" "$P/up1" "$P/a" "$P/pkg" "$P/tool.sh" "$H/pwned" "$P/snaps"

# --- other version-control systems: files in their repository directories that run code at
# the host's next command in the repository, held as .git's, .hg's and .jj's are, missing or
# not, at any depth. Sapling: .sl/config (hooks, extensions; .git/sl/config in a git-backed
# checkout), .sl/sharedpath; Pijul: .pijul/config ([hooks] run at record), .pijul/hooks/;
# Darcs: _darcs/prefs/defaults (any command's --posthook/--prehook), _darcs/prefs/prefs (the
# test and predist commands); Fossil: the checkout database .fslckout / _FOSSIL_ (it names the
# repository whose settings run commands) and SQLite's journals beside it (a hot journal is
# played back into the database by the next open).
run 'for d in . a/b; do
mkdir -p $d/.sl/store $d/.pijul/pristine $d/_darcs/patches $d/.git/sl
echo "[hooks]" > $d/.sl/config; echo /tmp > $d/.sl/sharedpath; echo x > $d/.git/sl/config
echo "[hooks]" > $d/.pijul/config; mkdir -p $d/.pijul/hooks; echo x > $d/.pijul/hooks/record
mkdir -p $d/_darcs/prefs; echo "ALL posthook touch x" > $d/_darcs/prefs/defaults; echo "test make" > $d/_darcs/prefs/prefs
echo x > $d/.fslckout; echo x > $d/_FOSSIL_; echo x > $d/.fslckout-journal; echo x > $d/_FOSSIL_-wal
echo ok > $d/.sl/store/s1; echo ok > $d/.pijul/pristine/p1; echo ok > $d/_darcs/patches/d1; echo ok > $d/_darcs/prefs/repos
echo ok > $d/fslckout.txt
done'
for d in . a/b; do
	for f in .sl/config .sl/sharedpath .git/sl/config .pijul/config .pijul/hooks/record \
		_darcs/prefs/defaults _darcs/prefs/prefs .fslckout _FOSSIL_ .fslckout-journal _FOSSIL_-wal; do
		absent "$d/$f is not made (it runs code at the host's next command)" "$P/$d/$f"
	done
	for f in .sl/store/s1 .pijul/pristine/p1 _darcs/patches/d1 _darcs/prefs/repos fslckout.txt; do
		present "control: $d/$f is written (what the tool writes in normal work)" "$P/$d/$f"
	done
done
mkdir -p "$P/q/.sl" "$P/q/_darcs/prefs" "$P/q/.pijul"
echo safe > "$P/q/.sl/config"
echo safe > "$P/q/_darcs/prefs/defaults"
echo safe > "$P/q/.pijul/config"
run 'mv q/.sl q/sl.old; mv q/_darcs/prefs q/_darcs/p.old; mv q/.pijul q/pijul.old; rm -f q/.sl/config
echo bad >> q/_darcs/prefs/defaults; ln -s /tmp q/.fslckout; mkdir q/_FOSSIL_'
for f in .sl/config _darcs/prefs/defaults .pijul/config; do
	is "an existing q/$f is kept unchanged (no rename of its directory, no write, no unlink)" \
		"$(cat "$P/q/$f" 2> /dev/null)" safe
done
absent "… no .fslckout link is made" "$P/q/.fslckout"
absent "… no _FOSSIL_ directory is made" "$P/q/_FOSSIL_"
rm -rf "$P/.sl" "$P/.pijul" "$P/_darcs" "$P/.git/sl" "$P/a" "$P/q" "$P/fslckout.txt"

# --- rustup's toolchain file: `[toolchain] path = DIR` runs DIR/bin/rustc (cargo, rustfmt…)
# for every rustup proxy started in the directory or below — a prompt's `rustc --version`
# (starship's rust module) at the host's next prompt there, no command of the user's needed
mkdir -p "$P/a/b"
run 'mkdir -p tc/bin && printf "#!/bin/sh\ntouch '"$H"'/pwned-rust\necho rustc 9.9.9\n" > tc/bin/rustc && chmod 755 tc/bin/rustc
printf "[toolchain]\npath = \"%s/tc\"\n" "$PWD" > rust-toolchain.toml
cp rust-toolchain.toml a/b/rust-toolchain.toml; echo "$PWD/tc" > rust-toolchain; echo x > rust-toolchain.txt'
absent "rust-toolchain.toml is not made (a toolchain path: code at the next rustc, cargo there)" "$P/rust-toolchain.toml"
absent "… nor a/b/rust-toolchain.toml" "$P/a/b/rust-toolchain.toml"
absent "… nor rust-toolchain (the older name)" "$P/rust-toolchain"
present "… control: rust-toolchain.txt is made" "$P/rust-toolchain.txt"
present "… control: the toolchain directory itself is project code, made" "$P/tc/bin/rustc"
if command -v rustup > /dev/null 2>&1 && command -v rustc > /dev/null 2>&1; then
	(cd "$P/a/b" && timeout 20 rustc --version > /dev/null 2>&1)
	absent "… the host's next rustc in the project runs nothing planted" "$H/pwned-rust"
	printf '[toolchain]\npath = "%s/tc"\n' "$P" > "$P/rust-toolchain.toml"
	(cd "$P/a/b" && timeout 20 rustc --version > /dev/null 2>&1)
	present "… control: a toolchain file the user made is followed by the host's rustc" "$H/pwned-rust"
	rm -f "$H/pwned-rust" "$P/rust-toolchain.toml"
else
	skip "the host's rustc runs nothing planted" "no rustup here"
fi
rm -rf "$P/tc" "$P/a" "$P/rust-toolchain.txt" "$P/rust-toolchain"

# --- the Perl debugger's ./.perldb: `perl -d` runs it at start (after checking that the user
# owns it and no one else may write it: true of what a command made), as pdb runs ./.pdbrc
mkdir -p "$P/a/b"
run 'echo "system(q{touch '"$H"'/pwned-perldb});" > .perldb; cp .perldb a/b/.perldb; echo x > perldb.txt'
absent "the project's .perldb is not made (perl -d runs it at start)" "$P/.perldb"
absent "… nor a/b/.perldb" "$P/a/b/.perldb"
present "… control: perldb.txt is made" "$P/perldb.txt"
if command -v perl > /dev/null 2>&1; then
	(cd "$P" && echo q | timeout 20 perl -d -e 1 > /dev/null 2>&1)
	absent "… the host's next perl -d in the project runs nothing planted" "$H/pwned-perldb"
	echo "system(q{touch $H/ok-perldb});" > "$P/.perldb"
	chmod 644 "$P/.perldb"
	(cd "$P" && echo q | timeout 20 perl -d -e 1 > /dev/null 2>&1)
	present "… control: the host's perl -d runs a .perldb the user made" "$H/ok-perldb"
else
	skip "the host's perl -d runs nothing planted" "no perl here"
fi
rm -rf "$P/.perldb" "$P/a" "$P/perldb.txt" "$H/ok-perldb" "$H/pwned-perldb"

# --- Shadowenv: at every prompt in a directory holding .shadowenv.d it evaluates the *.lisp
# files there; trust is by directory ("any code run from within it forever"), so a trusted
# project's programs rewritten by a command run at the host's next prompt
mkdir -p "$P/a/b/.shadowenv.d" "$P/.shadowenv.d"
echo '(env/set "X" "1")' > "$P/.shadowenv.d/500_default.lisp"
run 'echo "(env/prepend-to-pathlist \"PATH\" \"./bin\")" > .shadowenv.d/500_default.lisp; echo x > .shadowenv.d/600_more.lisp
echo x > a/b/.shadowenv.d/500_default.lisp; mkdir -p c/.shadowenv.d; echo x > c/.shadowenv.d/1.lisp; mv .shadowenv.d shadowenv.old; echo x > shadowenv.txt'
is "Shadowenv: an existing .shadowenv.d/500_default.lisp is not rewritten" "$(cat "$P/.shadowenv.d/500_default.lisp")" '(env/set "X" "1")'
absent "… no program is added there" "$P/.shadowenv.d/600_more.lisp"
absent "… nor in a/b/.shadowenv.d" "$P/a/b/.shadowenv.d/500_default.lisp"
absent "… nor in a new c/.shadowenv.d" "$P/c/.shadowenv.d/1.lisp"
absent "… .shadowenv.d is not renamed away" "$P/shadowenv.old"
present "… control: shadowenv.txt is made" "$P/shadowenv.txt"
rm -rf "$P/.shadowenv.d" "$P/a" "$P/c" "$P/shadowenv.txt" "$P/shadowenv.old"

done_testing
