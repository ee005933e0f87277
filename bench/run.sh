#!/bin/sh
# run.sh — runs every benchmark script in bench/ (each writes its own section of
# bench/RESULTS.md).  Usage: sh bench/run.sh [BUILD_DIR]   (make bench does this)
set -u
B=${1:-build}
here=$(dirname "$0")
rc=0
for s in "$here"/*.sh; do
	case ${s##*/} in run.sh | lib.sh) continue ;; esac
	echo "== ${s##*/}"
	sh "$s" "$B" || { echo "bench: ${s##*/} failed" >&2; rc=1; }
done
exit $rc
