#!/bin/sh
# check.sh [B] — instructions of the guard's name check per create (bench/check_bench.c, built as
# the front end is: on musl when LIBC=musl), by callgrind at 1,000 and 2,000 checks, for the
# project beside the home directory (bench/guard.sh's layout) and below it. Prints one line
# each. Load-independent: the machine's other work does not change a count.
set -eu
B=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind > /dev/null || { echo "check.sh: valgrind is missing (sh packaging/deps.sh bench)" >&2; exit 1; }
make -s -C "$top" B="$B" "$B/bench/check_bench"
prog=$top/$B/bench/check_bench
out=$(mktemp -d /var/tmp/sbxsh-check.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$prog" "$1" "$2" 2>&1 |
		awk '/Collected/ { print $4 }'
}
for u in 0 1; do
	a=$(ir 1000 $u)
	b=$(ir 2000 $u)
	[ "$u" = 1 ] && where="below the home directory" || where="beside the home directory"
	echo "- the guard's check of one create, the project $where: $(((b - a) / 1000)) instructions"
done
