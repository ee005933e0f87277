#!/bin/sh
# cdswitch.sh — the profile switch on cd (docs/sbxsh.1.md, "Profile switch on cd"): Enter of a
# `cd` into another profile's directory to that profile's prompt, against a `cd` that stays in
# the profile, through the pty relay of an interactive sbxsh. Writes its section of RESULTS.md.
# Usage: sh bench/cdswitch.sh [BUILD_DIR]
set -eu
B=${1:-build}
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$work"' EXIT
bench_install cdsw-build "$work/inst"
S=$work/inst/bin/sbxsh
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
unset XDG_STATE_HOME
mkdir -p "$HOME/.config/sbxsh" "$work/a/sub" "$work/b"
printf '%s\n' 'PS1="P> "' > "$HOME/.bashrc"
printf '[dir %s]\nwrite = .\n[dir %s]\nwrite = .\n' "$work/a" "$work/b" > "$HOME/.config/sbxsh/sbxsh.ini"
chmod 600 "$HOME/.config/sbxsh/sbxsh.ini"
drive() { /usr/bin/python3 "$top/bench/cd_drive.py" "$@"; }
r1=$(drive 50 "$work/a" "$work/b" "$work/a/sub" "$S")
r2=$(drive 50 "$work/a" "$work/b" "$work/a/sub" "$S")
section=$(cat <<EOT
## Profile switch on cd

- $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) (bench/cdswitch.sh)
- Enter of \`cd\` to the next prompt through the relay of an interactive sbxsh (bash, a one-line ~/.bashrc), 100 cds a round, two rounds (median / mean ms):
  $(echo "$r1" | awk '{printf "into another profile %s / %s, within the profile %s / %s (the switch: +%.1f ms median)", $1, $2, $3, $4, $1 - $3}');
  $(echo "$r2" | awk '{printf "%s / %s against %s / %s (+%.1f ms)", $1, $2, $3, $4, $1 - $3}')
- goal: the switch under 20 ms
EOT
)
printf '%s\n' "$section"
printf '%s\n' "$section" | /usr/bin/python3 "$top/bench/results.py" "$top/bench/RESULTS.md"
