#!/bin/sh
# policy.sh B — the "Policy load" benchmark: the embedded default plus a generated 200-section
# user file, loaded through the real file checks, and the profile resolved for a directory.
# Prints a markdown section for bench/RESULTS.md (goal: under 1 ms per load + resolve).
set -eu
B=${1:-build}
make -s B="$B" "$B/bench/policy_bench"
line=$("$B/bench/policy_bench" "${POLICY_BENCH_N:-2000}")
echo "## Policy load"
echo
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- \`$B/bench/policy_bench\`: $line"
echo "- goal: under 1 ms (1000 us)"
