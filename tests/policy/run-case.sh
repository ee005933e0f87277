#!/bin/sh
# run-case.sh CASE_DIR — one golden test of `sbxsh policy` against the staged install.
#
# CASE_DIR holds:
#   args      arguments after `sbxsh policy` (one line; @T@ is the scratch dir), optional
#   user.ini  the user file (~/.config/sbxsh/sbxsh.ini, mode 0600), optional
#   system.ini  $SYSCONF/sbxsh.ini (root only: a system file must be root-owned), optional
#   dirs      directories to create under the scratch dir, one a line (default: proj/.git)
#   *.ini     any other file is copied to the scratch dir (mode 0600)
#   expected  the exact stdout+stderr, then "exit N"; @T@ stands for the scratch dir
# The command runs in @T@/proj with env -i, HOME=@T@/home. SBXSH_GOLDEN_UPDATE=1 rewrites
# expected instead of comparing. Prints one TAP line.
set -u
case_dir=$1
name=${case_dir%/}; name=${name##*/}
: "${SBXSH_STAGE:?run through make check (tests/run.sh sets SBXSH_STAGE)}"
SBXSH=$SBXSH_STAGE/bin/sbxsh
SYSCONF=$SBXSH_STAGE/etc/sbxsh

if [ -f "$case_dir/system.ini" ] && [ "$(id -u)" != 0 ]; then
	echo "ok 1 - policy/$name # SKIP a system policy file must be owned by root"
	echo "1..1"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sbxsh-golden.XXXXXX") || exit 1
T=$(cd "$T" && pwd -P)
cleanup() {
	rm -rf "$T"
	[ -f "$case_dir/system.ini" ] && rm -f "$SYSCONF/sbxsh.ini"
}
trap cleanup EXIT INT TERM

subst() { sed "s|@T@|$T|g" "$1"; }

mkdir -p "$T/home/.config/sbxsh" "$T/proj"
chmod 700 "$T/home"
if [ -f "$case_dir/dirs" ]; then
	while IFS= read -r d; do [ -n "$d" ] && mkdir -p "$T/$d"; done < "$case_dir/dirs"
else
	mkdir -p "$T/proj/.git"
fi
for f in "$case_dir"/*.ini; do
	[ -f "$f" ] || continue
	base=${f##*/}
	case $base in
	user.ini) dst=$T/home/.config/sbxsh/sbxsh.ini ;;
	system.ini) dst=$SYSCONF/sbxsh.ini; mkdir -p "$SYSCONF" ;;
	*) dst=$T/$base ;;
	esac
	subst "$f" > "$dst"
	if [ "$base" = system.ini ]; then chmod 644 "$dst"; else chmod 600 "$dst"; fi
done

args=""
[ -f "$case_dir/args" ] && args=$(subst "$case_dir/args")
# shellcheck disable=SC2086  # args are split on purpose: one line of words
got=$(cd "$T/proj" && env -i PATH=/usr/bin:/bin HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" \
	"$SBXSH" policy $args 2>&1; echo "exit $?")
got=$(printf '%s\n' "$got" | sed -e "s|$T|@T@|g" -e "s|$SBXSH_STAGE|@STAGE@|g")
# deny_read's ~ is also the password database's home (another directory than HOME here):
# those lines depend on who runs the tests and are e2e/0150's to check.
pw=$(getent passwd "$(id -u)" | cut -d: -f6)
pw=$(cd "$pw" 2>/dev/null && pwd -P) || pw=""
if [ -n "$pw" ] && [ "$pw" != / ]; then
	got=$(printf '%s\n' "$got" | grep -v -F "deny_read = $pw/")
fi

if [ "${SBXSH_GOLDEN_UPDATE:-}" = 1 ]; then
	printf '%s\n' "$got" > "$case_dir/expected"
	echo "ok 1 - policy/$name (expected rewritten)"
elif [ "$got" = "$(cat "$case_dir/expected" 2>/dev/null)" ]; then
	echo "ok 1 - policy/$name"
else
	echo "not ok 1 - policy/$name"
	printf '%s\n' "$got" > "$T/got"
	diff -u "$case_dir/expected" "$T/got" | sed 's/^/# /'
fi
echo "1..1"
