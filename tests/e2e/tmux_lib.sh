# tmux_lib.sh — a terminal for the interactive suites (sourced after lib.sh): a tmux server of
# the suite's own (socket under $H, one per $nsrv) with one session "s".
# TM ARGS: tmux on that server. screen: the pane's text with its history (wrapped lines
# joined). wait_screen PATTERN [N]: until a line of the screen matches PATTERN (grep -E) N
# times (default 1), for up to 20 s; then 1. wait_file FILE: until FILE is non-empty (20 s).
# keys ARGS: send-keys to the pane. type_ahead_cd DIR: a cd to DIR and a line after it typed
# while a sleep runs (the cd switch's typed-ahead input), then the sleep ended and the line's
# output (ahead=PROFILE-42) waited for.
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
type_ahead_cd() {
	ta=$(printf '3%07d%03d' $$ "${ta_n:=0}"); ta_n=$((ta_n + 1)) # this script's own number
	keys -l "sleep $ta"; keys Enter
	i=0; while ! ta_pid=$(pgrep -f "^sleep $ta\$") && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	keys -l "cd $1"; keys Enter; keys -l 'echo "ahead=$SBXSH_PROFILE-$((40+2))"'; keys Enter
	i=0; while [ "$(screen | grep -c "^echo \"ahead=")" -lt 1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	kill "$ta_pid" 2> /dev/null
	wait_screen "^ahead=.*-42\$"
}
