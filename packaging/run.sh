#!/bin/sh
# run.sh — `make run`: start the sbxsh installed under $1 (a private install made by make run).
set -eu
root=$1
sbxsh=$root/bin/sbxsh
echo "sbxsh $("$sbxsh" --version 2>/dev/null | head -n 1 || echo '(version unknown)') — installed under $root"
echo
echo "== the policy in force here (sbxsh policy) =="
"$sbxsh" policy || exit $?
echo
if [ -t 0 ] && [ -t 1 ]; then
	echo "== starting sbxsh (exit or Ctrl-D to leave) =="
	exec "$sbxsh"
fi
echo "== stdin is not a terminal: running one command instead =="
echo "\$ sbxsh -c 'id; pwd; echo \"sandboxed: \$SBXSH_SANDBOX\"'"
exec "$sbxsh" -c 'id; pwd; echo "sandboxed: $SBXSH_SANDBOX"'
