#!/bin/sh
# 0520 ^Z at once: a job stopped wherever ^Z finds it (its fork, exec, start-up calls that wait
# on the violation monitor, or its sleep) is ended by kill -9 %1 and the shell hears of it.
# Driven on a pty by tests/e2e/job_stop.py, 20 times (SBXSH_JOB_STOPS; the stop lands at random).
. "$(dirname "$0")/lib.sh"

var_home jobstop
P=$H/proj
mkdir -p "$HOME/.config/sbxsh" "$P/.git"
chmod 700 "$HOME"
printf '%s\n' 'PS1="P> "' > "$HOME/.bashrc"
cd "$P" || exit 1
if ! "$SBXSH" -c true > "$H/err" 2>&1; then
	skip "^Z at once" "sbxsh cannot run a sandbox here: $(head -c 300 "$H/err")"
	done_testing; exit 0
fi

out=$(/usr/bin/python3 "$E2E/job_stop.py" "${SBXSH_JOB_STOPS:-20}" "$SBXSH" 2>&1)
res=$(printf '%s\n' "$out" | tail -n 1)
printf '%s\n' "$out" | grep '^#'
diag "$res"
val() { printf '%s\n' "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
like "the driver ran to its end" "$res" '^stopped=[0-9]+ lost=[0-9]+ startup=[0-9]+ alive=[0-9]+ stuck=[0-9]+ late=[0-9]+$'
check "^Z stopped jobs (the shell said Stopped)" test "$(val stopped)" -gt 0 2> /dev/null
is "every job stopped at once is ended by kill -9 %1 (none left alive)" "$(val alive)" 0
is "…and the shell hears of its end (no job Stopped after the next command)" "$(val stuck)" 0

done_testing
