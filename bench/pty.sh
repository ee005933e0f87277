#!/bin/sh
# pty.sh — the pty relay (docs/sbxsh.1.md, "Interactive use"): keystroke round trip (1,000
# one-byte echoes through `cat` on a raw pty) and the throughput of `cat` of 100 MB to the
# terminal, sbxsh -c against bash -c on the same kind of pty. Writes its section of RESULTS.md.
# Usage: sh bench/pty.sh [BUILD_DIR]
set -eu
B=${1:-build}
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$work"' EXIT
bench_install pty-build "$work/inst"
S=$work/inst/bin/sbxsh
export HOME="$work/home"
mkdir -p "$HOME" "$work/proj/.git"
cd "$work/proj"
head -c 100000000 /dev/zero | tr '\0' 'x' | fold -w 99 > "$work/big.txt"
size=$(wc -c < "$work/big.txt")
drive() { /usr/bin/python3 "$top/bench/pty_drive.py" "$@"; }
# The inner pty raw too, so every byte goes through cat (and, for sbxsh, the relay) both ways.
echo_cmd='stty raw -echo; echo READY; exec cat'
round() {
	printf '%s %s\n' "$(drive echo 1000 /bin/bash -c "$echo_cmd")" \
		"$(drive echo 1000 "$S" -c "$echo_cmd")"
}
r1=$(round); r2=$(round); r3=$(round)
c_bash=$(drive cat 0 /bin/bash -c "cat $work/big.txt" | cut -d' ' -f1)
c_sbx=$(drive cat 0 "$S" -c "cat $work/big.txt" | cut -d' ' -f1)
c_bash2=$(drive cat 0 /bin/bash -c "cat $work/big.txt" | cut -d' ' -f1)
c_sbx2=$(drive cat 0 "$S" -c "cat $work/big.txt" | cut -d' ' -f1)
section=$(cat <<EOT
## Pty relay

- $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) (bench/pty.sh)
- keystroke round trip, 1,000 one-byte echoes through \`cat\` on a raw pty (median / mean µs), three rounds, bash -c then sbxsh -c:
  $(echo "$r1" | awk '{printf "bash %s / %s, sbxsh %s / %s (+%.1f µs median)", $1, $2, $3, $4, $3 - $1}');
  $(echo "$r2" | awk '{printf "bash %s / %s, sbxsh %s / %s (+%.1f µs)", $1, $2, $3, $4, $3 - $1}');
  $(echo "$r3" | awk '{printf "bash %s / %s, sbxsh %s / %s (+%.1f µs)", $1, $2, $3, $4, $3 - $1}')
- goal: within 0.1 ms (100 µs) of bash's
- \`cat\` of 100 MB to the terminal (MB/s, two rounds): bash $c_bash, $c_bash2; sbxsh $c_sbx, $c_sbx2
  ($(echo "$c_bash $c_sbx $c_bash2 $c_sbx2" | awk '{printf "%.0f%%, %.0f%% of bash", 100 * $2 / $1, 100 * $4 / $3}'))
- goal: at least 90% of bash's throughput
EOT
)
printf '%s\n' "$section"
printf '%s\n' "$section" | /usr/bin/python3 "$top/bench/results.py" "$top/bench/RESULTS.md"
