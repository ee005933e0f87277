#!/bin/sh
# 0940 the session's new mechanisms, attacked: a deny_read or deny_write path inside a write
# grant moved away by renaming the directory holding it (the mount follows the directory,
# the name does not: the next command, or the host's next tool, met the old name empty and
# the file unhidden or unprotected under the new one); the stage's capabilities (root's masks
# are the stage's now); each with a control that the same call is allowed where nothing is
# held.
. "$(dirname "$0")/lib.sh"

var_home redteam8 # HOME and the project under /var/tmp
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git" # a project: writable
chmod 700 "$HOME"
user_policy '[default]
network = none'
cd "$P" || exit 1
if ! "$SBXSH" -c true 2> "$H/err"; then
	skip "the session's mechanisms attacked" "sbxsh cannot run a sandbox here: $(head -c 300 "$H/err")"
	done_testing
	exit
fi
run() { out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }

# --- the stage: nothing of CAP_SYS_ADMIN (bwrap's --cap-add for root's masks) survives ---
run 'grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status'
is "no capability, bounding-set entry or ambient one reaches the command" \
	"$(printf '%s\n' "$out" | awk '{print $2}' | sort -u)" 0000000000000000
run 'umount -l /proc/sys 2>/dev/null && echo UMOUNTED; mount -o remount,rw /proc/sys 2>/dev/null && echo REMOUNTED; echo end'
is "the command cannot unmount or remount a mask (/proc/sys read-only)" "$out" end

# --- credentials in values the env_unset value rule let through (names no pattern lists) ---
out=$(env V1='user:pass@tcp(db:3306)/app' V2='Basic dXNlcjpwYXNz' V3='https:\/\/u:p@h.example' \
	V4='https%3A%2F%2Fu%3Ap%40h.example' V5='ghp_abcdefghijklmnopqrstuvwxyz0123456789' \
	V6='Authorization : Bearer abc' V7='x-access-token:ghpsecret@github.com' \
	V8='token abcdefghij0123456789' V9='AKIAABCDEFGHIJKLMNOP' \
	C1="/usr/bin:/opt/homebrew/opt/python@3.11/bin" C2='git@github.com:o/r.git' \
	C3='Basic settings' C4='someone@example.com' C5='https://example.com/a:b@c' \
	"$SBXSH" -c 'env' 2> "$H/err")
for v in V1 V2 V3 V4 V5 V6 V7 V8 V9; do
	unlike "a credential in $v's value does not reach the command" "$out" "^$v="
done
for v in C1 C2 C3 C4 C5; do
	like "control: $v's value (no credential) reaches the command" "$out" "^$v="
done

# --- a deny_read path in the project: its directory renamed, then read by the next command ---
mkdir -p "$P/secrets" "$P/conf" "$P/free"
echo TOPSECRET > "$P/secrets/key"
echo orig > "$P/conf/prod.yml"
echo plain > "$P/free/x"
echo lock > "$P/g1.lock"
user_policy "[default]
network = none
deny_read += $P/secrets/key
deny_write += $P/conf/prod.yml $P/*.lock"
run 'mv secrets s2'
like "… the rename is refused and reported" "$err" 'secrets.*rename'
run 'cat s2/key secrets/key 2>/dev/null'
unlike "a deny_read path's directory renamed: the next command does not read the file" "$out" TOPSECRET
check "… the directory keeps its name" test -f "$P/secrets/key"
run 'ln secrets/key hl; cat hl'
unlike "a deny_read file is not linked to a second name" "$out" TOPSECRET
run 'rm -rf secrets'
check "… nor is it removed" test -f "$P/secrets/key"
run 'rm -f secrets/key; echo planted > secrets/key'
is "a deny_read file itself is not removed (the guard's unlink is made outside the mask) nor replaced" \
	"$(cat "$P/secrets/key")" TOPSECRET
run 'rm -f conf/prod.yml; echo evil > conf/prod.yml'
is "a deny_write file itself is not removed nor replaced" "$(cat "$P/conf/prod.yml")" orig
run 'mv conf/prod.yml conf/old'
is "… nor renamed away" "$(cat "$P/conf/prod.yml")" orig

# --- a deny_write path's directory renamed and a new file put under the old name ---
run 'mv conf c2 && mkdir conf && echo evil > conf/prod.yml'
is "a deny_write path's directory renamed: the host reads the original under its name" \
	"$(cat "$P/conf/prod.yml")" orig
like "… reported as the deny_write" "$err" 'deny_write'
check "… and the command fails" test "$rc" -ne 0
run 'rm -f g1.lock; echo evil > g1.lock'
is "a glob's deny_write match is not removed nor replaced" "$(cat "$P/g1.lock")" lock
like "… reported" "$err" 'g1\.lock.*unlink'

# --- control: a directory holding nothing denied is renamed as before ---
run 'mv free f2 && cat f2/x'
is "control: a directory holding no denied path is renamed" "$out" plain

# --- the global config's relative core.hooksPath with "..": a nested repository's ../hk lies
# in the project, and the guard never meets that repository when the command writes only there
if command -v git > /dev/null 2>&1; then
	mkdir -p "$P/a/b" "$P/a/c"
	git init -q "$P/a/b/sub" || exit 1
	printf '[core]\n\thooksPath = ../hk\n' > "$HOME/.gitconfig"
	run 'mkdir -p a/b/hk; printf "#!/bin/sh\necho planted\n" > a/b/hk/pre-commit'
	check "a global hooksPath ../hk: no hook planted beside a nested repository" \
		test ! -e "$P/a/b/hk/pre-commit"
	like "… reported" "$err" 'hk.*(mkdir|openat)'
	run 'mkdir -p a/c/hooks2 && echo x > a/c/hooks2/f && cat a/c/hooks2/f'
	is "control: another directory beside it is written" "$out" x
	rm -f "$HOME/.gitconfig"
else
	skip "a global hooksPath ../hk beside a nested repository" "needs git"
fi

done_testing
