# lib.sh — sourced by every end-to-end script.  Prints TAP lines; run by tests/run.sh
# against a staged install ($SBXSH_STAGE), as root and as an unprivileged user.
set -u
: "${SBXSH_STAGE:?run through make check (tests/run.sh sets SBXSH_STAGE)}"
# An installed package (packaging/check-deb.sh) names its own paths.
SBXSH=${SBXSH_BIN:-$SBXSH_STAGE/bin/sbxsh}
SYSCONF=${SBXSH_SYSCONF:-$SBXSH_STAGE/etc/sbxsh}
E2E=$SBXSH_STAGE/e2e
tap_n=0
tap_failed=0
# The caller's own tool directories under its home (~/.pyenv/shims, ~/.cargo/bin: a version
# manager's shims, a rustup proxy) are left off PATH: a suite runs with a HOME of its own,
# where they find none of their data, and pyenv's shims are bash scripts that cost 0.4-0.7 s
# a python3 (root's e2e 0160 took 16 s instead of 6). The system's tools are used, as in the
# run as sbxsh-test (whose PATH has none). Suites that want the caller's HOME keep REAL_HOME.
case ${HOME:-/} in
/) ;;
*)
	_p= _ifs=$IFS
	IFS=:
	set -f
	for _d in $PATH; do
		case $_d in "$HOME" | "$HOME"/*) ;; *) _p=${_p:+$_p:}$_d ;; esac
	done
	set +f
	IFS=$_ifs
	PATH=$_p
	export PATH
	unset _p _d _ifs
	;;
esac

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
diag() { echo "# $*"; }
is_root() { [ "$(id -u)" = 0 ]; }

# check DESC CMD…: ok when CMD succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1"; diag "got:  $(printf '%s' "$2" | head -c 2000)"; diag "want: $3"
	fi
}
# like DESC TEXT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else
		not_ok "$1"; diag "got:  $(printf '%s' "$2" | head -c 2000)"; diag "want /$3/"
	fi
}
# unlike DESC TEXT PATTERN: TEXT has no line matching PATTERN (grep -E)
unlike() {
	if ! printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else
		not_ok "$1"; diag "got:  $(printf '%s' "$2" | head -c 2000)"; diag "want no /$3/"
	fi
}

# A private scratch area with a fake HOME and a project; removed at exit.
T=$(mktemp -d "${TMPDIR:-/tmp}/sbxsh-e2e.XXXXXX")
chmod 755 "$T"
# e2e_cleanup: stops this script's session daemon and removes $T (scripts with a trap of
# their own call it from theirs).
e2e_cleanup() { "$SBXSH" session stop > /dev/null 2>&1; chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"; }
trap e2e_cleanup EXIT
export HOME="$T/home"
export XDG_CONFIG_HOME="$HOME/.config"
unset XDG_STATE_HOME SBXSH_CONFIG SBXSH_SESSION
# network = proxy (the default) starts a session daemon: the script's own, never the user's
# (whose log it would write to) nor another script's (whose HOME it would log into).
export XDG_RUNTIME_DIR="$T/run"
mkdir -m 700 "$XDG_RUNTIME_DIR"
mkdir -p "$HOME/.config/sbxsh" "$T/proj/.git"
chmod 700 "$HOME"

# user_policy TEXT: writes ~/.config/sbxsh/sbxsh.ini (mode 0600).
# var_home NAME: the suite's HOME under /var/tmp in $H (the sandbox's /tmp is the command's
# private TMPDIR, so a HOME under /tmp would be invisible in it whatever the policy says);
# removed at exit.
var_home() {
	H=$(mktemp -d "/var/tmp/sbxsh-$1.XXXXXX") || exit 1
	chmod 755 "$H"
	trap 'chmod -R u+rwX "$H" 2>/dev/null; rm -rf "$H"; e2e_cleanup' EXIT
	export HOME="$H/home" XDG_CONFIG_HOME="$H/home/.config"
	unset XDG_STATE_HOME
}
user_policy() { printf '%s\n' "$1" > "$HOME/.config/sbxsh/sbxsh.ini"; chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"; }

# need_sandbox WHAT: unless a sandbox runs here (sbxsh -c true), WHAT is skipped with sbxsh's
# words and the suite ends.
need_sandbox() {
	"$SBXSH" -c true 2> "$T/need_sandbox.err" && return 0
	skip "$1" "sbxsh cannot run a sandbox here: $(head -c 300 "$T/need_sandbox.err")"
	done_testing
	exit
}

# redteam_start NAME WHAT: a red-team suite's start — HOME ($H/home) and the project ($P) under
# /var/tmp, network = none, the cwd the project; the whole suite skipped (WHAT attacked) when
# no sandbox runs here. Then: run CMD [DIR] (sets out, rc, err), absent DESC PATH, present DESC PATH.
redteam_start() {
	var_home "$1"
	P=$H/proj
	mkdir -p "$HOME/.config/sbxsh" "$P/.git"
	chmod 700 "$HOME"
	user_policy '[default]
network = none'
	cd "$P" || exit 1
	need_sandbox "$2 attacked"
	run() { out=$(cd "${2:-$P}" && "$SBXSH" -c "$1" 2> "$H/err"); rc=$?; err=$(cat "$H/err"); }
	absent() { if [ ! -e "$2" ] && [ ! -L "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 exists"; fi; }
	present() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1"; diag "$2 missing; $err"; fi; }
}

# env_cases LEAK_DESC KEEP_DESC: runs `env` under sbxsh with $envcases (NAME=VALUE lines: each
# must be removed from the command's environment) and $keepcases (each must stay).
env_cases() {
	inside=$(printf '%s\n' "$envcases" "$keepcases" | tr '\n' '\0' |
		xargs -0 sh -c 'exec env "$@" "$0" -c env' "$SBXSH" 2> /dev/null)
	leaked= lost=
	for c in $(printf '%s\n' "$envcases" | cut -d= -f1); do
		printf '%s\n' "$inside" | grep -q "^$c=" && leaked="$leaked $c"
	done
	for c in $(printf '%s\n' "$keepcases" | cut -d= -f1); do
		printf '%s\n' "$inside" | grep -q "^$c=" || lost="$lost $c"
	done
	is "$1" "$leaked" ""
	is "$2" "$lost" ""
}

done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
