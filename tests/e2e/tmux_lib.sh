# tmux_lib.sh — a terminal for the interactive suites (sourced after lib.sh): a tmux server of
# the suite's own (socket under $H, one per $nsrv) with one session "s".
# TM ARGS: tmux on that server. screen: the pane's text with its history (wrapped lines
# joined). wait_screen PATTERN [N]: until a line of the screen matches PATTERN (grep -E) N
# times (default 1), for up to 20 s; then 1. wait_file FILE: until FILE is non-empty (20 s).
# keys ARGS: send-keys to the pane.
TM() { tmux -f /dev/null -S "$H/tmux.$nsrv.sock" "$@"; }
screen() { TM capture-pane -p -J -S - -t s 2>/dev/null; }
wait_screen() {
	i=0
	while [ "$(screen | grep -Ec -- "$1")" -lt "${2:-1}" ]; do
		i=$((i + 1)); [ $i -ge 200 ] && return 1; sleep 0.1
	done
}
wait_file() { i=0; while [ ! -s "$1" ]; do i=$((i + 1)); [ $i -ge 200 ] && return 1; sleep 0.1; done; }
keys() { TM send-keys -t s "$@"; }
