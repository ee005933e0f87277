# lib.sh — what the bench scripts share. Sourced after `set -eu` and B=${1:-build}; sets top
# (the source tree), MAKE, work (a fresh directory under /var/tmp — not /tmp, which is private
# in the sandbox — readable by all; each script removes it in its own trap), and provides:
#   bench_need CMD…            exits naming deps.sh when a command is missing
#   bench_install TREE DEST [VAR=VALUE…]
#                              installs sbxsh built in $B/TREE into DEST (SYSCONFDIR DEST/etc);
#                              on failure prints the build's output and exits
top=$(cd "$(dirname "$0")/.." && pwd)
MAKE=${MAKE:-make}

bench_need() {
	for c; do
		command -v "$c" > /dev/null ||
			{ echo "${0##*/}: $c is missing (sh packaging/deps.sh bench)" >&2; exit 1; }
	done
}

bench_install() {
	_tree=$1 _dest=$2
	shift 2
	(cd "$top" && $MAKE --no-print-directory B="$B/$_tree" PREFIX="$_dest" \
		SYSCONFDIR="$_dest/etc" "$@" install > "$_dest.log" 2>&1) ||
		{ cat "$_dest.log"; exit 1; }
}

work=$(mktemp -d /var/tmp/sbxsh-bench.XXXXXX)
chmod 755 "$work"
